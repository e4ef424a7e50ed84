//! Events and Poincaré sections: Kepler's pericentre against Kepler's equation, the Hénon–Heiles
//! section with its energy, direction filtering, terminal events, the failure contract.

use super::variational_equations::{HenonHeiles, hh_state};
use discretization::composition::kahan_li8;
use geom_core::Scalar;
use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction};
use integrators::PhaseState;
use integrators::classical::{HamiltonianField, StormerVerlet};
use integrators::events::{Direction, Event, EventRunner, Outcome, Refinement, poincare_section};
use integrators::verlet_composition::VerletComposition;
use nalgebra::{SVector, Vector2};
use std::f64::consts::TAU;
use std::ops::ControlFlow;

/// Kepler `H = |p|²/2 − 1/|q|` (μ = 1).
pub(crate) struct Kepler;
impl PhaseSpaceFunction<2> for Kepler {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip()
    }
}

/// The Kepler orbit `a = 1`, eccentricity `e`, at eccentric anomaly `u`, pericentre on `+x`:
/// `q = (cos u − e, b sin u)`, `p = (−sin u, b cos u) / (1 − e cos u)`, `b = √(1 − e²)`; the
/// mean anomaly `M = u − e sin u` (Kepler's equation) is the time since pericentre (`n = 1`).
pub(crate) fn kepler_at(e: f64, u: f64) -> (PhaseState<2>, f64) {
    let b = (1.0 - e * e).sqrt();
    let d = 1.0 - e * u.cos();
    let s = PhaseState::new(Vector2::new(u.cos() - e, b * u.sin()), Vector2::new(-u.sin() / d, b * u.cos() / d));
    (s, u - e * u.sin())
}

/// `g = q·p = r ṙ`: negative before pericentre, positive after.
pub(crate) fn radial(x: &PhaseState<2>) -> f64 {
    x.q.dot(&x.p)
}

/// The time of the first pericentre after `t = 0` from `u = 2.5` (e = 0.5), by events on a
/// method of order 8 with step `h`, and the analytic time `2π − M₀`.
fn pericentre(h: f64, refinement: Refinement) -> (f64, f64) {
    let (x0, m0) = kepler_at(0.5, 2.5);
    let method = VerletComposition::new(AutoDiff::separable(Kepler), kahan_li8()).unwrap();
    let runner = EventRunner::new(method, HamiltonianField(AutoDiff::separable(Kepler))).with_refinement(refinement);
    let (mut x, mut t) = (x0, 0.0);
    let events = [Event::terminal(radial, Direction::Rising)];
    let n = (10.0 / h) as usize;
    let out = runner.run(&mut x, &mut t, h, n, &events, |_| ControlFlow::Continue(())).unwrap();
    assert!(matches!(out, Outcome::Terminal(_)), "{out:?}");
    (t, TAU - m0)
}

#[test]
fn kepler_pericentre_time_to_1e_12() {
    // the numerical orbit's own error at h = 0.005 is ~1e-15: the event time is the limit
    let (t, exact) = pericentre(0.005, Refinement::Restep);
    println!("pericentre restep: t = {t:.16}, Kepler's equation {exact:.16}, error {:.2e}", (t - exact).abs());
    assert!((t - exact).abs() < 1e-12, "{t} vs {exact}");
}

#[test]
fn hermite_interpolant_is_third_order() {
    // the interpolant of exact end values of the oscillator x(t) = (cos t, −sin t), f = (p, −q):
    // max error over the step O(h⁴), measured slope within ±0.3 of 4
    use integrators::events::Hermite;
    let x = |t: f64| PhaseState::new(SVector::from([t.cos()]), SVector::from([-t.sin()]));
    let f = |t: f64| PhaseState::new(SVector::from([-t.sin()]), SVector::from([-t.cos()]));
    let t0 = 0.3;
    let errors: Vec<f64> = [0.4, 0.2, 0.1]
        .iter()
        .map(|&h| {
            let u = Hermite::new(x(t0), f(t0), x(t0 + h), f(t0 + h), h);
            (1..20)
                .map(|i| {
                    let th = i as f64 / 20.0;
                    let (a, b) = (u.eval(th), x(t0 + th * h));
                    (a.q - b.q).amax().max((a.p - b.p).amax())
                })
                .fold(0.0, f64::max)
        })
        .collect();
    let slopes: Vec<f64> = (0..2).map(|i| (errors[i] / errors[i + 1]).log2()).collect();
    println!("Hermite interpolant errors {errors:?}, slopes {slopes:?}");
    for s in &slopes {
        assert!((s - 4.0).abs() <= 0.3, "{slopes:?}");
    }
}

#[test]
fn refinement_by_restepping_beats_the_interpolant() {
    // negative control of the refinement: the Hermite estimate alone is off by O(h⁴); the
    // re-stepped time is off only by the orbit's own error at this step (~1e-11 at h = 0.05)
    let (ti, exact) = pericentre(0.05, Refinement::Interpolant);
    let (tr, _) = pericentre(0.05, Refinement::Restep);
    println!("h = 0.05: interpolant only {:.1e}, re-stepped {:.1e}", (ti - exact).abs(), (tr - exact).abs());
    assert!((ti - exact).abs() > 1e-9 && (tr - exact).abs() < 1e-3 * (ti - exact).abs());
}

