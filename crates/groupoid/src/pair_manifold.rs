//! Pair groupoids `Q × Q ⇉ Q` of curved configuration spaces (docs/math.md §C.1, C.2 first row):
//! a Lie group `Q = G` ([`PairOfGroup`]) and the sphere `Q = S²` ([`SpherePair`]).
//!
//! Both have the pair-groupoid structure `α(x, y) = x`, `β(x, y) = y`, `ε(x) = (x, x)`,
//! `i(x, y) = (y, x)`, `(x, y)(y, z) = (x, z)`, algebroid `TQ` with anchor the identity, and
//! `X^←(x, y) = (0_x, X(y))`, `X^→(x, y) = (−X(x), 0_y)`. They differ in the fibre chart
//! `exp_x: R^R ≅ T_xQ → α^{-1}(x) = {x} × Q`:
//!
//! * Lie group: `exp_g(ξ) = (g, g τ(ξ))` with `τ` any [`GroupChart`] (the shipped `exp` or
//!   Cayley of [`Chart`], or a user's chart), i.e. `T_gG` in
//!   left-trivialized coordinates `v = g ξ` (docs/math.md §0), so `X^←(g_0, g_1) = (0, g_1ξ)`
//!   and `X^→(g_0, g_1) = (−g_0ξ, 0)`; `fibre_log(g_0, g_1) = τ^{-1}(g_0^{-1} g_1)`.
//! * Sphere: `exp_x(ξ) = (x, N(x + E(x) ξ))` with the normalisation retraction `N(y) = y/|y|`
//!   (docs/math.md §A.4) and an orthonormal tangent frame `E(x) = [e_1(x) e_2(x)]` of `T_xS²`
//!   ([`SpherePair::frame`]); `fibre_log(x, y) = E(x)ᵀ (y/(x·y) − x)` for `x·y > 0`.
//!
//! A `G`-invariant discrete Lagrangian on `G × G` reduces to `G` through
//! `(g_0, g_1) ↦ g_0^{-1} g_1` ([`crate::morphism::LeftTrivialization`]; discrete
//! Euler–Poincaré), and `PairOfGroup<Product<Rn<M>, G, M, D>>` (e.g. `Q = R² × SO(3)`, the
//! plate-ball configuration space of docs/math.md §C.6.3) reduces to the trivialized Atiyah
//! groupoid ([`crate::morphism::AtiyahQuotient`]).

use crate::groupoid::{COMPOSABILITY_TOLERANCE, LieGroupoid};
use crate::lagrangian::{GroupoidFamily, GroupoidLift};
use geom_core::lie::{Chart, GroupChart, LieGroup, LieGroupFamily, MEMBERSHIP_TOLERANCE};
use geom_core::manifold::{Manifold, Sphere2};
use geom_core::{GeomError, Result, Scalar};
use nalgebra::{SVector, Vector2, Vector3};

/// `τ(ξ)` of any [`GroupChart`], or an element of NaNs where the chart fails (a Cayley map that is
/// not defined; never on SO(3)/SE(3)), so that infallible fibre charts report the failure
/// downstream as a non-finite value (Newton then returns [`GeomError::NonFinite`]).
pub(crate) fn tau_or_nan<S: Scalar, const D: usize, G: LieGroup<S, D>, C: GroupChart<S, G, D>>(
    group: &G,
    chart: &C,
    xi: &SVector<S, D>,
) -> G::Element {
    match chart.tau(group, xi) {
        Ok(g) => g,
        Err(_) => group.exp(&xi.map(|_| S::from(f64::NAN))),
    }
}

/// The distance used by the composability checks on a Lie group: `|log(a^{-1} b)|` (real parts); `+∞` for non-finite elements and `f64::MAX` where the
/// logarithm is not defined (the elements are then far apart).
pub(crate) fn group_distance<S: Scalar, const D: usize, G: LieGroup<S, D>>(
    group: &G,
    a: &G::Element,
    b: &G::Element,
) -> f64 {
    if !(group.defect(a).is_finite() && group.defect(b).is_finite()) {
        return f64::INFINITY;
    }
    match group.log(&group.compose(&group.inverse(a), b)) {
        Ok(v) => v.map(|c| c.re()).norm(),
        Err(_) => f64::MAX,
    }
}

