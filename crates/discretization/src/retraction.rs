//! Retractions `R: TM -> M` (§2 of Barbero-Liñán, Marrero, Martín de Diego, *From retraction maps
//! to symplectic-momentum numerical integrators*, 2024, arXiv:2401.14800; docs/math.md §A.1) and the
//! discretization maps they induce.
//!
//! A retraction satisfies `R_x(0_x) = x` and `T_{0_x} R_x = Id_{T_xM}`. Instances:
//!
//! | type | `M` | `R_x(v)` | tangent coordinates |
//! | --- | --- | --- | --- |
//! | [`EuclideanRetraction<N>`] | `R^N` | `x + v` | `v ∈ R^N` |
//! | [`LieGroupRetraction<G, D>`] | Lie group `G` | `g τ(ξ)`, `τ ∈ {exp, cay}` | left-trivialized `ξ = g^{-1} v` |
//! | [`SphereNormalization`] | `S^2` | `(x + v)/|x + v|` (docs/math.md §A.4) | ambient `v ⊥ x` |
//! | [`SphereExponential`] | `S^2` | `cos|v| x + sin|v| v/|v|` (Riemannian exp) | ambient `v ⊥ x` |
//!
//! [`check_retraction`] measures both defining properties numerically; [`RetractionMap`] is the
//! discretization map `R_d(x, v) = (R_x(-θv), R_x((1-θ)v))` of any retraction (Barbero-Liñán et
//! al. 2024, §2):
//! `R_d(0_x) = (x, x)` and `T R^2 - T R^1 = ((1-θ) + θ) T_0R_x = Id`.

use crate::checks::{FD_STEP, TangentChart, nan_max, require_property};
use crate::error::DiscretizationError;
use crate::map::{CovectorHessian, DiscretizationMap, EuclideanMap, MapJacobian};
use crate::sphere::{check_sphere_point, check_sphere_tangent};
use geom_core::GeomError;
use geom_core::lie::{Chart, GroupChart, LieGroup};
use nalgebra::{SMatrix, SVector, Vector3};
use std::fmt::Debug;

/// A retraction `R: TM -> M`, `R_x(0_x) = x`, `T_{0_x}R_x = Id` (docs/math.md §A.1). Object-safe:
/// `Box<dyn Retraction<Point = Vector3<f64>, Tangent = Vector3<f64>>>` holds either sphere
/// retraction.
pub trait Retraction: Debug + Send + Sync {
    /// A point of `M`.
    type Point: Clone + Debug;
    /// A tangent vector, in the coordinates the retraction documents.
    type Tangent: Clone + Debug;
    /// Name, e.g. `"S^2 normalization"`.
    fn name(&self) -> String;
    /// `R_x(v)`.
    fn retract(&self, x: &Self::Point, v: &Self::Tangent) -> Result<Self::Point, GeomError>;
    /// The local inverse `R_x^{-1}(y)`, `R_x(R_x^{-1}(y)) = y` for `y` near `x` (used by
    /// [`RetractionMap`]'s inverse). Default: [`GeomError::InvalidParameter`] (no inverse known).
    fn inverse_retract(&self, x: &Self::Point, y: &Self::Point) -> Result<Self::Tangent, GeomError> {
        let _ = (x, y);
        Err(GeomError::InvalidParameter { what: "retraction", reason: format!("{} has no inverse", self.name()) })
    }
    /// A distance on `M` (the one [`RetractionMap::distance`](DiscretizationMap::distance) and
    /// the checkers use).
    fn distance(&self, a: &Self::Point, b: &Self::Point) -> f64;
}

/// `R_x(v) = x + v` on `R^N`; `R_x^{-1}(y) = y - x`, Euclidean distance. Both return
/// [`GeomError::NonFinite`] for NaN or ∞ in an input, or a result that overflows (one pass
/// over the result: NaN and ∞ in the inputs show there).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EuclideanRetraction<const N: usize>;

impl<const N: usize> Retraction for EuclideanRetraction<N> {
    type Point = SVector<f64, N>;
    type Tangent = SVector<f64, N>;
    fn name(&self) -> String {
        format!("R^{N} translation")
    }
    fn retract(&self, x: &SVector<f64, N>, v: &SVector<f64, N>) -> Result<SVector<f64, N>, GeomError> {
        let y = x + v;
        geom_core::error::check_finite(y.iter(), "R^N retraction")?;
        Ok(y)
    }
    fn inverse_retract(&self, x: &SVector<f64, N>, y: &SVector<f64, N>) -> Result<SVector<f64, N>, GeomError> {
        let v = y - x;
        geom_core::error::check_finite(v.iter(), "inverse R^N retraction")?;
        Ok(v)
    }
    fn distance(&self, a: &SVector<f64, N>, b: &SVector<f64, N>) -> f64 {
        (a - b).norm()
    }
}

