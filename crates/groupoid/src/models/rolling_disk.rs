//! The vertical rolling disk, a nonholonomic model of [`crate::nonholonomic`].

use crate::noether::InfinitesimalSymmetry;
use crate::nonholonomic::*;
use crate::pair::PairGroupoid;
use geom_core::{Result, Scalar};
use nalgebra::{SMatrix, SVector, Vector2};

/// A vertical disk rolling without slipping on the plane (Bloch, *Nonholonomic Mechanics and
/// Control*, 2003, §1.4; docs/math.md §C.7): `q = (x, y, θ, φ)` with `(x, y)` the contact point, `θ`
/// the rolling angle and `φ` the heading,
///
/// ```text
/// L = ½ m (ẋ² + ẏ²) + ½ I θ̇² + ½ J φ̇²,      ẋ = R cos φ θ̇,   ẏ = R sin φ θ̇.
/// ```
///
/// Discretized on the pair groupoid of `R^4` by the midpoint discrete Lagrangian ([`Midpoint`])
/// and the midpoint constraint ([`MidpointConstraints`] of [`RollingConstraint`]). Exact motion:
/// `θ̇`, `φ̇` constant, the contact point on a circle of radius `|R θ̇/φ̇|` ([`RollingDisk::exact`]).
/// The discrete flow keeps `θ_{k+1} − θ_k` and `φ_{k+1} − φ_k` exactly constant and its contact
/// points on a circle too, of radius `R Δθ/(2 sin(Δφ/2))`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RollingDisk {
    mass: f64,
    radius: f64,
    axle_inertia: f64,
    vertical_inertia: f64,
}

/// The rolling constraints of [`RollingDisk`]: `μ(q) = [[1, 0, −R cos φ, 0], [0, 1, −R sin φ, 0]]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RollingConstraint {
    /// The radius `R`.
    pub radius: f64,
}

impl OneForms<4, 2> for RollingConstraint {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 4>) -> SMatrix<S, 2, 4> {
        let (zero, one, r) = (S::from(0.0), S::from(1.0), S::from(self.radius));
        SMatrix::<S, 2, 4>::new(one, zero, -r * q[3].cos(), zero, zero, one, -r * q[3].sin(), zero)
    }
}

/// The discrete rolling disk: pair groupoid of `R^4`, midpoint `L_d`, midpoint rolling constraint,
/// `M = 4 + 2` unknowns per step.
pub type RollingDiskFlow =
    NonholonomicFlow<PairGroupoid<4>, Midpoint<RollingDisk>, MidpointConstraints<RollingConstraint>, 6>;

/// The discrete rolling disk as a one-step integrator of `(q, p)`: the midpoint family
/// `h ↦ h L((q₀ + q₁)/2, (q₁ − q₀)/h)`, the midpoint constraint, the physical momentum
/// representative (`W = M^{-1}`); order 2, symmetric ([`RollingDisk::integrator`]).
pub type RollingDiskIntegrator = crate::integrator::NonholonomicIntegrator<
    PairGroupoid<4>,
    crate::integrator::Stepped<crate::time_dependent::Midpoint<RollingDisk>>,
    MidpointConstraints<RollingConstraint>,
    4,
    2,
    6,
>;

impl ContinuousLagrangian<4> for RollingDisk {
    #[inline]
    fn eval<S: Scalar>(&self, _q: &SVector<S, 4>, v: &SVector<S, 4>) -> S {
        (v[0] * v[0] * S::from(self.mass)
            + v[1] * v[1] * S::from(self.mass)
            + v[2] * v[2] * S::from(self.axle_inertia)
            + v[3] * v[3] * S::from(self.vertical_inertia))
            * S::from(0.5)
    }
}

/// The symmetry group `SE(2) × R` of [`RollingDisk`] acting on `(x, y, θ, φ)`: rigid motions of the
/// plane (rotating the heading `φ` with it) and shifts of the rolling angle `θ`. Algebra
/// coordinates `(ω, v_1, v_2, s)` (the `SE(2)` order of geom-core, then `s`); the generator at `q`
/// is `(v_1 − ω y, v_2 + ω x, s, ω)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiskSymmetry;

impl InfinitesimalSymmetry<PairGroupoid<4>, 4, 4> for DiskSymmetry {
    fn section(&self, _: &PairGroupoid<4>, q: &SVector<f64, 4>) -> SMatrix<f64, 4, 4> {
        SMatrix::<f64, 4, 4>::new(
            -q[1], 1.0, 0.0, 0.0, //
            q[0], 0.0, 1.0, 0.0, //
            0.0, 0.0, 0.0, 1.0, //
            1.0, 0.0, 0.0, 0.0,
        )
    }
}

