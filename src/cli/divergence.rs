//! The exit status of a run or an ensemble whose monitored invariants lost all accuracy
//! ([`geomint::workbench::divergence`]): 3, with one line on stderr naming the quantities and
//! their errors, unless `--accept-divergent`.

use geomint::workbench::divergence::{self, Divergence};
use geomint::workbench::experiment::Ensemble;
use geomint::workbench::problem::{self, Problem};
use std::process::ExitCode;

/// The exit status of a run (or an ensemble) that diverged, without `--accept-divergent`.
pub(crate) const EXIT_DIVERGED: u8 = 3;

/// The quantities and their errors, `energy error 9.766e30, casimir error NaN`.
fn list(d: &[Divergence]) -> String {
    d.iter().map(Divergence::to_string).collect::<Vec<_>>().join(", ")
}

/// Why the errors count as divergence, and the exit status, for the end of the line.
fn why(accept: bool) -> String {
    let rule =
        format!("a relative error of {} or more, or a non-finite one, leaves no correct digit", divergence::THRESHOLD);
    if accept {
        format!("({rule}); exit status 0 with --accept-divergent")
    } else {
        format!("({rule}); exit status {EXIT_DIVERGED}, or 0 with --accept-divergent")
    }
}

/// The exit status of a completed run whose diverged quantities are `diverged`: 0 if none, else
/// one line on stderr and status [`EXIT_DIVERGED`] (0 and a warning with `accept`).
pub(crate) fn run_status(diverged: &[Divergence], accept: bool) -> ExitCode {
    if diverged.is_empty() {
        return ExitCode::SUCCESS;
    }
    let (level, code) = if accept { ("warning", 0) } else { ("error", EXIT_DIVERGED) };
    eprintln!("{level}: the run diverged: {} {}", list(diverged), why(accept));
    ExitCode::from(code)
}

/// The diverged quantities of each member of `e` (empty for most), `problem` being the problem
/// the members were perturbed from and `states` their initial states: the member's largest
/// sampled error, or NaN where its final one is NaN.
pub(crate) fn of_members(e: &Ensemble, problem: &dyn Problem, states: &[Vec<f64>]) -> Vec<Vec<Divergence>> {
    e.members
        .iter()
        .zip(states)
        .map(|(m, state)| {
            let errors: Vec<f64> = m
                .errors
                .iter()
                .enumerate()
                .map(|(j, &last)| {
                    let max = m.max_errors.as_ref().map_or(last, |v| v[j]);
                    if last.is_nan() || max.is_nan() { f64::NAN } else { max.max(last) }
                })
                .collect();
            // the member's initial values decide which errors are relative; they are computed
            // only for a member with a candidate (an error of 1 or more)
            if errors.iter().all(|e| e.is_finite() && *e < divergence::THRESHOLD) {
                return Vec::new();
            }
            let v0 = problem
                .with_state(state)
                .and_then(|p| problem::start(p.as_ref(), &e.method, e.h).map(|sim| sim.quantities()))
                .unwrap_or_default();
            divergence::of_errors(&e.quantities, &v0, &errors)
        })
        .collect()
}

/// The exit status of an ensemble none of whose members failed, `diverged` holding each
/// member's diverged quantities: 0 if none diverged, else one line on stderr and status
/// [`EXIT_DIVERGED`] (0 and a warning with `accept`).
pub(crate) fn ensemble_status(diverged: &[Vec<Divergence>], accept: bool) -> ExitCode {
    let Some((i, first)) = diverged.iter().enumerate().find(|(_, d)| !d.is_empty()) else {
        return ExitCode::SUCCESS;
    };
    let count = diverged.iter().filter(|d| !d.is_empty()).count();
    let (level, code) = if accept { ("warning", 0) } else { ("error", EXIT_DIVERGED) };
    eprintln!("{level}: {count} of {} members diverged; member {i}: {} {}", diverged.len(), list(first), why(accept));
    ExitCode::from(code)
}
