//! The underwater vehicle with gravity and buoyancy on SE(3) (`models::BuoyantVehicle`;
//! Leonard 1997, Leonard & Marsden 1997; docs/math.md §D.6.1): `ℓ = ½ξᵀ𝕄ξ - V(g)`,
//! `V = W ⟨R r_G, e3⟩ + (W - B) ⟨b, e3⟩` with `e3` up.
//!
//! Vehicle: the solid ellipsoid a, b, c = 1, 0.5, 0.25 m in water (ρ = 1000 kg/m³, displaced
//! mass 523.6 kg), g = 9.81 m/s², CG offset and body mass per test. Every test can fail:
//!
//! * the closed-form momentum and force equal AD of `ℓ` through SE(3) (`hp::AutoDiff`), and the
//!   kick–solve–kick step of the separable model equals the general stage equations;
//! * with `W = B` and `r_G = 0` the trajectory is Kirchhoff's (`UnderwaterVehicle`);
//! * the conserved momenta `e3·(RΠ + b × RP)`, `e1·RP`, `e2·RP` (components of
//!   `Ad*_{g^{-1}}μ`) stay at round-off over 10^4 steps for every HP member (symplectic Euler
//!   A and B, Störmer–Verlet, Gauss–Legendre 2; exp and Cayley), while `e3·RP` changes at the
//!   rate `B - W`;
//! * the energy error of HP Störmer–Verlet does not drift (first tenth against last tenth of
//!   a long run); explicit Lie–Euler, the negative control, fails the same check;
//! * HP Störmer–Verlet is of order 2 against a fine reference (Kahan–Li 8 of Störmer–Verlet);
//! * signs: a bottom-heavy vehicle released tilted swings through upright to the opposite tilt
//!   and back, with the exact pendulum period of its righting moment (docs/math.md §D.6.1); a
//!   heavier-than-water vehicle sinks with the acceleration `(W - B)/(m + added mass)`, a
//!   lighter one rises.

use crate::hp_common;

use discretization::OneStep;
use discretization::composition::{Composition, kahan_li8};
use geom_core::lie::{Chart, LieGroup, Se3, se3};
use hp_common::slope;
use integrators::hp::{self, AutoDiff, HpIntegrator, LeftLagrangian, LieState};
use integrators::models::{BuoyantParameters, BuoyantVehicle, UnderwaterVehicle};
use integrators::tableau;
use nalgebra::{Matrix4, Matrix6, Vector3, Vector6};

type State = LieState<Matrix4<f64>, 6>;
type Method = Box<dyn OneStep<State>>;

const G: f64 = 9.81;

fn ellipsoid(mass_ratio: f64, r_g: Vector3<f64>) -> (BuoyantVehicle, BuoyantParameters) {
    BuoyantVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0, mass_ratio, r_g, G).unwrap()
}

/// The state at `g0 = exp(x0)` with body velocity `ξ0` (`μ = 𝕄ξ`).
fn state(veh: &BuoyantVehicle, x0: Vector6<f64>, xi0: Vector6<f64>) -> State {
    LieState::new(Se3.exp(&x0), veh.metric() * xi0)
}

/// A bottom-heavy vehicle, slightly heavier than water, with its CG off every body axis,
/// released tilted and spinning: the conservation test.
fn tumbling() -> (BuoyantVehicle, State) {
    let (veh, _) = ellipsoid(1.02, Vector3::new(0.03, -0.02, -0.08));
    let s0 = state(&veh, Vector6::new(0.6, -0.3, 0.2, 1.0, -2.0, 0.5), Vector6::new(0.4, -0.6, 0.8, 0.5, 0.2, -0.1));
    (veh, s0)
}

