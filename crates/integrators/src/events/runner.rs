//! Stepping a method with events: the crossings of each step located and reported in time order,
//! terminal events stopping the run.

use super::estimate::{Estimate, HermiteEstimate, LinearEstimate};
use super::event::{Event, EventFunction};
use super::locate::{Refinement, locate};
use geom_core::GeomError;
use geom_core::step::{OneStep, check_step};
use std::ops::ControlFlow;

/// One located event: which event (its index in the slice given to [`EventRunner::run`]), the
/// time and the state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crossing<St> {
    /// Index of the event in the slice of events.
    pub event: usize,
    /// The time `t_k + τ` of the crossing.
    pub t: f64,
    /// The state at the crossing.
    pub state: St,
}

/// How a run with events ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome<St> {
    /// All the steps were taken.
    Completed,
    /// A terminal event stopped the run at this crossing (the run's state is its state).
    Terminal(Crossing<St>),
    /// The sink returned [`ControlFlow::Break`] at this crossing; the run's state is the end of
    /// the step in which it happened.
    Stopped(Crossing<St>),
}

/// A fixed-step method `Φ_h` on any state space with event location: after each step the sign
/// of every event function is compared with its value at the step start; each crossing is
/// located ([`crate::events`]: the [`Estimate`] `E` — Hermite from the vector field at both ends
/// of the step on `T*R^N` ([`EventRunner::new`]), linear interpolation of `g` on any state space
/// ([`EventRunner::restepping`]) — then the [`Refinement`]) and passed to the sink in time order.
///
/// * A **non-terminal** crossing is reported and the run goes on from the end of the step.
/// * A **terminal** crossing ends the run at the earliest terminal crossing of the step: the
///   non-terminal crossings before it are reported, the state and time are set to it.
///
/// Costs per step: one `g` evaluation per event; the estimate's vector field is evaluated only
/// for a crossing (twice), the refinement adds a few steps per crossing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EventRunner<M, E> {
    method: M,
    estimate: E,
    refinement: Refinement,
}

impl<M, F> EventRunner<M, HermiteEstimate<F>> {
    /// The method `method` with the vector field `field` it integrates (for the Hermite
    /// estimate, [`HermiteEstimate`]; for a Hamiltonian, [`crate::classical::HamiltonianField`]),
    /// refined by re-stepping ([`Refinement::Restep`]).
    pub fn new(method: M, field: F) -> Self {
        Self { method, estimate: HermiteEstimate(field), refinement: Refinement::Restep }
    }
}

impl<M> EventRunner<M, LinearEstimate> {
    /// The method `method` on any state space (e.g. a Hamilton–Pontryagin method on `T*G`),
    /// without a vector field: the crossing is estimated by the linear interpolation of `g`
    /// ([`LinearEstimate`]) and refined by re-stepping ([`Refinement::Restep`]) to round-off, as
    /// from the Hermite estimate (a few more steps per crossing).
    pub fn restepping(method: M) -> Self {
        Self { method, estimate: LinearEstimate, refinement: Refinement::Restep }
    }
}

impl<M, E> EventRunner<M, E> {
    /// The same runner with another [`Refinement`].
    pub fn with_refinement(self, refinement: Refinement) -> Self {
        Self { refinement, ..self }
    }

    /// The method.
    pub fn method(&self) -> &M {
        &self.method
    }

    /// Advance `state` from time `*t` by up to `steps` steps of size `h`, reporting every
    /// crossing of `events` to `sink` (which may stop the run with [`ControlFlow::Break`]).
    ///
    /// On return `state` and `t` are the end of the run: after `steps` steps
    /// ([`Outcome::Completed`], `t = t₀ + steps·h` computed as a product, not a sum), at a
    /// terminal crossing ([`Outcome::Terminal`]) or at the end of the step of the crossing the
    /// sink stopped at ([`Outcome::Stopped`]). On an error (invalid `h`, a failed step or
    /// field evaluation, a non-finite event value) `state` and `t` are left as they were; the
    /// crossings already passed to the sink stay passed.
    pub fn run<G, St>(
        &self,
        state: &mut St,
        t: &mut f64,
        h: f64,
        steps: usize,
        events: &[Event<G>],
        mut sink: impl FnMut(&Crossing<St>) -> ControlFlow<()>,
    ) -> Result<Outcome<St>, GeomError>
    where
        M: OneStep<St>,
        E: Estimate<St>,
        G: EventFunction<St>,
        St: Clone,
    {
        check_step(h)?;
        let t0 = *t;
        let values = |x: &St, out: &mut Vec<f64>| -> Result<(), GeomError> {
            out.clear();
            for e in events {
                let v = e.g.value(x);
                if v.is_nan() {
                    return Err(GeomError::NonFinite { what: "event function value" });
                }
                out.push(v);
            }
            Ok(())
        };
        let (mut g0, mut g1) = (Vec::with_capacity(events.len()), Vec::with_capacity(events.len()));
        let mut found: Vec<(f64, usize, St)> = Vec::new();
        let mut x0 = state.clone();
        values(&x0, &mut g0)?;
        for k in 0..steps {
            let mut x1 = x0.clone();
            self.method.step(&mut x1, h)?;
            values(&x1, &mut g1)?;
            found.clear();
            let crossing = events.iter().enumerate().any(|(i, e)| e.direction.crosses(g0[i], g1[i]));
            if crossing {
                for (i, e) in events.iter().enumerate() {
                    if e.direction.crosses(g0[i], g1[i]) {
                        let (tau, x) =
                            locate(&self.method, &e.g, &self.estimate, self.refinement, (&x0, g0[i]), (&x1, g1[i]), h)?;
                        found.push((tau, i, x));
                    }
                }
                found.sort_by(|a, b| (a.0 / h).total_cmp(&(b.0 / h)).then(a.1.cmp(&b.1)));
                let t_start = t0 + k as f64 * h;
                for (tau, i, x) in found.drain(..) {
                    let c = Crossing { event: i, t: t_start + tau, state: x };
                    if events[i].terminal {
                        let _ = sink(&c);
                        *state = c.state.clone();
                        *t = c.t;
                        return Ok(Outcome::Terminal(c));
                    }
                    if sink(&c).is_break() {
                        *state = x1;
                        *t = t0 + (k + 1) as f64 * h;
                        return Ok(Outcome::Stopped(c));
                    }
                }
            }
            x0 = x1;
            std::mem::swap(&mut g0, &mut g1);
        }
        *state = x0;
        *t = t0 + steps as f64 * h;
        Ok(Outcome::Completed)
    }
}
