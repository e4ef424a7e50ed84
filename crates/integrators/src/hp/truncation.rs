//! Hamilton–Pontryagin RKMK integrators with the reconstruction's `dτ^{-1}` truncated at a
//! **truncation index `q ≥ 1`** (docs/math.md §D.11), for tableaux of order above 2.
//!
//! # The truncated chart derivative
//!
//! `D_q(x)` is the Taylor polynomial of degree `q` of `x ↦ dτ^{-1}_x` at `x = 0`:
//!
//! ```text
//!   exp:     D_q(x) = Σ_{m=0}^{q} (B_m / m!) ad_x^m          (Bernoulli numbers, B_1 = -1/2)
//!   Cayley:  D_0 = I,  D_1(x) = I - ½ ad_x,  D_q(x) = dcay^{-1}_x for q ≥ 2
//! ```
//!
//! (on a matrix group `dcay^{-1}_x Y = Y - ½[X, Y] - ¼ XYX` is a polynomial of degree 2 in `x`,
//! so for `q ≥ 2` the Cayley truncation is exact). Truncating after degree `q` keeps the order
//! `p` of an RKMK method when `q ≥ p - 2` (Hairer, Lubich, Wanner, *Geometric Numerical
//! Integration*, 2006, Thm IV.8.5; Bou-Rabee & Marsden 2009, Thm 4.7).
//!
//! # The stage equations (derived in docs/math.md §D.11)
//!
//! The unknowns are the reconstruction velocities `V^j = D_q(-hΘ^j) Ξ^j`. With `x_j = -hΘ^j`:
//!
//! ```text
//!   Θ^i = Σ_j a_ij V^j,   G^i = g_k τ(hΘ^i),   Ξ^i = D_q(x_i)^{-1} V^i,
//!   μ^i = ∂ℓ/∂ξ(G^i, Ξ^i),   f^i = G^i ∂ℓ/∂g(G^i, Ξ^i),   ν^i = D_q(x_i)^{-*} μ^i,
//!   Ψ^i = -h ∇_x⟨ν^i, D_q(x) Ξ^i⟩|_{x = x_i} - h (dτ_{-hΘ^i})* f^i,
//!   V̄ = Σ_j b_j V^j,   M = (dτ_{hV̄})* (Π_k + h Σ_i b_i Ad*_{τ(-hΘ^i)} f^i),
//!   R_i(V) = ν^i - M - Σ_j (b_j a_ji / b_i) Ψ^j = 0                        (i = 1..s)
//! ```
//!
//! and then `g_{k+1} = g_k τ(hV̄)`, `Π_{k+1} = (dτ^{-1}_{-hV̄})* M`. With `q = 0`
//! (`D_0 = I`, gradient 0) these are the equations of the parent module.

