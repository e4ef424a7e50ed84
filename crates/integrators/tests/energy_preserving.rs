//! The energy-preserving methods (`integrators::energy_preserving`), as tests that can fail:
//! the discrete gradient identity, energy to round-off over 10⁵ steps (a polynomial `H`, and
//! non-polynomial ones to round-off times the Newton tolerance), the measured orders, the
//! symplecticity defect that shows they are not symplectic (against Gauss collocation as the
//! control), the contract suite, and failures that leave the state untouched.
//!
//! Models: Hénon–Heiles (cubic), the pendulum (`−cos q`), Kepler (`−1/|q|`), all written once
//! over the scalar and differentiated by `AutoDiff`.

use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction};
use geom_core::newton::NewtonOptions;
use geom_core::step::testing::{Contract, check_integrator, check_symplectic};
use geom_core::step::{FlatState, OneStep, PhaseState};
use geom_core::{GeomError, Scalar};
use integrators::classical::{Gauss1, Gauss2, StormerVerlet, SymplecticEulerA};
use integrators::energy_preserving::{
    Avf, DIFFERENCE_THRESHOLD, DiscreteGradient, Gonzalez, Invariant, Invariants, ItohAbe, PhaseMatrix, PhaseVector,
    SymmetricProjection,
};
use nalgebra::{SVector, Vector1, Vector2};

// ------------------------------------------------------------------------------------------------
// models and helpers

/// Hénon–Heiles, `H = ½|p|² + ½(x² + y²) + x²y − y³/3`.
#[derive(Debug, Clone, Copy)]
struct HenonHeiles;
impl PhaseSpaceFunction<2> for HenonHeiles {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        let (x, y) = (q[0], q[1]);
        (p.norm_squared() + x * x + y * y) * S::from(0.5) + x * x * y - y * y * y / S::from(3.0)
    }
}

/// The pendulum, `H = p²/2 − cos q`.
#[derive(Debug, Clone, Copy)]
struct Pendulum;
impl PhaseSpaceFunction<1> for Pendulum {
    fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
        p[0] * p[0] * S::from(0.5) - q[0].cos()
    }
}

/// Kepler, `H = |p|²/2 − 1/|q|`.
#[derive(Debug, Clone, Copy)]
struct Kepler;
impl PhaseSpaceFunction<2> for Kepler {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip()
    }
}

/// Kepler's energy and angular momentum `q₁p₂ − q₂p₁`.
#[derive(Debug, Clone, Copy)]
struct KeplerInvariants;
impl Invariants<2, 2> for KeplerInvariants {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> SVector<S, 2> {
        SVector::from([Kepler.eval(q, p), q[0] * p[1] - q[1] * p[0]])
    }
}

/// Hénon–Heiles at energy `≈ 0.125` (a chaotic orbit).
fn hh0() -> PhaseState<2> {
    PhaseState::new(Vector2::new(0.1, -0.3), Vector2::new(0.35, 0.2))
}
/// The pendulum near the separatrix-free large swing, amplitude `2.5`.
fn pendulum0() -> PhaseState<1> {
    PhaseState::new(Vector1::new(2.5), Vector1::new(0.0))
}
/// Kepler, eccentricity 0.5, at pericentre.
fn kepler0() -> PhaseState<2> {
    let e: f64 = 0.5;
    PhaseState::new(Vector2::new(1.0 - e, 0.0), Vector2::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()))
}

fn energy<F: PhaseSpaceFunction<N>, const N: usize>(h: &F, s: &PhaseState<N>) -> f64 {
    h.eval::<f64>(&s.q, &s.p)
}

/// `max_k |H(x_k) − H(x₀)|` over `steps` steps of `h`.
fn energy_drift<F: PhaseSpaceFunction<N>, M: OneStep<PhaseState<N>> + ?Sized, const N: usize>(
    method: &M,
    model: &F,
    x0: &PhaseState<N>,
    h: f64,
    steps: usize,
) -> f64 {
    let e0 = energy(model, x0);
    let mut s = *x0;
    let mut worst: f64 = 0.0;
    for k in 0..steps {
        method.step(&mut s, h).unwrap_or_else(|e| panic!("{}: step {k}: {e}", method.name()));
        worst = worst.max((energy(model, &s) - e0).abs());
    }
    worst
}

