//! The symplectic integrator `Ψ_h` that a discretization map induces for a Hamiltonian on
//! `T*R^N` (eq. (4) of Barbero-Liñán, Marrero, Martín de Diego, *From retraction maps to
//! symplectic-momentum numerical integrators*, 2024, arXiv:2401.14800; docs/math.md §B.1): the
//! cotangent lift `T*R_d` applied to `h dH` through `I_TQ`, with `(P_0, P_1) = (-p_k, p_{k+1})`.
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
//! adjoint (both explicit, with no Newton iteration, when
//! [`PhaseSpaceDerivatives::is_separable`] holds); every θ is symplectic and preserves `J_m = pᵀ m x` whenever it is a first integral.
//! (This is not the classical non-symplectic θ-method: the weights are crossed.)
//!
//! The same construction on a Lie group is [`crate::lie_hamiltonian`] (docs/math.md §B.4), and on
//! a product of spheres [`crate::sphere_lift`] (§B.5).

use crate::map::EuclideanMap;
use geom_core::GeomError;
use geom_core::function::{Hessian, PhaseSpaceDerivatives};
use geom_core::linalg::{BlockLu, BlockMatrix, BlockVector};
use geom_core::newton::{NewtonOptions, newton_blocks};
use geom_core::step::{OneStep, PhaseState, check_step};
use nalgebra::{DMatrix, SMatrix, SVector};

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
    /// The integrator of `map` for `hamiltonian`, with [`NewtonOptions::simplified`]: simplified
    /// Newton ([`JacobianUpdate::Frozen`](geom_core::newton::JacobianUpdate::Frozen)) at the tolerances of [`NewtonOptions::integrator`],
    /// with final polishing. The Jacobian (the Hessian of `H`, `N(2N+1)` hyper-dual passes for an
    /// AD model) is evaluated and factored at the first iterate and reused, re-evaluated only if
    /// the iteration contracts slowly; the accepted iterate gets one more correction
    /// `x − J⁻¹F(x)` with that factorization ([`NewtonOptions::polish`]), so the step carries no
    /// error of the size of the tolerance. Without it the linearly converging iteration stops
    /// about `1e-14` from the root in every step and the conserved quantities drift like
    /// `steps × tolerance` (Kepler's implicit midpoint, `e = 0.6`, `h = 0.05`: angular momentum
    /// `7.5e-12` after `10^5` steps; polished `9e-14`, the round-off level). Cost: 60% of full
    /// Newton with AD derivatives, 80% with hand-written ones. [`Self::with_newton`] takes full
    /// Newton back (`NewtonOptions::integrator()`, [`JacobianUpdate::EveryIteration`](geom_core::newton::JacobianUpdate::EveryIteration)).
    pub fn new(map: R, hamiltonian: H) -> Self {
        Self { map, hamiltonian, newton: NewtonOptions::simplified() }
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
    pub fn newton_options(&self) -> &NewtonOptions {
        &self.newton
    }
}

impl<R, H> CotangentLiftIntegrator<R, H> {
    /// One step from `state`, returning the new state (the state itself is not touched).
    /// Always inlined: the explicit θ = 0, 1 steps of a separable `H` then compile to the
    /// kick–drift code of a hand-written loop inside a composition (the Newton solves are out of
    /// line).
    #[inline(always)]
    pub fn advance<const N: usize>(&self, state: &PhaseState<N>, h: f64) -> Result<PhaseState<N>, GeomError>
    where
        R: EuclideanMap<N>,
        H: PhaseSpaceDerivatives<N>,
    {
        check_step(h)?;
        let next = match self.map.theta() {
            Some(theta) if self.hamiltonian.is_separable() && (theta == 0.0 || theta == 1.0) => {
                explicit_theta(&self.hamiltonian, theta == 0.0, state, h).1
            }
            // (a copy: the out-of-line call sees its address, not the caller's state, which then
            // stays in registers across the stages of a composition)
            _ => self.implicit_advance(&std::hint::black_box(*state), h)?,
        };
        if next.is_finite() { Ok(next) } else { Err(GeomError::NonFinite { what: "state after step" }) }
    }

    /// The steps that solve equations (θ ∉ {0, 1} or a non-separable `H`, and general maps):
    /// one out-of-line call, so that the explicit steps inline alone into compositions.
    #[inline(never)]
    fn implicit_advance<const N: usize>(&self, state: &PhaseState<N>, h: f64) -> Result<PhaseState<N>, GeomError>
    where
        R: EuclideanMap<N>,
        H: PhaseSpaceDerivatives<N>,
    {
        match self.map.theta() {
            Some(theta) => theta_step(&self.hamiltonian, theta, state, h, &self.newton),
            None => crate::general::general_step(&self.map, &self.hamiltonian, state, h, &self.newton),
        }
    }

