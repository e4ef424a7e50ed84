//! The step driver: sampling, records, invalid inputs, failures, ensembles (parallel = serial,
//! bit for bit, on 1 and 2 threads), observers, and compensated summation against a
//! double-double reference.

use discretization::{CotangentLiftIntegrator, OneStep, PhaseState, ThetaMap};
use geom_core::action::RotationAction;
use geom_core::error_free::two_sum;
use geom_core::function::{
    AutoDiff, Derivatives, PhaseSpaceDerivatives, PhaseSpaceFunction, ScalarDerivatives, ScalarFunction, Separable,
};
use geom_core::{GeomError, Scalar};
use integrators::classical::{ExplicitRk, Gauss2, StormerVerlet, SymplecticEulerA, VectorField};
use integrators::driver::{
    Casimir, ConstraintResidual, Driver, DriverError, Energy, FnObserver, MomentumMap, Observer, Trajectory,
    with_threads,
};
use integrators::tableau;
use nalgebra::{Matrix1, SMatrix, SVector, Vector1, Vector2, Vector3};

// ------------------------------------------------------------------------------------------------
// models

/// Kepler `H = |p|²/2 − 1/|q|` as a generic model.
#[derive(Debug, Clone, Copy)]
struct Kepler;
impl PhaseSpaceFunction<2> for Kepler {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip()
    }
}

/// Kepler as a hand-written separable Hamiltonian `T(p) + V(q)` (explicit methods):
/// `T = |p|²/2`, `V = −1/|q|`.
#[derive(Debug, Clone, Copy)]
struct KeplerKinetic;
impl ScalarDerivatives<2> for KeplerKinetic {
    fn value(&self, p: &Vector2<f64>) -> f64 {
        0.5 * p.norm_squared()
    }
    fn gradient(&self, p: &Vector2<f64>) -> Vector2<f64> {
        *p
    }
    fn hessian(&self, _p: &Vector2<f64>) -> SMatrix<f64, 2, 2> {
        SMatrix::identity()
    }
}
#[derive(Debug, Clone, Copy)]
struct KeplerPotential;
impl ScalarDerivatives<2> for KeplerPotential {
    fn value(&self, q: &Vector2<f64>) -> f64 {
        -1.0 / q.norm()
    }
    fn gradient(&self, q: &Vector2<f64>) -> Vector2<f64> {
        let r2 = q.norm_squared();
        q / (r2 * r2.sqrt())
    }
    fn hessian(&self, q: &Vector2<f64>) -> SMatrix<f64, 2, 2> {
        let r2 = q.norm_squared();
        let ir3 = 1.0 / (r2 * r2.sqrt());
        SMatrix::identity() * ir3 - q * q.transpose() * (3.0 * ir3 / r2)
    }
}
type KeplerSplit = Separable<Derivatives<KeplerKinetic>, Derivatives<KeplerPotential>>;
fn kepler_split() -> KeplerSplit {
    Separable::from_derivatives(KeplerKinetic, KeplerPotential)
}

/// `x²/2` in one dimension, hand-written (the compensated-summation test needs the exact
/// arithmetic of the step to be known).
#[derive(Debug, Clone, Copy)]
struct HalfSquare;
impl ScalarDerivatives<1> for HalfSquare {
    fn value(&self, x: &Vector1<f64>) -> f64 {
        0.5 * x[0] * x[0]
    }
    fn gradient(&self, x: &Vector1<f64>) -> Vector1<f64> {
        *x
    }
    fn hessian(&self, _x: &Vector1<f64>) -> Matrix1<f64> {
        Matrix1::identity()
    }
}
/// The harmonic oscillator `T = p²/2`, `V = q²/2`.
fn oscillator() -> Separable<Derivatives<HalfSquare>, Derivatives<HalfSquare>> {
    Separable::from_derivatives(HalfSquare, HalfSquare)
}

#[derive(Debug, Clone, Copy)]
struct Anharmonic3;
impl PhaseSpaceFunction<3> for Anharmonic3 {
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
        let r2 = q.norm_squared();
        p.norm_squared() * S::from(0.5) + r2 * S::from(0.5) + r2 * r2 * S::from(0.25)
    }
}

