//! The Wisdom–Holman family of `integrators::splitting` on the outer solar system (the
//! catalogue's `outer-solar-system`: the Sun and five planets of HLW §I.2.4, h = 10 days), each
//! timed interleaved with a hand-written loop of the same equations in the same process
//! (`common::ratio`), printing `ratio <case> <project ns/step> <reference ns/step> <ratio> <target>`:
//!
//! * `WisdomHolman::whfast` through `OneStep::step` on the inertial state: to Jacobi
//!   coordinates, `φ^K_{h/2} ∘ φ^I_h ∘ φ^K_{h/2}`, back; against the same written by hand on
//!   plain arrays (the Jacobi transform, a universal-variable Kepler solver — Laguerre's
//!   iteration from `t/r₀`, no bracket, no period reduction, no error checks — and the pair
//!   loop of the kick), target 1.3;
//! * SABA4 (4 kicks and 5 drifts per step) against its stages by hand, target 1.3;
//! * `whfast` as the workbench runs it, `ProcessedWisdomHolman` of the map with the corrector of
//!   order 17: `OneStep::step` on the mapping variable in Jacobi coordinates, `φ^K_h` then
//!   `φ^I_h` (one drift and one kick, no change of coordinates; the corrector only at output),
//!   against the same two sub-flows by hand on Jacobi arrays, target 1.3;
//! * the corrector of order 17 and SABAC4, timed against the plain method (their cost, for
//!   the record; target: the number of sub-flows they add).
//!
//! Run: `cargo bench --bench wisdom_holman`.

mod common;

use common::ratio::Report;
use geom_core::step::{OneStep, PhaseState};
use geomint::workbench::catalogue::canonical::{CanonicalSystem, G_SOLAR, OuterSolarSystem, SOLAR_MASSES};
use integrators::splitting::{JacobiState, ProcessedWisdomHolman, WisdomHolman, saba, stumpff};
use std::hint::black_box;

const H: f64 = 10.0;
const STEPS: usize = 5_000;
const B: usize = 6;

type V3 = [f64; 3];

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn axpy(y: &mut V3, a: f64, x: V3) {
    for k in 0..3 {
        y[k] += a * x[k];
    }
}
fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The outer solar system written by hand: masses, `G m_i`, `η_i` and the Jacobi transforms.
struct ByHand {
    m: [f64; B],
    gm: [f64; B],
    eta: [f64; B],
}

