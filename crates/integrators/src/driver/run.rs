//! The driver and its run loops: fixed steps, to a final time, compensated, ensembles.

use super::*;

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
    pub(super) h: f64,
    pub(super) every: usize,
    pub(super) store_states: bool,
}

/// `steps` steps of `h`, the last one of `last` (`= h` unless shortened), ending at `t_end`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Schedule {
    pub(super) steps: usize,
    pub(super) h: f64,
    pub(super) last: f64,
    pub(super) t_end: f64,
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

    pub(super) fn fixed(&self, steps: usize) -> Result<Schedule, GeomError> {
        if steps == 0 {
            return Err(GeomError::InvalidParameter { what: "steps", reason: "must be at least 1".into() });
        }
        Ok(Schedule { steps, h: self.h, last: self.h, t_end: steps as f64 * self.h })
    }

    /// `t_final / h` steps if that is an integer to `1e-10` relative (then every step is exactly
    /// `h` and the final time is `n h`), else `⌈t_final / h⌉` steps, the last one shortened to
    /// `t_final − (n − 1) h`.
    pub(super) fn until(&self, t_final: f64) -> Result<Schedule, GeomError> {
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

    /// Every mode's run: the steps of `h` through the one loop ([`drive`]), sampling into a
    /// record allocated once, then a shortened last step if the schedule has one;
    /// `advance(state, h, n, steps)` takes `n` steps of `h` in place, counting them in `steps`.
    pub(super) fn drive<St: Clone>(
        &self,
        initial: St,
        schedule: Schedule,
        observers: &[&dyn Observer<St>],
        mut advance: impl FnMut(&mut St, f64, usize, &mut usize) -> Result<(), GeomError>,
    ) -> Result<Trajectory<St>, DriverError> {
        let samples = self.samples(schedule.steps);
        let mut record = Record::try_with_capacity(observers.iter().map(|o| o.name()).collect(), samples)?;
        let mut states = Vec::new();
        if self.store_states && states.try_reserve_exact(samples).is_err() {
            return Err(too_many_samples(samples).into());
        }
        let mut state = initial;
        let mut sampler = Sampler { record: &mut record, states: &mut states, observers, store: self.store_states };
        sampler.push(&state, 0, 0.0);
        let shortened = schedule.last.to_bits() != schedule.h.to_bits();
        let full = schedule.steps - usize::from(shortened);
        let h = schedule.h;
        let plan = Plan::new(full, self.every)?;
        let full_steps = |s: &mut St, n, k: &mut usize| advance(s, h, n, k);
        drive(&mut InPlace { state: &mut state, steps: 0, h, advance: full_steps }, &plan, None, &mut sampler)?
            .into_advanced()?;
        if shortened {
            let mut k = full;
            advance(&mut state, schedule.last, 1, &mut k).map_err(|source| DriverError::StepFailed {
                step: schedule.steps,
                time: full as f64 * h,
                source,
            })?;
        }
        if shortened || !schedule.steps.is_multiple_of(self.every) {
            sampler.push(&state, schedule.steps, schedule.t_end);
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
        self.drive(initial, schedule, observers, |s, h, n, k| advance_in_place(method, s, h, n, k))
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
        self.drive(initial, schedule, observers, |s, h, n, k| advance_in_place(method, s, h, n, k))
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

    pub(super) fn drive_compensated<const N: usize, M: Increment<N> + ?Sized>(
        &self,
        method: &M,
        initial: PhaseState<N>,
        schedule: Schedule,
        observers: &[&dyn Observer<PhaseState<N>>],
    ) -> Result<Trajectory<PhaseState<N>>, DriverError> {
        let mut eq = SVector::<f64, N>::zeros();
        let mut ep = SVector::<f64, N>::zeros();
        self.drive(initial, schedule, observers, |s, h, n, k| {
            compensated_in_place(method, s, (&mut eq, &mut ep), h, n, k)
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

/// One compensated step: `s ← s + δ` with the carries `(eq, ep)` (HLW Algorithm VIII.5.1); on
/// error neither the state nor the carries change.
#[inline]
pub(super) fn compensated_step<const N: usize, M: Increment<N> + ?Sized>(
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
pub(super) fn kahan<const N: usize>(
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
