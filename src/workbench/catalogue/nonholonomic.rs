//! The nonholonomic problems: the vertical rolling disk and the Chaplygin sleigh, integrated by
//! the library's discrete Lagrange–d'Alembert integrator (`groupoid::models::RollingDisk::integrator`,
//! `ChaplyginSleigh::integrator`: the midpoint `L_d`, the midpoint constraint, the physical
//! momentum `p = M v` with `μ(q) v = 0` as state) through the workbench's generic run, like every
//! other one-step method: checkpoints, ensembles and `compare` take them unchanged.

use crate::workbench::WorkbenchError;
use crate::workbench::methods::MethodInfo;
use crate::workbench::problem::{
    Family, Kind, Problem, Quantity, Simulation, check_state, off_manifold, within_tolerance,
};
use crate::workbench::run::{Observe, Run};
use geom_core::step::PhaseState;
use groupoid::models::{ChaplyginSleigh, RollingDisk, RollingDiskIntegrator, SleighIntegrator};
use nalgebra::SVector;

/// A nonholonomic model of the catalogue on `T*R^N`: its integrator and what is monitored.
pub trait Model<const N: usize>: Clone + Send + Sync + 'static {
    /// The command-line name.
    const NAME: &'static str;
    /// One line: the system and its default data.
    const SUMMARY: &'static str;
    /// The coordinate names of `q`.
    const COORDINATES: [&'static str; N];
    /// The integrator (order 2, symmetric).
    type Method: geom_core::step::OneStep<PhaseState<N>> + 'static;
    /// The integrator.
    fn method(&self) -> Self::Method;
    /// The default initial state.
    fn initial(&self) -> PhaseState<N>;
    /// `p` moved along the constraint covectors to the admissible momentum at `q`.
    fn admissible(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> Result<SVector<f64, N>, geom_core::GeomError>;
    /// The monitored quantities after the energy and before the constraint.
    fn momenta(&self) -> Vec<Quantity>;
    /// The energy, the momenta and the constraint defects at `s`, concatenated.
    fn measure(&self, s: &PhaseState<N>) -> Vec<f64>;
    /// The exact state at `t` from `s0`, where known.
    fn exact(&self, s0: &PhaseState<N>, t: f64) -> Option<PhaseState<N>>;
}

/// A [`Model`] with its initial state, as a [`Problem`].
#[derive(Debug, Clone)]
pub struct Nonholonomic<Md, const N: usize> {
    model: Md,
    start: PhaseState<N>,
}

impl<Md: Model<N>, const N: usize> Nonholonomic<Md, N> {
    /// The problem from the model's default initial state.
    pub fn new(model: Md) -> Self {
        let start = model.initial();
        Self { model, start }
    }
}

fn flat<const N: usize>(s: &PhaseState<N>) -> Vec<f64> {
    s.q.iter().chain(s.p.iter()).copied().collect()
}

impl<Md: Model<N>, const N: usize> Observe<PhaseState<N>> for Nonholonomic<Md, N> {
    fn coordinates(&self, s: &PhaseState<N>) -> Vec<f64> {
        flat(s)
    }
    fn quantities(&self, s: &PhaseState<N>) -> Vec<f64> {
        self.model.measure(s)
    }
}

impl<Md: Model<N>, const N: usize> Problem for Nonholonomic<Md, N> {
    fn name(&self) -> &'static str {
        Md::NAME
    }
    fn summary(&self) -> &'static str {
        Md::SUMMARY
    }
    fn family(&self) -> Family {
        Family::Groupoid
    }
    fn methods(&self) -> Vec<&'static str> {
        vec!["dla"]
    }
    fn defaults(&self) -> (f64, f64) {
        (0.01, 20.0)
    }
    fn state_labels(&self) -> Vec<String> {
        Md::COORDINATES.iter().map(|c| c.to_string()).chain(Md::COORDINATES.iter().map(|c| format!("p_{c}"))).collect()
    }
    fn quantities(&self) -> Vec<Quantity> {
        let mut out = vec![Quantity::new("energy", Kind::Energy, 1, "E = ½ pᵀ M⁻¹ p")];
        out.extend(self.model.momenta());
        out.push(Quantity::new("constraint", Kind::Constraint, 1, "|μ(q) M⁻¹ p|, the constrained velocity"));
        out
    }
    fn exact(&self, t: f64) -> Option<Vec<f64>> {
        self.model.exact(&self.start, t).map(|s| flat(&s))
    }
    fn reference(&self) -> (&'static str, usize) {
        ("dla", 8)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        if method.name != "dla" {
            return Err(WorkbenchError::Input(format!("method '{}' does not apply to '{}'", method.name, Md::NAME)));
        }
        Ok(Box::new(Run::new(Box::new(self.model.method()), self.start, h, self.clone())?))
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        Ok(flat(&self.start))
    }
    /// `(q, p)` with an admissible velocity `M⁻¹ p` (`μ(q) M⁻¹ p = 0`) within
    /// [`STATE_TOLERANCE`](crate::workbench::problem::STATE_TOLERANCE), relative to `max(1, |p|)`.
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        check_state(self, state)?;
        let (q, p) = (SVector::from_column_slice(&state[..N]), SVector::from_column_slice(&state[N..]));
        let admissible = self.model.admissible(&q, &p)?;
        let off = (p - admissible).amax() / p.amax().max(1.0);
        if !within_tolerance(off) {
            return Err(off_manifold(Md::NAME, format!("the velocity M⁻¹p violates the constraints by {off:.3e}")));
        }
        Ok(Box::new(Self { model: self.model.clone(), start: PhaseState::new(q, p) }))
    }
    /// `q + ε z`, `p + ε z'` moved to the admissible momentum at the new `q`.
    fn perturb(&self, state: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
        if state.len() != 2 * N {
            return state.to_vec();
        }
        let q = SVector::<f64, N>::from_column_slice(&state[..N]) + SVector::from_fn(|_, _| eps * normal());
        let p = SVector::<f64, N>::from_column_slice(&state[N..]) + SVector::from_fn(|_, _| eps * normal());
        match self.model.admissible(&q, &p) {
            Ok(p) => flat(&PhaseState::new(q, p)),
            Err(_) => state.to_vec(),
        }
    }
}

