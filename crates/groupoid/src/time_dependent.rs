//! Time-dependent discrete mechanics that stores the time **step** of every arrow, not the
//! absolute time of its end points (docs/math.md §C.6.4; Marrero, Martín de Diego & Stern,
//! *Symplectic groupoids and discrete constrained Lagrangian mechanics*, 2015, arXiv:1103.6250,
//! §6; Kane, Marsden & Ortiz, *Symplectic-energy-momentum preserving variational integrators*,
//! J. Math. Phys. 40, 1999).
//!
//! # The groupoid
//!
//! Time-dependent mechanics lives on the pair groupoid of the extended space `Q × R`, arrows
//! `(q_0, t_0, q_1, t_1)`. For a discrete Lagrangian that depends on the times only through
//! `Δt = t_1 − t_0` (an autonomous system), time translation is a symmetry, and the quotient map
//!
//! ```text
//! (q_0, t_0, q_1, t_1) ↦ (q_0, q_1, Δt = t_1 − t_0)
//! ```
//!
//! is a groupoid morphism onto the trivialized Atiyah groupoid `(Q × Q) × R ⇉ Q` of the bundle
//! `Q × R → Q` (the group is `(R, +)`; [`crate::morphism::AtiyahQuotient`] with `G = Rn<1>`).
//! Its arrows [`TimeArrow`] are `g_k = (q_k, q_{k+1}, Δt_k)`, with
//! `(q_0, q_1, a)(q_1, q_2, b) = (q_0, q_2, a + b)` and `g^{-1} = (q_1, q_0, −Δt)`. The
//! extended discrete Lagrangian is written once over the scalar, with the step as an argument
//! ([`StepLagrangian`]), e.g. the midpoint rule of a continuous `L(q, v)` ([`Midpoint`]):
//!
//! ```text
//! L̂(q_0, q_1, Δt) = Δt L((q_0 + q_1)/2, (q_1 − q_0)/Δt),     E(g) = −∂L̂/∂Δt (g)   (discrete energy).
//! ```
//!
//! The discrete Euler–Lagrange equations of this groupoid (docs/math.md §C.3, Atiyah row, with the
//! additive group) are, for `g_k = (q_k, q_{k+1}, Δt_k)` and `g_{k+1} = (q_{k+1}, q_{k+2}, Δt_{k+1})`,
//!
//! ```text
//! D_2L̂(g_k) + D_1L̂(g_{k+1}) = 0                          (q-equation, N components)
//! ∂L̂/∂Δt(g_k) + λ_k = ∂L̂/∂Δt(g_{k+1}) + λ_{k+1}           (t-equation)
//! ```
//!
//! with `λ` the multiplier of the constraint `φ = Δt − h` of a fixed step ([`FixedStepFlow`]), or
//! no multiplier for the adaptive step ([`AdaptiveStepFlow`]). [`TimeGroupoid`],
//! [`AtiyahLagrangian`] and [`FixedStepConstraint`] state the same system in the crate's generic
//! terms, so that [`crate::ConstrainedFlow`], [`crate::variational::action_gradient`] or
//! [`crate::momentum_map`] apply to it unchanged (`crates/groupoid/tests/time_dependent.rs` checks
//! the flows of this module against them).
//!
//! # Why the step is stored
//!
//! On the pair groupoid of `Q × R` every step recomputes `Δt = t_1 − t_0` from absolute times;
//! at `|t| = 100` that difference carries `~ε|t| ≈ 1e-14` of rounding, and the residuals of the
//! step (of size `|∂L̂/∂Δt|` times the relative error of `Δt`) cannot be solved below `~1e-11`.
//! Here `Δt_k` is stored exactly, and the absolute time `t_k` is only an output, accumulated by
//! compensated summation ([`CompensatedTime`], Knuth's error-free `TwoSum`): `t_k` is the
//! correctly rounded `t_0 + Σ Δt_j` up to `~k ε²|t|`, so for a fixed step `t_k = t_0 + k h` to
//! one rounding.
//!
//! # The two flows
//!
//! * [`FixedStepFlow`] (`N = {Δt = h}`): the constraint gives `Δt_{k+1} = h` and the t-equation
//!   gives `λ_{k+1} = (λ_k − E_k) + E_{k+1}` explicitly (both are affine in
//!   `(Δt_{k+1}, λ_{k+1})` with unit coefficients), so Newton runs on the `N` unknowns `q_{k+2}`
//!   of the q-equation only: the time-free discrete flow of `L̂(·, ·, h)`. The multiplier is the
//!   energy up to the conserved constant `λ_k − E_k` ([`FixedStepFlow::time_momentum`], the
//!   momentum conjugate to `t`).
//! * [`AdaptiveStepFlow`] (`N = G`, Kane, Marsden & Ortiz 1999): the t-equation is energy
//!   conservation `E_{k+1} = E_k`, and Newton runs on `(q_{k+2}, Δt_{k+1})`. Its Jacobian
//!   `[[∂²L̂/∂q_0∂q_1, ∂²L̂/∂q_0∂Δt], [−∂²L̂/∂Δt∂q_1, −∂²L̂/∂Δt²]]` is ill-conditioned: its
//!   large singular values grow like `1/Δt`, the smallest (how `E_{k+1}` changes with the step
//!   along the solutions of the q-equation) does not (measured on the `e = 0.6` Kepler orbit of the
//!   tests: `~1e-2` against `2.7e1` at `Δt = 0.08` and `8.6e2` at `Δt = 0.0055`). Newton from the
//!   plain warm start `(2q_{k+1} − q_k, Δt_k)` fails, or converges to another root, in 991 of the
//!   1000 steps of that orbit; it is therefore started from a **predictor**, the fixed-step
//!   solution with the previous step `Δt_k`. The **time-reversed root** `g_{k+1} = g_k^{-1}`
//!   (`q_{k+2} = q_k`, `Δt_{k+1} = −Δt_k`) solves both equations whenever `L̂(g^{-1}) = −L̂(g)`
//!   (the midpoint rule of a Lagrangian even in `v`). A result with `Δt_{k+1} <= 0`, or a step
//!   that changes by more than the factor [`AdaptiveStepFlow::max_step_ratio`], is not accepted:
//!   the step is **redirected** to a bracketed search for a root of the energy equation on
//!   `Δt ∈ [Δt_k/ρ, ρΔt_k]` (the q-equation solved at each trial `Δt`), and refused with
//!   [`TimeStepError::TimeReversed`] (or [`TimeStepError::StepRatio`]) if there is none. When the
//!   energy equation has no root there at all, the step is refused with
//!   [`TimeStepError::NoAdmissibleRoot`] (the adaptive step breaks down: at the turning points of
//!   a 1-D system, where `E` does not determine `Δt`, or for a discrete Lagrangian whose steps
//!   grow until `E_{k+1}(Δt) < E_k` for every admissible `Δt`; the trapezoidal Kepler `L_d` of
//!   the tests does so after 23 steps from the perihelion of the `e = 0.6` orbit).
//!
//! Every step validates its input (finite, `Δt_k > 0`, on `N`) and returns typed errors
//! ([`TimeStepError`]); [`FixedStepFlow::advance`] and [`AdaptiveStepFlow::advance`] leave the
//! state untouched when the step fails.
//!
//! ```
//! use geom_core::Scalar;
//! use groupoid::time_dependent::{ContinuousLagrangian, FixedStepFlow, Midpoint, TimeStepError};
//! use nalgebra::SVector;
//!
//! /// The pendulum `L = ½v² − (1 − cos q)`.
//! struct Pendulum;
//! impl ContinuousLagrangian<1> for Pendulum {
//!     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, v: &SVector<S, 1>) -> S {
//!         v[0] * v[0] * S::from(0.5) - (S::from(1.0) - q[0].cos())
//!     }
//! }
//! let flow = FixedStepFlow::new(Midpoint(Pendulum), 0.1)?;
//! // the arrow (q_0, q_1, Δt_0 = h) from t_0 = 0, multiplier λ_0 = 0
//! let mut point = flow.start(SVector::from([0.3]), SVector::from([0.45]), 0.0, 0.0);
//! let c = flow.time_momentum(&point); // λ_k − E_k
//! for _ in 0..100 {
//!     flow.advance(&mut point)?;
//! }
//! assert!((point.g.source_time() - 10.0).abs() < 1e-13);
//! assert!((flow.time_momentum(&point) - c).abs() < 1e-13);
//! # Ok::<(), TimeStepError>(())
//! ```

