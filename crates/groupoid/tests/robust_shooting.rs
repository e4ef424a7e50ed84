//! Robust shooting (docs/groupoid.md, "Boundary-value problems"): Levenberg–Marquardt with the
//! SVD step on the plate-ball system, gauge directions, continuation in the boundary data,
//! multiple shooting, residual histories and typed errors.

use geom_core::lie::{Chart, LieGroup, Product, Rn, So3, so3};
use geom_core::newton::{NewtonOptions, newton_blocks};
use geom_core::{GeomError, Scalar};
use groupoid::bvp::{BvpError, MultipleShooting, RobustSolution, Shooting, ShootingOptions};
use groupoid::constraints::{ConstrainedFlow, Constraints, SigmaPoint, constraint_residual};
use groupoid::lagrangian::GroupoidFamily;
use groupoid::noether::{ConstantSection, check_conservation};
use groupoid::{DiscreteLagrangian, LieGroupoid, PairOfGroup};
use nalgebra::{DVector, Matrix3, SMatrix, SVector, Vector2, Vector3};
use std::time::{Duration, Instant};

type Ball = PairOfGroup<Product<Rn<2>, So3, 2, 3>>;
type El<S> = <Ball as GroupoidFamily<5>>::Element<S>;
type Q = (Vector2<f64>, Matrix3<f64>);
type Flow = ConstrainedFlow<Ball, Cost, NoSlip, 8>;

/// `L̂ = ((x1 − x0)² + (y1 − y0)²)/(2h)`.
#[derive(Clone)]
struct Cost {
    h: f64,
}
impl DiscreteLagrangian<Ball, 5> for Cost {
    fn eval<S: Scalar>(&self, _: &Ball, g: &El<S>) -> S {
        (g.1.0 - g.0.0).norm_squared() * S::from(0.5 / self.h)
    }
}

/// Rolling without slipping of a unit ball: `φ = log(R1 R0ᵀ) − (−(y1 − y0), x1 − x0, 0)`.
#[derive(Clone)]
struct NoSlip;
impl Constraints<Ball, 5, 3> for NoSlip {
    fn eval<S: Scalar>(&self, _: &Ball, g: &El<S>) -> SVector<S, 3> {
        let w = LieGroup::<S, 3>::tau_inv(&So3, Chart::Exp, &(g.1.1 * g.0.1.transpose()))
            .unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        let d = g.1.0 - g.0.0;
        w - Vector3::new(-d[1], d[0], S::from(0.0))
    }
}

fn ball() -> Ball {
    PairOfGroup::new(Product::new(Rn, So3), Chart::Exp)
}

/// Plate-ball flow over `T = 1` in `n` steps (`h = 1/n`).
fn flow(n: usize) -> Flow {
    ConstrainedFlow::new(ball(), Cost { h: 1.0 / n as f64 }, NoSlip)
}

fn origin() -> Q {
    (Vector2::zeros(), Matrix3::identity())
}

/// The straight-roll target `(0, 0, Id) → (1, 0, exp(hat(0, 1, 0)))`.
fn straight_target() -> (Q, Q) {
    (origin(), (Vector2::new(1.0, 0.0), so3::exp(&Vector3::new(0.0, 1.0, 0.0))))
}

/// The reorientation-in-place target `(0, 0, Id) → (0, 0, exp(hat(0, 0, 0.5)))`.
fn reorientation_target() -> (Q, Q) {
    (origin(), (Vector2::zeros(), so3::exp(&Vector3::new(0.0, 0.0, 0.5))))
}

/// `max_k |φ(g_k)|`.
fn max_constraint(traj: &[SigmaPoint<(Q, Q), 3>]) -> f64 {
    traj.iter().map(|p| constraint_residual(&ball(), &NoSlip, &p.g)).fold(0.0, f64::max)
}

/// `|x_n − x_N|_∞ + |log(R_nᵀ R_N)|_∞`.
fn end_defect(traj: &[SigmaPoint<(Q, Q), 3>], target: &(Q, Q)) -> f64 {
    let last = &traj.last().unwrap().g.1;
    (last.0 - target.1.0).amax() + so3::log(&(last.1.transpose() * target.1.1)).amax()
}

