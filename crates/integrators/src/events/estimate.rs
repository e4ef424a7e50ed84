//! The first estimate of a crossing inside a step, before the refinement by re-stepping: the
//! cubic Hermite interpolant where a vector field is known ([`HermiteEstimate`]), the linear
//! interpolation of `g` on any state space ([`LinearEstimate`]).

use super::event::EventFunction;
use super::hermite::Hermite;
use super::secant::bracketed_secant;
use crate::classical::VectorField;
use geom_core::GeomError;
use geom_core::step::PhaseState;

/// An estimate `θ* ∈ [0, 1]` of the zero of `g` inside a step `x₀ → x₁` of size `h` with
/// `g(x₀) = g₀`, `g(x₁) = g₁` of opposite signs (`g₁ ≠ 0`), and the state `u(θ*)` of an
/// interpolant if the estimate has one (the result of [`super::Refinement::Interpolant`]).
pub trait Estimate<St>: Send + Sync {
    /// `(θ*, u(θ*))` (above).
    fn estimate<G: EventFunction<St> + ?Sized>(
        &self,
        g: &G,
        x0: (&St, f64),
        x1: (&St, f64),
        h: f64,
    ) -> Result<(f64, Option<St>), GeomError>;
}

/// The root of `g(u(θ))` on the cubic [`Hermite`] interpolant `u` of the step, built from the
/// vector field `F` at both ends (two evaluations per located crossing), by safeguarded secant
/// iterations on `[0, 1]` from the linear estimate `g₀/(g₀ − g₁)`: event time error `O(h⁴)`
/// before the refinement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HermiteEstimate<F>(pub F);

impl<F: VectorField<PhaseState<N>>, const N: usize> Estimate<PhaseState<N>> for HermiteEstimate<F> {
    fn estimate<G: EventFunction<PhaseState<N>> + ?Sized>(
        &self,
        g: &G,
        (x0, g0): (&PhaseState<N>, f64),
        (x1, g1): (&PhaseState<N>, f64),
        h: f64,
    ) -> Result<(f64, Option<PhaseState<N>>), GeomError> {
        let u = Hermite::new(*x0, self.0.eval(x0)?, *x1, self.0.eval(x1)?, h);
        let (theta, _) = bracketed_secant(|t| Ok(g.value(&u.eval(t))), (0.0, g0), (1.0, g1), g0 / (g0 - g1))?;
        Ok((theta, Some(u.eval(theta))))
    }
}

/// The zero `θ* = g₀/(g₀ − g₁)` of the linear interpolation of `g` over the step, on any state
/// space (a Lie group's `T*G`, where states are not added): time error `O(h²)` before the
/// refinement, which then takes a few more re-steps than from the Hermite estimate. It has no
/// interpolated state: [`super::Refinement::Interpolant`] takes the step `Φ_{θ* h}(x₀)` once.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinearEstimate;

impl<St> Estimate<St> for LinearEstimate {
    fn estimate<G: EventFunction<St> + ?Sized>(
        &self,
        _: &G,
        (_, g0): (&St, f64),
        (_, g1): (&St, f64),
        _: f64,
    ) -> Result<(f64, Option<St>), GeomError> {
        Ok((g0 / (g0 - g1), None))
    }
}
