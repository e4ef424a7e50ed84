//! The round-off of a long Störmer–Verlet run, measured apart from the method's own error.
//!
//! A run in `f64` differs from the exact solution by the method's error (for Störmer–Verlet an
//! `O(h²)` energy oscillation that stays bounded, and a phase error) and by its round-off. To see
//! the round-off alone, [`measure`] runs **the same method, from the same `f64` initial state with
//! the same `f64` step, in double-double arithmetic** ([`Dd`], about 32 significant digits) and
//! compares the run's samples with it: the method's error is the same in both and cancels, and
//! what remains is the `f64` run's round-off (the double-double run's own, `~1e-32` per step, is
//! 10^16 times smaller). Two measures are reported at each sample:
//!
//! * the **state error** `|y_k − y_k^dd|` (Euclidean), in the coordinates of `trajectory.csv`;
//! * the **energy round-off**: for the harmonic oscillator `|H̃(y_k) − H̃(y_0)| / H̃(y_0)` with
//!   Störmer–Verlet's exactly conserved modified energy
//!   `H̃ = (p² + ω²(1 − h²ω²/4) q²)/2` ([`sv_modified_energy`]; no reference run needed), and for
//!   Kepler `|H̃₂(y_k) − H̃₂(y_k^dd)| / |H(y_0)|` with the modified energy to `O(h⁴)`
//!   ([`VerletDd::modified_energy_at`]), both evaluated in double-double. For Kepler the
//!   difference of `H` itself would not do: the round-off shifts the `f64` run along its orbit
//!   (a phase error), and `H` oscillates by `O(h²)` along the orbit, so `H(y_k) − H(y_k^dd)`
//!   would be that phase error times the oscillation; `H̃₂` oscillates by `O(h⁴)` only, and what
//!   the phase error still contributes through that oscillation is removed to first order: the
//!   difference is taken less `H̃₂'(t) Δt`, with `Δt` the time by which the state lies ahead of the
//!   reference along its orbit (central differences of the reference's steps);
//! * for Kepler also the **angular-momentum round-off** `|L(y_k) − L(y_0)| / |L(y_0)|`,
//!   `L = q1 p2 − q2 p1`: Störmer–Verlet conserves `L` exactly for a central force (each kick is
//!   parallel to `q`, each drift to `p`), so its change is round-off alone, with no reference.
//!
//! The run is read from its output directory: `config.toml` (problem, method, `h`, parameters)
//! and `trajectory.csv`, whose numbers are written in the shortest form that reads back to the
//! same `f64`.

use crate::workbench::WorkbenchError;
use crate::workbench::config::RunConfig;
use std::path::Path;

/// A double-double number `hi + lo` with `|lo| ≤ ulp(hi)/2`: about 106 bits of significand.
/// The arithmetic is Dekker's and Knuth's error-free transformations (no fused multiply–add, so
/// that it is exact on every x86-64).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dd {
    /// The leading part, the `f64` nearest to the value.
    pub hi: f64,
    /// The trailing part.
    pub lo: f64,
}

/// `(a + b, error)`, exact (Knuth's two-sum).
#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `(a + b, error)` for `|a| ≥ |b|`, exact (Dekker's fast two-sum).
#[inline]
fn quick_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

/// `a` split into two halves of 26 bits (Veltkamp).
#[inline]
fn split(a: f64) -> (f64, f64) {
    let c = 134_217_729.0 * a; // 2^27 + 1
    let hi = c - (c - a);
    (hi, a - hi)
}

/// `(a · b, error)`, exact (Dekker's two-product).
#[inline]
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let ((ah, al), (bh, bl)) = (split(a), split(b));
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

impl Dd {
    /// Zero.
    pub const ZERO: Dd = Dd { hi: 0.0, lo: 0.0 };

