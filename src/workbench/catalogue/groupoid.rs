//! The groupoid problems (Marrero, Martín de Diego & Stern, *Symplectic groupoids and discrete
//! constrained Lagrangian mechanics*, 2015, arXiv:1103.6250, §6; docs/math.md §C.4–C.6): discrete
//! Lagrangian flows whose discrete Lagrangian `L_d` (a quadrature of the continuous one at the
//! run's step `h`) lives on a Lie groupoid, with constraints enforced by Lagrange multipliers:
//!
//! * the spherical pendulum on the pair groupoid of `R^3`, `|q| = 1` by a node multiplier
//!   (SHAKE/RATTLE form);
//! * the plate-ball system on the pair groupoid of `R^2 × SO(3)` with the three rolling
//!   constraints `log(R_{k+1} R_kᵀ) = ê3 × Δx` (log chart);
//! * underactuated optimal control on SO(3) as a group groupoid: minimise `Σ |ξ_k|²/2h` with
//!   `W_k = τ(h ξ_k)` and no control about body axis 3, `ξ_3 = 0`.
//!
//! A state is the current arrow `g_k` (and multipliers `λ_k`); one step solves the discrete
//! Euler–Lagrange equations for `g_{k+1}` by Newton's method.

use crate::workbench::WorkbenchError;
use crate::workbench::methods::MethodInfo;
use crate::workbench::problem::{
    Family, Kind, Problem, Propagator, Quantity, Simulation, check_state, off_manifold, within_tolerance,
};
use crate::workbench::run::{Observe, Run};
use discretization::{SphereCotangentLiftIntegrator, SphereDiscreteEulerLagrange, SphereThetaMap};
use geom_core::GeomError;
use geom_core::Scalar;
use geom_core::function::PhaseSpaceFunction;
use geom_core::lie::{Chart, LieGroup, Product, Rn, So3, so3};
use geom_core::newton::NewtonOptions;
use geom_core::step::{OneStep, PhaseState};
use groupoid::constraints::{ConstrainedFlow, Constraints, HolonomicFlow, SigmaPoint, constraint_residual};
use groupoid::integrator::{RattleIntegrator, SparkGauss2, Stepped};
use groupoid::lagrangian::legendre_minus;
use groupoid::models::{GRAVITY, PendulumLd, PlateBallCost as BallCost, RollingWithoutSlip as NoSlip, UnitSphere};
use groupoid::noether::{ConstantSection, constrained_momentum_map};
use groupoid::time_dependent::Midpoint;
use groupoid::{GroupAsGroupoid, PairGroupoid, PairOfGroup};
use integrators::driver::FlatState;
use nalgebra::{Matrix3, SMatrix, SVector, Vector2, Vector3};

fn only(method: &MethodInfo, problem: &str, names: &[&str]) -> Result<(), WorkbenchError> {
    if names.contains(&method.name) {
        Ok(())
    } else {
        Err(WorkbenchError::Input(format!("method '{}' does not apply to '{problem}'", method.name)))
    }
}

/// One discrete flow of the catalogue: its step, and what is read off its current arrow.
trait Flow {
    /// `g_k → g_{k+1}`; on error the state is untouched.
    fn step(&mut self) -> Result<(), GeomError>;
    /// The coordinates of [`Problem::state_labels`].
    fn state(&self) -> Vec<f64>;
    /// The values of [`Problem::quantities`].
    fn quantities(&self) -> Vec<f64>;
    /// The exact state (every number the next step reads), as words.
    fn save(&self, out: &mut Vec<f64>);
    /// The state written by [`Flow::save`]; `None`, with nothing changed, if the words do not fit.
    fn restore(&mut self, words: &[f64]) -> Option<()>;
}

/// The first `n` words of `words`, and the rest.
fn take(words: &[f64], n: usize) -> Option<(&[f64], &[f64])> {
    (words.len() >= n).then(|| words.split_at(n))
}

/// A fixed-size matrix (or vector) read column-major from the front of `words`, and the rest.
fn matrix<const R: usize, const C: usize>(words: &[f64]) -> Option<(SMatrix<f64, R, C>, &[f64])> {
    let (head, rest) = take(words, R * C)?;
    Some((SMatrix::<f64, R, C>::read_words(head)?, rest))
}