// ---------------------------------------------------------------------------------------------

/// The pair groupoid `G × G ⇉ G` of a Lie group `G` (any `geom-core` group, including products
/// such as `R² × SO(3)` = `Product<Rn<2>, So3, 2, 3>`), with the left-trivialized fibre chart
/// `exp_g(ξ) = (g, g τ(ξ))` and `fibre_log(g_0, g_1) = τ^{-1}(g_0^{-1} g_1)` (module
/// documentation). Elements are pairs `(g_0, g_1)`.
///
/// The chart `C` is any [`GroupChart`] of `G`: the shipped [`Chart`] (the default type) or a
/// user's chart written once over the scalar, which reaches the Legendre transforms and the DEL
/// flow with no wrapper (the every-scalar interfaces — [`EveryScalarGroupoid`](crate::EveryScalarGroupoid),
/// the algebroid — take it once it is an [`EveryScalarChart`](geom_core::lie::EveryScalarChart),
/// `geom_core::every_scalar_chart!`).
///
/// Its discrete Euler–Lagrange equations are the standard variational integrator on `G`,
/// `l*_{g_k}(D_2 L(g_{k−1}, g_k)) + l*_{g_k}(D_1 L(g_k, g_{k+1})) = 0` in left-trivialized form
/// (docs/math.md §C.3, pair groupoid), with `F^-L(g_0, g_1) = −g_0^{-1} D_1L` and
/// `F^+L(g_0, g_1) = g_1^{-1} D_2L` (left-trivialized covectors, docs/math.md §0).
///
/// ```
/// use geom_core::lie::{Chart, So3};
/// use groupoid::{LieGroupoid, PairOfGroup};
/// use nalgebra::{Matrix3, Vector3};
/// let pg = PairOfGroup::new(So3, Chart::Exp);
/// let r = geom_core::lie::so3::exp(&Vector3::new(0.1, 0.2, 0.3));
/// let g = LieGroupoid::<f64, 3>::fibre_exp(&pg, &Matrix3::identity(), &Vector3::new(0.1, 0.2, 0.3));
/// assert!((g.1 - r).norm() < 1e-15);
/// let back = LieGroupoid::<f64, 3>::fibre_log(&pg, &g)?;
/// assert!((back - Vector3::new(0.1, 0.2, 0.3)).norm() < 1e-14);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairOfGroup<G, C = Chart> {
    group: G,
    chart: C,
}

impl<G, C> PairOfGroup<G, C> {
    /// `G × G ⇉ G` with fibre chart `(g, g τ(ξ))`, `τ = chart` (a shipped [`Chart`] or any
    /// [`GroupChart`] of `G`). Infallible: the chart is not checked here (see
    /// [`geom_core::lie::check_chart`]).
    pub fn new(group: G, chart: C) -> Self {
        Self { group, chart }
    }
    /// The group `G`.
    pub fn group(&self) -> &G {
        &self.group
    }
    /// The chart `τ` (a copy: every [`GroupChart`] is `Copy`).
    pub fn chart(&self) -> C
    where
        C: Copy,
    {
        self.chart
    }
    /// A checked element `(g_0, g_1)`: both within `tolerance` of `G`
    /// ([`LieGroup::check_element`]), else [`GeomError::NonFinite`] / [`GeomError::OffManifold`].
    pub fn element<const D: usize>(
        &self,
        g0: G::Element,
        g1: G::Element,
        tolerance: f64,
    ) -> Result<(G::Element, G::Element)>
    where
        G: LieGroup<f64, D>,
    {
        self.group.check_element(&g0, tolerance)?;
        self.group.check_element(&g1, tolerance)?;
        Ok((g0, g1))
    }
}

impl<S: Scalar, const D: usize, G: LieGroup<S, D>, C: GroupChart<S, G, D>> LieGroupoid<S, D> for PairOfGroup<G, C> {
    type Element = (G::Element, G::Element);
    type Base = G::Element;

