//! No heap allocation inside a step of the Lie-group methods, counted with a global allocator
//! around 100 steps each (per thread): HP Störmer–Verlet on the free rigid body (reduced path),
//! the heavy top (general stage equations with the AD block Jacobian), the vehicle on SE(3), and
//! RKMK4; the Crouch–Grossman, commutator-free and Magnus methods on the rigid body on
//! SO(3) × R³, a time-dependent frame on SE(3), and `ẏ = A(t) y` on R²; Bobenko–Suris's discrete
//! Lagrange top.

mod hp_common;

use discretization::OneStep;
use geom_core::lie::LieGroup;
use geom_core::lie::{Chart, Se3, So3, So3xR3};
use hp_common::{heavy_top, rigid_body, vehicle};
use integrators::hp::{self, AutoDiff};
use integrators::magnus::{AlgebraCurve, LinearMagnus, Magnus, MagnusOrder, MatrixCurve};
use integrators::models::FreeRigidBody;
use integrators::rkmk::LieVectorField;
use integrators::rkmk::{self, GroupState};
use integrators::{commutator_free, crouch_grossman};
use nalgebra::{Matrix2, Matrix3, Matrix4, SVector, Vector2, Vector3, Vector6};
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
        let sv_body = hp::stormer_verlet(So3, chart, body).unwrap();
        let sv_top = hp::stormer_verlet(So3, chart, top).unwrap();
        let sv_top_ad = hp::stormer_verlet(So3, chart, AutoDiff(top)).unwrap();
        let sv_veh = hp::stormer_verlet(Se3, chart, veh).unwrap();
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

/// A frame on SE(3) turning and moving with time and position.
struct Frame;
impl LieVectorField<Se3, 6> for Frame {
    fn eval(&self, _: &Se3, t: f64, g: &Matrix4<f64>) -> geom_core::Result<Vector6<f64>> {
        Ok(Vector6::new(1.0, 0.5 * t, g[(0, 1)], 0.3, g[(2, 3)], -0.2))
    }
}
impl AlgebraCurve<6> for Frame {
    fn eval(&self, t: f64) -> geom_core::Result<SVector<f64, 6>> {
        Ok(Vector6::new(1.0, 0.5 * t, t.sin(), 0.3, t.cos(), -0.2))
    }
}
/// Mathieu's equation as `ẏ = A(t) y`.
struct Mathieu;
impl MatrixCurve<2> for Mathieu {
    fn eval(&self, t: f64) -> geom_core::Result<Matrix2<f64>> {
        Ok(Matrix2::new(0.0, 1.0, -(1.5 - 1.4 * (2.0 * t).cos()), 0.0))
    }
}

#[test]
fn lie_group_methods_by_exponentials_do_not_allocate() {
    let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0).unwrap();
    let group = So3xR3::default();
    let b0 = GroupState::new(0.0, (Matrix3::identity(), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin())));
    let f0 = GroupState::new(0.0, Se3.identity());
    let (cg4a, cf3, cf4) = (
        crouch_grossman::cg4a(group, body).unwrap(),
        commutator_free::cf3(group, body).unwrap(),
        commutator_free::cf4(group, body).unwrap(),
    );
    let (cg3_se3, cf4_se3) = (crouch_grossman::cg3(Se3, Frame).unwrap(), commutator_free::cf4(Se3, Frame).unwrap());
    let (m4, m6) = (Magnus::new(Se3, Frame, MagnusOrder::Four), Magnus::new(Se3, Frame, MagnusOrder::Six));
    let lin = LinearMagnus::new(Mathieu, MagnusOrder::Six);
    let (mut a, mut b, mut c) = (b0, b0, b0);
    let (mut d, mut e, mut f, mut g) = (f0, f0, f0, f0);
    let mut y = GroupState::new(0.0, Vector2::new(1.0, 0.3));
    let n = count(|| {
        for _ in 0..100 {
            cg4a.step(&mut a, 0.05).unwrap();
            cf3.step(&mut b, 0.05).unwrap();
            cf4.step(&mut c, 0.05).unwrap();
            cg3_se3.step(&mut d, 0.05).unwrap();
            cf4_se3.step(&mut e, 0.05).unwrap();
            m4.step(&mut f, 0.05).unwrap();
            m6.step(&mut g, 0.05).unwrap();
            lin.step(&mut y, 0.05).unwrap();
        }
    });
    assert_eq!(n, 0, "{n} allocations in 800 steps");
    // the counter sees an allocation
    assert_eq!(count(|| drop(std::hint::black_box(vec![1.0]))), 1);
    assert!((a.t - 5.0).abs() < 1e-12 && (y.t - 5.0).abs() < 1e-12);
}

/// Bobenko–Suris's discrete Lagrange top (`lie_poisson_baselines::BobenkoSuris`): explicit, no
/// allocation in 100 steps.
#[test]
fn discrete_lagrange_top_steps_do_not_allocate() {
    use integrators::lie_poisson_baselines::BobenkoSuris;
    use integrators::models::HeavyTop;
    let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.0, 1.0)), 1.0, Vector3::z()).unwrap();
    let m = BobenkoSuris::new(&top).unwrap();
    let mut s = integrators::LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
    let n = count(|| {
        for _ in 0..100 {
            m.step(&mut s, 0.05).unwrap();
        }
    });
    assert_eq!(n, 0, "{n} allocations in Bobenko–Suris steps");
}
