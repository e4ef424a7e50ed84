//! The exact flow of the Kepler problem `H = |p|²/2 − μ/|q|` by universal variables.
//!
//! Following Danby, *Fundamentals of Celestial Mechanics*, 2nd ed., 1988, §6.7–6.9: with
//! `r_0 = |q_0|`, `η_0 = q_0·p_0`, `β = 2μ/r_0 − |p_0|²` (`= μ/a`, `> 0` on an ellipse,
//! `< 0` on a hyperbola), `ζ_0 = μ − β r_0` and the universal anomaly `s` (`ds/dt = 1/r`), the
//! functions `G_k(s) = s^k c_k(β s²)` of the Stumpff functions [`super::stumpff`] give
//!
//! ```text
//!   Kepler's equation   F(s) = r_0 G_1 + η_0 G_2 + μ G_3 − t = 0,
//!   F'(s) = r(s) = r_0 G_0 + η_0 G_1 + μ G_2 > 0,     F''(s) = η_0 G_0 + ζ_0 G_1,
//!   q(t) = f q_0 + g p_0,    p(t) = ḟ q_0 + ġ p_0,
//!   f − 1 = −μ G_2 / r_0,   g = r_0 G_1 + η_0 G_2,   ḟ = −μ G_1 / (r r_0),   ġ − 1 = −μ G_2 / r,
//! ```
//!
//! valid for every conic (elliptic, parabolic, hyperbolic) in any dimension `N` (the motion
//! stays in the plane of `q_0`, `p_0`); `q(t) = q_0 + ((f − 1) q_0 + g p_0)` and
//! `p(t) = p_0 + (ḟ q_0 + (ġ − 1) p_0)` are formed as increments. `β` is formed in
//! double-double where its two terms cancel (near the pericentre of an eccentric orbit, and on
//! near-parabolic ones): its rounding error would otherwise be `ε (2μ/r_0 + |p_0|²)/|β|`
//! relative, up to `2ε/(1 − e)`, a phase error growing with every period.
//!
//! **Solving Kepler's equation.** `F` is increasing (`F' = r > 0`), so the root is unique and
//! bracketed: `ds/dt = 1/r ≤ 1/r_p` (pericentre distance `r_p = L²/(μ(1 + e))`) gives
//! `0 ≤ s ≤ t/r_p` for `t > 0` (and the mirror image for `t < 0`), `t/r_0` instead of `t/r_p`
//! on an open orbit moving away from the centre (`β ≤ 0`, `η_0 t ≥ 0`), and on an ellipse, after
//! reducing `t` modulo the period `P = 2π μ / β^{3/2}` to `|t| ≤ P/2` (exactly: `t mod P`
//! is exact in floating point), `|s| ≤ 2π/√β`. The root is found by Laguerre's iteration with
//! `n = 5`, `s ← s − 5F / (F' + √|16 F'² − 20 F F''|)` (Conway, *An improved algorithm due to
//! Laguerre for the solution of Kepler's equation*, Celest. Mech. 39, 1986), kept inside the
//! bracket (a step that leaves it is replaced by bisection, or by doubling while the bracket
//! is unbounded; on a short stretch the a priori bound, which costs two square roots and three
//! divisions, is computed only at the first step that needs it: the values of `F` already
//! bracket the root), from `s = t/r_0 − η_0 t²/(2 r_0³)` on a short stretch of orbit (a step of a
//! planetary integration), else from the root of Barker's (parabolic) equation where the orbit
//! is parabola-like, else the starting value of the eccentric anomaly `E = M + 0.85 e sgn(sin M)`
//! (Danby 1988, §6.6) on an ellipse and `H = asinh(M/e)` on a hyperbola. It stops when the
//! residual `|F|` is below its own round-off `2ε (|r_0 G_1| + |η_0 G_2| + |μ G_3| + |t|)`,
//! the Laguerre step below `4ε|s|` or the bracket below `4ε max|s|`; a Laguerre step is taken
//! only while `|F|` at least halves per iteration (else bisection); after
//! [`MAX_ITERATIONS`] iterations it gives up with [`GeomError::NotConverged`] (it never hangs).

use super::exact_flow::ExactFlow;
use super::stumpff::stumpff;
use geom_core::GeomError;
use geom_core::error_free::{sum_of_squares, two_sum};
use geom_core::step::PhaseState;
use std::f64::consts::TAU;

