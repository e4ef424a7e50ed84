//! RATTLE and the discrete Lagrange–d'Alembert flow as one-step integrators
//! (`groupoid::integrator::{RattleIntegrator, NonholonomicIntegrator}`), written as a user of the
//! crate would write them: the arrows equal those of the fixed-step flows, the constraints and
//! the conserved momenta hold to round-off, the methods are symmetric and of order 2, and they
//! pass the public integrator contract of geom-core.

use geom_core::step::testing::{Contract, check_integrator};
use geom_core::step::{OneStep, PhaseState};
use geom_core::{GeomError, Scalar};
use groupoid::PairGroupoid;
use groupoid::constraints::{BaseConstraints, HolonomicFlow};
use groupoid::integrator::{NonholonomicIntegrator, RattleIntegrator, Stepped};
use groupoid::nonholonomic::{ContinuousLagrangian, Midpoint, MidpointConstraints, NonholonomicState, RollingDisk};
use groupoid::time_dependent;
use nalgebra::{Matrix3, SVector, Vector3};

/// The spherical pendulum `L = ½ vᵀ diag(m) v − z` on `|q| = 1`.
#[derive(Debug, Clone, Copy)]
struct Pendulum {
    m: [f64; 3],
}

impl ContinuousLagrangian<3> for Pendulum {
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, v: &SVector<S, 3>) -> S {
        let kinetic = (0..3).fold(S::from(0.0), |acc, i| acc + v[i] * v[i] * S::from(self.m[i]));
        kinetic * S::from(0.5) - q[2]
    }
}

/// `c(q) = |q|² − 1`.
struct Sphere;

impl BaseConstraints<PairGroupoid<3>, 3, 1> for Sphere {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, x: &SVector<S, 3>) -> SVector<S, 1> {
        SVector::from([x.norm_squared() - S::from(1.0)])
    }
}

type Rattle = RattleIntegrator<PairGroupoid<3>, Stepped<time_dependent::Midpoint<Pendulum>>, Sphere, 3, 1, 4>;

fn rattle(m: [f64; 3]) -> Rattle {
    RattleIntegrator::new(PairGroupoid::<3>, Stepped(time_dependent::Midpoint(Pendulum { m })), Sphere)
        .with_properties(2, true)
}

fn start() -> PhaseState<3> {
    PhaseState::new(Vector3::new(0.6, 0.0, -0.8), Vector3::new(0.0, 0.9, 0.0))
}

fn energy(m: [f64; 3], s: &PhaseState<3>) -> f64 {
    (0..3).map(|i| s.p[i] * s.p[i] / m[i]).sum::<f64>() * 0.5 + s.q[2]
}

#[test]
fn rattle_takes_the_arrows_of_the_holonomic_flow() -> Result<(), GeomError> {
    let (m, h) = ([1.0; 3], 0.02);
    let flow = HolonomicFlow::<_, _, _, 4>::new(PairGroupoid::<3>, Midpoint::new(Pendulum { m }, h)?, Sphere);
    let x0 = start();
    let (mut g, _) = flow.start::<3, 1>(&x0.q, &x0.p, &SVector::zeros())?;
    let method = rattle(m);
    let mut s = x0;
    let mut worst = 0.0_f64;
    for _ in 0..200 {
        method.step(&mut s, h)?;
        worst = worst.max((s.q - g.1).amax());
        g = flow.step::<3, 1>(&g)?.0;
    }
    assert!(worst < 1e-12, "RATTLE positions differ from the SHAKE arrows by {worst:e}");
    Ok(())
}

#[test]
fn rattle_keeps_the_sphere_the_tangent_momentum_and_the_vertical_angular_momentum() -> Result<(), GeomError> {
    let (m, h) = ([1.0; 3], 0.01);
    let method = rattle(m);
    let mut s = start();
    let (e0, lz0) = (energy(m, &s), s.q[0] * s.p[1] - s.q[1] * s.p[0]);
    let (mut worst_c, mut worst_tangent, mut worst_lz) = (0.0_f64, 0.0_f64, 0.0_f64);
    let mut energy_errors = Vec::with_capacity(20_000);
    for _ in 0..20_000 {
        method.step(&mut s, h)?;
        worst_c = worst_c.max((s.q.norm_squared() - 1.0).abs());
        worst_tangent = worst_tangent.max(s.q.dot(&s.p).abs());
        worst_lz = worst_lz.max((s.q[0] * s.p[1] - s.q[1] * s.p[0] - lz0).abs());
        energy_errors.push((energy(m, &s) - e0).abs());
    }
    assert!(worst_c < 1e-13, "|q|² − 1 reached {worst_c:e}");
    assert!(worst_tangent < 1e-13, "q·p reached {worst_tangent:e}");
    assert!(worst_lz < 1e-12, "L_z drifted by {worst_lz:e}");
    // bounded energy error, no drift: the last quarter is no worse than the first
    let quarter = energy_errors.len() / 4;
    let first = energy_errors[..quarter].iter().fold(0.0_f64, |a, &b| a.max(b));
    let last = energy_errors[3 * quarter..].iter().fold(0.0_f64, |a, &b| a.max(b));
    assert!(first < 1e-4 && first > 1e-9, "energy error {first:e} (h² scale expected)");
    assert!(last < 1.5 * first, "energy error grew from {first:e} to {last:e}");
    Ok(())
}