/// A [`Flow`] with its step size and count: the [`Simulation`] of a groupoid problem.
struct FlowRun<F> {
    flow: F,
    h: f64,
    steps: usize,
}

impl<F: Flow + 'static> FlowRun<F> {
    fn start(flow: F, h: f64) -> Box<dyn Simulation> {
        Box::new(Self { flow, h, steps: 0 })
    }
}

impl<F: Flow> Propagator for FlowRun<F> {
    fn h(&self) -> f64 {
        self.h
    }
    fn steps(&self) -> usize {
        self.steps
    }
    fn advance_by(&mut self, n: usize) -> Result<(), GeomError> {
        for _ in 0..n {
            self.flow.step()?;
            self.steps += 1;
        }
        Ok(())
    }
    /// The flow's exact state ([`Flow::save`]): the flows themselves are fixed by the problem
    /// and `h`, so this is all a resumed run needs to continue bit for bit.
    fn save(&self) -> Option<Vec<f64>> {
        let mut words = Vec::new();
        self.flow.save(&mut words);
        Some(words)
    }
    fn restore(&mut self, words: &[f64], steps: usize) -> Result<(), GeomError> {
        let mut flow_words = Vec::new();
        self.flow.save(&mut flow_words);
        if words.len() != flow_words.len() {
            return Err(GeomError::InvalidParameter {
                what: "state",
                reason: format!("{} words for a flow state of {}", words.len(), flow_words.len()),
            });
        }
        self.flow.restore(words).ok_or_else(|| GeomError::InvalidParameter {
            what: "state",
            reason: "the words are not a state of this flow".into(),
        })?;
        self.steps = steps;
        Ok(())
    }
}

impl<F: Flow> Simulation for FlowRun<F> {
    fn state(&self) -> Vec<f64> {
        self.flow.state()
    }
    fn quantities(&self) -> Vec<f64> {
        self.flow.quantities()
    }
}

// ---------------------------------------------------------------------------------------------

/// The spherical pendulum: `L_d(q_k, q_{k+1}) = |Δq|²/2h − (h/2) g (z_k + z_{k+1})` on the pair
/// groupoid of `R^3` with `c(q) = (|q|² − 1)/2` at the nodes; `q_0 = (0.6, 0, −0.8)`,
/// initial velocity `(0, 1.2, 0)` by default ([`Problem::with_state`]: any `q_0` on the unit
/// sphere and `v_0` tangent to it).
#[derive(Debug, Clone, Copy)]
pub struct SphericalPendulum {
    q0: Vector3<f64>,
    v0: Vector3<f64>,
}

impl SphericalPendulum {
    /// The default initial data.
    pub fn new() -> Self {
        Self { q0: Vector3::new(0.6, 0.0, -0.8), v0: Vector3::new(0.0, 1.2, 0.0) }
    }
}

impl Default for SphericalPendulum {
    fn default() -> Self {
        Self::new()
    }
}

/// The methods of the spherical pendulum: `rattle` on its arrows, and four one-step
/// integrators of `(q, p) ∈ T*S²`.
const PENDULUM_METHODS: &[&str] = &["rattle", "rattle-midpoint", "spark-gauss2", "s2-midpoint", "s2-del-midpoint"];

/// `L(q, v) = ½|v|² − g q₃` and `H(q, p) = ½|p|² + g q₃` of the spherical pendulum (unit mass
/// and length).
#[derive(Debug, Clone, Copy)]
struct PendulumL;
impl PhaseSpaceFunction<3> for PendulumL {
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, v: &SVector<S, 3>) -> S {
        v.norm_squared() * S::from(0.5) - q[2] * S::from(GRAVITY)
    }
}
#[derive(Debug, Clone, Copy)]
struct PendulumH;
impl PhaseSpaceFunction<3> for PendulumH {
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
        p.norm_squared() * S::from(0.5) + q[2] * S::from(GRAVITY)
    }
}

