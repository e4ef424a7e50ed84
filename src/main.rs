//! `geomint`: the command-line workbench of the geomint integrators.
//!
//! ```text
//! geomint                                   the showcase: free rigid body, HP Störmer–Verlet vs RK4
//! geomint list                              problems and methods
//! geomint run PROBLEM --method NAME [--h H] [--steps N | --t-end T] [--every K] [--out DIR]
//! geomint run --config FILE                 the same, from a TOML file (its `out` relative to it)
//! geomint run PROBLEM --compensated         with compensated (Kahan) summation of the increments
//! geomint run … --force                     into an output directory that is not empty
//! geomint run PROBLEM --state X1,X2,...     from a given initial state (any catalogue problem)
//! geomint run nbody --system FILE           an N-body system from a file of masses, positions, velocities
//! geomint ensemble PROBLEM --members K --perturb EPS [--seed S]   K perturbed runs in parallel
//! geomint resume DIR [--steps M]            continue the run in DIR (its checkpoint) to M steps
//! geomint convergence PROBLEM --method NAME measured order table and error-vs-h plot
//! geomint compare PROBLEM --methods A,B,... work–precision table and plot
//! ```
//!
//! Every command prints a short summary and writes its files (CSV, JSON, SVG) all-or-nothing;
//! bad input is a one-line `error: …` on stderr and exit status 2, a failed integration exit 1.
//! `run` and `resume` keep a checkpoint (`geomint::workbench::checkpoint`); Ctrl-C (SIGINT) stops
//! them after the current step with their outputs and checkpoint written, exit status 130.

use clap::{Args, Parser, Subcommand};
use geomint::workbench::catalogue;
use geomint::workbench::checkpoint::{self, Outcome, Session};
use geomint::workbench::config::RunConfig;
use geomint::workbench::experiment::{self, RunResult, RunSpec};
use geomint::workbench::methods;
use geomint::workbench::output::{self, OutputSet};
use geomint::workbench::plot::{self, Axes, Line, Marker, Series};
use geomint::workbench::problem::{Family, Problem};
use geomint::workbench::solution::{self, SolutionError};
use geomint::workbench::{WorkbenchError, suggest};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Set by the first Ctrl-C (SIGINT) of `run` or `resume`; read once per step.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

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
    /// Continue the run whose checkpoint is in DIR, bit for bit as one uninterrupted run.
    Resume(ResumeArgs),
    /// The measured order: global errors and slopes over halved steps, and an error-vs-h plot.
    Convergence(ConvergenceArgs),
    /// Work–precision of several methods: wall time against solution and energy errors.
    Compare(CompareArgs),
    /// Many runs from perturbed initial states, in parallel: a table of their errors.
    Ensemble(EnsembleArgs),
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
    /// A TOML experiment file (its `out` is relative to the file's directory); command-line
    /// options override it.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Problem parameter, NAME=VALUE (repeatable), e.g. `--param e=0.9` for kepler.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Write the checkpoint every N steps (default: every 30 s of integration).
    #[arg(long, value_name = "N")]
    checkpoint_every: Option<usize>,
    /// Warn on stderr when a monitored error exceeds this (default 1).
    #[arg(long, allow_negative_numbers = true, value_name = "ERROR")]
    max_error: Option<f64>,
    /// Sum the increments with compensated (Kahan) summation (canonical problems; methods that
    /// compute their increment, e.g. stormer-verlet, gauss2, rk4).
    #[arg(long)]
    compensated: bool,
    /// Write into an output directory that is not empty (replacing the run in it); without it,
    /// `run` refuses such a directory.
    #[arg(long)]
    force: bool,
    /// The initial state, comma-separated, in the coordinates of the problem's trajectory.csv
    /// columns, e.g. `--state 0.4,0,0,2` for kepler (default: the problem's own).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, value_name = "X1,X2,...")]
    state: Option<Vec<f64>>,
    /// The bodies of problem `nbody`: a file of `mass, x, y, z, vx, vy, vz` lines (or
    /// `mass, x, y, vx, vy` in the plane); implies `nbody` when no problem is given.
    #[arg(long, value_name = "FILE")]
    system: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct ResumeArgs {
    /// The output directory of the run, with its checkpoint.
    dir: PathBuf,
    /// The total number of steps to reach (default: the run's --steps).
    #[arg(long)]
    steps: Option<usize>,
    /// Write the checkpoint every N steps (default: the run's setting).
    #[arg(long, value_name = "N")]
    checkpoint_every: Option<usize>,
    /// Warn on stderr when a monitored error exceeds this (default: the run's setting, else 1).
    #[arg(long, allow_negative_numbers = true, value_name = "ERROR")]
    max_error: Option<f64>,
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
    let done = |r: Result<(), WorkbenchError>| r.map(|()| ExitCode::SUCCESS);
    let result = match cli.command {
        None => done(showcase(&showcase_dir(None), quiet)),
        Some(Command::Showcase { out }) => done(showcase(&showcase_dir(out), quiet)),
        Some(Command::List) => {
            list();
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Run(mut args)) => {
            args.out = args.out.or(top);
            run(args, quiet)
        }
        Some(Command::Resume(args)) => resume(args, quiet),
        Some(Command::Convergence(mut args)) => {
            args.sweep.out = args.sweep.out.or(top);
            done(convergence(args, quiet))
        }
        Some(Command::Ensemble(mut args)) => {
            args.out = args.out.or(top);
            ensemble(args, quiet)
        }
        Some(Command::Compare(mut args)) => {
            args.sweep.out = args.sweep.out.or(top);
            done(compare(args, quiet))
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            if INTERRUPTED.load(Ordering::Relaxed) {
                return ExitCode::from(130);
            }
            ExitCode::from(if matches!(e, WorkbenchError::Input(_)) { 2 } else { 1 })
        }
    }
}

