//! # geomint
//!
//! Structure-preserving ("geometric") numerical integrators, as a workspace of layered crates.
//! This umbrella crate re-exports the layers and owns the examples, the benches and the
//! command-line workbench (`geomint`, module [`workbench`]):
//!
//! * [`geom_core`]: manifolds, Lie groups, group actions, momentum maps, AD derivatives, Newton;
//! * [`discretization`]: retraction and discretization maps, cotangent lifts, induced integrators;
//! * [`integrators`]: Hamiltonian, Lagrangian and Hamilton–Pontryagin RKMK schemes;
//! * [`groupoid`]: discrete Lagrangian mechanics on Lie groupoids, with constraints.
//!
//! Depend on the layer you need; this crate is for running the examples and the workbench.
#![deny(missing_docs)]

pub use discretization;
pub use geom_core;
pub use groupoid;
pub use integrators;

pub mod workbench;