/// A curved maneuver manufactured from known initial data (`h = 0.1`, `n` steps): first step a
/// roll by `(0.12, 0.04)`, multipliers `(1.5, −1, 0.8)`.
fn manufactured(n: usize) -> Manufactured {
    let q0: Q = (Vector2::zeros(), so3::exp(&Vector3::new(0.1, 0.2, -0.3)));
    let fl = ConstrainedFlow::new(ball(), Cost { h: 0.1 }, NoSlip);
    let v = Vector2::new(0.12, 0.04);
    let g1 = (q0, (q0.0 + v, so3::exp(&Vector3::new(-v[1], v[0], 0.0)) * q0.1));
    let lambda = SVector::from([1.5, -1.0, 0.8]);
    let traj = fl.trajectory(&SigmaPoint::new(g1, lambda), n - 1).unwrap();
    let xi1 = LieGroupoid::<f64, 5>::fibre_log(&ball(), &g1).unwrap();
    let u = SVector::<f64, 8>::from_fn(|i, _| if i < 5 { xi1[i] } else { lambda[i - 5] });
    (fl, u, (q0, traj.last().unwrap().g.1), traj)
}

/// The guess path `q_k = (x_0 + (k/n)(x_n − x_0), R_0 exp((k/n) log(R_0ᵀ R_n)))`, `λ = 0`.
fn interpolated_guess(target: &(Q, Q), n: usize) -> Vec<SigmaPoint<(Q, Q), 3>> {
    let (a, b) = target;
    let w = so3::log(&(a.1.transpose() * b.1));
    let q = |k: usize| {
        let s = k as f64 / n as f64;
        (a.0 + (b.0 - a.0) * s, a.1 * so3::exp(&(w * s)))
    };
    (1..=n).map(|k| SigmaPoint::new((q(k - 1), q(k)), SVector::zeros())).collect()
}

/// The solution perturbed at every node: `x_k += ε (sin 1.3k, cos 0.7k)`, `R_k ← exp(ε (sin k, cos 2k, sin 3k)) R_k`,
/// `λ_k ← 1.1 λ_k + 0.1`.
fn noisy(traj: &[SigmaPoint<(Q, Q), 3>], eps: f64) -> Vec<SigmaPoint<(Q, Q), 3>> {
    let perturb = |k: usize, q: &Q| -> Q {
        if k == 0 {
            return *q;
        }
        let t = k as f64;
        (
            q.0 + Vector2::new((1.3 * t).sin(), (0.7 * t).cos()) * eps,
            so3::exp(&(Vector3::new(t.sin(), (2.0 * t).cos(), (3.0 * t).sin()) * eps)) * q.1,
        )
    };
    traj.iter()
        .enumerate()
        .map(|(k, p)| {
            SigmaPoint::new((perturb(k, &p.g.0), perturb(k + 1, &p.g.1)), p.lambda * 1.1 + SVector::repeat(0.1))
        })
        .collect()
}

/// `Σ_k L̂(g_k)`.
fn cost(traj: &[SigmaPoint<(Q, Q), 3>], h: f64) -> f64 {
    traj.iter().map(|p| Cost { h }.eval::<f64>(&ball(), &p.g)).sum()
}

/// The residual history is non-increasing (LM accepts only decreasing trials).
fn assert_monotone(history: &[f64]) {
    for w in history.windows(2) {
        assert!(w[1] <= w[0], "history increases: {history:?}");
    }
}

fn summary(label: &str, s: &RobustSolution<(Q, Q), 3>) {
    println!(
        "{label}: {} accepted + {} rejected LM steps, |E|_inf = {:.1e}, |E|_2 history {:?}, gauge directions {}, \
         {} singular values, σ_max = {:.1e}, two smallest {:?}",
        s.iterations,
        s.rejected,
        s.residual,
        s.residual_history.iter().map(|r| format!("{r:.1e}")).collect::<Vec<_>>(),
        s.gauge.len(),
        s.singular_values.len(),
        s.singular_values[0],
        s.singular_values.iter().rev().take(2).map(|r| format!("{r:.1e}")).collect::<Vec<_>>()
    );
}

