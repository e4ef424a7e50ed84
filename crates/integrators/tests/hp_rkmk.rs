//! RKMK4 (RK4, τ = exp, dexp^{-1} truncated at q = 2; docs/math.md §D.2–D.3; HLW = Hairer, Lubich &
//! Wanner, *Geometric Numerical Integration*, 2006, IV.8) on the rigid body as the ODE ġ = g f(g)
//! on SO(3) × R^3, f(R, Π) = (I^{-1}Π, Π × I^{-1}Π): measured order 4; and it does not conserve the
//! energy (nor |Π|²) — a fact about a non-symplectic method.

use crate::hp_common;

use discretization::OneStep;
use geom_core::lie::{Chart, So3xR3};
use hp_common::{rigid_body, slope};
use integrators::LieState;
use integrators::rkmk::{self, GroupState, Rkmk};
use integrators::tableau;
use nalgebra::{Matrix3, Vector3};

type State = GroupState<(Matrix3<f64>, Vector3<f64>)>;

fn solve(m: &dyn OneStep<State>, h: f64, t_end: f64) -> State {
    let (_, s0) = rigid_body();
    let mut s = GroupState::new(0.0, (s0.g, s0.mu));
    let n = (t_end / h).round() as usize;
    for _ in 0..n {
        m.step(&mut s, h).unwrap();
    }
    s
}

fn sci(v: &[f64]) -> String {
    v.iter().map(|x| format!("{x:.3e}")).collect::<Vec<_>>().join(" ")
}

fn dist(a: &State, b: &State) -> f64 {
    (a.g.0 - b.g.0).norm() + (a.g.1 - b.g.1).norm()
}

/// Global error at T = 4 for h = 0.2, 0.1, 0.05, 0.025 against RKMK4 with h = 0.2/128, whose
/// own error ≈ 128^{-4} ≈ 4e-9 times the coarsest one (≈ 1e-13), 10^4 below the finest error;
/// the slopes must be 4 ± 0.2 (an order-3 or order-5 method gives 3 or 5).
#[test]
fn rkmk4_has_order_four() {
    let (body, _) = rigid_body();
    let m = rkmk::rkmk4(So3xR3::default(), body).unwrap();
    assert_eq!(m.order(), 4);
    let reference = solve(&m, 0.2 / 128.0, 4.0);
    let hs = [0.2, 0.1, 0.05, 0.025];
    let errors: Vec<f64> = hs.iter().map(|&h| dist(&solve(&m, h, 4.0), &reference)).collect();
    let slopes: Vec<f64> = errors.windows(2).map(|w| slope(w[0], w[1])).collect();
    eprintln!("RKMK4 errors {}, slopes {slopes:.3?}", sci(&errors));
    for p in &slopes {
        assert!((3.8..=4.2).contains(p), "slope {p}");
    }
    // the Cayley chart with its exact dcay^{-1} is also of order 4
    let cay = Rkmk::<_, _, 6, 4>::new(So3xR3::default(), body, &tableau::rk4(), Chart::Cayley).unwrap();
    let reference = solve(&cay, 0.2 / 128.0, 4.0);
    let errors: Vec<f64> = hs.iter().map(|&h| dist(&solve(&cay, h, 4.0), &reference)).collect();
    let slopes: Vec<f64> = errors.windows(2).map(|w| slope(w[0], w[1])).collect();
    eprintln!("RK4-MK (cayley) errors {}, slopes {slopes:.3?}", sci(&errors));
    for p in &slopes {
        assert!((3.8..=4.2).contains(p), "cayley slope {p}");
    }
}

/// With q = 0 (dexp^{-1} ≈ I, the HP truncation) RK4 loses its order on SO(3) (HLW IV.8):
/// the truncation matters.
#[test]
fn truncation_below_p_minus_two_loses_the_order() {
    let (body, _) = rigid_body();
    let m = rkmk::rkmk4(So3xR3::default(), body).unwrap().with_truncation(Some(0));
    assert_eq!(m.order(), 2);
    let reference = solve(&rkmk::rkmk4(So3xR3::default(), body).unwrap(), 0.2 / 128.0, 4.0);
    let errors: Vec<f64> = [0.1, 0.05, 0.025].iter().map(|&h| dist(&solve(&m, h, 4.0), &reference)).collect();
    let slopes: Vec<f64> = errors.windows(2).map(|w| slope(w[0], w[1])).collect();
    eprintln!("RK4 with q = 0: errors {}, slopes {slopes:.3?}", sci(&errors));
    for p in &slopes {
        assert!(*p < 3.0, "slope {p}");
    }
}

/// Over T = 1000 with h = 0.1 the energy and |Π|² errors of RKMK4 grow far above round-off
/// (a drift, linear in t for RK4 on this problem), whereas HP Störmer–Verlet keeps |Π|² to
/// 1e-14 (hp_rigid_body.rs).
#[test]
fn rkmk4_does_not_conserve_energy() {
    let (body, s0) = rigid_body();
    let m = rkmk::rkmk4(So3xR3::default(), body).unwrap();
    let mut s = GroupState::new(0.0, (s0.g, s0.mu));
    let (e0, c0) = (body.energy(&s0), body.casimirs(&s0)[0]);
    let (mut first, mut last, mut casimir) = (0.0f64, 0.0f64, 0.0f64);
    let n = 10_000;
    for k in 1..=n {
        m.step(&mut s, 0.1).unwrap();
        let state = LieState::new(s.g.0, s.g.1);
        let de = (body.energy(&state) - e0).abs() / e0;
        casimir = casimir.max((body.casimirs(&state)[0] - c0).abs() / c0);
        if k <= n / 10 {
            first = first.max(de);
        }
        if k > 9 * n / 10 {
            last = last.max(de);
        }
    }
    eprintln!("RKMK4 h = 0.1: energy error {first:.3e} (t <= 100) -> {last:.3e} (t >= 900); |Π|² error {casimir:.3e}");
    assert!(last > 1e-9, "energy error {last:.3e} is at round-off");
    assert!(last > 3.0 * first, "no drift: {first:.3e} -> {last:.3e}");
    assert!(casimir > 1e-9);
}
