//! The Lie-group problems on `T*G ≅ G × g*` (left trivialization, docs/math.md §D.1): the free
//! rigid body, the heavy top and the Lagrange top on SO(3), Kirchhoff's underwater vehicle on
//! SE(3). The models and their first integrals live in `integrators::models`; here they get
//! default data and names.

use crate::workbench::WorkbenchError;
use crate::workbench::chaos::{Layout, MegnoValue, PhaseSpace, Section, SectionCrossing};
use crate::workbench::embedded::{GroupOde, Rkmk4So3};
use crate::workbench::lie_section::{lie_megno_of, lie_section_of};
use crate::workbench::methods::{self, MatrixState, MethodInfo};
use crate::workbench::problem::{
    Family, Kind, Problem, Quantity, Simulation, check_state, off_manifold, within_tolerance,
};
use crate::workbench::run::{Observe, Run};
use geom_core::lie::{Chart, LieGroup, Se3, So3, So3xR3};
use integrators::hp::LieState;
use integrators::lie_poisson_baselines::{ReducedTop, VerticalCoadjointEnergy};
use integrators::models::{FreeRigidBody, HeavyTop, UnderwaterVehicle};
use integrators::{commutator_free, crouch_grossman};
use nalgebra::{Matrix3, SMatrix, SVector, Vector3, Vector6};

pub(super) fn labels(m: usize, d: usize, g: &str, mu: &str) -> Vec<String> {
    let mut v: Vec<String> = (0..m * m).map(|k| format!("{g}{}{}", k / m + 1, k % m + 1)).collect();
    v.extend((0..d).map(|i| format!("{mu}{}", i + 1)));
    v
}

pub(super) use crate::workbench::lie_section::coordinates;

/// `(g, μ)` from `state` (`g` row-major, then `μ`), checked by [`check_state`] and with `g` on
/// `group` within [`STATE_TOLERANCE`](crate::workbench::problem::STATE_TOLERANCE) (`not_in` names the group in the error).
pub(super) fn lie_state<G, const M: usize, const D: usize>(
    problem: &dyn Problem,
    group: &G,
    not_in: &str,
    state: &[f64],
) -> Result<MatrixState<M, D>, WorkbenchError>
where
    G: LieGroup<f64, D, Element = SMatrix<f64, M, M>>,
{
    check_state(problem, state)?;
    let g = SMatrix::<f64, M, M>::from_row_slice(&state[..M * M]);
    let defect = group.defect(&g);
    if !within_tolerance(defect) {
        return Err(off_manifold(problem.name(), format!("{not_in}: its distance from the group is {defect:.3e}")));
    }
    Ok(LieState::new(g, SVector::from_column_slice(&state[M * M..])))
}

/// `(g exp(ε ξ), μ + ε ν)` in the coordinates of `state` (`g` row-major, then `μ`), with `ξ` and
/// `ν` of standard normal components from `normal`: a perturbation that stays on the group.
/// A state of another length is returned as it is.
pub(super) fn perturb_on<G, const M: usize, const D: usize>(
    group: &G,
    state: &[f64],
    eps: f64,
    normal: &mut dyn FnMut() -> f64,
) -> Vec<f64>
where
    G: LieGroup<f64, D, Element = SMatrix<f64, M, M>>,
{
    if state.len() != M * M + D {
        return state.to_vec();
    }
    let g = SMatrix::<f64, M, M>::from_row_slice(&state[..M * M]);
    let xi = SVector::<f64, D>::from_fn(|_, _| eps * normal());
    let moved = g * group.exp(&xi);
    let mut v: Vec<f64> = (0..M * M).map(|k| moved[(k / M, k % M)]).collect();
    v.extend(state[M * M..].iter().map(|m| m + eps * normal()));
    v
}

