//! The safeguarded secant search on a bracket, shared by the estimates and the refinement of an
//! event.

use geom_core::GeomError;

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
