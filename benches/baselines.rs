//! ns per step of the Part I baselines of `integrators::lie_poisson_baselines` against
//! hand-written loops of the same equations in the same run (`common::ratio`), and against HP
//! Störmer–Verlet (Cayley) on the heavy top:
//!
//! * Engø–Faltinsen (`CoadjointEnergy`, Cayley) on the free rigid body `(R, Π)`: Newton on
//!   `Π' = cay(hξ)ᵀ Π`, `ξ = ∇̄h(Π, Π')` (Gonzalez's discrete gradient of `h = ½ Π·I⁻¹Π`), the
//!   Jacobian `I − h cay(hξ)ᵀ Π̂ dcay_{hξ} ½I⁻¹` frozen at the guess, `R' = R cay(hξ)`;
//! * Lewis–Simo (`EnergyMomentum`) on the heavy top: Newton on `(Γ', Π')` of
//!   `Γ' − Γ = h Γ̄ × ξ`, `Π' − Π = h (Π̄ × ξ + Γ̄ × η)`, `(η, ξ)` Gonzalez's discrete gradient of
//!   `h(Π, Γ) = ½ Π·I⁻¹Π + mgl Γ·χ`, 6 × 6 Jacobian frozen at the guess, `R' = R cay(hξ)`;
//! * Simo–Wong (`LieNewmark`) on the heavy top: Newton on `Ω = I⁻¹ exp(½hΩ)ᵀ m`,
//!   `m = Π + ½h f(Γ)`, `R' = R exp(hΩ)`, `Π' = exp(½hΩ)ᵀ exp(½hΩ)ᵀ m + ½h f(Γ')`;
//!
//! * Engø–Faltinsen on the heavy top (`VerticalCoadjointEnergy`, Cayley): the same scheme on
//!   `se(3)* ∋ (Π, Γ)`, Newton on `ν = Ad*_{cay(hξ)} μ` with the Jacobian
//!   `I − h Ad*_W A(μ) dcay_{hξ} ½∇²h` at the linearized guess, `R' = R W_rot`;
//!
//! each hand loop stops Newton by the same contraction-checked step test (`1e-14`). Targets:
//! 2 (implicit methods). The lines `*_vs_hp_sv` put each method's step beside HP
//! Störmer–Verlet's on the heavy top (information, no target: `inf`).
//!
//! In a block of its own (own report): Bobenko–Suris's discrete Lagrange top (`BobenkoSuris`)
//! on the Lagrange top `I = diag(2, 2, 1)`, `mgl = 1`, `χ = e3`, explicit, through its
//! `OneStep::step` against its hand loop (target 1.3; through `&dyn OneStep` for information),
//! and beside HP Störmer–Verlet on the heavy top and on the same Lagrange top.
//!
//! Run: `cargo bench --bench baselines`.

mod common;

use common::ratio::Report;
use common::step_accepted;
use geom_core::lie::{Chart, LieGroup, Se3, So3, se3, so3};
use geom_core::step::{LieState, OneStep};
use integrators::hp;
use integrators::lie_poisson_baselines::{
    BobenkoSuris, CoadjointEnergy, EnergyMomentum, LieNewmark, ReducedTop, VerticalCoadjointEnergy,
};
use integrators::models::{FreeRigidBody, HeavyTop};
use nalgebra::{Matrix3, Matrix4, Matrix6, Vector3, Vector6};
use std::hint::black_box;

const STEPS: usize = 20_000;
const TOL: f64 = 1e-14;
/// Gonzalez's threshold (`integrators::energy_preserving::DIFFERENCE_THRESHOLD`).
const THRESHOLD: f64 = 6.055454452393343e-6;

type State = LieState<Matrix3<f64>, 3>;

fn skew(x: &Vector3<f64>) -> Matrix3<f64> {
    so3::hat(x)
}

