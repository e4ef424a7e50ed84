//! The averaged vector field method (`integrators::energy_preserving::Avf`, 2-point Gauss
//! quadrature) on Hénon–Heiles, `H = ½|p|² + ½(x² + y²) + x²y − y³/3`, one trajectory at
//! `H ≈ 0.137` with `h = 0.05`, each route timed interleaved with a reference in the same process
//! (`common::ratio`), printing `ratio <case> <project ns/step> <reference ns/step> <ratio> <target>`:
//!
//! * `hh_avf2_autodiff`: `Avf::<_, 2>` with `H` written once over the scalar, as the docs write a
//!   Hamiltonian (`AutoDiff`: gradients by dual numbers, the Newton matrix from one hyper-dual
//!   Hessian, `½ ∇²H(x₀ + ⅔ z)`, which equals the sum below for the cubic `H`), against a
//!   hand-written loop of the same AVF equations with hand-written derivatives and a
//!   hand-written Newton: unknowns `z = (Δq, Δp) ∈ R⁴`,
//!   `F(z) = z − h J Σ_i b_i ∇H(x₀ + c_i z)` from the guess `z = h J ∇H(x₀)`, the Jacobian
//!   `I − h J Σ_i b_i c_i ∇²H(x₀ + c_i z)` at the guess factored once (nalgebra's LU of a
//!   `Matrix4`) and reused (the library's default, `NewtonOptions::simplified`), the same
//!   convergence tests (residual `≤ 1e-14` then one polishing correction, or a contracting step
//!   with error estimate `≤ 1e-14 (1 + |z|)`). Target 2 (an implicit method).
//! * `hh_avf2_autodiff_separable`: the same with the model declared separable
//!   (`AutoDiff::separable`, as the docs declare `H = T(p) + V(q)`): its Hessian skips the mixed
//!   block (6 hyper-dual passes instead of 10) and its gradients fold the other
//!   half to constants. Target 2.
//! * `hh_avf2_hand_derivatives` (for information): the same `Avf::<_, 2>` with the hand-written
//!   derivatives of the reference, against the same reference: the cost of the library's solver
//!   alone.
//! * `hh_gonzalez_autodiff`, `hh_itoh_abe_symmetrized_autodiff`: Gonzalez's midpoint discrete
//!   gradient method and the symmetrized Itoh–Abe method (`integrators::energy_preserving`) with
//!   `AutoDiff(HenonHeiles)`, against hand-written loops of the same discrete gradients (hand
//!   derivatives, the same threshold rule) with the same Newton (matrix at the guess: Gonzalez's
//!   exact `∂∇̄H/∂x'`, Itoh–Abe's `½∇²H(m)`). Target 2.
//! * `hh_symmetric_projection_sv_autodiff`: the symmetric projection (Hairer 2000) of
//!   Störmer–Verlet onto the energy level (`SymmetricProjection`, `StormerVerlet` of
//!   `AutoDiff::separable(HenonHeiles)`, `Invariant(HenonHeiles)`), against a hand-written loop of
//!   the same equations (hand SV and `∇H`, Newton on the scalar `λ` with the same first-iterate
//!   derivative; the hand loop starts each fixed-point iteration of the end point from `ỹ₁`, the
//!   library from the invariant's gradient last evaluated, at the previous `λ`'s end point).
//!   Target 2.
//! * `hh_avf2_vs_gauss2` (for information): `Avf::<_, 2>` against the library's `Gauss2` (order
//!   4, symplectic, 8 stage unknowns), both with `AutoDiff`.
//!
//! Run: `cargo bench --bench energy_preserving`.

mod common;

use common::ratio::Report;
use geom_core::Scalar;
use geom_core::function::{AutoDiff, Hessian, PhaseSpaceDerivatives, PhaseSpaceFunction};
use integrators::classical::Gauss2;
use integrators::classical::StormerVerlet;
use integrators::energy_preserving::{Avf, Gonzalez, Invariant, ItohAbe, SymmetricProjection};
use integrators::{OneStep, PhaseState};
use nalgebra::{LU, Matrix2, Matrix4, SVector, U4, Vector2, Vector4};
use std::hint::black_box;

