//! ns per discrete Euler–Lagrange step of the `groupoid` crate, each beside a reference in the
//! same run:
//!
//! * (a) the pair groupoid `R³ × R³` with the midpoint discrete Lagrangian of a nonlinear
//!   potential, `L_d = h(½|v|² − V(q̄))`, `V(q) = −Σ cos q_i + ¼(q_0 q_1)² + q_2⁴/8`, through the
//!   generic [`DiscreteFlow::step`] (arrow `g_k = (q_{k−1}, q_k)` ↦ `g_{k+1}`: `F^+L(g_k)`, then
//!   Newton on the fibre coordinates with the mixed second derivative of `L` along the invariant
//!   curves) against
//!   * a hand-written variational-integrator step on `(q_k, p_k)`: Newton (the same
//!     `geom_core::newton::newton_blocks` with one block, same tolerances `1e-14`, same warm start
//!     `δ = q_k − q_{k−1}`) on `p_k + D_1L_d(q_k, q_k + δ) = 0` with residual and Jacobian
//!     `D_12L_d` from one `num_dual::partial_hessian` call (a gradient only where no Jacobian is
//!     needed), then `p_{k+1} = D_2L_d` (one gradient); target ratio ≤ 1.5;
//!   * for information, `integrators::variational::VariationalIntegrator` on the same `L_d` (its
//!     Newton starts from `δ = 0`, so it takes more iterations).
//! * (b) the free rigid body as discrete Euler–Poincaré on SO(3) with the Moser–Veselov
//!   Lagrangian (Cayley fibre chart) through [`DiscreteFlow::step`], against a hand-written
//!   Lee–Leok–McClamroch step: closed-form `Π_k = (1/h) vee(J_d W_k − W_kᵀ J_d)` (= `F^+L(W_k)`),
//!   then Newton (`newton_ad`, AD Jacobian of the closed-form residual) on
//!   `(1/h) vee(F J_d − J_d Fᵀ) = Π_k`, `F = cay(f)`, from `f = cay^{-1}(W_k)`.
//!
//! * (c) the Gauss–Lobatto SPARK method with two Gauss stages ([`SparkGauss2`], order 4) on the
//!   spherical pendulum `L = ½|v|² − z`, `c(q) = |q|² − 1`, against a hand-written step of the
//!   same equations with closed-form residual and Jacobian (the same `newton_blocks` with one
//!   block, options and start `V_i = p_0`, `ν = ι = 0`); target ratio ≤ 2. For information, the
//!   same step against RATTLE of the midpoint Lagrangian (order 2, 4 unknowns instead of 8).
//!
//! Both groups (a), (b) also run with the simplified Newton (`JacobianUpdate::Frozen`, one Jacobian per
//! step, then residual-only iterations) on both sides.
//!
//! Each iteration advances 16 states (spread along a trajectory) by one step, so
//! ns/step = ns/iteration / 16.
//!
//! Run: `cargo bench --bench groupoid` (prints the ratio table at the end).

mod common;

use common::rigid::hand_lgvi;

use criterion::{Criterion, criterion_group};
use discretization::{OneStep, PhaseState};
use geom_core::function::StepLagrangian;
use geom_core::lie::{Chart, So3, so3};
use geom_core::newton::{JacobianUpdate, NewtonOptions, Residual, newton_ad, newton_blocks};
use geom_core::scalar::mul_constant;
use geom_core::{Result, Scalar};
use groupoid::constraints::BaseConstraints;
use groupoid::integrator::{RattleIntegrator, SparkCoefficients, SparkGauss2, Stepped};
use groupoid::time_dependent::{ContinuousLagrangian, Midpoint as TimeMidpoint};
use groupoid::{DiscreteFlow, DiscreteLagrangian, GroupAsGroupoid, PairGroupoid, legendre_plus};
use integrators::variational::VariationalIntegrator;
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};
use num_dual::{DualSVec64, HyperDualSVec64};
use std::hint::black_box;

const N: usize = 3;
const H: f64 = 0.05;
const STATES: usize = 16;

/// `L_d(q_0, q_1) = h(½|v|² − V(q̄))` written once over the scalar.
fn midpoint_ld<S: Scalar>(q0: &SVector<S, N>, q1: &SVector<S, N>) -> S {
    let h = S::from(H);
    let v = (q1 - q0) / h;
    let q = (q0 + q1) * S::from(0.5);
    let pot =
        -(q[0].cos() + q[1].cos() + q[2].cos()) + (q[0] * q[1]).powi(2) * S::from(0.25) + q[2].powi(4) * S::from(0.125);
    (v.norm_squared() * S::from(0.5) - pot) * h
}

