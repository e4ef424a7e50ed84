//! Shared set-ups of the HP tests: the models with their initial data, and small helpers.
#![allow(dead_code)]

use discretization::OneStep;
use geom_core::lie::{LieGroup, Se3, So3};
use integrators::hp::LieState;
use integrators::models::{FreeRigidBody, HeavyTop, UnderwaterVehicle};
use nalgebra::{Matrix3, Matrix4, Vector3, Vector6};

/// Hairer, Lubich & Wanner, *Geometric Numerical Integration*, 2006, IV.1: I = diag(2, 1, 2/3),
/// Π0 = (cos 1.1, 0, sin 1.1); a generic initial attitude.
pub fn rigid_body() -> (FreeRigidBody, LieState<Matrix3<f64>, 3>) {
    let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0).unwrap();
    let r0 = So3.exp(&Vector3::new(0.3, -0.2, 0.5));
    (body, LieState::new(r0, Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin())))
}

/// An asymmetric heavy top, tilted, spinning mostly about its figure axis.
pub fn heavy_top() -> (HeavyTop, LieState<Matrix3<f64>, 3>) {
    let top =
        HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::new(0.1, 0.0, 1.0)).unwrap();
    let r0 = So3.exp(&Vector3::new(0.5, 0.2, 0.0));
    (top, LieState::new(r0, Vector3::new(0.3, -0.4, 2.0)))
}

/// The ellipsoidal vehicle a = 1 m, b = 0.5 m, c = 0.25 m, ρ = 1000 kg/m³, with body
/// velocity Ω = (0.3, 0.5, -0.2) rad/s, v = (1.0, 0.3, -0.2) m/s.
pub fn vehicle() -> (UnderwaterVehicle, LieState<Matrix4<f64>, 6>) {
    let (veh, _) = UnderwaterVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0).unwrap();
    let xi = Vector6::new(0.3, 0.5, -0.2, 1.0, 0.3, -0.2);
    let mu = Vector6::from_iterator(
        (veh.inertia() * xi.fixed_rows::<3>(0)).iter().chain((veh.mass() * xi.fixed_rows::<3>(3)).iter()).copied(),
    );
    let g0 = Se3.exp(&Vector6::new(0.2, -0.1, 0.4, 1.0, -2.0, 0.5));
    (veh, LieState::new(g0, mu))
}

/// `|Rᵀ R - I|_F`.
pub fn orthogonality_defect(r: &Matrix3<f64>) -> f64 {
    (r.transpose() * r - Matrix3::identity()).norm()
}

/// `log2(a / b)`.
pub fn slope(a: f64, b: f64) -> f64 {
    (a / b).log2()
}

/// `n` steps of `method` over `[0, t]` from `s0`.
pub fn run_to(
    method: &dyn OneStep<LieState<Matrix3<f64>, 3>>,
    s0: LieState<Matrix3<f64>, 3>,
    t: f64,
    n: usize,
) -> LieState<Matrix3<f64>, 3> {
    let mut s = s0;
    let h = t / n as f64;
    for _ in 0..n {
        method.step(&mut s, h).unwrap();
    }
    s
}

/// `max(|g_a − g_b|_max, |Π_a − Π_b|_∞)`.
pub fn state_distance(a: &LieState<Matrix3<f64>, 3>, b: &LieState<Matrix3<f64>, 3>) -> f64 {
    (a.g - b.g).amax().max((a.mu - b.mu).amax())
}

/// The least-squares slope of log(error) against log(h) over the points above `floor` (at least
/// three of them, else the test fails).
pub fn fitted_slope(hs: &[f64], errs: &[f64], floor: f64) -> f64 {
    let pts: Vec<(f64, f64)> =
        hs.iter().zip(errs).filter(|(_, e)| **e > floor).map(|(h, e)| (h.ln(), e.ln())).collect();
    assert!(pts.len() >= 3, "too few points above round-off: {errs:?}");
    let n = pts.len() as f64;
    let (mx, my) = (pts.iter().map(|p| p.0).sum::<f64>() / n, pts.iter().map(|p| p.1).sum::<f64>() / n);
    pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / pts.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>()
}
