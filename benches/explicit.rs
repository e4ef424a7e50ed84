//! Explicit methods on Kepler (e = 0.6, h = 0.01) through every public route, each timed
//! interleaved with a hand-written loop of the same equations in the same process
//! (`common::ratio`), printing `ratio <case> <project ns/step> <reference ns/step> <ratio> <target>`:
//!
//! * Störmer–Verlet with hand-written derivatives through `StormerVerlet::step`, `Driver::run`,
//!   `Box<dyn OneStep>`, and the workbench's `Simulation::advance`, against a hand-written
//!   kick–drift–kick loop (target 1.2);
//! * the triple jump (order 4), Yoshida's order-6 composition and the order-10 sets of Kahan–Li
//!   (33 stages) and Sofroniou–Spaletta (35 stages) through `Composition`, against the same
//!   sequence of hand-written leapfrog sub-steps (target 1.2);
//! * Kahan–Li 8 through `VerletComposition` (merged kicks) against a hand-written loop of the same
//!   merged kicks (target 1.2), and against the plain `Composition` (for information);
//! * Störmer–Verlet with AD derivatives of a model written once (`AutoDiff::separable`) and of
//!   of `Separable<T, V>` (T and V written once each), against the hand-written loop (target 1.5).
//!
//! Run: `cargo bench --bench explicit`.

mod common;

use common::kepler::{Kepler, KeplerKinetic, KeplerModel, KeplerPotential, grad_v};
use common::ratio::Report;
use discretization::composition::{kahan_li8, kahan_li10, sofroniou_spaletta10, triple_jump, yoshida6};
use discretization::{Composition, OneStep, PhaseState};
use geom_core::function::{AutoDiff, Separable};
use integrators::classical::StormerVerlet;
use integrators::driver::Driver;
use integrators::verlet_composition::VerletComposition;
use nalgebra::Vector2;
use std::hint::black_box;

const H: f64 = 0.01;
const E: f64 = 0.6;
const STEPS: usize = 20_000;

fn initial() -> PhaseState<2> {
    PhaseState::new(Vector2::new(1.0 - E, 0.0), Vector2::new(0.0, ((1.0 + E) / (1.0 - E)).sqrt()))
}

/// The hand-written leapfrog: kick h/2, drift h, kick h/2.
#[inline]
fn leapfrog(s: &mut PhaseState<2>, h: f64) {
    leapfrog_with(s, h, grad_v);
}

/// The same leapfrog with the force `∇V` given.
#[inline(always)]
fn leapfrog_with(s: &mut PhaseState<2>, h: f64, grad_v: impl Fn(&Vector2<f64>) -> Vector2<f64>) {
    let p_half = s.p - grad_v(&s.q) * (0.5 * h);
    let q1 = s.q + p_half * h;
    *s = PhaseState::new(q1, p_half - grad_v(&q1) * (0.5 * h));
}

/// `n` steps of `m` (statically dispatched unless `M` is itself a trait object).
#[inline]
fn run_method<M: OneStep<PhaseState<2>> + ?Sized>(m: &M, s: &mut PhaseState<2>, n: usize) {
    for _ in 0..n {
        m.step(black_box(s), black_box(H)).unwrap();
    }
}

/// Kepler with the gravitational parameter `μ` as a runtime field, `H = |p|²/2 − μ/|q|`.
struct KeplerModelMu {
    mu: f64,
}

impl geom_core::function::PhaseSpaceFunction<2> for KeplerModelMu {
    #[inline]
    fn eval<S: geom_core::Scalar>(&self, q: &nalgebra::SVector<S, 2>, p: &nalgebra::SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip() * S::from(self.mu)
    }
}