/// The [`PhaseSpace`] of a catalogue problem on `T*G`, `G ⊂ GL(M)`, `D = dim G`
/// ([`Layout::Lie`]): the state is read by [`lie_state`] on `$group`, the method built by the
/// problem's `method`, and the energy is `$energy` of the problem `$this` at the state `$s` (by
/// default the first of its observed quantities).
macro_rules! lie_phase_space {
    ($ty:ty, $group:expr, $m:literal, $d:literal, $not_in:literal) => {
        lie_phase_space!($ty, $group, $m, $d, $not_in, |this, s| Observe::<MatrixState<$m, $d>>::quantities(this, &s)
            [0]);
    };
    ($ty:ty, $group:expr, $m:literal, $d:literal, $not_in:literal, |$this:ident, $s:ident| $energy:expr) => {
        impl PhaseSpace for $ty {
            fn layout(&self) -> Layout {
                Layout::Lie { m: $m, d: $d }
            }
            fn energy(&self, state: &[f64]) -> Result<f64, WorkbenchError> {
                let ($this, $s) = (self, lie_state(self, &$group, $not_in, state)?);
                Ok($energy)
            }
            #[allow(clippy::too_many_arguments)]
            fn section(
                &self,
                method: &MethodInfo,
                h: f64,
                state: &[f64],
                section: &Section,
                count: usize,
                max_steps: usize,
                stop: Option<&std::sync::atomic::AtomicBool>,
            ) -> Result<Vec<SectionCrossing>, WorkbenchError> {
                let s = lie_state(self, &$group, $not_in, state)?;
                lie_section_of(self.method(method)?, s, h, section, (count, max_steps), stop)
            }
            fn megno(
                &self,
                method: &MethodInfo,
                h: f64,
                steps: usize,
                states: &[Vec<f64>],
                stop: Option<&std::sync::atomic::AtomicBool>,
            ) -> Result<Vec<Option<MegnoValue>>, WorkbenchError> {
                let starts =
                    states.iter().map(|s| lie_state(self, &$group, $not_in, s)).collect::<Result<Vec<_>, _>>()?;
                lie_megno_of($group, self.method(method)?, &starts, h, steps, stop)
            }
        }
    };
}
pub(super) use lie_phase_space;

pub(super) fn group_defect() -> Quantity {
    Quantity::new("group_defect", Kind::Constraint, 1, "distance of g from the group (|RᵀR − I| + |det R − 1|)")
}

pub(super) fn start<O: Observe<MatrixState<M, D>> + 'static, const M: usize, const D: usize>(
    method: Box<dyn discretization::OneStep<MatrixState<M, D>>>,
    s0: MatrixState<M, D>,
    h: f64,
    observe: O,
) -> Result<Box<dyn Simulation>, WorkbenchError> {
    Ok(Box::new(Run::new(method, s0, h, observe)?))
}

// ---------------------------------------------------------------------------------------------

/// The free rigid body, `I = diag(2, 1, 2/3)`, `Π0 = (cos 1.1, 0, sin 1.1)`,
/// `R0 = exp(0.3, −0.2, 0.5)` (docs/math.md §D.1; the rigid body of Bou-Rabee & Marsden,
/// *Hamilton–Pontryagin integrators on Lie groups, Part I*, 2009, arXiv:0801.0996, §6).
#[derive(Debug, Clone, Copy)]
pub struct RigidBody {
    body: FreeRigidBody,
    s0: LieState<Matrix3<f64>, 3>,
    summary: &'static str,
}

impl RigidBody {
    /// The default body and initial data.
    pub fn new() -> Result<Self, WorkbenchError> {
        let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0)?;
        let s0 = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin()));
        Ok(Self { body, s0, summary: "free rigid body on SO(3), I = diag(2, 1, 2/3), Π0 = (cos 1.1, 0, sin 1.1)" })
    }

    /// The free rigid body `ℓ(ξ) = ½ ξᵀIξ` of the inertia tensor `inertia` (symmetric positive
    /// definite) from `state` (`R` row-major, then `Π`), checked as [`Problem::with_state`]
    /// checks it.
    pub fn custom(inertia: &Matrix3<f64>, state: &[f64]) -> Result<Self, WorkbenchError> {
        let body = FreeRigidBody::new(*inertia).map_err(|e| WorkbenchError::Input(e.to_string()))?;
        let mut p = Self { body, s0: LieState::new(Matrix3::identity(), Vector3::zeros()), summary: "" };
        p.summary = "free rigid body on SO(3), inertia and initial state given";
        p.s0 = lie_state(&p, &So3, "R is not a rotation", state)?;
        Ok(p)
    }
}