/// The discrete Lagrangian on the pair groupoid.
struct Midpoint;
impl DiscreteLagrangian<PairGroupoid<N>, N> for Midpoint {
    #[inline]
    fn eval<S: Scalar>(&self, _: &PairGroupoid<N>, g: &(SVector<S, N>, SVector<S, N>)) -> S {
        midpoint_ld(&g.0, &g.1)
    }
}
/// The same `L_d` as the family of the variational integrator (the bench steps with `H` only).
struct MidpointFamily;
impl StepLagrangian<N> for MidpointFamily {
    #[inline]
    fn eval<S: Scalar>(&self, q0: &SVector<S, N>, q1: &SVector<S, N>, _h: S) -> S {
        midpoint_ld(q0, q1)
    }
}

type V = SVector<f64, N>;
type Hd = HyperDualSVec64<N, N>;

/// Hand-written variational-integrator step `(q_k, p_k, δ_prev) ↦ (q_{k+1}, p_{k+1})`: block
/// Newton (one block) so that the warm-start test costs one gradient only.
fn vi_step(q: &V, p: &V, guess: &V, opts: &NewtonOptions) -> Result<(V, V, usize)> {
    let x = q.map(DualSVec64::<N>::from_re);
    let ([delta], report) = newton_blocks::<N, 1>(
        |d: &[V; 1], jac: Option<&mut [[SMatrix<f64, N, N>; 1]; 1]>| match jac {
            Some(j) => {
                let (_, d1, _, d12) = num_dual::partial_hessian(
                    |(x, y): (SVector<Hd, N>, SVector<Hd, N>)| midpoint_ld(&x, &y),
                    (q, &(q + d[0])),
                );
                j[0][0] = d12;
                Ok([p + d1])
            }
            None => {
                let y = (q + d[0]).map(DualSVec64::<N>::from_re);
                Ok([p + num_dual::gradient(|x: SVector<DualSVec64<N>, N>| midpoint_ld(&x, &y), q).1])
            }
        },
        &[*guess],
        opts,
    )?;
    let q1 = q + delta;
    let p1 = num_dual::gradient(|y: SVector<DualSVec64<N>, N>| midpoint_ld(&x, &y), &q1).1;
    Ok((q1, p1, report.iterations))
}

/// `J_d = ½ tr(I) Id − I`.
fn jd() -> Matrix3<f64> {
    let i = Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 2.5));
    Matrix3::identity() * (0.5 * i.trace()) - i
}

/// Moser–Veselov `L(W) = (1/h) tr((I − W) J_d)`, exactly as examples/rigid_body_moser_veselov.rs
/// writes it: `J_d` built by its function at every call and kept at `f64` by
/// `geom_core::scalar::mul_constant`.
struct MoserVeselov;
impl DiscreteLagrangian<GroupAsGroupoid<So3>, 3> for MoserVeselov {
    #[inline]
    fn eval<S: Scalar>(&self, _: &GroupAsGroupoid<So3>, w: &Matrix3<S>) -> S {
        mul_constant(&(Matrix3::identity() - w), &jd()).trace() * (1.0 / H)
    }
}

/// The same with `J_d` lifted to the scalar, a product of two matrices at the scalar (how the
/// example wrote it before `mul_constant`; information: what lifting a constant costs).
struct LiftedMoserVeselov;
impl DiscreteLagrangian<GroupAsGroupoid<So3>, 3> for LiftedMoserVeselov {
    #[inline]
    fn eval<S: Scalar>(&self, _: &GroupAsGroupoid<So3>, w: &Matrix3<S>) -> S {
        ((Matrix3::identity() - w) * jd().map(S::from)).trace() * S::from(1.0 / H)
    }
}

/// LLM residual `(1/h) vee(F J_d − J_d Fᵀ) − Π`, `F = cay(f)`.
struct Llm {
    pi: Vector3<f64>,
    jd: Matrix3<f64>,
}
impl Residual<3> for Llm {
    #[inline]
    fn eval<S: Scalar>(&self, f: &SVector<S, 3>) -> Result<SVector<S, 3>> {
        let w = so3::cayley(f);
        let jd = self.jd.map(S::from);
        Ok(so3::vee(&(w * jd - jd * w.transpose())) * S::from(1.0 / H) - self.pi.map(S::from))
    }
}

