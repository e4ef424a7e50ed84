//! Engø and Faltinsen's Lie–Poisson integrator that keeps the coadjoint orbit and the energy.

use super::reduced_gradient::{self, OnMomentum};
use crate::energy_preserving::Gonzalez;
use geom_core::GeomError;
use geom_core::error::check_finite;
use geom_core::function::{AutoDiff, ScalarDerivatives, ScalarFunction};
use geom_core::lie::{Chart, LieGroup};
use geom_core::newton::{NewtonOptions, newton_split};
use geom_core::step::{LieState, OneStep, check_step};
use nalgebra::{SMatrix, SVector};

/// The coadjoint-orbit and energy preserving integrator of a Lie–Poisson system
/// `μ̇ = ad*_{∇h(μ)} μ` on `g*` (K. Engø, S. Faltinsen, *Numerical integration of Lie–Poisson
/// systems while preserving coadjoint orbits and energy*, SIAM J. Numer. Anal. 39 (2001)
/// 128–145), for a reduced Hamiltonian `h(μ)` written once over the scalar:
///
/// ```text
///     ξ = ∇̄h(μ_k, μ_{k+1}),      μ_{k+1} = Ad*_{τ(hξ)} μ_k,      (g_{k+1} = g_k τ(hξ))
/// ```
///
/// with `∇̄h` Gonzalez's midpoint discrete gradient ([`crate::energy_preserving::Gonzalez`],
/// O. Gonzalez, *Time integration and discrete Hamiltonian systems*, J. Nonlinear Sci. 6, 1996)
/// and `τ` the exponential or the Cayley map. (The workspace's `Ad*_g = (Ad_g)ᵀ` and the sign of
/// `μ̇ = ad*_ξ μ`, docs/math.md §D.2, put `+hξ` where the paper, with the opposite sign
/// convention, writes `−hξ`.)
///
/// * **Coadjoint orbit.** `μ_{k+1}` is `μ_k` moved by the coadjoint action, so every Casimir of
///   the Lie–Poisson bracket is kept to round-off (`|Π|²` of the rigid body; `|Γ|²`, `Π·Γ` of the
///   heavy top on `se(3)*`).
/// * **Energy.** `Ad_{τ(x)} x = x` for both charts (`τ(x)` commutes with `x`), so
///   `⟨ξ, μ_{k+1}⟩ = ⟨Ad_{τ(hξ)} ξ, μ_k⟩ = ⟨ξ, μ_k⟩` and, `∇̄h` being a discrete gradient,
///   `h(μ_{k+1}) − h(μ_k) = ⟨∇̄h, μ_{k+1} − μ_k⟩ = 0`.
/// * **Spatial momentum** on `T*G` (the reconstruction `g_{k+1} = g_k τ(hξ)`):
///   `Ad*_{g_{k+1}^{-1}} μ_{k+1} = Ad*_{g_k^{-1}} Ad*_{τ(hξ)^{-1}} Ad*_{τ(hξ)} μ_k = Ad*_{g_k^{-1}} μ_k`.
/// * **Order 2, symmetric**: `∇̄h` is symmetric in its arguments and `τ(−x) = τ(x)^{-1}`, so
///   `Φ_{−h} ∘ Φ_h = id`; the method is consistent, hence of even order `≥ 2`. Not a Poisson map
///   (a method that is both for every `h` is the exact flow up to a time change: Ge & Marsden
///   1988).
///
/// **Solve.** Newton on `μ_{k+1}`, `F(ν) = ν − Ad*_{τ(h ∇̄h(μ_k, ν))} μ_k`, from the Lie–Euler
/// guess `Ad*_{τ(h∇h(μ_k))} μ_k`, with the exact Jacobian
///
/// ```text
///     ∂F/∂ν = I − h Ad*_{τ(hξ)} A(μ_k) dτ_{hξ} ∂∇̄h/∂ν,      A(μ) η = ad*_η μ,
/// ```
///
/// (`dτ` right-trivialized: `τ(x + εy) = exp(ε dτ_x y) τ(x) + O(ε²)`), by geom-core's Newton with
/// [`NewtonOptions::lie_poisson`] (simplified, polished). The first Newton matrix is this one at
/// the guess `ν_0` with `∂∇̄h/∂ν ≈ ½ ∇²h(μ_k)` and `ξ ≈ ∇h(μ_k) + ½ ∇²h(μ_k)(ν_0 − μ_k)` (one AD
/// pass gives them with the guess's gradient; exact for a quadratic `h`), a refresh takes the
/// exact one at the iterate. The step returns
/// `Ad*_{τ(hξ)} μ_k` at the converged `ξ`, so the orbit is kept whatever the Newton residual.
///
/// ```
/// use geom_core::lie::{Chart, So3};
/// use integrators::lie_poisson_baselines::CoadjointEnergy;
/// use integrators::models::FreeRigidBody;
/// use integrators::OneStep;
/// use nalgebra::Vector3;
///
/// let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0)?;
/// let method = CoadjointEnergy::new(So3, Chart::Cayley, body.hamiltonian());
/// let mut pi = Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin());
/// let (e0, c0) = (0.5 * pi.dot(&body.velocity(&pi)), pi.norm_squared());
/// for _ in 0..1000 {
///     method.step(&mut pi, 0.1)?;
/// }
/// assert!((0.5 * pi.dot(&body.velocity(&pi)) - e0).abs() < 1e-14);
/// assert!((pi.norm_squared() - c0).abs() < 1e-14);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct CoadjointEnergy<G, H> {
    group: G,
    chart: Chart,
    gradient: Gonzalez<OnMomentum<H>>,
    newton: NewtonOptions,
}

