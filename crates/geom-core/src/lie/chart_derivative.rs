//! The derivative of the transposed inverse chart tangent, `x ↦ (dτ^{-1}_x)* μ`, which the
//! Newton Jacobian of the reduced (left-invariant) HP step needs:
//!
//! ```text
//!   R(ξ) = (dτ^{-1}_{hξ})* m(ξ) - Π_k,
//!   DR(ξ) = (dτ^{-1}_{hξ})* Dm(ξ) + h · D_x[(dτ^{-1}_x)* μ]|_{x = hξ, μ = m(ξ)}.
//! ```
//!
//! [`LieGroupFamily::dtau_inv_transpose_derivative`](super::LieGroupFamily::dtau_inv_transpose_derivative)
//! computes the last factor exactly by forward AD (`DualSVec64<D>`, [`ad_dtau_inv_transpose_derivative`])
//! for every group, and in closed form for SO(3), SE(3) (both charts) and `R^n` (the overrides
//! in those groups' `LieGroupFamily` implementations call the functions below), where the whole
//! Jacobian then costs a few 3×3 products — this is the "specialised Jacobian" that keeps the
//! generic step within a small factor of a hand-written loop (benches/hp.rs) and the exp chart
//! within a small factor of Cayley (benches/vehicle.rs). The closed forms (from the block forms
//! of `dτ⁻¹` in Bou-Rabee and Marsden, "Hamilton–Pontryagin integrators on Lie groups", 2009)
//! are checked against AD in the tests below (SE(3): also tests/se3_chart_derivative.rs):
//!
//! * SO(3), Cayley: `(dcay^{-1}_x)* μ = μ + ½ x×μ + ¼ (x·μ) x`, derivative
//!   `-½ μ̂ + ¼ (x μᵀ + (x·μ) I)`;
//! * SO(3), exp: `(dexp^{-1}_x)* μ = μ + ½ x×μ + d(t) (x (x·μ) - t μ)`, `t = |x|²`,
//!   `d = (1 - (θ/2) cot(θ/2))/θ²`; derivative
//!   `-½ μ̂ + d (x μᵀ + (x·μ) I - 2 μ xᵀ) + 2 d'(t) (x (x·μ) - t μ) xᵀ`;
//! * SE(3), Cayley and exp: see [`se3_dtau_inv_transpose`] (exp: the SO(3) closed form and
//!   its second derivative, through `-J^{-1} Q J^{-1} = D_ω J^{-1}(ω)[v]`);
//! * `R^n`: `dτ^{-1} = I`, derivative 0.
//!
//! The Cayley derivatives of SO(3) and SE(3), and the exp one of SO(3) at any scalar, are
//! geom-core's [`LieGroup::dtau_inv_transpose_closed_form`] (shared with the Lie–Poisson and
//! cotangent-lift integrators of `discretization`); the exp ones at `f64` used here are below.

use super::so3::DEXP_INV_D;
use super::{Chart, LieGroup, se3, so3};
use crate::scalar::{estrin, head};
use crate::{GeomError, Result};
use nalgebra::{Const, Matrix3, Matrix6, SMatrix, SVector, U1, Vector3, Vector6};
use num_dual::DualSVec64;

/// `D_x[(dτ^{-1}_x)ᵀ μ]` by forward AD: `dτ^{-1}` evaluated at `x + Σ_j ε_j e_j`
/// (`DualSVec64<D>`), transposed and applied to `μ`; entry `(i, j)` is the `ε_j` part of row `i`.
/// The default of
/// [`LieGroupFamily::dtau_inv_transpose_derivative`](super::LieGroupFamily::dtau_inv_transpose_derivative)
/// where the group has no closed form, and the reference of the closed forms.
pub fn ad_dtau_inv_transpose_derivative<G, const D: usize>(
    group: &G,
    chart: Chart,
    x: &SVector<f64, D>,
    mu: &SVector<f64, D>,
) -> Result<SMatrix<f64, D, D>>
where
    G: LieGroup<DualSVec64<D>, D> + ?Sized,
{
    let xd = SVector::<DualSVec64<D>, D>::from_fn(|i, _| DualSVec64::from_re(x[i]).derivative(i));
    let v = group.dtau_inv(chart, &xd)?.tr_mul(&mu.map(DualSVec64::from_re));
    Ok(SMatrix::from_fn(|i, j| v[i].eps.unwrap_generic(Const::<D>, U1)[j]))
}

