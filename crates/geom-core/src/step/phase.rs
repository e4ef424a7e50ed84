//! The phase-space state `(q, p)` of `T*R^N`, with `N` compiled in ([`PhaseState`]) or known at
//! run time ([`DynPhaseState`]).

use crate::GeomError;
use nalgebra::{DVector, SVector};

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
        all_finite(self.q.as_slice(), self.p.as_slice())
    }
}

/// Whether every entry of `q` and `p` is finite: `Σ 0·x = 0` exactly when no `x` is infinite or
/// `NaN`, branch-free on the two contiguous slices (a `Chain` iterator's fold is not always
/// inlined, and this runs once per step).
#[inline]
pub(crate) fn all_finite(q: &[f64], p: &[f64]) -> bool {
    let zero = |v: &[f64]| v.iter().fold(0.0, |acc, x| acc + 0.0 * x);
    zero(q) + zero(p) == 0.0
}

/// A point `(q, p)` of `T*R^n` with the dimension `n` known at run time: the state of the
/// run-time-size N-body system ([`crate::pairwise::DynNBody`]) and of the explicit splitting
/// methods on it (`integrators::separable_dyn`). Checkpoints save it as `q`, then `p`
/// ([`super::Words`]), as [`PhaseState`].
///
/// ```
/// use geom_core::step::DynPhaseState;
///
/// let s = DynPhaseState::from_slices(&[1.0, 0.0, 0.5], &[0.0, 1.0, 0.0])?;
/// assert_eq!((s.dim(), s.q[2]), (3, 0.5));
/// assert!(s.is_finite());
/// assert!(DynPhaseState::from_slices(&[1.0], &[0.0, 1.0]).is_err());
/// assert!(DynPhaseState::from_slices(&[f64::NAN], &[0.0]).is_err());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DynPhaseState {
    /// Position `q`.
    pub q: DVector<f64>,
    /// Momentum `p` (of the length of `q`).
    pub p: DVector<f64>,
}

impl DynPhaseState {
    /// The state `(q, p)`; [`GeomError::DimensionMismatch`] unless `p` has the length of `q`.
    pub fn new(q: DVector<f64>, p: DVector<f64>) -> Result<Self, GeomError> {
        if p.len() != q.len() {
            return Err(GeomError::DimensionMismatch { what: "p (the length of q)", expected: q.len(), got: p.len() });
        }
        Ok(Self { q, p })
    }
    /// A state from slices; [`GeomError::DimensionMismatch`] unless both have the same length,
    /// [`GeomError::NonFinite`] for non-finite entries.
    pub fn from_slices(q: &[f64], p: &[f64]) -> Result<Self, GeomError> {
        let s = Self::new(DVector::from_column_slice(q), DVector::from_column_slice(p))?;
        if s.is_finite() { Ok(s) } else { Err(GeomError::NonFinite { what: "phase state" }) }
    }
    /// The dimension `n` of `q` (and of `p`).
    #[inline]
    pub fn dim(&self) -> usize {
        self.q.len()
    }
    /// Whether every entry is finite.
    #[inline]
    pub fn is_finite(&self) -> bool {
        all_finite(self.q.as_slice(), self.p.as_slice())
    }
}
