//! Newton's method for `F(x) = 0`, `F: R^N -> R^N`: the one nonlinear solver every layer reuses
//! (implicit integrators, discrete Euler–Lagrange steps, Hamilton–Pontryagin RKMK stages).
//!
//! # Iteration
//!
//! From the warm start `x_0`, for `k = 0, 1, ...`
//!
//! ```text
//!     J(x_k) dx_k = -F(x_k),      x_{k+1} = x_k + dx_k,
//! ```
//!
//! with `J = DF` supplied by the caller ([`newton`], [`newton_dyn`]) or computed exactly by forward
//! AD ([`newton_ad`], `num_dual::jacobian` with `DualSVec64<N>`). The linear systems are solved by
//! LU with partial pivoting ([`crate::linalg::Lu`] for fixed `N`, nalgebra's LU for [`newton_dyn`]).
//! With [`JacobianUpdate::Frozen`] (simplified Newton) `J(x_0)` is factored once and reused, and
//! re-evaluated only after a step that contracts too slowly (`theta_k >` [`FROZEN_REFRESH_THETA`],
//! with `theta_k` defined below).
//!
//! # Presets
//!
//! One table of [`NewtonOptions`] presets serves every implicit method of the workspace:
//!
//! | preset | residual | step | Jacobian | polish | used by |
//! | --- | --- | --- | --- | --- | --- |
//! | [`NewtonOptions::default`] | `1e-12` | `1e-12` | every iteration | no | general solves |
//! | [`NewtonOptions::integrator`] | `1e-14` | `1e-14` | every iteration | no | implicit methods on `T*R^N`, Hamilton–Pontryagin |
//! | [`NewtonOptions::simplified`] | `1e-14` | `1e-14` | frozen | yes | cotangent lift on `T*R^N`, truncated Hamilton–Pontryagin |
//! | [`NewtonOptions::lie_group`] | `1e-14` | `1e-14` | frozen | yes | Lie-group cotangent lift and Lagrangian route |
//! | [`NewtonOptions::lie_poisson`] | `1e-18` | `1e-14` | frozen | yes | Lie–Poisson integrators |
//! | [`NewtonOptions::groupoid_flow`] | `1e-14` | `1e-14` | every iteration | yes | groupoid flows |
//! | [`NewtonOptions::nonholonomic`] | `1e-12` | `1e-14` | every iteration | yes | nonholonomic flows |
//!
//! # Convergence (norms are max-norms, `|v| = max_i |v_i|`)
//!
//! * **Residual test**, at every evaluated point including `x_0`: `|F(x_k)| <= residual_tol`.
//!   The returned point is `x_k` and `report.residual = |F(x_k)|`.
//! * **Step test**, after the step `dx_k` with `k >= 1`: with the contraction estimate
//!   `theta_k = |dx_k| / |dx_{k-1}|`, accept `x_{k+1}` if
//!
//!   ```text
//!       theta_k < 1   and   max(1, theta_k / (1 - theta_k)) |dx_k| <= step_tol (1 + |x_{k+1}|).
//!   ```
//!
//!   The returned point is `x_{k+1}`, which is not evaluated again: `report.residual` is
//!   `|F(x_k)|`, the residual at the point where the last step was computed.
//!
//! * **Round-off floor**, after the step `dx_k` with `k >= 1`: accept `x_{k+1}` if the residual
//!   has stopped decreasing near its tolerance,
//!
//!   ```text
//!       |F(x_k)| > |F(x_{k-1})| / 2   and   |F(x_k)| <= ROUNDOFF_FACTOR · residual_tol
//!   ```
//!
//!   ([`ROUNDOFF_FACTOR`] = 100). The residual then sits at its rounding floor `~ |terms| eps`,
//!   which exceeds an absolute `residual_tol` when the equations hold large terms (a RATTLE step
//!   has `q/h ≈ 200`), and the steps are that noise through `J^{-1}` (`theta_k ≈ 1`, so the step
//!   test cannot pass); without this test such solves ended in [`GeomError::NotConverged`](crate::GeomError::NotConverged) with
//!   residual `1.8e-14`.
//!
//! A small step alone is **not** convergence: a stale or wrong Jacobian (simplified Newton far
//! from the root, a user Jacobian off by a large factor) makes `|dx|` tiny while `F` stays large,
//! and a naive test `|dx| <= step_tol (1 + |x|)` would then stop at a point that is not a root. The
//! step test therefore also requires the iteration to contract, and bounds the remaining error by
//! the geometric-series estimate `|x_{k+1} - x*| <= theta_k / (1 - theta_k) |dx_k|` (Hairer &
//! Wanner, *Solving ODEs II*, IV.8), which is large when `theta_k` is close to 1. A single step
//! (`k = 0`) never passes the step test; the warm start `x_0 = x*` passes the residual test with
//! 0 iterations. The step test is what lets badly scaled problems converge, whose residual
//! cannot drop below `residual_tol` in floating point (`|F| ~ |J| eps |x|`).
//!
//! # Failures
//!
//! * [`GeomError::NotConverged`](crate::GeomError::NotConverged) after `max_iterations` steps, with `iterations = max_iterations`,
//!   the residual `|F(x_max)|` at the last iterate and the last step norm;
//! * [`GeomError::SingularMatrix`](crate::GeomError::SingularMatrix) `{ what: "Newton Jacobian", iteration: k }` when the LU finds
//!   a pivot `<= PIVOT_RTOL * max |J_ij|` ([`crate::linalg::PIVOT_RTOL`]) at iterate `k`;
//! * [`GeomError::NonFinite`](crate::GeomError::NonFinite) when `x_0`, `F(x_k)`, `J(x_k)` or `x_{k+1}` is not finite
//!   (`what` = `"Newton initial guess"`, `"Newton residual"`, `"Newton Jacobian"`,
//!   `"Newton iterate"`);
//! * [`GeomError::InvalidParameter`](crate::GeomError::InvalidParameter) for invalid [`NewtonOptions`];
//! * [`GeomError::DimensionMismatch`](crate::GeomError::DimensionMismatch) in [`newton_dyn`] when `F` or `J` has the wrong size;
//! * any error returned by the residual itself, unchanged.
//!
//! The fixed-size solvers do not allocate: iterates, the Jacobian and its LU live on the stack.

mod blocks;
mod dynamic;
mod fixed;
mod iteration;
mod options;

pub use blocks::*;
pub use dynamic::*;
pub use fixed::*;
pub use options::*;

#[cfg(test)]
mod block_tests;
#[cfg(test)]
mod tests;
