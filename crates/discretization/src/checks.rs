//! Numerical checks of the defining properties (docs/math.md §A.1, §A.6): discretization maps,
//! symmetry preservation, and the derivatives a hand-written [`EuclideanMap`] supplies.
//!
//! * [`check_euclidean_map`]: on `R^N`, `R_d(x, 0) = (x, x)` and `∂_v R^2 - ∂_v R^1 = I` at
//!   `v = 0`, **exactly** from [`EuclideanMap::jacobian`];
//! * [`check_discretization_map`]: on any space (Lie groups, `S^2`, `R^N`), the same two
//!   properties with `T_{0_x} R^i` by **central differences** read in a [`TangentChart`]
//!   centred at `x`;
//! * [`check_symmetry_preservation`]: the largest violation of
//!   `R_d(TΦ_g v) = (Φ_g × Φ_g) R_d(v)` (Def. 1 of Barbero-Liñán, Marrero, Martín de Diego,
//!   *From retraction maps to symplectic-momentum numerical integrators*, 2024,
//!   arXiv:2401.14800) over sampled group elements and
//!   tangent vectors, for any [`GroupAction`] whose points and tangents are the map's;
//! * [`check_euclidean_derivatives`]: `jacobian` and `covector_hessian` against central
//!   differences of `apply` and of the covector pairing.
//!
//! Every check returns a report with the measured numbers; `require(tol)` turns it into
//! `Err(`[`DiscretizationError::PropertyViolated`]`)` when a defect exceeds `tol` (a NaN defect
//! always fails).
//!
//! **Accuracy of the central differences.** Directions are normalised to unit length and
//! differenced with step [`FD_STEP`] `= 1e-5`: the truncation error is `ε²/6 |∂³R|` and the
//! rounding error about `1e-16 |R|/ε`, so a correct map of moderate curvature shows a derivative
//! defect of `1e-10 … 1e-9`; use tolerances of about `1e-7`. A violated property shows an O(1)
//! defect.

use crate::error::DiscretizationError;
use crate::map::{DiscretizationMap, EuclideanMap};
use geom_core::GeomError;
use geom_core::action::{ElementOf, GroupAction};
use geom_core::lie::LieGroup;
use nalgebra::{SMatrix, SVector};
use std::fmt::Debug;

/// Step of the central differences of the checkers, applied to unit directions.
pub const FD_STEP: f64 = 1e-5;

/// `Err(PropertyViolated)` unless `defect <= tolerance` (NaN fails).
pub(crate) fn require_property(property: &'static str, defect: f64, tolerance: f64) -> Result<(), DiscretizationError> {
    if defect <= tolerance {
        Ok(())
    } else {
        Err(DiscretizationError::PropertyViolated { property, defect, tolerance })
    }
}

/// `max` that propagates NaN, so that a NaN defect never passes.
pub(crate) fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) }
}

/// First-order local coordinates of a space `Q` around a point, with values in the coordinates
/// the tangent vectors use (`R^K`): `offset(x, y)` with `offset(x, x) = 0` and
/// `d/dε offset(x, c(ε))|₀ = ċ(0)` for every curve `c` through `x`. The checkers read
/// `T_{0_x} R` through it by central differences.
///
/// Instances: [`AmbientChart`] (`y - x`, for `R^N` and the embedded `S^2` with ambient tangent
/// vectors) and [`LieChart`] (`log(x^{-1} y)`, for left-trivialized tangent vectors on a Lie
/// group).
pub trait TangentChart<P, const K: usize>: Debug + Send + Sync {
    /// The local coordinates of `y` in the chart centred at `x`.
    fn offset(&self, x: &P, y: &P) -> Result<SVector<f64, K>, GeomError>;
}

/// `offset(x, y) = y - x` in `R^K`: `R^N`, or a submanifold of `R^K` (such as `S^2 ⊂ R^3`) with
/// ambient tangent vectors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AmbientChart;

