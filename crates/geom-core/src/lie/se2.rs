//! SE(2), planar rigid motions `g = [[R, p], [0, 1]]` (homogeneous `Matrix3`), with closed forms.
//!
//! Algebra coordinates `x = (θ, v) = (θ, v1, v2)`, rotation first, with
//! `hat(x) = [[θJ, v], [0, 0]] = [[0, -θ, v1], [θ, 0, v2], [0, 0, 0]]`, `J = [[0, -1], [1, 0]]`,
//! and bracket `[(θ1, v1), (θ2, v2)] = (0, θ1 J v2 - θ2 J v1)`. Every `2 × 2` coefficient below
//! is of the form `αI + βJ` (a complex number), with
//! `φ1(θJ) = sum_k (θJ)^k/(k+1)! = (sin θ/θ) I + ((1 - cos θ)/θ) J`,
//! `φ2(θJ) = sum_k (θJ)^k/(k+2)! = ((1 - cos θ)/θ^2) I + ((θ - sin θ)/θ^2) J`,
//! `φ1(θJ)^{-1} = (θ/2) cot(θ/2) I - (θ/2) J`.
//!
//! * `exp(x) = [[R(θ), φ1(θJ) v], [0, 1]]`; `log` inverts it with `φ1^{-1}` (`θ ∈ (-π, π]`).
//! * `Ad_(R, p) = [[1, 0], [-J p, R]]`, `ad_x = [[0, 0], [-J v, θ J]]`.
//! * `dexp_x = [[1, 0], [φ2(θJ)(-J v), φ1(θJ)]]`,
//!   `dexp_x^{-1} = [[1, 0], [-φ1^{-1} φ2 (-J v), φ1^{-1}]]` (error where `sin(θ/2) = 0`, `θ != 0`).
//! * `cay(x) = [[cay(θ), (I + θJ/2) v/(1 + θ^2/4)], [0, 1]]` (`cay(θ)` of SO(2)),
//!   `cay^{-1}(R, p) = (θ, (I - θJ/2) p)` with `θ = cay^{-1}(R)` (error at rotation angle π).
//! * `dcay_x^{-1} = [[1 + θ^2/4, 0], [(J v + θ v/2)/2, I - θJ/2]]` (coordinates of
//!   `Y ↦ Y - [X, Y]/2 - X Y X/4`), `dcay_x = (I + ad_x/2)/(1 + θ^2/4)
//!   = [[1, 0], [-J v/2, I + θJ/2]]/(1 + θ^2/4)`.
//!
//! The coefficients are power series in `θ^2` for `θ^2 < 1/4` (exact value and derivative at
//! `θ = 0` under dual numbers) and closed forms in `θ` otherwise (no square root is taken).

use super::so2;
use super::so3::rodrigues_coefficients;
use super::{LieGroup, MEMBERSHIP_TOLERANCE};
use crate::{GeomError, Result, Scalar, scalar::series};
use nalgebra::{Matrix2, Matrix3, Vector2, Vector3};

/// Below this `θ^2` the coefficient functions use their Taylor series.
const SERIES_T: f64 = 0.25;

/// `(θ/2) cot(θ/2) = sum_k (-1)^k B_2k θ^{2k}/(2k)! = 1 - θ^2/12 - θ^4/720 - ...`.
const HALF_COT: [f64; 10] = [
    1.0,
    -1.0 / 12.0,
    -1.0 / 720.0,
    -1.0 / 30240.0,
    -1.0 / 1209600.0,
    -1.0 / 47900160.0,
    -691.0 / 1307674368000.0,
    -1.0 / 74724249600.0,
    -3617.0 / 10670622842880000.0,
    -43867.0 / 5109094217170944000.0,
];

/// `αI + βJ = [[α, -β], [β, α]]`.
#[inline]
fn complex<S: Scalar>(alpha: S, beta: S) -> Matrix2<S> {
    Matrix2::new(alpha, -beta, beta, alpha)
}

/// `J v = (-v2, v1)`.
#[inline]
fn j_mul<S: Scalar>(v: &Vector2<S>) -> Vector2<S> {
    Vector2::new(-v[1], v[0])
}

/// `φ1(θJ) = (sin θ/θ) I + ((1 - cos θ)/θ) J` and `φ2(θJ) = ((1 - cos θ)/θ^2) I + ((θ - sin θ)/θ^2) J`.
#[inline]
pub fn phi<S: Scalar>(theta: S) -> (Matrix2<S>, Matrix2<S>) {
    let (a, b, c) = rodrigues_coefficients(theta * theta);
    (complex(a, theta * b), complex(b, theta * c))
}

