//! The integration tests of `integrators` in one test binary: one link and one monomorphisation of
//! the shared generic code instead of one per file (the cold `cargo test --workspace` build
//! time, README). Each file stays a module under its own name, so
//! `cargo test -p integrators --test suite FILE::` runs one file. Tests that install a counting
//! global allocator are binaries of their own (Cargo.toml).

mod ad_implicit;
mod baselines_common;
mod bobenko_suris;
mod classical;
mod coadjoint_energy;
mod driver;
mod driver_checkpoint;
mod driver_huge_runs;
mod driver_loop;
mod energy_momentum;
mod energy_preserving;
mod events;
mod events_lie;
mod hp_buoyant_vehicle;
mod hp_cayley_formula;
mod hp_common;
mod hp_composition_orders;
mod hp_errors;
mod hp_heavy_top;
mod hp_hostile_inputs;
mod hp_large_step;
mod hp_prk_rn;
mod hp_reversible;
mod hp_rigid_body;
mod hp_rkmk;
mod hp_second_kind;
mod hp_symplectic;
mod hp_truncation;
mod hp_vehicle;
mod lgvi;
mod lie_methods_common;
mod lie_methods_magnus;
mod lie_methods_orders;
mod lie_methods_structure;
mod lie_methods_tableaux;
mod lie_newmark;
mod observers_lie;
mod part2_experiments;
mod separable_dyn;
mod splitting_cache;
mod splitting_kepler;
mod splitting_method;
mod splitting_models;
mod splitting_orders;
mod splitting_schemes;
mod user_chart;
mod variational_equations;
mod variational_equations_lie;
mod variational_second_order;
mod wisdom_holman;
mod wisdom_holman_common;
mod wisdom_holman_democratic;
