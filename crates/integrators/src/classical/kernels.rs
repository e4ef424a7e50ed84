//! The kernels every classical method shares: the state and increment aliases, and the finiteness
//! checks of a step.

use geom_core::GeomError;
use geom_core::step::PhaseState;
use nalgebra::{SMatrix, SVector};

pub(crate) type Vector<const N: usize> = SVector<f64, N>;
pub(crate) type Matrix<const N: usize> = SMatrix<f64, N, N>;
/// `(Δq, Δp)`.
pub(crate) type Delta<const N: usize> = (Vector<N>, Vector<N>);

/// `state + (dq, dp)` if every entry of the increment and of the result is finite.
#[inline]
pub(crate) fn apply<const N: usize>(state: &PhaseState<N>, (dq, dp): &Delta<N>) -> Result<PhaseState<N>, GeomError> {
    // `q + Δq` is finite only if both terms are: one check covers the state and the increment
    let next = PhaseState::new(state.q + dq, state.p + dp);
    if next.is_finite() { Ok(next) } else { Err(GeomError::NonFinite { what: "state after step" }) }
}

/// The increment itself if applying it to `state` gives a finite state.
#[inline]
pub(crate) fn checked<const N: usize>(state: &PhaseState<N>, delta: Delta<N>) -> Result<Delta<N>, GeomError> {
    apply(state, &delta)?;
    Ok(delta)
}

pub(crate) fn check_input<const N: usize>(state: &PhaseState<N>) -> Result<(), GeomError> {
    if state.is_finite() { Ok(()) } else { Err(GeomError::NonFinite { what: "state before step" }) }
}
