//! MEGNO and Poincaré sections of a [`System`] on `T*R^n` or on a Lie group's `T*G`
//! (`geomint.megno`, `geomint.poincare`):
//! the workbench's chaos tools ([`geomint::workbench::chaos`], the code of `geomint chaos` and
//! `geomint poincare`) over arrays of states.
//!
//! * [`megno`]: `⟨Y⟩_n = (1/n) Σ_{k≤n} Y_k`, `Y_k = (2/k) Σ_{j≤k} j ln(|δ_j|/|δ_{j−1}|)` of the
//!   deviation vector `δ` carried by the method's tangent map (→ 2 on a torus, ≈ `λt/2` on a
//!   chaotic orbit; Cincotta & Simó, *Simple tools to compute chaos indicators: the MEGNO*, 2000)
//!   and the finite-time Lyapunov estimate `ln|δ_n| / t_n`, for every row of an `(M, k)` array of
//!   `k` state coordinates (`2n` on `T*R^n`; `g` row-major then `μ` on `T*G`), in parallel;
//! * [`poincare`]: the crossings of a section `x_i = c` of one orbit.
//!
//! The system's [`PhaseSpace`] is the workbench's ([`catalogue::phase_space`], the check of the CLI
//! commands); a system without one (with constraints, of callbacks, an N-body system built from
//! data) is an input error that says which systems have one.

use crate::{Origin, System, label_list, plan, py_shape};
use geomint::workbench::WorkbenchError;
use geomint::workbench::catalogue;
use geomint::workbench::chaos::{PhaseSpace, Section};
use geomint::workbench::methods::{self, MethodInfo};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn input(msg: impl Into<String>) -> WorkbenchError {
    WorkbenchError::Input(msg.into())
}

/// The systems with a [`PhaseSpace`] besides the catalogue's, as the error messages name them.
const OTHER: &str = "a Hamiltonian of formulas (geomint.hamiltonian) or a system on a Lie group (geomint.lie_system, geomint.rigid_body, geomint.heavy_top)";

/// The system's [`PhaseSpace`], or an input error naming why it has none (`tool`: the Python
/// function, e.g. `geomint.megno`).
pub fn phase_space<'a>(system: &'a System, tool: &str) -> Result<&'a dyn PhaseSpace, WorkbenchError> {
    let p = system.problem();
    match system.origin() {
        Origin::Callback => Err(input(format!(
            "{tool} needs the system's Hamiltonian as formulas or a catalogue problem (its tangent map and energy \
             are computed by the workbench); a system of callbacks (geomint.Hamiltonian) has neither: write it \
             with geomint.hamiltonian(T=..., V=...)"
        ))),
        Origin::VectorField => Err(input(format!(
            "{tool} takes a Hamiltonian system on T*R^n; an ODE of callbacks (geomint.ode) has no energy or \
             canonical coordinates: write it with geomint.hamiltonian"
        ))),
        Origin::Catalogue { name, .. } => catalogue::phase_space(p, name, tool, OTHER),
        _ => catalogue::phase_space(p, p.name(), tool, OTHER),
    }
}

/// The MEGNO of every orbit of a map ([`megno`]), one entry per row of the states.
#[derive(Debug, Clone)]
pub struct MegnoMap {
    /// Problem name.
    pub problem: String,
    /// Method name.
    pub method: String,
    /// Step size.
    pub h: f64,
    /// Steps per orbit.
    pub steps: usize,
    /// State labels.
    pub labels: Vec<String>,
    /// `⟨Y⟩` of every orbit (NaN where it failed).
    pub mean: Vec<f64>,
    /// `ln|δ_n| / t_n` of every orbit (NaN where it failed).
    pub lyapunov: Vec<f64>,
    /// Whether the orbit's step failed (an escape, a Newton failure) or its values are not
    /// finite.
    pub failed: Vec<bool>,
    /// The threads the orbits ran on.
    pub threads: usize,
    /// Wall time of the whole map, seconds.
    pub wall_seconds: f64,
}

