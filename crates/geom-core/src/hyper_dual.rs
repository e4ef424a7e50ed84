//! Exact second derivatives by one-direction hyper-dual passes.
//!
//! A hyper-dual number `a + b ε₁ + c ε₂ + d ε₁ε₂` (`ε₁² = ε₂² = 0`, `ε₁ε₂ ≠ 0`) carries through
//! any function written over the [`Scalar`](crate::Scalar) the value and the three derivative
//! parts
//!
//! ```text
//!     f(x + u ε₁ + v ε₂) = f(x) + Df(x)[u] ε₁ + Df(x)[v] ε₂ + D²f(x)[u, v] ε₁ε₂,
//! ```
//!
//! exactly (no truncation, no cancellation). Seeding `u = e_i`, `v = e_j` gives
//! `∂²f/∂x_i∂x_j` in the `ε₁ε₂` part and `∂f/∂x_i`, `∂f/∂x_j` in the `ε₁`, `ε₂` parts.
//!
//! [`hessian`] takes the `N(N + 1)/2` passes `i <= j` (the Hessian is symmetric),
//! [`partial_hessian`] the `N·M` passes of a mixed block `∂²f/∂x_i∂y_j`, [`phase_hessian`] the
//! blocks of `f(q, p)`. Each pass is a `HyperDual64`: four `f64` and no optional storage, so the
//! passes are independent straight-line code. The vector hyper-dual types of `num-dual`
//! (`HyperDualSVec64<N, M>`, `Dual2SVec64<N>`) give the same numbers in one pass, but keep each
//! derivative part as an optional matrix; for the dimensions of mechanics (a Hamiltonian on
//! `R² × R²`, a Lagrangian on SO(3) or SE(3)) the directional passes are an order of magnitude
//! faster (Kepler's gradient and 4 × 4 Hessian: 64 ns against 760–925 ns), and the results agree
//! to round-off (tests below).
//!
//! [`AutoDiff`](crate::function::AutoDiff)'s Hessians use [`phase_hessian`]; the left-trivialized
//! Hessian blocks on Lie groups, the groupoid Legendre transforms and discrete Euler–Lagrange
//! Newton matrices, and the variational integrators use [`partial_hessian`] or the same passes.
//!
//! The passes are fast when the compiler inlines the model into them. A model's `eval` is a
//! generic function instantiated in the crate that calls the integrator; rustc inlines it across
//! codegen units only if it is `#[inline]`, so mark the model's `eval` `#[inline]` (as every model
//! of the workspace, its examples and its docs does) or build with `codegen-units = 1` (the
//! workspace keeps rustc's default of 16 in release builds).

use nalgebra::{SMatrix, SVector};
use num_dual::HyperDual64;

/// `x` as a hyper-dual number with derivative parts `e1` (`ε₁`) and `e2` (`ε₂`) and no `ε₁ε₂` part.
#[inline(always)]
pub fn seed(x: f64, e1: f64, e2: f64) -> HyperDual64 {
    HyperDual64::new(x, e1, e2, 0.0)
}

/// `x` lifted to hyper-dual numbers with `ε₁` seeded on component `i` and `ε₂` on component `j`
/// (`None`: that part zero).
#[inline(always)]
pub fn seeded<const N: usize>(x: &SVector<f64, N>, i: Option<usize>, j: Option<usize>) -> SVector<HyperDual64, N> {
    SVector::from_fn(|k, _| seed(x[k], if Some(k) == i { 1.0 } else { 0.0 }, if Some(k) == j { 1.0 } else { 0.0 }))
}

/// `(f(x), ∇f(x), D²f(x))` of `f: R^N → R`, written once over the scalar and given here at
/// `HyperDual64`, by the `N(N + 1)/2` passes `x + e_i ε₁ + e_j ε₂`, `i <= j`:
/// `D²f_ij = D²f_ji` is the `ε₁ε₂` part, `∂f/∂x_i` the `ε₁` part of the pass `(i, i)`.
#[inline]
pub fn hessian<const N: usize>(
    f: impl Fn(&SVector<HyperDual64, N>) -> HyperDual64,
    x: &SVector<f64, N>,
) -> (f64, SVector<f64, N>, SMatrix<f64, N, N>) {
    let mut value = 0.0;
    let mut grad = SVector::<f64, N>::zeros();
    let mut hess = SMatrix::<f64, N, N>::zeros();
    if N == 0 {
        return (f(&SVector::from_fn(|k, _| seed(x[k], 0.0, 0.0))).re, grad, hess);
    }
    for i in 0..N {
        for j in i..N {
            let r = f(&seeded(x, Some(i), Some(j)));
            if i == j {
                grad[i] = r.eps1;
                value = r.re;
            }
            hess[(i, j)] = r.eps1eps2;
            hess[(j, i)] = r.eps1eps2;
        }
    }
    (value, grad, hess)
}

