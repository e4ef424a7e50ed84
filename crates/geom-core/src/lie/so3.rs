//! SO(3), the rotation group, with closed-form exp, log, dexp, dexp^{-1} and Cayley
//! (docs/math.md §D.2). Algebra coordinates `x ∈ R^3` with `hat(x) y = x × y`; `theta = |x|`.
//!
//! * Rodrigues: `exp(x) = I + (sin θ/θ) x̂ + ((1 - cos θ)/θ^2) x̂^2`.
//! * `dexp_x = I + ((1 - cos θ)/θ^2) x̂ + ((θ - sin θ)/θ^3) x̂^2` (right-trivialized).
//! * `dexp_x^{-1} = I - x̂/2 + (1/θ^2)(1 - (θ/2) cot(θ/2)) x̂^2`.
//! * `cay(x) = I + (4/(4 + θ^2)) (x̂ + x̂^2/2)`, `dcay_x^{-1} = I - x̂/2 + x xᵀ/4`,
//!   `dcay_x = (I + x̂/2)/(1 + θ^2/4)`, `cay^{-1}(R) = 2 vee(R - Rᵀ)/(1 + tr R)`.
//!
//! Coefficients are evaluated as power series in `θ^2` for `θ < 1/2` (exact value and derivative
//! at 0 under dual numbers; nalgebra's own exp has a zero derivative there), and in closed form
//! otherwise. The free functions are the one set of SO(3) formulas the workspace uses
//! (SE(3) and SU(2) are built from them).

use super::series::inv_factorial;
use super::{Chart, LieGroup, MEMBERSHIP_TOLERANCE};
use crate::scalar::{estrin, head, series};
use crate::{GeomError, Result, Scalar};
use nalgebra::{Matrix3, Vector3, Vector4};

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
const SIN_OVER: [f64; 9] = alternating::<9>(1); // sin θ / θ
const ONE_MINUS_COS: [f64; 9] = alternating::<9>(2); // (1 - cos θ)/θ^2
const THETA_MINUS_SIN: [f64; 9] = alternating::<9>(3); // (θ - sin θ)/θ^3
/// `d(t) = (1 - (θ/2) cot(θ/2))/θ² = Σ_{k>=1} |B_2k|/(2k)! t^{k-1}`, `t = θ²`: the
/// coefficients `|B_2k|/(2k)!`, `k = 1..=18` (the first nine exact ratios, the rest correctly
/// rounded). The one table of the workspace for `dexp⁻¹` on SO(3) and SE(3): nine terms reach
/// round-off for `t < 1/4`, eighteen for `t < 4`.
pub const DEXP_INV_D: [f64; 18] = [
    1.0 / 12.0,
    1.0 / 720.0,
    1.0 / 30240.0,
    1.0 / 1209600.0,
    1.0 / 47900160.0,
    691.0 / 1307674368000.0,
    1.0 / 74724249600.0,
    3617.0 / 10670622842880000.0,
    43867.0 / 5109094217170944000.0,
    2.174868698558062e-16,
    5.5090028283602295e-18,
    1.3954464685812522e-19,
    3.534707039629467e-21,
    8.953517427037546e-23,
    2.267952452337683e-24,
    5.744790668872202e-26,
    1.455172475614865e-27,
    3.6859949406653103e-29,
];

/// The skew matrix `hat(x)`, `hat(x) y = x × y`.
#[inline]
pub fn hat<S: Scalar>(x: &Vector3<S>) -> Matrix3<S> {
    let z = S::from(0.0);
    Matrix3::new(z, -x[2], x[1], x[2], z, -x[0], -x[1], x[0], z)
}

/// `vee(M) = (M32, M13, M21)`, the inverse of [`hat`] on skew matrices (the skew part of `M`
/// is used: `vee((M - Mᵀ)/2)`).
#[inline]
pub fn vee<S: Scalar>(m: &Matrix3<S>) -> Vector3<S> {
    let h = S::from(0.5);
    Vector3::new((m[(2, 1)] - m[(1, 2)]) * h, (m[(0, 2)] - m[(2, 0)]) * h, (m[(1, 0)] - m[(0, 1)]) * h)
}

