//! Morphisms of discrete (constrained) Lagrangian systems and the reductions they give
//! (Marrero, Martín de Diego & Stern, *Symplectic groupoids and discrete constrained Lagrangian
//! mechanics*, 2015, arXiv:1103.6250, §4; docs/math.md §C.1–C.3).
//!
//! A **Lie groupoid morphism** `Ψ: G → G'` over `ψ: Q → Q'` satisfies
//! `α' ∘ Ψ = ψ ∘ α`, `β' ∘ Ψ = ψ ∘ β` and `Ψ(g h) = Ψ(g) Ψ(h)` for composable `(g, h)`
//! ([`GroupoidMorphism`], checked by [`morphism_defect`]). It is a **morphism of discrete
//! constrained Lagrangian systems** `(G, N, L) → (G', N', L')` when it carries the constraint
//! submanifold and the Lagrangian along: `Ψ(N) ⊂ N'` and `L' ∘ Ψ = L` on `N`. Given `(G', N', L')`,
//! the pull-back [`Pullback`] (`L = L' ∘ Ψ`, `φ = φ' ∘ Ψ`) is such a system on `G`.
//!
//! Its differential at the identities is the algebroid morphism `AΨ_x: A_xG → A_{ψ(x)}G'`
//! ([`algebroid_map`], in fibre coordinates `AΨ_x = ∂/∂ξ fibre_log'(Ψ(exp_x ξ))|_0`), and the
//! Legendre transforms are carried along by its transpose (left and right translations commute
//! with `Ψ`):
//!
//! ```text
//!     F^+L(g) = AΨ_{β(g)}ᵀ F^+L'(Ψ(g)),      F^-L(g) = AΨ_{α(g)}ᵀ F^-L'(Ψ(g)).
//! ```
//!
//! Hence, when `AΨ` is a fibrewise isomorphism (every reduction below), `(g_k)` solves the DEL of
//! `L' ∘ Ψ` iff `(Ψ(g_k))` solves the DEL of `L'`: the image of an unreduced trajectory is the
//! reduced trajectory. This is **reduction** (Marrero et al. 2015, §4):
//!
//! | morphism | `G → G'` | `Ψ` | reduced equations |
//! | --- | --- | --- | --- |
//! | [`LeftTrivialization<G>`] | `G × G → G` | `(g_0, g_1) ↦ g_0^{-1} g_1` | discrete Euler–Poincaré |
//! | [`AtiyahQuotient<G, M, D>`] | `(R^M × G)² → (R^M × R^M) × G` | `(x_0, g_0, x_1, g_1) ↦ (x_0, x_1, g_0^{-1} g_1)` | discrete Lagrange–Poincaré |
//! | [`AdvectedReduction<A>`] | `SO(3) × SO(3) → M × SO(3)` | `(R_0, R_1) ↦ (a · R_0, R_0^{-1} R_1)` | discrete Euler–Poincaré with advected parameter |
//!
//! The first is the quotient of the pair groupoid by the diagonal left action of `G`
//! (`L(h g_0, h g_1) = L(g_0, g_1)`), the second by the free left action of `G` on the `G` factor
//! of `Q = R^M × G`, the third (heavy top, `a = e_3`, `a · R = Rᵀ a`) by the isotropy subgroup of
//! `a` only. All three carry the fibre charts onto each other (`AΨ = Id` in coordinates), so the
//! Newton iterations of [`crate::DiscreteFlow`] on both sides coincide.

use crate::action_groupoid::ActionGroupoid;
use crate::atiyah::TrivialAtiyah;
use crate::constraints::Constraints;
use crate::groupoid::LieGroupoid;
use crate::lagrangian::{AdGroupoid, Arrow, DiscreteLagrangian, GroupoidFamily, GroupoidLift};
use crate::lie_group::GroupAsGroupoid;
use crate::pair_manifold::PairOfGroup;
use geom_core::action::{GroupAction, RotationAction, SphereRotation};
use geom_core::lie::{Chart, GroupChart, LieGroup, Product, ProductChart, Rn, So3};
use geom_core::{Result, Scalar};
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};
use num_dual::DualSVec64;

