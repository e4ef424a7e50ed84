//! The commands of the `geomint` binary, one module per command and one per shared concern:
//!
//! * [`args`]: the clap grammar and its one-line errors;
//! * [`dispatch`]: a parsed command line to its command;
//! * the commands: [`list`], [`run`] (with `resume`), [`convergence`], [`compare`],
//!   [`ensemble`], [`poincare`], [`chaos`], [`showcase`]; [`drive`] integrates a run or a resumed run and writes its
//!   files, [`summary`] and [`diagnostics`] are what a run prints and plots, [`divergence`] the
//!   exit status of a run or an ensemble that diverged; [`sweep`] is shared
//!   by `convergence` and `compare`, [`resolve`] by `run` and `ensemble`;
//! * the helpers: [`interrupt`] (Ctrl-C), [`progress`] (bars), [`files`] (the output directory
//!   and its files), [`params`] (`--param`), [`format`] (numbers).
//!
//! The modules import downwards only: the commands use the helpers, `dispatch` the commands.

/// `println!` that neither panics nor forgets a failed write: a closed stdout (e.g.
/// `geomint list | head -1`) is ignored, any other error (a full disk, `> /dev/full`) is kept by
/// [`stdout_failed`] and turns the exit status into 1 ([`finish`]).
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($t)*) {
            $crate::cli::stdout_failed(e);
        }
    }};
}

/// The first error writing to stdout other than a closed pipe.
static STDOUT_ERROR: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Keeps `e` unless stdout was closed by its reader (a broken pipe is not an error of ours).
pub(crate) fn stdout_failed(e: std::io::Error) {
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        let _ = STDOUT_ERROR.set(e.to_string());
    }
}

/// The exit status of a command that returned `code`: stdout is flushed, and a failed write to
/// it makes a successful command fail with status 1 and one line on stderr.
pub(crate) fn finish(code: ExitCode) -> ExitCode {
    use std::io::Write as _;
    if let Err(e) = std::io::stdout().flush() {
        stdout_failed(e);
    }
    match STDOUT_ERROR.get() {
        Some(e) if code == ExitCode::SUCCESS => {
            eprintln!("error: cannot write to standard output: {e}");
            ExitCode::from(1)
        }
        _ => code,
    }
}

pub(crate) mod args;
mod chaos;
mod compare;
mod convergence;
mod diagnostics;
mod divergence;
mod drive;
mod ensemble;
mod files;
mod format;
mod interrupt;
mod list;
mod params;
mod poincare;
mod progress;
mod resolve;
mod run;
mod showcase;
mod summary;
mod sweep;

use args::{Cli, Command};
use geomint::workbench::WorkbenchError;
use std::path::PathBuf;
use std::process::ExitCode;

/// Runs the command of `cli`: its exit status, or the error that ends it.
pub(crate) fn dispatch(cli: Cli) -> Result<ExitCode, WorkbenchError> {
    let quiet = cli.quiet;
    // `geomint --out DIR COMMAND` means the same as `geomint COMMAND --out DIR`
    let top = cli.out;
    let showcase_dir = |out: Option<PathBuf>| out.or(top.clone()).unwrap_or_else(|| PathBuf::from("geomint-showcase"));
    let done = |r: Result<(), WorkbenchError>| r.map(|()| ExitCode::SUCCESS);
    match cli.command {
        None => done(showcase::showcase(&showcase_dir(None), quiet)),
        Some(Command::Showcase { out }) => done(showcase::showcase(&showcase_dir(out), quiet)),
        Some(Command::List) => {
            list::list();
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Run(mut args)) => {
            args.out = args.out.or(top);
            run::run(args, quiet)
        }
        Some(Command::Resume(args)) => run::resume(args, quiet),
        Some(Command::Convergence(mut args)) => {
            args.sweep.out = args.sweep.out.or(top);
            done(convergence::convergence(args, quiet))
        }
        Some(Command::Ensemble(mut args)) => {
            args.out = args.out.or(top);
            ensemble::ensemble(args, quiet)
        }
        Some(Command::Compare(mut args)) => {
            args.sweep.out = args.sweep.out.or(top);
            done(compare::compare(args, quiet))
        }
        Some(Command::Poincare(mut args)) => {
            args.out = args.out.or(top);
            done(poincare::poincare(args))
        }
        Some(Command::Chaos(mut args)) => {
            args.out = args.out.or(top);
            done(chaos::chaos(args, quiet))
        }
    }
}

/// The exit status of a command that failed with `e`, after printing `error: …` on stderr: 130
/// if it was interrupted, 2 for bad input, 1 otherwise.
pub(crate) fn failure(e: &WorkbenchError) -> ExitCode {
    eprintln!("error: {e}");
    if interrupt::interrupted() {
        return ExitCode::from(130);
    }
    ExitCode::from(if matches!(e, WorkbenchError::Input(_)) { 2 } else { 1 })
}
