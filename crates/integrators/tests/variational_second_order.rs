//! Second-order variational equations against differences of whole trajectories.

use crate::variational_equations::FailingDrift;
use geom_core::GeomError;
use geom_core::Scalar;
use geom_core::function::{AutoDiff, PhaseSpaceFunction};
use integrators::classical::{StepJacobian, StormerVerlet};
use integrators::variational_equations::{FiniteDifference, SecondOrderVariation, second_derivative};
use integrators::{OneStep, PhaseState};
use nalgebra::{SVector, Vector2};

/// Hénon & Heiles (1964): `H = |p|²/2 + |q|²/2 + q₁² q₂ − q₂³/3`.
struct HenonHeiles;
impl PhaseSpaceFunction<2> for HenonHeiles {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        let (x, y) = (q[0], q[1]);
        (p.norm_squared() + q.norm_squared()) * S::from(0.5) + x * x * y - y * y * y * S::from(1.0 / 3.0)
    }
}

const H: f64 = 0.05;
const STEPS: usize = 200;

fn x0() -> PhaseState<2> {
    PhaseState::new(Vector2::new(0.1, -0.2), Vector2::new(0.35, 0.1))
}
fn dir_a() -> PhaseState<2> {
    PhaseState::new(Vector2::new(1.0, 0.3), Vector2::new(0.2, -0.5))
}
fn dir_b() -> PhaseState<2> {
    PhaseState::new(Vector2::new(-0.4, 0.8), Vector2::new(0.6, 0.1))
}

fn norm(x: &PhaseState<2>) -> f64 {
    (x.q.norm_squared() + x.p.norm_squared()).sqrt()
}
fn sub(x: &PhaseState<2>, y: &PhaseState<2>) -> PhaseState<2> {
    PhaseState::new(x.q - y.q, x.p - y.p)
}

/// `Φ_h^n(x₀ + s a + r b)`.
fn end<M: OneStep<PhaseState<2>>>(m: &M, s: f64, r: f64) -> PhaseState<2> {
    let (a, b) = (dir_a(), dir_b());
    let mut x = PhaseState::new(x0().q + a.q * s + b.q * r, x0().p + a.p * s + b.p * r);
    m.step_n(&mut x, H, STEPS).unwrap();
    x
}

/// `∂²x_n/∂s∂r` by the four-point central difference of whole trajectories with Richardson
/// extrapolation over `σ` and `σ/2` (error `O(σ⁴)` and `ε |x| / σ²`).
fn mixed_by_trajectories<M: OneStep<PhaseState<2>>>(m: &M, sigma: f64) -> PhaseState<2> {
    let d = |s: f64| {
        let (pp, pm, mp, mm) = (end(m, s, s), end(m, s, -s), end(m, -s, s), end(m, -s, -s));
        let f = |g: &dyn Fn(&PhaseState<2>) -> Vector2<f64>| (g(&pp) - g(&pm) - g(&mp) + g(&mm)) / (4.0 * s * s);
        PhaseState::new(f(&|x| x.q), f(&|x| x.p))
    };
    let (coarse, fine) = (d(sigma), d(0.5 * sigma));
    PhaseState::new((fine.q * 4.0 - coarse.q) / 3.0, (fine.p * 4.0 - coarse.p) / 3.0)
}

fn sv() -> StormerVerlet<geom_core::function::SeparableAutoDiff<HenonHeiles, 2>> {
    StormerVerlet::new(AutoDiff::separable(HenonHeiles))
}

#[test]
fn second_order_variation_is_the_second_derivative_of_the_trajectory() {
    let sv = sv();
    let mut v = SecondOrderVariation::new(x0(), dir_a(), dir_b(), H).unwrap();
    v.advance(&sv, STEPS).unwrap();
    let reference = mixed_by_trajectories(&sv, 2e-3);
    let c = *v.second();
    let err = norm(&sub(&c, &reference)) / norm(&reference);
    // the same state as the plain steps, bit for bit
    let plain = end(&sv, 0.0, 0.0);
    assert_eq!(v.state(), &plain);
    // negative control: the D²Φ term of the first step only, carried by the tangent maps of the
    // later steps (the curvature of steps 2..n dropped), is far from the reference
    let mut once = SecondOrderVariation::new(x0(), dir_a(), dir_b(), H).unwrap();
    once.advance(&sv, 1).unwrap();
    let first_only = {
        let mut w = SecondOrderVariation::new(*once.state(), *once.second(), *once.second(), H).unwrap();
        w.advance(&sv, STEPS - 1).unwrap();
        *w.first().0
    };
    let control = norm(&sub(&first_only, &reference)) / norm(&reference);
    println!(
        "Hénon–Heiles SV, {STEPS} steps of h = {H}: |c| = {:.4e}, relative error {err:.2e} (control {control:.2e})",
        norm(&reference)
    );
    assert!(norm(&reference) > 0.1, "the curvature is not negligible: {}", norm(&reference));
    assert!(err < 1e-6, "{err:.3e}");
    assert!(control > 1e-2, "{control:.3e}");
}

