//! The plate-ball system (docs/math.md §C.6.3): optimal control with nonholonomic rolling
//! constraints on the pair groupoid of `Q = R² × SO(3)` ([`PairOfGroup`]), solved as a
//! boundary-value problem by shooting; straight roll, Noether momenta, stationarity of the action
//! sum.

use geom_core::Scalar;
use geom_core::lie::{Chart, LieGroup, Product, Rn, So3, so3};
use groupoid::bvp::{BvpSolution, Shooting};
use groupoid::constraints::{ConstrainedFlow, Constraints, SigmaPoint, constraint_residual};
use groupoid::lagrangian::GroupoidFamily;
use groupoid::noether::{
    ConstantSection, FnSection, check_conservation, constraint_invariance_defect, invariance_defect,
};
use groupoid::variational::{action_gradient, tangent_gradient, vary};
use groupoid::{DiscreteLagrangian, PairOfGroup};
use nalgebra::{Matrix3, SMatrix, SVector, Vector2, Vector3};

type Ball = PairOfGroup<Product<Rn<2>, So3, 2, 3>>;
type El<S> = <Ball as GroupoidFamily<5>>::Element<S>;
type Q = (Vector2<f64>, Matrix3<f64>);

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

/// Rolling without slipping of a unit ball: `φ = τ^{-1}(R1 R0ᵀ) − (−(y1 − y0), x1 − x0, 0)`, `τ` =
/// `chart` (exp: `log`; Cayley: `cay^{-1}`).
#[derive(Clone)]
struct NoSlip {
    chart: Chart,
}
impl Constraints<Ball, 5, 3> for NoSlip {
    fn eval<S: Scalar>(&self, _: &Ball, g: &El<S>) -> SVector<S, 3> {
        let w = LieGroup::<S, 3>::tau_inv(&So3, self.chart, &(g.1.1 * g.0.1.transpose()))
            .unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        let d = g.1.0 - g.0.0;
        w - Vector3::new(-d[1], d[0], S::from(0.0))
    }
}

fn rot(v: Vector3<f64>) -> Matrix3<f64> {
    so3::exp(&v)
}

fn ball(chart: Chart) -> Ball {
    PairOfGroup::new(Product::new(Rn, So3), chart)
}

/// The rolling axis of a displacement `d`: `(−d_y, d_x, 0)`.
fn axis(d: &Vector2<f64>) -> Vector3<f64> {
    Vector3::new(-d[1], d[0], 0.0)
}

/// The first arrow of a straight roll by `v` per step from `q0`: `R_1 = τ(axis(v)) R_0`.
fn straight_arrow(q0: &Q, v: &Vector2<f64>, chart: Chart) -> (Q, Q) {
    let step_rot = LieGroup::<f64, 3>::tau(&So3, chart, &axis(v)).unwrap();
    (*q0, (q0.0 + v, step_rot * q0.1))
}

/// Fibre coordinates `(v, ω)` of an arrow `(q0, q1)` of the left-trivialized chart.
fn fibre(chart: Chart, g: &(Q, Q)) -> SVector<f64, 5> {
    groupoid::LieGroupoid::<f64, 5>::fibre_log(&ball(chart), g).unwrap()
}

fn flow(chart: Chart, h: f64) -> ConstrainedFlow<Ball, Cost, NoSlip, 8> {
    ConstrainedFlow::new(ball(chart), Cost { h }, NoSlip { chart })
}

/// `max_k |φ(g_k)|`, and the defect of the fixed product `|x_n − x_N| + |log(R_nᵀ R_N)|`.
fn constraint_and_end_defects(sol: &BvpSolution<(Q, Q), 3, 8>, chart: Chart, qn: &Q) -> (f64, f64) {
    let phi =
        sol.trajectory.iter().map(|p| constraint_residual(&ball(chart), &NoSlip { chart }, &p.g)).fold(0.0, f64::max);
    let last = &sol.trajectory.last().unwrap().g.1;
    (phi, (last.0 - qn.0).amax() + so3::log(&(last.1.transpose() * qn.1)).amax())
}

