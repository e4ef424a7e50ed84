//! SU(2) as the unit quaternions S³, elements `q = (w, v)` stored as `Vector4` `(w, x, y, z)`.
//!
//! Algebra coordinates `x ∈ R^3` are those of so(3): `x` stands for the pure quaternion
//! `u = x/2`, so that the bracket is `[x, y] = x × y` (the quaternion commutator
//! `[u1, u2] = 2 u1 × u2`), `ad_x = x̂`, and SU(2) → SO(3) is the identity on the algebra
//! (`to_rotation(exp_SU(2)(x)) = exp_SO(3)(x)`; the double cover).
//!
//! * Faithful representation: `to_matrix(q) = L(q)`, the `4 × 4` matrix of left multiplication
//!   `p ↦ q p`; `hat(x) = L((0, x/2))`, `vee` its inverse.
//! * `exp(x) = (cos(θ/2), (sin(θ/2)/θ) x)`, `θ = |x|`; `log(w, v) = 2 atan2(|v|, w) v/|v|`, the
//!   inverse of `exp` on `{|x| < 2π}` (no sign flip of `w`: `q` and `-q` have different logs);
//!   error at `q = -1`.
//! * `Ad_q = R(q) = (w^2 - |v|^2) I + 2 v vᵀ + 2 w v̂` (the rotation matrix of `q`), `ad_x = x̂`,
//!   and `dexp`, `dexp^{-1}` are those of SO(3) (`super::so3::dexp`, `super::so3::dexp_inv`).
//! * Cayley, with `u = x/2` and `n = |u|^2/4 = |x|^2/16`:
//!   `cay(x) = (1 + u/2)(1 - u/2)^{-1} = (1 - n, u)/(1 + n)`, `cay^{-1}(w, v) = 4 v/(1 + w)`
//!   (error at `q = -1`), `dcay_x^{-1} = (1 - n) I - x̂/2 + x xᵀ/8` (coordinates of
//!   `Y ↦ Y - [X, Y]/2 - X Y X/4`, using `u w u = |u|^2 w - 2 (u·w) u` for pure quaternions), and
//!   `dcay_x = ((1 - n) I + x̂/2 + x xᵀ/8)/(1 + n)^2`. Unlike `exp`, Cayley does not commute with
//!   the double cover: `R(cay_SU(2)(x))` is the rotation by `4 atan(|x|/4)`, not `cay_SO(3)(x)`.

use super::series::inv_factorial;
use super::so3;
use super::{LieGroup, MEMBERSHIP_TOLERANCE};
use crate::{GeomError, Result, Scalar, scalar::series};
use nalgebra::{Matrix3, Matrix4, Vector3, Vector4};

/// Below this `θ^2` the coefficient functions use their Taylor series.
const SERIES_T: f64 = 0.25;

/// `(-1)^k / (2k + offset)!` for `k = 0..K`.
const fn alternating<const K: usize>(offset: usize) -> [f64; K] {
    let mut out = [0.0; K];
    let mut k = 0;
    while k < K {
        let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
        out[k] = sign * inv_factorial(2 * k + offset);
        k += 1;
    }
    out
}
/// `cos h` as a series in `h^2`.
const COS: [f64; 9] = alternating::<9>(0);
/// `sin h / h` as a series in `h^2`.
const SIN_OVER: [f64; 9] = alternating::<9>(1);
/// `atan(s)/s` as a series in `s^2`.
const ATAN_OVER: [f64; 14] = {
    let mut out = [0.0; 14];
    let mut k = 0;
    while k < 14 {
        let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
        out[k] = sign / (2 * k + 1) as f64;
        k += 1;
    }
    out
};

/// The vector part `v` of `q = (w, v)`.
#[inline]
pub fn vector_part<S: Scalar>(q: &Vector4<S>) -> Vector3<S> {
    Vector3::new(q[1], q[2], q[3])
}

/// `(w, v)` as a `Vector4`.
#[inline]
pub fn from_parts<S: Scalar>(w: S, v: &Vector3<S>) -> Vector4<S> {
    Vector4::new(w, v[0], v[1], v[2])
}

