//! Discrete optimal control on SO(3) (docs/math.md §C.6.2; Marrero, Martín de Diego & Stern,
//! *Symplectic groupoids and discrete constrained Lagrangian mechanics*, 2015, arXiv:1103.6250,
//! §6): the fully actuated discrete geodesic BVP and the underactuated one (no control about body
//! axis 3, one multiplier per step), by shooting.

use geom_core::Scalar;
use geom_core::lie::{Chart, LieGroup, So3, so3};
use groupoid::bvp::Shooting;
use groupoid::constraints::{ConstrainedFlow, Constraints, NoConstraints};
use groupoid::variational::{action_gradient, tangent_gradient};
use groupoid::{DiscreteLagrangian, GroupAsGroupoid};
use nalgebra::{Matrix3, SVector, Vector3};

type Gd = GroupAsGroupoid<So3>;

/// `L(W) = (h/2)|τ^{-1}(W)/h|²` (docs/math.md §C.6.2); `τ` is the groupoid's chart.
#[derive(Clone)]
struct Control {
    h: f64,
}
impl DiscreteLagrangian<Gd, 3> for Control {
    fn eval<S: Scalar>(&self, gd: &Gd, w: &Matrix3<S>) -> S {
        let xi = gd.group().tau_inv(gd.chart(), w).unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        xi.norm_squared() * S::from(0.5 / self.h)
    }
}

/// `φ(W) = ⟨e3, τ^{-1}(W)⟩`: no control about body axis 3.
#[derive(Clone)]
struct NoAxis3;
impl Constraints<Gd, 3, 1> for NoAxis3 {
    fn eval<S: Scalar>(&self, gd: &Gd, w: &Matrix3<S>) -> SVector<S, 1> {
        let xi = gd.group().tau_inv(gd.chart(), w).unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        SVector::from([xi[2]])
    }
}

fn rot(x: f64, y: f64, z: f64) -> Matrix3<f64> {
    so3::exp(&Vector3::new(x, y, z))
}

#[test]
fn fully_actuated_bvp_is_the_exact_geodesic() {
    let (h, n) = (0.1, 12);
    let g0 = rot(0.3, -0.5, 0.2);
    let gn = rot(-0.4, 0.9, 1.1);
    let target = g0.transpose() * gn;
    let log_t = so3::log(&target);
    for chart in [Chart::Exp, Chart::Cayley] {
        let gd = GroupAsGroupoid::new(So3, chart);
        let flow = ConstrainedFlow::<_, _, _, 3>::new(gd, Control { h }, NoConstraints);
        let bvp = Shooting::new(flow, n).unwrap();
        // a guess 30 % off the geodesic step, rotated off its axis
        let w = so3::exp(&(log_t / n as f64));
        let guess = gd.group().tau_inv(chart, &w).unwrap() * 1.3 + Vector3::new(0.02, -0.03, 0.01);
        let sol = bvp.solve(&target, &guess, &SVector::<f64, 0>::zeros()).unwrap();
        // exact geodesic: every W_k = exp(log(g0^{-1} g_N)/N), i.e. ξ = log(g0^{-1}g_N)/(N h) at the
        // nodes, R_k = g0 exp(k log(g0^{-1} g_N)/N)
        let xi = log_t / (n as f64 * h);
        let mut r = g0;
        let (mut max_xi, mut max_node) = (0.0f64, 0.0f64);
        for (k, p) in sol.trajectory.iter().enumerate() {
            max_xi = max_xi.max((so3::log(&p.g) / h - xi).amax());
            r *= p.g;
            max_node = max_node.max((r - g0 * so3::exp(&(log_t * ((k + 1) as f64 / n as f64)))).amax());
        }
        println!(
            "SO(3) geodesic BVP ({}): {} Newton iterations, residuals {:?}, max|ξ_k − ξ| = {max_xi:.2e}, max node error {max_node:.2e}",
            chart.name(),
            sol.report.iterations,
            sol.residuals.iter().map(|r| format!("{r:.1e}")).collect::<Vec<_>>()
        );
        // solver tolerance: outer residual <= 1e-12 on |log(g^-1 W_1...W_N)|, inner steps 1e-14;
        // ξ = log(W)/h amplifies by 1/h = 10
        assert!(max_xi < 1e-11, "{max_xi:e}");
        assert!(max_node < 1e-12, "{max_node:e}");
        assert!(sol.report.iterations <= 8);
    }
}

