//! A chart written here, outside geom-core: the diagonal (2, 2) Padé approximant of `exp` on
//! SO(3), `τ(x) = q(−X)^{-1} q(X)`, `q(X) = I + X/2 + X²/12`, `X = x̂`. It is orthogonal for skew
//! `X` and satisfies `τ(−x) = τ(x)^{-1}`; it agrees with `exp` to `O(|x|⁵)` and differs from
//! Cayley at `O(|x|³)`. Written once over the scalar, it reaches the Hamilton–Pontryagin
//! integrators (free body and heavy top), RKMK and the Lie-group discretization maps with no
//! change to any crate; a chart that fails its own identities is refused with a typed error.

use discretization::lie_function::{LieAutoDiff, LieFunction};
use discretization::{LieAutoDiffMap, LieCotangentLiftIntegrator, LieGroupRetraction, RetractionMap};
use geom_core::lie::{Chart, GroupChart, LieGroup, So3, So3xR3, check_chart, so3};
use geom_core::{GeomError, Result, Scalar};
use integrators::OneStep;
use integrators::hp::{self, LieState};
use integrators::models::{FreeRigidBody, HeavyTop};
use integrators::rkmk::{GroupState, Rkmk};
use integrators::tableau;
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

/// The (2, 2) Padé chart of SO(3).
#[derive(Debug, Clone, Copy)]
struct Pade22;

fn q<S: Scalar>(a: &Matrix3<S>) -> Matrix3<S> {
    Matrix3::identity() + a * S::from(0.5) + a * a * S::from(1.0 / 12.0)
}

/// `D q(±A)[E] = ±E/2 + (AE + EA)/12`.
fn dq<S: Scalar>(a: &Matrix3<S>, e: &Matrix3<S>, sign: f64) -> Matrix3<S> {
    e * S::from(0.5 * sign) + (a * e + e * a) * S::from(1.0 / 12.0)
}

impl<S: Scalar> GroupChart<S, So3, 3> for Pade22 {
    fn name(&self) -> String {
        "pade22".into()
    }
    fn tau(&self, _: &So3, x: &SVector<S, 3>) -> Result<Matrix3<S>> {
        let a = so3::hat(x);
        let qm = q(&(-a)).try_inverse().ok_or(GeomError::SingularMatrix { what: "Padé denominator", iteration: 0 })?;
        Ok(qm * q(&a))
    }
    /// The rotation angle of `τ(θ n)` is `φ = 2 atan2(θ/2, 1 − θ²/12)`; inverted,
    /// `θ = 2t / (½ + (¼ + t²/3)^{1/2})` with `t = tan(φ/2)`, and `x = (θ/φ) log R`.
    fn tau_inv(&self, group: &So3, r: &Matrix3<S>) -> Result<SVector<S, 3>> {
        let w = LieGroup::<S, 3>::log(group, r)?;
        let phi2 = w.norm_squared();
        // θ/φ = 2 (t/φ) / (½ + (¼ + t²/3)^{1/2}), t/φ = tan(φ/2)/φ (series near 0)
        let t_over_phi = if phi2.re() < 1e-8 {
            S::from(0.5) + phi2 * S::from(1.0 / 24.0)
        } else {
            let phi = phi2.sqrt();
            (phi * S::from(0.5)).tan() / phi
        };
        let t2 = t_over_phi * t_over_phi * phi2;
        let ratio = t_over_phi * S::from(2.0) / (S::from(0.5) + (S::from(0.25) + t2 / S::from(3.0)).sqrt());
        Ok(w * ratio)
    }
    /// `∂τ/∂x_j = q(−X)^{-1} [Dq(X)[E_j] − Dq(−X)[E_j] τ]`, right-trivialized:
    /// column `j` is `vee(∂τ/∂x_j τᵀ)`.
    fn dtau(&self, group: &So3, x: &SVector<S, 3>) -> Result<SMatrix<S, 3, 3>> {
        let a = so3::hat(x);
        let qm = q(&(-a)).try_inverse().ok_or(GeomError::SingularMatrix { what: "Padé denominator", iteration: 0 })?;
        let t = GroupChart::<S, So3, 3>::tau(self, group, x)?;
        let mut m = SMatrix::<S, 3, 3>::zeros();
        for j in 0..3 {
            let e = so3::hat(&SVector::<S, 3>::from_fn(|i, _| S::from(if i == j { 1.0 } else { 0.0 })));
            let d = qm * (dq(&a, &e, 1.0) - dq(&a, &e, -1.0) * t);
            m.set_column(j, &so3::vee(&(d * t.transpose())));
        }
        Ok(m)
    }
}

