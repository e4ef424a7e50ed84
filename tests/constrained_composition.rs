//! High-order constrained mechanics by composition: RATTLE (the SHAKE/RATTLE flow of the
//! midpoint discrete Lagrangian, `groupoid::integrator::RattleIntegrator`, symmetric of order 2)
//! is a `OneStep` on `T*Q` restricted to the constraint, so the composition schemes of
//! `discretization::composition` raise it to orders 4, 6 and 8 (Yoshida, "Construction of higher
//! order symplectic integrators", 1990; Kahan & Li, "Composition constants for raising the orders
//! of unconventional schemes for ordinary differential equations", 1997). Measured on the
//! spherical pendulum (`|q| = 1`) and the double spherical pendulum (`|q₁| = 1`,
//! `|q₂ − q₁| = 1`); each substep lands on the constraint and its hidden constraint, so the
//! composition keeps both to round-off.

use discretization::composition::{Composition, CompositionScheme, kahan_li8, triple_jump, yoshida6};
use geom_core::Scalar;
use geom_core::step::{OneStep, PhaseState};
use groupoid::PairGroupoid;
use groupoid::constraints::BaseConstraints;
use groupoid::integrator::{RattleIntegrator, Stepped};
use groupoid::nonholonomic::ContinuousLagrangian;
use groupoid::time_dependent;
use nalgebra::{SVector, Vector3};

/// The spherical pendulum `L = ½|v|² − z` on `|q| = 1`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pendulum;

impl ContinuousLagrangian<3> for Pendulum {
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, v: &SVector<S, 3>) -> S {
        v.norm_squared() * S::from(0.5) - q[2]
    }
}

/// `c(q) = |q|² − 1`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sphere;

impl BaseConstraints<PairGroupoid<3>, 3, 1> for Sphere {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, x: &SVector<S, 3>) -> SVector<S, 1> {
        SVector::from([x.norm_squared() - S::from(1.0)])
    }
}

/// The double spherical pendulum, unit masses and rods: `L = ½(|v₁|² + |v₂|²) − z₁ − z₂`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Double;

impl ContinuousLagrangian<6> for Double {
    fn eval<S: Scalar>(&self, q: &SVector<S, 6>, v: &SVector<S, 6>) -> S {
        v.norm_squared() * S::from(0.5) - q[2] - q[5]
    }
}

/// `c(q) = (|q₁|² − 1, |q₂ − q₁|² − 1)`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rods;

impl BaseConstraints<PairGroupoid<6>, 6, 2> for Rods {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<6>, x: &SVector<S, 6>) -> SVector<S, 2> {
        let q1 = Vector3::new(x[0], x[1], x[2]);
        let d = Vector3::new(x[3], x[4], x[5]) - q1;
        SVector::from([q1.norm_squared() - S::from(1.0), d.norm_squared() - S::from(1.0)])
    }
}

/// Errors at `h` and `h/2` at time `t` against the same method at `h/32`: the measured order.
fn measured_order<const N: usize>(
    method: &dyn OneStep<PhaseState<N>>,
    s0: &PhaseState<N>,
    t: f64,
    h: f64,
) -> (f64, f64) {
    // n steps of t/n, n = round(t/h): every run ends at t
    let run = |h: f64| {
        let mut s = *s0;
        let n = (t / h).round().max(1.0);
        method.step_n(&mut s, t / n, n as usize).unwrap();
        s
    };
    let reference = run(h / 32.0);
    let err = |s: PhaseState<N>| (s.q - reference.q).amax().max((s.p - reference.p).amax());
    let (e1, e2) = (err(run(h)), err(run(h / 2.0)));
    ((e1 / e2).log2(), e1)
}

/// The schemes with their orders and step sizes `hs` (in the asymptotic range, with errors
/// well above round-off).
fn schemes(hs: [f64; 3]) -> [(CompositionScheme, u32, f64); 3] {
    [(triple_jump(2), 4, hs[0]), (yoshida6(), 6, hs[1]), (kahan_li8(), 8, hs[2])]
}