/// The one-step methods of the pendulum on `T*S²`: RATTLE of the midpoint family
/// `h L((q₀ + q₁)/2, (q₁ − q₀)/h)` with the node constraint `|q| = 1` and the Gauss–Lobatto SPARK
/// method of order 4 (`|q| = 1` at the Lobatto nodes `0, ½, 1`; groupoid layer), and the
/// cotangent lift and discrete Euler–Lagrange flow of the midpoint map of S² (discretization
/// layer).
fn pendulum_method(name: &str) -> Result<Box<dyn OneStep<PhaseState<3>>>, WorkbenchError> {
    Ok(match name {
        "rattle-midpoint" => Box::new(
            RattleIntegrator::<_, _, _, 3, 1, 4>::new(PairGroupoid::<3>, Stepped(Midpoint(PendulumL)), UnitSphere)
                .with_properties(2, true),
        ),
        "spark-gauss2" => Box::new(SparkGauss2::<_, _, 3, 1, 8>::new(PendulumL, UnitSphere)),
        "s2-midpoint" => {
            Box::new(SphereCotangentLiftIntegrator::<_, _, 1, 3, 2>::new(SphereThetaMap::midpoint(), PendulumH))
        }
        "s2-del-midpoint" => {
            Box::new(SphereDiscreteEulerLagrange::<_, _, 1, 3, 2>::new(SphereThetaMap::midpoint(), PendulumL))
        }
        other => return Err(WorkbenchError::Input(format!("method '{other}' does not apply to 'spherical-pendulum'"))),
    })
}

/// Energy, `e3·(q × p)` and `(|q|² − 1)/2` at a node `(q, p)`.
fn pendulum_quantities(q: &Vector3<f64>, p: &Vector3<f64>) -> Vec<f64> {
    vec![0.5 * p.norm_squared() + GRAVITY * q[2], q[0] * p[1] - q[1] * p[0], 0.5 * (q.norm_squared() - 1.0)]
}

impl Observe<PhaseState<3>> for SphericalPendulum {
    fn coordinates(&self, s: &PhaseState<3>) -> Vec<f64> {
        s.q.iter().chain(s.p.iter()).copied().collect()
    }
    fn quantities(&self, s: &PhaseState<3>) -> Vec<f64> {
        pendulum_quantities(&s.q, &s.p)
    }
}

/// `R` from 9 row-major values, within [`STATE_TOLERANCE`](crate::workbench::problem::STATE_TOLERANCE) of SO(3), else the error of a state of
/// `problem`.
fn rotation(problem: &str, what: &str, v: &[f64]) -> Result<Matrix3<f64>, WorkbenchError> {
    let r = Matrix3::from_row_slice(v);
    let defect = So3.defect(&r);
    if !within_tolerance(defect) {
        return Err(off_manifold(
            problem,
            format!("{what} is not a rotation: its distance from SO(3) is {defect:.3e}"),
        ));
    }
    Ok(r)
}

/// `R exp(ε ξ)` in row-major coordinates, `ξ` with standard normal components from `normal`.
fn perturb_rotation(r: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
    let xi = Vector3::from_fn(|_, _| eps * normal());
    let moved = Matrix3::from_row_slice(r) * so3::exp(&xi);
    (0..9).map(|k| moved[(k / 3, k % 3)]).collect()
}

/// `v + ε z`, `z` standard normal from `normal`.
fn perturb_values(v: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
    v.iter().map(|x| x + eps * normal()).collect()
}

// the pendulum's L_d and constraint are the library's (`groupoid::models`)
type Arrow3 = (Vector3<f64>, Vector3<f64>);

struct PendulumRun {
    flow: HolonomicFlow<PairGroupoid<3>, PendulumLd, UnitSphere, 4>,
    g: Arrow3,
}

impl Flow for PendulumRun {
    fn step(&mut self) -> Result<(), GeomError> {
        self.g = self.flow.step(&self.g)?.0;
        Ok(())
    }
    fn state(&self) -> Vec<f64> {
        let (q, p) = self.node();
        q.iter().chain(p.iter()).copied().collect()
    }
    fn quantities(&self) -> Vec<f64> {
        // e3·(q × p) at the node equals the Noether momentum F⁻L_d paired with the generator
        let (q, p) = self.node();
        pendulum_quantities(&q, &p)
    }
    /// `q_k`, `q_{k+1}`.
    fn save(&self, out: &mut Vec<f64>) {
        self.g.0.write_words(out);
        self.g.1.write_words(out);
    }
    fn restore(&mut self, words: &[f64]) -> Option<()> {
        let (a, rest) = matrix::<3, 1>(words)?;
        let (b, rest) = matrix::<3, 1>(rest)?;
        rest.is_empty().then(|| self.g = (a, b))
    }
}

