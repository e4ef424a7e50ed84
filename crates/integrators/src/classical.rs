//! Classical symplectic integrators on `T*R^N` for a Hamiltonian `H(q, p)`, and the explicit
//! Runge–Kutta baseline (HLW = Hairer, Lubich, Wanner, *Geometric Numerical Integration*, 2nd ed.).
//!
//! | method | formula | order | symmetric | source |
//! | --- | --- | --- | --- | --- |
//! | [`SymplecticEulerA`] | `p₁ = p − h H_q(q, p₁)`, `q₁ = q + h H_p(q, p₁)` | 1 | no | HLW VI.3 (3.1) |
//! | [`SymplecticEulerB`] | `q₁ = q + h H_p(q₁, p)`, `p₁ = p − h H_q(q₁, p)` | 1 | no | HLW VI.3 (3.2), the adjoint of A |
//! | [`StormerVerlet`] | `SE-B_{h/2} ∘ SE-A_{h/2}` | 2 | yes | HLW VI.3 (3.4) |
//! | [`GaussCollocation`] | `s`-stage Gauss–Legendre RK | `2s` | yes | HLW II.1.3, VI.4 |
//! | [`LobattoIIIAIIIB`] | Lobatto IIIA for `q`, IIIB for `p` | `2s − 2` | yes | HLW II.2.2, VI.4 |
//! | [`ExplicitRk`] | any explicit tableau (RK4, ...) | tableau | no | HLW II.1 (not symplectic) |
//!
//! **General `H` (implicit).** Every method solves for *increments*, not for new states, so that
//! the unknowns are small and the [`Increment`] of a step is exact to the last bit of the
//! increment (what compensated summation, [`crate::driver`], needs):
//! * symplectic Euler A solves `δp + h H_q(q, p + δp) = 0` for `δp` (one block of size `N`,
//!   Newton matrix `I + h H_qp`), then `Δq = h H_p(q, P)`, `Δp = −h H_q(q, P)`, `P = p + δp`;
//! * symplectic Euler B solves `δq − h H_p(q + δq, p) = 0` (Newton matrix `I − h H_pq`);
//! * Störmer–Verlet (3.4) is `SE-A` with `h/2` followed by `SE-B` with `h/2`:
//!   `p_{1/2} = p − h/2 H_q(q, p_{1/2})`, `q₁ = q + h/2 (H_p(q, p_{1/2}) + H_p(q₁, p_{1/2}))`,
//!   `p₁ = p_{1/2} − h/2 H_q(q₁, p_{1/2})`;
//! * the partitioned RK methods (Gauss with `â = a`, Lobatto IIIA–IIIB) solve for the stage
//!   increments `Z_i = (Q_i − q, P_i − p)`,
//!   ```text
//!     Zq_i = h Σ_j a_ij H_p(Q_j, P_j),     Zp_i = −h Σ_j â_ij H_q(Q_j, P_j),   i = 1..s,
//!     Δq = h Σ_i b_i H_p(Q_i, P_i),          Δp = −h Σ_i b_i H_q(Q_i, P_i),
//!   ```
//!   by [`newton_blocks`] with `B = 2s` blocks of size `N` (blocks `0..s` are `Zq`, `s..2s`
//!   are `Zp`), from the guess `Z_i = c_i h (H_p, −H_q)(q, p)`. The block Jacobian is
//!   ```text
//!     ∂(Zq_i eq.)/∂Zq_j = δ_ij I − h a_ij H_pq(Y_j)    ∂(Zq_i eq.)/∂Zp_j = −h a_ij H_pp(Y_j)
//!     ∂(Zp_i eq.)/∂Zq_j = h â_ij H_qq(Y_j)             ∂(Zp_i eq.)/∂Zp_j = δ_ij I + h â_ij H_qp(Y_j)
//!   ```
//!   with `H_pq = H_qpᵀ` from the [`Hessian`] blocks. The update uses the quadrature form
//!   `Δ = h Σ b_i f(Y_i)` (one gradient per stage at the solution) rather than
//!   `Σ d_i Z_i`, `dᵀ = bᵀA⁻¹` (HLW VIII.6): the latter multiplies the Newton error by
//!   `|A⁻¹| = O(1)`, the former by `h |f'|`, and it also works for Lobatto IIIA, whose `A` is
//!   singular.
//!
//! *Why two const parameters `S` and `B`.* `newton_blocks` needs the number of blocks as a const
//! and `2·S` is not a const-generic expression on stable Rust. [`GaussCollocation<H, S, B>`] and
//! [`LobattoIIIAIIIB<H, S, B>`] therefore take both, with a compile-time check `B == 2 S`
//! (a post-monomorphization `const` assertion: a wrong pair does not compile), and the aliases
//! [`Gauss1`] … [`Gauss5`], [`LobattoIIIAIIIB2`] … [`LobattoIIIAIIIB5`] spell the right pair.
//!
//! **Separable `H = T(p) + V(q)` (explicit).** Whenever the Hamiltonian declares itself
//! separable ([`PhaseSpaceDerivatives::is_separable`], e.g. [`geom_core::function::Separable`]),
//! symplectic Euler A/B and Störmer–Verlet take their explicit forms, with `V'(q) = H_q(q, ·)`
//! ([`PhaseSpaceDerivatives::gradient_q`]) and `T'(p) = H_p(·, p)`
//! ([`PhaseSpaceDerivatives::gradient_p`]), exactly as the θ = 0/1 path of
//! [`discretization::hamiltonian`]:
//! * SE-A: `p₁ = p − h V'(q)`, `q₁ = q + h T'(p₁)`; SE-B: `q₁ = q + h T'(p)`, `p₁ = p − h V'(q₁)`;
//! * Störmer–Verlet: `p_{1/2} = p − h/2 V'(q)`, `q₁ = q + h T'(p_{1/2})`,
//!   `p₁ = p_{1/2} − h/2 V'(q₁)` (kick–drift–kick).
//!
//! A Hamiltonian that does not declare it (the default) takes the implicit forms, even if it is
//! separable; Gauss and Lobatto are implicit for every `H`.
//!
//! **Step Jacobians.** [`StepJacobian`] returns the exact one-step Jacobian
//! `M = ∂(q₁, p₁)/∂(q, p)` ([`PhaseJacobian`]), obtained by implicit differentiation of the stage
//! equations at the Newton solution (`dZ/dy = −G_Z⁻¹ G_y` with `G_Z` the Newton matrix, then the
//! chain rule through the update), or by the chain rule through the kicks and drifts of the
//! explicit forms. Symplectic methods satisfy `Mᵀ Ω M = Ω` ([`PhaseJacobian::symplecticity_defect`]).
//!
//! Every method implements [`OneStep<PhaseState<N>>`](OneStep) and [`Increment<N>`]; a step
//! validates `h` ([`check_step`]: finite and nonzero, negative allowed), reports Newton failures
//! and non-finite results as [`GeomError`], and leaves the state untouched on error. Nothing is
//! allocated per step.