fn words<St: FlatState>(s: &St) -> Vec<u64> {
    let mut w = Vec::new();
    s.write_words(&mut w);
    w.iter().map(|x| x.to_bits()).collect()
}

fn dot<const N: usize>(a: &PhaseVector<N>, b: &PhaseVector<N>) -> f64 {
    a[0].dot(&b[0]) + a[1].dot(&b[1])
}

fn increment<const N: usize>(x: &PhaseState<N>, y: &PhaseState<N>) -> PhaseVector<N> {
    [y.q - x.q, y.p - x.p]
}

/// `|∇̄H(x, y)·(y − x) − (H(y) − H(x))|`.
fn identity_defect<D: DiscreteGradient<N> + ?Sized, F: PhaseSpaceFunction<N>, const N: usize>(
    dg: &D,
    model: &F,
    x: &PhaseState<N>,
    y: &PhaseState<N>,
) -> f64 {
    (dot(&dg.discrete_gradient(x, y), &increment(x, y)) - (energy(model, y) - energy(model, x))).abs()
}

/// Some pairs of nearby states of Hénon–Heiles / Kepler (increments of size ~0.3 down to ~1e-3).
fn pairs<const N: usize>(base: &PhaseState<N>) -> Vec<(PhaseState<N>, PhaseState<N>)> {
    let mut out = Vec::new();
    for (k, size) in [0.3, 0.07, 1e-2, 1e-3].iter().enumerate() {
        let shift = |i: usize, j: usize| size * (((3 * i + 5 * j + 7 * k) % 11) as f64 / 5.5 - 1.0);
        let x = PhaseState::new(base.q.map(|v| v + 0.01 * k as f64), base.p);
        let y = PhaseState::new(
            SVector::from_fn(|i, _| x.q[i] + shift(i, 0)),
            SVector::from_fn(|i, _| x.p[i] + shift(i, 1)),
        );
        out.push((x, y));
    }
    out
}

/// `∂∇̄H/∂x'` by central differences of the discrete gradient in `x'` (step `1e-6`).
#[allow(clippy::needless_range_loop)] // `b` picks the half of `x'` and the block column
fn fd_jacobian<D: DiscreteGradient<N>, const N: usize>(dg: &D, x: &PhaseState<N>, y: &PhaseState<N>) -> PhaseMatrix<N> {
    let d = 1e-6;
    let mut m = [[nalgebra::SMatrix::<f64, N, N>::zeros(); 2]; 2];
    for b in 0..2 {
        for j in 0..N {
            let (mut plus, mut minus) = (*y, *y);
            if b == 0 {
                plus.q[j] += d;
                minus.q[j] -= d;
            } else {
                plus.p[j] += d;
                minus.p[j] -= d;
            }
            let (gp, gm) = (dg.discrete_gradient(x, &plus), dg.discrete_gradient(x, &minus));
            for a in 0..2 {
                for i in 0..N {
                    m[a][b][(i, j)] = (gp[a][i] - gm[a][i]) / (2.0 * d);
                }
            }
        }
    }
    m
}

fn max_diff<const N: usize>(a: &PhaseMatrix<N>, b: &PhaseMatrix<N>) -> f64 {
    (0..2).flat_map(|i| (0..2).map(move |j| (i, j))).map(|(i, j)| (a[i][j] - b[i][j]).amax()).fold(0.0, f64::max)
}

fn vector_diff<const N: usize>(a: &PhaseVector<N>, b: &PhaseVector<N>) -> f64 {
    (a[0] - b[0]).amax().max((a[1] - b[1]).amax())
}

// ------------------------------------------------------------------------------------------------
// the discrete gradients

