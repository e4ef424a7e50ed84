//! DOP853 (`integrators::dop853`): accuracy against Kepler's exact solution, the order 8 of the
//! fixed step (with a perturbed-coefficient negative control), tolerance proportionality, dense
//! output, typed errors for bad input, and no heap allocation per step.
//!
//! Kepler's problem `q' = p`, `p' = −q/|q|³` with eccentricity `e`, semi-major axis 1 (period
//! 2π), from perihelion; the exact solution comes from Kepler's equation `E − e sin E = t`,
//! solved by Newton's method here.

use discretization::{OneStep, PhaseState};
use geom_core::GeomError;
use integrators::classical::VectorField;
use integrators::dop853::{Coefficients, Dop853, Dop853Error, Dop853Flow, Options};
use nalgebra::{Vector1, Vector2};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::f64::consts::TAU;

// --- allocation counter (per thread: the tests of this file run in parallel) -------------------

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations<F: FnMut()>(mut f: F) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

// --- Kepler --------------------------------------------------------------------------------------

/// `q' = p`, `p' = −q/|q|³`.
#[derive(Clone, Copy)]
struct Kepler;

impl VectorField<PhaseState<2>> for Kepler {
    fn eval(&self, y: &PhaseState<2>) -> Result<PhaseState<2>, GeomError> {
        let r2 = y.q.norm_squared();
        Ok(PhaseState::new(y.p, -y.q / (r2 * r2.sqrt())))
    }
}

fn perihelion(e: f64) -> PhaseState<2> {
    PhaseState::new(Vector2::new(1.0 - e, 0.0), Vector2::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()))
}

/// The exact state at `t`: `E − e sin E = t` by Newton, then
/// `q = (cos E − e, √(1−e²) sin E)`, `p = (−sin E, √(1−e²) cos E) / (1 − e cos E)`.
fn exact(e: f64, t: f64) -> PhaseState<2> {
    let m = t.rem_euclid(TAU);
    let mut x = if e > 0.8 { std::f64::consts::PI } else { m + e * m.sin() };
    for _ in 0..60 {
        let d = (x - e * x.sin() - m) / (1.0 - e * x.cos());
        x -= d;
        if d.abs() <= 1e-17 * (1.0 + x.abs()) {
            break;
        }
    }
    let (s, c) = x.sin_cos();
    let b = (1.0 - e * e).sqrt();
    let rate = 1.0 / (1.0 - e * c);
    PhaseState::new(Vector2::new(c - e, b * s), Vector2::new(-s * rate, b * c * rate))
}

/// `[1.23e-4, ...]`.
fn sci(v: &[f64]) -> String {
    format!("[{}]", v.iter().map(|x| format!("{x:.3e}")).collect::<Vec<_>>().join(", "))
}

fn dist(a: &PhaseState<2>, b: &PhaseState<2>) -> f64 {
    ((a.q - b.q).norm_squared() + (a.p - b.p).norm_squared()).sqrt()
}

// --- (a) accuracy --------------------------------------------------------------------------------