    /// `x`, exactly.
    pub const fn from(x: f64) -> Self {
        Dd { hi: x, lo: 0.0 }
    }
    /// The `f64` nearest to the value.
    pub fn to_f64(self) -> f64 {
        self.hi + self.lo
    }
    fn norm((hi, lo): (f64, f64)) -> Self {
        let (hi, lo) = quick_two_sum(hi, lo);
        Dd { hi, lo }
    }
    /// The sum.
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub fn add(self, b: Dd) -> Dd {
        let (s1, s2) = two_sum(self.hi, b.hi);
        let (t1, t2) = two_sum(self.lo, b.lo);
        let (s1, s2) = quick_two_sum(s1, s2 + t1);
        Dd::norm((s1, s2 + t2))
    }
    /// The difference.
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub fn sub(self, b: Dd) -> Dd {
        self.add(Dd { hi: -b.hi, lo: -b.lo })
    }
    /// The product.
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub fn mul(self, b: Dd) -> Dd {
        let (p, e) = two_prod(self.hi, b.hi);
        Dd::norm((p, e + (self.hi * b.lo + self.lo * b.hi)))
    }
    /// The product with an `f64`.
    #[inline]
    pub fn scale(self, b: f64) -> Dd {
        let (p, e) = two_prod(self.hi, b);
        Dd::norm((p, e + self.lo * b))
    }
    /// The quotient (long division, three quotient digits).
    #[allow(clippy::should_implement_trait)]
    pub fn div(self, b: Dd) -> Dd {
        let q1 = self.hi / b.hi;
        let r = self.sub(b.scale(q1));
        let q2 = r.hi / b.hi;
        let r = r.sub(b.scale(q2));
        let q3 = r.hi / b.hi;
        Dd::norm((q1, q2)).add(Dd::from(q3))
    }
    /// The square root (one Newton correction of the `f64` root), `0` for `0`.
    pub fn sqrt(self) -> Dd {
        if self.hi <= 0.0 {
            return Dd::ZERO;
        }
        let x = self.hi.sqrt();
        let y = Dd::from(x);
        y.add(Dd::from(self.sub(y.mul(y)).hi * (0.5 / x)))
    }
    /// The absolute value.
    pub fn abs(self) -> Dd {
        if self.hi < 0.0 { Dd { hi: -self.hi, lo: -self.lo } } else { self }
    }
}

/// A potential `V(q)` on `R^N` in double-double: its value, its force `−∇V` and its Hessian
/// form `pᵀ V''(q) p`.
pub trait DdPotential<const N: usize> {
    /// `V(q)`.
    fn value(&self, q: &[Dd; N]) -> Dd;
    /// `−∇V(q)`.
    fn force(&self, q: &[Dd; N]) -> [Dd; N];
    /// `pᵀ V''(q) p`.
    fn hessian_form(&self, q: &[Dd; N], p: &[Dd; N]) -> Dd;
}

/// The harmonic oscillator's `V(q) = ω²q²/2`.
#[derive(Debug, Clone, Copy)]
pub struct OscillatorDd {
    /// `ω`.
    pub omega: f64,
}

impl DdPotential<1> for OscillatorDd {
    fn value(&self, q: &[Dd; 1]) -> Dd {
        q[0].mul(q[0]).scale(self.omega).scale(self.omega).scale(0.5)
    }
    fn force(&self, q: &[Dd; 1]) -> [Dd; 1] {
        [q[0].scale(-self.omega).scale(self.omega)]
    }
    fn hessian_form(&self, _: &[Dd; 1], p: &[Dd; 1]) -> Dd {
        p[0].mul(p[0]).scale(self.omega).scale(self.omega)
    }
}

/// Kepler's `V(q) = −1/|q|` in the plane.
#[derive(Debug, Clone, Copy)]
pub struct KeplerDd;

