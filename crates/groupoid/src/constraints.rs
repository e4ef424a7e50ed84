//! Discrete constrained Lagrangian systems `(G, N, L)` (docs/math.md §C.4; Marrero, Martín de Diego
//! & Stern, *Symplectic groupoids and discrete constrained Lagrangian mechanics*, 2015,
//! arXiv:1103.6250, §3).
//!
//! The constraint submanifold is `N = {g ∈ G : φ^a(g) = 0, a = 1..K}` with the `dφ^a` independent on
//! `N`, and `L = L̂|_N` for a discrete Lagrangian `L̂` on `G`. The Lagrangian submanifold
//! `Σ_L = {dL̂(g) + λ_a dφ^a(g) : g ∈ N} ⊂ T*G` is an affine bundle over `N` modelled on the conormal
//! bundle; its points are pairs `(g, λ)` ([`SigmaPoint`]).
//!
//! * Legendre transforms ([`legendre_minus_constrained`], [`legendre_plus_constrained`]):
//!   `F^-L(g, λ)(X) = X^→(g)(L̂ + λ_a φ^a) ∈ A*_{α(g)}G`, `F^+L(g, λ)(X) = X^←(g)(L̂ + λ_a φ^a) ∈ A*_{β(g)}G`.
//! * Dynamics ([`ConstrainedFlow::step`]): `(g_k, λ_k) ↦ (g_{k+1}, λ_{k+1})` with `β(g_k) = α(g_{k+1})`,
//!
//!   ```text
//!   X^←(g_k)(L̂ + λ_k·φ) − X^→(g_{k+1})(L̂ + λ_{k+1}·φ) = 0   (R equations, one per basis section)
//!   φ(g_{k+1}) = 0                                          (K equations)
//!   ```
//!
//!   solved by geom-core's Newton on the `M = R + K` unknowns `(ξ, λ_{k+1})`,
//!   `g_{k+1} = exp_{β(g_k)}(ξ)` (the fibre chart), with the exact Jacobian: one
//!   `HyperDualSVec64<R, R>` evaluation of `L̂` and of the `φ^a` along
//!   `(ξ, η) ↦ i(exp(−η)) · exp_{β(g_k)}(ξ)` gives `X^→(g_{k+1})(L̂ + λ·φ)`, its `ξ`-derivative,
//!   `X^→(g_{k+1})(φ^a)` (the `λ`-column) and `∂φ/∂ξ` (the constraint rows) at once. The solver is
//!   [`newton_blocks`] with a single block of size `M` (a plain `M × M` LU), whose callback is
//!   told when no Jacobian is needed (the warm-start test): those evaluations use first-order
//!   duals (`DualSVec64<R>`) only.
//! * Regularity (Marrero et al. 2015, §3; docs/math.md §C.4): `(G, N, L)` is regular iff
//!   `F^-L: Σ_L → A*G` is a local diffeomorphism, iff the step Jacobian in `(g_{k+1}, λ_{k+1})` is
//!   nonsingular; [`ConstrainedFlow::regularity`] measures it (and the `F^+L` counterpart, Marrero
//!   et al. 2015, Thm 2.16).
//!
//! **Why a third const parameter `M`.** The step has `R + K` unknowns, and stable Rust cannot
//! write `SVector<f64, {R + K}>`. [`ConstrainedFlow`] and [`HolonomicFlow`] therefore carry
//! `const M: usize`, and every method asserts `M == R + K` at compile time (an inline `const`
//! block, evaluated at monomorphisation: a wrong `M` does not build). This keeps the whole step
//! on the stack (no heap allocation per step) and lets it use the fixed-size Newton with one
//! `M × M` LU per iteration. The alternatives were worse: splitting `(ξ, λ)` into the blocks of
//! `newton_blocks` needs blocks of equal size (`R ≠ K` in general; here it is used with one block
//! of size `M`), and `newton_dyn` allocates on every iteration.
//!
//! **The non-regular holonomic case** (docs/math.md §C.4 warning). Holonomic constraints `c(x) = 0`
//! on the base imposed as `N = S × S` (`φ = (c∘α, c∘β)`) are *not* regular: only the node
//! combination `Λ_k = λ²_k + λ¹_{k+1}` is determined. [`HolonomicFlow`] solves the SHAKE/RATTLE
//! form directly,
//!
//! ```text
//! X^←(g_k)(L̂ + Λ_k·(c∘β)) − X^→(g_{k+1})(L̂) = 0,     c(β(g_{k+1})) = 0,
//! ```
//!
//! on the pair groupoid `D_2L̂(q_{k−1}, q_k) + D_1L̂(q_k, q_{k+1}) + Λ_k·∇c(q_k) = 0`,
//! `c(q_{k+1}) = 0`, and exposes only the well-defined outputs: the positions (the arrows
//! `g_k`) and the momenta projected along the constraint normals
//! ([`HolonomicFlow::projected_momentum`]).

use crate::groupoid::LieGroupoid;
use crate::lagrangian::{AdGroupoid, Arrow, DiscreteLagrangian, GroupoidFamily, GroupoidLift, legendre_plus};
use geom_core::linalg::invert;
use geom_core::newton::{NewtonOptions, NewtonReport, newton_blocks};
use geom_core::{GeomError, Result, Scalar};
use nalgebra::{SMatrix, SVector};
use num_dual::{DualSVec64, HyperDualSVec64};

/// The hyper-dual scalar of the mixed second derivatives (`∂²/∂ξ∂η`, both of size `R`).
pub(crate) type Hd<const R: usize> = HyperDualSVec64<R, R>;

/// Elements of `Gd` at scalar `S`.
pub(crate) type ElementAt<Gd, const R: usize, S> = <Gd as GroupoidFamily<R>>::Element<S>;

/// Arrows `g` with `|φ(g)|_∞` above this are refused as initial data of a constrained step
/// ([`GeomError::OffManifold`], `what = "arrow off the constraint submanifold N"`).
pub const CONSTRAINT_TOLERANCE: f64 = 1e-8;

/// Constraint functions `φ = (φ^1, …, φ^K): G → R^K` defining `N = {φ = 0}` (docs/math.md §C.4),
/// written once and generic over the scalar like [`DiscreteLagrangian`] (exact derivatives by
/// num-dual).
///
/// ```
/// use geom_core::Scalar;
/// use groupoid::PairGroupoid;
/// use groupoid::constraints::Constraints;
/// use nalgebra::SVector;
///
/// /// Fixed time step `t1 − t0 − h = 0` on the extended space `R × R` (last coordinate = time).
/// struct FixedStep(f64);
/// impl Constraints<PairGroupoid<2>, 2, 1> for FixedStep {
///     fn eval<S: Scalar>(&self, _: &PairGroupoid<2>, g: &(SVector<S, 2>, SVector<S, 2>)) -> SVector<S, 1> {
///         SVector::from([g.1[1] - g.0[1] - S::from(self.0)])
///     }
/// }
/// let phi = FixedStep(0.1).eval::<f64>(&PairGroupoid::<2>, &(SVector::from([0.0, 1.0]), SVector::from([0.3, 1.1])));
/// assert!(phi[0].abs() < 1e-15);
/// ```
pub trait Constraints<Gd: GroupoidFamily<R>, const R: usize, const K: usize>: Send + Sync {
    /// `φ(g) ∈ R^K`.
    fn eval<S: Scalar>(&self, groupoid: &Gd, g: &Gd::Element<S>) -> SVector<S, K>;
}