use crate::driver::Increment;
use crate::tableau::{self, Tableau};
use discretization::{CotangentLiftIntegrator, EuclideanMap};
use geom_core::GeomError;
use geom_core::function::{Hessian, PhaseSpaceDerivatives};
use geom_core::linalg::{BlockLu, BlockMatrix, BlockVector, Lu};
use geom_core::newton::{NewtonOptions, newton_blocks};
use geom_core::step::step_repeatedly;
use geom_core::step::{OneStep, PhaseState, check_step};
use nalgebra::{DMatrix, SMatrix, SVector};

pub(crate) type Vector<const N: usize> = SVector<f64, N>;
pub(crate) type Matrix<const N: usize> = SMatrix<f64, N, N>;
/// `(Δq, Δp)`.
pub(crate) type Delta<const N: usize> = (Vector<N>, Vector<N>);

// ------------------------------------------------------------------------------------------------
// Step Jacobians

/// The Jacobian `M = ∂(q₁, p₁)/∂(q₀, p₀)` of a one-step map on `T*R^N`, in four `N × N` blocks
/// `M = [[qq, qp], [pq, pp]]` with `qq = ∂q₁/∂q₀`, `qp = ∂q₁/∂p₀`, `pq = ∂p₁/∂q₀`,
/// `pp = ∂p₁/∂p₀`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhaseJacobian<const N: usize> {
    /// `∂q₁/∂q₀`.
    pub qq: Matrix<N>,
    /// `∂q₁/∂p₀`.
    pub qp: Matrix<N>,
    /// `∂p₁/∂q₀`.
    pub pq: Matrix<N>,
    /// `∂p₁/∂p₀`.
    pub pp: Matrix<N>,
}

impl<const N: usize> PhaseJacobian<N> {
    /// The identity map's Jacobian.
    ///
    /// ```
    /// let m = integrators::classical::PhaseJacobian::<2>::identity();
    /// assert_eq!(m.symplecticity_defect(), 0.0);
    /// ```
    pub fn identity() -> Self {
        Self { qq: Matrix::identity(), qp: Matrix::zeros(), pq: Matrix::zeros(), pp: Matrix::identity() }
    }

