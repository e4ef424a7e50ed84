//! Tolerances, the options of the solver with their presets, and what a solve reports.

use crate::{GeomError, Result};

/// The round-off floor test accepts a stalled residual up to this factor times `residual_tol`
/// (module documentation).
pub const ROUNDOFF_FACTOR: f64 = 100.0;

/// Default of [`NewtonOptions::residual_tol`]: `|F(x)|_∞ <= 1e-12` (absolute).
pub const DEFAULT_RESIDUAL_TOL: f64 = 1e-12;
/// Default of [`NewtonOptions::step_tol`]: error estimate `<= 1e-12 (1 + |x|_∞)` (mixed
/// absolute/relative).
pub const DEFAULT_STEP_TOL: f64 = 1e-12;
/// Default of [`NewtonOptions::max_iterations`].
pub const DEFAULT_MAX_ITERATIONS: usize = 50;

/// Tolerance of [`NewtonOptions::integrator`]: residual and step estimate `<= 1e-14`, so that
/// quantities an implicit integrator conserves exactly hold to round-off.
pub const INTEGRATOR_TOL: f64 = 1e-14;

/// Residual tolerance of [`NewtonOptions::nonholonomic`] (its documentation says why it is
/// larger than [`INTEGRATOR_TOL`]).
pub const NONHOLONOMIC_RESIDUAL_TOL: f64 = 1e-12;

/// A frozen Jacobian ([`JacobianUpdate::Frozen`](super::JacobianUpdate::Frozen)) is re-evaluated after a step whose contraction
/// estimate `theta_k = |dx_k| / |dx_{k-1}|` exceeds this (each further step would gain less than
/// one bit).
pub const FROZEN_REFRESH_THETA: f64 = 0.5;

/// A polishing correction ([`NewtonOptions::polish`]) predicted below `POLISH_FLOOR · |x|_∞` is
/// skipped: half the machine epsilon, the half-ulp of the largest component, so that the skipped
/// correction would not have changed it. Measured (Kepler's implicit midpoint cotangent lift,
/// `e = 0.6`): at `h = 0.01` this skips the solve in most steps (a simplified Newton iteration
/// from the `O(h²)` guess ends with `|F| ≈ 5e-17`), which keeps the polished default within 3% of
/// the unpolished cost; at `h = 0.05` the angular momentum drifts `9e-14` over `10^5` steps
/// (`1.4e-14` polishing always, `2.4e-13` with a floor of `ε`, `7.5e-12` unpolished).
pub const POLISH_FLOOR: f64 = 0.5 * f64::EPSILON;

/// Label of the Jacobian in [`GeomError::SingularMatrix`] and [`GeomError::NonFinite`].
pub(super) const JACOBIAN: &str = "Newton Jacobian";

/// When the Jacobian is evaluated and factored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum JacobianUpdate {
    /// Full Newton: `J(x_k)` at every iterate (quadratic convergence).
    #[default]
    EveryIteration,
    /// Simplified Newton: `J(x_0)` is factored once and reused (linear convergence, rate
    /// `theta ~ |x_0 - x*|`), and re-evaluated at `x_{k+1}` after a step with
    /// `theta_k > FROZEN_REFRESH_THETA` (see [`FROZEN_REFRESH_THETA`](super::FROZEN_REFRESH_THETA)).
    /// [`newton_ad`](super::newton_ad) then evaluates the residual at `f64` only, which saves the `N`-fold cost of
    /// the dual evaluation; [`newton`](super::newton) and [`newton_dyn`](super::newton_dyn) save the factorizations.
    Frozen,
}

