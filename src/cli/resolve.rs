//! The problem of a run or an ensemble: a catalogue problem or an N-body system file, from its
//! own initial state or a given one.

use geomint::workbench::problem::Problem;
use geomint::workbench::{WorkbenchError, catalogue, suggest};
use std::path::PathBuf;

/// The problem of a run or an ensemble ([`resolve_problem`]).
pub(crate) struct Resolved {
    /// The problem's name (`nbody` when only a system file is given).
    pub(crate) name: String,
    /// The problem, started from the given state where one is given.
    pub(crate) problem: Box<dyn Problem>,
    /// The system file, as an absolute path (so that the saved config names it from anywhere).
    pub(crate) system: Option<PathBuf>,
}

/// The problem of a run or an ensemble: the catalogue problem or the N-body system of the file,
/// started from `state` where given ([`catalogue::resolve`]).
pub(crate) fn resolve_problem(
    name: Option<&str>,
    params: &std::collections::BTreeMap<String, f64>,
    system: Option<&str>,
    state: Option<&[f64]>,
) -> Result<Resolved, WorkbenchError> {
    let system = system.map(|s| std::fs::canonicalize(s).unwrap_or_else(|_| PathBuf::from(s)));
    let name = match (name, &system) {
        (Some(n), _) => n.to_string(),
        // a .toml file is a system of formulas, any other file a file of bodies
        (None, Some(file)) if file.extension().is_some_and(|e| e == "toml") => catalogue::system::NAME.to_string(),
        (None, Some(_)) => catalogue::nbody::NAME.to_string(),
        (None, None) => {
            let mut valid = catalogue::names();
            valid.extend([catalogue::nbody::NAME, catalogue::system::NAME]);
            return Err(WorkbenchError::Input(format!("no problem given; {}", suggest::did_you_mean("", &valid))));
        }
    };
    let params: Vec<(String, f64)> = params.iter().map(|(k, v)| (k.clone(), *v)).collect();
    let problem = catalogue::resolve(&name, &params, system.as_deref(), state)?;
    Ok(Resolved { name, problem, system })
}
