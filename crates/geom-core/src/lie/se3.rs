//! SE(3), rigid motions `g = [[R, p], [0, 1]]`, with closed forms built on the SO(3) formulas.
//!
//! Algebra coordinates `x = (ω, v) ∈ R^6`, rotation first (docs/math.md §D.2, D.6), with
//! `hat(x) = [[ω̂, v], [0, 0]]` and bracket `[(ω1, v1), (ω2, v2)] = (ω1 × ω2, ω1 × v2 - ω2 × v1)`.
//!
//! * `exp(x) = [[exp(ω̂), J(ω) v], [0, 1]]`, `J = dexp` of SO(3); `log` inverts it with `J^{-1}`.
//! * `Ad_g = [[R, 0], [p̂ R, R]]`, `ad_x = [[ω̂, 0], [v̂, ω̂]]`.
//! * `dexp_x = [[J, 0], [Q, J]]` with Barfoot's
//!   `Q = v̂/2 + c2 (ω̂v̂ + v̂ω̂ + ω̂v̂ω̂) + c3 (ω̂²v̂ + v̂ω̂² - 3ω̂v̂ω̂) + c4 (ω̂v̂ω̂² + ω̂²v̂ω̂)`,
//!   `c2 = (θ - sin θ)/θ^3`, `c3 = (θ^2 + 2 cos θ - 2)/(2θ^4)`, `c4 = (2θ - 3 sin θ + θ cos θ)/(2θ^5)`;
//!   `dexp_x^{-1} = [[J^{-1}, 0], [-J^{-1} Q J^{-1}, J^{-1}]]`. As `dexp_x^{-1} = f(ad_x)`,
//!   `f(z) = z/(e^z - 1)`, with `ad_x` block lower triangular with diagonal blocks `ω̂`, its
//!   lower-left block is the derivative of `f(ω̂) = J^{-1}(ω)` along `v̂`:
//!   `-J^{-1} Q J^{-1} = D_ω J^{-1}(ω)[v] = -v̂/2 + d (ω̂v̂ + v̂ω̂) + 2 d'(θ²) (ω·v) ω̂²`, with
//!   `J^{-1} = I - ω̂/2 + d ω̂²`, `d(θ²) = (1 - (θ/2) cot(θ/2))/θ²` (no 3×3 products; used by
//!   `dexp_inv`).
//! * `cay(x) = [[cay(ω), (I - ω̂/2)^{-1} v], [0, 1]]`,
//!   `dcay_x^{-1} = [[I - ω̂/2 + ωωᵀ/4, 0], [-v̂/2 + ω̂v̂/4, I - ω̂/2]]` (docs/math.md §D.2).

use super::series::inv_factorial;
use super::so3::{self, DEXP_INV_D};
use super::{Chart, LieGroup, MEMBERSHIP_TOLERANCE};
use crate::{Result, Scalar, scalar::series};
use nalgebra::{Matrix3, Matrix4, Matrix6, Vector3, Vector6};

const SERIES_T: f64 = 0.25;

const fn alternating<const K: usize>(offset: usize, scale: [f64; K]) -> [f64; K] {
    let mut out = [0.0; K];
    let mut k = 0;
    while k < K {
        let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
        out[k] = sign * scale[k] * inv_factorial(2 * k + offset);
        k += 1;
    }
    out
}
/// `c3 = sum_k (-1)^k θ^{2k}/(2k+4)!`.
const C3: [f64; 9] = alternating::<9>(4, [1.0; 9]);
/// `c4 = sum_{k>=0} (-1)^k (k+1)/(2k+5)! θ^{2k}`.
const C4: [f64; 9] = alternating::<9>(5, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);

/// `(k + 1) c_{k+1}`: the coefficients of the derivative of `Σ_k c_k t^k`.
const fn derivative_coefficients<const K: usize, const M: usize>(c: [f64; K]) -> [f64; M] {
    let mut out = [0.0; M];
    let mut k = 0;
    while k < M {
        out[k] = (k + 1) as f64 * c[k + 1];
        k += 1;
    }
    out
}
/// `d'(t) = Σ_k DEXP_INV_D1[k] t^k`.
const DEXP_INV_D1: [f64; 17] = derivative_coefficients::<18, 17>(DEXP_INV_D);

/// Below this `t = θ²` (`θ < 2`) [`dexp_inv_coefficients`] sums the series (9 terms for
/// `t < 1/4`, 18 above: truncation below 1e-16 relative); above, the closed forms.
const DEXP_INV_SERIES_T: f64 = 4.0;

