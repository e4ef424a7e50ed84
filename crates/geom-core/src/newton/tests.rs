//! Tests of the solvers on fixed and dynamic sizes.

use super::iteration::Monitor;
use super::*;
use crate::{GeomError, Result, Scalar};
use nalgebra::{DMatrix, DVector, SMatrix, SVector};

#[test]
fn a_residual_stalled_at_its_rounding_floor_is_converged() {
    // F(x) = 300 x - 100: at the double nearest 1/3, F is ±1.4e-14 by rounding alone, above
    // the integrator tolerance 1e-14, and every further step is an ulp
    let f = |x: &SVector<f64, 1>| Ok((SVector::from([300.0 * x[0] - 100.0]), SMatrix::<f64, 1, 1>::new(300.0)));
    let (x, report) = newton(f, &SVector::from([0.3]), &NewtonOptions::integrator()).unwrap();
    assert!((x[0] - 1.0 / 3.0).abs() <= 2.0 * f64::EPSILON, "{report:?}");
    // a residual far above its tolerance is not accepted on a tiny step: a Jacobian 1e20 too
    // large makes every step tiny, and the solve must fail rather than stop
    let stale = |x: &SVector<f64, 1>| Ok((SVector::from([x[0] - 1.0]), SMatrix::<f64, 1, 1>::new(1e20)));
    assert!(matches!(
        newton(stale, &SVector::from([0.0]), &NewtonOptions::integrator()),
        Err(GeomError::NotConverged { .. })
    ));
}
use nalgebra::{Matrix1, Matrix2, Vector1, Vector2};

#[test]
fn the_report_names_the_test_that_stopped_the_solve() {
    let f = |x: &SVector<f64, 2>| Ok(circle_hyperbola(x));
    // the root itself: the residual test at x_0, no step
    let (_, at_root) = newton(f, &circle_hyperbola_root(), &NewtonOptions::default()).unwrap();
    assert_eq!((at_root.iterations, at_root.criterion), (0, StopCriterion::Residual));
    // a residual tolerance that cannot be met: the contraction-checked step test
    let opts = NewtonOptions { residual_tol: 1e-300, ..NewtonOptions::default() };
    let (x, by_step) = newton(f, &Vector2::new(2.0, 0.5), &opts).unwrap();
    assert_eq!(by_step.criterion, StopCriterion::Step, "{by_step:?}");
    assert!((x - circle_hyperbola_root()).amax() < 1e-14);
    // a residual whose rounding noise (±5e-14 here, alternating) stays above its tolerance
    // 1e-14: the round-off floor
    let calls = core::cell::Cell::new(0u32);
    let noisy = |x: &SVector<f64, 1>| {
        calls.set(calls.get() + 1);
        let noise = if calls.get().is_multiple_of(2) { 5e-14 } else { -5e-14 };
        Ok((SVector::from([x[0] - 1.0 + noise]), SMatrix::<f64, 1, 1>::new(1.0)))
    };
    let (x, floor) = newton(noisy, &SVector::from([3.0]), &NewtonOptions::integrator()).unwrap();
    assert_eq!(floor.criterion, StopCriterion::RoundoffFloor, "{floor:?}");
    assert!((x[0] - 1.0).abs() < 1e-12);
}

/// `F(x, y) = (x² + y² - 4, x y - 1)`.
fn circle_hyperbola(x: &Vector2<f64>) -> (Vector2<f64>, Matrix2<f64>) {
    let f = Vector2::new(x[0] * x[0] + x[1] * x[1] - 4.0, x[0] * x[1] - 1.0);
    let j = Matrix2::new(2.0 * x[0], 2.0 * x[1], x[1], x[0]);
    (f, j)
}

/// The root near `(2, 0.5)`: `x² = 2 + √3`, `y = 1/x`.
fn circle_hyperbola_root() -> Vector2<f64> {
    let x = (2.0 + 3.0f64.sqrt()).sqrt();
    Vector2::new(x, 1.0 / x)
}

/// The same system, generic over the scalar, for AD.
struct CircleHyperbola;
impl Residual<2> for CircleHyperbola {
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, 2>) -> Result<SVector<S, 2>> {
        Ok(SVector::from([x[0] * x[0] + x[1] * x[1] - S::from(4.0), x[0] * x[1] - S::from(1.0)]))
    }
}