/// `∇̄H(x, y)·(y − x) = H(y) − H(x)` to round-off for every `H` (Gonzalez, Itoh–Abe) and for a
/// polynomial `H` of degree `≤ 2Q` (AVF with `Q` nodes); the AVF with 2 nodes misses it for
/// Kepler (the negative control); `∇̄H(x, x) = ∇H(x)`.
#[test]
fn the_discrete_gradients_satisfy_the_discrete_gradient_identity() {
    fn check<D: DiscreteGradient<N>, F: PhaseSpaceFunction<N>, const N: usize>(
        name: &str,
        dg: &D,
        model: &F,
        x0: &PhaseState<N>,
    ) -> f64 {
        let mut worst: f64 = 0.0;
        for (x, y) in pairs(x0) {
            let defect = identity_defect(dg, model, &x, &y);
            let round_off = 8.0 * f64::EPSILON * (1.0 + energy(model, &x).abs() + energy(model, &y).abs());
            assert!(defect <= round_off, "{name}: defect {defect:e} > {round_off:e}");
            let (gq, gp) = AutoDiff(model).gradient(&x.q, &x.p);
            let consistency = vector_diff(&dg.discrete_gradient(&x, &x), &[gq, gp]);
            assert!(
                consistency <= 1e-14 * (1.0 + gq.amax().max(gp.amax())),
                "{name}: ∇̄H(x, x) − ∇H(x) = {consistency:e}"
            );
            worst = worst.max(defect);
        }
        println!("{name}: identity defect {worst:.2e}");
        worst
    }
    let hh = AutoDiff(HenonHeiles);
    check("Gonzalez, Hénon–Heiles", &Gonzalez::new(hh), &HenonHeiles, &hh0());
    check("Itoh–Abe, Hénon–Heiles", &ItohAbe::new(hh), &HenonHeiles, &hh0());
    check("symmetrized Itoh–Abe, Hénon–Heiles", &ItohAbe::symmetrized(hh), &HenonHeiles, &hh0());
    check("AVF 2, Hénon–Heiles", &Avf::<_, 2>::new(hh).unwrap(), &HenonHeiles, &hh0());
    check("AVF 3, Hénon–Heiles", &Avf::<_, 3>::new(hh).unwrap(), &HenonHeiles, &hh0());
    let k = AutoDiff(Kepler);
    check("Gonzalez, Kepler", &Gonzalez::new(k), &Kepler, &kepler0());
    check("Itoh–Abe, Kepler", &ItohAbe::new(k), &Kepler, &kepler0());
    check("symmetrized Itoh–Abe, Kepler", &ItohAbe::symmetrized(k), &Kepler, &kepler0());
    check("Gonzalez, pendulum", &Gonzalez::new(AutoDiff(Pendulum)), &Pendulum, &pendulum0());
    check("Itoh–Abe, pendulum", &ItohAbe::new(AutoDiff(Pendulum)), &Pendulum, &pendulum0());
    // the AVF sum is not the exact average for a non-polynomial H (nor Q = 1 for a cubic one)
    let (x, y) = pairs(&kepler0())[0];
    let avf2 = identity_defect(&Avf::<_, 2>::new(k).unwrap(), &Kepler, &x, &y);
    let (x, y) = pairs(&hh0())[0];
    let avf1 = identity_defect(&Avf::<_, 1>::new(hh).unwrap(), &HenonHeiles, &x, &y);
    println!("negative controls: AVF 2 on Kepler {avf2:.2e}, AVF 1 on Hénon–Heiles {avf1:.2e}");
    assert!(avf2 > 1e-6 && avf1 > 1e-6, "{avf2:e} {avf1:e}");
}