/// `R_g(ξ) = g τ(ξ)` on a Lie group with `τ = exp` or Cayley ([`Chart`]), tangent vectors
/// **left-trivialized**, `ξ = g^{-1} v_g ∈ g ≅ R^D` (the convention of [`geom_core::lie`]). Since
/// `τ(0) = e` and `Dτ(0) = Id`, it is a retraction. `R_g^{-1}(h) = τ^{-1}(g^{-1} h)`; distance
/// `|log(a^{-1} b)|` (`+∞` where `log` is not defined).
///
/// ```
/// use discretization::retraction::{LieGroupRetraction, Retraction};
/// use geom_core::lie::{Chart, So3};
/// use nalgebra::{Matrix3, Vector3};
/// let r = LieGroupRetraction::<_, 3>::new(So3, Chart::Cayley);
/// let g = r.retract(&Matrix3::identity(), &Vector3::new(0.1, 0.2, 0.3))?;
/// let xi = r.inverse_retract(&Matrix3::identity(), &g)?;
/// assert!((xi - Vector3::new(0.1, 0.2, 0.3)).norm() < 1e-15);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LieGroupRetraction<G, const D: usize, C = Chart> {
    group: G,
    chart: C,
}

impl<G, const D: usize, C: Copy> LieGroupRetraction<G, D, C> {
    /// The retraction `g τ(ξ)` of `group` with the chart `chart` (a shipped [`Chart`] or a
    /// user's [`GroupChart`]; a user chart is validated by the methods that use it, or by
    /// [`geom_core::lie::check_chart`]).
    pub fn new(group: G, chart: C) -> Self {
        Self { group, chart }
    }
    /// The group.
    pub fn group(&self) -> &G {
        &self.group
    }
    /// The chart `τ`.
    pub fn chart(&self) -> C {
        self.chart
    }
    /// The chart `τ`, borrowed (for [`crate::ThetaChart::of`]).
    pub(crate) fn chart_ref(&self) -> &C {
        &self.chart
    }
}

/// `|log(a^{-1} b)|` on a Lie group, `+∞` where `log` is not defined.
pub(crate) fn lie_distance<G: LieGroup<f64, D> + ?Sized, const D: usize>(
    group: &G,
    a: &G::Element,
    b: &G::Element,
) -> f64 {
    match group.log(&group.compose(&group.inverse(a), b)) {
        Ok(x) => x.norm(),
        Err(_) => f64::INFINITY,
    }
}

impl<G: LieGroup<f64, D>, const D: usize, C: GroupChart<f64, G, D>> Retraction for LieGroupRetraction<G, D, C> {
    type Point = G::Element;
    type Tangent = SVector<f64, D>;
    fn name(&self) -> String {
        format!("{} left-translated {}", self.group.name(), self.chart.name())
    }
    fn retract(&self, g: &G::Element, xi: &SVector<f64, D>) -> Result<G::Element, GeomError> {
        geom_core::error::check_finite(xi.iter(), "Lie algebra element")?;
        self.chart.compose_tau(&self.group, g, xi)
    }
    fn inverse_retract(&self, g: &G::Element, h: &G::Element) -> Result<SVector<f64, D>, GeomError> {
        self.chart.tau_inv(&self.group, &self.group.compose(&self.group.inverse(g), h))
    }
    fn distance(&self, a: &G::Element, b: &G::Element) -> f64 {
        lie_distance(&self.group, a, b)
    }
}

/// `R_x(v) = (x + v)/|x + v|` on `S^2` for `v ⊥ x` (docs/math.md §A.4; Absil–Mahony–Sepulchre).
/// `R_x^{-1}(y) = y/(x·y) - x` for `x·y > 0`. Chordal distance `|a - b|`. Inputs are validated
/// with [`crate::sphere::SPHERE_TOLERANCE`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SphereNormalization;

impl Retraction for SphereNormalization {
    type Point = Vector3<f64>;
    type Tangent = Vector3<f64>;
    fn name(&self) -> String {
        "S^2 normalization".into()
    }
    fn retract(&self, x: &Vector3<f64>, v: &Vector3<f64>) -> Result<Vector3<f64>, GeomError> {
        check_sphere_tangent(x, v)?;
        crate::sphere::normalized(&(x + v))
    }
    fn inverse_retract(&self, x: &Vector3<f64>, y: &Vector3<f64>) -> Result<Vector3<f64>, GeomError> {
        check_sphere_point(x)?;
        check_sphere_point(y)?;
        let c = x.dot(y);
        if c <= 0.0 {
            return Err(GeomError::OutsideDomain {
                map: "inverse S^2 normalization",
                reason: "the point is not in the open hemisphere around x",
            });
        }
        let v = y / c - x;
        Ok(v - x * x.dot(&v))
    }
    fn distance(&self, a: &Vector3<f64>, b: &Vector3<f64>) -> f64 {
        (a - b).norm()
    }
}

/// The Riemannian exponential of `S^2`, `R_x(v) = cos|v| x + (sin|v|/|v|) v` for `v ⊥ x` (the
/// example of docs/math.md §A.1), with the series `sin t/t = 1 - t²/6 + t⁴/120` for `t < 1e-3`
/// (error `< t⁶/5040 ≈ 2e-22`). `R_x^{-1}(y) = (α/sin α)(y - (x·y) x)`, `α = ∠(x, y)` (series
/// `1 + α²/6 + 7α⁴/360` for small `α`), not defined at `y = -x`. Chordal distance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SphereExponential;

