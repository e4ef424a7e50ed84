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
//! steps when an [`AtomicBool`] is set (read once per step). [`RunState::checkpoint`] saves it as
//! a serde-serialisable [`DriverCheckpoint`] (the state, the compensated-summation carries and the
//! record as exact bit patterns, a format version, an FNV-1a checksum); [`RunState::restore`]
//! refuses a checkpoint that is of another version, corrupted or inconsistent. A run saved,
//! restored and continued ends bit for bit where an uninterrupted run of the same total ends.
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

// ------------------------------------------------------------------------------------------------
// Observers

/// A scalar quantity sampled along a trajectory (object-safe: `&dyn Observer<St>`): energy,
/// a component of a momentum map, a Casimir, a constraint residual, any user function.
pub trait Observer<St>: Send + Sync {
    /// Name in the [`Record`], e.g. `"energy"`.
    fn name(&self) -> String;
    /// The value at `state`.
    fn observe(&self, state: &St) -> f64;
}

/// An observer from a closure `f(&St) -> f64`.
///
/// ```
/// use integrators::driver::{FnObserver, Observer};
/// use integrators::PhaseState;
/// use nalgebra::Vector1;
///
/// let q0 = FnObserver::new("q0", |s: &PhaseState<1>| s.q[0]);
/// assert_eq!(q0.observe(&PhaseState::new(Vector1::new(2.0), Vector1::new(0.0))), 2.0);
/// assert_eq!(q0.name(), "q0");
/// ```
#[derive(Debug, Clone)]
pub struct FnObserver<F> {
    name: String,
    f: F,
}

impl<F> FnObserver<F> {
    /// The observer `name`: `state ↦ f(state)`.
    pub fn new(name: impl Into<String>, f: F) -> Self {
        Self { name: name.into(), f }
    }
}

impl<St, F: Fn(&St) -> f64 + Send + Sync> Observer<St> for FnObserver<F> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn observe(&self, state: &St) -> f64 {
        (self.f)(state)
    }
}

/// The energy `H(q, p)` of a Hamiltonian ([`PhaseSpaceDerivatives`]; for a separable one, e.g.
/// [`geom_core::function::Separable`], `T(p) + V(q)`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Energy<H>(pub H);

impl<H: PhaseSpaceDerivatives<N>, const N: usize> Observer<PhaseState<N>> for Energy<H> {
    fn name(&self) -> String {
        "energy".into()
    }
    fn observe(&self, s: &PhaseState<N>) -> f64 {
        self.0.value(&s.q, &s.p)
    }
}

/// One component `J_ξ(q, p) = <J(q, p), ξ> = <p, ξ_Q(q)>` of the momentum map of a group action
/// on `Q = R^N` (docs/math.md §A.6; [`GroupAction::momentum_map`]), e.g. the angular momentum for
/// [`geom_core::action::RotationAction`] and `ξ = e_3`.
#[derive(Debug, Clone)]
pub struct MomentumMap<A, const D: usize> {
    action: A,
    xi: SVector<f64, D>,
    name: String,
}

impl<A, const D: usize> MomentumMap<A, D> {
    /// `J_ξ` for `action`, recorded as `name`.
    pub fn new(name: impl Into<String>, action: A, xi: SVector<f64, D>) -> Self {
        Self { action, xi, name: name.into() }
    }
}

impl<A, const D: usize, const N: usize> Observer<PhaseState<N>> for MomentumMap<A, D>
where
    A: GroupAction<f64, D, Point = SVector<f64, N>, Covector = SVector<f64, N>>,
{
    fn name(&self) -> String {
        self.name.clone()
    }
    fn observe(&self, s: &PhaseState<N>) -> f64 {
        self.action.momentum_map(&s.q, &s.p).dot(&self.xi)
    }
}

/// `J_ξ` on `T*G` in left trivialization, for the states `(g, μ)` of every Lie-group integrator
/// ([`geom_core::step::LieState`]): with [`geom_core::action::LeftMultiplication`] the spatial
/// momentum `<Ad*_{g^{-1}} μ, ξ>`, with [`geom_core::action::RightMultiplication`] `-<μ, ξ>`.
impl<A, E, const D: usize> Observer<geom_core::step::LieState<E, D>> for MomentumMap<A, D>
where
    A: GroupAction<f64, D, Point = E, Covector = SVector<f64, D>>,
    E: Send + Sync,
{
    fn name(&self) -> String {
        self.name.clone()
    }
    fn observe(&self, s: &geom_core::step::LieState<E, D>) -> f64 {
        self.action.momentum_map(&s.g, &s.mu).dot(&self.xi)
    }
}

/// The constraint residual `|φ(q)|` of a holonomic constraint `φ: R^N -> R`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConstraintResidual<C>(pub C);

impl<C: ScalarDerivatives<N>, const N: usize> Observer<PhaseState<N>> for ConstraintResidual<C> {
    fn name(&self) -> String {
        "constraint residual".into()
    }
    fn observe(&self, s: &PhaseState<N>) -> f64 {
        self.0.value(&s.q).abs()
    }
}

