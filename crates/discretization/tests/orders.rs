//! Convergence orders, measured: the global error at a fixed final time for several step sizes,
//! against an exact solution, and the least-squares slope of `log err` against `log h`.
//!
//! References are exact: the harmonic oscillator `(cos t, -sin t)`, and the Kepler orbit of
//! eccentricity 0.5 from Kepler's equation (`common::kepler_exact`, a few ulps). The final times
//! (3.7 for the oscillator, 4.0 and 7.3 for Kepler, whose period is 2π) are not periods, so no
//! error cancels at the end; 7.3 lies past the second perihelion passage (t = 2π), where the
//! error of an eccentric orbit is generated.
//!
//! **Tolerance: the fitted slope must lie within ±0.3 of the order.** The error is
//! `C h^p (1 + O(h))`, so local slopes approach `p` as `h → 0`. The step sizes below were chosen
//! (and are checked by this test: every error lies in `[1e-11, 0.2]`) so that the method is in
//! its asymptotic regime, where the measured consecutive local slopes deviate from `p` by less
//! than 0.15, and so that every error is at least ~30 times the round-off floor (about `3e-13`
//! for Kepler on ~10^4 sub-steps). ±0.3 then has a margin of two over the observed deviation and
//! still separates `p` from `p ± 1` (a lost order condition, a wrong McLachlan stage placement,
//! which gives order 2, or a composition with a non-symmetric base method).

use crate::common;

use common::maps::QuadraticShift;
use common::{Kepler, Oscillator, fitted_slope, kepler_exact, kepler_start, oscillator_exact, state_distance};
use discretization::composition::{
    CompositionScheme, adjoint_pair, kahan_li6, kahan_li8, mclachlan4, suzuki_fractal, suzuki_umeno8, triple_jump,
    triple_jump_to, yoshida6, yoshida8,
};
use discretization::{Composition, CotangentLiftIntegrator, OneStep, PhaseState, ThetaMap};
use geom_core::function::AutoDiff;

const E: f64 = 0.5;
const MARGIN: f64 = 0.3;

fn theta2(theta: f64) -> CotangentLiftIntegrator<ThetaMap<2>, Kepler> {
    CotangentLiftIntegrator::new(ThetaMap::new(theta).unwrap(), Kepler)
}

/// Global error at `t` after `n` steps of `t/n` from perihelion.
fn kepler_error<M: OneStep<PhaseState<2>>>(method: &M, t: f64, n: usize) -> f64 {
    let mut s = kepler_start(E);
    let h = t / n as f64;
    for k in 0..n {
        method.step(&mut s, h).unwrap_or_else(|e| panic!("{} failed at step {k} (h = {h}): {e}", method.name()));
    }
    state_distance(&s, &kepler_exact(E, t))
}

fn oscillator_error<M: OneStep<PhaseState<1>>>(method: &M, t: f64, n: usize) -> f64 {
    let mut s = oscillator_exact(0.0);
    let h = t / n as f64;
    for _ in 0..n {
        method.step(&mut s, h).unwrap();
    }
    state_distance(&s, &oscillator_exact(t))
}

/// Fit the slope over `ns` (steps per run), print the table and assert `|slope - order| <= 0.3`.
fn assert_order(label: &str, order: f64, t: f64, ns: &[usize], error: impl Fn(usize) -> f64) -> f64 {
    let hs: Vec<f64> = ns.iter().map(|&n| t / n as f64).collect();
    let errs: Vec<f64> = ns.iter().map(|&n| error(n)).collect();
    let slope = fitted_slope(&hs, &errs);
    let table: Vec<String> = hs.iter().zip(&errs).map(|(h, e)| format!("h={h:.3e}: {e:.3e}")).collect();
    println!("{label:<40} slope {slope:.3} (expected {order}); {}", table.join(", "));
    for e in &errs {
        assert!((1e-11..=0.2).contains(e), "{label}: error {e:e} outside the range the step sizes were chosen for");
    }
    assert!((slope - order).abs() <= MARGIN, "{label}: fitted slope {slope:.3}, expected {order} ± {MARGIN}");
    slope
}

#[test]
fn theta_maps_on_the_oscillator_order_one_and_midpoint_two() {
    for theta in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let m = CotangentLiftIntegrator::new(ThetaMap::<1>::new(theta).unwrap(), AutoDiff(Oscillator));
        let order = if theta == 0.5 { 2.0 } else { 1.0 };
        assert_eq!(OneStep::<PhaseState<1>>::order(&m), order as u32);
        assert_order(&format!("oscillator, theta = {theta}"), order, 3.7, &[40, 80, 160, 320], |n| {
            oscillator_error(&m, 3.7, n)
        });
    }
}