impl Retraction for SphereExponential {
    type Point = Vector3<f64>;
    type Tangent = Vector3<f64>;
    fn name(&self) -> String {
        "S^2 exponential".into()
    }
    fn retract(&self, x: &Vector3<f64>, v: &Vector3<f64>) -> Result<Vector3<f64>, GeomError> {
        check_sphere_tangent(x, v)?;
        // |v| without overflow (a huge v has a finite norm and sin t / t, so the result is on S²)
        let t = crate::sphere::scaled_norm(v);
        if !t.is_finite() {
            return Err(GeomError::NonFinite { what: "norm of the S^2 tangent vector" });
        }
        let sinc = if t < 1e-3 {
            let t2 = t * t;
            1.0 - t2 / 6.0 + t2 * t2 / 120.0
        } else {
            t.sin() / t
        };
        Ok(x * t.cos() + v * sinc)
    }
    fn inverse_retract(&self, x: &Vector3<f64>, y: &Vector3<f64>) -> Result<Vector3<f64>, GeomError> {
        check_sphere_point(x)?;
        check_sphere_point(y)?;
        let c = x.dot(y);
        let w = y - x * c;
        let s = w.norm();
        if c < 0.0 && s < 1e-12 {
            return Err(GeomError::OutsideDomain { map: "inverse S^2 exponential", reason: "antipodal points" });
        }
        let alpha = s.atan2(c);
        let ratio = if alpha < 1e-3 {
            let a2 = alpha * alpha;
            1.0 + a2 / 6.0 + 7.0 * a2 * a2 / 360.0
        } else {
            alpha / alpha.sin()
        };
        Ok(w * ratio)
    }
    fn distance(&self, a: &Vector3<f64>, b: &Vector3<f64>) -> f64 {
        (a - b).norm()
    }
}

/// What [`check_retraction`] measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetractionReport {
    /// `max_x dist(R_x(0), x)` ([`Retraction::distance`]).
    pub zero_defect: f64,
    /// `max_{x, d} |[o(R_x(εd̂)) - o(R_x(-εd̂))]/(2ε) - d̂|` over unit directions, `o` the chart
    /// centred at `x`, `ε = FD_STEP = 1e-5`.
    pub derivative_defect: f64,
    /// Number of `(x, d)` samples.
    pub samples: usize,
}

impl RetractionReport {
    /// `Ok(())` if both defects are `<= tolerance`, else
    /// [`DiscretizationError::PropertyViolated`] naming the first violated property.
    pub fn require(&self, tolerance: f64) -> Result<(), DiscretizationError> {
        require_property("R_x(0) = x", self.zero_defect, tolerance)?;
        require_property("T_0 R_x = Id", self.derivative_defect, tolerance)
    }
}

/// Measure the defining properties of a retraction (docs/math.md §A.1) at samples `(x, d)`,
/// `d ∈ T_xM` (for `S^2`, `d ⊥ x`): `R_x(0) = x` in [`Retraction::distance`], and `T_0 R_x = Id`
/// by central differences of unit directions read in `chart` (an
/// [`AmbientChart`](crate::checks::AmbientChart) for `R^N` and `S^2`, a
/// [`LieChart`](crate::checks::LieChart) for Lie groups). Accuracy: `~1e-9` for a correct
/// retraction of moderate curvature (truncation `ε²/6 |∂³R|`, rounding `1e-16/ε`); compare with
/// `~1e-7`. Errors of `retract` and of the chart are returned.
///
/// ```
/// use discretization::checks::AmbientChart;
/// use discretization::retraction::{check_retraction, SphereNormalization};
/// use nalgebra::Vector3;
/// let report = check_retraction(&SphereNormalization, &AmbientChart, &[(Vector3::z(), Vector3::new(1.0, 2.0, 0.0))])?;
/// report.require(1e-8).unwrap();
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn check_retraction<R, C, const K: usize>(
    retraction: &R,
    chart: &C,
    samples: &[(R::Point, SVector<f64, K>)],
) -> Result<RetractionReport, GeomError>
where
    R: Retraction<Tangent = SVector<f64, K>> + ?Sized,
    C: TangentChart<R::Point, K> + ?Sized,
{
    let mut report = RetractionReport { zero_defect: 0.0, derivative_defect: 0.0, samples: samples.len() };
    for (x, d) in samples {
        let r0 = retraction.retract(x, &SVector::zeros())?;
        report.zero_defect = nan_max(report.zero_defect, retraction.distance(&r0, x));
        let norm = d.norm();
        if norm == 0.0 {
            continue;
        }
        if !norm.is_finite() {
            return Err(GeomError::NonFinite { what: "check direction" });
        }
        let dir = d / norm;
        let a = retraction.retract(x, &(dir * FD_STEP))?;
        let b = retraction.retract(x, &(dir * -FD_STEP))?;
        let fd = (chart.offset(x, &a)? - chart.offset(x, &b)?) / (2.0 * FD_STEP);
        report.derivative_defect = nan_max(report.derivative_defect, (fd - dir).norm());
    }
    Ok(report)
}

