//! AD derivatives in the implicit classical methods: Gauss–Legendre by simplified Newton (the
//! default), and the generalized leapfrog (Störmer–Verlet of a non-separable `H`, whose Newton
//! matrices need the mixed Hessian block alone, `PhaseSpaceDerivatives::hessian_qp`).
//!
//! Models:
//! * `Kepler`: `H = |p|²/2 − 1/|q|` in R², as a model (`AutoDiff`, `AutoDiff::separable`);
//!   Gauss–Legendre conserves its angular momentum `L = q × p` (a quadratic invariant, Hairer,
//!   Lubich, Wanner, *Geometric Numerical Integration*, 2nd ed. 2006, Thm IV.2.1) exactly, so
//!   any drift of `L` is the error the Newton solve leaves;
//! * `PolarKepler`: the same problem in polar coordinates, `H = p_r²/2 + p_φ²/(2r²) − 1/r`, a
//!   non-separable `H` (its mixed block `∂²H/∂r∂p_φ = −2p_φ/r³`) whose exact solution is the
//!   Cartesian orbit read in polar coordinates; `p_φ` is conserved because `H` does not depend
//!   on `φ`.

use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction};
use geom_core::newton::{JacobianUpdate, NewtonOptions};
use geom_core::step::testing::check_symplectic;
use geom_core::{GeomError, Scalar};
use integrators::classical::{Gauss1, Gauss2, Gauss3, StepJacobian, StormerVerlet};
use integrators::{OneStep, PhaseState};
use nalgebra::{SVector, Vector2};

struct Kepler;
impl PhaseSpaceFunction<2> for Kepler {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip()
    }
}

struct PolarKepler;
impl PhaseSpaceFunction<2> for PolarKepler {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        let r = q[0];
        (p[0] * p[0] + p[1] * p[1] / (r * r)) * S::from(0.5) - r.recip()
    }
}

const E: f64 = 0.6;

/// Perihelion of the orbit with semi-major axis 1 and eccentricity `E`.
fn start() -> PhaseState<2> {
    PhaseState::new(Vector2::new(1.0 - E, 0.0), Vector2::new(0.0, ((1.0 + E) / (1.0 - E)).sqrt()))
}

/// The same point in polar coordinates `(r, φ; p_r, p_φ)`.
fn polar_start() -> PhaseState<2> {
    PhaseState::new(Vector2::new(1.0 - E, 0.0), Vector2::new(0.0, (1.0 - E * E).sqrt()))
}

fn angular_momentum(s: &PhaseState<2>) -> f64 {
    s.q[0] * s.p[1] - s.q[1] * s.p[0]
}

/// `max_k |L(x_k) − L(x_0)|` over `steps` steps of `h`.
fn momentum_drift(m: &dyn OneStep<PhaseState<2>>, h: f64, steps: usize) -> f64 {
    let mut s = start();
    let l0 = angular_momentum(&s);
    let mut drift = 0.0f64;
    for _ in 0..steps {
        m.step(&mut s, h).unwrap();
        drift = drift.max((angular_momentum(&s) - l0).abs());
    }
    drift
}

#[test]
fn gauss_defaults_to_simplified_newton_with_polishing() {
    let g = Gauss2::new(AutoDiff(Kepler)).unwrap();
    assert_eq!(*g.newton_options(), NewtonOptions::simplified());
    assert_eq!((g.newton_options().jacobian, g.newton_options().polish), (JacobianUpdate::Frozen, true));
    // Störmer–Verlet keeps full Newton
    assert_eq!(*StormerVerlet::new(AutoDiff(PolarKepler)).newton_options(), NewtonOptions::integrator());
}

/// Simplified Newton follows the full-Newton trajectory (the root is the same, to the
/// tolerances), for the AD model, the separable AD model, and each `s`.
#[test]
fn simplified_newton_follows_full_newton() {
    let full = NewtonOptions::integrator();
    fn compare(a: &dyn OneStep<PhaseState<2>>, b: &dyn OneStep<PhaseState<2>>) -> f64 {
        let (mut x, mut y) = (start(), start());
        for _ in 0..2000 {
            a.step(&mut x, 0.01).unwrap();
            b.step(&mut y, 0.01).unwrap();
        }
        (x.q - y.q).amax().max((x.p - y.p).amax())
    }
    type Method = Box<dyn OneStep<PhaseState<2>>>;
    let pairs: [(Method, Method); 4] = [
        (
            Box::new(Gauss1::new(AutoDiff(Kepler)).unwrap()),
            Box::new(Gauss1::new(AutoDiff(Kepler)).unwrap().with_newton(full)),
        ),
        (
            Box::new(Gauss2::new(AutoDiff(Kepler)).unwrap()),
            Box::new(Gauss2::new(AutoDiff(Kepler)).unwrap().with_newton(full)),
        ),
        (
            Box::new(Gauss2::new(AutoDiff::separable(Kepler)).unwrap()),
            Box::new(Gauss2::new(AutoDiff(Kepler)).unwrap().with_newton(full)),
        ),
        (
            Box::new(Gauss3::new(AutoDiff(Kepler)).unwrap()),
            Box::new(Gauss3::new(AutoDiff(Kepler)).unwrap().with_newton(full)),
        ),
    ];
    for (a, b) in &pairs {
        let d = compare(a.as_ref(), b.as_ref());
        assert!(d < 1e-12, "{}: simplified vs full Newton after 2000 steps: {d:e}", a.name());
    }
}

