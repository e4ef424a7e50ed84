//! The splitting methods: symplectic Euler A and B and Störmer–Verlet, implicit (Newton) for a
//! general `H`, explicit (kicks and drifts) for a separable one, with their step Jacobians.

use super::jacobian::{PhaseJacobian, StepJacobian};
use super::kernels::{Delta, Matrix, Vector, apply, checked};
use crate::driver::Increment;
use geom_core::GeomError;
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::linalg::Lu;
use geom_core::newton::{NewtonOptions, newton_split};
use geom_core::step::step_repeatedly;
use geom_core::step::{OneStep, PhaseState, check_step};

// ------------------------------------------------------------------------------------------------
// Kernels

/// [`GeomError::NonFinite`] unless every entry of `q` and `p` is finite (the check of
/// [`PhaseSpaceDerivatives::try_gradient`]).
#[inline]
fn finite_point<const N: usize>(q: &Vector<N>, p: &Vector<N>) -> Result<(), GeomError> {
    if q.iter().all(|v| v.is_finite()) && p.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(GeomError::NonFinite { what: "phase-space point" })
    }
}

/// [`GeomError::NonFinite`] unless every entry of the gradient half `g` is finite.
#[inline]
fn finite_gradient<const N: usize>(g: &Vector<N>) -> Result<(), GeomError> {
    if g.iter().all(|v| v.is_finite()) { Ok(()) } else { Err(GeomError::NonFinite { what: "gradient" }) }
}

/// `∂H/∂q(q, p)` alone ([`PhaseSpaceDerivatives::gradient_q`]), with the checks of
/// [`PhaseSpaceDerivatives::try_gradient`]: [`GeomError::NonFinite`] if `q`, `p` or an entry is
/// not finite.
#[inline]
fn try_gradient_q<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    q: &Vector<N>,
    p: &Vector<N>,
) -> Result<Vector<N>, GeomError> {
    finite_point(q, p)?;
    let g = ham.gradient_q(q, p);
    finite_gradient(&g)?;
    Ok(g)
}

/// `∂H/∂p(q, p)` alone, checked as [`try_gradient_q`].
#[inline]
fn try_gradient_p<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    q: &Vector<N>,
    p: &Vector<N>,
) -> Result<Vector<N>, GeomError> {
    finite_point(q, p)?;
    let g = ham.gradient_p(q, p);
    finite_gradient(&g)?;
    Ok(g)
}

/// Symplectic Euler A, implicit: solve `δp + h H_q(q, p + δp) = 0`; returns `(Δq, Δp)` and the
/// stage momentum `P = p + δp`. The residual needs `H_q` alone
/// ([`PhaseSpaceDerivatives::gradient_q`]) and the Newton matrix `I + h H_qp` the mixed block
/// alone ([`PhaseSpaceDerivatives::hessian_qp`]: `N²` hyper-dual passes of an AD model instead
/// of the `N(2N + 1)` of the full Hessian), evaluated only where a Newton step follows
/// ([`newton_split`]). When the residual test accepts the solution, the increment reuses the
/// `H_q` its residual evaluated there.
fn euler_a<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    q: &Vector<N>,
    p: &Vector<N>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<(Delta<N>, Vector<N>), GeomError> {
    let gq = try_gradient_q(ham, q, p)?;
    let id = Matrix::<N>::identity();
    // the last residual's iterate and `H_q` there: the solution itself when the residual test
    // accepted it, whose `H_q` the increment then reuses
    let mut last = (gq * -h, gq);
    let (dp, _) = newton_split(
        |x: &Vector<N>| {
            last = (*x, ham.gradient_q(q, &(p + x)));
            Ok(x + last.1 * h)
        },
        |x: &Vector<N>| Ok(id + ham.hessian_qp(q, &(p + x)) * h),
        &(gq * -h),
        newton,
    )?;
    let stage = p + dp;
    let gq = if last.0 == dp { last.1 } else { ham.gradient_q(q, &stage) };
    Ok(((ham.gradient_p(q, &stage) * h, gq * -h), stage))
}