/// The discretization map of any retraction (Barbero-Liñán et al. 2024, §2):
/// `R_d(x, v) = (R_x(-θv), R_x((1-θ)v))`, `θ ∈ [0, 1]`.
///
/// * With [`EuclideanRetraction`] it is the θ-map of [`crate::ThetaMap`] (and an
///   [`EuclideanMap`] with `theta() = Some(θ)`); with [`LieGroupRetraction`] the Lie-group
///   θ-map of [`crate::lie_group`]; with [`SphereNormalization`] the map of [`crate::sphere`].
/// * Adjoint: `R_d^* = I_Q ∘ R_d ∘ (-1)` is the `(1-θ)`-map ([`RetractionMap::adjoint`]).
/// * Inverse: `R_d(x, v) = (q_0, q_1)` iff `a = R_x^{-1}(q_0) = -θv` and
///   `b = R_x^{-1}(q_1) = (1-θ)v`, iff `(1-θ) a + θ b = 0` (then `v = b - a`). It is solved by the
///   fixed-point (Riemannian centre-of-mass) iteration `x ← R_x((1-θ) R_x^{-1}(q_0) + θ R_x^{-1}(q_1))`
///   from `x = q_0`, which is exact after one step on `R^N` and for `τ = exp` on Lie groups and
///   contracts with a rate `O(|v|²)` otherwise; it stops when the correction is below
///   `1e-15 (1 + |a| + |b|)` (at most 200 iterations, else [`GeomError::NotConverged`]). It needs
///   [`Retraction::inverse_retract`].
///
/// ```
/// use discretization::retraction::{EuclideanRetraction, RetractionMap};
/// use discretization::{DiscretizationMap, ThetaMap};
/// use nalgebra::Vector2;
/// let map = RetractionMap::new(EuclideanRetraction::<2>, 0.3)?;
/// let (x, v) = (Vector2::new(1.0, 2.0), Vector2::new(0.5, -1.0));
/// assert_eq!(map.apply(&x, &v)?, ThetaMap::<2>::new(0.3)?.apply(&x, &v)?);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetractionMap<R> {
    retraction: R,
    theta: f64,
}

impl<R> RetractionMap<R> {
    /// The map of `retraction` with `θ`; [`GeomError::InvalidParameter`] unless `θ ∈ [0, 1]`.
    pub fn new(retraction: R, theta: f64) -> Result<Self, GeomError> {
        if (0.0..=1.0).contains(&theta) {
            Ok(Self { retraction, theta })
        } else {
            Err(GeomError::InvalidParameter { what: "theta", reason: format!("must lie in [0, 1], got {theta}") })
        }
    }
    /// The midpoint-type map `(R_x(-v/2), R_x(v/2))`.
    pub fn midpoint(retraction: R) -> Self {
        Self { retraction, theta: 0.5 }
    }
    /// θ.
    pub fn value(&self) -> f64 {
        self.theta
    }
    /// The retraction.
    pub fn retraction(&self) -> &R {
        &self.retraction
    }
    /// The adjoint `R_d^*`: the `(1-θ)`-map of the same retraction (docs/math.md §A.5).
    pub fn adjoint(&self) -> Self
    where
        R: Clone,
    {
        Self { retraction: self.retraction.clone(), theta: 1.0 - self.theta }
    }
}

/// Maximum number of fixed-point iterations of [`RetractionMap`]'s inverse.
const INVERSE_ITERATIONS: usize = 200;

impl<R, const K: usize> DiscretizationMap for RetractionMap<R>
where
    R: Retraction<Tangent = SVector<f64, K>>,
{
    type Point = R::Point;
    type Tangent = SVector<f64, K>;
    fn name(&self) -> String {
        format!("{} theta-map (theta = {})", self.retraction.name(), self.theta)
    }
    /// [`GeomError::NonFinite`] for NaN or ∞ in `v` (whatever the retraction would make of
    /// it), then the errors of the retraction.
    fn apply(&self, x: &R::Point, v: &SVector<f64, K>) -> Result<(R::Point, R::Point), GeomError> {
        geom_core::error::check_finite(v.iter(), "discretization-map velocity")?;
        Ok((self.retraction.retract(x, &(v * -self.theta))?, self.retraction.retract(x, &(v * (1.0 - self.theta)))?))
    }
    fn inverse(&self, q0: &R::Point, q1: &R::Point) -> Result<(R::Point, SVector<f64, K>), GeomError> {
        let r = &self.retraction;
        let mut x = q0.clone();
        let mut last = f64::INFINITY;
        for _ in 0..INVERSE_ITERATIONS {
            let a = r.inverse_retract(&x, q0)?;
            let b = r.inverse_retract(&x, q1)?;
            let c = a * (1.0 - self.theta) + b * self.theta;
            last = c.norm();
            if !last.is_finite() {
                return Err(GeomError::NonFinite { what: "retraction-map inverse" });
            }
            if last <= 1e-15 * (1.0 + a.norm() + b.norm()) {
                return Ok((x, b - a));
            }
            x = r.retract(&x, &c)?;
        }
        Err(GeomError::NotConverged { iterations: INVERSE_ITERATIONS, residual: last, step: last })
    }
    fn distance(&self, a: &R::Point, b: &R::Point) -> f64 {
        self.retraction.distance(a, b)
    }
    fn is_symmetric(&self) -> bool {
        self.theta == 0.5
    }
}

