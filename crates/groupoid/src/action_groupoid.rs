//! The action groupoid `M × H ⇉ M` of a right action `x · h` (docs/math.md §C.1, C.2, C.3).
//!
//! `geom-core` actions are **left** actions `Φ: H × M → M` ([`GroupAction`]); the right action is
//! built from them as
//!
//! ```text
//!     x · h := Φ(h^{-1}, x),      (x · h) · h' = x · (h h').
//! ```
//!
//! Groupoid data (§C.1): elements `(x, h)`, `α(x, h) = x`, `β(x, h) = x · h`, `ε(x) = (x, e)`,
//! `i(x, h) = (x · h, h^{-1})`, `(x, h)(x · h, h') = (x, h h')`.
//!
//! Algebroid (§C.2): `A_xG = h` (rank `D = dim H`), fibre chart `exp_x(ξ) = (x, τ(ξ))` with
//! `τ` any [`GroupChart`] of `H` (the shipped `exp` or Cayley of [`Chart`], or a user's), anchor
//! `ρ_x(ξ) = Tβ(0_x, ξ) = ξ_M(x)` where
//!
//! ```text
//!     ξ_M(x) := d/dt x · exp(tξ)|_0 = −ξ^Φ(x)      (ξ^Φ = GroupAction::infinitesimal_generator)
//! ```
//!
//! is the generator of the **right** action (the negative of the left action's generator). The
//! invariant vector fields are `X^←(x, h) = (0_x, hξ)` (curve `(x, h τ(tξ))`) and
//! `X^→(x, h) = (−ξ_M(x), ξh)` (curve `(x · τ(−tξ), τ(−tξ)^{-1} h)`), as in the §C.2 table with
//! `ξ_M` read as the right-action generator.
//!
//! DEL (§C.3): with `g_k = (x_k, h_k)`, `x_{k+1} = x_k · h_k`,
//! `l*_{h_k} D_hL(x_k, h_k) − r*_{h_{k+1}} D_hL(x_{k+1}, h_{k+1}) + ⟨D_xL(x_{k+1}, h_{k+1}), ξ_M(x_{k+1})⟩ = 0`
//! for all `ξ`: the discrete Euler–Poincaré equations with advected parameters. For the heavy top
//! `M = S²` (or `R³`) with `H = SO(3)` acting by rotation: `x = Γ = Rᵀe_3`, `x · W = Wᵀ Γ`
//! ([`geom_core::action::SphereRotation`]), which is the advection `Γ_{k+1} = W_kᵀ Γ_k`.

use crate::groupoid::LieGroupoid;
use crate::lagrangian::{GroupoidFamily, GroupoidLift};
use crate::pair_manifold::tau_or_nan;
use geom_core::action::{ElementOf, GroupAction};
use geom_core::lie::{Chart, GroupChart, LieGroup, LieGroupFamily};
use geom_core::{Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// Distance of two points measured on their real parts (used by the composability check
/// `β(g) = α(h)`); implemented for `nalgebra` matrices and vectors (Frobenius norm of the
/// difference) and for pairs (sum).
pub trait RealDistance {
    /// `|a − b|` on the real parts.
    fn real_distance(&self, other: &Self) -> f64;
}

impl<S: Scalar, const R: usize, const C: usize> RealDistance for SMatrix<S, R, C> {
    fn real_distance(&self, other: &Self) -> f64 {
        (self - other).map(|v| v.re()).norm()
    }
}

impl<A: RealDistance, B: RealDistance> RealDistance for (A, B) {
    fn real_distance(&self, other: &Self) -> f64 {
        self.0.real_distance(&other.0) + self.1.real_distance(&other.1)
    }
}

/// The action groupoid `M × H ⇉ M` of the right action `x · h = Φ(h^{-1}, x)` built from a
/// `geom-core` left action `Φ` (module documentation), with fibre chart `exp_x(ξ) = (x, τ(ξ))`
/// and `fibre_log(x, h) = τ^{-1}(h)`. The chart `C` is any [`GroupChart`] of the acting group:
/// the shipped [`Chart`] (the default type) or a user's chart written once over the scalar (the
/// every-scalar interfaces — [`EveryScalarGroupoid`](crate::EveryScalarGroupoid), the
/// algebroid — take it once it is an [`EveryScalarChart`](geom_core::lie::EveryScalarChart),
/// `geom_core::every_scalar_chart!`).
///
/// ```
/// use geom_core::action::SphereRotation;
/// use geom_core::lie::{Chart, so3};
/// use groupoid::{ActionGroupoid, LieGroupoid};
/// use nalgebra::Vector3;
/// let heavy_top = ActionGroupoid::new(SphereRotation, Chart::Exp);
/// let w = so3::exp(&Vector3::new(0.1, -0.3, 0.2));
/// let g = (Vector3::z(), w);
/// // β(Γ, W) = Γ · W = Wᵀ Γ: the advection of the heavy top
/// assert!((LieGroupoid::<f64, 3>::target(&heavy_top, &g) - w.transpose() * Vector3::z()).norm() < 1e-15);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionGroupoid<A, C = Chart> {
    action: A,
    chart: C,
}

