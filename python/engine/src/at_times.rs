//! The solution at given times (`geomint.solve_hamiltonian(..., t_eval=...)`): one run of a
//! fixed-step method, read at any sorted times of its interval.
//!
//! The run takes steps `h` from `t0`; the time `t0 + τ`, with `τ = k h + r`, `0 ≤ r < h`, is
//! reached from the state `y_k` after `k` steps by one step of the same method of size `r`
//! (started afresh from `y_k`, so the run itself goes on from the grid; no interpolation). A time
//! on the grid (`r ≤ 10⁻¹² h`) is the run's state itself. The whole grid is one run: `n` times
//! cost `steps` steps plus at most `n` side steps, not `n` runs.

use crate::simulation::{RunError, check_room};
use crate::{System, plan};
use geomint::workbench::WorkbenchError;
use geomint::workbench::methods;
use geomint::workbench::problem::Simulation;
use std::sync::atomic::{AtomicBool, Ordering};

/// The states and quantity values at the requested times, row-major, one row per time, and the
/// quantities at the start (the reference of their errors).
#[derive(Debug, Clone)]
pub struct AtTimes {
    /// States, `times × coordinates`.
    pub states: Vec<f64>,
    /// Quantity values, `times × values`.
    pub values: Vec<f64>,
    /// Quantity values at `t0`.
    pub first: Vec<f64>,
    /// Coordinates per state.
    pub coordinates: usize,
    /// Values per row.
    pub width: usize,
}

fn input(msg: impl Into<String>) -> WorkbenchError {
    WorkbenchError::Input(msg.into())
}

fn step(sim: &mut dyn Simulation, n: usize) -> Result<(), WorkbenchError> {
    sim.advance_by(n).map_err(|source| WorkbenchError::Step { step: sim.steps() + 1, t: sim.time(), source })
}

/// `method` with the step `h` for `steps` steps from `state` (default: the system's own), read at
/// the offsets `taus` from the start (sorted, finite, in `[0, steps·h]`). `Ok(None)` when `stop`
/// was set (it is read between the times and every 4096 steps).
pub fn at_times(
    system: &System,
    method: &str,
    h: f64,
    steps: usize,
    state: Option<&[f64]>,
    taus: &[f64],
    stop: &AtomicBool,
) -> Result<Option<AtTimes>, RunError> {
    let plan = plan(system, Some(method), Some(h), Some(steps), None, Some(steps.max(1)))?;
    let info = methods::find(&plan.method).ok_or_else(|| input(format!("no method '{}'", plan.method)))?;
    let base = system.problem();
    let problem = match state {
        Some(s) => base.with_state(s)?,
        None => base.with_state(&base.initial_state()?)?,
    };
    let end = steps as f64 * h;
    if let Some(bad) = taus.windows(2).position(|w| w[1] < w[0]) {
        return Err(input(format!("t_eval must be sorted: t_eval[{}] > t_eval[{}]", bad, bad + 1)).into());
    }
    if let Some(i) = taus.iter().position(|t| !(t.is_finite() && *t >= 0.0 && *t <= end * (1.0 + 1e-12))) {
        return Err(input(format!("t_eval[{i}] is outside t_span")).into());
    }
    let coordinates = problem.state_labels().len();
    let width: usize = problem.quantities().iter().map(|q| q.dim).sum();
    check_room(taus.len(), coordinates, width, 0, 1)?;
    let mut sim = problem.start_method(info, plan.spec.h)?;
    let first = sim.quantities();
    let mut out = AtTimes {
        states: Vec::with_capacity(taus.len() * coordinates),
        values: Vec::with_capacity(taus.len() * width),
        first,
        coordinates,
        width,
    };
    const CHUNK: usize = 4096;
    for &tau in taus {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let k = ((tau / h + 1e-9).floor() as usize).min(steps);
        while sim.steps() < k {
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let n = (k - sim.steps()).min(CHUNK);
            step(sim.as_mut(), n)?;
        }
        let rest = tau - k as f64 * h;
        if rest > 1e-12 * h {
            let mut side = problem.with_state(&sim.state())?.start_method(info, rest)?;
            step(side.as_mut(), 1).map_err(|e| match e {
                WorkbenchError::Step { source, .. } => WorkbenchError::Step { step: k + 1, t: k as f64 * h, source },
                e => e,
            })?;
            out.states.extend(side.state());
            out.values.extend(side.quantities());
        } else {
            out.states.extend(sim.state());
            out.values.extend(sim.quantities());
        }
    }
    Ok(Some(out))
}
