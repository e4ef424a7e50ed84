//! The integrator a discretization map on S² (and on (S²)²) induces on the cotangent bundle
//! (Barbero-Liñán, Marrero, Martín de Diego, "From retraction maps to symplectic-momentum
//! numerical integrators", 2024, arXiv:2401.14800), against the groupoid layer's RATTLE flow.

use discretization::sphere_lift::sphere_state;
use discretization::{OneStep, PhaseState, SphereCotangentLiftIntegrator, SphereDiscreteEulerLagrange, SphereThetaMap};
use geom_core::Scalar;
use geom_core::function::PhaseSpaceFunction;
use groupoid::PairGroupoid;
use groupoid::constraints::HolonomicFlow;
use groupoid::models::{GRAVITY, PendulumLd, UnitSphere};
use nalgebra::{SVector, Vector3};

/// Spherical pendulum, `H = ½|p|² + g e3·q` (unit mass and length).
struct Pendulum;
impl PhaseSpaceFunction<3> for Pendulum {
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
        p.norm_squared() * S::from(0.5) + q[2] * S::from(GRAVITY)
    }
}
/// Its Lagrangian `L = ½|v|² - g e3·q`.
struct PendulumL;
impl PhaseSpaceFunction<3> for PendulumL {
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, v: &SVector<S, 3>) -> S {
        v.norm_squared() * S::from(0.5) - q[2] * S::from(GRAVITY)
    }
}

fn energy(s: &PhaseState<3>) -> f64 {
    Pendulum.eval(&s.q, &s.p)
}
fn vertical(s: &PhaseState<3>) -> f64 {
    s.q.cross(&s.p)[2]
}
fn start() -> PhaseState<3> {
    let (q, p) = sphere_state(2.2, 0.0, 0.3, 1.1);
    PhaseState::new(q, p)
}

fn integrator() -> SphereCotangentLiftIntegrator<SphereThetaMap, Pendulum, 1, 3, 2> {
    SphereCotangentLiftIntegrator::new(SphereThetaMap::midpoint(), Pendulum)
}

#[test]
fn spherical_pendulum_conserves_the_vertical_momentum_and_stays_on_t_star_s2() {
    let s0 = start();
    let (l0, e0) = (vertical(&s0), energy(&s0));
    let integ = integrator();
    let mut max_de = [0.0f64; 2];
    for (k, h) in [0.02, 0.01].into_iter().enumerate() {
        let mut s = s0;
        let (mut dl, mut unit, mut ortho) = (0.0f64, 0.0f64, 0.0f64);
        for _ in 0..(100.0 / h) as usize {
            integ.step(&mut s, h).unwrap();
            dl = dl.max((vertical(&s) - l0).abs());
            unit = unit.max((s.q.norm() - 1.0).abs());
            ortho = ortho.max(s.q.dot(&s.p).abs());
            max_de[k] = max_de[k].max((energy(&s) - e0).abs());
        }
        assert!(dl <= 1e-11, "h = {h}: e3 angular momentum drift {dl:e}");
        assert!(unit <= 1e-12 && ortho <= 1e-12, "h = {h}: ||q| - 1| = {unit:e}, |q·p| = {ortho:e}");
        assert!(max_de[k] < 0.1 * e0.abs().max(1.0), "h = {h}: energy error {:e}", max_de[k]);
    }
    let order = (max_de[0] / max_de[1]).log2();
    assert!((order - 2.0).abs() < 0.3, "energy error order {order} ({max_de:?})");
}

#[test]
fn the_s2_map_and_rattle_converge_to_the_same_motion() {
    // RATTLE (groupoid layer) starts from two positions: take the map integrator's first step
    let difference = |h: f64| {
        let integ = integrator();
        let mut s = start();
        let q0 = s.q;
        integ.step(&mut s, h).unwrap();
        let flow = HolonomicFlow::<_, _, _, 4>::new(PairGroupoid::<3>, PendulumLd::new(h).unwrap(), UnitSphere);
        let mut g = (q0, s.q);
        for _ in 1..(2.0 / h).round() as usize {
            integ.step(&mut s, h).unwrap();
            g = flow.step(&g).unwrap().0;
        }
        (s.q - g.1).norm()
    };
    let (d1, d2) = (difference(0.01), difference(0.005));
    assert!(d1 < 1e-2, "|q_map - q_rattle| at t = 2: {d1:e}");
    let ratio = d1 / d2;
    assert!((ratio - 4.0).abs() < 1.0, "both second order: the difference falls by ~4 per halving, got {ratio}");
}