impl<A, C> ActionGroupoid<A, C> {
    /// `M × H ⇉ M` for the left action `action` (turned into the right action
    /// `x · h = Φ(h^{-1}, x)`), with fibre chart `(x, τ(ξ))`, `τ = chart` (a shipped [`Chart`]
    /// or any [`GroupChart`] of `H`). Infallible: the chart is not checked here (see
    /// [`geom_core::lie::check_chart`]).
    pub fn new(action: A, chart: C) -> Self {
        Self { action, chart }
    }
    /// The left action `Φ`.
    pub fn action(&self) -> &A {
        &self.action
    }
    /// The chart `τ` (a copy: every [`GroupChart`] is `Copy`).
    pub fn chart(&self) -> C
    where
        C: Copy,
    {
        self.chart
    }
    /// The right action `x · h = Φ(h^{-1}, x)`.
    pub fn right_act<S: Scalar, const D: usize>(&self, x: &A::Point, h: &ElementOf<A, S, D>) -> A::Point
    where
        A: GroupAction<S, D>,
    {
        let group = self.action.group();
        self.action.act(&group.inverse(h), x)
    }
    /// The anchor `ρ_x(ξ) = ξ_M(x) = d/dt x · exp(tξ)|_0 = −ξ^Φ(x)`, the right-action generator.
    pub fn anchor<S: Scalar, const D: usize>(&self, xi: &SVector<S, D>, x: &A::Point) -> A::Tangent
    where
        A: GroupAction<S, D>,
    {
        self.action.infinitesimal_generator(&(-xi), x)
    }
}

impl<S: Scalar, const D: usize, A, C> LieGroupoid<S, D> for ActionGroupoid<A, C>
where
    A: GroupAction<S, D>,
    A::Point: RealDistance,
    C: GroupChart<S, A::Group, D>,
{
    type Element = (A::Point, ElementOf<A, S, D>);
    type Base = A::Point;

    fn name(&self) -> String {
        format!("action groupoid of {} ({})", self.action.name(), self.chart.name())
    }
    fn source(&self, g: &Self::Element) -> A::Point {
        g.0.clone()
    }
    /// `x · h = Φ(h^{-1}, x)`.
    fn target(&self, g: &Self::Element) -> A::Point {
        self.right_act(&g.0, &g.1)
    }
    /// `(x, e)`.
    fn identity(&self, x: &A::Point) -> Self::Element {
        (x.clone(), self.action.group().identity())
    }
    /// `(x · h, h^{-1})`.
    fn inverse(&self, g: &Self::Element) -> Self::Element {
        (self.right_act(&g.0, &g.1), self.action.group().inverse(&g.1))
    }
    /// `(x, h)(x · h, h') = (x, h h')`.
    fn multiply(&self, g: &Self::Element, h: &Self::Element) -> Self::Element {
        (g.0.clone(), self.action.group().compose(&g.1, &h.1))
    }
    fn base_distance(&self, a: &A::Point, b: &A::Point) -> f64 {
        a.real_distance(b)
    }
    /// `(x, τ(ξ))` (an element of NaNs where `τ` fails).
    fn fibre_exp(&self, x: &A::Point, xi: &SVector<S, D>) -> Self::Element {
        (x.clone(), tau_or_nan(self.action.group(), &self.chart, xi))
    }
    /// `τ^{-1}(h)`.
    fn fibre_log(&self, g: &Self::Element) -> Result<SVector<S, D>> {
        self.chart.tau_inv(self.action.group(), &g.1)
    }
    /// `(x, h τ(ξ))`.
    fn left_curve(&self, g: &Self::Element, xi: &SVector<S, D>) -> Self::Element {
        let group = self.action.group();
        (g.0.clone(), group.compose(&g.1, &tau_or_nan(group, &self.chart, xi)))
    }
    /// `(x · τ(−ξ), τ(−ξ)^{-1} h)`.
    fn right_curve(&self, g: &Self::Element, xi: &SVector<S, D>) -> Self::Element {
        let group = self.action.group();
        let e = tau_or_nan(group, &self.chart, &(-xi));
        (self.right_act(&g.0, &e), group.compose(&group.inverse(&e), &g.1))
    }
}