/// Three periods of an e = 0.6 orbit at rtol = atol = 1e-15: the final state and the dense output
/// at 30 interior times agree with Kepler's equation to 1e-12 (measured: 2.2e-13), and the
/// invariants `H = −1/2`, `L = √(1 − e²)` hold to the same level. (At 1e-14 the error is 2.3e-12:
/// the global error of Kepler over three periods is about 200 tol.)
#[test]
fn kepler_tight_tolerance_matches_keplers_equation() {
    let e = 0.6;
    let t_end = 3.0 * TAU;
    let dop = Dop853::new(Kepler);
    let tol = 1e-15;
    let sol = dop.integrate(0.0, perihelion(e), t_end, tol, tol).unwrap();
    let err = dist(&sol.y, &exact(e, t_end));
    println!("kepler e = 0.6, 3 periods, tol 1e-15: error {err:.2e}, {:?}", sol.stats);
    assert!(err <= 1e-12, "final error {err:e}");
    assert_eq!(sol.t, t_end);
    let h = 0.5 * sol.y.p.norm_squared() - 1.0 / sol.y.q.norm();
    let l = sol.y.q[0] * sol.y.p[1] - sol.y.q[1] * sol.y.p[0];
    assert!((h + 0.5).abs() < 1e-12 && (l - (1.0 - e * e).sqrt()).abs() < 1e-12, "H = {h}, L = {l}");
    // the controller does real work: hundreds of steps, few rejections
    assert!(sol.stats.accepted > 100 && sol.stats.rejected < sol.stats.accepted / 5, "{:?}", sol.stats);
    assert_eq!(sol.stats.evaluations, 2 + 12 * sol.stats.accepted + 11 * sol.stats.rejected);

    let times: Vec<f64> = (1..=30).map(|i| t_end * i as f64 / 31.0).collect();
    let dense = dop.integrate_dense(0.0, perihelion(e), t_end, &times, tol, tol).unwrap();
    let worst = times.iter().zip(&dense.states).map(|(&t, s)| dist(s, &exact(e, t))).fold(0.0, f64::max);
    println!("kepler dense output at 30 times: worst error {worst:.2e}");
    assert!(worst <= 1e-12, "dense error {worst:e}");
    assert_eq!(dense.end.y, sol.y, "dense output does not change the steps");

    // a looser tolerance is measurably worse: the 1e-12 bound above is not met by accident
    let loose = dop.integrate(0.0, perihelion(e), t_end, 1e-8, 1e-8).unwrap();
    assert!(dist(&loose.y, &exact(e, t_end)) > 1e-10);
}

// --- (b) order -----------------------------------------------------------------------------------

/// Global errors at `T = 2` (e = 0.3, from perihelion: about a third of the orbit, through its
/// fast part) of the fixed step with `n` steps.
fn fixed_step_errors(method: &dyn OneStep<PhaseState<2>>, counts: &[usize]) -> Vec<f64> {
    let e = 0.3;
    counts
        .iter()
        .map(|&n| {
            let h = 2.0 / n as f64;
            let mut y = perihelion(e);
            for _ in 0..n {
                method.step(&mut y, h).unwrap();
            }
            dist(&y, &exact(e, 2.0))
        })
        .collect()
}

fn slopes(counts: &[usize], errors: &[f64]) -> Vec<f64> {
    counts
        .windows(2)
        .zip(errors.windows(2))
        .map(|(n, e)| (e[0] / e[1]).ln() / (n[1] as f64 / n[0] as f64).ln())
        .collect()
}

/// The fixed step has order 8: log-log slopes within ±0.3 of 8 (measured 8.00, 7.79, 7.78) for
/// errors from 6e-10 down to 3e-13, above the round-off level (about 1e-14 here, which 48 steps
/// reach). Negative control: moving δ = 1e-3 between `a_{9,6}` and `a_{9,1}` (the row sum,
/// hence `c_9`, unchanged) breaks `Σ b_i a_ij c_j = 1/6`, and the slope falls to 2.
#[test]
fn fixed_step_order_is_eight() {
    let counts = [12, 16, 24, 32];
    let dop = Dop853::new(Kepler);
    let errors = fixed_step_errors(&dop, &counts);
    let s = slopes(&counts, &errors);
    println!("DOP853 fixed step, Kepler e = 0.3, T = 2: n {counts:?}\n  errors {}\n  slopes {s:.3?}", sci(&errors));
    assert!(errors[errors.len() - 1] > 1e-13, "the last error is round-off, not truncation");
    assert!(errors[0] < 1e-9, "the first error is not in the asymptotic range");
    for (i, slope) in s.iter().enumerate() {
        assert!((slope - 8.0).abs() <= 0.3, "slope {i}: {slope}");
    }
    assert_eq!(OneStep::<PhaseState<2>>::order(&dop), 8);

    let mut perturbed = Coefficients::DOP853;
    perturbed.a[8][5] += 1e-3;
    perturbed.a[8][0] -= 1e-3;
    let bad = Dop853::with_coefficients(Kepler, perturbed).unwrap();
    let bad_errors = fixed_step_errors(&bad, &counts);
    let bad_s = slopes(&counts, &bad_errors);
    println!("perturbed a_96: errors {}\n  slopes {bad_s:.3?}", sci(&bad_errors));
    let last = bad_s[bad_s.len() - 1];
    assert!(last < 3.0, "the perturbed method keeps a high order: slope {last}");
    assert!(bad_errors[bad_errors.len() - 1] > 100.0 * errors[errors.len() - 1]);
}

