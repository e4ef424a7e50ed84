//! The two seams of the workbench: a [`Problem`] (a mechanical system with its default data,
//! invariants and reference solution) starts a [`Simulation`] (one state advanced by one named
//! method). Both are trait objects, so the driver, the writers and the plots never see a state
//! type; each simulation is monomorphic inside its step.

use crate::workbench::WorkbenchError;
use crate::workbench::methods::{self, MethodInfo};
use geom_core::GeomError;

/// What a monitored quantity is, which decides how its error is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The Hamiltonian or another energy: error `|E(t) − E(0)| / |E(0)|`.
    Energy,
    /// A (Noether) momentum map: error `|J(t) − J(0)| / |J(0)|` (absolute if `J(0) = 0`).
    Momentum,
    /// A Casimir of the Lie–Poisson bracket: error as for a momentum.
    Casimir,
    /// A constraint `φ = 0`, or the defect of a point from its manifold: error `|φ(t)|`.
    Constraint,
}

/// A quantity monitored along a run: its name (a CSV column stem), kind and dimension.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Quantity {
    /// Column stem, e.g. `energy`, `casimir`, `J`.
    pub name: &'static str,
    /// How the error is measured.
    pub kind: Kind,
    /// Number of components (3 for a momentum in so(3)*, 1 for a scalar).
    pub dim: usize,
    /// One line: the formula, e.g. `|Π|²`.
    pub formula: &'static str,
}

impl Quantity {
    /// A quantity of `dim` components.
    pub const fn new(name: &'static str, kind: Kind, dim: usize, formula: &'static str) -> Self {
        Self { name, kind, dim, formula }
    }

    /// The error of the value `v` against the initial value `v0` (see [`Kind`]): relative in the
    /// Euclidean norm for conserved quantities (absolute when `|v0| = 0`), `|v|` for constraints.
    pub fn error(&self, v: &[f64], v0: &[f64]) -> f64 {
        match self.kind {
            Kind::Constraint => norm(v),
            _ => {
                let d = v.iter().zip(v0).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
                let s = norm(v0);
                if s > 0.0 { d / s } else { d }
            }
        }
    }
}

/// Euclidean norm of a slice.
pub fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

/// The state space a problem lives on; it selects the methods that apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Canonical Hamiltonian systems on `T*R^n` (`PhaseState<N>`).
    Canonical,
    /// Left-trivialized systems on `T*G` for a matrix Lie group (`LieState`).
    LieGroup,
    /// Discrete Lagrangian flows on a Lie groupoid, possibly constrained.
    Groupoid,
}

impl Family {
    /// The family's name as printed by `geomint list`.
    pub fn name(self) -> &'static str {
        match self {
            Family::Canonical => "canonical T*R^n",
            Family::LieGroup => "Lie group T*G",
            Family::Groupoid => "Lie groupoid",
        }
    }
}

/// A running integration: the state after `steps()` steps of the fixed step `h()`.
///
/// `advance` either moves the state by one step or returns the error and leaves it untouched.
pub trait Simulation {
    /// The step size the simulation was started with.
    fn h(&self) -> f64;
    /// Steps taken so far.
    fn steps(&self) -> usize;
    /// The time `t_0 + steps · h`.
    fn time(&self) -> f64 {
        self.steps() as f64 * self.h()
    }
    /// One step of the method.
    fn advance(&mut self) -> Result<(), GeomError>;
    /// The state in the coordinates of [`Problem::state_labels`].
    fn state(&self) -> Vec<f64>;
    /// The current values of [`Problem::quantities`], concatenated.
    fn quantities(&self) -> Vec<f64>;
    /// The exact state — every number the next step depends on — for a checkpoint, or `None` if
    /// this simulation cannot be saved (a resumed run then replays its steps from the start,
    /// which gives the same bits, only slower).
    fn save(&self) -> Option<Vec<f64>> {
        None
    }
    /// Sets the state to `words` (as written by [`Simulation::save`]) after `steps` steps; an
    /// error, with nothing changed, if the words do not fit or the simulation cannot be restored.
    fn restore(&mut self, _words: &[f64], _steps: usize) -> Result<(), GeomError> {
        Err(GeomError::InvalidParameter { what: "state", reason: "this simulation cannot be restored".into() })
    }
}

/// A problem of the catalogue.
pub trait Problem: Send + Sync {
    /// The name used on the command line (`kepler`, `rigid-body`, …).
    fn name(&self) -> &'static str;
    /// One line: the system and its default data.
    fn summary(&self) -> &'static str;
    /// The state space, which selects the applicable methods.
    fn family(&self) -> Family;
    /// Names of the methods of the registry that apply, the first being the default.
    fn methods(&self) -> Vec<&'static str> {
        methods::for_family(self.family()).iter().map(|m| m.name).collect()
    }
    /// The default step size and final time.
    fn defaults(&self) -> (f64, f64);
    /// The labels of the state coordinates (CSV columns).
    fn state_labels(&self) -> Vec<String>;
    /// The monitored invariants and constraints.
    fn quantities(&self) -> Vec<Quantity>;
    /// The exact solution at time `t`, in the state coordinates, where one is known.
    fn exact(&self, _t: f64) -> Option<Vec<f64>> {
        None
    }
    /// The order of `method` on this problem: the registry's unless the problem's data limit it
    /// (e.g. a first-order start of a discrete Lagrangian flow).
    fn order_of(&self, method: &MethodInfo) -> u32 {
        method.order
    }
    /// A high-order method (and a step divisor) for a reference solution where no exact one is
    /// known: the reference is that method at `h / divisor`.
    fn reference(&self) -> (&'static str, usize);
    /// Starts `method` with step `h` from the default initial data. The method is one of
    /// [`Problem::methods`]; the caller has checked `h`.
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError>;
}

/// The registry row of `method` if it applies to `problem`, else an input error naming the
/// nearest valid methods.
pub fn check_method(problem: &dyn Problem, method: &str) -> Result<&'static MethodInfo, WorkbenchError> {
    let names = problem.methods();
    match methods::find(method) {
        Some(info) if names.contains(&method) => Ok(info),
        Some(info) => Err(WorkbenchError::Input(format!(
            "method '{method}' ({}) does not apply to problem '{}' ({}); {}",
            info.family.name(),
            problem.name(),
            problem.family().name(),
            crate::workbench::suggest::did_you_mean(method, &names)
        ))),
        None => Err(WorkbenchError::Input(format!(
            "unknown method '{method}' for problem '{}'; {}",
            problem.name(),
            crate::workbench::suggest::did_you_mean(method, &names)
        ))),
    }
}

/// Checks the method name against the problem and the step size, then starts the simulation.
pub fn start(problem: &dyn Problem, method: &str, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
    if !(h.is_finite() && h > 0.0) {
        return Err(WorkbenchError::Input(format!("step size must be finite and positive, got {h}")));
    }
    let info = check_method(problem, method)?;
    problem.start_method(info, h)
}
