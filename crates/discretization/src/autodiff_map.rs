//! Discretization maps on `R^N` written once, generic over the scalar, with exact derivatives by
//! automatic differentiation; and adjoint maps (Remark 1 of Barbero-Liñán, Marrero, Martín de
//! Diego, *From retraction maps to symplectic-momentum numerical integrators*, 2024,
//! arXiv:2401.14800; docs/math.md §A.5).
//!
//! * [`MapModel<N>`]: a user writes `R_d(x, v) = (R^1(x, v), R^2(x, v))` once, over any
//!   [`Scalar`];
//! * [`AutoDiffMap<M, N>`] turns a model into a [`DiscretizationMap`] + [`EuclideanMap<N>`]:
//!   Jacobian blocks by forward AD (one `DualSVec64<N>` pass seeded in `x` with `v` lifted, one
//!   seeded in `v`), the covector Hessian of `φ = <P_0, R^1> + <P_1, R^2>` by `num_dual::hessian`
//!   (blocks `xx`, `vv`) and `num_dual::partial_hessian` (block `xv`), and the inverse
//!   `R_d^{-1}(q_0, q_1)` by block Newton with the AD Jacobian ([`newton_blocks_ad`]) from
//!   `x = (q_0 + q_1)/2`, `v = q_1 - q_0`;
//! * [`Adjoint<M>`]: the adjoint model `R_d^*(x, v) = (I_Q ∘ R_d)(x, -v) = (R^2(x, -v), R^1(x, -v))`;
//! * [`AdjointMap<R>`]: the adjoint of any [`DiscretizationMap`] whose tangent vectors can be
//!   negated (`R^N`, Lie algebras, ambient sphere tangents), and of any [`EuclideanMap<N>`] with
//!   its derivatives by the chain rule.
//!
//! `R_d^*` is again a discretization map, symmetry preserving whenever `R_d` is (§A.5); the
//! adjoint of the θ-map is the `(1-θ)`-map, and `(R_d^*)^* = R_d`.

use crate::map::{CovectorHessian, DiscretizationMap, EuclideanMap, MapJacobian};
use geom_core::linalg::BlockVector;
use geom_core::newton::{BlockResidual, newton_blocks_ad};
use geom_core::{GeomError, Scalar};
use nalgebra::{Const, SMatrix, SVector, U1};
use num_dual::{Derivative, Dual2SVec64, DualSVec64, HyperDualSVec64};
use std::fmt::Debug;
use std::ops::Neg;

/// A discretization map `R_d(x, v) = (R^1(x, v), R^2(x, v))` on `R^N`, written once and generic
/// over the scalar (docs/architecture.md, "Derivatives: one model function, many number types").
/// It must satisfy the defining properties of docs/math.md §A.1, `R_d(x, 0) = (x, x)` and
/// `∂_v R^2 - ∂_v R^1 = I` at `v = 0` (check with [`crate::checks::check_euclidean_map`]).
///
/// Not object-safe (generic method); wrap it in [`AutoDiffMap`] to get a `dyn EuclideanMap<N>`.
///
/// ```
/// use discretization::autodiff_map::{AutoDiffMap, MapModel};
/// use discretization::{DiscretizationMap, EuclideanMap};
/// use geom_core::Scalar;
/// use nalgebra::{SVector, Vector2};
///
/// /// The midpoint map `(x - v/2, x + v/2)`.
/// #[derive(Debug)]
/// struct Midpoint;
/// impl MapModel<2> for Midpoint {
///     fn name(&self) -> String {
///         "midpoint".into()
///     }
///     fn eval<S: Scalar>(&self, x: &SVector<S, 2>, v: &SVector<S, 2>) -> (SVector<S, 2>, SVector<S, 2>) {
///         let half = v * S::from(0.5);
///         (x - half, x + half)
///     }
/// }
/// let map = AutoDiffMap::<_, 2>(Midpoint);
/// let (q0, q1) = map.apply(&Vector2::new(1.0, 0.0), &Vector2::new(0.0, 2.0))?;
/// assert_eq!((q0, q1), (Vector2::new(1.0, -1.0), Vector2::new(1.0, 1.0)));
/// assert_eq!(map.jacobian(&q0, &q1).dv2[(1, 1)], 0.5);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub trait MapModel<const N: usize>: Debug + Send + Sync {
    /// Name, e.g. `"midpoint"`.
    fn name(&self) -> String;
    /// `(R^1(x, v), R^2(x, v))`.
    fn eval<S: Scalar>(&self, x: &SVector<S, N>, v: &SVector<S, N>) -> (SVector<S, N>, SVector<S, N>);
    /// Whether the map is self-adjoint, `(R^2(x, -v), R^1(x, -v)) = (R^1(x, v), R^2(x, v))`
    /// (docs/math.md §A.5); the induced integrator is then symmetric.
    fn is_symmetric(&self) -> bool {
        false
    }
}

