//! Bobenko–Suris's discrete Lagrange top (`lie_poisson_baselines::BobenkoSuris`) on T*SO(3): on
//! the Lagrange top `I = diag(2, 2, 1)`, `mgl = 1`, `χ = e3` the axial momentum Π₃ holds bit for
//! bit, the vertical momentum e3·RΠ, |Γ|² and the deformed energy H̃_h to round-off over 10^5
//! steps, while the energy H itself (and H̃ with the wrong sign of its h² term: negative
//! controls) moves by O(h²); the step is the paper's rest-frame map conjugated by half a kick;
//! the measured order is 2 and at a small step it follows the continuous Lagrange top (RK4) and
//! HP Störmer–Verlet; tops that are not Lagrange tops are refused with a typed error; a failed
//! step leaves the state untouched.

use crate::baselines_common::{State, heavy_top_reference, top0};
use geom_core::GeomError;
use geom_core::lie::{Chart, LieGroup, So3, so3};
use geom_core::step::testing::{Contract, check_integrator};
use geom_core::step::{LieState, OneStep};
use integrators::hp;
use integrators::lie_poisson_baselines::BobenkoSuris;
use integrators::models::HeavyTop;
use nalgebra::{Matrix3, Vector3};

/// The Lagrange top `I = diag(2, 2, 1)`, `mgl = 1`, `χ = e3`.
fn lagrange() -> HeavyTop {
    HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.0, 1.0)), 1.0, Vector3::z()).unwrap()
}

/// 10^5 steps of h = 0.05 from `top0` (R = exp(0.5, 0.2, 0), Π = (0.3, −0.4, 2)): Π₃ bit for
/// bit; e3·RΠ, |Γ|² − 1 and H̃_h to round-off (a random walk of ε √(10^5) ≈ 7e-14 per unit;
/// bound 1e-12); H moves by more than 1e-5 (its O(h²) oscillation, `h² (mgl)²/(8 I₁) |Γ×χ|²`
/// ≈ 1.5e-4 · |Γ×χ|²), and so does H̃ with the sign of its correction flipped.
#[test]
fn axial_vertical_momentum_and_deformed_energy_to_round_off() {
    let top = lagrange();
    let m = BobenkoSuris::new(&top).unwrap();
    let h = 0.05;
    let flipped = |s: &State| 2.0 * top.energy(s) - m.discrete_energy(s, h);
    let mut s = top0();
    let (axial, j0, e0, ht0, hf0) =
        (s.mu[2].to_bits(), top.momenta(&s)[0], top.energy(&s), m.discrete_energy(&s, h), flipped(&s));
    let (mut dj, mut dg, mut de, mut dht, mut dhf) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for _ in 0..100_000 {
        m.step(&mut s, h).unwrap();
        assert_eq!(s.mu[2].to_bits(), axial, "Π₃ bit for bit");
        dj = dj.max((top.momenta(&s)[0] - j0).abs());
        dg = dg.max((HeavyTop::gamma(&s.g).norm_squared() - 1.0).abs());
        de = de.max((top.energy(&s) - e0).abs());
        dht = dht.max((m.discrete_energy(&s, h) - ht0).abs());
        dhf = dhf.max((flipped(&s) - hf0).abs());
    }
    println!(
        "Lagrange top, 1e5 steps: |Δ e3·RΠ| {dj:.1e}, | |Γ|²−1 | {dg:.1e}, |ΔH̃| {dht:.1e}; |ΔH| {de:.1e}, flipped {dhf:.1e}"
    );
    assert!(dj < 1e-12 && dg < 1e-12 && dht < 1e-12, "{dj:e} {dg:e} {dht:e}");
    assert!(de > 1e-5 && dhf > 1e-5, "{de:e} {dhf:e}");
}

/// The rest-frame map of Bobenko & Suris (1999), written from the paper's equations:
/// `m' = m + h mgl e3 × p`, `p' − p = (h/I₁) m' × (p + p')/2` (solved: `p' = cay(h m'/I₁) p`).
fn paper_map(mgl: f64, i1: f64, m: &mut Vector3<f64>, p: &mut Vector3<f64>, h: f64) {
    *m += Vector3::z().cross(p) * (h * mgl);
    // (I − (h/2I₁) m̂) p' = (I + (h/2I₁) m̂) p
    let a = so3::hat(m) * (0.5 * h / i1);
    *p = (Matrix3::identity() - a).lu().solve(&((Matrix3::identity() + a) * *p)).unwrap();
}