impl<const K: usize> TangentChart<SVector<f64, K>, K> for AmbientChart {
    fn offset(&self, x: &SVector<f64, K>, y: &SVector<f64, K>) -> Result<SVector<f64, K>, GeomError> {
        Ok(y - x)
    }
}

/// `offset(g, h) = log(g^{-1} h)` on a Lie group: the left-trivialized first-order chart
/// (`log` has derivative `Id` at `e`), matching tangent vectors stored as `ξ = g^{-1} v`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LieChart<G> {
    group: G,
}

impl<G> LieChart<G> {
    /// The chart of `group`.
    pub fn new(group: G) -> Self {
        Self { group }
    }
}

impl<G: LieGroup<f64, D>, const D: usize> TangentChart<G::Element, D> for LieChart<G> {
    fn offset(&self, x: &G::Element, y: &G::Element) -> Result<SVector<f64, D>, GeomError> {
        self.group.log(&self.group.compose(&self.group.inverse(x), y))
    }
}

/// What [`check_euclidean_map`] and [`check_discretization_map`] measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapReport {
    /// `max_x max(dist(R^1(x, 0), x), dist(R^2(x, 0), x))` (property 1).
    pub zero_defect: f64,
    /// Property 2: `max_x |∂_v R^2 - ∂_v R^1 - I|_max` at `v = 0` (exact, on `R^N`) or
    /// `max_{x, d} |(T R^2 - T R^1) d - d|` over unit directions `d` (central differences).
    pub derivative_defect: f64,
    /// Number of points (or point–direction pairs) checked.
    pub samples: usize,
}

impl MapReport {
    /// `Ok(())` if both defects are `<= tolerance`, else
    /// [`DiscretizationError::PropertyViolated`] naming the first violated property.
    pub fn require(&self, tolerance: f64) -> Result<(), DiscretizationError> {
        require_property("R_d(0_x) = (x, x)", self.zero_defect, tolerance)?;
        require_property("T R^2 - T R^1 = Id", self.derivative_defect, tolerance)
    }
}

/// The defining properties of a discretization map on `R^N` (docs/math.md §A.1) at the points `xs`,
/// exactly: `zero_defect = max dist(R^i(x, 0), x)` by [`DiscretizationMap::apply`] and
/// [`DiscretizationMap::distance`], `derivative_defect = max |∂_v R^2 - ∂_v R^1 - I|_max` at
/// `(x, 0)` from [`EuclideanMap::jacobian`] (which should itself be checked, e.g. with
/// [`check_euclidean_derivatives`]). Errors of `apply` are returned.
///
/// ```
/// use discretization::checks::check_euclidean_map;
/// use discretization::ThetaMap;
/// use nalgebra::Vector2;
/// let report = check_euclidean_map(&ThetaMap::<2>::new(0.3)?, &[Vector2::new(1.0, 2.0)])?;
/// assert_eq!((report.zero_defect, report.derivative_defect), (0.0, 0.0));
/// report.require(1e-14).unwrap();
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn check_euclidean_map<M: EuclideanMap<N> + ?Sized, const N: usize>(
    map: &M,
    xs: &[SVector<f64, N>],
) -> Result<MapReport, GeomError> {
    let mut report = MapReport { zero_defect: 0.0, derivative_defect: 0.0, samples: xs.len() };
    let zero = SVector::<f64, N>::zeros();
    for x in xs {
        let (r1, r2) = map.apply(x, &zero)?;
        report.zero_defect = nan_max(report.zero_defect, nan_max(map.distance(&r1, x), map.distance(&r2, x)));
        let j = map.jacobian(x, &zero);
        let d = j.dv2 - j.dv1 - SMatrix::<f64, N, N>::identity();
        report.derivative_defect = nan_max(report.derivative_defect, d.iter().fold(0.0, |m, v| nan_max(m, v.abs())));
    }
    Ok(report)
}