use crate::atiyah::TrivialAtiyah;
use crate::constraints::{CONSTRAINT_TOLERANCE, Constraints, SigmaPoint};
use crate::lagrangian::DiscreteLagrangian;
use geom_core::error_free::two_sum;
use geom_core::lie::{Chart, Rn};
use geom_core::newton::{NewtonOptions, ROUNDOFF_FACTOR, newton_dyn, newton_split};
use geom_core::{GeomError, Scalar};
use nalgebra::{DMatrix, DVector, SMatrix, SVector};
use num_dual::{Dual2_64, Dual64, DualSVec64, HyperDualSVec64};
use std::cell::Cell;
use thiserror::Error;

// ---------------------------------------------------------------------------------------------
// Lagrangians

/// An extended discrete Lagrangian `L̂(q_0, q_1, Δt)` with the time step as an argument, written
/// once and generic over the scalar (exact derivatives by num-dual, also in `Δt`): geom-core's
/// [`geom_core::function::StepLagrangian`], the same trait the variational integrator of
/// `integrators` takes. It must not depend on the absolute time (module documentation).
pub use geom_core::function::StepLagrangian;

/// A continuous Lagrangian `L(q, v)` on `TQ = R^N × R^N`, written once over the scalar (the
/// same trait as the nonholonomic models use).
pub use crate::nonholonomic::ContinuousLagrangian;

/// The midpoint extended discrete Lagrangian `L̂(q_0, q_1, Δt) = Δt L((q_0 + q_1)/2, (q_1 − q_0)/Δt)`
/// of a continuous Lagrangian (docs/math.md §C.6.4). At a fixed `Δt = h` it is the midpoint
/// discrete Lagrangian of the pair groupoid `Q × Q`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Midpoint<L>(pub L);

impl<L: ContinuousLagrangian<N>, const N: usize> StepLagrangian<N> for Midpoint<L> {
    #[inline]
    fn eval<S: Scalar>(&self, q0: &SVector<S, N>, q1: &SVector<S, N>, dt: S) -> S {
        let q = (q0 + q1) * S::from(0.5);
        let v = (q1 - q0) / dt;
        self.0.eval(&q, &v) * dt
    }
}

// ---------------------------------------------------------------------------------------------
// Time and arrows

/// A time `t = hi + lo` accumulated by compensated summation: each addition (`t + dt`) is
/// Knuth's error-free `TwoSum` of `hi` and the increment, with the rounding error carried in
/// `lo` (double-double accumulation). After `k` additions [`CompensatedTime::value`] is the
/// correctly rounded exact sum up to `O(k ε²)|t|`: a fixed step gives `t_k = t_0 + k h` to one
/// rounding, where plain summation drifts by `~k ε |t|`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CompensatedTime {
    hi: f64,
    lo: f64,
}

impl CompensatedTime {
    /// The time `t` (no carried error).
    pub fn new(t: f64) -> Self {
        Self { hi: t, lo: 0.0 }
    }
    /// The time, rounded to `f64` (`hi`; `|lo| <= ulp(hi)/2`).
    pub fn value(&self) -> f64 {
        self.hi
    }
    /// The carried rounding error `lo` (`t = hi + lo` to `O(ε²)`).
    pub fn error(&self) -> f64 {
        self.lo
    }
    /// The time `hi + lo` from its two parts, as [`value`](Self::value) and
    /// [`error`](Self::error) return them (a saved time restored exactly).
    pub fn from_parts(hi: f64, lo: f64) -> Self {
        Self { hi, lo }
    }
}

impl std::ops::Add<f64> for CompensatedTime {
    type Output = Self;
    /// `t + dt`, with the rounding error of the addition carried along.
    fn add(self, dt: f64) -> Self {
        let (s, e) = two_sum(self.hi, dt);
        let (hi, lo) = two_sum(s, e + self.lo);
        Self { hi, lo }
    }
}

impl std::ops::AddAssign<f64> for CompensatedTime {
    fn add_assign(&mut self, dt: f64) {
        *self = *self + dt;
    }
}

/// An arrow `g_k = (q_k, q_{k+1}, Δt_k)` of the time groupoid `(Q × Q) × R ⇉ Q` (module
/// documentation), with the time `t_k` of its source node. The step `Δt_k` is stored exactly; the
/// absolute times are outputs ([`TimeArrow::source_time`], [`TimeArrow::target_time`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeArrow<const N: usize> {
    /// `q_k`.
    pub q0: SVector<f64, N>,
    /// `q_{k+1}`.
    pub q1: SVector<f64, N>,
    /// `Δt_k = t_{k+1} − t_k`.
    pub dt: f64,
    /// `t_k`.
    pub t0: CompensatedTime,
}

impl<const N: usize> TimeArrow<N> {
    /// `(q_k, q_{k+1}, Δt_k)` starting at time `t_k = t0`.
    pub fn new(q0: SVector<f64, N>, q1: SVector<f64, N>, t0: f64, dt: f64) -> Self {
        Self { q0, q1, dt, t0: CompensatedTime::new(t0) }
    }
    /// `t_k`.
    pub fn source_time(&self) -> f64 {
        self.t0.value()
    }
    /// `t_{k+1} = t_k + Δt_k` (compensated).
    pub fn target_time(&self) -> f64 {
        (self.t0 + self.dt).value()
    }
    /// The composable next arrow `(q_{k+1}, q_{k+2}, Δt_{k+1})`, starting at `t_{k+1}`.
    #[must_use]
    pub fn next(&self, q2: SVector<f64, N>, dt: f64) -> Self {
        Self { q0: self.q1, q1: q2, dt, t0: self.t0 + self.dt }
    }
    /// The inverse arrow `g^{-1} = (q_{k+1}, q_k, −Δt_k)`, starting at `t_{k+1}`: time running
    /// back, the spurious root of the adaptive step.
    #[must_use]
    pub fn inverse(&self) -> Self {
        Self { q0: self.q1, q1: self.q0, dt: -self.dt, t0: self.t0 + self.dt }
    }
    /// The arrow as an element `(q_k, q_{k+1}, [Δt_k])` of [`TimeGroupoid`].
    pub fn atiyah(&self) -> (SVector<f64, N>, SVector<f64, N>, SVector<f64, 1>) {
        (self.q0, self.q1, SVector::from([self.dt]))
    }