/// The HP members of the tests, both charts.
fn members(veh: BuoyantVehicle) -> Vec<Method> {
    let mut ms: Vec<Method> = Vec::new();
    for chart in [Chart::Exp, Chart::Cayley] {
        ms.push(Box::new(hp::symplectic_euler_a(Se3, chart, veh).unwrap()));
        ms.push(Box::new(hp::symplectic_euler_b(Se3, chart, veh).unwrap()));
        ms.push(Box::new(hp::stormer_verlet(Se3, chart, veh).unwrap()));
        ms.push(Box::new(
            HpIntegrator::<_, _, 6, 2>::new(Se3, &tableau::gauss_legendre(2).unwrap(), chart, veh).unwrap(),
        ));
    }
    ms
}

#[test]
fn closed_forms_match_autodiff_through_se3() {
    let (veh, _) = tumbling();
    let g = Se3.exp(&Vector6::new(0.7, -1.2, 0.4, 1.0, 2.0, -3.0));
    let xi = Vector6::new(0.3, -0.5, 0.8, 1.0, -0.4, 0.2);
    let ad = AutoDiff(veh);
    let m = LeftLagrangian::<f64, Se3, 6>::momentum(&veh, &Se3, &g, &xi).unwrap();
    let ma = LeftLagrangian::<f64, Se3, 6>::momentum(&ad, &Se3, &g, &xi).unwrap();
    let f = LeftLagrangian::<f64, Se3, 6>::force(&veh, &Se3, &g, &xi).unwrap();
    let fa = LeftLagrangian::<f64, Se3, 6>::force(&ad, &Se3, &g, &xi).unwrap();
    println!("momentum closed vs AD {:.2e}, force closed vs AD {:.2e}", (m - ma).norm(), (f - fa).norm());
    assert!((m - ma).norm() <= 1e-12 * m.norm(), "{m} {ma}");
    assert!((f - fa).norm() <= 1e-12 * f.norm(), "{f} {fa}");
    assert_eq!(f, veh.force(&g));
    // E = <μ, ξ> - ℓ
    let s = LieState::new(g, m);
    let l = integrators::hp::LieFunction::<f64, Se3, 6>::eval(&veh, &Se3, &g, &xi);
    assert!((veh.energy(&s) - (m.dot(&xi) - l)).abs() <= 1e-12 * veh.energy(&s).abs());
    // the force is the gradient of -V along g exp(εη), by a central difference
    let eps = 1e-6;
    for k in 0..6 {
        let e = Vector6::from_fn(|i, _| if i == k { eps } else { 0.0 });
        let dv = (veh.potential(&(g * Se3.exp(&e))) - veh.potential(&(g * Se3.exp(&(-e))))) / (2.0 * eps);
        assert!((f[k] + dv).abs() <= 1e-6 * veh.weight(), "component {k}: {} vs {}", f[k], -dv);
    }
}

/// The model is separable (`LeftLagrangian::SEPARABLE`): Störmer–Verlet and symplectic Euler
/// take the kick–solve–kick step. `AutoDiff` of the model never claims separability, so its
/// members solve the general stage equations with the Lagrangian differentiated through SE(3);
/// both give the same step map. Compared one step at a time along 200 steps (2 s) of the
/// tumbling vehicle.
#[test]
fn separable_path_matches_the_general_stage_equations() {
    let (veh, s0) = tumbling();
    for chart in [Chart::Exp, Chart::Cayley] {
        let pairs: [(Method, Method); 3] = [
            (
                Box::new(hp::stormer_verlet(Se3, chart, veh).unwrap()),
                Box::new(hp::stormer_verlet(Se3, chart, AutoDiff(veh)).unwrap()),
            ),
            (
                Box::new(hp::symplectic_euler_a(Se3, chart, veh).unwrap()),
                Box::new(hp::symplectic_euler_a(Se3, chart, AutoDiff(veh)).unwrap()),
            ),
            (
                Box::new(hp::symplectic_euler_b(Se3, chart, veh).unwrap()),
                Box::new(hp::symplectic_euler_b(Se3, chart, AutoDiff(veh)).unwrap()),
            ),
        ];
        for (fast, general) in pairs {
            let mut s = s0;
            let mut diff = 0.0f64;
            for _ in 0..200 {
                let mut t = s;
                fast.step(&mut s, 0.01).unwrap();
                general.step(&mut t, 0.01).unwrap();
                diff = diff.max((s.g - t.g).amax() / s.g.amax() + (s.mu - t.mu).amax() / s.mu.amax());
            }
            println!("{:<32} separable vs general stage equations (AD): {diff:.2e}", fast.name());
            assert!(diff <= 1e-13, "{}: {diff:e}", fast.name());
        }
    }
}

