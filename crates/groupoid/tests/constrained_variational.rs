//! The constrained discrete variational principle (Marrero, Martín de Diego & Stern, *Symplectic
//! groupoids and discrete constrained Lagrangian mechanics*, 2015, arXiv:1103.6250, §5): the
//! gradient of the action sum over admissible variations (fixed product) is the discrete
//! Euler–Lagrange residual, checked against finite differences of the action sum on three
//! groupoids, and it vanishes along computed trajectories — with the multipliers (regular systems)
//! and without them, projected on the tangent space of `N` (also for the non-regular holonomic
//! `N = S × S`).

use geom_core::Scalar;
use geom_core::lie::{Chart, LieGroup, So3, so3};
use groupoid::constraints::{
    Augmented, BaseConstraints, ConstrainedFlow, Constraints, HolonomicFlow, NoConstraints, SigmaPoint,
};
use groupoid::variational::{action_gradient, action_sum, product, tangent_gradient, vary};
use groupoid::{DiscreteFlow, DiscreteLagrangian, GroupAsGroupoid, PairGroupoid};
use nalgebra::{Matrix3, SVector, Vector3};

/// `L̂ = |q1 − q0|²/(2h) − (h/2)(V(q0) + V(q1))`, `V = g e3·q`.
struct Pendulum {
    h: f64,
}
impl DiscreteLagrangian<PairGroupoid<3>, 3> for Pendulum {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, g: &(Vector3<S>, Vector3<S>)) -> S {
        let h = S::from(self.h);
        (g.1 - g.0).norm_squared() / (h * S::from(2.0)) - h * S::from(0.5 * 9.81) * (g.0[2] + g.1[2])
    }
}
struct UnitSphere;
impl BaseConstraints<PairGroupoid<3>, 3, 1> for UnitSphere {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, q: &Vector3<S>) -> SVector<S, 1> {
        SVector::from([(q.norm_squared() - S::from(1.0)) * S::from(0.5)])
    }
}
/// `N = S × S`: `φ = (c(q0), c(q1))`.
struct BothEnds;
impl Constraints<PairGroupoid<3>, 3, 2> for BothEnds {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, g: &(Vector3<S>, Vector3<S>)) -> SVector<S, 2> {
        let c = |q: &Vector3<S>| (q.norm_squared() - S::from(1.0)) * S::from(0.5);
        SVector::from([c(&g.0), c(&g.1)])
    }
}

type Gd = GroupAsGroupoid<So3>;
/// `L(W) = |τ^{-1}(W)|²/(2h) + ⟨a, τ^{-1}(W)⟩` (a linear term, so that L is not even).
struct Control {
    h: f64,
}
impl DiscreteLagrangian<Gd, 3> for Control {
    fn eval<S: Scalar>(&self, gd: &Gd, w: &Matrix3<S>) -> S {
        let xi = gd.group().tau_inv(gd.chart(), w).unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        xi.norm_squared() * S::from(0.5 / self.h) + xi[0] * S::from(0.3)
    }
}
struct NoAxis3;
impl Constraints<Gd, 3, 1> for NoAxis3 {
    fn eval<S: Scalar>(&self, gd: &Gd, w: &Matrix3<S>) -> SVector<S, 1> {
        let xi = gd.group().tau_inv(gd.chart(), w).unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        SVector::from([xi[2] + xi[0] * xi[1]])
    }
}

