//! The Wisdom–Holman method of `integrators::splitting` on a star and two planets in space:
//! the Jacobi coordinates and the flows of the split Hamiltonian; order 2 against DOP853 at
//! tolerance 1e-13; the energy error `∝ ε h²` (planet masses `ε`) where Störmer–Verlet's does
//! not shrink with `ε`; the symplectic correctors (their moments, and the energy error `∝ ε²`);
//! SABA_n and SABAC_n (Gauss' rule, the order conditions at first order in `ε`, `g_n`, and the
//! error terms they remove); bad input refused with the state untouched.

use crate::wisdom_holman_common::{self as common, dist, model, sci, slope, state};
use geom_core::GeomError;
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::pairwise::{self, Gravity, NBody};
use geom_core::step::{OneStep, PhaseState};
use integrators::classical::StormerVerlet;
use integrators::dop853::Dop853;
use integrators::splitting::{
    CORRECTOR_A1, CORRECTOR_ORDERS, DemocraticHeliocentric, JacobiState, PlanetarySplit, PlanetarySystem,
    ProcessedWisdomHolman, SymplecticCorrector, WisdomHolman, kick_moments, lie_trotter, order_defects,
    perturbed_order_defects, saba, sabac_corrector, strang,
};
use nalgebra::SVector;

/// `max_k |H(x_k) − H(x_0)| / ε` from [`state`].
fn energy_error<M: OneStep<PhaseState<9>>>(method: &M, eps: f64, h: f64, steps: usize) -> f64 {
    common::energy_error(method, &state(eps), eps, h, steps)
}

#[test]
fn jacobi_coordinates_round_trip_and_split_the_kinetic_energy() {
    let eps = 1e-3;
    let system = PlanetarySystem::<3, 3>::from_model(&model(eps)).unwrap();
    let s = state(eps);
    let j: JacobiState<3, 3> = system.to_jacobi(&s);
    let back: PhaseState<9> = system.to_inertial(&j);
    assert!(dist(&back, &s, 1.0) < 1e-15, "{:.2e}", dist(&back, &s, 1.0));
    // T = Σ m_i |v_i|²/2 = Σ m'_i |v'_i|²/2
    let m = [1.0, eps, 0.4 * eps];
    let t: f64 = (0..9).map(|r| 0.5 * s.p[r] * s.p[r] / m[r / 3]).sum();
    let mj = system.masses().jacobi_masses();
    let tj: f64 = (0..3).map(|i| 0.5 * mj[i] * j.v[i].norm_squared()).sum();
    assert!((t - tj).abs() < 1e-15 * t, "{t} vs {tj}");
    // q'_1 = x_1 − x_0, q'_2 = x_2 − (m_0 x_0 + m_1 x_1)/η_1
    let x = |i: usize| SVector::<f64, 3>::from_fn(|k, _| s.q[3 * i + k]);
    assert!((j.q[1] - (x(1) - x(0))).norm() < 1e-16);
    assert!((j.q[2] - (x(2) - (x(0) + x(1) * eps) / (1.0 + eps))).norm() < 1e-15);
}

/// `H_I(q') = Σ_{i≥1} G m_i η_{i−1}/|q'_i| − Σ_{i<j} G m_i m_j/|x_i − x_j|`, written out.
fn interaction_energy(system: &PlanetarySystem<3, 3>, j: &JacobiState<3, 3>) -> f64 {
    let (m, eta) = (system.masses().masses(), system.masses().eta());
    let x = system.masses().to_inertial(&j.q);
    let mut h = 0.0;
    for i in 1..3 {
        h += m[i] * eta[i - 1] / j.q[i].norm();
        for k in 0..i {
            h -= m[i] * m[k] / (x[i] - x[k]).norm();
        }
    }
    h
}