// --- helpers ------------------------------------------------------------------------------------

/// Above this many samples `run` warns that its CSV files are large.
const LARGE_CSV_SAMPLES: usize = 1_000_000;

fn parse_params(raw: &[String]) -> Result<Vec<(String, f64)>, WorkbenchError> {
    let mut out: Vec<(String, f64)> = Vec::with_capacity(raw.len());
    for s in raw {
        let (k, v) =
            s.split_once('=').ok_or_else(|| WorkbenchError::Input(format!("--param expects NAME=VALUE, got '{s}'")))?;
        let v: f64 =
            v.trim().parse().map_err(|_| WorkbenchError::Input(format!("--param {k}: '{v}' is not a number")))?;
        let k = k.trim().to_string();
        if let Some((_, first)) = out.iter().find(|(name, _)| *name == k) {
            return Err(WorkbenchError::Input(format!("--param {k} given twice ({first} and {v}); give it once")));
        }
        out.push((k, v));
    }
    Ok(out)
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

/// The first Ctrl-C (SIGINT), SIGTERM or SIGHUP sets [`INTERRUPTED`], and the run stops after its
/// current step with its outputs and checkpoint written (exit status 130); a second one exits at
/// once (the files on the disk are whole either way: every one is written to a temporary name and
/// renamed).
fn install_interrupt_handler() -> Result<(), WorkbenchError> {
    static INSTALLED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            ctrlc::set_handler(|| {
                if INTERRUPTED.swap(true, Ordering::SeqCst) {
                    std::process::exit(130);
                }
            })
            .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|e| WorkbenchError::Input(format!("cannot install the Ctrl-C handler: {e}")))
}

