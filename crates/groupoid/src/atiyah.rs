//! The trivialized Atiyah groupoid `(M × M) × G ⇉ M` of the trivial principal bundle
//! `R^M × G → R^M` (docs/math.md §C.1, §C.2 last rows, §C.3).
//!
//! Groupoid data (§C.1): elements `(x, y, g)`, `α = x`, `β = y`, `ε(x) = (x, x, e)`,
//! `i(x, y, g) = (y, x, g^{-1})`, `(x, y, g)(y, z, h) = (x, z, g h)`.
//!
//! Algebroid (§C.2): `A_x = T_xM × g = R^M × R^D`, fibre coordinates `(v, ξ) ∈ R^{M+D}` (the `v`
//! block first), fibre chart `exp_x(v, ξ) = (x, x + v, τ(ξ))` with `τ` any [`GroupChart`] of `G`
//! (the shipped `exp` or Cayley of [`Chart`], or a user's), anchor
//! `(v, ξ) ↦ v`; `X^←(x, y, g) = (0_x, X(y), gξ)` (curve `(x, y + tv, g τ(tξ))`) and
//! `X^→(x, y, g) = (−X(x), 0_y, ξg)` (curve `(x − tv, y, τ(−tξ)^{-1} g)`).
//!
//! DEL (§C.3, discrete Lagrange–Poincaré), `g_k = (x_{k−1}, x_k, w_k)`:
//! `D_2L(x_{k−1}, x_k, w_k) + D_1L(x_k, x_{k+1}, w_{k+1}) = 0` and
//! `l*_{w_k} D_3L(x_{k−1}, x_k, w_k) = r*_{w_{k+1}} D_3L(x_k, x_{k+1}, w_{k+1})`.
//! A discrete Lagrangian on `Q × Q`, `Q = R^M × G`, invariant under the left multiplication of
//! `G` on the `G` factor reduces to this groupoid through
//! `(x_0, g_0, x_1, g_1) ↦ (x_0, x_1, g_0^{-1} g_1)` ([`crate::morphism::AtiyahQuotient`]).

use crate::groupoid::LieGroupoid;
use crate::lagrangian::{GroupoidFamily, GroupoidLift};
use crate::pair_manifold::tau_or_nan;
use geom_core::lie::{Chart, GroupChart, LieGroup, LieGroupFamily};
use geom_core::{Result, Scalar};
use nalgebra::SVector;

/// Compile-time check `R = M + D` (evaluated when a method is monomorphised).
#[inline(always)]
fn check_rank<const M: usize, const D: usize, const R: usize>() {
    const { assert!(R == M + D, "TrivialAtiyah<G, M, D> implements LieGroupoid<S, R> only for R = M + D") }
}

/// Split fibre coordinates `(v, ξ) ∈ R^{M+D}`.
#[inline]
fn split<S: Scalar, const M: usize, const D: usize, const R: usize>(
    a: &SVector<S, R>,
) -> (SVector<S, M>, SVector<S, D>) {
    check_rank::<M, D, R>();
    (a.fixed_rows::<M>(0).into_owned(), a.fixed_rows::<D>(M).into_owned())
}

/// The trivialized Atiyah groupoid `(R^M × R^M) × G ⇉ R^M` of a `D`-dimensional Lie group `G`,
/// algebroid rank `R = M + D` (checked at compile time), with fibre chart
/// `exp_x(v, ξ) = (x, x + v, τ(ξ))` and `fibre_log(x, y, g) = (y − x, τ^{-1}(g))` (module
/// documentation). The chart `C` is any [`GroupChart`] of `G`: the shipped [`Chart`] (the default
/// type) or a user's chart written once over the scalar (the every-scalar interfaces —
/// [`EveryScalarGroupoid`](crate::EveryScalarGroupoid), the algebroid — take it once it is an
/// [`EveryScalarChart`](geom_core::lie::EveryScalarChart), `geom_core::every_scalar_chart!`).
///
/// ```
/// use geom_core::lie::{Chart, So3};
/// use groupoid::{LieGroupoid, TrivialAtiyah};
/// use nalgebra::{SVector, Vector2, Vector3};
/// let at = TrivialAtiyah::<So3, 2, 3>::new(So3, Chart::Exp);
/// let x = Vector2::new(1.0, 0.0);
/// let g = LieGroupoid::<f64, 5>::fibre_exp(&at, &x, &SVector::from([0.5, 0.0, 0.1, 0.2, 0.3]));
/// assert_eq!(LieGroupoid::<f64, 5>::target(&at, &g), Vector2::new(1.5, 0.0));
/// assert!((g.2 - geom_core::lie::so3::exp(&Vector3::new(0.1, 0.2, 0.3))).norm() < 1e-15);
/// ```
///
/// A wrong rank does not build:
///
/// ```compile_fail
/// use geom_core::lie::{Chart, So3};
/// use groupoid::{LieGroupoid, TrivialAtiyah};
/// let at = TrivialAtiyah::<So3, 2, 3>::new(So3, Chart::Exp);
/// let _ = LieGroupoid::<f64, 4>::name(&at); // 4 != 2 + 3
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrivialAtiyah<G, const M: usize, const D: usize, C = Chart> {
    group: G,
    chart: C,
}

