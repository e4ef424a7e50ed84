//! The three experiments of the workbench, independent of how they are printed or written:
//!
//! * [`run`]: one method on one problem, sampling the state, the monitored quantities and their
//!   errors (and the solution error where an exact solution exists) every `every` steps;
//! * [`convergence`]: the global error at a fixed final time over a sequence of halved steps and
//!   the fitted slopes `log(e_i/e_{i+1}) / log(h_i/h_{i+1})` — the measured order;
//! * [`compare`]: work–precision, the wall time of the steps against the solution error at the
//!   final time and the largest energy error, for several methods over a range of steps.
//!
//! Reference solutions ([`reference()`]) are the problem's exact solution where it has one; else,
//! for a canonical problem (a vector field on `T*R^n`), the adaptive DOP853 integration at
//! rtol = atol = [`methods::REFERENCE_TOLERANCE`]; else (Lie-group and groupoid problems, where
//! DOP853 does not apply) the problem's reference method at a step `h_min / divisor`
//! ([`Problem::reference`]), Richardson-extrapolated.

use crate::workbench::WorkbenchError;
use crate::workbench::methods;
use crate::workbench::problem::{self, Family, Problem, Quantity, Simulation};
use geom_core::GeomError;
use integrators::driver::{Ended, Hooks, Plan, drive};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The largest number of steps a run may take (10^10: hours for the cheapest method).
pub const MAX_STEPS: usize = 10_000_000_000;

/// The most samples a run held in memory keeps (`steps / every + 1`): the samples of [`run`] are
/// held in memory (each a few hundred bytes: the state, the quantities and their errors), so a
/// run of `10^8` steps sampled at every step is refused before it starts instead of exhausting the
/// memory. `geomint run` streams its samples to disk and has no such bound
/// ([`RunSpec::streamed`]).
pub const MAX_SAMPLES: usize = 2_000_000;

/// How long and how finely to run.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RunSpec {
    /// Step size.
    pub h: f64,
    /// Number of steps.
    pub steps: usize,
    /// Sample every `every` steps (the last step is always sampled).
    pub every: usize,
}

impl RunSpec {
    /// `steps` steps of `h`, or `round(t_end / h)` steps when `t_end` is given, for a run that holds
    /// its samples in memory; input errors for a non-positive step, zero steps, `every = 0`, both
    /// `steps` and `t_end`, more than [`MAX_STEPS`] steps or more than [`MAX_SAMPLES`] samples.
    pub fn new(h: f64, steps: Option<usize>, t_end: Option<f64>, every: usize) -> Result<Self, WorkbenchError> {
        let spec = Self::streamed(h, steps, t_end, every)?;
        let (steps, samples) = (spec.steps, spec.steps / every + 1);
        if samples > MAX_SAMPLES {
            let least = steps.div_ceil(MAX_SAMPLES - 1);
            return Err(WorkbenchError::Input(format!(
                "{steps} steps sampled every {every} give {samples} samples; a run keeps at most \
                 {MAX_SAMPLES} in memory: sample every {least} steps or more"
            )));
        }
        Ok(spec)
    }

    /// [`RunSpec::new`] for a run that streams its samples to disk as it takes them (`geomint
    /// run`): any number of samples (the disk bounds them, checked when the run starts,
    /// [`crate::workbench::output::check_space`]).
    pub fn streamed(h: f64, steps: Option<usize>, t_end: Option<f64>, every: usize) -> Result<Self, WorkbenchError> {
        if !(h.is_finite() && h > 0.0) {
            return Err(WorkbenchError::Input(format!("step size h must be finite and positive, got {h}")));
        }
        if every == 0 {
            return Err(WorkbenchError::Input("--every must be at least 1".into()));
        }
        let steps = match (steps, t_end) {
            (Some(_), Some(_)) => return Err(WorkbenchError::Input("give --steps or --t-end, not both".into())),
            (Some(n), None) => n,
            (None, Some(t)) if t.is_finite() && t > 0.0 => (t / h).round() as usize,
            (None, Some(t)) => {
                return Err(WorkbenchError::Input(format!("t-end must be finite and positive, got {t}")));
            }
            (None, None) => return Err(WorkbenchError::Input("give --steps or --t-end".into())),
        };
        if steps == 0 {
            return Err(WorkbenchError::Input("the run has no steps (steps = 0 or t-end < h/2)".into()));
        }
        if steps > MAX_STEPS {
            return Err(WorkbenchError::Input(format!("{steps} steps requested; at most {MAX_STEPS} (raise h)")));
        }
        Ok(Self { h, steps, every })
    }

    /// The run of `geomint run` on `problem`, each setting at its default where not given:
    /// `h` the problem's step, `steps` or else `t_end` (default: the problem's final time, when
    /// neither is given), `every` about 1000 samples (`max(1, ⌊steps/1000⌋)`). The errors of
    /// [`RunSpec::new`].
    pub fn resolve(
        problem: &dyn Problem,
        h: Option<f64>,
        steps: Option<usize>,
        t_end: Option<f64>,
        every: Option<usize>,
    ) -> Result<Self, WorkbenchError> {
        Self::resolve_with(problem, h, steps, t_end, every, Self::new)
    }

    /// [`RunSpec::resolve`] for a run that streams its samples ([`RunSpec::streamed`]).
    pub fn resolve_streamed(
        problem: &dyn Problem,
        h: Option<f64>,
        steps: Option<usize>,
        t_end: Option<f64>,
        every: Option<usize>,
    ) -> Result<Self, WorkbenchError> {
        Self::resolve_with(problem, h, steps, t_end, every, Self::streamed)
    }

