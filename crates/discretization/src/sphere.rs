//! The θ-discretization map on the sphere `S^2 ⊂ R^3` (docs/math.md §A.4):
//!
//! ```text
//!   R_d(x, v) = ( N(x - θv), N(x + (1-θ)v) ),   N(y) = y/|y|,   v ∈ T_xS^2 = x^⊥,
//! ```
//! built from the normalization retraction `R_x(v) = N(x + v)` of Absil–Mahony–Sepulchre. At
//! `v = 0` it gives `(x, x)`; `T_0 N(x ± c v) = ±c P_x` with `P_x = I - x xᵀ`, so
//! `T R^2 - T R^1 = P_x = Id` on `T_xS^2` (§A.4). `N(R y) = R N(y)` makes it SO(3)-equivariant
//! (symmetry preserving for [`geom_core::action::SphereRotation`]); its adjoint is the
//! `(1-θ)`-map; `θ = 1/2` is self-adjoint. The same map on every factor of `(S^2)^K`, as an
//! ambient [`crate::MapModel`], drives the integrator [`crate::SphereCotangentLiftIntegrator`] on
//! `T*(S^2)^K` ([`crate::sphere_lift`], docs/math.md §B.5).
//!
//! **Inverse, in closed form [derived here].** The points `a = x - θv` and `b = x + (1-θ)v` lie
//! on the tangent plane `{y : x·y = 1}`, on the line through `x` with direction `v`, so `x` lies
//! on the great circle through `q_0 = N(a)` and `q_1 = N(b)`. With `ω` the angle between `q_0`
//! and `q_1` and `φ` the angle from `q_0` to `x` along that circle, `|a - x| = θ|v| = tan φ` and
//! `|b - x| = (1-θ)|v| = tan(ω - φ)`; `(1-θ) tan φ = θ tan(ω - φ)` is equivalent to
//! `sin(2φ - ω) = (2θ - 1) sin ω`, whose admissible root (`φ < π/2`, `ω - φ < π/2`) is
//! ```text
//!   φ = (ω + asin((2θ - 1) sin ω)) / 2,    x = cos φ q_0 + sin φ e,    v = q_1/(x·q_1) - q_0/(x·q_0),
//! ```
//! with `e` the unit vector of the plane of `q_0, q_1` orthogonal to `q_0` towards `q_1`. Every
//! pair with `q_0 ≠ -q_1` is in the image; antipodal pairs are [`GeomError::OutsideDomain`].
//!
//! Input validation uses [`SPHERE_TOLERANCE`]: points need `||x| - 1| <= 1e-9`, tangent vectors
//! `|x·v| <= 1e-9 max(1, |v|)`; otherwise [`GeomError::OffManifold`] (or
//! [`GeomError::NonFinite`]).

use crate::map::DiscretizationMap;
use geom_core::GeomError;
use nalgebra::Vector3;

/// Tolerance of the sphere checks: `||x| - 1| <= 1e-9` for points, `|x·v| <= 1e-9 max(1, |v|)` for
/// tangent vectors.
pub const SPHERE_TOLERANCE: f64 = 1e-9;

/// `Ok(())` if `x` is finite and `||x| - 1| <= SPHERE_TOLERANCE`.
pub(crate) fn check_sphere_point(x: &Vector3<f64>) -> Result<(), GeomError> {
    if !x.iter().all(|v| v.is_finite()) {
        return Err(GeomError::NonFinite { what: "S^2 point" });
    }
    let defect = (x.norm() - 1.0).abs();
    if defect <= SPHERE_TOLERANCE {
        Ok(())
    } else {
        Err(GeomError::OffManifold { what: "S^2 point", defect, tolerance: SPHERE_TOLERANCE })
    }
}

/// `|v|` without overflow: `|v|` where `|v|²` is finite, else `m |v/m|` with `m = max_i |v_i|`
/// (`|v|²` overflows for `|v| ≳ 1e154`).
pub(crate) fn scaled_norm(v: &Vector3<f64>) -> f64 {
    let n = v.norm();
    let m = v.amax();
    if n.is_finite() || !m.is_finite() { n } else { m * (v / m).norm() }
}

/// `w/|w|` computed as `(w/m)/|w/m|` (no overflow for huge `w`); [`GeomError::NonFinite`] for a
/// non-finite `w`, [`GeomError::OutsideDomain`] for `w = 0`, and never a point off `S²`.
pub(crate) fn normalized(w: &Vector3<f64>) -> Result<Vector3<f64>, GeomError> {
    let n = w.norm();
    if n.is_finite() && n > 0.0 {
        return Ok(w / n);
    }
    let m = w.amax();
    if !m.is_finite() {
        return Err(GeomError::NonFinite { what: "S^2 normalization" });
    }
    if m == 0.0 {
        return Err(GeomError::OutsideDomain { map: "S^2 normalization", reason: "the vector to normalize is zero" });
    }
    let u = w / m;
    Ok(u / u.norm())
}