    /// The Jacobian of the composition `self ∘ first` (first `first`, then `self`): the block
    /// product `self · first`.
    pub fn after(&self, first: &Self) -> Self {
        Self {
            qq: self.qq * first.qq + self.qp * first.pq,
            qp: self.qq * first.qp + self.qp * first.pp,
            pq: self.pq * first.qq + self.pp * first.pq,
            pp: self.pq * first.qp + self.pp * first.pp,
        }
    }

    /// `|Mᵀ Ω M − Ω|_max` with `Ω = [[0, I], [−I, 0]]` (zero iff `M` is symplectic, HLW VI.2).
    /// With `M = [[A, B], [C, D]]`: `MᵀΩM = [[AᵀC − CᵀA, AᵀD − CᵀB], [BᵀC − DᵀA, BᵀD − DᵀB]]`.
    pub fn symplecticity_defect(&self) -> f64 {
        let (a, b, c, d) = (&self.qq, &self.qp, &self.pq, &self.pp);
        let top_left = a.transpose() * c - c.transpose() * a;
        let top_right = a.transpose() * d - c.transpose() * b - Matrix::<N>::identity();
        let bottom_right = b.transpose() * d - d.transpose() * b;
        top_left.amax().max(top_right.amax()).max(bottom_right.amax())
    }

    /// The full `2N × 2N` matrix (ordering `(q, p)`); allocates.
    pub fn to_dmatrix(&self) -> DMatrix<f64> {
        DMatrix::from_fn(2 * N, 2 * N, |i, j| match (i < N, j < N) {
            (true, true) => self.qq[(i, j)],
            (true, false) => self.qp[(i, j - N)],
            (false, true) => self.pq[(i - N, j)],
            (false, false) => self.pp[(i - N, j - N)],
        })
    }

    /// `det M` (1 for symplectic maps, Liouville); allocates.
    pub fn determinant(&self) -> f64 {
        self.to_dmatrix().determinant()
    }
}

/// A one-step map on `T*R^N` that also returns its exact Jacobian `M = ∂(q₁, p₁)/∂(q₀, p₀)`
/// (module documentation: implicit differentiation at the Newton solution, or the chain rule
/// through explicit stages). Object-safe.
pub trait StepJacobian<const N: usize>: Send + Sync {
    /// `(Φ_h(q, p), DΦ_h(q, p))`; the same errors as the step.
    fn step_jacobian(&self, state: &PhaseState<N>, h: f64) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError>;
}

// ------------------------------------------------------------------------------------------------
// Shared kernels

/// `state + (dq, dp)` if every entry of the increment and of the result is finite.
#[inline]
pub(crate) fn apply<const N: usize>(state: &PhaseState<N>, (dq, dp): &Delta<N>) -> Result<PhaseState<N>, GeomError> {
    // `q + Δq` is finite only if both terms are: one check covers the state and the increment
    let next = PhaseState::new(state.q + dq, state.p + dp);
    if next.is_finite() { Ok(next) } else { Err(GeomError::NonFinite { what: "state after step" }) }
}

/// The increment itself if applying it to `state` gives a finite state.
#[inline]
pub(crate) fn checked<const N: usize>(state: &PhaseState<N>, delta: Delta<N>) -> Result<Delta<N>, GeomError> {
    apply(state, &delta)?;
    Ok(delta)
}

pub(crate) fn check_input<const N: usize>(state: &PhaseState<N>) -> Result<(), GeomError> {
    if state.is_finite() { Ok(()) } else { Err(GeomError::NonFinite { what: "state before step" }) }
}

/// Symplectic Euler A, implicit: solve `δp + h H_q(q, p + δp) = 0`; returns `(Δq, Δp)` and the
/// stage momentum `P = p + δp`.
fn euler_a<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    q: &Vector<N>,
    p: &Vector<N>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<(Delta<N>, Vector<N>), GeomError> {
    let (gq, _) = ham.try_gradient(q, p)?;
    let id = Matrix::<N>::identity();
    let ([dp], _) = newton_blocks(
        |x: &[Vector<N>; 1], jac: Option<&mut [[Matrix<N>; 1]; 1]>| {
            let pp = p + x[0];
            let gq = match jac {
                Some(j) => {
                    let ((gq, _), hs) = ham.gradient_and_hessian(q, &pp);
                    j[0][0] = id + hs.qp * h;
                    gq
                }
                None => ham.gradient(q, &pp).0,
            };
            Ok([x[0] + gq * h])
        },
        &[gq * -h],
        newton,
    )?;
    let stage = p + dp;
    let (gq, gp) = ham.gradient(q, &stage);
    Ok(((gp * h, gq * -h), stage))
}