/// `(d(t), d'(t))` of `d(t) = (1 - (θ/2) cot(θ/2))/θ²`, `t = θ²`: series below
/// [`DEXP_INV_SERIES_T`], else `g = 1 - (θ/2) cot(θ/2)`, `g' = -½ cot(θ/2) + (θ/4)/sin²(θ/2)`,
/// `d = g/t`, `d' = g'/(2θt) - g/t²` (`d'` enters multiplied by `θ²`, where the cancellation of
/// `g ≈ t/12` costs at most ~1e-15 relative). Not defined where `sin(θ/2) = 0`; the caller
/// checks the domain first (`so3::dexp_inv`).
#[inline]
fn dexp_inv_coefficients<S: Scalar>(t: S) -> (S, S) {
    if t.re() < SERIES_T {
        (series(t, &DEXP_INV_D[..9]), series(t, &DEXP_INV_D1[..8]))
    } else if t.re() < DEXP_INV_SERIES_T {
        (series(t, &DEXP_INV_D), series(t, &DEXP_INV_D1))
    } else {
        let theta = t.sqrt();
        let half = theta * S::from(0.5);
        let (s, c) = (half.sin(), half.cos());
        let cot = c / s;
        let g = S::from(1.0) - half * cot;
        let dg = cot * S::from(-0.5) + half * S::from(0.5) / (s * s);
        (g / t, dg / (S::from(2.0) * theta * t) - g / (t * t))
    }
}

/// Split `x = (ω, v)`.
#[inline]
pub fn split<S: Scalar>(x: &Vector6<S>) -> (Vector3<S>, Vector3<S>) {
    (x.fixed_rows::<3>(0).into_owned(), x.fixed_rows::<3>(3).into_owned())
}

/// Join `(ω, v)` into `x`.
#[inline]
pub fn join<S: Scalar>(w: &Vector3<S>, v: &Vector3<S>) -> Vector6<S> {
    Vector6::new(w[0], w[1], w[2], v[0], v[1], v[2])
}

/// The homogeneous matrix `[[R, p], [0, 1]]`.
#[inline]
pub fn from_parts<S: Scalar>(r: &Matrix3<S>, p: &Vector3<S>) -> Matrix4<S> {
    let mut g = Matrix4::identity();
    g.fixed_view_mut::<3, 3>(0, 0).copy_from(r);
    g.fixed_view_mut::<3, 1>(0, 3).copy_from(p);
    g
}

/// `(R, p)` of `g = [[R, p], [0, 1]]`.
#[inline]
pub fn parts<S: Scalar>(g: &Matrix4<S>) -> (Matrix3<S>, Vector3<S>) {
    (g.fixed_view::<3, 3>(0, 0).into_owned(), g.fixed_view::<3, 1>(0, 3).into_owned())
}

#[inline]
fn block<S: Scalar>(a: &Matrix3<S>, b: &Matrix3<S>, c: &Matrix3<S>, d: &Matrix3<S>) -> Matrix6<S> {
    let mut m = Matrix6::zeros();
    m.fixed_view_mut::<3, 3>(0, 0).copy_from(a);
    m.fixed_view_mut::<3, 3>(0, 3).copy_from(b);
    m.fixed_view_mut::<3, 3>(3, 0).copy_from(c);
    m.fixed_view_mut::<3, 3>(3, 3).copy_from(d);
    m
}

/// Barfoot's `Q(ω, v)`, the lower-left block of `dexp`.
fn q_block<S: Scalar>(w: &Vector3<S>, v: &Vector3<S>) -> Matrix3<S> {
    let t = w.norm_squared();
    let (_, _, c2) = so3::rodrigues_coefficients(t);
    let (c3, c4) = if t.re() < SERIES_T {
        (series(t, &C3), series(t, &C4))
    } else {
        let th = t.sqrt();
        let (s, c) = (th.sin(), th.cos());
        let two = S::from(2.0);
        ((t + two * c - two) / (two * t * t), (two * th - S::from(3.0) * s + th * c) / (two * t * t * th))
    };
    let wh = so3::hat(w);
    let vh = so3::hat(v);
    let wv = wh * vh;
    let vw = vh * wh;
    let wvw = wv * wh;
    vh * S::from(0.5)
        + (wv + vw + wvw) * c2
        + (wh * wv + vw * wh - wvw * S::from(3.0)) * c3
        + (wvw * wh + wh * wvw) * c4
}