/// A Lie groupoid morphism `Ψ: G → G'` over `ψ: Q → Q'` (module documentation), written once for
/// all scalars like a [`DiscreteLagrangian`], between groupoids of algebroid ranks `R` and `R2`.
/// The morphism owns (copies of) both groupoids.
pub trait GroupoidMorphism<const R: usize, const R2: usize>: Send + Sync {
    /// The source groupoid `G`.
    type Source: GroupoidFamily<R>;
    /// The target groupoid `G'`.
    type Target: GroupoidFamily<R2>;
    /// `G`.
    fn source_groupoid(&self) -> &Self::Source;
    /// `G'`.
    fn target_groupoid(&self) -> &Self::Target;
    /// `Ψ(g)`.
    fn map<S: Scalar>(
        &self,
        g: &<Self::Source as GroupoidFamily<R>>::Element<S>,
    ) -> <Self::Target as GroupoidFamily<R2>>::Element<S>;
    /// The base map `ψ(x)`.
    fn map_base<S: Scalar>(
        &self,
        x: &<Self::Source as GroupoidFamily<R>>::Base<S>,
    ) -> <Self::Target as GroupoidFamily<R2>>::Base<S>;
}

/// The pull-back `F ∘ Ψ` of a function on `G'` along a morphism `Ψ: G → G'`: for a discrete
/// Lagrangian `L'` it is the [`DiscreteLagrangian`] `L = L' ∘ Ψ` on `G`, for constraints `φ'` the
/// [`Constraints`] `φ = φ' ∘ Ψ` (so `N = Ψ^{-1}(N')`). `Ψ` is then a morphism of discrete
/// constrained Lagrangian systems `(G, Ψ^{-1}(N'), L' ∘ Ψ) → (G', N', L')` (Marrero et al. 2015,
/// §4).
///
/// `R2` is the rank of `G'` (the morphism's second rank parameter; usually inferred).
#[derive(Debug, Clone, Copy)]
pub struct Pullback<P, F, const R2: usize> {
    morphism: P,
    function: F,
}

impl<P, F, const R2: usize> Pullback<P, F, R2> {
    /// `function ∘ morphism`.
    pub fn new(morphism: P, function: F) -> Self {
        Self { morphism, function }
    }
    /// `Ψ`.
    pub fn morphism(&self) -> &P {
        &self.morphism
    }
    /// The function on `G'`.
    pub fn function(&self) -> &F {
        &self.function
    }
}

impl<P, F, const R: usize, const R2: usize> DiscreteLagrangian<P::Source, R> for Pullback<P, F, R2>
where
    P: GroupoidMorphism<R, R2>,
    F: DiscreteLagrangian<P::Target, R2>,
{
    /// `L'(Ψ(g))`.
    #[inline]
    fn eval<S: Scalar>(&self, _groupoid: &P::Source, g: &<P::Source as GroupoidFamily<R>>::Element<S>) -> S {
        self.function.eval::<S>(self.morphism.target_groupoid(), &self.morphism.map::<S>(g))
    }
}

impl<P, F, const R: usize, const R2: usize, const K: usize> Constraints<P::Source, R, K> for Pullback<P, F, R2>
where
    P: GroupoidMorphism<R, R2>,
    F: Constraints<P::Target, R2, K>,
{
    /// `φ'(Ψ(g))`.
    #[inline]
    fn eval<S: Scalar>(
        &self,
        _groupoid: &P::Source,
        g: &<P::Source as GroupoidFamily<R>>::Element<S>,
    ) -> SVector<S, K> {
        self.function.eval::<S>(self.morphism.target_groupoid(), &self.morphism.map::<S>(g))
    }
}

/// A distance of two arrows of `G`: `d(a, b) = |α(a) − α(b)| + |fibre_log(a) − fibre_log(b)|` (an
/// arrow is determined by its source and its fibre coordinates). Errors where `fibre_log` is
/// undefined.
pub fn element_distance<Gd: AdGroupoid<R>, const R: usize>(
    groupoid: &Gd,
    a: &Arrow<Gd, R>,
    b: &Arrow<Gd, R>,
) -> Result<f64> {
    let base = LieGroupoid::<f64, R>::base_distance(
        groupoid,
        &LieGroupoid::<f64, R>::source(groupoid, a),
        &LieGroupoid::<f64, R>::source(groupoid, b),
    );
    let la = LieGroupoid::<f64, R>::fibre_log(groupoid, a)?;
    let lb = LieGroupoid::<f64, R>::fibre_log(groupoid, b)?;
    Ok(base + (la - lb).norm())
}