    fn resolve_with(
        problem: &dyn Problem,
        h: Option<f64>,
        steps: Option<usize>,
        t_end: Option<f64>,
        every: Option<usize>,
        make: MakeSpec,
    ) -> Result<Self, WorkbenchError> {
        let (h0, t0) = problem.defaults();
        let h = h.unwrap_or(h0);
        let t_end = if steps.is_none() { Some(t_end.unwrap_or(t0)) } else { t_end };
        // the step count first (with `every = steps`, which keeps the sample count at 2), then
        // the default of about 1000 samples
        let provisional = make(h, steps, t_end, every.unwrap_or(usize::MAX))?;
        make(h, steps, t_end, every.unwrap_or((provisional.steps / 1000).max(1)))
    }
}

/// A constructor of [`RunSpec`]: [`RunSpec::new`] or [`RunSpec::streamed`].
type MakeSpec = fn(f64, Option<usize>, Option<f64>, usize) -> Result<RunSpec, WorkbenchError>;

/// One sample of a run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Sample {
    /// Step index.
    pub step: usize,
    /// Time.
    pub t: f64,
    /// State coordinates.
    pub state: Vec<f64>,
    /// Quantity values, concatenated.
    pub values: Vec<f64>,
    /// One error per quantity ([`Quantity::error`]).
    pub errors: Vec<f64>,
    /// `|y(t) − y_exact(t)|` where an exact solution is known.
    pub solution_error: Option<f64>,
}

/// The outcome of [`run`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunResult {
    /// Problem name.
    pub problem: String,
    /// Method name (registry).
    pub method: String,
    /// Step, steps, sampling.
    pub spec: RunSpec,
    /// State labels.
    pub labels: Vec<String>,
    /// Monitored quantities.
    pub quantities: Vec<Quantity>,
    /// Samples, the initial state first.
    pub samples: Vec<Sample>,
    /// Wall time of the steps (sampling excluded), seconds.
    pub wall_seconds: f64,
}

impl RunResult {
    /// The largest error of quantity `i` over the samples.
    pub fn max_error(&self, i: usize) -> f64 {
        self.samples.iter().map(|s| s.errors[i]).fold(0.0, f64::max)
    }
    /// The error of quantity `i` at the last sample.
    pub fn final_error(&self, i: usize) -> f64 {
        self.samples.last().map_or(0.0, |s| s.errors[i])
    }
    /// The largest solution error, where an exact solution is known.
    pub fn max_solution_error(&self) -> Option<f64> {
        self.samples.iter().map(|s| s.solution_error).try_fold(0.0, |m: f64, e| e.map(|e| m.max(e)))
    }
}

fn sample(problem: &dyn Problem, sim: &dyn Simulation, quantities: &[Quantity], v0: &[f64]) -> Sample {
    let (state, values) = (sim.state(), sim.quantities());
    let mut errors = Vec::with_capacity(quantities.len());
    let mut k = 0;
    for q in quantities {
        errors.push(q.error(&values[k..k + q.dim], &v0[k..k + q.dim]));
        k += q.dim;
    }
    let solution_error = problem.exact(sim.time()).map(|y| distance(&state, &y));
    Sample { step: sim.steps(), t: sim.time(), state, values, errors, solution_error }
}

/// Euclidean distance of two coordinate vectors.
pub fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>().sqrt()
}

/// Advances `sim` by `n` steps; the error names the step that failed.
fn advance(sim: &mut dyn Simulation, n: usize) -> Result<(), WorkbenchError> {
    sim.advance_by(n).map_err(|source| WorkbenchError::Step { step: sim.steps() + 1, t: sim.time(), source })
}

/// The [`Hooks`] of the workbench's runs: `on_sample` at every multiple of `every`, the wall time
/// of the steps summed.
struct Sampling<F> {
    on_sample: F,
    wall: Duration,
}

