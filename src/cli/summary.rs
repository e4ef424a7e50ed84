//! The summary a run prints: the method and step, then the largest and final error of each
//! monitored quantity and the solution error.

use crate::cli::format::short;
use geomint::workbench::experiment::RunResult;
use geomint::workbench::methods;
use geomint::workbench::problem::Problem;
use geomint::workbench::solution::SolutionError;

/// Prints the summary of run `r` of `problem` (to stdout).
pub(crate) fn print_run_summary(problem: &dyn Problem, r: &RunResult, compensated: bool, solution: &SolutionError) {
    let info = methods::find(&r.method);
    say!(
        "{} — {} with {} (order {}, {}{}), h = {}, {} steps to t = {}, {:.3} s",
        r.problem,
        problem.summary(),
        r.method,
        info.map_or(0, |m| problem.order_of(m)),
        info.map_or("?", |m| m.structure.label()),
        if compensated { ", compensated summation" } else { "" },
        short(r.spec.h),
        r.spec.steps,
        short(r.samples.last().map_or(0.0, |s| s.t)),
        r.wall_seconds
    );
    say!("  {:<22} {:<52} {:>12} {:>12}", "quantity", "formula", "max error", "final error");
    for (i, q) in r.quantities.iter().enumerate() {
        say!("  {:<22} {:<52} {:>12.3e} {:>12.3e}", q.name, q.formula, r.max_error(i), r.final_error(i));
    }
    match solution {
        SolutionError::Exact { max, last } => {
            say!("  {:<22} {:<52} {:>12.3e} {:>12.3e}", "solution", "|y(t) − y_exact(t)|", max, last);
        }
        SolutionError::Reference { last, how } => {
            say!("  {:<22} {:<52} {:>12} {:>12.3e}", "solution", "|y(t) − y_ref(t)| at the final t only", "-", last);
            say!("  {:<22} (against a computed reference: {how})", "");
        }
        SolutionError::Unavailable { reason } => {
            say!("  {:<22} {:<52} {:>12} {:>12}", "solution", "|y(t) − y_ref(t)|", "n/a", "n/a");
            say!("  {:<22} (n/a: no reference; {reason})", "");
        }
    }
}