/// No constraints (`K = 0`, `N = G`): the constrained machinery then reduces to the unconstrained
/// discrete Euler–Lagrange equations (Marrero et al. 2015, §3: for `N = G`, `Σ_L = dL(G)` and the
/// dynamics are those of its Thm 2.13).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoConstraints;

impl<Gd: GroupoidFamily<R>, const R: usize> Constraints<Gd, R, 0> for NoConstraints {
    #[inline]
    fn eval<S: Scalar>(&self, _groupoid: &Gd, _g: &Gd::Element<S>) -> SVector<S, 0> {
        SVector::zeros()
    }
}

/// A point `(g, λ)` of `Σ_L`: the covector `dL̂(g) + λ_a dφ^a(g)` over `g ∈ N` (docs/math.md §C.4).
#[derive(Debug, Clone, PartialEq)]
pub struct SigmaPoint<E, const K: usize> {
    /// The arrow `g ∈ N`.
    pub g: E,
    /// The Lagrange multipliers `λ ∈ R^K`.
    pub lambda: SVector<f64, K>,
}

impl<E, const K: usize> SigmaPoint<E, K> {
    /// `(g, λ)`.
    pub fn new(g: E, lambda: SVector<f64, K>) -> Self {
        Self { g, lambda }
    }
}

/// The augmented Lagrangian `L̂ + λ_a φ^a` at fixed multipliers, itself a [`DiscreteLagrangian`],
/// so that [`legendre_minus`](crate::legendre_minus), [`legendre_plus`] and
/// [`pairing_matrix`](crate::pairing_matrix) apply to it unchanged.
#[derive(Debug, Clone, Copy)]
pub struct Augmented<'a, L, C, const K: usize> {
    lagrangian: &'a L,
    constraints: &'a C,
    lambda: SVector<f64, K>,
}

impl<'a, L, C, const K: usize> Augmented<'a, L, C, K> {
    /// `L̂ + λ·φ`.
    pub fn new(lagrangian: &'a L, constraints: &'a C, lambda: SVector<f64, K>) -> Self {
        Self { lagrangian, constraints, lambda }
    }
}

impl<Gd, L, C, const R: usize, const K: usize> DiscreteLagrangian<Gd, R> for Augmented<'_, L, C, K>
where
    Gd: GroupoidFamily<R>,
    L: DiscreteLagrangian<Gd, R>,
    C: Constraints<Gd, R, K>,
{
    #[inline]
    fn eval<S: Scalar>(&self, groupoid: &Gd, g: &Gd::Element<S>) -> S {
        self.lagrangian.eval::<S>(groupoid, g) + self.lambda.map(S::from).dot(&self.constraints.eval::<S>(groupoid, g))
    }
}

/// `F^-L(g, λ)_a = X_a^→(g)(L̂ + λ·φ)` (docs/math.md §C.4), components in the fibre basis at
/// `α(g)`.
pub fn legendre_minus_constrained<Gd, L, C, const R: usize, const K: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    constraints: &C,
    point: &SigmaPoint<Arrow<Gd, R>, K>,
) -> SVector<f64, R>
where
    Gd: AdGroupoid<R>,
    L: DiscreteLagrangian<Gd, R>,
    C: Constraints<Gd, R, K>,
{
    crate::lagrangian::legendre_minus(groupoid, &Augmented::new(lagrangian, constraints, point.lambda), &point.g)
}

/// `F^+L(g, λ)_a = X_a^←(g)(L̂ + λ·φ)` (docs/math.md §C.4), components in the fibre basis at
/// `β(g)`.
pub fn legendre_plus_constrained<Gd, L, C, const R: usize, const K: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    constraints: &C,
    point: &SigmaPoint<Arrow<Gd, R>, K>,
) -> SVector<f64, R>
where
    Gd: AdGroupoid<R>,
    L: DiscreteLagrangian<Gd, R>,
    C: Constraints<Gd, R, K>,
{
    legendre_plus(groupoid, &Augmented::new(lagrangian, constraints, point.lambda), &point.g)
}

/// `|φ(g)|_∞`, the distance of `g` from `N` as measured by the constraint functions.
pub fn constraint_residual<Gd, C, const R: usize, const K: usize>(
    groupoid: &Gd,
    constraints: &C,
    g: &Arrow<Gd, R>,
) -> f64
where
    Gd: GroupoidFamily<R>,
    C: Constraints<Gd, R, K>,
{
    amax(constraints.eval::<f64>(groupoid, g).iter())
}

/// `max_i |v_i|` (0 for an empty iterator; `NaN` propagates as `+∞`).
pub(crate) fn amax<'a>(v: impl Iterator<Item = &'a f64>) -> f64 {
    v.fold(0.0, |m, x| if x.is_nan() { f64::INFINITY } else { m.max(x.abs()) })
}

/// `Ok(())` if `|φ(g)|_∞ <= CONSTRAINT_TOLERANCE`, else [`GeomError::NonFinite`] /
/// [`GeomError::OffManifold`].
pub(crate) fn check_on_n<Gd, C, const R: usize, const K: usize>(
    groupoid: &Gd,
    constraints: &C,
    g: &Arrow<Gd, R>,
) -> Result<()>
where
    Gd: GroupoidFamily<R>,
    C: Constraints<Gd, R, K>,
{
    let defect = constraint_residual(groupoid, constraints, g);
    if !defect.is_finite() {
        return Err(GeomError::NonFinite { what: "constraint functions at the initial arrow" });
    }
    if defect > CONSTRAINT_TOLERANCE {
        return Err(GeomError::OffManifold {
            what: "arrow off the constraint submanifold N",
            defect,
            tolerance: CONSTRAINT_TOLERANCE,
        });
    }
    Ok(())
}

/// Compile-time check `M = R + K` (evaluated at monomorphisation).
#[inline(always)]
pub(crate) const fn check_dims<const R: usize, const K: usize, const M: usize>() {
    const { assert!(M == R + K, "the number of step unknowns M must equal R + K (rank + number of constraints)") }
}

/// `u = (ξ, λ) ∈ R^{R+K}` split into its two blocks.
#[inline]
pub(crate) fn split<const R: usize, const K: usize, const M: usize>(
    u: &SVector<f64, M>,
) -> (SVector<f64, R>, SVector<f64, K>) {
    check_dims::<R, K, M>();
    (u.fixed_rows::<R>(0).into_owned(), u.fixed_rows::<K>(R).into_owned())
}

/// `(ξ, λ)` joined into `u ∈ R^{R+K}`.
#[inline]
pub(crate) fn join<const R: usize, const K: usize, const M: usize>(
    xi: &SVector<f64, R>,
    lambda: &SVector<f64, K>,
) -> SVector<f64, M> {
    check_dims::<R, K, M>();
    let mut u = SVector::<f64, M>::zeros();
    u.fixed_rows_mut::<R>(0).copy_from(xi);
    u.fixed_rows_mut::<K>(R).copy_from(lambda);
    u
}

