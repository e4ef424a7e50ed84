//! Poincaré sections: the crossings of a hypersurface `g(x) = 0` in one direction.

use super::estimate::Estimate;
#[cfg(doc)]
use super::event::Direction;
use super::event::{Event, EventFunction};
use super::runner::{Crossing, EventRunner};
use geom_core::GeomError;
use geom_core::step::OneStep;
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
/// `Event::new(|x: &PhaseState<2>| x.q[0], Direction::Rising)`; a section of the heavy top on
/// `T*SO(3)`, with [`EventRunner::restepping`]: `Event::new(|x: &LieStateOf<So3, 3>| x.mu[0],
/// Direction::Rising)`.
pub fn poincare_section<M, E, G, St>(
    runner: &EventRunner<M, E>,
    state: &mut St,
    t: &mut f64,
    h: f64,
    section: Event<G>,
    count: usize,
    max_steps: usize,
) -> Result<Vec<Crossing<St>>, GeomError>
where
    M: OneStep<St>,
    E: Estimate<St>,
    G: EventFunction<St>,
    St: Clone,
{
    // grows with the crossings found: a huge `count` ("all of them") allocates nothing up front
    let mut out = Vec::with_capacity(count.min(1024));
    if count == 0 {
        return Ok(out);
    }
    let events = [Event::new(section.g, section.direction)];
    runner.run(state, t, h, max_steps, &events, |c| {
        out.push(c.clone());
        if out.len() >= count { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    })?;
    Ok(out)
}