/// The step is the paper's map conjugated by half a kick, `Φ_h = K_{h/2} ∘ Φ_BS ∘ K_{−h/2}` on
/// the rest-frame variables `(m, p) = (RΠ, Rχ)`: after 1000 steps of h = 0.05 they agree to
/// 1e-12; and the paper map's own deformed energy `|m|²/(2I₁) + mgl e3·p − h mgl e3·(m×p)/(2I₁)`
/// holds to round-off along it (the O(h) term is what the half kick turns into the O(h²) term
/// of `BobenkoSuris::discrete_energy`; without it the error is above 1e-4).
#[test]
fn the_step_is_the_paper_map_conjugated_by_half_a_kick() {
    let top = lagrange();
    let (mgl, i1, h) = (top.mgl(), 2.0, 0.05);
    let m = BobenkoSuris::new(&top).unwrap();
    let mut s = top0();
    let (mut mm, mut p) = (s.g * s.mu, s.g * Vector3::z());
    mm -= Vector3::z().cross(&p) * (0.5 * h * mgl);
    let paper_energy = |m: &Vector3<f64>, p: &Vector3<f64>, with: f64| {
        0.5 * m.norm_squared() / i1 + mgl * p[2] - with * h * mgl * Vector3::z().dot(&m.cross(p)) / (2.0 * i1)
    };
    let (e0, plain0) = (paper_energy(&mm, &p, 1.0), paper_energy(&mm, &p, 0.0));
    let (mut de, mut dplain) = (0.0f64, 0.0f64);
    for _ in 0..1000 {
        m.step(&mut s, h).unwrap();
        paper_map(mgl, i1, &mut mm, &mut p, h);
        de = de.max((paper_energy(&mm, &p, 1.0) - e0).abs());
        dplain = dplain.max((paper_energy(&mm, &p, 0.0) - plain0).abs());
    }
    let kicked = mm + Vector3::z().cross(&p) * (0.5 * h * mgl);
    let (dm, dp) = ((s.g * s.mu - kicked).amax(), (s.g * Vector3::z() - p).amax());
    println!(
        "against the paper's map: |Δm| {dm:.1e}, |Δp| {dp:.1e}; its energy {de:.1e} (without the h term {dplain:.1e})"
    );
    assert!(dm < 1e-12 && dp < 1e-12, "{dm:e} {dp:e}");
    assert!(de < 1e-13 && dplain > 1e-4, "{de:e} {dplain:e}");
}

/// The error of (Π, Γ) at T = 2 against RK4 at a small step, h = 0.1, 0.05, 0.025: slopes
/// 2 ± 0.1 (the paper's map read at integer times is first order; conjugated, second); at
/// h = 0.01 the error is below 1e-4 (measured 2.2e-5) and HP Störmer–Verlet (Cayley) follows the
/// same flow, error below 1e-3 (measured 7.9e-4: the Cayley drift of the Lagrange top's fast
/// spin costs HP more); the contract (order, reversibility, failed steps).
#[test]
fn order_two_close_to_the_flow_and_the_contract() {
    let top = lagrange();
    let s0 = top0();
    let time = 2.0;
    let (p, g) = heavy_top_reference(&top, s0.mu, s0.g.row(2).transpose(), time);
    let m = BobenkoSuris::new(&top).unwrap();
    let err = |method: &dyn OneStep<State>, h: f64| {
        let mut s = s0;
        method.step_n(&mut s, h, (time / h).round() as usize).unwrap();
        ((s.mu - p).amax().max((s.g.row(2).transpose() - g).amax()), s)
    };
    let e: Vec<f64> = [0.1, 0.05, 0.025].iter().map(|&h| err(&m, h).0).collect();
    let slopes = [(e[0] / e[1]).log2(), (e[1] / e[2]).log2()];
    println!("errors {e:?}, slopes {slopes:.3?}");
    assert!(slopes.iter().all(|s| (s - 2.0).abs() < 0.1), "{slopes:?}");

    let sv = hp::stormer_verlet(So3, Chart::Cayley, top).unwrap();
    let (e_bs, s_bs) = err(&m, 0.01);
    let (e_sv, s_sv) = err(&sv, 0.01);
    let apart = (s_bs.mu - s_sv.mu).amax().max((s_bs.g - s_sv.g).amax());
    println!("h = 0.01: error {e_bs:.2e} (HP Störmer–Verlet {e_sv:.2e}), apart {apart:.2e}");
    assert!(e_bs < 1e-4 && e_sv < 1e-3, "{e_bs:e} {e_sv:e}");

    let r = check_integrator(&m, &s0, &Contract::default()).unwrap_or_else(|e| panic!("{e}"));
    println!("contract: order {:.3}", r.measured_order);
}