impl<F: FnMut(&dyn Simulation)> Hooks<dyn Simulation + '_> for Sampling<F> {
    type Error = std::convert::Infallible;
    fn sample(&mut self, run: &(dyn Simulation + '_)) -> Result<(), Self::Error> {
        (self.on_sample)(run);
        Ok(())
    }
    fn progress(&mut self, _: &(dyn Simulation + '_), integrating: Duration) {
        self.wall += integrating;
    }
}

/// A step that failed in the driver's loop, as the workbench's error naming it.
pub(crate) fn step_error(step: usize, time: f64, error: GeomError) -> WorkbenchError {
    WorkbenchError::Step { step, t: time, source: error }
}

/// Runs `sim` to `target` steps through the driver's one loop ([`drive`]), reading `stop`
/// between chunks and calling `on_sample` at every multiple of `every`; returns the wall time of
/// the steps and how the loop ended (a failed step leaves the simulation at its last good step).
pub(crate) fn drive_sampled(
    sim: &mut dyn Simulation,
    target: usize,
    every: usize,
    stop: Option<&AtomicBool>,
    on_sample: impl FnMut(&dyn Simulation),
) -> Result<(Duration, Ended), WorkbenchError> {
    let mut hooks = Sampling { on_sample, wall: Duration::ZERO };
    match drive(sim, &Plan::new(target, every)?, stop, &mut hooks) {
        Ok(ended) => Ok((hooks.wall, ended)),
        Err(never) => match never {},
    }
}

/// The failed step of a loop that ended with one, as [`step_error`].
fn failure(ended: Ended) -> Option<WorkbenchError> {
    match ended {
        Ended::Failed { step, time, error } => Some(step_error(step, time, error)),
        _ => None,
    }
}

/// Runs `method` on `problem` as `spec` says; `progress` is called with the steps done so far
/// after each sample.
pub fn run(
    problem: &dyn Problem,
    method: &str,
    spec: RunSpec,
    progress: &mut dyn FnMut(usize),
) -> Result<RunResult, WorkbenchError> {
    let mut sim = problem::start(problem, method, spec.h)?;
    let quantities = problem.quantities();
    let v0 = sim.quantities();
    let mut samples = vec![sample(problem, sim.as_ref(), &quantities, &v0)];
    let (wall, ended) = drive_sampled(sim.as_mut(), spec.steps, spec.every, None, |s| {
        samples.push(sample(problem, s, &quantities, &v0));
        progress(s.steps());
    })?;
    if let Some(e) = failure(ended) {
        return Err(e);
    }
    if samples.last().is_none_or(|s| s.step != sim.steps()) {
        samples.push(sample(problem, sim.as_ref(), &quantities, &v0));
        progress(sim.steps());
    }
    Ok(RunResult {
        problem: problem.name().into(),
        method: method.into(),
        spec,
        labels: problem.state_labels(),
        quantities,
        samples,
        wall_seconds: wall.as_secs_f64(),
    })
}

/// The state at `t_end = steps · h` (no sampling).
pub fn final_state(problem: &dyn Problem, method: &str, h: f64, steps: usize) -> Result<Vec<f64>, WorkbenchError> {
    let mut sim = problem::start(problem, method, h)?;
    advance(sim.as_mut(), steps)?;
    Ok(sim.state())
}

// --- ensembles -------------------------------------------------------------------------------------

/// One member of an [`ensemble()`]: where it started, where it ended, its errors.
#[derive(Debug)]
pub struct Member {
    /// The initial state.
    pub initial: Vec<f64>,
    /// The final state: after the last step, or after the last good step if one failed.
    pub state: Vec<f64>,
    /// The steps taken.
    pub steps: usize,
    /// The time reached, `steps · h`.
    pub t: f64,
    /// The error of each quantity at the final state ([`Quantity::error`] against the
    /// member's own initial values).
    pub errors: Vec<f64>,
    /// With sampling: the largest error of each quantity over the states every `every` steps
    /// (the first and the last included), as [`RunResult::max_error`] of the same run.
    pub max_errors: Option<Vec<f64>>,
    /// The failed step ([`WorkbenchError::Step`]), if one failed.
    pub failure: Option<WorkbenchError>,
}

impl Member {
    /// `completed` or `failed at step K`.
    pub fn status(&self) -> String {
        match &self.failure {
            None => "completed".into(),
            Some(WorkbenchError::Step { step, .. }) => format!("failed at step {step}"),
            Some(_) => "failed".into(),
        }
    }
}

/// The outcome of [`ensemble()`].
#[derive(Debug)]
pub struct Ensemble {
    /// Problem name.
    pub problem: String,
    /// Method name.
    pub method: String,
    /// Step size.
    pub h: f64,
    /// Steps per member.
    pub steps: usize,
    /// The sampling interval of [`Member::max_errors`], if any.
    pub every: Option<usize>,
    /// State labels.
    pub labels: Vec<String>,
    /// The monitored quantities.
    pub quantities: Vec<Quantity>,
    /// The members, in the order of the initial states.
    pub members: Vec<Member>,
    /// The threads the members ran on.
    pub threads: usize,
    /// Wall time of the whole ensemble, seconds.
    pub wall_seconds: f64,
}

impl Ensemble {
    /// The first member (by index) whose step failed, with its failure.
    pub fn first_failure(&self) -> Option<(usize, &WorkbenchError)> {
        self.members.iter().enumerate().find_map(|(i, m)| m.failure.as_ref().map(|e| (i, e)))
    }
}

/// An error of an ensemble's input: the member whose initial state was refused, if any, and
/// the workbench's error.
#[derive(Debug)]
pub struct EnsembleError {
    /// The member (index of its initial state), `None` for an error of the settings.
    pub member: Option<usize>,
    /// The error.
    pub source: WorkbenchError,
}

impl std::fmt::Display for EnsembleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.member {
            Some(i) => write!(f, "member {i}: {}", self.source),
            None => write!(f, "{}", self.source),
        }
    }
}

impl std::error::Error for EnsembleError {}

impl From<WorkbenchError> for EnsembleError {
    fn from(source: WorkbenchError) -> Self {
        Self { member: None, source }
    }
}

fn errors_of(quantities: &[Quantity], v: &[f64], v0: &[f64]) -> Vec<f64> {
    let mut k = 0;
    quantities
        .iter()
        .map(|q| {
            let e = q.error(&v[k..k + q.dim], &v0[k..k + q.dim]);
            k += q.dim;
            e
        })
        .collect()
}

/// One member: `steps` steps of `method` from the problem's initial state, the errors measured
/// every `every` steps (or at the end only).
fn member(
    problem: &dyn Problem,
    method: &str,
    h: f64,
    steps: usize,
    every: Option<usize>,
    stop: Option<&AtomicBool>,
) -> Member {
    let quantities = problem.quantities();
    let initial = problem.initial_state().unwrap_or_default();
    let mut sim = match problem::start(problem, method, h) {
        Ok(sim) => sim,
        Err(e) => {
            let n = quantities.len();
            let state = initial.clone();
            return Member {
                initial,
                state,
                steps: 0,
                t: 0.0,
                errors: vec![f64::NAN; n],
                max_errors: None,
                failure: Some(e),
            };
        }
    };
    let v0 = sim.quantities();
    let mut max = every.map(|_| errors_of(&quantities, &v0, &v0).into_iter().map(|e| 0f64.max(e)).collect::<Vec<_>>());
    let widen = |max: &mut Option<Vec<f64>>, s: &dyn Simulation| {
        if let Some(m) = max.as_mut() {
            for (m, e) in m.iter_mut().zip(errors_of(&quantities, &s.quantities(), &v0)) {
                *m = m.max(e);
            }
        }
    };
    // a sample every `every` steps, at the last step, and at the last good step of a failed member
    let failure = match drive_sampled(sim.as_mut(), steps, every.unwrap_or(usize::MAX), stop, |s| widen(&mut max, s)) {
        Ok((_, ended)) => failure(ended),
        Err(e) => Some(e),
    };
    widen(&mut max, sim.as_ref());
    let errors = errors_of(&quantities, &sim.quantities(), &v0);
    Member { initial, state: sim.state(), steps: sim.steps(), t: sim.time(), errors, max_errors: max, failure }
}