    /// [`TimeStepError::NonFinite`] or [`TimeStepError::NonPositiveStep`] unless the arrow is
    /// finite with `Δt > 0`.
    fn check(&self) -> Result<(), TimeStepError> {
        let finite = self.q0.iter().chain(self.q1.iter()).all(|v| v.is_finite())
            && self.dt.is_finite()
            && self.t0.hi.is_finite()
            && self.t0.lo.is_finite();
        if !finite {
            return Err(TimeStepError::NonFinite { what: "time arrow (q_k, q_(k+1), Δt_k, t_k)" });
        }
        if self.dt <= 0.0 {
            return Err(TimeStepError::NonPositiveStep { dt: self.dt });
        }
        Ok(())
    }
}

/// The discrete energy `E(g) = −∂L̂/∂Δt (q_k, q_{k+1}, Δt_k)` of an arrow (for the midpoint rule of
/// `L = ½|v|² − V`: `½|Δq/Δt|² + V(q̄)`).
pub fn discrete_energy<L: StepLagrangian<N>, const N: usize>(lagrangian: &L, g: &TimeArrow<N>) -> f64 {
    energy_at(lagrangian, &g.q0, &g.q1, g.dt)
}

/// The momenta at the two nodes of `g_k`: `(p_k, p_{k+1}) = (−D_1L̂(g_k), D_2L̂(g_k))`, the
/// `Q`-components of `F^-L(g_k)` and `F^+L(g_k)` (docs/math.md §C.3, pair row).
pub fn momenta<L: StepLagrangian<N>, const N: usize>(
    lagrangian: &L,
    g: &TimeArrow<N>,
) -> (SVector<f64, N>, SVector<f64, N>) {
    (-d_q0(lagrangian, &g.q0, &g.q1, g.dt), d_q1(lagrangian, &g.q0, &g.q1, g.dt))
}

// ---------------------------------------------------------------------------------------------
// The same system in the crate's generic terms

/// The time groupoid `(Q × Q) × R ⇉ Q`, `Q = R^N`: the trivialized Atiyah groupoid of the additive
/// group `R`, with elements `(q_0, q_1, [Δt])` and algebroid rank `N + 1`.
pub type TimeGroupoid<const N: usize> = TrivialAtiyah<Rn<1>, N, 1>;

/// [`TimeGroupoid`] with its fibre chart `exp_x(v, τ) = (x, x + v, τ)`.
pub fn time_groupoid<const N: usize>() -> TimeGroupoid<N> {
    TrivialAtiyah::new(Rn, Chart::Exp)
}

/// A [`StepLagrangian`] as a [`DiscreteLagrangian`] on [`TimeGroupoid`] (any rank `R`; the
/// groupoid checks `R = N + 1` at compile time), for the crate's generic machinery.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AtiyahLagrangian<L>(pub L);

impl<L: StepLagrangian<N>, const N: usize, const R: usize> DiscreteLagrangian<TimeGroupoid<N>, R>
    for AtiyahLagrangian<L>
{
    #[inline]
    fn eval<S: Scalar>(&self, _: &TimeGroupoid<N>, g: &(SVector<S, N>, SVector<S, N>, SVector<S, 1>)) -> S {
        self.0.eval(&g.0, &g.1, g.2[0])
    }
}

/// The fixed-step constraint `φ(q_0, q_1, Δt) = Δt − h` on [`TimeGroupoid`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedStepConstraint(pub f64);

impl<const N: usize, const R: usize> Constraints<TimeGroupoid<N>, R, 1> for FixedStepConstraint {
    #[inline]
    fn eval<S: Scalar>(&self, _: &TimeGroupoid<N>, g: &(SVector<S, N>, SVector<S, N>, SVector<S, 1>)) -> SVector<S, 1> {
        SVector::from([g.2[0] - S::from(self.0)])
    }
}

// ---------------------------------------------------------------------------------------------
// Errors and reports

/// Why a time-dependent step failed. Every failure is one of these; none panics, and
/// [`FixedStepFlow::advance`] / [`AdaptiveStepFlow::advance`] leave the state untouched.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TimeStepError {
    /// A time step that is not positive and finite: the `Δt_k` of the given arrow, the `h` of a
    /// fixed-step flow, or a new step `Δt_{k+1} = 0`.
    #[error("time step Δt = {dt} is not positive")]
    NonPositiveStep {
        /// The rejected step.
        dt: f64,
    },
    /// The adaptive step converged to the time-reversed root (`Δt_{k+1} < 0`; `inverse` if it is
    /// the inverse arrow `g_k^{-1}` itself) and no root with `Δt_{k+1} ∈ [Δt_k/ρ, ρΔt_k]` was found
    /// instead.
    #[error(
        "the step landed on the time-reversed root (Δt_(k+1) = {dt:e}, inverse arrow: {inverse}) and no step in \
         [Δt_k/{max_ratio}, {max_ratio} Δt_k] (Δt_k = {previous:e}) conserves the energy"
    )]
    TimeReversed {
        /// The step Newton converged to.
        dt: f64,
        /// `Δt_k`.
        previous: f64,
        /// Whether the root found was `g_k^{-1}` (to `1e-8`).
        inverse: bool,
        /// The admissible step ratio `ρ`.
        max_ratio: f64,
    },
    /// The adaptive step converged to a positive step that differs from `Δt_k` by more than the
    /// admissible factor `ρ`, and no root was found within it.
    #[error("the new step Δt_(k+1) = {dt:e} is not within a factor {max_ratio} of Δt_k = {previous:e}")]
    StepRatio {
        /// The step Newton converged to.
        dt: f64,
        /// `Δt_k`.
        previous: f64,
        /// The admissible step ratio `ρ`.
        max_ratio: f64,
    },
    /// The adaptive step found no admissible root: Newton from the predictor did not converge to
    /// one, and the energy residual `r(τ) = E_{k+1}(τ) − E_k` (the q-equation solved at each trial
    /// step) does not change sign on `[Δt_k/ρ, ρΔt_k]`. The energy equation has no root there: the
    /// adaptive step breaks down (e.g. at the turning point of a 1-D system, or when the steps of a
    /// discrete Lagrangian grow until `E_{k+1}(τ)` stays below `E_k`).
    #[error(
        "no step in [Δt_k/{max_ratio}, {max_ratio} Δt_k] (Δt_k = {previous:e}) conserves the energy: \
         min |E_(k+1) − E_k| over the trial steps = {residual:.3e}"
    )]
    NoAdmissibleRoot {
        /// `Δt_k`.
        previous: f64,
        /// The admissible step ratio `ρ`.
        max_ratio: f64,
        /// The smallest `|r(τ)|` met.
        residual: f64,
    },
    /// The arrow given to a fixed-step flow is off `N = {Δt = h}` (by more than
    /// [`CONSTRAINT_TOLERANCE`]).
    #[error("time arrow off N = {{Δt = h}}: Δt = {dt}, h = {h}")]
    OffConstraint {
        /// The arrow's step.
        dt: f64,
        /// The flow's step.
        h: f64,
    },
    /// Newton (and, for the adaptive step, its redirection) did not converge.
    #[error("Newton did not converge after {iterations} iterations (residual {residual:.3e}, step {step:.3e})")]
    NotConverged {
        /// Iterations performed.
        iterations: usize,
        /// Final residual norm.
        residual: f64,
        /// Final step norm.
        step: f64,
    },
    /// A value that must be finite is not (input, residual, Jacobian, iterate or result).
    #[error("non-finite value in {what}")]
    NonFinite {
        /// Which value.
        what: &'static str,
    },
    /// Any other error of the solver (a singular step Jacobian: the system is not regular there,
    /// e.g. the adaptive step of a 1-D system at a turning point; invalid Newton options).
    #[error(transparent)]
    Solver(GeomError),
}

