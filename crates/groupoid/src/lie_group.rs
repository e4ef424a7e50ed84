//! A Lie group as a groupoid `G ⇉ {e}` (docs/math.md §C.1): every pair is composable, `α = β = e`,
//! algebroid `g` with the fibre chart `exp_e = τ` (any [`GroupChart`]: the shipped `exp` or Cayley
//! of [`Chart`], or a user's chart). The discrete Euler–Lagrange
//! equations are the discrete Euler–Poincaré equations
//! `l*_{g_k} dL(g_k) = r*_{g_{k+1}} dL(g_{k+1})`, i.e. with `μ_k = F^-L(g_{k+1})` the discrete
//! Lie–Poisson map `μ_{k+1} = Ad*_{g_{k+1}} μ_k` (docs/math.md §C.3).

use crate::groupoid::LieGroupoid;
use geom_core::lie::{Chart, GroupChart, LieGroup, LieGroupFamily};
use geom_core::{Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// The Lie group `G` (any `geom-core` group) as a groupoid over a point, with fibre chart
/// `exp_e(ξ) = τ(ξ)` and `fibre_log(g) = τ^{-1}(g)`.
///
/// The chart `C` is any [`GroupChart`] of `G`: the shipped [`Chart`] (the default type, `exp` or
/// Cayley) or a user's chart written once over the scalar
/// (`impl<S: Scalar> GroupChart<S, So3, 3> for MyChart`), which reaches the Legendre transforms
/// and the DEL flow with no wrapper. The every-scalar interfaces
/// ([`EveryScalarGroupoid`](crate::EveryScalarGroupoid) and so the induced θ-map flows, the
/// algebroid, the control models) take a chart available at every scalar,
/// [`EveryScalarChart`](geom_core::lie::EveryScalarChart): the shipped [`Chart`], or a user's chart
/// after the one line `geom_core::every_scalar_chart!(MyChart, So3, 3);`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupAsGroupoid<G, C = Chart> {
    group: G,
    chart: C,
}

impl<G, C> GroupAsGroupoid<G, C> {
    /// `G ⇉ {e}` with fibre chart `τ = chart` (a shipped [`Chart`] or any [`GroupChart`] of `G`).
    /// Infallible: the chart is not checked here (see [`geom_core::lie::check_chart`]).
    pub fn new(group: G, chart: C) -> Self {
        Self { group, chart }
    }
    /// The group.
    pub fn group(&self) -> &G {
        &self.group
    }
    /// The chart `τ` (a copy: every [`GroupChart`] is `Copy`).
    pub fn chart(&self) -> C
    where
        C: Copy,
    {
        self.chart
    }
}

impl<S: Scalar, const D: usize, G: LieGroup<S, D>, C: GroupChart<S, G, D>> LieGroupoid<S, D> for GroupAsGroupoid<G, C> {
    type Element = G::Element;
    type Base = ();

    fn name(&self) -> String {
        format!("{} as a groupoid over a point ({})", self.group.name(), self.chart.name())
    }
    fn source(&self, _g: &G::Element) {}
    fn target(&self, _g: &G::Element) {}
    fn identity(&self, _x: &()) -> G::Element {
        self.group.identity()
    }
    fn inverse(&self, g: &G::Element) -> G::Element {
        self.group.inverse(g)
    }
    fn multiply(&self, g: &G::Element, h: &G::Element) -> G::Element {
        self.group.compose(g, h)
    }
    fn base_distance(&self, _a: &(), _b: &()) -> f64 {
        0.0
    }
    /// `τ(ξ)`; a chart that fails (a Cayley map on SO(3)/SE(3) never does) gives a non-finite
    /// element.
    #[inline(always)]
    fn fibre_exp(&self, _x: &(), xi: &SVector<S, D>) -> G::Element {
        match self.chart.tau(&self.group, xi) {
            Ok(g) => g,
            Err(_) => self.group.exp(&xi.map(|_| S::from(f64::NAN))),
        }
    }
    /// `τ^{-1}(g)`.
    fn fibre_log(&self, g: &G::Element) -> Result<SVector<S, D>> {
        self.chart.tau_inv(&self.group, g)
    }
}

/// The elements of `G ⇉ {e}` at every scalar are those of `G` ([`LieGroupFamily`]): any group,
/// a user's included, enters the groupoid layer with no wrapper.
impl<G: LieGroupFamily<D>, C: GroupChart<f64, G, D>, const D: usize> crate::lagrangian::GroupoidFamily<D>
    for GroupAsGroupoid<G, C>
{
    type Element<S: Scalar> = G::ElementAt<S>;
    type Base<S: Scalar> = ();
    /// The group's jets `g + ε g ξ̂`, `g + ε ξ̂ g` ([`LieGroupFamily::translation_jet`]; the right
    /// curve `τ(−εξ)^{-1} g = τ(εξ) g` to first order), the same for every chart.
    #[inline]
    fn invariant_jet(
        &self,
        g: &G::ElementAt<f64>,
        xi: &SVector<f64, D>,
        side: geom_core::lie::Side,
    ) -> Option<G::ElementAt<num_dual::Dual64>> {
        self.group.translation_jet(g, xi, side)
    }
    /// `C = dτ_ξ` (right-trivialized, [`LieGroup::dtau`]) with the `Right` jet:
    /// `τ(ξ + δv) = τ(ξ) + δ (dτ_ξ v)^ τ(ξ)` to first order. `None` where `dτ` is undefined.
    #[inline]
    fn fibre_differential(&self, _x: &(), xi: &SVector<f64, D>) -> Option<(SMatrix<f64, D, D>, geom_core::lie::Side)> {
        GroupChart::<f64, G, D>::dtau(&self.chart, &self.group, xi).ok().map(|c| (c, geom_core::lie::Side::Right))
    }
    /// The group's second-order jets ([`LieGroupFamily::translation_jet_dual`]).
    #[inline]
    fn invariant_jet_dual(
        &self,
        g: &G::ElementAt<num_dual::Dual64>,
        xi: &SVector<f64, D>,
        side: geom_core::lie::Side,
    ) -> Option<G::ElementAt<num_dual::HyperDual64>> {
        self.group.translation_jet_dual(g, xi, side)
    }
}

impl<S: Scalar, G, C, const D: usize> crate::lagrangian::GroupoidLift<S, D> for GroupAsGroupoid<G, C>
where
    G: LieGroupFamily<D> + LieGroup<f64, D, Element = G::ElementAt<f64>> + LieGroup<S, D, Element = G::ElementAt<S>>,
    C: GroupChart<f64, G, D> + GroupChart<S, G, D>,
{
    fn lift(&self, g: &G::ElementAt<f64>) -> G::ElementAt<S> {
        self.group.lift_at(g)
    }
    fn lift_base(&self, _x: &()) {}
}