/// Symplectic Euler B, implicit: solve `δq − h H_p(q + δq, p) = 0`; returns `(Δq, Δp)` and the
/// stage position `Q = q + δq`.
fn euler_b<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    ham: &H,
    q: &Vector<N>,
    p: &Vector<N>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<(Delta<N>, Vector<N>), GeomError> {
    let (_, gp) = ham.try_gradient(q, p)?;
    let id = Matrix::<N>::identity();
    let ([dq], _) = newton_blocks(
        |x: &[Vector<N>; 1], jac: Option<&mut [[Matrix<N>; 1]; 1]>| {
            let qq = q + x[0];
            let gp = match jac {
                Some(j) => {
                    let ((_, gp), hs) = ham.gradient_and_hessian(&qq, p);
                    j[0][0] = id - hs.qp.transpose() * h;
                    gp
                }
                None => ham.gradient(&qq, p).1,
            };
            Ok([x[0] - gp * h])
        },
        &[gp * h],
        newton,
    )?;
    let stage = q + dq;
    let (gq, gp) = ham.gradient(&stage, p);
    Ok(((gp * h, gq * -h), stage))
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
    let ((dq2, dp2), q_end) = euler_b(ham, &mid.q, &mid.p, 0.5 * h, newton)?;
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
            // drift at p₁ after kick at q: one Hessian at (q, p₁) gives V''(q) and T''(p₁)
            let next = apply(state, &euler_a_explicit(&self.hamiltonian, state, h))?;
            let hs = self.hamiltonian.try_hessian(&state.q, &next.p)?;
            return Ok((next, drift_jacobian(&hs.pp, h).after(&kick_jacobian(&hs.qq, h))));
        }
        let (delta, stage) = euler_a(&self.hamiltonian, &state.q, &state.p, h, &self.newton)?;
        Ok((apply(state, &delta)?, euler_a_jacobian(&self.hamiltonian, &state.q, &stage, h)?))
    }
}

impl<H: PhaseSpaceDerivatives<N>, const N: usize> StepJacobian<N> for SymplecticEulerB<H> {
    fn step_jacobian(&self, state: &PhaseState<N>, h: f64) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError> {
        check_step(h)?;
        if self.hamiltonian.is_separable() {
            // kick at q₁ after drift at p: one Hessian at (q₁, p) gives V''(q₁) and T''(p)
            let next = apply(state, &euler_b_explicit(&self.hamiltonian, state, h))?;
            let hs = self.hamiltonian.try_hessian(&next.q, &state.p)?;
            return Ok((next, kick_jacobian(&hs.qq, h).after(&drift_jacobian(&hs.pp, h))));
        }
        let (delta, stage) = euler_b(&self.hamiltonian, &state.q, &state.p, h, &self.newton)?;
        Ok((apply(state, &delta)?, euler_b_jacobian(&self.hamiltonian, &stage, &state.p, h)?))
    }
}

impl<H: PhaseSpaceDerivatives<N>, const N: usize> StepJacobian<N> for StormerVerlet<H> {
    fn step_jacobian(&self, state: &PhaseState<N>, h: f64) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError> {
        check_step(h)?;
        if self.hamiltonian.is_separable() {
            // kick at q₁ ∘ drift at p_{1/2} ∘ kick at q
            let (next, p_half) = verlet_explicit_state(&self.hamiltonian, state, h);
            if !next.is_finite() {
                return Err(GeomError::NonFinite { what: "state after step" });
            }
            let first = self.hamiltonian.try_hessian(&state.q, &p_half)?;
            let last = self.hamiltonian.try_hessian(&next.q, &p_half)?;
            let m = kick_jacobian(&last.qq, 0.5 * h)
                .after(&drift_jacobian(&first.pp, h))
                .after(&kick_jacobian(&first.qq, 0.5 * h));
            return Ok((next, m));
        }
        let (delta, p_half, mid, q_end) = verlet(&self.hamiltonian, state, h, &self.newton)?;
        let first = euler_a_jacobian(&self.hamiltonian, &state.q, &p_half, 0.5 * h)?;
        let second = euler_b_jacobian(&self.hamiltonian, &q_end, &mid.p, 0.5 * h)?;
        Ok((apply(state, &delta)?, second.after(&first)))
    }
}

// ------------------------------------------------------------------------------------------------
// Partitioned Runge–Kutta (Gauss, Lobatto IIIA–IIIB)