#[test]
fn rattle_with_a_mass_matrix_keeps_the_velocity_tangent() -> Result<(), GeomError> {
    let m = [1.0, 2.0, 3.0];
    let w = Matrix3::from_diagonal(&Vector3::new(1.0, 0.5, 1.0 / 3.0));
    let method = rattle(m).with_inverse_mass(w)?;
    let mut s = method.project(&PhaseState::new(start().q, Vector3::new(0.3, 0.9, 0.5)))?;
    assert!(s.q.dot(&(w * s.p)).abs() < 1e-15);
    let e0 = energy(m, &s);
    let mut worst = (0.0_f64, 0.0_f64);
    for _ in 0..5_000 {
        method.step(&mut s, 0.01)?;
        worst.0 = worst.0.max(s.q.dot(&(w * s.p)).abs());
        worst.1 = worst.1.max((energy(m, &s) - e0).abs());
    }
    assert!(worst.0 < 1e-13, "velocity off the tangent plane by {:e}", worst.0);
    assert!(worst.1 < 1e-3, "energy error {:e}", worst.1);
    // an inverse mass that is not positive definite is refused at construction
    let bad = Matrix3::from_diagonal(&Vector3::new(1.0, -1.0, 1.0));
    assert!(matches!(rattle(m).with_inverse_mass(bad), Err(GeomError::InvalidParameter { .. })));
    Ok(())
}

#[test]
fn rattle_is_symmetric_of_order_two_and_passes_the_contract() -> Result<(), Box<dyn std::error::Error>> {
    let method = rattle([1.0; 3]);
    let report = check_integrator(&method, &start(), &Contract { reversibility_tol: 1e-13, ..Contract::default() })?;
    assert!((report.measured_order - 2.0).abs() < 0.1, "order {}", report.measured_order);
    assert!(report.reversibility_defect.is_some_and(|d| d < 1e-13));
    // a point off the sphere is refused and the state is untouched
    let mut off = PhaseState::new(Vector3::new(0.0, 0.0, -1.1), Vector3::zeros());
    let before = off;
    assert!(matches!(method.step(&mut off, 0.01), Err(GeomError::OffManifold { .. })));
    assert_eq!(off, before);
    Ok(())
}

#[test]
fn nonholonomic_integrator_takes_the_arrows_of_the_flow() -> Result<(), GeomError> {
    let disk = RollingDisk::new(1.0, 0.5, 0.125, 0.0625)?;
    let h = 0.01;
    let flow = disk.flow(h)?;
    let q0 = SVector::from([0.0, 0.0, 0.0, 0.3]);
    let v0 = disk.velocity(&q0, 2.0, 0.7);
    let p0 = disk.momentum(&v0);
    let first = flow.step_from_momentum::<4, 2>(&q0, &p0, &(v0 * h))?;
    let mut state = NonholonomicState::new(first.g, first.lambda);
    let method = disk.integrator();
    let mut s = PhaseState::new(q0, p0);
    method.step(&mut s, h)?;
    let mut worst = (s.q - state.g.1).amax();
    for _ in 0..300 {
        flow.advance(&mut state)?;
        method.step(&mut s, h)?;
        worst = worst.max((s.q - state.g.1).amax());
    }
    assert!(worst < 1e-12, "positions differ from the DLA arrows by {worst:e}");
    Ok(())
}

