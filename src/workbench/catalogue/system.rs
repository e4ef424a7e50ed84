//! A user's Hamiltonian system on `T*R^n` (or Lagrangian system on `TR^n`, [below](#a-lagrangian))
//! written as formulas in a TOML file (`geomint run --system FILE.toml`, problem `system`): the
//! Hamiltonian `H(q, p)`, or its
//! separable parts `T(p)` and `V(q)`, with named coordinates, momenta and parameters, parsed
//! once by [`geom_core::formula`] and evaluated at every scalar, so that the derivatives are the
//! library's automatic differentiation and every canonical method applies (explicit for a
//! declared separable `H = T(p) + V(q)`, implicit otherwise).
//!
//! ```toml
//! name = "Kepler problem"                  # optional: printed in the run header
//! q = ["x", "y"]                           # coordinate names (1 to 4)
//! p = ["px", "py"]                         # momentum names, as many
//! H = "0.5*(px^2 + py^2) - mu/sqrt(x^2 + y^2)"
//! # or, declared separable (explicit methods):
//! # T = "0.5*(px^2 + py^2)"                # in the momenta only
//! # V = "-mu/sqrt(x^2 + y^2)"              # in the coordinates only
//! q0 = [0.4, 0.0]
//! p0 = [0.0, 2.0]
//! h = 0.01                                 # optional default step (default 0.01)
//! t_end = 20.0                             # optional default final time (default 10)
//!
//! [params]                                 # optional; --param mu=2 overrides
//! mu = 1.0
//!
//! [invariants]                             # optional: monitored like the energy
//! angular_momentum = "x*py - y*px"
//! ```
//!
//! The energy `H` is always monitored; each invariant is a formula in `q` and `p`, reported
//! with its relative error (absolute where it starts at 0). A file with an unknown key, a
//! formula that does not parse (the error names the formula and the column), names that do not
//! match, or an `H` that is not finite at the initial state is an input error naming the file.
//!
//! # A Lagrangian
//!
//! Instead of `p`, `p0` and `H` (or `T` and `V`), a file may give a Lagrangian `L(q, v)` with
//! velocity names `v` and initial velocities `v0` (the two forms exclude each other):
//!
//! ```toml
//! q = ["x", "y"]
//! v = ["vx", "vy"]                         # velocity names, as many, distinct from q's
//! L = "0.5*(vx^2 + vy^2) + mu/sqrt(x^2 + y^2)"
//! q0 = [0.4, 0.0]
//! v0 = [0.0, 2.0]                          # p0 = ∂L/∂v(q0, v0) is computed
//!
//! [invariants]                             # formulas in q and v
//! angular_momentum = "x*vy - y*vx"
//! ```
//!
//! It runs with `del-midpoint`, the discrete Euler–Lagrange flow of the midpoint discrete
//! Lagrangian `L_d(q_0, q_1) = h L((q_0 + q_1)/2, (q_1 − q_0)/h)` on the pair groupoid, on the
//! state `(q, p)`, `p = ∂L/∂v` (columns `p_<coordinate>`), monitoring the energy
//! `E = v·∂L/∂v − L` ([`super::lagrangian_system`]). `L` must be regular at `(q0, v0)`
//! (`∂²L/∂v²` invertible); a file that mixes the forms or lacks `v` or `v0` is an input error.

use crate::workbench::WorkbenchError;
use crate::workbench::catalogue::canonical::{Canonical, CanonicalSystem};
/// `s` as a `&'static str` (the catalogue's [`super::intern`], where it is defined).
pub use crate::workbench::catalogue::intern;
use crate::workbench::catalogue::lagrangian_system;
use crate::workbench::problem::{Kind, Problem, Quantity};
use discretization::PhaseState;
use geom_core::formula::{FormulaFunction, FormulaHamiltonian};
use geom_core::function::{Derivatives, Hessian, PhaseSpaceDerivatives, Separable};
use nalgebra::SVector;
use std::collections::BTreeMap;
use std::path::Path;

/// The problem's name.
pub const NAME: &str = "system";

/// The numbers of degrees of freedom a system file may have: the state's size is part of the
/// methods' types, compiled for each of these (1 to 4, and 6 and 9: three bodies in the plane or
/// in space).
pub const DEGREES: [usize; 6] = [1, 2, 3, 4, 6, 9];

/// The largest of [`DEGREES`].
pub const MAX_DEGREES: usize = 9;

/// [`DEGREES`] as text: `1 to 4, 6 or 9`.
pub const DEGREES_TEXT: &str = "1 to 4, 6 or 9";

