//! The charts of the Hamilton–Pontryagin step: the shipped charts as types ([`ShippedChart`],
//! one compiled step per chart), the charts the integrator accepts ([`HpChart`]), and the
//! dispatch of `(dτ^{-1}_x)ᵀ μ`, `(dτ^{-1}_x)ᵀ M` and `D_x[(dτ^{-1}_x)ᵀ μ]` to the group's
//! `LieGroupFamily` methods (closed forms for SO(3), SE(3), `R^n`, AD otherwise; geom-core's
//! `lie::chart_derivative`) for a shipped chart, or to the chart's own `dτ^{-1}` for a user's
//! chart. The Newton Jacobian of the reduced (left-invariant) HP step is
//!
//! ```text
//!   R(ξ) = (dτ^{-1}_{hξ})* m(ξ) - Π_k,
//!   DR(ξ) = (dτ^{-1}_{hξ})* Dm(ξ) + h · D_x[(dτ^{-1}_x)* μ]|_{x = hξ, μ = m(ξ)}.
//! ```

use super::group::HpGroup;
use geom_core::lie::{Chart, GroupChart, LieGroup};
use geom_core::{Result, Scalar};
use nalgebra::{Const, SMatrix, SVector, U1};
use num_dual::DualSVec64;

/// A shipped chart as a type, `ShippedChart<true>` = [`Chart::Exp`], `ShippedChart<false>` =
/// [`Chart::Cayley`]: the step is compiled once per shipped chart with the chart a constant
/// (`HpIntegrator`'s reduced solve), so that neither chart's formulas sit in the other's loop.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ShippedChart<const EXP: bool>;

impl<const EXP: bool> ShippedChart<EXP> {
    const CHART: Chart = if EXP { Chart::Exp } else { Chart::Cayley };
}

impl<S: Scalar, G: LieGroup<S, D> + ?Sized, const D: usize, const EXP: bool> GroupChart<S, G, D> for ShippedChart<EXP> {
    fn name(&self) -> String {
        Self::CHART.name().to_string()
    }
    #[inline(always)]
    fn tau(&self, group: &G, x: &SVector<S, D>) -> Result<G::Element> {
        group.tau(Self::CHART, x)
    }
    #[inline(always)]
    fn tau_inv(&self, group: &G, g: &G::Element) -> Result<SVector<S, D>> {
        group.tau_inv(Self::CHART, g)
    }
    #[inline(always)]
    fn dtau(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        group.dtau(Self::CHART, x)
    }
    #[inline(always)]
    fn dtau_inv(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        group.dtau_inv(Self::CHART, x)
    }
    #[inline(always)]
    fn compose_tau(&self, group: &G, g: &G::Element, x: &SVector<S, D>) -> Result<G::Element> {
        group.compose_tau(Self::CHART, g, x)
    }
    #[inline(always)]
    fn builtin(&self) -> Option<Chart> {
        Some(Self::CHART)
    }
}

/// The charts the HP integrator accepts: a [`GroupChart`] of `G` at `f64` and at the dual type
/// `DualSVec64<D>` of the Newton Jacobian — the shipped [`Chart`] or a user's chart written once
/// over the scalar (`impl<S: Scalar> GroupChart<S, So3, 3> for MyChart`).
pub trait HpChart<G: LieGroup<f64, D> + LieGroup<DualSVec64<D>, D>, const D: usize>:
    GroupChart<f64, G, D> + GroupChart<DualSVec64<D>, G, D>
{
}
impl<G, C, const D: usize> HpChart<G, D> for C
where
    G: LieGroup<f64, D> + LieGroup<DualSVec64<D>, D>,
    C: GroupChart<f64, G, D> + GroupChart<DualSVec64<D>, G, D>,
{
}

/// `(dτ^{-1}_x)ᵀ μ` for any chart: the group's closed form for a shipped chart, else the
/// chart's `dτ^{-1}` matrix.
#[inline(always)]
pub(crate) fn chart_dtau_inv_transpose<G: HpGroup<D>, C: HpChart<G, D>, const D: usize>(
    group: &G,
    chart: &C,
    x: &SVector<f64, D>,
    mu: &SVector<f64, D>,
) -> Result<SVector<f64, D>> {
    match GroupChart::<f64, G, D>::builtin(chart) {
        Some(builtin) => group.dtau_inv_transpose(builtin, x, mu),
        None => Ok(GroupChart::<f64, G, D>::dtau_inv(chart, group, x)?.tr_mul(mu)),
    }
}

/// `(dτ^{-1}_x)ᵀ M` for any chart: the group's (`LieGroupFamily::dtau_inv_transpose_matrix`)
/// for a shipped chart, else the chart's `dτ^{-1}` matrix.
#[inline(always)]
pub(crate) fn chart_dtau_inv_transpose_matrix<G: HpGroup<D>, C: HpChart<G, D>, const D: usize>(
    group: &G,
    chart: &C,
    x: &SVector<f64, D>,
    m: &SMatrix<f64, D, D>,
) -> Result<SMatrix<f64, D, D>> {
    match GroupChart::<f64, G, D>::builtin(chart) {
        Some(builtin) => group.dtau_inv_transpose_matrix(builtin, x, m),
        None => Ok(GroupChart::<f64, G, D>::dtau_inv(chart, group, x)?.tr_mul(m)),
    }
}

/// `D_x[(dτ^{-1}_x)ᵀ μ]` for any chart: the group's closed form (or its AD default) for a
/// shipped chart, else forward AD through the chart's `dτ^{-1}` at `DualSVec64<D>`.
#[inline(always)]
pub(crate) fn chart_dtau_inv_transpose_derivative<G: HpGroup<D>, C: HpChart<G, D>, const D: usize>(
    group: &G,
    chart: &C,
    x: &SVector<f64, D>,
    mu: &SVector<f64, D>,
) -> Result<SMatrix<f64, D, D>> {
    match GroupChart::<f64, G, D>::builtin(chart) {
        Some(builtin) => group.dtau_inv_transpose_derivative(builtin, x, mu),
        None => {
            let xd = SVector::<DualSVec64<D>, D>::from_fn(|i, _| DualSVec64::from_re(x[i]).derivative(i));
            let v =
                GroupChart::<DualSVec64<D>, G, D>::dtau_inv(chart, group, &xd)?.tr_mul(&mu.map(DualSVec64::from_re));
            Ok(SMatrix::from_fn(|i, j| v[i].eps.unwrap_generic(Const::<D>, U1)[j]))
        }
    }
}
