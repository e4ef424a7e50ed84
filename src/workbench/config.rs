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
//! out = "runs/kepler"
//! checkpoint_every = 100000   # optional: a checkpoint every 100000 steps
//! max_error = 0.01             # optional: warn when a monitored error exceeds 0.01
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
    /// Problem parameters.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, f64>,
}

impl RunConfig {
    /// Parses a config file; an unreadable or invalid file is a one-line input error.
    pub fn load(path: &Path) -> Result<Self, WorkbenchError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| WorkbenchError::Input(format!("cannot read config {}: {e}", path.display())))?;
        Self::parse(&text).map_err(|e| WorkbenchError::Input(format!("invalid config {}: {e}", path.display())))
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
        take!(problem, method, h, steps, t_end, every, out, checkpoint_every, max_error);
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