impl<M: MapModel<N> + ?Sized, const N: usize> MapModel<N> for &M {
    fn name(&self) -> String {
        (**self).name()
    }
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, N>, v: &SVector<S, N>) -> (SVector<S, N>, SVector<S, N>) {
        (**self).eval(x, v)
    }
    fn is_symmetric(&self) -> bool {
        (**self).is_symmetric()
    }
}

/// The adjoint model `R_d^*(x, v) = (I_Q ∘ R_d)(x, -v) = (R^2(x, -v), R^1(x, -v))`
/// (Barbero-Liñán et al. 2024, Remark 1; docs/math.md §A.5) of any model; `Adjoint(Adjoint(m))`
/// evaluates like `m`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Adjoint<M>(pub M);

impl<M: MapModel<N>, const N: usize> MapModel<N> for Adjoint<M> {
    fn name(&self) -> String {
        format!("adjoint of {}", self.0.name())
    }
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, N>, v: &SVector<S, N>) -> (SVector<S, N>, SVector<S, N>) {
        let (r1, r2) = self.0.eval(x, &(-v));
        (r2, r1)
    }
    fn is_symmetric(&self) -> bool {
        self.0.is_symmetric()
    }
}

/// A [`MapModel`] as a [`DiscretizationMap`] and [`EuclideanMap<N>`] with exact derivatives by
/// forward AD (module documentation). `N` is the dimension (`AutoDiffMap::<_, 3>(model)`).
///
/// [`EuclideanMap::theta`] is `None` even for an affine model: the induced integrator takes the
/// general 4-block path (docs/math.md §B.1).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AutoDiffMap<M, const N: usize>(pub M);

impl<M, const N: usize> AutoDiffMap<M, N> {
    /// The wrapped model.
    pub fn model(&self) -> &M {
        &self.0
    }
}

/// A vector of dual numbers seeded with the unit directions, `x_i + ε_i`.
fn seeded<const N: usize>(x: &SVector<f64, N>) -> SVector<DualSVec64<N>, N> {
    SVector::from_fn(|i, _| {
        let mut d = DualSVec64::<N>::from_re(x[i]);
        d.eps = Derivative::derivative_generic(Const::<N>, U1, i);
        d
    })
}

/// The Jacobian `J[(i, j)] = ∂y_i/∂x_j` of a seeded evaluation `y`.
fn jacobian_of<const N: usize>(y: &SVector<DualSVec64<N>, N>) -> SMatrix<f64, N, N> {
    let mut j = SMatrix::<f64, N, N>::zeros();
    for i in 0..N {
        let grad = y[i].eps.unwrap_generic(Const::<N>, U1);
        for k in 0..N {
            j[(i, k)] = grad[k];
        }
    }
    j
}

