//! The integration tests of the `geomint` package in one test binary: one link and one
//! monomorphisation of the shared generic code instead of one per file (the cold
//! `cargo test --workspace` build time, README). Each file stays a module under its own name, so
//! `cargo test --test suite FILE::` runs one file. Tests that install a counting global allocator
//! are binaries of their own (Cargo.toml).

mod cli;
mod cli_chaos;
mod cli_long_runs;
mod cli_streaming;
mod cli_systems;
mod constrained_composition;
mod constrained_spark;
mod cross_crate;
mod formula_three_body;
mod fuzz_inputs;
mod groupoid_integrator;
mod integrator_contract;
mod matrix_group_sl3;
mod one_lagrangian;
mod plots;
mod preludes;
mod rattle_default_options;
mod sphere_discretization_map;
mod support;
mod system_file;
mod system_file_lie;
mod system_lagrangian;
mod user_group_every_layer;