fn to_dyn(
    f: impl Fn(&Vector2<f64>) -> (Vector2<f64>, Matrix2<f64>),
) -> impl FnMut(&DVector<f64>) -> Result<(DVector<f64>, DMatrix<f64>)> {
    move |x: &DVector<f64>| {
        let (fx, j) = f(&Vector2::new(x[0], x[1]));
        Ok((DVector::from_column_slice(fx.as_slice()), DMatrix::from_column_slice(2, 2, j.as_slice())))
    }
}

#[test]
fn quadratic_convergence_on_2x2_system() {
    let root = circle_hyperbola_root();
    let mut iterates = Vec::new();
    let (x, report) = newton(
        |x| {
            iterates.push(*x);
            Ok(circle_hyperbola(x))
        },
        &Vector2::new(2.0, 0.5),
        &NewtonOptions::default(),
    )
    .unwrap();
    assert!((x - root).amax() < 1e-15, "{x} vs {root}");
    assert!(report.iterations <= 6, "{report:?}");
    // converged by the residual test, or by the step test one step after a residual ~1e-12
    assert!(report.residual <= 1e-10, "{report:?}");
    assert_eq!(report.jacobian_updates, report.iterations);
    // quadratic: e_{k+1} <= C e_k^2 while above round-off
    let errors: Vec<f64> = iterates.iter().map(|xk| (xk - root).amax()).collect();
    let mut checked = 0;
    for w in errors.windows(2) {
        if w[0] > 1e-7 {
            assert!(w[1] <= 2.0 * w[0] * w[0], "not quadratic: {errors:?}");
            checked += 1;
        }
    }
    assert!(checked >= 2, "{errors:?}");
}

#[test]
fn scalar_root() {
    let f = |x: &Vector1<f64>| Ok((Vector1::new(x[0] * x[0] - 2.0), Matrix1::new(2.0 * x[0])));
    let (x, report) = newton(f, &Vector1::new(1.0), &NewtonOptions::default()).unwrap();
    assert!((x[0] - 2.0f64.sqrt()).abs() <= 2.0 * f64::EPSILON);
    assert!(report.iterations <= 6);
    // cos x = x through AD
    struct Dottie;
    impl Residual<1> for Dottie {
        #[inline]
        fn eval<S: Scalar>(&self, x: &SVector<S, 1>) -> Result<SVector<S, 1>> {
            Ok(SVector::from([x[0].cos() - x[0]]))
        }
    }
    let (x, _) = newton_ad(&Dottie, &Vector1::new(1.0), &NewtonOptions::default()).unwrap();
    assert!((x[0] - 0.739_085_133_215_160_6).abs() < 1e-15);
}

#[test]
fn warm_start_converges_in_zero_or_one_iteration() {
    let root = circle_hyperbola_root();
    let f = |x: &Vector2<f64>| Ok(circle_hyperbola(x));
    let (x, report) = newton(f, &root, &NewtonOptions::default()).unwrap();
    assert_eq!(report.iterations, 0);
    assert_eq!(report.jacobian_updates, 0);
    assert_eq!(report.step, 0.0);
    assert_eq!(x, root);
    let near = root + Vector2::new(1e-9, -2e-9);
    let (x, report) = newton(f, &near, &NewtonOptions::default()).unwrap();
    assert_eq!(report.iterations, 1, "{report:?}");
    assert!((x - root).amax() < 1e-15);
}

#[test]
fn not_converged_reports_iterations_residual_and_step() {
    let f = |x: &Vector1<f64>| Ok((Vector1::new(x[0] * x[0] - 2.0), Matrix1::new(2.0 * x[0])));
    for max_iterations in [1, 2, 3] {
        let opts = NewtonOptions::new(1e-12, 1e-12, max_iterations).unwrap();
        // hand-run Newton from 10
        let mut xs = vec![10.0f64];
        for _ in 0..max_iterations {
            let x = *xs.last().unwrap();
            xs.push(x - (x * x - 2.0) / (2.0 * x));
        }
        let last = xs[max_iterations];
        match newton(f, &Vector1::new(10.0), &opts) {
            Err(GeomError::NotConverged { iterations, residual, step }) => {
                assert_eq!(iterations, max_iterations);
                assert!((residual - (last * last - 2.0).abs()).abs() < 1e-12);
                assert!((step - (last - xs[max_iterations - 1]).abs()).abs() < 1e-12);
            }
            other => panic!("expected NotConverged, got {other:?}"),
        }
    }
    // and with enough iterations it converges
    assert!(newton(f, &Vector1::new(10.0), &NewtonOptions::default()).is_ok());
}

