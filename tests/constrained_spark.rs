//! The Gauss–Lobatto SPARK method with two Gauss stages (`groupoid::integrator::SparkGauss2`; Jay,
//! "Specialized partitioned additive Runge–Kutta methods for systems of overdetermined DAEs with
//! holonomic constraints", SIAM J. Numer. Anal. 45, 2007) on the spherical pendulum and the
//! double spherical pendulum of `constrained_composition`: measured order 4 against RATTLE
//! composed to order 8 (Kahan & Li, 1997), the constraint and its hidden constraint at round-off
//! over 10⁴ steps, the energy without drift, the vertical angular momentum (discrete Noether)
//! at round-off, reversibility, untouched state on failure, and the control without the inner
//! stage constraint, which is only of order 2.

use super::constrained_composition::{Double, Pendulum, Rods, Sphere};
use discretization::composition::{Composition, kahan_li8, triple_jump};
use geom_core::GeomError;
use geom_core::step::testing::{Contract, check_integrator};
use geom_core::step::{OneStep, PhaseState};
use groupoid::PairGroupoid;
use groupoid::integrator::{RattleIntegrator, SparkCoefficients, SparkGauss2, Stepped};
use groupoid::time_dependent;
use integrators::tableau::{gauss_legendre, lobatto_iiia};
use nalgebra::{SVector, Vector3};

type Spark3 = SparkGauss2<Pendulum, Sphere, 3, 1, 8>;
type Spark6 = SparkGauss2<Double, Rods, 6, 2, 16>;

fn pendulum0() -> PhaseState<3> {
    PhaseState::new(Vector3::new(0.6, 0.0, -0.8), Vector3::new(0.0, 0.9, 0.0))
}

/// Both rods tilted, the lower one swinging out of the plane of the upper (projected on `T*S`).
fn double0() -> PhaseState<6> {
    let (q1, q2) = (Vector3::new(0.6, 0.0, -0.8), Vector3::new(0.6, 0.0, -0.8) + Vector3::new(0.0, 0.6, -0.8));
    let q = SVector::<f64, 6>::from_fn(|i, _| if i < 3 { q1[i] } else { q2[i - 3] });
    Spark6::new(Double, Rods)
        .project(&PhaseState::new(q, SVector::<f64, 6>::from([0.0, 0.5, 0.0, 0.3, 0.0, 0.2])))
        .unwrap()
}

/// `|c(q)|` and `|∇c(q) p|` (unit masses: `W = I`) of the spherical pendulum.
fn pendulum_defects(s: &PhaseState<3>) -> (f64, f64) {
    ((s.q.norm_squared() - 1.0).abs(), (2.0 * s.q.dot(&s.p)).abs())
}

/// `|c(q)|_∞` and `|∇c(q) p|_∞` of the double spherical pendulum.
fn double_defects(s: &PhaseState<6>) -> (f64, f64) {
    let (a, b) = (s.q.fixed_rows::<3>(0).into_owned(), s.q.fixed_rows::<3>(3).into_owned());
    let (pa, pb) = (s.p.fixed_rows::<3>(0).into_owned(), s.p.fixed_rows::<3>(3).into_owned());
    let d = b - a;
    let c = (a.norm_squared() - 1.0).abs().max((d.norm_squared() - 1.0).abs());
    let hidden = (2.0 * a.dot(&pa)).abs().max((2.0 * d.dot(&(pb - pa))).abs());
    (c, hidden)
}

fn pendulum_energy(s: &PhaseState<3>) -> f64 {
    0.5 * s.p.norm_squared() + s.q[2]
}

fn double_energy(s: &PhaseState<6>) -> f64 {
    0.5 * s.p.norm_squared() + s.q[2] + s.q[5]
}

/// `n` steps of `t/n`, `n = round(t/h)`: every run ends at `t`.
fn run<const N: usize>(method: &dyn OneStep<PhaseState<N>>, s0: &PhaseState<N>, t: f64, h: f64) -> PhaseState<N> {
    let mut s = *s0;
    let n = (t / h).round().max(1.0);
    method.step_n(&mut s, t / n, n as usize).unwrap();
    s
}