/// The free rigid body `Π̇ = Π × I⁻¹Π` on R³, an ODE with the Casimir `|Π|²`.
#[derive(Debug, Clone, Copy)]
struct RigidBody;
impl VectorField<Vector3<f64>> for RigidBody {
    fn eval(&self, m: &Vector3<f64>) -> Result<Vector3<f64>, GeomError> {
        let omega = Vector3::new(m[0] / 1.0, m[1] / 2.0, m[2] / 3.0);
        Ok(m.cross(&omega))
    }
}
#[derive(Debug, Clone, Copy)]
struct NormSquared;
impl ScalarFunction<3> for NormSquared {
    fn eval<S: Scalar>(&self, x: &SVector<S, 3>) -> S {
        x.norm_squared()
    }
}
#[derive(Debug, Clone, Copy)]
struct UnitSphere;
impl ScalarFunction<2> for UnitSphere {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>) -> S {
        q.norm_squared() - S::from(1.0)
    }
}

fn kepler_start(e: f64) -> PhaseState<2> {
    PhaseState::new(Vector2::new(1.0 - e, 0.0), Vector2::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()))
}

/// A state at the Kepler singularity `q = 0` (the force is `0/0`).
fn collision() -> PhaseState<2> {
    PhaseState::new(Vector2::zeros(), Vector2::new(1.0, 0.0))
}

fn angular_momentum(s: &PhaseState<2>) -> f64 {
    s.q[0] * s.p[1] - s.q[1] * s.p[0]
}

// ------------------------------------------------------------------------------------------------
// sampling and records

#[test]
fn sampling_counts_and_record_contents() {
    let sv = StormerVerlet::new(kepler_split());
    assert!(sv.name().contains("explicit"), "{}", sv.name());
    let h = 0.01;
    let q0 = FnObserver::new("q0", |s: &PhaseState<2>| s.q[0]);
    let l = FnObserver::new("L", angular_momentum);
    for (n, every) in [(10usize, 3usize), (9, 3), (1, 1), (1, 5), (100, 1), (100, 100), (7, 10), (1000, 7)] {
        let driver = Driver::new(h).unwrap().sample_every(every).unwrap().store_states(true);
        let run = driver.run(&sv, kepler_start(0.3), n, &[&q0, &l]).unwrap();
        // the sample steps, computed independently of the driver
        let expected: Vec<usize> = (0..=n).filter(|k| k % every == 0 || *k == n).collect();
        assert_eq!(run.record.steps(), &expected[..], "n = {n}, every = {every}");
        assert_eq!(run.record.len(), driver.samples(n));
        assert_eq!(run.states.len(), expected.len());
        assert_eq!((run.steps, run.time), (n, n as f64 * h));
        let times: Vec<f64> = expected.iter().map(|&k| k as f64 * h).collect();
        assert_eq!(run.record.times(), &times[..]);
        assert_eq!(run.record.names(), &["q0".to_string(), "L".to_string()]);
        // values: the same method stepped by hand, bit for bit
        let mut s = kepler_start(0.3);
        let mut manual = vec![s];
        for k in 1..=n {
            sv.step(&mut s, h).unwrap();
            if k % every == 0 || k == n {
                manual.push(s);
            }
        }
        assert_eq!(run.states, manual);
        assert_eq!(run.final_state, s);
        for (i, st) in manual.iter().enumerate() {
            assert_eq!(run.record.series(0)[i], st.q[0]);
            assert_eq!(run.record.series_named("L").unwrap()[i], angular_momentum(st));
        }
    }
    // without store_states nothing is kept
    let run = Driver::new(h).unwrap().run(&sv, kepler_start(0.3), 5, &[&q0]).unwrap();
    assert!(run.states.is_empty());
    assert_eq!(run.record.len(), 6);
}

#[test]
fn record_deviation_helpers() {
    // explicit Störmer–Verlet on Kepler: L is conserved to round-off (it is a PRK method and L is
    // of the form qᵀCp), the energy oscillates at O(h²)
    let sv = StormerVerlet::new(kepler_split());
    let energy = Energy(kepler_split());
    let l = FnObserver::new("L", angular_momentum);
    let driver = Driver::new(0.01).unwrap().sample_every(10).unwrap();
    let run = driver.run(&sv, kepler_start(0.5), 10_000, &[&energy, &l]).unwrap();
    let de = run.max_deviation("energy").unwrap();
    let dl = run.max_deviation("L").unwrap();
    println!("SV Kepler h = 0.01, 1e4 steps: max |ΔE| = {de:.2e}, max |ΔL| = {dl:.2e}");
    assert!(de > 1e-6 && de < 1e-2, "{de:e}");
    assert!(dl < 1e-12, "{dl:e}");
    // the helpers against a direct computation
    let e = run.record.series(0);
    let direct = e.iter().map(|v| (v - e[0]).abs()).fold(0.0, f64::max);
    assert_eq!(de, direct);
    assert_eq!(run.record.max_relative_deviation(0), direct / e[0].abs());
    assert_eq!(run.record.index_of("L"), Some(1));
    assert_eq!(run.record.index_of("missing"), None);
    assert_eq!(run.max_deviation("missing"), None);
}

