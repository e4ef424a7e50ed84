//! Symmetric canonical coordinates of the second kind on SO(3) and SE(3): a chart built from the
//! one-parameter subgroups of a basis, as a palindrome so that `τ(−x) = τ(x)^{-1}`.
//!
//! Canonical coordinates of the second kind (Iserles, Munthe-Kaas, Nørsett & Zanna, "Lie-group
//! methods", Acta Numerica 9, 2000, §2.4 and §8) write a group element as a product
//! `exp(x_1 E_1) ⋯ exp(x_d E_d)` of exponentials of basis elements, each a closed form. That
//! product is not a chart in the sense of Bou-Rabee & Marsden, "Hamilton–Pontryagin integrators
//! on Lie groups" (2009, arXiv:0801.0996, §2), which asks for `τ(ξ) τ(−ξ) = e`; its symmetric
//! (palindromic) form is one. With `A_i(s) = exp(s Ê_i)`:
//!
//! ```text
//!   SO(3):  τ(x) = A_1(x_1/2) A_2(x_2/2) A_3(x_3) A_2(x_2/2) A_1(x_1/2),
//!   SE(3):  τ(ω, v) = (Q, 0) (I, v) (Q', 0) = (Q Q', Q v),
//!           Q = A_1(ω_1/2) A_2(ω_2/2) A_3(ω_3/2),  Q' = A_3(ω_3/2) A_2(ω_2/2) A_1(ω_1/2),
//! ```
//!
//! `A_i` the rotation about the body axis `e_i` (the translations of SE(3) commute, so their
//! three one-parameter subgroups make one factor `(I, v)`; the rotation part of SE(3)'s chart is
//! SO(3)'s). Reversing a palindrome of exponentials negates every exponent, so `τ(−x) =
//! τ(x)^{-1}`; `τ(0) = e` and `dτ_0 = I`.
//!
//! The right-trivialized derivative follows from `∂_j (P_1 ⋯ P_n) (P_1 ⋯ P_n)^{-1} =
//! Σ c Ad_{P_1 ⋯ P_{i−1}} E_j` over the factors `P_i = exp(c x_j E_j)` that carry `x_j`:
//!
//! ```text
//!   SO(3):  dτ_x = [ ½(e_1 + M_4 e_1),  ½(M_1 e_2 + M_3 e_2),  M_2 e_3 ],
//!           M_1 = A_1(x_1/2),  M_2 = M_1 A_2(x_2/2),  M_3 = M_2 A_3(x_3),  M_4 = M_3 A_2(x_2/2);
//!   SE(3):  the rotation columns ½[(a, 0) + (b, Qv × b)] with a, b the two terms of SO(3)'s
//!           column (b the one carried by the factors right of (I, v)), the translation
//!           columns (0, Q e_i),
//! ```
//!
//! in the coordinates `x = (ω, v)` of [`super::se3`] (`Ad_{(R, p)}(ω, u) = (Rω, p × Rω + Ru)`).
//! `dτ_x` becomes singular at a gimbal lock (e.g. `x_2 = ±π` with `x_1 = 0`: the first and last
//! `x_1` factors then cancel); `dτ^{-1}` is its LU inverse and reports the singularity.
//!
//! `τ^{-1}` has no closed form for the palindrome: it is Newton's method on `τ(x) = R` in the
//! right trivialization, `x ← x + dτ_x^{-1} log(R τ(x)^{-1})`, from `x_0 = log R` (the chart
//! agrees with `exp` to second order), at the caller's scalar (so a dual `R` gives a dual `x`
//! with its exact derivative: the iteration runs until the real part's correction is below
//! `1e-15·(1 + |x|)` and then twice more). Outside the chart's domain (no convergence in 30
//! iterations, a singular `dτ`) it is [`GeomError::OutsideDomain`]. On SE(3), `ω = τ^{-1}(R)`
//! and `v = Qᵀ p`.