impl<G, const M: usize, const D: usize, C> TrivialAtiyah<G, M, D, C> {
    /// `(R^M × R^M) × G ⇉ R^M` with fibre chart `(x, x + v, τ(ξ))`, `τ = chart` (a shipped
    /// [`Chart`] or any [`GroupChart`] of `G`). Infallible: the chart is not checked here (see
    /// [`geom_core::lie::check_chart`]).
    pub fn new(group: G, chart: C) -> Self {
        Self { group, chart }
    }
    /// The structure group `G`.
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
}

impl<S, G, C, const M: usize, const D: usize, const R: usize> LieGroupoid<S, R> for TrivialAtiyah<G, M, D, C>
where
    S: Scalar,
    G: LieGroup<S, D>,
    C: GroupChart<S, G, D>,
{
    type Element = (SVector<S, M>, SVector<S, M>, G::Element);
    type Base = SVector<S, M>;

    fn name(&self) -> String {
        check_rank::<M, D, R>();
        format!("trivialized Atiyah groupoid (R^{M} x R^{M}) x {} ({})", self.group.name(), self.chart.name())
    }
    fn source(&self, g: &Self::Element) -> SVector<S, M> {
        g.0
    }
    fn target(&self, g: &Self::Element) -> SVector<S, M> {
        g.1
    }
    /// `(x, x, e)`.
    fn identity(&self, x: &SVector<S, M>) -> Self::Element {
        (*x, *x, self.group.identity())
    }
    /// `(y, x, g^{-1})`.
    fn inverse(&self, g: &Self::Element) -> Self::Element {
        (g.1, g.0, self.group.inverse(&g.2))
    }
    /// `(x, y, g)(y, z, h) = (x, z, g h)`.
    fn multiply(&self, g: &Self::Element, h: &Self::Element) -> Self::Element {
        (g.0, h.1, self.group.compose(&g.2, &h.2))
    }
    fn base_distance(&self, a: &SVector<S, M>, b: &SVector<S, M>) -> f64 {
        (a - b).map(|v| v.re()).norm()
    }
    /// `(x, x + v, τ(ξ))`.
    fn fibre_exp(&self, x: &SVector<S, M>, a: &SVector<S, R>) -> Self::Element {
        let (v, xi) = split::<S, M, D, R>(a);
        (*x, x + v, tau_or_nan(&self.group, &self.chart, &xi))
    }
    /// `(y − x, τ^{-1}(g))`.
    fn fibre_log(&self, g: &Self::Element) -> Result<SVector<S, R>> {
        check_rank::<M, D, R>();
        let xi = self.chart.tau_inv(&self.group, &g.2)?;
        let mut a = SVector::<S, R>::zeros();
        a.fixed_rows_mut::<M>(0).copy_from(&(g.1 - g.0));
        a.fixed_rows_mut::<D>(M).copy_from(&xi);
        Ok(a)
    }
    /// `(x, y + v, g τ(ξ))`.
    fn left_curve(&self, g: &Self::Element, a: &SVector<S, R>) -> Self::Element {
        let (v, xi) = split::<S, M, D, R>(a);
        (g.0, g.1 + v, self.group.compose(&g.2, &tau_or_nan(&self.group, &self.chart, &xi)))
    }
    /// `(x − v, y, τ(−ξ)^{-1} g)`.
    fn right_curve(&self, g: &Self::Element, a: &SVector<S, R>) -> Self::Element {
        let (v, xi) = split::<S, M, D, R>(a);
        let e = tau_or_nan(&self.group, &self.chart, &(-xi));
        (g.0 - v, g.1, self.group.compose(&self.group.inverse(&e), &g.2))
    }
}

