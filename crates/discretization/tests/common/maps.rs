//! A hand-made nonlinear discretization map on R^N for the general (non-θ) path:
//!
//! ```text
//!   R^1(x, v) = x - v/2 + ε |v|² w(x),   R^2(x, v) = x + v/2 + ε |v|² w(x),   w(x) = a + b x
//! ```
//!
//! * It is a discretization map: `R_d(x, 0) = (x, x)`, and the quadratic term has zero derivative
//!   at `v = 0`, so `T_0 R^2 - T_0 R^1 = I`.
//! * It is self-adjoint: `I_Q ∘ R_d ∘ (-1) = R_d` (the shift is even in `v`).
//! * With `a = 0` it is O(n)-equivariant (`R_d(Mx, Mv) = (M × M) R_d(x, v)` for orthogonal `M`),
//!   hence symmetry-preserving for rotations: Theorem 2 applies. With a fixed `a ≠ 0` it is not
//!   equivariant under rotations (nor under GL(n)), the negative control.
//!
//! Derivatives (`S = P_0 + P_1`, `c = 1 + ε b |v|²`): `∂_x R^1 = ∂_x R^2 = c I`,
//! `∂_v R^{1,2} = ∓ I/2 + 2ε w vᵀ`; for `φ = <P_0, R^1> + <P_1, R^2>`: `φ_xx = 0`,
//! `φ_xv = 2εb S vᵀ`, `φ_vv = 2ε (S·w) I`. Inverse: `v = q_1 - q_0`,
//! `x = ((q_0 + q_1)/2 - ε |v|² a) / (1 + ε b |v|²)`.

use discretization::{CovectorHessian, DiscretizationMap, EuclideanMap, MapJacobian};
use geom_core::GeomError;
use nalgebra::{SMatrix, SVector};

/// `R^{1,2}(x, v) = x ∓ v/2 + ε |v|² (a + b x)` (module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuadraticShift<const N: usize> {
    pub eps: f64,
    pub a: SVector<f64, N>,
    pub b: f64,
}

impl<const N: usize> QuadraticShift<N> {
    /// The non-equivariant map with the fixed direction `a` (`b = 0`).
    pub fn fixed(eps: f64, a: SVector<f64, N>) -> Self {
        Self { eps, a, b: 0.0 }
    }
    /// The rotation-equivariant map `w(x) = x` (`a = 0`, `b = 1`).
    pub fn radial(eps: f64) -> Self {
        Self { eps, a: SVector::zeros(), b: 1.0 }
    }
    fn w(&self, x: &SVector<f64, N>) -> SVector<f64, N> {
        self.a + x * self.b
    }
}

impl<const N: usize> DiscretizationMap for QuadraticShift<N> {
    type Point = SVector<f64, N>;
    type Tangent = SVector<f64, N>;
    fn name(&self) -> String {
        format!("quadratic shift (eps = {}, b = {})", self.eps, self.b)
    }
    fn apply(&self, x: &SVector<f64, N>, v: &SVector<f64, N>) -> Result<(SVector<f64, N>, SVector<f64, N>), GeomError> {
        let shift = self.w(x) * (self.eps * v.norm_squared());
        Ok((x - v * 0.5 + shift, x + v * 0.5 + shift))
    }
    fn inverse(
        &self,
        q0: &SVector<f64, N>,
        q1: &SVector<f64, N>,
    ) -> Result<(SVector<f64, N>, SVector<f64, N>), GeomError> {
        let v = q1 - q0;
        let e = self.eps * v.norm_squared();
        Ok((((q0 + q1) * 0.5 - self.a * e) / (1.0 + self.b * e), v))
    }
    fn distance(&self, a: &SVector<f64, N>, b: &SVector<f64, N>) -> f64 {
        (a - b).norm()
    }
    fn is_symmetric(&self) -> bool {
        true
    }
}

impl<const N: usize> EuclideanMap<N> for QuadraticShift<N> {
    fn jacobian(&self, x: &SVector<f64, N>, v: &SVector<f64, N>) -> MapJacobian<N> {
        let id = SMatrix::<f64, N, N>::identity();
        let c = 1.0 + self.eps * self.b * v.norm_squared();
        let outer = self.w(x) * v.transpose() * (2.0 * self.eps);
        MapJacobian { dx1: id * c, dv1: outer - id * 0.5, dx2: id * c, dv2: outer + id * 0.5 }
    }
    fn covector_hessian(
        &self,
        x: &SVector<f64, N>,
        v: &SVector<f64, N>,
        p0: &SVector<f64, N>,
        p1: &SVector<f64, N>,
    ) -> CovectorHessian<N> {
        let s = p0 + p1;
        let id = SMatrix::<f64, N, N>::identity();
        CovectorHessian {
            xx: SMatrix::zeros(),
            xv: s * v.transpose() * (2.0 * self.eps * self.b),
            vv: id * (2.0 * self.eps * s.dot(&self.w(x))),
        }
    }
}
