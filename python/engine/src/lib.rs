//! # geomint-engine
//!
//! The runs and ensembles behind the Python package `geomint`, in plain Rust on top of the
//! public workbench API ([`geomint::workbench`]); no Python here, so the same functions are
//! timed from Rust (`examples/ensemble_throughput.rs`) and from Python.
//!
//! * [`System`]: what to integrate, either a catalogue problem with its parameters or a system
//!   built from data ([`nbody::NBodySpec`], [`lie::RigidBodySpec`], [`lie::HeavyTopSpec`]).
//!   [`System::problem`] turns it into the workbench's [`Problem`], started from its own
//!   initial state or from a given one.
//! * [`run()`]: one run. With the system's own initial state it is the workbench's
//!   [`experiment::run`] on the catalogue's problem, the code path of `geomint run`.
//! * [`ensemble()`]: many initial states in parallel (rayon), with the final states and the
//!   errors of the monitored quantities. Member `i` equals [`run()`] from row `i`, bit for bit.
//!
//! Input errors are [`WorkbenchError::Input`]. Where the CLI accepts the same input (problem,
//! parameter, method, step, steps), the text is the CLI's, because the same workbench function
//! produces it.

pub mod canonical;
pub mod lie;
pub mod nbody;

use geomint::workbench::catalogue::{
    self,
    canonical::{HarmonicOscillator, HenonHeiles, Kepler, OuterSolarSystem, Pendulum},
};
use geomint::workbench::experiment::{self, RunResult, RunSpec};
use geomint::workbench::problem::{self, Family, Problem, Quantity, Simulation};
use geomint::workbench::{WorkbenchError, methods};
use rayon::prelude::*;
use std::time::Instant;

/// A [`WorkbenchError::Input`] with `msg`.
pub(crate) fn input(msg: impl Into<String>) -> WorkbenchError {
    WorkbenchError::Input(msg.into())
}

/// A system to integrate.
#[derive(Debug, Clone, PartialEq)]
pub enum System {
    /// A problem of the workbench catalogue, with parameter values (the others at defaults).
    Catalogue {
        /// Catalogue name, e.g. `kepler`.
        name: String,
        /// `(name, value)`, sorted by name (the order of a config file's `[params]`).
        params: Vec<(String, f64)>,
    },
    /// A gravitational N-body system.
    NBody(nbody::NBodySpec),
    /// A free rigid body with its inertia and initial state.
    RigidBody(lie::RigidBodySpec),
    /// A heavy top with its inertia, `mgl`, `χ` and initial state.
    HeavyTop(lie::HeavyTopSpec),
}

impl System {
    /// The catalogue problem `name` with `params`; the errors of
    /// [`catalogue::problem`] (an unknown name or parameter, a bad value).
    pub fn catalogue(name: &str, params: &[(String, f64)]) -> Result<Self, WorkbenchError> {
        let mut params = params.to_vec();
        params.sort_by(|a, b| a.0.cmp(&b.0));
        catalogue::problem(name, &params)?;
        Ok(Self::Catalogue { name: name.into(), params })
    }

    /// The workbench problem, started from the system's own initial state (`None`) or from
    /// `state` in the coordinates of [`Problem::state_labels`] (checked by [`check_state`]).
    pub fn problem(&self, state: Option<&[f64]>) -> Result<Box<dyn Problem>, WorkbenchError> {
        match self {
            System::Catalogue { name, params } => {
                let p = catalogue::problem(name, params)?;
                match state {
                    None => Ok(p),
                    Some(s) => {
                        check_state(p.as_ref(), s)?;
                        catalogue_with_state(p.as_ref(), params, s)
                    }
                }
            }
            System::NBody(spec) => spec.problem(state),
            System::RigidBody(spec) => spec.problem(state),
            System::HeavyTop(spec) => spec.problem(state),
        }
    }
}

/// The values of the parameters of the catalogue entry `name`, in the entry's order.
fn param_values(name: &str, params: &[(String, f64)]) -> Vec<f64> {
    let Some(entry) = catalogue::ENTRIES.iter().find(|e| e.name == name) else {
        return Vec::new();
    };
    entry.params.iter().map(|p| params.iter().rev().find(|(k, _)| k == p.name).map_or(p.default, |(_, v)| *v)).collect()
}

