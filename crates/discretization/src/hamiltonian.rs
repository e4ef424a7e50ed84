//! The symplectic integrator `Ψ_h` that a discretization map induces for a Hamiltonian on
//! `T*R^N` (seed 000 eq. (4), MATH.md b.1): the cotangent lift `T*R_d` applied to `h dH` through
//! `I_TQ`, with `(P_0, P_1) = (-p_k, p_{k+1})`.
//!
//! **General `R_d`.** Solve for `(q, p, q_{k+1}, p_{k+1})`, with `v = h ∂H/∂p(q, p)` and every
//! Jacobian at `(q, v)`:
//! ```text
//!   q_k     = R^1(q, v)
//!   q_{k+1} = R^2(q, v)
//!   -h ∂H/∂q(q, p) = -(∂_x R^1)ᵀ p_k + (∂_x R^2)ᵀ p_{k+1}
//!   p              = -(∂_v R^1)ᵀ p_k + (∂_v R^2)ᵀ p_{k+1}
//! ```
//! by block Newton (four blocks of size `N`, on the stack) from `q = q_k`, `p = p_k`,
//! `q_{k+1} = q_k + h H_p`, `p_{k+1} = p_k - h H_q`.
//!
//! **θ-maps** (`EuclideanMap::theta() = Some(θ)`) take the reduced system: with the crossed
//! weights `q̄ = (1-θ) q_k + θ q_{k+1}`, `p̄ = θ p_k + (1-θ) p_{k+1}`,
//! ```text
//!   q_{k+1} = q_k + h ∂H/∂p(q̄, p̄),   p_{k+1} = p_k - h ∂H/∂q(q̄, p̄),
//! ```
//! solved for `(q̄, p̄)` (two blocks): `q̄ = q_k + θ h H_p(q̄, p̄)`, `p̄ = p_k - (1-θ) h H_q(q̄, p̄)`.
//! θ = 1/2 is the implicit midpoint rule (order 2, symmetric), θ = 0 symplectic Euler, θ = 1 its
//! adjoint; every θ is symplectic and preserves `J_m = pᵀ m x` whenever it is a first integral.
//! (This is not the classical non-symplectic θ-method: the weights are crossed.)

use crate::map::EuclideanMap;
use crate::one_step::{OneStep, PhaseState, check_step};
use geom_core::GeomError;
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::newton::{NewtonOptions, newton_blocks};
use nalgebra::SMatrix;

/// Newton options of the implicit integrators: residual `<= 1e-14`, step estimate
/// `<= 1e-14 (1 + |x|)`, 50 iterations, so that conserved quantities hold to round-off.
pub fn integrator_newton_options() -> NewtonOptions {
    NewtonOptions { residual_tol: 1e-14, step_tol: 1e-14, ..NewtonOptions::default() }
}

/// `Ψ_h`, the integrator induced by the discretization map `R` for the Hamiltonian `H`.
///
/// ```
/// use discretization::{CotangentLiftIntegrator, OneStep, PhaseState, ThetaMap};
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use nalgebra::SVector;
///
/// struct Oscillator;
/// impl PhaseSpaceFunction<1> for Oscillator {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
///         (q[0] * q[0] + p[0] * p[0]) * S::from(0.5)
///     }
/// }
/// let midpoint = CotangentLiftIntegrator::new(ThetaMap::midpoint(), AutoDiff(Oscillator));
/// let mut s = PhaseState::new(SVector::from([1.0]), SVector::from([0.0]));
/// for _ in 0..100 {
///     midpoint.step(&mut s, 0.1)?;
/// }
/// // the midpoint rule conserves quadratic invariants
/// assert!(((s.q[0] * s.q[0] + s.p[0] * s.p[0]) - 1.0).abs() < 1e-13);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct CotangentLiftIntegrator<R, H> {
    map: R,
    hamiltonian: H,
    newton: NewtonOptions,
}

impl<R, H> CotangentLiftIntegrator<R, H> {
    /// The integrator of `map` for `hamiltonian`, with [`integrator_newton_options`].
    pub fn new(map: R, hamiltonian: H) -> Self {
        Self { map, hamiltonian, newton: integrator_newton_options() }
    }
    /// The same integrator with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The discretization map.
    pub fn map(&self) -> &R {
        &self.map
    }
    /// The Hamiltonian.
    pub fn hamiltonian(&self) -> &H {
        &self.hamiltonian
    }
    /// The Newton options.
    pub fn newton(&self) -> &NewtonOptions {
        &self.newton
    }
}

impl<R, H> CotangentLiftIntegrator<R, H> {
    /// One step from `state`, returning the new state (the state itself is not touched).
    pub fn advance<const N: usize>(&self, state: &PhaseState<N>, h: f64) -> Result<PhaseState<N>, GeomError>
    where
        R: EuclideanMap<N>,
        H: PhaseSpaceDerivatives<N>,
    {
        check_step(h)?;
        let next = match self.map.theta() {
            Some(theta) => theta_step(&self.hamiltonian, theta, state, h, &self.newton)?,
            None => crate::general::general_step(&self.map, &self.hamiltonian, state, h, &self.newton)?,
        };
        if next.is_finite() { Ok(next) } else { Err(GeomError::NonFinite { what: "state after step" }) }
    }
}

impl<R: EuclideanMap<N>, H: PhaseSpaceDerivatives<N>, const N: usize> OneStep<PhaseState<N>>
    for CotangentLiftIntegrator<R, H>
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
    fn step(&self, state: &mut PhaseState<N>, h: f64) -> Result<(), GeomError> {
        *state = self.advance(state, h)?;
        Ok(())
    }
}

/// The reduced θ-method step (module documentation): block Newton on `(q̄, p̄)` with the
/// Jacobian `[[I - θh H_pq, -θh H_pp], [(1-θ)h H_qq, I + (1-θ)h H_qp]]`.
pub fn theta_step<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    hamiltonian: &H,
    theta: f64,
    state: &PhaseState<N>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<PhaseState<N>, GeomError> {
    let (qk, pk) = (state.q, state.p);
    let (hq, hp) = hamiltonian.try_gradient(&qk, &pk)?;
    let (a, b) = (theta * h, (1.0 - theta) * h);
    let guess = [qk + hp * a, pk - hq * b];
    let id = SMatrix::<f64, N, N>::identity();
    let ([qbar, pbar], _) = newton_blocks(
        |x, jac| {
            let (q, p) = (x[0], x[1]);
            let (hq, hp) = match jac {
                Some(j) => {
                    let ((hq, hp), hess) = hamiltonian.gradient_and_hessian(&q, &p);
                    *j = [[id - hess.qp.transpose() * a, hess.pp * -a], [hess.qq * b, id + hess.qp * b]];
                    (hq, hp)
                }
                None => hamiltonian.gradient(&q, &p),
            };
            Ok([q - qk - hp * a, p - pk + hq * b])
        },
        &guess,
        newton,
    )?;
    let (hq, hp) = hamiltonian.gradient(&qbar, &pbar);
    Ok(PhaseState::new(qk + hp * h, pk - hq * h))
}
