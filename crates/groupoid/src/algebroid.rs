//! Lie algebroids `AG → Q` of the ready-made groupoids, in coordinates, with a public checker of
//! the algebroid axioms (docs/math.md §C.8.1–C.8.2; Marrero, Martín de Diego & Martínez,
//! *Discrete Lagrangian and Hamiltonian mechanics on Lie groupoids*, 2006, arXiv:math/0506299,
//! §2).
//!
//! # Coordinates
//!
//! The fibre chart of the groupoid (`LieGroupoid::fibre_exp`) fixes a global basis of sections
//! `e_a(x) = T_0 exp_x(e_a)`, `a = 1..R`. A [`LieAlgebroid<R, M>`] adds local coordinates
//! `u ∈ R^M` of the base centred at a point `x_0`, the **base chart** `x = φ_{x_0}(u)`,
//! `φ_{x_0}(0) = x_0`. A section is `X = X^a(u) e_a`; the algebroid is given by
//!
//! * the anchor `ρ(e_a) = ρ^i_a(u) ∂/∂u^i` ([`LieAlgebroid::anchor`], an `M × R` matrix);
//! * the structure functions `[e_a, e_b] = C^c_ab(u) e_c` ([`LieAlgebroid::structure`],
//!   `C[c][(a, b)] = C^c_ab`);
//!
//! and the bracket of two sections is
//!
//! ```text
//!     [X, Y]^c = ρ(X)(Y^c) − ρ(Y)(X^c) + C^c_ab X^a Y^b,     ρ(X)(f) = ρ^i_a X^a ∂f/∂u^i
//! ```
//!
//! ([`bracket_formula`], the default of [`LieAlgebroid::bracket`]).
//!
//! # Convention (docs/math.md §C.2, §C.8.1)
//!
//! The bracket of the algebroid of a groupoid is that of the **left-invariant** vector fields,
//! `[X, Y]^← = [X^←, Y^←]`, and the anchor is `ρ = Tβ|_{AG}`. With this convention `ρ` is a Lie
//! algebra morphism. On a Lie group the bracket is `ad` of `geom_core::lie` (the matrix
//! commutator); on an action groupoid of the right action `x · h = Φ(h^{-1}, x)` the anchor is
//! the right-action generator `ξ_M = −ξ^Φ`, which is a morphism (the left-action generator
//! `ξ^Φ` is an anti-morphism, and fails [`check_algebroid`]).
//!
//! | groupoid | `AG`, rank `R`, base dim `M` | base chart `φ_{x_0}(u)` | anchor `ρ^i_a(u)` | `C^c_ab` |
//! | --- | --- | --- | --- | --- |
//! | [`PairGroupoid<N>`] | `TR^N`, `N`, `N` | `x_0 + u` | `δ^i_a` | `0` |
//! | [`PairOfGroup<G>`] | `TG` (left-trivialized), `D`, `D` | `x_0 τ(u)` | `(dτ_{−u})^{-1}` | constants of `g` |
//! | [`GroupAsGroupoid<G>`] | `g`, `D`, `0` | `()` | none | constants of `g` |
//! | [`SpherePair`] | `TS²`, `2`, `2` | `N(x_0 + E(x_0) u)` (gnomonic) | the frame `E_a(x)` in the chart | `C^1_12 = −C^1_21 = −x_k/\|e_k × x\|`, else `0` |
//! | [`ActionGroupoid<A>`] | `M × h`, `D`, `dim M` | `x_0 + u` (gnomonic on `S²`) | `ξ_M = −ξ^Φ` in the chart | constants of `h` |
//! | [`ActionGroupoid<LeftMultiplication<G>>`] | `G × g`, `D`, `D` | `x_0 τ(u)` | `−(dτ_{−u})^{-1} Ad_{x^{-1}}`, `x = x_0 τ(u)` | constants of `g` |
//! | [`ActionGroupoid<RightMultiplication<G>>`] | `G × g`, `D`, `D` | `x_0 τ(u)` | `(dτ_{−u})^{-1}` | constants of `g` |
//! | [`TrivialAtiyah<G, M, D>`] | `TR^M ⊕ g`, `M + D`, `M` | `x_0 + u` | `[I_M \| 0]` | constants of `g` on the `g` block |
//!
//! The action groupoids with the chart `x_0 + u` are those of [`RotationAction`], [`RigidMotion`],
//! [`Translation<N>`], [`LinearAction<N, D>`] and [`Diagonal<RotationAction, 3, K, N>`](Diagonal)
//! (`K` points of `R³` rotated together, `ρ(e_a)(q) = (−e_a × q_k)_k`); the gnomonic one is
//! [`SphereRotation`]. On `S²` (both rows) `E(x)` is the frame of [`SpherePair::frame`], `k` the
//! axis of the smallest `|x_k|`, and `δu = E(x_0)ᵀ(w − x (x_0 · w)/(x · x_0))/(x · x_0)` are the
//! chart coordinates of a tangent vector `w` at `x`. On a group, a tangent vector `x η`
//! (left-trivialized `η`) has the chart coordinates `δu = (dτ_{−u})^{-1} η`.
//!
//! Structure constants of a group: `C^c_ab = (ad_{e_a} e_b)^c` ([`structure_constants`]).
//!
//! # Checks
//!
//! * [`check_algebroid`]: on random polynomial-trigonometric sections `X, Y, Z` and functions
//!   `f` at random points of the chart, antisymmetry, the Jacobi identity
//!   `[X, [Y, Z]] + [Y, [Z, X]] + [Z, [X, Y]] = 0`, the Leibniz rule
//!   `[X, fY] = f[X, Y] + ρ(X)(f) Y`, and that the anchor is a morphism
//!   `ρ([X, Y]) = [ρX, ρY]` (vector-field bracket). All derivatives (second derivatives of the
//!   sections inside Jacobi) are exact, by forward AD.
//! * [`check_groupoid_algebroid`]: that the coordinate formulas are those of the groupoid: the
//!   anchor against `∂/∂t φ^{-1}_{x_0}(β(exp_x(t e_a)))` ([`anchor_from_groupoid`]) and the
//!   structure functions against the bracket of the left-invariant vector fields in the fibre
//!   chart ([`structure_from_groupoid`]), both by AD of the groupoid's own operations.

use crate::action_groupoid::ActionGroupoid;
use crate::atiyah::TrivialAtiyah;
use crate::groupoid::LieGroupoid;
use crate::lagrangian::{AdGroupoid, GroupoidFamily, GroupoidLift};
use crate::lie_group::GroupAsGroupoid;
use crate::pair::PairGroupoid;
use crate::pair_manifold::{PairOfGroup, SpherePair, tau_or_nan};
use geom_core::action::{
    Diagonal, GroupAction, LeftMultiplication, LinearAction, RightMultiplication, RigidMotion, RotationAction,
    SphereRotation, Translation,
};
use geom_core::lie::{ChartAt, EveryScalarChart, Gl, GroupChart, LieGroup, LieGroupFamily, Rn, Se3, So3};
use geom_core::scalar::AdScalar;
use geom_core::{GeomError, Result, Scalar};
use nalgebra::{SMatrix, SVector, Vector2, Vector3};
use num_dual::{DualSVec64, HyperDualSVec64};

/// Structure functions `C^c_ab` at one point: `c[c][(a, b)] = C^c_ab`, i.e.
/// `[e_a, e_b] = Σ_c C^c_ab e_c`.
pub type StructureFunctions<S, const R: usize> = [SMatrix<S, R, R>; R];

