//! The cost of the workbench's seam: one step through `Simulation::advance` (a boxed
//! `OneStep`, a state copy so that a failed step leaves the state untouched, a step counter)
//! against the same method called directly on a state on the stack, in the same run.
//!
//! * free rigid body, HP Störmer–Verlet (Cayley): `geomint run rigid-body --method hp-sv`;
//! * Kepler, Störmer–Verlet on the separable `H` of the catalogue: `geomint run kepler`.
//!
//! Run: `cargo bench --bench workbench` (prints the ratio table at the end).

mod common;

use criterion::{Criterion, criterion_group};
use discretization::{OneStep, PhaseState};
use geom_core::function::Separable;
use geom_core::lie::{Chart, LieGroup, So3};
use geomint::workbench::catalogue::{self, canonical};
use geomint::workbench::problem;
use integrators::classical::StormerVerlet;
use integrators::hp::{self, LieState};
use integrators::models::FreeRigidBody;
use nalgebra::{Vector2, Vector3};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    // the rigid body of the catalogue, h = 0.05
    let h = 0.05;
    let rigid = catalogue::problem("rigid-body", &[]).unwrap();
    let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0).unwrap();
    let sv = hp::stormer_verlet(So3, body, Chart::Cayley).unwrap();
    let s0 = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin()));
    // both paths integrate the same trajectory
    let mut sim = problem::start(rigid.as_ref(), "hp-sv", h).unwrap();
    let mut s = s0;
    for _ in 0..100 {
        sim.advance().unwrap();
        sv.step(&mut s, h).unwrap();
    }
    let pi = sim.state();
    assert!((Vector3::new(pi[9], pi[10], pi[11]) - s.pi).norm() == 0.0, "the seam changes the arithmetic");

    let mut g = c.benchmark_group("workbench_rigid_body_hp_sv");
    g.bench_function("workbench", |b| {
        let mut sim = problem::start(rigid.as_ref(), "hp-sv", h).unwrap();
        b.iter(|| black_box(sim.as_mut()).advance().unwrap())
    });
    g.bench_function("direct", |b| {
        let mut s = s0;
        b.iter(|| sv.step(black_box(&mut s), black_box(h)).unwrap())
    });
    g.finish();

    let h = 0.01;
    let kepler = catalogue::problem("kepler", &[]).unwrap();
    let method = StormerVerlet::new(Separable::new(canonical::UnitKinetic, canonical::Newton2));
    let e = 0.6f64;
    let k0 = PhaseState::new(Vector2::new(1.0 - e, 0.0), Vector2::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()));
    let mut g = c.benchmark_group("workbench_kepler_sv");
    g.bench_function("workbench", |b| {
        let mut sim = problem::start(kepler.as_ref(), "stormer-verlet", h).unwrap();
        b.iter(|| black_box(sim.as_mut()).advance().unwrap())
    });
    g.bench_function("direct", |b| {
        let mut s = k0;
        b.iter(|| method.step(black_box(&mut s), black_box(h)).unwrap())
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}

fn main() {
    benches();
    Criterion::default().final_summary();
    common::print_ratios(
        "workbench seam, ns per step (ratio = through Simulation::advance / direct OneStep::step)",
        &[
            ("rigid body, HP SV (Cayley)", "workbench_rigid_body_hp_sv", "workbench", "direct"),
            ("Kepler, Störmer–Verlet", "workbench_kepler_sv", "workbench", "direct"),
        ],
    );
}
