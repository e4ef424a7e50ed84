//! # discretization
//!
//! Seed 000 (Barbero-Liñán, Marrero, Martín de Diego, *From retraction maps to
//! symplectic-momentum numerical integrators*) made executable; MATH.md sections (a) and (b) are
//! the specification. A user picks or writes a discretization map `R_d: TQ -> Q × Q` and gets, with
//! no further code, a symplectic integrator for their Hamiltonian or Lagrangian; if `R_d` is
//! symmetry-preserving the integrator conserves the momentum map, and [`symmetry`] checks that.
//!
//! * [`map`]: the traits [`DiscretizationMap`] and [`EuclideanMap`]; [`theta`]: the θ/α-family;
//! * [`hamiltonian`]: the induced integrator `Ψ_h` (eq. (4) of seed 000);
//! * [`composition`]: composition methods (triple jump, Suzuki, Yoshida, Kahan–Li, McLachlan);
//! * [`one_step`]: the [`OneStep`] trait every integrator of the workspace implements.

#![deny(missing_docs)]

pub mod composition;
pub mod error;
mod general;
pub mod hamiltonian;
pub mod map;
pub mod one_step;
pub mod theta;

pub use composition::{Composition, CompositionScheme, Stage};
pub use error::DiscretizationError;
pub use geom_core;
pub use hamiltonian::CotangentLiftIntegrator;
pub use map::{CovectorHessian, DiscretizationMap, EuclideanMap, MapJacobian};
pub use one_step::{OneStep, PhaseState, check_step};
pub use theta::ThetaMap;
