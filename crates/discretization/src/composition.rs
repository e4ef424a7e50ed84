//! Composition methods (§3.3 of Barbero-Liñán, Marrero, Martín de Diego, *From retraction maps to
//! symplectic-momentum numerical integrators*, 2024, arXiv:2401.14800; docs/math.md §B.3):
//! `Ψ_h = Φ_{γ_s h} ∘ … ∘ Φ_{γ_1 h}`, and with a method and its adjoint
//! `Ψ_h = Φ*_{α_{2s} h} ∘ Φ_{α_{2s-1} h} ∘ … ∘ Φ*_{α_2 h} ∘ Φ_{α_1 h}`.
//!
//! * A base method of order `p` composed with `Σγ_i = 1`, `Σγ_i^{p+1} = 0` has order `≥ p + 1`
//!   (HLW Thm II.4.1; the paper prints `= 1`, a typo); with a symmetric base method of even order
//!   `p` and symmetric coefficients, order `p + 2`.
//! * Compositions of symplectic (momentum-preserving) maps are symplectic (momentum-preserving).
//!
//! Stages are listed in the order they are **applied** to the state (first to last).

// Coefficients are quoted with the digits of their published tables.
#![allow(clippy::excessive_precision)]

use geom_core::GeomError;
use geom_core::step::{OneStep, check_step};

/// Which method a stage applies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stage {
    /// `Φ_{γ h}`.
    Base(f64),
    /// `Φ*_{γ h}`, the adjoint method.
    Adjoint(f64),
}

impl Stage {
    /// The coefficient `γ`.
    pub fn coefficient(self) -> f64 {
        match self {
            Stage::Base(g) | Stage::Adjoint(g) => g,
        }
    }
}

/// A named set of composition coefficients (built once; stepping does not allocate).
#[derive(Debug, Clone, PartialEq)]
pub struct CompositionScheme {
    /// Name, e.g. `"Yoshida 6"`.
    pub name: String,
    /// Stages in the order they are applied.
    pub stages: Vec<Stage>,
    /// Order of the base method the scheme is designed for.
    pub base_order: u32,
    /// Order of the composed method.
    pub order: u32,
}

impl CompositionScheme {
    /// `Σ γ_i` (must be 1).
    pub fn sum(&self) -> f64 {
        self.stages.iter().map(|s| s.coefficient()).sum()
    }
    /// `Σ γ_i^k`, the `k`-th moment (`Σγ^{p+1} = 0` is the order-raising condition).
    pub fn moment(&self, k: i32) -> f64 {
        self.stages.iter().map(|s| s.coefficient().powi(k)).sum()
    }
    /// Whether any stage uses the adjoint method.
    pub fn uses_adjoint(&self) -> bool {
        self.stages.iter().any(|s| matches!(s, Stage::Adjoint(_)))
    }
    fn symmetric(name: String, half: &[f64], middle: Option<f64>, base_order: u32, order: u32) -> Self {
        let mut stages: Vec<Stage> = half.iter().map(|&g| Stage::Base(g)).collect();
        if let Some(m) = middle {
            stages.push(Stage::Base(m));
        }
        stages.extend(half.iter().rev().map(|&g| Stage::Base(g)));
        Self { name, stages, base_order, order }
    }
}

/// Triple jump from a symmetric method of even order `p` to order `p + 2` (s = 3):
/// `γ_1 = γ_3 = 1/(2 - 2^{1/(p+1)})`, `γ_2 = -2^{1/(p+1)} γ_1`. For `p = 2` this is the
/// Yoshida/Suzuki 4th-order scheme `γ_1 = 1.351207191959657…`.
pub fn triple_jump(p: u32) -> CompositionScheme {
    let r = 2f64.powf(1.0 / (p as f64 + 1.0));
    let g = 1.0 / (2.0 - r);
    CompositionScheme::symmetric(format!("triple jump {}", p + 2), &[g], Some(-r * g), p, p + 2)
}

