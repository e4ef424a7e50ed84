//! Matrix groups written with three functions, outside the crate: SL(2, R) and SL(3, R) implement
//! only `MatrixGroup` (`hat`, `vee`, membership) and get every `LieGroup` operation from
//! `Linear`. They pass the public suites (`check_group`, `check_matrix_group`,
//! `check_translation_jet`), their `exp` and `log` agree with independent closed forms, and SL(3),
//! which has no Cayley map into the group, refuses it with a typed error that the suites report.

use geom_core::lie::testing::{check_group, check_matrix_group, check_translation_jet};
use geom_core::lie::{Chart, LieGroup, Linear, MatrixGroup, So3, check_chart};
use geom_core::{GeomError, Scalar};
use nalgebra::{Matrix2, Matrix3, SVector, Vector3};
use num_dual::{Dual64, DualSVec64, HyperDual64};

/// sl(2): `hat(a, b, c) = [[a, b], [c, -a]]`.
#[derive(Debug, Clone, Copy, Default)]
struct Sl2;
impl MatrixGroup<3, 2> for Sl2 {
    fn name(&self) -> String {
        "SL(2,R)".into()
    }
    fn hat<S: Scalar>(&self, x: &SVector<S, 3>) -> Matrix2<S> {
        Matrix2::new(x[0], x[1], x[2], -x[0])
    }
    fn vee<S: Scalar>(&self, m: &Matrix2<S>) -> SVector<S, 3> {
        Vector3::new((m[(0, 0)] - m[(1, 1)]) * S::from(0.5), m[(0, 1)], m[(1, 0)])
    }
    fn defect(&self, g: &Matrix2<f64>) -> f64 {
        (g.determinant() - 1.0).abs()
    }
    /// SL(2) = Sp(2): `cay(x)` has determinant 1.
    fn has_cayley(&self) -> bool {
        true
    }
}

/// sl(3): `hat(x) = [[x0, x2, x3], [x4, x1 - x0, x5], [x6, x7, -x1]]` (traceless).
#[derive(Debug, Clone, Copy, Default)]
struct Sl3;
impl MatrixGroup<8, 3> for Sl3 {
    fn name(&self) -> String {
        "SL(3,R)".into()
    }
    fn hat<S: Scalar>(&self, x: &SVector<S, 8>) -> Matrix3<S> {
        Matrix3::new(x[0], x[2], x[3], x[4], x[1] - x[0], x[5], x[6], x[7], -x[1])
    }
    /// The coordinates of the traceless part `m - tr(m)/3 I`.
    fn vee<S: Scalar>(&self, m: &Matrix3<S>) -> SVector<S, 8> {
        let t = m.trace() / S::from(3.0);
        SVector::<S, 8>::from([
            m[(0, 0)] - t,
            t - m[(2, 2)],
            m[(0, 1)],
            m[(0, 2)],
            m[(1, 0)],
            m[(1, 2)],
            m[(2, 0)],
            m[(2, 1)],
        ])
    }
    fn defect(&self, g: &Matrix3<f64>) -> f64 {
        (g.determinant() - 1.0).abs()
    }
}

type SL2 = Linear<Sl2, 2>;
type SL3 = Linear<Sl3, 3>;
const SL2: SL2 = Linear(Sl2);
const SL3: SL3 = Linear(Sl3);

fn sl2_points() -> Vec<SVector<f64, 3>> {
    vec![
        Vector3::zeros(),
        Vector3::new(1e-9, -2e-9, 3e-9),
        Vector3::new(0.3, -0.2, 0.5),
        Vector3::new(-0.4, 0.7, 0.1),
        Vector3::new(0.1, 0.2, -0.6), // elliptic: a² + bc < 0
        Vector3::new(1.1, 0.4, 0.9),  // hyperbolic, |x| > 1
    ]
}

fn sl3_points() -> Vec<SVector<f64, 8>> {
    let a = SVector::<f64, 8>::from_fn(|i, _| ((i * 5 + 2) % 7) as f64 - 3.1).normalize();
    let b = SVector::<f64, 8>::from_fn(|i, _| ((i * 3 + 1) % 4) as f64 - 1.4).normalize();
    vec![SVector::zeros(), a * 1e-9, b * 1e-4, a * 0.3, b * 0.9, a * 1.5, b * 2.0]
}

