//! Theorem 2 and Example 4 of Barbero-Liñán, Marrero, Martín de Diego, *From retraction maps to
//! symplectic-momentum numerical integrators*, 2024, arXiv:2401.14800 (docs/math.md §A.6, §B.1):
//! if `R_d` is symmetry-preserving and `J_ξ` is a first integral of `X_H`, the induced integrator
//! conserves `J_ξ` exactly (to round-off); and a map that is not symmetry-preserving does not.
//!
//! **Tolerance of the conservation tests: `max_k |J_k - J_0|_∞ ≤ 1e-12 |J_0|_∞` over 10^4
//! steps.** For the exact solution of the step equations the θ-maps conserve `J` exactly (a
//! bilinear identity, docs/math.md §B.1). What remains is (i) rounding in the update
//! `q + h H_p`, `p - h H_q` and in evaluating `J`: a few ulps of `|J|` per step,
//! `≈ c ε |J|` with `c ≲ 10`; accumulated as a random walk over `n = 10^4` steps this is
//! `√n c ε ≈ 1e-13 |J|`; (ii) the Newton tolerance (`1e-14 (1 + |x|)` on `(q̄, p̄)`, i.e.
//! `≲ 3e-14` per step, entering `J` multiplied by `h |x|`, `h |p| ≲ 0.03`): `≲ 1e-15` per
//! step, `≲ 1e-13` even if it added up coherently. 1e-12 leaves a margin of ~10 over that
//! estimate (the measured drifts of the θ-maps, printed, are 1e-15 to 1e-14; the general
//! 4-block path for a nonlinear map gives ~7e-14, see below), and is 10^7 below the drift of
//! the non-equivariant negative control (~3e-3, asserted `> 1e-8`).
//!
//! The general path once drifted *linearly* (2.5e-13 over 10^4 steps) because its new state
//! was read off the Newton unknowns `(q_{k+1}, p_{k+1})`, carrying the accepted residual with a
//! consistent sign; it now re-derives `q_{k+1} = R^2(q, v)` and `p_{k+1}` from the explicit
//! equations at the converged `(q, p)` (measured 7e-14 over 10^4 steps).

use crate::common;

use common::maps::QuadraticShift;
use common::{Anharmonic3, Kepler, KeplerModel, kepler_start, planar_angular_momentum};
use discretization::{CotangentLiftIntegrator, DiscretizationMap, EuclideanMap, OneStep, PhaseState, ThetaMap};
use geom_core::GeomError;
use geom_core::Scalar;
use geom_core::action::{GroupAction, LinearAction, RotationAction};
use geom_core::function::{AutoDiff, PhaseSpaceFunction, check_against_ad};
use nalgebra::{SVector, Vector2, Vector3};

const THETAS: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
const STEPS: usize = 10_000;
const CONSERVATION_TOL: f64 = 1e-12;

/// `max_k |J(z_k) - J(z_0)|_∞ / |J(z_0)|_∞` over `steps` steps of size `h`.
fn relative_drift<const N: usize, const D: usize>(
    method: &dyn OneStep<PhaseState<N>>,
    start: PhaseState<N>,
    h: f64,
    steps: usize,
    j: impl Fn(&PhaseState<N>) -> SVector<f64, D>,
) -> Result<f64, GeomError> {
    let j0 = j(&start);
    let mut s = start;
    let mut worst = 0.0f64;
    for _ in 0..steps {
        method.step(&mut s, h)?;
        worst = worst.max((j(&s) - j0).amax());
    }
    Ok(worst / j0.amax())
}

#[test]
fn hand_written_kepler_matches_ad() {
    for (q, p) in [
        (Vector2::new(0.4, 0.0), Vector2::new(0.0, 2.0)),
        (Vector2::new(-0.7, 1.3), Vector2::new(0.3, -0.2)),
        (Vector2::new(2.0, -0.1), Vector2::new(-0.5, 0.4)),
    ] {
        // the largest entries are |H_qq| ~ 2/r³ ~ 30 at r = 0.4: 1e-13 is a few hundred ulps
        let d = check_against_ad(&Kepler, &KeplerModel, &q, &p);
        assert!(d < 1e-13, "hand-written Kepler derivatives differ from AD by {d:e}");
    }
}