/// A Lie algebroid of rank `R` over a base of dimension `M`, in a local basis of sections `e_a`
/// and local coordinates `u` of the base (module documentation): the vector bundle (its rank
/// `R`, its base points `Base<S>`), the anchor `ρ^i_a(u)` and the structure functions
/// `C^c_ab(u)`. Every method is generic over the scalar, so the checks differentiate exactly.
///
/// Implemented for the algebroids of the ready-made groupoids; a user's algebroid implements
/// [`GroupoidFamily`] (its `Base<S>`; the `Element<S>` of a groupoid that integrates it, or `()`)
/// and this trait, and validates it with [`check_algebroid`].
pub trait LieAlgebroid<const R: usize, const M: usize>: GroupoidFamily<R> {
    /// Name, e.g. `"TR^3"`.
    fn algebroid_name(&self) -> String;
    /// The rank `R` of the vector bundle `AG` (its fibre dimension).
    fn rank(&self) -> usize {
        R
    }
    /// The dimension `M` of the base.
    fn base_dimension(&self) -> usize {
        M
    }
    /// The base chart `x = φ_{x_0}(u)` centred at `x_0` (`φ_{x_0}(0) = x_0`).
    fn base_chart<S: Scalar>(&self, x0: &Self::Base<f64>, u: &SVector<S, M>) -> Self::Base<S>;
    /// Its inverse `u = φ_{x_0}^{-1}(x)`; [`GeomError::OutsideDomain`] outside the chart.
    fn base_chart_inv<S: Scalar>(&self, x0: &Self::Base<f64>, x: &Self::Base<S>) -> Result<SVector<S, M>>;
    /// The anchor `ρ^i_a` at `φ_{x_0}(u)`: column `a` is `ρ(e_a)` in the coordinates `u`.
    fn anchor<S: Scalar>(&self, x0: &Self::Base<f64>, u: &SVector<S, M>) -> Result<SMatrix<S, M, R>>;
    /// The structure functions `C^c_ab` at `φ_{x_0}(u)` ([`StructureFunctions`]).
    fn structure<S: Scalar>(&self, x0: &Self::Base<f64>, u: &SVector<S, M>) -> Result<StructureFunctions<S, R>>;
    /// The bracket `[X, Y]` at `φ_{x_0}(u)` from the values `x = X(u)`, `y = Y(u)` and Jacobians
    /// `dx[(a, i)] = ∂X^a/∂u^i`, `dy` of two sections:
    /// `[X, Y]^c = (dy ρ x)^c − (dx ρ y)^c + C^c_ab x^a y^b` ([`bracket_formula`]).
    #[allow(clippy::too_many_arguments)]
    fn bracket<S: Scalar>(
        &self,
        x0: &Self::Base<f64>,
        u: &SVector<S, M>,
        x: &SVector<S, R>,
        dx: &SMatrix<S, R, M>,
        y: &SVector<S, R>,
        dy: &SMatrix<S, R, M>,
    ) -> Result<SVector<S, R>> {
        let rho = self.anchor(x0, u)?;
        let c = self.structure(x0, u)?;
        Ok(bracket_formula(&rho, &c, x, dx, y, dy))
    }
}

/// `[X, Y]^c = (dy ρ x)^c − (dx ρ y)^c + Σ_ab C^c_ab x^a y^b`: the bracket of two sections from
/// their values and Jacobians (`dx[(a, i)] = ∂X^a/∂u^i`), the anchor `ρ` (`M × R`) and the
/// structure functions `C` at one point.
pub fn bracket_formula<S: Scalar, const R: usize, const M: usize>(
    rho: &SMatrix<S, M, R>,
    c: &StructureFunctions<S, R>,
    x: &SVector<S, R>,
    dx: &SMatrix<S, R, M>,
    y: &SVector<S, R>,
    dy: &SMatrix<S, R, M>,
) -> SVector<S, R> {
    let mut out = dy * (rho * x) - dx * (rho * y);
    for (k, ck) in c.iter().enumerate() {
        out[k] += x.dot(&(ck * y));
    }
    out
}

/// The structure constants of a Lie group's algebra in the conventions of `geom_core::lie`:
/// `C^c_ab = (ad_{e_a} e_b)^c = [e_a, e_b]^c` (the matrix commutator; on SO(3)
/// `[e_a, e_b] = e_a × e_b`, `C^c_ab = ε_abc`).
pub fn structure_constants<S: Scalar, G: LieGroup<S, D> + ?Sized, const D: usize>(
    group: &G,
) -> StructureFunctions<S, D> {
    let mut c = [SMatrix::<S, D, D>::zeros(); D];
    for a in 0..D {
        let ad = group.ad(&SVector::<S, D>::from_fn(|i, _| if i == a { S::from(1.0) } else { S::from(0.0) }));
        for (k, ck) in c.iter_mut().enumerate() {
            for b in 0..D {
                ck[(a, b)] = ad[(k, b)];
            }
        }
    }
    c
}

// ---------------------------------------------------------------------------------------------
// The algebroids of the ready-made groupoids.

/// `A(R^N × R^N) = TR^N`: `φ_{x_0}(u) = x_0 + u`, `ρ = I` (`ρ(e_a) = ∂/∂u^a`), `C = 0`.
impl<const N: usize> LieAlgebroid<N, N> for PairGroupoid<N> {
    fn algebroid_name(&self) -> String {
        format!("TR^{N}")
    }
    /// `x_0 + u`.
    fn base_chart<S: Scalar>(&self, x0: &SVector<f64, N>, u: &SVector<S, N>) -> SVector<S, N> {
        x0.map(S::from) + u
    }
    /// `x − x_0`.
    fn base_chart_inv<S: Scalar>(&self, x0: &SVector<f64, N>, x: &SVector<S, N>) -> Result<SVector<S, N>> {
        Ok(x - x0.map(S::from))
    }
    /// `ρ = I`.
    fn anchor<S: Scalar>(&self, _x0: &SVector<f64, N>, _u: &SVector<S, N>) -> Result<SMatrix<S, N, N>> {
        Ok(SMatrix::identity())
    }
    /// `C = 0` (coordinate vector fields commute).
    fn structure<S: Scalar>(&self, _x0: &SVector<f64, N>, _u: &SVector<S, N>) -> Result<StructureFunctions<S, N>> {
        Ok([SMatrix::zeros(); N])
    }
}

/// `A(G × G) = TG` in the left-invariant frame `e_a(g) = g ξ_a`: `φ_{x_0}(u) = x_0 τ(u)`
/// (`τ` the groupoid's chart), `ρ^i_a(u) = ((dτ_{−u})^{-1})_{ia}` (from
/// `τ(u)^{-1} Dτ(u) δu = dτ_{−u} δu`, docs/math.md §0.4), `C^c_ab = [e_a, e_b]^c` (left-invariant
/// fields bracket like the algebra).
impl<G: LieGroupFamily<D>, C: EveryScalarChart<G, D> + GroupChart<f64, G, D>, const D: usize> LieAlgebroid<D, D>
    for PairOfGroup<G, C>
{
    fn algebroid_name(&self) -> String {
        format!("T{} (left-trivialized)", LieGroup::<f64, D>::name(self.group()))
    }
    /// `x_0 τ(u)`.
    fn base_chart<S: Scalar>(&self, x0: &G::ElementAt<f64>, u: &SVector<S, D>) -> G::ElementAt<S> {
        group_chart(self.group(), self.chart(), x0, u)
    }
    /// `τ^{-1}(x_0^{-1} x)`.
    fn base_chart_inv<S: Scalar>(&self, x0: &G::ElementAt<f64>, x: &G::ElementAt<S>) -> Result<SVector<S, D>> {
        group_chart_inv(self.group(), self.chart(), x0, x)
    }
    /// `(dτ_{−u})^{-1}`.
    fn anchor<S: Scalar>(&self, _x0: &G::ElementAt<f64>, u: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        self.chart().dtau_inv_at(self.group(), &(-u))
    }
    /// The structure constants of `g` ([`structure_constants`]).
    fn structure<S: Scalar>(&self, _x0: &G::ElementAt<f64>, _u: &SVector<S, D>) -> Result<StructureFunctions<S, D>> {
        Ok(structure_constants(&self.group().at::<S>()))
    }
}

