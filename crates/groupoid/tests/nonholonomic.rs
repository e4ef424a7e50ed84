//! Nonholonomic mechanics by the discrete Lagrange–d'Alembert principle (docs/math.md §C.7;
//! `groupoid::nonholonomic`): the vertical rolling disk against its exact solution, the Chaplygin
//! sleigh against its closed-form reduced motion and limit, the discrete nonholonomic momentum
//! equation, the same sleigh on `SE(2)` as a Lie group groupoid, and the typed errors. Every
//! claim has a negative control that makes the same measurement fail.

use geom_core::lie::{Chart, LieGroup, Se2};
use geom_core::newton::NewtonOptions;
use geom_core::{GeomError, Scalar};
use groupoid::nonholonomic::{
    ChaplyginSleigh, ContinuousLagrangian, Midpoint, MidpointConstraints, MomentumObserver, NonholonomicConstraints,
    NonholonomicFlow, NonholonomicState, PlanarMotions, RollingConstraint, RollingDisk, SleighFlow, consistency,
};
use groupoid::{DiscreteLagrangian, GroupAsGroupoid, LieGroupoid, PairGroupoid};
use nalgebra::{Matrix3, SMatrix, SVector, Vector2, Vector3};

type Q4 = SVector<f64, 4>;
type Arrow4 = (Q4, Q4);
type Arrow3 = (SVector<f64, 3>, SVector<f64, 3>);

// ---------------------------------------------------------------------------------------------
// The rolling disk

/// A uniform disk: `m = 1`, `R = 0.5`, `I = ½ m R²`, `J = ¼ m R²`.
fn disk() -> RollingDisk {
    RollingDisk::new(1.0, 0.5, 0.125, 0.0625).unwrap()
}
const THETA_DOT: f64 = 2.0;
const PHI_DOT: f64 = 0.7;
fn disk_q0() -> Q4 {
    SVector::from([0.2, -0.1, 0.0, 0.3])
}

/// `n` arrows of the DLA flow with step `h = t/n` from the continuous data `(q_0, p_0 = ∂L/∂q̇)`,
/// under the constraint one-forms `constraint` (the disk's own, or a wrong one). Returns the arrows
/// `g_0 … g_{n−1}` (node `q_k = g_k.0`, `q_n = g_{n−1}.1`) and the node multipliers.
fn run_disk(constraint: RollingConstraint, t: f64, n: usize) -> (Vec<Arrow4>, Vec<SVector<f64, 2>>) {
    let d = disk();
    let h = t / n as f64;
    let flow = NonholonomicFlow::<_, _, _, 6>::new(
        PairGroupoid::<4>,
        Midpoint::new(d, h).unwrap(),
        MidpointConstraints(constraint),
    );
    let q0 = disk_q0();
    let v0 = d.velocity(&q0, THETA_DOT, PHI_DOT);
    let first = flow.step_from_momentum(&q0, &d.momentum(&v0), &(v0 * h)).unwrap();
    let states = flow.trajectory(&NonholonomicState::new(first.g, first.lambda), n - 1).unwrap();
    (states.iter().map(|s| s.g).collect(), states.iter().map(|s| s.lambda).collect())
}

/// `[a, b, …]` in scientific notation.
fn sci(v: &[f64]) -> String {
    format!("[{}]", v.iter().map(|x| format!("{x:.3e}")).collect::<Vec<_>>().join(", "))
}

fn slopes(errors: &[f64]) -> Vec<f64> {
    errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect()
}

