//! No heap allocation per step (docs/architecture.md, "Two kinds of dispatch": hot loops are
//! monomorphic): DEL steps, Legendre transforms and morphisms on the pair groupoids of SO(3), R² ×
//! SO(3) and S², the heavy-top action groupoid and the trivialized Atiyah groupoid, counted with a
//! global allocator (per thread).

use geom_core::Scalar;
use geom_core::action::SphereRotation;
use geom_core::lie::{Chart, Product, Rn, So3, so3};
use groupoid::{
    ActionGroupoid, AtiyahQuotient, DiscreteFlow, DiscreteLagrangian, GroupoidMorphism, LeftTrivialization,
    LieGroupoid, PairOfGroup, SpherePair, TrivialAtiyah, legendre_minus, legendre_plus,
};
use nalgebra::{Matrix3, SVector, Vector2, Vector3};
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

const H: f64 = 0.1;

fn mv<S: Scalar>(w: &Matrix3<S>) -> S {
    let jd = [2.0, 1.5, 0.5];
    let mut acc = S::from(4.0);
    for (i, j) in jd.iter().enumerate() {
        acc -= w[(i, i)] * *j;
    }
    acc * S::from(1.0 / H)
}

struct PairBody;
impl DiscreteLagrangian<PairOfGroup<So3>, 3> for PairBody {
    fn eval<S: Scalar>(&self, _: &PairOfGroup<So3>, g: &(Matrix3<S>, Matrix3<S>)) -> S {
        mv(&(g.0.transpose() * g.1))
    }
}
type Q = Product<Rn<2>, So3, 2, 3>;
struct Ball;
impl DiscreteLagrangian<PairOfGroup<Q>, 5> for Ball {
    fn eval<S: Scalar>(&self, _: &PairOfGroup<Q>, g: &((Vector2<S>, Matrix3<S>), (Vector2<S>, Matrix3<S>))) -> S {
        (g.1.0 - g.0.0).norm_squared() * S::from(0.5 / H) + mv(&(g.0.1.transpose() * g.1.1))
    }
}
struct Pendulum;
impl DiscreteLagrangian<SpherePair, 2> for Pendulum {
    fn eval<S: Scalar>(&self, _: &SpherePair, g: &(Vector3<S>, Vector3<S>)) -> S {
        (g.1 - g.0).norm_squared() * S::from(0.5 / H) - (g.0[2] + g.1[2]) * S::from(0.5 * H)
    }
}
struct Top;
impl DiscreteLagrangian<ActionGroupoid<SphereRotation>, 3> for Top {
    fn eval<S: Scalar>(&self, _: &ActionGroupoid<SphereRotation>, g: &(Vector3<S>, Matrix3<S>)) -> S {
        mv(&g.1) - (g.0[2] + (g.1.transpose() * g.0)[2]) * S::from(0.5 * H)
    }
}
struct Shape;
impl DiscreteLagrangian<TrivialAtiyah<So3, 2, 3>, 5> for Shape {
    fn eval<S: Scalar>(&self, _: &TrivialAtiyah<So3, 2, 3>, g: &(Vector2<S>, Vector2<S>, Matrix3<S>)) -> S {
        (g.1 - g.0).norm_squared() * S::from(0.5 / H) + mv(&g.2) - (g.0 + g.1).norm_squared() * S::from(0.1)
    }
}

