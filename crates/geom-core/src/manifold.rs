//! Manifolds embedded in `R^N`, behind one object-safe trait, [`Manifold`].
//!
//! A point is an ambient vector `x ∈ R^N` and a tangent vector `v ∈ T_xM ⊂ R^N` is an ambient
//! vector too. Each manifold gives its distance to a point of `R^N`, the nearest-point
//! projection, and the orthogonal projection `P_x: R^N -> T_xM` (Euclidean metric of `R^N`).
//!
//! * [`Euclidean<N>`]: `M = R^N`, `P_x = I`.
//! * [`Sphere2`]: `S^2 = {x ∈ R^3 : |x| = 1}`, `P_x = I - x xᵀ` (docs/math.md §A.4), distance
//!   `||x| - 1|`, nearest point `x/|x|`.
//! * [`ProductManifold<A, B, NA, NB>`]: `A × B ⊂ R^NA × R^NB = R^N`, block-diagonal projections;
//!   `N = NA + NB` is checked at compile time.
//!
//! Every formula is generic over [`Scalar`] (f64 or a dual number), so projections can be
//! differentiated exactly. Distances and defects are measured on the real part. Points built by
//! the caller are trusted; [`Manifold::check_point`] and [`Manifold::check_tangent`] (and the checked
//! constructors such as [`Sphere2::point`]) validate user data against a stated tolerance,
//! by default [`MEMBERSHIP_TOLERANCE`] `= 1e-9`.

use crate::lie::MEMBERSHIP_TOLERANCE;
use crate::{GeomError, Result, Scalar};
use core::fmt;
use nalgebra::{SVector, Vector3};

/// `true` if every entry has a finite real part.
fn all_finite<S: Scalar, const N: usize>(x: &SVector<S, N>) -> bool {
    x.iter().all(|v| v.re().is_finite())
}

/// Euclidean norm of the real part.
fn real_norm<S: Scalar, const N: usize>(x: &SVector<S, N>) -> f64 {
    x.iter().map(|v| v.re() * v.re()).sum::<f64>().sqrt()
}

/// A submanifold `M ⊂ R^N` of intrinsic dimension [`dim`](Manifold::dim), scalar `S`.
///
/// Object-safe: `Box<dyn Manifold<f64, 3>>` holds [`Sphere2`]. Points and tangent vectors are
/// ambient vectors `SVector<S, N>`; the orthogonal projection is with respect to the Euclidean
/// metric of `R^N`.
pub trait Manifold<S: Scalar, const N: usize>: fmt::Debug + Send + Sync {
    /// Intrinsic dimension `dim M` (`2` for `S^2`, `N` for `R^N`).
    fn dim(&self) -> usize;
    /// Human-readable name, e.g. `"S^2"`.
    fn name(&self) -> String;
    /// Euclidean distance from `x ∈ R^N` to `M`, on the real part (e.g. `||x| - 1|` for `S^2`);
    /// `+inf` if an entry of `x` is not finite.
    fn distance(&self, x: &SVector<S, N>) -> f64;
    /// The nearest point of `M` to `x` (e.g. `x/|x|` on `S^2`); [`GeomError::NonFinite`] for a
    /// non-finite `x`, [`GeomError::OutsideDomain`] where the nearest point is not unique (the
    /// origin for `S^2`).
    fn project_point(&self, x: &SVector<S, N>) -> Result<SVector<S, N>>;
    /// The orthogonal projection `P_x v` of `v ∈ R^N` onto `T_xM` (e.g. `P_x = I - x xᵀ` on `S^2`,
    /// docs/math.md §A.4). `P_x` is idempotent and symmetric.
    fn project_tangent(&self, x: &SVector<S, N>, v: &SVector<S, N>) -> SVector<S, N>;

