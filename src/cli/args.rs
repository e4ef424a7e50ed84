//! The command line: the clap grammar of `geomint` and its subcommands (their `--help` texts are
//! the doc comments here), and [`parse`], which turns a clap error into one line on stderr.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "geomint", version, about = "Run, compare and measure structure-preserving integrators")]
pub(crate) struct Cli {
    /// No progress bars.
    #[arg(long, short, global = true)]
    pub(crate) quiet: bool,
    /// Output directory (of the showcase when no command is given; default geomint-showcase).
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// The problem catalogue and the method registry, one line each.
    List,
    /// Integrate one problem with one method; write trajectory, diagnostics, summary and plots.
    Run(RunArgs),
    /// Continue the run whose checkpoint is in DIR, bit for bit as one uninterrupted run.
    Resume(ResumeArgs),
    /// The measured order: global errors and slopes over halved steps, and an error-vs-h plot.
    Convergence(ConvergenceArgs),
    /// Work–precision of several methods: wall time against solution and energy errors.
    Compare(CompareArgs),
    /// Many runs from perturbed initial states, in parallel: a table of their errors.
    Ensemble(EnsembleArgs),
    /// The Poincaré section of a canonical problem or of a problem on a Lie group: its crossings
    /// of a hyperplane `x_i = c`, located by the library's event location, as section.csv and
    /// section.svg.
    Poincare(PoincareArgs),
    /// A MEGNO chaos map of a canonical problem or of a problem on a Lie group: ⟨Y⟩ over a grid
    /// of initial conditions, in parallel, as chaos.csv and chaos.svg.
    Chaos(ChaosArgs),
    /// The showcase (also what `geomint` with no command runs).
    Showcase {
        /// Output directory (default geomint-showcase).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Args, Debug)]
pub(crate) struct RunArgs {
    /// Problem name (see `geomint list`).
    pub(crate) problem: Option<String>,
    /// Method name (default: the problem's first method).
    #[arg(long, short)]
    pub(crate) method: Option<String>,
    /// Step size (default: the problem's).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) h: Option<f64>,
    /// Number of steps.
    #[arg(long, conflicts_with = "t_end")]
    pub(crate) steps: Option<usize>,
    /// Final time (default: the problem's).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) t_end: Option<f64>,
    /// Sample every K steps (default: about 1000 samples).
    #[arg(long)]
    pub(crate) every: Option<usize>,
    /// Output directory (default: runs/PROBLEM-METHOD).
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    /// A TOML experiment file (its `out` is relative to the file's directory); command-line
    /// options override it.
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// Problem parameter, NAME=VALUE (repeatable), e.g. `--param e=0.9` for kepler.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub(crate) params: Vec<String>,
    /// Write the checkpoint every N steps (default: every 30 s of integration).
    #[arg(long, value_name = "N")]
    pub(crate) checkpoint_every: Option<usize>,
    /// Warn on stderr when a monitored error exceeds this (default 1).
    #[arg(long, allow_negative_numbers = true, value_name = "ERROR")]
    pub(crate) max_error: Option<f64>,
    /// Sum the increments with compensated (Kahan) summation (canonical problems; methods that
    /// compute their increment, e.g. stormer-verlet, gauss2, rk4).
    #[arg(long)]
    pub(crate) compensated: bool,
    /// Write into an output directory that is not empty (replacing the run in it); without it,
    /// `run` refuses such a directory.
    #[arg(long)]
    pub(crate) force: bool,
    /// The initial state, comma-separated, in the coordinates of the problem's trajectory.csv
    /// columns, e.g. `--state 0.4,0,0,2` for kepler (default: the problem's own).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, value_name = "X1,X2,...")]
    pub(crate) state: Option<Vec<f64>>,
    /// The bodies of problem `nbody`: a file of `mass, x, y, z, vx, vy, vz` lines (or
    /// `mass, x, y, vx, vy` in the plane); implies `nbody` when no problem is given.
    #[arg(long, value_name = "FILE")]
    pub(crate) system: Option<PathBuf>,
    /// Exit with status 0 even if the run diverges. Without it, a run whose monitored conserved
    /// quantity reaches a relative error of 1 (no digit left), or whose error is not finite,
    /// exits with status 3 after writing its outputs.
    #[arg(long)]
    pub(crate) accept_divergent: bool,
    /// Measure the solution error of a problem without an exact solution against a computed
    /// reference at the final time (DOP853 at rtol = atol = 1e-15 for canonical problems, a
    /// Richardson extrapolation otherwise). It costs more than the run, often many times, so it
    /// is off by default: the solution error is then reported only against an exact solution.
    #[arg(long)]
    pub(crate) reference: bool,
}

#[derive(Args, Debug)]
pub(crate) struct ResumeArgs {
    /// The output directory of the run, with its checkpoint.
    pub(crate) dir: PathBuf,
    /// The total number of steps to reach (default: the run's --steps).
    #[arg(long)]
    pub(crate) steps: Option<usize>,
    /// Write the checkpoint every N steps (default: the run's setting).
    #[arg(long, value_name = "N")]
    pub(crate) checkpoint_every: Option<usize>,
    /// Warn on stderr when a monitored error exceeds this (default: the run's setting, else 1).
    #[arg(long, allow_negative_numbers = true, value_name = "ERROR")]
    pub(crate) max_error: Option<f64>,
    /// Exit with status 0 even if the resumed run diverges. Without it, a run whose monitored conserved
    /// quantity reaches a relative error of 1 (no digit left), or whose error is not finite,
    /// exits with status 3 after writing its outputs.
    #[arg(long)]
    pub(crate) accept_divergent: bool,
    /// Measure the solution error against a computed reference at the final time (as `run
    /// --reference`; off by default, it costs more than the run).
    #[arg(long)]
    pub(crate) reference: bool,
}

/// The options shared by the step sweeps of `convergence` and `compare`.
#[derive(Args, Debug)]
pub(crate) struct SweepArgs {
    /// Problem name.
    pub(crate) problem: String,
    /// Final time (default: a tenth of the problem's, at most 200 steps of its h).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) t_end: Option<f64>,
    /// Coarsest step (default: the problem's step).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) h: Option<f64>,
    /// Number of halvings.
    #[arg(long, default_value_t = 6)]
    pub(crate) levels: usize,
    /// Problem parameter, NAME=VALUE.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub(crate) params: Vec<String>,
    /// Output directory (default: runs/PROBLEM-METHOD-convergence or runs/PROBLEM-compare).
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct ConvergenceArgs {
    #[command(flatten)]
    pub(crate) sweep: SweepArgs,
    /// Method name.
    #[arg(long, short)]
    pub(crate) method: String,
}

#[derive(Args, Debug)]
pub(crate) struct CompareArgs {
    #[command(flatten)]
    pub(crate) sweep: SweepArgs,
    /// Comma-separated method names.
    #[arg(long, value_delimiter = ',', required = true)]
    pub(crate) methods: Vec<String>,
}

#[derive(Args, Debug)]
pub(crate) struct EnsembleArgs {
    /// Problem name (see `geomint list`; `nbody` with --system).
    pub(crate) problem: Option<String>,
    /// Method name (default: the problem's first method).
    #[arg(long, short)]
    pub(crate) method: Option<String>,
    /// Step size (default: the problem's).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) h: Option<f64>,
    /// Number of steps of every member.
    #[arg(long, conflicts_with = "t_end")]
    pub(crate) steps: Option<usize>,
    /// Final time (default: the problem's).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) t_end: Option<f64>,
    /// Sample the errors every K steps (default: about 1000 samples per member).
    #[arg(long)]
    pub(crate) every: Option<usize>,
    /// Number of members.
    #[arg(long)]
    pub(crate) members: usize,
    /// Size ε of the perturbation: each coordinate moves by ε times a standard normal sample
    /// (along the group or the constraints where the problem has them).
    #[arg(long, allow_negative_numbers = true, value_name = "EPS")]
    pub(crate) perturb: f64,
    /// Seed of the perturbations (the same seed gives the same members).
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// The state the members are perturbed from, comma-separated (default: the problem's own).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, value_name = "X1,X2,...")]
    pub(crate) state: Option<Vec<f64>>,
    /// The bodies of problem `nbody` (see `geomint run --help`).
    #[arg(long, value_name = "FILE")]
    pub(crate) system: Option<PathBuf>,
    /// Problem parameter, NAME=VALUE (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub(crate) params: Vec<String>,
    /// Threads (default: all cores).
    #[arg(long)]
    pub(crate) threads: Option<usize>,
    /// Write ensemble.csv (one row per member) into this directory.
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    /// Exit with status 0 even if members diverge. Without it, an ensemble with a member whose
    /// monitored conserved quantity reaches a relative error of 1 (no digit left), or whose error
    /// is not finite, exits with status 3 after its table and file.
    #[arg(long)]
    pub(crate) accept_divergent: bool,
}

#[derive(Args, Debug)]
pub(crate) struct PoincareArgs {
    /// Problem name: a canonical problem on T*R^n or a problem on a Lie group (see `geomint
    /// list`), e.g. henon-heiles, heavy-top; `system` (implied) with --system FILE.toml.
    pub(crate) problem: Option<String>,
    /// A system file: a Hamiltonian of formulas or a system on a Lie group (`.toml`, see
    /// `geomint run --help`).
    #[arg(long, value_name = "FILE")]
    pub(crate) system: Option<PathBuf>,
    /// Method name (default: the problem's first method).
    #[arg(long, short)]
    pub(crate) method: Option<String>,
    /// Step size (default: the problem's).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) h: Option<f64>,
    /// Number of crossings to collect (per initial state).
    #[arg(long, default_value_t = 200, value_name = "N")]
    pub(crate) crossings: usize,
    /// The section COORDINATE=VALUE, a coordinate of the problem's state (the columns of its
    /// trajectory.csv: q1, q2, …, p1, p2, … on T*R^n; R11 … R33, Pi1 … Pi3 on T*SO(3)) [default:
    /// the first coordinate = 0 on T*R^n (q1=0), the first momentum = 0 on T*G (Pi1=0, mu1=0)].
    #[arg(long, allow_hyphen_values = true)]
    pub(crate) section: Option<String>,
    /// The crossings that count: up (the coordinate increasing), down, or both.
    #[arg(long, default_value = "up")]
    pub(crate) direction: String,
    /// Start K orbits on the section at the initial state's energy, spread along the axis of
    /// the plotted position coordinate (its momentum 0), instead of one from the initial state.
    #[arg(long, value_name = "K")]
    pub(crate) states: Option<usize>,
    /// Stop at this time if the crossings are not all found (default: 50 per crossing asked).
    #[arg(long, allow_negative_numbers = true, value_name = "T")]
    pub(crate) t_max: Option<f64>,
    /// The initial state, comma-separated (default: the problem's own).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, value_name = "X1,X2,...")]
    pub(crate) state: Option<Vec<f64>>,
    /// Problem parameter, NAME=VALUE (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub(crate) params: Vec<String>,
    /// Output directory (default: runs/PROBLEM-poincare).
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct ChaosArgs {
    /// Problem name: a canonical problem on T*R^n or a problem on a Lie group (see `geomint
    /// list`), e.g. henon-heiles, heavy-top; `system` (implied) with --system FILE.toml.
    pub(crate) problem: Option<String>,
    /// A system file: a Hamiltonian of formulas or a system on a Lie group (`.toml`, see
    /// `geomint run --help`).
    #[arg(long, value_name = "FILE")]
    pub(crate) system: Option<PathBuf>,
    /// Method name (default: the problem's first method).
    #[arg(long, short)]
    pub(crate) method: Option<String>,
    /// Step size (default: the problem's).
    #[arg(long, allow_negative_numbers = true)]
    pub(crate) h: Option<f64>,
    /// Integration time of every orbit.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1000.0)]
    pub(crate) t_end: f64,
    /// The grid, NxM points (N along the first plane coordinate): the plane (q2, p2) on the
    /// section q1 = 0 on T*R^n (n ≥ 2), (q1, p1) for one degree of freedom, (Pi2, Pi3) (mu2,
    /// mu3) at the initial attitude on T*G.
    #[arg(long, default_value = "30x30", value_name = "NxM")]
    pub(crate) grid: String,
    /// The rectangle A0:A1,B0:B1 of the plane (default: the region the energy level reaches,
    /// or twice the initial state's size for one degree of freedom).
    #[arg(long, allow_hyphen_values = true, value_name = "A0:A1,B0:B1")]
    pub(crate) range: Option<String>,
    /// The energy of the map, from which p1 (T*R^n, n ≥ 2) or the first momentum Pi1 / mu1
    /// (T*G) ≥ 0 is solved at each point (default: that of the initial state).
    #[arg(long, allow_negative_numbers = true, value_name = "E")]
    pub(crate) energy: Option<f64>,
    /// Threads (default: all cores; more than the cores are capped).
    #[arg(long)]
    pub(crate) threads: Option<usize>,
    /// Problem parameter, NAME=VALUE (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub(crate) params: Vec<String>,
    /// Output directory (default: runs/PROBLEM-chaos).
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
}

/// The parsed command line; `Err` is the exit status after `--help` or `--version` (0, printed)
/// or after bad arguments (2, one line `error: …` on stderr).
pub(crate) fn parse() -> Result<Cli, ExitCode> {
    match Cli::try_parse() {
        Ok(c) => Ok(c),
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return Err(ExitCode::SUCCESS);
            }
            // one line: clap's first line, joined with the next when it ends in ':'
            let text = e.to_string();
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
            let mut first = lines.next().unwrap_or("error: invalid arguments").to_string();
            if first.ends_with(':') {
                first = format!("{first} {}", lines.next().unwrap_or(""));
            }
            eprintln!("{first} (see `geomint --help`)");
            Err(ExitCode::from(2))
        }
    }
}
