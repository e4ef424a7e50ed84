//! Poincaré sections and MEGNO maps of the problems on a Lie group's `T*G`: the
//! [`crate::workbench::chaos::PhaseSpace`] of the rigid body, the heavy and Lagrange tops, the
//! underwater vehicle and the Lie-group system files, on the library's event location on any
//! state space ([`integrators::events::EventRunner::restepping`]) and its tangent map on `T*G`
//! ([`integrators::variational_equations::LieFiniteDifference`]).
//!
//! A state is read in the problem's coordinates ([`crate::workbench::chaos::Layout::Lie`]): the
//! entries of `g ∈ G ⊂ GL(M)` row-major and then the body momentum `μ ∈ g* ≅ R^D`.
//! * A [`Section`] is a hyperplane `x_i = c` of one of these coordinates. Each crossing is
//!   estimated by the linear interpolation of `x_i − c` over the step and refined by re-stepping
//!   the method from the step's start (secant iterations on `τ ↦ x_i(Φ_τ(x_k)) − c`) to
//!   round-off: the located state is a state of the method itself, on the group to round-off,
//!   with the method's energy behaviour.
//! * The MEGNO carries the deviation `(η, δμ) ∈ g × g*` of the left-trivialized chart
//!   `(g exp(η), μ + δμ)` by central differences of the method's step
//!   ([`crate::workbench::chaos::megno_orbits`]): `4D + 1` steps per step.

use crate::workbench::WorkbenchError;
use crate::workbench::chaos::{MegnoValue, Section, SectionCrossing, chunked_section, megno_orbits};
use crate::workbench::methods::MatrixState;
use geom_core::lie::LieGroup;
use geom_core::step::OneStep;
use integrators::events::{Event, EventRunner};
use integrators::variational_equations::LieFiniteDifference;
use nalgebra::SMatrix;
use std::sync::atomic::AtomicBool;

/// Coordinate `i` of `(g, μ)`: `g[(i / M, i % M)]` for `i < M²`, else `μ[i − M²]`.
#[inline]
fn coordinate<const M: usize, const D: usize>(x: &MatrixState<M, D>, i: usize) -> f64 {
    if i < M * M { x.g[(i / M, i % M)] } else { x.mu[i - M * M] }
}

/// `(g, μ)` as the problem's coordinates: `g` row-major, then `μ`.
pub fn coordinates<const M: usize, const D: usize>(x: &MatrixState<M, D>) -> Vec<f64> {
    (0..M * M).map(|k| x.g[(k / M, k % M)]).chain(x.mu.iter().copied()).collect()
}

/// [`crate::workbench::chaos::PhaseSpace::section`] on `T*G` for the method `method` from the
/// state `start`.
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

/// [`crate::workbench::chaos::PhaseSpace::megno`] on `T*G` for the method `method` on `group`
/// from each of `starts` ([`megno_orbits`] of [`LieFiniteDifference`]).
pub fn lie_megno_of<G, const M: usize, const D: usize>(
    group: G,
    method: Box<dyn OneStep<MatrixState<M, D>>>,
    starts: &[MatrixState<M, D>],
    h: f64,
    steps: usize,
    stop: Option<&AtomicBool>,
) -> Result<Vec<Option<MegnoValue>>, WorkbenchError>
where
    G: LieGroup<f64, D, Element = SMatrix<f64, M, M>> + Send + Sync,
{
    megno_orbits(&LieFiniteDifference::new(group, method), starts, h, steps, stop)
}