/// Gonzalez's correction `(h(x') − h(x) − g·Δ) / |Δ|²` (0 below the threshold), `n2 = |Δ|²`.
#[inline(always)]
fn correction(defect: f64, n2: f64, scale: f64) -> f64 {
    let t = THRESHOLD * scale;
    if n2 > t * t { defect / n2 } else { 0.0 }
}

/// One hand-written Engø–Faltinsen step of the free body, `I⁻¹ = diag(d)`.
#[inline]
fn hand_ef(d: &Vector3<f64>, r: &mut Matrix3<f64>, pi: &mut Vector3<f64>, h: f64) {
    let p0 = *pi;
    let energy = |p: &Vector3<f64>| 0.5 * p.dot(&p.component_mul(d));
    let e0 = energy(&p0);
    let dg = |p1: &Vector3<f64>| {
        let g = ((p0 + p1) * 0.5).component_mul(d);
        let delta = p1 - p0;
        let n2 = delta.norm_squared();
        let k = correction(energy(p1) - e0 - g.dot(&delta), n2, 1.0 + p0.amax().max(p1.amax()));
        g + delta * k
    };
    let xi0 = p0.component_mul(d);
    let mut p1 = so3::cayley(&(xi0 * h)).tr_mul(&p0);
    let xi = dg(&p1);
    let w = so3::cayley(&(xi * h));
    let jac =
        Matrix3::identity() - w.transpose() * skew(&p0) * so3::dcay(&(xi * h)) * Matrix3::from_diagonal(d) * (0.5 * h);
    let lu = jac.lu();
    let mut previous = None;
    for _ in 0..50 {
        let f = p1 - so3::cayley(&(dg(&p1) * h)).tr_mul(&p0);
        let dx = lu.solve(&f).expect("nonsingular");
        p1 -= dx;
        if step_accepted(&mut previous, dx.amax(), p1.amax(), TOL) {
            break;
        }
    }
    let w = so3::cayley(&(dg(&p1) * h));
    *r *= w;
    *pi = w.tr_mul(&p0);
}

/// One hand-written Lewis–Simo step of the heavy top, `I⁻¹ = diag(d)`.
#[inline]
fn hand_ls(d: &Vector3<f64>, mgl: f64, chi: &Vector3<f64>, r: &mut Matrix3<f64>, pi: &mut Vector3<f64>, h: f64) {
    let (g0, p0) = (r.row(2).transpose(), *pi);
    let energy = |g: &Vector3<f64>, p: &Vector3<f64>| 0.5 * p.dot(&p.component_mul(d)) + mgl * g.dot(chi);
    let e0 = energy(&g0, &p0);
    let dg = |g1: &Vector3<f64>, p1: &Vector3<f64>| {
        let (eta, xi) = (chi * mgl, ((p0 + p1) * 0.5).component_mul(d));
        let (dgam, dpi) = (g1 - g0, p1 - p0);
        let n2 = dgam.norm_squared() + dpi.norm_squared();
        let scale = 1.0 + g0.amax().max(p0.amax()).max(g1.amax()).max(p1.amax());
        let k = correction(energy(g1, p1) - e0 - eta.dot(&dgam) - xi.dot(&dpi), n2, scale);
        (eta + dgam * k, xi + dpi * k)
    };
    let split = |x: &Vector6<f64>| (x.fixed_rows::<3>(0).into_owned(), x.fixed_rows::<3>(3).into_owned());
    let residual = |x: &Vector6<f64>| {
        let (g1, p1) = split(x);
        let (eta, xi) = dg(&g1, &p1);
        let (gm, pm) = ((g0 + g1) * 0.5, (p0 + p1) * 0.5);
        let a = g1 - g0 - gm.cross(&xi) * h;
        let b = p1 - p0 - (pm.cross(&xi) + gm.cross(&eta)) * h;
        Vector6::new(a[0], a[1], a[2], b[0], b[1], b[2])
    };
    let (eta0, xi0) = (chi * mgl, p0.component_mul(d));
    let (ga, pa) = (g0 + g0.cross(&xi0) * h, p0 + (p0.cross(&xi0) + g0.cross(&eta0)) * h);
    let mut x = Vector6::new(ga[0], ga[1], ga[2], pa[0], pa[1], pa[2]);
    let (gm, pm) = ((g0 + ga) * 0.5, (p0 + pa) * 0.5);
    let (_, xi) = dg(&ga, &pa);
    let half = Matrix3::from_diagonal(&(d * 0.5));
    let mut j = Matrix6::zeros();
    let id = Matrix3::identity();
    j.fixed_view_mut::<3, 3>(0, 0).copy_from(&(id + skew(&xi) * (0.5 * h)));
    j.fixed_view_mut::<3, 3>(0, 3).copy_from(&(skew(&gm) * half * -h));
    j.fixed_view_mut::<3, 3>(3, 0).copy_from(&(skew(&eta0) * (0.5 * h)));
    j.fixed_view_mut::<3, 3>(3, 3).copy_from(&(id - (skew(&pm) * half - skew(&xi) * 0.5) * h));
    let lu = j.lu();
    let mut previous = None;
    for _ in 0..50 {
        let dx = lu.solve(&residual(&x)).expect("nonsingular");
        x -= dx;
        if step_accepted(&mut previous, dx.amax(), x.amax(), TOL) {
            break;
        }
    }
    let (g1, p1) = split(&x);
    let (_, xi) = dg(&g1, &p1);
    *r *= so3::cayley(&(xi * h));
    *pi = p1;
}