impl From<GeomError> for TimeStepError {
    fn from(e: GeomError) -> Self {
        match e {
            GeomError::NotConverged { iterations, residual, step } => Self::NotConverged { iterations, residual, step },
            GeomError::NonFinite { what } => Self::NonFinite { what },
            GeomError::InvalidStep { h } => Self::NonPositiveStep { dt: h },
            other => Self::Solver(other),
        }
    }
}

impl From<TimeStepError> for GeomError {
    /// Into the workspace error: step errors become [`GeomError::InvalidStep`], the constraint
    /// defect [`GeomError::OffManifold`].
    fn from(e: TimeStepError) -> Self {
        match e {
            TimeStepError::NonPositiveStep { dt }
            | TimeStepError::TimeReversed { dt, .. }
            | TimeStepError::StepRatio { dt, .. } => GeomError::InvalidStep { h: dt },
            TimeStepError::OffConstraint { dt, h } => GeomError::OffManifold {
                what: "time arrow off N = {Δt = h}",
                defect: (dt - h).abs(),
                tolerance: CONSTRAINT_TOLERANCE,
            },
            TimeStepError::NotConverged { iterations, residual, step } => {
                GeomError::NotConverged { iterations, residual, step }
            }
            TimeStepError::NoAdmissibleRoot { residual, .. } => {
                GeomError::NotConverged { iterations: 0, residual, step: 0.0 }
            }
            TimeStepError::NonFinite { what } => GeomError::NonFinite { what },
            TimeStepError::Solver(e) => e,
        }
    }
}

/// What a successful step did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeStepReport {
    /// Newton iterations in all (predictor, corrector and, when redirected, every trial solve).
    pub iterations: usize,
    /// Max-norm residual of the accepted solve (corrector; energy residual of a redirected step).
    pub residual: f64,
    /// Whether the adaptive step was redirected away from a rejected root (always `false` for a
    /// fixed step).
    pub redirected: bool,
}

// ---------------------------------------------------------------------------------------------
// Derivatives of L̂ (exact, num-dual)

/// `D_1L̂(q0, q1, Δt)`.
fn d_q0<L: StepLagrangian<N>, const N: usize>(
    l: &L,
    q0: &SVector<f64, N>,
    q1: &SVector<f64, N>,
    dt: f64,
) -> SVector<f64, N> {
    let q1d = q1.map(DualSVec64::<N>::from);
    num_dual::gradient(|x: SVector<DualSVec64<N>, N>| l.eval(&x, &q1d, DualSVec64::from(dt)), q0).1
}

/// `D_2L̂(q0, q1, Δt)`.
fn d_q1<L: StepLagrangian<N>, const N: usize>(
    l: &L,
    q0: &SVector<f64, N>,
    q1: &SVector<f64, N>,
    dt: f64,
) -> SVector<f64, N> {
    let q0d = q0.map(DualSVec64::<N>::from);
    num_dual::gradient(|x: SVector<DualSVec64<N>, N>| l.eval(&q0d, &x, DualSVec64::from(dt)), q1).1
}

/// `−∂L̂/∂Δt (q0, q1, Δt)`.
fn energy_at<L: StepLagrangian<N>, const N: usize>(l: &L, q0: &SVector<f64, N>, q1: &SVector<f64, N>, dt: f64) -> f64 {
    let (q0d, q1d) = (q0.map(Dual64::from), q1.map(Dual64::from));
    -num_dual::first_derivative(|t: Dual64| l.eval(&q0d, &q1d, t), dt).1
}

/// `D_1L̂` and `∂²L̂/∂q0_i∂q1_j` (one hyper-dual pass): the residual and Jacobian of the
/// q-equation in `q1`.
fn d_q0_and_mixed<L: StepLagrangian<N>, const N: usize>(
    l: &L,
    q0: &SVector<f64, N>,
    q1: &SVector<f64, N>,
    dt: f64,
) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
    type H<const N: usize> = HyperDualSVec64<N, N>;
    let (_, d0, _, d01) = num_dual::partial_hessian(
        |(a, b): (SVector<H<N>, N>, SVector<H<N>, N>)| l.eval(&a, &b, H::<N>::from(dt)),
        (q0, q1),
    );
    (d0, d01)
}

/// The first and second derivatives of `L̂` at `(q0, q1, Δt)` that the adaptive step needs.
struct Partials<const N: usize> {
    /// `D_1L̂`.
    d0: SVector<f64, N>,
    /// `∂L̂/∂Δt = −E`.
    dt: f64,
    /// `∂²L̂/∂q0_i∂q1_j`.
    d01: SMatrix<f64, N, N>,
    /// `∂²L̂/∂q0∂Δt`.
    d0t: SVector<f64, N>,
    /// `∂²L̂/∂q1∂Δt`.
    d1t: SVector<f64, N>,
    /// `∂²L̂/∂Δt²`.
    dtt: f64,
}

