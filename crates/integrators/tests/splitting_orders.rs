//! Measured orders of the splitting methods (`integrators::splitting`): the slopes of the
//! differences of successive halvings `log₂(e(h)/e(h/2))`, within ±0.3 of the declared order,
//!
//! * on Hénon–Heiles split as (harmonic oscillator | cubic kick), the oscillator's flow exact;
//! * on a perturbed Kepler problem split as (Kepler drift | perturbation kick), the Kepler flow
//!   by universal variables, and in three pieces (Kepler drift | kick | drift);
//! * with a one-step method as a sub-flow (Störmer–Verlet for the Kepler part), where the order
//!   is capped by the method's: an order-4 scheme then measures 2, as it declares;
//!
//! and the negative control: Lie–Trotter measures 1.

use crate::splitting_models::{Cubic, EPS, Kepler, Precession, Shear, dist, halving_slopes, hh0, kepler0, run};
use geom_core::function::AutoDiff;
use geom_core::step::{OneStep, PhaseState};
use integrators::classical::StormerVerlet;
use integrators::dop853::Dop853;
use integrators::splitting::{
    Drift, Harmonic, KeplerDrift, Kick, Splitting, SplittingScheme, StepFlow, blanes_moan_s6, blanes_moan_s10,
    lie_trotter, mclachlan4, strang, suzuki_fractal4, triple_jump4, triple_jump6, yoshida6,
};

/// `(scheme, first n, halvings)` chosen so that the differences stay well above round-off.
fn cases(t: f64, scale: f64) -> Vec<(SplittingScheme, usize, u32)> {
    let n = |h: f64| (t / (h * scale)).round() as usize;
    vec![
        (lie_trotter(), n(0.05), 3),
        (strang(), n(0.1), 3),
        (triple_jump4(), n(0.2), 3),
        (suzuki_fractal4(), n(0.4), 3),
        (mclachlan4(), n(0.4), 3),
        (blanes_moan_s6(), n(0.4), 3),
        (triple_jump6(), n(0.4), 2),
        (yoshida6(), n(0.4), 2),
        (blanes_moan_s10(), n(0.4), 2),
    ]
}

fn assert_order<M: OneStep<PhaseState<N>>, const N: usize>(
    m: &M,
    x0: &PhaseState<N>,
    t: f64,
    n: usize,
    k: u32,
    order: u32,
) {
    let (diffs, slopes) = halving_slopes(m, x0, t, n, k);
    println!(
        "{:<75} n = {n:>4}: differences {}, slopes {}",
        m.name(),
        diffs.iter().map(|d| format!("{d:.2e}")).collect::<Vec<_>>().join(" "),
        slopes.iter().map(|s| format!("{s:.3}")).collect::<Vec<_>>().join(" ")
    );
    assert_eq!(m.order(), order, "{}", m.name());
    let last = *slopes.last().unwrap();
    assert!((last - order as f64).abs() <= 0.3, "{}: measured {last:.3}, declared {order}", m.name());
    assert!(*diffs.last().unwrap() > 1e-12, "{}: differences at round-off", m.name());
}

#[test]
fn henon_heiles_oscillator_and_cubic_kick() {
    let t = 8.0;
    for (scheme, n, k) in cases(t, 1.0) {
        let order = scheme.order();
        let m = Splitting::new((Harmonic::new(1.0).unwrap(), Kick(AutoDiff(Cubic))), scheme).unwrap();
        assert_order(&m, &hh0(), t, n, k, order);
    }
}

#[test]
fn perturbed_kepler_drift_and_kick() {
    let t = 2.0 * std::f64::consts::TAU; // two periods of a = 1
    for (scheme, n, k) in cases(t, 0.5) {
        let order = scheme.order();
        let m = Splitting::new((KeplerDrift::new(1.0).unwrap(), Kick(AutoDiff(Precession))), scheme).unwrap();
        assert_order(&m, &kepler0(0.5), t, n, k, order);
    }
}

#[test]
fn three_pieces_keep_the_order() {
    let t = 2.0 * std::f64::consts::TAU;
    for (scheme, n, k) in cases(t, 0.5).into_iter().filter(|c| c.0.order() <= 4) {
        let order = scheme.order();
        let flows = (KeplerDrift::new(1.0).unwrap(), Kick(AutoDiff(Precession)), Drift(AutoDiff(Shear)));
        let m = Splitting::new(flows, scheme).unwrap();
        assert_order(&m, &kepler0(0.5), t, n, k, order);
    }
}

/// The splitting converges to the flow of the whole `H` (not only to itself): the order-4
/// error against DOP853 at tolerance 1e-14 falls by 2⁴ per halving.
#[test]
fn converges_to_the_flow_of_the_sum() {
    let t = std::f64::consts::TAU;
    let x0 = kepler0(0.5);
    let reference = Dop853::hamiltonian(AutoDiff(crate::splitting_models::PerturbedKepler))
        .integrate(0.0, x0, t, 1e-14, 1e-14)
        .unwrap()
        .y;
    let m = Splitting::new((KeplerDrift::new(1.0).unwrap(), Kick(AutoDiff(Precession))), blanes_moan_s6()).unwrap();
    let errors: Vec<f64> = [32, 64, 128, 256].iter().map(|&n| dist(&run(&m, &x0, t, n), &reference)).collect();
    let slopes: Vec<f64> = errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    println!("S6 perturbed Kepler (ε = {EPS}) vs DOP853, n = 32..256: errors {errors:?}, slopes {slopes:.3?}");
    assert!(slopes[1..].iter().all(|s| (s - 4.0).abs() <= 0.3), "{slopes:?}");
    assert!(errors[3] > 1e-11, "the last error is above DOP853's own");
}

#[test]
fn a_one_step_method_as_sub_flow_caps_the_order() {
    let t = std::f64::consts::TAU;
    let sv = StepFlow(StormerVerlet::new(AutoDiff(Kepler)));
    for (scheme, n) in [(strang(), 200), (blanes_moan_s6(), 50)] {
        let m = Splitting::new((sv.clone(), Kick(AutoDiff(Precession))), scheme).unwrap();
        assert!(m.is_symmetric());
        assert_order(&m, &kepler0(0.5), t, n, 3, 2);
    }
}