/// The saddle-point matrix `[[A, B], [C, 0]]` (`A: R × R`, `B: R × K`, `C: K × R`) of size `M`.
#[inline]
pub(crate) fn saddle<const R: usize, const K: usize, const M: usize>(
    a: &SMatrix<f64, R, R>,
    b: &SMatrix<f64, R, K>,
    c: &SMatrix<f64, K, R>,
) -> SMatrix<f64, M, M> {
    check_dims::<R, K, M>();
    let mut m = SMatrix::<f64, M, M>::zeros();
    m.fixed_view_mut::<R, R>(0, 0).copy_from(a);
    m.fixed_view_mut::<R, K>(0, R).copy_from(b);
    m.fixed_view_mut::<K, R>(R, 0).copy_from(c);
    m
}

/// The 1-norm condition number `|A|_1 |A^{-1}|_1`; [`GeomError::SingularMatrix`] (`what`) if the LU
/// finds a vanishing pivot.
pub(crate) fn condition_number<const M: usize>(a: &SMatrix<f64, M, M>, what: &'static str) -> Result<f64> {
    if !a.iter().all(|v| v.is_finite()) {
        return Err(GeomError::NonFinite { what });
    }
    let inv = invert(a, what)?;
    let norm1 = |m: &SMatrix<f64, M, M>| m.column_iter().map(|c| c.abs().sum()).fold(0.0, f64::max);
    Ok(norm1(a) * norm1(&inv))
}

/// Values and first derivatives of `L̂ + λ·φ` and of `φ` along a two-parameter family
/// `(a, b) ↦ g(a, b)` of arrows, at `a = a0`, `b = 0`, read off one `HyperDualSVec64<R, R>`
/// evaluation.
pub(crate) struct MixedDerivatives<const R: usize, const K: usize> {
    /// `∂/∂b (L̂ + λ·φ)`.
    pub grad_b: SVector<f64, R>,
    /// `mixed[(i, j)] = ∂²(L̂ + λ·φ)/∂a_i∂b_j`.
    pub mixed: SMatrix<f64, R, R>,
    /// `φ` at the point.
    pub phi: SVector<f64, K>,
    /// `phi_a[(k, i)] = ∂φ^k/∂a_i`.
    pub phi_a: SMatrix<f64, K, R>,
    /// `phi_b[(i, k)] = ∂φ^k/∂b_i` (columns: the `λ`-columns of a step Jacobian).
    pub phi_b: SMatrix<f64, R, K>,
}

/// [`MixedDerivatives`] of the family `curve(a, b)` (built from the groupoid operations at the
/// hyper-dual scalar).
pub(crate) fn mixed_derivatives<Gd, L, C, const R: usize, const K: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    constraints: &C,
    lambda: &SVector<f64, K>,
    a0: &SVector<f64, R>,
    curve: impl Fn(&SVector<Hd<R>, R>, &SVector<Hd<R>, R>) -> ElementAt<Gd, R, Hd<R>>,
) -> MixedDerivatives<R, K>
where
    Gd: AdGroupoid<R>,
    L: DiscreteLagrangian<Gd, R>,
    C: Constraints<Gd, R, K>,
{
    let lam = lambda.map(Hd::<R>::from);
    let ((_, _, grad_b, mixed), phis) = num_dual::partial_hessian(
        |(a, b): (SVector<Hd<R>, R>, SVector<Hd<R>, R>)| {
            let g = curve(&a, &b);
            let phi = constraints.eval::<Hd<R>>(groupoid, &g);
            let f = lagrangian.eval::<Hd<R>>(groupoid, &g) + lam.dot(&phi);
            (f, core::array::from_fn::<Hd<R>, K, _>(|k| phi[k]))
        },
        (a0, &SVector::zeros()),
    );
    let mut out =
        MixedDerivatives { grad_b, mixed, phi: SVector::zeros(), phi_a: SMatrix::zeros(), phi_b: SMatrix::zeros() };
    for (k, (v, da, db, _)) in phis.into_iter().enumerate() {
        out.phi[k] = v;
        out.phi_a.set_row(k, &da.transpose());
        out.phi_b.set_column(k, &db);
    }
    out
}

/// `∂/∂b (L̂ + λ·φ)` and `φ` along a one-parameter family `b ↦ g(b)` at `b = 0` (one
/// `DualSVec64<R>` evaluation): the residual of a step without its Jacobian.
pub(crate) fn first_derivatives<Gd, L, C, const R: usize, const K: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    constraints: &C,
    lambda: &SVector<f64, K>,
    curve: impl Fn(&SVector<DualSVec64<R>, R>) -> ElementAt<Gd, R, DualSVec64<R>>,
) -> (SVector<f64, R>, SVector<f64, K>)
where
    Gd: AdGroupoid<R>,
    L: DiscreteLagrangian<Gd, R>,
    C: Constraints<Gd, R, K>,
{
    let lam = lambda.map(DualSVec64::<R>::from);
    let ((_, grad), phis) = num_dual::gradient(
        |b: SVector<DualSVec64<R>, R>| {
            let g = curve(&b);
            let phi = constraints.eval::<DualSVec64<R>>(groupoid, &g);
            let f = lagrangian.eval::<DualSVec64<R>>(groupoid, &g) + lam.dot(&phi);
            (f, core::array::from_fn::<DualSVec64<R>, K, _>(|k| phi[k]))
        },
        &SVector::zeros(),
    );
    (grad, SVector::from_fn(|k, _| phis[k].0))
}

/// One Newton solve on `M` unknowns through [`newton_blocks`] with a single block, whose residual
/// callback receives `Some(J)` only when a Jacobian is wanted (the warm start is tested without one).
pub(crate) fn solve_m<const M: usize>(
    mut eval: impl FnMut(&SVector<f64, M>, Option<&mut SMatrix<f64, M, M>>) -> Result<SVector<f64, M>>,
    u0: &SVector<f64, M>,
    opts: &NewtonOptions,
) -> Result<(SVector<f64, M>, NewtonReport)> {
    let (u, report) = newton_blocks::<M, 1>(|u, jac| Ok([eval(&u[0], jac.map(|j| &mut j[0][0]))?]), &[*u0], opts)?;
    Ok((u[0], report))
}

/// `∂f/∂a` at `a = 0` for `f: R^R → R^K` (`K × R`; forward AD with `DualSVec64<R>`), also for
/// `K = 0` (where `num_dual::jacobian` cannot build an empty matrix).
pub(crate) fn jacobian_at_zero<const R: usize, const K: usize>(
    f: impl Fn(SVector<DualSVec64<R>, R>) -> SVector<DualSVec64<R>, K>,
) -> SMatrix<f64, K, R> {
    if K == 0 {
        return SMatrix::zeros();
    }
    num_dual::jacobian(f, &SVector::zeros()).1
}