/// Tops that are not Lagrange tops are refused with `InvalidParameter`: `I₁ ≠ I₂`, an
/// off-diagonal inertia, the centre of mass off the axis; `χ = −e3` (below the pivot) and a free
/// symmetric top (`mgl = 0`) are Lagrange tops.
#[test]
fn tops_that_are_not_lagrange_tops_are_refused() {
    let refused = |i: Matrix3<f64>, chi: Vector3<f64>| {
        let top = HeavyTop::new(i, 1.0, chi).unwrap();
        matches!(BobenkoSuris::new(&top), Err(GeomError::InvalidParameter { .. }))
    };
    let sym = Matrix3::from_diagonal(&Vector3::new(2.0, 2.0, 1.0));
    assert!(refused(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), Vector3::z()));
    let mut off = sym;
    off[(0, 2)] = 0.1;
    off[(2, 0)] = 0.1;
    assert!(refused(off, Vector3::z()));
    assert!(refused(sym, Vector3::new(1e-3, 0.0, 1.0)));
    assert!(!refused(sym, -Vector3::z()));
    let free = HeavyTop::new(sym, 0.0, Vector3::z()).unwrap();
    assert!(BobenkoSuris::new(&free).is_ok());
}

/// With the centre of mass below the pivot (`χ = −e3`) the invariants hold as well, and the
/// vertical momentum to round-off while the top falls through large angles (h = 0.1, 10^4
/// steps).
#[test]
fn hanging_top_keeps_its_invariants() {
    let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, 3.0)), 2.0, -Vector3::z()).unwrap();
    let m = BobenkoSuris::new(&top).unwrap();
    let h = 0.1;
    let mut s = LieState::new(So3.exp(&Vector3::new(1.2, -0.4, 0.3)), Vector3::new(0.7, 0.1, -0.5));
    let (axial, j0, e0) = (s.mu[2], top.momenta(&s)[0], m.discrete_energy(&s, h));
    let (mut dj, mut de) = (0.0f64, 0.0f64);
    for _ in 0..10_000 {
        m.step(&mut s, h).unwrap();
        dj = dj.max((top.momenta(&s)[0] - j0).abs());
        de = de.max((m.discrete_energy(&s, h) - e0).abs());
    }
    println!("hanging top: |Δ e3·RΠ| {dj:.1e}, |ΔH̃| {de:.1e}");
    assert!(s.mu[2] == axial && dj < 1e-12 && de < 1e-12, "{dj:e} {de:e}");
}

/// A failed step (h zero or NaN, a non-finite momentum) leaves the state bit for bit.
#[test]
fn a_failed_step_leaves_the_state_untouched() {
    let m = BobenkoSuris::new(&lagrange()).unwrap();
    let s0 = top0();
    for h in [0.0, f64::NAN, f64::INFINITY] {
        let mut s = s0;
        assert!(matches!(m.step(&mut s, h), Err(GeomError::InvalidStep { .. })));
        assert_eq!(s, s0);
    }
    let bad = LieState::new(s0.g, Vector3::new(f64::NAN, 0.0, 1.0));
    let mut s = bad;
    assert!(matches!(m.step(&mut s, 0.1), Err(GeomError::NonFinite { .. })));
    assert_eq!(s.mu.map(f64::to_bits), bad.mu.map(f64::to_bits));
    assert_eq!(s.g.map(f64::to_bits), bad.g.map(f64::to_bits));
}
