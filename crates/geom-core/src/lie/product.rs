//! The direct product `A × B` of two Lie groups, e.g. `SO(3) × R^3` ([`So3xR3`]).
//!
//! Algebra coordinates `x = (a, b) ∈ R^{DA} × R^{DB}` (the `A` coordinates first), elements and
//! matrices are pairs, and every map acts factorwise:
//! `exp(a, b) = (exp_A a, exp_B b)`, `[(a1, b1), (a2, b2)] = ([a1, a2], [b1, b2])`, and
//! `Ad`, `ad`, `dexp`, `dexp^{-1}`, `dcay`, `dcay^{-1}` are block diagonal,
//! `Ad_(g, h) = diag(Ad_g, Ad_h)`. The dimension `D` of the [`LieGroup`] impl must equal
//! `DA + DB`; this is checked at compile time (monomorphisation), so a wrong `D` does not build.

use super::so3::So3;
use super::{LieGroup, Rn};
use crate::{Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// The direct product `A × B` of an `DA`-dimensional group `A` and a `DB`-dimensional group `B`,
/// a group of dimension `D = DA + DB` with elements `(g, h)` (see the module documentation).
///
/// ```
/// use geom_core::lie::{LieGroup, Product, Rn, So3};
/// use nalgebra::{Vector3, Vector6};
/// let g = Product::<So3, Rn<3>, 3, 3>::new(So3, Rn::<3>);
/// let x = Vector6::new(0.1, -0.2, 0.3, 1.0, 2.0, 3.0);
/// let (r, p) = LieGroup::<f64, 6>::exp(&g, &x);
/// assert!((r - geom_core::lie::so3::exp(&Vector3::new(0.1, -0.2, 0.3))).norm() < 1e-15);
/// assert_eq!(p, Vector3::new(1.0, 2.0, 3.0));
/// let back = LieGroup::<f64, 6>::log(&g, &(r, p)).unwrap();
/// assert!((back - x).norm() < 1e-14);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Product<A, B, const DA: usize, const DB: usize>(pub A, pub B);

/// `SO(3) × R^3` with coordinates `(ω, v)`: a rigid body's attitude and position, with the
/// product (not the semidirect SE(3)) structure.
pub type So3xR3 = Product<So3, Rn<3>, 3, 3>;

impl<A, B, const DA: usize, const DB: usize> Product<A, B, DA, DB> {
    /// The product group `A × B`.
    pub const fn new(a: A, b: B) -> Self {
        Product(a, b)
    }
}

/// Compile-time check `D == DA + DB` (evaluated when a method is monomorphised).
#[inline(always)]
fn check_dims<const D: usize, const DA: usize, const DB: usize>() {
    const { assert!(D == DA + DB, "Product<A, B, DA, DB> implements LieGroup<S, D> only for D = DA + DB") }
}

/// Split `x = (a, b)`.
#[inline]
fn split<S: Scalar, const D: usize, const DA: usize, const DB: usize>(
    x: &SVector<S, D>,
) -> (SVector<S, DA>, SVector<S, DB>) {
    check_dims::<D, DA, DB>();
    (x.fixed_rows::<DA>(0).into_owned(), x.fixed_rows::<DB>(DA).into_owned())
}

/// Join `(a, b)` into `x`.
#[inline]
fn join<S: Scalar, const D: usize, const DA: usize, const DB: usize>(
    a: &SVector<S, DA>,
    b: &SVector<S, DB>,
) -> SVector<S, D> {
    check_dims::<D, DA, DB>();
    let mut x = SVector::<S, D>::zeros();
    x.fixed_rows_mut::<DA>(0).copy_from(a);
    x.fixed_rows_mut::<DB>(DA).copy_from(b);
    x
}

/// `diag(a, b)`.
#[inline]
fn diag<S: Scalar, const D: usize, const DA: usize, const DB: usize>(
    a: &SMatrix<S, DA, DA>,
    b: &SMatrix<S, DB, DB>,
) -> SMatrix<S, D, D> {
    check_dims::<D, DA, DB>();
    let mut m = SMatrix::<S, D, D>::zeros();
    m.fixed_view_mut::<DA, DA>(0, 0).copy_from(a);
    m.fixed_view_mut::<DB, DB>(DA, DA).copy_from(b);
    m
}

impl<S, A, B, const DA: usize, const DB: usize, const D: usize> LieGroup<S, D> for Product<A, B, DA, DB>
where
    S: Scalar,
    A: LieGroup<S, DA>,
    B: LieGroup<S, DB>,
{
    type Element = (A::Element, B::Element);
    type Matrix = (A::Matrix, B::Matrix);

    /// `"A × B"`.
    fn name(&self) -> String {
        check_dims::<D, DA, DB>();
        format!("{} × {}", self.0.name(), self.1.name())
    }
    fn identity(&self) -> Self::Element {
        check_dims::<D, DA, DB>();
        (self.0.identity(), self.1.identity())
    }
    fn compose(&self, a: &Self::Element, b: &Self::Element) -> Self::Element {
        check_dims::<D, DA, DB>();
        (self.0.compose(&a.0, &b.0), self.1.compose(&a.1, &b.1))
    }
    fn inverse(&self, a: &Self::Element) -> Self::Element {
        check_dims::<D, DA, DB>();
        (self.0.inverse(&a.0), self.1.inverse(&a.1))
    }
    fn exp(&self, x: &SVector<S, D>) -> Self::Element {
        let (a, b) = split::<S, D, DA, DB>(x);
        (self.0.exp(&a), self.1.exp(&b))
    }
    fn log(&self, g: &Self::Element) -> Result<SVector<S, D>> {
        Ok(join::<S, D, DA, DB>(&self.0.log(&g.0)?, &self.1.log(&g.1)?))
    }
    fn hat(&self, x: &SVector<S, D>) -> Self::Matrix {
        let (a, b) = split::<S, D, DA, DB>(x);
        (self.0.hat(&a), self.1.hat(&b))
    }
    fn vee(&self, m: &Self::Matrix) -> SVector<S, D> {
        join::<S, D, DA, DB>(&self.0.vee(&m.0), &self.1.vee(&m.1))
    }
    fn to_matrix(&self, g: &Self::Element) -> Self::Matrix {
        check_dims::<D, DA, DB>();
        (self.0.to_matrix(&g.0), self.1.to_matrix(&g.1))
    }
    fn adjoint(&self, g: &Self::Element) -> SMatrix<S, D, D> {
        diag::<S, D, DA, DB>(&self.0.adjoint(&g.0), &self.1.adjoint(&g.1))
    }
    fn ad(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        let (a, b) = split::<S, D, DA, DB>(x);
        diag::<S, D, DA, DB>(&self.0.ad(&a), &self.1.ad(&b))
    }
    fn bracket(&self, x: &SVector<S, D>, y: &SVector<S, D>) -> SVector<S, D> {
        let (xa, xb) = split::<S, D, DA, DB>(x);
        let (ya, yb) = split::<S, D, DA, DB>(y);
        join::<S, D, DA, DB>(&self.0.bracket(&xa, &ya), &self.1.bracket(&xb, &yb))
    }
    fn coadjoint(&self, g: &Self::Element, mu: &SVector<S, D>) -> SVector<S, D> {
        let (ma, mb) = split::<S, D, DA, DB>(mu);
        join::<S, D, DA, DB>(&self.0.coadjoint(&g.0, &ma), &self.1.coadjoint(&g.1, &mb))
    }
    fn ad_star(&self, x: &SVector<S, D>, mu: &SVector<S, D>) -> SVector<S, D> {
        let (xa, xb) = split::<S, D, DA, DB>(x);
        let (ma, mb) = split::<S, D, DA, DB>(mu);
        join::<S, D, DA, DB>(&self.0.ad_star(&xa, &ma), &self.1.ad_star(&xb, &mb))
    }
    fn dexp(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        let (a, b) = split::<S, D, DA, DB>(x);
        diag::<S, D, DA, DB>(&self.0.dexp(&a), &self.1.dexp(&b))
    }
    fn dexp_inv(&self, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        let (a, b) = split::<S, D, DA, DB>(x);
        Ok(diag::<S, D, DA, DB>(&self.0.dexp_inv(&a)?, &self.1.dexp_inv(&b)?))
    }
    fn cayley(&self, x: &SVector<S, D>) -> Result<Self::Element> {
        let (a, b) = split::<S, D, DA, DB>(x);
        Ok((self.0.cayley(&a)?, self.1.cayley(&b)?))
    }
    fn cayley_inv(&self, g: &Self::Element) -> Result<SVector<S, D>> {
        Ok(join::<S, D, DA, DB>(&self.0.cayley_inv(&g.0)?, &self.1.cayley_inv(&g.1)?))
    }
    fn dcay(&self, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        let (a, b) = split::<S, D, DA, DB>(x);
        Ok(diag::<S, D, DA, DB>(&self.0.dcay(&a)?, &self.1.dcay(&b)?))
    }
    fn dcay_inv(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        let (a, b) = split::<S, D, DA, DB>(x);
        diag::<S, D, DA, DB>(&self.0.dcay_inv(&a), &self.1.dcay_inv(&b))
    }
    /// The sum of the factors' defects.
    fn defect(&self, g: &Self::Element) -> f64 {
        check_dims::<D, DA, DB>();
        self.0.defect(&g.0) + self.1.defect(&g.1)
    }
}

/// Generic checks of the [`LieGroup`] conventions shared by the unit tests of this directory
/// (all derivatives against exact forward-mode AD with `DualSVec64<D>`).
#[cfg(test)]
pub(crate) mod testkit {
    use crate::lie::series::dexp_inv_default;
    use crate::lie::{Chart, LieGroup, dexp_series};
    use nalgebra::{Const, SMatrix, SVector, U1};
    use num_dual::{DualSVec64, jacobian};

    /// The AD scalar of the checks.
    pub(crate) type Dv<const D: usize> = DualSVec64<D>;

    /// Real entries of an element (matrix, pair or array of them), for comparisons.
    pub(crate) trait Flat {
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
    pub(crate) fn dist<T: Flat>(a: &T, b: &T) -> f64 {
        let (a, b) = (a.flat(), b.flat());
        assert_eq!(a.len(), b.len());
        a.iter().zip(&b).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max)
    }

    /// Constant dual vector.
    pub(crate) fn lift<const D: usize, const M: usize>(x: &SVector<f64, M>) -> SVector<Dv<D>, M> {
        x.map(Dv::<D>::from_re)
    }

    /// `x` with derivative seeds `e_i` (the independent variables).
    pub(crate) fn seed<const D: usize>(x: &SVector<f64, D>) -> SVector<Dv<D>, D> {
        SVector::from_fn(|i, _| Dv::<D>::from_re(x[i]).derivative(i))
    }

    /// Real part of a dual matrix.
    pub(crate) fn re<const D: usize, const R: usize, const C: usize>(m: &SMatrix<Dv<D>, R, C>) -> SMatrix<f64, R, C> {
        m.map(|v| v.re)
    }

    /// `∂_j m` of a dual matrix.
    pub(crate) fn eps<const D: usize, const R: usize, const C: usize>(
        m: &SMatrix<Dv<D>, R, C>,
        j: usize,
    ) -> SMatrix<f64, R, C> {
        m.map(|v| v.eps.unwrap_generic(Const::<D>, U1)[j])
    }

    /// The `i`-th unit vector.
    pub(crate) fn basis<const D: usize>(i: usize) -> SVector<f64, D> {
        SVector::from_fn(|j, _| if i == j { 1.0 } else { 0.0 })
    }

    /// Reference matrix exponential (Taylor series with scaling and squaring).
    pub(crate) fn expm<const N: usize>(a: &SMatrix<f64, N, N>) -> SMatrix<f64, N, N> {
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

    fn close<const R: usize, const C: usize>(a: &SMatrix<f64, R, C>, b: &SMatrix<f64, R, C>, tol: f64, what: &str) {
        let err = (a - b).amax();
        assert!(err <= tol, "{what}: error {err:.3e} > {tol:.3e}\n{a}\n{b}");
    }

    /// Every convention of `crate::lie` that can be stated with group operations only, at each
    /// point of `xs` (which must lie where `log(exp x) = x`), with tolerance `tol` relative to the
    /// size of the quantities involved.
    pub(crate) fn check_group<G, const D: usize>(g: &G, xs: &[SVector<f64, D>], tol: f64)
    where
        G: LieGroup<f64, D> + LieGroup<Dv<D>, D>,
        <G as LieGroup<f64, D>>::Element: Flat,
    {
        let id = SMatrix::<f64, D, D>::identity();
        let name = f!(g, name);
        for (k, x) in xs.iter().enumerate() {
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
            close(
                &f!(g, adjoint, &f!(g, compose, &e, &ey)),
                &(ad_e * f!(g, adjoint, &ey)),
                t,
                &format!("{ctx}: Ad_gh"),
            );
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
            close(
                &f!(g, dtau_left, Chart::Exp, x).unwrap(),
                &f!(g, dexp, &(-x)),
                t,
                &format!("{ctx}: left-trivialized"),
            );

            // Cayley
            // (on GL(n), cay(x) exists and cay(-x) not when hat(x) has an eigenvalue -2)
            if let (Ok(c), Ok(cm)) = (f!(g, cayley, x), f!(g, cayley, &(-x))) {
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
        // derivatives at exactly 0: d/dx log(exp x) = I, and exp(0) = e
        let (v, j) = jacobian(|yy| d!(g, log, &d!(g, exp, &yy)).expect("log"), &SVector::<f64, D>::zeros());
        assert!(v.norm() == 0.0 && (j - id).amax() < 1e-15, "{name}: d log(exp x) at 0 = I");
        assert!(dist(&f!(g, exp, &SVector::zeros()), &f!(g, identity)) == 0.0, "{name}: exp(0) = e");
    }

    /// The checks that need the matrix representation (`Matrix = N × N` matrices): bracket =
    /// commutator of hats, `Ad_g y = vee(g hat(y) g^{-1})`, `exp = expm ∘ hat`,
    /// `(∂_j tau(x)) tau(x)^{-1} = hat(dtau_x e_j)` by AD (columns of dexp, dcay), at `x = 0`
    /// `∂_j exp = hat(e_j)`, and the Cayley and `dcay^{-1}` matrix formulas.
    pub(crate) fn check_matrix_group<G, const D: usize, const N: usize>(g: &G, xs: &[SVector<f64, D>], tol: f64)
    where
        G: LieGroup<f64, D, Matrix = SMatrix<f64, N, N>> + LieGroup<Dv<D>, D, Matrix = SMatrix<Dv<D>, N, N>>,
    {
        let name = f!(g, name);
        let i_n = SMatrix::<f64, N, N>::identity();
        for (k, x) in xs.iter().enumerate() {
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
            let md = d!(g, to_matrix, &d!(g, exp, &super::testkit::seed(x)));
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
                let mcd = d!(g, to_matrix, &d!(g, cayley, &super::testkit::seed(x)).unwrap());
                let dcay = f!(g, dcay, x).expect("dcay");
                for j in 0..D {
                    let col = f!(g, vee, &(eps(&mcd, j) * mc_inv));
                    close(&col, &dcay.column(j).into_owned(), t, &format!("{ctx}: dcay column {j} (matrix AD)"));
                }
            }
            let want = hy - (hx * hy - hy * hx) * 0.5 - hx * hy * hx * 0.25;
            close(&f!(g, hat, &(f!(g, dcay_inv, x) * y)), &want, t, &format!("{ctx}: dcay^-1 matrix formula"));
        }
        let md = d!(g, to_matrix, &d!(g, exp, &super::testkit::seed(&SVector::<f64, D>::zeros())));
        for j in 0..D {
            close(&eps(&md, j), &f!(g, hat, &basis::<D>(j)), 1e-15, &format!("{name}: ∂_{j} exp at 0 = hat(e_{j})"));
        }
        close(&re(&md), &i_n, 0.0, &format!("{name}: exp(0) = I"));
    }
}

#[cfg(test)]
mod tests {
    use super::testkit::check_group;
    use super::*;
    use crate::lie::{Se3, So2};
    use nalgebra::{Vector3, Vector6};

    fn points<const D: usize>() -> Vec<SVector<f64, D>> {
        let dir = SVector::<f64, D>::from_fn(|i, _| 1.0 + 0.37 * i as f64).normalize();
        let dir2 = SVector::<f64, D>::from_fn(|i, _| ((i * 7 + 3) % 5) as f64 - 2.1).normalize();
        vec![SVector::zeros(), dir * 1e-9, dir2 * 1e-4, dir * 0.3, dir2 * 1.1, dir * 2.0, dir2 * 2.5]
    }

    #[test]
    fn so3_x_r3() {
        check_group::<So3xR3, 6>(&So3xR3::new(So3, Rn::<3>), &points::<6>(), 1e-12);
    }

    #[test]
    fn nested_products() {
        // (SO(2) × SE(3)) × R^2
        type Inner = Product<So2, Se3, 1, 6>;
        let g = Product::<Inner, Rn<2>, 7, 2>(Product(So2, Se3), Rn::<2>);
        check_group::<_, 9>(&g, &points::<9>(), 1e-12);
        assert_eq!(LieGroup::<f64, 9>::name(&g), "SO(2) × SE(3) × R^2");
    }

    #[test]
    fn derivative_of_exp_at_zero_is_hat_in_the_pair_representation() {
        use super::testkit::{Dv, basis, eps, seed};
        let g = So3xR3::default();
        let (r, p) = LieGroup::<Dv<6>, 6>::to_matrix(&g, &LieGroup::<Dv<6>, 6>::exp(&g, &seed(&SVector::zeros())));
        for j in 0..6 {
            let (hr, hp) = LieGroup::<f64, 6>::hat(&g, &basis::<6>(j));
            assert_eq!(eps(&r, j), hr, "rotation block, column {j}");
            assert_eq!(eps(&p, j), hp, "translation block, column {j}");
        }
        // and at x != 0, blockwise: (∂_j R) Rᵀ = hat(dexp e_j) on the SO(3) block, ∂_j p = e_j on R^3
        let x = Vector6::new(0.7, -1.2, 0.4, 1.0, 2.0, -3.0);
        let (r, p) = LieGroup::<Dv<6>, 6>::exp(&g, &seed(&x));
        let dexp = LieGroup::<f64, 6>::dexp(&g, &x);
        let r0 = r.map(|v| v.re);
        for j in 0..6 {
            let (hr, hp) = LieGroup::<f64, 6>::hat(&g, &dexp.column(j).into_owned());
            assert!((eps(&r, j) * r0.transpose() - hr).norm() < 1e-14, "rotation block, column {j}");
            assert!((eps(&p, j) - hp).norm() < 1e-14, "translation block, column {j}");
        }
    }

    #[test]
    fn blocks_are_factorwise() {
        let g = So3xR3::default();
        let x = Vector6::new(0.3, -0.4, 1.1, 1.0, -2.0, 0.5);
        let w = Vector3::new(0.3, -0.4, 1.1);
        let dexp = LieGroup::<f64, 6>::dexp(&g, &x);
        assert!((dexp.fixed_view::<3, 3>(0, 0) - crate::lie::so3::dexp(&w)).norm() < 1e-15);
        assert!((dexp.fixed_view::<3, 3>(3, 3) - nalgebra::Matrix3::identity()).norm() == 0.0);
        assert!(dexp.fixed_view::<3, 3>(0, 3).norm() == 0.0 && dexp.fixed_view::<3, 3>(3, 0).norm() == 0.0);
        // errors propagate from a factor: inverse Cayley at rotation angle pi
        let r = crate::lie::so3::exp(&Vector3::new(core::f64::consts::PI, 0.0, 0.0));
        assert!(LieGroup::<f64, 6>::cayley_inv(&g, &(r, Vector3::zeros())).is_err());
        // checked elements
        assert!(LieGroup::<f64, 6>::check_element(&g, &(r, Vector3::zeros()), 1e-9).is_ok());
        let bad = (nalgebra::Matrix3::identity() * 2.0, Vector3::zeros());
        assert!(LieGroup::<f64, 6>::check_element(&g, &bad, 1e-9).is_err());
        let nan = (r, Vector3::new(f64::NAN, 0.0, 0.0));
        assert!(LieGroup::<f64, 6>::check_element(&g, &nan, 1e-9).is_err());
    }
}