impl PendulumRun {
    /// The node `(q_k, p_k)` of the arrow `g_k = (q_k, q_{k+1})` at `t_k = k h`:
    /// `p_k = F⁻L_d(g_k)` projected on `T_{q_k} S²`.
    fn node(&self) -> (Vector3<f64>, Vector3<f64>) {
        let q = self.g.0;
        let p = legendre_minus(&PairGroupoid::<3>, self.flow.lagrangian(), &self.g);
        (q, p - q * (p.dot(&q) / q.norm_squared()))
    }
}

impl Problem for SphericalPendulum {
    fn name(&self) -> &'static str {
        "spherical-pendulum"
    }
    fn summary(&self) -> &'static str {
        "pendulum on S² in R^3 (pair groupoid, node multiplier), q0 = (0.6, 0, −0.8), v0 = (0, 1.2, 0)"
    }
    fn family(&self) -> Family {
        Family::Groupoid
    }
    fn methods(&self) -> Vec<&'static str> {
        PENDULUM_METHODS.to_vec()
    }
    fn defaults(&self) -> (f64, f64) {
        (0.01, 100.0)
    }
    fn state_labels(&self) -> Vec<String> {
        ["q1", "q2", "q3", "p1", "p2", "p3"].map(String::from).to_vec()
    }
    fn quantities(&self) -> Vec<Quantity> {
        vec![
            Quantity::new("energy", Kind::Energy, 1, "E = |p|²/2 + g z at q_k, p = F⁻L_d projected on T S²"),
            Quantity::new("vertical_momentum", Kind::Momentum, 1, "e3·(q × p), Noether for rotations about e3"),
            Quantity::new("constraint", Kind::Constraint, 1, "(|q_k|² − 1)/2"),
        ]
    }
    fn reference(&self) -> (&'static str, usize) {
        ("rattle", 8)
    }
    /// `(q_0, v_0)`: the position on the unit sphere and the velocity (unit mass: the momentum).
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        Ok(self.q0.iter().chain(self.v0.iter()).copied().collect())
    }
    /// `(q_0, v_0)` with `|q_0| = 1` and `q_0·v_0 = 0` within [`STATE_TOLERANCE`](crate::workbench::problem::STATE_TOLERANCE) (the
    /// constraint and its derivative, the hidden constraint); the first arrow is built from
    /// them by the second-order start of [`Problem::start_method`].
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        check_state(self, state)?;
        let (q0, v0) = (Vector3::from_column_slice(&state[..3]), Vector3::from_column_slice(&state[3..]));
        let off = (q0.norm() - 1.0).abs();
        if !within_tolerance(off) {
            return Err(off_manifold(self.name(), format!("q is not on the unit sphere, |q| = {}", q0.norm())));
        }
        let normal = q0.dot(&v0);
        if !within_tolerance(normal / v0.norm().max(1.0)) {
            return Err(off_manifold(self.name(), format!("p is not tangent to the sphere, q·p = {normal:e}")));
        }
        Ok(Box::new(Self { q0, v0 }))
    }
    /// `q ↦ (q + ε z)/|q + ε z|`, `p ↦ p + ε z'` projected on the tangent plane at the new `q`.
    fn perturb(&self, state: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
        if state.len() != 6 {
            return state.to_vec();
        }
        let q = (Vector3::from_column_slice(&state[..3]) + Vector3::from_fn(|_, _| eps * normal())).normalize();
        let p = Vector3::from_column_slice(&state[3..]) + Vector3::from_fn(|_, _| eps * normal());
        let p = p - q * p.dot(&q);
        q.iter().chain(p.iter()).copied().collect()
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        only(method, self.name(), PENDULUM_METHODS)?;
        if method.name != "rattle" {
            // the one-step integrators of (q, p) on T*S², through the generic run
            let state = PhaseState::new(self.q0, self.v0);
            return Ok(Box::new(Run::new(pendulum_method(method.name)?, state, h, *self)?));
        }
        // second-order start: q_1 = q_0 + h v_0 + (h²/2) a_0 with the constrained acceleration
        // a_0 = −g e3 + g (e3·q_0) q_0 − |v_0|² q_0 (|q_0| = 1, v_0 ⟂ q_0), projected back on S²
        let (q0, v0) = (self.q0, self.v0);
        let a0 = -Vector3::z() * GRAVITY + q0 * (GRAVITY * q0[2]) - q0 * v0.norm_squared();
        let g = (q0, (q0 + v0 * h + a0 * (0.5 * h * h)).normalize());
        let flow = HolonomicFlow::new(PairGroupoid::<3>, PendulumLd::new(h)?, UnitSphere)
            .with_newton(NewtonOptions::integrator().for_momentum_residual(h));
        flow.check(&g)?;
        Ok(FlowRun::start(PendulumRun { flow, g }, h))
    }
}

