//! Newton's method for `F(x) = 0`, `F: R^N -> R^N`: the one nonlinear solver every layer reuses
//! (implicit integrators, discrete Euler–Lagrange steps, Hamilton–Pontryagin RKMK stages).
//!
//! # Iteration
//!
//! From the warm start `x_0`, for `k = 0, 1, ...`
//!
//! ```text
//!     J(x_k) dx_k = -F(x_k),      x_{k+1} = x_k + dx_k,
//! ```
//!
//! with `J = DF` supplied by the caller ([`newton`], [`newton_dyn`]) or computed exactly by forward
//! AD ([`newton_ad`], `num_dual::jacobian` with `DualSVec64<N>`). The linear systems are solved by
//! LU with partial pivoting ([`crate::linalg::Lu`] for fixed `N`, nalgebra's LU for [`newton_dyn`]).
//! With [`JacobianUpdate::Frozen`] (simplified Newton) `J(x_0)` is factored once and reused, and
//! re-evaluated only after a step that contracts too slowly (`theta_k >` [`FROZEN_REFRESH_THETA`],
//! with `theta_k` defined below).
//!
//! # Presets
//!
//! One table of [`NewtonOptions`] presets serves every implicit method of the workspace:
//!
//! | preset | residual | step | Jacobian | polish | used by |
//! | --- | --- | --- | --- | --- | --- |
//! | [`NewtonOptions::default`] | `1e-12` | `1e-12` | every iteration | no | general solves |
//! | [`NewtonOptions::integrator`] | `1e-14` | `1e-14` | every iteration | no | implicit methods on `T*R^N`, Hamilton–Pontryagin |
//! | [`NewtonOptions::lie_group`] | `1e-14` | `1e-14` | frozen | no | Lie-group cotangent lift and Lagrangian route |
//! | [`NewtonOptions::lie_poisson`] | `1e-18` | `1e-14` | frozen | no | Lie–Poisson integrators |
//! | [`NewtonOptions::groupoid_flow`] | `1e-14` | `1e-14` | every iteration | yes | groupoid flows |
//! | [`NewtonOptions::nonholonomic`] | `1e-12` | `1e-14` | every iteration | yes | nonholonomic flows |
//!
//! # Convergence (norms are max-norms, `|v| = max_i |v_i|`)
//!
//! * **Residual test**, at every evaluated point including `x_0`: `|F(x_k)| <= residual_tol`.
//!   The returned point is `x_k` and `report.residual = |F(x_k)|`.
//! * **Step test**, after the step `dx_k` with `k >= 1`: with the contraction estimate
//!   `theta_k = |dx_k| / |dx_{k-1}|`, accept `x_{k+1}` if
//!
//!   ```text
//!       theta_k < 1   and   max(1, theta_k / (1 - theta_k)) |dx_k| <= step_tol (1 + |x_{k+1}|).
//!   ```
//!
//!   The returned point is `x_{k+1}`, which is not evaluated again: `report.residual` is
//!   `|F(x_k)|`, the residual at the point where the last step was computed.
//!
//! * **Round-off floor**, after the step `dx_k` with `k >= 1`: accept `x_{k+1}` if the residual
//!   has stopped decreasing near its tolerance,
//!
//!   ```text
//!       |F(x_k)| > |F(x_{k-1})| / 2   and   |F(x_k)| <= ROUNDOFF_FACTOR · residual_tol
//!   ```
//!
//!   ([`ROUNDOFF_FACTOR`] = 100). The residual then sits at its rounding floor `~ |terms| eps`,
//!   which exceeds an absolute `residual_tol` when the equations hold large terms (a RATTLE step
//!   has `q/h ≈ 200`), and the steps are that noise through `J^{-1}` (`theta_k ≈ 1`, so the step
//!   test cannot pass); without this test such solves ended in [`GeomError::NotConverged`] with
//!   residual `1.8e-14`.
//!
//! A small step alone is **not** convergence: a stale or wrong Jacobian (simplified Newton far
//! from the root, a user Jacobian off by a large factor) makes `|dx|` tiny while `F` stays large,
//! and a naive test `|dx| <= step_tol (1 + |x|)` would then stop at a point that is not a root. The
//! step test therefore also requires the iteration to contract, and bounds the remaining error by
//! the geometric-series estimate `|x_{k+1} - x*| <= theta_k / (1 - theta_k) |dx_k|` (Hairer &
//! Wanner, *Solving ODEs II*, IV.8), which is large when `theta_k` is close to 1. A single step
//! (`k = 0`) never passes the step test; the warm start `x_0 = x*` passes the residual test with
//! 0 iterations. The step test is what lets badly scaled problems converge, whose residual
//! cannot drop below `residual_tol` in floating point (`|F| ~ |J| eps |x|`).
//!
//! # Failures
//!
//! * [`GeomError::NotConverged`] after `max_iterations` steps, with `iterations = max_iterations`,
//!   the residual `|F(x_max)|` at the last iterate and the last step norm;
//! * [`GeomError::SingularMatrix`] `{ what: "Newton Jacobian", iteration: k }` when the LU finds
//!   a pivot `<= PIVOT_RTOL * max |J_ij|` ([`crate::linalg::PIVOT_RTOL`]) at iterate `k`;
//! * [`GeomError::NonFinite`] when `x_0`, `F(x_k)`, `J(x_k)` or `x_{k+1}` is not finite
//!   (`what` = `"Newton initial guess"`, `"Newton residual"`, `"Newton Jacobian"`,
//!   `"Newton iterate"`);
//! * [`GeomError::InvalidParameter`] for invalid [`NewtonOptions`];
//! * [`GeomError::DimensionMismatch`] in [`newton_dyn`] when `F` or `J` has the wrong size;
//! * any error returned by the residual itself, unchanged.
//!
//! The fixed-size solvers do not allocate: iterates, the Jacobian and its LU live on the stack.

use crate::error::check_finite;
use crate::linalg::{BlockLu, BlockMatrix, BlockVector, Lu, PIVOT_RTOL};
use crate::{GeomError, Result, Scalar};
use nalgebra::{DMatrix, DVector, Dyn, LU, SMatrix, SVector};
use num_dual::DualSVec64;

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

/// A frozen Jacobian ([`JacobianUpdate::Frozen`]) is re-evaluated after a step whose contraction
/// estimate `theta_k = |dx_k| / |dx_{k-1}|` exceeds this (each further step would gain less than
/// one bit).
pub const FROZEN_REFRESH_THETA: f64 = 0.5;

/// Label of the Jacobian in [`GeomError::SingularMatrix`] and [`GeomError::NonFinite`].
const JACOBIAN: &str = "Newton Jacobian";

/// When the Jacobian is evaluated and factored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum JacobianUpdate {
    /// Full Newton: `J(x_k)` at every iterate (quadratic convergence).
    #[default]
    EveryIteration,
    /// Simplified Newton: `J(x_0)` is factored once and reused (linear convergence, rate
    /// `theta ~ |x_0 - x*|`), and re-evaluated at `x_{k+1}` after a step with
    /// `theta_k > FROZEN_REFRESH_THETA` (see [`FROZEN_REFRESH_THETA`]).
    /// [`newton_ad`] then evaluates the residual at `f64` only, which saves the `N`-fold cost of
    /// the dual evaluation; [`newton`] and [`newton_dyn`] save the factorizations.
    Frozen,
}

/// Tolerances and limits of Newton's method (see the [module documentation](self) for the exact
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
    /// earlier solve ([`newton_blocks_carried`]: the iteration converges linearly) an iterate
    /// accepted by the step test gets the same correction (one more residual). A correction that
    /// is not finite or a singular Jacobian leaves the accepted iterate. Off by default.
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
    /// first iterate ([`JacobianUpdate::Frozen`], refreshed when the contraction slows). The
    /// Hessian blocks of `H` cost several dual passes through the group, and from the `O(h²)`
    /// initial guess the simplified iteration converges to the same tolerance in about as many
    /// iterations.
    ///
    /// ```
    /// use geom_core::newton::{JacobianUpdate, NewtonOptions};
    /// assert_eq!(NewtonOptions::lie_group().jacobian, JacobianUpdate::Frozen);
    /// ```
    pub fn lie_group() -> Self {
        Self::integrator().with_jacobian(JacobianUpdate::Frozen)
    }

    /// The preset of the Lie–Poisson integrators (reduction of a Lie-group integrator to `g*`):
    /// [`NewtonOptions::lie_group`] with convergence in effect by the step test,
    /// `max(1, θ/(1-θ)) |Δξ| <= 1e-14 (1 + |ξ|)` (`residual_tol = 1e-18`, which leaves the
    /// round-off floor test for stalled iterations). A residual test at `1e-14` would stop the
    /// linearly converging simplified iteration as soon as `|F| <= 1e-14`, leaving an error of
    /// that size in every step (2.6e-10 after 1000 steps against the full-Newton unreduced
    /// flow); the step test, with the contraction factor `θ ~ 1e-2`, leaves `~1e-16`.
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
    /// for [`JacobianUpdate::Frozen`]).
    pub jacobian_updates: usize,
    /// Which test of the [module documentation](self) accepted the returned point.
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