/// The chart `x = x_0 τ(u)` of a group centred at `x_0` (`τ` the groupoid's chart; an element of
/// NaNs where `τ` fails). A tangent vector at `x` with left-trivialized coordinates `η`
/// (`δx = x η`) has chart coordinates `δu = (dτ_{−u})^{-1} η`, since
/// `τ(u)^{-1} Dτ(u) δu = dτ_{−u} δu` (docs/math.md §0.4).
fn group_chart<G: LieGroupFamily<D>, C: EveryScalarChart<G, D>, S: Scalar, const D: usize>(
    group: &G,
    chart: C,
    x0: &G::ElementAt<f64>,
    u: &SVector<S, D>,
) -> G::ElementAt<S> {
    let g = group.at::<S>();
    g.compose(&group.map_scalar(x0, &S::from), &tau_or_nan(&g, &ChartAt::new(chart, group), u))
}

/// The inverse `u = τ^{-1}(x_0^{-1} x)` of [`group_chart`].
fn group_chart_inv<G: LieGroupFamily<D>, C: EveryScalarChart<G, D>, S: Scalar, const D: usize>(
    group: &G,
    chart: C,
    x0: &G::ElementAt<f64>,
    x: &G::ElementAt<S>,
) -> Result<SVector<S, D>> {
    let g = group.at::<S>();
    chart.tau_inv_at(group, &g.compose(&g.inverse(&group.map_scalar(x0, &S::from)), x))
}

/// `A(G ⇉ {e}) = g` over a point (`M = 0`): no anchor (`ρ = 0`), `C^c_ab = [e_a, e_b]^c`.
impl<G: LieGroupFamily<D>, C: GroupChart<f64, G, D>, const D: usize> LieAlgebroid<D, 0> for GroupAsGroupoid<G, C> {
    fn algebroid_name(&self) -> String {
        format!("Lie algebra of {}", LieGroup::<f64, D>::name(self.group()))
    }
    fn base_chart<S: Scalar>(&self, _x0: &(), _u: &SVector<S, 0>) {}
    fn base_chart_inv<S: Scalar>(&self, _x0: &(), _x: &()) -> Result<SVector<S, 0>> {
        Ok(SVector::zeros())
    }
    /// `ρ = 0` (a `0 × D` matrix).
    fn anchor<S: Scalar>(&self, _x0: &(), _u: &SVector<S, 0>) -> Result<SMatrix<S, 0, D>> {
        Ok(SMatrix::zeros())
    }
    /// The structure constants of `g` ([`structure_constants`]).
    fn structure<S: Scalar>(&self, _x0: &(), _u: &SVector<S, 0>) -> Result<StructureFunctions<S, D>> {
        Ok(structure_constants(&self.group().at::<S>()))
    }
}

/// Compile-time check `R = M + D` of the Atiyah algebroid.
#[inline(always)]
fn atiyah_rank<const M: usize, const D: usize, const R: usize>() {
    const { assert!(R == M + D, "TrivialAtiyah<G, M, D> has an algebroid of rank R = M + D only") }
}

/// `A((R^M × R^M) × G) = TR^M ⊕ g`, fibre coordinates `(v, ξ)`: `φ_{x_0}(u) = x_0 + u`,
/// `ρ(v, ξ) = v` (`ρ = [I_M | 0]`), and `C` the structure constants of `g` on the `ξ` block
/// (`[∂_i, ∂_j] = 0`, `[∂_i, ξ] = 0`).
impl<G: LieGroupFamily<D>, C: GroupChart<f64, G, D>, const M: usize, const D: usize, const R: usize> LieAlgebroid<R, M>
    for TrivialAtiyah<G, M, D, C>
{
    fn algebroid_name(&self) -> String {
        atiyah_rank::<M, D, R>();
        format!("TR^{M} + Lie algebra of {}", LieGroup::<f64, D>::name(self.group()))
    }
    /// `x_0 + u`.
    fn base_chart<S: Scalar>(&self, x0: &SVector<f64, M>, u: &SVector<S, M>) -> SVector<S, M> {
        x0.map(S::from) + u
    }
    /// `x − x_0`.
    fn base_chart_inv<S: Scalar>(&self, x0: &SVector<f64, M>, x: &SVector<S, M>) -> Result<SVector<S, M>> {
        Ok(x - x0.map(S::from))
    }
    /// `[I_M | 0]`.
    fn anchor<S: Scalar>(&self, _x0: &SVector<f64, M>, _u: &SVector<S, M>) -> Result<SMatrix<S, M, R>> {
        atiyah_rank::<M, D, R>();
        Ok(SMatrix::from_fn(|i, a| if i == a { S::from(1.0) } else { S::from(0.0) }))
    }
    /// `C^{M+c}_{M+a, M+b} = [e_a, e_b]^c`, all other components `0`.
    fn structure<S: Scalar>(&self, _x0: &SVector<f64, M>, _u: &SVector<S, M>) -> Result<StructureFunctions<S, R>> {
        atiyah_rank::<M, D, R>();
        let g = structure_constants(&self.group().at::<S>());
        let mut c = [SMatrix::<S, R, R>::zeros(); R];
        for (k, gk) in g.iter().enumerate() {
            c[M + k].fixed_view_mut::<D, D>(M, M).copy_from(gk);
        }
        Ok(c)
    }
}

/// The action algebroid `M × h` of an action on a vector space `M = R^K` with the chart
/// `φ_{x_0}(u) = x_0 + u`: `ρ(e_a)(x) = ξ_M(x) = −ξ_a^Φ(x)` (the right-action generator, as a
/// column of the anchor), `C` the structure constants of `h`.
macro_rules! vector_action_algebroid {
    ([$($gen:tt)*] $action:ty, $group:expr, $d:tt, $k:tt) => {
        impl<$($gen)*> LieAlgebroid<$d, $k> for ActionGroupoid<$action> {
            fn algebroid_name(&self) -> String {
                format!("action algebroid of {}", GroupAction::<f64, $d>::name(self.action()))
            }
            /// `x_0 + u`.
            fn base_chart<S: Scalar>(&self, x0: &SVector<f64, $k>, u: &SVector<S, $k>) -> SVector<S, $k> {
                x0.map(S::from) + u
            }
            /// `x − x_0`.
            fn base_chart_inv<S: Scalar>(&self, x0: &SVector<f64, $k>, x: &SVector<S, $k>) -> Result<SVector<S, $k>> {
                Ok(x - x0.map(S::from))
            }
            /// Column `a`: `ξ_M(x) = −ξ^Φ_a(x)` at `x = x_0 + u` (the right-action generator).
            fn anchor<S: Scalar>(&self, x0: &SVector<f64, $k>, u: &SVector<S, $k>) -> Result<SMatrix<S, $k, $d>> {
                let x = x0.map(S::from) + u;
                let mut rho = SMatrix::<S, $k, $d>::zeros();
                for a in 0..$d {
                    let e = SVector::<S, $d>::from_fn(|i, _| if i == a { S::from(-1.0) } else { S::from(0.0) });
                    rho.set_column(a, &GroupAction::<S, $d>::infinitesimal_generator(self.action(), &e, &x));
                }
                Ok(rho)
            }
            /// The structure constants of `h` ([`structure_constants`]).
            fn structure<S: Scalar>(&self, _x0: &SVector<f64, $k>, _u: &SVector<S, $k>) -> Result<StructureFunctions<S, $d>> {
                Ok(structure_constants::<S, _, $d>(&$group))
            }
        }
    };
}
vector_action_algebroid!([] RotationAction, So3, 3, 3);
vector_action_algebroid!([] RigidMotion, Se3, 6, 3);
vector_action_algebroid!([const N: usize] Translation<N>, Rn::<N>, N, N);
vector_action_algebroid!([const N: usize, const D: usize] LinearAction<N, D>, Gl::<N, D>, D, N);
vector_action_algebroid!([const K: usize, const N: usize] Diagonal<RotationAction, 3, K, N>, So3, 3, N);

