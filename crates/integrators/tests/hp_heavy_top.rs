//! The heavy top on SO(3) (docs/math.md §D.1; f = mgl Γ × χ): the vertical spatial angular momentum
//! e3·(RΠ) — the momentum map of the rotations about e3, a symmetry of ℓ that every HP member
//! respects (G^i = g_k τ(hΘ^i) is left-equivariant) — is conserved to round-off; the energy
//! error of Störmer–Verlet is of second order, that of symplectic Euler of first order.

use crate::hp_common;

use discretization::OneStep;
use geom_core::lie::{Chart, So3};
use hp_common::{heavy_top, orthogonality_defect, slope};
use integrators::hp::{self, LieState};
use integrators::models::HeavyTop;
use nalgebra::Matrix3;

type State = LieState<Matrix3<f64>, 3>;

fn run(m: &dyn OneStep<State>, top: &HeavyTop, s0: &State, h: f64, n: usize) -> (f64, f64, f64) {
    let mut s = *s0;
    let (j0, e0) = (top.momenta(&s)[0], top.energy(&s));
    let scale = s.mu.norm();
    let (mut dj, mut de, mut defect) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..n {
        m.step(&mut s, h).unwrap();
        dj = dj.max((top.momenta(&s)[0] - j0).abs() / scale);
        de = de.max((top.energy(&s) - e0).abs() / e0.abs());
        defect = defect.max(orthogonality_defect(&s.g));
    }
    (dj, de, defect)
}

/// 10^4 steps of h = 0.01. Unlike the free body, e3·(RΠ) is conserved only at the solution of
/// the stage equations, which Newton reaches to round-off (step test, tolerance 1e-14); the
/// random walk of ~100 ulp gives ≈ 2e-14, and 1e-12 leaves a factor 50.
#[test]
fn vertical_momentum_to_round_off() {
    let (top, s0) = heavy_top();
    for chart in [Chart::Exp, Chart::Cayley] {
        let ms: Vec<Box<dyn OneStep<State>>> = vec![
            Box::new(hp::symplectic_euler_a(So3, chart, top).unwrap()),
            Box::new(hp::symplectic_euler_b(So3, chart, top).unwrap()),
            Box::new(hp::stormer_verlet(So3, chart, top).unwrap()),
        ];
        for m in ms {
            let (dj, de, defect) = run(m.as_ref(), &top, &s0, 0.01, 10_000);
            eprintln!("{:<32} e3·RΠ: {dj:.2e}  energy: {de:.3e}  RᵀR-I: {defect:.2e}", m.name());
            assert!(dj <= 1e-12, "{}: vertical momentum {dj:.3e}", m.name());
            assert!(defect <= 1e-12, "{}: RᵀR - I {defect:.3e}", m.name());
        }
    }
}

/// Max relative energy error over T = 20 at h = 0.04, 0.02, 0.01.
#[test]
fn energy_error_orders() {
    let (top, s0) = heavy_top();
    for chart in [Chart::Exp, Chart::Cayley] {
        let cases: Vec<(Box<dyn OneStep<State>>, f64)> = vec![
            (Box::new(hp::stormer_verlet(So3, chart, top).unwrap()), 2.0),
            (Box::new(hp::symplectic_euler_a(So3, chart, top).unwrap()), 1.0),
            (Box::new(hp::symplectic_euler_b(So3, chart, top).unwrap()), 1.0),
        ];
        for (m, order) in cases {
            let e: Vec<f64> = [0.04, 0.02, 0.01]
                .iter()
                .map(|&h| run(m.as_ref(), &top, &s0, h, (20.0 / h).round() as usize).1)
                .collect();
            let (p1, p2) = (slope(e[0], e[1]), slope(e[1], e[2]));
            eprintln!("{:<32} energy errors {:.3e} {:.3e} {:.3e}, slopes {p1:.3} {p2:.3}", m.name(), e[0], e[1], e[2]);
            for p in [p1, p2] {
                assert!((order - 0.15..=order + 0.15).contains(&p), "{}: slope {p}, expected {order}", m.name());
            }
        }
    }
}

/// The separable heavy top (`LeftLagrangian::SEPARABLE`: kick–solve–kick, one 3-vector Newton
/// per step) follows the same trajectory as the general stage equations, reached through
/// `hp::AutoDiff` of the same model (which never claims separability), for Störmer–Verlet and
/// the symplectic Euler pair, with both charts.
#[test]
fn separable_path_equals_the_general_stage_equations() {
    let (top, s0) = heavy_top();
    for chart in [Chart::Cayley, Chart::Exp] {
        type Boxed = Box<dyn OneStep<State>>;
        let pairs: [(Boxed, Boxed); 3] = [
            (
                Box::new(hp::stormer_verlet(So3, chart, top).unwrap()),
                Box::new(hp::stormer_verlet(So3, chart, hp::AutoDiff(top)).unwrap()),
            ),
            (
                Box::new(hp::symplectic_euler_a(So3, chart, top).unwrap()),
                Box::new(hp::symplectic_euler_a(So3, chart, hp::AutoDiff(top)).unwrap()),
            ),
            (
                Box::new(hp::symplectic_euler_b(So3, chart, top).unwrap()),
                Box::new(hp::symplectic_euler_b(So3, chart, hp::AutoDiff(top)).unwrap()),
            ),
        ];
        for (fast, general) in &pairs {
            let (mut a, mut b) = (s0, s0);
            for _ in 0..1000 {
                fast.step(&mut a, 0.01).unwrap();
                general.step(&mut b, 0.01).unwrap();
            }
            let d = (a.g - b.g).amax().max((a.mu - b.mu).amax());
            assert!(d <= 1e-12, "{} ({}): {d:e}", fast.name(), chart.name());
            // and the trajectory moved: the comparison is not between two resting states
            assert!((a.mu - s0.mu).amax() > 0.1);
        }
    }
}