/// The defining properties of a discretization map on any space (docs/math.md §A.1), numerically:
/// for each sample `(x, d)` with `d ∈ T_xQ` (in the map's tangent coordinates; for `S^2`,
/// `d ⊥ x`) the zero defect `max(dist(R^1(x, 0), x), dist(R^2(x, 0), x))` with
/// [`DiscretizationMap::distance`], and with `d̂ = d/|d|`, `ε = FD_STEP`, `o = chart.offset(x, ·)`,
/// ```text
///   |[o(R²(x, εd̂)) - o(R²(x, -εd̂)) - o(R¹(x, εd̂)) + o(R¹(x, -εd̂))]/(2ε) - d̂|
/// ```
/// (zero directions only contribute the zero defect). Accuracy: see the module documentation
/// (`~1e-9` for a correct map). Errors of `apply` and of the chart are returned.
pub fn check_discretization_map<M, C, const K: usize>(
    map: &M,
    chart: &C,
    samples: &[(M::Point, SVector<f64, K>)],
) -> Result<MapReport, GeomError>
where
    M: DiscretizationMap<Tangent = SVector<f64, K>> + ?Sized,
    C: TangentChart<M::Point, K> + ?Sized,
{
    let mut report = MapReport { zero_defect: 0.0, derivative_defect: 0.0, samples: samples.len() };
    for (x, d) in samples {
        let (r1, r2) = map.apply(x, &SVector::zeros())?;
        report.zero_defect = nan_max(report.zero_defect, nan_max(map.distance(&r1, x), map.distance(&r2, x)));
        let norm = d.norm();
        if norm == 0.0 {
            continue;
        }
        if !norm.is_finite() {
            return Err(GeomError::NonFinite { what: "check direction" });
        }
        let dir = d / norm;
        let (a1, a2) = map.apply(x, &(dir * FD_STEP))?;
        let (b1, b2) = map.apply(x, &(dir * -FD_STEP))?;
        let diff = chart.offset(x, &a2)? - chart.offset(x, &b2)? - chart.offset(x, &a1)? + chart.offset(x, &b1)?;
        let defect = (diff / (2.0 * FD_STEP) - dir).norm();
        report.derivative_defect = nan_max(report.derivative_defect, defect);
    }
    Ok(report)
}

/// The largest discrepancy between the derivatives an [`EuclideanMap`] reports at `(x, v)` and
/// central differences (step `1e-5` per coordinate): the Jacobian blocks against differences of
/// [`DiscretizationMap::apply`], the covector Hessian against differences of
/// `∇φ = (∂_x R^1ᵀ P_0 + ∂_x R^2ᵀ P_1, ∂_v R^1ᵀ P_0 + ∂_v R^2ᵀ P_1)` built from `jacobian`.
/// Returned as `max |exact - fd| / (1 + |exact|)` over all entries; a correct implementation gives
/// `~1e-10`, compare with `~1e-7`. Errors of `apply` are returned.
pub fn check_euclidean_derivatives<M: EuclideanMap<N> + ?Sized, const N: usize>(
    map: &M,
    x: &SVector<f64, N>,
    v: &SVector<f64, N>,
    p0: &SVector<f64, N>,
    p1: &SVector<f64, N>,
) -> Result<f64, GeomError> {
    let eps = 1e-5;
    let j = map.jacobian(x, v);
    let c = map.covector_hessian(x, v, p0, p1);
    let grad = |x: &SVector<f64, N>, v: &SVector<f64, N>| {
        let j = map.jacobian(x, v);
        (j.dx1.tr_mul(p0) + j.dx2.tr_mul(p1), j.dv1.tr_mul(p0) + j.dv2.tr_mul(p1))
    };
    let mut worst = 0.0f64;
    let mut cmp = |exact: f64, fd: f64| worst = nan_max(worst, (exact - fd).abs() / (1.0 + exact.abs()));
    for k in 0..N {
        let mut e = SVector::<f64, N>::zeros();
        e[k] = eps;
        // derivatives in x_k
        let ((a1, a2), (b1, b2)) = (map.apply(&(x + e), v)?, map.apply(&(x - e), v)?);
        let ((gxa, gva), (gxb, gvb)) = (grad(&(x + e), v), grad(&(x - e), v));
        for i in 0..N {
            cmp(j.dx1[(i, k)], (a1[i] - b1[i]) / (2.0 * eps));
            cmp(j.dx2[(i, k)], (a2[i] - b2[i]) / (2.0 * eps));
            cmp(c.xx[(i, k)], (gxa[i] - gxb[i]) / (2.0 * eps));
            cmp(c.xv[(k, i)], (gva[i] - gvb[i]) / (2.0 * eps));
        }
        // derivatives in v_k
        let ((a1, a2), (b1, b2)) = (map.apply(x, &(v + e))?, map.apply(x, &(v - e))?);
        let ((gxa, gva), (gxb, gvb)) = (grad(x, &(v + e)), grad(x, &(v - e)));
        for i in 0..N {
            cmp(j.dv1[(i, k)], (a1[i] - b1[i]) / (2.0 * eps));
            cmp(j.dv2[(i, k)], (a2[i] - b2[i]) / (2.0 * eps));
            cmp(c.xv[(i, k)], (gxa[i] - gxb[i]) / (2.0 * eps));
            cmp(c.vv[(i, k)], (gva[i] - gvb[i]) / (2.0 * eps));
        }
    }
    Ok(worst)
}