/// [`Partials`] by four exact passes (`HyperDualSVec64<N, N>`, two `HyperDualSVec64<N, 1>`,
/// `Dual2_64`): the rank `N + 1` of the unknowns `(q, Δt)` cannot be a const generic here.
fn partials<L: StepLagrangian<N>, const N: usize>(
    l: &L,
    q0: &SVector<f64, N>,
    q1: &SVector<f64, N>,
    dt: f64,
) -> Partials<N> {
    type H1<const N: usize> = HyperDualSVec64<N, 1>;
    let (d0, d01) = d_q0_and_mixed(l, q0, q1, dt);
    let tv = SVector::from([dt]);
    let q1h = q1.map(H1::<N>::from);
    let (_, _, dtv, d0t) =
        num_dual::partial_hessian(|(a, t): (SVector<H1<N>, N>, SVector<H1<N>, 1>)| l.eval(&a, &q1h, t[0]), (q0, &tv));
    let q0h = q0.map(H1::<N>::from);
    let (_, _, _, d1t) =
        num_dual::partial_hessian(|(b, t): (SVector<H1<N>, N>, SVector<H1<N>, 1>)| l.eval(&q0h, &b, t[0]), (q1, &tv));
    let (q0d, q1d) = (q0.map(Dual2_64::from), q1.map(Dual2_64::from));
    let (_, _, dtt) = num_dual::second_derivative(|t: Dual2_64| l.eval(&q0d, &q1d, t), dt);
    Partials { d0, dt: dtv[0], d01, d0t: d0t.column(0).into_owned(), d1t: d1t.column(0).into_owned(), dtt }
}

/// The q-equation at a given step: `q2` with `D_1L̂(q1, q2, Δt) + p = 0`, by Newton from `guess`
/// (Jacobian `∂²L̂/∂q0∂q1`). Returns `q2` and the iterations.
fn solve_q<L: StepLagrangian<N>, const N: usize>(
    l: &L,
    q1: &SVector<f64, N>,
    p: &SVector<f64, N>,
    dt: f64,
    guess: &SVector<f64, N>,
    newton: &NewtonOptions,
) -> Result<(SVector<f64, N>, usize), GeomError> {
    let (q2, report) = newton_split(
        |q2: &SVector<f64, N>| Ok(d_q0(l, q1, q2, dt) + p),
        |q2: &SVector<f64, N>| Ok(d_q0_and_mixed(l, q1, q2, dt).1),
        guess,
        newton,
    )?;
    Ok((q2, report.iterations))
}

/// The warm start for `q_{k+2}` at the step `τ`: `q_{k+1} + (q_{k+1} − q_k) τ/Δt_k`.
fn extrapolate<const N: usize>(g: &TimeArrow<N>, tau: f64) -> SVector<f64, N> {
    g.q1 + (g.q1 - g.q0) * (tau / g.dt)
}

// ---------------------------------------------------------------------------------------------
// Fixed step

/// The fixed-step flow `(g_k, λ_k) ↦ (g_{k+1}, λ_{k+1})` on `N = {Δt = h}` (module
/// documentation): `D_2L̂(g_k) + D_1L̂(g_{k+1}) = 0` by Newton on `q_{k+2}`,
/// `Δt_{k+1} = h`, `λ_{k+1} = (λ_k − E_k) + E_{k+1}`. The state is a
/// [`SigmaPoint`]`<`[`TimeArrow`]`<N>, 1>` (the arrow and the multiplier of its constraint).
#[derive(Debug, Clone)]
pub struct FixedStepFlow<L> {
    lagrangian: L,
    h: f64,
    newton: NewtonOptions,
    order: u32,
}

impl<L> FixedStepFlow<L> {
    /// The flow of `lagrangian` with step `h` (Newton: residual and step `<= 1e-14`, as
    /// [`crate::DiscreteFlow`]). [`TimeStepError::NonPositiveStep`] unless `h` is positive and finite.
    pub fn new(lagrangian: L, h: f64) -> Result<Self, TimeStepError> {
        if !(h.is_finite() && h > 0.0) {
            return Err(TimeStepError::NonPositiveStep { dt: h });
        }
        Ok(Self { lagrangian, h, newton: NewtonOptions::integrator(), order: 1 })
    }
    /// The same flow with other Newton options.
    #[must_use]
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// Declare the order of `L̂` (2 for [`Midpoint`]; `1` until declared, as for
    /// `crate::integrator::GroupoidIntegrator`: the contract suite `geom_core::step::testing`
    /// measures it).
    #[must_use]
    pub fn with_order(self, order: u32) -> Self {
        Self { order, ..self }
    }
    /// The declared order.
    pub fn order(&self) -> u32 {
        self.order
    }
    /// The step `h`.
    pub fn h(&self) -> f64 {
        self.h
    }
    /// The extended discrete Lagrangian `L̂`.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }
    /// The Newton options.
    pub fn newton_options(&self) -> &NewtonOptions {
        &self.newton
    }

    /// The first point `((q_0, q_1, h) from t_0, λ_0)`.
    pub fn start<const N: usize>(
        &self,
        q0: SVector<f64, N>,
        q1: SVector<f64, N>,
        t0: f64,
        lambda: f64,
    ) -> SigmaPoint<TimeArrow<N>, 1> {
        SigmaPoint::new(TimeArrow::new(q0, q1, t0, self.h), SVector::from([lambda]))
    }

    /// `λ_k − E_k = ∂(L̂ + λ_kφ)/∂Δt (g_k)`, the time component of `F^+L(g_k, λ_k)` (the momentum
    /// conjugate to `t`), conserved by the flow.
    pub fn time_momentum<const N: usize>(&self, point: &SigmaPoint<TimeArrow<N>, 1>) -> f64
    where
        L: StepLagrangian<N>,
    {
        point.lambda[0] - discrete_energy(&self.lagrangian, &point.g)
    }

    /// One step from `(g_k, λ_k)`. Errors: a non-finite arrow or multiplier
    /// ([`TimeStepError::NonFinite`]), `Δt_k <= 0` ([`TimeStepError::NonPositiveStep`]), an arrow
    /// off `N` ([`TimeStepError::OffConstraint`]), Newton failures ([`TimeStepError::NotConverged`],
    /// [`TimeStepError::Solver`] for a singular Jacobian), a non-finite result.
    pub fn step<const N: usize>(
        &self,
        point: &SigmaPoint<TimeArrow<N>, 1>,
    ) -> Result<(SigmaPoint<TimeArrow<N>, 1>, TimeStepReport), TimeStepError>
    where
        L: StepLagrangian<N>,
    {
        point.g.check()?;
        if !point.lambda[0].is_finite() {
            return Err(TimeStepError::NonFinite { what: "multiplier λ_k" });
        }
        if (point.g.dt - self.h).abs() > CONSTRAINT_TOLERANCE {
            return Err(TimeStepError::OffConstraint { dt: point.g.dt, h: self.h });
        }
        self.next_point(point, self.h)
    }

