//! The discrete Noether theorem for (constrained) discrete Lagrangian systems on Lie groupoids
//! (docs/math.md §C.5; Marrero, Martín de Diego & Stern, *Symplectic groupoids and discrete
//! constrained Lagrangian mechanics*, 2015, arXiv:1103.6250, §4).
//!
//! A Lie group `K` (algebra `k = R^D`) acts on `G ⇉ Q` by groupoid automorphisms (for the pair
//! groupoid: diagonally, `(x, y) ↦ (Φ_k x, Φ_k y)`), and `X_ξ` is the induced section of `AG` for
//! `ξ ∈ k` (pair groupoid: `X_ξ(x) = ξ_Q(x)`, the infinitesimal generator). The generator of the
//! induced action on `G` is `X_ξ^← − X_ξ^→` (pair groupoid: `(ξ_Q(x), ξ_Q(y))`). If `L̂` and the
//! constraints are invariant, then along every solution `(g_k, λ_k)` of the constrained dynamics
//!
//! ```text
//! J(g_k, λ_k)(ξ) := F^+L(g_k, λ_k)(X_ξ) = F^-L(g_{k+1}, λ_{k+1})(X_ξ)
//! ```
//!
//! is independent of `k`: the first equality is the definition, the second is the dynamics, and
//! `F^+L(g)(X_ξ) − F^-L(g)(X_ξ) = (X_ξ^← − X_ξ^→)(L̂ + λ·φ)(g) = 0` is the invariance
//! ([`invariance_defect`]). In coordinates `J_i = Σ_a F^+L(g, λ)_a X_{e_i}(β(g))^a`, with the
//! section in the fibre coordinates of the groupoid's chart ([`InfinitesimalSymmetry::section`]).
//!
//! * Pair groupoid, diagonal action ([`PairDiagonal`]): `J_k = ⟨D_2L̂(q_{k−1},q_k) + λ·D_2φ, ξ_Q(q_k)⟩`.
//! * Pair groupoid of a Lie group with the left-trivialized chart `exp_g(ξ) = (g, g τ(ξ))`
//!   ([`crate::PairOfGroup`]): right multiplications `g ↦ g s` and, on abelian factors,
//!   translations have constant sections ([`ConstantSection`]); anything else can be given as a
//!   closure ([`FnSection`]).

use crate::constraints::{Augmented, Constraints, SigmaPoint, amax, jacobian_at_zero};
use crate::groupoid::LieGroupoid;
use crate::lagrangian::{
    AdGroupoid, Arrow, DiscreteLagrangian, GroupoidFamily, GroupoidLift, legendre_minus, legendre_plus,
};
use crate::pair::PairGroupoid;
use geom_core::action::GroupAction;
use geom_core::lie::LieGroup;
use nalgebra::{SMatrix, SVector};
use num_dual::DualSVec64;

/// The infinitesimal sections `X_ξ`, `ξ ∈ k = R^D`, of a symmetry acting by groupoid
/// automorphisms (docs/math.md §C.5).
pub trait InfinitesimalSymmetry<Gd: GroupoidFamily<R>, const R: usize, const D: usize>: Send + Sync {
    /// `X_{e_i}(x)` for the basis `e_i` of `k`, as the columns of an `R × D` matrix in the fibre
    /// coordinates at `x` (the basis `e_a` of [`LieGroupoid::fibre_exp`] at `x`).
    fn section(&self, groupoid: &Gd, x: &Gd::Base<f64>) -> SMatrix<f64, R, D>;
}

/// The diagonal action `(x, y) ↦ (Φ_k x, Φ_k y)` on the pair groupoid of `R^N` of a `geom-core`
/// [`GroupAction`] on `R^N` (vector tangents): `X_ξ(x) = ξ_Q(x)` (the fibre chart of
/// [`PairGroupoid`] is `exp_x(v) = (x, x + v)`, so fibre coordinates are ambient vectors).
///
/// ```
/// use geom_core::action::RotationAction;
/// use groupoid::PairGroupoid;
/// use groupoid::noether::{InfinitesimalSymmetry, PairDiagonal};
/// use nalgebra::Vector3;
/// let x = Vector3::new(1.0, 0.0, 0.0);
/// let s = PairDiagonal(RotationAction).section(&PairGroupoid::<3>, &x);
/// assert_eq!(s.column(2).into_owned(), Vector3::new(0.0, 1.0, 0.0)); // e3 × x
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairDiagonal<A>(pub A);