/// A system of formulas (module documentation): what a TOML system file holds, a Hamiltonian or a
/// Lagrangian, also built in memory (the Python package's `geomint.hamiltonian` and
/// `geomint.lagrangian`). [`SystemSpec::problem`] checks it.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct SystemSpec {
    /// A name for the run header.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Coordinate names `q_1 … q_n`.
    pub q: Vec<String>,
    /// Momentum names `p_1 … p_n` (a Hamiltonian system).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub p: Vec<String>,
    /// Velocity names `v_1 … v_n` (a Lagrangian system).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub v: Vec<String>,
    /// `L(q, v)` (instead of `H`, or `T` and `V`).
    #[serde(rename = "L", skip_serializing_if = "Option::is_none")]
    pub lagrangian: Option<String>,
    /// `H(q, p)` (or give `T` and `V`).
    #[serde(rename = "H", skip_serializing_if = "Option::is_none")]
    pub hamiltonian: Option<String>,
    /// `T(p)` of a separable `H = T(p) + V(q)`.
    #[serde(rename = "T", skip_serializing_if = "Option::is_none")]
    pub kinetic: Option<String>,
    /// `V(q)` of a separable `H = T(p) + V(q)`.
    #[serde(rename = "V", skip_serializing_if = "Option::is_none")]
    pub potential: Option<String>,
    /// Initial coordinates.
    pub q0: Vec<f64>,
    /// Initial momenta (a Hamiltonian system).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub p0: Vec<f64>,
    /// Initial velocities (a Lagrangian system; the momenta are `p0 = ∂L/∂v(q0, v0)`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub v0: Vec<f64>,
    /// Default step (0.01).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub h: Option<f64>,
    /// Default final time (10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_end: Option<f64>,
    /// Parameters and their values.
    #[serde(default)]
    pub params: BTreeMap<String, f64>,
    /// Monitored invariants: name and formula in `q` and `p` (in `q` and `v` for a Lagrangian
    /// system).
    #[serde(default)]
    pub invariants: BTreeMap<String, String>,
}

impl SystemSpec {
    /// The system of the TOML file `path`; input errors name the file.
    pub fn read(path: &Path) -> Result<Self, WorkbenchError> {
        let origin = format!("system file {}", path.display());
        let text = std::fs::read_to_string(path).map_err(|e| input(&origin, format!("cannot read it: {e}")))?;
        Self::from_toml(&text, &origin)
    }
    /// The system of the TOML text `text`; `origin` (e.g. `system file F`) starts the messages.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, WorkbenchError> {
        toml::from_str(text).map_err(|e| input(origin, e.message()))
    }
    /// The TOML text of the system (what [`SystemSpec::from_toml`] reads back).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }
    /// The problem of the system with its parameters overridden by `overrides` (a name it does
    /// not declare is an input error listing those it does); `origin` starts the messages.
    pub fn problem(&self, overrides: &[(String, f64)], origin: &str) -> Result<Box<dyn Problem>, WorkbenchError> {
        self.check_form().map_err(|m| input(origin, m))?;
        let n = self.q.len();
        match n {
            1 => build::<1>(origin, self.clone(), overrides),
            2 => build::<2>(origin, self.clone(), overrides),
            3 => build::<3>(origin, self.clone(), overrides),
            4 => build::<4>(origin, self.clone(), overrides),
            6 => build::<6>(origin, self.clone(), overrides),
            9 => build::<9>(origin, self.clone(), overrides),
            _ => Err(input(origin, format!("q names {n} coordinates; a system has {DEGREES_TEXT}"))),
        }
    }
    /// Whether the system is a Lagrangian `L(q, v)` (else a Hamiltonian).
    pub fn is_lagrangian(&self) -> bool {
        self.lagrangian.is_some()
    }
    /// The keys of one form only: `L` with `v` and `v0`, or `H` (or `T` and `V`) with `p` and
    /// `p0`; a message naming what is mixed or missing.
    fn check_form(&self) -> Result<(), String> {
        let hamiltonian = self.hamiltonian.is_some() || self.kinetic.is_some() || self.potential.is_some();
        if self.is_lagrangian() {
            if hamiltonian {
                return Err(
                    "give either a Lagrangian L (with velocity names v and v0) or a Hamiltonian H, or T and V \
                            (with momentum names p and p0), not both"
                        .into(),
                );
            }
            if !self.p.is_empty() || !self.p0.is_empty() {
                return Err("a Lagrangian L takes velocity names v and initial velocities v0, not p or p0 (the \
                            momenta p = ∂L/∂v are computed)"
                    .into());
            }
            if self.v.is_empty() {
                return Err("L needs the velocity names v (one per coordinate of q)".into());
            }
            if self.v0.is_empty() {
                return Err("L needs the initial velocities v0".into());
            }
        } else {
            if !self.v.is_empty() || !self.v0.is_empty() {
                return Err("v and v0 (velocity names and initial velocities) go with a Lagrangian L; a Hamiltonian \
                            takes momentum names p and initial momenta p0"
                    .into());
            }
            if self.p.is_empty() {
                return Err("missing the momentum names p (or give a Lagrangian L with velocity names v)".into());
            }
            if self.p0.is_empty() {
                return Err("missing the initial momenta p0".into());
            }
        }
        Ok(())
    }
}