/// Recursive triple jump from a symmetric 2nd-order method to any even `order >= 2`:
/// `3^{(order-2)/2}` stages, the product of the triple jumps `p = 2, 4, …, order - 2`.
/// [`GeomError::InvalidParameter`] for odd or zero orders.
pub fn triple_jump_to(order: u32) -> Result<CompositionScheme, GeomError> {
    if order < 2 || order % 2 == 1 {
        return Err(GeomError::InvalidParameter {
            what: "composition order",
            reason: format!("the triple jump reaches even orders >= 2, not {order}"),
        });
    }
    let mut gammas = vec![1.0];
    let mut p = 2;
    while p < order {
        let r = 2f64.powf(1.0 / (p as f64 + 1.0));
        let g = 1.0 / (2.0 - r);
        let jump = [g, -r * g, g];
        gammas = jump.iter().flat_map(|&j| gammas.iter().map(move |&x| j * x)).collect();
        p += 2;
    }
    let stages = gammas.into_iter().map(Stage::Base).collect();
    Ok(CompositionScheme { name: format!("triple jump to order {order}"), stages, base_order: 2, order })
}

/// Suzuki's fractal (s = 5) from a symmetric method of even order `p` to `p + 2`:
/// `γ_1 = γ_2 = γ_4 = γ_5 = 1/(4 - 4^{1/(p+1)})`, `γ_3 = -4^{1/(p+1)}/(4 - 4^{1/(p+1)})`.
pub fn suzuki_fractal(p: u32) -> CompositionScheme {
    let r = 4f64.powf(1.0 / (p as f64 + 1.0));
    let g = 1.0 / (4.0 - r);
    CompositionScheme::symmetric(format!("Suzuki fractal {}", p + 2), &[g, g], Some(-r * g), p, p + 2)
}

/// Yoshida's order-6 "solution A" (s = 7) for a symmetric 2nd-order method: `(w3, w2, w1, w0, w1, w2, w3)`.
pub fn yoshida6() -> CompositionScheme {
    let (w1, w2, w3) = (-1.17767998417887100694641568, 0.23557321335935813368479318, 0.78451361047755726381949763);
    let w0 = 1.0 - 2.0 * (w1 + w2 + w3);
    CompositionScheme::symmetric("Yoshida 6".into(), &[w3, w2, w1], Some(w0), 2, 6)
}

/// Yoshida's order-8 "solution D" (s = 15) for a symmetric 2nd-order method. The published
/// coefficients have 15 digits, so `Σγ^7` is only about `3e-12` (docs/math.md §B.3).
pub fn yoshida8() -> CompositionScheme {
    let w = [
        0.102799849391985,
        -1.96061023297549,
        1.93813913762276,
        -0.158240635368243,
        -1.44485223686048,
        0.253693336566229,
        0.914844246229740,
    ];
    let w0 = 1.0 - 2.0 * w.iter().sum::<f64>();
    let half: Vec<f64> = w.iter().rev().copied().collect();
    CompositionScheme::symmetric("Yoshida 8".into(), &half, Some(w0), 2, 8)
}

/// Kahan–Li order 6 (s = 9, symmetric; HLW (V.3.12)).
pub fn kahan_li6() -> CompositionScheme {
    let half = [
        0.39216144400731413927925056,
        0.33259913678935943859974864,
        -0.70624617255763935980996482,
        0.08221359629355080023149045,
    ];
    CompositionScheme::symmetric("Kahan-Li 6".into(), &half, Some(0.79854399093482996339895035), 2, 6)
}

/// Kahan–Li order 8 (s = 17, symmetric; HLW (V.3.14)).
pub fn kahan_li8() -> CompositionScheme {
    let half = [
        0.13020248308889008087881763,
        0.56116298177510838456196441,
        -0.38947496264484728640807860,
        0.15884190655515560089621075,
        -0.39590389413323757733623154,
        0.18453964097831570709183254,
        0.25837438768632204729397911,
        0.29501172360931029887096624,
    ];
    CompositionScheme::symmetric("Kahan-Li 8".into(), &half, Some(-0.60550853383003451169892108), 2, 8)
}

/// Suzuki–Umeno order 8 (s = 15, symmetric).
pub fn suzuki_umeno8() -> CompositionScheme {
    let half = [
        0.74167036435061295345,
        -0.40910082580003159400,
        0.19075471029623837995,
        -0.57386247111608226666,
        0.29906418130365592384,
        0.33462491824529818378,
        0.31529309239676659663,
    ];
    CompositionScheme::symmetric("Suzuki-Umeno 8".into(), &half, Some(-0.79688793935291635402), 2, 8)
}

