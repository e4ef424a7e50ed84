//! A user's group written **outside the crates with exactly two impls** —
//! `impl<S: Scalar> LieGroup<S, 3>` and `impl LieGroupFamily<3>` — reaches every layer: the
//! Hamilton–Pontryagin integrator (`integrators::hp`), RKMK (`integrators::rkmk`), the
//! discretization layer's Lie-group cotangent lift (`LieCotangentLiftIntegrator`), and a groupoid
//! DEL flow (`GroupoidIntegrator` over `GroupAsGroupoid`).
//!
//! The group is the rotation group written as a user would (its operations taken from
//! `geom_core::lie::so3`'s formulas at every scalar), as a type of its own: it has none of the
//! closed forms geom-core gives `So3` (chart derivatives, translation jets), so every layer runs
//! on the `LieGroupFamily` defaults (forward AD). On each layer the free rigid body conserves its
//! spatial momentum `g Π` (Noether: the discrete flows are left-invariant and variational or
//! symmetry-preserving), and the trajectory equals the one on geom-core's `So3` to round-off.

use discretization::{LieAutoDiff, LieCotangentLiftIntegrator, LieFunction, LieGroupThetaMap};
use geom_core::function::ScalarFunction;
use geom_core::lie::{Chart, LieGroup, LieGroupFamily, So3};
use geom_core::step::{LieState, OneStep};
use geom_core::{Result, Scalar};
use groupoid::GroupAsGroupoid;
use groupoid::discretization_map::{FibreThetaMap, ReducedLagrangian};
use groupoid::integrator::{GroupoidIntegrator, Induced};
use integrators::hp::{self, KineticPotential, ZeroPotential};
use integrators::rkmk::{GroupState, LieVectorField, rkmk4};
use nalgebra::{Matrix3, SVector, Vector3};

/// The rotation group as a user writes it: rotation matrices, `hat`/`vee` of `so(3)`.
#[derive(Debug, Clone, Copy, Default)]
struct Rotations;

/// Impl 1: the group at every scalar (here by the formulas of `geom_core::lie::so3`).
impl<S: Scalar> LieGroup<S, 3> for Rotations {
    type Element = Matrix3<S>;
    type Matrix = Matrix3<S>;
    fn name(&self) -> String {
        "rotations (a user's group)".into()
    }
    fn identity(&self) -> Matrix3<S> {
        Matrix3::identity()
    }
    fn compose(&self, a: &Matrix3<S>, b: &Matrix3<S>) -> Matrix3<S> {
        a * b
    }
    fn inverse(&self, a: &Matrix3<S>) -> Matrix3<S> {
        a.transpose()
    }
    fn exp(&self, x: &Vector3<S>) -> Matrix3<S> {
        LieGroup::<S, 3>::exp(&So3, x)
    }
    fn log(&self, g: &Matrix3<S>) -> Result<Vector3<S>> {
        LieGroup::<S, 3>::log(&So3, g)
    }
    fn hat(&self, x: &Vector3<S>) -> Matrix3<S> {
        LieGroup::<S, 3>::hat(&So3, x)
    }
    fn vee(&self, m: &Matrix3<S>) -> Vector3<S> {
        LieGroup::<S, 3>::vee(&So3, m)
    }
    fn to_matrix(&self, g: &Matrix3<S>) -> Matrix3<S> {
        *g
    }
    fn adjoint(&self, g: &Matrix3<S>) -> Matrix3<S> {
        *g
    }
    fn ad(&self, x: &Vector3<S>) -> Matrix3<S> {
        LieGroup::<S, 3>::hat(&So3, x)
    }
    fn dcay_inv(&self, x: &Vector3<S>) -> Matrix3<S> {
        LieGroup::<S, 3>::dcay_inv(&So3, x)
    }
    fn cayley(&self, x: &Vector3<S>) -> Result<Matrix3<S>> {
        LieGroup::<S, 3>::cayley(&So3, x)
    }
    fn cayley_inv(&self, g: &Matrix3<S>) -> Result<Vector3<S>> {
        LieGroup::<S, 3>::cayley_inv(&So3, g)
    }
    fn defect(&self, g: &Matrix3<S>) -> f64 {
        LieGroup::<S, 3>::defect(&So3, g)
    }
}