/// The errors at `t` with steps `h` and `h/2` against `reference`, and the measured order.
fn order_against<const N: usize>(
    method: &dyn OneStep<PhaseState<N>>,
    s0: &PhaseState<N>,
    reference: &PhaseState<N>,
    t: f64,
    h: f64,
) -> (f64, f64, f64) {
    let err = |s: PhaseState<N>| (s.q - reference.q).amax().max((s.p - reference.p).amax());
    let (e1, e2) = (err(run(method, s0, t, h)), err(run(method, s0, t, h / 2.0)));
    ((e1 / e2).log2(), e1, e2)
}

/// RATTLE of the midpoint Lagrangian composed to order 8 at step `h`: the reference.
fn reference<L, C, const N: usize, const K: usize, const M: usize>(
    l: L,
    c: C,
    s0: &PhaseState<N>,
    t: f64,
    h: f64,
) -> PhaseState<N>
where
    L: groupoid::time_dependent::ContinuousLagrangian<N> + Clone,
    C: groupoid::constraints::BaseConstraints<PairGroupoid<N>, N, K> + Clone,
{
    let rattle = RattleIntegrator::<_, _, _, N, K, M>::new(PairGroupoid::<N>, Stepped(time_dependent::Midpoint(l)), c)
        .with_properties(2, true);
    let composed = Composition::new(rattle, kahan_li8()).unwrap();
    run(&composed, s0, t, h)
}

#[test]
fn the_coefficients_are_gauss_and_lobatto() {
    let co = SparkCoefficients::gauss2();
    let (a, b, c) = gauss_legendre(2).unwrap().arrays::<2>().unwrap();
    for i in 0..2 {
        assert!((co.b[i] - b[i]).abs() < 1e-15 && (co.c[i] - c[i]).abs() < 1e-15);
        for (j, aij) in a[i].iter().enumerate() {
            assert!((co.a[i][j] - aij).abs() < 1e-15, "a[{i}][{j}]: {} vs {aij}", co.a[i][j]);
        }
    }
    let lobatto = lobatto_iiia(3).unwrap();
    assert!((co.node - lobatto.c(1)).abs() < 1e-15 && (co.weight - lobatto.b(1)).abs() < 1e-15);
    // ã is the collocation polynomial of the Gauss stages at the node: exact for degree ≤ 1
    for k in 1..=2 {
        let lhs: f64 = (0..2).map(|j| co.a_node[j] * co.c[j].powi(k - 1)).sum();
        assert!((lhs - co.node.powi(k) / k as f64).abs() < 1e-15, "C({k}) at the node");
    }
    // α is the symplectic conjugate of ã: b_i α_i + b̃ ã_i = b_i b̃
    for i in 0..2 {
        assert!((co.b[i] * co.alpha[i] + co.weight * co.a_node[i] - co.b[i] * co.weight).abs() < 1e-15);
    }
    // symmetric about ½: ã_1 + ã_2 = ½ and α_1 + α_2 = b̃
    assert!((co.a_node[0] + co.a_node[1] - 0.5).abs() < 1e-15);
    assert!((co.alpha[0] + co.alpha[1] - co.weight).abs() < 1e-15);
}

