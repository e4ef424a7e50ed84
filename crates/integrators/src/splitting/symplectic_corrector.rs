//! The symplectic correctors of Wisdom, Holman & Touma for the Wisdom–Holman map.
//!
//! The kernel `ψ_h = φ^A_{h/2} ∘ φ^B_h ∘ φ^A_{h/2}` of `H = A + εB` (`A` the Kepler part, `B`
//! the interaction) is the exact flow of `H̃ = A + ε g(h L_A) B + O(ε²)` with
//! `g(x) = (x/2)/sinh(x/2) = 1 − x²/24 + 7x⁴/5760 − …` and `L_A F = {F, A}` (the Lie derivative
//! along `A`): its energy error is `O(ε h²)` but only through a change of variables. A
//! near-identity symplectic map `C = φ^{εχ}_1` with `L_A χ = (1 − g(h L_A)) B` conjugates it to
//! the flow of `A + εB + O(ε²)`: `C ∘ ψ_h ∘ C^{−1}` has error `O(ε² h²)` (Wisdom, Holman &
//! Touma, *Symplectic correctors*, Fields Inst. Commun. 10, 1996; Rein & Tamayo 2015,
//! arXiv:1506.01084, §3.2).
//!
//! `C^{−1}` is built from `Z(a, b) = φ^A_a, φ^B_{−b}, φ^A_{−2a}, φ^B_b, φ^A_a` (in the order
//! applied), whose generator is `−2b sinh(a L_A) B + O(b²)`: with `a_k = k a_1`,
//! `a_1 = √(7/40)`, the corrector of order `n` (`K = (n − 1)/2` coefficients) is
//!
//! ```text
//!   C^{−1} = Z(−a_K h, −b_1 h), …, Z(−a_1 h, −b_K h), Z(a_1 h, b_K h), …, Z(a_K h, b_1 h),
//!   generator −4h Σ_k b_{K+1−k} sinh(a_k x) B,   x = h L_A,
//! ```
//!
//! equal to `−χ = h (g(x) − 1)/x B` up to `x^{n−2}`: the moments
//! `Σ_j β_j τ_j^m / m!` of its kicks `β_j` at the times `τ_j` of `A` before them
//! ([`kick_moments`]) are the Taylor coefficients of `(g(x) − 1)/x` for `m ≤ n − 2`. `C` is the
//! exact inverse (the stages reversed, times negated). The coefficients are those of Wisdom,
//! Holman & Touma 1996 as listed by Rein & Tamayo 2015 (the order-3 coefficient with the sign
//! of the uniform formula above); a test checks the moments.

// Coefficients are quoted with the digits of their published tables.
#![allow(clippy::excessive_precision)]

use super::schemes::merged;
use geom_core::GeomError;

/// `a_1 = √(7/40)`.
pub const CORRECTOR_A1: f64 = 0.41833001326703777398908601289259374469640768464934;

/// The orders of the shipped correctors.
pub const CORRECTOR_ORDERS: [u32; 5] = [3, 5, 7, 11, 17];

/// `b_1, …, b_K` of the corrector of `order` (module documentation).
fn coefficients(order: u32) -> Option<&'static [f64]> {
    Some(match order {
        3 => &[0.024900596027799867499350357910273437184309981229127],
        5 => &[
            -0.0083001986759332891664501193034244790614366604097090,
            0.041500993379666445832250596517122395307183302048545,
        ],
        7 => &[
            0.0024926811426922105779030593952776964450539008582219,
            -0.018270923246702131478062356884535264841652263842597,
            0.053964399093127498721765893493510877532452806339655,
        ],
        11 => &[
            0.00020361579647854651301632818774633716473696537436847,
            -0.0023487215292295354188307328851055489876255097419754,
            0.012309078592019946317544564763237909911330686448336,
            -0.038121613681288650508647613260247372125243616270670,
            0.072593394748842738674253180742744961827622366521517,
        ],
        17 => &[
            -0.0000043347415473373580190650223498124944896789841432241,
            0.000076436355227935738363241846979413475106795392377415,
            -0.00063599983075817658983166881625078545864140848560259,
            0.0033132577069380655655490196833451994080066801611459,
            -0.012071760822342291062449751726959664253913904872527,
            0.032422198864713580293681523029577130832258806467604,
            -0.065192863576377893658290760803725762027864651086787,
            0.093056103771425958591541059067553547100903397724386,
        ],
        _ => return None,
    })
}

