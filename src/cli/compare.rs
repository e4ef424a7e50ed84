//! `geomint compare`: work–precision of several methods, wall time against the solution error
//! and the error of the problem's first monitored quantity.

use crate::cli::args::CompareArgs;
use crate::cli::files::{json, with_output_dir, write_outputs};
use crate::cli::progress::progress;
use crate::cli::sweep::{Sweep, sweep_config};
use geomint::workbench::WorkbenchError;
use geomint::workbench::experiment;
use geomint::workbench::output::OutputSet;
use geomint::workbench::plot::{self, Axes, Line, Marker, Series};
use geomint::workbench::problem::Problem;
use std::path::{Path, PathBuf};

/// `geomint compare PROBLEM --methods A,B,…`: the sweep of each method into one output directory
/// (a method listed twice is an input error).
pub(crate) fn compare(args: CompareArgs, quiet: bool) -> Result<(), WorkbenchError> {
    if let Some((i, m)) = args.methods.iter().enumerate().find(|(i, m)| args.methods[..*i].contains(m)) {
        return Err(WorkbenchError::Input(format!(
            "--methods lists '{m}' twice (positions {} and {}); list each method once",
            args.methods.iter().position(|x| x == m).map_or(0, |p| p + 1),
            i + 1
        )));
    }
    let Sweep { problem, t_end, counts } = args.sweep.resolve(&args.methods)?;
    let out = args.sweep.out.clone().unwrap_or_else(|| PathBuf::from(format!("runs/{}-compare", args.sweep.problem)));
    with_output_dir(&out, || compare_in(&args, problem.as_ref(), t_end, &counts, &out, quiet))
}

/// Runs the sweeps, prints the work–precision table, writes the files to `out`.
fn compare_in(
    args: &CompareArgs,
    problem: &dyn Problem,
    t_end: f64,
    counts: &[usize],
    out: &Path,
    quiet: bool,
) -> Result<(), WorkbenchError> {
    let name = &args.sweep.problem;
    let bar = progress((counts.len() * args.methods.len()) as u64, quiet, &format!("{name} compare"));
    let wp = experiment::compare(problem, &args.methods, t_end, counts, &mut |n| bar.set_position(n as u64));
    bar.finish_and_clear();
    let wp = wp?;
    say!("{}: work–precision at t = {t_end}, reference: {}", wp.problem, wp.reference);
    // the last column is the error of the problem's first monitored quantity, named after it
    let quantity = problem.quantities().first().map_or("energy", |q| q.name);
    let column = format!("{quantity} err");
    say!(
        "  {:<20} {:>11} {:>8} {:>11} {:>7} {:>12} {:>12}",
        "method",
        "h",
        "steps",
        "seconds",
        "spread",
        "sol. error",
        column
    );
    let mut csv = format!("method,h,steps,seconds,solution_error,{quantity}_error,seconds_spread,runs\n");
    for c in &wp.curves {
        for p in &c.points {
            say!(
                "  {:<20} {:>11.4e} {:>8} {:>11.3e} {:>6.0}% {:>12.3e} {:>12.3e}",
                c.method,
                p.h,
                p.steps,
                p.seconds,
                100.0 * p.seconds_spread,
                p.solution_error,
                p.energy_error
            );
            csv += &format!(
                "{},{:e},{},{:e},{:e},{:e},{:e},{}\n",
                c.method, p.h, p.steps, p.seconds, p.solution_error, p.energy_error, p.seconds_spread, p.runs
            );
        }
    }
    // one colour per method; the solution error (absolute) solid with discs, the largest error of
    // the first quantity (relative but for a constraint) dashed with squares, each in its panel
    let first = problem
        .quantities()
        .first()
        .map_or(("energy", true), |q| (q.name, q.kind != geomint::workbench::problem::Kind::Constraint));
    let first_panel = format!("{}: {} error", first.0, if first.1 { "relative" } else { "absolute" });
    let mut series: Vec<Series> = Vec::new();
    for (m, c) in wp.curves.iter().enumerate() {
        let at = |e: fn(&experiment::WorkPoint) -> f64| c.points.iter().map(|p| (p.seconds.max(1e-9), e(p))).collect();
        series.push(
            Series::new(format!("{} solution", c.method), at(|p| p.solution_error))
                .panel("solution: absolute error")
                .hue(m),
        );
        series.push(
            Series::new(format!("{} {}", c.method, first.0), at(|p| p.energy_error))
                .panel(first_panel.clone())
                .hue(m)
                .line(Line::Dashed)
                .marker(Marker::Square),
        );
    }
    let unit = plot::time_unit(name);
    let at = unit.map_or(format!("{t_end}"), |u| format!("{t_end} {u}"));
    let axes = Axes::new(format!("{name}: work–precision at t = {at}"), "wall time", "error").log_x().x_unit(Some("s"));
    let mut files = OutputSet::new();
    files.add("config.toml", sweep_config("compare", &args.sweep, &args.methods, t_end, counts)?);
    files.add("compare.csv", csv);
    files.add("compare.json", json(&serde_json::to_value(&wp).unwrap_or_default()));
    files.add("compare.svg", plot::svg(&axes, &series)?);
    write_outputs(files, out)
}
