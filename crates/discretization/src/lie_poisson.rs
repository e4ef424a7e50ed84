//! Lie–Poisson integrators by reduction: the cotangent-lift integrator of a left-equivariant
//! discretization map on `G` ([`crate::LieCotangentLiftIntegrator`]), reduced by the left
//! multiplication symmetry, on `g*` (for a left-invariant `H(g, μ) = h(μ)`) and on `g* × V`
//! with an advected parameter `Γ` (for `H(g, μ) = h(μ, Γ_0 · g)`, e.g. the heavy top,
//! `Γ = Rᵀ e_3`: the action algebroid `g × V` of the action groupoid `V × G ⇉ V`).
//!
//! **The reduction.** If the map commutes with left multiplication (the θ-maps do) and `H` is
//! left-invariant, the step from `(g_k, μ_k)` is the step from `(e, μ_k)` translated by `g_k`:
//! `Ψ(g_k, μ_k) = (g_k W_k, μ_{k+1})` with `(W_k, μ_{k+1}) = Ψ(e, μ_k)`. So `μ_k ↦ μ_{k+1}` is a
//! map of `g*` alone, the reduced integrator; it is a Poisson map for the (minus) Lie–Poisson
//! bracket `{F, K}(μ) = -<μ, [∇F, ∇K]>` (tensor `B(μ)_{ij} = -<μ, [e_i, e_j]>`; the overall sign
//! does not affect the Poisson-map property `DΦ B(μ) DΦᵀ = B(Φ(μ))`) and it preserves the
//! coadjoint orbits, hence every Casimir. The reconstruction is `g_{k+1} = g_k W_k`.
//!
//! With an advected parameter, `H(g, μ) = h(μ, Γ_0 · g)` for the right action
//! `Γ · g = Φ(g^{-1}, Γ)` of a left action `Φ` on `V = R^M` (for the heavy top,
//! [`geom_core::action::SphereRotation`], `Γ · R = Rᵀ Γ`). `H` is invariant under the
//! isotropy of `Γ_0` only, and the step from `(g_k, μ_k)` equals the step from `(e, μ_k)` of
//! `h(μ, Γ_k · g)`, `Γ_k = Γ_0 · g_k`: the reduced map `(μ_k, Γ_k) ↦ (μ_{k+1}, Γ_k · W_k)`, a
//! Poisson map for the semidirect-product bracket.
//!
//! Both integrators compute exactly this: one step of the unreduced integrator from the identity
//! with the translated Hamiltonian, keeping `(μ, Γ)` and `W`.

use crate::lie_chart::{AdGroupChart, ErasedChart, InlineChart, ThetaChart};
use crate::lie_function::{AdLieGroup, LieAutoDiff, LieFunction};
use crate::lie_hamiltonian::{LieCotangentLiftIntegrator, chart_term, chart_term_and_jacobian};
use crate::lie_map::LieGroupMap;
use geom_core::GeomError;
use geom_core::Scalar;
use geom_core::action::GroupAction;
use geom_core::function::{ScalarDerivatives, ScalarFunction};
use geom_core::lie::{GroupChart, LieGroup};
use geom_core::linalg::Lu;
use geom_core::newton::NewtonOptions;
use geom_core::step::LieState;
use geom_core::step::OneStep;
use nalgebra::{SMatrix, SVector};
use num_dual::{Dual64, DualSVec64, HyperDual64, HyperDualSVec64};

/// `H(g, μ) = h(μ)`.
struct Invariant<'a, F>(&'a F);

impl<S: Scalar, G: LieGroup<S, D>, F: ScalarFunction<D>, const D: usize> LieFunction<S, G, D> for Invariant<'_, F> {
    #[inline]
    fn eval(&self, _: &G, _: &G::Element, mu: &SVector<S, D>) -> S {
        self.0.eval(mu)
    }
}

