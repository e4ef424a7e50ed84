//! SO(2), planar rotations, elements as rotation matrices `R(θ) = [[cos θ, -sin θ], [sin θ, cos θ]]`.
//!
//! Algebra coordinate `x = (θ) ∈ R^1`, `hat(θ) = θ J` with `J = [[0, -1], [1, 0]]`. The group is
//! abelian, so `Ad = 1`, `ad = 0` and `dexp = dexp^{-1} = 1`.
//!
//! * `exp(θ) = R(θ)`, `log R = atan2(R21 - R12, R11 + R22) ∈ (-π, π]`.
//! * `cay(θ) = (I - θJ/2)^{-1}(I + θJ/2) = R(2 atan(θ/2))`, i.e.
//!   `cos = (1 - θ^2/4)/(1 + θ^2/4)`, `sin = θ/(1 + θ^2/4)`;
//!   `cay^{-1}(R) = 2 tan(φ/2) = 2 (R21 - R12)/(2 + tr R)` (error at `φ = π`).
//! * `dcay_θ^{-1} = 1 + θ^2/4`, `dcay_θ = 1/(1 + θ^2/4)`.

use super::{LieGroup, MEMBERSHIP_TOLERANCE};
use crate::{GeomError, Result, Scalar};
use nalgebra::{Matrix1, Matrix2, Vector1};

/// The rotation matrix `R(θ) = [[cos θ, -sin θ], [sin θ, cos θ]]`.
#[inline]
pub fn rotation<S: Scalar>(theta: S) -> Matrix2<S> {
    let (s, c) = (theta.sin(), theta.cos());
    Matrix2::new(c, -s, s, c)
}

/// `θ J = [[0, -θ], [θ, 0]]`.
#[inline]
pub fn hat<S: Scalar>(theta: S) -> Matrix2<S> {
    Matrix2::new(S::from(0.0), -theta, theta, S::from(0.0))
}

/// `vee(M) = (M21 - M12)/2`, the inverse of [`hat`] (on the skew part of `M`).
#[inline]
pub fn vee<S: Scalar>(m: &Matrix2<S>) -> S {
    (m[(1, 0)] - m[(0, 1)]) * S::from(0.5)
}

/// The principal angle `atan2(R21 - R12, R11 + R22) ∈ (-π, π]` of a rotation matrix.
#[inline]
pub fn angle<S: Scalar>(r: &Matrix2<S>) -> S {
    (r[(1, 0)] - r[(0, 1)]).atan2(r[(0, 0)] + r[(1, 1)])
}

/// The Cayley map `cay(θ) = R(2 atan(θ/2))`: `cos = (1 - θ^2/4)/(1 + θ^2/4)`, `sin = θ/(1 + θ^2/4)`.
#[inline]
pub fn cayley<S: Scalar>(theta: S) -> Matrix2<S> {
    let q = theta * theta * S::from(0.25);
    let den = S::from(1.0) + q;
    let (c, s) = ((S::from(1.0) - q) / den, theta / den);
    Matrix2::new(c, -s, s, c)
}

/// `cay^{-1}(R) = 2 tan(φ/2) = 2 (R21 - R12)/(2 + tr R)`; error at `φ = π` (`tr R = -2`).
#[inline]
pub fn cayley_inv<S: Scalar>(r: &Matrix2<S>) -> Result<S> {
    let den = S::from(2.0) + r[(0, 0)] + r[(1, 1)];
    if den.re() < 1e-12 {
        return Err(GeomError::OutsideDomain { map: "inverse Cayley on SO(2)", reason: "rotation angle is pi" });
    }
    Ok((r[(1, 0)] - r[(0, 1)]) * S::from(2.0) / den)
}

/// `|Rᵀ R - I|_F + |det R - 1|` on the real part; `+inf` if an entry is not finite.
pub fn defect<S: Scalar>(r: &Matrix2<S>) -> f64 {
    let m = r.map(|v| v.re());
    if !m.iter().all(|v| v.is_finite()) {
        return f64::INFINITY;
    }
    (m.transpose() * m - Matrix2::identity()).norm() + (m.determinant() - 1.0).abs()
}

/// The rotation group SO(2) with elements `Matrix2` (see the module documentation).
///
/// ```
/// use geom_core::lie::{LieGroup, So2};
/// use nalgebra::Vector1;
/// let r = So2::from_angle(0.3);
/// assert!(So2::from_matrix(r).is_ok());
/// let x = LieGroup::<f64, 1>::log(&So2, &r).unwrap();
/// assert!((x[0] - 0.3).abs() < 1e-15);
/// assert!((LieGroup::<f64, 1>::exp(&So2, &Vector1::new(0.3)) - r).norm() < 1e-15);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct So2;

impl So2 {
    /// The rotation by `angle`, `R(θ) = [[cos θ, -sin θ], [sin θ, cos θ]]`.
    pub fn from_angle(angle: f64) -> Matrix2<f64> {
        rotation(angle)
    }
    /// A checked rotation: finite, `|Rᵀ R - I|_F + |det R - 1| <= 1e-9`.
    ///
    /// ```
    /// use geom_core::lie::So2;
    /// use nalgebra::Matrix2;
    /// assert!(So2::from_matrix(Matrix2::identity()).is_ok());
    /// assert!(So2::from_matrix(Matrix2::new(1.0, 0.0, 0.0, -1.0)).is_err());
    /// ```
    pub fn from_matrix(r: Matrix2<f64>) -> Result<Matrix2<f64>> {
        LieGroup::<f64, 1>::check_element(&So2, &r, MEMBERSHIP_TOLERANCE)?;
        Ok(r)
    }
}

