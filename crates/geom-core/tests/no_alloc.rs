//! Fixed-size groups never touch the heap: exp, log, dexp, dexp^-1, Cayley and its derivatives on
//! SO(3) and SE(3) (at f64 and at dual scalars) are counted with a global allocator.

use geom_core::lie::{Chart, LieGroup, Se3, So3};
use nalgebra::{Vector3, Vector6};
use num_dual::DualSVec64;
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

fn ops<S: geom_core::Scalar>(w: Vector3<S>, x: Vector6<S>) -> S {
    let mut acc = S::from(0.0);
    for chart in [Chart::Exp, Chart::Cayley] {
        let r = So3.tau(chart, &w).unwrap();
        acc += So3.tau_inv(chart, &r).unwrap()[0];
        acc += So3.dtau(chart, &w).unwrap()[1] + So3.dtau_inv(chart, &w).unwrap()[2];
        let g = Se3.tau(chart, &x).unwrap();
        acc += Se3.tau_inv(chart, &g).unwrap()[4];
        acc += Se3.dtau(chart, &x).unwrap()[7] + Se3.dtau_inv(chart, &x).unwrap()[9];
        acc += Se3.coadjoint(&g, &x)[0] + So3.ad_star(&w, &w)[1];
    }
    acc
}

#[test]
fn so3_and_se3_maps_do_not_allocate() {
    let w = Vector3::new(0.3, -0.8, 1.2);
    let x = Vector6::new(0.3, -0.8, 1.2, 1.0, 2.0, -0.5);
    let wd: Vector3<DualSVec64<3>> = w.map(DualSVec64::from_re);
    let xd: Vector6<DualSVec64<3>> = x.map(DualSVec64::from_re);
    // warm up (lazy statics of the test harness), then count
    let _ = ops(w, x);
    let before = ALLOCATIONS.with(Cell::get);
    let a = ops(w, x);
    let b = ops(wd, xd);
    let small = ops(w * 1e-9, x * 1e-9);
    let after = ALLOCATIONS.with(Cell::get);
    assert!(a.is_finite() && b.re.is_finite() && small.is_finite());
    assert_eq!(after - before, 0, "heap allocations inside fixed-size group maps");
}