/// `<P_0, R^1(x, v)> + <P_1, R^2(x, v)>` at any scalar.
fn pairing<M: MapModel<N> + ?Sized, S: Scalar, const N: usize>(
    model: &M,
    x: &SVector<S, N>,
    v: &SVector<S, N>,
    p0: &SVector<f64, N>,
    p1: &SVector<f64, N>,
) -> S {
    let (r1, r2) = model.eval(x, v);
    r1.dot(&p0.map(S::from)) + r2.dot(&p1.map(S::from))
}

/// `R_d(x, v) - (q_0, q_1)` in the unknowns `(x, v)`: the residual of the inverse.
struct InverseResidual<'a, M: ?Sized, const N: usize> {
    model: &'a M,
    q0: SVector<f64, N>,
    q1: SVector<f64, N>,
}

impl<M: MapModel<N> + ?Sized, const N: usize> BlockResidual<N, 2> for InverseResidual<'_, M, N> {
    #[inline]
    fn eval<S: Scalar>(&self, z: &BlockVector<S, N, 2>) -> Result<BlockVector<S, N, 2>, GeomError> {
        let (r1, r2) = self.model.eval(&z[0], &z[1]);
        Ok([r1 - self.q0.map(S::from), r2 - self.q1.map(S::from)])
    }
}

/// `R_d^{-1}(q_0, q_1)` of a model by block Newton with the AD Jacobian from
/// `x = (q_0 + q_1)/2`, `v = q_1 - q_0` (exact for the midpoint map).
fn model_inverse<M: MapModel<N> + ?Sized, const N: usize>(
    model: &M,
    q0: &SVector<f64, N>,
    q1: &SVector<f64, N>,
) -> Result<(SVector<f64, N>, SVector<f64, N>), GeomError> {
    geom_core::error::check_finite(q0.iter().chain(q1.iter()), "R_d^{-1} arguments")?;
    let res = InverseResidual { model, q0: *q0, q1: *q1 };
    let guess = [(q0 + q1) * 0.5, q1 - q0];
    let ([x, v], _) = newton_blocks_ad(&res, &guess, &geom_core::newton::NewtonOptions::integrator())?;
    Ok((x, v))
}

impl<M: MapModel<N>, const N: usize> DiscretizationMap for AutoDiffMap<M, N> {
    type Point = SVector<f64, N>;
    type Tangent = SVector<f64, N>;
    fn name(&self) -> String {
        self.0.name()
    }
    /// `R_d(x, v)` at `f64`; [`GeomError::NonFinite`] if the result is not finite.
    fn apply(&self, x: &SVector<f64, N>, v: &SVector<f64, N>) -> Result<(SVector<f64, N>, SVector<f64, N>), GeomError> {
        let (r1, r2) = self.0.eval(x, v);
        geom_core::error::check_finite(r1.iter().chain(r2.iter()), "R_d(x, v)")?;
        Ok((r1, r2))
    }
    /// Block Newton on `R_d(x, v) = (q_0, q_1)` (module documentation); the Newton errors if the
    /// points are too far apart for the map to be inverted.
    fn inverse(
        &self,
        q0: &SVector<f64, N>,
        q1: &SVector<f64, N>,
    ) -> Result<(SVector<f64, N>, SVector<f64, N>), GeomError> {
        model_inverse(&self.0, q0, q1)
    }
    fn distance(&self, a: &SVector<f64, N>, b: &SVector<f64, N>) -> f64 {
        (a - b).norm()
    }
    fn is_symmetric(&self) -> bool {
        self.0.is_symmetric()
    }
}

