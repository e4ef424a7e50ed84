//! The Hamilton–Pontryagin RKMK integrators with `dτ^{-1}` truncated at `q ≥ 1`
//! (`HpIntegrator::with_truncation`; docs/math.md §D.11): the measured orders on the free rigid
//! body and the heavy top (SO(3)) and on the underwater vehicle (SE(3)), with negative controls
//! (`q` below `p − 2` loses the order), the invariants that the variational structure keeps, the
//! flat case (`R^n`, where the truncation changes nothing), and the typed errors.

use discretization::composition::kahan_li8;
use discretization::{Composition, OneStep};
use geom_core::lie::{Chart, GroupChart, LieGroup, Rn, So3};
use geom_core::{GeomError, Result};
use integrators::hp::{self, HpIntegrator, KineticPotential, LieState, Potential};
use integrators::models::{FreeRigidBody, HeavyTop};
use integrators::tableau;
use nalgebra::{Matrix3, SVector, Vector3};

type State = LieState<Matrix3<f64>, 3>;

use crate::hp_common::{fitted_slope, run_to as run, state_distance as distance};

/// The least-squares slope over the points above the round-off floor 1e-11.
fn slope(hs: &[f64], errs: &[f64]) -> f64 {
    fitted_slope(hs, errs, 1e-11)
}

fn s0() -> State {
    LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(0.8, -0.5, 1.2))
}

fn top() -> HeavyTop {
    HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(1.0, 5.0, 6.0)), 1.0, Vector3::z()).unwrap()
}

/// `(tableau, S, chart, q, nominal order)` → the measured slope against a Kahan–Li 8 reference.
fn measured<L, const S: usize>(lagrangian: L, tab: &tableau::Tableau, chart: Chart, q: u32, steps: &[usize]) -> f64
where
    L: hp::HpLagrangian<So3, 3> + Clone + 'static,
{
    let t = 2.0;
    let base = hp::stormer_verlet(So3, Chart::Cayley, lagrangian.clone()).unwrap();
    let reference = run(&Composition::new(base, kahan_li8()).unwrap(), s0(), t, 4096);
    let method = HpIntegrator::<_, _, 3, S>::new(So3, tab, chart, lagrangian).unwrap().with_truncation(q).unwrap();
    let hs: Vec<f64> = steps.iter().map(|n| t / *n as f64).collect();
    let errs: Vec<f64> = steps.iter().map(|&n| distance(&run(&method, s0(), t, n), &reference)).collect();
    let p = slope(&hs, &errs);
    println!("{}: measured order {p:.2} (nominal {}), errors {errs:?}", method.name(), method.order());
    assert!(
        (p - method.order() as f64).abs() <= 0.3,
        "{}: order() = {} but measured {p:.2}",
        method.name(),
        method.order()
    );
    p
}

#[test]
fn gauss2_with_q2_is_fourth_order_on_the_heavy_top_and_q0_q1_are_not() {
    let gauss = tableau::gauss_legendre(2).unwrap();
    let steps = [10, 20, 40, 80];
    for chart in [Chart::Exp, Chart::Cayley] {
        let p2 = measured::<_, 2>(top(), &gauss, chart, 2, &steps);
        assert!((p2 - 4.0).abs() <= 0.3, "{chart:?}: q = 2 measured {p2:.2}");
        // negative controls: the truncation below p - 2 caps the order at q + 2 with exp; with
        // Cayley, q = 1 stays at 2 (the quadratic term of dcay⁻¹ is not a commutator)
        let p1 = measured::<_, 2>(top(), &gauss, chart, 1, &steps);
        let cap = if chart == Chart::Exp { 3.0 } else { 2.0 };
        assert!((p1 - cap).abs() <= 0.3, "{chart:?}: q = 1 measured {p1:.2}");
        let p0 = measured::<_, 2>(top(), &gauss, chart, 0, &steps);
        assert!((p0 - 2.0).abs() <= 0.3, "{chart:?}: q = 0 measured {p0:.2}");
    }
}