// ---------------------------------------------------------------------------------------------

type Ball = groupoid::models::PlateBallGroupoid;

// the plate-ball cost and rolling constraints are the library's (`groupoid::models`)

/// The plate-ball system: a ball rolling without slipping between two plates, `x_0 = 0`,
/// `R_0 = exp(0.1, 0.2, −0.3)`, velocity `v_0 = (1.2, 0.4)` (first displacement `h v_0`),
/// multipliers `(1.5, −1, 0.8)` by default ([`Problem::with_state`]: any `x_0`, `R_0 ∈ SO(3)`,
/// `v_0`, `λ_0`).
#[derive(Debug, Clone, Copy)]
pub struct PlateBall {
    ball: Ball,
    x0: Vector2<f64>,
    r0: Matrix3<f64>,
    v0: Vector2<f64>,
    lambda0: Vector3<f64>,
}

impl PlateBall {
    /// The default system (log chart on the pair groupoid of `R^2 × SO(3)`) and initial data.
    pub fn new() -> Self {
        Self {
            ball: PairOfGroup::new(Product::new(Rn, So3), Chart::Exp),
            x0: Vector2::new(0.0, 0.0),
            r0: so3::exp(&Vector3::new(0.1, 0.2, -0.3)),
            v0: Vector2::new(1.2, 0.4),
            lambda0: Vector3::new(1.5, -1.0, 0.8),
        }
    }
}

impl Default for PlateBall {
    fn default() -> Self {
        Self::new()
    }
}

struct BallRun {
    ball: Ball,
    flow: ConstrainedFlow<Ball, BallCost, NoSlip, 8>,
    point: SigmaPoint<groupoid::models::PlateBallArrow<f64>, 3>,
}

fn unit_section<const D: usize>(offset: usize) -> ConstantSection<5, D> {
    ConstantSection(SMatrix::<f64, 5, D>::from_fn(|a, i| if a == i + offset { 1.0 } else { 0.0 }))
}

impl Flow for BallRun {
    fn step(&mut self) -> Result<(), GeomError> {
        self.point = self.flow.step(&self.point)?.0;
        Ok(())
    }
    /// `x_k`, `R_k` (row-major), the velocity `(x_{k+1} − x_k)/h` of the current arrow, `λ_k`.
    fn state(&self) -> Vec<f64> {
        let ((x, r), (x1, _)) = self.point.g;
        let velocity = (x1 - x) / self.flow.lagrangian().h();
        let mut v = vec![x[0], x[1]];
        v.extend((0..9).map(|k| r[(k / 3, k % 3)]));
        v.extend(velocity.iter());
        v.extend(self.point.lambda.iter());
        v
    }
    fn quantities(&self) -> Vec<f64> {
        let (l, c) = (self.flow.lagrangian(), self.flow.constraints());
        let jt = constrained_momentum_map(&self.ball, l, c, &unit_section::<2>(0), &self.point);
        let jr = constrained_momentum_map(&self.ball, l, c, &unit_section::<3>(2), &self.point);
        let mut v: Vec<f64> = jt.iter().chain(jr.iter()).copied().collect();
        v.push(constraint_residual(&self.ball, &NoSlip, &self.point.g));
        v
    }
    /// `x_k, R_k, x_{k+1}, R_{k+1}` (matrices column-major), then `λ`.
    fn save(&self, out: &mut Vec<f64>) {
        let ((x0, r0), (x1, r1)) = &self.point.g;
        x0.write_words(out);
        r0.write_words(out);
        x1.write_words(out);
        r1.write_words(out);
        self.point.lambda.write_words(out);
    }
    fn restore(&mut self, words: &[f64]) -> Option<()> {
        let (x0, rest) = matrix::<2, 1>(words)?;
        let (r0, rest) = matrix::<3, 3>(rest)?;
        let (x1, rest) = matrix::<2, 1>(rest)?;
        let (r1, rest) = matrix::<3, 3>(rest)?;
        let (lambda, rest) = matrix::<3, 1>(rest)?;
        rest.is_empty().then(|| self.point = SigmaPoint::new(((x0, r0), (x1, r1)), lambda))
    }
}