/// A Casimir (or any scalar function) `C(y)` of a state `y ∈ R^N`, e.g. `|Π|²` of the rigid body
/// integrated as an ODE on `R^3`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Casimir<C>(pub C);

impl<C: ScalarDerivatives<N>, const N: usize> Observer<SVector<f64, N>> for Casimir<C> {
    fn name(&self) -> String {
        "casimir".into()
    }
    fn observe(&self, y: &SVector<f64, N>) -> f64 {
        self.0.value(y)
    }
}

// ------------------------------------------------------------------------------------------------
// Results

/// The sampled observer values of a run: sample `k` was taken after `steps()[k]` steps at time
/// `times()[k]`; `series(i)[k]` is observer `i` there.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    names: Vec<String>,
    steps: Vec<usize>,
    times: Vec<f64>,
    series: Vec<Vec<f64>>,
}

impl Record {
    /// Room for `samples` samples, or [`GeomError::InvalidParameter`] if they cannot be
    /// allocated (a step count whose record does not fit in memory is an input error, not an
    /// abort).
    fn try_with_capacity(names: Vec<String>, samples: usize) -> Result<Self, GeomError> {
        let mut record =
            Self { series: names.iter().map(|_| Vec::new()).collect(), names, steps: Vec::new(), times: Vec::new() };
        let mut ok = record.steps.try_reserve_exact(samples).is_ok() && record.times.try_reserve_exact(samples).is_ok();
        for series in &mut record.series {
            ok = ok && series.try_reserve_exact(samples).is_ok();
        }
        if ok { Ok(record) } else { Err(too_many_samples(samples)) }
    }
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.steps.len()
    }
    /// Whether nothing was sampled.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
    /// Observer names, in the order they were given.
    pub fn names(&self) -> &[String] {
        &self.names
    }
    /// Step index of each sample.
    pub fn steps(&self) -> &[usize] {
        &self.steps
    }
    /// Time of each sample.
    pub fn times(&self) -> &[f64] {
        &self.times
    }
    /// The samples of observer `i` (panics if `i` is out of range, like slice indexing).
    pub fn series(&self, i: usize) -> &[f64] {
        &self.series[i]
    }
    /// Index of the observer called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
    /// The samples of the observer called `name`.
    pub fn series_named(&self, name: &str) -> Option<&[f64]> {
        self.index_of(name).map(|i| self.series(i))
    }
    /// `max_k |obs_k − obs_0|` of observer `i` (0 for an empty record).
    pub fn max_deviation(&self, i: usize) -> f64 {
        let s = self.series(i);
        s.first().map_or(0.0, |&v0| s.iter().fold(0.0f64, |m, &v| m.max((v - v0).abs())))
    }
    /// `max_k |obs_k − obs_0| / |obs_0|` of observer `i` (the absolute deviation if `obs_0 = 0`).
    pub fn max_relative_deviation(&self, i: usize) -> f64 {
        let v0 = self.series(i).first().map_or(0.0, |v| v.abs());
        let d = self.max_deviation(i);
        if v0 > 0.0 { d / v0 } else { d }
    }
    /// [`max_deviation`](Self::max_deviation) of the observer called `name`.
    pub fn max_deviation_named(&self, name: &str) -> Option<f64> {
        self.index_of(name).map(|i| self.max_deviation(i))
    }
}

/// The result of a run: the final state, the number of steps and the final time, the observer
/// [`Record`], and the sampled states if [`Driver::store_states`] was set (else empty).
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory<St> {
    /// State after the last step.
    pub final_state: St,
    /// Steps taken.
    pub steps: usize,
    /// Final time.
    pub time: f64,
    /// Observer samples.
    pub record: Record,
    /// The state at every sample (empty unless [`Driver::store_states`]).
    pub states: Vec<St>,
}

impl<St> Trajectory<St> {
    /// `max_k |obs_k − obs_0|` of the observer called `name`.
    pub fn max_deviation(&self, name: &str) -> Option<f64> {
        self.record.max_deviation_named(name)
    }
}