/// The quaternion product `(w1, v1)(w2, v2) = (w1 w2 - v1·v2, w1 v2 + w2 v1 + v1 × v2)`.
#[inline]
pub fn multiply<S: Scalar>(a: &Vector4<S>, b: &Vector4<S>) -> Vector4<S> {
    let (va, vb) = (vector_part(a), vector_part(b));
    from_parts(a[0] * b[0] - va.dot(&vb), &(vb * a[0] + va * b[0] + va.cross(&vb)))
}

/// The conjugate `(w, -v)` (the inverse of a unit quaternion).
#[inline]
pub fn conjugate<S: Scalar>(q: &Vector4<S>) -> Vector4<S> {
    Vector4::new(q[0], -q[1], -q[2], -q[3])
}

/// `L(q)`, the matrix of left multiplication `p ↦ q p`:
/// `[[w, -x, -y, -z], [x, w, -z, y], [y, z, w, -x], [z, -y, x, w]]`.
#[inline]
pub fn left_matrix<S: Scalar>(q: &Vector4<S>) -> Matrix4<S> {
    let (w, x, y, z) = (q[0], q[1], q[2], q[3]);
    Matrix4::new(w, -x, -y, -z, x, w, -z, y, y, z, w, -x, z, -y, x, w)
}

/// The rotation matrix `R(q) = (w^2 - |v|^2) I + 2 v vᵀ + 2 w v̂` of a unit quaternion
/// (`R(q) y` is the vector part of `q (0, y) q^{-1}`).
#[inline]
pub fn rotation<S: Scalar>(q: &Vector4<S>) -> Matrix3<S> {
    let w = q[0];
    let v = vector_part(q);
    let two = S::from(2.0);
    Matrix3::identity() * (w * w - v.norm_squared()) + v * v.transpose() * two + so3::hat(&v) * (w * two)
}

/// The rotation matrix of a quaternion `q = (w, v)` of any nonzero norm, `R(q/|q|)`:
/// `I + (2/|q|²)(w v̂ + v vᵀ − |v|² I)`, entry by entry (no normalisation of `q` first, no
/// `w² + |v|²` that a unit `q` would round). At `|q| = 1` it is [`rotation`].
#[inline]
pub fn rotation_unnormalized<S: Scalar>(q: &Vector4<S>) -> Matrix3<S> {
    let (w, x, y, z) = (q[0], q[1], q[2], q[3]);
    let k = S::from(2.0) / (w * w + x * x + y * y + z * z);
    let one = S::one();
    Matrix3::new(
        one - k * (y * y + z * z),
        k * (x * y - w * z),
        k * (x * z + w * y),
        k * (x * y + w * z),
        one - k * (x * x + z * z),
        k * (y * z - w * x),
        k * (x * z - w * y),
        k * (y * z + w * x),
        one - k * (x * x + y * y),
    )
}

/// `exp(x) = (cos(θ/2), (sin(θ/2)/θ) x)`, `θ = |x|` (series in `θ^2` for `θ < 1/2`).
#[inline]
pub fn exp<S: Scalar>(x: &Vector3<S>) -> Vector4<S> {
    let t = x.norm_squared();
    let (c, s_over) = if t.re() < SERIES_T {
        let h2 = t * S::from(0.25);
        (series(h2, &COS), series(h2, &SIN_OVER) * S::from(0.5))
    } else {
        let theta = t.sqrt();
        let h = theta * S::from(0.5);
        (h.cos(), h.sin() / theta)
    };
    from_parts(c, &(x * s_over))
}

/// `log(w, v) = 2 atan2(|v|, w) v/|v|` (`|log q| < 2π`, series in `|v|^2/w^2` near the identity);
/// error at `q = -1` (`w < 0`, `|v| <= 1e-9`), where every `|x| = 2π` is a logarithm.
#[inline]
pub fn log<S: Scalar>(q: &Vector4<S>) -> Result<Vector3<S>> {
    let w = q[0];
    let v = vector_part(q);
    let n2 = v.norm_squared();
    let factor = if w.re() > 0.0 && n2.re() < 0.01 * w.re() * w.re() {
        // 2 atan(s)/s / w with s = |v|/w
        series(n2 / (w * w), &ATAN_OVER) * S::from(2.0) / w
    } else {
        if n2.re().is_nan() || n2.re() <= MEMBERSHIP_TOLERANCE * MEMBERSHIP_TOLERANCE {
            return Err(GeomError::OutsideDomain {
                map: "log on SU(2)",
                reason: "q = -1 (or not finite): the logarithm is not unique",
            });
        }
        let n = n2.sqrt();
        n.atan2(w) * S::from(2.0) / n
    };
    Ok(v * factor)
}