#[test]
fn straight_roll_is_reproduced_exactly() {
    // A straight roll by d in n uniform steps, λ = 0. For the exp (log) constraint it is the exact
    // rolling of a unit ball, R_N = exp(hat(axis(d))) R_0 (rotation by the distance rolled about the
    // horizontal axis ⊥ to the motion); for the Cayley constraint the discrete roll is
    // R_N = cay(hat(axis(d)/n))^n R_0 (angle 2n atan(|d|/2n) instead of |d|).
    let (h, n) = (1.0 / 16.0, 16);
    let q0: Q = (Vector2::new(0.5, -0.2), rot(Vector3::new(0.2, -0.1, 0.3)));
    let d = Vector2::new(1.2, -0.9);
    let v = d / n as f64;
    let unit_axis = axis(&d).normalize();
    for chart in [Chart::Exp, Chart::Cayley] {
        let fl = flow(chart, h);
        let step_rot = LieGroup::<f64, 3>::tau(&So3, chart, &axis(&v)).unwrap();
        let qn: Q = (q0.0 + d, step_rot.pow(n as u32) * q0.1);
        // (1) the dynamics from straight initial data reproduce the roll at every node ...
        let g1 = straight_arrow(&q0, &v, chart);
        let (mut max_x, mut max_r) = (0.0f64, 0.0f64);
        let base = fl.trajectory(&SigmaPoint::new(g1, SVector::zeros()), n - 1).unwrap();
        let mut r = q0.1;
        for (k, p) in base.iter().enumerate() {
            max_x = max_x.max((p.g.1.0 - (q0.0 + d * ((k + 1) as f64 / n as f64))).amax());
            r = step_rot * r;
            max_r = max_r.max((p.g.1.1 - r).amax());
        }
        if chart == Chart::Exp {
            max_r = max_r.max((base.last().unwrap().g.1.1 - rot(axis(&d)) * q0.1).amax());
        }
        // (2) ... and so do the dynamics with λ_1 = c·(rolling axis) for every c: the multipliers
        // of a straight roll are not unique (λ_k ≡ c·axis is a solution with the same arrows)
        let mut max_family = 0.0f64;
        for c in [0.5, 3.0] {
            let other = fl.trajectory(&SigmaPoint::new(g1, unit_axis * c), n - 1).unwrap();
            for (a, b) in base.iter().zip(&other) {
                max_family = max_family.max((a.g.1.0 - b.g.1.0).amax()).max((a.g.1.1 - b.g.1.1).amax());
                max_family = max_family.max((b.lambda - unit_axis * c).amax());
            }
        }
        // (3) the straight roll solves the shooting equations of the BVP exactly (the solver accepts
        // it with 0 iterations), and DE has the null vector (0, axis) there: the BVP solution is not
        // isolated (its multipliers along the rolling axis are free), so shooting is singular on
        // straight rolls and ill-conditioned near them
        let bvp = Shooting::new(fl.clone(), n).unwrap();
        let xi1 = fibre(chart, &g1);
        let u = SVector::<f64, 8>::from_fn(|i, _| if i < 5 { xi1[i] } else { 0.0 });
        let (e, de) = bvp.residual(&(q0, qn), &u).unwrap();
        let null = SVector::<f64, 8>::from_fn(|i, _| if i < 5 { 0.0 } else { unit_axis[i - 5] });
        let de_null = (de * null).amax();
        let accepted = bvp.solve(&(q0, qn), &xi1, &SVector::zeros()).unwrap();
        println!(
            "plate-ball straight roll ({}): max|x_k − x_k^roll| = {max_x:.1e}, max|R_k − R_k^roll| = {max_r:.1e}; \
             multiplier family λ = c·axis: max deviation {max_family:.1e}; shooting residual {:.1e}, |DE·(0, axis)| = {de_null:.1e} \
             (|DE| = {:.1e}); BVP solve from the roll: {} iterations",
            chart.name(),
            e.amax(),
            de.amax(),
            accepted.report.iterations
        );
        // round-off: 16 steps of O(1) quantities, inner Newton to 1e-14
        assert!(max_x < 1e-13 && max_r < 1e-13, "{max_x:e} {max_r:e}");
        assert!(max_family < 1e-12, "{max_family:e}");
        assert!(e.amax() < 1e-13 && de_null < 1e-12 * de.amax(), "{e} {de_null:e}");
        assert_eq!(accepted.report.iterations, 0);
        let last = accepted.trajectory.last().unwrap().g.1;
        assert!((last.0 - qn.0).amax() < 1e-13 && (last.1 - qn.1).amax() < 1e-13);
    }
}