/// Runs `body` after checking that `out` can be written (before any integration); if `body`
/// fails, the directories the check created are removed again if they are still empty.
fn with_output_dir<T>(out: &Path, body: impl FnOnce() -> Result<T, WorkbenchError>) -> Result<T, WorkbenchError> {
    let created = output::check_writable(out)?;
    let result = body();
    if result.is_err() {
        created.remove_if_empty();
    }
    result
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
    // (method, problem, order) where a problem's order of a method differs from the registry's
    let mut overrides: Vec<(&str, &str, u32)> = Vec::new();
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
        // a method whose order on this problem is not the registry's says so (Problem::order_of)
        let names: Vec<String> = p
            .methods()
            .into_iter()
            .map(|m| match methods::find(m).map(|info| (info.order, p.order_of(info))) {
                Some((registry, here)) if registry != here => {
                    overrides.push((m, e.name, here));
                    format!("{m} (order {here} here)")
                }
                _ => m.to_string(),
            })
            .collect();
        say!("  {:<22}   methods: {}", "", names.join(", "));
    }
    say!(
        "  {:<22} a gravitational N-body system from a file: --system FILE (lines mass, x, y, z, vx, vy, vz)",
        catalogue::nbody::NAME
    );
    say!("  {:<22}   --param G=1 : gravitational constant G > 0", "");
    say!("\nmethods (--method NAME):");
    for family in [Family::Canonical, Family::LieGroup, Family::Groupoid] {
        say!("  [{}]", family.name());
        for m in methods::for_family(family) {
            let except: Vec<String> =
                overrides.iter().filter(|o| o.0 == m.name).map(|(_, p, o)| format!("{o} on {p}")).collect();
            let order =
                if except.is_empty() { m.order.to_string() } else { format!("{} ({})", m.order, except.join(", ")) };
            say!("  {:<22} order {}, {:<20} {}", m.name, order, format!("{:?}", m.structure), m.summary);
        }
    }
}

// --- run ----------------------------------------------------------------------------------------

fn run(args: RunArgs, quiet: bool) -> Result<ExitCode, WorkbenchError> {
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
        checkpoint_every: args.checkpoint_every,
        max_error: args.max_error,
        compensated: args.compensated.then_some(true),
        state: args.state.clone(),
        system: args.system.as_ref().map(|p| p.display().to_string()),
        params: parse_params(&args.params)?.into_iter().collect(),
    };
    let mut cfg = file.overridden_by(cli);
    let Resolved { name, problem, system } =
        resolve_problem(cfg.problem.as_deref(), &cfg.params, cfg.system.as_deref(), cfg.state.as_deref())?;
    let method = cfg.method.clone().unwrap_or_else(|| problem.methods()[0].to_string());
    geomint::workbench::problem::check_method(problem.as_ref(), &method)?;
    let spec = RunSpec::resolve(problem.as_ref(), cfg.h, cfg.steps, cfg.t_end, cfg.every)?;
    let (h, every) = (spec.h, spec.every);
    let samples = spec.steps / every + 1;
    if samples > LARGE_CSV_SAMPLES {
        eprintln!(
            "warning: sampling every {every} of {} steps writes {samples} rows to trajectory.csv and \
             diagnostics.csv; --every {} keeps them near {LARGE_CSV_SAMPLES} (plots are thinned to {} points \
             per curve either way)",
            spec.steps,
            spec.steps.div_ceil(LARGE_CSV_SAMPLES),
            plot::MAX_POINTS_PER_CURVE
        );
    }
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
        checkpoint_every: cfg.checkpoint_every,
        max_error: cfg.max_error,
        compensated: cfg.compensated.filter(|&c| c),
        state: cfg.state,
        system: system.map(|p| p.display().to_string()),
        params: cfg.params,
    };
    let session = Session::new(problem, cfg, &out)?;
    output::check_fresh(&out, args.force)?;
    drive(session, quiet)
}

// --- resume -------------------------------------------------------------------------------------

