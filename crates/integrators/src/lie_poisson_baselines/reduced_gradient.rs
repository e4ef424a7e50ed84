//! Gonzalez's discrete gradient of a function on `R^D` (a reduced Hamiltonian `h(μ)` on `g*`, or
//! `h(Π, Γ)` on `so(3)* × R^3`), taken from [`crate::energy_preserving::Gonzalez`] rather than
//! written a second time.
//!
//! [`Gonzalez`] is the discrete gradient of a function `H(q, p)` on `T*R^N`. A function `h(μ)` of
//! one vector is the phase-space function `H(q, p) = h(p)` ([`OnMomentum`]): at `q = q' = 0` the
//! increment is `Δ = (0, μ' − μ)`, so the `p` part of `∇̄H((0, μ), (0, μ'))` is Gonzalez's discrete
//! gradient of `h`,
//!
//! ```text
//!     ∇̄h(μ, μ') = ∇h(m) + (h(μ') − h(μ) − ∇h(m)·Δ) Δ / |Δ|²,     m = (μ + μ')/2,  Δ = μ' − μ,
//! ```
//!
//! and the `(p, p)` block of its Jacobian is `∂∇̄h/∂μ'`. A function `h(Π, Γ)` of two vectors of
//! `R^3` is `H(q, p) = h(p, q)` ([`Split`]) and needs no embedding; its derivatives are AD's, with
//! the mixed Hessian passes skipped for a model declared separable.

use crate::energy_preserving::{DiscreteGradient, Gonzalez, below_threshold};
use discretization::AdvectedFunction;
use geom_core::function::{
    AutoDiff, Hessian, PhaseSpaceDerivatives, PhaseSpaceFunction, ScalarDerivatives, ScalarFunction,
};
use geom_core::step::PhaseState;
use geom_core::{Scalar, hyper_dual};
use nalgebra::{SMatrix, SVector};

/// `H(q, p) = h(p)`: a function `h` of `μ ∈ R^D` (written once over the scalar) as a function on
/// `T*R^D` that does not depend on `q`, with its derivatives by [`AutoDiff`] in `p` alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OnMomentum<H>(pub H);

impl<H: ScalarFunction<D>, const D: usize> PhaseSpaceDerivatives<D> for OnMomentum<H> {
    #[inline]
    fn value(&self, _: &SVector<f64, D>, p: &SVector<f64, D>) -> f64 {
        self.0.eval(p)
    }
    #[inline]
    fn gradient(&self, _: &SVector<f64, D>, p: &SVector<f64, D>) -> (SVector<f64, D>, SVector<f64, D>) {
        (SVector::zeros(), AutoDiff(&self.0).gradient(p))
    }
    #[inline]
    fn hessian(&self, _: &SVector<f64, D>, p: &SVector<f64, D>) -> Hessian<D> {
        Hessian { qq: SMatrix::zeros(), qp: SMatrix::zeros(), pp: AutoDiff(&self.0).hessian(p) }
    }
    #[inline]
    fn gradient_and_hessian(
        &self,
        _: &SVector<f64, D>,
        p: &SVector<f64, D>,
    ) -> ((SVector<f64, D>, SVector<f64, D>), Hessian<D>) {
        let (g, pp) = AutoDiff(&self.0).gradient_and_hessian(p);
        ((SVector::zeros(), g), Hessian { qq: SMatrix::zeros(), qp: SMatrix::zeros(), pp })
    }
}

/// `H(q, p) = h(p, q)`: a reduced Hamiltonian `h(Π, Γ)` on `so(3)* × R^3` (the heavy top's
/// `½ Π·I⁻¹Π + mgl Γ·χ`) as a function on `T*R^3` with `q = Γ`, `p = Π`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Split<H>(pub H);

impl<H: AdvectedFunction<3, 3>> PhaseSpaceFunction<3> for Split<H> {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
        self.0.eval(p, q)
    }
}

/// The derivatives of `h(Π, Γ)` by [`AutoDiff`], except that a model that declares itself
/// separable ([`AdvectedFunction::is_separable`], `h = T(Π) + V(Γ)`) gets its Hessian without the
/// mixed passes: `∂²h/∂Γ∂Π = 0`, 12 hyper-dual passes instead of 21.
impl<H: AdvectedFunction<3, 3>> PhaseSpaceDerivatives<3> for Split<H> {
    #[inline]
    fn value(&self, q: &SVector<f64, 3>, p: &SVector<f64, 3>) -> f64 {
        self.0.eval(p, q)
    }
    #[inline]
    fn gradient(&self, q: &SVector<f64, 3>, p: &SVector<f64, 3>) -> (SVector<f64, 3>, SVector<f64, 3>) {
        AutoDiff(self).gradient(q, p)
    }
    #[inline]
    fn is_separable(&self) -> bool {
        self.0.is_separable()
    }
    fn hessian(&self, q: &SVector<f64, 3>, p: &SVector<f64, 3>) -> Hessian<3> {
        self.gradient_and_hessian(q, p).1
    }
    #[inline]
    fn gradient_and_hessian(
        &self,
        q: &SVector<f64, 3>,
        p: &SVector<f64, 3>,
    ) -> ((SVector<f64, 3>, SVector<f64, 3>), Hessian<3>) {
        let mixed = !self.0.is_separable();
        let (_, gradient, (qq, qp, pp)) = hyper_dual::phase_hessian(|qh, ph| self.eval(qh, ph), q, p, mixed);
        (gradient, Hessian { qq, qp, pp })
    }
}

/// Gonzalez's discrete gradient `∇̄h(μ, μ')` of `h` on `R^D` (module documentation), given
/// `h0 = h(μ)`: the numbers of [`Gonzalez`]'s `∇̄H((0, μ), (0, μ'))` (same threshold test, same
/// sums: the `q` parts it adds are zeros), without the zero `q` half and with `h(μ)` evaluated
/// once per step by the caller rather than at every residual.
#[inline]
pub(crate) fn gradient<H: ScalarFunction<D>, const D: usize>(
    dg: &Gonzalez<OnMomentum<H>>,
    mu: &SVector<f64, D>,
    h0: f64,
    mu1: &SVector<f64, D>,
) -> SVector<f64, D> {
    let h = &dg.hamiltonian().0;
    let delta = mu1 - mu;
    let n2 = delta.norm_squared();
    let g = AutoDiff(h).gradient(&((mu + mu1) * 0.5));
    if below_threshold(n2, 1.0 + mu.amax().max(mu1.amax())) {
        return g;
    }
    let k = (h.eval(mu1) - h0 - g.dot(&delta)) / n2;
    g + delta * k
}

/// `(∇̄h(μ, μ'), ∂∇̄h/∂μ')`, the Jacobian exact above Gonzalez's threshold
/// ([`crate::energy_preserving::DIFFERENCE_THRESHOLD`]) and `½ ∇²h(m)` below it.
#[inline]
pub(crate) fn gradient_and_jacobian<H: ScalarFunction<D>, const D: usize>(
    dg: &Gonzalez<OnMomentum<H>>,
    mu: &SVector<f64, D>,
    mu1: &SVector<f64, D>,
) -> (SVector<f64, D>, SMatrix<f64, D, D>) {
    let z = SVector::zeros();
    let (g, d) = dg.discrete_gradient_and_jacobian(&PhaseState::new(z, *mu), &PhaseState::new(z, *mu1));
    (g[1], d[1][1])
}
