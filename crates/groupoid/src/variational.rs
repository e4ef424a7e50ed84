//! The constrained discrete variational principle (Marrero, Martín de Diego & Stern, *Symplectic
//! groupoids and discrete constrained Lagrangian mechanics*, 2015, arXiv:1103.6250, §5;
//! docs/math.md §C.4).
//!
//! For a composable sequence `g_1, …, g_n ∈ N` the **discrete action sum** is
//! `S(g_1, …, g_n) = Σ_k L̂(g_k)` ([`action_sum`]). Its admissible variations keep the sequence
//! composable and the product `g_1 ⋯ g_n` fixed ("fixed endpoints"): with
//! `e_k = exp_{β(g_k)}(ζ_k)` for the interior nodes `k = 1, …, n−1` and `e_0`, `e_n` identities,
//!
//! ```text
//! g_k(ζ) = i(e_{k−1}) · g_k · e_k        (g_1(ζ) ⋯ g_n(ζ) = g_1 ⋯ g_n)
//! ```
//!
//! ([`vary`]). Differentiating the augmented sum `Σ_k (L̂ + λ_k·φ)(g_k(ζ))` at `ζ = 0` with respect to
//! the interior node `k` gives ([`action_gradient`])
//!
//! ```text
//! ∂S_λ/∂ζ_k = X^←(g_k)(L̂ + λ_k·φ) − X^→(g_{k+1})(L̂ + λ_{k+1}·φ),
//! ```
//!
//! the residual of the constrained dynamics (docs/math.md §C.4): stationary points of `S` on
//! `{g_k ∈ N}` with fixed endpoints are exactly the trajectories of
//! [`crate::constraints::ConstrainedFlow`] (Marrero et al. 2015, Thm 5.1). The multiplier-free
//! statement is that the gradient of `S` (without multipliers) is orthogonal to every variation
//! tangent to the constraint set `{φ(g_k(ζ)) = 0 ∀k}` ([`tangent_gradient`]); it also covers the
//! non-regular holonomic case of [`crate::constraints::HolonomicFlow`], whose multiplier split is
//! undefined.

use crate::constraints::{Augmented, Constraints, SigmaPoint, jacobian_at_zero};
use crate::groupoid::LieGroupoid;
use crate::lagrangian::{AdGroupoid, Arrow, DiscreteLagrangian, GroupoidLift};
use geom_core::{GeomError, Result};
use nalgebra::{DMatrix, DVector, SMatrix, SVector};
use num_dual::DualSVec64;

/// Relative threshold on the singular values of the constraint Jacobian in [`tangent_gradient`]
/// (singular values below `RANK_RTOL · σ_max` count as zero: redundant constraints such as the
/// shared node of `N = S × S`).
pub const RANK_RTOL: f64 = 1e-10;

/// The discrete action sum `S = Σ_k L̂(g_k)` (Marrero et al. 2015, §1 and §5).
pub fn action_sum<Gd, L, const R: usize>(groupoid: &Gd, lagrangian: &L, arrows: &[Arrow<Gd, R>]) -> f64
where
    Gd: AdGroupoid<R>,
    L: DiscreteLagrangian<Gd, R>,
{
    arrows.iter().map(|g| lagrangian.eval::<f64>(groupoid, g)).sum()
}

/// The product `g_1 ⋯ g_n` with every composability checked ([`LieGroupoid::compose`]); the
/// quantity held fixed by the variational principle. [`GeomError::InvalidParameter`] for an empty
/// sequence.
pub fn product<Gd, const R: usize>(groupoid: &Gd, arrows: &[Arrow<Gd, R>]) -> Result<Arrow<Gd, R>>
where
    Gd: AdGroupoid<R>,
{
    let (first, rest) = arrows
        .split_first()
        .ok_or_else(|| GeomError::InvalidParameter { what: "arrows", reason: "the sequence is empty".into() })?;
    rest.iter().try_fold(first.clone(), |acc, g| LieGroupoid::<f64, R>::compose(groupoid, &acc, g))
}

