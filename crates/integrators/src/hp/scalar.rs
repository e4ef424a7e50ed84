//! The scalar plumbing of the Hamilton–Pontryagin step, from `geom-core`: [`MapScalar`] maps a
//! group element entrywise between scalar types (e.g. lifts `g_k` to the dual type of the Newton
//! Jacobian), [`AdScalar`] adds `D` infinitesimal directions to a scalar, which lets
//! [`super::AutoDiff`] differentiate a Lagrangian "through the group" at `f64` and at the dual
//! type of the Newton Jacobian (`<f, η> = d/dε ℓ(g exp(εη), ξ)|₀`).

pub use geom_core::lie::MapScalar;
pub use geom_core::scalar::AdScalar;
