//! The test suite every Lie group must pass, as public API: a user who adds a group (outside
//! this crate) validates it with the same checks the groups of `geom_core::lie` pass.
//!
//! * [`check_group`]: every convention of [`crate::lie`] that can be stated with group
//!   operations: group axioms, `log ∘ exp = id`, `Ad` a homomorphism and `Ad_{exp x} = exp(ad_x)`,
//!   `ad_x y = [x, y]` and antisymmetry, `Ad* = Adᵀ`, `ad* = adᵀ`, `Ad`, `ad`, `dexp` and `dcay`
//!   against forward AD through the group at `DualSVec64<D>` (so a sign error in `ad`, which no
//!   conservation check sees, fails here), `dexp^{-1}` and `dcay^{-1}` as inverses, the series
//!   forms, the left/right trivialization relation, Cayley's `cay(-x) = cay(x)^{-1}`, and the
//!   derivatives at exactly 0 (dual numbers through the small-angle branches);
//! * [`check_matrix_group`]: the matrix-representation checks: bracket = commutator of hats,
//!   `exp = expm ∘ hat`, `Ad_g = g hat(·) g^{-1}`, the columns of `dexp`/`dcay` by AD of the
//!   matrix, the Cayley and `dcay^{-1}` matrix formulas.
//!
//! * [`check_translation_jet`]: a group's closed-form first-order jets
//!   ([`LieGroupFamily::translation_jet`]) against
//!   the curves `g · τ(εy)` and `τ(εy) · g` evaluated at `Dual64`, both charts, and the
//!   second-order ones (`translation_jet_dual`) against the same curves at `HyperDual64`.
//!
//! They panic with a message naming the group, the point and the failed identity (they are meant
//! to be called from `#[test]` functions). A group may lack the Cayley map (a
//! [`Linear`](crate::lie::Linear) group of SL(n ≥ 3), say): it must then refuse every Cayley
//! operation with [`GeomError::ChartUnavailable`] (checked), and `check_group` and
//! `check_matrix_group` skip the Cayley identities and list them in the [`SuiteReport`] they
//! return.
//!
//! ```
//! use geom_core::lie::testing::{check_group, check_matrix_group};
//! use geom_core::lie::So3;
//! use nalgebra::Vector3;
//! let xs = [Vector3::new(0.3, -0.2, 0.5), Vector3::new(-1.0, 0.4, 0.8), Vector3::new(0.0, 0.0, 2.5)];
//! check_group(&So3, &xs, 1e-12);
//! check_matrix_group(&So3, &xs, 1e-12);
//! ```
use crate::lie::series::dexp_inv_default;
use crate::lie::{Chart, LieGroup, LieGroupFamily, Side, dexp_series};
use crate::{GeomError, Result};
use nalgebra::{Const, SMatrix, SVector, U1};
use num_dual::{Dual64, DualSVec64, HyperDual64, jacobian};

/// The AD scalar of the checks.
pub type Dv<const D: usize> = DualSVec64<D>;

/// What [`check_group`] and [`check_matrix_group`] checked, and what they skipped because the
/// group does not offer it (a chart refused with [`GeomError::ChartUnavailable`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SuiteReport {
    /// Sample points at which every offered identity was checked.
    pub points: usize,
    /// The identities skipped, once each, with the group's reason, e.g.
    /// `"Cayley identities: SL(3,R) has no cayley chart into the group"`.
    pub skipped: Vec<String>,
}

impl SuiteReport {
    fn skip(&mut self, what: &str, why: &GeomError) {
        let line = format!("{what}: {why}");
        if !self.skipped.contains(&line) {
            self.skipped.push(line);
        }
    }
}

/// Whether `r` is the typed refusal of a chart the group does not have.
fn refused<T>(r: &Result<T>) -> bool {
    matches!(r, Err(GeomError::ChartUnavailable { .. }))
}