#[test]
fn the_user_chart_passes_the_chart_checks() {
    let report = check_chart(&So3, &Pade22).unwrap();
    assert!(report.derivative < 1e-8 && report.inverse_symmetry < 1e-14, "{report:?}");
    // and it is neither exp nor Cayley: O(|x|^3) from Cayley, O(|x|^5) from exp
    let x = Vector3::new(0.3, -0.2, 0.4);
    let p = GroupChart::<f64, So3, 3>::tau(&Pade22, &So3, &x).unwrap();
    assert!((p - so3::cayley(&x)).amax() > 1e-4);
    let d_exp = (p - so3::exp(&x)).amax();
    assert!(d_exp < 1e-4 && d_exp > 1e-9, "{d_exp:e}");
}

fn free_body_state() -> LieState<Matrix3<f64>, 3> {
    LieState::new(so3::exp(&Vector3::new(0.1, 0.2, -0.3)), Vector3::new(1.1f64.cos(), 0.2, 1.1f64.sin()))
}

#[test]
fn hp_stormer_verlet_with_the_user_chart_conserves_casimir_and_spatial_momentum() {
    let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0).unwrap();
    let sv = hp::stormer_verlet(So3, Pade22, body).unwrap();
    assert_eq!(sv.name(), "HP Störmer–Verlet (pade22)");
    let cay = hp::stormer_verlet(So3, Chart::Cayley, body).unwrap();
    let (mut s, mut c) = (free_body_state(), free_body_state());
    let (m0, k0, e0) = (s.g * s.mu, body.casimirs(&s)[0], body.energy(&s));
    let (mut dm, mut dk, mut de) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..2000 {
        sv.step(&mut s, 0.1).unwrap();
        cay.step(&mut c, 0.1).unwrap();
        dm = dm.max((s.g * s.mu - m0).amax());
        dk = dk.max((body.casimirs(&s)[0] - k0).abs());
        de = de.max((body.energy(&s) - e0).abs());
    }
    assert!(dm <= 1e-12 && dk <= 1e-12, "spatial momentum {dm:e}, Casimir {dk:e}");
    assert!(de < 1e-2, "energy {de:e}");
    // the chart is really used: the trajectory is not Cayley's
    assert!((s.mu - c.mu).amax() > 1e-6);
}

#[test]
fn separable_heavy_top_with_the_user_chart() {
    let top =
        HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::new(0.1, 0.0, 1.0)).unwrap();
    let sv = hp::stormer_verlet(So3, Pade22, top).unwrap();
    let general = hp::stormer_verlet(So3, Pade22, hp::AutoDiff(top)).unwrap();
    let s0 = LieState::new(so3::exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
    let (mut a, mut b) = (s0, s0);
    let v0 = top.momenta(&a)[0];
    let mut dv = 0.0f64;
    for _ in 0..2000 {
        sv.step(&mut a, 0.02).unwrap();
        general.step(&mut b, 0.02).unwrap();
        dv = dv.max((top.momenta(&a)[0] - v0).abs());
    }
    assert!(dv <= 1e-12, "vertical momentum {dv:e}");
    let d = (a.g - b.g).amax().max((a.mu - b.mu).amax());
    assert!(d <= 1e-11, "separable vs general stage equations: {d:e}");
}

#[test]
fn rkmk4_with_the_user_chart_has_order_four() {
    let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0).unwrap();
    let m = Rkmk::<_, _, 6, 4, _>::new(So3xR3::default(), body, &tableau::rk4(), Pade22Product).unwrap();
    let s0 = GroupState::new(0.0, (Matrix3::identity(), Vector3::new(1.1f64.cos(), 0.3, 1.1f64.sin())));
    let run = |h: f64| {
        let mut s = s0;
        for _ in 0..(2.0 / h).round() as usize {
            m.step(&mut s, h).unwrap();
        }
        s.g
    };
    let reference = run(1e-3);
    let err = |h: f64| {
        let g = run(h);
        (g.0 - reference.0).amax().max((g.1 - reference.1).amax())
    };
    let (e1, e2) = (err(0.1), err(0.05));
    let p = (e1 / e2).log2();
    assert!((p - 4.0).abs() < 0.3, "measured order {p} ({e1:e}, {e2:e})");
}

