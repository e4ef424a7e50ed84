//! One `use CRATE::prelude::*;` per layer is enough to write a model and run an integrator of
//! that layer.

#[test]
fn the_integrators_prelude_runs_stormer_verlet() -> Result<(), Box<dyn std::error::Error>> {
    use integrators::prelude::*;
    use nalgebra::{SVector, Vector1};
    struct Oscillator;
    impl PhaseSpaceFunction<1> for Oscillator {
        fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
            (q[0] * q[0] + p[0] * p[0]) * S::from(0.5)
        }
    }
    let mut s = PhaseState::new(Vector1::new(1.0), Vector1::new(0.0));
    StormerVerlet::new(AutoDiff(Oscillator)).step_n(&mut s, 0.01, 100)?;
    assert!((s.q[0] - 1.0_f64.cos()).abs() < 1e-4);
    Ok(())
}

#[test]
fn the_discretization_prelude_runs_a_cotangent_lift() -> Result<(), Box<dyn std::error::Error>> {
    use discretization::prelude::*;
    use nalgebra::{SVector, Vector1};
    struct Oscillator;
    impl PhaseSpaceFunction<1> for Oscillator {
        fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
            (q[0] * q[0] + p[0] * p[0]) * S::from(0.5)
        }
    }
    let method = CotangentLiftIntegrator::new(ThetaMap::new(0.5)?, AutoDiff(Oscillator));
    let mut s = PhaseState::new(Vector1::new(1.0), Vector1::new(0.0));
    method.step_n(&mut s, 0.01, 100)?;
    // the midpoint rule keeps the quadratic energy
    assert!((s.q[0] * s.q[0] + s.p[0] * s.p[0] - 1.0).abs() < 1e-12);
    Ok(())
}

#[test]
fn the_groupoid_prelude_runs_rattle() -> Result<(), Box<dyn std::error::Error>> {
    use groupoid::prelude::*;
    use nalgebra::{SVector, Vector2};
    /// A particle on the unit circle, `L = ½|v|²`.
    struct Free;
    impl ContinuousLagrangian<2> for Free {
        fn eval<S: Scalar>(&self, _: &SVector<S, 2>, v: &SVector<S, 2>) -> S {
            v.norm_squared() * S::from(0.5)
        }
    }
    struct Circle;
    impl BaseConstraints<PairGroupoid<2>, 2, 1> for Circle {
        fn eval<S: Scalar>(&self, _: &PairGroupoid<2>, x: &SVector<S, 2>) -> SVector<S, 1> {
            SVector::from([x.norm_squared() - S::from(1.0)])
        }
    }
    let method = RattleIntegrator::<_, _, _, 2, 1, 3>::new(PairGroupoid::<2>, Stepped(Midpoint(Free)), Circle);
    let mut s = PhaseState::new(Vector2::new(1.0, 0.0), Vector2::new(0.0, 1.0));
    method.step_n(&mut s, 0.01, 100)?;
    // uniform motion on the circle: |q| = 1, |p| = 1, q·p = 0
    assert!((s.q.norm() - 1.0).abs() < 1e-14 && (s.p.norm() - 1.0).abs() < 1e-12 && s.q.dot(&s.p).abs() < 1e-14);
    Ok(())
}
