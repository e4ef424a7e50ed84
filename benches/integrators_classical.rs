//! The classical integrators of `integrators`, each beside a reference in the same run:
//!
//! * (a) ns per step of the 2-stage Gauss–Legendre method (`integrators::classical::Gauss2`) on
//!   Kepler (N = 2) with hand-written Kepler derivatives, against a hand-written Gauss-2 for
//!   Kepler: Newton on the same 8 stage increments `Z = (Zq₁, Zq₂, Zp₁, Zp₂)` from the same guess
//!   `Z_i = c_i h f(y)`, with the same convergence tests (residual `≤ 1e-14`, or a contracting step
//!   with error estimate `≤ 1e-14 (1 + |Z|)`), the 8×8 Jacobian factored by nalgebra's LU, and the
//!   same quadrature update `y₁ = y + h Σ b_i f(Y_i)`. For information, the same `Gauss2` with
//!   `AutoDiff` (num-dual) derivatives against the same reference.
//! * (b) throughput of `Driver::run_ensemble` (rayon) for 32 Kepler trajectories × 500 steps of
//!   `Gauss2`, in a pool of 2 threads against a pool of 1 thread (ratio = t₂/t₁; speedup = t₁/t₂).
//! * (c) the ratio case `kepler_dop853_fixed_step`: one fixed step of DOP853
//!   (`integrators::dop853::Dop853::hamiltonian(Kepler)`, the route of the workbench)
//!   against a hand-written DOP853 step of the same coefficients on a plain `[f64; 4]`
//!   (`q₁, q₂, p₁, p₂`), the same 12 evaluations of `(p, −q/|q|³)` and the same sums (target 1.2).
//!
//! Each iteration of (a) advances 16 states spread along the orbit (e = 0.6) by one step of
//! h = 0.01, so ns/step = ns/iteration / 16.
//!
//! Run: `cargo bench --bench integrators_classical` (prints the ratio table at the end).

mod common;

use criterion::{Criterion, criterion_group};
use geom_core::function::AutoDiff;
use integrators::classical::Gauss2;
use integrators::dop853::{Coefficients, Dop853};
use integrators::driver::{Driver, with_threads};
use integrators::{OneStep, PhaseState};
use nalgebra::{SMatrix, SVector, Vector2};
use std::hint::black_box;

const H: f64 = 0.01;
const E: f64 = 0.6;
const STATES: usize = 16;

use common::kepler::{Kepler, KeplerModel, grad_hess_v, grad_v};

/// The hand-written reference: Gauss-2 for Kepler, f64 only, no generics.
struct HandGauss2 {
    a: [[f64; 2]; 2],
    b: [f64; 2],
    c: [f64; 2],
}

impl HandGauss2 {
    fn new() -> Self {
        let r = 3f64.sqrt() / 6.0;
        Self { a: [[0.25, 0.25 - r], [0.25 + r, 0.25]], b: [0.5, 0.5], c: [0.5 - r, 0.5 + r] }
    }

    /// One step: unknowns `x = (Zq₁, Zq₂, Zp₁, Zp₂) ∈ R⁸`,
    /// `F = (Zq_i − h Σ a_ij P_j, Zp_i + h Σ a_ij ∇V(Q_j))`, `Q_j = q + Zq_j`, `P_j = p + Zp_j`.
    #[inline]
    fn step(&self, q: &Vector2<f64>, p: &Vector2<f64>, h: f64) -> (Vector2<f64>, Vector2<f64>) {
        let g0 = grad_v(q);
        let mut x = SVector::<f64, 8>::zeros();
        for i in 0..2 {
            let (zq, zp) = (p * (self.c[i] * h), g0 * (-self.c[i] * h));
            x.fixed_rows_mut::<2>(2 * i).copy_from(&zq);
            x.fixed_rows_mut::<2>(4 + 2 * i).copy_from(&zp);
        }
        let mut previous: Option<f64> = None;
        for _ in 0..50 {
            let zq = |i: usize| x.fixed_rows::<2>(2 * i).into_owned();
            let zp = |i: usize| x.fixed_rows::<2>(4 + 2 * i).into_owned();
            let (g1, hq1) = grad_hess_v(&(q + zq(0)));
            let (g2, hq2) = grad_hess_v(&(q + zq(1)));
            let (gs, hs) = ([g1, g2], [hq1, hq2]);
            let ps = [p + zp(0), p + zp(1)];
            let mut f = SVector::<f64, 8>::zeros();
            let mut j = SMatrix::<f64, 8, 8>::identity();
            for i in 0..2 {
                let mut fq = zq(i);
                let mut fp = zp(i);
                for k in 0..2 {
                    let ha = h * self.a[i][k];
                    fq -= ps[k] * ha;
                    fp += gs[k] * ha;
                    // dFq_i/dZp_k = -h a_ik I, dFp_i/dZq_k = h a_ik ∇²V(Q_k)
                    for d in 0..2 {
                        j[(2 * i + d, 4 + 2 * k + d)] -= ha;
                    }
                    j.fixed_view_mut::<2, 2>(4 + 2 * i, 2 * k).copy_from(&(hs[k] * ha));
                }
                f.fixed_rows_mut::<2>(2 * i).copy_from(&fq);
                f.fixed_rows_mut::<2>(4 + 2 * i).copy_from(&fp);
            }
            if f.amax() <= 1e-14 {
                break;
            }
            let dx = -j.lu().solve(&f).expect("nonsingular");
            x += dx;
            let s = dx.amax();
            if let Some(prev) = previous {
                let theta = s / prev;
                if theta < 1.0 && s * (theta / (1.0 - theta)).max(1.0) <= 1e-14 * (1.0 + x.amax()) {
                    break;
                }
            }
            previous = Some(s);
        }
        let (mut dq, mut dp) = (Vector2::zeros(), Vector2::zeros());
        for i in 0..2 {
            let qi = q + x.fixed_rows::<2>(2 * i);
            let pi = p + x.fixed_rows::<2>(4 + 2 * i);
            dq += pi * (h * self.b[i]);
            dp -= grad_v(&qi) * (h * self.b[i]);
        }
        (q + dq, p + dp)
    }
}

