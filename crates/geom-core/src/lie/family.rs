//! [`LieGroupFamily`]: a group **at every scalar**, named once — the one trait a group implements
//! (next to its `impl<S: Scalar> LieGroup<S, D>`) to reach every layer of the workspace.
//!
//! [`LieGroup<S, D>`](LieGroup) is implemented per scalar `S`, so generic code holding `G` can
//! name `<G as LieGroup<S, D>>::Element` for one `S` at a time but not the family
//! `S ↦ Element<S>` that code written once over the scalar needs (a discrete Lagrangian of the
//! groupoid layer, the dual numbers of a Newton Jacobian, the hyper-dual numbers of a Hessian).
//! This trait names it, with a generic associated type, and gives:
//!
//! * [`at::<S>()`](LieGroupFamily::at): the group at scalar `S`, with elements `ElementAt<S>`
//!   (for a zero-sized group, a copy of `self`: free at run time);
//! * [`lift_at`](LieGroupFamily::lift_at) (`f64 → S`, zero derivative parts) and
//!   [`map_scalar`](LieGroupFamily::map_scalar) (any `A → B`, entrywise) between scalars;
//! * the conditioning and the translation jets the groupoid layer's solvers use;
//! * the chart derivative `(dτ^{-1}_x)ᵀ μ`, its matrix form and its derivative in `x`, which the
//!   Hamilton–Pontryagin Newton Jacobian needs (by AD by default, in closed form for SO(3), SE(3)
//!   and `R^n`; module `chart_derivative`).
//!
//! ```
//! use geom_core::lie::{LieGroup, LieGroupFamily, So3};
//! use geom_core::Scalar;
//! // the identity of SO(3) at any scalar, through the group at that scalar
//! fn identity_at<S: Scalar>() -> <So3 as LieGroupFamily<3>>::ElementAt<S> {
//!     So3.at::<S>().identity()
//! }
//! assert_eq!(identity_at::<f64>(), nalgebra::Matrix3::identity());
//! let r = So3.exp(&nalgebra::Vector3::new(0.1, 0.2, 0.3));
//! let rd: nalgebra::Matrix3<num_dual::Dual64> = So3.lift_at(&r);
//! assert_eq!((rd[(1, 0)].re, rd[(1, 0)].eps), (r[(1, 0)], 0.0));
//! ```
//!
//! A user's group implements it with four one-line items next to its
//! `impl<S: Scalar> LieGroup<S, D>` (docs/tutorials/add_a_lie_group.md):
//!
//! ```text
//! impl LieGroupFamily<3> for MyGroup {
//!     type ElementAt<S: Scalar> = Matrix2<S>;
//!     fn at<S: Scalar>(&self) -> impl LieGroup<S, 3, Element = Matrix2<S>> { *self }
//!     fn lift_at<S: Scalar>(&self, g: &Matrix2<f64>) -> Matrix2<S> { g.map(S::from) }
//!     fn map_scalar<A: Scalar, B: Scalar, F: Fn(A) -> B>(&self, g: &Matrix2<A>, f: &F) -> Matrix2<B> { g.map(f) }
//! }
//! ```
//!
//! The contract is that `ElementAt<S>` is the `Element` of `LieGroup<S, D>` for every scalar the
//! group is implemented at. Rust cannot state it as a supertrait for `S = f64` without making a
//! bound `G: LieGroup<f64, D, Element = Matrix3<f64>>` next to `G: LieGroupFamily<D>` ambiguous,
//! so a layer that needs it at a given scalar says so with a `where` bound
//! `G: LieGroup<S, D, Element = G::ElementAt<S>>` (the Hamilton–Pontryagin integrator at its dual
//! scalar, the discretization layer at its four AD scalars), which every group written
//! `impl<S: Scalar> LieGroup<S, D>` satisfies; [`lift_at`](LieGroupFamily::lift_at) takes the
//! `f64` element as `<Self as LieGroup<f64, D>>::Element` for the same reason.

use super::chart_derivative::{
    ad_dtau_inv_transpose_derivative, se3_dtau_inv_transpose, se3_dtau_inv_transpose_derivative,
    so3_dtau_inv_transpose, so3_dtau_inv_transpose_derivative, so3_dtau_inv_transpose_matrix,
};
use super::{Chart, Gl, LieGroup, Linear, MatrixGroup, Power, Product, Rn, Se2, Se3, So2, So3, Su2};
use crate::{Result, Scalar};
use core::fmt;
use nalgebra::{Matrix2, Matrix3, Matrix4, Matrix6, SMatrix, SVector, Vector3, Vector4, Vector6};
use num_dual::{Dual64, DualSVec64, HyperDual64};