/// Symplectic Euler B, implicit: solve `δq − h H_p(q + δq, p) = 0`; returns `(Δq, Δp)` and the
/// stage position `Q = q + δq`. As [`euler_a`]: `H_p` alone in the residual, the Newton matrix
/// `I − h H_pq = I − h H_qpᵀ` from the mixed block alone, where a step follows.
fn euler_b<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    q: &Vector<N>,
    p: &Vector<N>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<(Delta<N>, Vector<N>), GeomError> {
    euler_b_from(ham, q, p, h, newton, try_gradient_p(ham, q, p)? * h)
}

/// [`euler_b`] from the guess `guess` of `δq` (there `h H_p(q, p)`).
#[inline]
fn euler_b_from<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    q: &Vector<N>,
    p: &Vector<N>,
    h: f64,
    newton: &NewtonOptions,
    guess: Vector<N>,
) -> Result<(Delta<N>, Vector<N>), GeomError> {
    let id = Matrix::<N>::identity();
    let mut last = (guess, guess);
    let (dq, _) = newton_split(
        |x: &Vector<N>| {
            last = (*x, ham.gradient_p(&(q + x), p));
            Ok(x - last.1 * h)
        },
        |x: &Vector<N>| Ok(id - ham.hessian_qp(&(q + x), p).transpose() * h),
        &guess,
        newton,
    )?;
    let stage = q + dq;
    let gp = if last.0 == dq { last.1 } else { ham.gradient_p(&stage, p) };
    Ok(((gp * h, ham.gradient_q(&stage, p) * -h), stage))
}

/// Jacobian of SE-A at the solution `(q, P)`: with `K = (I + h H_qp)⁻¹`,
/// `∂P/∂q = −h K H_qq`, `∂P/∂p = K`, `∂q₁/∂q = I + h (H_pq + H_pp ∂P/∂q)`, `∂q₁/∂p = h H_pp K`.
fn euler_a_jacobian<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    q: &Vector<N>,
    stage: &Vector<N>,
    h: f64,
) -> Result<PhaseJacobian<N>, GeomError> {
    let hs = ham.try_hessian(q, stage)?;
    let id = Matrix::<N>::identity();
    let k = Lu::factor(&(id + hs.qp * h), "symplectic Euler A Jacobian")?.inverse();
    let dpq = k * hs.qq * -h;
    Ok(PhaseJacobian { qq: id + (hs.qp.transpose() + hs.pp * dpq) * h, qp: hs.pp * k * h, pq: dpq, pp: k })
}

/// Jacobian of SE-B at the solution `(Q, p)`: with `L = (I − h H_pq)⁻¹`, `∂Q/∂q = L`,
/// `∂Q/∂p = h L H_pp`, `∂p₁/∂q = −h H_qq L`, `∂p₁/∂p = I − h (H_qq ∂Q/∂p + H_qp)`.
fn euler_b_jacobian<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    stage: &Vector<N>,
    p: &Vector<N>,
    h: f64,
) -> Result<PhaseJacobian<N>, GeomError> {
    let hs = ham.try_hessian(stage, p)?;
    let id = Matrix::<N>::identity();
    let l = Lu::factor(&(id - hs.qp.transpose() * h), "symplectic Euler B Jacobian")?.inverse();
    let dqp = l * hs.pp * h;
    Ok(PhaseJacobian { qq: l, qp: dqp, pq: hs.qq * l * -h, pp: id - (hs.qq * dqp + hs.qp) * h })
}

/// Explicit SE-A for a separable `H` (`H_q` independent of `p`, `H_p` of `q`):
/// `Δp = −h V'(q)`, `Δq = h T'(p + Δp)`. Unchecked: the caller checks the new state once.
#[inline]
fn euler_a_explicit<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    state: &PhaseState<N>,
    h: f64,
) -> Delta<N> {
    let dp = ham.gradient_q(&state.q, &state.p) * -h;
    let dq = ham.gradient_p(&state.q, &(state.p + dp)) * h;
    (dq, dp)
}

/// Explicit SE-B for a separable `H`: `Δq = h T'(p)`, `Δp = −h V'(q + Δq)`. Unchecked.
#[inline]
fn euler_b_explicit<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    state: &PhaseState<N>,
    h: f64,
) -> Delta<N> {
    let dq = ham.gradient_p(&state.q, &state.p) * h;
    let dp = ham.gradient_q(&(state.q + dq), &state.p) * -h;
    (dq, dp)
}