#[test]
fn the_kicks_are_the_flows_of_the_interaction_and_of_the_sabac_corrector() {
    let eps = 0.05;
    let system = PlanetarySystem::<3, 3>::from_model(&model(eps)).unwrap();
    let j = system.to_jacobi(&state(eps));
    let mj = system.masses().jacobi_masses();
    // −∇H_I/m' by central differences of the written-out H_I
    let a = system.interaction_acceleration(&j);
    let c = |j: &JacobiState<3, 3>| {
        let a = system.interaction_acceleration(j);
        (1..3).map(|i| mj[i] * a[i].norm_squared()).sum::<f64>()
    };
    let (mut worst_a, mut worst_c) = (0.0f64, 0.0f64);
    let t = 0.37;
    let mut kicked = j;
    system.corrector_kick(&mut kicked, t);
    for i in 1..3 {
        for k in 0..3 {
            let d = 1e-5;
            let (mut plus, mut minus) = (j, j);
            plus.q[i][k] += d;
            minus.q[i][k] -= d;
            let grad = (interaction_energy(&system, &plus) - interaction_energy(&system, &minus)) / (2.0 * d);
            worst_a = worst_a.max((a[i][k] + grad / mj[i]).abs() / a[i].norm());
            // C = Σ m'|a'|² = Σ |∇H_I|²/m': the kick is v' ← v' − t ∇C/m'
            let grad_c = (c(&plus) - c(&minus)) / (2.0 * d);
            let dv = kicked.v[i][k] - j.v[i][k];
            worst_c = worst_c.max((dv + t * grad_c / mj[i]).abs() / (t * grad_c / mj[i]).abs().max(1e-12));
        }
    }
    println!("kick vs −∇H_I/m': {worst_a:.2e}; corrector kick vs −t∇C/m': {worst_c:.2e}");
    assert!(worst_a < 1e-8, "{worst_a:.2e}");
    assert!(worst_c < 1e-6, "{worst_c:.2e}");
    // the kick leaves the positions and the centre of mass alone
    let mut k = j;
    system.kick(&mut k, 0.1);
    assert_eq!((k.q, k.v[0]), (j.q, j.v[0]));
}

#[test]
fn order_two_against_dop853_and_far_better_than_stormer_verlet() {
    let eps = 1e-3;
    let ham = model(eps);
    let t_end = 20.0;
    let reference = Dop853::hamiltonian(ham).integrate(0.0, state(eps), t_end, 1e-13, 1e-13).unwrap().y;
    let wh = WisdomHolman::whfast(&ham).unwrap();
    let sv = StormerVerlet::new(ham);
    let (mut hs, mut errs) = (Vec::new(), Vec::new());
    for k in 0..4 {
        let n = 100 << k;
        let h = t_end / n as f64;
        let mut s = state(eps);
        wh.step_n(&mut s, h, n).unwrap();
        let mut v = state(eps);
        sv.step_n(&mut v, h, n).unwrap();
        let (e_wh, e_sv) = (dist(&s, &reference, eps), dist(&v, &reference, eps));
        println!("h = {h:.4}: |WH − DOP853| = {e_wh:.3e}, |SV − DOP853| = {e_sv:.3e}");
        assert!(e_wh * 100.0 < e_sv, "h = {h}: WH {e_wh:.2e} vs SV {e_sv:.2e}");
        hs.push(h);
        errs.push(e_wh);
    }
    let p = slope(&hs, &errs);
    println!("measured order of WH: {p:.3}");
    assert!((p - 2.0).abs() < 0.3, "{p}");
}