impl RollingDisk {
    /// A disk of mass `m`, radius `R`, moment of inertia `I` about its axle and `J` about the
    /// vertical; [`GeomError::InvalidParameter`](geom_core::GeomError::InvalidParameter) unless all are finite and positive.
    pub fn new(mass: f64, radius: f64, axle_inertia: f64, vertical_inertia: f64) -> Result<Self> {
        check_parameter("mass", mass, true)?;
        check_parameter("radius", radius, true)?;
        check_parameter("axle_inertia", axle_inertia, true)?;
        check_parameter("vertical_inertia", vertical_inertia, true)?;
        Ok(Self { mass, radius, axle_inertia, vertical_inertia })
    }
    /// The mass `m`.
    pub fn mass(&self) -> f64 {
        self.mass
    }
    /// The radius `R`.
    pub fn radius(&self) -> f64 {
        self.radius
    }
    /// The moment of inertia `I` about the axle.
    pub fn axle_inertia(&self) -> f64 {
        self.axle_inertia
    }
    /// The moment of inertia `J` about the vertical.
    pub fn vertical_inertia(&self) -> f64 {
        self.vertical_inertia
    }
    /// The rolling constraint one-forms.
    pub fn constraint(&self) -> RollingConstraint {
        RollingConstraint { radius: self.radius }
    }
    /// The discrete flow as a one-step integrator of `(q, p)` with the step given at each step
    /// ([`RollingDiskIntegrator`]): `p` is kept as the physical momentum `M v` with `μ(q) v = 0`.
    pub fn integrator(&self) -> RollingDiskIntegrator {
        let inverse_mass = SMatrix::<f64, 4, 4>::from_diagonal(&SVector::from([
            1.0 / self.mass,
            1.0 / self.mass,
            1.0 / self.axle_inertia,
            1.0 / self.vertical_inertia,
        ]));
        crate::integrator::NonholonomicIntegrator::new(
            PairGroupoid::<4>,
            crate::integrator::Stepped(crate::time_dependent::Midpoint(*self)),
            MidpointConstraints(self.constraint()),
        )
        .with_properties(2, true)
        .with_inverse_mass(inverse_mass)
        .expect("the inverse of a positive diagonal mass matrix is symmetric positive definite")
    }
    /// The discrete flow with step `h` ([`GeomError::InvalidStep`](geom_core::GeomError::InvalidStep) unless finite and positive).
    pub fn flow(&self, h: f64) -> Result<RollingDiskFlow> {
        Ok(NonholonomicFlow::new(PairGroupoid::<4>, Midpoint::new(*self, h)?, MidpointConstraints(self.constraint())))
    }
    /// The admissible velocity `(R cos φ θ̇, R sin φ θ̇, θ̇, φ̇)` at `q`.
    pub fn velocity(&self, q: &SVector<f64, 4>, theta_dot: f64, phi_dot: f64) -> SVector<f64, 4> {
        let r = self.radius * theta_dot;
        SVector::from([r * q[3].cos(), r * q[3].sin(), theta_dot, phi_dot])
    }
    /// The momentum `∂L/∂q̇ = diag(m, m, I, J) v`.
    pub fn momentum(&self, v: &SVector<f64, 4>) -> SVector<f64, 4> {
        lagrangian_momentum(self, &SVector::zeros(), v)
    }
    /// The energy `½ vᵀ diag(m, m, I, J) v` (kinetic only).
    pub fn energy(&self, v: &SVector<f64, 4>) -> f64 {
        lagrangian_energy(self, &SVector::zeros(), v)
    }
    /// The exact motion from `q_0` with rates `θ̇`, `φ̇` at time `t`:
    /// `θ = θ_0 + θ̇t`, `φ = φ_0 + φ̇t`, `(x, y) = (x_0, y_0) + R θ̇ t sinc(φ̇t/2) (cos, sin)(φ_0 + φ̇t/2)`.
    pub fn exact(&self, q0: &SVector<f64, 4>, theta_dot: f64, phi_dot: f64, t: f64) -> SVector<f64, 4> {
        let half = 0.5 * phi_dot * t;
        let chord = self.radius * theta_dot * t * sinc(half);
        let mid = q0[3] + half;
        SVector::from([
            q0[0] + chord * mid.cos(),
            q0[1] + chord * mid.sin(),
            q0[2] + theta_dot * t,
            q0[3] + phi_dot * t,
        ])
    }
    /// The circle of the exact contact point: centre and radius `|R θ̇/φ̇|` (`None` for `φ̇ = 0`, a
    /// straight line).
    pub fn circle(&self, q0: &SVector<f64, 4>, theta_dot: f64, phi_dot: f64) -> Option<(Vector2<f64>, f64)> {
        if phi_dot == 0.0 {
            return None;
        }
        let rho = self.radius * theta_dot / phi_dot;
        Some((Vector2::new(q0[0] - rho * q0[3].sin(), q0[1] + rho * q0[3].cos()), rho.abs()))
    }
    /// The momentum observer of the horizontal section "turn about the contact point",
    /// `ξ(q) = (1, y, −x, 0)` with generator `∂_φ`: its momentum is `J φ̇`, conserved.
    pub fn turning_momentum(
        &self,
    ) -> MomentumObserver<DiskSymmetry, impl Fn(&SVector<f64, 4>) -> SVector<f64, 4> + Copy + Send + Sync> {
        MomentumObserver::new(DiskSymmetry, |q: &SVector<f64, 4>| SVector::from([1.0, q[1], -q[0], 0.0]))
    }
    /// The momentum observer of the horizontal section "roll forward",
    /// `ξ(q) = (0, R cos φ, R sin φ, 1)` with generator `(R cos φ, R sin φ, 1, 0)`: its momentum is
    /// `(I + m R²) θ̇`, conserved.
    pub fn rolling_momentum(
        &self,
    ) -> MomentumObserver<DiskSymmetry, impl Fn(&SVector<f64, 4>) -> SVector<f64, 4> + Copy + Send + Sync> {
        let r = self.radius;
        MomentumObserver::new(DiskSymmetry, move |q: &SVector<f64, 4>| {
            SVector::from([0.0, r * q[3].cos(), r * q[3].sin(), 1.0])
        })
    }
}