#[test]
fn rolling_disk_converges_with_order_two_and_keeps_the_constraints() {
    let t = 5.0;
    let d = disk();
    let exact = d.exact(&disk_q0(), THETA_DOT, PHI_DOT, t);
    let mut errors = Vec::new();
    for n in [25, 50, 100, 200, 400] {
        let h = t / n as f64;
        let (arrows, lambdas) = run_disk(d.constraint(), t, n);
        let flow = d.flow(h).unwrap();
        let error = (arrows.last().unwrap().1 - exact).amax();
        // M_d at round-off, and the DLA equations recomputed from the Legendre transforms
        let psi = arrows.iter().map(|g| flow.constraint_residual(g)).fold(0.0, f64::max);
        let dla = arrows
            .windows(2)
            .zip(&lambdas[1..])
            .map(|(w, l)| flow.dla_residual(&w[0], &w[1], l).amax())
            .fold(0.0, f64::max);
        let e0 = d.energy(&d.velocity(&disk_q0(), THETA_DOT, PHI_DOT));
        let energy = arrows.iter().map(|g| (flow.lagrangian().energy(g) - e0).abs()).fold(0.0, f64::max);
        let drift = arrows.iter().map(|g| (flow.lagrangian().energy(g) - flow.lagrangian().energy(&arrows[0])).abs());
        let drift = drift.fold(0.0, f64::max);
        println!(
            "rolling disk, midpoint DLA, h = {h:.4}, {n} steps to t = {t}: |q_n − q(t)| = {error:.3e}, max|ψ| = {psi:.1e}, \
             max DLA residual = {dla:.1e}, max|E_k − E(0)| = {energy:.1e}, max|E_k − E_0| = {drift:.1e}"
        );
        assert!(psi <= 1e-12, "{psi:e}");
        assert!(dla <= 1e-12, "{dla:e}");
        // the discrete energy is constant (Δθ, Δφ constant, |Δx| = R|Δθ|): round-off of O(1) sums
        assert!(drift <= 1e-12, "{drift:e}");
        errors.push(error);
    }
    let s = slopes(&errors);
    println!("rolling disk: errors {}, slopes {s:.3?}", sci(&errors));
    for slope in s {
        assert!((slope - 2.0).abs() <= 0.3, "slope {slope}");
    }
}

#[test]
fn rolling_disk_rates_are_constant_and_the_contact_point_is_on_a_circle() {
    let d = disk();
    let (t, n) = (20.0, 400);
    let h = t / n as f64;
    let (arrows, _) = run_disk(d.constraint(), t, n);
    // Δθ and Δφ are the same at every step (exactly in exact arithmetic)
    let (dth, dph) = (arrows[0].1[2] - arrows[0].0[2], arrows[0].1[3] - arrows[0].0[3]);
    let rates = arrows.iter().map(|g| ((g.1[2] - g.0[2]) - dth).abs().max(((g.1[3] - g.0[3]) - dph).abs()));
    let rates = rates.fold(0.0, f64::max);
    // the contact points (x_k, y_k) lie on one circle: the circumcircle of three of them
    let p = |k: usize| Vector2::new(arrows[k].0[0], arrows[k].0[1]);
    let (a, b, c) = (p(0), p(7), p(19));
    let (bb, cc) = (b - a, c - a);
    let det = 2.0 * (bb[0] * cc[1] - bb[1] * cc[0]);
    let centre = a + Vector2::new(
        cc[1] * bb.norm_squared() - bb[1] * cc.norm_squared(),
        bb[0] * cc.norm_squared() - cc[0] * bb.norm_squared(),
    ) / det;
    let radius = (a - centre).norm();
    let spread = (0..n).map(|k| ((p(k) - centre).norm() - radius).abs()).fold(0.0, f64::max);
    // the discrete circle has radius R Δθ / (2 sin(Δφ/2)); the exact one |R θ̇/φ̇|
    let discrete_radius = d.radius() * dth / (2.0 * (0.5 * dph).sin());
    let (exact_centre, exact_radius) = d.circle(&disk_q0(), THETA_DOT, PHI_DOT).unwrap();
    println!(
        "rolling disk, h = {h}: max|Δθ_k − Δθ_0|, |Δφ_k − Δφ_0| = {rates:.1e}; Δφ/h − φ̇ = {:.1e}, Δθ/h − θ̇ = {:.2e}; \
         contact points on a circle: spread {spread:.1e}, radius {radius:.12} (R Δθ/(2 sin(Δφ/2)) = {discrete_radius:.12}, \
         exact |R θ̇/φ̇| = {exact_radius:.12}), centre off the exact one by {:.1e}",
        dph / h - PHI_DOT,
        dth / h - THETA_DOT,
        (centre - exact_centre).norm()
    );
    assert!(rates < 1e-13, "{rates:e}");
    assert!((dph / h - PHI_DOT).abs() < 1e-13); // φ̇ is exact: the φ-equation is J(Δφ_k − Δφ_{k−1}) = 0
    assert!(spread < 1e-12, "{spread:e}");
    assert!((radius - discrete_radius).abs() < 1e-12);
    // ... and converges to the exact circle (second order: Δθ/h = θ̇ (1 + O(h²)))
    assert!((radius - exact_radius).abs() < 1e-3 && (centre - exact_centre).norm() < 1e-3);
}

