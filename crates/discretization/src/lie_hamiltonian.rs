//! The symplectic integrator that a discretization map on a Lie group `G` induces on
//! `T*G ≅ G × g*` (left trivialization, `p = g^{-T}μ`), for any Hamiltonian `H(g, μ)` — potentials
//! and non-invariant kinetic energies included — and its Lagrangian counterpart for any
//! `L(g, ξ)`.
//!
//! # The equations
//!
//! The cotangent-lift integrator of Barbero-Liñán, Marrero and Martín de Diego ("From retraction
//! maps to symplectic-momentum numerical integrators", 2024, arXiv:2401.14800) on `R^N`
//! (see [`crate::hamiltonian`]) is the set of stationarity conditions, in the inner variables
//! `(q, v, p)`, of
//!
//! ```text
//!   <p_{k+1}, R^2(q, v)> - <p_k, R^1(q, v)> - (<p, v> - h H(q, p)),      v = h ∂H/∂p,
//! ```
//! which is intrinsic: only the differentials of `R^1, R^2` appear. On `G`, with `v = g ξ`,
//! `p ↔ μ`, variations `(g η, δξ, δμ)` and the left-trivialized blocks `A^i, B^i` of the map
//! ([`crate::lie_map`]), it reads
//!
//! ```text
//!   g_k = R^1(g, ξ),    g_{k+1} = R^2(g, ξ),    ξ = h ∂H/∂μ(g, μ),
//!   A^2ᵀ μ_{k+1} - A^1ᵀ μ_k = -h D_g H(g, μ),
//!   B^2ᵀ μ_{k+1} - B^1ᵀ μ_k = μ,
//! ```
//! with `D_g H` the left-trivialized derivative. On `R^N` (`A = I`, `B^1 = -θ`, `B^2 = 1-θ`)
//! these are the crossed-weight θ-equations of [`crate::hamiltonian`].
//!
//! **θ-maps** `(g τ(-θξ), g τ((1-θ)ξ))` of any chart `τ` ([`LieGroupMap::theta_chart`]; the
//! shipped `exp` and Cayley or a user's [`geom_core::lie::GroupChart`], [`crate::lie_chart`]): the
//! first equation gives `g = g_k τ(θξ)`, the fourth `μ_{k+1}` explicitly, and there remain two
//! blocks in `(ξ, μ)` (`dτ` right-trivialized, `Ad*_a = Ad_aᵀ`):
//!
//! ```text
//!   ν       = Ad*_{τ(θξ)} μ_k - h D_g H(g, μ)
//!   F_1     = ξ - h ∂H/∂μ(g, μ) = 0
//!   F_2     = (1-θ) dτ_{(1-θ)ξ}ᵀ ν + θ dτ_{θξ}ᵀ μ_k - μ = 0
//!   g_{k+1} = g τ((1-θ)ξ),     μ_{k+1} = Ad*_{τ((1-θ)ξ)} ν,
//! ```
//! solved by Newton with the exact Jacobian (Hessian blocks of `H` from
//! [`LieFunctionDerivatives`], the `ξ`-derivative of the chart terms in closed form from `ad*`,
//! `Ad*`, `dτ` and `D_x[(dτ_x^{-1})ᵀ μ]`, see `chart_term_and_jacobian`). A shipped chart is
//! reported by value and the system is compiled for it; a user's chart is reached through
//! [`crate::lie_chart::ErasedChart`] and takes the same two blocks.
//!
//! **Any other map**: Newton on the four blocks `(ζ, ξ, μ, μ_{k+1})`, `g = g_k exp(ζ)`, with the
//! residuals `cay^{-1}(g_k^{-1} R^1(g, ξ))`, `ξ - h ∂_μ H`,
//! `A^2ᵀμ_{k+1} - A^1ᵀμ_k + h D_g H` and `B^2ᵀμ_{k+1} - B^1ᵀμ_k - μ`; the Jacobian uses
//! [`LieGroupMap::covector_derivative`].
//!
//! **Lagrangian route** ([`LieLagrangianIntegrator`], θ-maps of any chart): `L_d(g_0, g_1) = h L(R_d^{-1}(g_0,
//! g_1)/h)` gives, with `μ_k = -D_{g_0} L_d`, `μ_{k+1} = D_{g_1} L_d` and `u = ξ/h`,
//! `A^2ᵀμ_{k+1} - A^1ᵀμ_k = h D_g L(g, u)` and `B^2ᵀμ_{k+1} - B^1ᵀμ_k = ∂L/∂u(g, u)`: one block
//! in `ξ`,
//!
//! ```text
//!   (1-θ) dτ_{(1-θ)ξ}ᵀ (Ad*_{τ(θξ)} μ_k + h D_g L) + θ dτ_{θξ}ᵀ μ_k - ∂L/∂u(g, u) = 0,
//! ```
//! the same map as the Hamiltonian route when `H` is the Legendre transform of `L`.
//!
//! # Properties
//!
//! Every map gives a symplectic integrator of `T*G`; a map that commutes with left (right)
//! multiplication conserves the spatial momentum `Ad*_{g^{-1}} μ` (the body momentum `μ`) of
//! every `H` invariant under it (Theorem 2 of the paper): the θ-maps are left-equivariant, so the
//! heavy top keeps its vertical spatial angular momentum to round-off. Symmetric maps (θ = 1/2)
//! give order 2, the others order 1.