/// What can go wrong in a run.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Error)]
pub enum DriverError {
    /// Invalid input (step size, step count, sampling interval, final time, thread count).
    #[error(transparent)]
    Geom(#[from] GeomError),
    /// Step `step` (from time `time`) failed; the run stops there.
    #[error("step {step} from t = {time} failed: {source}")]
    StepFailed {
        /// 1-based index of the failed step.
        step: usize,
        /// Time at the start of the failed step.
        time: f64,
        /// The method's error.
        source: GeomError,
    },
    /// A [`DriverCheckpoint`] that cannot be restored: another format version, a checksum that
    /// does not match its content, or content inconsistent with itself or with the state type.
    #[error("checkpoint refused: {0}")]
    Checkpoint(String),
}

/// The error for a record of `samples` samples that cannot be allocated.
fn too_many_samples(samples: usize) -> GeomError {
    GeomError::InvalidParameter {
        what: "steps",
        reason: format!("{samples} samples do not fit in memory: sample less often (every) or run fewer steps"),
    }
}

// ------------------------------------------------------------------------------------------------
// Driver

/// Runs one-step methods with a fixed step `h`, sampling observers every `every` steps.
///
/// ```
/// use discretization::{CotangentLiftIntegrator, ThetaMap};
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use integrators::driver::{Driver, Energy, Observer};
/// use integrators::PhaseState;
/// use nalgebra::SVector;
///
/// struct Oscillator;
/// impl PhaseSpaceFunction<1> for Oscillator {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
///         (q[0] * q[0] + p[0] * p[0]) * S::from(0.5)
///     }
/// }
/// let midpoint = CotangentLiftIntegrator::new(ThetaMap::midpoint(), AutoDiff(Oscillator));
/// let energy = Energy(AutoDiff(Oscillator));
/// let driver = Driver::new(0.1)?.sample_every(10)?;
/// let start = PhaseState::new(SVector::from([1.0]), SVector::from([0.0]));
/// let run = driver.run(&midpoint, start, 100, &[&energy as &dyn Observer<_>])?;
/// assert_eq!(run.record.len(), 11);
/// assert!(run.max_deviation("energy").unwrap() < 1e-14);
/// assert!(Driver::new(0.0).is_err() && Driver::new(-0.1).is_err() && Driver::new(f64::NAN).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Driver {
    h: f64,
    every: usize,
    store_states: bool,
}

/// `steps` steps of `h`, the last one of `last` (`= h` unless shortened), ending at `t_end`.
#[derive(Debug, Clone, Copy)]
struct Schedule {
    steps: usize,
    h: f64,
    last: f64,
    t_end: f64,
}

impl Driver {
    /// A driver with step `h` sampling every step; [`GeomError::InvalidStep`] unless `h` is finite
    /// and positive.
    pub fn new(h: f64) -> Result<Self, GeomError> {
        if h.is_finite() && h > 0.0 {
            Ok(Self { h, every: 1, store_states: false })
        } else {
            Err(GeomError::InvalidStep { h })
        }
    }
    /// Sample every `every` steps; [`GeomError::InvalidParameter`] for `every = 0`.
    pub fn sample_every(self, every: usize) -> Result<Self, GeomError> {
        if every == 0 {
            return Err(GeomError::InvalidParameter { what: "every", reason: "must be at least 1".into() });
        }
        Ok(Self { every, ..self })
    }
    /// Also store the state at every sample in [`Trajectory::states`].
    pub fn store_states(self, store: bool) -> Self {
        Self { store_states: store, ..self }
    }
    /// The step size.
    pub fn step_size(&self) -> f64 {
        self.h
    }
    /// The sampling interval.
    pub fn every(&self) -> usize {
        self.every
    }
    /// Number of samples of a run of `steps` steps (module documentation).
    pub fn samples(&self, steps: usize) -> usize {
        (steps / self.every).saturating_add(1 + usize::from(!steps.is_multiple_of(self.every)))
    }

    fn fixed(&self, steps: usize) -> Result<Schedule, GeomError> {
        if steps == 0 {
            return Err(GeomError::InvalidParameter { what: "steps", reason: "must be at least 1".into() });
        }
        Ok(Schedule { steps, h: self.h, last: self.h, t_end: steps as f64 * self.h })
    }

    /// `t_final / h` steps if that is an integer to `1e-10` relative (then every step is exactly
    /// `h` and the final time is `n h`), else `⌈t_final / h⌉` steps, the last one shortened to
    /// `t_final − (n − 1) h`.
    fn until(&self, t_final: f64) -> Result<Schedule, GeomError> {
        if !(t_final.is_finite() && t_final > 0.0) {
            return Err(GeomError::InvalidParameter {
                what: "t_final",
                reason: format!("must be finite and positive, got {t_final}"),
            });
        }
        let r = t_final / self.h;
        if r > 1e15 {
            return Err(GeomError::InvalidParameter { what: "t_final", reason: format!("{r:e} steps of h") });
        }
        let n = r.round();
        if n >= 1.0 && (r - n).abs() <= 1e-10 * n {
            return self.fixed(n as usize);
        }
        let n = r.ceil().max(1.0) as usize;
        let last = t_final - (n - 1) as f64 * self.h;
        Ok(Schedule { steps: n, h: self.h, last, t_end: t_final })
    }