#[test]
fn theta_maps_on_kepler_order_one_and_midpoint_two() {
    for theta in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let m = theta2(theta);
        let order = if theta == 0.5 { 2.0 } else { 1.0 };
        assert_order(&format!("Kepler e = 0.5, theta = {theta}"), order, 4.0, &[800, 1600, 3200, 6400], |n| {
            kepler_error(&m, 4.0, n)
        });
    }
}

/// A nonlinear self-adjoint map (the quadratic shifts of `common::maps`, general 4-block path)
/// induces a symmetric method: order 2, for the equivariant and the non-equivariant variant.
#[test]
fn nonlinear_symmetric_maps_are_order_two() {
    for map in [QuadraticShift::<2>::radial(0.5), QuadraticShift::<2>::fixed(0.5, nalgebra::Vector2::new(1.0, 0.5))] {
        let m = CotangentLiftIntegrator::new(map, Kepler);
        assert_eq!(OneStep::<PhaseState<2>>::order(&m), 2);
        assert_order(
            &format!("Kepler, {}", discretization::DiscretizationMap::name(&map)),
            2.0,
            4.0,
            &[200, 400, 800, 1600],
            |n| kepler_error(&m, 4.0, n),
        );
    }
}

/// Symplectic Euler (θ = 0) with its adjoint (θ = 1) as `Φ*_{h/2} ∘ Φ_{h/2}`: order 2.
#[test]
fn symplectic_euler_with_its_adjoint_is_order_two() {
    let m = Composition::with_adjoint(theta2(0.0), theta2(1.0), adjoint_pair());
    assert!(OneStep::<PhaseState<2>>::is_symmetric(&m));
    assert_order("Kepler, adjoint pair of theta = 0, 1", 2.0, 7.3, &[200, 400, 800, 1600], |n| {
        kepler_error(&m, 7.3, n)
    });
}

/// McLachlan's order-4 scheme with `Φ` = θ = 0 and `Φ*` = θ = 1 (a wrong stage placement gives 2).
#[test]
fn mclachlan4_with_symplectic_euler_is_order_four() {
    let m = Composition::with_adjoint(theta2(0.0), theta2(1.0), mclachlan4());
    assert_order("Kepler, McLachlan 4 of theta = 0, 1", 4.0, 7.3, &[100, 200, 400, 800], |n| kepler_error(&m, 7.3, n));
}

fn midpoint_composition(scheme: CompositionScheme) -> Composition<CotangentLiftIntegrator<ThetaMap<2>, Kepler>> {
    Composition::new(theta2(0.5), scheme).unwrap()
}

/// Compositions of the midpoint rule: `(scheme, expected order, steps per run)`. The step
/// counts put each method in its asymptotic range (see the module documentation).
#[test]
fn compositions_of_the_midpoint_rule_reach_their_orders() {
    let cases: Vec<(CompositionScheme, f64, [usize; 4])> = vec![
        (triple_jump(2), 4.0, [200, 400, 800, 1600]),
        (suzuki_fractal(2), 4.0, [100, 200, 400, 800]),
        (yoshida6(), 6.0, [100, 141, 200, 283]),
        (kahan_li6(), 6.0, [71, 100, 141, 200]),
        (triple_jump_to(6).unwrap(), 6.0, [200, 283, 400, 566]),
        (yoshida8(), 8.0, [141, 200, 283, 400]),
        (kahan_li8(), 8.0, [71, 100, 141, 200]),
        (suzuki_umeno8(), 8.0, [100, 141, 200, 283]),
    ];
    for (scheme, order, ns) in cases {
        assert_eq!(scheme.order as f64, order, "{}: declared order", scheme.name);
        let name = format!("Kepler, {} of midpoint", scheme.name);
        let m = midpoint_composition(scheme);
        assert_order(&name, order, 7.3, &ns, |n| kepler_error(&m, 7.3, n));
    }
}

/// A negative control for the slope test itself: the triple jump built on a *non-symmetric*
/// first-order base method (θ = 0) does not reach order 4; its order stays 1, since `Σγ^2 ≠ 0`.
#[test]
fn triple_jump_of_a_non_symmetric_method_stays_first_order() {
    let m = Composition::new(theta2(0.0), triple_jump(2)).unwrap();
    assert!(!OneStep::<PhaseState<2>>::is_symmetric(&m));
    assert_order("Kepler, triple jump of theta = 0", 1.0, 4.0, &[800, 1600, 3200, 6400], |n| kepler_error(&m, 4.0, n));
}