#[test]
fn tiny_step_with_large_residual_is_not_convergence() {
    // F(x) = x - 1 with a Jacobian that is wrong by 1e15: every step is ~1e-15 (a naive
    // `|dx| <= step_tol (1 + |x|)` test would stop at x ≈ 0 with F ≈ -1), theta ≈ 1.
    let f = |x: &Vector1<f64>| Ok((Vector1::new(x[0] - 1.0), Matrix1::new(1e15)));
    match newton(f, &Vector1::new(0.0), &NewtonOptions::default()) {
        Err(GeomError::NotConverged { iterations, residual, step }) => {
            assert_eq!(iterations, 50);
            assert!(residual > 0.99);
            assert!(step < 1e-14);
        }
        other => panic!("expected NotConverged, got {other:?}"),
    }
}

#[test]
fn badly_scaled_problem_converges_by_the_step_test() {
    // F = 1e20 (x² - 2): the residual at the root is ~1e20 eps, far above residual_tol.
    let f = |x: &Vector1<f64>| Ok((Vector1::new(1e20 * (x[0] * x[0] - 2.0)), Matrix1::new(2e20 * x[0])));
    let (x, report) = newton(f, &Vector1::new(1.0), &NewtonOptions::default()).unwrap();
    assert!((x[0] - 2.0f64.sqrt()).abs() <= 2.0 * f64::EPSILON, "{x}");
    assert!(report.residual > 1e-12, "{report:?}");
    assert!(report.iterations <= 8, "{report:?}");
}

#[test]
fn singular_jacobian() {
    // F(x) = x² + 1 at x = 0: J = 0.
    let f = |x: &Vector1<f64>| Ok((Vector1::new(x[0] * x[0] + 1.0), Matrix1::new(2.0 * x[0])));
    assert_eq!(
        newton(f, &Vector1::new(0.0), &NewtonOptions::default()).unwrap_err(),
        GeomError::SingularMatrix { what: "Newton Jacobian", iteration: 0 }
    );
    // a singular Jacobian at the second iterate carries iteration 1
    let mut calls = 0;
    let g = |x: &Vector1<f64>| {
        calls += 1;
        let j = if calls == 2 { 0.0 } else { 2.0 * x[0] };
        Ok((Vector1::new(x[0] * x[0] - 2.0), Matrix1::new(j)))
    };
    assert_eq!(
        newton(g, &Vector1::new(1.0), &NewtonOptions::default()).unwrap_err(),
        GeomError::SingularMatrix { what: "Newton Jacobian", iteration: 1 }
    );
    // rank-deficient 2×2
    let h = |x: &Vector2<f64>| {
        Ok((Vector2::new(x[0] + x[1] - 1.0, 2.0 * (x[0] + x[1]) + 3.0), Matrix2::new(1.0, 1.0, 2.0, 2.0)))
    };
    assert!(matches!(
        newton(h, &Vector2::zeros(), &NewtonOptions::default()),
        Err(GeomError::SingularMatrix { iteration: 0, .. })
    ));
}

#[test]
fn non_finite() {
    let opts = NewtonOptions::default();
    let f = |x: &Vector1<f64>| Ok((Vector1::new(x[0] * x[0] - 2.0), Matrix1::new(2.0 * x[0])));
    assert_eq!(
        newton(f, &Vector1::new(f64::NAN), &opts).unwrap_err(),
        GeomError::NonFinite { what: "Newton initial guess" }
    );
    // F(x) = √x - 1 from 10: x_1 = 2√10 - 10 < 0, F(x_1) = NaN
    let g = |x: &Vector1<f64>| Ok((Vector1::new(x[0].sqrt() - 1.0), Matrix1::new(0.5 / x[0].sqrt())));
    assert_eq!(newton(g, &Vector1::new(10.0), &opts).unwrap_err(), GeomError::NonFinite { what: "Newton residual" });
    let h = |_: &Vector1<f64>| Ok((Vector1::new(1.0), Matrix1::new(f64::INFINITY)));
    assert_eq!(newton(h, &Vector1::new(1.0), &opts).unwrap_err(), GeomError::NonFinite { what: "Newton Jacobian" });
    // overflow of the iterate: F = 1, J = 1e-300 (relatively well conditioned in 1D)
    let o = |_: &Vector1<f64>| Ok((Vector1::new(1e10), Matrix1::new(1e-300)));
    assert_eq!(newton(o, &Vector1::new(0.0), &opts).unwrap_err(), GeomError::NonFinite { what: "Newton iterate" });
    // dynamic
    let gd = |x: &DVector<f64>| Ok((x.map(|v| v.sqrt() - 1.0), DMatrix::from_element(1, 1, 0.5 / x[0].sqrt())));
    assert_eq!(
        newton_dyn(gd, &DVector::from_element(1, 10.0), &opts).unwrap_err(),
        GeomError::NonFinite { what: "Newton residual" }
    );
}