#[test]
fn rolling_disk_integrator_converges_to_the_exact_motion_with_its_physical_momentum() -> Result<(), GeomError> {
    let disk = RollingDisk::new(1.0, 0.5, 0.125, 0.0625)?;
    let method = disk.integrator();
    let q0 = SVector::from([0.1, -0.2, 0.0, 0.3]);
    let (theta_dot, phi_dot, t) = (2.0, 0.7, 2.0);
    let error = |n: usize| -> Result<f64, GeomError> {
        let mut s = PhaseState::new(q0, disk.momentum(&disk.velocity(&q0, theta_dot, phi_dot)));
        method.step_n(&mut s, t / n as f64, n)?;
        let q = disk.exact(&q0, theta_dot, phi_dot, t);
        let p = disk.momentum(&disk.velocity(&q, theta_dot, phi_dot));
        Ok((s.q - q).amax().max((s.p - p).amax()))
    };
    let (coarse, fine) = (error(100)?, error(200)?);
    let order = (coarse / fine).log2();
    assert!(coarse < 1e-3, "error {coarse:e}");
    assert!((order - 2.0).abs() < 0.1, "order {order}");
    let report = check_integrator(
        &method,
        &PhaseState::new(q0, disk.momentum(&disk.velocity(&q0, 1.0, 0.5))),
        &Contract { reversibility_tol: 1e-13, ..Contract::default() },
    )
    .map_err(|e| GeomError::InvalidParameter { what: "contract", reason: e.to_string() })?;
    assert!((report.measured_order - 2.0).abs() < 0.1, "order {}", report.measured_order);
    Ok(())
}

#[test]
fn chaplygin_sleigh_integrator_ends_along_the_knife_edge() -> Result<(), GeomError> {
    let sleigh = groupoid::nonholonomic::ChaplyginSleigh::new(1.0, 0.2, 0.5)?;
    let method = sleigh.integrator();
    let (theta0, u0, omega0) = (0.0, 1.0, 2.0);
    let q0 = SVector::from([0.0, 0.0, theta0]);
    let mut s = PhaseState::new(q0, sleigh.momentum(&sleigh.velocity(theta0, u0, omega0)));
    let e0 = sleigh.energy(&sleigh.velocity(theta0, u0, omega0));
    method.step_n(&mut s, 0.01, 4_000)?;
    let v = s.p.component_div(&SVector::from([1.0, 1.0, 0.2]));
    // energy is conserved by the sleigh; the midpoint DLA keeps it to O(h²)
    assert!((sleigh.energy(&v) - e0).abs() < 1e-4 * e0, "energy {} vs {e0}", sleigh.energy(&v));
    // the knife edge: no sideways velocity at the contact point
    let sideways = -s.q[2].sin() * v[0] + s.q[2].cos() * v[1] - 0.5 * v[2];
    assert!(sideways.abs() < 1e-12, "sideways velocity {sideways:e}");
    let heading = sleigh.limit_heading(theta0, u0, omega0).expect("a limit heading for u0 > 0");
    assert!((s.q[2] - heading).abs() < 1e-3, "heading {} vs limit {heading}", s.q[2]);
    Ok(())
}

#[test]
fn a_nonholonomic_integrator_of_a_users_constraint_is_symmetric() -> Result<(), Box<dyn std::error::Error>> {
    // a knife edge written by the user: q = (x, y, θ), ẏ cos θ − ẋ sin θ = 0, L = ½|v|²
    struct Edge;
    impl groupoid::nonholonomic::OneForms<3, 1> for Edge {
        fn eval<S: Scalar>(&self, q: &SVector<S, 3>) -> nalgebra::SMatrix<S, 1, 3> {
            nalgebra::SMatrix::<S, 1, 3>::new(-q[2].sin(), q[2].cos(), S::from(0.0))
        }
    }
    #[derive(Clone, Copy)]
    struct Free;
    impl ContinuousLagrangian<3> for Free {
        fn eval<S: Scalar>(&self, q: &SVector<S, 3>, v: &SVector<S, 3>) -> S {
            v.norm_squared() * S::from(0.5) - q[0].cos() * S::from(0.1)
        }
    }
    let method = NonholonomicIntegrator::<_, _, _, 3, 1, 4>::new(
        PairGroupoid::<3>,
        Stepped(time_dependent::Midpoint(Free)),
        MidpointConstraints(Edge),
    )
    .with_properties(2, true);
    let x0 = method.project(&PhaseState::new(SVector::from([0.1, 0.2, 0.3]), SVector::from([0.5, 0.1, 0.8])))?;
    let report = check_integrator(&method, &x0, &Contract { reversibility_tol: 1e-13, ..Contract::default() })?;
    assert!((report.measured_order - 2.0).abs() < 0.1, "order {}", report.measured_order);
    // declared symmetric but stepping without the projection would break reversibility: the
    // unprojected momentum differs from the state's by the reaction at the node
    let mut s = x0;
    method.step(&mut s, 0.05)?;
    assert!((s.p[0] * (-s.q[2].sin()) + s.p[1] * s.q[2].cos()).abs() < 1e-14);
    Ok(())
}