#[test]
fn spark_gauss2_is_of_order_4_on_the_spherical_pendulum() {
    let spark = Spark3::new(Pendulum, Sphere);
    let s0 = pendulum0();
    let t = 2.0;
    let exact = reference::<_, _, 3, 1, 4>(Pendulum, Sphere, &s0, t, 0.02);
    let (p, e1, e2) = order_against(&spark, &s0, &exact, t, 0.2);
    println!(
        "spherical pendulum, {}: measured order {p:.2} (errors {e1:.2e} at h = 0.2, {e2:.2e} at 0.1)",
        spark.name()
    );
    assert_eq!(spark.order(), 4);
    assert!((p - 4.0).abs() < 0.3, "measured order {p} (errors {e1:e}, {e2:e})");
    // the control: without the inner constraint the same Gauss stages give order 2
    let control = Spark3::new(Pendulum, Sphere).without_stage_constraint();
    let (pc, c1, c2) = order_against(&control, &s0, &exact, t, 0.2);
    println!("spherical pendulum, {}: measured order {pc:.2} (errors {c1:.2e}, {c2:.2e})", control.name());
    assert!((pc - 2.0).abs() < 0.3 && c2 > 10.0 * e2, "control: order {pc}, errors {c1:e}, {c2:e}");
    // composed by the triple jump, the symmetric order-4 method reaches order 6
    let composed = Composition::new(spark.clone(), triple_jump(4)).unwrap();
    let (p6, f1, f2) = order_against(&composed, &s0, &exact, t, 0.4);
    println!("spherical pendulum, {}: measured order {p6:.2} (errors {f1:.2e}, {f2:.2e})", composed.name());
    assert_eq!(composed.order(), 6);
    assert!((p6 - 6.0).abs() < 0.3, "composed: order {p6} (errors {f1:e}, {f2:e})");
}

#[test]
fn spark_gauss2_is_of_order_4_on_the_double_spherical_pendulum() {
    let spark = Spark6::new(Double, Rods);
    let s0 = double0();
    let t = 2.0;
    let exact = reference::<_, _, 6, 2, 8>(Double, Rods, &s0, t, 0.02);
    let (p, e1, e2) = order_against(&spark, &s0, &exact, t, 0.1);
    println!(
        "double spherical pendulum, {}: measured order {p:.2} (errors {e1:.2e} at h = 0.1, {e2:.2e} at 0.05)",
        spark.name()
    );
    assert!((p - 4.0).abs() < 0.3, "measured order {p} (errors {e1:e}, {e2:e})");
    let control = Spark6::new(Double, Rods).without_stage_constraint();
    let (pc, c1, c2) = order_against(&control, &s0, &exact, t, 0.1);
    println!("double spherical pendulum, {}: measured order {pc:.2} (errors {c1:.2e}, {c2:.2e})", control.name());
    assert!((pc - 2.0).abs() < 0.3 && c2 > 10.0 * e2, "control: order {pc}, errors {c1:e}, {c2:e}");
}

#[test]
fn spark_gauss2_keeps_the_constraints_and_the_energy_over_ten_thousand_steps() {
    let h = 0.05;
    // the energy error over the first and the second half of the run: bounded, no drift (a drift
    // linear in t would double the largest error of the first half in the second)
    let window = |e: &[f64], range: std::ops::Range<usize>| e[range].iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let spark = Spark3::new(Pendulum, Sphere);
    let mut s = pendulum0();
    let e0 = pendulum_energy(&s);
    let lz0 = s.q[0] * s.p[1] - s.q[1] * s.p[0];
    let (mut c, mut hidden, mut lz) = (0.0f64, 0.0f64, 0.0f64);
    let mut energy = Vec::with_capacity(10_000);
    for _ in 0..10_000 {
        spark.step(&mut s, h).unwrap();
        let (a, b) = pendulum_defects(&s);
        (c, hidden) = (c.max(a), hidden.max(b));
        lz = lz.max((s.q[0] * s.p[1] - s.q[1] * s.p[0] - lz0).abs());
        energy.push(pendulum_energy(&s) - e0);
    }
    let (first, last) = (window(&energy, 0..5000), window(&energy, 5000..10_000));
    println!(
        "spherical pendulum, 10⁴ steps of {h}: |c| {c:.1e}, |∇c p| {hidden:.1e}, e3·(q × p) {lz:.1e}, energy error {first:.2e} (first half), {last:.2e} (second half)"
    );
    assert!(c <= 1e-12 && hidden <= 1e-12, "|c| {c:e}, |∇c p| {hidden:e}");
    // the rotations about e3 are a symmetry of L and c: discrete Noether, to round-off
    assert!(lz <= 1e-12, "e3·(q × p) drifted by {lz:e}");
    assert!(last <= 1.5 * first && first < 1e-8, "energy error {first:e} then {last:e}");

    let spark = Spark6::new(Double, Rods);
    let mut s = double0();
    let e0 = double_energy(&s);
    let (mut c, mut hidden) = (0.0f64, 0.0f64);
    energy.clear();
    for _ in 0..10_000 {
        spark.step(&mut s, h).unwrap();
        let (a, b) = double_defects(&s);
        (c, hidden) = (c.max(a), hidden.max(b));
        energy.push(double_energy(&s) - e0);
    }
    let (first, last) = (window(&energy, 0..5000), window(&energy, 5000..10_000));
    println!(
        "double spherical pendulum, 10⁴ steps of {h}: |c| {c:.1e}, |∇c p| {hidden:.1e}, energy error {first:.2e} (first half), {last:.2e} (second half)"
    );
    assert!(c <= 1e-12 && hidden <= 1e-12, "|c| {c:e}, |∇c p| {hidden:e}");
    assert!(last <= 1.5 * first && first < 1e-6, "energy error {first:e} then {last:e}");
}