/// Hand-written LLM step `W_k ↦ W_{k+1}`.
fn llm_step(w: &Matrix3<f64>, jd: &Matrix3<f64>, opts: &NewtonOptions) -> Result<(Matrix3<f64>, usize)> {
    let pi = so3::vee(&(jd * w - w.transpose() * jd)) / H;
    let guess = so3::cayley_inv(w)?;
    let (f, report) = newton_ad(&Llm { pi, jd: *jd }, &guess, opts)?;
    Ok((so3::cayley(&f), report.iterations))
}

fn bench(c: &mut Criterion) {
    let opts = NewtonOptions { residual_tol: 1e-14, step_tol: 1e-14, ..NewtonOptions::default() };
    let frozen = opts.with_jacobian(JacobianUpdate::Frozen);

    // (a) 16 arrows along one trajectory, and the same states as (q_k, p_k, δ_{k-1})
    let flow = DiscreteFlow::new(PairGroupoid::<N>, Midpoint);
    let flow_frozen = DiscreteFlow::new(PairGroupoid::<N>, Midpoint).with_newton(frozen);
    let mut g = (V::from([0.5, -0.3, 1.0]), V::from([0.51, -0.29, 0.98]));
    let mut arrows = Vec::new();
    for k in 0..STATES * 8 {
        g = flow.step(&g).unwrap().0;
        if k % 8 == 0 {
            arrows.push(g);
        }
    }
    let states: Vec<(V, V, V)> =
        arrows.iter().map(|g| (g.1, legendre_plus(&PairGroupoid::<N>, &Midpoint, g), g.1 - g.0)).collect();
    let vi = VariationalIntegrator::new(MidpointFamily);
    // sanity: the three paths agree, and their Newton iteration counts
    let (mut it_g, mut it_h) = (0, 0);
    for (g, (q, p, d)) in arrows.iter().zip(&states) {
        let (next, rep) = flow.step(g).unwrap();
        let (q1, p1, it) = vi_step(q, p, d, &opts).unwrap();
        let mut s = PhaseState::new(*q, *p);
        vi.step(&mut s, H).unwrap();
        assert!((next.1 - q1).norm() < 1e-13 && (s.q - q1).norm() < 1e-13 && (s.p - p1).norm() < 1e-12);
        assert!((flow_frozen.step(g).unwrap().0.1 - q1).norm() < 1e-13);
        (it_g, it_h) = (it_g + rep.iterations, it_h + it);
    }
    println!(
        "pair R^3: Newton iterations per step: groupoid {:.2}, hand-written {:.2}",
        it_g as f64 / 16.0,
        it_h as f64 / 16.0
    );

    let mut grp = c.benchmark_group("del_pair_r3");
    grp.bench_function("groupoid", |b| {
        b.iter(|| arrows.iter().map(|g| flow.step(black_box(g)).unwrap().0.1[0]).sum::<f64>())
    });
    grp.bench_function("groupoid_frozen", |b| {
        b.iter(|| arrows.iter().map(|g| flow_frozen.step(black_box(g)).unwrap().0.1[0]).sum::<f64>())
    });
    grp.bench_function("hand_written", |b| {
        b.iter(|| {
            states.iter().map(|(q, p, d)| vi_step(black_box(q), black_box(p), d, &opts).unwrap().0[0]).sum::<f64>()
        })
    });
    grp.bench_function("hand_written_frozen", |b| {
        b.iter(|| {
            states.iter().map(|(q, p, d)| vi_step(black_box(q), black_box(p), d, &frozen).unwrap().0[0]).sum::<f64>()
        })
    });
    grp.bench_function("integrators_variational", |b| {
        b.iter(|| {
            states
                .iter()
                .map(|(q, p, _)| {
                    let mut s = PhaseState::new(*black_box(q), *black_box(p));
                    vi.step(&mut s, H).unwrap();
                    s.q[0]
                })
                .sum::<f64>()
        })
    });
    grp.finish();

    // (b) rigid body, 16 relative rotations along one trajectory
    let gd = GroupAsGroupoid::new(So3, Chart::Cayley);
    let dep = DiscreteFlow::new(gd, MoserVeselov);
    let dep_frozen = DiscreteFlow::new(gd, MoserVeselov).with_newton(frozen);
    let mut w = so3::exp(&(Vector3::new(1.0, 0.3, -0.6) * H));
    let mut ws = Vec::new();
    for k in 0..STATES * 8 {
        w = dep.step(&w).unwrap().0;
        if k % 8 == 0 {
            ws.push(w);
        }
    }
    let jdm = jd();
    let (mut it_g, mut it_h) = (0, 0);
    for w in &ws {
        let (a, rep) = dep.step(w).unwrap();
        let (b, it) = llm_step(w, &jdm, &opts).unwrap();
        assert!((a - b).norm() < 1e-13 && (dep_frozen.step(w).unwrap().0 - b).norm() < 1e-13);
        (it_g, it_h) = (it_g + rep.iterations, it_h + it);
    }
    println!(
        "rigid body DEP: Newton iterations per step: groupoid {:.2}, hand-written LLM {:.2}",
        it_g as f64 / 16.0,
        it_h as f64 / 16.0
    );

    let mut grp = c.benchmark_group("dep_rigid_body");
    grp.bench_function("groupoid", |b| {
        b.iter(|| ws.iter().map(|w| dep.step(black_box(w)).unwrap().0[(0, 1)]).sum::<f64>())
    });
    grp.bench_function("groupoid_frozen", |b| {
        b.iter(|| ws.iter().map(|w| dep_frozen.step(black_box(w)).unwrap().0[(0, 1)]).sum::<f64>())
    });
    grp.bench_function("hand_written_llm", |b| {
        b.iter(|| ws.iter().map(|w| llm_step(black_box(w), &jdm, &opts).unwrap().0[(0, 1)]).sum::<f64>())
    });
    grp.bench_function("hand_written_llm_frozen", |b| {
        b.iter(|| ws.iter().map(|w| llm_step(black_box(w), &jdm, &frozen).unwrap().0[(0, 1)]).sum::<f64>())
    });
    grp.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}