impl Observe<MatrixState<3, 3>> for RigidBody {
    fn coordinates(&self, s: &MatrixState<3, 3>) -> Vec<f64> {
        coordinates(s)
    }
    fn quantities(&self, s: &MatrixState<3, 3>) -> Vec<f64> {
        let m = self.body.momenta(s);
        vec![self.body.energy(s), self.body.casimirs(s)[0], m[0], m[1], m[2], So3.defect(&s.g)]
    }
}

/// The order of `method` for a Hamiltonian that does not depend on `g`: the cotangent lifts of
/// the first-order θ-maps (`θ = 0, 1`) reduce to one second-order step; the others keep the
/// registry's order.
fn left_invariant_order(method: &MethodInfo) -> u32 {
    match method.name {
        "lift-theta0-cayley" | "lift-theta1-cayley" | "lift-theta0-exp" | "lift-theta1-exp" => 2,
        _ => method.order,
    }
}

impl RigidBody {
    /// The method `method` on this body.
    fn method(
        &self,
        method: &MethodInfo,
    ) -> Result<Box<dyn discretization::OneStep<MatrixState<3, 3>>>, WorkbenchError> {
        Ok(match method.name {
            "rkmk4" => Box::new(Rkmk4So3::new(self.body)?),
            "cg4a" => Box::new(GroupOde::of(crouch_grossman::cg4a(So3xR3::default(), self.body)?)),
            "cf4" => Box::new(GroupOde::of(commutator_free::cf4(So3xR3::default(), self.body)?)),
            "lgvi" => Box::new(integrators::lgvi::Lgvi::new(self.body).map_err(WorkbenchError::Geom)?),
            name if name.starts_with("lie-poisson") => methods::lie_poisson(method, So3, self.body.hamiltonian())?,
            name if methods::SO3_VERTICAL.contains(&name) => {
                methods::so3_vertical(method, ReducedTop::free(&self.body))?
            }
            _ => methods::lie_group(method, So3, self.body, self.body.hamiltonian())?,
        })
    }
}

lie_phase_space!(RigidBody, So3, 3, 3, "R is not a rotation");

impl Problem for RigidBody {
    fn name(&self) -> &'static str {
        "rigid-body"
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn family(&self) -> Family {
        Family::LieGroup
    }
    fn defaults(&self) -> (f64, f64) {
        (0.05, 500.0)
    }
    fn state_labels(&self) -> Vec<String> {
        labels(3, 3, "R", "Pi")
    }
    fn quantities(&self) -> Vec<Quantity> {
        vec![
            Quantity::new("energy", Kind::Energy, 1, "E = ½ Π·I⁻¹Π"),
            Quantity::new("casimir", Kind::Casimir, 1, "C = |Π|²"),
            Quantity::new("spatial_momentum", Kind::Momentum, 3, "RΠ (momentum map of left translations)"),
            group_defect(),
        ]
    }
    /// The θ-map lifts are order 2 here: `H(g, μ) = ½ μ·I⁻¹μ` does not depend on `g`, so the
    /// `θ`-weighted evaluation of `∂H/∂g` drops out and `θ = 0` and `θ = 1` give the same
    /// (second-order) step (measured: slopes 2.00 for both, `geomint convergence rigid-body`).
    fn order_of(&self, method: &MethodInfo) -> u32 {
        left_invariant_order(method)
    }
    fn reference(&self) -> (&'static str, usize) {
        ("rk4-embedded", 8)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        start(self.method(method)?, self.s0, h, *self)
    }
    fn phase_space(&self) -> Option<&dyn PhaseSpace> {
        Some(self)
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        Ok(coordinates(&self.s0))
    }
    /// `R` row-major (a rotation), then `Π`.
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        Ok(Box::new(Self { s0: lie_state(self, &So3, "R is not a rotation", state)?, ..*self }))
    }
    /// `(R exp(ε ξ), Π + ε ν)`.
    fn perturb(&self, state: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
        perturb_on::<_, 3, 3>(&So3, state, eps, normal)
    }
}