/// A residual `F: R^N -> R^N`, written once and generic over the scalar so that [`newton_ad`] can
/// differentiate it. Fallible: a residual that evaluates Lie-group maps (log, Cayley) returns
/// their errors, and [`newton_ad`] passes them on.
pub trait Residual<const N: usize> {
    /// `F(x)`.
    fn eval<S: Scalar>(&self, x: &SVector<S, N>) -> Result<SVector<S, N>>;
}

/// A reference to a residual is a residual.
impl<R: Residual<N> + ?Sized, const N: usize> Residual<N> for &R {
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, N>) -> Result<SVector<S, N>> {
        (**self).eval(x)
    }
}

/// `(F(x), DF(x))` with the Jacobian `DF[(i, j)] = ∂F_i/∂x_j` exact to round-off (one
/// `DualSVec64<N>` evaluation, `num_dual::jacobian`).
///
/// ```
/// use geom_core::newton::{ad_jacobian, Residual};
/// use geom_core::{Result, Scalar};
/// use nalgebra::SVector;
///
/// /// `F(x) = (x_0 x_1, sin x_0)`.
/// struct F;
/// impl Residual<2> for F {
///     fn eval<S: Scalar>(&self, x: &SVector<S, 2>) -> Result<SVector<S, 2>> {
///         Ok(SVector::from([x[0] * x[1], x[0].sin()]))
///     }
/// }
/// let (f, j) = ad_jacobian(&F, &SVector::from([2.0, 3.0]))?;
/// assert_eq!(f[0], 6.0);
/// assert_eq!((j[(0, 0)], j[(0, 1)], j[(1, 0)], j[(1, 1)]), (3.0, 2.0, 2.0f64.cos(), 0.0));
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[inline]
pub fn ad_jacobian<R: Residual<N> + ?Sized, const N: usize>(
    res: &R,
    x: &SVector<f64, N>,
) -> Result<(SVector<f64, N>, SMatrix<f64, N, N>)> {
    num_dual::jacobian(|xd: SVector<DualSVec64<N>, N>| res.eval(&xd), x)
}

/// Solve `F(x) = 0` by Newton's method from the warm start `x0`, with the caller's Jacobian:
/// `f(x)` returns `(F(x), J(x))`, `J[(i, j)] = ∂F_i/∂x_j`. Returns the root and a
/// [`NewtonReport`]; convergence tests and errors are stated in the [module documentation](self).
///
/// ```
/// use geom_core::newton::{newton, NewtonOptions};
/// use nalgebra::{SMatrix, SVector};
///
/// // x^2 + y^2 = 4, x y = 1
/// let f = |x: &SVector<f64, 2>| {
///     let fx = SVector::from([x[0] * x[0] + x[1] * x[1] - 4.0, x[0] * x[1] - 1.0]);
///     let j = SMatrix::<f64, 2, 2>::new(2.0 * x[0], 2.0 * x[1], x[1], x[0]);
///     Ok((fx, j))
/// };
/// let (x, report) = newton(f, &SVector::from([2.0, 0.5]), &NewtonOptions::default())?;
/// let xs = (2.0 + 3.0f64.sqrt()).sqrt();
/// assert!((x[0] - xs).abs() < 1e-14 && (x[1] - 1.0 / xs).abs() < 1e-14);
/// assert!(report.iterations <= 5);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[inline]
pub fn newton<const N: usize>(
    mut f: impl FnMut(&SVector<f64, N>) -> Result<(SVector<f64, N>, SMatrix<f64, N, N>)>,
    x0: &SVector<f64, N>,
    opts: &NewtonOptions,
) -> Result<(SVector<f64, N>, NewtonReport)> {
    newton_fixed(
        |x, jac| {
            let (fx, j) = f(x)?;
            if let Some(out) = jac {
                *out = j;
            }
            Ok(fx)
        },
        x0,
        opts,
    )
}

/// Solve `F(x) = 0` by Newton's method from `x0` with the exact Jacobian of `res` computed by
/// forward AD ([`ad_jacobian`]). With [`JacobianUpdate::Frozen`] the iterations that reuse the
/// Jacobian evaluate `res` at `f64` only. Convergence tests and errors as in [`newton`]; an error
/// of `res` is returned unchanged.
///
/// ```
/// use geom_core::newton::{newton_ad, NewtonOptions, Residual};
/// use geom_core::{Result, Scalar};
/// use nalgebra::SVector;
///
/// /// Kepler's equation `E - e sin E - M = 0` for `e = 0.5`, `M = 1`.
/// struct KeplerEquation;
/// impl Residual<1> for KeplerEquation {
///     fn eval<S: Scalar>(&self, x: &SVector<S, 1>) -> Result<SVector<S, 1>> {
///         Ok(SVector::from([x[0] - x[0].sin() * S::from(0.5) - S::from(1.0)]))
///     }
/// }
/// let (e, report) = newton_ad(&KeplerEquation, &SVector::from([1.0]), &NewtonOptions::default())?;
/// assert!((e[0] - 0.5 * e[0].sin() - 1.0).abs() <= 1e-12);
/// assert!(report.iterations <= 5);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[inline]
pub fn newton_ad<R: Residual<N> + ?Sized, const N: usize>(
    res: &R,
    x0: &SVector<f64, N>,
    opts: &NewtonOptions,
) -> Result<(SVector<f64, N>, NewtonReport)> {
    newton_fixed(
        |x, jac| match jac {
            Some(out) => {
                let (fx, j) = ad_jacobian(res, x)?;
                *out = j;
                Ok(fx)
            }
            None => res.eval::<f64>(x),
        },
        x0,
        opts,
    )
}

/// Solve `F(x) = 0` for `x ∈ R^n` with `n` known at run time: `f(x)` returns `(F(x), J(x))`,
/// with `F` of length `n` and `J` of size `n × n` (else [`GeomError::DimensionMismatch`]), where
/// `n = x0.len()`. Same iteration, tests and errors as [`newton`]; the linear systems use
/// nalgebra's LU (allocating), with the same relative pivot threshold as [`crate::linalg`].
///
/// ```
/// use geom_core::newton::{newton_dyn, NewtonOptions};
/// use nalgebra::{DMatrix, DVector};
///
/// let f = |x: &DVector<f64>| {
///     let fx = DVector::from_vec(vec![x[0] * x[0] + x[1] * x[1] - 4.0, x[0] * x[1] - 1.0]);
///     let j = DMatrix::from_row_slice(2, 2, &[2.0 * x[0], 2.0 * x[1], x[1], x[0]]);
///     Ok((fx, j))
/// };
/// let (x, _) = newton_dyn(f, &DVector::from_vec(vec![2.0, 0.5]), &NewtonOptions::default())?;
/// assert!((x[0] * x[1] - 1.0).abs() < 1e-12);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn newton_dyn(
    mut f: impl FnMut(&DVector<f64>) -> Result<(DVector<f64>, DMatrix<f64>)>,
    x0: &DVector<f64>,
    opts: &NewtonOptions,
) -> Result<(DVector<f64>, NewtonReport)> {
    opts.validate()?;
    check_finite(x0.iter(), "Newton initial guess")?;
    let n = x0.len();
    let mut x = x0.clone();
    let mut lu: Option<LU<f64, Dyn, Dyn>> = None;
    let mut monitor = Monitor::new(opts);
    let mut k = 0;
    loop {
        let (fx, j) = f(&x)?;
        check_dims(&fx, &j, n)?;
        check_finite(fx.iter(), "Newton residual")?;
        let r = fx.amax();
        if let Some(done) = monitor.residual_test(k, r) {
            return done.map(|report| (x, report));
        }
        if monitor.wants_jacobian(lu.is_none()) {
            lu = Some(factor_dyn(j, k)?);
            monitor.jacobian_updates += 1;
        }
        let dx = match lu.as_ref().and_then(|lu| lu.solve(&fx)) {
            Some(mut dx) => {
                dx.neg_mut();
                dx
            }
            None => return Err(GeomError::SingularMatrix { what: JACOBIAN, iteration: k }),
        };
        x += &dx;
        check_finite(x.iter(), "Newton iterate")?;
        k += 1;
        if let Some(report) = monitor.step_test(k, r, dx.amax(), x.amax()) {
            return Ok((x, report));
        }
    }
}

