//! Variational equations: the tangent map, the Lyapunov spectrum and MEGNO on Hénon–Heiles.

use geom_core::GeomError;
use geom_core::Scalar;
use geom_core::function::{AutoDiff, PhaseSpaceFunction};
use integrators::classical::{ExplicitRk, HamiltonianField, StepJacobian, StormerVerlet};
use integrators::variational_equations::{FiniteDifference, LyapunovSpectrum, Megno};
use integrators::{OneStep, PhaseState, tableau};
use nalgebra::{SVector, Vector2};

/// Hénon & Heiles (1964): `H = |p|²/2 + |q|²/2 + q₁² q₂ − q₂³/3`.
#[derive(Clone, Copy)]
pub(crate) struct HenonHeiles;
impl PhaseSpaceFunction<2> for HenonHeiles {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        let (x, y) = (q[0], q[1]);
        (p.norm_squared() + q.norm_squared()) * S::from(0.5) + x * x * y - y * y * y * S::from(1.0 / 3.0)
    }
}

/// The point `(0, y; p_x, 0)` of energy `e` with `p_x > 0`.
pub(crate) fn hh_state(e: f64, y: f64) -> PhaseState<2> {
    let px = (2.0 * e - y * y + 2.0 * y * y * y / 3.0).sqrt();
    PhaseState::new(Vector2::new(0.0, y), Vector2::new(px, 0.0))
}

fn sv() -> StormerVerlet<geom_core::function::SeparableAutoDiff<HenonHeiles, 2>> {
    StormerVerlet::new(AutoDiff::separable(HenonHeiles))
}

/// A chaotic orbit (E = 1/8, y = −0.2) and a quasi-periodic one (E = 1/12, y = 0), as MEGNO
/// classifies them (tests below).
fn chaotic() -> PhaseState<2> {
    hh_state(0.125, -0.2)
}
fn regular() -> PhaseState<2> {
    hh_state(1.0 / 12.0, 0.0)
}
fn deviation() -> PhaseState<2> {
    PhaseState::new(Vector2::new(1.0, 0.3), Vector2::new(0.2, -0.5))
}

fn spectrum<M: StepJacobian<2>>(m: &M, x: PhaseState<2>, h: f64, t: f64) -> [f64; 4] {
    let mut l = LyapunovSpectrum::<2, 4>::new(x, h).unwrap();
    l.advance(m, (t / h).round() as usize).unwrap();
    l.exponents()
}

#[test]
fn finite_difference_tangent_map_matches_the_exact_one() {
    let fd = FiniteDifference::new(sv());
    let x = chaotic();
    let ((a, ma), (b, mb)) = (sv().step_jacobian(&x, 0.05).unwrap(), fd.step_jacobian(&x, 0.05).unwrap());
    assert_eq!(a, b);
    let d = (ma.to_dmatrix() - mb.to_dmatrix()).amax();
    println!("|M_fd − M_exact| = {d:.1e}");
    assert!(d < 1e-9, "{d:.1e}");
    // the FD map of a symplectic method is symplectic to its own accuracy only
    assert!(mb.symplecticity_defect() < 1e-9 && ma.symplecticity_defect() < 1e-14);
}

#[test]
fn symplectic_spectrum_sums_to_zero_and_comes_in_pairs() {
    let (h, t) = (0.05, 20_000.0);
    let l = spectrum(&sv(), chaotic(), h, t);
    let sum: f64 = l.iter().sum();
    println!("SV spectrum at t = {t}: {l:?}, sum {sum:.1e}, pairs {:.1e} {:.1e}", l[0] + l[3], l[1] + l[2]);
    assert!(sum.abs() < 1e-13, "sum {sum:.1e}");
    assert!(l[0] > 0.02, "{l:?}");
    // ±λ₁ to 1% (finite-time: the pairing is exact only as t → ∞); λ₂, λ₃ (the flow and the
    // energy directions) vanish
    assert!((l[0] + l[3]).abs() < 0.01 * l[0], "{l:?}");
    assert!(l[1].abs() < 0.01 * l[0] && l[2].abs() < 0.01 * l[0], "{l:?}");
    // negative control: RK4 is not symplectic, det M ≠ 1, the sum does not vanish
    let rk4 = ExplicitRk::<_, 4>::new(&tableau::rk4(), HamiltonianField(AutoDiff::separable(HenonHeiles))).unwrap();
    let r = spectrum(&rk4, chaotic(), h, t);
    let rsum: f64 = r.iter().sum();
    println!("RK4 spectrum: {r:?}, sum {rsum:.1e}");
    assert!(rsum.abs() > 1e3 * sum.abs().max(1e-16), "{rsum:.1e}");
}