// ---------------------------------------------------------------------------------------------

/// The vertical rolling disk, `m = 1`, `R = 0.5`, `I = 0.125`, `J = 0.0625`, from
/// `q0 = (0, 0, 0, 0.3)` with `θ̇ = 2`, `φ̇ = 0.7`.
#[derive(Debug, Clone, Copy)]
pub struct Disk(RollingDisk);

impl Disk {
    /// The default disk.
    pub fn new() -> Result<Self, WorkbenchError> {
        Ok(Self(RollingDisk::new(1.0, 0.5, 0.125, 0.0625)?))
    }
    fn velocity(&self, s: &PhaseState<4>) -> SVector<f64, 4> {
        let d = &self.0;
        s.p.component_div(&SVector::from([d.mass(), d.mass(), d.axle_inertia(), d.vertical_inertia()]))
    }
}

impl Model<4> for Disk {
    const NAME: &'static str = "rolling-disk";
    const SUMMARY: &'static str =
        "vertical disk rolling without slipping (x, y, θ, φ), m = 1, R = 0.5, I = 0.125, J = 0.0625, θ̇ = 2, φ̇ = 0.7";
    const COORDINATES: [&'static str; 4] = ["x", "y", "theta", "phi"];
    type Method = RollingDiskIntegrator;
    fn method(&self) -> RollingDiskIntegrator {
        self.0.integrator()
    }
    fn initial(&self) -> PhaseState<4> {
        let q0 = SVector::from([0.0, 0.0, 0.0, 0.3]);
        PhaseState::new(q0, self.0.momentum(&self.0.velocity(&q0, 2.0, 0.7)))
    }
    fn admissible(&self, q: &SVector<f64, 4>, p: &SVector<f64, 4>) -> Result<SVector<f64, 4>, geom_core::GeomError> {
        self.0.integrator().project_momentum(q, p)
    }
    fn momenta(&self) -> Vec<Quantity> {
        vec![
            Quantity::new("rolling_momentum", Kind::Momentum, 1, "(I + mR²) θ̇, nonholonomic momentum of rolling"),
            Quantity::new("turning_momentum", Kind::Momentum, 1, "J φ̇, nonholonomic momentum of turning"),
        ]
    }
    fn measure(&self, s: &PhaseState<4>) -> Vec<f64> {
        let (d, v) = (&self.0, self.velocity(s));
        let r = d.radius();
        let slip = (v[0] - r * s.q[3].cos() * v[2]).hypot(v[1] - r * s.q[3].sin() * v[2]);
        vec![d.energy(&v), (d.axle_inertia() + d.mass() * r * r) * v[2], d.vertical_inertia() * v[3], slip]
    }
    /// `θ̇`, `φ̇` constant and the contact point on a circle ([`RollingDisk::exact`]).
    fn exact(&self, s0: &PhaseState<4>, t: f64) -> Option<PhaseState<4>> {
        let v0 = self.velocity(s0);
        let q = self.0.exact(&s0.q, v0[2], v0[3], t);
        Some(PhaseState::new(q, self.0.momentum(&self.0.velocity(&q, v0[2], v0[3]))))
    }
}

/// The Chaplygin sleigh, `m = 1`, `I = 0.2`, knife edge `a = 0.5` behind the centre of mass,
/// from the origin with forward speed `u = 1` and angular velocity `ω = 2`.
#[derive(Debug, Clone, Copy)]
pub struct Sleigh(ChaplyginSleigh);

impl Sleigh {
    /// The default sleigh.
    pub fn new() -> Result<Self, WorkbenchError> {
        Ok(Self(ChaplyginSleigh::new(1.0, 0.2, 0.5)?))
    }
}

impl Model<3> for Sleigh {
    const NAME: &'static str = "chaplygin-sleigh";
    const SUMMARY: &'static str = "Chaplygin sleigh (x, y, θ) on a knife edge, m = 1, I = 0.2, a = 0.5, u0 = 1, ω0 = 2";
    const COORDINATES: [&'static str; 3] = ["x", "y", "theta"];
    type Method = SleighIntegrator;
    fn method(&self) -> SleighIntegrator {
        self.0.integrator()
    }
    fn initial(&self) -> PhaseState<3> {
        PhaseState::new(SVector::zeros(), self.0.momentum(&self.0.velocity(0.0, 1.0, 2.0)))
    }
    fn admissible(&self, q: &SVector<f64, 3>, p: &SVector<f64, 3>) -> Result<SVector<f64, 3>, geom_core::GeomError> {
        self.0.integrator().project_momentum(q, p)
    }
    fn momenta(&self) -> Vec<Quantity> {
        Vec::new()
    }
    fn measure(&self, s: &PhaseState<3>) -> Vec<f64> {
        let s_ = &self.0;
        let v = s.p.component_div(&SVector::from([s_.mass(), s_.mass(), s_.inertia()]));
        let body = s_.body_velocity(s.q[2], &v);
        vec![s_.energy(&v), (body[1] - s_.offset() * body[2]).abs()]
    }
    fn exact(&self, _: &PhaseState<3>, _: f64) -> Option<PhaseState<3>> {
        None
    }
}
