//! Composition methods (docs/math.md §B.3): the coefficient sets satisfy their order conditions, the
//! published digits are the ones implemented, and `Composition` keeps the `OneStep` contract
//! (a failed stage restores the state, invalid steps are errors, schemes that need the adjoint
//! are refused by `Composition::new`). The measured orders are in `orders.rs`.
//!
//! **Order conditions checked.**
//! * Symmetric 2nd-order base method (all `Stage::Base`): `Σγ = 1` and the moments `Σγ^k = 0`
//!   for the odd `k = 3, …, order - 1` (order 4: `k = 3`; 6: `3, 5`; 8: `3, 5, 7`). The even
//!   moments need not vanish: the base method is symmetric, its error expansion is odd in `h`.
//! * A first-order method `Φ` with its adjoint `Φ*` (McLachlan 4, the adjoint pair): with
//!   `Φ_h = exp(hF + h²E₂ + h³E₃ + …)` the adjoint is `Φ*_h = exp(hF - h²E₂ + h³E₃ - …)`, so the
//!   coefficient of `E_k` is `Σ_base γ^k + (-1)^{k+1} Σ_adjoint γ^k`; it must vanish for
//!   `k = 2, …, order` (HLW V.3). So the conditions are NOT `Σγ^k = 0` over all stages: for even
//!   `k` they are differences (`Σ_B γ^k - Σ_A γ^k = 0`, true for McLachlan because its base and
//!   adjoint stages use the same five numbers), for odd `k` sums (`Σ_all γ³ = 0`, which is
//!   `2(a³ + b³ + c³ + d³ + e³) = 0`). The commutator conditions are only seen by the measured
//!   order.
//!
//! **Tolerances.** `Σγ = 1` to `1e-14` (the sum of at most 17 numbers of size ≤ 2 rounded to
//! double, error ≲ 17 · 2 · 1.1e-16 ≈ 4e-15), `1e-13` for Yoshida 8 (docs/math.md §B.3). A moment
//! `Σγ^k` is a sum of `s ≤ 17` terms of size `|γ_i|^k`, each with relative error `≲ (k+1)ε` from
//! the rounded coefficient and the power: `|Σγ^k| ≤ 1e-14 · Σ|γ_i|^k` holds with a margin of
//! ~3 over `(s + k + 1) ε ≈ 3e-15`. Yoshida 8 is quoted with 15 significant digits
//! (truncation ~5e-16 absolute, amplified by `k|γ|^{k-1}` with `|γ| ≤ 2`): its moments are only
//! `4e-14, 5e-13, 3e-12` for `k = 3, 5, 7` (docs/math.md §B.3), so it gets `1e-11`.

// Coefficients are quoted with the digits of their published tables.
#![allow(clippy::excessive_precision)]

use crate::common;

use common::{Kepler, kepler_start};
use discretization::composition::{
    CompositionScheme, adjoint_pair, all_schemes, kahan_li6, kahan_li8, mclachlan4, suzuki_fractal, suzuki_umeno8,
    triple_jump, triple_jump_to, yoshida6, yoshida8,
};
use discretization::{Composition, CotangentLiftIntegrator, OneStep, PhaseState, Stage, ThetaMap};
use geom_core::GeomError;
use nalgebra::Vector1;
use std::sync::atomic::{AtomicUsize, Ordering};

fn coefficients(s: &CompositionScheme) -> Vec<f64> {
    s.stages.iter().map(|st| st.coefficient()).collect()
}

/// `(Σ|γ_i|^k, Σγ_i^k)` over the stages that satisfy `keep`.
fn moments(s: &CompositionScheme, k: i32, keep: impl Fn(&Stage) -> bool) -> (f64, f64) {
    let gs: Vec<f64> = s.stages.iter().filter(|st| keep(st)).map(|st| st.coefficient()).collect();
    (gs.iter().map(|g| g.abs().powi(k)).sum(), gs.iter().map(|g| g.powi(k)).sum())
}

