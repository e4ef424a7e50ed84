//! The driver's one loop (`integrators::driver::drive`) with a user's run and hooks, as the
//! workbench uses it: samples at the multiples of `every` reached by a step, checkpoints at the
//! cadence and never at the target, the stop flag read between chunks, a failed step reported at
//! its index with the run at the last good step; and a `Propagation` saved mid-run and restored
//! continues bit for bit, as does a compensated one.

use geom_core::GeomError;
use geom_core::function::AutoDiff;
use integrators::classical::StormerVerlet;
use integrators::driver::{
    Cadence, CompensatedPropagation, Driver, Ended, Hooks, Plan, Propagation, Propagator, drive,
};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::driver_checkpoint::{Kepler, start};

/// A user's run outside the crates: `x ← x + 1` per step, failing at step `fail_at` (leaving
/// the state), raising `stop` after step `stop_at`.
struct Counter<'a> {
    x: f64,
    steps: usize,
    fail_at: usize,
    stop_at: usize,
    stop: &'a AtomicBool,
}

impl Propagator for Counter<'_> {
    fn h(&self) -> f64 {
        0.5
    }
    fn steps(&self) -> usize {
        self.steps
    }
    fn advance_by(&mut self, n: usize) -> Result<(), GeomError> {
        for _ in 0..n {
            if self.steps + 1 == self.fail_at {
                return Err(GeomError::InvalidStep { h: 0.5 });
            }
            self.x += 1.0;
            self.steps += 1;
            if self.steps == self.stop_at {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
        Ok(())
    }
}

/// Records what the loop asked for.
#[derive(Default)]
struct Log {
    samples: Vec<usize>,
    checkpoints: Vec<usize>,
    segments: usize,
}

impl Hooks<Counter<'_>> for Log {
    type Error = String;
    fn sample(&mut self, run: &Counter<'_>) -> Result<(), String> {
        assert_eq!(run.x, run.steps as f64, "the sample sees the state after the step");
        self.samples.push(run.steps);
        Ok(())
    }
    fn progress(&mut self, _: &Counter<'_>, _: std::time::Duration) {
        self.segments += 1;
    }
    fn checkpoint(&mut self, run: &Counter<'_>) -> Result<(), String> {
        if run.steps == 999 {
            return Err("disk full".into());
        }
        self.checkpoints.push(run.steps);
        Ok(())
    }
}

fn counter(stop: &AtomicBool, fail_at: usize, stop_at: usize) -> Counter<'_> {
    Counter { x: 0.0, steps: 0, fail_at, stop_at, stop }
}

#[test]
fn samples_and_checkpoints_follow_the_plan() {
    let stop = AtomicBool::new(false);
    let mut run = counter(&stop, usize::MAX, usize::MAX);
    let plan = Plan::new(23, 5).unwrap().with_cadence(Cadence::Steps(10)).unwrap().with_poll(3);
    let mut log = Log::default();
    assert_eq!(drive(&mut run, &plan, Some(&stop), &mut log), Ok(Ended::Reached));
    assert_eq!(run.steps, 23);
    assert_eq!(log.samples, vec![5, 10, 15, 20], "the last step (23) is off the grid: the caller samples it");
    assert_eq!(log.checkpoints, vec![10, 20]);
    // segments end at 5, 10, 15, 20, 23
    assert_eq!(log.segments, 5);
    // already at the target: nothing
    let mut again = Log::default();
    assert_eq!(drive(&mut run, &plan, Some(&stop), &mut again), Ok(Ended::Reached));
    assert!(again.samples.is_empty() && again.segments == 0);
    // a checkpoint at the target is not asked for (the caller saves the end)
    let mut run = counter(&stop, usize::MAX, usize::MAX);
    let mut log = Log::default();
    let plan = Plan::new(20, 4).unwrap().with_cadence(Cadence::Steps(10)).unwrap();
    drive(&mut run, &plan, None, &mut log).unwrap();
    assert_eq!(log.checkpoints, vec![10]);
    // a hook's error is returned as it is, the run where it was
    let mut run = counter(&stop, usize::MAX, usize::MAX);
    let plan = Plan::new(2000, 1000).unwrap().with_cadence(Cadence::Steps(999)).unwrap();
    assert_eq!(drive(&mut run, &plan, None, &mut Log::default()), Err("disk full".to_string()));
    assert_eq!(run.steps, 999);
    // bad plans are refused
    assert!(Plan::new(10, 0).is_err());
    assert!(Plan::new(10, 1).unwrap().with_cadence(Cadence::Steps(0)).is_err());
}

