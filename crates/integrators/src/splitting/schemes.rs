//! Splitting schemes: the coefficients `(a_i, b_i)` of
//!
//! ```text
//!   ψ_h = φ^B_{b_s h} ∘ φ^A_{a_s h} ∘ … ∘ φ^B_{b_1 h} ∘ φ^A_{a_1 h}     (φ^A_{a_1 h} applied first)
//! ```
//!
//! for `H = A + B` (`b_s = 0` or `a_1 = 0` when the scheme starts or ends with the other piece),
//! validated when built: finite, consistent (`Σ a_i = Σ b_i = 1`), of the declared order (the
//! order conditions up to that degree, [`super::order_defects`]) and, when declared symmetric,
//! a palindrome (then `ψ_{−h} = ψ_h^{−1}` for exact sub-flows, and the order is even).
//!
//! A scheme for two pieces is a scheme for `K ≥ 2` pieces: it is the composition
//! `ψ_h = … ∘ Φ_{α_3 h} ∘ Φ*_{α_2 h} ∘ Φ_{α_1 h}` of the Lie–Trotter map
//! `Φ_τ = φ^B_τ ∘ φ^A_τ` and its adjoint `Φ*_τ = φ^A_τ ∘ φ^B_τ`, with `a_1 = α_1`,
//! `b_1 = α_1 + α_2`, `a_2 = α_2 + α_3`, … (McLachlan, *On the numerical integration of ordinary
//! differential equations by symmetric composition methods*, SIAM J. Sci. Comput. 16, 1995;
//! Hairer, Lubich & Wanner, *Geometric Numerical Integration*, 2nd ed., 2006, §III.5), and with
//! the Lie–Trotter map of `K` pieces `Φ_τ = φ^K_τ ∘ … ∘ φ^1_τ` the same `α_j` give a method for
//! `H = H_1 + … + H_K` ([`SplittingScheme::stages`]); [`super::Splitting::new`] checks its order
//! conditions on `K` letters.

// Coefficients are quoted with the digits of their published tables.
#![allow(clippy::excessive_precision)]

use super::order_conditions::order_defects;
use discretization::composition::{self, CompositionScheme, Stage};
use geom_core::GeomError;
use thiserror::Error;

/// The largest order-condition defect `|coef_w(ψ) − 1/n!|` accepted for a declared order: the
/// published coefficient sets used here (15 to 20 significant digits) meet their conditions to
/// `≤ 1e-14`; a wrong digit in the 12th place is refused.
pub const ORDER_TOLERANCE: f64 = 1e-12;

/// A refused splitting scheme.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SchemeError {
    /// No coefficient at all.
    #[error("a splitting scheme needs at least one stage")]
    Empty,
    /// `a` must have as many coefficients as `b`, or one more.
    #[error("a has {a} coefficients and b has {b}: a needs {b} or {b} + 1")]
    Lengths {
        /// `a.len()`.
        a: usize,
        /// `b.len()`.
        b: usize,
    },
    /// A coefficient is NaN or infinite.
    #[error("coefficient {which}[{index}] = {value} is not finite")]
    NonFinite {
        /// `"a"` or `"b"`.
        which: &'static str,
        /// Its index.
        index: usize,
        /// Its value.
        value: f64,
    },
    /// `Σ a_i ≠ 1` or `Σ b_i ≠ 1`: the method is not consistent.
    #[error("the {which} coefficients sum to {sum}, not 1")]
    Consistency {
        /// `"a"` or `"b"`.
        which: &'static str,
        /// The sum.
        sum: f64,
    },
    /// The declared order is zero.
    #[error("the declared order must be at least 1")]
    ZeroOrder,
    /// An order condition up to the declared order fails.
    #[error(
        "order {order} declared, but the order conditions of degree {degree} fail by {defect:.3e} (tolerance {tolerance:.1e})"
    )]
    OrderConditions {
        /// The declared order.
        order: u32,
        /// The first degree whose conditions fail.
        degree: usize,
        /// `max_{|w| = degree} |coef_w(ψ) − 1/degree!|`.
        defect: f64,
        /// [`ORDER_TOLERANCE`].
        tolerance: f64,
    },
    /// The declared symmetry is not that of the stages (symmetric exactly when the stages,
    /// read backwards, are the same).
    #[error("declared {}symmetric, but the stages read backwards differ by {defect:.3e}", if *.declared { "" } else { "not " })]
    Symmetry {
        /// What was declared.
        declared: bool,
        /// `max_i |c_i − c_{s+1−i}|` (infinite when the pieces differ).
        defect: f64,
    },
    /// A composition scheme that is neither of a symmetric second-order method (base stages
    /// only) nor of a first-order method and its adjoint.
    #[error("composition scheme {name}: {reason}")]
    Composition {
        /// The composition's name.
        name: String,
        /// Why it cannot be turned into a splitting.
        reason: &'static str,
    },
}