// --- (c) tolerance proportionality ---------------------------------------------------------------

/// Five periods of e = 0.6 at rtol = atol = tol for tol = 1e-6 … 1e-13 (7 decades): the global
/// error follows tol with a least-squares log-log slope within 1 ± 0.15, and err/tol stays within
/// a factor 10 over the whole range (measured: err/tol from 550 to 4000).
#[test]
fn global_error_is_proportional_to_the_tolerance() {
    let e = 0.6;
    let t_end = 5.0 * TAU;
    let dop = Dop853::new(Kepler);
    let tols: Vec<f64> = (6..=13).map(|k| 10f64.powi(-k)).collect();
    let errs: Vec<f64> = tols
        .iter()
        .map(|&tol| dist(&dop.integrate(0.0, perihelion(e), t_end, tol, tol).unwrap().y, &exact(e, t_end)))
        .collect();
    let m = tols.len() as f64;
    let (lx, ly): (Vec<f64>, Vec<f64>) = tols.iter().zip(&errs).map(|(t, e)| (t.ln(), e.ln())).unzip();
    let (mx, my) = (lx.iter().sum::<f64>() / m, ly.iter().sum::<f64>() / m);
    let slope = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum::<f64>()
        / lx.iter().map(|x| (x - mx) * (x - mx)).sum::<f64>();
    let ratios: Vec<f64> = errs.iter().zip(&tols).map(|(e, t)| e / t).collect();
    let spread = ratios.iter().fold(0.0f64, |a, &r| a.max(r)) / ratios.iter().fold(f64::INFINITY, |a, &r| a.min(r));
    println!(
        "tolerance proportionality: errors {}\n  err/tol {ratios:.0?}, slope {slope:.3}, spread {spread:.1}",
        sci(&errs)
    );
    assert!((slope - 1.0).abs() <= 0.15, "slope {slope}");
    assert!(spread <= 10.0, "err/tol varies by {spread}");
}

// --- (d) dense output ----------------------------------------------------------------------------

/// Dense output at 200 interior times of one e = 0.6 period (rtol = atol = 1e-10) agrees with
/// integrations that end exactly at each time to within 50 tol (measured 17 tol: the two follow
/// different step sequences), and is no further from the exact solution than those
/// integrations' own global error allows.
#[test]
fn dense_output_matches_the_integrated_solution() {
    let e = 0.6;
    let t_end = TAU;
    let tol = 1e-10;
    let dop = Dop853::new(Kepler);
    let times: Vec<f64> = (1..=200).map(|i| t_end * (i as f64 - 0.37) / 200.0).collect();
    let dense = dop.integrate_dense(0.0, perihelion(e), t_end, &times, tol, tol).unwrap();
    let (mut vs_direct, mut vs_exact, mut direct_error) = (0.0f64, 0.0f64, 0.0f64);
    for (&t, s) in times.iter().zip(&dense.states) {
        let direct = dop.integrate(0.0, perihelion(e), t, tol, tol).unwrap().y;
        vs_direct = vs_direct.max(dist(s, &direct));
        vs_exact = vs_exact.max(dist(s, &exact(e, t)));
        direct_error = direct_error.max(dist(&direct, &exact(e, t)));
    }
    println!(
        "dense output, tol 1e-10: vs direct {vs_direct:.2e}, vs exact {vs_exact:.2e} (direct: {direct_error:.2e})"
    );
    assert!(vs_direct <= 50.0 * tol, "dense vs direct {vs_direct:e}");
    assert!(vs_exact <= 1.5 * direct_error + 50.0 * tol, "dense vs exact {vs_exact:e}");
}