use super::so3;
use super::{GroupChart, Se3, So3};
use crate::{GeomError, Result, Scalar};
use nalgebra::{Matrix3, Matrix4, SMatrix, SVector, Vector3};

/// Symmetric canonical coordinates of the second kind on [`So3`] and [`Se3`] (module
/// documentation): `τ(x) = A_1(x_1/2) A_2(x_2/2) A_3(x_3) A_2(x_2/2) A_1(x_1/2)` on SO(3).
/// A [`GroupChart`] at every scalar, accepted wherever a method takes a chart.
///
/// ```
/// use geom_core::lie::{SecondKind, check_chart, So3, Se3};
/// check_chart(&So3, &SecondKind)?;
/// check_chart(&Se3, &SecondKind)?;
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SecondKind;

/// Iterations of the Newton solve of `τ^{-1}` before it gives up.
const MAX_INVERSE_ITERATIONS: usize = 30;

/// The rotation `exp(s ê_axis)` about the body axis `axis` (0, 1, 2).
fn axis_rotation<S: Scalar>(axis: usize, s: S) -> Matrix3<S> {
    let (c, si) = (s.cos(), s.sin());
    let (one, zero) = (S::from(1.0), S::from(0.0));
    let (j, k) = ((axis + 1) % 3, (axis + 2) % 3);
    let mut m = Matrix3::from_diagonal_element(zero);
    m[(axis, axis)] = one;
    m[(j, j)] = c;
    m[(k, k)] = c;
    m[(j, k)] = -si;
    m[(k, j)] = si;
    m
}

/// The prefix products `(M_1, M_2, M_3, M_4)` of SO(3)'s palindrome (module documentation) and
/// `τ(x) = M_4 A_1(x_1/2)`.
fn so3_factors<S: Scalar>(x: &Vector3<S>) -> ([Matrix3<S>; 4], Matrix3<S>) {
    let half = S::from(0.5);
    let a1 = axis_rotation(0, x[0] * half);
    let a2 = axis_rotation(1, x[1] * half);
    let m1 = a1;
    let m2 = so3::mul3(&m1, &a2);
    let m3 = so3::mul3(&m2, &axis_rotation(2, x[2]));
    let m4 = so3::mul3(&m3, &a2);
    let tau = so3::mul3(&m4, &a1);
    ([m1, m2, m3, m4], tau)
}

/// SO(3)'s `dτ_x` as the two terms of each column: `(left, right)` with column `j` equal to
/// `left_j + right_j` (the factors left and right of the middle of the palindrome).
fn so3_dtau_terms<S: Scalar>(m: &[Matrix3<S>; 4]) -> (Matrix3<S>, Matrix3<S>) {
    let half = S::from(0.5);
    let e = |i: usize| Vector3::from_fn(|r, _| if r == i { S::from(1.0) } else { S::from(0.0) });
    let [m1, m2, m3, m4] = m;
    let left = Matrix3::from_columns(&[e(0) * half, m1 * e(1) * half, m2 * e(2) * half]);
    let right = Matrix3::from_columns(&[m4 * e(0) * half, m3 * e(1) * half, m2 * e(2) * half]);
    (left, right)
}

/// `τ^{-1}(R)` on SO(3) by Newton's method (module documentation).
fn so3_tau_inv<S: Scalar>(r: &Matrix3<S>) -> Result<Vector3<S>> {
    let outside = || GeomError::OutsideDomain {
        map: "second-kind coordinates (inverse)",
        reason: "no convergence: R is outside the chart's domain (gimbal lock)",
    };
    if !r.iter().all(|v| v.re().is_finite()) {
        return Err(GeomError::NonFinite { what: "rotation given to second-kind coordinates" });
    }
    let mut x = so3::log(r);
    let mut extra = 0;
    for _ in 0..MAX_INVERSE_ITERATIONS {
        let (m, tau) = so3_factors(&x);
        let (left, right) = so3_dtau_terms(&m);
        let residual = so3::log(&so3::mul3(r, &tau.transpose()));
        let dx = crate::linalg::solve(&(left + right), &residual, "second-kind dtau").map_err(|_| outside())?;
        x += dx;
        let size = dx.iter().fold(0.0f64, |a, v| a.max(v.re().abs()));
        let scale = x.iter().fold(0.0f64, |a, v| a.max(v.re().abs()));
        if !size.is_finite() {
            return Err(outside());
        }
        if size <= 1e-15 * (1.0 + scale) {
            // the derivative parts of a dual argument converge one Newton step behind
            extra += 1;
            if extra > 2 {
                return Ok(x);
            }
        }
    }
    Err(outside())
}