/// The largest defect of the morphism axioms at the composable pair `(g, h)` of `G`:
/// `|α'(Ψg) − ψ(αg)|`, `|β'(Ψg) − ψ(βg)|`, `d(Ψ(gh), Ψ(g)Ψ(h))`, `d(Ψ(ε(αg)), ε'(ψ(αg)))` and
/// `d(Ψ(g^{-1}), Ψ(g)^{-1})` ([`element_distance`] in `G'`). Errors: `(g, h)` not composable,
/// `Ψ(g)Ψ(h)` not composable, an undefined `fibre_log`.
pub fn morphism_defect<P, const R: usize, const R2: usize>(
    morphism: &P,
    g: &Arrow<P::Source, R>,
    h: &Arrow<P::Source, R>,
) -> Result<f64>
where
    P: GroupoidMorphism<R, R2>,
    P::Source: AdGroupoid<R>,
    P::Target: AdGroupoid<R2>,
{
    let (src, dst) = (morphism.source_groupoid(), morphism.target_groupoid());
    let bd = |a: &<P::Target as GroupoidFamily<R2>>::Base<f64>, b: &<P::Target as GroupoidFamily<R2>>::Base<f64>| {
        LieGroupoid::<f64, R2>::base_distance(dst, a, b)
    };
    let pg = morphism.map::<f64>(g);
    let ph = morphism.map::<f64>(h);
    let mut d = bd(
        &LieGroupoid::<f64, R2>::source(dst, &pg),
        &morphism.map_base::<f64>(&LieGroupoid::<f64, R>::source(src, g)),
    );
    d = d.max(bd(
        &LieGroupoid::<f64, R2>::target(dst, &pg),
        &morphism.map_base::<f64>(&LieGroupoid::<f64, R>::target(src, g)),
    ));
    let gh = LieGroupoid::<f64, R>::compose(src, g, h)?;
    let pgph = LieGroupoid::<f64, R2>::compose(dst, &pg, &ph)?;
    d = d.max(element_distance(dst, &morphism.map::<f64>(&gh), &pgph)?);
    let x = LieGroupoid::<f64, R>::source(src, g);
    let unit = morphism.map::<f64>(&LieGroupoid::<f64, R>::identity(src, &x));
    d = d.max(element_distance(dst, &unit, &LieGroupoid::<f64, R2>::identity(dst, &morphism.map_base::<f64>(&x)))?);
    let inv = morphism.map::<f64>(&LieGroupoid::<f64, R>::inverse(src, g));
    d = d.max(element_distance(dst, &inv, &LieGroupoid::<f64, R2>::inverse(dst, &pg))?);
    Ok(d)
}

/// `|L(g) − L'(Ψ(g))|`: how far `Ψ` is from carrying `L` to `L'` at `g` (zero for a morphism of
/// discrete Lagrangian systems, e.g. a `G`-invariant `L` and its reduced `L'`).
pub fn lagrangian_defect<P, L, L2, const R: usize, const R2: usize>(
    morphism: &P,
    lagrangian: &L,
    reduced: &L2,
    g: &Arrow<P::Source, R>,
) -> f64
where
    P: GroupoidMorphism<R, R2>,
    L: DiscreteLagrangian<P::Source, R>,
    L2: DiscreteLagrangian<P::Target, R2>,
{
    let value = lagrangian.eval::<f64>(morphism.source_groupoid(), g);
    let image = reduced.eval::<f64>(morphism.target_groupoid(), &morphism.map::<f64>(g));
    (value - image).abs()
}