#[test]
fn a_failed_step_and_the_stop_flag_end_the_run_where_they_happen() {
    let stop = AtomicBool::new(false);
    let mut run = counter(&stop, 13, usize::MAX);
    let mut log = Log::default();
    let plan = Plan::new(100, 4).unwrap();
    let ended = drive(&mut run, &plan, Some(&stop), &mut log).unwrap();
    assert_eq!(ended, Ended::Failed { step: 13, time: 6.0, error: GeomError::InvalidStep { h: 0.5 } });
    assert_eq!((run.steps, run.x), (12, 12.0));
    assert_eq!(log.samples, vec![4, 8, 12], "the last good step, on the grid, is sampled");

    // the flag is read before each chunk of `poll` steps: raised at step 7, the run stops at 9
    let stop = AtomicBool::new(false);
    let mut run = counter(&stop, usize::MAX, 7);
    let plan = Plan::new(100, 50).unwrap().with_poll(3);
    assert_eq!(drive(&mut run, &plan, Some(&stop), &mut Log::default()), Ok(Ended::Stopped));
    assert_eq!(run.steps, 9);
    // without the flag the same run goes on
    let mut run = counter(&stop, usize::MAX, 7);
    assert_eq!(drive(&mut run, &plan, None, &mut Log::default()), Ok(Ended::Reached));
}

fn bits(words: &[f64]) -> Vec<u64> {
    words.iter().map(|v| v.to_bits()).collect()
}

/// A `Propagation` is the driver's run: the same state bit for bit as `Driver::run`; saved at
/// step 300 and restored into a fresh one, it ends where the uninterrupted one ends; words of
/// the wrong length are refused and change nothing. The same for the compensated run, whose
/// saved words carry the Kahan carries.
#[test]
fn propagations_are_the_drivers_runs_and_resume_bit_for_bit() {
    let sv = StormerVerlet::new(AutoDiff(Kepler));
    let h = 0.01;
    let mut whole = Propagation::new(&sv, start(), h).unwrap();
    whole.advance_by(1000).unwrap();
    let driven = Driver::new(h).unwrap().run(&sv, start(), 1000, &[]).unwrap().final_state;
    assert_eq!(bits(&whole.save().unwrap()), bits(&[driven.q[0], driven.q[1], driven.p[0], driven.p[1]]));

    let mut first = Propagation::new(&sv, start(), h).unwrap();
    first.advance_by(300).unwrap();
    let saved = first.save().unwrap();
    let mut second = Propagation::new(&sv, start(), h).unwrap();
    assert!(second.restore(&saved[1..], 300).is_err());
    assert_eq!(second.steps(), 0);
    second.restore(&saved, 300).unwrap();
    second.advance_by(700).unwrap();
    assert_eq!((second.steps(), bits(&second.save().unwrap())), (1000, bits(&whole.save().unwrap())));

    let mut whole = CompensatedPropagation::new(&sv, start(), h).unwrap();
    whole.advance_by(1000).unwrap();
    let words = whole.save().unwrap();
    assert_eq!(words.len(), 8);
    assert!(words[4..].iter().any(|c| *c != 0.0), "the carries are all zero");
    let reference = Driver::new(h).unwrap().run_compensated(&sv, start(), 1000, &[]).unwrap().final_state;
    assert_eq!(bits(&words[..4]), bits(&[reference.q[0], reference.q[1], reference.p[0], reference.p[1]]));
    let mut first = CompensatedPropagation::new(&sv, start(), h).unwrap();
    first.advance_by(300).unwrap();
    let mut second = CompensatedPropagation::new(&sv, start(), h).unwrap();
    second.restore(&first.save().unwrap(), 300).unwrap();
    second.advance_by(700).unwrap();
    assert_eq!(bits(&second.save().unwrap()), bits(&words));
}

/// A run is validated when it is made: a step that is zero or not finite is refused by the
/// constructors of both propagations with `InvalidStep`, not at the first step.
#[test]
fn propagations_refuse_an_invalid_step_at_construction() {
    let sv = StormerVerlet::new(AutoDiff(Kepler));
    for h in [0.0, f64::NAN, f64::INFINITY] {
        let plain = Propagation::new(&sv, start(), h).map(|_| ());
        assert!(matches!(plain, Err(GeomError::InvalidStep { .. })), "h = {h}: {plain:?}");
        let compensated = CompensatedPropagation::new(&sv, start(), h).map(|_| ());
        assert!(matches!(compensated, Err(GeomError::InvalidStep { .. })), "h = {h}: {compensated:?}");
    }
    assert!(Propagation::new(&sv, start(), -0.01).is_ok(), "a negative step runs backwards");
}
