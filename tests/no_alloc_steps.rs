//! "No heap allocation inside a step": one step of each implicit and composed integrator, counted
//! with a global allocator, per thread, after construction (constructors may allocate, steps may
//! not).

use discretization::composition::{Composition, adjoint_pair, yoshida6};
use discretization::{CotangentLiftIntegrator, OneStep, PhaseState, ThetaMap};
use geom_core::Scalar;
use geom_core::function::{AutoDiff, PhaseSpaceFunction};
use integrators::classical::Gauss2;
use integrators::energy_preserving::{Avf, Gonzalez, Invariant, ItohAbe, SymmetricProjection};
use nalgebra::SVector;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    /// Allocations made by this thread: the tests of this file run in parallel, and a global
    /// count would see the other test's allocations.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // `try_with`: no count during thread teardown
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Kepler `H = |p|²/2 - 1/|q|`, derivatives by AD.
struct Kepler;
impl PhaseSpaceFunction<2> for Kepler {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - S::from(1.0) / q.norm()
    }
}

fn count<F: FnMut()>(mut f: F) -> usize {
    f(); // warm up
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn integrator_steps_do_not_allocate() {
    // the counter sees an allocation of this thread
    assert_eq!(count(|| drop(std::hint::black_box(vec![1u8; 8]))), 1);
    let start = PhaseState::new(SVector::from([0.4, 0.0]), SVector::from([0.0, 2.0]));
    let midpoint = CotangentLiftIntegrator::new(ThetaMap::midpoint(), AutoDiff(Kepler));
    let euler = CotangentLiftIntegrator::new(ThetaMap::explicit_euler(), AutoDiff(Kepler));
    let adjoint = CotangentLiftIntegrator::new(ThetaMap::explicit_euler().adjoint(), AutoDiff(Kepler));
    let verlet = Composition::with_adjoint(euler, adjoint, adjoint_pair());
    let y6 =
        Composition::new(CotangentLiftIntegrator::new(ThetaMap::midpoint(), AutoDiff(Kepler)), yoshida6()).unwrap();
    let gauss = Gauss2::new(AutoDiff(Kepler)).unwrap();
    let avf = Avf::<_, 2>::new(AutoDiff(Kepler)).unwrap();
    let gonzalez = Gonzalez::new(AutoDiff(Kepler));
    let itoh_abe = ItohAbe::symmetrized(AutoDiff(Kepler));
    let projected = SymmetricProjection::new(Gauss2::new(AutoDiff(Kepler)).unwrap(), Invariant(Kepler)).unwrap();
    let methods: [(&str, &dyn OneStep<PhaseState<2>>); 8] = [
        ("midpoint", &midpoint),
        ("Stormer-Verlet composition", &verlet),
        ("Yoshida 6", &y6),
        ("Gauss 2", &gauss),
        ("AVF 2", &avf),
        ("Gonzalez", &gonzalez),
        ("symmetrized Itoh-Abe", &itoh_abe),
        ("symmetric projection of Gauss 2", &projected),
    ];
    for (name, m) in methods {
        let mut s = start;
        let n = count(|| m.step(&mut s, 0.01).unwrap());
        assert_eq!(n, 0, "{name}: {n} heap allocations in one step");
    }
}

/// The explicit paths and the routes added for speed: Störmer–Verlet on a model declared
/// separable, the merged-kick composition, the Lie-group discrete Euler–Poincaré step, and the
/// workbench's `Simulation::advance` on the catalogue's Kepler and rigid body.
#[test]
fn explicit_lie_group_and_workbench_steps_do_not_allocate() {
    use discretization::LieState;
    use discretization::composition::kahan_li8;
    use discretization::lagrangian::LieGroupDiscreteEulerLagrange;
    use geom_core::function::ScalarFunction;
    use geom_core::lie::{Chart, So3};
    use geomint::workbench::{catalogue, problem};
    use integrators::classical::StormerVerlet;
    use integrators::verlet_composition::VerletComposition;
    use nalgebra::{Matrix3, Vector3};

    let start = PhaseState::new(SVector::from([0.4, 0.0]), SVector::from([0.0, 2.0]));
    let sv = StormerVerlet::new(AutoDiff::separable(Kepler));
    let kl8 = VerletComposition::new(AutoDiff::separable(Kepler), kahan_li8()).unwrap();
    for (name, m) in [("SV (separable AD)", &sv as &dyn OneStep<PhaseState<2>>), ("Kahan-Li 8, merged kicks", &kl8)] {
        let mut s = start;
        let n = count(|| m.step(&mut s, 0.01).unwrap());
        assert_eq!(n, 0, "{name}: {n} heap allocations in one step");
    }

    struct Body;
    impl ScalarFunction<3> for Body {
        fn eval<S: Scalar>(&self, w: &SVector<S, 3>) -> S {
            (w[0] * w[0] * S::from(2.0) + w[1] * w[1] + w[2] * w[2] * S::from(2.0 / 3.0)) * S::from(0.5)
        }
    }
    let dep = LieGroupDiscreteEulerLagrange::<_, _, 3>::new(So3, Chart::Cayley, Body);
    let mut s = LieState::new(Matrix3::identity(), Vector3::new(0.4, 0.1, 0.9));
    let n = count(|| dep.step(&mut s, 0.05).unwrap());
    assert_eq!(n, 0, "DEP: {n} heap allocations in one step");

    for (name, method) in [("kepler", "stormer-verlet"), ("kepler", "kahan-li8"), ("rigid-body", "hp-sv")] {
        let p = catalogue::problem(name, &[]).unwrap();
        let mut sim = problem::start(p.as_ref(), method, 0.01).unwrap();
        let n = count(|| sim.advance_by(1).unwrap());
        assert_eq!(n, 0, "workbench {name}/{method}: {n} heap allocations in one step");
    }
}

/// Heavy top on T*SO(3), `H = ½ Πᵀ I⁻¹ Π + e3·R e3`, and the spherical pendulum on T*S².
#[derive(Debug)]
struct Top;
impl<S: Scalar> discretization::lie_function::LieFunction<S, geom_core::lie::So3, 3> for Top {
    fn eval(&self, _: &geom_core::lie::So3, r: &nalgebra::Matrix3<S>, p: &SVector<S, 3>) -> S {
        (p[0] * p[0] + p[1] * p[1] / S::from(5.0) + p[2] * p[2] / S::from(6.0)) * S::from(0.5) + r[(2, 2)]
    }
}
struct Pendulum;
impl PhaseSpaceFunction<3> for Pendulum {
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
        p.norm_squared() * S::from(0.5) + q[2]
    }
}