#[test]
fn energy_error_scales_like_eps_h_squared() {
    let (h, steps) = (0.2, 600);
    let epsilons = [1e-3, 1e-4, 1e-5];
    let wh: Vec<f64> =
        epsilons.iter().map(|&e| energy_error(&WisdomHolman::whfast(&model(e)).unwrap(), e, h, steps)).collect();
    let sv: Vec<f64> = epsilons.iter().map(|&e| energy_error(&StormerVerlet::new(model(e)), e, h, steps)).collect();
    let (p_wh, p_sv) = (slope(&epsilons, &wh), slope(&epsilons, &sv));
    let wh_s = sci(&wh);
    let sv_s = sci(&sv);
    println!("relative energy errors, h = {h}: WH {wh_s} (slope in ε {p_wh:.3}), SV {sv_s} (slope {p_sv:.3})");
    assert!((p_wh - 1.0).abs() < 0.3, "{p_wh}");
    // the negative control: Störmer–Verlet's error is set by h, not by ε
    assert!(p_sv.abs() < 0.3, "{p_sv}");
    // and in h, at ε = 1e-3
    let hs = [0.2, 0.1, 0.05];
    let e: Vec<f64> = hs
        .iter()
        .map(|&h| energy_error(&WisdomHolman::whfast(&model(1e-3)).unwrap(), 1e-3, h, (120.0 / h) as usize))
        .collect();
    let p_h = slope(&hs, &e);
    let e_s = sci(&e);
    println!("WH energy errors {e_s} for h = {hs:?}: slope in h {p_h:.3}");
    assert!((p_h - 2.0).abs() < 0.3, "{p_h}");
}

/// The Taylor coefficients of `(g(x) − 1)/x`, `g(x) = (x/2)/sinh(x/2)`, up to `x^degree`: the
/// inverse of the series `sinh(x/2)/(x/2) = Σ (x/2)^{2k}/(2k + 1)!`.
fn corrector_target(degree: usize) -> Vec<f64> {
    let n = degree + 2;
    let mut s = vec![0.0; n];
    let mut f = 1.0;
    for k in 0..n {
        if k > 0 {
            f *= (2 * k) as f64 * (2 * k + 1) as f64;
        }
        if 2 * k < n {
            s[2 * k] = 0.25f64.powi(k as i32) / f;
        }
    }
    let mut g = vec![0.0; n];
    g[0] = 1.0;
    for m in 1..n {
        g[m] = -(1..=m).map(|k| s[k] * g[m - k]).sum::<f64>();
    }
    (0..=degree).map(|m| g[m + 1]).collect()
}

#[test]
fn corrector_moments_match_the_series_of_the_kernel() {
    assert!((CORRECTOR_A1 - (7.0f64 / 40.0).sqrt()).abs() < 1e-16);
    let target = corrector_target(20);
    assert!((target[1] + 1.0 / 24.0).abs() < 1e-17 && (target[3] - 7.0 / 5760.0).abs() < 1e-18);
    for order in CORRECTOR_ORDERS {
        let c = SymplecticCorrector::new(order).unwrap();
        let moments = kick_moments(c.inverse_stages(), 20);
        let total_a: f64 = c.inverse_stages().iter().filter(|s| s.0 == 0).map(|s| s.1).sum();
        assert!(total_a.abs() < 1e-14);
        // up to x^{n−2} the generator is (g(x) − 1)/x; the next odd term is not
        let n = order as usize;
        let worst = (0..=n - 2).map(|m| (moments[m] - target[m]).abs()).fold(0.0, f64::max);
        let next = (moments[n] - target[n]).abs();
        println!("corrector {order}: moments to x^{} within {worst:.2e}; x^{n} off by {next:.2e}", n - 2);
        assert!(worst < 1e-15, "order {order}: {worst:.2e}");
        assert!(next > 1e3 * worst.max(1e-18), "order {order}: the x^{n} term {next:.2e} should not vanish");
        // C is the inverse of C^{−1}: the total generator vanishes
        let both: Vec<(usize, f64)> = c.inverse_stages().iter().chain(c.stages()).copied().collect();
        assert!(kick_moments(&both, 20).iter().all(|m| m.abs() < 1e-14));
    }
    assert!(matches!(SymplecticCorrector::new(9), Err(GeomError::InvalidParameter { .. })));
}