/// `(f(x, y), ∂f/∂x, ∂f/∂y, ∂²f/∂x∂y)` of `f: R^N × R^M → R` (the mixed block
/// `[(i, j)] = ∂²f/∂x_i∂y_j`), written once over the scalar and given here at `HyperDual64`, by
/// the `N·M` passes `(x + e_i ε₁, y + e_j ε₂)`: the mixed derivative is the `ε₁ε₂` part,
/// `∂f/∂x_i` the `ε₁` part of the pass `(i, 0)`, `∂f/∂y_j` the `ε₂` part of the pass `(0, j)`
/// (first-order passes when the other side is empty).
#[inline]
pub fn partial_hessian<const N: usize, const M: usize>(
    f: impl Fn(&SVector<HyperDual64, N>, &SVector<HyperDual64, M>) -> HyperDual64,
    x: &SVector<f64, N>,
    y: &SVector<f64, M>,
) -> (f64, SVector<f64, N>, SVector<f64, M>, SMatrix<f64, N, M>) {
    let mut gx = SVector::<f64, N>::zeros();
    let mut gy = SVector::<f64, M>::zeros();
    let mut mixed = SMatrix::<f64, N, M>::zeros();
    let mut value = 0.0;
    // one loop, one call site of `f` (so that the compiler can inline the model into it); the
    // passes with an empty side are first-order passes
    let (rows, cols) = (N.max(1), M.max(1));
    for k in 0..rows * cols {
        let (i, j) = (k / cols, k % cols);
        let (si, sj) = (if N == 0 { None } else { Some(i) }, if M == 0 { None } else { Some(j) });
        let r = f(&seeded(x, si, None), &seeded(y, None, sj));
        value = r.re;
        if N > 0 && (j == 0 || M == 0) {
            gx[i] = r.eps1;
        }
        if M > 0 && (i == 0 || N == 0) {
            gy[j] = r.eps2;
        }
        if N > 0 && M > 0 {
            mixed[(i, j)] = r.eps1eps2;
        }
    }
    (value, gx, gy, mixed)
}

/// The value, gradient and Hessian blocks of `f: R^N × R^N → R`, `f(q, p)`, as returned by
/// [`phase_hessian`]: `(f, (∂f/∂q, ∂f/∂p), (∂²f/∂q², ∂²f/∂q∂p, ∂²f/∂p²))`.
pub type PhaseHessian<const N: usize> =
    (f64, (SVector<f64, N>, SVector<f64, N>), (SMatrix<f64, N, N>, SMatrix<f64, N, N>, SMatrix<f64, N, N>));