/// The spherical pendulum `L = ½|v|² − z` of (c).
#[derive(Debug, Clone, Copy)]
struct SparkPendulum;
impl ContinuousLagrangian<3> for SparkPendulum {
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, v: &SVector<S, 3>) -> S {
        v.norm_squared() * S::from(0.5) - q[2]
    }
}
/// `c(q) = |q|² − 1`.
#[derive(Debug, Clone, Copy)]
struct SparkSphere;
impl BaseConstraints<PairGroupoid<3>, 3, 1> for SparkSphere {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, x: &SVector<S, 3>) -> SVector<S, 1> {
        SVector::from([x.norm_squared() - S::from(1.0)])
    }
}

/// The hand-written SPARK step of the spherical pendulum: the equations of [`SparkGauss2`] with
/// `∂_v L = V`, `∂_q L = −e3`, `∇c = 2q` in closed form, unknowns `(V_1, V_2, ν, ι)`.
fn hand_spark(co: &SparkCoefficients, q: &mut Vector3<f64>, p: &mut Vector3<f64>, h: f64, opts: &NewtonOptions) {
    let (q0, p0) = (*q, *p);
    let f = Vector3::new(0.0, 0.0, -1.0);
    let split = |u: &SVector<f64, 8>| {
        let (v1, v2) = (u.fixed_rows::<3>(0).into_owned(), u.fixed_rows::<3>(3).into_owned());
        let inner = q0 + (v1 * co.a_node[0] + v2 * co.a_node[1]) * h;
        let q1 = q0 + (v1 * co.b[0] + v2 * co.b[1]) * h;
        (v1, v2, u[6], u[7], inner, q1)
    };
    let mut u0 = SVector::<f64, 8>::zeros();
    u0.fixed_rows_mut::<3>(0).copy_from(&p0);
    u0.fixed_rows_mut::<3>(3).copy_from(&p0);
    let ([u], _) = newton_blocks::<8, 1>(
        |u: &[SVector<f64, 8>; 1], jac: Option<&mut [[SMatrix<f64, 8, 8>; 1]; 1]>| {
            let (v1, v2, nu, iota, inner, q1) = split(&u[0]);
            let start = p0 + q0 * (2.0 * nu);
            let mut r = SVector::<f64, 8>::zeros();
            for (i, v) in [v1, v2].iter().enumerate() {
                let row = v - start - f * ((co.a[i][0] + co.a[i][1]) * h) + inner * (2.0 * co.alpha[i] * iota);
                r.fixed_rows_mut::<3>(3 * i).copy_from(&row);
            }
            r[6] = (q1.norm_squared() - 1.0) / h;
            r[7] = (inner.norm_squared() - 1.0) / h;
            if let Some(j) = jac {
                let j = &mut j[0][0];
                j.fill(0.0);
                for i in 0..2 {
                    for k in 0..2 {
                        let d = if i == k { 1.0 } else { 0.0 } + 2.0 * co.alpha[i] * iota * h * co.a_node[k];
                        j.fixed_view_mut::<3, 3>(3 * i, 3 * k).fill_diagonal(d);
                    }
                    j.fixed_view_mut::<3, 1>(3 * i, 6).copy_from(&(q0 * -2.0));
                    j.fixed_view_mut::<3, 1>(3 * i, 7).copy_from(&(inner * (2.0 * co.alpha[i])));
                    j.fixed_view_mut::<1, 3>(6, 3 * i).copy_from(&(q1 * (2.0 * co.b[i])).transpose());
                    j.fixed_view_mut::<1, 3>(7, 3 * i).copy_from(&(inner * (2.0 * co.a_node[i])).transpose());
                }
            }
            Ok([r])
        },
        &[u0],
        opts,
    )
    .unwrap();
    let (_, _, nu, iota, inner, q1) = split(&u);
    let p1 = p0 + q0 * (2.0 * nu) + f * ((co.b[0] + co.b[1]) * h) - inner * (2.0 * co.weight * iota);
    *q = q1;
    *p = p1 - q1 * (q1.dot(&p1) / q1.norm_squared());
}