// ---------------------------------------------------------------------------------------------

/// The heavy top, `I = diag(2, 2.5, 1)`, `mgl = 1`, `χ ∝ (0.1, 0, 1)`, `Π0 = (0.3, −0.4, 2)`,
/// `R0 = exp(0.5, 0.2, 0)` (docs/math.md §D.1).
#[derive(Debug, Clone, Copy)]
pub struct HeavyTopProblem {
    top: HeavyTop,
    s0: LieState<Matrix3<f64>, 3>,
    summary: &'static str,
}

/// The heavy top's methods (those of [`HeavyTopProblem::methods`], and the Lagrange top's
/// [`methods::LAGRANGE_TOP`], which refuse a top that is not one) for `top`.
fn heavy_top_method(
    top: &HeavyTop,
    method: &MethodInfo,
) -> Result<Box<dyn discretization::OneStep<MatrixState<3, 3>>>, WorkbenchError> {
    Ok(match method.name {
        "rkmk4" => Box::new(Rkmk4So3::new(*top)?),
        "cg4a" => Box::new(GroupOde::of(crouch_grossman::cg4a(So3xR3::default(), *top)?)),
        "cf4" => Box::new(GroupOde::of(commutator_free::cf4(So3xR3::default(), *top)?)),
        "lgvi" => Box::new(integrators::lgvi::Lgvi::new(*top).map_err(WorkbenchError::Geom)?),
        name if methods::SO3_VERTICAL.contains(&name) => methods::so3_vertical(method, ReducedTop::heavy(top))?,
        name if methods::LAGRANGE_TOP.contains(&name) => methods::lagrange_top(method, top)?,
        "lie-poisson-engo-faltinsen" => Box::new(VerticalCoadjointEnergy::new(Chart::Cayley, ReducedTop::heavy(top))),
        _ => methods::lie_group(method, So3, *top, top.hamiltonian())?,
    })
}

impl HeavyTopProblem {
    /// The default top and initial data.
    pub fn new() -> Result<Self, WorkbenchError> {
        let top =
            HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::new(0.1, 0.0, 1.0))?;
        let s0 = LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
        let summary = "heavy top on SO(3), I = diag(2, 2.5, 1), mgl = 1, χ ∝ (0.1, 0, 1), Π0 = (0.3, −0.4, 2)";
        Ok(Self { top, s0, summary })
    }

    /// The heavy top `ℓ(R, ξ) = ½ ξᵀIξ − mgl e3·(Rχ)` of the inertia tensor `inertia` about the
    /// fixed point, weight times length `mgl` and body direction `chi` of the centre of mass
    /// (normalised), from `state` (`R` row-major, then `Π`), checked as
    /// [`Problem::with_state`] checks it.
    pub fn custom(inertia: &Matrix3<f64>, mgl: f64, chi: &Vector3<f64>, state: &[f64]) -> Result<Self, WorkbenchError> {
        let top = HeavyTop::new(*inertia, mgl, *chi).map_err(|e| WorkbenchError::Input(e.to_string()))?;
        let summary = "heavy top on SO(3), inertia, mgl, χ and initial state given";
        let mut p = Self { top, s0: LieState::new(Matrix3::identity(), Vector3::zeros()), summary };
        p.s0 = lie_state(&p, &So3, "R is not a rotation", state)?;
        Ok(p)
    }
}

impl Observe<MatrixState<3, 3>> for HeavyTopProblem {
    fn coordinates(&self, s: &MatrixState<3, 3>) -> Vec<f64> {
        coordinates(s)
    }
    fn quantities(&self, s: &MatrixState<3, 3>) -> Vec<f64> {
        vec![self.top.energy(s), self.top.momenta(s)[0], So3.defect(&s.g)]
    }
}

