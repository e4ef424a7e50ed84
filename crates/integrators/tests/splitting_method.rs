//! The splitting method as an integrator (`integrators::splitting::Splitting`): the integrator
//! contract (`check_integrator`: failed steps leave the state untouched, `step_n` is `n` steps
//! bit for bit, the measured order, reversibility), symplecticity of the step map, a failing
//! sub-flow in the middle of a step leaves the state's bits unchanged, sub-flows as tuples and
//! arrays of trait objects, and the typed errors of bad coefficients.

use crate::splitting_models::{Cubic, Fussy, Precession, hh0, kepler0};
use discretization::composition::{CompositionScheme, Stage, kahan_li10, triple_jump};
use geom_core::GeomError;
use geom_core::function::AutoDiff;
use geom_core::step::testing::{Contract, check_integrator, check_symplectic};
use geom_core::step::{OneStep, PhaseState};
use integrators::splitting::{
    ExactFlow, Harmonic, KeplerDrift, Kick, ORDER_TOLERANCE, SchemeError, Splitting, SplittingScheme, blanes_moan_s6,
    lie_trotter, strang, triple_jump4, yoshida6,
};
use nalgebra::Vector2;

fn bits<const N: usize>(s: &PhaseState<N>) -> Vec<u64> {
    s.q.iter().chain(s.p.iter()).map(|x| x.to_bits()).collect()
}

#[test]
fn the_contract_and_symplecticity() {
    let hh = Splitting::new((Harmonic::new(1.0).unwrap(), Kick(AutoDiff(Cubic))), strang()).unwrap();
    let report = check_integrator(&hh, &hh0(), &Contract::default()).unwrap_or_else(|e| panic!("{e}"));
    println!("{report:?}");
    assert!(check_symplectic(&hh, &hh0(), 0.1).unwrap() <= 1e-8);
    // order 4 on the perturbed Kepler problem, with steps where the differences are measurable
    let kepler =
        Splitting::new((KeplerDrift::new(1.0).unwrap(), Kick(AutoDiff(Precession))), blanes_moan_s6()).unwrap();
    let c = Contract { order_h: 0.1, order_time: 6.0, ..Contract::default() };
    let report = check_integrator(&kepler, &kepler0(0.5), &c).unwrap_or_else(|e| panic!("{e}"));
    println!("{report:?}");
    let defect = check_symplectic(&kepler, &kepler0(0.5), 0.3).unwrap();
    println!("S6 perturbed Kepler |MᵀJM − J| = {defect:.2e}");
    assert!(defect <= 1e-8);
    // Lie–Trotter is not symmetric, and the contract measures its order 1
    let lt = Splitting::new((Harmonic::new(1.0).unwrap(), Kick(AutoDiff(Cubic))), lie_trotter()).unwrap();
    let report = check_integrator(&lt, &hh0(), &Contract::default()).unwrap();
    assert!(report.reversibility_defect.is_none() && (report.measured_order - 1.0).abs() < 0.3);
}

/// A kick of an unbounded force, `∇V = (1/q_x, 0)`, non-finite at `q_x = 0`.
struct Singular;
impl ExactFlow<PhaseState<2>> for Singular {
    fn name(&self) -> String {
        "singular kick".into()
    }
    fn flow(&self, s: &mut PhaseState<2>, t: f64) -> Result<(), GeomError> {
        s.p[0] -= t / s.q[0];
        Ok(())
    }
}

#[test]
fn a_failed_step_leaves_the_state_untouched() {
    // the oscillator's first half step moves q_x past the limit, so the kick fails after the
    // state has been changed once
    let x0 = PhaseState::new(Vector2::new(0.99, 0.0), Vector2::new(1.0, 0.0));
    let m = Splitting::new((Harmonic::new(1.0).unwrap(), Fussy { limit: 1.0 }), strang()).unwrap();
    let mut s = x0;
    assert!(matches!(m.step(&mut s, 0.2), Err(GeomError::OutsideDomain { .. })));
    assert_eq!(bits(&s), bits(&x0));
    assert!(m.step_n(&mut s, 0.2, 5).is_err());
    assert_eq!(bits(&s), bits(&x0));
    // a sub-flow that produces ∞: refused at the end of the step
    let at_zero = PhaseState::new(Vector2::new(0.0, 1.0), Vector2::new(0.0, 0.0));
    let m = Splitting::new((Singular, Harmonic::new(1.0).unwrap()), lie_trotter()).unwrap();
    let mut s = at_zero;
    assert!(matches!(m.step(&mut s, 0.1), Err(GeomError::NonFinite { .. })));
    assert_eq!(bits(&s), bits(&at_zero));
    // invalid steps
    for h in [0.0, f64::NAN, f64::INFINITY] {
        let mut s = x0;
        assert!(matches!(m.step(&mut s, h), Err(GeomError::InvalidStep { .. })));
        assert_eq!(bits(&s), bits(&x0));
    }
    // the Kepler drift's own failure (a collision state) inside a splitting
    let m = Splitting::new((KeplerDrift::new(1.0).unwrap(), Kick(AutoDiff(Precession))), strang()).unwrap();
    let collision = PhaseState::new(Vector2::zeros(), Vector2::new(0.0, 1.0));
    let mut s = collision;
    assert!(m.step(&mut s, 0.1).is_err());
    assert_eq!(bits(&s), bits(&collision));
}

