//! Engø–Faltinsen (`lie_poisson_baselines::CoadjointEnergy`): on the free rigid body (so(3)*) and
//! on the heavy top as a Lie–Poisson system on se(3)* (a reduced Hamiltonian written once over
//! the scalar) the energy and the Casimirs hold to round-off over 10^5 steps, the spatial
//! momentum of the reconstruction too; the measured order is 2; RKMK (Heun, exp) of the same
//! order drifts in energy (negative control); a failed step leaves the state untouched.

use geom_core::function::ScalarFunction;
use geom_core::lie::{Chart, LieGroup, Se3, So3, So3xR3};
use geom_core::newton::NewtonOptions;
use geom_core::step::testing::{Contract, check_integrator};
use geom_core::step::{LieState, OneStep};
use geom_core::{GeomError, Scalar};
use integrators::lie_poisson_baselines::CoadjointEnergy;
use integrators::models::FreeRigidBody;
use integrators::rkmk::{GroupState, Rkmk};
use integrators::tableau;
use nalgebra::{Matrix3, SVector, Vector3, Vector6};

fn body() -> FreeRigidBody {
    FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0).unwrap()
}

fn pi0() -> Vector3<f64> {
    Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin())
}

fn energy(b: &FreeRigidBody, pi: &Vector3<f64>) -> f64 {
    0.5 * pi.dot(&b.velocity(pi))
}

/// The heavy top `h(Π, Γ) = ½ Π·I⁻¹Π + mgl Γ·χ` on se(3)* = (Π, Γ), `I = diag(2, 2.5, 1)`,
/// `mgl = 1`, `χ ∝ (0.1, 0, 1)`: `ξ = ∇h = (Ω, mgl χ)`, `ad*_ξ (Π, Γ) = (Π×Ω + Γ×mgl χ, Γ×Ω)`.
#[derive(Debug, Clone, Copy)]
struct TopOnSe3;
impl ScalarFunction<6> for TopOnSe3 {
    fn eval<S: Scalar>(&self, x: &SVector<S, 6>) -> S {
        let inertia = [2.0, 2.5, 1.0];
        let chi = Vector3::new(0.1, 0.0, 1.0).normalize();
        let mut e = S::from(0.0);
        for i in 0..3 {
            e += x[i] * x[i] * S::from(0.5 / inertia[i]) + x[3 + i] * S::from(chi[i]);
        }
        e
    }
}

fn top0() -> Vector6<f64> {
    let gamma = So3.exp(&Vector3::new(0.5, 0.2, 0.0)).transpose() * Vector3::z();
    Vector6::new(0.3, -0.4, 2.0, gamma[0], gamma[1], gamma[2])
}

/// 10^5 steps of h = 0.1 on so(3)*: energy and |Π|² to round-off; on T*SO(3) the spatial
/// momentum RΠ too. Round-off: each step rounds `Ad*_W Π` (W orthogonal to `ε`), a random walk
/// of `ε √(10^5) ≈ 7e-14`; the bound 5e-13 leaves a factor 7 (the O(h²) energy error of a
/// method that does not conserve it is 1e-3 here).
#[test]
fn rigid_body_energy_casimir_and_spatial_momentum_to_round_off() {
    let b = body();
    for chart in [Chart::Cayley, Chart::Exp] {
        let m = CoadjointEnergy::new(So3, chart, b.hamiltonian());
        let mut s = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), pi0());
        let (e0, c0, j0) = (energy(&b, &s.mu), s.mu.norm_squared(), s.spatial_momentum(&So3));
        let (mut de, mut dc, mut dj) = (0.0f64, 0.0f64, 0.0f64);
        for _ in 0..100_000 {
            m.step(&mut s, 0.1).unwrap();
            de = de.max((energy(&b, &s.mu) - e0).abs());
            dc = dc.max((s.mu.norm_squared() - c0).abs());
            dj = dj.max((s.spatial_momentum(&So3) - j0).amax());
        }
        println!("{}: |ΔE| {de:.2e}, |Δ|Π|²| {dc:.2e}, |ΔRΠ| {dj:.2e}", OneStep::<Vector3<f64>>::name(&m));
        assert!(de < 5e-13 && dc < 5e-13 && dj < 5e-13, "{chart:?}: {de:e} {dc:e} {dj:e}");
    }
}