#[test]
fn wrong_constraint_sign_breaks_the_exact_rolling() {
    // Negative control: the same integrator, data and measurement as the order test, with the
    // rolling constraint of the opposite sign (ẋ = −R cos φ θ̇). The trajectory is a valid DLA
    // solution of another system (constraints still at round-off) but does not approach the exact
    // rolling: the error is O(1) and does not decrease with h.
    let t = 5.0;
    let d = disk();
    let wrong = RollingConstraint { radius: -d.radius() };
    let exact = d.exact(&disk_q0(), THETA_DOT, PHI_DOT, t);
    let mut errors = Vec::new();
    for n in [50, 100, 200] {
        let (arrows, _) = run_disk(wrong, t, n);
        let flow = NonholonomicFlow::<_, _, _, 6>::new(
            PairGroupoid::<4>,
            Midpoint::new(d, t / n as f64).unwrap(),
            MidpointConstraints(wrong),
        );
        let psi = arrows.iter().map(|g| flow.constraint_residual(g)).fold(0.0, f64::max);
        assert!(psi <= 1e-12);
        errors.push((arrows.last().unwrap().1 - exact).amax());
    }
    println!("rolling disk with the wrong constraint sign: errors {}, slopes {:.3?}", sci(&errors), slopes(&errors));
    assert!(errors.iter().all(|&e| e > 0.1), "{errors:?}");
    assert!(slopes(&errors).iter().all(|s| s.abs() < 0.3));
    // The consistency check of M_d against D sees a mismatched pair at once: the right one-forms
    // with the wrong discrete constraint.
    struct Mismatched;
    impl NonholonomicConstraints<PairGroupoid<4>, 4, 2> for Mismatched {
        fn one_forms<S: Scalar>(&self, gd: &PairGroupoid<4>, x: &SVector<S, 4>) -> SMatrix<S, 2, 4> {
            MidpointConstraints(RollingConstraint { radius: 0.5 }).one_forms(gd, x)
        }
        fn discrete<S: Scalar>(&self, gd: &PairGroupoid<4>, g: &(SVector<S, 4>, SVector<S, 4>)) -> SVector<S, 2> {
            MidpointConstraints(RollingConstraint { radius: -0.5 }).discrete(gd, g)
        }
    }
    let good = consistency(&PairGroupoid::<4>, &MidpointConstraints(d.constraint()), &disk_q0()).unwrap();
    let bad = consistency(&PairGroupoid::<4>, &Mismatched, &disk_q0()).unwrap();
    println!("consistency of M_d with D: disk {good:?}, mismatched {bad:?}");
    assert!(good.at_identity == 0.0 && good.tangent < 1e-14);
    assert!(bad.tangent > 0.1);
}

