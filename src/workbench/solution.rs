//! The solution error that `geomint run` reports: against the problem's exact solution where it
//! has one (the largest error over the samples and the final one), else, when asked for
//! (`geomint run --reference`), against a reference solution computed at the run's final time, as
//! `convergence` and `compare` compute it ([`experiment::reference`]), when that reference
//! costs at most [`methods::RUN_REFERENCE_MAX_STEPS`] DOP853 steps or
//! [`methods::RUN_RICHARDSON_MAX_STEPS`] steps of the problem's reference method; else "not
//! available", with the reason. Every case is named: the report never leaves the solution error
//! blank.
//!
//! A computed reference is not taken by default because it costs more than the run it checks:
//! DOP853 at rtol = atol = 10⁻¹⁵ takes 12 evaluations of the vector field per step and many more
//! steps than a run at its working accuracy (82 % of the time of `geomint run outer-solar-system`
//! when it was taken by default), and the Richardson extrapolation runs the reference method at
//! `h/d` and `2h/d`, `1.5·d` times the run's steps.

use crate::workbench::experiment::{self, RunResult};
use crate::workbench::methods;
use crate::workbench::problem::{Family, Problem};

/// How the solution error of a run was measured.
#[derive(Debug, Clone, PartialEq)]
pub enum SolutionError {
    /// Against the exact solution, at every sample.
    Exact {
        /// The largest error over the samples.
        max: f64,
        /// The error at the last sample.
        last: f64,
    },
    /// Against a reference computed at the final time only.
    Reference {
        /// `|y(T) − y_ref(T)|` at the final time `T`.
        last: f64,
        /// How the reference was computed (its method, steps and tolerance).
        how: String,
    },
    /// Not measured.
    Unavailable {
        /// Why (no reference affordable, the run did not complete, …).
        reason: String,
    },
}

impl SolutionError {
    /// The error at the final time, where measured.
    pub fn last(&self) -> Option<f64> {
        match self {
            SolutionError::Exact { last, .. } | SolutionError::Reference { last, .. } => Some(*last),
            SolutionError::Unavailable { .. } => None,
        }
    }
    /// What the error is measured against, in one line: `exact solution`, `reference: HOW`, or
    /// `n/a (no reference: WHY)`.
    pub fn against(&self) -> String {
        match self {
            SolutionError::Exact { .. } => "exact solution".into(),
            SolutionError::Reference { how, .. } => format!("reference: {how}"),
            SolutionError::Unavailable { reason } => format!("n/a (no reference: {reason})"),
        }
    }
}