use crate::lie_chart::{AdGroupChart, ErasedChart, InlineChart, ThetaChart};
use crate::lie_function::{LieFunctionDerivatives, LieGradient, LieHessian};
use crate::lie_map::LieGroupMap;
use geom_core::function::ad_jacobian_of;
use geom_core::lie::{Chart, GroupChart, LieGroup};
use geom_core::linalg::Lu;
use geom_core::newton::{JacobianUpdate, NewtonOptions, newton_blocks};
use geom_core::step::{LieState, LieStateOf};
use geom_core::step::{OneStep, check_step};
use geom_core::{GeomError, Scalar};
use nalgebra::{SMatrix, SVector};
use num_dual::{Dual64, DualSVec64};
use std::marker::PhantomData;

/// `K(ξ) = (1-θ) dτ_{(1-θ)ξ}ᵀ (Ad*_{τ(θξ)} μ_k + f) + θ dτ_{θξ}ᵀ μ_k` at any scalar, for any
/// chart `τ` (`f` fixed; `f = 0` is the momentum of the reduced Lie–Poisson step). For the
/// midpoint both chart derivatives are taken at `ξ/2`, once.
#[inline]
pub(crate) fn chart_term<G: LieGroup<S, D>, C: GroupChart<S, G, D>, S: Scalar, const D: usize>(
    group: &G,
    chart: &C,
    theta: f64,
    xi: &SVector<S, D>,
    mu_k: &SVector<f64, D>,
    f: &SVector<f64, D>,
) -> Result<SVector<S, D>, GeomError> {
    chart_term_at(group, chart, theta, xi, &chart.tau(group, &(xi * S::from(theta)))?, mu_k, f)
}

/// [`chart_term`] with `τ(θξ)` given (`tau1`), for a caller that needs it too.
#[inline]
fn chart_term_at<G: LieGroup<S, D>, C: GroupChart<S, G, D>, S: Scalar, const D: usize>(
    group: &G,
    chart: &C,
    theta: f64,
    xi: &SVector<S, D>,
    tau1: &G::Element,
    mu_k: &SVector<f64, D>,
    f: &SVector<f64, D>,
) -> Result<SVector<S, D>, GeomError> {
    let (x1, x2) = (xi * S::from(theta), xi * S::from(1.0 - theta));
    let mu = mu_k.map(S::from);
    let nu = group.coadjoint(tau1, &mu) + f.map(S::from);
    if theta == 0.5 {
        return Ok(chart.dtau(group, &x1)?.tr_mul(&(nu + mu)) * S::from(0.5));
    }
    Ok(chart.dtau(group, &x2)?.tr_mul(&nu) * S::from(1.0 - theta)
        + chart.dtau(group, &x1)?.tr_mul(&mu) * S::from(theta))
}

/// `K(ξ)` and `∂K/∂ξ` in closed form for any chart `τ` ([`AdGroupChart`]), with `x_1 = θξ`,
/// `x_2 = (1-θ)ξ`,
/// `ν = Ad*_{τ(x_1)} μ_k + f`:
///
/// ```text
///   ∂K/∂ξ = (1-θ)² C(x_2, ν) + θ(1-θ) dτ_{x_2}ᵀ M + θ² C(x_1, μ_k),
///   M e_j = Ad*_{τ(x_1)} ad*_{dτ_{x_1} e_j} μ_k,
///   C(x, n) = D_x[dτ_xᵀ n] = -dτ_xᵀ D_x[(dτ_x^{-1})ᵀ q] at q = dτ_xᵀ n fixed.
/// ```
///
/// `M` is `D_x[Ad*_{τ(x)} μ_k]` at `x_1`: with the right-trivialized `dτ`,
/// `τ(x + w) = exp(dτ_x w + O(w²)) τ(x)`, so `Ad*_{τ(x+w)} μ = Ad*_{τ(x)} (μ + ad*_{dτ_x w} μ)`
/// to first order. `C` follows from differentiating `dτ_xᵀ (dτ_x^{-1})ᵀ = I`; its last factor is
/// the group's closed form where it has one (a shipped chart: SO(3), SE(3), Cayley), else forward
/// AD through the chart's `dτ^{-1}` alone (a user's chart included), not through `τ`, `Ad*` and
/// `dτ`. For the midpoint the two `C` terms are one,
/// `¼ C(ξ/2, ν + μ_k)`. Checked against AD through the whole of `K` in the tests below.
#[inline]
pub(crate) fn chart_term_and_jacobian<G, C, const D: usize>(
    group: &G,
    chart: &C,
    theta: f64,
    xi: &SVector<f64, D>,
    mu_k: &SVector<f64, D>,
    f: &SVector<f64, D>,
) -> Result<(SVector<f64, D>, SMatrix<f64, D, D>), GeomError>
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
    C: AdGroupChart<G, D>,
{
    let x1 = xi * theta;
    let tau1 = GroupChart::<f64, G, D>::tau(chart, group, &x1)?;
    let nu = LieGroup::<f64, D>::coadjoint(group, &tau1, mu_k) + f;
    let dtau1 = GroupChart::<f64, G, D>::dtau(chart, group, &x1)?;
    let mut m = SMatrix::<f64, D, D>::zeros();
    if theta != 0.0 && theta != 1.0 {
        for j in 0..D {
            let w = LieGroup::<f64, D>::ad_star(group, &dtau1.column(j).into_owned(), mu_k);
            m.set_column(j, &LieGroup::<f64, D>::coadjoint(group, &tau1, &w));
        }
    }
    if theta == 0.5 {
        let n = nu + mu_k;
        let k = dtau1.tr_mul(&n) * 0.5;
        let dk = (dtau1.tr_mul(&m) + chart_tangent_derivative(group, chart, &x1, &dtau1, &n)?) * 0.25;
        return Ok((k, dk));
    }
    let x2 = xi * (1.0 - theta);
    let dtau2 = GroupChart::<f64, G, D>::dtau(chart, group, &x2)?;
    let k = dtau2.tr_mul(&nu) * (1.0 - theta) + dtau1.tr_mul(mu_k) * theta;
    let mut dk = dtau2.tr_mul(&m) * (theta * (1.0 - theta));
    if theta != 1.0 {
        dk += chart_tangent_derivative(group, chart, &x2, &dtau2, &nu)? * ((1.0 - theta) * (1.0 - theta));
    }
    if theta != 0.0 {
        dk += chart_tangent_derivative(group, chart, &x1, &dtau1, mu_k)? * (theta * theta);
    }
    Ok((k, dk))
}