/// The closed forms of SE(3), `x = (ω, y)`, `μ = (π, p)`, both charts (no 6×6 matrix is formed):
///
/// * Cayley (from the block form of `dcay⁻¹` on SE(3)):
///   `(dcay^{-1}_x)* μ = (π + ½ ω×π + ¼ (ω·π) ω + ½ y×p + ¼ y×(ω×p), p + ½ ω×p)`, with derivative
///   `[[-½ π̂ + ¼ (ω πᵀ + (ω·π) I) - ¼ ŷ p̂, -½ p̂ - ¼ (ω×p)^], [-½ p̂, 0]]`;
/// * exp: `dexp^{-1}_x = [[J^{-1}, 0], [-J^{-1} Q J^{-1}, J^{-1}]]` (`J` = dexp of SO(3) at `ω`,
///   `Q = Q(ω, y)` Barfoot's block, `geom_core::lie::se3`). `dexp^{-1}_x = f(ad_x)`,
///   `f(z) = z/(e^z - 1)`, and `ad_x = [[ω̂, 0], [ŷ, ω̂]]`, so the lower-left block is the
///   derivative of `f(ω̂) = J^{-1}(ω)` along `ŷ`: `-J^{-1} Q J^{-1} = D_ω J^{-1}(ω)[y]` (i.e.
///   `Q = D_ω J(ω)[y]`). Transposed and applied to `μ`, `Q` drops out:
///   `(dexp^{-1}_x)* μ = (J^{-1}ᵀ π + F(p) y, J^{-1}ᵀ p)` with `F(a) = D_ω[J^{-1}(ω)ᵀ a]` the
///   SO(3) derivative above, and its derivative is
///   `[[F(π) + H, F(p)], [F(p), 0]]`, `H = D_ω(F(p) y)` (`y` fixed) the second derivative of
///   `ω ↦ J^{-1}(ω)ᵀ p`: with `t = |ω|²`, `m = ω (ω·p) - t p`,
///   `Dm[y] = y (ω·p) + ω (y·p) - 2 (ω·y) p`,
///   `F(p) y = ½ y×p + d Dm[y] + 2 d' (ω·y) m` and
///   `H = d (y pᵀ + (y·p) I - 2 p yᵀ) + 2 d' (Dm[y] ωᵀ + m yᵀ) +
///   2 d' (ω·y) (ω pᵀ + (ω·p) I - 2 p ωᵀ) + 4 d'' (ω·y) m ωᵀ`
///   (`d`, `d'`, `d''` of `t`: power series for `|ω| < 2`, closed form above).
///
/// This function: `(dτ^{-1}_x)ᵀ μ` on SE(3) for both charts ([`LieGroupFamily::dtau_inv_transpose`] of
/// [`super::Se3`]; formulas above).
///
/// [`LieGroupFamily::dtau_inv_transpose`]: super::LieGroupFamily::dtau_inv_transpose
#[inline]
pub(super) fn se3_dtau_inv_transpose(chart: Chart, x: &Vector6<f64>, mu: &Vector6<f64>) -> Result<Vector6<f64>> {
    match chart {
        Chart::Cayley => {
            let (w, y) = se3::split(x);
            let (pi, p) = se3::split(mu);
            let wp = w.cross(&p);
            Ok(se3::join(
                &(pi + w.cross(&pi) * 0.5 + w * (0.25 * w.dot(&pi)) + y.cross(&p) * 0.5 + y.cross(&wp) * 0.25),
                &(p + wp * 0.5),
            ))
        }
        Chart::Exp => se3_dexp_inv_transpose(x, mu),
    }
}

