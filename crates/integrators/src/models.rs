//! Mechanical systems on Lie groups for the Hamilton–Pontryagin and RKMK integrators
//! (docs/math.md §D.1, D.6; Bou-Rabee & Marsden, *Hamilton–Pontryagin integrators on Lie groups,
//! Part I*, 2009, arXiv:0801.0996, §6): the free rigid body and the heavy top on SO(3),
//! Kirchhoff's underwater vehicle on SE(3), and the vehicle with gravity and buoyancy
//! ([`BuoyantVehicle`], Leonard 1997).
//!
//! Each model is a left-trivialized Lagrangian ([`LieFunction`], [`LeftLagrangian`], with
//! closed-form momentum and force, checked against [`crate::hp::AutoDiff`] in the tests), and
//! carries its first integrals in one vocabulary, each a function of the state
//! [`LieState`] `(g, μ)`: `energy(&state) -> f64`, `casimirs(&state) -> [f64; K]` (the Casimirs
//! of the Lie–Poisson structure; none for the buoyant vehicle) and `momenta(&state) -> [f64; M]`
//! (the conserved components of the momentum map `state.spatial_momentum(&group)` of its
//! symmetries). The rigid body and the heavy top are also vector fields for
//! [`crate::rkmk`] on the product group `SO(3) × R^3` ([`So3xR3`]), the non-variational
//! baseline: the state `(R, Π)` moves by `ġ = g f(g)` with
//! `f(R, Π) = (Ω, Π × Ω + τ(R))`, `Ω = I^{-1} Π` — the reconstruction `Ṙ = RΩ` on SO(3) and
//! the Euler equation `Π̇ = Π × Ω + τ` in the additive factor, whose "left translation" is the
//! identity.

use crate::hp::{LeftLagrangian, LieState, check_inertia};
use crate::rkmk::LieVectorField;
use discretization::LieFunction;
use geom_core::lie::{Se3, So3, So3xR3, se3, so3};
use geom_core::{GeomError, Result, Scalar};
use nalgebra::{Matrix3, Matrix4, Matrix6, SMatrix, SVector, Vector3, Vector6};

/// The free rigid body on SO(3): `ℓ(ξ) = ½ ξᵀ I ξ`, `Π = IΩ`, Euler's equation
/// `Π̇ = Π × Ω` (docs/math.md §D.1). Left-invariant: the spatial angular momentum `RΠ` and the
/// Casimir `|Π|²` are conserved, as is the energy `½ Π·I^{-1}Π`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FreeRigidBody {
    inertia: Matrix3<f64>,
    inertia_inv: Matrix3<f64>,
    /// `I^{-1}` is diagonal (principal axes): `I^{-1}Π` is then three products.
    principal: bool,
}

/// Whether the off-diagonal entries of `m` are zero.
fn is_diagonal(m: &Matrix3<f64>) -> bool {
    (0..3).all(|i| (0..3).all(|j| i == j || m[(i, j)] == 0.0))
}

/// `I^{-1} Π`, by the diagonal alone for a body in principal axes (`principal`): the same
/// value (the off-diagonal terms are exact zeros) in three products instead of nine.
#[inline(always)]
fn inverse_inertia_times(inertia_inv: &Matrix3<f64>, principal: bool, pi: &Vector3<f64>) -> Vector3<f64> {
    if principal {
        Vector3::new(inertia_inv[(0, 0)] * pi[0], inertia_inv[(1, 1)] * pi[1], inertia_inv[(2, 2)] * pi[2])
    } else {
        inertia_inv * pi
    }
}

/// The Hamiltonian `H(g, μ)` of a model on `T*G ≅ G × g*` (left trivialization), the Legendre
/// transform of its `ℓ(g, ξ)`, as a [`LieFunction`] written once over the scalar: what the
/// discretization layer's Lie-group cotangent lift (`discretization::LieCotangentLiftIntegrator`,
/// with `discretization::LieAutoDiff`) integrates. At `f64` it equals the model's `energy`:
///
/// ```text
///   free rigid body      H = ½ μ·I^{-1}μ
///   heavy top            H = ½ μ·I^{-1}μ + mgl e3·(Rχ)
///   underwater vehicle   H = ½ μ·M^{-1}μ          (M the 6 × 6 metric with added masses)
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hamiltonian<M>(pub M);

/// `½ μᵀ A μ = ½ Σ_i μ_i (Σ_j A_ij μ_j)` at the scalar `S` for a constant symmetric `A`, with `A`
/// kept at f64: each `A_ij μ_j` scales `μ_j` by a number (no product of two scalars `S` under
/// AD), and the zero entries of `A` (a principal-axes inertia) are skipped. At `S = f64` the sums
/// run in the order of `μ · (A μ)`.
#[inline]
pub(crate) fn half_quadratic<S: Scalar, const D: usize>(a: &SMatrix<f64, D, D>, mu: &SVector<S, D>) -> S {
    let mut acc = S::zero();
    for i in 0..D {
        let mut w = S::zero();
        for j in 0..D {
            let aij = a[(i, j)];
            if aij != 0.0 {
                w += mu[j] * aij;
            }
        }
        acc += mu[i] * w;
    }
    acc * 0.5
}

impl<S: Scalar> LieFunction<S, So3, 3> for Hamiltonian<FreeRigidBody> {
    #[inline]
    fn eval(&self, _: &So3, _: &Matrix3<S>, mu: &SVector<S, 3>) -> S {
        half_quadratic(&self.0.inertia_inv, mu)
    }
}

impl<S: Scalar> LieFunction<S, So3, 3> for Hamiltonian<HeavyTop> {
    #[inline]
    fn eval(&self, _: &So3, r: &Matrix3<S>, mu: &SVector<S, 3>) -> S {
        let height = (0..3).fold(S::from(0.0), |acc, j| acc + r[(2, j)] * S::from(self.0.chi[j]));
        half_quadratic(&self.0.inertia_inv, mu) + height * S::from(self.0.mgl)
    }
}

impl<S: Scalar> LieFunction<S, Se3, 6> for Hamiltonian<UnderwaterVehicle> {
    #[inline]
    fn eval(&self, _: &Se3, _: &Matrix4<S>, mu: &SVector<S, 6>) -> S {
        half_quadratic(&self.0.metric_inv, mu)
    }
}

/// The reduced Hamiltonian `h(μ) = H(e, μ) = ½ μ·I^{-1}μ` of the left-invariant free rigid body
/// on `so(3)*`, what the Lie–Poisson integrators (`discretization::lie_poisson`) take.
impl geom_core::function::ScalarFunction<3> for Hamiltonian<FreeRigidBody> {
    #[inline]
    fn eval<S: Scalar>(&self, mu: &SVector<S, 3>) -> S {
        half_quadratic(&self.0.inertia_inv, mu)
    }
}

