//! Typed errors, untouched state on failure, metadata, and the trait-object seam of the HP and
//! RKMK integrators.

use crate::hp_common;

use discretization::OneStep;
use geom_core::GeomError;
use geom_core::lie::{Chart, So3, So3xR3};
use geom_core::newton::NewtonOptions;
use hp_common::{heavy_top, rigid_body};
use integrators::hp::{self, HpIntegrator, LieState};
use integrators::rkmk::{self, GroupState, Rkmk};
use integrators::tableau;
use nalgebra::{Matrix3, Vector3};

type State = LieState<Matrix3<f64>, 3>;
/// (method, name, order, symmetric)
type Expected = (Box<dyn OneStep<State>>, &'static str, u32, bool);

#[test]
fn invalid_steps_and_states_leave_the_state_untouched() {
    let (top, s0) = heavy_top();
    let sv = hp::stormer_verlet(So3, Chart::Cayley, top).unwrap();
    for h in [0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut s = s0;
        assert!(matches!(sv.step(&mut s, h), Err(GeomError::InvalidStep { .. })), "h = {h}");
        assert_eq!(s, s0);
    }
    let mut bad = s0;
    bad.mu[1] = f64::NAN;
    let copy = bad;
    assert!(matches!(sv.step(&mut bad, 0.1), Err(GeomError::NonFinite { .. })));
    assert_eq!(format!("{copy:?}"), format!("{bad:?}"));
    let mut bad = s0;
    bad.g[(0, 0)] = f64::INFINITY;
    assert!(matches!(sv.step(&mut bad, 0.1), Err(GeomError::NonFinite { .. })));
    assert_eq!(bad.g[(0, 0)], f64::INFINITY);
    // the reduced (left-invariant) path too
    let (body, b0) = rigid_body();
    let svb = hp::stormer_verlet(So3, Chart::Exp, body).unwrap();
    let mut s = b0;
    assert!(matches!(svb.step(&mut s, 0.0), Err(GeomError::InvalidStep { .. })));
    assert_eq!(s, b0);
}

#[test]
fn newton_failure_is_reported_and_leaves_the_state_untouched() {
    let (top, s0) = heavy_top();
    let one_iteration = NewtonOptions::new(1e-15, 1e-15, 1).unwrap();
    for chart in [Chart::Exp, Chart::Cayley] {
        let sv = hp::stormer_verlet(So3, chart, top).unwrap().with_newton(one_iteration).unwrap();
        let mut s = s0;
        match sv.step(&mut s, 0.1) {
            Err(GeomError::NotConverged { iterations: 1, residual, .. }) => assert!(residual > 1e-15),
            other => panic!("expected NotConverged, got {other:?}"),
        }
        assert_eq!(s, s0);
        let (body, b0) = rigid_body();
        let svb = hp::stormer_verlet(So3, chart, body).unwrap().with_newton(one_iteration).unwrap();
        let mut s = b0;
        assert!(matches!(svb.step(&mut s, 0.1), Err(GeomError::NotConverged { iterations: 1, .. })));
        assert_eq!(s, b0);
    }
    // a report on success: full Newton from I^{-1}Π converges in a few iterations
    let sv = hp::stormer_verlet(So3, Chart::Cayley, top).unwrap();
    let (_, report) = sv.try_step(&s0, 0.05).unwrap();
    assert!(report.iterations <= 5, "{report:?}");
}

#[test]
fn invalid_tableaux_are_errors() {
    let (top, _) = heavy_top();
    // explicit midpoint: b_1 = 0
    assert!(matches!(
        HpIntegrator::<_, _, 3, 2>::new(So3, &tableau::explicit_midpoint(), Chart::Exp, top),
        Err(GeomError::InvalidParameter { .. })
    ));
    // stage count mismatch
    assert!(matches!(
        HpIntegrator::<_, _, 3, 3>::new(So3, &tableau::gauss_legendre(2).unwrap(), Chart::Exp, top),
        Err(GeomError::DimensionMismatch { expected: 3, got: 2, .. })
    ));
    let bad = NewtonOptions { max_iterations: 0, ..NewtonOptions::default() };
    assert!(hp::stormer_verlet(So3, Chart::Exp, top).unwrap().with_newton(bad).is_err());
    // RKMK is explicit only
    let (body, _) = rigid_body();
    assert!(matches!(
        Rkmk::<_, _, 6, 2>::new(So3xR3::default(), body, &tableau::gauss_legendre(2).unwrap(), Chart::Exp),
        Err(GeomError::InvalidParameter { .. })
    ));
    let m = rkmk::rkmk4(So3xR3::default(), body).unwrap();
    let mut s = GroupState::new(0.0, (Matrix3::identity(), Vector3::new(1.0, 0.0, 0.0)));
    let copy = s;
    assert!(matches!(m.step(&mut s, f64::NAN), Err(GeomError::InvalidStep { .. })));
    assert_eq!(s, copy);
    s.g.1[0] = f64::NAN;
    assert!(matches!(m.step(&mut s, 0.1), Err(GeomError::NonFinite { .. })));
}

#[test]
fn names_orders_symmetry_and_trait_objects() {
    let (top, _) = heavy_top();
    let (body, _) = rigid_body();
    let methods: Vec<Expected> = vec![
        (Box::new(hp::symplectic_euler_a(So3, Chart::Exp, top).unwrap()), "HP symplectic Euler A (exp)", 1, false),
        (
            Box::new(hp::symplectic_euler_b(So3, Chart::Cayley, top).unwrap()),
            "HP symplectic Euler B (cayley)",
            1,
            false,
        ),
        (Box::new(hp::stormer_verlet(So3, Chart::Cayley, top).unwrap()), "HP Störmer–Verlet (cayley)", 2, true),
        (
            Box::new(
                HpIntegrator::<_, _, 3, 2>::new(So3, &tableau::gauss_legendre(2).unwrap(), Chart::Exp, top).unwrap(),
            ),
            "HP Gauss-Legendre 2 (exp)",
            2,
            false,
        ),
        // left-invariant: every tableau gives the same symmetric second-order scheme
        (Box::new(hp::symplectic_euler_a(So3, Chart::Exp, body).unwrap()), "HP symplectic Euler A (exp)", 2, true),
    ];
    for (m, name, order, symmetric) in methods {
        assert_eq!(m.name(), name);
        assert_eq!(m.order(), order, "{name}");
        assert_eq!(m.is_symmetric(), symmetric, "{name}");
    }
    assert!(LieState::checked(&So3, Matrix3::identity(), Vector3::new(f64::NAN, 0.0, 0.0)).is_err());
}