/// The heavy top on se(3)*, written once over the scalar: energy and both Casimirs |Γ|², Π·Γ to
/// round-off over 10^5 steps of h = 0.05.
#[test]
fn heavy_top_on_se3_energy_and_casimirs_to_round_off() {
    let m = CoadjointEnergy::new(Se3, Chart::Cayley, TopOnSe3);
    let invariants = |x: &Vector6<f64>| {
        let (pi, gamma) = (x.fixed_rows::<3>(0), x.fixed_rows::<3>(3));
        [TopOnSe3.eval(x), gamma.norm_squared(), pi.dot(&gamma)]
    };
    let mut x = top0();
    let i0 = invariants(&x);
    let mut worst = [0.0f64; 3];
    for _ in 0..100_000 {
        m.step(&mut x, 0.05).unwrap();
        for (w, (a, b)) in worst.iter_mut().zip(invariants(&x).iter().zip(&i0)) {
            *w = w.max((a - b).abs());
        }
    }
    println!("heavy top on se(3)*: |ΔE| {:.2e}, |Δ|Γ|²| {:.2e}, |ΔΠ·Γ| {:.2e}", worst[0], worst[1], worst[2]);
    assert!(worst.iter().all(|w| *w < 1e-12), "{worst:?}");
}

/// RK4 on `Π̇ = Π × I⁻¹Π` at a small step: the reference.
fn reference(b: &FreeRigidBody, pi: &Vector3<f64>, t: f64) -> Vector3<f64> {
    let f = |p: &Vector3<f64>| p.cross(&b.velocity(p));
    let n = 20_000;
    let h = t / n as f64;
    let mut p = *pi;
    for _ in 0..n {
        let k1 = f(&p);
        let k2 = f(&(p + k1 * (0.5 * h)));
        let k3 = f(&(p + k2 * (0.5 * h)));
        let k4 = f(&(p + k3 * h));
        p += (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (h / 6.0);
    }
    p
}

/// The error at T = 4 against a reference, h = 0.2, 0.1, 0.05: slopes 2 ± 0.1; and the contract
/// (step_n, failed steps, self-convergence order, reversibility) on μ and on (g, μ).
#[test]
fn order_two_and_the_contract() {
    let b = body();
    let exact = reference(&b, &pi0(), 4.0);
    let m = CoadjointEnergy::new(So3, Chart::Cayley, b.hamiltonian());
    let err = |h: f64| {
        let mut p = pi0();
        m.step_n(&mut p, h, (4.0 / h).round() as usize).unwrap();
        (p - exact).amax()
    };
    let e: Vec<f64> = [0.2, 0.1, 0.05].iter().map(|&h| err(h)).collect();
    let slopes = [(e[0] / e[1]).log2(), (e[1] / e[2]).log2()];
    println!("errors {e:?}, slopes {slopes:.3?}");
    assert!(slopes.iter().all(|s| (s - 2.0).abs() < 0.1), "{slopes:?}");

    let r = check_integrator(&m, &pi0(), &Contract::default()).unwrap_or_else(|e| panic!("{e}"));
    println!("contract on so(3)*: order {:.3}", r.measured_order);
    let s0 = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), pi0());
    let r = check_integrator(&m, &s0, &Contract::default()).unwrap_or_else(|e| panic!("{e}"));
    println!("contract on T*SO(3): order {:.3}", r.measured_order);
    let top = CoadjointEnergy::new(Se3, Chart::Exp, TopOnSe3);
    let r = check_integrator(&top, &top0(), &Contract::default()).unwrap_or_else(|e| panic!("{e}"));
    println!("contract on se(3)*: order {:.3}", r.measured_order);
}

/// Negative control: RKMK with Heun's tableau (order 2, exp chart) on SO(3) × R³ keeps the
/// group but not the energy, which drifts: its error after 10^4 steps of h = 0.1 is more than
/// 5 times that after 10^3 steps and above 1e-4, where Engø–Faltinsen stays at round-off.
#[test]
fn rkmk_of_the_same_order_drifts_in_energy() {
    let b = body();
    let rkmk = Rkmk::<_, _, 6, 2>::new(So3xR3::default(), b, &tableau::heun(), Chart::Exp).unwrap();
    let mut s = GroupState::new(0.0, (Matrix3::identity(), pi0()));
    let e0 = energy(&b, &pi0());
    rkmk.step_n(&mut s, 0.1, 1000).unwrap();
    let early = (energy(&b, &s.g.1) - e0).abs();
    rkmk.step_n(&mut s, 0.1, 9000).unwrap();
    let late = (energy(&b, &s.g.1) - e0).abs();
    println!("RKMK Heun energy error: {early:.3e} after 10^3 steps, {late:.3e} after 10^4");
    assert!(late > 5.0 * early && late > 1e-4, "{early:e} {late:e}");
}