/// The reduced Hamiltonian `h(μ) = H(e, μ) = ½ μ·M^{-1}μ` of the left-invariant underwater
/// vehicle on `se(3)*`, what the Lie–Poisson integrators take.
impl geom_core::function::ScalarFunction<6> for Hamiltonian<UnderwaterVehicle> {
    #[inline]
    fn eval<S: Scalar>(&self, mu: &SVector<S, 6>) -> S {
        half_quadratic(&self.0.metric_inv, mu)
    }
}

impl FreeRigidBody {
    /// The Hamiltonian `H(g, μ)` ([`Hamiltonian`]).
    pub fn hamiltonian(&self) -> Hamiltonian<FreeRigidBody> {
        Hamiltonian(*self)
    }
    /// A body with the symmetric positive definite inertia tensor `I` (body frame), else
    /// [`GeomError::InvalidParameter`] / [`GeomError::NonFinite`].
    ///
    /// ```
    /// use integrators::models::FreeRigidBody;
    /// use nalgebra::Matrix3;
    /// assert!(FreeRigidBody::new(Matrix3::from_diagonal_element(1.0)).is_ok());
    /// assert!(FreeRigidBody::new(Matrix3::from_diagonal_element(-1.0)).is_err());
    /// ```
    pub fn new(inertia: Matrix3<f64>) -> Result<Self> {
        let inertia_inv = check_inertia(&inertia, "rigid body inertia")?;
        Ok(Self { inertia, inertia_inv, principal: is_diagonal(&inertia_inv) })
    }
    /// A body with principal moments `I = diag(i1, i2, i3)`.
    pub fn principal(i1: f64, i2: f64, i3: f64) -> Result<Self> {
        Self::new(Matrix3::from_diagonal(&Vector3::new(i1, i2, i3)))
    }
    /// The inertia tensor `I`.
    pub fn inertia(&self) -> &Matrix3<f64> {
        &self.inertia
    }
    /// The body angular velocity `Ω = I^{-1} Π`.
    #[inline]
    pub fn velocity(&self, pi: &Vector3<f64>) -> Vector3<f64> {
        inverse_inertia_times(&self.inertia_inv, self.principal, pi)
    }
    /// The energy `E = ½ Π·I^{-1}Π` (`Π = μ`).
    pub fn energy(&self, state: &LieState<Matrix3<f64>, 3>) -> f64 {
        0.5 * state.mu.dot(&(self.inertia_inv * state.mu))
    }
    /// The Casimir `[|Π|²]` of the Lie–Poisson bracket on `so(3)*`.
    pub fn casimirs(&self, state: &LieState<Matrix3<f64>, 3>) -> [f64; 1] {
        [state.mu.norm_squared()]
    }
    /// The conserved momenta: the spatial angular momentum `R Π = Ad*_{R^{-1}} Π`.
    pub fn momenta(&self, state: &LieState<Matrix3<f64>, 3>) -> [f64; 3] {
        (state.g * state.mu).into()
    }
}

impl<S: Scalar> LieFunction<S, So3, 3> for FreeRigidBody {
    fn eval(&self, _: &So3, _: &Matrix3<S>, xi: &Vector3<S>) -> S {
        (self.inertia.map(S::from) * xi).dot(xi) * S::from(0.5)
    }
}

impl<S: Scalar> LeftLagrangian<S, So3, 3> for FreeRigidBody {
    const LEFT_INVARIANT: bool = true;
    #[inline]
    fn momentum(&self, _: &So3, _: &Matrix3<S>, xi: &Vector3<S>) -> Result<Vector3<S>> {
        Ok(self.inertia.map(S::from) * xi)
    }
    #[inline]
    fn force(&self, _: &So3, _: &Matrix3<S>, _: &Vector3<S>) -> Result<Vector3<S>> {
        Ok(Vector3::zeros())
    }
    #[inline]
    fn velocity_guess(&self, _: &So3, _: &Matrix3<S>, pi: &Vector3<S>) -> Option<Vector3<S>> {
        Some(self.inertia_inv.map(S::from) * pi)
    }
    #[inline]
    fn momentum_jacobian(&self, _: &So3, _: &Matrix3<S>, _: &Vector3<S>) -> Option<Matrix3<S>> {
        Some(self.inertia.map(S::from))
    }
}

/// Split `(R, Π)` of the product-group state.
fn rotation_and_momentum(g: &(Matrix3<f64>, Vector3<f64>)) -> (&Matrix3<f64>, &Vector3<f64>) {
    (&g.0, &g.1)
}

/// The rigid body as an ODE on `SO(3) × R^3` for RKMK: `f(R, Π) = (Ω, Π × Ω)`.
impl LieVectorField<So3xR3, 6> for FreeRigidBody {
    #[inline]
    fn eval(&self, _: &So3xR3, _t: f64, g: &(Matrix3<f64>, Vector3<f64>)) -> Result<Vector6<f64>> {
        let (_, pi) = rotation_and_momentum(g);
        let omega = self.velocity(pi);
        Ok(se3::join(&omega, &pi.cross(&omega)))
    }
}

/// The heavy top on SO(3) (Marsden–Ratiu convention, docs/math.md §D.1):
/// `ℓ(R, ξ) = ½ ξᵀ I ξ - mgl e3·(Rχ)`, with the force `f = mgl Γ × χ`, `Γ = Rᵀ e3`, so
/// `Π̇ = Π × Ω + mgl Γ × χ`, `Γ̇ = Γ × Ω`. `χ` is the unit vector from the fixed point to the
/// centre of mass in the body frame, `mgl` the weight times that distance. Invariant under
/// rotations about the vertical `e3` (left multiplication): the vertical spatial angular
/// momentum `e3·(RΠ) = Π·Γ` is conserved, and the energy `½ Π·I^{-1}Π + mgl Γ·χ`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeavyTop {
    inertia: Matrix3<f64>,
    inertia_inv: Matrix3<f64>,
    /// `I^{-1}` is diagonal (principal axes).
    principal: bool,
    mgl: f64,
    chi: Vector3<f64>,
}

