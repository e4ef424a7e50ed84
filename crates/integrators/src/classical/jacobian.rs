//! Step Jacobians `M = ∂(q₁, p₁)/∂(q₀, p₀)` on `T*R^N`: the block matrix and the trait of the
//! methods that return it with the step.

use super::kernels::Matrix;
use geom_core::GeomError;
use geom_core::step::PhaseState;
use nalgebra::DMatrix;

/// The Jacobian `M = ∂(q₁, p₁)/∂(q₀, p₀)` of a one-step map on `T*R^N`, in four `N × N` blocks
/// `M = [[qq, qp], [pq, pp]]` with `qq = ∂q₁/∂q₀`, `qp = ∂q₁/∂p₀`, `pq = ∂p₁/∂q₀`,
/// `pp = ∂p₁/∂p₀`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhaseJacobian<const N: usize> {
    /// `∂q₁/∂q₀`.
    pub qq: Matrix<N>,
    /// `∂q₁/∂p₀`.
    pub qp: Matrix<N>,
    /// `∂p₁/∂q₀`.
    pub pq: Matrix<N>,
    /// `∂p₁/∂p₀`.
    pub pp: Matrix<N>,
}

impl<const N: usize> PhaseJacobian<N> {
    /// The identity map's Jacobian.
    ///
    /// ```
    /// let m = integrators::classical::PhaseJacobian::<2>::identity();
    /// assert_eq!(m.symplecticity_defect(), 0.0);
    /// ```
    pub fn identity() -> Self {
        Self { qq: Matrix::identity(), qp: Matrix::zeros(), pq: Matrix::zeros(), pp: Matrix::identity() }
    }

    /// The Jacobian of the composition `self ∘ first` (first `first`, then `self`): the block
    /// product `self · first`.
    pub fn after(&self, first: &Self) -> Self {
        Self {
            qq: self.qq * first.qq + self.qp * first.pq,
            qp: self.qq * first.qp + self.qp * first.pp,
            pq: self.pq * first.qq + self.pp * first.pq,
            pp: self.pq * first.qp + self.pp * first.pp,
        }
    }

    /// `|Mᵀ Ω M − Ω|_max` with `Ω = [[0, I], [−I, 0]]` (zero iff `M` is symplectic, HLW VI.2).
    /// With `M = [[A, B], [C, D]]`: `MᵀΩM = [[AᵀC − CᵀA, AᵀD − CᵀB], [BᵀC − DᵀA, BᵀD − DᵀB]]`.
    pub fn symplecticity_defect(&self) -> f64 {
        let (a, b, c, d) = (&self.qq, &self.qp, &self.pq, &self.pp);
        let top_left = a.transpose() * c - c.transpose() * a;
        let top_right = a.transpose() * d - c.transpose() * b - Matrix::<N>::identity();
        let bottom_right = b.transpose() * d - d.transpose() * b;
        top_left.amax().max(top_right.amax()).max(bottom_right.amax())
    }

    /// The full `2N × 2N` matrix (ordering `(q, p)`); allocates.
    pub fn to_dmatrix(&self) -> DMatrix<f64> {
        DMatrix::from_fn(2 * N, 2 * N, |i, j| match (i < N, j < N) {
            (true, true) => self.qq[(i, j)],
            (true, false) => self.qp[(i, j - N)],
            (false, true) => self.pq[(i - N, j)],
            (false, false) => self.pp[(i - N, j - N)],
        })
    }

    /// `det M` (1 for symplectic maps, Liouville); allocates.
    pub fn determinant(&self) -> f64 {
        self.to_dmatrix().determinant()
    }
}

/// A one-step map on `T*R^N` that also returns its exact Jacobian `M = ∂(q₁, p₁)/∂(q₀, p₀)`
/// (module documentation: implicit differentiation at the Newton solution, or the chain rule
/// through explicit stages). Object-safe.
pub trait StepJacobian<const N: usize>: Send + Sync {
    /// `(Φ_h(q, p), DΦ_h(q, p))`; the same errors as the step.
    fn step_jacobian(&self, state: &PhaseState<N>, h: f64) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError>;
}
