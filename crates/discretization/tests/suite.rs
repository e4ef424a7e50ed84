//! The integration tests of `discretization` in one test binary: one link and one monomorphisation of
//! the shared generic code instead of one per file (the cold `cargo test --workspace` build
//! time, README). Each file stays a module under its own name, so
//! `cargo test -p discretization --test suite FILE::` runs one file. Tests that install a counting
//! global allocator are binaries of their own (Cargo.toml).

mod common;
mod composition;
mod composition_order10;
mod hostile_inputs;
mod lagrangian;
mod lie_cotangent_lift;
mod lie_poisson;
mod lie_poisson_user_map;
mod orders;
mod polish;
mod retraction_models;
mod symplectic;
mod theorems;
mod user_chart;
