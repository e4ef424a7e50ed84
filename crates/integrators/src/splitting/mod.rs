//! Splitting methods with exact sub-flows.
//!
//! For `H = A + B` (or `H = H_1 + … + H_K`) whose pieces have flows that can be computed
//! exactly, `φ^A_t`, `φ^B_t`, a splitting method is the composition
//!
//! ```text
//!   ψ_h = φ^B_{b_s h} ∘ φ^A_{a_s h} ∘ … ∘ φ^B_{b_1 h} ∘ φ^A_{a_1 h}
//! ```
//!
//! with coefficients chosen so that `ψ_h = φ^H_h + O(h^{p+1})` (McLachlan & Quispel,
//! *Splitting methods*, Acta Numerica 11, 2002; Blanes & Casas, *A Concise Introduction to
//! Geometric Numerical Integration*, 2016). It is symplectic when every `φ` is (an exact
//! Hamiltonian flow is), and symmetric when the coefficients are a palindrome.
//!
//! * [`ExactFlow`] is what the user supplies for a piece (in place on a state `St`, generic so
//!   that a Lie-group state can use it); [`StepFlow`] makes any [`geom_core::step::OneStep`] one
//!   (then the order is capped by the method's); [`SubFlows`] is a list of them (tuples, arrays);
//!   [`FlowCache`] holds what a flow computes from the time alone, for the stages of a
//!   splitting at the same time to share ([`ExactFlow::flow_cached`]);
//! * [`SplittingScheme`] holds validated coefficients ([`SchemeError`]): [`lie_trotter`],
//!   [`strang`], [`triple_jump4`], [`suzuki_fractal4`], [`mclachlan4`], [`blanes_moan_s6`],
//!   [`triple_jump6`], [`yoshida6`], [`blanes_moan_s10`], any composition of
//!   [`discretization::composition`] ([`SplittingScheme::from_composition`]), or the user's;
//!   [`order_defects`] is the check of the order conditions in the free algebra;
//! * [`Splitting`] is the method, a [`geom_core::step::OneStep`];
//! * shipped exact flows on `T*R^N`: [`Harmonic`] (the oscillator's rotation), [`KeplerDrift`]
//!   (the two-body problem by universal variables, with [`stumpff`]), [`Kick`] (`p ← p − t∇V`),
//!   [`Drift`] (`q ← q + t∇T`);
//! * planetary systems: [`JacobiMasses`] (Jacobi coordinates), [`PlanetarySystem`] (the
//!   Wisdom–Holman splitting `H = H_K + H_I`: Kepler drifts and interaction kicks),
//!   [`DemocraticHeliocentric`] (the same in the democratic heliocentric coordinates of Duncan,
//!   Levison & Lee 1998), [`PlanetarySplit`] (what both provide), [`WisdomHolman`] (the
//!   Wisdom–Holman map, SABA_n and SABAC_n of Laskar & Robutel
//!   ([`saba()`], [`perturbed_order_defects`]), the symplectic correctors of Wisdom, Holman &
//!   Touma ([`SymplecticCorrector`])), and [`ProcessedWisdomHolman`], the same on its mapping
//!   variable with the corrector applied only at output (WHFast's way).

mod bodies;
mod composed_flow;
mod democratic;
mod exact_flow;
mod harmonic;
mod jacobi;
mod kepler_drift;
mod kick_drift;
mod order_conditions;
mod planetary;
mod planetary_split;
mod processed;
mod saba;
mod schemes;
mod stumpff;
mod symplectic_corrector;
mod wisdom_holman;

pub use composed_flow::Splitting;
pub use democratic::{DemocraticHeliocentric, HeliocentricState};
pub use exact_flow::{ExactFlow, FlowCache, Parts, StepFlow, SubFlows};
pub use harmonic::Harmonic;
pub use jacobi::JacobiMasses;
pub use kepler_drift::{KeplerDrift, KeplerSolve, MAX_ITERATIONS};
pub use kick_drift::{Drift, Kick};
pub use order_conditions::{bba_coefficient, order_defects, perturbed_order_defects};
pub use planetary::{JacobiState, PlanetarySystem};
pub use planetary_split::PlanetarySplit;
pub use processed::ProcessedWisdomHolman;
pub use saba::{SABA_MAX, saba, sabac_corrector};
pub use schemes::{
    ORDER_TOLERANCE, SchemeError, SplittingScheme, all_schemes, blanes_moan_s6, blanes_moan_s10, lie_trotter,
    mclachlan4, strang, suzuki_fractal4, triple_jump4, triple_jump6, yoshida6,
};
pub use stumpff::stumpff;
pub use symplectic_corrector::{CORRECTOR_A1, CORRECTOR_ORDERS, SymplecticCorrector, kick_moments};
pub use wisdom_holman::WisdomHolman;