/// The action algebroid `G × g` of a group acting on itself by left multiplication
/// `Φ_h(g) = h g`, i.e. of the right action `x · h = h^{-1} x`, with the chart
/// `φ_{x_0}(u) = x_0 τ(u)` of [`PairOfGroup`] (`τ` the groupoid's chart). The right-action
/// generator is the right-invariant field `ξ_M(x) = d/dt τ(tξ)^{-1} x|_0 = −ξ x`, left-trivialized
/// `−Ad_{x^{-1}} ξ`, hence
///
/// ```text
///     ρ(u) = −(dτ_{−u})^{-1} Ad_{x^{-1}},     x = x_0 τ(u),
/// ```
///
/// and `C^c_ab = [e_a, e_b]^c`, the structure constants of `g` (the right-invariant fields bracket
/// like `−[ξ, η]`, so `−ξ x` is a morphism).
impl<G, C, const D: usize> LieAlgebroid<D, D> for ActionGroupoid<LeftMultiplication<G>, C>
where
    G: LieGroupFamily<D>,
    C: EveryScalarChart<G, D> + GroupChart<f64, G, D>,
{
    fn algebroid_name(&self) -> String {
        format!("action algebroid of {}", GroupAction::<f64, D>::name(self.action()))
    }
    /// `x_0 τ(u)`.
    fn base_chart<S: Scalar>(&self, x0: &G::ElementAt<f64>, u: &SVector<S, D>) -> G::ElementAt<S> {
        group_chart(GroupAction::<f64, D>::group(self.action()), self.chart(), x0, u)
    }
    /// `τ^{-1}(x_0^{-1} x)`.
    fn base_chart_inv<S: Scalar>(&self, x0: &G::ElementAt<f64>, x: &G::ElementAt<S>) -> Result<SVector<S, D>> {
        group_chart_inv(GroupAction::<f64, D>::group(self.action()), self.chart(), x0, x)
    }
    /// `−(dτ_{−u})^{-1} Ad_{x^{-1}}` at `x = x_0 τ(u)`.
    fn anchor<S: Scalar>(&self, x0: &G::ElementAt<f64>, u: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        let group = GroupAction::<f64, D>::group(self.action());
        let g = group.at::<S>();
        let x = group_chart(group, self.chart(), x0, u);
        Ok(-(self.chart().dtau_inv_at(group, &(-u))? * g.adjoint(&g.inverse(&x))))
    }
    /// The structure constants of `g` ([`structure_constants`]).
    fn structure<S: Scalar>(&self, _x0: &G::ElementAt<f64>, _u: &SVector<S, D>) -> Result<StructureFunctions<S, D>> {
        Ok(structure_constants(&GroupAction::<f64, D>::group(self.action()).at::<S>()))
    }
}

/// The action algebroid `G × g` of a group acting on itself by right multiplication
/// `Φ_h(g) = g h^{-1}`, i.e. of the right action `x · h = x h`, with the chart
/// `φ_{x_0}(u) = x_0 τ(u)`. The right-action generator is the left-invariant field
/// `ξ_M(x) = x ξ` (left-trivialized `ξ`), hence `ρ(u) = (dτ_{−u})^{-1}` and `C^c_ab = [e_a, e_b]^c`:
/// the algebroid of [`PairOfGroup<G>`], to which the groupoid is isomorphic by
/// `(x, h) ↦ (x, x h)`.
impl<G, C, const D: usize> LieAlgebroid<D, D> for ActionGroupoid<RightMultiplication<G>, C>
where
    G: LieGroupFamily<D>,
    C: EveryScalarChart<G, D> + GroupChart<f64, G, D>,
{
    fn algebroid_name(&self) -> String {
        format!("action algebroid of {}", GroupAction::<f64, D>::name(self.action()))
    }
    /// `x_0 τ(u)`.
    fn base_chart<S: Scalar>(&self, x0: &G::ElementAt<f64>, u: &SVector<S, D>) -> G::ElementAt<S> {
        group_chart(GroupAction::<f64, D>::group(self.action()), self.chart(), x0, u)
    }
    /// `τ^{-1}(x_0^{-1} x)`.
    fn base_chart_inv<S: Scalar>(&self, x0: &G::ElementAt<f64>, x: &G::ElementAt<S>) -> Result<SVector<S, D>> {
        group_chart_inv(GroupAction::<f64, D>::group(self.action()), self.chart(), x0, x)
    }
    /// `(dτ_{−u})^{-1}`.
    fn anchor<S: Scalar>(&self, _x0: &G::ElementAt<f64>, u: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        self.chart().dtau_inv_at(GroupAction::<f64, D>::group(self.action()), &(-u))
    }
    /// The structure constants of `g` ([`structure_constants`]).
    fn structure<S: Scalar>(&self, _x0: &G::ElementAt<f64>, _u: &SVector<S, D>) -> Result<StructureFunctions<S, D>> {
        Ok(structure_constants(&GroupAction::<f64, D>::group(self.action()).at::<S>()))
    }
}

/// The gnomonic chart `φ_{x_0}(u) = N(x_0 + E u)` of `S²` centred at `x_0`, `E = E(x_0)` the
/// frame of [`SpherePair::frame`].
fn gnomonic<S: Scalar>(x0: &Vector3<f64>, u: &Vector2<S>) -> Vector3<S> {
    let (e1, e2) = SpherePair::frame(x0);
    let y = x0.map(S::from) + e1.map(S::from) * u[0] + e2.map(S::from) * u[1];
    y / y.norm()
}

/// [`gnomonic`] for the anchor and the structure functions of [`SpherePair`]'s algebroid, checked:
/// [`GeomError::NonFinite`] for a non-finite `x_0` or `u`, [`GeomError::OutsideDomain`] for
/// `|u|_∞ > 1e8`. In `y = x_0 + E u` the component along `x_0` (of size 1) keeps a relative
/// accuracy of about `ε |u|`, and with it `x · x_0 = 1/|y|`, by which the anchor divides twice:
/// beyond `|u| = 1e8 ≈ ε^{-1/2}` fewer than half the digits are left, beyond `|u| ≈ 1/ε` none
/// (`x` is then computed on the equator of `x_0`, the chart's boundary, and the anchor divides
/// by zero), and beyond `1e154` `|y|` overflows.
fn gnomonic_checked<S: Scalar>(x0: &Vector3<f64>, u: &Vector2<S>) -> Result<Vector3<S>> {
    if !(x0.iter().all(|v| v.is_finite()) && u.iter().all(|v| v.re().is_finite())) {
        return Err(GeomError::NonFinite { what: "gnomonic chart of S^2 (base point or coordinates)" });
    }
    if u.iter().any(|v| v.re().abs() > 1e8) {
        return Err(GeomError::OutsideDomain {
            map: "gnomonic chart of S^2",
            reason: "|u| > 1e8: x0 + E u has lost the digits of x0 (the chart's numerical domain)",
        });
    }
    Ok(gnomonic(x0, u))
}