/// `(sin θ/θ, (1 - cos θ)/θ^2, (θ - sin θ)/θ^3)` as functions of `t = θ^2`.
#[inline(always)]
pub fn rodrigues_coefficients<S: Scalar>(t: S) -> (S, S, S) {
    if t.re() < 1.0 / 64.0 {
        // `θ < 1/8` (the steps of a run): the first omitted terms are below 1e-24 relative, and
        // below 1e-19 in the second derivative in `t`
        // (Estrin's scheme: this sits on the critical path of a step)
        (
            estrin(t, &head::<7>(&SIN_OVER)),
            estrin(t, &head::<7>(&ONE_MINUS_COS)),
            estrin(t, &head::<7>(&THETA_MINUS_SIN)),
        )
    } else if t.re() < SERIES_T {
        (series(t, &SIN_OVER), series(t, &ONE_MINUS_COS), series(t, &THETA_MINUS_SIN))
    } else {
        rodrigues_closed_form(t)
    }
}

/// The closed forms of [`rodrigues_coefficients`], out of line: their `sin` calls would make the
/// loops that inline the series keep their values on the stack around the calls.
#[cold]
#[inline(never)]
fn rodrigues_closed_form<S: Scalar>(t: S) -> (S, S, S) {
    let theta = t.sqrt();
    let s = theta.sin();
    let half = (theta * S::from(0.5)).sin();
    (s / theta, half * half * S::from(2.0) / t, (theta - s) / (t * theta))
}

/// `x̂^2 = x xᵀ - |x|^2 I`, written out entry by entry (no generic matrix product: at dual
/// scalars nalgebra's product is an out-of-line loop).
#[inline]
fn hat_sq<S: Scalar>(x: &Vector3<S>) -> Matrix3<S> {
    let (a, b, c) = (x[0], x[1], x[2]);
    let (ab, ac, bc) = (a * b, a * c, b * c);
    let (aa, bb, cc) = (a * a, b * b, c * c);
    Matrix3::new(-(bb + cc), ab, ac, ab, -(aa + cc), bc, ac, bc, -(aa + bb))
}

/// The 3 × 3 product `a b`, entry by entry (inlined at every scalar; the sums in the order
/// `k = 0, 1, 2`, as nalgebra's product).
#[inline]
pub fn mul3<S: Scalar>(a: &Matrix3<S>, b: &Matrix3<S>) -> Matrix3<S> {
    Matrix3::from_fn(|i, j| a[(i, 0)] * b[(0, j)] + a[(i, 1)] * b[(1, j)] + a[(i, 2)] * b[(2, j)])
}

/// Rodrigues' formula `exp(x)`.
#[inline(always)]
pub fn exp<S: Scalar>(x: &Vector3<S>) -> Matrix3<S> {
    let (a, b, _) = rodrigues_coefficients(x.norm_squared());
    Matrix3::identity() + hat(x) * a + hat_sq(x) * b
}

/// Right-trivialized `dexp_x = I + ((1 - cos θ)/θ^2) x̂ + ((θ - sin θ)/θ^3) x̂^2` (the "left
/// Jacobian" of robotics texts).
#[inline]
pub fn dexp<S: Scalar>(x: &Vector3<S>) -> Matrix3<S> {
    let (_, b, c) = rodrigues_coefficients(x.norm_squared());
    Matrix3::identity() + hat(x) * b + hat_sq(x) * c
}

/// `dexp_x^{-1} = I - x̂/2 + (1/θ^2)(1 - (θ/2) cot(θ/2)) x̂^2`; error where `sin(θ/2) = 0`,
/// `θ = 2πk`, `k != 0` (dexp is singular there).
#[inline]
pub fn dexp_inv<S: Scalar>(x: &Vector3<S>) -> Result<Matrix3<S>> {
    let t = x.norm_squared();
    let d = if t.re() < SERIES_T {
        series(t, &DEXP_INV_D[..9])
    } else {
        let half = t.sqrt() * S::from(0.5);
        let s = half.sin();
        if s.re().abs() < 1e-8 {
            return Err(GeomError::OutsideDomain {
                map: "dexp^-1 on SO(3)",
                reason: "|x| is a nonzero multiple of 2 pi",
            });
        }
        (S::from(1.0) - half * half.cos() / s) / t
    };
    Ok(Matrix3::identity() - hat(x) * S::from(0.5) + hat_sq(x) * d)
}