impl DdPotential<2> for KeplerDd {
    fn value(&self, q: &[Dd; 2]) -> Dd {
        let r = q[0].mul(q[0]).add(q[1].mul(q[1])).sqrt();
        Dd::from(-1.0).div(r)
    }
    fn force(&self, q: &[Dd; 2]) -> [Dd; 2] {
        let r2 = q[0].mul(q[0]).add(q[1].mul(q[1]));
        let r3 = r2.mul(r2.sqrt());
        [Dd::ZERO.sub(q[0]).div(r3), Dd::ZERO.sub(q[1]).div(r3)]
    }
    /// `V'' = I/r³ − 3 q qᵀ/r⁵`: `pᵀV''p = (|p|² − 3 (q·p)²/r²) / r³`.
    fn hessian_form(&self, q: &[Dd; 2], p: &[Dd; 2]) -> Dd {
        let r2 = q[0].mul(q[0]).add(q[1].mul(q[1]));
        let r3 = r2.mul(r2.sqrt());
        let qp = q[0].mul(p[0]).add(q[1].mul(p[1]));
        let pp = p[0].mul(p[0]).add(p[1].mul(p[1]));
        pp.sub(qp.mul(qp).scale(3.0).div(r2)).div(r3)
    }
}

/// Störmer–Verlet (kick–drift–kick, `T = |p|²/2`) in double-double, from an `f64` state with an
/// `f64` step: `p_{½} = p + (h/2) F(q)`, `q' = q + h p_{½}`, `p' = p_{½} + (h/2) F(q')`, the
/// formula of the workbench's `stormer-verlet` for a separable `H`.
#[derive(Debug, Clone)]
pub struct VerletDd<V, const N: usize> {
    /// Position.
    pub q: [Dd; N],
    /// Momentum.
    pub p: [Dd; N],
    /// Steps taken.
    pub steps: usize,
    h: f64,
    potential: V,
}

impl<V: DdPotential<N>, const N: usize> VerletDd<V, N> {
    /// Starts at `(q, p)` with step `h`.
    pub fn new(potential: V, h: f64, q: [f64; N], p: [f64; N]) -> Self {
        Self { q: q.map(Dd::from), p: p.map(Dd::from), steps: 0, h, potential }
    }
    /// One step.
    pub fn step(&mut self) {
        let half = 0.5 * self.h; // exact: h/2 of an f64
        let f = self.potential.force(&self.q);
        for ((q, p), f) in self.q.iter_mut().zip(&mut self.p).zip(f) {
            *p = p.add(f.scale(half));
            *q = q.add(p.scale(self.h));
        }
        let f = self.potential.force(&self.q);
        for (p, f) in self.p.iter_mut().zip(f) {
            *p = p.add(f.scale(half));
        }
        self.steps += 1;
    }
    /// `H = |p|²/2 + V(q)` at `(q, p)`, in double-double.
    pub fn energy_at(&self, q: &[Dd; N], p: &[Dd; N]) -> Dd {
        let kinetic = p.iter().fold(Dd::ZERO, |acc, v| acc.add(v.mul(*v))).scale(0.5);
        kinetic.add(self.potential.value(q))
    }
    /// Störmer–Verlet's modified energy to `O(h⁴)` at `(q, p)`, in double-double: the
    /// kick–drift–kick map conserves `H̃₂ = H + h² (pᵀV''(q)p / 12 − |∇V(q)|² / 24)` up to an
    /// `O(h⁴)` oscillation (the `h²` term of the modified Hamiltonian of the splitting,
    /// `{T,{T,V}}/12 − {V,{V,T}}/24` for `T = |p|²/2`; for the oscillator it is
    /// `(1 + h²ω²/6) H̃` of [`sv_modified_energy`] plus `O(h⁴)`).
    pub fn modified_energy_at(&self, q: &[Dd; N], p: &[Dd; N]) -> Dd {
        let f = self.potential.force(q);
        let f2 = f.iter().fold(Dd::ZERO, |acc, v| acc.add(v.mul(*v)));
        let correction = self.potential.hessian_form(q, p).scale(1.0 / 12.0).sub(f2.scale(1.0 / 24.0));
        self.energy_at(q, p).add(correction.scale(self.h).scale(self.h))
    }
}

