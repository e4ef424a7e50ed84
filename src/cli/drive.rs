//! Integrating a run to its end and writing everything it produced: outputs, summary, checkpoint
//! and the exit status.

use crate::cli::diagnostics::{diagnostics_axes, error_series};
use crate::cli::divergence;
use crate::cli::files::{OutputDir, json, write_outputs};
use crate::cli::format::short;
use crate::cli::interrupt::{INTERRUPTED, install_interrupt_handler};
use crate::cli::progress::progress;
use crate::cli::summary::print_run_summary;
use geomint::workbench::WorkbenchError;
use geomint::workbench::checkpoint::{self, Outcome, Session};
use geomint::workbench::config::RunConfig;
use geomint::workbench::divergence::of_run;
use geomint::workbench::experiment::RunResult;
use geomint::workbench::output::{self, OutputSet};
use geomint::workbench::plot;
use geomint::workbench::solution;
use std::process::ExitCode;

/// Integrates a run to its target (or to an interrupt or a failed step), then writes its
/// outputs, its summary with how it ended, and its checkpoint, all or nothing. Exit status 0
/// when it completed, 3 when it completed but diverged (0 with `accept_divergent`;
/// [`divergence`]), 130 when it was interrupted, the step's error when a step failed.
pub(crate) fn drive(
    mut session: Session,
    quiet: bool,
    accept_divergent: bool,
    dir: OutputDir,
) -> Result<ExitCode, WorkbenchError> {
    install_interrupt_handler()?;
    // the directory exists and is locked (`dir`): the claim of the session creates nothing
    if let Err(e) = session.claim() {
        dir.abandon();
        return Err(e);
    }
    let what = format!("{} / {}", session.problem().name(), session.config().method.clone().unwrap_or_default());
    let bar = progress(session.target() as u64, quiet, &what);
    bar.set_position(session.step() as u64);
    let outcome = session.advance(&INTERRUPTED, &mut |n| bar.set_position(n as u64));
    bar.finish_and_clear();
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(e) => {
            dir.abandon();
            return Err(e);
        }
    };
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
        dir.abandon();
        return Err(e);
    }
    match outcome {
        Outcome::Completed => Ok(divergence::run_status(&of_run(&result), accept_divergent)),
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