/// A curved maneuver manufactured from known initial data (h = 0.1, 60 steps, t = 6): the first
/// step `v_1 = (0.12, 0.04)`, rolling, and multipliers `λ_1`. Returns the flow, the data `u*` and the
/// boundary values `(q_0, q_N)`. (Long maneuvers are well conditioned, σ_min(DE) ≈ 0.2; short,
/// nearly straight ones are not, down to 1e-7 for t = 1: λ acts on the path only through the
/// rotation of the rolling axis.)
fn manufactured(chart: Chart) -> (ConstrainedFlow<Ball, Cost, NoSlip, 8>, SVector<f64, 8>, (Q, Q)) {
    let (h, n) = (0.1, 60);
    let q0: Q = (Vector2::new(0.0, 0.0), rot(Vector3::new(0.1, 0.2, -0.3)));
    let fl = flow(chart, h);
    let g1 = straight_arrow(&q0, &Vector2::new(0.12, 0.04), chart);
    let lambda = SVector::from([1.5, -1.0, 0.8]);
    let traj = fl.trajectory(&SigmaPoint::new(g1, lambda), n - 1).unwrap();
    let xi1 = fibre(chart, &g1);
    let u = SVector::<f64, 8>::from_fn(|i, _| if i < 5 { xi1[i] } else { lambda[i - 5] });
    (fl, u, (q0, traj.last().unwrap().g.1))
}

const STEPS: usize = 60;

/// The flow, the manufactured data `u*`, the boundary values and the BVP solution.
type Manufactured = (ConstrainedFlow<Ball, Cost, NoSlip, 8>, SVector<f64, 8>, (Q, Q), BvpSolution<(Q, Q), 3, 8>);

fn solve_manufactured(chart: Chart) -> Manufactured {
    let (fl, u, target) = manufactured(chart);
    let bvp = Shooting::new(fl.clone(), STEPS).unwrap();
    // guess: 10 % longer first step, slightly turned, off N, multipliers 10 % off plus an offset
    let xi_guess = SVector::<f64, 5>::from_fn(|i, _| u[i] * 1.1) + SVector::from([0.003, -0.002, 0.0, 0.0, 0.0]);
    let lambda_guess = SVector::<f64, 3>::from_fn(|i, _| u[5 + i] * 0.9) + SVector::from([0.05, 0.05, -0.05]);
    let sol = bvp.solve(&target, &xi_guess, &lambda_guess).unwrap();
    (fl, u, target, sol)
}

