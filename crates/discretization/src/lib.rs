//! # discretization
//!
//! Seed 000 (Barbero-Liñán, Marrero, Martín de Diego, *From retraction maps to
//! symplectic-momentum numerical integrators*) made executable. MATH.md sections (a) and (b) are
//! the specification. **Status: this layer is not implemented yet**; this page states what it will
//! own so that the layers above can be planned against it.
//!
//! ## What this layer owns
//!
//! * **Retractions** `R: TM -> M` with `R_x(0) = x` and `T_0 R_x = Id` (MATH.md a.1): Euclidean
//!   `x + v`; on a Lie group the left-translated `g tau(g^{-1} v)` with `tau = exp` or Cayley; on
//!   `S^2` the normalisation `(x + v)/|x + v|` and the geodesic exponential.
//! * **Discretization maps** `R_d: TQ -> Q × Q`, `v_x ↦ (R^1(v_x), R^2(v_x))` with
//!   `R_d(0_x) = (x, x)` and `T R^2 - T R^1 = Id` on `T_xQ` (a.1): explicit Euler `(x, x + v)`,
//!   midpoint `(x - v/2, x + v/2)`, the θ-family `(x - θv, x + (1-θ)v)` and the α-family of
//!   seed 000 Example 4 (a.2), the Lie-group midpoint `(g tau(-ξ/2), g tau(ξ/2))` (a.3), the `S^2`
//!   midpoint (a.4), and the adjoint `R_d^* = I_Q ∘ R_d ∘ (-1)` (a.5, Remark 1).
//! * **Symmetry preservation** `R_d(TΦ_g v) = (Φ_g × Φ_g) R_d(v)` checked for a `geom-core`
//!   action (a.6, Definition 1): then the induced method conserves the momentum map
//!   `J_ξ(q, p) = <p, ξ_Q(q)>` (Theorem 2).
//! * **The induced symplectic integrator** of eq. (4): solve for `(q, p, q_{k+1}, p_{k+1})`
//!   ```text
//!   q_k     = R^1(q, v),   q_{k+1} = R^2(q, v),   v = h ∂H/∂p(q, p),
//!   -h ∂H/∂q(q, p) = -(∂_x R^1)ᵀ p_k + (∂_x R^2)ᵀ p_{k+1},
//!   p              = -(∂_v R^1)ᵀ p_k + (∂_v R^2)ᵀ p_{k+1}
//!   ```
//!   (MATH.md b.1), with the reduced form `q̄ = (1-θ)q_k + θ q_{k+1}`, `p̄ = θ p_k + (1-θ) p_{k+1}`,
//!   `q_{k+1} = q_k + h H_p(q̄, p̄)`, `p_{k+1} = p_k - h H_q(q̄, p̄)` for the θ-family.
//! * **The Lagrangian counterpart** (Remark 2): `L_d(q_0, q_1) = h L(x, u/h)`,
//!   `(x, u) = R_d^{-1}(q_0, q_1)`, with `p_k = -D_1 L_d`, `p_{k+1} = D_2 L_d`.
//! * **Composition** `Ψ_h = Φ_{γ_s h} ∘ … ∘ Φ_{γ_1 h}` (b.3): triple jump, Suzuki, Yoshida 6/8,
//!   Kahan–Li 6/8, Suzuki–Umeno 8, McLachlan 4 (with a method and its adjoint).
//!
//! All of it is built on `geom-core` (groups, actions, momentum maps, the Newton solver).

pub use geom_core;
