//! Groupoid flows as integrators like the others: the discrete Euler–Lagrange flow of a family
//! `h ↦ L_d^h` (`groupoid::integrator`) is a `OneStep` on `(q, p)`, `(g, μ)` and `(x, μ)`, keeps
//! the integrator contract, equals the cotangent lift of the same discretization map on `R^N`
//! and the discrete Euler–Poincaré step on SO(3), and a user's flow (its Lagrangian written here,
//! outside the crates) goes through `Driver`, `Composition` and a checkpoint with a bitwise
//! resume.

use discretization::composition::triple_jump;
use discretization::{Composition, CotangentLiftIntegrator, LieGroupDiscreteEulerLagrange, ThetaMap};
use geom_core::function::{AutoDiff, PhaseSpaceFunction, ScalarFunction, StepLagrangian};
use geom_core::lie::{Chart, LieGroup, So3};
use geom_core::step::testing::{Contract, check_integrator, check_symplectic};
use geom_core::step::{FlatState, LieState, OneStep, PhaseState};
use geom_core::{GeomError, Scalar};
use groupoid::discretization_map::{FibreThetaMap, ReducedLagrangian, TangentLagrangian};
use groupoid::integrator::{CotangentPoint, GroupoidIntegrator, Induced, Stepped};
use groupoid::{GroupAsGroupoid, PairGroupoid};
use integrators::driver::{Driver, FnObserver, Observer, RunState};
use nalgebra::{SVector, Vector2, Vector3};

/// Hénon–Heiles, `H = ½|p|² + V(q)`, `V = ½(x² + y²) + x²y − y³/3`, and its Lagrangian.
struct HenonHeiles;
impl PhaseSpaceFunction<2> for HenonHeiles {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) + potential(q)
    }
}
fn potential<S: Scalar>(q: &SVector<S, 2>) -> S {
    let (x, y) = (q[0], q[1]);
    (x * x + y * y) * S::from(0.5) + x * x * y - y * y * y / S::from(3.0)
}
struct HenonHeilesL;
impl PhaseSpaceFunction<2> for HenonHeilesL {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, v: &SVector<S, 2>) -> S {
        v.norm_squared() * S::from(0.5) - potential(q)
    }
}
/// A user's discrete Lagrangian for every step: the trapezoidal
/// `L_d = h (|q₁ − q₀|²/2h² − (V(q₀) + V(q₁))/2)` (symmetric, order 2; its flow is
/// Störmer–Verlet).
struct Trapezoidal;
impl StepLagrangian<2> for Trapezoidal {
    fn eval<S: Scalar>(&self, q0: &SVector<S, 2>, q1: &SVector<S, 2>, h: S) -> S {
        let v = (q1 - q0) / h;
        (v.norm_squared() * S::from(0.5) - (potential(q0) + potential(q1)) * S::from(0.5)) * h
    }
}
fn x0() -> PhaseState<2> {
    PhaseState::new(Vector2::new(0.1, -0.15), Vector2::new(0.2, 0.15))
}

const INERTIA: [f64; 3] = [2.0, 1.0, 2.0 / 3.0];
/// `ℓ(ξ) = ½ ξᵀ I ξ`.
struct RigidBody;
impl ScalarFunction<3> for RigidBody {
    fn eval<S: Scalar>(&self, xi: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |a, i| a + xi[i] * xi[i] * S::from(INERTIA[i])) * S::from(0.5)
    }
}

#[test]
fn the_pair_groupoid_flow_is_the_cotangent_lift_of_the_same_map_and_keeps_the_contract() {
    let flow = GroupoidIntegrator::new(
        PairGroupoid::<2>,
        Induced::new(FibreThetaMap::midpoint(), TangentLagrangian(HenonHeilesL)),
    )
    .with_properties(2, true);
    let lift = CotangentLiftIntegrator::new(ThetaMap::midpoint(), AutoDiff(HenonHeiles));
    let (mut a, mut b) = (x0(), x0());
    for k in 0..200 {
        let h = if k % 2 == 0 { 0.1 } else { 0.05 }; // the step changes from step to step
        flow.step(&mut a, h).unwrap();
        lift.step(&mut b, h).unwrap();
    }
    let d = (a.q - b.q).amax().max((a.p - b.p).amax());
    assert!(d < 1e-12, "groupoid midpoint flow vs cotangent lift of the midpoint map: {d:e}");
    let report = check_integrator(&flow, &x0(), &Contract::default()).unwrap();
    assert!((report.measured_order - 2.0).abs() < 0.1, "{report:?}");
    assert!(check_symplectic(&flow, &x0(), 0.1).unwrap() < 1e-8);
    // the same flow on the state (x, μ) of any groupoid
    let point = CotangentPoint::new(x0().q, x0().p);
    let mut c = point;
    flow.step_n(&mut c, 0.1, 10).unwrap();
    let mut e = x0();
    flow.step_n(&mut e, 0.1, 10).unwrap();
    assert_eq!((c.x, c.mu), (e.q, e.p));
    check_integrator(&flow, &point, &Contract::default()).unwrap();
}

