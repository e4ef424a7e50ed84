//! # geomint-engine
//!
//! The runs and ensembles behind the Python package `geomint`, in plain Rust on top of the
//! public workbench API ([`geomint::workbench`]); no Python here, so the same functions are
//! timed from Rust (`examples/ensemble_throughput.rs`) and from Python.
//!
//! * [`System`]: what to integrate, a catalogue problem with its parameters or a system built
//!   from data (an N-body system, a rigid body, a heavy top, a Hamiltonian of formulas), as the
//!   workbench's [`Problem`].
//!   A given initial state is the workbench's [`Problem::with_state`], checked there.
//! * [`callback`]: a separable Hamiltonian given by its gradients as callbacks (compiled
//!   functions, or the host's), a workbench [`Problem`] on which the explicit methods run.
//! * [`plan`]: the settings of a run resolved as `geomint run` resolves them
//!   ([`RunSpec::resolve`]).
//! * [`simulation`]: runs through the workbench's checkpointed run loop (the `Session` of
//!   `geomint run` and `geomint resume`): one run to its end ([`simulation::run`]), and runs that
//!   continue, are interrupted, saved and loaded ([`simulation::Simulation`]).
//! * [`ensemble()`]: many initial states in parallel, the workbench's
//!   [`experiment::ensemble_until`], as arrays. Member `i` equals [`simulation::run`] from row
//!   `i`, bit for bit.
//! * [`perturbed_states`]: the initial states of `geomint ensemble`.
//! * [`chaos`]: MEGNO over an array of initial states and Poincaré sections
//!   (`geomint chaos`, `geomint poincare`).
//!
//! Input errors are [`WorkbenchError::Input`]; where the CLI accepts the same input, the text is
//! the CLI's, because the same workbench function produces it. Only the shapes of arrays are
//! checked here.

use geomint::workbench::catalogue::{self, lie, lie_system::LieSystemSpec, nbody::Bodies, system::SystemSpec};
use geomint::workbench::experiment::{self, RunSpec};
use geomint::workbench::problem::{self, Family, Problem, Quantity};
use geomint::workbench::{WorkbenchError, methods};
use nalgebra::{Matrix3, Vector3};
use std::sync::atomic::AtomicBool;

pub mod at_times;
pub mod callback;
pub mod chaos;
pub mod simulation;
pub mod vector_field;

pub use geomint::workbench::experiment::EnsembleError;
pub use geomint::workbench::problem::label_list;

/// A [`WorkbenchError::Input`] with `msg`.
fn input(msg: impl Into<String>) -> WorkbenchError {
    WorkbenchError::Input(msg.into())
}

/// Where a [`System`] comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// A problem of the workbench catalogue, with parameter values (the others at defaults),
    /// sorted by name (the order of a config file's `[params]`).
    Catalogue {
        /// Catalogue name, e.g. `kepler`.
        name: String,
        /// `(name, value)`.
        params: Vec<(String, f64)>,
    },
    /// A gravitational N-body system.
    NBody(Bodies),
    /// A free rigid body or a heavy top built from its inertia (and `mgl`, `χ`) and a state.
    Body,
    /// A Hamiltonian system written as formulas (the workbench's problem `system`).
    Formula(SystemSpec),
    /// A separable Hamiltonian given by callbacks ([`callback`]).
    Callback,
    /// A vector field `ẏ = f(t, y)` given by a callback ([`vector_field`]).
    VectorField,
    /// A rigid body on SO(3) with a potential written as a formula (the workbench's problem
    /// `system` with a `group`).
    Lie(LieSystemSpec),
}

/// A system to integrate: the workbench problem, from its own initial state, and its origin.
pub struct System {
    origin: Origin,
    problem: Box<dyn Problem>,
}