/// Tolerances and limits of Newton's method (see the [module documentation](crate::newton) for the exact
/// convergence tests).
///
/// `Default`: `residual_tol = 1e-12`, `step_tol = 1e-12`, `max_iterations = 50`, full Newton.
/// The residual tolerance is absolute: scale `F` so that `1e-12` is meaningful for it (or rely
/// on the step test, which is relative to `1 + |x|`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonOptions {
    /// Converged when `|F(x)|_∞ <= residual_tol` (absolute).
    pub residual_tol: f64,
    /// Converged when the contracting iteration's error estimate
    /// `max(1, theta/(1-theta)) |dx|_∞ <= step_tol (1 + |x|_∞)`.
    pub step_tol: f64,
    /// Maximum number of Newton steps (at least 1).
    pub max_iterations: usize,
    /// Full or simplified Newton.
    pub jacobian: JacobianUpdate,
    /// Final polishing: when the residual test accepts `x_k`, return `x_k − J^{-1} F(x_k)` with
    /// the Jacobian already factored (one solve, no further evaluation; when the warm start
    /// itself is accepted, the Jacobian at it is factored for this one correction), so that the
    /// solution carries no bias of the size of the tolerance: conserved quantities then hold to
    /// the rounding level of the equations over long runs. With a Jacobian carried over from an
    /// earlier solve ([`newton_blocks_carried`](super::newton_blocks_carried): the iteration converges linearly) an iterate
    /// accepted by the step test gets the same correction (one more residual). A correction that
    /// is not finite or a singular Jacobian leaves the accepted iterate. The correction is
    /// skipped when it is predicted below the rounding of `x_k` (size
    /// `|F(x_k)| |dx_{k-1}| / |F(x_{k-1})|` `<=` [`POLISH_FLOOR`] `|x_k|_∞`): a simplified Newton
    /// iteration that contracts fast ends there, and the solve would change nothing. Off by
    /// default.
    pub polish: bool,
}

impl Default for NewtonOptions {
    /// `residual_tol = 1e-12`, `step_tol = 1e-12`, `max_iterations = 50`, full Newton.
    ///
    /// ```
    /// let o = geom_core::newton::NewtonOptions::default();
    /// assert_eq!((o.residual_tol, o.step_tol, o.max_iterations), (1e-12, 1e-12, 50));
    /// ```
    fn default() -> Self {
        Self {
            residual_tol: DEFAULT_RESIDUAL_TOL,
            step_tol: DEFAULT_STEP_TOL,
            max_iterations: DEFAULT_MAX_ITERATIONS,
            jacobian: JacobianUpdate::EveryIteration,
            polish: false,
        }
    }
}

impl NewtonOptions {
    /// Options for full Newton; [`GeomError::InvalidParameter`] unless both tolerances are finite
    /// and positive and `max_iterations >= 1`.
    ///
    /// ```
    /// use geom_core::newton::{JacobianUpdate, NewtonOptions};
    /// let o = NewtonOptions::new(1e-10, 1e-12, 20)?.with_jacobian(JacobianUpdate::Frozen);
    /// assert_eq!(o.max_iterations, 20);
    /// assert!(NewtonOptions::new(0.0, 1e-12, 20).is_err());
    /// assert!(NewtonOptions::new(1e-10, f64::NAN, 20).is_err());
    /// assert!(NewtonOptions::new(1e-10, 1e-12, 0).is_err());
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn new(residual_tol: f64, step_tol: f64, max_iterations: usize) -> Result<Self> {
        let opts =
            Self { residual_tol, step_tol, max_iterations, jacobian: JacobianUpdate::EveryIteration, polish: false };
        opts.validate()?;
        Ok(opts)
    }

    /// The options every implicit integrator of the workspace uses by default: residual and
    /// step `<=` [`INTEGRATOR_TOL`] `= 1e-14`, 50 iterations, full Newton.
    ///
    /// ```
    /// let o = geom_core::newton::NewtonOptions::integrator();
    /// assert_eq!((o.residual_tol, o.step_tol, o.max_iterations), (1e-14, 1e-14, 50));
    /// ```
    pub fn integrator() -> Self {
        Self { residual_tol: INTEGRATOR_TOL, step_tol: INTEGRATOR_TOL, ..Self::default() }
    }

    /// The preset of the Lie-group integrators of a discretization map (the Lie-group cotangent
    /// lift and Lagrangian route): [`NewtonOptions::integrator`] with the Jacobian frozen at the
    /// first iterate ([`JacobianUpdate::Frozen`](super::JacobianUpdate::Frozen), refreshed when the contraction slows) and final
    /// polishing ([`NewtonOptions::polish`]). The Hessian blocks of `H` cost several dual passes
    /// through the group, and from the `O(h²)` initial guess the simplified iteration converges
    /// to the same tolerance in about as many iterations. It converges linearly, so the iterate
    /// the residual test accepts is still about the tolerance away from the root, with an error
    /// that repeats from step to step; the polishing correction (one solve with the factored
    /// Jacobian) removes it, and the conserved momenta hold to round-off over long runs instead
    /// of drifting like `steps × tolerance`. The same rule holds for every integrator of the
    /// workspace that solves by simplified Newton.
    ///
    /// ```
    /// use geom_core::newton::{JacobianUpdate, NewtonOptions};
    /// let o = NewtonOptions::lie_group();
    /// assert_eq!((o.jacobian, o.polish), (JacobianUpdate::Frozen, true));
    /// ```
    pub fn lie_group() -> Self {
        Self::simplified()
    }

