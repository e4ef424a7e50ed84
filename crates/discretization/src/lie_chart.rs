//! Charts `τ: g → G` in the Lie-group layer: any [`GroupChart`] — the shipped [`Chart`] or a
//! user's chart written once over the scalar (`impl<S: Scalar> GroupChart<S, So3, 3> for MyChart`)
//! — drives the θ-map [`crate::LieGroupThetaMap`], the reduced θ-map system of
//! [`crate::lie_hamiltonian`] (Hamiltonian and Lagrangian routes), the Lie-group discrete
//! Euler–Poincaré step of [`crate::lagrangian`] and the Lie–Poisson integrators of
//! [`crate::lie_poisson`].
//!
//! Those methods evaluate `τ`, `dτ` (right-trivialized, `dτ_x y = (Dτ(x) · y) τ(x)^{-1}`) and
//! `dτ^{-1}` at `f64` and differentiate `dτ`, `dτ^{-1}` by forward AD at `Dual64` and
//! `DualSVec64<D>`: a chart they accept is an [`AdGroupChart`], a [`GroupChart`] at those three
//! scalars (every chart written once over the scalar is one).
//!
//! [`crate::LieGroupMap`] is object-safe (`Box<dyn LieGroupMap<So3, 3>>`), so its θ-map hook
//! [`crate::LieGroupMap::theta_chart`] cannot return the chart's type: it returns a
//! [`ThetaChart`], either the shipped [`Chart`] (the integrators are then compiled with the
//! chart's closed forms, exactly as before charts were generic) or a reference to the user's
//! chart behind the object-safe [`DynAdGroupChart`], wrapped in [`ErasedChart`] — itself an
//! [`AdGroupChart`], so the same reduced two-block system serves both.

use geom_core::lie::{Chart, GroupChart, LieGroup};
use geom_core::{Result, Scalar};
use nalgebra::{SMatrix, SVector};
use num_dual::{Dual64, DualSVec64};
use std::fmt;

/// A [`GroupChart`] of `G` at every scalar the Lie-group layer evaluates or differentiates a
/// chart at: `f64`, `Dual64` and `DualSVec64<D>` (module documentation). Implemented for every
/// such chart: the shipped [`Chart`], a user's chart written once over the scalar, and
/// [`ErasedChart`].
pub trait AdGroupChart<G, const D: usize>:
    GroupChart<f64, G, D> + GroupChart<Dual64, G, D> + GroupChart<DualSVec64<D>, G, D>
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
{
}

impl<G, C, const D: usize> AdGroupChart<G, D> for C
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
    C: GroupChart<f64, G, D> + GroupChart<Dual64, G, D> + GroupChart<DualSVec64<D>, G, D>,
{
}

