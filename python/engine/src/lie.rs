//! The Lie-group problems with a given body and initial state: the free rigid body and the
//! heavy top on SO(3) from their inertia (and `mgl`, `χ`), and the catalogue's rigid body,
//! heavy top and underwater vehicle from a given state. The observers and quantities are the
//! catalogue's (`geomint::workbench::catalogue::lie`), so a run from the catalogue's data is the
//! catalogue's run, bit for bit. A state is `g` row-major, then the body momentum `μ`.

use crate::input;
use geomint::geom_core::lie::{LieGroup, Se3, So3};
use geomint::integrators::hp::LieState;
use geomint::integrators::models::{FreeRigidBody, HeavyTop, UnderwaterVehicle};
use geomint::workbench::WorkbenchError;
use geomint::workbench::embedded::Rkmk4So3;
use geomint::workbench::methods::{self, MatrixState, MethodInfo};
use geomint::workbench::problem::{Family, Kind, Problem, Quantity, Simulation};
use geomint::workbench::run::{Observe, Run};
use nalgebra::{Matrix3, Matrix4, Vector3, Vector6};

/// The largest distance of a given attitude from its group, `|RᵀR − I| + |det R − 1|`.
pub const GROUP_TOLERANCE: f64 = 1e-9;

fn labels(m: usize, d: usize, g: &str, mu: &str) -> Vec<String> {
    let mut v: Vec<String> = (0..m * m).map(|k| format!("{g}{}{}", k / m + 1, k % m + 1)).collect();
    v.extend((0..d).map(|i| format!("{mu}{}", i + 1)));
    v
}

fn coordinates<const M: usize, const D: usize>(s: &MatrixState<M, D>) -> Vec<f64> {
    let mut v: Vec<f64> = (0..M * M).map(|k| s.g[(k / M, k % M)]).collect();
    v.extend(s.pi.iter());
    v
}

fn group_defect() -> Quantity {
    Quantity::new("group_defect", Kind::Constraint, 1, "distance of g from the group (|RᵀR − I| + |det R − 1|)")
}

fn geom(e: geomint::geom_core::GeomError) -> WorkbenchError {
    input(e.to_string())
}

/// A 3 × 3 inertia tensor from 3 principal moments or 9 row-major entries.
pub fn inertia(values: &[f64]) -> Result<Matrix3<f64>, WorkbenchError> {
    match values.len() {
        3 => Ok(Matrix3::from_diagonal(&Vector3::from_column_slice(values))),
        9 => Ok(Matrix3::from_row_slice(values)),
        n => Err(input(format!("inertia must be 3 principal moments or a 3 × 3 matrix, got {n} values"))),
    }
}

/// A rotation from 9 row-major entries (`None`: the identity), checked against SO(3).
pub fn rotation(values: Option<&[f64]>) -> Result<Matrix3<f64>, WorkbenchError> {
    let Some(v) = values else { return Ok(Matrix3::identity()) };
    if v.len() != 9 {
        return Err(input(format!("R must be a 3 × 3 rotation matrix, got {} values", v.len())));
    }
    if !v.iter().all(|x| x.is_finite()) {
        return Err(input("R must be finite"));
    }
    let r = Matrix3::from_row_slice(v);
    let d = So3.defect(&r);
    if d.is_nan() || d > GROUP_TOLERANCE {
        return Err(input(format!("R is not a rotation: |RᵀR − I| + |det R − 1| = {d:.3e} > {GROUP_TOLERANCE:e}")));
    }
    Ok(r)
}

/// A 3-vector from 3 finite values.
pub fn vector3(what: &str, v: &[f64]) -> Result<Vector3<f64>, WorkbenchError> {
    if v.len() != 3 {
        return Err(input(format!("{what} must have 3 components, got {}", v.len())));
    }
    if !v.iter().all(|x| x.is_finite()) {
        return Err(input(format!("{what} must be finite")));
    }
    Ok(Vector3::from_column_slice(v))
}

/// `(R, Π)` from 12 values (R row-major), `R` checked against SO(3).
fn so3_state(s: &[f64]) -> Result<LieState<Matrix3<f64>, 3>, WorkbenchError> {
    Ok(LieState::new(rotation(Some(&s[..9]))?, Vector3::from_column_slice(&s[9..12])))
}