/// `D_x[(dτ^{-1}_x)ᵀ μ]` on SE(3) for both charts
/// ([`LieGroupFamily::dtau_inv_transpose_derivative`](super::LieGroupFamily::dtau_inv_transpose_derivative)
/// of [`super::Se3`]; formulas above).
#[inline]
pub(super) fn se3_dtau_inv_transpose_derivative(
    chart: Chart,
    x: &Vector6<f64>,
    mu: &Vector6<f64>,
) -> Result<Matrix6<f64>> {
    // Cayley: geom-core's closed form; exp: below
    match LieGroup::<f64, 6>::dtau_inv_transpose_closed_form(&super::Se3, chart, x, mu) {
        Some(m) => Ok(m),
        None => se3_dexp_inv_transpose_derivative(x, mu),
    }
}

/// `(dτ^{-1}_x)ᵀ μ` on SO(3): Cayley `μ + ½ x×μ + ¼ (x·μ) x`, exp [`so3_dexp_inv_transpose`].
#[inline(always)]
pub(super) fn so3_dtau_inv_transpose(chart: Chart, x: &Vector3<f64>, mu: &Vector3<f64>) -> Result<Vector3<f64>> {
    match chart {
        Chart::Cayley => Ok(mu + x.cross(mu) * 0.5 + x * (0.25 * x.dot(mu))),
        Chart::Exp => so3_dexp_inv_transpose(x, mu),
    }
}

/// `(dτ^{-1}_x)ᵀ M` on SO(3). Cayley: the columns in closed form; exp: `d(t)` once for the
/// three columns.
#[inline(always)]
pub(super) fn so3_dtau_inv_transpose_matrix(chart: Chart, x: &Vector3<f64>, m: &Matrix3<f64>) -> Result<Matrix3<f64>> {
    match chart {
        Chart::Cayley => {
            let mut out = Matrix3::zeros();
            for j in 0..3 {
                out.set_column(j, &so3_dtau_inv_transpose(chart, x, &m.column(j).into_owned())?);
            }
            Ok(out)
        }
        Chart::Exp => so3_dexp_inv_transpose_matrix(x, m),
    }
}

/// `D_x[(dτ^{-1}_x)ᵀ μ]` on SO(3): Cayley geom-core's closed form
/// ([`LieGroup::dtau_inv_transpose_closed_form`]), exp [`so3_dexp_inv_transpose_derivative`].
#[inline(always)]
pub(super) fn so3_dtau_inv_transpose_derivative(
    chart: Chart,
    x: &Vector3<f64>,
    mu: &Vector3<f64>,
) -> Result<Matrix3<f64>> {
    // exp: below (Estrin's scheme on the steps of a run); Cayley: geom-core's closed form
    if chart == Chart::Exp {
        return so3_dexp_inv_transpose_derivative(x, mu);
    }
    match LieGroup::<f64, 3>::dtau_inv_transpose_closed_form(&super::So3, chart, x, mu) {
        Some(m) => Ok(m),
        None => ad_dtau_inv_transpose_derivative(&super::So3, chart, x, mu),
    }
}

/// `(dexp^{-1}_x)ᵀ μ = μ + ½ x×μ + d(t) (x (x·μ) - t μ)` on SO(3).
#[inline(always)]
fn so3_dexp_inv_transpose(x: &Vector3<f64>, mu: &Vector3<f64>) -> Result<Vector3<f64>> {
    let t = x.norm_squared();
    let (d, _, _) = dexp_inv_coefficients(t)?;
    Ok(so3_dexp_inv_transpose_with(x, mu, t, d))
}

/// The formula of [`so3_dexp_inv_transpose`] with `t = |x|²` and `d = d(t)` given.
#[inline(always)]
fn so3_dexp_inv_transpose_with(x: &Vector3<f64>, mu: &Vector3<f64>, t: f64, d: f64) -> Vector3<f64> {
    mu + x.cross(mu) * 0.5 + (x * x.dot(mu) - mu * t) * d
}