/// Impl 2: the group at every scalar, named once (no chart derivative, no jets: the defaults).
impl LieGroupFamily<3> for Rotations {
    type ElementAt<S: Scalar> = Matrix3<S>;
    fn at<S: Scalar>(&self) -> impl LieGroup<S, 3, Element = Matrix3<S>> {
        *self
    }
    fn lift_at<S: Scalar>(&self, g: &Matrix3<f64>) -> Matrix3<S> {
        g.map(S::from)
    }
    fn map_scalar<A: Scalar, B: Scalar, F: Fn(A) -> B>(&self, g: &Matrix3<A>, f: &F) -> Matrix3<B> {
        g.map(f)
    }
}

const INERTIA: [f64; 3] = [2.0, 1.0, 2.0 / 3.0];
const STEPS: usize = 300;
const H: f64 = 0.05;

fn inertia() -> Matrix3<f64> {
    Matrix3::from_diagonal(&Vector3::from(INERTIA))
}

fn initial() -> LieState<Matrix3<f64>, 3> {
    LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(0.4, 0.9, -0.3))
}

/// `max |g Π − g₀ Π₀|` over the run and the final state, for a `OneStep` on Lie states.
fn run(step: &dyn Fn(&mut LieState<Matrix3<f64>, 3>) -> Result<()>) -> Result<(f64, LieState<Matrix3<f64>, 3>)> {
    let mut s = initial();
    let m0 = s.g * s.mu;
    let mut drift: f64 = 0.0;
    for _ in 0..STEPS {
        step(&mut s)?;
        drift = drift.max((s.g * s.mu - m0).amax());
    }
    Ok((drift, s))
}

fn distance(a: &LieState<Matrix3<f64>, 3>, b: &LieState<Matrix3<f64>, 3>) -> f64 {
    (a.g - b.g).amax().max((a.mu - b.mu).amax())
}

#[test]
fn hp_runs_on_the_users_group_and_conserves_the_spatial_momentum() -> Result<()> {
    let body = KineticPotential::new(inertia(), ZeroPotential)?;
    for chart in [Chart::Cayley, Chart::Exp] {
        let user = hp::stormer_verlet(Rotations, chart, body)?;
        let builtin = hp::stormer_verlet(So3, chart, body)?;
        let (drift, s) = run(&|s| user.step(s, H))?;
        let (_, r) = run(&|s| builtin.step(s, H))?;
        println!("HP {chart:?}: spatial momentum drift {drift:.2e}, vs So3 {:.2e}", distance(&s, &r));
        assert!(drift < 1e-10, "HP {chart:?}: spatial momentum drift {drift:e}");
        assert!(distance(&s, &r) < 1e-12, "HP {chart:?}: vs So3 {:e}", distance(&s, &r));
        assert!(LieGroup::<f64, 3>::defect(&Rotations, &s.g) < 1e-12);
    }
    Ok(())
}

/// The reconstruction `Ṙ = R I⁻¹ Rᵀ m` of the free rigid body with spatial momentum `m`.
struct Reconstruction(Vector3<f64>);
impl<G: LieGroup<f64, 3, Element = Matrix3<f64>>> LieVectorField<G, 3> for Reconstruction {
    fn eval(&self, _: &G, _: f64, r: &Matrix3<f64>) -> Result<Vector3<f64>> {
        Ok((r.transpose() * self.0).component_div(&Vector3::from(INERTIA)))
    }
}