/// Real entries of an element (matrix, pair or array of them), for comparisons.
pub trait Flat {
    /// The real entries, in a fixed order.
    fn flat(&self) -> Vec<f64>;
}
impl<const R: usize, const C: usize> Flat for SMatrix<f64, R, C> {
    fn flat(&self) -> Vec<f64> {
        self.iter().copied().collect()
    }
}
impl<A: Flat, B: Flat> Flat for (A, B) {
    fn flat(&self) -> Vec<f64> {
        let mut v = self.0.flat();
        v.extend(self.1.flat());
        v
    }
}
impl<T: Flat, const K: usize> Flat for [T; K] {
    fn flat(&self) -> Vec<f64> {
        self.iter().flat_map(|t| t.flat()).collect()
    }
}

/// `max_i |a_i - b_i|`.
pub fn dist<T: Flat>(a: &T, b: &T) -> f64 {
    let (a, b) = (a.flat(), b.flat());
    assert_eq!(a.len(), b.len());
    a.iter().zip(&b).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max)
}

/// Constant dual vector.
pub fn lift<const D: usize, const M: usize>(x: &SVector<f64, M>) -> SVector<Dv<D>, M> {
    x.map(Dv::<D>::from_re)
}

/// `x` with derivative seeds `e_i` (the independent variables).
pub fn seed<const D: usize>(x: &SVector<f64, D>) -> SVector<Dv<D>, D> {
    SVector::from_fn(|i, _| Dv::<D>::from_re(x[i]).derivative(i))
}

/// Real part of a dual matrix.
pub fn re<const D: usize, const R: usize, const C: usize>(m: &SMatrix<Dv<D>, R, C>) -> SMatrix<f64, R, C> {
    m.map(|v| v.re)
}

/// `∂_j m` of a dual matrix.
pub fn eps<const D: usize, const R: usize, const C: usize>(m: &SMatrix<Dv<D>, R, C>, j: usize) -> SMatrix<f64, R, C> {
    m.map(|v| v.eps.unwrap_generic(Const::<D>, U1)[j])
}

/// The `i`-th unit vector.
pub fn basis<const D: usize>(i: usize) -> SVector<f64, D> {
    SVector::from_fn(|j, _| if i == j { 1.0 } else { 0.0 })
}

/// Reference matrix exponential (Taylor series with scaling and squaring).
pub fn expm<const N: usize>(a: &SMatrix<f64, N, N>) -> SMatrix<f64, N, N> {
    let norm = a.norm();
    let k = if norm > 0.25 { (norm / 0.25).log2().ceil() as i32 } else { 0 };
    let b = a / 2f64.powi(k);
    let mut term = SMatrix::<f64, N, N>::identity();
    let mut sum = term;
    for j in 1..30 {
        term = term * b / j as f64;
        sum += term;
    }
    for _ in 0..k {
        sum = sum * sum;
    }
    sum
}

macro_rules! f {
    ($g:expr, $m:ident $(, $a:expr)*) => {
        <G as LieGroup<f64, D>>::$m($g $(, $a)*)
    };
}
macro_rules! d {
    ($g:expr, $m:ident $(, $a:expr)*) => {
        <G as LieGroup<Dv<D>, D>>::$m($g $(, $a)*)
    };
}

/// A group that refuses the Cayley map refuses every Cayley operation, at `f64` and at dual
/// numbers, with the same typed error (so no method reaches a NaN `dcay^{-1}`).
fn check_cayley_refused<G, const D: usize>(g: &G, x: &SVector<f64, D>, ctx: &str)
where
    G: LieGroup<f64, D> + LieGroup<Dv<D>, D>,
{
    let e = f!(g, exp, x);
    let c = Chart::Cayley;
    let checks = [
        ("cayley", refused(&f!(g, cayley, x))),
        ("cayley_inv", refused(&f!(g, cayley_inv, &e))),
        ("dcay", refused(&f!(g, dcay, x))),
        ("tau", refused(&f!(g, tau, c, x))),
        ("tau_inv", refused(&f!(g, tau_inv, c, &e))),
        ("dtau", refused(&f!(g, dtau, c, x))),
        ("dtau_inv", refused(&f!(g, dtau_inv, c, x))),
        ("dtau_left", refused(&f!(g, dtau_left, c, x))),
        ("compose_tau", refused(&f!(g, compose_tau, c, &e, x))),
        ("cayley at dual numbers", refused(&d!(g, cayley, &seed(x)))),
        ("dtau_inv at dual numbers", refused(&d!(g, dtau_inv, c, &seed(x)))),
    ];
    for (what, ok) in checks {
        assert!(ok, "{ctx}: cayley is refused but {what} is not refused with GeomError::ChartUnavailable");
    }
}

