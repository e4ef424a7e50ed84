//! Hostile inputs (issue 31, item 6): NaN, ∞ and huge arguments to the retractions and the
//! discretization maps built on them. Every function that returns a `Result` returns a typed
//! error (or a correct value: a point of `S²` for a huge but finite tangent vector), never a
//! silent NaN or a point off its manifold. (The SO(3) maps themselves are not checked yet: the
//! checks measured 15–25% on the groupoid DEL flow and the Lie-group midpoint map.)

use discretization::DiscretizationMap;
use discretization::retraction::{
    EuclideanRetraction, LieGroupRetraction, Retraction, RetractionMap, SphereExponential, SphereNormalization,
};
use discretization::sphere::SphereThetaMap;
use geom_core::GeomError;
use geom_core::lie::{Chart, So3};
use nalgebra::{Matrix3, SVector, Vector3};

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;

/// A value of `S²`: finite and of unit norm to round-off.
fn on_sphere(y: &Vector3<f64>) -> bool {
    y.iter().all(|c| c.is_finite()) && (y.norm() - 1.0).abs() <= 1e-15
}

fn non_finite<T: std::fmt::Debug>(r: Result<T, GeomError>) -> bool {
    matches!(r, Err(GeomError::NonFinite { .. }))
}

#[test]
fn sphere_retractions_give_points_of_the_sphere_or_errors() {
    let x = Vector3::z();
    for big in [1e300, 1e200, 1e154, -1e300] {
        let v = Vector3::new(big, 0.0, 0.0);
        let n = SphereNormalization.retract(&x, &v).unwrap();
        assert!(on_sphere(&n), "normalization of {big}: {n:?}");
        assert!((n - Vector3::new(big.signum(), 0.0, 0.0)).norm() <= 1e-15, "{n:?}");
        let e = SphereExponential.retract(&x, &v).unwrap();
        assert!(on_sphere(&e), "exponential of {big}: {e:?}");
    }
    for bad in [NAN, INF, -INF] {
        let v = Vector3::new(bad, 0.0, 0.0);
        assert!(non_finite(SphereNormalization.retract(&x, &v)), "{bad}");
        assert!(non_finite(SphereExponential.retract(&x, &v)), "{bad}");
        let theta = SphereThetaMap::midpoint();
        assert!(non_finite(theta.apply(&x, &v)), "{bad}");
    }
    // a base point that is NaN
    assert!(non_finite(SphereNormalization.retract(&Vector3::new(NAN, 0.0, 1.0), &Vector3::zeros())));
}

#[test]
fn retraction_maps_refuse_a_non_finite_velocity() {
    for bad in [NAN, INF] {
        let v = SVector::<f64, 2>::new(bad, 1.0);
        let euclid = RetractionMap::midpoint(EuclideanRetraction::<2>);
        assert!(non_finite(euclid.apply(&SVector::zeros(), &v)), "{bad}");
        assert!(non_finite(EuclideanRetraction::<2>.retract(&SVector::zeros(), &v)), "{bad}");
        assert!(non_finite(EuclideanRetraction::<2>.inverse_retract(&SVector::zeros(), &v)), "{bad}");
        let w = Vector3::new(bad, 0.0, 0.0);
        let sphere = RetractionMap::midpoint(SphereNormalization);
        assert!(non_finite(sphere.apply(&Vector3::z(), &w)), "{bad}");
        let lie = RetractionMap::midpoint(LieGroupRetraction::<_, 3>::new(So3, Chart::Cayley));
        assert!(non_finite(lie.apply(&Matrix3::identity(), &w)), "{bad}");
    }
    // overflow of a finite sum is an error too
    let big = SVector::<f64, 2>::new(f64::MAX, 0.0);
    assert!(non_finite(EuclideanRetraction::<2>.retract(&big, &big)));
}