    /// The step with the next arrow's `Δt_{k+1} = h`: `D_2L̂(g_k) + D_1L̂(g_{k+1}) = 0` by Newton on
    /// `q_{k+2}`, `λ_{k+1} = (λ_k − E_k) + E_{k+1}`. With `h` the flow's own step this is
    /// [`FixedStepFlow::step`] (the one-step integrator, [`OneStep`], takes `h` with each call).
    pub(crate) fn next_point<const N: usize>(
        &self,
        point: &SigmaPoint<TimeArrow<N>, 1>,
        h: f64,
    ) -> Result<(SigmaPoint<TimeArrow<N>, 1>, TimeStepReport), TimeStepError>
    where
        L: StepLagrangian<N>,
    {
        let g = &point.g;
        g.check()?;
        if !point.lambda[0].is_finite() {
            return Err(TimeStepError::NonFinite { what: "multiplier λ_k" });
        }
        if !(h.is_finite() && h > 0.0) {
            return Err(TimeStepError::NonPositiveStep { dt: h });
        }
        let l = &self.lagrangian;
        let p = d_q1(l, &g.q0, &g.q1, g.dt);
        let (q2, iterations) = solve_q(l, &g.q1, &p, h, &extrapolate(g, h), &self.newton)?;
        let next = g.next(q2, h);
        // the t-equation, solved for λ_{k+1}
        let lambda = (point.lambda[0] - discrete_energy(l, g)) + discrete_energy(l, &next);
        if !(q2.iter().all(|v| v.is_finite()) && lambda.is_finite()) {
            return Err(TimeStepError::NonFinite { what: "fixed-step result (q_(k+2), λ_(k+1))" });
        }
        let residual = (d_q0(l, &next.q0, &next.q1, next.dt) + p).amax();
        Ok((SigmaPoint::new(next, SVector::from([lambda])), TimeStepReport { iterations, residual, redirected: false }))
    }

    /// [`FixedStepFlow::step`] in place; on error `point` is left untouched.
    pub fn advance<const N: usize>(
        &self,
        point: &mut SigmaPoint<TimeArrow<N>, 1>,
    ) -> Result<TimeStepReport, TimeStepError>
    where
        L: StepLagrangian<N>,
    {
        let (next, report) = self.step(point)?;
        *point = next;
        Ok(report)
    }
}

// ---------------------------------------------------------------------------------------------
// Adaptive step (Kane, Marsden & Ortiz 1999)

/// Default of [`AdaptiveStepFlow::max_step_ratio`]: a new step within a factor 4 of the previous
/// one is accepted (a resolved trajectory changes its step by `1 + O(Δt)` per step).
pub const DEFAULT_MAX_STEP_RATIO: f64 = 4.0;

/// At most this many trial steps in the redirected (bracketed) search.
const REDIRECT_MAX_TRIALS: usize = 200;

/// The adaptive, energy-conserving flow `g_k ↦ g_{k+1}` of Kane, Marsden & Ortiz (1999) on the
/// time groupoid (`N = G`, module documentation): `D_2L̂(g_k) + D_1L̂(g_{k+1}) = 0` and
/// `E_{k+1} = E_k`, by Newton on `(q_{k+2}, Δt_{k+1})` from the fixed-step predictor, with the
/// guard against the time-reversed root and its redirection.
#[derive(Debug, Clone)]
pub struct AdaptiveStepFlow<L> {
    lagrangian: L,
    newton: NewtonOptions,
    max_step_ratio: f64,
}

/// A solution `(q_{k+2}, Δt_{k+1})` of the adaptive step system with its cost.
struct Solved<const N: usize> {
    q2: SVector<f64, N>,
    dt: f64,
    iterations: usize,
    residual: f64,
}

impl<L> AdaptiveStepFlow<L> {
    /// The adaptive flow of `lagrangian` (Newton: residual and step `<= 1e-14`; step ratio
    /// [`DEFAULT_MAX_STEP_RATIO`]).
    pub fn new(lagrangian: L) -> Self {
        Self { lagrangian, newton: NewtonOptions::integrator(), max_step_ratio: DEFAULT_MAX_STEP_RATIO }
    }
    /// The same flow with other Newton options.
    #[must_use]
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The same flow with the admissible step ratio `ρ`: a new step is accepted only in
    /// `[Δt_k/ρ, ρΔt_k]`, which is also the range of the redirected search.
    /// [`TimeStepError::Solver`] ([`GeomError::InvalidParameter`]) unless `ρ > 1` is finite.
    pub fn with_max_step_ratio(self, max_step_ratio: f64) -> Result<Self, TimeStepError> {
        if !(max_step_ratio.is_finite() && max_step_ratio > 1.0) {
            return Err(TimeStepError::Solver(GeomError::InvalidParameter {
                what: "max_step_ratio",
                reason: format!("must be finite and > 1, got {max_step_ratio}"),
            }));
        }
        Ok(Self { max_step_ratio, ..self })
    }
    /// The extended discrete Lagrangian `L̂`.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }
    /// The Newton options.
    pub fn newton_options(&self) -> &NewtonOptions {
        &self.newton
    }
    /// The admissible step ratio `ρ`.
    pub fn max_step_ratio(&self) -> f64 {
        self.max_step_ratio
    }

    /// One adaptive step from `g_k`: predictor (the fixed-step q-equation at `Δt_k`), corrector
    /// (Newton on `(q_{k+2}, Δt_{k+1})` from the prediction), guard and redirection (module
    /// documentation). Errors: a non-finite arrow ([`TimeStepError::NonFinite`]), `Δt_k <= 0`
    /// ([`TimeStepError::NonPositiveStep`]); when the corrector lands on a rejected root and the
    /// redirected search finds no root: [`TimeStepError::TimeReversed`] (`Δt_{k+1} < 0`),
    /// [`TimeStepError::NonPositiveStep`] (`Δt_{k+1} = 0`), [`TimeStepError::StepRatio`]; when the
    /// corrector fails too: [`TimeStepError::NoAdmissibleRoot`], or the error of the redirected
    /// search ([`TimeStepError::NotConverged`], and the predictor's [`TimeStepError::NonFinite`] or
    /// [`TimeStepError::Solver`]).
    pub fn step<const N: usize>(&self, g: &TimeArrow<N>) -> Result<(TimeArrow<N>, TimeStepReport), TimeStepError>
    where
        L: StepLagrangian<N>,
    {
        self.step_from(g, None)
    }

    /// [`AdaptiveStepFlow::step`] with the corrector started from `(q_guess, dt_guess)` instead of
    /// the predictor (same guard, redirection and errors).
    pub fn step_with_guess<const N: usize>(
        &self,
        g: &TimeArrow<N>,
        q_guess: &SVector<f64, N>,
        dt_guess: f64,
    ) -> Result<(TimeArrow<N>, TimeStepReport), TimeStepError>
    where
        L: StepLagrangian<N>,
    {
        self.step_from(g, Some((*q_guess, dt_guess)))
    }

    /// [`AdaptiveStepFlow::step`] in place; on error `g` is left untouched.
    pub fn advance<const N: usize>(&self, g: &mut TimeArrow<N>) -> Result<TimeStepReport, TimeStepError>
    where
        L: StepLagrangian<N>,
    {
        let (next, report) = self.step(g)?;
        *g = next;
        Ok(report)
    }

    fn admissible(&self, previous: f64, dt: f64) -> bool {
        dt.is_finite() && dt >= previous / self.max_step_ratio && dt <= previous * self.max_step_ratio
    }

