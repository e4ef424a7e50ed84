//! A user's rigid body on SO(3) written in a TOML file (`geomint run --system FILE.toml`, problem
//! `system`, with `group = "SO(3)"`): the inertia, and a potential `V(R)` as a formula in the
//! entries `r11 … r33` of the attitude `R` with named parameters, parsed once by
//! [`geom_core::formula`]. The motion is that of the left-trivialized Lagrangian on `SO(3) × so(3)`
//! (docs/math.md §D.1; Bou-Rabee & Marsden, *Hamilton–Pontryagin integrators on Lie groups,
//! Part I*, 2009, arXiv:0801.0996)
//!
//! ```text
//!   ℓ(R, Ω) = ½ Ωᵀ I Ω − V(R),      H(R, Π) = ½ Π·I⁻¹Π + V(R),      Π = IΩ,
//!   Ṙ = R Ω̂,      Π̇ = Π × Ω + τ(R),      τ = −dV,
//! ```
//!
//! with the body torque `τ` the left-trivialized gradient of `V` ([`FormulaPotential::torque`]),
//! so every Lie-group method of the workbench applies: the Hamilton–Pontryagin integrators and
//! their compositions, LGVI, the cotangent lifts of the discretization maps of SO(3), the
//! Lagrangian route, RKMK4, CG4a, CF4 and the embedded Runge–Kutta baselines; for a Lagrange
//! top (`I = diag(I₁, I₁, I₃)`, `V = V₀ + c r₃₃`) also Bobenko–Suris's discrete Lagrange top.
//!
//! ```toml
//! name = "heavy top"                       # optional: printed in the run header
//! group = "SO(3)"                          # the group (SO(3) only)
//! inertia = [2.0, 2.5, 1.0]                # principal moments, or a symmetric 3 × 3 matrix
//!                                          #   [[I11, I12, I13], [I21, I22, I23], [I31, I32, I33]]
//! V = "m*g*l*(r31*chi1 + r32*chi2 + r33*chi3)"   # optional: V(R) in r11 … r33 (none: free body)
//! R0_axis_angle = [0.5, 0.2, 0.0]          # R0 = exp(θ̂); or R0 = [[...], [...], [...]]
//!                                          #   (a rotation); neither: R0 = I
//! Pi0 = [0.3, -0.4, 2.0]                   # the body angular momentum Π0 = I Ω0
//! h = 0.01                                 # optional default step (default 0.01)
//! t_end = 20.0                             # optional default final time (default 10)
//!
//! [params]                                 # optional; --param m=2 overrides
//! m = 1.0
//! g = 1.0
//! l = 1.0
//! chi1 = 0.0
//! chi2 = 0.0
//! chi3 = 1.0
//! ```
//!
//! The monitored quantities are those of the catalogue's bodies: the energy `E = ½ Π·I⁻¹Π + V(R)`
//! always; the vertical angular momentum `e3·(RΠ)` when `V` depends on the third row of `R` only
//! (then `V(e^{sê3} R) = V(R)`: rotations about the vertical are a symmetry, and Noether's
//! momentum is conserved); the distance of `R` from SO(3). Without `V` the system is the
//! catalogue's free rigid body ([`super::lie::RigidBody::custom`], step for step) and reports
//! its invariants: the energy, the Casimir `|Π|²` and the spatial angular momentum `RΠ`.
//!
//! With `group = "SE(3)"` the body also translates: `g = (R, x)`, body velocity `ξ = (Ω, v)`,
//! `ℓ(g, ξ) = ½ ξᵀMξ − V(R, x)` with `inertia` the 6 × 6 metric `M` (its 6 diagonal entries, or
//! 36 entries as six rows, e.g. Kirchhoff's vehicle with added masses), `V` a formula in
//! `r11 … r33` and `x1, x2, x3` ([`RigidMotionPotential`]), the initial state `R0`, `x0`
//! (default 0), `Pi0` and the body linear momentum `P0` (default 0). The methods are those of
//! the catalogue's `underwater-vehicle` (no SO(3)-only method); the quantities the energy, and
//! for a free body (no `V`) the Casimirs `|P|²`, `Π·P` and the spatial momentum.
//!
//! Bad input is one input error naming the file and the field: an unknown key, a group other
//! than SO(3), an inertia that is not 3 positive moments or a symmetric positive definite matrix,
//! an `R0` that is not a rotation (to [`STATE_TOLERANCE`]), lists of the wrong length, a
//! formula that does not parse (the column and the known names), an unknown `--param`, or a `V`
//! that is not finite at `R0`.

use crate::workbench::WorkbenchError;
use crate::workbench::catalogue::lie::{
    self, coordinates, group_defect, labels, lie_phase_space, lie_state, perturb_on, start,
};
use crate::workbench::catalogue::system::{self, SystemSpec, intern};
use crate::workbench::chaos::{Layout, MegnoValue, PhaseSpace, Section, SectionCrossing};
use crate::workbench::embedded::{GroupOde, LieField, Rkmk4So3};
use crate::workbench::lie_section::{lie_megno_of, lie_section_of};
use crate::workbench::methods::{self, MatrixState, MethodInfo};
use crate::workbench::problem::{Family, Kind, Problem, Quantity, STATE_TOLERANCE, Simulation, within_tolerance};
use crate::workbench::run::Observe;
use geom_core::formula::FormulaFunction;
use geom_core::function::ScalarDerivatives;
use geom_core::lie::{Chart, LieGroup, Se3, So3, So3xR3, se3};
use geom_core::scalar::AdScalar;
use geom_core::{Result as GeomResult, Scalar};
use integrators::hp::{KineticPotential, LieFunction, LieState, Potential, PotentialGradient};
use integrators::lie_poisson_baselines::{BobenkoSuris, VerticalCoadjointEnergy};
use integrators::models::HeavyTop;
use integrators::rkmk::LieVectorField;
use integrators::{commutator_free, crouch_grossman};
use nalgebra::{Matrix3, Matrix4, Matrix6, SVector, Vector3, Vector6};
use num_dual::DualSVec64;
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::path::Path;

