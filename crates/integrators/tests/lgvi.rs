//! The Lee–Leok–McClamroch Lie group variational integrator: exact energy of the free body
//! (Moser–Veselov), the momenta of the symmetries, symmetry of the step, order 2, agreement with
//! Hamilton–Pontryagin Störmer–Verlet to O(h²) (which catches a wrong sign of the moment), and a
//! body with its own potential defined here, outside the crate.

use discretization::OneStep;
use geom_core::lie::{Chart, So3, so3};
use geom_core::{Result, Scalar};
use integrators::hp::{self, KineticPotential, LieState, Potential, PotentialGradient};
use integrators::lgvi::Lgvi;
use integrators::models::{FreeRigidBody, HeavyTop};
use nalgebra::{Matrix3, Vector3};

fn rotation_error(r: &Matrix3<f64>) -> f64 {
    (r.tr_mul(r) - Matrix3::identity()).amax()
}

#[test]
fn free_body_energy_momentum_and_casimir_are_exact_over_ten_thousand_steps() {
    let body = FreeRigidBody::principal(1.0, 2.0, 2.5).unwrap();
    let lgvi = Lgvi::new(body).unwrap();
    let mut s = LieState::new(so3::exp(&Vector3::new(0.3, -0.2, 0.1)), Vector3::new(1.0, 0.6, -1.5));
    let (e0, c0, m0) = (body.energy(&s), body.casimirs(&s)[0], s.g * s.mu);
    let (mut de, mut dc, mut dm, mut dr) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for _ in 0..10_000 {
        lgvi.step(&mut s, 0.05).unwrap();
        de = de.max((body.energy(&s) - e0).abs());
        dc = dc.max((body.casimirs(&s)[0] - c0).abs());
        dm = dm.max((s.g * s.mu - m0).amax());
        dr = dr.max(rotation_error(&s.g));
    }
    assert!(de <= 1e-12, "energy {de:e}");
    assert!(dc <= 1e-12, "Casimir {dc:e}");
    assert!(dm <= 1e-12, "spatial momentum {dm:e}");
    assert!(dr <= 1e-12, "RᵀR − I {dr:e}");
}

fn heavy_top() -> HeavyTop {
    HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, 0.4)), 1.5, Vector3::new(0.1, 0.2, 1.0)).unwrap()
}

fn top_state() -> LieState<Matrix3<f64>, 3> {
    LieState::new(so3::exp(&Vector3::new(0.4, 0.1, 0.0)), Vector3::new(0.2, -0.3, 3.0))
}

#[test]
fn heavy_top_vertical_momentum_exact_and_energy_bounded() {
    let top = heavy_top();
    let lgvi = Lgvi::new(top).unwrap();
    let mut s = top_state();
    let (e0, v0) = (top.energy(&s), top.momenta(&s)[0]);
    let n = 10_000;
    let (mut dv, mut first, mut last) = (0.0f64, 0.0f64, 0.0f64);
    for k in 0..n {
        lgvi.step(&mut s, 0.01).unwrap();
        dv = dv.max((top.momenta(&s)[0] - v0).abs());
        let de = (top.energy(&s) - e0).abs();
        if k < n / 10 {
            first = first.max(de);
        } else if k >= n - n / 10 {
            last = last.max(de);
        }
    }
    assert!(dv <= 1e-12, "vertical momentum {dv:e}");
    // bounded, O(h²), not drifting: the last tenth no worse than twice the first
    assert!(first < 1e-3 && last < 2.0 * first, "energy: first tenth {first:e}, last tenth {last:e}");
    assert!(rotation_error(&s.g) < 1e-12);
}

/// Error at t = 1 against a fine LGVI run; slope of log error over log h.
fn measured_order(lgvi: &Lgvi<HeavyTop>) -> f64 {
    let run = |h: f64| {
        let mut s = top_state();
        let n = (1.0 / h).round() as usize;
        for _ in 0..n {
            lgvi.step(&mut s, h).unwrap();
        }
        s
    };
    let reference = run(1.0 / 12_800.0);
    let errs: Vec<f64> = [0.1, 0.05, 0.025, 0.0125]
        .iter()
        .map(|&h| {
            let s = run(h);
            (s.g - reference.g).amax().max((s.mu - reference.mu).amax())
        })
        .collect();
    // h = 0.1 is not yet asymptotic (slope 2.17 from there); the slope over the last three
    (errs[1] / errs[3]).log2() / 2.0
}

#[test]
fn heavy_top_order_two() {
    let p = measured_order(&Lgvi::new(heavy_top()).unwrap());
    assert!((p - 2.0).abs() < 0.1, "measured order {p}");
}