#[test]
fn curved_bvp_converges_quadratically_and_satisfies_the_rolling_constraints() {
    for chart in [Chart::Exp, Chart::Cayley] {
        let (fl, u, target, sol) = solve_manufactured(chart);
        let (phi, end) = constraint_and_end_defects(&sol, chart, &target.1);
        let u_star = *sol.iterates.last().unwrap();
        let errors: Vec<f64> = sol.iterates.iter().map(|v| (v - u_star).amax()).collect();
        let bvp = Shooting::new(fl.clone(), STEPS).unwrap();
        let (_, de) = bvp.residual(&target, &u_star).unwrap();
        let sv = nalgebra::DMatrix::from_column_slice(8, 8, de.as_slice()).singular_values();
        let rot_n = so3::log(&(target.1.1 * target.0.1.transpose()));
        println!(
            "plate-ball BVP ({}): (x, R) from (0, 0, R0) to ({:.3}, {:.3}, exp({:.3?}) R0) in {STEPS} steps; {} Newton iterations, \
             |E(u_j)| = {:?}, |u_j − u*| = {:?}; recovered data error {:.1e}; max|φ| = {phi:.1e}, end defect {end:.1e}; \
             σ(DE) in [{:.1e}, {:.1e}]",
            chart.name(),
            target.1.0[0],
            target.1.0[1],
            rot_n.as_slice(),
            sol.report.iterations,
            sol.residuals.iter().map(|r| format!("{r:.1e}")).collect::<Vec<_>>(),
            errors.iter().map(|r| format!("{r:.1e}")).collect::<Vec<_>>(),
            (u_star - u).amax(),
            sv.min(),
            sv.max()
        );
        assert!(phi < 1e-13 && end < 1e-11, "{phi:e} {end:e}");
        // the BVP solution is isolated here, so the manufactured data are recovered; the error is
        // the residual tolerance 1e-12 over σ_min(DE) ≈ 0.2 (plus inner tolerances)
        assert!((u_star - u).amax() < 1e-10, "{:e}", (u_star - u).amax());
        // quadratic: e_{j+1} <= 10 e_j² where e_j is in (1e-10, 0.1)
        let mut checked = 0;
        for w in errors.windows(2) {
            if w[0] > 1e-10 && w[0] < 0.1 {
                assert!(w[1] <= 10.0 * w[0] * w[0], "not quadratic: {:e} -> {:e}", w[0], w[1]);
                checked += 1;
            }
        }
        assert!(checked >= 2, "{errors:?}");
        for p in &sol.trajectory {
            assert!(fl.regularity(p).is_ok());
        }
    }
}