/// Störmer–Verlet's modified energy of the harmonic oscillator `H = (p² + ω²q²)/2`, which the
/// kick–drift–kick map conserves exactly (in exact arithmetic, at every step size with
/// `hω < 2`): `H̃ = (p² + ω²(1 − h²ω²/4) q²)/2`.
///
/// The map is `q' = (1 − h²ω²/2) q + h p`, `p' = −hω²(1 − h²ω²/4) q + (1 − h²ω²/2) p`; a
/// quadratic form `αq² + βp²` is invariant under `[[a, b], [c, a]]` (determinant `a² − bc = 1`)
/// exactly when `αb = −βc`, i.e. `α/β = ω²(1 − h²ω²/4)`. The `f64` run's `H̃` therefore moves by
/// its round-off only, while `H` itself oscillates by `O(h²)`.
pub fn sv_modified_energy(omega: f64, h: f64, q: Dd, p: Dd) -> Dd {
    let w2 = Dd::from(omega).mul(Dd::from(omega));
    let c = Dd::from(1.0).sub(w2.scale(h).scale(h).scale(0.25));
    p.mul(p).add(w2.mul(c).mul(q.mul(q))).scale(0.5)
}

/// The round-off of one run, sample by sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The problem (`harmonic-oscillator` or `kepler`).
    pub problem: String,
    /// Whether the run used compensated summation.
    pub compensated: bool,
    /// The step size.
    pub h: f64,
    /// The sampled steps.
    pub steps: Vec<usize>,
    /// `|y_k − y_k^dd|` at each sample.
    pub state_error: Vec<f64>,
    /// The energy round-off at each sample (module documentation).
    pub energy_error: Vec<f64>,
    /// The angular-momentum round-off at each sample (Kepler; empty for the oscillator).
    pub momentum_error: Vec<f64>,
}

impl Measurement {
    /// The largest of `errors` over the samples up to step `n`.
    pub fn max_up_to(&self, errors: &[f64], n: usize) -> f64 {
        self.steps.iter().zip(errors).take_while(|(k, _)| **k <= n).map(|(_, e)| *e).fold(0.0, f64::max)
    }
}

/// The least-squares slope of `log y` against `log x`: the exponent `a` of `y ∝ x^a`. Points
/// with `y ≤ 0` are left out; `None` with fewer than two points left.
pub fn fitted_exponent(points: &[(f64, f64)]) -> Option<f64> {
    let logs: Vec<(f64, f64)> =
        points.iter().filter(|(x, y)| *x > 0.0 && *y > 0.0).map(|(x, y)| (x.ln(), y.ln())).collect();
    if logs.len() < 2 {
        return None;
    }
    let n = logs.len() as f64;
    let (mx, my) = (logs.iter().map(|p| p.0).sum::<f64>() / n, logs.iter().map(|p| p.1).sum::<f64>() / n);
    let sxy: f64 = logs.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = logs.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

fn input(msg: String) -> WorkbenchError {
    WorkbenchError::Input(msg)
}

/// The samples of `trajectory.csv`: the step and the coordinates of each row.
fn read_trajectory(path: &Path, columns: usize) -> Result<Vec<(usize, Vec<f64>)>, WorkbenchError> {
    let text = std::fs::read_to_string(path).map_err(|e| input(format!("cannot read {}: {e}", path.display())))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let bad = || input(format!("{} line {}: not a row of {columns} numbers", path.display(), i + 1));
        let mut cells = line.split(',');
        let step: usize = cells.next().and_then(|c| c.parse().ok()).ok_or_else(bad)?;
        let values: Vec<f64> = cells.skip(1).map(|c| c.parse::<f64>()).collect::<Result<_, _>>().map_err(|_| bad())?;
        if values.len() != columns {
            return Err(bad());
        }
        rows.push((step, values));
    }
    if rows.first().is_none_or(|r| r.0 != 0) || !rows.windows(2).all(|w| w[0].0 < w[1].0) {
        return Err(input(format!("{}: the samples do not start at step 0 and increase", path.display())));
    }
    Ok(rows)
}