/// `cay(x) = (1 - n, x/2)/(1 + n)`, `n = |x|^2/16`.
#[inline]
pub fn cayley<S: Scalar>(x: &Vector3<S>) -> Vector4<S> {
    let n = x.norm_squared() / S::from(16.0);
    let den = S::from(1.0) + n;
    from_parts((S::from(1.0) - n) / den, &(x * S::from(0.5) / den))
}

/// `cay^{-1}(w, v) = 4 v/(1 + w)`; error at `q = -1`.
#[inline]
pub fn cayley_inv<S: Scalar>(q: &Vector4<S>) -> Result<Vector3<S>> {
    let den = S::from(1.0) + q[0];
    if den.re().is_nan() || den.re() < 1e-12 {
        return Err(GeomError::OutsideDomain { map: "inverse Cayley on SU(2)", reason: "q = -1" });
    }
    Ok(vector_part(q) * S::from(4.0) / den)
}

/// `dcay_x^{-1} = (1 - |x|^2/16) I - x̂/2 + x xᵀ/8`.
#[inline]
pub fn dcay_inv<S: Scalar>(x: &Vector3<S>) -> Matrix3<S> {
    let n = x.norm_squared() / S::from(16.0);
    Matrix3::identity() * (S::from(1.0) - n) - so3::hat(x) * S::from(0.5) + x * x.transpose() * S::from(0.125)
}

/// `dcay_x = ((1 - n) I + x̂/2 + x xᵀ/8)/(1 + n)^2`, `n = |x|^2/16`.
#[inline]
pub fn dcay<S: Scalar>(x: &Vector3<S>) -> Matrix3<S> {
    let n = x.norm_squared() / S::from(16.0);
    let den = S::from(1.0) + n;
    (Matrix3::identity() * (S::from(1.0) - n) + so3::hat(x) * S::from(0.5) + x * x.transpose() * S::from(0.125))
        / (den * den)
}

/// `| |q| - 1 |` on the real part; `+inf` if an entry is not finite.
pub fn defect<S: Scalar>(q: &Vector4<S>) -> f64 {
    let m = q.map(|v| v.re());
    if !m.iter().all(|v| v.is_finite()) {
        return f64::INFINITY;
    }
    (m.norm() - 1.0).abs()
}

/// SU(2) as unit quaternions `Vector4` `(w, x, y, z)`, the double cover of SO(3) (see the module
/// documentation).
///
/// ```
/// use geom_core::lie::{LieGroup, Su2};
/// use nalgebra::{Vector3, Vector4};
/// let x = Vector3::new(0.3, -1.2, 0.5);
/// let q = LieGroup::<f64, 3>::exp(&Su2, &x);
/// assert!(Su2::from_quaternion(q).is_ok());
/// assert!(Su2::from_quaternion(Vector4::new(2.0, 0.0, 0.0, 0.0)).is_err());
/// // the double cover: q and -q give the same rotation, exp agrees with SO(3)
/// assert!((Su2::to_rotation(&q) - geom_core::lie::so3::exp(&x)).norm() < 1e-14);
/// assert!((Su2::to_rotation(&(-q)) - Su2::to_rotation(&q)).norm() < 1e-14);
/// assert!((LieGroup::<f64, 3>::log(&Su2, &q).unwrap() - x).norm() < 1e-14);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Su2;

impl Su2 {
    /// A checked unit quaternion `(w, x, y, z)`: finite, `| |q| - 1 | <= 1e-9`.
    pub fn from_quaternion(q: Vector4<f64>) -> Result<Vector4<f64>> {
        LieGroup::<f64, 3>::check_element(&Su2, &q, MEMBERSHIP_TOLERANCE)?;
        Ok(q)
    }
    /// The rotation matrix `R(q) = (w^2 - |v|^2) I + 2 v vᵀ + 2 w v̂` (the covering map
    /// SU(2) → SO(3), `R(exp_SU(2) x) = exp_SO(3) x`).
    pub fn to_rotation<S: Scalar>(q: &Vector4<S>) -> Matrix3<S> {
        rotation(q)
    }
    /// The unit quaternion with `w >= 0` of a rotation matrix (one of its two preimages), by
    /// Shepperd's method.
    pub fn from_rotation<S: Scalar>(r: &Matrix3<S>) -> Vector4<S> {
        so3::to_quaternion(r)
    }
}

