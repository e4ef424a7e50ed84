//! A chart written here, outside the crate: the diagonal (2, 2) Padé approximant of `exp` on
//! SO(3), `τ(x) = q(−X)^{-1} q(X)`, `q(X) = I + X/2 + X²/12`, `X = x̂` (a copy of the chart of
//! crates/integrators/tests/user_chart.rs). Written once over the scalar and passed with no
//! wrapper, it reaches every chart-taking item of the discretization crate: the Lie-group θ-map
//! and its cotangent lift (the reduced two-block θ system), the Lagrangian route and the discrete
//! Euler–Poincaré step, and the Lie–Poisson integrators.
//!
//! The conservation laws below hold for any chart (they follow from `μ_{k+1} = Ad*_W μ_k`); what
//! a wrong chart derivative `dτ` would break is the agreement with the paths that use `τ` alone
//! (the general four-block path of the AD map of the retraction `g τ(ξ)`, finite differences of
//! `τ`, the Legendre transforms against differences of `L_d`) and the order — each checked here,
//! with a chart whose `dτ` is the wrong trivialization as the negative control.

use discretization::checks::sample_algebra;
use discretization::lagrangian::{LieGroupDiscreteEulerLagrange, LieGroupDiscreteLagrangian};
use discretization::lie_function::{LieAutoDiff, LieFunction};
use discretization::{
    AdvectedFunction, AdvectedLiePoissonIntegrator, AdvectedState, DiscretizationMap, LieAutoDiffMap, LieChart,
    LieCotangentLiftIntegrator, LieGroupMap, LieGroupRetraction, LieGroupThetaMap, LieLagrangianIntegrator,
    LiePoissonIntegrator, LieState, OneStep, RetractionMap, ThetaChart, check_discretization_map,
    check_symmetry_preservation,
};
use geom_core::action::{LeftMultiplication, SphereRotation};
use geom_core::function::ScalarFunction;
use geom_core::lie::{Chart, GroupChart, LieGroup, So3, check_chart, so3};
use geom_core::step::testing::{check_poisson_map, lie_poisson_tensor};
use geom_core::{GeomError, Result, Scalar};
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

// ---------------------------------------------------------------------------------------------
// The chart.

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

/// Pade22 with the derivative of the wrong trivialization (`dτ_{-x}`, the left-trivialized one):
/// the negative control.
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

// ---------------------------------------------------------------------------------------------
// The models.

type State = LieState<Matrix3<f64>, 3>;
const INERTIA: [f64; 3] = [1.0, 5.0, 6.0];

/// Heavy top `H(R, Π) = ½ Πᵀ I⁻¹ Π + w e3 · R e3` (`w = 0`: the free rigid body).
#[derive(Debug, Clone, Copy)]
struct Top {
    weight: f64,
}
impl<S: Scalar> LieFunction<S, So3, 3> for Top {
    fn eval(&self, _: &So3, r: &Matrix3<S>, pi: &SVector<S, 3>) -> S {
        let kinetic = (0..3).fold(S::from(0.0), |acc, i| acc + pi[i] * pi[i] / S::from(INERTIA[i]));
        kinetic * S::from(0.5) + r[(2, 2)] * S::from(self.weight)
    }
}

/// Its Lagrangian `L(R, Ω) = ½ Ωᵀ I Ω - w e3 · R e3`.
#[derive(Debug, Clone, Copy)]
struct TopLagrangian {
    weight: f64,
}
impl<S: Scalar> LieFunction<S, So3, 3> for TopLagrangian {
    fn eval(&self, _: &So3, r: &Matrix3<S>, w: &SVector<S, 3>) -> S {
        let kinetic = (0..3).fold(S::from(0.0), |acc, i| acc + w[i] * w[i] * S::from(INERTIA[i]));
        kinetic * S::from(0.5) - r[(2, 2)] * S::from(self.weight)
    }
}

/// The reduced free-body Lagrangian `ℓ(Ω) = ½ Ωᵀ I Ω`.
#[derive(Debug, Clone, Copy)]
struct FreeBodyLagrangian;
impl ScalarFunction<3> for FreeBodyLagrangian {
    fn eval<S: Scalar>(&self, w: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |acc, i| acc + w[i] * w[i] * S::from(INERTIA[i])) * S::from(0.5)
    }
}