    /// The loop shared by every mode: `advance(state, h_k)` performs one step.
    fn drive<St: Clone>(
        &self,
        initial: St,
        schedule: Schedule,
        observers: &[&dyn Observer<St>],
        mut advance: impl FnMut(&mut St, f64) -> Result<(), GeomError>,
    ) -> Result<Trajectory<St>, DriverError> {
        let samples = self.samples(schedule.steps);
        let mut record = Record::try_with_capacity(observers.iter().map(|o| o.name()).collect(), samples)?;
        let mut states = Vec::new();
        if self.store_states && states.try_reserve_exact(samples).is_err() {
            return Err(too_many_samples(samples).into());
        }
        let mut state = initial;
        let sample = |state: &St, step: usize, time: f64, record: &mut Record, states: &mut Vec<St>| {
            record.steps.push(step);
            record.times.push(time);
            for (series, o) in record.series.iter_mut().zip(observers) {
                series.push(o.observe(state));
            }
            if self.store_states {
                states.push(state.clone());
            }
        };
        sample(&state, 0, 0.0, &mut record, &mut states);
        for k in 1..=schedule.steps {
            let last = k == schedule.steps;
            let hk = if last { schedule.last } else { schedule.h };
            advance(&mut state, hk).map_err(|source| DriverError::StepFailed {
                step: k,
                time: (k - 1) as f64 * schedule.h,
                source,
            })?;
            if last || k.is_multiple_of(self.every) {
                let t = if last { schedule.t_end } else { k as f64 * schedule.h };
                sample(&state, k, t, &mut record, &mut states);
            }
        }
        debug_assert_eq!(record.len(), samples);
        Ok(Trajectory { final_state: state, steps: schedule.steps, time: schedule.t_end, record, states })
    }

    /// Advance `initial` by `steps` steps of `method`, sampling `observers`.
    pub fn run<St: Clone, M: OneStep<St> + ?Sized>(
        &self,
        method: &M,
        initial: St,
        steps: usize,
        observers: &[&dyn Observer<St>],
    ) -> Result<Trajectory<St>, DriverError> {
        let schedule = self.fixed(steps)?;
        self.drive(initial, schedule, observers, |s, h| method.step(s, h))
    }

    /// Advance `initial` to the time `t_final` (see the module documentation for the last step).
    pub fn run_to<St: Clone, M: OneStep<St> + ?Sized>(
        &self,
        method: &M,
        initial: St,
        t_final: f64,
        observers: &[&dyn Observer<St>],
    ) -> Result<Trajectory<St>, DriverError> {
        let schedule = self.until(t_final)?;
        self.drive(initial, schedule, observers, |s, h| method.step(s, h))
    }

    /// [`run`](Self::run) with compensated summation of the increments (module documentation).
    pub fn run_compensated<const N: usize, M: Increment<N> + ?Sized>(
        &self,
        method: &M,
        initial: PhaseState<N>,
        steps: usize,
        observers: &[&dyn Observer<PhaseState<N>>],
    ) -> Result<Trajectory<PhaseState<N>>, DriverError> {
        let schedule = self.fixed(steps)?;
        self.drive_compensated(method, initial, schedule, observers)
    }

    /// [`run_to`](Self::run_to) with compensated summation.
    pub fn run_compensated_to<const N: usize, M: Increment<N> + ?Sized>(
        &self,
        method: &M,
        initial: PhaseState<N>,
        t_final: f64,
        observers: &[&dyn Observer<PhaseState<N>>],
    ) -> Result<Trajectory<PhaseState<N>>, DriverError> {
        let schedule = self.until(t_final)?;
        self.drive_compensated(method, initial, schedule, observers)
    }

    fn drive_compensated<const N: usize, M: Increment<N> + ?Sized>(
        &self,
        method: &M,
        initial: PhaseState<N>,
        schedule: Schedule,
        observers: &[&dyn Observer<PhaseState<N>>],
    ) -> Result<Trajectory<PhaseState<N>>, DriverError> {
        let mut eq = SVector::<f64, N>::zeros();
        let mut ep = SVector::<f64, N>::zeros();
        self.drive(initial, schedule, observers, |s, h| compensated_step(method, s, h, &mut eq, &mut ep))
    }

    /// [`run`](Self::run) for every initial condition, in parallel (rayon, current pool); one
    /// result per initial condition, in order, each equal to the serial run.
    pub fn run_ensemble<St: Clone + Send + Sync, M: OneStep<St> + ?Sized>(
        &self,
        method: &M,
        initials: &[St],
        steps: usize,
        observers: &[&dyn Observer<St>],
    ) -> Vec<Result<Trajectory<St>, DriverError>> {
        initials.par_iter().map(|s| self.run(method, s.clone(), steps, observers)).collect()
    }

    /// [`run_compensated`](Self::run_compensated) for every initial condition, in parallel.
    pub fn run_ensemble_compensated<const N: usize, M: Increment<N> + ?Sized>(
        &self,
        method: &M,
        initials: &[PhaseState<N>],
        steps: usize,
        observers: &[&dyn Observer<PhaseState<N>>],
    ) -> Vec<Result<Trajectory<PhaseState<N>>, DriverError>> {
        initials.par_iter().map(|s| self.run_compensated(method, *s, steps, observers)).collect()
    }
}