#[test]
fn discretization_map_steps_on_groups_and_spheres_do_not_allocate() {
    use discretization::lie_function::LieAutoDiff;
    use discretization::{
        LieCotangentLiftIntegrator, LieGroupThetaMap, LieState, SphereCotangentLiftIntegrator, SphereThetaMap,
    };
    use geom_core::lie::{Chart, LieGroup, So3};
    let lie = LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Exp), LieAutoDiff(Top));
    let mut s = LieState::new(So3.exp(&SVector::from([0.3, -0.2, 0.1])), SVector::from([0.6, 1.5, 2.5]));
    assert_eq!(count(|| lie.step(&mut s, 0.01).unwrap()), 0, "T*SO(3) cotangent-lift step");
    let lp = discretization::LiePoissonIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Cayley), Body);
    let mut pi = SVector::from([0.6, 1.5, 2.5]);
    assert_eq!(count(|| lp.step(&mut pi, 0.05).unwrap()), 0, "Lie–Poisson step");
    let sphere = SphereCotangentLiftIntegrator::<_, _, 1, 3, 2>::new(SphereThetaMap::midpoint(), Pendulum);
    let mut x = PhaseState::new(SVector::from([0.6, 0.0, -0.8]), SVector::from([0.0, 1.0, 0.0]));
    assert_eq!(count(|| sphere.step(&mut x, 0.01).unwrap()), 0, "T*S² step");
}

/// The free body's `h(Π) = ½ Πᵀ I⁻¹ Π`.
struct Body;
impl geom_core::function::ScalarFunction<3> for Body {
    fn eval<S: Scalar>(&self, p: &SVector<S, 3>) -> S {
        (p[0] * p[0] + p[1] * p[1] / S::from(5.0) + p[2] * p[2] / S::from(6.0)) * S::from(0.5)
    }
}