/// The step Jacobians of `(G, N, L)` at a point `(g, λ)` of `Σ_L` and their conditioning
/// (docs/math.md §C.4; Marrero et al. 2015, Thm 2.16 and §3).
///
/// * `minus`: the derivative of `(F^-L, φ)` with respect to `(ζ, λ)` along the `α`-fibre
///   `g · exp_{β(g)}(ζ)`, i.e. the Jacobian of the forward step system in `(g_{k+1}, λ_{k+1})`:
///   `[[∂_ζ X^→(L̂+λφ), X^→φ], [∂_ζ φ, 0]]`;
/// * `plus`: the same for `(F^+L, φ)` along the `β`-fibre `i(exp_{α(g)}(−η)) · g` (the backward step):
///   `[[∂_η X^←(L̂+λφ), X^←φ], [∂_η φ, 0]]`.
///
/// `(G, N, L)` is regular at `(g, λ)` iff `minus` is nonsingular, iff `plus` is (Marrero et al.
/// 2015, Thm 2.16: `F^-L` is a local diffeomorphism iff `F^+L` is).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepRegularity<const M: usize> {
    /// The forward step Jacobian (`F^-L`).
    pub minus: SMatrix<f64, M, M>,
    /// The backward step Jacobian (`F^+L`).
    pub plus: SMatrix<f64, M, M>,
    /// `cond_1(minus)` (`+∞` if singular).
    pub condition_minus: f64,
    /// `cond_1(plus)` (`+∞` if singular).
    pub condition_plus: f64,
}

/// Step Jacobians with a condition number above this are refused by [`ConstrainedFlow::regularity`].
pub const STEP_MAX_CONDITION: f64 = 1e12;

/// The constrained discrete Lagrangian flow `(g_k, λ_k) ↦ (g_{k+1}, λ_{k+1})` of `(G, N, L)`
/// (docs/math.md §C.4; Marrero et al. 2015, §3). `M = R + K` is checked at compile time (module
/// documentation).
///
/// ```
/// use geom_core::Scalar;
/// use groupoid::constraints::{ConstrainedFlow, Constraints, SigmaPoint};
/// use groupoid::{DiscreteLagrangian, PairGroupoid};
/// use nalgebra::SVector;
///
/// /// Free particle on R² restricted to the line y = x (constraint on the target point).
/// struct Free;
/// impl DiscreteLagrangian<PairGroupoid<2>, 2> for Free {
///     fn eval<S: Scalar>(&self, _: &PairGroupoid<2>, g: &(SVector<S, 2>, SVector<S, 2>)) -> S {
///         (g.1 - g.0).norm_squared() * S::from(0.5)
///     }
/// }
/// /// φ(q0, q1) = (y1 − x1) − (y0 − x0): the step stays parallel to the line.
/// struct Parallel;
/// impl Constraints<PairGroupoid<2>, 2, 1> for Parallel {
///     fn eval<S: Scalar>(&self, _: &PairGroupoid<2>, g: &(SVector<S, 2>, SVector<S, 2>)) -> SVector<S, 1> {
///         SVector::from([(g.1[1] - g.1[0]) - (g.0[1] - g.0[0])])
///     }
/// }
/// let flow = ConstrainedFlow::<_, _, _, 3>::new(PairGroupoid::<2>, Free, Parallel);
/// let g = (SVector::from([0.0, 0.0]), SVector::from([0.1, 0.1]));
/// let (next, _) = flow.step(&SigmaPoint::new(g, SVector::zeros()))?;
/// assert!((next.g.1 - SVector::from([0.2, 0.2])).norm() < 1e-14);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
///
/// `M` must be `R + K`; anything else does not build:
///
/// ```compile_fail
/// use geom_core::Scalar;
/// use groupoid::constraints::{ConstrainedFlow, NoConstraints, SigmaPoint};
/// use groupoid::{DiscreteLagrangian, PairGroupoid};
/// use nalgebra::SVector;
/// struct Free;
/// impl DiscreteLagrangian<PairGroupoid<2>, 2> for Free {
///     fn eval<S: Scalar>(&self, _: &PairGroupoid<2>, g: &(SVector<S, 2>, SVector<S, 2>)) -> S {
///         (g.1 - g.0).norm_squared()
///     }
/// }
/// let flow = ConstrainedFlow::<_, _, _, 3>::new(PairGroupoid::<2>, Free, NoConstraints); // 3 != 2 + 0
/// let g = (SVector::from([0.0, 0.0]), SVector::from([0.1, 0.1]));
/// let _ = flow.step(&SigmaPoint::new(g, SVector::<f64, 0>::zeros()));
/// ```
#[derive(Debug, Clone)]
pub struct ConstrainedFlow<Gd, L, C, const M: usize> {
    groupoid: Gd,
    lagrangian: L,
    constraints: C,
    newton: NewtonOptions,
}

impl<Gd, L, C, const M: usize> ConstrainedFlow<Gd, L, C, M> {
    /// The flow of `L̂ = lagrangian` on `N = {constraints = 0} ⊂ groupoid` (Newton: residual and
    /// step `<= 1e-14`, at most 50 iterations).
    pub fn new(groupoid: Gd, lagrangian: L, constraints: C) -> Self {
        let newton = NewtonOptions::groupoid_flow();
        Self { groupoid, lagrangian, constraints, newton }
    }
    /// The same flow with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The groupoid `G`.
    pub fn groupoid(&self) -> &Gd {
        &self.groupoid
    }
    /// The discrete Lagrangian `L̂`.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }
    /// The constraints `φ`.
    pub fn constraints(&self) -> &C {
        &self.constraints
    }
    /// The Newton options of a step.
    pub fn newton_options(&self) -> &NewtonOptions {
        &self.newton
    }