/// The Newton matrices: exact for AVF and Gonzalez (against central differences of the discrete
/// gradient), and for Itoh–Abe the limit at `x' = x`, off by `O(|x' − x|)`.
#[test]
fn the_newton_matrices_are_the_derivatives_of_the_discrete_gradients() {
    let k = AutoDiff(Kepler);
    for (x, y) in pairs(&kepler0()) {
        let avf = Avf::<_, 3>::new(k).unwrap();
        let e = max_diff(&avf.discrete_gradient_and_jacobian(&x, &y).1, &fd_jacobian(&avf, &x, &y));
        assert!(e < 1e-7, "AVF: {e:e}");
        let g = Gonzalez::new(k);
        let e = max_diff(&g.discrete_gradient_and_jacobian(&x, &y).1, &fd_jacobian(&g, &x, &y));
        assert!(e < 1e-7, "Gonzalez: {e:e}");
        // the values returned with the Jacobian are the discrete gradient's
        assert_eq!(g.discrete_gradient_and_jacobian(&x, &y).0, g.discrete_gradient(&x, &y));
        assert_eq!(avf.discrete_gradient_and_jacobian(&x, &y).0, avf.discrete_gradient(&x, &y));
    }
    // Itoh–Abe: the error of the limiting matrix shrinks like |x' − x|
    for ia in [ItohAbe::new(k), ItohAbe::symmetrized(k)] {
        let x = kepler0();
        let errors: Vec<f64> = [1e-2, 1e-3]
            .iter()
            .map(|size| {
                let y = PhaseState::new(x.q + Vector2::new(0.7, -0.4) * *size, x.p + Vector2::new(-0.3, 0.9) * *size);
                max_diff(&ia.discrete_gradient_and_jacobian(&x, &y).1, &fd_jacobian(&ia, &x, &y))
            })
            .collect();
        let slope = (errors[0] / errors[1]).log10();
        println!("{}: Jacobian errors {errors:?}, slope {slope:.2}", ia.name());
        assert!((slope - 1.0).abs() < 0.3 && errors[1] < 1e-1, "{errors:?}");
    }
}

/// AVF's Newton matrix (one Hessian at `x + ⅔ (x' − x)`): the exact Jacobian for the cubic
/// Hénon–Heiles, within `O(|x' − x|²)` of it for Kepler (and not equal to it), with the
/// discrete gradient itself unchanged; the other methods' is their Jacobian.
#[test]
fn the_avf_newton_matrix_is_the_jacobian_to_second_order() {
    let hh = Avf::<_, 2>::new(AutoDiff(HenonHeiles)).unwrap();
    for (x, y) in pairs(&hh0()) {
        let (g, m) = hh.discrete_gradient_and_newton_matrix(&x, &y);
        let (g1, d) = hh.discrete_gradient_and_jacobian(&x, &y);
        assert!(max_diff(&m, &d) < 1e-14, "{:e}", max_diff(&m, &d));
        assert_eq!(g, hh.discrete_gradient(&x, &y));
        assert!(vector_diff(&g, &g1) < 1e-15);
    }
    let g = Gonzalez::new(AutoDiff(HenonHeiles));
    let (x, y) = pairs(&hh0())[0];
    assert_eq!(g.discrete_gradient_and_newton_matrix(&x, &y), g.discrete_gradient_and_jacobian(&x, &y));
    fn slope<const Q: usize>() {
        let avf = Avf::<_, Q>::new(AutoDiff(Kepler)).unwrap();
        let x = kepler0();
        let errors: Vec<f64> = [1e-1, 1e-2]
            .iter()
            .map(|size| {
                let y = PhaseState::new(x.q + Vector2::new(0.7, -0.4) * *size, x.p + Vector2::new(-0.3, 0.9) * *size);
                let m = avf.discrete_gradient_and_newton_matrix(&x, &y).1;
                max_diff(&m, &avf.discrete_gradient_and_jacobian(&x, &y).1)
            })
            .collect();
        let slope = (errors[0] / errors[1]).log10();
        println!("{}: Newton matrix errors {errors:?}, slope {slope:.2}", avf.name());
        assert!((slope - 2.0).abs() < 0.3 && errors[1] > 1e-12, "{errors:?}");
    }
    slope::<2>();
    slope::<3>();
}

/// Gonzalez, AVF and the symmetrized Itoh–Abe are symmetric in `(x, x')`; Itoh–Abe is not.
#[test]
fn the_symmetric_discrete_gradients_are_symmetric_in_their_arguments() {
    let hh = AutoDiff(HenonHeiles);
    let (x, y) = pairs(&hh0())[0];
    let swap = |dg: &dyn DiscreteGradient<2>| vector_diff(&dg.discrete_gradient(&x, &y), &dg.discrete_gradient(&y, &x));
    assert!(swap(&Gonzalez::new(hh)) < 1e-15);
    assert!(swap(&Avf::<_, 2>::new(hh).unwrap()) < 1e-15);
    assert!(swap(&ItohAbe::symmetrized(hh)) < 1e-15);
    let plain = swap(&ItohAbe::new(hh));
    assert!(plain > 1e-3, "{plain:e}");
}

