//! The scalar type of every generic formula in geomint.
//!
//! A [`Scalar`] is `f64` or any first-level dual number of `num-dual` (`Dual64`, `DualSVec64<N>`,
//! `Dual2SVec64<N>`, `HyperDualSVec64<M, N>`). Every Lie-group formula, action and model function
//! is written once over `S: Scalar`, so that exact first and second derivatives come from
//! evaluating the same code on dual numbers (docs/architecture.md, "Derivatives: one model
//! function, many number types").
//! Nested duals are not `nalgebra::RealField` and are therefore not scalars.
//!
//! Method calls such as `x.sin()` on a value resolve to `nalgebra::ComplexField`; `x.re()` gives
//! the real (f64) part.

use nalgebra::{ArrayStorage, Const, RealField, SMatrix, SVector, U1};
use num_dual::{Derivative, DualNum, DualSVec64, HyperDualSVec64};

/// Real scalar for generic geometric code: `f64` and first-level dual numbers.
pub trait Scalar: RealField + DualNum<Primitive = f64> + Copy {}

impl<T: RealField + DualNum<Primitive = f64> + Copy> Scalar for T {}

/// `S::from(c)`: a constant `c` as a scalar (its derivative parts are zero).
#[inline(always)]
pub fn c<S: Scalar>(value: f64) -> S {
    S::from(value)
}

/// Evaluate the even power series `sum_k coeffs[k] t^k` at `t` (Horner), used with `t = theta^2`
/// for the small-angle branches, which keeps exact derivatives at `theta = 0` under dual numbers.
#[inline(always)]
pub fn series<S: Scalar>(t: S, coeffs: &[f64]) -> S {
    let mut acc = S::from(0.0);
    for &k in coeffs.iter().rev() {
        acc = acc * t + S::from(k);
    }
    acc
}

/// The same polynomial `Σ_k coeffs[k] t^k` by Estrin's scheme: adjacent terms are paired,
/// `c_{2i} + c_{2i+1} t`, and the pairs summed again as a polynomial in `t²`, and so on, so that
/// the chain of dependent operations is `O(log n)` long instead of Horner's `n` (a multiply and an
/// add each, on targets without fused multiply–add): for the short series of the small-angle
/// branches on the critical path of a Newton iteration. The rounding differs from Horner's in
/// the last bits. [`head`] takes the first terms of a longer table as an array.
#[inline(always)]
pub fn estrin<S: Scalar, const N: usize>(t: S, coeffs: &[f64; N]) -> S {
    let mut v = coeffs.map(S::from);
    let (mut n, mut x) = (N, t);
    while n > 1 {
        let half = n.div_ceil(2);
        for i in 0..half {
            v[i] = if 2 * i + 1 < n { v[2 * i] + v[2 * i + 1] * x } else { v[2 * i] };
        }
        n = half;
        x = x * x;
    }
    if N == 0 { S::from(0.0) } else { v[0] }
}

/// The first `N` entries of `c` (at compile time: a shorter `c` fails the build).
pub const fn head<const N: usize>(c: &[f64]) -> [f64; N] {
    let mut out = [0.0; N];
    let mut k = 0;
    while k < N {
        out[k] = c[k];
        k += 1;
    }
    out
}

/// `for $i in 0..$n { $body }`, written out with constant indices when `$n ≤ 4` (`$n` a const
/// generic: the untaken branches vanish at monomorphization).
macro_rules! unroll_upto_4 {
    ($n:expr, $i:ident => $body:block) => {
        if $n <= 4 {
            if $n > 0 {
                let $i = 0;
                $body
            }
            if $n > 1 {
                let $i = 1;
                $body
            }
            if $n > 2 {
                let $i = 2;
                $body
            }
            if $n > 3 {
                let $i = 3;
                $body
            }
        } else {
            for $i in 0..$n {
                $body
            }
        }
    };
}