#[test]
fn rolling_disk_momentum_equation() {
    let d = disk();
    let (t, n) = (10.0, 500);
    let h = t / n as f64;
    let (arrows, _) = run_disk(d.constraint(), t, n);
    let flow = d.flow(h).unwrap();
    // horizontal sections: turning about the contact point (J φ̇) and rolling forward ((I + mR²) θ̇),
    // both conserved; the translation along x is a symmetry but not horizontal
    let rolling = d.rolling_momentum();
    let turning = d.turning_momentum();
    let x_translation =
        MomentumObserver::new(groupoid::nonholonomic::DiskSymmetry, |_: &Q4| SVector::from([0.0, 1.0, 0.0, 0.0]));
    let mut worst = [0.0f64; 2];
    let mut horizontal = 0.0f64;
    for w in arrows.windows(2) {
        for (i, b) in [rolling.balance(&flow, &w[0], &w[1]), turning.balance(&flow, &w[0], &w[1])].iter().enumerate() {
            worst[i] = worst[i].max(b.defect.abs()).max(b.predicted_change.abs());
            horizontal = horizontal.max(b.horizontality);
        }
    }
    let j_roll = rolling.momentum(flow.groupoid(), flow.lagrangian(), &arrows[0]);
    let j_turn = turning.momentum(flow.groupoid(), flow.lagrangian(), &arrows[0]);
    let drift_roll = arrows
        .iter()
        .map(|g| (rolling.momentum(flow.groupoid(), flow.lagrangian(), g) - j_roll).abs())
        .fold(0.0, f64::max);
    let drift_turn = arrows
        .iter()
        .map(|g| (turning.momentum(flow.groupoid(), flow.lagrangian(), g) - j_turn).abs())
        .fold(0.0, f64::max);
    let x_defect = arrows
        .windows(2)
        .map(|w| x_translation.balance(&flow, &w[0], &w[1]))
        .fold((0.0f64, 0.0f64), |m, b| (m.0.max(b.defect.abs()), m.1.max(b.horizontality)));
    println!(
        "rolling disk momenta (h = {h}): rolling J = {j_roll:.12} ((I + mR²)θ̇ = {:.12}), turning J = {j_turn:.12} (J φ̇ = {:.12}); \
         drifts {drift_roll:.1e}, {drift_turn:.1e}; max |defect| or |change| {}, horizontality {horizontal:.1e}; \
         x-translation (not horizontal): max defect {:.2e}, horizontality {:.1}",
        (0.125 + 0.25) * THETA_DOT,
        0.0625 * PHI_DOT,
        sci(&worst),
        x_defect.0,
        x_defect.1
    );
    assert!(worst[0] < 1e-12 && worst[1] < 1e-12 && horizontal < 1e-15, "{worst:?} {horizontal:e}");
    assert!(drift_roll < 1e-12 && drift_turn < 1e-12);
    assert!((j_turn - 0.0625 * PHI_DOT).abs() < 1e-13);
    assert!((j_roll - 0.375 * THETA_DOT).abs() < 1e-3); // O(h²)
    // negative control: the momentum of a non-horizontal symmetry changes with the constraint force
    assert!(x_defect.0 > 1e-3 && x_defect.1 > 0.5, "{x_defect:?}");
}

// ---------------------------------------------------------------------------------------------
// The Chaplygin sleigh

fn sleigh() -> ChaplyginSleigh {
    ChaplyginSleigh::new(1.0, 0.2, 0.5).unwrap()
}
/// Initially moving backwards (contact point first) and turning: the sleigh turns round.
const U0: f64 = -0.3;
const OMEGA0: f64 = 1.0;
fn sleigh_q0() -> SVector<f64, 3> {
    SVector::from([0.0, 0.0, 0.4])
}

/// `n` arrows of the sleigh's DLA flow from the continuous data `(q_0, u_0, ω_0)`.
fn run_sleigh(s: &ChaplyginSleigh, h: f64, n: usize) -> (SleighFlow, Vec<Arrow3>) {
    let flow = s.flow(h).unwrap();
    let q0 = sleigh_q0();
    let v0 = s.velocity(q0[2], U0, OMEGA0);
    let first = flow.step_from_momentum(&q0, &s.momentum(&v0), &(v0 * h)).unwrap();
    let states = flow.trajectory(&NonholonomicState::new(first.g, first.lambda), n - 1).unwrap();
    (flow, states.into_iter().map(|s| s.g).collect())
}

#[test]
fn sleigh_constraint_at_round_off_and_energy_bounded_over_a_long_run() {
    let s = sleigh();
    let e0 = s.energy(&s.velocity(0.0, U0, OMEGA0));
    let mut drifts = Vec::new();
    for (h, n) in [(0.02, 50_000), (0.01, 100_000)] {
        let (flow, arrows) = run_sleigh(&s, h, n);
        let psi = arrows.iter().map(|g| flow.constraint_residual(g)).fold(0.0, f64::max);
        let energies: Vec<f64> = arrows.iter().map(|g| flow.lagrangian().energy(g)).collect();
        let max_dev = energies.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max);
        // After the transient the motion is straight and the discrete energy is frozen up to the
        // resolution of absolute positions: Δq = fl(x + ξ) − x carries an error ε|x|, so E can only
        // be known to 2E ε|x|/|Δq| (1e-11 at |x| = 700, |Δq| = 0.015). Compare the second half of
        // the run with its start, against that floor.
        let late = &energies[n / 2..];
        let late_drift = late.iter().map(|e| (e - late[0]).abs()).fold(0.0, f64::max);
        let last = arrows.last().unwrap();
        let floor = 2.0 * e0 * f64::EPSILON * last.1.amax() / (last.1 - last.0).amax();
        println!(
            "Chaplygin sleigh, midpoint DLA, h = {h}, {n} steps (t = {}): max|ψ| = {psi:.1e}, max|E_k − E(0)| = {max_dev:.3e} \
             (E(0) = {e0}), drift over the second half {late_drift:.1e} (position-resolution floor {floor:.1e})",
            h * n as f64
        );
        assert!(psi <= 1e-12, "{psi:e}");
        assert!(max_dev < 2e-3 * e0, "{max_dev:e}");
        assert!(late_drift < 4.0 * floor, "{late_drift:e} {floor:e}"); // a bias of 1e-15 per step would give 2.5e-11
        drifts.push(max_dev);
    }
    // the energy error is a discretization error, O(h²), not an accumulation
    let ratio = drifts[0] / drifts[1];
    println!("sleigh energy error ratio h → h/2: {ratio:.2}");
    assert!((3.0..5.5).contains(&ratio), "{ratio}");
}