/// The fixed-size loop shared by [`newton`] and [`newton_ad`]. `eval(x, Some(jac))` returns
/// `F(x)` and writes `J(x)` into `jac`; `eval(x, None)` returns `F(x)` only.
#[inline]
fn newton_fixed<const N: usize>(
    eval: impl FnMut(&SVector<f64, N>, Option<&mut SMatrix<f64, N, N>>) -> Result<SVector<f64, N>>,
    x0: &SVector<f64, N>,
    opts: &NewtonOptions,
) -> Result<(SVector<f64, N>, NewtonReport)> {
    newton_loop::<Fixed<N>>(eval, None::<fn(&SVector<f64, N>, &mut SMatrix<f64, N, N>) -> Result<()>>, x0, opts)
}

/// Solve `F(x) = 0` by Newton's method from `x0` with the residual and the caller's Jacobian as
/// two functions: `residual(x) = F(x)`, `jacobian(x) = J(x)`, `J[(i, j)] = ∂F_i/∂x_j`. The same
/// iteration, tests and errors as [`newton`], but the Jacobian is evaluated only where a step
/// follows (not at the iterate that passes the residual test), which saves one Jacobian per
/// solve when it is not a by-product of the residual (closed forms; use [`newton`] or
/// [`newton_ad`] when both come from one pass).
///
/// ```
/// use geom_core::newton::{newton_split, NewtonOptions};
/// use nalgebra::{SMatrix, SVector};
///
/// // x^2 + y^2 = 4, x y = 1
/// let f = |x: &SVector<f64, 2>| Ok(SVector::from([x[0] * x[0] + x[1] * x[1] - 4.0, x[0] * x[1] - 1.0]));
/// let j = |x: &SVector<f64, 2>| Ok(SMatrix::<f64, 2, 2>::new(2.0 * x[0], 2.0 * x[1], x[1], x[0]));
/// let (x, report) = newton_split(f, j, &SVector::from([2.0, 0.5]), &NewtonOptions::default())?;
/// let xs = (2.0 + 3.0f64.sqrt()).sqrt();
/// assert!((x[0] - xs).abs() < 1e-14 && (x[1] - 1.0 / xs).abs() < 1e-14);
/// assert_eq!(report.jacobian_updates, report.iterations);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[inline]
pub fn newton_split<const N: usize>(
    mut residual: impl FnMut(&SVector<f64, N>) -> Result<SVector<f64, N>>,
    mut jacobian: impl FnMut(&SVector<f64, N>) -> Result<SMatrix<f64, N, N>>,
    x0: &SVector<f64, N>,
    opts: &NewtonOptions,
) -> Result<(SVector<f64, N>, NewtonReport)> {
    newton_loop::<Fixed<N>>(
        |x, _| residual(x),
        Some(|x: &SVector<f64, N>, out: &mut SMatrix<f64, N, N>| {
            *out = jacobian(x)?;
            Ok(())
        }),
        x0,
        opts,
    )
}

/// The linear algebra of one Newton iteration, so that the fixed-size and the block solvers run
/// one and the same loop.
trait Space {
    type Vec: Copy;
    type Jac: Copy;
    type Factor: Copy;
    /// Storage for a factorization (contents meaningless until [`Space::refactor`]).
    fn empty_factor() -> Self::Factor;
    fn zero_jac() -> Self::Jac;
    /// `(every entry finite, max |v_i|)` in one branch-free pass.
    fn scan(v: &Self::Vec) -> (bool, f64);
    /// Factor `j` into `lu`, in place (no copy of the factorization through a `Result`).
    fn refactor(lu: &mut Self::Factor, j: &Self::Jac) -> Result<()>;
    /// `dx = -J^{-1} F`.
    fn step(lu: &Self::Factor, fx: &Self::Vec) -> Self::Vec;
    fn add(x: &mut Self::Vec, dx: &Self::Vec);
}

struct Fixed<const N: usize>;
impl<const N: usize> Space for Fixed<N> {
    type Vec = SVector<f64, N>;
    type Jac = SMatrix<f64, N, N>;
    type Factor = Lu<f64, N>;
    #[inline]
    fn zero_jac() -> Self::Jac {
        SMatrix::zeros()
    }
    #[inline]
    fn scan(v: &Self::Vec) -> (bool, f64) {
        let (zero, max) = scan_slice(v.as_slice(), (0.0, 0.0));
        (zero == 0.0, max)
    }
    #[inline]
    fn empty_factor() -> Self::Factor {
        Lu::empty()
    }
    #[inline(always)]
    fn refactor(lu: &mut Self::Factor, j: &Self::Jac) -> Result<()> {
        lu.refactor(j, JACOBIAN)
    }
    #[inline]
    fn step(lu: &Self::Factor, fx: &Self::Vec) -> Self::Vec {
        -lu.solve(fx)
    }
    #[inline]
    fn add(x: &mut Self::Vec, dx: &Self::Vec) {
        *x += dx;
    }
}

struct Blocks<const N: usize, const B: usize>;
impl<const N: usize, const B: usize> Space for Blocks<N, B> {
    type Vec = BlockVector<f64, N, B>;
    type Jac = BlockMatrix<f64, N, B>;
    type Factor = BlockLu<f64, N, B>;
    #[inline]
    fn zero_jac() -> Self::Jac {
        [[SMatrix::zeros(); B]; B]
    }
    #[inline]
    fn scan(v: &Self::Vec) -> (bool, f64) {
        let (zero, max) = v.iter().fold((0.0, 0.0), |acc, b| scan_slice(b.as_slice(), acc));
        (zero == 0.0, max)
    }
    #[inline]
    fn empty_factor() -> Self::Factor {
        BlockLu::empty()
    }
    #[inline(always)]
    fn refactor(lu: &mut Self::Factor, j: &Self::Jac) -> Result<()> {
        lu.refactor(j, JACOBIAN)
    }
    #[inline]
    fn step(lu: &Self::Factor, fx: &Self::Vec) -> Self::Vec {
        let mut dx = lu.solve(fx);
        for b in dx.iter_mut() {
            *b = -*b;
        }
        dx
    }
    #[inline]
    fn add(x: &mut Self::Vec, dx: &Self::Vec) {
        for (a, b) in x.iter_mut().zip(dx) {
            *a += b;
        }
    }
}

/// Accumulate `(Σ 0·v_i, max |v_i|)` over `v` (the first is `0` iff every entry is finite).
#[inline(always)]
fn scan_slice(v: &[f64], (zero, max): (f64, f64)) -> (f64, f64) {
    v.iter().fold((zero, max), |(z, m), x| {
        let a = x.abs();
        (z + 0.0 * x, if a > m { a } else { m })
    })
}

/// The one Newton loop. `eval(x, Some(jac))` returns `F(x)` and writes `J(x)`; with a separate
/// `late_jacobian`, `eval` is always called without a Jacobian and `late_jacobian(x, jac)` only
/// after `x` has failed the residual test ([`newton_split`]).
#[inline]
fn newton_loop<Sp: Space>(
    eval: impl FnMut(&Sp::Vec, Option<&mut Sp::Jac>) -> Result<Sp::Vec>,
    late_jacobian: Option<impl FnMut(&Sp::Vec, &mut Sp::Jac) -> Result<()>>,
    x0: &Sp::Vec,
    opts: &NewtonOptions,
) -> Result<(Sp::Vec, NewtonReport)> {
    let mut factored = false;
    newton_loop_from::<Sp>(eval, late_jacobian, x0, opts, &mut Sp::empty_factor(), &mut factored)
}

