//! Hostile inputs (issue 31, item 6): NaN, ∞ and huge arguments to the retractions, the
//! discretization maps built on them and the SO(3) maps they call. Every function that returns
//! a `Result` returns a typed error (or a correct value: a point of `S²` for a huge but finite
//! tangent vector), never a silent NaN or a point off its manifold.

use discretization::DiscretizationMap;
use discretization::retraction::{
    EuclideanRetraction, LieGroupRetraction, Retraction, RetractionMap, SphereExponential, SphereNormalization,
};
use discretization::sphere::SphereThetaMap;
use geom_core::GeomError;
use geom_core::lie::{Chart, LieGroup, So3};
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

fn typed_error<T: std::fmt::Debug>(r: &Result<T, GeomError>) -> bool {
    matches!(r, Err(GeomError::NonFinite { .. } | GeomError::OutsideDomain { .. } | GeomError::OffManifold { .. }))
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
    // a huge but finite Lie-algebra velocity: |x|² overflows, an error, not a NaN matrix
    let lie = LieGroupRetraction::<_, 3>::new(So3, Chart::Exp);
    let r = lie.retract(&Matrix3::identity(), &Vector3::new(1e300, 0.0, 0.0));
    assert!(matches!(r, Err(GeomError::OutsideDomain { .. })), "{r:?}");
}

#[test]
fn so3_maps_refuse_nan_and_overflowing_arguments() {
    let g = So3;
    for x in [Vector3::new(NAN, 0.0, 0.0), Vector3::new(0.0, INF, 0.0), Vector3::new(1e300, 0.0, 0.0)] {
        for chart in [Chart::Exp, Chart::Cayley] {
            let t = LieGroup::<f64, 3>::tau(&g, chart, &x);
            assert!(typed_error(&t), "tau({chart:?}, {x:?}) = {t:?}");
            let c = LieGroup::<f64, 3>::compose_tau(&g, chart, &Matrix3::identity(), &x);
            assert!(typed_error(&c), "compose_tau({chart:?}, {x:?}) = {c:?}");
        }
        let c = LieGroup::<f64, 3>::cayley(&g, &x);
        assert!(typed_error(&c), "cayley({x:?}) = {c:?}");
        let d = LieGroup::<f64, 3>::dcay(&g, &x);
        assert!(typed_error(&d), "dcay({x:?}) = {d:?}");
        let d = LieGroup::<f64, 3>::dexp_inv(&g, &x);
        assert!(typed_error(&d), "dexp_inv({x:?}) = {d:?}");
        // the error says which: NaN is NonFinite, an infinite |x|² (∞ or overflow) OutsideDomain
        let nan = x.iter().any(|v| v.is_nan());
        assert_eq!(matches!(c, Err(GeomError::NonFinite { .. })), nan, "{c:?}");
    }
    // a large finite argument whose |x|² does not overflow stays a rotation
    let r = LieGroup::<f64, 3>::cayley(&g, &Vector3::new(1e150, 1.0, 0.0)).unwrap();
    assert!(So3::from_matrix(r).is_ok(), "{r}");
    // log and the inverse Cayley map of a NaN, infinite or huge matrix
    let mut nan = Matrix3::identity();
    nan[(1, 2)] = NAN;
    let mut huge = Matrix3::identity();
    huge[(0, 1)] = 1e300;
    huge[(1, 0)] = 1e300; // symmetric: vee = 0, the unchecked log returns the zero vector
    let inf = Matrix3::identity() * INF;
    for m in [nan, huge, inf, Matrix3::from_element(1e300)] {
        let l = LieGroup::<f64, 3>::log(&g, &m);
        assert!(typed_error(&l), "log({m}) = {l:?}");
        let c = LieGroup::<f64, 3>::cayley_inv(&g, &m);
        assert!(typed_error(&c), "cayley_inv({m}) = {c:?}");
        let c = LieGroup::<f64, 3>::tau_inv(&g, Chart::Exp, &m);
        assert!(typed_error(&c), "tau_inv({m}) = {c:?}");
    }
    // the checks do not refuse a rotation by almost π
    let near_pi = So3.exp(&Vector3::new(0.0, 0.0, std::f64::consts::PI - 1e-3));
    let l = LieGroup::<f64, 3>::log(&g, &near_pi).unwrap();
    assert!((l[2] - (std::f64::consts::PI - 1e-3)).abs() < 1e-12, "{l}");
}