#[test]
fn hamiltonian_and_lagrangian_routes_agree_on_s2() {
    let ham = integrator();
    let lag = SphereDiscreteEulerLagrange::<_, _, 1, 3, 2>::new(SphereThetaMap::midpoint(), PendulumL);
    let (mut a, mut b) = (start(), start());
    for _ in 0..200 {
        ham.step(&mut a, 0.02).unwrap();
        lag.step(&mut b, 0.02).unwrap();
    }
    let d = (a.q - b.q).amax().max((a.p - b.p).amax());
    assert!(d < 1e-11, "{d:e}");
}

/// Double spherical pendulum, unit masses and rods: `x_1 = q_1`, `x_2 = q_1 + q_2`,
/// `L = ½|v_1|² + ½|v_1 + v_2|² - g e3·(x_1 + x_2)`.
struct Double;
impl PhaseSpaceFunction<6> for Double {
    fn eval<S: Scalar>(&self, q: &SVector<S, 6>, v: &SVector<S, 6>) -> S {
        let (v1, v2) = (v.fixed_rows::<3>(0), v.fixed_rows::<3>(3));
        let kinetic = v1.norm_squared() * S::from(0.5) + (v1 + v2).norm_squared() * S::from(0.5);
        kinetic - (q[2] * S::from(2.0) + q[5]) * S::from(GRAVITY)
    }
}

#[test]
fn double_spherical_pendulum_by_the_lagrangian_route() {
    let (q1, w1) = sphere_state(2.5, 0.0, 0.2, 0.8);
    let (q2, w2) = sphere_state(2.0, 1.0, -0.4, 1.5);
    let (mut q, mut v) = (SVector::<f64, 6>::zeros(), SVector::<f64, 6>::zeros());
    q.fixed_rows_mut::<3>(0).copy_from(&q1);
    q.fixed_rows_mut::<3>(3).copy_from(&q2);
    v.fixed_rows_mut::<3>(0).copy_from(&w1);
    v.fixed_rows_mut::<3>(3).copy_from(&w2);
    // p_j = P_j ∂L/∂v_j
    let dl1: Vector3<f64> = w1 * 2.0 + w2;
    let dl2: Vector3<f64> = w1 + w2;
    let mut p = SVector::<f64, 6>::zeros();
    p.fixed_rows_mut::<3>(0).copy_from(&(dl1 - q1 * q1.dot(&dl1)));
    p.fixed_rows_mut::<3>(3).copy_from(&(dl2 - q2 * q2.dot(&dl2)));
    let energy = |q: &SVector<f64, 6>, v: &SVector<f64, 6>| {
        let (v1, v2) = (v.fixed_rows::<3>(0), v.fixed_rows::<3>(3));
        0.5 * v1.norm_squared() + 0.5 * (v1 + v2).norm_squared() + GRAVITY * (2.0 * q[2] + q[5])
    };
    let momentum = |s: &PhaseState<6>| {
        let l1 = s.q.fixed_rows::<3>(0).cross(&s.p.fixed_rows::<3>(0));
        let l2 = s.q.fixed_rows::<3>(3).cross(&s.p.fixed_rows::<3>(3));
        l1[2] + l2[2]
    };
    let flow = SphereDiscreteEulerLagrange::<_, _, 2, 6, 4>::new(SphereThetaMap::midpoint(), Double);
    let mut s = PhaseState::new(q, p);
    let (l0, e0) = (momentum(&s), energy(&q, &v));
    let h = 0.005;
    let (mut dl, mut unit, mut ortho, mut de) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut prev = s;
    for _ in 0..4000 {
        flow.step(&mut s, h).unwrap();
        dl = dl.max((momentum(&s) - l0).abs());
        for j in 0..2 {
            let (qj, pj) = (s.q.fixed_rows::<3>(3 * j), s.p.fixed_rows::<3>(3 * j));
            unit = unit.max((qj.norm() - 1.0).abs());
            ortho = ortho.max(qj.dot(&pj).abs());
        }
        // energy at the midpoint velocity (q_{k+1} - q_k)/h
        let vel = (s.q - prev.q) / h;
        de = de.max((energy(&((s.q + prev.q) * 0.5), &vel) - e0).abs());
        prev = s;
    }
    assert!(dl <= 1e-11, "total vertical angular momentum drift {dl:e}");
    assert!(unit <= 1e-12 && ortho <= 1e-12, "||q_j| - 1| = {unit:e}, |q_j·p_j| = {ortho:e}");
    assert!(de < 0.05 * e0.abs(), "energy error {de:e} of {e0}");
}
