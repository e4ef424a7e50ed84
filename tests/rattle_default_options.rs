//! The spherical pendulum by RATTLE (the holonomic discrete Euler–Lagrange flow on the pair
//! groupoid of R³ with a node multiplier) with the **default** Newton options at h = 0.01 and
//! h = 0.005: every step converges (the equations hold terms q/h ≈ 200, whose rounding floor
//! exceeds an absolute 1e-14; geom-core's Newton accepts a step at the round-off floor),
//! |q| = 1 to 1e-12, the vertical angular momentum to 1e-11 over T = 100, and the energy error is
//! second order.

use geom_core::GeomError;
use geom_core::action::RotationAction;
use groupoid::PairGroupoid;
use groupoid::constraints::HolonomicFlow;
use groupoid::models::{GRAVITY, PendulumLd, UnitSphere};
use groupoid::noether::{PairDiagonal, momentum_map};
use nalgebra::Vector3;

fn run(h: f64) -> Result<(f64, f64, f64), GeomError> {
    let flow = HolonomicFlow::<_, _, _, 4>::new(PairGroupoid::<3>, PendulumLd::new(h).unwrap(), UnitSphere);
    let q0 = Vector3::new(0.6, 0.0, -0.8);
    // second position from the exact velocity (0, 1.2, 0) to second order: q(h) on the sphere
    let v0 = Vector3::new(0.0, 1.2, 0.0);
    let acc = -q0 * v0.norm_squared() - (Vector3::z() - q0 * q0[2]) * GRAVITY;
    let mut g = (q0, (q0 + v0 * h + acc * (0.5 * h * h)).normalize());
    let vertical = PairDiagonal(RotationAction);
    let energy = |g: &(Vector3<f64>, Vector3<f64>)| -> Result<f64, GeomError> {
        let p = flow.projected_momentum(g)?;
        Ok(0.5 * p.norm_squared() + GRAVITY * g.1[2])
    };
    let (j0, e0) = (momentum_map(&PairGroupoid::<3>, flow.lagrangian(), &vertical, &g)[2], energy(&g)?);
    let (mut unit, mut dj, mut de) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..(100.0 / h).round() as usize {
        g = flow.step(&g)?.0;
        unit = unit.max((g.1.norm() - 1.0).abs());
        dj = dj.max((momentum_map(&PairGroupoid::<3>, flow.lagrangian(), &vertical, &g)[2] - j0).abs());
        de = de.max((energy(&g)? - e0).abs());
    }
    Ok((unit, dj, de))
}

#[test]
fn rattle_converges_with_default_options_and_keeps_its_invariants() -> Result<(), GeomError> {
    let (u1, j1, e1) = run(0.01)?;
    let (u2, j2, e2) = run(0.005)?;
    for (h, u, j) in [(0.01, u1, j1), (0.005, u2, j2)] {
        assert!(u <= 1e-12, "h = {h}: ||q| - 1| = {u:e}");
        assert!(j <= 1e-11, "h = {h}: vertical angular momentum drift {j:e}");
    }
    let ratio = e1 / e2;
    assert!((ratio - 4.0).abs() <= 0.3, "energy error ratio under halving: {ratio} ({e1:e}, {e2:e})");
    Ok(())
}