impl<S: Scalar> GroupChart<S, So3, 3> for SecondKind {
    fn name(&self) -> String {
        "second-kind".into()
    }
    /// `A_1(x_1/2) A_2(x_2/2) A_3(x_3) A_2(x_2/2) A_1(x_1/2)`.
    fn tau(&self, _: &So3, x: &SVector<S, 3>) -> Result<Matrix3<S>> {
        if !x.iter().all(|v| v.re().is_finite()) {
            return Err(GeomError::NonFinite { what: "second-kind coordinates" });
        }
        Ok(so3_factors(x).1)
    }
    fn tau_inv(&self, _: &So3, g: &Matrix3<S>) -> Result<SVector<S, 3>> {
        so3_tau_inv(g)
    }
    /// `[½(e_1 + M_4 e_1), ½(M_1 e_2 + M_3 e_2), M_2 e_3]`.
    fn dtau(&self, _: &So3, x: &SVector<S, 3>) -> Result<SMatrix<S, 3, 3>> {
        let (left, right) = so3_dtau_terms(&so3_factors(x).0);
        Ok(left + right)
    }
}

/// `Q = A_1(ω_1/2) A_2(ω_2/2) A_3(ω_3/2)` of SE(3)'s chart.
fn se3_q<S: Scalar>(omega: &Vector3<S>) -> Matrix3<S> {
    let half = S::from(0.5);
    let m2 = so3::mul3(&axis_rotation(0, omega[0] * half), &axis_rotation(1, omega[1] * half));
    so3::mul3(&m2, &axis_rotation(2, omega[2] * half))
}

fn split<S: Scalar>(x: &SVector<S, 6>) -> (Vector3<S>, Vector3<S>) {
    (Vector3::new(x[0], x[1], x[2]), Vector3::new(x[3], x[4], x[5]))
}

impl<S: Scalar> GroupChart<S, Se3, 6> for SecondKind {
    fn name(&self) -> String {
        "second-kind".into()
    }
    /// `(Q Q', Q v)`: the rotation part is SO(3)'s chart at `ω`.
    fn tau(&self, _: &Se3, x: &SVector<S, 6>) -> Result<Matrix4<S>> {
        if !x.iter().all(|v| v.re().is_finite()) {
            return Err(GeomError::NonFinite { what: "second-kind coordinates" });
        }
        let (omega, v) = split(x);
        let r = so3_factors(&omega).1;
        let p = se3_q(&omega) * v;
        let mut g = Matrix4::identity();
        g.fixed_view_mut::<3, 3>(0, 0).copy_from(&r);
        g.fixed_view_mut::<3, 1>(0, 3).copy_from(&p);
        Ok(g)
    }
    /// `ω = τ^{-1}_{SO(3)}(R)`, `v = Qᵀ p`.
    fn tau_inv(&self, _: &Se3, g: &Matrix4<S>) -> Result<SVector<S, 6>> {
        let r: Matrix3<S> = g.fixed_view::<3, 3>(0, 0).into_owned();
        let p: Vector3<S> = g.fixed_view::<3, 1>(0, 3).into_owned();
        let omega = so3_tau_inv(&r)?;
        let v = se3_q(&omega).transpose() * p;
        Ok(SVector::<S, 6>::from_fn(|i, _| if i < 3 { omega[i] } else { v[i - 3] }))
    }
    /// Rotation columns `½[(a, 0) + (b, Qv × b)]`, translation columns `(0, Q e_i)`.
    fn dtau(&self, _: &Se3, x: &SVector<S, 6>) -> Result<SMatrix<S, 6, 6>> {
        let (omega, v) = split(x);
        let (left, right) = so3_dtau_terms(&so3_factors(&omega).0);
        let q = se3_q(&omega);
        let p = q * v;
        let mut d = SMatrix::<S, 6, 6>::zeros();
        for j in 0..3 {
            let (a, b) = (left.column(j).into_owned(), right.column(j).into_owned());
            let top = a + b;
            let bottom = p.cross(&b);
            for i in 0..3 {
                d[(i, j)] = top[i];
                d[(i + 3, j)] = bottom[i];
                d[(i + 3, j + 3)] = q[(i, j)];
            }
        }
        Ok(d)
    }
}

