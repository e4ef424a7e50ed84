//! Hostile inputs to the algebroid of `SpherePair` (issue 31, item 6): the anchor and the
//! structure functions at a NaN or infinite coordinate, or one beyond the gnomonic chart's
//! numerical domain `|u| <= 1e8` (the point lost or overflowing at `1e17`, `1e300`), return a typed error instead of a silent NaN or a point off S².

use geom_core::GeomError;
use groupoid::SpherePair;
use groupoid::algebroid::LieAlgebroid;
use nalgebra::{Vector2, Vector3};

#[test]
fn anchor_and_structure_refuse_nan_infinite_and_overflowing_coordinates() {
    let x0 = Vector3::new(1.0, 2.0, 2.0) / 3.0;
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let u = Vector2::new(0.1, bad);
        let r = SpherePair.anchor::<f64>(&x0, &u);
        assert!(matches!(r, Err(GeomError::NonFinite { .. })), "u = {u:?}: {r:?}");
        let r = SpherePair.structure::<f64>(&x0, &u);
        assert!(matches!(r, Err(GeomError::NonFinite { .. })), "u = {u:?}: {r:?}");
    }
    let r = SpherePair.anchor::<f64>(&Vector3::new(f64::NAN, 0.0, 1.0), &Vector2::zeros());
    assert!(matches!(r, Err(GeomError::NonFinite { .. })), "{r:?}");
    // |u| = 1e300: |x0 + E u| overflows (the anchor was NaN before); 1e100 and 1e17: x0 is
    // lost in x0 + E u, the point falls on the chart's boundary x·x0 = 0 and the anchor divided
    // by zero; 1e9: beyond the documented domain |u| <= 1e8
    for big in [1e300, -1e300, 1e100, 1e17, 1e9] {
        let u = Vector2::new(big, 0.3);
        let r = SpherePair.anchor::<f64>(&x0, &u);
        assert!(matches!(r, Err(GeomError::OutsideDomain { .. })), "u = {u:?}: {r:?}");
    }
    for big in [1e300, 1e100] {
        let r = SpherePair.structure::<f64>(&x0, &Vector2::new(big, 0.3));
        assert!(matches!(r, Err(GeomError::OutsideDomain { .. })), "{big:e}: {r:?}");
    }
    // inside the domain the checks change nothing: ρ(0) = I, and at |u| = 1e8 every entry is
    // finite, ρ ~ |u|² ((x·x0)^{-2} = |x0 + E u|²)
    let rho0 = SpherePair.anchor::<f64>(&x0, &Vector2::zeros()).unwrap();
    assert!((rho0 - nalgebra::Matrix2::identity()).amax() < 1e-14, "{rho0}");
    let far = SpherePair.anchor::<f64>(&x0, &Vector2::new(1e8, -3e7)).unwrap();
    assert!(far.iter().all(|v| v.is_finite()) && far.amax() > 1e15, "{far}");
    assert!(SpherePair.structure::<f64>(&x0, &Vector2::new(1e8, 2.0)).is_ok());
}