/// The iterations of Laguerre's method (with bisection) allowed per call.
pub const MAX_ITERATIONS: usize = 100;

/// What a Kepler drift did: the iterations of the solve, and `δt`, a bound of the round-off
/// in evaluating Kepler's equation at the solution, `2ε (|r_0 G_1| + |η_0 G_2| + |μ G_3| + |t|)`
/// (or the residual `|F|` if larger): the state reached is the exact flow at a time within
/// about `δt` of `t`. It is `O(ε|t|)` unless the terms of Kepler's equation cancel (a long
/// stretch of an open orbit through its pericentre: they grow like `e^{|ΔH|}`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeplerSolve {
    /// Iterations of Laguerre's method and bisection (0 when `t = 0` or a whole number of
    /// periods).
    pub iterations: usize,
    /// `δt` (above).
    pub time_error: f64,
}

/// The Kepler drift: the exact flow of `H = |p|²/2 − μ/|q|` (module documentation).
///
/// ```
/// use geom_core::step::PhaseState;
/// use integrators::splitting::{ExactFlow, KeplerDrift};
/// use nalgebra::Vector2;
/// let kepler = KeplerDrift::new(1.0)?;
/// // the circular orbit of radius 1 has period 2π: a quarter of it is a quarter turn
/// let mut s = PhaseState::new(Vector2::new(1.0, 0.0), Vector2::new(0.0, 1.0));
/// kepler.flow(&mut s, std::f64::consts::FRAC_PI_2)?;
/// assert!((s.q - Vector2::new(0.0, 1.0)).norm() < 1e-15 && (s.p - Vector2::new(-1.0, 0.0)).norm() < 1e-15);
/// assert!(KeplerDrift::new(0.0).is_err());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeplerDrift {
    mu: f64,
}

impl KeplerDrift {
    /// The Kepler problem of gravitational parameter `mu`; [`GeomError::InvalidParameter`]
    /// unless it is finite and positive.
    pub fn new(mu: f64) -> Result<Self, GeomError> {
        if mu.is_finite() && mu > 0.0 {
            Ok(Self { mu })
        } else {
            Err(GeomError::InvalidParameter {
                what: "gravitational parameter",
                reason: format!("{mu} is not finite and > 0"),
            })
        }
    }
    /// `μ`.
    pub fn mu(&self) -> f64 {
        self.mu
    }
    /// `H = |p|²/2 − μ/|q|`.
    pub fn energy<const N: usize>(&self, s: &PhaseState<N>) -> f64 {
        0.5 * s.p.norm_squared() - self.mu / s.q.norm()
    }