/// One compensated step: `s ← s + δ` with the carries `(eq, ep)` (HLW Algorithm VIII.5.1); on
/// error neither the state nor the carries change.
#[inline]
fn compensated_step<const N: usize, M: Increment<N> + ?Sized>(
    method: &M,
    s: &mut PhaseState<N>,
    h: f64,
    eq: &mut SVector<f64, N>,
    ep: &mut SVector<f64, N>,
) -> Result<(), GeomError> {
    let (dq, dp) = method.increment(s, h)?;
    let (q, nq) = kahan(&s.q, eq, &dq);
    let (p, np) = kahan(&s.p, ep, &dp);
    let next = PhaseState::new(q, p);
    if !next.is_finite() || !nq.iter().chain(np.iter()).all(|v| v.is_finite()) {
        return Err(GeomError::NonFinite { what: "state after compensated step" });
    }
    (*s, *eq, *ep) = (next, nq, np);
    Ok(())
}

/// One compensated addition per component: returns `(y + δ, e')` (HLW Algorithm VIII.5.1).
#[inline]
fn kahan<const N: usize>(
    y: &SVector<f64, N>,
    e: &SVector<f64, N>,
    d: &SVector<f64, N>,
) -> (SVector<f64, N>, SVector<f64, N>) {
    let mut out = *y;
    let mut err = *e;
    for i in 0..N {
        let a = y[i];
        let ei = e[i] + d[i];
        let yi = a + ei;
        err[i] = ei + (a - yi);
        out[i] = yi;
    }
    (out, err)
}

/// Run `job` in a rayon thread pool of `threads` threads (e.g. an ensemble on 1 vs 2 cores);
/// [`GeomError::InvalidParameter`] for `threads = 0` or if the pool cannot be built.
///
/// ```
/// let sum = integrators::driver::with_threads(2, || rayon::current_num_threads())?;
/// assert_eq!(sum, 2);
/// assert!(integrators::driver::with_threads(0, || ()).is_err());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn with_threads<R: Send>(threads: usize, job: impl FnOnce() -> R + Send) -> Result<R, GeomError> {
    if threads == 0 {
        return Err(GeomError::InvalidParameter { what: "threads", reason: "must be at least 1".into() });
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| GeomError::InvalidParameter { what: "threads", reason: e.to_string() })?;
    Ok(pool.install(job))
}

// ------------------------------------------------------------------------------------------------
// Resumable runs and checkpoints

pub use geom_core::step::FlatState;

/// How a call of [`RunState::advance`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advanced {
    /// The run reached the requested number of steps.
    Reached,
    /// The stop flag was set; the run stopped after a whole step, before the requested count.
    Stopped,
}

/// A run that can be advanced in pieces, stopped between two steps (an [`AtomicBool`] read once
/// per step), saved as a [`DriverCheckpoint`] and continued, with a result equal bit for bit to
/// one uninterrupted [`Driver::run`] (or [`Driver::run_compensated`], carries included) of the
/// total number of steps: the same final state, and the same [`Record`] after
/// [`finish`](Self::finish).
///
/// It holds the samples at step 0 and at every multiple of `every` reached so far; the sample of
/// a last step off that grid is added by [`finish`](Self::finish) only, so that a run continued
/// past it does not keep it. Fixed steps only (no shortened last step, as [`Driver::run_to`]
/// may take).
///
/// ```
/// use integrators::classical::StormerVerlet;
/// use integrators::driver::{Driver, DriverCheckpoint, Energy, Observer, RunState};
/// use integrators::PhaseState;
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use nalgebra::SVector;
///
/// struct Oscillator;
/// impl PhaseSpaceFunction<1> for Oscillator {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
///         (q[0] * q[0] + p[0] * p[0]) * S::from(0.5)
///     }
/// }
/// let sv = StormerVerlet::new(AutoDiff(Oscillator));
/// let energy = Energy(AutoDiff(Oscillator));
/// let observers = [&energy as &dyn Observer<_>];
/// let driver = Driver::new(0.1)?.sample_every(7)?;
/// let start = PhaseState::new(SVector::from([1.0]), SVector::from([0.0]));
///
/// let mut first = driver.start(start, &observers);
/// first.advance(&sv, 40, &observers, None)?;
/// let saved: DriverCheckpoint = first.checkpoint();
/// let mut second = RunState::<PhaseState<1>>::restore(&saved)?;
/// second.advance(&sv, 100, &observers, None)?;
/// assert_eq!(second.finish(&observers), driver.run(&sv, start, 100, &observers)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct RunState<St> {
    driver: Driver,
    step: usize,
    state: St,
    /// The compensated-summation carries `(e_q, e_p)`, `None` for a plain run.
    carry: Option<Vec<f64>>,
    record: Record,
    states: Vec<St>,
}

impl Driver {
    /// A resumable run from `initial` (sampled as step 0); continue it with
    /// [`RunState::advance`].
    pub fn start<St: Clone>(&self, initial: St, observers: &[&dyn Observer<St>]) -> RunState<St> {
        let names: Vec<String> = observers.iter().map(|o| o.name()).collect();
        let record =
            Record { series: names.iter().map(|_| Vec::new()).collect(), names, steps: Vec::new(), times: Vec::new() };
        let mut run = RunState { driver: *self, step: 0, state: initial, carry: None, record, states: Vec::new() };
        run.sample(observers);
        run
    }