#[test]
fn rkmk_runs_on_the_users_group_and_keeps_the_casimir_and_the_energy() -> Result<()> {
    let s0 = initial();
    let m = s0.g * s0.mu;
    let energy = |r: &Matrix3<f64>| {
        let pi = r.transpose() * m;
        0.5 * pi.component_div(&Vector3::from(INERTIA)).dot(&pi)
    };
    let user = rkmk4(Rotations, Reconstruction(m))?;
    let builtin = rkmk4(So3, Reconstruction(m))?;
    let (mut a, mut b) = (GroupState::new(0.0, s0.g), GroupState::new(0.0, s0.g));
    let mut energy_drift: f64 = 0.0;
    for _ in 0..STEPS {
        a = user.try_step(&a, H)?;
        b = builtin.try_step(&b, H)?;
        energy_drift = energy_drift.max((energy(&a.g) - energy(&s0.g)).abs());
    }
    // |Rᵀ m| = |m| holds as long as R stays a rotation; the energy to the method's order
    let casimir = ((a.g.transpose() * m).norm() - m.norm()).abs();
    println!("RKMK4: Casimir drift {casimir:.2e}, energy drift {energy_drift:.2e}, vs So3 {:.2e}", (a.g - b.g).amax());
    assert!(casimir < 1e-13, "RKMK4: Casimir drift {casimir:e}");
    assert!(energy_drift < 1e-6, "RKMK4: energy drift {energy_drift:e}");
    assert!((a.g - b.g).amax() < 1e-13, "RKMK4: vs So3 {:e}", (a.g - b.g).amax());
    assert!(LieGroup::<f64, 3>::defect(&Rotations, &a.g) < 1e-12);
    Ok(())
}

/// `H(g, Π) = ½ Πᵀ I⁻¹ Π`, a model written once over the scalar for any group.
#[derive(Debug)]
struct FreeBody;
impl<S: Scalar, G: LieGroup<S, 3>> LieFunction<S, G, 3> for FreeBody {
    fn eval(&self, _: &G, _: &G::Element, mu: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |a, i| a + mu[i] * mu[i] * S::from(0.5 / INERTIA[i]))
    }
}

#[test]
fn the_cotangent_lift_runs_on_the_users_group_and_conserves_the_spatial_momentum() -> Result<()> {
    for chart in [Chart::Cayley, Chart::Exp] {
        let user = LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(Rotations, chart), LieAutoDiff(FreeBody));
        let builtin = LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(So3, chart), LieAutoDiff(FreeBody));
        let (drift, s) = run(&|s| user.step(s, H))?;
        let (_, r) = run(&|s| builtin.step(s, H))?;
        println!("cotangent lift {chart:?}: spatial momentum drift {drift:.2e}, vs So3 {:.2e}", distance(&s, &r));
        assert!(drift < 1e-10, "cotangent lift {chart:?}: spatial momentum drift {drift:e}");
        assert!(distance(&s, &r) < 1e-12, "cotangent lift {chart:?}: vs So3 {:e}", distance(&s, &r));
    }
    Ok(())
}

/// `ℓ(ξ) = ½ ξᵀ I ξ`.
struct RigidBody;
impl ScalarFunction<3> for RigidBody {
    fn eval<S: Scalar>(&self, xi: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |a, i| a + xi[i] * xi[i] * S::from(INERTIA[i])) * S::from(0.5)
    }
}

#[test]
fn the_groupoid_del_flow_runs_on_the_users_group_and_conserves_the_spatial_momentum() -> Result<()> {
    for chart in [Chart::Cayley, Chart::Exp] {
        let family = || Induced::new(FibreThetaMap::new(0.0).unwrap(), ReducedLagrangian(RigidBody));
        let user = GroupoidIntegrator::new(GroupAsGroupoid::new(Rotations, chart), family());
        let builtin = GroupoidIntegrator::new(GroupAsGroupoid::new(So3, chart), family());
        let (drift, s) = run(&|s| user.step(s, H))?;
        let (_, r) = run(&|s| builtin.step(s, H))?;
        println!("groupoid DEL {chart:?}: spatial momentum drift {drift:.2e}, vs So3 {:.2e}", distance(&s, &r));
        assert!(drift < 1e-10, "groupoid DEL {chart:?}: spatial momentum drift {drift:e}");
        assert!(distance(&s, &r) < 1e-12, "groupoid DEL {chart:?}: vs So3 {:e}", distance(&s, &r));
    }
    Ok(())
}
