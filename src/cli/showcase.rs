//! The showcase (`geomint` with no command, or `geomint showcase`): the free rigid body with a
//! variational Lie-group method against classical Runge–Kutta methods.

use crate::cli::files::{json, with_output_dir, write_outputs};
use crate::cli::progress::progress;
use geomint::workbench::WorkbenchError;
use geomint::workbench::catalogue;
use geomint::workbench::experiment::{self, RunSpec};
use geomint::workbench::methods;
use geomint::workbench::output::{self, OutputSet};
use geomint::workbench::plot::{self, Axes, Series};
use std::path::Path;

/// The free rigid body with Hamilton–Pontryagin Störmer–Verlet (variational; docs/math.md §D.5) and
/// classical RK4 on the matrix entries side by side: the Casimir `|Π|²` and the distance from
/// SO(3) stay at round-off for the first and drift for the second.
pub(crate) fn showcase(out: &Path, quiet: bool) -> Result<(), WorkbenchError> {
    with_output_dir(out, || showcase_in(out, quiet))
}

/// Runs the three methods, prints the report, writes the files to `out`.
fn showcase_in(out: &Path, quiet: bool) -> Result<(), WorkbenchError> {
    let problem = catalogue::problem("rigid-body", &[])?;
    let (h, steps) = (0.1, 20_000);
    let methods = ["hp-sv", "rk2-embedded", "rk4-embedded"];
    let mut results = Vec::new();
    for m in methods {
        let spec = RunSpec::new(h, Some(steps), None, 20)?;
        let bar = progress(steps as u64, quiet, m);
        let r = experiment::run(problem.as_ref(), m, spec, &mut |n| bar.set_position(n as u64));
        bar.finish_and_clear();
        results.push(r?);
    }
    let names: Vec<&str> = results[0].quantities.iter().map(|q| q.name).collect();
    // the report's title and header are printed once, with the report (they were also printed
    // before the runs, twice in all)
    let mut report = String::new();
    report += &format!("# geomint showcase: the free rigid body\n\n{}\n\n", problem.summary());
    report += &format!(
        "h = {h}, {steps} steps (t = {}), sampled every 20 steps; largest error over the run:\n\n",
        h * steps as f64
    );
    report += &format!("| method | structure | {} | seconds |\n", names.join(" | "));
    report += &format!("|---|---|{}---|\n", "---|".repeat(names.len()));
    for r in &results {
        let info = methods::find(&r.method);
        let errs: Vec<String> = (0..names.len()).map(|i| format!("{:.2e}", r.max_error(i))).collect();
        report += &format!(
            "| {} | {} | {} | {:.3} |\n",
            r.method,
            info.map_or("?", |m| m.structure.label()),
            errs.join(" | "),
            r.wall_seconds
        );
    }
    let c = names.iter().position(|n| *n == "casimir").unwrap_or(1);
    let sp = &results[0];
    report += &format!("\nCasimir |Π|²: {} keeps it at round-off, {:.1e};", sp.method, sp.max_error(c));
    for rk in &results[1..] {
        // drift: the error of the last quarter of the run against the first quarter
        let quarter = |a: usize, b: usize| rk.samples[a..b].iter().map(|s| s.errors[c]).fold(0.0, f64::max);
        let n = rk.samples.len();
        report += &format!(
            " {} drifts to {:.1e} (first quarter {:.1e}, last quarter {:.1e});",
            rk.method,
            rk.max_error(c),
            quarter(1, n / 4),
            quarter(3 * n / 4, n)
        );
    }
    report.pop();
    report += ".\n";
    say!("{}", report.trim_end());

    let mut files = OutputSet::new();
    let mut series = Vec::new();
    for r in &results {
        files.add(&format!("{}-diagnostics.csv", r.method), output::diagnostics_csv(r));
        files.add(&format!("{}-summary.json", r.method), json(&output::run_summary(r)));
    }
    // one panel per quantity, one colour per method
    for (panel, quantity) in [("energy: relative error", "energy"), ("Casimir |Π|²: relative error", "casimir")] {
        for (m, r) in results.iter().enumerate() {
            if let Some(i) = r.quantities.iter().position(|q| q.name == quantity) {
                let points = r.samples.iter().map(|s| (s.t, s.errors[i])).collect();
                series.push(Series::new(r.method.clone(), points).panel(panel).hue(m));
            }
        }
    }
    let axes = Axes::new(format!("free rigid body, h = {h}: energy and Casimir errors"), "t", "relative error");
    files.add("showcase.svg", plot::svg(&axes, &series)?);
    files.add("report.md", report);
    write_outputs(files, out)
}
