//! Time-dependent mechanics with the step stored in the arrow (`groupoid::time_dependent`;
//! docs/math.md §C.6.4): the fixed step (pendulum) against the time-free midpoint flow on `Q × Q`
//! and against the crate's `ConstrainedFlow` on the time groupoid `(Q × Q) × R`; the adaptive
//! energy-conserving step of Kane, Marsden & Ortiz (1999) on an eccentric Kepler orbit; its guard
//! against the time-reversed root and its typed errors.

use geom_core::Scalar;
use groupoid::constraints::{ConstrainedFlow, NoConstraints, SigmaPoint};
use groupoid::time_dependent::{
    AdaptiveStepFlow, AtiyahLagrangian, ContinuousLagrangian, FixedStepConstraint, FixedStepFlow, Midpoint,
    StepLagrangian, TimeArrow, TimeStepError, discrete_energy, momenta, time_groupoid,
};
use groupoid::variational::action_gradient;
use groupoid::{DiscreteFlow, DiscreteLagrangian, PairGroupoid};
use nalgebra::{SVector, Vector2};

/// The pendulum `L = ½v² − (1 − cos q)`.
struct Pendulum;
impl ContinuousLagrangian<1> for Pendulum {
    fn eval<S: Scalar>(&self, q: &SVector<S, 1>, v: &SVector<S, 1>) -> S {
        v[0] * v[0] * S::from(0.5) - (S::from(1.0) - q[0].cos())
    }
}

/// The time-free midpoint discrete Lagrangian of the pendulum on `Q × Q`, written independently:
/// `h (½((q1 − q0)/h)² − (1 − cos((q0 + q1)/2)))`.
struct PendulumMidpoint(f64);
impl DiscreteLagrangian<PairGroupoid<1>, 1> for PendulumMidpoint {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<1>, g: &(SVector<S, 1>, SVector<S, 1>)) -> S {
        let h = S::from(self.0);
        let v = (g.1[0] - g.0[0]) / h;
        let q = (g.0[0] + g.1[0]) * S::from(0.5);
        h * (v * v * S::from(0.5) - (S::from(1.0) - q.cos()))
    }
}

/// Kepler `L = ½|v|² + 1/|q|` (`μ = 1`).
struct Kepler;
impl ContinuousLagrangian<2> for Kepler {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, v: &SVector<S, 2>) -> S {
        v.norm_squared() * S::from(0.5) + q.norm().recip()
    }
}

const E: f64 = 0.6;

/// The exact Kepler orbit with `a = 1`, eccentricity `E`, perihelion `(1 − e, 0)` at `t = 0`
/// (period `2π`): Kepler's equation `u − e sin u = t` by Newton.
fn kepler_exact(t: f64) -> Vector2<f64> {
    let mut u = t;
    for _ in 0..100 {
        let du = (u - E * u.sin() - t) / (1.0 - E * u.cos());
        u -= du;
        if du.abs() < 1e-16 {
            break;
        }
    }
    Vector2::new(u.cos() - E, (1.0 - E * E).sqrt() * u.sin())
}

/// The first arrow of the Kepler orbit: perihelion and the exact position `h` later.
fn kepler_start(h: f64) -> TimeArrow<2> {
    TimeArrow::new(kepler_exact(0.0), kepler_exact(h), 0.0, h)
}

#[test]
fn fixed_step_stores_the_time_and_is_the_time_free_midpoint_flow() {
    let (h, n) = (0.1, 1000);
    let flow = FixedStepFlow::new(Midpoint(Pendulum), h).unwrap();
    let reference = DiscreteFlow::new(PairGroupoid::<1>, PendulumMidpoint(h));
    let (q0, q1) = (SVector::from([0.3]), SVector::from([0.3 + 1.5 * h]));
    let mut point = flow.start(q0, q1, 0.0, 0.7);
    let mut r = (q0, q1);
    let c0 = flow.time_momentum(&point);
    let (mut max_t, mut max_c, mut max_q) = (0.0f64, 0.0f64, 0.0f64);
    let (mut e_min, mut e_max) = (f64::INFINITY, f64::NEG_INFINITY);
    for k in 1..=n {
        flow.advance(&mut point).unwrap();
        r = reference.step(&r).unwrap().0;
        // arrow k starts at t_k = k h
        max_t = max_t.max((point.g.source_time() - k as f64 * h).abs() / k as f64);
        assert_eq!(point.g.dt, h);
        max_c = max_c.max((flow.time_momentum(&point) - c0).abs());
        max_q = max_q.max((point.g.q1 - r.1).amax().max((point.g.q0 - r.0).amax()));
        let e = discrete_energy(flow.lagrangian(), &point.g);
        (e_min, e_max) = (e_min.min(e), e_max.max(e));
    }
    println!(
        "fixed step h = {h}, pendulum, {n} steps: max|t_k − k h|/k = {max_t:.1e}; E_k varies by {:.1e}; \
         λ_k − E_k drifts by {max_c:.1e}; max|q_k − q_k(midpoint on Q × Q)| = {max_q:.1e}",
        e_max - e_min
    );
    assert!(max_t <= 1e-13, "{max_t:e}");
    // the energy itself varies (O(h²)), so λ_k − E_k = const is not the trivial E_k = const; λ_{k+1} is
    // solved from the t-equation, and the next test checks it against ConstrainedFlow independently
    assert!(e_max - e_min > 1e-4, "{}", e_max - e_min);
    assert!(max_c <= 1e-12, "{max_c:e}");
    assert!(max_q <= 1e-12, "{max_q:e}");
}

