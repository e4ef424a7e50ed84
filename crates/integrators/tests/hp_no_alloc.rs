//! No heap allocation inside a step: HP Störmer–Verlet on the free rigid body (reduced path),
//! the heavy top (general stage equations with the AD block Jacobian), the vehicle on SE(3), and
//! RKMK4, counted with a global allocator around 100 steps each (per thread).

mod hp_common;

use discretization::OneStep;
use geom_core::lie::{Chart, Se3, So3, So3xR3};
use hp_common::{heavy_top, rigid_body, vehicle};
use integrators::hp::{self, AutoDiff};
use integrators::rkmk::{self, GroupState};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

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

fn count(mut f: impl FnMut()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn steps_do_not_allocate() {
    let (body, b0) = rigid_body();
    let (top, t0) = heavy_top();
    let (veh, v0) = vehicle();
    for chart in [Chart::Exp, Chart::Cayley] {
        let sv_body = hp::stormer_verlet(So3, body, chart).unwrap();
        let sv_top = hp::stormer_verlet(So3, top, chart).unwrap();
        let sv_top_ad = hp::stormer_verlet(So3, AutoDiff(top), chart).unwrap();
        let sv_veh = hp::stormer_verlet(Se3, veh, chart).unwrap();
        let (mut b, mut t, mut ta, mut v) = (b0, t0, t0, v0);
        let n = count(|| {
            for _ in 0..100 {
                sv_body.step(&mut b, 0.05).unwrap();
                sv_top.step(&mut t, 0.01).unwrap();
                sv_top_ad.step(&mut ta, 0.01).unwrap();
                sv_veh.step(&mut v, 0.05).unwrap();
            }
        });
        assert_eq!(n, 0, "{} allocations in HP steps ({})", n, chart.name());
    }
    let rk = rkmk::rkmk4(So3xR3::default(), body).unwrap();
    let mut s = GroupState::new(0.0, (b0.g, b0.mu));
    let n = count(|| {
        for _ in 0..100 {
            rk.step(&mut s, 0.05).unwrap();
        }
    });
    assert_eq!(n, 0, "{n} allocations in RKMK4 steps");
}
