//! The output directory of a command and the files written there: checked before any
//! integration, and written all or nothing ([`geomint::workbench::output`]).

use geomint::workbench::WorkbenchError;
use geomint::workbench::output::{self, OutputSet};
use std::path::Path;

/// Runs `body` after checking that `out` can be written (before any integration); if `body`
/// fails, the directories the check created are removed again if they are still empty.
pub(crate) fn with_output_dir<T>(
    out: &Path,
    body: impl FnOnce() -> Result<T, WorkbenchError>,
) -> Result<T, WorkbenchError> {
    let created = output::check_writable(out)?;
    let result = body();
    if result.is_err() {
        created.remove_if_empty();
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