#[test]
fn correctors_make_the_energy_error_second_order_in_eps() {
    let (h, steps) = (0.2, 300);
    let epsilons = [1e-3, 1e-4, 1e-5];
    let mut smallest = Vec::new();
    for order in CORRECTOR_ORDERS {
        let errors: Vec<f64> = epsilons
            .iter()
            .map(|&e| {
                energy_error(&WisdomHolman::whfast(&model(e)).unwrap().with_corrector(order).unwrap(), e, h, steps)
            })
            .collect();
        let plain = energy_error(&WisdomHolman::whfast(&model(1e-3)).unwrap(), 1e-3, h, steps);
        let p = slope(&epsilons, &errors);
        let errors_s = sci(&errors);
        println!(
            "corrector {order}: relative energy errors {errors_s} (slope in ε {p:.3}); uncorrected at ε = 1e-3: {plain:.3e}"
        );
        // ε² h² dominates once ε h^{n+1} is below it: from order 11 on at this h
        if order >= 11 {
            assert!((p - 2.0).abs() < 0.3, "order {order}: {p}");
        }
        assert!(errors[0] * 20.0 < plain, "order {order}");
        smallest.push(errors[2]);
    }
    // at ε = 1e-5 the ε h^{n+1} term shrinks with the order n = 3, 5, 7, 11
    assert!(smallest[..4].windows(2).all(|w| w[1] < 0.5 * w[0]), "{smallest:?}");
    // the corrector of order 3 leaves ε h⁴: the slope in h is 4 where ε² h² is smaller
    let eps = 1e-6;
    let hs = [0.4, 0.2, 0.1];
    let e: Vec<f64> = hs
        .iter()
        .map(|&h| {
            energy_error(
                &WisdomHolman::whfast(&model(eps)).unwrap().with_corrector(3).unwrap(),
                eps,
                h,
                (60.0 / h) as usize,
            )
        })
        .collect();
    let p = slope(&hs, &e);
    let e_s = sci(&e);
    println!("corrector 3 at ε = {eps}: errors {e_s} for h = {hs:?}, slope in h {p:.3}");
    assert!((p - 4.0).abs() < 0.3, "{p}");
}

#[test]
fn saba_coefficients_are_gauss_and_meet_their_conditions() {
    // Laskar & Robutel 2001, Table 1, closed forms
    let (s3, s15, s30) = (3f64.sqrt(), 15f64.sqrt(), 30f64.sqrt());
    let (r_plus, r_minus) = ((525.0 + 70.0 * s30).sqrt(), (525.0 - 70.0 * s30).sqrt());
    let published: [(Vec<f64>, Vec<f64>); 4] = [
        (vec![0.5], vec![1.0]),
        (vec![0.5 - s3 / 6.0, s3 / 3.0], vec![0.5]),
        (vec![0.5 - s15 / 10.0, s15 / 10.0], vec![5.0 / 18.0, 4.0 / 9.0]),
        (
            vec![0.5 - r_plus / 70.0, (r_plus - r_minus) / 70.0, r_minus / 35.0],
            vec![0.25 - s30 / 72.0, 0.25 + s30 / 72.0],
        ),
    ];
    // g_n of SABAC_n (Laskar & Robutel 2001, Table 2)
    let g = [1.0 / 12.0, (2.0 - s3) / 24.0, (54.0 - 13.0 * s15) / 648.0, 0.003_396_775_048_208_601];
    for (n, (c, d)) in (1..=4).zip(published) {
        let scheme = saba(n).unwrap();
        for (i, ci) in c.iter().enumerate() {
            assert!((scheme.a()[i] - ci).abs() < 1e-15, "SABA{n} c_{}", i + 1);
        }
        for (i, di) in d.iter().enumerate() {
            assert!((scheme.b()[i] - di).abs() < 1e-15, "SABA{n} d_{}", i + 1);
        }
        // order 2 in general, not 3; order 2n at first order in ε, not 2n + 1
        let stages = scheme.stages(2);
        let general = order_defects(2, &stages, 3);
        let perturbed = perturbed_order_defects(&stages, 2 * n + 1);
        let general_s = sci(&general);
        let perturbed_s = sci(&perturbed);
        println!("SABA{n}: general defects {general_s}, first order in ε {perturbed_s}");
        assert!(general[1] < 1e-15 && general[2] > 1e-4);
        assert!(perturbed[..2 * n].iter().all(|d| *d < 1e-15) && perturbed[2 * n] > 1e-8);
        let gn = sabac_corrector(&scheme);
        assert!((gn - g[n - 1]).abs() < 1e-15, "g_{n} = {gn} vs {}", g[n - 1]);
    }
    assert!(saba(0).is_err() && saba(6).is_err());
}