/// [`so3_dexp_inv_transpose`] applied to the columns of `m`, `d(t)` computed once.
#[inline(always)]
fn so3_dexp_inv_transpose_matrix(x: &Vector3<f64>, m: &Matrix3<f64>) -> Result<Matrix3<f64>> {
    let t = x.norm_squared();
    let (d, _, _) = dexp_inv_coefficients(t)?;
    let mut out = Matrix3::zeros();
    for j in 0..3 {
        out.set_column(j, &so3_dexp_inv_transpose_with(x, &m.column(j).into_owned(), t, d));
    }
    Ok(out)
}

/// `D_x[(dexp^{-1}_x)ᵀ μ] = -½ μ̂ + d (x μᵀ + (x·μ) I - 2 μ xᵀ) + 2 d'(t) (x (x·μ) - t μ) xᵀ`.
#[inline(always)]
fn so3_dexp_inv_transpose_derivative(x: &Vector3<f64>, mu: &Vector3<f64>) -> Result<Matrix3<f64>> {
    let xm = x.dot(mu);
    let t = x.norm_squared();
    let (d, dd, _) = dexp_inv_coefficients(t)?;
    let w = x * xm - mu * t;
    Ok(so3::hat(mu) * (-0.5)
        + (x * mu.transpose() + Matrix3::from_diagonal_element(xm) - mu * x.transpose() * 2.0) * d
        + w * x.transpose() * (2.0 * dd))
}

/// Below this `t = |ω|²` (`θ < 2`) [`dexp_inv_coefficients`] sums power series.
const DEXP_INV_SERIES_T: f64 = 4.0;

/// The first six coefficients of `d(t)` (`DEXP_INV_D`), and those of `d'(t)` and `d''(t)` from them.
const DEXP_INV_D0: [f64; 6] = head::<6>(&DEXP_INV_D);
const DEXP_INV_D1: [f64; 5] = derivative_coefficients::<5>(&DEXP_INV_D, 1);
const DEXP_INV_D2: [f64; 4] = derivative_coefficients::<4>(&DEXP_INV_D, 2);

/// The first `N` coefficients of the `order`-th derivative of `Σ c_k t^k`:
/// `k(k−1)…(k−order+1) c_k` at `t^{k−order}`.
const fn derivative_coefficients<const N: usize>(c: &[f64], order: usize) -> [f64; N] {
    let mut out = [0.0; N];
    let mut k = 0;
    while k < N {
        let mut factor = 1.0;
        let mut j = 0;
        while j < order {
            factor *= (k + order - j) as f64;
            j += 1;
        }
        out[k] = factor * c[k + order];
        k += 1;
    }
    out
}

/// `(Σ c_k t^k, Σ k c_k t^{k-1}, Σ k(k-1) c_k t^{k-2})` (Horner).
#[inline(always)]
fn horner2(c: &[f64], t: f64) -> (f64, f64, f64) {
    let n = c.len();
    let (mut f, mut f1, mut f2) = (c[n - 1], 0.0, 0.0);
    for &ck in c[..n - 1].iter().rev() {
        f2 = f2 * t + 2.0 * f1;
        f1 = f1 * t + f;
        f = f * t + ck;
    }
    (f, f1, f2)
}