#[test]
fn run_to_a_final_time() {
    let sv = StormerVerlet::new(kepler_split());
    let driver = Driver::new(0.1).unwrap().sample_every(4).unwrap();
    // an integer number of steps: every step is exactly h
    let run = driver.run_to(&sv, kepler_start(0.2), 1.0, &[]).unwrap();
    assert_eq!(run.steps, 10);
    assert_eq!(run.record.steps(), &[0, 4, 8, 10]);
    let mut s = kepler_start(0.2);
    for _ in 0..10 {
        sv.step(&mut s, 0.1).unwrap();
    }
    assert_eq!(run.final_state, s);
    // 1.05 = 10 steps of 0.1 and a last one of 1.05 - 1.0
    let run = driver.run_to(&sv, kepler_start(0.2), 1.05, &[]).unwrap();
    assert_eq!((run.steps, run.time), (11, 1.05));
    assert_eq!(*run.record.times().last().unwrap(), 1.05);
    let mut s = kepler_start(0.2);
    for _ in 0..10 {
        sv.step(&mut s, 0.1).unwrap();
    }
    sv.step(&mut s, 1.05 - 10.0 * 0.1).unwrap();
    assert_eq!(run.final_state, s);
    // shorter than one step
    let run = driver.run_to(&sv, kepler_start(0.2), 0.03, &[]).unwrap();
    assert_eq!((run.steps, run.time), (1, 0.03));
    // compensated variant lands on the same time
    let run = driver.run_compensated_to(&sv, kepler_start(0.2), 1.05, &[]).unwrap();
    assert_eq!((run.steps, run.time), (11, 1.05));
    assert!((run.final_state.q - s.q).amax() < 1e-14);
}

// ------------------------------------------------------------------------------------------------
// invalid inputs and failures

#[test]
fn invalid_inputs_are_typed_errors() {
    for h in [0.0, -0.1, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert!(matches!(Driver::new(h), Err(GeomError::InvalidStep { .. })), "h = {h}");
    }
    let driver = Driver::new(0.1).unwrap();
    assert!(matches!(driver.sample_every(0), Err(GeomError::InvalidParameter { what: "every", .. })));
    let sv = StormerVerlet::new(kepler_split());
    let s0 = kepler_start(0.1);
    assert!(matches!(
        driver.run(&sv, s0, 0, &[]),
        Err(DriverError::Geom(GeomError::InvalidParameter { what: "steps", .. }))
    ));
    assert!(matches!(
        driver.run_compensated(&sv, s0, 0, &[]),
        Err(DriverError::Geom(GeomError::InvalidParameter { what: "steps", .. }))
    ));
    for t in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(
            matches!(driver.run_to(&sv, s0, t, &[]), Err(DriverError::Geom(GeomError::InvalidParameter { .. }))),
            "t = {t}"
        );
    }
    assert!(matches!(driver.run_to(&sv, s0, 1e300, &[]), Err(DriverError::Geom(_))));
    assert!(matches!(with_threads(0, || ()), Err(GeomError::InvalidParameter { what: "threads", .. })));
}

/// `y' = 1` by explicit Euler, failing once `y >= 4`.
struct FailsAtFour;
impl OneStep<Vector1<f64>> for FailsAtFour {
    fn name(&self) -> String {
        "fails at 4".into()
    }
    fn order(&self) -> u32 {
        1
    }
    fn step(&self, y: &mut Vector1<f64>, h: f64) -> Result<(), GeomError> {
        if y[0] >= 4.0 {
            return Err(GeomError::NotConverged { iterations: 3, residual: 1.0, step: 1.0 });
        }
        y[0] += h;
        Ok(())
    }
}

