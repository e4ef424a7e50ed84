//! Discretization maps `R_d: TQ -> Q × Q`, `v_x ↦ (R^1(v_x), R^2(v_x))` (§2 of Barbero-Liñán,
//! Marrero, Martín de Diego, *From retraction maps to symplectic-momentum numerical integrators*,
//! 2024, arXiv:2401.14800; docs/math.md §A.1):
//!
//! 1. `R_d(0_x) = (x, x)`;
//! 2. `T_{0_x} R^2_x - T_{0_x} R^1_x = Id_{T_xQ}`.
//!
//! [`DiscretizationMap`] is the object-safe trait for any configuration space (R^n, a Lie group,
//! S^2); [`EuclideanMap`] adds, on `Q = R^N`, the derivatives that the cotangent lift and the
//! induced integrator need (docs/math.md §B.1). On a Lie group the derivatives are the
//! left-trivialized blocks of [`crate::LieGroupMap`] (§B.4); on `(S^2)^K` a map is an ambient
//! [`crate::MapModel`] read in a chart ([`crate::sphere_lift`], §B.5).

use geom_core::GeomError;
use nalgebra::{SMatrix, SVector};
use std::fmt::Debug;

/// A discretization map on a configuration space with points `Point` and tangent vectors
/// `Tangent` (object-safe).
pub trait DiscretizationMap: Debug + Send + Sync {
    /// A point of `Q`.
    type Point: Clone + Debug;
    /// A tangent vector, in the coordinates the map documents (ambient for embedded manifolds,
    /// left-trivialized `ξ = g^{-1} v` on Lie groups).
    type Tangent: Clone + Debug;
    /// Name, e.g. `"midpoint"`.
    fn name(&self) -> String;
    /// `R_d(x, v) = (R^1(x, v), R^2(x, v))`.
    fn apply(&self, x: &Self::Point, v: &Self::Tangent) -> Result<(Self::Point, Self::Point), GeomError>;
    /// `R_d^{-1}(q_0, q_1) = (x, v)` (closed form where it exists, Newton otherwise).
    fn inverse(&self, q0: &Self::Point, q1: &Self::Point) -> Result<(Self::Point, Self::Tangent), GeomError>;
    /// A distance on `Q`, used by the checkers (Euclidean in the ambient or matrix coordinates).
    fn distance(&self, a: &Self::Point, b: &Self::Point) -> f64;
    /// Whether the map is self-adjoint, `R_d^* = R_d` (§A.5); the induced integrator is then
    /// symmetric and of order 2 (order 1 otherwise).
    fn is_symmetric(&self) -> bool {
        false
    }
}

/// The four Jacobian blocks of `R_d` on `R^N` at `(x, v)`: `dx1 = ∂_x R^1`, `dv1 = ∂_v R^1`,
/// `dx2 = ∂_x R^2`, `dv2 = ∂_v R^2` (`dx1[(i, j)] = ∂R^1_i/∂x_j`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapJacobian<const N: usize> {
    /// `∂_x R^1`.
    pub dx1: SMatrix<f64, N, N>,
    /// `∂_v R^1`.
    pub dv1: SMatrix<f64, N, N>,
    /// `∂_x R^2`.
    pub dx2: SMatrix<f64, N, N>,
    /// `∂_v R^2`.
    pub dv2: SMatrix<f64, N, N>,
}

/// Second derivatives of the scalar `φ(x, v) = <P_0, R^1(x, v)> + <P_1, R^2(x, v)>` for fixed
/// covectors `(P_0, P_1)`: `xx[(i, j)] = ∂²φ/∂x_i∂x_j`, `xv[(i, j)] = ∂²φ/∂x_i∂v_j`,
/// `vv[(i, j)] = ∂²φ/∂v_i∂v_j`. These are the derivatives of the cotangent-lift equations
/// `p_x = (∂_x R^1)ᵀ P_0 + (∂_x R^2)ᵀ P_1`, `p_v = (∂_v R^1)ᵀ P_0 + (∂_v R^2)ᵀ P_1` (docs/math.md §B.1)
/// with respect to `(x, v)`; all zero for the affine θ-family.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CovectorHessian<const N: usize> {
    /// `∂²φ/∂x∂x`.
    pub xx: SMatrix<f64, N, N>,
    /// `∂²φ/∂x∂v`.
    pub xv: SMatrix<f64, N, N>,
    /// `∂²φ/∂v∂v`.
    pub vv: SMatrix<f64, N, N>,
}

impl<const N: usize> CovectorHessian<N> {
    /// All blocks zero (affine maps).
    pub fn zeros() -> Self {
        Self { xx: SMatrix::zeros(), xv: SMatrix::zeros(), vv: SMatrix::zeros() }
    }
}

/// A discretization map on `Q = R^N` with its derivatives (object-safe:
/// `Box<dyn EuclideanMap<N>>`); what the induced Hamiltonian integrator consumes.
pub trait EuclideanMap<const N: usize>: DiscretizationMap<Point = SVector<f64, N>, Tangent = SVector<f64, N>> {
    /// The Jacobian blocks at `(x, v)`.
    fn jacobian(&self, x: &SVector<f64, N>, v: &SVector<f64, N>) -> MapJacobian<N>;
    /// Second derivatives of `<P_0, R^1> + <P_1, R^2>` at `(x, v)`.
    fn covector_hessian(
        &self,
        x: &SVector<f64, N>,
        v: &SVector<f64, N>,
        p0: &SVector<f64, N>,
        p1: &SVector<f64, N>,
    ) -> CovectorHessian<N>;
    /// `Some(θ)` if the map is the affine θ-map `(x - θv, x + (1-θ)v)`, whose induced
    /// integrator has the reduced form of docs/math.md §B.1; `None` otherwise.
    fn theta(&self) -> Option<f64> {
        None
    }
}

/// A boxed map is a map (so that `Box<dyn DiscretizationMap<..>>` drives the integrators).
impl<M: DiscretizationMap + ?Sized> DiscretizationMap for Box<M> {
    type Point = M::Point;
    type Tangent = M::Tangent;
    fn name(&self) -> String {
        (**self).name()
    }
    fn apply(&self, x: &Self::Point, v: &Self::Tangent) -> Result<(Self::Point, Self::Point), GeomError> {
        (**self).apply(x, v)
    }
    fn inverse(&self, q0: &Self::Point, q1: &Self::Point) -> Result<(Self::Point, Self::Tangent), GeomError> {
        (**self).inverse(q0, q1)
    }
    fn distance(&self, a: &Self::Point, b: &Self::Point) -> f64 {
        (**self).distance(a, b)
    }
    fn is_symmetric(&self) -> bool {
        (**self).is_symmetric()
    }
}

impl<M: EuclideanMap<N> + ?Sized, const N: usize> EuclideanMap<N> for Box<M> {
    fn jacobian(&self, x: &SVector<f64, N>, v: &SVector<f64, N>) -> MapJacobian<N> {
        (**self).jacobian(x, v)
    }
    fn covector_hessian(
        &self,
        x: &SVector<f64, N>,
        v: &SVector<f64, N>,
        p0: &SVector<f64, N>,
        p1: &SVector<f64, N>,
    ) -> CovectorHessian<N> {
        (**self).covector_hessian(x, v, p0, p1)
    }
    fn theta(&self) -> Option<f64> {
        (**self).theta()
    }
}
