//! The phase-space state `(q, p)` of `T*R^N`.

use crate::GeomError;
use nalgebra::SVector;

/// A point `(q, p)` of `T*R^N`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhaseState<const N: usize> {
    /// Position `q`.
    pub q: SVector<f64, N>,
    /// Momentum `p`.
    pub p: SVector<f64, N>,
}

impl<const N: usize> PhaseState<N> {
    /// The state `(q, p)`.
    pub fn new(q: SVector<f64, N>, p: SVector<f64, N>) -> Self {
        Self { q, p }
    }
    /// A state from slices; [`GeomError::DimensionMismatch`] unless both have length `N`,
    /// [`GeomError::NonFinite`] for non-finite entries.
    ///
    /// ```
    /// use geom_core::step::PhaseState;
    /// let s = PhaseState::<2>::from_slices(&[1.0, 0.0], &[0.0, 1.0])?;
    /// assert_eq!(s.q[0], 1.0);
    /// assert!(PhaseState::<2>::from_slices(&[1.0], &[0.0, 1.0]).is_err());
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn from_slices(q: &[f64], p: &[f64]) -> Result<Self, GeomError> {
        for (what, v) in [("q", q), ("p", p)] {
            if v.len() != N {
                return Err(GeomError::DimensionMismatch { what, expected: N, got: v.len() });
            }
        }
        let s = Self { q: SVector::from_column_slice(q), p: SVector::from_column_slice(p) };
        if s.is_finite() { Ok(s) } else { Err(GeomError::NonFinite { what: "phase state" }) }
    }
    /// Whether every entry is finite.
    #[inline]
    pub fn is_finite(&self) -> bool {
        // branch-free, on the two contiguous slices (a `Chain` iterator's fold is not always
        // inlined, and this runs once per step)
        let zero = |v: &[f64]| v.iter().fold(0.0, |acc, x| acc + 0.0 * x);
        zero(self.q.as_slice()) + zero(self.p.as_slice()) == 0.0
    }
}
