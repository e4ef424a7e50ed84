//! The Kepler problem `H = |p|²/2 - 1/|q|` shared by the benches: as a generic model (AutoDiff
//! path) and with hand-written derivatives `H_q = q/r³`, `H_p = p`, `H_qq = I/r³ - 3 q qᵀ/r⁵`,
//! `H_qp = 0`, `H_pp = I` (separable).

use geom_core::Scalar;
use geom_core::function::{Hessian, PhaseSpaceDerivatives, PhaseSpaceFunction};
use nalgebra::{Matrix2, SVector, Vector2};

/// Kepler as a generic model (for the AutoDiff path).
pub struct KeplerModel;

impl PhaseSpaceFunction<2> for KeplerModel {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip()
    }
}

/// Kepler with hand-written derivatives.
#[derive(Clone, Copy)]
pub struct Kepler;

impl PhaseSpaceDerivatives<2> for Kepler {
    fn value(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> f64 {
        0.5 * p.norm_squared() - 1.0 / q.norm()
    }
    #[inline]
    fn gradient(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> (Vector2<f64>, Vector2<f64>) {
        (grad_v(q), *p)
    }
    #[inline]
    fn gradient_q(&self, q: &Vector2<f64>, _p: &Vector2<f64>) -> Vector2<f64> {
        grad_v(q)
    }
    #[inline]
    fn gradient_p(&self, _q: &Vector2<f64>, p: &Vector2<f64>) -> Vector2<f64> {
        *p
    }
    fn is_separable(&self) -> bool {
        true
    }
    fn hessian(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> Hessian<2> {
        self.gradient_and_hessian(q, p).1
    }
    #[inline]
    fn gradient_and_hessian(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> ((Vector2<f64>, Vector2<f64>), Hessian<2>) {
        let (g, qq) = grad_hess_v(q);
        ((g, *p), Hessian { qq, qp: Matrix2::zeros(), pp: Matrix2::identity() })
    }
}

/// `∇V(q) = q/r³`.
#[inline]
pub fn grad_v(q: &Vector2<f64>) -> Vector2<f64> {
    let r2 = q.norm_squared();
    q / (r2 * r2.sqrt())
}

/// `(∇V, ∇²V)` with `∇²V = I/r³ - 3 q qᵀ/r⁵`.
#[inline]
pub fn grad_hess_v(q: &Vector2<f64>) -> (Vector2<f64>, Matrix2<f64>) {
    let r2 = q.norm_squared();
    let ir3 = 1.0 / (r2 * r2.sqrt());
    (q * ir3, Matrix2::identity() * ir3 - q * q.transpose() * (3.0 * ir3 / r2))
}

/// `T(p) = |p|²/2` as a generic model (for `Separable<T, V>`).
pub struct KeplerKinetic;

impl geom_core::function::ScalarFunction<2> for KeplerKinetic {
    #[inline]
    fn eval<S: Scalar>(&self, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5)
    }
}

/// `V(q) = −1/|q|` as a generic model (for `Separable<T, V>`).
pub struct KeplerPotential;

impl geom_core::function::ScalarFunction<2> for KeplerPotential {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>) -> S {
        -q.norm().recip()
    }
}
