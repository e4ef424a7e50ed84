//! [`LieGroupFamily`]: a group's element type **at every scalar**, named once.
//!
//! [`LieGroup<S, D>`](LieGroup) is implemented per scalar `S`, so generic code holding `G` can
//! name `<G as LieGroup<S, D>>::Element` for one `S` at a time but not the family
//! `S ↦ Element<S>` that a discrete Lagrangian written once over the scalar needs (the groupoid
//! layer's `GroupoidFamily`). This trait names it, with a generic associated type, so that every
//! layer above (the groupoids over a group, pairs of groups, action groupoids, trivial Atiyah
//! groupoids) is generic over any group, a user's included:
//!
//! ```
//! use geom_core::lie::{LieGroup, LieGroupFamily, So3};
//! use geom_core::Scalar;
//! // the element of SO(3) at every scalar is a 3 × 3 matrix
//! fn identity_at<S: Scalar>() -> <So3 as LieGroupFamily<3>>::ElementAt<S>
//! where
//!     So3: LieGroup<S, 3, Element = <So3 as LieGroupFamily<3>>::ElementAt<S>>,
//! {
//!     LieGroup::<S, 3>::identity(&So3)
//! }
//! assert_eq!(identity_at::<f64>(), nalgebra::Matrix3::identity());
//! ```
//!
//! A user's group implements it with two lines, `type ElementAt<S: Scalar> = Matrix2<S>;` and
//! `fn lift_at<S: Scalar>(&self, g: &Matrix2<f64>) -> Matrix2<S> { g.map(S::from) }`, next to its
//! `impl<S: Scalar> LieGroup<S, D>`. The contract
//! (checked wherever a layer uses it, by a `where` bound
//! `G: LieGroup<S, D, Element = G::ElementAt<S>>`) is that `ElementAt<S>` is the `Element` of
//! `LieGroup<S, D>` for every scalar the group is implemented at.

use super::{Gl, LieGroup, Linear, MatrixGroup, Power, Product, Rn, Se2, Se3, So2, So3, Su2};
use crate::Scalar;
use core::fmt;
use nalgebra::{Matrix2, Matrix3, Matrix4, SMatrix, SVector, Vector4};
use num_dual::{Dual64, HyperDual64};

/// The element type of a `D`-dimensional Lie group at every scalar (module documentation).
pub trait LieGroupFamily<const D: usize>: LieGroup<f64, D> {
    /// `<Self as LieGroup<S, D>>::Element`.
    type ElementAt<S: Scalar>: Clone + fmt::Debug + Send + Sync;
    /// `g` at the scalar `S` (same value, zero derivative parts); `g.map(S::from)` for a matrix.
    fn lift_at<S: Scalar>(&self, g: &Self::ElementAt<f64>) -> Self::ElementAt<S>;
    /// The conditioning `κ(g) >= 1` of `g` for the group's arithmetic: the factor by which the
    /// round-off of `g^{-1} h` (for `h` near `g`), read in algebra coordinates, exceeds the unit
    /// round-off. Solvers whose equations compare nearby elements stored absolutely (the pair
    /// groupoid `G × G`) scale their round-off floor by it. `1` by default, right for groups of
    /// bounded elements (SO(n), SU(2)); matrix groups (GL(n), [`super::Linear`]) give
    /// `‖g‖_∞ ‖g^{-1}‖_∞` (max row sums, `+inf` if singular), `R^n` and the rigid motions
    /// `1 + |t|_∞` (`t` the translation), products and powers the largest of their factors'.
    fn condition(&self, g: &Self::ElementAt<f64>) -> f64 {
        let _ = g;
        1.0
    }
    /// The first-order jet of a translated curve through `g` along `x ∈ g`, as an element at
    /// [`Dual64`] (`ε² = 0`): `g · τ(εx) = g + ε g x̂` (`side = Left`) or
    /// `τ(εx) · g = g + ε x̂ g` (`Right`), the same for every chart `τ` (`τ(0) = e`,
    /// `dτ_0 = Id`). A directional derivative of `f` along the left-invariant field `g x̂` is
    /// then `f(jet).eps`, without evaluating the chart or the group product at dual numbers.
    ///
    /// `None` (the default) where the group gives no closed form: callers then evaluate
    /// `compose(g, τ(εx))` at `Dual64`, which is the same jet. Matrix groups, `R^n` and products
    /// and powers of groups that have it give it.
    fn translation_jet(
        &self,
        g: &Self::ElementAt<f64>,
        x: &SVector<f64, D>,
        side: Side,
    ) -> Option<Self::ElementAt<Dual64>> {
        let _ = (g, x, side);
        None
    }
    /// The same jet one derivative up: `g = g₀ + δ g₁` given at [`Dual64`], the jet at
    /// [`HyperDual64`] with `ε₁ = δ` and `ε₂ = ε`: `g + ε g x̂` (`Left`) or `g + ε x̂ g` (`Right`),
    /// whose `ε₁ε₂` part is `g₁ x̂` (or `x̂ g₁`). A mixed second derivative of `f` along a curve
    /// `δ ↦ g(δ)` and a translation is then `f(jet).eps1eps2` (the terms of second order in `ε`
    /// alone do not enter it). `None` by default, as [`Self::translation_jet`]; matrix groups,
    /// `R^n` and products give it (powers of groups do not yet).
    fn translation_jet_dual(
        &self,
        g: &Self::ElementAt<Dual64>,
        x: &SVector<f64, D>,
        side: Side,
    ) -> Option<Self::ElementAt<HyperDual64>> {
        let _ = (g, x, side);
        None
    }
}

