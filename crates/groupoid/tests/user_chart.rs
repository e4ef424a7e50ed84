//! A chart written here, outside the groupoid crate: the diagonal (2, 2) Padé approximant of
//! `exp` on SO(3), `τ(x) = q(−X)^{-1} q(X)`, `q(X) = I + X/2 + X²/12`, `X = x̂` (the chart of
//! `crates/integrators/tests/user_chart.rs`, copied so that this file is self-contained). Written
//! once over the scalar, it is the fibre chart of the ready-made groupoids with no wrapper:
//! `GroupAsGroupoid::new(So3, Pade22)` (`τ(ξ)`), `PairOfGroup::new(So3, Pade22)` (`(g, g τ(ξ))`),
//! `ActionGroupoid::new(SphereRotation, Pade22)` (`(Γ, τ(ξ))`), the reduction morphisms between
//! them, and the DEL flow as a `OneStep` (`GroupoidIntegrator`).
//!
//! The rigid body's discrete Lagrangian is induced by the groupoid's own chart,
//! `L_d(g) = (1/2h) ξᵀ I ξ` with `ξ = fibre_log(g) = τ^{-1}(·)`, so the chart is really used: the
//! trajectories differ from the Cayley and exp ones, and converge to the same motion at order 2.

use geom_core::action::SphereRotation;
use geom_core::lie::{Chart, GroupChart, LieGroup, So3, check_chart, so3};
use geom_core::step::{LieState, OneStep};
use geom_core::{GeomError, Result, Scalar};
use groupoid::integrator::{CotangentPoint, GroupoidIntegrator, LagrangianFamily};
use groupoid::lagrangian::GroupoidFamily;
use groupoid::morphism::{AdvectedReduction, LeftTrivialization, morphism_defect};
use groupoid::{
    ActionGroupoid, DiscreteFlow, DiscreteLagrangian, GroupAsGroupoid, LieGroupoid, PairOfGroup, legendre_minus,
    legendre_plus,
};
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

/// The Padé chart with the left-trivialized derivative `dτ_{−x}` in place of the right one: a
/// chart whose derivative is wrong.
#[derive(Debug, Clone, Copy)]
struct WrongDerivative;