/// Coefficients of an `S`-stage partitioned RK method: `a` for `q`, `â` for `p`, common `b`, `c`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Prk<const S: usize> {
    aq: [[f64; S]; S],
    ap: [[f64; S]; S],
    b: [f64; S],
    c: [f64; S],
}

impl<const S: usize> Prk<S> {
    /// Stage residual `G(Z)` (module documentation) at the stage increments `x`, and its block
    /// Jacobian if asked for.
    #[inline]
    fn residual<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize, const B: usize>(
        &self,
        ham: &H,
        state: &PhaseState<N>,
        h: f64,
        x: &BlockVector<f64, N, B>,
        jac: Option<&mut BlockMatrix<f64, N, B>>,
    ) -> BlockVector<f64, N, B> {
        let mut gq = [Vector::<N>::zeros(); S];
        let mut gp = [Vector::<N>::zeros(); S];
        match jac {
            Some(j) => {
                let mut hess = [Hessian::<N>::zeros(); S];
                for s in 0..S {
                    ((gq[s], gp[s]), hess[s]) = ham.gradient_and_hessian(&(state.q + x[s]), &(state.p + x[S + s]));
                }
                self.jacobian(&hess, h, j);
            }
            None => {
                for s in 0..S {
                    (gq[s], gp[s]) = ham.gradient(&(state.q + x[s]), &(state.p + x[S + s]));
                }
            }
        }
        let mut r = [Vector::<N>::zeros(); B];
        for i in 0..S {
            let (mut rq, mut rp) = (x[i], x[S + i]);
            for j in 0..S {
                rq -= gp[j] * (h * self.aq[i][j]);
                rp += gq[j] * (h * self.ap[i][j]);
            }
            r[i] = rq;
            r[S + i] = rp;
        }
        r
    }

    /// The block Jacobian `G_Z` from the stage Hessians (module documentation).
    #[inline]
    fn jacobian<const N: usize, const B: usize>(&self, hess: &[Hessian<N>; S], h: f64, j: &mut BlockMatrix<f64, N, B>) {
        let id = Matrix::<N>::identity();
        for i in 0..S {
            for k in 0..S {
                let d = if i == k { id } else { Matrix::zeros() };
                let (ha, hb) = (h * self.aq[i][k], h * self.ap[i][k]);
                j[i][k] = d - hess[k].qp.transpose() * ha;
                j[i][S + k] = hess[k].pp * -ha;
                j[S + i][k] = hess[k].qq * hb;
                j[S + i][S + k] = d + hess[k].qp * hb;
            }
        }
    }

    /// Solve the stage equations; returns the stage increments `Z`.
    #[inline]
    fn solve<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize, const B: usize>(
        &self,
        ham: &H,
        state: &PhaseState<N>,
        h: f64,
        newton: &NewtonOptions,
    ) -> Result<BlockVector<f64, N, B>, GeomError> {
        let (gq, gp) = ham.try_gradient(&state.q, &state.p)?;
        let mut guess = [Vector::<N>::zeros(); B];
        for s in 0..S {
            guess[s] = gp * (self.c[s] * h);
            guess[S + s] = gq * (-self.c[s] * h);
        }
        let (z, _) = newton_blocks(|x, jac| Ok(self.residual(ham, state, h, x, jac)), &guess, newton)?;
        Ok(z)
    }

    /// `(Δq, Δp) = h Σ b_i (H_p, −H_q)(Y_i)` at the stages `Y_i = y + Z_i`.
    #[inline]
    fn update<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize, const B: usize>(
        &self,
        ham: &H,
        state: &PhaseState<N>,
        h: f64,
        z: &BlockVector<f64, N, B>,
    ) -> Delta<N> {
        let (mut dq, mut dp) = (Vector::<N>::zeros(), Vector::<N>::zeros());
        for s in 0..S {
            let (gq, gp) = ham.gradient(&(state.q + z[s]), &(state.p + z[S + s]));
            dq += gp * (h * self.b[s]);
            dp -= gq * (h * self.b[s]);
        }
        (dq, dp)
    }

    fn increment<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize, const B: usize>(
        &self,
        ham: &H,
        state: &PhaseState<N>,
        h: f64,
        newton: &NewtonOptions,
    ) -> Result<Delta<N>, GeomError> {
        check_step(h)?;
        let z: BlockVector<f64, N, B> = self.solve(ham, state, h, newton)?;
        checked(state, self.update(ham, state, h, &z))
    }

