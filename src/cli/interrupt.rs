//! Ctrl-C (SIGINT), SIGTERM and SIGHUP during `run` and `resume`: the first stops the run after
//! its current step, with its outputs and checkpoint written (exit status 130); a second one exits
//! at once.

use geomint::workbench::WorkbenchError;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first Ctrl-C (SIGINT) of `run` or `resume`; read once per step.
pub(crate) static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The first Ctrl-C (SIGINT), SIGTERM or SIGHUP sets [`INTERRUPTED`], and the run stops after its
/// current step with its outputs and checkpoint written (exit status 130); a second one exits at
/// once (the files on the disk are whole either way: every one is written to a temporary name and
/// renamed).
pub(crate) fn install_interrupt_handler() -> Result<(), WorkbenchError> {
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

/// Whether a Ctrl-C (SIGINT), SIGTERM or SIGHUP has been received.
pub(crate) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}
