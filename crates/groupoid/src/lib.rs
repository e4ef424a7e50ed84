//! # groupoid
//!
//! Seed 001 (*Symplectic groupoids and discrete constrained Lagrangian mechanics*) made
//! executable. MATH.md section (c) is the specification. **Status: this layer is not implemented
//! yet**; this page states what it will own.
//!
//! ## What this layer owns
//!
//! * **Lie groupoids** `G ⇉ Q` (MATH.md c.1): source `α`, target `β`, identity `ε`, inversion,
//!   partial multiplication defined when `β(g) = α(h)`. Instances: the pair groupoid `Q × Q`, a
//!   Lie group `G ⇉ {e}`, the action groupoid `M × H`, the (trivialized) Atiyah groupoid
//!   `(M × M) × G`.
//! * **The Lie algebroid** `AG` and left/right-invariant fields `X^←`, `X^→` (c.2).
//! * **Discrete Lagrangians** `L: G -> R` with the discrete Euler–Lagrange equations
//!   `X^←(g_k)(L) - X^→(g_{k+1})(L) = 0` for all sections `X`, the Legendre transforms
//!   `F^-L(g)(X) = X^→(g)(L)`, `F^+L(g)(X) = X^←(g)(L)`, and regularity (c.3; seed 001 Thm 2.16).
//!   On a Lie group: `μ_{k+1} = Ad*_{g_{k+1}} μ_k` (discrete Lie–Poisson).
//! * **Constraints** `N = {φ^a = 0}` with one multiplier vector per step:
//!   `X^←(g_k)(L̂ + λ_k·φ) - X^→(g_{k+1})(L̂ + λ_{k+1}·φ) = 0`, `φ(g_{k+1}) = 0` (c.4).
//! * **Noether momenta** `J(g_k)(ξ) = F^+L(g_k)(X_ξ)`, conserved for a symmetry (c.5).
//! * **Examples** (c.6): holonomic mechanics on a sphere, optimal control on a Lie group, the
//!   plate-ball system, time-dependent mechanics with fixed and adaptive steps.
//!
//! Built on `geom-core` (groups, actions, the Newton solver).

pub use geom_core;