/// `C(x, n) = D_x[dτ_xᵀ n]` (`n` fixed, `dtau = dτ_x` given) as
/// `-dτ_xᵀ D_x[(dτ_x^{-1})ᵀ q]` at `q = dτ_xᵀ n` (differentiate `dτ_xᵀ (dτ_x^{-1})ᵀ = I`), the
/// last factor from the group's closed form ([`LieGroup::dtau_inv_transpose_closed_form`]) for a
/// shipped chart that has one, else by forward AD through the chart's `dτ^{-1}` (any chart).
#[inline]
fn chart_tangent_derivative<G, C, const D: usize>(
    group: &G,
    chart: &C,
    x: &SVector<f64, D>,
    dtau: &SMatrix<f64, D, D>,
    n: &SVector<f64, D>,
) -> Result<SMatrix<f64, D, D>, GeomError>
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
    C: AdGroupChart<G, D>,
{
    let q = dtau.tr_mul(n);
    if let Some(d) = GroupChart::<f64, G, D>::builtin(chart)
        .and_then(|shipped| LieGroup::<f64, D>::dtau_inv_transpose_closed_form(group, shipped, x, &q))
    {
        return Ok(-dtau.tr_mul(&d));
    }
    let d = ad_jacobian_of(
        x,
        |x: &SVector<Dual64, D>| Ok(GroupChart::<Dual64, G, D>::dtau_inv(chart, group, x)?.tr_mul(&q.map(Dual64::from))),
        |x: &SVector<DualSVec64<D>, D>| {
            Ok(GroupChart::<DualSVec64<D>, G, D>::dtau_inv(chart, group, x)?.tr_mul(&q.map(DualSVec64::from)))
        },
    )?;
    Ok(-dtau.tr_mul(&d))
}

#[inline]
fn check_state<G: LieGroup<f64, D>, const D: usize>(
    group: &G,
    state: &LieStateOf<G, D>,
    h: f64,
) -> Result<(), GeomError> {
    check_step(h)?;
    geom_core::error::check_finite(state.mu.iter(), "momentum")?;
    LieGroup::<f64, D>::check_element(group, &state.g, geom_core::lie::MEMBERSHIP_TOLERANCE)
}

#[inline]
fn finite_state<G: LieGroup<f64, D>, const D: usize>(
    group: &G,
    state: LieStateOf<G, D>,
) -> Result<LieStateOf<G, D>, GeomError> {
    geom_core::error::check_finite(state.mu.iter(), "momentum after step")?;
    if LieGroup::<f64, D>::defect(group, &state.g).is_finite() {
        Ok(state)
    } else {
        Err(GeomError::NonFinite { what: "group element after step" })
    }
}