#[test]
fn fixed_step_is_the_constrained_flow_on_the_time_groupoid() {
    // The same system in the crate's generic terms: TrivialAtiyah<Rn<1>, 1, 1> (rank 2), the
    // Lagrangian and the constraint Δt − h = 0, solved by ConstrainedFlow on (ξ, τ, λ) (M = 3).
    let (h, n) = (0.1, 200);
    let gd = time_groupoid::<1>();
    let flow = FixedStepFlow::new(Midpoint(Pendulum), h).unwrap();
    let generic = ConstrainedFlow::<_, _, _, 3>::new(gd, AtiyahLagrangian(Midpoint(Pendulum)), FixedStepConstraint(h));
    let mut point = flow.start(SVector::from([1.2]), SVector::from([1.25]), 0.0, -0.4);
    let mut other = SigmaPoint::new(point.g.atiyah(), point.lambda);
    let mut trajectory = vec![SigmaPoint::new(point.g.atiyah(), point.lambda)];
    let (mut max_q, mut max_lambda, mut max_dt) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..n {
        flow.advance(&mut point).unwrap();
        other = generic.step::<2, 1>(&other).unwrap().0;
        max_q = max_q.max((point.g.q1 - other.g.1).amax());
        max_lambda = max_lambda.max((point.lambda - other.lambda).amax());
        max_dt = max_dt.max((point.g.dt - other.g.2[0]).abs());
        trajectory.push(SigmaPoint::new(point.g.atiyah(), point.lambda));
    }
    // and the stored-step trajectory makes the constrained action sum stationary (both the q- and
    // the t-component of the gradient at every interior node; Marrero et al. 2015, Thm 5.1)
    let gradient = action_gradient::<_, _, _, 2, 1>(
        &gd,
        &AtiyahLagrangian(Midpoint(Pendulum)),
        &FixedStepConstraint(h),
        &trajectory,
    );
    let max_grad = gradient.iter().map(|v| v.amax()).fold(0.0, f64::max);
    println!(
        "fixed step vs ConstrainedFlow on (Q x Q) x R, {n} steps: max|Δq| = {max_q:.1e}, max|Δλ| = {max_lambda:.1e}, \
         max|ΔΔt| = {max_dt:.1e}; constrained action gradient {max_grad:.1e}"
    );
    assert!(max_q <= 1e-12 && max_lambda <= 1e-12 && max_dt <= 1e-14, "{max_q:e} {max_lambda:e} {max_dt:e}");
    assert!(max_grad <= 1e-12, "{max_grad:e}");
}

