//! Reorienting a rolling ball in place (plate-ball system, docs/math.md §C.6.3): find the
//! cheapest rolling motion `(0, 0, Id) → (0, 0, exp(hat(0, 0, 0.5)))` in `N = 20` steps over
//! `T = 1`, a closed loop in the plane that turns the ball by 0.5 about the vertical. Solved by
//! robust shooting (docs/groupoid.md, "Boundary-value problems"): Levenberg–Marquardt with the
//! SVD step and continuation in the boundary data, from a loop guess: the first step a roll by
//! `(0.135, 0)`, multipliers `λ_1 = (0, 0, 8)`, whose flow ends near the target; the end point of
//! that run is the reachable target the continuation starts from. Also: the straight roll, where
//! bare Newton meets a singular Jacobian and LM reports the free multiplier as a gauge direction.
//!
//! Run: `cargo run --release --example plate_ball_reorientation`.

use geom_core::lie::{Chart, Product, Rn, So3, so3};
use groupoid::bvp::{BvpError, RobustSolution, Shooting, ShootingOptions};
use groupoid::constraints::{ConstrainedFlow, SigmaPoint, constraint_residual};
use groupoid::models::{PlateBallCost as BallCost, RollingWithoutSlip as NoSlip};
use groupoid::noether::{ConstantSection, check_conservation};
use groupoid::{LieGroupoid, PairOfGroup};
use nalgebra::{Matrix3, SMatrix, SVector, Vector2, Vector3};

type Ball = PairOfGroup<Product<Rn<2>, So3, 2, 3>>;
type Q = (Vector2<f64>, Matrix3<f64>);

fn report(sol: &RobustSolution<(Q, Q), 3>, ball: &Ball, flow: &ConstrainedFlow<Ball, BallCost, NoSlip, 8>) {
    let phi = sol.trajectory.iter().map(|p| constraint_residual(ball, &NoSlip, &p.g)).fold(0.0, f64::max);
    let translations = ConstantSection(SMatrix::<f64, 5, 2>::from_fn(|a, i| if a == i { 1.0 } else { 0.0 }));
    let ct = check_conservation(ball, flow.lagrangian(), flow.constraints(), &translations, &sol.trajectory);
    println!("  iterations:         {} accepted, {} rejected LM steps", sol.iterations, sol.rejected);
    println!(
        "  residual:           |E|_inf = {:.1e}; |E|_2 history {}",
        sol.residual,
        sol.residual_history.iter().map(|r| format!("{r:.0e}")).collect::<Vec<_>>().join(" ")
    );
    println!(
        "  gauge directions:   {} (σ_min/σ_max = {:.1e}){}",
        sol.gauge.len(),
        sol.singular_values.min() / sol.singular_values.max(),
        sol.gauge.iter().map(|g| format!(" {:.3?}", g.as_slice())).collect::<String>()
    );
    println!("  constraint error:   max|φ(g_k)| = {phi:.1e}");
    println!("  Noether momentum:   translations J = {:.4?}, drift {:.1e}", ct.momenta[0].as_slice(), ct.max_drift);
}

fn main() -> Result<(), BvpError> {
    let ball: Ball = PairOfGroup::new(Product::new(Rn, So3), Chart::Exp);
    let origin: Q = (Vector2::zeros(), Matrix3::identity());

    // 1. straight roll: a non-isolated solution
    let n = 10;
    let flow = ConstrainedFlow::<_, _, _, 8>::new(ball, BallCost::new(1.0 / n as f64)?, NoSlip);
    let bvp = Shooting::new(flow.clone(), n)?;
    let target = (origin, (Vector2::new(1.0, 0.0), so3::exp(&Vector3::new(0.0, 1.0, 0.0))));
    let (xi, lambda) = (SVector::from([0.12, 0.01, 0.0, 0.1, 0.0]), SVector::from([0.0, 0.3, 0.0]));
    println!("straight roll (0, 0, Id) -> (1, 0, exp(hat(0, 1, 0))), N = {n}, from a perturbed guess");
    println!("  bare Newton:        {:?}", bvp.solve(&target, &xi, &lambda).map(|s| s.report.iterations));
    let sol = bvp.solve_robust(&target, &xi, &lambda, &ShootingOptions::default())?;
    println!("  method:             single shooting, Levenberg–Marquardt with the SVD (minimum-norm) step");
    report(&sol, &ball, &flow);

    // 2. reorientation in place, by continuation from the loop guess
    let n = 20;
    let flow = ConstrainedFlow::<_, _, _, 8>::new(ball, BallCost::new(1.0 / n as f64)?, NoSlip);
    let bvp = Shooting::new(flow.clone(), n)?;
    let target = (origin, (Vector2::zeros(), so3::exp(&Vector3::new(0.0, 0.0, 0.5))));
    let v = Vector2::new(0.135, 0.0);
    let g1 = (origin, (v, so3::exp(&Vector3::new(-v[1], v[0], 0.0))));
    let lambda = SVector::from([0.0, 0.0, 8.0]);
    let guess_run = flow.trajectory(&SigmaPoint::new(g1, lambda), n - 1)?;
    let reachable = (origin, guess_run.last().map(|p| p.g.1).unwrap_or(origin));
    let xi = LieGroupoid::<f64, 5>::fibre_log(&ball, &g1)?;
    println!("\nreorientation in place (0, 0, Id) -> (0, 0, exp(hat(0, 0, 0.5))), N = {n}, T = 1");
    println!(
        "  guess:              loop (first step roll by (0.135, 0), λ_1 = (0, 0, 8)) ending at x = {:.3?}, log R = {:.3?}",
        reachable.1.0.as_slice(),
        so3::log(&reachable.1.1).as_slice()
    );
    println!("  bare Newton:        {:?}", bvp.solve(&target, &xi, &lambda).map(|s| s.report.iterations));
    let sol = bvp.solve_continuation(&reachable, &target, &xi, &lambda, 4, &ShootingOptions::default())?;
    println!(
        "  method:             continuation in the target, 4 stages (steps per stage {:?}), LM + SVD",
        sol.stage_iterations
    );
    report(&sol, &ball, &flow);
    let last = sol.trajectory.last().map(|p| p.g.1).unwrap_or(origin);
    let reach = sol.trajectory.iter().map(|p| p.g.1.0.norm()).fold(0.0, f64::max);
    let cost: f64 = sol.trajectory.iter().map(|p| (p.g.1.0 - p.g.0.0).norm_squared() * 0.5 * n as f64).sum();
    println!(
        "  loop:               x_N = {:?}, |log(R_N^T R_target)| = {:.1e}, max|x_k| = {reach:.3}, cost {cost:.6}",
        last.0.as_slice(),
        so3::log(&(last.1.transpose() * target.1.1)).amax()
    );
    println!("  (the gauge direction is the rotation of the whole loop about the vertical through the origin)");
    Ok(())
}
