//! The step driver: advance any one-step method ([`OneStep<St>`](OneStep)) for `n` steps or to a
//! final time, sample [`Observer`]s every `k` steps into preallocated buffers, optionally with
//! compensated (Kahan) summation of the updates, and run ensembles of independent initial
//! conditions in parallel with rayon.
//!
//! **Sampling.** A run of `n` steps samples at step `0` (the initial state), at every multiple of
//! `every`, and at the final step `n` (if it is not a multiple): `⌊n/every⌋ + 1` samples, plus one
//! if `every ∤ n`. The record buffers are allocated once, from that count, before the first step;
//! the loop allocates nothing (an observer's own closure aside). Time at step `k` is `k h` (not an
//! accumulated sum), except after a shortened last step of [`Driver::run_to`].
//!
//! **Compensated summation** (HLW = Hairer, Lubich & Wanner, *Geometric Numerical
//! Integration*, 2006, VIII.5, Algorithm 5.1; Kahan 1965). With the increment
//! `δ_k = Φ_h(y_k) − y_k` computed *directly* by the method ([`Increment`]), not as a difference of
//! states, the driver keeps the running round-off `e` of the sum `y_k = y_0 + Σ δ_j`:
//! ```text
//!   a = y_k;   e = e + δ_k;   y_{k+1} = a + e;   e = e + (a − y_{k+1})
//! ```
//! componentwise. The addition error of each update (`~ε|y|` per step, a random walk of size
//! `~ε|y|√n`) is carried in `e` and re-added, so what remains is the round-off of the increments
//! themselves (`~ε|δ| ≈ ε h |f|`): the error of the sum grows like `√n` at the scale of the
//! increments instead of the state.
//!
//! **Ensembles.** [`Driver::run_ensemble`] maps the same driver over a slice of initial
//! conditions with rayon's `par_iter` in the current thread pool; [`with_threads`] runs any job in
//! a pool with a given number of threads. Trajectories are independent and each is computed by
//! the serial code, so the results equal the serial results bit for bit, whatever the thread
//! count.
//!
//! **Resumable runs and checkpoints.** [`Driver::start`] (or [`Driver::start_compensated`])
//! begins a [`RunState`], which [`RunState::advance`] moves on in pieces, stopping between two
//! steps when an [`AtomicBool`] is set (read between chunks of at most [`STOP_POLL`] steps). [`RunState::checkpoint`] saves it as
//! a serde-serialisable [`DriverCheckpoint`] (the state, the compensated-summation carries and the
//! record as exact bit patterns, a format version, an FNV-1a checksum); [`RunState::restore`]
//! refuses a checkpoint that is of another version, corrupted or inconsistent. A run saved,
//! restored and continued ends bit for bit where an uninterrupted run of the same total ends.
//!
//! **One loop.** Every run — [`Driver::run`], [`RunState::advance`], and the workbench's runs
//! and sessions — is the function [`drive`]: a [`Propagator`] (a method with its state,
//! object-safe) advanced through a [`Plan`] (target, sampling interval, checkpoint [`Cadence`],
//! stop-flag polling) with the caller's [`Hooks`] (samples, progress, checkpoints).
//! [`Propagation`] and [`CompensatedPropagation`] are the propagators of a [`OneStep`] and of
//! compensated summation.
//!
//! **Errors.** Invalid inputs are [`GeomError`]s (wrapped in [`DriverError::Geom`]): `h` not
//! finite and positive is [`GeomError::InvalidStep`]; `steps = 0`, `every = 0`, a final time not
//! finite and positive, or a thread count of 0 is [`GeomError::InvalidParameter`]. A step that
//! fails is reported as [`DriverError::StepFailed`] with its index and time.

use geom_core::GeomError;
use geom_core::action::GroupAction;
use geom_core::function::{PhaseSpaceDerivatives, ScalarDerivatives};
use geom_core::step::{OneStep, PhaseState};
use nalgebra::SVector;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use thiserror::Error;

/// The increment `(Δq, Δp) = Φ_h(q, p) − (q, p)` of one step, computed directly by the method
/// (not as a difference of rounded states), for compensated summation (object-safe).
///
/// Implemented by every method of [`crate::classical`] and by
/// [`discretization::CotangentLiftIntegrator`]. Same contract as [`OneStep::step`]: `h` finite and
/// nonzero, errors for Newton failures and non-finite results.
pub trait Increment<const N: usize>: Send + Sync {
    /// `(Δq, Δp)`.
    fn increment(&self, state: &PhaseState<N>, h: f64) -> Result<(SVector<f64, N>, SVector<f64, N>), GeomError>;
}

impl<M: Increment<N> + ?Sized, const N: usize> Increment<N> for &M {
    fn increment(&self, state: &PhaseState<N>, h: f64) -> Result<(SVector<f64, N>, SVector<f64, N>), GeomError> {
        (**self).increment(state, h)
    }
}

impl<M: Increment<N> + ?Sized, const N: usize> Increment<N> for Box<M> {
    fn increment(&self, state: &PhaseState<N>, h: f64) -> Result<(SVector<f64, N>, SVector<f64, N>), GeomError> {
        (**self).increment(state, h)
    }
}

mod checkpoint;
mod envelope;
mod observers;
mod pool;
mod propagate;
mod record;
mod resume;
mod run;
mod segments;

pub use checkpoint::*;
pub use envelope::*;
pub use observers::*;
pub use pool::*;
pub use propagate::*;
pub use record::*;
pub use resume::*;
pub use run::*;
pub use segments::*;
