//! The step sweeps of `convergence` and `compare`: the problem, the final time and the halved step
//! counts, and the `config.toml` that repeats the sweep.

use crate::cli::args::SweepArgs;
use crate::cli::params::parse_params;
use geomint::workbench::experiment;
use geomint::workbench::problem::Problem;
use geomint::workbench::{WorkbenchError, catalogue};

/// A sweep resolved against its problem: the problem, the final time and the step counts,
/// after checking every method name.
pub(crate) struct Sweep {
    pub(crate) problem: Box<dyn Problem>,
    pub(crate) t_end: f64,
    pub(crate) counts: Vec<usize>,
}

impl SweepArgs {
    /// The sweep of these options for `methods` (each checked against the problem).
    pub(crate) fn resolve(&self, methods: &[String]) -> Result<Sweep, WorkbenchError> {
        let problem = catalogue::problem(&self.problem, &parse_params(&self.params)?)?;
        for m in methods {
            geomint::workbench::problem::check_method(problem.as_ref(), m)?;
        }
        let t_end = self.t_end.unwrap_or_else(|| short_t_end(problem.as_ref()));
        let counts = experiment::halvings(t_end, self.h.unwrap_or(problem.defaults().0), self.levels)?;
        Ok(Sweep { problem, t_end, counts })
    }
}

/// The default final time of the order and work–precision experiments: short enough that the
/// finest of six halvings runs in seconds.
fn short_t_end(problem: &dyn Problem) -> f64 {
    let (h, t) = problem.defaults();
    (t / 10.0).min(200.0 * h).max(h)
}

/// The `config.toml` of a sweep (`convergence` or `compare`): the command line that repeats it
/// and the resolved values (final time, step counts, parameters), with the geomint version.
pub(crate) fn sweep_config(
    command: &str,
    sweep: &SweepArgs,
    methods: &[String],
    t_end: f64,
    counts: &[usize],
) -> Result<String, WorkbenchError> {
    #[derive(serde::Serialize)]
    struct SweepConfig<'a> {
        command: String,
        problem: &'a str,
        methods: &'a [String],
        t_end: f64,
        levels: usize,
        steps: &'a [usize],
        params: std::collections::BTreeMap<String, f64>,
    }
    let params: std::collections::BTreeMap<String, f64> = parse_params(&sweep.params)?.into_iter().collect();
    let flag = if command == "compare" {
        format!("--methods {}", methods.join(","))
    } else {
        format!("--method {}", methods.join(","))
    };
    let mut line = format!("geomint {command} {} {flag} --t-end {t_end:e} --levels {}", sweep.problem, sweep.levels);
    if let Some(h) = sweep.h {
        line += &format!(" --h {h:e}");
    }
    for (k, v) in &params {
        line += &format!(" --param {k}={v:e}");
    }
    let config = SweepConfig {
        command: line,
        problem: &sweep.problem,
        methods,
        t_end,
        levels: sweep.levels,
        steps: counts,
        params,
    };
    let body = toml::to_string(&config).map_err(|e| WorkbenchError::Input(format!("cannot write the config: {e}")))?;
    Ok(format!("# written by geomint {}; repeat with `command`\n{body}", env!("CARGO_PKG_VERSION")))
}