    /// One constrained step from `(g_k, λ_k)`: returns `(g_{k+1}, λ_{k+1})` and the Newton report
    /// (module documentation for the equations; warm start `ξ = fibre_log(g_k)`, `λ = λ_k`).
    ///
    /// Errors: `g_k` off `N` ([`GeomError::OffManifold`], tolerance [`CONSTRAINT_TOLERANCE`]) or
    /// non-finite multipliers; Newton non-convergence; a singular step Jacobian
    /// ([`GeomError::SingularMatrix`], `what = "Newton Jacobian"`: the system is not regular there,
    /// e.g. holonomic constraints imposed as `N = S × S`, see [`HolonomicFlow`]); an undefined
    /// `fibre_log`.
    pub fn step<const R: usize, const K: usize>(
        &self,
        point: &SigmaPoint<Arrow<Gd, R>, K>,
    ) -> Result<(SigmaPoint<Arrow<Gd, R>, K>, NewtonReport)>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        check_on_n(&self.groupoid, &self.constraints, &point.g)?;
        self.step_unchecked(point, None)
    }

    /// [`ConstrainedFlow::step`] from an explicit warm start: `xi_guess` are the fibre coordinates
    /// of the guess for `g_{k+1}` at `β(g_k)` and `lambda_guess` the guess for `λ_{k+1}` (e.g. from
    /// a predictor, where the default warm start `(fibre_log(g_k), λ_k)` is poor: the adaptive time
    /// step of docs/math.md §C.6.4, whose step Jacobian has a singular value `O(h)`). Same errors.
    pub fn step_with_guess<const R: usize, const K: usize>(
        &self,
        point: &SigmaPoint<Arrow<Gd, R>, K>,
        xi_guess: &SVector<f64, R>,
        lambda_guess: &SVector<f64, K>,
    ) -> Result<(SigmaPoint<Arrow<Gd, R>, K>, NewtonReport)>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        check_on_n(&self.groupoid, &self.constraints, &point.g)?;
        self.step_unchecked(point, Some((xi_guess, lambda_guess)))
    }

    /// [`ConstrainedFlow::step`] without the check `g_k ∈ N` (the shooting of [`crate::bvp`] starts
    /// from a first arrow that is on `N` only at convergence).
    pub(crate) fn step_unchecked<const R: usize, const K: usize>(
        &self,
        point: &SigmaPoint<Arrow<Gd, R>, K>,
        guess: Option<(&SVector<f64, R>, &SVector<f64, K>)>,
    ) -> Result<(SigmaPoint<Arrow<Gd, R>, K>, NewtonReport)>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        check_dims::<R, K, M>();
        if !point.lambda.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "Lagrange multipliers" });
        }
        let gd = &self.groupoid;
        let target = legendre_plus_constrained(gd, &self.lagrangian, &self.constraints, point);
        let x = LieGroupoid::<f64, R>::target(gd, &point.g);
        let xh = GroupoidLift::<Hd<R>, R>::lift_base(gd, &x);
        let guess = match guess {
            Some((xi, lambda)) => join::<R, K, M>(xi, lambda),
            None => join::<R, K, M>(&LieGroupoid::<f64, R>::fibre_log(gd, &point.g)?, &point.lambda),
        };
        let x1 = GroupoidLift::<DualSVec64<R>, R>::lift_base(gd, &x);
        let (u, report) = solve_m(
            |u: &SVector<f64, M>, jac: Option<&mut SMatrix<f64, M, M>>| {
                let (xi, lambda) = split::<R, K, M>(u);
                let Some(jac) = jac else {
                    let next = LieGroupoid::<DualSVec64<R>, R>::fibre_exp(gd, &x1, &xi.map(DualSVec64::from));
                    let (grad, phi) = first_derivatives(gd, &self.lagrangian, &self.constraints, &lambda, |b| {
                        LieGroupoid::<DualSVec64<R>, R>::right_curve(gd, &next, b)
                    });
                    return Ok(join::<R, K, M>(&(grad - target), &phi));
                };
                let d = mixed_derivatives(gd, &self.lagrangian, &self.constraints, &lambda, &xi, |a, b| {
                    let next = LieGroupoid::<Hd<R>, R>::fibre_exp(gd, &xh, a);
                    LieGroupoid::<Hd<R>, R>::right_curve(gd, &next, b)
                });
                *jac = saddle::<R, K, M>(&d.mixed.transpose(), &d.phi_b, &d.phi_a);
                Ok(join::<R, K, M>(&(d.grad_b - target), &d.phi))
            },
            &guess,
            &self.newton,
        )?;
        let (xi, lambda) = split::<R, K, M>(&u);
        let next = LieGroupoid::<f64, R>::fibre_exp(gd, &x, &xi);
        Ok((SigmaPoint::new(next, lambda), report))
    }

    /// Run `n` steps from `point`; returns the `n + 1` points `(g_1, λ_1), …, (g_{n+1}, λ_{n+1})`
    /// (the first is `point`). Errors as [`ConstrainedFlow::step`]. Allocates the returned vector
    /// once (`n + 1` entries); the steps themselves do not allocate.
    pub fn trajectory<const R: usize, const K: usize>(
        &self,
        point: &SigmaPoint<Arrow<Gd, R>, K>,
        n: usize,
    ) -> Result<Vec<SigmaPoint<Arrow<Gd, R>, K>>>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        let mut out = Vec::with_capacity(n + 1);
        out.push(point.clone());
        for k in 0..n {
            let (next, _) = self.step(&out[k])?;
            out.push(next);
        }
        Ok(out)
    }

    /// Both step Jacobians at `(g, λ)` (see [`StepRegularity`]), without judging them. Errors only
    /// for non-finite entries.
    pub fn legendre_jacobians<const R: usize, const K: usize>(
        &self,
        point: &SigmaPoint<Arrow<Gd, R>, K>,
    ) -> Result<(SMatrix<f64, M, M>, SMatrix<f64, M, M>)>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        check_dims::<R, K, M>();
        let gd = &self.groupoid;
        let gh = GroupoidLift::<Hd<R>, R>::lift(gd, &point.g);
        let zero = SVector::zeros();
        // F^-L along the α-fibre: a = ζ (left translation), b = η (right-invariant derivative)
        let dm = mixed_derivatives(gd, &self.lagrangian, &self.constraints, &point.lambda, &zero, |a, b| {
            let moved = LieGroupoid::<Hd<R>, R>::left_curve(gd, &gh, a);
            LieGroupoid::<Hd<R>, R>::right_curve(gd, &moved, b)
        });
        // F^+L along the β-fibre: a = η' (right translation), b = ξ (left-invariant derivative)
        let dp = mixed_derivatives(gd, &self.lagrangian, &self.constraints, &point.lambda, &zero, |a, b| {
            let moved = LieGroupoid::<Hd<R>, R>::right_curve(gd, &gh, a);
            LieGroupoid::<Hd<R>, R>::left_curve(gd, &moved, b)
        });
        let minus = saddle::<R, K, M>(&dm.mixed.transpose(), &dm.phi_b, &dm.phi_a);
        let plus = saddle::<R, K, M>(&dp.mixed.transpose(), &dp.phi_b, &dp.phi_a);
        if !(minus.iter().all(|v| v.is_finite()) && plus.iter().all(|v| v.is_finite())) {
            return Err(GeomError::NonFinite { what: "constrained step Jacobian" });
        }
        Ok((minus, plus))
    }

    /// Regularity of `(G, N, L)` at `(g, λ)` (docs/math.md §C.4): both step Jacobians and their
    /// 1-norm condition numbers. [`GeomError::SingularMatrix`]
    /// (`what = "constrained step Jacobian (the system is not regular)"`) if the forward one
    /// (`F^-L`) has a vanishing pivot or a condition number above [`STEP_MAX_CONDITION`]; a
    /// singular `plus` is reported as `condition_plus = +∞`.
    pub fn regularity<const R: usize, const K: usize>(
        &self,
        point: &SigmaPoint<Arrow<Gd, R>, K>,
    ) -> Result<StepRegularity<M>>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        const WHAT: &str = "constrained step Jacobian (the system is not regular)";
        let (minus, plus) = self.legendre_jacobians(point)?;
        let condition_minus = condition_number(&minus, WHAT)?;
        if condition_minus.is_nan() || condition_minus > STEP_MAX_CONDITION {
            return Err(GeomError::SingularMatrix { what: WHAT, iteration: 0 });
        }
        let condition_plus = condition_number(&plus, WHAT).unwrap_or(f64::INFINITY);
        Ok(StepRegularity { minus, plus, condition_minus, condition_plus })
    }
}