/// The names of the entries of `R` in a potential, row-major: `r11, r12, r13, r21, …, r33`.
pub const ENTRIES: [&str; 9] = ["r11", "r12", "r13", "r21", "r22", "r23", "r31", "r32", "r33"];

/// The groups a system file may name.
pub const GROUPS: &str = "SO(3) and SE(3)";

/// A rigid body of formulas (module documentation): what a TOML system file with `group` holds,
/// also built in memory (the Python package's `geomint.lie_system`). [`LieSystemSpec::problem`]
/// checks it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct LieSystemSpec {
    /// A name for the run header.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The group: `SO(3)`.
    pub group: String,
    /// 3 principal moments, or the 9 entries of the inertia tensor row by row (a TOML file may
    /// write them as a 3 × 3 array of rows).
    #[serde(deserialize_with = "inertia_entries")]
    pub inertia: Vec<f64>,
    /// `V(R)` in the entries [`ENTRIES`]; none for a free body.
    #[serde(rename = "V", skip_serializing_if = "Option::is_none")]
    pub potential: Option<String>,
    /// The initial attitude, 9 entries row by row (or a 3 × 3 array of rows); the identity when
    /// neither this nor [`r0_axis_angle`](Self::r0_axis_angle) is given.
    #[serde(rename = "R0", default, deserialize_with = "r0_entries", skip_serializing_if = "Option::is_none")]
    pub r0: Option<Vec<f64>>,
    /// The initial attitude as `R0 = exp(θ̂)`, `θ` the rotation vector (axis times angle).
    #[serde(rename = "R0_axis_angle", skip_serializing_if = "Option::is_none")]
    pub r0_axis_angle: Option<Vec<f64>>,
    /// The initial body angular momentum `Π0`.
    #[serde(rename = "Pi0")]
    pub pi0: Vec<f64>,
    /// SE(3): the initial position `x0` of the body frame's origin (0 by default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub x0: Option<Vec<f64>>,
    /// SE(3): the initial body linear momentum `P0` (0 by default).
    #[serde(rename = "P0", skip_serializing_if = "Option::is_none")]
    pub p0: Option<Vec<f64>>,
    /// Default step (0.01).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub h: Option<f64>,
    /// Default final time (10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_end: Option<f64>,
    /// Parameters and their values.
    #[serde(default)]
    pub params: BTreeMap<String, f64>,
}

/// A list of numbers, or a list of rows of numbers (flattened row by row).
#[derive(Deserialize)]
#[serde(untagged)]
enum Entries {
    Flat(Vec<f64>),
    Rows(Vec<Vec<f64>>),
}

fn entries<'de, D: Deserializer<'de>>(d: D, what: &str) -> std::result::Result<Vec<f64>, D::Error> {
    match Entries::deserialize(d) {
        Ok(Entries::Flat(v)) => Ok(v),
        Ok(Entries::Rows(rows)) if rows.iter().all(|r| r.len() == rows.len()) => Ok(rows.concat()),
        _ => Err(serde::de::Error::custom(format!(
            "{what} must be a list of numbers or a square matrix written as rows [[.., .., ..], [..], [..]]"
        ))),
    }
}

fn inertia_entries<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Vec<f64>, D::Error> {
    entries(d, "inertia")
}

fn r0_entries<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<Vec<f64>>, D::Error> {
    entries(d, "R0").map(Some)
}

fn input(origin: &str, msg: impl std::fmt::Display) -> WorkbenchError {
    WorkbenchError::Input(format!("{origin}: {msg}"))
}

/// Whether the TOML `text` declares a `group` (a Lie-group system file) rather than a canonical
/// one. Text that does not parse is left to the canonical reader, which reports it.
pub fn declares_group(text: &str) -> bool {
    toml::from_str::<toml::Table>(text).is_ok_and(|t| t.contains_key("group"))
}

/// The problem of the system file `path` with its parameters overridden by `params`: a rigid
/// body ([`LieSystemSpec`]) when the file declares a `group`, else a canonical system of
/// formulas ([`SystemSpec`]). Input errors name the file.
pub fn read(path: &Path, params: &[(String, f64)]) -> Result<Box<dyn Problem>, WorkbenchError> {
    let origin = format!("system file {}", path.display());
    let text = std::fs::read_to_string(path).map_err(|e| input(&origin, format!("cannot read it: {e}")))?;
    if declares_group(&text) {
        LieSystemSpec::from_toml(&text, &origin)?.problem(params, &origin)
    } else {
        SystemSpec::from_toml(&text, &origin)?.problem(params, &origin)
    }
}