/// The catalogue problem `p` (built with `params`) started from `s` instead of its default
/// initial state; the groupoid problems, whose state is an arrow of a discrete flow built from
/// the catalogue's data, take none.
fn catalogue_with_state(
    p: &dyn Problem,
    params: &[(String, f64)],
    s: &[f64],
) -> Result<Box<dyn Problem>, WorkbenchError> {
    let v = param_values(p.name(), params);
    Ok(match p.name() {
        "harmonic-oscillator" => canonical::with_state(HarmonicOscillator { omega: v[0] }, s),
        "pendulum" => canonical::with_state(Pendulum, s),
        "kepler" => canonical::with_state(Kepler { e: v[0] }, s),
        "henon-heiles" => canonical::with_state(HenonHeiles, s),
        "outer-solar-system" => canonical::with_state(OuterSolarSystem, s),
        "rigid-body" => lie::RigidBodySpec::catalogue()?.with_state(s)?.boxed(RIGID_BODY),
        "heavy-top" => lie::HeavyTopSpec::catalogue()?.with_state(s)?.boxed(HEAVY_TOP),
        "underwater-vehicle" => lie::vehicle(s)?,
        name => {
            return Err(input(format!(
                "problem '{name}' ({}) takes no initial state: its state is an arrow of a discrete flow \
                 started from the catalogue's data",
                p.family().name()
            )));
        }
    })
}

const RIGID_BODY: &str = "free rigid body on SO(3), I = diag(2, 1, 2/3), initial state given";
const HEAVY_TOP: &str = "heavy top on SO(3), I = diag(2, 2.5, 1), mgl = 1, χ ∝ (0.1, 0, 1), initial state given";

/// `a, b, c` for up to twelve labels, else the first two, `…` and the last.
pub fn label_list(labels: &[String]) -> String {
    if labels.len() <= 12 {
        labels.join(", ")
    } else {
        format!("{}, {}, …, {}", labels[0], labels[1], labels[labels.len() - 1])
    }
}

