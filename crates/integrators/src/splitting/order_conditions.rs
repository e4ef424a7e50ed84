//! The order conditions of a splitting method, checked in the free associative algebra.
//!
//! The exact flow `φ^k_t` of the piece `H_k` acts on functions by `f ∘ φ^k_t = exp(t X_k) f`,
//! `X_k` the Lie derivative along the Hamiltonian vector field of `H_k`. The composition
//! `ψ_h = φ^{k_s}_{c_s h} ∘ … ∘ φ^{k_1}_{c_1 h}` therefore acts by the product
//! `exp(c_1 h X_{k_1}) ⋯ exp(c_s h X_{k_s})`, and the exact flow of `H = Σ_k H_k` by
//! `exp(h Σ_k X_k)`. For pieces in general position the `X_k` satisfy no relation up to a given
//! degree, so `ψ_h` has order `p` for every choice of the pieces exactly when the two series
//! agree in the free associative algebra on `K` letters up to degree `p` (Hairer, Lubich &
//! Wanner, *Geometric Numerical Integration*, 2nd ed., 2006, §III.5; McLachlan & Quispel,
//! *Splitting methods*, Acta Numerica 11, 2002, §3): the coefficient of every word `w` of length
//! `n ≤ p` in the product must be `1/n!`, the coefficient of `w` in `exp(Σ_k X_k)`.
//!
//! [`order_defects`] computes `max_{|w| = n} |coef_w(ψ) − 1/n!|` for `n = 1, …, degree` by
//! multiplying the truncated exponentials out (`Σ_{n ≤ degree} K^n` coefficients; the order
//! of a word's letters is the order in which the flows are applied, and reversing every word
//! maps `exp(Σ X_k)` to itself, so the conditions do not depend on that convention).

/// `max_{|w| = n} |coef_w(exp(c_1 X_{k_1}) ⋯ exp(c_s X_{k_s})) − 1/n!|` for `n = 1, …, degree`
/// (index `n − 1`), for `stages = [(k_1, c_1), …, (k_s, c_s)]` in the order applied, over
/// `parts` letters. Stages whose piece is `≥ parts` are ignored.
///
/// ```
/// use integrators::splitting::order_defects;
/// // Strang: exp(X_A/2) exp(X_B) exp(X_A/2) agrees with exp(X_A + X_B) up to degree 2
/// let d = order_defects(2, &[(0, 0.5), (1, 1.0), (0, 0.5)], 3);
/// assert!(d[0] == 0.0 && d[1] == 0.0 && d[2] > 0.01);
/// ```
pub fn order_defects(parts: usize, stages: &[(usize, f64)], degree: usize) -> Vec<f64> {
    if parts == 0 {
        return vec![0.0; degree];
    }
    // offsets[n] = index of the first word of length n; words of length n are base-K numbers
    let mut offsets = vec![0usize; degree + 2];
    let mut count = 1usize;
    for n in 0..=degree {
        offsets[n + 1] = offsets[n] + count;
        count *= parts;
    }
    let size = offsets[degree + 1];
    let mut x = vec![0.0; size];
    x[0] = 1.0;
    let mut y = vec![0.0; size];
    for &(k, c) in stages.iter().filter(|(k, _)| *k < parts) {
        // y = x · exp(c X_k): y[u k^m] += x[u] c^m / m!
        y.iter_mut().for_each(|v| *v = 0.0);
        for n in 0..=degree {
            for code in 0..(offsets[n + 1] - offsets[n]) {
                let xu = x[offsets[n] + code];
                if xu == 0.0 {
                    continue;
                }
                let (mut word, mut term) = (code, xu);
                for m in 0..=(degree - n) {
                    if m > 0 {
                        word = word * parts + k;
                        term *= c / m as f64;
                    }
                    y[offsets[n + m] + word] += term;
                }
            }
        }
        std::mem::swap(&mut x, &mut y);
    }
    let mut factorial = 1.0;
    (1..=degree)
        .map(|n| {
            factorial *= n as f64;
            x[offsets[n]..offsets[n + 1]].iter().map(|v| (v - 1.0 / factorial).abs()).fold(0.0, f64::max)
        })
        .collect()
}