/// Below the threshold the quotients become derivatives: no division by zero, the identity
/// still holds to round-off, and a coordinate that never moves (Hénon–Heiles on its invariant
/// plane `x = p_x = 0`, every step takes the derivative there) stays exactly where it is while
/// the energy is conserved.
#[test]
fn tiny_increments_take_the_derivative() {
    let hh = AutoDiff(HenonHeiles);
    let x = hh0();
    let tiny = 1e-3 * DIFFERENCE_THRESHOLD;
    let y = PhaseState::new(x.q + Vector2::new(tiny, -tiny), x.p + Vector2::new(0.0, tiny));
    let mid = PhaseState::new((x.q + y.q) * 0.5, (x.p + y.p) * 0.5);
    let (gq, gp) = hh.gradient(&mid.q, &mid.p);
    for dg in [&Gonzalez::new(hh) as &dyn DiscreteGradient<2>, &ItohAbe::new(hh), &ItohAbe::symmetrized(hh)] {
        let g = dg.discrete_gradient(&x, &y);
        // Gonzalez: ∇H(m) exactly; Itoh–Abe: ∂_k H at the middle of each coordinate's segment,
        // O(|Δ| |∇²H|) from m
        assert!(vector_diff(&g, &[gq, gp]) < 10.0 * tiny, "{g:?}");
        assert!(dg.discrete_gradient(&x, &x).iter().all(|v| v.iter().all(|c| c.is_finite())));
        let round_off = 8.0 * f64::EPSILON * (1.0 + energy(&HenonHeiles, &x).abs());
        assert!(identity_defect(dg, &HenonHeiles, &x, &y) < round_off);
    }
    // the invariant plane x = p_x = 0
    let x0 = PhaseState::new(Vector2::new(0.0, 0.4), Vector2::new(0.0, 0.1));
    let methods: [&dyn OneStep<PhaseState<2>>; 3] = [&Gonzalez::new(hh), &ItohAbe::new(hh), &ItohAbe::symmetrized(hh)];
    for m in methods {
        let mut s = x0;
        for _ in 0..10_000 {
            m.step(&mut s, 0.1).unwrap();
        }
        assert_eq!((s.q[0], s.p[0]), (0.0, 0.0), "{}", m.name());
        let drift = energy_drift(m, &HenonHeiles, &x0, 0.1, 10_000);
        assert!(drift < 1e-14, "{}: {drift:e}", m.name());
        assert!((s.q[1] - x0.q[1]).abs() > 1e-3); // it moved along y
    }
    // an equilibrium is a fixed point (Δ = 0 at every step)
    let origin = PhaseState::new(Vector2::zeros(), Vector2::zeros());
    let mut s = origin;
    Gonzalez::new(hh).step(&mut s, 0.1).unwrap();
    assert_eq!(words(&s), words(&origin));
}

/// `Avf<H, 1>` is the implicit midpoint rule (Gauss 1).
#[test]
fn avf_with_one_node_is_the_implicit_midpoint_rule() {
    let (avf, gauss) = (Avf::<_, 1>::new(AutoDiff(Kepler)).unwrap(), Gauss1::new(AutoDiff(Kepler)).unwrap());
    let (mut a, mut b) = (kepler0(), kepler0());
    for _ in 0..200 {
        avf.step(&mut a, 0.05).unwrap();
        gauss.step(&mut b, 0.05).unwrap();
    }
    let d = (a.q - b.q).amax().max((a.p - b.p).amax());
    assert!(d < 1e-12, "{d:e}");
}

// ------------------------------------------------------------------------------------------------
// energy over long runs