impl ByHand {
    fn new() -> Self {
        let m = SOLAR_MASSES;
        let mut eta = [0.0; B];
        let mut sum = 0.0;
        for i in 0..B {
            sum += m[i];
            eta[i] = sum;
        }
        Self { m, gm: m.map(|x| G_SOLAR * x), eta }
    }
    #[inline(always)]
    fn to_jacobi(&self, x: &[V3; B]) -> [V3; B] {
        let mut out = [[0.0; 3]; B];
        let mut r = x[0];
        for i in 1..B {
            out[i] = sub(x[i], r);
            axpy(&mut r, self.m[i] / self.eta[i], out[i]);
        }
        out[0] = r;
        out
    }
    #[inline(always)]
    fn to_inertial(&self, q: &[V3; B]) -> [V3; B] {
        let mut out = [[0.0; 3]; B];
        let mut r = q[0];
        for i in (1..B).rev() {
            axpy(&mut r, -self.m[i] / self.eta[i], q[i]);
            out[i] = q[i];
            axpy(&mut out[i], 1.0, r);
        }
        out[0] = r;
        out
    }
    /// Universal-variable Kepler drift of `(q, v)` about `μ` for time `t`.
    #[inline(always)]
    fn kepler(q: &mut V3, v: &mut V3, mu: f64, t: f64) {
        let (q0, v0) = (*q, *v);
        let r0 = dot(q0, q0).sqrt();
        let eta = dot(q0, v0);
        let beta = 2.0 * mu / r0 - dot(v0, v0);
        let zeta = mu - beta * r0;
        let mut x = t / r0;
        let (mut g1, mut g2, mut r) = (0.0, 0.0, r0);
        for _ in 0..20 {
            let [c0, c1, c2, c3] = stumpff(beta * x * x);
            g1 = x * c1;
            g2 = x * x * c2;
            let g3 = x * x * x * c3;
            let f = r0 * g1 + eta * g2 + mu * g3 - t;
            r = r0 * c0 + eta * g1 + mu * g2;
            let fpp = eta * c0 + zeta * g1;
            let dx = 5.0 * f / (r + (16.0 * r * r - 20.0 * f * fpp).abs().sqrt());
            if dx.abs() <= 4.0 * f64::EPSILON * x.abs() {
                break;
            }
            x -= dx;
        }
        let (fm1, g) = (-mu * g2 / r0, r0 * g1 + eta * g2);
        let (fdot, gdm1) = (-mu * g1 / (r * r0), -mu * g2 / r);
        for k in 0..3 {
            q[k] = q0[k] + (q0[k] * fm1 + v0[k] * g);
            v[k] = v0[k] + (q0[k] * fdot + v0[k] * gdm1);
        }
    }
    #[inline(always)]
    fn drift(&self, q: &mut [V3; B], v: &mut [V3; B], t: f64) {
        let v0 = v[0];
        axpy(&mut q[0], t, v0);
        for i in 1..B {
            Self::kepler(&mut q[i], &mut v[i], G_SOLAR * self.eta[i], t);
        }
    }
    #[inline(always)]
    fn kick(&self, q: &[V3; B], v: &mut [V3; B], t: f64) {
        let x = self.to_inertial(q);
        let mut a = [[0.0; 3]; B];
        for i in 0..B {
            for j in (i + 1).max(if i == 0 { 2 } else { 0 })..B {
                let d = sub(x[j], x[i]);
                let r2 = dot(d, d);
                let inv3 = 1.0 / (r2 * r2.sqrt());
                axpy(&mut a[i], self.gm[j] * inv3, d);
                axpy(&mut a[j], -self.gm[i] * inv3, d);
            }
        }
        let aj = self.to_jacobi(&a);
        for i in 1..B {
            let mut ai = aj[i];
            if i >= 2 {
                let r2 = dot(q[i], q[i]);
                axpy(&mut ai, G_SOLAR * self.eta[i] / (r2 * r2.sqrt()), q[i]);
            }
            axpy(&mut v[i], t, ai);
        }
    }
    /// One step of the stages `(k, c)` (0 = drift, 1 = kick) on the inertial state.
    #[inline(always)]
    fn step(&self, s: &mut PhaseState<18>, stages: &[(usize, f64)], h: f64) {
        let x: [V3; B] = std::array::from_fn(|i| std::array::from_fn(|k| s.q[3 * i + k]));
        let w: [V3; B] = std::array::from_fn(|i| std::array::from_fn(|k| s.p[3 * i + k] / self.m[i]));
        let (mut q, mut v) = (self.to_jacobi(&x), self.to_jacobi(&w));
        for &(part, c) in stages {
            if part == 0 {
                self.drift(&mut q, &mut v, c * h);
            } else {
                self.kick(&q, &mut v, c * h);
            }
        }
        let (x, w) = (self.to_inertial(&q), self.to_inertial(&v));
        for i in 0..B {
            for k in 0..3 {
                s.q[3 * i + k] = x[i][k];
                s.p[3 * i + k] = w[i][k] * self.m[i];
            }
        }
    }
}

/// The mapping variable by hand: Jacobi positions and velocities.
#[derive(Clone, Copy)]
struct JacobiArrays {
    q: [V3; B],
    v: [V3; B],
}

impl ByHand {
    /// One step of the processed kernel on Jacobi arrays: `φ^K_h`, then `φ^I_h`.
    #[inline(always)]
    fn kernel_step(&self, s: &mut JacobiArrays, h: f64) {
        self.drift(&mut s.q, &mut s.v, h);
        self.kick(&s.q, &mut s.v, h);
    }
}

fn run<M: OneStep<PhaseState<18>>>(m: &M, s: &mut PhaseState<18>, n: usize) {
    for _ in 0..n {
        m.step(black_box(s), black_box(H)).unwrap();
    }
}

