//! Lewis and Simo's energy–momentum scheme on `T*SO(3)`.

use super::reduced_gradient::Split;
use crate::energy_preserving::{DiscreteGradient, Gonzalez};
use discretization::{AdvectedFunction, AdvectedState};
use geom_core::GeomError;
use geom_core::error::check_finite;
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::lie::{LieGroup, So3};
use geom_core::newton::{NewtonOptions, newton_split};
use geom_core::step::{LieState, OneStep, PhaseState, check_step};
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

type Top<H> = Gonzalez<Split<H>>;

#[inline]
fn skew(x: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -x[2], x[1], x[2], 0.0, -x[0], -x[1], x[0], 0.0)
}

/// The energy–momentum scheme on `T*SO(3)` of a rigid body about a fixed point with a reduced
/// Hamiltonian `h(Π, Γ)`, `Γ = Rᵀe3` (D. Lewis, J. C. Simo, *Conserving algorithms for the
/// dynamics of Hamiltonian systems on Lie groups*, J. Nonlinear Sci. 4 (1994) 253–299; for the
/// free body the energy–momentum method of J. C. Simo, K. K. Wong, *Unconditionally stable
/// algorithms for rigid body dynamics that exactly preserve energy and momentum*, Int. J.
/// Numer. Methods Eng. 31, 1991): with `(η, ξ) = ∇̄h` Gonzalez's discrete gradient of `h` on
/// `R^3 × R^3` in `(Γ, Π)` and the midpoints `Π̄ = (Π_k + Π_{k+1})/2`, `Γ̄ = (Γ_k + Γ_{k+1})/2`,
///
/// ```text
///     Π_{k+1} − Π_k = h (Π̄ × ξ + Γ̄ × η),      Γ_{k+1} − Γ_k = h Γ̄ × ξ,
///     R_{k+1} = R_k cay(hξ),
/// ```
///
/// the Lie–Poisson equations of `se(3)*` (`Π̇ = Π × ∂h/∂Π + Γ × ∂h/∂Γ`, `Γ̇ = Γ × ∂h/∂Π`) with the
/// Poisson tensor at the midpoint and the discrete gradient. The Cayley update is the `Γ`
/// equation: `(I + ½hξ̂) Γ_{k+1} = (I − ½hξ̂) Γ_k` is `Γ_{k+1} = cay(hξ)ᵀ Γ_k = R_{k+1}ᵀ e3`.
///
/// * **Energy**: the tensor is skew, so `h(Π_{k+1}, Γ_{k+1}) − h(Π_k, Γ_k) =
///   ξ·ΔΠ + η·ΔΓ = h[ξ·(Γ̄ × η) + η·(Γ̄ × ξ)] = 0`;
/// * **vertical momentum** `e3·(RΠ) = Π·Γ` and `|Γ|²`: `Δ(Π·Γ) = ΔΠ·Γ̄ + Π̄·ΔΓ =
///   h[(Π̄ × ξ)·Γ̄ + Π̄·(Γ̄ × ξ)] = 0`, `Δ|Γ|² = 2 Γ̄·ΔΓ = 0`;
/// * for the free body (`η = 0`) `Π_{k+1} = cay(hξ)ᵀ Π_k` with `ξ = I⁻¹Π̄`, so the whole
///   **spatial momentum** `R_{k+1} Π_{k+1} = R_k Π_k` is kept (Simo–Wong); this is then
///   [`super::CoadjointEnergy`] in the Cayley chart (the tests check it);
/// * symmetric (`∇̄h` and the midpoints are symmetric, `cay(−x) = cay(x)^{-1}`), order 2; not
///   symplectic.
///
/// **Solve.** Newton on `(Γ_{k+1}, Π_{k+1})` from the explicit Euler guess, geom-core's Newton
/// with [`NewtonOptions::lie_poisson`] (simplified, polished). The Jacobian is that of the
/// residual (Gonzalez's `∂∇̄h/∂(Γ', Π')` and the derivatives of the cross products); the first
/// one is taken at the guess with `∂∇̄h/∂x' ≈ ½ ∇²h(x_k)` and `∇̄h ≈ ∇h(x_k) + ½ ∇²h(x_k) Δ` (one AD
/// pass gives them with the guess's gradient; exact for a quadratic `h`), a refresh takes the
/// exact one at the iterate. The state `(R, Π)` is a [`LieState`]; the reduced
/// state `(Π, Γ)` an [`AdvectedState`].
///
/// ```
/// use integrators::lie_poisson_baselines::{EnergyMomentum, ReducedTop};
/// use integrators::models::HeavyTop;
/// use integrators::{LieState, OneStep};
/// use geom_core::lie::{LieGroup, So3};
/// use nalgebra::{Matrix3, Vector3};
///
/// let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::new(0.1, 0.0, 1.0))?;
/// let method = EnergyMomentum::new(ReducedTop::heavy(&top));
/// let mut s = LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
/// let (e0, j0) = (top.energy(&s), top.momenta(&s)[0]);
/// for _ in 0..1000 {
///     method.step(&mut s, 0.05)?;
/// }
/// assert!((top.energy(&s) - e0).abs() < 1e-13 && (top.momenta(&s)[0] - j0).abs() < 1e-13);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct EnergyMomentum<H> {
    gradient: Top<H>,
    newton: NewtonOptions,
}

