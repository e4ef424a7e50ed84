//! The run-time-size splitting methods (`integrators::separable_dyn::DynSplitting`) on a pair
//! function written here, outside the crates: softened gravity
//! `φ_ij(r) = −m_i m_j / √(r² + ε²)` of 20 bodies in space, through
//! `geom_core::pairwise::DynNBody`. Measured: the energy error (bounded, small, of order 2 for
//! Störmer–Verlet and far smaller for a composition of order 6), the linear momentum `Σ p_i` and
//! the angular momentum `Σ q_i × p_i` (conserved by every splitting of a central pair force, to
//! round-off), `step_n` against `n` calls of `step` bit for bit, and failed steps (a `NaN` state,
//! `h = 0`, a state of the wrong size) that leave the state untouched. A separable Hamiltonian
//! written by the user (`DynSeparable`) runs too, bit for bit a hand-written kick–drift–kick.

use discretization::composition::yoshida6;
use geom_core::pairwise::{DynNBody, PairFunction};
use geom_core::step::{DynPhaseState, OneStep};
use geom_core::{GeomError, Scalar};
use integrators::separable_dyn::{DynSeparable, DynSplitting};

const B: usize = 20;
const EPS2: f64 = 0.01;

/// Softened gravity `φ_ij(r) = −m_i m_j / √(r² + ε²)`, `G = 1`.
#[derive(Clone)]
struct SoftGravity {
    masses: Vec<f64>,
}

impl PairFunction for SoftGravity {
    fn eval<S: Scalar>(&self, i: usize, j: usize, r: S) -> S {
        (r * r + S::from(EPS2)).sqrt().recip() * -(self.masses[i] * self.masses[j])
    }
    fn bodies(&self) -> Option<usize> {
        Some(self.masses.len())
    }
}

/// A small deterministic generator (xorshift64*), uniform in `[-1, 1)`.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let u = (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64;
        2.0 * u - 1.0
    }
}

/// 20 bodies of masses 0.025..0.075 (total ≈ 1) in the unit ball, with random velocities of
/// size 0.3 minus the centre-of-mass velocity (a bound cluster: crossing time about 1), and the
/// Hamiltonian.
fn cluster() -> (DynNBody<SoftGravity, 3>, DynPhaseState) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let masses: Vec<f64> = (0..B).map(|_| 0.05 * (1.0 + 0.5 * rng.next())).collect();
    let mut q = Vec::new();
    while q.len() < 3 * B {
        let x = [rng.next(), rng.next(), rng.next()];
        if x.iter().map(|v| v * v).sum::<f64>() < 1.0 {
            q.extend(x);
        }
    }
    let mut p: Vec<f64> = (0..3 * B).map(|k| 0.3 * masses[k / 3] * rng.next()).collect();
    let total: f64 = masses.iter().sum();
    for k in 0..3 {
        let pk: f64 = (0..B).map(|i| p[3 * i + k]).sum();
        for i in 0..B {
            p[3 * i + k] -= masses[i] / total * pk;
        }
    }
    let h = DynNBody::new(&masses, SoftGravity { masses: masses.clone() }).unwrap();
    (h, DynPhaseState::from_slices(&q, &p).unwrap())
}

fn energy(h: &DynNBody<SoftGravity, 3>, s: &DynPhaseState) -> f64 {
    h.energy(s.q.as_slice(), s.p.as_slice())
}

/// `(Σ p_i, Σ q_i × p_i)`.
fn momenta(s: &DynPhaseState) -> ([f64; 3], [f64; 3]) {
    let (mut p, mut l) = ([0.0; 3], [0.0; 3]);
    for (qi, pi) in s.q.as_slice().chunks_exact(3).zip(s.p.as_slice().chunks_exact(3)) {
        for k in 0..3 {
            p[k] += pi[k];
        }
        l[0] += qi[1] * pi[2] - qi[2] * pi[1];
        l[1] += qi[2] * pi[0] - qi[0] * pi[2];
        l[2] += qi[0] * pi[1] - qi[1] * pi[0];
    }
    (p, l)
}

fn bits(s: &DynPhaseState) -> Vec<u64> {
    s.q.iter().chain(s.p.iter()).map(|x| x.to_bits()).collect()
}