/// The trivial Atiyah groupoid of any group ([`LieGroupFamily`]).
impl<G: LieGroupFamily<D>, C: GroupChart<f64, G, D>, const M: usize, const D: usize, const R: usize> GroupoidFamily<R>
    for TrivialAtiyah<G, M, D, C>
{
    type Element<S: Scalar> = (SVector<S, M>, SVector<S, M>, G::ElementAt<S>);
    type Base<S: Scalar> = SVector<S, M>;
}

impl<S: Scalar, G, C, const M: usize, const D: usize, const R: usize> GroupoidLift<S, R> for TrivialAtiyah<G, M, D, C>
where
    G: LieGroupFamily<D> + LieGroup<f64, D, Element = G::ElementAt<f64>> + LieGroup<S, D, Element = G::ElementAt<S>>,
    C: GroupChart<f64, G, D> + GroupChart<S, G, D>,
{
    fn lift(&self, g: &<Self as GroupoidFamily<R>>::Element<f64>) -> <Self as GroupoidFamily<R>>::Element<S> {
        (g.0.map(S::from), g.1.map(S::from), self.group.lift_at(&g.2))
    }
    fn lift_base(&self, x: &SVector<f64, M>) -> SVector<S, M> {
        x.map(S::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pair_manifold::axiom_checks::{max_defect, refused};
    use geom_core::lie::{So3, so3};
    use nalgebra::{Matrix3, Vector2, Vector3, Vector5};
    use num_dual::Dual64;

    type E = (Vector2<f64>, Vector2<f64>, Matrix3<f64>);

    fn rot(x: f64, y: f64, z: f64) -> Matrix3<f64> {
        so3::exp(&Vector3::new(x, y, z))
    }

    #[test]
    fn atiyah_axioms_and_invariant_fields() {
        for chart in [Chart::Exp, Chart::Cayley] {
            let at = TrivialAtiyah::<So3, 2, 3>::new(So3, chart);
            let (x, y, z, w) =
                (Vector2::new(0.0, 1.0), Vector2::new(2.0, -1.0), Vector2::new(0.5, 0.5), Vector2::new(-3.0, 0.2));
            let g: E = (x, y, rot(0.1, 0.2, 0.3));
            let h: E = (y, z, rot(-0.4, 0.6, 0.0));
            let k: E = (z, w, rot(0.9, -0.1, 0.5));
            let dist = |p: &E, q: &E| (p.0 - q.0).norm() + (p.1 - q.1).norm() + (p.2 - q.2).norm();
            let a = Vector5::new(0.3, -0.2, 0.1, 0.4, -0.5);
            let d = max_defect::<_, 5>(&at, &g, &h, &k, &a, dist);
            assert!(d < 1e-14, "{chart:?}: axiom defect {d:e}");
            assert!(refused::<_, 5>(&at, &g, &k));
            // X^← = (0_x, X(y), gξ), X^→ = (−X(x), 0_y, ξg) (docs/math.md §C.2)
            let gd = (g.0.map(Dual64::from), g.1.map(Dual64::from), g.2.map(Dual64::from));
            let t = a.map(|v| Dual64::new(0.0, v));
            let l = LieGroupoid::<Dual64, 5>::left_curve(&at, &gd, &t);
            let r = LieGroupoid::<Dual64, 5>::right_curve(&at, &gd, &t);
            let (v, xh) = (Vector2::new(a[0], a[1]), so3::hat(&Vector3::new(a[2], a[3], a[4])));
            let eps2 = |u: &Vector2<Dual64>| u.map(|c| c.eps);
            assert!(eps2(&l.0).norm() < 1e-16 && (eps2(&l.1) - v).norm() < 1e-16);
            assert!((l.2.map(|c| c.eps) - g.2 * xh).norm() < 1e-15);
            assert!((eps2(&r.0) + v).norm() < 1e-16 && eps2(&r.1).norm() < 1e-16);
            assert!((r.2.map(|c| c.eps) - xh * g.2).norm() < 1e-15);
        }
    }
}