#[test]
fn every_scheme_sums_to_one() {
    for s in all_schemes().into_iter().chain([triple_jump_to(4).unwrap(), triple_jump_to(6).unwrap()]) {
        let tol = if s.name == "Yoshida 8" { 1e-13 } else { 1e-14 };
        let d = (s.sum() - 1.0).abs();
        println!("{:<28} |Σγ - 1| = {d:.2e} (tol {tol:.0e})", s.name);
        assert!(d <= tol, "{}: Σγ - 1 = {d:e}", s.name);
        assert_eq!(s.sum(), coefficients(&s).iter().sum::<f64>());
    }
}

#[test]
fn symmetric_compositions_satisfy_the_odd_moment_conditions() {
    let schemes = [
        triple_jump(2),
        suzuki_fractal(2),
        triple_jump_to(4).unwrap(),
        yoshida6(),
        kahan_li6(),
        triple_jump_to(6).unwrap(),
        yoshida8(),
        kahan_li8(),
        suzuki_umeno8(),
    ];
    for s in &schemes {
        assert!(!s.uses_adjoint(), "{}", s.name);
        assert_eq!(s.base_order, 2, "{}", s.name);
        // palindromic: a symmetric composition of a symmetric method
        let g = coefficients(s);
        assert!(g.iter().zip(g.iter().rev()).all(|(a, b)| a == b), "{} is not palindromic", s.name);
        for k in (3..s.order as i32).step_by(2) {
            let (abs, m) = moments(s, k, |_| true);
            assert_eq!(m, s.moment(k), "{}: CompositionScheme::moment", s.name);
            let tol = if s.name == "Yoshida 8" { 1e-11 } else { 1e-14 * abs };
            println!("{:<28} Σγ^{k} = {m:+.2e} (tol {tol:.1e})", s.name);
            assert!(m.abs() <= tol, "{}: Σγ^{k} = {m:e} > {tol:e}", s.name);
        }
    }
}

/// McLachlan 4 and the adjoint pair mix `Φ` and `Φ*`: the conditions of the module
/// documentation, `Σ_B γ^k + (-1)^{k+1} Σ_A γ^k = 0` for `k = 2, …, order`.
#[test]
fn adjoint_compositions_satisfy_their_conditions() {
    for s in [mclachlan4(), adjoint_pair()] {
        assert!(s.uses_adjoint());
        assert_eq!(s.base_order, 1);
        let is_base = |st: &Stage| matches!(st, Stage::Base(_));
        let is_adjoint = |st: &Stage| matches!(st, Stage::Adjoint(_));
        // symmetric: stage i and stage n-1-i are Φ and Φ* with the same coefficient
        let n = s.stages.len();
        for i in 0..n {
            let (a, b) = (s.stages[i], s.stages[n - 1 - i]);
            assert_eq!(a.coefficient(), b.coefficient(), "{}: stage {i}", s.name);
            assert_ne!(is_base(&a), is_base(&b), "{}: stage {i} and its mirror use the same method", s.name);
        }
        for k in 2..=s.order as i32 {
            let (ab, mb) = moments(&s, k, is_base);
            let (aa, ma) = moments(&s, k, is_adjoint);
            let sign = if k % 2 == 0 { -1.0 } else { 1.0 };
            let c = mb + sign * ma;
            let tol = 1e-14 * (ab + aa);
            println!(
                "{:<28} Σ_B γ^{k} {} Σ_A γ^{k} = {c:+.2e} (tol {tol:.1e})",
                s.name,
                if k % 2 == 0 { '-' } else { '+' }
            );
            assert!(c.abs() <= tol, "{}: order condition k = {k}: {c:e}", s.name);
        }
    }
    // The odd condition is the nontrivial one: a³ + b³ + c³ + d³ + e³ = 0 (for the five base
    // coefficients), while the squares do not cancel.
    let base: Vec<f64> =
        mclachlan4().stages.iter().filter(|s| matches!(s, Stage::Base(_))).map(|s| s.coefficient()).collect();
    assert!(base.iter().map(|g| g.powi(3)).sum::<f64>().abs() < 1e-15);
    assert!(base.iter().map(|g| g.powi(2)).sum::<f64>() > 0.3);
}

