//! Compositions of Störmer–Verlet with merged kicks (HLW = Hairer, Lubich & Wanner, *Geometric
//! Numerical Integration*, 2006, V.3.2, "processing" aside).
//!
//! A composition `Ψ_h = Φ_{γ_s h} ∘ … ∘ Φ_{γ_1 h}` of the kick–drift–kick Störmer–Verlet step
//! `Φ_τ = K_{τ/2} ∘ D_τ ∘ K_{τ/2}` for a separable `H = T(p) + V(q)`, with the kick
//! `K_τ: p ← p − τ V'(q)` and the drift `D_τ: q ← q + τ T'(p)`, has two kicks at the same `q`
//! between consecutive stages, and `K_a ∘ K_b = K_{a+b}`. So
//!
//! ```text
//!   Ψ_h = K_{γ_s h/2} ∘ D_{γ_s h} ∘ K_{(γ_s + γ_{s−1}) h/2} ∘ … ∘ K_{(γ_2 + γ_1) h/2} ∘ D_{γ_1 h} ∘ K_{γ_1 h/2}
//! ```
//!
//! is the same map with `s + 1` force evaluations `V'` instead of `2s` (17-stage Kahan–Li 8:
//! 18 instead of 34). It is not a different method: in exact arithmetic the two forms agree, and
//! in floating point they agree to round-off (tested to 1e-12 over 1000 steps). For a
//! Hamiltonian that does not declare itself separable, [`VerletComposition`] is the ordinary
//! [`Composition`] of the implicit Störmer–Verlet.

use crate::classical::StormerVerlet;
use discretization::{Composition, CompositionScheme};
use geom_core::GeomError;
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::step::{OneStep, PhaseState, check_step};

/// The composition of Störmer–Verlet by `scheme` (a scheme of base stages only), with merged
/// kicks when `H` is separable (module documentation).
#[derive(Debug, Clone)]
pub struct VerletComposition<H> {
    /// The plain composition (the non-separable path, and the name/order/symmetry).
    plain: Composition<StormerVerlet<H>>,
    /// Kick coefficients `k_0 = γ_1/2, k_i = (γ_i + γ_{i+1})/2, k_s = γ_s/2` (times `h`).
    kicks: Vec<f64>,
    /// Drift coefficients `γ_i` (times `h`).
    drifts: Vec<f64>,
}

impl<H> VerletComposition<H> {
    /// The composition of `StormerVerlet::new(hamiltonian)` by `scheme`;
    /// [`GeomError::InvalidParameter`] if the scheme has adjoint stages (Störmer–Verlet is
    /// symmetric: use base stages) or no stage.
    pub fn new(hamiltonian: H, scheme: CompositionScheme) -> Result<Self, GeomError> {
        if scheme.stages.is_empty() {
            return Err(GeomError::InvalidParameter { what: "composition scheme", reason: "no stages".into() });
        }
        let drifts: Vec<f64> = scheme.stages.iter().map(|s| s.coefficient()).collect();
        let plain = Composition::new(StormerVerlet::new(hamiltonian), scheme)?;
        let s = drifts.len();
        let kicks = (0..=s)
            .map(|i| match i {
                0 => 0.5 * drifts[0],
                i if i == s => 0.5 * drifts[s - 1],
                i => 0.5 * (drifts[i - 1] + drifts[i]),
            })
            .collect();
        Ok(Self { plain, kicks, drifts })
    }
}

impl<H> VerletComposition<H> {
    /// The composition scheme.
    pub fn scheme(&self) -> &CompositionScheme {
        self.plain.scheme()
    }
}

impl<H: PhaseSpaceDerivatives<N>, const N: usize> OneStep<PhaseState<N>> for VerletComposition<H> {
    fn name(&self) -> String {
        self.plain.name()
    }
    fn order(&self) -> u32 {
        self.plain.order()
    }
    fn is_symmetric(&self) -> bool {
        self.plain.is_symmetric()
    }
    /// Kick, then drift and merged kick per stage; the new state is checked once.
    #[inline]
    fn step(&self, state: &mut PhaseState<N>, h: f64) -> Result<(), GeomError> {
        let ham = self.plain.base().hamiltonian();
        if !ham.is_separable() {
            return self.plain.step(state, h);
        }
        check_step(h)?;
        let (mut q, mut p) = (state.q, state.p);
        p -= ham.gradient_q(&q, &p) * (self.kicks[0] * h);
        for (gamma, kick) in self.drifts.iter().zip(&self.kicks[1..]) {
            q += ham.gradient_p(&q, &p) * (gamma * h);
            p -= ham.gradient_q(&q, &p) * (kick * h);
        }
        let next = PhaseState::new(q, p);
        if !next.is_finite() {
            return Err(GeomError::NonFinite { what: "state after step" });
        }
        *state = next;
        Ok(())
    }
}