    /// Step and exact Jacobian by implicit differentiation: `dZ/dy = −G_Z⁻¹ G_y` with
    /// `G_y` the derivative of the stage residual with respect to `y = (q, p)` at fixed `Z`
    /// (`∂G_q,i/∂q = −h Σ_j a_ij H_pq(Y_j)`, `∂G_q,i/∂p = −h Σ_j a_ij H_pp(Y_j)`,
    /// `∂G_p,i/∂q = h Σ_j â_ij H_qq(Y_j)`, `∂G_p,i/∂p = h Σ_j â_ij H_qp(Y_j)`), then
    /// `M = I + h Σ_i b_i Df(Y_i) (I + dZ_i/dy)`, `Df = [[H_pq, H_pp], [−H_qq, −H_qp]]`.
    fn step_jacobian<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize, const B: usize>(
        &self,
        ham: &H,
        state: &PhaseState<N>,
        h: f64,
        newton: &NewtonOptions,
    ) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError> {
        check_step(h)?;
        let z: BlockVector<f64, N, B> = self.solve(ham, state, h, newton)?;
        let next = apply(state, &self.update(ham, state, h, &z))?;
        let mut hess = [Hessian::<N>::zeros(); S];
        for s in 0..S {
            hess[s] = ham.try_hessian(&(state.q + z[s]), &(state.p + z[S + s]))?;
        }
        let mut gz = [[Matrix::<N>::zeros(); B]; B];
        self.jacobian(&hess, h, &mut gz);
        let lu = BlockLu::factor(&gz, "partitioned RK stage Jacobian")?;
        // G_y in block rows, separately for the q- and the p-columns
        let mut gy_q = [Matrix::<N>::zeros(); B];
        let mut gy_p = [Matrix::<N>::zeros(); B];
        for i in 0..S {
            for (j, hs) in hess.iter().enumerate() {
                let (ha, hb) = (h * self.aq[i][j], h * self.ap[i][j]);
                gy_q[i] -= hs.qp.transpose() * ha;
                gy_p[i] -= hs.pp * ha;
                gy_q[S + i] += hs.qq * hb;
                gy_p[S + i] += hs.qp * hb;
            }
        }
        let mut m = PhaseJacobian::identity();
        for (part, gy) in [gy_q, gy_p].iter().enumerate() {
            for k in 0..N {
                let rhs: BlockVector<f64, N, B> = core::array::from_fn(|i| -gy[i].column(k).into_owned());
                let dz = lu.solve(&rhs);
                let (mut dq, mut dp) = (Vector::<N>::zeros(), Vector::<N>::zeros());
                for s in 0..S {
                    let (mut yq, mut yp) = (dz[s], dz[S + s]);
                    if part == 0 {
                        yq[k] += 1.0;
                    } else {
                        yp[k] += 1.0;
                    }
                    dq += (hess[s].qp.tr_mul(&yq) + hess[s].pp * yp) * (h * self.b[s]);
                    dp -= (hess[s].qq * yq + hess[s].qp * yp) * (h * self.b[s]);
                }
                let (cq, cp): (&mut Matrix<N>, &mut Matrix<N>) =
                    if part == 0 { (&mut m.qq, &mut m.pq) } else { (&mut m.qp, &mut m.pp) };
                for i in 0..N {
                    cq[(i, k)] += dq[i];
                    cp[(i, k)] += dp[i];
                }
            }
        }
        Ok((next, m))
    }
}

/// The `S`-stage Gauss–Legendre collocation method (HLW II.1.3, Table II.1.1 for `s = 1, 2, 3`;
/// coefficients from [`tableau::gauss_legendre`]) for a general Hamiltonian: order `2s`,
/// symmetric, symplectic (`b_i a_ij + b_j a_ji = b_i b_j`, HLW Thm VI.4.3), conserves every
/// quadratic invariant (HLW Thm IV.2.1). `s = 1` is the implicit midpoint rule.
///
/// `B` must be `2 S` (checked at compile time; use the aliases [`Gauss1`] … [`Gauss5`]): the
/// stage unknowns are `2S` blocks of size `N` (module documentation).
///
/// ```
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use integrators::classical::Gauss2;
/// use integrators::{OneStep, PhaseState};
/// use nalgebra::SVector;
///
/// struct Oscillator;
/// impl PhaseSpaceFunction<1> for Oscillator {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
///         (q[0] * q[0] + p[0] * p[0]) * S::from(0.5)
///     }
/// }
/// let gauss = Gauss2::new(AutoDiff(Oscillator))?;
/// assert_eq!(gauss.order(), 4);
/// let mut s = PhaseState::new(SVector::from([1.0]), SVector::from([0.0]));
/// for _ in 0..10 {
///     gauss.step(&mut s, 0.1)?;
/// }
/// assert!((s.q[0] - 1f64.cos()).abs() < 1e-6);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct GaussCollocation<H, const S: usize, const B: usize> {
    hamiltonian: H,
    prk: Prk<S>,
    newton: NewtonOptions,
}