#[test]
fn saba_and_sabac_remove_the_error_terms_they_claim() {
    // SABA4 at small h: ε h⁸ is negligible, the error is ε² h² (slope 2 in ε, 2 in h);
    // SABAC4 removes it: ε² h⁴ (slope 4 in h)
    let eps = 1e-3;
    let hs = [0.4, 0.2, 0.1];
    let run = |m: &WisdomHolman<9, 3, 3>, h: f64| energy_error(m, eps, h, (80.0 / h) as usize);
    let (saba4, sabac4) = (WisdomHolman::saba(&model(eps), 4).unwrap(), WisdomHolman::sabac(&model(eps), 4).unwrap());
    let e_saba: Vec<f64> = hs.iter().map(|&h| run(&saba4, h)).collect();
    let e_sabac: Vec<f64> = hs.iter().map(|&h| run(&sabac4, h)).collect();
    let (p_saba, p_sabac) = (slope(&hs, &e_saba), slope(&hs, &e_sabac));
    let e_saba_s = sci(&e_saba);
    let e_sabac_s = sci(&e_sabac);
    println!("SABA4 {e_saba_s} (slope in h {p_saba:.3}); SABAC4 {e_sabac_s} (slope {p_sabac:.3})");
    assert!((p_saba - 2.0).abs() < 0.3, "{p_saba}");
    assert!((p_sabac - 4.0).abs() < 0.3, "{p_sabac}");
    let epsilons = [1e-3, 1e-4, 1e-5];
    let e: Vec<f64> =
        epsilons.iter().map(|&e| energy_error(&WisdomHolman::saba(&model(e), 4).unwrap(), e, 0.2, 400)).collect();
    let p = slope(&epsilons, &e);
    let e_s = sci(&e);
    println!("SABA4 at h = 0.2: {e_s}, slope in ε {p:.3}");
    assert!((p - 2.0).abs() < 0.3, "{p}");
    // SABA_n for n = 1..4 at a large step: the ε h^{2n} term shrinks with n
    let e: Vec<f64> =
        (1..=4).map(|n| energy_error(&WisdomHolman::saba(&model(1e-6), n).unwrap(), 1e-6, 0.8, 100)).collect();
    let e_s = sci(&e);
    println!("SABA1..4 at ε = 1e-6, h = 0.8: {e_s}");
    assert!(e.windows(2).all(|w| w[1] < 0.2 * w[0]), "{e:?}");
}

#[test]
fn bad_input_is_refused_and_a_failed_step_leaves_the_state_untouched() {
    let ham = model(1e-3);
    let wh = WisdomHolman::whfast(&ham).unwrap();
    // a planet on the star: the Kepler drift refuses q' = 0
    let mut s = state(1e-3);
    for k in 0..3 {
        s.q[3 + k] = s.q[k];
    }
    let bits: Vec<u64> = s.q.iter().chain(s.p.iter()).map(|x| x.to_bits()).collect();
    assert!(wh.step(&mut s, 0.1).is_err());
    assert!(wh.step_n(&mut s, 0.1, 3).is_err());
    assert_eq!(bits, s.q.iter().chain(s.p.iter()).map(|x| x.to_bits()).collect::<Vec<_>>());
    let mut nan = state(1e-3);
    nan.p[4] = f64::NAN;
    assert!(matches!(wh.step(&mut nan, 0.1), Err(GeomError::NonFinite { .. })));
    assert!(nan.p[4].is_nan() && nan.q == state(1e-3).q);
    // the correctors are those of the Wisdom–Holman kernel only
    assert!(WisdomHolman::saba(&ham, 2).unwrap().with_corrector(5).is_err());
    assert!(WisdomHolman::sabac(&ham, 1).unwrap().with_corrector(5).is_err());
    assert!(WisdomHolman::whfast(&ham).unwrap().with_corrector(4).is_err());
    assert!(WisdomHolman::new(&ham, strang()).unwrap().with_corrector(3).is_ok());
    assert!(WisdomHolman::saba(&ham, 9).is_err());
    // N ≠ B·D
    let bad: NBody<Gravity<3>, 9, 3> = pairwise::gravity::<9, 3, 3>(1.0, [1.0; 3]).unwrap();
    assert!(PlanetarySystem::<2, 3>::new(1.0, [1.0, 0.0, 1.0]).is_err());
    assert!(PlanetarySystem::<3, 1>::new(1.0, [1.0]).is_err());
    assert!(PlanetarySystem::<3, 3>::from_model(&bad).is_ok());
    // names, orders, symmetry
    assert_eq!((wh.order(), wh.is_symmetric()), (2, true));
    let corrected = WisdomHolman::whfast(&ham).unwrap().with_corrector(17).unwrap();
    assert!(!corrected.is_symmetric() && corrected.name().contains("corrector 17"));
    let sabac = WisdomHolman::sabac(&ham, 3).unwrap();
    assert!(sabac.is_symmetric() && sabac.name().starts_with("SABA3C"));
    assert_eq!((sabac.order(), WisdomHolman::sabac(&ham, 1).unwrap().order()), (4, 2));
}