impl<S: Scalar> LieGroup<S, 3> for Su2 {
    type Element = Vector4<S>;
    type Matrix = Matrix4<S>;

    fn name(&self) -> String {
        "SU(2)".into()
    }
    fn identity(&self) -> Vector4<S> {
        Vector4::new(S::from(1.0), S::from(0.0), S::from(0.0), S::from(0.0))
    }
    /// The quaternion product.
    fn compose(&self, a: &Vector4<S>, b: &Vector4<S>) -> Vector4<S> {
        multiply(a, b)
    }
    /// The conjugate (elements are unit quaternions).
    fn inverse(&self, a: &Vector4<S>) -> Vector4<S> {
        conjugate(a)
    }
    fn exp(&self, x: &Vector3<S>) -> Vector4<S> {
        exp(x)
    }
    fn log(&self, g: &Vector4<S>) -> Result<Vector3<S>> {
        log(g)
    }
    /// `L((0, x/2))`.
    fn hat(&self, x: &Vector3<S>) -> Matrix4<S> {
        left_matrix(&from_parts(S::from(0.0), &(x * S::from(0.5))))
    }
    /// `2 u` where `u` is the (averaged) pure-quaternion part of `M ≈ L((0, u))`.
    fn vee(&self, m: &Matrix4<S>) -> Vector3<S> {
        let h = S::from(0.5);
        Vector3::new(
            m[(1, 0)] - m[(0, 1)] + m[(3, 2)] - m[(2, 3)],
            m[(2, 0)] - m[(0, 2)] + m[(1, 3)] - m[(3, 1)],
            m[(3, 0)] - m[(0, 3)] + m[(2, 1)] - m[(1, 2)],
        ) * h
    }
    /// `L(q)`.
    fn to_matrix(&self, g: &Vector4<S>) -> Matrix4<S> {
        left_matrix(g)
    }
    /// `Ad_q = R(q)`.
    fn adjoint(&self, g: &Vector4<S>) -> Matrix3<S> {
        rotation(g)
    }
    /// `ad_x = x̂`.
    fn ad(&self, x: &Vector3<S>) -> Matrix3<S> {
        so3::hat(x)
    }
    fn bracket(&self, x: &Vector3<S>, y: &Vector3<S>) -> Vector3<S> {
        x.cross(y)
    }
    fn coadjoint(&self, g: &Vector4<S>, mu: &Vector3<S>) -> Vector3<S> {
        rotation(g).tr_mul(mu)
    }
    fn ad_star(&self, x: &Vector3<S>, mu: &Vector3<S>) -> Vector3<S> {
        mu.cross(x)
    }
    /// The SO(3) `dexp_x`.
    fn dexp(&self, x: &Vector3<S>) -> Matrix3<S> {
        so3::dexp(x)
    }
    /// The SO(3) `dexp_x^{-1}` (error at `|x| = 2πk`, `k != 0`).
    fn dexp_inv(&self, x: &Vector3<S>) -> Result<Matrix3<S>> {
        so3::dexp_inv(x)
    }
    fn cayley(&self, x: &Vector3<S>) -> Result<Vector4<S>> {
        Ok(cayley(x))
    }
    fn cayley_inv(&self, g: &Vector4<S>) -> Result<Vector3<S>> {
        cayley_inv(g)
    }
    fn dcay(&self, x: &Vector3<S>) -> Result<Matrix3<S>> {
        Ok(dcay(x))
    }
    fn dcay_inv(&self, x: &Vector3<S>) -> Matrix3<S> {
        dcay_inv(x)
    }
    fn defect(&self, g: &Vector4<S>) -> f64 {
        defect(g)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_group, check_matrix_group};
    use super::*;
    use core::f64::consts::PI;