/// `(d, d', d'')` of `d(t) = (1 - (θ/2) cot(θ/2))/θ²`, `t = θ²`, for the SO(3) and SE(3) exp charts. Power
/// series below `t = 4` (6 terms for `t < 1/64`, 9 for `t < 1/4`, 18 up to 4: truncation below
/// 1e-16 relative in `d`),
/// closed form above, from `g(θ) = 1 - (θ/2) cot(θ/2)`,
/// `g' = -½ cot(θ/2) + (θ/4)/sin²(θ/2)`, `g'' = (½ - (θ/4) cot(θ/2))/sin²(θ/2)`, `G(t) = g(θ)`,
/// `G' = g'/(2θ)`, `G'' = (g'' - g'/θ)/(4t)`: `d = G/t`, `d' = G'/t - G/t²`,
/// `d'' = G''/t - 2G'/t² + 2G/t³`. The closed forms cancel (`g ≈ t/12`), but `d'` and `d''` enter
/// the SE(3) formulas multiplied by `t` and `t²` (terms `ω (ω·v)`, `(ω·v) m ωᵀ` with
/// `|m| ≤ t|p|`): there the absolute error is `≲ 12 ε/t · d`, ≲ 2e-15 relative at the switch
/// `t = 4`. Error where `sin(θ/2) = 0` (`|x|` a nonzero multiple of `2π`).
#[inline(always)]
fn dexp_inv_coefficients(t: f64) -> Result<(f64, f64, f64)> {
    if t < 1.0 / 64.0 {
        // the steps of a run (`|hξ| < 1/8`): the terms fall by `t/(4π²) < 4e-4` each, and the
        // first omitted one is below 1e-19 relative in `d`, 1e-16 in `d'`
        // (Estrin's scheme: `d` is on the critical path of every Newton iteration)
        Ok((estrin(t, &DEXP_INV_D0), estrin(t, &DEXP_INV_D1), estrin(t, &DEXP_INV_D2)))
    } else if t < 0.25 {
        Ok(horner2(&DEXP_INV_D[..9], t))
    } else if t < DEXP_INV_SERIES_T {
        Ok(horner2(&DEXP_INV_D, t))
    } else {
        dexp_inv_closed_form(t)
    }
}

/// The closed form of [`dexp_inv_coefficients`] for `t >= 4`, out of line (its `sin`/`cos` calls
/// would make the Newton loops that inline the series keep their values on the stack).
#[cold]
#[inline(never)]
fn dexp_inv_closed_form(t: f64) -> Result<(f64, f64, f64)> {
    let theta = t.sqrt();
    let (s, c) = (0.5 * theta).sin_cos();
    if s.abs() < 1e-8 {
        return Err(GeomError::OutsideDomain { map: "dexp^-1 on SO(3)", reason: "|x| is a nonzero multiple of 2 pi" });
    }
    let cot = c / s;
    let csc2 = 1.0 / (s * s);
    let g = 1.0 - 0.5 * theta * cot;
    let g1 = -0.5 * cot + 0.25 * theta * csc2;
    let g2 = (0.5 - 0.25 * theta * cot) * csc2;
    let gp = g1 / (2.0 * theta);
    let gpp = (g2 - g1 / theta) / (4.0 * t);
    let t2 = t * t;
    Ok((g / t, gp / t - g / t2, gpp / t - 2.0 * gp / t2 + 2.0 * g / (t2 * t)))
}

/// `(dexp^{-1}_x)ᵀ μ` on SE(3), `x = (ω, v)`, `μ = (π, p)`, without the 6×6 matrix (see
/// [`se3_dtau_inv_transpose`]):
///
/// ```text
///   (J^{-1}ᵀ π + D_ω[J^{-1}(ω)ᵀ p] v,  J^{-1}ᵀ p),
///   J^{-1}(ω)ᵀ a = a + ½ ω×a + d m_a,          m_a = ω (ω·a) - t a,
///   D_ω[J^{-1}(ω)ᵀ p] v = ½ v×p + d (v (ω·p) + ω (v·p) - 2 (ω·v) p) + 2 d' (ω·v) m_p,
/// ```
///
/// `t = |ω|²`, `(d, d') = (d(t), d'(t))`. Error where `|ω|` is a nonzero multiple of `2π`.
#[inline]
fn se3_dexp_inv_transpose(x: &Vector6<f64>, mu: &Vector6<f64>) -> Result<Vector6<f64>> {
    let (w, v) = se3::split(x);
    let (pi, p) = se3::split(mu);
    let t = w.norm_squared();
    let (d, d1, _) = dexp_inv_coefficients(t)?;
    let (wp, wv, vp) = (w.dot(&p), w.dot(&v), v.dot(&p));
    let m_p = w * wp - p * t;
    let m_pi = w * w.dot(&pi) - pi * t;
    let dm_v = v * wp + w * vp - p * (2.0 * wv);
    let top = pi + (w.cross(&pi) + v.cross(&p)) * 0.5 + (m_pi + dm_v) * d + m_p * (2.0 * d1 * wv);
    let bottom = p + w.cross(&p) * 0.5 + m_p * d;
    Ok(se3::join(&top, &bottom))
}

