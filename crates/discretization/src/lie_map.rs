//! Discretization maps on a Lie group `G` with the derivatives their cotangent lift needs.
//!
//! Tangent vectors are left-trivialized, `v_g = g ξ`, and so are the derivatives of the two
//! components `R^i(g, ξ)` of a map: along `(g exp(εη), ξ + εδ)`,
//!
//! ```text
//!   R^i(g, ξ)^{-1} · d/dε R^i(g exp(εη), ξ + εδ) |_{ε=0} = A^i η + B^i δ        (i = 1, 2).
//! ```
//!
//! For the θ-map `R_d(g, ξ) = (g τ(-θξ), g τ((1-θ)ξ))` ([`LieGroupThetaMap`]) of any chart
//! `τ` ([`GroupChart`]: the shipped [`Chart`](geom_core::lie::Chart) or a user's,
//! [`crate::lie_chart`]), with its right-trivialized `dτ`:
//!
//! ```text
//!   A^1 = Ad_{τ(θξ)},   B^1 = -θ dτ_{θξ},   A^2 = Ad_{τ(-(1-θ)ξ)},   B^2 = (1-θ) dτ_{-(1-θ)ξ}.
//! ```
//! (`τ(-x) = τ(x)^{-1}` for every chart, and the left-trivialized `dτ` at `x` is the
//! right-trivialized one at `-x`.) The defining property `T R^2 - T R^1 = Id` at `ξ = 0` reads
//! `B^2 - B^1 = Id`, `A^1 = A^2` there.
//!
//! The Newton matrix of the induced integrator also needs how the contracted blocks
//! `A^1ᵀ P_0 + A^2ᵀ P_1` and `B^1ᵀ P_0 + B^2ᵀ P_1` change with `(g, ξ)` for fixed `P_0, P_1 ∈ g*`
//! ([`LieCovectorDerivative`]; the analogue of [`crate::CovectorHessian`] on `R^N`).
//!
//! * [`LieGroupMap`]: the object-safe trait (`Box<dyn LieGroupMap<So3, 3>>`) the integrators
//!   consume, implemented by [`LieGroupThetaMap`], by the map of [`LieGroupRetraction`] and by
//!   [`LieAutoDiffMap`];
//! * [`LieMapModel`]: a user's map written once over the scalar; [`LieAutoDiffMap`] gives it
//!   exact derivatives by forward AD (`DualSVec64<D>` for the blocks, `HyperDualSVec64<D, D>` for
//!   their derivatives), through the Cayley chart at the reference point:
//!   `A^i η + B^i δ = d/dε cay^{-1}(R^i(g, ξ)^{-1} R^i(g exp(εη), ξ + εδ))` (`dcay^{-1}_0 = Id`);
//! * [`LieRetractionModel`]: a retraction `R_g(ξ)` on `G` written over the scalar; its θ-map
//!   `(R_g(-θξ), R_g((1-θ)ξ))` is a [`LieMapModel`] through [`RetractionMap`].

use crate::lie_chart::{AdGroupChart, ThetaChart};
use crate::lie_function::{AdLieGroup, lift, translated};
use crate::lie_group::LieGroupThetaMap;
use crate::map::DiscretizationMap;
use crate::retraction::{LieGroupRetraction, RetractionMap, lie_distance};
use geom_core::function::ad_jacobian_of;
use geom_core::lie::{GroupChart, LieGroup};
use geom_core::newton::newton_blocks;
use geom_core::{GeomError, Scalar};
use nalgebra::{Const, SMatrix, SVector, U1};
use num_dual::{Derivative, Dual64, DualSVec64, HyperDualSVec64};
use std::fmt::Debug;

/// The left-trivialized Jacobian blocks of a map on `G` at `(g, ξ)` (module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LieMapJacobian<const D: usize> {
    /// `A^1`: derivative of `R^1` along `g exp(εη)`.
    pub a1: SMatrix<f64, D, D>,
    /// `B^1`: derivative of `R^1` along `ξ + εδ`.
    pub b1: SMatrix<f64, D, D>,
    /// `A^2`.
    pub a2: SMatrix<f64, D, D>,
    /// `B^2`.
    pub b2: SMatrix<f64, D, D>,
}

