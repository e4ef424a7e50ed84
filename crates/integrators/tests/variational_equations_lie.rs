//! Variational equations on `T*G` in the left-trivialized tangent space: the tangent map of the
//! Hamilton–Pontryagin integrators by central differences, the Lyapunov spectrum and MEGNO on the
//! heavy top and the free rigid body (SO(3), `D = 3`, six exponents).

use crate::hp_common::rigid_body;

use geom_core::GeomError;
use geom_core::lie::{Chart, LieGroup, So3, So3xR3};
use integrators::hp::{self, LieState};
use integrators::models::HeavyTop;
use integrators::rkmk::{self, GroupState, Rkmk};
use integrators::variational_equations::{
    LieFiniteDifference, LieLyapunovSpectrum, LieMegno, TangentMap, apply_jacobian, lie_deviation, lie_perturb,
};
use integrators::{OneStep, PhaseState, tableau};
use nalgebra::{DMatrix, Matrix3, Vector3};

type State = LieState<Matrix3<f64>, 3>;

/// The tolerance of the sum of a symplectic spectrum (measured: 2.6e-12, test below).
const SUM_TOL: f64 = 1e-10;

/// An asymmetric heavy top, `I = diag(1, 1.6, 2.2)`, its centre of mass off every principal axis
/// (`χ ∝ (1, 0.8, 0.6)`, `mgl = 1`), tilted and spinning with kinetic energy of the order of
/// the potential's range.
fn top() -> HeavyTop {
    HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(1.0, 1.6, 2.2)), 1.0, Vector3::new(1.0, 0.8, 0.6)).unwrap()
}

/// A chaotic orbit of [`top`] (MEGNO `⟨Y⟩` grows like `λ t / 2`, test below; energy 1.086,
/// the potential ranging over `[−1, 1]`).
fn chaotic() -> State {
    LieState::new(So3.exp(&Vector3::new(1.2, 0.4, 0.0)), Vector3::new(0.8, -0.6, 1.0))
}

fn sv() -> LieFiniteDifference<So3, impl OneStep<State>> {
    LieFiniteDifference::new(So3, hp::stormer_verlet(So3, Chart::Cayley, top()).unwrap())
}

fn deviation() -> PhaseState<3> {
    PhaseState::new(Vector3::new(0.3, -0.5, 0.2), Vector3::new(0.4, 0.1, -0.6))
}

fn spectrum<M: TangentMap<State, 3>>(m: &M, x: State, h: f64, t: f64) -> [f64; 6] {
    let mut l = LieLyapunovSpectrum::<_, 3, 6>::start(m, x, h).unwrap();
    l.advance(m, (t / h).round() as usize).unwrap();
    l.exponents()
}

/// An explicit RKMK method (exp) on `SO(3) × R^3` read as a method on `T*SO(3)`: not symplectic.
struct RkmkTop<const S: usize>(Rkmk<So3xR3, HeavyTop, 6, S>);
impl<const S: usize> OneStep<State> for RkmkTop<S> {
    fn name(&self) -> String {
        self.0.name()
    }
    fn order(&self) -> u32 {
        self.0.order()
    }
    fn step(&self, s: &mut State, h: f64) -> Result<(), GeomError> {
        let mut y = GroupState::new(0.0, (s.g, s.mu));
        self.0.step(&mut y, h)?;
        (s.g, s.mu) = y.g;
        Ok(())
    }
}

/// HP Störmer–Verlet followed by the damping `μ ← (1 − c h) μ`: `det M = (1 − c h)³` per step
/// on top of the symplectic step, so the full spectrum sums to `3 ln(1 − c h) / h`.
struct Damped<M>(M, f64);
impl<M: OneStep<State>> OneStep<State> for Damped<M> {
    fn name(&self) -> String {
        format!("{} damped", self.0.name())
    }
    fn order(&self) -> u32 {
        1
    }
    fn step(&self, s: &mut State, h: f64) -> Result<(), GeomError> {
        let mut y = *s;
        self.0.step(&mut y, h)?;
        y.mu *= 1.0 - self.1 * h;
        *s = y;
        Ok(())
    }
}