impl<A, const N: usize, const D: usize> InfinitesimalSymmetry<PairGroupoid<N>, N, D> for PairDiagonal<A>
where
    A: GroupAction<f64, D, Point = SVector<f64, N>, Tangent = SVector<f64, N>>,
    A::Group: LieGroup<f64, D>,
{
    fn section(&self, _groupoid: &PairGroupoid<N>, x: &SVector<f64, N>) -> SMatrix<f64, N, D> {
        SMatrix::from_fn(|a, i| {
            let e = SVector::<f64, D>::from_fn(|j, _| if i == j { 1.0 } else { 0.0 });
            self.0.infinitesimal_generator(&e, x)[a]
        })
    }
}

/// A section with constant fibre coordinates, `X_{e_i}(x) = column i` for every `x`: e.g.
/// translations of `R^n`, or right multiplications `g ↦ g s` on [`crate::PairOfGroup`] (whose
/// fibre chart is left-trivialized, so the generator `g ξ` of `g ↦ g exp(tξ)` has coordinates `ξ`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConstantSection<const R: usize, const D: usize>(pub SMatrix<f64, R, D>);

impl<Gd: GroupoidFamily<R>, const R: usize, const D: usize> InfinitesimalSymmetry<Gd, R, D> for ConstantSection<R, D> {
    fn section(&self, _groupoid: &Gd, _x: &Gd::Base<f64>) -> SMatrix<f64, R, D> {
        self.0
    }
}

/// A section given by a closure `x ↦ [X_{e_1}(x) … X_{e_D}(x)]` (fibre coordinates).
#[derive(Clone, Copy)]
pub struct FnSection<F>(pub F);

impl<F> std::fmt::Debug for FnSection<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FnSection(..)")
    }
}

impl<Gd, F, const R: usize, const D: usize> InfinitesimalSymmetry<Gd, R, D> for FnSection<F>
where
    Gd: GroupoidFamily<R>,
    F: Fn(&Gd::Base<f64>) -> SMatrix<f64, R, D> + Send + Sync,
{
    fn section(&self, _groupoid: &Gd, x: &Gd::Base<f64>) -> SMatrix<f64, R, D> {
        (self.0)(x)
    }
}

/// The discrete momentum map of an unconstrained `L`,
/// `J(g)_i = F^+L(g)(X_{e_i}) = ⟨F^+L(g), X_{e_i}(β(g))⟩` (docs/math.md §C.5).
pub fn momentum_map<Gd, L, Y, const R: usize, const D: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    symmetry: &Y,
    g: &Arrow<Gd, R>,
) -> SVector<f64, D>
where
    Gd: AdGroupoid<R>,
    L: DiscreteLagrangian<Gd, R>,
    Y: InfinitesimalSymmetry<Gd, R, D>,
{
    let x = LieGroupoid::<f64, R>::target(groupoid, g);
    symmetry.section(groupoid, &x).tr_mul(&legendre_plus(groupoid, lagrangian, g))
}

/// The same pairing with `F^-L`: `⟨F^-L(g), X_{e_i}(α(g))⟩`. Along a solution
/// `momentum_map_minus(g_{k+1}) = momentum_map(g_k)` (the DEL), and for invariant `L` both agree at
/// every `g` ([`invariance_defect`]).
pub fn momentum_map_minus<Gd, L, Y, const R: usize, const D: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    symmetry: &Y,
    g: &Arrow<Gd, R>,
) -> SVector<f64, D>
where
    Gd: AdGroupoid<R>,
    L: DiscreteLagrangian<Gd, R>,
    Y: InfinitesimalSymmetry<Gd, R, D>,
{
    let x = LieGroupoid::<f64, R>::source(groupoid, g);
    symmetry.section(groupoid, &x).tr_mul(&legendre_minus(groupoid, lagrangian, g))
}

/// The constrained discrete momentum map `J(g, λ)(ξ) = F^+L(g, λ)(X_ξ) = X_ξ^←(g)(L̂ + λ·φ)`
/// (docs/math.md §C.5).
pub fn constrained_momentum_map<Gd, L, C, Y, const R: usize, const K: usize, const D: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    constraints: &C,
    symmetry: &Y,
    point: &SigmaPoint<Arrow<Gd, R>, K>,
) -> SVector<f64, D>
where
    Gd: AdGroupoid<R>,
    L: DiscreteLagrangian<Gd, R>,
    C: Constraints<Gd, R, K>,
    Y: InfinitesimalSymmetry<Gd, R, D>,
{
    momentum_map(groupoid, &Augmented::new(lagrangian, constraints, point.lambda), symmetry, &point.g)
}