#[test]
fn steps_on_the_new_groupoids_do_not_allocate() {
    let r = so3::exp(&Vector3::new(0.3, -0.2, 0.5));
    let w = so3::cayley(&Vector3::new(0.05, 0.02, -0.04));
    let pair = DiscreteFlow::new(PairOfGroup::new(So3, Chart::Cayley), PairBody);
    let ball = DiscreteFlow::new(PairOfGroup::new(Product::new(Rn, So3), Chart::Cayley), Ball);
    let sphere = DiscreteFlow::new(SpherePair, Pendulum);
    let top = DiscreteFlow::new(ActionGroupoid::new(SphereRotation, Chart::Exp), Top);
    let atiyah = DiscreteFlow::new(TrivialAtiyah::<So3, 2, 3>::new(So3, Chart::Exp), Shape);
    let lt = LeftTrivialization::new(So3, Chart::Cayley);
    let aq = AtiyahQuotient::<So3, 2, 3>::new(So3, Chart::Cayley);
    let x = Vector3::new(0.6, 0.0, -0.8);
    let g_pair = (r, r * w);
    let q0 = (Vector2::new(0.1, 0.2), r);
    let g_ball = LieGroupoid::<f64, 5>::fibre_exp(ball.groupoid(), &q0, &SVector::from([0.05, 0.0, 0.05, 0.02, -0.04]));
    let g_sphere = LieGroupoid::<f64, 2>::fibre_exp(&SpherePair, &x, &Vector2::new(0.02, 0.01));
    let g_top = (Vector3::new(0.0, 0.6, 0.8), w);
    let g_at = (Vector2::new(0.1, 0.2), Vector2::new(0.15, 0.2), w);
    let run = || {
        let mut acc = 0.0;
        acc += pair.step(&g_pair).unwrap().0.1[(0, 1)];
        acc += ball.step::<5>(&g_ball).unwrap().0.1.0[0];
        acc += sphere.step(&g_sphere).unwrap().0.1[0];
        acc += top.step(&g_top).unwrap().0.0[1];
        let mut g = g_top;
        acc += top.step_n(&mut g, 3).unwrap().iterations as f64 + g.0[1];
        acc += atiyah.step::<5>(&g_at).unwrap().0.1[0];
        acc += legendre_plus(pair.groupoid(), pair.lagrangian(), &g_pair)[0];
        acc += legendre_minus(top.groupoid(), top.lagrangian(), &g_top)[0];
        acc += lt.map::<f64>(&g_pair)[(0, 0)];
        acc += GroupoidMorphism::<5, 5>::map::<f64>(&aq, &g_ball).2[(0, 0)];
        acc
    };
    let _ = run(); // warm up
    let before = ALLOCATIONS.with(Cell::get);
    let value = run();
    let after = ALLOCATIONS.with(Cell::get);
    assert!(value.is_finite());
    assert_eq!(after - before, 0, "heap allocations inside groupoid steps");
}

/// The groupoid flow as a `OneStep` (`groupoid::integrator`), on `(q, p)` of the pair groupoid
/// and on `(g, μ)` of SO(3) as a groupoid, allocates nothing per step either.
#[test]
fn the_groupoid_integrator_does_not_allocate() {
    use geom_core::function::{PhaseSpaceFunction, ScalarFunction};
    use geom_core::step::{LieState, OneStep, PhaseState};
    use groupoid::discretization_map::{FibreThetaMap, ReducedLagrangian, TangentLagrangian};
    use groupoid::integrator::{GroupoidIntegrator, Induced};
    use groupoid::{GroupAsGroupoid, PairGroupoid};

    struct Oscillator;
    impl PhaseSpaceFunction<2> for Oscillator {
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>, v: &SVector<S, 2>) -> S {
            (v.norm_squared() - q.norm_squared()) * S::from(0.5)
        }
    }
    struct Body;
    impl ScalarFunction<3> for Body {
        fn eval<S: Scalar>(&self, xi: &SVector<S, 3>) -> S {
            (xi[0] * xi[0] * S::from(2.0) + xi[1] * xi[1] + xi[2] * xi[2] * S::from(0.5)) * S::from(0.5)
        }
    }
    let pair = GroupoidIntegrator::new(
        PairGroupoid::<2>,
        Induced::new(FibreThetaMap::midpoint(), TangentLagrangian(Oscillator)),
    );
    let body = GroupoidIntegrator::new(
        GroupAsGroupoid::new(So3, Chart::Cayley),
        Induced::new(FibreThetaMap::midpoint(), ReducedLagrangian(Body)),
    );
    let mut a = PhaseState::new(Vector2::new(1.0, 0.2), Vector2::new(0.0, 0.5));
    let mut b = LieState::new(so3::exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(0.4, 0.9, -0.3));
    pair.step(&mut a, 0.1).unwrap(); // warm up
    body.step(&mut b, 0.1).unwrap();
    let before = ALLOCATIONS.with(Cell::get);
    for _ in 0..10 {
        pair.step(&mut a, 0.1).unwrap();
        body.step(&mut b, 0.1).unwrap();
    }
    let after = ALLOCATIONS.with(Cell::get);
    assert!(a.is_finite() && b.mu.iter().all(|v| v.is_finite()));
    assert_eq!(after - before, 0, "heap allocations inside groupoid integrator steps");
}
