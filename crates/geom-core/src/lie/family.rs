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

use super::{Gl, LieGroup, Power, Product, Rn, Se2, Se3, So2, So3, Su2};
use crate::Scalar;
use core::fmt;
use nalgebra::{Matrix2, Matrix3, Matrix4, SMatrix, SVector, Vector4};

/// The element type of a `D`-dimensional Lie group at every scalar (module documentation).
pub trait LieGroupFamily<const D: usize>: LieGroup<f64, D> {
    /// `<Self as LieGroup<S, D>>::Element`.
    type ElementAt<S: Scalar>: Clone + fmt::Debug + Send + Sync;
    /// `g` at the scalar `S` (same value, zero derivative parts); `g.map(S::from)` for a matrix.
    fn lift_at<S: Scalar>(&self, g: &Self::ElementAt<f64>) -> Self::ElementAt<S>;
}

macro_rules! family {
    ($($group:ty => $d:literal, $elem:ident;)*) => {$(
        impl LieGroupFamily<$d> for $group {
            type ElementAt<S: Scalar> = $elem<S>;
            fn lift_at<S: Scalar>(&self, g: &$elem<f64>) -> $elem<S> {
                g.map(S::from)
            }
        }
    )*};
}
family! {
    So2 => 1, Matrix2;
    So3 => 3, Matrix3;
    Su2 => 3, Vector4;
    Se2 => 3, Matrix3;
    Se3 => 6, Matrix4;
}

impl<const N: usize> LieGroupFamily<N> for Rn<N> {
    type ElementAt<S: Scalar> = SVector<S, N>;
    fn lift_at<S: Scalar>(&self, g: &SVector<f64, N>) -> SVector<S, N> {
        g.map(S::from)
    }
}

impl<const N: usize, const D: usize> LieGroupFamily<D> for Gl<N, D> {
    type ElementAt<S: Scalar> = SMatrix<S, N, N>;
    fn lift_at<S: Scalar>(&self, g: &SMatrix<f64, N, N>) -> SMatrix<S, N, N> {
        g.map(S::from)
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
}