#[test]
fn tangent_map_matches_the_difference_of_two_trajectories() {
    // (log(g_a⁻¹ g_b), μ_b − μ_a)/ε after n steps from x_a = x and x_b = (g exp(εη), μ + εδμ),
    // against M_{n−1} ⋯ M_0 (η, δμ): equal up to O(ε) (the nonlinearity) and the FD error
    let fd = sv();
    let (h, n, eps) = (0.05, 400, 1e-7);
    let (mut a, mut b) = (chaotic(), lie_perturb(&So3, &chaotic(), &deviation(), eps));
    let (mut x, mut v) = (chaotic(), deviation());
    for _ in 0..n {
        fd.step(&mut a, h).unwrap();
        fd.step(&mut b, h).unwrap();
        let (next, m) = fd.tangent_step(&x, h).unwrap();
        v = apply_jacobian(&m, &v);
        x = next;
    }
    assert_eq!(x, a);
    let d = lie_deviation(&So3, &a, &b).unwrap();
    let norm = |w: &PhaseState<3>| (w.q.norm_squared() + w.p.norm_squared()).sqrt();
    let diff = |w: &PhaseState<3>| PhaseState::new(w.q / eps - v.q, w.p / eps - v.p);
    let rel = norm(&diff(&d)) / norm(&v);
    // the right-trivialized difference log(g_b g_a⁻¹) = Ad_{g_a} η is another vector: the test
    // tells the conventions apart
    let right = PhaseState::new(So3.log(&(b.g * a.g.transpose())).unwrap(), d.p);
    let rel_right = norm(&diff(&right)) / norm(&v);
    println!(
        "t = {}: |δ_n| = {:.3e}, relative difference {rel:.2e} (right-trivialized: {rel_right:.2e})",
        n as f64 * h,
        norm(&v)
    );
    assert!(norm(&v) > 2.0 * norm(&deviation()), "the deviation grew: {}", norm(&v));
    assert!(rel < 1e-6, "{rel:.2e}");
    assert!(rel_right > 1e-2, "{rel_right:.2e}");
}

/// `Ω(μ) = [[B(μ), I], [−I, 0]]`, `B(μ)_ij = ⟨μ, [e_i, e_j]⟩`: the canonical form of `T*SO(3)`
/// in the coordinates `(η, δμ)`.
fn omega(mu: &Vector3<f64>) -> DMatrix<f64> {
    let e = |i: usize| Vector3::ith(i, 1.0);
    DMatrix::from_fn(6, 6, |i, j| match (i < 3, j < 3) {
        (true, true) => mu.dot(&So3.bracket(&e(i), &e(j))),
        (true, false) => f64::from(u8::from(j - 3 == i)),
        (false, true) => -f64::from(u8::from(i - 3 == j)),
        (false, false) => 0.0,
    })
}

#[test]
fn tangent_map_is_symplectic_for_the_left_trivialized_form() {
    // Mᵀ Ω(μ₁) M = Ω(μ₀) for HP Störmer–Verlet, to the accuracy of the differences; not for RKMK
    let x = chaotic();
    let heun = Rkmk::<_, _, 6, 2>::new(So3xR3::default(), top(), &tableau::heun(), Chart::Exp).unwrap();
    let defect = |m: &dyn TangentMap<State, 3>| {
        let (next, j) = m.tangent_step(&x, 0.05).unwrap();
        let j = j.to_dmatrix();
        (j.transpose() * omega(&next.mu) * &j - omega(&x.mu)).amax()
    };
    let (sv_defect, rk_defect) = (defect(&sv()), defect(&LieFiniteDifference::new(So3, RkmkTop(heun))));
    println!("|MᵀΩ(μ₁)M − Ω(μ₀)|: HP SV {sv_defect:.1e}, RKMK2 {rk_defect:.1e}");
    assert!(sv_defect < 1e-9, "{sv_defect:.1e}");
    assert!(rk_defect > 1e-5, "{rk_defect:.1e}");
}