const H: f64 = 0.05;
const STEPS: usize = 20_000;
const TOL: f64 = 1e-14;

/// Hénon–Heiles as the docs write a Hamiltonian: once, generic over the scalar.
struct HenonHeiles;
impl PhaseSpaceFunction<2> for HenonHeiles {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        let (x, y) = (q[0], q[1]);
        (p.norm_squared() + x * x + y * y) * S::from(0.5) + x * x * y - y * y * y / S::from(3.0)
    }
}

/// `∇V(q) = (x + 2xy, y + x² − y²)`.
#[inline]
fn grad_v(q: &Vector2<f64>) -> Vector2<f64> {
    let (x, y) = (q[0], q[1]);
    Vector2::new(x + 2.0 * x * y, y + x * x - y * y)
}

/// `∇²V(q) = [[1 + 2y, 2x], [2x, 1 − 2y]]`.
#[inline]
fn hess_v(q: &Vector2<f64>) -> Matrix2<f64> {
    let (x, y) = (q[0], q[1]);
    Matrix2::new(1.0 + 2.0 * y, 2.0 * x, 2.0 * x, 1.0 - 2.0 * y)
}

/// Hénon–Heiles with hand-written derivatives (for the library route with hand derivatives).
struct HenonHeilesExact;
impl PhaseSpaceDerivatives<2> for HenonHeilesExact {
    fn value(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> f64 {
        HenonHeiles.eval(q, p)
    }
    #[inline]
    fn gradient(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> (Vector2<f64>, Vector2<f64>) {
        (grad_v(q), *p)
    }
    fn hessian(&self, q: &Vector2<f64>, _p: &Vector2<f64>) -> Hessian<2> {
        Hessian { qq: hess_v(q), qp: Matrix2::zeros(), pp: Matrix2::identity() }
    }
    #[inline]
    fn gradient_and_hessian(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> ((Vector2<f64>, Vector2<f64>), Hessian<2>) {
        ((grad_v(q), *p), Hessian { qq: hess_v(q), qp: Matrix2::zeros(), pp: Matrix2::identity() })
    }
}

/// The hand-written AVF step with the 2-point Gauss rule: `z = (Δq, Δp)`,
/// `F(z) = (z_q − h Σ b_i (p + c_i z_p), z_p + h Σ b_i ∇V(q + c_i z_q))`.
struct HandAvf2 {
    c: [f64; 2],
    b: [f64; 2],
}

impl HandAvf2 {
    fn new() -> Self {
        let r = 3f64.sqrt() / 6.0;
        Self { c: [0.5 - r, 0.5 + r], b: [0.5, 0.5] }
    }

    #[inline]
    fn residual(&self, q: &Vector2<f64>, p: &Vector2<f64>, z: &Vector4<f64>, h: f64) -> Vector4<f64> {
        let (zq, zp) = (Vector2::new(z[0], z[1]), Vector2::new(z[2], z[3]));
        let (mut gq, mut gp) = (Vector2::zeros(), Vector2::zeros());
        for i in 0..2 {
            gq += grad_v(&(q + zq * self.c[i])) * self.b[i];
            gp += (p + zp * self.c[i]) * self.b[i];
        }
        let (fq, fp) = (zq - gp * h, zp + gq * h);
        Vector4::new(fq[0], fq[1], fp[0], fp[1])
    }

    #[inline]
    fn step(&self, s: &mut PhaseState<2>, h: f64) {
        let (q, p) = (s.q, s.p);
        let (gq, gp) = (grad_v(&q), p);
        let z = Vector4::new(gp[0] * h, gp[1] * h, -gq[0] * h, -gq[1] * h);
        // the Jacobian at the guess: [[I, −h Σ b c I], [h Σ b c ∇²V, I]]
        let mut j = Matrix4::identity();
        for i in 0..2 {
            let w = h * self.b[i] * self.c[i];
            let hv = hess_v(&(q + Vector2::new(z[0], z[1]) * self.c[i])) * w;
            j[(0, 2)] -= w;
            j[(1, 3)] -= w;
            let mut block = j.fixed_view_mut::<2, 2>(2, 0);
            block += hv;
        }
        let z = hand_newton(z, &j.lu(), |z| self.residual(&q, &p, z, h));
        *s = PhaseState::new(q + Vector2::new(z[0], z[1]), p + Vector2::new(z[2], z[3]));
    }
}

/// The hand loops' simplified Newton with the Jacobian `lu` factored once (the library's
/// `NewtonOptions::simplified`): residual `≤ 1e-14` then one polishing correction (unless
/// predicted below the rounding of `z`), or a contracting step with error estimate
/// `≤ 1e-14 (1 + |z|)`.
#[inline(always)]
fn hand_newton(
    mut z: Vector4<f64>,
    lu: &LU<f64, U4, U4>,
    residual: impl Fn(&Vector4<f64>) -> Vector4<f64>,
) -> Vector4<f64> {
    let mut previous: Option<f64> = None;
    let mut previous_residual = 0.0;
    for _ in 0..50 {
        let f = residual(&z);
        let r = f.amax();
        if r <= TOL {
            let negligible = previous.is_some_and(|last| r * last <= 0.5 * f64::EPSILON * z.amax() * previous_residual);
            if !negligible {
                z -= lu.solve(&f).expect("LU");
            }
            break;
        }
        let dz = -lu.solve(&f).expect("LU");
        z += dz;
        previous_residual = r;
        if common::step_accepted(&mut previous, dz.amax(), z.amax(), TOL) {
            break;
        }
    }
    z
}

/// `H(x)` of Hénon–Heiles at `x = (x, y, p_x, p_y)`, by hand.
#[inline(always)]
fn hh(x: &Vector4<f64>) -> f64 {
    let (a, b) = (x[0], x[1]);
    (x[2] * x[2] + x[3] * x[3] + a * a + b * b) * 0.5 + a * a * b - b * b * b / 3.0
}

/// `∇H(x)`, by hand.
#[inline(always)]
fn hh_gradient(x: &Vector4<f64>) -> Vector4<f64> {
    let g = grad_v(&Vector2::new(x[0], x[1]));
    Vector4::new(g[0], g[1], x[2], x[3])
}

/// `∇²H(x)`, by hand.
#[inline(always)]
fn hh_hessian(x: &Vector4<f64>) -> Matrix4<f64> {
    let mut m = Matrix4::identity();
    m.fixed_view_mut::<2, 2>(0, 0).copy_from(&hess_v(&Vector2::new(x[0], x[1])));
    m
}

/// `I + h [[−D_p·], [D_q·]]`: the Newton matrix of `F(z) = z + h (−∇̄_p H, ∇̄_q H)` for
/// `D = ∂∇̄H/∂x'`.
#[inline(always)]
fn discrete_gradient_jacobian(d: &Matrix4<f64>, h: f64) -> Matrix4<f64> {
    let mut j = Matrix4::identity();
    for c in 0..4 {
        j[(0, c)] -= h * d[(2, c)];
        j[(1, c)] -= h * d[(3, c)];
        j[(2, c)] += h * d[(0, c)];
        j[(3, c)] += h * d[(1, c)];
    }
    j
}

/// One hand-written discrete-gradient step `x₁ = x₀ + h J ∇̄H(x₀, x₁)` from the guess
/// `h J ∇H(x₀)`, `dg(x₀, x₁)` the discrete gradient and `d(x₀, x₁)` the Newton matrix's
/// `∂∇̄H/∂x'` (taken at the guess).
#[inline(always)]
fn hand_discrete_gradient_step(
    s: &mut PhaseState<2>,
    h: f64,
    dg: impl Fn(&Vector4<f64>, &Vector4<f64>) -> Vector4<f64>,
    d: impl Fn(&Vector4<f64>, &Vector4<f64>) -> Matrix4<f64>,
) {
    let x0 = Vector4::new(s.q[0], s.q[1], s.p[0], s.p[1]);
    let g = hh_gradient(&x0);
    let z = Vector4::new(g[2], g[3], -g[0], -g[1]) * h;
    let lu = discrete_gradient_jacobian(&d(&x0, &(x0 + z)), h).lu();
    let z = hand_newton(z, &lu, |z| {
        let g = dg(&x0, &(x0 + z));
        z + Vector4::new(-g[2], -g[3], g[0], g[1]) * h
    });
    *s = PhaseState::new(Vector2::new(x0[0] + z[0], x0[1] + z[1]), Vector2::new(x0[2] + z[2], x0[3] + z[3]));
}

/// Gonzalez's threshold (`integrators::energy_preserving::DIFFERENCE_THRESHOLD`).
const THRESHOLD: f64 = 6.055454452393343e-6;

/// Gonzalez's `(∇H(m), k, large)`: `k = (H(x') − H(x) − ∇H(m)·Δ)/|Δ|²` when
/// `|Δ| > THRESHOLD (1 + max(|x|_∞, |x'|_∞))`.
#[inline(always)]
fn gonzalez_parts(x: &Vector4<f64>, x1: &Vector4<f64>) -> (Vector4<f64>, f64, bool) {
    let delta = x1 - x;
    let n2 = delta.norm_squared();
    let g = hh_gradient(&((x + x1) * 0.5));
    let t = THRESHOLD * (1.0 + x.amax().max(x1.amax()));
    if n2 > t * t { (g, (hh(x1) - hh(x) - g.dot(&delta)) / n2, true) } else { (g, 0.0, false) }
}

/// Hand-written Gonzalez step: `∇̄H = ∇H(m) + k Δ`, and its exact Jacobian
/// `½∇²H(m) + Δ aᵀ/|Δ|² − 2k ΔΔᵀ/|Δ|² + k I`, `a = ∇H(x') − ∇H(m) − ½∇²H(m)Δ`.
#[inline]
fn hand_gonzalez(s: &mut PhaseState<2>, h: f64) {
    hand_discrete_gradient_step(
        s,
        h,
        |x, x1| {
            let (g, k, _) = gonzalez_parts(x, x1);
            g + (x1 - x) * k
        },
        |x, x1| {
            let (g, k, large) = gonzalez_parts(x, x1);
            let hess = hh_hessian(&((x + x1) * 0.5));
            let mut d = hess * 0.5;
            if large {
                let delta = x1 - x;
                let n2 = delta.norm_squared();
                let a = hh_gradient(x1) - g - hess * delta * 0.5;
                d += delta * a.transpose() / n2 - delta * delta.transpose() * (2.0 * k / n2) + Matrix4::identity() * k;
            }
            d
        },
    );
}

/// The Itoh–Abe quotients from `x` to `x1` along the coordinates in increasing or decreasing
/// order, times `weight` (the partial derivative at the middle of a tiny increment).
#[inline(always)]
fn itoh_abe_path(x: &Vector4<f64>, x1: &Vector4<f64>, reverse: bool, weight: f64, out: &mut Vector4<f64>) {
    let mut y = *x;
    let mut before = hh(&y);
    for i in 0..4 {
        let k = if reverse { 3 - i } else { i };
        let (a, b) = (x[k], x1[k]);
        let d = b - a;
        y[k] = b;
        let after = hh(&y);
        let g = if d.abs() > THRESHOLD * (1.0 + a.abs().max(b.abs())) {
            (after - before) / d
        } else {
            let mut m = y;
            m[k] = 0.5 * (a + b);
            hh_gradient(&m)[k]
        };
        out[k] += g * weight;
        before = after;
    }
}

/// Hand-written symmetrized Itoh–Abe step: the mean of the two coordinate orders, Newton matrix
/// `½∇²H(m)`.
#[inline]
fn hand_itoh_abe_symmetrized(s: &mut PhaseState<2>, h: f64) {
    hand_discrete_gradient_step(
        s,
        h,
        |x, x1| {
            let mut g = Vector4::zeros();
            itoh_abe_path(x, x1, false, 0.5, &mut g);
            itoh_abe_path(x, x1, true, 0.5, &mut g);
            g
        },
        |x, x1| hh_hessian(&((x + x1) * 0.5)) * 0.5,
    );
}

/// One hand-written Störmer–Verlet step of Hénon–Heiles at `x = (q, p)`.
#[inline(always)]
fn hand_sv(x: &Vector4<f64>, h: f64) -> Vector4<f64> {
    let q = Vector2::new(x[0], x[1]);
    let half = Vector2::new(x[2], x[3]) - grad_v(&q) * (0.5 * h);
    let q1 = q + half * h;
    let p1 = half - grad_v(&q1) * (0.5 * h);
    Vector4::new(q1[0], q1[1], p1[0], p1[1])
}

/// One hand-written symmetric projection (Hairer 2000) of Störmer–Verlet onto `H = H(y₀)`:
/// `y₁ = Φ_h(y₀ + λ∇H(y₀)) + λ∇H(y₁)` (the end point by fixed-point iteration from `λ = 0`'s
/// `Φ_h` value), `λ` by Newton on `(H(y₁) − H(y₀)) / (1 + |H(y₀)|)` from `λ = 0` with the
/// derivative `(|∇H(y₀)|² + |∇H(y₁)|²) / (1 + |H(y₀)|)` at the first iterate, stopped at a zero
/// residual or a step `≤ 1e-16 (1 + |λ|)`.
#[inline]
fn hand_projection(s: &mut PhaseState<2>, h: f64) {
    let y0 = Vector4::new(s.q[0], s.q[1], s.p[0], s.p[1]);
    let target = hh(&y0);
    let scale = 1.0 / (1.0 + target.abs());
    let g0 = hh_gradient(&y0);
    let endpoint = |lambda: f64| {
        let end = hand_sv(&(y0 + g0 * lambda), h);
        if lambda == 0.0 {
            return end;
        }
        let mut y1 = end;
        for _ in 0..50 {
            let next = end + hh_gradient(&y1) * lambda;
            let change = (next - y1).amax();
            y1 = next;
            if change <= 4.0 * f64::EPSILON * (1.0 + y1.amax()) {
                break;
            }
        }
        y1
    };
    let mut lambda = 0.0;
    let mut y1 = endpoint(lambda);
    let slope = (g0.norm_squared() + hh_gradient(&y1).norm_squared()) * scale;
    for _ in 0..50 {
        let r = (hh(&y1) - target) * scale;
        if r == 0.0 {
            break;
        }
        let d = r / slope;
        lambda -= d;
        y1 = endpoint(lambda);
        if d.abs() <= 1e-16 * (1.0 + lambda.abs()) {
            break;
        }
    }
    *s = PhaseState::new(Vector2::new(y1[0], y1[1]), Vector2::new(y1[2], y1[3]));
}

fn initial() -> PhaseState<2> {
    PhaseState::new(Vector2::new(0.1, -0.3), Vector2::new(0.35, 0.2))
}

#[inline]
fn run<M: OneStep<PhaseState<2>> + ?Sized>(m: &M, s: &mut PhaseState<2>, n: usize) {
    for _ in 0..n {
        m.step(black_box(s), black_box(H)).unwrap();
    }
}

fn main() {
    let mut report = Report::new();
    let hand = HandAvf2::new();
    let ad = Avf::<_, 2>::new(AutoDiff(HenonHeiles)).unwrap();
    let exact = Avf::<_, 2>::new(HenonHeilesExact).unwrap();
    let (c, b) = ad.quadrature();
    assert!((c[0] - hand.c[0]).abs() < 1e-15 && (c[1] - hand.c[1]).abs() < 1e-15 && b == hand.b);
    // the same map: the three agree along the orbit, and the energy is conserved
    let (mut s1, mut s2, mut s3) = (initial(), initial(), initial());
    for _ in 0..2000 {
        ad.step(&mut s1, H).unwrap();
        exact.step(&mut s2, H).unwrap();
        hand.step(&mut s3, H);
    }
    let d = |a: &PhaseState<2>, b: &PhaseState<2>| (a.q - b.q).amax().max((a.p - b.p).amax());
    assert!(d(&s1, &s3) < 1e-12 && d(&s2, &s3) < 1e-12, "{} {}", d(&s1, &s3), d(&s2, &s3));
    let e = |s: &PhaseState<2>| HenonHeiles.eval(&s.q, &s.p);
    assert!((e(&s3) - e(&initial())).abs() < 1e-14);

    let hand_run = |s: &mut PhaseState<2>, n: usize| {
        for _ in 0..n {
            hand.step(black_box(s), black_box(H));
        }
    };
    let (mut a, mut b) = (initial(), initial());
    report.case("hh_avf2_autodiff", 2.0, STEPS, |n| run(&ad, &mut a, n), |n| hand_run(&mut b, n));
    let separable = Avf::<_, 2>::new(AutoDiff::separable(HenonHeiles)).unwrap();
    let (mut a, mut b) = (initial(), initial());
    report.case("hh_avf2_autodiff_separable", 2.0, STEPS, |n| run(&separable, &mut a, n), |n| hand_run(&mut b, n));
    let (mut a, mut b) = (initial(), initial());
    report.case("hh_avf2_hand_derivatives", f64::INFINITY, STEPS, |n| run(&exact, &mut a, n), |n| hand_run(&mut b, n));
    let gauss = Gauss2::new(AutoDiff(HenonHeiles)).unwrap();
    let (mut a, mut b) = (initial(), initial());
    report.case("hh_avf2_vs_gauss2", f64::INFINITY, STEPS, |n| run(&ad, &mut a, n), |n| run(&gauss, &mut b, n));
    // Gonzalez's discrete gradient and the symmetrized Itoh–Abe method against their hand loops
    let gonzalez = Gonzalez::new(AutoDiff(HenonHeiles));
    let itoh_abe = ItohAbe::symmetrized(AutoDiff(HenonHeiles));
    let projection =
        SymmetricProjection::new(StormerVerlet::new(AutoDiff::separable(HenonHeiles)), Invariant(HenonHeiles)).unwrap();
    type HandStep = fn(&mut PhaseState<2>, f64);
    let pairs: [(&dyn OneStep<PhaseState<2>>, HandStep, &str); 3] = [
        (&gonzalez, hand_gonzalez, "hh_gonzalez_autodiff"),
        (&itoh_abe, hand_itoh_abe_symmetrized, "hh_itoh_abe_symmetrized_autodiff"),
        (&projection, hand_projection, "hh_symmetric_projection_sv_autodiff"),
    ];
    for (m, hand, case) in pairs {
        let (mut a, mut b) = (initial(), initial());
        for _ in 0..1000 {
            m.step(&mut a, H).unwrap();
            hand(&mut b, H);
        }
        assert!(d(&a, &b) < 1e-12, "{}: the hand loop differs by {:e}", m.name(), d(&a, &b));
        assert!((e(&b) - e(&initial())).abs() < 1e-14);
        report.case(
            case,
            2.0,
            STEPS,
            |n| run(m, &mut a, n),
            |n| {
                for _ in 0..n {
                    hand(black_box(&mut b), black_box(H));
                }
            },
        );
    }
    report.print("energy-preserving (Hénon–Heiles, h = 0.05): ratio case project_ns reference_ns ratio target");
}