impl HeavyTop {
    /// The Hamiltonian `H(g, μ)` ([`Hamiltonian`]).
    pub fn hamiltonian(&self) -> Hamiltonian<HeavyTop> {
        Hamiltonian(*self)
    }
    /// A top with inertia `I` (about the fixed point, body frame), weight-times-length `mgl`
    /// (finite) and body direction `χ` of the centre of mass (normalised; error if zero).
    pub fn new(inertia: Matrix3<f64>, mgl: f64, chi: Vector3<f64>) -> Result<Self> {
        let inertia_inv = check_inertia(&inertia, "heavy top inertia")?;
        if !mgl.is_finite() || !chi.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "heavy top parameters" });
        }
        let n = chi.norm();
        if n == 0.0 {
            return Err(GeomError::InvalidParameter { what: "chi", reason: "must be nonzero".into() });
        }
        Ok(Self { inertia, inertia_inv, principal: is_diagonal(&inertia_inv), mgl, chi: chi / n })
    }
    /// The inertia tensor `I`.
    pub fn inertia(&self) -> &Matrix3<f64> {
        &self.inertia
    }
    /// The body angular velocity `Ω = I^{-1} Π`.
    #[inline]
    pub fn velocity(&self, pi: &Vector3<f64>) -> Vector3<f64> {
        inverse_inertia_times(&self.inertia_inv, self.principal, pi)
    }
    /// `mgl`.
    pub fn mgl(&self) -> f64 {
        self.mgl
    }
    /// The unit body vector `χ`.
    pub fn chi(&self) -> &Vector3<f64> {
        &self.chi
    }
    /// `Γ = Rᵀ e3`, the vertical in the body frame.
    pub fn gamma(r: &Matrix3<f64>) -> Vector3<f64> {
        r.row(2).transpose()
    }
    /// The energy `E = ½ Π·I^{-1}Π + mgl e3·(Rχ)`.
    pub fn energy(&self, state: &LieState<Matrix3<f64>, 3>) -> f64 {
        0.5 * state.mu.dot(&self.velocity(&state.mu)) + self.mgl * Self::gamma(&state.g).dot(&self.chi)
    }
    /// The Casimirs `[Π·Γ, |Γ|²]` of the Lie–Poisson bracket on `se(3)*` (`Γ = Rᵀe3`; `Π·Γ` is
    /// the vertical spatial angular momentum, `|Γ|² = 1` on the group).
    pub fn casimirs(&self, state: &LieState<Matrix3<f64>, 3>) -> [f64; 2] {
        let gamma = Self::gamma(&state.g);
        [state.mu.dot(&gamma), gamma.norm_squared()]
    }
    /// The conserved momenta: `[e3·(RΠ)]`, the momentum map of rotations about `e3`.
    pub fn momenta(&self, state: &LieState<Matrix3<f64>, 3>) -> [f64; 1] {
        [(state.g * state.mu)[2]]
    }
    /// The body torque `f = mgl Γ × χ`.
    pub fn torque(&self, r: &Matrix3<f64>) -> Vector3<f64> {
        Self::gamma(r).cross(&self.chi) * self.mgl
    }
}

impl<S: Scalar> LieFunction<S, So3, 3> for HeavyTop {
    fn eval(&self, _: &So3, r: &Matrix3<S>, xi: &Vector3<S>) -> S {
        let kinetic = (self.inertia.map(S::from) * xi).dot(xi) * S::from(0.5);
        let height = (r * self.chi.map(S::from))[2];
        kinetic - height * S::from(self.mgl)
    }
}

impl<S: Scalar> LeftLagrangian<S, So3, 3> for HeavyTop {
    /// `ℓ = ½ξᵀIξ − mgl e3·(Rχ)`: kinetic minus potential.
    const SEPARABLE: bool = true;
    #[inline]
    fn momentum(&self, _: &So3, _: &Matrix3<S>, xi: &Vector3<S>) -> Result<Vector3<S>> {
        Ok(self.inertia.map(S::from) * xi)
    }
    /// `<f, η> = -mgl e3·(R η×χ) = mgl (Γ × χ)·η`.
    #[inline]
    fn force(&self, _: &So3, r: &Matrix3<S>, _: &Vector3<S>) -> Result<Vector3<S>> {
        let gamma = Vector3::new(r[(2, 0)], r[(2, 1)], r[(2, 2)]);
        Ok(gamma.cross(&self.chi.map(S::from)) * S::from(self.mgl))
    }
    #[inline]
    fn velocity_guess(&self, _: &So3, _: &Matrix3<S>, pi: &Vector3<S>) -> Option<Vector3<S>> {
        Some(self.inertia_inv.map(S::from) * pi)
    }
    #[inline]
    fn momentum_jacobian(&self, _: &So3, _: &Matrix3<S>, _: &Vector3<S>) -> Option<Matrix3<S>> {
        Some(self.inertia.map(S::from))
    }
}

/// The heavy top on `SO(3) × R^3` for RKMK: `f(R, Π) = (Ω, Π × Ω + mgl Γ × χ)`.
impl LieVectorField<So3xR3, 6> for HeavyTop {
    #[inline]
    fn eval(&self, _: &So3xR3, _t: f64, g: &(Matrix3<f64>, Vector3<f64>)) -> Result<Vector6<f64>> {
        let (r, pi) = rotation_and_momentum(g);
        let omega = self.velocity(pi);
        Ok(se3::join(&omega, &(pi.cross(&omega) + self.torque(r))))
    }
}

/// Kirchhoff's neutrally buoyant underwater vehicle on SE(3), centres of gravity and buoyancy
/// coinciding (docs/math.md §D.6; Leonard 1997): `g = (R, x)`, body velocities `ξ = (Ω, v)`,
/// `ℓ = ½ ΩᵀIΩ + ½ vᵀMv` with `I` = body plus added inertia, `M` = mass plus added mass.
/// Momenta `μ = (Π, P) = (IΩ, Mv)`; Kirchhoff's equations `Π̇ = Π×Ω + P×v`, `Ṗ = P×Ω`
/// (`μ̇ = ad*_ξ μ`). First integrals: the energy `½Π·Ω + ½P·v`, the Casimirs `|P|²` and
/// `Π·P`, the spatial momentum `Ad*_{g^{-1}} μ = (RΠ + x × RP, RP)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnderwaterVehicle {
    inertia: Matrix3<f64>,
    mass: Matrix3<f64>,
    metric: Matrix6<f64>,
    metric_inv: Matrix6<f64>,
}