    /// The exact Jacobian `M = ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k)` (`2N × 2N`, ordering `(q, p)`) of
    /// one step from `state`, by implicit differentiation of the Newton system at its root with
    /// the exact (AD or hand-written) Hessian of `H` and the map derivatives; this is the matrix
    /// of the symplecticity test `Mᵀ Ω M = Ω`, `Ω = [[0, I], [-I, 0]]`. It allocates (the result
    /// is a `DMatrix`); it is a diagnostic, not a hot-loop call.
    ///
    /// * θ path, unknowns `z = (q̄, p̄)`, `F(z; q_k, p_k) = (q̄ - q_k - θh H_p, p̄ - p_k + (1-θ)h H_q)`:
    ///   `F_s = -I`, so `∂z/∂s = F_z^{-1}`, then the explicit update
    ///   `q_{k+1} = q_k + h H_p(z)`, `p_{k+1} = p_k - h H_q(z)` gives
    ///   `∂q_{k+1}/∂s = [I, 0] + h [H_pq, H_pp] ∂z/∂s`, `∂p_{k+1}/∂s = [0, I] - h [H_qq, H_qp] ∂z/∂s`.
    /// * general path, `z = (q, p, q_{k+1}, p_{k+1})` ([`crate::general`]): `∂z/∂s = -F_z^{-1} F_s`
    ///   with `∂F_0/∂q_k = -I`, `∂F_2/∂p_k = -(∂_x R^1)ᵀ`, `∂F_3/∂p_k = (∂_v R^1)ᵀ` (all other
    ///   blocks of `F_s` zero); `M` is the `(q_{k+1}, p_{k+1})` rows of `∂z/∂s`.
    ///
    /// Errors: those of [`advance`](Self::advance), and [`GeomError::SingularMatrix`] if `F_z` is
    /// singular at the root.
    ///
    /// ```
    /// use discretization::{CotangentLiftIntegrator, PhaseState, ThetaMap};
    /// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
    /// use geom_core::Scalar;
    /// use nalgebra::SVector;
    ///
    /// struct Pendulum;
    /// impl PhaseSpaceFunction<1> for Pendulum {
    ///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
    ///         p[0] * p[0] * S::from(0.5) - q[0].cos()
    ///     }
    /// }
    /// let integ = CotangentLiftIntegrator::new(ThetaMap::midpoint(), AutoDiff(Pendulum));
    /// let m = integ.step_jacobian(&PhaseState::new(SVector::from([1.0]), SVector::from([0.5])), 0.1)?;
    /// // in one degree of freedom symplectic means det M = 1
    /// assert!((m.determinant() - 1.0).abs() < 1e-13);
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn step_jacobian<const N: usize>(&self, state: &PhaseState<N>, h: f64) -> Result<DMatrix<f64>, GeomError>
    where
        R: EuclideanMap<N>,
        H: PhaseSpaceDerivatives<N>,
    {
        check_step(h)?;
        let mut m = DMatrix::<f64>::zeros(2 * N, 2 * N);
        let unit = |k: usize| SVector::<f64, N>::from_fn(|i, _| if i == k { 1.0 } else { 0.0 });
        match self.map.theta() {
            Some(theta) => {
                let ([qbar, pbar], _) = theta_solve(&self.hamiltonian, theta, state, h, &self.newton)?;
                let hess = self.hamiltonian.try_hessian(&qbar, &pbar)?;
                let lu = BlockLu::factor(&theta_jacobian(&hess, theta * h, (1.0 - theta) * h), "step Jacobian F_z")?;
                for col in 0..2 * N {
                    let e = if col < N { [unit(col), SVector::zeros()] } else { [SVector::zeros(), unit(col - N)] };
                    let dz = lu.solve(&e);
                    let dq1 = e[0] + (hess.qp.tr_mul(&dz[0]) + hess.pp * dz[1]) * h;
                    let dp1 = e[1] - (hess.qq * dz[0] + hess.qp * dz[1]) * h;
                    for i in 0..N {
                        m[(i, col)] = dq1[i];
                        m[(N + i, col)] = dp1[i];
                    }
                }
            }
            None => {
                let z = crate::general::general_solve(&self.map, &self.hamiltonian, state, h, &self.newton)?;
                let mut jac = [[SMatrix::<f64, N, N>::zeros(); 4]; 4];
                crate::general::general_residual(
                    &self.map,
                    &self.hamiltonian,
                    &state.q,
                    &state.p,
                    h,
                    &z,
                    Some(&mut jac),
                )?;
                let lu = BlockLu::factor(&jac, "step Jacobian F_z")?;
                let v = self.hamiltonian.gradient(&z[0], &z[1]).1 * h;
                let jm = self.map.jacobian(&z[0], &v);
                for col in 0..2 * N {
                    let fs: BlockVector<f64, N, 4> = if col < N {
                        [-unit(col), SVector::zeros(), SVector::zeros(), SVector::zeros()]
                    } else {
                        let e = unit(col - N);
                        [SVector::zeros(), SVector::zeros(), -jm.dx1.tr_mul(&e), jm.dv1.tr_mul(&e)]
                    };
                    let dz = lu.solve(&fs);
                    for i in 0..N {
                        m[(i, col)] = -dz[2][i];
                        m[(N + i, col)] = -dz[3][i];
                    }
                }
            }
        }
        if m.iter().all(|v| v.is_finite()) { Ok(m) } else { Err(GeomError::NonFinite { what: "step Jacobian" }) }
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
    #[inline(always)]
    fn step(&self, state: &mut PhaseState<N>, h: f64) -> Result<(), GeomError> {
        *state = self.advance(state, h)?;
        Ok(())
    }
}

/// The Jacobian of the reduced θ system in `(q̄, p̄)` with `a = θh`, `b = (1-θ)h`:
/// `[[I - a H_pq, -a H_pp], [b H_qq, I + b H_qp]]` (`H_pq = qpᵀ`).
#[inline]
fn theta_jacobian<const N: usize>(hess: &Hessian<N>, a: f64, b: f64) -> BlockMatrix<f64, N, 2> {
    let id = SMatrix::<f64, N, N>::identity();
    [[id - hess.qp.transpose() * a, hess.pp * -a], [hess.qq * b, id + hess.qp * b]]
}

/// Solve the reduced θ system from `state`: returns the stages `[q̄, p̄]` and the new state.
#[inline]
fn theta_solve<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    hamiltonian: &H,
    theta: f64,
    state: &PhaseState<N>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<(BlockVector<f64, N, 2>, PhaseState<N>), GeomError> {
    // Separable H = T(p) + V(q): θ = 0 (symplectic Euler) and θ = 1 (its adjoint) are explicit.
    if hamiltonian.is_separable() && (theta == 0.0 || theta == 1.0) {
        return Ok(explicit_theta(hamiltonian, theta == 0.0, state, h));
    }
    theta_newton(hamiltonian, theta, state, h, newton)
}

/// The θ = 0 (`kick_first`) and θ = 1 steps of a separable `H = T(p) + V(q)`, which solve
/// nothing: `p̄ = p_k - h ∂V/∂q(q_k)`, `q_{k+1} = q_k + h ∂T/∂p(p̄)` (θ = 0) and
/// `q_{k+1} = q_k + h ∂T/∂p(p_k)`, `p_{k+1} = p_k - h ∂V/∂q(q_{k+1})` (θ = 1). Returns the stages
/// `[q̄, p̄]` and the new state.
#[inline(always)]
fn explicit_theta<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    hamiltonian: &H,
    kick_first: bool,
    state: &PhaseState<N>,
    h: f64,
) -> (BlockVector<f64, N, 2>, PhaseState<N>) {
    let (qk, pk) = (state.q, state.p);
    if kick_first {
        let pbar = pk - hamiltonian.gradient_q(&qk, &pk) * h;
        let q1 = qk + hamiltonian.gradient_p(&qk, &pbar) * h;
        ([qk, pbar], PhaseState::new(q1, pbar))
    } else {
        let q1 = qk + hamiltonian.gradient_p(&qk, &pk) * h;
        let p1 = pk - hamiltonian.gradient_q(&q1, &pk) * h;
        ([q1, pk], PhaseState::new(q1, p1))
    }
}

