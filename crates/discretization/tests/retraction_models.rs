//! Retractions written once over the scalar reach the induced integrator; the order checker tells
//! first- from second-order retractions; Theorem 2 of Barbero-Liñán, Marrero, Martín de Diego
//! ("From retraction maps to symplectic-momentum numerical integrators", 2024, arXiv:2401.14800)
//! for right multiplication on SO(3), with a negative control.

use discretization::autodiff_map::AutoDiffMap;
use discretization::checks::{LieChart, sample_algebra};
use discretization::lie_function::{LieAutoDiff, LieFunction};
use discretization::retraction::{
    EuclideanRetractionModel, ModelRetraction, Retraction, RetractionMap, SphereExponential, SphereNormalization,
    check_retraction, check_retraction_order,
};
use discretization::{
    CotangentLiftIntegrator, DiscretizationMap, LieAutoDiffMap, LieCotangentLiftIntegrator, LieGroupRetraction,
    LieGroupThetaMap, LieMapModel, LieState, OneStep, PhaseState, ThetaMap, check_symmetry_preservation,
};
use geom_core::action::{LeftMultiplication, RightMultiplication};
use geom_core::function::{AutoDiff, PhaseSpaceFunction};
use geom_core::lie::{Chart, LieGroup, So3};
use geom_core::{GeomError, Scalar};
use nalgebra::{Matrix3, SVector, Vector2, Vector3};

/// `R_x(v) = x + v + |v|² a`: a retraction of R² that is first order (it does not agree with
/// `x + v` to second order).
#[derive(Debug, Clone, Copy)]
struct Bent;
impl EuclideanRetractionModel<2> for Bent {
    fn name(&self) -> String {
        "bent translation".into()
    }
    fn retract<S: Scalar>(&self, x: &SVector<S, 2>, v: &SVector<S, 2>) -> SVector<S, 2> {
        x + v + SVector::<S, 2>::new(S::from(0.3), S::from(-0.1)) * v.norm_squared()
    }
}

/// Plane Kepler problem (softened), not quadratic.
struct Kepler;
impl PhaseSpaceFunction<2> for Kepler {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - (q.norm_squared() + S::from(0.01)).sqrt().recip()
    }
}

#[test]
fn a_retraction_written_once_gives_the_theta_integrators() {
    let s0 = PhaseState::new(Vector2::new(0.5, 0.0), Vector2::new(0.0, 1.6));
    for theta in [0.3, 0.5] {
        let model = CotangentLiftIntegrator::new(
            AutoDiffMap::<_, 2>(RetractionMap::new(discretization::EuclideanRetraction::<2>, theta).unwrap()),
            AutoDiff(Kepler),
        );
        let hand = CotangentLiftIntegrator::new(ThetaMap::<2>::new(theta).unwrap(), AutoDiff(Kepler));
        let (mut a, mut b) = (s0, s0);
        for _ in 0..200 {
            model.step(&mut a, 0.01).unwrap();
            hand.step(&mut b, 0.01).unwrap();
        }
        let d = (a.q - b.q).amax().max((a.p - b.p).amax());
        assert!(d < 1e-12, "θ = {theta}: {d:e}");
    }
}

#[test]
fn a_nonlinear_retraction_is_checked_and_drives_a_symplectic_integrator() {
    let f64_retraction = ModelRetraction::<_, 2>(Bent);
    let samples: Vec<_> = sample_algebra::<2>(5, 1.0, 1).into_iter().zip(sample_algebra::<2>(5, 1.0, 2)).collect();
    check_retraction(&f64_retraction, &discretization::checks::AmbientChart, &samples).unwrap().require(1e-8).unwrap();
    // f64 and AD share one definition: the f64 map and the AD map agree, and invert each other
    let f64_map = RetractionMap::new(f64_retraction, 0.3).unwrap();
    let ad_map = AutoDiffMap::<_, 2>(RetractionMap::new(Bent, 0.3).unwrap());
    for (x, v) in &samples {
        let (a, b) = (f64_map.apply(x, v).unwrap(), ad_map.apply(x, v).unwrap());
        assert_eq!(a, b);
        let (xi, vi) = f64_map.inverse(&a.0, &a.1).unwrap();
        assert!((xi - x).norm() < 1e-12 && (vi - v).norm() < 1e-12);
    }
    let integ = CotangentLiftIntegrator::new(ad_map, AutoDiff(Kepler));
    let m = integ.step_jacobian(&PhaseState::new(Vector2::new(0.5, 0.2), Vector2::new(-0.3, 1.2)), 0.05).unwrap();
    let omega = nalgebra::Matrix4::new(0., 0., 1., 0., 0., 0., 0., 1., -1., 0., 0., 0., 0., -1., 0., 0.);
    let m4 = nalgebra::Matrix4::from_iterator(m.iter().copied());
    assert!((m4.transpose() * omega * m4 - omega).amax() < 1e-12);
}