/// [`newton_loop`] from the factorization `lu` when `factored` (a Jacobian carried over from an
/// earlier solve, used as a frozen one); on return `lu` and `factored` hold the last one.
/// Always inlined: every solver is this loop with its own `eval`, and the factorization and the
/// flag must live in registers and on the caller's stack, not behind the references.
#[inline(always)]
fn newton_loop_from<Sp: Space>(
    mut eval: impl FnMut(&Sp::Vec, Option<&mut Sp::Jac>) -> Result<Sp::Vec>,
    mut late_jacobian: Option<impl FnMut(&Sp::Vec, &mut Sp::Jac) -> Result<()>>,
    x0: &Sp::Vec,
    opts: &NewtonOptions,
    lu: &mut Sp::Factor,
    factored: &mut bool,
) -> Result<(Sp::Vec, NewtonReport)> {
    opts.validate()?;
    if !Sp::scan(x0).0 {
        return Err(GeomError::NonFinite { what: "Newton initial guess" });
    }
    let mut x = *x0;
    let mut jac = Sp::zero_jac();
    let mut monitor = Monitor::new(opts);
    let mut k = 0;
    loop {
        // No Jacobian at the last allowed evaluation: no step follows it.
        let want = k < opts.max_iterations && monitor.wants_jacobian(!*factored);
        let fx = eval(&x, if want && late_jacobian.is_none() { Some(&mut jac) } else { None })?;
        let (finite, r) = Sp::scan(&fx);
        if !finite {
            return Err(GeomError::NonFinite { what: "Newton residual" });
        }
        let accepted = match monitor.residual_test(k, r) {
            Some(done) => Some(done?),
            None => None,
        };
        // Accepted at the warm start with polishing on: factor the Jacobian at x (already
        // evaluated with the residual, or now by the separate Jacobian) for the one correction,
        // as a step would. One call site for the Jacobian and the factorization, so that both
        // inline into the caller.
        let polish_here = accepted.is_some() && opts.polish && !*factored && want;
        if want && (accepted.is_none() || polish_here) {
            let ready = match late_jacobian.as_mut() {
                Some(late) => late(&x, &mut jac),
                None => Ok(()),
            }
            .and_then(|()| Sp::refactor(lu, &jac));
            match ready {
                Ok(()) => {
                    *factored = true;
                    if accepted.is_none() {
                        monitor.jacobian_updates += 1;
                    }
                }
                // no polishing without a Jacobian: the accepted iterate stands
                Err(_) if accepted.is_some() => {}
                Err(e) => return Err(at_iteration(e, k)),
            }
        }
        if let Some(report) = accepted {
            if opts.polish && *factored {
                let dx = Sp::step(lu, &fx);
                let mut polished = x;
                Sp::add(&mut polished, &dx);
                if Sp::scan(&polished).0 {
                    return Ok((polished, report));
                }
            }
            return Ok((x, report));
        }
        // `want` holds whenever nothing is factored yet, so the error arm is never taken.
        if !*factored {
            return Err(GeomError::SingularMatrix { what: JACOBIAN, iteration: k });
        }
        let dx = Sp::step(lu, &fx);
        Sp::add(&mut x, &dx);
        let (finite, x_norm) = Sp::scan(&x);
        if !finite {
            return Err(GeomError::NonFinite { what: "Newton iterate" });
        }
        k += 1;
        if let Some(report) = monitor.step_test(k, r, Sp::scan(&dx).1, x_norm) {
            return Ok((x, report));
        }
    }
}

/// A residual on `B` blocks of size `N`, `F: (R^N)^B -> (R^N)^B`, generic over the scalar so
/// that [`newton_blocks_ad`] can differentiate it. This is the form of every implicit integrator
/// whose unknowns are several vectors (the stages of a Runge–Kutta method, the
/// `(q, p, q_1, p_1)` of a cotangent-lift step): `B·N` is not a const-generic size on stable Rust.
pub trait BlockResidual<const N: usize, const B: usize> {
    /// `F(x)`.
    fn eval<S: Scalar>(&self, x: &BlockVector<S, N, B>) -> Result<BlockVector<S, N, B>>;
}

impl<R: BlockResidual<N, B> + ?Sized, const N: usize, const B: usize> BlockResidual<N, B> for &R {
    #[inline]
    fn eval<S: Scalar>(&self, x: &BlockVector<S, N, B>) -> Result<BlockVector<S, N, B>> {
        (**self).eval(x)
    }
}

/// `(F(x), DF(x))` of a block residual with the exact Jacobian by forward AD: one
/// `DualSVec64<N>` evaluation per block column (`B` evaluations), see [`block_jacobian`].
#[inline]
pub fn ad_block_jacobian<R: BlockResidual<N, B> + ?Sized, const N: usize, const B: usize>(
    res: &R,
    x: &BlockVector<f64, N, B>,
) -> Result<(BlockVector<f64, N, B>, BlockMatrix<f64, N, B>)> {
    block_jacobian(x, |xd| res.eval(xd))
}

/// `(F(x), DF(x))` for a block function given at the dual type `DualSVec64<N>`: block column
/// `J` is read off one evaluation with block `J` seeded by the identity and the others constant.
/// Use it when the residual cannot be a [`BlockResidual`] (e.g. it evaluates a Lie group that is
/// only known to implement `LieGroup<DualSVec64<N>, D>`, not every scalar).
#[allow(clippy::needless_range_loop)] // `col` seeds one block of the input and fills one block column
#[inline]
pub fn block_jacobian<const N: usize, const B: usize>(
    x: &BlockVector<f64, N, B>,
    f: impl Fn(&BlockVector<DualSVec64<N>, N, B>) -> Result<BlockVector<DualSVec64<N>, N, B>>,
) -> Result<(BlockVector<f64, N, B>, BlockMatrix<f64, N, B>)> {
    let mut jac = [[SMatrix::<f64, N, N>::zeros(); B]; B];
    let mut value = [SVector::<f64, N>::zeros(); B];
    for col in 0..B {
        let xd: BlockVector<DualSVec64<N>, N, B> = core::array::from_fn(|b| {
            if b == col {
                SVector::from_fn(|i, _| {
                    let mut d = DualSVec64::<N>::from_re(x[b][i]);
                    d.eps = num_dual::Derivative::derivative_generic(nalgebra::Const::<N>, nalgebra::U1, i);
                    d
                })
            } else {
                x[b].map(DualSVec64::from_re)
            }
        });
        let fd = f(&xd)?;
        for (row, fr) in fd.iter().enumerate() {
            if col == 0 {
                value[row] = fr.map(|v| v.re);
            }
            for i in 0..N {
                let grad = fr[i].eps.unwrap_generic(nalgebra::Const::<N>, nalgebra::U1);
                for j in 0..N {
                    jac[row][col][(i, j)] = grad[j];
                }
            }
        }
    }
    Ok((value, jac))
}

/// Solve a block system `F(x) = 0`, `x ∈ (R^N)^B`, by Newton's method with the caller's block
/// Jacobian: `eval(x, Some(J))` returns `F(x)` and fills `J[I][J] = ∂F_I/∂x_J`; `eval(x, None)`
/// returns `F(x)` only. Same iteration, convergence tests and errors as [`newton`]; the block
/// Jacobian is factored by [`BlockLu`] on the stack (no allocation).
///
/// ```
/// use geom_core::newton::{newton_blocks, NewtonOptions};
/// use nalgebra::{SMatrix, SVector};
///
/// // two scalar blocks: x^2 + y^2 = 4, x y = 1
/// let f = |x: &[SVector<f64, 1>; 2], jac: Option<&mut [[SMatrix<f64, 1, 1>; 2]; 2]>| {
///     let (a, b) = (x[0][0], x[1][0]);
///     if let Some(j) = jac {
///         *j = [[SMatrix::from([[2.0 * a]]), SMatrix::from([[2.0 * b]])], [SMatrix::from([[b]]), SMatrix::from([[a]])]];
///     }
///     Ok([SVector::from([a * a + b * b - 4.0]), SVector::from([a * b - 1.0])])
/// };
/// let (x, _) = newton_blocks(f, &[SVector::from([2.0]), SVector::from([0.5])], &NewtonOptions::default())?;
/// assert!((x[0][0] * x[1][0] - 1.0).abs() < 1e-12);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[inline]
pub fn newton_blocks<const N: usize, const B: usize>(
    eval: impl FnMut(&BlockVector<f64, N, B>, Option<&mut BlockMatrix<f64, N, B>>) -> Result<BlockVector<f64, N, B>>,
    x0: &BlockVector<f64, N, B>,
    opts: &NewtonOptions,
) -> Result<(BlockVector<f64, N, B>, NewtonReport)> {
    newton_loop::<Blocks<N, B>>(
        eval,
        None::<fn(&BlockVector<f64, N, B>, &mut BlockMatrix<f64, N, B>) -> Result<()>>,
        x0,
        opts,
    )
}

/// A factored block Jacobian carried from one Newton solve into the next
/// ([`newton_blocks_carried`]): in a sequence of nearby solves (the steps of an integrator) a
/// simplified Newton iteration can start from the previous solve's Jacobian instead of
/// evaluating a new one, which is the expensive part when the Jacobian is a second derivative
/// by AD. Empty until a solve has factored one.
#[derive(Debug, Clone, Copy)]
pub struct CarriedJacobian<const N: usize, const B: usize> {
    lu: BlockLu<f64, N, B>,
    valid: bool,
}

impl<const N: usize, const B: usize> CarriedJacobian<N, B> {
    /// No factorization yet: the next solve evaluates a Jacobian.
    pub fn new() -> Self {
        Self { lu: BlockLu::empty(), valid: false }
    }
    /// Whether a factorization is carried.
    pub fn is_valid(&self) -> bool {
        self.valid
    }
    /// Drop the carried factorization (the next solve evaluates a Jacobian).
    pub fn invalidate(&mut self) {
        self.valid = false;
    }
}