fn resume(args: ResumeArgs, quiet: bool) -> Result<ExitCode, WorkbenchError> {
    install_interrupt_handler()?;
    // a simulation that cannot be saved is replayed from its initial data: show that, if long
    let mut bar: Option<ProgressBar> = None;
    let mut replayed = |n: usize| {
        if !quiet {
            let bar = bar.get_or_insert_with(|| {
                let b = ProgressBar::new_spinner();
                b.set_style(
                    ProgressStyle::with_template("{msg:>24} {pos} steps ({elapsed})")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                b.set_message("replaying");
                b.enable_steady_tick(Duration::from_millis(200));
                b
            });
            bar.set_position(n as u64);
        }
    };
    let opened = Session::open(&args.dir, &INTERRUPTED, &mut replayed);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mut session = opened?;
    session.set_options(args.checkpoint_every, args.max_error)?;
    if let Some(steps) = args.steps {
        session.set_target(steps)?;
    }
    drive(session, quiet)
}

/// Integrates a run to its target (or to an interrupt or a failed step), then writes its
/// outputs, its summary with how it ended, and its checkpoint, all or nothing. Exit status 0
/// when it completed, 130 when it was interrupted, the step's error when a step failed.
fn drive(mut session: Session, quiet: bool) -> Result<ExitCode, WorkbenchError> {
    install_interrupt_handler()?;
    let created = session.claim()?;
    let what = format!("{} / {}", session.problem().name(), session.config().method.clone().unwrap_or_default());
    let bar = progress(session.target() as u64, quiet, &what);
    bar.set_position(session.step() as u64);
    let outcome = session.advance(&INTERRUPTED, &mut |n| bar.set_position(n as u64));
    bar.finish_and_clear();
    let outcome = outcome.inspect_err(|_| created.remove_if_empty())?;
    let status = outcome.status(session.step());
    let result = session.result();
    let solution = solution::of_run(session.problem(), &result, matches!(outcome, Outcome::Completed));
    print_run_summary(session.problem(), &result, session.compensated(), &solution);
    warn_large_errors(&result, session.max_error());

    let mut files = OutputSet::new();
    files.add("trajectory.csv", output::trajectory_csv(&result));
    files.add("diagnostics.csv", output::diagnostics_csv(&result));
    let summary = output::run_summary_for(
        session.problem(),
        &result,
        &output::RunStatus { status: &status, target_steps: session.target(), compensated: session.compensated() },
        &solution,
    );
    files.add("summary.json", json(&summary));
    files.add("diagnostics.svg", plot::svg(&diagnostics_axes(&result), &error_series(&result, ""))?);
    files.add("trajectory.svg", plot::run_trajectory_svg(&result)?);
    // `out = "."`: a config file's `out` is relative to the file, which lies in the directory
    let saved = RunConfig { out: Some(".".into()), ..session.config().clone() };
    files.add("config.toml", saved.to_toml()?);
    // last, so that a failed commit leaves the previous checkpoint in place
    if let Some(cp) = session.final_checkpoint(&status)? {
        files.add(checkpoint::FILE, cp);
    }
    if let Err(e) = write_outputs(files, session.dir()) {
        session.abandon();
        created.remove_if_empty();
        return Err(e);
    }
    match outcome {
        Outcome::Completed => Ok(ExitCode::SUCCESS),
        Outcome::Interrupted => {
            eprintln!(
                "interrupted at step {} of {} (t = {}); outputs and checkpoint written to {}; continue with `geomint resume {}`",
                session.step(),
                session.target(),
                session.time(),
                session.dir().display(),
                session.dir().display()
            );
            Ok(ExitCode::from(130))
        }
        Outcome::Failed(e) => Err(e),
    }
}

/// A warning on stderr for each monitored quantity whose largest error exceeds `threshold` (or
/// is not a number).
fn warn_large_errors(r: &RunResult, threshold: f64) {
    for (i, q) in r.quantities.iter().enumerate() {
        let e = r.max_error(i);
        let nan = r.samples.iter().any(|s| s.errors[i].is_nan());
        if e > threshold || nan {
            let e = if nan { f64::NAN } else { e };
            eprintln!(
                "warning: the {} error reached {e:.3e}, above {threshold:e} (--max-error): {} at h = {} does not keep it",
                q.name,
                r.method,
                short(r.spec.h)
            );
        }
    }
}

fn diagnostics_axes(r: &RunResult) -> Axes {
    let unit = plot::time_unit(&r.problem);
    let h = unit.map_or(short(r.spec.h), |u| format!("{} {u}", short(r.spec.h)));
    Axes::new(format!("{} with {} (h = {h})", r.problem, r.method), "t", "error").x_unit(unit)
}

/// One series per quantity (and the solution error), labelled `PREFIX name`: in the panel
/// "relative error" for the conserved quantities with `Q0 ≠ 0`, else (constraints, `Q0 = 0`, the
/// solution) in the panel "absolute error"; one marker shape per quantity.
fn error_series(r: &RunResult, prefix: &str) -> Vec<Series> {
    const MARKERS: [Marker; 5] = [Marker::Circle, Marker::Square, Marker::Triangle, Marker::Diamond, Marker::Cross];
    let v0 = r.samples.first().map(|s| s.values.clone()).unwrap_or_default();
    let mut k = 0;
    let mut v: Vec<Series> = r
        .quantities
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let q0 = v0.get(k..k + q.dim).unwrap_or(&[]);
            k += q.dim;
            let relative =
                q.kind != geomint::workbench::problem::Kind::Constraint && geomint::workbench::problem::norm(q0) > 0.0;
            Series::new(format!("{prefix}{}", q.name), r.samples.iter().map(|s| (s.t, s.errors[i])).collect())
                .panel(if relative { "relative error" } else { "absolute error" })
                .marker(MARKERS[i % MARKERS.len()])
        })
        .collect();
    if r.max_solution_error().is_some() {
        let points = r.samples.iter().map(|s| (s.t, s.solution_error.unwrap_or(f64::NAN))).collect();
        let marker = MARKERS[r.quantities.len() % MARKERS.len()];
        v.push(Series::new(format!("{prefix}solution"), points).panel("absolute error").marker(marker));
    }
    v
}