/// The interpolant of each step, against the local flow from the step's start (DOP853 at
/// rtol = atol = 1e-15): within 50 tol at θ = 1/4, 1/2, 3/4 (measured 31 tol, the step itself
/// 1.8 tol); linear interpolation (the negative control) is off by 10^4 times more. Its end points
/// are the step's states exactly, extrapolation is refused, and at a fixed step `h` its local
/// error falls like `h^8` (order 7: slopes within 8 ± 0.5, measured 7.81, 7.95).
#[test]
fn dense_output_is_a_seventh_order_interpolant() {
    let e = 0.6;
    let tol = 1e-10;
    let dop = Dop853::new(Kepler);
    let local_flow = |t0: f64, y0: PhaseState<2>, t: f64| dop.integrate(t0, y0, t, 1e-15, 1e-15).unwrap().y;
    let mut run = dop.start(0.0, perihelion(e), TAU, tol, tol, true).unwrap();
    assert!(run.dense_interval().is_none());
    assert_eq!(run.dense(0.0).unwrap(), perihelion(e));
    let (mut interp, mut linear) = (0.0f64, 0.0f64);
    while !run.is_finished() {
        let y_old = *run.y();
        dop.advance(&mut run).unwrap();
        let (t0, t1) = run.dense_interval().unwrap();
        assert_eq!(run.dense(t0).unwrap(), y_old);
        assert_eq!(run.dense(t1).unwrap(), *run.y());
        assert!(run.dense(t1 + 0.1 * (t1 - t0)).is_err(), "extrapolation must be refused");
        for theta in [0.25, 0.5, 0.75] {
            let tm = t0 + theta * (t1 - t0);
            let flow = local_flow(t0, y_old, tm);
            interp = interp.max(dist(&run.dense(tm).unwrap(), &flow));
            let lin = PhaseState::new(y_old.q + (run.y().q - y_old.q) * theta, y_old.p + (run.y().p - y_old.p) * theta);
            linear = linear.max(dist(&lin, &flow));
        }
    }
    println!("local interpolation error {:.1} tol, linear {:.1e} tol", interp / tol, linear / tol);
    assert!(interp <= 50.0 * tol && linear > 1e4 * interp, "interpolant {interp:e}, linear {linear:e}");
    assert_eq!(run.t(), TAU);

    // order: steps fixed at h (h_init = h_max = h, a loose tolerance that accepts them all)
    let mut errors = Vec::new();
    for h in [0.1, 0.05, 0.025] {
        let fixed = Dop853::new(Kepler)
            .with_options(Options { h_init: Some(h), h_max: Some(h), ..Options::default() })
            .unwrap();
        let mut run = fixed.start(0.0, perihelion(e), 1.0, 1e-2, 1e-2, true).unwrap();
        let mut worst = 0.0f64;
        while !run.is_finished() {
            let y_old = *run.y();
            fixed.advance(&mut run).unwrap();
            let (t0, t1) = run.dense_interval().unwrap();
            for theta in [0.25, 0.5, 0.75] {
                let tm = t0 + theta * (t1 - t0);
                worst = worst.max(dist(&run.dense(tm).unwrap(), &local_flow(t0, y_old, tm)));
            }
        }
        assert_eq!(run.stats().rejected, 0);
        errors.push(worst);
    }
    let s: Vec<f64> = errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    println!("interpolant local errors {} slopes {s:.2?}", sci(&errors));
    assert!(s.iter().all(|s| (s - 8.0).abs() <= 0.5), "slopes {s:?}");
}

/// The PI (Lund-stabilised) controller, `β = 0.04`: as accurate as the classic one on two Kepler
/// orbits at tol 1e-10, with no more than 10% more steps and no more rejections.
#[test]
fn pi_controller_is_as_good_as_the_classic_one() {
    let (e, t_end, tol) = (0.6, 2.0 * TAU, 1e-10);
    let classic = Dop853::new(Kepler).integrate(0.0, perihelion(e), t_end, tol, tol).unwrap();
    let pi = Dop853::new(Kepler)
        .with_options(Options { beta: 0.04, ..Options::default() })
        .unwrap()
        .integrate(0.0, perihelion(e), t_end, tol, tol)
        .unwrap();
    let (ec, ep) = (dist(&classic.y, &exact(e, t_end)), dist(&pi.y, &exact(e, t_end)));
    println!("classic {ec:.2e} {:?}\nPI      {ep:.2e} {:?}", classic.stats, pi.stats);
    assert!(ep < 3.0 * ec.max(tol) && ec < 3.0 * ep.max(tol), "classic {ec:e}, PI {ep:e}");
    assert!(pi.stats.steps() as f64 <= 1.1 * classic.stats.steps() as f64);
    assert!(pi.stats.rejected <= classic.stats.rejected);
}