fn axis(d: &Vector2<f64>) -> Vector3<f64> {
    Vector3::new(-d[1], d[0], 0.0)
}

impl Problem for PlateBall {
    fn name(&self) -> &'static str {
        "plate-ball"
    }
    fn summary(&self) -> &'static str {
        "ball rolling between plates, pair groupoid of R²×SO(3), 3 no-slip constraints by multipliers"
    }
    fn family(&self) -> Family {
        Family::Groupoid
    }
    fn methods(&self) -> Vec<&'static str> {
        vec!["del"]
    }
    fn defaults(&self) -> (f64, f64) {
        (0.1, 6.0)
    }
    fn state_labels(&self) -> Vec<String> {
        let mut v: Vec<String> = vec!["x1".into(), "x2".into()];
        v.extend((0..9).map(|k| format!("R{}{}", k / 3 + 1, k % 3 + 1)));
        v.extend(["v1".into(), "v2".into()]);
        v.extend((1..=3).map(|i| format!("lambda{i}")));
        v
    }
    fn quantities(&self) -> Vec<Quantity> {
        vec![
            Quantity::new("translation_momentum", Kind::Momentum, 2, "Noether momentum of plate translations"),
            Quantity::new("rotation_momentum", Kind::Momentum, 3, "Noether momentum of R ↦ R a (right multiplication)"),
            Quantity::new("constraint", Kind::Constraint, 1, "|φ(g_k)|, the rolling constraints"),
        ]
    }
    fn reference(&self) -> (&'static str, usize) {
        ("del", 8)
    }
    /// 1: the first arrow is built from the initial displacement `h·v` and the multipliers are
    /// given, not solved from continuous initial data, so the discrete data are `O(h)` off one
    /// continuous solution.
    fn order_of(&self, _: &MethodInfo) -> u32 {
        1
    }
    /// `(x_0, R_0, v_0, λ_0)`, `R_0` row-major.
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        let mut v: Vec<f64> = self.x0.iter().copied().collect();
        v.extend((0..9).map(|k| self.r0[(k / 3, k % 3)]));
        v.extend(self.v0.iter().chain(self.lambda0.iter()));
        Ok(v)
    }
    /// `(x_0, R_0, v_0, λ_0)` with `R_0 ∈ SO(3)` within [`STATE_TOLERANCE`](crate::workbench::problem::STATE_TOLERANCE); the first arrow
    /// rolls by `h v_0` and so satisfies the rolling constraints exactly.
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        check_state(self, state)?;
        Ok(Box::new(Self {
            x0: Vector2::from_column_slice(&state[..2]),
            r0: rotation(self.name(), "R", &state[2..11])?,
            v0: Vector2::from_column_slice(&state[11..13]),
            lambda0: Vector3::from_column_slice(&state[13..]),
            ..*self
        }))
    }
    /// `x + ε z`, `R exp(ε ξ)`, `v + ε z'`, `λ + ε z''`.
    fn perturb(&self, state: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
        if state.len() != 16 {
            return state.to_vec();
        }
        let mut v = perturb_values(&state[..2], eps, normal);
        v.extend(perturb_rotation(&state[2..11], eps, normal));
        v.extend(perturb_values(&state[11..], eps, normal));
        v
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        only(method, self.name(), &["del"])?;
        let q0 = (self.x0, self.r0);
        let v = self.v0 * h;
        let g1 = (q0, (q0.0 + v, so3::exp(&axis(&v)) * q0.1));
        let point = SigmaPoint::new(g1, self.lambda0);
        let flow = ConstrainedFlow::new(self.ball, BallCost::new(h)?, NoSlip)
            .with_newton(NewtonOptions::integrator().for_momentum_residual(h));
        Ok(FlowRun::start(BallRun { ball: self.ball, flow, point }, h))
    }
}

// ---------------------------------------------------------------------------------------------

type Gd = GroupAsGroupoid<So3>;

// the control cost and the unactuated axis are the library's (`groupoid::control`)
type ControlCost = groupoid::control::ControlCost<3>;
type NoAxis3 = groupoid::control::Unactuated<3, 1>;