/// The inverse `u = Eᵀ x/(x · x_0)` of [`gnomonic`]; [`GeomError::OutsideDomain`] unless
/// `x · x_0 > 0`.
fn gnomonic_inv<S: Scalar>(x0: &Vector3<f64>, x: &Vector3<S>) -> Result<Vector2<S>> {
    let (e1, e2) = SpherePair::frame(x0);
    let d = x.dot(&x0.map(S::from));
    if d.re().is_nan() || d.re() <= 0.0 {
        return Err(GeomError::OutsideDomain { map: "gnomonic chart of S^2", reason: "x . x0 <= 0" });
    }
    Ok(Vector2::new(x.dot(&e1.map(S::from)), x.dot(&e2.map(S::from))) / d)
}

/// The gnomonic coordinates `δu = Eᵀ(w − x (x_0 · w)/(x · x_0))/(x · x_0)` of a tangent vector
/// `w` at `x` (the derivative of [`gnomonic_inv`]).
fn gnomonic_tangent<S: Scalar>(x0: &Vector3<f64>, x: &Vector3<S>, w: &Vector3<S>) -> Vector2<S> {
    let (e1, e2) = SpherePair::frame(x0);
    let x0s = x0.map(S::from);
    let d = x.dot(&x0s);
    let t = (w - x * (x0s.dot(w) / d)) / d;
    Vector2::new(t.dot(&e1.map(S::from)), t.dot(&e2.map(S::from)))
}

/// `A(S² × S²) = TS²` in the moving frame of the fibre chart, `e_a(x) = T_0 exp_x(e_a) = E_a(x)`
/// ([`SpherePair::frame`]: `E_1 = k × x/|k × x|`, `E_2 = x × E_1/|x|`, `k` the axis of the smallest
/// `|x_k|`), with the gnomonic chart `φ_{x_0}(u) = N(x_0 + E(x_0) u)` of the heavy top's algebroid.
///
/// * Anchor: column `a` is the gnomonic coordinates of `E_a(x)`,
///   `ρ^i_a(u) = E(x_0)ᵀ(E_a(x) − x (x_0 · E_a(x))/(x · x_0))/(x · x_0)` at `x = φ_{x_0}(u)`
///   (`ρ(0) = I`; not the identity elsewhere, the frame `E(x)` is not the chart's coordinate
///   frame).
/// * Structure functions: the frame is the spherical frame about the pole `k`, `E_1 = φ̂` and
///   `E_2 = −θ̂` with `cos θ = k · x`; from `θ̂ = ∂_θ`, `φ̂ = ∂_φ/sin θ`,
///   `[E_1, E_2] = [θ̂, φ̂] = −cot θ E_1`, i.e.
///
/// ```text
///     C^1_12 = −C^1_21 = −x_k/|k × x|,     all other C^c_ab = 0.
/// ```
impl LieAlgebroid<2, 2> for SpherePair {
    fn algebroid_name(&self) -> String {
        "TS^2".into()
    }
    /// `N(x_0 + E(x_0) u)`.
    fn base_chart<S: Scalar>(&self, x0: &Vector3<f64>, u: &Vector2<S>) -> Vector3<S> {
        gnomonic(x0, u)
    }
    /// `E(x_0)ᵀ x/(x · x_0)`; [`GeomError::OutsideDomain`] unless `x · x_0 > 0`.
    fn base_chart_inv<S: Scalar>(&self, x0: &Vector3<f64>, x: &Vector3<S>) -> Result<Vector2<S>> {
        gnomonic_inv(x0, x)
    }
    /// Column `a`: the gnomonic coordinates of `E_a(x)` at `x = φ_{x_0}(u)`. Errors:
    /// [`GeomError::NonFinite`] for a non-finite `x_0` or `u`; [`GeomError::OutsideDomain`]
    /// for `|u|_∞ > 1e8`, where `x_0 + E u` has lost the digits of `x_0` (at `|u| ≈ 1/ε` the
    /// point falls on the chart's boundary and the anchor divides by zero; at `1e300` it
    /// overflows).
    fn anchor<S: Scalar>(&self, x0: &Vector3<f64>, u: &Vector2<S>) -> Result<SMatrix<S, 2, 2>> {
        let x = gnomonic_checked(x0, u)?;
        let (f1, f2) = SpherePair::frame(&x);
        let mut rho = SMatrix::<S, 2, 2>::zeros();
        rho.set_column(0, &gnomonic_tangent(x0, &x, &f1));
        rho.set_column(1, &gnomonic_tangent(x0, &x, &f2));
        Ok(rho)
    }
    /// `C^1_12 = −C^1_21 = −x_k/|k × x|` at `x = φ_{x_0}(u)`, all other components `0`; the
    /// errors of [`LieAlgebroid::anchor`] for a non-finite `x_0`, `u` or `|u|_∞ > 1e8`.
    fn structure<S: Scalar>(&self, x0: &Vector3<f64>, u: &Vector2<S>) -> Result<StructureFunctions<S, 2>> {
        let x = gnomonic_checked(x0, u)?;
        let k = SpherePair::frame_axis(&x);
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        let cot = x[k] / (x[i] * x[i] + x[j] * x[j]).sqrt();
        let mut c = [SMatrix::<S, 2, 2>::zeros(); 2];
        c[0][(0, 1)] = -cot;
        c[0][(1, 0)] = cot;
        Ok(c)
    }
}

/// The heavy top's action algebroid `S² × so(3)` of [`SphereRotation`], with the gnomonic chart
/// `φ_{x_0}(u) = N(x_0 + E u)`, `E = E(x_0)` the frame of [`SpherePair::frame`], inverse
/// `u = Eᵀ x/(x · x_0)` (defined for `x · x_0 > 0`). A tangent vector `w` at `x` has coordinates
/// `δu = Eᵀ(w − x (x_0 · w)/(x · x_0))/(x · x_0)`. Anchor: `ρ(e_a)(x) = ξ_M(x) = −e_a × x` in
/// these coordinates; `C^c_ab = ε_abc`.
impl LieAlgebroid<3, 2> for ActionGroupoid<SphereRotation> {
    fn algebroid_name(&self) -> String {
        "action algebroid S^2 x so(3)".into()
    }
    /// `N(x_0 + E(x_0) u)`.
    fn base_chart<S: Scalar>(&self, x0: &Vector3<f64>, u: &Vector2<S>) -> Vector3<S> {
        gnomonic(x0, u)
    }
    /// `Eᵀ x/(x · x_0)`; [`GeomError::OutsideDomain`] unless `x · x_0 > 0`.
    fn base_chart_inv<S: Scalar>(&self, x0: &Vector3<f64>, x: &Vector3<S>) -> Result<Vector2<S>> {
        gnomonic_inv(x0, x)
    }
    /// Column `a`: the coordinates of `−e_a × x` at `x = φ_{x_0}(u)`.
    fn anchor<S: Scalar>(&self, x0: &Vector3<f64>, u: &Vector2<S>) -> Result<SMatrix<S, 2, 3>> {
        let x = gnomonic(x0, u);
        let mut rho = SMatrix::<S, 2, 3>::zeros();
        for a in 0..3 {
            let e = Vector3::<S>::from_fn(|i, _| if i == a { S::from(-1.0) } else { S::from(0.0) });
            let w = GroupAction::<S, 3>::infinitesimal_generator(self.action(), &e, &x);
            rho.set_column(a, &gnomonic_tangent(x0, &x, &w));
        }
        Ok(rho)
    }
    /// `C^c_ab = ε_abc` ([`structure_constants`] of SO(3)).
    fn structure<S: Scalar>(&self, _x0: &Vector3<f64>, _u: &Vector2<S>) -> Result<StructureFunctions<S, 3>> {
        Ok(structure_constants::<S, _, 3>(&So3))
    }
}