impl<const N: usize> EuclideanMap<N> for RetractionMap<EuclideanRetraction<N>> {
    /// The θ-map blocks `(I, -θI, I, (1-θ)I)`.
    fn jacobian(&self, _x: &SVector<f64, N>, _v: &SVector<f64, N>) -> MapJacobian<N> {
        let id = SMatrix::<f64, N, N>::identity();
        MapJacobian { dx1: id, dv1: id * -self.theta, dx2: id, dv2: id * (1.0 - self.theta) }
    }
    /// Zero (affine map).
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

// ---------------------------------------------------------------------------------------------
// Retractions on R^N written once over the scalar.

/// A retraction `R_x(v)` on `R^N` written once, generic over the scalar, so that the same
/// definition runs at `f64` ([`ModelRetraction`], the checkers) and under AD (its θ-map
/// [`RetractionMap`] is a [`MapModel<N>`](crate::MapModel), and `AutoDiffMap(RetractionMap::new(model, θ))` drives
/// [`crate::CotangentLiftIntegrator`] with exact derivatives). It must satisfy `R_x(0) = x` and
/// `∂_v R_x(0) = I` ([`check_retraction`] through [`ModelRetraction`]).
///
/// ```
/// use discretization::autodiff_map::AutoDiffMap;
/// use discretization::retraction::{EuclideanRetractionModel, RetractionMap};
/// use discretization::{CotangentLiftIntegrator, OneStep, PhaseState};
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use nalgebra::{SVector, Vector2};
///
/// /// `R_x(v) = x + v + c |v|² a`: a retraction (the correction is quadratic in v).
/// #[derive(Debug)]
/// struct Bent;
/// impl EuclideanRetractionModel<2> for Bent {
///     fn name(&self) -> String { "bent".into() }
///     fn retract<S: Scalar>(&self, x: &SVector<S, 2>, v: &SVector<S, 2>) -> SVector<S, 2> {
///         let a = SVector::<S, 2>::new(S::from(0.3), S::from(-0.1));
///         x + v + a * v.norm_squared()
///     }
/// }
/// struct Oscillator;
/// impl PhaseSpaceFunction<2> for Oscillator {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
///         (q.norm_squared() + p.norm_squared()) * S::from(0.5)
///     }
/// }
/// let map = AutoDiffMap::<_, 2>(RetractionMap::midpoint(Bent));
/// let integ = CotangentLiftIntegrator::new(map, AutoDiff(Oscillator));
/// let mut s = PhaseState::new(Vector2::new(1.0, 0.0), Vector2::new(0.0, 1.0));
/// integ.step(&mut s, 0.1)?;
/// assert!(s.is_finite());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub trait EuclideanRetractionModel<const N: usize>: Debug + Send + Sync {
    /// Name.
    fn name(&self) -> String;
    /// `R_x(v)` at any scalar.
    fn retract<S: geom_core::Scalar>(&self, x: &SVector<S, N>, v: &SVector<S, N>) -> SVector<S, N>;
}

impl<const N: usize> EuclideanRetractionModel<N> for EuclideanRetraction<N> {
    fn name(&self) -> String {
        format!("R^{N} translation")
    }
    fn retract<S: geom_core::Scalar>(&self, x: &SVector<S, N>, v: &SVector<S, N>) -> SVector<S, N> {
        x + v
    }
}

/// The θ-map `(R_x(-θv), R_x((1-θ)v))` of a retraction written over the scalar.
impl<R: EuclideanRetractionModel<N>, const N: usize> crate::autodiff_map::MapModel<N> for RetractionMap<R> {
    fn name(&self) -> String {
        format!("{} theta-map (theta = {})", self.retraction.name(), self.theta)
    }
    fn eval<S: geom_core::Scalar>(&self, x: &SVector<S, N>, v: &SVector<S, N>) -> (SVector<S, N>, SVector<S, N>) {
        (
            self.retraction.retract(x, &(v * S::from(-self.theta))),
            self.retraction.retract(x, &(v * S::from(1.0 - self.theta))),
        )
    }
    fn is_symmetric(&self) -> bool {
        self.theta == 0.5
    }
}

/// A [`EuclideanRetractionModel`] as an `f64` [`Retraction`] (for [`check_retraction`],
/// [`check_retraction_order`] and [`RetractionMap`]'s f64 inverse): `retract` evaluates the model
/// at `f64`; `inverse_retract` solves `R_x(v) = y` by Newton with the AD Jacobian from `v = y - x`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ModelRetraction<R, const N: usize>(pub R);

impl<R: EuclideanRetractionModel<N>, const N: usize> Retraction for ModelRetraction<R, N> {
    type Point = SVector<f64, N>;
    type Tangent = SVector<f64, N>;
    fn name(&self) -> String {
        self.0.name()
    }
    fn retract(&self, x: &SVector<f64, N>, v: &SVector<f64, N>) -> Result<SVector<f64, N>, GeomError> {
        geom_core::error::check_finite(x.iter().chain(v.iter()), "retraction input")?;
        let y = self.0.retract(x, v);
        geom_core::error::check_finite(y.iter(), "retraction value")?;
        Ok(y)
    }
    fn inverse_retract(&self, x: &SVector<f64, N>, y: &SVector<f64, N>) -> Result<SVector<f64, N>, GeomError> {
        let model = &self.0;
        let (v, _) = geom_core::newton::newton(
            |v| {
                let r = model.retract(x, v) - y;
                let j = geom_core::function::ad_jacobian_of(
                    v,
                    |vd: &SVector<num_dual::Dual64, N>| Ok(model.retract(&x.map(num_dual::Dual64::from), vd)),
                    |vd: &SVector<num_dual::DualSVec64<N>, N>| {
                        Ok(model.retract(&x.map(num_dual::DualSVec64::<N>::from), vd))
                    },
                )?;
                Ok((r, j))
            },
            &(y - x),
            &geom_core::newton::NewtonOptions::integrator(),
        )?;
        Ok(v)
    }
    fn distance(&self, a: &SVector<f64, N>, b: &SVector<f64, N>) -> f64 {
        (a - b).norm()
    }
}