/// The algebroid morphism `AΨ_x: A_xG → A_{ψ(x)}G'` in fibre coordinates,
/// `AΨ_x = ∂/∂ξ fibre_log'(Ψ(exp_x ξ))|_{ξ=0}` (an `R2 × R` matrix, exact by forward AD). It
/// carries the Legendre transforms: `F^±L(g) = AΨᵀ F^±L'(Ψ(g))` (module documentation).
/// Errors where `fibre_log'` is undefined.
pub fn algebroid_map<P, const R: usize, const R2: usize>(
    morphism: &P,
    x: &<P::Source as GroupoidFamily<R>>::Base<f64>,
) -> Result<SMatrix<f64, R2, R>>
where
    P: GroupoidMorphism<R, R2>,
    P::Source: AdGroupoid<R>,
    P::Target: GroupoidLift<DualSVec64<R>, R2>,
{
    let (src, dst) = (morphism.source_groupoid(), morphism.target_groupoid());
    let xd = GroupoidLift::<DualSVec64<R>, R>::lift_base(src, x);
    let (_, jac) = num_dual::jacobian(
        |xi: SVector<DualSVec64<R>, R>| {
            let e = LieGroupoid::<DualSVec64<R>, R>::fibre_exp(src, &xd, &xi);
            LieGroupoid::<DualSVec64<R>, R2>::fibre_log(dst, &morphism.map::<DualSVec64<R>>(&e))
        },
        &SVector::<f64, R>::zeros(),
    )?;
    Ok(jac)
}

// ---------------------------------------------------------------------------------------------

/// `Ψ: G × G → G`, `(g_0, g_1) ↦ g_0^{-1} g_1`, over `G → {e}`: the quotient of the pair groupoid
/// by the diagonal left action `h · (g_0, g_1) = (h g_0, h g_1)`. A left-invariant discrete
/// Lagrangian `L(g_0, g_1) = ℓ(g_0^{-1} g_1)` reduces to `ℓ` on the group, and the DEL on `G × G`
/// to the discrete Euler–Poincaré equations `l*_{W_k} dℓ(W_k) = r*_{W_{k+1}} dℓ(W_{k+1})`
/// (docs/math.md §C.3) for `W_k = g_{k−1}^{-1} g_k`. Both groupoids use the same chart `τ` (the
/// shipped [`Chart`], the default type, or any [`GroupChart`] of `G`), and
/// `Ψ(g, g τ(ξ)) = τ(ξ)`: `AΨ = Id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeftTrivialization<G, C = Chart> {
    pair: PairOfGroup<G, C>,
    group: GroupAsGroupoid<G, C>,
}

impl<G: Copy, C: Copy> LeftTrivialization<G, C> {
    /// The reduction `G × G → G` with fibre charts `(g, g τ(ξ))` and `τ(ξ)`, `τ = chart` on
    /// both sides (a shipped [`Chart`] or any [`GroupChart`] of `G`).
    pub fn new(group: G, chart: C) -> Self {
        Self { pair: PairOfGroup::new(group, chart), group: GroupAsGroupoid::new(group, chart) }
    }
}

impl<G, C> LeftTrivialization<G, C> {
    /// Reconstruction: the arrow `(g_0, g_0 W)` of `G × G` with source `g_0` over `W`.
    pub fn reconstruct<const D: usize>(&self, g0: &G::Element, w: &G::Element) -> (G::Element, G::Element)
    where
        G: LieGroup<f64, D>,
    {
        (g0.clone(), self.pair.group().compose(g0, w))
    }
}

macro_rules! left_trivialization {
    ($group:ty, $d:tt) => {
        impl<C: GroupChart<f64, $group, $d>> GroupoidMorphism<$d, $d> for LeftTrivialization<$group, C> {
            type Source = PairOfGroup<$group, C>;
            type Target = GroupAsGroupoid<$group, C>;
            fn source_groupoid(&self) -> &PairOfGroup<$group, C> {
                &self.pair
            }
            fn target_groupoid(&self) -> &GroupAsGroupoid<$group, C> {
                &self.group
            }
            /// `g_0^{-1} g_1`.
            fn map<S: Scalar>(
                &self,
                g: &<PairOfGroup<$group, C> as GroupoidFamily<$d>>::Element<S>,
            ) -> <GroupAsGroupoid<$group, C> as GroupoidFamily<$d>>::Element<S> {
                let grp = self.group.group();
                LieGroup::<S, $d>::compose(grp, &LieGroup::<S, $d>::inverse(grp, &g.0), &g.1)
            }
            fn map_base<S: Scalar>(&self, _x: &<PairOfGroup<$group, C> as GroupoidFamily<$d>>::Base<S>) {}
        }
    };
}
left_trivialization!(geom_core::lie::So3, 3);
left_trivialization!(geom_core::lie::Se3, 6);
left_trivialization!(geom_core::lie::So2, 1);
left_trivialization!(geom_core::lie::Se2, 3);
left_trivialization!(geom_core::lie::Su2, 3);