    fn step_from<const N: usize>(
        &self,
        g: &TimeArrow<N>,
        guess: Option<(SVector<f64, N>, f64)>,
    ) -> Result<(TimeArrow<N>, TimeStepReport), TimeStepError>
    where
        L: StepLagrangian<N>,
    {
        g.check()?;
        if let Some((q, dt)) = &guess
            && !(q.iter().all(|v| v.is_finite()) && dt.is_finite())
        {
            return Err(TimeStepError::NonFinite { what: "adaptive step guess" });
        }
        let l = &self.lagrangian;
        let p = d_q1(l, &g.q0, &g.q1, g.dt);
        let e = discrete_energy(l, g);
        // predictor: the fixed-step solution with the previous step
        let mut iterations = 0;
        let predicted = solve_q(l, &g.q1, &p, g.dt, &extrapolate(g, g.dt), &self.newton);
        let start = match (guess, &predicted) {
            (Some(start), _) => start,
            (None, Ok((q, its))) => {
                iterations += its;
                (*q, g.dt)
            }
            (None, Err(_)) => (extrapolate(g, g.dt), g.dt),
        };
        let corrected = self.correct(g, &p, e, &start);
        let rejected = match corrected {
            Ok(s) if self.admissible(g.dt, s.dt) => {
                let report =
                    TimeStepReport { iterations: iterations + s.iterations, residual: s.residual, redirected: false };
                return finish(g, s, report);
            }
            other => other,
        };
        // guard: redirect to a bracketed search for a positive, admissible root
        let redirected = match &predicted {
            Ok((q, _)) => self.redirect(g, &p, e, q),
            Err(err) => Err(err.clone().into()),
        };
        match (redirected, rejected) {
            (Ok(s), _) => {
                let report =
                    TimeStepReport { iterations: iterations + s.iterations, residual: s.residual, redirected: true };
                finish(g, s, report)
            }
            (Err(_), Ok(s)) if s.dt < 0.0 => {
                let inverse = (s.dt + g.dt).abs() <= 1e-8 * g.dt && (s.q2 - g.q0).amax() <= 1e-8 * (1.0 + g.q0.amax());
                Err(TimeStepError::TimeReversed { dt: s.dt, previous: g.dt, inverse, max_ratio: self.max_step_ratio })
            }
            (Err(_), Ok(s)) if s.dt == 0.0 => Err(TimeStepError::NonPositiveStep { dt: s.dt }),
            (Err(_), Ok(s)) if s.dt.is_nan() => Err(TimeStepError::NonFinite { what: "adaptive step Δt_(k+1)" }),
            (Err(_), Ok(s)) => {
                Err(TimeStepError::StepRatio { dt: s.dt, previous: g.dt, max_ratio: self.max_step_ratio })
            }
            // no admissible root (or the predictor failed too): the redirection's error
            (Err(err), Err(_)) => Err(err),
        }
    }

    /// The corrector: Newton on `u = (q_{k+2}, Δt_{k+1})` for
    /// `F(u) = (D_1L̂(q_{k+1}, q_{k+2}, Δt) + p_{k+1}, −∂L̂/∂Δt(q_{k+1}, q_{k+2}, Δt) − E_k)` with the
    /// exact Jacobian `[[∂²L̂/∂q0∂q1, ∂²L̂/∂q0∂Δt], [−∂²L̂/∂Δt∂q1, −∂²L̂/∂Δt²]]`.
    fn correct<const N: usize>(
        &self,
        g: &TimeArrow<N>,
        p: &SVector<f64, N>,
        e: f64,
        start: &(SVector<f64, N>, f64),
    ) -> Result<Solved<N>, TimeStepError>
    where
        L: StepLagrangian<N>,
    {
        let l = &self.lagrangian;
        let mut u0 = DVector::<f64>::zeros(N + 1);
        u0.rows_mut(0, N).copy_from(&start.0);
        u0[N] = start.1;
        let (u, report) = newton_dyn(
            |u: &DVector<f64>| {
                let q2 = SVector::<f64, N>::from_fn(|i, _| u[i]);
                let d = partials(l, &g.q1, &q2, u[N]);
                let mut f = DVector::<f64>::zeros(N + 1);
                f.rows_mut(0, N).copy_from(&(d.d0 + p));
                f[N] = -d.dt - e;
                let mut j = DMatrix::<f64>::zeros(N + 1, N + 1);
                j.view_mut((0, 0), (N, N)).copy_from(&d.d01);
                j.view_mut((0, N), (N, 1)).copy_from(&d.d0t);
                j.view_mut((N, 0), (1, N)).copy_from(&(-d.d1t.transpose()));
                j[(N, N)] = -d.dtt;
                Ok((f, j))
            },
            &u0,
            &self.newton,
        )?;
        Ok(Solved {
            q2: SVector::from_fn(|i, _| u[i]),
            dt: u[N],
            iterations: report.iterations,
            residual: report.residual,
        })
    }