/// `φ1(θJ)^{-1} = (θ/2) cot(θ/2) I - (θ/2) J`; error where `sin(θ/2) = 0`, `θ != 0`.
#[inline]
pub fn phi1_inv<S: Scalar>(theta: S) -> Result<Matrix2<S>> {
    let t = theta * theta;
    let half = theta * S::from(0.5);
    let p = if t.re() < SERIES_T {
        series(t, &HALF_COT)
    } else {
        let s = half.sin();
        if s.re().abs() < 1e-8 {
            return Err(GeomError::OutsideDomain {
                map: "dexp^-1 on SE(2)",
                reason: "the rotation coordinate is a nonzero multiple of 2 pi",
            });
        }
        half * half.cos() / s
    };
    Ok(complex(p, -half))
}

/// Split `x = (θ, v)`.
#[inline]
pub fn split<S: Scalar>(x: &Vector3<S>) -> (S, Vector2<S>) {
    (x[0], Vector2::new(x[1], x[2]))
}

/// Join `(θ, v)` into `x`.
#[inline]
pub fn join<S: Scalar>(theta: S, v: &Vector2<S>) -> Vector3<S> {
    Vector3::new(theta, v[0], v[1])
}

/// The homogeneous matrix `[[R, p], [0, 1]]`.
#[inline]
pub fn from_parts<S: Scalar>(r: &Matrix2<S>, p: &Vector2<S>) -> Matrix3<S> {
    let mut g = Matrix3::identity();
    g.fixed_view_mut::<2, 2>(0, 0).copy_from(r);
    g.fixed_view_mut::<2, 1>(0, 2).copy_from(p);
    g
}

/// `(R, p)` of `g = [[R, p], [0, 1]]`.
#[inline]
pub fn parts<S: Scalar>(g: &Matrix3<S>) -> (Matrix2<S>, Vector2<S>) {
    (g.fixed_view::<2, 2>(0, 0).into_owned(), g.fixed_view::<2, 1>(0, 2).into_owned())
}

/// `[[a, 0], [c, m]]` as a `3 × 3` matrix (`a` scalar, `c` a column, `m` a `2 × 2` block).
#[inline]
fn lower<S: Scalar>(a: S, c: &Vector2<S>, m: &Matrix2<S>) -> Matrix3<S> {
    let z = S::from(0.0);
    Matrix3::new(a, z, z, c[0], m[(0, 0)], m[(0, 1)], c[1], m[(1, 0)], m[(1, 1)])
}

/// `|(R, p) - SE(2)|`: the SO(2) defect of `R` plus the bottom row's distance to `(0, 0, 1)`.
fn defect<S: Scalar>(g: &Matrix3<S>) -> f64 {
    let m = g.map(|v| v.re());
    if !m.iter().all(|v| v.is_finite()) {
        return f64::INFINITY;
    }
    let bottom = (m[(2, 0)].powi(2) + m[(2, 1)].powi(2) + (m[(2, 2)] - 1.0).powi(2)).sqrt();
    so2::defect(&m.fixed_view::<2, 2>(0, 0).into_owned()) + bottom
}

/// The group of planar rigid motions SE(2), elements as homogeneous `Matrix3` (see the module
/// documentation).
///
/// ```
/// use geom_core::lie::{LieGroup, Se2};
/// use nalgebra::{Vector2, Vector3};
/// let g = Se2::from_angle_translation(0.5, Vector2::new(1.0, -2.0));
/// assert!(Se2::from_rotation_translation(g.fixed_view::<2, 2>(0, 0).into_owned(), Vector2::new(1.0, -2.0)).is_ok());
/// let x = LieGroup::<f64, 3>::log(&Se2, &g).unwrap();
/// assert!((x[0] - 0.5).abs() < 1e-15);
/// assert!((LieGroup::<f64, 3>::exp(&Se2, &x) - g).norm() < 1e-14);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Se2;

impl Se2 {
    /// The rigid motion `[[R(θ), p], [0, 1]]`.
    pub fn from_angle_translation(angle: f64, p: Vector2<f64>) -> Matrix3<f64> {
        from_parts(&so2::rotation(angle), &p)
    }
    /// A checked rigid motion from `(R, p)`: finite, `R` within `1e-9` of SO(2).
    ///
    /// ```
    /// use geom_core::lie::Se2;
    /// use nalgebra::{Matrix2, Vector2};
    /// assert!(Se2::from_rotation_translation(Matrix2::identity(), Vector2::new(1.0, 2.0)).is_ok());
    /// assert!(Se2::from_rotation_translation(Matrix2::zeros(), Vector2::zeros()).is_err());
    /// ```
    pub fn from_rotation_translation(r: Matrix2<f64>, p: Vector2<f64>) -> Result<Matrix3<f64>> {
        let g = from_parts(&r, &p);
        LieGroup::<f64, 3>::check_element(&Se2, &g, MEMBERSHIP_TOLERANCE)?;
        Ok(g)
    }
}