#[test]
fn adaptive_step_conserves_the_energy_of_an_eccentric_kepler_orbit() {
    let n = 1000;
    let flow = AdaptiveStepFlow::new(Midpoint(Kepler));
    let l = flow.lagrangian();
    let mut g = kepler_start(0.01);
    let e0 = discrete_energy(l, &g);
    let angular = |g: &TimeArrow<2>| {
        let p = momenta(l, g).1;
        g.q1[0] * p[1] - g.q1[1] * p[0]
    };
    let l0 = angular(&g);
    let (mut max_de, mut max_dl, mut max_del) = (0.0f64, 0.0f64, 0.0f64);
    let (mut dt_min, mut dt_max) = (f64::INFINITY, 0.0f64);
    let (mut redirected, mut naive_t) = (0, g.dt);
    let gd = time_groupoid::<2>();
    for _ in 0..n {
        let previous = g;
        let report = flow.advance(&mut g).unwrap();
        redirected += usize::from(report.redirected);
        assert!(g.dt > 0.0);
        naive_t += g.dt;
        (dt_min, dt_max) = (dt_min.min(g.dt), dt_max.max(g.dt));
        max_de = max_de.max((discrete_energy(l, &g) - e0).abs());
        max_dl = max_dl.max((angular(&g) - l0).abs());
        // independent check: the DEL of the time groupoid (q- and t-components) at the shared node
        let pair = [
            SigmaPoint::new(previous.atiyah(), SVector::<f64, 0>::zeros()),
            SigmaPoint::new(g.atiyah(), SVector::zeros()),
        ];
        let residual =
            action_gradient::<_, _, _, 3, 0>(&gd, &AtiyahLagrangian(Midpoint(Kepler)), &NoConstraints, &pair)[0];
        max_del = max_del.max(residual.amax());
    }
    let t = g.target_time();
    println!(
        "adaptive step, Kepler e = {E}, {n} steps to t = {t:.4} ({:.2} periods): \
         max|E_k − E_0| = {max_de:.1e} (E_0 = {e0:.6}); \
         Δt in [{dt_min:.5}, {dt_max:.5}] (ratio {:.2}); max|ΔL_z| = {max_dl:.1e}; DEL residual {max_del:.1e}; \
         redirected steps {redirected}; |t_compensated − t_naive| = {:.1e}",
        t / (2.0 * std::f64::consts::PI),
        dt_max / dt_min,
        (t - naive_t).abs()
    );
    assert!(max_de <= 1e-11, "{max_de:e}");
    assert!(dt_min > 0.0 && dt_max / dt_min > 1.5, "{dt_min} {dt_max}");
    assert!(max_dl <= 1e-11, "{max_dl:e}");
    assert!(max_del <= 1e-11, "{max_del:e}");
    assert_eq!(redirected, 0);
}

/// An arrow in the middle of the Kepler orbit (after 150 adaptive steps).
fn mid_orbit(flow: &AdaptiveStepFlow<Midpoint<Kepler>>) -> TimeArrow<2> {
    let mut g = kepler_start(0.01);
    for _ in 0..150 {
        flow.advance(&mut g).unwrap();
    }
    g
}

#[test]
fn the_inverse_arrow_is_a_root_and_the_step_is_redirected_away_from_it() {
    let flow = AdaptiveStepFlow::new(Midpoint(Kepler));
    let l = flow.lagrangian();
    let g = mid_orbit(&flow);
    // L̂(g^{-1}) = −L̂(g): g_{k+1} = g_k^{-1} solves both DEL components, with Δt_{k+1} = −Δt_k
    let inverse = g.inverse();
    assert!(inverse.dt < 0.0);
    let pair =
        [SigmaPoint::new(g.atiyah(), SVector::<f64, 0>::zeros()), SigmaPoint::new(inverse.atiyah(), SVector::zeros())];
    let residual = action_gradient::<_, _, _, 3, 0>(
        &time_groupoid::<2>(),
        &AtiyahLagrangian(Midpoint(Kepler)),
        &NoConstraints,
        &pair,
    )[0];
    assert!(residual.amax() < 1e-13, "{residual}");
    assert!((l.eval::<f64>(&inverse.q0, &inverse.q1, inverse.dt) + l.eval::<f64>(&g.q0, &g.q1, g.dt)).abs() < 1e-14);
    // Newton started on it stays there (residual 0); the guard redirects the step to the physical root
    let (expected, plain) = flow.step(&g).unwrap();
    assert!(!plain.redirected);
    let (next, report) = flow.step_with_guess(&g, &g.q0, -g.dt).unwrap();
    println!(
        "guess g_k^-1: redirected = {}, {} Newton iterations; |Δq| = {:.1e}, |ΔΔt| = {:.1e} vs the predicted step",
        report.redirected,
        report.iterations,
        (next.q1 - expected.q1).amax(),
        (next.dt - expected.dt).abs()
    );
    assert!(report.redirected);
    assert!(next.dt > 0.0);
    assert!((next.q1 - expected.q1).amax() < 1e-12 && (next.dt - expected.dt).abs() < 1e-12);
    assert!((discrete_energy(l, &next) - discrete_energy(l, &g)).abs() < 1e-13);
}

