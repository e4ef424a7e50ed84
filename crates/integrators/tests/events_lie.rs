//! Events and Poincaré sections on `T*G`: the heavy top's section `μ₁ = 0` by the
//! Hamilton–Pontryagin Störmer–Verlet method, located by the linear estimate and re-stepping
//! (`EventRunner::restepping`), with a negative control that stops at the estimate; the same
//! runner on `T*R^2` agrees with the Hermite route.

use super::events::{Kepler, kepler_at, radial};
use discretization::composition::kahan_li8;
use geom_core::function::AutoDiff;
use geom_core::lie::{Chart, LieGroup, So3};
use integrators::classical::HamiltonianField;
use integrators::events::{Direction, Event, EventRunner, Outcome, Refinement, poincare_section};
use integrators::hp::{self, LieState};
use integrators::models::HeavyTop;
use integrators::verlet_composition::VerletComposition;
use integrators::{OneStep, PhaseState};
use nalgebra::{Matrix3, Vector3};
use std::ops::ControlFlow;

type State = LieState<Matrix3<f64>, 3>;

fn top() -> HeavyTop {
    HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(1.0, 1.6, 2.2)), 1.0, Vector3::new(1.0, 0.8, 0.6)).unwrap()
}

fn start() -> State {
    LieState::new(So3.exp(&Vector3::new(1.2, 0.4, 0.0)), Vector3::new(0.8, -0.6, 1.0))
}

/// The section `μ₁ = 0`, crossed upwards.
fn mu1(x: &State) -> f64 {
    x.mu[0]
}

/// The first `count` crossings of `μ₁ = 0` (rising) by HP Störmer–Verlet (Cayley) with step `h`.
fn section(h: f64, refinement: Refinement, count: usize) -> Vec<(f64, State)> {
    let method = hp::stormer_verlet(So3, Chart::Cayley, top()).unwrap();
    let runner = EventRunner::restepping(method).with_refinement(refinement);
    let (mut x, mut t) = (start(), 0.0);
    let crossings =
        poincare_section(&runner, &mut x, &mut t, h, Event::new(mu1, Direction::Rising), count, 1_000_000).unwrap();
    assert_eq!(crossings.len(), count);
    crossings.into_iter().map(|c| (c.t, c.state)).collect()
}

#[test]
fn the_heavy_top_section_is_located_to_round_off_on_the_method_s_own_orbit() {
    let (h, count) = (0.02, 40);
    let top = top();
    let e0 = top.energy(&start());
    let crossings = section(h, Refinement::Restep, count);
    // the orbit on the grid: its largest energy error over the same time
    let method = hp::stormer_verlet(So3, Chart::Cayley, top).unwrap();
    let t_end = crossings.last().unwrap().0;
    let mut x = start();
    let mut grid_error: f64 = 0.0;
    for _ in 0..(t_end / h).ceil() as usize {
        method.step(&mut x, h).unwrap();
        grid_error = grid_error.max((top.energy(&x) - e0).abs());
    }
    let mut worst_g: f64 = 0.0;
    let mut worst_energy: f64 = 0.0;
    for (k, (t, x)) in crossings.iter().enumerate() {
        worst_g = worst_g.max(mu1(x).abs());
        worst_energy = worst_energy.max((top.energy(x) - e0).abs());
        // upward crossings: μ₁ grows there (μ̇₁ of the Euler–Poisson equations)
        if k > 0 {
            assert!(*t > crossings[k - 1].0 + h, "crossings {} and {k} at {} and {t}", k - 1, crossings[k - 1].0);
        }
    }
    println!(
        "heavy top section mu1 = 0: {count} crossings to t = {t_end:.2}, max |mu1| {worst_g:.2e}, energy error {worst_energy:.2e} (grid {grid_error:.2e})"
    );
    assert!(worst_g <= 1e-14, "|μ₁| at a crossing {worst_g:e}");
    // a crossing state is a state of the method (a step of size τ): its energy error is the orbit's
    assert!(worst_energy <= 2.0 * grid_error, "energy error {worst_energy:e} against the grid's {grid_error:e}");

    // negative control: the linear estimate alone misses the section by O(h²)
    let rough = section(h, Refinement::Interpolant, count);
    let miss = rough.iter().map(|(_, x)| mu1(x).abs()).fold(0.0, f64::max);
    println!("linear estimate only: max |mu1| {miss:.2e}");
    assert!(miss > 1e-8, "the linear estimate alone is at {miss:e}");

    // the time of the first crossing converges with the method's order 2 (Richardson ratio ≈ 4;
    // later crossings of this chaotic orbit separate with the step)
    let first = |h: f64| section(h, Refinement::Restep, 1)[0].0;
    let (a, b, c) = (first(0.04), first(0.02), first(0.01));
    let ratio = (a - b) / (b - c);
    println!("first crossing at h = 0.04, 0.02, 0.01: {a:.12}, {b:.12}, {c:.12}, ratio {ratio:.3}");
    assert!((3.0..5.0).contains(&ratio), "Richardson ratio {ratio}");
}

#[test]
fn a_terminal_event_on_the_group_stops_at_the_crossing() {
    let method = hp::stormer_verlet(So3, Chart::Cayley, top()).unwrap();
    let runner = EventRunner::restepping(method);
    let (mut x, mut t) = (start(), 0.0);
    let events = [Event::terminal(mu1, Direction::Both)];
    let out = runner.run(&mut x, &mut t, 0.02, 100_000, &events, |_| ControlFlow::Continue(())).unwrap();
    let Outcome::Terminal(c) = out else { panic!("{out:?}") };
    assert_eq!((c.t, c.state), (t, x));
    assert!(mu1(&x).abs() <= 1e-14 && t > 0.0);
    // the state is on the group: R^T R = I
    assert!((x.g.transpose() * x.g - Matrix3::identity()).norm() < 1e-13);
}

#[test]
fn restepping_from_the_linear_estimate_finds_the_hermite_route_s_crossing() {
    let (x0, _) = kepler_at(0.5, 2.5);
    let method = || VerletComposition::new(AutoDiff::separable(Kepler), kahan_li8()).unwrap();
    let events = [Event::terminal(radial, Direction::Rising)];
    let run = |hermite: bool| -> (f64, PhaseState<2>) {
        let (mut x, mut t) = (x0, 0.0);
        if hermite {
            let runner = EventRunner::new(method(), HamiltonianField(AutoDiff::separable(Kepler)));
            runner.run(&mut x, &mut t, 0.01, 2000, &events, |_| ControlFlow::Continue(())).unwrap();
        } else {
            let runner = EventRunner::restepping(method());
            runner.run(&mut x, &mut t, 0.01, 2000, &events, |_| ControlFlow::Continue(())).unwrap();
        }
        (t, x)
    };
    let ((t1, x1), (t2, x2)) = (run(true), run(false));
    assert!(t1 > 1.0 && (t1 - t2).abs() <= 1e-14 * t1, "{t1} vs {t2}");
    assert!((x1.q - x2.q).norm() <= 1e-13 && (x1.p - x2.p).norm() <= 1e-13);
}