impl<H> EnergyMomentum<H> {
    /// The scheme for the reduced Hamiltonian `h(Π, Γ)`.
    pub fn new(hamiltonian: H) -> Self {
        Self { gradient: Gonzalez::new(Split(hamiltonian)), newton: NewtonOptions::lie_poisson() }
    }
    /// The same scheme with other Newton options (default [`NewtonOptions::lie_poisson`]).
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The reduced Hamiltonian `h(Π, Γ)`.
    pub fn hamiltonian(&self) -> &H {
        &self.gradient.hamiltonian().0
    }
}

impl<H: AdvectedFunction<3, 3>> EnergyMomentum<H> {
    /// One step from `(Π_k, Γ_k)`: `[Π_{k+1}, Γ_{k+1}, ξ]` (reconstruction `R_{k+1} = R_k cay(hξ)`).
    /// Errors: [`GeomError::InvalidStep`], a non-finite state or gradient, a Newton failure.
    pub fn advance(&self, pi: &Vector3<f64>, gamma: &Vector3<f64>, h: f64) -> Result<[Vector3<f64>; 3], GeomError> {
        check_step(h)?;
        check_finite(gamma.iter().chain(pi.iter()), "state")?;
        let x0 = PhaseState::new(*gamma, *pi);
        // one AD pass: the gradient of the guess and the Hessian of the first Newton matrix
        let ((eta0, xi0), hs) = self.gradient.hamiltonian().gradient_and_hessian(gamma, pi);
        check_finite(eta0.iter().chain(xi0.iter()), "gradient of h")?;
        if !hs.is_finite() {
            return Err(GeomError::NonFinite { what: "Hessian of h" });
        }
        let (g_guess, p_guess) = (gamma + gamma.cross(&xi0) * h, pi + (pi.cross(&xi0) + gamma.cross(&eta0)) * h);
        let guess = join(&g_guess, &p_guess);
        let half = [[hs.qq * 0.5, hs.qp * 0.5], [hs.qp.transpose() * 0.5, hs.pp * 0.5]];
        // ∇h at the midpoint of the guess, linearized (exact for a quadratic h)
        let (dg, dp) = (g_guess - gamma, p_guess - pi);
        let eta_m = eta0 + half[0][0] * dg + half[0][1] * dp;
        let xi_m = xi0 + half[1][0] * dg + half[1][1] * dp;
        let mut first =
            Some(newton_matrix(&((gamma + g_guess) * 0.5), &((pi + p_guess) * 0.5), &xi_m, &eta_m, &half, h));
        let (x, _) = newton_split(
            |x| {
                let (g1, p1) = split(x);
                let [eta, xi] = self.gradient.discrete_gradient(&x0, &PhaseState::new(g1, p1));
                Ok(residual(&x0, &g1, &p1, &eta, &xi, h))
            },
            |x| match first.take() {
                Some(j) => Ok(j),
                None => {
                    let (g1, p1) = split(x);
                    let ([eta, xi], d) = self.gradient.discrete_gradient_and_jacobian(&x0, &PhaseState::new(g1, p1));
                    Ok(newton_matrix(&((gamma + g1) * 0.5), &((pi + p1) * 0.5), &xi, &eta, &d, h))
                }
            },
            &guess,
            &self.newton,
        )?;
        let (g1, p1) = split(&x);
        let xi = self.gradient.discrete_gradient(&x0, &PhaseState::new(g1, p1))[1];
        check_finite(x.iter().chain(xi.iter()), "state after step")?;
        Ok([p1, g1, xi])
    }
}

