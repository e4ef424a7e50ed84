//! Discretization maps `R_d: AG → G` on the ready-made groupoids and the discrete Lagrangians
//! `L_d = h L ∘ R_d^{-1}` they induce (docs/math.md §C.8.3–C.8.4):
//!
//! * every shipped map passes `check_discretization_map`; maps that break the identity or the
//!   derivative condition, and a Cayley θ-map whose closed-form inverse is wrong, are rejected;
//! * (a) the free rigid body on `SO(3) ⇉ {e}`: `DiscreteFlow` and `DiscreteHamiltonianFlow` of
//!   the induced `L_d` equal the discrete Euler–Poincaré flow of the `discretization` crate with
//!   the same `L_d` (exp and Cayley charts), `|Π|` and the spatial momentum are conserved, the
//!   energy bounded;
//! * (b) Kepler and a nonlinear map on `R² × R²`: equal to the `discretization` crate's induced
//!   integrators (Lagrangian and Hamiltonian routes);
//! * (c) the heavy top on `S² × SO(3) ⇉ S²`: vertical momentum `Γ·Π` at round-off, `|Γ| = 1`,
//!   energy bounded, and the unreduced flow on `SO(3) × SO(3)` with the same construction maps
//!   onto it under the reduction morphism (discretization commutes with reduction);
//! * bad input: arrows off the groupoid, velocities beyond the domain of `R_d^{-1}`, a
//!   singular Cayley arrow and a zero step are typed errors and leave the state as it was.

use discretization::LieState;
use discretization::autodiff_map::{AutoDiffMap, MapModel};
use discretization::lagrangian::{DiscreteEulerLagrange, LieGroupDiscreteEulerLagrange};
use discretization::retraction::{EuclideanRetraction, RetractionMap};
use discretization::{CotangentLiftIntegrator, DiscretizationMap, LieGroupThetaMap, OneStep, PhaseState, ThetaMap};
use geom_core::action::{Diagonal, LeftMultiplication, RightMultiplication, RotationAction, SphereRotation};
use geom_core::function::{AutoDiff, PhaseSpaceFunction, ScalarFunction};
use geom_core::lie::{Chart, LieGroup, Se3, So3, so3};
use geom_core::{GeomError, Result, Scalar};
use groupoid::discretization_map::{
    AlgebroidDiscretization, AlgebroidLagrangian, FibreThetaMap, InducedFlow, InducedLagrangian, ReducedLagrangian,
    TangentLagrangian, check_discretization_map,
};
use groupoid::every_scalar::EveryScalarGroupoid;
use groupoid::morphism::{AdvectedReduction, GroupoidMorphism, element_distance};
use groupoid::{
    ActionGroupoid, DiscreteHamiltonianFlow, GroupAsGroupoid, LieGroupoid, PairGroupoid, PairOfGroup, SpherePair,
    TrivialAtiyah, legendre_minus, legendre_plus,
};
use nalgebra::{Matrix3, Matrix4, SVector, Vector2, Vector3, Vector5};

fn rot(x: f64, y: f64, z: f64) -> Matrix3<f64> {
    so3::exp(&Vector3::new(x, y, z))
}

/// `R_d(x, v) = (x − v/2 + c|v|² w, x + v/2 + c|v|² w)`: a nonlinear discretization map on `R²`
/// (`R_d(x, 0) = (x, x)`, `T R² − T R¹ = I`), whose inverse needs Newton.
#[derive(Debug, Clone, Copy)]
struct Bent(f64);
impl MapModel<2> for Bent {
    fn name(&self) -> String {
        "bent midpoint".into()
    }
    fn eval<S: Scalar>(&self, x: &SVector<S, 2>, v: &SVector<S, 2>) -> (SVector<S, 2>, SVector<S, 2>) {
        let shift = Vector2::new(S::from(0.3), S::from(-0.7)) * (v.norm_squared() * S::from(self.0));
        let half = v * S::from(0.5);
        (x - half + shift, x + half + shift)
    }
    fn is_symmetric(&self) -> bool {
        true
    }
}