/// A step that fails (Newton given one iteration, a non-finite momentum) leaves the state
/// exactly as it was.
#[test]
fn a_failed_step_leaves_the_state_untouched() {
    let b = body();
    let tight = NewtonOptions::new(1e-30, 1e-30, 1).unwrap();
    let m = CoadjointEnergy::new(So3, Chart::Cayley, b.hamiltonian()).with_newton(tight);
    let s0 = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), pi0());
    let mut s = s0;
    assert!(matches!(m.step(&mut s, 0.1), Err(GeomError::NotConverged { .. })), "{:?}", m.step(&mut s, 0.1));
    assert_eq!(format!("{:?}", s.g.map(f64::to_bits)), format!("{:?}", s0.g.map(f64::to_bits)));
    assert_eq!(s.mu.map(f64::to_bits), s0.mu.map(f64::to_bits));
    let m = CoadjointEnergy::new(So3, Chart::Cayley, b.hamiltonian());
    let bad = LieState::new(s0.g, Vector3::new(f64::NAN, 0.0, 1.0));
    let mut s = bad;
    assert!(m.step(&mut s, 0.1).is_err());
    assert_eq!(s.mu.map(f64::to_bits), bad.mu.map(f64::to_bits));
    assert_eq!(s.g.map(f64::to_bits), bad.g.map(f64::to_bits));
}

/// Engø–Faltinsen on `T*SO(3)` for the heavy top (`VerticalCoadjointEnergy`): the step of
/// `(R, Π)` equals the scheme on se(3)* run on `(Π, Γ)` (`Γ_k` read off `R_k` each step against `Γ`
/// carried by `Ad*`: the reconstruction `R W_rot` is consistent with the coadjoint action to
/// round-off), the energy `H(R, Π)` and the vertical momentum `e3·RΠ` hold to round-off over
/// 2·10^4 steps, the measured order is 2 (contract), and a failed step leaves the state untouched.
#[test]
fn heavy_top_on_t_star_so3_matches_se3_and_keeps_energy_and_vertical_momentum() {
    use integrators::lie_poisson_baselines::{ReducedTop, VerticalCoadjointEnergy};
    use integrators::models::HeavyTop;
    // the top of TopOnSe3: I = diag(2, 2.5, 1), mgl = 1, χ ∝ (0.1, 0, 1)
    let top =
        HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::new(0.1, 0.0, 1.0)).unwrap();
    for chart in [Chart::Cayley, Chart::Exp] {
        let on_r = VerticalCoadjointEnergy::new(chart, ReducedTop::heavy(&top));
        let on_se3 = CoadjointEnergy::new(Se3, chart, TopOnSe3);
        let r0 = So3.exp(&Vector3::new(0.5, 0.2, 0.0));
        let mut s = LieState::new(r0, Vector3::new(0.3, -0.4, 2.0));
        let mut x = top0();
        assert!((HeavyTop::gamma(&r0) - x.fixed_rows::<3>(3)).amax() < 1e-15, "the same start");
        for _ in 0..1000 {
            on_r.step(&mut s, 0.05).unwrap();
            on_se3.step(&mut x, 0.05).unwrap();
        }
        let dpi = (s.mu - x.fixed_rows::<3>(0)).amax();
        let dgamma = (HeavyTop::gamma(&s.g) - x.fixed_rows::<3>(3)).amax();
        println!("{chart:?}: after 1000 steps |ΔΠ| {dpi:.1e}, |ΔΓ| {dgamma:.1e} against se(3)*");
        assert!(dpi < 1e-11 && dgamma < 1e-11, "{chart:?}: {dpi:e} {dgamma:e}");
        let (e0, j0) = (top.energy(&s), top.momenta(&s)[0]);
        let (mut de, mut dj) = (0.0f64, 0.0f64);
        for _ in 0..20_000 {
            on_r.step(&mut s, 0.05).unwrap();
            de = de.max((top.energy(&s) - e0).abs());
            dj = dj.max((top.momenta(&s)[0] - j0).abs());
        }
        println!("{chart:?}: 2e4 steps, |ΔE| {de:.1e}, |Δ e3·RΠ| {dj:.1e}");
        assert!(de < 1e-12 && dj < 1e-12, "{chart:?}: {de:e} {dj:e}");
        let r = check_integrator(&on_r, &s, &Contract::default()).unwrap_or_else(|e| panic!("{e}"));
        println!("{chart:?}: contract on T*SO(3), order {:.3}", r.measured_order);
        // a failed step (h = NaN) leaves (R, Π) bit for bit
        let before = s;
        assert!(on_r.step(&mut s, f64::NAN).is_err());
        assert_eq!(s, before);
    }
}
