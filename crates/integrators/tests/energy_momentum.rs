//! Lewis–Simo energy–momentum (`lie_poisson_baselines::EnergyMomentum`) on T*SO(3): the free
//! body keeps energy and the whole spatial momentum RΠ, the heavy top energy and the vertical
//! momentum e3·RΠ, to round-off over 10^5 steps (HP Störmer–Verlet, symplectic, has an O(h²)
//! energy error there: the control); order 2 measured against a reference; for the free body
//! the scheme is Engø–Faltinsen in the Cayley chart; the contract; failed steps.

use crate::baselines_common::{State, body, body0, heavy_top_reference, top, top0};
use discretization::AdvectedState;
use geom_core::GeomError;
use geom_core::lie::{Chart, So3};
use geom_core::newton::NewtonOptions;
use geom_core::step::testing::{Contract, check_integrator};
use geom_core::step::{LieState, OneStep};
use integrators::hp;
use integrators::lie_poisson_baselines::{CoadjointEnergy, EnergyMomentum, ReducedTop};
use nalgebra::{Matrix3, Vector3};

/// The largest deviations of the energy and of the momenta over `n` steps of `h`.
fn drift(m: &dyn OneStep<State>, s0: &State, h: f64, n: usize, invariants: impl Fn(&State) -> [f64; 4]) -> [f64; 4] {
    let mut s = *s0;
    let i0 = invariants(&s);
    let mut worst = [0.0f64; 4];
    for _ in 0..n {
        m.step(&mut s, h).unwrap();
        for (w, (a, b)) in worst.iter_mut().zip(invariants(&s).iter().zip(&i0)) {
            *w = w.max((a - b).abs());
        }
    }
    worst
}

/// 10^5 steps of h = 0.1: energy and RΠ to round-off (a random walk of ε √(10^5) ≈ 7e-14
/// relative; the bound 5e-13 leaves a factor 7).
#[test]
fn free_body_energy_and_spatial_momentum_to_round_off() {
    let b = body();
    let inv = |s: &State| {
        let j = s.spatial_momentum(&So3);
        [b.energy(s), j[0], j[1], j[2]]
    };
    let w = drift(&EnergyMomentum::new(ReducedTop::free(&b)), &body0(), 0.1, 100_000, inv);
    println!("free body: |ΔE| {:.2e}, |ΔRΠ| {:.2e}", w[0], w[1].max(w[2]).max(w[3]));
    assert!(w.iter().all(|x| *x < 5e-13), "{w:?}");
}

/// 10^5 steps of h = 0.05 on the heavy top: energy, e3·RΠ and the group to round-off; HP
/// Störmer–Verlet (Cayley) at the same step misses the energy by more than 1e-5.
#[test]
fn heavy_top_energy_and_vertical_momentum_to_round_off() {
    let t = top();
    let inv = |s: &State| [t.energy(s), t.momenta(s)[0], (s.g.transpose() * s.g - Matrix3::identity()).amax(), 0.0];
    let w = drift(&EnergyMomentum::new(ReducedTop::heavy(&t)), &top0(), 0.05, 100_000, inv);
    println!("heavy top: |ΔE| {:.2e}, |Δ e3·RΠ| {:.2e}, |RᵀR − I| {:.2e}", w[0], w[1], w[2]);
    assert!(w[0] < 5e-13 && w[1] < 5e-13 && w[2] < 1e-13, "{w:?}");
    let sv = drift(&hp::stormer_verlet(So3, Chart::Cayley, t).unwrap(), &top0(), 0.05, 2000, inv);
    println!("HP Störmer–Verlet: |ΔE| {:.2e}", sv[0]);
    assert!(sv[0] > 1e-5, "{sv:?}");
}

/// RK4 on the heavy top's `Π̇ = Π × I⁻¹Π + mgl Γ × χ`, `Γ̇ = Γ × I⁻¹Π` at a small step.
/// The error of (Π, Γ) at T = 2 on the heavy top, h = 0.1, 0.05, 0.025: slopes 2 ± 0.1; the
/// contract on (R, Π) and on (Π, Γ).
#[test]
fn order_two_and_the_contract() {
    let t = top();
    let s0 = top0();
    let gamma0 = s0.g.row(2).transpose();
    let (pe, ge) = heavy_top_reference(&t, s0.mu, gamma0, 2.0);
    let m = EnergyMomentum::new(ReducedTop::heavy(&t));
    let err = |h: f64| {
        let mut s = s0;
        m.step_n(&mut s, h, (2.0 / h).round() as usize).unwrap();
        (s.mu - pe).amax().max((s.g.row(2).transpose() - ge).amax())
    };
    let e: Vec<f64> = [0.1, 0.05, 0.025].iter().map(|&h| err(h)).collect();
    let slopes = [(e[0] / e[1]).log2(), (e[1] / e[2]).log2()];
    println!("errors {e:?}, slopes {slopes:.3?}");
    assert!(slopes.iter().all(|s| (s - 2.0).abs() < 0.1), "{slopes:?}");

    let r = check_integrator(&m, &s0, &Contract::default()).unwrap_or_else(|e| panic!("{e}"));
    println!("contract on T*SO(3): order {:.3}", r.measured_order);
    let x0 = AdvectedState::new(s0.mu, gamma0);
    let r = check_integrator(&m, &x0, &Contract::default()).unwrap_or_else(|e| panic!("{e}"));
    println!("contract on so(3)* × R³: order {:.3}", r.measured_order);
}