/// The admissible variation `g_k(ζ) = i(e_{k−1}) · g_k · e_k`, `e_k = exp_{β(g_k)}(ζ_k)` for the
/// interior nodes (`zetas[k−1] = ζ_k`, `k = 1..n−1`) and `e_0 = e_n = ε`: the varied sequence is
/// composable with the same product. [`GeomError::DimensionMismatch`] unless
/// `zetas.len() + 1 == arrows.len()`.
pub fn vary<Gd, const R: usize>(
    groupoid: &Gd,
    arrows: &[Arrow<Gd, R>],
    zetas: &[SVector<f64, R>],
) -> Result<Vec<Arrow<Gd, R>>>
where
    Gd: AdGroupoid<R>,
{
    check_len(arrows.len(), zetas.len() + 1, "variations (one per interior node)")?;
    let zero = SVector::zeros();
    Ok(arrows
        .iter()
        .enumerate()
        .map(|(k, g)| {
            let right = zetas.get(k).unwrap_or(&zero);
            let left = if k == 0 { &zero } else { &zetas[k - 1] };
            let moved = LieGroupoid::<f64, R>::left_curve(groupoid, g, right);
            LieGroupoid::<f64, R>::right_curve(groupoid, &moved, &(-left))
        })
        .collect())
}

fn check_len(got: usize, expected: usize, what: &'static str) -> Result<()> {
    if got == expected { Ok(()) } else { Err(GeomError::DimensionMismatch { what, expected, got }) }
}

/// The gradient of the augmented action sum `Σ_k (L̂ + λ_k·φ)(g_k(ζ))` with respect to the interior
/// nodes, at `ζ = 0`: entry `k − 1` is `∂/∂ζ_k = X^←(g_k)(L̂ + λ_k·φ) − X^→(g_{k+1})(L̂ + λ_{k+1}·φ)`
/// (module documentation), computed by differentiating the two terms of the sum that depend on
/// `ζ_k` (`DualSVec64<R>`). It vanishes along solutions of the constrained dynamics. Returns
/// `n − 1` vectors for `n` points.
pub fn action_gradient<Gd, L, C, const R: usize, const K: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    constraints: &C,
    trajectory: &[SigmaPoint<Arrow<Gd, R>, K>],
) -> Vec<SVector<f64, R>>
where
    Gd: AdGroupoid<R>,
    L: DiscreteLagrangian<Gd, R>,
    C: Constraints<Gd, R, K>,
{
    trajectory
        .windows(2)
        .map(|w| {
            let before = Augmented::new(lagrangian, constraints, w[0].lambda);
            let after = Augmented::new(lagrangian, constraints, w[1].lambda);
            node_gradient(groupoid, &before, &after, &w[0].g, &w[1].g)
        })
        .collect()
}

/// `∂/∂ζ [f(g · e(ζ)) + f'(i(e(ζ)) · g')]` at `ζ = 0`.
fn node_gradient<Gd, L1, L2, const R: usize>(
    groupoid: &Gd,
    before: &L1,
    after: &L2,
    g: &Arrow<Gd, R>,
    next: &Arrow<Gd, R>,
) -> SVector<f64, R>
where
    Gd: AdGroupoid<R>,
    L1: DiscreteLagrangian<Gd, R>,
    L2: DiscreteLagrangian<Gd, R>,
{
    type D1<const R: usize> = DualSVec64<R>;
    let g1 = GroupoidLift::<D1<R>, R>::lift(groupoid, g);
    let n1 = GroupoidLift::<D1<R>, R>::lift(groupoid, next);
    let (_, grad) = num_dual::gradient(
        |z: SVector<D1<R>, R>| {
            let a = LieGroupoid::<D1<R>, R>::left_curve(groupoid, &g1, &z);
            let b = LieGroupoid::<D1<R>, R>::right_curve(groupoid, &n1, &(-z));
            before.eval::<D1<R>>(groupoid, &a) + after.eval::<D1<R>>(groupoid, &b)
        },
        &SVector::zeros(),
    );
    grad
}

