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
//! **Errors.** Invalid inputs are [`GeomError`]s (wrapped in [`DriverError::Geom`]): `h` not
//! finite and positive is [`GeomError::InvalidStep`]; `steps = 0`, `every = 0`, a final time not
//! finite and positive, or a thread count of 0 is [`GeomError::InvalidParameter`]. A step that
//! fails is reported as [`DriverError::StepFailed`] with its index and time.

use discretization::{OneStep, PhaseState};
use geom_core::GeomError;
use geom_core::action::GroupAction;
use geom_core::function::{PhaseSpaceDerivatives, ScalarDerivatives};
use nalgebra::SVector;
use rayon::prelude::*;
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

/// `J_ξ` on `T*G` in left trivialization, for the states of the discretization layer's Lie-group
/// integrators (`(g, μ)`): with [`geom_core::action::LeftMultiplication`] the spatial momentum
/// `<Ad*_{g^{-1}} μ, ξ>`, with [`geom_core::action::RightMultiplication`] `-<μ, ξ>`.
impl<A, E, const D: usize> Observer<discretization::LieGroupState<E, D>> for MomentumMap<A, D>
where
    A: GroupAction<f64, D, Point = E, Covector = SVector<f64, D>>,
    E: Send + Sync,
{
    fn name(&self) -> String {
        self.name.clone()
    }
    fn observe(&self, s: &discretization::LieGroupState<E, D>) -> f64 {
        self.action.momentum_map(&s.g, &s.mu).dot(&self.xi)
    }
}

/// `J_ξ` for the Hamilton–Pontryagin states `(g, Π)` ([`crate::hp::LieState`]).
impl<A, E, const D: usize> Observer<crate::hp::LieState<E, D>> for MomentumMap<A, D>
where
    A: GroupAction<f64, D, Point = E, Covector = SVector<f64, D>>,
    E: Send + Sync,
{
    fn name(&self) -> String {
        self.name.clone()
    }
    fn observe(&self, s: &crate::hp::LieState<E, D>) -> f64 {
        self.action.momentum_map(&s.g, &s.pi).dot(&self.xi)
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
        self.drive(initial, schedule, observers, |s, h| {
            let (dq, dp) = method.increment(s, h)?;
            let (q, nq) = kahan(&s.q, &eq, &dq);
            let (p, np) = kahan(&s.p, &ep, &dp);
            let next = PhaseState::new(q, p);
            if !next.is_finite() || !nq.iter().chain(np.iter()).all(|v| v.is_finite()) {
                return Err(GeomError::NonFinite { what: "state after compensated step" });
            }
            (*s, eq, ep) = (next, nq, np);
            Ok(())
        })
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