    fn name(&self) -> String {
        let g = self.group.name();
        format!("pair groupoid {g} x {g} ({})", self.chart.name())
    }
    fn source(&self, g: &Self::Element) -> G::Element {
        g.0.clone()
    }
    fn target(&self, g: &Self::Element) -> G::Element {
        g.1.clone()
    }
    fn identity(&self, x: &G::Element) -> Self::Element {
        (x.clone(), x.clone())
    }
    fn inverse(&self, g: &Self::Element) -> Self::Element {
        (g.1.clone(), g.0.clone())
    }
    fn multiply(&self, g: &Self::Element, h: &Self::Element) -> Self::Element {
        (g.0.clone(), h.1.clone())
    }
    /// `|log(a^{-1} b)|` on the real parts (`+∞` for non-finite elements).
    fn base_distance(&self, a: &G::Element, b: &G::Element) -> f64 {
        group_distance(&self.group, a, b)
    }
    /// `(g, g τ(ξ))` (an element of NaNs where `τ` fails).
    fn fibre_exp(&self, x: &G::Element, xi: &SVector<S, D>) -> Self::Element {
        (x.clone(), self.group.compose(x, &tau_or_nan(&self.group, &self.chart, xi)))
    }
    /// `τ^{-1}(g_0^{-1} g_1)`.
    fn fibre_log(&self, g: &Self::Element) -> Result<SVector<S, D>> {
        self.chart.tau_inv(&self.group, &self.group.compose(&self.group.inverse(&g.0), &g.1))
    }
    /// `(g_0, g_1 τ(ξ))`.
    fn left_curve(&self, g: &Self::Element, xi: &SVector<S, D>) -> Self::Element {
        (g.0.clone(), self.group.compose(&g.1, &tau_or_nan(&self.group, &self.chart, xi)))
    }
    /// `(g_0 τ(−ξ), g_1)`.
    fn right_curve(&self, g: &Self::Element, xi: &SVector<S, D>) -> Self::Element {
        (self.group.compose(&g.0, &tau_or_nan(&self.group, &self.chart, &(-xi))), g.1.clone())
    }
}

/// The pair groupoid of any group ([`LieGroupFamily`] names its elements at every scalar).
impl<G: LieGroupFamily<D>, C: GroupChart<f64, G, D>, const D: usize> GroupoidFamily<D> for PairOfGroup<G, C> {
    type Element<S: Scalar> = (G::ElementAt<S>, G::ElementAt<S>);
    type Base<S: Scalar> = G::ElementAt<S>;
    /// The conditioning `κ(x)` of the base point ([`LieGroupFamily::condition`]): an arrow
    /// `(x, x τ(ξ))` stores both elements, and `x^{-1} (x τ(ξ))` recovers `τ(ξ)` only to
    /// `ε κ(x)`.
    fn roundoff_scale(&self, x: &G::ElementAt<f64>) -> f64 {
        self.group.condition(x)
    }
}

impl<S: Scalar, G, C, const D: usize> GroupoidLift<S, D> for PairOfGroup<G, C>
where
    G: LieGroupFamily<D> + LieGroup<f64, D, Element = G::ElementAt<f64>> + LieGroup<S, D, Element = G::ElementAt<S>>,
    C: GroupChart<f64, G, D> + GroupChart<S, G, D>,
{
    fn lift(&self, g: &(G::ElementAt<f64>, G::ElementAt<f64>)) -> (G::ElementAt<S>, G::ElementAt<S>) {
        (self.group.lift_at(&g.0), self.group.lift_at(&g.1))
    }
    fn lift_base(&self, x: &G::ElementAt<f64>) -> G::ElementAt<S> {
        self.group.lift_at(x)
    }
}

// ---------------------------------------------------------------------------------------------

/// The pair groupoid `S² × S² ⇉ S²` of the unit sphere, algebroid `TS²` (rank 2), with the fibre
/// chart of the normalisation retraction (docs/math.md §A.4):
/// `exp_x(ξ) = (x, N(x + E(x) ξ))`, `N(y) = y/|y|`, `E(x)` the tangent frame [`SpherePair::frame`];
/// `T_0 exp_x = (0, P_x E(x)) = (0, E(x))`. Inverse: `fibre_log(x, y) = E(x)ᵀ(y/(x·y) − x)`,
/// defined for `x·y > 0` (else [`GeomError::OutsideDomain`]).
///
/// Base points are unit vectors: [`SpherePair::element`] checks them, and
/// [`LieGroupoid::compose`] also checks that the four points of a composable pair are on `S²`
/// within [`MEMBERSHIP_TOLERANCE`] before checking `β(g) = α(h)`.
///
/// ```
/// use groupoid::{LieGroupoid, SpherePair};
/// use nalgebra::{Vector2, Vector3};
/// let x = Vector3::z();
/// let g = LieGroupoid::<f64, 2>::fibre_exp(&SpherePair, &x, &Vector2::new(0.3, -0.1));
/// assert!((g.1.norm() - 1.0).abs() < 1e-15);
/// let xi = LieGroupoid::<f64, 2>::fibre_log(&SpherePair, &g)?;
/// assert!((xi - Vector2::new(0.3, -0.1)).norm() < 1e-15);
/// assert!(SpherePair::element(x, Vector3::new(0.0, 0.0, 2.0)).is_err());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpherePair;

