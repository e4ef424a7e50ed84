//! Symplecticity and adjoints of the induced integrators (Barbero-Liñán, Marrero, Martín de Diego,
//! *From retraction maps to symplectic-momentum numerical integrators*, 2024, arXiv:2401.14800;
//! docs/math.md §A.5, §B.1, §B.3).
//!
//! * The one-step Jacobian `M = ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k)` (`step_jacobian`, exact by
//!   implicit differentiation) satisfies `Mᵀ Ω M = Ω` for every θ-map, for nonlinear maps on the
//!   general path, and for compositions (product of the stage Jacobians). An explicit RK2 fails.
//! * `step_jacobian` itself is checked against central differences of `advance`, so that the
//!   symplecticity test cannot pass on a wrong matrix.
//! * Adjoint (Remark 1 of Barbero-Liñán et al. 2024): `Φ*_{-h} ∘ Φ_h = id`, with `Φ*` induced by `R_d^*`
//!   (θ ↦ 1 - θ).
//!
//! **Tolerances.** `|Mᵀ Ω M - Ω|_max ≤ 1e-12`: `M` is computed from the root of the step system
//! (Newton to `1e-14`) and one LU solve per column; with entries of `M` of size ≤ ~5 at these
//! steps (`|H_qq| h ≲ 3`) the products carry rounding `≈ 2N |M|² ε ≈ 1e-14`, plus the root error
//! times the third derivatives, `≲ 1e-13`: 1e-12 has a margin ≥ 10 (measured ≤ 1e-15). RK2's
//! defect is `O(h³)` with an O(1) constant, ~1e-3 at `h = 0.1`; it is asserted `> 1e-6`.

use crate::common;

use common::maps::QuadraticShift;
use common::{Anharmonic3, Kepler, kepler_exact, kepler_start, omega_defect, state_distance};
use discretization::composition::{CompositionScheme, adjoint_pair, mclachlan4, yoshida6};
use discretization::{CotangentLiftIntegrator, DiscretizationMap, EuclideanMap, OneStep, PhaseState, Stage, ThetaMap};
use geom_core::Scalar;
use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction};
use nalgebra::{DMatrix, SVector, Vector2, Vector3};
use num_dual::DualSVec64;

const THETAS: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
const SYMPLECTIC_TOL: f64 = 1e-12;

/// A non-separable Hamiltonian (non-zero `H_qp`, state-dependent `H_pp`):
/// `H = |p|²/2 (1 + q_0²/4) + q_0 p_1/5 - cos q_0 + q_1⁴/4`.
#[derive(Debug, Clone, Copy)]
struct NonSeparable;

impl PhaseSpaceFunction<2> for NonSeparable {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        let m = S::from(1.0) + q[0] * q[0] * S::from(0.25);
        p.norm_squared() * m * S::from(0.5) + q[0] * p[1] * S::from(0.2) - q[0].cos() + q[1].powi(4) * S::from(0.25)
    }
}

/// States along the Kepler orbit of eccentricity 0.6 (perihelion, an intermediate point,
/// aphelion side).
fn kepler_states() -> Vec<PhaseState<2>> {
    vec![kepler_start(0.6), kepler_exact(0.6, 1.3), kepler_exact(0.6, 3.0)]
}

fn nonseparable_states() -> Vec<PhaseState<2>> {
    vec![
        PhaseState::new(Vector2::new(0.3, -0.8), Vector2::new(1.1, 0.4)),
        PhaseState::new(Vector2::new(-1.2, 0.5), Vector2::new(-0.3, 0.9)),
    ]
}