impl HeavyTopProblem {
    /// The method `method` on this top.
    fn method(
        &self,
        method: &MethodInfo,
    ) -> Result<Box<dyn discretization::OneStep<MatrixState<3, 3>>>, WorkbenchError> {
        heavy_top_method(&self.top, method)
    }
}

lie_phase_space!(HeavyTopProblem, So3, 3, 3, "R is not a rotation");

impl Problem for HeavyTopProblem {
    fn name(&self) -> &'static str {
        "heavy-top"
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn family(&self) -> Family {
        Family::LieGroup
    }
    fn defaults(&self) -> (f64, f64) {
        (0.01, 100.0)
    }
    fn state_labels(&self) -> Vec<String> {
        labels(3, 3, "R", "Pi")
    }
    fn quantities(&self) -> Vec<Quantity> {
        vec![
            Quantity::new("energy", Kind::Energy, 1, "E = ½ Π·I⁻¹Π + mgl Γ·χ"),
            Quantity::new("vertical_momentum", Kind::Momentum, 1, "e3·RΠ (rotations about the vertical)"),
            group_defect(),
        ]
    }
    /// Every Lie-group method but the Lie–Poisson ones on `so(3)*`: `H` depends on `R` through
    /// the height of the centre of mass, so it is not left-invariant and does not reduce to
    /// `so(3)*`; Engø–Faltinsen's scheme runs on `se(3)* ∋ (Π, Γ)` instead
    /// (`integrators::lie_poisson_baselines::VerticalCoadjointEnergy`). Not the Lagrange top's
    /// ([`methods::LAGRANGE_TOP`]): this top is not symmetric (`lagrange-top` is).
    fn methods(&self) -> Vec<&'static str> {
        heavy_top_methods()
    }
    fn reference(&self) -> (&'static str, usize) {
        ("rk4-embedded", 8)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        start(self.method(method)?, self.s0, h, *self)
    }
    fn phase_space(&self) -> Option<&dyn PhaseSpace> {
        Some(self)
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        Ok(coordinates(&self.s0))
    }
    /// `R` row-major (a rotation), then `Π`.
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        Ok(Box::new(Self { s0: lie_state(self, &So3, "R is not a rotation", state)?, ..*self }))
    }
    /// `(R exp(ε ξ), Π + ε ν)`.
    fn perturb(&self, state: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
        perturb_on::<_, 3, 3>(&So3, state, eps, normal)
    }
}

/// The heavy top's methods: every Lie-group method but the Lie–Poisson ones on `so(3)*`
/// (Engø–Faltinsen's scheme on `se(3)*` is one) and the Lagrange top's.
fn heavy_top_methods() -> Vec<&'static str> {
    methods::for_family(Family::LieGroup)
        .iter()
        .map(|m| m.name)
        .filter(|n| !n.starts_with("lie-poisson") || *n == "lie-poisson-engo-faltinsen")
        .filter(|n| !methods::LAGRANGE_TOP.contains(n))
        .collect()
}

// ---------------------------------------------------------------------------------------------

/// The Lagrange top: the symmetric heavy top `I = diag(2, 2, 1)`, `mgl = 1`, `χ = e3` (centre of
/// mass on the symmetry axis), `Π0 = (0.3, −0.4, 2)`, `R0 = exp(0.5, 0.2, 0)` — the catalogue's
/// heavy top made symmetric. Integrable: besides the energy and the vertical momentum `e3·RΠ` it
/// conserves the axial momentum `Π₃`. Its methods are the heavy top's and Bobenko–Suris's
/// discrete Lagrange top (`bobenko-suris`, `integrators::lie_poisson_baselines::BobenkoSuris`).
#[derive(Debug, Clone, Copy)]
pub struct LagrangeTopProblem {
    top: HeavyTop,
    s0: LieState<Matrix3<f64>, 3>,
}

impl LagrangeTopProblem {
    /// The default top and initial data.
    pub fn new() -> Result<Self, WorkbenchError> {
        let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.0, 1.0)), 1.0, Vector3::z())?;
        let s0 = LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
        Ok(Self { top, s0 })
    }
}