/// Newton alone on the shooting residual (what `Shooting::solve` ran before its minimum-norm
/// fallback): the negative control of the degenerate problems.
fn newton_alone(
    bvp: &Shooting<Ball, Cost, NoSlip, 8>,
    target: &(Q, Q),
    xi: &SVector<f64, 5>,
    lambda: &SVector<f64, 3>,
) -> Result<SVector<f64, 8>, GeomError> {
    let u0 = SVector::<f64, 8>::from_fn(|i, _| if i < 5 { xi[i] } else { lambda[i - 5] });
    let opts = NewtonOptions { residual_tol: 1e-12, step_tol: 1e-13, ..NewtonOptions::default() };
    let (u, _) = newton_blocks::<8, 1>(
        |u, jac| {
            let (e, j) = bvp.residual(target, &u[0])?;
            if let Some(out) = jac {
                out[0][0] = j;
            }
            Ok([e])
        },
        &[u0],
        &opts,
    )?;
    Ok(u[0])
}

/// Plate-ball straight roll `(0, 0, Id) → (1, 0, exp(hat(0, 1, 0)))`, `T = 1`, `N = 10`, from a
/// perturbed guess (first step `(0.12, 0.01)` with the rotation of a roll by `0.1`, off `N`;
/// `λ_1 = (0, 0.3, 0)`). The solution is not isolated: `λ_k ≡ c · (0, 1, 0)` solves it for every
/// `c`, so `DE` is singular there and Newton stops with a singular Jacobian; `Shooting::solve`
/// then falls back to minimum-norm steps and returns a member of the family with its gauge.
#[test]
fn straight_roll_converges_with_one_gauge_direction_where_newton_is_singular() {
    let n = 10;
    let bvp = Shooting::new(flow(n), n).unwrap();
    let target = straight_target();
    let xi = SVector::<f64, 5>::from([0.12, 0.01, 0.0, 0.1, 0.0]);
    let lambda = SVector::<f64, 3>::from([0.0, 0.3, 0.0]);
    // negative control: Newton alone (no fallback) stops at a singular Jacobian
    let newton = newton_alone(&bvp, &target, &xi, &lambda);
    println!("Newton alone from the perturbed guess: {newton:?}");
    assert!(matches!(newton, Err(GeomError::SingularMatrix { .. })), "{newton:?}");

    let sol = bvp.solve_robust(&target, &xi, &lambda, &ShootingOptions::default()).unwrap();
    summary("straight roll, single shooting LM", &sol);
    let x_err = sol
        .trajectory
        .iter()
        .enumerate()
        .map(|(k, p)| (p.g.1.0 - Vector2::new((k + 1) as f64 / n as f64, 0.0)).amax())
        .fold(0.0, f64::max);
    let c = cost(&sol.trajectory, 1.0 / n as f64);
    println!("  max|x_k − (k/N, 0)| = {x_err:.1e}, cost {c:.15}, gauge {:?}", sol.gauge[0].as_slice());
    assert!(sol.residual <= 1e-12, "{}", sol.residual);
    assert!(x_err <= 1e-10, "{x_err:e}");
    assert!((c - 0.5).abs() <= 1e-10, "{c}");
    assert!(max_constraint(&sol.trajectory) <= 1e-12);
    // exactly one gauge direction, the multiplier λ_2 (unknown index 5 + 1)
    assert_eq!(sol.gauge.len(), 1, "{:?}", sol.singular_values);
    assert!((sol.gauge[0][6].abs() - 1.0).abs() < 1e-10, "{:?}", sol.gauge[0]);
    // and a clear gap to the next singular value (rank threshold 1e-9 σ_max)
    assert!(sol.singular_values[6] > 1e-5 * sol.singular_values[0], "{:?}", sol.singular_values);
    assert_monotone(&sol.residual_history);
    assert_eq!(sol.residual_history.len(), sol.iterations + 1);

    // Shooting::solve: Newton fails, the minimum-norm fallback returns the same member of the
    // family with the same gauge direction
    let bare = bvp.solve(&target, &xi, &lambda).unwrap();
    let diff = bare
        .trajectory
        .iter()
        .zip(&sol.trajectory)
        .map(|(a, b)| (a.g.1.0 - b.g.1.0).amax().max((a.lambda - b.lambda).amax()))
        .fold(0.0, f64::max);
    println!(
        "Shooting::solve: {:?}, gauge {:?}, |difference to solve_robust| = {diff:.1e}, λ_1 = {:?}",
        bare.report,
        bare.gauge[0].as_slice(),
        bare.trajectory[0].lambda.as_slice()
    );
    assert!(*bare.residuals.last().unwrap() <= 1e-12);
    assert!(diff <= 1e-12, "{diff:e}");
    assert_eq!(bare.gauge.len(), 1);
    assert!((bare.gauge[0][6].abs() - 1.0).abs() < 1e-10, "{:?}", bare.gauge[0]);
    assert!(max_constraint(&bare.trajectory) <= 1e-12);
}

