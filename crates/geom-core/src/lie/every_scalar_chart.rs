//! A chart available **at every scalar** of a group family, so that code written once for every
//! scalar (a groupoid at scalar `S`, its algebroid, an induced discrete Lagrangian differentiated
//! by AD) can take a user's chart as it takes the shipped [`Chart`].
//!
//! A [`GroupChart<S, G, D>`](GroupChart) is implemented per scalar and per group type. Generic code
//! over a [`LieGroupFamily`] `G` works with the group at scalar `S`, `G::at::<S>()`, whose type is
//! opaque, so it cannot name the bound "`C` is a chart of `G::at::<S>()` for every `S`". An
//! [`EveryScalarChart<G, D>`] states it once: its methods are generic over the scalar and take the
//! family `G`, with the elements `G::ElementAt<S>`:
//!
//! ```text
//!   τ_S(x) ∈ G(S),   τ_S^{-1}(g) ∈ R^D,   (dτ_S)_x = right-trivialized derivative,   for every S.
//! ```
//!
//! [`Chart`] is one for every family (it forwards to the group's own formulas at `S`). A user's
//! chart of a concrete group, written once over the scalar
//! (`impl<S: Scalar> GroupChart<S, So3, 3> for MyChart`), becomes one with the one-line macro
//! [`every_scalar_chart!`](crate::every_scalar_chart). [`ChartAt`] turns it back into a
//! [`GroupChart`] of any group at scalar `S` with the family's elements (e.g. the opaque
//! `G::at::<S>()`).

use super::{Chart, GroupChart, LieGroup, LieGroupFamily};
use crate::{Result, Scalar};
use core::fmt;
use nalgebra::{SMatrix, SVector};

/// A chart `τ: g → G` of the family `G` at every scalar (module documentation). The same
/// conventions as [`GroupChart`]: `dτ_x` is right-trivialized, column `j` is
/// `(∂τ/∂x_j) τ(x)^{-1}` in `g ≅ R^D`.
pub trait EveryScalarChart<G: LieGroupFamily<D> + ?Sized, const D: usize>: fmt::Debug + Copy + Send + Sync {
    /// Lower-case name used in method names, e.g. `"exp"`, `"cayley"`.
    fn chart_name(&self) -> String;
    /// `τ(x)` at scalar `S`.
    fn tau_at<S: Scalar>(&self, group: &G, x: &SVector<S, D>) -> Result<G::ElementAt<S>>;
    /// `τ^{-1}(g)` at scalar `S` (an error outside the chart's domain).
    fn tau_inv_at<S: Scalar>(&self, group: &G, g: &G::ElementAt<S>) -> Result<SVector<S, D>>;
    /// Right-trivialized `dτ_x` at scalar `S`.
    fn dtau_at<S: Scalar>(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>>;
    /// `dτ^{-1}_x = (dτ_x)^{-1}` at scalar `S` (default: the LU inverse of
    /// [`dtau_at`](Self::dtau_at)).
    fn dtau_inv_at<S: Scalar>(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        crate::linalg::invert(&self.dtau_at(group, x)?, "chart derivative dtau")
    }
    /// The shipped chart this is, if it is one.
    fn builtin_chart(&self) -> Option<Chart> {
        None
    }
}

/// The shipped charts at every scalar: the group's own formulas at `S` ([`LieGroup::tau`] of
/// `G::at::<S>()` and friends).
impl<G: LieGroupFamily<D> + ?Sized, const D: usize> EveryScalarChart<G, D> for Chart {
    fn chart_name(&self) -> String {
        Chart::name(*self).to_string()
    }
    #[inline(always)]
    fn tau_at<S: Scalar>(&self, group: &G, x: &SVector<S, D>) -> Result<G::ElementAt<S>> {
        group.at::<S>().tau(*self, x)
    }
    #[inline(always)]
    fn tau_inv_at<S: Scalar>(&self, group: &G, g: &G::ElementAt<S>) -> Result<SVector<S, D>> {
        group.at::<S>().tau_inv(*self, g)
    }
    #[inline(always)]
    fn dtau_at<S: Scalar>(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        group.at::<S>().dtau(*self, x)
    }
    #[inline(always)]
    fn dtau_inv_at<S: Scalar>(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        group.at::<S>().dtau_inv(*self, x)
    }
    fn builtin_chart(&self) -> Option<Chart> {
        Some(*self)
    }
}

/// An [`EveryScalarChart`] of the family `G` as a [`GroupChart`] of any group `H` at scalar `S`
/// whose elements are the family's, `H::Element = G::ElementAt<S>` (the group `H` passed to its
/// methods is not used: the family is held by reference).
#[derive(Debug)]
pub struct ChartAt<'a, C, G: ?Sized> {
    chart: C,
    family: &'a G,
}

impl<C: Copy, G: ?Sized> Clone for ChartAt<'_, C, G> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C: Copy, G: ?Sized> Copy for ChartAt<'_, C, G> {}

