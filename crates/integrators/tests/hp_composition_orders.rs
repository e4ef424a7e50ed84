//! High-order variational methods on Lie groups by composition of Hamilton–Pontryagin
//! Störmer–Verlet (symmetric, order 2) with the triple jump, Yoshida 6 and Kahan–Li 8 coefficient
//! sets: the measured orders on the free rigid body and the heavy top against a tight reference,
//! and the Casimir, spatial momentum and group constraint still at round-off.

use discretization::composition::{CompositionScheme, kahan_li8, triple_jump, yoshida6};
use discretization::{Composition, OneStep};
use geom_core::lie::{Chart, LieGroup, So3};
use integrators::hp::{self, LieState};
use integrators::models::{FreeRigidBody, HeavyTop};
use nalgebra::{Matrix3, Vector3};

type State = LieState<Matrix3<f64>, 3>;

use crate::hp_common::{fitted_slope, run_to as run, state_distance as distance};

/// The least-squares slope over the points above the round-off floor 1e-12.
fn slope(hs: &[f64], errs: &[f64]) -> f64 {
    fitted_slope(hs, errs, 1e-12)
}

fn check<L>(
    label: &str,
    lagrangian: L,
    s0: State,
    t: f64,
    cases: &[(&str, CompositionScheme, u32, &[usize])],
    casimir: impl Fn(&State) -> f64,
    spatial: impl Fn(&State) -> f64,
) where
    L: hp::HpLagrangian<So3, 3> + Clone + 'static,
{
    // the reference: Kahan–Li 8 with 4096 steps (error ~ (t/4096)^8, far below the measured ones)
    let base = hp::stormer_verlet(So3, Chart::Cayley, lagrangian.clone()).unwrap();
    let reference = run(&Composition::new(base, kahan_li8()).unwrap(), s0, t, 4096);
    for (name, scheme, order, steps) in cases {
        let base = hp::stormer_verlet(So3, Chart::Cayley, lagrangian.clone()).unwrap();
        let method = Composition::new(base, scheme.clone()).unwrap();
        assert_eq!(method.order(), *order);
        let hs: Vec<f64> = steps.iter().map(|n| t / *n as f64).collect();
        let mut errs = Vec::new();
        for &n in *steps {
            let s = run(&method, s0, t, n);
            errs.push(distance(&s, &reference));
            // invariants at round-off at every resolution
            assert!((casimir(&s) - casimir(&s0)).abs() < 1e-12, "{label} {name}: Casimir");
            assert!((spatial(&s) - spatial(&s0)).abs() < 1e-12, "{label} {name}: spatial momentum");
            assert!(LieGroup::<f64, 3>::defect(&So3, &s.g) < 1e-12, "{label} {name}: RᵀR = I");
        }
        let p = slope(&hs, &errs);
        println!("{label}: {name} measured order {p:.2} (nominal {order}), errors {errs:?}");
        assert!((p - *order as f64).abs() <= 0.3, "{label} {name}: measured order {p:.2}, nominal {order}");
    }
}

#[test]
fn compositions_of_hp_stormer_verlet_reach_orders_4_6_8() {
    let s0 = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(0.8, -0.5, 1.2));
    let body = FreeRigidBody::principal(1.0, 2.0, 3.0).unwrap();
    let cases: [(&str, CompositionScheme, u32, &[usize]); 3] = [
        ("triple jump", triple_jump(2), 4, &[40, 80, 160, 320]),
        ("Yoshida 6", yoshida6(), 6, &[40, 60, 80, 120]),
        ("Kahan–Li 8", kahan_li8(), 8, &[24, 32, 48, 64]),
    ];
    // free body: the spatial momentum RΠ (all three components; the z one is checked)
    check("free rigid body", body, s0, 4.0, &cases, |s| s.mu.norm_squared(), |s| (s.g * s.mu)[2]);
    let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(1.0, 5.0, 6.0)), 1.0, Vector3::z()).unwrap();
    // heavy top: the Casimir Π·Γ with Γ = Rᵀe3 (equal to the vertical spatial momentum) and |Γ|²
    check("heavy top", top, s0, 4.0, &cases, |s| (s.g.transpose() * Vector3::z()).norm_squared(), |s| (s.g * s.mu)[2]);
}