impl<G, H> CoadjointEnergy<G, H> {
    /// The method on `group` with the chart `chart` for the reduced Hamiltonian `h(μ)`.
    pub fn new(group: G, chart: Chart, hamiltonian: H) -> Self {
        Self { group, chart, gradient: Gonzalez::new(OnMomentum(hamiltonian)), newton: NewtonOptions::lie_poisson() }
    }
    /// The same method with other Newton options (default [`NewtonOptions::lie_poisson`]).
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The reduced Hamiltonian `h`.
    pub fn hamiltonian(&self) -> &H {
        &self.gradient.hamiltonian().0
    }
    /// The chart `τ`.
    pub fn chart(&self) -> Chart {
        self.chart
    }
}

impl<G, H> CoadjointEnergy<G, H> {
    /// One step from `μ_k`: `(μ_{k+1}, τ(hξ))` (reconstruction `g_{k+1} = g_k τ(hξ)`); `μ_k` is not
    /// touched. Errors: [`GeomError::InvalidStep`], a non-finite `μ_k` or gradient, a Newton
    /// failure, a chart that is not defined at `hξ` (Cayley), a non-finite result.
    pub fn advance<const D: usize>(
        &self,
        mu: &SVector<f64, D>,
        h: f64,
    ) -> Result<(SVector<f64, D>, <G as LieGroup<f64, D>>::Element), GeomError>
    where
        G: LieGroup<f64, D>,
        H: ScalarFunction<D>,
    {
        check_step(h)?;
        check_finite(mu.iter(), "momentum")?;
        let (group, chart) = (&self.group, self.chart);
        // one AD pass: the gradient of the guess and the Hessian of the first Newton matrix
        let (grad0, hess0) = AutoDiff(self.hamiltonian()).gradient_and_hessian(mu);
        check_finite(grad0.iter().chain(hess0.iter()), "gradient and Hessian of h")?;
        let h0 = self.hamiltonian().eval(mu);
        let w0 = group.tau(chart, &(grad0 * h))?;
        let guess = group.coadjoint(&w0, mu);
        // A(μ_k) η = ad*_η μ_k, column by column
        let mut a = SMatrix::<f64, D, D>::zeros();
        for k in 0..D {
            let mut e = SVector::<f64, D>::zeros();
            e[k] = 1.0;
            a.set_column(k, &group.ad_star(&e, mu));
        }
        let id = SMatrix::<f64, D, D>::identity();
        let newton_matrix = |w: &<G as LieGroup<f64, D>>::Element, xi: &SVector<f64, D>, d: &SMatrix<f64, D, D>| {
            Ok::<_, GeomError>(id - group.adjoint(w).transpose() * a * group.dtau(chart, &(xi * h))? * d * h)
        };
        // ∇h at the midpoint of the guess, linearized (exact for a quadratic h)
        let xi_m = grad0 + hess0 * (guess - mu) * 0.5;
        let mut first = Some(newton_matrix(&group.tau(chart, &(xi_m * h))?, &xi_m, &(hess0 * 0.5))?);
        let (nu, _) = newton_split(
            |nu| {
                let xi = reduced_gradient::gradient(&self.gradient, mu, h0, nu);
                Ok(nu - group.coadjoint(&group.tau(chart, &(xi * h))?, mu))
            },
            |nu| match first.take() {
                Some(j) => Ok(j),
                None => {
                    let (xi, d) = reduced_gradient::gradient_and_jacobian(&self.gradient, mu, nu);
                    newton_matrix(&group.tau(chart, &(xi * h))?, &xi, &d)
                }
            },
            &guess,
            &self.newton,
        )?;
        let xi = reduced_gradient::gradient(&self.gradient, mu, h0, &nu);
        let w = group.tau(chart, &(xi * h))?;
        let mu1 = group.coadjoint(&w, mu);
        check_finite(mu1.iter(), "momentum after step")?;
        Ok((mu1, w))
    }

    fn label(&self) -> String {
        format!("Engø–Faltinsen coadjoint orbit and energy ({})", self.chart.name())
    }
}

/// The reduced step on `g*`: `μ_k ↦ μ_{k+1}`.
impl<G: LieGroup<f64, D>, H: ScalarFunction<D>, const D: usize> OneStep<SVector<f64, D>> for CoadjointEnergy<G, H> {
    fn name(&self) -> String {
        self.label()
    }
    fn order(&self) -> u32 {
        2
    }
    fn is_symmetric(&self) -> bool {
        true
    }
    fn step(&self, mu: &mut SVector<f64, D>, h: f64) -> Result<(), GeomError> {
        *mu = self.advance(mu, h)?.0;
        Ok(())
    }
}

/// The step on `T*G`: `(g_k, μ_k) ↦ (g_k τ(hξ), μ_{k+1})`, for a left-invariant `H(g, μ) = h(μ)`.
impl<G: LieGroup<f64, D>, H: ScalarFunction<D>, const D: usize> OneStep<LieState<G::Element, D>>
    for CoadjointEnergy<G, H>
{
    fn name(&self) -> String {
        self.label()
    }
    fn order(&self) -> u32 {
        2
    }
    fn is_symmetric(&self) -> bool {
        true
    }
    fn step(&self, state: &mut LieState<G::Element, D>, h: f64) -> Result<(), GeomError> {
        let (mu1, w) = self.advance(&state.mu, h)?;
        state.g = self.group.compose(&state.g, &w);
        state.mu = mu1;
        Ok(())
    }
}