/// `d'(t)` of [`DEXP_INV_D`]'s series: the coefficients `(k + 1) c_{k+1}`, `k = 0..9`.
const DEXP_INV_D_SLOPE: [f64; 9] = {
    let mut out = [0.0; 9];
    let mut k = 0;
    while k < 9 {
        out[k] = (k + 1) as f64 * DEXP_INV_D[k + 1];
        k += 1;
    }
    out
};

/// `D_x[(dexp_x^{-1})ᵀ μ] = -½ μ̂ + d (x μᵀ + (x·μ) I - 2 μ xᵀ) + 2 d'(t) (x (x·μ) - t μ) xᵀ`
/// (`t = |x|²`, `d(t) = (1 - (θ/2) cot(θ/2))/θ²` as in [`dexp_inv`]; from
/// `(dexp_x^{-1})ᵀ μ = μ + ½ x×μ + d(t) (x (x·μ) - t μ)`) at any scalar: series of `d` and `d'`
/// below `t = 1/4` (ten terms of [`DEXP_INV_D`]), else `d = G/t`, `d' = G'/t - G/t²` with
/// `G = 1 - (θ/2) cot(θ/2)`, `G' = (-½ cot(θ/2) + (θ/4)/sin²(θ/2))/(2θ)`. `None` where
/// `sin(θ/2)` vanishes (`dexp^{-1}` is singular there).
#[inline(always)]
fn dexp_inv_transpose_derivative<S: Scalar>(x: &Vector3<S>, mu: &Vector3<S>) -> Option<Matrix3<S>> {
    let t = x.norm_squared();
    let (d, dd) = if t.re() < SERIES_T {
        (series(t, &DEXP_INV_D[..10]), series(t, &DEXP_INV_D_SLOPE))
    } else {
        let theta = t.sqrt();
        let half = theta * S::from(0.5);
        let s = half.sin();
        if s.re().abs() < 1e-8 {
            return None;
        }
        let cot = half.cos() / s;
        let big = S::from(1.0) - half * cot;
        let slope = (cot * S::from(-0.5) + theta * S::from(0.25) / (s * s)) / (theta * S::from(2.0));
        (big / t, slope / t - big / (t * t))
    };
    let xm = x.dot(mu);
    let w = x * xm - mu * t;
    Some(
        hat(mu) * S::from(-0.5)
            + (x * mu.transpose() + Matrix3::from_diagonal_element(xm) - mu * x.transpose() * S::from(2.0)) * d
            + w * x.transpose() * (dd * S::from(2.0)),
    )
}

/// The unit quaternion `(w, v)` (stored `(w, x, y, z)`, `w >= 0`) of a rotation matrix, by
/// Shepperd's method (stable at every angle).
pub fn to_quaternion<S: Scalar>(r: &Matrix3<S>) -> Vector4<S> {
    let q = S::from(0.25);
    let tr = r[(0, 0)] + r[(1, 1)] + r[(2, 2)];
    let one = S::from(1.0);
    let (w, x, y, z);
    if tr.re() >= r[(0, 0)].re() && tr.re() >= r[(1, 1)].re() && tr.re() >= r[(2, 2)].re() {
        let s = (one + tr).sqrt() * S::from(2.0); // 4w
        w = s * q;
        x = (r[(2, 1)] - r[(1, 2)]) / s;
        y = (r[(0, 2)] - r[(2, 0)]) / s;
        z = (r[(1, 0)] - r[(0, 1)]) / s;
    } else if r[(0, 0)].re() >= r[(1, 1)].re() && r[(0, 0)].re() >= r[(2, 2)].re() {
        let s = (one + r[(0, 0)] - r[(1, 1)] - r[(2, 2)]).sqrt() * S::from(2.0); // 4x
        w = (r[(2, 1)] - r[(1, 2)]) / s;
        x = s * q;
        y = (r[(0, 1)] + r[(1, 0)]) / s;
        z = (r[(0, 2)] + r[(2, 0)]) / s;
    } else if r[(1, 1)].re() >= r[(2, 2)].re() {
        let s = (one + r[(1, 1)] - r[(0, 0)] - r[(2, 2)]).sqrt() * S::from(2.0); // 4y
        w = (r[(0, 2)] - r[(2, 0)]) / s;
        x = (r[(0, 1)] + r[(1, 0)]) / s;
        y = s * q;
        z = (r[(1, 2)] + r[(2, 1)]) / s;
    } else {
        let s = (one + r[(2, 2)] - r[(0, 0)] - r[(1, 1)]).sqrt() * S::from(2.0); // 4z
        w = (r[(1, 0)] - r[(0, 1)]) / s;
        x = (r[(0, 2)] + r[(2, 0)]) / s;
        y = (r[(1, 2)] + r[(2, 1)]) / s;
        z = s * q;
    }
    let v = Vector4::new(w, x, y, z);
    if w.re() < 0.0 { -v } else { v }
}