/// `max_i |(X_{e_i}^← − X_{e_i}^→)(L)(g)|`: the derivative of `L` along the generators of the
/// induced action on `G` (docs/math.md §C.5); zero at every `g` iff `L` is infinitesimally
/// invariant.
pub fn invariance_defect<Gd, L, Y, const R: usize, const D: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    symmetry: &Y,
    g: &Arrow<Gd, R>,
) -> f64
where
    Gd: AdGroupoid<R>,
    L: DiscreteLagrangian<Gd, R>,
    Y: InfinitesimalSymmetry<Gd, R, D>,
{
    let d = momentum_map(groupoid, lagrangian, symmetry, g) - momentum_map_minus(groupoid, lagrangian, symmetry, g);
    amax(d.iter())
}

/// `max_{a, i} |(X_{e_i}^← − X_{e_i}^→)(φ^a)(g)|`: the invariance defect of each constraint
/// function (zero for `K`-invariant `φ`; docs/math.md §C.5 asks for invariant `φ^a`, or at least
/// `N`).
pub fn constraint_invariance_defect<Gd, C, Y, const R: usize, const K: usize, const D: usize>(
    groupoid: &Gd,
    constraints: &C,
    symmetry: &Y,
    g: &Arrow<Gd, R>,
) -> f64
where
    Gd: AdGroupoid<R>,
    C: Constraints<Gd, R, K>,
    Y: InfinitesimalSymmetry<Gd, R, D>,
{
    type D1<const R: usize> = DualSVec64<R>;
    let g1 = GroupoidLift::<D1<R>, R>::lift(groupoid, g);
    let left = jacobian_at_zero(|xi: SVector<D1<R>, R>| {
        constraints.eval::<D1<R>>(groupoid, &LieGroupoid::<D1<R>, R>::left_curve(groupoid, &g1, &xi))
    });
    let right = jacobian_at_zero(|eta: SVector<D1<R>, R>| {
        constraints.eval::<D1<R>>(groupoid, &LieGroupoid::<D1<R>, R>::right_curve(groupoid, &g1, &eta))
    });
    let xb = symmetry.section(groupoid, &LieGroupoid::<f64, R>::target(groupoid, g));
    let xa = symmetry.section(groupoid, &LieGroupoid::<f64, R>::source(groupoid, g));
    let d: SMatrix<f64, K, D> = left * xb - right * xa;
    amax(d.iter())
}

/// The outcome of [`check_conservation`].
#[derive(Debug, Clone, PartialEq)]
pub struct Conservation<const D: usize> {
    /// `J_k = J(g_k, λ_k)` along the trajectory.
    pub momenta: Vec<SVector<f64, D>>,
    /// `max_k |J_k − J_1|_∞`.
    pub max_drift: f64,
    /// `max_k |F^+L(g_k, λ_k)(X) − F^-L(g_{k+1}, λ_{k+1})(X)|_∞`: the two expressions of the theorem
    /// (their difference is the DEL residual paired with `X_ξ`).
    pub max_mismatch: f64,
}

/// Evaluate the constrained momentum map along `trajectory` (a solution of
/// [`crate::constraints::ConstrainedFlow`]) and measure its drift (docs/math.md §C.5). For an
/// unconstrained system pass [`crate::constraints::NoConstraints`] and zero-length multipliers.
pub fn check_conservation<Gd, L, C, Y, const R: usize, const K: usize, const D: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    constraints: &C,
    symmetry: &Y,
    trajectory: &[SigmaPoint<Arrow<Gd, R>, K>],
) -> Conservation<D>
where
    Gd: AdGroupoid<R>,
    L: DiscreteLagrangian<Gd, R>,
    C: Constraints<Gd, R, K>,
    Y: InfinitesimalSymmetry<Gd, R, D>,
{
    let momenta: Vec<SVector<f64, D>> =
        trajectory.iter().map(|p| constrained_momentum_map(groupoid, lagrangian, constraints, symmetry, p)).collect();
    let max_drift = momenta.first().map_or(0.0, |j0| momenta.iter().map(|j| amax((j - j0).iter())).fold(0.0, f64::max));
    let max_mismatch = trajectory
        .windows(2)
        .zip(&momenta)
        .map(|(w, j)| {
            let minus =
                momentum_map_minus(groupoid, &Augmented::new(lagrangian, constraints, w[1].lambda), symmetry, &w[1].g);
            amax((j - minus).iter())
        })
        .fold(0.0, f64::max);
    Conservation { momenta, max_drift, max_mismatch }
}

/// `max_k |J_k − J_0|_∞` of a sequence of momenta (0 if empty).
pub fn momentum_drift<const D: usize>(momenta: &[SVector<f64, D>]) -> f64 {
    momenta.first().map_or(0.0, |j0| momenta.iter().map(|j| amax((j - j0).iter())).fold(0.0, f64::max))
}
