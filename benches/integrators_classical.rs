//! The classical integrators of `integrators`, each beside a reference in the same run:
//!
//! * (a) ns per step of the 2-stage Gauss–Legendre method (`integrators::classical::Gauss2`) on
//!   Kepler (N = 2) with hand-written Kepler derivatives, against a hand-written Gauss-2 for
//!   Kepler: Newton on the same 8 stage increments `Z = (Zq₁, Zq₂, Zp₁, Zp₂)` from the same guess
//!   `Z_i = c_i h f(y)`, with the same convergence tests (residual `≤ 1e-14`, or a contracting step
//!   with error estimate `≤ 1e-14 (1 + |Z|)`), the 8×8 Jacobian factored by nalgebra's LU, and the
//!   same quadrature update `y₁ = y + h Σ b_i f(Y_i)`. For information, the same `Gauss2` with
//!   `AutoDiff` (num-dual) derivatives against the same reference (the criterion groups time the
//!   library's default Newton, simplified, against this full-Newton loop).
//! * (b) throughput of `Driver::run_ensemble` (rayon) for 32 Kepler trajectories × 500 steps of
//!   `Gauss2`, in a pool of 2 threads against a pool of 1 thread (ratio = t₂/t₁; speedup = t₁/t₂).
//! * (c) the ratio case `kepler_dop853_fixed_step`: one fixed step of DOP853
//!   (`integrators::dop853::Dop853::hamiltonian(Kepler)`, the route of the workbench)
//!   against a hand-written DOP853 step of the same coefficients on a plain `[f64; 4]`
//!   (`q₁, q₂, p₁, p₂`), the same 12 evaluations of `(p, −q/|q|³)` and the same sums (target 1.2).
//!
//! * (d) the `ratio` lines of Gauss–Legendre `s = 1` (the implicit midpoint rule), `2` and `3`
//!   (`kepler_gauss{s}_*`): the library's default Newton (simplified Newton with polishing) with
//!   hand-written derivatives, with `AutoDiff(model)` and with `AutoDiff::separable(model)`,
//!   against a hand-written Gauss (`HandGauss<S, 4S>`, the same loop as above, generic in `S`)
//!   with the same Newton, the same tests and the same final correction; and full Newton with
//!   `AutoDiff(model)` against the hand-written full Newton (`*_full_newton_*`). Before timing,
//!   every route is asserted to follow its hand-written step to 1e-12 over 1000 steps.
//! * (e) `kepler_polar_generalized_leapfrog_autodiff`: Störmer–Verlet of a non-separable `H`
//!   (HLW VI.3 (3.4), the generalized leapfrog), Kepler in polar coordinates
//!   `H = p_r²/2 + p_φ²/(2r²) − 1/r` by `AutoDiff`, against a hand-written generalized leapfrog
//!   with the same full Newton (two 2×2 solves, closed-form inverse) and the same guesses.
//!
//! The models are written as the examples and docs write them (`examples/kepler.rs`: one `eval`
//! generic over the scalar), with `#[inline]` on `eval` as docs/performance.md ("Build
//! settings") asks. `GEOMINT_CASE=substring` runs only the matching ratio cases of (d) and (e)
//! (for `perf record`).
//!
//! Each iteration of (a) advances 16 states spread along the orbit (e = 0.6) by one step of
//! h = 0.01, so ns/step = ns/iteration / 16.
//!
//! Run: `cargo bench --bench integrators_classical` (prints the ratio table at the end).

mod common;

use criterion::{Criterion, criterion_group};
use geom_core::Scalar;
use geom_core::function::{AutoDiff, PhaseSpaceFunction};
use geom_core::newton::{JacobianUpdate, NewtonOptions};
use integrators::classical::{Gauss2, GaussCollocation, StormerVerlet};
use integrators::dop853::{Coefficients, Dop853};
use integrators::driver::{Driver, with_threads};
use integrators::{OneStep, PhaseState};
use nalgebra::{Const, DimMin, Matrix2, SMatrix, SVector, Vector2};
use std::hint::black_box;