/// `Ψ_h` on `T*G`, induced by the map `R` on `G` for the Hamiltonian `H(g, μ)` (module
/// documentation): `g_k = R^1(g, ξ)`, `g_{k+1} = R^2(g, ξ)`, `ξ = h ∂H/∂μ`,
/// `A^2ᵀ μ_{k+1} - A^1ᵀ μ_k = -h D_g H`, `B^2ᵀ μ_{k+1} - B^1ᵀ μ_k = μ`. A θ-map of any chart
/// (a [`crate::LieGroupThetaMap`] or the map of a [`crate::LieGroupRetraction`], with the shipped
/// [`Chart`] or a user's [`geom_core::lie::GroupChart`]) takes the reduced two-block system.
/// `R` may be a `Box<dyn LieGroupMap<G, D>>`; `H` is any
/// [`LieFunctionDerivatives`] (e.g. [`crate::lie_function::LieAutoDiff`] of a model written once).
///
/// ```
/// use discretization::lie_function::{LieAutoDiff, LieFunction};
/// use discretization::{LieCotangentLiftIntegrator, LieState, LieGroupThetaMap, OneStep};
/// use geom_core::lie::{Chart, LieGroup, So3};
/// use geom_core::Scalar;
/// use nalgebra::{Matrix3, SVector, Vector3};
///
/// /// Heavy top `H(R, Π) = ½ Πᵀ I⁻¹ Π + e3·R e3`, I = diag(1, 5, 6).
/// #[derive(Debug)]
/// struct Top;
/// impl<S: Scalar> LieFunction<S, So3, 3> for Top {
///     fn eval(&self, _: &So3, r: &Matrix3<S>, pi: &SVector<S, 3>) -> S {
///         (pi[0] * pi[0] + pi[1] * pi[1] / S::from(5.0) + pi[2] * pi[2] / S::from(6.0)) * S::from(0.5) + r[(2, 2)]
///     }
/// }
/// let midpoint = LieGroupThetaMap::midpoint(So3, Chart::Exp);
/// let integ = LieCotangentLiftIntegrator::new(midpoint, LieAutoDiff(Top));
/// let mut s = LieState::new(So3.exp(&Vector3::new(0.3, 0.1, 0.0)), Vector3::new(0.5, 1.0, 2.0));
/// let vertical = |s: &LieState<Matrix3<f64>, 3>| (s.g * s.mu)[2]; // e3 · R Π
/// let j0 = vertical(&s);
/// for _ in 0..100 {
///     integ.step(&mut s, 0.05)?;
/// }
/// // the midpoint map is left-equivariant: the vertical spatial momentum is conserved
/// assert!((vertical(&s) - j0).abs() < 1e-13);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct LieCotangentLiftIntegrator<R, H, G, const D: usize> {
    map: R,
    hamiltonian: H,
    newton: NewtonOptions,
    group: PhantomData<fn() -> G>,
}

impl<R, H, G, const D: usize> LieCotangentLiftIntegrator<R, H, G, D> {
    /// The integrator of `map` for `hamiltonian`, with [`NewtonOptions::lie_group`].
    pub fn new(map: R, hamiltonian: H) -> Self {
        Self { map, hamiltonian, newton: NewtonOptions::lie_group(), group: PhantomData }
    }
    /// The same integrator with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The map.
    pub fn map(&self) -> &R {
        &self.map
    }
    /// The Hamiltonian.
    pub fn hamiltonian(&self) -> &H {
        &self.hamiltonian
    }
}