#[test]
fn residual_errors_pass_through() {
    struct Failing;
    impl Residual<1> for Failing {
        #[inline]
        fn eval<S: Scalar>(&self, x: &SVector<S, 1>) -> Result<SVector<S, 1>> {
            if x[0].re() > 0.5 {
                Err(GeomError::OutsideDomain { map: "log", reason: "test" })
            } else {
                Ok(SVector::from([x[0] - S::from(1.0)]))
            }
        }
    }
    assert_eq!(
        newton_ad(&Failing, &Vector1::new(0.0), &NewtonOptions::default()).unwrap_err(),
        GeomError::OutsideDomain { map: "log", reason: "test" }
    );
}

#[test]
fn invalid_options() {
    for (r, s, m) in [
        (0.0, 1e-12, 10),
        (-1e-12, 1e-12, 10),
        (f64::NAN, 1e-12, 10),
        (f64::INFINITY, 1e-12, 10),
        (1e-12, 0.0, 10),
        (1e-12, f64::NAN, 10),
        (1e-12, -1.0, 10),
        (1e-12, 1e-12, 0),
    ] {
        assert!(matches!(NewtonOptions::new(r, s, m), Err(GeomError::InvalidParameter { .. })), "{r} {s} {m}");
    }
    assert_eq!(NewtonOptions::new(1e-12, 1e-12, 50).unwrap(), NewtonOptions::default());
    // solvers validate options built by hand
    let bad = NewtonOptions { max_iterations: 0, ..NewtonOptions::default() };
    let f = |x: &Vector1<f64>| Ok((*x, Matrix1::identity()));
    assert!(matches!(
        newton(f, &Vector1::new(1.0), &bad),
        Err(GeomError::InvalidParameter { what: "max_iterations", .. })
    ));
    let bad = NewtonOptions { residual_tol: f64::NAN, ..NewtonOptions::default() };
    assert!(matches!(
        newton_ad(&CircleHyperbola, &Vector2::new(2.0, 0.5), &bad),
        Err(GeomError::InvalidParameter { what: "residual_tol", .. })
    ));
    assert!(matches!(
        newton_dyn(to_dyn(circle_hyperbola), &DVector::from_element(2, 1.0), &bad),
        Err(GeomError::InvalidParameter { .. })
    ));
}

#[test]
fn dynamic_matches_fixed() {
    let opts = NewtonOptions::default();
    let x0 = Vector2::new(2.0, 0.5);
    let (xf, rf) = newton(|x| Ok(circle_hyperbola(x)), &x0, &opts).unwrap();
    let (xd, rd) = newton_dyn(to_dyn(circle_hyperbola), &DVector::from_column_slice(x0.as_slice()), &opts).unwrap();
    assert_eq!(rf.iterations, rd.iterations);
    assert!((xd[0] - xf[0]).abs() + (xd[1] - xf[1]).abs() < 1e-15);
    // simplified Newton too
    let frozen = opts.with_jacobian(JacobianUpdate::Frozen);
    let (xf, rf) = newton(|x| Ok(circle_hyperbola(x)), &x0, &frozen).unwrap();
    let (xd, rd) = newton_dyn(to_dyn(circle_hyperbola), &DVector::from_column_slice(x0.as_slice()), &frozen).unwrap();
    assert_eq!((rf.iterations, rf.jacobian_updates), (rd.iterations, rd.jacobian_updates));
    assert!((xd[0] - xf[0]).abs() + (xd[1] - xf[1]).abs() < 1e-14);
}

