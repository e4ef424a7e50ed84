//! The `geomint` workbench: run, compare and measure integrators without writing a program.
//!
//! * [`problem`]: the seams — a [`Problem`](problem::Problem) starts a
//!   [`Simulation`](problem::Simulation), both trait objects;
//! * [`methods`]: the method registry (name → trait object over the problem's state);
//! * [`catalogue`]: the problems, with default data, invariants and reference solutions;
//! * [`experiment`]: a run with sampled diagnostics, the order table, work–precision,
//!   ensembles of runs from perturbed initial states;
//! * [`chaos`]: Poincaré sections and MEGNO maps of the problems on `T*R^n` (`geomint poincare`,
//!   `geomint chaos`);
//! * [`output`], [`plot`]: CSV/JSON files and SVG plots, written so that a failed run never
//!   leaves files that look complete;
//! * [`config`]: experiments described in TOML;
//! * [`lock`]: the exclusive lock of an output directory, one command writing there at a time;
//! * [`checkpoint`]: the loop of `geomint run` / `resume`: checkpoints, interrupts, resumption
//!   bit for bit;
//! * [`sample_file`]: the samples of a run, streamed to disk as they are taken and read back in
//!   order; [`digest`]: the bounded set of them that decides its summary and its plots;
//! * [`divergence`]: whether a run's monitored invariants have lost all accuracy (the exit
//!   status of a diverged run);
//! * [`solution`]: the solution error `geomint run` reports (exact, against a computed reference,
//!   or not available, and why);
//! * [`roundoff`]: the round-off of long runs, measured against the same method in double-double
//!   arithmetic;
//! * [`suggest`]: nearest valid names for a mistyped one.

pub mod catalogue;
pub mod chaos;
pub mod checkpoint;
pub mod config;
pub mod digest;
pub mod divergence;
pub mod embedded;
pub mod experiment;
mod family;
pub mod lie_section;
pub mod lock;
pub mod methods;
pub mod output;
pub mod plot;
pub mod problem;
pub mod roundoff;
pub mod run;
pub mod sample_file;
pub mod solution;
pub mod suggest;

/// The workbench's error: bad input (a one-line message for the user), a failure of the
/// integration (the library's typed error), or an I/O failure on the output.
#[derive(Debug, thiserror::Error)]
pub enum WorkbenchError {
    /// Unknown name, bad number, unreadable config: the message says what and what is valid.
    #[error("{0}")]
    Input(String),
    /// The integration failed (Newton did not converge, the state left the domain, …).
    #[error("integration failed: {0}")]
    Geom(#[from] geom_core::GeomError),
    /// A step of the integration failed; the state of the run is the one before that step.
    #[error("integration failed at step {step} (t = {t:.6}): {source}")]
    Step {
        /// The step that failed (1-based).
        step: usize,
        /// The time before the failed step.
        t: f64,
        /// The library's error.
        source: geom_core::GeomError,
    },
    /// Writing the outputs failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file or directory.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// Another process holds the lock of the output directory ([`lock`]): it is writing there.
    #[error(
        "output directory {dir} is in use by another geomint ({holder}); wait for it to end or choose another --out"
    )]
    Locked {
        /// The directory.
        dir: String,
        /// The holder, as its lock file names it: `pid N: COMMAND`.
        holder: String,
    },
    /// Reading an input file failed (missing, not a regular file, larger than its bound,
    /// unreadable).
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The work was stopped by its stop flag (Ctrl-C in Python, read between chunks of steps)
    /// before it ended; its partial results are dropped.
    #[error("stopped before the end (interrupted)")]
    Stopped,
}
