//! The one run loop: a [`Propagator`] advanced to a target in segments that end at the
//! sampling grid, at the checkpoint cadence and at the target, in chunks between two polls of a
//! stop flag. Every run of the workspace goes through it: [`Driver::run`], [`RunState::advance`]
//! and the workbench's runs and sessions (`geomint run`, `resume`).

use super::*;
use std::time::{Duration, Instant};

/// Steps per [`Propagator::advance_by`] call between two reads of the stop flag, by default: an
/// interrupt waits for at most this many steps.
pub const STOP_POLL: usize = 256;

/// When the loop asks its [`Hooks`] for a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cadence {
    /// Never (a caller that wants one saves it when the loop returns).
    Never,
    /// At every multiple of `n` steps before the target.
    Steps(usize),
    /// When `interval` of wall time has passed since the last checkpoint (or since the loop
    /// began), or 100 times as long as the last checkpoint took, if that is longer; the clock is
    /// read at least every `stride` steps.
    Wall {
        /// The least wall time between two checkpoints.
        interval: Duration,
        /// The most steps between two reads of the clock.
        stride: usize,
    },
}

/// Where a run goes and where it stops on the way: the target step count, the sampling interval
/// (a sample at every multiple of `every`), the checkpoint [`Cadence`] and the chunk between two
/// polls of the stop flag.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    target: usize,
    every: usize,
    cadence: Cadence,
    poll: usize,
}

impl Plan {
    /// Run to `target` steps sampling every `every` steps, no checkpoint, polling the stop flag
    /// every [`STOP_POLL`] steps; [`GeomError::InvalidParameter`] for `every = 0`.
    pub fn new(target: usize, every: usize) -> Result<Self, GeomError> {
        if every == 0 {
            return Err(GeomError::InvalidParameter { what: "every", reason: "must be at least 1".into() });
        }
        Ok(Self { target, every, cadence: Cadence::Never, poll: STOP_POLL })
    }
    /// With checkpoints at `cadence`; [`GeomError::InvalidParameter`] for `Steps(0)` or a
    /// stride of 0.
    pub fn with_cadence(self, cadence: Cadence) -> Result<Self, GeomError> {
        match cadence {
            Cadence::Steps(0) | Cadence::Wall { stride: 0, .. } => Err(GeomError::InvalidParameter {
                what: "checkpoint cadence",
                reason: "must be at least 1 step".into(),
            }),
            _ => Ok(Self { cadence, ..self }),
        }
    }
    /// Polling the stop flag every `poll` steps (at least 1).
    pub fn with_poll(self, poll: usize) -> Self {
        Self { poll: poll.max(1), ..self }
    }
    /// The target step count.
    pub fn target(&self) -> usize {
        self.target
    }
    /// The sampling interval.
    pub fn every(&self) -> usize {
        self.every
    }
}

/// How [`drive`] ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ended {
    /// The run reached its target.
    Reached,
    /// The stop flag was set; the run stopped between two chunks, after a whole step.
    Stopped,
    /// Step `step` (1-based, from time `time`) failed with `error`; the run is at the last good
    /// step.
    Failed {
        /// The failed step.
        step: usize,
        /// The time at its start.
        time: f64,
        /// The method's error.
        error: GeomError,
    },
}

/// What the loop tells its caller: samples, progress, checkpoints. Only
/// [`sample`](Self::sample) is required.
pub trait Hooks<P: ?Sized> {
    /// The error of a hook (an I/O error of a checkpoint, a sample that does not fit in memory).
    type Error;
    /// The run reached a multiple of `every` by a step.
    fn sample(&mut self, run: &P) -> Result<(), Self::Error>;
    /// A segment ended (after its sample, before its checkpoint); `integrating` is the wall time
    /// of its steps.
    fn progress(&mut self, run: &P, integrating: Duration) {
        let _ = (run, integrating);
    }
    /// A checkpoint is due (never at the target: the caller saves the end itself).
    fn checkpoint(&mut self, run: &P) -> Result<(), Self::Error> {
        let _ = run;
        Ok(())
    }
}

/// Advances `run` to `plan.target()` steps (nothing if it is there or beyond): in segments ending
/// at the next multiple of `every`, at the next checkpoint of the cadence and at the target,
/// each in chunks of at most `poll` steps with `stop` read before each chunk. After a segment:
/// [`Hooks::sample`] if it ended on the sampling grid, [`Hooks::progress`], and then, if the run
/// failed or was stopped, the return; else [`Hooks::checkpoint`] if one is due before the
/// target. A step that fails is [`Ended::Failed`] (not an error: the run stands at its last good
/// step, which is sampled if on the grid); a hook's error is returned as it is.
pub fn drive<P: Propagator + ?Sized, K: Hooks<P> + ?Sized>(
    run: &mut P,
    plan: &Plan,
    stop: Option<&AtomicBool>,
    hooks: &mut K,
) -> Result<Ended, K::Error> {
    let every = plan.every;
    let mut last_checkpoint = Instant::now();
    let mut interval = match plan.cadence {
        Cadence::Wall { interval, .. } => interval,
        _ => Duration::ZERO,
    };
    while run.steps() < plan.target {
        let start = run.steps();
        let mut end = plan.target.min((start / every + 1) * every);
        end = match plan.cadence {
            Cadence::Never => end,
            Cadence::Steps(n) => end.min((start / n + 1) * n),
            Cadence::Wall { stride, .. } => end.min(start.saturating_add(stride)),
        };
        let mut failure = None;
        let mut stopped = false;
        let t0 = Instant::now();
        while run.steps() < end {
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                stopped = true;
                break;
            }
            let chunk = (end - run.steps()).min(plan.poll);
            if let Err(error) = run.advance_by(chunk) {
                failure = Some(Ended::Failed { step: run.steps() + 1, time: run.time(), error });
                break;
            }
        }
        let integrating = t0.elapsed();
        let k = run.steps();
        if k > start && k.is_multiple_of(every) {
            hooks.sample(run)?;
        }
        hooks.progress(run, integrating);
        if let Some(failed) = failure {
            return Ok(failed);
        }
        if stopped {
            return Ok(Ended::Stopped);
        }
        let due = match plan.cadence {
            Cadence::Never => false,
            Cadence::Steps(n) => k.is_multiple_of(n),
            Cadence::Wall { .. } => last_checkpoint.elapsed() >= interval,
        };
        if due && k < plan.target {
            let t1 = Instant::now();
            hooks.checkpoint(run)?;
            if let Cadence::Wall { interval: least, .. } = plan.cadence {
                interval = least.max(t1.elapsed() * 100);
            }
            last_checkpoint = Instant::now();
        }
    }
    Ok(Ended::Reached)
}
