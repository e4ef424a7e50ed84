//! Optimal control on Lie groups with the shipped models of `groupoid::control` (docs/math.md
//! §C.6.2): the cost `L(W) = (1/2h) τ⁻¹(W)ᵀ Q τ⁻¹(W)` and the unactuated directions
//! `A τ⁻¹(W) = 0`, on SO(3) (the exact geodesic), SE(2) (a kinematic car parking with its no-slip
//! constraint) and SE(3) (a vehicle without sway and heave thrusters), solved by shooting.
//!
//! Each solution is checked against what must hold and could fail: the endpoint, the constraint on
//! every arrow, the constrained discrete Euler–Lagrange equations (the flow), and optimality
//! against feasible competitors (a constrained optimum costs no more than any other feasible path
//! with the same steps, and no less than the unconstrained optimum).

use geom_core::lie::{Chart, LieGroup, Se2, Se3, So3, so3};
use groupoid::control::{ControlCost, Unactuated, no_slip_se2};
use groupoid::{ConstrainedFlow, DiscreteLagrangian, GroupAsGroupoid, NoConstraints, Shooting, ShootingOptions};
use nalgebra::{Matrix3, Matrix4, SVector, Vector3, Vector6};

/// `W_1 ⋯ W_n` and `Σ L(W_k)`.
fn product_and_cost<G, const D: usize>(
    gd: &GroupAsGroupoid<G>,
    cost: &ControlCost<D>,
    arrows: impl Iterator<Item = G::Element>,
) -> (G::Element, f64)
where
    G: geom_core::lie::LieGroupFamily<D>
        + LieGroup<f64, D, Element = <G as geom_core::lie::LieGroupFamily<D>>::ElementAt<f64>>,
{
    let mut g = gd.group().identity();
    let mut total = 0.0;
    for w in arrows {
        total += cost.eval::<f64>(gd, &w);
        g = gd.group().compose(&g, &w);
    }
    (g, total)
}

#[test]
fn so3_fully_actuated_control_is_the_exact_geodesic() {
    let (h, n) = (0.1, 12);
    let target = so3::exp(&Vector3::new(-0.4, 0.9, 1.1));
    let log_t = so3::log(&target);
    let gd = GroupAsGroupoid::new(So3, Chart::Exp);
    let cost = ControlCost::uniform(h).unwrap();
    let bvp = Shooting::new(ConstrainedFlow::<_, _, _, 3>::new(gd, cost, NoConstraints), n).unwrap();
    let guess = log_t / n as f64 * 1.2 + Vector3::new(0.02, -0.03, 0.01);
    let sol = bvp.solve(&target, &guess, &SVector::<f64, 0>::zeros()).unwrap();
    for p in &sol.trajectory {
        assert!((so3::log(&p.g) - log_t / n as f64).amax() < 1e-12);
    }
}

/// Parking a kinematic car: SE(2), `u = (θ̇, v_1, v_2)` with no slip `v_2 = 0`, from the origin
/// to `(x, y, θ) = (1, 0.4, 0.6)` in `T = 1` (`n = 20`), cost `½(θ̇² + v_1²)` (+ `v_2²`, which
/// the constraint makes zero).
#[test]
fn se2_car_parking_with_the_no_slip_constraint() {
    let (h, n) = (0.05, 20);
    let gd = GroupAsGroupoid::new(Se2, Chart::Exp);
    let cost = ControlCost::uniform(h).unwrap();
    let target = Matrix3::new(0.6f64.cos(), -0.6f64.sin(), 1.0, 0.6f64.sin(), 0.6f64.cos(), 0.4, 0.0, 0.0, 1.0);
    // guess: turn at the mean rate while driving the straight-line distance, no slip
    let guess = Vector3::new(0.6, (1.0f64 + 0.16).sqrt(), 0.0) * h;
    let car = Shooting::new(ConstrainedFlow::<_, _, _, 4>::new(gd, cost, no_slip_se2()), n).unwrap();
    let sol = car.solve_robust(&target, &guess, &SVector::<f64, 1>::zeros(), &ShootingOptions::default()).unwrap();
    assert!(sol.gauge.is_empty(), "the parking problem has an isolated solution");
    let mut max_slip = 0.0f64;
    for p in &sol.trajectory {
        let u = LieGroup::<f64, 3>::tau_inv(&Se2, Chart::Exp, &p.g).unwrap();
        max_slip = max_slip.max(u[2].abs());
    }
    let (end, car_cost) = product_and_cost(&gd, &cost, sol.trajectory.iter().map(|p| p.g));
    println!(
        "SE(2) car: cost {car_cost:.6}, max |v2| {max_slip:.1e}, {} iterations, residual {:.1e}",
        sol.iterations, sol.residual
    );
    assert!(max_slip <= 1e-12, "no slip: {max_slip:e}");
    assert!((end - target).amax() <= 1e-10, "endpoint {:e}", (end - target).amax());

    // a feasible competitor with the same n arrows: turn to face the goal, drive, turn to 0.6
    let heading = 0.4f64.atan2(1.0);
    let dist = (1.0f64 + 0.16).sqrt();
    let third = n / 4;
    let mut arrows = Vec::new();
    for k in 0..n {
        let u = if k < third {
            Vector3::new(heading / third as f64, 0.0, 0.0)
        } else if k < n - third {
            Vector3::new(0.0, dist / (n - 2 * third) as f64, 0.0)
        } else {
            Vector3::new((0.6 - heading) / third as f64, 0.0, 0.0)
        };
        arrows.push(Se2.exp(&u));
    }
    let (end2, other_cost) = product_and_cost(&gd, &cost, arrows.into_iter());
    assert!((end2 - target).amax() < 1e-12, "the competitor is feasible");
    assert!(car_cost < other_cost, "optimum {car_cost} must beat turn–drive–turn {other_cost}");

    // without the constraint (a holonomic robot) the optimum slips and costs less
    let free = Shooting::new(ConstrainedFlow::<_, _, _, 3>::new(gd, cost, NoConstraints), n).unwrap();
    let fsol = free.solve(&target, &guess, &SVector::<f64, 0>::zeros()).unwrap();
    let (_, free_cost) = product_and_cost(&gd, &cost, fsol.trajectory.iter().map(|p| p.g));
    let slip = fsol
        .trajectory
        .iter()
        .map(|p| LieGroup::<f64, 3>::tau_inv(&Se2, Chart::Exp, &p.g).unwrap()[2].abs())
        .fold(0.0, f64::max);
    assert!(slip > 1e-3, "the unconstrained optimum slips ({slip:e})");
    assert!(free_cost < car_cost, "unconstrained {free_cost} < constrained {car_cost}");
}

