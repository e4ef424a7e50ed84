//! The product chart of a direct product `A × B` ([`Product`]): a chart of each factor, applied
//! factorwise (a [`GroupChart`] at each scalar and an [`EveryScalarChart`] of the product family).

use super::product::{diag, join, split};
use super::{Chart, EveryScalarChart, GroupChart, LieGroup, LieGroupFamily, Product};
use crate::{Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// The product chart `τ(a, b) = (τ_A(a), τ_B(b))` of `A × B` from a chart of each factor (e.g.
/// the identity chart of `R^M` and a user's chart of `G` for `R^M × G`). Its derivatives are
/// block diagonal, `dτ_(a, b) = diag(dτ_A_a, dτ_B_b)` (right-trivialized, as every [`GroupChart`]),
/// and so is `dτ^{-1}`. When both factors are the same shipped chart it is that chart, which the
/// product group applies factorwise ([`GroupChart::builtin`]).
///
/// ```
/// use geom_core::lie::{Chart, GroupChart, LieGroup, Product, ProductChart, Rn, So3};
/// use nalgebra::SVector;
/// let q = Product::<Rn<2>, So3, 2, 3>::new(Rn, So3);
/// let x = SVector::<f64, 5>::new(0.5, -1.0, 0.1, 0.2, -0.3);
/// let c = ProductChart(Chart::Exp, Chart::Cayley);
/// let (v, r) = c.tau(&q, &x)?;
/// assert_eq!(v, nalgebra::Vector2::new(0.5, -1.0));
/// assert!((r - So3.tau(Chart::Cayley, &x.fixed_rows::<3>(2).into_owned())?).amax() < 1e-15);
/// assert!((c.tau_inv(&q, &(v, r))? - x).amax() < 1e-15);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ProductChart<CA, CB>(pub CA, pub CB);

impl<S, A, B, CA, CB, const DA: usize, const DB: usize, const D: usize> GroupChart<S, Product<A, B, DA, DB>, D>
    for ProductChart<CA, CB>
where
    S: Scalar,
    A: LieGroup<S, DA>,
    B: LieGroup<S, DB>,
    CA: GroupChart<S, A, DA>,
    CB: GroupChart<S, B, DB>,
{
    /// `"τ_A × τ_B"`.
    fn name(&self) -> String {
        format!("{} × {}", self.0.name(), self.1.name())
    }
    fn tau(&self, g: &Product<A, B, DA, DB>, x: &SVector<S, D>) -> Result<(A::Element, B::Element)> {
        let (a, b) = split::<S, D, DA, DB>(x);
        Ok((self.0.tau(&g.0, &a)?, self.1.tau(&g.1, &b)?))
    }
    fn tau_inv(&self, g: &Product<A, B, DA, DB>, e: &(A::Element, B::Element)) -> Result<SVector<S, D>> {
        Ok(join::<S, D, DA, DB>(&self.0.tau_inv(&g.0, &e.0)?, &self.1.tau_inv(&g.1, &e.1)?))
    }
    fn dtau(&self, g: &Product<A, B, DA, DB>, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        let (a, b) = split::<S, D, DA, DB>(x);
        Ok(diag::<S, D, DA, DB>(&self.0.dtau(&g.0, &a)?, &self.1.dtau(&g.1, &b)?))
    }
    fn dtau_inv(&self, g: &Product<A, B, DA, DB>, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        let (a, b) = split::<S, D, DA, DB>(x);
        Ok(diag::<S, D, DA, DB>(&self.0.dtau_inv(&g.0, &a)?, &self.1.dtau_inv(&g.1, &b)?))
    }
    fn builtin(&self) -> Option<Chart> {
        match (self.0.builtin(), self.1.builtin()) {
            (Some(a), Some(b)) if a == b => Some(a),
            _ => None,
        }
    }
}

/// The product chart at every scalar of a product family.
impl<A, B, CA, CB, const DA: usize, const DB: usize, const D: usize> EveryScalarChart<Product<A, B, DA, DB>, D>
    for ProductChart<CA, CB>
where
    A: LieGroupFamily<DA>,
    B: LieGroupFamily<DB>,
    CA: EveryScalarChart<A, DA>,
    CB: EveryScalarChart<B, DB>,
{
    fn chart_name(&self) -> String {
        format!("{} × {}", self.0.chart_name(), self.1.chart_name())
    }
    fn tau_at<S: Scalar>(
        &self,
        g: &Product<A, B, DA, DB>,
        x: &SVector<S, D>,
    ) -> Result<(A::ElementAt<S>, B::ElementAt<S>)> {
        let (a, b) = split::<S, D, DA, DB>(x);
        Ok((self.0.tau_at(&g.0, &a)?, self.1.tau_at(&g.1, &b)?))
    }
    fn tau_inv_at<S: Scalar>(
        &self,
        g: &Product<A, B, DA, DB>,
        e: &(A::ElementAt<S>, B::ElementAt<S>),
    ) -> Result<SVector<S, D>> {
        Ok(join::<S, D, DA, DB>(&self.0.tau_inv_at(&g.0, &e.0)?, &self.1.tau_inv_at(&g.1, &e.1)?))
    }
    fn dtau_at<S: Scalar>(&self, g: &Product<A, B, DA, DB>, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        let (a, b) = split::<S, D, DA, DB>(x);
        Ok(diag::<S, D, DA, DB>(&self.0.dtau_at(&g.0, &a)?, &self.1.dtau_at(&g.1, &b)?))
    }
    fn dtau_inv_at<S: Scalar>(&self, g: &Product<A, B, DA, DB>, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        let (a, b) = split::<S, D, DA, DB>(x);
        Ok(diag::<S, D, DA, DB>(&self.0.dtau_inv_at(&g.0, &a)?, &self.1.dtau_inv_at(&g.1, &b)?))
    }
    fn builtin_chart(&self) -> Option<Chart> {
        match (self.0.builtin_chart(), self.1.builtin_chart()) {
            (Some(a), Some(b)) if a == b => Some(a),
            _ => None,
        }
    }
}
