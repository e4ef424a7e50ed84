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
    let (x, offsets) = word_coefficients(parts, stages, degree);
    let mut factorial = 1.0;
    (1..=degree)
        .map(|n| {
            factorial *= n as f64;
            x[offsets[n]..offsets[n + 1]].iter().map(|v| (v - 1.0 / factorial).abs()).fold(0.0, f64::max)
        })
        .collect()
}

/// The coefficients `coef_w` of every word `w` of length `≤ degree` in
/// `exp(c_1 X_{k_1}) ⋯ exp(c_s X_{k_s})` over `parts ≥ 1` letters, and the offsets: the words of
/// length `n` are at `offsets[n] .. offsets[n + 1]`, a word `k_1 k_2 … k_n` (letters in the
/// order applied) at `offsets[n] + (…(k_1 K + k_2) K + …) + k_n`.
fn word_coefficients(parts: usize, stages: &[(usize, f64)], degree: usize) -> (Vec<f64>, Vec<usize>) {
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
    (x, offsets)
}

/// The order conditions of a method for a **perturbed** problem `H = A + εB` (two pieces,
/// `A = 0`, `B = 1`): `max_{|w| = n, w has one B} |coef_w(ψ) − 1/n!|` for `n = 1, …, degree`
/// (index `n − 1`). These are the conditions at first order in `ε`: a method meeting them up to
/// `degree = s` and the general conditions up to order `p` has the local error
/// `O(ε h^{s+1} + ε² h^{p+1})` (McLachlan, *Composition methods in the presence of small
/// parameters*, BIT 35, 1995; Laskar & Robutel, *High order symplectic integrators for
/// perturbed Hamiltonian systems*, Celest. Mech. Dyn. Astron. 80, 2001). For the stages
/// `A_{α_0} B_{β_1} A_{α_1} … B_{β_m} A_{α_m}` they are the moments of a quadrature rule,
/// `Σ_j β_j τ_j^k = 1/(k + 1)` with `τ_j = α_0 + … + α_{j−1}`, for `k = 0, …, degree − 1`.
///
/// ```
/// use integrators::splitting::perturbed_order_defects;
/// // Strang (A B A) is the midpoint rule: exact for k = 0, 1 only
/// let d = perturbed_order_defects(&[(0, 0.5), (1, 1.0), (0, 0.5)], 3);
/// assert!(d[0] < 1e-16 && d[1] < 1e-16 && d[2] > 1e-3);
/// ```
pub fn perturbed_order_defects(stages: &[(usize, f64)], degree: usize) -> Vec<f64> {
    let (x, offsets) = word_coefficients(2, stages, degree);
    let mut factorial = 1.0;
    (1..=degree)
        .map(|n| {
            factorial *= n as f64;
            (offsets[n]..offsets[n + 1])
                .filter(|&i| (i - offsets[n]).count_ones() == 1)
                .map(|i| (x[i] - 1.0 / factorial).abs())
                .fold(0.0, f64::max)
        })
        .collect()
}

/// The coefficient `β` of `[B, [B, A]]` in `log(exp(c_1 X_{k_1}) ⋯ exp(c_s X_{k_s}))` on two
/// letters (`A = 0`, `B = 1`), read from the word `BBA` of `log P = Y − Y²/2 + Y³/3`,
/// `Y = P − 1` (the degree-3 Lie elements are `[A, [A, B]] = AAB − 2ABA + BAA` and
/// `[B, [B, A]] = BBA − 2BAB + ABB`, and only the second contains `BBA`). For `H = A + εB` it
/// is the coefficient of the `ε² h³` term of the modified Hamiltonian that the corrector of
/// SABAC_n cancels ([`super::sabac_corrector`]).
pub fn bba_coefficient(stages: &[(usize, f64)]) -> f64 {
    let (x, offsets) = word_coefficients(2, stages, 3);
    // the word k_1 … k_n has the index offsets[n] + Σ k_i 2^{n − i}
    let coef = |w: &[usize]| x[offsets[w.len()] + w.iter().fold(0, |acc, &k| 2 * acc + k)];
    let w = [1, 1, 0];
    let mut log = coef(&w);
    for cut in 1..3 {
        log -= 0.5 * coef(&w[..cut]) * coef(&w[cut..]);
    }
    log + coef(&w[..1]) * coef(&w[1..2]) * coef(&w[2..]) / 3.0
}