// ---------------------------------------------------------------------------------------------

/// `Ψ: Q × Q → (R^M × R^M) × G` for `Q = R^M × G`,
/// `((x_0, g_0), (x_1, g_1)) ↦ (x_0, x_1, g_0^{-1} g_1)`, over `(x, g) ↦ x`: the quotient of the
/// pair groupoid by the free left action `h · (x, g) = (x, h g)` of `G` on the `G` factor, onto
/// the trivialized Atiyah groupoid of `Q → Q/G = R^M` (docs/math.md §C.1). A `G`-invariant `L`
/// reduces to `L'(x_0, x_1, w) = L((x_0, e), (x_1, w))`, and its DEL to the discrete
/// Lagrange–Poincaré equations (docs/math.md §C.3). Fibre coordinates `(v, ξ)` match on both sides:
/// `AΨ = Id`. Rank `R = M + D` (checked at compile time by both groupoids).
///
/// The chart `τ = C` of `G` is the shipped [`Chart`] ([`AtiyahQuotient::new`]; the default types) or
/// a user's [`GroupChart`] ([`AtiyahQuotient::with_chart`]), and the pair side then takes the
/// product chart `P = ProductChart<Chart, C>` of `R^M × G` (the identity on `R^M`, `τ` on `G`),
/// so that the fibre coordinates still match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtiyahQuotient<G, const M: usize, const D: usize, C = Chart, P = Chart> {
    pair: PairOfGroup<Product<Rn<M>, G, M, D>, P>,
    atiyah: TrivialAtiyah<G, M, D, C>,
}

impl<G: Copy, const M: usize, const D: usize> AtiyahQuotient<G, M, D> {
    /// The reduction `(R^M × G)² → (R^M × R^M) × G` with fibre charts
    /// `((x, g), (x + v, g τ(ξ)))` and `(x, x + v, τ(ξ))`, `τ = chart` on `G` (a shipped
    /// [`Chart`], which the product group applies factorwise).
    pub fn new(group: G, chart: Chart) -> Self {
        Self { pair: PairOfGroup::new(Product::new(Rn, group), chart), atiyah: TrivialAtiyah::new(group, chart) }
    }
}

impl<G: Copy, C: Copy, const M: usize, const D: usize> AtiyahQuotient<G, M, D, C, ProductChart<Chart, C>> {
    /// The same reduction with any chart `τ = chart` of `G` (a user's [`GroupChart`]): the pair
    /// side uses the product chart `(v, ξ) ↦ (v, τ(ξ))` of `R^M × G` ([`ProductChart`]).
    pub fn with_chart(group: G, chart: C) -> Self {
        Self {
            pair: PairOfGroup::new(Product::new(Rn, group), ProductChart(Chart::Exp, chart)),
            atiyah: TrivialAtiyah::new(group, chart),
        }
    }
}

impl<G, C, P, const M: usize, const D: usize> AtiyahQuotient<G, M, D, C, P> {
    /// Reconstruction: the arrow `((x_0, g_0), (x_1, g_0 w))` over `(x_0, x_1, w)` with source
    /// `(x_0, g_0)` (the `x_0` of the reduced arrow is used).
    #[allow(clippy::type_complexity)]
    pub fn reconstruct(
        &self,
        g0: &<G as LieGroup<f64, D>>::Element,
        a: &(SVector<f64, M>, SVector<f64, M>, <G as LieGroup<f64, D>>::Element),
    ) -> ((SVector<f64, M>, <G as LieGroup<f64, D>>::Element), (SVector<f64, M>, <G as LieGroup<f64, D>>::Element))
    where
        G: LieGroup<f64, D>,
    {
        let g1 = self.atiyah.group().compose(g0, &a.2);
        ((a.0, g0.clone()), (a.1, g1))
    }
}