/// The product `A C` of a matrix `A` at the scalar and a constant matrix `C` at `f64`:
/// `(A C)_ij = Σ_k A_ik C_kj`, each term a product `S × f64`, and the terms with `C_kj = 0` left
/// out.
///
/// This is how a model keeps its constant matrices (an inertia tensor, `J_d` of a discrete
/// Lagrangian) at `f64` inside an expression that AD evaluates at dual numbers. Lifting `C`
/// to the scalar (`C.map(S::from)`) and multiplying gives the same numbers, but every product
/// is then dual × dual, and IEEE arithmetic cannot drop a product by a zero entry (`x · 0`
/// is `NaN` for infinite `x`). Here, when `C` is known at compile time (built from constants
/// in an inlined `eval`), the tests `C_kj = 0` fold away, and a diagonal `C` costs what a
/// hand-written `Σ_i A_ii c_i` costs.
///
/// For finite `A` the result equals `A · C.map(S::from)` in every component, derivative parts
/// included (a dropped term is `±0`); only the sign of a zero may differ.
#[inline(always)]
pub fn mul_constant<S: Scalar, const R: usize, const K: usize, const C: usize>(
    a: &SMatrix<S, R, K>,
    c: &SMatrix<f64, K, C>,
) -> SMatrix<S, R, C> {
    // Column by column, `(AC)_{·j} = Σ_k A_{·k} C_kj`, one test per entry of `C`, on the
    // column-major arrays. The sums start at `−0` in every part, which `x + (−0) = x` lets the
    // compiler drop. The loops are written out for sizes up to 4, so that the compiler sees
    // constant indices, folds the tests, and finds the caller's `eval` small, before it decides
    // whether to inline it.
    let (a, c) = (&a.data.0, &c.data.0);
    let mut out = [[-S::zero(); R]; C];
    unroll_upto_4!(C, j => {
        unroll_upto_4!(K, k => {
            let ckj = c[j][k];
            if ckj != 0.0 {
                unroll_upto_4!(R, i => {
                    out[j][i] += a[k][i] * ckj;
                });
            }
        });
    });
    SMatrix::from_data(ArrayStorage(out))
}

/// A scalar `S` together with a scalar type `Up` that carries `D` more infinitesimal
/// directions `ε_1..ε_D`, so that a function evaluated at `Up` returns its value and its
/// gradient in those directions as `S` values (exact, by forward AD).
///
/// * `f64 -> DualSVec64<D>`: `x + Σ_k ∂_k ε_k`;
/// * `DualSVec64<M> -> HyperDualSVec64<M, D>`: the `M` directions of `S` become `eps1`, the new
///   ones `eps2`, and the gradient is read off `(eps2, eps1eps2)`, which is again a
///   `DualSVec64<M>` (value and derivative of the gradient).
pub trait AdScalar<const D: usize>: Scalar {
    /// The scalar with `D` further directions.
    type Up: Scalar;
    /// `self` as an `Up` constant in the new directions.
    fn up(self) -> Self::Up;
    /// `self + ε_k` (`k < D`).
    fn up_seeded(self, k: usize) -> Self::Up;
    /// The coefficients of `ε_1..ε_D` of `v`, as `S` values.
    fn gradient(v: &Self::Up) -> SVector<Self, D>;
}

impl<const D: usize> AdScalar<D> for f64 {
    type Up = DualSVec64<D>;
    #[inline]
    fn up(self) -> DualSVec64<D> {
        DualSVec64::from_re(self)
    }
    #[inline]
    fn up_seeded(self, k: usize) -> DualSVec64<D> {
        DualSVec64::new(self, Derivative::derivative_generic(Const::<D>, U1, k))
    }
    #[inline]
    fn gradient(v: &DualSVec64<D>) -> SVector<f64, D> {
        v.eps.unwrap_generic(Const::<D>, U1)
    }
}