/// `D_x[(dexp^{-1}_x)ᵀ μ]` on SE(3), `x = (ω, v)`, `μ = (π, p)` (see
/// [`se3_dtau_inv_transpose`]): `[[F(π) + H, F(p)], [F(p), 0]]` with `F(a) = D_ω[J^{-1}(ω)ᵀ a]` and `H` the
/// second derivative `D_ω(D_ω[J^{-1}(ω)ᵀ p] v)`; with `m = ω (ω·p) - t p`,
/// `Dm[b] = b (ω·p) + ω (b·p) - 2 (ω·b) p`:
///
/// ```text
///   F(a) = -½ â + d (ω aᵀ + (ω·a) I - 2 a ωᵀ) + 2 d' m_a ωᵀ,
///   H    = d (v pᵀ + (v·p) I - 2 p vᵀ) + 2 d' (Dm[v] ωᵀ + m vᵀ)
///          + 2 d' (ω·v) (ω pᵀ + (ω·p) I - 2 p ωᵀ) + 4 d'' (ω·v) m ωᵀ,
/// ```
///
/// assembled as a skew matrix, a diagonal and four rank-one terms (no 3×3 products).
/// Error where `|ω|` is a nonzero multiple of `2π`.
#[inline]
fn se3_dexp_inv_transpose_derivative(x: &Vector6<f64>, mu: &Vector6<f64>) -> Result<Matrix6<f64>> {
    let (w, v) = se3::split(x);
    let (pi, p) = se3::split(mu);
    let t = w.norm_squared();
    let (d, d1, d2) = dexp_inv_coefficients(t)?;
    let (wp, wv, vp, wpi) = (w.dot(&p), w.dot(&v), v.dot(&p), w.dot(&pi));
    let m_p = w * wp - p * t;
    let m_pi = w * wpi - pi * t;
    let dm_v = v * wp + w * vp - p * (2.0 * wv);
    let (dd1, wv_d1) = (2.0 * d1, 2.0 * d1 * wv);
    // z = 2d' m - 2d p, the factor of ωᵀ in F(p) and of vᵀ in H
    let z = m_p * dd1 - p * (2.0 * d);
    // F(p) = -½ p̂ + d (ω·p) I + d ω pᵀ + z ωᵀ
    let mut f_p = so3::hat(&p) * (-0.5) + w * (p * d).transpose() + z * w.transpose();
    f_p[(0, 0)] += d * wp;
    f_p[(1, 1)] += d * wp;
    f_p[(2, 2)] += d * wp;
    // F(π) + H = -½ π̂ + (d (ω·π) + d (v·p) + 2d' (ω·v)(ω·p)) I + a ωᵀ + (d v + 2d' (ω·v) ω) pᵀ
    //            + d ω πᵀ + z vᵀ,  a = 2d' m_π - 2d π + 2d' Dm[v] - 4d' (ω·v) p + 4d'' (ω·v) m
    let a = (m_pi + dm_v) * dd1 - pi * (2.0 * d) - p * (2.0 * wv_d1) + m_p * (4.0 * d2 * wv);
    let mut top =
        so3::hat(&pi) * (-0.5) + a * w.transpose() + (v * d + w * wv_d1) * p.transpose() + (w * d) * pi.transpose();
    top += z * v.transpose();
    let diag = d * (wpi + vp) + wv_d1 * wp;
    top[(0, 0)] += diag;
    top[(1, 1)] += diag;
    top[(2, 2)] += diag;
    let mut m = Matrix6::zeros();
    m.fixed_view_mut::<3, 3>(0, 0).copy_from(&top);
    m.fixed_view_mut::<3, 3>(0, 3).copy_from(&f_p);
    m.fixed_view_mut::<3, 3>(3, 0).copy_from(&f_p);
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lie::{LieGroupFamily, Rn, So3};

    #[test]
    fn so3_closed_forms_match_ad() {
        let mu = Vector3::new(0.7, -1.3, 0.4);
        for x in [
            Vector3::new(1e-4, -2e-4, 3e-5),
            Vector3::new(0.1, 0.2, -0.15),
            Vector3::new(0.3, -0.2, 0.35), // t just below 1/4
            Vector3::new(0.4, -0.2, 0.3),  // t just above 1/4
            Vector3::new(1.0, 2.0, -1.5),
            Vector3::new(0.0, 0.0, 0.0),
        ] {
            for chart in [Chart::Exp, Chart::Cayley] {
                let closed = So3.dtau_inv_transpose_derivative(chart, &x, &mu).unwrap();
                let ad = ad_dtau_inv_transpose_derivative(&So3, chart, &x, &mu).unwrap();
                assert!((closed - ad).amax() < 1e-14 * (1.0 + ad.amax()), "{chart:?} {x}: {}", (closed - ad).amax());
                let v = So3.dtau_inv_transpose(chart, &x, &mu).unwrap();
                let m = LieGroup::<f64, 3>::dtau_inv(&So3, chart, &x).unwrap().tr_mul(&mu);
                assert!((v - m).amax() < 1e-15, "{chart:?} {x}");
            }
        }
        let z =
            Rn::<2>.dtau_inv_transpose_derivative(Chart::Exp, &SVector::from([1.0, 2.0]), &SVector::from([3.0, 4.0]));
        assert_eq!(z.unwrap(), SMatrix::<f64, 2, 2>::zeros());
        let two_pi = Vector3::new(2.0 * std::f64::consts::PI, 0.0, 0.0);
        assert!(So3.dtau_inv_transpose_derivative(Chart::Exp, &two_pi, &mu).is_err());
    }
    /// `(d, d', d'')` of the SE(3) exp chart against 20-digit values (mpmath, numerical
    /// differentiation of `d(t) = (1 - (θ/2) cot(θ/2))/t` at 50 digits) at and around the
    /// switches, with `d'` and `d''` weighted by `t` and `t²` as they enter the SE(3) formulas
    /// (the unweighted `d''` of the closed form loses up to ~4e-14 near `t = 4` to cancellation).
    /// Below, `(d, d')` equal the SO(3) coefficients.
    #[test]
    fn se3_dexp_inv_coefficients_match_reference_values() {
        #[allow(clippy::excessive_precision)]
        const REFERENCE: [(f64, f64, f64, f64); 9] = [
            (0.3, 0.083752998682300382279, 0.0014089556493034600555, 0.000067648496906381191261),
            (1.0, 0.084756139143774040366, 0.0014575928456183325112, 0.000071359389271758726074),
            (2.0, 0.086250351839705822867, 0.0015317977164571556612, 0.0000771517445385044435),
            (3.999999999, 0.089476846014718088518, 0.0016992357302755486316, 0.000090783168935736173394),
            (4.0, 0.089476846016417324248, 0.0016992357303663318005, 0.00009078316894333242116),
            (4.000000001, 0.089476846018116559979, 0.0016992357304571149694, 0.000090783168950928668926),
            (9.0, 0.099291970394002369646, 0.002269674848916882159, 0.0001426116623548353254),
            (20.0, 0.13771945573747495193, 0.0054043650640025398332, 0.00054290679443639435248),
            (35.0, 0.48383089735970451848, 0.099881987304532556463, 0.044535740129297374629),
        ];
        for (t, r, r1, r2) in REFERENCE {
            let (d, d1, d2) = dexp_inv_coefficients(t).unwrap();
            let scale = r.max(t * r1).max(t * t * r2);
            let errors = [(d - r).abs(), t * (d1 - r1).abs(), t * t * (d2 - r2).abs()];
            assert!(errors.iter().all(|&e| e <= 2e-15 * scale), "t = {t}: {errors:?} (scale {scale:.3})");
        }
        assert_eq!(dexp_inv_coefficients(0.0).unwrap(), (1.0 / 12.0, 1.0 / 720.0, 2.0 / 30240.0));
        assert!(dexp_inv_coefficients(4.0 * std::f64::consts::PI.powi(2)).is_err());
    }
}