impl<S: Scalar> GroupChart<S, So3, 3> for WrongDerivative {
    fn name(&self) -> String {
        "pade22-left-derivative".into()
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

const INERTIA: Vector3<f64> = Vector3::new(1.0, 2.0, 2.5);

/// `L_d(g) = (1/2h) ξᵀ I ξ`, `ξ = fibre_log(g)`: the free rigid body discretized by the groupoid's
/// own chart (`τ^{-1}(W)` on `G ⇉ {e}`, `τ^{-1}(g_0^{-1} g_1)` on `G × G`). Symmetric for every
/// chart with `τ(−x) = τ(x)^{-1}`, hence of order 2.
#[derive(Debug, Clone, Copy)]
struct ChartBody {
    h: f64,
}

impl ChartBody {
    fn value<S: Scalar>(&self, xi: &Vector3<S>) -> S {
        xi.component_mul(&INERTIA.map(S::from)).dot(xi) * S::from(0.5 / self.h)
    }
}

/// The family `h ↦ ChartBody { h }` of the `OneStep`.
#[derive(Debug, Clone, Copy)]
struct ChartBodyFamily;

/// One impl per groupoid type (a discrete Lagrangian is evaluated at every scalar, so it names
/// its groupoid): the same two lines for the user's chart and the shipped ones.
macro_rules! chart_body {
    ($($gd:ty),* $(,)?) => {$(
        impl DiscreteLagrangian<$gd, 3> for ChartBody {
            fn eval<S: Scalar>(&self, gd: &$gd, g: &<$gd as GroupoidFamily<3>>::Element<S>) -> S {
                match LieGroupoid::<S, 3>::fibre_log(gd, g) {
                    Ok(xi) => self.value(&xi),
                    Err(_) => S::from(f64::NAN),
                }
            }
        }
        impl LagrangianFamily<$gd, 3> for ChartBodyFamily {
            type AtStep<'a> = ChartBody;
            fn at_step(&self, h: f64) -> Result<ChartBody> {
                geom_core::step::check_step(h)?;
                Ok(ChartBody { h })
            }
            fn name(&self) -> String {
                "chart-induced rigid body".into()
            }
        }
    )*};
}
chart_body!(
    GroupAsGroupoid<So3, Pade22>,
    GroupAsGroupoid<So3, Chart>,
    GroupAsGroupoid<So3, WrongDerivative>,
    PairOfGroup<So3, Pade22>,
    PairOfGroup<So3, Chart>,
);

fn g0() -> Matrix3<f64> {
    so3::exp(&Vector3::new(0.1, 0.2, -0.3))
}

/// The body momentum at `t = 0` (a fast, tumbling motion near the unstable middle axis).
fn mu0() -> Vector3<f64> {
    Vector3::new(1.1f64.cos(), 0.2, 1.1f64.sin()) * 2.0
}

/// `n` steps of size `h` of the rigid body `OneStep` on `G ⇉ {e}` with the chart `chart`.
macro_rules! run_group {
    ($chart:expr, $h:expr, $n:expr) => {{
        let flow = GroupoidIntegrator::new(GroupAsGroupoid::new(So3, $chart), ChartBodyFamily).with_properties(2, true);
        let mut s = LieState::new(g0(), mu0());
        flow.step_n(&mut s, $h, $n).unwrap();
        s
    }};
}

fn distance(a: &LieState<Matrix3<f64>, 3>, b: &LieState<Matrix3<f64>, 3>) -> f64 {
    (a.g - b.g).amax().max((a.mu - b.mu).amax())
}

#[test]
fn the_user_chart_passes_the_chart_checks_and_a_wrong_derivative_does_not() {
    let report = check_chart(&So3, &Pade22).unwrap();
    assert!(report.derivative < 1e-8 && report.inverse_symmetry < 1e-14, "{report:?}");
    let err = check_chart(&So3, &WrongDerivative).unwrap_err();
    assert!(err.to_string().contains("dtau does not match"), "{err}");
    // the groupoids' constructors are infallible and take any chart: a chart is validated by
    // check_chart (the integrators' constructors call it), the groupoid layer does not refuse it
    let gd = GroupAsGroupoid::new(So3, Pade22);
    assert_eq!(LieGroupoid::<f64, 3>::name(&gd), "SO(3) as a groupoid over a point (pade22)");
    let x = Vector3::new(0.3, -0.2, 0.4);
    let w = LieGroupoid::<f64, 3>::fibre_exp(&gd, &(), &x);
    assert!((w - GroupChart::<f64, So3, 3>::tau(&Pade22, &So3, &x).unwrap()).amax() == 0.0);
    assert!((w - so3::cayley(&x)).amax() > 1e-4 && (w - so3::exp(&x)).amax() > 1e-9);
    assert!((LieGroupoid::<f64, 3>::fibre_log(&gd, &w).unwrap() - x).amax() < 1e-14);
    let pg = PairOfGroup::new(So3, Pade22);
    let g = LieGroupoid::<f64, 3>::fibre_exp(&pg, &g0(), &x);
    assert!((g.1 - g0() * w).amax() < 1e-15);
    assert!((LieGroupoid::<f64, 3>::fibre_log(&pg, &g).unwrap() - x).amax() < 1e-13);
}

/// The DEL flow on `G ⇉ {e}` with the user's chart, as a `OneStep` driven by `step_n`: the
/// spatial angular momentum `g μ` and the Casimir `|μ|` are conserved to round-off, the
/// trajectory is not the Cayley or the exp one, and it converges to the exact motion at order 2.
#[test]
fn del_flow_on_the_group_with_the_user_chart() {
    let (h, n) = (0.05, 400);
    let flow = GroupoidIntegrator::new(GroupAsGroupoid::new(So3, Pade22), ChartBodyFamily).with_properties(2, true);
    assert_eq!(
        OneStep::<LieState<Matrix3<f64>, 3>>::name(&flow),
        "discrete Euler-Lagrange flow of chart-induced rigid body"
    );
    let mut s = LieState::new(g0(), mu0());
    let (m0, c0) = (s.g * s.mu, s.mu.norm());
    let energy = |mu: &Vector3<f64>| 0.5 * mu.component_div(&INERTIA).dot(mu);
    let e0 = energy(&s.mu);
    let (mut dm, mut dc, mut de) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..n {
        flow.step(&mut s, h).unwrap();
        dm = dm.max((s.g * s.mu - m0).amax());
        dc = dc.max((s.mu.norm() - c0).abs());
        de = de.max((energy(&s.mu) - e0).abs());
    }
    println!("pade22 on G: {n} steps of {h}: spatial momentum {dm:.2e}, |mu| {dc:.2e}, energy {de:.2e}");
    assert!(dm <= 1e-12 && dc <= 1e-12, "spatial momentum {dm:e}, Casimir {dc:e}");
    assert!(de < 1e-2 && de > 1e-8, "energy bounded, not exact: {de:e}");
    assert!(LieGroup::<f64, 3>::defect(&So3, &s.g) < 1e-13);

    // the chart is really used
    let t_end = h * n as f64;
    let cay = run_group!(Chart::Cayley, h, n);
    let exp = run_group!(Chart::Exp, h, n);
    let (d_cay, d_exp) = (distance(&s, &cay), distance(&s, &exp));
    println!("pade22 vs cayley {d_cay:.2e}, vs exp {d_exp:.2e} at t = {t_end}");
    assert!(d_cay > 1e-4 && d_exp > 1e-8 && d_exp < d_cay, "cayley {d_cay:e}, exp {d_exp:e}");

    // ... and converges to the exact motion at order 2 (reference: exp chart at h/64, T = 1)
    let (h, t) = (0.1, 1.0);
    let steps = |h: f64| (t / h).round() as usize;
    let reference = run_group!(Chart::Exp, h / 64.0, steps(h / 64.0));
    let e1 = distance(&run_group!(Pade22, h, steps(h)), &reference);
    let e2 = distance(&run_group!(Pade22, h / 2.0, steps(h / 2.0)), &reference);
    let e4 = distance(&run_group!(Pade22, h / 4.0, steps(h / 4.0)), &reference);
    let (p1, p2) = ((e1 / e2).log2(), (e2 / e4).log2());
    println!("pade22 errors at h = {h}, h/2, h/4: {e1:.3e} {e2:.3e} {e4:.3e}, observed orders {p1:.3} {p2:.3}");
    assert!((p1 - 2.0).abs() < 0.15 && (p2 - 2.0).abs() < 0.1, "orders {p1} {p2}");
}

/// The same flow on the pair groupoid `G × G` with the user's chart (state `(g, μ)` of `A*G`,
/// [`CotangentPoint`]): the arrows are those of `G ⇉ {e}` carried by the left trivialization
/// (a morphism, with the user's chart on both sides), the spatial momentum and `|μ|` are
/// conserved to round-off, and the chart is really used.
#[test]
fn del_flow_on_the_pair_groupoid_with_the_user_chart() {
    let (h, n) = (0.05, 400);
    let pg = PairOfGroup::new(So3, Pade22);
    let flow = GroupoidIntegrator::new(pg, ChartBodyFamily).with_properties(2, true);
    let on_group = GroupoidIntegrator::new(GroupAsGroupoid::new(So3, Pade22), ChartBodyFamily);
    let cayley = GroupoidIntegrator::new(PairOfGroup::new(So3, Chart::Cayley), ChartBodyFamily);
    let mut s = CotangentPoint::new(g0(), mu0());
    let mut r = LieState::new(g0(), mu0());
    let mut c = CotangentPoint::new(g0(), mu0());
    let (m0, c0) = (s.x * s.mu, s.mu.norm());
    let (mut dm, mut dc, mut dg) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..n {
        flow.step(&mut s, h).unwrap();
        on_group.step(&mut r, h).unwrap();
        cayley.step(&mut c, h).unwrap();
        dm = dm.max((s.x * s.mu - m0).amax());
        dc = dc.max((s.mu.norm() - c0).abs());
        dg = dg.max((s.x - r.g).amax()).max((s.mu - r.mu).amax());
    }
    let d_cay = (s.x - c.x).amax().max((s.mu - c.mu).amax());
    println!("pade22 on G x G: spatial momentum {dm:.2e}, |mu| {dc:.2e}, vs G {dg:.2e}, vs cayley {d_cay:.2e}");
    assert!(dm <= 1e-12 && dc <= 1e-12, "spatial momentum {dm:e}, Casimir {dc:e}");
    assert!(dg <= 1e-12, "pair and group flows differ by {dg:e}");
    assert!(d_cay > 1e-4, "the chart is not used: {d_cay:e}");

    // the left trivialization G × G → G with the user's chart is a morphism, AΨ = Id
    let lt = LeftTrivialization::new(So3, Pade22);
    let x = Vector3::new(0.2, -0.1, 0.3);
    let a = LieGroupoid::<f64, 3>::fibre_exp(&pg, &g0(), &x);
    let b = LieGroupoid::<f64, 3>::fibre_exp(&pg, &a.1, &Vector3::new(-0.1, 0.25, 0.05));
    assert!(morphism_defect(&lt, &a, &b).unwrap() < 1e-14);
    let psi = groupoid::morphism::algebroid_map(&lt, &g0()).unwrap();
    assert!((psi - Matrix3::identity()).amax() < 1e-14);
}

/// The heavy top on the action groupoid `S² × SO(3) ⇉ S²` with the user's chart, its kinetic
/// term induced by the chart: `L(Γ, W) = (1/2h) ξᵀ I ξ − (h/2)(V(Γ) + V(Wᵀ Γ))`, `ξ = τ^{-1}(W)`.
/// The vertical momentum `Γ·Π` and `|Γ| = 1` are conserved to round-off; the advected reduction
/// `SO(3) × SO(3) → S² × SO(3)` with the user's chart on both sides is a morphism.
#[test]
fn heavy_top_on_the_action_groupoid_with_the_user_chart() {
    type Top = ActionGroupoid<SphereRotation, Pade22>;
    struct ChartTop {
        h: f64,
        weight: Vector3<f64>,
    }
    impl DiscreteLagrangian<Top, 3> for ChartTop {
        fn eval<S: Scalar>(&self, gd: &Top, g: &(Vector3<S>, Matrix3<S>)) -> S {
            let Ok(xi) = LieGroupoid::<S, 3>::fibre_log(gd, g) else { return S::from(f64::NAN) };
            let chi = self.weight.map(S::from);
            let kinetic = xi.component_mul(&INERTIA.map(S::from)).dot(&xi) * S::from(0.5 / self.h);
            kinetic - (chi.dot(&g.0) + chi.dot(&(g.1.transpose() * g.0))) * S::from(0.5 * self.h)
        }
    }
    let h = 0.05;
    let ag: Top = ActionGroupoid::new(SphereRotation, Pade22);
    let flow = DiscreteFlow::new(ag, ChartTop { h, weight: Vector3::new(0.2, 0.1, 1.0) });
    let top = flow.lagrangian();
    let gamma0 = Vector3::<f64>::new(0.3, -0.2, 0.9).normalize();
    let mut g = (gamma0, GroupChart::<f64, So3, 3>::tau(&Pade22, &So3, &(Vector3::new(0.5, -1.0, 2.0) * h)).unwrap());
    let (mut dj, mut dn, mut del, mut j0) = (0.0f64, 0.0f64, 0.0f64, None);
    for _ in 0..2000 {
        let (next, _) = flow.step(&g).unwrap();
        // the DEL at the shared node: F^+L(g_k) = F^-L(g_{k+1})
        del = del.max((legendre_plus(&ag, top, &g) - legendre_minus(&ag, top, &next)).amax());
        let gamma = LieGroupoid::<f64, 3>::target(&ag, &g);
        let j = gamma.dot(&legendre_plus(&ag, top, &g));
        let j0 = *j0.get_or_insert(j);
        dj = dj.max((j - j0).abs());
        dn = dn.max((gamma.norm() - 1.0).abs());
        g = next;
    }
    println!("pade22 heavy top: 2000 steps, vertical momentum {dj:.2e}, |Gamma|-1 {dn:.2e}, DEL {del:.2e}");
    assert!(dj < 1e-11 && dn < 1e-13 && del < 1e-11, "{dj:e} {dn:e} {del:e}");

    let ar = AdvectedReduction::new(SphereRotation, Vector3::z(), Pade22);
    let pg = PairOfGroup::new(So3, Pade22);
    let a = LieGroupoid::<f64, 3>::fibre_exp(&pg, &g0(), &Vector3::new(0.2, -0.1, 0.3));
    let b = LieGroupoid::<f64, 3>::fibre_exp(&pg, &a.1, &Vector3::new(-0.1, 0.25, 0.05));
    assert!(morphism_defect(&ar, &a, &b).unwrap() < 1e-14);
    assert!((groupoid::morphism::algebroid_map(&ar, &g0()).unwrap() - Matrix3::identity()).amax() < 1e-14);
}

/// A chart with a wrong derivative fails `check_chart`; the groupoid takes it (its constructors
/// are infallible) and `dτ` enters only the Newton Jacobian (`GroupoidFamily::fibre_differential`),
/// so the DEL solutions are the same, found with more Newton iterations, or not at all.
#[test]
fn a_wrong_chart_derivative_only_reaches_the_newton_jacobian() {
    let h = 0.05;
    let good = DiscreteFlow::new(GroupAsGroupoid::new(So3, Pade22), ChartBody { h });
    let bad = DiscreteFlow::new(GroupAsGroupoid::new(So3, WrongDerivative), ChartBody { h });
    let mut w = GroupChart::<f64, So3, 3>::tau(&Pade22, &So3, &(mu0().component_div(&INERTIA) * h)).unwrap();
    let (mut it_good, mut it_bad, mut diff, mut failed) = (0usize, 0usize, 0.0f64, 0usize);
    for _ in 0..50 {
        let (next, report) = good.step(&w).unwrap();
        it_good += report.iterations;
        match bad.step(&w) {
            Ok((other, report)) => {
                it_bad += report.iterations;
                diff = diff.max((other - next).amax());
            }
            Err(_) => failed += 1,
        }
        w = next;
    }
    println!(
        "Newton iterations over 50 steps: pade22 {it_good}, wrong derivative {it_bad} ({failed} failures); arrows differ by {diff:.1e}"
    );
    assert!(failed > 0 || it_bad > it_good, "a wrong derivative must cost Newton iterations");
    assert!(diff < 1e-12);
}

// ---------------------------------------------------------------------------------------------
// The every-scalar interfaces: the same chart, made available at every scalar by one line.

geom_core::every_scalar_chart!(Pade22, So3, 3);
geom_core::every_scalar_chart!(WrongDerivative, So3, 3);

/// `ℓ(ξ) = ½ ξᵀ I ξ` on the algebra, `I = diag(2, 1, 2/3)`.
#[derive(Debug, Clone, Copy)]
struct ReducedBody;
impl geom_core::function::ScalarFunction<3> for ReducedBody {
    fn eval<S: Scalar>(&self, w: &SVector<S, 3>) -> S {
        let i = [2.0, 1.0, 2.0 / 3.0];
        (0..3).map(|k| w[k] * w[k] * S::from(i[k])).fold(S::from(0.0), |a, b| a + b) * S::from(0.5)
    }
}

/// `n` steps of the flow induced by `map` and `ℓ` on `SO(3) ⇉ {e}` with the chart `chart`
/// (`L_d^h = h ℓ(R_d^{-1}(W)/h)`, where `R_d` is built on the groupoid's chart at every scalar).
macro_rules! run_induced {
    ($chart:expr, $map:expr, $h:expr, $n:expr) => {{
        use groupoid::discretization_map::ReducedLagrangian;
        use groupoid::integrator::Induced;
        let family = Induced::new($map, ReducedLagrangian(ReducedBody));
        let flow = GroupoidIntegrator::new(GroupAsGroupoid::new(So3, $chart), family).with_properties(2, true);
        let mut s = LieState::new(g0(), mu0());
        flow.step_n(&mut s, $h, $n).unwrap();
        s
    }};
}

#[test]
fn the_every_scalar_interfaces_take_the_user_chart() -> Result<()> {
    use geom_core::action::LeftMultiplication;
    use groupoid::algebroid::check_groupoid_algebroid;
    use groupoid::control::{ControlCost, Unactuated};
    use groupoid::discretization_map::{FibreThetaMap, check_discretization_map};
    use groupoid::{Constraints, TrivialAtiyah};

    // (a) the fibre θ-maps built on the user's chart pass the public suite on three groupoids at
    // θ = 0 and 1 (exact with every chart); at θ = ½ the round trip needs τ(x/2)² = τ(x), which
    // only exp has: the Padé chart is refused there, as the Cayley chart is
    let r = so3::exp(&Vector3::new(0.3, -0.2, 0.5));
    for theta in [0.0, 1.0] {
        let m = FibreThetaMap::new(theta)?;
        check_discretization_map(&GroupAsGroupoid::new(So3, Pade22), &m, &[()], 1)?;
        check_discretization_map(&PairOfGroup::new(So3, Pade22), &m, &[r], 2)?;
        let atiyah = TrivialAtiyah::<So3, 2, 3, _>::new(So3, Pade22);
        check_discretization_map::<_, _, 5>(&atiyah, &m, &[SVector::from([0.1, 0.7])], 3)?;
    }
    let midpoint = check_discretization_map(&GroupAsGroupoid::new(So3, Pade22), &FibreThetaMap::midpoint(), &[()], 1);
    assert!(format!("{:?}", midpoint.unwrap_err()).contains("round trip"));
    // (b) the algebroids of the pair and action groupoids with the user's chart are the ones the
    // groupoids define (anchor (dτ_{−u})^{-1} of the Padé chart, against the groupoid's own)
    let pair = check_groupoid_algebroid::<_, 3, 3>(&PairOfGroup::new(So3, Pade22), &r, 4)?;
    let left = check_groupoid_algebroid::<_, 3, 3>(&ActionGroupoid::new(LeftMultiplication::new(So3), Pade22), &r, 5)?;
    println!(
        "algebroid defects: pair {:.1e}/{:.1e}, left action {:.1e}/{:.1e}",
        pair.anchor, pair.structure, left.anchor, left.structure
    );

    // (c) the flow induced by the θ = 0 map on the user's chart, L_d(W) = h ℓ(τ^{-1}(W)/h): a
    // Lie–Poisson integrator of the rigid body (Casimir |μ| and spatial momentum g μ kept),
    // different from the exp chart's, of order 2 (the Padé chart is symmetric, τ(−x) = τ(x)^{-1})
    let (h, n) = (0.05, 200);
    let s = run_induced!(Pade22, FibreThetaMap::chart(), h, n);
    let s0 = LieState::new(g0(), mu0());
    let casimir = (s.mu.norm() - s0.mu.norm()).abs();
    let spatial = (s.g * s.mu - s0.g * s0.mu).amax();
    let exp = run_induced!(Chart::Exp, FibreThetaMap::chart(), h, n);
    let apart = distance(&s, &exp);
    let fine = run_induced!(Pade22, FibreThetaMap::chart(), h / 2.0, 2 * n);
    let finer = run_induced!(Pade22, FibreThetaMap::chart(), h / 4.0, 4 * n);
    let order = (distance(&s, &fine) / distance(&fine, &finer)).log2();
    println!(
        "induced Padé flow (θ = 0): Casimir {casimir:.1e}, spatial {spatial:.1e}, from exp {apart:.1e}, order {order:.3}"
    );
    assert!(casimir < 1e-13 && spatial < 1e-12, "{casimir:e} {spatial:e}");
    assert!(apart > 1e-8, "the user's chart must be used: {apart:e} from the exp chart's flow");
    assert!((order - 2.0).abs() < 0.2, "order {order}");

    // (d) the control cost and the unactuated constraint read the user's chart at every scalar
    let gd = GroupAsGroupoid::new(So3, Pade22);
    let w = so3::exp(&Vector3::new(0.2, -0.1, 0.3));
    let u = GroupChart::<f64, So3, 3>::tau_inv(&Pade22, &So3, &w)?;
    let cost = ControlCost::<3>::uniform(0.1)?;
    let expected = u.norm_squared() / (2.0 * 0.1);
    assert!((DiscreteLagrangian::eval::<f64>(&cost, &gd, &w) - expected).abs() < 1e-14);
    let phi = Constraints::<_, 3, 1>::eval::<f64>(&Unactuated::<3, 1>::axes([2])?, &gd, &w);
    assert!((phi[0] - u[2]).abs() < 1e-15);
    // and it is not the exp chart's value
    assert!((u - LieGroup::<f64, 3>::log(&So3, &w)?).amax() > 1e-6);
    Ok(())
}

/// The Lagrange–Poincaré quotient `(R² × SO(3))² → (R² × R²) × SO(3)` with the user's chart on
/// `G`: the pair side takes the product chart `(v, ξ) ↦ (v, τ(ξ))`, so the morphism axioms hold
/// and `AΨ = Id` (the fibre coordinates of both sides match).
#[test]
fn the_atiyah_quotient_takes_the_user_chart() {
    use geom_core::lie::{Product, ProductChart, Rn};
    use groupoid::morphism::{AtiyahQuotient, GroupoidMorphism, algebroid_map};
    let aq = AtiyahQuotient::<So3, 2, 3, _, _>::with_chart(So3, Pade22);
    let pair = *GroupoidMorphism::<5, 5>::source_groupoid(&aq);
    let x0 = (nalgebra::Vector2::new(0.3, -0.4), g0());
    let a = LieGroupoid::<f64, 5>::fibre_exp(&pair, &x0, &SVector::from([0.1, 0.2, 0.2, -0.1, 0.3]));
    let b = LieGroupoid::<f64, 5>::fibre_exp(&pair, &a.1, &SVector::from([-0.2, 0.05, -0.1, 0.25, 0.05]));
    let defect = morphism_defect::<_, 5, 5>(&aq, &a, &b).unwrap();
    let a_psi = algebroid_map::<_, 5, 5>(&aq, &x0).unwrap();
    println!(
        "Atiyah quotient with the Padé chart: morphism defect {defect:.1e}, |AΨ − I| {:.1e}",
        (a_psi - SMatrix::<f64, 5, 5>::identity()).amax()
    );
    assert!(defect < 1e-14);
    assert!((a_psi - SMatrix::<f64, 5, 5>::identity()).amax() < 1e-12);
    // the product chart is the user's chart on the G factor (not exp)
    let q = Product::<Rn<2>, So3, 2, 3>::new(Rn, So3);
    let x = SVector::<f64, 5>::from([0.5, -1.0, 0.4, 0.2, -0.3]);
    let (_, r) = GroupChart::<f64, _, 5>::tau(&ProductChart(Chart::Exp, Pade22), &q, &x).unwrap();
    let pade = GroupChart::<f64, So3, 3>::tau(&Pade22, &So3, &Vector3::new(0.4, 0.2, -0.3)).unwrap();
    assert!((r - pade).amax() < 1e-15);
    assert!((r - so3::exp(&Vector3::new(0.4, 0.2, -0.3))).amax() > 1e-5);
}