/// Which side a translation acts on: `Left` is `g · h`, `Right` is `h · g` (for
/// [`LieGroupFamily::translation_jet`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// `g · τ(εx)`: the velocity `g x̂` of a left-invariant field.
    Left,
    /// `τ(εx) · g`: the velocity `x̂ g` of a right-invariant field.
    Right,
}

/// `g + ε t` entry by entry.
#[inline]
fn matrix_jet<const N: usize>(g: &SMatrix<f64, N, N>, t: &SMatrix<f64, N, N>) -> SMatrix<Dual64, N, N> {
    g.zip_map(t, Dual64::new)
}

/// The jet of [`LieGroupFamily::translation_jet_dual`] for a matrix group: entries
/// `(g₀, g₁, g₀x̂, g₁x̂)` (left) or `(g₀, g₁, x̂g₀, x̂g₁)` (right).
#[inline]
fn matrix_translation_jet_dual<const N: usize>(
    g: &SMatrix<Dual64, N, N>,
    hat: &SMatrix<f64, N, N>,
    side: Side,
) -> SMatrix<HyperDual64, N, N> {
    let (g0, g1) = (g.map(|v| v.re), g.map(|v| v.eps));
    let (t0, t1) = match side {
        Side::Left => (g0 * hat, g1 * hat),
        Side::Right => (hat * g0, hat * g1),
    };
    SMatrix::from_fn(|i, j| HyperDual64::new(g0[(i, j)], g1[(i, j)], t0[(i, j)], t1[(i, j)]))
}

/// The jet `g + ε (g x̂ or x̂ g)` of a matrix group whose elements and algebra are `N × N`
/// matrices.
#[inline]
fn matrix_translation_jet<const N: usize>(
    g: &SMatrix<f64, N, N>,
    hat: &SMatrix<f64, N, N>,
    side: Side,
) -> SMatrix<Dual64, N, N> {
    match side {
        Side::Left => matrix_jet(g, &(g * hat)),
        Side::Right => matrix_jet(g, &(hat * g)),
    }
}

/// `1 + |t|_∞` for a homogeneous matrix of a rigid motion (`t` the last column above the corner).
fn translation_condition<const N: usize>(g: &SMatrix<f64, N, N>) -> f64 {
    1.0 + (0..N - 1).map(|i| g[(i, N - 1)].abs()).fold(0.0, f64::max)
}

macro_rules! matrix_family {
    ($($group:ty => $d:literal, $elem:ident, $condition:expr;)*) => {$(
        impl LieGroupFamily<$d> for $group {
            type ElementAt<S: Scalar> = $elem<S>;
            fn lift_at<S: Scalar>(&self, g: &$elem<f64>) -> $elem<S> {
                g.map(S::from)
            }
            fn condition(&self, g: &$elem<f64>) -> f64 {
                let condition: fn(&$elem<f64>) -> f64 = $condition;
                condition(g)
            }
            #[inline]
            fn translation_jet(&self, g: &$elem<f64>, x: &SVector<f64, $d>, side: Side) -> Option<$elem<Dual64>> {
                Some(matrix_translation_jet(g, &LieGroup::<f64, $d>::hat(self, x), side))
            }
            #[inline]
            fn translation_jet_dual(&self, g: &$elem<Dual64>, x: &SVector<f64, $d>, side: Side) -> Option<$elem<HyperDual64>> {
                Some(matrix_translation_jet_dual(g, &LieGroup::<f64, $d>::hat(self, x), side))
            }
        }
    )*};
}
matrix_family! {
    So2 => 1, Matrix2, |_| 1.0;
    So3 => 3, Matrix3, |_| 1.0;
    Se2 => 3, Matrix3, translation_condition;
    Se3 => 6, Matrix4, translation_condition;
}