    /// How far `v` is from `T_xM`: `|v - P_x v|` on the real part; `+inf` if an entry of `x` or
    /// `v` is not finite.
    fn tangent_defect(&self, x: &SVector<S, N>, v: &SVector<S, N>) -> f64 {
        if !all_finite(x) || !all_finite(v) {
            return f64::INFINITY;
        }
        let d = real_norm(&(v - self.project_tangent(x, v)));
        if d.is_finite() { d } else { f64::INFINITY }
    }
    /// `Ok(())` if `x` is finite and [`distance`](Manifold::distance)`(x) <= tolerance`, else
    /// [`GeomError::NonFinite`] or [`GeomError::OffManifold`] (`what = "manifold point"`).
    fn check_point(&self, x: &SVector<S, N>, tolerance: f64) -> Result<()> {
        let defect = self.distance(x);
        if !all_finite(x) || !defect.is_finite() {
            Err(GeomError::NonFinite { what: "manifold point" })
        } else if defect > tolerance {
            Err(GeomError::OffManifold { what: "manifold point", defect, tolerance })
        } else {
            Ok(())
        }
    }
    /// `Ok(())` if `x` and `v` are finite and [`tangent_defect`](Manifold::tangent_defect)`(x, v)
    /// <= tolerance` (an absolute bound on `|v - P_x v|`), else [`GeomError::NonFinite`]
    /// (`what = "manifold point"` or `"tangent vector"`) or [`GeomError::OffManifold`]
    /// (`what = "tangent vector"`). Whether `x` lies on `M` is not checked here; use
    /// [`check_point`](Manifold::check_point).
    fn check_tangent(&self, x: &SVector<S, N>, v: &SVector<S, N>, tolerance: f64) -> Result<()> {
        if !all_finite(x) {
            return Err(GeomError::NonFinite { what: "manifold point" });
        }
        if !all_finite(v) {
            return Err(GeomError::NonFinite { what: "tangent vector" });
        }
        let defect = self.tangent_defect(x, v);
        if !defect.is_finite() {
            Err(GeomError::NonFinite { what: "tangent vector" })
        } else if defect > tolerance {
            Err(GeomError::OffManifold { what: "tangent vector", defect, tolerance })
        } else {
            Ok(())
        }
    }
}

/// The vector space `R^N` as a manifold: distance `0`, nearest point `x`, `P_x = I`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Euclidean<const N: usize>;

impl<const N: usize> Euclidean<N> {
    /// A checked point of `R^N`: [`GeomError::NonFinite`] if an entry is NaN or infinite.
    ///
    /// ```
    /// use geom_core::manifold::Euclidean;
    /// use nalgebra::Vector2;
    /// assert!(Euclidean::<2>::point(Vector2::new(1.0, -3.0)).is_ok());
    /// assert!(Euclidean::<2>::point(Vector2::new(f64::NAN, 0.0)).is_err());
    /// ```
    pub fn point(x: SVector<f64, N>) -> Result<SVector<f64, N>> {
        Manifold::<f64, N>::check_point(&Euclidean::<N>, &x, MEMBERSHIP_TOLERANCE)?;
        Ok(x)
    }
}

impl<S: Scalar, const N: usize> Manifold<S, N> for Euclidean<N> {
    fn dim(&self) -> usize {
        N
    }
    fn name(&self) -> String {
        format!("R^{N}")
    }
    fn distance(&self, x: &SVector<S, N>) -> f64 {
        if all_finite(x) { 0.0 } else { f64::INFINITY }
    }
    fn project_point(&self, x: &SVector<S, N>) -> Result<SVector<S, N>> {
        if all_finite(x) { Ok(*x) } else { Err(GeomError::NonFinite { what: "point of R^N" }) }
    }
    fn project_tangent(&self, _x: &SVector<S, N>, v: &SVector<S, N>) -> SVector<S, N> {
        *v
    }
}

/// The unit sphere `S^2 = {x ∈ R^3 : |x| = 1}` (docs/math.md §A.4).
///
/// * distance `||x| - 1|`, nearest point `x/|x|` (undefined at the origin);
/// * `T_xS^2 = x^⊥`, `P_x = I - x xᵀ/|x|^2`, which is `I - x xᵀ` on the sphere (docs/math.md §A.4)
///   and stays an orthogonal projection (onto `x^⊥`) for `x` slightly off it. At `x = 0` the
///   projection is not defined and returns non-finite entries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sphere2;