#[test]
fn sl2_and_sl3_from_three_functions_pass_the_public_suites() {
    let r = check_group(&SL2, &sl2_points(), 1e-11);
    assert_eq!(r.points, 6);
    assert!(r.skipped.is_empty(), "SL(2) has Cayley: nothing skipped, {:?}", r.skipped);
    let r = check_matrix_group(&SL2, &sl2_points(), 1e-11);
    assert!(r.skipped.is_empty(), "{:?}", r.skipped);
    check_translation_jet(&SL2, &sl2_points(), 1e-12);

    let r = check_group(&SL3, &sl3_points(), 1e-11);
    assert_eq!(r.points, 7);
    assert_eq!(r.skipped, vec!["Cayley identities: SL(3,R) has no cayley chart into the group".to_string()]);
    let r = check_matrix_group(&SL3, &sl3_points(), 1e-11);
    assert_eq!(r.skipped.len(), 1, "{:?}", r.skipped);
    assert!(r.skipped[0].starts_with("Cayley and dcay^-1 matrix formulas"), "{:?}", r.skipped);
    check_translation_jet(&SL3, &sl3_points(), 1e-12);
    for chart in [Chart::Exp, Chart::Cayley] {
        check_chart(&SL2, &chart).unwrap();
    }
    check_chart(&SL3, &Chart::Exp).unwrap();
}

#[test]
fn sl3_refuses_cayley_with_a_typed_error_and_that_is_why() {
    let x = sl3_points()[4];
    let refused =
        |e: GeomError| matches!(e, GeomError::ChartUnavailable { chart: "cayley", ref group } if &**group == "SL(3,R)");
    assert!(refused(LieGroup::<f64, 8>::cayley(&SL3, &x).unwrap_err()));
    assert!(refused(LieGroup::<f64, 8>::dtau_inv(&SL3, Chart::Cayley, &x).unwrap_err()));
    assert!(refused(check_chart(&SL3, &Chart::Cayley).unwrap_err()));
    let msg = LieGroup::<f64, 8>::cayley(&SL3, &x).unwrap_err().to_string();
    assert_eq!(msg, "SL(3,R) has no cayley chart into the group");
    // the reason: the Cayley matrix of a traceless X is off SL(3) (det ≠ 1), while on SL(2) it is in
    let h = Sl3.hat(&x);
    let cay = (Matrix3::identity() - h * 0.5).try_inverse().unwrap() * (Matrix3::identity() + h * 0.5);
    assert!((cay.determinant() - 1.0).abs() > 5e-3, "det cay = {}", cay.determinant());
    assert!(LieGroup::<f64, 8>::defect(&SL3, &cay) > 5e-3);
    let c2 = LieGroup::<f64, 3>::cayley(&SL2, &sl2_points()[5]).unwrap();
    assert!((c2.determinant() - 1.0).abs() < 1e-14);
    // a group whose public suite would pass Cayley checks by silence is caught: the refusal is
    // complete (check_group asserts it for every Cayley operation, at f64 and dual numbers)
    assert!(LieGroup::<f64, 8>::dcay_inv(&SL3, &x)[0].is_nan());
}

/// `exp [[a, b], [c, -a]] = C(δ²) I + S(δ²) X`, `δ² = a² + bc`, `C = cosh δ`, `S = sinh δ/δ`
/// (`cos`, `sin` for `δ² < 0`).
fn sl2_exp_closed_form(x: &Vector3<f64>) -> Matrix2<f64> {
    let d2 = x[0] * x[0] + x[1] * x[2];
    let (c, s) = if d2 > 0.0 {
        let d = d2.sqrt();
        (d.cosh(), d.sinh() / d)
    } else if d2 < 0.0 {
        let d = (-d2).sqrt();
        (d.cos(), d.sin() / d)
    } else {
        (1.0, 1.0)
    };
    Matrix2::identity() * c + Sl2.hat(x) * s
}