// ---------------------------------------------------------------------------------------------

/// Holonomic constraints on the base, `c = (c^1, …, c^K): Q → R^K`, `S = {c = 0} ⊂ Q`, written once
/// over the scalar (docs/math.md §C.4, warning, and §C.6.1).
pub trait BaseConstraints<Gd: GroupoidFamily<R>, const R: usize, const K: usize>: Send + Sync {
    /// `c(x) ∈ R^K`.
    fn eval<S: Scalar>(&self, groupoid: &Gd, x: &Gd::Base<S>) -> SVector<S, K>;
}

/// The SHAKE/RATTLE form of holonomic constraints (docs/math.md §C.4, warning, and §C.6.1): the
/// arrows stay in `N = S × S` (pair groupoid; in general `α^{-1}(S) ∩ β^{-1}(S)`) and the node
/// multiplier `Λ_k ∈ R^K` is solved for together with `g_{k+1}`,
///
/// ```text
/// X^←(g_k)(L̂ + Λ_k·(c∘β)) − X^→(g_{k+1})(L̂) = 0,    c(β(g_{k+1})) = 0,
/// ```
///
/// which on the pair groupoid of `R^n` is `D_2L̂(q_{k−1},q_k) + D_1L̂(q_k,q_{k+1}) + Λ_k·∇c(q_k) = 0`,
/// `c(q_{k+1}) = 0`. Writing `N` as `{(c∘α, c∘β) = 0}` in a [`ConstrainedFlow`] is not regular
/// (its step Jacobian is singular: only `Λ_k = λ²_k + λ¹_{k+1}` is determined); this flow is what
/// remains well defined. Its outputs are the positions (arrows `g_k`, nodes `β(g_k)`) and the
/// projected momenta [`HolonomicFlow::projected_momentum`]; the multiplier split is not exposed.
/// `M = R + K` is checked at compile time.
#[derive(Debug, Clone)]
pub struct HolonomicFlow<Gd, L, C, const M: usize> {
    groupoid: Gd,
    lagrangian: L,
    constraints: C,
    newton: NewtonOptions,
}

impl<Gd, L, C, const M: usize> HolonomicFlow<Gd, L, C, M> {
    /// The SHAKE/RATTLE flow of `L̂ = lagrangian` with `c = constraints` (Newton: residual and step
    /// `<= 1e-14`).
    pub fn new(groupoid: Gd, lagrangian: L, constraints: C) -> Self {
        let newton = NewtonOptions::groupoid_flow();
        Self { groupoid, lagrangian, constraints, newton }
    }
    /// The same flow with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The groupoid.
    pub fn groupoid(&self) -> &Gd {
        &self.groupoid
    }
    /// The discrete Lagrangian `L̂`.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }
    /// The base constraints `c`.
    pub fn constraints(&self) -> &C {
        &self.constraints
    }
    /// The Newton options of a step.
    pub fn newton_options(&self) -> &NewtonOptions {
        &self.newton
    }

    /// `Ok(())` if both end points of `g` satisfy `|c|_∞ <= CONSTRAINT_TOLERANCE`, else
    /// [`GeomError::NonFinite`] / [`GeomError::OffManifold`] (`what = "arrow end point off the
    /// constraint set S"`).
    pub fn check<const R: usize, const K: usize>(&self, g: &Arrow<Gd, R>) -> Result<()>
    where
        Gd: AdGroupoid<R>,
        C: BaseConstraints<Gd, R, K>,
    {
        for x in [LieGroupoid::<f64, R>::source(&self.groupoid, g), LieGroupoid::<f64, R>::target(&self.groupoid, g)] {
            let defect = amax(self.constraints.eval::<f64>(&self.groupoid, &x).iter());
            if !defect.is_finite() {
                return Err(GeomError::NonFinite { what: "base constraints at an arrow end point" });
            }
            if defect > CONSTRAINT_TOLERANCE {
                return Err(GeomError::OffManifold {
                    what: "arrow end point off the constraint set S",
                    defect,
                    tolerance: CONSTRAINT_TOLERANCE,
                });
            }
        }
        Ok(())
    }

    /// The constraint normals at the node `β(g)` as covectors of `A*_{β(g)}G`:
    /// `n[(i, a)] = X_i^←(g)(c^a∘β)` (on the pair groupoid of `R^n`: the columns of `∇c(q_k)`).
    pub fn constraint_normals<const R: usize, const K: usize>(&self, g: &Arrow<Gd, R>) -> SMatrix<f64, R, K>
    where
        Gd: AdGroupoid<R>,
        C: BaseConstraints<Gd, R, K>,
    {
        let gd = &self.groupoid;
        let g1 = GroupoidLift::<DualSVec64<R>, R>::lift(gd, g);
        jacobian_at_zero(|xi: SVector<DualSVec64<R>, R>| {
            let moved = LieGroupoid::<DualSVec64<R>, R>::left_curve(gd, &g1, &xi);
            self.constraints.eval::<DualSVec64<R>>(gd, &LieGroupoid::<DualSVec64<R>, R>::target(gd, &moved))
        })
        .transpose()
    }

    /// One SHAKE/RATTLE step `g_k = (q_{k−1}, q_k) ↦ g_{k+1} = (q_k, q_{k+1})` (struct documentation),
    /// Newton on `(ξ, Λ_k)` with the exact Jacobian `[[∂_ξ X^→(g_{k+1})(L̂), −n], [∂_ξ c(β(g_{k+1})), 0]]`.
    /// Errors: an end point of `g_k` off `S`; Newton failures (a singular Jacobian:
    /// [`GeomError::SingularMatrix`]); an undefined `fibre_log`.
    pub fn step<const R: usize, const K: usize>(&self, g: &Arrow<Gd, R>) -> Result<(Arrow<Gd, R>, NewtonReport)>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: BaseConstraints<Gd, R, K>,
    {
        check_dims::<R, K, M>();
        self.check(g)?;
        let gd = &self.groupoid;
        let target = legendre_plus(gd, &self.lagrangian, g);
        let normals = self.constraint_normals(g);
        let x = LieGroupoid::<f64, R>::target(gd, g);
        let guess = LieGroupoid::<f64, R>::fibre_log(gd, g)?;
        self.solve_from(&self.lagrangian, &self.newton, &x, &target, &normals, &guess)
    }

    /// RATTLE started from a point and a momentum: the first arrow `g_1 = exp_{x_0}(ξ)` with
    /// `F^-L̂(g_1) = μ_0 + n(x_0) Λ_0` and `c(β(g_1)) = 0`, where `n(x_0)` are the constraint
    /// normals at `x_0` (on the pair groupoid of `R^n`: `p_0 = −D_1L̂(q_0, q_1) − ∇c(q_0) Λ_0`,
    /// `c(q_1) = 0`). `μ_0` need not be tangent to `S`: its normal part is absorbed by `Λ_0`
    /// (for `μ_0 ∈ T*S` it is the RATTLE start from `(q_0, p_0)`). Newton starts from `guess`
    /// (fibre coordinates of `g_1`, e.g. `h M^{-1} p_0`). Errors: `x_0` off `S`
    /// ([`GeomError::OffManifold`]), non-finite data, the Newton errors of [`HolonomicFlow::step`].
    pub fn start<const R: usize, const K: usize>(
        &self,
        x0: &<Gd as GroupoidFamily<R>>::Base<f64>,
        mu0: &SVector<f64, R>,
        guess: &SVector<f64, R>,
    ) -> Result<(Arrow<Gd, R>, NewtonReport)>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: BaseConstraints<Gd, R, K>,
    {
        self.start_with(&self.lagrangian, &self.newton, x0, mu0, guess)
    }