/// Backwards integration: from the state at `T` back to 0 recovers the perihelion.
#[test]
fn backwards_integration_returns() {
    let e = 0.6;
    let dop = Dop853::new(Kepler);
    let y_t = exact(e, 2.0);
    let back = dop.integrate(2.0, y_t, 0.0, 1e-13, 1e-13).unwrap();
    assert_eq!(back.t, 0.0);
    assert!(dist(&back.y, &perihelion(e)) < 1e-11, "{:e}", dist(&back.y, &perihelion(e)));
    let flow = Dop853Flow::new(Dop853::new(Kepler), 1e-13, 1e-13).unwrap();
    let mut y = perihelion(e);
    flow.step(&mut y, 2.0).unwrap();
    flow.step(&mut y, -2.0).unwrap();
    assert!(dist(&y, &perihelion(e)) < 1e-11);
}

// --- (e) bad input -------------------------------------------------------------------------------

/// `y' = y²`, `y(0) = 1`: blows up at `t = 1`.
struct Blowup;
impl VectorField<Vector1<f64>> for Blowup {
    fn eval(&self, y: &Vector1<f64>) -> Result<Vector1<f64>, GeomError> {
        Ok(Vector1::new(y[0] * y[0]))
    }
}

/// A field that fails with an error other than a non-finite value beyond `x = 0.5`.
struct Fails;
impl VectorField<Vector1<f64>> for Fails {
    fn eval(&self, y: &Vector1<f64>) -> Result<Vector1<f64>, GeomError> {
        if y[0] > 0.5 {
            Err(GeomError::OutsideDomain { map: "test field", reason: "x > 0.5" })
        } else {
            Ok(Vector1::new(1.0))
        }
    }
}