/// The loop guess of the reorientation: first step a roll by `(0.135, 0)` and `λ_1 = (0, 0, 8)`
/// (the multiplier of the vertical-spin constraint curves the path; this run of the flow comes
/// back near the origin turned by ≈ 0.5 about the vertical).
fn loop_guess() -> (SVector<f64, 5>, SVector<f64, 3>, (Q, Q)) {
    let n = 20;
    let v = Vector2::new(0.135, 0.0);
    let g1 = (origin(), (v, so3::exp(&Vector3::new(-v[1], v[0], 0.0))));
    let lambda = SVector::from([0.0, 0.0, 8.0]);
    let traj = flow(n).trajectory(&SigmaPoint::new(g1, lambda), n - 1).unwrap();
    (LieGroupoid::<f64, 5>::fibre_log(&ball(), &g1).unwrap(), lambda, (origin(), traj.last().unwrap().g.1))
}

/// Reorientation in place `(0, 0, Id) → (0, 0, exp(hat(0, 0, 0.5)))`, `N = 20`, `T = 1`: continuation
/// in 4 stages from the end point of the loop guess ([`loop_guess`]) to the requested target. The
/// solution is a closed loop; its one gauge direction is the rotation about the vertical through
/// the origin (a symmetry of `L̂`, `φ` and of both boundary values), which rotates `v_1`, `ω_1`,
/// `λ_1` about `e_3`.
#[test]
fn reorientation_in_place_by_continuation_from_a_loop() {
    let n = 20;
    let h = 1.0 / n as f64;
    let fl = flow(n);
    let bvp = Shooting::new(fl.clone(), n).unwrap();
    let target = reorientation_target();
    let (xi, lambda, reachable) = loop_guess();
    // the guess is not the solution
    let (e0, _) =
        bvp.residual(&target, &SVector::<f64, 8>::from_fn(|i, _| if i < 5 { xi[i] } else { lambda[i - 5] })).unwrap();
    assert!(e0.amax() > 0.05, "{e0}");
    let newton = newton_alone(&bvp, &target, &xi, &lambda);
    println!("Newton alone from the loop guess: {newton:?}");
    assert!(newton.is_err());

    let sol = bvp.solve_continuation(&reachable, &target, &xi, &lambda, 4, &ShootingOptions::default()).unwrap();
    summary("reorientation, continuation in 4 stages", &sol);
    println!("  accepted steps per stage {:?}", sol.stage_iterations);
    assert_eq!(sol.stage_iterations.len(), 5);
    assert_eq!(sol.stage_iterations[0], 0); // the reachable target is solved by the guess
    assert_eq!(sol.iterations, sol.stage_iterations.iter().sum::<usize>());
    let phi = max_constraint(&sol.trajectory);
    let end = end_defect(&sol.trajectory, &target);
    let last = sol.trajectory.last().unwrap().g.1;
    let reach = sol.trajectory.iter().map(|p| p.g.1.0.norm()).fold(0.0, f64::max);
    // Noether: translations are a symmetry of L̂ and φ
    let translations = ConstantSection(SMatrix::<f64, 5, 2>::from_fn(|a, i| if a == i { 1.0 } else { 0.0 }));
    let ct = check_conservation(&ball(), fl.lagrangian(), fl.constraints(), &translations, &sol.trajectory);
    // the gauge direction against the vertical-rotation generator (e3 × v, e3 × ω, e3 × λ)
    let u = &sol.unknowns;
    let generator = DVector::from_vec(vec![-u[1], u[0], -u[3], u[2], 0.0, -u[6], u[5], 0.0]).normalize();
    let alignment = sol.gauge.first().map(|g| g.dot(&generator).abs()).unwrap_or(0.0);
    println!(
        "  max|φ| = {phi:.1e}, end defect {end:.1e} (x_N = {:?}), max|x_k| = {reach:.3}, translation momentum {:.4?} drift {:.1e}, \
         |gauge · vertical rotation| = {alignment:.12}, cost {:.6}",
        last.0.as_slice(),
        ct.momenta[0].as_slice(),
        ct.max_drift,
        cost(&sol.trajectory, h)
    );
    assert!(sol.residual <= 1e-12);
    assert!(phi <= 1e-12, "{phi:e}");
    assert!(last.0.amax() <= 1e-12 && end <= 1e-12, "{end:e}"); // closed loop in (x, y), turned by 0.5
    assert!(reach > 0.2, "{reach}"); // a genuine loop, not a spin in place (which φ forbids)
    assert!(ct.max_drift <= 1e-11 && ct.max_mismatch <= 1e-11, "{ct:?}");
    assert!(ct.momenta[0].amax() > 0.1);
    assert_eq!(sol.gauge.len(), 1, "{:?}", sol.singular_values);
    assert!(alignment > 1.0 - 1e-8, "{alignment}");
    assert_monotone(&sol.residual_history);

    // direct LM from the same guess finds a solution on the same symmetry orbit (same cost)
    let direct = bvp.solve_robust(&target, &xi, &lambda, &ShootingOptions::default()).unwrap();
    summary("reorientation, direct LM from the loop guess", &direct);
    assert!((cost(&direct.trajectory, h) - cost(&sol.trajectory, h)).abs() <= 1e-10);
    assert_monotone(&direct.residual_history);

    // Shooting::solve from the loop guess (Newton alone fails, above): its minimum-norm fallback
    // converges to a member of the family, and reports the vertical rotation as its gauge
    let bare = bvp.solve(&target, &xi, &lambda).unwrap();
    let u = bare.iterates.last().unwrap();
    let generator = DVector::from_vec(vec![-u[1], u[0], -u[3], u[2], 0.0, -u[6], u[5], 0.0]).normalize();
    let alignment = bare.gauge.first().map(|g| g.dot(&generator).abs()).unwrap_or(0.0);
    println!(
        "Shooting::solve from the loop guess: {:?}, |E|_inf {:.1e}, |gauge · vertical rotation| = {alignment:.12}",
        bare.report,
        bare.residuals.last().unwrap()
    );
    assert!(*bare.residuals.last().unwrap() <= 1e-12);
    assert!(max_constraint(&bare.trajectory) <= 1e-12);
    assert!(end_defect(&bare.trajectory, &target) <= 1e-12);
    assert!((cost(&bare.trajectory, h) - cost(&sol.trajectory, h)).abs() <= 1e-10);
    assert_eq!(bare.gauge.len(), 1);
    assert!(alignment > 1.0 - 1e-8, "{alignment}");
}

