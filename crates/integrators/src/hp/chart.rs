//! The derivative of the transposed inverse chart tangent, `x ↦ (dτ^{-1}_x)* μ`, which the
//! Newton Jacobian of the reduced (left-invariant) HP step needs:
//!
//! ```text
//!   R(ξ) = (dτ^{-1}_{hξ})* m(ξ) - Π_k,
//!   DR(ξ) = (dτ^{-1}_{hξ})* Dm(ξ) + h · D_x[(dτ^{-1}_x)* μ]|_{x = hξ, μ = m(ξ)}.
//! ```
//!
//! [`ChartDerivative`] computes the last factor exactly by forward AD (`DualSVec64<D>`) for
//! every group, and in closed form for SO(3) and `R^n` (and SE(3) with the Cayley chart), where the whole Jacobian then costs a few
//! 3×3 products — this is the "specialised Jacobian" that keeps the generic step within a small
//! factor of a hand-written loop (benches/hp.rs). The closed forms (MATH.md d.2, [D] here) are
//! checked against AD in the tests below:
//!
//! * SO(3), Cayley: `(dcay^{-1}_x)* μ = μ + ½ x×μ + ¼ (x·μ) x`, derivative
//!   `-½ μ̂ + ¼ (x μᵀ + (x·μ) I)`;
//! * SO(3), exp: `(dexp^{-1}_x)* μ = μ + ½ x×μ + d(t) (x (x·μ) - t μ)`, `t = |x|²`,
//!   `d = (1 - (θ/2) cot(θ/2))/θ²`; derivative
//!   `-½ μ̂ + d (x μᵀ + (x·μ) I - 2 μ xᵀ) + 2 d'(t) (x (x·μ) - t μ) xᵀ`;
//! * SE(3), Cayley: see the implementation for [`Se3`] (exp: AD);
//! * `R^n`: `dτ^{-1} = I`, derivative 0.

use geom_core::lie::{Chart, Gl, LieGroup, Power, Product, Rn, Se2, Se3, So2, So3, Su2, se3, so3};
use geom_core::{GeomError, Result};
use nalgebra::{Const, Matrix3, Matrix6, SMatrix, SVector, U1, Vector3, Vector6};
use num_dual::DualSVec64;

/// `D_x [(dτ^{-1}_x)* μ]`, the Jacobian of `x ↦ (dτ^{-1}_x)ᵀ μ` for fixed `μ ∈ g*` (module
/// documentation). The default evaluates `dτ^{-1}` at `DualSVec64<D>`; groups with a closed
/// form override it.
pub trait ChartDerivative<const D: usize>: LieGroup<f64, D> + LieGroup<DualSVec64<D>, D> {
    /// `(dτ^{-1}_x)ᵀ μ` (default: the matrix [`LieGroup::dtau_inv`], transposed, times `μ`).
    #[inline]
    fn dtau_inv_transpose(&self, chart: Chart, x: &SVector<f64, D>, mu: &SVector<f64, D>) -> Result<SVector<f64, D>> {
        Ok(LieGroup::<f64, D>::dtau_inv(self, chart, x)?.tr_mul(mu))
    }
    /// `∂/∂x_j [(dτ^{-1}_x)ᵀ μ]_i`.
    fn dtau_inv_transpose_derivative(
        &self,
        chart: Chart,
        x: &SVector<f64, D>,
        mu: &SVector<f64, D>,
    ) -> Result<SMatrix<f64, D, D>> {
        ad_dtau_inv_transpose_derivative(self, chart, x, mu)
    }
}

/// The AD evaluation of [`ChartDerivative::dtau_inv_transpose_derivative`] (the default, and the
/// reference of the closed forms).
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

impl ChartDerivative<1> for So2 {}
impl ChartDerivative<3> for Su2 {}
impl ChartDerivative<3> for Se2 {}

/// SE(3), Cayley (from the block form of MATH.md d.2), `x = (ω, y)`, `μ = (π, p)`:
/// `(dcay^{-1}_x)* μ = (π + ½ ω×π + ¼ (ω·π) ω + ½ y×p + ¼ y×(ω×p), p + ½ ω×p)`, with derivative
/// `[[-½ π̂ + ¼ (ω πᵀ + (ω·π) I) - ¼ ŷ p̂, -½ p̂ - ¼ (ω×p)^], [-½ p̂, 0]]`; the exp chart uses AD.
impl ChartDerivative<6> for Se3 {
    #[inline]
    fn dtau_inv_transpose(&self, chart: Chart, x: &Vector6<f64>, mu: &Vector6<f64>) -> Result<Vector6<f64>> {
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
            Chart::Exp => Ok(LieGroup::<f64, 6>::dexp_inv(self, x)?.tr_mul(mu)),
        }
    }
    #[inline]
    fn dtau_inv_transpose_derivative(&self, chart: Chart, x: &Vector6<f64>, mu: &Vector6<f64>) -> Result<Matrix6<f64>> {
        match chart {
            Chart::Cayley => {
                let (w, y) = se3::split(x);
                let (pi, p) = se3::split(mu);
                let ph = so3::hat(&p);
                let a = so3::hat(&pi) * (-0.5)
                    + (w * pi.transpose() + Matrix3::from_diagonal_element(w.dot(&pi))) * 0.25
                    - so3::hat(&y) * ph * 0.25;
                let b = ph * (-0.5) - so3::hat(&w.cross(&p)) * 0.25;
                let mut m = Matrix6::zeros();
                m.fixed_view_mut::<3, 3>(0, 0).copy_from(&a);
                m.fixed_view_mut::<3, 3>(0, 3).copy_from(&b);
                m.fixed_view_mut::<3, 3>(3, 0).copy_from(&(ph * (-0.5)));
                Ok(m)
            }
            Chart::Exp => ad_dtau_inv_transpose_derivative(self, chart, x, mu),
        }
    }
}
impl<const N: usize, const D: usize> ChartDerivative<D> for Gl<N, D> {}
impl<GA, GB, const DA: usize, const DB: usize, const D: usize> ChartDerivative<D> for Product<GA, GB, DA, DB>
where
    GA: LieGroup<f64, DA> + LieGroup<DualSVec64<D>, DA>,
    GB: LieGroup<f64, DB> + LieGroup<DualSVec64<D>, DB>,
{
}
impl<G, const DG: usize, const K: usize, const D: usize> ChartDerivative<D> for Power<G, DG, K> where
    G: LieGroup<f64, DG> + LieGroup<DualSVec64<D>, DG>
{
}

