//! The step layer of the workspace: the states integrators advance and the one-step trait
//! [`OneStep`] every integrator of every layer implements.
//!
//! A one-step method is a map `Φ_h: x_k ↦ x_{k+1}` on a state space. The states are:
//!
//! * [`PhaseState<N>`](PhaseState): a point `(q, p)` of `T*R^N`;
//! * [`DynPhaseState`]: a point `(q, p)` of `T*R^n` with `n` known at run time (an N-body
//!   system read from a file);
//! * [`LieState<E, D>`](LieState): a point `(g, μ)` of `T*G ≅ G × g*` in left trivialization
//!   (`μ = g^{-1} p` the body momentum; `Π` of the rigid body), the one state of every
//!   integrator on `T*G` (Hamilton–Pontryagin, LGVI, the Lie-group cotangent lift and
//!   Lagrangian route, Lie–Poisson reconstruction); [`LieStateOf<G, D>`](LieStateOf) names it by
//!   the group.
//!
//! Drivers, compositions, the workbench and the Python package hold any integrator as
//! `Box<dyn OneStep<St>>`; a state that is a [`FlatState`] (a fixed number of `f64` words, read
//! back bit for bit) or, at run-time size, [`Words`] can be checkpointed; [`testing`] is the public contract suite a user's
//! integrator must pass. The module lives in `geom-core` so that every layer above (`discretization`,
//! `integrators`, `groupoid`) sees one trait and one set of states.

mod flat;
mod lie_state;
mod phase;
pub mod testing;

pub use flat::{FlatState, Words};
pub use lie_state::{LieState, LieStateOf};
pub use phase::{DynPhaseState, PhaseState};

use crate::GeomError;

/// A one-step method `Φ_h` on states `St` (object-safe: `Box<dyn OneStep<St>>`).
///
/// Contract of [`OneStep::step`]:
/// * `h` may be negative (compositions use negative sub-steps; `Φ_{-h}` is the backward step) but
///   must be finite and nonzero, else [`GeomError::InvalidStep`];
/// * on any error the state is left exactly as it was;
/// * a state that becomes non-finite is an error ([`GeomError::NonFinite`]), not a result.
pub trait OneStep<St>: Send + Sync {
    /// Name of the method, e.g. `"theta(0.5) [midpoint]"`.
    fn name(&self) -> String;
    /// Classical order `p`: the local error is `O(h^{p+1})`.
    fn order(&self) -> u32;
    /// Whether the method is symmetric (`Φ_h^{-1} = Φ_{-h}`), which makes its order even and
    /// lets symmetric compositions raise it by two.
    fn is_symmetric(&self) -> bool {
        false
    }
    /// Advance `state` by one step of size `h`.
    fn step(&self, state: &mut St, h: f64) -> Result<(), GeomError>;
    /// Advance `state` by `n` steps of size `h`: bit for bit the state of `n` calls of
    /// [`OneStep::step`], which is what this default does. A method overrides it to share work
    /// between consecutive steps: Störmer–Verlet of a separable `H` evaluates the force
    /// `∇V(q_{k+1})` once for the last kick of step `k` and the first kick of step `k + 1`
    /// ("first same as last"), one force evaluation per step instead of two.
    ///
    /// All or nothing: on an error at any of the `n` steps, `state` is left exactly as it was
    /// before the call (step again one by one to find the failing step). `n = 0` leaves the
    /// state as it is (and still checks `h`).
    fn step_n(&self, state: &mut St, h: f64, n: usize) -> Result<(), GeomError>
    where
        St: Clone,
    {
        step_repeatedly(self, state, h, n)
    }
}

/// `n` calls of [`OneStep::step`] on a working copy of `state`, written back when all have
/// succeeded: the default [`OneStep::step_n`], and the fallback of the methods that override it
/// (for the cases where they share no work between steps).
pub fn step_repeatedly<St: Clone, M: OneStep<St> + ?Sized>(
    method: &M,
    state: &mut St,
    h: f64,
    n: usize,
) -> Result<(), GeomError> {
    check_step(h)?;
    let mut work = state.clone();
    for _ in 0..n {
        method.step(&mut work, h)?;
    }
    *state = work;
    Ok(())
}

impl<St, M: OneStep<St> + ?Sized> OneStep<St> for Box<M> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn order(&self) -> u32 {
        (**self).order()
    }
    fn is_symmetric(&self) -> bool {
        (**self).is_symmetric()
    }
    fn step(&self, state: &mut St, h: f64) -> Result<(), GeomError> {
        (**self).step(state, h)
    }
    fn step_n(&self, state: &mut St, h: f64, n: usize) -> Result<(), GeomError>
    where
        St: Clone,
    {
        (**self).step_n(state, h, n)
    }
}

impl<St, M: OneStep<St> + ?Sized> OneStep<St> for &M {
    fn name(&self) -> String {
        (**self).name()
    }
    fn order(&self) -> u32 {
        (**self).order()
    }
    fn is_symmetric(&self) -> bool {
        (**self).is_symmetric()
    }
    fn step(&self, state: &mut St, h: f64) -> Result<(), GeomError> {
        (**self).step(state, h)
    }
    fn step_n(&self, state: &mut St, h: f64, n: usize) -> Result<(), GeomError>
    where
        St: Clone,
    {
        (**self).step_n(state, h, n)
    }
}

impl<St, M: OneStep<St> + ?Sized> OneStep<St> for std::sync::Arc<M> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn order(&self) -> u32 {
        (**self).order()
    }
    fn is_symmetric(&self) -> bool {
        (**self).is_symmetric()
    }
    fn step(&self, state: &mut St, h: f64) -> Result<(), GeomError> {
        (**self).step(state, h)
    }
    fn step_n(&self, state: &mut St, h: f64, n: usize) -> Result<(), GeomError>
    where
        St: Clone,
    {
        (**self).step_n(state, h, n)
    }
}

/// `Ok(())` if `h` is finite and nonzero, else [`GeomError::InvalidStep`].
#[inline]
pub fn check_step(h: f64) -> Result<(), GeomError> {
    if h.is_finite() && h != 0.0 { Ok(()) } else { Err(GeomError::InvalidStep { h }) }
}