/// What [`check_symmetry_preservation`] measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SymmetryReport {
    /// `max_{g, (x, v)} max(dist(A_1, B_1), dist(A_2, B_2))` with
    /// `(A_1, A_2) = R_d(TΦ_g(x, v))` and `(B_1, B_2) = (Φ_g R^1(x, v), Φ_g R^2(x, v))`, in the
    /// map's [`DiscretizationMap::distance`].
    pub max_defect: f64,
    /// `(element index, sample index)` of the largest defect (`None` if nothing was checked).
    pub worst: Option<(usize, usize)>,
    /// Number of `(g, (x, v))` pairs checked.
    pub checked: usize,
}

impl SymmetryReport {
    /// `Ok(())` if `max_defect <= tolerance`, else [`DiscretizationError::PropertyViolated`].
    pub fn require(&self, tolerance: f64) -> Result<(), DiscretizationError> {
        require_property("R_d(TΦ_g v) = (Φ_g × Φ_g) R_d(v)", self.max_defect, tolerance)
    }
}

/// Symmetry preservation (Barbero-Liñán et al. 2024, Def. 1; docs/math.md §A.6): for every group
/// element `g` of `elements` and every sample `(x, v)`, the defect between `R_d(TΦ_g(x, v))` and
/// `(Φ_g × Φ_g)(R_d(x, v))` ([`SymmetryReport`]). Works for any [`GroupAction`] whose points and
/// tangent vectors are the map's: `R^N` with `RotationAction`, `LinearAction`, `Translation`,
/// `Diagonal`; `S^2` with `SphereRotation`; a Lie group with `LeftMultiplication` or
/// `RightMultiplication` (left-trivialized tangents). [`sample_algebra`] gives reproducible algebra samples to
/// exponentiate. Errors of `apply` are returned.
///
/// ```
/// use discretization::checks::check_symmetry_preservation;
/// use discretization::ThetaMap;
/// use geom_core::action::RotationAction;
/// use geom_core::lie::{LieGroup, So3};
/// use nalgebra::Vector3;
/// let rotations = [So3.exp(&Vector3::new(0.3, -1.0, 2.0))];
/// let samples = [(Vector3::new(1.0, 2.0, 3.0), Vector3::new(-0.5, 0.1, 0.4))];
/// let report = check_symmetry_preservation(&ThetaMap::<3>::midpoint(), &RotationAction, &rotations, &samples)?;
/// report.require(1e-14).unwrap();
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn check_symmetry_preservation<M, A, const D: usize>(
    map: &M,
    action: &A,
    elements: &[ElementOf<A, f64, D>],
    samples: &[(M::Point, M::Tangent)],
) -> Result<SymmetryReport, GeomError>
where
    M: DiscretizationMap + ?Sized,
    A: GroupAction<f64, D, Point = M::Point, Tangent = M::Tangent> + ?Sized,
{
    let mut report = SymmetryReport { max_defect: 0.0, worst: None, checked: 0 };
    for (gi, g) in elements.iter().enumerate() {
        for (si, (x, v)) in samples.iter().enumerate() {
            let (gx, gv) = action.tangent_lift(g, x, v);
            let (a1, a2) = map.apply(&gx, &gv)?;
            let (r1, r2) = map.apply(x, v)?;
            let (b1, b2) = (action.act(g, &r1), action.act(g, &r2));
            let defect = nan_max(map.distance(&a1, &b1), map.distance(&a2, &b2));
            if report.worst.is_none() || defect.is_nan() || defect > report.max_defect {
                report.worst = Some((gi, si));
            }
            report.max_defect = nan_max(report.max_defect, defect);
            report.checked += 1;
        }
    }
    Ok(report)
}

