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
//!
//! ## Guided tour of the workbench
//!
//! The binary `geomint` (`cargo run --release -- list`; docs/workbench.md) is a thin layer over
//! [`workbench`]. There a [`Problem`](workbench::problem::Problem) of the
//! [catalogue](workbench::catalogue) starts a [`Simulation`](workbench::problem::Simulation) with
//! a method of the [registry](workbench::methods), by name. The
//! [experiments](workbench::experiment) run it and measure its invariants: the error of a
//! momentum or Casimir is $|J(t) - J(0)| / |J(0)|$, of a constraint $|\varphi(t)|$.
//!
//! ```
//! use geomint::workbench::{catalogue, experiment::{self, RunSpec}};
//!
//! let body = catalogue::problem("rigid-body", &[])?;
//! let spec = RunSpec::new(0.1, Some(2000), None, 100)?;
//! let hp = experiment::run(body.as_ref(), "hp-sv", spec, &mut |_| {})?;
//! let rk = experiment::run(body.as_ref(), "rk2-embedded", spec, &mut |_| {})?;
//! let casimir = hp.quantities.iter().position(|q| q.name == "casimir").unwrap();
//! // the variational method keeps |Π|² to round-off; classical RK2 does not
//! assert!(hp.max_error(casimir) < 1e-13);
//! assert!(rk.max_error(casimir) > 1e-4);
//! // an unknown method is an input error naming the nearest valid ones
//! let err = experiment::run(body.as_ref(), "hp-sv2", spec, &mut |_| {}).unwrap_err();
//! assert!(err.to_string().contains("'hp-sv'"));
//! # Ok::<(), geomint::workbench::WorkbenchError>(())
//! ```
#![deny(missing_docs)]

pub use discretization;
pub use geom_core;
pub use groupoid;
pub use integrators;

pub mod workbench;
