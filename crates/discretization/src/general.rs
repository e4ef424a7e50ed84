//! The induced integrator for a general (nonlinear) discretization map on `R^N`: the 4-block
//! system of docs/math.md §B.1 (see [`crate::hamiltonian`]).
//!
//! Unknowns `z = (q, p, q_1, p_1) ∈ (R^N)^4`, `v = h H_p(q, p)`, every map derivative at `(q, v)`,
//! `φ(x, v) = <P_0, R^1(x, v)> + <P_1, R^2(x, v)>` with `(P_0, P_1) = (-p_k, p_1)`:
//! ```text
//!   F_0 = R^1(q, v) - q_k
//!   F_1 = R^2(q, v) - q_1
//!   F_2 = h H_q(q, p) + ∇_x φ     (∇_x φ = -(∂_x R^1)ᵀ p_k + (∂_x R^2)ᵀ p_1)
//!   F_3 = p - ∇_v φ               (∇_v φ = -(∂_v R^1)ᵀ p_k + (∂_v R^2)ᵀ p_1)
//! ```
//! With `V_q = ∂v/∂q = h H_pq = h qpᵀ`, `V_p = ∂v/∂p = h H_pp` and the covector Hessian
//! `(φ_xx, φ_xv, φ_vv)` ([`crate::map::CovectorHessian`]) the block Jacobian is
//! ```text
//!   [ ∂_xR¹ + ∂_vR¹ V_q            ∂_vR¹ V_p             0    0        ]
//!   [ ∂_xR² + ∂_vR² V_q            ∂_vR² V_p            -I    0        ]
//!   [ h H_qq + φ_xx + φ_xv V_q     h H_qp + φ_xv V_p      0    (∂_xR²)ᵀ ]
//!   [ -(φ_xvᵀ + φ_vv V_q)          I - φ_vv V_p           0   -(∂_vR²)ᵀ ]
//! ```
//! solved by [`newton_blocks`] on the stack from the guess of docs/math.md §B.1:
//! `q = q_k`, `p = p_k`, `q_1 = q_k + h H_p(q_k, p_k)`, `p_1 = p_k - h H_q(q_k, p_k)`.

use crate::map::EuclideanMap;
use geom_core::GeomError;
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::linalg::{BlockMatrix, BlockVector};
use geom_core::newton::{NewtonOptions, newton_blocks};
use geom_core::step::PhaseState;
use nalgebra::{SMatrix, SVector};

/// The residual `F(z)` of the 4-block system (module documentation) at `z = (q, p, q_1, p_1)` for
/// the step from `(q_k, p_k)`, and, when `jac` is given, its exact block Jacobian `∂F/∂z`.
pub(crate) fn general_residual<R, H, const N: usize>(
    map: &R,
    hamiltonian: &H,
    qk: &SVector<f64, N>,
    pk: &SVector<f64, N>,
    h: f64,
    z: &BlockVector<f64, N, 4>,
    jac: Option<&mut BlockMatrix<f64, N, 4>>,
) -> Result<BlockVector<f64, N, 4>, GeomError>
where
    R: EuclideanMap<N> + ?Sized,
    H: PhaseSpaceDerivatives<N> + ?Sized,
{
    let [q, p, q1, p1] = *z;
    let ((hq, hp), hess) = match jac {
        Some(_) => {
            let (g, hs) = hamiltonian.gradient_and_hessian(&q, &p);
            (g, Some(hs))
        }
        None => (hamiltonian.gradient(&q, &p), None),
    };
    let v = hp * h;
    let (r1, r2) = map.apply(&q, &v)?;
    let jm = map.jacobian(&q, &v);
    let p0 = -pk;
    let grad_x = jm.dx1.tr_mul(&p0) + jm.dx2.tr_mul(&p1);
    let grad_v = jm.dv1.tr_mul(&p0) + jm.dv2.tr_mul(&p1);
    let f = [r1 - qk, r2 - q1, hq * h + grad_x, p - grad_v];
    if let (Some(j), Some(hs)) = (jac, hess) {
        let c = map.covector_hessian(&q, &v, &p0, &p1);
        let vq = hs.qp.transpose() * h;
        let vp = hs.pp * h;
        let id = SMatrix::<f64, N, N>::identity();
        let zero = SMatrix::<f64, N, N>::zeros();
        *j = [
            [jm.dx1 + jm.dv1 * vq, jm.dv1 * vp, zero, zero],
            [jm.dx2 + jm.dv2 * vq, jm.dv2 * vp, -id, zero],
            [hs.qq * h + c.xx + c.xv * vq, hs.qp * h + c.xv * vp, zero, jm.dx2.transpose()],
            [-(c.xv.transpose() + c.vv * vq), id - c.vv * vp, zero, -jm.dv2.transpose()],
        ];
    }
    Ok(f)
}