impl<const N: usize, const B: usize> Default for CarriedJacobian<N, B> {
    fn default() -> Self {
        Self::new()
    }
}

/// [`newton_blocks`] starting from the Jacobian `carried` over from an earlier solve. With
/// [`JacobianUpdate::Frozen`] and a carried factorization, no Jacobian is evaluated until the
/// iteration contracts slowly (`θ >` [`FROZEN_REFRESH_THETA`], as in every frozen solve); with
/// [`JacobianUpdate::EveryIteration`] the carried one is not used. On success `carried` holds
/// the last factored Jacobian (for the next solve) and the report counts the Jacobians this
/// solve evaluated (0 if the carried one sufficed); on an error it is emptied. The root is the
/// same as that of [`newton_blocks`] (the residual is unchanged; the Jacobian only steers the
/// iteration), to the tolerances.
#[inline]
pub fn newton_blocks_carried<const N: usize, const B: usize>(
    eval: impl FnMut(&BlockVector<f64, N, B>, Option<&mut BlockMatrix<f64, N, B>>) -> Result<BlockVector<f64, N, B>>,
    x0: &BlockVector<f64, N, B>,
    opts: &NewtonOptions,
    carried: &mut CarriedJacobian<N, B>,
) -> Result<(BlockVector<f64, N, B>, NewtonReport)> {
    let mut eval = eval;
    let mut factored = carried.valid && opts.jacobian == JacobianUpdate::Frozen;
    carried.valid = false;
    let (x, report) = newton_loop_from::<Blocks<N, B>>(
        &mut eval,
        None::<fn(&BlockVector<f64, N, B>, &mut BlockMatrix<f64, N, B>) -> Result<()>>,
        x0,
        opts,
        &mut carried.lu,
        &mut factored,
    )?;
    carried.valid = factored;
    // With a carried Jacobian the iteration converges linearly, and the step test accepts an
    // iterate one contraction away from the root: polish it as the residual test's (one more
    // residual).
    if opts.polish
        && factored
        && report.jacobian_updates == 0
        && report.criterion == StopCriterion::Step
        && let Ok(f) = eval(&x, None)
    {
        let mut polished = x;
        Blocks::<N, B>::add(&mut polished, &Blocks::<N, B>::step(&carried.lu, &f));
        if Blocks::<N, B>::scan(&polished).0 {
            return Ok((polished, report));
        }
    }
    Ok((x, report))
}

/// [`newton_blocks`] with the exact block Jacobian of `res` by forward AD
/// ([`ad_block_jacobian`]); with [`JacobianUpdate::Frozen`] the reusing iterations evaluate `res`
/// at `f64` only.
#[inline]
pub fn newton_blocks_ad<R: BlockResidual<N, B> + ?Sized, const N: usize, const B: usize>(
    res: &R,
    x0: &BlockVector<f64, N, B>,
    opts: &NewtonOptions,
) -> Result<(BlockVector<f64, N, B>, NewtonReport)> {
    newton_blocks(
        |x, jac| match jac {
            Some(out) => {
                let (fx, j) = ad_block_jacobian(res, x)?;
                *out = j;
                Ok(fx)
            }
            None => res.eval::<f64>(x),
        },
        x0,
        opts,
    )
}

/// The convergence bookkeeping shared by the fixed-size and the dynamic loops, so that both apply
/// exactly the tests of the module documentation.
struct Monitor<'a> {
    opts: &'a NewtonOptions,
    /// `|dx_{k-1}|`, `None` before the first step.
    previous_step: Option<f64>,
    /// `|dx|` of the last step (0 before the first).
    step: f64,
    /// `|F(x_{k-1})|` at the previous step, `None` before the first.
    previous_residual: Option<f64>,
    /// Re-evaluate a frozen Jacobian (the last step contracted too slowly).
    refresh: bool,
    jacobian_updates: usize,
}

impl<'a> Monitor<'a> {
    fn new(opts: &'a NewtonOptions) -> Self {
        Self { opts, previous_step: None, step: 0.0, previous_residual: None, refresh: false, jacobian_updates: 0 }
    }

    /// Whether iterate `k` needs a new Jacobian (`none_yet`: nothing factored so far).
    #[inline]
    fn wants_jacobian(&self, none_yet: bool) -> bool {
        none_yet || self.refresh || self.opts.jacobian == JacobianUpdate::EveryIteration
    }

    /// At iterate `k` with `r = |F(x_k)|`: `Some(Ok)` if converged, `Some(Err(NotConverged))`
    /// if `k` is the last allowed iterate, `None` to take a step.
    #[inline]
    fn residual_test(&self, k: usize, r: f64) -> Option<Result<NewtonReport>> {
        if r <= self.opts.residual_tol {
            Some(Ok(self.report(k, r, StopCriterion::Residual)))
        } else if k >= self.opts.max_iterations {
            Some(Err(GeomError::NotConverged { iterations: k, residual: r, step: self.step }))
        } else {
            None
        }
    }

    /// After step `dx_{k-1}` (`k` steps done, `r = |F(x_{k-1})|`, `s = |dx_{k-1}|`,
    /// `x_norm = |x_k|`): `Some(report)` if the step test accepts `x_k`.
    #[inline]
    fn step_test(&mut self, k: usize, r: f64, s: f64, x_norm: f64) -> Option<NewtonReport> {
        self.step = s;
        // the round-off floor: F has stopped decreasing, near its tolerance
        let stalled = self.previous_residual.replace(r).is_some_and(|prev| r > 0.5 * prev);
        if stalled && r <= ROUNDOFF_FACTOR * self.opts.residual_tol {
            self.previous_step = Some(s);
            return Some(self.report(k, r, StopCriterion::RoundoffFloor));
        }
        let previous = self.previous_step.replace(s);
        let theta = match previous {
            None => return None,
            Some(_) if s == 0.0 => 0.0,
            Some(0.0) => f64::INFINITY,
            Some(prev) => s / prev,
        };
        self.refresh = theta > FROZEN_REFRESH_THETA;
        let estimate = s * (theta / (1.0 - theta)).max(1.0);
        (theta < 1.0 && estimate <= self.opts.step_tol * (1.0 + x_norm)).then(|| self.report(k, r, StopCriterion::Step))
    }

    fn report(&self, iterations: usize, residual: f64, criterion: StopCriterion) -> NewtonReport {
        NewtonReport { iterations, residual, step: self.step, jacobian_updates: self.jacobian_updates, criterion }
    }
}

/// Put the Newton iteration into a [`GeomError::SingularMatrix`] from the LU.
fn at_iteration(e: GeomError, iteration: usize) -> GeomError {
    match e {
        GeomError::SingularMatrix { what, .. } => GeomError::SingularMatrix { what, iteration },
        other => other,
    }
}

fn check_dims(fx: &DVector<f64>, j: &DMatrix<f64>, n: usize) -> Result<()> {
    let mismatch = |what, got| Err(GeomError::DimensionMismatch { what, expected: n, got });
    if fx.len() != n {
        mismatch("Newton residual", fx.len())
    } else if j.nrows() != n {
        mismatch("Newton Jacobian rows", j.nrows())
    } else if j.ncols() != n {
        mismatch("Newton Jacobian columns", j.ncols())
    } else {
        Ok(())
    }
}