impl SpherePair {
    /// A checked element `(x, y)`: both on `S²` within `MEMBERSHIP_TOLERANCE = 1e-9`
    /// ([`Sphere2::point`]).
    pub fn element(x: Vector3<f64>, y: Vector3<f64>) -> Result<(Vector3<f64>, Vector3<f64>)> {
        Ok((Sphere2::point(x)?, Sphere2::point(y)?))
    }

    /// The orthonormal tangent frame `E(x) = [e_1, e_2]` of `T_xS²` that fixes the basis of
    /// sections: with `a` the coordinate axis of the smallest `|x_i|` (lowest index on ties, chosen
    /// on the real parts), `e_1 = a × x / |a × x|`, `e_2 = x × e_1 / |x|`. Both are orthogonal to
    /// `x` (also slightly off the sphere), and `(e_1, e_2, x/|x|)` is a right-handed orthonormal
    /// basis. (There is no continuous global frame on `S²`; the DEL only use the frame at the
    /// shared node, so a frame that jumps between regions is harmless.)
    pub fn frame<S: Scalar>(x: &Vector3<S>) -> (Vector3<S>, Vector3<S>) {
        let mut a = Vector3::<S>::zeros();
        a[Self::frame_axis(x)] = S::from(1.0);
        let e1 = a.cross(x);
        let e1 = e1 / e1.norm();
        let e2 = x.cross(&e1) / x.norm();
        (e1, e2)
    }

    /// The index `k` of the axis `a = e_k` of [`SpherePair::frame`] at `x`: the smallest `|x_k|`,
    /// lowest index on ties, chosen on the real parts.
    pub(crate) fn frame_axis<S: Scalar>(x: &Vector3<S>) -> usize {
        let mut k = 0;
        for i in 1..3 {
            if x[i].re().abs() < x[k].re().abs() {
                k = i;
            }
        }
        k
    }

    /// The ambient tangent vector `E(x) ξ = ξ_1 e_1 + ξ_2 e_2`.
    pub fn tangent<S: Scalar>(x: &Vector3<S>, xi: &Vector2<S>) -> Vector3<S> {
        let (e1, e2) = Self::frame(x);
        e1 * xi[0] + e2 * xi[1]
    }

    /// `N(x + v) = (x + v)/|x + v|` ([`Manifold::project_point`] of [`Sphere2`]); NaNs where it
    /// is undefined (`x + v = 0` or non-finite).
    fn retract<S: Scalar>(x: &Vector3<S>, v: &Vector3<S>) -> Vector3<S> {
        Manifold::<S, 3>::project_point(&Sphere2, &(x + v)).unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)))
    }
}

impl<S: Scalar> LieGroupoid<S, 2> for SpherePair {
    type Element = (Vector3<S>, Vector3<S>);
    type Base = Vector3<S>;