/// The Lie–Poisson integrator on `g*` reduced from the cotangent lift of a left-equivariant map
/// (module documentation), for a reduced Hamiltonian `h(μ)` written once over the scalar. For a
/// θ-map of any chart `τ` (the shipped [`geom_core::lie::Chart`] or a user's
/// [`geom_core::lie::GroupChart`], e.g. `LieGroupThetaMap::midpoint(So3, MyChart)`) the step is
/// the reduced one-block system `ξ = h ∇h(K(ξ))`,
/// `μ_{k+1} = Ad*_{τ((1-θ)ξ)} Ad*_{τ(θξ)} μ_k`.
///
/// ```
/// use discretization::lie_poisson::LiePoissonIntegrator;
/// use discretization::{LieGroupThetaMap, OneStep};
/// use geom_core::function::{ScalarDerivatives, ScalarFunction};
/// use geom_core::lie::{Chart, So3};
/// use geom_core::Scalar;
/// use nalgebra::{SVector, Vector3};
///
/// /// Free rigid body `h(Π) = ½ Πᵀ I⁻¹ Π`, I = diag(2, 1, 2/3).
/// struct Body;
/// impl ScalarFunction<3> for Body {
///     fn eval<S: Scalar>(&self, p: &SVector<S, 3>) -> S {
///         (p[0] * p[0] / S::from(2.0) + p[1] * p[1] + p[2] * p[2] * S::from(1.5)) * S::from(0.5)
///     }
/// }
/// let lp = LiePoissonIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Cayley), Body);
/// let mut pi = Vector3::new(1.0, 0.5, -0.3);
/// let casimir = pi.norm_squared();
/// for _ in 0..100 {
///     lp.step(&mut pi, 0.1)?;
/// }
/// assert!((pi.norm_squared() - casimir).abs() < 1e-13);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct LiePoissonIntegrator<R, H> {
    map: R,
    hamiltonian: H,
    newton: NewtonOptions,
}

impl<R, H> LiePoissonIntegrator<R, H> {
    /// The reduced integrator of `map` (it must commute with left multiplication, as the θ-maps
    /// do; [`crate::check_symmetry_preservation`] with [`geom_core::action::LeftMultiplication`]
    /// checks a user's map) for `h(μ)`.
    ///
    /// Newton options: [`NewtonOptions::lie_poisson`].
    pub fn new(map: R, hamiltonian: H) -> Self {
        Self { map, hamiltonian, newton: NewtonOptions::lie_poisson() }
    }
    /// The same integrator with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The discretization map.
    pub fn map(&self) -> &R {
        &self.map
    }
}

impl<R, H> LiePoissonIntegrator<R, H> {
    /// One step `μ_k ↦ μ_{k+1}` and the relative motion `W_k` (reconstruction:
    /// `g_{k+1} = g_k W_k`); `μ` is not touched. Errors: those of
    /// [`LieCotangentLiftIntegrator::advance`].
    pub fn advance<G, const D: usize>(
        &self,
        mu: &SVector<f64, D>,
        h: f64,
    ) -> Result<(SVector<f64, D>, <G as LieGroup<f64, D>>::Element), GeomError>
    where
        G: AdLieGroup<D> + LieGroup<Dual64, D>,
        R: LieGroupMap<G, D> + Clone,
        H: ScalarFunction<D>,
    {
        if let Some((mu1, a, b)) = self.reduced::<G, D>(mu, h)? {
            return Ok((mu1, LieGroup::<f64, D>::compose(self.map.group(), &a, &b)));
        }
        let integ = LieCotangentLiftIntegrator::new(self.map.clone(), LieAutoDiff(Invariant(&self.hamiltonian)))
            .with_newton(self.newton);
        let e = LieGroup::<f64, D>::identity(self.map.group());
        let next = integ.advance(&LieState::new(e, *mu), h)?;
        Ok((next.mu, next.g))
    }

