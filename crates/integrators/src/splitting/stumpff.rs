//! The Stumpff functions `c_k(z) = Σ_{j ≥ 0} (−z)^j / (2j + k)!`, `k = 0, …, 3`, of the
//! universal-variable formulation of Kepler's problem (Stumpff, *Himmelsmechanik*, 1959; Danby,
//! *Fundamentals of Celestial Mechanics*, 2nd ed., 1988, §6.9).
//!
//! For `z > 0`, with `x = √z`: `c_0 = cos x`, `c_1 = sin x / x`, `c_2 = (1 − cos x)/z`,
//! `c_3 = (x − sin x)/(z x)`; for `z < 0`, `x = √−z`: `c_0 = cosh x`, `c_1 = sinh x / x`,
//! `c_2 = (cosh x − 1)/(−z)`, `c_3 = (sinh x − x)/(−z x)`. These closed forms are used for
//! `|z| > 1`, where their cancellations cost at most a few units in the last place. For
//! `|z| ≤ 1` Danby's procedure: divide `z` by 4 until `|z| ≤ 0.1` (at most twice), sum the
//! series of `c_2` and `c_3` (six terms, truncation below `1e-20`), set `c_1 = 1 − z c_3`,
//! `c_0 = 1 − z c_2`, go back up with the duplication formulas
//!
//! ```text
//!   c_0(4z) = 2 c_0(z)² − 1,  c_1(4z) = c_0(z) c_1(z),  c_2(4z) = c_1(z)²/2,
//!   c_3(4z) = (c_2(z) + c_0(z) c_3(z))/4,
//! ```
//!
//! and finally set `c_0 = 1 − z c_2`, `c_1 = 1 − z c_3` again at the original `z` (the
//! doubling of `c_0` multiplies its rounding error by 4 per step; these do not).
//!
//! Identities checked in the tests: `c_0 + z c_2 = 1`, `c_1 + z c_3 = 1`, and the closed forms
//! against the series at `|z| = 1` from both sides.

/// `[c_0(z), c_1(z), c_2(z), c_3(z)]` (module documentation). `z` must be finite; for
/// `z < −(709.78)²` the hyperbolic functions overflow to `∞`.
///
/// ```
/// use integrators::splitting::stumpff;
/// let [c0, c1, c2, c3] = stumpff(2.0);
/// let x = 2f64.sqrt();
/// assert!((c0 - x.cos()).abs() < 1e-15 && (c1 - x.sin() / x).abs() < 1e-15);
/// assert!((c0 + 2.0 * c2 - 1.0).abs() < 1e-15 && (c1 + 2.0 * c3 - 1.0).abs() < 1e-15);
/// assert_eq!(stumpff(0.0), [1.0, 1.0, 0.5, 1.0 / 6.0]);
/// ```
#[inline(always)]
pub fn stumpff(z: f64) -> [f64; 4] {
    // |z| ≤ 0.1 (every step of a planetary integration): the series alone, in line
    if z.abs() <= 0.1 {
        let (c2, c3) = series(z);
        return [1.0 - z * c2, 1.0 - z * c3, c2, c3];
    }
    stumpff_far(z)
}

/// `c_2(x)`, `c_3(x)` by their series (six terms), `|x| ≤ 0.1`.
#[inline(always)]
fn series(x: f64) -> (f64, f64) {
    // the divisions by constants as products with the reciprocals (folded at compile time): a
    // rounding of at most an ulp more per factor, a twelfth of the cost
    let r = |k: f64| x * (1.0 / k);
    let c2 = 0.5
        * (1.0 - r(12.0) * (1.0 - r(30.0) * (1.0 - r(56.0) * (1.0 - r(90.0) * (1.0 - r(132.0) * (1.0 - r(182.0)))))));
    let c3 = (1.0
        - r(20.0) * (1.0 - r(42.0) * (1.0 - r(72.0) * (1.0 - r(110.0) * (1.0 - r(156.0) * (1.0 - r(210.0)))))))
        * (1.0 / 6.0);
    (c2, c3)
}

/// [`stumpff`] for `|z| > 0.1`: the trigonometric or hyperbolic closed forms, or the series at
/// `z/4^k` and the doubling formulas (out of line: rare in a planetary integration).
#[inline(never)]
fn stumpff_far(z: f64) -> [f64; 4] {
    if z > 1.0 {
        let x = z.sqrt();
        let (sin, cos) = x.sin_cos();
        [cos, sin / x, (1.0 - cos) / z, (x - sin) / (z * x)]
    } else if z < -1.0 {
        let x = (-z).sqrt();
        let (sinh, cosh) = (x.sinh(), x.cosh());
        [cosh, sinh / x, (cosh - 1.0) / -z, (sinh - x) / (-z * x)]
    } else {
        let (mut x, mut halvings) = (z, 0);
        while x.abs() > 0.1 {
            x *= 0.25;
            halvings += 1;
        }
        let (mut c2, mut c3) = series(x);
        let mut c1 = 1.0 - x * c3;
        let mut c0 = 1.0 - x * c2;
        for _ in 0..halvings {
            c3 = 0.25 * (c2 + c0 * c3);
            c2 = 0.5 * c1 * c1;
            c1 *= c0;
            c0 = 2.0 * c0 * c0 - 1.0;
        }
        // c_0 = 1 − z c_2 and c_1 = 1 − z c_3 at z itself (|z c_2| < 0.46, |z c_3| < 0.16): the
        // doubling of c_0 would multiply its rounding error by 4 per step
        [1.0 - z * c2, 1.0 - z * c3, c2, c3]
    }
}