impl LieSystemSpec {
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
    /// The TOML text of the system (what [`LieSystemSpec::from_toml`] reads back, bit for bit).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// The problem of the system with its parameters overridden by `overrides` (a name it does
    /// not declare is an input error listing those it does); `origin` starts the messages.
    pub fn problem(&self, overrides: &[(String, f64)], origin: &str) -> Result<Box<dyn Problem>, WorkbenchError> {
        let fail = |msg: String| input(origin, msg);
        let on_se3 = match self.group.trim() {
            "SO(3)" => false,
            "SE(3)" => true,
            other => return Err(fail(format!("group '{other}' is not supported; the groups are {GROUPS}"))),
        };
        let r0 = match (&self.r0, &self.r0_axis_angle) {
            (Some(_), Some(_)) => return Err(fail("give R0 or R0_axis_angle, not both".into())),
            (Some(r), None) => rotation(r).map_err(fail)?,
            (None, Some(theta)) => So3.exp(&vector3("R0_axis_angle", theta).map_err(fail)?),
            (None, None) => Matrix3::identity(),
        };
        let pi0 = vector3("Pi0", &self.pi0).map_err(fail)?;
        let mut params = self.params.clone();
        for (key, value) in overrides {
            match params.get_mut(key) {
                Some(v) => *v = *value,
                None => {
                    let known: Vec<&str> = params.keys().map(String::as_str).collect();
                    return Err(fail(if known.is_empty() {
                        format!("the system has no parameters (got --param {key})")
                    } else {
                        format!("unknown parameter '{key}'; the system's parameters: {}", known.join(", "))
                    }));
                }
            }
        }
        if let Some((k, v)) = params.iter().find(|(_, v)| !v.is_finite()) {
            return Err(fail(format!("parameter {k} must be finite, got {v}")));
        }
        let (h, t_end) = (self.h.unwrap_or(0.01), self.t_end.unwrap_or(10.0));
        if !(h.is_finite() && h > 0.0 && t_end.is_finite() && t_end > 0.0) {
            return Err(fail(format!("h and t_end must be finite and positive, got {h} and {t_end}")));
        }
        let text = self.potential.as_deref().map(str::trim).filter(|v| !v.is_empty());
        let values: Vec<(&str, f64)> = params.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let group = if on_se3 { "SE(3)" } else { "SO(3)" };
        let what = |body: &str| {
            let inertia = match (on_se3, self.inertia.len()) {
                (false, 3) | (true, 6) => {
                    let v: Vec<String> = self.inertia.iter().map(|x| x.to_string()).collect();
                    format!("diag({})", v.join(", "))
                }
                _ => "given".into(),
            };
            let metric = if on_se3 { "M" } else { "I" };
            intern(&match &self.name {
                Some(name) => format!("{name}: {body} on {group}, {metric} = {inertia} ({origin})"),
                None => format!("{body} on {group}, {metric} = {inertia} ({origin})"),
            })
        };
        let defaults = (h, t_end);
        if on_se3 {
            let metric = metric_tensor(&self.inertia).map_err(fail)?;
            let x0 = match &self.x0 {
                Some(x) => vector3("x0", x).map_err(fail)?,
                None => Vector3::zeros(),
            };
            let p0 = match &self.p0 {
                Some(p) => vector3("P0", p).map_err(fail)?,
                None => Vector3::zeros(),
            };
            let mut g0 = Matrix4::identity();
            g0.fixed_view_mut::<3, 3>(0, 0).copy_from(&r0);
            g0.fixed_view_mut::<3, 1>(0, 3).copy_from(&x0);
            let potential = RigidMotionPotential::parse(text.unwrap_or("0"), &values)
                .map_err(|e| fail(format!("V: {e} (V(R, x) is a function of r11 … r33 and x1, x2, x3)")))?;
            let (v0, f0) = (potential.value_at(&g0), potential.force(&g0));
            if !(v0.is_finite() && f0.iter().all(|x| x.is_finite())) {
                return Err(fail(format!("V or its gradient is not finite at (R0, x0) (V = {v0})")));
            }
            let lagrangian = KineticPotential::new(metric, potential).map_err(|e| fail(format!("inertia: {e}")))?;
            let summary = what(&text.map_or("free rigid body".into(), |t| format!("V = {t}")));
            let s0 = LieState::new(g0, se3::join(&pi0, &p0));
            return Ok(Box::new(Motion { lagrangian, s0, summary, defaults, free: text.is_none() }));
        }
        if self.x0.is_some() || self.p0.is_some() {
            return Err(fail("x0 and P0 apply to group = \"SE(3)\" only".into()));
        }
        let inertia = inertia_tensor(&self.inertia).map_err(fail)?;
        let state: Vec<f64> = coordinates(&LieState::new(r0, pi0));
        let Some(text) = text else {
            let body = lie::RigidBody::custom(&inertia, &state).map_err(|e| fail(e.to_string()))?;
            return Ok(Box::new(FreeBody { body, inertia, summary: what("free rigid body"), defaults }));
        };
        let v = FormulaFunction::<9>::parse(text, &ENTRIES, &values)
            .map_err(|e| fail(format!("V: {e} (V(R) is a function of the entries r11 … r33 of R)")))?;
        let potential = FormulaPotential { v };
        let (v0, tau0) = (potential.value_at(&r0), potential.torque(&r0));
        if !(v0.is_finite() && tau0.iter().all(|x| x.is_finite())) {
            return Err(fail(format!("V or its gradient is not finite at R0 (V = {v0})")));
        }
        let vertical = potential.depends_on_third_row_only();
        let lagrange = lagrange_top(&inertia, &potential);
        let lagrangian = KineticPotential::new(inertia, potential).map_err(|e| fail(format!("inertia: {e}")))?;
        let body = Body { lagrangian, s0: LieState::new(r0, pi0), summary: what(&format!("V = {text}")), defaults };
        Ok(Box::new(Potent { body, vertical, lagrange }))
    }
}

/// The 6 × 6 metric of an SE(3) body from its 6 diagonal entries or 36 entries row by row
/// (symmetric positive definite, checked by the model).
fn metric_tensor(v: &[f64]) -> Result<Matrix6<f64>, String> {
    match v.len() {
        6 if v.iter().all(|x| x.is_finite() && *x > 0.0) => Ok(Matrix6::from_diagonal(&Vector6::from_column_slice(v))),
        6 => Err(format!("inertia: the diagonal of the metric must be finite and positive, got {v:?}")),
        36 => Ok(Matrix6::from_row_slice(v)),
        n => Err(format!(
            "inertia of an SE(3) body must be the 6 diagonal entries or the 6 × 6 metric (36 entries) of \
             ℓ = ½ ξᵀMξ, ξ = (Ω, v), got {n} values"
        )),
    }
}