    /// The reduced θ-map step `(μ_{k+1}, τ(θξ), τ((1-θ)ξ))` if the map is a θ-map (its chart
    /// shipped, compiled with its closed forms, or a user's, erased), else `None`.
    #[allow(clippy::type_complexity)]
    #[inline(always)]
    fn reduced<G, const D: usize>(
        &self,
        mu: &SVector<f64, D>,
        h: f64,
    ) -> Result<Option<(SVector<f64, D>, <G as LieGroup<f64, D>>::Element, <G as LieGroup<f64, D>>::Element)>, GeomError>
    where
        G: AdLieGroup<D> + LieGroup<Dual64, D>,
        R: LieGroupMap<G, D>,
        H: ScalarFunction<D>,
    {
        let (group, ham, newton) = (self.map.group(), &self.hamiltonian, &self.newton);
        Ok(match self.map.theta_chart() {
            Some((theta, ThetaChart::Shipped(chart))) => {
                Some(reduced_theta_step(group, theta, &InlineChart(chart), ham, mu, h, newton)?)
            }
            Some((theta, ThetaChart::User(chart))) => {
                Some(reduced_theta_step_erased(group, theta, chart, ham, mu, h, newton)?)
            }
            None => None,
        })
    }
}

/// The reduced θ-map step for a left-invariant `h(μ)` (docs/math.md §B.6), for any chart `τ`
/// ([`AdGroupChart`]: [`geom_core::lie::Chart`] compiled with its closed forms, or a user's chart
/// through [`crate::lie_chart::ErasedChart`]): with `D_g H = 0` the momentum of the θ path is
/// explicit, `μ = K(ξ) = (1-θ) dτ_{(1-θ)ξ}ᵀ Ad*_{τ(θξ)} μ_k + θ dτ_{θξ}ᵀ μ_k`, and one block
/// remains,
///
/// ```text
///   F(ξ) = ξ - h ∇h(K(ξ)) = 0,    J(ξ) = I - h D²h(K(ξ)) ∂K/∂ξ,
/// ```
///
/// `∂K/∂ξ` in closed form (`lie_hamiltonian::chart_term_and_jacobian`). From the warm start
/// `ξ_0 = h ∇h(μ_k)` one predictor step on the gradient linearized at `μ_k`,
///
/// ```text
///   ξ_1 = ξ_0 - J_0^{-1} (ξ_0 - h [∇h(μ_k) + D²h(μ_k) (K(ξ_0) - μ_k)]),
///   J_0 = I - h D²h(μ_k) ∂K/∂ξ(ξ_0),
/// ```
///
/// (exact Newton for a quadratic `h`; one AD pass gives `∇h(μ_k)` and `D²h(μ_k)`), then
/// geom-core's Newton from `ξ_1` with `J_0` as its Newton matrix until a refresh (frozen
/// options: after a step that contracts slowly; full-Newton options: at every iterate), which
/// takes `J` at the iterate. Then `μ_{k+1} = Ad*_{τ((1-θ)ξ)} Ad*_{τ(θξ)} μ_k`, returned with
/// `(τ(θξ), τ((1-θ)ξ))`, whose product is `W`.
#[allow(clippy::type_complexity)]
fn reduced_theta_step<G, C, H, const D: usize>(
    group: &G,
    theta: f64,
    chart: &C,
    ham: &H,
    mu: &SVector<f64, D>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<(SVector<f64, D>, <G as LieGroup<f64, D>>::Element, <G as LieGroup<f64, D>>::Element), GeomError>
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
    C: AdGroupChart<G, D>,
    H: ScalarFunction<D>,
{
    geom_core::step::check_step(h)?;
    geom_core::error::check_finite(mu.iter(), "momentum")?;
    let ad = geom_core::function::AutoDiff(ham);
    let (grad0, hess0) = ad.gradient_and_hessian(mu);
    geom_core::error::check_finite(grad0.iter().chain(hess0.iter()), "Hessian of h")?;
    let id = SMatrix::<f64, D, D>::identity();
    let zero = SVector::<f64, D>::zeros();
    let xi0 = grad0 * h;
    let (k0, dk0) = chart_term_and_jacobian(group, chart, theta, &xi0, mu, &zero)?;
    let jac0 = id - hess0 * dk0 * h;
    let predicted = Lu::factor(&jac0, "Newton Jacobian")
        .map(|lu| xi0 - lu.solve(&(xi0 - (grad0 + hess0 * (k0 - mu)) * h)))
        .ok()
        .filter(|x| x.iter().all(|v| v.is_finite()));
    let mut stale = Some(jac0);
    let (xi, _) = geom_core::newton::newton_split(
        |xi| {
            let k = chart_term::<G, C, f64, D>(group, chart, theta, xi, mu, &zero)?;
            Ok(xi - ad.gradient(&k) * h)
        },
        |xi| match stale.take() {
            Some(j) => Ok(j),
            None => {
                let (k, dk) = chart_term_and_jacobian(group, chart, theta, xi, mu, &zero)?;
                Ok(id - ad.hessian(&k) * dk * h)
            }
        },
        &predicted.unwrap_or(xi0),
        newton,
    )?;
    let a = GroupChart::<f64, G, D>::tau(chart, group, &(xi * theta))?;
    let b = if theta == 0.5 { a.clone() } else { GroupChart::<f64, G, D>::tau(chart, group, &(xi * (1.0 - theta)))? };
    let mu1 = LieGroup::<f64, D>::coadjoint(group, &b, &LieGroup::<f64, D>::coadjoint(group, &a, mu));
    geom_core::error::check_finite(mu1.iter(), "momentum after step")?;
    Ok((mu1, a, b))
}

/// [`reduced_theta_step`] for a user's chart, kept out of line: the caller's code for the
/// shipped charts (and what the optimizer makes of it) is the same as before charts were
/// generic.
#[inline(never)]
#[allow(clippy::type_complexity)]
fn reduced_theta_step_erased<G, H, const D: usize>(
    group: &G,
    theta: f64,
    chart: ErasedChart<'_, G, D>,
    ham: &H,
    mu: &SVector<f64, D>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<(SVector<f64, D>, <G as LieGroup<f64, D>>::Element, <G as LieGroup<f64, D>>::Element), GeomError>
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
    H: ScalarFunction<D>,
{
    reduced_theta_step(group, theta, &chart, ham, mu, h, newton)
}

impl<R, H, const D: usize> OneStep<SVector<f64, D>> for LiePoissonIntegrator<R, H>
where
    R: LieGroupMap<Grp<R, D>, D> + Clone + HasGroup<D>,
    H: ScalarFunction<D>,
{
    fn name(&self) -> String {
        format!("Lie-Poisson reduction of the cotangent lift of {}", self.map.name())
    }
    fn order(&self) -> u32 {
        LiePoissonIntegrator::order(self)
    }
    fn is_symmetric(&self) -> bool {
        LiePoissonIntegrator::is_symmetric(self)
    }
    fn step(&self, mu: &mut SVector<f64, D>, h: f64) -> Result<(), GeomError> {
        // (a θ-map: μ_{k+1} alone, without forming W)
        *mu = match self.reduced::<Grp<R, D>, D>(mu, h)? {
            Some((mu1, _, _)) => mu1,
            None => self.advance::<Grp<R, D>, D>(mu, h)?.0,
        };
        Ok(())
    }
}

/// The group of a map, as a type (so that [`OneStep`] can name it).
pub trait HasGroup<const D: usize> {
    /// The group.
    type Group: AdLieGroup<D> + LieGroup<Dual64, D>;
}

/// The group type of the map `R`.
pub type Grp<R, const D: usize> = <R as HasGroup<D>>::Group;

impl<G: AdLieGroup<D> + LieGroup<Dual64, D>, const D: usize, C> HasGroup<D> for crate::LieGroupThetaMap<G, D, C> {
    type Group = G;
}

impl<G: AdLieGroup<D> + LieGroup<Dual64, D>, const D: usize, C> HasGroup<D>
    for crate::RetractionMap<crate::LieGroupRetraction<G, D, C>>
{
    type Group = G;
}

// ---------------------------------------------------------------------------------------------

/// A reduced Hamiltonian `h(μ, Γ)` on `g* × R^M`, written once over the scalar.
pub trait AdvectedFunction<const D: usize, const M: usize>: Send + Sync {
    /// `h(μ, Γ)`.
    fn eval<S: Scalar>(&self, mu: &SVector<S, D>, gamma: &SVector<S, M>) -> S;
    /// Whether `h(μ, Γ) = T(μ) + V(Γ)` (no mixed term, `∂²h/∂μ∂Γ = 0`), which the AD Hessians
    /// then skip. Default `false`; a model that returns `true` must be separable (the derivatives
    /// are wrong otherwise).
    fn is_separable(&self) -> bool {
        false
    }
}

/// `H(g, μ) = h(μ, Γ_k · g)`, `Γ · g = Φ(g^{-1}, Γ)`.
struct Advected<'a, F, A, const M: usize> {
    h: &'a F,
    action: &'a A,
    gamma: SVector<f64, M>,
}

impl<S, G, F, A, const D: usize, const M: usize> LieFunction<S, G, D> for Advected<'_, F, A, M>
where
    S: Scalar,
    G: LieGroup<S, D>,
    F: AdvectedFunction<D, M>,
    A: GroupAction<S, D, Group = G, Point = SVector<S, M>>,
{
    #[inline]
    fn eval(&self, group: &G, g: &G::Element, mu: &SVector<S, D>) -> S {
        let gamma = self.action.act(&group.inverse(g), &self.gamma.map(S::from));
        self.h.eval(mu, &gamma)
    }
}

/// A state `(μ, Γ)` of a Lie–Poisson system with an advected parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdvectedState<const D: usize, const M: usize> {
    /// Body momentum `μ ∈ g*`.
    pub mu: SVector<f64, D>,
    /// Advected parameter `Γ ∈ R^M` (the body-frame direction of gravity for the heavy top).
    pub gamma: SVector<f64, M>,
}