/// Derivatives of `a(g, ξ) = A^1ᵀ P_0 + A^2ᵀ P_1` and `b(g, ξ) = B^1ᵀ P_0 + B^2ᵀ P_1` for
/// fixed `P_0, P_1`, along `(g exp(η), ξ + δ)`: `ag[(i, j)] = ∂a_i/∂η_j`, `ax = ∂a/∂δ`,
/// `bg = ∂b/∂η`, `bx = ∂b/∂δ`. All zero on `R^N` for the affine θ-maps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LieCovectorDerivative<const D: usize> {
    /// `∂a/∂η`.
    pub ag: SMatrix<f64, D, D>,
    /// `∂a/∂δ`.
    pub ax: SMatrix<f64, D, D>,
    /// `∂b/∂η`.
    pub bg: SMatrix<f64, D, D>,
    /// `∂b/∂δ`.
    pub bx: SMatrix<f64, D, D>,
}

/// A discretization map on the Lie group `G` with its left-trivialized derivatives: what
/// [`crate::LieCotangentLiftIntegrator`] consumes. Object-safe: `Box<dyn LieGroupMap<So3, 3>>`.
pub trait LieGroupMap<G: LieGroup<f64, D>, const D: usize>:
    DiscretizationMap<Point = G::Element, Tangent = SVector<f64, D>>
{
    /// The group.
    fn group(&self) -> &G;
    /// `(A^1, B^1, A^2, B^2)` at `(g, ξ)`.
    fn lie_jacobian(&self, g: &G::Element, xi: &SVector<f64, D>) -> Result<LieMapJacobian<D>, GeomError>;
    /// The derivatives of the contracted blocks for the covectors `(P_0, P_1)`.
    fn covector_derivative(
        &self,
        g: &G::Element,
        xi: &SVector<f64, D>,
        p0: &SVector<f64, D>,
        p1: &SVector<f64, D>,
    ) -> Result<LieCovectorDerivative<D>, GeomError>;
    /// `Some((θ, τ))` if the map is the θ-map `(g τ(-θξ), g τ((1-θ)ξ))` of the chart `τ`: the
    /// integrators then solve the reduced system of [`crate::lie_hamiltonian`] (two blocks
    /// instead of four) and of [`crate::lie_poisson`]. Any [`GroupChart`] can be reported:
    /// [`ThetaChart::of`] gives a shipped chart by value ([`ThetaChart::Shipped`], compiled with
    /// its closed forms) and a user's chart by reference ([`ThetaChart::User`]). Default `None`.
    fn theta_chart(&self) -> Option<(f64, ThetaChart<'_, G, D>)> {
        None
    }
}

impl<G: LieGroup<f64, D>, M: LieGroupMap<G, D> + ?Sized, const D: usize> LieGroupMap<G, D> for Box<M> {
    fn group(&self) -> &G {
        (**self).group()
    }
    fn lie_jacobian(&self, g: &G::Element, xi: &SVector<f64, D>) -> Result<LieMapJacobian<D>, GeomError> {
        (**self).lie_jacobian(g, xi)
    }
    fn covector_derivative(
        &self,
        g: &G::Element,
        xi: &SVector<f64, D>,
        p0: &SVector<f64, D>,
        p1: &SVector<f64, D>,
    ) -> Result<LieCovectorDerivative<D>, GeomError> {
        (**self).covector_derivative(g, xi, p0, p1)
    }
    #[inline]
    fn theta_chart(&self) -> Option<(f64, ThetaChart<'_, G, D>)> {
        (**self).theta_chart()
    }
}

// ---------------------------------------------------------------------------------------------
// The θ-family in closed form.

/// `(A^1ᵀP_0 + A^2ᵀP_1, B^1ᵀP_0 + B^2ᵀP_1)` of the θ-map of any chart `τ` ([`GroupChart`]) at
/// any scalar, with `A^1 = Ad_{τ(θξ)}`, `B^1 = -θ dτ_{θξ}`, `A^2 = Ad_{τ(-(1-θ)ξ)}`,
/// `B^2 = (1-θ) dτ_{-(1-θ)ξ}` (module documentation).
#[inline]
fn theta_contracted<G: LieGroup<S, D>, C: GroupChart<S, G, D>, S: Scalar, const D: usize>(
    group: &G,
    chart: &C,
    theta: f64,
    xi: &SVector<S, D>,
    p0: &SVector<S, D>,
    p1: &SVector<S, D>,
) -> Result<(SVector<S, D>, SVector<S, D>), GeomError> {
    let (x1, x2) = (xi * S::from(theta), xi * S::from(1.0 - theta));
    let a1 = group.adjoint(&chart.tau(group, &x1)?);
    let a2 = group.adjoint(&chart.tau(group, &(-x2))?);
    let b1 = chart.dtau(group, &x1)? * S::from(-theta);
    let b2 = chart.dtau(group, &(-x2))? * S::from(1.0 - theta);
    Ok((a1.tr_mul(p0) + a2.tr_mul(p1), b1.tr_mul(p0) + b2.tr_mul(p1)))
}