/// Central differences of the augmented action sum `Σ (L̂ + λ_k·φ)(g_k(ζ))` along each interior
/// variation, against [`action_gradient`]. Step 1e-5: truncation ~1e-10·|D³S|, round-off
/// ~1e-16·|S|/1e-5; agreement to 1e-7 relative to the gradient's scale.
fn fd_check<G, L, C, const R: usize, const K: usize>(
    gd: &G,
    lag: &L,
    con: &C,
    traj: &[SigmaPoint<groupoid::lagrangian::Arrow<G, R>, K>],
) -> f64
where
    G: groupoid::AdGroupoid<R>,
    L: DiscreteLagrangian<G, R>,
    C: Constraints<G, R, K>,
{
    let arrows: Vec<_> = traj.iter().map(|p| p.g.clone()).collect();
    let grad = action_gradient(gd, lag, con, traj);
    let augmented_sum = |zetas: &[SVector<f64, R>]| -> f64 {
        let varied = vary(gd, &arrows, zetas).unwrap();
        varied.iter().zip(traj).map(|(g, p)| Augmented::new(lag, con, p.lambda).eval::<f64>(gd, g)).sum()
    };
    let eps = 1e-5;
    let scale = grad.iter().map(|g| g.amax()).fold(1.0, f64::max);
    let mut worst: f64 = 0.0;
    for k in 0..arrows.len() - 1 {
        for i in 0..R {
            let mut zp = vec![SVector::<f64, R>::zeros(); arrows.len() - 1];
            let mut zm = zp.clone();
            zp[k][i] = eps;
            zm[k][i] = -eps;
            let fd = (augmented_sum(&zp) - augmented_sum(&zm)) / (2.0 * eps);
            worst = worst.max((fd - grad[k][i]).abs() / scale);
        }
    }
    worst
}

#[test]
fn action_gradient_is_the_derivative_of_the_action_sum() {
    // arbitrary (non-solution) sequences with arbitrary multipliers, on three groupoids
    let pts = [
        Vector3::new(0.1, 0.2, -0.9),
        Vector3::new(0.3, 0.1, -0.8),
        Vector3::new(0.4, -0.2, -0.85),
        Vector3::new(0.2, -0.4, -0.7),
    ];
    let pair: Vec<_> = pts
        .windows(2)
        .enumerate()
        .map(|(k, w)| SigmaPoint::new((w[0], w[1]), SVector::from([0.3 * k as f64, -0.5])))
        .collect();
    let d_pair = fd_check(&PairGroupoid::<3>, &Pendulum { h: 0.1 }, &BothEnds, &pair);

    let gd = GroupAsGroupoid::new(So3, Chart::Cayley);
    let group: Vec<_> = (0..4)
        .map(|k| {
            SigmaPoint::new(
                so3::exp(&Vector3::new(0.1 + 0.05 * k as f64, -0.2, 0.15 * k as f64)),
                SVector::from([0.7 - 0.2 * k as f64]),
            )
        })
        .collect();
    let d_group = fd_check(&gd, &Control { h: 0.1 }, &NoAxis3, &group);

    // the variation keeps the product (fixed endpoints) and composability
    let arrows: Vec<Matrix3<f64>> = group.iter().map(|p| p.g).collect();
    let zetas = vec![Vector3::new(0.1, -0.2, 0.3), Vector3::new(0.0, 0.4, -0.1), Vector3::new(-0.3, 0.1, 0.2)];
    let varied = vary(&gd, &arrows, &zetas).unwrap();
    let d_product = (product(&gd, &varied).unwrap() - product(&gd, &arrows).unwrap()).amax();
    let pair_arrows: Vec<_> = pair.iter().map(|p| p.g).collect();
    let pv =
        vary(&PairGroupoid::<3>, &pair_arrows, &[Vector3::new(0.1, 0.0, 0.0), Vector3::new(0.0, 0.2, 0.0)]).unwrap();
    let composable = product(&PairGroupoid::<3>, &pv).is_ok();
    println!(
        "action gradient vs central differences: pair groupoid R³ {d_pair:.1e}, SO(3) {d_group:.1e}; variation keeps the product to {d_product:.1e}"
    );
    assert!(d_pair < 1e-7 && d_group < 1e-7, "{d_pair:e} {d_group:e}");
    assert!(d_product < 1e-14 && composable);
    assert!(vary(&gd, &arrows, &zetas[..2]).is_err(), "wrong number of variations must be refused");
}