#[test]
fn a_failed_step_reports_its_index_and_time() {
    let driver = Driver::new(1.0).unwrap();
    match driver.run(&FailsAtFour, Vector1::new(0.0), 10, &[]) {
        Err(DriverError::StepFailed { step, time, source }) => {
            assert_eq!((step, time), (5, 4.0));
            assert!(matches!(source, GeomError::NotConverged { .. }));
        }
        other => panic!("expected StepFailed, got {other:?}"),
    }
    assert!(driver.run(&FailsAtFour, Vector1::new(0.0), 4, &[]).is_ok());
    // the Kepler singularity: a non-finite force stops the run at the step that met it
    let sv = StormerVerlet::new(kepler_split());
    let err = Driver::new(0.25).unwrap().run(&sv, collision(), 100, &[]).unwrap_err();
    assert!(matches!(err, DriverError::StepFailed { step: 1, source: GeomError::NonFinite { .. }, .. }), "{err}");
}

// ------------------------------------------------------------------------------------------------
// ensembles

fn initials() -> Vec<PhaseState<2>> {
    (0..24).map(|i| kepler_start(0.05 + 0.03 * i as f64)).collect()
}

#[test]
fn ensembles_equal_serial_runs_on_one_and_two_threads() {
    let gauss = Gauss2::new(AutoDiff(Kepler)).unwrap();
    let energy = Energy(AutoDiff(Kepler));
    let l = FnObserver::new("L", angular_momentum);
    let observers: [&dyn Observer<PhaseState<2>>; 2] = [&energy, &l];
    let driver = Driver::new(0.05).unwrap().sample_every(25).unwrap();
    let starts = initials();
    let serial: Vec<Trajectory<PhaseState<2>>> =
        starts.iter().map(|s| driver.run(&gauss, *s, 300, &observers).unwrap()).collect();
    for threads in [1, 2] {
        let (parallel, used) = with_threads(threads, || {
            (driver.run_ensemble(&gauss, &starts, 300, &observers), rayon::current_num_threads())
        })
        .unwrap();
        assert_eq!(used, threads);
        assert_eq!(parallel.len(), starts.len());
        for (p, s) in parallel.into_iter().zip(&serial) {
            assert_eq!(&p.unwrap(), s, "{threads} threads");
        }
    }
    // through a trait object, compensated, and in the default pool
    let method: &dyn OneStep<PhaseState<2>> = &gauss;
    let parallel = driver.run_ensemble(method, &starts, 300, &observers);
    assert!(parallel.iter().zip(&serial).all(|(p, s)| p.as_ref().unwrap() == s));
    let sv = StormerVerlet::new(kepler_split());
    let serial: Vec<_> = starts.iter().map(|s| driver.run_compensated(&sv, *s, 300, &observers).unwrap()).collect();
    let parallel = with_threads(2, || driver.run_ensemble_compensated(&sv, &starts, 300, &observers)).unwrap();
    assert!(parallel.iter().zip(&serial).all(|(p, s)| p.as_ref().unwrap() == s));
    // a failing member fails alone
    let mut mixed = starts.clone();
    mixed[3] = collision();
    let results = Driver::new(0.25).unwrap().run_ensemble(&sv, &mixed, 100, &[]);
    assert!(results[3].is_err());
    assert!(results.iter().enumerate().all(|(i, r)| i == 3 || r.is_ok()));
}

// ------------------------------------------------------------------------------------------------
// observers