const H: f64 = 0.01;
const E: f64 = 0.6;
const STATES: usize = 16;

use common::kepler::{Kepler, KeplerModel, grad_hess_v, grad_v};

/// The hand-written reference: `S`-stage Gauss–Legendre for Kepler (`M = 4S` unknowns), f64
/// only, no generics over the model. Coefficients from Hairer, Nørsett, Wanner, *Solving Ordinary
/// Differential Equations I* (HLW Table II.1.1 lists the same), `s = 1, 2, 3`.
struct HandGauss<const S: usize, const M: usize> {
    a: [[f64; S]; S],
    b: [f64; S],
    c: [f64; S],
}

/// Gauss-2, the reference of the original lines.
type HandGauss2 = HandGauss<2, 8>;

impl HandGauss<1, 4> {
    /// The implicit midpoint rule: `a = 1/2`, `b = 1`, `c = 1/2`.
    fn new() -> Self {
        Self { a: [[0.5]], b: [1.0], c: [0.5] }
    }
}

impl HandGauss<2, 8> {
    fn new() -> Self {
        let r = 3f64.sqrt() / 6.0;
        Self { a: [[0.25, 0.25 - r], [0.25 + r, 0.25]], b: [0.5, 0.5], c: [0.5 - r, 0.5 + r] }
    }
}

impl HandGauss<3, 12> {
    fn new() -> Self {
        let r = 15f64.sqrt();
        Self {
            a: [
                [5.0 / 36.0, 2.0 / 9.0 - r / 15.0, 5.0 / 36.0 - r / 30.0],
                [5.0 / 36.0 + r / 24.0, 2.0 / 9.0, 5.0 / 36.0 - r / 24.0],
                [5.0 / 36.0 + r / 30.0, 2.0 / 9.0 + r / 15.0, 5.0 / 36.0],
            ],
            b: [5.0 / 18.0, 4.0 / 9.0, 5.0 / 18.0],
            c: [0.5 - r / 10.0, 0.5, 0.5 + r / 10.0],
        }
    }
}