    /// [`HolonomicFlow::start`] with the discrete Lagrangian `lagrangian` and the Newton options
    /// `newton` in place of the flow's own (the RATTLE integrator of [`crate::integrator`] passes
    /// `L_d^h` of its step).
    pub(crate) fn start_with<Ld, const R: usize, const K: usize>(
        &self,
        lagrangian: &Ld,
        newton: &NewtonOptions,
        x0: &<Gd as GroupoidFamily<R>>::Base<f64>,
        mu0: &SVector<f64, R>,
        guess: &SVector<f64, R>,
    ) -> Result<(Arrow<Gd, R>, NewtonReport)>
    where
        Gd: AdGroupoid<R>,
        Ld: DiscreteLagrangian<Gd, R>,
        C: BaseConstraints<Gd, R, K>,
    {
        check_dims::<R, K, M>();
        if !mu0.iter().chain(guess.iter()).all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "RATTLE start (momentum or guess)" });
        }
        let gd = &self.groupoid;
        let unit = LieGroupoid::<f64, R>::identity(gd, x0);
        self.check(&unit)?;
        let normals = self.constraint_normals(&unit);
        self.solve_from(lagrangian, newton, x0, mu0, &normals, guess)
    }

    /// Solve `X^→(exp_x ξ)(L̂) = μ + n Λ`, `c(β(exp_x ξ)) = 0` for `(ξ, Λ)` from `(guess, 0)`.
    fn solve_from<Ld, const R: usize, const K: usize>(
        &self,
        lagrangian: &Ld,
        newton: &NewtonOptions,
        x: &<Gd as GroupoidFamily<R>>::Base<f64>,
        target: &SVector<f64, R>,
        normals: &SMatrix<f64, R, K>,
        guess: &SVector<f64, R>,
    ) -> Result<(Arrow<Gd, R>, NewtonReport)>
    where
        Gd: AdGroupoid<R>,
        Ld: DiscreteLagrangian<Gd, R>,
        C: BaseConstraints<Gd, R, K>,
    {
        let gd = &self.groupoid;
        let (x, target, normals) = (x.clone(), *target, *normals);
        let xh = GroupoidLift::<Hd<R>, R>::lift_base(gd, &x);
        let guess = join::<R, K, M>(guess, &SVector::zeros());
        let x1 = GroupoidLift::<DualSVec64<R>, R>::lift_base(gd, &x);
        let (u, report) = solve_m(
            |u: &SVector<f64, M>, jac: Option<&mut SMatrix<f64, M, M>>| {
                let (xi, node) = split::<R, K, M>(u);
                let Some(jac) = jac else {
                    let next = LieGroupoid::<DualSVec64<R>, R>::fibre_exp(gd, &x1, &xi.map(DualSVec64::from));
                    let (_, grad) = num_dual::gradient(
                        |b: SVector<DualSVec64<R>, R>| {
                            let moved = LieGroupoid::<DualSVec64<R>, R>::right_curve(gd, &next, &b);
                            lagrangian.eval::<DualSVec64<R>>(gd, &moved)
                        },
                        &SVector::zeros(),
                    );
                    let next = LieGroupoid::<f64, R>::fibre_exp(gd, &x, &xi);
                    let c = self.constraints.eval::<f64>(gd, &LieGroupoid::<f64, R>::target(gd, &next));
                    return Ok(join::<R, K, M>(&(grad - target - normals * node), &c));
                };
                let ((_, _, grad_eta, mixed), cs) = num_dual::partial_hessian(
                    |(a, b): (SVector<Hd<R>, R>, SVector<Hd<R>, R>)| {
                        let next = LieGroupoid::<Hd<R>, R>::fibre_exp(gd, &xh, &a);
                        let moved = LieGroupoid::<Hd<R>, R>::right_curve(gd, &next, &b);
                        let c = self.constraints.eval::<Hd<R>>(gd, &LieGroupoid::<Hd<R>, R>::target(gd, &next));
                        (lagrangian.eval::<Hd<R>>(gd, &moved), core::array::from_fn::<Hd<R>, K, _>(|k| c[k]))
                    },
                    (&xi, &SVector::zeros()),
                );
                let mut c = SVector::<f64, K>::zeros();
                let mut dc = SMatrix::<f64, K, R>::zeros();
                for (k, (v, da, _, _)) in cs.into_iter().enumerate() {
                    c[k] = v;
                    dc.set_row(k, &da.transpose());
                }
                *jac = saddle::<R, K, M>(&mixed.transpose(), &(-normals), &dc);
                Ok(join::<R, K, M>(&(grad_eta - target - normals * node), &c))
            },
            &guess,
            newton,
        )?;
        let (xi, _) = split::<R, K, M>(&u);
        Ok((LieGroupoid::<f64, R>::fibre_exp(gd, &x, &xi), report))
    }

    /// The momentum at the node `β(g_k)` projected along the constraint normals,
    /// `P μ` with `μ = F^+L̂(g_k) = X^←(g_k)(L̂)`, `P = I − n (nᵀn)^{-1} nᵀ`, `n` =
    /// [`HolonomicFlow::constraint_normals`] (Euclidean in the fibre coordinates). It does not
    /// depend on the multiplier split: `F^-L̂(g_{k+1}) = μ + n Λ_k` has the same projection. On the
    /// pair groupoid of `R^n` it is `(I − ∇c(∇cᵀ∇c)^{-1}∇cᵀ) p_k`, `p_k = D_2L̂(q_{k−1}, q_k)`: the
    /// RATTLE momentum in `T*S` (docs/math.md §C.6.1). Error: [`GeomError::SingularMatrix`] if the
    /// normals are dependent (`dc` not of full rank at the node).
    pub fn projected_momentum<const R: usize, const K: usize>(&self, g: &Arrow<Gd, R>) -> Result<SVector<f64, R>>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: BaseConstraints<Gd, R, K>,
    {
        let mu = legendre_plus(&self.groupoid, &self.lagrangian, g);
        project_off_normals(&mu, &self.constraint_normals(g), None)
    }
}

