//! The pair groupoid `Q × Q ⇉ Q` of `Q = R^N` (docs/math.md §C.1): `α(x, y) = x`, `β(x, y) = y`,
//! `ε(x) = (x, x)`, `i(x, y) = (y, x)`, `(x, y)(y, z) = (x, z)`; algebroid `TQ` with fibre chart
//! `exp_x(v) = (x, x + v)`. Its discrete Euler–Lagrange equations are the standard variational
//! integrator `D_2 L(q_{k-1}, q_k) + D_1 L(q_k, q_{k+1}) = 0` (Marsden–West).
//!
//! Time-dependent mechanics lives on the pair groupoid of the extended configuration space
//! `Q × R = R^{N+1}`: `PairGroupoid<{N + 1}>` with the last coordinate the time (docs/math.md
//! §C.6.4; `examples/time_dependent.rs`).

use crate::groupoid::LieGroupoid;
use geom_core::{Result, Scalar};
use nalgebra::SVector;

/// The pair groupoid of `R^N`; elements `(q_0, q_1)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairGroupoid<const N: usize>;

impl<S: Scalar, const N: usize> LieGroupoid<S, N> for PairGroupoid<N> {
    type Element = (SVector<S, N>, SVector<S, N>);
    type Base = SVector<S, N>;

    fn name(&self) -> String {
        format!("pair groupoid R^{N} x R^{N}")
    }
    fn source(&self, g: &Self::Element) -> SVector<S, N> {
        g.0
    }
    fn target(&self, g: &Self::Element) -> SVector<S, N> {
        g.1
    }
    fn identity(&self, x: &SVector<S, N>) -> Self::Element {
        (*x, *x)
    }
    fn inverse(&self, g: &Self::Element) -> Self::Element {
        (g.1, g.0)
    }
    fn multiply(&self, g: &Self::Element, h: &Self::Element) -> Self::Element {
        (g.0, h.1)
    }
    fn base_distance(&self, a: &SVector<S, N>, b: &SVector<S, N>) -> f64 {
        (a - b).map(|v| v.re()).norm()
    }
    fn fibre_exp(&self, x: &SVector<S, N>, v: &SVector<S, N>) -> Self::Element {
        (*x, x + v)
    }
    fn fibre_log(&self, g: &Self::Element) -> Result<SVector<S, N>> {
        Ok(g.1 - g.0)
    }
    /// `(x, y + v)` (the default `g · exp_y(v)`, without the intermediate arrows).
    fn left_curve(&self, g: &Self::Element, v: &SVector<S, N>) -> Self::Element {
        (g.0, g.1 + v)
    }
    /// `(x − v, y)` (the default `i(exp_x(−v)) · g`, without the intermediate arrows).
    fn right_curve(&self, g: &Self::Element, v: &SVector<S, N>) -> Self::Element {
        (g.0 - v, g.1)
    }
}

impl<const N: usize> crate::lagrangian::GroupoidFamily<N> for PairGroupoid<N> {
    type Element<S: Scalar> = (SVector<S, N>, SVector<S, N>);
    type Base<S: Scalar> = SVector<S, N>;
    /// `(x, y + εv)` (left) and `(x − εv, y)` (right).
    #[inline]
    fn invariant_jet(
        &self,
        g: &(SVector<f64, N>, SVector<f64, N>),
        v: &SVector<f64, N>,
        side: geom_core::lie::Side,
    ) -> Option<(SVector<num_dual::Dual64, N>, SVector<num_dual::Dual64, N>)> {
        use num_dual::Dual64;
        Some(match side {
            geom_core::lie::Side::Left => (g.0.map(Dual64::from_re), g.1.zip_map(v, Dual64::new)),
            geom_core::lie::Side::Right => (g.0.zip_map(v, |x, d| Dual64::new(x, -d)), g.1.map(Dual64::from_re)),
        })
    }
    /// `exp_x(ξ) = (x, x + ξ)`: `C = I` with the `Left` jet `(x, y + δv)`.
    #[inline]
    fn fibre_differential(
        &self,
        _x: &SVector<f64, N>,
        _xi: &SVector<f64, N>,
    ) -> Option<(nalgebra::SMatrix<f64, N, N>, geom_core::lie::Side)> {
        Some((nalgebra::SMatrix::identity(), geom_core::lie::Side::Left))
    }
    /// `(x, y + εv)` and `(x − εv, y)` at `HyperDual64`.
    #[inline]
    fn invariant_jet_dual(
        &self,
        g: &(SVector<num_dual::Dual64, N>, SVector<num_dual::Dual64, N>),
        v: &SVector<f64, N>,
        side: geom_core::lie::Side,
    ) -> Option<(SVector<num_dual::HyperDual64, N>, SVector<num_dual::HyperDual64, N>)> {
        use num_dual::HyperDual64;
        let lift = |x: &SVector<num_dual::Dual64, N>| x.map(|a| HyperDual64::new(a.re, a.eps, 0.0, 0.0));
        let moved =
            |x: &SVector<num_dual::Dual64, N>, s: f64| x.zip_map(v, |a, d| HyperDual64::new(a.re, a.eps, s * d, 0.0));
        Some(match side {
            geom_core::lie::Side::Left => (lift(&g.0), moved(&g.1, 1.0)),
            geom_core::lie::Side::Right => (moved(&g.0, -1.0), lift(&g.1)),
        })
    }
}

impl<S: Scalar, const N: usize> crate::lagrangian::GroupoidLift<S, N> for PairGroupoid<N> {
    fn lift(&self, g: &(SVector<f64, N>, SVector<f64, N>)) -> (SVector<S, N>, SVector<S, N>) {
        (g.0.map(S::from), g.1.map(S::from))
    }
    fn lift_base(&self, x: &SVector<f64, N>) -> SVector<S, N> {
        x.map(S::from)
    }
}
