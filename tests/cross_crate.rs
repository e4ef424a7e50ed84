//! Cross-crate test (issue "groupoid", tests that must exist): for a discrete Lagrangian built
//! from a θ discretization map, `L_d(q_0, q_1) = h L(R_d^{-1}(q_0, q_1)/h)` with
//! `R_d^{-1}(q_0, q_1) = ((1−θ) q_0 + θ q_1, q_1 − q_0)` (docs/math.md §A.2, B.1 "Lagrangian
//! version"), the discrete Euler–Lagrange flow on the pair groupoid `R^N × R^N` (groupoid crate,
//! `DiscreteFlow`) reproduces the `discretization` crate's `CotangentLiftIntegrator` with the same
//! `ThetaMap` for the Legendre-related Hamiltonian: the same trajectory to round-off, compared
//! through `q_k = β(g_{k−1})` and `p_k = F^+L(g_{k−1})` (docs/math.md §C.3).
//!
//! Why they agree (mechanical `L = ½vᵀMv − V`, `H = ½pᵀM^{-1}p + V`): with `v = (q_1 − q_0)/h` and
//! `q̄ = (1−θ)q_0 + θq_1`, `p_k = −D_1L_d = Mv + (1−θ)h∇V(q̄)` and `p_{k+1} = D_2L_d = Mv − θh∇V(q̄)`,
//! so `p_{k+1} = p_k − h∇V(q̄)` and `p̄ = θp_k + (1−θ)p_{k+1} = Mv`, i.e. `q_{k+1} = q_k + hM^{-1}p̄`:
//! exactly the reduced θ system of `discretization::hamiltonian`.

use discretization::{CotangentLiftIntegrator, DiscretizationMap, PhaseState, ThetaMap};
use geom_core::Scalar;
use geom_core::function::{AutoDiff, PhaseSpaceFunction};
use groupoid::{DiscreteFlow, DiscreteLagrangian, PairGroupoid, legendre_minus, legendre_plus};
use nalgebra::SVector;

const N: usize = 3;
const MASS: [f64; N] = [1.0, 2.0, 0.5];

/// `V(q) = −Σ cos q_i + ¼ (q_0 q_1)² + q_2⁴/8`.
fn potential<S: Scalar>(q: &SVector<S, N>) -> S {
    -(q[0].cos() + q[1].cos() + q[2].cos()) + (q[0] * q[1]).powi(2) * S::from(0.25) + q[2].powi(4) * S::from(0.125)
}

/// `H = ½ pᵀ M^{-1} p + V(q)`.
struct Hamiltonian;
impl PhaseSpaceFunction<N> for Hamiltonian {
    fn eval<S: Scalar>(&self, q: &SVector<S, N>, p: &SVector<S, N>) -> S {
        let kinetic = (0..N).map(|i| p[i] * p[i] * S::from(0.5 / MASS[i])).fold(S::from(0.0), |a, b| a + b);
        kinetic + potential(q)
    }
}

/// `L(q, v) = ½ vᵀ M v − V(q)`.
fn lagrangian<S: Scalar>(q: &SVector<S, N>, v: &SVector<S, N>) -> S {
    let kinetic = (0..N).map(|i| v[i] * v[i] * S::from(0.5 * MASS[i])).fold(S::from(0.0), |a, b| a + b);
    kinetic - potential(q)
}

/// `L_d(q_0, q_1) = h L(x, v/h)` with `(x, v) = R_d^{-1}(q_0, q_1)` of the θ-map (generic over the
/// scalar: the θ-map is affine, `R_d^{-1}(q_0, q_1) = ((1−θ) q_0 + θ q_1, q_1 − q_0)`; checked
/// against `ThetaMap::inverse` at f64 below).
struct ThetaLagrangian {
    map: ThetaMap<N>,
    h: f64,
}
impl ThetaLagrangian {
    fn inverse<S: Scalar>(&self, q0: &SVector<S, N>, q1: &SVector<S, N>) -> (SVector<S, N>, SVector<S, N>) {
        let theta = S::from(self.map.value());
        (q0 * (S::from(1.0) - theta) + q1 * theta, q1 - q0)
    }
}
impl DiscreteLagrangian<PairGroupoid<N>, N> for ThetaLagrangian {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<N>, g: &(SVector<S, N>, SVector<S, N>)) -> S {
        let (x, v) = self.inverse(&g.0, &g.1);
        lagrangian(&x, &(v / S::from(self.h))) * S::from(self.h)
    }
}

