//! The fixed-step time-dependent flow ([`FixedStepFlow`]) as a one-step integrator
//! ([`OneStep`]) of its state `(g_k, λ_k)` ([`SigmaPoint`]`<`[`TimeArrow`]`<N>, 1>`), so that
//! drivers, checkpoints, ensembles and the workbench take it as they take every other integrator.
//!
//! **The step.** An integrator takes the step size with each call: the step `h` is the step of
//! the next arrow, `Δt_{k+1} = h` (the constraint `N_h = {Δt = h}` on the arrow being built),
//!
//! ```text
//!   D_2L̂(q_k, q_{k+1}, Δt_k) + D_1L̂(q_{k+1}, q_{k+2}, h) = 0     (Newton on q_{k+2}),
//!   g_{k+1} = (q_{k+1}, q_{k+2}, h),   λ_{k+1} = (λ_k − E(g_k)) + E(g_{k+1}),
//! ```
//!
//! with `E = −∂L̂/∂Δt` the discrete energy (Marrero, Martín de Diego & Stern, *Symplectic
//! groupoids and discrete constrained Lagrangian mechanics*, 2015, arXiv:1103.6250, §6). With
//! the flow's own step it is [`FixedStepFlow::advance`], bit for bit. The state is an arrow, a
//! point of the Lagrangian side `N ⊂ G`: its `Δt_k` is the step of the previous call, so the
//! method is declared neither symmetric nor composable with negative steps, and its order
//! (2 for the [`Midpoint`](crate::time_dependent::Midpoint) `L̂`) is given by the caller
//! ([`FixedStepFlow::with_order`]). A failed step leaves the state untouched.
//!
//! **Words** ([`FlatState`]): an arrow is `(q_k, q_{k+1}, Δt_k, t_k.hi, t_k.lo)`, the compensated
//! time with its carried rounding, so a resumed run continues bit for bit; a point `(g, λ)` is
//! the arrow's words followed by `λ`.

use crate::constraints::SigmaPoint;
use crate::time_dependent::{CompensatedTime, FixedStepFlow, StepLagrangian, TimeArrow};
use geom_core::Result;
use geom_core::step::{FlatState, OneStep, check_step};
use nalgebra::SVector;

impl<const N: usize> FlatState for TimeArrow<N> {
    const WORDS: usize = 2 * N + 3;
    fn write_words(&self, out: &mut Vec<f64>) {
        out.extend(self.q0.iter().chain(self.q1.iter()));
        out.extend([self.dt, self.t0.value(), self.t0.error()]);
    }
    fn read_words(words: &[f64]) -> Option<Self> {
        if words.len() != Self::WORDS {
            return None;
        }
        let q0 = SVector::from_column_slice(&words[..N]);
        let q1 = SVector::from_column_slice(&words[N..2 * N]);
        let t0 = CompensatedTime::from_parts(words[2 * N + 1], words[2 * N + 2]);
        Some(Self { q0, q1, dt: words[2 * N], t0 })
    }
    fn words_finite(&self) -> bool {
        self.q0.iter().chain(self.q1.iter()).all(|v| v.is_finite())
            && self.dt.is_finite()
            && self.t0.value().is_finite()
            && self.t0.error().is_finite()
    }
}

impl<E: FlatState, const K: usize> FlatState for SigmaPoint<E, K> {
    const WORDS: usize = E::WORDS + K;
    fn write_words(&self, out: &mut Vec<f64>) {
        self.g.write_words(out);
        out.extend(self.lambda.iter());
    }
    fn read_words(words: &[f64]) -> Option<Self> {
        if words.len() != Self::WORDS {
            return None;
        }
        let (g, lambda) = words.split_at(E::WORDS);
        Some(Self::new(E::read_words(g)?, SVector::from_column_slice(lambda)))
    }
    fn words_finite(&self) -> bool {
        self.g.words_finite() && self.lambda.iter().all(|v| v.is_finite())
    }
}

impl<L: StepLagrangian<N>, const N: usize> OneStep<SigmaPoint<TimeArrow<N>, 1>> for FixedStepFlow<L> {
    fn name(&self) -> String {
        "fixed-step flow of L̂ on the time groupoid (Q × Q) × R".into()
    }
    fn order(&self) -> u32 {
        self.order()
    }
    /// `false`: the state is an arrow, whose `Δt_k` is the previous call's step (module
    /// documentation).
    fn is_symmetric(&self) -> bool {
        false
    }
    /// `Δt_{k+1} = h` (module documentation). Errors ([`geom_core::GeomError`]): an invalid `h`, a
    /// non-finite state or `Δt_k <= 0`, Newton failures, a non-finite result; the state is then
    /// untouched.
    fn step(&self, state: &mut SigmaPoint<TimeArrow<N>, 1>, h: f64) -> Result<()> {
        check_step(h)?;
        let (next, _) = self.next_point(state, h)?;
        *state = next;
        Ok(())
    }
}