#[test]
fn refused_steps_are_typed_and_leave_the_state_untouched() {
    let flow = AdaptiveStepFlow::new(Midpoint(Kepler));
    let g = mid_orbit(&flow);
    let (expected, _) = flow.step(&g).unwrap();
    let change = (expected.dt / g.dt - 1.0).abs();
    assert!(change > 1e-6, "{change:e}"); // the physical step differs from Δt_k
    // admissible steps within a factor 1 + 1e-9: the physical root is out of range
    let tight = AdaptiveStepFlow::new(Midpoint(Kepler)).with_max_step_ratio(1.0 + 1e-9).unwrap();
    // Newton from g_k^{-1} lands on it, and cannot be redirected
    match tight.step_with_guess(&g, &g.q0, -g.dt) {
        Err(TimeStepError::TimeReversed { dt, previous, inverse, .. }) => {
            assert!(inverse && dt < 0.0 && previous == g.dt);
        }
        other => panic!("expected TimeReversed, got {other:?}"),
    }
    // from the predictor, Newton finds the physical root, which is refused by the ratio
    let mut state = g;
    match tight.advance(&mut state) {
        Err(TimeStepError::StepRatio { dt, previous, .. }) => {
            assert!((dt - expected.dt).abs() < 1e-12 && previous == g.dt)
        }
        other => panic!("expected StepRatio, got {other:?}"),
    }
    assert_eq!(state, g);
    // non-convergence: one Newton iteration is not enough
    let one = geom_core::newton::NewtonOptions::new(1e-14, 1e-14, 1).unwrap();
    let starved = AdaptiveStepFlow::new(Midpoint(Kepler)).with_newton(one);
    assert!(matches!(starved.advance(&mut state), Err(TimeStepError::NotConverged { .. })));
    assert_eq!(state, g);
    // a time-reversed or NaN arrow as input
    let mut back = g.inverse();
    assert!(matches!(flow.advance(&mut back), Err(TimeStepError::NonPositiveStep { .. })));
    assert_eq!(back, g.inverse());
    let mut nan = g;
    nan.q1[0] = f64::NAN;
    assert!(matches!(flow.advance(&mut nan), Err(TimeStepError::NonFinite { .. })));
    assert!(matches!(flow.with_max_step_ratio(1.0), Err(TimeStepError::Solver(_))));
    // fixed step: h <= 0, an arrow off Δt = h, a NaN multiplier
    assert!(matches!(FixedStepFlow::new(Midpoint(Pendulum), 0.0), Err(TimeStepError::NonPositiveStep { .. })));
    assert!(matches!(FixedStepFlow::new(Midpoint(Pendulum), f64::NAN), Err(TimeStepError::NonPositiveStep { .. })));
    let fixed = FixedStepFlow::new(Midpoint(Pendulum), 0.1).unwrap();
    let mut off =
        SigmaPoint::new(TimeArrow::new(SVector::from([0.3]), SVector::from([0.4]), 0.0, 0.2), SVector::from([0.0]));
    let saved = off.clone();
    assert!(matches!(fixed.advance(&mut off), Err(TimeStepError::OffConstraint { .. })));
    assert_eq!(off, saved);
    let mut nan = fixed.start(SVector::from([0.3]), SVector::from([0.4]), 0.0, f64::NAN);
    assert!(matches!(fixed.advance(&mut nan), Err(TimeStepError::NonFinite { .. })));
    // into the workspace error
    let e: geom_core::GeomError =
        TimeStepError::TimeReversed { dt: -0.1, previous: 0.1, inverse: true, max_ratio: 4.0 }.into();
    assert!(matches!(e, geom_core::GeomError::InvalidStep { h } if h == -0.1));
}

/// `L_d` with the step as an argument, not of midpoint form: the trapezoidal Kepler Lagrangian
/// `Δt(½|Δq/Δt|² + ½(1/|q_0| + 1/|q_1|))`.
struct Trapezoidal;
impl StepLagrangian<2> for Trapezoidal {
    fn eval<S: Scalar>(&self, q0: &SVector<S, 2>, q1: &SVector<S, 2>, dt: S) -> S {
        let v = (q1 - q0) / dt;
        dt * (v.norm_squared() * S::from(0.5) + (q0.norm().recip() + q1.norm().recip()) * S::from(0.5))
    }
}

