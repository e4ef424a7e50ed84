//! The Wisdom–Holman method in democratic heliocentric coordinates (`DemocraticHeliocentric`,
//! Duncan, Levison & Lee 1998) on a star and two planets in space: the coordinates are
//! canonical and split `H = H_K + H_I + H_J` exactly; the flows are those of the pieces; order 2
//! against DOP853 at tolerance 1e-13; the energy error `∝ ε h²` and bounded; the trajectory
//! agrees with the Jacobi one to `O(h²)`; SABA_n in these coordinates; what is refused.

use crate::wisdom_holman_common::{self as common, dist, model, slope};
use geom_core::GeomError;
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::step::{OneStep, PhaseState};
use integrators::dop853::Dop853;
use integrators::splitting::{
    DemocraticHeliocentric, HeliocentricState, PlanetarySplit, WisdomHolman, strang, triple_jump4,
};
use nalgebra::SVector;

/// The common three bodies with a moving centre of mass (its drift exercised too).
fn state(eps: f64) -> PhaseState<9> {
    common::moving_state(eps)
}

/// `H_K + H_I + H_J` written out in the democratic heliocentric coordinates (module
/// documentation of `DemocraticHeliocentric`).
fn split_energy(m: [f64; 3], s: &HeliocentricState<3, 3>) -> (f64, f64, f64) {
    let total: f64 = m.iter().sum();
    let mut hk = 0.5 * total * s.v[0].norm_squared();
    let mut hi = 0.0;
    let mut sum_p = SVector::<f64, 3>::zeros();
    for i in 1..3 {
        hk += 0.5 * m[i] * s.v[i].norm_squared() - m[0] * m[i] / s.q[i].norm();
        sum_p += s.v[i] * m[i];
        for j in i + 1..3 {
            hi -= m[i] * m[j] / (s.q[i] - s.q[j]).norm();
        }
    }
    (hk, hi, sum_p.norm_squared() / (2.0 * m[0]))
}

#[test]
fn the_coordinates_are_canonical_and_split_the_energy_exactly() {
    let eps = 0.05;
    let m = [1.0, eps, 0.4 * eps];
    let dh = DemocraticHeliocentric::<3, 3>::from_model(&model(eps)).unwrap();
    let s = state(eps);
    let h = dh.to_split(&s);
    let back: PhaseState<9> = dh.to_inertial(&h);
    assert!(dist(&back, &s, 1.0) < 1e-15, "{:.2e}", dist(&back, &s, 1.0));
    // Q_i = x_i − x_0, u_0 = P/M, u_i = v_i − u_0
    let x = |i: usize| SVector::<f64, 3>::from_fn(|k, _| s.q[3 * i + k]);
    let v = |i: usize| SVector::<f64, 3>::from_fn(|k, _| s.p[3 * i + k] / m[i]);
    let u0 = (v(0) * m[0] + v(1) * m[1] + v(2) * m[2]) / (1.0 + 1.4 * eps);
    assert!((h.q[2] - (x(2) - x(0))).norm() < 1e-16 && (h.v[0] - u0).norm() < 1e-17);
    assert!((h.v[1] - (v(1) - u0)).norm() < 1e-16);
    let (hk, hi, hj) = split_energy(m, &h);
    let e = model(eps).value(&s.q, &s.p);
    println!("H = {e}, H_K + H_I + H_J = {}", hk + hi + hj);
    assert!((hk + hi + hj - e).abs() < 4.0 * f64::EPSILON * hk.abs(), "{} vs {e}", hk + hi + hj);
    // the transformation is canonical: the Poisson brackets {Q_a, P_b} = δ_ab of the linear map
    // are those of its matrix, Pᵀ-block = A^{-T}: check ⟨P, δQ⟩ = ⟨p, δx⟩ for a displacement δx
    let dx = SVector::<f64, 9>::from_fn(|r, _| 0.1 + 0.01 * r as f64);
    let moved = dh.to_split(&PhaseState::new(s.q + dx, s.p));
    let total = 1.0 + 1.4 * eps;
    let pairing: f64 = (0..3)
        .map(|i| {
            let mass = if i == 0 { total } else { m[i] };
            (h.v[i] * mass).dot(&(moved.q[i] - h.q[i]))
        })
        .sum();
    let direct = s.p.dot(&dx);
    assert!((pairing - direct).abs() < 1e-15, "{pairing} vs {direct}");
}

