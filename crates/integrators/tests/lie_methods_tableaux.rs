//! The coefficients of CG2, CG3, CG4a, CF3 and CF4 against their order conditions: the classical
//! Runge–Kutta conditions of the (summed) tableau, written out here up to order 4, and the
//! order-3 bracket condition of the products of exponentials, in both of its forms (the
//! Crouch–Grossman form `Σ b_i² c_i + 2 Σ_{i<j} b_i c_i b_j = 1/3` of Owren & Marthinsen 1999,
//! and the commutator-free form `Σ_{l<m}(β^l·1 β^m·c − β^l·c β^m·1) = 1/6`). The remaining
//! Crouch–Grossman and commutator-free conditions of order 4 are checked by the measured orders
//! (lie_methods_orders.rs). Negative controls: Kutta's third-order tableau and a perturbed CG4a.

use integrators::Tableau;
use integrators::commutator_free::{self, CfScheme};
use integrators::crouch_grossman;
use integrators::tableau;

/// The largest violation of the eight classical conditions up to order `p <= 4`.
fn classical_defect<const S: usize>(a: &[[f64; S]; S], b: &[f64; S], c: &[f64; S], p: u32) -> f64 {
    let sum = |f: &dyn Fn(usize) -> f64| (0..S).map(f).sum::<f64>();
    let ac: Vec<f64> = (0..S).map(|i| sum(&|j| a[i][j] * c[j])).collect();
    let ac2: Vec<f64> = (0..S).map(|i| sum(&|j| a[i][j] * c[j] * c[j])).collect();
    let aac: Vec<f64> = (0..S).map(|i| sum(&|j| a[i][j] * ac[j])).collect();
    let row: f64 = (0..S).map(|i| (sum(&|j| a[i][j]) - c[i]).abs()).fold(0.0, f64::max);
    let conditions: [(u32, f64, f64); 8] = [
        (1, sum(&|i| b[i]), 1.0),
        (2, sum(&|i| b[i] * c[i]), 0.5),
        (3, sum(&|i| b[i] * c[i] * c[i]), 1.0 / 3.0),
        (3, sum(&|i| b[i] * ac[i]), 1.0 / 6.0),
        (4, sum(&|i| b[i] * c[i].powi(3)), 0.25),
        (4, sum(&|i| b[i] * c[i] * ac[i]), 0.125),
        (4, sum(&|i| b[i] * ac2[i]), 1.0 / 12.0),
        (4, sum(&|i| b[i] * aac[i]), 1.0 / 24.0),
    ];
    conditions.iter().filter(|(q, ..)| *q <= p).map(|(_, v, e)| (v - e).abs()).fold(row, f64::max)
}

/// `Σ b_i² c_i + 2 Σ_{i<j} b_i c_i b_j` (Crouch–Grossman order 3: `1/3`).
fn cg_condition<const S: usize>(b: &[f64; S], c: &[f64; S]) -> f64 {
    let mut total = 0.0;
    for i in 0..S {
        total += b[i] * b[i] * c[i];
        for j in i + 1..S {
            total += 2.0 * b[i] * c[i] * b[j];
        }
    }
    total
}

fn check_cg<const S: usize>(t: &Tableau) -> (f64, f64) {
    let (a, b, c) = t.arrays::<S>().unwrap();
    let classical = classical_defect(&a, &b, &c, t.order());
    let scheme = crouch_grossman::scheme::<S>(t).unwrap();
    let bracket = scheme.bracket_condition();
    eprintln!(
        "{}: classical defect {classical:.1e}, CG condition {:.17}, bracket condition {bracket:.17}",
        t.name(),
        cg_condition(&b, &c)
    );
    assert!(classical < 1e-15, "{}: {classical:e}", t.name());
    if t.order() >= 3 {
        assert!((cg_condition(&b, &c) - 1.0 / 3.0).abs() < 1e-15, "{}", t.name());
        assert!((bracket - 1.0 / 6.0).abs() < 1e-15, "{}", t.name());
    }
    (classical, bracket)
}