#[test]
fn neutral_and_centred_is_kirchhoffs_vehicle() {
    let (kirchhoff, _) = UnderwaterVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0).unwrap();
    let mut metric = Matrix6::zeros();
    metric.fixed_view_mut::<3, 3>(0, 0).copy_from(kirchhoff.inertia());
    metric.fixed_view_mut::<3, 3>(3, 3).copy_from(kirchhoff.mass());
    let w = 523.6 * G;
    let veh = BuoyantVehicle::new(metric, w, w, Vector3::zeros()).unwrap();
    let s0 = state(&veh, Vector6::new(0.2, -0.1, 0.4, 1.0, -2.0, 0.5), Vector6::new(0.3, 0.5, -0.2, 1.0, 0.3, -0.2));
    for chart in [Chart::Exp, Chart::Cayley] {
        let a = hp::stormer_verlet(Se3, chart, veh).unwrap();
        let b = hp::stormer_verlet(Se3, chart, kirchhoff).unwrap();
        let (mut sa, mut sb) = (s0, s0);
        let mut diff = 0.0f64;
        for _ in 0..100 {
            a.step(&mut sa, 0.05).unwrap();
            b.step(&mut sb, 0.05).unwrap();
            diff = diff.max((sa.g - sb.g).norm() / sa.g.norm() + (sa.mu - sb.mu).norm() / sa.mu.norm());
        }
        println!("{:<28} buoyant (W = B, r_G = 0) vs Kirchhoff: {diff:.2e}", a.name());
        assert!(diff <= 1e-12, "{diff:e}");
    }
}

/// 10^4 steps of h = 0.01 s (T = 100 s; the vehicle sinks ~400 m and tumbles).
/// Errors are relative to the size of the terms: `|Π| + |b||P|` for the angular momentum about
/// the vertical (it sums `RΠ` and `b × RP`, and `b` grows), `|P|` for the linear ones; the
/// round-off of one step is ~1e-16 of these, and a random walk of 10^4 steps ~1e-14.
#[test]
fn conserved_momenta_to_round_off_for_every_member() {
    let (veh, s0) = tumbling();
    let (h, n) = (0.01, 10_000);
    for m in members(veh) {
        let mut s = s0;
        let j0 = Vector3::from(veh.momenta(&s));
        let lin0 = s.spatial_momentum(&Se3)[5];
        let (mut dang, mut dlin, mut dvert, mut defect) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for k in 1..=n {
            m.step(&mut s, h).unwrap();
            let j = Vector3::from(veh.momenta(&s));
            let (pi, p) = se3::split(&s.mu);
            let b = s.g.fixed_view::<3, 1>(0, 3).norm();
            dang = dang.max((j[0] - j0[0]).abs() / (pi.norm() + b * p.norm()));
            dlin = dlin.max((j[1] - j0[1]).abs().max((j[2] - j0[2]).abs()) / p.norm());
            // e3·RP changes at the rate B - W (exactly, for a constant spatial force)
            let vert = s.spatial_momentum(&Se3)[5];
            dvert = dvert.max((vert - lin0 + veh.net_weight() * h * k as f64).abs() / p.norm());
            defect = defect.max(LieGroup::<f64, 6>::defect(&Se3, &s.g));
        }
        println!(
            "{:<32} e3·(RΠ + b×RP): {dang:.2e}  e1,e2·RP: {dlin:.2e}  e3·RP - (B-W)t: {dvert:.2e}  SE(3) defect {defect:.2e}  depth {:.1} m",
            m.name(),
            -s.g[(2, 3)]
        );
        assert!(dang <= 1e-11, "{}: angular momentum about e3 {dang:e}", m.name());
        assert!(dlin <= 1e-11, "{}: horizontal momentum {dlin:e}", m.name());
        assert!(dvert <= 1e-11, "{}: vertical momentum {dvert:e}", m.name());
        assert!(defect <= 1e-12, "{}: SE(3) defect {defect:e}", m.name());
        assert!(s.g[(2, 3)] < s0.g[(2, 3)] - 10.0, "{}: the heavier vehicle did not sink", m.name());
    }
}

