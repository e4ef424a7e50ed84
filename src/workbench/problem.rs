//! The two seams of the workbench: a [`Problem`] (a mechanical system with its default data,
//! invariants and reference solution) starts a [`Simulation`] (one state advanced by one named
//! method). Both are trait objects, so the driver, the writers and the plots never see a state
//! type; each simulation is monomorphic inside its step.

use crate::workbench::WorkbenchError;
pub use crate::workbench::family::Family;
use crate::workbench::methods::{self, MethodInfo};
pub use integrators::driver::Propagator;

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

/// A running integration: a library run ([`Propagator`]: the state after `steps()` steps of
/// the fixed step `h()`, advanced by `advance_by(n)`, saved and restored as exact words), read
/// in the problem's coordinates and quantities. The driver's one loop
/// (`integrators::driver::drive`) runs it.
pub trait Simulation: Propagator {
    /// The state in the coordinates of [`Problem::state_labels`].
    fn state(&self) -> Vec<f64>;
    /// The current values of [`Problem::quantities`], concatenated.
    fn quantities(&self) -> Vec<f64>;
}

/// A problem of the catalogue.
pub trait Problem: Send + Sync {
    /// The name used on the command line (`kepler`, `rigid-body`, …).
    fn name(&self) -> &'static str;
    /// One line: the system and its default data.
    fn summary(&self) -> &'static str;
    /// The state space, which selects the applicable methods.
    fn family(&self) -> Family;
    /// Names of the methods of the registry that apply, the first being the default: by default
    /// those of the family but the planetary ones ([`methods::PLANETARY`]), which the N-body
    /// problems add, and the Lagrange top's ([`methods::LAGRANGE_TOP`]), which `lagrange-top`
    /// adds.
    fn methods(&self) -> Vec<&'static str> {
        methods::for_family(self.family())
            .iter()
            .map(|m| m.name)
            .filter(|n| !methods::PLANETARY.contains(n) && !methods::LAGRANGE_TOP.contains(n))
            .collect()
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
    /// The initial data, in the coordinates of [`Problem::state_labels`]: the state that
    /// [`Problem::with_state`] takes, so that `p.with_state(&p.initial_state()?)` runs as `p`,
    /// bit for bit. For the canonical and Lie-group problems it is the state at `t = 0`; for a
    /// discrete flow on a groupoid it is the continuous data its first arrow is built from (the
    /// state it reports at step 0 may differ from it by `O(h²)`). The default is the state at
    /// `t = 0` of the first method at the default step.
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        let name = self.methods().first().copied().unwrap_or_default();
        let info = methods::find(name)
            .ok_or_else(|| WorkbenchError::Input(format!("problem '{}' has no method", self.name())))?;
        Ok(self.start_method(info, self.defaults().0)?.state())
    }
    /// The same problem started from `state` (coordinates of [`Problem::state_labels`]) instead
    /// of its own initial data. An input error, naming the problem, for a state of the wrong
    /// length or with a value that is not finite ([`check_state`]), or off the problem's
    /// manifold or constraints by more than [`STATE_TOLERANCE`] ([`off_manifold`]). The default
    /// refuses every state.
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        let _ = state;
        Err(WorkbenchError::Input(format!("problem '{}' takes no initial state", self.name())))
    }
    /// A state near `state`, for an ensemble: `state + ε z` coordinate by coordinate, with `z`
    /// drawn from `normal` (standard normal samples). Problems on a manifold or with constraints
    /// override it to move along the manifold (`g ↦ g exp(ε ξ)` on a Lie group) and to project
    /// back onto the constraints, so that the result is a valid [`Problem::with_state`].
    fn perturb(&self, state: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
        state.iter().map(|x| x + eps * normal()).collect()
    }
    /// Starts `method` with step `h` and compensated summation of its increments (see
    /// [`crate::workbench::run::CompensatedRun`]). Only the canonical problems (a state in
    /// `T*R^n`, where an increment is a vector) have it; the others refuse with an input error.
    fn start_compensated(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        let _ = (method, h);
        Err(WorkbenchError::Input(format!(
            "--compensated applies to the {} problems only, not to '{}' ({}): its state is not a vector to sum into",
            Family::Canonical.name(),
            self.name(),
            self.family().name()
        )))
    }
    /// The problem's Poincaré sections and MEGNO maps
    /// ([`crate::workbench::chaos::PhaseSpace`]): the canonical problems on `T*R^n` and the
    /// problems on a Lie group's `T*G` (the rigid body, the heavy and Lagrange tops, the
    /// underwater vehicle, the Lie-group system files) have them; the others (with constraints,
    /// time-dependent, on a groupoid, N-body) do not.
    fn phase_space(&self) -> Option<&dyn crate::workbench::chaos::PhaseSpace> {
        None
    }
}

