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
//!   Newton matrix `I + h H_qp`, the mixed block alone:
//!   [`PhaseSpaceDerivatives::hessian_qp`]), then `Δq = h H_p(q, P)`, `Δp = −h H_q(q, P)`,
//!   `P = p + δp`;
//! * symplectic Euler B solves `δq − h H_p(q + δq, p) = 0` (Newton matrix `I − h H_pq`);
//! * Störmer–Verlet (3.4) is `SE-A` with `h/2` followed by `SE-B` with `h/2`:
//!   `p_{1/2} = p − h/2 H_q(q, p_{1/2})`, `q₁ = q + h/2 (H_p(q, p_{1/2}) + H_p(q₁, p_{1/2}))`,
//!   `p₁ = p_{1/2} − h/2 H_q(q₁, p_{1/2})` (the second solve from the first's drift
//!   `h/2 H_p(q, p_{1/2})`);
//! * the partitioned RK methods (Gauss with `â = a`, Lobatto IIIA–IIIB) solve for the stage
//!   increments `Z_i = (Q_i − q, P_i − p)`,
//!   ```text
//!     Zq_i = h Σ_j a_ij H_p(Q_j, P_j),     Zp_i = −h Σ_j â_ij H_q(Q_j, P_j),   i = 1..s,
//!     Δq = h Σ_i b_i H_p(Q_i, P_i),          Δp = −h Σ_i b_i H_q(Q_i, P_i),
//!   ```
//!   by [`newton_blocks`] with `B = 2s` blocks of size `N` (blocks `0..s` are `Zq`, `s..2s`
//!   are `Zp`), from the guess `Z_i = c_i h (H_p, −H_q)(q, p)`; Gauss by simplified Newton with
//!   final polishing by default (the Jacobian below evaluated and factored once per step), Lobatto
//!   by full Newton. The block Jacobian is
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
//
// Files: `kernels.rs` (the state/increment aliases and the finiteness checks every method shares),
// `jacobian.rs` (the step Jacobian `PhaseJacobian` and the `StepJacobian` trait), `splitting.rs`
// (symplectic Euler A/B and Störmer–Verlet, implicit and explicit forms), `collocation.rs` (the
// partitioned Runge–Kutta methods: Gauss–Legendre, Lobatto IIIA–IIIB and their aliases) and
// `lift_increment.rs` (the `Increment` of the cotangent-lift integrators of `discretization`).

// The names the module documentation links to (the code of this file uses none of them).
#[cfg(doc)]
use {
    crate::driver::Increment,
    geom_core::GeomError,
    geom_core::function::{Hessian, PhaseSpaceDerivatives},
    geom_core::newton::newton_blocks,
    geom_core::step::{OneStep, check_step},
};

mod collocation;
pub(crate) mod jacobian;
pub(crate) mod kernels;
mod lift_increment;
mod splitting;

pub use collocation::{
    Gauss1, Gauss2, Gauss3, Gauss4, Gauss5, GaussCollocation, LobattoIIIAIIIB, LobattoIIIAIIIB2, LobattoIIIAIIIB3,
    LobattoIIIAIIIB4, LobattoIIIAIIIB5,
};
pub use jacobian::{PhaseJacobian, StepJacobian};
pub use splitting::{StormerVerlet, SymplecticEulerA, SymplecticEulerB};

pub use crate::explicit_rk::{ExplicitRk, HamiltonianField, LinearState, VectorField};
