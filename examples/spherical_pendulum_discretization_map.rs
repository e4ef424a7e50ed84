//! The spherical pendulum through a discretization map on S² (Barbero-Liñán, Marrero, Martín de
//! Diego, "From retraction maps to symplectic-momentum numerical integrators", 2024,
//! arXiv:2401.14800): the normalization midpoint map `(N(q - v/2), N(q + v/2))` lifted to T*S² in a
//! chart re-centred at every step, against RATTLE on the pair groupoid of R³ (Marrero, Martín de
//! Diego, Stern, 2015, arXiv:1103.6250).
//!
//! `H = ½|p|² + g e3·q`; printed: the largest errors of the energy, of the vertical angular
//! momentum `e3·(q × p)`, of `|q| = 1` and `q·p = 0`, the distance between the two trajectories at
//! the end, and the cost per step.
//!
//! Run: `cargo run --release --example spherical_pendulum_discretization_map`.

use discretization::sphere_lift::sphere_state;
use discretization::{OneStep, PhaseState, SphereCotangentLiftIntegrator, SphereThetaMap};
use geom_core::function::PhaseSpaceFunction;
use geom_core::{GeomError, Scalar};
use groupoid::PairGroupoid;
use groupoid::constraints::HolonomicFlow;
use groupoid::models::{GRAVITY, PendulumLd, UnitSphere};
use nalgebra::SVector;
use std::time::Instant;

struct Pendulum;
impl PhaseSpaceFunction<3> for Pendulum {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
        p.norm_squared() * S::from(0.5) + q[2] * S::from(GRAVITY)
    }
}

fn main() -> Result<(), GeomError> {
    let (h, n) = (0.01, 10_000);
    let (q, p) = sphere_state(2.2, 0.0, 0.3, 1.1);
    let s0 = PhaseState::new(q, p);
    let energy = |s: &PhaseState<3>| Pendulum.eval(&s.q, &s.p);
    let lz = |s: &PhaseState<3>| s.q.cross(&s.p)[2];
    let (e0, l0) = (energy(&s0), lz(&s0));
    println!("spherical pendulum, g = {GRAVITY}, h = {h}, {n} steps (T = {})", h * n as f64);

    let integ = SphereCotangentLiftIntegrator::<_, _, 1, 3, 2>::new(SphereThetaMap::midpoint(), Pendulum);
    let mut s = s0;
    let (mut de, mut dl, mut unit, mut ortho) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let start = Instant::now();
    let mut first = None;
    for _ in 0..n {
        integ.step(&mut s, h)?;
        first.get_or_insert(s.q);
        de = de.max((energy(&s) - e0).abs());
        dl = dl.max((lz(&s) - l0).abs());
        unit = unit.max((s.q.norm() - 1.0).abs());
        ortho = ortho.max(s.q.dot(&s.p).abs());
    }
    let ns = start.elapsed().as_nanos() as f64 / n as f64;
    println!("S² midpoint map, cotangent lift (chart re-centred each step):");
    println!("  energy max |E - E0|        {de:.2e} (E0 = {e0:.4})");
    println!("  e3·(q × p) max drift       {dl:.2e}");
    println!("  max ||q| - 1|, max |q·p|   {unit:.2e}, {ortho:.2e}");
    println!("  cost                       {ns:.0} ns/step");

    // RATTLE from the same first two positions
    let flow = HolonomicFlow::<_, _, _, 4>::new(PairGroupoid::<3>, PendulumLd::new(h)?, UnitSphere);
    let mut g = (s0.q, first.unwrap_or(s0.q));
    let start = Instant::now();
    for _ in 1..n {
        g = flow.step(&g)?.0;
    }
    let ns = start.elapsed().as_nanos() as f64 / (n - 1) as f64;
    println!("RATTLE (pair groupoid of R³, node multiplier): {ns:.0} ns/step");
    println!("  |q_map - q_rattle| at T    {:.2e} (both second order)", (s.q - g.1).norm());
    Ok(())
}