/// The largest defect a given state may have from the problem's manifold or constraints: the
/// distance of a rotation from SO(3) (`|RᵀR − I| + |det R − 1|`), of `|q|` from 1 on a sphere,
/// of a constrained velocity from 0. The integrators keep these at round-off (about 1e-15), so
/// a state off by more than 1e-9 is a mistake in the input, not rounding.
pub const STATE_TOLERANCE: f64 = 1e-9;

/// Whether `|defect| ≤` [`STATE_TOLERANCE`] (a `NaN` defect is not).
pub fn within_tolerance(defect: f64) -> bool {
    defect.abs() <= STATE_TOLERANCE
}

/// `a, b, c` for up to twelve labels, else the first two, `…` and the last.
pub fn label_list(labels: &[String]) -> String {
    if labels.len() <= 12 {
        labels.join(", ")
    } else {
        format!("{}, {}, …, {}", labels[0], labels[1], labels[labels.len() - 1])
    }
}

/// An input error unless `state` has one finite value per coordinate of `problem`
/// ([`Problem::state_labels`]); the message names the problem and the coordinate.
pub fn check_state(problem: &dyn Problem, state: &[f64]) -> Result<(), WorkbenchError> {
    let labels = problem.state_labels();
    if state.len() != labels.len() {
        return Err(WorkbenchError::Input(format!(
            "a state of '{}' has {} coordinates ({}), got {}",
            problem.name(),
            labels.len(),
            label_list(&labels),
            state.len()
        )));
    }
    if let Some(i) = state.iter().position(|v| !v.is_finite()) {
        return Err(WorkbenchError::Input(format!(
            "state coordinate {} of '{}' must be finite, got {}",
            labels[i],
            problem.name(),
            state[i]
        )));
    }
    Ok(())
}

/// The input error of a state of `problem` off its manifold or constraints; `what` says which
/// and by how much.
pub fn off_manifold(problem: &str, what: impl std::fmt::Display) -> WorkbenchError {
    WorkbenchError::Input(format!("a state of '{problem}' is not admissible: {what} (tolerance {STATE_TOLERANCE:e})"))
}

/// The registry row of `method` if it applies to `problem`, else an input error naming the
/// nearest valid methods.
pub fn check_method(problem: &dyn Problem, method: &str) -> Result<&'static MethodInfo, WorkbenchError> {
    let names = problem.methods();
    match methods::find(method) {
        Some(info) if names.contains(&method) => Ok(info),
        Some(info) if info.family == problem.family() => Err(WorkbenchError::Input(format!(
            "method '{method}' does not apply to problem '{}'; {}",
            problem.name(),
            crate::workbench::suggest::did_you_mean(method, &names)
        ))),
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

/// [`start`] with compensated summation when `compensated` is set ([`Problem::start_compensated`]).
pub fn start_with(
    problem: &dyn Problem,
    method: &str,
    h: f64,
    compensated: bool,
) -> Result<Box<dyn Simulation>, WorkbenchError> {
    if !compensated {
        return start(problem, method, h);
    }
    if !(h.is_finite() && h > 0.0) {
        return Err(WorkbenchError::Input(format!("step size must be finite and positive, got {h}")));
    }
    let info = check_method(problem, method)?;
    problem.start_compensated(info, h)
}