impl<M: MapModel<N>, const N: usize> EuclideanMap<N> for AutoDiffMap<M, N> {
    /// Two `DualSVec64<N>` passes: seeded in `x` (`v` lifted) and in `v` (`x` lifted).
    fn jacobian(&self, x: &SVector<f64, N>, v: &SVector<f64, N>) -> MapJacobian<N> {
        let (a1, a2) = self.0.eval(&seeded(x), &v.map(DualSVec64::from_re));
        let (b1, b2) = self.0.eval(&x.map(DualSVec64::from_re), &seeded(v));
        MapJacobian { dx1: jacobian_of(&a1), dv1: jacobian_of(&b1), dx2: jacobian_of(&a2), dv2: jacobian_of(&b2) }
    }
    /// `num_dual::hessian` in `x` and in `v`, `num_dual::partial_hessian` in `(x, v)`.
    fn covector_hessian(
        &self,
        x: &SVector<f64, N>,
        v: &SVector<f64, N>,
        p0: &SVector<f64, N>,
        p1: &SVector<f64, N>,
    ) -> CovectorHessian<N> {
        let m = &self.0;
        let vd = v.map(Dual2SVec64::<N>::from_re);
        let (_, _, xx) = num_dual::hessian(|xd: SVector<Dual2SVec64<N>, N>| pairing(m, &xd, &vd, p0, p1), x);
        let xd = x.map(Dual2SVec64::<N>::from_re);
        let (_, _, vv) = num_dual::hessian(|vd: SVector<Dual2SVec64<N>, N>| pairing(m, &xd, &vd, p0, p1), v);
        let (_, _, _, xv) = num_dual::partial_hessian(
            |(xh, vh): (SVector<HyperDualSVec64<N, N>, N>, SVector<HyperDualSVec64<N, N>, N>)| {
                pairing(m, &xh, &vh, p0, p1)
            },
            (x, v),
        );
        CovectorHessian { xx, xv, vv }
    }
}

/// The adjoint `R_d^*(x, v) = (R^2(x, -v), R^1(x, -v))` of a discretization map `R`
/// (Barbero-Liñán et al. 2024, Remark 1; docs/math.md §A.5), for any map whose tangent vectors can
/// be negated.
///
/// * inverse: `R_d^*(x, v) = (q_0, q_1) ⟺ R_d(x, -v) = (q_1, q_0)`, so
///   `(R_d^*)^{-1}(q_0, q_1) = (x, -w)` with `(x, w) = R_d^{-1}(q_1, q_0)`;
/// * on `R^N` ([`EuclideanMap<N>`]), by the chain rule at `(x, -v)`:
///   `∂_x R^{*1} = ∂_x R^2`, `∂_v R^{*1} = -∂_v R^2`, `∂_x R^{*2} = ∂_x R^1`, `∂_v R^{*2} = -∂_v R^1`;
///   and `φ^*(x, v; P_0, P_1) = φ(x, -v; P_1, P_0)`, so `φ^*_xx = φ_xx`, `φ^*_xv = -φ_xv`,
///   `φ^*_vv = φ_vv` with the covectors swapped;
/// * `theta()` maps `θ ↦ 1 - θ` (the adjoint of the θ-map is the `(1-θ)`-map).
///
/// ```
/// use discretization::autodiff_map::AdjointMap;
/// use discretization::{EuclideanMap, ThetaMap};
/// assert_eq!(AdjointMap(ThetaMap::<2>::new(0.25)?).theta(), Some(0.75));
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AdjointMap<R>(pub R);

impl<R> DiscretizationMap for AdjointMap<R>
where
    R: DiscretizationMap,
    R::Tangent: Neg<Output = R::Tangent>,
{
    type Point = R::Point;
    type Tangent = R::Tangent;
    fn name(&self) -> String {
        format!("adjoint of {}", self.0.name())
    }
    fn apply(&self, x: &R::Point, v: &R::Tangent) -> Result<(R::Point, R::Point), GeomError> {
        let (r1, r2) = self.0.apply(x, &(-v.clone()))?;
        Ok((r2, r1))
    }
    fn inverse(&self, q0: &R::Point, q1: &R::Point) -> Result<(R::Point, R::Tangent), GeomError> {
        let (x, w) = self.0.inverse(q1, q0)?;
        Ok((x, -w))
    }
    fn distance(&self, a: &R::Point, b: &R::Point) -> f64 {
        self.0.distance(a, b)
    }
    fn is_symmetric(&self) -> bool {
        self.0.is_symmetric()
    }
}