#[test]
fn gauss2_with_q2_is_fourth_order_on_the_free_rigid_body() {
    let body = FreeRigidBody::principal(1.0, 2.0, 3.0).unwrap();
    let gauss = tableau::gauss_legendre(2).unwrap();
    let p = measured::<_, 2>(body, &gauss, Chart::Exp, 2, &[10, 20, 40, 80]);
    assert!((p - 4.0).abs() <= 0.3, "measured {p:.2}");
    let p0 = measured::<_, 2>(body, &gauss, Chart::Exp, 0, &[10, 20, 40, 80]);
    assert!((p0 - 2.0).abs() <= 0.3, "q = 0 measured {p0:.2}");
}

#[test]
fn lobatto_iiia_three_stages_with_q2_is_fourth_order_on_the_heavy_top() {
    let lobatto = tableau::lobatto_iiia(3).unwrap();
    let p = measured::<_, 3>(top(), &lobatto, Chart::Exp, 2, &[10, 20, 40, 80]);
    assert!((p - 4.0).abs() <= 0.3, "measured {p:.2}");
}

#[test]
fn gauss3_with_q4_is_sixth_order_on_the_heavy_top() {
    let gauss = tableau::gauss_legendre(3).unwrap();
    let p = measured::<_, 3>(top(), &gauss, Chart::Exp, 4, &[8, 12, 16, 24]);
    assert!((p - 6.0).abs() <= 0.3, "measured {p:.2}");
    // B_3 = 0: q = 2 agrees with dexp⁻¹ to degree 3 and allows order 5, not 6; q = 1 allows 3
    let p2 = measured::<_, 3>(top(), &gauss, Chart::Exp, 2, &[8, 12, 16, 24, 32]);
    assert!((p2 - 5.0).abs() <= 0.3, "q = 2 (negative control) measured {p2:.2}");
    let p1 = measured::<_, 3>(top(), &gauss, Chart::Exp, 1, &[8, 12, 16, 24, 32]);
    assert!((p1 - 3.0).abs() <= 0.3, "q = 1 (negative control) measured {p1:.2}");
}

#[test]
fn truncated_methods_keep_the_casimirs_and_the_spatial_momentum() {
    // free body: |Π|² and RΠ; heavy top: |Γ|², Π·Γ and the vertical spatial momentum (RΠ)_z
    let body = FreeRigidBody::principal(1.0, 2.0, 3.0).unwrap();
    let gauss = tableau::gauss_legendre(2).unwrap();
    let free = HpIntegrator::<_, _, 3, 2>::new(So3, &gauss, Chart::Exp, body).unwrap().with_truncation(2).unwrap();
    let (a, mut s) = (s0(), s0());
    for _ in 0..1000 {
        free.step(&mut s, 0.1).unwrap();
    }
    assert!((s.mu.norm_squared() - a.mu.norm_squared()).abs() < 1e-12);
    assert!((s.g * s.mu - a.g * a.mu).amax() < 1e-12);
    assert!(LieGroup::<f64, 3>::defect(&So3, &s.g) < 1e-12);
    let heavy = HpIntegrator::<_, _, 3, 2>::new(So3, &gauss, Chart::Cayley, top()).unwrap().with_truncation(2).unwrap();
    let mut s = s0();
    for _ in 0..1000 {
        heavy.step(&mut s, 0.1).unwrap();
    }
    let gamma = |s: &State| s.g.transpose() * Vector3::z();
    assert!(((s.g * s.mu)[2] - (a.g * a.mu)[2]).abs() < 1e-12, "vertical spatial momentum");
    assert!((gamma(&s).norm_squared() - 1.0).abs() < 1e-12);
    // the energy is not conserved exactly but stays bounded (symplectic): within 1e-3 here
    let energy = |s: &State| {
        let omega = Vector3::new(s.mu[0], s.mu[1] / 5.0, s.mu[2] / 6.0);
        0.5 * s.mu.dot(&omega) + gamma(s).dot(&Vector3::z())
    };
    assert!((energy(&s) - energy(&a)).abs() < 1e-3, "energy drift {}", energy(&s) - energy(&a));
}