/// nalgebra's LU of `j`, with the singularity test of [`Lu::factor`]: a pivot
/// `<= PIVOT_RTOL * max |J_ij|` (or an all-zero `J`) is singular.
fn factor_dyn(j: DMatrix<f64>, iteration: usize) -> Result<LU<f64, Dyn, Dyn>> {
    check_finite(j.iter(), JACOBIAN)?;
    let scale = j.amax();
    let lu = j.lu();
    let singular = lu.u().diagonal().iter().any(|d| d.abs() <= PIVOT_RTOL * scale);
    if singular && !lu.u().is_empty() { Err(GeomError::SingularMatrix { what: JACOBIAN, iteration }) } else { Ok(lu) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_residual_stalled_at_its_rounding_floor_is_converged() {
        // F(x) = 300 x - 100: at the double nearest 1/3, F is ±1.4e-14 by rounding alone, above
        // the integrator tolerance 1e-14, and every further step is an ulp
        let f = |x: &SVector<f64, 1>| Ok((SVector::from([300.0 * x[0] - 100.0]), SMatrix::<f64, 1, 1>::new(300.0)));
        let (x, report) = newton(f, &SVector::from([0.3]), &NewtonOptions::integrator()).unwrap();
        assert!((x[0] - 1.0 / 3.0).abs() <= 2.0 * f64::EPSILON, "{report:?}");
        // a residual far above its tolerance is not accepted on a tiny step: a Jacobian 1e20 too
        // large makes every step tiny, and the solve must fail rather than stop
        let stale = |x: &SVector<f64, 1>| Ok((SVector::from([x[0] - 1.0]), SMatrix::<f64, 1, 1>::new(1e20)));
        assert!(matches!(
            newton(stale, &SVector::from([0.0]), &NewtonOptions::integrator()),
            Err(GeomError::NotConverged { .. })
        ));
    }
    use nalgebra::{Matrix1, Matrix2, Vector1, Vector2};

    #[test]
    fn the_report_names_the_test_that_stopped_the_solve() {
        let f = |x: &SVector<f64, 2>| Ok(circle_hyperbola(x));
        // the root itself: the residual test at x_0, no step
        let (_, at_root) = newton(f, &circle_hyperbola_root(), &NewtonOptions::default()).unwrap();
        assert_eq!((at_root.iterations, at_root.criterion), (0, StopCriterion::Residual));
        // a residual tolerance that cannot be met: the contraction-checked step test
        let opts = NewtonOptions { residual_tol: 1e-300, ..NewtonOptions::default() };
        let (x, by_step) = newton(f, &Vector2::new(2.0, 0.5), &opts).unwrap();
        assert_eq!(by_step.criterion, StopCriterion::Step, "{by_step:?}");
        assert!((x - circle_hyperbola_root()).amax() < 1e-14);
        // a residual whose rounding noise (±5e-14 here, alternating) stays above its tolerance
        // 1e-14: the round-off floor
        let calls = core::cell::Cell::new(0u32);
        let noisy = |x: &SVector<f64, 1>| {
            calls.set(calls.get() + 1);
            let noise = if calls.get().is_multiple_of(2) { 5e-14 } else { -5e-14 };
            Ok((SVector::from([x[0] - 1.0 + noise]), SMatrix::<f64, 1, 1>::new(1.0)))
        };
        let (x, floor) = newton(noisy, &SVector::from([3.0]), &NewtonOptions::integrator()).unwrap();
        assert_eq!(floor.criterion, StopCriterion::RoundoffFloor, "{floor:?}");
        assert!((x[0] - 1.0).abs() < 1e-12);
    }

    /// `F(x, y) = (x² + y² - 4, x y - 1)`.
    fn circle_hyperbola(x: &Vector2<f64>) -> (Vector2<f64>, Matrix2<f64>) {
        let f = Vector2::new(x[0] * x[0] + x[1] * x[1] - 4.0, x[0] * x[1] - 1.0);
        let j = Matrix2::new(2.0 * x[0], 2.0 * x[1], x[1], x[0]);
        (f, j)
    }

    /// The root near `(2, 0.5)`: `x² = 2 + √3`, `y = 1/x`.
    fn circle_hyperbola_root() -> Vector2<f64> {
        let x = (2.0 + 3.0f64.sqrt()).sqrt();
        Vector2::new(x, 1.0 / x)
    }

    /// The same system, generic over the scalar, for AD.
    struct CircleHyperbola;
    impl Residual<2> for CircleHyperbola {
        #[inline]
        fn eval<S: Scalar>(&self, x: &SVector<S, 2>) -> Result<SVector<S, 2>> {
            Ok(SVector::from([x[0] * x[0] + x[1] * x[1] - S::from(4.0), x[0] * x[1] - S::from(1.0)]))
        }
    }

    fn to_dyn(
        f: impl Fn(&Vector2<f64>) -> (Vector2<f64>, Matrix2<f64>),
    ) -> impl FnMut(&DVector<f64>) -> Result<(DVector<f64>, DMatrix<f64>)> {
        move |x: &DVector<f64>| {
            let (fx, j) = f(&Vector2::new(x[0], x[1]));
            Ok((DVector::from_column_slice(fx.as_slice()), DMatrix::from_column_slice(2, 2, j.as_slice())))
        }
    }

    #[test]
    fn quadratic_convergence_on_2x2_system() {
        let root = circle_hyperbola_root();
        let mut iterates = Vec::new();
        let (x, report) = newton(
            |x| {
                iterates.push(*x);
                Ok(circle_hyperbola(x))
            },
            &Vector2::new(2.0, 0.5),
            &NewtonOptions::default(),
        )
        .unwrap();
        assert!((x - root).amax() < 1e-15, "{x} vs {root}");
        assert!(report.iterations <= 6, "{report:?}");
        // converged by the residual test, or by the step test one step after a residual ~1e-12
        assert!(report.residual <= 1e-10, "{report:?}");
        assert_eq!(report.jacobian_updates, report.iterations);
        // quadratic: e_{k+1} <= C e_k^2 while above round-off
        let errors: Vec<f64> = iterates.iter().map(|xk| (xk - root).amax()).collect();
        let mut checked = 0;
        for w in errors.windows(2) {
            if w[0] > 1e-7 {
                assert!(w[1] <= 2.0 * w[0] * w[0], "not quadratic: {errors:?}");
                checked += 1;
            }
        }
        assert!(checked >= 2, "{errors:?}");
    }

    #[test]
    fn scalar_root() {
        let f = |x: &Vector1<f64>| Ok((Vector1::new(x[0] * x[0] - 2.0), Matrix1::new(2.0 * x[0])));
        let (x, report) = newton(f, &Vector1::new(1.0), &NewtonOptions::default()).unwrap();
        assert!((x[0] - 2.0f64.sqrt()).abs() <= 2.0 * f64::EPSILON);
        assert!(report.iterations <= 6);
        // cos x = x through AD
        struct Dottie;
        impl Residual<1> for Dottie {
            #[inline]
            fn eval<S: Scalar>(&self, x: &SVector<S, 1>) -> Result<SVector<S, 1>> {
                Ok(SVector::from([x[0].cos() - x[0]]))
            }
        }
        let (x, _) = newton_ad(&Dottie, &Vector1::new(1.0), &NewtonOptions::default()).unwrap();
        assert!((x[0] - 0.739_085_133_215_160_6).abs() < 1e-15);
    }

    #[test]
    fn warm_start_converges_in_zero_or_one_iteration() {
        let root = circle_hyperbola_root();
        let f = |x: &Vector2<f64>| Ok(circle_hyperbola(x));
        let (x, report) = newton(f, &root, &NewtonOptions::default()).unwrap();
        assert_eq!(report.iterations, 0);
        assert_eq!(report.jacobian_updates, 0);
        assert_eq!(report.step, 0.0);
        assert_eq!(x, root);
        let near = root + Vector2::new(1e-9, -2e-9);
        let (x, report) = newton(f, &near, &NewtonOptions::default()).unwrap();
        assert_eq!(report.iterations, 1, "{report:?}");
        assert!((x - root).amax() < 1e-15);
    }

    #[test]
    fn not_converged_reports_iterations_residual_and_step() {
        let f = |x: &Vector1<f64>| Ok((Vector1::new(x[0] * x[0] - 2.0), Matrix1::new(2.0 * x[0])));
        for max_iterations in [1, 2, 3] {
            let opts = NewtonOptions::new(1e-12, 1e-12, max_iterations).unwrap();
            // hand-run Newton from 10
            let mut xs = vec![10.0f64];
            for _ in 0..max_iterations {
                let x = *xs.last().unwrap();
                xs.push(x - (x * x - 2.0) / (2.0 * x));
            }
            let last = xs[max_iterations];
            match newton(f, &Vector1::new(10.0), &opts) {
                Err(GeomError::NotConverged { iterations, residual, step }) => {
                    assert_eq!(iterations, max_iterations);
                    assert!((residual - (last * last - 2.0).abs()).abs() < 1e-12);
                    assert!((step - (last - xs[max_iterations - 1]).abs()).abs() < 1e-12);
                }
                other => panic!("expected NotConverged, got {other:?}"),
            }
        }
        // and with enough iterations it converges
        assert!(newton(f, &Vector1::new(10.0), &NewtonOptions::default()).is_ok());
    }

    #[test]
    fn tiny_step_with_large_residual_is_not_convergence() {
        // F(x) = x - 1 with a Jacobian that is wrong by 1e15: every step is ~1e-15 (a naive
        // `|dx| <= step_tol (1 + |x|)` test would stop at x ≈ 0 with F ≈ -1), theta ≈ 1.
        let f = |x: &Vector1<f64>| Ok((Vector1::new(x[0] - 1.0), Matrix1::new(1e15)));
        match newton(f, &Vector1::new(0.0), &NewtonOptions::default()) {
            Err(GeomError::NotConverged { iterations, residual, step }) => {
                assert_eq!(iterations, 50);
                assert!(residual > 0.99);
                assert!(step < 1e-14);
            }
            other => panic!("expected NotConverged, got {other:?}"),
        }
    }

    #[test]
    fn badly_scaled_problem_converges_by_the_step_test() {
        // F = 1e20 (x² - 2): the residual at the root is ~1e20 eps, far above residual_tol.
        let f = |x: &Vector1<f64>| Ok((Vector1::new(1e20 * (x[0] * x[0] - 2.0)), Matrix1::new(2e20 * x[0])));
        let (x, report) = newton(f, &Vector1::new(1.0), &NewtonOptions::default()).unwrap();
        assert!((x[0] - 2.0f64.sqrt()).abs() <= 2.0 * f64::EPSILON, "{x}");
        assert!(report.residual > 1e-12, "{report:?}");
        assert!(report.iterations <= 8, "{report:?}");
    }

    #[test]
    fn singular_jacobian() {
        // F(x) = x² + 1 at x = 0: J = 0.
        let f = |x: &Vector1<f64>| Ok((Vector1::new(x[0] * x[0] + 1.0), Matrix1::new(2.0 * x[0])));
        assert_eq!(
            newton(f, &Vector1::new(0.0), &NewtonOptions::default()).unwrap_err(),
            GeomError::SingularMatrix { what: "Newton Jacobian", iteration: 0 }
        );
        // a singular Jacobian at the second iterate carries iteration 1
        let mut calls = 0;
        let g = |x: &Vector1<f64>| {
            calls += 1;
            let j = if calls == 2 { 0.0 } else { 2.0 * x[0] };
            Ok((Vector1::new(x[0] * x[0] - 2.0), Matrix1::new(j)))
        };
        assert_eq!(
            newton(g, &Vector1::new(1.0), &NewtonOptions::default()).unwrap_err(),
            GeomError::SingularMatrix { what: "Newton Jacobian", iteration: 1 }
        );
        // rank-deficient 2×2
        let h = |x: &Vector2<f64>| {
            Ok((Vector2::new(x[0] + x[1] - 1.0, 2.0 * (x[0] + x[1]) + 3.0), Matrix2::new(1.0, 1.0, 2.0, 2.0)))
        };
        assert!(matches!(
            newton(h, &Vector2::zeros(), &NewtonOptions::default()),
            Err(GeomError::SingularMatrix { iteration: 0, .. })
        ));
    }

    #[test]
    fn non_finite() {
        let opts = NewtonOptions::default();
        let f = |x: &Vector1<f64>| Ok((Vector1::new(x[0] * x[0] - 2.0), Matrix1::new(2.0 * x[0])));
        assert_eq!(
            newton(f, &Vector1::new(f64::NAN), &opts).unwrap_err(),
            GeomError::NonFinite { what: "Newton initial guess" }
        );
        // F(x) = √x - 1 from 10: x_1 = 2√10 - 10 < 0, F(x_1) = NaN
        let g = |x: &Vector1<f64>| Ok((Vector1::new(x[0].sqrt() - 1.0), Matrix1::new(0.5 / x[0].sqrt())));
        assert_eq!(
            newton(g, &Vector1::new(10.0), &opts).unwrap_err(),
            GeomError::NonFinite { what: "Newton residual" }
        );
        let h = |_: &Vector1<f64>| Ok((Vector1::new(1.0), Matrix1::new(f64::INFINITY)));
        assert_eq!(newton(h, &Vector1::new(1.0), &opts).unwrap_err(), GeomError::NonFinite { what: "Newton Jacobian" });
        // overflow of the iterate: F = 1, J = 1e-300 (relatively well conditioned in 1D)
        let o = |_: &Vector1<f64>| Ok((Vector1::new(1e10), Matrix1::new(1e-300)));
        assert_eq!(newton(o, &Vector1::new(0.0), &opts).unwrap_err(), GeomError::NonFinite { what: "Newton iterate" });
        // dynamic
        let gd = |x: &DVector<f64>| Ok((x.map(|v| v.sqrt() - 1.0), DMatrix::from_element(1, 1, 0.5 / x[0].sqrt())));
        assert_eq!(
            newton_dyn(gd, &DVector::from_element(1, 10.0), &opts).unwrap_err(),
            GeomError::NonFinite { what: "Newton residual" }
        );
    }

    #[test]
    fn residual_errors_pass_through() {
        struct Failing;
        impl Residual<1> for Failing {
            #[inline]
            fn eval<S: Scalar>(&self, x: &SVector<S, 1>) -> Result<SVector<S, 1>> {
                if x[0].re() > 0.5 {
                    Err(GeomError::OutsideDomain { map: "log", reason: "test" })
                } else {
                    Ok(SVector::from([x[0] - S::from(1.0)]))
                }
            }
        }
        assert_eq!(
            newton_ad(&Failing, &Vector1::new(0.0), &NewtonOptions::default()).unwrap_err(),
            GeomError::OutsideDomain { map: "log", reason: "test" }
        );
    }

    #[test]
    fn invalid_options() {
        for (r, s, m) in [
            (0.0, 1e-12, 10),
            (-1e-12, 1e-12, 10),
            (f64::NAN, 1e-12, 10),
            (f64::INFINITY, 1e-12, 10),
            (1e-12, 0.0, 10),
            (1e-12, f64::NAN, 10),
            (1e-12, -1.0, 10),
            (1e-12, 1e-12, 0),
        ] {
            assert!(matches!(NewtonOptions::new(r, s, m), Err(GeomError::InvalidParameter { .. })), "{r} {s} {m}");
        }
        assert_eq!(NewtonOptions::new(1e-12, 1e-12, 50).unwrap(), NewtonOptions::default());
        // solvers validate options built by hand
        let bad = NewtonOptions { max_iterations: 0, ..NewtonOptions::default() };
        let f = |x: &Vector1<f64>| Ok((*x, Matrix1::identity()));
        assert!(matches!(
            newton(f, &Vector1::new(1.0), &bad),
            Err(GeomError::InvalidParameter { what: "max_iterations", .. })
        ));
        let bad = NewtonOptions { residual_tol: f64::NAN, ..NewtonOptions::default() };
        assert!(matches!(
            newton_ad(&CircleHyperbola, &Vector2::new(2.0, 0.5), &bad),
            Err(GeomError::InvalidParameter { what: "residual_tol", .. })
        ));
        assert!(matches!(
            newton_dyn(to_dyn(circle_hyperbola), &DVector::from_element(2, 1.0), &bad),
            Err(GeomError::InvalidParameter { .. })
        ));
    }

    #[test]
    fn dynamic_matches_fixed() {
        let opts = NewtonOptions::default();
        let x0 = Vector2::new(2.0, 0.5);
        let (xf, rf) = newton(|x| Ok(circle_hyperbola(x)), &x0, &opts).unwrap();
        let (xd, rd) = newton_dyn(to_dyn(circle_hyperbola), &DVector::from_column_slice(x0.as_slice()), &opts).unwrap();
        assert_eq!(rf.iterations, rd.iterations);
        assert!((xd[0] - xf[0]).abs() + (xd[1] - xf[1]).abs() < 1e-15);
        // simplified Newton too
        let frozen = opts.with_jacobian(JacobianUpdate::Frozen);
        let (xf, rf) = newton(|x| Ok(circle_hyperbola(x)), &x0, &frozen).unwrap();
        let (xd, rd) =
            newton_dyn(to_dyn(circle_hyperbola), &DVector::from_column_slice(x0.as_slice()), &frozen).unwrap();
        assert_eq!((rf.iterations, rf.jacobian_updates), (rd.iterations, rd.jacobian_updates));
        assert!((xd[0] - xf[0]).abs() + (xd[1] - xf[1]).abs() < 1e-14);
    }

    #[test]
    fn dynamic_dimension_checks_and_singularity() {
        let opts = NewtonOptions::default();
        let x0 = DVector::from_element(2, 1.0);
        let short_f = |_: &DVector<f64>| Ok((DVector::from_element(1, 1.0), DMatrix::identity(2, 2)));
        assert_eq!(
            newton_dyn(short_f, &x0, &opts).unwrap_err(),
            GeomError::DimensionMismatch { what: "Newton residual", expected: 2, got: 1 }
        );
        let rows = |_: &DVector<f64>| Ok((DVector::from_element(2, 1.0), DMatrix::identity(3, 2)));
        assert_eq!(
            newton_dyn(rows, &x0, &opts).unwrap_err(),
            GeomError::DimensionMismatch { what: "Newton Jacobian rows", expected: 2, got: 3 }
        );
        let cols = |_: &DVector<f64>| Ok((DVector::from_element(2, 1.0), DMatrix::identity(2, 1)));
        assert_eq!(
            newton_dyn(cols, &x0, &opts).unwrap_err(),
            GeomError::DimensionMismatch { what: "Newton Jacobian columns", expected: 2, got: 1 }
        );
        let singular = |x: &DVector<f64>| Ok((x.map(|v| v * v + 1.0), DMatrix::from_diagonal(&x.map(|v| 2.0 * v))));
        assert_eq!(
            newton_dyn(singular, &DVector::zeros(2), &opts).unwrap_err(),
            GeomError::SingularMatrix { what: "Newton Jacobian", iteration: 0 }
        );
        let rank1 = |x: &DVector<f64>| Ok((x.add_scalar(1.0), DMatrix::from_element(2, 2, 1.0)));
        assert!(matches!(newton_dyn(rank1, &x0, &opts), Err(GeomError::SingularMatrix { .. })));
        // empty system: trivially solved
        let empty = |_: &DVector<f64>| Ok((DVector::zeros(0), DMatrix::zeros(0, 0)));
        assert_eq!(newton_dyn(empty, &DVector::zeros(0), &opts).unwrap().1.iterations, 0);
        // not converged
        let f = to_dyn(circle_hyperbola);
        let few = NewtonOptions::new(1e-12, 1e-12, 2).unwrap();
        let far = DVector::from_vec(vec![3.0, 0.1]);
        assert!(matches!(newton_dyn(f, &far, &few), Err(GeomError::NotConverged { iterations: 2, .. })));
    }

    #[test]
    fn ad_jacobian_matches_user_jacobian() {
        for x in [Vector2::new(2.0, 0.5), Vector2::new(-1.3, 0.7), Vector2::new(0.1, -4.0)] {
            let (f, j) = circle_hyperbola(&x);
            let (fa, ja) = ad_jacobian(&CircleHyperbola, &x).unwrap();
            assert_eq!(f, fa);
            assert!((j - ja).amax() < 1e-15);
        }
        // a non-polynomial residual against central differences
        struct Trig;
        impl Residual<2> for Trig {
            #[inline]
            fn eval<S: Scalar>(&self, x: &SVector<S, 2>) -> Result<SVector<S, 2>> {
                Ok(SVector::from([x[0].sin() * x[1].exp(), (x[0] * x[1]).atan()]))
            }
        }
        let x = Vector2::new(0.4, -0.8);
        let (_, ja) = ad_jacobian(&Trig, &x).unwrap();
        let h = 1e-6;
        for c in 0..2 {
            let mut e = Vector2::zeros();
            e[c] = h;
            let d = (Trig.eval(&(x + e)).unwrap() - Trig.eval(&(x - e)).unwrap()) / (2.0 * h);
            assert!((d - ja.column(c)).amax() < 1e-9);
        }
        // the AD solver follows the same iterates as the user-Jacobian one
        let opts = NewtonOptions::default();
        let (xa, ra) = newton_ad(&CircleHyperbola, &Vector2::new(2.0, 0.5), &opts).unwrap();
        let (xu, ru) = newton(|x| Ok(circle_hyperbola(x)), &Vector2::new(2.0, 0.5), &opts).unwrap();
        assert_eq!(ra.iterations, ru.iterations);
        assert!((xa - xu).amax() < 1e-15);
    }

    #[test]
    fn simplified_newton_reuses_the_jacobian() {
        let root = circle_hyperbola_root();
        let frozen = NewtonOptions::default().with_jacobian(JacobianUpdate::Frozen);
        // the step test guarantees |x - x*| <~ step_tol (1 + |x*|) ≈ 2.9e-12
        let tol = 1e-12 * (1.0 + root.amax());
        let (x, report) = newton_ad(&CircleHyperbola, &Vector2::new(1.95, 0.52), &frozen).unwrap();
        assert!((x - root).amax() <= tol, "{}", (x - root).amax());
        assert_eq!(report.jacobian_updates, 1, "{report:?}");
        let (_, full) = newton_ad(&CircleHyperbola, &Vector2::new(1.95, 0.52), &NewtonOptions::default()).unwrap();
        assert!(report.iterations > full.iterations, "{report:?} vs {full:?}");
        // from far away J(x_0) contracts too slowly (theta > 1/2) and is refreshed
        // (the iteration lands on the mirror root (y*, x*))
        let x0 = Vector2::new(1.5, 1.0);
        let (x, report) = newton_ad(&CircleHyperbola, &x0, &frozen).unwrap();
        let mirror = Vector2::new(root[1], root[0]);
        assert!((x - mirror).amax() <= tol, "{x}");
        assert!(report.jacobian_updates > 1, "{report:?}");
        assert!(report.jacobian_updates < report.iterations, "{report:?}");
    }
}

#[cfg(test)]
mod block_tests {
    use super::*;
    use crate::linalg::{BlockLu, Lu};

    /// Two 2-vectors: the 4×4 system of the flattened problem.
    struct Coupled;
    impl BlockResidual<2, 2> for Coupled {
        #[inline]
        fn eval<S: Scalar>(&self, x: &BlockVector<S, 2, 2>) -> Result<BlockVector<S, 2, 2>> {
            let (a, b) = (x[0], x[1]);
            Ok([
                SVector::from([a[0] * a[0] + b[1] - S::from(3.0), a[1].sin() + b[0] * a[0] - S::from(0.5)]),
                SVector::from([b[0] * b[1] - a[0] + S::from(0.25), b[1].exp() - a[1] - S::from(1.5)]),
            ])
        }
    }
    /// The same system flattened to R^4.
    struct Flat;
    impl Residual<4> for Flat {
        #[inline]
        fn eval<S: Scalar>(&self, x: &SVector<S, 4>) -> Result<SVector<S, 4>> {
            let f = Coupled.eval(&[SVector::from([x[0], x[1]]), SVector::from([x[2], x[3]])])?;
            Ok(SVector::from([f[0][0], f[0][1], f[1][0], f[1][1]]))
        }
    }

    #[test]
    fn block_lu_matches_flat_lu() {
        let m =
            SMatrix::<f64, 4, 4>::from_fn(|i, j| ((i * 7 + j * 3) % 5) as f64 - 1.5 + if i == j { 0.1 } else { 0.0 });
        let mut blocks = [[SMatrix::<f64, 2, 2>::zeros(); 2]; 2];
        for i in 0..4 {
            for j in 0..4 {
                blocks[i / 2][j / 2][(i % 2, j % 2)] = m[(i, j)];
            }
        }
        let b = SVector::<f64, 4>::from([1.0, -2.0, 0.5, 3.0]);
        let flat = Lu::factor(&m, "m").unwrap().solve(&b);
        let blk =
            BlockLu::factor(&blocks, "m").unwrap().solve(&[SVector::from([b[0], b[1]]), SVector::from([b[2], b[3]])]);
        for i in 0..4 {
            assert!((flat[i] - blk[i / 2][i % 2]).abs() < 1e-13);
        }
        let singular = [[SMatrix::<f64, 2, 2>::identity(); 2]; 2];
        assert!(matches!(BlockLu::factor(&singular, "s"), Err(GeomError::SingularMatrix { .. })));
    }

    #[test]
    fn block_newton_follows_flat_newton() {
        let opts = NewtonOptions::default();
        let x0 = [SVector::from([1.5, 0.2]), SVector::from([0.3, 0.4])];
        let (xb, rb) = newton_blocks_ad(&Coupled, &x0, &opts).unwrap();
        let (xf, rf) = newton_ad(&Flat, &SVector::from([1.5, 0.2, 0.3, 0.4]), &opts).unwrap();
        assert_eq!(rb.iterations, rf.iterations);
        for i in 0..4 {
            assert!((xf[i] - xb[i / 2][i % 2]).abs() < 1e-13);
        }
        let (fx, jb) = ad_block_jacobian(&Coupled, &x0).unwrap();
        let (ff, jf) = ad_jacobian(&Flat, &SVector::from([1.5, 0.2, 0.3, 0.4])).unwrap();
        for i in 0..4 {
            assert!((fx[i / 2][i % 2] - ff[i]).abs() < 1e-15);
            for j in 0..4 {
                assert!((jb[i / 2][j / 2][(i % 2, j % 2)] - jf[(i, j)]).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn block_newton_reports_non_convergence() {
        let opts = NewtonOptions::new(1e-14, 1e-16, 1).unwrap();
        let x0 = [SVector::from([1.5, 0.2]), SVector::from([0.3, 0.4])];
        assert!(matches!(newton_blocks_ad(&Coupled, &x0, &opts), Err(GeomError::NotConverged { iterations: 1, .. })));
    }
}