/// Explicit Störmer–Verlet for a separable `H` (kick–drift–kick):
/// `p_{1/2} = p − h/2 V'(q)`, `Δq = h T'(p_{1/2})`, `Δp = −h/2 (V'(q) + V'(q + Δq))`.
/// Returns the increment and `p_{1/2}`. Unchecked: the caller checks the new state once.
#[inline]
fn verlet_explicit<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    state: &PhaseState<N>,
    h: f64,
) -> (Delta<N>, Vector<N>) {
    let kick1 = ham.gradient_q(&state.q, &state.p) * (-0.5 * h);
    let p_half = state.p + kick1;
    let dq = ham.gradient_p(&state.q, &p_half) * h;
    let kick2 = ham.gradient_q(&(state.q + dq), &p_half) * (-0.5 * h);
    ((dq, kick1 + kick2), p_half)
}

/// Explicit Störmer–Verlet for a separable `H`, as the new state and `p_{1/2}` (the form of `step`; the
/// increment form [`verlet_explicit`] serves compensated summation):
/// `p_{1/2} = p − h/2 V'(q)`, `q_1 = q + h T'(p_{1/2})`, `p_1 = p_{1/2} − h/2 V'(q_1)`. Unchecked.
#[inline]
fn verlet_explicit_state<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    state: &PhaseState<N>,
    h: f64,
) -> (PhaseState<N>, Vector<N>) {
    let (next, p_half, _) = kick_drift_kick(ham, state, &ham.gradient_q(&state.q, &state.p), h);
    (next, p_half)
}

/// [`verlet_explicit_state`] from the force `V'(q)` at the start, given: returns the new state,
/// `p_{1/2}` and `V'(q_1)`, the force the next step starts from ([`StormerVerlet`]'s
/// `OneStep::step_n`). Unchecked.
#[inline(always)]
fn kick_drift_kick<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    state: &PhaseState<N>,
    force: &Vector<N>,
    h: f64,
) -> (PhaseState<N>, Vector<N>, Vector<N>) {
    let p_half = state.p - force * (0.5 * h);
    let q1 = state.q + ham.gradient_p(&state.q, &p_half) * h;
    let end = ham.gradient_q(&q1, &p_half);
    (PhaseState::new(q1, p_half - end * (0.5 * h)), p_half, end)
}

/// Kick `p ← p − c V'(q)` with `qq = V''(q)`: Jacobian `[[I, 0], [−c V''(q), I]]`.
fn kick_jacobian<const N: usize>(qq: &Matrix<N>, c: f64) -> PhaseJacobian<N> {
    PhaseJacobian { pq: qq * -c, ..PhaseJacobian::identity() }
}

/// Drift `q ← q + c T'(p)` with `pp = T''(p)`: Jacobian `[[I, c T''(p)], [0, I]]`.
fn drift_jacobian<const N: usize>(pp: &Matrix<N>, c: f64) -> PhaseJacobian<N> {
    PhaseJacobian { qp: pp * c, ..PhaseJacobian::identity() }
}

/// Jacobian of Störmer–Verlet's kick–drift–kick for a separable `H`, `K(C) D(B) K(A)` with
/// `A = V''(q₀)`, `B = T''(p_{1/2})`, `C = V''(q₁)`, the kicks `K(A) = [[I, 0], [−c A, I]]`
/// (`c = h/2`) and the drift `D(B) = [[I, h B], [0, I]]`, multiplied out:
/// `[[Y, h B], [−c (C Y + A), I − c h C B]]` with `Y = I − c h B A`.
#[inline(always)]
fn kick_drift_kick_jacobian<const N: usize>(a: &Matrix<N>, b: &Matrix<N>, c: &Matrix<N>, h: f64) -> PhaseJacobian<N> {
    let id = Matrix::<N>::identity();
    let half = 0.5 * h;
    let qp = b * h;
    let qq = id - qp * a * half;
    PhaseJacobian { qq, qp, pq: (c * qq + a) * -half, pp: id - c * qp * half }
}