#[test]
fn dynamic_dimension_checks_and_singularity() {
    let opts = NewtonOptions::default();
    let x0 = DVector::from_element(2, 1.0);
    let short_f = |_: &DVector<f64>| Ok((DVector::from_element(1, 1.0), DMatrix::identity(2, 2)));
    assert_eq!(
        newton_dyn(short_f, &x0, &opts).unwrap_err(),
        GeomError::DimensionMismatch { what: "Newton residual", expected: 2, got: 1 }
    );
    let rows = |_: &DVector<f64>| Ok((DVector::from_element(2, 1.0), DMatrix::identity(3, 2)));
    assert_eq!(
        newton_dyn(rows, &x0, &opts).unwrap_err(),
        GeomError::DimensionMismatch { what: "Newton Jacobian rows", expected: 2, got: 3 }
    );
    let cols = |_: &DVector<f64>| Ok((DVector::from_element(2, 1.0), DMatrix::identity(2, 1)));
    assert_eq!(
        newton_dyn(cols, &x0, &opts).unwrap_err(),
        GeomError::DimensionMismatch { what: "Newton Jacobian columns", expected: 2, got: 1 }
    );
    let singular = |x: &DVector<f64>| Ok((x.map(|v| v * v + 1.0), DMatrix::from_diagonal(&x.map(|v| 2.0 * v))));
    assert_eq!(
        newton_dyn(singular, &DVector::zeros(2), &opts).unwrap_err(),
        GeomError::SingularMatrix { what: "Newton Jacobian", iteration: 0 }
    );
    let rank1 = |x: &DVector<f64>| Ok((x.add_scalar(1.0), DMatrix::from_element(2, 2, 1.0)));
    assert!(matches!(newton_dyn(rank1, &x0, &opts), Err(GeomError::SingularMatrix { .. })));
    // empty system: trivially solved
    let empty = |_: &DVector<f64>| Ok((DVector::zeros(0), DMatrix::zeros(0, 0)));
    assert_eq!(newton_dyn(empty, &DVector::zeros(0), &opts).unwrap().1.iterations, 0);
    // not converged
    let f = to_dyn(circle_hyperbola);
    let few = NewtonOptions::new(1e-12, 1e-12, 2).unwrap();
    let far = DVector::from_vec(vec![3.0, 0.1]);
    assert!(matches!(newton_dyn(f, &far, &few), Err(GeomError::NotConverged { iterations: 2, .. })));
}

#[test]
fn ad_jacobian_matches_user_jacobian() {
    for x in [Vector2::new(2.0, 0.5), Vector2::new(-1.3, 0.7), Vector2::new(0.1, -4.0)] {
        let (f, j) = circle_hyperbola(&x);
        let (fa, ja) = ad_jacobian(&CircleHyperbola, &x).unwrap();
        assert_eq!(f, fa);
        assert!((j - ja).amax() < 1e-15);
    }
    // a non-polynomial residual against central differences
    struct Trig;
    impl Residual<2> for Trig {
        #[inline]
        fn eval<S: Scalar>(&self, x: &SVector<S, 2>) -> Result<SVector<S, 2>> {
            Ok(SVector::from([x[0].sin() * x[1].exp(), (x[0] * x[1]).atan()]))
        }
    }
    let x = Vector2::new(0.4, -0.8);
    let (_, ja) = ad_jacobian(&Trig, &x).unwrap();
    let h = 1e-6;
    for c in 0..2 {
        let mut e = Vector2::zeros();
        e[c] = h;
        let d = (Trig.eval(&(x + e)).unwrap() - Trig.eval(&(x - e)).unwrap()) / (2.0 * h);
        assert!((d - ja.column(c)).amax() < 1e-9);
    }
    // the AD solver follows the same iterates as the user-Jacobian one
    let opts = NewtonOptions::default();
    let (xa, ra) = newton_ad(&CircleHyperbola, &Vector2::new(2.0, 0.5), &opts).unwrap();
    let (xu, ru) = newton(|x| Ok(circle_hyperbola(x)), &Vector2::new(2.0, 0.5), &opts).unwrap();
    assert_eq!(ra.iterations, ru.iterations);
    assert!((xa - xu).amax() < 1e-15);
}