/// An action whose points are named at every scalar (the analogue of [`LieGroupFamily`] for the
/// base of an action groupoid), with the lift `f64 → S`. Implemented for the actions of
/// `geom_core::action` (points as vectors, lifted entrywise) and for left and right
/// multiplication of any [`LieGroupFamily`] group; a user's action implements it with its point
/// type and one line of lifting.
pub trait ActionFamily<const D: usize>: GroupAction<f64, D, Group = Self::Acting> + Send + Sync {
    /// The acting group (the same at every scalar).
    type Acting: LieGroupFamily<D>;
    /// Points at scalar `S`.
    type PointAt<S: Scalar>: Clone + std::fmt::Debug + Send + Sync;
    /// `x` at scalar `S`.
    fn lift_point<S: Scalar>(&self, x: &Self::PointAt<f64>) -> Self::PointAt<S>;
}

macro_rules! vector_action_family {
    ([$($gen:tt)*] $action:ty, $d:tt, $group:ty, $point:ident<S $(, $n:tt)*>) => {
        impl<$($gen)*> ActionFamily<$d> for $action {
            type Acting = $group;
            type PointAt<S: Scalar> = nalgebra::$point<S $(, $n)*>;
            fn lift_point<S: Scalar>(&self, x: &nalgebra::$point<f64 $(, $n)*>) -> nalgebra::$point<S $(, $n)*> {
                x.map(S::from)
            }
        }
    };
}
vector_action_family!([] geom_core::action::RotationAction, 3, geom_core::lie::So3, Vector3<S>);
vector_action_family!([] geom_core::action::SphereRotation, 3, geom_core::lie::So3, Vector3<S>);
vector_action_family!([] geom_core::action::RigidMotion, 6, geom_core::lie::Se3, Vector3<S>);
vector_action_family!([const N: usize] geom_core::action::Translation<N>, N, geom_core::lie::Rn<N>, SVector<S, N>);
vector_action_family!(
    [const N: usize, const D: usize] geom_core::action::LinearAction<N, D>, D, geom_core::lie::Gl<N, D>, SVector<S, N>
);
vector_action_family!(
    [const K: usize, const N: usize]
    geom_core::action::Diagonal<geom_core::action::RotationAction, 3, K, N>, 3, geom_core::lie::So3, SVector<S, N>
);

impl<G, const D: usize> ActionFamily<D> for geom_core::action::LeftMultiplication<G>
where
    G: LieGroupFamily<D>,
{
    type Acting = G;
    type PointAt<S: Scalar> = G::ElementAt<S>;
    fn lift_point<S: Scalar>(&self, x: &G::ElementAt<f64>) -> G::ElementAt<S> {
        GroupAction::<f64, D>::group(self).map_scalar(x, &S::from)
    }
}

impl<G, const D: usize> ActionFamily<D> for geom_core::action::RightMultiplication<G>
where
    G: LieGroupFamily<D>,
{
    type Acting = G;
    type PointAt<S: Scalar> = G::ElementAt<S>;
    fn lift_point<S: Scalar>(&self, x: &G::ElementAt<f64>) -> G::ElementAt<S> {
        GroupAction::<f64, D>::group(self).map_scalar(x, &S::from)
    }
}

/// The action groupoid of any [`ActionFamily`] action.
impl<A: ActionFamily<D>, C: GroupChart<f64, A::Acting, D>, const D: usize> GroupoidFamily<D> for ActionGroupoid<A, C> {
    type Element<S: Scalar> = (A::PointAt<S>, <A::Acting as LieGroupFamily<D>>::ElementAt<S>);
    type Base<S: Scalar> = A::PointAt<S>;
}