    /// A resumable run with compensated summation (zero carries); continue it with
    /// [`RunState::advance_compensated`].
    pub fn start_compensated<const N: usize>(
        &self,
        initial: PhaseState<N>,
        observers: &[&dyn Observer<PhaseState<N>>],
    ) -> RunState<PhaseState<N>> {
        let mut run = self.start(initial, observers);
        run.carry = Some(vec![0.0; 2 * N]);
        run
    }
}

impl<St: Clone> RunState<St> {
    /// The driver (step, sampling) of the run.
    pub fn driver(&self) -> &Driver {
        &self.driver
    }
    /// Steps taken.
    pub fn step(&self) -> usize {
        self.step
    }
    /// The time `step · h`.
    pub fn time(&self) -> f64 {
        self.step as f64 * self.driver.h
    }
    /// The current state.
    pub fn state(&self) -> &St {
        &self.state
    }
    /// The samples so far (step 0 and every multiple of `every` reached).
    pub fn record(&self) -> &Record {
        &self.record
    }
    /// Whether the run sums its increments with compensation.
    pub fn is_compensated(&self) -> bool {
        self.carry.is_some()
    }
    /// The compensated-summation carries `(e_q, e_p)` concatenated (`None` for a plain run).
    pub fn carries(&self) -> Option<&[f64]> {
        self.carry.as_deref()
    }

    fn sample(&mut self, observers: &[&dyn Observer<St>]) {
        self.record.steps.push(self.step);
        self.record.times.push(self.time());
        for (series, o) in self.record.series.iter_mut().zip(observers) {
            series.push(o.observe(&self.state));
        }
        if self.driver.store_states {
            self.states.push(self.state.clone());
        }
    }

    /// The observers must be those the run started with (same names, same order).
    fn check_observers(&self, observers: &[&dyn Observer<St>]) -> Result<(), GeomError> {
        let same = observers.len() == self.record.names.len()
            && observers.iter().zip(&self.record.names).all(|(o, n)| o.name() == *n);
        if same {
            Ok(())
        } else {
            Err(GeomError::InvalidParameter {
                what: "observers",
                reason: format!("the run samples {:?}; pass the same observers in the same order", self.record.names),
            })
        }
    }

    /// The loop of [`advance`](Self::advance) and [`advance_compensated`](Self::advance_compensated).
    fn drive_to(
        &mut self,
        steps: usize,
        observers: &[&dyn Observer<St>],
        stop: Option<&AtomicBool>,
        mut advance: impl FnMut(&mut St, f64) -> Result<(), GeomError>,
    ) -> Result<Advanced, DriverError> {
        self.check_observers(observers)?;
        if steps < self.step {
            return Err(GeomError::InvalidParameter {
                what: "steps",
                reason: format!("the run is already at step {}; ask for {} or more", self.step, self.step),
            }
            .into());
        }
        let every = self.driver.every;
        let more = steps / every - self.step / every;
        let mut ok = self.record.steps.try_reserve(more).is_ok() && self.record.times.try_reserve(more).is_ok();
        for series in &mut self.record.series {
            ok = ok && series.try_reserve(more).is_ok();
        }
        if self.driver.store_states {
            ok = ok && self.states.try_reserve(more).is_ok();
        }
        if !ok {
            return Err(too_many_samples(self.record.len().saturating_add(more)).into());
        }
        let h = self.driver.h;
        while self.step < steps {
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return Ok(Advanced::Stopped);
            }
            let k = self.step + 1;
            advance(&mut self.state, h).map_err(|source| DriverError::StepFailed {
                step: k,
                time: (k - 1) as f64 * h,
                source,
            })?;
            self.step = k;
            if k.is_multiple_of(every) {
                self.sample(observers);
            }
        }
        Ok(Advanced::Reached)
    }

    /// Takes steps of `method` until `steps` steps in total are done, or until `stop` is set
    /// (read before each step). A failed step ([`DriverError::StepFailed`]) leaves the run at the
    /// last good step, where it can still be saved or finished. [`GeomError::InvalidParameter`]
    /// for a compensated run (continue it with [`advance_compensated`](Self::advance_compensated)),
    /// for `steps` below the steps already taken, or for other observers than the run's.
    pub fn advance<M: OneStep<St> + ?Sized>(
        &mut self,
        method: &M,
        steps: usize,
        observers: &[&dyn Observer<St>],
        stop: Option<&AtomicBool>,
    ) -> Result<Advanced, DriverError> {
        if self.carry.is_some() {
            return Err(GeomError::InvalidParameter {
                what: "run",
                reason: "a compensated run continues with advance_compensated".into(),
            }
            .into());
        }
        self.drive_to(steps, observers, stop, |s, h| method.step(s, h))
    }

    /// The [`Trajectory`] of the run so far: its record with the current step sampled too (if it
    /// is not a multiple of `every`), as [`Driver::run`] samples its last step.
    pub fn finish(mut self, observers: &[&dyn Observer<St>]) -> Trajectory<St> {
        if self.record.steps.last() != Some(&self.step) {
            self.sample(observers);
        }
        let time = self.time();
        Trajectory { final_state: self.state, steps: self.step, time, record: self.record, states: self.states }
    }
}

