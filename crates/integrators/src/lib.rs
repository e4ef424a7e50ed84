//! # integrators
//!
//! Seed 002 (Bou-Rabee & Marsden, *Hamilton–Pontryagin integrators on Lie groups, Part I*) made
//! executable, beside the classical symplectic families a user expects to find next to it.
//! MATH.md section (d) is the specification.
//!
//! * [`tableau`]: validated Butcher tableaux (Gauss–Legendre, Lobatto IIIA/IIIB, explicit RK);
//! * [`classical`]: symplectic Euler, Störmer–Verlet, Gauss–Legendre collocation, Lobatto
//!   IIIA–IIIB on `T*R^n`; [`variational`]: the integrator of a discrete Lagrangian;
//! * [`hp`]: Hamilton–Pontryagin RKMK integrators on any Lie group; [`rkmk`]: plain RKMK;
//! * [`models`]: free rigid body, heavy top, underwater vehicle;
//! * [`driver`]: runs any [`discretization::OneStep`] with observers and compensated summation.
//!
//! Every method implements the workspace's one-step trait [`discretization::OneStep`] and reports
//! [`geom_core::GeomError`] (invalid step, Newton failure, non-finite state); a failed step leaves
//! the state untouched.

#![deny(missing_docs)]

pub mod classical;
pub mod driver;
pub mod hp;
pub mod models;
pub mod rkmk;
pub mod tableau;
pub mod variational;

pub use discretization::{self, OneStep, PhaseState};
pub use geom_core;
pub use tableau::Tableau;