/// On `R^n` (abelian: `ad = 0`) `D_q = I` for every `q`: the truncation changes nothing, bit for bit.
#[test]
fn on_a_vector_space_the_truncation_changes_nothing() {
    #[derive(Debug, Clone, Copy)]
    struct Quartic;
    impl<S: geom_core::Scalar> Potential<S, Rn<2>, 2> for Quartic {
        fn value(&self, _: &Rn<2>, q: &SVector<S, 2>) -> S {
            q.norm_squared() * q.norm_squared() * S::from(0.25)
        }
    }
    impl<S: geom_core::Scalar> hp::PotentialGradient<S, Rn<2>, 2> for Quartic {
        fn left_gradient(&self, _: &Rn<2>, q: &SVector<S, 2>) -> Result<SVector<S, 2>> {
            Ok(q * q.norm_squared())
        }
    }
    let lag = KineticPotential::new(nalgebra::Matrix2::new(2.0, 0.3, 0.3, 1.0), Quartic).unwrap();
    let gauss = tableau::gauss_legendre(2).unwrap();
    let a = HpIntegrator::<_, _, 2, 2>::new(Rn::<2>, &gauss, Chart::Exp, lag).unwrap();
    // (the same Newton iteration: with_truncation switches to simplified Newton by default)
    let b = a.clone().with_truncation(3).unwrap().with_newton(*a.newton_options()).unwrap();
    let start = LieState::new(SVector::<f64, 2>::new(1.0, 0.5), SVector::<f64, 2>::new(0.0, 0.7));
    let (mut x, mut y) = (start, start);
    for _ in 0..100 {
        a.step(&mut x, 0.05).unwrap();
        b.step(&mut y, 0.05).unwrap();
    }
    assert_eq!(x, y);
}

#[test]
fn a_user_chart_or_an_index_beyond_the_table_is_a_typed_error() {
    #[derive(Debug, Clone, Copy)]
    struct Mine;
    impl<S: geom_core::Scalar> GroupChart<S, So3, 3> for Mine {
        fn name(&self) -> String {
            "mine".into()
        }
        fn tau(&self, g: &So3, x: &SVector<S, 3>) -> Result<Matrix3<S>> {
            g.cayley(x)
        }
        fn tau_inv(&self, g: &So3, r: &Matrix3<S>) -> Result<SVector<S, 3>> {
            g.cayley_inv(r)
        }
        fn dtau(&self, g: &So3, x: &SVector<S, 3>) -> Result<Matrix3<S>> {
            g.dcay(x)
        }
    }
    let body = FreeRigidBody::principal(1.0, 2.0, 3.0).unwrap();
    let gauss = tableau::gauss_legendre(2).unwrap();
    let user = HpIntegrator::<_, _, 3, 2, Mine>::new(So3, &gauss, Mine, body).unwrap();
    assert!(matches!(user.clone().with_truncation(1), Err(GeomError::InvalidParameter { .. })));
    assert!(user.with_truncation(0).is_ok());
    let exp = HpIntegrator::<_, _, 3, 2>::new(So3, &gauss, Chart::Exp, body).unwrap();
    assert!(matches!(exp.clone().with_truncation(31), Err(GeomError::InvalidParameter { .. })));
    assert!(exp.with_truncation(30).is_ok());
}