/// Central differences of `advance` with `δ = 1e-5`: truncation `δ² |D³Φ|/6 ≈ 1e-10`, Newton
/// noise `1e-14/δ = 1e-9`; compared with tolerance `1e-7 · max(1, |M|)`.
fn fd_jacobian<R: EuclideanMap<N>, H: PhaseSpaceDerivatives<N>, const N: usize>(
    m: &CotangentLiftIntegrator<R, H>,
    s: &PhaseState<N>,
    h: f64,
) -> DMatrix<f64> {
    let d = 1e-5;
    let mut jac = DMatrix::zeros(2 * N, 2 * N);
    for col in 0..2 * N {
        let (mut up, mut dn) = (*s, *s);
        if col < N {
            up.q[col] += d;
            dn.q[col] -= d;
        } else {
            up.p[col - N] += d;
            dn.p[col - N] -= d;
        }
        let (a, b) = (m.advance(&up, h).unwrap(), m.advance(&dn, h).unwrap());
        for i in 0..N {
            jac[(i, col)] = (a.q[i] - b.q[i]) / (2.0 * d);
            jac[(N + i, col)] = (a.p[i] - b.p[i]) / (2.0 * d);
        }
    }
    jac
}

/// `step_jacobian` is symplectic to 1e-12 and agrees with finite differences; returns the
/// largest defect.
fn check_symplectic<R: EuclideanMap<N>, H: PhaseSpaceDerivatives<N>, const N: usize>(
    label: &str,
    m: &CotangentLiftIntegrator<R, H>,
    states: &[PhaseState<N>],
    steps: &[f64],
) -> f64 {
    let mut worst = 0.0f64;
    for s in states {
        for &h in steps {
            let jac = m.step_jacobian(s, h).unwrap_or_else(|e| panic!("{label}: step_jacobian: {e}"));
            let fd = fd_jacobian(m, s, h);
            let scale = jac.amax().max(1.0);
            let d_fd = (&jac - &fd).amax();
            assert!(
                d_fd <= 1e-7 * scale,
                "{label}, h = {h}: step_jacobian differs from finite differences by {d_fd:e}"
            );
            let defect = omega_defect(&jac);
            assert!(defect <= SYMPLECTIC_TOL, "{label}, h = {h}, {s:?}: |MᵀΩM - Ω| = {defect:e}");
            worst = worst.max(defect);
        }
    }
    println!("{label:<52} max |MᵀΩM - Ω| = {worst:.2e}");
    worst
}

#[test]
fn every_theta_map_is_symplectic() {
    for theta in THETAS {
        let map2 = ThetaMap::<2>::new(theta).unwrap();
        check_symplectic(
            &format!("Kepler, theta = {theta}"),
            &CotangentLiftIntegrator::new(map2, Kepler),
            &kepler_states(),
            &[0.1, -0.05],
        );
        check_symplectic(
            &format!("non-separable H, theta = {theta}"),
            &CotangentLiftIntegrator::new(map2, AutoDiff(NonSeparable)),
            &nonseparable_states(),
            &[0.2, -0.1],
        );
        let s3 = PhaseState::new(Vector3::new(1.0, 0.2, -0.3), Vector3::new(0.1, 0.8, 0.5));
        check_symplectic(
            &format!("anharmonic R^3, theta = {theta}"),
            &CotangentLiftIntegrator::new(ThetaMap::<3>::new(theta).unwrap(), AutoDiff(Anharmonic3)),
            &[s3],
            &[0.1],
        );
    }
}

/// Every discretization map induces a symplectic method, nonlinear ones too (general path).
#[test]
fn nonlinear_maps_are_symplectic() {
    for (name, map) in [
        ("radial quadratic shift", QuadraticShift::<2>::radial(0.5)),
        ("fixed quadratic shift", QuadraticShift::<2>::fixed(0.5, Vector2::new(1.0, 0.5))),
        ("mixed quadratic shift", QuadraticShift::<2> { eps: 0.7, a: Vector2::new(-0.3, 0.4), b: 1.3 }),
    ] {
        assert!(map.theta().is_none(), "must take the general path");
        check_symplectic(
            &format!("Kepler, {name}"),
            &CotangentLiftIntegrator::new(map, Kepler),
            &kepler_states(),
            &[0.1, -0.05],
        );
        check_symplectic(
            &format!("non-separable H, {name}"),
            &CotangentLiftIntegrator::new(map, AutoDiff(NonSeparable)),
            &nonseparable_states(),
            &[0.2, -0.1],
        );
    }
}