/// `steps` steps of `method` with step `h` from each of `states` (coordinates of
/// [`Problem::state_labels`]), in parallel on rayon's pool, or on a pool of `threads` threads.
/// With `every`, the errors are sampled every `every` steps for [`Member::max_errors`].
///
/// Member `i` is the run of `problem.with_state(&states[i])`: its final state and errors equal
/// those of [`run`] from that state (with `every`), bit for bit, whatever the number of
/// threads. The states are checked first ([`Problem::with_state`]); the first refused one is
/// the error, naming its member. A member whose step fails keeps its last good state and its
/// failure ([`Member::failure`]); the others run on.
pub fn ensemble(
    problem: &dyn Problem,
    method: &str,
    h: f64,
    steps: usize,
    every: Option<usize>,
    states: &[Vec<f64>],
    threads: Option<usize>,
) -> Result<Ensemble, EnsembleError> {
    ensemble_until(problem, method, h, steps, every, states, threads, None)
}

/// [`ensemble()`], reading `stop` between chunks of steps of every member: once it is set, the
/// members stop after a whole step, those not begun do not start, and the ensemble is an input
/// error (`interrupted`) instead of a result.
#[allow(clippy::too_many_arguments)]
pub fn ensemble_until(
    problem: &dyn Problem,
    method: &str,
    h: f64,
    steps: usize,
    every: Option<usize>,
    states: &[Vec<f64>],
    threads: Option<usize>,
    stop: Option<&AtomicBool>,
) -> Result<Ensemble, EnsembleError> {
    // the settings of a run; without sampling, one sampled at its start and end only
    RunSpec::new(h, Some(steps), None, every.unwrap_or(steps.max(1)))?;
    problem::check_method(problem, method)?;
    if threads == Some(0) {
        return Err(WorkbenchError::Input("threads must be at least 1, got 0".into()).into());
    }
    let problems = states
        .iter()
        .enumerate()
        .map(|(i, s)| problem.with_state(s).map_err(|source| EnsembleError { member: Some(i), source }))
        .collect::<Result<Vec<_>, _>>()?;
    use rayon::prelude::*;
    let work = || -> (Vec<Member>, usize) {
        let members = problems.par_iter().map(|p| member(p.as_ref(), method, h, steps, every, stop)).collect();
        (members, rayon::current_num_threads())
    };
    let t0 = Instant::now();
    let (members, threads) = match threads {
        None => work(),
        Some(k) => integrators::driver::with_threads(k, work).map_err(|e| WorkbenchError::Input(e.to_string()))?,
    };
    if stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
        return Err(WorkbenchError::Input("the ensemble was interrupted".into()).into());
    }
    Ok(Ensemble {
        problem: problem.name().into(),
        method: method.into(),
        h,
        steps,
        every,
        labels: problem.state_labels(),
        quantities: problem.quantities(),
        members,
        threads,
        wall_seconds: t0.elapsed().as_secs_f64(),
    })
}

/// A source of standard normal samples for [`Problem::perturb`]: SplitMix64 (Steele, Lea &
/// Flood, 2014) for uniform `u ∈ (0, 1]`, two at a time turned into normals by Box–Muller,
/// `z = √(−2 ln u₁) cos(2π u₂)`, `z' = √(−2 ln u₁) sin(2π u₂)`. The same seed gives the same
/// samples on every run of the same build.
#[derive(Debug, Clone)]
pub struct Normal {
    state: u64,
    spare: Option<f64>,
}

impl Normal {
    /// The generator started from `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed, spare: None }
    }

    fn uniform(&mut self) -> f64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((z >> 11) + 1) as f64 / (1u64 << 53) as f64
    }

    /// The next sample.
    pub fn sample(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        let (u1, u2) = (self.uniform(), self.uniform());
        let r = (-2.0 * u1.ln()).sqrt();
        let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
        self.spare = Some(r * s);
        r * c
    }
}

/// `members` initial states near `base` for an ensemble: member `k` is
/// `problem.perturb(base, eps, normal)` ([`Problem::perturb`]: `base + ε z`, or along the
/// manifold), with the samples of [`Normal::new`]`(seed)` drawn member after member, so the
/// states do not depend on the threads. Every state is checked by [`Problem::with_state`].
/// Input errors for a base the problem refuses, `members = 0` or `ε` not finite and `≥ 0`.
pub fn perturbed_states(
    problem: &dyn Problem,
    base: &[f64],
    members: usize,
    eps: f64,
    seed: u64,
) -> Result<Vec<Vec<f64>>, WorkbenchError> {
    if members == 0 {
        return Err(WorkbenchError::Input("an ensemble needs at least 1 member, got 0".into()));
    }
    if !(eps.is_finite() && eps >= 0.0) {
        return Err(WorkbenchError::Input(format!("the perturbation must be finite and non-negative, got {eps}")));
    }
    problem.with_state(base)?;
    let mut normal = Normal::new(seed);
    (0..members)
        .map(|k| {
            let s = problem.perturb(base, eps, &mut || normal.sample());
            problem
                .with_state(&s)
                .map(|_| s)
                .map_err(|e| WorkbenchError::Input(format!("member {k}: the perturbed state is refused: {e}")))
        })
        .collect()
}

/// The reference solution at `t_end`, and how it was obtained (the description names the route):
///
/// * the exact solution, where the problem has one;
/// * for a canonical problem ([`Family::Canonical`]: the state is `(q, p) ∈ T*R^n` and the
///   Hamiltonian vector field is available), DOP853 ([`dop853_reference`]);
/// * otherwise (Lie-group and groupoid problems, whose states are not vectors of a linear space
///   that DOP853 could step) the problem's reference method, Richardson-extrapolated
///   ([`richardson_reference`]).
pub fn reference(problem: &dyn Problem, t_end: f64, h_min: f64) -> Result<(Vec<f64>, String), WorkbenchError> {
    if let Some(y) = problem.exact(t_end) {
        return Ok((y, "exact solution".into()));
    }
    if problem.family() == Family::Canonical {
        return dop853_reference(problem, t_end);
    }
    let (y, how) = richardson_reference(problem, t_end, h_min)?;
    Ok((y, format!("{how}; DOP853 does not apply to {}", problem.family().name())))
}