#[test]
fn the_flows_are_those_of_the_pieces() {
    let eps = 0.05;
    let m = [1.0, eps, 0.4 * eps];
    let dh = DemocraticHeliocentric::<3, 3>::from_model(&model(eps)).unwrap();
    let h0 = dh.to_split(&state(eps));
    // the interaction: u_i ← u_i − t ∇_{Q_i} H_I / m_i, positions untouched
    let t = 0.37;
    let mut kicked = h0;
    dh.interaction(&mut kicked, t);
    assert_eq!((kicked.q, kicked.v[0]), (h0.q, h0.v[0]));
    let mut worst = 0.0f64;
    for i in 1..3 {
        for k in 0..3 {
            let d = 1e-6;
            let (mut plus, mut minus) = (h0, h0);
            plus.q[i][k] += d;
            minus.q[i][k] -= d;
            let grad = (split_energy(m, &plus).1 - split_energy(m, &minus).1) / (2.0 * d);
            let dv = kicked.v[i][k] - h0.v[i][k];
            worst = worst.max((dv + t * grad / m[i]).abs() / (t * grad / m[i]).abs());
        }
    }
    println!("interaction kick vs −t∇H_I/m: {worst:.2e}");
    assert!(worst < 1e-7, "{worst:.2e}");
    // the jump: Q_i ← Q_i + t ∂H_J/∂P_i = Q_i + t Σ P_j / m_0, velocities untouched
    let mut jumped = h0;
    dh.jump(&mut jumped, t);
    let shift = (h0.v[1] * m[1] + h0.v[2] * m[2]) * (t / m[0]);
    assert_eq!((jumped.v, jumped.q[0]), (h0.v, h0.q[0]));
    assert!((1..3).all(|i| (jumped.q[i] - h0.q[i] - shift).norm() < 1e-16));
    // the drift conserves H_K and leaves H_J alone (u_0 and Σ P_i... no: the Kepler flow moves
    // the momenta), and is reversible
    let mut drifted = h0;
    dh.drift(&mut drifted, 2.3).unwrap();
    let (hk0, hk1) = (split_energy(m, &h0).0, split_energy(m, &drifted).0);
    assert!((hk1 - hk0).abs() < 1e-14 * hk0.abs(), "{hk0} vs {hk1}");
    dh.drift(&mut drifted, -2.3).unwrap();
    assert!((0..3).all(|i| (drifted.q[i] - h0.q[i]).norm() < 1e-13 && (drifted.v[i] - h0.v[i]).norm() < 1e-13));
    // the kick of the split is J(t/2) I(t) J(t/2), and kick(−t) undoes it
    let mut k = h0;
    dh.kick(&mut k, t);
    let mut by_hand = h0;
    dh.jump(&mut by_hand, 0.5 * t);
    dh.interaction(&mut by_hand, t);
    dh.jump(&mut by_hand, 0.5 * t);
    assert_eq!(k, by_hand);
    dh.kick(&mut k, -t);
    assert!((0..3).all(|i| (k.q[i] - h0.q[i]).norm() < 1e-15 && (k.v[i] - h0.v[i]).norm() < 1e-15));
}

#[test]
fn order_two_against_dop853_and_close_to_the_jacobi_trajectory() {
    let eps = 1e-3;
    let ham = model(eps);
    let t_end = 20.0;
    let reference = Dop853::hamiltonian(ham).integrate(0.0, state(eps), t_end, 1e-13, 1e-13).unwrap().y;
    let dh = WisdomHolman::whfast_democratic(&ham).unwrap();
    let jacobi = WisdomHolman::whfast(&ham).unwrap();
    let (mut hs, mut errs, mut gaps) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..4 {
        // from h = 0.1 (about 60 steps per inner orbit): at h = 0.2 the error is not yet
        // asymptotic (the first halving gains 1.9, the next ones 3.9 and 4.0)
        let n = 200 << k;
        let h = t_end / n as f64;
        let (mut a, mut b) = (state(eps), state(eps));
        dh.step_n(&mut a, h, n).unwrap();
        jacobi.step_n(&mut b, h, n).unwrap();
        let (e_dh, e_j, gap) = (dist(&a, &reference, eps), dist(&b, &reference, eps), dist(&a, &b, eps));
        println!("h = {h:.4}: |DH − DOP853| = {e_dh:.3e}, |Jacobi − DOP853| = {e_j:.3e}, |DH − Jacobi| = {gap:.3e}");
        // both errors are O(ε h²), of the same size
        assert!(e_dh < 30.0 * e_j && e_j < 30.0 * e_dh, "h = {h}");
        hs.push(h);
        errs.push(e_dh);
        gaps.push(gap);
    }
    let (p, q) = (slope(&hs, &errs), slope(&hs, &gaps));
    println!("measured order of WH in democratic heliocentric coordinates: {p:.3}; of the gap to Jacobi: {q:.3}");
    assert!((p - 2.0).abs() < 0.3, "{p}");
    assert!((q - 2.0).abs() < 0.3, "{q}");
}

/// `max_k |H(x_k) − H(x_0)| / ε` from [`state`].
fn energy_error<M: OneStep<PhaseState<9>>>(method: &M, eps: f64, h: f64, steps: usize) -> f64 {
    common::energy_error(method, &state(eps), eps, h, steps)
}