#[test]
fn sleigh_reproduces_the_reduced_motion_and_its_straight_line_limit() {
    let s = sleigh();
    let q0 = sleigh_q0();
    let u_inf = s.limit_speed(U0, OMEGA0);
    let theta_inf = s.limit_heading(q0[2], U0, OMEGA0).unwrap();
    let mut heading_errors = Vec::new();
    for h in [0.04, 0.02, 0.01] {
        let n = (60.0 / h) as usize;
        let (_, arrows) = run_sleigh(&s, h, n);
        // reduced motion along the way: arrow k approximates t = (k + ½) h
        let mut reduced_error = 0.0f64;
        for (k, g) in arrows.iter().enumerate().step_by((0.5 / h) as usize).take(20) {
            let body = s.arrow_body_velocity(g, h);
            let exact = s.reduced(U0, OMEGA0, (k as f64 + 0.5) * h);
            reduced_error = reduced_error.max((body[0] - exact.u).abs()).max((body[2] - exact.omega).abs());
            reduced_error = reduced_error.max((0.5 * (g.0[2] + g.1[2]) - q0[2] - exact.heading_change).abs());
        }
        let last = arrows.last().unwrap();
        let body = s.arrow_body_velocity(last, h);
        let heading = last.1[2];
        // direction of motion of the centre of mass against the knife edge
        let dir = Vector2::new(last.1[0] - last.0[0], last.1[1] - last.0[1]).normalize();
        let edge = Vector2::new(heading.cos(), heading.sin());
        println!(
            "sleigh h = {h}, t = 60: ω = {:.1e}, lateral v = {:.1e}, u = {:.10} (u_∞ = {u_inf:.10}), θ = {heading:.10} \
             (θ_∞ = {theta_inf:.10}), direction · edge = {:.15}; max error of (u, ω, θ) over t ≤ 10: {reduced_error:.2e}",
            body[2],
            body[1],
            body[0],
            dir.dot(&edge)
        );
        assert!(body[2].abs() < 1e-12 && body[1].abs() < 1e-12, "{body}");
        assert!(body[0] > 0.0 && (body[0] - u_inf).abs() < 1e-3, "{body}");
        assert!(dir.dot(&edge) > 1.0 - 1e-15);
        assert!(reduced_error < 0.01, "{reduced_error:e}");
        heading_errors.push((heading - theta_inf).abs());
    }
    let s2 = slopes(&heading_errors);
    println!("sleigh limit heading errors {}, slopes {s2:.3?}", sci(&heading_errors));
    assert!(heading_errors.iter().all(|&e| e < 5e-3));
    assert!(s2.iter().all(|s| (s - 2.0).abs() < 0.3), "{s2:?}");
}

#[test]
fn sleigh_without_offset_keeps_turning() {
    // Negative control for the asymptotics: with the knife edge under the centre of mass (a = 0)
    // the same measurement finds no decay, ω stays ω_0 and the sleigh circles for ever.
    let s = ChaplyginSleigh::new(1.0, 0.2, 0.0).unwrap();
    let h = 0.02;
    let (flow, arrows) = run_sleigh(&s, h, 3000);
    let body = s.arrow_body_velocity(arrows.last().unwrap(), h);
    let psi = arrows.iter().map(|g| flow.constraint_residual(g)).fold(0.0, f64::max);
    println!("sleigh with a = 0, t = 60: ω = {:.6} (ω_0 = {OMEGA0}), u = {:.6}, max|ψ| = {psi:.1e}", body[2], body[0]);
    assert!((body[2] - OMEGA0).abs() < 1e-3 && psi < 1e-12);
    assert!(s.limit_heading(0.0, U0, OMEGA0).is_none());
}