/// SU(2) as unit quaternions: no closed-form jet (the default, through the chart at `Dual64`).
impl LieGroupFamily<3> for Su2 {
    type ElementAt<S: Scalar> = Vector4<S>;
    fn lift_at<S: Scalar>(&self, g: &Vector4<f64>) -> Vector4<S> {
        g.map(S::from)
    }
}

impl<const N: usize> LieGroupFamily<N> for Rn<N> {
    type ElementAt<S: Scalar> = SVector<S, N>;
    fn lift_at<S: Scalar>(&self, g: &SVector<f64, N>) -> SVector<S, N> {
        g.map(S::from)
    }
    /// `1 + |g|_∞`: `h - g` loses `ε |g|`.
    fn condition(&self, g: &SVector<f64, N>) -> f64 {
        1.0 + g.amax()
    }
    /// `g + εx` on either side (the group is additive).
    #[inline]
    fn translation_jet(&self, g: &SVector<f64, N>, x: &SVector<f64, N>, _: Side) -> Option<SVector<Dual64, N>> {
        Some(g.zip_map(x, Dual64::new))
    }
    /// `g + εx` at `HyperDual64`: entries `(g₀, g₁, x, 0)`.
    #[inline]
    fn translation_jet_dual(
        &self,
        g: &SVector<Dual64, N>,
        x: &SVector<f64, N>,
        _: Side,
    ) -> Option<SVector<HyperDual64, N>> {
        Some(g.zip_map(x, |v, d| HyperDual64::new(v.re, v.eps, d, 0.0)))
    }
}

impl<const N: usize, const D: usize> LieGroupFamily<D> for Gl<N, D> {
    type ElementAt<S: Scalar> = SMatrix<S, N, N>;
    fn lift_at<S: Scalar>(&self, g: &SMatrix<f64, N, N>) -> SMatrix<S, N, N> {
        g.map(S::from)
    }
    /// `‖g‖_∞ ‖g^{-1}‖_∞`.
    fn condition(&self, g: &SMatrix<f64, N, N>) -> f64 {
        super::matrix_group::condition(g)
    }
    #[inline]
    fn translation_jet(
        &self,
        g: &SMatrix<f64, N, N>,
        x: &SVector<f64, D>,
        side: Side,
    ) -> Option<SMatrix<Dual64, N, N>> {
        Some(matrix_translation_jet(g, &LieGroup::<f64, D>::hat(self, x), side))
    }
    #[inline]
    fn translation_jet_dual(
        &self,
        g: &SMatrix<Dual64, N, N>,
        x: &SVector<f64, D>,
        side: Side,
    ) -> Option<SMatrix<HyperDual64, N, N>> {
        Some(matrix_translation_jet_dual(g, &LieGroup::<f64, D>::hat(self, x), side))
    }
}

/// Every [`MatrixGroup`]: elements `N × N` matrices at every scalar, and the matrix jets
/// `g + ε g x̂` (left) and `g + ε x̂ g` (right).
impl<G: MatrixGroup<D, N>, const D: usize, const N: usize> LieGroupFamily<D> for Linear<G, N> {
    type ElementAt<S: Scalar> = SMatrix<S, N, N>;
    fn lift_at<S: Scalar>(&self, g: &SMatrix<f64, N, N>) -> SMatrix<S, N, N> {
        g.map(S::from)
    }
    /// `‖g‖_∞ ‖g^{-1}‖_∞`.
    fn condition(&self, g: &SMatrix<f64, N, N>) -> f64 {
        super::matrix_group::condition(g)
    }
    #[inline]
    fn translation_jet(
        &self,
        g: &SMatrix<f64, N, N>,
        x: &SVector<f64, D>,
        side: Side,
    ) -> Option<SMatrix<Dual64, N, N>> {
        Some(matrix_translation_jet(g, &self.0.hat(x), side))
    }
    #[inline]
    fn translation_jet_dual(
        &self,
        g: &SMatrix<Dual64, N, N>,
        x: &SVector<f64, D>,
        side: Side,
    ) -> Option<SMatrix<HyperDual64, N, N>> {
        Some(matrix_translation_jet_dual(g, &self.0.hat(x), side))
    }
}