/// The problem's reference method ([`Problem::reference`], with its step divisor `d`) at
/// `steps = round(t_end / h_min) · d` and `steps / 2` steps, Richardson-extrapolated with its
/// order `p`: `y = y_fine + (y_fine − y_coarse) / (2^p − 1)`.
pub fn richardson_reference(
    problem: &dyn Problem,
    t_end: f64,
    h_min: f64,
) -> Result<(Vec<f64>, String), WorkbenchError> {
    let (method, divisor) = problem.reference();
    let info = problem::check_method(problem, method)?;
    let p = problem.order_of(info).max(1) as i32;
    let steps = ((t_end / h_min).round() as usize).max(1) * divisor;
    // Richardson extrapolation of the leading error term C h^p from steps and steps / 2
    let fine = final_state(problem, method, t_end / steps as f64, steps)?;
    let coarse = final_state(problem, method, 2.0 * t_end / steps as f64, steps / 2)?;
    let w = 1.0 / (2f64.powi(p) - 1.0);
    let y = fine.iter().zip(&coarse).map(|(f, c)| f + (f - c) * w).collect();
    // the correction `|fine − coarse| w` estimates the error of the fine run: printed, so that a
    // reader sees how far the reference itself can be trusted (a sensitive motion at a long time)
    let correction = distance(&fine, &coarse) * w;
    Ok((
        y,
        format!(
            "{method} with {steps} and {} steps, Richardson-extrapolated (order {p}; correction {correction:.1e})",
            steps / 2
        ),
    ))
}

/// The DOP853 reference of a canonical problem at `t_end`: the adaptive Dormand–Prince 8(5,3)
/// integration (Hairer, Nørsett & Wanner, *Solving Ordinary Differential Equations I*, 1993) of
/// the Hamiltonian vector field from the initial state, at rtol = atol =
/// [`methods::REFERENCE_TOLERANCE`], whose last step is shortened to land on `t_end` exactly
/// ([`methods::DOP853_REFERENCE`]). Its cost does not depend on `h_min`; its error is about
/// 100–1000 tol over a few orbits (measured on Kepler against Kepler's equation).
pub fn dop853_reference(problem: &dyn Problem, t_end: f64) -> Result<(Vec<f64>, String), WorkbenchError> {
    if !(t_end.is_finite() && t_end > 0.0) {
        return Err(WorkbenchError::Input(format!("t-end must be finite and positive, got {t_end}")));
    }
    let mut sim = problem.start_method(&methods::DOP853_REFERENCE, t_end)?;
    sim.advance_by(1).map_err(|source| WorkbenchError::Step { step: 1, t: 0.0, source })?;
    let tol = methods::REFERENCE_TOLERANCE;
    Ok((sim.state(), format!("DOP853 (adaptive Dormand–Prince 8(5,3), rtol = atol = {tol:e}) to t = {t_end}")))
}

/// One row of the order table.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct OrderRow {
    /// Step size `h = t_end / steps`.
    pub h: f64,
    /// Number of steps.
    pub steps: usize,
    /// Global error `|y_h(t_end) − y_ref(t_end)|`.
    pub error: f64,
    /// Slope against the previous row (none for the first).
    pub slope: Option<f64>,
}

/// The outcome of [`convergence`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct OrderTable {
    /// Problem name.
    pub problem: String,
    /// Method name.
    pub method: String,
    /// The method's order on this problem ([`Problem::order_of`]).
    pub nominal_order: u32,
    /// Final time.
    pub t_end: f64,
    /// How the reference was obtained.
    pub reference: String,
    /// The rows, coarsest step first.
    pub rows: Vec<OrderRow>,
    /// Errors below `1e-13 · max(1, |y_ref|)` are round-off, not discretization error, and
    /// take no part in [`OrderTable::measured_order`].
    pub floor: f64,
}

impl OrderTable {
    /// The slope of the last row whose error, and its predecessor's, lie above the round-off
    /// floor [`OrderTable::floor`]: the measured order.
    pub fn measured_order(&self) -> Option<f64> {
        self.rows
            .windows(2)
            .filter(|w| w[0].error > self.floor && w[1].error > self.floor)
            .filter_map(|w| w[1].slope)
            .next_back()
    }
}

/// The step counts `n_0 · 2^i`, `i < levels`, with `n_0 = round(t_end / h_max)`.
pub fn halvings(t_end: f64, h_max: f64, levels: usize) -> Result<Vec<usize>, WorkbenchError> {
    if !(t_end.is_finite() && t_end > 0.0 && h_max.is_finite() && h_max > 0.0) {
        return Err(WorkbenchError::Input(format!("t-end and h must be finite and positive (got {t_end}, {h_max})")));
    }
    if !(2..=14).contains(&levels) {
        return Err(WorkbenchError::Input(format!("levels must be between 2 and 14, got {levels}")));
    }
    let n0 = ((t_end / h_max).round() as usize).max(1);
    Ok((0..levels).map(|i| n0 << i).collect())
}