fn close<const R: usize, const C: usize>(a: &SMatrix<f64, R, C>, b: &SMatrix<f64, R, C>, tol: f64, what: &str) {
    let err = (a - b).amax();
    assert!(err <= tol, "{what}: error {err:.3e} > {tol:.3e}\n{a}\n{b}");
}

/// [`LieGroupFamily::translation_jet`] against the curves it stands for: at `g = exp(x)` for each
/// `x` of `xs`, along `y` (the next point of `xs`), on both sides and for both charts (a chart
/// the group refuses with [`GeomError::ChartUnavailable`] is skipped), the jet's real part is `g`
/// and its `ε` part is that of `compose(g, τ(εy))` (`Left`) or `compose(τ(εy), g)` (`Right`), the
/// chart and the product evaluated at `Dual64`. A group without a closed-form jet (`None`)
/// passes. Tolerance `tol` relative to `|x| + |y|`.
pub fn check_translation_jet<G, const D: usize>(g: &G, xs: &[SVector<f64, D>], tol: f64)
where
    G: LieGroupFamily<D>
        + LieGroup<f64, D, Element = <G as LieGroupFamily<D>>::ElementAt<f64>>
        + LieGroup<Dual64, D, Element = <G as LieGroupFamily<D>>::ElementAt<Dual64>>
        + LieGroup<HyperDual64, D, Element = <G as LieGroupFamily<D>>::ElementAt<HyperDual64>>,
    <G as LieGroupFamily<D>>::ElementAt<f64>: Flat,
{
    check_translation_jet_dual(g, xs, tol);
    let name = f!(g, name);
    for (k, x) in xs.iter().enumerate() {
        let y = xs[(k + 1) % xs.len()] * 0.7 + SVector::from_fn(|i, _| 0.05 * (i as f64 + 1.0));
        let t = tol * (1.0 + x.norm() + y.norm()).powi(2);
        let e = f!(g, exp, x);
        let ed = g.lift_at::<Dual64>(&e);
        let yd = y.map(|v| Dual64::new(0.0, v));
        for side in [Side::Left, Side::Right] {
            let Some(jet) = g.translation_jet(&e, &y, side) else { continue };
            let re = g.map_scalar(&jet, &|v: Dual64| v.re);
            let err = dist(&re, &e);
            assert!(err <= t, "{name}: {side:?} jet at x = {:?}: real part off g by {err:.3e}", x.as_slice());
            let eps = g.map_scalar(&jet, &|v: Dual64| v.eps);
            for chart in [Chart::Exp, Chart::Cayley] {
                let step = match <G as LieGroup<Dual64, D>>::tau(g, chart, &yd) {
                    Err(GeomError::ChartUnavailable { .. }) => continue,
                    r => r.unwrap_or_else(|e| panic!("{name}: tau({chart:?}) at an infinitesimal: {e}")),
                };
                let curve = match side {
                    Side::Left => <G as LieGroup<Dual64, D>>::compose(g, &ed, &step),
                    Side::Right => <G as LieGroup<Dual64, D>>::compose(g, &step, &ed),
                };
                let err = dist(&eps, &g.map_scalar(&curve, &|v: Dual64| v.eps));
                assert!(
                    err <= t,
                    "{name}: {side:?} jet at x = {:?} along y = {:?}: velocity off the {chart:?} curve by {err:.3e}",
                    x.as_slice(),
                    y.as_slice()
                );
            }
        }
    }
}