/// `n` steps of `method` from `x0` (every step corrected), and of the processed method
/// (`P_h ∘ κ_h^n ∘ P_h^{−1}`): the largest distance of the two trajectories sampled every 50
/// steps, the same without the post-processor (the mapping variable read as if it were the
/// state: the negative control), and the largest energy errors of both.
fn processed_gap<S: PlanetarySplit<3, 3>>(method: &WisdomHolman<9, 3, 3, S>, eps: f64, h: f64, n: usize) -> [f64; 4] {
    let ham = model(eps);
    let processed = ProcessedWisdomHolman::new(method.clone()).unwrap();
    let x0 = state(eps);
    let e0 = ham.value(&x0.q, &x0.p);
    let (mut x, mut y) = (x0, processed.to_mapping(&x0, h).unwrap());
    let [mut gap, mut raw, mut e_every, mut e_processed] = [0.0f64; 4];
    for _ in 0..n / 50 {
        method.step_n(&mut x, h, 50).unwrap();
        processed.step_n(&mut y, h, 50).unwrap();
        let out = processed.to_physical(&y, h).unwrap();
        gap = gap.max(dist(&out, &x, eps));
        raw = raw.max(dist(&method.system().to_inertial(&y), &x, eps));
        e_every = e_every.max((ham.value(&x.q, &x.p) - e0).abs() / eps);
        e_processed = e_processed.max((ham.value(&out.q, &out.p) - e0).abs() / eps);
    }
    [gap, raw, e_every, e_processed]
}

/// The processed methods (`ProcessedWisdomHolman`: one drift fewer per step, the corrector and
/// the outer half drifts applied to a copy at output) compute the trajectory of the methods
/// that correct every step: the same map conjugated by `P_h`, so the same trajectory up to
/// round-off (the bound: 10⁴ ε_mach per inner orbit, a round-off drift of the phase), and the
/// same energy error; the mapping variable itself is off by `O(ε h)` (and by the half drift),
/// which the post-processor removes.
#[test]
fn processed_methods_are_the_every_step_methods_to_round_off() {
    let (eps, h, n) = (1e-3, 0.05, 2000); // 16 inner orbits
    let ham = model(eps);
    let jacobi = [
        WisdomHolman::whfast(&ham).unwrap().with_corrector(17).unwrap(),
        WisdomHolman::whfast(&ham).unwrap().with_corrector(3).unwrap(),
        WisdomHolman::whfast(&ham).unwrap(),
        WisdomHolman::saba(&ham, 4).unwrap(),
    ];
    let mut rows: Vec<(String, [f64; 4])> =
        jacobi.iter().map(|m| (OneStep::<PhaseState<9>>::name(m), processed_gap(m, eps, h, n))).collect();
    let dh = WisdomHolman::whfast_democratic(&ham).unwrap();
    rows.push((OneStep::<PhaseState<9>>::name(&dh), processed_gap(&dh, eps, h, n)));
    let bound = 1e4 * f64::EPSILON * (n as f64 * h / std::f64::consts::TAU);
    for (name, [gap, raw, e_every, e_processed]) in &rows {
        println!(
            "{name}: |processed − every step| = {gap:.2e} (bound {bound:.1e}), without the post-processor {raw:.2e}; \
             energy errors {e_every:.3e} (every step), {e_processed:.3e} (processed)"
        );
        assert!(*gap < bound, "{name}: {gap:.2e}");
        assert!(*raw > 1e3 * gap.max(bound * 1e-3), "{name}: the negative control {raw:.2e}");
        assert!((e_processed / e_every - 1.0).abs() < 0.05, "{name}: {e_processed:e} vs {e_every:e}");
    }
}