/// The global error of `method` at `t_end` for each step count, and the fitted slopes.
pub fn convergence(
    problem: &dyn Problem,
    method: &str,
    t_end: f64,
    step_counts: &[usize],
    progress: &mut dyn FnMut(usize),
) -> Result<OrderTable, WorkbenchError> {
    problem::check_method(problem, method)?;
    let n_max = step_counts.iter().copied().max().unwrap_or(1);
    let (y_ref, how) = reference(problem, t_end, t_end / n_max as f64)?;
    let mut rows: Vec<OrderRow> = Vec::new();
    for (i, &n) in step_counts.iter().enumerate() {
        let h = t_end / n as f64;
        let error = distance(&final_state(problem, method, h, n)?, &y_ref);
        let slope = rows.last().map(|p: &OrderRow| (p.error / error).ln() / (p.h / h).ln());
        rows.push(OrderRow { h, steps: n, error, slope });
        progress(i + 1);
    }
    let nominal_order = problem.order_of(problem::check_method(problem, method)?);
    let floor = 1e-13 * y_ref.iter().map(|v| v * v).sum::<f64>().sqrt().max(1.0);
    Ok(OrderTable {
        problem: problem.name().into(),
        method: method.into(),
        nominal_order,
        t_end,
        reference: how,
        rows,
        floor,
    })
}

/// One point of a work–precision diagram.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct WorkPoint {
    /// Step size.
    pub h: f64,
    /// Number of steps.
    pub steps: usize,
    /// Wall time of the steps of one run, seconds: the median of [`TIMING_REPEATS`] timings,
    /// each the mean over `runs` runs.
    pub seconds: f64,
    /// `(slowest − fastest) / median` of the [`TIMING_REPEATS`] timings.
    pub seconds_spread: f64,
    /// Runs averaged in each timing: as many as make a timing last at least
    /// [`MIN_TIMING_SECONDS`] (a run of a few microseconds timed once is noise).
    pub runs: usize,
    /// `|y_h(t_end) − y_ref(t_end)|`.
    pub solution_error: f64,
    /// The largest error of the first quantity (the energy) over about 100 samples.
    pub energy_error: f64,
}

/// The work–precision points of one method.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WorkCurve {
    /// Method name.
    pub method: String,
    /// Points, coarsest step first.
    pub points: Vec<WorkPoint>,
}

/// The outcome of [`compare`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct WorkPrecision {
    /// Problem name.
    pub problem: String,
    /// Final time.
    pub t_end: f64,
    /// How the reference was obtained.
    pub reference: String,
    /// One curve per method.
    pub curves: Vec<WorkCurve>,
}

/// Each work–precision point is timed this many times; the median is reported, with the spread.
pub const TIMING_REPEATS: usize = 5;

/// The shortest timing of a work–precision point: a run shorter than this is repeated within
/// one timing until the timing lasts this long (at most [`MAX_TIMING_RUNS`] runs).
pub const MIN_TIMING_SECONDS: f64 = 0.02;

/// The most runs averaged in one timing.
pub const MAX_TIMING_RUNS: usize = 100_000;

/// Work–precision of `methods` on `problem` at `t_end` over the step counts.
pub fn compare(
    problem: &dyn Problem,
    methods: &[String],
    t_end: f64,
    step_counts: &[usize],
    progress: &mut dyn FnMut(usize),
) -> Result<WorkPrecision, WorkbenchError> {
    for m in methods {
        problem::check_method(problem, m)?;
    }
    let n_max = step_counts.iter().copied().max().unwrap_or(1);
    let (y_ref, how) = reference(problem, t_end, t_end / n_max as f64)?;
    let quantities = problem.quantities();
    let first = quantities.first().cloned();
    let mut curves = Vec::new();
    let mut done = 0;
    for m in methods {
        let mut points = Vec::new();
        for &n in step_counts {
            let h = t_end / n as f64;
            // the errors and a first time from one run; then TIMING_REPEATS timings, each of as
            // many runs as last MIN_TIMING_SECONDS (the runs are deterministic: their errors
            // agree bit for bit)
            let (solution_error, energy_error, first) = timed_run(problem, m, h, n, &first, Some(&y_ref))?;
            let runs = timing_runs(first, |runs| {
                (0..runs).try_fold(0.0, |total, _| Ok(total + timed_run(problem, m, h, n, &None, None)?.2))
            })?;
            let mut times = [0.0f64; TIMING_REPEATS];
            for time in &mut times {
                let mut total = 0.0;
                for _ in 0..runs {
                    total += timed_run(problem, m, h, n, &None, None)?.2;
                }
                *time = total / runs as f64;
            }
            times.sort_by(f64::total_cmp);
            let seconds = times[TIMING_REPEATS / 2];
            let seconds_spread = if seconds > 0.0 { (times[TIMING_REPEATS - 1] - times[0]) / seconds } else { 0.0 };
            points.push(WorkPoint { h, steps: n, seconds, seconds_spread, runs, solution_error, energy_error });
            done += 1;
            progress(done);
        }
        curves.push(WorkCurve { method: m.clone(), points });
    }
    Ok(WorkPrecision { problem: problem.name().into(), t_end, reference: how, curves })
}

/// The runs per timing: as many as make a timing last at least [`MIN_TIMING_SECONDS`], at most
/// [`MAX_TIMING_RUNS`]. The estimate `MIN_TIMING_SECONDS / first` from the first (cold) run is
/// confirmed by timing that many runs with `time_runs` and raised until the timing lasts long
/// enough: a first run slowed by a cold cache or a busy machine would otherwise leave a
/// timing of a few warm runs, which is noise.
fn timing_runs(
    first: f64,
    mut time_runs: impl FnMut(usize) -> Result<f64, WorkbenchError>,
) -> Result<usize, WorkbenchError> {
    let estimate = |seconds: f64| (MIN_TIMING_SECONDS / seconds.max(1e-9)).ceil();
    if first >= MIN_TIMING_SECONDS {
        return Ok(1);
    }
    let mut runs = (estimate(first) as usize).clamp(1, MAX_TIMING_RUNS);
    loop {
        let seconds = time_runs(runs)?;
        if seconds >= MIN_TIMING_SECONDS || runs == MAX_TIMING_RUNS {
            return Ok(runs);
        }
        // at least double, so the calibration ends after a few rounds whatever the clock says
        let scaled = (runs as f64 * estimate(seconds) * 1.25).min(MAX_TIMING_RUNS as f64) as usize;
        runs = scaled.max(2 * runs).min(MAX_TIMING_RUNS);
    }
}

