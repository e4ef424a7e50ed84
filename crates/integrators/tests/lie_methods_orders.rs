//! Measured orders of the Crouch–Grossman (CG2, CG3, CG4a) and commutator-free (CF3, CF4) methods
//! on SO(3), SE(3) and a user's SL(2, R), for a nonlinear field `ġ = g f(t, g)` with a known
//! solution (`lie_methods_common::KnownSolution`): errors against the exact `γ(T)` at `T = 2`
//! for `n = 20, 40, 80, 160` steps, slopes within ±0.3 of the order. Negative controls: the Cayley
//! chart (not the exact frozen flow) gives order 2, and CF4 with its two update exponentials
//! swapped (which breaks the order-3 bracket condition) gives order 2.

use crate::lie_methods_common::{KnownSolution, SL2, errors_and_slopes, sci};
use geom_core::lie::{Chart, LieGroup, Se3, So3};
use geom_core::step::OneStep;
use integrators::commutator_free::{self, CfScheme, CommutatorFree};
use integrators::crouch_grossman;
use integrators::rkmk::GroupState;
use nalgebra::SMatrix;

const T: f64 = 2.0;
const STEPS: [usize; 4] = [20, 40, 80, 160];

/// Every method of the two modules on `group`, each with its declared order checked.
fn check_group<G, const D: usize, const N: usize>(group: G)
where
    G: LieGroup<f64, D, Element = SMatrix<f64, N, N>> + Copy,
{
    let known = KnownSolution::<D>::new(1.0);
    let methods: Vec<Box<dyn OneStep<GroupState<SMatrix<f64, N, N>>>>> = vec![
        Box::new(crouch_grossman::cg2(group, known).unwrap()),
        Box::new(crouch_grossman::cg3(group, known).unwrap()),
        Box::new(crouch_grossman::cg4a(group, known).unwrap()),
        Box::new(commutator_free::cf3(group, known).unwrap()),
        Box::new(commutator_free::cf4(group, known).unwrap()),
    ];
    for m in &methods {
        let (errors, slopes) = errors_and_slopes(m.as_ref(), &group, &known, T, &STEPS);
        let p = f64::from(m.order());
        eprintln!("{} on {}: errors {}, slopes {slopes:.3?}", m.name(), group.name(), sci(&errors));
        for s in &slopes {
            assert!((s - p).abs() <= 0.3, "{} on {}: slope {s:.3}, order {p}", m.name(), group.name());
        }
    }
}

#[test]
fn orders_on_so3() {
    check_group(So3);
}

#[test]
fn orders_on_se3() {
    check_group(Se3);
}

#[test]
fn orders_on_a_users_sl2() {
    check_group(SL2);
}

/// The Cayley chart is `exp(x + x³/12 + …)`: the frozen flows are wrong at `O(h³)` and CG4a and
/// CF4 drop to order 2, which `order()` declares.
#[test]
fn another_chart_than_exp_gives_order_two() {
    let known = KnownSolution::<3>::new(1.0);
    let cg =
        crouch_grossman::new::<_, _, 3, 5, _>(So3, known, &crouch_grossman::cg4a_tableau(), Chart::Cayley).unwrap();
    let cf = CommutatorFree::new(So3, known, &commutator_free::cf4_scheme(), Chart::Cayley).unwrap();
    let methods: [&dyn OneStep<GroupState<SMatrix<f64, 3, 3>>>; 2] = [&cg, &cf];
    for m in methods {
        assert_eq!(m.order(), 2);
        let (errors, slopes) = errors_and_slopes(m, &So3, &known, T, &STEPS);
        eprintln!("{}: errors {}, slopes {slopes:.3?}", m.name(), sci(&errors));
        for s in &slopes {
            assert!((s - 2.0).abs() <= 0.3, "{}: slope {s:.3}", m.name());
        }
    }
}

/// CF4 with its update exponentials in the other order (the product order of `ẏ = A y` read the
/// wrong way round): the summed tableau is still RK4, but the bracket condition fails, and the
/// measured order is 2. The scheme is refused as order 3 or 4, accepted as order 2.
#[test]
fn cf4_with_the_update_reversed_has_order_two() {
    let cf4 = commutator_free::cf4_scheme();
    let [first, second] = *cf4.update();
    let reversed = [second, first];
    assert!(CfScheme::new("CF4 reversed", *cf4.stages(), reversed, *cf4.nodes(), 4).is_err());
    assert!(CfScheme::new("CF4 reversed", *cf4.stages(), reversed, *cf4.nodes(), 3).is_err());
    let scheme = CfScheme::new("CF4 reversed", *cf4.stages(), reversed, *cf4.nodes(), 2).unwrap();
    let known = KnownSolution::<3>::new(1.0);
    let m = CommutatorFree::new(So3, known, &scheme, Chart::Exp).unwrap();
    let (errors, slopes) = errors_and_slopes(&m, &So3, &known, T, &STEPS);
    eprintln!("CF4 reversed: errors {}, slopes {slopes:.3?}", sci(&errors));
    for s in &slopes {
        assert!((s - 2.0).abs() <= 0.3, "slope {s:.3}");
    }
}