impl From<SchemeError> for GeomError {
    /// A refused scheme as [`GeomError::InvalidParameter`] (`what = "splitting scheme"`).
    fn from(e: SchemeError) -> Self {
        GeomError::InvalidParameter { what: "splitting scheme", reason: e.to_string() }
    }
}

/// Validated coefficients `(a_i, b_i)` of a splitting method for `H = A + B` (module
/// documentation), with their order and symmetry. Built once; a step reads them and does not
/// allocate.
#[derive(Debug, Clone, PartialEq)]
pub struct SplittingScheme {
    name: String,
    a: Vec<f64>,
    b: Vec<f64>,
    order: u32,
    symmetric: bool,
}

/// Drops zero coefficients and adds up neighbouring stages of the same piece.
pub(crate) fn merged(stages: impl IntoIterator<Item = (usize, f64)>) -> Vec<(usize, f64)> {
    let mut out: Vec<(usize, f64)> = Vec::new();
    for (k, c) in stages {
        if c == 0.0 {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.0 == k => last.1 += c,
            _ => out.push((k, c)),
        }
    }
    out.retain(|&(_, c)| c != 0.0);
    out
}

/// `max_i |c_i − c_{s+1−i}|` of the stages read backwards (infinite when the pieces differ).
pub(crate) fn palindrome_defect(stages: &[(usize, f64)]) -> f64 {
    stages
        .iter()
        .zip(stages.iter().rev())
        .map(|(x, y)| if x.0 == y.0 { (x.1 - y.1).abs() } else { f64::INFINITY })
        .fold(0.0, f64::max)
}

/// The relative tolerance of the consistency and palindrome checks, times `Σ |c_i|`.
const ROUNDING: f64 = 1e-14;

/// The first degree `n ≤ order` whose conditions fail, with its defect.
pub(crate) fn failed_condition(parts: usize, stages: &[(usize, f64)], order: u32) -> Option<(usize, f64)> {
    order_defects(parts, stages, order as usize)
        .into_iter()
        .enumerate()
        .find(|(_, d)| d.is_nan() || *d > ORDER_TOLERANCE)
        .map(|(n, d)| (n + 1, d))
}