/// The derivatives of a formula Hamiltonian: the compiled symbolic derivatives of `H(q, p)`, or
/// of the declared separable parts `T(p) + V(q)` (then the methods take their explicit forms);
/// equal to automatic differentiation of the formulas to round-off (`geom_core::formula`).
#[derive(Debug, Clone)]
pub enum FormulaDerivatives<const N: usize> {
    /// A general `H(q, p)`.
    General(FormulaHamiltonian<N>),
    /// `H = T(p) + V(q)`, declared separable.
    Separable(Separable<Derivatives<FormulaFunction<N>>, Derivatives<FormulaFunction<N>>>),
}

macro_rules! both {
    ($self:ident, $h:ident => $e:expr) => {
        match $self {
            FormulaDerivatives::General($h) => $e,
            FormulaDerivatives::Separable($h) => $e,
        }
    };
}

impl<const N: usize> PhaseSpaceDerivatives<N> for FormulaDerivatives<N> {
    fn value(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> f64 {
        both!(self, h => h.value(q, p))
    }
    fn gradient(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> (SVector<f64, N>, SVector<f64, N>) {
        both!(self, h => h.gradient(q, p))
    }
    fn hessian(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> Hessian<N> {
        both!(self, h => h.hessian(q, p))
    }
    fn gradient_q(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        both!(self, h => h.gradient_q(q, p))
    }
    fn gradient_p(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        both!(self, h => h.gradient_p(q, p))
    }
    fn is_separable(&self) -> bool {
        matches!(self, FormulaDerivatives::Separable(_))
    }
    fn gradient_and_hessian(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> ((SVector<f64, N>, SVector<f64, N>), Hessian<N>) {
        both!(self, h => h.gradient_and_hessian(q, p))
    }
}

/// A system read from a file, with `N` degrees of freedom: the [`CanonicalSystem`] of
/// [`Canonical`], so that it runs like the catalogue's systems.
#[derive(Debug, Clone)]
pub struct FormulaSystem<const N: usize> {
    summary: &'static str,
    energy: &'static str,
    hamiltonian: FormulaDerivatives<N>,
    initial: PhaseState<N>,
    defaults: (f64, f64),
    labels: Vec<String>,
    invariants: Vec<(Quantity, FormulaHamiltonian<N>)>,
}

impl<const N: usize> CanonicalSystem<N> for FormulaSystem<N> {
    type H = FormulaDerivatives<N>;
    const NAME: &'static str = NAME;
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn hamiltonian(&self) -> FormulaDerivatives<N> {
        self.hamiltonian.clone()
    }
    fn initial(&self) -> PhaseState<N> {
        self.initial
    }
    fn defaults(&self) -> (f64, f64) {
        self.defaults
    }
    fn labels(&self) -> Vec<String> {
        self.labels.clone()
    }
    fn energy_formula(&self) -> &'static str {
        self.energy
    }
    fn invariants(&self) -> Vec<Quantity> {
        self.invariants.iter().map(|(q, _)| q.clone()).collect()
    }
    fn measure(&self, s: &PhaseState<N>, out: &mut Vec<f64>) {
        use geom_core::function::PhaseSpaceFunction;
        out.extend(self.invariants.iter().map(|(_, f)| f.eval(&s.q, &s.p)));
    }
}

fn input(origin: &str, msg: impl std::fmt::Display) -> WorkbenchError {
    WorkbenchError::Input(format!("{origin}: {msg}"))
}

/// The problem of the system file `path` ([`SystemSpec::read`], [`SystemSpec::problem`]).
pub fn read(path: &Path, params: &[(String, f64)]) -> Result<Box<dyn Problem>, WorkbenchError> {
    SystemSpec::read(path)?.problem(params, &format!("system file {}", path.display()))
}

/// `file`'s parameters with `overrides` set; a name the file does not declare is a message
/// listing those it does.
fn apply_overrides(file: &mut SystemSpec, overrides: &[(String, f64)]) -> Result<(), String> {
    for (key, value) in overrides {
        match file.params.get_mut(key) {
            Some(v) => *v = *value,
            None => {
                let known: Vec<&str> = file.params.keys().map(String::as_str).collect();
                return Err(if known.is_empty() {
                    format!("the system has no parameters (got --param {key})")
                } else {
                    format!("unknown parameter '{key}'; the system's parameters: {}", known.join(", "))
                });
            }
        }
    }
    Ok(())
}

fn build<const N: usize>(
    origin: &str,
    mut file: SystemSpec,
    overrides: &[(String, f64)],
) -> Result<Box<dyn Problem>, WorkbenchError> {
    let fail = |msg: String| input(origin, msg);
    apply_overrides(&mut file, overrides).map_err(fail)?;
    let params: Vec<(&str, f64)> = file.params.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let (h, t_end) = (file.h.unwrap_or(0.01), file.t_end.unwrap_or(10.0));
    if !(h.is_finite() && h > 0.0 && t_end.is_finite() && t_end > 0.0) {
        return Err(fail(format!("h and t_end must be finite and positive, got {h} and {t_end}")));
    }
    if let Some(text) = &file.lagrangian {
        let invariants: Vec<(String, String)> = file.invariants.clone().into_iter().collect();
        return lagrangian_system::build::<N>(lagrangian_system::Parts {
            problem: NAME,
            origin,
            name: file.name.as_deref(),
            text,
            q: &file.q,
            v: &file.v,
            q0: &file.q0,
            v0: &file.v0,
            params: &params,
            invariants: &invariants,
            defaults: (h, t_end),
        });
    }
    if file.p.len() != N || file.q0.len() != N || file.p0.len() != N {
        return Err(fail(format!(
            "q names {N} coordinates, but p names {}, q0 has {} values and p0 {}",
            file.p.len(),
            file.q0.len(),
            file.p0.len()
        )));
    }
    if !file.q0.iter().chain(&file.p0).all(|v| v.is_finite()) {
        return Err(fail("q0 and p0 must be finite".into()));
    }
    let q: Vec<&str> = file.q.iter().map(String::as_str).collect();
    let p: Vec<&str> = file.p.iter().map(String::as_str).collect();
    let hamiltonian = match (&file.hamiltonian, &file.kinetic, &file.potential) {
        (Some(h), None, None) => FormulaDerivatives::General(
            FormulaHamiltonian::parse(h, &q, &p, &params).map_err(|e| fail(format!("H: {e}")))?,
        ),
        (None, Some(t), Some(v)) => {
            let t = FormulaFunction::parse(t, &p, &params)
                .map_err(|e| fail(format!("T: {e} (T(p) is a function of the momenta only)")))?;
            let v = FormulaFunction::parse(v, &q, &params)
                .map_err(|e| fail(format!("V: {e} (V(q) is a function of the coordinates only)")))?;
            FormulaDerivatives::Separable(Separable::from_derivatives(t, v))
        }
        _ => return Err(fail("give either H, or both T and V (a separable H = T(p) + V(q))".into())),
    };
    let initial = PhaseState::new(SVector::from_column_slice(&file.q0), SVector::from_column_slice(&file.p0));
    let e0 = hamiltonian.value(&initial.q, &initial.p);
    let (gq, gp): (SVector<f64, N>, SVector<f64, N>) = hamiltonian.gradient(&initial.q, &initial.p);
    if !e0.is_finite() || !gq.iter().chain(gp.iter()).all(|v| v.is_finite()) {
        return Err(fail(format!("H or its gradient is not finite at the initial state (H = {e0})")));
    }
    let mut invariants = Vec::new();
    for (name, text) in std::mem::take(&mut file.invariants) {
        let f = FormulaHamiltonian::<N>::parse(&text, &q, &p, &params)
            .map_err(|e| fail(format!("invariant {name}: {e}")))?;
        let about = intern(&text);
        invariants.push((Quantity::new(intern(&name), Kind::Momentum, 1, about), f));
    }
    let what = match &file.hamiltonian {
        Some(h) => format!("H = {h}"),
        None => format!(
            "H = T + V, T = {}, V = {}",
            file.kinetic.as_deref().unwrap_or(""),
            file.potential.as_deref().unwrap_or("")
        ),
    };
    let summary = intern(&match &file.name {
        Some(name) => format!("{name}: {what} ({origin})"),
        None => format!("{what} ({origin})"),
    });
    let labels = file.q.iter().chain(&file.p).cloned().collect();
    let energy = intern(if file.hamiltonian.is_some() { "H(q, p) as given" } else { "H = T(p) + V(q) as given" });
    let system = FormulaSystem { summary, energy, hamiltonian, initial, defaults: (h, t_end), labels, invariants };
    Ok(Box::new(Canonical::<_, N>::new(system)))
}