fn main() {
    let mut report = Report::new();
    let sv = StormerVerlet::new(Kepler);
    // same trajectory as the hand loop
    let (mut a, mut b) = (initial(), initial());
    for _ in 0..1000 {
        sv.step(&mut a, H).unwrap();
        leapfrog(&mut b, H);
    }
    assert!((a.q - b.q).amax().max((a.p - b.p).amax()) <= 1e-12);

    let hand = |n: usize, s: &mut PhaseState<2>| {
        for _ in 0..n {
            leapfrog(black_box(s), black_box(H));
        }
    };
    let (mut s1, mut s2) = (initial(), initial());
    report.case("kepler_sv_step", 1.2, STEPS, |n| run_method(&sv, &mut s1, n), |n| hand(n, &mut s2));
    let driver = Driver::new(H).unwrap().sample_every(STEPS).unwrap();
    let (mut s1, mut s2) = (initial(), initial());
    report.case(
        "kepler_sv_driver_run",
        1.2,
        STEPS,
        |n| {
            s1 = driver.run(&sv, black_box(s1), n, &[]).unwrap().final_state;
        },
        |n| hand(n, &mut s2),
    );
    let boxed: Box<dyn OneStep<PhaseState<2>>> = Box::new(StormerVerlet::new(Kepler));
    let (mut s1, mut s2) = (initial(), initial());
    report.case("kepler_sv_box_dyn", 1.2, STEPS, |n| run_method(boxed.as_ref(), &mut s1, n), |n| hand(n, &mut s2));

    for (case, scheme) in [
        ("kepler_triple_jump_sv", triple_jump(2)),
        ("kepler_yoshida6_sv", yoshida6()),
        ("kepler_kahan_li10_sv", kahan_li10()),
        ("kepler_sofroniou_spaletta10_sv", sofroniou_spaletta10()),
    ] {
        let gammas: Vec<f64> = scheme.stages.iter().map(|s| s.coefficient()).collect();
        let comp = Composition::new(StormerVerlet::new(Kepler), scheme).unwrap();
        let (mut a, mut b) = (initial(), initial());
        for _ in 0..1000 {
            comp.step(&mut a, H).unwrap();
            for g in &gammas {
                leapfrog(&mut b, g * H);
            }
        }
        assert!((a.q - b.q).amax().max((a.p - b.p).amax()) <= 1e-12, "{case}");
        let (mut s1, mut s2) = (initial(), initial());
        report.case(
            case,
            1.2,
            STEPS / gammas.len(),
            |n| run_method(&comp, &mut s1, n),
            |n| {
                for _ in 0..n {
                    for g in &gammas {
                        leapfrog(black_box(&mut s2), black_box(g * H));
                    }
                }
            },
        );
    }

    // Kahan–Li 8 through `VerletComposition` (kicks merged between stages: 18 force evaluations
    // per step instead of 34) against a hand-written loop of the same merged kicks
    let scheme = kahan_li8();
    let gammas: Vec<f64> = scheme.stages.iter().map(|s| s.coefficient()).collect();
    let merged = VerletComposition::new(Kepler, scheme.clone()).unwrap();
    let plain = Composition::new(StormerVerlet::new(Kepler), scheme).unwrap();
    let merged_by_hand = |s: &mut PhaseState<2>, h: f64| {
        let (mut q, mut p) = (s.q, s.p);
        p -= grad_v(&q) * (0.5 * gammas[0] * h);
        for (i, g) in gammas.iter().enumerate() {
            q += p * (g * h);
            let next = gammas.get(i + 1).copied().unwrap_or(0.0);
            p -= grad_v(&q) * (0.5 * (g + next) * h);
        }
        *s = PhaseState::new(q, p);
    };
    let (mut a, mut b, mut c) = (initial(), initial(), initial());
    for _ in 0..1000 {
        merged.step(&mut a, H).unwrap();
        plain.step(&mut b, H).unwrap();
        merged_by_hand(&mut c, H);
    }
    assert!((a.q - b.q).amax().max((a.p - b.p).amax()) <= 1e-12);
    assert!((a.q - c.q).amax().max((a.p - c.p).amax()) <= 1e-12);
    let (mut s1, mut s2) = (initial(), initial());
    report.case(
        "kepler_kahan_li8_verlet_composition",
        1.2,
        STEPS / gammas.len(),
        |n| run_method(&merged, &mut s1, n),
        |n| {
            for _ in 0..n {
                merged_by_hand(black_box(&mut s2), black_box(H));
            }
        },
    );
    let (mut s1, mut s2) = (initial(), initial());
    // merged kicks must not cost more than the plain composition; on one latency-bound
    // trajectory they gain 6-8% (the two kicks at one point of the plain composition run in
    // parallel: docs/performance.md), not the 40% fewer force evaluations
    report.case(
        "kepler_kahan_li8_merged_vs_plain_composition",
        1.0,
        STEPS / gammas.len(),
        |n| run_method(&merged, &mut s1, n),
        |n| run_method(&plain, &mut s2, n),
    );

    let ad = StormerVerlet::new(AutoDiff::separable(KeplerModel));
    assert!(ad.name().contains("explicit"));
    let (mut s1, mut s2) = (initial(), initial());
    report.case("kepler_sv_autodiff_separable", 1.5, STEPS, |n| run_method(&ad, &mut s1, n), |n| hand(n, &mut s2));
    // the same model with a runtime parameter (`μ`, here 1), against the leapfrog with the same
    // runtime `μ` (the force `μ q/|q|³`)
    let mu = black_box(1.0);
    let ad_mu = StormerVerlet::new(AutoDiff::separable(KeplerModelMu { mu }));
    let force = |q: &Vector2<f64>| {
        let r2 = q.norm_squared();
        q * (mu / (r2 * r2.sqrt()))
    };
    let (mut s1, mut s2) = (initial(), initial());
    report.case(
        "kepler_sv_autodiff_separable_runtime_parameter",
        1.5,
        STEPS,
        |n| run_method(&ad_mu, &mut s1, n),
        |n| {
            for _ in 0..n {
                leapfrog_with(black_box(&mut s2), black_box(H), force);
            }
        },
    );
    let split = StormerVerlet::new(Separable::new(KeplerKinetic, KeplerPotential));
    assert!(split.name().contains("explicit"));
    let (mut s1, mut s2) = (initial(), initial());
    report.case(
        "kepler_sv_autodiff_separable_t_v",
        1.5,
        STEPS,
        |n| run_method(&split, &mut s1, n),
        |n| hand(n, &mut s2),
    );
    report.print("explicit methods on Kepler (h = 0.01, e = 0.6): ratio case project_ns reference_ns ratio target");
}
