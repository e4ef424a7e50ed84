//! Discrete optimal control on SO(3) (docs/math.md §C.6.2; Marrero, Martín de Diego & Stern,
//! *Symplectic groupoids and discrete constrained Lagrangian mechanics*, 2015, arXiv:1103.6250,
//! §6): `ġ = g u`, cost `∫ ½|u|² dt`, discretised on SO(3) as a groupoid with `W_k = τ(h ξ_k)`,
//! `L(W) = (h/2)|τ^{-1}(W)/h|²`, and the product `W_1 ⋯ W_N = g_0^{-1} g_N` fixed: a boundary-value
//! problem, solved by shooting on the first step (and its multiplier) with Newton and the exact
//! tangent-map Jacobian ([`Shooting`]).
//!
//! * Fully actuated: the discrete geodesic, `ξ_k ≡ log(g_0^{-1} g_N)/(N h)` (for `τ = exp` and for
//!   Cayley, where the `W_k` are the same group elements).
//! * Underactuated: no control about body axis 3, `φ(W) = ⟨e3, τ^{-1}(W)⟩ = 0`, one multiplier per
//!   step; a rotation with an axis-3 component is reached through the bracket of the two controls.
//!   The larger maneuver is reached by continuation in the target.
//!
//! Run: `cargo run --release --example so3_optimal_control`.

use geom_core::GeomError;
use geom_core::lie::{Chart, LieGroup, So3, so3};
use groupoid::bvp::Shooting;
use groupoid::constraints::{ConstrainedFlow, Constraints, NoConstraints};
use groupoid::control::{ControlCost, Unactuated};
use groupoid::{DiscreteLagrangian, GroupAsGroupoid};
use nalgebra::{Matrix3, SVector, Vector3};

/// Residual norms as `1e-3 4e-9 …`.
fn fmt(v: &[f64]) -> String {
    v.iter().map(|r| format!("{r:.0e}")).collect::<Vec<_>>().join(" ")
}

fn main() -> Result<(), GeomError> {
    let (h, n) = (0.1, 12);
    let g0 = so3::exp(&Vector3::new(0.3, -0.5, 0.2));
    let gn = so3::exp(&Vector3::new(-0.4, 0.9, 1.1));
    let target = g0.transpose() * gn;
    let xi_exact = so3::log(&target) / (n as f64 * h);
    println!("discrete optimal control on SO(3), N = {n} steps of h = {h}, shooting with Newton");
    for chart in [Chart::Exp, Chart::Cayley] {
        let gd = GroupAsGroupoid::new(So3, chart);
        let bvp = Shooting::new(ConstrainedFlow::<_, _, _, 3>::new(gd, ControlCost::uniform(h)?, NoConstraints), n)?;
        let guess = gd.group().tau_inv(chart, &so3::exp(&(so3::log(&target) / n as f64)))? * 1.3;
        let sol = bvp.solve(&target, &guess, &SVector::<f64, 0>::zeros())?;
        let err = sol.trajectory.iter().map(|p| (so3::log(&p.g) / h - xi_exact).amax()).fold(0.0, f64::max);
        println!(
            "  fully actuated ({:6}): {} iterations, |E| = {}; max |log(W_k)/h − ξ_geodesic| = {err:.1e}",
            chart.name(),
            sol.report.iterations,
            fmt(&sol.residuals)
        );
    }

    // underactuated: target exp((0.35, −0.25, a3)), continuation in a3 from 0.08 to 0.3
    let (h, n) = (0.1, 10);
    let gd = GroupAsGroupoid::new(So3, Chart::Cayley);
    // no control about body axis 3: φ(W) = τ⁻¹(W)_3 = 0
    let no_axis3 = Unactuated::<3, 1>::axes([2])?;
    let flow = ConstrainedFlow::<_, _, _, 4>::new(gd, ControlCost::uniform(h)?, no_axis3);
    let bvp = Shooting::new(flow.clone(), n)?;
    let mut guess = Vector3::new(0.035, -0.025, 0.0);
    let mut lambda = SVector::from([0.0]);
    for a3 in [0.08, 0.15, 0.22, 0.3] {
        let target = so3::exp(&Vector3::new(0.35, -0.25, a3));
        let sol = bvp.solve(&target, &guess, &lambda)?;
        let max_phi = sol.trajectory.iter().map(|p| no_axis3.eval::<f64>(&gd, &p.g)[0].abs()).fold(0.0, f64::max);
        let product = sol.trajectory.iter().fold(Matrix3::identity(), |acc, p| acc * p.g);
        let end = so3::log(&(target.transpose() * product)).amax();
        let cost: f64 = sol.trajectory.iter().map(|p| flow.lagrangian().eval::<f64>(&gd, &p.g)).sum();
        println!(
            "  underactuated (cayley), axis-3 target {a3:.2}: {} iterations, |E| = {}; max|φ| = {max_phi:.0e}, \
             end defect {end:.0e}, cost {cost:.4}, λ_1 = {:.3}",
            sol.report.iterations,
            fmt(&sol.residuals),
            sol.trajectory[0].lambda[0]
        );
        // continue from this solution
        let u = sol.iterates.last().copied().unwrap_or_default();
        guess = Vector3::new(u[0], u[1], u[2]);
        lambda = SVector::from([u[3]]);
    }
    Ok(())
}