/// One run of `n` steps of `method` at `h`: the solution error against `y_ref` (0 without it),
/// the largest error of the quantity `first` over about 100 samples, and the wall time of the
/// steps (the sampling and the start excluded).
fn timed_run(
    problem: &dyn Problem,
    method: &str,
    h: f64,
    n: usize,
    first: &Option<problem::Quantity>,
    y_ref: Option<&[f64]>,
) -> Result<(f64, f64, f64), WorkbenchError> {
    let mut sim = problem::start(problem, method, h)?;
    let v0 = sim.quantities();
    let every = (n / 100).max(1);
    let (mut seconds, mut worst) = (0.0, 0.0f64);
    while sim.steps() < n {
        let k = every.min(n - sim.steps());
        let t0 = Instant::now();
        advance(sim.as_mut(), k)?;
        seconds += t0.elapsed().as_secs_f64();
        if let Some(q) = first {
            worst = worst.max(q.error(&sim.quantities()[..q.dim], &v0[..q.dim]));
        }
    }
    Ok((y_ref.map_or(0.0, |y| distance(&sim.state(), y)), worst, seconds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::catalogue;

    /// A run held in memory is refused above MAX_SAMPLES samples, naming the smallest `every`
    /// that fits; a streamed run is not (the disk bounds it), and both refuse the same bad input.
    #[test]
    fn only_runs_in_memory_are_bounded_by_their_samples() {
        let err = RunSpec::new(0.01, Some(100_000_000), None, 1).unwrap_err().to_string();
        assert!(err.contains("100000001 samples") && err.contains("sample every 51 steps or more"), "{err}");
        assert!(RunSpec::new(0.01, Some(100_000_000), None, 51).is_ok());
        assert_eq!(
            RunSpec::streamed(0.01, Some(100_000_000), None, 1).unwrap(),
            RunSpec { h: 0.01, steps: 100_000_000, every: 1 }
        );
        let p = problem("kepler");
        assert_eq!(
            RunSpec::resolve_streamed(p.as_ref(), None, Some(3_000_000), None, Some(1)).unwrap().steps,
            3_000_000
        );
        assert!(RunSpec::resolve(p.as_ref(), None, Some(3_000_000), None, Some(1)).is_err());
        for (h, steps, every) in
            [(0.0, Some(10), 1), (0.01, Some(0), 1), (0.01, Some(10), 0), (0.01, Some(MAX_STEPS + 1), 1)]
        {
            assert!(RunSpec::streamed(h, steps, None, every).is_err(), "{h} {steps:?} {every}");
        }
    }

    /// A first run slowed 100× (a cold cache, a busy machine) does not leave a timing of a few
    /// warm runs: the calibration raises the runs until a timing lasts MIN_TIMING_SECONDS, and
    /// a run longer than that is timed once. The clock here is simulated.
    #[test]
    fn a_slow_first_run_does_not_shorten_the_timings() {
        let warm = 7e-6;
        let mut calls = 0;
        let runs = timing_runs(100.0 * warm, |runs| {
            calls += 1;
            Ok(runs as f64 * warm)
        })
        .unwrap();
        assert!(runs as f64 * warm >= MIN_TIMING_SECONDS, "{runs} runs of {warm} s");
        assert!(runs as f64 * warm < 3.0 * MIN_TIMING_SECONDS, "{runs} runs of {warm} s: too many");
        assert!(calls <= 3, "{calls} calibration rounds");
        assert_eq!(timing_runs(0.5, |_| unreachable!()).unwrap(), 1);
        // a clock that reads zero ends at MAX_TIMING_RUNS, not in a loop
        assert_eq!(timing_runs(0.0, |_| Ok(0.0)).unwrap(), MAX_TIMING_RUNS);
    }

    fn problem(name: &str) -> Box<dyn Problem> {
        catalogue::problem(name, &[]).unwrap()
    }

    /// On Kepler (e = 0.6, which has an exact solution to check against) the DOP853 reference at
    /// t = 20 (about three orbits) is within 1e-11 of Kepler's equation.
    #[test]
    fn dop853_reference_matches_keplers_equation() {
        let kepler = problem("kepler");
        let (y, how) = dop853_reference(kepler.as_ref(), 20.0).unwrap();
        let error = distance(&y, &kepler.exact(20.0).unwrap());
        assert!(error < 1e-11, "{how}: error {error:e}");
        assert!(how.starts_with("DOP853"), "{how}");
        assert!(matches!(dop853_reference(kepler.as_ref(), f64::NAN), Err(WorkbenchError::Input(_))));
    }

    /// Canonical problems without an exact solution get DOP853 references that agree with the
    /// former route (Gauss 3 at h/4, Richardson-extrapolated) to round-off of the state; the
    /// Lie-group and groupoid problems keep that route and say why.
    #[test]
    fn references_by_family() {
        for (name, t_end, h_min) in [("henon-heiles", 20.0, 0.1 / 8.0), ("outer-solar-system", 1000.0, 10.0 / 8.0)] {
            let p = problem(name);
            let (dop, how) = reference(p.as_ref(), t_end, h_min).unwrap();
            assert!(how.starts_with("DOP853"), "{name}: {how}");
            let (gauss, _) = richardson_reference(p.as_ref(), t_end, h_min).unwrap();
            let scale = gauss.iter().map(|v| v * v).sum::<f64>().sqrt().max(1.0);
            let d = distance(&dop, &gauss);
            println!("{name}: |DOP853 − Gauss 3 Richardson| = {d:.2e} (|y| = {scale:.1})");
            assert!(d < 1e-13 * scale, "{name}: {d:e}");
        }
        let (_, how) = reference(problem("rigid-body").as_ref(), 2.0, 0.05).unwrap();
        assert!(how.contains("Richardson") && how.contains("DOP853 does not apply to Lie group"), "{how}");
        assert_eq!(reference(problem("kepler").as_ref(), 2.0, 0.05).unwrap().1, "exact solution");
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// Member `i` of an ensemble is the run from state `i` (final state, final and largest
    /// errors, bit for bit), on one thread or two; a member whose step fails keeps its last good
    /// state and its failure while the others run on; a refused state names its member.
    #[test]
    fn ensemble_members_are_single_runs() {
        for name in ["kepler", "rigid-body", "so3-optimal-control"] {
            let p = problem(name);
            let base = p.initial_state().unwrap();
            let states = perturbed_states(p.as_ref(), &base, 5, 1e-3, 7).unwrap();
            let (h, steps, every) = (p.defaults().0, 40, 7);
            let one = ensemble(p.as_ref(), p.methods()[0], h, steps, Some(every), &states, Some(1)).unwrap();
            let two = ensemble(p.as_ref(), p.methods()[0], h, steps, Some(every), &states, Some(2)).unwrap();
            assert_eq!(two.threads, 2.min(integrators::driver::max_threads()));
            for (i, s) in states.iter().enumerate() {
                let q = p.with_state(s).unwrap();
                let r =
                    run(q.as_ref(), p.methods()[0], RunSpec::new(h, Some(steps), None, every).unwrap(), &mut |_| {})
                        .unwrap();
                let last = r.samples.last().unwrap();
                for m in [&one.members[i], &two.members[i]] {
                    assert!(m.failure.is_none() && m.steps == steps && m.status() == "completed");
                    assert_eq!(bits(&m.state), bits(&last.state), "{name} member {i}");
                    assert_eq!(bits(&m.errors), bits(&last.errors), "{name} member {i}");
                    let max: Vec<f64> = (0..r.quantities.len()).map(|k| r.max_error(k)).collect();
                    assert_eq!(bits(m.max_errors.as_ref().unwrap()), bits(&max), "{name} member {i}");
                    assert_eq!(bits(&m.initial), bits(s));
                }
            }
        }
        let kepler = problem("kepler");
        let states = vec![vec![0.4, 0.0, 0.0, 2.0], vec![0.0, 0.0, 0.0, 1.0], vec![0.5, 0.0, 0.0, 1.5]];
        let e = ensemble(kepler.as_ref(), "stormer-verlet", 0.01, 10, None, &states, None).unwrap();
        assert_eq!(e.first_failure().map(|f| f.0), Some(1));
        assert_eq!(e.members[1].status(), "failed at step 1");
        assert_eq!((e.members[1].steps, bits(&e.members[1].state)), (0, bits(&states[1])));
        assert!(e.members[0].failure.is_none() && e.members[2].steps == 10);
        let bad = vec![vec![0.4, 0.0, 0.0, 2.0], vec![0.4, f64::INFINITY, 0.0, 2.0]];
        let err = ensemble(kepler.as_ref(), "stormer-verlet", 0.01, 10, None, &bad, None).unwrap_err();
        assert_eq!(err.member, Some(1));
        assert_eq!(err.to_string(), "member 1: state coordinate q2 of 'kepler' must be finite, got inf");
        assert!(ensemble(kepler.as_ref(), "stormer-verlet", 0.01, 10, None, &bad[..1], Some(0)).is_err());
    }

    /// An ensemble reads its stop flag: set from another thread 50 ms into a run of hours, it
    /// ends the ensemble within a second as an interruption; unset, the result is the ensemble's.
    /// More threads than the machine has are capped at its parallelism.
    #[test]
    fn an_ensemble_stops_when_asked_and_caps_its_threads() {
        let kepler = problem("kepler");
        let states = vec![kepler.initial_state().unwrap(); 4];
        let stop = AtomicBool::new(false);
        let t0 = Instant::now();
        let err = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(50));
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            });
            ensemble_until(kepler.as_ref(), "rk4", 0.01, MAX_STEPS, None, &states, Some(2), Some(&stop)).unwrap_err()
        });
        assert!(t0.elapsed() < Duration::from_secs(1), "stopped after {:?}", t0.elapsed());
        assert_eq!((err.member, err.to_string()), (None, "the ensemble was interrupted".to_string()));
        let go = AtomicBool::new(false);
        let a = ensemble(kepler.as_ref(), "rk4", 0.01, 50, None, &states, Some(1)).unwrap();
        let b = ensemble_until(kepler.as_ref(), "rk4", 0.01, 50, None, &states, Some(10_000), Some(&go)).unwrap();
        assert_eq!(b.threads, integrators::driver::max_threads());
        assert_eq!(bits(&a.members[3].state), bits(&b.members[3].state));
    }

    /// The same seed gives the same members, another seed others; the sizes are checked.
    #[test]
    fn perturbed_states_are_reproducible() {
        let p = problem("heavy-top");
        let base = p.initial_state().unwrap();
        let a = perturbed_states(p.as_ref(), &base, 4, 1e-2, 11).unwrap();
        assert_eq!(a, perturbed_states(p.as_ref(), &base, 4, 1e-2, 11).unwrap());
        assert_ne!(a, perturbed_states(p.as_ref(), &base, 4, 1e-2, 12).unwrap());
        assert_eq!(perturbed_states(p.as_ref(), &base, 2, 0.0, 11).unwrap(), vec![base.clone(), base.clone()]);
        assert!(perturbed_states(p.as_ref(), &base, 0, 1e-2, 11).is_err());
        assert!(perturbed_states(p.as_ref(), &base, 2, f64::NAN, 11).is_err());
        // standard normal samples: mean 0 and variance 1 to sampling accuracy (n = 10^5)
        let mut n = Normal::new(5);
        let z: Vec<f64> = (0..100_000).map(|_| n.sample()).collect();
        let mean = z.iter().sum::<f64>() / z.len() as f64;
        let var = z.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / z.len() as f64;
        assert!(mean.abs() < 0.01 && (var - 1.0).abs() < 0.02, "mean {mean}, variance {var}");
    }
}
