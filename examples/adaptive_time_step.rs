//! The adaptive, energy-conserving time step of Kane, Marsden & Ortiz (*Symplectic-energy-momentum
//! preserving variational integrators*, J. Math. Phys. 40, 1999) as library API
//! (`groupoid::time_dependent::AdaptiveStepFlow`; docs/math.md §C.6.4), on a Kepler orbit of
//! eccentricity 0.6, against the fixed-step midpoint rule with the same number of steps over the
//! same time.
//!
//! The arrows `(q_k, q_{k+1}, Δt_k)` of the time groupoid `(Q × Q) × R` store the step; the
//! midpoint `L̂ = Δt L(q̄, Δq/Δt)` with `L = ½|v|² + 1/|q|`, discrete energy `E_k = −∂L̂/∂Δt(g_k)`.
//! The adaptive step solves `D_2L̂(g_k) + D_1L̂(g_{k+1}) = 0` and `E_{k+1} = E_k` for
//! `(q_{k+2}, Δt_{k+1})`, by Newton from the fixed-step predictor; Newton started on the spurious
//! root `g_{k+1} = g_k^{-1}` (time running back) is redirected to the physical one.
//!
//! Run: `cargo run --release --example adaptive_time_step`.

use geom_core::Scalar;
use groupoid::time_dependent::{
    AdaptiveStepFlow, ContinuousLagrangian, FixedStepFlow, Midpoint, TimeArrow, discrete_energy, momenta,
};
use nalgebra::{SVector, Vector2};

/// Kepler `L = ½|v|² + 1/|q|` (`μ = 1`).
struct Kepler;
impl ContinuousLagrangian<2> for Kepler {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, v: &SVector<S, 2>) -> S {
        v.norm_squared() * S::from(0.5) + q.norm().recip()
    }
}

const ECC: f64 = 0.6;

/// The exact orbit with `a = 1`, perihelion `(1 − e, 0)` at `t = 0`, period `2π`, energy `−1/2`.
fn exact(t: f64) -> Vector2<f64> {
    let mut u = t;
    for _ in 0..100 {
        let du = (u - ECC * u.sin() - t) / (1.0 - ECC * u.cos());
        u -= du;
        if du.abs() < 1e-16 {
            break;
        }
    }
    Vector2::new(u.cos() - ECC, (1.0 - ECC * ECC).sqrt() * u.sin())
}

/// `H(q_{k+1}, p_{k+1}) + 1/2` at the target node, `p_{k+1} = D_2L̂(g_k)`: the error of the
/// continuous energy.
fn hamiltonian_error(g: &TimeArrow<2>) -> f64 {
    let p = momenta(&Midpoint(Kepler), g).1;
    0.5 * p.norm_squared() - g.q1.norm().recip() + 0.5
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (h0, n) = (0.01, 1000);
    println!("Kepler orbit, e = {ECC} (a = 1, period 2π, H = −1/2), midpoint L̂, {n} steps from the perihelion");

    // adaptive
    let adaptive = AdaptiveStepFlow::new(Midpoint(Kepler));
    let mut g = TimeArrow::new(exact(0.0), exact(h0), 0.0, h0);
    let e0 = discrete_energy(adaptive.lagrangian(), &g);
    let (mut max_de, mut max_h, mut dt_min, mut dt_max, mut iterations) = (0.0f64, 0.0f64, f64::INFINITY, 0.0f64, 0);
    for _ in 0..n {
        iterations += adaptive.advance(&mut g)?.iterations;
        (dt_min, dt_max) = (dt_min.min(g.dt), dt_max.max(g.dt));
        max_de = max_de.max((discrete_energy(adaptive.lagrangian(), &g) - e0).abs());
        max_h = max_h.max(hamiltonian_error(&g).abs());
    }
    let t = g.target_time();
    let err = (g.q1 - exact(t)).norm();
    println!("  adaptive step (Kane–Marsden–Ortiz, E_(k+1) = E_k), Δt_0 = {h0}:");
    println!(
        "    reaches t = {t:.4} ({:.2} periods), {:.1} Newton iterations per step",
        t / std::f64::consts::TAU,
        iterations as f64 / n as f64
    );
    println!("    discrete energy:  max|E_k − E_0| = {max_de:.1e}");
    println!("    steps:            Δt in [{dt_min:.5}, {dt_max:.5}], max/min = {:.2}, all positive", dt_max / dt_min);
    println!("    H(q_k, p_k):      max|H + 1/2| = {max_h:.1e}; position error at t: {err:.1e}");

    // fixed step, same number of steps over the same time
    let h = t / (n as f64 + 1.0); // n steps after the first arrow: n + 1 arrows up to t
    let fixed = FixedStepFlow::new(Midpoint(Kepler), h)?;
    let mut point = fixed.start(exact(0.0), exact(h), 0.0, 0.0);
    let f0 = discrete_energy(fixed.lagrangian(), &point.g);
    let (mut max_fe, mut max_fh) = (0.0f64, 0.0f64);
    for _ in 0..n {
        fixed.advance(&mut point)?;
        max_fe = max_fe.max((discrete_energy(fixed.lagrangian(), &point.g) - f0).abs());
        max_fh = max_fh.max(hamiltonian_error(&point.g).abs());
    }
    let tf = point.g.target_time();
    let ferr = (point.g.q1 - exact(tf)).norm();
    println!("  fixed-step midpoint (constraint Δt = h), h = {h:.5}:");
    println!("    reaches t = {tf:.4}");
    println!("    discrete energy:  max|E_k − E_0| = {max_fe:.1e}");
    println!("    H(q_k, p_k):      max|H + 1/2| = {max_fh:.1e}; position error at t: {ferr:.1e}");

    // the guard: Newton started on the time-reversed root g_k^{-1}
    let (plain, _) = adaptive.step(&g)?;
    let (guarded, report) = adaptive.step_with_guess(&g, &g.q0, -g.dt)?;
    println!(
        "  guard: Newton started on g_k^-1 (Δt = {:.5}) is redirected: {}, Δt_(k+1) = {:.5} \
         (|difference to the plain step| = {:.1e})",
        -g.dt,
        report.redirected,
        guarded.dt,
        (guarded.q1 - plain.q1).amax().max((guarded.dt - plain.dt).abs())
    );
    Ok(())
}