/// The implicit θ step: Newton on `(q̄, p̄)` (kept out of line, so that the explicit cases above
/// stay small enough to inline into compositions).
#[inline(never)]
fn theta_newton<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    hamiltonian: &H,
    theta: f64,
    state: &PhaseState<N>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<(BlockVector<f64, N, 2>, PhaseState<N>), GeomError> {
    let (qk, pk) = (state.q, state.p);
    let (hq, hp) = hamiltonian.try_gradient(&qk, &pk)?;
    let (a, b) = (theta * h, (1.0 - theta) * h);
    let guess = [qk + hp * a, pk - hq * b];
    let (stages, _) = newton_blocks(
        |x, jac| {
            let (q, p) = (x[0], x[1]);
            let (hq, hp) = match jac {
                Some(j) => {
                    let ((hq, hp), hess) = hamiltonian.gradient_and_hessian(&q, &p);
                    *j = theta_jacobian(&hess, a, b);
                    (hq, hp)
                }
                None => hamiltonian.gradient(&q, &p),
            };
            Ok([q - qk - hp * a, p - pk + hq * b])
        },
        &guess,
        newton,
    )?;
    let (hq, hp) = hamiltonian.gradient(&stages[0], &stages[1]);
    Ok((stages, PhaseState::new(qk + hp * h, pk - hq * h)))
}