#[test]
fn unconstrained_and_regular_trajectories_are_stationary() {
    // unconstrained DEL on SO(3) (N = G): the gradient without multipliers vanishes
    let gd = GroupAsGroupoid::new(So3, Chart::Exp);
    let flow = DiscreteFlow::new(gd, Control { h: 0.1 });
    let mut w = so3::exp(&Vector3::new(0.05, -0.02, 0.04));
    let mut free = vec![SigmaPoint::new(w, SVector::<f64, 0>::zeros())];
    for _ in 0..30 {
        w = flow.step(&w).unwrap().0;
        free.push(SigmaPoint::new(w, SVector::zeros()));
    }
    let g_free =
        action_gradient(&gd, flow.lagrangian(), &NoConstraints, &free).iter().map(|g| g.amax()).fold(0.0, f64::max);
    // regular constrained trajectory on SO(3): with its multipliers, and multiplier-free (tangent)
    let cflow = ConstrainedFlow::<_, _, _, 4>::new(gd, Control { h: 0.1 }, NoAxis3);
    let w0 = LieGroup::<f64, 3>::tau(&So3, Chart::Exp, &Vector3::new(0.05, 0.02, -0.001)).unwrap();
    let traj = cflow.trajectory(&SigmaPoint::new(w0, SVector::from([0.4])), 30).unwrap();
    let g_con = action_gradient(&gd, cflow.lagrangian(), &NoAxis3, &traj).iter().map(|g| g.amax()).fold(0.0, f64::max);
    let arrows: Vec<_> = traj.iter().map(|p| p.g).collect();
    let g_tan = tangent_gradient(&gd, cflow.lagrangian(), &NoAxis3, &arrows).unwrap().amax();
    // the multipliers matter: without them the (unprojected) gradient is the constraint force
    let zero: Vec<_> = traj.iter().map(|p| SigmaPoint::new(p.g, SVector::from([0.0]))).collect();
    let g_plain =
        action_gradient(&gd, cflow.lagrangian(), &NoAxis3, &zero).iter().map(|g| g.amax()).fold(0.0, f64::max);
    println!(
        "stationarity: unconstrained SO(3) {g_free:.1e}; constrained SO(3) with multipliers {g_con:.1e}, tangent {g_tan:.1e} \
         (plain gradient {g_plain:.1e}); action sum {:.6}",
        action_sum(&gd, cflow.lagrangian(), &arrows)
    );
    // solver tolerance (steps to 1e-14 on residuals of size ~1/h)
    assert!(g_free < 1e-12 && g_con < 1e-12 && g_tan < 1e-12, "{g_free:e} {g_con:e} {g_tan:e}");
    assert!(g_plain > 1e-3);
}

#[test]
fn shake_trajectory_is_stationary_on_s_times_s() {
    // the non-regular holonomic case: no multiplier split exists, but the projected gradient of the
    // plain action sum on N = S × S vanishes (Marrero et al. 2015, §5; docs/math.md §C.4, warning)
    let h = 0.02;
    let flow = HolonomicFlow::<_, _, _, 4>::new(PairGroupoid::<3>, Pendulum { h }, UnitSphere);
    let q0 = Vector3::new(0.6, 0.0, -0.8);
    let mut g = (q0, (q0 + Vector3::new(0.0, 1.2, 0.0) * h).normalize());
    let mut arrows = vec![g];
    for _ in 0..200 {
        g = flow.step(&g).unwrap().0;
        arrows.push(g);
    }
    let tangent = tangent_gradient(&PairGroupoid::<3>, flow.lagrangian(), &BothEnds, &arrows).unwrap().amax();
    let plain = tangent_gradient(&PairGroupoid::<3>, flow.lagrangian(), &NoConstraints, &arrows).unwrap().amax();
    // a perturbed sequence on N (nodes moved along the sphere) is not stationary
    let mut bent = arrows.clone();
    for k in 1..bent.len() {
        let q = (bent[k].0 + Vector3::new(1e-3 * (k as f64).sin(), 0.0, 0.0)).normalize();
        bent[k].0 = q;
        bent[k - 1].1 = q;
    }
    let bent_tangent = tangent_gradient(&PairGroupoid::<3>, flow.lagrangian(), &BothEnds, &bent).unwrap().amax();
    println!(
        "SHAKE trajectory ({} arrows): tangent gradient on N = S×S {tangent:.1e} (plain gradient {plain:.1e}); bent sequence on N {bent_tangent:.1e}",
        arrows.len()
    );
    assert!(tangent < 1e-11, "{tangent:e}");
    assert!(plain > 1e-2 && bent_tangent > 1e-4);
}