/// `2 atan2(|v|, w) v/|v|` for a unit quaternion `(w, v)`: the rotation vector of the rotation
/// it represents when `w >= 0`; as a function of `|v|^2` (series for small `|v|`).
pub fn quaternion_log<S: Scalar>(q: &Vector4<S>) -> Vector3<S> {
    let w = q[0];
    let v = Vector3::new(q[1], q[2], q[3]);
    let n2 = v.norm_squared();
    let factor = if w.re() > 0.0 && n2.re() < 0.01 * w.re() * w.re() {
        // 2 atan(s)/s / w with s^2 = n2/w^2: 2/w (1 - s^2/3 + s^4/5 - ...)
        let s2 = n2 / (w * w);
        let atan_over: [f64; 12] = core::array::from_fn(|k| {
            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
            sign / (2 * k + 1) as f64
        });
        series(s2, &atan_over) * S::from(2.0) / w
    } else {
        let n = n2.sqrt();
        n.atan2(w) * S::from(2.0) / n
    };
    v * factor
}

#[cold]
#[inline(never)]
fn log_near_pi<S: Scalar>(r: &Matrix3<S>) -> Vector3<S> {
    quaternion_log(&to_quaternion(r))
}

/// `asin(u)/u` as a series in `u^2` (used for `u^2 < 1e-4`).
const ASIN_OVER: [f64; 6] = [1.0, 1.0 / 6.0, 3.0 / 40.0, 5.0 / 112.0, 35.0 / 1152.0, 63.0 / 2816.0];

/// The principal logarithm, `|log R| <= π`, from `cos θ = (tr R - 1)/2` and
/// `s = vee(R - Rᵀ)/2 = sin θ · axis`:
/// * `cos θ > 0.9`: `θ = asin|s|` (series `asin(u)/u` for `|s|^2 < 1e-4`, exact derivative at `R = I`);
/// * `|cos θ| <= 0.9`: `θ = acos(cos θ)`; in both cases `log R = (θ/|s|) s`;
/// * `cos θ < -0.9` (near π, where `s` carries no axis information): Shepperd's quaternion
///   extraction and `2 atan2(|v|, w) v/|v|`. At angle exactly π both `±x` are logarithms; the one
///   with `w = 0` from Shepperd's method is returned.
#[inline]
pub fn log<S: Scalar>(r: &Matrix3<S>) -> Vector3<S> {
    log_with_trig(r).0
}

/// `log R` with `(cos θ, sin θ)` when they came for free (`None` near π), see [`log`].
#[inline]
fn log_with_trig<S: Scalar>(r: &Matrix3<S>) -> (Vector3<S>, Option<(S, S)>) {
    let c = (r[(0, 0)] + r[(1, 1)] + r[(2, 2)] - S::from(1.0)) * S::from(0.5);
    if c.re() < -0.9 {
        return (log_near_pi(r), None);
    }
    let s = vee(r);
    let u2 = s.norm_squared();
    let u = u2.sqrt();
    let factor =
        if c.re() > 0.9 { if u2.re() < 1e-4 { series(u2, &ASIN_OVER) } else { u.asin() / u } } else { c.acos() / u };
    (s * factor, Some((c, u)))
}