/// A Hessian block ([`PhaseSpaceDerivatives::hessian_qq`] / `hessian_pp`), or
/// [`GeomError::NonFinite`] if an entry is not finite.
#[inline]
fn finite_block<const N: usize>(block: Matrix<N>) -> Result<Matrix<N>, GeomError> {
    if block.iter().all(|v| v.is_finite()) { Ok(block) } else { Err(GeomError::NonFinite { what: "Hessian" }) }
}

// ------------------------------------------------------------------------------------------------
// Symplectic Euler

/// Symplectic Euler A (HLW VI.3, eq. (3.1), Thm VI.3.3):
/// `p₁ = p − h H_q(q, p₁)`, `q₁ = q + h H_p(q, p₁)`; order 1, symplectic, not symmetric.
/// Implicit in `p₁` for a general `H` (one Newton block, matrix `I + h H_qp`); explicit,
/// `p₁ = p − h V'(q)`, `q₁ = q + h T'(p₁)`, when `H` is separable
/// ([`PhaseSpaceDerivatives::is_separable`]). It is the integrator induced by the θ = 0
/// discretization map (docs/math.md §B.1).
#[derive(Debug, Clone)]
pub struct SymplecticEulerA<H> {
    hamiltonian: H,
    newton: NewtonOptions,
}

/// Symplectic Euler B, the adjoint of A (HLW VI.3, eq. (3.2)):
/// `q₁ = q + h H_p(q₁, p)`, `p₁ = p − h H_q(q₁, p)`; order 1, symplectic. Implicit in `q₁` for a
/// general `H` (matrix `I − h H_pq`); explicit, `q₁ = q + h T'(p)`, `p₁ = p − h V'(q₁)`, when
/// `H` is separable ([`PhaseSpaceDerivatives::is_separable`]). Induced by the θ = 1 map
/// (docs/math.md §B.1).
#[derive(Debug, Clone)]
pub struct SymplecticEulerB<H> {
    hamiltonian: H,
    newton: NewtonOptions,
}

/// Störmer–Verlet (HLW VI.3, eq. (3.4)): `SE-B_{h/2} ∘ SE-A_{h/2}`,
/// ```text
///   p_{1/2} = p − h/2 H_q(q, p_{1/2})
///   q₁      = q + h/2 (H_p(q, p_{1/2}) + H_p(q₁, p_{1/2}))
///   p₁      = p_{1/2} − h/2 H_q(q₁, p_{1/2})
/// ```
/// order 2, symmetric, symplectic; two one-block Newton solves for a general `H`. For a
/// separable `H` ([`PhaseSpaceDerivatives::is_separable`]) the kick–drift–kick form
/// `p_{1/2} = p − h/2 V'(q)`, `q₁ = q + h T'(p_{1/2})`, `p₁ = p_{1/2} − h/2 V'(q₁)`. The
/// 2-stage Lobatto IIIA–IIIB pair is the same map.
#[derive(Debug, Clone)]
pub struct StormerVerlet<H> {
    hamiltonian: H,
    newton: NewtonOptions,
}