/// `x` as a person writes it: the shortest round-trip decimal between `1e-4` and `1e7`, else
/// scientific (`1e-320`, not 320 digits).
fn short(x: f64) -> String {
    if x == 0.0 || (1e-4..1e7).contains(&x.abs()) { format!("{x}") } else { format!("{x:e}") }
}

fn print_run_summary(problem: &dyn Problem, r: &RunResult, compensated: bool, solution: &SolutionError) {
    let info = methods::find(&r.method);
    say!(
        "{} — {} with {} (order {}, {}{}), h = {}, {} steps to t = {}, {:.3} s",
        r.problem,
        problem.summary(),
        r.method,
        info.map_or(0, |m| problem.order_of(m)),
        info.map_or("?".into(), |m| format!("{:?}", m.structure)),
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

// --- convergence --------------------------------------------------------------------------------

fn convergence(args: ConvergenceArgs, quiet: bool) -> Result<(), WorkbenchError> {
    let Sweep { problem, t_end, counts } = args.sweep.resolve(std::slice::from_ref(&args.method))?;
    let name = &args.sweep.problem;
    let out =
        args.sweep.out.clone().unwrap_or_else(|| PathBuf::from(format!("runs/{name}-{}-convergence", args.method)));
    with_output_dir(&out, || convergence_in(&args, problem.as_ref(), t_end, &counts, &out, quiet))
}

/// The `config.toml` of a sweep (`convergence` or `compare`): the command line that repeats it
/// and the resolved values (final time, step counts, parameters), with the geomint version.
fn sweep_config(
    command: &str,
    sweep: &SweepArgs,
    methods: &[String],
    t_end: f64,
    counts: &[usize],
) -> Result<String, WorkbenchError> {
    #[derive(serde::Serialize)]
    struct SweepConfig<'a> {
        command: String,
        problem: &'a str,
        methods: &'a [String],
        t_end: f64,
        levels: usize,
        steps: &'a [usize],
        params: std::collections::BTreeMap<String, f64>,
    }
    let params: std::collections::BTreeMap<String, f64> = parse_params(&sweep.params)?.into_iter().collect();
    let flag = if command == "compare" {
        format!("--methods {}", methods.join(","))
    } else {
        format!("--method {}", methods.join(","))
    };
    let mut line = format!("geomint {command} {} {flag} --t-end {t_end:e} --levels {}", sweep.problem, sweep.levels);
    if let Some(h) = sweep.h {
        line += &format!(" --h {h:e}");
    }
    for (k, v) in &params {
        line += &format!(" --param {k}={v:e}");
    }
    let config = SweepConfig {
        command: line,
        problem: &sweep.problem,
        methods,
        t_end,
        levels: sweep.levels,
        steps: counts,
        params,
    };
    let body = toml::to_string(&config).map_err(|e| WorkbenchError::Input(format!("cannot write the config: {e}")))?;
    Ok(format!("# written by geomint {}; repeat with `command`\n{body}", env!("CARGO_PKG_VERSION")))
}

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

// --- compare ------------------------------------------------------------------------------------

fn compare(args: CompareArgs, quiet: bool) -> Result<(), WorkbenchError> {
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
    say!("  {:<20} {:>11} {:>8} {:>11} {:>12} {:>12}", "method", "h", "steps", "seconds", "sol. error", column);
    let mut csv = format!("method,h,steps,seconds,solution_error,{quantity}_error\n");
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

// --- showcase -----------------------------------------------------------------------------------

/// The free rigid body with Hamilton–Pontryagin Störmer–Verlet (variational; docs/math.md §D.5) and
/// classical RK4 on the matrix entries side by side: the Casimir `|Π|²` and the distance from
/// SO(3) stay at round-off for the first and drift for the second.
fn showcase(out: &Path, quiet: bool) -> Result<(), WorkbenchError> {
    with_output_dir(out, || showcase_in(out, quiet))
}

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

// --- systems and initial states -----------------------------------------------------------------

/// The problem of a run or an ensemble ([`resolve_problem`]).
struct Resolved {
    /// The problem's name (`nbody` when only a system file is given).
    name: String,
    /// The problem, started from the given state where one is given.
    problem: Box<dyn Problem>,
    /// The system file, as an absolute path (so that the saved config names it from anywhere).
    system: Option<PathBuf>,
}

/// The problem of a run or an ensemble: the catalogue problem or the N-body system of the file,
/// started from `state` where given ([`catalogue::resolve`]).
fn resolve_problem(
    name: Option<&str>,
    params: &std::collections::BTreeMap<String, f64>,
    system: Option<&str>,
    state: Option<&[f64]>,
) -> Result<Resolved, WorkbenchError> {
    let system = system.map(|s| std::fs::canonicalize(s).unwrap_or_else(|_| PathBuf::from(s)));
    let name = match (name, &system) {
        (Some(n), _) => n.to_string(),
        (None, Some(_)) => catalogue::nbody::NAME.to_string(),
        (None, None) => {
            let mut valid = catalogue::names();
            valid.push(catalogue::nbody::NAME);
            return Err(WorkbenchError::Input(format!("no problem given; {}", suggest::did_you_mean("", &valid))));
        }
    };
    let params: Vec<(String, f64)> = params.iter().map(|(k, v)| (k.clone(), *v)).collect();
    let problem = catalogue::resolve(&name, &params, system.as_deref(), state)?;
    Ok(Resolved { name, problem, system })
}

// --- ensemble -----------------------------------------------------------------------------------

#[derive(Args, Debug)]
struct EnsembleArgs {
    /// Problem name (see `geomint list`; `nbody` with --system).
    problem: Option<String>,
    /// Method name (default: the problem's first method).
    #[arg(long, short)]
    method: Option<String>,
    /// Step size (default: the problem's).
    #[arg(long, allow_negative_numbers = true)]
    h: Option<f64>,
    /// Number of steps of every member.
    #[arg(long, conflicts_with = "t_end")]
    steps: Option<usize>,
    /// Final time (default: the problem's).
    #[arg(long, allow_negative_numbers = true)]
    t_end: Option<f64>,
    /// Sample the errors every K steps (default: about 1000 samples per member).
    #[arg(long)]
    every: Option<usize>,
    /// Number of members.
    #[arg(long)]
    members: usize,
    /// Size ε of the perturbation: each coordinate moves by ε times a standard normal sample
    /// (along the group or the constraints where the problem has them).
    #[arg(long, allow_negative_numbers = true, value_name = "EPS")]
    perturb: f64,
    /// Seed of the perturbations (the same seed gives the same members).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The state the members are perturbed from, comma-separated (default: the problem's own).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, value_name = "X1,X2,...")]
    state: Option<Vec<f64>>,
    /// The bodies of problem `nbody` (see `geomint run --help`).
    #[arg(long, value_name = "FILE")]
    system: Option<PathBuf>,
    /// Problem parameter, NAME=VALUE (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Write ensemble.csv (one row per member) into this directory.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// `geomint ensemble`: the members' initial states ([`experiment::perturbed_states`]), the runs
/// in parallel ([`experiment::ensemble`]), a table of one row per member and, with `--out`,
/// `ensemble.csv`. Exit status 1, after the table and the file, if a member failed.
fn ensemble(args: EnsembleArgs, quiet: bool) -> Result<ExitCode, WorkbenchError> {
    let params = parse_params(&args.params)?.into_iter().collect();
    let system = args.system.as_ref().map(|p| p.display().to_string());
    let problem = resolve_problem(args.problem.as_deref(), &params, system.as_deref(), args.state.as_deref())?.problem;
    let method = args.method.clone().unwrap_or_else(|| problem.methods()[0].to_string());
    geomint::workbench::problem::check_method(problem.as_ref(), &method)?;
    let spec = RunSpec::resolve(problem.as_ref(), args.h, args.steps, args.t_end, args.every)?;
    let base = problem.initial_state()?;
    let states = experiment::perturbed_states(problem.as_ref(), &base, args.members, args.perturb, args.seed)?;
    let body = || -> Result<ExitCode, WorkbenchError> {
        let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new_spinner() };
        bar.set_message(format!("{} members of {} / {method}", args.members, problem.name()));
        bar.enable_steady_tick(Duration::from_millis(200));
        let e = experiment::ensemble(
            problem.as_ref(),
            &method,
            spec.h,
            spec.steps,
            Some(spec.every),
            &states,
            args.threads,
        );
        bar.finish_and_clear();
        let e = e.map_err(|e| match e.source {
            WorkbenchError::Input(_) => WorkbenchError::Input(e.to_string()),
            source => source,
        })?;
        print_ensemble(&e, args.perturb, args.seed);
        if let Some(out) = &args.out {
            let mut files = OutputSet::new();
            files.add("ensemble.csv", output::ensemble_csv(&e));
            write_outputs(files, out)?;
        }
        if let Some((i, failure)) = e.first_failure() {
            let failed = e.members.iter().filter(|m| m.failure.is_some()).count();
            eprintln!("error: {failed} of {} members failed; member {i}: {failure}", e.members.len());
            return Ok(ExitCode::from(1));
        }
        Ok(ExitCode::SUCCESS)
    };
    match &args.out {
        Some(out) => with_output_dir(out, body),
        None => body(),
    }
}

fn print_ensemble(e: &experiment::Ensemble, eps: f64, seed: u64) {
    say!(
        "{} with {}, h = {}, {} steps to t = {}: {} members perturbed by ε = {} (seed {seed}), {:.3} s on {} threads",
        e.problem,
        e.method,
        short(e.h),
        e.steps,
        short(e.steps as f64 * e.h),
        e.members.len(),
        short(eps),
        e.wall_seconds,
        e.threads
    );
    let widths: Vec<usize> = e.quantities.iter().map(|q| q.name.len().max(11)).collect();
    let mut head = format!("  {:>7}  {:<22} {:>12}", "member", "status", "t");
    for (q, w) in e.quantities.iter().zip(&widths) {
        head += &format!("  {:>w$}", q.name);
    }
    match e.every {
        Some(k) => say!("  the largest error of each monitored quantity, sampled every {k} steps:"),
        None => say!("  the error of each monitored quantity at the final time:"),
    }
    say!("{head}");
    for (i, m) in e.members.iter().enumerate() {
        let mut row = format!("  {i:>7}  {:<22} {:>12}", m.status(), short(m.t));
        for (v, w) in m.max_errors.as_ref().unwrap_or(&m.errors).iter().zip(&widths) {
            row += &format!("  {v:>w$.3e}");
        }
        say!("{row}");
    }
}