/// SE(3): a vehicle with surge, roll, pitch and yaw controls but no sway or heave thrusters
/// (`v_2 = v_3 = 0` in the body; coordinates `(ω, v)`, rotation first), with weights
/// `Q = diag(1, 1, 1, 2, 2, 2)`, reaching a pose ahead of it, turned and displaced sideways.
#[test]
fn se3_vehicle_without_sway_and_heave() {
    let (h, n) = (0.1, 10);
    let gd = GroupAsGroupoid::new(Se3, Chart::Cayley);
    let cost = ControlCost::new(h, Vector6::new(1.0, 1.0, 1.0, 2.0, 2.0, 2.0)).unwrap();
    let goal = Vector6::new(0.1, -0.2, 0.5, 1.5, 0.3, -0.2);
    let target: Matrix4<f64> = Se3.exp(&goal);
    let guess = Vector6::new(0.1, -0.2, 0.5, 1.5, 0.0, 0.0) / n as f64;
    let sway_heave = Unactuated::<6, 2>::axes([4, 5]).unwrap();
    let veh = Shooting::new(ConstrainedFlow::<_, _, _, 8>::new(gd, cost, sway_heave), n).unwrap();
    let sol = veh.solve_robust(&target, &guess, &SVector::<f64, 2>::zeros(), &ShootingOptions::default()).unwrap();
    let mut max_side = 0.0f64;
    for p in &sol.trajectory {
        let u = LieGroup::<f64, 6>::tau_inv(&Se3, Chart::Cayley, &p.g).unwrap();
        max_side = max_side.max(u[4].abs()).max(u[5].abs());
    }
    let (end, c) = product_and_cost(&gd, &cost, sol.trajectory.iter().map(|p| p.g));
    println!("SE(3) vehicle: cost {c:.6}, max |v2|,|v3| {max_side:.1e}, residual {:.1e}", sol.residual);
    assert!(max_side <= 1e-12, "{max_side:e}");
    assert!((end - target).amax() <= 1e-10, "endpoint {:e}", (end - target).amax());
    // fully actuated: cheaper, and it uses the sway/heave directions
    let free = Shooting::new(ConstrainedFlow::<_, _, _, 6>::new(gd, cost, NoConstraints), n).unwrap();
    let fsol = free.solve(&target, &(goal / n as f64), &SVector::<f64, 0>::zeros()).unwrap();
    let (end_f, cf) = product_and_cost(&gd, &cost, fsol.trajectory.iter().map(|p| p.g));
    assert!((end_f - target).amax() <= 1e-10);
    assert!(cf < c, "fully actuated {cf} < underactuated {c}");
    // and no more than the constant-control path W = cay(τ⁻¹(target)/n)… which is feasible for
    // the fully actuated problem only if cay(x/n)^n = target; use exp's one-parameter subgroup
    let w = Se3.exp(&(goal / n as f64));
    let (end_c, cc) = product_and_cost(&gd, &cost, std::iter::repeat_n(w, n));
    assert!((end_c - target).amax() < 1e-12);
    assert!(cf <= cc + 1e-14, "optimum {cf} must not exceed the one-parameter subgroup's {cc}");
}

#[test]
fn bad_models_are_typed_errors() {
    assert!(ControlCost::<3>::new(0.0, Vector3::repeat(1.0)).is_err());
    assert!(ControlCost::<3>::new(0.1, Vector3::new(1.0, -1.0, 1.0)).is_err());
    assert!(Unactuated::<3, 1>::axes([5]).is_err());
    assert!(Unactuated::<3, 2>::axes([0, 0]).is_err());
    let dependent = nalgebra::SMatrix::<f64, 2, 3>::new(1.0, 0.0, 0.0, 2.0, 0.0, 0.0);
    assert!(Unactuated::<3, 2>::new(dependent).is_err());
    let nan = nalgebra::SMatrix::<f64, 1, 3>::new(f64::NAN, 0.0, 1.0);
    assert!(Unactuated::<3, 1>::new(nan).is_err());
}