/// The Newton matrix `∂F/∂(Γ', Π')` at the midpoints `(Γ̄, Π̄)` and the discrete gradient
/// `(η, ξ)` with `d[a][b] = ∂∇̄_a h/∂x'_b` (`0 = Γ`, `1 = Π`).
#[inline]
fn newton_matrix(
    gm: &Vector3<f64>,
    pm: &Vector3<f64>,
    xi: &Vector3<f64>,
    eta: &Vector3<f64>,
    d: &[[Matrix3<f64>; 2]; 2],
    h: f64,
) -> SMatrix<f64, 6, 6> {
    let id = Matrix3::identity();
    let (gh, ph, xh, eh) = (skew(gm), skew(pm), skew(xi), skew(eta));
    let mut j = SMatrix::<f64, 6, 6>::zeros();
    j.fixed_view_mut::<3, 3>(0, 0).copy_from(&(id - (gh * d[1][0] - xh * 0.5) * h));
    j.fixed_view_mut::<3, 3>(0, 3).copy_from(&(gh * d[1][1] * -h));
    j.fixed_view_mut::<3, 3>(3, 0).copy_from(&((ph * d[1][0] - eh * 0.5 + gh * d[0][0]) * -h));
    j.fixed_view_mut::<3, 3>(3, 3).copy_from(&(id - (ph * d[1][1] - xh * 0.5 + gh * d[0][1]) * h));
    j
}

/// `(Γ' − Γ − h Γ̄ × ξ, Π' − Π − h (Π̄ × ξ + Γ̄ × η))`.
#[inline]
fn residual(
    x0: &PhaseState<3>,
    g1: &Vector3<f64>,
    p1: &Vector3<f64>,
    eta: &Vector3<f64>,
    xi: &Vector3<f64>,
    h: f64,
) -> SVector<f64, 6> {
    let (gm, pm) = ((x0.q + g1) * 0.5, (x0.p + p1) * 0.5);
    join(&(g1 - x0.q - gm.cross(xi) * h), &(p1 - x0.p - (pm.cross(xi) + gm.cross(eta)) * h))
}

#[inline]
fn join(a: &Vector3<f64>, b: &Vector3<f64>) -> SVector<f64, 6> {
    SVector::<f64, 6>::new(a[0], a[1], a[2], b[0], b[1], b[2])
}

#[inline]
fn split(x: &SVector<f64, 6>) -> (Vector3<f64>, Vector3<f64>) {
    (x.fixed_rows::<3>(0).into_owned(), x.fixed_rows::<3>(3).into_owned())
}

impl<H> EnergyMomentum<H> {
    fn label(&self) -> String {
        "Lewis–Simo energy–momentum (cayley)".into()
    }
}

/// `(R, Π) ↦ (R cay(hξ), Π_{k+1})`, `Γ_k = R_kᵀ e3`.
impl<H: AdvectedFunction<3, 3>> OneStep<LieState<Matrix3<f64>, 3>> for EnergyMomentum<H> {
    fn name(&self) -> String {
        self.label()
    }
    fn order(&self) -> u32 {
        2
    }
    fn is_symmetric(&self) -> bool {
        true
    }
    fn step(&self, state: &mut LieState<Matrix3<f64>, 3>, h: f64) -> Result<(), GeomError> {
        let gamma = state.g.row(2).transpose();
        let [pi, _, xi] = self.advance(&state.mu, &gamma, h)?;
        let w = So3.cayley(&(xi * h))?;
        state.g *= w;
        state.mu = pi;
        Ok(())
    }
}

/// The reduced step `(Π_k, Γ_k) ↦ (Π_{k+1}, Γ_{k+1})` on `so(3)* × R^3`.
impl<H: AdvectedFunction<3, 3>> OneStep<AdvectedState<3, 3>> for EnergyMomentum<H> {
    fn name(&self) -> String {
        self.label()
    }
    fn order(&self) -> u32 {
        2
    }
    fn is_symmetric(&self) -> bool {
        true
    }
    fn step(&self, state: &mut AdvectedState<3, 3>, h: f64) -> Result<(), GeomError> {
        let [pi, gamma, _] = self.advance(&state.mu, &state.gamma, h)?;
        *state = AdvectedState::new(pi, gamma);
        Ok(())
    }
}