impl<R, H, G, const D: usize> LieCotangentLiftIntegrator<R, H, G, D>
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
    R: LieGroupMap<G, D>,
    H: LieFunctionDerivatives<G, D>,
{
    /// One step from `state`, returning the new state (the state is not touched). Errors:
    /// [`GeomError::InvalidStep`], [`GeomError::NonFinite`], [`GeomError::OffManifold`] for a
    /// configuration off `G`, the Newton errors, and those of the map (e.g. Cayley at angle π).
    #[inline]
    pub fn advance(&self, state: &LieStateOf<G, D>, h: f64) -> Result<LieStateOf<G, D>, GeomError> {
        let group = self.map.group();
        check_state(group, state, h)?;
        let next = match self.map.theta_chart() {
            Some((theta, ThetaChart::Shipped(chart))) => self.theta_step(theta, &InlineChart(chart), state, h)?,
            Some((theta, ThetaChart::User(chart))) => self.theta_step_erased(theta, chart, state, h)?,
            None => self.general_step(state, h)?,
        };
        finite_state(group, next)
    }

    /// [`Self::theta_step`] for a user's chart, kept out of line: the caller's code for the
    /// shipped charts (and what the optimizer makes of it) is the same as before charts were
    /// generic.
    #[inline(never)]
    fn theta_step_erased(
        &self,
        theta: f64,
        chart: ErasedChart<'_, G, D>,
        state: &LieStateOf<G, D>,
        h: f64,
    ) -> Result<LieStateOf<G, D>, GeomError> {
        self.theta_step(theta, &chart, state, h)
    }

    /// The reduced θ-map system of the chart `chart` (module documentation), compiled once per
    /// chart type: [`InlineChart`] for the shipped charts, [`ErasedChart`] for a user's.
    ///
    /// Newton on `(ξ, μ)` from `(h ∂H/∂μ, μ_k - (1-θ) h D_g H)` at `(g_k, μ_k)`, with the exact
    /// Jacobian
    ///
    /// ```text
    ///   J = [[I - h gyᵀ T,            -h yy        ],
    ///        [∂K/∂ξ - h D_2ᵀ gg T,    -h D_2ᵀ gy - I]],   T = θ dτ_{-θξ},  D_2 = (1-θ) dτ_{(1-θ)ξ},
    /// ```
    /// (`g^{-1} δg = T δξ` along `g = g_k τ(θξ)`; `∂K/∂ξ` in closed form,
    /// `chart_term_and_jacobian`). With simplified Newton (the default
    /// [`NewtonOptions::lie_group`]) the first Newton matrix takes `H`'s Hessian blocks at the
    /// start `(g_k, μ_k)` — the one AD Hessian of the step, whose gradient also gives the warm
    /// start — and the chart blocks at the warm start: it differs from `J` at the root by
    /// `O(h²)` (the blocks of `H` enter multiplied by `h`, at points `O(h)` apart), so the
    /// iteration contracts as fast as from the exact `J` at the warm start. A refresh (slow
    /// contraction) and full Newton take the exact `J` at the iterate. The root, and so the
    /// step, does not depend on the Newton matrix (to the tolerances; the final correction of
    /// the preset removes the last contraction's residual).
    #[inline]
    fn theta_step<C: AdGroupChart<G, D>>(
        &self,
        theta: f64,
        chart: &C,
        state: &LieStateOf<G, D>,
        h: f64,
    ) -> Result<LieStateOf<G, D>, GeomError> {
        let group = self.map.group();
        let ham = &self.hamiltonian;
        let (gk, mk) = (&state.g, state.mu);
        let id = SMatrix::<f64, D, D>::identity();
        // K(ξ) and J at ξ for the gradient and Hessian blocks of H given
        let system = |xi: &SVector<f64, D>, grad: &LieGradient<D>, hess: &LieHessian<D>| {
            let (k, dk) = chart_term_and_jacobian(group, chart, theta, xi, &mk, &(grad.g * -h))?;
            // g = g_k τ(θξ): g^{-1} δg = θ dτ_{-θξ} δξ
            let t = GroupChart::<f64, G, D>::dtau(chart, group, &(xi * -theta))? * theta;
            let d2 = GroupChart::<f64, G, D>::dtau(chart, group, &(xi * (1.0 - theta)))? * (1.0 - theta);
            let j = [
                [id - hess.gy.tr_mul(&t) * h, hess.yy * -h],
                [dk - d2.tr_mul(&(hess.gg * t)) * h, d2.tr_mul(&hess.gy) * -h - id],
            ];
            Ok::<_, GeomError>((k, j))
        };
        let (guess, mut start_jacobian) = match self.newton.jacobian {
            JacobianUpdate::Frozen => {
                let (grad0, hess0) = ham.gradient_and_hessian(group, gk, &mk)?;
                let guess = [grad0.y * h, mk - grad0.g * ((1.0 - theta) * h)];
                (guess, Some(system(&guess[0], &grad0, &hess0)?.1))
            }
            JacobianUpdate::EveryIteration => {
                let grad0 = ham.gradient(group, gk, &mk)?;
                ([grad0.y * h, mk - grad0.g * ((1.0 - theta) * h)], None)
            }
        };
        let ([xi, mu], _) = newton_blocks::<D, 2>(
            |z, jac| {
                let (xi, mu) = (z[0], z[1]);
                let tau1 = GroupChart::<f64, G, D>::tau(chart, group, &(xi * theta))?;
                let g = LieGroup::<f64, D>::compose(group, gk, &tau1);
                match jac {
                    Some(j) if start_jacobian.is_none() => {
                        let (grad, hess) = ham.gradient_and_hessian(group, &g, &mu)?;
                        let (k, jm) = system(&xi, &grad, &hess)?;
                        *j = jm;
                        Ok([xi - grad.y * h, k - mu])
                    }
                    jac => {
                        if let (Some(j), Some(j0)) = (jac, start_jacobian.take()) {
                            *j = j0;
                        }
                        let grad = ham.gradient(group, &g, &mu)?;
                        let k = chart_term_at::<G, C, f64, D>(group, chart, theta, &xi, &tau1, &mk, &(grad.g * -h))?;
                        Ok([xi - grad.y * h, k - mu])
                    }
                }
            },
            &guess,
            &self.newton,
        )?;
        // the new state: g = g_k τ(θξ), ν = Ad*_{τ(θξ)} μ_k - h D_g H(g, μ),
        // g_{k+1} = g τ((1-θ)ξ), μ_{k+1} = Ad*_{τ((1-θ)ξ)} ν (τ once for the midpoint)
        let tau1 = GroupChart::<f64, G, D>::tau(chart, group, &(xi * theta))?;
        let g = LieGroup::<f64, D>::compose(group, gk, &tau1);
        let grad = ham.gradient(group, &g, &mu)?;
        let nu = LieGroup::<f64, D>::coadjoint(group, &tau1, &mk) - grad.g * h;
        let tau2 = if theta == 0.5 { tau1 } else { GroupChart::<f64, G, D>::tau(chart, group, &(xi * (1.0 - theta)))? };
        Ok(LieState::new(
            LieGroup::<f64, D>::compose(group, &g, &tau2),
            LieGroup::<f64, D>::coadjoint(group, &tau2, &nu),
        ))
    }

    fn general_step(&self, state: &LieStateOf<G, D>, h: f64) -> Result<LieStateOf<G, D>, GeomError> {
        let group = self.map.group();
        let (map, ham) = (&self.map, &self.hamiltonian);
        let (gk, mk) = (&state.g, state.mu);
        let gk_inv = LieGroup::<f64, D>::inverse(group, gk);
        let grad0 = ham.gradient(group, gk, &mk)?;
        let guess = [SVector::zeros(), grad0.y * h, mk, mk - grad0.g * h];
        let id = SMatrix::<f64, D, D>::identity();
        let ([zeta, xi, mu, _], _) = newton_blocks::<D, 4>(
            |z, jac| {
                let [zeta, xi, mu, mu1] = *z;
                let g = LieGroup::<f64, D>::compose(group, gk, &LieGroup::<f64, D>::exp(group, &zeta));
                let (r1, _) = map.apply(&g, &xi)?;
                let w = LieGroup::<f64, D>::cayley_inv(group, &LieGroup::<f64, D>::compose(group, &gk_inv, &r1))?;
                let m = map.lie_jacobian(&g, &xi)?;
                let (grad, hess) = match jac {
                    None => (ham.gradient(group, &g, &mu)?, None),
                    Some(_) => {
                        let (grad, hess) = ham.gradient_and_hessian(group, &g, &mu)?;
                        (grad, Some(hess))
                    }
                };
                if let (Some(j), Some(hess)) = (jac, hess) {
                    let c = map.covector_derivative(&g, &xi, &(-mk), &mu1)?;
                    let t = LieGroup::<f64, D>::dexp(group, &(-zeta));
                    let cw = LieGroup::<f64, D>::dcay_inv(group, &(-w));
                    let zero = SMatrix::<f64, D, D>::zeros();
                    *j = [
                        [cw * m.a1 * t, cw * m.b1, zero, zero],
                        [hess.gy.transpose() * t * -h, id, hess.yy * -h, zero],
                        [(c.ag + hess.gg * h) * t, c.ax, hess.gy * h, m.a2.transpose()],
                        [c.bg * t, c.bx, -id, m.b2.transpose()],
                    ];
                }
                Ok([
                    w,
                    xi - grad.y * h,
                    m.a2.tr_mul(&mu1) - m.a1.tr_mul(&mk) + grad.g * h,
                    m.b2.tr_mul(&mu1) - m.b1.tr_mul(&mk) - mu,
                ])
            },
            &guess,
            &self.newton,
        )?;
        // the new state from the converged (g, ξ, μ) by the explicit equations
        let g = LieGroup::<f64, D>::compose(group, gk, &LieGroup::<f64, D>::exp(group, &zeta));
        let (_, g1) = map.apply(&g, &xi)?;
        let m = map.lie_jacobian(&g, &xi)?;
        let grad = ham.gradient(group, &g, &mu)?;
        let mu1 = Lu::factor(&m.a2.transpose(), "A^2ᵀ of the map")?.solve(&(m.a1.tr_mul(&mk) - grad.g * h));
        Ok(LieState::new(g1, mu1))
    }
}