/// The flow, the data `u*`, the boundary values and the trajectory of [`manufactured`].
type Manufactured = (Flow, SVector<f64, 8>, (Q, Q), Vec<SigmaPoint<(Q, Q), 3>>);

/// The unknowns `(ξ_1, λ_1)` of a solution.
fn first_unknowns(s: &RobustSolution<(Q, Q), 3>) -> SVector<f64, 8> {
    SVector::from_fn(|i, _| s.unknowns[i])
}

#[test]
fn multiple_shooting_jacobian_is_exact() {
    // central differences (step 1e-6: truncation ~1e-12 |D³E|, round-off ~1e-10): agreement to
    // 1e-6 (measured ~1e-8); a wrong block (e.g. the seed of ζ_0) is O(1) off
    let (fl, _, target, traj) = manufactured(60);
    let guess = noisy(&traj, 0.02);
    let ms = MultipleShooting::new(fl, 60, 3).unwrap();
    let (e, jac) = ms.residual(&target, &guess).unwrap();
    assert_eq!(e.len(), 8 + 2 * 13);
    let eps = 1e-6;
    let mut worst = 0.0f64;
    for c in 0..e.len() {
        let mut du = DVector::zeros(e.len());
        du[c] = eps;
        let ep = ms.residual_at(&target, &guess, &du).unwrap();
        let em = ms.residual_at(&target, &guess, &(-du)).unwrap();
        worst = worst.max(((ep - em) / (2.0 * eps) - jac.column(c)).amax());
    }
    println!("multiple-shooting Jacobian vs central differences: {worst:.1e} (|J| = {:.1e})", jac.amax());
    assert!(worst < 1e-6, "{worst:e}");
    // block bidiagonal: the continuity rows of node 1 do not touch U_2
    assert_eq!(jac.view((3, 8 + 13), (13, 13)).amax(), 0.0);
}