#[test]
fn noether_momenta_of_translations_right_multiplication_and_vertical_rotation() {
    let chart = Chart::Cayley;
    let (fl, _, _, sol) = solve_manufactured(chart);
    let gd = ball(chart);
    let (lag, con) = (fl.lagrangian(), fl.constraints());
    // continue the dynamics beyond the BVP (the momenta are conserved by the flow)
    let mut traj = sol.trajectory.clone();
    for _ in 0..140 {
        let (next, _) = fl.step(traj.last().unwrap()).unwrap();
        traj.push(next);
    }
    // translations (x, y) ↦ (x + a, y + b): constant section (e1, e2) of the left-trivialized chart
    let translations = ConstantSection(SMatrix::<f64, 5, 2>::from_fn(|a, i| if a == i { 1.0 } else { 0.0 }));
    // right multiplications R ↦ R S: generator R ω has left-trivialized coordinates ω
    let right = ConstantSection(SMatrix::<f64, 5, 3>::from_fn(|a, i| if a == i + 2 { 1.0 } else { 0.0 }));
    // rotations about the vertical, (x, R) ↦ (R_z(θ) x, R_z(θ) R): generator (e3 × x, Rᵀ e3)
    let vertical = FnSection(|q: &Q| {
        let rz = q.1.transpose() * Vector3::z();
        SMatrix::<f64, 5, 1>::from([[-q.0[1], q.0[0], rz[0], rz[1], rz[2]]])
    });
    let ct = check_conservation(&gd, lag, con, &translations, &traj);
    let cr = check_conservation(&gd, lag, con, &right, &traj);
    let cv = check_conservation(&gd, lag, con, &vertical, &traj);
    // invariance: L̂ and φ under translations and right multiplication; only N (φ = 0) under the
    // vertical rotation, where φ is equivariant (φ ↦ R_z φ), which suffices (docs/math.md §C.5)
    let g = &traj[7].g;
    let inv = [
        invariance_defect(&gd, lag, &translations, g),
        invariance_defect(&gd, lag, &right, g),
        invariance_defect(&gd, lag, &vertical, g),
        constraint_invariance_defect(&gd, con, &translations, g),
        constraint_invariance_defect(&gd, con, &right, g),
        constraint_invariance_defect(&gd, con, &vertical, g),
    ];
    println!(
        "plate-ball Noether over {} steps: translations J = {:?} drift {:.1e}; right multiplication J = {:?} drift {:.1e}; \
         vertical rotation J = {:.4} drift {:.1e}; invariance defects {:?}",
        traj.len(),
        ct.momenta[0].as_slice(),
        ct.max_drift,
        cr.momenta[0].as_slice(),
        cr.max_drift,
        cv.momenta[0][0],
        cv.max_drift,
        inv.iter().map(|d| format!("{d:.0e}")).collect::<Vec<_>>()
    );
    // round-off: |J| ~ 1–10, each step's DEL residual <= 1e-14 · |J_step| ~ 1e-13; 220 steps
    assert!(ct.max_drift < 1e-11 && cr.max_drift < 1e-11 && cv.max_drift < 1e-11);
    assert!(ct.max_mismatch < 1e-11 && cr.max_mismatch < 1e-11 && cv.max_mismatch < 1e-11);
    assert!(inv.iter().all(|d| *d < 1e-12), "{inv:?}");
    // the momenta are not trivially zero
    assert!(ct.momenta[0].amax() > 0.1 && cr.momenta[0].amax() > 0.1);
    // a non-symmetry is detected: left multiplication by rotations about e1 moves the rolling axis
    let tilt = FnSection(|q: &Q| {
        let r1 = q.1.transpose() * Vector3::x();
        SMatrix::<f64, 5, 1>::from([[0.0, 0.0, r1[0], r1[1], r1[2]]])
    });
    assert!(constraint_invariance_defect(&gd, con, &tilt, g) > 1e-3);
}

#[test]
fn bvp_solution_is_stationary_for_the_constrained_action_sum() {
    let chart = Chart::Exp;
    let (fl, _, _, sol) = solve_manufactured(chart);
    let gd = ball(chart);
    let (lag, con) = (fl.lagrangian(), fl.constraints());
    let grad = action_gradient(&gd, lag, con, &sol.trajectory).iter().map(|g| g.amax()).fold(0.0, f64::max);
    let arrows: Vec<(Q, Q)> = sol.trajectory.iter().map(|p| p.g).collect();
    let tangent = tangent_gradient(&gd, lag, con, &arrows).unwrap().amax();
    // a perturbed admissible sequence (same product, off the dynamics) is not stationary
    let zetas: Vec<SVector<f64, 5>> =
        (0..STEPS - 1).map(|k| SVector::from_fn(|i, _| 1e-3 * ((k * 5 + i) as f64).sin())).collect();
    let varied = vary(&gd, &arrows, &zetas).unwrap();
    let perturbed: Vec<_> = varied.iter().zip(&sol.trajectory).map(|(g, p)| SigmaPoint::new(*g, p.lambda)).collect();
    let off = action_gradient(&gd, lag, con, &perturbed).iter().map(|g| g.amax()).fold(0.0, f64::max);
    println!(
        "plate-ball action sum: gradient with multipliers {grad:.1e}, tangent gradient {tangent:.1e}; perturbed sequence {off:.1e}"
    );
    // solver tolerance: the inner steps solve these residuals to 1e-14 (relative to |λ| ~ 1)
    assert!(grad < 1e-12 && tangent < 1e-12, "{grad:e} {tangent:e}");
    assert!(off > 1e-4, "{off:e}");
}
