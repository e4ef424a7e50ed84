//! The integration tests of `groupoid` in one test binary: one link and one monomorphisation of
//! the shared generic code instead of one per file (the cold `cargo test --workspace` build
//! time, README). Each file stays a module under its own name, so
//! `cargo test -p groupoid --test suite FILE::` runs one file. Tests that install a counting
//! global allocator are binaries of their own (Cargo.toml).

mod algebroid;
mod algebroid_discretization;
mod constrained_integrators;
mod constrained_plate_ball;
mod constrained_so3_control;
mod constrained_spherical_pendulum;
mod constrained_time_dependent;
mod constrained_variational;
mod nonholonomic;
mod optimal_control;
mod robust_shooting;
mod sphere_pair_hostile;
mod structure_holonomic_symplectic;
mod structure_poisson_map;
mod structure_sigma_lagrangian;
mod time_dependent;
mod unconstrained_heavy_top;
mod unconstrained_pair;
mod unconstrained_reduction;
mod unconstrained_regularity;
mod unconstrained_rigid_body;
mod user_chart;
mod user_group;