#[test]
fn first_order_vectors_are_the_tangent_map() {
    let sv = sv();
    let mut v = SecondOrderVariation::new(x0(), dir_a(), dir_b(), H).unwrap();
    v.advance(&sv, STEPS).unwrap();
    let s = 1e-6;
    let by_difference = {
        let (plus, minus) = (end(&sv, s, 0.0), end(&sv, -s, 0.0));
        PhaseState::new((plus.q - minus.q) / (2.0 * s), (plus.p - minus.p) / (2.0 * s))
    };
    let a = *v.first().0;
    let err = norm(&sub(&a, &by_difference)) / norm(&by_difference);
    assert!(err < 1e-7, "{err:.3e}");
}

#[test]
fn second_derivative_is_symmetric_and_bilinear() {
    let sv = sv();
    let x = x0();
    let d = |a: &PhaseState<2>, b: &PhaseState<2>| second_derivative(&sv, &x, H, a, b, 6e-6).unwrap();
    let (a, b) = (dir_a(), dir_b());
    let (ab, ba) = (d(&a, &b), d(&b, &a));
    let scale = norm(&ab);
    assert!(scale > 1e-3, "{scale}");
    assert!(norm(&sub(&ab, &ba)) <= 1e-9 * scale.max(1.0), "{:.2e}", norm(&sub(&ab, &ba)));
    // D²[2a, b] = 2 D²[a, b]
    let two_a = PhaseState::new(a.q * 2.0, a.p * 2.0);
    let twice = d(&two_a, &b);
    assert!(norm(&sub(&twice, &PhaseState::new(ab.q * 2.0, ab.p * 2.0))) <= 1e-9);
    // a = 0: zero exactly
    let zero = PhaseState::new(Vector2::zeros(), Vector2::zeros());
    assert_eq!(d(&zero, &b), zero);
}

#[test]
fn any_one_step_method_through_finite_differences() {
    // the same method seen only as a OneStep: its Jacobian by differences, a larger increment
    let fd = FiniteDifference::new(sv());
    let mut v = SecondOrderVariation::new(x0(), dir_a(), dir_b(), H).unwrap().with_relative_step(3e-4).unwrap();
    v.advance(&fd, STEPS).unwrap();
    let reference = mixed_by_trajectories(&sv(), 2e-3);
    let err = norm(&sub(v.second(), &reference)) / norm(&reference);
    println!("through FiniteDifference: relative error {err:.2e}");
    assert!(err < 1e-4, "{err:.3e}");
}

#[test]
fn bad_input_is_refused_and_a_failed_step_leaves_everything_untouched() {
    let x = PhaseState::new(Vector2::new(0.0, 0.0), Vector2::new(1.0, 0.0));
    let (a, b) = (dir_a(), dir_b());
    assert!(matches!(SecondOrderVariation::new(x, a, b, 0.0), Err(GeomError::InvalidStep { .. })));
    let nan = PhaseState::new(Vector2::new(f64::NAN, 0.0), Vector2::zeros());
    assert!(matches!(SecondOrderVariation::new(x, nan, b, 0.1), Err(GeomError::NonFinite { .. })));
    let v = SecondOrderVariation::new(x, a, b, 0.1).unwrap();
    for r in [0.0, 1.0, -1e-3, f64::NAN] {
        assert!(matches!(v.with_relative_step(r), Err(GeomError::InvalidParameter { .. })), "{r}");
    }
    let fd = FiniteDifference::new(FailingDrift);
    assert!(matches!(second_derivative(&fd, &x, 0.1, &a, &b, 0.0), Err(GeomError::InvalidParameter { .. })));
    assert!(matches!(second_derivative(&fd, &x, f64::INFINITY, &a, &b, 1e-4), Err(GeomError::InvalidStep { .. })));
    // the drift is linear: its second derivative is zero, up to the documented error of the
    // difference of finite-difference Jacobians, ε^{2/3} |a| |b| / r ≈ 4e-8 with r = 1e-3
    let mut v = v.with_relative_step(1e-3).unwrap();
    v.advance(&fd, 5).unwrap();
    assert!(norm(v.second()) < 1e-7, "{:?}", v.second());
    let (_, m) = fd.step_jacobian(&x, 0.1).unwrap();
    assert!((m.qp[(0, 0)] - 0.1).abs() < 1e-9);
    let before = v;
    assert!(v.advance(&fd, 20).is_err());
    assert_eq!(v, before);
}