impl Observe<MatrixState<3, 3>> for LagrangeTopProblem {
    fn coordinates(&self, s: &MatrixState<3, 3>) -> Vec<f64> {
        coordinates(s)
    }
    fn quantities(&self, s: &MatrixState<3, 3>) -> Vec<f64> {
        vec![self.top.energy(s), self.top.momenta(s)[0], s.mu[2], So3.defect(&s.g)]
    }
}

impl LagrangeTopProblem {
    /// The method `method` on this top.
    fn method(
        &self,
        method: &MethodInfo,
    ) -> Result<Box<dyn discretization::OneStep<MatrixState<3, 3>>>, WorkbenchError> {
        heavy_top_method(&self.top, method)
    }
}

lie_phase_space!(LagrangeTopProblem, So3, 3, 3, "R is not a rotation");

impl Problem for LagrangeTopProblem {
    fn name(&self) -> &'static str {
        "lagrange-top"
    }
    fn summary(&self) -> &'static str {
        "Lagrange (symmetric heavy) top on SO(3), I = diag(2, 2, 1), mgl = 1, χ = e3, Π0 = (0.3, −0.4, 2)"
    }
    fn family(&self) -> Family {
        Family::LieGroup
    }
    fn defaults(&self) -> (f64, f64) {
        (0.01, 100.0)
    }
    fn state_labels(&self) -> Vec<String> {
        labels(3, 3, "R", "Pi")
    }
    fn quantities(&self) -> Vec<Quantity> {
        vec![
            Quantity::new("energy", Kind::Energy, 1, "E = ½ Π·I⁻¹Π + mgl Γ·χ"),
            Quantity::new("vertical_momentum", Kind::Momentum, 1, "e3·RΠ (rotations about the vertical)"),
            Quantity::new("axial_momentum", Kind::Momentum, 1, "Π₃ (rotations about the symmetry axis)"),
            group_defect(),
        ]
    }
    /// The heavy top's methods and the Lagrange top's ([`methods::LAGRANGE_TOP`]).
    fn methods(&self) -> Vec<&'static str> {
        let mut v = heavy_top_methods();
        v.extend(methods::LAGRANGE_TOP);
        v
    }
    fn reference(&self) -> (&'static str, usize) {
        ("rk4-embedded", 8)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        start(self.method(method)?, self.s0, h, *self)
    }
    fn phase_space(&self) -> Option<&dyn PhaseSpace> {
        Some(self)
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        Ok(coordinates(&self.s0))
    }
    /// `R` row-major (a rotation), then `Π`.
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        Ok(Box::new(Self { s0: lie_state(self, &So3, "R is not a rotation", state)?, ..*self }))
    }
    /// `(R exp(ε ξ), Π + ε ν)`.
    fn perturb(&self, state: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
        perturb_on::<_, 3, 3>(&So3, state, eps, normal)
    }
}

// ---------------------------------------------------------------------------------------------

/// Kirchhoff's underwater vehicle on SE(3): a neutrally buoyant solid ellipsoid of semi-axes
/// 1, 0.5, 0.25 m in water with Lamb's added masses, `Ω0 = (0.3, 0.5, −0.2)`, `v0 = (1, 0.3, −0.2)`
/// (docs/math.md §D.6; the underwater vehicle of Bou-Rabee & Marsden 2009, §6).
#[derive(Debug, Clone, Copy)]
pub struct Vehicle {
    vehicle: UnderwaterVehicle,
    s0: LieState<nalgebra::Matrix4<f64>, 6>,
}

impl Vehicle {
    /// The default vehicle and initial data.
    pub fn new() -> Result<Self, WorkbenchError> {
        let (vehicle, _) = UnderwaterVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0)?;
        let (w, v) = (Vector3::new(0.3, 0.5, -0.2), Vector3::new(1.0, 0.3, -0.2));
        let (pi, p) = (vehicle.inertia() * w, vehicle.mass() * v);
        let mu = Vector6::new(pi[0], pi[1], pi[2], p[0], p[1], p[2]);
        let g0 = Se3.exp(&Vector6::new(0.2, -0.1, 0.4, 1.0, -2.0, 0.5));
        Ok(Self { vehicle, s0: LieState::new(g0, mu) })
    }
}