/// Theorem 2 in the plane: Kepler (e = 0.6, about 16 orbits), every θ-map conserves
/// `q_1 p_2 - q_2 p_1`.
#[test]
fn theorem2_kepler_angular_momentum_is_conserved_by_every_theta_map() {
    for theta in THETAS {
        let m = CotangentLiftIntegrator::new(ThetaMap::<2>::new(theta).unwrap(), AutoDiff(KeplerModel));
        let d =
            relative_drift(&m, kepler_start(0.6), 0.01, STEPS, |s| SVector::<f64, 1>::new(planar_angular_momentum(s)))
                .unwrap();
        println!("Kepler e = 0.6, theta = {theta}: max |L_k - L_0|/|L_0| = {d:.2e} over {STEPS} steps");
        assert!(d <= CONSERVATION_TOL, "theta = {theta}: angular momentum drift {d:e}");
    }
}

/// Theorem 2 in space: the anharmonic central potential `V = r²/2 + r⁴/4` in R³, momentum map
/// of SO(3) on R³ (`J = x × p`, from geom-core's `RotationAction`).
#[test]
fn theorem2_central_force_in_space_conserves_x_cross_p() {
    let start = PhaseState::new(Vector3::new(1.0, 0.2, -0.3), Vector3::new(0.1, 0.8, 0.5));
    for theta in THETAS {
        let m = CotangentLiftIntegrator::new(ThetaMap::<3>::new(theta).unwrap(), AutoDiff(Anharmonic3));
        let d = relative_drift(&m, start, 0.01, STEPS, |s| RotationAction.momentum_map(&s.q, &s.p)).unwrap();
        println!("anharmonic R^3, theta = {theta}: max |J_k - J_0|/|J_0| = {d:.2e}");
        assert!(d <= CONSERVATION_TOL, "theta = {theta}: drift {d:e}");
    }
}

/// The measurement is not vacuous: for the same runs, `J_I = xᵀp` (the momentum of the
/// dilations `m = I` of GL(3)) is not a first integral of the central-force problem
/// (`d/dt xᵀp = |p|² - x·∇V`) and varies by O(1).
#[test]
fn a_momentum_that_is_not_a_first_integral_is_not_conserved() {
    let start = PhaseState::new(Vector3::new(1.0, 0.2, -0.3), Vector3::new(0.1, 0.8, 0.5));
    let m = CotangentLiftIntegrator::new(ThetaMap::<3>::midpoint(), AutoDiff(Anharmonic3));
    let d = relative_drift(&m, start, 0.01, 1000, |s| SVector::<f64, 1>::new(s.q.dot(&s.p))).unwrap();
    println!("anharmonic R^3, midpoint: max relative variation of x·p = {d:.2e}");
    assert!(d > 0.1, "x·p should vary: {d:e}");
}

/// `H(x, p) = f(xᵀp)` with `f(s) = s²/2 + cos(s)/10` is invariant under the whole GL(3) action
/// `(x, p) ↦ (M x, M^{-T} p)`, so every `J_m = pᵀ m x` is a first integral: all nine entries of
/// `J = vec(p xᵀ)` (geom-core's `LinearAction<3, 9>`).
#[derive(Debug, Clone, Copy)]
struct GlInvariant;

impl PhaseSpaceFunction<3> for GlInvariant {
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
        let s = q.dot(p);
        s * s * S::from(0.5) + s.cos() * S::from(0.1)
    }
}

/// Initial data with `s = xᵀp = -0.05`: the flow is `x(t) = x_0 e^{f'(s) t}`, `p = p_0 e^{-f'(s) t}`
/// with `f'(s) ≈ -0.045`, so over `t = 50` the state changes by a factor ~10 while `p xᵀ` stays.
fn gl_start() -> PhaseState<3> {
    PhaseState::new(Vector3::new(1.0, 0.5, -0.3), Vector3::new(0.3, -0.4, 0.5))
}

/// Example 4 of Barbero-Liñán et al. 2024: every θ-map is GL(n)-equivariant, so it conserves every `J_m`.
#[test]
fn example4_every_theta_map_conserves_every_gl_momentum() {
    for theta in THETAS {
        let m = CotangentLiftIntegrator::new(ThetaMap::<3>::new(theta).unwrap(), AutoDiff(GlInvariant));
        let mut end = gl_start();
        for _ in 0..STEPS {
            m.step(&mut end, 0.005).unwrap();
        }
        let d =
            relative_drift(&m, gl_start(), 0.005, STEPS, |s| LinearAction::<3, 9>.momentum_map(&s.q, &s.p)).unwrap();
        println!(
            "GL(3)-invariant H, theta = {theta}: max |J_k - J_0|/|J_0| = {d:.2e} (|x| went {:.3} -> {:.3})",
            gl_start().q.norm(),
            end.q.norm()
        );
        assert!(end.q.norm() < 0.5 * gl_start().q.norm(), "the state should move a lot: {end:?}");
        assert!(d <= CONSERVATION_TOL, "theta = {theta}: drift {d:e}");
    }
}

