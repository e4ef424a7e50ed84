//! `geomint ensemble`: many runs from perturbed initial states, in parallel, and a table of their
//! errors.

use crate::cli::args::EnsembleArgs;
use crate::cli::divergence;
use crate::cli::files::{with_output_dir, write_outputs};
use crate::cli::format::short;
use crate::cli::params::parse_params;
use crate::cli::resolve::resolve_problem;
use geomint::workbench::WorkbenchError;
use geomint::workbench::experiment::{self, RunSpec};
use geomint::workbench::output::{self, OutputSet};
use indicatif::ProgressBar;
use std::process::ExitCode;
use std::time::Duration;

/// `geomint ensemble`: the members' initial states ([`experiment::perturbed_states`]), the runs
/// in parallel ([`experiment::ensemble`]), a table of one row per member and, with `--out`,
/// `ensemble.csv`. Exit status 1, after the table and the file, if a member failed, else 3 if a
/// member diverged (0 with `--accept-divergent`; [`divergence`]).
pub(crate) fn ensemble(args: EnsembleArgs, quiet: bool) -> Result<ExitCode, WorkbenchError> {
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
        let diverged = divergence::of_members(&e, problem.as_ref(), &states);
        Ok(divergence::ensemble_status(&diverged, args.accept_divergent))
    };
    match &args.out {
        Some(out) => with_output_dir(out, body),
        None => body(),
    }
}

/// Prints the ensemble's header and one row per member: its status, the time reached and the
/// largest (or final) error of each monitored quantity.
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