impl<R: EuclideanMap<N>, const N: usize> EuclideanMap<N> for AdjointMap<R> {
    fn jacobian(&self, x: &SVector<f64, N>, v: &SVector<f64, N>) -> MapJacobian<N> {
        let j = self.0.jacobian(x, &(-v));
        MapJacobian { dx1: j.dx2, dv1: -j.dv2, dx2: j.dx1, dv2: -j.dv1 }
    }
    fn covector_hessian(
        &self,
        x: &SVector<f64, N>,
        v: &SVector<f64, N>,
        p0: &SVector<f64, N>,
        p1: &SVector<f64, N>,
    ) -> CovectorHessian<N> {
        let c = self.0.covector_hessian(x, &(-v), p1, p0);
        CovectorHessian { xx: c.xx, xv: -c.xv, vv: c.vv }
    }
    fn theta(&self) -> Option<f64> {
        self.0.theta().map(|t| 1.0 - t)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::checks::{check_euclidean_derivatives, check_euclidean_map};
    use crate::hamiltonian::tests::fd_step_jacobian;
    use crate::theta::ThetaMap;
    use crate::{CotangentLiftIntegrator, OneStep, PhaseState};
    use geom_core::function::{AutoDiff, PhaseSpaceFunction};
    use geom_core::step::testing::canonical_poisson_tensor as omega;
    use nalgebra::{Vector2, Vector3};

    /// The θ-map as a model.
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct ThetaModel(pub(crate) f64);
    impl<const N: usize> MapModel<N> for ThetaModel {
        fn name(&self) -> String {
            format!("theta model {}", self.0)
        }
        #[inline]
        fn eval<S: Scalar>(&self, x: &SVector<S, N>, v: &SVector<S, N>) -> (SVector<S, N>, SVector<S, N>) {
            (x - v * S::from(self.0), x + v * S::from(1.0 - self.0))
        }
        fn is_symmetric(&self) -> bool {
            self.0 == 0.5
        }
    }

    /// `R^1 = x - v/2 + c (v·v) x`, `R^2 = x + v/2 + c (v·v) x`: a genuinely nonlinear
    /// discretization map (the correction is `O(|v|²)`, so both defining properties hold), and
    /// a symmetric one (`v ↦ -v` swaps the two points).
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Quadratic(pub(crate) f64);
    impl<const N: usize> MapModel<N> for Quadratic {
        fn name(&self) -> String {
            format!("quadratic midpoint (c = {})", self.0)
        }
        #[inline]
        fn eval<S: Scalar>(&self, x: &SVector<S, N>, v: &SVector<S, N>) -> (SVector<S, N>, SVector<S, N>) {
            let corr = x * (v.norm_squared() * S::from(self.0));
            let half = v * S::from(0.5);
            (x - half + corr, x + half + corr)
        }
        fn is_symmetric(&self) -> bool {
            true
        }
    }

    /// A non-symmetric nonlinear map with non-zero mixed second derivatives, corrections
    /// quadratic in `v` (so it is a discretization map):
    /// `R^1 = x - v/3 + c (x_0 v_1 v_2, x_1 v_0², sin(v_0) v_2 x_2)`,
    /// `R^2 = x + 2v/3 + c (v_0 v_1 x_2, x_0 v_2², x_1 v_0 v_1)`.
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct Skewed(pub(crate) f64);
    impl MapModel<3> for Skewed {
        fn name(&self) -> String {
            "skewed".into()
        }
        #[inline]
        fn eval<S: Scalar>(&self, x: &SVector<S, 3>, v: &SVector<S, 3>) -> (SVector<S, 3>, SVector<S, 3>) {
            let c = S::from(self.0);
            let a = SVector::<S, 3>::from([x[0] * v[1] * v[2], x[1] * v[0] * v[0], v[0].sin() * v[2] * x[2]]);
            let b = SVector::<S, 3>::from([v[0] * v[1] * x[2], x[0] * v[2] * v[2], x[1] * v[0] * v[1]]);
            (x - v * S::from(1.0 / 3.0) + a * c, x + v * S::from(2.0 / 3.0) + b * c)
        }
    }

    /// Pendulum-like `H = |p|²/2 - cos q_0 + q_1²/2 + q_0 q_1/4`.
    struct Coupled;
    impl PhaseSpaceFunction<2> for Coupled {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
            p.norm_squared() * S::from(0.5) - q[0].cos() + q[1] * q[1] * S::from(0.5) + q[0] * q[1] * S::from(0.25)
        }
    }

