//! A user's discretization map on a Lie group, written outside the crate, makes a
//! `LiePoissonIntegrator` that is a `OneStep` on `g*` like the shipped θ-maps: the map implements
//! `DiscretizationMap`, `LieGroupMap` and `HasGroup` (three public traits) and nothing else.
//! Its reduced flow is the θ-map's (the user's map here is the midpoint map with its derivatives,
//! solved by the general four-block route instead of the θ-map's closed reduced system), it keeps
//! the Casimir `|μ|²` at round-off, preserves the Lie–Poisson tensor, and passes the integrator
//! contract.

use discretization::lie_map::{LieCovectorDerivative, LieMapJacobian};
use discretization::lie_poisson::HasGroup;
use discretization::{DiscretizationMap, LieGroupMap, LieGroupThetaMap, LiePoissonIntegrator, OneStep};
use geom_core::GeomError;
use geom_core::Scalar;
use geom_core::function::ScalarFunction;
use geom_core::lie::{Chart, So3};
use geom_core::step::testing::{Contract, check_integrator, check_poisson_map, lie_poisson_tensor};
use nalgebra::{Matrix3, SVector, Vector3};

/// A free rigid body on `so(3)*`: `h(μ) = ½ Σ μ_i²/I_i`.
struct Body;
impl ScalarFunction<3> for Body {
    fn eval<S: Scalar>(&self, p: &SVector<S, 3>) -> S {
        let inertia = [1.0, 5.0, 6.0];
        (0..3).fold(S::from(0.0), |a, i| a + p[i] * p[i] / S::from(inertia[i])) * S::from(0.5)
    }
}

/// The user's map: the midpoint map `(g τ(-ξ/2), g τ(ξ/2))` (Cayley) written by the user, here
/// with its values and derivatives taken from the crate's θ-map, but without declaring itself a
/// θ-map (`theta_chart` is `None`), so that the integrator treats it as any user map.
#[derive(Debug, Clone)]
struct UserMidpoint(LieGroupThetaMap<So3, 3>);

impl DiscretizationMap for UserMidpoint {
    type Point = Matrix3<f64>;
    type Tangent = Vector3<f64>;
    fn name(&self) -> String {
        "a user's midpoint map".into()
    }
    fn apply(&self, x: &Matrix3<f64>, v: &Vector3<f64>) -> Result<(Matrix3<f64>, Matrix3<f64>), GeomError> {
        self.0.apply(x, v)
    }
    fn inverse(&self, q0: &Matrix3<f64>, q1: &Matrix3<f64>) -> Result<(Matrix3<f64>, Vector3<f64>), GeomError> {
        self.0.inverse(q0, q1)
    }
    fn distance(&self, a: &Matrix3<f64>, b: &Matrix3<f64>) -> f64 {
        self.0.distance(a, b)
    }
    fn is_symmetric(&self) -> bool {
        true
    }
}

impl LieGroupMap<So3, 3> for UserMidpoint {
    fn group(&self) -> &So3 {
        self.0.group()
    }
    fn lie_jacobian(&self, g: &Matrix3<f64>, xi: &Vector3<f64>) -> Result<LieMapJacobian<3>, GeomError> {
        self.0.lie_jacobian(g, xi)
    }
    fn covector_derivative(
        &self,
        g: &Matrix3<f64>,
        xi: &Vector3<f64>,
        p0: &Vector3<f64>,
        p1: &Vector3<f64>,
    ) -> Result<LieCovectorDerivative<3>, GeomError> {
        self.0.covector_derivative(g, xi, p0, p1)
    }
}

impl HasGroup<3> for UserMidpoint {
    type Group = So3;
}

fn so3_bracket(a: &SVector<f64, 3>, b: &SVector<f64, 3>) -> SVector<f64, 3> {
    a.cross(b)
}

#[test]
fn a_users_map_makes_a_lie_poisson_integrator_like_the_shipped_ones() {
    let shipped = LiePoissonIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Cayley), Body);
    let user = LiePoissonIntegrator::new(UserMidpoint(LieGroupThetaMap::midpoint(So3, Chart::Cayley)), Body);
    let methods: [&dyn OneStep<SVector<f64, 3>>; 2] = [&shipped, &user];
    let mu0 = Vector3::new(0.3, -1.1, 0.8);
    let h = 0.05;
    let (mut a, mut b) = (mu0, mu0);
    let mut casimir = 0.0f64;
    for _ in 0..400 {
        methods[0].step(&mut a, h).unwrap();
        methods[1].step(&mut b, h).unwrap();
        casimir = casimir.max((b.norm_squared() - mu0.norm_squared()).abs());
    }
    let gap = (a - b).amax();
    assert!(gap < 1e-12, "the user's map and the θ-map differ by {gap:e} after 400 steps");
    assert!(casimir < 1e-13, "Casimir drift {casimir:e}");
    assert_eq!(user.order(), 2);
    assert!(user.is_symmetric());

    // a Poisson map of the Lie–Poisson tensor, and the integrator contract
    let defect = check_poisson_map(&user, &mu0, h, lie_poisson_tensor::<3>(so3_bracket)).unwrap();
    assert!(defect < 1e-8, "Lie–Poisson tensor defect {defect:e}");
    let report = check_integrator(&user, &mu0, &Contract::default()).unwrap();
    assert!((report.measured_order - 2.0).abs() < 0.3, "{report:?}");
}