/// Both solve the 100-step maneuver from the manufactured solution perturbed at every node by
/// 0.02 (and multipliers by 10 % + 0.1; single shooting uses the guess's first arrow and
/// multipliers): same solution to 1e-10. Over 150 steps with a 0.05 perturbation, single
/// shooting (bare Newton and LM) fails from that guess, and multiple shooting with 10 segments
/// recovers the manufactured data.
#[test]
fn multiple_shooting_agrees_with_single_shooting_and_converges_where_it_fails() {
    let opts = ShootingOptions::default();
    let (fl, u, target, traj) = manufactured(100);
    let guess = noisy(&traj, 0.02);
    let xi = LieGroupoid::<f64, 5>::fibre_log(&ball(), &guess[0].g).unwrap();
    let single = Shooting::new(fl.clone(), 100).unwrap().solve_robust(&target, &xi, &guess[0].lambda, &opts).unwrap();
    let multi = MultipleShooting::new(fl.clone(), 100, 10).unwrap().solve(&target, &guess, &opts).unwrap();
    summary("100 steps, single shooting LM", &single);
    summary("100 steps, multiple shooting LM (10 segments)", &multi);
    let mut diff = 0.0f64;
    for (a, b) in single.trajectory.iter().zip(&multi.trajectory) {
        diff = diff.max((a.g.1.0 - b.g.1.0).amax()).max((a.g.1.1 - b.g.1.1).amax()).max((a.lambda - b.lambda).amax());
    }
    println!(
        "  max difference of the two solutions {diff:.1e}; data recovered to {:.1e}",
        (first_unknowns(&multi) - u).amax()
    );
    assert_eq!(single.trajectory.len(), 100);
    assert_eq!(multi.trajectory.len(), 100);
    assert!(diff <= 1e-10, "{diff:e}");
    assert!((first_unknowns(&single) - u).amax() <= 1e-10);
    assert!(single.gauge.is_empty() && multi.gauge.is_empty());
    assert!(max_constraint(&multi.trajectory) <= 1e-12);
    assert_monotone(&single.residual_history);
    assert_monotone(&multi.residual_history);

    let n = 150;
    let (fl, u, target, traj) = manufactured(n);
    let guess = noisy(&traj, 0.05);
    let xi = LieGroupoid::<f64, 5>::fibre_log(&ball(), &guess[0].g).unwrap();
    let shooting = Shooting::new(fl.clone(), n).unwrap();
    let bare = shooting.solve(&target, &xi, &guess[0].lambda);
    let single = shooting.solve_robust(&target, &xi, &guess[0].lambda, &opts);
    let multi = MultipleShooting::new(fl, n, 10).unwrap().solve(&target, &guess, &opts).unwrap();
    match &single {
        Err(BvpError::NotConverged { iterations, rejected, residual, history }) => {
            println!(
                "150 steps, single shooting: bare Newton {:?}; LM stopped after {iterations} + {rejected} trials at |E|_inf = {residual:.1e}",
                bare.as_ref().map(|s| s.report)
            );
            assert_monotone(history);
            assert!(*residual > 1e-3);
        }
        other => {
            panic!("single shooting was expected to fail from this guess: {:?}", other.as_ref().map(|s| s.iterations))
        }
    }
    assert!(bare.is_err());
    summary("150 steps, multiple shooting LM (10 segments)", &multi);
    let recovered = (first_unknowns(&multi) - u).amax();
    println!("  data recovered to {recovered:.1e}");
    assert!(multi.residual <= 1e-12);
    assert!(recovered <= 1e-10, "{recovered:e}");
    assert!(multi.iterations <= 20, "{}", multi.iterations);
    assert!(max_constraint(&multi.trajectory) <= 1e-12);
    assert!(end_defect(&multi.trajectory, &target) <= 1e-11);
    assert_monotone(&multi.residual_history);
}

