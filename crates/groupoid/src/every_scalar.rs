//! Groups and groupoids available **at every scalar**, so that generic code (a discretization
//! map `R_d: AG → G`, the discrete Lagrangian `h L ∘ R_d^{-1}` it induces) can be written once
//! for every groupoid and still be differentiated exactly (docs/architecture.md, "A group's
//! element type at every scalar").
//!
//! A [`DiscreteLagrangian`](crate::DiscreteLagrangian) is evaluated at every scalar
//! (`eval<S: Scalar>`). A concrete groupoid such as `GroupAsGroupoid<So3>` implements
//! `LieGroupoid<S, 3>` for every `S`, but generic code over `G: LieGroupFamily<D>` cannot name
//! `G: LieGroup<S, D>` for the `S` of a method (Rust has no bound "for every scalar type"). Two
//! methods named `at` close that gap:
//!
//! * [`LieGroupFamily::at`] (geom-core): `at::<S>()` returns
//!   the group at scalar `S`, with elements `ElementAt<S>` (for a geom-core group it is the group
//!   itself; a user's group writes
//!   `fn at<S: Scalar>(&self) -> impl LieGroup<S, 3, Element = Matrix2<S>> { *self }` in its
//!   `LieGroupFamily` implementation);
//! * [`EveryScalarGroupoid<R>`]: `at::<S>()` returns the groupoid at scalar `S`. Implemented for
//!   [`PairGroupoid<N>`], [`SpherePair`], and for [`GroupAsGroupoid<G, C>`], [`PairOfGroup<G, C>`],
//!   [`TrivialAtiyah<G, M, D, C>`] over every [`LieGroupFamily`] group with a chart `C` at every
//!   scalar ([`EveryScalarChart`]: the shipped [`Chart`](geom_core::lie::Chart), or a user's chart
//!   through `geom_core::every_scalar_chart!`), and for the action groupoids of
//!   the geom-core actions ([`RotationAction`], [`SphereRotation`], [`RigidMotion`],
//!   [`Translation<N>`], [`LinearAction<N, D>`], [`Diagonal`] of rotations, and
//!   [`LeftMultiplication`], [`RightMultiplication`] of SO(2), SO(3), SE(2), SE(3), SU(2)).

use crate::action_groupoid::ActionGroupoid;
use crate::atiyah::TrivialAtiyah;
use crate::groupoid::LieGroupoid;
use crate::lagrangian::GroupoidFamily;
use crate::lie_group::GroupAsGroupoid;
use crate::pair::PairGroupoid;
use crate::pair_manifold::{PairOfGroup, SpherePair};
use geom_core::Scalar;
use geom_core::action::{
    Diagonal, LeftMultiplication, LinearAction, RightMultiplication, RigidMotion, RotationAction, SphereRotation,
    Translation,
};
use geom_core::lie::{ChartAt, EveryScalarChart, GroupChart, LieGroupFamily, Se2, Se3, So2, So3, Su2};
use nalgebra::{Matrix2, Matrix4, Vector4};
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

/// A Lie groupoid whose operations are available at every scalar: `at::<S>()` is the groupoid at
/// scalar `S`, with the element and base types of [`GroupoidFamily`] (module documentation).
pub trait EveryScalarGroupoid<const R: usize>: GroupoidFamily<R> {
    /// The groupoid at scalar `S`.
    fn at<S: Scalar>(&self) -> impl LieGroupoid<S, R, Element = Self::Element<S>, Base = Self::Base<S>>;
}

impl<const N: usize> EveryScalarGroupoid<N> for PairGroupoid<N> {
    fn at<S: Scalar>(&self) -> impl LieGroupoid<S, N, Element = (SVector<S, N>, SVector<S, N>), Base = SVector<S, N>> {
        *self
    }
}

impl EveryScalarGroupoid<2> for SpherePair {
    fn at<S: Scalar>(&self) -> impl LieGroupoid<S, 2, Element = (Vector3<S>, Vector3<S>), Base = Vector3<S>> {
        *self
    }
}