/// The largest relative energy error over `steps` steps of `h`, and the largest drift of the
/// momenta (absolute, against their scale `Σ|p_i|`, `Σ|q_i||p_i|`).
fn run(method: &DynSplitting<DynNBody<SoftGravity, 3>>, h: f64, steps: usize) -> (f64, f64, f64) {
    let (ham, mut s) = cluster();
    let e0 = energy(&ham, &s);
    let (p0, l0) = momenta(&s);
    let p_scale: f64 = s.p.iter().map(|x| x.abs()).sum();
    let l_scale: f64 = s.q.iter().zip(s.p.iter()).map(|(a, b)| (a * b).abs()).sum();
    let (mut de, mut dp, mut dl) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..steps {
        method.step(&mut s, h).unwrap();
        de = de.max(((energy(&ham, &s) - e0) / e0).abs());
        let (p, l) = momenta(&s);
        for k in 0..3 {
            dp = dp.max((p[k] - p0[k]).abs() / p_scale);
            dl = dl.max((l[k] - l0[k]).abs() / l_scale);
        }
    }
    (de, dp, dl)
}

/// Energy error bounded and of order 2 for Störmer–Verlet, small for the composition of order
/// 6; the momenta conserved to round-off by every method.
#[test]
fn energy_and_momenta_of_a_softened_cluster() {
    let (h, s) = cluster();
    assert_eq!((h.bodies(), h.dim(), s.dim()), (B, 60, 60));
    let sv = DynSplitting::stormer_verlet(h);
    // 4000 steps of 1e-3: several crossing times of the inner cluster
    let (e1, dp, dl) = run(&sv, 1e-3, 4000);
    assert!(e1 < 1e-4, "Störmer–Verlet: energy error {e1:e}");
    assert!(dp < 1e-13 && dl < 1e-13, "Störmer–Verlet: momenta {dp:e} {dl:e}");
    // bounded (four times longer, no larger) and of order 2 (half the step, a quarter)
    let (e4, _, _) = run(&sv, 1e-3, 16_000);
    assert!(e4 < 2.0 * e1, "Störmer–Verlet over 16000 steps: energy error {e4:e} (4000 steps: {e1:e})");
    let (e2, _, _) = run(&sv, 5e-4, 8000);
    assert!((3.0..5.0).contains(&(e1 / e2)), "order 2: {e1:e} / {e2:e} = {}", e1 / e2);
    let y6 = DynSplitting::composition(cluster().0, yoshida6()).unwrap();
    assert_eq!((y6.order(), y6.is_symmetric()), (6, true));
    let (e6, dp, dl) = run(&y6, 1e-3, 4000);
    assert!(e6 < 1e-3 * e1, "yoshida6: energy error {e6:e} (Störmer–Verlet {e1:e})");
    assert!(dp < 1e-13 && dl < 1e-13, "yoshida6: momenta {dp:e} {dl:e}");
    for method in [DynSplitting::symplectic_euler_a(cluster().0), DynSplitting::symplectic_euler_b(cluster().0)] {
        let (e, dp, dl) = run(&method, 1e-3, 2000);
        assert!(e < 1e-2, "{}: energy error {e:e}", method.name());
        assert!(dp < 1e-13 && dl < 1e-13, "{}: momenta {dp:e} {dl:e}", method.name());
    }
}

/// `step_n(n)` is `n` calls of `step`, bit for bit, for every method (Störmer–Verlet and its
/// compositions reuse the force at the end of a step for the next); `n = 0` changes nothing.
#[test]
fn step_n_is_n_steps_bit_for_bit() {
    let methods = [
        DynSplitting::stormer_verlet(cluster().0),
        DynSplitting::symplectic_euler_a(cluster().0),
        DynSplitting::symplectic_euler_b(cluster().0),
        DynSplitting::composition(cluster().0, yoshida6()).unwrap(),
    ];
    for method in &methods {
        let (_, s0) = cluster();
        let (mut a, mut b) = (s0.clone(), s0.clone());
        for _ in 0..37 {
            method.step(&mut a, 2e-3).unwrap();
        }
        method.step_n(&mut b, 2e-3, 37).unwrap();
        assert_eq!(bits(&a), bits(&b), "{}", method.name());
        assert_ne!(bits(&a), bits(&s0));
        // a clone (with scratch buffers of its own) steps alike
        let mut c = s0.clone();
        method.clone().step_n(&mut c, 2e-3, 37).unwrap();
        assert_eq!(bits(&a), bits(&c));
        method.step_n(&mut c, 2e-3, 0).unwrap();
        assert_eq!(bits(&a), bits(&c));
    }
}