/// [`LieGroupFamily::translation_jet_dual`] against the hyper-dual curves: along
/// `g(δ) = exp(x + δw)` (given at `Dual64`), the jet's four parts are those of
/// `exp(x + ε₁w) · τ(ε₂y)` (`Left`) or `τ(ε₂y) · exp(x + ε₁w)` (`Right`) at `HyperDual64`, for
/// both charts. Part of [`check_translation_jet`].
fn check_translation_jet_dual<G, const D: usize>(g: &G, xs: &[SVector<f64, D>], tol: f64)
where
    G: LieGroupFamily<D>
        + LieGroup<f64, D, Element = <G as LieGroupFamily<D>>::ElementAt<f64>>
        + LieGroup<Dual64, D, Element = <G as LieGroupFamily<D>>::ElementAt<Dual64>>
        + LieGroup<HyperDual64, D, Element = <G as LieGroupFamily<D>>::ElementAt<HyperDual64>>,
    <G as LieGroupFamily<D>>::ElementAt<f64>: Flat,
{
    let name = f!(g, name);
    let w = SVector::<f64, D>::from_fn(|i, _| 0.3 - 0.17 * i as f64);
    for (k, x) in xs.iter().enumerate() {
        let y = xs[(k + 1) % xs.len()] * 0.7 + SVector::from_fn(|i, _| 0.05 * (i as f64 + 1.0));
        let t = tol * (1.0 + x.norm() + y.norm() + w.norm()).powi(3);
        let gd = <G as LieGroup<Dual64, D>>::exp(g, &x.zip_map(&w, Dual64::new));
        let gh = <G as LieGroup<HyperDual64, D>>::exp(g, &x.zip_map(&w, |a, b| HyperDual64::new(a, b, 0.0, 0.0)));
        let yh = y.map(|v| HyperDual64::new(0.0, 0.0, v, 0.0));
        for side in [Side::Left, Side::Right] {
            let Some(jet) = g.translation_jet_dual(&gd, &y, side) else { continue };
            for chart in [Chart::Exp, Chart::Cayley] {
                let step = match <G as LieGroup<HyperDual64, D>>::tau(g, chart, &yh) {
                    Err(GeomError::ChartUnavailable { .. }) => continue,
                    r => r.unwrap_or_else(|e| panic!("{name}: tau({chart:?}) at an infinitesimal: {e}")),
                };
                let curve = match side {
                    Side::Left => <G as LieGroup<HyperDual64, D>>::compose(g, &gh, &step),
                    Side::Right => <G as LieGroup<HyperDual64, D>>::compose(g, &step, &gh),
                };
                let parts: [fn(HyperDual64) -> f64; 4] = [|v| v.re, |v| v.eps1, |v| v.eps2, |v| v.eps1eps2];
                for (p, part) in parts.iter().enumerate() {
                    let err = dist(&g.map_scalar(&jet, part), &g.map_scalar(&curve, part));
                    assert!(
                        err <= t,
                        "{name}: {side:?} second-order jet at x = {:?} along y = {:?}: part {p} off the {chart:?} curve by {err:.3e}",
                        x.as_slice(),
                        y.as_slice()
                    );
                }
            }
        }
    }
}

