//! The Lie group variational integrator (LGVI) of a rigid body with an attitude-dependent
//! potential: Lee, Leok & McClamroch, *A Lie group variational integrator for the attitude
//! dynamics of a rigid body with applications to the 3D pendulum*, 2005 (IEEE CCA), and
//! *Lie group variational integrators for the full body problem*, 2007 (CMAME 196); for the free
//! body it is the discrete rigid body of Moser & Veselov, *Discrete versions of some classical
//! integrable systems and factorization of matrix polynomials*, 1991 (docs/math.md §D.8).
//!
//! The body has the standard inertia `J` (symmetric positive definite), the body angular
//! momentum `Π = JΩ` and a potential `U(R)` whose body moment is `M(R) = −dU(R)`, the negative
//! left-trivialized gradient (`<dU, η> = d/dε U(R exp(εη̂))|_{ε=0}`; the force of
//! [`crate::hp::LeftLagrangian`]). With `J_d = ½ tr(J) I₃ − J` and the discrete Lagrangian
//! `L_d(R_k, F_k) = (1/h) tr((I₃ − F_k) J_d) − (h/2)(U(R_k) + U(R_k F_k))`, the discrete
//! Euler–Lagrange equations in left-trivialized form are
//!
//! ```text
//!   (h Π_k + (h²/2) M_k)^ = F_k J_d − J_d F_kᵀ          (implicit in F_k ∈ SO(3))
//!   R_{k+1} = R_k F_k
//!   Π_{k+1} = F_kᵀ (Π_k + (h/2) M_k) + (h/2) M_{k+1}
//! ```
//!
//! The first equation is solved on a 3-vector: with the Cayley parametrisation
//! `F = (I + f̂)(I − f̂)^{-1}` and `g = h Π_k + (h²/2) M_k` it is equivalent to
//!
//! ```text
//!   Φ(f) = g + g × f + (g·f) f − 2 J f = 0,      DΦ(f) = ĝ + (g·f) I₃ + f gᵀ − 2J,
//! ```
//!
//! solved by [`geom_core::newton::newton_split`] with this analytic Jacobian, from `f₀ = ½ J^{-1} g`
//! (the solution to first order in `h`). `F` is then orthogonal to round-off by construction
//! (`F = cay(2f)` in geom-core's convention `cay(x) = (I − x̂/2)^{-1}(I + x̂/2)`).
//!
//! The map `(R_k, Π_k) ↦ (R_{k+1}, Π_{k+1})` is symplectic on `T*SO(3)`, symmetric, of order 2,
//! and conserves the momentum map of every symmetry of `U` (the spatial momentum `RΠ` of the free
//! body; the vertical component `e₃·(RΠ)` of the heavy top). For the free body it conserves the
//! energy `½ Π·J^{-1}Π` exactly as well (Moser–Veselov).

use crate::hp::{KineticPotential, LieState, PotentialGradient, check_inertia};
use crate::models::{FreeRigidBody, HeavyTop};
use geom_core::lie::{So3, so3};
use geom_core::newton::{NewtonOptions, NewtonReport, newton_split};
use geom_core::step::{OneStep, check_step};
use geom_core::{GeomError, Result};
use nalgebra::{Matrix3, Vector3};

/// A rigid body for [`Lgvi`]: a constant inertia and the body moment of its potential.
///
/// Implemented for [`FreeRigidBody`] (`M = 0`), [`HeavyTop`] (`M = mgl Γ × χ`) and
/// [`KineticPotential`] on SO(3) with a [`PotentialGradient`] (`M = −dU`, e.g. the 3-D
/// pendulum); a user's body implements the two methods.
pub trait AttitudeDynamics: Send + Sync {
    /// The inertia `J` (symmetric positive definite, body frame).
    fn inertia(&self) -> Matrix3<f64>;
    /// The body moment `M(R) = −dU(R)`, `<dU, η> = d/dε U(R exp(εη̂))|_{ε=0}`.
    fn moment(&self, r: &Matrix3<f64>) -> Result<Vector3<f64>>;
}

impl AttitudeDynamics for FreeRigidBody {
    fn inertia(&self) -> Matrix3<f64> {
        *FreeRigidBody::inertia(self)
    }
    /// No potential: `M = 0`.
    #[inline]
    fn moment(&self, _: &Matrix3<f64>) -> Result<Vector3<f64>> {
        Ok(Vector3::zeros())
    }
}

impl AttitudeDynamics for HeavyTop {
    fn inertia(&self) -> Matrix3<f64> {
        *HeavyTop::inertia(self)
    }
    /// `M = mgl Γ × χ`, `Γ = Rᵀ e₃` ([`HeavyTop::torque`]).
    #[inline]
    fn moment(&self, r: &Matrix3<f64>) -> Result<Vector3<f64>> {
        Ok(self.torque(r))
    }
}