/// The partitioned Runge–Kutta pair Lobatto IIIA (for `q`) – Lobatto IIIB (for `p`) with `S`
/// stages (HLW II.2.2, Table II.2.2; VI.4, Thm VI.4.6; coefficients from
/// [`tableau::lobatto_iiia`] and [`tableau::lobatto_iiib`]) for a general Hamiltonian:
/// order `2s − 2`, symmetric, symplectic (`b_i â_ij + b_j a_ji = b_i b_j`). `s = 2` is
/// Störmer–Verlet.
///
/// `B` must be `2 S` (compile-time check; aliases [`LobattoIIIAIIIB2`] … [`LobattoIIIAIIIB5`]).
#[derive(Debug, Clone)]
pub struct LobattoIIIAIIIB<H, const S: usize, const B: usize> {
    hamiltonian: H,
    prk: Prk<S>,
    newton: NewtonOptions,
}

/// Gauss–Legendre with 1 stage (implicit midpoint, order 2).
pub type Gauss1<H> = GaussCollocation<H, 1, 2>;
/// Gauss–Legendre with 2 stages (order 4).
pub type Gauss2<H> = GaussCollocation<H, 2, 4>;
/// Gauss–Legendre with 3 stages (order 6).
pub type Gauss3<H> = GaussCollocation<H, 3, 6>;
/// Gauss–Legendre with 4 stages (order 8).
pub type Gauss4<H> = GaussCollocation<H, 4, 8>;
/// Gauss–Legendre with 5 stages (order 10).
pub type Gauss5<H> = GaussCollocation<H, 5, 10>;
/// Lobatto IIIA–IIIB with 2 stages (Störmer–Verlet, order 2).
pub type LobattoIIIAIIIB2<H> = LobattoIIIAIIIB<H, 2, 4>;
/// Lobatto IIIA–IIIB with 3 stages (order 4).
pub type LobattoIIIAIIIB3<H> = LobattoIIIAIIIB<H, 3, 6>;
/// Lobatto IIIA–IIIB with 4 stages (order 6).
pub type LobattoIIIAIIIB4<H> = LobattoIIIAIIIB<H, 4, 8>;
/// Lobatto IIIA–IIIB with 5 stages (order 8).
pub type LobattoIIIAIIIB5<H> = LobattoIIIAIIIB<H, 5, 10>;

macro_rules! prk_method {
    ($ty:ident, $label:literal, $build:expr) => {
        impl<H, const S: usize, const B: usize> $ty<H, S, B> {
            const BLOCKS: () = assert!(B == 2 * S, "the number of stage blocks B must be 2 S");

            #[doc = concat!("The ", $label, " method with `S` stages for `hamiltonian`, with")]
            /// [`NewtonOptions::integrator`]; [`GeomError::InvalidParameter`] if no tableau with
            /// `S` stages exists (Gauss: `1..=5`, Lobatto: `2..=5`). `B != 2 S` does not compile.
            pub fn new(hamiltonian: H) -> Result<Self, GeomError> {
                let () = Self::BLOCKS;
                let build: fn(usize) -> Result<(Tableau, Tableau), GeomError> = $build;
                let (tq, tp) = build(S)?;
                let (aq, b, c) = tq.arrays::<S>()?;
                let (ap, _, _) = tp.arrays::<S>()?;
                Ok(Self { hamiltonian, prk: Prk { aq, ap, b, c }, newton: NewtonOptions::integrator() })
            }
            /// The same method with other Newton options (e.g. simplified Newton,
            /// [`geom_core::newton::JacobianUpdate::Frozen`]).
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
            /// `(a, â, b, c)`: the coefficients for `q`, for `p`, the weights and the nodes.
            #[allow(clippy::type_complexity)]
            pub fn coefficients(&self) -> ([[f64; S]; S], [[f64; S]; S], [f64; S], [f64; S]) {
                (self.prk.aq, self.prk.ap, self.prk.b, self.prk.c)
            }
        }
        impl<H: PhaseSpaceDerivatives<N>, const N: usize, const S: usize, const B: usize> OneStep<PhaseState<N>>
            for $ty<H, S, B>
        {
            fn name(&self) -> String {
                format!("{} {}", $label, S)
            }
            fn order(&self) -> u32 {
                Self::ORDER
            }
            fn is_symmetric(&self) -> bool {
                true
            }
            fn step(&self, state: &mut PhaseState<N>, h: f64) -> Result<(), GeomError> {
                let delta = Increment::increment(self, state, h)?;
                *state = apply(state, &delta)?;
                Ok(())
            }
        }
        impl<H: PhaseSpaceDerivatives<N>, const N: usize, const S: usize, const B: usize> Increment<N>
            for $ty<H, S, B>
        {
            fn increment(&self, state: &PhaseState<N>, h: f64) -> Result<Delta<N>, GeomError> {
                let () = Self::BLOCKS;
                self.prk.increment::<H, N, B>(&self.hamiltonian, state, h, &self.newton)
            }
        }
        impl<H: PhaseSpaceDerivatives<N>, const N: usize, const S: usize, const B: usize> StepJacobian<N>
            for $ty<H, S, B>
        {
            fn step_jacobian(
                &self,
                state: &PhaseState<N>,
                h: f64,
            ) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError> {
                let () = Self::BLOCKS;
                self.prk.step_jacobian::<H, N, B>(&self.hamiltonian, state, h, &self.newton)
            }
        }
    };
}