impl<S: Scalar> LieGroup<S, 1> for So2 {
    type Element = Matrix2<S>;
    type Matrix = Matrix2<S>;

    fn name(&self) -> String {
        "SO(2)".into()
    }
    fn identity(&self) -> Matrix2<S> {
        Matrix2::identity()
    }
    fn compose(&self, a: &Matrix2<S>, b: &Matrix2<S>) -> Matrix2<S> {
        a * b
    }
    /// `R^{-1} = Rᵀ`.
    fn inverse(&self, a: &Matrix2<S>) -> Matrix2<S> {
        a.transpose()
    }
    /// `exp(θ) = R(θ)`.
    fn exp(&self, x: &Vector1<S>) -> Matrix2<S> {
        rotation(x[0])
    }
    /// `log R = atan2(R21 - R12, R11 + R22) ∈ (-π, π]`; always defined.
    fn log(&self, g: &Matrix2<S>) -> Result<Vector1<S>> {
        Ok(Vector1::new(angle(g)))
    }
    fn hat(&self, x: &Vector1<S>) -> Matrix2<S> {
        hat(x[0])
    }
    fn vee(&self, m: &Matrix2<S>) -> Vector1<S> {
        Vector1::new(vee(m))
    }
    fn to_matrix(&self, g: &Matrix2<S>) -> Matrix2<S> {
        *g
    }
    /// `Ad_R = 1` (abelian).
    fn adjoint(&self, _g: &Matrix2<S>) -> Matrix1<S> {
        Matrix1::identity()
    }
    /// `ad_x = 0` (abelian).
    fn ad(&self, _x: &Vector1<S>) -> Matrix1<S> {
        Matrix1::zeros()
    }
    fn bracket(&self, _x: &Vector1<S>, _y: &Vector1<S>) -> Vector1<S> {
        Vector1::zeros()
    }
    fn coadjoint(&self, _g: &Matrix2<S>, mu: &Vector1<S>) -> Vector1<S> {
        *mu
    }
    fn ad_star(&self, _x: &Vector1<S>, _mu: &Vector1<S>) -> Vector1<S> {
        Vector1::zeros()
    }
    /// `dexp = 1`.
    fn dexp(&self, _x: &Vector1<S>) -> Matrix1<S> {
        Matrix1::identity()
    }
    /// `dexp^{-1} = 1`.
    fn dexp_inv(&self, _x: &Vector1<S>) -> Result<Matrix1<S>> {
        Ok(Matrix1::identity())
    }
    fn cayley(&self, x: &Vector1<S>) -> Result<Matrix2<S>> {
        Ok(cayley(x[0]))
    }
    fn cayley_inv(&self, g: &Matrix2<S>) -> Result<Vector1<S>> {
        Ok(Vector1::new(cayley_inv(g)?))
    }
    /// `dcay_θ = 1/(1 + θ^2/4)`.
    fn dcay(&self, x: &Vector1<S>) -> Result<Matrix1<S>> {
        Ok(Matrix1::new(S::from(1.0) / (S::from(1.0) + x[0] * x[0] * S::from(0.25))))
    }
    /// `dcay_θ^{-1} = 1 + θ^2/4`.
    fn dcay_inv(&self, x: &Vector1<S>) -> Matrix1<S> {
        Matrix1::new(S::from(1.0) + x[0] * x[0] * S::from(0.25))
    }
    fn defect(&self, g: &Matrix2<S>) -> f64 {
        defect(g)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check_group, check_matrix_group};
    use super::*;
    use nalgebra::Vector1;

    fn points() -> Vec<Vector1<f64>> {
        [0.0, 1e-9, -3e-5, 0.4, -1.3, 2.0, 3.1, 1e-6 - core::f64::consts::PI].iter().map(|&t| Vector1::new(t)).collect()
    }

    #[test]
    fn generic_identities() {
        check_group::<So2, 1>(&So2, &points(), 1e-12);
        check_matrix_group::<So2, 1, 2>(&So2, &points(), 1e-12);
    }

    #[test]
    fn log_at_pi_and_cayley_domain() {
        let r = rotation(core::f64::consts::PI);
        let x = LieGroup::<f64, 1>::log(&So2, &r).unwrap();
        assert!((x[0].abs() - core::f64::consts::PI).abs() < 1e-12);
        assert!(LieGroup::<f64, 1>::cayley_inv(&So2, &r).is_err());
        // cay(θ) is the rotation by 2 atan(θ/2)
        for t in [0.0f64, 0.5, -2.0, 7.0] {
            let c = cayley(t);
            assert!((c - rotation(2.0 * (t / 2.0).atan())).norm() < 1e-14);
        }
        assert!(So2::from_matrix(Matrix2::new(f64::NAN, 0.0, 0.0, 1.0)).is_err());
    }
}
