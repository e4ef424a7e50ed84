//! The scalar type of every generic formula in geomint.
//!
//! A [`Scalar`] is `f64` or any first-level dual number of `num-dual` (`Dual64`, `DualSVec64<N>`,
//! `Dual2SVec64<N>`, `HyperDualSVec64<M, N>`). Every Lie-group formula, action and model function
//! is written once over `S: Scalar`, so that exact first and second derivatives come from
//! evaluating the same code on dual numbers (DESIGN.md, "one model function, many number types").
//! Nested duals are not `nalgebra::RealField` and are therefore not scalars.
//!
//! Method calls such as `x.sin()` on a value resolve to `nalgebra::ComplexField`; `x.re()` gives
//! the real (f64) part.

use nalgebra::RealField;
use num_dual::DualNum;

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