    fn name(&self) -> String {
        "pair groupoid S^2 x S^2".into()
    }
    fn source(&self, g: &Self::Element) -> Vector3<S> {
        g.0
    }
    fn target(&self, g: &Self::Element) -> Vector3<S> {
        g.1
    }
    fn identity(&self, x: &Vector3<S>) -> Self::Element {
        (*x, *x)
    }
    fn inverse(&self, g: &Self::Element) -> Self::Element {
        (g.1, g.0)
    }
    fn multiply(&self, g: &Self::Element, h: &Self::Element) -> Self::Element {
        (g.0, h.1)
    }
    /// Euclidean distance of the real parts.
    fn base_distance(&self, a: &Vector3<S>, b: &Vector3<S>) -> f64 {
        (a - b).map(|v| v.re()).norm()
    }
    /// `(x, N(x + E(x) ξ))`.
    fn fibre_exp(&self, x: &Vector3<S>, xi: &Vector2<S>) -> Self::Element {
        (*x, Self::retract(x, &Self::tangent(x, xi)))
    }
    /// `E(x)ᵀ (y/(x·y) − x)`; [`GeomError::OutsideDomain`] unless `x·y > 0`.
    fn fibre_log(&self, g: &Self::Element) -> Result<Vector2<S>> {
        let (x, y) = g;
        let c = x.dot(y);
        if c.re().is_nan() || c.re() <= 0.0 {
            return Err(GeomError::OutsideDomain {
                map: "fibre chart of the sphere pair groupoid",
                reason: "x·y <= 0 (y is not in the image of the normalisation retraction at x)",
            });
        }
        let v = y * (x.norm_squared() / c) - x;
        let (e1, e2) = Self::frame(x);
        Ok(Vector2::new(e1.dot(&v), e2.dot(&v)))
    }
    /// Checks that `g` and `h` have their points on `S²` (within `1e-9`), then `β(g) = α(h)`.
    fn compose(&self, g: &Self::Element, h: &Self::Element) -> Result<Self::Element> {
        for p in [&g.0, &g.1, &h.0, &h.1] {
            Manifold::<S, 3>::check_point(&Sphere2, p, MEMBERSHIP_TOLERANCE)?;
        }
        let defect = LieGroupoid::<S, 2>::base_distance(self, &g.1, &h.0);
        if defect > COMPOSABILITY_TOLERANCE {
            return Err(GeomError::OffManifold {
                what: "composable pair (target of g != source of h)",
                defect,
                tolerance: COMPOSABILITY_TOLERANCE,
            });
        }
        Ok(LieGroupoid::<S, 2>::multiply(self, g, h))
    }
    /// `(x, N(y + E(y) ξ))`.
    fn left_curve(&self, g: &Self::Element, xi: &Vector2<S>) -> Self::Element {
        (g.0, Self::retract(&g.1, &Self::tangent(&g.1, xi)))
    }
    /// `(N(x − E(x) ξ), y)`.
    fn right_curve(&self, g: &Self::Element, xi: &Vector2<S>) -> Self::Element {
        (Self::retract(&g.0, &Self::tangent(&g.0, &(-xi))), g.1)
    }
}

impl GroupoidFamily<2> for SpherePair {
    type Element<S: Scalar> = (Vector3<S>, Vector3<S>);
    type Base<S: Scalar> = Vector3<S>;
}

impl<S: Scalar> GroupoidLift<S, 2> for SpherePair {
    fn lift(&self, g: &(Vector3<f64>, Vector3<f64>)) -> (Vector3<S>, Vector3<S>) {
        (g.0.map(S::from), g.1.map(S::from))
    }
    fn lift_base(&self, x: &Vector3<f64>) -> Vector3<S> {
        x.map(S::from)
    }
}

/// Groupoid-axiom checks shared by the unit tests of the instances.
#[cfg(test)]
pub(crate) mod axiom_checks {
    use crate::groupoid::LieGroupoid;
    use nalgebra::SVector;