impl SplittingScheme {
    /// The scheme `φ^A_{a_1 h}, φ^B_{b_1 h}, φ^A_{a_2 h}, …` (in the order applied) with the
    /// declared `order` and symmetry; `a` has as many coefficients as `b` or one more. Refused
    /// ([`SchemeError`]) unless every coefficient is finite, `Σ a_i = Σ b_i = 1` (to
    /// `1e-14 Σ |c_i|`), the order conditions up to `order` hold to [`ORDER_TOLERANCE`], and the
    /// stages are a palindrome exactly when `symmetric` is declared.
    ///
    /// ```
    /// use integrators::splitting::{SchemeError, SplittingScheme};
    /// let strang = SplittingScheme::new("Strang", &[0.5, 0.5], &[1.0], 2, true)?;
    /// assert_eq!((strang.order(), strang.is_symmetric()), (2, true));
    /// // Lie–Trotter is not of order 2, and not symmetric
    /// let e = SplittingScheme::new("A then B", &[1.0], &[1.0], 2, false).unwrap_err();
    /// assert!(matches!(e, SchemeError::OrderConditions { degree: 2, .. }));
    /// let e = SplittingScheme::new("A then B", &[1.0], &[1.0], 1, true).unwrap_err();
    /// assert!(matches!(e, SchemeError::Symmetry { declared: true, .. }));
    /// # Ok::<(), SchemeError>(())
    /// ```
    pub fn new(
        name: impl Into<String>,
        a: &[f64],
        b: &[f64],
        order: u32,
        symmetric: bool,
    ) -> Result<Self, SchemeError> {
        if a.is_empty() && b.is_empty() {
            return Err(SchemeError::Empty);
        }
        if a.len() != b.len() && a.len() != b.len() + 1 {
            return Err(SchemeError::Lengths { a: a.len(), b: b.len() });
        }
        for (which, v) in [("a", a), ("b", b)] {
            if let Some((index, &value)) = v.iter().enumerate().find(|(_, x)| !x.is_finite()) {
                return Err(SchemeError::NonFinite { which, index, value });
            }
            let sum: f64 = v.iter().sum();
            let scale: f64 = v.iter().map(|x| x.abs()).sum::<f64>().max(1.0);
            if (sum - 1.0).abs() > ROUNDING * scale {
                return Err(SchemeError::Consistency { which, sum });
            }
        }
        if order == 0 {
            return Err(SchemeError::ZeroOrder);
        }
        let scheme = Self { name: name.into(), a: a.to_vec(), b: b.to_vec(), order, symmetric };
        let stages = scheme.stages(2);
        if let Some((degree, defect)) = failed_condition(2, &stages, order) {
            return Err(SchemeError::OrderConditions { order, degree, defect, tolerance: ORDER_TOLERANCE });
        }
        let scale: f64 = stages.iter().map(|s| s.1.abs()).sum();
        let defect = palindrome_defect(&stages);
        if (defect <= ROUNDING * scale) != symmetric {
            return Err(SchemeError::Symmetry { declared: symmetric, defect });
        }
        Ok(scheme)
    }