#[test]
fn the_lie_group_flow_is_the_discrete_euler_poincare_step_on_lie_states() {
    let gd = GroupAsGroupoid::new(So3, Chart::Cayley);
    let flow =
        GroupoidIntegrator::new(gd, Induced::new(FibreThetaMap::new(0.0).unwrap(), ReducedLagrangian(RigidBody)));
    let dep = LieGroupDiscreteEulerLagrange::new(So3, Chart::Cayley, RigidBody);
    let s0 = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(0.4, 0.9, -0.3));
    let (mut a, mut b) = (s0, s0);
    for _ in 0..100 {
        flow.step(&mut a, 0.1).unwrap();
        dep.step(&mut b, 0.1).unwrap();
    }
    let d = (a.g - b.g).amax().max((a.mu - b.mu).amax());
    assert!(d < 1e-12, "groupoid flow on SO(3) vs discrete Euler–Poincaré: {d:e}");
    // the spatial momentum g μ is conserved
    let m0 = s0.g * s0.mu;
    assert!((a.g * a.mu - m0).amax() < 1e-13);
    let report = check_integrator(&flow.with_properties(2, true), &s0, &Contract::default()).unwrap();
    assert!((report.measured_order - 2.0).abs() < 0.1, "{report:?}");
}

#[test]
fn a_users_groupoid_flow_runs_through_driver_composition_and_a_bitwise_resume() {
    let flow = GroupoidIntegrator::new(PairGroupoid::<2>, Stepped(Trapezoidal)).with_properties(2, true);
    check_integrator(&flow, &x0(), &Contract::default()).unwrap();
    assert!(check_symplectic(&flow, &x0(), 0.1).unwrap() < 1e-8);

    // Composition: the triple jump raises the order to 4
    let order4 = Composition::new(&flow, triple_jump(2)).unwrap();
    let report = check_integrator(&order4, &x0(), &Contract::default()).unwrap();
    assert!((report.measured_order - 4.0).abs() < 0.3, "{report:?}");

    // Driver with an energy observer, and a run saved, serialised and resumed bit for bit
    let energy = FnObserver::new("energy", |s: &PhaseState<2>| HenonHeiles.eval(&s.q, &s.p));
    let observers = [&energy as &dyn Observer<_>];
    let driver = Driver::new(0.05).unwrap().sample_every(7).unwrap().store_states(true);
    let whole = driver.run(&order4, x0(), 400, &observers).unwrap();
    let drift = whole.record.max_deviation_named("energy").unwrap();
    assert!(drift < 1e-6, "energy error {drift:e}");
    let mut run = driver.start(x0(), &observers);
    run.advance(&order4, 123, &observers, None).unwrap();
    let text = serde_json::to_string(&run.checkpoint()).unwrap();
    let mut resumed = RunState::<PhaseState<2>>::restore(&serde_json::from_str(&text).unwrap()).unwrap();
    resumed.advance(&order4, 400, &observers, None).unwrap();
    let resumed = resumed.finish(&observers);
    let words = |s: &PhaseState<2>| {
        let mut w = Vec::new();
        s.write_words(&mut w);
        w.iter().map(|v| v.to_bits()).collect::<Vec<u64>>()
    };
    assert_eq!(words(&resumed.final_state), words(&whole.final_state));
    assert_eq!(resumed.states.len(), whole.states.len());
    assert!(resumed.states.iter().zip(&whole.states).all(|(a, b)| words(a) == words(b)));
    let (ra, wa) = (resumed.record.series_named("energy").unwrap(), whole.record.series_named("energy").unwrap());
    assert!(ra.iter().zip(wa).all(|(a, b)| a.to_bits() == b.to_bits()) && ra.len() == wa.len());

    // bad input: an invalid step and a non-finite state are errors that leave the state as it was
    let mut s = x0();
    assert!(matches!(flow.step(&mut s, f64::NAN), Err(GeomError::InvalidStep { .. })));
    let mut bad = PhaseState::new(Vector2::new(f64::NAN, 0.0), Vector2::zeros());
    assert!(matches!(flow.step(&mut bad, 0.1), Err(GeomError::NonFinite { .. })));
    assert_eq!(words(&s), words(&x0()));
}

#[test]
fn small_steps_converge_without_a_workbench_patch() {
    // the residual is a momentum difference Δq/h: at h = 1e-5 its round-off floor is far above
    // 1e-14, and the library's Newton options account for it
    let flow = GroupoidIntegrator::new(PairGroupoid::<2>, Stepped(Trapezoidal)).with_properties(2, true);
    let mut s = PhaseState::new(Vector2::new(300.0, -150.0), Vector2::new(0.2, 0.15));
    flow.step_n(&mut s, 1e-5, 50).unwrap();
    assert!(s.q.iter().chain(s.p.iter()).all(|v| v.is_finite()));
}
