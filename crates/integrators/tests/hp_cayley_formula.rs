//! The generic HP code against an independent closed form: on SO(3) with τ = cay, Lie-group
//! Störmer–Verlet is (docs/math.md §D.5), with P := Iξ, f = mgl Γ × χ,
//!
//! ```text
//!   solve  Π_k + (h/2) f_k = P + (h/2) ξ×P + (h²/4)(ξ·P) ξ
//!   R_{k+1} = R_k cay(hξ),   Π_{k+1} = P - (h/2) ξ×P + (h²/4)(ξ·P) ξ + (h/2) f_{k+1},
//! ```
//!
//! written out here with its own Newton iteration (Jacobian of docs/math.md §D.5) and its own
//! Cayley map, and compared with `hp::stormer_verlet(So3, Chart::Cayley, HeavyTop)`.

use crate::hp_common;

use discretization::OneStep;
use geom_core::lie::{Chart, So3};
use hp_common::heavy_top;
use integrators::hp::{self, LieState};
use integrators::models::HeavyTop;
use nalgebra::{Matrix3, Vector3};

fn skew(x: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -x[2], x[1], x[2], 0.0, -x[0], -x[1], x[0], 0.0)
}

fn cay(x: &Vector3<f64>) -> Matrix3<f64> {
    let k = 4.0 / (4.0 + x.norm_squared());
    let s = skew(x);
    Matrix3::identity() + (s + s * s * 0.5) * k
}

fn torque(top: &HeavyTop, r: &Matrix3<f64>) -> Vector3<f64> {
    let gamma = r.transpose() * Vector3::z();
    gamma.cross(top.chi()) * top.mgl()
}

fn componentwise_step(top: &HeavyTop, s: &LieState<Matrix3<f64>, 3>, h: f64) -> LieState<Matrix3<f64>, 3> {
    let i = *top.inertia();
    let rhs = s.mu + torque(top, &s.g) * (0.5 * h);
    let mut xi = i.try_inverse().unwrap() * s.mu;
    for _ in 0..50 {
        let p = i * xi;
        let f = p + xi.cross(&p) * (0.5 * h) + xi * (0.25 * h * h * xi.dot(&p)) - rhs;
        let j = i
            + (skew(&xi) * i - skew(&p)) * (0.5 * h)
            + (xi * p.transpose() + xi * xi.transpose() * i + Matrix3::identity() * xi.dot(&p)) * (0.25 * h * h);
        let dx = j.lu().solve(&(-f)).unwrap();
        xi += dx;
        if dx.amax() <= 1e-16 * (1.0 + xi.amax()) {
            break;
        }
    }
    let p = i * xi;
    let r1 = s.g * cay(&(xi * h));
    let pi1 = p - xi.cross(&p) * (0.5 * h) + xi * (0.25 * h * h * xi.dot(&p)) + torque(top, &r1) * (0.5 * h);
    LieState::new(r1, pi1)
}

/// One step from the same state: both solve the same 3×3 equation to round-off, so they agree
/// to a few ulp (≤ 1e-14 relative). Over 1000 steps (h = 0.01, T = 10) the per-step round-off
/// differences propagate with the flow: ≤ 1e-12.
#[test]
fn generic_cayley_stormer_verlet_matches_the_componentwise_formula() {
    let (top, s0) = heavy_top();
    let sv = hp::stormer_verlet(So3, Chart::Cayley, top).unwrap();
    let (mut a, mut b) = (s0, s0);
    let mut one_step = 0.0f64;
    let mut trajectory = 0.0f64;
    for _ in 0..1000 {
        let mut c = b;
        sv.step(&mut c, 0.01).unwrap();
        let d = componentwise_step(&top, &b, 0.01);
        one_step = one_step.max((c.g - d.g).norm() + (c.mu - d.mu).norm() / d.mu.norm());
        sv.step(&mut a, 0.01).unwrap();
        b = componentwise_step(&top, &b, 0.01);
        trajectory = trajectory.max((a.g - b.g).norm() + (a.mu - b.mu).norm() / b.mu.norm());
    }
    // a larger step too
    let mut c = s0;
    sv.step(&mut c, 0.2).unwrap();
    let d = componentwise_step(&top, &s0, 0.2);
    let big = (c.g - d.g).norm() + (c.mu - d.mu).norm() / d.mu.norm();
    eprintln!("Cayley SV vs componentwise: one step {one_step:.2e} (h = 0.2: {big:.2e}), 1000 steps {trajectory:.2e}");
    assert!(one_step <= 1e-14 && big <= 1e-14, "{one_step:.3e} {big:.3e}");
    assert!(trajectory <= 1e-12, "{trajectory:.3e}");
    // and the exp chart is a different method (O(h^3) per step): the comparison is sharp
    let sv_exp = hp::stormer_verlet(So3, Chart::Exp, top).unwrap();
    let mut e = s0;
    sv_exp.step(&mut e, 0.2).unwrap();
    let d = componentwise_step(&top, &s0, 0.2);
    assert!((e.mu - d.mu).norm() > 1e-6, "{:.3e}", (e.mu - d.mu).norm());
}
