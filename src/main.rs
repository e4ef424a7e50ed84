//! `geomint`: the command-line workbench of the geomint integrators.
//!
//! ```text
//! geomint                                   the showcase: free rigid body, HP Störmer–Verlet vs RK4
//! geomint list                              problems and methods
//! geomint run PROBLEM --method NAME [--h H] [--steps N | --t-end T] [--every K] [--out DIR]
//! geomint run --config FILE                 the same, from a TOML file
//! geomint convergence PROBLEM --method NAME measured order table and error-vs-h plot
//! geomint compare PROBLEM --methods A,B,... work–precision table and plot
//! ```
//!
//! Every command prints a short summary and writes its files (CSV, JSON, SVG) all-or-nothing;
//! bad input is a one-line `error: …` on stderr and exit status 2, a failed integration exit 1.

use clap::{Args, Parser, Subcommand};
use geomint::workbench::catalogue;
use geomint::workbench::config::RunConfig;
use geomint::workbench::experiment::{self, RunResult, RunSpec};
use geomint::workbench::methods;
use geomint::workbench::output::{self, OutputSet};
use geomint::workbench::plot::{self, Axes, Series};
use geomint::workbench::problem::{Family, Problem};
use geomint::workbench::{WorkbenchError, suggest};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// `println!` that ignores a closed stdout (e.g. `geomint list | head -1`) instead of panicking.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