/// One hand-written Simo–Wong step of the heavy top, `I⁻¹ = diag(d)`.
#[inline]
fn hand_sw(d: &Vector3<f64>, mgl: f64, chi: &Vector3<f64>, r: &mut Matrix3<f64>, pi: &mut Vector3<f64>, h: f64) {
    let g0 = r.row(2).transpose();
    let m = *pi + g0.cross(chi) * (mgl * 0.5 * h);
    let mut omega = pi.component_mul(d);
    let x = omega * (0.5 * h);
    let w = so3::exp(&x);
    let jac = Matrix3::identity() - Matrix3::from_diagonal(d) * w.transpose() * skew(&m) * so3::dexp(&x) * (0.5 * h);
    let lu = jac.lu();
    let mut previous = None;
    for _ in 0..50 {
        let f = omega - so3::exp(&(omega * (0.5 * h))).tr_mul(&m).component_mul(d);
        let dx = lu.solve(&f).expect("nonsingular");
        omega -= dx;
        if step_accepted(&mut previous, dx.amax(), omega.amax(), TOL) {
            break;
        }
    }
    let w = so3::exp(&(omega * (0.5 * h)));
    *r = *r * w * w;
    let g1 = r.row(2).transpose();
    *pi = w.tr_mul(&w.tr_mul(&m)) + g1.cross(chi) * (mgl * 0.5 * h);
}