    #[test]
    fn autodiff_theta_model_equals_theta_map() {
        let (x, v) = (Vector3::new(0.3, -1.2, 2.0), Vector3::new(0.5, 0.1, -0.7));
        let (p0, p1) = (Vector3::new(1.0, 2.0, -1.0), Vector3::new(-0.5, 0.3, 0.8));
        for theta in [0.0, 0.3, 0.5, 1.0] {
            let ad = AutoDiffMap::<_, 3>(ThetaModel(theta));
            let exact = ThetaMap::<3>::new(theta).unwrap();
            assert_eq!(ad.apply(&x, &v).unwrap(), exact.apply(&x, &v).unwrap());
            let (ja, je) = (ad.jacobian(&x, &v), exact.jacobian(&x, &v));
            assert_eq!(ja, je);
            let c = ad.covector_hessian(&x, &v, &p0, &p1);
            assert_eq!(c, CovectorHessian::zeros());
            let (q0, q1) = exact.apply(&x, &v).unwrap();
            let (xi, vi) = ad.inverse(&q0, &q1).unwrap();
            let (xe, ve) = exact.inverse(&q0, &q1).unwrap();
            assert!((xi - xe).amax() < 1e-14 && (vi - ve).amax() < 1e-14, "theta = {theta}");
            assert_eq!(ad.theta(), None);
            assert_eq!(ad.is_symmetric(), theta == 0.5);
        }
    }

    #[test]
    fn nonlinear_map_derivatives_match_finite_differences() {
        let (x, v) = (Vector3::new(0.3, -1.2, 0.8), Vector3::new(0.5, 0.1, -0.7));
        let (p0, p1) = (Vector3::new(1.0, 2.0, -1.0), Vector3::new(-0.5, 0.3, 0.8));
        let quad = AutoDiffMap::<_, 3>(Quadratic(0.3));
        let skew = AutoDiffMap::<_, 3>(Skewed(0.4));
        let dq = check_euclidean_derivatives(&quad, &x, &v, &p0, &p1).unwrap();
        let ds = check_euclidean_derivatives(&skew, &x, &v, &p0, &p1).unwrap();
        assert!(dq < 1e-8 && ds < 1e-8, "{dq:e} {ds:e}");
        // the mixed block is genuinely non-zero (else the test would not see a transposition)
        let c = skew.covector_hessian(&x, &v, &p0, &p1);
        assert!(c.xv.amax() > 0.1 && (c.xv - c.xv.transpose()).amax() > 0.1);
        // both are discretization maps
        let pts = [x, v, Vector3::new(-2.0, 0.5, 1.5)];
        check_euclidean_map(&quad, &pts).unwrap().require(1e-14).unwrap();
        check_euclidean_map(&skew, &pts).unwrap().require(1e-14).unwrap();
    }