/// Compares the `f64` run in `dir` (a `geomint run` of `stormer-verlet` on `harmonic-oscillator`
/// or `kepler`) with the same run in double-double arithmetic at every sample; an input error for
/// any other run or an unreadable directory.
pub fn measure(dir: &Path) -> Result<Measurement, WorkbenchError> {
    let config = RunConfig::load(&dir.join("config.toml"))?;
    let problem = config.problem.clone().unwrap_or_default();
    let (method, h) = (config.method.clone().unwrap_or_default(), config.h.unwrap_or(f64::NAN));
    if method != "stormer-verlet" || !(h.is_finite() && h > 0.0) {
        return Err(input(format!("{}: a run of stormer-verlet is measured, not of '{method}'", dir.display())));
    }
    let compensated = config.compensated == Some(true);
    let path = dir.join("trajectory.csv");
    match problem.as_str() {
        "harmonic-oscillator" => {
            let omega = config.params.get("omega").copied().unwrap_or(1.0);
            let rows = read_trajectory(&path, 2)?;
            let (q0, p0) = (rows[0].1[0], rows[0].1[1]);
            let reference = VerletDd::new(OscillatorDd { omega }, h, [q0], [p0]);
            let e0 = sv_modified_energy(omega, h, Dd::from(q0), Dd::from(p0));
            let energy = |y: &[f64], _: &Track<OscillatorDd, 1>| {
                let e = sv_modified_energy(omega, h, Dd::from(y[0]), Dd::from(y[1]));
                e.sub(e0).abs().to_f64() / e0.to_f64().abs()
            };
            Ok(compare(problem, compensated, h, &rows, reference, energy))
        }
        "kepler" => {
            let rows = read_trajectory(&path, 4)?;
            let y0 = &rows[0].1;
            let reference = VerletDd::new(KeplerDd, h, [y0[0], y0[1]], [y0[2], y0[3]]);
            let e0 = reference.energy_at(&reference.q, &reference.p).to_f64().abs();
            let energy = |y: &[f64], t: &Track<KeplerDd, 2>| {
                let r = &t.at;
                let e = r.modified_energy_at(&[Dd::from(y[0]), Dd::from(y[1])], &[Dd::from(y[2]), Dd::from(y[3])]);
                let along = t.along_track(y, |s| s.modified_energy_at(&s.q, &s.p));
                e.sub(r.modified_energy_at(&r.q, &r.p)).sub(along).abs().to_f64() / e0
            };
            let mut m = compare(problem, compensated, h, &rows, reference, energy);
            let l = |y: &[f64]| Dd::from(y[0]).mul(Dd::from(y[3])).sub(Dd::from(y[1]).mul(Dd::from(y[2])));
            let l0 = l(y0);
            m.momentum_error = rows.iter().map(|(_, y)| l(y).sub(l0).abs().to_f64() / l0.to_f64().abs()).collect();
            Ok(m)
        }
        other => Err(input(format!(
            "{}: the round-off is measured on harmonic-oscillator and kepler, not on '{other}'",
            dir.display()
        ))),
    }
}

/// The reference at a sample and at the steps before and after it.
struct Track<V, const N: usize> {
    before: VerletDd<V, N>,
    at: VerletDd<V, N>,
    after: VerletDd<V, N>,
}