fn main() {
    let mut report = Report::new();
    let model = OuterSolarSystem.hamiltonian();
    let x0 = OuterSolarSystem.initial();
    let hand = ByHand::new();
    let d = |x: &PhaseState<18>, y: &PhaseState<18>| {
        (0..18).map(|r| (x.q[r] - y.q[r]).abs().max((x.p[r] - y.p[r]).abs() / SOLAR_MASSES[r / 3])).fold(0.0, f64::max)
    };

    for (name, method, stages) in [
        ("whfast", WisdomHolman::whfast(&model).unwrap(), vec![(0, 0.5), (1, 1.0), (0, 0.5)]),
        ("saba4", WisdomHolman::saba(&model, 4).unwrap(), saba(4).unwrap().stages(2)),
    ] {
        // the same trajectory as the hand loop
        let (mut a, mut b) = (x0, x0);
        for _ in 0..1000 {
            method.step(&mut a, H).unwrap();
            hand.step(&mut b, &stages, H);
        }
        assert!(d(&a, &b) <= 1e-12, "{name}: {:.2e}", d(&a, &b));
        let (mut s1, mut s2) = (x0, x0);
        report.case(
            &format!("outer_solar_system_{name}_step"),
            1.3,
            STEPS,
            |n| run(&method, &mut s1, n),
            |n| {
                for _ in 0..n {
                    hand.step(black_box(&mut s2), &stages, black_box(H));
                }
            },
        );
    }

    // whfast as the workbench runs it: the processed kernel on Jacobi coordinates
    let corrected = WisdomHolman::whfast(&model).unwrap().with_corrector(17).unwrap();
    let processed = ProcessedWisdomHolman::new(corrected).unwrap();
    let y0: JacobiState<3, B> = processed.to_mapping(&x0, H).unwrap();
    let arrays = |y: &JacobiState<3, B>| JacobiArrays {
        q: std::array::from_fn(|i| std::array::from_fn(|k| y.q[i][k])),
        v: std::array::from_fn(|i| std::array::from_fn(|k| y.v[i][k])),
    };
    let (mut a, mut b) = (y0, arrays(&y0));
    for _ in 0..1000 {
        processed.step(&mut a, H).unwrap();
        hand.kernel_step(&mut b, H);
    }
    let gap = (0..B)
        .flat_map(|i| (0..3).map(move |k| (i, k)))
        .map(|(i, k)| (a.q[i][k] - b.q[i][k]).abs().max((a.v[i][k] - b.v[i][k]).abs()))
        .fold(0.0, f64::max);
    assert!(gap <= 1e-12, "processed kernel: {gap:.2e}");
    let (mut s1, mut s2) = (y0, arrays(&y0));
    report.case(
        "outer_solar_system_whfast_processed_step",
        1.3,
        STEPS,
        |n| {
            for _ in 0..n {
                processed.step(black_box(&mut s1), black_box(H)).unwrap();
            }
        },
        |n| {
            for _ in 0..n {
                hand.kernel_step(black_box(&mut s2), black_box(H));
            }
        },
    );

    // the cost of the refinements, against the plain method
    let plain = WisdomHolman::whfast(&model).unwrap();
    let corrected = WisdomHolman::whfast(&model).unwrap().with_corrector(17).unwrap();
    let (mut s1, mut s2) = (x0, x0);
    let extra = corrected.corrector().unwrap();
    let subflows = (extra.stages().len() + extra.inverse_stages().len() + 3) as f64 / 3.0;
    report.case(
        "whfast_corrector17_vs_whfast",
        subflows,
        STEPS / 10,
        |n| run(&corrected, &mut s1, n),
        |n| run(&plain, &mut s2, n),
    );
    let (saba4, sabac4) = (WisdomHolman::saba(&model, 4).unwrap(), WisdomHolman::sabac(&model, 4).unwrap());
    let (mut s1, mut s2) = (x0, x0);
    report.case("sabac4_vs_saba4", 11.0 / 9.0, STEPS, |n| run(&sabac4, &mut s1, n), |n| run(&saba4, &mut s2, n));
    report.print("Wisdom-Holman (outer solar system, h = 10 days): ratio case project_ns reference_ns ratio target");
}