/// SE(3): the underwater vehicle (left-invariant, so `q = 0` gives the same second-order scheme
/// for every tableau) reaches order 4 with Gauss `s = 2` and `q = 2`, both charts.
#[test]
fn gauss2_with_q2_is_fourth_order_on_the_underwater_vehicle() {
    use geom_core::lie::Se3;
    use integrators::models::UnderwaterVehicle;
    use nalgebra::{Matrix4, Vector6};
    type S6 = LieState<Matrix4<f64>, 6>;
    let veh = UnderwaterVehicle::new(
        Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 3.0)),
        Matrix3::from_diagonal(&Vector3::new(2.0, 3.0, 4.0)),
    )
    .unwrap();
    let s0 = LieState::new(
        Se3.exp(&Vector6::new(0.1, 0.2, -0.1, 0.5, 0.0, 0.3)),
        Vector6::new(0.3, -0.2, 0.5, 1.0, 0.4, -0.6),
    );
    let go = |m: &dyn OneStep<S6>, n: usize| {
        let mut s = s0;
        for _ in 0..n {
            m.step(&mut s, 2.0 / n as f64).unwrap();
        }
        s
    };
    let reference =
        go(&Composition::new(hp::stormer_verlet(Se3, Chart::Cayley, veh).unwrap(), kahan_li8()).unwrap(), 4096);
    let gauss = tableau::gauss_legendre(2).unwrap();
    let steps = [10, 20, 40, 80];
    let hs: Vec<f64> = steps.iter().map(|n| 2.0 / *n as f64).collect();
    for chart in [Chart::Exp, Chart::Cayley] {
        for (q, nominal) in [(2, 4.0), (0, 2.0)] {
            let m = HpIntegrator::<_, _, 6, 2>::new(Se3, &gauss, chart, veh).unwrap().with_truncation(q).unwrap();
            let errs: Vec<f64> = steps
                .iter()
                .map(|&n| {
                    let s = go(&m, n);
                    (s.g - reference.g).amax().max((s.mu - reference.mu).amax())
                })
                .collect();
            let p = slope(&hs, &errs);
            println!("vehicle, {}: measured order {p:.2}, errors {errs:?}", m.name());
            assert!((p - nominal).abs() <= 0.3, "vehicle {chart:?} q = {q}: measured {p:.2}, nominal {nominal}");
            assert_eq!(m.order(), nominal as u32);
        }
    }
}

/// With `q ≥ 1` the stages are solved by simplified Newton, polished by default
/// (`NewtonOptions::polish`): over `n = 10^5` steps of the heavy top (Gauss 2, `q = 2`, Cayley,
/// `h = 0.05`) the vertical spatial momentum `(RΠ)_z` stays within `10 ε √n = 7.0e-13` of its
/// start (a random walk of a few ulps per step), not `steps × tolerance`. The unpolished solve
/// (the old default) is measured and printed alongside.
#[test]
fn truncated_heavy_top_keeps_the_vertical_momentum_to_round_off_over_1e5_steps() {
    const STEPS: usize = 100_000;
    let gauss = tableau::gauss_legendre(2).unwrap();
    let heavy = HpIntegrator::<_, _, 3, 2>::new(So3, &gauss, Chart::Cayley, top()).unwrap().with_truncation(2).unwrap();
    let options = *heavy.newton_options();
    assert!(options.polish && options.jacobian == geom_core::newton::JacobianUpdate::Frozen);
    let unpolished = heavy.clone().with_newton(options.with_polish(false)).unwrap();
    let drift = |method: &dyn OneStep<State>| {
        let a = s0();
        let j0 = (a.g * a.mu)[2];
        let (mut s, mut worst) = (a, 0.0f64);
        for _ in 0..STEPS {
            method.step(&mut s, 0.05).unwrap();
            worst = worst.max(((s.g * s.mu)[2] - j0).abs());
        }
        worst / j0.abs()
    };
    let (d, d_old) = (drift(&heavy), drift(&unpolished));
    println!("heavy top, HP Gauss 2 q = 2: (RΠ)_z drift over {STEPS} steps: polished {d:.2e}, unpolished {d_old:.2e}");
    let bound = 10.0 * f64::EPSILON * (STEPS as f64).sqrt();
    assert!(d <= bound, "polished drift {d:e} > {bound:e}");
}