/// For the free body the scheme is Engø–Faltinsen in the Cayley chart (Gonzalez's discrete
/// gradient of a quadratic h is ∇h at the midpoint, and `cay(hξ)ᵀ Π = Π + h Π̄ × ξ`): 100 steps
/// agree to 1e-13.
#[test]
fn free_body_is_engo_faltinsen_in_the_cayley_chart() {
    let b = body();
    let (mut a, mut c) = (body0(), body0());
    let em = EnergyMomentum::new(ReducedTop::free(&b));
    let ef = CoadjointEnergy::new(So3, Chart::Cayley, b.hamiltonian());
    for _ in 0..100 {
        em.step(&mut a, 0.1).unwrap();
        ef.step(&mut c, 0.1).unwrap();
    }
    let d = (a.mu - c.mu).amax().max((a.g - c.g).amax());
    println!("energy–momentum vs Engø–Faltinsen (Cayley): {d:.2e}");
    assert!(d < 1e-13, "{d:e}");
}

/// A step that fails (Newton given one iteration, a non-finite momentum) leaves the state
/// exactly as it was.
#[test]
fn a_failed_step_leaves_the_state_untouched() {
    let tight = NewtonOptions::new(1e-30, 1e-30, 1).unwrap();
    let m = EnergyMomentum::new(ReducedTop::heavy(&top())).with_newton(tight);
    let s0 = top0();
    let mut s = s0;
    assert!(matches!(m.step(&mut s, 0.1), Err(GeomError::NotConverged { .. })));
    assert_eq!(s.g.map(f64::to_bits), s0.g.map(f64::to_bits));
    assert_eq!(s.mu.map(f64::to_bits), s0.mu.map(f64::to_bits));
    let m = EnergyMomentum::new(ReducedTop::heavy(&top()));
    let bad = LieState::new(s0.g, Vector3::new(f64::NAN, 0.0, 1.0));
    let mut s = bad;
    assert!(m.step(&mut s, 0.1).is_err());
    assert_eq!(s.mu.map(f64::to_bits), bad.mu.map(f64::to_bits));
    assert_eq!(s.g.map(f64::to_bits), bad.g.map(f64::to_bits));
}

/// `ReducedTop` declares itself separable (`h = T(Π) + V(Γ)`), which drops the mixed Hessian
/// passes of the first Newton matrix: the declaration is true (AD's mixed block is zero at random
/// states), and the scheme takes the same steps as with a wrapper that does not declare it (the
/// full 21-pass Hessian). A model with a mixed term, declared separable, would get a wrong first
/// Newton matrix: the control shows the mixed block is then not zero.
#[test]
fn the_separable_declaration_of_the_reduced_top_is_true_and_changes_no_step() {
    use discretization::AdvectedFunction;
    use geom_core::Scalar;
    use geom_core::function::separability_defect;
    use integrators::lie_poisson_baselines::Split;
    use nalgebra::SVector;

    /// The same `h`, not declared separable.
    struct Undeclared(ReducedTop);
    impl AdvectedFunction<3, 3> for Undeclared {
        fn eval<S: Scalar>(&self, mu: &SVector<S, 3>, gamma: &SVector<S, 3>) -> S {
            self.0.eval(mu, gamma)
        }
    }
    /// `h + Π·Γ`: a mixed term.
    struct Mixed(ReducedTop);
    impl AdvectedFunction<3, 3> for Mixed {
        fn eval<S: Scalar>(&self, mu: &SVector<S, 3>, gamma: &SVector<S, 3>) -> S {
            self.0.eval(mu, gamma) + mu.dot(gamma)
        }
    }
    let reduced = ReducedTop::heavy(&top());
    assert!(reduced.is_separable() && !Undeclared(reduced).is_separable());
    for k in 0..20 {
        let t = k as f64;
        let gamma = Vector3::new((0.7 * t).sin(), (1.3 * t).cos(), 0.4 - 0.1 * t);
        let pi = Vector3::new(1.0 + t, -0.5 * t, (0.3 * t).cos());
        assert!(separability_defect(&Split(reduced), &gamma, &pi) <= 1e-15);
        assert!(separability_defect(&Split(Mixed(reduced)), &gamma, &pi) >= 0.9);
    }
    let (declared, undeclared) = (EnergyMomentum::new(reduced), EnergyMomentum::new(Undeclared(reduced)));
    let (mut a, mut b) = (top0(), top0());
    for _ in 0..2000 {
        declared.step(&mut a, 0.05).unwrap();
        undeclared.step(&mut b, 0.05).unwrap();
    }
    let d = (a.g - b.g).amax().max((a.mu - b.mu).amax());
    assert!(d <= 1e-12, "declared and undeclared differ by {d:e}");
}