#[test]
fn henon_heiles_section_of_ten_thousand_crossings_keeps_the_energy() {
    let ham = AutoDiff::separable(HenonHeiles);
    let e0 = 0.125;
    let x0 = hh_state(e0, -0.1);
    let h = 0.02;
    let runner = EventRunner::new(StormerVerlet::new(ham), HamiltonianField(ham));
    let (mut x, mut t) = (x0, 0.0);
    let section = |x: &PhaseState<2>| x.q[0];
    let points =
        poincare_section(&runner, &mut x, &mut t, h, Event::new(section, Direction::Rising), 10_000, 10_000_000)
            .unwrap();
    assert_eq!(points.len(), 10_000);
    let energy = |x: &PhaseState<2>| ham.value(&x.q, &x.p);
    // the energy error of the trajectory's grid states, over the same time
    let mut grid = x0;
    let sv = StormerVerlet::new(ham);
    let mut grid_err: f64 = 0.0;
    let n = (t / h) as usize;
    for _ in 0..n {
        integrators::OneStep::step(&sv, &mut grid, h).unwrap();
        grid_err = grid_err.max((energy(&grid) - e0).abs());
    }
    let (mut sec_err, mut on_section, mut last_t): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for c in &points {
        sec_err = sec_err.max((energy(&c.state) - e0).abs());
        on_section = on_section.max(c.state.q[0].abs());
        assert!(c.state.p[0] > 0.0 && c.t > last_t);
        last_t = c.t;
    }
    println!(
        "HH section: {} crossings over t = {t:.0}, |H − E| max {sec_err:.2e} at crossings, {grid_err:.2e} on the grid, |q₁| max {on_section:.1e}",
        points.len()
    );
    // the crossing states are states of the method (a step of size τ from a grid state): their
    // energy error is bounded by the method's, O(h²) (C h² with C = 1: measured 10× below)
    assert!(sec_err <= 1.05 * grid_err.max(1e-15) + 1e-15 && sec_err <= h * h, "{sec_err:.2e} vs grid {grid_err:.2e}");
    assert!(on_section <= 1e-15, "{on_section:.1e}");
}

#[test]
fn direction_filter_terminal_and_failures() {
    // the harmonic oscillator H = (q² + p²)/2 from (1, 0): q = cos t crosses 0 falling at π/2,
    // rising at 3π/2
    #[derive(Clone, Copy)]
    struct Oscillator;
    impl PhaseSpaceFunction<1> for Oscillator {
        fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
            (q[0] * q[0] + p[0] * p[0]) * S::from(0.5)
        }
    }
    let ham = AutoDiff::separable(Oscillator);
    let runner = EventRunner::new(VerletComposition::new(ham, kahan_li8()).unwrap(), HamiltonianField(ham));
    let x0 = PhaseState::new(SVector::from([1.0]), SVector::from([0.0]));
    let g = |x: &PhaseState<1>| x.q[0];
    let count = |dir: Direction| {
        let (mut x, mut t) = (x0, 0.0);
        let mut times = Vec::new();
        let out = runner
            .run(&mut x, &mut t, 0.01, 1000, &[Event::new(g, dir)], |c| {
                times.push(c.t);
                ControlFlow::Continue(())
            })
            .unwrap();
        assert_eq!(out, Outcome::Completed);
        assert!((t - 10.0).abs() < 1e-15);
        times
    };
    let pi = std::f64::consts::PI;
    let (rising, falling, both) = (count(Direction::Rising), count(Direction::Falling), count(Direction::Both));
    // zeros of cos t in [0, 10]: π/2 (falling), 3π/2 (rising), 5π/2 (falling)
    assert_eq!((rising.len(), falling.len(), both.len()), (1, 2, 3));
    assert!((falling[0] - pi / 2.0).abs() < 1e-12 && (rising[0] - 1.5 * pi).abs() < 1e-12, "{falling:?} {rising:?}");
    // terminal: stops at the first falling crossing, in the located state
    let (mut x, mut t) = (x0, 0.0);
    let out = runner
        .run(&mut x, &mut t, 0.01, 1000, &[Event::terminal(g, Direction::Falling)], |_| ControlFlow::Continue(()))
        .unwrap();
    assert!(matches!(out, Outcome::Terminal(c) if c.event == 0));
    assert!((t - pi / 2.0).abs() < 1e-12 && x.q[0].abs() < 1e-15);
    // failures leave the state and the time untouched, bit for bit
    let (mut x, mut t) = (x0, 0.25);
    let bits = |x: &PhaseState<1>, t: f64| (x.q[0].to_bits(), x.p[0].to_bits(), t.to_bits());
    let before = bits(&x, t);
    assert!(
        runner
            .run(&mut x, &mut t, f64::NAN, 10, &[Event::new(g, Direction::Both)], |_| ControlFlow::Continue(()))
            .is_err()
    );
    let bad = |x: &PhaseState<1>| if x.q[0] < 0.5 { f64::NAN } else { x.q[0] - 2.0 };
    assert!(
        runner
            .run(&mut x, &mut t, 0.01, 1000, &[Event::new(bad, Direction::Both)], |_| ControlFlow::Continue(()))
            .is_err()
    );
    assert_eq!(bits(&x, t), before);
}