/// The inertia tensor of 3 finite positive moments or 9 entries row by row (symmetric positive
/// definite, checked by the model).
fn inertia_tensor(v: &[f64]) -> Result<Matrix3<f64>, String> {
    match v.len() {
        3 if v.iter().all(|x| x.is_finite() && *x > 0.0) => Ok(Matrix3::from_diagonal(&Vector3::from_column_slice(v))),
        3 => Err(format!("inertia: the principal moments must be finite and positive, got {v:?}")),
        9 => {
            let i = Matrix3::from_row_slice(v);
            integrators::models::FreeRigidBody::new(i).map_err(|e| format!("inertia: {e}"))?;
            Ok(i)
        }
        n => Err(format!("inertia must be 3 principal moments or a 3 × 3 matrix (9 entries), got {n} values")),
    }
}

fn vector3(what: &str, v: &[f64]) -> Result<Vector3<f64>, String> {
    if v.len() != 3 {
        return Err(format!("{what} must have 3 components, got {}", v.len()));
    }
    if !v.iter().all(|x| x.is_finite()) {
        return Err(format!("{what} must be finite, got {v:?}"));
    }
    Ok(Vector3::from_column_slice(v))
}

/// `R0` from 9 entries row by row: finite, and a rotation to [`STATE_TOLERANCE`].
fn rotation(v: &[f64]) -> Result<Matrix3<f64>, String> {
    if v.len() != 9 {
        return Err(format!("R0 must be a 3 × 3 rotation matrix (9 entries), got {} values", v.len()));
    }
    if !v.iter().all(|x| x.is_finite()) {
        return Err(format!("R0 must be finite, got {v:?}"));
    }
    let r = Matrix3::from_row_slice(v);
    let defect = So3.defect(&r);
    if !within_tolerance(defect) {
        return Err(format!(
            "R0 is not a rotation: its distance from SO(3) (|RᵀR − I| + |det R − 1|) is {defect:.3e}, above \
             {STATE_TOLERANCE:e}; give its entries to full precision, or R0_axis_angle = [θ1, θ2, θ3] for R0 = exp(θ̂)"
        ));
    }
    Ok(r)
}

// ---------------------------------------------------------------------------------------------

/// A potential `V(R)` on SO(3) written as a formula in the entries `r11 … r33` of `R`
/// ([`ENTRIES`]), evaluated at every scalar (so that automatic differentiation through the
/// group applies), with its left-trivialized gradient from the formula's derivative `∂V/∂R`:
///
/// ```text
///   <dV(R), η> = d/dε V(R exp(εη̂))|₀ = tr((∂V/∂R)ᵀ R η̂) = η · vee(A − Aᵀ),   A = Rᵀ ∂V/∂R,
/// ```
///
/// (`vee(M) = (M32, M13, M21)` of a skew matrix, `η̂ ξ = η × ξ`), so the body torque is
/// `τ = −dV = vee(Aᵀ − A)`. At `f64`, `∂V/∂R` is the formula's compiled symbolic gradient; at
/// the dual numbers of the Hamilton–Pontryagin Newton Jacobian it is automatic differentiation
/// of the formula in the nine entries. For the heavy top `V = mgl e3·(Rχ)`, `∂V/∂R = mgl e3 χᵀ`
/// and `τ = mgl Γ × χ`, `Γ = Rᵀe3` (`integrators::models::HeavyTop::torque`).
#[derive(Debug, Clone, PartialEq)]
pub struct FormulaPotential {
    v: FormulaFunction<9>,
}

/// `vee(A − Aᵀ)`, `A = Rᵀ G`: the left-trivialized gradient `dV` for `G = ∂V/∂R`.
fn left_gradient<S: Scalar>(r: &Matrix3<S>, g: &Matrix3<S>) -> Vector3<S> {
    let a = r.transpose() * g;
    Vector3::new(a[(2, 1)] - a[(1, 2)], a[(0, 2)] - a[(2, 0)], a[(1, 0)] - a[(0, 1)])
}

impl FormulaPotential {
    /// `V(R)` written as `text` in the entries [`ENTRIES`] with the parameters `params`; the
    /// errors of [`FormulaFunction::parse`].
    pub fn parse(text: &str, params: &[(&str, f64)]) -> Result<Self, geom_core::formula::FormulaError> {
        Ok(Self { v: FormulaFunction::parse(text, &ENTRIES, params)? })
    }
    /// `V(R)` at `f64` (the compiled program).
    pub fn value_at(&self, r: &Matrix3<f64>) -> f64 {
        self.v.value(&entries_of(r))
    }
    /// The body torque `τ = −dV = vee(Aᵀ − A)`, `A = Rᵀ ∂V/∂R` (type documentation).
    pub fn torque(&self, r: &Matrix3<f64>) -> Vector3<f64> {
        let g = self.v.gradient(&entries_of(r));
        -left_gradient(r, &Matrix3::from_row_slice(g.as_slice()))
    }
    /// Whether `V` depends on the third row `r31, r32, r33` of `R` only, i.e. is invariant
    /// under rotations about the vertical, `R ↦ e^{sê3} R`: then `e3·(RΠ)` is conserved.
    pub fn depends_on_third_row_only(&self) -> bool {
        !(0..6).any(|k| self.v.formula().uses(k))
    }
    /// `Some(c)` when `V(R) = V₀ + c r₃₃` with `c ≠ 0`, a weight along the vertical of a body
    /// whose centre of mass is on its third axis: `V` uses `r₃₃` alone and its derivative is the
    /// same constant `c` at three generic points (a formula that is not affine in `r₃₃` has
    /// different slopes there), to `1e-14 |c|`.
    pub fn vertical_weight(&self) -> Option<f64> {
        if (0..9).any(|k| k != 8 && self.v.formula().uses(k)) {
            return None;
        }
        let slope = |r33: f64| self.v.gradient(&SVector::from_fn(|k, _| if k == 8 { r33 } else { 0.0 }))[8];
        let c = slope(0.3);
        let affine = [-0.7, 0.9].iter().all(|&x| (slope(x) - c).abs() <= 1e-14 * c.abs());
        (affine && c != 0.0 && c.is_finite()).then_some(c)
    }
}