impl<V: DdPotential<N> + Clone, const N: usize> Track<V, N> {
    /// The change of `f` along the reference orbit over the time by which the state `y` lies
    /// ahead of the reference on it: `f'(t) Δt` with `Δt = (y − y_ref)·v / |v|²`, `v` and `f'`
    /// by central differences over the steps before and after. Subtracted from a difference
    /// `f(y) − f(y_ref)`, it removes what the round-off's phase error contributes through the
    /// oscillation of `f` along the orbit (to first order in the phase error).
    fn along_track(&self, y: &[f64], f: impl Fn(&VerletDd<V, N>) -> Dd) -> Dd {
        if self.at.steps == 0 {
            return Dd::ZERO;
        }
        let coords = |s: &VerletDd<V, N>| s.q.iter().chain(&s.p).copied().collect::<Vec<Dd>>();
        let (b, a, c) = (coords(&self.before), coords(&self.at), coords(&self.after));
        let (mut dot, mut vv) = (Dd::ZERO, Dd::ZERO);
        for i in 0..a.len() {
            let v = c[i].sub(b[i]);
            dot = dot.add(Dd::from(y[i]).sub(a[i]).mul(v));
            vv = vv.add(v.mul(v));
        }
        // Δt = span · dot / vv, f' = (f(after) − f(before)) / span
        f(&self.after).sub(f(&self.before)).mul(dot).div(vv)
    }
}