/// The settings of a [`megno`] over states of shape `shape`, checked as [`megno`] checks them
/// (same order, same messages), without running it: the system's phase space, the method and
/// `h`, `steps` (default: the system's final time over `h`) as `geomint run` resolves them, the
/// shape `(M, 2n)` and `threads ≥ 1`.
pub fn check_megno<'a>(
    system: &'a System,
    method: Option<&str>,
    h: Option<f64>,
    steps: Option<usize>,
    shape: &[usize],
    threads: Option<usize>,
) -> Result<(&'a dyn PhaseSpace, &'static MethodInfo, f64, usize), WorkbenchError> {
    let space = phase_space(system, "geomint.megno")?;
    let plan = plan(system, method, h, steps, None, None)?;
    let info = methods::find(&plan.method).ok_or_else(|| input(format!("no method '{}'", plan.method)))?;
    let labels = system.problem().state_labels();
    let n = labels.len();
    if shape.len() != 2 || shape[1] != n {
        return Err(input(format!(
            "states of '{}' must be an array of shape (M, {n}), one row ({}) per orbit, got shape {}",
            system.problem().name(),
            label_list(&labels),
            py_shape(shape)
        )));
    }
    if threads == Some(0) {
        return Err(input("threads must be at least 1, got 0"));
    }
    Ok((space, info, plan.spec.h, plan.spec.steps))
}

/// `⟨Y⟩` and the Lyapunov estimate after `steps` steps of `method` with step `h` from every row of
/// `states` (`shape = [M, 2n]`, row-major), in parallel on rayon's pool or a pool of `threads`
/// threads: [`PhaseSpace::megno`], the numbers of `geomint chaos` for the same states, bit for bit.
/// A row with a non-finite value is an input error naming the row; an orbit whose step fails is
/// marked in [`MegnoMap::failed`]. Once `stop` is set the orbits end at their next chunk of steps
/// and the result is [`WorkbenchError::Stopped`].
#[allow(clippy::too_many_arguments)]
pub fn megno(
    system: &System,
    method: Option<&str>,
    h: Option<f64>,
    steps: Option<usize>,
    states: &[f64],
    shape: &[usize],
    threads: Option<usize>,
    stop: Option<&AtomicBool>,
) -> Result<MegnoMap, WorkbenchError> {
    let (space, info, h, steps) = check_megno(system, method, h, steps, shape, threads)?;
    let n = shape[1];
    if states.len() != shape[0] * n {
        return Err(input(format!("states hold {} values, not {} × {n}", states.len(), shape[0])));
    }
    let rows: Vec<Vec<f64>> = states.chunks(n.max(1)).map(<[f64]>::to_vec).collect();
    if let Some((i, row)) = rows.iter().enumerate().find(|(_, r)| r.iter().any(|v| !v.is_finite())) {
        return Err(input(format!("states row {i}: every coordinate must be finite, got {row:?}")));
    }
    let t0 = Instant::now();
    let work = || (space.megno(info, h, steps, &rows, stop), rayon::current_num_threads());
    let (values, threads) = match threads {
        None => work(),
        Some(k) => geomint::integrators::driver::with_threads(k, work).map_err(|e| input(format!("threads: {e}")))?,
    };
    let values = values?;
    let wall_seconds = t0.elapsed().as_secs_f64();
    Ok(MegnoMap {
        problem: system.problem().name().into(),
        method: info.name.into(),
        h,
        steps,
        labels: system.problem().state_labels(),
        mean: values.iter().map(|v| v.map_or(f64::NAN, |v| v.mean)).collect(),
        lyapunov: values.iter().map(|v| v.map_or(f64::NAN, |v| v.lyapunov)).collect(),
        failed: values.iter().map(Option::is_none).collect(),
        threads,
        wall_seconds,
    })
}

/// The crossings of one orbit with a section ([`poincare`]).
#[derive(Debug, Clone)]
pub struct Crossings {
    /// Problem name.
    pub problem: String,
    /// Method name.
    pub method: String,
    /// Step size.
    pub h: f64,
    /// State labels.
    pub labels: Vec<String>,
    /// The section.
    pub section: Section,
    /// The initial state.
    pub state: Vec<f64>,
    /// The times of the crossings.
    pub t: Vec<f64>,
    /// The states at the crossings, row-major, one row per crossing.
    pub states: Vec<f64>,
    /// The energy `H` at every crossing.
    pub energy: Vec<f64>,
    /// The energy of the initial state.
    pub energy0: f64,
    /// The steps the search may take.
    pub max_steps: usize,
}

