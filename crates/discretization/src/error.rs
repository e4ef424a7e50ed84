//! Errors of the `discretization` layer.
//!
//! One-step maps and the checkers report [`geom_core::GeomError`] (invalid step, Newton failure,
//! non-finite state, ...), the error every layer shares at the step level; this crate adds
//! [`DiscretizationError`] for what only it can detect.

use geom_core::GeomError;
use thiserror::Error;

/// What can go wrong in `discretization` beyond [`GeomError`].
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Error)]
pub enum DiscretizationError {
    /// An error of the layer below.
    #[error(transparent)]
    Geom(#[from] GeomError),
    /// A defining property (of a retraction, a discretization map, symmetry preservation) is
    /// violated beyond tolerance.
    #[error("{property} violated: defect {defect:.3e} > tolerance {tolerance:.3e}")]
    PropertyViolated {
        /// Which property.
        property: &'static str,
        /// Largest measured violation.
        defect: f64,
        /// Tolerance.
        tolerance: f64,
    },
}
