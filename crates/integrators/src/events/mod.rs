//! Events and Poincaré sections for any fixed-step method, on `T*R^N` or any other state space
//! (`T*G` of the Hamilton–Pontryagin methods).
//!
//! An **event** is a zero of a scalar function `g(x)` of the state along the numerical
//! trajectory. After each step `x_k → x_{k+1} = Φ_h(x_k)` the sign of `g` is compared; on a
//! change (filtered by [`Direction`]) the crossing is located inside the step in two stages:
//!
//! 1. **Estimate** ([`estimate`]). On `T*R^N` with the vector field `f = X_H`: the cubic
//!    Hermite interpolant `u(θ)` of the step ([`hermite`]), built from `x_k`, `x_{k+1}` and `f`
//!    at both ends, has local error `O(h⁴)` (order 3, HLW II.1, Hairer–Nørsett–Wanner II.6); the
//!    root `θ*` of `g(u(θ))` is found by safeguarded secant iterations on `[0, 1]`. On any state
//!    space (where states are not added, e.g. `T*G`): `θ* = g_k/(g_k − g_{k+1})`, the zero of the
//!    linear interpolation of `g` ([`LinearEstimate`], time error `O(h²)`).
//! 2. **Refinement by re-stepping** ([`Refinement::Restep`], the default): secant iterations on
//!    `φ(τ) = g(Φ_τ(x_k))`, `τ ∈ (0, h)`, started from `τ = θ* h`, with the bracket kept
//!    (bisection if a secant iterate leaves it), until `τ` no longer changes (round-off) — the
//!    located state `Φ_τ(x_k)` is then a state of the method itself (a step of size `τ`), so the
//!    event inherits the method's accuracy (and, for a symplectic method, its bounded energy
//!    error), not the interpolant's; typically 2–4 extra steps per event.
//!    [`Refinement::Interpolant`] stops after stage 1 (no extra step; event time error `O(h⁴)`
//!    from the Hermite estimate).
//!
//! The event function, its direction filter and whether it stops the run are an [`Event`]
//! ([`event`]); [`runner::EventRunner`] steps a method and reports [`Crossing`]s (terminal and
//! non-terminal); [`poincare`] collects the crossings of a section `g(x) = 0` in one direction.

pub mod estimate;
pub mod event;
pub mod hermite;
pub mod locate;
pub mod poincare;
pub mod runner;
mod secant;

pub use estimate::{Estimate, HermiteEstimate, LinearEstimate};
pub use event::{Direction, Event, EventFunction};
pub use hermite::Hermite;
pub use locate::Refinement;
pub use poincare::poincare_section;
pub use runner::{Crossing, EventRunner, Outcome};