/// The parameters of a solid ellipsoid in a fluid, from [`UnderwaterVehicle::ellipsoid`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EllipsoidParameters {
    /// Semi-axes `(a, b, c)` along the body axes (m).
    pub semi_axes: Vector3<f64>,
    /// Fluid (and body) density `ρ` (kg/m³).
    pub density: f64,
    /// Displaced fluid mass `m = ρ (4/3) π abc` = body mass (neutral buoyancy).
    pub mass: f64,
    /// Lamb's coefficients `(α0, β0, γ0)`, `α0 = abc ∫_0^∞ dλ / ((a²+λ) Δ(λ))` (cyclic),
    /// `Δ = √((a²+λ)(b²+λ)(c²+λ))`; `α0 + β0 + γ0 = 2`.
    pub lamb: Vector3<f64>,
    /// Added masses `m α0/(2 - α0)` (cyclic).
    pub added_mass: Vector3<f64>,
    /// Added moments of inertia `(m/5)(b²-c²)²(γ0-β0) / (2(b²-c²) + (b²+c²)(β0-γ0))` (cyclic).
    pub added_inertia: Vector3<f64>,
    /// Body inertia `(m/5)(b²+c², c²+a², a²+b²)` (uniform density).
    pub body_inertia: Vector3<f64>,
}

/// Carlson's symmetric elliptic integral `R_D(x, y, z) = (3/2) ∫_0^∞ dt / ((t+x)^{1/2}
/// (t+y)^{1/2} (t+z)^{3/2})`, `x, y >= 0` (not both 0), `z > 0`, by the duplication theorem
/// (Carlson 1995, Numer. Algorithms 10; relative error below 1e-15 at the tolerance used).
pub fn carlson_rd(x: f64, y: f64, z: f64) -> f64 {
    let (mut x, mut y, mut z) = (x, y, z);
    let (mut sum, mut fac) = (0.0, 1.0);
    let (mut dx, mut dy, mut dz, mut ave);
    let mut iterations = 0;
    loop {
        let (sx, sy, sz) = (x.sqrt(), y.sqrt(), z.sqrt());
        let lambda = sx * (sy + sz) + sy * sz;
        sum += fac / (sz * (z + lambda));
        fac *= 0.25;
        x = 0.25 * (x + lambda);
        y = 0.25 * (y + lambda);
        z = 0.25 * (z + lambda);
        ave = 0.2 * (x + y + 3.0 * z);
        dx = (ave - x) / ave;
        dy = (ave - y) / ave;
        dz = (ave - z) / ave;
        iterations += 1;
        // the neglected terms are O(max|d|^6): 1e-3^6 = 1e-18
        if dx.abs().max(dy.abs()).max(dz.abs()) < 1e-3 || iterations > 100 {
            break;
        }
    }
    let (c1, c2, c3, c4) = (3.0 / 14.0, 1.0 / 6.0, 9.0 / 22.0, 3.0 / 26.0);
    let (c5, c6) = (0.25 * c3, 1.5 * c4);
    let ea = dx * dy;
    let eb = dz * dz;
    let ec = ea - eb;
    let ed = ea - 6.0 * eb;
    let ee = ed + ec + ec;
    3.0 * sum
        + fac * (1.0 + ed * (-c1 + c5 * ed - c6 * dz * ee) + dz * (c2 * ee + dz * (-c3 * ec + dz * c4 * ea)))
            / (ave * ave.sqrt())
}

impl UnderwaterVehicle {
    /// The Hamiltonian `H(g, μ)` ([`Hamiltonian`]).
    pub fn hamiltonian(&self) -> Hamiltonian<UnderwaterVehicle> {
        Hamiltonian(*self)
    }
    /// A vehicle with body-plus-added inertia `I` and mass-plus-added-mass `M` (both symmetric
    /// positive definite, else [`GeomError::InvalidParameter`]).
    pub fn new(inertia: Matrix3<f64>, mass: Matrix3<f64>) -> Result<Self> {
        check_inertia(&inertia, "vehicle inertia")?;
        check_inertia(&mass, "vehicle mass")?;
        let mut metric = Matrix6::zeros();
        metric.fixed_view_mut::<3, 3>(0, 0).copy_from(&inertia);
        metric.fixed_view_mut::<3, 3>(3, 3).copy_from(&mass);
        let metric_inv = check_inertia(&metric, "vehicle metric")?;
        Ok(Self { inertia, mass, metric, metric_inv })
    }

    /// A neutrally buoyant solid ellipsoid of uniform density `ρ` with semi-axes `(a, b, c)`
    /// along the body axes in an ideal fluid of the same density (Lamb, *Hydrodynamics*,
    /// §§ 114, 373): `I = diag(body inertia + added inertia)`, `M = m Id + diag(added mass)`,
    /// see [`EllipsoidParameters`]. Lamb's coefficients are `α0 = (2/3) abc R_D(b², c², a²)`
    /// (cyclic) with Carlson's [`carlson_rd`]. Errors for non-positive or non-finite input.
    ///
    /// ```
    /// use integrators::models::UnderwaterVehicle;
    /// // a sphere: added mass = half the displaced mass, no added inertia
    /// let (_, p) = UnderwaterVehicle::ellipsoid(1.0, 1.0, 1.0, 1000.0)?;
    /// assert!((p.added_mass[0] - 0.5 * p.mass).abs() < 1e-9 * p.mass);
    /// assert!(p.added_inertia.norm() < 1e-9 * p.mass);
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn ellipsoid(a: f64, b: f64, c: f64, density: f64) -> Result<(Self, EllipsoidParameters)> {
        if ![a, b, c, density].iter().all(|v| v.is_finite() && *v > 0.0) {
            return Err(GeomError::InvalidParameter {
                what: "ellipsoid",
                reason: format!("semi-axes and density must be finite and positive, got {a}, {b}, {c}, {density}"),
            });
        }
        let (a2, b2, c2) = (a * a, b * b, c * c);
        let abc = a * b * c;
        let mass = density * 4.0 / 3.0 * std::f64::consts::PI * abc;
        let alpha = 2.0 / 3.0 * abc * carlson_rd(b2, c2, a2);
        let beta = 2.0 / 3.0 * abc * carlson_rd(c2, a2, b2);
        let gamma = 2.0 / 3.0 * abc * carlson_rd(a2, b2, c2);
        let added_mass = Vector3::new(alpha, beta, gamma).map(|k| mass * k / (2.0 - k));
        // (m/5)(p - q)^2 (kq - kp) / (2(p - q) + (p + q)(kp - kq)), p, q the squared other axes;
        // 0 for p = q (rotation about an axis of symmetry moves no fluid)
        let added = |p: f64, q: f64, kp: f64, kq: f64| {
            let d = p - q;
            if d.abs() <= 1e-12 * (p + q) {
                0.0
            } else {
                mass / 5.0 * d * d * (kq - kp) / (2.0 * d + (p + q) * (kp - kq))
            }
        };
        let added_inertia =
            Vector3::new(added(b2, c2, beta, gamma), added(c2, a2, gamma, alpha), added(a2, b2, alpha, beta));
        let body_inertia = Vector3::new(b2 + c2, c2 + a2, a2 + b2) * (mass / 5.0);
        let vehicle = Self::new(
            Matrix3::from_diagonal(&(body_inertia + added_inertia)),
            Matrix3::from_diagonal(&(Vector3::repeat(mass) + added_mass)),
        )?;
        let params = EllipsoidParameters {
            semi_axes: Vector3::new(a, b, c),
            density,
            mass,
            lamb: Vector3::new(alpha, beta, gamma),
            added_mass,
            added_inertia,
            body_inertia,
        };
        Ok((vehicle, params))
    }