#[test]
fn failure_returns_the_history_and_huge_sizes_are_typed_errors() {
    // a budget of 3 trials on the reorientation from the loop guess
    let n = 20;
    let bvp = Shooting::new(flow(n), n).unwrap();
    let (xi, lambda, _) = loop_guess();
    let opts = ShootingOptions { max_trials: 3, ..ShootingOptions::default() };
    match bvp.solve_robust(&reorientation_target(), &xi, &lambda, &opts) {
        Err(BvpError::NotConverged { iterations, rejected, residual, history }) => {
            println!(
                "3-trial budget: {iterations} accepted, {rejected} rejected, |E|_inf = {residual:.1e}, history {history:?}"
            );
            assert_eq!(iterations + rejected, 3);
            assert_eq!(history.len(), iterations + 1);
            assert!(history.len() >= 2 && residual > 1e-3);
            assert_monotone(&history);
        }
        other => panic!("expected NotConverged, got {:?}", other.map(|s| s.iterations)),
    }
    // invalid options
    let bad = ShootingOptions { rank_rtol: 0.0, ..ShootingOptions::default() };
    assert!(matches!(
        bvp.solve_robust(&reorientation_target(), &xi, &lambda, &bad),
        Err(BvpError::Geom(GeomError::InvalidParameter { .. }))
    ));
    // a non-finite guess
    let nan = SVector::<f64, 5>::repeat(f64::NAN);
    assert!(matches!(
        bvp.solve_robust(&reorientation_target(), &nan, &lambda, &ShootingOptions::default()),
        Err(BvpError::Geom(GeomError::NonFinite { .. }))
    ));
    // huge N: typed errors, quickly, no allocation attempt that aborts
    let clock = Instant::now();
    let huge = usize::MAX / 2;
    let big = Shooting::new(flow(10), huge).unwrap();
    let err = big.solve_robust(&reorientation_target(), &xi, &lambda, &ShootingOptions::default());
    assert!(matches!(err, Err(BvpError::TooLarge { requested, .. }) if requested == huge), "{err:?}");
    // the bare-Newton API too: a typed error instead of a capacity-overflow abort
    assert!(matches!(
        big.solve(&reorientation_target(), &xi, &lambda),
        Err(GeomError::InvalidParameter { what: "steps", .. })
    ));
    let err = MultipleShooting::new(flow(10), huge, huge / 2);
    assert!(matches!(err, Err(BvpError::TooLarge { .. })), "{:?}", err.map(|_| ()));
    let ms = MultipleShooting::new(flow(10), huge, 4).unwrap();
    let guess = interpolated_guess(&reorientation_target(), 10);
    let err = ms.solve(&reorientation_target(), &guess, &ShootingOptions::default());
    assert!(matches!(err, Err(BvpError::Geom(GeomError::DimensionMismatch { .. }))), "{:?}", err.map(|_| ()));
    assert!(matches!(MultipleShooting::new(flow(10), 10, 0), Err(BvpError::Geom(GeomError::InvalidParameter { .. }))));
    assert!(matches!(MultipleShooting::new(flow(10), 10, 11), Err(BvpError::Geom(GeomError::InvalidParameter { .. }))));
    // the unknown count no longer has a dense bound (R + M = 13 per interior node: 80 segments are
    // 1035 unknowns, solved by the block step); the dense checking Jacobian keeps one
    assert_eq!(MultipleShooting::new(flow(10), 100, 80).unwrap().unknowns::<5>().unwrap(), 1035);
    let dense = MultipleShooting::new(flow(100), 100, 80)
        .unwrap()
        .residual(&reorientation_target(), &interpolated_guess(&reorientation_target(), 100));
    assert!(matches!(dense, Err(BvpError::TooLarge { requested: 1035, limit: 1024, .. })), "{:?}", dense.map(|_| ()));
    let elapsed = clock.elapsed();
    println!("typed errors for N = usize::MAX / 2 in {elapsed:?}: {err:?}", err = err.map(|_| ()));
    assert!(elapsed < Duration::from_secs(1), "{elapsed:?}");
}