/// `(log R, dexp^{-1}_{log R})` sharing `cos θ = (tr R - 1)/2` and `sin θ = |vee(R - Rᵀ)/2|`, so
/// `dexp^{-1}` needs no further trigonometry: `(1 - (θ/2)cot(θ/2))/θ^2 = (1 - θ sin θ/(2(1 - cos θ)))/θ^2`
/// (series in `θ^2` for `θ < 1/2`). Used by the SE(3) logarithm.
#[inline]
pub fn log_with_dexp_inv<S: Scalar>(r: &Matrix3<S>) -> Result<(Vector3<S>, Matrix3<S>)> {
    let (x, trig) = log_with_trig(r);
    let Some((c, sin)) = trig else {
        return Ok((x, dexp_inv(&x)?));
    };
    let t = x.norm_squared();
    let d = if t.re() < SERIES_T {
        series(t, &DEXP_INV_D[..9])
    } else {
        (S::from(1.0) - t.sqrt() * sin / (S::from(2.0) * (S::from(1.0) - c))) / t
    };
    Ok((x, Matrix3::identity() - hat(&x) * S::from(0.5) + hat_sq(&x) * d))
}

/// The Cayley map `cay(x) = I + (4/(4 + θ^2)) (x̂ + x̂^2/2)`.
#[inline]
pub fn cayley<S: Scalar>(x: &Vector3<S>) -> Matrix3<S> {
    let k = S::from(4.0) / (S::from(4.0) + x.norm_squared());
    // I + (x̂ + x̂²/2) k entry by entry (inlined at dual scalars, same rounding as the matrix form)
    let (h, q) = (hat(x), hat_sq(x));
    let half = S::from(0.5);
    Matrix3::from_fn(|i, j| {
        let e = (h[(i, j)] + q[(i, j)] * half) * k;
        if i == j { e + S::from(1.0) } else { e }
    })
}

/// `cay^{-1}(R) = 2 vee(R - Rᵀ)/(1 + tr R)`; error at rotation angle π (`tr R = -1`).
#[inline]
pub fn cayley_inv<S: Scalar>(r: &Matrix3<S>) -> Result<Vector3<S>> {
    let den = S::from(1.0) + r.trace();
    if den.re() < 1e-12 {
        return Err(GeomError::OutsideDomain { map: "inverse Cayley on SO(3)", reason: "rotation angle is pi" });
    }
    Ok(vee(r) * S::from(4.0) / den)
}

/// `dcay_x^{-1} = I - x̂/2 + x xᵀ/4`.
#[inline]
pub fn dcay_inv<S: Scalar>(x: &Vector3<S>) -> Matrix3<S> {
    Matrix3::identity() - hat(x) * S::from(0.5) + x * x.transpose() * S::from(0.25)
}

/// `dcay_x = (I + x̂/2)/(1 + |x|^2/4)`.
#[inline]
pub fn dcay<S: Scalar>(x: &Vector3<S>) -> Matrix3<S> {
    (Matrix3::identity() + hat(x) * S::from(0.5)) / (S::from(1.0) + x.norm_squared() * S::from(0.25))
}

/// `|Rᵀ R - I|_F + |det R - 1|` on the real part; `+inf` if an entry is not finite.
pub fn defect<S: Scalar>(r: &Matrix3<S>) -> f64 {
    let m = r.map(|v| v.re());
    if !m.iter().all(|v| v.is_finite()) {
        return f64::INFINITY;
    }
    (m.transpose() * m - Matrix3::identity()).norm() + (m.determinant() - 1.0).abs()
}

/// The rotation group SO(3) with elements `Matrix3` (see the module documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct So3;

impl So3 {
    /// A checked rotation: finite, `|Rᵀ R - I|_F + |det R - 1| <= 1e-9`.
    ///
    /// ```
    /// use geom_core::lie::So3;
    /// use nalgebra::Matrix3;
    /// assert!(So3::from_matrix(Matrix3::identity()).is_ok());
    /// assert!(So3::from_matrix(Matrix3::identity() * 2.0).is_err());
    /// ```
    pub fn from_matrix(r: Matrix3<f64>) -> Result<Matrix3<f64>> {
        LieGroup::<f64, 3>::check_element(&So3, &r, MEMBERSHIP_TOLERANCE)?;
        Ok(r)
    }
    /// The rotation matrix, unchecked (for hot loops and trusted data).
    pub fn from_matrix_unchecked(r: Matrix3<f64>) -> Matrix3<f64> {
        r
    }
}