    /// The inertia `I` (body plus added).
    pub fn inertia(&self) -> &Matrix3<f64> {
        &self.inertia
    }
    /// The mass matrix `M` (mass plus added mass).
    pub fn mass(&self) -> &Matrix3<f64> {
        &self.mass
    }
    /// The body velocity `ξ = (I^{-1}Π, M^{-1}P)` of the momentum `μ = (Π, P)`.
    pub fn velocity(&self, mu: &Vector6<f64>) -> Vector6<f64> {
        self.metric_inv * mu
    }
    /// The energy `E = ½ Π·Ω + ½ P·v` (`μ = (Π, P)`).
    pub fn energy(&self, state: &LieState<Matrix4<f64>, 6>) -> f64 {
        0.5 * state.mu.dot(&(self.metric_inv * state.mu))
    }
    /// The Casimirs `[|P|², Π·P]` of the Lie–Poisson bracket on `se(3)*`.
    pub fn casimirs(&self, state: &LieState<Matrix4<f64>, 6>) -> [f64; 2] {
        let (pi, p) = se3::split(&state.mu);
        [p.norm_squared(), pi.dot(&p)]
    }
    /// The conserved momenta: the spatial momentum `Ad*_{g^{-1}} μ = (RΠ + x × RP, RP)`.
    pub fn momenta(&self, state: &LieState<Matrix4<f64>, 6>) -> [f64; 6] {
        state.spatial_momentum(&Se3).into()
    }
}

impl<S: Scalar> LieFunction<S, Se3, 6> for UnderwaterVehicle {
    fn eval(&self, _: &Se3, _: &nalgebra::Matrix4<S>, xi: &Vector6<S>) -> S {
        (self.metric.map(S::from) * xi).dot(xi) * S::from(0.5)
    }
}

impl<S: Scalar> LeftLagrangian<S, Se3, 6> for UnderwaterVehicle {
    const LEFT_INVARIANT: bool = true;
    #[inline]
    fn momentum(&self, _: &Se3, _: &nalgebra::Matrix4<S>, xi: &Vector6<S>) -> Result<Vector6<S>> {
        // block-diagonal metric: two 3×3 products
        let (w, v) = se3::split(xi);
        Ok(se3::join(&(self.inertia.map(S::from) * w), &(self.mass.map(S::from) * v)))
    }
    #[inline]
    fn force(&self, _: &Se3, _: &nalgebra::Matrix4<S>, _: &Vector6<S>) -> Result<Vector6<S>> {
        Ok(SVector::zeros())
    }
    #[inline]
    fn velocity_guess(&self, _: &Se3, _: &nalgebra::Matrix4<S>, pi: &Vector6<S>) -> Option<Vector6<S>> {
        Some(self.metric_inv.map(S::from) * pi)
    }
    #[inline]
    fn momentum_jacobian(&self, _: &Se3, _: &nalgebra::Matrix4<S>, _: &Vector6<S>) -> Option<Matrix6<S>> {
        Some(self.metric.map(S::from))
    }
}

/// An underwater vehicle with gravity and buoyancy on SE(3) (Leonard, *Stability of a
/// bottom-heavy underwater vehicle*, Automatica 33, 1997; Leonard & Marsden, *Stability and
/// drift of underwater vehicle dynamics: mechanical systems with rigid motion symmetry*,
/// Physica D 105, 1997; docs/math.md §D.6.1).
///
/// **Conventions.** `g = (R, b)`: `R` rotates body to space, `b` is the spatial position of the
/// body-frame origin, the **centre of buoyancy** (CB). `e3` points **up**, against gravity (as
/// for [`HeavyTop`]); Leonard's `k` points down, `k = -e3`. `Γ = Rᵀe3` is the upward vertical in
/// the body frame. The centre of gravity (CG) sits at `r_G` from the CB in the body frame. The
/// weight is `W = m g` (body mass `m`), the buoyancy `B = ρ𝒱 g` (displaced fluid).
///
/// **Lagrangian.** `ℓ(g, ξ) = ½ ξᵀ𝕄ξ - V(g)` with body velocities `ξ = (Ω, v)` and
///
/// ```text
///   V(R, b) = W e3·(b + R r_G) - B e3·b = W ⟨R r_G, e3⟩ + (W - B) ⟨b, e3⟩,
/// ```
///
/// the heights of the CG and the CB times weight and buoyancy. `𝕄` is the symmetric positive
/// definite 6×6 generalized inertia (rigid body about the CB plus added mass). For a rigid body
/// with its CG off the CB its off-diagonal block is `m r̂_G` (see [`BuoyantVehicle::ellipsoid`]).
///
/// **Equations.** The left-trivialized force is `f = -dV = (W Γ × r_G, (B - W) Γ)`, so
/// `μ = (Π, P) = 𝕄ξ` obeys
///
/// ```text
///   Π̇ = Π × Ω + P × v + W Γ × r_G,   Ṗ = P × Ω + (B - W) Γ,   Γ̇ = Γ × Ω.
/// ```
///
/// `W Γ × r_G = r_G × (-WΓ)` is the moment of the weight about the CB, and `(B - W)Γ` is the net
/// vertical force in the body frame. A bottom-heavy vehicle (`r_G` pointing down when upright)
/// is righted; a heavier-than-water one (`W > B`) sinks.
///
/// **First integrals.** The energy `E = ½ μᵀ𝕄^{-1}μ + V(g)` ([`energy`](Self::energy)). `V` is
/// invariant under left multiplication by rotations about `e3` and horizontal translations (and
/// by every translation when `W = B`). Their momenta are components of the spatial momentum map
/// of left multiplication, computed from the state as
///
/// ```text
///   J(g, μ) = Ad*_{g^{-1}} μ = (RΠ + b × RP, RP)
/// ```
///
/// (`LieState::spatial_momentum`): `e3·(RΠ + b × RP)`, the angular momentum about the vertical
/// axis through the origin, and the horizontal linear momenta `e1·RP`, `e2·RP`
/// ([`momenta`](Self::momenta)). The vertical linear momentum
/// changes at the constant rate `e3·(RP)˙ = B - W`. The model is not left-invariant but
/// separable (`LeftLagrangian::SEPARABLE`): HP Störmer–Verlet and symplectic Euler take the
/// kick–solve–kick step, other tableaux solve their general stage equations. Every member
/// conserves these momenta to round-off, since its stage points `g_k τ(hΘ^i)` are
/// left-equivariant.
///
/// With `W = B` and `r_G = 0` the model is Kirchhoff's [`UnderwaterVehicle`] with `V = 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BuoyantVehicle {
    metric: Matrix6<f64>,
    metric_inv: Matrix6<f64>,
    weight: f64,
    buoyancy: f64,
    r_g: Vector3<f64>,
}