#[test]
fn sub_flows_as_an_array_of_trait_objects() {
    let by_tuple = Splitting::new((Harmonic::new(1.0).unwrap(), Kick(AutoDiff(Cubic))), triple_jump4()).unwrap();
    let boxed: [Box<dyn ExactFlow<PhaseState<2>>>; 2] =
        [Box::new(Harmonic::new(1.0).unwrap()), Box::new(Kick(AutoDiff(Cubic)))];
    let by_array = Splitting::new(boxed, triple_jump4()).unwrap();
    let (mut a, mut b) = (hh0(), hh0());
    by_tuple.step_n(&mut a, 0.1, 50).unwrap();
    by_array.step_n(&mut b, 0.1, 50).unwrap();
    assert_eq!(bits(&a), bits(&b));
    assert_eq!(by_tuple.name(), by_array.name());
    assert_eq!((by_array.order(), by_array.is_symmetric()), (4, true));
    assert_eq!(by_array.stages().len(), 7);
}

#[test]
fn stage_counts() {
    // Strang with three pieces: A/2 B/2 C B/2 A/2
    let three = strang().stages(3);
    assert_eq!(three, vec![(0, 0.5), (1, 0.5), (2, 1.0), (1, 0.5), (0, 0.5)]);
    assert_eq!(strang().stage_count(2), 3);
    assert_eq!(blanes_moan_s6().stage_count(2), 13);
    assert_eq!(yoshida6().stage_count(2), 15);
}

#[test]
fn bad_coefficients_get_typed_errors() {
    use SchemeError as E;
    assert!(matches!(SplittingScheme::new("none", &[], &[], 1, false), Err(E::Empty)));
    assert!(matches!(
        SplittingScheme::new("lengths", &[0.5, 0.5], &[0.5, 0.25, 0.25], 1, false),
        Err(E::Lengths { .. })
    ));
    assert!(matches!(SplittingScheme::new("nan", &[f64::NAN], &[1.0], 1, false), Err(E::NonFinite { which: "a", .. })));
    assert!(matches!(
        SplittingScheme::new("sum", &[0.5, 0.5], &[0.9], 1, false),
        Err(E::Consistency { which: "b", .. })
    ));
    assert!(matches!(SplittingScheme::new("zero", &[1.0], &[1.0], 0, false), Err(E::ZeroOrder)));
    // S6 with a_2 moved by 1e-9 (and a_4 by −2e-9: consistent, still a palindrome): the
    // conditions of degree 3 fail by about 1e-9
    let (a1, a2, a3) = (0.0792036964311957, 0.353172906049774 + 1e-9, -0.0420650803577195);
    let a4 = 1.0 - 2.0 * (a1 + a2 + a3);
    let (b1, b2) = (0.209515106613362, -0.143851773179818);
    let b3 = 0.5 - (b1 + b2);
    let (a, b) = ([a1, a2, a3, a4, a3, a2, a1], [b1, b2, b3, b3, b2, b1]);
    match SplittingScheme::new("perturbed S6", &a, &b, 4, true) {
        Err(E::OrderConditions { degree: 3, defect, tolerance, .. }) => {
            assert!(defect > 1e-10 && defect < 1e-8 && tolerance == ORDER_TOLERANCE)
        }
        other => panic!("{other:?}"),
    }
    // the same coefficients are fine as an order-2 scheme
    assert!(SplittingScheme::new("perturbed S6", &a, &b, 2, true).is_ok());
    // declared symmetric but not a palindrome, and the other way round
    assert!(matches!(
        SplittingScheme::new("ABAB", &[0.25, 0.75], &[0.75, 0.25], 1, true),
        Err(E::Symmetry { declared: true, .. })
    ));
    assert!(matches!(
        SplittingScheme::new("Strang", &[0.5, 0.5], &[1.0], 2, false),
        Err(E::Symmetry { declared: false, .. })
    ));
    // compositions: of a symmetric order-2 method, of order 1 with adjoints, nothing else
    assert!(SplittingScheme::from_composition(&kahan_li10()).is_ok_and(|s| s.order() == 10 && s.is_symmetric()));
    let mut order4_base = triple_jump(2);
    order4_base.base_order = 4;
    assert!(matches!(SplittingScheme::from_composition(&order4_base), Err(E::Composition { .. })));
    let bad = CompositionScheme {
        name: "adjoint of symmetric".into(),
        stages: vec![Stage::Adjoint(1.0)],
        base_order: 2,
        order: 2,
    };
    assert!(matches!(SplittingScheme::from_composition(&bad), Err(E::Composition { .. })));
    // the conversion to GeomError
    let g: GeomError = E::ZeroOrder.into();
    assert!(matches!(g, GeomError::InvalidParameter { what: "splitting scheme", .. }));
}