impl<const S: usize, const M: usize> HandGauss<S, M>
where
    Const<M>: DimMin<Const<M>, Output = Const<M>>,
{
    /// The guess `Z_i = c_i h f(y)`: unknowns `x = (Zq₁..Zq_S, Zp₁..Zp_S) ∈ R^{4S}`.
    #[inline]
    fn guess(&self, q: &Vector2<f64>, p: &Vector2<f64>, h: f64) -> SVector<f64, M> {
        let g0 = grad_v(q);
        let mut x = SVector::<f64, M>::zeros();
        for i in 0..S {
            let (zq, zp) = (p * (self.c[i] * h), g0 * (-self.c[i] * h));
            x.fixed_rows_mut::<2>(2 * i).copy_from(&zq);
            x.fixed_rows_mut::<2>(2 * S + 2 * i).copy_from(&zp);
        }
        x
    }

    /// `F = (Zq_i − h Σ a_ij P_j, Zp_i + h Σ a_ij ∇V(Q_j))`, `Q_j = q + Zq_j`, `P_j = p + Zp_j`,
    /// and its Jacobian (`dFq_i/dZp_k = −h a_ik I`, `dFp_i/dZq_k = h a_ik ∇²V(Q_k)`) if asked.
    #[inline]
    fn residual(
        &self,
        q: &Vector2<f64>,
        p: &Vector2<f64>,
        h: f64,
        x: &SVector<f64, M>,
        jac: Option<&mut SMatrix<f64, M, M>>,
    ) -> SVector<f64, M> {
        let zq = |i: usize| x.fixed_rows::<2>(2 * i).into_owned();
        let zp = |i: usize| x.fixed_rows::<2>(2 * S + 2 * i).into_owned();
        let mut gs = [Vector2::zeros(); S];
        let mut hs = [Matrix2::zeros(); S];
        let want = jac.is_some();
        for k in 0..S {
            if want {
                (gs[k], hs[k]) = grad_hess_v(&(q + zq(k)));
            } else {
                gs[k] = grad_v(&(q + zq(k)));
            }
        }
        let ps: [Vector2<f64>; S] = core::array::from_fn(|k| p + zp(k));
        let mut f = SVector::<f64, M>::zeros();
        for i in 0..S {
            let mut fq = zq(i);
            let mut fp = zp(i);
            for k in 0..S {
                let ha = h * self.a[i][k];
                fq -= ps[k] * ha;
                fp += gs[k] * ha;
            }
            f.fixed_rows_mut::<2>(2 * i).copy_from(&fq);
            f.fixed_rows_mut::<2>(2 * S + 2 * i).copy_from(&fp);
        }
        if let Some(j) = jac {
            *j = SMatrix::<f64, M, M>::identity();
            for i in 0..S {
                for k in 0..S {
                    let ha = h * self.a[i][k];
                    for d in 0..2 {
                        j[(2 * i + d, 2 * S + 2 * k + d)] -= ha;
                    }
                    j.fixed_view_mut::<2, 2>(2 * S + 2 * i, 2 * k).copy_from(&(hs[k] * ha));
                }
            }
        }
        f
    }

    /// The quadrature update `y₁ = y + h Σ b_i f(Y_i)`.
    #[inline]
    fn update(&self, q: &Vector2<f64>, p: &Vector2<f64>, h: f64, x: &SVector<f64, M>) -> (Vector2<f64>, Vector2<f64>) {
        let (mut dq, mut dp) = (Vector2::zeros(), Vector2::zeros());
        for i in 0..S {
            let qi = q + x.fixed_rows::<2>(2 * i);
            let pi = p + x.fixed_rows::<2>(2 * S + 2 * i);
            dq += pi * (h * self.b[i]);
            dp -= grad_v(&qi) * (h * self.b[i]);
        }
        (q + dq, p + dp)
    }

    /// One step by full Newton: the Jacobian and nalgebra's LU at every iterate, accepted on the
    /// residual `≤ 1e-14` or on a contracting step with error estimate `≤ 1e-14 (1 + |Z|)`.
    #[inline]
    fn step(&self, q: &Vector2<f64>, p: &Vector2<f64>, h: f64) -> (Vector2<f64>, Vector2<f64>) {
        let mut x = self.guess(q, p, h);
        let mut previous: Option<f64> = None;
        let mut j = SMatrix::<f64, M, M>::zeros();
        for _ in 0..50 {
            let f = self.residual(q, p, h, &x, Some(&mut j));
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
        self.update(q, p, h, &x)
    }

    /// One step by simplified Newton with the tests of `geom_core::newton` for a frozen Jacobian
    /// and final polishing (`NewtonOptions::simplified`): the Jacobian and its LU at the first
    /// iterate only, re-evaluated after a step that contracts by less than `θ = 0.5`; accepted on
    /// the residual `≤ 1e-14` (then one more solve with the factored Jacobian, unless predicted
    /// below half an ulp of `|Z|`), on the contraction-checked step, or on a stalled residual
    /// within `100 × 1e-14`.
    #[inline]
    fn step_simplified(&self, q: &Vector2<f64>, p: &Vector2<f64>, h: f64) -> (Vector2<f64>, Vector2<f64>) {
        let mut x = self.guess(q, p, h);
        let (mut previous, mut previous_r): (Option<f64>, Option<f64>) = (None, None);
        let mut last_step = 0.0;
        let mut lu = None;
        let mut j = SMatrix::<f64, M, M>::zeros();
        for _ in 0..50 {
            let f = if lu.is_none() {
                let f = self.residual(q, p, h, &x, Some(&mut j));
                lu = Some(j.lu());
                f
            } else {
                self.residual(q, p, h, &x, None)
            };
            let r = f.amax();
            let fac = lu.as_ref().expect("factored");
            if r <= 1e-14 {
                if !previous_r.is_some_and(|prev| r * last_step <= 0.5 * f64::EPSILON * x.amax() * prev) {
                    x -= fac.solve(&f).expect("nonsingular");
                }
                break;
            }
            let dx = -fac.solve(&f).expect("nonsingular");
            x += dx;
            let s = dx.amax();
            last_step = s;
            if previous_r.replace(r).is_some_and(|prev| r > 0.5 * prev) && r <= 100.0 * 1e-14 {
                break;
            }
            if let Some(prev) = previous.replace(s) {
                let theta = s / prev;
                if theta < 1.0 && (theta / (1.0 - theta)).max(1.0) * s <= 1e-14 * (1.0 + x.amax()) {
                    break;
                }
                if theta > 0.5 {
                    lu = None;
                }
            }
        }
        self.update(q, p, h, &x)
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

/// Kepler in polar coordinates `q = (r, φ)`, `p = (p_r, p_φ)`, a non-separable Hamiltonian
/// `H = p_r²/2 + p_φ²/(2r²) − 1/r`, written once over the scalar as the examples and docs write a
/// model (`examples/kepler.rs`, with `#[inline]` on `eval` as docs/performance.md "Build
/// settings" and the benches' other models do).
struct PolarKepler;

impl PhaseSpaceFunction<2> for PolarKepler {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        let r = q[0];
        (p[0] * p[0] + p[1] * p[1] / (r * r)) * S::from(0.5) - r.recip()
    }
}

/// Hand-written polar Kepler: `H_q = (1/r² − p_φ²/r³, 0)`, `H_p = (p_r, p_φ/r²)`, and the only
/// nonzero entry of the mixed block, `∂²H/∂r∂p_φ = −2 p_φ/r³`.
#[inline]
fn polar_hq(q: &Vector2<f64>, p: &Vector2<f64>) -> Vector2<f64> {
    let ir = 1.0 / q[0];
    let ir2 = ir * ir;
    Vector2::new(ir2 - p[1] * p[1] * ir2 * ir, 0.0)
}
#[inline]
fn polar_hp(q: &Vector2<f64>, p: &Vector2<f64>) -> Vector2<f64> {
    let ir = 1.0 / q[0];
    Vector2::new(p[0], p[1] * ir * ir)
}
#[inline]
fn polar_hqp(q: &Vector2<f64>, p: &Vector2<f64>) -> Matrix2<f64> {
    let ir = 1.0 / q[0];
    Matrix2::new(0.0, -2.0 * p[1] * ir * ir * ir, 0.0, 0.0)
}

/// Full Newton on `R²` with the tests of `geom_core::newton` (`NewtonOptions::integrator`): the
/// Jacobian with every residual, the 2×2 inverse in closed form; accepted on the residual
/// `≤ 1e-14`, on a contracting step with error estimate `≤ 1e-14 (1 + |x|)`, or on a stalled
/// residual within `100 × 1e-14`.
#[inline]
fn hand_newton2(mut f: impl FnMut(&Vector2<f64>) -> (Vector2<f64>, Matrix2<f64>), x0: Vector2<f64>) -> Vector2<f64> {
    let mut x = x0;
    let (mut previous, mut previous_r): (Option<f64>, Option<f64>) = (None, None);
    for _ in 0..50 {
        let (fx, j) = f(&x);
        let r = fx.amax();
        if r <= 1e-14 {
            break;
        }
        let dx = -(j.try_inverse().expect("nonsingular") * fx);
        x += dx;
        let s = dx.amax();
        if previous_r.replace(r).is_some_and(|prev| r > 0.5 * prev) && r <= 100.0 * 1e-14 {
            break;
        }
        if let Some(prev) = previous.replace(s) {
            let theta = s / prev;
            if theta < 1.0 && (theta / (1.0 - theta)).max(1.0) * s <= 1e-14 * (1.0 + x.amax()) {
                break;
            }
        }
    }
    x
}

/// The hand-written generalized leapfrog (Störmer–Verlet for a general `H`, HLW VI.3 (3.4)) on
/// polar Kepler, with `c = h/2`:
/// `p_{1/2} = p − c H_q(q, p_{1/2})` (Newton matrix `I + c H_qp`),
/// `q₁ = q + c (H_p(q, p_{1/2}) + H_p(q₁, p_{1/2}))` (Newton matrix `I − c H_pq`),
/// `p₁ = p_{1/2} − c H_q(q₁, p_{1/2})`, solved for the increments as the library does
/// (symplectic Euler A then B with `h/2`), from the same guesses: `δp = −c H_q(q, p)`, and for the
/// second half the first half's drift `c H_p(q, p_{1/2})`.
#[inline]
fn hand_leapfrog(q: &Vector2<f64>, p: &Vector2<f64>, h: f64) -> (Vector2<f64>, Vector2<f64>) {
    let c = 0.5 * h;
    let id = Matrix2::identity();
    let dp = hand_newton2(|x| (x + polar_hq(q, &(p + x)) * c, id + polar_hqp(q, &(p + x)) * c), polar_hq(q, p) * -c);
    let p_half = p + dp;
    let (dq1, dp1) = (polar_hp(q, &p_half) * c, polar_hq(q, &p_half) * -c);
    let (qm, pm) = (q + dq1, p + dp1);
    let dq = hand_newton2(|x| (x - polar_hp(&(qm + x), &pm) * c, id - polar_hqp(&(qm + x), &pm).transpose() * c), dq1);
    let q_end = qm + dq;
    let (dq2, dp2) = (polar_hp(&q_end, &pm) * c, polar_hq(&q_end, &pm) * -c);
    (q + (dq1 + dq2), p + (dp1 + dp2))
}

/// The start of the polar orbit (the Cartesian `start()`): `r = 1 − e`, `φ = 0`, `p_r = 0`,
/// `p_φ = √(1 − e²)`.
fn polar_start() -> PhaseState<2> {
    PhaseState::new(Vector2::new(1.0 - E, 0.0), Vector2::new(0.0, (1.0 - E * E).sqrt()))
}

/// `max(|Δq|, |Δp|)` after `steps` steps of a route and of a hand-written step from `s0`.
fn disagreement(
    route: &dyn OneStep<PhaseState<2>>,
    hand: impl Fn(&Vector2<f64>, &Vector2<f64>, f64) -> (Vector2<f64>, Vector2<f64>),
    s0: PhaseState<2>,
    steps: usize,
) -> f64 {
    let (mut a, mut b) = (s0, s0);
    for _ in 0..steps {
        route.step(&mut a, H).unwrap();
        let (q, p) = hand(&b.q, &b.p, H);
        b = PhaseState::new(q, p);
    }
    (a.q - b.q).amax().max((a.p - b.p).amax())
}

/// One `ratio` line: `route` against the hand-written step `hand`, each on its own trajectory from
/// `s0`, after asserting that the two agree to `1e-12` over 1000 steps.
fn case(
    report: &mut common::ratio::Report,
    name: &str,
    target: f64,
    route: &dyn OneStep<PhaseState<2>>,
    hand: impl Fn(&Vector2<f64>, &Vector2<f64>, f64) -> (Vector2<f64>, Vector2<f64>),
    s0: PhaseState<2>,
) {
    // `GEOMINT_CASE=substring`: run only the matching cases (e.g. under `perf record`)
    if std::env::var("GEOMINT_CASE").is_ok_and(|only| !name.contains(&only)) {
        return;
    }
    let d = disagreement(route, &hand, s0, 1000);
    assert!(d < 1e-12, "{name}: the route and the hand-written step differ by {d:e} after 1000 steps");
    let (mut a, mut b) = (s0, s0);
    report.case(
        name,
        target,
        1000,
        |n| {
            for _ in 0..n {
                route.step(black_box(&mut a), H).unwrap();
            }
        },
        |n| {
            for _ in 0..n {
                let (q, p) = hand(&black_box(b).q, &b.p, H);
                b = PhaseState::new(q, p);
            }
        },
    );
}

/// The hand-written Gauss step with the same Newton as `options` (full, or simplified with
/// polishing).
fn hand_gauss<'a, const S: usize, const M: usize>(
    hand: &'a HandGauss<S, M>,
    options: &NewtonOptions,
) -> impl Fn(&Vector2<f64>, &Vector2<f64>, f64) -> (Vector2<f64>, Vector2<f64>) + 'a
where
    Const<M>: DimMin<Const<M>, Output = Const<M>>,
{
    let simplified = options.jacobian == JacobianUpdate::Frozen;
    assert!(!simplified || options.polish, "the hand-written simplified Newton polishes");
    move |q, p, h| if simplified { hand.step_simplified(q, p, h) } else { hand.step(q, p, h) }
}

/// The `ratio` lines of one Gauss method: the library's default Newton with hand derivatives,
/// `AutoDiff(model)` and `AutoDiff::separable(model)` against the hand-written step with the same
/// Newton; and full Newton with `AutoDiff(model)` against the hand-written full Newton.
fn gauss_cases<const S: usize, const B: usize, const M: usize>(
    report: &mut common::ratio::Report,
    label: &str,
    hand: &HandGauss<S, M>,
    targets: [f64; 4],
) where
    Const<M>: DimMin<Const<M>, Output = Const<M>>,
{
    let g = GaussCollocation::<_, S, B>::new(Kepler).expect("Gauss");
    let g_ad = GaussCollocation::<_, S, B>::new(AutoDiff(KeplerModel)).expect("Gauss");
    let g_sep = GaussCollocation::<_, S, B>::new(AutoDiff::separable(KeplerModel)).expect("Gauss");
    let full = NewtonOptions::integrator();
    let g_ad_full = GaussCollocation::<_, S, B>::new(AutoDiff(KeplerModel)).expect("Gauss").with_newton(full);
    let default = hand_gauss(hand, g.newton_options());
    let s0 = start();
    if std::env::var("GEOMINT_CASE").is_ok_and(|only| !format!("kepler_{label}_").contains(&only)) {
        return;
    }
    // the default Newton follows the full-Newton trajectory
    let d = disagreement(&g_ad, hand_gauss(hand, &full), s0, 1000);
    assert!(d < 1e-12, "{label}: default Newton vs hand-written full Newton, {d:e} after 1000 steps");
    case(report, &format!("kepler_{label}_hand_derivatives"), targets[0], &g, &default, s0);
    case(report, &format!("kepler_{label}_autodiff"), targets[1], &g_ad, &default, s0);
    case(report, &format!("kepler_{label}_autodiff_separable"), targets[2], &g_sep, &default, s0);
    case(
        report,
        &format!("kepler_{label}_full_newton_autodiff_vs_hand_full"),
        targets[3],
        &g_ad_full,
        hand_gauss(hand, &full),
        s0,
    );
}

/// The `ratio` lines: one trajectory per route, interleaved with its reference.
fn ratios() {
    let mut report = common::ratio::Report::new();
    // (a) Gauss s = 2 (the original lines: the library's default Newton against the hand-written
    // step with the same Newton), s = 1 (the implicit midpoint rule) and s = 3
    gauss_cases::<2, 4, 8>(&mut report, "gauss2", &HandGauss2::new(), [1.3, 1.5, 1.5, 2.0]);
    gauss_cases::<1, 2, 4>(&mut report, "gauss1", &HandGauss::<1, 4>::new(), [1.3, 1.5, 1.5, 2.0]);
    gauss_cases::<3, 6, 12>(&mut report, "gauss3", &HandGauss::<3, 12>::new(), [1.3, 1.5, 1.5, 2.0]);
    // (d) the generalized leapfrog: Störmer–Verlet of the non-separable polar Kepler by AD (the
    // library's implicit form, full Newton) against the hand-written one with the same Newton
    let sv = StormerVerlet::new(AutoDiff(PolarKepler));
    assert!(sv.newton_options().jacobian == JacobianUpdate::EveryIteration && !sv.newton_options().polish);
    case(&mut report, "kepler_polar_generalized_leapfrog_autodiff", 2.0, &sv, hand_leapfrog, polar_start());
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