    /// `state ← φ_t(state)`, returning the iterations of the solve and the accuracy of the
    /// time reached ([`KeplerSolve`]). Errors, with the state untouched:
    /// [`GeomError::NonFinite`] for a non-finite `t` or state (or a result that overflows),
    /// [`GeomError::OutsideDomain`] at `q = 0`, [`GeomError::NotConverged`] when Kepler's
    /// equation is not solved in [`MAX_ITERATIONS`] iterations.
    pub fn advance<const N: usize>(&self, state: &mut PhaseState<N>, t: f64) -> Result<KeplerSolve, GeomError> {
        if !t.is_finite() {
            return Err(GeomError::NonFinite { what: "Kepler drift time" });
        }
        if !state.is_finite() {
            return Err(GeomError::NonFinite { what: "Kepler drift state" });
        }
        if t == 0.0 {
            return Ok(KeplerSolve { iterations: 0, time_error: 0.0 });
        }
        let mu = self.mu;
        let (q0, p0) = (state.q, state.p);
        let r0 = q0.norm();
        if r0 == 0.0 {
            return Err(GeomError::OutsideDomain { map: "Kepler drift", reason: "q = 0 (collision)" });
        }
        let v2 = p0.norm_squared();
        let eta = q0.dot(&p0);
        let beta = energy_parameter(mu, &q0, &p0, r0, v2);
        let zeta = mu - beta * r0;
        // the eccentricity and the pericentre distance (for the bracket and the starting values
        // of long stretches), computed only where needed
        let conic = || {
            let l2 = (r0 * r0 * v2 - eta * eta).max(0.0);
            let ecc = (1.0 - beta * l2 / (mu * mu)).max(0.0).sqrt();
            (ecc, l2 / (mu * (1.0 + ecc)))
        };

        // reduce t modulo the period of an ellipse (|t| > P/2 ⇔ t² β³ > (π μ)²)
        let mut t = t;
        if beta > 0.0 && t * t * (beta * beta * beta) > (0.5 * TAU * mu) * (0.5 * TAU * mu) {
            let period = TAU * mu / (beta * beta.sqrt());
            if t.abs() > 0.5 * period {
                t %= period;
                if t > 0.5 * period {
                    t -= period;
                } else if t < -0.5 * period {
                    t += period;
                }
                if t == 0.0 {
                    return Ok(KeplerSolve { iterations: 0, time_error: 0.0 });
                }
            }
        }
        // the a priori bracket of s (module documentation): taken at the start of a long
        // stretch, else at the first iteration that needs it (a starting value or a Laguerre
        // step outside the bracket of the values of F seen so far, or beyond 2|t|/r_0)
        let bound = || {
            let s_max = if beta > 0.0 { TAU / beta.sqrt() } else { f64::INFINITY };
            // moving away from the centre on an open orbit, r ≥ r_0 from now on
            let receding = beta <= 0.0 && eta * t >= 0.0;
            (t.abs() / if receding { r0 } else { conic().1 }).min(s_max)
        };
        let bounded = |lo: f64, hi: f64| {
            let b = bound();
            if t > 0.0 { (lo, hi.min(b)) } else { (lo.max(-b), hi) }
        };
        let (mut lo, mut hi) = if t > 0.0 { (0.0, f64::INFINITY) } else { (f64::NEG_INFINITY, 0.0) };
        let x = t / r0;
        let mut a_priori = false;
        let mut s = if x * x * (mu / r0).max(beta.abs()) <= 1e-2 {
            short_stretch(x, eta, r0)
        } else {
            (lo, hi) = bounded(lo, hi);
            a_priori = true;
            starting_value(mu, r0, eta, beta, zeta, conic().0, t)
        };
        if !(s > lo && s < hi) {
            if !a_priori {
                (lo, hi) = bounded(lo, hi);
                a_priori = true;
            }
            if !(s > lo && s < hi) {
                s = if lo.is_finite() && hi.is_finite() { 0.5 * (lo + hi) } else { t / r0 };
            }
        }

        let mut iterations = 0;
        let mut previous = f64::INFINITY;
        let (g1, g2, r, noise) = loop {
            iterations += 1;
            let [c0, c1, c2, c3] = stumpff(beta * s * s);
            let (g1, g2, g3) = (s * c1, s * s * c2, s * s * s * c3);
            let (a, b, c) = (r0 * g1, eta * g2, mu * g3);
            let f = a + b + c - t;
            let fp = r0 * c0 + eta * g1 + mu * g2;
            let fpp = eta * c0 + zeta * g1;
            // the round-off of F itself: the solve cannot do better, and stops there
            let noise = 2.0 * f64::EPSILON * (a.abs() + b.abs() + c.abs() + t.abs());
            if f.is_nan() || fp.is_nan() {
                // G_k overflowed: |s| is far beyond the root, on the side of s
                if s > 0.0 { hi = s } else { lo = s }
            } else if f.abs() <= noise {
                break (g1, g2, fp, noise);
            } else if f < 0.0 {
                lo = s;
            } else {
                hi = s;
            }
            let mut step = f64::NAN;
            if f.is_finite() && fp.is_finite() {
                let root = (16.0 * fp * fp - 20.0 * f * fpp).abs().sqrt();
                step = 5.0 * f / (fp + fp.signum() * root);
                if step.abs() <= 4.0 * f64::EPSILON * s.abs() {
                    break (g1, g2, fp, noise.max(f.abs()));
                }
            }
            // (an open bracket, before the a priori bound is taken, is not a stopping test)
            if (a_priori || hi.is_finite() && lo.is_finite()) && hi - lo <= 4.0 * f64::EPSILON * lo.abs().max(hi.abs())
            {
                break (g1, g2, fp, noise.max(f.abs()));
            }
            if iterations >= MAX_ITERATIONS {
                return Err(GeomError::NotConverged { iterations, residual: f.abs(), step: step.abs() });
            }
            // Laguerre's step if it stays in the bracket and |F| has at least halved since the
            // previous iteration; else bisection (or doubling while the bracket is unbounded),
            // within the a priori bracket
            let next = s - step;
            let progress = f.abs() <= 0.5 * previous;
            previous = if f.is_nan() { f64::INFINITY } else { f.abs() };
            // (on a short stretch s stays near t/r_0: a step beyond 2|t|/r_0 takes the bound too,
            // else a huge s would loosen the stopping test 4ε|s|)
            if !(a_priori || next > lo && next < hi && progress && next.abs() <= 2.0 * x.abs()) {
                (lo, hi) = bounded(lo, hi);
                a_priori = true;
            }
            s = if next > lo && next < hi && progress {
                next
            } else if hi.is_infinite() {
                2.0 * lo.max(s.abs()).max(f64::MIN_POSITIVE)
            } else if lo.is_infinite() {
                2.0 * hi.min(-s.abs()).min(-f64::MIN_POSITIVE)
            } else {
                0.5 * (lo + hi)
            };
        };
        if !(r > 0.0 && r.is_finite()) {
            return Err(GeomError::NonFinite { what: "Kepler drift radius" });
        }
        let fm1 = -mu * g2 / r0;
        let g = r0 * g1 + eta * g2;
        let fdot = -mu * g1 / (r * r0);
        let gdm1 = -mu * g2 / r;
        let next = PhaseState::new(q0 + (q0 * fm1 + p0 * g), p0 + (q0 * fdot + p0 * gdm1));
        if !next.is_finite() {
            return Err(GeomError::NonFinite { what: "state after a Kepler drift" });
        }
        *state = next;
        Ok(KeplerSolve { iterations, time_error: noise })
    }
}