use super::Coefficients;
use geom_core::lie::{Chart, LieGroup, bernoulli};
use geom_core::linalg::{BlockVector, invert};
use geom_core::{GeomError, Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// The largest truncation index with the exponential chart (the Bernoulli numbers of
/// [`bernoulli`] stop at `B_30`).
pub const MAX_TRUNCATION: u32 = 30;

/// The order the truncation allows, `q_eff + 2`, where `D_q` agrees with `dτ^{-1}` up to
/// degree `q_eff` (docs/math.md §D.11):
///
/// * exp: `q_eff` is the last index before the next non-zero Bernoulli number above `q`
///   (`B_3 = B_5 = … = 0`, so an even `q ≥ 2` counts as `q + 1`: `q = 2` allows order 5);
/// * Cayley: `q ≥ 2` is exact (no cap); `q = 1` allows only order 2, because the quadratic term
///   `-¼ XYX` of `dcay^{-1}` is not a commutator (on SO(3) it is `¼ (ad_x² + |x|²) `), so the
///   error of `D_1` in `Ξ` is `O(h²)`, not `O(h³)`.
pub(crate) fn order_cap(chart: Chart, q: u32) -> u32 {
    match (chart, q) {
        (_, 0) | (Chart::Cayley, 1) => 2,
        (Chart::Cayley, _) => u32::MAX,
        (Chart::Exp, _) => {
            let next = (q as usize + 1..=MAX_TRUNCATION as usize + 1)
                .find(|&m| bernoulli(m).is_none_or(|b| b != 0.0))
                .unwrap_or(MAX_TRUNCATION as usize + 1);
            next as u32 + 1
        }
    }
}

/// `Ok(())` if the chart has a truncated series of degree `q` here: the shipped [`Chart`]s,
/// `q ≤` [`MAX_TRUNCATION`]; else [`GeomError::InvalidParameter`].
pub(crate) fn check_truncation(chart: Option<Chart>, q: u32) -> Result<()> {
    if q == 0 {
        return Ok(());
    }
    match chart {
        None => Err(GeomError::InvalidParameter {
            what: "HP truncation index",
            reason: format!(
                "q = {q}: the truncated series of dτ⁻¹ is defined for the shipped charts (exp, Cayley); \
                 a user's chart runs with q = 0"
            ),
        }),
        Some(_) if q > MAX_TRUNCATION => Err(GeomError::InvalidParameter {
            what: "HP truncation index",
            reason: format!("q = {q} exceeds {MAX_TRUNCATION} (the Bernoulli numbers stop at B_30)"),
        }),
        Some(_) => Ok(()),
    }
}

/// `D_q(x)`, the Taylor polynomial of degree `q` of `x ↦ dτ^{-1}_x` (module documentation):
/// `Σ_{m ≤ q} (B_m/m!) ad_x^m` for exp, `I`, `I - ½ ad_x`, `dcay^{-1}_x` for Cayley at
/// `q = 0`, `1`, `≥ 2`. `q` is capped at [`MAX_TRUNCATION`] for exp.
///
/// Errors: [`GeomError::NonFinite`] for NaN or ∞ in `x` (real parts, whatever `q`: at `q = 0`
/// the polynomial is `I` for every `x`, but a NaN argument is still refused), and
/// [`GeomError::OutsideDomain`] when the polynomial overflows `f64` at a finite `x` (e.g.
/// `|x| = 1e200` with `q ≥ 2`: the entries grow like `|x|^q`). The step itself evaluates the
/// unchecked polynomial at the Newton iterates, which Newton keeps finite, and a residual that
/// overflows ends the solve in [`GeomError::NonFinite`].
///
/// ```
/// use geom_core::lie::{Chart, LieGroup, So3};
/// use integrators::hp::truncated_dtau_inv;
/// use nalgebra::Vector3;
/// let x = Vector3::new(0.1, -0.2, 0.05);
/// // the Cayley truncation is exact from q = 2 on; the exponential one converges to dexp⁻¹
/// assert_eq!(truncated_dtau_inv(&So3, Chart::Cayley, &x, 2)?, LieGroup::<f64, 3>::dcay_inv(&So3, &x));
/// let exact = LieGroup::<f64, 3>::dexp_inv(&So3, &x)?;
/// assert!((truncated_dtau_inv(&So3, Chart::Exp, &x, 20)? - exact).norm() < 1e-15);
/// assert!((truncated_dtau_inv(&So3, Chart::Exp, &x, 1)? - exact).norm() > 1e-3);
/// assert!(truncated_dtau_inv(&So3, Chart::Exp, &Vector3::new(f64::NAN, 0.0, 0.0), 0).is_err());
/// assert!(truncated_dtau_inv(&So3, Chart::Exp, &Vector3::new(1e200, 0.0, 1.0), 2).is_err());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn truncated_dtau_inv<T: Scalar, G: LieGroup<T, D> + ?Sized, const D: usize>(
    group: &G,
    chart: Chart,
    x: &SVector<T, D>,
    q: u32,
) -> Result<SMatrix<T, D, D>> {
    if !x.iter().all(|v| v.re().is_finite()) {
        return Err(GeomError::NonFinite { what: "truncated dτ⁻¹ argument" });
    }
    let d = truncated_series(group, chart, x, q);
    if d.iter().all(|v| v.re().is_finite()) {
        Ok(d)
    } else {
        Err(GeomError::OutsideDomain { map: "truncated dτ⁻¹", reason: "the polynomial overflows f64 at this |x|" })
    }
}

