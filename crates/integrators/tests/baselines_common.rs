//! What the tests of the Part I baselines (`coadjoint_energy`, `energy_momentum`,
//! `lie_newmark`) share: the free body `I = diag(2, 1, 2/3)` and a heavy top, their initial
//! states on `T*SO(3)`, and the reference solution of the reduced heavy-top equations by RK4 at
//! a small step.

use geom_core::lie::{LieGroup, So3};
use geom_core::step::LieState;
use integrators::models::{FreeRigidBody, HeavyTop};
use nalgebra::{Matrix3, Vector3};

/// A state on `T*SO(3)`: `(R, Π)`.
pub type State = LieState<Matrix3<f64>, 3>;

/// The free body `I = diag(2, 1, 2/3)`.
pub fn body() -> FreeRigidBody {
    FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0).unwrap()
}

/// A heavy top, `I = diag(2, 2.5, 1)`, `mgl = 1`, `χ = (0.1, 0, 1)`.
pub fn top() -> HeavyTop {
    HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::new(0.1, 0.0, 1.0)).unwrap()
}

/// The free body's initial state: `R = exp(0.3, −0.2, 0.5)`, `Π = (cos 1.1, 0, sin 1.1)`.
pub fn body0() -> State {
    LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin()))
}

/// The heavy top's initial state: `R = exp(0.5, 0.2, 0)`, `Π = (0.3, −0.4, 2)`.
pub fn top0() -> State {
    LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0))
}

/// `(Π, Γ)` at `time` from `(pi, gamma)` by RK4 with 40 000 steps on the reduced heavy-top
/// equations `Π̇ = Π × ω + mgl Γ × χ`, `Γ̇ = Γ × ω`, `ω = I⁻¹Π`.
pub fn heavy_top_reference(
    t: &HeavyTop,
    pi: Vector3<f64>,
    gamma: Vector3<f64>,
    time: f64,
) -> (Vector3<f64>, Vector3<f64>) {
    let f = |p: &Vector3<f64>, g: &Vector3<f64>| {
        let w = t.velocity(p);
        (p.cross(&w) + g.cross(t.chi()) * t.mgl(), g.cross(&w))
    };
    let n = 40_000;
    let h = time / n as f64;
    let (mut p, mut g) = (pi, gamma);
    for _ in 0..n {
        let k1 = f(&p, &g);
        let k2 = f(&(p + k1.0 * (0.5 * h)), &(g + k1.1 * (0.5 * h)));
        let k3 = f(&(p + k2.0 * (0.5 * h)), &(g + k2.1 * (0.5 * h)));
        let k4 = f(&(p + k3.0 * h), &(g + k3.1 * h));
        p += (k1.0 + k2.0 * 2.0 + k3.0 * 2.0 + k4.0) * (h / 6.0);
        g += (k1.1 + k2.1 * 2.0 + k3.1 * 2.0 + k4.1) * (h / 6.0);
    }
    (p, g)
}
