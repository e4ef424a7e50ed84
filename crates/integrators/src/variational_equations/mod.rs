//! Variational equations of a one-step method on `T*R^N` and on `T*G`: its tangent map, the
//! Lyapunov spectrum by repeated QR and the MEGNO chaos indicator.
//!
//! For a one-step map `Φ_h` the **variational equation** of the numerical flow is the tangent
//! map `δx_{k+1} = DΦ_h(x_k) δx_k`: a deviation vector `δx = (δq, δp)` carried along the
//! numerical trajectory by the Jacobian `M_k = DΦ_h(x_k)` of the step actually taken (not by a
//! discretisation of the continuous variational equation `δẋ = DX_H(x) δx`). For a method of
//! order `p` it is the tangent map of a map `O(h^p)`-close to the flow, so the exponents it
//! gives converge with order `p` in the step (the method's own variational equation, HLW VI.5).
//! For a symplectic method every `M_k` is symplectic, `M_kᵀ Ω M_k = Ω`, and so is their product:
//! the Lyapunov spectrum comes in pairs `±λ` and sums to zero (Liouville, `det M_k = 1`).
//!
//! * [`tangent`]: the tangent map of a method: its own exact linearisation
//!   ([`StepJacobian`](crate::classical::StepJacobian): implicit differentiation of the stage
//!   equations, or the chain rule through kicks and drifts), or, for any other
//!   [`OneStep<PhaseState<N>>`](geom_core::step::OneStep), central differences
//!   ([`tangent::FiniteDifference`]); the action of `M` on deviation vectors;
//! * [`lie_tangent`]: on `T*G ≅ G × g*` (states [`LieState<E, D>`](geom_core::step::LieState),
//!   the Hamilton–Pontryagin, LGVI and cotangent-lift integrators) the deviation vector is
//!   `δx = (η, δμ) ∈ g × g* ≅ R^{2D}` of the left-trivialized perturbation
//!   `(g exp(ε η), μ + ε δμ)`, and the tangent map of any
//!   [`OneStep<LieState<E, D>>`](geom_core::step::OneStep) is computed by central differences
//!   read back through `log(g₁^{-1} ·)` ([`LieFiniteDifference`]); [`lie_perturb`] and
//!   [`lie_deviation`] go between states and deviations. In these coordinates the canonical form
//!   is `ω_μ = [[B(μ), I], [−I, 0]]` with `B(μ)_ij = ⟨μ, [e_i, e_j]⟩`, of determinant 1, so a
//!   symplectic method's spectrum on `T*G` still sums to zero and pairs as `±λ`
//!   ([`LieLyapunovSpectrum`]);
//! * [`TangentMap<S, N>`](TangentMap): what the two indicators below need of a method, a step
//!   with its `2N × 2N` Jacobian in a chart at each state; every
//!   [`StepJacobian<N>`](crate::classical::StepJacobian) is one on `T*R^N`,
//!   [`LieFiniteDifference`] on `T*G`, so [`LyapunovSpectrum`] and [`Megno`] are one code for
//!   both ([`LieLyapunovSpectrum`], [`LieMegno`] name them on `T*G`);
//! * [`lyapunov`]: the Lyapunov spectrum by repeated Gram–Schmidt (QR) re-orthonormalisation,
//!   Benettin, Galgani, Giorgilli & Strelcyn 1980;
//! * [`second_order`]: the second-order variational equations `c_{k+1} = DΦ_h c_k +
//!   D²Φ_h[a_k, b_k]`, the second derivatives of the trajectory in its initial condition
//!   (Rein & Tamayo 2016), with `D²Φ_h` by a central difference of the step Jacobian;
//! * [`megno`]: the Mean Exponential Growth factor of Nearby Orbits `Y` and its running mean
//!   `⟨Y⟩`, Cincotta & Simó 2000.
//!
//! *Why no forward AD through the step.* The integrators of this crate evaluate the model at
//! `f64` through [`PhaseSpaceDerivatives`](geom_core::function::PhaseSpaceDerivatives) (object
//! safe, hand-written derivatives allowed), so a step cannot be re-run on dual numbers. The
//! classical methods differentiate themselves instead ([`StepJacobian`](crate::classical::StepJacobian),
//! exact to round-off, using the model's AD Hessian); every other method has the
//! finite-difference fallback, whose error is documented at [`tangent::FiniteDifference`].

pub mod lie_tangent;
pub mod lyapunov;
pub mod megno;
pub mod second_order;
pub mod tangent;

pub use lie_tangent::{LieFiniteDifference, lie_deviation, lie_perturb};
pub use lyapunov::{LieLyapunovSpectrum, LyapunovSpectrum};
pub use megno::{LieMegno, Megno};
pub use second_order::{SecondOrderVariation, second_derivative};
pub use tangent::{FiniteDifference, TangentMap, apply_jacobian};
