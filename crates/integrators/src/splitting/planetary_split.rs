//! What the Wisdom–Holman family needs of a planetary system split as `H = H_K + H_I`: the
//! change to the split's canonical coordinates and back, and the flows of the two pieces.
//!
//! A Wisdom–Holman step ([`super::WisdomHolman`]) is a composition of the flows of `H_K` (the
//! Keplerian part, [`PlanetarySplit::drift`]) and of the perturbation ([`PlanetarySplit::kick`])
//! in the coordinates of the split; the step is symplectic when both flows are (exact flows,
//! or a symmetric composition of exact flows). Two splits are shipped:
//!
//! * [`super::PlanetarySystem`], Jacobi coordinates (Wisdom & Holman 1991): `H_I` depends on
//!   the positions only and its flow is an exact kick;
//! * [`super::DemocraticHeliocentric`], democratic heliocentric coordinates (Duncan, Levison &
//!   Lee 1998): the perturbation is the planets' mutual interaction plus the Sun's kinetic
//!   term `|Σ P_i|²/(2 m_0)`, and its flow is the symmetric composition of their exact flows.

use geom_core::GeomError;
use geom_core::step::{FlatState, PhaseState};

/// A planetary system of `B` bodies in `R^D` (body 0 the central one) split as
/// `H = H_K + H_I` in some canonical coordinates, with the flows of the pieces.
///
/// Contract: [`PlanetarySplit::to_inertial`] inverts [`PlanetarySplit::to_split`] (to
/// round-off); [`PlanetarySplit::drift`] is the exact flow of `H_K`; [`PlanetarySplit::kick`]
/// is the exact flow of `H_I`, or a symmetric composition of exact flows of its parts (then
/// `kick(t)` is the flow of `H_I + O(t²)` and `kick(−t)` its inverse); with
/// [`PlanetarySplit::CORRECTOR_KICK`], [`PlanetarySplit::corrector_kick`] is the exact flow of
/// `{{H_K, H_I}, H_I}`. No allocation in any of them.
pub trait PlanetarySplit<const D: usize, const B: usize>: Clone + std::fmt::Debug + Send + Sync {
    /// The state in the split's coordinates, written as words for checkpoints
    /// ([`FlatState`]: `words_finite` without allocation).
    type State: Copy + std::fmt::Debug + FlatState + Send + Sync;
    /// The coordinates' name, e.g. `"Jacobi coordinates"`.
    const COORDINATES: &'static str;
    /// Whether the flow of `{{H_K, H_I}, H_I}` is a kick ([`PlanetarySplit::corrector_kick`]):
    /// what SABAC_n needs.
    const CORRECTOR_KICK: bool;
    /// The split's coordinates of an inertial state `(q, p)` of `T*R^N`, `N = B·D` (body `i` at
    /// rows `D·i .. D·i + D`, `p_i = m_i v_i`).
    fn to_split<const N: usize>(&self, s: &PhaseState<N>) -> Self::State;
    /// The inertial state `(q, p)` of the split's coordinates.
    fn to_inertial<const N: usize>(&self, s: &Self::State) -> PhaseState<N>;
    /// The flow of `H_K` for time `t`; the errors of the Kepler solver (the state may then be
    /// partly advanced: callers work on a copy).
    fn drift(&self, s: &mut Self::State, t: f64) -> Result<(), GeomError>;
    /// The flow of `H_I` for time `t` (above).
    fn kick(&self, s: &mut Self::State, t: f64);
    /// The flow of `{{H_K, H_I}, H_I}` for time `t` where [`PlanetarySplit::CORRECTOR_KICK`];
    /// else [`GeomError::InvalidParameter`] and the state untouched.
    fn corrector_kick(&self, s: &mut Self::State, t: f64) -> Result<(), GeomError>;
}