#[test]
fn crouch_grossman_tableaux_meet_their_conditions() {
    check_cg::<2>(&tableau::heun());
    check_cg::<3>(&crouch_grossman::cg3_tableau());
    check_cg::<5>(&crouch_grossman::cg4a_tableau());
    // the CG3 coefficients are exact rationals: the conditions hold in exact arithmetic
    // (13/51 − 2/3 + 24/17 = 1, −2/3·3/4 + 24/17·17/24 = 1/2, and
    // b₂²c₂ + b₃²c₃ + 2 b₂c₂b₃ = 1/3 + 24/17 − 24/17 = 1/3)
    assert_eq!(crouch_grossman::cg3_tableau().stages(), 3);
}

#[test]
fn kutta3_and_a_perturbed_cg4a_are_refused() {
    // Kutta's tableau has classical order 3 but misses the Crouch–Grossman condition
    let (_, b, c) = tableau::kutta3().arrays::<3>().unwrap();
    let miss = cg_condition(&b, &c) - 1.0 / 3.0;
    assert!(miss.abs() > 1e-2, "{miss}");
    assert!(crouch_grossman::scheme::<3>(&tableau::kutta3()).is_err());
    // one weight of CG4a off by 1e-6: not of order 4 (nor 3)
    let t = crouch_grossman::cg4a_tableau();
    let (a, mut b, c) = t.arrays::<5>().unwrap();
    b[2] += 1e-6;
    b[4] -= 1e-6;
    let rows = a.iter().map(|r| r.to_vec()).collect();
    assert!(Tableau::new("CG4a perturbed", rows, b.to_vec(), c.to_vec(), 4).is_err());
    assert!(classical_defect(&a, &b, &c, 4) > 1e-7);
}

#[test]
fn commutator_free_schemes_meet_their_conditions() {
    let cf3 = commutator_free::cf3_scheme();
    let (a, b) = cf3.summed();
    // the summed tableau of CF3 is Heun's third-order method
    assert_eq!(b, [0.25, 0.0, 0.75]);
    assert!(classical_defect(&a, &b, cf3.nodes(), 3) < 1e-15);
    assert!((cf3.bracket_condition() - 1.0 / 6.0).abs() < 1e-15);
    let cf4 = commutator_free::cf4_scheme();
    let (a, b) = cf4.summed();
    // the summed tableau of CF4 is the classical RK4
    let (a4, b4, c4) = tableau::rk4().arrays::<4>().unwrap();
    let diff = (0..4)
        .map(|i| (0..4).map(|j| (a[i][j] - a4[i][j]).abs()).fold((b[i] - b4[i]).abs(), f64::max))
        .fold(0.0, f64::max);
    assert!(diff < 1e-16 && *cf4.nodes() == c4, "{diff:e}");
    assert!(classical_defect(&a, &b, cf4.nodes(), 4) < 1e-15);
    assert!((cf4.bracket_condition() - 1.0 / 6.0).abs() < 1e-15);
    // the shipped schemes pass the checked constructor with their claimed orders
    for (s, new) in [
        (cf3.name(), CfScheme::new(cf3.name(), *cf3.stages(), *cf3.update(), *cf3.nodes(), 3).map(|x| x.order())),
        (cf4.name(), CfScheme::new(cf4.name(), *cf4.stages(), *cf4.update(), *cf4.nodes(), 4).map(|x| x.order())),
    ] {
        assert!(new.is_ok(), "{s}: {new:?}");
    }
    // a non-explicit stage and non-finite coefficients are refused
    let mut stages = *cf4.stages();
    stages[1][0][1] = 0.1;
    assert!(CfScheme::new("implicit", stages, *cf4.update(), *cf4.nodes(), 1).is_err());
    let mut update = *cf4.update();
    update[0][0] = f64::NAN;
    assert!(CfScheme::new("nan", *cf4.stages(), update, *cf4.nodes(), 1).is_err());
}