#[test]
fn finite_time_exponents_converge_in_the_step() {
    // at fixed t, λ₁(t; h) converges as h → 0 with the method's order 2 (the exponents of a
    // map O(h²)-close to the flow, along a trajectory O(h²)-close while it is shadowed)
    // (t = 20: the trajectories at the four steps stay within O(h²) of each other; at t ≳ 100
    // they are no longer shadowed and the differences stop shrinking)
    let t = 20.0;
    let hs = [0.04, 0.02, 0.01, 0.005];
    let l: Vec<f64> = hs.iter().map(|&h| spectrum(&sv(), chaotic(), h, t)[0]).collect();
    let d: Vec<f64> = (0..3).map(|i| (l[i] - l[i + 1]).abs()).collect();
    let slopes: Vec<f64> = (0..2).map(|i| (d[i] / d[i + 1]).log2()).collect();
    println!("λ₁(t = {t}) for h = {hs:?}: {l:?}; differences {d:?}, slopes {slopes:.2?}");
    assert!(d[1] < 0.01 * l[2].abs(), "h = 0.02 vs 0.01: {l:?}");
    for s in &slopes {
        assert!((s - 2.0).abs() <= 0.3, "{slopes:?}");
    }
    // the long-time exponent at two steps (information: a single orbit's value over t = 2·10⁴)
    let long: Vec<f64> = [0.05, 0.025].iter().map(|&h| spectrum(&sv(), chaotic(), h, 20_000.0)[0]).collect();
    println!("λ₁(t = 2e4) for h = 0.05, 0.025: {long:?}");
    let mid: Vec<f64> = hs.iter().map(|&h| spectrum(&sv(), chaotic(), h, 50.0)[0]).collect();
    println!("λ₁(t = 50) for h = {hs:?}: {mid:?}");
}

#[test]
fn megno_tends_to_two_on_a_torus() {
    let mut m = Megno::new(regular(), deviation(), 0.05).unwrap();
    m.advance(&sv(), 2_000_000).unwrap();
    println!("regular orbit: <Y>({}) = {:.4}, Y = {:.4}", m.time(), m.mean(), m.value());
    assert!((m.mean() - 2.0).abs() < 0.05, "{}", m.mean());
}

#[test]
fn megno_grows_like_lambda_t_over_two_on_a_chaotic_orbit() {
    let mut m = Megno::new(chaotic(), deviation(), 0.05).unwrap();
    m.advance(&sv(), 400_000).unwrap();
    let (lambda, t) = (m.lyapunov(), m.time());
    let ratio = m.mean() / (0.5 * lambda * t);
    println!("chaotic orbit: <Y>({t}) = {:.1}, λ t / 2 = {:.1}, ratio {ratio:.3}", m.mean(), 0.5 * lambda * t);
    assert!(m.mean() > 100.0 && (ratio - 1.0).abs() < 0.15, "{ratio}");
}

#[test]
fn ensemble_mean_of_chaotic_exponents() {
    // information only: no published value of the Hénon–Heiles maximal exponent at E = 1/6
    // reliable enough to compare with was found (see the report); the mean over chaotic orbits
    let mut lambdas = Vec::new();
    for k in 0..10 {
        let y = -0.3 + 0.03 * k as f64;
        let mut m = Megno::new(hh_state(1.0 / 6.0, y), deviation(), 0.05).unwrap();
        m.advance(&sv(), 100_000).unwrap();
        if m.mean() > 8.0 {
            lambdas.push(m.lyapunov());
        }
    }
    let mean = lambdas.iter().sum::<f64>() / lambdas.len() as f64;
    println!("E = 1/6: {} chaotic orbits of 10, mean λ₁(t = 5000) = {mean:.4}", lambdas.len());
    assert!(!lambdas.is_empty());
}

/// A drift `q ← q + h p` that fails once `q₀ > 1` (a user's method without a Jacobian).
pub(crate) struct FailingDrift;
impl OneStep<PhaseState<2>> for FailingDrift {
    fn name(&self) -> String {
        "failing drift".into()
    }
    fn order(&self) -> u32 {
        1
    }
    fn step(&self, s: &mut PhaseState<2>, h: f64) -> Result<(), GeomError> {
        let q = s.q + s.p * h;
        if q[0] > 1.0 {
            return Err(GeomError::NonFinite { what: "test failure" });
        }
        s.q = q;
        Ok(())
    }
}

#[test]
fn invalid_input_and_failed_steps_leave_everything_untouched() {
    let x = PhaseState::new(Vector2::new(0.0, 0.0), Vector2::new(1.0, 0.0));
    assert!(matches!(LyapunovSpectrum::<2, 5>::new(x, 0.1), Err(GeomError::InvalidParameter { .. })));
    assert!(matches!(LyapunovSpectrum::<2, 0>::new(x, 0.1), Err(GeomError::InvalidParameter { .. })));
    assert!(matches!(LyapunovSpectrum::<2, 4>::new(x, 0.0), Err(GeomError::InvalidStep { .. })));
    assert!(matches!(Megno::new(x, x, f64::NAN), Err(GeomError::InvalidStep { .. })));
    let zero = PhaseState::new(Vector2::zeros(), Vector2::zeros());
    assert!(matches!(Megno::new(x, zero, 0.1), Err(GeomError::InvalidParameter { .. })));
    // the drift's tangent map, by finite differences: M = [[I, hI], [0, I]], exponents 0
    let fd = FiniteDifference::new(FailingDrift);
    let mut l = LyapunovSpectrum::<2, 4>::new(x, 0.1).unwrap();
    l.advance(&fd, 5).unwrap();
    assert!(l.exponents().iter().all(|v| v.abs() < 1.0));
    let before = l;
    let bits = |l: &LyapunovSpectrum<2, 4>| {
        let mut w: Vec<u64> = l.log_growth().iter().map(|v| v.to_bits()).collect();
        w.extend(l.state().q.iter().chain(l.state().p.iter()).map(|v| v.to_bits()));
        w.push(l.time().to_bits());
        w
    };
    assert!(l.advance(&fd, 20).is_err());
    assert_eq!(bits(&l), bits(&before));
    let mut m = Megno::new(x, deviation(), 0.1).unwrap();
    m.advance(&fd, 5).unwrap();
    let before = m;
    assert!(m.advance(&fd, 20).is_err());
    assert_eq!(m, before);
}