    /// `R(q/|q|)` of any scale of `q` is the unit quaternion's rotation, a rotation, and
    /// `exp_SO(3)` of the same algebra element (a transposed or sign-flipped `w v̂` would fail).
    #[test]
    fn the_rotation_of_an_unnormalized_quaternion_is_that_of_its_unit() {
        for x in [Vector3::new(0.3, -0.5, 0.8), Vector3::new(2.0, 1.0, -3.0)] {
            let q = exp(&x);
            for scale in [1.0, 0.25, 7.0] {
                let r = rotation_unnormalized(&(q * scale));
                assert!((r - rotation(&q)).amax() < 1e-15, "{x} at scale {scale}");
                assert!((r - so3::exp(&x)).amax() < 1e-14, "{x}");
                assert!((r.transpose() * r - Matrix3::identity()).amax() < 1e-15);
            }
        }
    }

    fn points() -> Vec<Vector3<f64>> {
        let a = Vector3::new(0.3, -0.5, 0.8).normalize();
        let b = Vector3::new(-0.9, 0.1, 0.4).normalize();
        vec![
            Vector3::zeros(),
            a * 1e-9,
            b * 3e-5,
            a * 0.4999,
            b * 0.5001,
            a * 2.0,
            b * 3.0,
            a * (PI - 1e-6),
            b * (PI + 0.5),
            a * 5.5,
        ]
    }

    #[test]
    fn generic_identities() {
        check_group::<Su2, 3>(&Su2, &points(), 1e-12);
        check_matrix_group::<Su2, 3, 4>(&Su2, &points(), 1e-12);
    }

    #[test]
    fn double_cover_and_domains() {
        for x in points() {
            let q = exp(&x);
            assert!((rotation(&q) - so3::exp(&x)).norm() < 1e-14, "R(exp x) = exp_SO(3) x");
            // the rotation of Cayley is the rotation by 4 atan(|x|/4)
            let c = cayley(&x);
            let n = x.norm();
            let ang = if n > 0.0 { x * (4.0 * (n / 4.0).atan() / n) } else { x };
            assert!((rotation(&c) - so3::exp(&ang)).norm() < 1e-14);
        }
        // log does not flip the sign of w: log(-q) has |x| = 2π - |log q|
        let x = Vector3::new(0.2f64, 0.1, -0.3);
        let l: Vector3<f64> = log(&(-exp(&x))).unwrap();
        assert!((l.norm() - (2.0 * PI - x.norm())).abs() < 1e-13);
        assert!((exp(&l) + exp(&x)).norm() < 1e-14);
        // q = -1 and nearby
        assert!(log(&Vector4::new(-1.0, 0.0, 0.0, 0.0)).is_err());
        assert!(log(&Vector4::new(-1.0, 1e-12, 0.0, 0.0)).is_err());
        assert!(log(&Vector4::new(f64::NAN, 0.0, 0.0, 0.0)).is_err());
        assert!(cayley_inv(&Vector4::new(-1.0, 0.0, 0.0, 0.0)).is_err());
        let q = exp(&Vector3::new(2.0 * PI - 1e-6, 0.0, 0.0));
        let l = log(&q).unwrap();
        assert!((exp(&l) - q).norm() < 1e-15);
        // rotation of q and -q agree; from_rotation inverts to_rotation up to sign
        let q: Vector4<f64> = exp(&Vector3::new(1.0, -2.0, 0.5));
        assert!((Su2::to_rotation(&q) - Su2::to_rotation(&(-q))).norm() < 1e-15);
        let back: Vector4<f64> = Su2::from_rotation(&Su2::to_rotation(&q));
        assert!((back - q).norm().min((back + q).norm()) < 1e-14);
        assert!(Su2::from_quaternion(Vector4::new(0.6, 0.8, 0.0, 0.0)).is_ok());
        assert!(Su2::from_quaternion(Vector4::new(0.6, 0.8, 0.1, 0.0)).is_err());
    }

    #[test]
    fn left_matrix_is_a_homomorphism() {
        let p = exp(&Vector3::new(0.4, 1.0, -0.3));
        let q = Vector4::new(0.1, -0.7, 0.2, 0.5);
        assert!((left_matrix(&multiply(&p, &q)) - left_matrix(&p) * left_matrix(&q)).norm() < 1e-15);
        assert!((left_matrix(&p) * q - multiply(&p, &q)).norm() < 1e-15);
    }
}