/// The processed method on its own state: the kernel is one drift of `2c h` and the inner
/// stages; `to_physical` inverts `to_mapping` to round-off; SABAC and a kernel that does not
/// end with its first drift are refused; a failed step, a bad `h` and non-finite input leave
/// the state untouched, bit for bit.
#[test]
fn processed_method_kernel_maps_and_failures() {
    let eps = 1e-3;
    let ham = model(eps);
    let p = ProcessedWisdomHolman::new(WisdomHolman::whfast(&ham).unwrap().with_corrector(17).unwrap()).unwrap();
    assert_eq!(p.kernel(), &[(0, 1.0), (1, 1.0)]);
    assert_eq!((OneStep::<JacobiState<3, 3>>::order(&p), OneStep::<JacobiState<3, 3>>::is_symmetric(&p)), (1, false));
    let saba4 = ProcessedWisdomHolman::new(WisdomHolman::saba(&ham, 4).unwrap()).unwrap();
    let stages = saba(4).unwrap().stages(2);
    assert_eq!(saba4.kernel().len(), stages.len() - 1);
    assert_eq!(saba4.kernel()[0], (0, 2.0 * stages[0].1));
    let x0 = state(eps);
    let y = p.to_mapping(&x0, 0.1).unwrap();
    let back = p.to_physical(&y, 0.1).unwrap();
    assert!(dist(&back, &x0, eps) < 1e-14, "{:.2e}", dist(&back, &x0, eps));
    // refused: SABAC (outer corrector kicks), Lie–Trotter (ends with a kick)
    assert!(ProcessedWisdomHolman::new(WisdomHolman::sabac(&ham, 4).unwrap()).is_err());
    assert!(ProcessedWisdomHolman::new(WisdomHolman::new(&ham, lie_trotter()).unwrap()).is_err());
    let dh = ProcessedWisdomHolman::new(WisdomHolman::whfast_democratic(&ham).unwrap()).unwrap();
    let _: <DemocraticHeliocentric<3, 3> as PlanetarySplit<3, 3>>::State = dh.to_mapping(&x0, 0.1).unwrap();
    // a planet on the star: the drift fails, the state is left as it was
    let mut bad = y;
    bad.q[1] = SVector::zeros();
    let bits =
        |s: &JacobiState<3, 3>| s.q.iter().chain(&s.v).flat_map(|x| x.iter().map(|w| w.to_bits())).collect::<Vec<_>>();
    let before = bits(&bad);
    assert!(p.step(&mut bad, 0.1).is_err() && p.step_n(&mut bad, 0.1, 3).is_err());
    assert_eq!(bits(&bad), before);
    assert!(p.to_physical(&bad, 0.1).is_err());
    let mut nan = y;
    nan.v[2][1] = f64::NAN;
    let before = bits(&nan);
    assert!(matches!(p.step(&mut nan, 0.1), Err(GeomError::NonFinite { .. })));
    assert_eq!(bits(&nan), before);
    assert!(matches!(p.to_mapping(&x0, 0.0), Err(GeomError::InvalidStep { .. })));
    let mut on_star = x0;
    for k in 0..3 {
        on_star.q[3 + k] = on_star.q[k];
    }
    assert!(p.to_mapping(&on_star, 0.1).is_err());
}