/// The bounds of [`poincare`]'s `count` and `max_steps`: each at least 1 and at most
/// [`MAX_STEPS`](geomint::workbench::experiment::MAX_STEPS), the steps of the longest run (a step
/// crosses a section once at most, so more crossings than that cannot be found).
pub fn check_counts(count: usize, max_steps: Option<usize>) -> Result<(), WorkbenchError> {
    let most = geomint::workbench::experiment::MAX_STEPS;
    for (what, k) in [("count", Some(count)), ("max_steps", max_steps)] {
        match k {
            Some(0) => return Err(input(format!("{what} must be at least 1, got 0"))),
            Some(k) if k > most => {
                return Err(input(format!("{what} = {k} is more than {most}, the most steps of a run")));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The first `count` crossings of the section `section` (`NAME=VALUE`, a state label; default:
/// the first coordinate at 0 on `T*R^n`, the first momentum at 0 on `T*G`) in `direction` (`up`,
/// `down`, `both`) by the orbit of `method` with step `h` (default: the system's) from `state`
/// (default: the system's own), within `max_steps` steps (default `⌈50 count / h⌉`,
/// `geomint poincare`'s `--t-max`): [`PhaseSpace::section`], the crossings of `geomint poincare`
/// for the same inputs. Fewer are
/// returned if the steps run out. [`WorkbenchError::Stopped`] once `stop` is set.
#[allow(clippy::too_many_arguments)]
pub fn poincare(
    system: &System,
    method: Option<&str>,
    h: Option<f64>,
    state: Option<&[f64]>,
    section: Option<&str>,
    direction: &str,
    count: usize,
    max_steps: Option<usize>,
    stop: Option<&AtomicBool>,
) -> Result<Crossings, WorkbenchError> {
    let p = system.problem();
    let space = phase_space(system, "geomint.poincare")?;
    let plan = plan(system, method, h, Some(1), None, None)?;
    let info = methods::find(&plan.method).ok_or_else(|| input(format!("no method '{}'", plan.method)))?;
    let h = plan.spec.h;
    let labels = p.state_labels();
    // the first coordinate on T*R^n, the first momentum on T*G (Pi1, mu1)
    let default = format!("{}=0", labels[space.layout().default_section()]);
    let section = Section::parse(section.unwrap_or(&default), direction, &labels)
        .map_err(|e| input(e.to_string().replace("--section", "section").replace("--direction", "direction")))?;
    check_counts(count, max_steps)?;
    let max_steps = match max_steps {
        Some(k) => k,
        None => {
            let t_max = 50.0 * count as f64;
            let k = (t_max / h).ceil();
            if k > geomint::workbench::experiment::MAX_STEPS as f64 {
                return Err(input(format!("{count} crossings at h = {h} need {k:e} steps by default; give max_steps")));
            }
            k as usize
        }
    };
    let x0 = match state {
        Some(s) => s.to_vec(),
        None => p.initial_state()?,
    };
    if x0.len() != labels.len() || x0.iter().any(|v| !v.is_finite()) {
        return Err(input(format!(
            "state of '{}' must be {} finite coordinates ({}), got {x0:?}",
            p.name(),
            labels.len(),
            label_list(&labels)
        )));
    }
    let found = space.section(info, h, &x0, &section, count, max_steps, stop)?;
    let energy = found.iter().map(|c| space.energy(&c.state)).collect::<Result<Vec<_>, _>>()?;
    Ok(Crossings {
        problem: p.name().into(),
        method: info.name.into(),
        h,
        labels,
        section,
        energy0: space.energy(&x0)?,
        state: x0,
        t: found.iter().map(|c| c.t).collect(),
        states: found.into_iter().flat_map(|c| c.state).collect(),
        energy,
        max_steps,
    })
}