/// A failed step or run of steps leaves the state exactly as it was.
#[test]
fn failed_steps_leave_the_state_untouched() {
    let (h, s0) = cluster();
    let method = DynSplitting::stormer_verlet(h);
    let mut s = s0.clone();
    for bad in [0.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(method.step(&mut s, bad), Err(GeomError::InvalidStep { .. })));
        assert!(matches!(method.step_n(&mut s, bad, 3), Err(GeomError::InvalidStep { .. })));
        assert_eq!(bits(&s), bits(&s0));
    }
    // a NaN coordinate: the force and then the whole state become NaN
    s.q[7] = f64::NAN;
    let before = bits(&s);
    assert_eq!(method.step(&mut s, 1e-3), Err(GeomError::NonFinite { what: "state after step" }));
    assert_eq!(bits(&s), before);
    assert!(method.step_n(&mut s, 1e-3, 5).is_err());
    assert_eq!(bits(&s), before);
    // two bodies at one place with an unsoftened pair function: 0/0 in the force
    struct Newton;
    impl PairFunction for Newton {
        fn eval<S: Scalar>(&self, _i: usize, _j: usize, r: S) -> S {
            -r.recip()
        }
    }
    let bare = DynSplitting::symplectic_euler_b(DynNBody::<_, 3>::new(&[1.0; 3], Newton).unwrap());
    let mut s = DynPhaseState::from_slices(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0], &[0.0; 9]).unwrap();
    let before = bits(&s);
    assert!(matches!(bare.step(&mut s, 0.1), Err(GeomError::NonFinite { .. })));
    assert_eq!(bits(&s), before);
    // a state of another size
    let mut small = DynPhaseState::from_slices(&[0.0; 6], &[0.0; 6]).unwrap();
    assert!(matches!(method.step(&mut small, 1e-3), Err(GeomError::DimensionMismatch { .. })));
    assert_eq!(small, DynPhaseState::from_slices(&[0.0; 6], &[0.0; 6]).unwrap());
}

/// A separable Hamiltonian written by the user: uncoupled oscillators
/// `H = Σ_k p_k²/2 + ω_k² q_k²/2` at run-time size. Störmer–Verlet is the hand-written
/// kick–drift–kick, bit for bit.
#[test]
fn a_user_separable_hamiltonian() {
    struct Oscillators(Vec<f64>);
    impl DynSeparable for Oscillators {
        fn dim(&self) -> usize {
            self.0.len()
        }
        fn kinetic_gradient(&self, p: &[f64], out: &mut [f64]) {
            out.copy_from_slice(p);
        }
        fn potential_gradient(&self, q: &[f64], out: &mut [f64]) {
            for ((o, x), w) in out.iter_mut().zip(q).zip(&self.0) {
                *o = w * w * x;
            }
        }
    }
    let omega = vec![1.0, 2.0, 0.5, 3.0, 1.5];
    let method = DynSplitting::stormer_verlet(Oscillators(omega.clone()));
    let (mut q, mut p) = (vec![1.0, 0.0, -0.5, 0.2, 0.3], vec![0.0, 1.0, 0.1, 0.0, -0.4]);
    let mut s = DynPhaseState::from_slices(&q, &p).unwrap();
    let h = 0.01;
    method.step_n(&mut s, h, 100).unwrap();
    for _ in 0..100 {
        for k in 0..5 {
            p[k] -= omega[k] * omega[k] * q[k] * (0.5 * h);
            q[k] += p[k] * h;
            p[k] -= omega[k] * omega[k] * q[k] * (0.5 * h);
        }
    }
    assert_eq!(bits(&s), bits(&DynPhaseState::from_slices(&q, &p).unwrap()));
    assert_eq!(method.name(), "Störmer–Verlet (explicit, separable H, run-time size)");
}