/// A neutrally buoyant (`W = B`), bottom-heavy vehicle with its CG off the vertical body axis,
/// tilted by about 1 rad and spinning: bounded motion (no net force), the energy test.
fn bottom_heavy_tumbling() -> (BuoyantVehicle, State) {
    let (veh, _) = ellipsoid(1.0, Vector3::new(0.02, 0.01, -0.06));
    let s0 = state(&veh, Vector6::new(0.9, 0.4, 0.0, 0.0, 0.0, 0.0), Vector6::new(0.5, -0.4, 0.9, 0.3, -0.2, 0.1));
    (veh, s0)
}

/// Explicit Lie–Euler, `g_{k+1} = g_k exp(hξ_k)`, `μ_{k+1} = μ_k + h (ad*_{ξ_k} μ_k + f(g_k))`:
/// consistent, not symplectic (the negative control of the energy test).
struct LieEuler(BuoyantVehicle);

impl OneStep<State> for LieEuler {
    fn name(&self) -> String {
        "explicit Lie–Euler".into()
    }
    fn order(&self) -> u32 {
        1
    }
    fn step(&self, s: &mut State, h: f64) -> geom_core::Result<()> {
        let xi = self.0.velocity(&s.mu);
        let mu = s.mu + (LieGroup::<f64, 6>::ad_star(&Se3, &xi, &s.mu) + self.0.force(&s.g)) * h;
        s.g *= Se3.exp(&(xi * h));
        s.mu = mu;
        Ok(())
    }
}

/// `(max relative energy error, max over the first tenth, max over the last tenth)`, relative to
/// `E_kin(0) + W|r_G|` (the potential ranges over `±W|r_G|`).
fn energy_run(m: &dyn OneStep<State>, veh: &BuoyantVehicle, s0: &State, h: f64, n: usize) -> (f64, f64, f64) {
    let mut s = *s0;
    let e0 = veh.energy(&s);
    let scale = 0.5 * s.mu.dot(&veh.velocity(&s.mu)) + veh.weight() * veh.r_g().norm();
    let (mut all, mut first, mut last) = (0.0f64, 0.0f64, 0.0f64);
    for k in 1..=n {
        m.step(&mut s, h).unwrap();
        let de = (veh.energy(&s) - e0).abs() / scale;
        all = all.max(de);
        if k <= n / 10 {
            first = first.max(de);
        }
        if k > n - n / 10 {
            last = last.max(de);
        }
    }
    (all, first, last)
}

/// 2·10^4 steps of h = 0.02 s (T = 400 s, about 150 swings). A symplectic method's energy error
/// oscillates without drift: the maximum over the last tenth stays within twice that over the
/// first tenth. Explicit Lie–Euler (2·10^4 steps of h = 0.002 s) drifts and fails the check.
#[test]
fn energy_error_does_not_drift() {
    let (veh, s0) = bottom_heavy_tumbling();
    for chart in [Chart::Exp, Chart::Cayley] {
        let sv = hp::stormer_verlet(Se3, chart, veh).unwrap();
        let (all, first, last) = energy_run(&sv, &veh, &s0, 0.02, 20_000);
        println!("{:<28} energy error max {all:.3e}, first tenth {first:.3e}, last tenth {last:.3e}", sv.name());
        assert!(last <= 2.0 * first, "{}: energy error grows {first:.3e} -> {last:.3e}", sv.name());
        assert!(all <= 1e-3, "{}: energy error {all:.3e}", sv.name());
    }
    let (all, first, last) = energy_run(&LieEuler(veh), &veh, &s0, 0.002, 20_000);
    println!("{:<28} energy error max {all:.3e}, first tenth {first:.3e}, last tenth {last:.3e}", "explicit Lie–Euler");
    assert!(last > 2.0 * first, "the negative control did not drift: {first:.3e} -> {last:.3e}");
}