#[derive(Parser, Debug)]
#[command(name = "geomint", version, about = "Run, compare and measure structure-preserving integrators")]
struct Cli {
    /// No progress bars.
    #[arg(long, short, global = true)]
    quiet: bool,
    /// Output directory (of the showcase when no command is given; default geomint-showcase).
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// The problem catalogue and the method registry, one line each.
    List,
    /// Integrate one problem with one method; write trajectory, diagnostics, summary and plots.
    Run(RunArgs),
    /// The measured order: global errors and slopes over halved steps, and an error-vs-h plot.
    Convergence(ConvergenceArgs),
    /// Work–precision of several methods: wall time against solution and energy errors.
    Compare(CompareArgs),
    /// The showcase (also what `geomint` with no command runs).
    Showcase {
        /// Output directory (default geomint-showcase).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Args, Debug)]
struct RunArgs {
    /// Problem name (see `geomint list`).
    problem: Option<String>,
    /// Method name (default: the problem's first method).
    #[arg(long, short)]
    method: Option<String>,
    /// Step size (default: the problem's).
    #[arg(long, allow_negative_numbers = true)]
    h: Option<f64>,
    /// Number of steps.
    #[arg(long, conflicts_with = "t_end")]
    steps: Option<usize>,
    /// Final time (default: the problem's).
    #[arg(long, allow_negative_numbers = true)]
    t_end: Option<f64>,
    /// Sample every K steps (default: about 1000 samples).
    #[arg(long)]
    every: Option<usize>,
    /// Output directory (default: runs/PROBLEM-METHOD).
    #[arg(long)]
    out: Option<PathBuf>,
    /// A TOML experiment file; command-line options override it.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Problem parameter, NAME=VALUE (repeatable), e.g. `--param e=0.9` for kepler.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
}

/// The options shared by the step sweeps of `convergence` and `compare`.
#[derive(Args, Debug)]
struct SweepArgs {
    /// Problem name.
    problem: String,
    /// Final time (default: a tenth of the problem's, at most 200 steps of its h).
    #[arg(long, allow_negative_numbers = true)]
    t_end: Option<f64>,
    /// Coarsest step (default: the problem's step).
    #[arg(long, allow_negative_numbers = true)]
    h: Option<f64>,
    /// Number of halvings.
    #[arg(long, default_value_t = 6)]
    levels: usize,
    /// Problem parameter, NAME=VALUE.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Output directory (default: runs/PROBLEM-METHOD-convergence or runs/PROBLEM-compare).
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct ConvergenceArgs {
    #[command(flatten)]
    sweep: SweepArgs,
    /// Method name.
    #[arg(long, short)]
    method: String,
}

#[derive(Args, Debug)]
struct CompareArgs {
    #[command(flatten)]
    sweep: SweepArgs,
    /// Comma-separated method names.
    #[arg(long, value_delimiter = ',', required = true)]
    methods: Vec<String>,
}

/// A sweep resolved against its problem: the problem, the final time and the step counts,
/// after checking every method name.
struct Sweep {
    problem: Box<dyn Problem>,
    t_end: f64,
    counts: Vec<usize>,
}

impl SweepArgs {
    fn resolve(&self, methods: &[String]) -> Result<Sweep, WorkbenchError> {
        let problem = catalogue::problem(&self.problem, &parse_params(&self.params)?)?;
        for m in methods {
            geomint::workbench::problem::check_method(problem.as_ref(), m)?;
        }
        let t_end = self.t_end.unwrap_or_else(|| short_t_end(problem.as_ref()));
        let counts = experiment::halvings(t_end, self.h.unwrap_or(problem.defaults().0), self.levels)?;
        Ok(Sweep { problem, t_end, counts })
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // one line: clap's first line, joined with the next when it ends in ':'
            let text = e.to_string();
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
            let mut first = lines.next().unwrap_or("error: invalid arguments").to_string();
            if first.ends_with(':') {
                first = format!("{first} {}", lines.next().unwrap_or(""));
            }
            eprintln!("{first} (see `geomint --help`)");
            return ExitCode::from(2);
        }
    };
    let quiet = cli.quiet;
    // `geomint --out DIR COMMAND` means the same as `geomint COMMAND --out DIR`
    let top = cli.out;
    let showcase_dir = |out: Option<PathBuf>| out.or(top.clone()).unwrap_or_else(|| PathBuf::from("geomint-showcase"));
    let result = match cli.command {
        None => showcase(&showcase_dir(None), quiet),
        Some(Command::Showcase { out }) => showcase(&showcase_dir(out), quiet),
        Some(Command::List) => {
            list();
            Ok(())
        }
        Some(Command::Run(mut args)) => {
            args.out = args.out.or(top);
            run(args, quiet)
        }
        Some(Command::Convergence(mut args)) => {
            args.sweep.out = args.sweep.out.or(top);
            convergence(args, quiet)
        }
        Some(Command::Compare(mut args)) => {
            args.sweep.out = args.sweep.out.or(top);
            compare(args, quiet)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(if matches!(e, WorkbenchError::Input(_)) { 2 } else { 1 })
        }
    }
}

// --- helpers ------------------------------------------------------------------------------------

fn parse_params(raw: &[String]) -> Result<Vec<(String, f64)>, WorkbenchError> {
    raw.iter()
        .map(|s| {
            let (k, v) = s
                .split_once('=')
                .ok_or_else(|| WorkbenchError::Input(format!("--param expects NAME=VALUE, got '{s}'")))?;
            let v: f64 =
                v.trim().parse().map_err(|_| WorkbenchError::Input(format!("--param {k}: '{v}' is not a number")))?;
            Ok((k.trim().to_string(), v))
        })
        .collect()
}

fn progress(total: u64, quiet: bool, what: &str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{msg:>24} [{bar:40}] {pos}/{len} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    // only runs longer than a moment show the bar
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

fn write_outputs(files: OutputSet, dir: &Path) -> Result<(), WorkbenchError> {
    let names = files.names().join(", ");
    files.commit(dir)?;
    say!("wrote {names} to {}", dir.display());
    Ok(())
}

fn json(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| "{}".into()) + "\n"
}

/// The default final time of the order and work–precision experiments: short enough that the
/// finest of six halvings runs in seconds.
fn short_t_end(problem: &dyn Problem) -> f64 {
    let (h, t) = problem.defaults();
    (t / 10.0).min(200.0 * h).max(h)
}

// --- list ---------------------------------------------------------------------------------------

fn list() {
    say!("problems (geomint run PROBLEM …):");
    for e in catalogue::ENTRIES {
        let p = match (e.build)(&e.params.iter().map(|p| p.default).collect::<Vec<_>>()) {
            Ok(p) => p,
            Err(err) => {
                say!("  {:<22} (cannot build: {err})", e.name);
                continue;
            }
        };
        let (h, t) = p.defaults();
        say!("  {:<22} {} [{}; h = {h}, t-end = {t}]", e.name, p.summary(), p.family().name());
        for q in e.params {
            say!("  {:<22}   --param {}={} : {}", "", q.name, q.default, q.about);
        }
        say!("  {:<22}   methods: {}", "", p.methods().join(", "));
    }
    say!("\nmethods (--method NAME):");
    for family in [Family::Canonical, Family::LieGroup, Family::Groupoid] {
        say!("  [{}]", family.name());
        for m in methods::for_family(family) {
            say!("  {:<22} order {}, {:<20} {}", m.name, m.order, format!("{:?}", m.structure), m.summary);
        }
    }
}

// --- run ----------------------------------------------------------------------------------------

fn run(args: RunArgs, quiet: bool) -> Result<(), WorkbenchError> {
    let file = match &args.config {
        Some(path) => RunConfig::load(path)?,
        None => RunConfig::default(),
    };
    let cli = RunConfig {
        problem: args.problem.clone(),
        method: args.method.clone(),
        h: args.h,
        steps: args.steps,
        t_end: args.t_end,
        every: args.every,
        out: args.out.as_ref().map(|p| p.display().to_string()),
        params: parse_params(&args.params)?.into_iter().collect(),
    };
    let mut cfg = file.overridden_by(cli);
    let name = cfg.problem.clone().ok_or_else(|| {
        WorkbenchError::Input(format!("no problem given; {}", suggest::did_you_mean("", &catalogue::names())))
    })?;
    let params: Vec<(String, f64)> = cfg.params.iter().map(|(k, v)| (k.clone(), *v)).collect();
    let problem = catalogue::problem(&name, &params)?;
    let (h0, t0) = problem.defaults();
    let method = cfg.method.clone().unwrap_or_else(|| problem.methods()[0].to_string());
    geomint::workbench::problem::check_method(problem.as_ref(), &method)?;
    let h = cfg.h.unwrap_or(h0);
    let t_end = if cfg.steps.is_none() { Some(cfg.t_end.unwrap_or(t0)) } else { None };
    let provisional = RunSpec::new(h, cfg.steps, t_end, 1)?;
    let every = cfg.every.unwrap_or((provisional.steps / 1000).max(1));
    let spec = RunSpec::new(h, cfg.steps, t_end, every)?;
    let out = cfg.out.clone().map(PathBuf::from).unwrap_or_else(|| PathBuf::from(format!("runs/{name}-{method}")));
    // the resolved config, saved next to the outputs
    cfg = RunConfig {
        problem: Some(name.clone()),
        method: Some(method.clone()),
        h: Some(h),
        steps: Some(spec.steps),
        t_end: None,
        every: Some(every),
        out: Some(out.display().to_string()),
        params: cfg.params,
    };

    let bar = progress(spec.steps as u64, quiet, &format!("{name} / {method}"));
    let result = experiment::run(problem.as_ref(), &method, spec, &mut |n| bar.set_position(n as u64));
    bar.finish_and_clear();
    let result = result?;
    print_run_summary(problem.as_ref(), &result);

    let mut files = OutputSet::new();
    files.add("trajectory.csv", output::trajectory_csv(&result));
    files.add("diagnostics.csv", output::diagnostics_csv(&result));
    files.add("summary.json", json(&output::run_summary(&result)));
    files.add("diagnostics.svg", plot::svg(&diagnostics_axes(&result), &error_series(&result, ""))?);
    files.add("config.toml", cfg.to_toml()?);
    write_outputs(files, &out)
}

fn diagnostics_axes(r: &RunResult) -> Axes {
    Axes {
        title: format!("{} with {} (h = {})", r.problem, r.method, r.spec.h),
        x: "t".into(),
        y: "error".into(),
        log_x: false,
        legend_right: false,
    }
}

/// One series per quantity (and the solution error), labelled `PREFIX name`.
fn error_series(r: &RunResult, prefix: &str) -> Vec<Series> {
    let mut v: Vec<Series> = r
        .quantities
        .iter()
        .enumerate()
        .map(|(i, q)| Series {
            label: format!("{prefix}{}", q.name),
            points: r.samples.iter().map(|s| (s.t, s.errors[i])).collect(),
        })
        .collect();
    if r.max_solution_error().is_some() {
        v.push(Series {
            label: format!("{prefix}solution"),
            points: r.samples.iter().map(|s| (s.t, s.solution_error.unwrap_or(f64::NAN))).collect(),
        });
    }
    v
}

fn print_run_summary(problem: &dyn Problem, r: &RunResult) {
    let info = methods::find(&r.method);
    say!(
        "{} — {} with {} (order {}, {}), h = {}, {} steps to t = {}, {:.3} s",
        r.problem,
        problem.summary(),
        r.method,
        info.map_or(0, |m| m.order),
        info.map_or("?".into(), |m| format!("{:?}", m.structure)),
        r.spec.h,
        r.spec.steps,
        r.samples.last().map_or(0.0, |s| s.t),
        r.wall_seconds
    );
    say!("  {:<22} {:<52} {:>12} {:>12}", "quantity", "formula", "max error", "final error");
    for (i, q) in r.quantities.iter().enumerate() {
        say!("  {:<22} {:<52} {:>12.3e} {:>12.3e}", q.name, q.formula, r.max_error(i), r.final_error(i));
    }
    if let Some(e) = r.max_solution_error() {
        say!("  {:<22} {:<52} {:>12.3e}", "solution", "|y(t) − y_exact(t)|", e);
    }
}

// --- convergence --------------------------------------------------------------------------------

fn convergence(args: ConvergenceArgs, quiet: bool) -> Result<(), WorkbenchError> {
    let Sweep { problem, t_end, counts } = args.sweep.resolve(std::slice::from_ref(&args.method))?;
    let name = &args.sweep.problem;
    let bar = progress(counts.len() as u64, quiet, &format!("{name} / {}", args.method));
    let table =
        experiment::convergence(problem.as_ref(), &args.method, t_end, &counts, &mut |n| bar.set_position(n as u64));
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
    let out =
        args.sweep.out.clone().unwrap_or_else(|| PathBuf::from(format!("runs/{name}-{}-convergence", args.method)));
    let series =
        vec![Series { label: args.method.clone(), points: table.rows.iter().map(|r| (r.h, r.error)).collect() }];
    let axes = Axes {
        title: format!("{name}: global error at t = {t_end}"),
        x: "h".into(),
        y: "error".into(),
        log_x: true,
        legend_right: false,
    };
    let mut files = OutputSet::new();
    files.add("convergence.csv", csv);
    files.add("convergence.json", json(&serde_json::to_value(&table).unwrap_or_default()));
    files.add("convergence.svg", plot::svg(&axes, &series)?);
    write_outputs(files, &out)
}

// --- compare ------------------------------------------------------------------------------------

fn compare(args: CompareArgs, quiet: bool) -> Result<(), WorkbenchError> {
    let Sweep { problem, t_end, counts } = args.sweep.resolve(&args.methods)?;
    let name = &args.sweep.problem;
    let bar = progress((counts.len() * args.methods.len()) as u64, quiet, &format!("{name} compare"));
    let wp = experiment::compare(problem.as_ref(), &args.methods, t_end, &counts, &mut |n| bar.set_position(n as u64));
    bar.finish_and_clear();
    let wp = wp?;
    say!("{}: work–precision at t = {t_end}, reference: {}", wp.problem, wp.reference);
    say!("  {:<20} {:>11} {:>8} {:>11} {:>12} {:>12}", "method", "h", "steps", "seconds", "sol. error", "energy err");
    let mut csv = String::from("method,h,steps,seconds,solution_error,energy_error\n");
    for c in &wp.curves {
        for p in &c.points {
            say!(
                "  {:<20} {:>11.4e} {:>8} {:>11.3e} {:>12.3e} {:>12.3e}",
                c.method,
                p.h,
                p.steps,
                p.seconds,
                p.solution_error,
                p.energy_error
            );
            csv += &format!(
                "{},{:e},{},{:e},{:e},{:e}\n",
                c.method, p.h, p.steps, p.seconds, p.solution_error, p.energy_error
            );
        }
    }
    let out = args.sweep.out.clone().unwrap_or_else(|| PathBuf::from(format!("runs/{name}-compare")));
    let mut series: Vec<Series> = wp
        .curves
        .iter()
        .map(|c| Series {
            label: format!("{} solution", c.method),
            points: c.points.iter().map(|p| (p.seconds.max(1e-9), p.solution_error)).collect(),
        })
        .collect();
    series.extend(wp.curves.iter().map(|c| Series {
        label: format!("{} energy", c.method),
        points: c.points.iter().map(|p| (p.seconds.max(1e-9), p.energy_error)).collect(),
    }));
    let axes = Axes {
        title: format!("{name}: work–precision at t = {t_end}"),
        x: "wall time [s]".into(),
        y: "error".into(),
        log_x: true,
        legend_right: true,
    };
    let mut files = OutputSet::new();
    files.add("compare.csv", csv);
    files.add("compare.json", json(&serde_json::to_value(&wp).unwrap_or_default()));
    files.add("compare.svg", plot::svg(&axes, &series)?);
    write_outputs(files, &out)
}

// --- showcase -----------------------------------------------------------------------------------

/// The free rigid body with Hamilton–Pontryagin Störmer–Verlet (variational; docs/math.md §D.5) and
/// classical RK4 on the matrix entries side by side: the Casimir `|Π|²` and the distance from
/// SO(3) stay at round-off for the first and drift for the second.
fn showcase(out: &Path, quiet: bool) -> Result<(), WorkbenchError> {
    let problem = catalogue::problem("rigid-body", &[])?;
    let (h, steps) = (0.1, 20_000);
    let methods = ["hp-sv", "rk2-embedded", "rk4-embedded"];
    say!("geomint showcase: {}", problem.summary());
    say!("  h = {h}, {steps} steps (t = {}), sampled every 20 steps\n", h * steps as f64);
    let mut results = Vec::new();
    for m in methods {
        let spec = RunSpec::new(h, Some(steps), None, 20)?;
        let bar = progress(steps as u64, quiet, m);
        let r = experiment::run(problem.as_ref(), m, spec, &mut |n| bar.set_position(n as u64));
        bar.finish_and_clear();
        results.push(r?);
    }
    let names: Vec<&str> = results[0].quantities.iter().map(|q| q.name).collect();
    let mut report = String::new();
    report += &format!("# geomint showcase: the free rigid body\n\n{}\n\n", problem.summary());
    report += &format!("h = {h}, {steps} steps (t = {}); largest error over the run:\n\n", h * steps as f64);
    report += &format!("| method | structure | {} | seconds |\n", names.join(" | "));
    report += &format!("|---|---|{}---|\n", "---|".repeat(names.len()));
    for r in &results {
        let info = methods::find(&r.method);
        let errs: Vec<String> = (0..names.len()).map(|i| format!("{:.2e}", r.max_error(i))).collect();
        report += &format!(
            "| {} | {} | {} | {:.3} |\n",
            r.method,
            info.map_or("?".into(), |m| format!("{:?}", m.structure)),
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
        let s = error_series(r, &format!("{} ", r.method));
        series.extend(s.into_iter().filter(|s| s.label.ends_with("energy") || s.label.ends_with("casimir")));
    }
    let axes = Axes {
        title: format!("free rigid body, h = {h}: energy and Casimir errors"),
        x: "t".into(),
        y: "relative error".into(),
        log_x: false,
        legend_right: false,
    };
    files.add("showcase.svg", plot::svg(&axes, &series)?);
    files.add("report.md", report);
    write_outputs(files, out)
}