/// Hénon–Heiles (cubic): 10⁵ steps of `h = 0.1` keep `H` to round-off with every discrete
/// gradient, AVF with `Q ≥ 2` nodes, and the symmetric projection of Gauss 2 onto `H`; the
/// implicit midpoint rule (AVF with one node) and Gauss 2 do not (the controls).
#[test]
fn energy_is_conserved_to_round_off_for_a_polynomial_hamiltonian() {
    let hh = AutoDiff(HenonHeiles);
    let x0 = hh0();
    let steps = 100_000;
    let projected = SymmetricProjection::new(Gauss2::new(hh).unwrap(), Invariant(HenonHeiles)).unwrap();
    let methods: [&dyn OneStep<PhaseState<2>>; 6] = [
        &Avf::<_, 2>::new(hh).unwrap(),
        &Avf::<_, 3>::new(hh).unwrap(),
        &Gonzalez::new(hh),
        &ItohAbe::new(hh),
        &ItohAbe::symmetrized(hh),
        &projected,
    ];
    // round-off: |H| ≈ 0.14, a random walk of 10⁵ steps of ~1 ulp is ≈ 1e-14
    for m in methods {
        let drift = energy_drift(m, &HenonHeiles, &x0, 0.1, steps);
        println!("Hénon–Heiles, {}: max |H − H₀| = {drift:.2e}", m.name());
        assert!(drift < 5e-14, "{}: {drift:e}", m.name());
    }
    for m in [&Avf::<_, 1>::new(hh).unwrap() as &dyn OneStep<PhaseState<2>>, &Gauss2::new(hh).unwrap()] {
        let drift = energy_drift(m, &HenonHeiles, &x0, 0.1, steps);
        println!("control, {}: max |H − H₀| = {drift:.2e}", m.name());
        assert!(drift > 1e-9, "{}: {drift:e}", m.name());
    }
}

/// The pendulum (`−cos q`, `h = 0.1`) and Kepler (`e = 0.5`, `h = 0.02`) over 10⁵ steps: the
/// discrete gradients keep `H` to round-off times the Newton tolerance (`1e-14 |∇H|` per step),
/// AVF with 5 nodes to its quadrature error (negligible at these steps) but not with 2
/// (pendulum), and the projection of Gauss 2 onto `H` (and onto `H` and the angular momentum)
/// to the same level; Gauss 2 alone is the control.
#[test]
fn energy_is_conserved_to_the_newton_tolerance_for_non_polynomial_hamiltonians() {
    let steps = 100_000;
    let bound = 1e-12;
    let p = AutoDiff(Pendulum);
    let projected = SymmetricProjection::new(Gauss2::new(p).unwrap(), Invariant(Pendulum)).unwrap();
    let pendulum: [&dyn OneStep<PhaseState<1>>; 5] =
        [&Avf::<_, 5>::new(p).unwrap(), &Gonzalez::new(p), &ItohAbe::new(p), &ItohAbe::symmetrized(p), &projected];
    for m in pendulum {
        let drift = energy_drift(m, &Pendulum, &pendulum0(), 0.1, steps);
        println!("pendulum, {}: max |H − H₀| = {drift:.2e}", m.name());
        assert!(drift < bound, "{}: {drift:e}", m.name());
    }
    for m in [&Avf::<_, 2>::new(p).unwrap() as &dyn OneStep<PhaseState<1>>, &Gauss2::new(p).unwrap()] {
        let drift = energy_drift(m, &Pendulum, &pendulum0(), 0.1, steps);
        println!("pendulum control, {}: max |H − H₀| = {drift:.2e}", m.name());
        assert!(drift > 1e-9, "{}: {drift:e}", m.name());
    }

    let k = AutoDiff(Kepler);
    let on_energy = SymmetricProjection::new(Gauss2::new(k).unwrap(), Invariant(Kepler)).unwrap();
    let on_both = SymmetricProjection::new(Gauss2::new(k).unwrap(), KeplerInvariants).unwrap();
    let kepler: [&dyn OneStep<PhaseState<2>>; 6] = [
        &Avf::<_, 5>::new(k).unwrap(),
        &Gonzalez::new(k),
        &ItohAbe::new(k),
        &ItohAbe::symmetrized(k),
        &on_energy,
        &on_both,
    ];
    for m in kepler {
        let drift = energy_drift(m, &Kepler, &kepler0(), 0.02, steps);
        println!("Kepler, {}: max |H − H₀| = {drift:.2e}", m.name());
        assert!(drift < bound, "{}: {drift:e}", m.name());
    }
    let drift = energy_drift(&Gauss2::new(k).unwrap(), &Kepler, &kepler0(), 0.02, steps);
    assert!(drift > 1e-9, "Gauss 2 on Kepler: {drift:e}");
    // the projection onto both invariants also keeps the angular momentum
    let mut s = kepler0();
    let l0 = KeplerInvariants.eval(&s.q, &s.p)[1];
    on_both.step_n(&mut s, 0.02, 10_000).unwrap();
    let dl = (KeplerInvariants.eval(&s.q, &s.p)[1] - l0).abs();
    assert!(dl < 1e-13, "angular momentum {dl:e}");
}