/// The θ-map of any chart ([`AdGroupChart`]: a [`GroupChart`] at `f64`, `Dual64` and
/// `DualSVec64<D>`), with its blocks in closed form (module documentation) and the reduced
/// θ-map system through [`LieGroupMap::theta_chart`].
impl<G, C, const D: usize> LieGroupMap<G, D> for LieGroupThetaMap<G, D, C>
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
    C: AdGroupChart<G, D>,
{
    fn group(&self) -> &G {
        LieGroupThetaMap::group(self)
    }
    fn lie_jacobian(
        &self,
        _g: &<G as LieGroup<f64, D>>::Element,
        xi: &SVector<f64, D>,
    ) -> Result<LieMapJacobian<D>, GeomError> {
        theta_jacobian(self.group(), &self.chart(), self.value(), xi)
    }
    fn covector_derivative(
        &self,
        _g: &<G as LieGroup<f64, D>>::Element,
        xi: &SVector<f64, D>,
        p0: &SVector<f64, D>,
        p1: &SVector<f64, D>,
    ) -> Result<LieCovectorDerivative<D>, GeomError> {
        theta_covector_derivative(self.group(), &self.chart(), self.value(), xi, p0, p1)
    }
    #[inline]
    fn theta_chart(&self) -> Option<(f64, ThetaChart<'_, G, D>)> {
        Some((self.value(), ThetaChart::of(self.chart_ref())))
    }
}

/// `(A^1, B^1, A^2, B^2) = (Ad_{τ(θξ)}, -θ dτ_{θξ}, Ad_{τ(-(1-θ)ξ)}, (1-θ) dτ_{-(1-θ)ξ})` of the
/// θ-map of any chart (module documentation).
#[inline]
fn theta_jacobian<G: LieGroup<f64, D>, C: GroupChart<f64, G, D>, const D: usize>(
    group: &G,
    chart: &C,
    theta: f64,
    xi: &SVector<f64, D>,
) -> Result<LieMapJacobian<D>, GeomError> {
    let (x1, x2) = (xi * theta, xi * (1.0 - theta));
    Ok(LieMapJacobian {
        a1: group.adjoint(&chart.tau(group, &x1)?),
        b1: chart.dtau(group, &x1)? * -theta,
        a2: group.adjoint(&chart.tau(group, &(-x2))?),
        b2: chart.dtau(group, &(-x2))? * (1.0 - theta),
    })
}

/// The ξ-derivatives of the contracted blocks `A^1ᵀP_0 + A^2ᵀP_1`, `B^1ᵀP_0 + B^2ᵀP_1` of the
/// θ-map of any chart, by forward AD through [`theta_contracted`] (the chart at `Dual64` or
/// `DualSVec64<D>`); the `g`-derivatives vanish (the θ-map is left-equivariant).
fn theta_covector_derivative<G, C, const D: usize>(
    group: &G,
    chart: &C,
    theta: f64,
    xi: &SVector<f64, D>,
    p0: &SVector<f64, D>,
    p1: &SVector<f64, D>,
) -> Result<LieCovectorDerivative<D>, GeomError>
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
    C: AdGroupChart<G, D>,
{
    let part = |which: usize| {
        ad_jacobian_of(
            xi,
            |x: &SVector<Dual64, D>| {
                let c = theta_contracted(group, chart, theta, x, &p0.map(Dual64::from), &p1.map(Dual64::from))?;
                Ok(if which == 0 { c.0 } else { c.1 })
            },
            |x: &SVector<DualSVec64<D>, D>| {
                let c = theta_contracted(
                    group,
                    chart,
                    theta,
                    x,
                    &p0.map(DualSVec64::<D>::from),
                    &p1.map(DualSVec64::<D>::from),
                )?;
                Ok(if which == 0 { c.0 } else { c.1 })
            },
        )
    };
    // the θ-map is left-equivariant: the blocks do not depend on g
    Ok(LieCovectorDerivative { ag: SMatrix::zeros(), ax: part(0)?, bg: SMatrix::zeros(), bx: part(1)? })
}

