//! # geom-core
//!
//! The bottom layer of geomint: manifolds, Lie groups, group actions, momentum maps, functions on
//! phase space with exact derivatives, and the one Newton solver every layer above reuses.
//!
//! Conventions are stated once, in [`lie`] (trivializations, `Ad*`, `ad*`), and hold in every
//! crate of the workspace. See `docs/geom-core.md` for the formulas with their sources.

#![deny(missing_docs)]

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

/// The names most code needs: `use geom_core::prelude::*;`.
pub mod prelude {
    pub use crate::action::{
        Diagonal, GroupAction, LeftMultiplication, LinearAction, RigidMotion, RotationAction, SphereRotation,
        Translation,
    };
    pub use crate::function::{
        AutoDiff, Hessian, PhaseSpaceDerivatives, PhaseSpaceFunction, ScalarDerivatives, ScalarFunction,
    };
    pub use crate::lie::{Chart, Gl, LieGroup, Power, Product, Rn, Se2, Se3, So2, So3, Su2};
    pub use crate::manifold::{Euclidean, Manifold, ProductManifold, Sphere2};
    pub use crate::newton::{NewtonOptions, NewtonReport, Residual, newton, newton_ad};
    pub use crate::{GeomError, Result, Scalar};
}
