//! Simo and Wong's midpoint Lie (Lie–Newmark) scheme on `T*SO(3)`.

use super::reduced_gradient::Split;
use discretization::AdvectedFunction;
use geom_core::GeomError;
use geom_core::error::check_finite;
use geom_core::function::{AutoDiff, PhaseSpaceDerivatives};
use geom_core::lie::{LieGroup, So3};
use geom_core::newton::{NewtonOptions, newton_split};
use geom_core::step::{LieState, OneStep, check_step};
use nalgebra::{Matrix3, Vector3};

fn skew(x: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -x[2], x[1], x[2], 0.0, -x[0], -x[1], x[0], 0.0)
}

/// The midpoint Lie scheme (the implicit Lie–Newmark method) on `T*SO(3)` of J. C. Simo,
/// K. K. Wong, *Unconditionally stable algorithms for rigid body dynamics that exactly preserve
/// energy and momentum*, Int. J. Numer. Methods Eng. 31 (1991) 19–52, for a rigid body about a
/// fixed point with a separable reduced Hamiltonian `h(Π, Γ) = T(Π) + V(Γ)`, `Γ = Rᵀe3`, and
/// the body torque `f(Γ) = Γ × ∇V(Γ)` (`mgl Γ × χ` for the heavy top):
///
/// ```text
///     Π_{k+½} = exp(½hΩ)ᵀ (Π_k + ½h f(Γ_k)),       Ω = ∇T(Π_{k+½}),
///     R_{k+1} = R_k exp(hΩ),
///     Π_{k+1} = exp(½hΩ)ᵀ Π_{k+½} + ½h f(Γ_{k+1}).
/// ```
///
/// `Π_{k+½}` is the body momentum at the midpoint configuration `R_k exp(½hΩ)`, so in the
/// spatial frame the scheme is the trapezoidal momentum balance `π_{k+1} = π_k + ½h (R_k f_k +
/// R_{k+1} f_{k+1})` (`π = RΠ`):
///
/// * **spatial momentum** of the free body (`f = 0`): `π_{k+1} = π_k` exactly, and `Π_{k+1} =
///   exp(hΩ)ᵀ Π_k` stays on its **coadjoint orbit** `|Π| = const`;
/// * **vertical momentum** of the heavy top: `e3·(R f) = Γ·(Γ × ∇V) = 0`, so `e3·π` is kept;
/// * the **energy is not** kept (it oscillates with an `O(h²)` amplitude), which is what
///   [`super::EnergyMomentum`] adds; symmetric (`Φ_{−h}` retraces the step with the same `Ω`),
///   order 2.
///
/// **Solve.** Newton on `Ω`, `F(Ω) = Ω − ∇T(exp(½hΩ)ᵀ m)`, `m = Π_k + ½h f(Γ_k)`, from
/// `Ω = ∇T(m)`, with the Jacobian `I − ½h ∇²T · exp(½hΩ)ᵀ m̂ dexp_{½hΩ}` (right-trivialized
/// `dexp`; `∂/∂Ω [Ad*_{exp(x)} m] = Ad*_{exp(x)} ad*_{(·)} m dexp_x`, `ad*_η m = m × η`), geom-core's
/// Newton with [`NewtonOptions::lie_poisson`].
///
/// ```
/// use integrators::lie_poisson_baselines::{LieNewmark, ReducedTop};
/// use integrators::models::FreeRigidBody;
/// use integrators::{LieState, OneStep};
/// use geom_core::lie::So3;
/// use nalgebra::{Matrix3, Vector3};
///
/// let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0)?;
/// let method = LieNewmark::new(ReducedTop::free(&body));
/// let mut s = LieState::new(Matrix3::identity(), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin()));
/// let (j0, c0) = (s.spatial_momentum(&So3), s.mu.norm_squared());
/// for _ in 0..1000 {
///     method.step(&mut s, 0.1)?;
/// }
/// assert!((s.spatial_momentum(&So3) - j0).amax() < 1e-13 && (s.mu.norm_squared() - c0).abs() < 1e-13);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct LieNewmark<H> {
    hamiltonian: AutoDiff<Split<H>>,
    newton: NewtonOptions,
}

impl<H> LieNewmark<H> {
    /// The scheme for the separable reduced Hamiltonian `h(Π, Γ) = T(Π) + V(Γ)`.
    pub fn new(hamiltonian: H) -> Self {
        Self { hamiltonian: AutoDiff(Split(hamiltonian)), newton: NewtonOptions::lie_poisson() }
    }
    /// The same scheme with other Newton options (default [`NewtonOptions::lie_poisson`]).
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The reduced Hamiltonian `h(Π, Γ)`.
    pub fn hamiltonian(&self) -> &H {
        &self.hamiltonian.model().0
    }
}

impl<H: AdvectedFunction<3, 3>> LieNewmark<H> {
    /// The body torque `f(Γ) = Γ × ∇V(Γ)`.
    #[inline]
    fn torque(&self, gamma: &Vector3<f64>, pi: &Vector3<f64>) -> Vector3<f64> {
        gamma.cross(&self.hamiltonian.gradient_q(gamma, pi))
    }

    /// One step from `(R_k, Π_k)`: `(R_{k+1}, Π_{k+1})`. Errors: [`GeomError::InvalidStep`], a
    /// non-finite state or gradient, a Newton failure, a non-finite result.
    pub fn advance(
        &self,
        r: &Matrix3<f64>,
        pi: &Vector3<f64>,
        h: f64,
    ) -> Result<(Matrix3<f64>, Vector3<f64>), GeomError> {
        check_step(h)?;
        let gamma = r.row(2).transpose();
        let (grad_gamma, omega0) = self.hamiltonian.try_gradient(&gamma, pi)?;
        let m = pi + gamma.cross(&grad_gamma) * (0.5 * h);
        let id = Matrix3::identity();
        let (omega, _) = newton_split(
            |omega| {
                let half = So3.exp(&(omega * (0.5 * h))).tr_mul(&m);
                Ok(omega - self.hamiltonian.gradient_p(&gamma, &half))
            },
            |omega| {
                let x = omega * (0.5 * h);
                let w = So3.exp(&x);
                let half = w.tr_mul(&m);
                let t2 = self.hamiltonian.hessian_pp(&gamma, &half);
                Ok(id - t2 * w.transpose() * skew(&m) * LieGroup::<f64, 3>::dexp(&So3, &x) * (0.5 * h))
            },
            &omega0,
            &self.newton,
        )?;
        let w = So3.exp(&(omega * (0.5 * h)));
        let r1 = r * w * w;
        let gamma1 = r1.row(2).transpose();
        let pi1 = w.tr_mul(&w.tr_mul(&m)) + self.torque(&gamma1, pi) * (0.5 * h);
        check_finite(pi1.iter().chain(r1.iter()), "state after step")?;
        Ok((r1, pi1))
    }
}

impl<H: AdvectedFunction<3, 3>> OneStep<LieState<Matrix3<f64>, 3>> for LieNewmark<H> {
    fn name(&self) -> String {
        "Simo–Wong midpoint Lie (Lie–Newmark, exp)".into()
    }
    fn order(&self) -> u32 {
        2
    }
    fn is_symmetric(&self) -> bool {
        true
    }
    fn step(&self, state: &mut LieState<Matrix3<f64>, 3>, h: f64) -> Result<(), GeomError> {
        let (r, pi) = self.advance(&state.g, &state.mu, h)?;
        *state = LieState::new(r, pi);
        Ok(())
    }
}