#[test]
fn spark_gauss2_is_reversible_and_keeps_the_contract() {
    let spark = Spark3::new(Pendulum, Sphere);
    let s0 = pendulum0();
    for h in [0.01, 0.1, 0.3] {
        let mut s = s0;
        spark.step(&mut s, h).unwrap();
        spark.step(&mut s, -h).unwrap();
        let back = (s.q - s0.q).amax().max((s.p - s0.p).amax());
        assert!(back < 1e-14, "h = {h}: Φ_(−h) Φ_h − id = {back:e}");
    }
    let spark6 = Spark6::new(Double, Rods);
    let s0 = double0();
    let mut s = s0;
    spark6.step(&mut s, 0.1).unwrap();
    spark6.step(&mut s, -0.1).unwrap();
    let back = (s.q - s0.q).amax().max((s.p - s0.p).amax());
    assert!(back < 1e-14, "double pendulum: Φ_(−h) Φ_h − id = {back:e}");
    // the project's integrator contract (failed steps, step_n, order, reversibility)
    let report = check_integrator(&spark, &pendulum0(), &Contract::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!((report.measured_order - 4.0).abs() < 0.3, "{report:?}");
}

#[test]
fn a_failed_spark_step_leaves_the_state_untouched() {
    let spark = Spark3::new(Pendulum, Sphere);
    // off the sphere: refused
    let off = PhaseState::new(Vector3::new(0.6, 0.0, -0.7), Vector3::new(0.0, 0.9, 0.0));
    let mut s = off;
    assert!(matches!(spark.step(&mut s, 0.1), Err(GeomError::OffManifold { .. })));
    assert_eq!(s, off);
    // invalid steps and non-finite states
    let mut s = pendulum0();
    for h in [0.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(spark.step(&mut s, h), Err(GeomError::InvalidStep { .. })));
        assert_eq!(s, pendulum0());
    }
    let nan = PhaseState::new(Vector3::new(0.6, 0.0, -0.8), Vector3::new(f64::NAN, 0.9, 0.0));
    let mut s = nan;
    assert!(spark.step(&mut s, 0.1).is_err());
    assert!(s.p[0].is_nan() && s.q == nan.q);
    // Newton that cannot converge (one iteration allowed) is an error, the state untouched
    let strict = Spark3::new(Pendulum, Sphere).with_newton(geom_core::newton::NewtonOptions {
        max_iterations: 1,
        ..geom_core::newton::NewtonOptions::groupoid_flow()
    });
    let mut s = pendulum0();
    assert!(strict.step(&mut s, 0.3).is_err());
    assert_eq!(s, pendulum0());
    // an inverse mass matrix that is not positive definite is refused
    assert!(Spark3::new(Pendulum, Sphere).with_inverse_mass(-nalgebra::Matrix3::identity()).is_err());
}