prk_method!(GaussCollocation, "Gauss–Legendre", |s| {
    let t = tableau::gauss_legendre(s)?;
    Ok((t.clone(), t))
});
prk_method!(LobattoIIIAIIIB, "Lobatto IIIA–IIIB", |s| Ok((tableau::lobatto_iiia(s)?, tableau::lobatto_iiib(s)?)));

impl<H, const S: usize, const B: usize> GaussCollocation<H, S, B> {
    const ORDER: u32 = 2 * S as u32;
}
impl<H, const S: usize, const B: usize> LobattoIIIAIIIB<H, S, B> {
    const ORDER: u32 = 2 * S as u32 - 2;
}

// ------------------------------------------------------------------------------------------------
// Cotangent-lift integrators of `discretization`

/// The increment of the integrator induced by a discretization map (docs/math.md §B.1). For the
/// θ-maps the reduced system is solved for the offsets `(q̄ − q_k, p̄ − p_k)`,
/// ```text
///   X = θ h H_p(q_k + X, p_k + Y),   Y = −(1−θ) h H_q(q_k + X, p_k + Y),
///   Δq = h H_p(q̄, p̄),               Δp = −h H_q(q̄, p̄),
/// ```
/// (Newton matrix `[[I − θh H_pq, −θh H_pp], [(1−θ)h H_qq, I + (1−θ)h H_qp]]`), so the
/// increment is accurate to its own last bit; for a general map it is the difference
/// `Ψ_h(y) − y` of the states, which already carries the round-off of the new state (compensated
/// summation then cannot improve on the plain step).
impl<R: EuclideanMap<N>, H: PhaseSpaceDerivatives<N>, const N: usize> Increment<N> for CotangentLiftIntegrator<R, H> {
    fn increment(&self, state: &PhaseState<N>, h: f64) -> Result<Delta<N>, GeomError> {
        check_step(h)?;
        let ham = self.hamiltonian();
        let Some(theta) = self.map().theta() else {
            let next = self.advance(state, h)?;
            return Ok((next.q - state.q, next.p - state.p));
        };
        let (gq, gp) = ham.try_gradient(&state.q, &state.p)?;
        let (a, b) = (theta * h, (1.0 - theta) * h);
        let id = Matrix::<N>::identity();
        let ([x, y], _) = newton_blocks(
            |z: &[Vector<N>; 2], jac: Option<&mut [[Matrix<N>; 2]; 2]>| {
                let (q, p) = (state.q + z[0], state.p + z[1]);
                let (gq, gp) = match jac {
                    Some(j) => {
                        let (g, hs) = ham.gradient_and_hessian(&q, &p);
                        *j = [[id - hs.qp.transpose() * a, hs.pp * -a], [hs.qq * b, id + hs.qp * b]];
                        g
                    }
                    None => ham.gradient(&q, &p),
                };
                Ok([z[0] - gp * a, z[1] + gq * b])
            },
            &[gp * a, gq * -b],
            self.newton_options(),
        )?;
        let (gq, gp) = ham.gradient(&(state.q + x), &(state.p + y));
        checked(state, (gp * h, gq * -h))
    }
}

pub use crate::explicit_rk::{ExplicitRk, HamiltonianField, LinearState, VectorField};