impl<A, B, const DA: usize, const DB: usize, const D: usize> LieGroupFamily<D> for Product<A, B, DA, DB>
where
    A: LieGroupFamily<DA>,
    B: LieGroupFamily<DB>,
    Product<A, B, DA, DB>: LieGroup<f64, D>,
{
    type ElementAt<S: Scalar> = (A::ElementAt<S>, B::ElementAt<S>);
    fn lift_at<S: Scalar>(&self, g: &Self::ElementAt<f64>) -> Self::ElementAt<S> {
        (self.0.lift_at(&g.0), self.1.lift_at(&g.1))
    }
    /// The larger of the factors' conditionings.
    fn condition(&self, g: &Self::ElementAt<f64>) -> f64 {
        self.0.condition(&g.0).max(self.1.condition(&g.1))
    }
    /// The factors' jets, `x = (x_A, x_B)`, when both have one.
    #[inline]
    fn translation_jet(
        &self,
        g: &Self::ElementAt<f64>,
        x: &SVector<f64, D>,
        side: Side,
    ) -> Option<Self::ElementAt<Dual64>> {
        let (xa, xb) = split::<DA, DB, D>(x);
        Some((self.0.translation_jet(&g.0, &xa, side)?, self.1.translation_jet(&g.1, &xb, side)?))
    }
    /// The factors' jets, when both have one.
    #[inline]
    fn translation_jet_dual(
        &self,
        g: &Self::ElementAt<Dual64>,
        x: &SVector<f64, D>,
        side: Side,
    ) -> Option<Self::ElementAt<HyperDual64>> {
        let (xa, xb) = split::<DA, DB, D>(x);
        Some((self.0.translation_jet_dual(&g.0, &xa, side)?, self.1.translation_jet_dual(&g.1, &xb, side)?))
    }
}

/// `x = (x_A, x_B)` of a product's algebra.
#[inline]
fn split<const DA: usize, const DB: usize, const D: usize>(
    x: &SVector<f64, D>,
) -> (SVector<f64, DA>, SVector<f64, DB>) {
    (SVector::from_fn(|i, _| x[i]), SVector::from_fn(|i, _| x[DA + i]))
}