/// The representative `μ̃ = μ − n (nᵀ W n)^{-1} nᵀ W μ` of the class of `μ` modulo the span of
/// the normals `n` (the columns of the `R × K` matrix), the one with `nᵀ W μ̃ = 0`: for a
/// symmetric positive definite `W` (an inverse mass matrix: the velocity `W μ̃` is then tangent,
/// `nᵀ W μ̃ = 0`), or the Euclidean `W = I` when `None`. `μ̃ − μ ∈ span n`, so every map that
/// absorbs a normal covector (a multiplier solved for at the node) gives the same result on both.
/// Error: [`GeomError::SingularMatrix`] if `nᵀ W n` is singular (dependent normals).
pub(crate) fn project_off_normals<const R: usize, const K: usize>(
    mu: &SVector<f64, R>,
    n: &SMatrix<f64, R, K>,
    w: Option<&SMatrix<f64, R, R>>,
) -> Result<SVector<f64, R>> {
    let wn = match w {
        Some(w) => w * n,
        None => *n,
    };
    let gram = invert(&n.tr_mul(&wn), "Gram matrix of the constraint normals")?;
    Ok(mu - n * (gram * wn.tr_mul(mu)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pair::PairGroupoid;
    use nalgebra::Vector2;

    type P = (Vector2<f64>, Vector2<f64>);
    const H: f64 = 0.05;
    const A: [f64; 2] = [0.3, -0.7];

    /// `L̂ = |q1 − q0|²/(2h) + a·q0` with `D_1L̂ = −(q1 − q0)/h + a`, `D_2L̂ = (q1 − q0)/h`.
    struct Lhat;
    impl DiscreteLagrangian<PairGroupoid<2>, 2> for Lhat {
        #[inline]
        fn eval<S: Scalar>(&self, _: &PairGroupoid<2>, g: &(Vector2<S>, Vector2<S>)) -> S {
            (g.1 - g.0).norm_squared() * S::from(0.5 / H) + g.0[0] * S::from(A[0]) + g.0[1] * S::from(A[1])
        }
    }
    /// `φ = (q1_y − 0.3 q1_x²) − (q0_y − 0.3 q0_x²)` (the step stays on a parabola
    /// `y − 0.3x² = const`), `D_1φ = (0.6 q0_x, −1)`, `D_2φ = (−0.6 q1_x, 1)`.
    struct Phi;
    impl Constraints<PairGroupoid<2>, 2, 1> for Phi {
        #[inline]
        fn eval<S: Scalar>(&self, _: &PairGroupoid<2>, g: &(Vector2<S>, Vector2<S>)) -> SVector<S, 1> {
            let p = |q: &Vector2<S>| q[1] - q[0] * q[0] * S::from(0.3);
            SVector::from([p(&g.1) - p(&g.0)])
        }
    }
    fn d1(g: &P, l: f64) -> Vector2<f64> {
        -(g.1 - g.0) / H + Vector2::from(A) + Vector2::new(0.6 * g.0[0], -1.0) * l
    }
    fn d2(g: &P, l: f64) -> Vector2<f64> {
        (g.1 - g.0) / H + Vector2::new(-0.6 * g.1[0], 1.0) * l
    }

    #[test]
    fn legendre_transforms_on_the_pair_groupoid() {
        // docs/math.md §C.4: F^-L(g, λ) = −D_1(L̂ + λφ), F^+L(g, λ) = D_2(L̂ + λφ)
        let g: P = (Vector2::new(0.4, 0.3), Vector2::new(0.5, 0.6));
        let point = SigmaPoint::new(g, SVector::from([1.7]));
        let minus = legendre_minus_constrained(&PairGroupoid::<2>, &Lhat, &Phi, &point);
        let plus = legendre_plus_constrained(&PairGroupoid::<2>, &Lhat, &Phi, &point);
        assert!((minus + d1(&g, 1.7)).amax() < 1e-14, "{minus}");
        assert!((plus - d2(&g, 1.7)).amax() < 1e-14, "{plus}");
    }

    #[test]
    fn constrained_step_solves_the_pair_groupoid_equations() {
        // D_2(L̂ + λ_k φ)(g_k) + D_1(L̂ + λ_{k+1} φ)(g_{k+1}) = 0, φ(g_{k+1}) = 0 (docs/math.md
        // §C.4)
        let flow = ConstrainedFlow::<_, _, _, 3>::new(PairGroupoid::<2>, Lhat, Phi);
        // an initial arrow on N: q1_y = q0_y + 0.3 (q1_x² − q0_x²)
        let (q0, x1) = (Vector2::new(0.4, 0.3), 0.45);
        let g: P = (q0, Vector2::new(x1, q0[1] + 0.3 * (x1 * x1 - q0[0] * q0[0])));
        let mut p = SigmaPoint::new(g, SVector::from([0.2]));
        for _ in 0..20 {
            let (next, report) = flow.step(&p).unwrap();
            assert!(report.iterations <= 5, "{report:?}");
            let del = d2(&p.g, p.lambda[0]) + d1(&next.g, next.lambda[0]);
            assert!(del.amax() < 1e-12, "{del}");
            assert!(constraint_residual(&PairGroupoid::<2>, &Phi, &next.g) < 1e-14);
            assert_eq!(next.g.0, p.g.1); // composable: β(g_k) = α(g_{k+1})
            p = next;
        }
        // regular here, both Jacobians (Marrero et al. 2015, Thm 2.16)
        let reg = flow.regularity(&p).unwrap();
        assert!(reg.condition_minus.is_finite() && reg.condition_plus.is_finite());
        // off N, or with NaN multipliers: typed errors, no panic
        let off = SigmaPoint::new((q0, Vector2::new(0.5, 0.9)), SVector::from([0.0]));
        assert!(constraint_residual(&PairGroupoid::<2>, &Phi, &off.g) > 0.1);
        assert!(matches!(flow.step(&off), Err(GeomError::OffManifold { .. })));
        let nan = SigmaPoint::new(g, SVector::from([f64::NAN]));
        assert!(matches!(flow.step(&nan), Err(GeomError::NonFinite { .. })));
    }

    /// `c(q) = |q|² − 1` on R².
    struct Circle;
    impl BaseConstraints<PairGroupoid<2>, 2, 1> for Circle {
        #[inline]
        fn eval<S: Scalar>(&self, _: &PairGroupoid<2>, q: &Vector2<S>) -> SVector<S, 1> {
            SVector::from([q.norm_squared() - S::from(1.0)])
        }
    }

    #[test]
    fn holonomic_normals_and_projection() {
        let flow = HolonomicFlow::<_, _, _, 3>::new(PairGroupoid::<2>, Lhat, Circle);
        let a = 0.3f64;
        let g: P = (Vector2::new(1.0, 0.0), Vector2::new(a.cos(), a.sin()));
        // n = ∇c(q_k) = 2 q_k
        assert!((flow.constraint_normals(&g) - g.1 * 2.0).amax() < 1e-15);
        // P p = (I − q qᵀ) D_2L̂
        let p = d2(&g, 0.0);
        let projected = p - g.1 * g.1.dot(&p);
        assert!((flow.projected_momentum(&g).unwrap() - projected).amax() < 1e-14);
        // the step keeps c = 0 and satisfies D_2L̂ + D_1L̂ ∥ ∇c(q_k)
        let (next, _) = flow.step(&g).unwrap();
        assert!((next.1.norm_squared() - 1.0).abs() < 1e-14);
        let force = d2(&g, 0.0) + d1(&next, 0.0);
        assert!((force[0] * g.1[1] - force[1] * g.1[0]).abs() < 1e-12);
    }
}