// ---------------------------------------------------------------------------------------------
// Sections, their brackets, and the checks.

/// A local section `X = X^a(u) e_a` of an algebroid of rank `R` over a base of dimension `M`,
/// written once over the scalar (its components in the basis `e_a`, as functions of the base
/// coordinates `u`).
pub trait LocalSection<const R: usize, const M: usize>: Send + Sync {
    /// `X^a(u)`.
    fn eval<S: Scalar>(&self, u: &SVector<S, M>) -> SVector<S, R>;
}

/// A function `f(u)` on the base, written once over the scalar.
pub trait LocalFunction<const M: usize>: Send + Sync {
    /// `f(u)`.
    fn eval<S: Scalar>(&self, u: &SVector<S, M>) -> S;
}

/// The value and Jacobian `(X(u), ∂X^a/∂u^i)` of a section at a point of scalar `S` (exact: one
/// evaluation at `S::Up`, e.g. `DualSVec64<M>` for `S = f64`).
pub fn section_jet<X, S, const R: usize, const M: usize>(
    section: &X,
    u: &SVector<S, M>,
) -> (SVector<S, R>, SMatrix<S, R, M>)
where
    X: LocalSection<R, M> + ?Sized,
    S: AdScalar<M>,
{
    let up = SVector::<S::Up, M>::from_fn(|i, _| u[i].up_seeded(i));
    let r = section.eval::<S::Up>(&up);
    let mut d = SMatrix::<S, R, M>::zeros();
    for a in 0..R {
        d.set_row(a, &S::gradient(&r[a]).transpose());
    }
    (section.eval::<S>(u), d)
}

/// `[X, Y]` at `φ_{x_0}(u)` for a point `u` of scalar `S` (the jets by AD, then
/// [`LieAlgebroid::bracket`]).
fn bracket_at<A, X, Y, S, const R: usize, const M: usize>(
    alg: &A,
    x0: &A::Base<f64>,
    x: &X,
    y: &Y,
    u: &SVector<S, M>,
) -> Result<SVector<S, R>>
where
    A: LieAlgebroid<R, M> + ?Sized,
    X: LocalSection<R, M> + ?Sized,
    Y: LocalSection<R, M> + ?Sized,
    S: AdScalar<M>,
{
    let (xv, xd) = section_jet(x, u);
    let (yv, yd) = section_jet(y, u);
    alg.bracket(x0, u, &xv, &xd, &yv, &yd)
}

/// The bracket `[X, Y](u)` of two local sections (exact derivatives by AD).
pub fn section_bracket<A, X, Y, const R: usize, const M: usize>(
    alg: &A,
    x0: &A::Base<f64>,
    x: &X,
    y: &Y,
    u: &SVector<f64, M>,
) -> Result<SVector<f64, R>>
where
    A: LieAlgebroid<R, M> + ?Sized,
    X: LocalSection<R, M> + ?Sized,
    Y: LocalSection<R, M> + ?Sized,
{
    bracket_at(alg, x0, x, y, u)
}

/// The vector field `ρ(X)(u) = ρ^i_a(u) X^a(u)` on the base, in the coordinates `u`.
pub fn anchor_field<A, X, const R: usize, const M: usize>(
    alg: &A,
    x0: &A::Base<f64>,
    x: &X,
    u: &SVector<f64, M>,
) -> Result<SVector<f64, M>>
where
    A: LieAlgebroid<R, M> + ?Sized,
    X: LocalSection<R, M> + ?Sized,
{
    Ok(alg.anchor(x0, u)? * x.eval(u))
}

/// `u + ε` seeded in every direction (`DualSVec64<M>`).
fn seeded<const M: usize>(u: &SVector<f64, M>) -> SVector<DualSVec64<M>, M> {
    SVector::from_fn(|i, _| <f64 as AdScalar<M>>::up_seeded(u[i], i))
}

/// Value and Jacobian of a `DualSVec64<M>`-valued vector.
fn split_jet<const K: usize, const M: usize>(v: &SVector<DualSVec64<M>, K>) -> (SVector<f64, K>, SMatrix<f64, K, M>) {
    let mut d = SMatrix::<f64, K, M>::zeros();
    for k in 0..K {
        d.set_row(k, &<f64 as AdScalar<M>>::gradient(&v[k]).transpose());
    }
    (v.map(|c| c.re), d)
}

/// A section with polynomial and trigonometric components,
/// `X^a(u) = c^a + B^a_i u^i + u^T Q_a u + s^a sin(k · u)` (the random sections of the checks).
#[derive(Debug, Clone)]
struct TestSection<const R: usize, const M: usize> {
    c: SVector<f64, R>,
    b: SMatrix<f64, R, M>,
    q: [SMatrix<f64, M, M>; R],
    s: SVector<f64, R>,
    k: SVector<f64, M>,
}

impl<const R: usize, const M: usize> LocalSection<R, M> for TestSection<R, M> {
    #[inline]
    fn eval<S: Scalar>(&self, u: &SVector<S, M>) -> SVector<S, R> {
        let phase = u.dot(&self.k.map(S::from)).sin();
        let lin = self.b.map(S::from) * u;
        SVector::from_fn(|a, _| {
            S::from(self.c[a]) + lin[a] + u.dot(&(self.q[a].map(S::from) * u)) + S::from(self.s[a]) * phase
        })
    }
}

/// `f(u) = f_0 + w · u + u^T P u + cos(k · u)` (the random functions of the checks).
#[derive(Debug, Clone)]
struct TestFunction<const M: usize> {
    f0: f64,
    w: SVector<f64, M>,
    p: SMatrix<f64, M, M>,
    k: SVector<f64, M>,
}

impl<const M: usize> LocalFunction<M> for TestFunction<M> {
    #[inline]
    fn eval<S: Scalar>(&self, u: &SVector<S, M>) -> S {
        S::from(self.f0)
            + u.dot(&self.w.map(S::from))
            + u.dot(&(self.p.map(S::from) * u))
            + u.dot(&self.k.map(S::from)).cos()
    }
}

/// `f Y`.
struct Scaled<'a, F, Y>(&'a F, &'a Y);

impl<F: LocalFunction<M>, Y: LocalSection<R, M>, const R: usize, const M: usize> LocalSection<R, M>
    for Scaled<'_, F, Y>
{
    #[inline]
    fn eval<S: Scalar>(&self, u: &SVector<S, M>) -> SVector<S, R> {
        self.1.eval(u) * self.0.eval(u)
    }
}

/// A deterministic uniform generator on `[-1, 1]` (SplitMix64), so that the checks are
/// reproducible.
#[derive(Debug, Clone)]
pub(crate) struct Uniform(u64);