    /// The largest defect of the groupoid axioms (docs/math.md §C.1) on the composable triple
    /// `(g, h, k)` and the fibre chart at `α(g)` along `xi`, with `dist` a distance of elements and
    /// `bdist` of base points. Also asserts that `compose(h, g)` is refused when `(h, g)` is not
    /// composable (`swapped_refused`).
    pub(crate) fn max_defect<Gd: LieGroupoid<f64, R>, const R: usize>(
        gd: &Gd,
        g: &Gd::Element,
        h: &Gd::Element,
        k: &Gd::Element,
        xi: &SVector<f64, R>,
        dist: impl Fn(&Gd::Element, &Gd::Element) -> f64,
    ) -> f64 {
        let bd = |a: &Gd::Base, b: &Gd::Base| gd.base_distance(a, b);
        let x = gd.source(g);
        let mut d: f64 = 0.0;
        let e = gd.identity(&x);
        d = d.max(bd(&gd.source(&e), &x)).max(bd(&gd.target(&e), &x));
        // identities
        d = d.max(dist(&gd.compose(&gd.identity(&gd.source(g)), g).unwrap(), g));
        d = d.max(dist(&gd.compose(g, &gd.identity(&gd.target(g))).unwrap(), g));
        // inverses
        let gi = gd.inverse(g);
        d = d.max(bd(&gd.source(&gi), &gd.target(g))).max(bd(&gd.target(&gi), &gd.source(g)));
        d = d.max(dist(&gd.compose(g, &gi).unwrap(), &gd.identity(&gd.source(g))));
        d = d.max(dist(&gd.compose(&gi, g).unwrap(), &gd.identity(&gd.target(g))));
        d = d.max(dist(&gd.inverse(&gi), g));
        // products: source/target and associativity
        let gh = gd.compose(g, h).unwrap();
        d = d.max(bd(&gd.source(&gh), &gd.source(g))).max(bd(&gd.target(&gh), &gd.target(h)));
        let left = gd.compose(&gh, k).unwrap();
        let right = gd.compose(g, &gd.compose(h, k).unwrap()).unwrap();
        d = d.max(dist(&left, &right));
        // fibre chart
        d = d.max(dist(&gd.fibre_exp(&x, &SVector::zeros()), &gd.identity(&x)));
        let f = gd.fibre_exp(&x, xi);
        d = d.max(bd(&gd.source(&f), &x));
        d = d.max((gd.fibre_log(&f).unwrap() - xi).norm());
        d = d.max(dist(&gd.fibre_exp(&gd.source(g), &gd.fibre_log(g).unwrap()), g));
        // invariant curves stay in the α- and β-fibres
        d = d.max(bd(&gd.source(&gd.left_curve(g, xi)), &gd.source(g)));
        d = d.max(bd(&gd.target(&gd.right_curve(g, xi)), &gd.target(g)));
        d = d.max(dist(&gd.left_curve(g, &SVector::zeros()), g));
        d = d.max(dist(&gd.right_curve(g, &SVector::zeros()), g));
        d
    }

    /// Whether `compose(a, b)` is refused with an error.
    pub(crate) fn refused<Gd: LieGroupoid<f64, R>, const R: usize>(gd: &Gd, a: &Gd::Element, b: &Gd::Element) -> bool {
        gd.compose(a, b).is_err()
    }
}

#[cfg(test)]
mod tests {
    use super::axiom_checks::{max_defect, refused};
    use super::*;
    use geom_core::lie::{Product, Rn, So3, so3};
    use nalgebra::{Matrix3, Vector5};
    use num_dual::Dual64;

    fn rot(x: f64, y: f64, z: f64) -> Matrix3<f64> {
        so3::exp(&Vector3::new(x, y, z))
    }

    #[test]
    fn pair_of_so3_axioms_and_invariant_fields() {
        for chart in [Chart::Exp, Chart::Cayley] {
            let pg = PairOfGroup::new(So3, chart);
            let (a, b, c, e) = (rot(0.1, 0.2, -0.3), rot(-0.5, 0.4, 0.9), rot(1.0, -0.2, 0.3), rot(0.0, 0.7, -1.1));
            let dist = |g: &(Matrix3<f64>, Matrix3<f64>), h: &(Matrix3<f64>, Matrix3<f64>)| {
                (g.0 - h.0).norm() + (g.1 - h.1).norm()
            };
            let d = max_defect(&pg, &(a, b), &(b, c), &(c, e), &Vector3::new(0.2, -0.1, 0.3), dist);
            assert!(d < 1e-14, "{chart:?}: axiom defect {d:e}");
            assert!(refused(&pg, &(a, b), &(c, e)));
            // X^←(g0, g1) = (0, g1 ξ) and X^→(g0, g1) = (−g0 ξ, 0) (docs/math.md §C.2, pair row)
            let xi = Vector3::new(0.3, -0.7, 0.2);
            let gd = (a.map(Dual64::from), b.map(Dual64::from));
            let t = xi.map(|v| Dual64::new(0.0, v));
            let l = LieGroupoid::<Dual64, 3>::left_curve(&pg, &gd, &t);
            let r = LieGroupoid::<Dual64, 3>::right_curve(&pg, &gd, &t);
            let xh = so3::hat(&xi);
            assert!(l.0.map(|v| v.eps).norm() < 1e-16 && (l.1.map(|v| v.eps) - b * xh).norm() < 1e-15);
            assert!((r.0.map(|v| v.eps) + a * xh).norm() < 1e-15 && r.1.map(|v| v.eps).norm() < 1e-16);
        }
    }