/// No control about body axis 3: `φ(W) = τ⁻¹(W)_3 = 0`.
fn no_axis3() -> NoAxis3 {
    groupoid::control::Unactuated::axes([2]).expect("axis 2 of 3")
}

/// Underactuated optimal control on SO(3): the necessary conditions of
/// `min Σ |ξ_k|²/2h` subject to `ξ_3 = 0`, as the constrained discrete flow from
/// `R_0 = exp(0.3, −0.5, 0.2)`, `ξ_0 = (0.35, −0.25, 0)`, `λ_0 = 0.3` by default
/// ([`Problem::with_state`]: any `R_0 ∈ SO(3)`, `ξ_0` with `ξ_{0,3} = 0`, `λ_0`); the attitude
/// `R_k = R_0 W_0 ⋯ W_{k−1}` is reconstructed.
#[derive(Debug, Clone, Copy)]
pub struct So3OptimalControl {
    attitude: Matrix3<f64>,
    xi0: Vector3<f64>,
    lambda0: f64,
}

impl So3OptimalControl {
    /// The default problem.
    pub fn new() -> Self {
        Self { attitude: so3::exp(&Vector3::new(0.3, -0.5, 0.2)), xi0: Vector3::new(0.35, -0.25, 0.0), lambda0: 0.3 }
    }
}

impl Default for So3OptimalControl {
    fn default() -> Self {
        Self::new()
    }
}

struct ControlRun {
    gd: Gd,
    flow: ConstrainedFlow<Gd, ControlCost, NoAxis3, 4>,
    point: SigmaPoint<Matrix3<f64>, 1>,
    attitude: Matrix3<f64>,
    /// `ξ_{k−½} = τ⁻¹(W_{k−1})/h`; `None` at `k = 0`, where the node velocity is `xi0`.
    xi_before: Option<Vector3<f64>>,
    /// The initial body velocity `ξ_0`.
    xi0: Vector3<f64>,
}

impl ControlRun {
    fn xi_after(&self) -> Vector3<f64> {
        let h = self.flow.lagrangian().h();
        self.gd.group().tau_inv(self.gd.chart(), &self.point.g).unwrap_or_else(|_| Vector3::repeat(f64::NAN)) / h
    }
    /// The body velocity at the node `t_k`, `(ξ_{k−½} + ξ_{k+½})/2` (`ξ_0` at `k = 0`).
    fn xi_node(&self) -> Vector3<f64> {
        self.xi_before.map_or(self.xi0, |before| (before + self.xi_after()) * 0.5)
    }
}

impl Flow for ControlRun {
    fn step(&mut self) -> Result<(), GeomError> {
        let (next, _) = self.flow.step(&self.point)?;
        self.attitude *= self.point.g;
        self.xi_before = Some(self.xi_after());
        self.point = next;
        Ok(())
    }
    fn state(&self) -> Vec<f64> {
        let xi = self.xi_node();
        let mut v: Vec<f64> = (0..9).map(|k| self.attitude[(k / 3, k % 3)]).collect();
        v.extend(xi.iter());
        v.push(self.point.lambda[0]);
        v
    }
    fn quantities(&self) -> Vec<f64> {
        let (l, c) = (self.flow.lagrangian(), self.flow.constraints());
        let e3 = ConstantSection(SMatrix::<f64, 3, 1>::from_column_slice(&[0.0, 0.0, 1.0]));
        let j = constrained_momentum_map(&self.gd, l, c, &e3, &self.point)[0];
        vec![j, no_axis3().eval::<f64>(&self.gd, &self.point.g)[0].abs(), So3.defect(&self.attitude)]
    }
    /// `W_k` (column-major), `λ_k`, the attitude `R_k`, then a flag (1 if `ξ_{k−½}` is known,
    /// else 0) and `ξ_{k−½}` (zeros when unknown). `ξ_0` is the problem's.
    fn save(&self, out: &mut Vec<f64>) {
        self.point.g.write_words(out);
        self.point.lambda.write_words(out);
        self.attitude.write_words(out);
        out.push(if self.xi_before.is_some() { 1.0 } else { 0.0 });
        self.xi_before.unwrap_or_else(Vector3::zeros).write_words(out);
    }
    fn restore(&mut self, words: &[f64]) -> Option<()> {
        let (w, rest) = matrix::<3, 3>(words)?;
        let (lambda, rest) = matrix::<1, 1>(rest)?;
        let (attitude, rest) = matrix::<3, 3>(rest)?;
        let (flag, rest) = take(rest, 1)?;
        let (xi, rest) = matrix::<3, 1>(rest)?;
        let xi_before = if flag[0] == 0.0 {
            None
        } else if flag[0] == 1.0 {
            Some(xi)
        } else {
            return None;
        };
        if !rest.is_empty() {
            return None;
        }
        (self.point, self.attitude, self.xi_before) = (SigmaPoint::new(w, lambda), attitude, xi_before);
        Some(())
    }
}