impl<const N: usize> ChartDerivative<N> for Rn<N> {
    #[inline]
    fn dtau_inv_transpose(&self, _: Chart, _: &SVector<f64, N>, mu: &SVector<f64, N>) -> Result<SVector<f64, N>> {
        Ok(*mu)
    }
    #[inline]
    fn dtau_inv_transpose_derivative(
        &self,
        _: Chart,
        _: &SVector<f64, N>,
        _: &SVector<f64, N>,
    ) -> Result<SMatrix<f64, N, N>> {
        Ok(SMatrix::zeros())
    }
}

/// `|B_2k|/(2k)!`, `k = 1..`: `d(t) = Σ_k DEXP_INV_D[k] t^k` (as in `geom_core::lie::so3`).
const DEXP_INV_D: [f64; 9] = [
    1.0 / 12.0,
    1.0 / 720.0,
    1.0 / 30240.0,
    1.0 / 1209600.0,
    1.0 / 47900160.0,
    691.0 / 1307674368000.0,
    1.0 / 74724249600.0,
    3617.0 / 10670622842880000.0,
    43867.0 / 5109094217170944000.0,
];

/// `(d(t), d'(t))` of `d(t) = (1 - (θ/2) cot(θ/2))/θ²`, `t = θ²`: series for `t < 1/4`, closed
/// form otherwise (`g(θ) = 1 - (θ/2)cot(θ/2)`, `d = g/t`, `d' = g'(θ)/(2θt) - g/t²`,
/// `g' = -½ cot(θ/2) + (θ/4)/sin²(θ/2)`); error where `sin(θ/2) = 0`.
fn dexp_inv_coefficient(t: f64) -> Result<(f64, f64)> {
    if t < 0.25 {
        let d = DEXP_INV_D.iter().rev().fold(0.0, |acc, &c| acc * t + c);
        let dd = DEXP_INV_D.iter().enumerate().skip(1).rev().fold(0.0, |acc, (k, &c)| acc * t + k as f64 * c);
        Ok((d, dd))
    } else {
        let theta = t.sqrt();
        let (s, c) = (0.5 * theta).sin_cos();
        if s.abs() < 1e-8 {
            return Err(GeomError::OutsideDomain {
                map: "dexp^-1 on SO(3)",
                reason: "|x| is a nonzero multiple of 2 pi",
            });
        }
        let cot = c / s;
        let g = 1.0 - 0.5 * theta * cot;
        let dg = -0.5 * cot + 0.25 * theta / (s * s);
        Ok((g / t, dg / (2.0 * theta * t) - g / (t * t)))
    }
}

impl ChartDerivative<3> for So3 {
    #[inline(always)]
    fn dtau_inv_transpose(&self, chart: Chart, x: &Vector3<f64>, mu: &Vector3<f64>) -> Result<Vector3<f64>> {
        match chart {
            Chart::Cayley => Ok(mu + x.cross(mu) * 0.5 + x * (0.25 * x.dot(mu))),
            Chart::Exp => so3_dexp_inv_transpose(x, mu),
        }
    }
    #[inline(always)]
    fn dtau_inv_transpose_derivative(&self, chart: Chart, x: &Vector3<f64>, mu: &Vector3<f64>) -> Result<Matrix3<f64>> {
        match chart {
            Chart::Cayley => {
                let half_mu = so3::hat(mu) * (-0.5);
                Ok(half_mu + (x * mu.transpose() + Matrix3::from_diagonal_element(x.dot(mu))) * 0.25)
            }
            Chart::Exp => so3_dexp_inv_transpose_derivative(x, mu),
        }
    }
}

/// `(dexp^{-1}_x)ᵀ μ = μ + ½ x×μ + d(t) (x (x·μ) - t μ)` on SO(3).
#[inline(never)]
fn so3_dexp_inv_transpose(x: &Vector3<f64>, mu: &Vector3<f64>) -> Result<Vector3<f64>> {
    let t = x.norm_squared();
    let (d, _) = dexp_inv_coefficient(t)?;
    Ok(mu + x.cross(mu) * 0.5 + (x * x.dot(mu) - mu * t) * d)
}

/// `D_x[(dexp^{-1}_x)ᵀ μ] = -½ μ̂ + d (x μᵀ + (x·μ) I - 2 μ xᵀ) + 2 d'(t) (x (x·μ) - t μ) xᵀ`.
#[inline(never)]
fn so3_dexp_inv_transpose_derivative(x: &Vector3<f64>, mu: &Vector3<f64>) -> Result<Matrix3<f64>> {
    let xm = x.dot(mu);
    let t = x.norm_squared();
    let (d, dd) = dexp_inv_coefficient(t)?;
    let w = x * xm - mu * t;
    Ok(so3::hat(mu) * (-0.5)
        + (x * mu.transpose() + Matrix3::from_diagonal_element(xm) - mu * x.transpose() * 2.0) * d
        + w * x.transpose() * (2.0 * dd))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
