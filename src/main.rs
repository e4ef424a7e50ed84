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
//! bad input is a one-line `error: …` on stderr and exit status 2, a failed integration exit 1,
//! a run or an ensemble that diverged (a monitored invariant with no correct digit left,
//! `geomint::workbench::divergence`) exit 3 unless `--accept-divergent`.
//! `run` and `resume` keep a checkpoint (`geomint::workbench::checkpoint`); Ctrl-C (SIGINT) stops
//! them after the current step with their outputs and checkpoint written, exit status 130.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match cli::args::parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    cli::finish(match cli::dispatch(cli) {
        Ok(code) => code,
        Err(e) => cli::failure(&e),
    })
}
