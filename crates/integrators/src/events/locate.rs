//! Locating a zero of `g` inside one step: the estimate ([`Estimate`]), then the refinement.

use super::estimate::Estimate;
use super::event::EventFunction;
use super::secant::bracketed_secant;
use geom_core::GeomError;
use geom_core::step::OneStep;

/// How far a located event is refined after the estimate (module documentation of
/// [`crate::events`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Refinement {
    /// Secant iterations on `φ(τ) = g(Φ_τ(x_k))`, re-stepping from the step start, to round-off
    /// in `τ`: the event state is a state of the method (a step of size `τ`).
    #[default]
    Restep,
    /// The estimate only: the root of `g(u(θ))` on the cubic Hermite interpolant `u` (order 3, no
    /// extra step), or the step `Φ_{θ* h}` to the estimate of an estimate without an interpolant
    /// ([`super::LinearEstimate`]).
    Interpolant,
}

/// The event inside the step `x0 → x1` of size `h` (with `g(x0) = g0`, `g(x1) = g1` of a
/// crossing): `(τ, x(τ))` with `τ ∈ (0, h]` (in the direction of `h`). The [`Estimate`] `θ*`,
/// then, for [`Refinement::Restep`], the secant search on `φ(τ) = g(Φ_τ(x0))` from `θ* h`.
pub(crate) fn locate<M, G, E, St>(
    method: &M,
    g: &G,
    estimate: &E,
    refinement: Refinement,
    (x0, g0): (&St, f64),
    (x1, g1): (&St, f64),
    h: f64,
) -> Result<(f64, St), GeomError>
where
    M: OneStep<St> + ?Sized,
    G: EventFunction<St> + ?Sized,
    E: Estimate<St> + ?Sized,
    St: Clone,
{
    if g1 == 0.0 {
        return Ok((h, x1.clone()));
    }
    let (theta, interpolated) = estimate.estimate(g, (x0, g0), (x1, g1), h)?;
    let advance = |tau: f64| -> Result<St, GeomError> {
        let mut y = x0.clone();
        method.step(&mut y, tau)?;
        Ok(y)
    };
    let tau = match (refinement, interpolated) {
        (Refinement::Interpolant, Some(u)) => return Ok((theta * h, u)),
        (Refinement::Interpolant, None) => theta * h,
        (Refinement::Restep, _) => {
            // τ = 0 is the step start itself (no step of size 0 exists): bracket end (0, g0)
            bracketed_secant(|tau| Ok(g.value(&advance(tau)?)), (0.0, g0), (h, g1), theta * h)?.0
        }
    };
    if tau == h {
        return Ok((h, x1.clone()));
    }
    if tau == 0.0 {
        return Ok((0.0, x0.clone()));
    }
    Ok((tau, advance(tau)?))
}