// ---------------------------------------------------------------------------------------------
// Order of agreement with a reference retraction.

/// What [`check_retraction_order`] measured.
#[derive(Debug, Clone, PartialEq)]
pub struct RetractionOrderReport {
    /// The step sizes `t`.
    pub scales: Vec<f64>,
    /// `max_samples dist(R_x(t v̂), E_x(t v̂))` for each `t` (`v̂ = v/|v|`).
    pub errors: Vec<f64>,
    /// Least-squares slope of `log error` against `log t` over the points above the round-off
    /// floor (`error > 1e-13`).
    pub slope: f64,
    /// `round(slope) - 1`: the order to which the retraction agrees with the reference (`k` when
    /// `R_x(tv) = E_x(tv) + O(t^{k+1})`); `usize::MAX` if they agree to round-off at every scale.
    pub order: usize,
}

/// The order to which `retraction` agrees with `reference` (the Riemannian exponential, or any
/// retraction taken as reference): the slope of `max dist(R_x(t v̂), E_x(t v̂))` against `t` over
/// `scales`, with unit directions `v̂`. Every retraction agrees to first order (slope 2); a
/// **second-order** retraction, whose curves `t ↦ R_x(tv)` have the geodesic's acceleration at
/// `t = 0`, gives slope 3. On `S^2` the normalization `(x + v)/|x + v|` is second order; on a Lie
/// group `g cay(ξ)` agrees with `g exp(ξ)` to second order (`cay(x) - exp(x) = O(|x|³)`).
///
/// Errors: [`GeomError::DimensionMismatch`] with fewer than two scales, [`GeomError::NonFinite`]
/// for non-finite or non-positive scales and the errors of the retractions.
///
/// ```
/// use discretization::retraction::{check_retraction_order, SphereExponential, SphereNormalization};
/// use nalgebra::Vector3;
/// let x = Vector3::new(0.0, 0.6, 0.8);
/// let samples = [(x, Vector3::new(1.0, 0.0, 0.0)), (x, Vector3::new(0.0, 0.8, -0.6))];
/// let r = check_retraction_order(&SphereNormalization, &SphereExponential, &samples, &[0.1, 0.05, 0.025, 0.0125])?;
/// assert!((r.slope - 3.0).abs() < 0.1 && r.order == 2);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn check_retraction_order<R, E, P, const K: usize>(
    retraction: &R,
    reference: &E,
    samples: &[(P, SVector<f64, K>)],
    scales: &[f64],
) -> Result<RetractionOrderReport, GeomError>
where
    R: Retraction<Point = P, Tangent = SVector<f64, K>> + ?Sized,
    E: Retraction<Point = P, Tangent = SVector<f64, K>> + ?Sized,
{
    if scales.len() < 2 {
        return Err(GeomError::DimensionMismatch { what: "retraction order scales", expected: 2, got: scales.len() });
    }
    if !scales.iter().all(|t| t.is_finite() && *t > 0.0) {
        return Err(GeomError::NonFinite { what: "retraction order scale (finite, positive)" });
    }
    let mut errors = Vec::with_capacity(scales.len());
    for &t in scales {
        let mut worst = 0.0f64;
        for (x, v) in samples {
            let n = v.norm();
            if n == 0.0 || !n.is_finite() {
                continue;
            }
            let tv = v * (t / n);
            worst = nan_max(worst, retraction.distance(&retraction.retract(x, &tv)?, &reference.retract(x, &tv)?));
        }
        errors.push(worst);
    }
    let points: Vec<(f64, f64)> =
        scales.iter().zip(&errors).filter(|(_, e)| **e > 1e-13).map(|(t, e)| (t.ln(), e.ln())).collect();
    let (slope, order) = if points.len() < 2 {
        (f64::INFINITY, usize::MAX)
    } else {
        let n = points.len() as f64;
        let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
        let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let sxx: f64 = points.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
        let slope = sxy / sxx;
        (slope, (slope.round().max(1.0) as usize) - 1)
    };
    Ok(RetractionOrderReport { scales: scales.to_vec(), errors, slope, order })
}

#[cfg(test)]
mod tests {
    /// Huge, overflowing and non-finite tangent vectors: every `Ok` is a finite point on S², every
    /// other input an error (never a silent point off the sphere or NaN).
    #[test]
    fn huge_and_non_finite_tangents_give_points_on_s2_or_errors() {
        use crate::map::DiscretizationMap;
        use crate::sphere::SphereThetaMap;
        let x = Vector3::new(0.0, 0.0, 1.0);
        let m = f64::MAX;
        let cases = [
            (Vector3::new(1e300, 0.0, 0.0), true),
            (Vector3::new(1e300, 1e300, 0.0), true),
            (Vector3::new(1e200, -1e200, 0.0), true),
            (Vector3::new(m, m, 0.0), false),
            (Vector3::new(f64::NAN, 0.0, 0.0), false),
            (Vector3::new(f64::INFINITY, 0.0, 0.0), false),
        ];
        let on_s2 = |y: &Vector3<f64>| y.iter().all(|c| c.is_finite()) && (y.norm() - 1.0).abs() < 1e-12;
        for (v, finite_norm) in cases {
            let n = SphereNormalization.retract(&x, &v);
            assert!(n.as_ref().is_ok_and(on_s2) || (n.is_err() && !v.iter().all(|c| c.is_finite())), "{v:?}: {n:?}");
            let e = SphereExponential.retract(&x, &v);
            assert!(e.as_ref().is_ok_and(on_s2) || (e.is_err() && !finite_norm), "{v:?}: {e:?}");
            let t = SphereThetaMap::midpoint().apply(&x, &v);
            assert!(t.as_ref().is_ok_and(|(a, b)| on_s2(a) && on_s2(b)) || t.is_err(), "{v:?}: {t:?}");
            if v.iter().all(|c| c.is_finite()) {
                assert!(n.is_ok() && t.is_ok(), "{v:?}: a finite tangent is refused");
            }
        }
    }