impl System {
    /// The catalogue problem `name` with `params`; the errors of [`catalogue::problem`] (an
    /// unknown name or parameter, a bad value).
    pub fn catalogue(name: &str, params: &[(String, f64)]) -> Result<Self, WorkbenchError> {
        let mut params = params.to_vec();
        params.sort_by(|a, b| a.0.cmp(&b.0));
        let problem = catalogue::problem(name, &params)?;
        Ok(Self { origin: Origin::Catalogue { name: name.into(), params }, problem })
    }

    /// `B` bodies of masses `masses` at `positions` with `velocities` (each `(values, shape)`,
    /// of shape `(B, 2)` or `(B, 3)`) under gravity with constant `g`: the workbench's
    /// [`Bodies`], any number of bodies.
    pub fn nbody(
        g: f64,
        masses: &[f64],
        positions: (&[f64], &[usize]),
        velocities: (&[f64], &[usize]),
    ) -> Result<Self, WorkbenchError> {
        let b = masses.len();
        let ((q, qs), (v, vs)) = (positions, velocities);
        if !(qs.len() == 2 && qs[0] == b && (qs[1] == 2 || qs[1] == 3) && q.len() == qs[0] * qs[1]) {
            return Err(input(format!(
                "positions must have shape ({b}, 2) or ({b}, 3), one row per mass, got shape {}",
                py_shape(qs)
            )));
        }
        if vs != qs || v.len() != q.len() {
            return Err(input(format!(
                "velocities must have the shape of the positions, {}, got shape {}",
                py_shape(qs),
                py_shape(vs)
            )));
        }
        Self::bodies(Bodies::new(g, masses.to_vec(), qs[1], q.to_vec(), v.to_vec())?)
    }

    /// The N-body system `bodies` (e.g. read by [`Bodies::read`]).
    pub fn bodies(bodies: Bodies) -> Result<Self, WorkbenchError> {
        let problem = bodies.problem()?;
        Ok(Self { origin: Origin::NBody(bodies), problem })
    }

    /// A free rigid body of inertia `inertia` (3 principal moments or 9 row-major entries) with
    /// body momentum `pi` and attitude `r` (9 row-major entries of a rotation, identity by
    /// default): [`lie::RigidBody::custom`].
    pub fn rigid_body(inertia: &[f64], pi: &[f64], r: Option<&[f64]>) -> Result<Self, WorkbenchError> {
        let body = lie::RigidBody::custom(&inertia_tensor(inertia)?, &lie_state(pi, r)?)?;
        Ok(Self { origin: Origin::Body, problem: Box::new(body) })
    }

    /// A heavy top of inertia `inertia` about the fixed point, weight times length `mgl` and
    /// body direction `chi` of the centre of mass, from `pi` and `r` as for
    /// [`System::rigid_body`]: [`lie::HeavyTopProblem::custom`].
    pub fn heavy_top(
        inertia: &[f64],
        mgl: f64,
        chi: &[f64],
        pi: &[f64],
        r: Option<&[f64]>,
    ) -> Result<Self, WorkbenchError> {
        let chi = vector3("chi", chi)?;
        let top = lie::HeavyTopProblem::custom(&inertia_tensor(inertia)?, mgl, &chi, &lie_state(pi, r)?)?;
        Ok(Self { origin: Origin::Body, problem: Box::new(top) })
    }

    /// A Hamiltonian system written as formulas ([`SystemSpec`], the format of
    /// `geomint run --system FILE.toml`): input errors start with `origin`.
    pub fn formula(spec: SystemSpec, origin: &str) -> Result<Self, WorkbenchError> {
        let problem = spec.problem(&[], origin)?;
        Ok(Self { origin: Origin::Formula(spec), problem })
    }

    /// A rigid body on SO(3) written as formulas ([`LieSystemSpec`], the format of
    /// `geomint run --system FILE.toml` with `group = "SO(3)"`): input errors start with `origin`.
    pub fn lie(spec: LieSystemSpec, origin: &str) -> Result<Self, WorkbenchError> {
        let problem = spec.problem(&[], origin)?;
        Ok(Self { origin: Origin::Lie(spec), problem })
    }

