//! The robust shooting solvers' options, size limit and error type (used by the solvers of
//! [`super`] and their Levenberg–Marquardt core, `lm`).

use geom_core::{GeomError, Result};

/// The dense Jacobian of [`MultipleShooting::residual`](super::MultipleShooting::residual) (a checking aid: `8 n_u²` bytes) is
/// refused above this many unknowns ([`BvpError::TooLarge`]). The solver itself never forms
/// it: its step works on the blocks (`O(S (R+M)²)` memory).
pub const MAX_DENSE_UNKNOWNS: usize = 1024;

/// Errors of the robust boundary-value solvers ([`Shooting::solve_robust`](super::Shooting::solve_robust),
/// [`Shooting::solve_continuation`](super::Shooting::solve_continuation), [`MultipleShooting::solve`](super::MultipleShooting::solve)).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BvpError {
    /// An error of the flow, of the groupoid maps or of the options, unchanged.
    #[error(transparent)]
    Geom(#[from] GeomError),
    /// Levenberg–Marquardt stopped without reaching the tolerance: the trial budget is spent, or
    /// the damping grew past `1e20 σ_max²` without a decrease of `|E|_2`.
    #[error(
        "robust shooting did not converge after {iterations} accepted steps and {rejected} rejected trials \
         (residual |E|_inf = {residual:.3e})"
    )]
    NotConverged {
        /// Accepted steps.
        iterations: usize,
        /// Rejected trial steps.
        rejected: usize,
        /// `|E|_∞` at the last accepted iterate.
        residual: f64,
        /// `|E|_2` at the guess and at every accepted iterate (non-increasing).
        history: Vec<f64>,
    },
    /// A size derived from the user's `N` exceeds what the solver accepts or can allocate.
    #[error("{what} = {requested} exceeds the limit {limit}")]
    TooLarge {
        /// Which size.
        what: &'static str,
        /// Requested size (saturated at `usize::MAX`).
        requested: usize,
        /// Largest accepted size (for allocations: the request that failed, minus one).
        limit: usize,
    },
}

/// Options of the Levenberg–Marquardt shooting solvers.
///
/// `Default`: `residual_tol = 1e-12`, `max_trials = 200`, `rank_rtol = 1e-9`,
/// `initial_damping = 1e-4`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShootingOptions {
    /// Converged when `|E(u)|_∞ <= residual_tol`, or at the round-off floor: with
    /// `|E|_∞ <= 100 · residual_tol`, when a Gauss–Newton trial fails to decrease `|E|_2` or an
    /// accepted step fails to halve it (stagnation).
    pub residual_tol: f64,
    /// Budget of trial steps (accepted + rejected).
    pub max_trials: usize,
    /// Singular values `σ_i <= rank_rtol · σ_max` of the Jacobian are treated as zero: dropped
    /// from the step (minimum-norm correction) and reported as gauge directions at the solution.
    pub rank_rtol: f64,
    /// The first damping is `μ_0 = initial_damping · σ_max²` (`0`: start with Gauss–Newton).
    pub initial_damping: f64,
}

impl Default for ShootingOptions {
    fn default() -> Self {
        Self { residual_tol: 1e-12, max_trials: 200, rank_rtol: 1e-9, initial_damping: 1e-4 }
    }
}

impl ShootingOptions {
    /// [`GeomError::InvalidParameter`] unless the tolerances are finite and positive
    /// (`rank_rtol < 1`), `initial_damping` is finite and non-negative and `max_trials >= 1`.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: &'static str, v: f64| GeomError::InvalidParameter { what, reason: format!("got {v}") };
        if !(self.residual_tol.is_finite() && self.residual_tol > 0.0) {
            return Err(bad("residual_tol", self.residual_tol));
        }
        if !(self.rank_rtol.is_finite() && self.rank_rtol > 0.0 && self.rank_rtol < 1.0) {
            return Err(bad("rank_rtol", self.rank_rtol));
        }
        if !(self.initial_damping.is_finite() && self.initial_damping >= 0.0) {
            return Err(bad("initial_damping", self.initial_damping));
        }
        if self.max_trials == 0 {
            return Err(GeomError::InvalidParameter { what: "max_trials", reason: "must be at least 1".into() });
        }
        Ok(())
    }
}
