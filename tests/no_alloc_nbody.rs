//! "No heap allocation inside a step" for the N-body Hamiltonian of the outer solar system
//! (`geom_core::pairwise`): its derivatives, `StormerVerlet::step` on it, and one step through
//! the workbench's `Simulation::advance` and `advance_by` (the route of `geomint run outer-solar-system`), counted
//! with a global allocator after construction (constructors may allocate, steps may not); and
//! the same steps of `nbody` at run-time size (ten bodies, `DynSplitting` on `DynNBody`).

use discretization::OneStep;
use geom_core::function::{PhaseSpaceDerivatives, ScalarDerivatives};
use geomint::workbench::catalogue::canonical::{CanonicalSystem, OuterSolarSystem};
use geomint::workbench::catalogue::nbody::Bodies;
use geomint::workbench::{catalogue, problem};
use integrators::classical::StormerVerlet;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

struct Counting;
thread_local! {
    /// Allocations made by this thread (per thread: the test harness's own threads allocate
    /// while a test runs, which a global counter would pick up under load).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn count<F: FnMut()>(mut f: F) -> usize {
    f(); // warm up
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// One test only: the counter is global, and tests of one binary run in parallel.
#[test]
fn outer_solar_system_steps_do_not_allocate() {
    let h = OuterSolarSystem.hamiltonian();
    let s0 = OuterSolarSystem.initial();
    let n = count(|| {
        black_box(h.potential.0.gradient_and_hessian(black_box(&s0.q)));
        black_box(h.gradient_and_hessian(black_box(&s0.q), black_box(&s0.p)));
        black_box(h.value(black_box(&s0.q), black_box(&s0.p)));
    });
    assert_eq!(n, 0, "{n} heap allocations in the derivatives of the N-body Hamiltonian");
    let sv = StormerVerlet::new(h);
    let mut s = s0;
    let n = count(|| sv.step(&mut s, 10.0).unwrap());
    assert_eq!(n, 0, "{n} heap allocations in StormerVerlet::step");
    let n = count(|| sv.step_n(&mut s, 10.0, 16).unwrap());
    assert_eq!(n, 0, "{n} heap allocations in StormerVerlet::step_n");
    let problem = catalogue::problem("outer-solar-system", &[]).unwrap();
    for method in ["stormer-verlet", "gauss3", "yoshida6"] {
        let mut sim = problem::start(problem.as_ref(), method, 10.0).unwrap();
        let n = count(|| sim.advance_by(1).unwrap());
        assert_eq!(n, 0, "{method}: {n} heap allocations in Simulation::advance");
        let n = count(|| sim.advance_by(16).unwrap());
        assert_eq!(n, 0, "{method}: {n} heap allocations in Simulation::advance_by");
    }
    // the run-time size (`nbody` beyond 18 coordinates): `DynPhaseState` and `DynSplitting`
    // on `DynNBody`, whose scratch buffers are allocated at the first step only
    let (mut masses, mut q, mut v) = (vec![1.0], vec![0.0; 3], vec![0.0; 3]);
    for k in 1..10 {
        let r = 1.5f64.powi(k - 1);
        let (s, c) = (2.399 * k as f64).sin_cos();
        masses.push(1e-6 * k as f64);
        q.extend([r * c, r * s, 0.01 * r * s]);
        v.extend([-s / r.sqrt(), c / r.sqrt(), 0.0]);
    }
    let problem = Bodies::new(1.0, masses, 3, q, v).unwrap().problem().unwrap();
    assert_eq!(problem.state_labels().len(), 60);
    for method in ["stormer-verlet", "symplectic-euler-b", "kahan-li8"] {
        let mut sim = problem::start(problem.as_ref(), method, 0.01).unwrap();
        let n = count(|| sim.advance_by(1).unwrap());
        assert_eq!(n, 0, "{method} at run-time size: {n} heap allocations in Simulation::advance");
        let n = count(|| sim.advance_by(16).unwrap());
        assert_eq!(n, 0, "{method} at run-time size: {n} heap allocations in Simulation::advance_by");
    }
}