impl<const N: usize> RunState<PhaseState<N>> {
    /// [`advance`](Self::advance) with compensated summation of the increments, the carries
    /// continued from where the run stopped; [`GeomError::InvalidParameter`] for a plain run.
    pub fn advance_compensated<M: Increment<N> + ?Sized>(
        &mut self,
        method: &M,
        steps: usize,
        observers: &[&dyn Observer<PhaseState<N>>],
        stop: Option<&AtomicBool>,
    ) -> Result<Advanced, DriverError> {
        let carry = match self.carry.take() {
            Some(c) if c.len() == 2 * N => c,
            other => {
                self.carry = other;
                return Err(GeomError::InvalidParameter {
                    what: "run",
                    reason: format!("not a compensated run of {} words of carries", 2 * N),
                }
                .into());
            }
        };
        let mut eq = SVector::<f64, N>::from_column_slice(&carry[..N]);
        let mut ep = SVector::<f64, N>::from_column_slice(&carry[N..]);
        let result = self.drive_to(steps, observers, stop, |s, h| compensated_step(method, s, h, &mut eq, &mut ep));
        self.carry = Some(eq.iter().chain(ep.iter()).copied().collect());
        result
    }
}

/// The format version of [`DriverCheckpoint`]; a checkpoint of another version is refused.
pub const CHECKPOINT_FORMAT: u32 = 1;

/// The streaming 64-bit FNV-1a hash (Fowler–Noll–Vo): the checksum of checkpoints. Any change of
/// a single byte changes it (each step, `h ← (h ⊕ b) · p` with an odd `p`, is a bijection of
/// `h`).
///
/// ```
/// use integrators::driver::Fnv1a;
/// let mut h = Fnv1a::new();
/// h.write(b"foo");
/// h.write(b"bar");
/// assert_eq!(h.finish(), 0x85944171f73967e8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fnv1a(u64);

impl Fnv1a {
    /// The hash of no bytes.
    pub const fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
    /// Hashes `bytes` after those written so far.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    /// The hash of everything written.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv1a {
    fn default() -> Self {
        Self::new()
    }
}

/// An `f64` kept as its bit pattern, serialised as 16 lowercase hex digits (exact for every value,
/// NaN payloads and `-0.0` included, in any serde format). Used by the driver's checkpoints and
/// by the workbench's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word(pub u64);

impl Word {
    /// The word of `v`.
    pub fn of(v: f64) -> Self {
        Self(v.to_bits())
    }
    /// The value.
    pub fn get(self) -> f64 {
        f64::from_bits(self.0)
    }
}

impl serde::Serialize for Word {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:016x}", self.0))
    }
}

impl<'de> serde::Deserialize<'de> for Word {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text.len() != 16 || !text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(serde::de::Error::custom(format!("'{text}' is not 16 lowercase hex digits")));
        }
        u64::from_str_radix(&text, 16).map(Word).map_err(serde::de::Error::custom)
    }
}

fn words(v: &[f64]) -> Vec<Word> {
    v.iter().map(|x| Word(x.to_bits())).collect()
}

fn floats(v: &[Word]) -> Vec<f64> {
    v.iter().map(|w| f64::from_bits(w.0)).collect()
}

/// A [`RunState`] saved: everything the next step and the record depend on — the step `h` and
/// sampling, the step count, the state and the compensated-summation carries as exact bit
/// patterns, the samples so far — with a format version and an FNV-1a checksum of the content.
/// Serialisable with serde (`f64`s as 16 hex digits of their bits); [`RunState::restore`] refuses
/// one of another version, one whose checksum does not match, or one inconsistent with itself or
/// with the state type.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverCheckpoint {
    format: u32,
    h: Word,
    every: usize,
    store_states: bool,
    step: usize,
    state: Vec<Word>,
    carry: Option<Vec<Word>>,
    observers: Vec<String>,
    sample_steps: Vec<usize>,
    sample_times: Vec<Word>,
    series: Vec<Vec<Word>>,
    states: Vec<Vec<Word>>,
    checksum: String,
}