/// The value, gradient and Hessian of `f(q, p)`, `q, p ∈ R^N`, in the blocks `∂²f/∂q²`,
/// `∂²f/∂q∂p` (`[(i, j)] = ∂²f/∂q_i∂p_j`) and `∂²f/∂p²`, by the passes `z + e_a ε₁ + e_b ε₂`,
/// `a <= b`, over the concatenation `z = (q, p)`: `N(2N + 1)` passes, or `N(N + 1)` when
/// `mixed` is `false` (the mixed block is then left zero: for a separable `f = T(p) + V(q)`).
/// One loop with one call site of `f`, so that the compiler can inline the model into it.
#[inline]
pub fn phase_hessian<const N: usize>(
    f: impl Fn(&SVector<HyperDual64, N>, &SVector<HyperDual64, N>) -> HyperDual64,
    q: &SVector<f64, N>,
    p: &SVector<f64, N>,
    mixed: bool,
) -> PhaseHessian<N> {
    let (mut gq, mut gp) = (SVector::<f64, N>::zeros(), SVector::<f64, N>::zeros());
    let (mut qq, mut qp, mut pp) = (SMatrix::<f64, N, N>::zeros(), SMatrix::zeros(), SMatrix::zeros());
    if N == 0 {
        return (f(&seeded(q, None, None), &seeded(p, None, None)).re, (gq, gp), (qq, qp, pp));
    }
    let mut value = 0.0;
    let side = |a: usize| if a < N { (Some(a), None) } else { (None, Some(a - N)) };
    for a in 0..2 * N {
        for b in a..2 * N {
            if !mixed && (a < N) != (b < N) {
                continue;
            }
            let ((qa, pa), (qb, pb)) = (side(a), side(b));
            let r = f(&seeded(q, qa, qb), &seeded(p, pa, pb));
            value = r.re;
            if b < N {
                // both seeds on q
                if a == b {
                    gq[a] = r.eps1;
                }
                qq[(a, b)] = r.eps1eps2;
                qq[(b, a)] = r.eps1eps2;
            } else if a >= N {
                // both seeds on p
                let (i, j) = (a - N, b - N);
                if i == j {
                    gp[i] = r.eps1;
                }
                pp[(i, j)] = r.eps1eps2;
                pp[(j, i)] = r.eps1eps2;
            } else {
                qp[(a, b - N)] = r.eps1eps2;
            }
        }
    }
    (value, (gq, gp), (qq, qp, pp))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scalar;
    use nalgebra::Vector3;
    use num_dual::{Dual2SVec64, HyperDualSVec64};

    fn f<S: Scalar>(x: &SVector<S, 3>) -> S {
        (x[0] * x[1]).sin() + x[2].powi(3) * x[0] - (x.norm_squared() + S::from(1.0)).ln()
    }
    fn g<S: Scalar>(x: &SVector<S, 3>, y: &SVector<S, 2>) -> S {
        (x[0] * y[1]).cos() * x[2] + y[0].exp() * x[1] * x[1] + x.dot(&Vector3::new(y[0], y[1], y[0] * y[1]))
    }

    #[test]
    fn hessian_equals_num_dual_vector_hyper_dual() {
        let x = Vector3::new(0.3, -1.2, 0.7);
        let (v, gr, h) = hessian(f, &x);
        let (v0, g0, h0) = num_dual::hessian(|x: SVector<Dual2SVec64<3>, 3>| f(&x), &x);
        assert_eq!(v, v0);
        assert!((gr - g0).amax() <= 1e-15 && (h - h0).amax() <= 1e-14, "{gr} {g0} {h} {h0}");
        assert_eq!(h, h.transpose());
    }

    #[test]
    fn phase_hessian_equals_the_blocks_of_the_full_hessian() {
        let z = SVector::<f64, 4>::new(0.3, -1.2, 0.7, 0.4);
        fn f4<S: Scalar>(z: &SVector<S, 4>) -> S {
            (z[0] * z[3]).sin() + z[1].powi(3) * z[2] - (z.norm_squared() + S::from(1.0)).ln()
        }
        let (v, g, h) = hessian(f4, &z);
        let split =
            |q: &SVector<HyperDual64, 2>, p: &SVector<HyperDual64, 2>| f4(&SVector::from([q[0], q[1], p[0], p[1]]));
        let (q, p) = (z.fixed_rows::<2>(0).into_owned(), z.fixed_rows::<2>(2).into_owned());
        let (v2, (gq, gp), (qq, qp, pp)) = phase_hessian(split, &q, &p, true);
        assert_eq!(v, v2);
        assert_eq!((gq, gp), (g.fixed_rows::<2>(0).into_owned(), g.fixed_rows::<2>(2).into_owned()));
        assert_eq!(qq, h.fixed_view::<2, 2>(0, 0).into_owned());
        assert_eq!(qp, h.fixed_view::<2, 2>(0, 2).into_owned());
        assert_eq!(pp, h.fixed_view::<2, 2>(2, 2).into_owned());
        assert!(qp.amax() > 0.1, "a coupled function has a mixed block");
        // without the mixed passes: the same diagonal blocks, a zero mixed block
        let (_, _, (qq0, qp0, pp0)) = phase_hessian(split, &q, &p, false);
        assert_eq!((qq0, pp0, qp0), (qq, pp, SMatrix::zeros()));
    }

    #[test]
    fn partial_hessian_equals_num_dual_and_a_wrong_seed_does_not() {
        let (x, y) = (Vector3::new(0.3, -1.2, 0.7), SVector::<f64, 2>::new(0.4, 2.0));
        let (v, gx, gy, m) = partial_hessian(g, &x, &y);
        type H = HyperDualSVec64<3, 2>;
        let (v0, gx0, gy0, m0) =
            num_dual::partial_hessian(|(x, y): (SVector<H, 3>, SVector<H, 2>)| g(&x, &y), (&x, &y));
        assert_eq!(v, v0);
        assert!((gx - gx0).amax() <= 1e-14 && (gy - gy0).amax() <= 1e-14 && (m - m0).amax() <= 1e-14);
        // the mixed block is not symmetric in general, and not its transpose read back
        assert!((m.fixed_view::<2, 2>(0, 0) - m.fixed_view::<2, 2>(0, 0).transpose()).amax() > 1e-3);
        // empty side: first-order passes
        let (v1, gx1, _, _) = partial_hessian(|x, _: &SVector<HyperDual64, 0>| f(x), &x, &SVector::zeros());
        assert_eq!(v1, f(&x));
        assert!((gx1 - hessian(f, &x).1).amax() <= 1e-15);
    }
}