crate::every_scalar_chart!(SecondKind, So3, 3);
crate::every_scalar_chart!(SecondKind, Se3, 6);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lie::{LieGroup, check_chart};
    use num_dual::Dual64;

    #[test]
    fn passes_check_chart_on_so3_and_se3() {
        let so3 = check_chart(&So3, &SecondKind).unwrap();
        let se3 = check_chart(&Se3, &SecondKind).unwrap();
        assert!(so3.round_trip < 1e-14 && se3.round_trip < 1e-14, "{so3:?} {se3:?}");
    }

    /// The chart is not `exp`: they agree to second order only (the difference is cubic).
    #[test]
    fn differs_from_exp_at_third_order() {
        let dir = Vector3::new(0.3, -0.5, 0.8);
        let gap = |s: f64| {
            let a: Matrix3<f64> = GroupChart::<f64, So3, 3>::tau(&SecondKind, &So3, &(dir * s)).unwrap();
            (a - LieGroup::<f64, 3>::exp(&So3, &(dir * s))).amax()
        };
        let slope = (gap(0.02) / gap(0.01)).log2();
        assert!((slope - 3.0).abs() < 0.1, "slope {slope}");
    }

    /// `τ^{-1}` at a dual argument carries the exact derivative: `d/ds τ^{-1}(τ(x + s y)) = y`.
    #[test]
    fn inverse_differentiates() {
        let (x, y) = (Vector3::new(0.4, -0.3, 0.9), Vector3::new(0.2, 0.7, -0.1));
        let xd = Vector3::from_fn(|i, _| Dual64::new(x[i], y[i]));
        let r = GroupChart::<Dual64, So3, 3>::tau(&SecondKind, &So3, &xd).unwrap();
        let back = GroupChart::<Dual64, So3, 3>::tau_inv(&SecondKind, &So3, &r).unwrap();
        for i in 0..3 {
            assert!((back[i].re - x[i]).abs() < 1e-14 && (back[i].eps - y[i]).abs() < 1e-12, "{back:?}");
        }
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let nan = Vector3::new(f64::NAN, 0.0, 0.0);
        assert!(GroupChart::<f64, So3, 3>::tau(&SecondKind, &So3, &nan).is_err());
        let r = Matrix3::from_element(f64::NAN);
        assert!(GroupChart::<f64, So3, 3>::tau_inv(&SecondKind, &So3, &r).is_err());
        // gimbal lock: the rotation with x_2 = π has a singular dτ
        let locked =
            GroupChart::<f64, So3, 3>::tau(&SecondKind, &So3, &Vector3::new(0.0, std::f64::consts::PI, 0.3)).unwrap();
        let d =
            GroupChart::<f64, So3, 3>::dtau(&SecondKind, &So3, &Vector3::new(0.0, std::f64::consts::PI, 0.3)).unwrap();
        assert!(d.determinant().abs() < 1e-12, "det {}", d.determinant());
        // a rotation: no panic whatever tau_inv answers at the lock
        let _ = GroupChart::<f64, So3, 3>::tau_inv(&SecondKind, &So3, &locked);
    }
}