/// `(x − v/2, x + v)`: `T R² − T R¹ = 3/2 I`, not a discretization map.
#[derive(Debug, Clone, Copy)]
struct Lopsided;
impl MapModel<2> for Lopsided {
    fn name(&self) -> String {
        "lopsided".into()
    }
    fn eval<S: Scalar>(&self, x: &SVector<S, 2>, v: &SVector<S, 2>) -> (SVector<S, 2>, SVector<S, 2>) {
        (x - v * S::from(0.5), x + v)
    }
}

/// A map built on the fibre chart, `exp_x(s a + c)`: `s ≠ 1` breaks the derivative condition,
/// `c ≠ 0` the identity at zero.
#[derive(Debug, Clone, Copy)]
struct Skewed {
    scale: f64,
    offset: f64,
}
impl<Gd: EveryScalarGroupoid<R>, const R: usize> AlgebroidDiscretization<Gd, R> for Skewed {
    fn name(&self) -> String {
        format!("exp_x({} a + {})", self.scale, self.offset)
    }
    fn apply<S: Scalar>(&self, groupoid: &Gd, x: &Gd::Base<S>, a: &SVector<S, R>) -> Result<Gd::Element<S>> {
        let shifted = a * S::from(self.scale) + SVector::repeat(S::from(self.offset));
        Ok(groupoid.at::<S>().fibre_exp(x, &shifted))
    }
    fn inverse<S: Scalar>(&self, groupoid: &Gd, g: &Gd::Element<S>) -> Result<(Gd::Base<S>, SVector<S, R>)> {
        let gd = groupoid.at::<S>();
        let a = (gd.fibre_log(g)? - SVector::repeat(S::from(self.offset))) / S::from(self.scale);
        Ok((gd.source(g), a))
    }
}

fn assert_rejected(result: Result<impl std::fmt::Debug>, property: &str) {
    match result {
        Err(GeomError::InvalidParameter { reason, .. }) => assert!(reason.contains(property), "{reason}"),
        other => panic!("expected the {property} to fail, got {other:?}"),
    }
}