/// Multiple shooting past the size where a dense step is affordable: 400 steps in 100 segments
/// (1295 unknowns) and 240 steps with one arrow per segment (3115 unknowns), from the manufactured
/// maneuver perturbed at every node by 0.05. The block step (QR sweep of the block-bidiagonal
/// Jacobian, `O(S (R+M)³)`) recovers the manufactured data; a dense SVD step would need an
/// `n_u × n_u` matrix (78 MiB at 3115 unknowns). The tolerance is `|E|_∞ <= 1e-14` (at the
/// round-off floor the solver stops on its own): the recovered data are within `cond · |E|`
/// of the manufactured ones, and `cond ≈ 1e3` at 3115 unknowns.
#[test]
fn multiple_shooting_with_many_segments_uses_the_block_step() {
    let opts = ShootingOptions { residual_tol: 1e-14, ..ShootingOptions::default() };
    for (n, segments) in [(400, 100), (240, 240)] {
        let (fl, u, target, traj) = manufactured(n);
        let guess = noisy(&traj, 0.05);
        let ms = MultipleShooting::new(fl, n, segments).unwrap();
        let unknowns = ms.unknowns::<5>().unwrap();
        assert!(unknowns > 1024);
        let clock = Instant::now();
        let sol = ms.solve(&target, &guess, &opts).unwrap();
        let elapsed = clock.elapsed();
        summary(&format!("{n} steps, {segments} segments ({unknowns} unknowns), block LM"), &sol);
        let recovered = (first_unknowns(&sol) - u).amax();
        println!("  data recovered to {recovered:.1e} in {elapsed:?}");
        assert_eq!(sol.unknowns.len(), unknowns);
        assert!(sol.residual <= 1e-12, "{}", sol.residual);
        assert!(recovered <= 1e-10, "{recovered:e}");
        assert!(sol.iterations <= 20, "{}", sol.iterations);
        assert!(max_constraint(&sol.trajectory) <= 1e-12);
        assert!(end_defect(&sol.trajectory, &target) <= 1e-11);
        assert!(sol.gauge.is_empty());
        assert_monotone(&sol.residual_history);
    }
}

/// The straight roll by multiple shooting (N = 10, 5 segments) from the interpolated path
/// perturbed by 0.02 at every node: one gauge direction, found by condensing and expanded to
/// the full unknowns; it moves the multiplier λ_2 of every segment by the same amount and
/// nothing else, and the residual is constant along it (to second order).
#[test]
fn multiple_shooting_reports_the_gauge_of_the_straight_roll_in_full_coordinates() {
    let n = 10;
    let target = straight_target();
    let guess = noisy(&interpolated_guess(&target, n), 0.02);
    let ms = MultipleShooting::new(flow(n), n, 5).unwrap();
    let sol = ms.solve(&target, &guess, &ShootingOptions::default()).unwrap();
    summary("straight roll, multiple shooting LM (5 segments)", &sol);
    let x_err = sol
        .trajectory
        .iter()
        .enumerate()
        .map(|(k, p)| (p.g.1.0 - Vector2::new((k + 1) as f64 / n as f64, 0.0)).amax())
        .fold(0.0, f64::max);
    let c = cost(&sol.trajectory, 1.0 / n as f64);
    assert!(sol.residual <= 1e-12, "{}", sol.residual);
    assert!(x_err <= 1e-10 && (c - 0.5).abs() <= 1e-10, "{x_err:e} {c}");
    assert_eq!(sol.gauge.len(), 1, "{:?}", sol.singular_values);
    let g = &sol.gauge[0];
    // λ_2 entries: index 6 in U_0 = (ξ, λ); index 5 + 6 in U_j = (p, ξ, λ)
    let lambda2: Vec<usize> = std::iter::once(6).chain((1..5).map(|j| 8 + (j - 1) * 13 + 11)).collect();
    let along = lambda2.iter().map(|&i| g[i]).collect::<Vec<_>>();
    println!("  gauge on the λ_2 entries {along:?}");
    for &a in &along {
        assert!((a.abs() - 1.0 / 5f64.sqrt()).abs() <= 1e-8 && a * along[0] > 0.0, "{along:?}");
    }
    // the null vector of a Jacobian evaluated at |E| ~ 1e-12 is determined to about
    // |δJ| / σ_gap ≈ 1e-12 / 7e-4 (σ_gap: the smallest nonzero condensed singular value)
    let off = (0..g.len()).filter(|i| !lambda2.contains(i)).map(|i| g[i].abs()).fold(0.0, f64::max);
    println!("  largest gauge entry off the λ_2 entries {off:.1e}");
    assert!(off <= 1e-8, "{off:e}");
}