    #[test]
    fn pair_of_r2_x_so3_axioms() {
        // the plate-ball configuration space Q = R^2 × SO(3) (docs/math.md §C.6.3)
        let pg = PairOfGroup::new(Product::<Rn<2>, So3, 2, 3>::new(Rn, So3), Chart::Cayley);
        type Q = (nalgebra::Vector2<f64>, Matrix3<f64>);
        let q = |x: f64, y: f64, r: Matrix3<f64>| -> Q { (nalgebra::Vector2::new(x, y), r) };
        let (a, b, c, e) = (
            q(0.0, 1.0, rot(0.1, 0.2, 0.3)),
            q(1.0, -1.0, rot(0.4, 0.0, -0.2)),
            q(2.0, 0.5, rot(-0.3, 0.3, 0.3)),
            q(-1.0, 0.0, rot(0.0, 0.0, 1.0)),
        );
        let dist = |g: &(Q, Q), h: &(Q, Q)| {
            (g.0.0 - h.0.0).norm() + (g.0.1 - h.0.1).norm() + (g.1.0 - h.1.0).norm() + (g.1.1 - h.1.1).norm()
        };
        let xi = Vector5::new(0.1, -0.2, 0.3, 0.05, -0.4);
        let d = max_defect::<_, 5>(&pg, &(a, b), &(b, c), &(c, e), &xi, dist);
        assert!(d < 1e-14, "axiom defect {d:e}");
        assert!(refused::<_, 5>(&pg, &(a, b), &(c, e)));
        // fibre chart: (x, R) ↦ ((x, R), (x + v, R cay(ω)))
        let g = LieGroupoid::<f64, 5>::fibre_exp(&pg, &a, &xi);
        assert_eq!(g.1.0, a.0 + nalgebra::Vector2::new(0.1, -0.2));
        assert!((g.1.1 - a.1 * so3::cayley(&Vector3::new(0.3, 0.05, -0.4))).norm() < 1e-15);
        let checked = pg.element::<5>(a, (b.0, b.1 * 1.01), 1e-9);
        assert!(checked.is_err());
    }

    /// `L = |x1 − x0|²/(2h) + ½ ωᵀ I ω / h` with `ω = cay^{-1}(R0ᵀR1)`, on `(R² × SO(3))²`.
    struct BallLagrangian {
        h: f64,
    }
    type PlateBall = PairOfGroup<Product<Rn<2>, So3, 2, 3>>;
    impl crate::lagrangian::DiscreteLagrangian<PlateBall, 5> for BallLagrangian {
        #[inline]
        fn eval<S: Scalar>(&self, pg: &PlateBall, g: &<PlateBall as GroupoidFamily<5>>::Element<S>) -> S {
            let dx = g.1.0 - g.0.0;
            let w = LieGroup::<S, 3>::cayley_inv(&pg.group().1, &(g.0.1.transpose() * g.1.1))
                .unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
            let i = Vector3::new(1.0, 2.0, 3.0).map(S::from);
            (dx.norm_squared() + w.component_mul(&i).dot(&w)) * S::from(0.5 / self.h)
        }
    }

