//! The problem catalogue: every problem by name, with its parameters. A problem added to
//! [`ENTRIES`] is listed by `geomint list` and runs with every method of its family.

pub mod canonical;
pub mod groupoid;
pub mod lie;

use crate::workbench::WorkbenchError;
use crate::workbench::problem::Problem;
use canonical::{Canonical, HarmonicOscillator, HenonHeiles, Kepler, OuterSolarSystem, Pendulum};

/// A problem parameter settable with `--param NAME=VALUE`.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Name.
    pub name: &'static str,
    /// Default value.
    pub default: f64,
    /// Meaning and admissible range.
    pub about: &'static str,
}

/// Builds a problem from its parameter values.
pub type Builder = fn(&[f64]) -> Result<Box<dyn Problem>, WorkbenchError>;

/// A catalogue entry: a name, its parameters and the constructor.
pub struct Entry {
    /// The problem's name.
    pub name: &'static str,
    /// Its parameters.
    pub params: &'static [Param],
    /// Builds the problem from parameter values (in the order of `params`).
    pub build: Builder,
}

/// The catalogue, in the order `geomint list` prints it.
pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "harmonic-oscillator",
        params: &[Param { name: "omega", default: 1.0, about: "frequency ω > 0" }],
        build: |v| {
            if !(v[0].is_finite() && v[0] > 0.0) {
                return Err(WorkbenchError::Input(format!("omega must be finite and positive, got {}", v[0])));
            }
            Ok(Box::new(Canonical::<_, 1>(HarmonicOscillator { omega: v[0] })))
        },
    },
    Entry { name: "pendulum", params: &[], build: |_| Ok(Box::new(Canonical::<_, 1>(Pendulum))) },
    Entry {
        name: "kepler",
        params: &[Param { name: "e", default: 0.6, about: "eccentricity, 0 ≤ e < 1" }],
        build: |v| {
            if !(v[0].is_finite() && (0.0..1.0).contains(&v[0])) {
                return Err(WorkbenchError::Input(format!("eccentricity e must be in [0, 1), got {}", v[0])));
            }
            Ok(Box::new(Canonical::<_, 2>(Kepler { e: v[0] })))
        },
    },
    Entry { name: "henon-heiles", params: &[], build: |_| Ok(Box::new(Canonical::<_, 2>(HenonHeiles))) },
    Entry { name: "outer-solar-system", params: &[], build: |_| Ok(Box::new(Canonical::<_, 18>(OuterSolarSystem))) },
    Entry { name: "rigid-body", params: &[], build: |_| Ok(Box::new(lie::RigidBody::new()?)) },
    Entry { name: "heavy-top", params: &[], build: |_| Ok(Box::new(lie::HeavyTopProblem::new()?)) },
    Entry { name: "underwater-vehicle", params: &[], build: |_| Ok(Box::new(lie::Vehicle::new()?)) },
    Entry { name: "spherical-pendulum", params: &[], build: |_| Ok(Box::new(groupoid::SphericalPendulum)) },
    Entry { name: "plate-ball", params: &[], build: |_| Ok(Box::new(groupoid::PlateBall::new())) },
    Entry { name: "so3-optimal-control", params: &[], build: |_| Ok(Box::new(groupoid::So3OptimalControl::new())) },
];

/// The names of the catalogue.
pub fn names() -> Vec<&'static str> {
    ENTRIES.iter().map(|e| e.name).collect()
}

/// The problem `name` with parameters `params` (`(name, value)`, others at their defaults);
/// an unknown problem or parameter is an input error naming the nearest valid ones.
pub fn problem(name: &str, params: &[(String, f64)]) -> Result<Box<dyn Problem>, WorkbenchError> {
    let entry = ENTRIES.iter().find(|e| e.name == name).ok_or_else(|| {
        WorkbenchError::Input(format!(
            "unknown problem '{name}'; {}",
            crate::workbench::suggest::did_you_mean(name, &names())
        ))
    })?;
    let mut values: Vec<f64> = entry.params.iter().map(|p| p.default).collect();
    for (key, value) in params {
        let i = entry.params.iter().position(|p| p.name == key).ok_or_else(|| {
            let valid: Vec<&str> = entry.params.iter().map(|p| p.name).collect();
            WorkbenchError::Input(if valid.is_empty() {
                format!("problem '{name}' has no parameters (got '{key}')")
            } else {
                format!(
                    "unknown parameter '{key}' for '{name}'; {}",
                    crate::workbench::suggest::did_you_mean(key, &valid)
                )
            })
        })?;
        values[i] = *value;
    }
    (entry.build)(&values)
}