/// `β = 2μ/r_0 − |p_0|²` to a few units in its last place, given `r_0 = |q_0|` and
/// `v² = |p_0|²` rounded. The plain difference of the rounded terms has the relative error
/// `≈ ε (2μ/r_0 + v²)/|β|`; that factor is `1/(1 − e)` at the pericentre of an ellipse (and
/// ends as a phase error that grows with the number of periods), so beyond a factor 16 the
/// terms are formed in double-double ([`geom_core::error_free`]):
///
/// ```text
///   |q_0|² = S + σ,   r = fl(√S),   δr = (S − r² + σ)/(2r),         (r_0 = r + δr)
///   μ/r_0 = w + δw,   w = fl(μ/r),  δw = (μ − w r − w δr)/r,
///   |p_0|² = V + ν,   β = (2w − V) + (2δw − ν)                     (TwoSum for the first bracket).
/// ```
///
/// The factor is `(3 + e)/(1 − e)` at the pericentre: orbits with `e < 0.76` (the planets') take
/// the plain branch everywhere.
#[inline]
fn energy_parameter<const N: usize>(
    mu: f64,
    q0: &nalgebra::SVector<f64, N>,
    p0: &nalgebra::SVector<f64, N>,
    r0: f64,
    v2: f64,
) -> f64 {
    let u = 2.0 * mu / r0;
    let beta = u - v2;
    if u + v2 <= 16.0 * beta.abs() {
        return beta;
    }
    let (s, sigma) = sum_of_squares(q0.iter());
    let r = s.sqrt();
    let dr = (r.mul_add(-r, s) + sigma) / (2.0 * r);
    let w = mu / r;
    let dw = (w.mul_add(-r, mu) - w * dr) / r;
    let (v, nu) = sum_of_squares(p0.iter());
    let (b, e) = two_sum(2.0 * w, -v);
    b + (e + (2.0 * dw - nu))
}

/// The starting value of `s` on a short stretch of orbit, `(t/r_0)² max(μ/r_0, |β|) ≤ 10⁻²`
/// (a small fraction of a radian of the orbit: the steps of a planetary integration): the
/// Taylor expansion `s = t/r_0 − η_0 t²/(2 r_0³) + O(t³)` of `ds/dt = 1/r`, `x = t/r_0`.
#[inline(always)]
fn short_stretch(x: f64, eta: f64, r0: f64) -> f64 {
    x * (1.0 - 0.5 * x * eta / r0)
}