/// The hand-written reference of (c): one DOP853 step on `[q₁, q₂, p₁, p₂]`, stage by stage, with
/// the published coefficients (compile-time constants) and Kepler's field written out.
#[inline]
fn hand_dop853_step(y: &mut [f64; 4], h: f64) {
    const C: Coefficients = Coefficients::DOP853;
    #[inline(always)]
    fn f(y: &[f64; 4]) -> [f64; 4] {
        let r2 = y[0] * y[0] + y[1] * y[1];
        let ir3 = 1.0 / (r2 * r2.sqrt());
        [y[2], y[3], -y[0] * ir3, -y[1] * ir3]
    }
    let mut k = [[0.0; 4]; 12];
    k[0] = f(y);
    // k_i = f(y + h Σ_j a_ij k_j), the sum over the nonzero a_ij of row i
    macro_rules! stage {
        ($i:expr; $($j:expr),+) => {{
            let mut yi = [0.0; 4];
            for d in 0..4 {
                yi[d] = y[d] + h * (0.0 $(+ C.a[$i][$j] * k[$j][d])+);
            }
            k[$i] = f(&yi);
        }};
    }
    stage!(1; 0);
    stage!(2; 0, 1);
    stage!(3; 0, 2);
    stage!(4; 0, 2, 3);
    stage!(5; 0, 3, 4);
    stage!(6; 0, 3, 4, 5);
    stage!(7; 0, 3, 4, 5, 6);
    stage!(8; 0, 3, 4, 5, 6, 7);
    stage!(9; 0, 3, 4, 5, 6, 7, 8);
    stage!(10; 0, 3, 4, 5, 6, 7, 8, 9);
    stage!(11; 0, 3, 4, 5, 6, 7, 8, 9, 10);
    let b = &C.b;
    for d in 0..4 {
        y[d] += h
            * (b[0] * k[0][d]
                + b[5] * k[5][d]
                + b[6] * k[6][d]
                + b[7] * k[7][d]
                + b[8] * k[8][d]
                + b[9] * k[9][d]
                + b[10] * k[10][d]
                + b[11] * k[11][d]);
    }
}

fn start() -> PhaseState<2> {
    PhaseState::new(Vector2::new(1.0 - E, 0.0), Vector2::new(0.0, ((1.0 + E) / (1.0 - E)).sqrt()))
}