/// `Ok(())` if `x` is on the sphere and `v` is finite with `|x·v| <= SPHERE_TOLERANCE max(1, |v|)`.
pub(crate) fn check_sphere_tangent(x: &Vector3<f64>, v: &Vector3<f64>) -> Result<(), GeomError> {
    check_sphere_point(x)?;
    if !v.iter().all(|c| c.is_finite()) {
        return Err(GeomError::NonFinite { what: "S^2 tangent vector" });
    }
    let defect = x.dot(v).abs();
    let tolerance = SPHERE_TOLERANCE * scaled_norm(v).max(1.0);
    if defect <= tolerance {
        Ok(())
    } else {
        Err(GeomError::OffManifold { what: "S^2 tangent vector", defect, tolerance })
    }
}

/// The θ-map `(N(x - θv), N(x + (1-θ)v))` on `S^2` (module documentation), with ambient points
/// and tangent vectors `v ⊥ x`, and chordal distance `|a - b|`.
///
/// ```
/// use discretization::sphere::SphereThetaMap;
/// use discretization::DiscretizationMap;
/// use nalgebra::Vector3;
/// let map = SphereThetaMap::midpoint();
/// let (x, v) = (Vector3::z(), Vector3::new(0.4, -0.2, 0.0));
/// let (q0, q1) = map.apply(&x, &v)?;
/// assert!((q0.norm() - 1.0).abs() < 1e-15 && (q1.norm() - 1.0).abs() < 1e-15);
/// let (xi, vi) = map.inverse(&q0, &q1)?;
/// assert!((xi - x).norm() < 1e-15 && (vi - v).norm() < 1e-14);
/// assert!(map.apply(&x, &Vector3::z()).is_err()); // not tangent
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SphereThetaMap {
    theta: f64,
}

impl SphereThetaMap {
    /// The θ-map; [`GeomError::InvalidParameter`] unless `θ ∈ [0, 1]`.
    pub fn new(theta: f64) -> Result<Self, GeomError> {
        if (0.0..=1.0).contains(&theta) {
            Ok(Self { theta })
        } else {
            Err(GeomError::InvalidParameter { what: "theta", reason: format!("must lie in [0, 1], got {theta}") })
        }
    }
    /// The midpoint map `(N(x - v/2), N(x + v/2))` (docs/math.md §A.4).
    pub fn midpoint() -> Self {
        Self { theta: 0.5 }
    }
    /// θ.
    pub fn value(&self) -> f64 {
        self.theta
    }
    /// The adjoint map `R_d^* = I_Q ∘ R_d ∘ (-1)`: the `(1-θ)`-map (docs/math.md §A.5).
    pub fn adjoint(&self) -> Self {
        Self { theta: 1.0 - self.theta }
    }
}