/// The Lagrange top a body is, if it is one: `I = diag(I₁, I₁, I₃)` and `V(R) = V₀ + c r₃₃`
/// with `c ≠ 0` (a potential linear in `e3·Rχ` with the centre of mass on the symmetry axis),
/// i.e. the heavy top of `mgl = |c|`, `χ = sign(c) e3`, which Bobenko–Suris's discrete
/// Lagrange top integrates ([`methods::LAGRANGE_TOP`]). The inertia is checked by
/// `BobenkoSuris::new` itself.
fn lagrange_top(inertia: &Matrix3<f64>, potential: &FormulaPotential) -> Option<HeavyTop> {
    let c = potential.vertical_weight()?;
    let top = HeavyTop::new(*inertia, c.abs(), Vector3::new(0.0, 0.0, c.signum())).ok()?;
    BobenkoSuris::new(&top).is_ok().then_some(top)
}

/// The nine entries of `R`, row by row.
fn entries_of(r: &Matrix3<f64>) -> SVector<f64, 9> {
    SVector::from_fn(|k, _| r[(k / 3, k % 3)])
}

impl<S: Scalar> Potential<S, So3, 3> for FormulaPotential {
    #[inline]
    fn value(&self, _: &So3, r: &Matrix3<S>) -> S {
        self.v.formula().eval_with(&|k: usize| r[(k / 3, k % 3)])
    }
}

impl PotentialGradient<f64, So3, 3> for FormulaPotential {
    /// `dV = vee(A − Aᵀ)` from the compiled `∂V/∂R`.
    #[inline]
    fn left_gradient(&self, _: &So3, r: &Matrix3<f64>) -> GeomResult<Vector3<f64>> {
        let g = self.v.gradient(&entries_of(r));
        Ok(left_gradient(r, &Matrix3::from_row_slice(g.as_slice())))
    }
}

impl PotentialGradient<DualSVec64<3>, So3, 3> for FormulaPotential {
    /// `dV = vee(A − Aᵀ)` with `∂V/∂R` by forward AD of the formula in the nine entries.
    fn left_gradient(&self, _: &So3, r: &Matrix3<DualSVec64<3>>) -> GeomResult<Vector3<DualSVec64<3>>> {
        let v = self.v.formula().eval_with(&|k: usize| AdScalar::<9>::up_seeded(r[(k / 3, k % 3)], k));
        let g: SVector<DualSVec64<3>, 9> = <DualSVec64<3> as AdScalar<9>>::gradient(&v);
        Ok(left_gradient(r, &Matrix3::from_row_slice(g.as_slice())))
    }
}

/// The body's Lagrangian `ℓ = ½ ΩᵀIΩ − V(R)` (`integrators::hp::KineticPotential`: separable,
/// momentum `IΩ`, force `−dV`), as a left-trivialized vector field for the embedded baselines:
/// `Ω = I⁻¹Π`, `Π̇ = ad*_Ω Π + τ(R)`.
impl LieField<So3, 3> for KineticPotential<FormulaPotential, 3> {
    fn field(&self, group: &So3, r: &Matrix3<f64>, mu: &SVector<f64, 3>) -> (SVector<f64, 3>, SVector<f64, 3>) {
        let xi = self.inertia_inverse() * mu;
        (xi, group.ad_star(&xi, mu) + self.potential.torque(r))
    }
}

/// The body's Hamiltonian `H(R, Π) = ½ Π·I⁻¹Π + V(R)` at every scalar: what the cotangent lifts
/// of the discretization layer integrate (with `discretization::LieAutoDiff`).
#[derive(Debug, Clone, PartialEq)]
pub struct BodyHamiltonian {
    inertia_inv: Matrix3<f64>,
    potential: FormulaPotential,
}

impl<S: Scalar> LieFunction<S, So3, 3> for BodyHamiltonian {
    fn eval(&self, group: &So3, r: &Matrix3<S>, mu: &SVector<S, 3>) -> S {
        mu.dot(&(self.inertia_inv.map(S::from) * mu)) * S::from(0.5) + self.potential.value(group, r)
    }
}

/// `h(Π, Γ) = H(R, Π)` for any `R` whose third row is `Γ`, of a body whose potential depends on
/// the third row of `R` only (the other rows are set to zero): the reduced Hamiltonian that the
/// methods of [`methods::SO3_VERTICAL`] take.
#[derive(Debug, Clone)]
struct VerticalHamiltonian(BodyHamiltonian);

impl discretization::AdvectedFunction<3, 3> for VerticalHamiltonian {
    fn eval<S: Scalar>(&self, mu: &SVector<S, 3>, gamma: &SVector<S, 3>) -> S {
        let mut r = Matrix3::<S>::zeros();
        r.set_row(2, &gamma.transpose());
        self.0.eval(&So3, &r, mu)
    }
}

/// The body as an ODE on `SO(3) × R^3` for RKMK4, CG4a and CF4: `f(R, Π) = (Ω, Π × Ω + τ(R))`.
#[derive(Debug, Clone)]
struct EulerField(KineticPotential<FormulaPotential, 3>);

impl LieVectorField<So3xR3, 6> for EulerField {
    fn eval(&self, _: &So3xR3, _t: f64, g: &(Matrix3<f64>, Vector3<f64>)) -> GeomResult<Vector6<f64>> {
        let (r, pi) = (&g.0, &g.1);
        let omega = self.0.inertia_inverse() * pi;
        Ok(se3::join(&omega, &(pi.cross(&omega) + self.0.potential.torque(r))))
    }
}

// ---------------------------------------------------------------------------------------------

/// A body with a potential: the model, its initial state and defaults.
#[derive(Debug, Clone)]
struct Body {
    lagrangian: KineticPotential<FormulaPotential, 3>,
    s0: MatrixState<3, 3>,
    summary: &'static str,
    defaults: (f64, f64),
}