/// The `ratio` lines of (c): the SPARK step against its hand-written equations (target 2), and
/// against RATTLE of the midpoint Lagrangian (information).
fn spark_ratios(report: &mut common::ratio::Report) {
    let h = 0.05;
    let spark = SparkGauss2::<_, _, 3, 1, 8>::new(SparkPendulum, SparkSphere);
    let co = *spark.coefficients();
    let opts = spark.newton_options().for_momentum_residual(h);
    let s0 = PhaseState::new(Vector3::new(0.6, 0.0, -0.8), Vector3::new(0.0, 0.9, 0.0));
    // the same trajectory
    let (mut s, mut q, mut p) = (s0, s0.q, s0.p);
    let mut d = 0.0f64;
    for _ in 0..1000 {
        spark.step(&mut s, h).unwrap();
        hand_spark(&co, &mut q, &mut p, h, &opts);
        d = d.max((s.q - q).amax()).max((s.p - p).amax());
    }
    assert!(d < 1e-12, "SparkGauss2 vs hand-written SPARK: {d:e}");
    let (mut s, mut q, mut p) = (s0, s0.q, s0.p);
    report.case(
        "spherical_pendulum_spark_gauss2_vs_hand_written",
        2.0,
        2000,
        |n| {
            for _ in 0..n {
                spark.step(black_box(&mut s), h).unwrap();
            }
        },
        |n| {
            for _ in 0..n {
                hand_spark(&co, black_box(&mut q), black_box(&mut p), h, &opts);
            }
        },
    );
    let rattle =
        RattleIntegrator::<_, _, _, 3, 1, 4>::new(PairGroupoid::<3>, Stepped(TimeMidpoint(SparkPendulum)), SparkSphere)
            .with_properties(2, true);
    let (mut s, mut r) = (s0, s0);
    report.case(
        "spherical_pendulum_spark_gauss2_vs_rattle_midpoint",
        f64::INFINITY,
        2000,
        |n| {
            for _ in 0..n {
                spark.step(black_box(&mut s), h).unwrap();
            }
        },
        |n| {
            for _ in 0..n {
                rattle.step(black_box(&mut r), h).unwrap();
            }
        },
    );
}