/// The reduced free-body Hamiltonian `h(Π) = ½ Πᵀ I⁻¹ Π`.
#[derive(Debug, Clone, Copy)]
struct FreeBody;
impl ScalarFunction<3> for FreeBody {
    fn eval<S: Scalar>(&self, p: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |acc, i| acc + p[i] * p[i] / S::from(INERTIA[i])) * S::from(0.5)
    }
}

/// The heavy top reduced on `so(3)* × R³`: `h(Π, Γ) = ½ Πᵀ I⁻¹ Π + Γ·e3`.
struct ReducedTop;
impl AdvectedFunction<3, 3> for ReducedTop {
    fn eval<S: Scalar>(&self, p: &SVector<S, 3>, gamma: &SVector<S, 3>) -> S {
        FreeBody.eval(p) + gamma[2]
    }
}

fn initial() -> State {
    LieState::new(So3.exp(&Vector3::new(0.4, -0.2, 0.1)), Vector3::new(0.6, 1.5, 2.5))
}

fn run<M: OneStep<State>>(method: &M, s0: State, h: f64, steps: usize, mut observe: impl FnMut(&State)) -> State {
    let mut s = s0;
    for _ in 0..steps {
        method.step(&mut s, h).unwrap();
        observe(&s);
    }
    s
}

fn gap(a: &State, b: &State) -> f64 {
    (a.g - b.g).amax().max((a.mu - b.mu).amax())
}

/// The θ-map of the user's chart (validated by `new`).
fn pade(theta: f64) -> LieGroupThetaMap<So3, 3, Pade22> {
    LieGroupThetaMap::<_, 3, _>::new(So3, theta, Pade22).unwrap()
}

/// The same map through the general path: the map of the retraction `g τ(ξ)` as a model with AD
/// derivatives, which uses `τ` alone (never the chart's `dτ`) and four Newton blocks.
fn pade_by_ad(theta: f64) -> LieAutoDiffMap<So3, RetractionMap<LieGroupRetraction<So3, 3, Pade22>>, 3> {
    LieAutoDiffMap::new(So3, RetractionMap::new(LieGroupRetraction::<_, 3, _>::new(So3, Pade22), theta).unwrap())
}

// ---------------------------------------------------------------------------------------------
// The θ-map.

#[test]
fn the_user_chart_is_neither_exp_nor_cayley() {
    let report = check_chart(&So3, &Pade22).unwrap();
    assert!(report.derivative < 1e-8 && report.inverse_symmetry < 1e-14, "{report:?}");
    let x = Vector3::new(0.3, -0.2, 0.4);
    let p = GroupChart::<f64, So3, 3>::tau(&Pade22, &So3, &x).unwrap();
    assert!((p - so3::cayley(&x)).amax() > 1e-4);
    let d_exp = (p - so3::exp(&x)).amax();
    assert!(d_exp < 1e-4 && d_exp > 1e-9, "{d_exp:e}");
}