#[test]
fn sleigh_momentum_equation() {
    let s = sleigh();
    let h = 0.02;
    let (flow, arrows) = run_sleigh(&s, h, 1000);
    let forward = s.forward_momentum();
    let contact = s.contact_momentum();
    // rotation about the centre of mass: a symmetry, but its generator ∂_θ is not in D
    let about_cm = MomentumObserver::new(PlanarMotions, |q: &SVector<f64, 3>| SVector::from([1.0, q[1], -q[0]]));
    let (mut defect, mut horizontal, mut change) = ([0.0f64; 2], 0.0f64, [0.0f64; 2]);
    let (mut cm_defect, mut cm_horizontal) = (0.0f64, 0.0f64);
    for w in arrows.windows(2) {
        for (i, obs) in [forward.balance(&flow, &w[0], &w[1]), contact.balance(&flow, &w[0], &w[1])].iter().enumerate()
        {
            defect[i] = defect[i].max(obs.defect.abs());
            change[i] = change[i].max(obs.predicted_change.abs());
            horizontal = horizontal.max(obs.horizontality);
        }
        let b = about_cm.balance(&flow, &w[0], &w[1]);
        cm_defect = cm_defect.max(b.defect.abs());
        cm_horizontal = cm_horizontal.max(b.horizontality);
    }
    // the momenta are m u and (I + m a²) ω up to O(h)
    let g = &arrows[100];
    let body = s.arrow_body_velocity(g, h);
    let jf = forward.momentum(flow.groupoid(), flow.lagrangian(), g);
    let jc = contact.momentum(flow.groupoid(), flow.lagrangian(), g);
    println!(
        "sleigh momentum equation (h = {h}): max defect {} for changes up to {}, horizontality {horizontal:.1e}; \
         J_u = {jf:.6} (m u = {:.6}), J_ω = {jc:.6} ((I + ma²) ω = {:.6}); rotation about the centre of mass: \
         defect {cm_defect:.2e}, horizontality {cm_horizontal}",
        sci(&defect),
        sci(&change),
        s.mass() * body[0],
        (s.inertia() + s.mass() * 0.25) * body[2]
    );
    assert!(defect[0] < 1e-12 && defect[1] < 1e-12 && horizontal < 1e-15, "{defect:?}");
    assert!(change[0] > 1e-3 && change[1] > 1e-3); // the equation is not trivially 0 = 0
    assert!((jf - s.mass() * body[0]).abs() < 0.05 && (jc - 0.45 * body[2]).abs() < 0.05);
    // negative control
    assert!(cm_defect > 1e-3 && (cm_horizontal - 0.5).abs() < 1e-12, "{cm_defect:e}");
}

// ---------------------------------------------------------------------------------------------
// The sleigh on SE(2) as a Lie group groupoid (discrete Euler–Poincaré–Suslov)

type Se2Groupoid = GroupAsGroupoid<Se2>;

/// `L(W) = h ℓ(τ^{-1}(W)/h)`, `ℓ(ω, v_1, v_2) = ½(I ω² + m (v_1² + v_2²))` (body velocities).
struct SleighBody {
    mass: f64,
    inertia: f64,
    h: f64,
}
impl DiscreteLagrangian<Se2Groupoid, 3> for SleighBody {
    fn eval<S: Scalar>(&self, gd: &Se2Groupoid, w: &Matrix3<S>) -> S {
        let xi = gd.group().tau_inv(gd.chart(), w).unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        (xi[0] * xi[0] * S::from(self.inertia) + (xi[1] * xi[1] + xi[2] * xi[2]) * S::from(self.mass))
            * S::from(0.5 / self.h)
    }
}
/// The constant body constraint `v_2 − a ω = 0`: `μ = (−a, 0, 1)`, `ψ(W) = μ · τ^{-1}(W)`.
struct BodyKnife {
    offset: f64,
}
impl NonholonomicConstraints<Se2Groupoid, 3, 1> for BodyKnife {
    fn one_forms<S: Scalar>(&self, _: &Se2Groupoid, _: &()) -> SMatrix<S, 1, 3> {
        SMatrix::<S, 1, 3>::new(S::from(-self.offset), S::from(0.0), S::from(1.0))
    }
    fn discrete<S: Scalar>(&self, gd: &Se2Groupoid, w: &Matrix3<S>) -> SVector<S, 1> {
        let xi = gd.group().tau_inv(gd.chart(), w).unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        SVector::from([xi[2] - xi[0] * S::from(self.offset)])
    }
}