impl Problem for So3OptimalControl {
    fn name(&self) -> &'static str {
        "so3-optimal-control"
    }
    fn summary(&self) -> &'static str {
        "underactuated attitude control on SO(3) (group groupoid), min Σ|ξ|²/2h with ξ3 = 0"
    }
    fn family(&self) -> Family {
        Family::Groupoid
    }
    fn methods(&self) -> Vec<&'static str> {
        vec!["del", "del-cayley"]
    }
    fn defaults(&self) -> (f64, f64) {
        (0.1, 10.0)
    }
    fn state_labels(&self) -> Vec<String> {
        let mut v: Vec<String> = (0..9).map(|k| format!("R{}{}", k / 3 + 1, k % 3 + 1)).collect();
        v.extend(["xi1", "xi2", "xi3", "lambda"].map(String::from));
        v
    }
    fn quantities(&self) -> Vec<Quantity> {
        vec![
            Quantity::new("axis3_momentum", Kind::Momentum, 1, "Noether momentum of conjugation about e3"),
            Quantity::new("constraint", Kind::Constraint, 1, "|ξ_3|, the missing control"),
            Quantity::new("group_defect", Kind::Constraint, 1, "distance of the attitude from SO(3)"),
        ]
    }
    fn reference(&self) -> (&'static str, usize) {
        ("del", 8)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        only(method, self.name(), &["del", "del-cayley"])?;
        let chart = if method.name == "del-cayley" { Chart::Cayley } else { Chart::Exp };
        let gd = GroupAsGroupoid::new(So3, chart);
        // the extremals have λ constant and ξ̇ = λ e3 × ξ; the first arrow carries ξ(h/2), a
        // second-order start from ξ(0) = ξ_0
        let (lambda, xi0) = (self.lambda0, self.xi0);
        let xi_mid = so3::exp(&(Vector3::z() * (0.5 * lambda * h))) * xi0;
        let w0 = So3.tau(chart, &(xi_mid * h))?;
        let point = SigmaPoint::new(w0, SVector::from([lambda]));
        let flow = ConstrainedFlow::new(gd, ControlCost::uniform(h)?, no_axis3())
            .with_newton(NewtonOptions::integrator().for_momentum_residual(h));
        let attitude = self.attitude;
        Ok(FlowRun::start(ControlRun { gd, flow, point, attitude, xi_before: None, xi0 }, h))
    }
    /// `(R_0, ξ_0, λ_0)`, `R_0` row-major.
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        let mut v: Vec<f64> = (0..9).map(|k| self.attitude[(k / 3, k % 3)]).collect();
        v.extend(self.xi0.iter());
        v.push(self.lambda0);
        Ok(v)
    }
    /// `(R_0, ξ_0, λ_0)` with `R_0 ∈ SO(3)` and the constraint `ξ_{0,3} = 0` within
    /// [`STATE_TOLERANCE`](crate::workbench::problem::STATE_TOLERANCE).
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        check_state(self, state)?;
        let attitude = rotation(self.name(), "R", &state[..9])?;
        let xi0 = Vector3::from_column_slice(&state[9..12]);
        if !within_tolerance(xi0[2]) {
            return Err(off_manifold(self.name(), format!("xi3 = {:e} violates the constraint ξ3 = 0", xi0[2])));
        }
        Ok(Box::new(Self { attitude, xi0, lambda0: state[12] }))
    }
    /// `R exp(ε ξ)`, `ξ_{1,2} + ε z` (`ξ_3` kept), `λ + ε z'`.
    fn perturb(&self, state: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
        if state.len() != 13 {
            return state.to_vec();
        }
        let mut v = perturb_rotation(&state[..9], eps, normal);
        v.extend(perturb_values(&state[9..11], eps, normal));
        v.push(state[11]);
        v.extend(perturb_values(&state[12..], eps, normal));
        v
    }
}
