//! Locating a zero of `g` inside one step: the estimate ([`Estimate`]), then the refinement.

use super::estimate::Estimate;
use super::event::EventFunction;
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

/// Iterations allowed to each secant search (it stops at round-off long before: from the
/// Hermite estimate a few iterations suffice; bisection fallbacks halve the bracket).
const MAX_ITERATIONS: usize = 60;

/// A root of `φ` in the bracket `[a, b]` (`φ(a)`, `φ(b)` of opposite signs or one zero),
/// starting from `x0` inside it: secant steps from the two latest iterates, a bisection when a
/// secant iterate leaves the open bracket, until the iterate stops moving (`|Δ| ≤ 2ε |x|`), `φ`
/// vanishes, or the bracket shrinks to adjacent floats. Returns `(x, φ(x))` of the final iterate.
pub(crate) fn bracketed_secant(
    mut phi: impl FnMut(f64) -> Result<f64, GeomError>,
    (mut a, mut fa): (f64, f64),
    (mut b, fb): (f64, f64),
    x0: f64,
) -> Result<(f64, f64), GeomError> {
    if fa == 0.0 {
        return Ok((a, fa));
    }
    if fb == 0.0 {
        return Ok((b, fb));
    }
    let inside = |x: f64, a: f64, b: f64| x > a.min(b) && x < a.max(b);
    let mut x = if inside(x0, a, b) { x0 } else { 0.5 * (a + b) };
    let mut fx = phi(x)?;
    // the previous iterate: the bracket end nearer to x
    let (mut xp, mut fp) = if (x - a).abs() < (x - b).abs() { (a, fa) } else { (b, fb) };
    for _ in 0..MAX_ITERATIONS {
        if fx == 0.0 {
            break;
        }
        // shrink the bracket
        if (fx < 0.0) == (fa < 0.0) {
            (a, fa) = (x, fx);
        } else {
            b = x;
        }
        let secant = if fx != fp { x - fx * (x - xp) / (fx - fp) } else { f64::NAN };
        let next = if secant.is_finite() && inside(secant, a, b) { secant } else { 0.5 * (a + b) };
        if (next - x).abs() <= 2.0 * f64::EPSILON * x.abs() || !inside(next, a, b) {
            break;
        }
        (xp, fp) = (x, fx);
        x = next;
        fx = phi(x)?;
    }
    Ok((x, fx))
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