/// Kahan & Li order 10 (s = 33, symmetric): the set `s33odr10a` of W. Kahan, R.-C. Li,
/// *Composition constants for raising the orders of unconventional schemes for ordinary
/// differential equations*, Math. Comp. 66 (1997), for a symmetric 2nd-order method
/// (docs/math.md §B.3). Quoted with the 20 significant digits found for this set; its moments
/// `Σγ^k`, `k = 3, 5, 7, 9`, vanish to about `2e-20` before rounding to `f64`. Kahan and Li's
/// order-10 sets have 31 and 33 stages; the 35-stage order-10 set in the literature is
/// Sofroniou and Spaletta's ([`sofroniou_spaletta10`]). Its coefficients are large
/// (`Σ|γ_i| ≈ 13.7`, `max|γ_i| ≈ 0.96`), so its error constant is much larger than that of
/// [`sofroniou_spaletta10`] (`Σ|γ_i| ≈ 6.2`).
pub fn kahan_li10() -> CompositionScheme {
    let half = [
        0.070428877682658066880,
        0.87415651735353949041,
        0.055414604963802442707,
        -0.066800477898797011598,
        -0.62641308958799555593,
        0.23682621087528762872,
        -0.42221063403170054210,
        0.24222942201040859249,
        0.047374515478601436594,
        0.54386826052472423338,
        -0.93252230928447264311,
        0.16960179883676464855,
        0.71608567578450563608,
        -0.80016730247310573512,
        0.23778185292256770747,
        -0.32330301550863943389,
    ];
    CompositionScheme::symmetric("Kahan-Li 10".into(), &half, Some(0.95529818470370207691), 2, 10)
}

/// Sofroniou & Spaletta order 10 (s = 35, symmetric) for a symmetric 2nd-order method:
/// M. Sofroniou, G. Spaletta, *Derivation of symmetric composition constants for symmetric
/// integrators*, Optim. Methods Softw. 20 (2005) (docs/math.md §B.3). Quoted with 32
/// significant digits (the 26-digit values also in circulation are their rounding and give the
/// same `f64`); the moments `Σγ^k`, `k = 3, 5, 7, 9`, vanish to `1e-32` before rounding to
/// `f64`. All `|γ_i| < 0.42`.
pub fn sofroniou_spaletta10() -> CompositionScheme {
    let half = [
        0.078795722521686419263907679337684,
        0.31309610341510852776481247192647,
        0.027918383235078066109520273275299,
        -0.22959284159390709415121339679655,
        0.13096206107716486317465685927961,
        -0.26973340565451071434460973222411,
        0.074973343155891435666137105641410,
        0.11199342399981020488957508073640,
        0.36613344954622675119314812353150,
        -0.39910563013603589787862981058340,
        0.10308739852747107731580277001372,
        0.41143087395589023782070411897608,
        -0.0048663605831352617621956593099771,
        -0.39203335370863990644808193642610,
        0.051942502962449647037182904015976,
        0.050665090759924496335874344156866,
        0.049674370639729879054568800279461,
    ];
    CompositionScheme::symmetric(
        "Sofroniou-Spaletta 10".into(),
        &half,
        Some(0.049317735759594537917680008339338),
        2,
        10,
    )
}

/// `Φ*_{h/2} ∘ Φ_{h/2}`: a first-order method composed with its adjoint, order 2 and symmetric
/// (symplectic Euler with its adjoint gives Störmer–Verlet).
pub fn adjoint_pair() -> CompositionScheme {
    CompositionScheme {
        name: "method with its adjoint".into(),
        stages: vec![Stage::Base(0.5), Stage::Adjoint(0.5)],
        base_order: 1,
        order: 2,
    }
}