impl<const M: usize, const D: usize> AdScalar<D> for DualSVec64<M> {
    type Up = HyperDualSVec64<M, D>;
    #[inline]
    fn up(self) -> HyperDualSVec64<M, D> {
        HyperDualSVec64::new(self.re, self.eps, Derivative::none(), Derivative::none())
    }
    #[inline]
    fn up_seeded(self, k: usize) -> HyperDualSVec64<M, D> {
        HyperDualSVec64::new(self.re, self.eps, Derivative::derivative_generic(U1, Const::<D>, k), Derivative::none())
    }
    #[inline]
    fn gradient(v: &HyperDualSVec64<M, D>) -> SVector<DualSVec64<M>, D> {
        let e2 = v.eps2.unwrap_generic(U1, Const::<D>);
        let e12 = v.eps1eps2.unwrap_generic(Const::<M>, Const::<D>);
        SVector::from_fn(|k, _| DualSVec64::new(e2[k], Derivative::some(e12.column(k).into_owned())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estrin_is_horner_to_round_off_with_its_derivative() {
        let c: Vec<f64> = (0..12).map(|k| if k % 2 == 0 { 1.0 } else { -1.0 } / (k as f64 + 2.0).powi(3)).collect();
        fn check<const N: usize>(c: &[f64]) {
            for t in [0.0, 1e-3, 0.015, 0.2, -0.7, 3.0] {
                let (a, b) = (estrin(t, &head::<N>(c)), series(t, &c[..N]));
                let n = N;
                let scale: f64 = c[..N].iter().enumerate().map(|(k, v)| (v * t.powi(k as i32)).abs()).sum();
                assert!((a - b).abs() <= 4.0 * f64::EPSILON * scale.max(1e-300), "n = {n}, t = {t}: {a} vs {b}");
            }
        }
        check::<0>(&c);
        check::<1>(&c);
        check::<2>(&c);
        check::<3>(&c);
        check::<4>(&c);
        check::<5>(&c);
        check::<6>(&c);
        check::<7>(&c);
        check::<9>(&c);
        check::<12>(&c);
        // at dual numbers the derivative part is the derivative polynomial's value
        let t = num_dual::Dual64::new(0.3, 1.0);
        let d = estrin(t, &head::<7>(&c));
        let dc: Vec<f64> = (1..7).map(|k| k as f64 * c[k]).collect();
        assert!((d.eps - series(0.3, &dc)).abs() < 1e-15);
    }

    #[test]
    fn gradients_at_f64_and_at_dual() {
        use nalgebra::ComplexField;
        type Dv = DualSVec64<1>;
        // F(x, y) = x^2 y + sin y: dF/dy = x^2 + cos y, and its x-derivative 2x
        let up = |x: Dv| <Dv as AdScalar<1>>::up(x);
        let f = |x: Dv, y: HyperDualSVec64<1, 1>| y * up(x) * up(x) + y.sin();
        let x = Dv::new(0.7, Derivative::derivative_generic(Const::<1>, U1, 0));
        let y = <Dv as AdScalar<1>>::up_seeded(Dv::from_re(0.3), 0);
        let g = <DualSVec64<1> as AdScalar<1>>::gradient(&f(x, y))[0];
        assert!((g.re - (0.49 + 0.3f64.cos())).abs() < 1e-15);
        assert!((g.eps.unwrap_generic(Const::<1>, U1)[0] - 1.4).abs() < 1e-15);
        let seed = |x: f64, k: usize| <f64 as AdScalar<2>>::up_seeded(x, k);
        let d = seed(0.3, 0) * seed(0.3, 0) + seed(0.0, 1);
        assert!((<f64 as AdScalar<2>>::gradient(&d)[0] - 0.6).abs() < 1e-15);
    }

    #[test]
    fn constant_products_equal_lifted_products_and_their_derivatives() {
        use num_dual::{Dual64, HyperDual64};
        let c = SMatrix::<f64, 3, 2>::new(0.0, 1.5, -2.0, 0.0, 0.25, 3.0);
        let a = |s: f64| {
            SMatrix::<f64, 2, 3>::from_fn(|i, j| {
                ((i * 3 + j) as f64 * 0.37 + s).sin() * if (i + j) % 2 == 0 { 2.0 } else { 1.0 }
            })
        };
        // at f64
        let (x, y) = (mul_constant(&a(0.1), &c), a(0.1) * c);
        assert!((x - y).amax() <= 1e-15 * y.amax(), "{x} vs {y}");
        // at Dual64, seeded along a curve s ↦ A(s): the derivative part is A'(s) C
        let ad = SMatrix::<Dual64, 2, 3>::from_fn(|i, j| {
            let f = |s: f64| a(s)[(i, j)];
            Dual64::new(f(0.1), (f(0.1 + 1e-6) - f(0.1 - 1e-6)) / 2e-6)
        });
        let (x, y) = (mul_constant(&ad, &c), ad * c.map(Dual64::from));
        for (u, v) in x.iter().zip(y.iter()) {
            assert!((u.re - v.re).abs() <= 1e-15 && (u.eps - v.eps).abs() <= 1e-14, "{u} vs {v}");
        }
        // sizes above 4 take the loops, not the written-out branches
        let big_c =
            SMatrix::<f64, 5, 6>::from_fn(|i, j| if (i * 7 + j) % 3 == 0 { 0.0 } else { (i + 2 * j) as f64 - 4.5 });
        let big_a = SMatrix::<f64, 7, 5>::from_fn(|i, j| ((i * 5 + j) as f64 * 0.61).cos());
        let (bx, by) = (mul_constant(&big_a, &big_c), big_a * big_c);
        assert!((bx - by).amax() <= 1e-14 * by.amax(), "{bx} vs {by}");
        // a scalar times a plain `f64` literal, the other form of a constant that stays `f64`
        fn scaled<S: Scalar>(x: S) -> S {
            x * 0.5
        }
        assert_eq!(scaled(Dual64::new(3.0, 2.0)), Dual64::new(1.5, 1.0));
        // a wrong product (transposed constant) is caught
        let ct = SMatrix::<f64, 3, 2>::from_fn(|i, j| c[(2 - i, j)]);
        assert!((mul_constant(&a(0.1), &ct) - y.map(|v| v.re)).amax() > 1e-3);
        // at HyperDual64: all four parts
        let ah = ad.map(|v| HyperDual64::new(v.re, v.eps, 0.5 * v.re, v.eps * v.re));
        let (x, y) = (mul_constant(&ah, &c), ah * c.map(HyperDual64::from));
        for (u, v) in x.iter().zip(y.iter()) {
            for (p, q) in [(u.re, v.re), (u.eps1, v.eps1), (u.eps2, v.eps2), (u.eps1eps2, v.eps1eps2)] {
                assert!((p - q).abs() <= 1e-14 * (1.0 + q.abs()), "{u} vs {v}");
            }
        }
    }
}