impl<R, H, G, const D: usize> OneStep<LieStateOf<G, D>> for LieCotangentLiftIntegrator<R, H, G, D>
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
    R: LieGroupMap<G, D>,
    H: LieFunctionDerivatives<G, D>,
{
    fn name(&self) -> String {
        format!("cotangent lift of {}", self.map.name())
    }
    fn order(&self) -> u32 {
        if self.map.is_symmetric() { 2 } else { 1 }
    }
    fn is_symmetric(&self) -> bool {
        self.map.is_symmetric()
    }
    fn step(&self, state: &mut LieStateOf<G, D>, h: f64) -> Result<(), GeomError> {
        *state = self.advance(state, h)?;
        Ok(())
    }
}

/// The Lagrangian route on `G` (module documentation): the discrete Euler–Lagrange flow of
/// `L_d = h L(R_d^{-1}(g_0, g_1)/h)` for the θ-map `(g τ(-θξ), g τ((1-θ)ξ))` of the chart `C`
/// (any [`GroupChart`] at `f64`, `Dual64`, `DualSVec64<D>`, i.e. an [`AdGroupChart`]; the shipped
/// [`Chart`] by default) and any Lagrangian `L(g, u)` ([`LieFunctionDerivatives`] with `y = u`,
/// the body velocity), in position–momentum form `(g_k, μ_k) ↦ (g_{k+1}, μ_{k+1})`: one Newton
/// block in `ξ`,
///
/// ```text
///   (1-θ) dτ_{(1-θ)ξ}ᵀ (Ad*_{τ(θξ)} μ_k + h D_g L(g, ξ/h)) + θ dτ_{θξ}ᵀ μ_k = ∂L/∂u(g, ξ/h),
///   g = g_k τ(θξ),   g_{k+1} = g τ((1-θ)ξ),   μ_{k+1} = Ad*_{τ((1-θ)ξ)} (Ad*_{τ(θξ)} μ_k + h D_g L).
/// ```
#[derive(Debug, Clone)]
pub struct LieLagrangianIntegrator<G, L, const D: usize, C = Chart> {
    group: G,
    theta: f64,
    chart: C,
    lagrangian: L,
    newton: NewtonOptions,
}