    /// The splitting of a composition `Ψ_h = Φ_{γ_s h} ∘ … ∘ Φ_{γ_1 h}`
    /// ([`discretization::composition`]): of Strang's `φ^A_{τ/2} ∘ φ^B_τ ∘ φ^A_{τ/2}` for a
    /// scheme of a symmetric second-order method (base stages only), so
    /// `a = (γ_1/2, (γ_1+γ_2)/2, …, γ_s/2)`, `b = (γ_1, …, γ_s)`; or of the Lie–Trotter map
    /// `Φ_τ = φ^B_τ ∘ φ^A_τ` and its adjoint `Φ*_τ = φ^A_τ ∘ φ^B_τ` for a scheme of a
    /// first-order method. Same order; symmetric when the stages are a palindrome.
    pub fn from_composition(scheme: &CompositionScheme) -> Result<Self, SchemeError> {
        let refuse = |reason| SchemeError::Composition { name: scheme.name.clone(), reason };
        let two_part: Vec<(usize, f64)> = match scheme.base_order {
            2 if scheme.uses_adjoint() => return Err(refuse("a symmetric base method has no distinct adjoint stages")),
            2 => merged(scheme.stages.iter().flat_map(|s| {
                let g = s.coefficient();
                [(0, 0.5 * g), (1, g), (0, 0.5 * g)]
            })),
            1 => merged(scheme.stages.iter().flat_map(|s| match *s {
                Stage::Base(g) => [(0, g), (1, g)],
                Stage::Adjoint(g) => [(1, g), (0, g)],
            })),
            _ => return Err(refuse("the base method must be of order 1 (with its adjoint) or symmetric of order 2")),
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        if two_part.first().is_some_and(|s| s.0 == 1) {
            a.push(0.0);
        }
        for (k, c) in two_part {
            if k == 0 { a.push(c) } else { b.push(c) }
        }
        let scale: f64 = a.iter().chain(&b).map(|c| c.abs()).sum();
        let symmetric = palindrome_defect(&merged(interleave(&a, &b))) <= ROUNDING * scale;
        Self::new(format!("{} (splitting)", scheme.name), &a, &b, scheme.order, symmetric)
    }

    /// The name, e.g. `"Strang"`.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The coefficients `a_i` of `A`.
    pub fn a(&self) -> &[f64] {
        &self.a
    }
    /// The coefficients `b_i` of `B`.
    pub fn b(&self) -> &[f64] {
        &self.b
    }
    /// The declared (and verified) order.
    pub fn order(&self) -> u32 {
        self.order
    }
    /// Whether `ψ_{−h} = ψ_h^{−1}` (for exact, or symmetric, sub-flows).
    pub fn is_symmetric(&self) -> bool {
        self.symmetric
    }
    /// The number of evaluations of the sub-flows per step for `parts` pieces
    /// (`stages(parts).len()`).
    pub fn stage_count(&self, parts: usize) -> usize {
        self.stages(parts).len()
    }

    /// The stages `(k, c)` (apply `φ^k_{c h}`, in this order) for `H = H_0 + … + H_{parts−1}`:
    /// for two pieces `a_1, b_1, a_2, …` with zero stages dropped; for more, the composition of
    /// the `parts`-piece Lie–Trotter map and its adjoint with the `α_j` of the module
    /// documentation (neighbouring stages of one piece added up); for one piece, `φ_h`.
    pub fn stages(&self, parts: usize) -> Vec<(usize, f64)> {
        match parts {
            0 => Vec::new(),
            1 => vec![(0, 1.0)],
            2 => merged(interleave(&self.a, &self.b)),
            k => {
                // c_1 = α_1, c_j = α_{j−1} + α_j; the last α (of c_m alone) is 0 by Σa = Σb
                let c: Vec<f64> = interleave(&self.a, &self.b).map(|s| s.1).collect();
                let mut alphas = Vec::with_capacity(c.len());
                let mut previous = 0.0;
                for cj in &c[..c.len().saturating_sub(1)] {
                    previous = cj - previous;
                    alphas.push(previous);
                }
                merged(
                    alphas
                        .iter()
                        .enumerate()
                        .flat_map(|(j, &alpha)| (0..k).map(move |i| (if j % 2 == 0 { i } else { k - 1 - i }, alpha))),
                )
            }
        }
    }
}

/// `(0, a_1), (1, b_1), (0, a_2), …`.
fn interleave<'a>(a: &'a [f64], b: &'a [f64]) -> impl Iterator<Item = (usize, f64)> + 'a {
    (0..a.len() + b.len()).map(move |i| if i % 2 == 0 { (0, a[i / 2]) } else { (1, b[i / 2]) })
}

/// Lie–Trotter, `ψ_h = φ^B_h ∘ φ^A_h`: order 1, not symmetric (Trotter, *On the product of
/// semi-groups of operators*, Proc. AMS 10, 1959).
pub fn lie_trotter() -> SplittingScheme {
    SplittingScheme::new("Lie-Trotter", &[1.0], &[1.0], 1, false).expect("valid")
}

/// Strang, `ψ_h = φ^A_{h/2} ∘ φ^B_h ∘ φ^A_{h/2}`: order 2, symmetric (Strang, *On the
/// construction and comparison of difference schemes*, SIAM J. Numer. Anal. 5, 1968).
pub fn strang() -> SplittingScheme {
    SplittingScheme::new("Strang", &[0.5, 0.5], &[1.0], 2, true).expect("valid")
}

/// The triple jump of Strang, `γ_1 = γ_3 = 1/(2 − 2^{1/3})`, `γ_2 = 1 − 2γ_1`: order 4,
/// symmetric, 4 stages of `A` and 3 of `B` (Yoshida, *Construction of higher order symplectic
/// integrators*, Phys. Lett. A 150, 1990; Suzuki, *Fractal decomposition of exponential
/// operators*, Phys. Lett. A 146, 1990; the coefficients of
/// [`discretization::composition::triple_jump`]).
pub fn triple_jump4() -> SplittingScheme {
    SplittingScheme::from_composition(&composition::triple_jump(2)).expect("valid")
}

/// The triple jump applied twice (Yoshida 1990; [`discretization::composition::triple_jump_to`]
/// `(6)`): 9 Strang stages, order 6, symmetric.
pub fn triple_jump6() -> SplittingScheme {
    SplittingScheme::from_composition(&composition::triple_jump_to(6).expect("6 is even")).expect("valid")
}

/// Suzuki's fractal, five Strang stages `γ_1 = γ_2 = γ_4 = γ_5 = 1/(4 − 4^{1/3})`: order 4,
/// symmetric (Suzuki 1990; [`discretization::composition::suzuki_fractal`]).
pub fn suzuki_fractal4() -> SplittingScheme {
    SplittingScheme::from_composition(&composition::suzuki_fractal(2)).expect("valid")
}

/// Yoshida's order-6 "solution A": seven Strang stages (Yoshida 1990;
/// [`discretization::composition::yoshida6`]), symmetric.
pub fn yoshida6() -> SplittingScheme {
    SplittingScheme::from_composition(&composition::yoshida6()).expect("valid")
}

/// McLachlan's order-4 method from the Lie–Trotter map and its adjoint, five of each
/// (McLachlan 1995; [`discretization::composition::mclachlan4`], with `a = (146 + 5√19)/540`,
/// `b = (−2 + 10√19)/135`, `c = 1/5`, `d = (−23 − 20√19)/270`, `e = (14 − √19)/108`): as a
/// splitting, `φ^B` first and last, 6 stages of `B` and 5 of `A`, symmetric.
pub fn mclachlan4() -> SplittingScheme {
    SplittingScheme::from_composition(&composition::mclachlan4()).expect("valid")
}

/// Blanes & Moan's `S_6` of order 4: `a = (a_1, a_2, a_3, a_4, a_3, a_2, a_1)`,
/// `b = (b_1, b_2, b_3, b_3, b_2, b_1)` with `a_1 = 0.0792036964311957`,
/// `a_2 = 0.353172906049774`, `a_3 = −0.0420650803577195`, `a_4 = 1 − 2(a_1 + a_2 + a_3)`,
/// `b_1 = 0.209515106613362`, `b_2 = −0.143851773179818`, `b_3 = 1/2 − (b_1 + b_2)`
/// (Blanes & Moan, *Practical symplectic partitioned Runge–Kutta and Runge–Kutta–Nyström
/// methods*, J. Comput. Appl. Math. 142, 2002, Table 2). Symmetric, 7 stages of `A`, 6 of `B`.
pub fn blanes_moan_s6() -> SplittingScheme {
    let (a1, a2, a3) = (0.0792036964311957, 0.353172906049774, -0.0420650803577195);
    let a4 = 1.0 - 2.0 * (a1 + a2 + a3);
    let (b1, b2) = (0.209515106613362, -0.143851773179818);
    let b3 = 0.5 - (b1 + b2);
    SplittingScheme::new("Blanes-Moan S6", &[a1, a2, a3, a4, a3, a2, a1], &[b1, b2, b3, b3, b2, b1], 4, true)
        .expect("valid")
}

/// Blanes & Moan's `S_10` of order 6: `a = (a_1, …, a_5, a_6, a_5, …, a_1)`,
/// `b = (b_1, …, b_5, b_5, …, b_1)` with `a_1 = 0.0502627644003922`, `a_2 = 0.413514300428344`,
/// `a_3 = 0.0450798897943977`, `a_4 = −0.188054853819569`, `a_5 = 0.541960678450780`,
/// `a_6 = 1 − 2 Σ_{i ≤ 5} a_i`, `b_1 = 0.148816447901042`, `b_2 = −0.132385865767784`,
/// `b_3 = 0.067307604692185`, `b_4 = 0.432666402578175`, `b_5 = 1/2 − Σ_{i ≤ 4} b_i`
/// (Blanes & Moan 2002, Table 2). Symmetric, 11 stages of `A`, 10 of `B`.
pub fn blanes_moan_s10() -> SplittingScheme {
    let h = [0.0502627644003922, 0.413514300428344, 0.0450798897943977, -0.188054853819569, 0.541960678450780];
    let k = [0.148816447901042, -0.132385865767784, 0.067307604692185, 0.432666402578175];
    let a6 = 1.0 - 2.0 * h.iter().sum::<f64>();
    let b5 = 0.5 - k.iter().sum::<f64>();
    let a: Vec<f64> = h.iter().copied().chain([a6]).chain(h.iter().rev().copied()).collect();
    let b: Vec<f64> = k.iter().copied().chain([b5, b5]).chain(k.iter().rev().copied()).collect();
    SplittingScheme::new("Blanes-Moan S10", &a, &b, 6, true).expect("valid")
}

/// Every named scheme, for registries and tests.
pub fn all_schemes() -> Vec<SplittingScheme> {
    vec![
        lie_trotter(),
        strang(),
        triple_jump4(),
        suzuki_fractal4(),
        mclachlan4(),
        blanes_moan_s6(),
        triple_jump6(),
        yoshida6(),
        blanes_moan_s10(),
    ]
}
