//! One Lagrangian on `G × g`, written once over the scalar as a `LieFunction` outside the
//! crates, runs in the Hamilton–Pontryagin integrators (`hp::AutoDiff` derives `∂ℓ/∂ξ` and the
//! force) and in the discretization layer's Lie-group Lagrangian route (`LieAutoDiff`): both
//! conserve the heavy top's vertical spatial momentum and agree with each other to their order;
//! HP on the user's Lagrangian is HP on the shipped closed-form model to round-off.

use discretization::lie_function::{LieAutoDiff, LieFunction};
use discretization::{LieLagrangianIntegrator, OneStep};
use geom_core::Scalar;
use geom_core::lie::{Chart, LieGroup, So3};
use integrators::hp::{self, AutoDiff, LieState};
use integrators::models::HeavyTop;
use nalgebra::{Matrix3, Vector3};

const INERTIA: [f64; 3] = [2.0, 2.5, 1.0];
const MGL: f64 = 1.0;
const CHI: [f64; 3] = [0.1, 0.0, 1.0];

/// The heavy top's `ℓ(R, ξ) = ½ ξᵀ I ξ − mgl e3·(R χ̂)`, `χ̂ = χ/|χ|`.
struct Top;
impl<S: Scalar> LieFunction<S, So3, 3> for Top {
    fn eval(&self, _: &So3, r: &Matrix3<S>, xi: &Vector3<S>) -> S {
        let norm = (CHI[0] * CHI[0] + CHI[1] * CHI[1] + CHI[2] * CHI[2]).sqrt();
        let kinetic = (0..3).fold(S::from(0.0), |a, i| a + xi[i] * xi[i] * S::from(INERTIA[i])) * S::from(0.5);
        let height = (0..3).fold(S::from(0.0), |a, j| a + r[(2, j)] * S::from(CHI[j] / norm));
        kinetic - height * S::from(MGL)
    }
}

/// `e3·(R μ)`: the spatial angular momentum about the vertical.
fn vertical(s: &LieState<Matrix3<f64>, 3>) -> f64 {
    (s.g * s.mu)[2]
}

#[test]
fn one_lagrangian_runs_in_hamilton_pontryagin_and_in_the_lagrangian_route() {
    let h = 0.01;
    let s0 = LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
    let hp_user = hp::stormer_verlet(So3, Chart::Cayley, AutoDiff(Top)).unwrap();
    let model = HeavyTop::new(Matrix3::from_diagonal(&Vector3::from(INERTIA)), MGL, Vector3::from(CHI)).unwrap();
    let hp_model = hp::stormer_verlet(So3, Chart::Cayley, model).unwrap();
    let route = LieLagrangianIntegrator::new(So3, 0.5, Chart::Cayley, LieAutoDiff(Top)).unwrap();

    let (mut a, mut b, mut c) = (s0, s0, s0);
    let (mut drift_hp, mut drift_route) = (0.0f64, 0.0f64);
    for _ in 0..500 {
        hp_user.step(&mut a, h).unwrap();
        hp_model.step(&mut b, h).unwrap();
        route.step(&mut c, h).unwrap();
        drift_hp = drift_hp.max((vertical(&a) - vertical(&s0)).abs());
        drift_route = drift_route.max((vertical(&c) - vertical(&s0)).abs());
    }
    let same = (a.g - b.g).amax().max((a.mu - b.mu).amax());
    assert!(same < 1e-12, "HP on the user's Lagrangian and on the model differ by {same:e}");
    assert!(drift_hp < 1e-12, "HP: vertical momentum drift {drift_hp:e}");
    assert!(drift_route < 1e-12, "Lagrangian route: vertical momentum drift {drift_route:e}");
    // two second-order methods at h = 0.01 over t = 5: close, but not the same method
    let gap = (a.g - c.g).amax().max((a.mu - c.mu).amax());
    assert!(gap < 1e-2 && gap > 1e-10, "HP and the Lagrangian route differ by {gap:e}");
}
