//! Poincaré sections: the crossings of a hypersurface `g(x) = 0` in one direction.

#[cfg(doc)]
use super::event::Direction;
use super::event::{Event, EventFunction};
use super::runner::{Crossing, EventRunner};
use crate::classical::VectorField;
use geom_core::GeomError;
use geom_core::step::{OneStep, PhaseState};
use std::ops::ControlFlow;

/// The first `count` crossings of the section `Σ = {g(x) = 0}` in the direction of `section`
/// (its `terminal` flag is ignored: every crossing is collected) by the numerical
/// trajectory from `state` at time `t` (steps of size `h`, at most `max_steps`): the Poincaré
/// map's orbit `x, P(x), P²(x), …` sampled as the runner's [`Crossing`]s (time and full state;
/// project them onto the section's coordinates to plot). `state` and `t` are advanced to the end
/// of the step of the last crossing (or of `max_steps`); fewer than `count` crossings are returned
/// if `max_steps` runs out. Errors as [`EventRunner::run`].
///
/// The section of Hénon–Heiles at `q₁ = 0`, `p₁ > 0` (GNI's `henon.f`, Hénon & Heiles 1964):
/// `Event::new(|x: &PhaseState<2>| x.q[0], Direction::Rising)`.
pub fn poincare_section<M, F, G, const N: usize>(
    runner: &EventRunner<M, F>,
    state: &mut PhaseState<N>,
    t: &mut f64,
    h: f64,
    section: Event<G>,
    count: usize,
    max_steps: usize,
) -> Result<Vec<Crossing<N>>, GeomError>
where
    M: OneStep<PhaseState<N>>,
    F: VectorField<PhaseState<N>>,
    G: EventFunction<N>,
{
    // grows with the crossings found: a huge `count` ("all of them") allocates nothing up front
    let mut out = Vec::with_capacity(count.min(1024));
    if count == 0 {
        return Ok(out);
    }
    let events = [Event::new(section.g, section.direction)];
    runner.run(state, t, h, max_steps, &events, |c| {
        out.push(*c);
        if out.len() >= count { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    })?;
    Ok(out)
}