impl<P: PotentialGradient<f64, So3, 3>> AttitudeDynamics for KineticPotential<P, 3> {
    fn inertia(&self) -> Matrix3<f64> {
        *KineticPotential::inertia(self)
    }
    /// `M = −dU` from the potential's left-trivialized gradient.
    #[inline]
    fn moment(&self, r: &Matrix3<f64>) -> Result<Vector3<f64>> {
        Ok(-self.potential.left_gradient(&So3, r)?)
    }
}

impl<B: AttitudeDynamics + ?Sized> AttitudeDynamics for &B {
    fn inertia(&self) -> Matrix3<f64> {
        (**self).inertia()
    }
    fn moment(&self, r: &Matrix3<f64>) -> Result<Vector3<f64>> {
        (**self).moment(r)
    }
}

/// The Lee–Leok–McClamroch Lie group variational integrator on `T*SO(3)` (module docs): state
/// [`LieState`] `(R, Π)` with the body angular momentum `Π`, one 3-vector Newton solve per step.
///
/// ```
/// use geom_core::step::OneStep;
/// use integrators::hp::LieState;
/// use integrators::lgvi::Lgvi;
/// use integrators::models::FreeRigidBody;
/// use nalgebra::{Matrix3, Vector3};
///
/// let body = FreeRigidBody::principal(1.0, 2.0, 2.5)?;
/// let lgvi = Lgvi::new(body)?;
/// let mut s = LieState::new(Matrix3::identity(), Vector3::new(1.0, 0.6, -1.5));
/// let energy = |pi: &Vector3<f64>| 0.5 * pi.component_div(&Vector3::new(1.0, 2.0, 2.5)).dot(pi);
/// let (e0, m0) = (energy(&s.mu), s.g * s.mu);
/// for _ in 0..1000 {
///     lgvi.step(&mut s, 0.05)?;
/// }
/// assert!((energy(&s.mu) - e0).abs() < 1e-13); // Moser–Veselov: the energy is exact
/// assert!((s.g * s.mu - m0).norm() < 1e-13); // spatial angular momentum
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Lgvi<B> {
    body: B,
    inertia: Matrix3<f64>,
    half_inertia_inv: Matrix3<f64>,
    newton: NewtonOptions,
}

impl<B: AttitudeDynamics> Lgvi<B> {
    /// The integrator of `body`; [`GeomError::InvalidParameter`] if its inertia is not
    /// symmetric positive definite ([`GeomError::NonFinite`] if not finite). Newton:
    /// [`NewtonOptions::integrator`] on the residual `Φ(f)` divided by `|g|_∞`.
    pub fn new(body: B) -> Result<Self> {
        let inertia = body.inertia();
        let inverse = check_inertia(&inertia, "LGVI inertia")?;
        Ok(Self { body, inertia, half_inertia_inv: inverse * 0.5, newton: NewtonOptions::integrator() })
    }

    /// The same integrator with other Newton options (validated at every step).
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }

    /// The body.
    pub fn body(&self) -> &B {
        &self.body
    }

    /// The Newton options.
    pub fn newton_options(&self) -> &NewtonOptions {
        &self.newton
    }

    /// Solve `Φ(f) = 0` for the Cayley parameter `f` of `F_k` given `g = hΠ_k + (h²/2)M_k`
    /// (module docs); returns `f` and Newton's report.
    pub fn solve_relative_rotation(&self, g: &Vector3<f64>) -> Result<(Vector3<f64>, NewtonReport)> {
        let scale = g.amax();
        if scale == 0.0 {
            return Ok((
                Vector3::zeros(),
                NewtonReport {
                    iterations: 0,
                    residual: 0.0,
                    step: 0.0,
                    jacobian_updates: 0,
                    criterion: geom_core::newton::StopCriterion::Residual,
                },
            ));
        }
        let inv = 1.0 / scale;
        let j2 = self.inertia * 2.0;
        let ghat = so3::hat(g);
        newton_split(
            |f: &Vector3<f64>| Ok((g + g.cross(f) + f * g.dot(f) - j2 * f) * inv),
            |f: &Vector3<f64>| Ok((ghat + Matrix3::from_diagonal_element(g.dot(f)) + f * g.transpose() - j2) * inv),
            &(self.half_inertia_inv * g),
            &self.newton,
        )
    }

    /// One step from `state` without modifying it: the next state and Newton's report.
    /// Errors: [`GeomError::InvalidStep`] (`h` zero or not finite), [`GeomError::NonFinite`]
    /// (state or result), the body's moment errors, Newton's errors.
    pub fn try_step(
        &self,
        state: &LieState<Matrix3<f64>, 3>,
        h: f64,
    ) -> Result<(LieState<Matrix3<f64>, 3>, NewtonReport)> {
        check_step(h)?;
        let hh = 0.5 * h;
        let m0 = self.body.moment(&state.g)?;
        let kicked = state.mu + m0 * hh;
        let (f, report) = self.solve_relative_rotation(&(kicked * h))?;
        let rel = so3::cayley(&(f * 2.0));
        let g = state.g * rel;
        let m1 = self.body.moment(&g)?;
        let pi = rel.tr_mul(&kicked) + m1 * hh;
        let next = LieState { g, mu: pi };
        if !geom_core::error::all_finite(next.mu.as_slice()) || !geom_core::error::all_finite(next.g.as_slice()) {
            return Err(GeomError::NonFinite { what: "LGVI state" });
        }
        Ok((next, report))
    }
}