impl<const D: usize, const M: usize> AdvectedState<D, M> {
    /// The state `(μ, Γ)`.
    pub fn new(mu: SVector<f64, D>, gamma: SVector<f64, M>) -> Self {
        Self { mu, gamma }
    }
}

/// `μ`, then `Γ` (checkpoints, the integrator contract suite).
impl<const D: usize, const M: usize> geom_core::step::FlatState for AdvectedState<D, M> {
    const WORDS: usize = D + M;
    fn write_words(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(self.mu.as_slice());
        out.extend_from_slice(self.gamma.as_slice());
    }
    fn read_words(words: &[f64]) -> Option<Self> {
        (words.len() == D + M)
            .then(|| Self::new(SVector::from_column_slice(&words[..D]), SVector::from_column_slice(&words[D..])))
    }
}

/// The Lie–Poisson integrator on `g* × R^M` (semidirect product; the heavy top on
/// `so(3)* × R^3` with `Γ ∈ S²`) reduced from the cotangent lift of a left-equivariant map, for
/// `h(μ, Γ)` and the left action `Φ` whose right action `Γ · g = Φ(g^{-1}, Γ)` advects `Γ`
/// (module documentation).
#[derive(Debug, Clone)]
pub struct AdvectedLiePoissonIntegrator<R, H, A> {
    map: R,
    hamiltonian: H,
    action: A,
    newton: NewtonOptions,
}