/// `n` reproducible pseudo-random vectors of `R^D` with entries uniform in `[-scale, scale]`
/// (SplitMix64 from `seed`), e.g. algebra elements to exponentiate into group samples for
/// [`check_symmetry_preservation`].
///
/// ```
/// use discretization::checks::sample_algebra;
/// let xs = sample_algebra::<3>(4, 2.0, 7);
/// assert_eq!(xs.len(), 4);
/// assert!(xs.iter().all(|x| x.amax() <= 2.0));
/// assert_eq!(xs, sample_algebra::<3>(4, 2.0, 7));
/// ```
pub fn sample_algebra<const D: usize>(n: usize, scale: f64, seed: u64) -> Vec<SVector<f64, D>> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n).map(|_| SVector::from_fn(|_, _| scale * (2.0 * next() - 1.0))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autodiff_map::tests::Quadratic;
    use crate::autodiff_map::{AutoDiffMap, MapModel};
    use crate::theta::ThetaMap;
    use geom_core::Scalar;
    use geom_core::action::{Diagonal, LinearAction, RigidMotion, RotationAction, Translation};
    use geom_core::lie::{Gl, Se3, So3};
    use nalgebra::Vector3;

    /// `R^1 = x - v/2 + ε(v_0², 0, 0)`, `R^2 = x + v/2 + ε(v_0², 0, 0)`: a discretization map
    /// (the correction is quadratic in `v`), but not rotation-equivariant.
    #[derive(Debug)]
    struct Lopsided(f64);
    impl MapModel<3> for Lopsided {
        fn name(&self) -> String {
            "lopsided".into()
        }
        #[inline]
        fn eval<S: Scalar>(&self, x: &SVector<S, 3>, v: &SVector<S, 3>) -> (SVector<S, 3>, SVector<S, 3>) {
            let corr = SVector::<S, 3>::from([v[0] * v[0] * S::from(self.0), S::from(0.0), S::from(0.0)]);
            let half = v * S::from(0.5);
            (x - half + corr, x + half + corr)
        }
    }

    /// Not a discretization map: `R^2 - R^1 = 2v` at first order.
    #[derive(Debug)]
    struct Doubled;
    impl MapModel<3> for Doubled {
        fn name(&self) -> String {
            "doubled".into()
        }
        #[inline]
        fn eval<S: Scalar>(&self, x: &SVector<S, 3>, v: &SVector<S, 3>) -> (SVector<S, 3>, SVector<S, 3>) {
            (x - v, x + v)
        }
    }

    fn samples() -> Vec<(Vector3<f64>, Vector3<f64>)> {
        let xs = sample_algebra::<3>(5, 2.0, 1);
        let vs = sample_algebra::<3>(5, 1.0, 2);
        xs.into_iter().zip(vs).collect()
    }

    #[test]
    fn theta_maps_are_discretization_maps_exactly_and_numerically() {
        let pts: Vec<_> = samples().into_iter().map(|(x, _)| x).collect();
        for theta in [0.0, 0.3, 0.5, 1.0] {
            let map = ThetaMap::<3>::new(theta).unwrap();
            let exact = check_euclidean_map(&map, &pts).unwrap();
            assert_eq!((exact.zero_defect, exact.derivative_defect, exact.samples), (0.0, 0.0, 5));
            let fd = check_discretization_map(&map, &AmbientChart, &samples()).unwrap();
            assert!(fd.derivative_defect < 1e-9, "{fd:?}");
            fd.require(1e-8).unwrap();
        }
    }

    #[test]
    fn a_map_that_is_not_a_discretization_map_is_flagged() {
        let map = AutoDiffMap::<_, 3>(Doubled);
        let pts: Vec<_> = samples().into_iter().map(|(x, _)| x).collect();
        let exact = check_euclidean_map(&map, &pts).unwrap();
        assert_eq!(exact.zero_defect, 0.0);
        assert!((exact.derivative_defect - 1.0).abs() < 1e-15);
        match exact.require(1e-8) {
            Err(DiscretizationError::PropertyViolated { property, defect, .. }) => {
                assert_eq!(property, "T R^2 - T R^1 = Id");
                assert!(defect > 0.9);
            }
            other => panic!("expected a violation, got {other:?}"),
        }
        let fd = check_discretization_map(&map, &AmbientChart, &samples()).unwrap();
        assert!((fd.derivative_defect - 1.0).abs() < 1e-8, "{fd:?}");
        assert!(fd.require(1e-6).is_err());
        // NaN never passes
        let nan = MapReport { zero_defect: f64::NAN, derivative_defect: 0.0, samples: 1 };
        assert!(nan.require(1.0).is_err());
    }

    #[test]
    fn theta_maps_preserve_linear_symmetries() {
        let map = ThetaMap::<3>::new(0.3).unwrap();
        let rotations: Vec<_> = sample_algebra::<3>(4, 3.0, 3).iter().map(|w| So3.exp(w)).collect();
        let r = check_symmetry_preservation(&map, &RotationAction, &rotations, &samples()).unwrap();
        assert_eq!(r.checked, 20);
        r.require(1e-14).unwrap();
        let gl: Vec<_> =
            sample_algebra::<9>(4, 0.7, 4).iter().map(|m| LieGroup::<f64, 9>::exp(&Gl::<3, 9>, m)).collect();
        check_symmetry_preservation(&map, &LinearAction::<3, 9>, &gl, &samples()).unwrap().require(1e-13).unwrap();
        let shifts = sample_algebra::<3>(3, 5.0, 5);
        check_symmetry_preservation(&map, &Translation::<3>, &shifts, &samples()).unwrap().require(1e-14).unwrap();
        let motions: Vec<_> = sample_algebra::<6>(3, 1.0, 6).iter().map(|x| Se3.exp(x)).collect();
        // rigid motions act affinely on points but linearly on tangents: also preserved
        check_symmetry_preservation(&map, &RigidMotion, &motions, &samples()).unwrap().require(1e-13).unwrap();
        // two particles, diagonal rotations
        let pair = Diagonal::<_, 3, 2, 6>::new(RotationAction);
        let six: Vec<_> = sample_algebra::<6>(3, 1.0, 7).into_iter().zip(sample_algebra::<6>(3, 1.0, 8)).collect();
        check_symmetry_preservation(&ThetaMap::<6>::midpoint(), &pair, &rotations, &six)
            .unwrap()
            .require(1e-14)
            .unwrap();
    }

    #[test]
    fn nonlinear_radial_map_preserves_rotations() {
        // R^i = x ± v/2 + c|v|² x is built from invariants, hence SO(3)-equivariant
        let map = AutoDiffMap::<_, 3>(Quadratic(0.3));
        let rotations: Vec<_> = sample_algebra::<3>(4, 3.0, 9).iter().map(|w| So3.exp(w)).collect();
        check_symmetry_preservation(&map, &RotationAction, &rotations, &samples()).unwrap().require(1e-13).unwrap();
        // but not translation-equivariant (it uses x itself)
        let shifts = sample_algebra::<3>(3, 5.0, 10);
        let r = check_symmetry_preservation(&map, &Translation::<3>, &shifts, &samples()).unwrap();
        assert!(r.max_defect > 1e-2, "{r:?}");
    }

    #[test]
    fn a_map_that_breaks_the_symmetry_is_flagged() {
        let eps = 0.1;
        let map = AutoDiffMap::<_, 3>(Lopsided(eps));
        // it is a discretization map ...
        let pts: Vec<_> = samples().into_iter().map(|(x, _)| x).collect();
        check_euclidean_map(&map, &pts).unwrap().require(1e-14).unwrap();
        // ... but not rotation-equivariant
        let rotations: Vec<_> = sample_algebra::<3>(4, 3.0, 11).iter().map(|w| So3.exp(w)).collect();
        let r = check_symmetry_preservation(&map, &RotationAction, &rotations, &samples()).unwrap();
        assert!(r.max_defect > 1e-2, "{r:?}");
        assert!(r.worst.is_some());
        assert!(matches!(r.require(1e-10), Err(DiscretizationError::PropertyViolated { .. })));
        // it is translation-equivariant (the correction depends on v only)
        let shifts = sample_algebra::<3>(3, 5.0, 12);
        check_symmetry_preservation(&map, &Translation::<3>, &shifts, &samples()).unwrap().require(1e-14).unwrap();
        // the identity rotation shows no defect
        let r = check_symmetry_preservation(&map, &RotationAction, &[So3.exp(&Vector3::zeros())], &samples()).unwrap();
        assert_eq!(r.max_defect, 0.0);
    }

    #[test]
    fn euclidean_derivative_check_detects_wrong_derivatives() {
        /// The midpoint map reporting the θ = 0.3 Jacobian: wrong `dv` blocks.
        #[derive(Debug)]
        struct Wrong;
        impl DiscretizationMap for Wrong {
            type Point = Vector3<f64>;
            type Tangent = Vector3<f64>;
            fn name(&self) -> String {
                "wrong".into()
            }
            fn apply(&self, x: &Vector3<f64>, v: &Vector3<f64>) -> Result<(Vector3<f64>, Vector3<f64>), GeomError> {
                ThetaMap::<3>::midpoint().apply(x, v)
            }
            fn inverse(&self, a: &Vector3<f64>, b: &Vector3<f64>) -> Result<(Vector3<f64>, Vector3<f64>), GeomError> {
                ThetaMap::<3>::midpoint().inverse(a, b)
            }
            fn distance(&self, a: &Vector3<f64>, b: &Vector3<f64>) -> f64 {
                (a - b).norm()
            }
        }
        impl EuclideanMap<3> for Wrong {
            fn jacobian(&self, x: &Vector3<f64>, v: &Vector3<f64>) -> crate::MapJacobian<3> {
                ThetaMap::<3>::new(0.3).unwrap().jacobian(x, v)
            }
            fn covector_hessian(
                &self,
                _: &Vector3<f64>,
                _: &Vector3<f64>,
                _: &Vector3<f64>,
                _: &Vector3<f64>,
            ) -> crate::CovectorHessian<3> {
                crate::CovectorHessian::zeros()
            }
        }
        let (x, v) = (Vector3::new(1.0, 2.0, 3.0), Vector3::new(0.1, 0.2, 0.3));
        let d = check_euclidean_derivatives(&Wrong, &x, &v, &x, &v).unwrap();
        assert!(d > 0.1, "{d}");
        let ok = check_euclidean_derivatives(&ThetaMap::<3>::midpoint(), &x, &v, &x, &v).unwrap();
        assert!(ok < 1e-9, "{ok}");
    }
}