    /// [`NewtonOptions::integrator`] as simplified Newton ([`JacobianUpdate::Frozen`](super::JacobianUpdate::Frozen)) with final
    /// polishing ([`NewtonOptions::polish`]): the preset of the implicit methods on `T*R^N` that
    /// freeze their Jacobian (the cotangent-lift integrators of a discretization map, the
    /// truncated Hamilton–Pontryagin stages). The same options as [`NewtonOptions::lie_group`].
    ///
    /// ```
    /// use geom_core::newton::{JacobianUpdate, NewtonOptions};
    /// let o = NewtonOptions::simplified();
    /// assert_eq!((o.jacobian, o.polish, o.residual_tol), (JacobianUpdate::Frozen, true, 1e-14));
    /// ```
    pub fn simplified() -> Self {
        Self::integrator().with_jacobian(JacobianUpdate::Frozen).with_polish(true)
    }

    /// The preset of the Lie–Poisson integrators (reduction of a Lie-group integrator to `g*`):
    /// [`NewtonOptions::lie_group`] with convergence in effect by the step test,
    /// `max(1, θ/(1-θ)) |Δξ| <= 1e-14 (1 + |ξ|)` (`residual_tol = 1e-18`, which leaves the
    /// round-off floor test for stalled iterations). A residual test at `1e-14` would stop the
    /// linearly converging simplified iteration as soon as `|F| <= 1e-14`, leaving an error of
    /// that size in every step (2.6e-10 after 1000 steps against the full-Newton unreduced
    /// flow); the step test, with the contraction factor `θ ~ 1e-2`, leaves `~1e-16`.
    /// Polishing (inherited from [`NewtonOptions::lie_group`]) then applies only to the rare
    /// residual acceptance at `1e-18`.
    pub fn lie_poisson() -> Self {
        Self { residual_tol: 1e-18, ..Self::lie_group() }
    }

    /// The preset of the groupoid flows (discrete Euler–Lagrange, constrained, time-dependent):
    /// [`NewtonOptions::integrator`] with final polishing ([`NewtonOptions::polish`]): the
    /// accepted iterate gets one more correction with the Jacobian already factored, so the
    /// solution carries no bias of the size of the tolerance and the flows' conserved
    /// quantities hold to round-off over long runs (the Moser–Veselov energy to 1e-13 over 2000
    /// steps instead of drifting to 4e-13).
    pub fn groupoid_flow() -> Self {
        Self::integrator().with_polish(true)
    }

    /// The preset of the nonholonomic flows: [`NewtonOptions::groupoid_flow`] with the residual
    /// tolerance [`NONHOLONOMIC_RESIDUAL_TOL`] `= 1e-12`. Arrows of a pair groupoid store
    /// absolute positions, `g = (x, x + ξ)`, so even the arrow nearest to the exact root has a
    /// discrete Lagrange–d'Alembert residual of order `m ε |x| / h` (`ε = 2.2e-16`): a sleigh 700
    /// units from the origin with `m = 1`, `h = 0.02` cannot get below `≈ 3e-12`. The step test
    /// stays at `1e-14`, and polishing brings the constraint and the conserved quantities to
    /// round-off.
    pub fn nonholonomic() -> Self {
        Self { residual_tol: NONHOLONOMIC_RESIDUAL_TOL, ..Self::groupoid_flow() }
    }

    /// These options for a residual that is a difference of momenta `Δq/h` (a discrete
    /// Euler–Lagrange or Legendre-transform residual at step `h`): its round-off floor grows like
    /// `ε |q| / |h|`, so an absolute tolerance of `1e-14` cannot be met for `|h| ≲ 1e-3`. The
    /// residual tolerance becomes `max(residual_tol, INTEGRATOR_TOL / |h|)` (the step test is
    /// unchanged); a non-finite or zero `h` leaves the options as they are (the step is refused
    /// before any solve).
    ///
    /// ```
    /// use geom_core::newton::NewtonOptions;
    /// let o = NewtonOptions::integrator().for_momentum_residual(1e-4);
    /// assert!((o.residual_tol - 1e-10).abs() < 1e-24 && o.step_tol == 1e-14);
    /// assert_eq!(NewtonOptions::integrator().for_momentum_residual(0.5).residual_tol, 2e-14);
    /// ```
    pub fn for_momentum_residual(self, h: f64) -> Self {
        if h.is_finite() && h != 0.0 {
            Self { residual_tol: self.residual_tol.max(INTEGRATOR_TOL / h.abs()), ..self }
        } else {
            self
        }
    }

