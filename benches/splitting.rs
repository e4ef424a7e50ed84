//! Splitting methods with exact sub-flows (`integrators::splitting`), each timed interleaved with
//! a hand-written loop of the same equations in the same process (`common::ratio`), printing
//! `ratio <case> <project ns/step> <reference ns/step> <ratio> <target>`:
//!
//! * Strang splitting of Hénon–Heiles as (harmonic oscillator | cubic kick),
//!   `φ^A_{h/2} ∘ φ^B_h ∘ φ^A_{h/2}` with the oscillator's rotation (`sin_cos` of `h/2` once a
//!   step: the compiler merges the hand loop's two calls, the library shares one through the
//!   oscillator's `FlowCache`, and a `step_n` run computes it once), through `Splitting::step`,
//!   `Splitting::step_n` and `Box<dyn OneStep>`, with the cubic's gradient written by hand
//!   (`ScalarDerivatives`, target 1.3) and by `AutoDiff` of the model written once (target 1.5,
//!   as the AD cases of `benches/explicit.rs`), against the hand-written loop;
//! * Blanes–Moan S6 of the same split against its 13 hand-written sub-flows (target 1.3);
//! * the Kepler drift (`KeplerDrift::flow`, e = 0.5, t = 0.05 per call) against a hand-written
//!   universal-variable solver (Stumpff functions, Laguerre's iteration from `t/r₀`, the f and
//!   g functions; no bracket, no period reduction, no error checks; target 1.3).
//!
//! Run: `cargo bench --bench splitting`.

mod common;

use common::ratio::Report;
use geom_core::Scalar;
use geom_core::function::{AutoDiff, ScalarDerivatives, ScalarFunction};
use geom_core::step::{OneStep, PhaseState};
use integrators::splitting::{ExactFlow, Harmonic, KeplerDrift, Kick, Splitting, blanes_moan_s6, strang, stumpff};
use nalgebra::{SMatrix, SVector, Vector2};
use std::hint::black_box;

const H: f64 = 0.05;
const STEPS: usize = 20_000;

/// The cubic part of Hénon–Heiles, `V₃ = x²y − y³/3`, as a model (AutoDiff route).
struct Cubic;
impl ScalarFunction<2> for Cubic {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>) -> S {
        q[0] * q[0] * q[1] - q[1] * q[1] * q[1] / S::from(3.0)
    }
}

/// `∇V₃ = (2xy, x² − y²)`.
#[inline(always)]
fn grad_cubic(q: &Vector2<f64>) -> Vector2<f64> {
    Vector2::new(2.0 * q[0] * q[1], q[0] * q[0] - q[1] * q[1])
}

/// The same cubic with hand-written derivatives.
struct CubicByHand;
impl ScalarDerivatives<2> for CubicByHand {
    fn value(&self, q: &Vector2<f64>) -> f64 {
        q[0] * q[0] * q[1] - q[1] * q[1] * q[1] / 3.0
    }
    #[inline]
    fn gradient(&self, q: &Vector2<f64>) -> Vector2<f64> {
        grad_cubic(q)
    }
    fn hessian(&self, q: &Vector2<f64>) -> SMatrix<f64, 2, 2> {
        SMatrix::<f64, 2, 2>::new(2.0 * q[1], 2.0 * q[0], 2.0 * q[0], -2.0 * q[1])
    }
}

fn hh0() -> PhaseState<2> {
    PhaseState::new(Vector2::new(0.3, -0.2), Vector2::new(0.25, 0.3))
}

/// The oscillator's rotation by `ωt = t` (ω = 1), by hand.
#[inline(always)]
fn rotate(s: &mut PhaseState<2>, t: f64) {
    let (sin, cos) = t.sin_cos();
    let q = s.q * cos + s.p * sin;
    s.p = s.p * cos - s.q * sin;
    s.q = q;
}

/// One hand-written Strang step: rotate h/2, kick h, rotate h/2.
#[inline(always)]
fn strang_by_hand(s: &mut PhaseState<2>, h: f64) {
    rotate(s, 0.5 * h);
    s.p -= grad_cubic(&s.q) * h;
    rotate(s, 0.5 * h);
}

fn run<M: OneStep<PhaseState<2>> + ?Sized>(m: &M, s: &mut PhaseState<2>, n: usize) {
    for _ in 0..n {
        m.step(black_box(s), black_box(H)).unwrap();
    }
}

/// A hand-written universal-variable Kepler drift (μ = 1): Laguerre's iteration on Kepler's
/// equation from `s = t/r₀`, then the f and g functions.
#[inline(always)]
fn kepler_by_hand(s: &mut PhaseState<2>, t: f64) {
    let (q0, p0) = (s.q, s.p);
    let r0 = q0.norm();
    let eta = q0.dot(&p0);
    let beta = 2.0 / r0 - p0.norm_squared();
    let zeta = 1.0 - beta * r0;
    let mut x = t / r0;
    let (mut g1, mut g2, mut r) = (0.0, 0.0, r0);
    for _ in 0..20 {
        let [c0, c1, c2, c3] = stumpff(beta * x * x);
        g1 = x * c1;
        g2 = x * x * c2;
        let g3 = x * x * x * c3;
        let f = r0 * g1 + eta * g2 + g3 - t;
        r = r0 * c0 + eta * g1 + g2;
        let fpp = eta * c0 + zeta * g1;
        let dx = 5.0 * f / (r + (16.0 * r * r - 20.0 * f * fpp).abs().sqrt());
        if dx.abs() <= 4.0 * f64::EPSILON * x.abs() {
            break;
        }
        x -= dx;
    }
    let (fm1, g) = (-g2 / r0, r0 * g1 + eta * g2);
    let (fdot, gdm1) = (-g1 / (r * r0), -g2 / r);
    *s = PhaseState::new(q0 + (q0 * fm1 + p0 * g), p0 + (q0 * fdot + p0 * gdm1));
}

