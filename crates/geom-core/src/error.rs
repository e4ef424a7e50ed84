//! The error type of `geom-core`.

use thiserror::Error;

/// Everything that can go wrong in `geom-core`. User input never panics; it produces one of these.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Error)]
pub enum GeomError {
    /// A value that must be finite is NaN or infinite.
    #[error("non-finite value in {what}")]
    NonFinite {
        /// Which input was not finite.
        what: &'static str,
    },
    /// Two sizes that must agree do not.
    #[error("dimension mismatch in {what}: expected {expected}, got {got}")]
    DimensionMismatch {
        /// Which input had the wrong size.
        what: &'static str,
        /// Size required.
        expected: usize,
        /// Size received.
        got: usize,
    },
    /// A point (or group element, or tangent vector) is not on its manifold within tolerance.
    #[error("{what} is off its manifold: defect {defect:.3e} > tolerance {tolerance:.3e}")]
    OffManifold {
        /// What was checked (e.g. "SO(3) element", "S^2 point").
        what: &'static str,
        /// Measured defect (e.g. `|R^T R - I|_F + |det R - 1|`).
        defect: f64,
        /// Tolerance it was checked against.
        tolerance: f64,
    },
    /// A parameter is outside its admissible range.
    #[error("invalid parameter {what}: {reason}")]
    InvalidParameter {
        /// Name of the parameter.
        what: &'static str,
        /// Why it is invalid.
        reason: String,
    },
    /// A map (log, inverse Cayley, dexp^-1, ...) is not defined at this point.
    #[error("{map} is not defined here: {reason}")]
    OutsideDomain {
        /// Name of the map.
        map: &'static str,
        /// Why (e.g. "rotation angle is pi").
        reason: &'static str,
    },
    /// A chart (a map `τ: g → G` with its derivatives) that the group does not have: e.g. the
    /// Cayley map of SL(n ≥ 3), whose values have `det ≠ 1`. Returned by every operation of that
    /// chart, so a method built on it is refused with this error.
    #[error("{group} has no {chart} chart into the group")]
    ChartUnavailable {
        /// The chart (`"cayley"`).
        chart: &'static str,
        /// The group's name (boxed: a second `String` field in the enum would cost every
        /// `Result` of the crate its niche layout, measured 5% on the heavy-top HP step).
        group: Box<str>,
    },
    /// A time step that is zero, NaN or infinite (one-step maps accept negative steps, which
    /// compositions and adjoints use; drivers require positive ones).
    #[error("invalid step size h = {h}")]
    InvalidStep {
        /// The rejected step.
        h: f64,
    },
    /// Newton's method did not reach the tolerance.
    #[error("Newton did not converge after {iterations} iterations (residual {residual:.3e}, step {step:.3e})")]
    NotConverged {
        /// Iterations performed.
        iterations: usize,
        /// Final residual norm `|F(x)|`.
        residual: f64,
        /// Final step norm `|dx|`.
        step: f64,
    },
    /// A Jacobian (or other matrix that must be inverted) is singular.
    #[error("singular matrix in {what} (iteration {iteration})")]
    SingularMatrix {
        /// Which matrix.
        what: &'static str,
        /// Newton iteration at which it happened (0 outside Newton).
        iteration: usize,
    },
}

/// Result alias of `geom-core`.
pub type Result<T, E = GeomError> = std::result::Result<T, E>;

/// `Ok(())` if every entry is finite, else [`GeomError::NonFinite`].
#[inline]
pub fn check_finite<'a, I: IntoIterator<Item = &'a f64>>(values: I, what: &'static str) -> Result<()> {
    if all_finite(values) { Ok(()) } else { Err(GeomError::NonFinite { what }) }
}

/// Whether every value is finite, branch-free: `Σ 0·v_i` is `0` when every `v_i` is finite and
/// `NaN` as soon as one is infinite or `NaN` (`0·∞ = NaN`, and `NaN` propagates through the sum).
#[inline]
pub fn all_finite<'a, I: IntoIterator<Item = &'a f64>>(values: I) -> bool {
    values.into_iter().fold(0.0, |acc, v| acc + 0.0 * v) == 0.0
}