/// `R_x(v) = N(x + v + c|v|² P_x e_1)` on S²: a retraction (the tangential correction is quadratic)
/// that agrees with the exponential to first order only.
#[derive(Debug)]
struct TiltedSphere;
impl Retraction for TiltedSphere {
    type Point = Vector3<f64>;
    type Tangent = Vector3<f64>;
    fn name(&self) -> String {
        "tilted normalization".into()
    }
    fn retract(&self, x: &Vector3<f64>, v: &Vector3<f64>) -> Result<Vector3<f64>, GeomError> {
        let e = Vector3::x() - x * x[0];
        Ok((x + v + e * (0.4 * v.norm_squared())).normalize())
    }
    fn distance(&self, a: &Vector3<f64>, b: &Vector3<f64>) -> f64 {
        (a - b).norm()
    }
}

#[test]
fn the_order_checker_tells_first_from_second_order_retractions() {
    let scales = [0.1, 0.05, 0.025, 0.0125, 0.00625];
    let xs = [Vector3::new(0.0, 0.6, 0.8), Vector3::new(0.48, -0.6, 0.64)];
    let sphere: Vec<_> = xs
        .iter()
        .flat_map(|x| sample_algebra::<3>(3, 1.0, 9).into_iter().map(move |v| (*x, v - x * x.dot(&v))))
        .collect();
    let r = check_retraction_order(&SphereNormalization, &SphereExponential, &sphere, &scales).unwrap();
    assert!((r.slope - 3.0).abs() < 0.2 && r.order == 2, "normalization vs exp on S²: {r:?}");
    let r = check_retraction_order(&TiltedSphere, &SphereExponential, &sphere, &scales).unwrap();
    assert!((r.slope - 2.0).abs() < 0.2 && r.order == 1, "tilted normalization vs exp on S²: {r:?}");
    let r = check_retraction_order(&SphereExponential, &SphereExponential, &sphere, &scales).unwrap();
    assert_eq!(r.order, usize::MAX, "the exponential agrees with itself to round-off: {r:?}");
    // on SO(3): g cay(ξ) against g exp(ξ)
    let g: Vec<_> =
        sample_algebra::<3>(3, 2.0, 4).iter().map(|x| So3.exp(x)).zip(sample_algebra::<3>(3, 1.0, 5)).collect();
    let cay = LieGroupRetraction::<_, 3>::new(So3, Chart::Cayley);
    let exp = LieGroupRetraction::<_, 3>::new(So3, Chart::Exp);
    let r = check_retraction_order(&cay, &exp, &g, &scales).unwrap();
    assert!((r.slope - 3.0).abs() < 0.2 && r.order == 2, "Cayley vs exp on SO(3): {r:?}");
    // on R²: the bent retraction against x + v
    let flat: Vec<_> = sample_algebra::<2>(4, 1.0, 6).into_iter().zip(sample_algebra::<2>(4, 1.0, 7)).collect();
    let r = check_retraction_order(
        &ModelRetraction::<_, 2>(Bent),
        &discretization::EuclideanRetraction::<2>,
        &flat,
        &scales,
    )
    .unwrap();
    assert!((r.slope - 2.0).abs() < 0.2 && r.order == 1, "bent vs translation on R²: {r:?}");
    assert!(check_retraction_order(&SphereNormalization, &SphereExponential, &sphere, &[0.1]).is_err());
    assert!(check_retraction_order(&SphereNormalization, &SphereExponential, &sphere, &[0.1, -0.1]).is_err());
}

/// `R_d(g, ξ) = (g exp(-ξ/2 + c|ξ|² b), g exp(ξ/2 + c|ξ|² b))` with a body-fixed axis `b`:
/// left-equivariant always, right-equivariant under the rotations that fix `b`.
#[derive(Debug, Clone, Copy)]
struct BodyBiased(Vector3<f64>);
impl<S: Scalar> LieMapModel<S, So3, 3> for BodyBiased {
    fn name(&self) -> String {
        "body-biased midpoint".into()
    }
    fn eval(&self, group: &So3, g: &Matrix3<S>, xi: &SVector<S, 3>) -> Result<(Matrix3<S>, Matrix3<S>), GeomError> {
        let bias = self.0.map(S::from) * (xi.norm_squared() * S::from(0.5));
        let half = xi * S::from(0.5);
        Ok((g * group.exp(&(bias - half)), g * group.exp(&(bias + half))))
    }
}

