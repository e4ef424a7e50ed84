//! `geomint run` and `geomint resume`: a run resolved from its options and config file, or opened
//! from its checkpoint, then integrated by [`drive`].

use crate::cli::args::{ResumeArgs, RunArgs};
use crate::cli::drive::{Ending, drive};
use crate::cli::files::OutputDir;
use crate::cli::interrupt::{INTERRUPTED, install_interrupt_handler};
use crate::cli::params::parse_params;
use crate::cli::resolve::{Resolved, resolve_problem};
use geomint::workbench::WorkbenchError;
use geomint::workbench::checkpoint::Session;
use geomint::workbench::config::RunConfig;
use geomint::workbench::experiment::RunSpec;
use geomint::workbench::output;
use geomint::workbench::plot;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Above this many samples `run` warns that its CSV files are large.
const LARGE_CSV_SAMPLES: usize = 1_000_000;

/// `geomint run`: the options over the config file over the problem's defaults, resolved and
/// saved with the run; refuses a non-empty output directory without `--force`.
pub(crate) fn run(args: RunArgs, quiet: bool) -> Result<ExitCode, WorkbenchError> {
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
    let spec = RunSpec::resolve_streamed(problem.as_ref(), cfg.h, cfg.steps, cfg.t_end, cfg.every)?;
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
    // locked before it is checked, so that no other run can fill it in between
    let dir = OutputDir::claim(&out)?;
    if let Err(e) = output::check_fresh(&out, args.force) {
        dir.abandon();
        return Err(e);
    }
    drive(session, quiet, Ending { accept_divergent: args.accept_divergent, reference: args.reference }, dir)
}

/// `geomint resume DIR`: the run of the checkpoint in `DIR` (replayed from its initial data if its
/// simulation cannot be saved), with the options changed as given, continued to its target.
pub(crate) fn resume(args: ResumeArgs, quiet: bool) -> Result<ExitCode, WorkbenchError> {
    install_interrupt_handler()?;
    // locked before the checkpoint is read (a missing directory is the checkpoint's error)
    let dir = if args.dir.is_dir() { Some(OutputDir::claim(&args.dir)?) } else { None };
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
    let opened = Session::resume(&args.dir, &INTERRUPTED, &mut replayed);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mut session = opened?;
    let dir = match dir {
        Some(dir) => dir,
        None => OutputDir::claim(&args.dir)?,
    };
    session.set_options(args.checkpoint_every, args.max_error)?;
    if let Some(steps) = args.steps {
        session.set_target(steps)?;
    }
    drive(session, quiet, Ending { accept_divergent: args.accept_divergent, reference: args.reference }, dir)
}