/// `[X^←(g)(φ^a)]` and `[X^→(g)(φ^a)]` as `K × R` matrices.
fn constraint_derivatives<Gd, C, const R: usize, const K: usize>(
    groupoid: &Gd,
    constraints: &C,
    g: &Arrow<Gd, R>,
) -> (SMatrix<f64, K, R>, SMatrix<f64, K, R>)
where
    Gd: AdGroupoid<R>,
    C: Constraints<Gd, R, K>,
{
    type D1<const R: usize> = DualSVec64<R>;
    let g1 = GroupoidLift::<D1<R>, R>::lift(groupoid, g);
    let left = jacobian_at_zero(|z: SVector<D1<R>, R>| {
        constraints.eval::<D1<R>>(groupoid, &LieGroupoid::<D1<R>, R>::left_curve(groupoid, &g1, &z))
    });
    let right = jacobian_at_zero(|z: SVector<D1<R>, R>| {
        constraints.eval::<D1<R>>(groupoid, &LieGroupoid::<D1<R>, R>::right_curve(groupoid, &g1, &z))
    });
    (left, right)
}

/// The tangent (multiplier-free) gradient of the action sum on `N` with fixed endpoints: the
/// gradient `∇_ζ S` of [`action_sum`] (without multipliers; `R(n−1)` entries, node by node)
/// projected onto the kernel of the constraint Jacobian `A = ∂φ(g_j(ζ))/∂ζ` (`nK × R(n−1)`, rows
/// `∂φ^a(g_j)/∂ζ_j = X^←(g_j)(φ^a)` and `∂φ^a(g_j)/∂ζ_{j−1} = −X^→(g_j)(φ^a)`). The projector is
/// built from the SVD of `A`, singular values below [`RANK_RTOL`]`·σ_max` being treated as zero,
/// so redundant constraints (the shared nodes of `N = S × S`) are allowed. It vanishes exactly at
/// the stationary points of `S` restricted to `N` (Marrero et al. 2015, §5). Allocates (dynamic
/// size). [`GeomError::InvalidParameter`] for fewer than two arrows.
pub fn tangent_gradient<Gd, L, C, const R: usize, const K: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    constraints: &C,
    arrows: &[Arrow<Gd, R>],
) -> Result<DVector<f64>>
where
    Gd: AdGroupoid<R>,
    L: DiscreteLagrangian<Gd, R>,
    C: Constraints<Gd, R, K>,
{
    let n = arrows.len();
    if n < 2 {
        return Err(GeomError::InvalidParameter {
            what: "arrows",
            reason: "need at least two (one interior node)".into(),
        });
    }
    let cols = R * (n - 1);
    let mut grad = DVector::<f64>::zeros(cols);
    for (k, w) in arrows.windows(2).enumerate() {
        grad.rows_mut(R * k, R).copy_from(&node_gradient(groupoid, lagrangian, lagrangian, &w[0], &w[1]));
    }
    if K == 0 {
        return Ok(grad);
    }
    let mut a = DMatrix::<f64>::zeros(n * K, cols);
    for (j, g) in arrows.iter().enumerate() {
        let (left, right) = constraint_derivatives(groupoid, constraints, g);
        if j + 1 < n {
            a.view_mut((K * j, R * j), (K, R)).copy_from(&left);
        }
        if j > 0 {
            a.view_mut((K * j, R * (j - 1)), (K, R)).copy_from(&(-right));
        }
    }
    if !a.iter().all(|v| v.is_finite()) || !grad.iter().all(|v| v.is_finite()) {
        return Err(GeomError::NonFinite { what: "action gradient or constraint Jacobian" });
    }
    let svd = a.svd(false, true);
    let v_t = svd.v_t.ok_or(GeomError::SingularMatrix { what: "SVD of the constraint Jacobian", iteration: 0 })?;
    let smax = svd.singular_values.max();
    let mut projected = grad.clone();
    for (i, s) in svd.singular_values.iter().enumerate() {
        if *s > RANK_RTOL * smax {
            let row = v_t.row(i).transpose();
            projected -= &row * row.dot(&grad);
        }
    }
    Ok(projected)
}
