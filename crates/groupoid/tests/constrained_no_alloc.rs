//! No heap allocation per step in the fixed-size constrained paths (docs/architecture.md, "Two
//! kinds of dispatch": hot loops are monomorphic): `ConstrainedFlow::step` (SO(3) with one
//! constraint, the plate-ball pair groupoid of R² × SO(3) with three), `HolonomicFlow::step` and
//! its projected momentum, the constrained Legendre transforms, the momentum map and the regularity
//! check, counted with a global allocator (per thread).

use geom_core::Scalar;
use geom_core::action::RotationAction;
use geom_core::lie::{Chart, LieGroup, Product, Rn, So3, so3};
use groupoid::constraints::{
    BaseConstraints, ConstrainedFlow, Constraints, HolonomicFlow, SigmaPoint, legendre_minus_constrained,
    legendre_plus_constrained,
};
use groupoid::lagrangian::GroupoidFamily;
use groupoid::noether::{PairDiagonal, constrained_momentum_map, momentum_map};
use groupoid::{DiscreteLagrangian, GroupAsGroupoid, PairGroupoid, PairOfGroup};
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

type Gd = GroupAsGroupoid<So3>;
struct Control;
impl DiscreteLagrangian<Gd, 3> for Control {
    fn eval<S: Scalar>(&self, gd: &Gd, w: &Matrix3<S>) -> S {
        let xi = gd.group().tau_inv(gd.chart(), w).unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        xi.norm_squared() * S::from(0.5 / H)
    }
}
struct NoAxis3;
impl Constraints<Gd, 3, 1> for NoAxis3 {
    fn eval<S: Scalar>(&self, gd: &Gd, w: &Matrix3<S>) -> SVector<S, 1> {
        let xi = gd.group().tau_inv(gd.chart(), w).unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        SVector::from([xi[2]])
    }
}

type Ball = PairOfGroup<Product<Rn<2>, So3, 2, 3>>;
type El<S> = <Ball as GroupoidFamily<5>>::Element<S>;
struct Cost;
impl DiscreteLagrangian<Ball, 5> for Cost {
    fn eval<S: Scalar>(&self, _: &Ball, g: &El<S>) -> S {
        (g.1.0 - g.0.0).norm_squared() * S::from(0.5 / H)
    }
}
struct NoSlip;
impl Constraints<Ball, 5, 3> for NoSlip {
    fn eval<S: Scalar>(&self, _: &Ball, g: &El<S>) -> SVector<S, 3> {
        let w = LieGroup::<S, 3>::cayley_inv(&So3, &(g.1.1 * g.0.1.transpose()))
            .unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        let d = g.1.0 - g.0.0;
        w - Vector3::new(-d[1], d[0], S::from(0.0))
    }
}

struct Pendulum;
impl DiscreteLagrangian<PairGroupoid<3>, 3> for Pendulum {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, g: &(Vector3<S>, Vector3<S>)) -> S {
        (g.1 - g.0).norm_squared() * S::from(0.5 / H) - (g.0[2] + g.1[2]) * S::from(0.5 * H * 9.81)
    }
}
struct UnitSphere;
impl BaseConstraints<PairGroupoid<3>, 3, 1> for UnitSphere {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, q: &Vector3<S>) -> SVector<S, 1> {
        SVector::from([(q.norm_squared() - S::from(1.0)) * S::from(0.5)])
    }
}

#[test]
fn constrained_steps_do_not_allocate() {
    let gd = GroupAsGroupoid::new(So3, Chart::Cayley);
    let control = ConstrainedFlow::<_, _, _, 4>::new(gd, Control, NoAxis3);
    let mut pc = SigmaPoint::new(so3::cayley(&Vector3::new(0.05, -0.03, 0.0)), SVector::from([0.5]));

    let ball: Ball = PairOfGroup::new(Product::new(Rn, So3), Chart::Cayley);
    let rolling = ConstrainedFlow::<_, _, _, 8>::new(ball, Cost, NoSlip);
    let q0 = (Vector2::new(0.0, 0.0), Matrix3::identity());
    let v = Vector2::new(0.1, 0.05);
    let g1 = (q0, (q0.0 + v, so3::cayley(&Vector3::new(-v[1], v[0], 0.0))));
    let mut pb = SigmaPoint::new(g1, SVector::from([0.3, -0.2, 0.1]));

    let pendulum = HolonomicFlow::<_, _, _, 4>::new(PairGroupoid::<3>, Pendulum, UnitSphere);
    let qp = Vector3::new(0.6, 0.0, -0.8);
    let mut gp = (qp, (qp + Vector3::new(0.0, 0.12, 0.0)).normalize());

    let mut sink = 0.0;
    let mut run = |steps: usize| {
        for _ in 0..steps {
            pc = control.step(&pc).unwrap().0;
            pb = rolling.step(&pb).unwrap().0;
            gp = pendulum.step(&gp).unwrap().0;
            sink += legendre_minus_constrained(&gd, &Control, &NoAxis3, &pc)[0];
            sink += legendre_plus_constrained(&ball, &Cost, &NoSlip, &pb)[0];
            sink += control.regularity(&pc).unwrap().condition_minus;
            sink += pendulum.projected_momentum(&gp).unwrap()[0];
            sink += momentum_map(&PairGroupoid::<3>, &Pendulum, &PairDiagonal(RotationAction), &gp)[2];
            let right =
                groupoid::noether::ConstantSection(nalgebra::SMatrix::<f64, 5, 1>::from([[0.0, 0.0, 1.0, 0.0, 0.0]]));
            sink += constrained_momentum_map(&ball, &Cost, &NoSlip, &right, &pb)[0];
        }
    };
    run(2); // warm-up
    let before = ALLOCATIONS.with(Cell::get);
    run(20);
    let after = ALLOCATIONS.with(Cell::get);
    assert!(sink.is_finite());
    println!("allocations in 20 × (3 constrained steps + transforms + regularity + momenta): {}", after - before);
    assert_eq!(after - before, 0);
}

/// `L = ½|v|² − 9.81 z`.
struct PendulumL;
impl groupoid::nonholonomic::ContinuousLagrangian<3> for PendulumL {
    fn eval<S: Scalar>(&self, q: &Vector3<S>, v: &Vector3<S>) -> S {
        v.norm_squared() * S::from(0.5) - q[2] * S::from(9.81)
    }
}

#[test]
fn spark_steps_do_not_allocate() {
    use geom_core::step::{OneStep, PhaseState};
    let spark = groupoid::integrator::SparkGauss2::<_, _, 3, 1, 8>::new(PendulumL, UnitSphere);
    let mut s = PhaseState::new(Vector3::new(0.6, 0.0, -0.8), Vector3::new(0.0, 1.2, 0.0));
    spark.step_n(&mut s, H, 2).unwrap(); // warm-up
    let before = ALLOCATIONS.with(Cell::get);
    for _ in 0..20 {
        spark.step(&mut s, H).unwrap();
    }
    // a refused step allocates nothing either
    assert!(spark.step(&mut s, f64::NAN).is_err());
    let after = ALLOCATIONS.with(Cell::get);
    assert!(s.is_finite());
    println!("allocations in 20 SPARK steps: {}", after - before);
    assert_eq!(after - before, 0);
}
