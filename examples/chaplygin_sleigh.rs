//! The Chaplygin sleigh by the discrete Lagrange–d'Alembert principle on the pair groupoid of
//! `R³` (docs/math.md §C.7; `groupoid::nonholonomic`; Cortés & Martínez, *Non-holonomic
//! integrators*, 2001; McLachlan & Perlmutter, *Integrators for nonholonomic mechanical systems*,
//! 2006; Iglesias, Marrero, Martín de Diego & Martínez, *Discrete nonholonomic Lagrangian systems
//! on Lie groupoids*, 2008, arXiv:0704.1543).
//!
//! `q = (x, y, θ)` (centre of mass and heading), `L = ½m(ẋ² + ẏ²) + ½Iθ̇²`, knife edge at the point
//! `(x, y) − a(cos θ, sin θ)` with no sideways velocity: `−sin θ ẋ + cos θ ẏ − aθ̇ = 0`. The sleigh
//! starts backwards (contact point first) and turning; the exact reduced motion is
//! `u = u_∞ tanh(κt + c)`, `ω = ω_0 cosh c / cosh(κt + c)`: it turns round and ends in straight-line
//! motion along its knife edge, centre of mass first, with speed `u_∞ = √(2E/m)` and a heading
//! known in closed form.
//!
//! Run: `cargo run --release --example chaplygin_sleigh`.

use geom_core::GeomError;
use groupoid::nonholonomic::{ChaplyginSleigh, NonholonomicState, SleighFlow};
use nalgebra::{SVector, Vector2};

type Q = SVector<f64, 3>;

/// `n` arrows from the continuous data `(q_0, u_0, ω_0)`.
fn run(
    sleigh: &ChaplyginSleigh,
    flow: &SleighFlow,
    q0: &Q,
    u0: f64,
    omega0: f64,
    n: usize,
) -> Result<Vec<(Q, Q)>, GeomError> {
    let h = flow.lagrangian().h();
    let v0 = sleigh.velocity(q0[2], u0, omega0);
    let first = flow.step_from_momentum(q0, &sleigh.momentum(&v0), &(v0 * h))?;
    let states = flow.trajectory(&NonholonomicState::new(first.g, first.lambda), n - 1)?;
    Ok(states.into_iter().map(|s| s.g).collect())
}

fn main() -> Result<(), GeomError> {
    let (m, i, a) = (1.0, 0.2, 0.5);
    let sleigh = ChaplyginSleigh::new(m, i, a)?;
    let q0: Q = SVector::from([0.0, 0.0, 0.4]);
    let (u0, omega0) = (-0.3, 1.0);
    let (h, n) = (0.01, 20_000);
    let t = h * n as f64;
    println!("Chaplygin sleigh: m = {m}, I = {i}, a = {a}; q_0 = {:?}, u_0 = {u0}, ω_0 = {omega0}", q0.as_slice());
    println!(
        "method: discrete Lagrange–d'Alembert on the pair groupoid of R^3, midpoint L_d and midpoint knife-edge constraint, \
         Newton on (q_(k+1), λ_k) (4 unknowns); h = {h}, {n} steps (t = {t})"
    );

    let flow = sleigh.flow(h)?;
    let arrows = run(&sleigh, &flow, &q0, u0, omega0, n)?;
    let psi = arrows.iter().map(|g| flow.constraint_residual(g)).fold(0.0, f64::max);
    let e0 = sleigh.energy(&sleigh.velocity(q0[2], u0, omega0));
    let e_err = arrows.iter().map(|g| (flow.lagrangian().energy(g) - e0).abs()).fold(0.0, f64::max);
    let e_end = arrows.last().map_or(e0, |g| flow.lagrangian().energy(g));
    println!("  constraint residual max_k |ψ(g_k)| = {psi:.1e} (midpoint constraint, at round-off)");
    println!("  energy: max_k |E_k − E(0)| = {e_err:.2e} (E(0) = {e0}), |E_N − E(0)| = {:.2e}", (e_end - e0).abs());

    // the reduced motion against its closed form
    let mut reduced = 0.0f64;
    for (k, g) in arrows.iter().enumerate().take(1000) {
        let body = sleigh.arrow_body_velocity(g, h);
        let exact = sleigh.reduced(u0, omega0, (k as f64 + 0.5) * h);
        reduced = reduced.max((body[0] - exact.u).abs()).max((body[2] - exact.omega).abs());
    }
    println!("  reduced motion (u, ω) against the closed form over t ≤ 10: max error {reduced:.2e}");

    // the asymptotic straight-line motion
    let last = arrows.last().copied().unwrap_or((q0, q0));
    let body = sleigh.arrow_body_velocity(&last, h);
    let u_inf = sleigh.limit_speed(u0, omega0);
    let theta_inf = sleigh.limit_heading(q0[2], u0, omega0).unwrap_or(f64::NAN);
    let direction = Vector2::new(last.1[0] - last.0[0], last.1[1] - last.0[1]).normalize();
    let edge = Vector2::new(last.1[2].cos(), last.1[2].sin());
    println!(
        "  asymptotics at t = {t}: ω = {:.1e}, lateral velocity = {:.1e}, u = {:.10} (u_∞ = √(2E/m) = {u_inf:.10}), \
         heading θ = {:.10} (θ_∞ = {theta_inf:.10}, error {:.1e}), direction of motion · knife edge = {:.15}",
        body[2],
        body[1],
        body[0],
        last.1[2],
        (last.1[2] - theta_inf).abs(),
        direction.dot(&edge)
    );

    // the nonholonomic momentum equation over the run
    let forward = sleigh.forward_momentum();
    let contact = sleigh.contact_momentum();
    let defect = arrows
        .windows(2)
        .take(2000)
        .map(|w| {
            forward.balance(&flow, &w[0], &w[1]).defect.abs().max(contact.balance(&flow, &w[0], &w[1]).defect.abs())
        })
        .fold(0.0, f64::max);
    println!(
        "  nonholonomic momentum equation (J_u ≈ m u with d(m u)/dt = m a ω², J_ω ≈ (I + ma²)ω with dJ_ω/dt = −m a u ω): \
         max defect over t ≤ 20: {defect:.1e}"
    );

    println!("  limit heading at t = 60 against θ_∞ (observed order):");
    let mut previous: Option<f64> = None;
    for h in [0.04, 0.02, 0.01] {
        let n = (60.0 / h) as usize;
        let arrows = run(&sleigh, &sleigh.flow(h)?, &q0, u0, omega0, n)?;
        let error = (arrows.last().map_or(q0, |g| g.1)[2] - theta_inf).abs();
        let order = previous.map_or(String::from("  -"), |e| format!("{:.3}", (e / error).log2()));
        println!("    h = {h}: |θ_N − θ_∞| = {error:.3e}  order {order}");
        previous = Some(error);
    }
    Ok(())
}
