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
pub(super) fn split<S: Scalar, const D: usize, const DA: usize, const DB: usize>(
    x: &SVector<S, D>,
) -> (SVector<S, DA>, SVector<S, DB>) {
    check_dims::<D, DA, DB>();
    (x.fixed_rows::<DA>(0).into_owned(), x.fixed_rows::<DB>(DA).into_owned())
}

/// Join `(a, b)` into `x`.
#[inline]
pub(super) fn join<S: Scalar, const D: usize, const DA: usize, const DB: usize>(
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
pub(super) fn diag<S: Scalar, const D: usize, const DA: usize, const DB: usize>(
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
    #[inline]
    fn identity(&self) -> Self::Element {
        check_dims::<D, DA, DB>();
        (self.0.identity(), self.1.identity())
    }
    #[inline(always)]
    fn compose(&self, a: &Self::Element, b: &Self::Element) -> Self::Element {
        check_dims::<D, DA, DB>();
        (self.0.compose(&a.0, &b.0), self.1.compose(&a.1, &b.1))
    }
    #[inline]
    fn inverse(&self, a: &Self::Element) -> Self::Element {
        check_dims::<D, DA, DB>();
        (self.0.inverse(&a.0), self.1.inverse(&a.1))
    }
    #[inline(always)]
    fn exp(&self, x: &SVector<S, D>) -> Self::Element {
        let (a, b) = split::<S, D, DA, DB>(x);
        (self.0.exp(&a), self.1.exp(&b))
    }
    #[inline]
    fn log(&self, g: &Self::Element) -> Result<SVector<S, D>> {
        Ok(join::<S, D, DA, DB>(&self.0.log(&g.0)?, &self.1.log(&g.1)?))
    }
    #[inline]
    fn hat(&self, x: &SVector<S, D>) -> Self::Matrix {
        let (a, b) = split::<S, D, DA, DB>(x);
        (self.0.hat(&a), self.1.hat(&b))
    }
    #[inline]
    fn vee(&self, m: &Self::Matrix) -> SVector<S, D> {
        join::<S, D, DA, DB>(&self.0.vee(&m.0), &self.1.vee(&m.1))
    }
    #[inline]
    fn to_matrix(&self, g: &Self::Element) -> Self::Matrix {
        check_dims::<D, DA, DB>();
        (self.0.to_matrix(&g.0), self.1.to_matrix(&g.1))
    }
    #[inline]
    fn adjoint(&self, g: &Self::Element) -> SMatrix<S, D, D> {
        diag::<S, D, DA, DB>(&self.0.adjoint(&g.0), &self.1.adjoint(&g.1))
    }
    #[inline]
    fn ad(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        let (a, b) = split::<S, D, DA, DB>(x);
        diag::<S, D, DA, DB>(&self.0.ad(&a), &self.1.ad(&b))
    }
    #[inline]
    fn bracket(&self, x: &SVector<S, D>, y: &SVector<S, D>) -> SVector<S, D> {
        let (xa, xb) = split::<S, D, DA, DB>(x);
        let (ya, yb) = split::<S, D, DA, DB>(y);
        join::<S, D, DA, DB>(&self.0.bracket(&xa, &ya), &self.1.bracket(&xb, &yb))
    }
    #[inline]
    fn coadjoint(&self, g: &Self::Element, mu: &SVector<S, D>) -> SVector<S, D> {
        let (ma, mb) = split::<S, D, DA, DB>(mu);
        join::<S, D, DA, DB>(&self.0.coadjoint(&g.0, &ma), &self.1.coadjoint(&g.1, &mb))
    }
    #[inline]
    fn ad_star(&self, x: &SVector<S, D>, mu: &SVector<S, D>) -> SVector<S, D> {
        let (xa, xb) = split::<S, D, DA, DB>(x);
        let (ma, mb) = split::<S, D, DA, DB>(mu);
        join::<S, D, DA, DB>(&self.0.ad_star(&xa, &ma), &self.1.ad_star(&xb, &mb))
    }
    #[inline]
    fn dexp(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        let (a, b) = split::<S, D, DA, DB>(x);
        diag::<S, D, DA, DB>(&self.0.dexp(&a), &self.1.dexp(&b))
    }
    #[inline]
    fn dexp_inv(&self, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        let (a, b) = split::<S, D, DA, DB>(x);
        Ok(diag::<S, D, DA, DB>(&self.0.dexp_inv(&a)?, &self.1.dexp_inv(&b)?))
    }
    #[inline]
    fn cayley(&self, x: &SVector<S, D>) -> Result<Self::Element> {
        let (a, b) = split::<S, D, DA, DB>(x);
        Ok((self.0.cayley(&a)?, self.1.cayley(&b)?))
    }
    #[inline]
    fn cayley_inv(&self, g: &Self::Element) -> Result<SVector<S, D>> {
        Ok(join::<S, D, DA, DB>(&self.0.cayley_inv(&g.0)?, &self.1.cayley_inv(&g.1)?))
    }
    #[inline]
    fn dcay(&self, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        let (a, b) = split::<S, D, DA, DB>(x);
        Ok(diag::<S, D, DA, DB>(&self.0.dcay(&a)?, &self.1.dcay(&b)?))
    }
    #[inline]
    fn dcay_inv(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        let (a, b) = split::<S, D, DA, DB>(x);
        diag::<S, D, DA, DB>(&self.0.dcay_inv(&a), &self.1.dcay_inv(&b))
    }
    /// The sum of the factors' defects.
    fn defect(&self, g: &Self::Element) -> f64 {
        check_dims::<D, DA, DB>();
        self.0.defect(&g.0) + self.1.defect(&g.1)
    }
    /// Both factors.
    #[inline]
    fn is_finite(&self, g: &Self::Element) -> bool {
        self.0.is_finite(&g.0) && self.1.is_finite(&g.1)
    }
}

/// Generic checks of the [`LieGroup`] conventions shared by the unit tests of this directory
/// (all derivatives against exact forward-mode AD with `DualSVec64<D>`).
#[cfg(test)]
mod tests {
    use super::super::testing::check_group;
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
        use super::super::testing::{Dv, basis, eps, seed};
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
