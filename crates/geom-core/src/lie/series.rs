//! Power series of `ad_x` shared by every group without a closed form (docs/math.md §D.2):
//! `dexp_x = sum_{k>=0} ad_x^k/(k+1)!` and `dexp_x^{-1} = sum_{j>=0} B_j/j! ad_x^j`.

pub use crate::linalg::invert;
use crate::{Result, Scalar};
use nalgebra::SMatrix;

/// Bernoulli numbers `B_0 .. B_30` with `B_1 = -1/2` (the convention of `dexp^{-1}`).
const BERNOULLI: [f64; 31] = [
    1.0,
    -0.5,
    1.0 / 6.0,
    0.0,
    -1.0 / 30.0,
    0.0,
    1.0 / 42.0,
    0.0,
    -1.0 / 30.0,
    0.0,
    5.0 / 66.0,
    0.0,
    -691.0 / 2730.0,
    0.0,
    7.0 / 6.0,
    0.0,
    -3617.0 / 510.0,
    0.0,
    43867.0 / 798.0,
    0.0,
    -174611.0 / 330.0,
    0.0,
    854513.0 / 138.0,
    0.0,
    -236364091.0 / 2730.0,
    0.0,
    8553103.0 / 6.0,
    0.0,
    -23749461029.0 / 870.0,
    0.0,
    8615841276005.0 / 14322.0,
];

/// The Bernoulli number `B_n` (`B_1 = -1/2`), for `n <= 30`; `None` beyond the table.
pub fn bernoulli(n: usize) -> Option<f64> {
    BERNOULLI.get(n).copied()
}

/// `1/n!` as f64 (exact to rounding for the `n <= 30` used here).
pub(crate) const fn inv_factorial(n: usize) -> f64 {
    let mut acc = 1.0;
    let mut k = 2;
    while k <= n {
        acc /= k as f64;
        k += 1;
    }
    acc
}

/// `dexp_x = sum_{k>=0} ad^k/(k+1)!` summed until the terms are below round-off (at most 60
/// terms; the series is entire).
pub fn dexp_series<S: Scalar, const D: usize>(ad: &SMatrix<S, D, D>) -> SMatrix<S, D, D> {
    let mut term = SMatrix::<S, D, D>::identity();
    let mut sum = term;
    for k in 1..60 {
        term = term * ad * S::from(1.0 / (k as f64 + 1.0));
        sum += term;
        if term.norm().re() <= 1e-18 * sum.norm().re() {
            break;
        }
    }
    sum
}

/// The Bernoulli series of `dexp_x^{-1}` truncated after `ad_x^q`:
/// `sum_{j=0}^{q} B_j/j! ad_x^j` (`q <= 30`). With `q = 0` this is the identity (the truncation of
/// the HP integrators of Bou-Rabee & Marsden, *Hamilton–Pontryagin integrators on Lie groups,
/// Part I*, 2009, arXiv:0801.0996; docs/math.md §D.2); RKMK of order p needs `q >= p - 2`
/// (Hairer, Lubich & Wanner, *Geometric Numerical Integration*, 2006, Thm IV.8.5).
pub fn dexp_inv_series<S: Scalar, const D: usize>(ad: &SMatrix<S, D, D>, q: usize) -> SMatrix<S, D, D> {
    let q = q.min(30);
    let mut power = SMatrix::<S, D, D>::identity();
    let mut sum = power;
    for (j, &b) in BERNOULLI.iter().enumerate().take(q + 1).skip(1) {
        power *= ad;
        if b != 0.0 {
            sum += power * S::from(b * inv_factorial(j));
        }
    }
    sum
}

/// Full `dexp^{-1}`: the Bernoulli series when `|ad|_F <= 1` (its terms then shrink like
/// `(1/2pi)^2` per even order, so 30 terms reach round-off), otherwise the inverse of the
/// entire series `dexp_series`. Error if `dexp_x` is singular (`ad_x` has an eigenvalue
/// `2 pi i k`, `k != 0`).
pub(crate) fn dexp_inv_default<S: Scalar, const D: usize>(ad: &SMatrix<S, D, D>) -> Result<SMatrix<S, D, D>> {
    if ad.norm().re() <= 1.0 { Ok(dexp_inv_series(ad, 30)) } else { invert(&dexp_series(ad), "dexp") }
}