/// Every convention of `crate::lie` that can be stated with group operations only, at each
/// point of `xs` (which must lie where `log(exp x) = x`), with tolerance `tol` relative to the
/// size of the quantities involved.
///
/// A group that refuses the Cayley map ([`GeomError::ChartUnavailable`], e.g. a
/// [`Linear`](crate::lie::Linear) group without `has_cayley`) must refuse every Cayley operation
/// the same way; its Cayley identities are skipped and listed in the returned report.
pub fn check_group<G, const D: usize>(g: &G, xs: &[SVector<f64, D>], tol: f64) -> SuiteReport
where
    G: LieGroup<f64, D> + LieGroup<Dv<D>, D>,
    <G as LieGroup<f64, D>>::Element: Flat,
{
    let id = SMatrix::<f64, D, D>::identity();
    let name = f!(g, name);
    let mut report = SuiteReport::default();
    for (k, x) in xs.iter().enumerate() {
        report.points += 1;
        let y = xs[(k + 1) % xs.len()] * 0.7 + SVector::from_fn(|i, _| 0.05 * (i as f64 + 1.0));
        let s = 1.0 + x.norm() + y.norm();
        let t = tol * s * s * s;
        let e = f!(g, exp, x);
        let ey = f!(g, exp, &y);
        let e_inv = f!(g, inverse, &e);
        let ctx = format!("{name} at x = {:?}", x.as_slice());

        // hat/vee, group axioms, membership
        close(&f!(g, vee, &f!(g, hat, x)), x, t, &format!("{ctx}: vee(hat x) = x"));
        assert!(dist(&f!(g, compose, &e, &e_inv), &f!(g, identity)) <= t, "{ctx}: g g^-1 = e");
        assert!(f!(g, defect, &e) <= t, "{ctx}: exp(x) in the group");
        assert!(f!(g, check_element, &e, 1e-9).is_ok(), "{ctx}: check_element");

        // log
        let lx = f!(g, log, &e).expect("log(exp x)");
        close(&lx, x, t, &format!("{ctx}: log(exp x) = x"));
        let h = f!(g, compose, &e, &f!(g, exp, &(y * 0.5)));
        if let Ok(lh) = f!(g, log, &h) {
            assert!(dist(&f!(g, exp, &lh), &h) <= t, "{ctx}: exp(log h) = h");
        }

        // Ad, ad, bracket, duals
        let ad_e = f!(g, adjoint, &e);
        close(&f!(g, adjoint, &f!(g, compose, &e, &ey)), &(ad_e * f!(g, adjoint, &ey)), t, &format!("{ctx}: Ad_gh"));
        close(&ad_e, &expm(&f!(g, ad, x)), t, &format!("{ctx}: Ad_exp(x) = exp(ad_x)"));
        let br = f!(g, bracket, x, &y);
        close(&(f!(g, ad, x) * y), &br, t, &format!("{ctx}: ad_x y = [x, y]"));
        close(&f!(g, bracket, &y, x), &(-br), t, &format!("{ctx}: antisymmetry"));
        close(&f!(g, coadjoint, &e, &y), &(ad_e.transpose() * y), t, &format!("{ctx}: Ad* = Adᵀ"));
        close(&f!(g, ad_star, x, &y), &(f!(g, ad, x).transpose() * y), t, &format!("{ctx}: ad* = adᵀ"));
        // Ad_g = d/dy log(g exp(y) g^-1) at 0, by AD
        let ed = d!(g, exp, &lift::<D, D>(x));
        let ed_inv = d!(g, inverse, &ed);
        let (_, jad) = jacobian(
            |yy| d!(g, log, &d!(g, compose, &d!(g, compose, &ed, &d!(g, exp, &yy)), &ed_inv)).expect("log"),
            &SVector::<f64, D>::zeros(),
        );
        close(&jad, &ad_e, t, &format!("{ctx}: Ad against AD"));
        // d/dz Ad_exp(z) y at 0 = -ad_y
        let yd = lift::<D, D>(&y);
        let (_, jad) = jacobian(|zz| d!(g, adjoint, &d!(g, exp, &zz)) * yd, &SVector::<f64, D>::zeros());
        close(&jad, &(-f!(g, ad, &y)), t, &format!("{ctx}: ad against AD"));

        // dexp: right-trivialized derivative d/dy log(exp(y) exp(x)^-1) at y = x, by AD
        let dexp = f!(g, dexp, x);
        let (_, jd) = jacobian(|yy| d!(g, log, &d!(g, compose, &d!(g, exp, &yy), &ed_inv)).expect("log"), x);
        close(&jd, &dexp, t, &format!("{ctx}: dexp against AD"));
        close(&dexp, &dexp_series(&f!(g, ad, x)), t, &format!("{ctx}: dexp = series"));
        let di = f!(g, dexp_inv, x).expect("dexp^-1");
        close(&(dexp * di), &id, t, &format!("{ctx}: dexp dexp^-1 = I"));
        if let Ok(dd) = dexp_inv_default(&f!(g, ad, x)) {
            close(&di, &dd, t * 1e2, &format!("{ctx}: dexp^-1 = series"));
        }
        let em = f!(g, exp, &(-x));
        close(&f!(g, dexp, &(-x)), &(f!(g, adjoint, &em) * dexp), t, &format!("{ctx}: dexp_-x = Ad dexp_x"));
        close(&f!(g, dtau_left, Chart::Exp, x).unwrap(), &f!(g, dexp, &(-x)), t, &format!("{ctx}: left-trivialized"));

        // Cayley
        // (on GL(n), cay(x) exists and cay(-x) not when hat(x) has an eigenvalue -2)
        let cay = f!(g, cayley, x);
        if let Err(why @ GeomError::ChartUnavailable { .. }) = &cay {
            check_cayley_refused(g, x, &ctx);
            report.skip("Cayley identities", why);
        } else if let (Ok(c), Ok(cm)) = (cay, f!(g, cayley, &(-x))) {
            assert!(dist(&f!(g, compose, &cm, &c), &f!(g, identity)) <= t, "{ctx}: cay(-x) = cay(x)^-1");
            assert!(f!(g, defect, &c) <= t, "{ctx}: cay(x) in the group");
            close(&f!(g, cayley_inv, &c).expect("cay^-1"), x, t, &format!("{ctx}: cay^-1(cay x) = x"));
            let dcay = f!(g, dcay, x).expect("dcay");
            let cd_inv = d!(g, inverse, &d!(g, cayley, &lift::<D, D>(x)).unwrap());
            let (_, jc) =
                jacobian(|yy| d!(g, log, &d!(g, compose, &d!(g, cayley, &yy).unwrap(), &cd_inv)).expect("log"), x);
            close(&jc, &dcay, t, &format!("{ctx}: dcay against AD"));
            close(&(dcay * f!(g, dcay_inv, x)), &id, t, &format!("{ctx}: dcay dcay^-1 = I"));
            let dm = f!(g, dcay, &(-x)).expect("dcay(-x)");
            close(&dm, &(f!(g, adjoint, &cm) * dcay), t, &format!("{ctx}: dcay_-x = Ad dcay_x"));
        }
    }
    // closed forms of D_x[(dtau_x^{-1})ᵀ mu], where the group gives one, against AD
    for (k, x) in xs.iter().enumerate() {
        let mu = xs[(k + 1) % xs.len()] - SVector::from_fn(|i, _| 0.3 * (i as f64) - 0.2);
        let s = 1.0 + x.norm() + mu.norm();
        for chart in [Chart::Exp, Chart::Cayley] {
            let Some(closed) = LieGroup::<f64, D>::dtau_inv_transpose_closed_form(g, chart, x, &mu) else { continue };
            let Ok(m) = LieGroup::<Dv<D>, D>::dtau_inv(g, chart, &seed::<D>(x)) else { continue };
            let v = m.tr_mul(&lift::<D, D>(&mu));
            let ad = SMatrix::<f64, D, D>::from_fn(|i, j| eps(&v, j)[i]);
            close(
                &closed,
                &ad,
                tol * s * s * s,
                &format!("{name} {chart:?} at x = {:?}: D_x[(dtau_x^-1)ᵀ mu]", x.as_slice()),
            );
        }
    }
    // derivatives at exactly 0: d/dx log(exp x) = I, and exp(0) = e
    let (v, j) = jacobian(|yy| d!(g, log, &d!(g, exp, &yy)).expect("log"), &SVector::<f64, D>::zeros());
    assert!(v.norm() == 0.0 && (j - id).amax() < 1e-15, "{name}: d log(exp x) at 0 = I");
    assert!(dist(&f!(g, exp, &SVector::zeros()), &f!(g, identity)) == 0.0, "{name}: exp(0) = e");
    report
}

