//! Pair groupoids (docs/math.md §C.3, pair row): the DEL on `R^N × R^N` is the standard variational
//! integrator, here for a nonlinear potential, against a closed-form reference; and the DEL on
//! `S² × S²` (no multipliers: the sphere is the configuration space) conserves the Noether momentum
//! of the rotations about the vertical (docs/math.md §C.5, pair groupoid, diagonal action).

use geom_core::Scalar;
use groupoid::{
    DiscreteFlow, DiscreteLagrangian, LieGroupoid, PairGroupoid, SpherePair, legendre_minus, legendre_plus,
};
use nalgebra::{SVector, Vector2, Vector3};

/// Trapezoidal `L_d = h(½|v|² − ½(V(q_0) + V(q_1)))`, `v = (q_1 − q_0)/h`, Kepler `V = −1/|q|`.
struct KeplerTrapezoidal {
    h: f64,
}
impl DiscreteLagrangian<PairGroupoid<2>, 2> for KeplerTrapezoidal {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<2>, g: &(SVector<S, 2>, SVector<S, 2>)) -> S {
        let h = S::from(self.h);
        let v = (g.1 - g.0) / h;
        let pot = |q: &SVector<S, 2>| -q.norm().recip();
        (v.norm_squared() * S::from(0.5) - (pot(&g.0) + pot(&g.1)) * S::from(0.5)) * h
    }
}

#[test]
fn pair_del_with_a_nonlinear_potential_is_stormer_verlet() {
    // Its DEL are Störmer–Verlet: p_{k+1/2} = p_k − (h/2)∇V(q_k), q_{k+1} = q_k + h p_{k+1/2},
    // p_{k+1} = p_{k+1/2} − (h/2)∇V(q_{k+1}) (closed form, ∇V = q/|q|³).
    let h = 0.01;
    let grad = |q: &Vector2<f64>| q / q.norm().powi(3);
    let verlet = |q: &Vector2<f64>, p: &Vector2<f64>| {
        let half = p - grad(q) * (0.5 * h);
        let q1 = q + half * h;
        (q1, half - grad(&q1) * (0.5 * h))
    };
    let (mut q, mut p) = (Vector2::new(1.0, 0.0), Vector2::new(0.0, 1.2)); // e = 0.44
    let flow = DiscreteFlow::new(PairGroupoid::<2>, KeplerTrapezoidal { h });
    let (q1, p1) = verlet(&q, &p);
    let mut g = (q, q1);
    // the first arrow is the one with F^-L(g_0) = p_0
    assert!((legendre_minus(&PairGroupoid::<2>, flow.lagrangian(), &g) - p).norm() < 1e-13);
    (q, p) = (q1, p1);
    let (mut dq, mut dp, mut d1, mut iters) = (0.0f64, 0.0f64, 0.0f64, 0usize);
    for _ in 0..5000 {
        let (next, report) = flow.step(&g).unwrap();
        // one step from the same state (q_k, p_k = F^+L(g_{k-1}))
        let pk = legendre_plus(&PairGroupoid::<2>, flow.lagrangian(), &g);
        let (q_one, p_one) = verlet(&g.1, &pk);
        d1 = d1
            .max((next.1 - q_one).norm())
            .max((legendre_plus(&PairGroupoid::<2>, flow.lagrangian(), &next) - p_one).norm());
        iters = iters.max(report.iterations);
        (q, p) = verlet(&q, &p);
        dq = dq.max((next.1 - q).norm());
        dp = dp.max((legendre_plus(&PairGroupoid::<2>, flow.lagrangian(), &next) - p).norm());
        g = next;
    }
    println!(
        "Kepler, 5000 steps (about 2 orbits): one step {d1:.2e}; trajectory |q - q_SV| {dq:.2e}, |p - p_SV| {dp:.2e}; Newton iterations <= {iters}"
    );
    // one step agrees to round-off; along the orbit the round-off difference is sheared (Kepler
    // phase error grows linearly with an energy perturbation)
    // (p = (q_1 − q_0)/h − (h/2)∇V carries the round-off of q amplified by 1/h = 100)
    assert!(d1 < 1e-13 && dq < 2e-10 && dp < 2e-10);
}

/// `L_d(x_0, x_1) = |x_1 − x_0|²/(2h) − (h/2)(V(x_0) + V(x_1))`, `V = g e_3·x`, on `S² × S²`.
struct SphericalPendulum {
    h: f64,
}
impl DiscreteLagrangian<SpherePair, 2> for SphericalPendulum {
    fn eval<S: Scalar>(&self, _: &SpherePair, g: &(Vector3<S>, Vector3<S>)) -> S {
        (g.1 - g.0).norm_squared() * S::from(0.5 / self.h) - (g.0[2] + g.1[2]) * S::from(0.5 * self.h * 9.81)
    }
}

#[test]
fn spherical_pendulum_on_the_sphere_pair_groupoid_conserves_vertical_momentum() {
    let h = 0.01;
    let flow = DiscreteFlow::new(SpherePair, SphericalPendulum { h });
    let x0 = Vector3::new(0.6, 0.0, -0.8);
    let mut g = LieGroupoid::<f64, 2>::fibre_exp(&SpherePair, &x0, &Vector2::new(0.0, 0.02));
    // Noether (§C.5): J = F^+L(g)(X_ξ) with X_ξ(y) = e_3 × y in the frame E(y): J = ⟨F^+L, E(y)ᵀ(e_3 × y)⟩
    let momentum = |g: &(Vector3<f64>, Vector3<f64>)| {
        let pi = legendre_plus(&SpherePair, flow.lagrangian(), g);
        let (e1, e2) = SpherePair::frame(&g.1);
        let v = Vector3::z().cross(&g.1);
        pi[0] * e1.dot(&v) + pi[1] * e2.dot(&v)
    };
    // F^+L is the tangential part of the ambient D_2 L in the frame E(y): ambient p = E(y) F^+L
    let ambient = |g: &(Vector3<f64>, Vector3<f64>)| {
        let pi = legendre_plus(&SpherePair, flow.lagrangian(), g);
        let (e1, e2) = SpherePair::frame(&g.1);
        e1 * pi[0] + e2 * pi[1]
    };
    let energy = |g: &(Vector3<f64>, Vector3<f64>)| 0.5 * ambient(g).norm_squared() + 9.81 * g.1[2];
    let (j0, e0) = (momentum(&g), energy(&g));
    let (mut dj, mut de, mut dn) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..20_000 {
        g = flow.step(&g).unwrap().0;
        dj = dj.max((momentum(&g) - j0).abs());
        de = de.max((energy(&g) - e0).abs());
        dn = dn.max((g.1.norm() - 1.0).abs());
        // the shared node: α(g_{k+1}) = β(g_k) on the sphere
        let p = ambient(&g);
        let d2 = (g.1 - g.0) / h - Vector3::new(0.0, 0.0, 0.5 * h * 9.81);
        let tangential = d2 - g.1 * g.1.dot(&d2);
        assert!((p - tangential).norm() < 1e-11);
    }
    println!(
        "spherical pendulum on S^2 x S^2, 20000 steps (h = 0.01): J_z = {j0:.4}, |ΔJ_z| {dj:.2e}, |ΔE| {de:.2e} (E = {e0:.3}), ||x|-1| {dn:.2e}"
    );
    // round-off random walk over 2·10^4 steps
    assert!(dj < 5e-12 && dn < 1e-14 && de < 1e-3);
}