#[test]
fn sleigh_on_se2_as_a_lie_group_groupoid_agrees() {
    let s = sleigh();
    let h = 0.01;
    let n = 6000;
    let gd = GroupAsGroupoid::new(Se2, Chart::Exp);
    let flow =
        NonholonomicFlow::<_, _, _, 4>::new(gd, SleighBody { mass: 1.0, inertia: 0.2, h }, BodyKnife { offset: 0.5 });
    let c = consistency(&gd, flow.constraints(), &()).unwrap();
    assert!(c.at_identity < 1e-15 && c.tangent < 1e-15, "{c:?}");
    // node 0: body momentum ∂ℓ/∂ξ at ξ_0 = (ω_0, u_0, a ω_0)
    let xi0 = Vector3::new(OMEGA0, U0, 0.5 * OMEGA0);
    let p0 = Vector3::new(0.2 * xi0[0], xi0[1], xi0[2]);
    let first = flow.step_from_momentum(&(), &p0, &(xi0 * h)).unwrap();
    let states = flow.trajectory(&NonholonomicState::new(first.g, first.lambda), n - 1).unwrap();
    // reconstruct g_{k+1} = g_k W_k from g_0 = (R(θ_0), 0)
    let theta0 = sleigh_q0()[2];
    let mut g = LieGroup::<f64, 3>::exp(&Se2, &Vector3::new(theta0, 0.0, 0.0));
    let mut psi = 0.0f64;
    let mut dla = 0.0f64;
    let mut reduced_error = 0.0f64;
    for (k, st) in states.iter().enumerate() {
        psi = psi.max(flow.constraint_residual(&st.g));
        if k > 0 {
            dla = dla.max(flow.dla_residual(&states[k - 1].g, &st.g, &st.lambda).amax());
        }
        let xi = LieGroup::<f64, 3>::log(&Se2, &st.g).unwrap() / h;
        if k % 50 == 0 && k <= 1000 {
            let exact = s.reduced(U0, OMEGA0, (k as f64 + 0.5) * h);
            reduced_error = reduced_error.max((xi[1] - exact.u).abs()).max((xi[0] - exact.omega).abs());
        }
        g *= st.g;
    }
    let xi_last = LieGroup::<f64, 3>::log(&Se2, &states.last().unwrap().g).unwrap() / h;
    let heading = g[(1, 0)].atan2(g[(0, 0)]);
    let theta_inf = s.limit_heading(theta0, U0, OMEGA0).unwrap();
    let wrap = |a: f64| (a + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI;
    // the pair-groupoid sleigh at the same step
    let (_, arrows) = run_sleigh(&s, h, n);
    let pair_heading = arrows.last().unwrap().1[2];
    println!(
        "sleigh on SE(2) ⇉ {{e}} (exp chart), h = {h}, {n} steps: max|ψ| = {psi:.1e}, max DLA residual {dla:.1e}, \
         max error of (u, ω) over t ≤ 10: {reduced_error:.2e}; limit: ω = {:.1e}, u = {:.8} (u_∞ = {:.8}), heading {heading:.8} \
         vs θ_∞ = {:.8} (pair groupoid: {:.8})",
        xi_last[0],
        xi_last[1],
        s.limit_speed(U0, OMEGA0),
        wrap(theta_inf),
        wrap(pair_heading)
    );
    assert!(psi < 1e-13 && dla < 1e-12, "{psi:e} {dla:e}");
    assert!(reduced_error < 1e-3, "{reduced_error:e}");
    // ω_N sits at the Newton floor: each step may leave an error ~ tol/I in ω, which the decay
    // rate κ damps to ~ tol/(I κ h) ≈ 6e-12
    assert!(xi_last[0].abs() < 1e-10 && (xi_last[1] - s.limit_speed(U0, OMEGA0)).abs() < 1e-3);
    assert!(wrap(heading - theta_inf).abs() < 1e-3 && wrap(heading - pair_heading).abs() < 1e-3);
}

// ---------------------------------------------------------------------------------------------
// Errors

/// A degenerate Lagrangian: the disk without inertia about the vertical (`J = 0`), so nothing
/// determines `φ`.
struct NoTurningInertia;
impl ContinuousLagrangian<4> for NoTurningInertia {
    fn eval<S: Scalar>(&self, _: &SVector<S, 4>, v: &SVector<S, 4>) -> S {
        (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] * S::from(0.125)) * S::from(0.5)
    }
}