#[test]
fn ready_made_observers() {
    // momentum map of the rotation action: x × p, conserved by Gauss for a central force
    let gauss = Gauss2::new(AutoDiff(Anharmonic3)).unwrap();
    let jz = MomentumMap::new("J_z", RotationAction, Vector3::new(0.0, 0.0, 1.0));
    let jx = MomentumMap::new("J_x", RotationAction, Vector3::new(1.0, 0.0, 0.0));
    let energy = Energy(AutoDiff(Anharmonic3));
    let s0 = PhaseState::new(Vector3::new(1.0, 0.2, -0.3), Vector3::new(0.1, 0.8, 0.4));
    let j0 = s0.q.cross(&s0.p);
    assert_eq!(jz.observe(&s0), j0[2]);
    assert_eq!(jx.observe(&s0), j0[0]);
    assert_eq!(Observer::<PhaseState<3>>::name(&jz), "J_z");
    let run =
        Driver::new(0.05).unwrap().sample_every(100).unwrap().run(&gauss, s0, 2000, &[&jz, &jx, &energy]).unwrap();
    assert!(run.max_deviation("J_z").unwrap() < 1e-13);
    assert!(run.max_deviation("J_x").unwrap() < 1e-13);
    assert!(run.max_deviation("energy").unwrap() < 1e-4);
    assert_eq!(run.record.series(2)[0], AutoDiff(Anharmonic3).value(&s0.q, &s0.p));

    // constraint residual |φ(q)|
    let c = ConstraintResidual(AutoDiff(UnitSphere));
    let s = PhaseState::new(Vector2::new(0.6, 0.9), Vector2::zeros());
    assert!((c.observe(&s) - (0.36 + 0.81 - 1.0f64).abs()).abs() < 1e-15);

    // a Casimir of an ODE state, through the same driver with a non-phase-space state
    let rk4 = ExplicitRk::<_, 4>::new(&tableau::rk4(), RigidBody).unwrap();
    let casimir = Casimir(AutoDiff(NormSquared));
    let m0 = Vector3::new(1.0, 0.5, -0.2);
    assert_eq!(casimir.observe(&m0), m0.norm_squared());
    // (a check that the driver runs ODE states and records the Casimir, not a theorem: RK4 does
    // not conserve |Π|², its drift is O(h⁴) per unit time, ~1e-12 measured; bound 1e-9)
    let run = Driver::new(0.01).unwrap().sample_every(100).unwrap().run(&rk4, m0, 1000, &[&casimir]).unwrap();
    let d = run.record.max_relative_deviation(0);
    println!("RK4 rigid body, |Π|² relative drift over 1e3 steps: {d:.1e}");
    assert!(d < 1e-9, "{d:e}");
}

// ------------------------------------------------------------------------------------------------
// compensated summation

/// A double-double number `hi + lo` (≈ 106-bit significand): exact error-free transformations
/// (Knuth's two-sum, fused multiply-add products).
#[derive(Debug, Clone, Copy)]
struct Dd {
    hi: f64,
    lo: f64,
}

fn quick_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

impl Dd {
    fn new(x: f64) -> Self {
        Self { hi: x, lo: 0.0 }
    }
    fn add(self, y: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, y.hi);
        let (t, f) = two_sum(self.lo, y.lo);
        let (s, e) = quick_two_sum(s, e + t);
        let (hi, lo) = quick_two_sum(s, e + f);
        Dd { hi, lo }
    }
    /// `self · c` for an f64 `c`.
    fn scale(self, c: f64) -> Dd {
        let p = self.hi * c;
        let e = self.hi.mul_add(c, -p) + self.lo * c;
        let (hi, lo) = quick_two_sum(p, e);
        Dd { hi, lo }
    }
    /// The f64 nearest (to within one rounding) to `self − x`, for error measurement.
    fn minus(self, x: f64) -> f64 {
        (self.hi - x) + self.lo
    }
}

/// The exact real-arithmetic Störmer–Verlet map of the oscillator with the f64 coefficients `h`
/// and `−h/2` (both exact), in double-double: `p½ = p − (h/2) q`, `q₁ = q + h p½`,
/// `p₁ = p½ − (h/2) q₁`. Over 10^6 steps its own round-off is `~10^6 · 10^-32`, negligible.
fn verlet_reference(q: f64, p: f64, h: f64, n: usize, checkpoints: &[usize]) -> Vec<(Dd, Dd)> {
    let (mut q, mut p) = (Dd::new(q), Dd::new(p));
    let mut out = Vec::new();
    for k in 1..=n {
        let half = p.add(q.scale(-0.5 * h));
        q = q.add(half.scale(h));
        p = half.add(q.scale(-0.5 * h));
        if checkpoints.contains(&k) {
            out.push((q, p));
        }
    }
    out
}