#[test]
fn a_user_step_lagrangian_fixed_step_is_stormer_verlet() {
    // the trapezoidal L_d at Δt = h: its DEL are Störmer–Verlet in (q, p)
    let h = 0.01;
    let fixed = FixedStepFlow::new(Trapezoidal, h).unwrap();
    let start = kepler_start(h);
    let mut point = fixed.start(start.q0, start.q1, 0.0, 0.0);
    let grad = |q: &Vector2<f64>| q / q.norm().powi(3); // ∇V, V = −1/|q|
    let (mut q, mut p) = (start.q1, momenta(&Trapezoidal, &start).1); // p_1 = D_2L_d(q_0, q_1)
    let mut max_q = 0.0f64;
    for _ in 0..1000 {
        fixed.advance(&mut point).unwrap();
        let half = p - grad(&q) * (0.5 * h);
        q += half * h;
        p = half - grad(&q) * (0.5 * h);
        max_q = max_q.max((point.g.q1 - q).amax());
    }
    println!("trapezoidal L_d, fixed step h = {h}, 1000 steps: max|q_k − q_k(Störmer–Verlet)| = {max_q:.1e}");
    assert!(max_q <= 1e-11, "{max_q:e}");
}

#[test]
fn the_energy_equation_can_lose_its_root_and_the_step_is_then_refused() {
    // The adaptive step needs a root of r(τ) = E(q_{k+1}, Q(τ), τ) − E_k. For the trapezoidal L_d
    // started at the perihelion of the e = 0.6 orbit the steps grow quickly, and within a few
    // dozen steps r has no root in [Δt_k/4, 4Δt_k]: the step is refused with a typed error, the
    // state is untouched, and the energy was conserved up to there.
    let adaptive = AdaptiveStepFlow::new(Trapezoidal);
    let mut g = kepler_start(0.01);
    let e0 = discrete_energy(&Trapezoidal, &g);
    let mut max_de = 0.0f64;
    let mut failure = None;
    for k in 0..300 {
        let before = g;
        match adaptive.advance(&mut g) {
            Ok(_) => max_de = max_de.max((discrete_energy(&Trapezoidal, &g) - e0).abs()),
            Err(e) => {
                assert_eq!(g, before);
                failure = Some((k, e));
                break;
            }
        }
    }
    let Some((k, error)) = failure else { panic!("the trapezoidal adaptive step was expected to break down") };
    // Störmer–Verlet's q-equation is explicit: Q(τ) = q_{k+1} + τ v(τ), v(τ) = p_{k+1} − (τ/2)∇V(q_{k+1})
    let (p, ek) = (momenta(&Trapezoidal, &g).1, discrete_energy(&Trapezoidal, &g));
    let grad = g.q1 / g.q1.norm().powi(3);
    let r = |tau: f64| {
        let v = p - grad * (0.5 * tau);
        let q2 = g.q1 + v * tau;
        0.5 * v.norm_squared() - 0.5 * (g.q1.norm().recip() + q2.norm().recip()) - ek
    };
    let r_max = (0..=1000).map(|i| r(g.dt / 4.0 * 16f64.powf(i as f64 / 1000.0))).fold(f64::NEG_INFINITY, f64::max);
    println!(
        "trapezoidal L_d, adaptive: refused at step {k} (Δt_k = {:.4}, up from 0.01) with {error}; \
         max r(τ) on [Δt_k/4, 4Δt_k] = {r_max:.2e}; max|E_k − E_0| before = {max_de:.1e}",
        g.dt
    );
    assert!(matches!(error, TimeStepError::NoAdmissibleRoot { .. }), "{error:?}");
    assert!(r_max < 0.0, "{r_max:e}");
    assert!(max_de <= 1e-12, "{max_de:e}");
}

/// The fixed-step flow is the one-step integrator of its family `h ↦ L̂(·, ·, h)`: from the node
/// `(q_1, p_1 = D_2L̂(q_0, q_1, h))` the `GroupoidIntegrator` of `Stepped(L̂)` on `Q × Q` takes the
/// same positions, its momenta are `D_2L̂` of the arrows, and the time momentum `λ_k − E_k` of
/// the fixed-step flow stays what it was, so `Driver`, `Composition` and checkpoints take the
/// fixed-step time-dependent flow as this integrator (with `t_k = t_0 + k h`).
#[test]
fn the_fixed_step_flow_is_the_one_step_integrator_of_its_family() -> Result<(), Box<dyn std::error::Error>> {
    use geom_core::step::{OneStep, PhaseState};
    use groupoid::integrator::{GroupoidIntegrator, Stepped};
    let h = 0.1;
    let flow = FixedStepFlow::new(Midpoint(Pendulum), h)?;
    let mut point = flow.start(SVector::from([0.3]), SVector::from([0.45]), 0.0, 0.0);
    let c = flow.time_momentum(&point);
    let (_, p1) = momenta(&Midpoint(Pendulum), &point.g);
    let method = GroupoidIntegrator::new(PairGroupoid::<1>, Stepped(Midpoint(Pendulum))).with_properties(2, true);
    let mut s = PhaseState::new(point.g.q1, p1);
    let mut worst = (0.0_f64, 0.0_f64);
    for _ in 0..500 {
        flow.advance(&mut point)?;
        method.step(&mut s, h)?;
        let (_, p) = momenta(&Midpoint(Pendulum), &point.g);
        worst.0 = worst.0.max((s.q - point.g.q1).amax());
        worst.1 = worst.1.max((s.p - p).amax());
    }
    assert!(worst.0 < 1e-13 && worst.1 < 1e-13, "positions {:e}, momenta {:e}", worst.0, worst.1);
    assert!((flow.time_momentum(&point) - c).abs() < 1e-13);
    assert!((point.g.source_time() - 50.0).abs() < 1e-13);
    Ok(())
}

