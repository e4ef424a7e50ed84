//! A user's Lagrangian system `L(q, v)` on `TR^n` written as a formula in a TOML system file
//! (the `L` form of [`super::system`]; `geomint run --system FILE.toml`, problem `system`),
//! integrated by the variational integrators of the pair groupoid `R^n × R^n`.
//!
//! The formula is a [`FormulaLagrangian`], evaluated at every scalar; its midpoint discrete
//! Lagrangian
//!
//! ```text
//!   L_d(q_0, q_1) = h L((q_0 + q_1)/2, (q_1 − q_0)/h)
//! ```
//!
//! (`groupoid::time_dependent::Midpoint`) is integrated by the groupoid layer's discrete
//! Euler–Lagrange flow in position–momentum form (`groupoid::integrator::GroupoidIntegrator` on
//! the pair groupoid, method `del-midpoint`; Marsden & West, *Discrete mechanics and variational
//! integrators*, Acta Numerica 10, 2001):
//!
//! ```text
//!   solve  p_k = −D_1 L_d(q_k, q_{k+1})  for q_{k+1}   (Newton, exact derivatives by AD),
//!   then   p_{k+1} = D_2 L_d(q_k, q_{k+1}).
//! ```
//!
//! The state shown is `(q, p)`, `p = ∂L/∂v` the momentum conjugate to `q` (columns named
//! `p_<coordinate>`); the run starts from `q0` and the momentum `p0 = ∂L/∂v(q0, v0)` of the given
//! velocities `v0`. The energy `E = v·∂L/∂v − L` is monitored at the velocity `v` that solves
//! `∂L/∂v(q, v) = p` (the inverse Legendre transform, by Newton's method,
//! [`FormulaLagrangian::velocity`]), and so are the file's invariants, formulas in the
//! coordinates and velocities. Averaging the two momenta gives `(p_k + p_{k+1})/2 = ∂L/∂v(q̄, Δq/h)`
//! and `p_{k+1} − p_k = h ∂L/∂q(q̄, Δq/h)`, so this flow is the implicit midpoint rule of the
//! Legendre-transformed Hamiltonian (the cotangent lift of the midpoint discretization map:
//! Barbero-Liñán, Marrero & Martín de Diego, *From retraction maps to symplectic-momentum
//! numerical integrators*, 2024, arXiv:2401.14800); the tests check the two routes agree.

use crate::workbench::WorkbenchError;
use crate::workbench::catalogue::intern;
use crate::workbench::methods::MethodInfo;
use crate::workbench::problem::{Family, Kind, Problem, Quantity, Simulation, check_state};
use crate::workbench::run::{Observe, Run};
use geom_core::formula::FormulaLagrangian;
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::step::{OneStep, PhaseState};
use groupoid::PairGroupoid;
use groupoid::integrator::{GroupoidIntegrator, Stepped};
use groupoid::time_dependent::Midpoint;
use nalgebra::{DMatrix, SVector};

/// The method of a Lagrangian system file: the discrete Euler–Lagrange flow of the midpoint
/// discrete Lagrangian on the pair groupoid.
pub const METHOD: &str = "del-midpoint";

/// The smallest ratio of the smallest to the largest singular value of `∂²L/∂v²` at the initial
/// state for which `L` counts as regular (the Legendre map invertible).
pub const REGULARITY: f64 = 1e-12;

/// What a Lagrangian system file gives, checked by [`super::system::SystemSpec::problem`].
pub(super) struct Parts<'a> {
    /// The problem's name (`system`).
    pub problem: &'static str,
    pub origin: &'a str,
    pub name: Option<&'a str>,
    pub text: &'a str,
    pub q: &'a [String],
    pub v: &'a [String],
    pub q0: &'a [f64],
    pub v0: &'a [f64],
    pub params: &'a [(&'a str, f64)],
    pub invariants: &'a [(String, String)],
    pub defaults: (f64, f64),
}

/// A Lagrangian system of formulas with `N` degrees of freedom (module documentation).
#[derive(Debug, Clone)]
pub struct LagrangianSystem<const N: usize> {
    name: &'static str,
    summary: &'static str,
    lagrangian: FormulaLagrangian<N>,
    initial: PhaseState<N>,
    defaults: (f64, f64),
    labels: Vec<String>,
    invariants: Vec<(Quantity, FormulaLagrangian<N>)>,
}

fn input(origin: &str, msg: impl std::fmt::Display) -> WorkbenchError {
    WorkbenchError::Input(format!("{origin}: {msg}"))
}

/// `Ok` if `∂²L/∂v²` at `(q, v)` is finite and invertible (its singular values within
/// [`REGULARITY`] of each other's scale), else a message saying why `L` is not regular there.
fn regular<const N: usize>(l: &FormulaLagrangian<N>, q: &SVector<f64, N>, v: &SVector<f64, N>) -> Result<(), String> {
    let m = l.mass_matrix(q, v);
    if !m.iter().all(|x| x.is_finite()) {
        return Err("∂²L/∂v² is not finite at (q0, v0)".into());
    }
    let s = DMatrix::from_column_slice(N, N, m.as_slice()).singular_values();
    let (lo, hi) = (s.min(), s.max());
    if hi == 0.0 || lo <= REGULARITY * hi {
        return Err(format!(
            "L is not regular at (q0, v0): ∂²L/∂v² is singular (singular values {lo:e} to {hi:e}), so the Legendre \
             map p = ∂L/∂v cannot be inverted (is L linear in the velocities?)"
        ));
    }
    Ok(())
}