/// The energy, the vertical momentum (when `V` is symmetric about the vertical) and the group
/// defect along a run.
#[derive(Debug, Clone)]
struct Monitor {
    hamiltonian: BodyHamiltonian,
    vertical: bool,
}

impl Observe<MatrixState<3, 3>> for Monitor {
    fn coordinates(&self, s: &MatrixState<3, 3>) -> Vec<f64> {
        coordinates(s)
    }
    fn quantities(&self, s: &MatrixState<3, 3>) -> Vec<f64> {
        let energy = 0.5 * s.mu.dot(&(self.hamiltonian.inertia_inv * s.mu)) + self.hamiltonian.potential.value_at(&s.g);
        let mut v = vec![energy];
        if self.vertical {
            v.push((s.g * s.mu)[2]);
        }
        v.push(So3.defect(&s.g));
        v
    }
}

/// The problem of a body with a potential.
struct Potent {
    body: Body,
    vertical: bool,
    /// The Lagrange top the body is, if it is one ([`lagrange_top`]).
    lagrange: Option<HeavyTop>,
}

impl Potent {
    fn hamiltonian(&self) -> BodyHamiltonian {
        let l = &self.body.lagrangian;
        BodyHamiltonian { inertia_inv: *l.inertia_inverse(), potential: l.potential.clone() }
    }
    fn monitor(&self) -> Monitor {
        Monitor { hamiltonian: self.hamiltonian(), vertical: self.vertical }
    }
    /// The method `method` on this body.
    fn method(
        &self,
        method: &MethodInfo,
    ) -> Result<Box<dyn discretization::OneStep<MatrixState<3, 3>>>, WorkbenchError> {
        let l = self.body.lagrangian.clone();
        Ok(match method.name {
            "rkmk4" => Box::new(Rkmk4So3::new(EulerField(l))?),
            "cg4a" => Box::new(GroupOde::of(crouch_grossman::cg4a(So3xR3::default(), EulerField(l))?)),
            "cf4" => Box::new(GroupOde::of(commutator_free::cf4(So3xR3::default(), EulerField(l))?)),
            "lgvi" => Box::new(integrators::lgvi::Lgvi::new(l).map_err(WorkbenchError::Geom)?),
            name if self.vertical && methods::SO3_VERTICAL.contains(&name) => {
                methods::so3_vertical(method, VerticalHamiltonian(self.hamiltonian()))?
            }
            name if methods::LAGRANGE_TOP.contains(&name) => match &self.lagrange {
                Some(top) => methods::lagrange_top(method, top)?,
                None => methods::lie_group(method, So3, l, self.hamiltonian())?,
            },
            "lie-poisson-engo-faltinsen" if self.vertical => {
                Box::new(VerticalCoadjointEnergy::new(Chart::Cayley, VerticalHamiltonian(self.hamiltonian())))
            }
            _ => methods::lie_group(method, So3, l, self.hamiltonian())?,
        })
    }
}

lie_phase_space!(Potent, So3, 3, 3, "R is not a rotation", |this, s| this.monitor().quantities(&s)[0]);

impl Problem for Potent {
    fn name(&self) -> &'static str {
        system::NAME
    }
    fn summary(&self) -> &'static str {
        self.body.summary
    }
    fn family(&self) -> Family {
        Family::LieGroup
    }
    /// Every Lie-group method but the Lie–Poisson ones (`H` depends on `R`, so it does not
    /// reduce to `so(3)*`), and, only when `V` depends on `Γ = Rᵀe3` alone, those of
    /// [`methods::SO3_VERTICAL`] and Engø–Faltinsen's scheme on `se(3)* ∋ (Π, Γ)` (as for the
    /// catalogue's heavy top), and, only for a Lagrange top ([`lagrange_top`]), those of
    /// [`methods::LAGRANGE_TOP`] (as for the catalogue's `lagrange-top`).
    fn methods(&self) -> Vec<&'static str> {
        methods::for_family(Family::LieGroup)
            .iter()
            .map(|m| m.name)
            .filter(|n| !n.starts_with("lie-poisson") || (self.vertical && *n == "lie-poisson-engo-faltinsen"))
            .filter(|n| self.vertical || !methods::SO3_VERTICAL.contains(n))
            .filter(|n| self.lagrange.is_some() || !methods::LAGRANGE_TOP.contains(n))
            .collect()
    }
    fn defaults(&self) -> (f64, f64) {
        self.body.defaults
    }
    fn state_labels(&self) -> Vec<String> {
        labels(3, 3, "R", "Pi")
    }
    fn quantities(&self) -> Vec<Quantity> {
        let mut q = vec![Quantity::new("energy", Kind::Energy, 1, "E = ½ Π·I⁻¹Π + V(R)")];
        if self.vertical {
            q.push(Quantity::new(
                "vertical_momentum",
                Kind::Momentum,
                1,
                "e3·RΠ (V depends on the third row of R only: rotations about the vertical)",
            ));
        }
        q.push(group_defect());
        q
    }
    fn reference(&self) -> (&'static str, usize) {
        ("rk4-embedded", 8)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        start(self.method(method)?, self.body.s0, h, self.monitor())
    }
    fn phase_space(&self) -> Option<&dyn PhaseSpace> {
        Some(self)
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        Ok(coordinates(&self.body.s0))
    }
    /// `R` row-major (a rotation), then `Π`.
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        let s0 = lie_state(self, &So3, "R is not a rotation", state)?;
        Ok(Box::new(Self { body: Body { s0, ..self.body.clone() }, vertical: self.vertical, lagrange: self.lagrange }))
    }
    /// `(R exp(ε ξ), Π + ε ν)`.
    fn perturb(&self, state: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
        perturb_on::<_, 3, 3>(&So3, state, eps, normal)
    }
}