#[test]
fn symplectic_spectrum_sums_to_zero_and_comes_in_pairs() {
    let (h, t) = (0.05, 1000.0);
    let l = spectrum(&sv(), chaotic(), h, t);
    let sum: f64 = l.iter().sum();
    println!(
        "HP SV spectrum at t = {t}: {l:.5?}, sum {sum:.1e}, pairs {:.1e} {:.1e} {:.1e}",
        l[0] + l[5],
        l[1] + l[4],
        l[2] + l[3]
    );
    // M by central differences: relative error ~ ε^{2/3} ≈ 4e-11 per entry, so ln|det M_k| is
    // off by ~1e-10 per step, an average of n = 2·10⁴ of them over h = 0.05
    assert!(sum.abs() < SUM_TOL, "sum {sum:.1e}");
    assert!(l[0] > 0.05, "{l:?}");
    // ±λ₁ to 2% (finite time: the pairing is exact only as t → ∞)
    assert!((l[0] + l[5]).abs() < 0.02 * l[0], "{l:?}");
    // the four zero exponents: the flow and the energy, the symmetry about e3 and its momentum
    for v in &l[1..5] {
        assert!(v.abs() < 0.1 * l[0], "{l:?}");
    }
    // negative controls: explicit RKMK (Heun, order 2; RK4, order 4) is not symplectic, and the
    // damped step has det M = (1 − ch)³
    let heun = Rkmk::<_, _, 6, 2>::new(So3xR3::default(), top(), &tableau::heun(), Chart::Exp).unwrap();
    let r2 = spectrum(&LieFiniteDifference::new(So3, RkmkTop(heun)), chaotic(), h, t);
    let rk = LieFiniteDifference::new(So3, RkmkTop(rkmk::rkmk4(So3xR3::default(), top()).unwrap()));
    let r = spectrum(&rk, chaotic(), h, t);
    let (r2sum, rsum): (f64, f64) = (r2.iter().sum(), r.iter().sum());
    let c = 0.01;
    let damped = LieFiniteDifference::new(So3, Damped(hp::stormer_verlet(So3, Chart::Cayley, top()).unwrap(), c));
    let dl = spectrum(&damped, chaotic(), h, 50.0);
    let dsum: f64 = dl.iter().sum();
    let expected = 3.0 * (1.0 - c * h).ln() / h;
    println!(
        "RKMK2 (Heun) sum {r2sum:.2e}; RKMK4 spectrum: {r:.5?}, sum {rsum:.2e}; damped SV: sum {dsum:.8e}, \
         3 ln(1 − ch)/h = {expected:.8e}, difference {:.1e}",
        dsum - expected
    );
    assert!(r2sum.abs() > 1e3 * SUM_TOL, "{r2sum:.1e}");
    assert!(rsum.abs() > 10.0 * SUM_TOL, "{rsum:.1e}");
    assert!((dsum - expected).abs() < SUM_TOL, "{dsum} vs {expected}");
}

#[test]
fn finite_time_maximal_exponent_converges_in_the_step() {
    let t = 40.0;
    let hs = [0.04, 0.02, 0.01];
    let l: Vec<f64> = hs.iter().map(|&h| spectrum(&sv(), chaotic(), h, t)[0]).collect();
    let d = [(l[0] - l[1]).abs(), (l[1] - l[2]).abs()];
    println!("λ₁(t = {t}) for h = {hs:?}: {l:?}; differences {d:?}, ratio {:.2}", d[0] / d[1]);
    assert!(l[2] > 0.05, "{l:?}");
    assert!(d[1] < 0.01 * l[2], "h = 0.02 vs 0.01: {l:?}");
    // second order: the difference shrinks about fourfold when h halves
    assert!(d[1] < 0.5 * d[0], "{d:?}");
    // the long-time exponent at two steps (information: the trajectories separate, the chaotic
    // sea they sample is the same)
    let long: Vec<f64> = [0.05, 0.025].iter().map(|&h| spectrum(&sv(), chaotic(), h, 1000.0)[0]).collect();
    println!("λ₁(t = 1000) for h = 0.05, 0.025: {long:?}");
}

#[test]
fn megno_tends_to_two_on_a_regular_orbit_and_grows_on_a_chaotic_one() {
    // the free rigid body is integrable: |δ| grows linearly, ⟨Y⟩ → 2
    let (body, x) = rigid_body();
    let fd = LieFiniteDifference::new(So3, hp::stormer_verlet(So3, Chart::Cayley, body).unwrap());
    let mut m = LieMegno::start(&fd, x, deviation(), 0.1).unwrap();
    m.advance(&fd, 20_000).unwrap();
    println!("free rigid body: <Y>({}) = {:.4}, Y = {:.4}, λ = {:.2e}", m.time(), m.mean(), m.value(), m.lyapunov());
    assert!((m.mean() - 2.0).abs() < 0.05, "{}", m.mean());
    let mut c = LieMegno::start(&sv(), chaotic(), deviation(), 0.05).unwrap();
    c.advance(&sv(), 20_000).unwrap();
    let ratio = c.mean() / (0.5 * c.lyapunov() * c.time());
    println!(
        "heavy top: <Y>({}) = {:.1}, λ t/2 = {:.1}, ratio {ratio:.3}",
        c.time(),
        c.mean(),
        0.5 * c.lyapunov() * c.time()
    );
    assert!(c.mean() > 20.0 && (ratio - 1.0).abs() < 0.15, "{} {ratio}", c.mean());
}