    /// A separable Hamiltonian given by callbacks: [`callback::CallbackSpec::problem`].
    pub fn callback(spec: &callback::CallbackSpec) -> Result<Self, WorkbenchError> {
        Ok(Self { origin: Origin::Callback, problem: spec.problem()? })
    }

    /// An ODE given by its vector field: [`vector_field::FieldSpec::problem`].
    pub fn vector_field(spec: &vector_field::FieldSpec) -> Result<Self, WorkbenchError> {
        Ok(Self { origin: Origin::VectorField, problem: spec.problem()? })
    }

    /// The workbench problem, from the system's own initial state.
    pub fn problem(&self) -> &dyn Problem {
        self.problem.as_ref()
    }

    /// Where the system comes from.
    pub fn origin(&self) -> &Origin {
        &self.origin
    }
}

/// A 3 × 3 inertia tensor from 3 principal moments or 9 row-major entries.
fn inertia_tensor(values: &[f64]) -> Result<Matrix3<f64>, WorkbenchError> {
    match values.len() {
        3 => Ok(Matrix3::from_diagonal(&Vector3::from_column_slice(values))),
        9 => Ok(Matrix3::from_row_slice(values)),
        n => Err(input(format!("inertia must be 3 principal moments or a 3 × 3 matrix, got {n} values"))),
    }
}

/// A 3-vector from 3 finite values.
fn vector3(what: &str, v: &[f64]) -> Result<Vector3<f64>, WorkbenchError> {
    if v.len() != 3 {
        return Err(input(format!("{what} must have 3 components, got {}", v.len())));
    }
    if !v.iter().all(|x| x.is_finite()) {
        return Err(input(format!("{what} must be finite")));
    }
    Ok(Vector3::from_column_slice(v))
}

/// The state `(R row-major, Π)` of an SO(3) body from `Π` and `R` (identity by default); `R` is
/// checked against SO(3) by the workbench.
fn lie_state(pi: &[f64], r: Option<&[f64]>) -> Result<Vec<f64>, WorkbenchError> {
    let pi = vector3("Pi", pi)?;
    let r = match r {
        None => vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        Some(r) if r.len() == 9 => r.to_vec(),
        Some(r) => return Err(input(format!("R must be a 3 × 3 rotation matrix, got {} values", r.len()))),
    };
    Ok(r.into_iter().chain(pi.iter().copied()).collect())
}