/// The map of the retraction `g τ(ξ)` of any chart ([`AdGroupChart`]) is the θ-map of `τ`:
/// the same closed-form blocks and the same reduced θ-map system.
impl<G, C, const D: usize> LieGroupMap<G, D> for RetractionMap<LieGroupRetraction<G, D, C>>
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
    C: AdGroupChart<G, D>,
{
    fn group(&self) -> &G {
        self.retraction().group()
    }
    fn lie_jacobian(
        &self,
        _g: &<G as LieGroup<f64, D>>::Element,
        xi: &SVector<f64, D>,
    ) -> Result<LieMapJacobian<D>, GeomError> {
        theta_jacobian(self.retraction().group(), &self.retraction().chart(), self.value(), xi)
    }
    fn covector_derivative(
        &self,
        _g: &<G as LieGroup<f64, D>>::Element,
        xi: &SVector<f64, D>,
        p0: &SVector<f64, D>,
        p1: &SVector<f64, D>,
    ) -> Result<LieCovectorDerivative<D>, GeomError> {
        theta_covector_derivative(self.retraction().group(), &self.retraction().chart(), self.value(), xi, p0, p1)
    }
    /// The map of `g τ(ξ)` is the θ-map of `τ` (same formulas).
    #[inline]
    fn theta_chart(&self) -> Option<(f64, ThetaChart<'_, G, D>)> {
        Some((self.value(), ThetaChart::of(self.retraction().chart_ref())))
    }
}

// ---------------------------------------------------------------------------------------------
// Maps written once over the scalar.

/// A discretization map `R_d(g, ξ) = (R^1(g, ξ), R^2(g, ξ))` on `G` at the scalar `S`, written
/// once for every scalar (`impl<S: Scalar> LieMapModel<S, G, D> for MyMap`); [`LieAutoDiffMap`]
/// makes it a [`LieGroupMap`]. It must satisfy `R_d(g, 0) = (g, g)` and `B^2 - B^1 = Id` at
/// `ξ = 0` ([`crate::check_discretization_map`] with [`crate::LieChart`] measures both).
pub trait LieMapModel<S: Scalar, G: LieGroup<S, D>, const D: usize>: Debug + Send + Sync {
    /// Name, e.g. `"tilted midpoint"`.
    fn name(&self) -> String;
    /// `(R^1(g, ξ), R^2(g, ξ))`.
    fn eval(&self, group: &G, g: &G::Element, xi: &SVector<S, D>) -> Result<(G::Element, G::Element), GeomError>;
    /// Whether the map is self-adjoint, `(R^2(g, -ξ), R^1(g, -ξ)) = R_d(g, ξ)`.
    fn is_symmetric(&self) -> bool {
        false
    }
}

/// A [`LieMapModel`] at the scalars [`LieAutoDiffMap`] uses.
pub trait AdLieMapModel<G: AdLieGroup<D>, const D: usize>:
    LieMapModel<f64, G, D> + LieMapModel<DualSVec64<D>, G, D> + LieMapModel<HyperDualSVec64<D, D>, G, D>
{
}

impl<G: AdLieGroup<D>, M, const D: usize> AdLieMapModel<G, D> for M where
    M: LieMapModel<f64, G, D> + LieMapModel<DualSVec64<D>, G, D> + LieMapModel<HyperDualSVec64<D, D>, G, D>
{
}

/// A retraction `R_g(ξ)` on `G` (left-trivialized `ξ`) at the scalar `S`, written once for every
/// scalar: `R_g(0) = g` and `d/dε g^{-1} R_g(εδ) = δ`. [`RetractionMap`] of it is a
/// [`LieMapModel`]; [`LieGroupRetraction`] (`g τ(ξ)`) is one.
pub trait LieRetractionModel<S: Scalar, G: LieGroup<S, D>, const D: usize>: Debug + Send + Sync {
    /// Name.
    fn name(&self) -> String;
    /// `R_g(ξ)`.
    fn retract(&self, group: &G, g: &G::Element, xi: &SVector<S, D>) -> Result<G::Element, GeomError>;
}