impl<S: Scalar> LieGroup<S, 3> for Se2 {
    type Element = Matrix3<S>;
    type Matrix = Matrix3<S>;

    fn name(&self) -> String {
        "SE(2)".into()
    }
    fn identity(&self) -> Matrix3<S> {
        Matrix3::identity()
    }
    /// `(Ra, pa)(Rb, pb) = (Ra Rb, Ra pb + pa)`.
    fn compose(&self, a: &Matrix3<S>, b: &Matrix3<S>) -> Matrix3<S> {
        let (ra, pa) = parts(a);
        let (rb, pb) = parts(b);
        from_parts(&(ra * rb), &(ra * pb + pa))
    }
    /// `(R, p)^{-1} = (Rᵀ, -Rᵀ p)`.
    fn inverse(&self, a: &Matrix3<S>) -> Matrix3<S> {
        let (r, p) = parts(a);
        let rt = r.transpose();
        from_parts(&rt, &(-(rt * p)))
    }
    /// `exp(θ, v) = [[R(θ), φ1(θJ) v], [0, 1]]`.
    fn exp(&self, x: &Vector3<S>) -> Matrix3<S> {
        let (theta, v) = split(x);
        let (p1, _) = phi(theta);
        from_parts(&so2::rotation(theta), &(p1 * v))
    }
    /// `log(R, p) = (θ, φ1(θJ)^{-1} p)`, `θ = atan2(R21 - R12, R11 + R22) ∈ (-π, π]`.
    fn log(&self, g: &Matrix3<S>) -> Result<Vector3<S>> {
        let (r, p) = parts(g);
        let theta = so2::angle(&r);
        Ok(join(theta, &(phi1_inv(theta)? * p)))
    }
    fn hat(&self, x: &Vector3<S>) -> Matrix3<S> {
        let (theta, v) = split(x);
        let mut m = from_parts(&so2::hat(theta), &v);
        m[(2, 2)] = S::from(0.0);
        m
    }
    fn vee(&self, m: &Matrix3<S>) -> Vector3<S> {
        let (r, p) = parts(m);
        join(so2::vee(&r), &p)
    }
    fn to_matrix(&self, g: &Matrix3<S>) -> Matrix3<S> {
        *g
    }
    /// `Ad_(R, p) = [[1, 0], [-J p, R]]`.
    fn adjoint(&self, g: &Matrix3<S>) -> Matrix3<S> {
        let (r, p) = parts(g);
        lower(S::from(1.0), &(-j_mul(&p)), &r)
    }
    /// `ad_(θ, v) = [[0, 0], [-J v, θ J]]`.
    fn ad(&self, x: &Vector3<S>) -> Matrix3<S> {
        let (theta, v) = split(x);
        lower(S::from(0.0), &(-j_mul(&v)), &so2::hat(theta))
    }
    fn bracket(&self, x: &Vector3<S>, y: &Vector3<S>) -> Vector3<S> {
        let (t1, v1) = split(x);
        let (t2, v2) = split(y);
        join(S::from(0.0), &(j_mul(&v2) * t1 - j_mul(&v1) * t2))
    }
    /// `dexp_x = [[1, 0], [φ2(θJ)(-J v), φ1(θJ)]]`.
    fn dexp(&self, x: &Vector3<S>) -> Matrix3<S> {
        let (theta, v) = split(x);
        let (p1, p2) = phi(theta);
        lower(S::from(1.0), &(p2 * (-j_mul(&v))), &p1)
    }
    /// `dexp_x^{-1} = [[1, 0], [-φ1^{-1} φ2 (-J v), φ1^{-1}]]`.
    fn dexp_inv(&self, x: &Vector3<S>) -> Result<Matrix3<S>> {
        let (theta, v) = split(x);
        let (_, p2) = phi(theta);
        let p1i = phi1_inv(theta)?;
        Ok(lower(S::from(1.0), &(p1i * p2 * j_mul(&v)), &p1i))
    }
    /// `cay(θ, v) = [[cay(θ), (I + θJ/2) v/(1 + θ^2/4)], [0, 1]]`; always defined.
    fn cayley(&self, x: &Vector3<S>) -> Result<Matrix3<S>> {
        let (theta, v) = split(x);
        let half = theta * S::from(0.5);
        let den = S::from(1.0) + half * half;
        Ok(from_parts(&so2::cayley(theta), &(complex(S::from(1.0), half) * v / den)))
    }
    /// `cay^{-1}(R, p) = (θ, (I - θJ/2) p)`, `θ = cay^{-1}(R)`; error at rotation angle π.
    fn cayley_inv(&self, g: &Matrix3<S>) -> Result<Vector3<S>> {
        let (r, p) = parts(g);
        let theta = so2::cayley_inv(&r)?;
        Ok(join(theta, &(complex(S::from(1.0), -theta * S::from(0.5)) * p)))
    }
    /// `dcay_x = [[1, 0], [-J v/2, I + θJ/2]]/(1 + θ^2/4)`.
    fn dcay(&self, x: &Vector3<S>) -> Result<Matrix3<S>> {
        let (theta, v) = split(x);
        let h = S::from(0.5);
        let den = S::from(1.0) + theta * theta * S::from(0.25);
        Ok(lower(S::from(1.0), &(-j_mul(&v) * h), &complex(S::from(1.0), theta * h)) / den)
    }
    /// `dcay_x^{-1} = [[1 + θ^2/4, 0], [(J v + θ v/2)/2, I - θJ/2]]`.
    fn dcay_inv(&self, x: &Vector3<S>) -> Matrix3<S> {
        let (theta, v) = split(x);
        let h = S::from(0.5);
        let c = (j_mul(&v) + v * (theta * h)) * h;
        lower(S::from(1.0) + theta * theta * S::from(0.25), &c, &complex(S::from(1.0), -theta * h))
    }
    fn defect(&self, g: &Matrix3<S>) -> f64 {
        defect(g)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_group, check_matrix_group};
    use super::*;
    use core::f64::consts::PI;