/// The Padé chart on the SO(3) factor of `SO(3) × R³` (the RKMK group of the rigid body), the
/// identity on the additive factor.
#[derive(Debug, Clone, Copy)]
struct Pade22Product;
impl<S: Scalar> GroupChart<S, So3xR3, 6> for Pade22Product {
    fn name(&self) -> String {
        "pade22".into()
    }
    fn tau(&self, _: &So3xR3, x: &SVector<S, 6>) -> Result<(Matrix3<S>, Vector3<S>)> {
        let w = Vector3::new(x[0], x[1], x[2]);
        Ok((GroupChart::<S, So3, 3>::tau(&Pade22, &So3, &w)?, Vector3::new(x[3], x[4], x[5])))
    }
    fn tau_inv(&self, _: &So3xR3, g: &(Matrix3<S>, Vector3<S>)) -> Result<SVector<S, 6>> {
        let w = GroupChart::<S, So3, 3>::tau_inv(&Pade22, &So3, &g.0)?;
        Ok(SVector::<S, 6>::from_fn(|i, _| if i < 3 { w[i] } else { g.1[i - 3] }))
    }
    fn dtau(&self, _: &So3xR3, x: &SVector<S, 6>) -> Result<SMatrix<S, 6, 6>> {
        let w = Vector3::new(x[0], x[1], x[2]);
        let d = GroupChart::<S, So3, 3>::dtau(&Pade22, &So3, &w)?;
        let mut m = SMatrix::<S, 6, 6>::identity();
        m.fixed_view_mut::<3, 3>(0, 0).copy_from(&d);
        Ok(m)
    }
}

/// Heavy top `H(R, Π) = ½ Πᵀ I⁻¹ Π + e3·R e3` for the map of the Padé retraction.
#[derive(Debug, Clone, Copy)]
struct Top;
impl<S: Scalar> LieFunction<S, So3, 3> for Top {
    fn eval(&self, _: &So3, r: &Matrix3<S>, pi: &SVector<S, 3>) -> S {
        let inertia = [1.0, 5.0, 6.0];
        let kinetic = (0..3).fold(S::from(0.0), |acc, i| acc + pi[i] * pi[i] / S::from(inertia[i]));
        kinetic * S::from(0.5) + r[(2, 2)]
    }
}

#[test]
fn the_user_chart_reaches_the_lie_group_discretization_maps() {
    let map = RetractionMap::midpoint(LieGroupRetraction::<_, 3, _>::new(So3, Pade22));
    let integ = LieCotangentLiftIntegrator::new(LieAutoDiffMap::<_, _, 3>::new(So3, map), LieAutoDiff(Top));
    let mut s = discretization::LieState::new(so3::exp(&Vector3::new(0.4, -0.2, 0.1)), Vector3::new(0.6, 1.5, 2.5));
    let v0 = (s.g * s.mu)[2];
    let mut dv = 0.0f64;
    for _ in 0..200 {
        integ.step(&mut s, 0.05).unwrap();
        dv = dv.max(((s.g * s.mu)[2] - v0).abs());
    }
    // Theorem 2 of the retraction-map paper: a left-equivariant map conserves the momentum map
    assert!(dv <= 1e-12, "vertical momentum {dv:e}");
}

/// Pade22 with the derivative of the wrong trivialization.
#[derive(Debug, Clone, Copy)]
struct WrongDerivative;
impl<S: Scalar> GroupChart<S, So3, 3> for WrongDerivative {
    fn name(&self) -> String {
        "wrong".into()
    }
    fn tau(&self, g: &So3, x: &SVector<S, 3>) -> Result<Matrix3<S>> {
        GroupChart::<S, So3, 3>::tau(&Pade22, g, x)
    }
    fn tau_inv(&self, g: &So3, r: &Matrix3<S>) -> Result<SVector<S, 3>> {
        GroupChart::<S, So3, 3>::tau_inv(&Pade22, g, r)
    }
    fn dtau(&self, g: &So3, x: &SVector<S, 3>) -> Result<SMatrix<S, 3, 3>> {
        GroupChart::<S, So3, 3>::dtau(&Pade22, g, &(-x))
    }
}

#[test]
fn a_chart_that_fails_its_checks_is_refused() {
    let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0).unwrap();
    match hp::stormer_verlet(So3, WrongDerivative, body) {
        Err(GeomError::InvalidParameter { what: "chart", reason }) => assert!(reason.contains("dtau"), "{reason}"),
        other => panic!("expected a chart error, got {:?}", other.map(|m| m.name().to_string())),
    }
}