#[test]
fn underactuated_bvp_converges_quadratically_and_satisfies_its_constraints() {
    let (h, n) = (0.1, 10);
    let target = rot(0.35, -0.25, 0.08);
    for chart in [Chart::Cayley, Chart::Exp] {
        let gd = GroupAsGroupoid::new(So3, chart);
        let flow = ConstrainedFlow::<_, _, _, 4>::new(gd, Control { h }, NoAxis3);
        let bvp = Shooting::new(flow.clone(), n).unwrap();
        // guess: the fully actuated step with its axis-3 component removed, no multiplier
        let mut guess = so3::log(&target) / n as f64;
        guess[2] = 0.0;
        let sol = bvp.solve(&target, &guess, &SVector::from([0.0])).unwrap();
        // constraints at every step, and the fixed product
        let max_phi = sol.trajectory.iter().map(|p| NoAxis3.eval::<f64>(&gd, &p.g)[0].abs()).fold(0.0, f64::max);
        let product = sol.trajectory.iter().fold(Matrix3::identity(), |acc, p| acc * p.g);
        let end = so3::log(&(target.transpose() * product)).amax();
        // the multipliers are genuinely nonzero (the constraint is active)
        let max_lambda = sol.trajectory.iter().map(|p| p.lambda[0].abs()).fold(0.0, f64::max);
        // quadratic convergence of the outer Newton: errors e_j = |u_j − u*|
        let u_star = *sol.iterates.last().unwrap();
        let errors: Vec<f64> = sol.iterates.iter().map(|u| (u - u_star).amax()).collect();
        println!(
            "underactuated SO(3) BVP ({}): iterations {}, |E(u_j)| = {:?}, |u_j − u*| = {:?}, max|φ| = {max_phi:.1e}, end defect {end:.1e}, max|λ| = {max_lambda:.2e}",
            chart.name(),
            sol.report.iterations,
            sol.residuals.iter().map(|r| format!("{r:.1e}")).collect::<Vec<_>>(),
            errors.iter().map(|r| format!("{r:.1e}")).collect::<Vec<_>>()
        );
        assert!(max_phi < 1e-13, "{max_phi:e}");
        assert!(end < 1e-12, "{end:e}");
        assert!(max_lambda > 1e-3, "{max_lambda:e}");
        // quadratic: e_{j+1} <= C e_j² wherever e_j is above round-off (1e-10), with C = 10 (the
        // measured constants are ~1; linear convergence at any rate < 1 fails once e_j < 0.1/C)
        let mut checked = 0;
        for w in errors.windows(2) {
            if w[0] > 1e-10 && w[0] < 0.1 {
                assert!(w[1] <= 10.0 * w[0] * w[0], "not quadratic: {:e} -> {:e}", w[0], w[1]);
                checked += 1;
            }
        }
        assert!(checked >= 2, "too few iterations to judge the rate: {errors:?}");
        // the step system is regular along the solution (Marrero et al. 2015, Thm 2.16: both
        // Jacobians)
        for p in &sol.trajectory {
            let reg = flow.regularity(p).unwrap();
            assert!(reg.condition_minus < 1e6 && reg.condition_plus < 1e6, "{reg:?}");
        }
        // and it is a stationary point of the action sum on N (Marrero et al. 2015, §5)
        let grad = action_gradient(&gd, flow.lagrangian(), &NoAxis3, &sol.trajectory);
        let max_grad = grad.iter().map(|g| g.amax()).fold(0.0, f64::max);
        let arrows: Vec<_> = sol.trajectory.iter().map(|p| p.g).collect();
        let tg = tangent_gradient(&gd, flow.lagrangian(), &NoAxis3, &arrows).unwrap().amax();
        println!("  action gradient with multipliers {max_grad:.1e}, tangent gradient {tg:.1e}");
        assert!(max_grad < 1e-12 && tg < 1e-12, "{max_grad:e} {tg:e}");
    }
}

#[test]
fn shooting_jacobian_is_exact() {
    // DE(u) from tangent propagation against central differences of E (step 1e-6: truncation
    // ~1e-12·|D³E|, round-off ~1e-16/1e-6 = 1e-10 amplified by |E| ~ 1): agreement to 1e-7 (the
    // measured difference ~1e-9); a wrong block (e.g. dropping the ζ_{k−1} coupling) is O(1) off
    let (h, n) = (0.1, 6);
    let target = rot(0.35, -0.25, 0.3);
    let gd = GroupAsGroupoid::new(So3, Chart::Cayley);
    let bvp = Shooting::new(ConstrainedFlow::<_, _, _, 4>::new(gd, Control { h }, NoAxis3), n).unwrap();
    let u = SVector::<f64, 4>::from([0.05, -0.03, 0.004, 0.2]);
    let (_, jac) = bvp.residual(&target, &u).unwrap();
    let eps = 1e-6;
    let mut worst: f64 = 0.0;
    for c in 0..4 {
        let mut du = SVector::<f64, 4>::zeros();
        du[c] = eps;
        let (ep, _) = bvp.residual(&target, &(u + du)).unwrap();
        let (em, _) = bvp.residual(&target, &(u - du)).unwrap();
        let fd = (ep - em) / (2.0 * eps);
        worst = worst.max((fd - jac.column(c)).amax());
    }
    println!("shooting Jacobian vs central differences: max difference {worst:.2e} (|J| = {:.2e})", jac.amax());
    assert!(worst < 1e-7, "{worst:e}");
}
