//! # geom-core
//!
//! The bottom layer of geomint: manifolds, Lie groups, group actions, momentum maps, functions on
//! phase space with exact derivatives, and the one Newton solver every layer above reuses.
//!
//! Conventions are stated once, in [`lie`] (trivializations, `Ad*`, `ad*`), and hold in every
//! crate of the workspace. See `docs/geom-core.md` for the formulas with their sources.

pub mod action;
pub mod error;
pub mod function;
pub mod lie;
pub mod linalg;
pub mod manifold;
pub mod newton;
pub mod scalar;

pub use error::{GeomError, Result};
pub use scalar::Scalar;