/// One hand-written Engø–Faltinsen step of the heavy top on `se(3)* ∋ μ = (Π, Γ)` (Cayley),
/// `h(Π, Γ) = ½ Π·I⁻¹Π + mgl Γ·χ`, `I⁻¹ = diag(d)`: Newton on `ν = μ_{k+1}`,
/// `F(ν) = ν − Ad*_{cay(hξ)} μ`, `ξ = ∇̄h(μ, ν)`, the Jacobian
/// `I − h Ad*_{W} A(μ) dcay_{hξ} ½∇²h` at the linearized guess, `A(μ) = [[Π̂, Γ̂], [Γ̂, 0]]`
/// (`A(μ) η = ad*_η μ`); `R' = R W_rot`.
#[inline]
fn hand_ef_top(d: &Vector3<f64>, mgl: f64, chi: &Vector3<f64>, r: &mut Matrix3<f64>, pi: &mut Vector3<f64>, h: f64) {
    let gamma = r.tr_mul(&Vector3::z());
    let mu = Vector6::new(pi[0], pi[1], pi[2], gamma[0], gamma[1], gamma[2]);
    let (p0, g0) = se3::split(&mu);
    let energy = |m: &Vector6<f64>| {
        let (p, g) = se3::split(m);
        0.5 * p.dot(&p.component_mul(d)) + g.dot(chi) * mgl
    };
    let gradient = |m: &Vector6<f64>| se3::join(&se3::split(m).0.component_mul(d), &(chi * mgl));
    let e0 = energy(&mu);
    let dg = |nu: &Vector6<f64>| {
        let g = gradient(&((mu + nu) * 0.5));
        let delta = nu - mu;
        let k = correction(energy(nu) - e0 - g.dot(&delta), delta.norm_squared(), 1.0 + mu.amax().max(nu.amax()));
        g + delta * k
    };
    let coadjoint = |w: &Matrix4<f64>| Se3.adjoint(w).tr_mul(&mu);
    let guess = coadjoint(&Se3.cayley(&(gradient(&mu) * h)).unwrap());
    // ½∇²h = ½ diag(d, 0): ξ at the midpoint of the guess, linearized
    let mut half = Matrix6::zeros();
    half.fixed_view_mut::<3, 3>(0, 0).copy_from(&Matrix3::from_diagonal(&(d * 0.5)));
    let xi_m = gradient(&mu) + half * (guess - mu);
    let mut a = Matrix6::zeros();
    a.fixed_view_mut::<3, 3>(0, 0).copy_from(&skew(&p0));
    a.fixed_view_mut::<3, 3>(0, 3).copy_from(&skew(&g0));
    a.fixed_view_mut::<3, 3>(3, 0).copy_from(&skew(&g0));
    let w_m = Se3.cayley(&(xi_m * h)).unwrap();
    let jac = Matrix6::identity() - Se3.adjoint(&w_m).transpose() * a * Se3.dcay(&(xi_m * h)).unwrap() * half * h;
    let lu = jac.lu();
    let mut nu = guess;
    let mut previous = None;
    for _ in 0..50 {
        let f = nu - coadjoint(&Se3.cayley(&(dg(&nu) * h)).unwrap());
        let dx = lu.solve(&f).expect("nonsingular");
        nu -= dx;
        if step_accepted(&mut previous, dx.amax(), nu.amax(), TOL) {
            break;
        }
    }
    let w = Se3.cayley(&(dg(&nu) * h)).unwrap();
    *r *= w.fixed_view::<3, 3>(0, 0);
    *pi = se3::split(&coadjoint(&w)).0;
}

/// One hand-written Bobenko–Suris step of the Lagrange top (`i1 = 1/I₁`, `kappa = 1/I₃ − 1/I₁`,
/// `c = mgl χ₃`): half kick `Π⁺ = Π + ½h c (Γ₂, −Γ₁, 0)`, `W` the rotation of the quaternion
/// `(1, y) ⊗ (cos ψ, sin ψ e3)`, `y = hΠ⁺/(2I₁)`, `ψ = ½hκΠ⁺₃` (`= cay(hΠ⁺/I₁) exp(2ψ ê3)`),
/// `R' = RW`, `Π' = WᵀΠ⁺` (third component `Π⁺₃`) and the second half kick at `Γ' = R'ᵀe3`.
#[inline]
fn hand_bs(i1: f64, kappa: f64, c: f64, r: &mut Matrix3<f64>, pi: &mut Vector3<f64>, h: f64) {
    let k = 0.5 * h * c;
    let p = Vector3::new(pi[0] + k * r[(2, 1)], pi[1] - k * r[(2, 0)], pi[2]);
    let y = p * (0.5 * h * i1);
    let (s, co) = (0.5 * h * kappa * p[2]).sin_cos();
    let q0 = co - y[2] * s;
    let (x, v, z) = (y[0] * co + y[1] * s, y[1] * co - y[0] * s, y[2] * co + s);
    let f = 2.0 / (q0 * q0 + x * x + v * v + z * z);
    #[rustfmt::skip]
    let w = Matrix3::new(
        1.0 - f * (v * v + z * z), f * (x * v - q0 * z), f * (x * z + q0 * v),
        f * (x * v + q0 * z), 1.0 - f * (x * x + z * z), f * (v * z - q0 * x),
        f * (x * z - q0 * v), f * (v * z + q0 * x), 1.0 - f * (x * x + v * v),
    );
    *r *= w;
    let m = w.tr_mul(&p);
    *pi = Vector3::new(m[0] + k * r[(2, 1)], m[1] - k * r[(2, 0)], p[2]);
}

