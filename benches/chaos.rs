//! The tangent map and the chaos indicators on Hénon–Heiles (E = 1/8, h = 0.05), each timed
//! interleaved in the same process (`common::ratio`), printing
//! `ratio <case> <project ns/step> <reference ns/step> <ratio> <target>`:
//!
//! * `hh_sv_tangent_map`: Störmer–Verlet's step with its exact step Jacobian
//!   (`StepJacobian::step_jacobian`, the full 4 × 4 tangent map) against the plain step
//!   (`OneStep::step`) of the same method and model (target 3);
//! * `hh_sv_tangent_vs_hand`: the same tangent map against a hand-written kick–drift–kick loop
//!   carrying the 4 × 4 Jacobian with the hand-written force and Hessian (information);
//! * `hh_lyapunov_spectrum` / `hh_megno`: one step of `LyapunovSpectrum::<2, 4>` (tangent map
//!   and Gram–Schmidt of four vectors) and of `Megno` against the plain step (information);
//! * `hh_second_order_variation`: one step of `SecondOrderVariation` (three step Jacobians and
//!   three products) against the plain step (information).
//!
//! The model is written the way the docs write one: a `PhaseSpaceFunction` wrapped in
//! `AutoDiff::separable`. Run: `cargo bench --bench chaos`.

mod common;

use common::ratio::Report;
use geom_core::Scalar;
use geom_core::function::{AutoDiff, PhaseSpaceFunction};
use integrators::classical::{PhaseJacobian, StepJacobian, StormerVerlet};
use integrators::variational_equations::{LyapunovSpectrum, Megno, SecondOrderVariation};
use integrators::{OneStep, PhaseState};
use nalgebra::{Matrix2, SVector, Vector2};
use std::hint::black_box;

const H: f64 = 0.05;
const STEPS: usize = 20_000;

/// Hénon & Heiles (1964): `H = |p|²/2 + |q|²/2 + q₁² q₂ − q₂³/3`.
struct HenonHeiles;
impl PhaseSpaceFunction<2> for HenonHeiles {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        let (x, y) = (q[0], q[1]);
        (p.norm_squared() + q.norm_squared()) * S::from(0.5) + x * x * y - y * y * y * S::from(1.0 / 3.0)
    }
}

fn initial() -> PhaseState<2> {
    let (e, y) = (0.125, -0.1);
    let px = (2.0 * e - y * y + 2.0 * y * y * y / 3.0f64).sqrt();
    PhaseState::new(Vector2::new(0.0, y), Vector2::new(px, 0.0))
}

/// `∇V` and `V''` of `V = |q|²/2 + x² y − y³/3`, by hand.
#[inline]
fn force(q: &Vector2<f64>) -> Vector2<f64> {
    Vector2::new(q[0] + 2.0 * q[0] * q[1], q[1] + q[0] * q[0] - q[1] * q[1])
}
#[inline]
fn hessian(q: &Vector2<f64>) -> Matrix2<f64> {
    Matrix2::new(1.0 + 2.0 * q[1], 2.0 * q[0], 2.0 * q[0], 1.0 - 2.0 * q[1])
}

/// The hand-written kick–drift–kick step with its Jacobian `K(q₁) D K(q)`.
#[inline]
fn hand_tangent(s: &mut PhaseState<2>, m: &mut PhaseJacobian<2>, h: f64) {
    let kick = |a: &Matrix2<f64>, t: f64| PhaseJacobian { pq: -a * t, ..PhaseJacobian::identity() };
    let drift = PhaseJacobian { qp: Matrix2::identity() * h, ..PhaseJacobian::identity() };
    let first = kick(&hessian(&s.q), 0.5 * h);
    let p_half = s.p - force(&s.q) * (0.5 * h);
    let q1 = s.q + p_half * h;
    let p1 = p_half - force(&q1) * (0.5 * h);
    *m = kick(&hessian(&q1), 0.5 * h).after(&drift).after(&first);
    *s = PhaseState::new(q1, p1);
}

fn main() {
    let mut report = Report::new();
    let sv = StormerVerlet::new(AutoDiff::separable(HenonHeiles));
    // the same map and Jacobian as the hand-written loop
    let (mut a, mut b, mut mb) = (initial(), initial(), PhaseJacobian::identity());
    for _ in 0..1000 {
        let (next, m) = sv.step_jacobian(&a, H).unwrap();
        a = next;
        hand_tangent(&mut b, &mut mb, H);
        assert!((m.to_dmatrix() - mb.to_dmatrix()).amax() < 1e-12);
    }
    assert!((a.q - b.q).amax().max((a.p - b.p).amax()) <= 1e-12);

    let tangent = |s: &mut PhaseState<2>, n: usize| {
        for _ in 0..n {
            let (next, m) = sv.step_jacobian(black_box(s), black_box(H)).unwrap();
            *s = next;
            black_box(m);
        }
    };
    let step = |s: &mut PhaseState<2>, n: usize| {
        for _ in 0..n {
            sv.step(black_box(s), black_box(H)).unwrap();
        }
    };
    let (mut s1, mut s2) = (initial(), initial());
    report.case("hh_sv_tangent_map", 3.0, STEPS, |n| tangent(&mut s1, n), |n| step(&mut s2, n));
    let (mut s1, mut s2, mut m2) = (initial(), initial(), PhaseJacobian::identity());
    report.case(
        "hh_sv_tangent_vs_hand",
        f64::INFINITY,
        STEPS,
        |n| tangent(&mut s1, n),
        |n| {
            for _ in 0..n {
                hand_tangent(black_box(&mut s2), &mut m2, black_box(H));
                black_box(&m2);
            }
        },
    );
    let mut lyap = LyapunovSpectrum::<2, 4>::new(initial(), H).unwrap();
    let mut s2 = initial();
    report.case("hh_lyapunov_spectrum", f64::INFINITY, STEPS, |n| lyap.advance(&sv, n).unwrap(), |n| step(&mut s2, n));
    let delta = PhaseState::new(Vector2::new(1.0, 0.0), Vector2::new(0.0, 0.0));
    let mut megno = Megno::new(initial(), delta, H).unwrap();
    let mut s2 = initial();
    report.case("hh_megno", f64::INFINITY, STEPS, |n| megno.advance(&sv, n).unwrap(), |n| step(&mut s2, n));
    // restarted every 1000 steps: the second-order vector grows like e^{2λt} on a chaotic orbit
    let other = PhaseState::new(Vector2::new(0.0, 1.0), Vector2::new(0.0, 0.0));
    let (mut s1, mut s2) = (initial(), initial());
    report.case(
        "hh_second_order_variation",
        f64::INFINITY,
        STEPS,
        |n| {
            let mut left = n;
            while left > 0 {
                let k = left.min(1000);
                let mut v = SecondOrderVariation::new(s1, delta, other, H).unwrap();
                v.advance(&sv, k).unwrap();
                s1 = *black_box(v.state());
                left -= k;
            }
        },
        |n| step(&mut s2, n),
    );
    report.print("chaos (Hénon–Heiles, h = 0.05): ratio case project_ns reference_ns ratio target");
}