impl<G, L, const D: usize, C> LieLagrangianIntegrator<G, L, D, C> {
    /// The θ-map integrator of `lagrangian` with the chart `chart` (any [`GroupChart`]);
    /// [`GeomError::InvalidParameter`] unless `θ ∈ [0, 1]`, and (`what = "chart"`) for a chart
    /// that is not a shipped one and fails [`geom_core::lie::check_chart`].
    pub fn new(group: G, theta: f64, chart: C, lagrangian: L) -> Result<Self, GeomError>
    where
        G: LieGroup<f64, D>,
        C: GroupChart<f64, G, D>,
    {
        crate::lie_group::check_theta_and_chart(&group, theta, &chart)?;
        Ok(Self { group, theta, chart, lagrangian, newton: NewtonOptions::lie_group() })
    }
    /// The same integrator with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
}

impl<G, L, const D: usize, C> LieLagrangianIntegrator<G, L, D, C>
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
    L: LieFunctionDerivatives<G, D>,
    C: AdGroupChart<G, D>,
{
    /// One step from `state` (not touched); errors as [`LieCotangentLiftIntegrator::advance`].
    pub fn advance(&self, state: &LieStateOf<G, D>, h: f64) -> Result<LieStateOf<G, D>, GeomError> {
        // a shipped chart as `InlineChart`: its value reaches the group's formulas (as for the
        // Hamiltonian route's reduced system)
        match GroupChart::<f64, G, D>::builtin(&self.chart) {
            Some(shipped) => self.advance_with(&InlineChart(shipped), state, h),
            None => self.advance_with(&self.chart, state, h),
        }
    }

    /// [`Self::advance`] with the chart `chart` (the integrator's, or its shipped equivalent).
    fn advance_with<K: AdGroupChart<G, D>>(
        &self,
        chart: &K,
        state: &LieStateOf<G, D>,
        h: f64,
    ) -> Result<LieStateOf<G, D>, GeomError> {
        let (group, theta, lag) = (&self.group, self.theta, &self.lagrangian);
        check_state(group, state, h)?;
        let (gk, mk) = (&state.g, state.mu);
        // warm start: the velocity of the Legendre transform linearized at u = 0
        let zero = SVector::<f64, D>::zeros();
        let (g0, h0) = lag.gradient_and_hessian(group, gk, &zero)?;
        let u0 = Lu::factor(&h0.yy, "∂²L/∂u² at u = 0").map(|lu| lu.solve(&(mk - g0.y))).unwrap_or(zero);
        let xi0 = if u0.iter().all(|v| v.is_finite()) { u0 * h } else { zero };
        let ([xi], _) = newton_blocks::<D, 1>(
            |z, jac| {
                let xi = z[0];
                let g = GroupChart::<f64, G, D>::compose_tau(chart, group, gk, &(xi * theta))?;
                let u = xi / h;
                match jac {
                    None => {
                        let grad = lag.gradient(group, &g, &u)?;
                        let k = chart_term::<G, K, f64, D>(group, chart, theta, &xi, &mk, &(grad.g * h))?;
                        Ok([k - grad.y])
                    }
                    Some(j) => {
                        let (grad, hess) = lag.gradient_and_hessian(group, &g, &u)?;
                        let (k, dk) = chart_term_and_jacobian(group, chart, theta, &xi, &mk, &(grad.g * h))?;
                        let t = GroupChart::<f64, G, D>::dtau(chart, group, &(xi * -theta))? * theta;
                        let d2 = GroupChart::<f64, G, D>::dtau(chart, group, &(xi * (1.0 - theta)))? * (1.0 - theta);
                        // ∂(D_g L)/∂ξ = gg t + gy / h, ∂(∂_u L)/∂ξ = gyᵀ t + yy / h
                        let dforce = hess.gg * t * h + hess.gy;
                        j[0][0] = dk + d2.tr_mul(&dforce) - hess.gy.tr_mul(&t) - hess.yy / h;
                        Ok([k - grad.y])
                    }
                }
            },
            &[xi0],
            &self.newton,
        )?;
        let g = GroupChart::<f64, G, D>::compose_tau(chart, group, gk, &(xi * theta))?;
        let grad = lag.gradient(group, &g, &(xi / h))?;
        let b = xi * (1.0 - theta);
        let nu = LieGroup::<f64, D>::coadjoint(group, &GroupChart::<f64, G, D>::tau(chart, group, &(xi * theta))?, &mk)
            + grad.g * h;
        finite_state(
            group,
            LieState::new(
                GroupChart::<f64, G, D>::compose_tau(chart, group, &g, &b)?,
                LieGroup::<f64, D>::coadjoint(group, &GroupChart::<f64, G, D>::tau(chart, group, &b)?, &nu),
            ),
        )
    }
}