    /// The redirection: a root of `r(τ) = E(q_{k+1}, Q(τ), τ) − E_k` on `τ ∈ [Δt_k/ρ, ρΔt_k]`,
    /// where `Q(τ)` solves the q-equation at the step `τ` (warm-started from the predictor scaled
    /// to `τ`). The bracket is searched outwards from `τ = Δt_k` by factors 2 (capped at `ρ`), then
    /// narrowed by the Illinois variant of regula falsi to `|r| <= residual_tol` (or to a bracket
    /// of a few ulps with `|r| <=` [`ROUNDOFF_FACTOR`]` · residual_tol`). Every trial has `τ > 0`,
    /// so the time-reversed root cannot be reached.
    fn redirect<const N: usize>(
        &self,
        g: &TimeArrow<N>,
        p: &SVector<f64, N>,
        e: f64,
        predicted: &SVector<f64, N>,
    ) -> Result<Solved<N>, TimeStepError>
    where
        L: StepLagrangian<N>,
    {
        let l = &self.lagrangian;
        let tol = self.newton.residual_tol;
        // (trial solves, Newton iterations)
        let count = Cell::new((0usize, 0usize));
        // r at the step τ, with Q(τ) from the warm start `from` (scaled to τ)
        let trial = |tau: f64, from: &(f64, SVector<f64, N>)| -> Option<(f64, f64, SVector<f64, N>)> {
            let (trials, iterations) = count.get();
            count.set((trials + 1, iterations));
            let guess = g.q1 + (from.1 - g.q1) * (tau / from.0);
            let (q2, its) = solve_q(l, &g.q1, p, tau, &guess, &self.newton).ok()?;
            count.set((trials + 1, iterations + its));
            let r = energy_at(l, &g.q1, &q2, tau) - e;
            r.is_finite().then_some((tau, r, q2))
        };
        let done = |(tau, r, q2): (f64, f64, SVector<f64, N>)| Solved {
            q2,
            dt: tau,
            iterations: count.get().1,
            residual: r.abs(),
        };
        let r0 = energy_at(l, &g.q1, predicted, g.dt) - e;
        if !r0.is_finite() {
            return Err(TimeStepError::NonFinite { what: "discrete energy at the predictor" });
        }
        let origin = (g.dt, r0, *predicted);
        if r0.abs() <= tol {
            return Ok(done(origin));
        }
        // search outwards for a sign change of r
        let (mut up, mut down) = (origin, origin);
        let (mut up_open, mut down_open) = (true, true);
        let mut factor = 1.0f64;
        let mut bracket = None;
        while bracket.is_none() && (up_open || down_open) {
            factor = (factor * 2.0).min(self.max_step_ratio);
            for (side, open, tau) in
                [(&mut up, &mut up_open, g.dt * factor), (&mut down, &mut down_open, g.dt / factor)]
            {
                if !*open || bracket.is_some() {
                    continue;
                }
                match trial(tau, &(side.0, side.2)) {
                    Some(t) if t.1.abs() <= tol => return Ok(done(t)),
                    Some(t) if t.1.signum() != side.1.signum() => bracket = Some((*side, t)),
                    Some(t) => *side = t,
                    None => *open = false,
                }
            }
            if factor >= self.max_step_ratio {
                break;
            }
        }
        let Some((mut a, mut b)) = bracket else {
            let residual = up.1.abs().min(down.1.abs()).min(r0.abs());
            return Err(TimeStepError::NoAdmissibleRoot { previous: g.dt, max_ratio: self.max_step_ratio, residual });
        };
        // Illinois: regula falsi, halving the retained end's value after two updates on one side
        let (mut fa, mut fb) = (a.1, b.1);
        let mut side = 0i8;
        while count.get().0 < REDIRECT_MAX_TRIALS {
            let (lo, hi) = (a.0.min(b.0), a.0.max(b.0));
            let mut tau = (a.0 * fb - b.0 * fa) / (fb - fa);
            if !(tau > lo && tau < hi) {
                tau = 0.5 * (lo + hi);
            }
            let near = if (tau - a.0).abs() < (tau - b.0).abs() { a } else { b };
            let Some(c) = trial(tau, &(near.0, near.2)) else {
                break;
            };
            if c.1.abs() <= tol {
                return Ok(done(c));
            }
            if c.1.signum() == fb.signum() {
                (b, fb) = (c, c.1);
                if side == -1 {
                    fa *= 0.5;
                }
                side = -1;
            } else {
                (a, fa) = (c, c.1);
                if side == 1 {
                    fb *= 0.5;
                }
                side = 1;
            }
            if (b.0 - a.0).abs() <= 4.0 * f64::EPSILON * hi {
                let best = if a.1.abs() < b.1.abs() { a } else { b };
                if best.1.abs() <= ROUNDOFF_FACTOR * tol {
                    return Ok(done(best));
                }
                break;
            }
        }
        let residual = a.1.abs().min(b.1.abs());
        Err(TimeStepError::NotConverged { iterations: count.get().0, residual, step: (b.0 - a.0).abs() })
    }
}

/// The accepted arrow `(q_{k+1}, q_{k+2}, Δt_{k+1})`, after a finiteness check.
fn finish<const N: usize>(
    g: &TimeArrow<N>,
    s: Solved<N>,
    report: TimeStepReport,
) -> Result<(TimeArrow<N>, TimeStepReport), TimeStepError> {
    if !(s.q2.iter().all(|v| v.is_finite()) && s.dt.is_finite()) {
        return Err(TimeStepError::NonFinite { what: "adaptive step result (q_(k+2), Δt_(k+1))" });
    }
    if s.dt <= 0.0 {
        return Err(TimeStepError::NonPositiveStep { dt: s.dt });
    }
    Ok((g.next(s.q2, s.dt), report))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `L = ½|v|² − V(q)` with `V = q_0² q_1 + sin q_0`, a non-separable test potential.
    struct Test;
    impl ContinuousLagrangian<2> for Test {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>, v: &SVector<S, 2>) -> S {
            v.norm_squared() * S::from(0.5) - (q[0] * q[0] * q[1] + q[0].sin())
        }
    }

    #[test]
    fn partials_match_central_differences() {
        let l = Midpoint(Test);
        let (q0, q1, dt) = (SVector::from([0.3, -0.2]), SVector::from([0.45, -0.1]), 0.07);
        let d = partials(&l, &q0, &q1, dt);
        let f = |a: &SVector<f64, 2>, b: &SVector<f64, 2>, t: f64| l.eval::<f64>(a, b, t);
        let eps = 1e-6;
        let e = |i: usize| SVector::<f64, 2>::from_fn(|j, _| if i == j { eps } else { 0.0 });
        let dtf =
            |a: &SVector<f64, 2>, b: &SVector<f64, 2>, t: f64| (f(a, b, t + eps) - f(a, b, t - eps)) / (2.0 * eps);
        assert!((d.dt - dtf(&q0, &q1, dt)).abs() < 1e-7);
        assert!((d.dtt - (dtf(&q0, &q1, dt + eps) - dtf(&q0, &q1, dt - eps)) / (2.0 * eps)).abs() < 1e-3);
        for i in 0..2 {
            let d0 = (f(&(q0 + e(i)), &q1, dt) - f(&(q0 - e(i)), &q1, dt)) / (2.0 * eps);
            assert!((d.d0[i] - d0).abs() < 1e-6, "{i}");
            let d0t = (dtf(&(q0 + e(i)), &q1, dt) - dtf(&(q0 - e(i)), &q1, dt)) / (2.0 * eps);
            let d1t = (dtf(&q0, &(q1 + e(i)), dt) - dtf(&q0, &(q1 - e(i)), dt)) / (2.0 * eps);
            assert!((d.d0t[i] - d0t).abs() < 1e-4 && (d.d1t[i] - d1t).abs() < 1e-4, "{i}");
            for j in 0..2 {
                let g = |b: &SVector<f64, 2>| (f(&(q0 + e(i)), b, dt) - f(&(q0 - e(i)), b, dt)) / (2.0 * eps);
                let d01 = (g(&(q1 + e(j))) - g(&(q1 - e(j)))) / (2.0 * eps);
                assert!((d.d01[(i, j)] - d01).abs() < 1e-3, "{i}{j}");
            }
        }
        // E = ½|Δq/Δt|² + V(q̄) for the midpoint rule
        let (v, qb) = ((q1 - q0) / dt, (q0 + q1) * 0.5);
        let energy = 0.5 * v.norm_squared() + qb[0] * qb[0] * qb[1] + qb[0].sin();
        assert!((discrete_energy(&l, &TimeArrow::new(q0, q1, 0.0, dt)) - energy).abs() < 1e-13);
    }

    #[test]
    fn compensated_time_is_the_rounded_exact_sum() {
        // 10^6 additions of fl(0.1): the exact sum is 10^6 fl(0.1) (representable to a few ulps)
        let h = 0.1f64;
        let (mut t, mut naive) = (CompensatedTime::new(0.0), 0.0f64);
        for _ in 0..1_000_000 {
            t += h;
            naive += h;
        }
        let exact = 1_000_000.0 * h; // one rounding of the exact product
        assert!((t.value() - exact).abs() <= f64::EPSILON * exact, "{} vs {exact}", t.value());
        assert!((naive - exact).abs() > 1e-7, "plain summation drifts: {}", naive - exact);
    }
}