    use super::*;
    use crate::checks::{AmbientChart, LieChart, check_discretization_map, check_euclidean_map, sample_algebra};
    use crate::sphere::SphereThetaMap;
    use crate::theta::ThetaMap;
    use geom_core::lie::{Se3, So3};
    use nalgebra::Vector2;

    fn sphere_samples(n: usize, scale: f64, seed: u64) -> Vec<(Vector3<f64>, Vector3<f64>)> {
        let xs = sample_algebra::<3>(n, 1.0, seed);
        let vs = sample_algebra::<3>(n, scale, seed + 100);
        xs.into_iter()
            .zip(vs)
            .map(|(x, v)| {
                let x = (x + Vector3::new(0.0, 0.0, 0.1)).normalize();
                (x, v - x * x.dot(&v))
            })
            .collect()
    }

    /// `x + 2v`: satisfies `R_x(0) = x` but not `T_0R_x = Id`.
    #[derive(Debug)]
    struct Stretched;
    impl Retraction for Stretched {
        type Point = Vector2<f64>;
        type Tangent = Vector2<f64>;
        fn name(&self) -> String {
            "stretched".into()
        }
        fn retract(&self, x: &Vector2<f64>, v: &Vector2<f64>) -> Result<Vector2<f64>, GeomError> {
            Ok(x + v * 2.0)
        }
        fn distance(&self, a: &Vector2<f64>, b: &Vector2<f64>) -> f64 {
            (a - b).norm()
        }
    }

    #[test]
    fn instances_are_retractions() {
        let euclid: Vec<_> = sample_algebra::<3>(5, 2.0, 1).into_iter().zip(sample_algebra::<3>(5, 1.0, 2)).collect();
        let r = check_retraction(&EuclideanRetraction::<3>, &AmbientChart, &euclid).unwrap();
        assert_eq!(r.zero_defect, 0.0);
        r.require(1e-9).unwrap();
        let sph = sphere_samples(6, 1.0, 3);
        for r in [
            check_retraction(&SphereNormalization, &AmbientChart, &sph).unwrap(),
            check_retraction(&SphereExponential, &AmbientChart, &sph).unwrap(),
        ] {
            assert!(r.zero_defect < 1e-15, "{r:?}");
            assert!(r.derivative_defect < 1e-9, "{r:?}");
        }
        let so3: Vec<_> =
            sample_algebra::<3>(4, 2.0, 4).iter().map(|w| So3.exp(w)).zip(sample_algebra::<3>(4, 1.0, 5)).collect();
        let se3: Vec<_> =
            sample_algebra::<6>(4, 1.5, 6).iter().map(|w| Se3.exp(w)).zip(sample_algebra::<6>(4, 1.0, 7)).collect();
        for chart in [Chart::Exp, Chart::Cayley] {
            let r = check_retraction(&LieGroupRetraction::<_, 3>::new(So3, chart), &LieChart::new(So3), &so3).unwrap();
            assert!(r.zero_defect < 1e-15 && r.derivative_defect < 1e-9, "{chart:?}: {r:?}");
            let r = check_retraction(&LieGroupRetraction::<_, 6>::new(Se3, chart), &LieChart::new(Se3), &se3).unwrap();
            assert!(r.zero_defect < 1e-15 && r.derivative_defect < 1e-9, "{chart:?}: {r:?}");
        }
    }

    #[test]
    fn a_non_retraction_is_flagged() {
        let samples = [(Vector2::new(1.0, 0.0), Vector2::new(0.3, 0.4))];
        let r = check_retraction(&Stretched, &AmbientChart, &samples).unwrap();
        assert_eq!(r.zero_defect, 0.0);
        assert!((r.derivative_defect - 1.0).abs() < 1e-9, "{r:?}");
        match r.require(1e-6) {
            Err(DiscretizationError::PropertyViolated { property, .. }) => assert_eq!(property, "T_0 R_x = Id"),
            other => panic!("{other:?}"),
        }
        // no inverse: the default reports it
        assert!(matches!(
            Stretched.inverse_retract(&samples[0].0, &samples[0].1),
            Err(GeomError::InvalidParameter { .. })
        ));
        let map = RetractionMap::midpoint(Stretched);
        assert!(map.inverse(&samples[0].0, &samples[0].1).is_err());
    }