/// A free body: the catalogue's rigid body ([`lie::RigidBody::custom`]) under the name `system`,
/// with the file's summary and defaults.
#[derive(Debug, Clone, Copy)]
struct FreeBody {
    body: lie::RigidBody,
    inertia: Matrix3<f64>,
    summary: &'static str,
    defaults: (f64, f64),
}

impl Problem for FreeBody {
    fn name(&self) -> &'static str {
        system::NAME
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn family(&self) -> Family {
        Family::LieGroup
    }
    fn methods(&self) -> Vec<&'static str> {
        self.body.methods()
    }
    fn defaults(&self) -> (f64, f64) {
        self.defaults
    }
    fn state_labels(&self) -> Vec<String> {
        self.body.state_labels()
    }
    fn quantities(&self) -> Vec<Quantity> {
        Problem::quantities(&self.body)
    }
    fn order_of(&self, method: &MethodInfo) -> u32 {
        self.body.order_of(method)
    }
    fn reference(&self) -> (&'static str, usize) {
        self.body.reference()
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        self.body.start_method(method, h)
    }
    fn phase_space(&self) -> Option<&dyn PhaseSpace> {
        Some(&self.body)
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        self.body.initial_state()
    }
    /// `R` row-major (a rotation), then `Π`.
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        lie_state::<_, 3, 3>(self, &So3, "R is not a rotation", state)?;
        Ok(Box::new(Self { body: lie::RigidBody::custom(&self.inertia, state)?, ..*self }))
    }
    fn perturb(&self, state: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
        self.body.perturb(state, eps, normal)
    }
}

// ---------------------------------------------------------------------------------------------

/// The names of the variables of an SE(3) potential: the entries of `R` ([`ENTRIES`]), then the
/// position `x1, x2, x3`.
pub const MOTION_ENTRIES: [&str; 12] =
    ["r11", "r12", "r13", "r21", "r22", "r23", "r31", "r32", "r33", "x1", "x2", "x3"];

/// A potential `V(R, x)` on SE(3), `g = (R, x)`, written as a formula in [`MOTION_ENTRIES`], with
/// its left-trivialized gradient: for `η = (ω, v)`, `g exp(εη̂) = (R exp(εω̂), x + εRv) + O(ε²)`,
/// so
///
/// ```text
///   <dV(g), η> = ω · vee(A − Aᵀ) + v · (Rᵀ ∂V/∂x),   A = Rᵀ ∂V/∂R,
/// ```
///
/// and the body force is `−dV` (torque, then force). `∂V/∂R` and `∂V/∂x` are the formula's
/// compiled gradient at `f64`, automatic differentiation in the twelve entries at the dual numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct RigidMotionPotential {
    v: FormulaFunction<12>,
}

/// `(vee(A − Aᵀ), Rᵀ ∂V/∂x)` from the gradient `grad` of `V` in [`MOTION_ENTRIES`].
fn motion_gradient<S: Scalar>(g: &Matrix4<S>, grad: &SVector<S, 12>) -> Vector6<S> {
    let r: Matrix3<S> = g.fixed_view::<3, 3>(0, 0).into_owned();
    let dr = Matrix3::from_fn(|i, j| grad[3 * i + j]);
    let dx = Vector3::new(grad[9], grad[10], grad[11]);
    se3::join(&left_gradient(&r, &dr), &(r.transpose() * dx))
}

/// The twelve variables of `g = (R, x)`: `R` row by row, then `x`.
fn motion_entries<S: Scalar>(g: &Matrix4<S>, k: usize) -> S {
    if k < 9 { g[(k / 3, k % 3)] } else { g[(k - 9, 3)] }
}

impl RigidMotionPotential {
    /// `V(R, x)` written as `text` in [`MOTION_ENTRIES`] with the parameters `params`.
    pub fn parse(text: &str, params: &[(&str, f64)]) -> Result<Self, geom_core::formula::FormulaError> {
        Ok(Self { v: FormulaFunction::parse(text, &MOTION_ENTRIES, params)? })
    }
    /// `V(g)` at `f64`.
    pub fn value_at(&self, g: &Matrix4<f64>) -> f64 {
        self.v.value(&SVector::from_fn(|k, _| motion_entries(g, k)))
    }
    /// The body force `−dV ∈ se(3)*` (type documentation).
    pub fn force(&self, g: &Matrix4<f64>) -> Vector6<f64> {
        -motion_gradient(g, &self.v.gradient(&SVector::from_fn(|k, _| motion_entries(g, k))))
    }
}

impl<S: Scalar> Potential<S, Se3, 6> for RigidMotionPotential {
    #[inline]
    fn value(&self, _: &Se3, g: &Matrix4<S>) -> S {
        self.v.formula().eval_with(&|k: usize| motion_entries(g, k))
    }
}

impl PotentialGradient<f64, Se3, 6> for RigidMotionPotential {
    #[inline]
    fn left_gradient(&self, _: &Se3, g: &Matrix4<f64>) -> GeomResult<Vector6<f64>> {
        Ok(motion_gradient(g, &self.v.gradient(&SVector::from_fn(|k, _| motion_entries(g, k)))))
    }
}

impl PotentialGradient<DualSVec64<6>, Se3, 6> for RigidMotionPotential {
    fn left_gradient(&self, _: &Se3, g: &Matrix4<DualSVec64<6>>) -> GeomResult<Vector6<DualSVec64<6>>> {
        let v = self.v.formula().eval_with(&|k: usize| AdScalar::<12>::up_seeded(motion_entries(g, k), k));
        let grad: SVector<DualSVec64<6>, 12> = <DualSVec64<6> as AdScalar<12>>::gradient(&v);
        Ok(motion_gradient(g, &grad))
    }
}

