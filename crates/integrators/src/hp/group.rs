//! The bounds of the HP integrator: the groups it runs on and the Lagrangians it accepts, at
//! `f64` and at the dual scalar of its Newton Jacobian.

use super::lagrangian::LeftLagrangian;
use geom_core::lie::{LieGroup, LieGroupFamily};
use num_dual::DualSVec64;

/// The groups the HP integrator runs on: a [`LieGroupFamily<D>`] whose `LieGroup` at the dual
/// scalar `DualSVec64<D>` of the Newton Jacobian has the family's elements
/// (`Element = ElementAt<DualSVec64<D>>`, so that `g_k` lifted by
/// [`LieGroupFamily::lift_at`] is an element the Lagrangian takes). The chart derivatives come
/// from the family ([`LieGroupFamily::dtau_inv_transpose_derivative`]: AD by default, closed
/// forms for SO(3), SE(3) and `R^n`).
///
/// Blanket-implemented, never implemented by hand: every group with
/// `impl<S: Scalar> LieGroup<S, D>` and `impl LieGroupFamily<D>` is one (every `geom-core` group,
/// products and powers of them, `Linear<G, N>`, a user's group). It stays a named trait because
/// the equality of element types at one scalar cannot be a supertrait of [`LieGroupFamily`]
/// (module documentation of `geom_core::lie::LieGroupFamily`) and because the workbench names it.
pub trait HpGroup<const D: usize>:
    LieGroupFamily<D> + LieGroup<DualSVec64<D>, D, Element = <Self as LieGroupFamily<D>>::ElementAt<DualSVec64<D>>>
{
}
impl<G, const D: usize> HpGroup<D> for G where
    G: LieGroupFamily<D> + LieGroup<DualSVec64<D>, D, Element = <G as LieGroupFamily<D>>::ElementAt<DualSVec64<D>>>
{
}

/// The Lagrangians the HP integrator accepts: [`LeftLagrangian`] at `f64` and at
/// `DualSVec64<D>` (a model written over every `S: Scalar`, or [`AutoDiff`](super::AutoDiff)).
pub trait HpLagrangian<G: HpGroup<D>, const D: usize>:
    LeftLagrangian<f64, G, D> + LeftLagrangian<DualSVec64<D>, G, D>
{
}
impl<G: HpGroup<D>, L, const D: usize> HpLagrangian<G, D> for L where
    L: LeftLagrangian<f64, G, D> + LeftLagrangian<DualSVec64<D>, G, D>
{
}