impl<S: Scalar, G: LieGroup<S, D>, C: GroupChart<S, G, D>, const D: usize> LieRetractionModel<S, G, D>
    for LieGroupRetraction<G, D, C>
{
    fn name(&self) -> String {
        format!("{} left-translated {}", LieGroup::<S, D>::name(self.group()), self.chart().name())
    }
    fn retract(&self, group: &G, g: &G::Element, xi: &SVector<S, D>) -> Result<G::Element, GeomError> {
        self.chart().compose_tau(group, g, xi)
    }
}

impl<S: Scalar, G: LieGroup<S, D>, R: LieRetractionModel<S, G, D>, const D: usize> LieMapModel<S, G, D>
    for RetractionMap<R>
{
    fn name(&self) -> String {
        format!("{} theta-map (theta = {})", self.retraction().name(), self.value())
    }
    /// `(R_g(-θξ), R_g((1-θ)ξ))`.
    #[inline]
    fn eval(&self, group: &G, g: &G::Element, xi: &SVector<S, D>) -> Result<(G::Element, G::Element), GeomError> {
        let th = self.value();
        Ok((
            self.retraction().retract(group, g, &(xi * S::from(-th)))?,
            self.retraction().retract(group, g, &(xi * S::from(1.0 - th)))?,
        ))
    }
    fn is_symmetric(&self) -> bool {
        self.value() == 0.5
    }
}

/// A [`LieMapModel`] on `group` as a [`LieGroupMap`], with derivatives by forward AD (module
/// documentation) and the inverse `R_d^{-1}(g_0, g_1)` by Newton.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LieAutoDiffMap<G, M, const D: usize> {
    group: G,
    model: M,
}

impl<G, M, const D: usize> LieAutoDiffMap<G, M, D> {
    /// The map `model` on `group`.
    pub fn new(group: G, model: M) -> Self {
        Self { group, model }
    }
    /// The model.
    pub fn model(&self) -> &M {
        &self.model
    }
}

/// `Σ_i <P_i, cay^{-1}(ref_i^{-1} pert_i)>`.
fn pair_offsets<G: LieGroup<S, D>, S: Scalar, const D: usize>(
    group: &G,
    reference: &(G::Element, G::Element),
    perturbed: &(G::Element, G::Element),
    p0: &SVector<f64, D>,
    p1: &SVector<f64, D>,
) -> Result<S, GeomError> {
    let w0 = group.cayley_inv(&group.compose(&group.inverse(&reference.0), &perturbed.0))?;
    let w1 = group.cayley_inv(&group.compose(&group.inverse(&reference.1), &perturbed.1))?;
    Ok(w0.dot(&p0.map(S::from)) + w1.dot(&p1.map(S::from)))
}

/// `(R^1, R^2)` at the scalar `S`.
type ElementPair<G, S, const D: usize> = (<G as LieGroup<S, D>>::Element, <G as LieGroup<S, D>>::Element);

/// The unit-seeded vector `x + ε` at `DualSVec64<D>`.
fn seeded<const D: usize>(x: &SVector<f64, D>) -> SVector<DualSVec64<D>, D> {
    SVector::from_fn(|i, _| {
        let mut d = DualSVec64::<D>::from(x[i]);
        d.eps = Derivative::derivative_generic(Const::<D>, U1, i);
        d
    })
}

impl<G: AdLieGroup<D>, M: AdLieMapModel<G, D>, const D: usize> LieAutoDiffMap<G, M, D> {
    /// `R_d` at `(g exp(a) exp(b), ξ + c + d)` at the scalar `S`.
    #[allow(clippy::too_many_arguments)]
    fn eval_at<S: Scalar>(
        &self,
        g: &<G as LieGroup<f64, D>>::Element,
        xi: &SVector<f64, D>,
        a: Option<&SVector<S, D>>,
        b: Option<&SVector<S, D>>,
        c: Option<&SVector<S, D>>,
        d: Option<&SVector<S, D>>,
    ) -> Result<ElementPair<G, S, D>, GeomError>
    where
        G: LieGroup<S, D, Element = <G as geom_core::lie::LieGroupFamily<D>>::ElementAt<S>>,
        M: LieMapModel<S, G, D>,
    {
        let gs = translated::<G, S, D>(&self.group, g, [a, b]);
        let mut xs = xi.map(S::from);
        for x in [c, d].into_iter().flatten() {
            xs += x;
        }
        LieMapModel::<S, G, D>::eval(&self.model, &self.group, &gs, &xs)
    }