macro_rules! atiyah_quotient {
    ($group:ty, $d:tt) => {
        impl<C, P, const M: usize, const R: usize> GroupoidMorphism<R, R> for AtiyahQuotient<$group, M, $d, C, P>
        where
            C: GroupChart<f64, $group, $d>,
            P: GroupChart<f64, Product<Rn<M>, $group, M, $d>, R>,
        {
            type Source = PairOfGroup<Product<Rn<M>, $group, M, $d>, P>;
            type Target = TrivialAtiyah<$group, M, $d, C>;
            fn source_groupoid(&self) -> &Self::Source {
                &self.pair
            }
            fn target_groupoid(&self) -> &Self::Target {
                &self.atiyah
            }
            /// `(x_0, x_1, g_0^{-1} g_1)`.
            fn map<S: Scalar>(
                &self,
                g: &<Self::Source as GroupoidFamily<R>>::Element<S>,
            ) -> <Self::Target as GroupoidFamily<R>>::Element<S> {
                let grp = self.atiyah.group();
                let w = LieGroup::<S, $d>::compose(grp, &LieGroup::<S, $d>::inverse(grp, &g.0.1), &g.1.1);
                (g.0.0, g.1.0, w)
            }
            /// `(x, g) ↦ x`.
            fn map_base<S: Scalar>(&self, x: &<Self::Source as GroupoidFamily<R>>::Base<S>) -> SVector<S, M> {
                x.0
            }
        }
    };
}
atiyah_quotient!(geom_core::lie::So3, 3);
atiyah_quotient!(geom_core::lie::Se2, 3);

// ---------------------------------------------------------------------------------------------

/// `Ψ: SO(3) × SO(3) → M × SO(3)`, `(R_0, R_1) ↦ (a · R_0, R_0^{-1} R_1)` over `R ↦ a · R`, for a
/// fixed reference point `a ∈ M` and the right action `a · R = Φ(R^{-1}, a) = Rᵀ a` of
/// [`ActionGroupoid`] (`A` = [`RotationAction`] or [`SphereRotation`]). A discrete Lagrangian
/// invariant under the isotropy group of `a` (rotations about `a`) that is of the form
/// `L(R_0, R_1) = ℓ(R_0ᵀ a, R_0ᵀ R_1)` reduces to `ℓ` on the action groupoid: for the heavy top
/// with `a = e_3`, `Γ_k = R_kᵀ e_3` is the advected parameter (docs/math.md §C.3, action groupoid).
/// `Ψ(R, R τ(ξ)) = (a · R, τ(ξ))`: `AΨ = Id`. The chart `τ` is the shipped [`Chart`] (the default
/// type) or any [`GroupChart`] of SO(3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdvectedReduction<A, C = Chart> {
    pair: PairOfGroup<So3, C>,
    action: ActionGroupoid<A, C>,
    reference: Vector3<f64>,
}

impl<A, C: Copy> AdvectedReduction<A, C> {
    /// The reduction with reference point `a = reference` and chart `τ = chart` on both sides
    /// (fibre charts `(R, R τ(ξ))` and `(x, τ(ξ))`).
    pub fn new(action: A, reference: Vector3<f64>, chart: C) -> Self {
        Self { pair: PairOfGroup::new(So3, chart), action: ActionGroupoid::new(action, chart), reference }
    }
    /// The reference point `a`.
    pub fn reference(&self) -> Vector3<f64> {
        self.reference
    }
}