/// A shape as Python prints it: `(3,)`, `(64, 4)`.
pub fn py_shape(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

/// An input error unless `s` has one finite value per coordinate of `problem`.
pub fn check_state(problem: &dyn Problem, s: &[f64]) -> Result<(), WorkbenchError> {
    let labels = problem.state_labels();
    if s.len() != labels.len() {
        return Err(input(format!(
            "a state of '{}' has {} coordinates ({}), got {}",
            problem.name(),
            labels.len(),
            label_list(&labels),
            s.len()
        )));
    }
    if let Some(i) = s.iter().position(|v| !v.is_finite()) {
        return Err(input(format!(
            "state coordinate {} of '{}' must be finite, got {}",
            labels[i],
            problem.name(),
            s[i]
        )));
    }
    Ok(())
}

/// The state a problem starts from with its default method and step (for the groupoid
/// problems the state at `t = 0` depends on the step, through the first arrow).
pub fn initial_state(problem: &dyn Problem) -> Result<Vec<f64>, WorkbenchError> {
    let sim = problem::start(problem, problem.methods()[0], problem.defaults().0)?;
    Ok(sim.state())
}

/// The resolved settings of a run or an ensemble: problem, method and [`RunSpec`].
pub struct Plan {
    /// The problem from the system's own initial state.
    pub problem: Box<dyn Problem>,
    /// The method (the problem's first when none is given).
    pub method: String,
    /// Step, steps and sampling.
    pub spec: RunSpec,
}

/// Resolves the settings as `geomint run` does, in the same order and with the same messages:
/// the problem, the method (default: the problem's first), the step (default: the problem's),
/// `steps` or `t_end` (default: the problem's final time), `every` (default: about 1000
/// samples).
pub fn plan(
    system: &System,
    method: Option<&str>,
    h: Option<f64>,
    steps: Option<usize>,
    t_end: Option<f64>,
    every: Option<usize>,
) -> Result<Plan, WorkbenchError> {
    let problem = system.problem(None)?;
    let (h0, t0) = problem.defaults();
    let method = method.map_or_else(|| problem.methods()[0].to_string(), str::to_string);
    problem::check_method(problem.as_ref(), &method)?;
    let h = h.unwrap_or(h0);
    let t_end = if steps.is_none() { Some(t_end.unwrap_or(t0)) } else { t_end };
    let provisional = RunSpec::new(h, steps, t_end, 1)?;
    let every = every.unwrap_or((provisional.steps / 1000).max(1));
    let spec = RunSpec::new(h, steps, t_end, every)?;
    Ok(Plan { problem, method, spec })
}

/// One run: [`plan`], then [`experiment::run`] from the system's initial state or `state`.
pub fn run(
    system: &System,
    method: Option<&str>,
    h: Option<f64>,
    steps: Option<usize>,
    t_end: Option<f64>,
    every: Option<usize>,
    state: Option<&[f64]>,
) -> Result<RunResult, WorkbenchError> {
    let plan = plan(system, method, h, steps, t_end, every)?;
    let problem = match state {
        None => plan.problem,
        Some(s) => system.problem(Some(s))?,
    };
    experiment::run(problem.as_ref(), &plan.method, plan.spec, &mut |_| {})
}

/// An error of an ensemble: the member it happened in, if any, and the workbench's error.
#[derive(Debug)]
pub struct EnsembleError {
    /// The member (row of the states), `None` for an error of the settings.
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

/// The outcome of [`ensemble()`]; arrays row-major, one row per member.
#[derive(Debug, Clone)]
pub struct Ensemble {
    /// Problem name.
    pub problem: String,
    /// Method name.
    pub method: String,
    /// Step size.
    pub h: f64,
    /// Steps per member.
    pub steps: usize,
    /// The sampling interval of `max_errors`, if any.
    pub every: Option<usize>,
    /// State labels (`n` of them).
    pub labels: Vec<String>,
    /// The monitored quantities (`k` of them).
    pub quantities: Vec<Quantity>,
    /// Number of members `M`.
    pub members: usize,
    /// Final states, `M × n`.
    pub states: Vec<f64>,
    /// Errors of the quantities at the final state ([`Quantity::error`] against the member's
    /// initial values), `M × k`.
    pub errors: Vec<f64>,
    /// With `every`: the largest error over the states every `every` steps (and the first and
    /// last), `M × k`, as [`RunResult::max_error`].
    pub max_errors: Option<Vec<f64>>,
    /// Wall time of the whole ensemble (all members, in parallel), seconds.
    pub wall_seconds: f64,
}

/// The final state, final errors and (with sampling) largest errors of one member.
type Member = (Vec<f64>, Vec<f64>, Option<Vec<f64>>);

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

/// `n` steps; the error names the step that failed, as [`experiment::run`]'s does.
fn advance(sim: &mut dyn Simulation, n: usize) -> Result<(), WorkbenchError> {
    for _ in 0..n {
        sim.advance().map_err(|source| WorkbenchError::Step { step: sim.steps() + 1, t: sim.time(), source })?;
    }
    Ok(())
}

fn member(
    system: &System,
    plan: &Plan,
    quantities: &[Quantity],
    row: &[f64],
    every: Option<usize>,
) -> Result<Member, WorkbenchError> {
    let problem = system.problem(Some(row))?;
    let mut sim = problem::start(problem.as_ref(), &plan.method, plan.spec.h)?;
    let v0 = sim.quantities();
    let steps = plan.spec.steps;
    let Some(every) = every else {
        advance(sim.as_mut(), steps)?;
        return Ok((sim.state(), errors_of(quantities, &sim.quantities(), &v0), None));
    };
    let mut max: Vec<f64> = errors_of(quantities, &v0, &v0).into_iter().map(|e| 0f64.max(e)).collect();
    let mut last = Vec::new();
    while sim.steps() < steps {
        let n = every.min(steps - sim.steps());
        advance(sim.as_mut(), n)?;
        last = errors_of(quantities, &sim.quantities(), &v0);
        for (m, e) in max.iter_mut().zip(&last) {
            *m = m.max(*e);
        }
    }
    Ok((sim.state(), last, Some(max)))
}

/// The settings of an [`ensemble()`] over states of shape `shape`, checked as the ensemble
/// checks them (same order, same messages), without running it.
pub fn check_ensemble(
    system: &System,
    method: Option<&str>,
    h: Option<f64>,
    steps: Option<usize>,
    shape: &[usize],
    every: Option<usize>,
    threads: Option<usize>,
) -> Result<Plan, EnsembleError> {
    let plan = plan(system, method, h, steps, None, Some(every.unwrap_or(1)))?;
    let labels = plan.problem.state_labels();
    let n = labels.len();
    if shape.len() != 2 || shape[1] != n {
        return Err(input(format!(
            "states of '{}' must be an array of shape (M, {n}), one row ({}) per member, got shape {}",
            plan.problem.name(),
            label_list(&labels),
            py_shape(shape)
        ))
        .into());
    }
    if threads == Some(0) {
        return Err(input("threads must be at least 1, got 0").into());
    }
    Ok(plan)
}

/// `steps` steps of `h` from every row of `states` (`shape = [M, n]`, row-major), in parallel
/// on rayon's pool (or a pool of `threads` threads). `every` samples the errors every `every`
/// steps for `max_errors`; without it only the final state is measured. Settings are resolved
/// by [`plan`]; the first failing member (by index) is the error.
#[allow(clippy::too_many_arguments)]
pub fn ensemble(
    system: &System,
    method: Option<&str>,
    h: Option<f64>,
    steps: Option<usize>,
    states: &[f64],
    shape: &[usize],
    every: Option<usize>,
    threads: Option<usize>,
) -> Result<Ensemble, EnsembleError> {
    let plan = check_ensemble(system, method, h, steps, shape, every, threads)?;
    let n = shape[1];
    if states.len() != shape[0] * n {
        return Err(input(format!("states hold {} values, not {} × {n}", states.len(), shape[0])).into());
    }
    let labels = plan.problem.state_labels();
    let quantities = plan.problem.quantities();
    let work = || -> Vec<Result<Member, WorkbenchError>> {
        states.par_chunks(n).map(|row| member(system, &plan, &quantities, row, every)).collect()
    };
    let t0 = Instant::now();
    let results = match threads {
        None => work(),
        Some(k) => geomint::integrators::driver::with_threads(k, work).map_err(|e| input(e.to_string()))?,
    };
    let wall_seconds = t0.elapsed().as_secs_f64();
    let members = shape[0];
    let k = quantities.len();
    let mut out = Ensemble {
        problem: plan.problem.name().to_string(),
        method: plan.method.clone(),
        h: plan.spec.h,
        steps: plan.spec.steps,
        every,
        labels,
        quantities,
        members,
        states: Vec::with_capacity(members * n),
        errors: Vec::with_capacity(members * k),
        max_errors: every.map(|_| Vec::with_capacity(members * k)),
        wall_seconds,
    };
    for (i, r) in results.into_iter().enumerate() {
        let (state, errors, max) = r.map_err(|source| EnsembleError { member: Some(i), source })?;
        out.states.extend(state);
        out.errors.extend(errors);
        if let (Some(all), Some(m)) = (out.max_errors.as_mut(), max) {
            all.extend(m);
        }
    }
    Ok(out)
}

/// One line per catalogue problem, as `geomint list` prints it: summary, family, default step
/// and final time, parameters.
pub fn problem_descriptions() -> Vec<(&'static str, String)> {
    catalogue::ENTRIES
        .iter()
        .map(|e| {
            let text = match (e.build)(&e.params.iter().map(|p| p.default).collect::<Vec<_>>()) {
                Ok(p) => {
                    let (h, t) = p.defaults();
                    let mut s = format!("{} [{}; h = {h}, t-end = {t}]", p.summary(), p.family().name());
                    for q in e.params {
                        s += &format!("; param {} = {} ({})", q.name, q.default, q.about);
                    }
                    s
                }
                Err(err) => format!("(cannot build: {err})"),
            };
            (e.name, text)
        })
        .collect()
}

/// One line per method of `problem`: order, structure and summary.
pub fn method_descriptions(problem: &dyn Problem) -> Vec<(&'static str, String)> {
    problem
        .methods()
        .into_iter()
        .filter_map(|m| methods::find(m))
        .map(|m| (m.name, format!("order {}, {:?}: {}", problem.order_of(m), m.structure, m.summary)))
        .collect()
}

/// The family's short name: `canonical`, `lie-group`, `groupoid`.
pub fn family_key(f: Family) -> &'static str {
    match f {
        Family::Canonical => "canonical",
        Family::LieGroup => "lie-group",
        Family::Groupoid => "groupoid",
    }
}