    /// One `HyperDualSVec64<D, D>` pass: `[(j, k)] = ∂²φ/∂x_j∂y_k` with `x` seeding the base point
    /// (`g exp(x)` if `x_on_g`, else `ξ + x`) and `y` the direction (`g exp(x) exp(y)` or `ξ + y`).
    fn mixed_block(
        &self,
        g: &<G as LieGroup<f64, D>>::Element,
        xi: &SVector<f64, D>,
        p0: &SVector<f64, D>,
        p1: &SVector<f64, D>,
        x_on_g: bool,
        y_on_g: bool,
    ) -> Result<SMatrix<f64, D, D>, GeomError> {
        type H<const D: usize> = HyperDualSVec64<D, D>;
        let zero = SVector::<f64, D>::zeros();
        let (_, _, _, m) = num_dual::partial_hessian(
            |(x, y): (SVector<H<D>, D>, SVector<H<D>, D>)| -> Result<H<D>, GeomError> {
                let (a, c) = if x_on_g { (Some(&x), None) } else { (None, Some(&x)) };
                let reference = self.eval_at::<H<D>>(g, xi, a, None, c, None)?;
                let perturbed = if y_on_g {
                    self.eval_at::<H<D>>(g, xi, a, Some(&y), c, None)?
                } else {
                    self.eval_at::<H<D>>(g, xi, a, None, c, Some(&y))?
                };
                pair_offsets(&self.group, &reference, &perturbed, p0, p1)
            },
            (&zero, &zero),
        )?;
        Ok(m)
    }
}

impl<G: AdLieGroup<D>, M: AdLieMapModel<G, D>, const D: usize> DiscretizationMap for LieAutoDiffMap<G, M, D> {
    type Point = <G as LieGroup<f64, D>>::Element;
    type Tangent = SVector<f64, D>;
    fn name(&self) -> String {
        LieMapModel::<f64, G, D>::name(&self.model)
    }
    fn apply(&self, g: &Self::Point, xi: &SVector<f64, D>) -> Result<(Self::Point, Self::Point), GeomError> {
        geom_core::error::check_finite(xi.iter(), "Lie algebra element")?;
        LieMapModel::<f64, G, D>::eval(&self.model, &self.group, g, xi)
    }
    /// Newton on `(ζ, ξ)`, `g = g_0 exp(ζ)`, for `cay^{-1}(g_0^{-1} R^1) = 0`,
    /// `cay^{-1}(g_1^{-1} R^2) = 0`, from `ζ = 0`, `ξ = cay^{-1}(g_0^{-1} g_1)`, with the Jacobian
    /// `[dcay^{-1}_{-w_i} (A^i dexp_{-ζ}, B^i)]`.
    fn inverse(&self, g0: &Self::Point, g1: &Self::Point) -> Result<(Self::Point, SVector<f64, D>), GeomError> {
        let grp = &self.group;
        let w = LieGroup::<f64, D>::cayley_inv(
            grp,
            &LieGroup::<f64, D>::compose(grp, &LieGroup::<f64, D>::inverse(grp, g0), g1),
        )?;
        let ([zeta, xi], _) = newton_blocks::<D, 2>(
            |z, jac| {
                let g = LieGroup::<f64, D>::compose(grp, g0, &LieGroup::<f64, D>::exp(grp, &z[0]));
                let (r1, r2) = self.apply(&g, &z[1])?;
                let w0 = LieGroup::<f64, D>::cayley_inv(
                    grp,
                    &LieGroup::<f64, D>::compose(grp, &LieGroup::<f64, D>::inverse(grp, g0), &r1),
                )?;
                let w1 = LieGroup::<f64, D>::cayley_inv(
                    grp,
                    &LieGroup::<f64, D>::compose(grp, &LieGroup::<f64, D>::inverse(grp, g1), &r2),
                )?;
                if let Some(j) = jac {
                    let m = self.lie_jacobian(&g, &z[1])?;
                    let t = LieGroup::<f64, D>::dexp(grp, &(-z[0]));
                    let (c0, c1) =
                        (LieGroup::<f64, D>::dcay_inv(grp, &(-w0)), LieGroup::<f64, D>::dcay_inv(grp, &(-w1)));
                    *j = [[c0 * m.a1 * t, c0 * m.b1], [c1 * m.a2 * t, c1 * m.b2]];
                }
                Ok([w0, w1])
            },
            &[SVector::zeros(), w],
            &geom_core::newton::NewtonOptions::integrator(),
        )?;
        Ok((LieGroup::<f64, D>::compose(grp, g0, &LieGroup::<f64, D>::exp(grp, &zeta)), xi))
    }
    fn distance(&self, a: &Self::Point, b: &Self::Point) -> f64 {
        lie_distance(&self.group, a, b)
    }
    fn is_symmetric(&self) -> bool {
        LieMapModel::<f64, G, D>::is_symmetric(&self.model)
    }
}