/// `n` steps of `m` through its own (statically dispatched) `OneStep::step`.
fn run_static<M: OneStep<State>>(m: &M, s: &mut State, h: f64, n: usize) {
    for _ in 0..n {
        m.step(black_box(s), black_box(h)).unwrap();
    }
}

fn run(m: &dyn OneStep<State>, s: &mut State, h: f64, n: usize) {
    for _ in 0..n {
        m.step(black_box(s), black_box(h)).unwrap();
    }
}

fn main() {
    let mut report = Report::new();
    let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0).unwrap();
    let top =
        HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::new(0.1, 0.0, 1.0)).unwrap();
    let (db, dt) = (Vector3::new(0.5, 1.0, 1.5), Vector3::new(0.5, 0.4, 1.0));
    let (mgl, chi) = (top.mgl(), *top.chi());
    let body0 = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin()));
    let top0 = LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
    let (hb, ht) = (0.05, 0.01);

    let ef = CoadjointEnergy::new(So3, Chart::Cayley, body.hamiltonian());
    let ls = EnergyMomentum::new(ReducedTop::heavy(&top));
    let sw = LieNewmark::new(ReducedTop::heavy(&top));
    let ef_top = VerticalCoadjointEnergy::new(Chart::Cayley, ReducedTop::heavy(&top));
    let sv = hp::stormer_verlet(So3, Chart::Cayley, top).unwrap();

    // the hand loops follow the methods
    type Hand<'a> = Box<dyn Fn(&mut State, f64) + 'a>;
    let hands: [(&dyn OneStep<State>, Hand, State, f64); 4] = [
        (&ef, Box::new(|s: &mut State, h| hand_ef(&db, &mut s.g, &mut s.mu, h)), body0, hb),
        (&ls, Box::new(|s: &mut State, h| hand_ls(&dt, mgl, &chi, &mut s.g, &mut s.mu, h)), top0, ht),
        (&sw, Box::new(|s: &mut State, h| hand_sw(&dt, mgl, &chi, &mut s.g, &mut s.mu, h)), top0, ht),
        (&ef_top, Box::new(|s: &mut State, h| hand_ef_top(&dt, mgl, &chi, &mut s.g, &mut s.mu, h)), top0, ht),
    ];
    for (m, hand, s0, h) in &hands {
        let (mut a, mut b) = (*s0, *s0);
        for _ in 0..1000 {
            m.step(&mut a, *h).unwrap();
            hand(&mut b, *h);
        }
        let d = (a.g - b.g).amax().max((a.mu - b.mu).amax());
        assert!(d <= 1e-12, "{}: the hand loop differs by {d:e}", m.name());
    }

    for ((m, hand, s0, h), case) in hands.iter().zip([
        "rigid_body_engo_faltinsen",
        "heavy_top_lewis_simo",
        "heavy_top_simo_wong",
        "heavy_top_engo_faltinsen",
    ]) {
        let (mut s1, mut s2) = (*s0, *s0);
        report.case(
            case,
            2.0,
            STEPS,
            |n| run(*m, &mut s1, *h, n),
            |n| {
                for _ in 0..n {
                    hand(black_box(&mut s2), black_box(*h));
                }
            },
        );
    }
    for (m, case) in [
        (&ls as &dyn OneStep<State>, "heavy_top_lewis_simo_vs_hp_sv"),
        (&sw, "heavy_top_simo_wong_vs_hp_sv"),
        (&ef_top, "heavy_top_engo_faltinsen_vs_hp_sv"),
    ] {
        let (mut s1, mut s2) = (top0, top0);
        report.case(case, f64::INFINITY, STEPS, |n| run(m, &mut s1, ht, n), |n| run(&sv, &mut s2, ht, n));
    }
    // Engø–Faltinsen on the free body beside HP Störmer–Verlet on the heavy top (one step each)
    let (mut s1, mut s2) = (body0, top0);
    report.case(
        "rigid_body_engo_faltinsen_vs_hp_sv_heavy_top",
        f64::INFINITY,
        STEPS,
        |n| run(&ef, &mut s1, hb, n),
        |n| run(&sv, &mut s2, ht, n),
    );
    report.print(
        "Part I baselines: generic route / hand-written loop (target 2), and / HP Störmer–Verlet on the heavy top",
    );

    // Bobenko–Suris's discrete Lagrange top (explicit: target 1.3), on the Lagrange top
    // I = diag(2, 2, 1), mgl = 1, χ = e3 from the heavy top's start, h = 0.01
    let mut report = Report::new();
    let lagrange = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.0, 1.0)), 1.0, Vector3::z()).unwrap();
    let bs = BobenkoSuris::new(&lagrange).unwrap();
    let sv_lagrange = hp::stormer_verlet(So3, Chart::Cayley, lagrange).unwrap();
    let (i1, kappa, c) = (0.5, 1.0 - 0.5, lagrange.mgl());
    let (mut a, mut b) = (top0, top0);
    for _ in 0..1000 {
        bs.step(&mut a, ht).unwrap();
        hand_bs(i1, kappa, c, &mut b.g, &mut b.mu, ht);
    }
    let d = (a.g - b.g).amax().max((a.mu - b.mu).amax());
    assert!(d <= 1e-12, "Bobenko–Suris: the hand loop differs by {d:e}");
    let (mut s1, mut s2) = (top0, top0);
    report.case(
        "lagrange_top_bobenko_suris",
        1.3,
        STEPS,
        |n| run_static(&bs, &mut s1, ht, n),
        |n| {
            for _ in 0..n {
                let s = black_box(&mut s2);
                hand_bs(i1, kappa, c, &mut s.g, &mut s.mu, black_box(ht));
            }
        },
    );
    // the same step as a `dyn OneStep`, as the workbench runs it (information)
    let (mut s1, mut s2) = (top0, top0);
    report.case(
        "lagrange_top_bobenko_suris_dyn",
        f64::INFINITY,
        STEPS,
        |n| run(&bs, &mut s1, ht, n),
        |n| {
            for _ in 0..n {
                let s = black_box(&mut s2);
                hand_bs(i1, kappa, c, &mut s.g, &mut s.mu, black_box(ht));
            }
        },
    );
    let (mut s1, mut s2) = (top0, top0);
    report.case(
        "lagrange_top_bobenko_suris_vs_hp_sv",
        f64::INFINITY,
        STEPS,
        |n| run(&bs, &mut s1, ht, n),
        |n| run(&sv, &mut s2, ht, n),
    );
    let (mut s1, mut s2) = (top0, top0);
    report.case(
        "lagrange_top_bobenko_suris_vs_hp_sv_lagrange_top",
        f64::INFINITY,
        STEPS,
        |n| run(&bs, &mut s1, ht, n),
        |n| run(&sv_lagrange, &mut s2, ht, n),
    );
    report.print(
        "Bobenko–Suris discrete Lagrange top: route / hand-written loop (target 1.3), and / HP Störmer–Verlet (heavy top, Lagrange top)",
    );
}
