//! Hamilton–Pontryagin integrators in symmetric canonical coordinates of the second kind
//! (`geom_core::lie::SecondKind`): on the free rigid body and the heavy top on SO(3) and
//! Kirchhoff's vehicle on SE(3), the invariants the method keeps by construction hold to
//! round-off, the measured order is 2, and the trajectory is not that of the exp or Cayley chart.

use discretization::OneStep;
use geom_core::lie::{Chart, LieGroup, Se3, SecondKind, So3};
use integrators::hp::{self, LieState};
use integrators::models::{FreeRigidBody, HeavyTop, UnderwaterVehicle};
use nalgebra::{Matrix3, Matrix4, Vector3, Vector6};

fn rigid_state() -> LieState<Matrix3<f64>, 3> {
    LieState::new(So3.exp(&Vector3::new(0.1, 0.2, -0.3)), Vector3::new(1.1f64.cos(), 0.2, 1.1f64.sin()))
}

#[test]
fn free_body_keeps_casimir_and_spatial_momentum_and_has_order_two() {
    let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0).unwrap();
    let sv = hp::stormer_verlet(So3, SecondKind, body).unwrap();
    assert_eq!(sv.name(), "HP Störmer–Verlet (second-kind)");
    let exp = hp::stormer_verlet(So3, Chart::Exp, body).unwrap();
    let (mut s, mut e) = (rigid_state(), rigid_state());
    let (m0, k0) = (s.g * s.mu, body.casimirs(&s)[0]);
    let (mut dm, mut dk) = (0.0f64, 0.0f64);
    for _ in 0..2000 {
        sv.step(&mut s, 0.1).unwrap();
        exp.step(&mut e, 0.1).unwrap();
        dm = dm.max((s.g * s.mu - m0).amax());
        dk = dk.max((body.casimirs(&s)[0] - k0).abs());
    }
    assert!(dm <= 1e-12 && dk <= 1e-12, "spatial momentum {dm:e}, Casimir {dk:e}");
    assert!((s.mu - e.mu).amax() > 1e-6, "the second-kind trajectory is the exp chart's");
    // order: errors at h and h/2 against h/64 over t = 2
    let run = |h: f64| {
        let mut s = rigid_state();
        sv.step_n(&mut s, h, (2.0 / h).round() as usize).unwrap();
        s
    };
    let reference = run(0.1 / 64.0);
    let err = |s: LieState<Matrix3<f64>, 3>| (s.g - reference.g).amax().max((s.mu - reference.mu).amax());
    let (e1, e2) = (err(run(0.1)), err(run(0.05)));
    let order = (e1 / e2).log2();
    assert!((order - 2.0).abs() < 0.3, "measured order {order} ({e1:e}, {e2:e})");
}

#[test]
fn heavy_top_keeps_its_vertical_momentum() {
    let top =
        HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::new(0.1, 0.0, 1.0)).unwrap();
    let sv = hp::stormer_verlet(So3, SecondKind, top).unwrap();
    let mut s = LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
    let (v0, e0) = ((s.g * s.mu)[2], top.energy(&s));
    let (mut dv, mut de) = (0.0f64, 0.0f64);
    for _ in 0..5000 {
        sv.step(&mut s, 0.02).unwrap();
        dv = dv.max(((s.g * s.mu)[2] - v0).abs());
        de = de.max((top.energy(&s) - e0).abs());
    }
    assert!(dv <= 1e-12, "vertical momentum {dv:e}");
    assert!(de < 1e-2, "energy {de:e}");
}

#[test]
fn kirchhoffs_vehicle_on_se3_keeps_its_casimirs() {
    let (veh, _) = UnderwaterVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0).unwrap();
    let sv = hp::stormer_verlet(Se3, SecondKind, veh).unwrap();
    let mut s: LieState<Matrix4<f64>, 6> = LieState::new(
        Se3.exp(&Vector6::new(0.3, -0.2, 0.1, 0.5, 0.0, -0.4)),
        Vector6::new(20.0, -10.0, 15.0, 50.0, 30.0, -20.0),
    );
    let c0 = veh.casimirs(&s);
    let e0 = veh.energy(&s);
    let (mut dc, mut de) = (0.0f64, 0.0f64);
    for _ in 0..2000 {
        sv.step(&mut s, 0.01).unwrap();
        let c = veh.casimirs(&s);
        dc = dc.max(((c[0] - c0[0]) / c0[0]).abs()).max(((c[1] - c0[1]) / c0[1]).abs());
        de = de.max(((veh.energy(&s) - e0) / e0).abs());
    }
    assert!(dc <= 1e-13, "Casimirs (relative) {dc:e}");
    assert!(de < 1e-2, "energy (relative) {de:e}");
}