fn main() {
    let mut report = Report::new();
    let osc = Harmonic::new(1.0).unwrap();
    let by_hand = Splitting::new((osc, Kick(CubicByHand)), strang()).unwrap();
    let by_ad = Splitting::new((osc, Kick(AutoDiff(Cubic))), strang()).unwrap();
    // same trajectory as the hand loop
    let (mut a, mut b, mut c) = (hh0(), hh0(), hh0());
    for _ in 0..1000 {
        by_hand.step(&mut a, H).unwrap();
        by_ad.step(&mut c, H).unwrap();
        strang_by_hand(&mut b, H);
    }
    let d = |x: &PhaseState<2>, y: &PhaseState<2>| (x.q - y.q).amax().max((x.p - y.p).amax());
    assert!(d(&a, &b) <= 1e-13 && d(&c, &b) <= 1e-13, "{} {}", d(&a, &b), d(&c, &b));

    let hand = |n: usize, s: &mut PhaseState<2>| {
        for _ in 0..n {
            strang_by_hand(black_box(s), black_box(H));
        }
    };
    let (mut s1, mut s2) = (hh0(), hh0());
    report.case("hh_strang_step", 1.3, STEPS, |n| run(&by_hand, &mut s1, n), |n| hand(n, &mut s2));
    let (mut s1, mut s2) = (hh0(), hh0());
    report.case(
        "hh_strang_step_n",
        1.3,
        STEPS,
        |n| by_hand.step_n(black_box(&mut s1), black_box(H), n).unwrap(),
        |n| hand(n, &mut s2),
    );
    let boxed: Box<dyn OneStep<PhaseState<2>>> = Box::new(Splitting::new((osc, Kick(CubicByHand)), strang()).unwrap());
    let (mut s1, mut s2) = (hh0(), hh0());
    report.case("hh_strang_box_dyn", 1.3, STEPS, |n| run(boxed.as_ref(), &mut s1, n), |n| hand(n, &mut s2));
    let (mut s1, mut s2) = (hh0(), hh0());
    report.case("hh_strang_autodiff", 1.5, STEPS, |n| run(&by_ad, &mut s1, n), |n| hand(n, &mut s2));

    // Blanes–Moan S6: 13 sub-flows per step, against the same 13 written by hand
    let s6 = Splitting::new((osc, Kick(CubicByHand)), blanes_moan_s6()).unwrap();
    let stages: Vec<(usize, f64)> = s6.stages().to_vec();
    let s6_by_hand = |s: &mut PhaseState<2>, h: f64| {
        for &(k, c) in &stages {
            if k == 0 {
                rotate(s, c * h);
            } else {
                s.p -= grad_cubic(&s.q) * (c * h);
            }
        }
    };
    let (mut a, mut b) = (hh0(), hh0());
    for _ in 0..1000 {
        s6.step(&mut a, H).unwrap();
        s6_by_hand(&mut b, H);
    }
    assert!(d(&a, &b) <= 1e-13);
    let (mut s1, mut s2) = (hh0(), hh0());
    report.case(
        "hh_blanes_moan_s6_step",
        1.3,
        STEPS / 4,
        |n| run(&s6, &mut s1, n),
        |n| {
            for _ in 0..n {
                s6_by_hand(black_box(&mut s2), black_box(H));
            }
        },
    );

    // the Kepler drift against the hand-written solver
    let kepler = KeplerDrift::new(1.0).unwrap();
    let k0 = PhaseState::new(Vector2::new(0.5, 0.0), Vector2::new(0.0, 3f64.sqrt()));
    let (mut a, mut b) = (k0, k0);
    for _ in 0..1000 {
        kepler.flow(&mut a, H).unwrap();
        kepler_by_hand(&mut b, H);
    }
    assert!(d(&a, &b) <= 1e-11, "{}", d(&a, &b));
    let (mut s1, mut s2) = (k0, k0);
    report.case(
        "kepler_drift_flow",
        1.3,
        STEPS,
        |n| {
            for _ in 0..n {
                kepler.flow(black_box(&mut s1), black_box(H)).unwrap();
            }
        },
        |n| {
            for _ in 0..n {
                kepler_by_hand(black_box(&mut s2), black_box(H));
            }
        },
    );
    report.print("splitting methods (Hénon–Heiles h = 0.05; Kepler e = 0.5, t = 0.05): ratio case project_ns reference_ns ratio target");
}
