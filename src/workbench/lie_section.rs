//! Poincaré sections of the problems on a Lie group's `T*G`: the workbench's front door to the
//! library's event location on any state space ([`integrators::events::EventRunner::restepping`]).
//!
//! A state is read in the problem's coordinates, the entries of `g ∈ G ⊂ GL(M)` row-major and
//! then the body momentum `μ ∈ g* ≅ R^D` (the labels `R11 … R33, Pi1 … Pi3` of the SO(3)
//! problems, `g11 … g44, mu1 … mu6` of SE(3)). A [`Section`] is a hyperplane `x_i = c` of one of
//! these coordinates. Each crossing is estimated by the linear interpolation of `x_i − c` over
//! the step and refined by re-stepping the method from the step's start (secant iterations on
//! `τ ↦ x_i(Φ_τ(x_k)) − c`) to round-off: the located state is a state of the method itself, on
//! the group to round-off, with the method's energy behaviour.

use crate::workbench::WorkbenchError;
use crate::workbench::chaos::{Section, SectionCrossing, chunked_section};
use crate::workbench::methods::{MatrixState, MethodInfo};
use geom_core::step::OneStep;
use integrators::events::{Event, EventRunner};
use std::sync::atomic::AtomicBool;

/// A problem on `T*G` with Poincaré sections
/// ([`crate::workbench::problem::Problem::lie_sections`]). Object safe: states are slices in
/// the problem's coordinates (`g` row-major, then `μ`).
pub trait LieSections: Send + Sync {
    /// `D = dim G`: the state's last `D` coordinates are `μ`.
    fn dimension(&self) -> usize;
    /// The energy `H(g, μ)` of `state`; an input error for a state off the group or of the
    /// wrong length.
    fn energy(&self, state: &[f64]) -> Result<f64, WorkbenchError>;
    /// The first `count` crossings of `section` by the trajectory of `method` with step `h`
    /// from `state` at `t = 0`, within `max_steps` steps (fewer if they run out), in chunks of
    /// [`crate::workbench::chaos::CHUNK`] steps; [`WorkbenchError::Stopped`] once `stop` is set.
    #[allow(clippy::too_many_arguments)]
    fn section(
        &self,
        method: &MethodInfo,
        h: f64,
        state: &[f64],
        section: &Section,
        count: usize,
        max_steps: usize,
        stop: Option<&AtomicBool>,
    ) -> Result<Vec<SectionCrossing>, WorkbenchError>;
}

/// Coordinate `i` of `(g, μ)`: `g[(i / M, i % M)]` for `i < M²`, else `μ[i − M²]`.
#[inline]
fn coordinate<const M: usize, const D: usize>(x: &MatrixState<M, D>, i: usize) -> f64 {
    if i < M * M { x.g[(i / M, i % M)] } else { x.mu[i - M * M] }
}

/// `(g, μ)` as the problem's coordinates: `g` row-major, then `μ`.
pub fn coordinates<const M: usize, const D: usize>(x: &MatrixState<M, D>) -> Vec<f64> {
    (0..M * M).map(|k| x.g[(k / M, k % M)]).chain(x.mu.iter().copied()).collect()
}

/// [`LieSections::section`] for the method `method` from the state `start`.
pub fn lie_section_of<const M: usize, const D: usize>(
    method: Box<dyn OneStep<MatrixState<M, D>>>,
    start: MatrixState<M, D>,
    h: f64,
    section: &Section,
    (count, max_steps): (usize, usize),
    stop: Option<&AtomicBool>,
) -> Result<Vec<SectionCrossing>, WorkbenchError> {
    if section.index >= M * M + D {
        return Err(WorkbenchError::Input(format!("--section: coordinate index {} out of range", section.index)));
    }
    let runner = EventRunner::restepping(method);
    let (i, c) = (section.index, section.level);
    let event = Event::new(move |x: &MatrixState<M, D>| coordinate(x, i) - c, section.direction);
    chunked_section(&runner, start, h, event, (count, max_steps), stop, coordinates)
}