impl Uniform {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub(crate) fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    pub(crate) fn vector<const K: usize>(&mut self, scale: f64) -> SVector<f64, K> {
        SVector::from_fn(|_, _| self.next() * scale)
    }
    fn matrix<const A: usize, const B: usize>(&mut self, scale: f64) -> SMatrix<f64, A, B> {
        SMatrix::from_fn(|_, _| self.next() * scale)
    }
    fn section<const R: usize, const M: usize>(&mut self) -> TestSection<R, M> {
        TestSection {
            c: self.vector(1.0),
            b: self.matrix(1.0),
            q: core::array::from_fn(|_| self.matrix(0.5)),
            s: self.vector(0.5),
            k: self.vector(1.5),
        }
    }
    fn function<const M: usize>(&mut self) -> TestFunction<M> {
        TestFunction { f0: self.next(), w: self.vector(1.0), p: self.matrix(0.5), k: self.vector(1.5) }
    }
}

/// Number of random sample points (each with its own random sections) of the checks.
pub const ALGEBROID_SAMPLES: usize = 6;
/// Radius of the ball of chart coordinates `u` the sample points are drawn from.
pub const ALGEBROID_SAMPLE_RADIUS: f64 = 0.2;
/// Tolerance of [`check_algebroid`] and [`check_groupoid_algebroid`] on relative defects
/// `|lhs − rhs|/(1 + |terms|)`. The derivatives are exact (AD), so the defects of a correct
/// algebroid are round-off (`~1e-15`); `1e-9` leaves room for ill-conditioned charts.
pub const ALGEBROID_TOLERANCE: f64 = 1e-9;

/// What [`check_algebroid`] measured: the largest relative defect of each identity over the
/// samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlgebroidReport {
    /// `|[X, Y] + [Y, X]|`.
    pub antisymmetry: f64,
    /// `|[X, [Y, Z]] + [Y, [Z, X]] + [Z, [X, Y]]|`.
    pub jacobi: f64,
    /// `|[X, fY] − f[X, Y] − ρ(X)(f) Y|`.
    pub leibniz: f64,
    /// `|ρ([X, Y]) − [ρX, ρY]|` (vector-field bracket on the base).
    pub anchor_morphism: f64,
}

/// `value <= tolerance`, false for NaN.
pub(crate) fn within(value: f64, tolerance: f64) -> bool {
    value <= tolerance
}

fn relative(defect: f64, scale: f64) -> f64 {
    if defect.is_finite() && scale.is_finite() { defect / (1.0 + scale) } else { f64::INFINITY }
}

fn fail(identity: &str, defect: f64, sample: usize) -> GeomError {
    GeomError::InvalidParameter {
        what: "Lie algebroid",
        reason: format!(
            "{identity} fails: relative defect {defect:.3e} > {ALGEBROID_TOLERANCE:.0e} at sample {sample}"
        ),
    }
}

/// Check the Lie algebroid axioms of `alg` in the chart centred at `x0` (module documentation):
/// at [`ALGEBROID_SAMPLES`] random points `u` (`|u| <= 0.2`), with random sections `X, Y, Z` and a
/// random function `f` drawn from `seed`,
///
/// * antisymmetry `[X, Y] = −[Y, X]`;
/// * the Leibniz rule `[X, fY] = f[X, Y] + ρ(X)(f) Y`;
/// * the anchor is a morphism, `ρ([X, Y]) = [ρX, ρY]` with `[U, V] = DV U − DU V`;
/// * the Jacobi identity `[X, [Y, Z]] + [Y, [Z, X]] + [Z, [X, Y]] = 0` (the Jacobian of `[Y, Z]`
///   by AD of the bracket at dual numbers, with the second derivatives of the sections at
///   hyper-dual numbers).
///
/// Returns the measured defects, or [`GeomError::InvalidParameter`] (`what = "Lie algebroid"`)
/// naming the first identity whose relative defect exceeds [`ALGEBROID_TOLERANCE`]; the errors of
/// the algebroid's own methods are passed on.
///
/// ```
/// use geom_core::lie::{Chart, So3};
/// use groupoid::algebroid::check_algebroid;
/// use groupoid::GroupAsGroupoid;
/// let report = check_algebroid::<_, 3, 0>(&GroupAsGroupoid::new(So3, Chart::Exp), &(), 1)?;
/// assert!(report.jacobi < 1e-14);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn check_algebroid<A, const R: usize, const M: usize>(
    alg: &A,
    x0: &A::Base<f64>,
    seed: u64,
) -> Result<AlgebroidReport>
where
    A: LieAlgebroid<R, M> + ?Sized,
{
    let mut rng = Uniform::new(seed);
    let mut report = AlgebroidReport { antisymmetry: 0.0, jacobi: 0.0, leibniz: 0.0, anchor_morphism: 0.0 };
    for sample in 0..ALGEBROID_SAMPLES {
        let u: SVector<f64, M> = rng.vector::<M>(1.0);
        let u = if u.norm() > 0.0 { u * (ALGEBROID_SAMPLE_RADIUS * rng.next().abs() / u.norm()) } else { u };
        let (x, y, z) = (rng.section::<R, M>(), rng.section::<R, M>(), rng.section::<R, M>());
        let f = rng.function::<M>();

        // antisymmetry
        let xy = section_bracket(alg, x0, &x, &y, &u)?;
        let yx = section_bracket(alg, x0, &y, &x, &u)?;
        let d = relative((xy + yx).norm(), xy.norm());
        report.antisymmetry = report.antisymmetry.max(d);
        if !within(d, ALGEBROID_TOLERANCE) {
            return Err(fail("antisymmetry [X, Y] = -[Y, X]", d, sample));
        }

        // Leibniz: [X, fY] = f [X, Y] + ρ(X)(f) Y
        let fy = Scaled(&f, &y);
        let lhs = section_bracket(alg, x0, &x, &fy, &u)?;
        let (_, grad_f) = num_dual::gradient(|w: SVector<DualSVec64<M>, M>| f.eval(&w), &u);
        let rho_x = anchor_field(alg, x0, &x, &u)?;
        let rhs = xy * f.eval(&u) + y.eval(&u) * grad_f.dot(&rho_x);
        let d = relative((lhs - rhs).norm(), lhs.norm().max(rhs.norm()));
        report.leibniz = report.leibniz.max(d);
        if !within(d, ALGEBROID_TOLERANCE) {
            return Err(fail("Leibniz rule [X, fY] = f[X, Y] + rho(X)(f) Y", d, sample));
        }

        // the anchor is a morphism: ρ([X, Y]) = [ρX, ρY]
        let ud = seeded(&u);
        let field = |p: &TestSection<R, M>| -> Result<(SVector<f64, M>, SMatrix<f64, M, M>)> {
            Ok(split_jet(&(alg.anchor(x0, &ud)? * p.eval(&ud))))
        };
        let ((ux, dux), (uy, duy)) = (field(&x)?, field(&y)?);
        let lhs = alg.anchor(x0, &u)? * xy;
        let rhs = duy * ux - dux * uy;
        let d = relative((lhs - rhs).norm(), lhs.norm().max(rhs.norm()));
        report.anchor_morphism = report.anchor_morphism.max(d);
        if !within(d, ALGEBROID_TOLERANCE) {
            return Err(fail("anchor morphism rho([X, Y]) = [rho X, rho Y]", d, sample));
        }

        // Jacobi: the 1-jets of [Y, Z], [Z, X], [X, Y] by AD of the bracket at dual numbers
        let jet = |p: &TestSection<R, M>, q: &TestSection<R, M>| -> Result<(SVector<f64, R>, SMatrix<f64, R, M>)> {
            Ok(split_jet(&bracket_at(alg, x0, p, q, &ud)?))
        };
        let (yz, zx, xy_jet) = (jet(&y, &z)?, jet(&z, &x)?, jet(&x, &y)?);
        let outer = |p: &TestSection<R, M>, w: &(SVector<f64, R>, SMatrix<f64, R, M>)| -> Result<SVector<f64, R>> {
            let (pv, pd) = section_jet(p, &u);
            alg.bracket(x0, &u, &pv, &pd, &w.0, &w.1)
        };
        let (t1, t2, t3) = (outer(&x, &yz)?, outer(&y, &zx)?, outer(&z, &xy_jet)?);
        let d = relative((t1 + t2 + t3).norm(), t1.norm().max(t2.norm()).max(t3.norm()));
        report.jacobi = report.jacobi.max(d);
        if !within(d, ALGEBROID_TOLERANCE) {
            return Err(fail("Jacobi identity", d, sample));
        }
    }
    Ok(report)
}

