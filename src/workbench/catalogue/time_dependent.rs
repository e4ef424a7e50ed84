//! Kepler's problem on the time groupoid `(Q × Q) × R ⇉ Q`: the library's fixed-step
//! time-dependent flow (`groupoid::time_dependent::FixedStepFlow`, a `OneStep` of its arrows
//! `(q_k, q_{k+1}, Δt_k)` and multiplier `λ_k`) of the midpoint `L̂ = Δt L(q̄, Δq/Δt)`,
//! `L = ½|v|² + 1/|q|`, through the workbench's generic run: checkpoints, ensembles and
//! `compare` take it unchanged. The time `t_k` is stored in the arrow by compensated summation,
//! and the multiplier's time momentum `λ_k − E_k` (the momentum conjugate to `t`) is monitored.

use crate::workbench::WorkbenchError;
use crate::workbench::catalogue::canonical::{CanonicalSystem, Kepler};
use crate::workbench::methods::MethodInfo;
use crate::workbench::problem::{Family, Kind, Problem, Quantity, Simulation, check_state};
use crate::workbench::run::{Observe, Run};
use geom_core::Scalar;
use geom_core::step::{OneStep, PhaseState};
use groupoid::PairGroupoid;
use groupoid::constraints::SigmaPoint;
use groupoid::integrator::{GroupoidIntegrator, Stepped};
use groupoid::time_dependent::{ContinuousLagrangian, FixedStepFlow, Midpoint, TimeArrow, discrete_energy, momenta};
use nalgebra::{SVector, Vector2};

/// Kepler's Lagrangian `L(q, v) = ½|v|² + 1/|q|` (`μ = 1`), written once over the scalar.
#[derive(Debug, Clone, Copy)]
pub struct KeplerLagrangian;

impl ContinuousLagrangian<2> for KeplerLagrangian {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, v: &SVector<S, 2>) -> S {
        v.norm_squared() * S::from(0.5) + q.norm().recip()
    }
}

/// The state of the run: the arrow `g_k = (q_k, q_{k+1}, Δt_k)` from `t_k` and its multiplier.
pub type TimePoint = SigmaPoint<TimeArrow<2>, 1>;

/// Kepler's problem (eccentricity `e`, from perihelion, period 2π) on the time groupoid.
#[derive(Debug, Clone, Copy)]
pub struct KeplerTime {
    orbit: Kepler,
    start: PhaseState<2>,
}

impl KeplerTime {
    /// The orbit of eccentricity `e` (checked by the catalogue: `0 ≤ e < 1`) from perihelion.
    pub fn new(e: f64) -> Self {
        let orbit = Kepler { e };
        Self { orbit, start: orbit.initial() }
    }

    /// The first arrow from the node `(q_0, p_0)`: `q_1` solves `p_0 = −D_1L̂(q_0, q_1, h)` (the
    /// discrete Legendre transform, by the pair groupoid's DEL step), `t_0 = 0`, and `λ_0 = E_0`
    /// (the time momentum `λ − E` starts at 0).
    fn first_arrow(&self, h: f64) -> Result<TimePoint, WorkbenchError> {
        let step = GroupoidIntegrator::new(PairGroupoid::<2>, Stepped(Midpoint(KeplerLagrangian)));
        let mut node = self.start;
        step.step(&mut node, h)?;
        let g = TimeArrow::new(self.start.q, node.q, 0.0, h);
        let e = discrete_energy(&Midpoint(KeplerLagrangian), &g);
        Ok(SigmaPoint::new(g, SVector::from([e])))
    }
}

/// The node `(q_k, p_k)` of an arrow: `p_k = −D_1L̂(g_k)`.
fn node(point: &TimePoint) -> PhaseState<2> {
    let (p, _) = momenta(&Midpoint(KeplerLagrangian), &point.g);
    PhaseState::new(point.g.q0, p)
}

impl Observe<TimePoint> for KeplerTime {
    fn coordinates(&self, s: &TimePoint) -> Vec<f64> {
        let n = node(s);
        vec![n.q[0], n.q[1], n.p[0], n.p[1]]
    }
    fn quantities(&self, s: &TimePoint) -> Vec<f64> {
        let n = node(s);
        vec![
            0.5 * n.p.norm_squared() - 1.0 / n.q.norm(),
            n.q[0] * n.p[1] - n.q[1] * n.p[0],
            s.lambda[0] - discrete_energy(&Midpoint(KeplerLagrangian), &s.g),
        ]
    }
}

impl Problem for KeplerTime {
    fn name(&self) -> &'static str {
        "kepler-time"
    }
    fn summary(&self) -> &'static str {
        "Kepler (param e, default 0.6) on the time groupoid (Q×Q)×R: arrows (q_k, q_k+1, Δt_k), compensated time, midpoint L̂; exact via Kepler's equation"
    }
    fn family(&self) -> Family {
        Family::Groupoid
    }
    fn methods(&self) -> Vec<&'static str> {
        vec!["time-midpoint"]
    }
    fn defaults(&self) -> (f64, f64) {
        (0.01, 100.0)
    }
    fn state_labels(&self) -> Vec<String> {
        ["q1", "q2", "p1", "p2"].iter().map(|s| s.to_string()).collect()
    }
    fn quantities(&self) -> Vec<Quantity> {
        vec![
            Quantity::new("energy", Kind::Energy, 1, "H = |p|²/2 − 1/|q| at the node (q_k, p_k = −D₁L̂(g_k))"),
            Quantity::new("angular_momentum", Kind::Momentum, 1, "L = q1 p2 − q2 p1 (SO(2) momentum map)"),
            Quantity::new("time_momentum", Kind::Momentum, 1, "λ_k − E(g_k), E = −∂L̂/∂Δt (momentum conjugate to t)"),
        ]
    }
    /// The orbit from perihelion, when the run starts there (not after [`Problem::with_state`]).
    fn exact(&self, t: f64) -> Option<Vec<f64>> {
        if self.start != self.orbit.initial() {
            return None;
        }
        let s = self.orbit.exact(t)?;
        Some(vec![s.q[0], s.q[1], s.p[0], s.p[1]])
    }
    fn reference(&self) -> (&'static str, usize) {
        ("time-midpoint", 8)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        if method.name != "time-midpoint" {
            return Err(WorkbenchError::Input(format!("method '{}' does not apply to 'kepler-time'", method.name)));
        }
        let flow = FixedStepFlow::new(Midpoint(KeplerLagrangian), h)
            .map_err(|e| WorkbenchError::Geom(e.into()))?
            .with_order(2);
        let method: Box<dyn OneStep<TimePoint>> = Box::new(flow);
        Ok(Box::new(Run::new(method, self.first_arrow(h)?, h, *self)?))
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        let s = self.start;
        Ok(vec![s.q[0], s.q[1], s.p[0], s.p[1]])
    }
    /// Any finite `(q, p)` with `q ≠ 0`: the node the first arrow is built from.
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        check_state(self, state)?;
        let q = Vector2::new(state[0], state[1]);
        if q.norm() == 0.0 {
            return Err(WorkbenchError::Input(
                "a state of 'kepler-time' needs q ≠ 0 (the singularity of 1/|q|)".into(),
            ));
        }
        Ok(Box::new(Self { orbit: self.orbit, start: PhaseState::new(q, Vector2::new(state[2], state[3])) }))
    }
}