/// The solution error of `result`, a run of `problem` that `completed` (or stopped early, when
/// no reference is computed: a reference at an interrupted run's time would only delay the
/// exit). Without an exact solution, a reference is computed only if `reference` (else the error
/// is not available, and the reason says how to ask for it). Canonical problems without an exact
/// solution get the DOP853 reference
/// ([`methods::DOP853_RUN_REFERENCE`], at most [`methods::RUN_REFERENCE_MAX_STEPS`] steps);
/// Lie-group and groupoid problems the Richardson extrapolation of their reference method at
/// `h/d` and `2h/d` ([`experiment::richardson_reference`]) when its two runs take at most
/// [`methods::RUN_RICHARDSON_MAX_STEPS`] steps together.
pub fn of_run(problem: &dyn Problem, result: &RunResult, completed: bool, reference: bool) -> SolutionError {
    if let Some(max) = result.max_solution_error() {
        let last = result.samples.last().and_then(|s| s.solution_error).unwrap_or(max);
        return SolutionError::Exact { max, last };
    }
    let unavailable = |reason: String| SolutionError::Unavailable { reason };
    let Some(last) = result.samples.last() else {
        return unavailable("no samples".into());
    };
    if !completed {
        return unavailable("the run did not reach its target; a completed run gets one".into());
    }
    let (t_end, steps) = (last.t, last.step);
    if steps == 0 {
        return unavailable("the run took no steps".into());
    }
    if !reference {
        let how = if problem.family() == Family::Canonical {
            format!("DOP853 at rtol = atol = {:e}", methods::REFERENCE_TOLERANCE)
        } else {
            "a Richardson extrapolation of the problem's reference method".to_string()
        };
        return unavailable(format!(
            "no exact solution; `--reference` computes one ({how}), which costs more than the run"
        ));
    }
    let reference = if problem.family() == Family::Canonical {
        problem
            .start_method(&methods::DOP853_RUN_REFERENCE, t_end)
            .and_then(|mut sim| {
                sim.advance_by(1).map_err(crate::workbench::WorkbenchError::Geom)?;
                Ok(sim.state())
            })
            .map(|y| {
                let tol = methods::REFERENCE_TOLERANCE;
                (y, format!("DOP853 (adaptive Dormand–Prince 8(5,3), rtol = atol = {tol:e}) to t = {t_end}"))
            })
            .map_err(|e| format!("DOP853 to t = {t_end} stopped: {e}"))
    } else {
        let (method, divisor) = problem.reference();
        let cost = steps.saturating_mul(divisor).saturating_mul(3) / 2;
        let budget = methods::RUN_RICHARDSON_MAX_STEPS;
        if cost > budget {
            return unavailable(format!(
                "{method} at h/{divisor} would take {cost} steps, more than {budget}; `geomint convergence` \
                 measures the error on shorter runs"
            ));
        }
        experiment::richardson_reference(problem, t_end, t_end / steps as f64).map_err(|e| e.to_string())
    };
    match reference {
        Ok((y, how)) => SolutionError::Reference { last: experiment::distance(&last.state, &y), how },
        Err(reason) => unavailable(reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::catalogue;
    use crate::workbench::experiment::RunSpec;

    fn run(name: &str, steps: usize) -> (Box<dyn Problem>, RunResult) {
        let p = catalogue::problem(name, &[]).unwrap();
        let spec = RunSpec::new(p.defaults().0, Some(steps), None, 10).unwrap();
        let r = experiment::run(p.as_ref(), p.methods()[0], spec, &mut |_| {}).unwrap();
        (p, r)
    }

    /// Exact where the problem has an exact solution; against the same reference as the
    /// experiments' otherwise (the error is the distance to it); not measured for a run that
    /// did not complete or whose reference would cost more than the budget, with the reason.
    #[test]
    fn exact_reference_or_unavailable() {
        let (p, r) = run("kepler", 100);
        let SolutionError::Exact { max, last } = of_run(p.as_ref(), &r, true, true) else { panic!("kepler is exact") };
        assert_eq!(Some(max), r.max_solution_error());
        assert_eq!(Some(last), r.samples.last().unwrap().solution_error);

        for name in ["pendulum", "rigid-body", "spherical-pendulum"] {
            let (p, r) = run(name, 200);
            let got = of_run(p.as_ref(), &r, true, true);
            let last = r.samples.last().unwrap();
            let (y, how) = experiment::reference(p.as_ref(), last.t, last.t / 200.0).unwrap();
            let SolutionError::Reference { last: e, how: h } = &got else { panic!("{name}: {got:?}") };
            assert_eq!(
                (*e, h.as_str()),
                (experiment::distance(&last.state, &y), how.split("; DOP853 does").next().unwrap())
            );
            assert!(got.against().starts_with("reference: "), "{name}");
            let stopped = of_run(p.as_ref(), &r, false, true);
            assert!(stopped.last().is_none() && stopped.against().starts_with("n/a (no reference: "), "{name}");
        }

        // over the budgets: Richardson by its step count, DOP853 by its own step limit
        let (p, r) = run("rigid-body", 16_667);
        let got = of_run(p.as_ref(), &r, true, true);
        assert!(got.against().contains("more than 200000"), "{got:?}");
        let (p, mut r) = run("pendulum", 10);
        let last = r.samples.last_mut().unwrap();
        (last.step, last.t) = (100_000_000, 1e7);
        let got = of_run(p.as_ref(), &r, true, true);
        assert!(got.last().is_none() && got.against().contains("1000000 steps"), "{got:?}");
    }

    /// Without `reference`, only an exact solution is measured: a problem without one says how
    /// to ask for its reference.
    #[test]
    fn a_reference_is_computed_only_when_asked_for() {
        let (p, r) = run("kepler", 100);
        assert!(matches!(of_run(p.as_ref(), &r, true, false), SolutionError::Exact { .. }));
        for name in ["pendulum", "rigid-body"] {
            let (p, r) = run(name, 200);
            let got = of_run(p.as_ref(), &r, true, false);
            assert!(got.last().is_none() && got.against().contains("`--reference`"), "{name}: {got:?}");
            assert!(of_run(p.as_ref(), &r, true, true).last().is_some(), "{name}");
        }
    }
}