impl<G: AdLieGroup<D>, M: AdLieMapModel<G, D>, const D: usize> LieGroupMap<G, D> for LieAutoDiffMap<G, M, D> {
    fn group(&self) -> &G {
        &self.group
    }
    fn lie_jacobian(
        &self,
        g: &<G as LieGroup<f64, D>>::Element,
        xi: &SVector<f64, D>,
    ) -> Result<LieMapJacobian<D>, GeomError> {
        let reference = self.apply(g, xi)?;
        let grp = &self.group;
        let rd = (lift::<G, DualSVec64<D>, D>(grp, &reference.0), lift::<G, DualSVec64<D>, D>(grp, &reference.1));
        let seeds = seeded::<D>(&SVector::zeros());
        let mut out = [[SMatrix::<f64, D, D>::zeros(); 2]; 2];
        for (col, on_g) in [true, false].into_iter().enumerate() {
            let pert = if on_g {
                self.eval_at::<DualSVec64<D>>(g, xi, Some(&seeds), None, None, None)?
            } else {
                self.eval_at::<DualSVec64<D>>(g, xi, None, None, Some(&seeds), None)?
            };
            for (row, (r, p)) in [(&rd.0, &pert.0), (&rd.1, &pert.1)].into_iter().enumerate() {
                type X<const D: usize> = DualSVec64<D>;
                let w = LieGroup::<X<D>, D>::cayley_inv(
                    grp,
                    &LieGroup::<X<D>, D>::compose(grp, &LieGroup::<X<D>, D>::inverse(grp, r), p),
                )?;
                for i in 0..D {
                    let e = w[i].eps.unwrap_generic(Const::<D>, U1);
                    for k in 0..D {
                        out[row][col][(i, k)] = e[k];
                    }
                }
            }
        }
        let [[a1, b1], [a2, b2]] = out;
        let jac = LieMapJacobian { a1, b1, a2, b2 };
        for m in [&jac.a1, &jac.b1, &jac.a2, &jac.b2] {
            geom_core::error::check_finite(m.iter(), "map Jacobian on G")?;
        }
        Ok(jac)
    }
    fn covector_derivative(
        &self,
        g: &<G as LieGroup<f64, D>>::Element,
        xi: &SVector<f64, D>,
        p0: &SVector<f64, D>,
        p1: &SVector<f64, D>,
    ) -> Result<LieCovectorDerivative<D>, GeomError> {
        // [(j, k)] = ∂/∂x_j (contracted block)_k, so each block is the transpose
        let d = LieCovectorDerivative {
            ag: self.mixed_block(g, xi, p0, p1, true, true)?.transpose(),
            ax: self.mixed_block(g, xi, p0, p1, false, true)?.transpose(),
            bg: self.mixed_block(g, xi, p0, p1, true, false)?.transpose(),
            bx: self.mixed_block(g, xi, p0, p1, false, false)?.transpose(),
        };
        for m in [&d.ag, &d.ax, &d.bg, &d.bx] {
            geom_core::error::check_finite(m.iter(), "map second derivatives on G")?;
        }
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::sample_algebra;
    use geom_core::lie::{Chart, Se3, So3};

    /// The θ-map written as a model (so that its AD derivatives can be compared with the closed
    /// form), through the retraction `g τ(ξ)`.
    fn model<G, const D: usize>(
        group: G,
        chart: Chart,
        theta: f64,
    ) -> LieAutoDiffMap<G, RetractionMap<LieGroupRetraction<G, D>>, D>
    where
        G: Copy,
    {
        LieAutoDiffMap::new(group, RetractionMap::new(LieGroupRetraction::new(group, chart), theta).unwrap())
    }

    fn compare<G, const D: usize>(group: G)
    where
        G: AdLieGroup<D> + Copy + LieGroup<Dual64, D>,
    {
        let xs = sample_algebra::<D>(4, 1.0, 3);
        let gs: Vec<_> = sample_algebra::<D>(4, 2.0, 4).iter().map(|x| LieGroup::<f64, D>::exp(&group, x)).collect();
        let ps = sample_algebra::<D>(8, 1.5, 5);
        for chart in [Chart::Exp, Chart::Cayley] {
            for theta in [0.0, 0.3, 0.5] {
                let exact = LieGroupThetaMap::<G, D>::new(group, theta, chart).unwrap();
                let ad = model::<G, D>(group, chart, theta);
                for (k, (g, xi)) in gs.iter().zip(&xs).enumerate() {
                    let (j1, j2) = (exact.lie_jacobian(g, xi).unwrap(), ad.lie_jacobian(g, xi).unwrap());
                    for (a, b) in [(j1.a1, j2.a1), (j1.b1, j2.b1), (j1.a2, j2.a2), (j1.b2, j2.b2)] {
                        assert!((a - b).amax() < 1e-13, "{chart:?} θ = {theta}: {a} vs {b}");
                    }
                    let (p0, p1) = (ps[2 * k], ps[2 * k + 1]);
                    let (c1, c2) = (
                        exact.covector_derivative(g, xi, &p0, &p1).unwrap(),
                        ad.covector_derivative(g, xi, &p0, &p1).unwrap(),
                    );
                    for (a, b) in [(c1.ag, c2.ag), (c1.ax, c2.ax), (c1.bg, c2.bg), (c1.bx, c2.bx)] {
                        assert!((a - b).amax() < 1e-12, "{chart:?} θ = {theta}: {a} vs {b}");
                    }
                    // inverse of the AD map
                    let (g0, g1) = ad.apply(g, xi).unwrap();
                    let (gi, xii) = ad.inverse(&g0, &g1).unwrap();
                    assert!(lie_distance(&group, &gi, g) < 1e-12 && (xii - xi).amax() < 1e-12);
                }
            }
        }
    }

    #[test]
    fn ad_derivatives_of_a_model_equal_the_closed_form_of_the_theta_map() {
        compare::<So3, 3>(So3);
        compare::<Se3, 6>(Se3);
    }

    #[test]
    fn jacobian_blocks_match_finite_differences() {
        let map = LieGroupThetaMap::<So3, 3>::new(So3, 0.3, Chart::Cayley).unwrap();
        let g = So3.exp(&SVector::from([0.3, -0.2, 0.9]));
        let xi = SVector::from([0.4, 0.7, -0.5]);
        let j = LieGroupMap::lie_jacobian(&map, &g, &xi).unwrap();
        let (r1, r2) = map.apply(&g, &xi).unwrap();
        let e = 1e-6;
        for k in 0..3 {
            let d = SVector::<f64, 3>::from_fn(|i, _| if i == k { e } else { 0.0 });
            let off = |r: &nalgebra::Matrix3<f64>, s: &nalgebra::Matrix3<f64>| So3.log(&(r.transpose() * s)).unwrap();
            let (p, m) = (map.apply(&(g * So3.exp(&d)), &xi).unwrap(), map.apply(&(g * So3.exp(&-d)), &xi).unwrap());
            assert!(((off(&r1, &p.0) - off(&r1, &m.0)) / (2.0 * e) - j.a1.column(k)).norm() < 1e-8);
            assert!(((off(&r2, &p.1) - off(&r2, &m.1)) / (2.0 * e) - j.a2.column(k)).norm() < 1e-8);
            let (p, m) = (map.apply(&g, &(xi + d)).unwrap(), map.apply(&g, &(xi - d)).unwrap());
            assert!(((off(&r1, &p.0) - off(&r1, &m.0)) / (2.0 * e) - j.b1.column(k)).norm() < 1e-8);
            assert!(((off(&r2, &p.1) - off(&r2, &m.1)) / (2.0 * e) - j.b2.column(k)).norm() < 1e-8);
        }
        // defining property at ξ = 0
        let j0 = LieGroupMap::lie_jacobian(&map, &g, &SVector::zeros()).unwrap();
        assert!((j0.b2 - j0.b1 - SMatrix::<f64, 3, 3>::identity()).amax() < 1e-15);
    }
}