impl DiscretizationMap for SphereThetaMap {
    type Point = Vector3<f64>;
    type Tangent = Vector3<f64>;
    fn name(&self) -> String {
        format!("S^2 normalization theta-map (theta = {})", self.theta)
    }
    /// `(N(x - θv), N(x + (1-θ)v))`; errors unless `x ∈ S^2` and `v ⊥ x` within
    /// [`SPHERE_TOLERANCE`]. (`|x + c v|² = 1 + c²|v|² > 0`, so `N` is always defined.)
    fn apply(&self, x: &Vector3<f64>, v: &Vector3<f64>) -> Result<(Vector3<f64>, Vector3<f64>), GeomError> {
        check_sphere_tangent(x, v)?;
        Ok((normalized(&(x - v * self.theta))?, normalized(&(x + v * (1.0 - self.theta)))?))
    }
    /// The closed form of the module documentation; errors unless both points are on `S^2`
    /// within [`SPHERE_TOLERANCE`], [`GeomError::OutsideDomain`] for antipodal points.
    fn inverse(&self, q0: &Vector3<f64>, q1: &Vector3<f64>) -> Result<(Vector3<f64>, Vector3<f64>), GeomError> {
        check_sphere_point(q0)?;
        check_sphere_point(q1)?;
        let (q0, q1) = (q0.normalize(), q1.normalize());
        let c = q0.dot(&q1);
        let s = q0.cross(&q1).norm();
        if s == 0.0 {
            return if c > 0.0 {
                Ok((q0, Vector3::zeros()))
            } else {
                Err(GeomError::OutsideDomain { map: "S^2 theta-map inverse", reason: "antipodal points" })
            };
        }
        if c < 0.0 && s < 1e-12 {
            return Err(GeomError::OutsideDomain { map: "S^2 theta-map inverse", reason: "antipodal points" });
        }
        let omega = s.atan2(c);
        let phi = 0.5 * (omega + ((2.0 * self.theta - 1.0) * s).clamp(-1.0, 1.0).asin());
        let e = (q1 - q0 * c) / s;
        let x = (q0 * phi.cos() + e.normalize() * phi.sin()).normalize();
        let v = q1 / x.dot(&q1) - q0 / x.dot(&q0);
        // remove the rounding component along x (v ⊥ x exactly in exact arithmetic)
        let v = v - x * x.dot(&v);
        if x.iter().chain(v.iter()).all(|c| c.is_finite()) {
            Ok((x, v))
        } else {
            Err(GeomError::NonFinite { what: "S^2 theta-map inverse" })
        }
    }
    fn distance(&self, a: &Vector3<f64>, b: &Vector3<f64>) -> f64 {
        (a - b).norm()
    }
    fn is_symmetric(&self) -> bool {
        self.theta == 0.5
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autodiff_map::AdjointMap;
    use crate::checks::{AmbientChart, check_discretization_map, check_symmetry_preservation, sample_algebra};
    use geom_core::action::SphereRotation;
    use geom_core::lie::{LieGroup, So3};

    /// Points of `S^2` and tangent vectors of size up to `scale`.
    fn sphere_samples(n: usize, scale: f64, seed: u64) -> Vec<(Vector3<f64>, Vector3<f64>)> {
        let xs = sample_algebra::<3>(n, 1.0, seed);
        let vs = sample_algebra::<3>(n, scale, seed + 100);
        xs.into_iter()
            .zip(vs)
            .map(|(x, v)| {
                let x = (x + Vector3::new(0.0, 0.0, 0.1)).normalize();
                (x, v - x * x.dot(&v))
            })
            .collect()
    }

    #[test]
    fn defining_properties_and_equivariance() {
        let samples = sphere_samples(8, 1.0, 1);
        let rotations: Vec<_> = sample_algebra::<3>(4, 3.0, 2).iter().map(|w| So3.exp(w)).collect();
        for theta in [0.0, 0.3, 0.5, 1.0] {
            let map = SphereThetaMap::new(theta).unwrap();
            let r = check_discretization_map(&map, &AmbientChart, &samples).unwrap();
            assert!(r.zero_defect < 1e-15, "{r:?}");
            assert!(r.derivative_defect < 1e-9, "theta = {theta}: {r:?}");
            r.require(1e-8).unwrap();
            let s = check_symmetry_preservation(&map, &SphereRotation, &rotations, &samples).unwrap();
            assert!(s.max_defect < 1e-14, "theta = {theta}: {s:?}");
        }
    }

    #[test]
    fn inverse_after_apply_is_identity() {
        for theta in [0.0, 0.3, 0.5, 0.8, 1.0] {
            let map = SphereThetaMap::new(theta).unwrap();
            for scale in [1e-9, 1e-3, 0.5, 2.0, 20.0] {
                for (x, v) in sphere_samples(10, scale, 3) {
                    let (q0, q1) = map.apply(&x, &v).unwrap();
                    let (xi, vi) = map.inverse(&q0, &q1).unwrap();
                    let tol = 1e-14 * (1.0 + v.norm()).powi(3);
                    assert!((xi - x).norm() < tol, "theta = {theta}, |v| = {}: x {:e}", v.norm(), (xi - x).norm());
                    assert!((vi - v).norm() < tol, "theta = {theta}, |v| = {}: v {:e}", v.norm(), (vi - v).norm());
                }
            }
        }
        let map = SphereThetaMap::midpoint();
        assert_eq!(map.inverse(&Vector3::z(), &Vector3::z()).unwrap(), (Vector3::z(), Vector3::zeros()));
        assert!(matches!(map.inverse(&Vector3::z(), &-Vector3::z()), Err(GeomError::OutsideDomain { .. })));
        assert!(matches!(map.inverse(&(Vector3::z() * 1.1), &Vector3::x()), Err(GeomError::OffManifold { .. })));
    }

    #[test]
    fn adjoint_is_one_minus_theta_and_input_is_validated() {
        let map = SphereThetaMap::new(0.3).unwrap();
        for (x, v) in sphere_samples(5, 1.0, 4) {
            let a = AdjointMap(map).apply(&x, &v).unwrap();
            let b = map.adjoint().apply(&x, &v).unwrap();
            assert!((a.0 - b.0).norm() < 1e-15 && (a.1 - b.1).norm() < 1e-15);
        }
        assert!(SphereThetaMap::midpoint().is_symmetric() && !map.is_symmetric());
        assert!(SphereThetaMap::new(-0.1).is_err());
        let x = Vector3::z();
        assert!(matches!(map.apply(&x, &Vector3::new(0.0, 1.0, 1e-3)), Err(GeomError::OffManifold { .. })));
        assert!(map.apply(&x, &Vector3::new(0.0, 1.0, 1e-10)).is_ok());
        assert!(matches!(map.apply(&(x * 2.0), &Vector3::x()), Err(GeomError::OffManifold { .. })));
        assert!(matches!(map.apply(&x, &Vector3::new(f64::NAN, 0.0, 0.0)), Err(GeomError::NonFinite { .. })));
    }
}