    #[test]
    fn nonlinear_inverse_after_apply_is_identity() {
        let quad = AutoDiffMap::<_, 3>(Quadratic(0.3));
        let skew = AutoDiffMap::<_, 3>(Skewed(0.4));
        for (x, v) in [
            (Vector3::new(0.3, -1.2, 0.8), Vector3::new(0.5, 0.1, -0.7)),
            (Vector3::new(2.0, 0.0, -1.0), Vector3::new(0.05, -0.2, 0.1)),
            (Vector3::new(0.0, 0.0, 0.0), Vector3::new(0.0, 0.0, 0.0)),
        ] {
            for map in [&quad as &dyn EuclideanMap<3>, &skew] {
                let (q0, q1) = map.apply(&x, &v).unwrap();
                let (xi, vi) = map.inverse(&q0, &q1).unwrap();
                assert!((xi - x).amax() < 1e-13 && (vi - v).amax() < 1e-13, "{}: {xi} {vi}", map.name());
            }
        }
        assert!(quad.inverse(&Vector3::new(f64::NAN, 0.0, 0.0), &Vector3::zeros()).is_err());
    }

    #[test]
    fn adjoint_of_adjoint_is_the_map() {
        let (x, v) = (Vector3::new(0.3, -1.2, 0.8), Vector3::new(0.5, 0.1, -0.7));
        let (p0, p1) = (Vector3::new(1.0, 2.0, -1.0), Vector3::new(-0.5, 0.3, 0.8));
        let m = AutoDiffMap::<_, 3>(Skewed(0.4));
        let mm = AutoDiffMap::<_, 3>(Adjoint(Adjoint(Skewed(0.4))));
        let a = AdjointMap(AdjointMap(m));
        for other in [&mm as &dyn EuclideanMap<3>, &a] {
            assert_eq!(other.apply(&x, &v).unwrap(), m.apply(&x, &v).unwrap());
            assert_eq!(other.jacobian(&x, &v), m.jacobian(&x, &v));
            let (c, d) = (other.covector_hessian(&x, &v, &p0, &p1), m.covector_hessian(&x, &v, &p0, &p1));
            assert!((c.xx - d.xx).amax() + (c.xv - d.xv).amax() + (c.vv - d.vv).amax() < 1e-14);
        }
        // the model adjoint and the wrapper adjoint agree, derivatives included
        let am = AutoDiffMap::<_, 3>(Adjoint(Skewed(0.4)));
        let aw = AdjointMap(m);
        assert_eq!(am.apply(&x, &v).unwrap(), aw.apply(&x, &v).unwrap());
        let (ja, jw) = (am.jacobian(&x, &v), aw.jacobian(&x, &v));
        assert!((ja.dx1 - jw.dx1).amax() + (ja.dv1 - jw.dv1).amax() + (ja.dx2 - jw.dx2).amax() < 1e-15);
        assert!((ja.dv2 - jw.dv2).amax() < 1e-15);
        let (c, d) = (am.covector_hessian(&x, &v, &p0, &p1), aw.covector_hessian(&x, &v, &p0, &p1));
        assert!((c.xx - d.xx).amax() + (c.xv - d.xv).amax() + (c.vv - d.vv).amax() < 1e-14);
        // the adjoint is a discretization map with correct derivatives and inverse
        assert!(check_euclidean_derivatives(&aw, &x, &v, &p0, &p1).unwrap() < 1e-8);
        check_euclidean_map(&aw, &[x, v]).unwrap().require(1e-14).unwrap();
        let (q0, q1) = aw.apply(&x, &v).unwrap();
        let (xi, vi) = aw.inverse(&q0, &q1).unwrap();
        assert!((xi - x).amax() < 1e-13 && (vi - v).amax() < 1e-13);
        // R_d^* = I_Q ∘ R_d ∘ (-1) by definition
        let (r1, r2) = m.apply(&x, &(-v)).unwrap();
        assert_eq!(aw.apply(&x, &v).unwrap(), (r2, r1));
    }

