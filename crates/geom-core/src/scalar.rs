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

use nalgebra::{Const, RealField, SVector, U1};
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
}