#[test]
fn theta_discrete_lagrangian_reproduces_the_cotangent_lift_integrator() {
    let h = 0.05;
    let steps = 2000;
    for theta in [0.0, 0.3, 0.5, 1.0] {
        let map = ThetaMap::<N>::new(theta).unwrap();
        let hamiltonian = CotangentLiftIntegrator::new(map, AutoDiff(Hamiltonian));
        let ld = ThetaLagrangian { map, h };
        // the generic R_d^{-1} is the discretization crate's
        let (a, b) = (SVector::from([0.3, -0.1, 0.7]), SVector::from([0.2, 0.4, 0.5]));
        let (x, v) = map.inverse(&a, &b).unwrap();
        let (xg, vg) = ld.inverse(&a, &b);
        assert!((x - xg).norm() < 1e-16 && (v - vg).norm() < 1e-16);

        let flow = DiscreteFlow::new(PairGroupoid::<N>, ld);
        let mut state = PhaseState::new(SVector::from([0.5, -0.3, 1.0]), SVector::from([0.2, 0.6, -0.4]));
        // first arrow: q_1 from one step of the Hamiltonian integrator; it satisfies F^-L(g_0) = p_0
        let next = hamiltonian.advance(&state, h).unwrap();
        let mut g = (state.q, next.q);
        let f_minus = legendre_minus(&PairGroupoid::<N>, flow.lagrangian(), &g);
        assert!(
            (f_minus - state.p).norm() < 1e-13,
            "θ = {theta}: F^-L(g_0) - p_0 = {:.2e}",
            (f_minus - state.p).norm()
        );
        state = next;
        let (mut dq, mut dp, mut d1) = (0.0f64, 0.0f64, 0.0f64);
        for _ in 0..steps {
            // one step from the same state: q_{k+1} and p_{k+1} of both methods
            let one = hamiltonian
                .advance(&PhaseState::new(g.1, legendre_plus(&PairGroupoid::<N>, flow.lagrangian(), &g)), h)
                .unwrap();
            g = flow.step(&g).unwrap().0;
            state = hamiltonian.advance(&state, h).unwrap();
            let p = legendre_plus(&PairGroupoid::<N>, flow.lagrangian(), &g);
            d1 = d1.max((one.q - g.1).norm()).max((one.p - p).norm());
            dq = dq.max((state.q - g.1).norm());
            dp = dp.max((state.p - p).norm());
        }
        println!("θ = {theta}: {steps} steps, one step {d1:.2e}, trajectory |Δq| {dq:.2e}, |Δp| {dp:.2e}");
        assert!(d1 < 1e-13 && dq < 1e-11 && dp < 1e-11, "θ = {theta}");
    }
}

/// Moser–Veselov `L(W) = (1/h) tr((I₃ − W) J_d)`, `J_d = ½ tr(J) I₃ − J`, on the Lie group
/// SO(3) as a groupoid over a point.
struct MoserVeselov {
    jd: nalgebra::Matrix3<f64>,
    h: f64,
}
impl groupoid::DiscreteLagrangian<groupoid::GroupAsGroupoid<geom_core::lie::So3>, 3> for MoserVeselov {
    fn eval<S: Scalar>(&self, _: &groupoid::GroupAsGroupoid<geom_core::lie::So3>, w: &nalgebra::Matrix3<S>) -> S {
        ((nalgebra::Matrix3::identity() - w) * self.jd.map(S::from)).trace() * S::from(1.0 / self.h)
    }
}

/// Lee–Leok–McClamroch's integrator (`integrators::lgvi`) on the free body is the groupoid
/// crate's discrete Euler–Poincaré flow of the Moser–Veselov Lagrangian: with `R_k` the
/// configurations, the arrows `W_k = R_kᵀR_{k+1}` are the LGVI's `F_k`, and `Π_{k+1} = F^+L(W_k)`.
#[test]
fn lgvi_is_the_groupoid_moser_veselov_flow() {
    use discretization::OneStep;
    use geom_core::lie::{Chart, So3, so3};
    use nalgebra::{Matrix3, Vector3};
    let h = 0.05;
    let inertia = Matrix3::new(1.0, 0.1, 0.0, 0.1, 2.0, -0.2, 0.0, -0.2, 2.5);
    let jd = Matrix3::identity() * (0.5 * inertia.trace()) - inertia;
    let gd = groupoid::GroupAsGroupoid::new(So3, Chart::Cayley);
    let flow = DiscreteFlow::new(gd, MoserVeselov { jd, h });
    let lgvi = integrators::lgvi::Lgvi::new(integrators::models::FreeRigidBody::new(inertia).unwrap()).unwrap();
    let mut w = so3::exp(&(Vector3::new(1.0, 0.3, -0.6) * h));
    let mut s = integrators::hp::LieState::new(w, legendre_plus(&gd, flow.lagrangian(), &w));
    let (mut dw, mut dpi) = (0.0f64, 0.0f64);
    for _ in 0..200 {
        let before = s.g;
        lgvi.step(&mut s, h).unwrap();
        w = flow.step(&w).unwrap().0;
        dw = dw.max((before.tr_mul(&s.g) - w).amax());
        dpi = dpi.max((legendre_plus(&gd, flow.lagrangian(), &w) - s.mu).amax());
    }
    assert!(dw <= 1e-11 && dpi <= 1e-11, "W: {dw:e}, Π: {dpi:e}");
}