#[test]
fn simplified_newton_reuses_the_jacobian() {
    let root = circle_hyperbola_root();
    let frozen = NewtonOptions::default().with_jacobian(JacobianUpdate::Frozen);
    // the step test guarantees |x - x*| <~ step_tol (1 + |x*|) ≈ 2.9e-12
    let tol = 1e-12 * (1.0 + root.amax());
    let (x, report) = newton_ad(&CircleHyperbola, &Vector2::new(1.95, 0.52), &frozen).unwrap();
    assert!((x - root).amax() <= tol, "{}", (x - root).amax());
    assert_eq!(report.jacobian_updates, 1, "{report:?}");
    let (_, full) = newton_ad(&CircleHyperbola, &Vector2::new(1.95, 0.52), &NewtonOptions::default()).unwrap();
    assert!(report.iterations > full.iterations, "{report:?} vs {full:?}");
    // from far away J(x_0) contracts too slowly (theta > 1/2) and is refreshed
    // (the iteration lands on the mirror root (y*, x*))
    let x0 = Vector2::new(1.5, 1.0);
    let (x, report) = newton_ad(&CircleHyperbola, &x0, &frozen).unwrap();
    let mirror = Vector2::new(root[1], root[0]);
    assert!((x - mirror).amax() <= tol, "{x}");
    assert!(report.jacobian_updates > 1, "{report:?}");
    assert!(report.jacobian_updates < report.iterations, "{report:?}");
}

/// Polishing ([`NewtonOptions::polish`]): simplified Newton on `F(x) = (x - 1) + (x - 1)²/4`
/// from `x_0 = 1/2` (Jacobian frozen at `3/4`, true derivative `1` at the root: linear
/// convergence with rate `1 - 1/(3/4) = -1/3`) stops by the residual test `|F| <= 1e-6` about
/// `1e-6` from the root; the polishing correction, one solve with the frozen Jacobian, multiplies
/// that error by `-1/3`.
#[test]
fn polishing_corrects_the_accepted_iterate_of_a_simplified_iteration() {
    let f = |x: &SVector<f64, 1>| {
        let e = x[0] - 1.0;
        Ok((SVector::from([e + 0.25 * e * e]), SMatrix::<f64, 1, 1>::new(1.0 + 0.5 * e)))
    };
    let opts = NewtonOptions { residual_tol: 1e-6, ..NewtonOptions::default() }.with_jacobian(JacobianUpdate::Frozen);
    let (plain, report) = newton(f, &SVector::from([0.5]), &opts).unwrap();
    let (polished, polished_report) = newton(f, &SVector::from([0.5]), &opts.with_polish(true)).unwrap();
    assert_eq!((report.criterion, report.jacobian_updates), (StopCriterion::Residual, 1));
    assert_eq!(report, polished_report);
    let (e_plain, e_polished) = ((plain[0] - 1.0).abs(), (polished[0] - 1.0).abs());
    assert!(e_plain > 1e-8 && e_plain <= 2e-6, "unpolished error {e_plain:e}");
    // the correction -F/J_0 overshoots: the error shrinks by the rate 1/3 and changes sign
    assert!(e_polished <= 0.4 * e_plain && (polished[0] - 1.0) * (plain[0] - 1.0) < 0.0, "{e_polished:e}");
}

/// A polishing correction predicted below half an ulp of `|x|_∞` is skipped
/// ([`POLISH_FLOOR`]): predicted size `|F(x_k)| |dx_{k-1}| / |F(x_{k-1})|`.
#[test]
fn a_polishing_correction_below_the_rounding_of_x_is_skipped() {
    let opts = NewtonOptions::simplified();
    let mut monitor = Monitor::new(&opts);
    // the warm start: nothing to predict from, never skipped
    assert!(!monitor.polish_negligible(1e-30, 1.0));
    // one step of size 1e-8 from a residual 1e-8 (|J^{-1}| ≈ 1)
    let _ = monitor.step_test(1, 1e-8, 1e-8, 1.0);
    assert!(monitor.polish_negligible(1e-17, 1.0));
    assert!(!monitor.polish_negligible(1e-15, 1.0));
    // relative to |x|: the same residual at |x| = 100 is below its rounding
    assert!(monitor.polish_negligible(1e-15, 100.0));
    // |J^{-1}| ≈ 1e4 (step 1e-4 from residual 1e-8): a residual 1e-17 predicts a correction 1e-13
    let mut stiff = Monitor::new(&opts);
    let _ = stiff.step_test(1, 1e-8, 1e-4, 1.0);
    assert!(!stiff.polish_negligible(1e-17, 1.0));
}