/// The polynomial of [`truncated_dtau_inv`], unchecked (the stage equations evaluate it at
/// Newton iterates, which Newton keeps finite; an overflow shows as a non-finite residual).
#[inline]
pub(crate) fn truncated_series<T: Scalar, G: LieGroup<T, D> + ?Sized, const D: usize>(
    group: &G,
    chart: Chart,
    x: &SVector<T, D>,
    q: u32,
) -> SMatrix<T, D, D> {
    let id = SMatrix::<T, D, D>::identity();
    match (chart, q) {
        (_, 0) => id,
        (Chart::Cayley, 1) => id - group.ad(x) * T::from(0.5),
        (Chart::Cayley, _) => group.dcay_inv(x),
        (Chart::Exp, _) => {
            let a = group.ad(x);
            let mut power = id;
            let mut sum = id;
            let mut inv_fact = 1.0;
            for m in 1..=(q.min(MAX_TRUNCATION) as usize) {
                power *= a;
                inv_fact /= m as f64;
                let beta = bernoulli(m).unwrap_or(0.0) * inv_fact;
                if beta != 0.0 {
                    sum += power * T::from(beta);
                }
            }
            sum
        }
    }
}

/// `∇_x ⟨ν, D_q(x) ξ⟩` for fixed `ν ∈ g*`, `ξ ∈ g` (the term of the stage equations that the
/// `x`-dependence of the truncated `dτ^{-1}` adds; module documentation).
///
/// Not a `Result`, by design: NaN or ∞ in `x`, `ν`, `ξ`, or an overflow, gives non-finite
/// entries. Its one caller in a step (the stage equations) evaluates it at Newton iterates,
/// which Newton keeps finite, and Newton rejects a non-finite residual
/// ([`GeomError::NonFinite`], the state untouched).
///
/// * exp: `d/dε ad_{x+εδ}^m ξ = Σ_{r<m} ad_x^r ad_δ ad_x^{m-1-r} ξ` and
///   `⟨ν, ad_x^r [δ, u]⟩ = -⟨ad_u* (ad_x*)^r ν, δ⟩`, so
///   `∇_x = -Σ_{m=1}^q (B_m/m!) Σ_{r=0}^{m-1} ad*_{ad_x^{m-1-r} ξ} (ad*_x)^r ν`;
/// * Cayley: `q = 1` gives `½ ad*_ξ ν`; for `q ≥ 2` the remaining part
///   `Q(x) = ⟨ν, (dcay^{-1}_x - I + ½ ad_x) ξ⟩` is a homogeneous quadratic in `x`, whose
///   gradient is exact by polarization, `∂_a Q(x) = (Q(x + s e_a) - Q(x - s e_a)) / (2s)` for
///   any `s > 0` (here `s = |x|_∞`, or 1 at `x = 0`, so the difference has the size of the
///   result).
///
/// ```
/// use geom_core::lie::{Chart, So3};
/// use integrators::hp::{truncated_dtau_inv, truncated_dtau_inv_gradient};
/// use nalgebra::Vector3;
/// let (x, xi, nu) = (Vector3::new(0.3, -0.2, 0.1), Vector3::new(1.0, 2.0, -0.5), Vector3::new(0.4, 0.1, 0.9));
/// let f = |x: &Vector3<f64>| nu.dot(&(truncated_dtau_inv(&So3, Chart::Exp, x, 4).unwrap() * xi));
/// let g = truncated_dtau_inv_gradient(&So3, Chart::Exp, &x, 4, &nu, &xi);
/// let e = 1e-6;
/// for a in 0..3 {
///     let d = Vector3::ith(a, e);
///     assert!(((f(&(x + d)) - f(&(x - d))) / (2.0 * e) - g[a]).abs() < 1e-9);
/// }
/// ```
pub fn truncated_dtau_inv_gradient<T: Scalar, G: LieGroup<T, D> + ?Sized, const D: usize>(
    group: &G,
    chart: Chart,
    x: &SVector<T, D>,
    q: u32,
    nu: &SVector<T, D>,
    xi: &SVector<T, D>,
) -> SVector<T, D> {
    match (chart, q) {
        (_, 0) => SVector::zeros(),
        (Chart::Cayley, _) => {
            let mut grad = group.ad_star(xi, nu) * T::from(0.5);
            if q >= 2 {
                let half = T::from(0.5);
                let quad = |y: &SVector<T, D>| {
                    let c = group.dcay_inv(y) - SMatrix::<T, D, D>::identity() + group.ad(y) * half;
                    nu.dot(&(c * xi))
                };
                let s = x.iter().fold(0.0f64, |m, v| m.max(v.re().abs()));
                let s = if s > 0.0 && s.is_finite() { s } else { 1.0 };
                for a in 0..D {
                    let mut e = SVector::<T, D>::zeros();
                    e[a] = T::from(s);
                    grad[a] += (quad(&(x + e)) - quad(&(x - e))) * T::from(0.5 / s);
                }
            }
            grad
        }
        (Chart::Exp, _) => {
            let q = q.min(MAX_TRUNCATION) as usize;
            let a = group.ad(x);
            // u_k = ad_x^k ξ, v_r = (ad_x*)^r ν, k, r < q
            let mut u = [SVector::<T, D>::zeros(); MAX_TRUNCATION as usize];
            let mut v = [SVector::<T, D>::zeros(); MAX_TRUNCATION as usize];
            u[0] = *xi;
            v[0] = *nu;
            for k in 1..q {
                u[k] = a * u[k - 1];
                v[k] = a.tr_mul(&v[k - 1]);
            }
            let mut grad = SVector::<T, D>::zeros();
            let mut inv_fact = 1.0;
            for m in 1..=q {
                inv_fact /= m as f64;
                let beta = bernoulli(m).unwrap_or(0.0) * inv_fact;
                if beta == 0.0 {
                    continue;
                }
                let mut term = SVector::<T, D>::zeros();
                for r in 0..m {
                    term += group.ad_star(&u[m - 1 - r], &v[r]);
                }
                grad -= term * T::from(beta);
            }
            grad
        }
    }
}