fn check_len(name: &str, s: &[f64], n: usize, labels: &[String]) -> Result<(), WorkbenchError> {
    if s.len() != n {
        return Err(input(format!(
            "a state of '{name}' has {n} coordinates ({}), got {}",
            crate::label_list(labels),
            s.len()
        )));
    }
    if let Some(i) = s.iter().position(|v| !v.is_finite()) {
        return Err(input(format!("state coordinate {} of '{name}' must be finite, got {}", labels[i], s[i])));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------

/// A free rigid body `ℓ(ξ) = ½ ξᵀIξ` on SO(3) and its initial state `(R0, Π0)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RigidBodySpec {
    /// The body.
    pub body: FreeRigidBody,
    /// The initial state.
    pub s0: LieState<Matrix3<f64>, 3>,
}

impl RigidBodySpec {
    /// A body of inertia `inertia` (3 principal moments or a symmetric positive definite 3 × 3
    /// matrix) from the body momentum `pi` and the attitude `r` (identity by default).
    pub fn new(inertia: &[f64], pi: &[f64], r: Option<&[f64]>) -> Result<Self, WorkbenchError> {
        let body = FreeRigidBody::new(self::inertia(inertia)?).map_err(geom)?;
        Ok(Self { body, s0: LieState::new(rotation(r)?, vector3("Pi", pi)?) })
    }

    /// The catalogue's body and initial data (`rigid-body`).
    pub fn catalogue() -> Result<Self, WorkbenchError> {
        let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0)?;
        let s0 = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin()));
        Ok(Self { body, s0 })
    }

    /// The same body from the state `s` (12 values: `R` row-major, `Π`).
    pub fn with_state(self, s: &[f64]) -> Result<Self, WorkbenchError> {
        check_len("rigid-body", s, 12, &labels(3, 3, "R", "Pi"))?;
        Ok(Self { s0: so3_state(s)?, ..self })
    }

    /// The problem, from `s0` or from `state`.
    pub fn problem(&self, state: Option<&[f64]>) -> Result<Box<dyn Problem>, WorkbenchError> {
        let spec = match state {
            Some(s) => self.with_state(s)?,
            None => *self,
        };
        Ok(spec.boxed("free rigid body on SO(3), inertia and initial state given"))
    }

    /// The problem with the summary `summary`.
    pub fn boxed(self, summary: &'static str) -> Box<dyn Problem> {
        Box::new(RigidBody { spec: self, summary })
    }
}

#[derive(Debug, Clone, Copy)]
struct RigidBody {
    spec: RigidBodySpec,
    summary: &'static str,
}

impl Observe<MatrixState<3, 3>> for RigidBody {
    fn coordinates(&self, s: &MatrixState<3, 3>) -> Vec<f64> {
        coordinates(s)
    }
    fn quantities(&self, s: &MatrixState<3, 3>) -> Vec<f64> {
        let m = FreeRigidBody::spatial_momentum(s);
        vec![self.spec.body.energy(&s.pi), FreeRigidBody::casimir(&s.pi), m[0], m[1], m[2], So3.defect(&s.g)]
    }
}

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
    fn reference(&self) -> (&'static str, usize) {
        ("rk4-embedded", 8)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        let m: Box<dyn geomint::discretization::OneStep<MatrixState<3, 3>>> = match method.name {
            "rkmk4" => Box::new(Rkmk4So3::new(self.spec.body)?),
            _ => methods::lie_group(method, So3, self.spec.body)?,
        };
        Ok(Box::new(Run::new(m, self.spec.s0, h, *self)))
    }
}

// ---------------------------------------------------------------------------------------------

/// A heavy top `ℓ(R, ξ) = ½ ξᵀIξ − mgl e3·(Rχ)` on SO(3) and its initial state `(R0, Π0)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeavyTopSpec {
    /// The top.
    pub top: HeavyTop,
    /// The initial state.
    pub s0: LieState<Matrix3<f64>, 3>,
}

impl HeavyTopSpec {
    /// A top of inertia `inertia` (about the fixed point), weight times length `mgl` and body
    /// direction `chi` of the centre of mass (normalised), from `pi` and `r` (identity by
    /// default).
    pub fn new(inertia: &[f64], mgl: f64, chi: &[f64], pi: &[f64], r: Option<&[f64]>) -> Result<Self, WorkbenchError> {
        let top = HeavyTop::new(self::inertia(inertia)?, mgl, vector3("chi", chi)?).map_err(geom)?;
        Ok(Self { top, s0: LieState::new(rotation(r)?, vector3("Pi", pi)?) })
    }