/// The free rotation `g ← g exp(h μ)`, `μ` fixed, failing once `g₀₀ < 0` (a quarter turn about
/// `e3` from the identity).
struct FailingRotation;
impl OneStep<State> for FailingRotation {
    fn name(&self) -> String {
        "failing rotation".into()
    }
    fn order(&self) -> u32 {
        1
    }
    fn step(&self, s: &mut State, h: f64) -> Result<(), GeomError> {
        let g = s.g * So3.exp(&(s.mu * h));
        if g[(0, 0)] < 0.0 {
            return Err(GeomError::NonFinite { what: "test failure" });
        }
        s.g = g;
        Ok(())
    }
}

#[test]
fn invalid_input_and_failed_steps_leave_everything_untouched() {
    let fd = LieFiniteDifference::new(So3, FailingRotation);
    let x = LieState::new(Matrix3::identity(), Vector3::new(0.0, 0.0, 1.0));
    let d = deviation();
    let start = |x: State, h: f64| LieLyapunovSpectrum::<_, 3, 6>::start(&fd, x, h);
    assert!(matches!(LieLyapunovSpectrum::<_, 3, 7>::start(&fd, x, 0.1), Err(GeomError::InvalidParameter { .. })));
    assert!(matches!(LieLyapunovSpectrum::<_, 3, 0>::start(&fd, x, 0.1), Err(GeomError::InvalidParameter { .. })));
    assert!(matches!(start(x, 0.0), Err(GeomError::InvalidStep { .. })));
    assert!(matches!(start(x, f64::NAN), Err(GeomError::InvalidStep { .. })));
    let nan_mu = LieState::new(Matrix3::identity(), Vector3::new(f64::NAN, 0.0, 0.0));
    let nan_g = LieState::new(Matrix3::from_element(f64::NAN), x.mu);
    let off = LieState::new(Matrix3::identity() * 2.0, x.mu);
    assert!(matches!(start(nan_mu, 0.1), Err(GeomError::NonFinite { .. })));
    assert!(matches!(start(nan_g, 0.1), Err(GeomError::NonFinite { .. })));
    assert!(matches!(start(off, 0.1), Err(GeomError::OffManifold { .. })));
    assert!(matches!(LieMegno::start(&fd, x, d, f64::INFINITY), Err(GeomError::InvalidStep { .. })));
    assert!(matches!(LieMegno::start(&fd, off, d, 0.1), Err(GeomError::OffManifold { .. })));
    let zero = PhaseState::new(Vector3::zeros(), Vector3::zeros());
    assert!(matches!(LieMegno::start(&fd, x, zero, 0.1), Err(GeomError::InvalidParameter { .. })));
    let nan_d = PhaseState::new(Vector3::new(f64::NAN, 0.0, 0.0), Vector3::zeros());
    assert!(matches!(LieMegno::start(&fd, x, nan_d, 0.1), Err(GeomError::NonFinite { .. })));
    assert!(matches!(fd.tangent_step(&x, 0.0), Err(GeomError::InvalidStep { .. })));
    // the free rotation's tangent map: M = [[Ad_{exp(−hμ)}, h·(…)], [0, I]], exponents 0
    let mut l = start(x, 0.1).unwrap();
    l.advance(&fd, 5).unwrap();
    assert!(l.exponents().iter().all(|v| v.abs() < 1.0), "{:?}", l.exponents());
    let before = l;
    let bits = |l: &LieLyapunovSpectrum<Matrix3<f64>, 3, 6>| {
        let mut w: Vec<u64> = l.log_growth().iter().map(|v| v.to_bits()).collect();
        w.extend(l.state().g.iter().chain(l.state().mu.iter()).map(|v| v.to_bits()));
        w.extend(l.frame().iter().flat_map(|f| f.q.iter().chain(f.p.iter())).map(|v| v.to_bits()));
        w.push(l.time().to_bits());
        w
    };
    assert!(l.advance(&fd, 20).is_err());
    assert_eq!(bits(&l), bits(&before));
    let mut m = LieMegno::start(&fd, x, d, 0.1).unwrap();
    m.advance(&fd, 5).unwrap();
    let before = m;
    assert!(m.advance(&fd, 20).is_err());
    assert_eq!(m, before);
}