/// Lagrange top: `I = diag(1, 1, 2)`, `χ = e3`, `H = ½ Πᵀ I⁻¹ Π + e3·R e3`; invariant under
/// left rotations about e3 and right rotations about e3.
#[derive(Debug, Clone, Copy)]
struct LagrangeTop;
impl<S: Scalar> LieFunction<S, So3, 3> for LagrangeTop {
    fn eval(&self, _: &So3, r: &Matrix3<S>, pi: &SVector<S, 3>) -> S {
        (pi[0] * pi[0] + pi[1] * pi[1] + pi[2] * pi[2] * S::from(0.5)) * S::from(0.5) + r[(2, 2)]
    }
}

#[test]
fn theorem_2_for_right_multiplication_on_so3() {
    let samples: Vec<_> =
        sample_algebra::<3>(5, 1.5, 11).iter().map(|x| So3.exp(x)).zip(sample_algebra::<3>(5, 1.0, 12)).collect();
    let about_e3: Vec<_> = [0.3, -1.1, 2.0].iter().map(|a| So3.exp(&(Vector3::z() * *a))).collect();
    let any: Vec<_> = sample_algebra::<3>(4, 2.0, 13).iter().map(|x| So3.exp(x)).collect();
    let right = RightMultiplication::new(So3);
    // the θ-maps commute with right multiplication by every element
    for chart in [Chart::Exp, Chart::Cayley] {
        let map = LieGroupThetaMap::new(So3, 0.3, chart).unwrap();
        let r = check_symmetry_preservation(&map, &right, &any, &samples).unwrap();
        assert!(r.max_defect < 1e-13, "{chart:?}: {r:?}");
    }
    // the body-biased map: only under the rotations that fix its axis
    let biased = LieAutoDiffMap::<_, _, 3>::new(So3, BodyBiased(Vector3::x()));
    assert!(check_symmetry_preservation(&biased, &right, &about_e3, &samples).unwrap().max_defect > 1e-3);
    let along_e3 = LieAutoDiffMap::<_, _, 3>::new(So3, BodyBiased(Vector3::z()));
    assert!(check_symmetry_preservation(&along_e3, &right, &about_e3, &samples).unwrap().max_defect < 1e-13);
    assert!(
        check_symmetry_preservation(&along_e3, &LeftMultiplication::new(So3), &any, &samples).unwrap().max_defect
            < 1e-13
    );
    // ... and the integrators: the body momentum Π_3 = -J_right · e3 is conserved exactly when the
    // map is equivariant under right rotations about e3
    let s0 = LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.4, -0.3, 1.5));
    let drift = |map: &dyn Fn(&mut LieState<Matrix3<f64>, 3>)| {
        let mut s = s0;
        let mut d = 0.0f64;
        for _ in 0..2000 {
            map(&mut s);
            d = d.max((GeomAction::body3(&s) - GeomAction::body3(&s0)).abs());
        }
        d
    };
    let theta =
        LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Cayley), LieAutoDiff(LagrangeTop));
    let good = LieCotangentLiftIntegrator::new(along_e3, LieAutoDiff(LagrangeTop));
    let bad = LieCotangentLiftIntegrator::new(biased, LieAutoDiff(LagrangeTop));
    let d_theta = drift(&|s| theta.step(s, 0.05).unwrap());
    let d_good = drift(&|s| good.step(s, 0.05).unwrap());
    let d_bad = drift(&|s| bad.step(s, 0.05).unwrap());
    assert!(d_theta < 1e-12 && d_good < 1e-12, "equivariant maps: {d_theta:e}, {d_good:e}");
    assert!(d_bad > 1e-6, "non-equivariant map: {d_bad:e}");
}

/// The observer of the right action's momentum map.
struct GeomAction;
impl GeomAction {
    fn body3(s: &LieState<Matrix3<f64>, 3>) -> f64 {
        use geom_core::action::GroupAction;
        -RightMultiplication::new(So3).momentum_map(&s.g, &s.mu)[2]
    }
}

#[test]
fn a_user_map_on_so3_passes_the_defining_property_checker() {
    // the Lie chart of the checkers measures the derivative condition of a user map on G
    let map = LieAutoDiffMap::<_, _, 3>::new(So3, BodyBiased(Vector3::x()));
    let samples: Vec<_> =
        sample_algebra::<3>(4, 1.0, 21).iter().map(|x| So3.exp(x)).zip(sample_algebra::<3>(4, 1.0, 22)).collect();
    discretization::check_discretization_map(&map, &LieChart::new(So3), &samples).unwrap().require(1e-8).unwrap();
}
