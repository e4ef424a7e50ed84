//! Runs advanced in pieces, stopped by a flag and continued.

use super::*;

pub use geom_core::step::FlatState;

/// How a call of [`RunState::advance`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advanced {
    /// The run reached the requested number of steps.
    Reached,
    /// The stop flag was set; the run stopped after a whole step, before the requested count.
    Stopped,
}

/// A run that can be advanced in pieces, stopped between two steps (an [`AtomicBool`] read
/// between chunks of at most [`STOP_POLL`] steps), saved as a [`DriverCheckpoint`] and continued, with a result equal bit for bit to
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
    pub(super) driver: Driver,
    pub(super) step: usize,
    pub(super) state: St,
    /// The compensated-summation carries `(e_q, e_p)`, `None` for a plain run.
    pub(super) carry: Option<Vec<f64>>,
    pub(super) record: Record,
    pub(super) states: Vec<St>,
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

    pub(super) fn sample(&mut self, observers: &[&dyn Observer<St>]) {
        let (step, time, store) = (self.step, self.time(), self.driver.store_states);
        Sampler { record: &mut self.record, states: &mut self.states, observers, store }.push(&self.state, step, time);
    }

    /// The observers must be those the run started with (same names, same order).
    pub(super) fn check_observers(&self, observers: &[&dyn Observer<St>]) -> Result<(), GeomError> {
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

    /// Checks a continuation to `steps` with `observers` and makes room for its samples.
    pub(super) fn prepare(&mut self, steps: usize, observers: &[&dyn Observer<St>]) -> Result<Plan, DriverError> {
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
        Ok(Plan::new(steps, every)?)
    }
    /// Takes steps of `method` until `steps` steps in total are done, or until `stop` is set
    /// (read between chunks of steps). A failed step ([`DriverError::StepFailed`]) leaves the run at the
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
        let plan = self.prepare(steps, observers)?;
        let h = self.driver.h;
        let store = self.driver.store_states;
        let mut run = InPlace {
            state: &mut self.state,
            steps: self.step,
            h,
            advance: |s: &mut St, n, k: &mut usize| advance_in_place(method, s, h, n, k),
        };
        let mut hooks = Sampler { record: &mut self.record, states: &mut self.states, observers, store };
        let ended = drive(&mut run, &plan, stop, &mut hooks);
        self.step = run.steps;
        ended.map_err(DriverError::Geom)?.into_advanced()
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
        let result = self.prepare(steps, observers).and_then(|plan| {
            let h = self.driver.h;
            let store = self.driver.store_states;
            let advance =
                |s: &mut PhaseState<N>, n, k: &mut usize| compensated_in_place(method, s, (&mut eq, &mut ep), h, n, k);
            let mut run = InPlace { state: &mut self.state, steps: self.step, h, advance };
            let mut hooks = Sampler { record: &mut self.record, states: &mut self.states, observers, store };
            let ended = drive(&mut run, &plan, stop, &mut hooks);
            self.step = run.steps;
            ended.map_err(DriverError::Geom)?.into_advanced()
        });
        self.carry = Some(eq.iter().chain(ep.iter()).copied().collect());
        result
    }
}

/// A run's state borrowed by the loop, advanced by `advance(state, n, steps)`.
pub(super) struct InPlace<'a, St, A> {
    pub(super) state: &'a mut St,
    pub(super) steps: usize,
    pub(super) h: f64,
    pub(super) advance: A,
}

impl<St, A: FnMut(&mut St, usize, &mut usize) -> Result<(), GeomError>> Propagator for InPlace<'_, St, A> {
    fn h(&self) -> f64 {
        self.h
    }
    fn steps(&self) -> usize {
        self.steps
    }
    fn advance_by(&mut self, n: usize) -> Result<(), GeomError> {
        (self.advance)(self.state, n, &mut self.steps)
    }
}

/// The driver's hooks: each sample of the observers (and the state, if stored) into the record.
pub(super) struct Sampler<'a, 'o, St> {
    pub(super) record: &'a mut Record,
    pub(super) states: &'a mut Vec<St>,
    pub(super) observers: &'a [&'o dyn Observer<St>],
    pub(super) store: bool,
}

impl<St: Clone> Sampler<'_, '_, St> {
    /// Samples `state` as step `step` at time `time`.
    pub(super) fn push(&mut self, state: &St, step: usize, time: f64) {
        self.record.steps.push(step);
        self.record.times.push(time);
        for (series, o) in self.record.series.iter_mut().zip(self.observers) {
            series.push(o.observe(state));
        }
        if self.store {
            self.states.push(state.clone());
        }
    }
}

impl<St: Clone, A: FnMut(&mut St, usize, &mut usize) -> Result<(), GeomError>> Hooks<InPlace<'_, St, A>>
    for Sampler<'_, '_, St>
{
    type Error = GeomError;
    fn sample(&mut self, run: &InPlace<'_, St, A>) -> Result<(), GeomError> {
        self.push(run.state, run.steps, run.time());
        Ok(())
    }
}

impl Ended {
    /// [`Advanced`] for a run that reached its target or was stopped; a failed step as
    /// [`DriverError::StepFailed`].
    pub(super) fn into_advanced(self) -> Result<Advanced, DriverError> {
        match self {
            Ended::Reached => Ok(Advanced::Reached),
            Ended::Stopped => Ok(Advanced::Stopped),
            Ended::Failed { step, time, error } => Err(DriverError::StepFailed { step, time, source: error }),
        }
    }
}