#[test]
fn bad_input_gives_typed_errors() {
    let dop = Dop853::new(Kepler);
    let y0 = perihelion(0.6);
    for (rtol, atol) in [(0.0, 1e-8), (1e-8, 0.0), (-1e-8, 1e-8), (f64::NAN, 1e-8), (1e-8, f64::INFINITY)] {
        let e = dop.integrate(0.0, y0, 1.0, rtol, atol).unwrap_err();
        assert!(matches!(e, Dop853Error::InvalidTolerance { .. }), "{rtol}, {atol}: {e:?}");
    }
    for t_end in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let e = dop.integrate(0.0, y0, t_end, 1e-8, 1e-8).unwrap_err();
        assert!(matches!(e, Dop853Error::InvalidTime { what: "t_end", .. }), "{e:?}");
    }
    let e = dop.integrate(f64::NAN, y0, 1.0, 1e-8, 1e-8).unwrap_err();
    assert!(matches!(e, Dop853Error::InvalidTime { what: "t0", .. }), "{e:?}");
    let nan = PhaseState::new(Vector2::new(f64::NAN, 0.0), y0.p);
    assert_eq!(dop.integrate(0.0, nan, 1.0, 1e-8, 1e-8).unwrap_err(), Dop853Error::NonFiniteState { t: 0.0 });
    for times in [vec![0.5, 0.25], vec![1.5], vec![-0.1], vec![f64::NAN]] {
        let e = dop.integrate_dense(0.0, y0, 1.0, &times, 1e-8, 1e-8).unwrap_err();
        assert!(matches!(e, Dop853Error::InvalidTime { what: "output time", .. }), "{times:?}: {e:?}");
    }

    // max steps: the time reached is reported, strictly inside the interval
    let capped = Dop853::new(Kepler).with_options(Options { max_steps: 20, ..Options::default() }).unwrap();
    match capped.integrate(0.0, y0, 10.0, 1e-12, 1e-12).unwrap_err() {
        Dop853Error::MaxStepsExceeded { t, max_steps: 20 } => assert!(t > 0.0 && t < 10.0, "t = {t}"),
        e => panic!("expected MaxStepsExceeded, got {e:?}"),
    }
    // step size underflow at the blow-up of y' = y² (t = 1)
    match Dop853::new(Blowup).integrate(0.0, Vector1::new(1.0), 2.0, 1e-10, 1e-10).unwrap_err() {
        Dop853Error::StepSizeUnderflow { t, h } => {
            assert!((t - 1.0).abs() < 1e-3 && h.abs() < 1e-12, "t = {t}, h = {h:e}")
        }
        e => panic!("expected StepSizeUnderflow, got {e:?}"),
    }
    // an error of the field passes through, with the time
    match Dop853::new(Fails).integrate(0.0, Vector1::new(0.0), 1.0, 1e-8, 1e-8).unwrap_err() {
        Dop853Error::Field { t, source: GeomError::OutsideDomain { .. } } => assert!(t <= 0.5 + 1e-12, "t = {t}"),
        e => panic!("expected Field, got {e:?}"),
    }
    // invalid options and coefficients
    for o in [
        Options { safety: 1.0, ..Options::default() },
        Options { fac_min: 0.0, ..Options::default() },
        Options { fac_max: 0.5, ..Options::default() },
        Options { beta: 0.3, ..Options::default() },
        Options { max_steps: 0, ..Options::default() },
        Options { h_max: Some(-1.0), ..Options::default() },
        Options { h_init: Some(f64::NAN), ..Options::default() },
    ] {
        assert!(matches!(Dop853::new(Kepler).with_options(o), Err(Dop853Error::InvalidOption { .. })), "{o:?}");
    }
    let mut c = Coefficients::DOP853;
    c.a[11][1] = 0.5;
    assert!(matches!(Dop853::with_coefficients(Kepler, c), Err(GeomError::InvalidParameter { .. })));

    // the fixed step reports GeomError and leaves the state untouched
    let mut y = y0;
    for h in [0.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(dop.step(&mut y, h), Err(GeomError::InvalidStep { .. })), "h = {h}");
        assert_eq!(y, y0);
    }
    let mut bad = nan;
    assert!(matches!(dop.step(&mut bad, 0.1), Err(GeomError::NonFinite { .. })));
    // the flow converts to GeomError
    let flow = Dop853Flow::new(capped, 1e-12, 1e-12).unwrap();
    let mut y = y0;
    assert!(matches!(flow.step(&mut y, 10.0), Err(GeomError::InvalidParameter { .. })));
    assert_eq!(y, y0);
    assert!(Dop853Flow::new(Dop853::new(Kepler), 0.0, 1e-8).is_err());
}

// --- allocation ----------------------------------------------------------------------------------

/// Neither the fixed step nor an adaptive step (with dense output) allocates.
#[test]
fn steps_do_not_allocate() {
    assert_eq!(allocations(|| drop(std::hint::black_box(vec![1u8; 8]))), 1, "the counter counts");
    let dop = Dop853::new(Kepler);
    let mut y = perihelion(0.6);
    dop.step(&mut y, 0.01).unwrap();
    assert_eq!(
        allocations(|| {
            for _ in 0..100 {
                dop.step(&mut y, 0.01).unwrap();
            }
        }),
        0
    );
    let mut run = dop.start(0.0, perihelion(0.6), TAU, 1e-12, 1e-12, true).unwrap();
    let n = allocations(|| {
        while !run.is_finished() {
            dop.advance(&mut run).unwrap();
            std::hint::black_box(run.dense(run.t()).unwrap());
        }
    });
    assert_eq!(n, 0);
    let whole = allocations(|| {
        std::hint::black_box(dop.integrate(0.0, perihelion(0.6), TAU, 1e-10, 1e-10).unwrap());
    });
    assert_eq!(whole, 0, "integrate allocates");
}