impl<S: Scalar> LieGroup<S, 3> for So3 {
    type Element = Matrix3<S>;
    type Matrix = Matrix3<S>;

    fn name(&self) -> String {
        "SO(3)".into()
    }
    fn identity(&self) -> Matrix3<S> {
        Matrix3::identity()
    }
    #[inline(always)]
    fn compose(&self, a: &Matrix3<S>, b: &Matrix3<S>) -> Matrix3<S> {
        mul3(a, b)
    }
    fn inverse(&self, a: &Matrix3<S>) -> Matrix3<S> {
        a.transpose()
    }
    #[inline(always)]
    fn exp(&self, x: &Vector3<S>) -> Matrix3<S> {
        exp(x)
    }
    fn log(&self, g: &Matrix3<S>) -> Result<Vector3<S>> {
        Ok(log(g))
    }
    fn hat(&self, x: &Vector3<S>) -> Matrix3<S> {
        hat(x)
    }
    fn vee(&self, m: &Matrix3<S>) -> Vector3<S> {
        vee(m)
    }
    fn to_matrix(&self, g: &Matrix3<S>) -> Matrix3<S> {
        *g
    }
    fn adjoint(&self, g: &Matrix3<S>) -> Matrix3<S> {
        *g
    }
    fn ad(&self, x: &Vector3<S>) -> Matrix3<S> {
        hat(x)
    }
    fn bracket(&self, x: &Vector3<S>, y: &Vector3<S>) -> Vector3<S> {
        x.cross(y)
    }
    fn coadjoint(&self, g: &Matrix3<S>, mu: &Vector3<S>) -> Vector3<S> {
        g.tr_mul(mu)
    }
    fn ad_star(&self, x: &Vector3<S>, mu: &Vector3<S>) -> Vector3<S> {
        mu.cross(x)
    }
    fn dexp(&self, x: &Vector3<S>) -> Matrix3<S> {
        dexp(x)
    }
    fn dexp_inv(&self, x: &Vector3<S>) -> Result<Matrix3<S>> {
        dexp_inv(x)
    }
    #[inline(always)]
    fn cayley(&self, x: &Vector3<S>) -> Result<Matrix3<S>> {
        Ok(cayley(x))
    }
    fn cayley_inv(&self, g: &Matrix3<S>) -> Result<Vector3<S>> {
        cayley_inv(g)
    }
    fn dcay(&self, x: &Vector3<S>) -> Result<Matrix3<S>> {
        Ok(dcay(x))
    }
    fn dcay_inv(&self, x: &Vector3<S>) -> Matrix3<S> {
        dcay_inv(x)
    }
    /// Cayley: `(dcay_x^{-1})ᵀ mu = mu + ½ x × mu + ¼ (x·mu) x`, derivative
    /// `-½ hat(mu) + ¼ (x muᵀ + (x·mu) I)`; exp: `-½ hat(mu) + d (x muᵀ + (x·mu) I - 2 mu xᵀ)
    /// + 2 d'(t) (x (x·mu) - t mu) xᵀ`, `t = |x|²`, `d` the coefficient of [`dexp_inv`].
    #[inline(always)]
    fn dtau_inv_transpose_closed_form(&self, chart: Chart, x: &Vector3<S>, mu: &Vector3<S>) -> Option<Matrix3<S>> {
        match chart {
            Chart::Cayley => Some(
                hat(mu) * S::from(-0.5)
                    + (x * mu.transpose() + Matrix3::from_diagonal_element(x.dot(mu))) * S::from(0.25),
            ),
            Chart::Exp => dexp_inv_transpose_derivative(x, mu),
        }
    }
    fn defect(&self, g: &Matrix3<S>) -> f64 {
        defect(g)
    }
    #[inline]
    fn is_finite(&self, g: &Matrix3<S>) -> bool {
        g.iter().all(|v| v.re().is_finite())
    }
}