    fn points() -> Vec<Vector3<f64>> {
        vec![
            Vector3::zeros(),
            Vector3::new(1e-9, -2e-9, 0.5e-9),
            Vector3::new(0.0, 1.0, -2.0),
            Vector3::new(3e-5, 0.7, 0.2),
            Vector3::new(-0.4999, 0.3, 1.0),
            Vector3::new(0.5001, -1.0, 0.4),
            Vector3::new(1.3, 2.0, -1.5),
            Vector3::new(-2.0, 0.5, 0.5),
            Vector3::new(3.0, -1.0, 2.0),
            Vector3::new(-3.1, 0.2, -0.7),
        ]
    }

    #[test]
    fn generic_identities() {
        check_group::<Se2, 3>(&Se2, &points(), 1e-12);
        check_matrix_group::<Se2, 3, 3>(&Se2, &points(), 1e-12);
    }

    #[test]
    fn domains() {
        // dexp^-1 is singular at θ = 2π; the inverse Cayley map at rotation angle π
        assert!(LieGroup::<f64, 3>::dexp_inv(&Se2, &Vector3::new(2.0 * PI, 1.0, 0.0)).is_err());
        assert!(LieGroup::<f64, 3>::dexp_inv(&Se2, &Vector3::new(-2.0 * PI, 1.0, 0.0)).is_err());
        let g = Se2::from_angle_translation(PI, Vector2::new(1.0, 2.0));
        assert!(LieGroup::<f64, 3>::cayley_inv(&Se2, &g).is_err());
        // log at angle π: exp(log g) = g
        let x = LieGroup::<f64, 3>::log(&Se2, &g).unwrap();
        assert!((x[0].abs() - PI).abs() < 1e-12);
        assert!((LieGroup::<f64, 3>::exp(&Se2, &x) - g).norm() < 1e-12);
        // near π from both sides
        for d in [1e-10, 1e-6, 1e-3] {
            for s in [1.0, -1.0] {
                let x = Vector3::new(s * (PI - d), 0.3, -0.8);
                let g = LieGroup::<f64, 3>::exp(&Se2, &x);
                let l = LieGroup::<f64, 3>::log(&Se2, &g).unwrap();
                assert!((l - x).norm() < 1e-9, "log(exp x) = x at π - {d}");
            }
        }
        // bad elements
        let mut bad = Matrix3::identity();
        bad[(2, 0)] = 0.1;
        assert!(LieGroup::<f64, 3>::check_element(&Se2, &bad, 1e-9).is_err());
    }

    #[test]
    fn coefficient_series_match_closed_forms_at_the_threshold() {
        for th in [0.4999f64, 0.5001, -0.5, 0.5] {
            let (p1, p2) = phi(th);
            let (s, c) = (th.sin(), th.cos());
            assert!((p1 - complex(s / th, (1.0 - c) / th)).norm() < 1e-15);
            assert!((p2 - complex((1.0 - c) / (th * th), (th - s) / (th * th))).norm() < 1e-15);
            let h = th / 2.0;
            assert!((phi1_inv(th).unwrap() - complex(h / h.tan(), -h)).norm() < 1e-15);
            assert!((phi1_inv(th).unwrap() * p1 - Matrix2::identity()).norm() < 1e-15);
        }
    }
}