/// The explicit midpoint rule (RK2) `z + h f(z + h/2 f(z))` for Kepler on the stacked vector
/// `z = (q, p)`, generic over the scalar so that `num_dual::jacobian` gives its exact Jacobian.
fn rk2<S: Scalar>(z: &SVector<S, 4>, h: f64) -> SVector<S, 4> {
    let f = |z: &SVector<S, 4>| {
        let r2 = z[0] * z[0] + z[1] * z[1];
        let ir3 = (r2 * r2.sqrt()).recip();
        SVector::<S, 4>::new(z[2], z[3], -z[0] * ir3, -z[1] * ir3)
    };
    let hs = S::from(h);
    let mid = z + f(z) * (hs * S::from(0.5));
    z + f(&mid) * hs
}

#[test]
fn explicit_rk2_is_not_symplectic() {
    for s in kepler_states() {
        let z = SVector::<f64, 4>::new(s.q[0], s.q[1], s.p[0], s.p[1]);
        let (_, jac) = num_dual::jacobian(|zd: SVector<DualSVec64<4>, 4>| rk2(&zd, 0.1), &z);
        let defect = omega_defect(&DMatrix::from_column_slice(4, 4, jac.as_slice()));
        println!("explicit RK2, h = 0.1, q = {:?}: |MᵀΩM - Ω| = {defect:.2e}", s.q.as_slice());
        assert!(defect > 1e-6, "RK2 should fail the symplecticity test: {defect:e}");
        assert!(defect > 1e6 * SYMPLECTIC_TOL);
    }
}

/// `M` of a composition = product of the stage Jacobians, each at its intermediate state.
fn composition_jacobian<R: EuclideanMap<N>, H: PhaseSpaceDerivatives<N>, const N: usize>(
    base: &CotangentLiftIntegrator<R, H>,
    adjoint: &CotangentLiftIntegrator<R, H>,
    scheme: &CompositionScheme,
    start: &PhaseState<N>,
    h: f64,
) -> DMatrix<f64> {
    let mut s = *start;
    let mut m = DMatrix::<f64>::identity(2 * N, 2 * N);
    for stage in &scheme.stages {
        let (method, g) = match *stage {
            Stage::Base(g) => (base, g),
            Stage::Adjoint(g) => (adjoint, g),
        };
        m = method.step_jacobian(&s, g * h).unwrap() * m;
        method.step(&mut s, g * h).unwrap();
    }
    m
}

/// Compositions of symplectic maps are symplectic (docs/math.md §B.3).
#[test]
fn compositions_are_symplectic() {
    let theta = |t: f64| CotangentLiftIntegrator::new(ThetaMap::<2>::new(t).unwrap(), AutoDiff(NonSeparable));
    let mid = theta(0.5);
    for s in nonseparable_states() {
        for (name, base, adj, scheme) in [
            ("Yoshida 6 of midpoint", &mid, &mid, yoshida6()),
            ("adjoint pair of theta = 0, 1", &theta(0.0), &theta(1.0), adjoint_pair()),
            ("McLachlan 4 of theta = 0, 1", &theta(0.0), &theta(1.0), mclachlan4()),
        ] {
            let m = composition_jacobian(base, adj, &scheme, &s, 0.2);
            let defect = omega_defect(&m);
            println!("non-separable H, {name}, h = 0.2: |MᵀΩM - Ω| = {defect:.2e}");
            assert!(defect <= SYMPLECTIC_TOL, "{name}: {defect:e}");
        }
    }
}

// ------------------------------------------------------------------------------------------
// Adjoints.

