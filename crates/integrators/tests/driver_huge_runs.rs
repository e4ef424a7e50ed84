//! A step count whose record cannot fit in memory is a typed error, not an abort or a panic.

use discretization::{CotangentLiftIntegrator, PhaseState, ThetaMap};
use geom_core::Scalar;
use geom_core::function::{AutoDiff, PhaseSpaceFunction};
use integrators::driver::{Driver, DriverError, Energy, Observer};
use nalgebra::SVector;

struct Oscillator;
impl PhaseSpaceFunction<1> for Oscillator {
    fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
        (q[0] * q[0] + p[0] * p[0]) * S::from(0.5)
    }
}

#[test]
fn huge_step_counts_are_refused_before_integrating() {
    let method = CotangentLiftIntegrator::new(ThetaMap::<1>::midpoint(), AutoDiff(Oscillator));
    let driver = Driver::new(0.1).unwrap();
    let energy = Energy(AutoDiff(Oscillator));
    let observers: [&dyn Observer<PhaseState<1>>; 1] = [&energy];
    let s0 = PhaseState::new(SVector::from([1.0]), SVector::from([0.0]));
    for steps in [usize::MAX, 1usize << 60] {
        let err = driver.run(&method, s0, steps, &observers).unwrap_err();
        assert!(
            matches!(err, DriverError::Geom(geom_core::GeomError::InvalidParameter { what: "steps", .. })),
            "{err}"
        );
        assert!(err.to_string().contains("do not fit in memory"), "{err}");
    }
}