    /// These options with the residual tolerance multiplied by `scale` (at least 1; a non-finite
    /// `scale` or one below 1 leaves them as they are): for equations whose round-off floor is
    /// `scale` times that of a well-conditioned point, e.g. the conditioning
    /// `κ(x) = ‖x‖ ‖x^{-1}‖` ([`crate::lie::LieGroupFamily::condition`]) of the base point of a pair
    /// groupoid `G × G`, whose arrows store both elements absolutely. The step test is unchanged.
    ///
    /// ```
    /// use geom_core::newton::NewtonOptions;
    /// let o = NewtonOptions::integrator().for_momentum_residual(0.05).with_residual_scale(1e3);
    /// assert!((o.residual_tol - 2e-10).abs() < 1e-24 && o.step_tol == 1e-14);
    /// assert_eq!(NewtonOptions::integrator().with_residual_scale(f64::INFINITY).residual_tol, 1e-14);
    /// assert_eq!(NewtonOptions::integrator().with_residual_scale(0.5).residual_tol, 1e-14);
    /// ```
    pub fn with_residual_scale(self, scale: f64) -> Self {
        if scale.is_finite() && scale > 1.0 { Self { residual_tol: self.residual_tol * scale, ..self } } else { self }
    }

    /// The same options with the Jacobian update policy `jacobian`.
    pub fn with_jacobian(self, jacobian: JacobianUpdate) -> Self {
        Self { jacobian, ..self }
    }

    /// The same options with final polishing on or off (see [`NewtonOptions::polish`]).
    pub fn with_polish(self, polish: bool) -> Self {
        Self { polish, ..self }
    }

    /// `Ok(())` if both tolerances are finite and positive and `max_iterations >= 1`, else
    /// [`GeomError::InvalidParameter`]. Every solver calls it (the fields are public).
    #[inline]
    pub fn validate(&self) -> Result<()> {
        // one branch on the hot path (every solve calls this); the errors are built out of line
        let ok = |v: f64| v.is_finite() && v > 0.0;
        if ok(self.residual_tol) && ok(self.step_tol) && self.max_iterations > 0 { Ok(()) } else { self.invalid() }
    }

    #[cold]
    #[inline(never)]
    fn invalid(&self) -> Result<()> {
        let tol = |what: &'static str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(GeomError::InvalidParameter { what, reason: format!("must be finite and positive, got {v}") })
            }
        };
        tol("residual_tol", self.residual_tol)?;
        tol("step_tol", self.step_tol)?;
        if self.max_iterations == 0 {
            return Err(GeomError::InvalidParameter { what: "max_iterations", reason: "must be at least 1".into() });
        }
        Ok(())
    }
}

/// What a successful Newton solve did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonReport {
    /// Newton steps taken (0 when `x_0` already satisfies the residual test).
    pub iterations: usize,
    /// `|F|_∞` at the last evaluated iterate: at the returned point for the residual test, at the
    /// point before the final step for the step test.
    pub residual: f64,
    /// `|dx|_∞` of the last step (0 if no step was taken).
    pub step: f64,
    /// Number of Jacobians evaluated and factored (equals `iterations` for full Newton, usually 1
    /// for [`JacobianUpdate::Frozen`](super::JacobianUpdate::Frozen)).
    pub jacobian_updates: usize,
    /// Which test of the [module documentation](crate::newton) accepted the returned point.
    pub criterion: StopCriterion,
}

/// The convergence test that ended a successful Newton solve (module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StopCriterion {
    /// `|F(x_k)| <= residual_tol` (also a warm start that needs no step).
    #[default]
    Residual,
    /// The contraction-checked step test `max(1, θ/(1−θ)) |dx| <= step_tol (1 + |x|)`.
    Step,
    /// The round-off floor: `|F|` stopped decreasing within `ROUNDOFF_FACTOR · residual_tol`.
    RoundoffFloor,
}
