//! Error-free transformations of floating-point arithmetic, and the double-double sums built on
//! them.
//!
//! With `fl` the rounding to nearest of IEEE-754 binary64 (unit round-off `u = 2⁻⁵³`), and
//! barring overflow and underflow:
//!
//! ```text
//!   two_sum(a, b)  = (s, e),   s = fl(a + b),   a + b = s + e exactly   (Knuth, 6 flops)
//!   two_prod(a, b) = (p, e),   p = fl(a · b),   a · b = p + e exactly   (one FMA)
//! ```
//!
//! (Knuth, *The Art of Computer Programming*, vol. 2, §4.2.2, 1969; Ogita, Rump & Oishi,
//! *Accurate sum and dot product*, SIAM J. Sci. Comput. 26, 2005). [`sum_of_squares`] accumulates
//! `Σ x_i²` as an unevaluated pair `hi + lo` (Ogita–Rump–Oishi's `Dot2`): its error is at most
//! `u |hi| + γ_n² Σ x_i²` (`γ_n = n u / (1 − n u)`), as if computed in twice the working precision
//! and rounded once.

/// `(s, e)` with `s = fl(a + b)` and `a + b = s + e` exactly (Knuth's `TwoSum`, no condition on
/// the magnitudes of `a` and `b`).
#[inline]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `(p, e)` with `p = fl(a b)` and `a b = p + e` exactly (`e = fma(a, b, −p)`).
#[inline]
pub fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// `Σ x_i²` as `(hi, lo)`, `hi + lo` equal to the exact sum up to `γ_n² Σ x_i²` and
/// `hi = fl(hi + lo)` (module documentation).
#[inline]
pub fn sum_of_squares<'a>(x: impl IntoIterator<Item = &'a f64>) -> (f64, f64) {
    let (mut hi, mut lo) = (0.0, 0.0);
    for &v in x {
        let (p, ep) = two_prod(v, v);
        let (s, es) = two_sum(hi, p);
        hi = s;
        lo += ep + es;
    }
    two_sum(hi, lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_sum_and_two_prod_recover_the_rounding_error() {
        // 1 + 2⁻⁶⁰ rounds to 1; the error term keeps 2⁻⁶⁰
        let tiny = 2f64.powi(-60);
        assert_eq!(two_sum(1.0, tiny), (1.0, tiny));
        assert_eq!(two_sum(tiny, 1.0), (1.0, tiny));
        // (1 + 2⁻³⁰)² = 1 + 2⁻²⁹ + 2⁻⁶⁰: the last term is lost by the product, kept by e
        let x = 1.0 + 2f64.powi(-30);
        assert_eq!(two_prod(x, x), (1.0 + 2f64.powi(-29), tiny));
    }

    #[test]
    fn a_sum_of_squares_is_exact_where_the_plain_sum_is_not() {
        // (1 + 2⁻³⁰)² + (2⁻³⁰)² − 1 − 2⁻²⁹ = 2⁻⁶⁰ + 2⁻⁶⁰ = 2⁻⁵⁹, invisible to a plain sum
        let x = [1.0 + 2f64.powi(-30), 2f64.powi(-30)];
        let (hi, lo) = sum_of_squares(&x);
        assert_eq!(hi, 1.0 + 2f64.powi(-29));
        assert_eq!(lo, 2f64.powi(-59));
        let plain: f64 = x.iter().map(|v| v * v).sum();
        assert_eq!(plain, hi);
    }
}