    #[test]
    fn adjoint_of_theta_is_one_minus_theta() {
        let (x, v) = (Vector2::new(0.3, -1.2), Vector2::new(0.5, 0.1));
        for theta in [0.0, 0.2, 0.5, 1.0] {
            let adj = AdjointMap(ThetaMap::<2>::new(theta).unwrap());
            let expect = ThetaMap::<2>::new(1.0 - theta).unwrap();
            let (a, b) = (adj.apply(&x, &v).unwrap(), expect.apply(&x, &v).unwrap());
            assert!((a.0 - b.0).amax() < 1e-15 && (a.1 - b.1).amax() < 1e-15);
            assert_eq!(adj.theta(), Some(1.0 - theta));
            let (ja, je) = (adj.jacobian(&x, &v), expect.jacobian(&x, &v));
            assert!((ja.dv1 - je.dv1).amax() + (ja.dv2 - je.dv2).amax() < 1e-15);
            assert_eq!((ja.dx1, ja.dx2), (je.dx1, je.dx2));
            let model = AutoDiffMap::<_, 2>(Adjoint(ThetaModel(theta)));
            let c = model.apply(&x, &v).unwrap();
            assert!((c.0 - b.0).amax() < 1e-15 && (c.1 - b.1).amax() < 1e-15);
            assert!((model.jacobian(&x, &v).dv1 - expect.jacobian(&x, &v).dv1).amax() < 1e-15);
        }
        assert!(AdjointMap(ThetaMap::<2>::midpoint()).is_symmetric());
    }

    fn check_symplectic<R: EuclideanMap<2>>(label: &str, map: R) {
        let s = PhaseState::new(Vector2::new(0.4, -0.3), Vector2::new(0.2, 0.9));
        let integ = CotangentLiftIntegrator::new(map, AutoDiff(Coupled));
        let m = integ.step_jacobian(&s, 0.15).unwrap();
        let fd = fd_step_jacobian(&integ, &s, 0.15);
        assert!((&m - &fd).amax() < 1e-7, "{label}: {:e}", (&m - &fd).amax());
        let w = omega(2);
        let sym = (m.transpose() * &w * &m - &w).amax();
        assert!(sym < 1e-13, "{label}: |MᵀΩM - Ω| = {sym:e}");
        // a symmetric map gives a reversible step
        if integ.is_symmetric() {
            let mut t = s;
            integ.step(&mut t, 0.15).unwrap();
            integ.step(&mut t, -0.15).unwrap();
            assert!((t.q - s.q).amax() < 1e-13 && (t.p - s.p).amax() < 1e-13, "{label}");
        }
    }

    #[test]
    fn nonlinear_map_integrator_is_symplectic() {
        check_symplectic("quadratic", AutoDiffMap::<_, 2>(Quadratic(0.3)));
        check_symplectic("adjoint of theta 0.3", AdjointMap(AutoDiffMap::<_, 2>(ThetaModel(0.3))));
        check_symplectic("skewed-like adjoint", AdjointMap(AutoDiffMap::<_, 2>(Quadratic(-0.2))));
    }

    #[test]
    fn adjoint_of_theta_model_integrates_like_one_minus_theta() {
        let s = PhaseState::new(Vector2::new(0.4, -0.3), Vector2::new(0.2, 0.9));
        let adj = CotangentLiftIntegrator::new(AdjointMap(AutoDiffMap::<_, 2>(ThetaModel(0.3))), AutoDiff(Coupled));
        let direct = CotangentLiftIntegrator::new(ThetaMap::<2>::new(0.7).unwrap(), AutoDiff(Coupled));
        let (mut a, mut b) = (s, s);
        for _ in 0..20 {
            adj.step(&mut a, 0.1).unwrap();
            direct.step(&mut b, 0.1).unwrap();
        }
        assert!((a.q - b.q).amax() < 1e-13 && (a.p - b.p).amax() < 1e-13);
    }
}