#[test]
fn energy_error_scales_like_eps_h_squared_and_stays_bounded() {
    let (h, steps) = (0.2, 600);
    let epsilons = [1e-3, 1e-4, 1e-5];
    let e: Vec<f64> = epsilons
        .iter()
        .map(|&eps| energy_error(&WisdomHolman::whfast_democratic(&model(eps)).unwrap(), eps, h, steps))
        .collect();
    let p_eps = slope(&epsilons, &e);
    println!("relative energy errors at h = {h}: {e:?}, slope in ε {p_eps:.3}");
    assert!((p_eps - 1.0).abs() < 0.3, "{p_eps}");
    let hs = [0.2, 0.1, 0.05];
    let eh: Vec<f64> = hs
        .iter()
        .map(|&h| energy_error(&WisdomHolman::whfast_democratic(&model(1e-3)).unwrap(), 1e-3, h, (120.0 / h) as usize))
        .collect();
    let p_h = slope(&hs, &eh);
    println!("energy errors {eh:?} for h = {hs:?}: slope in h {p_h:.3}");
    assert!((p_h - 2.0).abs() < 0.3, "{p_h}");
    // bounded: 16 times longer (about 300 inner orbits), the largest error grows by less than 2
    let short = energy_error(&WisdomHolman::whfast_democratic(&model(1e-3)).unwrap(), 1e-3, 0.1, 1200);
    let long = energy_error(&WisdomHolman::whfast_democratic(&model(1e-3)).unwrap(), 1e-3, 0.1, 16 * 1200);
    println!("largest energy error over 1200 steps {short:.3e}, over 19200 steps {long:.3e}");
    assert!(long < 2.0 * short, "{short:e} → {long:e}");
}

#[test]
fn saba_in_democratic_heliocentric_coordinates_and_what_is_refused() {
    let ham = model(1e-3);
    // SABA_n for n = 1..4 at tiny ε and a large step, where the ε h^{2n} term dominates: the
    // error shrinks with n (at ε = 1e-6 the ε² h² term of these coordinates, several times
    // Jacobi's, already stops SABA4 at 4e-8: ε = 1e-8). The gain per n is smaller than in
    // Jacobi coordinates (3.7, 3.3, 2.4 against more than 5): the jump adds harmonics of
    // higher frequency to the perturbation.
    let e: Vec<f64> = (1..=4)
        .map(|n| energy_error(&WisdomHolman::saba_democratic(&model(1e-8), n).unwrap(), 1e-8, 0.8, 100))
        .collect();
    println!("SABA1..4 in democratic heliocentric coordinates at ε = 1e-8, h = 0.8: {e:?}");
    assert!(e.windows(2).all(|w| w[1] < 0.5 * w[0]) && e[3] < e[0] / 20.0, "{e:?}");
    let dh = WisdomHolman::whfast_democratic(&ham).unwrap();
    assert_eq!((dh.order(), dh.is_symmetric()), (2, true));
    assert_eq!(dh.name(), "Wisdom-Holman in democratic heliocentric coordinates");
    assert!(WisdomHolman::whfast(&ham).unwrap().name().ends_with("in Jacobi coordinates"));
    // no correctors, no SABAC: the jump makes {{H_K, H_I + H_J}, H_I + H_J} depend on the momenta
    let refused = |r: Result<WisdomHolman<9, 3, 3, DemocraticHeliocentric<3, 3>>, GeomError>| {
        let e = r.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("Jacobi"), "{e}");
    };
    refused(WisdomHolman::whfast_democratic(&ham).unwrap().with_corrector(17));
    refused(WisdomHolman::saba_democratic(&ham, 3).unwrap().with_sabac_corrector());
    assert!(WisdomHolman::new_democratic(&ham, strang()).is_ok() && WisdomHolman::saba_democratic(&ham, 6).is_err());
    // in Jacobi coordinates SABAC is SABA's (the WH map is SABA1), and only SABA's
    assert!(WisdomHolman::new(&ham, triple_jump4()).unwrap().with_sabac_corrector().is_err());
    assert_eq!(
        WisdomHolman::whfast(&ham).unwrap().with_sabac_corrector().unwrap().name(),
        "StrangC in Jacobi coordinates"
    );
    assert!(WisdomHolman::saba(&ham, 2).unwrap().with_sabac_corrector().is_ok());
    let mut split = DemocraticHeliocentric::<3, 3>::from_model(&ham).unwrap().to_split(&state(1e-3));
    let before = split;
    assert!(DemocraticHeliocentric::<3, 3>::from_model(&ham).unwrap().corrector_kick(&mut split, 0.1).is_err());
    assert_eq!(split, before);
    // bad input: a planet on the star, NaN; the state is left untouched
    let mut s = state(1e-3);
    for k in 0..3 {
        s.q[6 + k] = s.q[k];
    }
    let bits: Vec<u64> = s.q.iter().chain(s.p.iter()).map(|x| x.to_bits()).collect();
    assert!(dh.step(&mut s, 0.1).is_err());
    assert_eq!(bits, s.q.iter().chain(s.p.iter()).map(|x| x.to_bits()).collect::<Vec<_>>());
    let mut nan = state(1e-3);
    nan.q[4] = f64::NAN;
    assert!(matches!(dh.step(&mut nan, 0.1), Err(GeomError::NonFinite { .. })));
    assert!(DemocraticHeliocentric::<3, 1>::new(1.0, [1.0]).is_err());
    assert!(DemocraticHeliocentric::<3, 3>::new(1.0, [1.0, -1.0, 1.0]).is_err());
}