/// Max-norm distance of two states: `|g - g'|` plus `|μ - μ'| / |μ'|`.
fn distance(a: &State, b: &State) -> f64 {
    (a.g - b.g).amax() + (a.mu - b.mu).amax() / b.mu.amax()
}

/// Global error at T = 5 s for h = 0.04, 0.02, 0.01, 0.005 against Kahan–Li 8 of the same
/// Störmer–Verlet with h = 0.005 (error ~1e-13, below the smallest measured error by 1e5).
#[test]
fn stormer_verlet_is_second_order() {
    let (veh, s0) = tumbling();
    let t = 5.0;
    for chart in [Chart::Exp, Chart::Cayley] {
        let sv = hp::stormer_verlet(Se3, chart, veh).unwrap();
        let reference = {
            let m = Composition::new(hp::stormer_verlet(Se3, chart, veh).unwrap(), kahan_li8()).unwrap();
            let mut s = s0;
            for _ in 0..1000 {
                m.step(&mut s, t / 1000.0).unwrap();
            }
            s
        };
        let errs: Vec<f64> = [125usize, 250, 500, 1000]
            .iter()
            .map(|&n| {
                let mut s = s0;
                for _ in 0..n {
                    sv.step(&mut s, t / n as f64).unwrap();
                }
                distance(&s, &reference)
            })
            .collect();
        let slopes: Vec<f64> = errs.windows(2).map(|w| slope(w[0], w[1])).collect();
        println!(
            "{:<28} errors {:.3e} {:.3e} {:.3e} {:.3e}, slopes {:.3?}",
            sv.name(),
            errs[0],
            errs[1],
            errs[2],
            errs[3],
            slopes
        );
        for p in slopes {
            assert!((p - 2.0).abs() <= 0.1, "{}: slope {p}", sv.name());
        }
    }
}

