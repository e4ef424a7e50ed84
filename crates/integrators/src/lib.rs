//! # integrators
//!
//! Seed 002 (Bou-Rabee & Marsden, *Hamilton–Pontryagin integrators on Lie groups, Part I*) made
//! executable, beside the classical symplectic families. MATH.md section (d) is the
//! specification. **Status: this layer is not implemented yet**; this page states what it will own.
//!
//! ## What this layer owns
//!
//! * **Butcher tableaux** `(A, b, c)` as validated data (`sum_j a_ij = c_i`, order conditions):
//!   Gauss–Legendre, Lobatto IIIA/IIIB, explicit RK, symplectic Euler pairs.
//! * **Classical schemes on `T*R^n`**: symplectic Euler, Störmer–Verlet, Gauss–Legendre
//!   collocation, Lobatto IIIA–IIIB, and the variational integrator of a discrete Lagrangian
//!   (`D_2 L_d(q_{k-1}, q_k) + D_1 L_d(q_k, q_{k+1}) = 0`).
//! * **Hamilton–Pontryagin RKMK integrators on a Lie group** (MATH.md d.4–d.5): for a
//!   left-trivialized Lagrangian `ℓ(g, ξ)`, with `Θ^i = Σ_j a_ij Ξ^j`, `G^i = g_k tau(hΘ^i)`,
//!   `f^i = G^i ∂ℓ/∂g(G^i, Ξ^i)` and `Ξ̄ = Σ_j b_j Ξ^j`, solve
//!   ```text
//!   b_i ∂ℓ/∂ξ(G^i, Ξ^i) = b_i M - h Σ_j b_j a_ji (dtau_{-hΘ^j})* f^j
//!   Π_k = (dtau^{-1}_{hΞ̄})* M - h Σ_i b_i Ad*_{tau(-hΘ^i)} f^i
//!   ```
//!   then `g_{k+1} = g_k tau(hΞ̄)`, `Π_{k+1} = (dtau^{-1}_{-hΞ̄})* M`. Named members: Lie-group
//!   symplectic Euler A/B and Lie-group Störmer–Verlet (Lobatto IIIA). For `f = 0`,
//!   `Π_{k+1} = Ad*_{tau(hΞ̄)} Π_k`: Casimirs and the spatial momentum are exact.
//! * **Plain RKMK** for `ġ = g f(t, g)` (the non-variational baseline).
//! * **Models**: free rigid body, heavy top (SO(3)), underwater vehicle (Kirchhoff on SE(3)).
//! * **A driver** with observers, compensated summation and rayon ensembles.
//!
//! The one-step trait and composition come from `discretization`; groups, `dtau^{-1}`, `Ad*` and
//! the Newton solver from `geom-core`.

pub use geom_core;
