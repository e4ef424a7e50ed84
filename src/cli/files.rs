//! The output directory of a command and the files written there: checked before any
//! integration, and written all or nothing ([`geomint::workbench::output`]).

use geomint::workbench::WorkbenchError;
use geomint::workbench::lock::DirLock;
use geomint::workbench::output::{self, Created, OutputSet};
use std::path::Path;

/// The output directory of a command while it writes there: checked writable (created if
/// missing) and locked ([`geomint::workbench::lock`]), so that a second command on the same
/// directory fails at once with [`WorkbenchError::Locked`]. Dropping it releases the lock.
pub(crate) struct OutputDir {
    created: Created,
    lock: DirLock,
}

impl OutputDir {
    /// Checks that files can be written in `dir` (creating it) and locks it for this command.
    pub(crate) fn claim(dir: &Path) -> Result<Self, WorkbenchError> {
        let created = output::check_writable(dir)?;
        match DirLock::acquire(dir, &command_line()) {
            Ok(lock) => Ok(Self { created, lock }),
            Err(e) => {
                created.remove_if_empty();
                Err(e)
            }
        }
    }

    /// After a failure: releases the lock and removes the directories the claim created if they
    /// are still empty.
    pub(crate) fn abandon(mut self) {
        self.lock.release();
        self.created.remove_if_empty();
    }
}

/// This process's command line, `geomint ARGS…`, for the lock file.
fn command_line() -> String {
    std::iter::once("geomint".to_string()).chain(std::env::args().skip(1)).collect::<Vec<_>>().join(" ")
}

/// Runs `body` after checking that `out` can be written (before any integration) and locking it
/// ([`OutputDir`]); if `body` fails, the directories the check created are removed again if they
/// are still empty.
pub(crate) fn with_output_dir<T>(
    out: &Path,
    body: impl FnOnce() -> Result<T, WorkbenchError>,
) -> Result<T, WorkbenchError> {
    let dir = OutputDir::claim(out)?;
    let result = body();
    if result.is_err() {
        dir.abandon();
    }
    result
}

/// Commits `files` to `dir` (all or nothing) and prints their names.
pub(crate) fn write_outputs(files: OutputSet, dir: &Path) -> Result<(), WorkbenchError> {
    let names = files.names().join(", ");
    files.commit(dir)?;
    say!("wrote {names} to {}", dir.display());
    Ok(())
}

/// `v` as pretty-printed JSON with a final newline.
pub(crate) fn json(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| "{}".into()) + "\n"
}