/// A shape as Python prints it: `(3,)`, `(64, 4)`.
pub fn py_shape(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

/// The resolved settings of a run or an ensemble: the method and the [`RunSpec`].
pub struct Plan {
    /// The method (the problem's first when none is given).
    pub method: String,
    /// Step, steps and sampling.
    pub spec: RunSpec,
}

/// Resolves the settings as `geomint run` does, in the same order and with the same messages:
/// the method (default: the problem's first, checked), then [`RunSpec::resolve`].
pub fn plan(
    system: &System,
    method: Option<&str>,
    h: Option<f64>,
    steps: Option<usize>,
    t_end: Option<f64>,
    every: Option<usize>,
) -> Result<Plan, WorkbenchError> {
    let p = system.problem();
    let method = method.map_or_else(|| p.methods()[0].to_string(), str::to_string);
    if *system.origin() == Origin::Callback {
        callback::check_method(&method)?;
    }
    problem::check_method(p, &method)?;
    let spec = RunSpec::resolve(p, h, steps, t_end, every)?;
    Ok(Plan { method, spec })
}

/// The outcome of [`ensemble()`] as arrays, row-major, one row per member.
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
    /// Errors of the quantities at the final state, `M × k`.
    pub errors: Vec<f64>,
    /// With `every`: the largest error over the samples, `M × k`.
    pub max_errors: Option<Vec<f64>>,
    /// The threads the members ran on.
    pub threads: usize,
    /// Wall time of the whole ensemble, seconds.
    pub wall_seconds: f64,
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
    let plan = plan(system, method, h, steps, None, every)?;
    let labels = system.problem().state_labels();
    let n = labels.len();
    if shape.len() != 2 || shape[1] != n {
        return Err(input(format!(
            "states of '{}' must be an array of shape (M, {n}), one row ({}) per member, got shape {}",
            system.problem().name(),
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

/// `steps` steps of `h` from every row of `states` (`shape = [M, n]`, row-major) in parallel:
/// [`experiment::ensemble`] on rayon's pool (or a pool of `threads` threads). `every` samples
/// the errors every `every` steps for `max_errors`. The first failing member (by index) is the
/// error, naming the member. Once `stop` is set the members stop at their next chunk of steps
/// and the ensemble is an error ([`experiment::ensemble_until`]).
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
    stop: Option<&AtomicBool>,
) -> Result<Ensemble, EnsembleError> {
    let plan = check_ensemble(system, method, h, steps, shape, every, threads)?;
    let n = shape[1];
    if states.len() != shape[0] * n {
        return Err(input(format!("states hold {} values, not {} × {n}", states.len(), shape[0])).into());
    }
    let rows: Vec<Vec<f64>> = states.chunks(n.max(1)).map(<[f64]>::to_vec).collect();
    let (p, h, steps) = (system.problem(), plan.spec.h, plan.spec.steps);
    let e = experiment::ensemble_until(p, &plan.method, h, steps, every, &rows, threads, stop)?;
    let k = e.quantities.len();
    let mut out = Ensemble {
        problem: e.problem,
        method: e.method,
        h: e.h,
        steps: e.steps,
        every: e.every,
        labels: e.labels,
        quantities: e.quantities,
        members: e.members.len(),
        states: Vec::with_capacity(rows.len() * n),
        errors: Vec::with_capacity(rows.len() * k),
        max_errors: every.map(|_| Vec::with_capacity(rows.len() * k)),
        threads: e.threads,
        wall_seconds: e.wall_seconds,
    };
    for (i, m) in e.members.into_iter().enumerate() {
        if let Some(source) = m.failure {
            return Err(EnsembleError { member: Some(i), source });
        }
        out.states.extend(m.state);
        out.errors.extend(m.errors);
        if let (Some(all), Some(max)) = (out.max_errors.as_mut(), m.max_errors) {
            all.extend(max);
        }
    }
    Ok(out)
}

/// The initial states of `geomint ensemble`: `members` perturbations of size `eps` of `state`
/// (default: the system's initial state) with `seed` ([`experiment::perturbed_states`]),
/// row-major `members × n`.
pub fn perturbed_states(
    system: &System,
    members: usize,
    eps: f64,
    seed: u64,
    state: Option<&[f64]>,
) -> Result<Vec<f64>, WorkbenchError> {
    let p = system.problem();
    let base = match state {
        Some(s) => s.to_vec(),
        None => p.initial_state()?,
    };
    Ok(experiment::perturbed_states(p, &base, members, eps, seed)?.concat())
}

/// The most threads an ensemble runs on: the machine's parallelism
/// (`integrators::driver::max_threads`); a larger `threads` is capped to it.
pub fn max_threads() -> usize {
    geomint::integrators::driver::max_threads()
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
        .map(|m| (m.name, format!("order {}, {}: {}", problem.order_of(m), m.structure.label(), m.summary)))
        .collect()
}

/// The family's short name: `canonical`, `lie-group`, `groupoid`, `ode`.
pub fn family_key(f: Family) -> &'static str {
    match f {
        Family::Canonical => "canonical",
        Family::LieGroup => "lie-group",
        Family::Groupoid => "groupoid",
        Family::Ode => "ode",
    }
}