/// McLachlan (1995) order 4 from a first-order method `Φ` and its adjoint `Φ*`, 10 sub-steps, in
/// the order applied: `Φ*_{e}, Φ_{a}, Φ*_{d}, Φ_{b}, Φ*_{c}, Φ_{c}, Φ*_{b}, Φ_{d}, Φ*_{a}, Φ_{e}`
/// with `a = (146 + 5√19)/540`, `b = (-2 + 10√19)/135`, `c = 1/5`, `d = (-23 - 20√19)/270`,
/// `e = (14 - √19)/108` (docs/math.md §B.3; other placements of the same numbers give order 2 only).
pub fn mclachlan4() -> CompositionScheme {
    let r = 19f64.sqrt();
    let (a, b, c, d, e) =
        ((146.0 + 5.0 * r) / 540.0, (-2.0 + 10.0 * r) / 135.0, 0.2, (-23.0 - 20.0 * r) / 270.0, (14.0 - r) / 108.0);
    use Stage::{Adjoint as A, Base as B};
    CompositionScheme {
        name: "McLachlan 4".into(),
        stages: vec![A(e), B(a), A(d), B(b), A(c), B(c), A(b), B(d), A(a), B(e)],
        base_order: 1,
        order: 4,
    }
}

/// Every named scheme, for registries and tests.
pub fn all_schemes() -> Vec<CompositionScheme> {
    vec![
        adjoint_pair(),
        triple_jump(2),
        suzuki_fractal(2),
        mclachlan4(),
        yoshida6(),
        kahan_li6(),
        yoshida8(),
        kahan_li8(),
        suzuki_umeno8(),
        kahan_li10(),
        sofroniou_spaletta10(),
    ]
}

/// The composition `Ψ_h` of a base method (and, for schemes with adjoint stages, its adjoint).
#[derive(Debug, Clone)]
pub struct Composition<M, A = M> {
    base: M,
    adjoint: Option<A>,
    scheme: CompositionScheme,
}

impl<M> Composition<M, M> {
    /// Compose a base method with a scheme that has no adjoint stages;
    /// [`GeomError::InvalidParameter`] if the scheme needs the adjoint.
    pub fn new(base: M, scheme: CompositionScheme) -> Result<Self, GeomError> {
        if scheme.uses_adjoint() {
            return Err(GeomError::InvalidParameter {
                what: "composition scheme",
                reason: format!("{} needs the adjoint method: use Composition::with_adjoint", scheme.name),
            });
        }
        Ok(Self { base, adjoint: None, scheme })
    }
}

impl<M, A> Composition<M, A> {
    /// Compose a method `Φ` and its adjoint `Φ*` with any scheme.
    pub fn with_adjoint(base: M, adjoint: A, scheme: CompositionScheme) -> Self {
        Self { base, adjoint: Some(adjoint), scheme }
    }
    /// The coefficient set.
    pub fn scheme(&self) -> &CompositionScheme {
        &self.scheme
    }
    /// The base method `Φ`.
    pub fn base(&self) -> &M {
        &self.base
    }
}

impl<St: Clone + Send + Sync, M: OneStep<St>, A: OneStep<St>> OneStep<St> for Composition<M, A> {
    fn name(&self) -> String {
        format!("{} of {}", self.scheme.name, self.base.name())
    }
    fn order(&self) -> u32 {
        self.scheme.order
    }
    fn is_symmetric(&self) -> bool {
        let n = self.scheme.stages.len();
        (0..n).all(|i| {
            let (a, b) = (self.scheme.stages[i], self.scheme.stages[n - 1 - i]);
            match (a, b) {
                (Stage::Base(x), Stage::Base(y)) => x == y && self.base.is_symmetric(),
                (Stage::Base(x), Stage::Adjoint(y)) | (Stage::Adjoint(x), Stage::Base(y)) => x == y,
                (Stage::Adjoint(x), Stage::Adjoint(y)) => x == y,
            }
        })
    }
    /// Apply the stages in order to a working copy of the state, written back when every stage
    /// has succeeded (one copy per step; on any error the state is untouched). The copy is a
    /// local, so that with inlined stages it lives in registers across the stages.
    #[inline]
    fn step(&self, state: &mut St, h: f64) -> Result<(), GeomError> {
        check_step(h)?;
        let mut work = state.clone();
        for stage in &self.scheme.stages {
            match (stage, &self.adjoint) {
                (Stage::Base(g), _) => self.base.step(&mut work, g * h)?,
                (Stage::Adjoint(g), Some(adj)) => adj.step(&mut work, g * h)?,
                (Stage::Adjoint(_), None) => {
                    return Err(GeomError::InvalidParameter {
                        what: "composition scheme",
                        reason: "adjoint stage without an adjoint method".into(),
                    });
                }
            }
        }
        *state = work;
        Ok(())
    }
}