impl<G, L, const D: usize, C> OneStep<LieStateOf<G, D>> for LieLagrangianIntegrator<G, L, D, C>
where
    G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
    L: LieFunctionDerivatives<G, D>,
    C: AdGroupChart<G, D>,
{
    fn name(&self) -> String {
        format!(
            "discrete Euler-Lagrange flow of the {} {} theta-map (theta = {})",
            LieGroup::<f64, D>::name(&self.group),
            GroupChart::<f64, G, D>::name(&self.chart),
            self.theta
        )
    }
    fn order(&self) -> u32 {
        if self.theta == 0.5 { 2 } else { 1 }
    }
    fn is_symmetric(&self) -> bool {
        self.theta == 0.5
    }
    fn step(&self, state: &mut LieStateOf<G, D>, h: f64) -> Result<(), GeomError> {
        *state = self.advance(state, h)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom_core::lie::{Se3, So3};
    use nalgebra::{Vector3, Vector6};

    /// A shipped chart that does not say so (`builtin() = None`): the path of a user's chart
    /// (AD through the chart's `dτ^{-1}` instead of the group's closed form).
    #[derive(Debug, Clone, Copy)]
    struct Unnamed(Chart);
    impl<S: Scalar, G: LieGroup<S, D>, const D: usize> GroupChart<S, G, D> for Unnamed {
        fn name(&self) -> String {
            format!("unnamed {}", self.0.name())
        }
        fn tau(&self, group: &G, x: &SVector<S, D>) -> Result<G::Element, GeomError> {
            group.tau(self.0, x)
        }
        fn tau_inv(&self, group: &G, g: &G::Element) -> Result<SVector<S, D>, GeomError> {
            group.tau_inv(self.0, g)
        }
        fn dtau(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>, GeomError> {
            group.dtau(self.0, x)
        }
    }

    /// The closed-form `∂K/∂ξ` of the chart `chart` against forward AD through the whole of `K`.
    fn check_chart_jacobian<G, C, const D: usize>(
        group: &G,
        chart: &C,
        xi: SVector<f64, D>,
        mu: SVector<f64, D>,
        f: SVector<f64, D>,
    ) where
        G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
        C: AdGroupChart<G, D>,
    {
        let label = GroupChart::<f64, G, D>::name(chart);
        for theta in [0.0, 0.3, 0.5, 1.0] {
            let (k, dk) = chart_term_and_jacobian(group, chart, theta, &xi, &mu, &f).unwrap();
            let k_ref = chart_term::<G, C, f64, D>(group, chart, theta, &xi, &mu, &f).unwrap();
            let dk_ref = ad_jacobian_of(
                &xi,
                |x: &SVector<Dual64, D>| chart_term::<G, C, Dual64, D>(group, chart, theta, x, &mu, &f),
                |x: &SVector<DualSVec64<D>, D>| chart_term::<G, C, DualSVec64<D>, D>(group, chart, theta, x, &mu, &f),
            )
            .unwrap();
            let scale = 1.0 + dk_ref.amax();
            assert!((k - k_ref).amax() <= 1e-15 * (1.0 + k_ref.amax()), "{label} θ = {theta}: K");
            let err = (dk - dk_ref).amax();
            assert!(err <= 1e-14 * scale, "{label} θ = {theta}: ∂K/∂ξ off by {err:e}");
        }
    }

    /// The closed-form `∂K/∂ξ` against forward AD through the whole of `K` (`τ`, `Ad*` and `dτ`
    /// at dual scalars), both charts, several `θ`, `f ≠ 0`; a wrong sign of the `ad*` term or of
    /// `C` is off by `O(|μ|)`. Each shipped chart also as a chart that does not name itself
    /// (AD through its `dτ^{-1}`), directly and behind [`crate::lie_chart::ErasedChart`] (the route of a user's
    /// chart through [`LieGroupMap::theta_chart`]).
    fn check<G, const D: usize>(group: &G, xi: SVector<f64, D>, mu: SVector<f64, D>, f: SVector<f64, D>)
    where
        G: LieGroup<f64, D> + LieGroup<Dual64, D> + LieGroup<DualSVec64<D>, D>,
    {
        for chart in [Chart::Exp, Chart::Cayley] {
            check_chart_jacobian(group, &chart, xi, mu, f);
            let unnamed = Unnamed(chart);
            check_chart_jacobian(group, &unnamed, xi, mu, f);
            let erased = match ThetaChart::<G, D>::of(&unnamed) {
                ThetaChart::User(erased) => erased,
                ThetaChart::Shipped(_) => panic!("an unnamed chart is not a shipped one"),
            };
            check_chart_jacobian(group, &erased, xi, mu, f);
            assert!(matches!(ThetaChart::<G, D>::of(&chart), ThetaChart::Shipped(c) if c == chart));
        }
    }

    #[test]
    fn the_closed_form_chart_jacobian_matches_ad_through_the_group() {
        check(&So3, Vector3::new(0.2, -0.4, 0.3), Vector3::new(0.6, 1.5, 2.5), Vector3::new(0.1, -0.2, 0.05));
        check(&So3, Vector3::new(1.1, 0.7, -0.9), Vector3::new(-2.0, 0.3, 1.0), Vector3::zeros());
        check(
            &Se3,
            Vector6::new(0.1, -0.3, 0.2, 0.5, 0.1, -0.2),
            Vector6::new(0.3, -0.2, 0.5, 1.0, 0.4, -0.6),
            Vector6::new(0.0, 0.1, 0.0, -0.2, 0.0, 0.3),
        );
    }
}