impl<S: Scalar, A, C, const D: usize> GroupoidLift<S, D> for ActionGroupoid<A, C>
where
    C: GroupChart<f64, A::Acting, D> + GroupChart<S, A::Acting, D>,
    A: ActionFamily<D>
        + GroupAction<f64, D, Point = A::PointAt<f64>>
        + GroupAction<S, D, Point = A::PointAt<S>, Group = A::Acting>,
    A::Acting: LieGroup<f64, D, Element = <A::Acting as LieGroupFamily<D>>::ElementAt<f64>>
        + LieGroup<S, D, Element = <A::Acting as LieGroupFamily<D>>::ElementAt<S>>,
    A::PointAt<f64>: RealDistance,
    A::PointAt<S>: RealDistance,
{
    fn lift(&self, g: &<Self as GroupoidFamily<D>>::Element<f64>) -> <Self as GroupoidFamily<D>>::Element<S> {
        (self.action.lift_point(&g.0), GroupAction::<f64, D>::group(&self.action).lift_at(&g.1))
    }
    fn lift_base(&self, x: &A::PointAt<f64>) -> A::PointAt<S> {
        self.action.lift_point(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pair_manifold::axiom_checks::{max_defect, refused};
    use geom_core::action::{RotationAction, SphereRotation, Translation};
    use geom_core::lie::so3;
    use nalgebra::{Matrix3, Vector2, Vector3};
    use num_dual::Dual64;

    fn rot(x: f64, y: f64, z: f64) -> Matrix3<f64> {
        so3::exp(&Vector3::new(x, y, z))
    }

    type E = (Vector3<f64>, Matrix3<f64>);

    #[test]
    fn heavy_top_action_groupoid_axioms() {
        for chart in [Chart::Exp, Chart::Cayley] {
            let ag = ActionGroupoid::new(SphereRotation, chart);
            let x = Vector3::new(0.2, -0.3, 0.9).normalize();
            let (a, b, c) = (rot(0.1, 0.2, -0.3), rot(-0.5, 0.4, 0.9), rot(1.0, -0.2, 0.3));
            let g: E = (x, a);
            let h: E = (a.transpose() * x, b);
            let k: E = ((a * b).transpose() * x, c);
            let dist = |p: &E, q: &E| (p.0 - q.0).norm() + (p.1 - q.1).norm();
            let d = max_defect(&ag, &g, &h, &k, &Vector3::new(0.3, 0.1, -0.2), dist);
            assert!(d < 1e-14, "{chart:?}: axiom defect {d:e}");
            assert!(refused(&ag, &g, &k));
            // the right action is a right action: (x · a) · b = x · (a b)
            let xa = ag.right_act::<f64, 3>(&x, &a);
            assert!((ag.right_act::<f64, 3>(&xa, &b) - ag.right_act::<f64, 3>(&x, &(a * b))).norm() < 1e-15);
        }
    }

    #[test]
    fn invariant_fields_match_the_table() {
        // X^←(x, h) = (0_x, hξ), X^→(x, h) = (−ξ_M(x), ξh) with ξ_M(x) = d/dt x·exp(tξ) (§C.2)
        let ag = ActionGroupoid::new(RotationAction, Chart::Cayley);
        let (x, hm) = (Vector3::new(0.3, -1.2, 0.5), rot(0.4, 0.1, -0.7));
        let xi = Vector3::new(0.2, 0.5, -0.3);
        let gd = (x.map(Dual64::from), hm.map(Dual64::from));
        let t = xi.map(|v| Dual64::new(0.0, v));
        let l = LieGroupoid::<Dual64, 3>::left_curve(&ag, &gd, &t);
        let r = LieGroupoid::<Dual64, 3>::right_curve(&ag, &gd, &t);
        let xh = so3::hat(&xi);
        assert!(l.0.map(|v| v.eps).norm() < 1e-16 && (l.1.map(|v| v.eps) - hm * xh).norm() < 1e-15);
        // ξ_M(x) by AD of the right action, and the closed form −ξ × x
        let xm = {
            let curve = ag.right_act::<Dual64, 3>(&x.map(Dual64::from), &so3::exp(&t));
            curve.map(|v| v.eps)
        };
        assert!((xm + xi.cross(&x)).norm() < 1e-15);
        assert!((ag.anchor::<f64, 3>(&xi, &x) - xm).norm() < 1e-15);
        assert!((r.0.map(|v| v.eps) + xm).norm() < 1e-15, "{}", r.0.map(|v| v.eps));
        assert!((r.1.map(|v| v.eps) - xh * hm).norm() < 1e-15);
        // the anchor is Tβ on A: d/dt β(exp_x(tξ)) = ξ_M(x)
        let e = LieGroupoid::<Dual64, 3>::fibre_exp(&ag, &x.map(Dual64::from), &t);
        let beta = LieGroupoid::<Dual64, 3>::target(&ag, &e);
        assert!((beta.map(|v| v.eps) - xm).norm() < 1e-15);
    }

    #[test]
    fn translation_action_groupoid_is_a_pair_groupoid() {
        // R^2 acting on itself by translation: (x, a) ↦ (x, x − a) is an isomorphism onto R^2×R^2
        let ag = ActionGroupoid::new(Translation::<2>, Chart::Exp);
        let g = (Vector2::new(1.0, 2.0), Vector2::new(0.5, -1.0));
        let b = LieGroupoid::<f64, 2>::target(&ag, &g);
        assert_eq!(b, Vector2::new(0.5, 3.0));
        let dist = |p: &(Vector2<f64>, Vector2<f64>), q: &(Vector2<f64>, Vector2<f64>)| {
            (p.0 - q.0).norm() + (p.1 - q.1).norm()
        };
        let h = (b, Vector2::new(0.1, 0.1));
        let k = (LieGroupoid::<f64, 2>::target(&ag, &h), Vector2::new(-2.0, 0.3));
        assert!(max_defect(&ag, &g, &h, &k, &Vector2::new(0.3, 0.4), dist) < 1e-15);
    }
}