impl<R, H, A> AdvectedLiePoissonIntegrator<R, H, A> {
    /// The reduced integrator of `map` for `h(μ, Γ)`, `Γ` advected by `action`.
    pub fn new(map: R, hamiltonian: H, action: A) -> Self {
        Self { map, hamiltonian, action, newton: NewtonOptions::lie_group() }
    }
    /// The same integrator with other Newton options (default: [`NewtonOptions::lie_group`],
    /// a frozen Jacobian).
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }

    /// One step `(μ_k, Γ_k) ↦ (μ_{k+1}, Γ_k · W_k)` and `W_k`; the state is not touched.
    pub fn advance<G, const D: usize, const M: usize>(
        &self,
        state: &AdvectedState<D, M>,
        h: f64,
    ) -> Result<(AdvectedState<D, M>, <G as LieGroup<f64, D>>::Element), GeomError>
    where
        G: AdLieGroup<D> + LieGroup<Dual64, D>,
        R: LieGroupMap<G, D> + Clone,
        H: AdvectedFunction<D, M>,
        A: GroupAction<f64, D, Group = G, Point = SVector<f64, M>>
            + GroupAction<Dual64, D, Group = G, Point = SVector<Dual64, M>>
            + GroupAction<DualSVec64<D>, D, Group = G, Point = SVector<DualSVec64<D>, M>>
            + GroupAction<HyperDual64, D, Group = G, Point = SVector<HyperDual64, M>>
            + GroupAction<HyperDualSVec64<D, D>, D, Group = G, Point = SVector<HyperDualSVec64<D, D>, M>>,
    {
        geom_core::error::check_finite(state.gamma.iter(), "advected parameter")?;
        let ham = Advected { h: &self.hamiltonian, action: &self.action, gamma: state.gamma };
        let integ = LieCotangentLiftIntegrator::new(self.map.clone(), LieAutoDiff(ham)).with_newton(self.newton);
        let group = self.map.group();
        let next = integ.advance(&LieState::new(LieGroup::<f64, D>::identity(group), state.mu), h)?;
        let gamma =
            GroupAction::<f64, D>::act(&self.action, &LieGroup::<f64, D>::inverse(group, &next.g), &state.gamma);
        Ok((AdvectedState::new(next.mu, gamma), next.g))
    }
}