// ------------------------------------------------------------------------------------------------
// orders, symmetry, symplecticity, the contract

/// The contract suite (a failed step leaves the state untouched, `step_n`, the measured order
/// within ±0.3 of the declared one, reversibility of the symmetric ones) on Hénon–Heiles:
/// order 2 for AVF, Gonzalez and the symmetrized Itoh–Abe, 1 for Itoh–Abe, 4 for the symmetric
/// projection of Gauss 2 and 2 for that of the implicit midpoint rule.
#[test]
fn measured_orders_and_the_contract() {
    let hh = AutoDiff(HenonHeiles);
    let x0 = hh0();
    let c = Contract::default();
    let methods: [(&dyn OneStep<PhaseState<2>>, u32); 8] = [
        (&Avf::<_, 1>::new(hh).unwrap(), 2),
        (&Avf::<_, 2>::new(hh).unwrap(), 2),
        (&Avf::<_, 4>::new(hh).unwrap(), 2),
        (&Gonzalez::new(hh), 2),
        (&ItohAbe::new(hh), 1),
        (&ItohAbe::symmetrized(hh), 2),
        (&SymmetricProjection::new(Gauss2::new(hh).unwrap(), Invariant(HenonHeiles)).unwrap(), 4),
        (&SymmetricProjection::new(Gauss1::new(hh).unwrap(), Invariant(HenonHeiles)).unwrap(), 2),
    ];
    for (m, order) in methods {
        assert_eq!(m.order(), order, "{}", m.name());
        let r = check_integrator(m, &x0, &c).unwrap_or_else(|e| panic!("{e}"));
        println!("{}: measured order {:.3}, reversibility {:?}", r.name, r.measured_order, r.reversibility_defect);
        assert!((r.measured_order - f64::from(order)).abs() < 0.3);
        assert_eq!(r.reversibility_defect.is_some(), order != 1, "{}", m.name());
    }
    // Kepler, projected onto energy and angular momentum: still order 4
    let k = AutoDiff(Kepler);
    let on_both = SymmetricProjection::new(Gauss2::new(k).unwrap(), KeplerInvariants).unwrap();
    let r = check_integrator(&on_both, &kepler0(), &c).unwrap_or_else(|e| panic!("{e}"));
    println!("{}: measured order {:.3}", r.name, r.measured_order);
}

/// Not symplectic: `|MᵀJM − J|` of the step Jacobian (central differences) on Hénon–Heiles is
/// clearly nonzero for every method, while Gauss collocation and the implicit midpoint rule
/// (AVF with one node) are symplectic to the accuracy of the differences (the controls).
#[test]
fn the_energy_preserving_methods_are_not_symplectic() {
    let hh = AutoDiff(HenonHeiles);
    let x0 = hh0();
    let defect = |m: &dyn OneStep<PhaseState<2>>, h: f64| {
        let d = check_symplectic(m, &x0, h).unwrap();
        println!("{} (h = {h}): |MᵀJM − J| = {d:.2e}", m.name());
        d
    };
    for m in [
        &Avf::<_, 2>::new(hh).unwrap() as &dyn OneStep<PhaseState<2>>,
        &Avf::<_, 3>::new(hh).unwrap(),
        &Gonzalez::new(hh),
        &ItohAbe::new(hh),
        &ItohAbe::symmetrized(hh),
    ] {
        assert!(defect(m, 0.1) > 1e-6, "{}", m.name());
    }
    // the projection perturbs a symplectic map by O(h^5): visible at a larger step
    let projected = SymmetricProjection::new(Gauss2::new(hh).unwrap(), Invariant(HenonHeiles)).unwrap();
    assert!(defect(&projected, 0.5) > 1e-6);
    for h in [0.1, 0.5] {
        assert!(defect(&Gauss2::new(hh).unwrap(), h) < 1e-10);
        assert!(defect(&Avf::<_, 1>::new(hh).unwrap(), h) < 1e-10);
    }
}