impl DriverCheckpoint {
    /// The format version it was written with.
    pub fn format(&self) -> u32 {
        self.format
    }
    /// The steps taken when it was saved.
    pub fn step(&self) -> usize {
        self.step
    }
    /// The FNV-1a hash of the content (every field but the checksum, in a fixed order).
    fn digest(&self) -> u64 {
        let mut h = Fnv1a::new();
        let num = |h: &mut Fnv1a, v: u64| h.write(&v.to_le_bytes());
        let list = |h: &mut Fnv1a, v: &[Word]| {
            h.write(&(v.len() as u64).to_le_bytes());
            for w in v {
                h.write(&w.0.to_le_bytes());
            }
        };
        num(&mut h, u64::from(self.format));
        num(&mut h, self.h.0);
        num(&mut h, self.every as u64);
        num(&mut h, u64::from(self.store_states));
        num(&mut h, self.step as u64);
        list(&mut h, &self.state);
        match &self.carry {
            None => num(&mut h, 0),
            Some(c) => {
                num(&mut h, 1);
                list(&mut h, c);
            }
        }
        num(&mut h, self.observers.len() as u64);
        for name in &self.observers {
            num(&mut h, name.len() as u64);
            h.write(name.as_bytes());
        }
        num(&mut h, self.sample_steps.len() as u64);
        for &k in &self.sample_steps {
            num(&mut h, k as u64);
        }
        list(&mut h, &self.sample_times);
        num(&mut h, self.series.len() as u64);
        for s in &self.series {
            list(&mut h, s);
        }
        num(&mut h, self.states.len() as u64);
        for s in &self.states {
            list(&mut h, s);
        }
        h.finish()
    }
}

fn refused(reason: impl Into<String>) -> DriverError {
    DriverError::Checkpoint(reason.into())
}

impl<St: Clone + FlatState> RunState<St> {
    /// The run saved (see [`DriverCheckpoint`]).
    pub fn checkpoint(&self) -> DriverCheckpoint {
        let flat = |s: &St| {
            let mut v = Vec::with_capacity(St::WORDS);
            s.write_words(&mut v);
            words(&v)
        };
        let mut cp = DriverCheckpoint {
            format: CHECKPOINT_FORMAT,
            h: Word(self.driver.h.to_bits()),
            every: self.driver.every,
            store_states: self.driver.store_states,
            step: self.step,
            state: flat(&self.state),
            carry: self.carry.as_deref().map(words),
            observers: self.record.names.clone(),
            sample_steps: self.record.steps.clone(),
            sample_times: words(&self.record.times),
            series: self.record.series.iter().map(|s| words(s)).collect(),
            states: self.states.iter().map(flat).collect(),
            checksum: String::new(),
        };
        cp.checksum = format!("{:016x}", cp.digest());
        cp
    }

    /// The run saved in `cp`, to be continued with the same method and observers.
    /// [`DriverError::Checkpoint`] for another format version, a checksum that does not match,
    /// a state or carries of the wrong length, or samples that are not those of the run's
    /// sampling grid up to its step.
    pub fn restore(cp: &DriverCheckpoint) -> Result<Self, DriverError> {
        if cp.format != CHECKPOINT_FORMAT {
            return Err(refused(format!("format version {}, this is version {CHECKPOINT_FORMAT}", cp.format)));
        }
        let digest = format!("{:016x}", cp.digest());
        if cp.checksum != digest {
            return Err(refused(format!("checksum {} does not match the content ({digest})", cp.checksum)));
        }
        let driver = Driver::new(f64::from_bits(cp.h.0))
            .and_then(|d| d.sample_every(cp.every))
            .map_err(|e| refused(e.to_string()))?
            .store_states(cp.store_states);
        let unflat = |w: &[Word]| {
            St::read_words(&floats(w))
                .ok_or_else(|| refused(format!("a state of {} words, expected {}", w.len(), St::WORDS)))
        };
        let state = unflat(&cp.state)?;
        if let Some(c) = &cp.carry
            && c.len() != St::WORDS
        {
            return Err(refused(format!("{} carries for a state of {} words", c.len(), St::WORDS)));
        }
        let grid: Vec<usize> = (0..=cp.step / cp.every).map(|i| i * cp.every).collect();
        if cp.sample_steps != grid {
            return Err(refused("the sampled steps are not 0, every, 2 every, … up to the step"));
        }
        let n = grid.len();
        let times_ok = cp.sample_times.len() == n
            && cp.sample_steps.iter().zip(&cp.sample_times).all(|(&k, t)| (k as f64 * driver.h).to_bits() == t.0);
        if !times_ok {
            return Err(refused("the sample times are not step · h"));
        }
        if cp.series.len() != cp.observers.len() || cp.series.iter().any(|s| s.len() != n) {
            return Err(refused("the observer series do not match the samples"));
        }
        if cp.states.len() != if cp.store_states { n } else { 0 } {
            return Err(refused("the stored states do not match the samples"));
        }
        let states = cp.states.iter().map(|w| unflat(w)).collect::<Result<Vec<_>, _>>()?;
        let record = Record {
            names: cp.observers.clone(),
            steps: cp.sample_steps.clone(),
            times: floats(&cp.sample_times),
            series: cp.series.iter().map(|s| floats(s)).collect(),
        };
        Ok(Self { driver, step: cp.step, state, carry: cp.carry.as_deref().map(floats), record, states })
    }
}