/// Solve the 4-block system of one step from `state`: returns `z = (q, p, q_{k+1}, p_{k+1})` at
/// the root (the caller validates `h`).
pub(crate) fn general_solve<R, H, const N: usize>(
    map: &R,
    hamiltonian: &H,
    state: &PhaseState<N>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<BlockVector<f64, N, 4>, GeomError>
where
    R: EuclideanMap<N> + ?Sized,
    H: PhaseSpaceDerivatives<N> + ?Sized,
{
    let (qk, pk) = (state.q, state.p);
    let (hq, hp) = hamiltonian.try_gradient(&qk, &pk)?;
    let guess = [qk, pk, qk + hp * h, pk - hq * h];
    let (z, _) = newton_blocks(|z, jac| general_residual(map, hamiltonian, &qk, &pk, h, z, jac), &guess, newton)?;
    Ok(z)
}

/// One step `(q_k, p_k) ↦ (q_{k+1}, p_{k+1})` of the cotangent-lift integrator of a general
/// discretization map `R` on `R^N` (docs/math.md §B.1; module documentation): block Newton on the four
/// unknowns `(q, p, q_{k+1}, p_{k+1})` with the analytic block Jacobian built from
/// [`EuclideanMap::jacobian`], [`EuclideanMap::covector_hessian`] and the Hessian of `H`.
///
/// Errors: [`GeomError::NonFinite`] for a non-finite state or gradient, the Newton errors
/// ([`GeomError::NotConverged`], [`GeomError::SingularMatrix`]) and any error of
/// [`crate::DiscretizationMap::apply`]. `h` is not validated here
/// ([`crate::CotangentLiftIntegrator::advance`] does it).
#[inline(never)]
pub fn general_step<R: EuclideanMap<N> + ?Sized, H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    map: &R,
    hamiltonian: &H,
    state: &PhaseState<N>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<PhaseState<N>, GeomError> {
    let [q, p, q1, p1] = general_solve(map, hamiltonian, state, h, newton)?;
    // Re-derive the new state from the converged (q, p) with the explicit equations
    // q_{k+1} = R^2(q, v) and (∂_x R^2)ᵀ p_{k+1} = (∂_x R^1)ᵀ p_k - h H_q(q, p), so that the
    // Newton residual does not land in the state directly (it would accumulate with one sign and
    // make the momentum map drift by ~0.2 ulp per step). Falls back to the Newton unknowns if
    // ∂_x R^2 is singular.
    let (hq, hp) = hamiltonian.gradient(&q, &p);
    let v = hp * h;
    let (_, q1_explicit) = map.apply(&q, &v)?;
    let jac = map.jacobian(&q, &v);
    let rhs = jac.dx1.tr_mul(&state.p) - hq * h;
    let p1_explicit = geom_core::linalg::solve(&jac.dx2.transpose(), &rhs, "dx R^2").unwrap_or(p1);
    let _ = q1;
    Ok(PhaseState::new(q1_explicit, p1_explicit))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::hamiltonian::theta_step;
    use crate::map::{CovectorHessian, DiscretizationMap, MapJacobian};
    use crate::theta::ThetaMap;
    use crate::{CotangentLiftIntegrator, OneStep};
    use geom_core::Scalar;
    use geom_core::function::{AutoDiff, PhaseSpaceFunction};
    use geom_core::newton::NewtonOptions;
    use geom_core::newton::ad_block_jacobian;
    use nalgebra::Vector2;

    /// A θ-map that hides its θ, so that the integrator takes the general path.
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Hidden<const N: usize>(pub(crate) ThetaMap<N>);
    impl<const N: usize> DiscretizationMap for Hidden<N> {
        type Point = SVector<f64, N>;
        type Tangent = SVector<f64, N>;
        fn name(&self) -> String {
            format!("hidden {}", self.0.name())
        }
        fn apply(&self, x: &Self::Point, v: &Self::Tangent) -> Result<(Self::Point, Self::Point), GeomError> {
            self.0.apply(x, v)
        }
        fn inverse(&self, q0: &Self::Point, q1: &Self::Point) -> Result<(Self::Point, Self::Tangent), GeomError> {
            self.0.inverse(q0, q1)
        }
        fn distance(&self, a: &Self::Point, b: &Self::Point) -> f64 {
            self.0.distance(a, b)
        }
        fn is_symmetric(&self) -> bool {
            self.0.is_symmetric()
        }
    }
    impl<const N: usize> EuclideanMap<N> for Hidden<N> {
        fn jacobian(&self, x: &SVector<f64, N>, v: &SVector<f64, N>) -> MapJacobian<N> {
            self.0.jacobian(x, v)
        }
        fn covector_hessian(
            &self,
            x: &SVector<f64, N>,
            v: &SVector<f64, N>,
            p0: &SVector<f64, N>,
            p1: &SVector<f64, N>,
        ) -> CovectorHessian<N> {
            self.0.covector_hessian(x, v, p0, p1)
        }
    }

    /// A non-separable Hamiltonian `H = |p|²/2 (1 + q_0²/4) + q_0 p_1/5 - cos q_0 + q_1⁴/4`
    /// (non-zero `H_qp`, `H_pp` not constant).
    pub(crate) struct Mixed;
    impl PhaseSpaceFunction<2> for Mixed {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
            let m = S::from(1.0) + q[0] * q[0] * S::from(0.25);
            p.norm_squared() * m * S::from(0.5) + q[0] * p[1] * S::from(0.2) - q[0].cos() + q[1].powi(4) * S::from(0.25)
        }
    }

    /// The general residual of the midpoint map through [`Hidden`], as an AD block residual.
    struct Residual {
        qk: Vector2<f64>,
        pk: Vector2<f64>,
        h: f64,
        theta: f64,
    }
    impl geom_core::newton::BlockResidual<2, 4> for Residual {
        #[inline]
        fn eval<S: Scalar>(&self, z: &BlockVector<S, 2, 4>) -> Result<BlockVector<S, 2, 4>, GeomError> {
            // the θ-map in closed form: R¹ = x - θv, R² = x + (1-θ)v, ∇_xφ = P_0 + P_1,
            // ∇_vφ = -θ P_0 + (1-θ) P_1
            let [q, p, q1, p1] = *z;
            let (qk, pk) = (self.qk.map(S::from), self.pk.map(S::from));
            let th = S::from(self.theta);
            let h = S::from(self.h);
            // H_q, H_p of Mixed by hand
            let m = S::from(1.0) + q[0] * q[0] * S::from(0.25);
            let hq = SVector::<S, 2>::from([
                p.norm_squared() * q[0] * S::from(0.25) + p[1] * S::from(0.2) + q[0].sin(),
                q[1].powi(3),
            ]);
            let hp = SVector::<S, 2>::from([p[0] * m, p[1] * m + q[0] * S::from(0.2)]);
            let v = hp * h;
            let p0 = -pk;
            Ok([
                q - v * th - qk,
                q + v * (S::from(1.0) - th) - q1,
                hq * h + p0 + p1,
                p - (p0 * (-th) + p1 * (S::from(1.0) - th)),
            ])
        }
    }

    #[test]
    fn analytic_block_jacobian_matches_ad() {
        let map = Hidden(ThetaMap::<2>::new(0.3).unwrap());
        let (qk, pk, h) = (Vector2::new(0.4, -0.7), Vector2::new(0.9, 0.2), 0.17);
        let z = [Vector2::new(0.45, -0.6), Vector2::new(0.8, 0.25), Vector2::new(0.5, -0.5), Vector2::new(0.7, 0.3)];
        let mut jac = [[SMatrix::<f64, 2, 2>::zeros(); 4]; 4];
        let f = general_residual(&map, &AutoDiff(Mixed), &qk, &pk, h, &z, Some(&mut jac)).unwrap();
        let res = Residual { qk, pk, h, theta: 0.3 };
        let (fa, ja) = ad_block_jacobian(&res, &z).unwrap();
        for b in 0..4 {
            assert!((f[b] - fa[b]).amax() < 1e-14, "residual block {b}");
            for c in 0..4 {
                assert!(
                    (jac[b][c] - ja[b][c]).amax() < 1e-13,
                    "Jacobian block ({b}, {c}): {} vs {}",
                    jac[b][c],
                    ja[b][c]
                );
            }
        }
    }

    #[test]
    fn general_path_equals_reduced_theta_path() {
        for theta in [0.0, 0.3, 0.5, 1.0] {
            let reduced = ThetaMap::<2>::new(theta).unwrap();
            let hidden = Hidden(reduced);
            let general = CotangentLiftIntegrator::new(hidden, AutoDiff(Mixed));
            // the integrator's own Newton options (simplified Newton by default)
            let opts = *general.newton_options();
            let mut s = PhaseState::new(Vector2::new(0.3, -0.8), Vector2::new(1.1, 0.4));
            for k in 0..50 {
                let h = if k % 2 == 0 { 0.1 } else { -0.07 };
                let t = theta_step(&AutoDiff(Mixed), theta, &s, h, &opts).unwrap();
                let g = general_step(&hidden, &AutoDiff(Mixed), &s, h, &opts).unwrap();
                let d = (t.q - g.q).amax().max((t.p - g.p).amax());
                assert!(d < 1e-14, "theta = {theta}, step {k}: general and reduced paths differ by {d:e}");
                general.step(&mut s, h).unwrap();
                assert_eq!(s, g);
            }
        }
    }

    #[test]
    fn failed_general_step_reports_and_leaves_state() {
        let opts = NewtonOptions { max_iterations: 1, ..NewtonOptions::integrator() };
        let integ = CotangentLiftIntegrator::new(Hidden(ThetaMap::<2>::midpoint()), AutoDiff(Mixed)).with_newton(opts);
        let s0 = PhaseState::new(Vector2::new(0.3, -0.8), Vector2::new(1.1, 0.4));
        let mut s = s0;
        assert!(matches!(integ.step(&mut s, 0.5), Err(GeomError::NotConverged { .. })));
        assert_eq!(s, s0);
        let mut bad = PhaseState::new(Vector2::new(f64::NAN, 0.0), Vector2::zeros());
        assert!(matches!(integ.step(&mut bad, 0.1), Err(GeomError::NonFinite { .. })));
    }
}