#[test]
fn theta_maps_of_the_user_chart_are_discretization_maps() {
    let samples: Vec<(Matrix3<f64>, Vector3<f64>)> =
        sample_algebra::<3>(6, 1.5, 1).iter().map(|x| So3.exp(x)).zip(sample_algebra::<3>(6, 1.0, 51)).collect();
    let elements: Vec<Matrix3<f64>> = sample_algebra::<3>(4, 2.0, 2).iter().map(|x| So3.exp(x)).collect();
    for theta in [0.0, 0.3, 0.5, 1.0] {
        let map = pade(theta);
        assert_eq!(map.name(), format!("SO(3) pade22 theta-map (theta = {theta})"));
        let r = check_discretization_map(&map, &LieChart::new(So3), &samples).unwrap();
        assert!(r.zero_defect < 1e-14 && r.derivative_defect < 1e-8, "θ = {theta}: {r:?}");
        let s = check_symmetry_preservation(&map, &LeftMultiplication::new(So3), &elements, &samples).unwrap();
        assert!(s.max_defect < 1e-13, "θ = {theta}: {s:?}");
        let ad = pade_by_ad(theta);
        let (p0, p1) = (Vector3::new(0.3, -1.2, 0.7), Vector3::new(-0.4, 0.9, 1.1));
        for (g, xi) in &samples {
            // inverse ∘ apply = id (for 0 < θ < 1 the Newton solve with the chart's dτ, dτ^{-1})
            let (g0, g1) = map.apply(g, xi).unwrap();
            let (gi, xii) = map.inverse(&g0, &g1).unwrap();
            assert!(map.distance(&gi, g) < 1e-13 && (xii - xi).amax() < 1e-13, "θ = {theta}: inverse");
            // the closed-form blocks (the chart's dτ) equal AD through τ alone
            let (j1, j2) = (map.lie_jacobian(g, xi).unwrap(), ad.lie_jacobian(g, xi).unwrap());
            for (a, b) in [(j1.a1, j2.a1), (j1.b1, j2.b1), (j1.a2, j2.a2), (j1.b2, j2.b2)] {
                assert!((a - b).amax() < 1e-12, "θ = {theta}: {a} vs {b}");
            }
            let (c1, c2) =
                (map.covector_derivative(g, xi, &p0, &p1).unwrap(), ad.covector_derivative(g, xi, &p0, &p1).unwrap());
            for (a, b) in [(c1.ag, c2.ag), (c1.ax, c2.ax), (c1.bg, c2.bg), (c1.bx, c2.bx)] {
                assert!((a - b).amax() < 1e-11, "θ = {theta}: {a} vs {b}");
            }
        }
        // the adjoint is the (1-θ)-map of the same chart
        assert_eq!(map.adjoint().value(), 1.0 - theta);
        assert!(matches!(map.theta_chart(), Some((t, ThetaChart::User(_))) if t == theta));
    }
    // for 0 < θ < 1 the closed-form inverse of exp does not hold for this chart: Newton is needed
    let (g, xi) = (So3.exp(&Vector3::new(0.2, 0.1, -0.3)), Vector3::new(0.8, -0.4, 0.3));
    let (g0, g1) = pade(0.5).apply(&g, &xi).unwrap();
    let naive = GroupChart::<f64, So3, 3>::tau_inv(&Pade22, &So3, &(g0.transpose() * g1)).unwrap();
    assert!((naive - xi).amax() > 1e-4, "{naive} vs {xi}");
    // and the negative control: a chart with the wrong dτ is refused by the constructors
    for err in [
        LieGroupThetaMap::<_, 3, _>::new(So3, 0.5, WrongDerivative).unwrap_err(),
        LieLagrangianIntegrator::<_, _, 3, _>::new(
            So3,
            0.5,
            WrongDerivative,
            LieAutoDiff(TopLagrangian { weight: 1.0 }),
        )
        .unwrap_err(),
    ] {
        assert!(
            matches!(&err, GeomError::InvalidParameter { what: "chart", reason } if reason.contains("dtau")),
            "{err}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The cotangent lift: the reduced θ system with the user's chart.

#[test]
fn cotangent_lift_with_the_user_chart_conserves_casimir_and_spatial_momentum() {
    let free = Top { weight: 0.0 };
    let s0 = initial();
    let (casimir0, spatial0) = (s0.mu.norm_squared(), s0.g * s0.mu);
    for theta in [0.0, 0.5, 1.0] {
        let integ = LieCotangentLiftIntegrator::new(pade(theta), LieAutoDiff(free));
        assert_eq!(integ.name(), format!("cotangent lift of SO(3) pade22 theta-map (theta = {theta})"));
        let (mut dc, mut ds) = (0.0f64, 0.0f64);
        let a = run(&integ, s0, 0.05, 400, |s| {
            dc = dc.max((s.mu.norm_squared() - casimir0).abs());
            ds = ds.max((s.g * s.mu - spatial0).amax());
        });
        println!("θ = {theta}: Casimir drift {dc:e}, spatial momentum drift {ds:e}");
        assert!(dc <= 1e-12 && ds <= 1e-12, "θ = {theta}: Casimir {dc:e}, spatial momentum {ds:e}");
        // the chart is really used: the trajectory is neither Cayley's nor exp's (Padé agrees with
        // exp to O(|x|⁵), so that gap is small, but it is far above the round-off of the drifts)
        for chart in [Chart::Cayley, Chart::Exp] {
            let shipped =
                LieCotangentLiftIntegrator::new(LieGroupThetaMap::new(So3, theta, chart).unwrap(), LieAutoDiff(free));
            let d = gap(&a, &run(&shipped, s0, 0.05, 400, |_| {}));
            println!("θ = {theta}: Padé vs {chart:?} after 400 steps: {d:e}");
            assert!(d > 1e-8, "θ = {theta}, {chart:?}: {d:e}");
        }
    }
}

#[test]
fn the_reduced_theta_system_of_the_user_chart_equals_the_general_path() {
    // heavy top: D_g H ≠ 0, so every term of the two-block system (and its Newton matrix) is used
    let top = Top { weight: 1.0 };
    let s0 = initial();
    let vertical0 = (s0.g * s0.mu)[2];
    for theta in [0.0, 0.3, 0.5, 1.0] {
        let fast = LieCotangentLiftIntegrator::new(pade(theta), LieAutoDiff(top));
        let general = LieCotangentLiftIntegrator::new(pade_by_ad(theta), LieAutoDiff(top));
        // the retraction map of the user's chart is the θ-map too (closed form, reduced system)
        let retraction = RetractionMap::new(LieGroupRetraction::<_, 3, _>::new(So3, Pade22), theta).unwrap();
        assert!(matches!(LieGroupMap::<So3, 3>::theta_chart(&retraction), Some((_, ThetaChart::User(_)))));
        let via_retraction = LieCotangentLiftIntegrator::new(retraction, LieAutoDiff(top));
        let boxed: Box<dyn LieGroupMap<So3, 3, Point = Matrix3<f64>, Tangent = Vector3<f64>>> = Box::new(pade(theta));
        let dynamic = LieCotangentLiftIntegrator::new(boxed, LieAutoDiff(top));
        let mut dv = 0.0f64;
        let a = run(&fast, s0, 0.05, 200, |s| dv = dv.max(((s.g * s.mu)[2] - vertical0).abs()));
        let d_general = gap(&a, &run(&general, s0, 0.05, 200, |_| {}));
        let d_retraction = gap(&a, &run(&via_retraction, s0, 0.05, 200, |_| {}));
        let d_boxed = gap(&a, &run(&dynamic, s0, 0.05, 200, |_| {}));
        println!(
            "θ = {theta}: vertical momentum drift {dv:e}; reduced vs general path {d_general:e}, vs retraction map \
             {d_retraction:e}, vs boxed {d_boxed:e}"
        );
        assert!(dv <= 1e-12, "θ = {theta}: vertical momentum {dv:e}");
        assert!(d_general < 1e-11, "θ = {theta}: reduced vs general path {d_general:e}");
        assert!(d_retraction < 1e-13 && d_boxed < 1e-13, "θ = {theta}: {d_retraction:e}, {d_boxed:e}");
    }
    // negative control: the wrong dτ in the reduced system gives another (wrong) flow
    let wrong = LieGroupThetaMap::<_, 3, _>::midpoint(So3, WrongDerivative);
    let a = run(&LieCotangentLiftIntegrator::new(wrong, LieAutoDiff(top)), s0, 0.05, 200, |_| {});
    let b = run(&LieCotangentLiftIntegrator::new(pade_by_ad(0.5), LieAutoDiff(top)), s0, 0.05, 200, |_| {});
    let d = gap(&a, &b);
    println!("wrong dτ vs general path: {d:e}");
    assert!(d > 1e-3, "a wrong chart derivative must change the flow: {d:e}");
}

/// `log2(e(h)/e(h/2))` at `t = 2` against the same method at `h/64`.
fn measured_order<M: OneStep<State>>(method: &M, h: f64) -> (f64, f64, f64) {
    let s0 = initial();
    let at = |h: f64| run(method, s0, h, (2.0 / h).round() as usize, |_| {});
    let reference = at(h / 64.0);
    let (e1, e2) = (gap(&at(h), &reference), gap(&at(h / 2.0), &reference));
    ((e1 / e2).log2(), e1, e2)
}

#[test]
fn the_user_chart_midpoint_has_order_two() {
    let top = Top { weight: 1.0 };
    let (p, e1, e2) = measured_order(&LieCotangentLiftIntegrator::new(pade(0.5), LieAutoDiff(top)), 0.1);
    println!("θ = 1/2: order {p:.3} (errors {e1:e}, {e2:e})");
    assert!((p - 2.0).abs() < 0.15, "θ = 1/2: measured order {p} ({e1:e}, {e2:e})");
    // the θ = 0 map is order 1 on the heavy top (H depends on g)
    let (p, e1, e2) = measured_order(&LieCotangentLiftIntegrator::new(pade(0.0), LieAutoDiff(top)), 0.1);
    println!("θ = 0: order {p:.3} (errors {e1:e}, {e2:e})");
    assert!((p - 1.0).abs() < 0.15, "θ = 0: measured order {p} ({e1:e}, {e2:e})");
    // the wrong dτ is not even consistent at order 2
    let wrong =
        LieCotangentLiftIntegrator::new(LieGroupThetaMap::<_, 3, _>::midpoint(So3, WrongDerivative), LieAutoDiff(top));
    let (p, e1, e2) = measured_order(&wrong, 0.1);
    println!("wrong dτ: order {p:.3} (errors {e1:e}, {e2:e})");
    assert!(p < 1.5, "wrong dτ: measured order {p}");
}

// ---------------------------------------------------------------------------------------------
// The Lagrangian route and the discrete Euler–Poincaré step.

#[test]
fn lagrangian_route_with_the_user_chart_equals_the_hamiltonian_route() {
    let s0 = initial();
    for (weight, theta) in [(1.0, 0.5), (1.0, 0.3), (0.0, 0.5), (1.0, 1.0)] {
        let ham = LieCotangentLiftIntegrator::new(pade(theta), LieAutoDiff(Top { weight }));
        let lag = LieLagrangianIntegrator::new(So3, theta, Pade22, LieAutoDiff(TopLagrangian { weight })).unwrap();
        assert!(lag.name().contains("pade22"));
        let d = gap(&run(&ham, s0, 0.05, 200, |_| {}), &run(&lag, s0, 0.05, 200, |_| {}));
        println!("weight {weight}, θ = {theta}: Hamiltonian vs Lagrangian route {d:e}");
        assert!(d < 1e-12, "weight {weight}, θ = {theta}: {d:e}");
    }
}

#[test]
fn discrete_euler_poincare_with_the_user_chart() {
    let s0 = initial();
    let h = 0.1;
    let dep = LieGroupDiscreteEulerLagrange::<_, _, 3, _>::new(So3, Pade22, FreeBodyLagrangian);
    assert_eq!(dep.name(), "discrete Euler-Poincare on SO(3) (pade22)");
    let (casimir0, spatial0) = (s0.mu.norm_squared(), s0.g * s0.mu);
    let (mut dc, mut ds) = (0.0f64, 0.0f64);
    let a = run(&dep, s0, h, 400, |s| {
        dc = dc.max((s.mu.norm_squared() - casimir0).abs());
        ds = ds.max((s.g * s.mu - spatial0).amax());
    });
    println!("DEP (Padé): Casimir drift {dc:e}, spatial momentum drift {ds:e}");
    assert!(dc <= 1e-12 && ds <= 1e-12, "Casimir {dc:e}, spatial momentum {ds:e}");
    // L_d = h ℓ(τ^{-1}(g_0^{-1} g_1)/h) is the discrete Lagrangian of the θ-maps with θ ∈ {0, 1}
    // (W = τ(ξ) exactly): their cotangent lifts are this flow. The midpoint is not
    // (τ(ξ/2)² ≠ τ(ξ) for this chart, as for Cayley; equal for exp only).
    let free = Top { weight: 0.0 };
    for theta in [0.0, 1.0] {
        let lift = LieCotangentLiftIntegrator::new(pade(theta), LieAutoDiff(free));
        let d = gap(&a, &run(&lift, s0, h, 400, |_| {}));
        println!("DEP vs θ = {theta} lift: {d:e}");
        assert!(d < 1e-11, "DEP vs the θ = {theta} map: {d:e}");
    }
    let midpoint = LieCotangentLiftIntegrator::new(pade(0.5), LieAutoDiff(free));
    let d = gap(&a, &run(&midpoint, s0, h, 400, |_| {}));
    println!("DEP vs midpoint lift: {d:e}");
    assert!(d > 1e-6, "DEP vs the midpoint map: {d:e}");
    // symmetric: Φ_{-h} ∘ Φ_h = id
    let mut t = s0;
    dep.step(&mut t, h).unwrap();
    dep.step(&mut t, -h).unwrap();
    assert!(gap(&t, &s0) < 1e-13, "{:e}", gap(&t, &s0));
    // the Legendre transforms of L_d (the chart's dτ^{-1}) reproduce both momenta and are the
    // left-trivialized derivatives of L_d (central differences of the value, τ^{-1} alone)
    let next = dep.advance(&s0, h).unwrap();
    let ld: &LieGroupDiscreteLagrangian<So3, FreeBodyLagrangian, 3, Pade22> = dep.discrete_lagrangian();
    let (m0, m1) = ld.legendre(&s0.g, &next.g, h).unwrap();
    assert!((m0 - s0.mu).amax() < 1e-13 && (m1 - next.mu).amax() < 1e-13);
    let eps = 1e-6;
    for k in 0..3 {
        let e = Vector3::from_fn(|i, _| if i == k { eps } else { 0.0 });
        let d0 = (ld.value(&(s0.g * So3.exp(&e)), &next.g, h).unwrap()
            - ld.value(&(s0.g * So3.exp(&-e)), &next.g, h).unwrap())
            / (2.0 * eps);
        let d1 = (ld.value(&s0.g, &(next.g * So3.exp(&e)), h).unwrap()
            - ld.value(&s0.g, &(next.g * So3.exp(&-e)), h).unwrap())
            / (2.0 * eps);
        assert!((m0[k] + d0).abs() < 1e-7 && (m1[k] - d1).abs() < 1e-7, "μ_0[{k}] {} vs {}", m0[k], -d0);
    }
    // negative control: the wrong dτ (hence dτ^{-1}) gives Legendre transforms that are not
    // the derivatives of L_d
    let wrong = LieGroupDiscreteLagrangian::<_, _, 3, _>::new(So3, WrongDerivative, FreeBodyLagrangian);
    let (w0, _) = wrong.legendre(&s0.g, &next.g, h).unwrap();
    assert!((w0 - m0).amax() > 1e-3, "{w0} vs {m0}");
}

// ---------------------------------------------------------------------------------------------
// Lie–Poisson reduction.

#[test]
fn lie_poisson_integrators_with_the_user_chart_preserve_the_casimirs() {
    let mu0 = Vector3::new(0.3, -1.1, 0.8);
    let h = 0.05;
    let lp = LiePoissonIntegrator::new(LieGroupThetaMap::<_, 3, _>::midpoint(So3, Pade22), FreeBody);
    let cayley = LiePoissonIntegrator::new(LieGroupThetaMap::<_, 3>::midpoint(So3, Chart::Cayley), FreeBody);
    let unreduced = LieCotangentLiftIntegrator::new(pade(0.5), LieAutoDiff(Top { weight: 0.0 }));
    let (mut a, mut c) = (mu0, mu0);
    let mut s = LieState::new(Matrix3::identity(), mu0);
    let (mut casimir, mut projection) = (0.0f64, 0.0f64);
    for _ in 0..400 {
        lp.step(&mut a, h).unwrap();
        cayley.step(&mut c, h).unwrap();
        unreduced.step(&mut s, h).unwrap();
        casimir = casimir.max((a.norm_squared() - mu0.norm_squared()).abs());
        projection = projection.max((a - s.mu).amax());
    }
    let d_cayley = (a - c).amax();
    println!("Lie–Poisson (Padé): Casimir drift {casimir:e}, vs unreduced {projection:e}, vs Cayley {d_cayley:e}");
    assert!(casimir < 1e-13, "Casimir drift {casimir:e}");
    assert!(projection < 1e-12, "reduced vs unreduced: {projection:e}");
    assert!(d_cayley > 1e-6, "Padé vs Cayley: {d_cayley:e}");
    // reconstruction: W_k is the unreduced step from the identity
    let (mu1, w) = lp.advance::<So3, 3>(&mu0, h).unwrap();
    let one = unreduced.advance(&LieState::new(Matrix3::identity(), mu0), h).unwrap();
    assert!((w - one.g).amax() < 1e-14 && (mu1 - one.mu).amax() < 1e-14);
    // a Poisson map of the Lie–Poisson tensor
    let defect = check_poisson_map(&lp, &mu0, h, lie_poisson_tensor::<3>(|a, b| a.cross(b))).unwrap();
    assert!(defect < 1e-8, "Lie–Poisson tensor defect {defect:e}");

    // the heavy top on so(3)* × R³ (the unreduced integrator with the user's chart, from e)
    let top = AdvectedLiePoissonIntegrator::new(
        LieGroupThetaMap::<_, 3, _>::midpoint(So3, Pade22),
        ReducedTop,
        SphereRotation,
    );
    let mut x = AdvectedState::new(mu0, Vector3::new(0.2, -0.3, 0.9).normalize());
    let (gamma0, pairing0) = (x.gamma.norm_squared(), x.mu.dot(&x.gamma));
    let (mut dg, mut dp) = (0.0f64, 0.0f64);
    for _ in 0..400 {
        top.step(&mut x, h).unwrap();
        dg = dg.max((x.gamma.norm_squared() - gamma0).abs());
        dp = dp.max((x.mu.dot(&x.gamma) - pairing0).abs());
    }
    println!("advected (Padé): |Γ|² drift {dg:e}, Π·Γ drift {dp:e}");
    assert!(dg < 1e-13 && dp < 1e-12, "|Γ|² {dg:e}, Π·Γ {dp:e}");
}