/// The object-safe form of [`GroupChart<S, G, D>`](GroupChart) (which is `Copy`, hence not
/// object-safe): the same `τ`, `τ^{-1}`, right-trivialized `dτ_x`, `dτ^{-1}_x = (dτ_x)^{-1}` and
/// `g τ(x)`. Implemented for every [`GroupChart`]; the methods are named `dyn_*` so that they
/// never compete with the chart's own in method calls.
pub trait DynGroupChart<S, G: ?Sized, const D: usize>: Send + Sync {
    /// [`GroupChart::name`].
    fn dyn_name(&self) -> String
    where
        S: Scalar,
        G: LieGroup<S, D>;
    /// [`GroupChart::builtin`]: the shipped chart this is, if it is one.
    fn dyn_builtin(&self) -> Option<Chart>
    where
        S: Scalar,
        G: LieGroup<S, D>;
    /// [`GroupChart::tau`]: `τ(x)`.
    fn dyn_tau(&self, group: &G, x: &SVector<S, D>) -> Result<<G as LieGroup<S, D>>::Element>
    where
        S: Scalar,
        G: LieGroup<S, D>;
    /// [`GroupChart::tau_inv`]: `τ^{-1}(g)`.
    fn dyn_tau_inv(&self, group: &G, g: &<G as LieGroup<S, D>>::Element) -> Result<SVector<S, D>>
    where
        S: Scalar,
        G: LieGroup<S, D>;
    /// [`GroupChart::dtau`]: `dτ_x` (right-trivialized).
    fn dyn_dtau(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>>
    where
        S: Scalar,
        G: LieGroup<S, D>;
    /// [`GroupChart::dtau_inv`]: `dτ^{-1}_x`.
    fn dyn_dtau_inv(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>>
    where
        S: Scalar,
        G: LieGroup<S, D>;
    /// [`GroupChart::compose_tau`]: `g τ(x)`.
    fn dyn_compose_tau(
        &self,
        group: &G,
        g: &<G as LieGroup<S, D>>::Element,
        x: &SVector<S, D>,
    ) -> Result<<G as LieGroup<S, D>>::Element>
    where
        S: Scalar,
        G: LieGroup<S, D>;
}

impl<S: Scalar, G: LieGroup<S, D> + ?Sized, C: GroupChart<S, G, D>, const D: usize> DynGroupChart<S, G, D> for C {
    fn dyn_name(&self) -> String {
        self.name()
    }
    #[inline]
    fn dyn_builtin(&self) -> Option<Chart> {
        self.builtin()
    }
    #[inline]
    fn dyn_tau(&self, group: &G, x: &SVector<S, D>) -> Result<G::Element> {
        self.tau(group, x)
    }
    #[inline]
    fn dyn_tau_inv(&self, group: &G, g: &G::Element) -> Result<SVector<S, D>> {
        self.tau_inv(group, g)
    }
    #[inline]
    fn dyn_dtau(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        self.dtau(group, x)
    }
    #[inline]
    fn dyn_dtau_inv(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        self.dtau_inv(group, x)
    }
    #[inline]
    fn dyn_compose_tau(&self, group: &G, g: &G::Element, x: &SVector<S, D>) -> Result<G::Element> {
        self.compose_tau(group, g, x)
    }
}

/// The object-safe form of an [`AdGroupChart`]: [`DynGroupChart`] at `f64`, `Dual64` and
/// `DualSVec64<D>`. Implemented for every [`AdGroupChart`] (`&chart as &dyn DynAdGroupChart<G, D>`).
pub trait DynAdGroupChart<G, const D: usize>:
    DynGroupChart<f64, G, D> + DynGroupChart<Dual64, G, D> + DynGroupChart<DualSVec64<D>, G, D> + fmt::Debug
{
}

impl<G, C, const D: usize> DynAdGroupChart<G, D> for C where
    C: DynGroupChart<f64, G, D> + DynGroupChart<Dual64, G, D> + DynGroupChart<DualSVec64<D>, G, D> + fmt::Debug
{
}

/// A reference to a chart behind [`DynAdGroupChart`], itself a [`GroupChart`] at `f64`, `Dual64`
/// and `DualSVec64<D>` (an [`AdGroupChart`]) that forwards every call: how a user's chart
/// reaches a method through the object-safe [`crate::LieGroupMap::theta_chart`]. One dynamic
/// call per chart evaluation; the shipped charts never take this route ([`ThetaChart`]).
pub struct ErasedChart<'a, G, const D: usize>(&'a dyn DynAdGroupChart<G, D>);

impl<'a, G, const D: usize> ErasedChart<'a, G, D> {
    /// The chart `chart`, erased.
    pub fn new(chart: &'a dyn DynAdGroupChart<G, D>) -> Self {
        Self(chart)
    }
}

impl<G, const D: usize> Clone for ErasedChart<'_, G, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<G, const D: usize> Copy for ErasedChart<'_, G, D> {}

impl<G, const D: usize> fmt::Debug for ErasedChart<'_, G, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ErasedChart").field(&self.0).finish()
    }
}

