//! `geomint convergence`: the measured order of a method, a table of global errors and slopes over
//! halved steps, and an error-vs-h plot.

use crate::cli::args::ConvergenceArgs;
use crate::cli::files::{json, with_output_dir, write_outputs};
use crate::cli::progress::progress;
use crate::cli::sweep::{Sweep, sweep_config};
use geomint::workbench::WorkbenchError;
use geomint::workbench::experiment;
use geomint::workbench::output::OutputSet;
use geomint::workbench::plot::{self, Axes, Series};
use geomint::workbench::problem::Problem;
use std::path::{Path, PathBuf};

/// `geomint convergence PROBLEM --method M`: the sweep into its output directory.
pub(crate) fn convergence(args: ConvergenceArgs, quiet: bool) -> Result<(), WorkbenchError> {
    let Sweep { problem, t_end, counts } = args.sweep.resolve(std::slice::from_ref(&args.method))?;
    let name = &args.sweep.problem;
    let out =
        args.sweep.out.clone().unwrap_or_else(|| PathBuf::from(format!("runs/{name}-{}-convergence", args.method)));
    with_output_dir(&out, || convergence_in(&args, problem.as_ref(), t_end, &counts, &out, quiet))
}

/// Runs the sweep, prints the table and the measured order, writes the files to `out`.
fn convergence_in(
    args: &ConvergenceArgs,
    problem: &dyn Problem,
    t_end: f64,
    counts: &[usize],
    out: &Path,
    quiet: bool,
) -> Result<(), WorkbenchError> {
    let name = &args.sweep.problem;
    let bar = progress(counts.len() as u64, quiet, &format!("{name} / {}", args.method));
    let table = experiment::convergence(problem, &args.method, t_end, counts, &mut |n| bar.set_position(n as u64));
    bar.finish_and_clear();
    let table = table?;
    say!(
        "{}: order of {} (nominal {}) at t = {t_end}, reference: {}",
        table.problem,
        table.method,
        table.nominal_order,
        table.reference
    );
    say!("  {:>12} {:>8} {:>12} {:>8}", "h", "steps", "error", "slope");
    let mut csv = String::from("h,steps,error,slope\n");
    for r in &table.rows {
        let slope = r.slope.map_or("-".into(), |s| format!("{s:.3}"));
        say!("  {:>12.4e} {:>8} {:>12.3e} {:>8}", r.h, r.steps, r.error, slope);
        csv += &format!("{:e},{},{:e},{}\n", r.h, r.steps, r.error, r.slope.map_or(String::new(), |s| format!("{s}")));
    }
    match table.measured_order() {
        Some(p) => say!("  measured order {p:.2} (errors below the round-off floor {:.0e} excluded)", table.floor),
        None => say!("  no measured order: the errors are at round-off ({:.0e}); try a larger --h", table.floor),
    }
    let points: Vec<(f64, f64)> = table.rows.iter().map(|r| (r.h, r.error)).collect();
    let mut series = vec![Series::new(args.method.clone(), points.clone())];
    series.extend(plot::slope_line(&points, f64::from(table.nominal_order), table.floor));
    let unit = plot::time_unit(name);
    let at = unit.map_or(format!("{t_end}"), |u| format!("{t_end} {u}"));
    let axes = Axes::new(format!("{name}: global error at t = {at}"), "h", "absolute error |y_h − y_ref|")
        .log_x()
        .x_unit(unit);
    let mut files = OutputSet::new();
    files.add(
        "config.toml",
        sweep_config("convergence", &args.sweep, std::slice::from_ref(&args.method), t_end, counts)?,
    );
    files.add("convergence.csv", csv);
    files.add("convergence.json", json(&serde_json::to_value(&table).unwrap_or_default()));
    files.add("convergence.svg", plot::svg(&axes, &series)?);
    write_outputs(files, out)
}
