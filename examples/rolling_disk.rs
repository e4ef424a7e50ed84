//! The vertical rolling disk by the discrete Lagrange–d'Alembert principle on the pair groupoid of
//! `R^4` (docs/math.md §C.7; `groupoid::nonholonomic`; Cortés & Martínez, *Non-holonomic
//! integrators*, 2001; McLachlan & Perlmutter, *Integrators for nonholonomic mechanical systems*,
//! 2006; Iglesias, Marrero, Martín de Diego & Martínez, *Discrete nonholonomic Lagrangian systems
//! on Lie groupoids*, 2008, arXiv:0704.1543).
//!
//! `q = (x, y, θ, φ)`, `L = ½m(ẋ² + ẏ²) + ½Iθ̇² + ½Jφ̇²`, rolling without slipping
//! `ẋ = R cos φ θ̇`, `ẏ = R sin φ θ̇`. Discretized with the midpoint discrete Lagrangian and the
//! midpoint constraint `μ(q̄)Δq = 0`; each step solves `D_2L_d(q_{k−1}, q_k) + D_1L_d(q_k, q_{k+1})
//! = μ(q_k)ᵀλ_k`, `μ(q̄_{k+1})(q_{k+1} − q_k) = 0` by Newton (6 unknowns). Compared with the exact
//! motion: `θ̇`, `φ̇` constant and the contact point on a circle of radius `|R θ̇/φ̇|`.
//!
//! Run: `cargo run --release --example rolling_disk`.

use geom_core::GeomError;
use groupoid::nonholonomic::{NonholonomicState, RollingDisk, RollingDiskFlow};
use nalgebra::{SVector, Vector2};

type Q = SVector<f64, 4>;

/// `n` arrows from the continuous data `(q_0, p_0 = ∂L/∂q̇)`: the first by the step in momentum
/// form, the others by the DLA step.
fn run(
    disk: &RollingDisk,
    flow: &RollingDiskFlow,
    q0: &Q,
    rates: (f64, f64),
    n: usize,
) -> Result<Vec<(Q, Q)>, GeomError> {
    let h = flow.lagrangian().h();
    let v0 = disk.velocity(q0, rates.0, rates.1);
    let first = flow.step_from_momentum(q0, &disk.momentum(&v0), &(v0 * h))?;
    let states = flow.trajectory(&NonholonomicState::new(first.g, first.lambda), n - 1)?;
    Ok(states.into_iter().map(|s| s.g).collect())
}

fn main() -> Result<(), GeomError> {
    let (m, r, i, j) = (1.0, 0.5, 0.125, 0.0625); // a uniform disk: I = ½mR², J = ¼mR²
    let disk = RollingDisk::new(m, r, i, j)?;
    let q0: Q = SVector::from([0.2, -0.1, 0.0, 0.3]);
    let (theta_dot, phi_dot) = (2.0, 0.7);
    let (h, n) = (0.05, 400);
    let t = h * n as f64;
    println!(
        "vertical rolling disk: m = {m}, R = {r}, I = {i}, J = {j}; θ̇ = {theta_dot}, φ̇ = {phi_dot}, q_0 = {:?}",
        q0.as_slice()
    );
    println!(
        "method: discrete Lagrange–d'Alembert on the pair groupoid of R^4, midpoint L_d and midpoint constraint, \
         Newton on (q_(k+1), λ_k) (6 unknowns); h = {h}, {n} steps (t = {t})"
    );

    let flow = disk.flow(h)?;
    let arrows = run(&disk, &flow, &q0, (theta_dot, phi_dot), n)?;
    let psi = arrows.iter().map(|g| flow.constraint_residual(g)).fold(0.0, f64::max);
    let e_exact = disk.energy(&disk.velocity(&q0, theta_dot, phi_dot));
    let e_first = flow.lagrangian().energy(&arrows[0]);
    let e_drift = arrows.iter().map(|g| (flow.lagrangian().energy(g) - e_first).abs()).fold(0.0, f64::max);
    let last = arrows.last().map_or(q0, |g| g.1);
    let error = (last - disk.exact(&q0, theta_dot, phi_dot, t)).amax();
    let (dth, dph) = (arrows[0].1[2] - arrows[0].0[2], arrows[0].1[3] - arrows[0].0[3]);
    println!("  constraint residual max_k |ψ(g_k)| = {psi:.1e} (midpoint constraint, at round-off)");
    println!(
        "  energy: discrete E_k constant to {e_drift:.1e}; |E_k − E_exact| = {:.1e} (O(h²), from the first step)",
        (e_first - e_exact).abs()
    );
    println!(
        "  rates: Δφ/h − φ̇ = {:.1e} (exact), Δθ/h − θ̇ = {:.2e} (O(h²)); both constant along the run",
        dph / h - phi_dot,
        dth / h - theta_dot
    );
    if let Some((centre, radius)) = disk.circle(&q0, theta_dot, phi_dot) {
        let spread = arrows.iter().map(|g| (Vector2::new(g.0[0], g.0[1]) - centre).norm() - radius);
        let (lo, hi) = spread.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), d| (a.min(d), b.max(d)));
        let discrete_radius = r * dth / (2.0 * (0.5 * dph).sin());
        println!(
            "  contact point: exact circle radius {radius:.8}, discrete circle radius R Δθ/(2 sin(Δφ/2)) = {discrete_radius:.8}; \
             distance of the nodes from the exact centre − radius in [{lo:.1e}, {hi:.1e}]"
        );
    }
    let rolling = disk.rolling_momentum();
    let turning = disk.turning_momentum();
    let (gd, ld) = (flow.groupoid(), flow.lagrangian());
    let roll = arrows.iter().map(|g| rolling.momentum(gd, ld, g));
    let (rmin, rmax) = roll.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    let turn = arrows.iter().map(|g| turning.momentum(gd, ld, g));
    let (tmin, tmax) = turn.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    println!(
        "  nonholonomic momenta (horizontal symmetries): rolling (I + mR²)θ̇ = {rmax:.12} (spread {:.1e}), \
         turning Jφ̇ = {tmax:.12} (spread {:.1e})",
        rmax - rmin,
        tmax - tmin
    );
    println!("  error against the exact solution at t = {t}: |q_n − q(t)|_∞ = {error:.3e}");

    println!("  convergence at t = 5 (error |q_n − q(5)|_∞, observed order):");
    let mut previous: Option<f64> = None;
    for n in [25, 50, 100, 200, 400] {
        let h = 5.0 / n as f64;
        let arrows = run(&disk, &disk.flow(h)?, &q0, (theta_dot, phi_dot), n)?;
        let error = (arrows.last().map_or(q0, |g| g.1) - disk.exact(&q0, theta_dot, phi_dot, 5.0)).amax();
        let order = previous.map_or(String::from("  -"), |e| format!("{:.3}", (e / error).log2()));
        println!("    h = {h:.4}: {error:.3e}  order {order}");
        previous = Some(error);
    }
    Ok(())
}
