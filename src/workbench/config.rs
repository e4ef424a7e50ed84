//! Experiments as TOML files: `geomint run --config FILE` reads one, and every run writes the
//! fully resolved configuration as `config.toml` next to its outputs, so that
//! `geomint run --config OUT/config.toml` repeats the run exactly.
//!
//! ```toml
//! problem = "kepler"
//! method = "stormer-verlet"
//! h = 0.01
//! t_end = 100.0        # or: steps = 10000
//! every = 10
//! out = "runs/kepler"        # relative to this file's directory
//! compensated = true          # optional: compensated summation of the increments
//! checkpoint_every = 100000   # optional: a checkpoint every 100000 steps
//! max_error = 0.01             # optional: warn when a monitored error exceeds 0.01
//! state = [0.1, 0.0, 0.0, 4.36] # optional: the initial state (default: the problem's own)
//! # system = "bodies.csv"      # problem "nbody": its file, relative to this file's directory
//! [params]
//! e = 0.9
//! ```

use crate::workbench::WorkbenchError;
use std::collections::BTreeMap;
use std::path::Path;

/// A run described in TOML; absent fields take the command line's values or the problem's
/// defaults.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Problem name.
    pub problem: Option<String>,
    /// Method name.
    pub method: Option<String>,
    /// Step size.
    pub h: Option<f64>,
    /// Number of steps (exclusive with `t_end`).
    pub steps: Option<usize>,
    /// Final time (exclusive with `steps`).
    pub t_end: Option<f64>,
    /// Sample every `every` steps.
    pub every: Option<usize>,
    /// Output directory.
    pub out: Option<String>,
    /// Write a checkpoint every `checkpoint_every` steps (default: by wall time; see
    /// [`crate::workbench::checkpoint`]).
    pub checkpoint_every: Option<usize>,
    /// Warn when a monitored error exceeds this (default 1).
    pub max_error: Option<f64>,
    /// Sum the increments with compensated (Kahan) summation (canonical problems, methods that
    /// compute their increment; see [`crate::workbench::run::CompensatedRun`]). Written only
    /// when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compensated: Option<bool>,
    /// The initial state, in the coordinates of the problem's state labels (default: the
    /// problem's own initial data; see `Problem::with_state`). Written only when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Vec<f64>>,
    /// The file of an N-body system (problem `nbody`; see `catalogue::nbody`), relative to the
    /// config file's directory. Written only when given, as an absolute path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// Problem parameters.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, f64>,
}

impl RunConfig {
    /// Parses a config file; an unreadable or invalid file is a one-line input error. A relative
    /// `out` is taken relative to the file's directory (not to the working directory), so that
    /// the `config.toml` a run writes into its output directory, with `out = "."`, names that
    /// directory wherever it is read from.
    pub fn load(path: &Path) -> Result<Self, WorkbenchError> {
        let text = crate::workbench::output::read_bounded_text(path, crate::workbench::output::MAX_INPUT_BYTES)
            .map_err(|e| WorkbenchError::Input(format!("cannot read config {}: {e}", path.display())))?;
        let mut c =
            Self::parse(&text).map_err(|e| WorkbenchError::Input(format!("invalid config {}: {e}", path.display())))?;
        if let Some(out) = &c.out {
            c.out = Some(relative_to_file(path, Path::new(out)).display().to_string());
        }
        if let Some(system) = &c.system {
            c.system = Some(relative_to_file(path, Path::new(system)).display().to_string());
        }
        Ok(c)
    }
    /// Parses TOML text; `steps` and `t_end` together are refused, as on the command line.
    pub fn parse(text: &str) -> Result<Self, String> {
        let c: Self = toml::from_str(text).map_err(|e: toml::de::Error| e.message().replace('\n', " "))?;
        if c.steps.is_some() && c.t_end.is_some() {
            return Err("give steps or t_end, not both".into());
        }
        Ok(c)
    }
    /// The TOML text of the config.
    pub fn to_toml(&self) -> Result<String, WorkbenchError> {
        let body = toml::to_string(self).map_err(|e| WorkbenchError::Input(format!("cannot write the config: {e}")))?;
        // the version that wrote it, as a comment: replaying with another version stays possible
        Ok(format!("# written by geomint {}\n{body}", env!("CARGO_PKG_VERSION")))
    }
    /// `self` with every field that `other` sets replaced by `other`'s (command line over file).
    pub fn overridden_by(mut self, other: RunConfig) -> Self {
        macro_rules! take {
            ($($f:ident),*) => { $( if other.$f.is_some() { self.$f = other.$f; } )* };
        }
        take!(problem, method, h, steps, t_end, every, out, checkpoint_every, max_error, compensated, state, system);
        if other.steps.is_some() {
            self.t_end = None;
        }
        if other.t_end.is_some() {
            self.steps = None;
        }
        self.params.extend(other.params);
        self
    }
}

/// `out` as seen from the working directory when it is written in the config file `file`: an
/// absolute path as it is, a relative one joined to the file's directory (`.` components
/// dropped, so that `out = "."` in `runs/k/config.toml` is `runs/k`).
pub fn relative_to_file(file: &Path, out: &Path) -> std::path::PathBuf {
    if out.is_absolute() {
        return out.to_path_buf();
    }
    let joined: std::path::PathBuf = file
        .parent()
        .unwrap_or(Path::new(""))
        .join(out)
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    if joined.as_os_str().is_empty() { std::path::PathBuf::from(".") } else { joined }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        let c = RunConfig::parse("problem = \"kepler\"\nh = 0.01\nsteps = 10\n[params]\ne = 0.9\n").unwrap();
        assert_eq!(c.problem.as_deref(), Some("kepler"));
        assert_eq!(c.params.get("e"), Some(&0.9));
        assert_eq!(RunConfig::parse(&c.to_toml().unwrap()).unwrap(), c);
        assert!(RunConfig::parse("problme = \"kepler\"").is_err());
        assert!(RunConfig::parse("h = \"big\"").is_err());
        assert!(RunConfig::parse("steps = 10\nt_end = 5.0").is_err());
        // the optional run options: absent from the text unless set, and read back
        assert!(!c.to_toml().unwrap().contains("checkpoint_every"));
        let d = RunConfig::parse("checkpoint_every = 500\nmax_error = 0.25\n").unwrap();
        assert_eq!((d.checkpoint_every, d.max_error), (Some(500), Some(0.25)));
        assert_eq!(RunConfig::parse(&d.to_toml().unwrap()).unwrap(), d);
        let cli = RunConfig { t_end: Some(5.0), ..Default::default() };
        let merged = c.overridden_by(cli);
        assert_eq!((merged.steps, merged.t_end), (None, Some(5.0)));
    }
}