// ------------------------------------------------------------------------------------------------
// errors

/// Bad arguments are typed errors; failed steps (Newton, a non-finite state, a singular
/// projection) leave the state's bits unchanged.
#[test]
fn failures_are_typed_errors_and_leave_the_state_untouched() {
    let hh = AutoDiff(HenonHeiles);
    assert!(matches!(Avf::<_, 0>::new(hh), Err(GeomError::InvalidParameter { .. })));
    assert!(matches!(Avf::<_, 6>::new(hh), Err(GeomError::InvalidParameter { .. })));
    let not_symmetric = SymmetricProjection::new(SymplecticEulerA::new(hh), Invariant(HenonHeiles));
    assert!(matches!(not_symmetric, Err(GeomError::InvalidParameter { what: "method", .. })));
    assert!(SymmetricProjection::new(StormerVerlet::new(hh), Invariant(HenonHeiles)).is_ok());

    let one = NewtonOptions::new(1e-14, 1e-14, 1).unwrap();
    let projected = SymmetricProjection::new(Gauss2::new(hh).unwrap(), Invariant(HenonHeiles)).unwrap();
    // its solve for λ converges in one iteration: fail the projected method's instead
    let failing_inner =
        SymmetricProjection::new(Gauss2::new(hh).unwrap().with_newton(one), Invariant(HenonHeiles)).unwrap();
    let methods: [&dyn OneStep<PhaseState<2>>; 5] = [
        &Avf::<_, 2>::new(hh).unwrap().with_newton(one),
        &Gonzalez::new(hh).with_newton(one),
        &ItohAbe::new(hh).with_newton(one),
        &ItohAbe::symmetrized(hh).with_newton(one),
        &failing_inner,
    ];
    let x0 = hh0();
    for m in methods {
        let mut s = x0;
        let e = m.step(&mut s, 0.5).unwrap_err();
        assert!(matches!(e, GeomError::NotConverged { .. }), "{}: {e}", m.name());
        assert_eq!(words(&s), words(&x0), "{}", m.name());
    }
    let bad = PhaseState::new(Vector2::new(f64::NAN, 0.1), Vector2::new(0.0, 0.2));
    let methods: [&dyn OneStep<PhaseState<2>>; 5] =
        [&Avf::<_, 2>::new(hh).unwrap(), &Gonzalez::new(hh), &ItohAbe::new(hh), &ItohAbe::symmetrized(hh), &projected];
    for m in methods {
        let mut s = bad;
        assert!(matches!(m.step(&mut s, 0.1), Err(GeomError::NonFinite { .. })), "{}", m.name());
        assert_eq!(words(&s), words(&bad), "{}", m.name());
    }
    // dependent invariants (H and 2H): G Gᵀ is singular
    let dependent = SymmetricProjection::new(Gauss2::new(hh).unwrap(), Dependent).unwrap();
    let mut s = x0;
    let e = dependent.step(&mut s, 0.1).unwrap_err();
    assert!(matches!(e, GeomError::SingularMatrix { .. }), "{e}");
    assert_eq!(words(&s), words(&x0));
    // at an equilibrium nothing moves and nothing needs projecting (λ = 0, no solve)
    let origin = PhaseState::new(Vector2::zeros(), Vector2::zeros());
    let mut s = origin;
    projected.step(&mut s, 0.1).unwrap();
    assert_eq!(words(&s), words(&origin));
}

/// `(H, 2H)`: two dependent invariants of Hénon–Heiles.
struct Dependent;
impl Invariants<2, 2> for Dependent {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> SVector<S, 2> {
        let h = HenonHeiles.eval(q, p);
        SVector::from([h, h * S::from(2.0)])
    }
}