/// The parameters of a bottom-heavy (or offset) solid ellipsoid, from [`BuoyantVehicle::ellipsoid`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BuoyantParameters {
    /// Shape, fluid density, displaced mass `ρ𝒱` ([`EllipsoidParameters::mass`]), Lamb's
    /// coefficients and the added masses and inertias (these depend on the fluid only).
    pub fluid: EllipsoidParameters,
    /// Body mass `m`.
    pub body_mass: f64,
    /// Gravitational acceleration `g` (m/s²).
    pub gravity: f64,
    /// Weight `W = m g` (N).
    pub weight: f64,
    /// Buoyancy `B = ρ𝒱 g` (N).
    pub buoyancy: f64,
    /// The CG offset `r_G` from the CB, body frame (m).
    pub r_g: Vector3<f64>,
    /// Body inertia about the CG, `(m / ρ𝒱)` times that of the uniform solid (kg m²).
    pub inertia_about_cg: Vector3<f64>,
    /// Body inertia about the CB, `J_G - m r̂_G²` (parallel axes; kg m²).
    pub inertia_about_cb: Matrix3<f64>,
}

impl BuoyantVehicle {
    /// A vehicle with the generalized inertia `𝕄` (symmetric positive definite, rotation block
    /// first), weight `W`, buoyancy `B` (finite, non-negative) and CG offset `r_G` (finite).
    /// Errors: [`GeomError::InvalidParameter`] / [`GeomError::NonFinite`].
    ///
    /// ```
    /// use integrators::models::BuoyantVehicle;
    /// use nalgebra::{Matrix6, Vector3};
    /// let m = Matrix6::from_diagonal(&nalgebra::Vector6::new(2.0, 2.0, 1.0, 3.0, 3.0, 3.0));
    /// assert!(BuoyantVehicle::new(m, 10.0, 9.0, Vector3::new(0.0, 0.0, -0.1)).is_ok());
    /// assert!(BuoyantVehicle::new(-m, 10.0, 9.0, Vector3::zeros()).is_err());
    /// assert!(BuoyantVehicle::new(m, -1.0, 9.0, Vector3::zeros()).is_err());
    /// ```
    pub fn new(metric: Matrix6<f64>, weight: f64, buoyancy: f64, r_g: Vector3<f64>) -> Result<Self> {
        let metric_inv = check_inertia(&metric, "buoyant vehicle metric")?;
        if !weight.is_finite() || !buoyancy.is_finite() || !r_g.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "buoyant vehicle parameters" });
        }
        if weight < 0.0 || buoyancy < 0.0 {
            return Err(GeomError::InvalidParameter {
                what: "buoyant vehicle",
                reason: format!("weight and buoyancy must be non-negative, got {weight}, {buoyancy}"),
            });
        }
        Ok(Self { metric, metric_inv, weight, buoyancy, r_g })
    }

    /// A solid ellipsoid with semi-axes `(a, b, c)` along the body axes in a fluid of density
    /// `ρ`, with body mass `m = mass_ratio · ρ𝒱` and its CG at `r_G` from the centroid (the CB),
    /// under gravity `g`. The body's mass is modelled as that of the uniform solid scaled by
    /// `mass_ratio` and moved by `r_G` (ballast): inertia `J_G = mass_ratio · J_uniform` about
    /// the CG, `J_CB = J_G - m r̂_G²` about the CB. Then
    ///
    /// ```text
    ///   𝕄 = [[J_CB + added inertia, m r̂_G], [-m r̂_G, m Id + added mass]],
    ///   W = m g,   B = ρ𝒱 g,
    /// ```
    ///
    /// where the off-diagonal blocks come from `½ m |v + Ω × r_G|²` and the added masses and
    /// inertias are Lamb's ([`UnderwaterVehicle::ellipsoid`]). `mass_ratio = 1` is neutrally
    /// buoyant, `> 1` heavier than the fluid. Errors for non-positive or non-finite input.
    ///
    /// ```
    /// use integrators::models::BuoyantVehicle;
    /// use nalgebra::Vector3;
    /// let (veh, p) = BuoyantVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0, 1.0, Vector3::new(0.0, 0.0, -0.05), 9.81)?;
    /// assert!((p.weight - p.buoyancy).abs() < 1e-9 * p.weight);
    /// assert_eq!(veh.net_weight(), p.weight - p.buoyancy);
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn ellipsoid(
        a: f64,
        b: f64,
        c: f64,
        density: f64,
        mass_ratio: f64,
        r_g: Vector3<f64>,
        gravity: f64,
    ) -> Result<(Self, BuoyantParameters)> {
        if ![mass_ratio, gravity].iter().all(|v| v.is_finite() && *v > 0.0) {
            return Err(GeomError::InvalidParameter {
                what: "buoyant ellipsoid",
                reason: format!("mass ratio and gravity must be finite and positive, got {mass_ratio}, {gravity}"),
            });
        }
        if !r_g.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "centre of gravity offset" });
        }
        let (_, fluid) = UnderwaterVehicle::ellipsoid(a, b, c, density)?;
        let m = mass_ratio * fluid.mass;
        let inertia_about_cg = fluid.body_inertia * mass_ratio;
        let rh = so3::hat(&r_g);
        let inertia_about_cb = Matrix3::from_diagonal(&inertia_about_cg) - rh * rh * m;
        let mut metric = Matrix6::zeros();
        metric
            .fixed_view_mut::<3, 3>(0, 0)
            .copy_from(&(inertia_about_cb + Matrix3::from_diagonal(&fluid.added_inertia)));
        metric.fixed_view_mut::<3, 3>(0, 3).copy_from(&(rh * m));
        metric.fixed_view_mut::<3, 3>(3, 0).copy_from(&(rh * (-m)));
        metric
            .fixed_view_mut::<3, 3>(3, 3)
            .copy_from(&Matrix3::from_diagonal(&(Vector3::repeat(m) + fluid.added_mass)));
        let (weight, buoyancy) = (m * gravity, fluid.mass * gravity);
        let vehicle = Self::new(metric, weight, buoyancy, r_g)?;
        let params = BuoyantParameters {
            fluid,
            body_mass: m,
            gravity,
            weight,
            buoyancy,
            r_g,
            inertia_about_cg,
            inertia_about_cb,
        };
        Ok((vehicle, params))
    }

    /// The generalized inertia `𝕄`.
    pub fn metric(&self) -> &Matrix6<f64> {
        &self.metric
    }
    /// The weight `W`.
    pub fn weight(&self) -> f64 {
        self.weight
    }
    /// The buoyancy `B`.
    pub fn buoyancy(&self) -> f64 {
        self.buoyancy
    }
    /// The net weight `W - B` (positive: heavier than the fluid).
    pub fn net_weight(&self) -> f64 {
        self.weight - self.buoyancy
    }
    /// The CG offset `r_G` from the CB (body frame).
    pub fn r_g(&self) -> &Vector3<f64> {
        &self.r_g
    }
    /// `Γ = Rᵀ e3`, the upward vertical in the body frame.
    pub fn gamma(g: &Matrix4<f64>) -> Vector3<f64> {
        Vector3::new(g[(2, 0)], g[(2, 1)], g[(2, 2)])
    }
    /// The body velocity `ξ = 𝕄^{-1} μ`.
    pub fn velocity(&self, mu: &Vector6<f64>) -> Vector6<f64> {
        self.metric_inv * mu
    }
    /// The potential `V(g) = W ⟨R r_G, e3⟩ + (W - B) ⟨b, e3⟩`.
    pub fn potential(&self, g: &Matrix4<f64>) -> f64 {
        self.potential_at(g)
    }
    /// The energy `E = ½ μᵀ𝕄^{-1}μ + V(g)`.
    pub fn energy(&self, state: &LieState<Matrix4<f64>, 6>) -> f64 {
        0.5 * state.mu.dot(&(self.metric_inv * state.mu)) + self.potential(&state.g)
    }
    /// The left-trivialized force `f = -dV = (W Γ × r_G, (B - W) Γ)`.
    pub fn force(&self, g: &Matrix4<f64>) -> Vector6<f64> {
        self.force_at(g)
    }
    /// No Casimirs on the state space `T*SE(3)` of this model (gravity and buoyancy break the
    /// reduction to `se(3)*`): `[]`, for the same shape as the other models.
    pub fn casimirs(&self, _state: &LieState<Matrix4<f64>, 6>) -> [f64; 0] {
        []
    }
    /// The conserved momenta: the components of the spatial momentum map
    /// `Ad*_{g^{-1}} μ = (RΠ + b × RP, RP)` that gravity and buoyancy leave,
    /// `[e3·(RΠ + b × RP), e1·RP, e2·RP]`: the angular momentum about the vertical through the
    /// origin and the horizontal linear momentum.
    pub fn momenta(&self, state: &LieState<Matrix4<f64>, 6>) -> [f64; 3] {
        let j = state.spatial_momentum(&Se3);
        [j[2], j[3], j[4]]
    }

    #[inline]
    fn potential_at<S: Scalar>(&self, g: &Matrix4<S>) -> S {
        let lever =
            g[(2, 0)] * S::from(self.r_g[0]) + g[(2, 1)] * S::from(self.r_g[1]) + g[(2, 2)] * S::from(self.r_g[2]);
        lever * S::from(self.weight) + g[(2, 3)] * S::from(self.weight - self.buoyancy)
    }

    #[inline]
    fn force_at<S: Scalar>(&self, g: &Matrix4<S>) -> Vector6<S> {
        let gamma = Vector3::new(g[(2, 0)], g[(2, 1)], g[(2, 2)]);
        se3::join(
            &(gamma.cross(&self.r_g.map(S::from)) * S::from(self.weight)),
            &(gamma * S::from(self.buoyancy - self.weight)),
        )
    }
}