/// `|(R, p) - SE(3)|`: the SO(3) defect of `R` plus the bottom row's distance to `(0, 0, 0, 1)`.
fn defect<S: Scalar>(g: &Matrix4<S>) -> f64 {
    let m = g.map(|v| v.re());
    if !m.iter().all(|v| v.is_finite()) {
        return f64::INFINITY;
    }
    let bottom = (m[(3, 0)].powi(2) + m[(3, 1)].powi(2) + m[(3, 2)].powi(2) + (m[(3, 3)] - 1.0).powi(2)).sqrt();
    so3::defect(&m.fixed_view::<3, 3>(0, 0).into_owned()) + bottom
}

/// The group of rigid motions SE(3), elements as homogeneous `Matrix4` (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Se3;

impl Se3 {
    /// A checked rigid motion from `(R, p)`: finite, `R` within `1e-9` of SO(3).
    ///
    /// ```
    /// use geom_core::lie::Se3;
    /// use nalgebra::{Matrix3, Vector3};
    /// assert!(Se3::from_rotation_translation(Matrix3::identity(), Vector3::new(1.0, 2.0, 3.0)).is_ok());
    /// assert!(Se3::from_rotation_translation(Matrix3::zeros(), Vector3::zeros()).is_err());
    /// ```
    pub fn from_rotation_translation(r: Matrix3<f64>, p: Vector3<f64>) -> Result<Matrix4<f64>> {
        let g = from_parts(&r, &p);
        LieGroup::<f64, 6>::check_element(&Se3, &g, MEMBERSHIP_TOLERANCE)?;
        Ok(g)
    }
}

impl<S: Scalar> LieGroup<S, 6> for Se3 {
    type Element = Matrix4<S>;
    type Matrix = Matrix4<S>;