/// The `ratio` lines: the groupoid's discrete Euler–Poincaré flow of the Moser–Veselov
/// Lagrangian (one trajectory of arrows `W_k`) against the hand-written Lee–Leok–McClamroch step
/// on the same body (`(R_k, Π_k)` with `Π_{k+1} = F⁺L(W_k)`, `F_k = W_{k+1}`), interleaved.
fn ratios() {
    let mut report = common::ratio::Report::new();
    let inertia = Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 2.5));
    let inertia_inv = inertia.try_inverse().unwrap();
    let gd = GroupAsGroupoid::new(So3, Chart::Cayley);
    let dep = DiscreteFlow::new(gd, MoserVeselov);
    let w0 = so3::exp(&(Vector3::new(1.0, 0.3, -0.6) * H));
    // the same trajectory: W_k against R_kᵀR_{k+1}
    let (mut w, mut r, mut pi) = (w0, w0, legendre_plus(&gd, dep.lagrangian(), &w0));
    let mut dw = 0.0f64;
    for _ in 0..1000 {
        let before = r;
        hand_lgvi(&inertia, &inertia_inv, None, &mut r, &mut pi, H);
        w = dep.step(&w).unwrap().0;
        dw = dw.max((before.tr_mul(&r) - w).amax());
    }
    assert!(dw < 1e-11, "groupoid DEP vs hand-written LGVI: {dw:e}");
    report.case(
        "rigid_body_groupoid_dep_vs_hand_lgvi",
        3.0,
        2000,
        |n| {
            for _ in 0..n {
                w = dep.step(black_box(&w)).unwrap().0;
            }
        },
        |n| {
            for _ in 0..n {
                hand_lgvi(&inertia, &inertia_inv, None, black_box(&mut r), black_box(&mut pi), H);
            }
        },
    );
    // the same flow, `step_n` in chunks of 1000 steps: the Newton Jacobian carried from step to
    // step (re-evaluated only when the iteration contracts slowly) and the extrapolated guess
    let mut wn = w0;
    let mut check = w0;
    dep.step_n(&mut check, 1000).unwrap();
    let mut single = w0;
    for _ in 0..1000 {
        single = dep.step(&single).unwrap().0;
    }
    assert!((check - single).amax() < 1e-12, "step_n vs step: {:e}", (check - single).amax());
    let (mut r, mut pi) = (w0, legendre_plus(&gd, dep.lagrangian(), &w0));
    report.case(
        "rigid_body_groupoid_dep_step_n_vs_hand_lgvi",
        3.0,
        2000,
        |n| {
            dep.step_n(black_box(&mut wn), n).unwrap();
        },
        |n| {
            for _ in 0..n {
                hand_lgvi(&inertia, &inertia_inv, None, black_box(&mut r), black_box(&mut pi), H);
            }
        },
    );
    // the same flow with `J_d` lifted to the scalar (information)
    let lifted = DiscreteFlow::new(gd, LiftedMoserVeselov);
    let (mut wl, mut check) = (w0, w0);
    for _ in 0..1000 {
        wl = lifted.step(&wl).unwrap().0;
        check = dep.step(&check).unwrap().0;
    }
    assert!((wl - check).amax() < 1e-12, "lifted Lagrangian vs the example's: {:e}", (wl - check).amax());
    let (mut r, mut pi) = (w0, legendre_plus(&gd, dep.lagrangian(), &w0));
    report.case(
        "rigid_body_groupoid_dep_lifted_constant_vs_hand_lgvi",
        f64::INFINITY,
        2000,
        |n| {
            for _ in 0..n {
                wl = lifted.step(black_box(&wl)).unwrap().0;
            }
        },
        |n| {
            for _ in 0..n {
                hand_lgvi(&inertia, &inertia_inv, None, black_box(&mut r), black_box(&mut pi), H);
            }
        },
    );
    spark_ratios(&mut report);
    report.print("groupoid: ratio case project_ns reference_ns ratio target");
}

fn main() {
    ratios();
    if std::env::var_os("GEOMINT_RATIOS_ONLY").is_some() {
        return;
    }
    benches();
    Criterion::default().final_summary();
    common::print_ratios(
        "groupoid DEL steps, 16 steps per iteration (ratio = groupoid / reference; target <= 1.5 for the pair groupoid)",
        &[
            ("pair R^3 vs hand-written VI", "del_pair_r3", "groupoid", "hand_written"),
            ("pair R^3, both frozen Jacobian", "del_pair_r3", "groupoid_frozen", "hand_written_frozen"),
            ("integrators VI vs hand-written", "del_pair_r3", "integrators_variational", "hand_written"),
            ("rigid-body DEP vs LLM", "dep_rigid_body", "groupoid", "hand_written_llm"),
            ("rigid-body DEP, both frozen", "dep_rigid_body", "groupoid_frozen", "hand_written_llm_frozen"),
            ("DEP frozen vs LLM full Newton", "dep_rigid_body", "groupoid_frozen", "hand_written_llm"),
        ],
    );
}