/// `AGM(a, b)`, the arithmetic–geometric mean.
fn agm(mut a: f64, mut b: f64) -> f64 {
    while (a - b).abs() > 1e-16 * a {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    a
}

/// A neutrally buoyant vehicle with its CG `z_G = 0.05` m below the CB, released at rest rolled
/// by `φ0` about the body x axis. Its spatial linear momentum is conserved and zero, so
/// `P = 0`, `Π = S Ω` with the Schur complement `S = J - D M^{-1} Dᵀ` of `𝕄`, and the roll
/// `φ = atan2(R_32, R_33)` obeys the pendulum equation `S_11 φ̈ = -W z_G sin φ`: it swings through
/// upright to `-φ0` and back with the period `2π / (ω0 AGM(1, cos(φ0/2)))`, `ω0² = W z_G / S_11`.
/// A wrong sign of the righting moment capsizes the vehicle (no zero crossing); a wrong size
/// shifts the period. Measured by the zero crossings of `φ` (linear interpolation, where
/// `φ̈ = 0`), h = 0.002 s: the relative period error of Störmer–Verlet is ~(hω0)²/24 ≈ 1e-6.
#[test]
fn bottom_heavy_vehicle_swings_about_upright() {
    let z_g = 0.05;
    let (veh, p) = ellipsoid(1.0, Vector3::new(0.0, 0.0, -z_g));
    let mm = veh.metric();
    let (j, d, mv) = (
        mm.fixed_view::<3, 3>(0, 0).into_owned(),
        mm.fixed_view::<3, 3>(0, 3).into_owned(),
        mm.fixed_view::<3, 3>(3, 3).into_owned(),
    );
    let schur = j - d * mv.try_inverse().unwrap() * d.transpose();
    let omega0 = (p.weight * z_g / schur[(0, 0)]).sqrt();
    for (phi0, chart) in [(0.8, Chart::Cayley), (0.8, Chart::Exp), (2.5, Chart::Cayley)] {
        let period = 2.0 * std::f64::consts::PI / (omega0 * agm(1.0, (0.5f64 * phi0).cos()));
        let sv = hp::stormer_verlet(Se3, chart, veh).unwrap();
        let mut s = state(&veh, Vector6::new(phi0, 0.0, 0.0, 0.0, 0.0, 0.0), Vector6::zeros());
        let h = 0.002;
        let roll = |s: &State| s.g[(2, 1)].atan2(s.g[(2, 2)]);
        let (mut crossings, mut min_roll, mut max_roll) = (Vec::new(), 0.0f64, 0.0f64);
        let mut prev = roll(&s);
        let mut k = 0;
        while crossings.len() < 3 && k < (5.0 * period / h) as usize {
            sv.step(&mut s, h).unwrap();
            k += 1;
            let r = roll(&s);
            // a sign change through 0, not the wrap of atan2 at ±π
            if prev.signum() != r.signum() && (prev - r).abs() < 1.0 {
                crossings.push(h * (k as f64 - 1.0 + prev / (prev - r)));
            }
            (min_roll, max_roll) = (min_roll.min(r), max_roll.max(r));
            prev = r;
        }
        assert_eq!(crossings.len(), 3, "φ0 = {phi0}: the vehicle did not swing through upright (capsized?)");
        let measured = crossings[2] - crossings[0];
        println!(
            "{:<28} φ0 = {phi0}: period {measured:.6} s (pendulum {period:.6} s, rel. {:.1e}), roll in [{min_roll:.6}, {max_roll:.6}]",
            sv.name(),
            (measured - period).abs() / period
        );
        assert!((measured - period).abs() <= 1e-4 * period, "period {measured} vs {period}");
        assert!((min_roll + phi0).abs() <= 1e-4 && max_roll <= phi0 + 1e-6, "roll range [{min_roll}, {max_roll}]");
    }
}

/// Released upright at rest with `r_G = 0`, the vehicle moves straight along the vertical:
/// `P = (B - W) t e3`, `b_3(t) = b_3(0) - ½ (W - B) t² / 𝕄_66` (`𝕄_66` = mass plus added mass
/// along the vertical body axis). Störmer–Verlet integrates a constant force exactly, so the
/// depth matches to round-off: heavier sinks (in the direction of gravity, `-e3`), lighter rises.
#[test]
fn heavier_sinks_and_lighter_rises() {
    for (ratio, label) in [(1.05, "heavier"), (0.95, "lighter")] {
        let (veh, _) = ellipsoid(ratio, Vector3::zeros());
        let sv = hp::stormer_verlet(Se3, Chart::Cayley, veh).unwrap();
        let mut s = state(&veh, Vector6::new(0.0, 0.0, 0.0, 3.0, -1.0, -2.0), Vector6::zeros());
        let b0 = s.g.fixed_view::<3, 1>(0, 3).into_owned();
        let (h, n) = (0.01, 1000);
        for _ in 0..n {
            sv.step(&mut s, h).unwrap();
        }
        let t = h * n as f64;
        let expected = b0[2] - 0.5 * veh.net_weight() * t * t / veh.metric()[(5, 5)];
        let b = s.g.fixed_view::<3, 1>(0, 3).into_owned();
        println!(
            "{label}: W - B = {:+.1} N, height {:+.6} m after {t} s (expected {expected:+.6}), horizontal drift {:.1e} m",
            veh.net_weight(),
            b[2],
            (b.fixed_rows::<2>(0) - b0.fixed_rows::<2>(0)).norm()
        );
        assert!((b[2] - expected).abs() <= 1e-10 * (expected - b0[2]).abs(), "{label}: {} vs {expected}", b[2]);
        assert_eq!((b[2] < b0[2]), veh.net_weight() > 0.0, "{label}: moved the wrong way");
        assert!((b.fixed_rows::<2>(0) - b0.fixed_rows::<2>(0)).norm() <= 1e-12);
    }
}