    fn name(&self) -> String {
        "SE(3)".into()
    }
    fn identity(&self) -> Matrix4<S> {
        Matrix4::identity()
    }
    fn compose(&self, a: &Matrix4<S>, b: &Matrix4<S>) -> Matrix4<S> {
        let (ra, pa) = parts(a);
        let (rb, pb) = parts(b);
        from_parts(&(ra * rb), &(ra * pb + pa))
    }
    fn inverse(&self, a: &Matrix4<S>) -> Matrix4<S> {
        let (r, p) = parts(a);
        let rt = r.transpose();
        from_parts(&rt, &(-(rt * p)))
    }
    fn exp(&self, x: &Vector6<S>) -> Matrix4<S> {
        let (w, v) = split(x);
        from_parts(&so3::exp(&w), &(so3::dexp(&w) * v))
    }
    fn log(&self, g: &Matrix4<S>) -> Result<Vector6<S>> {
        let (r, p) = parts(g);
        let (w, j_inv) = so3::log_with_dexp_inv(&r)?;
        Ok(join(&w, &(j_inv * p)))
    }
    fn hat(&self, x: &Vector6<S>) -> Matrix4<S> {
        let (w, v) = split(x);
        let mut m = from_parts(&so3::hat(&w), &v);
        m[(3, 3)] = S::from(0.0);
        m
    }
    fn vee(&self, m: &Matrix4<S>) -> Vector6<S> {
        let (r, p) = parts(m);
        join(&so3::vee(&r), &p)
    }
    fn to_matrix(&self, g: &Matrix4<S>) -> Matrix4<S> {
        *g
    }
    fn adjoint(&self, g: &Matrix4<S>) -> Matrix6<S> {
        let (r, p) = parts(g);
        block(&r, &Matrix3::zeros(), &(so3::hat(&p) * r), &r)
    }
    fn ad(&self, x: &Vector6<S>) -> Matrix6<S> {
        let (w, v) = split(x);
        let wh = so3::hat(&w);
        block(&wh, &Matrix3::zeros(), &so3::hat(&v), &wh)
    }
    fn bracket(&self, x: &Vector6<S>, y: &Vector6<S>) -> Vector6<S> {
        let (w1, v1) = split(x);
        let (w2, v2) = split(y);
        join(&w1.cross(&w2), &(w1.cross(&v2) - w2.cross(&v1)))
    }
    fn ad_star(&self, x: &Vector6<S>, mu: &Vector6<S>) -> Vector6<S> {
        // ad*_(Ω,v)(Π,P) = (Π×Ω + P×v, P×Ω)  (docs/math.md §D.6)
        let (w, v) = split(x);
        let (pi, p) = split(mu);
        join(&(pi.cross(&w) + p.cross(&v)), &p.cross(&w))
    }
    fn dexp(&self, x: &Vector6<S>) -> Matrix6<S> {
        let (w, v) = split(x);
        let j = so3::dexp(&w);
        block(&j, &Matrix3::zeros(), &q_block(&w, &v), &j)
    }
    /// `[[J^{-1}, 0], [D_ω J^{-1}(ω)[v], J^{-1}]]` with
    /// `D_ω J^{-1}(ω)[v] = -J^{-1} Q J^{-1} = -v̂/2 + d (v ωᵀ + ω vᵀ - 2 (ω·v) I) +
    /// 2 d' (ω·v) (ω ωᵀ - θ² I)` (module documentation).
    fn dexp_inv(&self, x: &Vector6<S>) -> Result<Matrix6<S>> {
        let (w, v) = split(x);
        let ji = so3::dexp_inv(&w)?;
        let t = w.norm_squared();
        let (d, d1) = dexp_inv_coefficients(t);
        let wv = w.dot(&v);
        let k = d1 * wv * S::from(2.0);
        let mut c = so3::hat(&v) * S::from(-0.5) + (v * w.transpose() + w * v.transpose()) * d + w * w.transpose() * k;
        let diag = -(d * wv * S::from(2.0) + k * t);
        for i in 0..3 {
            c[(i, i)] += diag;
        }
        Ok(block(&ji, &Matrix3::zeros(), &c, &ji))
    }
    fn cayley(&self, x: &Vector6<S>) -> Result<Matrix4<S>> {
        let (w, v) = split(x);
        // (I - ω̂/2)^{-1} = (I + ω̂/2 + ωωᵀ/4)/(1 + |ω|^2/4)
        let a_inv = (Matrix3::identity() + so3::hat(&w) * S::from(0.5) + w * w.transpose() * S::from(0.25))
            / (S::from(1.0) + w.norm_squared() * S::from(0.25));
        Ok(from_parts(&so3::cayley(&w), &(a_inv * v)))
    }
    fn cayley_inv(&self, g: &Matrix4<S>) -> Result<Vector6<S>> {
        let (r, p) = parts(g);
        let w = so3::cayley_inv(&r)?;
        let a = Matrix3::identity() - so3::hat(&w) * S::from(0.5);
        Ok(join(&w, &(a * p)))
    }
    fn dcay_inv(&self, x: &Vector6<S>) -> Matrix6<S> {
        let (w, v) = split(x);
        let wh = so3::hat(&w);
        let vh = so3::hat(&v);
        let h = S::from(0.5);
        block(
            &so3::dcay_inv(&w),
            &Matrix3::zeros(),
            &(wh * vh * S::from(0.25) - vh * h),
            &(Matrix3::identity() - wh * h),
        )
    }
    /// Cayley, `x = (ω, y)`, `mu = (π, p)`: `(dcay_x^{-1})ᵀ mu = (π + ½ ω×π + ¼ (ω·π) ω + ½ y×p
    /// + ¼ y×(ω×p), p + ½ ω×p)`, derivative
    /// `[[-½ π̂ + ¼ (ω πᵀ + (ω·π) I) - ¼ ŷ p̂, -½ p̂ - ¼ (ω×p)^], [-½ p̂, 0]]`.
    fn dtau_inv_transpose_closed_form(&self, chart: Chart, x: &Vector6<S>, mu: &Vector6<S>) -> Option<Matrix6<S>> {
        match chart {
            Chart::Cayley => {
                let (w, y) = split(x);
                let (pi, p) = split(mu);
                let (h, q) = (S::from(0.5), S::from(0.25));
                let ph = so3::hat(&p);
                let a = so3::hat(&pi) * (-h) + (w * pi.transpose() + Matrix3::from_diagonal_element(w.dot(&pi))) * q
                    - so3::hat(&y) * ph * q;
                let b = ph * (-h) - so3::hat(&w.cross(&p)) * q;
                Some(block(&a, &b, &(ph * (-h)), &Matrix3::zeros()))
            }
            Chart::Exp => None,
        }
    }
    fn dcay(&self, x: &Vector6<S>) -> Result<Matrix6<S>> {
        // inverse of the block-lower-triangular dcay^{-1} = [[P, 0], [C, R]]
        let (w, v) = split(x);
        let wh = so3::hat(&w);
        let h = S::from(0.5);
        let p_inv = so3::dcay(&w);
        let r_inv = (Matrix3::identity() + wh * h + w * w.transpose() * S::from(0.25))
            / (S::from(1.0) + w.norm_squared() * S::from(0.25));
        let vh = so3::hat(&v);
        let c = wh * vh * S::from(0.25) - vh * h;
        Ok(block(&p_inv, &Matrix3::zeros(), &(-(r_inv * c * p_inv)), &r_inv))
    }
    fn defect(&self, g: &Matrix4<S>) -> f64 {
        defect(g)
    }
    #[inline]
    fn is_finite(&self, g: &Matrix4<S>) -> bool {
        g.iter().all(|v| v.re().is_finite())
    }
}
