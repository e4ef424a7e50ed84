//! The direct power `G^K = G × ... × G` (`K` factors), e.g. `SO(3)^N` for `N` rigid bodies.
//!
//! Algebra coordinates `x = (x_0, ..., x_{K-1})`, `x_k ∈ R^{DG}` stacked (factor `k` in rows
//! `k DG .. (k+1) DG`); elements and matrices are arrays `[g_0, ..., g_{K-1}]`, and every map acts
//! factorwise: `exp(x) = [exp_G x_k]_k`, `[x, y] = ([x_k, y_k])_k`, and `Ad`, `ad`, `dexp`,
//! `dexp^{-1}`, `dcay`, `dcay^{-1}` are block diagonal, `Ad_g = diag(Ad_{g_0}, ..., Ad_{g_{K-1}})`.
//! The dimension `D` of the [`LieGroup`] impl must equal `K · DG`; this is checked at compile time
//! (monomorphisation).

use super::LieGroup;
use crate::{Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// The direct power `G^K` of a `DG`-dimensional group `G`, a group of dimension `D = K · DG` with
/// elements `[g_0, ..., g_{K-1}]` (see the module documentation).
///
/// ```
/// use geom_core::lie::{LieGroup, Power, So3};
/// use nalgebra::SVector;
/// // three rigid bodies
/// let g = Power::<So3, 3, 3>::new(So3);
/// let x = SVector::<f64, 9>::from_fn(|i, _| 0.1 * i as f64);
/// let rs = LieGroup::<f64, 9>::exp(&g, &x);
/// assert!((rs[2] - geom_core::lie::so3::exp(&x.fixed_rows::<3>(6).into_owned())).norm() < 1e-15);
/// let back = LieGroup::<f64, 9>::log(&g, &rs).unwrap();
/// assert!((back - x).norm() < 1e-14);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Power<G, const DG: usize, const K: usize>(pub G);

impl<G, const DG: usize, const K: usize> Power<G, DG, K> {
    /// The power group `G^K`.
    pub const fn new(g: G) -> Self {
        Power(g)
    }
}

/// Compile-time check `D == K · DG` (evaluated when a method is monomorphised).
#[inline(always)]
fn check_dims<const D: usize, const DG: usize, const K: usize>() {
    const { assert!(D == K * DG, "Power<G, DG, K> implements LieGroup<S, D> only for D = K * DG") }
}

/// Factor `k` of `x`.
#[inline]
fn part<S: Scalar, const D: usize, const DG: usize, const K: usize>(x: &SVector<S, D>, k: usize) -> SVector<S, DG> {
    check_dims::<D, DG, K>();
    x.fixed_rows::<DG>(k * DG).into_owned()
}

/// Stack `K` factors `f(k)`.
#[inline]
fn stack<S: Scalar, const D: usize, const DG: usize, const K: usize>(
    mut f: impl FnMut(usize) -> SVector<S, DG>,
) -> SVector<S, D> {
    check_dims::<D, DG, K>();
    let mut x = SVector::<S, D>::zeros();
    for k in 0..K {
        x.fixed_rows_mut::<DG>(k * DG).copy_from(&f(k));
    }
    x
}

/// Stack `K` fallible factors `f(k)`, the first error wins.
#[inline]
fn try_stack<S: Scalar, const D: usize, const DG: usize, const K: usize>(
    mut f: impl FnMut(usize) -> Result<SVector<S, DG>>,
) -> Result<SVector<S, D>> {
    check_dims::<D, DG, K>();
    let mut x = SVector::<S, D>::zeros();
    for k in 0..K {
        x.fixed_rows_mut::<DG>(k * DG).copy_from(&f(k)?);
    }
    Ok(x)
}

/// Block-diagonal matrix with blocks `f(k)`.
#[inline]
fn diag<S: Scalar, const D: usize, const DG: usize, const K: usize>(
    mut f: impl FnMut(usize) -> SMatrix<S, DG, DG>,
) -> SMatrix<S, D, D> {
    check_dims::<D, DG, K>();
    let mut m = SMatrix::<S, D, D>::zeros();
    for k in 0..K {
        m.fixed_view_mut::<DG, DG>(k * DG, k * DG).copy_from(&f(k));
    }
    m
}

/// Block-diagonal matrix with fallible blocks `f(k)`, the first error wins.
#[inline]
fn try_diag<S: Scalar, const D: usize, const DG: usize, const K: usize>(
    mut f: impl FnMut(usize) -> Result<SMatrix<S, DG, DG>>,
) -> Result<SMatrix<S, D, D>> {
    check_dims::<D, DG, K>();
    let mut m = SMatrix::<S, D, D>::zeros();
    for k in 0..K {
        m.fixed_view_mut::<DG, DG>(k * DG, k * DG).copy_from(&f(k)?);
    }
    Ok(m)
}

/// `[f(0)?, ..., f(K-1)?]` without allocation: the first error wins.
fn try_array<T, const K: usize>(mut f: impl FnMut(usize) -> Result<T>) -> Result<[T; K]> {
    let mut err = None;
    let out: [Option<T>; K] = core::array::from_fn(|k| {
        if err.is_some() {
            return None;
        }
        match f(k) {
            Ok(v) => Some(v),
            Err(e) => {
                err = Some(e);
                None
            }
        }
    });
    match err {
        Some(e) => Err(e),
        // every entry is Some when no error occurred
        None => Ok(out.map(|v| v.expect("set when no error occurred"))),
    }
}

impl<S, G, const DG: usize, const K: usize, const D: usize> LieGroup<S, D> for Power<G, DG, K>
where
    S: Scalar,
    G: LieGroup<S, DG>,
{
    type Element = [G::Element; K];
    type Matrix = [G::Matrix; K];

    /// `"(G)^K"`.
    fn name(&self) -> String {
        check_dims::<D, DG, K>();
        format!("({})^{K}", self.0.name())
    }
    fn identity(&self) -> Self::Element {
        check_dims::<D, DG, K>();
        core::array::from_fn(|_| self.0.identity())
    }
    fn compose(&self, a: &Self::Element, b: &Self::Element) -> Self::Element {
        check_dims::<D, DG, K>();
        core::array::from_fn(|k| self.0.compose(&a[k], &b[k]))
    }
    fn inverse(&self, a: &Self::Element) -> Self::Element {
        check_dims::<D, DG, K>();
        core::array::from_fn(|k| self.0.inverse(&a[k]))
    }
    fn exp(&self, x: &SVector<S, D>) -> Self::Element {
        core::array::from_fn(|k| self.0.exp(&part::<S, D, DG, K>(x, k)))
    }
    fn log(&self, g: &Self::Element) -> Result<SVector<S, D>> {
        try_stack::<S, D, DG, K>(|k| self.0.log(&g[k]))
    }
    fn hat(&self, x: &SVector<S, D>) -> Self::Matrix {
        core::array::from_fn(|k| self.0.hat(&part::<S, D, DG, K>(x, k)))
    }
    fn vee(&self, m: &Self::Matrix) -> SVector<S, D> {
        stack::<S, D, DG, K>(|k| self.0.vee(&m[k]))
    }
    fn to_matrix(&self, g: &Self::Element) -> Self::Matrix {
        check_dims::<D, DG, K>();
        core::array::from_fn(|k| self.0.to_matrix(&g[k]))
    }
    fn adjoint(&self, g: &Self::Element) -> SMatrix<S, D, D> {
        diag::<S, D, DG, K>(|k| self.0.adjoint(&g[k]))
    }
    fn ad(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        diag::<S, D, DG, K>(|k| self.0.ad(&part::<S, D, DG, K>(x, k)))
    }
    fn bracket(&self, x: &SVector<S, D>, y: &SVector<S, D>) -> SVector<S, D> {
        stack::<S, D, DG, K>(|k| self.0.bracket(&part::<S, D, DG, K>(x, k), &part::<S, D, DG, K>(y, k)))
    }
    fn coadjoint(&self, g: &Self::Element, mu: &SVector<S, D>) -> SVector<S, D> {
        stack::<S, D, DG, K>(|k| self.0.coadjoint(&g[k], &part::<S, D, DG, K>(mu, k)))
    }
    fn ad_star(&self, x: &SVector<S, D>, mu: &SVector<S, D>) -> SVector<S, D> {
        stack::<S, D, DG, K>(|k| self.0.ad_star(&part::<S, D, DG, K>(x, k), &part::<S, D, DG, K>(mu, k)))
    }
    fn dexp(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        diag::<S, D, DG, K>(|k| self.0.dexp(&part::<S, D, DG, K>(x, k)))
    }
    fn dexp_inv(&self, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        try_diag::<S, D, DG, K>(|k| self.0.dexp_inv(&part::<S, D, DG, K>(x, k)))
    }
    fn cayley(&self, x: &SVector<S, D>) -> Result<Self::Element> {
        check_dims::<D, DG, K>();
        try_array(|k| self.0.cayley(&part::<S, D, DG, K>(x, k)))
    }
    fn cayley_inv(&self, g: &Self::Element) -> Result<SVector<S, D>> {
        try_stack::<S, D, DG, K>(|k| self.0.cayley_inv(&g[k]))
    }
    fn dcay(&self, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        try_diag::<S, D, DG, K>(|k| self.0.dcay(&part::<S, D, DG, K>(x, k)))
    }
    fn dcay_inv(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        diag::<S, D, DG, K>(|k| self.0.dcay_inv(&part::<S, D, DG, K>(x, k)))
    }
    /// The sum of the factors' defects.
    fn defect(&self, g: &Self::Element) -> f64 {
        check_dims::<D, DG, K>();
        g.iter().map(|gk| self.0.defect(gk)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_group, check_matrix_group};
    use super::*;
    use crate::lie::{Product, Rn, Se2, So2, So3};
    use nalgebra::Vector3;

    fn points<const D: usize>() -> Vec<SVector<f64, D>> {
        let dir = SVector::<f64, D>::from_fn(|i, _| 1.0 + 0.37 * i as f64).normalize();
        let dir2 = SVector::<f64, D>::from_fn(|i, _| ((i * 7 + 3) % 5) as f64 - 2.1).normalize();
        vec![SVector::zeros(), dir * 1e-9, dir2 * 1e-4, dir * 0.3, dir2 * 1.1, dir * 2.0, dir2 * 2.5]
    }

    #[test]
    fn so3_cubed() {
        check_group::<_, 9>(&Power::<So3, 3, 3>(So3), &points::<9>(), 1e-12);
    }

    #[test]
    fn power_of_products_and_trivial_powers() {
        // (SO(3) × R^3)^2, SE(2)^2, SO(2)^1
        let g = Power::<Product<So3, Rn<3>, 3, 3>, 6, 2>(Product(So3, Rn::<3>));
        check_group::<_, 12>(&g, &points::<12>(), 1e-12);
        check_group::<_, 6>(&Power::<Se2, 3, 2>(Se2), &points::<6>(), 1e-12);
        check_group::<_, 1>(&Power::<So2, 1, 1>(So2), &points::<1>(), 1e-12);
        assert_eq!(LieGroup::<f64, 12>::name(&g), "(SO(3) × R^3)^2");
    }

    #[test]
    fn single_factor_matches_the_factor_and_testkit_accepts_so3() {
        let x = SVector::<f64, 3>::new(0.4, -1.0, 0.2);
        let p = Power::<So3, 3, 1>(So3);
        let r = LieGroup::<f64, 3>::exp(&p, &x);
        assert!((r[0] - crate::lie::so3::exp(&x)).norm() < 1e-15);
        // the shared checks accept the reference implementation SO(3)
        check_matrix_group::<So3, 3, 3>(&So3, &points::<3>(), 1e-12);
        check_group::<So3, 3>(&So3, &points::<3>(), 1e-12);
    }

    #[test]
    fn derivative_of_exp_at_zero_is_hat_blockwise() {
        use super::super::testing::{Dv, basis, eps, seed};
        let g = Power::<So3, 3, 3>(So3);
        let ms = LieGroup::<Dv<9>, 9>::to_matrix(&g, &LieGroup::<Dv<9>, 9>::exp(&g, &seed(&SVector::zeros())));
        for j in 0..9 {
            let hs = LieGroup::<f64, 9>::hat(&g, &basis::<9>(j));
            for k in 0..3 {
                assert_eq!(eps(&ms[k], j), hs[k], "block {k}, column {j}");
            }
        }
    }

    #[test]
    fn errors_propagate() {
        let p = Power::<So3, 3, 2>(So3);
        let r = crate::lie::so3::exp(&Vector3::new(0.0, core::f64::consts::PI, 0.0));
        let g = [nalgebra::Matrix3::identity(), r];
        assert!(LieGroup::<f64, 6>::cayley_inv(&p, &g).is_err());
        assert!(
            LieGroup::<f64, 6>::dexp_inv(
                &p,
                &SVector::<f64, 6>::from_fn(|i, _| if i == 3 { 2.0 * core::f64::consts::PI } else { 0.0 })
            )
            .is_err()
        );
        assert!(LieGroup::<f64, 6>::check_element(&p, &g, 1e-9).is_ok());
        assert!(LieGroup::<f64, 6>::check_element(&p, &[r, r * 1.1], 1e-9).is_err());
        // a failing Cayley factor (GL(2) with an eigenvalue 2 of X) propagates
        let gl = Power::<crate::lie::Gl<2, 4>, 4, 2>(crate::lie::Gl::<2, 4>);
        let x = SVector::<f64, 8>::from_fn(|i, _| if i == 4 || i == 7 { 2.0 } else { 0.0 });
        assert!(LieGroup::<f64, 8>::cayley(&gl, &x).is_err());
    }
}