impl<B: AttitudeDynamics> OneStep<LieState<Matrix3<f64>, 3>> for Lgvi<B> {
    fn name(&self) -> String {
        "LGVI (Lee-Leok-McClamroch)".into()
    }
    fn order(&self) -> u32 {
        2
    }
    /// The discrete Lagrangian is self-adjoint (`L_d^*(R_k, F_k) = L_d(R_k F_k, F_k^{-1})`,
    /// trapezoidal potential, `tr(F J_d) = tr(Fᵀ J_d)`).
    fn is_symmetric(&self) -> bool {
        true
    }
    fn step(&self, state: &mut LieState<Matrix3<f64>, 3>, h: f64) -> Result<()> {
        let (next, _) = self.try_step(state, h)?;
        *state = next;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Cayley equation `Φ(f) = 0` is the matrix equation `ĝ = F J_d − J_d Fᵀ`.
    #[test]
    fn vector_equation_solves_the_matrix_equation() {
        let body = FreeRigidBody::new(Matrix3::new(1.2, 0.1, 0.0, 0.1, 2.0, 0.3, 0.0, 0.3, 2.7)).unwrap();
        let lgvi = Lgvi::new(body).unwrap();
        let g = Vector3::new(0.3, -0.2, 0.5);
        let (f, _) = lgvi.solve_relative_rotation(&g).unwrap();
        let big_f = so3::cayley(&(f * 2.0));
        let j = body.inertia();
        let jd = Matrix3::identity() * (0.5 * j.trace()) - j;
        let lhs = big_f * jd - jd * big_f.transpose();
        assert!((lhs - so3::hat(&g)).amax() < 1e-14, "{:e}", (lhs - so3::hat(&g)).amax());
        assert!((big_f.tr_mul(&big_f) - Matrix3::identity()).amax() < 1e-15);
    }

    /// The analytic Jacobian of `Φ` equals its finite-difference derivative.
    #[test]
    fn jacobian_matches_finite_differences() {
        let j = Matrix3::new(1.2, 0.1, 0.0, 0.1, 2.0, 0.3, 0.0, 0.3, 2.7);
        let g = Vector3::new(0.3, -0.2, 0.5);
        let phi = |f: &Vector3<f64>| g + g.cross(f) + f * g.dot(f) - j * f * 2.0;
        let f = Vector3::new(0.1, 0.05, -0.2);
        let jac = so3::hat(&g) + Matrix3::from_diagonal_element(g.dot(&f)) + f * g.transpose() - j * 2.0;
        for k in 0..3 {
            let e = Vector3::ith(k, 1e-6);
            let fd = (phi(&(f + e)) - phi(&(f - e))) / 2e-6;
            assert!((fd - jac.column(k)).amax() < 1e-9);
        }
    }

    #[test]
    fn bad_input_is_a_typed_error_and_leaves_the_state() {
        let lgvi = Lgvi::new(FreeRigidBody::principal(1.0, 2.0, 3.0).unwrap()).unwrap();
        let s0 = LieState::new(Matrix3::identity(), Vector3::new(1.0, 0.0, 0.0));
        for h in [0.0, f64::NAN, f64::INFINITY] {
            let mut s = s0;
            assert!(matches!(lgvi.step(&mut s, h), Err(GeomError::InvalidStep { .. })));
            assert_eq!(s, s0);
        }
        let mut s = LieState::new(Matrix3::identity(), Vector3::new(f64::NAN, 0.0, 0.0));
        assert!(lgvi.step(&mut s, 0.1).is_err());
        struct Bad(Matrix3<f64>);
        impl AttitudeDynamics for Bad {
            fn inertia(&self) -> Matrix3<f64> {
                self.0
            }
            fn moment(&self, _: &Matrix3<f64>) -> Result<Vector3<f64>> {
                Ok(Vector3::zeros())
            }
        }
        for j in [
            Matrix3::from_diagonal(&Vector3::new(1.0, -1.0, 1.0)),
            Matrix3::new(1.0, 2.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0),
        ] {
            assert!(matches!(Lgvi::new(Bad(j)), Err(GeomError::InvalidParameter { .. })));
        }
        assert!(matches!(Lgvi::new(Bad(Matrix3::identity() * f64::NAN)), Err(GeomError::NonFinite { .. })));
    }
}