/// The symplectic corrector of Wisdom, Holman & Touma of a given order for the kernel
/// `φ^A_{h/2} ∘ φ^B_h ∘ φ^A_{h/2}` (module documentation): the stages `(k, c)` of `C^{−1}`
/// (apply `φ^k_{c h}`, `k = 0` for `A`, `1` for `B`) and of `C`.
///
/// ```
/// use integrators::splitting::SymplecticCorrector;
/// let c = SymplecticCorrector::new(5)?;
/// assert_eq!(c.order(), 5);
/// // C is the exact inverse of C^{-1}
/// let (inv, fwd) = (c.inverse_stages(), c.stages());
/// assert!(inv.iter().rev().zip(fwd).all(|(x, y)| x.0 == y.0 && x.1 == -y.1));
/// assert!(SymplecticCorrector::new(4).is_err());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SymplecticCorrector {
    order: u32,
    inverse: Vec<(usize, f64)>,
    forward: Vec<(usize, f64)>,
}

impl SymplecticCorrector {
    /// The corrector of `order` ∈ [`CORRECTOR_ORDERS`]; [`GeomError::InvalidParameter`]
    /// otherwise.
    pub fn new(order: u32) -> Result<Self, GeomError> {
        let b = coefficients(order).ok_or_else(|| GeomError::InvalidParameter {
            what: "symplectic corrector order",
            reason: format!("{order} is not one of {CORRECTOR_ORDERS:?}"),
        })?;
        let k = b.len();
        let z = |a: f64, b: f64| [(0, a), (1, -b), (0, -2.0 * a), (1, b), (0, a)];
        // Z(−a_K, −b_1), …, Z(−a_1, −b_K), then Z(a_1, b_K), …, Z(a_K, b_1)
        let zs = (0..k)
            .map(|i| z(-((k - i) as f64) * CORRECTOR_A1, -b[i]))
            .chain((0..k).map(|i| z((i + 1) as f64 * CORRECTOR_A1, b[k - 1 - i])));
        let inverse = merged(zs.flatten());
        let forward = inverse.iter().rev().map(|&(p, c)| (p, -c)).collect();
        Ok(Self { order, inverse, forward })
    }
    /// The order `n`: `C ∘ ψ_h ∘ C^{−1}` has the error `O(ε² h² + ε h^{n+1})`.
    pub fn order(&self) -> u32 {
        self.order
    }
    /// The stages of `C^{−1}`, applied before the kernel.
    pub fn inverse_stages(&self) -> &[(usize, f64)] {
        &self.inverse
    }
    /// The stages of `C`, applied after the kernel.
    pub fn stages(&self) -> &[(usize, f64)] {
        &self.forward
    }
}

/// The moments `Σ_j β_j τ_j^m / m!`, `m = 0, …, degree`, of the kicks `(1, β_j)` of `stages`
/// at the times `τ_j` of `A` (piece 0) applied before them. For stages whose `A` times add up
/// to zero they are the Taylor coefficients of the generator `Σ_j β_j e^{τ_j x}` of the map to
/// first order in the size of `B` (module documentation).
pub fn kick_moments(stages: &[(usize, f64)], degree: usize) -> Vec<f64> {
    let mut moments = vec![0.0; degree + 1];
    let mut tau = 0.0;
    for &(part, c) in stages {
        if part == 0 {
            tau += c;
            continue;
        }
        let mut term = c;
        for (m, moment) in moments.iter_mut().enumerate() {
            if m > 0 {
                term *= tau / m as f64;
            }
            *moment += term;
        }
    }
    moments
}