// ------------------------------------------------------------------------------------------
// The general (nonlinear) path: a symmetry-preserving nonlinear map conserves J, a
// non-equivariant one does not. Needs `general_step` (crates/discretization/src/general.rs).

/// The hand-made map of `common::maps` is a discretization map with correct derivatives
/// (central differences with δ = 1e-6: truncation ~δ² ~ 1e-12, rounding ~ε/δ ~ 1e-10; 1e-8).
#[test]
fn the_test_map_is_a_discretization_map_with_correct_derivatives() {
    let maps = [
        QuadraticShift::<2>::fixed(0.8, Vector2::new(1.0, 0.5)),
        QuadraticShift::<2> { eps: 0.7, a: Vector2::new(-0.3, 0.4), b: 1.3 },
    ];
    let (x, v) = (Vector2::new(0.7, -0.4), Vector2::new(0.3, 0.9));
    let (p0, p1) = (Vector2::new(0.2, -1.1), Vector2::new(0.8, 0.35));
    let d = 1e-6;
    for map in maps {
        let (a, b) = map.apply(&x, &Vector2::zeros()).unwrap();
        assert_eq!((a, b), (x, x), "R_d(0_x) = (x, x)");
        let j0 = map.jacobian(&x, &Vector2::zeros());
        assert!((j0.dv2 - j0.dv1 - nalgebra::Matrix2::identity()).amax() < 1e-15, "T R^2 - T R^1 = I");
        let (q0, q1) = map.apply(&x, &v).unwrap();
        let (xi, vi) = map.inverse(&q0, &q1).unwrap();
        assert!((xi - x).amax() < 1e-15 && (vi - v).amax() < 1e-15, "inverse");
        let jac = map.jacobian(&x, &v);
        let hess = map.covector_hessian(&x, &v, &p0, &p1);
        let phi_grad = |x: &Vector2<f64>, v: &Vector2<f64>| {
            let j = map.jacobian(x, v);
            (j.dx1.tr_mul(&p0) + j.dx2.tr_mul(&p1), j.dv1.tr_mul(&p0) + j.dv2.tr_mul(&p1))
        };
        for k in 0..2 {
            let e = Vector2::ith(k, d);
            let ((a1, a2), (b1, b2)) = (map.apply(&(x + e), &v).unwrap(), map.apply(&(x - e), &v).unwrap());
            assert!(((a1 - b1) / (2.0 * d) - jac.dx1.column(k)).amax() < 1e-8);
            assert!(((a2 - b2) / (2.0 * d) - jac.dx2.column(k)).amax() < 1e-8);
            let ((a1, a2), (b1, b2)) = (map.apply(&x, &(v + e)).unwrap(), map.apply(&x, &(v - e)).unwrap());
            assert!(((a1 - b1) / (2.0 * d) - jac.dv1.column(k)).amax() < 1e-8);
            assert!(((a2 - b2) / (2.0 * d) - jac.dv2.column(k)).amax() < 1e-8);
            // d/dx_k and d/dv_k of (∂_x φ, ∂_v φ): column k of (xx, xvᵀ) and (xv, vv)
            let ((gx1, gv1), (gx2, gv2)) = (phi_grad(&(x + e), &v), phi_grad(&(x - e), &v));
            assert!(((gx1 - gx2) / (2.0 * d) - hess.xx.column(k)).amax() < 1e-8);
            assert!(((gv1 - gv2) / (2.0 * d) - hess.xv.row(k).transpose()).amax() < 1e-8);
            let ((gx1, gv1), (gx2, gv2)) = (phi_grad(&x, &(v + e)), phi_grad(&x, &(v - e)));
            assert!(((gx1 - gx2) / (2.0 * d) - hess.xv.column(k)).amax() < 1e-8);
            assert!(((gv1 - gv2) / (2.0 * d) - hess.vv.column(k)).amax() < 1e-8);
        }
        // self-adjoint: I_Q ∘ R_d ∘ (-1) = R_d
        let (m0, m1) = map.apply(&x, &(-v)).unwrap();
        assert!((m1 - q0).amax() < 1e-15 && (m0 - q1).amax() < 1e-15);
    }
    // the radial map is rotation-equivariant, the fixed one is not
    let rot = nalgebra::Rotation2::new(0.9).into_inner();
    let radial = QuadraticShift::<2>::radial(0.8);
    let fixed = QuadraticShift::<2>::fixed(0.8, Vector2::new(1.0, 0.5));
    let equivariance = |m: &QuadraticShift<2>| {
        let (a, b) = m.apply(&(rot * x), &(rot * v)).unwrap();
        let (c, d) = m.apply(&x, &v).unwrap();
        (a - rot * c).amax().max((b - rot * d).amax())
    };
    assert!(equivariance(&radial) < 1e-15);
    assert!(equivariance(&fixed) > 1e-2);
}