    #[test]
    fn del_on_r2_x_so3_conserves_both_momenta() {
        let pg: PlateBall = PairOfGroup::new(Product::new(Rn, So3), Chart::Cayley);
        // full Newton converges quadratically from the warm start; the default (simplified
        // Newton, one Jacobian per step) linearly, to the same arrow
        let full = crate::lagrangian::DiscreteFlow::new(pg, BallLagrangian { h: 0.1 })
            .with_newton(geom_core::newton::NewtonOptions::groupoid_flow());
        let flow = crate::lagrangian::DiscreteFlow::new(pg, BallLagrangian { h: 0.1 });
        let q0 = (nalgebra::Vector2::new(0.0, 0.0), Matrix3::identity());
        let mut g = LieGroupoid::<f64, 5>::fibre_exp(&pg, &q0, &Vector5::new(0.1, 0.05, 0.2, -0.1, 0.3));
        let p0 = crate::lagrangian::legendre_plus(&pg, flow.lagrangian(), &g);
        let mut most = 0;
        for _ in 0..50 {
            let (next, report) = flow.step(&g).unwrap();
            let (next_full, report_full) = full.step(&g).unwrap();
            assert!(report_full.iterations <= 6);
            most = most.max(report.iterations);
            assert!((next.1.0 - next_full.1.0).norm() + (next.1.1 - next_full.1.1).norm() < 1e-13);
            // translation momentum conserved; spatial angular momentum R_k Π_k conserved (§C.5)
            let p = crate::lagrangian::legendre_plus(&pg, flow.lagrangian(), &next);
            assert!((p.fixed_rows::<2>(0) - p0.fixed_rows::<2>(0)).norm() < 1e-13);
            let spatial = |g: &(Q5, Q5), p: &Vector5<f64>| g.1.1 * p.fixed_rows::<3>(2).into_owned();
            assert!(
                (spatial(&next, &p) - spatial(&g, &crate::lagrangian::legendre_plus(&pg, flow.lagrangian(), &g)))
                    .norm()
                    < 1e-12
            );
            g = next;
        }
        assert!(most <= 12, "simplified Newton: {most} iterations");
    }
    type Q5 = (nalgebra::Vector2<f64>, Matrix3<f64>);

    #[test]
    fn sphere_pair_axioms_chart_and_invariant_fields() {
        let u = |v: Vector3<f64>| v / v.norm();
        let (a, b, c, e) = (
            u(Vector3::new(0.1, 0.2, 1.0)),
            u(Vector3::new(0.5, -0.3, 0.8)),
            u(Vector3::new(0.9, 0.1, 0.3)),
            u(Vector3::new(0.2, 0.9, 0.4)),
        );
        let dist = |g: &(Vector3<f64>, Vector3<f64>), h: &(Vector3<f64>, Vector3<f64>)| {
            (g.0 - h.0).norm() + (g.1 - h.1).norm()
        };
        let xi = Vector2::new(0.3, -0.2);
        let d = max_defect(&SpherePair, &(a, b), &(b, c), &(c, e), &xi, dist);
        assert!(d < 1e-15, "axiom defect {d:e}");
        assert!(refused(&SpherePair, &(a, b), &(c, e)));
        // off-sphere points are refused by compose, and by the checked constructor
        assert!(refused(&SpherePair, &(a, b * 1.1), &(b * 1.1, c)));
        assert!(SpherePair::element(a, b * 1.1).is_err());
        assert!(SpherePair::element(a, Vector3::new(f64::NAN, 0.0, 1.0)).is_err());
        // fibre_log refuses antipodal-hemisphere targets
        assert!(LieGroupoid::<f64, 2>::fibre_log(&SpherePair, &(a, -a)).is_err());
        // frames: orthonormal, tangent, right-handed, for points near every axis
        for p in [a, b, c, e, Vector3::x(), Vector3::y(), -Vector3::z()] {
            let (e1, e2) = SpherePair::frame(&p);
            assert!(e1.dot(&p).abs() < 1e-15 && e2.dot(&p).abs() < 1e-15 && e1.dot(&e2).abs() < 1e-15);
            assert!((e1.norm() - 1.0).abs() < 1e-15 && (e1.cross(&e2) - p).norm() < 1e-15);
        }
        // X^←(x, y) = (0, E(y) ξ), X^→(x, y) = (−E(x) ξ, 0) (docs/math.md §C.2, pair row)
        let gd = (a.map(Dual64::from), b.map(Dual64::from));
        let t = xi.map(|v| Dual64::new(0.0, v));
        let l = LieGroupoid::<Dual64, 2>::left_curve(&SpherePair, &gd, &t);
        let r = LieGroupoid::<Dual64, 2>::right_curve(&SpherePair, &gd, &t);
        assert!(
            l.0.map(|v| v.eps).norm() < 1e-16 && (l.1.map(|v| v.eps) - SpherePair::tangent(&b, &xi)).norm() < 1e-15
        );
        assert!(
            (r.0.map(|v| v.eps) + SpherePair::tangent(&a, &xi)).norm() < 1e-15 && r.1.map(|v| v.eps).norm() < 1e-16
        );
    }
}