/// 16 states spread along the orbit (every 40 steps of h).
fn states() -> Vec<PhaseState<2>> {
    let g = Gauss2::new(Kepler).expect("Gauss 2");
    let mut s = start();
    (0..STATES)
        .map(|_| {
            for _ in 0..40 {
                g.step(&mut s, H).expect("step");
            }
            s
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let xs = states();
    let gauss = Gauss2::new(Kepler).expect("Gauss 2");
    let gauss_ad = Gauss2::new(AutoDiff(KeplerModel)).expect("Gauss 2");
    let hand = HandGauss2::new();
    // same map: the two agree to round-off on every state
    for s in &xs {
        let mut a = *s;
        gauss.step(&mut a, H).expect("step");
        let (q, p) = hand.step(&s.q, &s.p, H);
        assert!((a.q - q).amax().max((a.p - p).amax()) < 1e-13, "hand-written Gauss-2 disagrees");
    }

    let mut g = c.benchmark_group("gauss2_kepler_step");
    g.bench_function("geomint", |b| {
        b.iter(|| {
            xs.iter().fold(0.0, |acc, s| {
                let mut s = *black_box(s);
                gauss.step(&mut s, H).expect("step");
                acc + s.q[0]
            })
        })
    });
    g.bench_function("geomint_autodiff", |b| {
        b.iter(|| {
            xs.iter().fold(0.0, |acc, s| {
                let mut s = *black_box(s);
                gauss_ad.step(&mut s, H).expect("step");
                acc + s.q[0]
            })
        })
    });
    g.bench_function("hand_written", |b| {
        b.iter(|| {
            xs.iter().fold(0.0, |acc, s| {
                let s = black_box(s);
                acc + hand.step(&s.q, &s.p, H).0[0]
            })
        })
    });
    g.finish();

    let initials: Vec<PhaseState<2>> = (0..32)
        .map(|i| {
            let e = 0.1 + 0.02 * i as f64;
            PhaseState::new(Vector2::new(1.0 - e, 0.0), Vector2::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()))
        })
        .collect();
    let driver = Driver::new(H).expect("h").sample_every(100).expect("every");
    let mut g = c.benchmark_group("ensemble_gauss2");
    g.sample_size(10);
    for threads in [1usize, 2] {
        g.bench_function(format!("threads_{threads}"), |b| {
            b.iter(|| {
                with_threads(threads, || {
                    driver
                        .run_ensemble(&gauss, black_box(&initials), 500, &[])
                        .into_iter()
                        .map(|r| r.expect("run").final_state.q[0])
                        .sum::<f64>()
                })
                .expect("pool")
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}

/// The `ratio` lines: one trajectory per route, interleaved with its reference.
fn ratios() {
    let mut report = common::ratio::Report::new();
    let hand = HandGauss2::new();
    let g = Gauss2::new(Kepler).expect("Gauss 2");
    let g_ad = Gauss2::new(AutoDiff(KeplerModel)).expect("Gauss 2");
    for (case, target, m) in [
        ("kepler_gauss2_hand_derivatives", 1.3, &g as &dyn OneStep<PhaseState<2>>),
        ("kepler_gauss2_autodiff", 2.0, &g_ad),
    ] {
        let (mut a, mut b) = (start(), start());
        report.case(
            case,
            target,
            1000,
            |n| {
                for _ in 0..n {
                    m.step(black_box(&mut a), H).unwrap();
                }
            },
            |n| {
                for _ in 0..n {
                    let (q, p) = hand.step(&black_box(b).q, &b.p, H);
                    b = PhaseState::new(q, p);
                }
            },
        );
    }
    // (c) DOP853, fixed step h = 0.05 (order 8: about 1e-9 per period at e = 0.6)
    let dop = Dop853::hamiltonian(Kepler);
    let h8 = 0.05;
    {
        // same map: the route and the hand-written step agree to round-off along the orbit
        let (mut a, mut b) = (start(), start());
        let mut y = [b.q[0], b.q[1], b.p[0], b.p[1]];
        for _ in 0..200 {
            dop.step(&mut a, h8).unwrap();
            hand_dop853_step(&mut y, h8);
        }
        b = PhaseState::new(Vector2::new(y[0], y[1]), Vector2::new(y[2], y[3]));
        assert!((a.q - b.q).amax().max((a.p - b.p).amax()) < 1e-12, "hand-written DOP853 disagrees");
    }
    let s0 = start();
    let (mut a, mut b) = (s0, [s0.q[0], s0.q[1], s0.p[0], s0.p[1]]);
    report.case(
        "kepler_dop853_fixed_step",
        1.2,
        2000,
        |n| {
            for _ in 0..n {
                dop.step(black_box(&mut a), black_box(h8)).unwrap();
            }
        },
        |n| {
            for _ in 0..n {
                hand_dop853_step(black_box(&mut b), black_box(h8));
            }
        },
    );
    report.print(
        "integrators, classical (Kepler, h = 0.01; DOP853 h = 0.05): ratio case project_ns reference_ns ratio target",
    );
}

fn main() {
    ratios();
    if std::env::var_os("GEOMINT_RATIOS_ONLY").is_some() {
        return;
    }
    benches();
    Criterion::default().final_summary();
    common::print_ratios(
        "integrators classical, 16 steps per iteration of (a) (ratio = geomint / reference; target <= 2)",
        &[
            ("Gauss-2 Kepler vs hand", "gauss2_kepler_step", "geomint", "hand_written"),
            ("Gauss-2 Kepler (AD) vs hand", "gauss2_kepler_step", "geomint_autodiff", "hand_written"),
            ("ensemble 2 thr vs 1 thr", "ensemble_gauss2", "threads_2", "threads_1"),
        ],
    );
    if let (Some(t1), Some(t2)) =
        (common::mean_ns("ensemble_gauss2", "threads_1"), common::mean_ns("ensemble_gauss2", "threads_2"))
    {
        let steps = 32.0 * 500.0;
        println!(
            "ensemble throughput: 1 thread {:.2e} steps/s, 2 threads {:.2e} steps/s, speedup {:.2}",
            steps / (t1 * 1e-9),
            steps / (t2 * 1e-9),
            t1 / t2
        );
    }
}