/// The reduced θ-method step (module documentation): block Newton on `(q̄, p̄)` with the
/// Jacobian `[[I - θh H_pq, -θh H_pp], [(1-θ)h H_qq, I + (1-θ)h H_qp]]`.
#[inline]
pub fn theta_step<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    hamiltonian: &H,
    theta: f64,
    state: &PhaseState<N>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<PhaseState<N>, GeomError> {
    Ok(theta_solve(hamiltonian, theta, state, h, newton)?.1)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::general::tests::{Hidden, Mixed};
    use crate::theta::ThetaMap;
    use geom_core::function::AutoDiff;
    use nalgebra::Vector2;

    /// Central differences of one step, column by column (`eps = 1e-5`: truncation `~eps² |∂³Ψ|`,
    /// rounding `~1e-14/eps`, both below 1e-8 here).
    pub(crate) fn fd_step_jacobian<R: EuclideanMap<N>, H: PhaseSpaceDerivatives<N>, const N: usize>(
        integ: &CotangentLiftIntegrator<R, H>,
        s: &PhaseState<N>,
        h: f64,
    ) -> DMatrix<f64> {
        let eps = 1e-5;
        let mut m = DMatrix::zeros(2 * N, 2 * N);
        for col in 0..2 * N {
            let (mut sp, mut sm) = (*s, *s);
            if col < N {
                sp.q[col] += eps;
                sm.q[col] -= eps;
            } else {
                sp.p[col - N] += eps;
                sm.p[col - N] -= eps;
            }
            let (a, b) = (integ.advance(&sp, h).unwrap(), integ.advance(&sm, h).unwrap());
            for i in 0..N {
                m[(i, col)] = (a.q[i] - b.q[i]) / (2.0 * eps);
                m[(N + i, col)] = (a.p[i] - b.p[i]) / (2.0 * eps);
            }
        }
        m
    }

    #[test]
    fn step_jacobian_matches_finite_differences_and_is_symplectic() {
        let s = PhaseState::new(Vector2::new(0.3, -0.8), Vector2::new(1.1, 0.4));
        for theta in [0.0, 0.25, 0.5, 1.0] {
            let map = ThetaMap::<2>::new(theta).unwrap();
            for (label, m, fd) in [
                {
                    let integ = CotangentLiftIntegrator::new(map, AutoDiff(Mixed));
                    ("theta path", integ.step_jacobian(&s, 0.2).unwrap(), fd_step_jacobian(&integ, &s, 0.2))
                },
                {
                    let integ = CotangentLiftIntegrator::new(Hidden(map), AutoDiff(Mixed));
                    ("general path", integ.step_jacobian(&s, 0.2).unwrap(), fd_step_jacobian(&integ, &s, 0.2))
                },
            ] {
                let d = (&m - &fd).amax();
                assert!(d < 1e-7, "theta = {theta}, {label}: |M - M_fd| = {d:e}");
                let w = geom_core::step::testing::canonical_poisson_tensor(2);
                let sym = (m.transpose() * &w * &m - &w).amax();
                assert!(sym < 1e-13, "theta = {theta}, {label}: |MᵀΩM - Ω| = {sym:e}");
            }
        }
    }

    #[test]
    fn step_jacobian_validates_the_step() {
        let integ = CotangentLiftIntegrator::new(ThetaMap::<2>::midpoint(), AutoDiff(Mixed));
        let s = PhaseState::new(Vector2::new(0.3, -0.8), Vector2::new(1.1, 0.4));
        assert_eq!(integ.step_jacobian(&s, 0.0).unwrap_err(), GeomError::InvalidStep { h: 0.0 });
        assert!(integ.step_jacobian(&s, f64::NAN).is_err());
    }
}