macro_rules! splitting_common {
    ($ty:ident, $what:literal) => {
        impl<H> $ty<H> {
            #[doc = concat!($what, " for the Hamiltonian `H`, with [`NewtonOptions::integrator`]:")]
            /// explicit if `H` declares itself separable ([`PhaseSpaceDerivatives::is_separable`]),
            /// implicit otherwise.
            pub fn new(hamiltonian: H) -> Self {
                Self { hamiltonian, newton: NewtonOptions::integrator() }
            }
            /// The same method with other Newton options (unused by the explicit form).
            pub fn with_newton(self, newton: NewtonOptions) -> Self {
                Self { newton, ..self }
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
        impl<H: PhaseSpaceDerivatives<N>, const N: usize> OneStep<PhaseState<N>> for $ty<H> {
            fn name(&self) -> String {
                if self.hamiltonian.is_separable() {
                    format!("{} (explicit, separable H)", $what)
                } else {
                    format!("{} (implicit)", $what)
                }
            }
            fn order(&self) -> u32 {
                Self::ORDER
            }
            fn is_symmetric(&self) -> bool {
                Self::SYMMETRIC
            }
            #[inline]
            fn step(&self, state: &mut PhaseState<N>, h: f64) -> Result<(), GeomError> {
                let next = self.advance(state, h)?;
                // one finiteness check per step: a non-finite input or increment shows in `next`
                if !next.is_finite() {
                    return Err(GeomError::NonFinite { what: "state after step" });
                }
                *state = next;
                Ok(())
            }
            #[inline]
            fn step_n(&self, state: &mut PhaseState<N>, h: f64, n: usize) -> Result<(), GeomError> {
                self.steps(state, h, n)
            }
        }
        impl<H: PhaseSpaceDerivatives<N>, const N: usize> Increment<N> for $ty<H> {
            fn increment(&self, state: &PhaseState<N>, h: f64) -> Result<Delta<N>, GeomError> {
                checked(state, self.delta(state, h)?)
            }
        }
    };
}

splitting_common!(SymplecticEulerA, "symplectic Euler A");
splitting_common!(SymplecticEulerB, "symplectic Euler B");
splitting_common!(StormerVerlet, "Störmer–Verlet");

impl<H> SymplecticEulerA<H> {
    const ORDER: u32 = 1;
    const SYMMETRIC: bool = false;
}

/// [`OneStep::step_n`] of the symplectic Euler methods: one force evaluation per step already,
/// nothing to share between steps.
macro_rules! steps_one_by_one {
    ($ty:ident) => {
        impl<H> $ty<H> {
            #[inline]
            fn steps<const N: usize>(&self, state: &mut PhaseState<N>, h: f64, n: usize) -> Result<(), GeomError>
            where
                H: PhaseSpaceDerivatives<N>,
                Self: OneStep<PhaseState<N>>,
            {
                step_repeatedly(self, state, h, n)
            }
        }
    };
}
steps_one_by_one!(SymplecticEulerA);
steps_one_by_one!(SymplecticEulerB);
impl<H> SymplecticEulerB<H> {
    const ORDER: u32 = 1;
    const SYMMETRIC: bool = false;
}
impl<H> StormerVerlet<H> {
    const ORDER: u32 = 2;
    const SYMMETRIC: bool = true;
}

/// `delta` (the increment, not yet checked for finiteness: the callers check the new state once)
/// and `advance` (the new state) of a symplectic Euler method: the explicit form for a separable
/// `H`, Newton otherwise.
macro_rules! euler_steps {
    ($ty:ident, $explicit:ident, $implicit:ident) => {
        impl<H> $ty<H> {
            #[inline]
            fn delta<const N: usize>(&self, state: &PhaseState<N>, h: f64) -> Result<Delta<N>, GeomError>
            where
                H: PhaseSpaceDerivatives<N>,
            {
                check_step(h)?;
                if self.hamiltonian.is_separable() {
                    return Ok($explicit(&self.hamiltonian, state, h));
                }
                Ok($implicit(&self.hamiltonian, &state.q, &state.p, h, &self.newton)?.0)
            }

            #[inline]
            fn advance<const N: usize>(&self, state: &PhaseState<N>, h: f64) -> Result<PhaseState<N>, GeomError>
            where
                H: PhaseSpaceDerivatives<N>,
            {
                let (dq, dp) = self.delta(state, h)?;
                Ok(PhaseState::new(state.q + dq, state.p + dp))
            }
        }
    };
}

euler_steps!(SymplecticEulerA, euler_a_explicit, euler_a);
euler_steps!(SymplecticEulerB, euler_b_explicit, euler_b);

/// The two halves of implicit Störmer–Verlet: `(Δ, P after SE-A, intermediate state, Q after SE-B)`.
type VerletHalves<const N: usize> = (Delta<N>, Vector<N>, PhaseState<N>, Vector<N>);

fn verlet<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    state: &PhaseState<N>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<VerletHalves<N>, GeomError> {
    let ((dq1, dp1), p_half) = euler_a(ham, &state.q, &state.p, 0.5 * h, newton)?;
    let mid = PhaseState::new(state.q + dq1, state.p + dp1);
    finite_point(&mid.q, &mid.p)?;
    // the second half's drift δq = h/2 H_p(q₁, p_{1/2}) from the first's, h/2 H_p(q, p_{1/2})
    // (both O(h²) from it, as the guess h/2 H_p(q_{1/2}, p_{1/2}), which would cost a gradient)
    let ((dq2, dp2), q_end) = euler_b_from(ham, &mid.q, &mid.p, 0.5 * h, newton, dq1)?;
    Ok(((dq1 + dq2, dp1 + dp2), p_half, mid, q_end))
}

impl<H> StormerVerlet<H> {
    /// The increment, not yet checked for finiteness (the callers check the new state once).
    #[inline]
    fn delta<const N: usize>(&self, state: &PhaseState<N>, h: f64) -> Result<Delta<N>, GeomError>
    where
        H: PhaseSpaceDerivatives<N>,
    {
        check_step(h)?;
        if self.hamiltonian.is_separable() {
            return Ok(verlet_explicit(&self.hamiltonian, state, h).0);
        }
        Ok(verlet(&self.hamiltonian, state, h, &self.newton)?.0)
    }
}

impl<H> StormerVerlet<H> {
    /// [`OneStep::step_n`]: for a separable `H`, kick–drift–kick with the force at the end of
    /// each step kept for the first kick of the next ("first same as last": `∇V(q_{k+1})` is
    /// evaluated once, not twice; the same numbers as `n` single steps, bit for bit, since
    /// `H_q` of a separable `H` does not depend on `p`). Each step's state is checked for
    /// finiteness as by [`OneStep::step`]; on any error `state` is left as it was. Other `H`:
    /// `n` single steps.
    #[inline]
    fn steps<const N: usize>(&self, state: &mut PhaseState<N>, h: f64, n: usize) -> Result<(), GeomError>
    where
        H: PhaseSpaceDerivatives<N>,
    {
        let ham = &self.hamiltonian;
        if !ham.is_separable() || n == 0 {
            return step_repeatedly(self, state, h, n);
        }
        check_step(h)?;
        let mut work = *state;
        let mut force = ham.gradient_q(&work.q, &work.p);
        for _ in 0..n {
            let (next, _, end) = kick_drift_kick(ham, &work, &force, h);
            if !next.is_finite() {
                return Err(GeomError::NonFinite { what: "state after step" });
            }
            (work, force) = (next, end);
        }
        *state = work;
        Ok(())
    }

    /// The new state, not yet checked for finiteness: kick–drift–kick written on the state for a
    /// separable `H`, the two implicit half steps otherwise.
    #[inline]
    fn advance<const N: usize>(&self, state: &PhaseState<N>, h: f64) -> Result<PhaseState<N>, GeomError>
    where
        H: PhaseSpaceDerivatives<N>,
    {
        check_step(h)?;
        if self.hamiltonian.is_separable() {
            return Ok(verlet_explicit_state(&self.hamiltonian, state, h).0);
        }
        let (dq, dp) = verlet(&self.hamiltonian, state, h, &self.newton)?.0;
        Ok(PhaseState::new(state.q + dq, state.p + dp))
    }
}

impl<H: PhaseSpaceDerivatives<N>, const N: usize> StepJacobian<N> for SymplecticEulerA<H> {
    fn step_jacobian(&self, state: &PhaseState<N>, h: f64) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError> {
        check_step(h)?;
        if self.hamiltonian.is_separable() {
            // drift at p₁ after kick at q: the blocks V''(q) and T''(p₁)
            let ham = &self.hamiltonian;
            let next = apply(state, &euler_a_explicit(ham, state, h))?;
            let (qq, pp) =
                (finite_block(ham.hessian_qq(&state.q, &next.p))?, finite_block(ham.hessian_pp(&state.q, &next.p))?);
            return Ok((next, drift_jacobian(&pp, h).after(&kick_jacobian(&qq, h))));
        }
        let (delta, stage) = euler_a(&self.hamiltonian, &state.q, &state.p, h, &self.newton)?;
        Ok((apply(state, &delta)?, euler_a_jacobian(&self.hamiltonian, &state.q, &stage, h)?))
    }
}

impl<H: PhaseSpaceDerivatives<N>, const N: usize> StepJacobian<N> for SymplecticEulerB<H> {
    fn step_jacobian(&self, state: &PhaseState<N>, h: f64) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError> {
        check_step(h)?;
        if self.hamiltonian.is_separable() {
            // kick at q₁ after drift at p: the blocks V''(q₁) and T''(p)
            let ham = &self.hamiltonian;
            let next = apply(state, &euler_b_explicit(ham, state, h))?;
            let (qq, pp) =
                (finite_block(ham.hessian_qq(&next.q, &state.p))?, finite_block(ham.hessian_pp(&next.q, &state.p))?);
            return Ok((next, kick_jacobian(&qq, h).after(&drift_jacobian(&pp, h))));
        }
        let (delta, stage) = euler_b(&self.hamiltonian, &state.q, &state.p, h, &self.newton)?;
        Ok((apply(state, &delta)?, euler_b_jacobian(&self.hamiltonian, &stage, &state.p, h)?))
    }
}

impl<H: PhaseSpaceDerivatives<N>, const N: usize> StepJacobian<N> for StormerVerlet<H> {
    /// Inlined into the caller with the separable path, so that the state and the `4N²` entries
    /// of the Jacobian reach the caller's variables directly (out of line, the caller moved the
    /// returned `Result` through memory, a `memcpy` and copies stalled on it: the Hénon–Heiles
    /// tangent map took 3.3× the plain step, 2.4× inlined); the implicit path stays out of line
    /// (`StormerVerlet::implicit_step_jacobian`).
    #[inline(always)]
    fn step_jacobian(&self, state: &PhaseState<N>, h: f64) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError> {
        check_step(h)?;
        if self.hamiltonian.is_separable() {
            return separable_verlet_jacobian(&self.hamiltonian, state, h);
        }
        self.implicit_step_jacobian(state, h)
    }
}

/// The step and step Jacobian of Störmer–Verlet's kick–drift–kick for a separable `H`: kick at
/// `q₁` ∘ drift at `p_{1/2}` ∘ kick at `q`, the blocks `V''(q)`, `T''(p_{1/2})`, `V''(q₁)` only,
/// each once, each force with its Hessian block from the same passes
/// ([`PhaseSpaceDerivatives::gradient_and_hessian_q`]): the step's arithmetic is
/// [`kick_drift_kick`]'s.
#[inline(always)]
fn separable_verlet_jacobian<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    state: &PhaseState<N>,
    h: f64,
) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError> {
    let (force, first) = ham.gradient_and_hessian_q(&state.q, &state.p);
    let p_half = state.p - force * (0.5 * h);
    let (velocity, drift) = ham.gradient_and_hessian_p(&state.q, &p_half);
    let q1 = state.q + velocity * h;
    let (end, last) = ham.gradient_and_hessian_q(&q1, &p_half);
    let next = PhaseState::new(q1, p_half - end * (0.5 * h));
    if !next.is_finite() {
        return Err(GeomError::NonFinite { what: "state after step" });
    }
    let (first, drift, last) = (finite_block(first)?, finite_block(drift)?, finite_block(last)?);
    Ok((next, kick_drift_kick_jacobian(&first, &drift, &last, h)))
}

impl<H> StormerVerlet<H> {
    /// [`StepJacobian::step_jacobian`] for a general `H` (the step size checked): the two
    /// implicit half steps and their Jacobians, out of line.
    #[inline(never)]
    fn implicit_step_jacobian<const N: usize>(
        &self,
        state: &PhaseState<N>,
        h: f64,
    ) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError>
    where
        H: PhaseSpaceDerivatives<N>,
    {
        let (delta, p_half, mid, q_end) = verlet(&self.hamiltonian, state, h, &self.newton)?;
        let first = euler_a_jacobian(&self.hamiltonian, &state.q, &p_half, 0.5 * h)?;
        let second = euler_b_jacobian(&self.hamiltonian, &q_end, &mid.p, 0.5 * h)?;
        Ok((apply(state, &delta)?, second.after(&first)))
    }
}