/// The checks that need the matrix representation (`Matrix = N × N` matrices): bracket =
/// commutator of hats, `Ad_g y = vee(g hat(y) g^{-1})`, `exp = expm ∘ hat`,
/// `(∂_j tau(x)) tau(x)^{-1} = hat(dtau_x e_j)` by AD (columns of dexp, dcay), at `x = 0`
/// `∂_j exp = hat(e_j)`, and the Cayley and `dcay^{-1}` matrix formulas (skipped, and listed in
/// the report, for a group that refuses the Cayley map with [`GeomError::ChartUnavailable`]).
pub fn check_matrix_group<G, const D: usize, const N: usize>(g: &G, xs: &[SVector<f64, D>], tol: f64) -> SuiteReport
where
    G: LieGroup<f64, D, Matrix = SMatrix<f64, N, N>> + LieGroup<Dv<D>, D, Matrix = SMatrix<Dv<D>, N, N>>,
{
    let name = f!(g, name);
    let i_n = SMatrix::<f64, N, N>::identity();
    let mut report = SuiteReport::default();
    let cayley = match f!(g, cayley, &SVector::zeros()) {
        Err(why @ GeomError::ChartUnavailable { .. }) => {
            report.skip("Cayley and dcay^-1 matrix formulas", &why);
            false
        }
        _ => true,
    };
    for (k, x) in xs.iter().enumerate() {
        report.points += 1;
        let y = xs[(k + 1) % xs.len()] * 0.7 + SVector::from_fn(|i, _| 0.05 * (i as f64 + 1.0));
        let s = 1.0 + x.norm() + y.norm();
        let t = tol * s * s * s;
        let ctx = format!("{name} at x = {:?}", x.as_slice());
        let (hx, hy) = (f!(g, hat, x), f!(g, hat, &y));
        close(&f!(g, hat, &f!(g, bracket, x, &y)), &(hx * hy - hy * hx), t, &format!("{ctx}: bracket"));
        let e = f!(g, exp, x);
        let m = f!(g, to_matrix, &e);
        let m_inv = f!(g, to_matrix, &f!(g, inverse, &e));
        close(&(m * m_inv), &i_n, t, &format!("{ctx}: to_matrix(g^-1) = to_matrix(g)^-1"));
        close(&m, &expm(&hx), t, &format!("{ctx}: exp = expm(hat)"));
        let ey = f!(g, exp, &y);
        let my = f!(g, to_matrix, &ey);
        close(&f!(g, to_matrix, &f!(g, compose, &e, &ey)), &(m * my), t, &format!("{ctx}: homomorphism"));
        close(&f!(g, hat, &(f!(g, adjoint, &e) * y)), &(m * hy * m_inv), t, &format!("{ctx}: Ad = conjugation"));

        // (∂_j exp(x)) exp(x)^-1 = hat(dexp_x e_j)
        let md = d!(g, to_matrix, &d!(g, exp, &seed(x)));
        close(&re(&md), &m, t, &format!("{ctx}: dual exp"));
        let dexp = f!(g, dexp, x);
        for j in 0..D {
            let col = f!(g, vee, &(eps(&md, j) * m_inv));
            close(&col, &dexp.column(j).into_owned(), t, &format!("{ctx}: dexp column {j} (matrix AD)"));
        }
        if let Ok(c) = f!(g, cayley, x) {
            let mc = f!(g, to_matrix, &c);
            let formula = (i_n - hx * 0.5).try_inverse().expect("I - X/2 invertible") * (i_n + hx * 0.5);
            close(&mc, &formula, t, &format!("{ctx}: Cayley matrix formula"));
            let mc_inv = f!(g, to_matrix, &f!(g, inverse, &c));
            let mcd = d!(g, to_matrix, &d!(g, cayley, &seed(x)).unwrap());
            let dcay = f!(g, dcay, x).expect("dcay");
            for j in 0..D {
                let col = f!(g, vee, &(eps(&mcd, j) * mc_inv));
                close(&col, &dcay.column(j).into_owned(), t, &format!("{ctx}: dcay column {j} (matrix AD)"));
            }
        }
        if cayley {
            let want = hy - (hx * hy - hy * hx) * 0.5 - hx * hy * hx * 0.25;
            close(&f!(g, hat, &(f!(g, dcay_inv, x) * y)), &want, t, &format!("{ctx}: dcay^-1 matrix formula"));
        }
    }
    let md = d!(g, to_matrix, &d!(g, exp, &seed(&SVector::<f64, D>::zeros())));
    for j in 0..D {
        close(&eps(&md, j), &f!(g, hat, &basis::<D>(j)), 1e-15, &format!("{name}: ∂_{j} exp at 0 = hat(e_{j})"));
    }
    close(&re(&md), &i_n, 0.0, &format!("{name}: exp(0) = I"));
    report
}