#[test]
fn exp_and_log_agree_with_independent_closed_forms() {
    // SL(2): cosh/sinh (cos/sin) closed form, and log(exp x) = x
    for x in sl2_points() {
        let e = SL2.exp(&x);
        let want = sl2_exp_closed_form(&x);
        assert!((e - want).amax() < 4e-16 * (1.0 + want.amax()), "sl(2) exp at {x:?}: {e} vs {want}");
        assert!((SL2.log(&want).unwrap() - x).amax() < 1e-13, "sl(2) log at {x:?}");
    }
    // SO(3) inside SL(3): Rodrigues, and the log back to the same generator
    let embed = |w: &Vector3<f64>| SVector::<f64, 8>::from([0.0, 0.0, -w[2], w[1], w[2], -w[0], -w[1], w[0]]);
    for w in [Vector3::new(0.3, -0.2, 0.5), Vector3::new(-1.0, 0.4, 0.8), Vector3::new(0.0, 0.0, 2.5)] {
        let x = embed(&w);
        assert_eq!(Sl3.hat(&x), geom_core::lie::so3::hat(&w));
        let r: Matrix3<f64> = So3.exp(&w);
        assert!((SL3.exp(&x) - r).amax() < 1e-15, "SL(3) exp of a rotation generator {w:?}");
        assert!((SL3.log(&r).unwrap() - x).amax() < 1e-13, "SL(3) log of a rotation {w:?}");
    }
    // a diagonalisable element with positive eigenvalues: log = P diag(ln λ) P^{-1}
    let p = Matrix3::new(1.0, 0.3, -0.2, 0.1, 1.2, 0.4, -0.3, 0.2, 0.9);
    let pi = p.try_inverse().unwrap();
    let lambda = Vector3::new(2.0, 0.8, 1.0 / 1.6);
    let g = p * Matrix3::from_diagonal(&lambda) * pi;
    let want = p * Matrix3::from_diagonal(&lambda.map(f64::ln)) * pi;
    let l = SL3.log(&g).unwrap();
    assert!((Sl3.hat(&l) - want).amax() < 1e-13, "{} vs {want}", Sl3.hat(&l));
    assert!((SL3.exp(&l) - g).amax() < 1e-13);
    // a unipotent element: exp N = I + N + N²/2, log is N exactly
    let n = SVector::<f64, 8>::from([0.0, 0.0, 0.7, -0.4, 0.0, 1.3, 0.0, 0.0]);
    let hn = Sl3.hat(&n);
    let u = Matrix3::identity() + hn + hn * hn * 0.5;
    assert!((SL3.exp(&n) - u).amax() < 1e-15);
    assert!((SL3.log(&u).unwrap() - n).amax() < 1e-14);
}

#[test]
fn no_principal_log_and_bad_input_are_typed_errors() {
    // eigenvalues (-2, -1/2, 1): in SL(3), no real principal logarithm
    let g = Matrix3::from_diagonal(&Vector3::new(-2.0, -0.5, 1.0));
    assert!(LieGroup::<f64, 8>::defect(&SL3, &g) < 1e-15);
    assert!(matches!(SL3.log(&g), Err(GeomError::OutsideDomain { .. } | GeomError::NotConverged { .. })));
    let nan = Matrix3::from_element(f64::NAN);
    assert!(matches!(SL3.log(&nan), Err(GeomError::NonFinite { .. })));
    assert!(LieGroup::<f64, 8>::defect(&SL3, &nan).is_infinite());
    assert!(LieGroup::<f64, 8>::check_element(&SL3, &nan, 1e-9).is_err());
    assert!(matches!(
        LieGroup::<f64, 8>::check_element(&SL3, &(Matrix3::identity() * 1.1), 1e-9),
        Err(GeomError::OffManifold { .. })
    ));
    assert!(LieGroup::<f64, 8>::inverse(&SL3, &Matrix3::zeros())[0].is_nan());
}