impl<'a, S, G, const D: usize> GroupChart<S, G, D> for ErasedChart<'a, G, D>
where
    S: Scalar,
    G: LieGroup<S, D>,
    dyn DynAdGroupChart<G, D> + 'a: DynGroupChart<S, G, D>,
{
    fn name(&self) -> String {
        DynGroupChart::<S, G, D>::dyn_name(self.0)
    }
    #[inline]
    fn tau(&self, group: &G, x: &SVector<S, D>) -> Result<G::Element> {
        DynGroupChart::<S, G, D>::dyn_tau(self.0, group, x)
    }
    #[inline]
    fn tau_inv(&self, group: &G, g: &G::Element) -> Result<SVector<S, D>> {
        DynGroupChart::<S, G, D>::dyn_tau_inv(self.0, group, g)
    }
    #[inline]
    fn dtau(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        DynGroupChart::<S, G, D>::dyn_dtau(self.0, group, x)
    }
    #[inline]
    fn dtau_inv(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        DynGroupChart::<S, G, D>::dyn_dtau_inv(self.0, group, x)
    }
    #[inline]
    fn compose_tau(&self, group: &G, g: &G::Element, x: &SVector<S, D>) -> Result<G::Element> {
        DynGroupChart::<S, G, D>::dyn_compose_tau(self.0, group, g, x)
    }
    #[inline]
    fn builtin(&self) -> Option<Chart> {
        DynGroupChart::<S, G, D>::dyn_builtin(self.0)
    }
}

/// The chart `τ` of a θ-map `(g τ(-θξ), g τ((1-θ)ξ))` as [`crate::LieGroupMap::theta_chart`]
/// reports it: a shipped chart by value (the reduced θ-map system is then compiled for
/// [`Chart`], with its closed forms and no dynamic call), or any other [`GroupChart`] by
/// reference ([`ErasedChart`]; the same reduced system, generic over the chart).
#[derive(Debug, Clone, Copy)]
pub enum ThetaChart<'a, G, const D: usize> {
    /// [`Chart::Exp`] or [`Chart::Cayley`].
    Shipped(Chart),
    /// Any other chart (a user's).
    User(ErasedChart<'a, G, D>),
}

impl<'a, G, const D: usize> ThetaChart<'a, G, D>
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
{
    /// `chart` as a [`ThetaChart`]: [`ThetaChart::Shipped`] if [`GroupChart::builtin`] names a
    /// shipped chart, else a reference to it.
    #[inline]
    pub fn of<C: AdGroupChart<G, D>>(chart: &'a C) -> Self {
        match GroupChart::<f64, G, D>::builtin(chart) {
            Some(shipped) => Self::Shipped(shipped),
            None => Self::User(ErasedChart(chart)),
        }
    }
}

/// A shipped chart whose [`GroupChart`] methods are `#[inline(always)]` calls of the group's
/// formulas (`τ(x) = group.tau(chart, x)`, …): what the integrators pass for
/// [`ThetaChart::Shipped`], so that the chart value, known at the call site, reaches the group's
/// `match` on it (one code path per shipped chart after inlining, as when the integrators called
/// the group's methods directly).
#[derive(Debug, Clone, Copy)]
pub(crate) struct InlineChart(pub(crate) Chart);

impl<S: Scalar, G: LieGroup<S, D> + ?Sized, const D: usize> GroupChart<S, G, D> for InlineChart {
    fn name(&self) -> String {
        self.0.name().to_string()
    }
    #[inline(always)]
    fn tau(&self, group: &G, x: &SVector<S, D>) -> Result<G::Element> {
        group.tau(self.0, x)
    }
    #[inline(always)]
    fn tau_inv(&self, group: &G, g: &G::Element) -> Result<SVector<S, D>> {
        group.tau_inv(self.0, g)
    }
    #[inline(always)]
    fn dtau(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        group.dtau(self.0, x)
    }
    #[inline(always)]
    fn dtau_inv(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        group.dtau_inv(self.0, x)
    }
    #[inline(always)]
    fn compose_tau(&self, group: &G, g: &G::Element, x: &SVector<S, D>) -> Result<G::Element> {
        group.compose_tau(self.0, g, x)
    }
    #[inline(always)]
    fn builtin(&self) -> Option<Chart> {
        Some(self.0)
    }
}
