//! The Chaplygin sleigh, a nonholonomic model of [`crate::nonholonomic`].

use crate::noether::InfinitesimalSymmetry;
use crate::nonholonomic::*;
use crate::pair::PairGroupoid;
use geom_core::{Result, Scalar};
use nalgebra::{SMatrix, SVector, Vector3};

/// The Chaplygin sleigh (Bloch, *Nonholonomic Mechanics and Control*, 2003, §1.7; docs/math.md
/// §C.7): a rigid body of mass `m` and moment of inertia `I` about its centre of mass `(x, y)`,
/// heading `θ`, supported by a knife edge along its body axis `e_1 = (cos θ, sin θ)` at the point
/// `(x, y) − a e_1` (behind the centre of mass for `a > 0`), which cannot slip sideways:
///
/// ```text
/// L = ½ m (ẋ² + ẏ²) + ½ I θ̇²,      −sin θ ẋ + cos θ ẏ − a θ̇ = 0.
/// ```
///
/// With the body velocities `u = e_1·(ẋ, ẏ)`, `ω = θ̇` (the lateral one is `aω`), the motion reduces
/// to `u̇ = aω²`, `(I + ma²) ω̇ = −m a u ω`, with energy `E = ½ m u² + ½ (I + ma²) ω²`. The angular
/// velocity decays to zero and the sleigh ends in straight-line motion along its knife edge with
/// speed `√(2E/m)`, centre of mass first ([`ChaplyginSleigh::reduced`],
/// [`ChaplyginSleigh::limit_heading`]).
///
/// **Why the pair groupoid of `R³` rather than `SE(2)` as a Lie group groupoid.** `R³` with
/// coordinates `(x, y, θ)` is the universal cover of `SE(2)`, and its pair groupoid has `AG = TQ`
/// with the identity anchor, so the distribution is literally `μ(q) q̇ = 0` and the midpoint
/// constraint `μ(q̄)Δq = 0` discretizes it with no chart. Nothing of the symmetry is lost: `L_d` and
/// `ψ` are invariant under the diagonal `SE(2)` action (`θ` enters only through differences and
/// `θ̄` turns with the frame), so the nonholonomic momentum equation holds exactly
/// ([`ChaplyginSleigh::forward_momentum`], [`ChaplyginSleigh::contact_momentum`]). The heading is
/// tracked without wrapping, which makes the limit heading directly measurable. The Lie-group
/// version (`G ⇉ {e}` with `G = SE(2)`, a discrete Euler–Poincaré–Suslov system with the constant
/// body constraint `v_2 = aω`) runs on the same [`NonholonomicFlow`]; the tests use it as a
/// cross-check of the left/right-trivialized form.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChaplyginSleigh {
    mass: f64,
    inertia: f64,
    offset: f64,
}

/// The knife-edge constraint of [`ChaplyginSleigh`]: `μ(q) = (−sin θ, cos θ, −a)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnifeEdge {
    /// The offset `a` of the contact point behind the centre of mass.
    pub offset: f64,
}

impl OneForms<3, 1> for KnifeEdge {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>) -> SMatrix<S, 1, 3> {
        SMatrix::<S, 1, 3>::new(-q[2].sin(), q[2].cos(), -S::from(self.offset))
    }
}

/// The discrete sleigh: pair groupoid of `R³`, midpoint `L_d`, midpoint knife-edge constraint,
/// `M = 3 + 1` unknowns per step.
pub type SleighFlow = NonholonomicFlow<PairGroupoid<3>, Midpoint<ChaplyginSleigh>, MidpointConstraints<KnifeEdge>, 4>;

/// The discrete sleigh as a one-step integrator of `(q, p)`: the midpoint family
/// `h ↦ h L((q₀ + q₁)/2, (q₁ − q₀)/h)`, the midpoint constraint, the physical momentum
/// representative (`W = M^{-1}`); order 2, symmetric ([`ChaplyginSleigh::integrator`]).
pub type SleighIntegrator = crate::integrator::NonholonomicIntegrator<
    PairGroupoid<3>,
    crate::integrator::Stepped<crate::time_dependent::Midpoint<ChaplyginSleigh>>,
    MidpointConstraints<KnifeEdge>,
    3,
    1,
    4,
>;

impl ContinuousLagrangian<3> for ChaplyginSleigh {
    #[inline]
    fn eval<S: Scalar>(&self, _q: &SVector<S, 3>, v: &SVector<S, 3>) -> S {
        ((v[0] * v[0] + v[1] * v[1]) * S::from(self.mass) + v[2] * v[2] * S::from(self.inertia)) * S::from(0.5)
    }
}