#[test]
fn derivatives_are_exact_at_dual_and_hyper_dual_numbers() {
    // d/dt exp(t x) at t = 0 is hat(x), exactly (a scaling decided on the value would be wrong)
    let x = sl3_points()[4];
    let e: Matrix3<Dual64> = SL3.exp(&x.map(|v| Dual64::new(0.0, v)));
    assert!((e.map(|v| v.eps) - Sl3.hat(&x)).amax() == 0.0);
    // second derivative: d²/dt² exp(t x) at t = 1 is X² exp(X)
    let eh: Matrix3<HyperDual64> = SL3.exp(&x.map(|v| HyperDual64::new(v, v, v, 0.0)));
    let hx = Sl3.hat(&x);
    let want = hx * hx * SL3.exp(&x);
    assert!((eh.map(|v| v.eps1eps2) - want).amax() < 1e-13 * want.amax(), "{}", eh.map(|v| v.eps1eps2));
    // the Jacobian of log ∘ exp is the identity away from 0 (through Denman–Beavers)
    let (v, j) = num_dual::jacobian(
        |y: SVector<DualSVec64<8>, 8>| LieGroup::<DualSVec64<8>, 8>::log(&SL3, &LieGroup::exp(&SL3, &y)).unwrap(),
        &x,
    );
    assert!((v - x).amax() < 1e-13);
    assert!((j - nalgebra::SMatrix::<f64, 8, 8>::identity()).amax() < 1e-11, "{j}");
}

/// SL(3) whose refusal of Cayley is incomplete: it refuses `cayley` and `cayley_inv` but keeps
/// the trait's defaults of `dcay` and `dtau_inv(Cayley)`, which answer from the NaN `dcay^{-1}`
/// instead of refusing. A method asking for `dcay^{-1}` alone would run on NaN; the suite fails it.
#[derive(Debug, Clone, Copy)]
struct LeakyCayley;
impl<S: Scalar> LieGroup<S, 8> for LeakyCayley {
    type Element = Matrix3<S>;
    type Matrix = Matrix3<S>;
    fn name(&self) -> String {
        "leaky SL(3)".into()
    }
    fn identity(&self) -> Matrix3<S> {
        SL3.identity()
    }
    fn compose(&self, a: &Matrix3<S>, b: &Matrix3<S>) -> Matrix3<S> {
        SL3.compose(a, b)
    }
    fn inverse(&self, a: &Matrix3<S>) -> Matrix3<S> {
        SL3.inverse(a)
    }
    fn exp(&self, x: &SVector<S, 8>) -> Matrix3<S> {
        SL3.exp(x)
    }
    fn log(&self, g: &Matrix3<S>) -> geom_core::Result<SVector<S, 8>> {
        SL3.log(g)
    }
    fn hat(&self, x: &SVector<S, 8>) -> Matrix3<S> {
        Sl3.hat(x)
    }
    fn vee(&self, m: &Matrix3<S>) -> SVector<S, 8> {
        Sl3.vee(m)
    }
    fn to_matrix(&self, g: &Matrix3<S>) -> Matrix3<S> {
        *g
    }
    fn adjoint(&self, g: &Matrix3<S>) -> nalgebra::SMatrix<S, 8, 8> {
        SL3.adjoint(g)
    }
    fn ad(&self, x: &SVector<S, 8>) -> nalgebra::SMatrix<S, 8, 8> {
        SL3.ad(x)
    }
    fn dcay_inv(&self, x: &SVector<S, 8>) -> nalgebra::SMatrix<S, 8, 8> {
        SL3.dcay_inv(x)
    }
    fn cayley(&self, x: &SVector<S, 8>) -> geom_core::Result<Matrix3<S>> {
        SL3.cayley(x)
    }
    fn cayley_inv(&self, g: &Matrix3<S>) -> geom_core::Result<SVector<S, 8>> {
        SL3.cayley_inv(g)
    }
    fn defect(&self, g: &Matrix3<S>) -> f64 {
        LieGroup::<S, 8>::defect(&SL3, g)
    }
}

#[test]
fn an_incomplete_refusal_of_cayley_fails_the_suite() {
    // the trait's default dtau_inv(Cayley) is Ok(dcay_inv): not refused
    assert!(LieGroup::<f64, 8>::dtau_inv(&LeakyCayley, Chart::Cayley, &sl3_points()[3]).is_ok());
    let result = std::panic::catch_unwind(|| check_group(&LeakyCayley, &sl3_points(), 1e-11));
    let message = result.expect_err("an incomplete refusal must fail check_group");
    let text = message.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(text.contains("cayley is refused but dcay is not refused with GeomError::ChartUnavailable"), "{text}");
}