impl<S: Scalar> LieFunction<S, Se3, 6> for BuoyantVehicle {
    fn eval(&self, _: &Se3, g: &Matrix4<S>, xi: &Vector6<S>) -> S {
        (self.metric.map(S::from) * xi).dot(xi) * S::from(0.5) - self.potential_at(g)
    }
}

impl<S: Scalar> LeftLagrangian<S, Se3, 6> for BuoyantVehicle {
    /// `ℓ = ½ξᵀ𝕄ξ - V(g)`: kinetic minus potential, so Störmer–Verlet and symplectic Euler take
    /// the kick–solve–kick step (tested against [`crate::hp::AutoDiff`], which never claims it).
    const SEPARABLE: bool = true;
    #[inline]
    fn momentum(&self, _: &Se3, _: &Matrix4<S>, xi: &Vector6<S>) -> Result<Vector6<S>> {
        Ok(self.metric.map(S::from) * xi)
    }
    /// `<f, η> = -d/dε V(g exp(εη))`: with `η = (ω, u)`, `R ↦ R(I + εω̂)`, `b ↦ b + εRu`, so
    /// `<dV, η> = W ω·(r_G × Γ) + (W - B) u·Γ` and `f = (W Γ × r_G, (B - W) Γ)`.
    #[inline]
    fn force(&self, _: &Se3, g: &Matrix4<S>, _: &Vector6<S>) -> Result<Vector6<S>> {
        Ok(self.force_at(g))
    }
    #[inline]
    fn velocity_guess(&self, _: &Se3, _: &Matrix4<S>, pi: &Vector6<S>) -> Option<Vector6<S>> {
        Some(self.metric_inv.map(S::from) * pi)
    }
    #[inline]
    fn momentum_jacobian(&self, _: &Se3, _: &Matrix4<S>, _: &Vector6<S>) -> Option<Matrix6<S>> {
        Some(self.metric.map(S::from))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hp::AutoDiff;
    use geom_core::lie::LieGroup;

    /// The principal-axes shortcut of `I^{-1}Π` gives the full product's value bit for bit, and
    /// a body off its principal axes takes the full product.
    #[test]
    fn the_principal_velocity_is_the_full_product() {
        let pi = Vector3::new(0.3, -1.7, 2.9);
        let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0).unwrap();
        assert!(body.principal);
        assert_eq!(body.velocity(&pi), body.inertia_inv * pi);
        let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 1.0, 3.0)), 1.0, Vector3::z()).unwrap();
        assert!(top.principal);
        assert_eq!(top.velocity(&pi), top.inertia_inv * pi);
        let tilted = Matrix3::new(2.0, 0.1, 0.0, 0.1, 1.0, 0.0, 0.0, 0.0, 0.5);
        let body = FreeRigidBody::new(tilted).unwrap();
        assert!(!body.principal);
        assert_eq!(body.velocity(&pi), body.inertia_inv * pi);
        assert!((tilted * body.velocity(&pi) - pi).amax() < 1e-15);
    }

    #[test]
    fn closed_forms_match_ad_through_the_group() {
        let top =
            HeavyTop::new(Matrix3::new(2.0, 0.1, 0.0, 0.1, 1.5, 0.2, 0.0, 0.2, 1.0), 1.3, Vector3::new(0.2, -0.1, 1.0))
                .unwrap();
        let r = So3.exp(&Vector3::new(0.7, -1.2, 0.4));
        let xi = Vector3::new(0.3, -0.5, 0.8);
        let ad = AutoDiff(top);
        let f = |l: &dyn Fn() -> Result<Vector3<f64>>| l().unwrap();
        let (fc, fa) = (
            f(&|| LeftLagrangian::<f64, So3, 3>::force(&top, &So3, &r, &xi)),
            f(&|| LeftLagrangian::<f64, So3, 3>::force(&ad, &So3, &r, &xi)),
        );
        assert!((fc - fa).norm() < 1e-15, "{fc} {fa}");
        assert!((fc - top.torque(&r)).norm() < 1e-15);
        let (mc, ma) = (
            f(&|| LeftLagrangian::<f64, So3, 3>::momentum(&top, &So3, &r, &xi)),
            f(&|| LeftLagrangian::<f64, So3, 3>::momentum(&ad, &So3, &r, &xi)),
        );
        assert!((mc - ma).norm() < 1e-15);
        // at the dual type of the Newton Jacobian, through hyper-dual numbers
        use num_dual::DualSVec64;
        let rd = r.map(DualSVec64::<3>::from_re);
        let xid = Vector3::from_fn(|i, _| DualSVec64::<3>::from_re(xi[i]).derivative(i));
        let rot = So3.exp(&Vector3::from_fn(|i, _| DualSVec64::<3>::from_re(0.0).derivative(i)));
        let rd = rd * rot; // derivative of R exp(η) at η = 0
        for (c, a) in [
            (
                LeftLagrangian::<DualSVec64<3>, So3, 3>::force(&top, &So3, &rd, &xid).unwrap(),
                LeftLagrangian::<DualSVec64<3>, So3, 3>::force(&ad, &So3, &rd, &xid).unwrap(),
            ),
            (
                LeftLagrangian::<DualSVec64<3>, So3, 3>::momentum(&top, &So3, &rd, &xid).unwrap(),
                LeftLagrangian::<DualSVec64<3>, So3, 3>::momentum(&ad, &So3, &rd, &xid).unwrap(),
            ),
        ] {
            for i in 0..3 {
                assert!((c[i].re - a[i].re).abs() < 1e-15);
                let (ce, ae) = (
                    c[i].eps.unwrap_generic(nalgebra::Const::<3>, nalgebra::U1),
                    a[i].eps.unwrap_generic(nalgebra::Const::<3>, nalgebra::U1),
                );
                assert!((ce - ae).norm() < 1e-14, "{ce} {ae}");
            }
        }
        // the vehicle on SE(3)
        let (veh, _) = UnderwaterVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0).unwrap();
        let g = Se3.exp(&Vector6::new(0.1, 0.2, -0.3, 1.0, 2.0, 3.0));
        let xi6 = Vector6::new(0.3, -0.1, 0.2, 1.0, 0.1, -0.2);
        let mc = LeftLagrangian::<f64, Se3, 6>::momentum(&veh, &Se3, &g, &xi6).unwrap();
        let ma = LeftLagrangian::<f64, Se3, 6>::momentum(&AutoDiff(veh), &Se3, &g, &xi6).unwrap();
        let fa = LeftLagrangian::<f64, Se3, 6>::force(&AutoDiff(veh), &Se3, &g, &xi6).unwrap();
        assert!((mc - ma).norm() < 1e-12 * mc.norm());
        assert!(fa.norm() < 1e-12 * mc.norm());
    }

    #[test]
    fn lamb_coefficients() {
        // R_D(x, x, x) = x^{-3/2}; α0 + β0 + γ0 = 2; a sphere has α0 = 2/3
        assert!((carlson_rd(4.0, 4.0, 4.0) - 0.125).abs() < 1e-16);
        // R_D(0, 2, 1) = 1.7972103521034 (Carlson 1995, Table)
        assert!((carlson_rd(0.0, 2.0, 1.0) - 1.797_210_352_103_4).abs() < 1e-12);
        let (_, p) = UnderwaterVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0).unwrap();
        assert!((p.lamb.sum() - 2.0).abs() < 1e-14, "{}", p.lamb);
        assert!(p.lamb[0] < p.lamb[1] && p.lamb[1] < p.lamb[2]);
        assert!(p.added_mass.iter().all(|&m| m > 0.0) && p.added_inertia.iter().all(|&m| m > 0.0));
        let (_, s) = UnderwaterVehicle::ellipsoid(0.3, 0.3, 0.3, 1.0).unwrap();
        assert!((s.lamb[0] - 2.0 / 3.0).abs() < 1e-14);
        // prolate spheroid a = 2, b = c = 1, eccentricity e: α0 = 2(1-e²)/e³ (½ ln((1+e)/(1-e)) - e)
        // (Lamb §373), k1 = α0/(2 - α0) = 0.2100, k2 = 0.7042; no added inertia about the axis
        let (_, q) = UnderwaterVehicle::ellipsoid(2.0, 1.0, 1.0, 1.0).unwrap();
        let e = (1.0f64 - 0.25).sqrt();
        let alpha = 2.0 * (1.0 - e * e) / (e * e * e) * (0.5 * ((1.0 + e) / (1.0 - e)).ln() - e);
        assert!((q.lamb[0] - alpha).abs() < 1e-14, "{} {alpha}", q.lamb[0]);
        assert!((q.lamb[1] - (2.0 - alpha) / 2.0).abs() < 1e-14);
        assert!((q.added_mass[0] / q.mass - 0.2100).abs() < 1e-4 && (q.added_mass[1] / q.mass - 0.7042).abs() < 1e-4);
        assert_eq!(q.added_inertia[0], 0.0);
        assert!(UnderwaterVehicle::ellipsoid(1.0, -1.0, 1.0, 1.0).is_err());
    }
}