#[test]
fn agrees_with_hp_stormer_verlet_to_second_order() {
    // Both are second-order approximations of the same flow: their difference at t = 1 falls
    // by 4 when h halves. A wrong sign of the moment would leave an O(1) difference.
    let top = heavy_top();
    let lgvi = Lgvi::new(top).unwrap();
    let sv = hp::stormer_verlet(So3, Chart::Cayley, top).unwrap();
    let diff = |h: f64| {
        let (mut a, mut b) = (top_state(), top_state());
        for _ in 0..(1.0 / h).round() as usize {
            lgvi.step(&mut a, h).unwrap();
            sv.step(&mut b, h).unwrap();
        }
        (a.g - b.g).amax().max((a.mu - b.mu).amax())
    };
    let (d1, d2) = (diff(0.01), diff(0.005));
    assert!(d1 < 0.05, "{d1:e}");
    let ratio = d1 / d2;
    assert!((3.5..4.5).contains(&ratio), "difference ratio {ratio} ({d1:e}, {d2:e})");
}

#[test]
fn the_step_is_symmetric() {
    let lgvi = Lgvi::new(heavy_top()).unwrap();
    let s0 = top_state();
    let mut s = s0;
    lgvi.step(&mut s, 0.1).unwrap();
    lgvi.step(&mut s, -0.1).unwrap();
    assert!((s.g - s0.g).amax() < 1e-14 && (s.mu - s0.mu).amax() < 1e-14);
    assert!(lgvi.is_symmetric() && lgvi.order() == 2);
}

/// A body with a potential of its own, written in this test file: a torsion spring holding the
/// body axis `e1` towards the spatial `e1`, `U(R) = k (1 − e1·R e1)`, plus gravity on an offset
/// centre of mass, `U_g = mgl e3·(R χ)`. `dU = k (e1 × Rᵀe1)`-type terms below, checked
/// against finite differences.
struct SpringTop {
    k: f64,
    mgl: f64,
    chi: Vector3<f64>,
}
impl<S: Scalar> Potential<S, So3, 3> for SpringTop {
    fn value(&self, _: &So3, r: &Matrix3<S>) -> S {
        let chi = self.chi.map(S::from);
        (S::from(1.0) - r[(0, 0)]) * S::from(self.k) + (r * chi)[2] * S::from(self.mgl)
    }
}
impl<S: Scalar> PotentialGradient<S, So3, 3> for SpringTop {
    /// `d/dε U(R exp(εη̂))`: `−k e1·R(η × e1) + mgl e3·R(η × χ) = η·(k e1 × Rᵀe1 ... )`.
    fn left_gradient(&self, _: &So3, r: &Matrix3<S>) -> Result<Vector3<S>> {
        let e1 = Vector3::<S>::x();
        let rt_e1 = Vector3::new(r[(0, 0)], r[(0, 1)], r[(0, 2)]);
        let rt_e3 = Vector3::new(r[(2, 0)], r[(2, 1)], r[(2, 2)]);
        // e1·R(η × e1) = (Rᵀe1)·(η × e1) = η·(e1 × Rᵀe1)
        let spring = e1.cross(&rt_e1) * S::from(-self.k);
        // e3·R(η × χ) = η·(χ × Rᵀe3)
        let gravity = self.chi.map(S::from).cross(&rt_e3) * S::from(self.mgl);
        Ok(spring + gravity)
    }
}

#[test]
fn a_users_potential_reaches_the_integrator() {
    let pot = SpringTop { k: 2.0, mgl: 0.7, chi: Vector3::new(0.0, 0.3, 1.0) };
    // the user's gradient is right: finite differences of U along R exp(εη̂)
    let r = so3::exp(&Vector3::new(0.5, -0.4, 0.8));
    let grad = pot.left_gradient(&So3, &r).unwrap();
    for k in 0..3 {
        let e = Vector3::ith(k, 1e-6);
        let u = |x: &Vector3<f64>| Potential::<f64, So3, 3>::value(&pot, &So3, &(r * so3::exp(x)));
        let fd = (u(&e) - u(&-e)) / 2e-6;
        assert!((fd - grad[k]).abs() < 1e-8, "component {k}: {fd} vs {}", grad[k]);
    }
    let inertia = Matrix3::from_diagonal(&Vector3::new(1.0, 1.5, 0.7));
    let body = KineticPotential::new(inertia, pot).unwrap();
    let lgvi = Lgvi::new(&body).unwrap();
    let energy = |s: &LieState<Matrix3<f64>, 3>| {
        0.5 * s.mu.dot(&(inertia.try_inverse().unwrap() * s.mu))
            + Potential::<f64, So3, 3>::value(&body.potential, &So3, &s.g)
    };
    let mut s = LieState::new(so3::exp(&Vector3::new(0.2, 0.3, -0.1)), Vector3::new(0.5, -1.0, 0.8));
    let e0 = energy(&s);
    let mut de = 0.0f64;
    for _ in 0..20_000 {
        lgvi.step(&mut s, 0.01).unwrap();
        de = de.max((energy(&s) - e0).abs());
    }
    assert!(de < 1e-3 * e0.abs().max(1.0), "energy error {de:e}");
    assert!(de > 1e-12, "a potential that does nothing would conserve energy exactly");
    assert!(rotation_error(&s.g) < 1e-12);
}