impl Sphere2 {
    /// A checked point of `S^2`: [`GeomError::NonFinite`] if an entry is not finite,
    /// [`GeomError::OffManifold`] if `||x| - 1| > MEMBERSHIP_TOLERANCE = 1e-9`. The vector is not
    /// normalised; use [`Manifold::project_point`] for that.
    ///
    /// ```
    /// use geom_core::manifold::Sphere2;
    /// use nalgebra::Vector3;
    /// assert!(Sphere2::point(Vector3::new(0.0, 0.6, 0.8)).is_ok());
    /// assert!(Sphere2::point(Vector3::new(0.0, 0.0, 2.0)).is_err());
    /// ```
    pub fn point(x: Vector3<f64>) -> Result<Vector3<f64>> {
        Manifold::<f64, 3>::check_point(&Sphere2, &x, MEMBERSHIP_TOLERANCE)?;
        Ok(x)
    }
    /// The point `x`, unchecked (for hot loops and trusted data; the caller guarantees `|x| = 1`).
    ///
    /// ```
    /// use geom_core::manifold::Sphere2;
    /// use nalgebra::Vector3;
    /// let x = Sphere2::point_unchecked(Vector3::z());
    /// assert_eq!(x, Vector3::z());
    /// ```
    pub fn point_unchecked(x: Vector3<f64>) -> Vector3<f64> {
        x
    }
    /// A checked tangent vector `v ∈ T_xS^2`: `x` must pass [`Sphere2::point`], `v` must be
    /// finite with `|v - P_x v| = |x·v| <= MEMBERSHIP_TOLERANCE = 1e-9` (absolute), else
    /// [`GeomError::NonFinite`] or [`GeomError::OffManifold`].
    ///
    /// ```
    /// use geom_core::manifold::Sphere2;
    /// use nalgebra::Vector3;
    /// assert!(Sphere2::tangent(Vector3::z(), Vector3::new(1.0, 2.0, 0.0)).is_ok());
    /// assert!(Sphere2::tangent(Vector3::z(), Vector3::new(0.0, 0.0, 1.0)).is_err());
    /// ```
    pub fn tangent(x: Vector3<f64>, v: Vector3<f64>) -> Result<Vector3<f64>> {
        Sphere2::point(x)?;
        Manifold::<f64, 3>::check_tangent(&Sphere2, &x, &v, MEMBERSHIP_TOLERANCE)?;
        Ok(v)
    }
}

impl<S: Scalar> Manifold<S, 3> for Sphere2 {
    fn dim(&self) -> usize {
        2
    }
    fn name(&self) -> String {
        "S^2".into()
    }
    fn distance(&self, x: &Vector3<S>) -> f64 {
        if !all_finite(x) {
            return f64::INFINITY;
        }
        (real_norm(x) - 1.0).abs()
    }
    fn project_point(&self, x: &Vector3<S>) -> Result<Vector3<S>> {
        if !all_finite(x) {
            return Err(GeomError::NonFinite { what: "point to project onto S^2" });
        }
        if real_norm(x) == 0.0 {
            return Err(GeomError::OutsideDomain {
                map: "projection onto S^2",
                reason: "the origin has no unique nearest point",
            });
        }
        Ok(x / x.norm())
    }
    fn project_tangent(&self, x: &Vector3<S>, v: &Vector3<S>) -> Vector3<S> {
        v - x * (x.dot(v) / x.norm_squared())
    }
}

/// The product `A × B ⊂ R^NA × R^NB = R^N` of two embedded manifolds; a point is the
/// concatenation `(x_A, x_B)`.
///
/// `dim = dim A + dim B`, distance `sqrt(d_A^2 + d_B^2)` (exact for the product of the two
/// Euclidean distances), nearest point and `P_x` blockwise. `N = NA + NB` is checked at compile
/// time, when a method is instantiated:
///
/// ```compile_fail
/// use geom_core::manifold::{Euclidean, Manifold, ProductManifold, Sphere2};
/// let m = ProductManifold::<_, _, 3, 3>::new(Sphere2, Euclidean::<3>);
/// let _ = Manifold::<f64, 5>::dim(&m); // 5 != 3 + 3: rejected by the compiler
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProductManifold<A, B, const NA: usize, const NB: usize> {
    first: A,
    second: B,
}

impl<A, B, const NA: usize, const NB: usize> ProductManifold<A, B, NA, NB> {
    /// The product `a × b`.
    ///
    /// ```
    /// use geom_core::manifold::{Euclidean, Manifold, ProductManifold, Sphere2};
    /// use nalgebra::Vector6;
    /// let m = ProductManifold::<_, _, 3, 3>::new(Sphere2, Euclidean::<3>);
    /// let x = Vector6::new(0.0, 0.0, 1.0, 5.0, 6.0, 7.0);
    /// assert_eq!(Manifold::<f64, 6>::dim(&m), 5);
    /// assert!(m.check_point(&x, 1e-12).is_ok());
    /// ```
    pub fn new(first: A, second: B) -> Self {
        Self { first, second }
    }
    /// The first factor `A`.
    pub fn first(&self) -> &A {
        &self.first
    }
    /// The second factor `B`.
    pub fn second(&self) -> &B {
        &self.second
    }
    /// Split `x ∈ R^N` into `(x_A, x_B) ∈ R^NA × R^NB` (compile-time check `N = NA + NB`).
    pub fn split<S: Scalar, const N: usize>(x: &SVector<S, N>) -> (SVector<S, NA>, SVector<S, NB>) {
        const { assert!(N == NA + NB, "ProductManifold: N must equal NA + NB") };
        (SVector::from_fn(|i, _| x[i]), SVector::from_fn(|i, _| x[NA + i]))
    }
    /// Concatenate `(x_A, x_B)` into `x ∈ R^N` (compile-time check `N = NA + NB`).
    pub fn join<S: Scalar, const N: usize>(a: &SVector<S, NA>, b: &SVector<S, NB>) -> SVector<S, N> {
        const { assert!(N == NA + NB, "ProductManifold: N must equal NA + NB") };
        SVector::from_fn(|i, _| if i < NA { a[i] } else { b[i - NA] })
    }
}

