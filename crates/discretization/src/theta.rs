//! The affine θ-family on `R^N` (docs/math.md §A.2, §A.5): `R_d(x, v) = (x - θv, x + (1-θ)v)`,
//! `θ ∈ [0, 1]`. Explicit Euler is `θ = 0`, the midpoint map `θ = 1/2`, and the α-family of
//! Example 4 of Barbero-Liñán, Marrero, Martín de Diego, *From retraction maps to
//! symplectic-momentum numerical integrators*, 2024, arXiv:2401.14800, `(x + (α-1)v, x + αv)`, is
//! `θ = 1 - α`.
//!
//! * Inverse: `R_d^{-1}(q_0, q_1) = ((1-θ) q_0 + θ q_1, q_1 - q_0)`.
//! * Adjoint (Remark 1): `R_d^* = I_Q ∘ R_d ∘ (-1)` is the θ-map with `1 - θ`; the midpoint map is
//!   self-adjoint.
//! * Every θ-map is GL(n)-equivariant, `R_d(M x, M v) = (M × M) R_d(x, v)`, hence symmetry
//!   preserving for every linear action (Example 4).

use crate::map::{CovectorHessian, DiscretizationMap, EuclideanMap, MapJacobian};
use geom_core::GeomError;
use nalgebra::{SMatrix, SVector};

/// The θ-map `(x - θv, x + (1-θ)v)` on `R^N`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThetaMap<const N: usize> {
    theta: f64,
}

impl<const N: usize> ThetaMap<N> {
    /// The θ-map; [`GeomError::InvalidParameter`] unless `θ ∈ [0, 1]`.
    ///
    /// ```
    /// use discretization::ThetaMap;
    /// assert!(ThetaMap::<3>::new(0.25).is_ok());
    /// assert!(ThetaMap::<3>::new(1.5).is_err());
    /// assert!(ThetaMap::<3>::new(f64::NAN).is_err());
    /// ```
    pub fn new(theta: f64) -> Result<Self, GeomError> {
        if (0.0..=1.0).contains(&theta) {
            Ok(Self { theta })
        } else {
            Err(GeomError::InvalidParameter { what: "theta", reason: format!("must lie in [0, 1], got {theta}") })
        }
    }
    /// The α-map of Barbero-Liñán et al. 2024, Example 4, `(x + (α-1)v, x + αv)` = θ-map with
    /// `θ = 1 - α`.
    pub fn alpha(alpha: f64) -> Result<Self, GeomError> {
        if (0.0..=1.0).contains(&alpha) {
            Ok(Self { theta: 1.0 - alpha })
        } else {
            Err(GeomError::InvalidParameter { what: "alpha", reason: format!("must lie in [0, 1], got {alpha}") })
        }
    }
    /// Explicit Euler `(x, x + v)`, `θ = 0`; its induced integrator is symplectic Euler
    /// `q_{k+1} = q_k + h H_p(q_k, p_{k+1})`, `p_{k+1} = p_k - h H_q(q_k, p_{k+1})`.
    pub fn explicit_euler() -> Self {
        Self { theta: 0.0 }
    }
    /// The midpoint map `(x - v/2, x + v/2)`, `θ = 1/2`; its induced integrator is the implicit
    /// midpoint rule.
    pub fn midpoint() -> Self {
        Self { theta: 0.5 }
    }
    /// θ.
    pub fn value(&self) -> f64 {
        self.theta
    }
    /// The adjoint map `R_d^*`: θ-map with `1 - θ` (Remark 1).
    pub fn adjoint(&self) -> Self {
        Self { theta: 1.0 - self.theta }
    }
}

impl<const N: usize> DiscretizationMap for ThetaMap<N> {
    type Point = SVector<f64, N>;
    type Tangent = SVector<f64, N>;
    fn name(&self) -> String {
        match self.theta {
            0.0 => "explicit Euler (theta = 0)".into(),
            0.5 => "midpoint (theta = 1/2)".into(),
            1.0 => "theta = 1 (adjoint explicit Euler)".into(),
            t => format!("theta = {t}"),
        }
    }
    fn apply(&self, x: &SVector<f64, N>, v: &SVector<f64, N>) -> Result<(SVector<f64, N>, SVector<f64, N>), GeomError> {
        Ok((x - v * self.theta, x + v * (1.0 - self.theta)))
    }
    fn inverse(
        &self,
        q0: &SVector<f64, N>,
        q1: &SVector<f64, N>,
    ) -> Result<(SVector<f64, N>, SVector<f64, N>), GeomError> {
        Ok((q0 * (1.0 - self.theta) + q1 * self.theta, q1 - q0))
    }
    fn distance(&self, a: &SVector<f64, N>, b: &SVector<f64, N>) -> f64 {
        (a - b).norm()
    }
    fn is_symmetric(&self) -> bool {
        self.theta == 0.5
    }
}

impl<const N: usize> EuclideanMap<N> for ThetaMap<N> {
    fn jacobian(&self, _x: &SVector<f64, N>, _v: &SVector<f64, N>) -> MapJacobian<N> {
        let id = SMatrix::<f64, N, N>::identity();
        MapJacobian { dx1: id, dv1: id * -self.theta, dx2: id, dv2: id * (1.0 - self.theta) }
    }
    fn covector_hessian(
        &self,
        _x: &SVector<f64, N>,
        _v: &SVector<f64, N>,
        _p0: &SVector<f64, N>,
        _p1: &SVector<f64, N>,
    ) -> CovectorHessian<N> {
        CovectorHessian::zeros()
    }
    fn theta(&self) -> Option<f64> {
        Some(self.theta)
    }
}