/// The implemented numbers are the published ones (docs/math.md §B.3), and the stage counts match.
#[test]
fn published_coefficients_and_stage_counts() {
    let close = |a: f64, b: f64| (a - b).abs() <= 2e-16 * b.abs().max(1.0);
    let tj = coefficients(&triple_jump(2));
    assert!(close(tj[0], 1.35120719195965763405) && close(tj[1], -1.70241438391931526810), "{tj:?}");
    let sf = coefficients(&suzuki_fractal(2));
    assert!(close(sf[0], 0.41449077179437573714) && close(sf[2], -0.65796308717750294857), "{sf:?}");
    assert!(close(coefficients(&yoshida6())[3], 1.31518632068391121888424973));
    assert!(close(coefficients(&yoshida8())[7], 1.7084530707869978));
    let mc = coefficients(&mclachlan4());
    // the closed forms of docs/math.md §B.3 (e = (14 - √19)/108 = 0.0892694542...), against the
    // published decimals
    let r = 19f64.sqrt();
    let (a, b, c, d, e) =
        ((146.0 + 5.0 * r) / 540.0, (-2.0 + 10.0 * r) / 135.0, 0.2, (-23.0 - 20.0 * r) / 270.0, (14.0 - r) / 108.0);
    assert!((a - 0.310731).abs() < 1e-6 && (b - 0.308067).abs() < 1e-6 && (d + 0.408067).abs() < 1e-6);
    assert!((e - 0.0892694542).abs() < 1e-10);
    // order applied: Φ*_e, Φ_a, Φ*_d, Φ_b, Φ*_c, Φ_c, Φ*_b, Φ_d, Φ*_a, Φ_e
    let want = [e, a, d, b, c, c, b, d, a, e];
    assert!(mc.iter().zip(want).all(|(x, y)| close(*x, y)), "{mc:?}");
    assert!(matches!(mclachlan4().stages[0], Stage::Adjoint(_)));
    assert!(matches!(mclachlan4().stages[1], Stage::Base(_)));
    let counts = [
        (adjoint_pair(), 2),
        (triple_jump(2), 3),
        (suzuki_fractal(2), 5),
        (mclachlan4(), 10),
        (yoshida6(), 7),
        (kahan_li6(), 9),
        (yoshida8(), 15),
        (kahan_li8(), 17),
        (suzuki_umeno8(), 15),
        (triple_jump_to(6).unwrap(), 9),
        (triple_jump_to(8).unwrap(), 27),
    ];
    for (s, n) in counts {
        assert_eq!(s.stages.len(), n, "{}", s.name);
    }
    assert_eq!(triple_jump_to(4).unwrap().stages, triple_jump(2).stages);
    assert_eq!(coefficients(&triple_jump_to(2).unwrap()), vec![1.0]);
    for bad in [0, 1, 3, 7] {
        assert!(matches!(triple_jump_to(bad), Err(GeomError::InvalidParameter { .. })), "order {bad}");
    }
}

// ------------------------------------------------------------------------------------------
// The OneStep contract of Composition.

/// A one-step method on `R × R` that moves `q` by `h` and fails (leaving its input as it was,
/// per the `OneStep` contract) on call number `fail_at` (0-based).
struct FailsOnCall {
    calls: AtomicUsize,
    fail_at: usize,
}

impl FailsOnCall {
    fn new(fail_at: usize) -> Self {
        Self { calls: AtomicUsize::new(0), fail_at }
    }
}

impl OneStep<PhaseState<1>> for FailsOnCall {
    fn name(&self) -> String {
        "fails on a chosen call".into()
    }
    fn order(&self) -> u32 {
        1
    }
    fn step(&self, state: &mut PhaseState<1>, h: f64) -> Result<(), GeomError> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        if call == self.fail_at {
            return Err(GeomError::NotConverged { iterations: 7, residual: 1.0, step: 0.5 });
        }
        state.q[0] += h;
        state.p[0] -= 2.0 * h;
        Ok(())
    }
}