/// `SE(2)` acting on `(x, y, θ)` by rigid motions of the plane. Algebra coordinates `(ω, v_1, v_2)`
/// (geom-core's `SE(2)` order); the generator at `q` is `(v_1 − ω y, v_2 + ω x, ω)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlanarMotions;

impl InfinitesimalSymmetry<PairGroupoid<3>, 3, 3> for PlanarMotions {
    fn section(&self, _: &PairGroupoid<3>, q: &SVector<f64, 3>) -> SMatrix<f64, 3, 3> {
        SMatrix::<f64, 3, 3>::new(-q[1], 1.0, 0.0, q[0], 0.0, 1.0, 1.0, 0.0, 0.0)
    }
}

/// The closed-form reduced motion of the sleigh ([`ChaplyginSleigh::reduced`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SleighMotion {
    /// Forward speed `u(t)`.
    pub u: f64,
    /// Angular velocity `ω(t)`.
    pub omega: f64,
    /// `θ(t) − θ(0)`.
    pub heading_change: f64,
}

impl ChaplyginSleigh {
    /// A sleigh of mass `m > 0`, inertia `I > 0` about the centre of mass and contact-point offset
    /// `a` (finite; `a = 0` puts the knife edge under the centre of mass, where `ω` is conserved);
    /// [`GeomError::InvalidParameter`](geom_core::GeomError::InvalidParameter) otherwise.
    pub fn new(mass: f64, inertia: f64, offset: f64) -> Result<Self> {
        check_parameter("mass", mass, true)?;
        check_parameter("inertia", inertia, true)?;
        check_parameter("offset", offset, false)?;
        Ok(Self { mass, inertia, offset })
    }
    /// The mass `m`.
    pub fn mass(&self) -> f64 {
        self.mass
    }
    /// The moment of inertia `I` about the centre of mass.
    pub fn inertia(&self) -> f64 {
        self.inertia
    }
    /// The offset `a`.
    pub fn offset(&self) -> f64 {
        self.offset
    }
    /// The knife-edge one-form.
    pub fn constraint(&self) -> KnifeEdge {
        KnifeEdge { offset: self.offset }
    }
    /// The discrete flow as a one-step integrator of `(q, p)` with the step given at each step
    /// ([`SleighIntegrator`]): `p` is kept as the physical momentum `M v` with `μ(q) v = 0`.
    pub fn integrator(&self) -> SleighIntegrator {
        let inverse_mass =
            SMatrix::<f64, 3, 3>::from_diagonal(&SVector::from([1.0 / self.mass, 1.0 / self.mass, 1.0 / self.inertia]));
        crate::integrator::NonholonomicIntegrator::new(
            PairGroupoid::<3>,
            crate::integrator::Stepped(crate::time_dependent::Midpoint(*self)),
            MidpointConstraints(self.constraint()),
        )
        .with_properties(2, true)
        .with_inverse_mass(inverse_mass)
        .expect("the inverse of a positive diagonal mass matrix is symmetric positive definite")
    }
    /// The discrete flow with step `h` ([`GeomError::InvalidStep`](geom_core::GeomError::InvalidStep) unless finite and positive).
    pub fn flow(&self, h: f64) -> Result<SleighFlow> {
        Ok(NonholonomicFlow::new(PairGroupoid::<3>, Midpoint::new(*self, h)?, MidpointConstraints(self.constraint())))
    }
    /// The admissible velocity with forward speed `u` and angular velocity `ω` at heading `θ`:
    /// `u e_1 + aω e_2` and `θ̇ = ω`.
    pub fn velocity(&self, theta: f64, u: f64, omega: f64) -> SVector<f64, 3> {
        let (s, c) = theta.sin_cos();
        let w = self.offset * omega;
        SVector::from([u * c - w * s, u * s + w * c, omega])
    }
    /// Body velocities `(u, v_lateral, ω)` of a velocity `v` at heading `θ`.
    pub fn body_velocity(&self, theta: f64, v: &SVector<f64, 3>) -> Vector3<f64> {
        let (s, c) = theta.sin_cos();
        Vector3::new(c * v[0] + s * v[1], -s * v[0] + c * v[1], v[2])
    }
    /// The momentum `∂L/∂q̇ = diag(m, m, I) v`.
    pub fn momentum(&self, v: &SVector<f64, 3>) -> SVector<f64, 3> {
        lagrangian_momentum(self, &SVector::zeros(), v)
    }
    /// The energy `½ vᵀ diag(m, m, I) v`.
    pub fn energy(&self, v: &SVector<f64, 3>) -> f64 {
        lagrangian_energy(self, &SVector::zeros(), v)
    }
    /// The limit speed `√(u_0² + (I + ma²) ω_0²/m) = √(2E/m)`.
    pub fn limit_speed(&self, u0: f64, omega0: f64) -> f64 {
        (u0 * u0 + (self.inertia + self.mass * self.offset * self.offset) * omega0 * omega0 / self.mass).sqrt()
    }
    /// The reduced motion in closed form from `(u_0, ω_0)`: with `u_∞` = [`ChaplyginSleigh::limit_speed`],
    /// `κ = m a u_∞/(I + ma²)` and `c = artanh(u_0/u_∞)`,
    /// `u = u_∞ tanh(κt + c)`, `ω = ω_0 cosh(c)/cosh(κt + c)`,
    /// `θ − θ_0 = (ω_0 cosh(c)/κ)(gd(κt + c) − gd(c))` with `gd(s) = atan(sinh s)`.
    /// For `ω_0 = 0` (straight motion) or `a = 0` (`ω` conserved) `u` and `ω` are constant.
    pub fn reduced(&self, u0: f64, omega0: f64, t: f64) -> SleighMotion {
        let u_inf = self.limit_speed(u0, omega0);
        let kappa = self.mass * self.offset * u_inf / (self.inertia + self.mass * self.offset * self.offset);
        if omega0 == 0.0 || kappa == 0.0 {
            return SleighMotion { u: u0, omega: omega0, heading_change: omega0 * t };
        }
        let c = (u0 / u_inf).atanh();
        let s = kappa * t + c;
        let gd = |z: f64| z.sinh().atan();
        SleighMotion {
            u: u_inf * s.tanh(),
            omega: omega0 * c.cosh() / s.cosh(),
            heading_change: omega0 * c.cosh() / kappa * (gd(s) - gd(c)),
        }
    }
    /// The heading of the final straight-line motion, `θ_∞ = θ_0 + (ω_0 cosh(c)/κ)(sign(κ) π/2 − gd(c))`
    /// (the limit of [`ChaplyginSleigh::reduced`]); `None` when `a = 0` (no limit: `ω` is conserved).
    pub fn limit_heading(&self, theta0: f64, u0: f64, omega0: f64) -> Option<f64> {
        let u_inf = self.limit_speed(u0, omega0);
        let kappa = self.mass * self.offset * u_inf / (self.inertia + self.mass * self.offset * self.offset);
        if kappa == 0.0 {
            return if omega0 == 0.0 { Some(theta0) } else { None };
        }
        if omega0 == 0.0 {
            return Some(theta0);
        }
        let c = (u0 / u_inf).atanh();
        let gd = c.sinh().atan();
        Some(theta0 + omega0 * c.cosh() / kappa * (kappa.signum() * std::f64::consts::FRAC_PI_2 - gd))
    }
    /// Body velocities `(u, v_lateral, ω)` of an arrow's mean velocity at its mid-heading (the
    /// midpoint constraint makes `v_lateral = aω` exact).
    pub fn arrow_body_velocity(&self, g: &(SVector<f64, 3>, SVector<f64, 3>), h: f64) -> Vector3<f64> {
        let v = (g.1 - g.0) / h;
        self.body_velocity(0.5 * (g.0[2] + g.1[2]), &v)
    }
    /// The momentum observer of the horizontal section "translate along the knife edge",
    /// `ξ(q) = (0, cos θ, sin θ)`: momentum `m u`, and `d/dt (m u) = m a ω²`.
    pub fn forward_momentum(
        &self,
    ) -> MomentumObserver<PlanarMotions, impl Fn(&SVector<f64, 3>) -> SVector<f64, 3> + Copy + Send + Sync> {
        MomentumObserver::new(PlanarMotions, |q: &SVector<f64, 3>| SVector::from([0.0, q[2].cos(), q[2].sin()]))
    }
    /// The momentum observer of the horizontal section "rotate about the contact point
    /// `C = (x, y) − a e_1`", `ξ(q) = (1, C_y, −C_x)` with generator `(−a sin θ, a cos θ, 1)`:
    /// momentum `(I + ma²) ω`, and `d/dt ((I + ma²) ω) = −m a u ω`.
    pub fn contact_momentum(
        &self,
    ) -> MomentumObserver<PlanarMotions, impl Fn(&SVector<f64, 3>) -> SVector<f64, 3> + Copy + Send + Sync> {
        let a = self.offset;
        MomentumObserver::new(PlanarMotions, move |q: &SVector<f64, 3>| {
            let (s, c) = q[2].sin_cos();
            SVector::from([1.0, q[1] - a * s, -(q[0] - a * c)])
        })
    }
}