#[test]
fn rattle_composed_reaches_orders_4_6_8_on_the_spherical_pendulum() {
    let base = RattleIntegrator::<_, _, _, 3, 1, 4>::new(
        PairGroupoid::<3>,
        Stepped(time_dependent::Midpoint(Pendulum)),
        Sphere,
    )
    .with_properties(2, true);
    let s0 = PhaseState::new(Vector3::new(0.6, 0.0, -0.8), Vector3::new(0.0, 0.9, 0.0));
    for (scheme, order, h) in schemes([0.1, 0.2, 0.4]) {
        let composed = Composition::new(base.clone(), scheme).unwrap();
        let method: &dyn OneStep<PhaseState<3>> = &composed;
        assert_eq!(method.order(), order);
        let (p, e) = measured_order(method, &s0, 2.0, h);
        println!("spherical pendulum, {}: measured order {p:.2} (error {e:.1e} at h = {h})", method.name());
        assert!((p - order as f64).abs() < 0.3, "{}: measured order {p} (error {e:e})", method.name());
        // the constraint and its hidden constraint q·p = 0 at round-off after 1000 steps
        let mut s = s0;
        let (mut c, mut hidden) = (0.0f64, 0.0f64);
        for _ in 0..1000 {
            method.step(&mut s, 0.05).unwrap();
            c = c.max((s.q.norm_squared() - 1.0).abs());
            hidden = hidden.max(s.q.dot(&s.p).abs());
        }
        assert!(c < 1e-13 && hidden < 1e-13, "{}: |q|² − 1 {c:e}, q·p {hidden:e}", method.name());
    }
}

#[test]
fn rattle_composed_reaches_orders_4_6_8_on_the_double_spherical_pendulum() {
    let base =
        RattleIntegrator::<_, _, _, 6, 2, 8>::new(PairGroupoid::<6>, Stepped(time_dependent::Midpoint(Double)), Rods)
            .with_properties(2, true);
    // both rods tilted, the lower one swinging out of the plane of the upper
    let (q1, q2) = (Vector3::new(0.6, 0.0, -0.8), Vector3::new(0.6, 0.0, -0.8) + Vector3::new(0.0, 0.6, -0.8));
    let q = SVector::<f64, 6>::from_fn(|i, _| if i < 3 { q1[i] } else { q2[i - 3] });
    let s0 = base.project(&PhaseState::new(q, SVector::<f64, 6>::from([0.0, 0.5, 0.0, 0.3, 0.0, 0.2]))).unwrap();
    // faster motion than the single pendulum: the eighth order is asymptotic below h = 0.2
    // (4.96 measured between 0.4 and 0.2, 8.56 between 0.2 and 0.1, 8.16 between 0.15 and 0.075)
    for (scheme, order, h) in schemes([0.1, 0.2, 0.15]) {
        let composed = Composition::new(base.clone(), scheme).unwrap();
        let method: &dyn OneStep<PhaseState<6>> = &composed;
        let (p, e) = measured_order(method, &s0, 2.0, h);
        println!("double spherical pendulum, {}: measured order {p:.2} (error {e:.1e} at h = {h})", method.name());
        assert!((p - order as f64).abs() < 0.3, "{}: measured order {p} (error {e:e})", method.name());
        let mut s = s0;
        let mut c = 0.0f64;
        for _ in 0..500 {
            method.step(&mut s, 0.05).unwrap();
            let (a, b) = (s.q.fixed_rows::<3>(0).into_owned(), s.q.fixed_rows::<3>(3).into_owned());
            c = c.max((a.norm_squared() - 1.0).abs()).max(((b - a).norm_squared() - 1.0).abs());
        }
        assert!(c < 1e-13, "{}: rods off by {c:e}", method.name());
    }
}