/// A `D`-dimensional Lie group at every scalar (module documentation): its element type
/// `ElementAt<S>`, the group [`at`](Self::at) each scalar, the maps between scalars, and the
/// derivatives of its charts that the layers above need.
pub trait LieGroupFamily<const D: usize>: LieGroup<f64, D> {
    /// `<Self as LieGroup<S, D>>::Element`.
    type ElementAt<S: Scalar>: Clone + fmt::Debug + Send + Sync;
    /// The group at scalar `S`: the same group (a copy of `self` for a zero-sized group), with
    /// `LieGroup<S, D>::Element = ElementAt<S>`. Generic code written once over the scalar calls
    /// `group.at::<S>()` where it needs the group's operations at `S`.
    fn at<S: Scalar>(&self) -> impl LieGroup<S, D, Element = Self::ElementAt<S>>;
    /// `g` at the scalar `S` (same value, zero derivative parts): `g.map(S::from)` for a matrix.
    fn lift_at<S: Scalar>(&self, g: &<Self as LieGroup<f64, D>>::Element) -> Self::ElementAt<S>;
    /// `g` with every scalar entry `v` replaced by `f(v)` (`g.map(f)` for a matrix): e.g. the real
    /// or derivative part of a dual element, or a dual element lifted to hyper-dual numbers.
    fn map_scalar<A: Scalar, B: Scalar, F: Fn(A) -> B>(&self, g: &Self::ElementAt<A>, f: &F) -> Self::ElementAt<B>;
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
    /// `(dτ^{-1}_x)ᵀ μ` for `μ ∈ g*`, the transposed inverse right-trivialized chart tangent
    /// (default: the matrix [`LieGroup::dtau_inv`], transposed, times `μ`; SO(3), SE(3) and
    /// `R^n` override it in closed form).
    #[inline]
    fn dtau_inv_transpose(&self, chart: Chart, x: &SVector<f64, D>, mu: &SVector<f64, D>) -> Result<SVector<f64, D>> {
        Ok(LieGroup::<f64, D>::dtau_inv(self, chart, x)?.tr_mul(mu))
    }
    /// `(dτ^{-1}_x)ᵀ M` for a `D × D` matrix `M` (the HP Newton Jacobian's `(dτ^{-1})ᵀ Dm`).
    /// Default: for `D <= 3`, [`Self::dtau_inv_transpose`] applied to the columns
    /// (cheaper than forming `dτ^{-1}` and a product: SO(3) 10% faster per step); above, the
    /// matrix `dτ^{-1}` (SE(3) 10% faster that way).
    #[inline]
    fn dtau_inv_transpose_matrix(
        &self,
        chart: Chart,
        x: &SVector<f64, D>,
        m: &SMatrix<f64, D, D>,
    ) -> Result<SMatrix<f64, D, D>> {
        if D <= 3 {
            let mut out = SMatrix::<f64, D, D>::zeros();
            for j in 0..D {
                out.set_column(j, &self.dtau_inv_transpose(chart, x, &m.column(j).into_owned())?);
            }
            Ok(out)
        } else {
            Ok(LieGroup::<f64, D>::dtau_inv(self, chart, x)?.tr_mul(m))
        }
    }
    /// `D_x[(dτ^{-1}_x)ᵀ μ]`, entry `(i, j)` = `∂/∂x_j [(dτ^{-1}_x)ᵀ μ]_i`, for fixed `μ` (the
    /// last factor of the HP Newton Jacobian
    /// `(dτ^{-1}_{hξ})ᵀ Dm(ξ) + h D_x[(dτ^{-1}_x)ᵀ μ]|_{x = hξ, μ = m(ξ)}`). The default takes the
    /// group's [`LieGroup::dtau_inv_transpose_closed_form`] where it gives one, else
    /// [`ad_dtau_inv_transpose_derivative`] (forward AD of `dτ^{-1}` at `DualSVec64<D>`, through
    /// [`Self::at`]); SO(3), SE(3) (exp chart) and `R^n` override it in closed form.
    fn dtau_inv_transpose_derivative(
        &self,
        chart: Chart,
        x: &SVector<f64, D>,
        mu: &SVector<f64, D>,
    ) -> Result<SMatrix<f64, D, D>> {
        match LieGroup::<f64, D>::dtau_inv_transpose_closed_form(self, chart, x, mu) {
            Some(m) => Ok(m),
            None => ad_dtau_inv_transpose_derivative(&self.at::<DualSVec64<D>>(), chart, x, mu),
        }
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

/// `g.map(S::from)`, `g.map(f)` and `at` = a copy of the group: the scalar plumbing of a group
/// whose elements are `nalgebra` values at every scalar.
macro_rules! entrywise {
    ($d:tt) => {
        #[inline]
        fn at<S: Scalar>(&self) -> impl LieGroup<S, $d, Element = Self::ElementAt<S>> {
            *self
        }
        #[inline]
        fn lift_at<S: Scalar>(&self, g: &<Self as LieGroup<f64, $d>>::Element) -> Self::ElementAt<S> {
            g.map(S::from)
        }
        #[inline]
        fn map_scalar<A: Scalar, B: Scalar, F: Fn(A) -> B>(&self, g: &Self::ElementAt<A>, f: &F) -> Self::ElementAt<B> {
            g.map(f)
        }
    };
}

macro_rules! matrix_family {
    ($($group:ty => $d:literal, $elem:ident, $condition:expr $(, { $($chart:tt)* })?;)*) => {$(
        impl LieGroupFamily<$d> for $group {
            type ElementAt<S: Scalar> = $elem<S>;
            entrywise!($d);
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
            $($($chart)*)?
        }
    )*};
}
matrix_family! {
    So2 => 1, Matrix2, |_| 1.0;
    So3 => 3, Matrix3, |_| 1.0, {
        /// Cayley `μ + ½ x×μ + ¼ (x·μ) x`; exp `μ + ½ x×μ + d(t) (x (x·μ) - t μ)`,
        /// `t = |x|²`, `d = (1 - (θ/2) cot(θ/2))/θ²` (module `chart_derivative`).
        #[inline(always)]
        fn dtau_inv_transpose(&self, chart: Chart, x: &Vector3<f64>, mu: &Vector3<f64>) -> Result<Vector3<f64>> {
            so3_dtau_inv_transpose(chart, x, mu)
        }
        /// Cayley: the columns in closed form; exp: `d(t)` once for the three columns.
        #[inline(always)]
        fn dtau_inv_transpose_matrix(&self, chart: Chart, x: &Vector3<f64>, m: &Matrix3<f64>) -> Result<Matrix3<f64>> {
            so3_dtau_inv_transpose_matrix(chart, x, m)
        }
        /// Cayley: `-½ μ̂ + ¼ (x μᵀ + (x·μ) I)`; exp:
        /// `-½ μ̂ + d (x μᵀ + (x·μ) I - 2 μ xᵀ) + 2 d'(t) (x (x·μ) - t μ) xᵀ`.
        #[inline(always)]
        fn dtau_inv_transpose_derivative(&self, chart: Chart, x: &Vector3<f64>, mu: &Vector3<f64>) -> Result<Matrix3<f64>> {
            so3_dtau_inv_transpose_derivative(chart, x, mu)
        }
    };
    Se2 => 3, Matrix3, translation_condition;
    Se3 => 6, Matrix4, translation_condition, {
        /// Both charts in closed form, no 6×6 matrix formed (module `chart_derivative`):
        /// Cayley `(π + ½ ω×π + ¼ (ω·π) ω + ½ y×p + ¼ y×(ω×p), p + ½ ω×p)` for `x = (ω, y)`,
        /// `μ = (π, p)`; exp `(J^{-1}ᵀ π + D_ω[J^{-1}(ω)ᵀ p] y, J^{-1}ᵀ p)`.
        #[inline]
        fn dtau_inv_transpose(&self, chart: Chart, x: &Vector6<f64>, mu: &Vector6<f64>) -> Result<Vector6<f64>> {
            se3_dtau_inv_transpose(chart, x, mu)
        }
        /// Cayley: geom-core's closed form; exp: `[[F(π) + H, F(p)], [F(p), 0]]` with
        /// `F(a) = D_ω[J^{-1}(ω)ᵀ a]` and `H` its second derivative (module `chart_derivative`).
        #[inline]
        fn dtau_inv_transpose_derivative(&self, chart: Chart, x: &Vector6<f64>, mu: &Vector6<f64>) -> Result<Matrix6<f64>> {
            se3_dtau_inv_transpose_derivative(chart, x, mu)
        }
    };
}

/// SU(2) as unit quaternions: no closed-form jet (the default, through the chart at `Dual64`).
impl LieGroupFamily<3> for Su2 {
    type ElementAt<S: Scalar> = Vector4<S>;
    entrywise!(3);
}

impl<const N: usize> LieGroupFamily<N> for Rn<N> {
    type ElementAt<S: Scalar> = SVector<S, N>;
    entrywise!(N);
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
    /// `dτ^{-1} = I`: `μ`.
    #[inline]
    fn dtau_inv_transpose(&self, _: Chart, _: &SVector<f64, N>, mu: &SVector<f64, N>) -> Result<SVector<f64, N>> {
        Ok(*mu)
    }
    /// `0`.
    #[inline]
    fn dtau_inv_transpose_derivative(
        &self,
        _: Chart,
        _: &SVector<f64, N>,
        _: &SVector<f64, N>,
    ) -> Result<SMatrix<f64, N, N>> {
        Ok(SMatrix::zeros())
    }
}

impl<const N: usize, const D: usize> LieGroupFamily<D> for Gl<N, D> {
    type ElementAt<S: Scalar> = SMatrix<S, N, N>;
    entrywise!(D);
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

/// Every [`MatrixGroup`]: elements `N × N` matrices at every scalar, the matrix jets
/// `g + ε g x̂` (left) and `g + ε x̂ g` (right), and the chart derivative by forward AD of its
/// series `dexp^{-1}` (and of `dcay^{-1}` where it has the Cayley map).
impl<G: MatrixGroup<D, N>, const D: usize, const N: usize> LieGroupFamily<D> for Linear<G, N> {
    type ElementAt<S: Scalar> = SMatrix<S, N, N>;
    /// The same group (a clone).
    #[inline]
    fn at<S: Scalar>(&self) -> impl LieGroup<S, D, Element = SMatrix<S, N, N>> {
        self.clone()
    }
    #[inline]
    fn lift_at<S: Scalar>(&self, g: &SMatrix<f64, N, N>) -> SMatrix<S, N, N> {
        g.map(S::from)
    }
    #[inline]
    fn map_scalar<A: Scalar, B: Scalar, F: Fn(A) -> B>(&self, g: &SMatrix<A, N, N>, f: &F) -> SMatrix<B, N, N> {
        g.map(f)
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

/// `A × B`: at scalar `S` it is `A.at::<S>() × B.at::<S>()`, elements `(a, b)` mapped
/// componentwise; the chart derivative by AD (the defaults).
impl<A, B, const DA: usize, const DB: usize, const D: usize> LieGroupFamily<D> for Product<A, B, DA, DB>
where
    A: LieGroupFamily<DA>,
    B: LieGroupFamily<DB>,
{
    type ElementAt<S: Scalar> = (A::ElementAt<S>, B::ElementAt<S>);
    #[inline]
    fn at<S: Scalar>(&self) -> impl LieGroup<S, D, Element = Self::ElementAt<S>> {
        Product(self.0.at::<S>(), self.1.at::<S>())
    }
    #[inline]
    fn lift_at<S: Scalar>(&self, g: &<Self as LieGroup<f64, D>>::Element) -> Self::ElementAt<S> {
        (self.0.lift_at(&g.0), self.1.lift_at(&g.1))
    }
    #[inline]
    fn map_scalar<SA: Scalar, SB: Scalar, F: Fn(SA) -> SB>(
        &self,
        g: &Self::ElementAt<SA>,
        f: &F,
    ) -> Self::ElementAt<SB> {
        (self.0.map_scalar(&g.0, f), self.1.map_scalar(&g.1, f))
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
{
    type ElementAt<S: Scalar> = [G::ElementAt<S>; K];
    #[inline]
    fn at<S: Scalar>(&self) -> impl LieGroup<S, D, Element = Self::ElementAt<S>> {
        Power::<_, DG, K>(self.0.at::<S>())
    }
    #[inline]
    fn lift_at<S: Scalar>(&self, g: &<Self as LieGroup<f64, D>>::Element) -> Self::ElementAt<S> {
        core::array::from_fn(|i| self.0.lift_at(&g[i]))
    }
    #[inline]
    fn map_scalar<A: Scalar, B: Scalar, F: Fn(A) -> B>(&self, g: &Self::ElementAt<A>, f: &F) -> Self::ElementAt<B> {
        core::array::from_fn(|i| self.0.map_scalar(&g[i], f))
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
                self.0.map_scalar(&g[i], &Dual64::from)
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
