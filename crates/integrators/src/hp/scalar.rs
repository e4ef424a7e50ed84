//! The scalar plumbing of the Hamilton–Pontryagin step, from `geom-core`: [`AdScalar`] adds `D`
//! infinitesimal directions to a scalar, which lets [`super::AutoDiff`] differentiate a
//! Lagrangian "through the group" at `f64` and at the dual type of the Newton Jacobian
//! (`<f, η> = d/dε ℓ(g exp(εη), ξ)|₀`); the group's elements move between scalars by
//! [`geom_core::lie::LieGroupFamily::lift_at`] and `map_scalar`.

pub use geom_core::scalar::AdScalar;