/// The adjoint map of a θ-map is `I_Q ∘ R_d ∘ (-1)` (§A.5), and it is the θ-map with `1 - θ`.
#[test]
fn theta_adjoint_is_swap_of_negated_map() {
    let (x, v) = (Vector2::new(0.3, -1.2), Vector2::new(0.7, 0.25));
    for theta in THETAS {
        let map = ThetaMap::<2>::new(theta).unwrap();
        let (a0, a1) = map.adjoint().apply(&x, &v).unwrap();
        let (m0, m1) = map.apply(&x, &(-v)).unwrap();
        assert_eq!((a0, a1), (m1, m0), "theta = {theta}");
        assert_eq!(map.adjoint().value(), 1.0 - theta);
        assert_eq!(map.is_symmetric(), theta == 0.5);
    }
}

/// **Tolerance 1e-13** (brief: ~1e-14): each of the two implicit steps is solved to
/// `1e-14 (1 + |x|)` with `|x| ≲ 2.5` on these states, i.e. ≤ 3.5e-14 each, plus a few ulps of
/// rounding in the updates; the sum stays below 1e-13 (measured: ≤ ~1e-15).
const ADJOINT_TOL: f64 = 1e-13;

#[test]
fn stepping_with_theta_then_back_with_its_adjoint_returns_the_start() {
    for theta in THETAS {
        let fwd = CotangentLiftIntegrator::new(ThetaMap::<2>::new(theta).unwrap(), Kepler);
        let back = CotangentLiftIntegrator::new(ThetaMap::<2>::new(theta).unwrap().adjoint(), Kepler);
        let mut worst = 0.0f64;
        for s0 in kepler_states() {
            for h in [0.1, 0.03, -0.05] {
                let s1 = fwd.advance(&s0, h).unwrap();
                let s2 = back.advance(&s1, -h).unwrap();
                assert!(state_distance(&s0, &s1) > 1e-3, "the step must move the state");
                worst = worst.max(state_distance(&s0, &s2));
            }
        }
        println!("Kepler, theta = {theta} then {} at -h: max |z_2 - z_0| = {worst:.2e}", 1.0 - theta);
        assert!(worst <= ADJOINT_TOL, "theta = {theta}: {worst:e}");
        // and the θ-step with the *same* θ backwards does not return (unless θ = 1/2)
        if theta != 0.5 {
            let s0 = kepler_start(0.6);
            let s2 = fwd.advance(&fwd.advance(&s0, 0.1).unwrap(), -0.1).unwrap();
            assert!(state_distance(&s0, &s2) > 1e-4, "theta = {theta} is not symmetric");
        }
    }
}

/// Self-adjoint maps give symmetric methods: the nonlinear quadratic shifts (general path) and
/// the adjoint-pair composition step back exactly with `-h`.
#[test]
fn symmetric_methods_step_back_with_minus_h() {
    for map in [QuadraticShift::<2>::radial(0.5), QuadraticShift::<2>::fixed(0.5, Vector2::new(1.0, 0.5))] {
        let m = CotangentLiftIntegrator::new(map, Kepler);
        assert!(OneStep::<PhaseState<2>>::is_symmetric(&m));
        let mut worst = 0.0f64;
        for s0 in kepler_states() {
            let s2 = m.advance(&m.advance(&s0, 0.1).unwrap(), -0.1).unwrap();
            worst = worst.max(state_distance(&s0, &s2));
        }
        println!("{}: max |Φ_-h(Φ_h z) - z| = {worst:.2e}", map.name());
        assert!(worst <= ADJOINT_TOL, "{worst:e}");
    }
    let theta = |t: f64| CotangentLiftIntegrator::new(ThetaMap::<2>::new(t).unwrap(), Kepler);
    let sv = discretization::Composition::with_adjoint(theta(0.0), theta(1.0), adjoint_pair());
    for s0 in kepler_states() {
        let mut s = s0;
        sv.step(&mut s, 0.1).unwrap();
        sv.step(&mut s, -0.1).unwrap();
        // four implicit stages: 2 × ADJOINT_TOL
        assert!(state_distance(&s0, &s) <= 2.0 * ADJOINT_TOL, "{:e}", state_distance(&s0, &s));
    }
}