#[test]
fn a_failing_stage_leaves_the_state_untouched() {
    let start = PhaseState::new(Vector1::new(0.3), Vector1::new(-1.1));
    // the base method fails on its 3rd stage (after two stages have moved the state)
    let base = FailsOnCall::new(2);
    let m = Composition::new(&base, yoshida6()).unwrap();
    let mut s = start;
    let err = m.step(&mut s, 0.1).unwrap_err();
    assert_eq!(err, GeomError::NotConverged { iterations: 7, residual: 1.0, step: 0.5 });
    assert_eq!(s, start, "state changed by a failed composition step");
    assert_eq!(base.calls.load(Ordering::SeqCst), 3, "the composition must stop at the failing stage");

    // in a scheme with adjoint stages, the adjoint fails on its 2nd call (stage 3 of McLachlan)
    let m = Composition::with_adjoint(FailsOnCall::new(usize::MAX), FailsOnCall::new(1), mclachlan4());
    let mut s = start;
    assert!(m.step(&mut s, 0.1).is_err());
    assert_eq!(s, start);

    // a successful step moves q by Σγ h (checks that the stages were applied)
    let m = Composition::new(FailsOnCall::new(usize::MAX), yoshida6()).unwrap();
    let mut s = start;
    m.step(&mut s, 0.1).unwrap();
    assert!((s.q[0] - 0.4).abs() < 1e-15 && (s.p[0] + 1.3).abs() < 1e-15, "{s:?}");
}

#[test]
fn invalid_steps_are_errors_and_leave_the_state_untouched() {
    let mid = CotangentLiftIntegrator::new(ThetaMap::<2>::midpoint(), Kepler);
    let yosh = Composition::new(mid.clone(), yoshida6()).unwrap();
    let theta = |t: f64| CotangentLiftIntegrator::new(ThetaMap::<2>::new(t).unwrap(), Kepler);
    let mcl = Composition::with_adjoint(theta(0.0), theta(1.0), mclachlan4());
    let methods: [&dyn OneStep<PhaseState<2>>; 3] = [&mid, &yosh, &mcl];
    let start = kepler_start(0.5);
    for m in methods {
        for h in [0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut s = start;
            let err = m.step(&mut s, h).unwrap_err();
            assert!(matches!(err, GeomError::InvalidStep { .. }), "{}: h = {h}: {err:?}", m.name());
            assert_eq!(s, start, "{}: h = {h}", m.name());
        }
        // negative steps are valid (compositions and adjoints use them)
        let mut s = start;
        m.step(&mut s, -0.01).unwrap();
        assert_ne!(s, start);
    }
}

#[test]
fn composition_new_refuses_schemes_that_need_the_adjoint() {
    let mid = CotangentLiftIntegrator::new(ThetaMap::<2>::midpoint(), Kepler);
    let mut refused = 0;
    for s in all_schemes() {
        let needs = s.uses_adjoint();
        let name = s.name.clone();
        match Composition::new(mid.clone(), s) {
            Err(GeomError::InvalidParameter { .. }) => {
                assert!(needs, "{name} refused although it has no adjoint stage");
                refused += 1;
            }
            Err(e) => panic!("{name}: unexpected error {e:?}"),
            Ok(_) => assert!(!needs, "{name} needs the adjoint but Composition::new accepted it"),
        }
    }
    assert_eq!(refused, 2, "adjoint pair and McLachlan 4");
}

/// A failing Newton solve inside the integrator leaves the state untouched, and so does a
/// composition whose later stage fails.
#[test]
fn newton_failure_leaves_the_state_untouched() {
    let opts = geom_core::newton::NewtonOptions { max_iterations: 1, ..Default::default() };
    let m = CotangentLiftIntegrator::new(ThetaMap::<2>::midpoint(), Kepler).with_newton(opts);
    let start = kepler_start(0.5);
    let mut s = start;
    let err = m.step(&mut s, 0.3).unwrap_err();
    assert!(matches!(err, GeomError::NotConverged { .. }), "{err:?}");
    assert_eq!(s, start);
    // a state at the collision q = 0 gives a non-finite gradient: an error, not a NaN state
    let collision = PhaseState::new(nalgebra::Vector2::zeros(), nalgebra::Vector2::new(1.0, 0.0));
    let full = CotangentLiftIntegrator::new(ThetaMap::<2>::midpoint(), Kepler);
    let mut s = collision;
    assert!(full.step(&mut s, 0.1).is_err());
    assert_eq!(s, collision);
}
