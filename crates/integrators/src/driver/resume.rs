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

    /// The loop of [`advance`](Self::advance) and [`advance_compensated`](Self::advance_compensated).
    pub(super) fn drive_to(
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