impl<'a, C, G: ?Sized> ChartAt<'a, C, G> {
    /// `chart` of the family `family`.
    pub fn new(chart: C, family: &'a G) -> Self {
        Self { chart, family }
    }
}

impl<S, H, C, G, const D: usize> GroupChart<S, H, D> for ChartAt<'_, C, G>
where
    S: Scalar,
    G: LieGroupFamily<D> + ?Sized,
    H: LieGroup<S, D, Element = G::ElementAt<S>> + ?Sized,
    C: EveryScalarChart<G, D>,
{
    fn name(&self) -> String {
        self.chart.chart_name()
    }
    #[inline(always)]
    fn tau(&self, _: &H, x: &SVector<S, D>) -> Result<H::Element> {
        self.chart.tau_at(self.family, x)
    }
    #[inline(always)]
    fn tau_inv(&self, _: &H, g: &H::Element) -> Result<SVector<S, D>> {
        self.chart.tau_inv_at(self.family, g)
    }
    #[inline(always)]
    fn dtau(&self, _: &H, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        self.chart.dtau_at(self.family, x)
    }
    #[inline(always)]
    fn dtau_inv(&self, _: &H, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        self.chart.dtau_inv_at(self.family, x)
    }
    fn builtin(&self) -> Option<Chart> {
        self.chart.builtin_chart()
    }
}

/// `every_scalar_chart!(MyChart, MyGroup, D)`: the [`EveryScalarChart`] of a chart written once
/// over the scalar for a concrete group whose family elements are its own at every scalar
/// (`impl<S: Scalar> GroupChart<S, MyGroup, D> for MyChart` and `MyGroup::at::<S>()` the group
/// itself, as for every geom-core group and a [`MatrixGroup`](super::MatrixGroup) of the user's).
/// Each method forwards to the [`GroupChart`] at `S`.
///
/// ```
/// use geom_core::lie::{Chart, EveryScalarChart, GroupChart, LieGroup, So3};
/// use geom_core::{Result, Scalar};
/// use nalgebra::{Matrix3, SMatrix, SVector};
///
/// /// The exponential chart under another name (a stand-in for a user's chart).
/// #[derive(Debug, Clone, Copy)]
/// struct MyExp;
/// impl<S: Scalar> GroupChart<S, So3, 3> for MyExp {
///     fn name(&self) -> String { "my-exp".into() }
///     fn tau(&self, g: &So3, x: &SVector<S, 3>) -> Result<Matrix3<S>> { g.tau(Chart::Exp, x) }
///     fn tau_inv(&self, g: &So3, r: &Matrix3<S>) -> Result<SVector<S, 3>> { g.tau_inv(Chart::Exp, r) }
///     fn dtau(&self, g: &So3, x: &SVector<S, 3>) -> Result<SMatrix<S, 3, 3>> { g.dtau(Chart::Exp, x) }
/// }
/// geom_core::every_scalar_chart!(MyExp, So3, 3);
///
/// let x = SVector::<f64, 3>::new(0.1, -0.2, 0.3);
/// assert_eq!(MyExp.tau_at(&So3, &x)?, EveryScalarChart::<So3, 3>::tau_at(&Chart::Exp, &So3, &x)?);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[macro_export]
macro_rules! every_scalar_chart {
    ($chart:ty, $group:ty, $d:expr) => {
        impl $crate::lie::EveryScalarChart<$group, $d> for $chart {
            fn chart_name(&self) -> String {
                <$chart as $crate::lie::GroupChart<f64, $group, $d>>::name(self)
            }
            fn tau_at<S: $crate::Scalar>(
                &self,
                group: &$group,
                x: &nalgebra::SVector<S, $d>,
            ) -> $crate::Result<<$group as $crate::lie::LieGroupFamily<$d>>::ElementAt<S>> {
                $crate::lie::GroupChart::<S, $group, $d>::tau(self, group, x)
            }
            fn tau_inv_at<S: $crate::Scalar>(
                &self,
                group: &$group,
                g: &<$group as $crate::lie::LieGroupFamily<$d>>::ElementAt<S>,
            ) -> $crate::Result<nalgebra::SVector<S, $d>> {
                $crate::lie::GroupChart::<S, $group, $d>::tau_inv(self, group, g)
            }
            fn dtau_at<S: $crate::Scalar>(
                &self,
                group: &$group,
                x: &nalgebra::SVector<S, $d>,
            ) -> $crate::Result<nalgebra::SMatrix<S, $d, $d>> {
                $crate::lie::GroupChart::<S, $group, $d>::dtau(self, group, x)
            }
            fn dtau_inv_at<S: $crate::Scalar>(
                &self,
                group: &$group,
                x: &nalgebra::SVector<S, $d>,
            ) -> $crate::Result<nalgebra::SMatrix<S, $d, $d>> {
                $crate::lie::GroupChart::<S, $group, $d>::dtau_inv(self, group, x)
            }
            fn builtin_chart(&self) -> Option<$crate::lie::Chart> {
                $crate::lie::GroupChart::<f64, $group, $d>::builtin(self)
            }
        }
    };
}