impl<G, C, const D: usize> EveryScalarGroupoid<D> for GroupAsGroupoid<G, C>
where
    G: LieGroupFamily<D>,
    C: EveryScalarChart<G, D> + GroupChart<f64, G, D>,
{
    fn at<S: Scalar>(&self) -> impl LieGroupoid<S, D, Element = G::ElementAt<S>, Base = ()> {
        GroupAsGroupoid::new(self.group().at::<S>(), ChartAt::new(self.chart(), self.group()))
    }
}

impl<G, C, const D: usize> EveryScalarGroupoid<D> for PairOfGroup<G, C>
where
    G: LieGroupFamily<D>,
    C: EveryScalarChart<G, D> + GroupChart<f64, G, D>,
{
    fn at<S: Scalar>(
        &self,
    ) -> impl LieGroupoid<S, D, Element = (G::ElementAt<S>, G::ElementAt<S>), Base = G::ElementAt<S>> {
        PairOfGroup::new(self.group().at::<S>(), ChartAt::new(self.chart(), self.group()))
    }
}

impl<G, C, const M: usize, const D: usize, const R: usize> EveryScalarGroupoid<R> for TrivialAtiyah<G, M, D, C>
where
    G: LieGroupFamily<D>,
    C: EveryScalarChart<G, D> + GroupChart<f64, G, D>,
{
    fn at<S: Scalar>(
        &self,
    ) -> impl LieGroupoid<S, R, Element = (SVector<S, M>, SVector<S, M>, G::ElementAt<S>), Base = SVector<S, M>> {
        TrivialAtiyah::<_, M, D, _>::new(self.group().at::<S>(), ChartAt::new(self.chart(), self.group()))
    }
}

macro_rules! every_scalar_action {
    ([$($gen:tt)*] $action:ty, $d:tt, $point:ty, $elem:ty) => {
        impl<$($gen)*> EveryScalarGroupoid<$d> for ActionGroupoid<$action> {
            fn at<S: Scalar>(&self) -> impl LieGroupoid<S, $d, Element = ($point, $elem), Base = $point> {
                *self
            }
        }
    };
}
every_scalar_action!([] RotationAction, 3, Vector3<S>, Matrix3<S>);
every_scalar_action!([] SphereRotation, 3, Vector3<S>, Matrix3<S>);
every_scalar_action!([] RigidMotion, 6, Vector3<S>, nalgebra::Matrix4<S>);
every_scalar_action!([const N: usize] Translation<N>, N, SVector<S, N>, SVector<S, N>);
every_scalar_action!([const N: usize, const D: usize] LinearAction<N, D>, D, SVector<S, N>, SMatrix<S, N, N>);
every_scalar_action!(
    [const K: usize, const N: usize] Diagonal<RotationAction, 3, K, N>, 3, SVector<S, N>, Matrix3<S>
);

/// The action groupoids of a geom-core matrix group acting on itself by multiplication, at scalar
/// `S`: the same action, the same chart. (A user's group needs the composability distance
/// [`RealDistance`](crate::action_groupoid::RealDistance) of its elements at every scalar, which a generic bound cannot name; its
/// multiplication groupoids are available at `f64` and through [`ActionFamily`](crate::action_groupoid::ActionFamily).)
macro_rules! every_scalar_multiplication {
    ($($group:ty, $d:tt, $elem:ident;)*) => {$(
        every_scalar_action!([] LeftMultiplication<$group>, $d, $elem<S>, $elem<S>);
        every_scalar_action!([] RightMultiplication<$group>, $d, $elem<S>, $elem<S>);
    )*};
}
every_scalar_multiplication!(So3, 3, Matrix3; Se3, 6, Matrix4; Se2, 3, Matrix3; So2, 1, Matrix2; Su2, 3, Vector4;);