/// **Compensated summation isolates the round-off of the increments.**
///
/// Reference: the same explicit Störmer–Verlet map, with the same f64 coefficients, evaluated in
/// double-double arithmetic ([`verlet_reference`]); the difference from an f64 run is then purely
/// the f64 round-off (the method's truncation error is identical in both and cancels). The step
/// `h = 10⁻³` makes every update `~10⁻³ |y|`, so the naive sum loses `~ε|y|/2` per step
/// (a random walk, `~ε√n ≈ 10⁻¹³` after `n = 10^6` steps), while the compensated sum keeps
/// the addition error and is left with the increments' own round-off `~ε h |y| √n`.
///
/// Assertions: the naive error is visible (`> 1e-14`, i.e. the test measures something), and the
/// compensated error is at least 10 times smaller at every checkpoint (expected ratio `~1/h`;
/// measured values are printed).
#[test]
fn compensated_summation_beats_naive_summation() {
    let h = 1e-3;
    let n = 1_000_000;
    let checkpoints = [10_000, 100_000, 1_000_000];
    let (q0, p0) = (0.8, 0.6);
    let reference = verlet_reference(q0, p0, h, n, &checkpoints);
    let sv = StormerVerlet::new(oscillator());
    let s0 = PhaseState::new(Vector1::new(q0), Vector1::new(p0));
    let mut rows = Vec::new();
    for (i, &steps) in checkpoints.iter().enumerate() {
        let driver = Driver::new(h).unwrap().sample_every(steps).unwrap();
        let naive = driver.run(&sv, s0, steps, &[]).unwrap().final_state;
        let comp = driver.run_compensated(&sv, s0, steps, &[]).unwrap().final_state;
        let (rq, rp) = reference[i];
        let err = |s: &PhaseState<1>| rq.minus(s.q[0]).abs().max(rp.minus(s.p[0]).abs());
        rows.push((steps, err(&naive), err(&comp)));
    }
    for (steps, naive, comp) in &rows {
        println!("SV oscillator h = 1e-3, {steps:>8} steps: round-off naive {naive:.2e}, compensated {comp:.2e}");
    }
    let (_, naive, comp) = rows[2];
    assert!(naive > 1e-14, "the naive round-off must be visible: {naive:e}");
    for (steps, naive, comp) in &rows {
        assert!(*comp * 10.0 < *naive, "{steps} steps: compensated {comp:e} vs naive {naive:e}");
    }
    assert!(comp < 1e-14, "{comp:e}");
}

#[test]
fn compensated_mode_for_implicit_methods_and_cotangent_lifts() {
    // The compensated run of an implicit method is the same method up to round-off: over 2000
    // steps of a near-circular orbit (mild amplification) the two runs agree to 1e-11 (measured
    // ~1e-13), and the compensated run keeps the angular momentum to 1e-13 (measured ~1e-16;
    // the naive run ~1e-15, both far below).
    let l = FnObserver::new("L", angular_momentum);
    let driver = Driver::new(0.01).unwrap().sample_every(100).unwrap();
    let s0 = kepler_start(0.1);
    let methods: [(&str, &dyn OneStepIncrement); 3] = [
        ("Gauss 2", &Gauss2::new(AutoDiff(Kepler)).unwrap()),
        ("midpoint (cotangent lift)", &CotangentLiftIntegrator::new(ThetaMap::midpoint(), AutoDiff(Kepler))),
        ("symplectic Euler A", &SymplecticEulerA::new(AutoDiff(Kepler))),
    ];
    for (name, m) in methods {
        let naive = driver.run(&Step(m), s0, 2000, &[&l]).unwrap();
        let comp = driver.run_compensated(&Inc(m), s0, 2000, &[&l]).unwrap();
        let d =
            (naive.final_state.q - comp.final_state.q).amax().max((naive.final_state.p - comp.final_state.p).amax());
        let (ln, lc) = (naive.max_deviation("L").unwrap(), comp.max_deviation("L").unwrap());
        println!("{name}: |naive - compensated| = {d:.1e}; max |ΔL| naive {ln:.1e}, compensated {lc:.1e}");
        assert!(d < 1e-11, "{name}: {d:e}");
        assert!(lc < 1e-13, "{name}: {lc:e}");
    }
}

/// A method usable both ways (test helper).
trait OneStepIncrement: OneStep<PhaseState<2>> + integrators::driver::Increment<2> {}
impl<T: OneStep<PhaseState<2>> + integrators::driver::Increment<2>> OneStepIncrement for T {}
struct Step<'a>(&'a dyn OneStepIncrement);
impl OneStep<PhaseState<2>> for Step<'_> {
    fn name(&self) -> String {
        self.0.name()
    }
    fn order(&self) -> u32 {
        self.0.order()
    }
    fn step(&self, s: &mut PhaseState<2>, h: f64) -> Result<(), GeomError> {
        self.0.step(s, h)
    }
}
struct Inc<'a>(&'a dyn OneStepIncrement);
impl integrators::driver::Increment<2> for Inc<'_> {
    fn increment(&self, s: &PhaseState<2>, h: f64) -> Result<(Vector2<f64>, Vector2<f64>), GeomError> {
        self.0.increment(s, h)
    }
}