impl<R, H, A, const D: usize, const M: usize> OneStep<AdvectedState<D, M>> for AdvectedLiePoissonIntegrator<R, H, A>
where
    R: LieGroupMap<Grp<R, D>, D> + Clone + HasGroup<D>,
    H: AdvectedFunction<D, M>,
    A: GroupAction<f64, D, Group = Grp<R, D>, Point = SVector<f64, M>>
        + GroupAction<Dual64, D, Group = Grp<R, D>, Point = SVector<Dual64, M>>
        + GroupAction<DualSVec64<D>, D, Group = Grp<R, D>, Point = SVector<DualSVec64<D>, M>>
        + GroupAction<HyperDual64, D, Group = Grp<R, D>, Point = SVector<HyperDual64, M>>
        + GroupAction<HyperDualSVec64<D, D>, D, Group = Grp<R, D>, Point = SVector<HyperDualSVec64<D, D>, M>>,
{
    fn name(&self) -> String {
        format!("Lie-Poisson reduction (advected parameter) of the cotangent lift of {}", self.map.name())
    }
    fn order(&self) -> u32 {
        if self.map.is_symmetric() { 2 } else { 1 }
    }
    fn is_symmetric(&self) -> bool {
        self.map.is_symmetric()
    }
    fn step(&self, state: &mut AdvectedState<D, M>, h: f64) -> Result<(), GeomError> {
        *state = self.advance::<Grp<R, D>, D, M>(state, h)?.0;
        Ok(())
    }
}

/// The Lie–Poisson tensor `B(μ)_{ij} = -<μ, [e_i, e_j]>` of `g*` (minus bracket, the one of
/// left-invariant systems), for the Poisson-map check `DΦ B(μ) DΦᵀ = B(Φ(μ))`. On so(3)*,
/// `B(Π) = Π̂` (`Π̂ y = Π × y`).
pub fn lie_poisson_tensor<G: LieGroup<f64, D>, const D: usize>(
    group: &G,
    mu: &SVector<f64, D>,
) -> nalgebra::SMatrix<f64, D, D> {
    let e = |i: usize| SVector::<f64, D>::from_fn(|k, _| if k == i { 1.0 } else { 0.0 });
    nalgebra::SMatrix::from_fn(|i, j| -mu.dot(&group.bracket(&e(i), &e(j))))
}