/// The stage residuals `R_i(V)` of the module documentation (not yet scaled), with the
/// multiplier `M` and `V̄`.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn stage_equations<T, G, L, const D: usize, const S: usize>(
    group: &G,
    lagrangian: &L,
    chart: Chart,
    q: u32,
    co: &Coefficients<S>,
    h: f64,
    gk: &<G as LieGroup<T, D>>::Element,
    pik: &SVector<T, D>,
    v: &BlockVector<T, D, S>,
) -> Result<(BlockVector<T, D, S>, SVector<T, D>, SVector<T, D>)>
where
    T: Scalar,
    G: LieGroup<T, D>,
    L: super::LeftLagrangian<T, G, D>,
{
    let hs = T::from(h);
    // ν^i = D_q(x_i)^{-*} μ^i, and ∇_x⟨ν^i, D_q(x) Ξ^i⟩ + (dτ_{-hΘ^i})* f^i (= -Ψ^i / h)
    let mut nu = [SVector::<T, D>::zeros(); S];
    let mut psi = [SVector::<T, D>::zeros(); S];
    let mut mu = *pik;
    for i in 0..S {
        let mut theta = SVector::<T, D>::zeros();
        for (j, vj) in v.iter().enumerate() {
            if co.a[i][j] != 0.0 {
                theta += vj * T::from(co.a[i][j]);
            }
        }
        let htheta = theta * hs;
        let x = -htheta;
        let dq_inv = invert(&truncated_series(group, chart, &x, q), "truncated dτ⁻¹")?;
        let xi = dq_inv * v[i];
        let (gi, t) = if co.zero_row[i] {
            (gk.clone(), None)
        } else {
            let t = group.tau(chart, &htheta)?;
            (group.compose(gk, &t), Some(t))
        };
        let m = lagrangian.momentum(group, &gi, &xi)?;
        let f = lagrangian.force(group, &gi, &xi)?;
        nu[i] = dq_inv.tr_mul(&m);
        let (pulled, f_back) = match t {
            None => (f, f),
            Some(t) => (group.dtau(chart, &x)?.tr_mul(&f), group.coadjoint(&group.inverse(&t), &f)),
        };
        psi[i] = truncated_dtau_inv_gradient(group, chart, &x, q, &nu[i], &xi) + pulled;
        mu += f_back * T::from(h * co.b[i]);
    }
    let mut vbar = SVector::<T, D>::zeros();
    for (j, vj) in v.iter().enumerate() {
        vbar += vj * T::from(co.b[j]);
    }
    let big_m = group.dtau(chart, &(vbar * hs))?.tr_mul(&mu);
    let mut r = [SVector::<T, D>::zeros(); S];
    for ((ri, ni), wi) in r.iter_mut().zip(&nu).zip(&co.w) {
        *ri = ni - big_m;
        for (pj, &wij) in psi.iter().zip(wi) {
            if wij != 0.0 {
                *ri += pj * T::from(h * wij);
            }
        }
    }
    Ok((r, big_m, vbar))
}
