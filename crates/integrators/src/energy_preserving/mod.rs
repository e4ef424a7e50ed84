//! Energy-preserving methods on `T*R^N` for any Hamiltonian `H(q, p)`: the averaged vector
//! field, discrete gradients (Gonzalez's midpoint one, Itoh–Abe's coordinate increments) and the
//! symmetric projection of any symmetric method onto a user's invariants.
//!
//! Write `x = (q, p) ∈ R^{2N}` and `J = [[0, I], [−I, 0]]`, so that Hamilton's equations are
//! `ẋ = J ∇H(x)`. A **discrete gradient** (Gonzalez 1996; McLachlan, Quispel & Robidoux,
//! *Geometric integration using discrete gradients*, Phil. Trans. R. Soc. A, 1999) is a map
//! `∇̄H(x, x')` with
//!
//! ```text
//!     ∇̄H(x, x')·(x' − x) = H(x') − H(x),        ∇̄H(x, x) = ∇H(x),
//! ```
//!
//! and its **discrete gradient method** is the implicit step
//!
//! ```text
//!     x₁ = x₀ + h J ∇̄H(x₀, x₁).
//! ```
//!
//! It conserves `H` exactly: `H(x₁) − H(x₀) = ∇̄Hᵀ (x₁ − x₀) = h ∇̄Hᵀ J ∇̄H = 0` (`J` is
//! skew). In floating point the identity holds to the rounding of `H`, and the step to the
//! Newton residual `r` (`H(x₁) − H(x₀) = ∇̄H·r`), so the energy error of a run is the round-off
//! of `H` plus the Newton tolerance times `|∇H|`, with no drift from the method.
//!
//! | method | `∇̄H(x, x')` | order | symmetric | source |
//! | --- | --- | --- | --- | --- |
//! | [`Avf<H, Q>`](Avf) | `∫₀¹ ∇H((1 − ξ) x + ξ x') dξ`, by `Q`-point Gauss–Legendre | 2 | yes | Quispel & McLaren 2008 |
//! | [`Gonzalez`] | `∇H(m) + (H(x') − H(x) − ∇H(m)·Δ) Δ / \|Δ\|²`, `m = (x + x')/2`, `Δ = x' − x` | 2 | yes | Gonzalez 1996 |
//! | [`ItohAbe`] (`new`) | `(H(y_k) − H(y_{k−1})) / (x'_k − x_k)`, coordinates changed one at a time | 1 | no | Itoh & Abe 1988 |
//! | [`ItohAbe`] (`symmetrized`) | `½ (∇̄_IA(x, x') + ∇̄_IA(x', x))` | 2 | yes | McLachlan, Quispel & Robidoux 1999 |
//! | [`SymmetricProjection`] | any symmetric method, projected onto `g(x) = const` | the method's | yes | Hairer 2000; HLW IV.4 |
//!
//! The averaged vector field is a discrete gradient only when its quadrature is exact (`H` a
//! polynomial of degree `≤ 2Q`); for other `H` it conserves energy up to the quadrature error
//! `O(|Δ|^{2Q+1})` of a step.
//!
//! **Not symplectic.** A method with a fixed step that is symplectic and conserves the energy of
//! every `H` is the exact flow up to a change of time (Ge & Marsden, *Lie–Poisson
//! Hamilton–Jacobi theory and Lie–Poisson integrators*, Phys. Lett. A, 1988), and no B-series
//! method (the averaged vector field is one) is both (Chartier, Faou & Murua, *An algebraic
//! approach to invariant preserving integrators: the case of quadratic and Hamiltonian
//! invariants*, Numer. Math., 2006). None of these methods is symplectic: the step Jacobian `M`
//! has `MᵀJM ≠ J` for a non-quadratic `H` (measured in the tests). For a
//! quadratic `H` the averaged vector field is the implicit midpoint rule, and `Avf<H, 1>` is the
//! implicit midpoint rule for every `H`.
//!
//! **Solve.** Every discrete gradient method solves for the increment `z = x₁ − x₀`,
//! `F(z) = z − h J ∇̄H(x₀, x₀ + z) = 0`, with the workspace's Newton solver
//! ([`geom_core::newton::newton_blocks`], two blocks of size `N`: `z = (Δq, Δp)`) from the guess
//! `z = h J ∇H(x₀)`, with the Newton matrix `I − h J D`, `D ≈ ∂∇̄H/∂x'` from the Hessian of `H`
//! ([`DiscreteGradient::discrete_gradient_and_newton_matrix`]; Hessians by
//! [`PhaseSpaceDerivatives::gradient_and_hessian`]: exact, by hyper-dual numbers, for a model
//! in [`geom_core::function::AutoDiff`]). The default options are
//! [`NewtonOptions::simplified`] (the Jacobian at the guess, reused: it differs from the one at
//! the root by `O(h³)`, and polishing removes the bias of the linear convergence); change them
//! with `with_newton`. A step checks `h` ([`geom_core::step::check_step`]), reports Newton
//! failures and non-finite results as [`geom_core::GeomError`], leaves the state untouched on
//! error, and allocates nothing.
//
// Files: `scheme.rs` (the trait `DiscreteGradient` and the one Newton solve of
// `x₁ = x₀ + h J ∇̄H(x₀, x₁)` every method shares), `avf.rs` (the averaged vector field),
// `discrete_gradient.rs` (Gonzalez's midpoint discrete gradient), `itoh_abe.rs` (coordinate
// increments), `projection.rs` (symmetric projection onto invariants).

#[cfg(doc)]
use {geom_core::function::PhaseSpaceDerivatives, geom_core::newton::NewtonOptions};

mod avf;
mod discrete_gradient;
pub(crate) use discrete_gradient::below_threshold;
mod itoh_abe;
mod projection;
mod scheme;

pub use avf::Avf;
pub use discrete_gradient::Gonzalez;
pub use itoh_abe::ItohAbe;
pub use projection::{Invariant, Invariants, PROJECTION_RESIDUAL_TOL, PROJECTION_STEP_TOL, SymmetricProjection};
pub use scheme::{DIFFERENCE_THRESHOLD, DiscreteGradient, PhaseMatrix, PhaseVector};