    /// The catalogue's top and initial data (`heavy-top`).
    pub fn catalogue() -> Result<Self, WorkbenchError> {
        let top =
            HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::new(0.1, 0.0, 1.0))?;
        let s0 = LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
        Ok(Self { top, s0 })
    }

    /// The same top from the state `s` (12 values: `R` row-major, `Π`).
    pub fn with_state(self, s: &[f64]) -> Result<Self, WorkbenchError> {
        check_len("heavy-top", s, 12, &labels(3, 3, "R", "Pi"))?;
        Ok(Self { s0: so3_state(s)?, ..self })
    }

    /// The problem, from `s0` or from `state`.
    pub fn problem(&self, state: Option<&[f64]>) -> Result<Box<dyn Problem>, WorkbenchError> {
        let spec = match state {
            Some(s) => self.with_state(s)?,
            None => *self,
        };
        Ok(spec.boxed("heavy top on SO(3), inertia, mgl, χ and initial state given"))
    }

    /// The problem with the summary `summary`.
    pub fn boxed(self, summary: &'static str) -> Box<dyn Problem> {
        Box::new(Top { spec: self, summary })
    }
}

#[derive(Debug, Clone, Copy)]
struct Top {
    spec: HeavyTopSpec,
    summary: &'static str,
}

impl Observe<MatrixState<3, 3>> for Top {
    fn coordinates(&self, s: &MatrixState<3, 3>) -> Vec<f64> {
        coordinates(s)
    }
    fn quantities(&self, s: &MatrixState<3, 3>) -> Vec<f64> {
        vec![self.spec.top.energy(s), HeavyTop::vertical_momentum(s), So3.defect(&s.g)]
    }
}

impl Problem for Top {
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
    fn reference(&self) -> (&'static str, usize) {
        ("rk4-embedded", 8)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        let m: Box<dyn geomint::discretization::OneStep<MatrixState<3, 3>>> = match method.name {
            "rkmk4" => Box::new(Rkmk4So3::new(self.spec.top)?),
            _ => methods::lie_group(method, So3, self.spec.top)?,
        };
        Ok(Box::new(Run::new(m, self.spec.s0, h, *self)))
    }
}

// ---------------------------------------------------------------------------------------------

/// The catalogue's underwater vehicle (an ellipsoid of semi-axes 1, 0.5, 0.25 m, density
/// 1000 kg/m³) from the state `s` (22 values: `g ∈ SE(3)` row-major, `μ = (Π, P)`).
pub fn vehicle(s: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
    check_len("underwater-vehicle", s, 22, &labels(4, 6, "g", "mu"))?;
    let (vehicle, _) = UnderwaterVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0)?;
    let g = Matrix4::from_row_slice(&s[..16]);
    let d = Se3.defect(&g);
    if d.is_nan() || d > GROUP_TOLERANCE {
        return Err(input(format!("g is not in SE(3): defect {d:.3e} > {GROUP_TOLERANCE:e}")));
    }
    let s0 = LieState::new(g, Vector6::from_column_slice(&s[16..22]));
    Ok(Box::new(Vehicle { vehicle, s0 }))
}

#[derive(Debug, Clone, Copy)]
struct Vehicle {
    vehicle: UnderwaterVehicle,
    s0: LieState<Matrix4<f64>, 6>,
}

impl Observe<MatrixState<4, 6>> for Vehicle {
    fn coordinates(&self, s: &MatrixState<4, 6>) -> Vec<f64> {
        coordinates(s)
    }
    fn quantities(&self, s: &MatrixState<4, 6>) -> Vec<f64> {
        let (c1, c2) = UnderwaterVehicle::casimirs(&s.pi);
        let mut v = vec![self.vehicle.energy(&s.pi), c1, c2];
        v.extend(UnderwaterVehicle::spatial_momentum(s).iter());
        v.push(Se3.defect(&s.g));
        v
    }
}

impl Problem for Vehicle {
    fn name(&self) -> &'static str {
        "underwater-vehicle"
    }
    fn summary(&self) -> &'static str {
        "Kirchhoff's ellipsoidal vehicle on SE(3), semi-axes 1, 0.5, 0.25 m, Lamb's added masses, initial state given"
    }
    fn family(&self) -> Family {
        Family::LieGroup
    }
    fn methods(&self) -> Vec<&'static str> {
        methods::for_family(Family::LieGroup).iter().map(|m| m.name).filter(|n| *n != "rkmk4").collect()
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
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        let m = methods::lie_group(method, Se3, self.vehicle)?;
        Ok(Box::new(Run::new(m, self.s0, h, *self)))
    }
}