/// The angular momentum, a quadratic invariant that Gauss conserves exactly, holds to round-off
/// over 20 000 steps of `h = 0.05` (about 160 periods at `e = 0.6`) with simplified Newton and
/// its final correction, no worse than with full Newton (which has no correction). Negative control: the same simplified iteration
/// stopped at a loose residual `1e-9` without the correction lets it drift by orders of
/// magnitude more.
#[test]
fn simplified_newton_keeps_the_angular_momentum_at_round_off() {
    let (h, steps) = (0.05, 20_000);
    let l_scale = angular_momentum(&start()).abs();
    let simplified = momentum_drift(&Gauss2::new(AutoDiff(Kepler)).unwrap(), h, steps);
    let separable = momentum_drift(&Gauss2::new(AutoDiff::separable(Kepler)).unwrap(), h, steps);
    let gauss3 = momentum_drift(&Gauss3::new(AutoDiff(Kepler)).unwrap(), h, steps);
    let full =
        momentum_drift(&Gauss2::new(AutoDiff(Kepler)).unwrap().with_newton(NewtonOptions::integrator()), h, steps);
    for (label, d) in [("simplified", simplified), ("separable", separable), ("Gauss 3", gauss3)] {
        assert!(d < 200.0 * f64::EPSILON * l_scale, "{label}: angular momentum drift {d:e}");
    }
    // full Newton without the correction leaves the tolerance-sized error of each solve
    // (measured: 1.4e-13 against 5e-15)
    assert!(simplified <= full, "simplified {simplified:e} vs full Newton {full:e}");
    let loose = NewtonOptions { residual_tol: 1e-9, step_tol: 1e-9, ..NewtonOptions::simplified() }.with_polish(false);
    let sloppy = momentum_drift(&Gauss2::new(AutoDiff(Kepler)).unwrap().with_newton(loose), h, steps);
    assert!(sloppy > 100.0 * simplified.max(f64::EPSILON), "negative control: {sloppy:e} vs {simplified:e}");
}

/// `hessian_qp` is the mixed block of the full Hessian, bit for bit (the same hyper-dual
/// passes), and zero for a model declared separable.
#[test]
fn mixed_block_alone_equals_the_full_hessian_block() {
    let (q, p) = (Vector2::new(0.7, 0.3), Vector2::new(-0.2, 0.9));
    let ad = AutoDiff(PolarKepler);
    let full = ad.hessian(&q, &p);
    assert_eq!(ad.hessian_qp(&q, &p), full.qp);
    let exact = -2.0 * p[1] / q[0].powi(3);
    assert!((full.qp[(0, 1)] - exact).abs() < 1e-14 * exact.abs(), "{} vs {exact}", full.qp[(0, 1)]);
    assert_eq!((full.qp[(0, 0)], full.qp[(1, 0)], full.qp[(1, 1)]), (0.0, 0.0, 0.0));
    assert_eq!(AutoDiff::separable(Kepler).hessian_qp(&q, &p), nalgebra::Matrix2::zeros());
}

/// The polar orbit at time `t` from the Cartesian one (Gauss s = 3 at `h = 1e-3`, error far below
/// the leapfrog's).
fn polar_reference(t: f64) -> PhaseState<2> {
    let g = Gauss3::new(AutoDiff(Kepler)).unwrap();
    let mut s = start();
    let n = (t / 1e-3).round() as usize;
    for _ in 0..n {
        g.step(&mut s, 1e-3).unwrap();
    }
    let r = s.q.norm();
    let phi = s.q[1].atan2(s.q[0]);
    PhaseState::new(Vector2::new(r, phi), Vector2::new(s.q.dot(&s.p) / r, angular_momentum(&s)))
}

/// The generalized leapfrog on polar Kepler: order 2 against the exact orbit (slope within ±0.3),
/// `p_φ` conserved to the last bit (`H_φ = 0`), symplectic step Jacobian, and a failed step
/// leaves the state untouched.
#[test]
fn generalized_leapfrog_order_invariant_and_failure() {
    let sv = StormerVerlet::new(AutoDiff(PolarKepler));
    assert!(!sv.hamiltonian().is_separable(), "the implicit path");
    let t = 1.0;
    let exact = polar_reference(t);
    let mut errors = Vec::new();
    for n in [50usize, 100, 200, 400] {
        let mut s = polar_start();
        for _ in 0..n {
            sv.step(&mut s, t / n as f64).unwrap();
            assert_eq!(s.p[1], polar_start().p[1], "p_φ is conserved exactly");
        }
        errors.push((s.q - exact.q).amax().max((s.p - exact.p).amax()));
    }
    for w in errors.windows(2) {
        let slope = (w[0] / w[1]).log2();
        assert!((slope - 2.0).abs() < 0.3, "order {slope} from errors {errors:?}");
    }
    // symplectic, by the exact step Jacobian and by finite differences of the step
    let (_, m) = sv.step_jacobian(&polar_start(), 0.05).unwrap();
    assert!(m.symplecticity_defect() < 1e-13, "{}", m.symplecticity_defect());
    assert!(check_symplectic(&sv, &polar_start(), 0.05).unwrap() < 1e-7);
    // the origin r = 0 is singular: the step fails and leaves the state as it was, bit for bit
    let mut bad = PhaseState::new(Vector2::new(0.0, 0.3), Vector2::new(0.1, 0.2));
    let before = bad;
    assert!(matches!(sv.step(&mut bad, 0.05), Err(GeomError::NonFinite { .. })));
    assert_eq!(
        (bad.q.map(f64::to_bits), bad.p.map(f64::to_bits)),
        (before.q.map(f64::to_bits), before.p.map(f64::to_bits))
    );
}