impl<S, A, B, const NA: usize, const NB: usize, const N: usize> Manifold<S, N> for ProductManifold<A, B, NA, NB>
where
    S: Scalar,
    A: Manifold<S, NA>,
    B: Manifold<S, NB>,
{
    fn dim(&self) -> usize {
        const { assert!(N == NA + NB, "ProductManifold: N must equal NA + NB") };
        self.first.dim() + self.second.dim()
    }
    fn name(&self) -> String {
        const { assert!(N == NA + NB, "ProductManifold: N must equal NA + NB") };
        format!("{} × {}", self.first.name(), self.second.name())
    }
    fn distance(&self, x: &SVector<S, N>) -> f64 {
        let (a, b) = Self::split(x);
        let (da, db) = (self.first.distance(&a), self.second.distance(&b));
        if da.is_finite() && db.is_finite() { da.hypot(db) } else { f64::INFINITY }
    }
    fn project_point(&self, x: &SVector<S, N>) -> Result<SVector<S, N>> {
        let (a, b) = Self::split(x);
        Ok(Self::join(&self.first.project_point(&a)?, &self.second.project_point(&b)?))
    }
    fn project_tangent(&self, x: &SVector<S, N>, v: &SVector<S, N>) -> SVector<S, N> {
        let (xa, xb) = Self::split(x);
        let (va, vb) = Self::split(v);
        Self::join(&self.first.project_tangent(&xa, &va), &self.second.project_tangent(&xb, &vb))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;
    use nalgebra::{Matrix3, SMatrix, Vector6};
    use num_dual::Dual64;

    type S2xR3 = ProductManifold<Sphere2, Euclidean<3>, 3, 3>;

    /// The matrix of `v ↦ P_x v` at `f64`, column by column.
    fn projection_matrix<M: Manifold<f64, N>, const N: usize>(m: &M, x: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        let mut p = SMatrix::<f64, N, N>::zeros();
        for j in 0..N {
            let e = SVector::<f64, N>::from_fn(|i, _| if i == j { 1.0 } else { 0.0 });
            p.set_column(j, &m.project_tangent(x, &e));
        }
        p
    }

    fn unit(v: Vector3<f64>) -> Vector3<f64> {
        v / v.norm()
    }

    #[test]
    fn sphere_projection_is_idempotent_symmetric_and_kills_x() {
        let x = unit(Vector3::new(0.3, -1.2, 0.7));
        let p = projection_matrix(&Sphere2, &x);
        // P_x = I - x xᵀ on the sphere (docs/math.md §A.4).
        assert_relative_eq!(p, Matrix3::identity() - x * x.transpose(), epsilon = 1e-15);
        assert_relative_eq!(p * p, p, epsilon = 1e-15);
        assert_relative_eq!(p, p.transpose(), epsilon = 1e-15);
        assert!((p * x).norm() < 1e-15);
        let v = Vector3::new(1.0, 2.0, -0.5);
        let pv = Manifold::<f64, 3>::project_tangent(&Sphere2, &x, &v);
        assert!(x.dot(&pv).abs() < 1e-15);
        assert!(Manifold::<f64, 3>::tangent_defect(&Sphere2, &x, &pv) < 1e-15);
        assert_relative_eq!(Manifold::<f64, 3>::tangent_defect(&Sphere2, &x, &v), x.dot(&v).abs(), epsilon = 1e-14);
        // Off the sphere the projection still maps onto x^⊥ and is idempotent.
        let y = x * 1.5;
        let q = projection_matrix(&Sphere2, &y);
        assert_relative_eq!(q * q, q, epsilon = 1e-15);
        assert!((q * y).norm() < 1e-15);
    }

    #[test]
    fn sphere_distance_and_nearest_point() {
        let s = Sphere2;
        let x = Vector3::new(0.0, 3.0, 4.0);
        assert_relative_eq!(Manifold::<f64, 3>::distance(&s, &x), 4.0);
        let n = s.project_point(&x).unwrap();
        assert_relative_eq!(n, Vector3::new(0.0, 0.6, 0.8), epsilon = 1e-15);
        assert!(Manifold::<f64, 3>::distance(&s, &n) < 1e-15);
        assert_eq!(Manifold::<f64, 3>::distance(&s, &Vector3::new(f64::NAN, 0.0, 0.0)), f64::INFINITY);
        assert_eq!(Manifold::<f64, 3>::dim(&s), 2);
        assert_eq!(Manifold::<f64, 3>::name(&s), "S^2");
    }

    #[test]
    fn sphere_project_point_errors() {
        let s = Sphere2;
        assert!(matches!(
            s.project_point(&Vector3::<f64>::zeros()),
            Err(GeomError::OutsideDomain { map: "projection onto S^2", .. })
        ));
        assert!(matches!(s.project_point(&Vector3::new(1.0, f64::INFINITY, 0.0)), Err(GeomError::NonFinite { .. })));
        // At the origin the tangent projection is undefined and reported by non-finite entries.
        let p = Manifold::<f64, 3>::project_tangent(&s, &Vector3::zeros(), &Vector3::x());
        assert!(p.iter().any(|v| !v.is_finite()));
    }

    #[test]
    fn sphere_check_point_errors() {
        let off = Sphere2::point(Vector3::new(0.0, 0.0, 1.0 + 1e-6));
        match off {
            Err(GeomError::OffManifold { what, defect, tolerance }) => {
                assert_eq!(what, "manifold point");
                assert_relative_eq!(defect, 1e-6, max_relative = 1e-6);
                assert_eq!(tolerance, MEMBERSHIP_TOLERANCE);
            }
            other => panic!("expected OffManifold, got {other:?}"),
        }
        assert_eq!(
            Sphere2::point(Vector3::new(f64::NAN, 0.0, 1.0)),
            Err(GeomError::NonFinite { what: "manifold point" })
        );
        // Inside the tolerance is accepted.
        assert!(Sphere2::point(Vector3::new(0.0, 0.0, 1.0 + 1e-12)).is_ok());
        assert_eq!(Sphere2::point_unchecked(Vector3::new(0.0, 0.0, 2.0)), Vector3::new(0.0, 0.0, 2.0));
    }

    #[test]
    fn sphere_check_tangent_errors() {
        let x = Vector3::z();
        assert!(Sphere2::tangent(x, Vector3::new(1.0, -1.0, 0.0)).is_ok());
        assert!(matches!(
            Sphere2::tangent(x, Vector3::new(1.0, 0.0, 1e-6)),
            Err(GeomError::OffManifold { what: "tangent vector", .. })
        ));
        assert_eq!(
            Sphere2::tangent(x, Vector3::new(f64::NAN, 0.0, 0.0)),
            Err(GeomError::NonFinite { what: "tangent vector" })
        );
        assert_eq!(
            Manifold::<f64, 3>::check_tangent(&Sphere2, &Vector3::new(f64::NAN, 0.0, 1.0), &Vector3::x(), 1e-9),
            Err(GeomError::NonFinite { what: "manifold point" })
        );
        // The base point is checked by the constructor.
        assert!(matches!(Sphere2::tangent(x * 2.0, Vector3::x()), Err(GeomError::OffManifold { .. })));
        assert_eq!(
            Manifold::<f64, 3>::tangent_defect(&Sphere2, &x, &Vector3::new(f64::INFINITY, 0.0, 0.0)),
            f64::INFINITY
        );
    }

    #[test]
    fn euclidean_is_trivial() {
        let e = Euclidean::<4>;
        let x = SVector::<f64, 4>::new(1.0, -2.0, 3.0, 0.5);
        let v = SVector::<f64, 4>::new(0.1, 0.2, 0.3, 0.4);
        assert_eq!(Manifold::<f64, 4>::dim(&e), 4);
        assert_eq!(Manifold::<f64, 4>::name(&e), "R^4");
        assert_eq!(e.distance(&x), 0.0);
        assert_eq!(e.project_point(&x).unwrap(), x);
        assert_eq!(e.project_tangent(&x, &v), v);
        assert_eq!(e.tangent_defect(&x, &v), 0.0);
        assert!(e.check_point(&x, 0.0).is_ok());
        let bad = SVector::<f64, 4>::new(1.0, f64::NAN, 0.0, 0.0);
        assert_eq!(e.distance(&bad), f64::INFINITY);
        assert_eq!(Euclidean::<4>::point(bad), Err(GeomError::NonFinite { what: "manifold point" }));
        assert_eq!(e.project_point(&bad), Err(GeomError::NonFinite { what: "point of R^N" }));
        assert_eq!(Euclidean::<4>::point(x), Ok(x));
    }

    #[test]
    fn product_manifold_blockwise() {
        let m = S2xR3::new(Sphere2, Euclidean::<3>);
        assert_eq!(Manifold::<f64, 6>::dim(&m), 5);
        assert_eq!(Manifold::<f64, 6>::name(&m), "S^2 × R^3");
        assert_eq!(m.first(), &Sphere2);
        assert_eq!(m.second(), &Euclidean::<3>);
        let x = Vector6::new(0.0, 3.0, 4.0, 1.0, 2.0, 3.0);
        assert_relative_eq!(m.distance(&x), 4.0);
        let px = m.project_point(&x).unwrap();
        assert_relative_eq!(px, Vector6::new(0.0, 0.6, 0.8, 1.0, 2.0, 3.0), epsilon = 1e-15);
        assert!(m.check_point(&px, MEMBERSHIP_TOLERANCE).is_ok());
        let p = projection_matrix(&m, &px);
        assert_relative_eq!(p * p, p, epsilon = 1e-15);
        assert_relative_eq!(p, p.transpose(), epsilon = 1e-15);
        // The normal direction of the sphere factor is killed; the R^3 block is the identity.
        let normal = Vector6::new(0.0, 0.6, 0.8, 0.0, 0.0, 0.0);
        assert!((p * normal).norm() < 1e-15);
        assert_relative_eq!(p.fixed_view::<3, 3>(3, 3).into_owned(), Matrix3::identity());
        assert_relative_eq!(p.fixed_view::<3, 3>(0, 3).into_owned(), Matrix3::zeros());
        // Errors of a factor propagate.
        assert!(matches!(m.check_point(&x, 1e-9), Err(GeomError::OffManifold { what: "manifold point", .. })));
        let nan = Vector6::new(0.0, 0.0, 1.0, f64::NAN, 0.0, 0.0);
        assert_eq!(m.check_point(&nan, 1e-9), Err(GeomError::NonFinite { what: "manifold point" }));
        assert_eq!(m.distance(&nan), f64::INFINITY);
        assert!(matches!(m.project_point(&Vector6::<f64>::zeros()), Err(GeomError::OutsideDomain { .. })));
        assert!(matches!(m.check_tangent(&px, &normal, 1e-9), Err(GeomError::OffManifold { .. })));
        let (a, b) = S2xR3::split(&x);
        assert_eq!(S2xR3::join::<f64, 6>(&a, &b), x);
    }

    #[test]
    fn manifolds_are_object_safe() {
        let ms: Vec<Box<dyn Manifold<f64, 3>>> = vec![Box::new(Sphere2), Box::new(Euclidean::<3>)];
        let x = Vector3::new(0.0, 0.0, 1.0);
        for m in &ms {
            assert!(m.check_point(&x, 1e-12).is_ok(), "{}", m.name());
        }
    }

    #[test]
    fn sphere_projection_derivative_with_dual_numbers() {
        // d/dt P_{x + t w} v at t = 0 against central differences.
        let x = unit(Vector3::new(0.2, 0.4, -0.9));
        let w = Vector3::new(0.3, -0.1, 0.2);
        let v = Vector3::new(-0.7, 0.5, 0.1);
        let eps = Dual64::from_re(0.0).derivative();
        let xd = x.map(Dual64::from_re) + w.map(Dual64::from_re) * eps;
        let pd = Manifold::<Dual64, 3>::project_tangent(&Sphere2, &xd, &v.map(Dual64::from_re));
        let h = 1e-6;
        let fd = (Manifold::<f64, 3>::project_tangent(&Sphere2, &(x + w * h), &v)
            - Manifold::<f64, 3>::project_tangent(&Sphere2, &(x - w * h), &v))
            / (2.0 * h);
        assert_relative_eq!(pd.map(|d| d.eps), fd, epsilon = 1e-8);
        assert_relative_eq!(pd.map(|d| d.re), Manifold::<f64, 3>::project_tangent(&Sphere2, &x, &v));
    }
}