#[test]
fn typed_errors_and_failed_steps_leave_the_state_untouched() {
    let d = disk();
    let h = 0.05;
    let flow = d.flow(h).unwrap();
    let (arrows, lambdas) = run_disk(d.constraint(), 1.0, 20);
    let start = NonholonomicState::new(arrows[5], lambdas[5]);

    // non-finite input
    let mut nan = arrows[5];
    nan.1[0] = f64::NAN;
    assert!(matches!(flow.step(&nan), Err(GeomError::NonFinite { .. })));
    let p_nan = SVector::from([f64::NAN, 0.0, 0.0, 0.0]);
    assert!(matches!(flow.step_from_momentum(&disk_q0(), &p_nan, &SVector::zeros()), Err(GeomError::NonFinite { .. })));
    let mut state = NonholonomicState::new(arrows[5], SVector::from([f64::NAN, 0.0]));
    let before = format!("{state:?}"); // Debug prints floats exactly, NaN included
    assert!(matches!(flow.advance(&mut state), Err(GeomError::NonFinite { .. })));
    assert_eq!(format!("{state:?}"), before);

    // off M_d
    let mut off = arrows[5];
    off.1[0] += 1e-3;
    assert!(matches!(flow.step(&off), Err(GeomError::OffManifold { .. })));

    // non-convergence: one Newton iteration from a far guess (the identity arrow) ...
    let capped_options = NewtonOptions::new(1e-14, 1e-14, 1).unwrap();
    let capped = d.flow(h).unwrap().with_newton(capped_options);
    let err = capped.step_with_guess(&arrows[5], &SVector::zeros(), &SVector::zeros()).unwrap_err();
    println!("disk, one Newton iteration from the identity arrow: {err}");
    assert!(matches!(err, GeomError::NotConverged { iterations: 1, residual, .. } if residual > 1e-14), "{err:?}");
    // ... and for the nonlinear sleigh step from its ordinary warm start, through `advance`
    let s = sleigh();
    let (sleigh_flow, sleigh_arrows) = run_sleigh(&s, 0.05, 10);
    let mut sleigh_state = NonholonomicState::new(sleigh_arrows[5], SVector::zeros());
    let before = format!("{sleigh_state:?}");
    let err = sleigh_flow.clone().with_newton(capped_options).advance(&mut sleigh_state).unwrap_err();
    println!("sleigh, one Newton iteration: {err}");
    assert!(matches!(err, GeomError::NotConverged { iterations: 1, residual, .. } if residual > 1e-14), "{err:?}");
    assert_eq!(format!("{sleigh_state:?}"), before);
    // ... while the default solver accepts both
    assert!(sleigh_flow.advance(&mut sleigh_state).is_ok() && sleigh_state.steps == 1);
    let mut ok = start.clone();
    assert!(flow.advance(&mut ok).is_ok() && ok.steps == 1 && ok.g.0 == start.g.1);

    // singular step Jacobian: nothing determines Δφ
    let degenerate = NonholonomicFlow::<_, _, _, 6>::new(
        PairGroupoid::<4>,
        Midpoint::new(NoTurningInertia, h).unwrap(),
        MidpointConstraints(d.constraint()),
    );
    let mut state = start.clone();
    let err = degenerate.advance(&mut state).unwrap_err();
    println!("degenerate Lagrangian: {err}");
    assert!(matches!(err, GeomError::SingularMatrix { .. }), "{err:?}");
    assert_eq!(format!("{state:?}"), format!("{start:?}"));

    // invalid parameters
    assert!(matches!(RollingDisk::new(1.0, -0.5, 0.1, 0.1), Err(GeomError::InvalidParameter { .. })));
    assert!(matches!(d.flow(0.0), Err(GeomError::InvalidStep { .. })));
    assert!(matches!(ChaplyginSleigh::new(1.0, 0.2, f64::INFINITY), Err(GeomError::InvalidParameter { .. })));
    // composability of a successful step
    let next = flow.step(&arrows[5]).unwrap();
    assert!(LieGroupoid::<f64, 4>::compose(&PairGroupoid::<4>, &arrows[5], &next.g).is_ok());
}