/// The starting value of `s` on a longer stretch ([`short_stretch`] otherwise): the root `s_p`
/// of the parabolic (`β = 0`) equation `μ s³/6 + η_0 s²/2 + r_0 s = t` (Barker's equation, by
/// Cardano: with `s = y − η_0/μ` it is
/// `μ y³/6 + (L²/2μ) y + η_0³/(3μ²) − r_0 η_0/μ − t = 0`, increasing in `y`), kept when
/// `|β| s_p² ≤ 1/2` (the stretch of orbit is parabola-like); else the eccentric anomaly
/// `E_1 = M_1 + 0.85 e sgn(sin M_1)` on an ellipse, the hyperbolic anomaly `H_1 = asinh(M_1/e)`
/// on a hyperbola (`M_1 = M_0 + n t`, `s = (E_1 − E_0)/√β` or `(H_1 − H_0)/√−β`).
fn starting_value(mu: f64, r0: f64, eta: f64, beta: f64, zeta: f64, ecc: f64, t: f64) -> f64 {
    let k = eta / mu;
    let half_latus = (r0 - 0.5 * eta * k).max(0.0); // L²/(2μ) at β = 0
    // y³ + 3a y + 2b = 0
    let (a, b) = (2.0 * half_latus / mu, 3.0 * (eta * k * k / 3.0 - r0 * k - t) / mu);
    let d = (b * b + a * a * a).sqrt();
    let parabolic = (d - b).cbrt() - (d + b).cbrt() - k;
    if beta * parabolic * parabolic <= 0.5 && -beta * parabolic * parabolic <= 0.5 {
        return parabolic;
    }
    let root = beta.abs().sqrt();
    // e cos E_0 = ζ_0/μ, e sin E_0 = η_0 √β/μ (and cosh, sinh on a hyperbola)
    let (ec, es) = (zeta / mu, eta * root / mu);
    let n = beta.abs() * root / mu;
    if beta > 0.0 {
        let e0 = es.atan2(ec);
        let m1 = e0 - es + n * t;
        let e1 = m1 + 0.85 * ecc * m1.sin().signum();
        (e1 - e0) / root
    } else {
        let h0 = (es / ecc).asinh();
        let m1 = es - h0 + n * t;
        let h1 = (m1 / ecc).asinh();
        (h1 - h0) / root
    }
}

impl<const N: usize> ExactFlow<PhaseState<N>> for KeplerDrift {
    fn name(&self) -> String {
        format!("Kepler drift (mu = {})", self.mu)
    }
    #[inline]
    fn flow(&self, state: &mut PhaseState<N>, t: f64) -> Result<(), GeomError> {
        self.advance(state, t).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::energy_parameter;
    use geom_core::error_free::two_prod;
    use nalgebra::Vector2;

    #[test]
    fn beta_is_correctly_rounded_where_its_terms_cancel() {
        // q_0 = (1, 1), μ = 1: 2μ/r_0 = √2 = SQRT2_HI + SQRT2_LO (double-double), and |p_0|² ≈
        // √2 (1 − 10⁻⁶): β ≈ 1.4e-6 is a cancellation by a factor 2·10⁶
        const SQRT2_HI: f64 = std::f64::consts::SQRT_2;
        const SQRT2_LO: f64 = -9.667_293_313_452_913e-17;
        let (q0, p0) = (Vector2::new(1.0, 1.0), Vector2::new(0.0, (SQRT2_HI * (1.0 - 1e-6)).sqrt()));
        let (r0, v2) = (q0.norm(), p0.norm_squared());
        // the reference: |p_0|² = p + e exactly, SQRT2_HI − p is exact (Sterbenz), one rounding
        let (p, e) = two_prod(p0.y, p0.y);
        let exact = (SQRT2_HI - p) + (SQRT2_LO - e);
        let ulp = exact * f64::EPSILON;
        let beta = energy_parameter(1.0, &q0, &p0, r0, v2);
        assert!((beta - exact).abs() <= ulp, "β = {beta:e}, exact {exact:e}");
        // the plain difference is wrong in about the tenth digit
        let plain = 2.0 / r0 - v2;
        assert!((plain - exact).abs() > 1e3 * ulp, "plain β = {plain:e}, exact {exact:e}");
        // without cancellation the plain difference is taken: q_0 = (1, 0), |p_0|² = 1 (a circle)
        let (q0, p0) = (Vector2::new(1.0, 0.0), Vector2::new(0.0, 1.0));
        assert_eq!(energy_parameter(1.0, &q0, &p0, 1.0, 1.0), 1.0);
    }
}
