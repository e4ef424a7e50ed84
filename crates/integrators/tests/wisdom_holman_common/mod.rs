//! What the Wisdom–Holman test files share: a star of mass 1 and planets of masses `ε` and
//! `0.4 ε` in space (`G = 1`; `a ≈ 1` and `a ≈ 1.8`, eccentricities ≈ 0.05 and 0.1, inclined
//! by a few degrees, inner period ≈ 2π), distances, energy errors and slopes.

use geom_core::function::PhaseSpaceDerivatives;
use geom_core::pairwise::{self, Gravity, NBody};
use geom_core::step::{OneStep, PhaseState};
use nalgebra::SVector;

/// The three bodies' Hamiltonian.
pub type Model = NBody<Gravity<3>, 9, 3>;

/// The masses `[1, ε, 0.4 ε]`.
pub fn masses(eps: f64) -> [f64; 3] {
    [1.0, eps, 0.4 * eps]
}

pub fn model(eps: f64) -> Model {
    pairwise::gravity::<9, 3, 3>(1.0, masses(eps)).unwrap()
}

/// The star at the origin, moving so that the total momentum is zero.
pub fn state(eps: f64) -> PhaseState<9> {
    let m = masses(eps);
    let x = [[0.0, 0.0, 0.0], [0.95, 0.0, 0.02], [0.0, -1.9, -0.05]];
    let v = [[0.0, 0.0, 0.0], [0.0, 1.05, 0.03], [0.78, 0.0, 0.04]];
    let mut q = SVector::<f64, 9>::zeros();
    let mut p = SVector::<f64, 9>::zeros();
    for i in 1..3 {
        for k in 0..3 {
            q[3 * i + k] = x[i][k];
            p[3 * i + k] = m[i] * v[i][k];
            p[k] -= m[i] * v[i][k];
        }
    }
    PhaseState::new(q, p)
}

/// [`state`] with a centre of mass away from the origin and moving, so that its drift is
/// exercised too.
pub fn moving_state(eps: f64) -> PhaseState<9> {
    let m = masses(eps);
    let mut s = state(eps);
    for k in 0..3 {
        s.q[k] += 0.3;
        for (i, mi) in m.iter().enumerate() {
            s.p[3 * i + k] += mi * 0.01 * (k + 1) as f64;
        }
    }
    s
}

/// The largest difference of the positions and of the velocities (momenta over masses).
pub fn dist(a: &PhaseState<9>, b: &PhaseState<9>, eps: f64) -> f64 {
    let m = masses(eps);
    (0..9).map(|r| (a.q[r] - b.q[r]).abs().max((a.p[r] - b.p[r]).abs() / m[r / 3])).fold(0.0, f64::max)
}

/// `max_k |H(x_k) − H(x_0)| / ε` over `steps` steps of `h` from `x0` (relative to the planets'
/// part of the energy, `O(ε)`), the states written out every step.
pub fn energy_error<M: OneStep<PhaseState<9>>>(method: &M, x0: &PhaseState<9>, eps: f64, h: f64, steps: usize) -> f64 {
    let ham = model(eps);
    let mut s = *x0;
    let e0 = ham.value(&s.q, &s.p);
    let mut worst = 0.0f64;
    for _ in 0..steps {
        method.step(&mut s, h).unwrap();
        worst = worst.max((ham.value(&s.q, &s.p) - e0).abs() / eps);
    }
    worst
}

/// The least-squares slope of `log y` against `log x`.
pub fn slope(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (lx, ly): (Vec<f64>, Vec<f64>) = (x.iter().map(|v| v.ln()).collect(), y.iter().map(|v| v.ln()).collect());
    let (mx, my) = (lx.iter().sum::<f64>() / n, ly.iter().sum::<f64>() / n);
    let cov: f64 = lx.iter().zip(&ly).map(|(a, b)| (a - mx) * (b - my)).sum();
    let var: f64 = lx.iter().map(|a| (a - mx) * (a - mx)).sum();
    cov / var
}

/// `[a, b, …]` in scientific notation.
pub fn sci(v: &[f64]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:.3e}")).collect();
    format!("[{}]", parts.join(", "))
}
