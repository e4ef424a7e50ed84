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
use geomint::workbench::digest::Digest;
use geomint::workbench::divergence::of_run;
use geomint::workbench::experiment::RunResult;
use geomint::workbench::output::{self, CsvFile, OutputSet};
use geomint::workbench::plot;
use geomint::workbench::sample_file::Shape;
use geomint::workbench::solution;
use std::process::ExitCode;

/// What ends a run besides its outputs: whether a divergent run exits 0 (`--accept-divergent`)
/// and whether a reference solution is computed for its solution error (`--reference`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ending {
    pub(crate) accept_divergent: bool,
    pub(crate) reference: bool,
}

/// Integrates a run to its target (or to an interrupt or a failed step), then writes its
/// outputs, its summary with how it ended, and its checkpoint, all or nothing. Exit status 0
/// when it completed, 3 when it completed but diverged (0 with `accept_divergent`;
/// [`divergence`]), 130 when it was interrupted, the step's error when a step failed.
pub(crate) fn drive(
    mut session: Session,
    quiet: bool,
    ending: Ending,
    dir: OutputDir,
) -> Result<ExitCode, WorkbenchError> {
    install_interrupt_handler()?;
    // a run whose files cannot fit on the disk is refused before anything changes
    if let Err(e) = output::check_space(session.dir(), session.output_bytes()) {
        dir.abandon();
        return Err(e);
    }
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
    let mut files = OutputSet::new();
    let (result, samples) = match stream_csv_files(&mut session, &mut files) {
        Ok(r) => r,
        Err(e) => {
            session.abandon();
            dir.abandon();
            return Err(e);
        }
    };
    let solution =
        solution::of_run(session.problem(), &result, matches!(outcome, Outcome::Completed), ending.reference);
    print_run_summary(session.problem(), &result, session.compensated(), &solution);
    warn_large_errors(&result, session.max_error());

    let summary = output::run_summary_for(
        session.problem(),
        &result,
        &output::RunStatus {
            status: &status,
            target_steps: session.target(),
            compensated: session.compensated(),
            samples,
        },
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
        Outcome::Completed => Ok(divergence::run_status(&of_run(&result), ending.accept_divergent)),
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

/// Writes `trajectory.csv` and `diagnostics.csv` of the run so far row by row, in one pass over its
/// samples ([`Session::for_each_sample`]: read back from the sample file), and adds them to
/// `files`; returns the run's result with a [`Digest`] of its samples, and their number.
fn stream_csv_files(session: &mut Session, files: &mut OutputSet) -> Result<(RunResult, usize), WorkbenchError> {
    let problem = session.problem();
    let (labels, quantities) = (problem.state_labels(), problem.quantities());
    let solution = session.first_sample().solution_error.is_some();
    let (total, shape) = (session.sample_count(), Shape::of(problem));
    let dir = session.dir().to_path_buf();
    let mut trajectory = CsvFile::create(&dir, "trajectory.csv", &output::trajectory_header(&labels))?;
    let mut diagnostics = CsvFile::create(&dir, "diagnostics.csv", &output::diagnostics_header(&quantities, solution))?;
    let mut digest = Digest::new(total, shape);
    session.for_each_sample(&mut |s| {
        trajectory.row(|line| output::trajectory_row(line, s))?;
        diagnostics.row(|line| output::diagnostics_row(line, s))?;
        digest.push(s);
        Ok(())
    })?;
    trajectory.finish()?;
    diagnostics.finish()?;
    files.add_written("trajectory.csv");
    files.add_written("diagnostics.csv");
    Ok((session.result_with(digest.finish()), total))
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