/// Theorem 2 for a nonlinear symmetry-preserving map (the radial quadratic shift, equivariant
/// under rotations), through the general 4-block path.
#[test]
fn theorem2_nonlinear_equivariant_map_conserves_angular_momentum() {
    let m = CotangentLiftIntegrator::new(QuadraticShift::<2>::radial(0.5), Kepler);
    let d = relative_drift(&m, kepler_start(0.6), 0.01, STEPS, |s| SVector::<f64, 1>::new(planar_angular_momentum(s)))
        .expect("general (non-theta) cotangent-lift path");
    println!("Kepler e = 0.6, radial quadratic shift (eps = 0.5): max |L_k - L_0|/|L_0| = {d:.2e}");
    assert!(d <= CONSERVATION_TOL, "drift {d:e}");
}

/// Theorem 2 over 10^5 steps (about 160 orbits) for the midpoint rule: round-off accumulates as
/// a random walk, `√(10^5) · c ε ≈ 3e-13` with `c ≈ 10`, inside the same 1e-12.
#[test]
fn theorem2_long_run_midpoint() {
    let m = CotangentLiftIntegrator::new(ThetaMap::<2>::midpoint(), Kepler);
    let d =
        relative_drift(&m, kepler_start(0.6), 0.01, 10 * STEPS, |s| SVector::<f64, 1>::new(planar_angular_momentum(s)))
            .unwrap();
    println!("Kepler e = 0.6, midpoint, 10^5 steps: max |L_k - L_0|/|L_0| = {d:.2e}");
    assert!(d <= CONSERVATION_TOL, "drift {d:e}");
}

/// Negative control: the fixed-direction quadratic shift is not rotation-equivariant, and the
/// angular momentum drifts many orders of magnitude above round-off. Its effect is a base point
/// displaced by `ε |v|² a = O(ε h²)` off the rotation-equivariant midpoint, changing `L` by
/// `O(ε h³ |∇²V| |q|)` per step, largest at perihelion (`|∇²V| ~ 2/r³ ≈ 30`): measured 3e-3
/// over 10^4 steps with `ε = 0.5`, `h = 0.01`.
#[test]
fn negative_control_non_equivariant_map_breaks_angular_momentum() {
    let m = CotangentLiftIntegrator::new(QuadraticShift::<2>::fixed(0.5, Vector2::new(1.0, 0.5)), Kepler);
    let d = relative_drift(&m, kepler_start(0.6), 0.01, STEPS, |s| SVector::<f64, 1>::new(planar_angular_momentum(s)))
        .expect("general (non-theta) cotangent-lift path");
    println!("Kepler e = 0.6, fixed quadratic shift (not equivariant): max |L_k - L_0|/|L_0| = {d:.2e}");
    assert!(d > 1e-8, "a non-equivariant map should not conserve L: drift {d:e}");
    assert!(d > 1e4 * CONSERVATION_TOL);
}

/// Negative control for Example 4: the fixed quadratic shift is not GL(3)-equivariant, and the
/// GL momenta `J = vec(p xᵀ)` of the GL-invariant Hamiltonian drift. Here `v = h f'(s) x` is
/// small (`|v| ~ 2e-4`), so the shift `ε |v|² a` needs a large `ε = 200` to be visible
/// (`ε |v| ~ 0.05`: still well inside the map's domain).
#[test]
fn negative_control_non_equivariant_map_breaks_the_gl_momenta() {
    let map = QuadraticShift::<3>::fixed(200.0, Vector3::new(1.0, 0.5, -0.2));
    let m = CotangentLiftIntegrator::new(map, AutoDiff(GlInvariant));
    let d = relative_drift(&m, gl_start(), 0.005, STEPS, |s| LinearAction::<3, 9>.momentum_map(&s.q, &s.p))
        .expect("general (non-theta) cotangent-lift path");
    println!("GL(3)-invariant H, fixed quadratic shift: max |J_k - J_0|/|J_0| = {d:.2e}");
    assert!(d > 1e-8, "drift {d:e}");
}