impl<G, const DG: usize, const K: usize, const D: usize> LieGroupFamily<D> for Power<G, DG, K>
where
    G: LieGroupFamily<DG>,
    Power<G, DG, K>: LieGroup<f64, D>,
{
    type ElementAt<S: Scalar> = [G::ElementAt<S>; K];
    fn lift_at<S: Scalar>(&self, g: &Self::ElementAt<f64>) -> Self::ElementAt<S> {
        core::array::from_fn(|i| self.0.lift_at(&g[i]))
    }
    /// The largest of the factors' conditionings.
    fn condition(&self, g: &Self::ElementAt<f64>) -> f64 {
        g.iter().map(|gk| self.0.condition(gk)).fold(1.0, f64::max)
    }
    /// The factors' jets, `x = (x_1, …, x_K)`, when the factor group has one.
    fn translation_jet(
        &self,
        g: &Self::ElementAt<f64>,
        x: &SVector<f64, D>,
        side: Side,
    ) -> Option<Self::ElementAt<Dual64>> {
        let mut complete = true;
        let jets = core::array::from_fn(|i| {
            let xi = SVector::<f64, DG>::from_fn(|j, _| x[i * DG + j]);
            self.0.translation_jet(&g[i], &xi, side).unwrap_or_else(|| {
                complete = false;
                self.0.lift_at(&g[i])
            })
        });
        complete.then_some(jets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lie::testing::check_translation_jet;

    fn points<const D: usize>() -> Vec<SVector<f64, D>> {
        let dir = SVector::<f64, D>::from_fn(|i, _| 1.0 + 0.37 * i as f64).normalize();
        let dir2 = SVector::<f64, D>::from_fn(|i, _| ((i * 7 + 3) % 5) as f64 - 2.1).normalize();
        vec![SVector::zeros(), dir * 1e-9, dir2 * 1e-4, dir * 0.3, dir2 * 1.1, dir * 2.0]
    }

    #[test]
    fn translation_jets_are_the_curves_velocities() {
        check_translation_jet(&So2, &points::<1>(), 1e-14);
        check_translation_jet(&So3, &points::<3>(), 1e-14);
        check_translation_jet(&Se2, &points::<3>(), 1e-14);
        check_translation_jet(&Se3, &points::<6>(), 1e-14);
        check_translation_jet(&Su2, &points::<3>(), 1e-14);
        check_translation_jet(&Rn::<4>, &points::<4>(), 1e-14);
        check_translation_jet(&Gl::<2, 4>, &points::<4>().iter().map(|x| x * 0.5).collect::<Vec<_>>(), 1e-13);
        check_translation_jet(&Product::<So3, Rn<3>, 3, 3>(So3, Rn::<3>), &points::<6>(), 1e-14);
        check_translation_jet(&Power::<Se2, 3, 2>(Se2), &points::<6>(), 1e-14);
    }

    #[test]
    fn conditioning_is_one_on_compact_groups_and_grows_with_the_elements_otherwise() {
        let r = crate::lie::so3::exp(&SVector::<f64, 3>::new(0.4, -1.0, 0.2));
        assert_eq!(LieGroupFamily::<3>::condition(&So3, &r), 1.0);
        let g = LieGroup::<f64, 6>::exp(&Se3, &SVector::<f64, 6>::new(0.1, 0.2, 0.3, 5.0, -40.0, 2.0));
        let kappa = LieGroupFamily::<6>::condition(&Se3, &g);
        assert!((kappa - (1.0 + g.fixed_view::<3, 1>(0, 3).amax())).abs() < 1e-15 && kappa > 30.0);
        assert_eq!(LieGroupFamily::<2>::condition(&Rn::<2>, &SVector::<f64, 2>::new(3.0, -7.0)), 8.0);
        // ‖g‖_∞ ‖g⁻¹‖_∞ of diag(100, 1/100): 1e4; of a singular matrix: inf
        let gl = Gl::<2, 4>;
        assert!((LieGroupFamily::<4>::condition(&gl, &Matrix2::new(100.0, 0.0, 0.0, 0.01)) - 1e4).abs() < 1e-9);
        assert!(LieGroupFamily::<4>::condition(&gl, &Matrix2::new(1.0, 2.0, 2.0, 4.0)).is_infinite());
        let p = Product::<So3, Rn<3>, 3, 3>(So3, Rn::<3>);
        assert_eq!(LieGroupFamily::<6>::condition(&p, &(r, SVector::<f64, 3>::new(0.0, 9.0, 0.0))), 10.0);
        assert_eq!(LieGroupFamily::<6>::condition(&Power::<So3, 3, 2>(So3), &[r, r]), 1.0);
    }

    #[test]
    fn jets_exist_where_promised_and_sides_differ_off_the_identity() {
        let g = crate::lie::so3::exp(&SVector::<f64, 3>::new(0.4, -1.0, 0.2));
        let y = SVector::<f64, 3>::new(0.3, 0.1, -0.7);
        let left = So3.translation_jet(&g, &y, Side::Left).unwrap().map(|v| v.eps);
        let right = So3.translation_jet(&g, &y, Side::Right).unwrap().map(|v| v.eps);
        // g ŷ and ŷ g: a swapped side would pass a check at the identity only
        assert!((left - right).amax() > 0.1, "left {left} right {right}");
        assert!(Su2.translation_jet(&Vector4::new(1.0, 0.0, 0.0, 0.0), &y, Side::Left).is_none());
        let gd = g.map(|v| Dual64::new(v, 0.5 * v));
        let second = So3.translation_jet_dual(&gd, &y, Side::Left).unwrap();
        assert!((second.map(|v| v.eps1eps2) - (g * 0.5) * crate::lie::so3::hat(&y)).amax() < 1e-15);
        let p = Power::<Su2, 3, 2>(Su2);
        let e = [Vector4::new(1.0, 0.0, 0.0, 0.0); 2];
        assert!(p.translation_jet(&e, &SVector::<f64, 6>::zeros(), Side::Left).is_none());
    }
}