    #[test]
    fn inverse_retractions_invert() {
        for (x, v) in sphere_samples(8, 1.5, 8) {
            for r in [
                &SphereNormalization as &dyn Retraction<Point = Vector3<f64>, Tangent = Vector3<f64>>,
                &SphereExponential,
            ] {
                let y = r.retract(&x, &v).unwrap();
                assert!((y.norm() - 1.0).abs() < 1e-15);
                let w = r.inverse_retract(&x, &y).unwrap();
                assert!((w - v).norm() < 1e-13, "{}: {:e}", r.name(), (w - v).norm());
            }
        }
        // small vectors use the series branches
        let (x, v) = (Vector3::z(), Vector3::new(1e-5, -2e-5, 0.0));
        let y = SphereExponential.retract(&x, &v).unwrap();
        assert!((SphereExponential.inverse_retract(&x, &y).unwrap() - v).norm() < 1e-20);
        assert!(SphereExponential.inverse_retract(&x, &-x).is_err());
        assert!(SphereNormalization.inverse_retract(&x, &Vector3::x()).is_err());
        assert!(SphereNormalization.retract(&x, &Vector3::z()).is_err());
        // the two sphere retractions agree to second order: |Exp_x(tv) - N(x + tv)| = O(t³)
        let v = Vector3::new(0.6, 0.8, 0.0);
        let d1 = (SphereExponential.retract(&x, &(v * 1e-2)).unwrap()
            - SphereNormalization.retract(&x, &(v * 1e-2)).unwrap())
        .norm();
        let d2 = (SphereExponential.retract(&x, &(v * 2e-2)).unwrap()
            - SphereNormalization.retract(&x, &(v * 2e-2)).unwrap())
        .norm();
        assert!((d2 / d1 - 8.0).abs() < 0.1, "{}", d2 / d1);
    }

    #[test]
    fn euclidean_retraction_map_is_the_theta_map() {
        for theta in [0.0, 0.3, 0.5, 1.0] {
            let map = RetractionMap::new(EuclideanRetraction::<3>, theta).unwrap();
            let exact = ThetaMap::<3>::new(theta).unwrap();
            for (x, v) in sample_algebra::<3>(4, 2.0, 9).into_iter().zip(sample_algebra::<3>(4, 1.0, 10)) {
                assert_eq!(map.apply(&x, &v).unwrap(), exact.apply(&x, &v).unwrap());
                let (q0, q1) = map.apply(&x, &v).unwrap();
                let (xi, vi) = map.inverse(&q0, &q1).unwrap();
                assert!((xi - x).amax() < 1e-14 && (vi - v).amax() < 1e-14);
                assert_eq!(map.jacobian(&x, &v), exact.jacobian(&x, &v));
            }
            assert_eq!(map.theta(), Some(theta));
            check_euclidean_map(&map, &[Vector3::new(1.0, 2.0, 3.0)]).unwrap().require(1e-15).unwrap();
            assert_eq!(map.adjoint().value(), 1.0 - theta);
        }
        assert!(RetractionMap::new(EuclideanRetraction::<3>, 1.5).is_err());
    }

    #[test]
    fn sphere_retraction_maps() {
        let samples = sphere_samples(8, 1.0, 11);
        for theta in [0.0, 0.3, 0.5, 1.0] {
            let normal = RetractionMap::new(SphereNormalization, theta).unwrap();
            let exact = SphereThetaMap::new(theta).unwrap();
            let expo = RetractionMap::new(SphereExponential, theta).unwrap();
            for map in [&normal as &dyn DiscretizationMap<Point = Vector3<f64>, Tangent = Vector3<f64>>, &expo] {
                check_discretization_map(map, &AmbientChart, &samples).unwrap().require(1e-8).unwrap();
            }
            for (x, v) in &samples {
                let (a, b) = (normal.apply(x, v).unwrap(), exact.apply(x, v).unwrap());
                assert!((a.0 - b.0).norm() < 1e-15 && (a.1 - b.1).norm() < 1e-15);
                for map in [&normal as &dyn DiscretizationMap<Point = Vector3<f64>, Tangent = Vector3<f64>>, &expo] {
                    let (q0, q1) = map.apply(x, v).unwrap();
                    let (xi, vi) = map.inverse(&q0, &q1).unwrap();
                    assert!((xi - x).norm() < 1e-13 && (vi - v).norm() < 1e-13, "{}: {xi} {vi}", map.name());
                }
                // the iteration agrees with the closed form
                let (q0, q1) = exact.apply(x, v).unwrap();
                let (xi, vi) = normal.inverse(&q0, &q1).unwrap();
                let (xe, ve) = exact.inverse(&q0, &q1).unwrap();
                assert!((xi - xe).norm() < 1e-13 && (vi - ve).norm() < 1e-13);
            }
        }
    }

    #[test]
    fn lie_retraction_map_inverse() {
        let g = So3.exp(&Vector3::new(0.3, -0.2, 1.0));
        for chart in [Chart::Exp, Chart::Cayley] {
            for theta in [0.0, 0.3, 0.5, 1.0] {
                let map = RetractionMap::new(LieGroupRetraction::<_, 3>::new(So3, chart), theta).unwrap();
                let xi = Vector3::new(0.4, 0.9, -0.5);
                let (g0, g1) = map.apply(&g, &xi).unwrap();
                let (gi, xii) = map.inverse(&g0, &g1).unwrap();
                assert!((gi - g).amax() < 1e-13 && (xii - xi).amax() < 1e-13, "{chart:?} {theta}");
            }
        }
    }
}