#[test]
fn shipped_maps_pass_and_broken_maps_are_rejected() -> Result<()> {
    let mut worst = 0.0f64;
    let mut record = |r: groupoid::discretization_map::DiscretizationMapReport| {
        worst = worst.max(r.identity).max(r.derivative).max(r.round_trip).max(r.inverse_derivative);
    };
    let pts3 = [Vector3::new(0.5, -1.0, 2.0), Vector3::new(-3.0, 0.1, 0.0)];
    for theta in [0.0, 0.3, 0.5, 1.0] {
        let m = FibreThetaMap::new(theta)?;
        record(check_discretization_map(&PairGroupoid::<3>, &m, &pts3, 1)?);
        record(check_discretization_map(&PairOfGroup::new(So3, Chart::Exp), &m, &[rot(0.3, -0.2, 0.5)], 2)?);
        record(check_discretization_map(&GroupAsGroupoid::new(Se3, Chart::Exp), &m, &[()], 3)?);
        let top = ActionGroupoid::new(SphereRotation, Chart::Exp);
        record(check_discretization_map(&top, &m, &[Vector3::new(0.3, -0.2, 0.9).normalize(), Vector3::z()], 4)?);
        let at = TrivialAtiyah::<So3, 2, 3>::new(So3, Chart::Exp);
        record(check_discretization_map::<_, _, 5>(&at, &m, &[Vector2::new(0.1, 0.7)], 5)?);
        // a group acting on itself, and two particles rotated together
        let left = ActionGroupoid::new(LeftMultiplication::new(So3), Chart::Exp);
        record(check_discretization_map(&left, &m, &[rot(0.3, -0.2, 0.5), Matrix3::identity()], 12)?);
        let right = ActionGroupoid::new(RightMultiplication::new(Se3), Chart::Exp);
        let x: Matrix4<f64> =
            LieGroup::<f64, 6>::tau(&Se3, Chart::Exp, &SVector::from([0.1, -0.2, 0.3, 1.0, -2.0, 0.5]))?;
        record(check_discretization_map(&right, &m, &[x], 13)?);
        let pair = ActionGroupoid::new(Diagonal::<_, 3, 2, 6>::new(RotationAction), Chart::Exp);
        record(check_discretization_map(&pair, &m, &[SVector::from([1.0, 0.0, 0.5, -0.3, 2.0, 0.1])], 14)?);
    }
    // θ = 0 is exact with every fibre chart, θ = 1 with charts built from a group chart: the
    // Cayley chart passes there, and the normalisation chart of S² × S² at θ = 0
    let sphere = [Vector3::new(0.3, -0.2, 0.9).normalize()];
    record(check_discretization_map(&SpherePair, &FibreThetaMap::chart(), &sphere, 11)?);
    assert_rejected(check_discretization_map(&SpherePair, &FibreThetaMap::midpoint(), &sphere, 11), "round trip");
    for theta in [0.0, 1.0] {
        let m = FibreThetaMap::new(theta)?;
        record(check_discretization_map(&GroupAsGroupoid::new(So3, Chart::Cayley), &m, &[()], 6)?);
        record(check_discretization_map(&PairOfGroup::new(So3, Chart::Cayley), &m, &[rot(0.1, 0.2, 0.3)], 7)?);
    }
    // the discretization crate's maps on the pair groupoid
    let pts2 = [Vector2::new(0.4, -1.0), Vector2::new(2.0, 0.3)];
    for t in [0.0, 0.25, 0.5] {
        record(check_discretization_map(&PairGroupoid::<2>, &ThetaMap::<2>::new(t)?, &pts2, 8)?);
    }
    record(check_discretization_map(&PairGroupoid::<2>, &AutoDiffMap::<_, 2>(Bent(0.4)), &pts2, 9)?);
    let retraction = AutoDiffMap::<_, 2>(RetractionMap::new(EuclideanRetraction::<2>, 0.3)?);
    record(check_discretization_map(&PairGroupoid::<2>, &retraction, &pts2, 10)?);
    assert!(worst < 1e-13, "largest defect of a shipped map {worst:e}");

    // the fibre θ-map on G × G is the Lie-group θ-map of the discretization crate (§A.3)
    let pg = PairOfGroup::new(So3, Chart::Cayley);
    let lie = LieGroupThetaMap::new(So3, 0.3, Chart::Cayley)?;
    let (g, xi) = (rot(0.2, 0.1, -0.4), Vector3::new(0.3, -0.5, 0.2));
    let (a0, a1) = FibreThetaMap::new(0.3)?.apply::<f64>(&pg, &g, &xi)?;
    let (b0, b1) = DiscretizationMap::apply(&lie, &g, &xi)?;
    assert!((a0 - b0).norm() + (a1 - b1).norm() < 1e-15);

    // broken maps
    let so3g = GroupAsGroupoid::new(So3, Chart::Exp);
    assert_rejected(
        check_discretization_map(&so3g, &Skewed { scale: 2.0, offset: 0.0 }, &[()], 1),
        "derivative condition",
    );
    assert_rejected(
        check_discretization_map(&so3g, &Skewed { scale: 1.0, offset: 0.01 }, &[()], 1),
        "identity at zero",
    );
    let top = ActionGroupoid::new(SphereRotation, Chart::Exp);
    assert_rejected(
        check_discretization_map(&top, &Skewed { scale: 0.5, offset: 0.0 }, &[Vector3::z()], 1),
        "derivative condition",
    );
    assert_rejected(
        check_discretization_map(&PairGroupoid::<2>, &AutoDiffMap::<_, 2>(Lopsided), &pts2, 1),
        "derivative condition",
    );
    // Cayley with 0 < θ < 1: τ(θξ)τ((1−θ)ξ) ≠ cay(ξ), the closed-form inverse is not exact
    let cay = GroupAsGroupoid::new(So3, Chart::Cayley);
    assert_rejected(check_discretization_map(&cay, &FibreThetaMap::midpoint(), &[()], 1), "round trip");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// (a) The free rigid body on SO(3) ⇉ {e}.

const INERTIA: [f64; 3] = [1.0, 2.0, 3.5];

/// `ℓ(ξ) = ½ ξᵀ I ξ`.
#[derive(Debug, Clone, Copy)]
struct Body;
impl ScalarFunction<3> for Body {
    fn eval<S: Scalar>(&self, w: &SVector<S, 3>) -> S {
        (0..3).map(|i| w[i] * w[i] * S::from(INERTIA[i])).fold(S::from(0.0), |a, b| a + b) * S::from(0.5)
    }
}

fn energy(pi: &Vector3<f64>) -> f64 {
    (0..3).map(|i| pi[i] * pi[i] / INERTIA[i]).sum::<f64>() * 0.5
}

#[test]
fn rigid_body_equals_the_discrete_euler_poincare_flow() -> Result<()> {
    let h = 0.05;
    for (chart, map) in [
        (Chart::Exp, FibreThetaMap::midpoint()),
        (Chart::Exp, FibreThetaMap::chart()),
        (Chart::Cayley, FibreThetaMap::chart()),
    ] {
        let gd = GroupAsGroupoid::new(So3, chart);
        let induced = InducedLagrangian::new(map, ReducedLagrangian(Body), h)?;
        let reference = LieGroupDiscreteEulerLagrange::<_, _, 3>::new(So3, chart, Body);
        let mut state = LieState::new(rot(0.3, -0.5, 0.2), Vector3::new(1.0, 0.6, -0.4));
        let (casimir, spatial, e0) = (state.mu.norm(), state.g * state.mu, energy(&state.mu));

        // Hamiltonian flow on A*G = so(3)*: (μ_k) ↦ (μ_{k+1}), the arrow W_k = g_k^{-1} g_{k+1}
        let ham = DiscreteHamiltonianFlow::new(gd, induced);
        // Lagrangian flow on G from the first arrow
        let lag = InducedFlow::new(gd, map, ReducedLagrangian(Body), h)?;
        let (mut mu, mut g) = (state.mu, state.g);
        let mut guess = Vector3::zeros();
        let mut w = Matrix3::identity();
        let (mut d_ham, mut d_lag, mut dc, mut ds, mut de) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for k in 0..200 {
            let next = reference.advance(&state, h)?;
            let ((), mu1, w_k) = ham.step(&(), &mu, &guess)?;
            guess = LieGroupoid::<f64, 3>::fibre_log(&gd, &w_k)?;
            let g1 = g * w_k;
            d_ham = d_ham.max((mu1 - next.mu).amax()).max((g1 - next.g).amax());
            // the Lagrangian flow: W_0 from the Hamiltonian step, then F^-L(W_{k+1}) = F^+L(W_k)
            w = if k == 0 { w_k } else { lag.step(&w)?.0 };
            d_lag = d_lag.max((w - state.g.transpose() * next.g).amax());
            d_lag = d_lag.max((legendre_plus(&gd, lag.lagrangian(), &w) - next.mu).amax());
            (mu, g, state) = (mu1, g1, next);
            dc = dc.max((mu.norm() - casimir).abs());
            ds = ds.max((g * mu - spatial).amax());
            de = de.max((energy(&mu) - e0).abs());
        }
        println!(
            "{chart:?} θ = {}: |Δ| Hamiltonian {d_ham:.1e}, Lagrangian {d_lag:.1e}; |Π| {dc:.1e}, spatial {ds:.1e}, energy {de:.1e}",
            map.theta()
        );
        assert!(d_ham <= 1e-12 && d_lag <= 1e-12, "{chart:?}: flows differ by {d_ham:e}, {d_lag:e}");
        assert!(dc < 1e-13, "{chart:?}: |Π| drifts by {dc:e}");
        assert!(ds < 1e-12, "{chart:?}: spatial momentum drifts by {ds:e}");
        // the energy is not a conserved quantity of the discrete flow, but stays bounded, O(h²)
        assert!(de > 1e-9 && de < 1e-2, "{chart:?}: energy error {de:e}");
        // the induced L_d is the crate's L_d = h ℓ(τ^{-1}(W)/h)
        let value = InducedLagrangian::new(map, ReducedLagrangian(Body), h)?.value(&gd, &w)?;
        let expected = reference.discrete_lagrangian().value(&Matrix3::identity(), &w, h)?;
        assert!((value - expected).abs() < 1e-14);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// (b) The pair groupoid of R²: Kepler with the midpoint map, a pendulum with a nonlinear map.

/// Kepler `L(q, v) = |v|²/2 + 1/|q|` (as a `PhaseSpaceFunction` in `(q, v)`).
#[derive(Debug, Clone, Copy)]
struct KeplerL;
impl PhaseSpaceFunction<2> for KeplerL {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, v: &SVector<S, 2>) -> S {
        v.norm_squared() * S::from(0.5) + q.norm().recip()
    }
}
/// Its Hamiltonian `H = |p|²/2 − 1/|q|`.
#[derive(Debug, Clone, Copy)]
struct KeplerH;
impl PhaseSpaceFunction<2> for KeplerH {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip()
    }
}

/// Runs `steps` steps of the groupoid flows of `L_d = h L ∘ R_d^{-1}` on `R² × R²` against the
/// `discretization` crate's Lagrangian route; returns the largest differences in `(q, p)` of the
/// Lagrangian (`DiscreteFlow`) and Hamiltonian (`DiscreteHamiltonianFlow`) flows.
fn pair_against_discretization<Rd, L>(
    map: Rd,
    lagrangian: L,
    start: PhaseState<2>,
    h: f64,
    steps: usize,
) -> Result<(f64, f64, PhaseState<2>)>
where
    Rd: AlgebroidDiscretization<PairGroupoid<2>, 2> + discretization::EuclideanMap<2> + Clone,
    L: PhaseSpaceFunction<2> + Clone,
{
    let pg = PairGroupoid::<2>;
    let reference = DiscreteEulerLagrange::new(map.clone(), lagrangian.clone());
    let flow = InducedFlow::new(pg, map.clone(), TangentLagrangian(lagrangian.clone()), h)?;
    let ham = DiscreteHamiltonianFlow::new(pg, InducedLagrangian::new(map, TangentLagrangian(lagrangian), h)?);
    let mut state = start;
    let (mut q, mut p) = (start.q, start.p);
    let mut arrow = (start.q, start.q);
    let (mut d_lag, mut d_ham) = (0.0f64, 0.0f64);
    for k in 0..steps {
        let next = reference.advance(&state, h)?;
        let (q1, p1, g) = ham.step(&q, &p, &(next.q - state.q))?;
        d_ham = d_ham.max((q1 - next.q).amax()).max((p1 - next.p).amax());
        arrow = if k == 0 { g } else { flow.step(&arrow)?.0 };
        let p_lag = legendre_plus(&pg, flow.lagrangian(), &arrow);
        d_lag = d_lag.max((arrow.1 - next.q).amax()).max((p_lag - next.p).amax());
        (q, p, state) = (q1, p1, next);
    }
    Ok((d_lag, d_ham, state))
}

#[test]
fn pair_groupoid_flows_equal_the_discretization_crate() -> Result<()> {
    let h = 0.05;
    let start = PhaseState::new(Vector2::new(0.4, 0.0), Vector2::new(0.0, 2.0)); // e = 0.6
    let (d_lag, d_ham, end) = pair_against_discretization(ThetaMap::<2>::midpoint(), KeplerL, start, h, 200)?;
    println!("Kepler midpoint: |Δ| Lagrangian {d_lag:.1e}, Hamiltonian {d_ham:.1e}");
    assert!(d_lag < 1e-11 && d_ham < 1e-11, "{d_lag:e} {d_ham:e}");
    // the midpoint map is rotation-equivariant: the angular momentum is conserved
    let l = |s: &PhaseState<2>| s.q[0] * s.p[1] - s.q[1] * s.p[0];
    assert!((l(&end) - l(&start)).abs() < 1e-12);
    // and the route is the Hamiltonian (cotangent-lift) integrator of the same map
    let cl = CotangentLiftIntegrator::new(ThetaMap::<2>::midpoint(), AutoDiff(KeplerH));
    let mut s = start;
    for _ in 0..200 {
        cl.step(&mut s, h)?;
    }
    assert!((s.q - end.q).amax() < 1e-10 && (s.p - end.p).amax() < 1e-10);

    // a nonlinear map: the inverse is Newton at f64, continued to dual numbers by chord steps
    let (d_lag, d_ham, _) = pair_against_discretization(AutoDiffMap::<_, 2>(Bent(0.4)), KeplerL, start, h, 200)?;
    println!("Kepler bent map: |Δ| Lagrangian {d_lag:.1e}, Hamiltonian {d_ham:.1e}");
    assert!(d_lag < 1e-10 && d_ham < 1e-10, "{d_lag:e} {d_ham:e}");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// (c) The heavy top on the action groupoid S² × SO(3) ⇉ S².

const CHI: [f64; 3] = [0.2, 0.1, 1.0];

/// `L(Γ, Ω) = ½ Ωᵀ I Ω − χ·Γ` on the action algebroid `S² × so(3)`.
#[derive(Debug, Clone, Copy)]
struct TopL;
impl AlgebroidLagrangian<ActionGroupoid<SphereRotation>, 3> for TopL {
    fn eval<S: Scalar>(&self, _: &ActionGroupoid<SphereRotation>, gamma: &Vector3<S>, omega: &SVector<S, 3>) -> S {
        Body.eval(omega) - gamma.dot(&Vector3::from(CHI).map(S::from))
    }
}
/// The unreduced `L(R, Ω) = ½ Ωᵀ I Ω − χ·Rᵀ e_3` on `T SO(3)` (left-trivialized).
#[derive(Debug, Clone, Copy)]
struct TopUnreduced;
impl AlgebroidLagrangian<PairOfGroup<So3>, 3> for TopUnreduced {
    fn eval<S: Scalar>(&self, _: &PairOfGroup<So3>, r: &Matrix3<S>, omega: &SVector<S, 3>) -> S {
        Body.eval(omega) - (r.transpose() * Vector3::z().map(S::from)).dot(&Vector3::from(CHI).map(S::from))
    }
}

#[test]
fn heavy_top_on_the_action_groupoid() -> Result<()> {
    let h = 0.05;
    let top = ActionGroupoid::new(SphereRotation, Chart::Exp);
    let flow = InducedFlow::new(top, FibreThetaMap::midpoint(), TopL, h)?;
    let gamma0 = Vector3::new(0.3, -0.2, 0.9).normalize();
    let mut g = flow.first_arrow(&gamma0, &Vector3::new(0.5, -1.0, 2.0))?;
    // node k: Γ_k = α(g_k), Π_k = F^-L(g_k) = F^+L(g_{k−1})
    let node = |g: &(Vector3<f64>, Matrix3<f64>)| (g.0, legendre_minus(&top, flow.lagrangian(), g));
    let top_energy = |(gamma, pi): (Vector3<f64>, Vector3<f64>)| energy(&pi) + gamma.dot(&Vector3::from(CHI));
    let (gamma, pi) = node(&g);
    let (casimir, e0) = (gamma.dot(&pi), top_energy((gamma, pi)));
    let (mut dc, mut dn, mut de, mut dh) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);

    // the same construction on the unreduced pair groupoid SO(3) × SO(3), mapped by
    // Ψ(R_0, R_1) = (R_0ᵀ e_3, R_0ᵀ R_1)
    let pg = PairOfGroup::new(So3, Chart::Exp);
    let unreduced = InducedFlow::new(pg, FibreThetaMap::midpoint(), TopUnreduced, h)?;
    let psi = AdvectedReduction::new(SphereRotation, Vector3::z(), Chart::Exp);
    // (the base point of the first arrow is α(g_0) = Γ_0 · exp(−hΩ/2), not the midpoint Γ_0 given)
    let (e1, e2) = groupoid::SpherePair::frame(&g.0);
    let r0 = Matrix3::from_rows(&[e1.transpose(), e2.transpose(), g.0.transpose()]); // R_0ᵀ e_3 = α(g_0)
    let mut big = (r0, r0 * g.1);
    let mut d_red = element_distance(&top, &GroupoidMorphism::<3, 3>::map::<f64>(&psi, &big), &g)?;

    // the Hamiltonian flow on A*G = S² × so(3)* runs alongside
    let ham = DiscreteHamiltonianFlow::new(top, *flow.lagrangian());
    let (mut x_h, mut mu_h) = node(&g);
    for _ in 0..400 {
        let (_, _, gh) = ham.step(&x_h, &mu_h, &LieGroupoid::<f64, 3>::fibre_log(&top, &g)?)?;
        dh = dh.max((gh.1 - g.1).amax()).max((gh.0 - g.0).amax());
        flow.advance(&mut g)?;
        unreduced.advance(&mut big)?;
        d_red = d_red.max(element_distance(&top, &GroupoidMorphism::<3, 3>::map::<f64>(&psi, &big), &g)?);
        (x_h, mu_h) = (LieGroupoid::<f64, 3>::target(&top, &gh), legendre_plus(&top, flow.lagrangian(), &gh));
        let (gamma, pi) = node(&g);
        dc = dc.max((gamma.dot(&pi) - casimir).abs());
        dn = dn.max((gamma.norm() - 1.0).abs());
        de = de.max((top_energy((gamma, pi)) - e0).abs());
    }
    println!(
        "heavy top: Γ·Π {dc:.1e}, |Γ| {dn:.1e}, energy {de:.1e}, Hamiltonian flow {dh:.1e}, reduction {d_red:.1e}"
    );
    assert!(dc < 1e-12, "vertical momentum drifts by {dc:e}");
    assert!(dn < 1e-13, "|Γ| drifts by {dn:e}");
    assert!(de > 1e-9 && de < 1e-2, "energy error {de:e}");
    assert!(dh < 1e-12, "Hamiltonian and Lagrangian flows differ by {dh:e}");
    assert!(d_red < 1e-11, "unreduced and reduced flows differ by {d_red:e}");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Bad input.

#[test]
fn bad_input_is_a_typed_error_and_leaves_the_state_alone() -> Result<()> {
    let h = 0.1;
    let gd = GroupAsGroupoid::new(So3, Chart::Exp);
    let flow = InducedFlow::new(gd, FibreThetaMap::midpoint(), ReducedLagrangian(Body), h)?;
    // an arrow off SO(3)
    let mut off = rot(0.1, 0.2, 0.3) * 1.01;
    let before = off;
    assert!(matches!(flow.advance(&mut off), Err(GeomError::OffManifold { .. })));
    assert_eq!(off, before);
    let mut nan = Matrix3::from_element(f64::NAN);
    assert!(matches!(flow.advance(&mut nan), Err(GeomError::NonFinite { .. })));
    // a velocity beyond the injectivity of exp: |h ξ| = 4 > π
    let e = flow.first_arrow(&(), &Vector3::new(40.0, 0.0, 0.0)).unwrap_err();
    assert!(matches!(e, GeomError::OutsideDomain { .. }), "{e}");
    assert!(flow.first_arrow(&(), &Vector3::new(10.0, 0.0, 0.0)).is_ok()); // |h ξ| = 1
    // a rotation by π is outside the domain of cay^{-1}
    let cay =
        InducedFlow::new(GroupAsGroupoid::new(So3, Chart::Cayley), FibreThetaMap::chart(), ReducedLagrangian(Body), h)?;
    let mut half_turn = rot(std::f64::consts::PI, 0.0, 0.0);
    let before = half_turn;
    assert!(matches!(cay.advance(&mut half_turn), Err(GeomError::OutsideDomain { .. })));
    assert_eq!(half_turn, before);
    let value = InducedLagrangian::new(FibreThetaMap::chart(), ReducedLagrangian(Body), h)?
        .value(&GroupAsGroupoid::new(So3, Chart::Cayley), &half_turn);
    assert!(matches!(value, Err(GeomError::OutsideDomain { .. })));
    // a zero or non-finite step
    assert!(matches!(
        InducedFlow::new(gd, FibreThetaMap::midpoint(), ReducedLagrangian(Body), 0.0),
        Err(GeomError::InvalidStep { .. })
    ));
    assert!(matches!(
        InducedLagrangian::new(FibreThetaMap::midpoint(), ReducedLagrangian(Body), f64::NAN),
        Err(GeomError::InvalidStep { .. })
    ));
    assert!(FibreThetaMap::new(1.5).is_err());
    // the pair groupoid: a non-finite velocity, and the Newton inverse of a nonlinear map
    let pair = InducedFlow::new(PairGroupoid::<2>, AutoDiffMap::<_, 2>(Bent(0.4)), TangentLagrangian(KeplerL), h)?;
    assert!(matches!(
        pair.first_arrow(&Vector2::new(1.0, 0.0), &Vector2::new(f64::NAN, 0.0)),
        Err(GeomError::NonFinite { .. })
    ));
    let mut g = pair.first_arrow(&Vector2::new(1.0, 0.0), &Vector2::new(0.0, 1.0))?;
    let before = g;
    let mut bad = (before.0, Vector2::new(f64::INFINITY, 0.0));
    assert!(pair.advance(&mut bad).is_err());
    pair.advance(&mut g)?;
    assert!((g.0 - before.1).norm() < 1e-15, "the next arrow starts where the previous ended");
    // the trivial Atiyah groupoid: an arrow with a group component off SO(3) is refused
    let at = TrivialAtiyah::<So3, 2, 3>::new(So3, Chart::Exp);
    #[derive(Clone, Copy)]
    struct Free;
    impl AlgebroidLagrangian<TrivialAtiyah<So3, 2, 3>, 5> for Free {
        fn eval<S: Scalar>(&self, _: &TrivialAtiyah<So3, 2, 3>, _x: &SVector<S, 2>, a: &SVector<S, 5>) -> S {
            a.norm_squared() * S::from(0.5)
        }
    }
    let at_flow = InducedFlow::new(at, FibreThetaMap::midpoint(), Free, h)?;
    let mut arrow = at_flow.first_arrow(&Vector2::new(0.0, 1.0), &Vector5::new(1.0, 0.0, 0.1, 0.2, 0.3))?;
    let mut skew = arrow;
    skew.2[(0, 1)] += 1e-3;
    assert!(matches!(at_flow.advance(&mut skew), Err(GeomError::OffManifold { .. })));
    let next = at_flow.step(&arrow)?.0;
    at_flow.advance(&mut arrow)?;
    assert_eq!(arrow, next);
    // free motion keeps its velocity: (v, ξ) of consecutive arrows agree
    let v0 = at_flow.lagrangian().velocity::<_, 5>(&at, &arrow)?.1;
    at_flow.advance(&mut arrow)?;
    let v1 = at_flow.lagrangian().velocity::<_, 5>(&at, &arrow)?.1;
    assert!((v0 - v1).norm() < 1e-12, "{v0} vs {v1}");
    Ok(())
}