/// Advances `reference` through the sampled steps and measures each sample against it.
fn compare<V: DdPotential<N> + Clone, const N: usize>(
    problem: String,
    compensated: bool,
    h: f64,
    rows: &[(usize, Vec<f64>)],
    reference: VerletDd<V, N>,
    energy: impl Fn(&[f64], &Track<V, N>) -> f64,
) -> Measurement {
    let mut m = Measurement {
        problem,
        compensated,
        h,
        steps: Vec::with_capacity(rows.len()),
        state_error: Vec::with_capacity(rows.len()),
        energy_error: Vec::with_capacity(rows.len()),
        momentum_error: Vec::new(),
    };
    let mut before = reference.clone();
    let mut reference = reference;
    for (step, y) in rows {
        while reference.steps < *step {
            if reference.steps + 1 == *step {
                before = reference.clone();
            }
            reference.step();
        }
        let mut after = reference.clone();
        after.step();
        let track = Track { before, at: reference, after };
        let exact = track.at.q.iter().chain(&track.at.p);
        let d2 = y.iter().zip(exact).fold(Dd::ZERO, |acc, (v, r)| {
            let d = Dd::from(*v).sub(*r);
            acc.add(d.mul(d))
        });
        m.steps.push(*step);
        m.state_error.push(d2.sqrt().to_f64());
        m.energy_error.push(energy(y, &track));
        (before, reference) = (track.before, track.at);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Double-double arithmetic carries what `f64` loses: `(1 + 2^-60) − 1`, `1/3 · 3`, `√2²`.
    #[test]
    fn double_double_keeps_the_low_bits() {
        let tiny = 2f64.powi(-60);
        assert_eq!(Dd::from(1.0).add(Dd::from(tiny)).sub(Dd::from(1.0)).to_f64(), tiny);
        let third = Dd::from(1.0).div(Dd::from(3.0));
        assert!(third.mul(Dd::from(3.0)).sub(Dd::from(1.0)).to_f64().abs() < 1e-31);
        let r2 = Dd::from(2.0).sqrt();
        assert!(r2.mul(r2).sub(Dd::from(2.0)).to_f64().abs() < 1e-31);
        assert!((r2.hi - std::f64::consts::SQRT_2).abs() <= f64::EPSILON);
    }

    /// The modified energy is conserved by the double-double map to its own round-off (1e-30
    /// after 10^5 steps), while `H` oscillates by `O(h²)`.
    #[test]
    fn modified_energy_is_conserved() {
        let (omega, h) = (1.3, 0.07);
        let mut sv = VerletDd::new(OscillatorDd { omega }, h, [0.8], [-0.4]);
        let e0 = sv_modified_energy(omega, h, sv.q[0], sv.p[0]);
        let h0 = sv.energy_at(&sv.q, &sv.p);
        let (mut drift, mut oscillation) = (0.0f64, 0.0f64);
        for _ in 0..100_000 {
            sv.step();
            drift = drift.max(sv_modified_energy(omega, h, sv.q[0], sv.p[0]).sub(e0).abs().to_f64());
            oscillation = oscillation.max(sv.energy_at(&sv.q, &sv.p).sub(h0).abs().to_f64());
        }
        assert!(drift < 1e-28, "H̃ drifts by {drift:e}");
        assert!(oscillation > 1e-4, "H oscillates by only {oscillation:e}");
    }

    /// The double-double Kepler step agrees with the `f64` formula to `f64` round-off on one
    /// step.
    #[test]
    fn kepler_step_matches_the_f64_formula() {
        let (h, q, p) = (0.01, [0.4, 0.1], [0.2, 1.9]);
        let mut dd = VerletDd::new(KeplerDd, h, q, p);
        dd.step();
        let force = |q: [f64; 2]| {
            let r3 = (q[0] * q[0] + q[1] * q[1]).powf(1.5);
            [-q[0] / r3, -q[1] / r3]
        };
        let f = force(q);
        let ph = [p[0] + 0.5 * h * f[0], p[1] + 0.5 * h * f[1]];
        let q1 = [q[0] + h * ph[0], q[1] + h * ph[1]];
        let f1 = force(q1);
        let p1 = [ph[0] + 0.5 * h * f1[0], ph[1] + 0.5 * h * f1[1]];
        for (a, b) in dd.q.iter().chain(&dd.p).zip(q1.iter().chain(&p1)) {
            assert!((a.to_f64() - b).abs() <= 4.0 * f64::EPSILON * b.abs().max(1.0), "{a:?} vs {b}");
        }
    }

    /// Kepler's `H̃₂` oscillates along the double-double orbit far less than `H` (by `O(h⁴)`
    /// against `O(h²)`), and for the oscillator it is `(1 + h²ω²/6) H̃` to `O(h⁴)`.
    #[test]
    fn modified_energy_to_h4() {
        let h = 0.01;
        let mut sv = VerletDd::new(KeplerDd, h, [0.4, 0.0], [0.0, 2.0]);
        let (h0, m0) = (sv.energy_at(&sv.q, &sv.p), sv.modified_energy_at(&sv.q, &sv.p));
        let (mut dh, mut dm) = (0.0f64, 0.0f64);
        for _ in 0..700 {
            sv.step();
            dh = dh.max(sv.energy_at(&sv.q, &sv.p).sub(h0).abs().to_f64());
            dm = dm.max(sv.modified_energy_at(&sv.q, &sv.p).sub(m0).abs().to_f64());
        }
        println!("along one orbit: H moves by {dh:e}, H̃₂ by {dm:e}");
        assert!(dh > 1e-4 && dm < 1e-3 * dh, "H moves by {dh:e}, H̃₂ by {dm:e}");
        let (omega, h) = (1.3, 0.07);
        let ho = VerletDd::new(OscillatorDd { omega }, h, [0.8], [-0.4]);
        let exact = sv_modified_energy(omega, h, ho.q[0], ho.p[0]).scale(1.0 + h * h * omega * omega / 6.0);
        let d = ho.modified_energy_at(&ho.q, &ho.p).sub(exact).abs().to_f64();
        assert!(d < 10.0 * (h * omega).powi(4), "{d:e}");
    }

    #[test]
    fn exponents_are_fitted_in_log_log() {
        let pts: Vec<(f64, f64)> = (4..=8).map(|k| (10f64.powi(k), 3e-17 * 10f64.powf(0.5 * k as f64))).collect();
        assert!((fitted_exponent(&pts).unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(fitted_exponent(&[(1.0, 1.0)]), None);
    }
}