/// The fixed-step flow is itself a `OneStep` of its arrows `(g_k, λ_k)`: at its own step it is
/// `advance` bit for bit, its words resume a run bit for bit (with the compensated time), it
/// passes the public contract suite, a refused step leaves the state untouched, and started from
/// the exact first arrow of each step size it converges at order 2 in time.
#[test]
fn the_fixed_step_flow_is_a_one_step_integrator_of_its_arrows() -> Result<(), Box<dyn std::error::Error>> {
    use geom_core::step::testing::{Contract, check_integrator};
    use geom_core::step::{FlatState, OneStep};
    fn words(p: &SigmaPoint<TimeArrow<2>, 1>) -> Vec<u64> {
        let mut w = Vec::new();
        p.write_words(&mut w);
        w.iter().map(|v| v.to_bits()).collect()
    }
    let h = 0.05;
    let flow = FixedStepFlow::new(Midpoint(Kepler), h)?.with_order(2);
    let start = SigmaPoint::new(kepler_start(h), SVector::from([0.0]));
    let (mut a, mut b) = (start.clone(), start.clone());
    for _ in 0..200 {
        flow.advance(&mut a)?;
    }
    flow.step_n(&mut b, h, 200)?;
    assert_eq!(words(&a), words(&b));
    assert!((b.g.source_time() - 200.0 * h).abs() <= 1e-15 * 10.0);
    // a checkpoint after 100 steps
    let mut c = start.clone();
    flow.step_n(&mut c, h, 100)?;
    let mut w = Vec::new();
    c.write_words(&mut w);
    assert_eq!(w.len(), <SigmaPoint<TimeArrow<2>, 1> as FlatState>::WORDS);
    let mut d = SigmaPoint::<TimeArrow<2>, 1>::read_words(&w).ok_or("words")?;
    flow.step_n(&mut d, h, 100)?;
    assert_eq!(words(&d), words(&b));
    assert!(SigmaPoint::<TimeArrow<2>, 1>::read_words(&w[1..]).is_none());
    // the contract suite (the order is measured below: the state carries its own first step)
    let report = check_integrator(&flow, &start, &Contract { h, measure_order: false, ..Contract::default() })?;
    assert!(report.measured_order.is_nan());
    // refused steps leave the state's bits as they were
    let before = words(&b);
    for bad in [-h, 0.0, f64::NAN] {
        assert!(OneStep::step(&flow, &mut b, bad).is_err());
        assert_eq!(words(&b), before);
    }
    // order 2 in time: q_N at t = 2 against the exact orbit, each run from its exact first arrow
    let err = |h: f64| -> Result<f64, Box<dyn std::error::Error>> {
        let flow = FixedStepFlow::new(Midpoint(Kepler), h)?.with_order(2);
        let n = (2.0 / h).round() as usize;
        let mut p = SigmaPoint::new(kepler_start(h), SVector::from([0.0]));
        flow.step_n(&mut p, h, n)?;
        Ok((p.g.q0 - kepler_exact(p.g.source_time())).amax())
    };
    let (e1, e2, e3) = (err(0.02)?, err(0.01)?, err(0.005)?);
    let (o1, o2) = ((e1 / e2).log2(), (e2 / e3).log2());
    println!("fixed-step flow as OneStep: errors {e1:.2e} {e2:.2e} {e3:.2e}, orders {o1:.3} {o2:.3}");
    assert!((o1 - 2.0).abs() < 0.3 && (o2 - 2.0).abs() < 0.3, "orders {o1} {o2}");
    Ok(())
}