/// The problem of a Lagrangian system file with `N = parts.q.len()` degrees of freedom.
pub(super) fn build<const N: usize>(parts: Parts<'_>) -> Result<Box<dyn Problem>, WorkbenchError> {
    let fail = |msg: String| input(parts.origin, msg);
    if parts.v.len() != N || parts.q0.len() != N || parts.v0.len() != N {
        return Err(fail(format!(
            "q names {N} coordinates, but v names {}, q0 has {} values and v0 {}",
            parts.v.len(),
            parts.q0.len(),
            parts.v0.len()
        )));
    }
    if let Some(name) = parts.v.iter().find(|n| parts.q.contains(n)) {
        return Err(fail(format!("'{name}' names both a coordinate (q) and a velocity (v); give them distinct names")));
    }
    if !parts.q0.iter().chain(parts.v0).all(|x| x.is_finite()) {
        return Err(fail("q0 and v0 must be finite".into()));
    }
    let q: Vec<&str> = parts.q.iter().map(String::as_str).collect();
    let v: Vec<&str> = parts.v.iter().map(String::as_str).collect();
    let lagrangian = FormulaLagrangian::<N>::parse(parts.text, &q, &v, parts.params)
        .map_err(|e| fail(format!("L: {e} (L(q, v) is a function of the coordinates q and velocities v)")))?;
    let (q0, v0) = (SVector::from_column_slice(parts.q0), SVector::from_column_slice(parts.v0));
    let l0 = lagrangian.value(&q0, &v0);
    let p0 = lagrangian.momentum(&q0, &v0);
    if !l0.is_finite() || !p0.iter().all(|x| x.is_finite()) {
        return Err(fail(format!("L or ∂L/∂v is not finite at the initial state (L = {l0})")));
    }
    regular(&lagrangian, &q0, &v0).map_err(fail)?;
    let mut invariants = Vec::new();
    for (name, text) in parts.invariants {
        let f = FormulaLagrangian::<N>::parse(text, &q, &v, parts.params)
            .map_err(|e| fail(format!("invariant {name}: {e} (a formula in q and v)")))?;
        invariants.push((Quantity::new(intern(name), Kind::Momentum, 1, intern(text)), f));
    }
    let what = format!("L = {}", parts.text);
    let summary = intern(&match parts.name {
        Some(name) => format!("{name}: {what} ({})", parts.origin),
        None => format!("{what} ({})", parts.origin),
    });
    let labels = parts.q.iter().cloned().chain(parts.q.iter().map(|n| format!("p_{n}"))).collect();
    let system = LagrangianSystem {
        name: parts.problem,
        summary,
        lagrangian,
        initial: PhaseState::new(q0, p0),
        defaults: parts.defaults,
        labels,
        invariants,
    };
    Ok(Box::new(system))
}

impl<const N: usize> LagrangianSystem<N> {
    /// The velocity at `(q, p)` ([`FormulaLagrangian::velocity`] from `v = 0`).
    fn velocity(&self, s: &PhaseState<N>) -> geom_core::Result<SVector<f64, N>> {
        self.lagrangian.velocity(&s.q, &s.p, &SVector::zeros())
    }
}

fn flat<const N: usize>(s: &PhaseState<N>) -> Vec<f64> {
    s.q.iter().chain(s.p.iter()).copied().collect()
}

impl<const N: usize> Observe<PhaseState<N>> for LagrangianSystem<N> {
    fn coordinates(&self, s: &PhaseState<N>) -> Vec<f64> {
        flat(s)
    }
    /// The energy and the invariants at the velocity of `(q, p)`; NaN where the inverse Legendre
    /// transform fails.
    fn quantities(&self, s: &PhaseState<N>) -> Vec<f64> {
        let Ok(v) = self.velocity(s) else {
            return vec![f64::NAN; 1 + self.invariants.len()];
        };
        let mut out = vec![self.lagrangian.energy(&s.q, &v)];
        out.extend(self.invariants.iter().map(|(_, f)| f.value(&s.q, &v)));
        out
    }
}

impl<const N: usize> Problem for LagrangianSystem<N> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn family(&self) -> Family {
        Family::Groupoid
    }
    fn methods(&self) -> Vec<&'static str> {
        vec![METHOD]
    }
    fn defaults(&self) -> (f64, f64) {
        self.defaults
    }
    fn state_labels(&self) -> Vec<String> {
        self.labels.clone()
    }
    fn quantities(&self) -> Vec<Quantity> {
        let energy = Quantity::new("energy", Kind::Energy, 1, "E = v·∂L/∂v − L, v from ∂L/∂v(q, v) = p");
        std::iter::once(energy).chain(self.invariants.iter().map(|(q, _)| q.clone())).collect()
    }
    fn reference(&self) -> (&'static str, usize) {
        (METHOD, 8)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        if method.name != METHOD {
            return Err(WorkbenchError::Input(format!(
                "method '{}' does not apply to a Lagrangian system (its method: {METHOD})",
                method.name
            )));
        }
        let flow = GroupoidIntegrator::new(PairGroupoid::<N>, Stepped(Midpoint(self.lagrangian.clone())))
            .with_properties(2, true);
        let flow: Box<dyn OneStep<PhaseState<N>>> = Box::new(flow);
        Ok(Box::new(Run::new(flow, self.initial, h, self.clone())?))
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        Ok(flat(&self.initial))
    }
    /// `(q, p)` from `[q_1 … q_N, p_1 … p_N]`: finite, with a velocity solving `∂L/∂v(q, v) = p`.
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        check_state(self, state)?;
        let s = PhaseState::new(SVector::from_column_slice(&state[..N]), SVector::from_column_slice(&state[N..]));
        self.velocity(&s).map_err(|e| {
            WorkbenchError::Input(format!(
                "a state of '{}' needs a velocity v with ∂L/∂v(q, v) = p; the inverse Legendre transform failed: {e}",
                self.name
            ))
        })?;
        Ok(Box::new(Self { initial: s, ..self.clone() }))
    }
}