macro_rules! advected_reduction {
    ($action:ty) => {
        impl<C: GroupChart<f64, So3, 3>> GroupoidMorphism<3, 3> for AdvectedReduction<$action, C> {
            type Source = PairOfGroup<So3, C>;
            type Target = ActionGroupoid<$action, C>;
            fn source_groupoid(&self) -> &PairOfGroup<So3, C> {
                &self.pair
            }
            fn target_groupoid(&self) -> &ActionGroupoid<$action, C> {
                &self.action
            }
            /// `(a · R_0, R_0^{-1} R_1) = (R_0ᵀ a, R_0ᵀ R_1)`.
            fn map<S: Scalar>(&self, g: &(Matrix3<S>, Matrix3<S>)) -> (Vector3<S>, Matrix3<S>) {
                (
                    self.map_base::<S>(&g.0),
                    LieGroup::<S, 3>::compose(&So3, &LieGroup::<S, 3>::inverse(&So3, &g.0), &g.1),
                )
            }
            /// `a · R = Φ(R^{-1}, a)`.
            fn map_base<S: Scalar>(&self, r: &Matrix3<S>) -> Vector3<S> {
                let a = self.reference.map(S::from);
                GroupAction::<S, 3>::act(self.action.action(), &LieGroup::<S, 3>::inverse(&So3, r), &a)
            }
        }
    };
}
advected_reduction!(RotationAction);
advected_reduction!(SphereRotation);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lagrangian::{DiscreteFlow, legendre_minus, legendre_plus};
    use geom_core::lie::so3;
    use nalgebra::Vector2;

    fn rot(x: f64, y: f64, z: f64) -> Matrix3<f64> {
        so3::exp(&Vector3::new(x, y, z))
    }

    #[test]
    fn reductions_are_groupoid_morphisms_with_identity_algebroid_maps() {
        let lt = LeftTrivialization::new(So3, Chart::Cayley);
        let (a, b, c) = (rot(0.1, 0.2, 0.3), rot(-0.4, 0.5, 0.1), rot(0.7, 0.0, -0.6));
        assert!(morphism_defect(&lt, &(a, b), &(b, c)).unwrap() < 1e-15);
        assert!((algebroid_map(&lt, &a).unwrap() - Matrix3::identity()).norm() < 1e-15);
        assert!(morphism_defect(&lt, &(a, b), &(c, a)).is_err());

        let aq = AtiyahQuotient::<So3, 2, 3>::new(So3, Chart::Exp);
        let q = |x: f64, r: Matrix3<f64>| (Vector2::new(x, -x), r);
        let (p0, p1, p2) = (q(0.0, a), q(1.0, b), q(0.5, c));
        assert!(morphism_defect::<_, 5, 5>(&aq, &(p0, p1), &(p1, p2)).unwrap() < 1e-15);
        let am = algebroid_map::<_, 5, 5>(&aq, &p0).unwrap();
        assert!((am - SMatrix::<f64, 5, 5>::identity()).norm() < 1e-15);
        let g = ((p0.0, p0.1), (p1.0, p1.1));
        let back = aq.reconstruct(&a, &GroupoidMorphism::<5, 5>::map::<f64>(&aq, &g));
        assert!((back.1.1 - b).norm() < 1e-15 && back.1.0 == p1.0);

        let ar = AdvectedReduction::new(SphereRotation, Vector3::z(), Chart::Exp);
        assert!(morphism_defect(&ar, &(a, b), &(b, c)).unwrap() < 1e-15);
        assert!((algebroid_map(&ar, &a).unwrap() - Matrix3::identity()).norm() < 1e-15);
    }

    /// `ℓ(Γ, W) = |log W|²/(2h) − h γ·Γ` on the action groupoid, and its unreduced version.
    struct Top;
    impl DiscreteLagrangian<ActionGroupoid<SphereRotation>, 3> for Top {
        #[inline]
        fn eval<S: Scalar>(&self, _: &ActionGroupoid<SphereRotation>, g: &(Vector3<S>, Matrix3<S>)) -> S {
            let w = so3::log(&g.1);
            let chi = Vector3::new(0.1, 0.2, 1.0).map(S::from);
            w.dot(&w.component_mul(&Vector3::new(1.0, 1.5, 2.0).map(S::from))) * S::from(5.0)
                - g.0.dot(&chi) * S::from(0.1)
        }
    }

    #[test]
    fn legendre_transforms_are_carried_by_the_algebroid_map() {
        let ar = AdvectedReduction::new(SphereRotation, Vector3::z(), Chart::Exp);
        let pulled = Pullback::new(ar, Top);
        let g = (rot(0.3, -0.2, 0.5), rot(0.4, 0.1, 0.0));
        let pg = *ar.source_groupoid();
        let red = GroupoidMorphism::<3, 3>::map::<f64>(&ar, &g);
        let ag = *ar.target_groupoid();
        assert!((legendre_plus(&pg, &pulled, &g) - legendre_plus(&ag, &Top, &red)).norm() < 1e-14);
        assert!((legendre_minus(&pg, &pulled, &g) - legendre_minus(&ag, &Top, &red)).norm() < 1e-14);
        assert!(lagrangian_defect(&ar, &pulled, &Top, &g) < 1e-15);
        // one DEL step commutes with Ψ
        let (up, _) = DiscreteFlow::new(pg, pulled).step(&g).unwrap();
        let (down, _) = DiscreteFlow::new(ag, Top).step(&red).unwrap();
        let image = GroupoidMorphism::<3, 3>::map::<f64>(&ar, &up);
        assert!(element_distance(&ag, &image, &down).unwrap() < 1e-13);
    }
}
