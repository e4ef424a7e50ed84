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
use std::time::Instant;

/// The largest number of steps a run may take (10^10: hours for the cheapest method).
pub const MAX_STEPS: usize = 10_000_000_000;

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
    /// `steps` steps of `h`, or `round(t_end / h)` steps when `t_end` is given; input errors for a
    /// non-positive step, zero steps, `every = 0` or both `steps` and `t_end`.
    pub fn new(h: f64, steps: Option<usize>, t_end: Option<f64>, every: usize) -> Result<Self, WorkbenchError> {
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
}

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
    for _ in 0..n {
        sim.advance().map_err(|source| WorkbenchError::Step { step: sim.steps() + 1, t: sim.time(), source })?;
    }
    Ok(())
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
    let mut wall = 0.0;
    while sim.steps() < spec.steps {
        let n = spec.every.min(spec.steps - sim.steps());
        let t0 = Instant::now();
        advance(sim.as_mut(), n)?;
        wall += t0.elapsed().as_secs_f64();
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
        wall_seconds: wall,
    })
}

/// The state at `t_end = steps · h` (no sampling).
pub fn final_state(problem: &dyn Problem, method: &str, h: f64, steps: usize) -> Result<Vec<f64>, WorkbenchError> {
    let mut sim = problem::start(problem, method, h)?;
    advance(sim.as_mut(), steps)?;
    Ok(sim.state())
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
    Ok((y, format!("{method} with {steps} and {} steps, Richardson-extrapolated (order {p})", steps / 2)))
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
    sim.advance().map_err(|source| WorkbenchError::Step { step: 1, t: 0.0, source })?;
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
    /// Wall time of the steps, seconds.
    pub seconds: f64,
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

/// Each work–precision point is timed this many times; the median is reported.
pub const TIMING_REPEATS: usize = 3;

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
            // the same run TIMING_REPEATS times: the median wall time, the errors of the first
            // (the runs are deterministic, so their errors agree bit for bit)
            let mut times = [0.0f64; TIMING_REPEATS];
            let (mut solution_error, mut energy_error) = (0.0, 0.0f64);
            for (repeat, time) in times.iter_mut().enumerate() {
                let mut sim = problem::start(problem, m, h)?;
                let v0 = sim.quantities();
                let every = (n / 100).max(1);
                let (mut seconds, mut worst) = (0.0, 0.0f64);
                while sim.steps() < n {
                    let k = every.min(n - sim.steps());
                    let t0 = Instant::now();
                    advance(sim.as_mut(), k)?;
                    seconds += t0.elapsed().as_secs_f64();
                    if let Some(q) = &first {
                        worst = worst.max(q.error(&sim.quantities()[..q.dim], &v0[..q.dim]));
                    }
                }
                *time = seconds;
                if repeat == 0 {
                    (solution_error, energy_error) = (distance(&sim.state(), &y_ref), worst);
                }
            }
            times.sort_by(f64::total_cmp);
            let seconds = times[TIMING_REPEATS / 2];
            points.push(WorkPoint { h, steps: n, seconds, solution_error, energy_error });
            done += 1;
            progress(done);
        }
        curves.push(WorkCurve { method: m.clone(), points });
    }
    Ok(WorkPrecision { problem: problem.name().into(), t_end, reference: how, curves })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::catalogue;

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
}