/// The SE(3) body as a left-trivialized vector field: `ξ = M⁻¹μ`, `μ̇ = ad*_ξ μ − dV`.
impl LieField<Se3, 6> for KineticPotential<RigidMotionPotential, 6> {
    fn field(&self, group: &Se3, g: &Matrix4<f64>, mu: &SVector<f64, 6>) -> (SVector<f64, 6>, SVector<f64, 6>) {
        let xi = self.inertia_inverse() * mu;
        (xi, group.ad_star(&xi, mu) + self.potential.force(g))
    }
}

/// `H(g, μ) = ½ μ·M⁻¹μ + V(g)` of an SE(3) body at every scalar (the cotangent lifts'), and its
/// reduction `h(μ) = ½ μ·M⁻¹μ` on `se(3)*` for a free body (the Lie–Poisson methods').
#[derive(Debug, Clone, PartialEq)]
pub struct MotionHamiltonian {
    metric_inv: Matrix6<f64>,
    potential: RigidMotionPotential,
}

impl<S: Scalar> LieFunction<S, Se3, 6> for MotionHamiltonian {
    fn eval(&self, group: &Se3, g: &Matrix4<S>, mu: &SVector<S, 6>) -> S {
        mu.dot(&(self.metric_inv.map(S::from) * mu)) * S::from(0.5) + self.potential.value(group, g)
    }
}

impl geom_core::function::ScalarFunction<6> for MotionHamiltonian {
    fn eval<S: Scalar>(&self, mu: &SVector<S, 6>) -> S {
        mu.dot(&(self.metric_inv.map(S::from) * mu)) * S::from(0.5)
    }
}

/// A body on SE(3): `ℓ = ½ ξᵀMξ − V(R, x)`, its initial state and defaults.
#[derive(Debug, Clone)]
struct Motion {
    lagrangian: KineticPotential<RigidMotionPotential, 6>,
    s0: MatrixState<4, 6>,
    summary: &'static str,
    defaults: (f64, f64),
    free: bool,
}

impl Motion {
    fn hamiltonian(&self) -> MotionHamiltonian {
        let l = &self.lagrangian;
        MotionHamiltonian { metric_inv: *l.inertia_inverse(), potential: l.potential.clone() }
    }
}

impl Motion {
    /// The method `method` on this motion.
    fn method(
        &self,
        method: &MethodInfo,
    ) -> Result<Box<dyn discretization::OneStep<MatrixState<4, 6>>>, WorkbenchError> {
        if method.name.starts_with("lie-poisson") {
            methods::lie_poisson(method, Se3, self.hamiltonian())
        } else {
            methods::lie_group(method, Se3, self.lagrangian.clone(), self.hamiltonian())
        }
    }
}

lie_phase_space!(Motion, Se3, 4, 6, "g is not in SE(3)");

impl Observe<MatrixState<4, 6>> for Motion {
    fn coordinates(&self, s: &MatrixState<4, 6>) -> Vec<f64> {
        coordinates(s)
    }
    fn quantities(&self, s: &MatrixState<4, 6>) -> Vec<f64> {
        let h = self.hamiltonian();
        let energy = 0.5 * s.mu.dot(&(h.metric_inv * s.mu)) + h.potential.value_at(&s.g);
        let mut v = vec![energy];
        if self.free {
            let (pi, p) = se3::split(&s.mu);
            v.extend([p.norm_squared(), pi.dot(&p)]);
            v.extend(s.spatial_momentum(&Se3).iter());
        }
        v.push(Se3.defect(&s.g));
        v
    }
}

impl Problem for Motion {
    fn name(&self) -> &'static str {
        system::NAME
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn family(&self) -> Family {
        Family::LieGroup
    }
    /// The Lie-group methods on any group (not the SO(3) ones: RKMK4, CG4a, CF4, LGVI); the
    /// Lie–Poisson ones for a free body only.
    fn methods(&self) -> Vec<&'static str> {
        methods::for_family(Family::LieGroup)
            .iter()
            .map(|m| m.name)
            .filter(|n| !["rkmk4", "cg4a", "cf4", "lgvi"].contains(n) && !methods::SO3_VERTICAL.contains(n))
            .filter(|n| self.free || !n.starts_with("lie-poisson"))
            .filter(|n| !methods::LAGRANGE_TOP.contains(n))
            .collect()
    }
    fn defaults(&self) -> (f64, f64) {
        self.defaults
    }
    fn state_labels(&self) -> Vec<String> {
        labels(4, 6, "g", "mu")
    }
    fn quantities(&self) -> Vec<Quantity> {
        let mut q = vec![Quantity::new("energy", Kind::Energy, 1, "E = ½ μ·M⁻¹μ + V(R, x)")];
        if self.free {
            q.extend([
                Quantity::new("casimir_p2", Kind::Casimir, 1, "|P|²"),
                Quantity::new("casimir_pi_p", Kind::Casimir, 1, "Π·P"),
                Quantity::new("spatial_momentum", Kind::Momentum, 6, "Ad*_{g⁻¹} μ (momentum map of left translations)"),
            ]);
        }
        q.push(Quantity::new("group_defect", Kind::Constraint, 1, "distance of g from SE(3)"));
        q
    }
    fn reference(&self) -> (&'static str, usize) {
        ("rk4-embedded", 8)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        start(self.method(method)?, self.s0, h, self.clone())
    }
    fn phase_space(&self) -> Option<&dyn PhaseSpace> {
        Some(self)
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        Ok(coordinates(&self.s0))
    }
    /// `g ∈ SE(3)` row-major, then `μ = (Π, P)`.
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        Ok(Box::new(Self { s0: lie_state(self, &Se3, "g is not in SE(3)", state)?, ..self.clone() }))
    }
    /// `(g exp(ε ξ), μ + ε ν)`, `ξ ∈ se(3)`.
    fn perturb(&self, state: &[f64], eps: f64, normal: &mut dyn FnMut() -> f64) -> Vec<f64> {
        perturb_on::<_, 4, 6>(&Se3, state, eps, normal)
    }
}