impl Observe<MatrixState<4, 6>> for Vehicle {
    fn coordinates(&self, s: &MatrixState<4, 6>) -> Vec<f64> {
        coordinates(s)
    }
    fn quantities(&self, s: &MatrixState<4, 6>) -> Vec<f64> {
        let [c1, c2] = self.vehicle.casimirs(s);
        let mut v = vec![self.vehicle.energy(s), c1, c2];
        v.extend(self.vehicle.momenta(s));
        v.push(Se3.defect(&s.g));
        v
    }
}

impl Vehicle {
    /// The method `method` on this vehicle.
    fn method(
        &self,
        method: &MethodInfo,
    ) -> Result<Box<dyn discretization::OneStep<MatrixState<4, 6>>>, WorkbenchError> {
        if method.name.starts_with("lie-poisson") {
            methods::lie_poisson(method, Se3, self.vehicle.hamiltonian())
        } else {
            methods::lie_group(method, Se3, self.vehicle, self.vehicle.hamiltonian())
        }
    }
}

lie_phase_space!(Vehicle, Se3, 4, 6, "g is not in SE(3)");

impl Problem for Vehicle {
    fn name(&self) -> &'static str {
        "underwater-vehicle"
    }
    fn summary(&self) -> &'static str {
        "Kirchhoff's ellipsoidal vehicle on SE(3), semi-axes 1, 0.5, 0.25 m, Lamb's added masses"
    }
    fn family(&self) -> Family {
        Family::LieGroup
    }
    fn methods(&self) -> Vec<&'static str> {
        methods::for_family(Family::LieGroup)
            .iter()
            .map(|m| m.name)
            .filter(|n| !["rkmk4", "cg4a", "cf4", "lgvi"].contains(n) && !methods::SO3_VERTICAL.contains(n))
            .filter(|n| !methods::LAGRANGE_TOP.contains(n))
            .collect()
    }
    fn defaults(&self) -> (f64, f64) {
        (0.05, 500.0)
    }
    fn state_labels(&self) -> Vec<String> {
        labels(4, 6, "g", "mu")
    }
    fn quantities(&self) -> Vec<Quantity> {
        vec![
            Quantity::new("energy", Kind::Energy, 1, "E = ½ Π·J⁻¹Π + ½ P·M⁻¹P"),
            Quantity::new("casimir_p2", Kind::Casimir, 1, "|P|²"),
            Quantity::new("casimir_pi_p", Kind::Casimir, 1, "Π·P"),
            Quantity::new("spatial_momentum", Kind::Momentum, 6, "Ad*_{g⁻¹} μ (momentum map of left translations)"),
            Quantity::new("group_defect", Kind::Constraint, 1, "distance of g from SE(3)"),
        ]
    }
    fn reference(&self) -> (&'static str, usize) {
        ("rk4-embedded", 8)
    }
    /// The θ-map lifts are order 2 here, as on the rigid body: `H = ½ μ·M⁻¹μ` does not depend
    /// on `g`.
    fn order_of(&self, method: &MethodInfo) -> u32 {
        left_invariant_order(method)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        start(self.method(method)?, self.s0, h, *self)
    }
    fn phase_space(&self) -> Option<&dyn PhaseSpace> {
        Some(self)
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        Ok(coordinates(&self.s0))
    }
    /// `g ∈ SE(3)` row-major, then `μ = (Π, P)`.
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        Ok(Box::new(Self { s0: lie_state(self, &Se3, "g is not in SE(3)", state)?, ..*self }))
    }
    /// `(g exp(ε ξ), μ + ε ν)`, `ξ ∈ se(3)`.
    fn perturb(&self, state: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
        perturb_on::<_, 4, 6>(&Se3, state, eps, normal)
    }
}