// ---------------------------------------------------------------------------------------------
// The algebroid of a groupoid, by differentiating the groupoid.

/// The anchor of a groupoid's algebroid by differentiating the groupoid:
/// `ρ^i_a(u) = ∂/∂t_a φ_{x_0}^{-1}(β(exp_x(t)))|_{t=0}`, `x = φ_{x_0}(u)` (`ρ = Tβ|_{AG}`,
/// docs/math.md §C.2), exact by forward AD. Errors where the base chart is undefined.
pub fn anchor_from_groupoid<Gd, const R: usize, const M: usize>(
    gd: &Gd,
    x0: &<Gd as GroupoidFamily<R>>::Base<f64>,
    u: &SVector<f64, M>,
) -> Result<SMatrix<f64, M, R>>
where
    Gd: AdGroupoid<R> + LieAlgebroid<R, M>,
{
    type Dv<const R: usize> = DualSVec64<R>;
    let x = gd.base_chart::<Dv<R>>(x0, &u.map(Dv::<R>::from_re));
    let t = seeded(&SVector::<f64, R>::zeros());
    let e = LieGroupoid::<Dv<R>, R>::fibre_exp(gd, &x, &t);
    let b = LieGroupoid::<Dv<R>, R>::target(gd, &e);
    let w = gd.base_chart_inv::<Dv<R>>(x0, &b)?;
    let (_, jac) = split_jet(&w);
    if jac.iter().all(|v| v.is_finite()) {
        Ok(jac)
    } else {
        Err(GeomError::NonFinite { what: "anchor of the groupoid" })
    }
}

/// The structure functions of a groupoid's algebroid at `x` by differentiating the groupoid:
/// in the fibre coordinates `w` of `α^{-1}(x)` (`g = exp_x(w)`), the left-invariant field of `e_b`
/// is `V_b(w) = ∂/∂t_b fibre_log(exp_x(w) · exp_{β}(t))|_{t=0}`, with `V_b(0) = e_b`; hence
/// `C^c_ab(x) = [V_a, V_b]^c(0) = ∂²F^c/∂w_a∂t_b − ∂²F^c/∂w_b∂t_a` for
/// `F(w, t) = fibre_log(left_curve(exp_x(w), t))` (one hyper-dual pass per `c`). Errors:
/// [`GeomError::NonFinite`] where `fibre_log` is undefined.
pub fn structure_from_groupoid<Gd, const R: usize>(
    gd: &Gd,
    x: &<Gd as GroupoidFamily<R>>::Base<f64>,
) -> Result<StructureFunctions<f64, R>>
where
    Gd: AdGroupoid<R>,
{
    type H<const R: usize> = HyperDualSVec64<R, R>;
    let xh = GroupoidLift::<H<R>, R>::lift_base(gd, x);
    let mut c = [SMatrix::<f64, R, R>::zeros(); R];
    for (k, ck) in c.iter_mut().enumerate() {
        let (_, _, _, mixed) = num_dual::partial_hessian(
            |(w, t): (SVector<H<R>, R>, SVector<H<R>, R>)| {
                let e = LieGroupoid::<H<R>, R>::fibre_exp(gd, &xh, &w);
                let moved = LieGroupoid::<H<R>, R>::left_curve(gd, &e, &t);
                match LieGroupoid::<H<R>, R>::fibre_log(gd, &moved) {
                    Ok(v) => v[k],
                    Err(_) => H::<R>::from(f64::NAN),
                }
            },
            (&SVector::zeros(), &SVector::zeros()),
        );
        *ck = mixed - mixed.transpose();
    }
    if c.iter().all(|m| m.iter().all(|v| v.is_finite())) {
        Ok(c)
    } else {
        Err(GeomError::NonFinite { what: "structure functions of the groupoid" })
    }
}

/// What [`check_groupoid_algebroid`] measured: the largest relative differences between the
/// coordinate formulas of [`LieAlgebroid`] and the derivatives of the groupoid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupoidAlgebroidReport {
    /// `max |ρ − ρ_groupoid|` ([`anchor_from_groupoid`]).
    pub anchor: f64,
    /// `max |C − C_groupoid|` ([`structure_from_groupoid`]).
    pub structure: f64,
}

/// Check that the algebroid of a ready-made (or a user's) groupoid is the one the groupoid
/// defines: at `x_0` and at [`ALGEBROID_SAMPLES`]` − 1` random points `u` of the chart, the anchor
/// against [`anchor_from_groupoid`] and the structure functions against
/// [`structure_from_groupoid`]. Returns the defects, or [`GeomError::InvalidParameter`]
/// (`what = "Lie algebroid of the groupoid"`) if one exceeds [`ALGEBROID_TOLERANCE`].
pub fn check_groupoid_algebroid<Gd, const R: usize, const M: usize>(
    gd: &Gd,
    x0: &<Gd as GroupoidFamily<R>>::Base<f64>,
    seed: u64,
) -> Result<GroupoidAlgebroidReport>
where
    Gd: AdGroupoid<R> + LieAlgebroid<R, M>,
{
    let mut rng = Uniform::new(seed);
    let mut report = GroupoidAlgebroidReport { anchor: 0.0, structure: 0.0 };
    for sample in 0..ALGEBROID_SAMPLES {
        let u: SVector<f64, M> =
            if sample == 0 { SVector::zeros() } else { rng.vector::<M>(ALGEBROID_SAMPLE_RADIUS / 2.0) };
        let rho = gd.anchor::<f64>(x0, &u)?;
        let rho_ref = anchor_from_groupoid(gd, x0, &u)?;
        let d = relative((rho - rho_ref).amax(), rho_ref.amax());
        report.anchor = report.anchor.max(d);
        let x = gd.base_chart::<f64>(x0, &u);
        let c = gd.structure::<f64>(x0, &u)?;
        let c_ref = structure_from_groupoid(gd, &x)?;
        let dc = (0..R).map(|k| (c[k] - c_ref[k]).amax()).fold(0.0, f64::max);
        let scale = c_ref.iter().map(|m| m.amax()).fold(0.0, f64::max);
        let dc = relative(dc, scale);
        report.structure = report.structure.max(dc);
        for (what, d) in [("anchor", d), ("structure functions", dc)] {
            if !within(d, ALGEBROID_TOLERANCE) {
                return Err(GeomError::InvalidParameter {
                    what: "Lie algebroid of the groupoid",
                    reason: format!(
                        "{what} differ from the derivatives of the groupoid by {d:.3e} > {ALGEBROID_TOLERANCE:.0e} at sample {sample}"
                    ),
                });
            }
        }
    }
    Ok(report)
}
