//! Simplified Newton with final polishing ([`NewtonOptions::polish`]) is the default of every
//! integrator of this crate that freezes its Jacobian: a linearly converging iteration stopped
//! by the residual test leaves an error of about the tolerance (`1e-14`) in every step, and it
//! repeats with the same sign, so a conserved momentum drifts like `steps × tolerance`
//! (`≈ 1e-11` over `10^5` steps). Polished, the drift is a random walk of rounding errors.
//!
//! **Bound: `max_k |J_k - J_0| / |J_0| ≤ 10 ε √n` over `n = 10^5` steps** (`ε = 2.2e-16`,
//! `10 ε √n = 7.0e-13`): a few ulps of rounding per step in the update and in evaluating `J`,
//! accumulated as a random walk, with a factor of a few to spare. The unpolished iteration
//! (`polish: false`, the old default, printed with the polished one) stays above it for Kepler
//! (`7.5e-12`, asserted as the negative control); the tolerance times the number of steps is
//! `1e-9`.

use crate::common;

use common::{Kepler, kepler_start, planar_angular_momentum};
use discretization::lagrangian::LieGroupDiscreteEulerLagrange;
use discretization::lie_function::{LieAutoDiff, LieFunction};
use discretization::{
    AdvectedFunction, AdvectedLiePoissonIntegrator, AdvectedState, CotangentLiftIntegrator, LieCotangentLiftIntegrator,
    LieGroupThetaMap, LieLagrangianIntegrator, LiePoissonIntegrator, LieState, OneStep, ThetaMap,
};
use geom_core::Scalar;
use geom_core::action::SphereRotation;
use geom_core::function::ScalarFunction;
use geom_core::lie::{Chart, LieGroup, So3};
use geom_core::newton::{JacobianUpdate, NewtonOptions};
use nalgebra::{Matrix3, SVector, Vector3};

const STEPS: usize = 100_000;
const H: f64 = 0.05;
/// `10 ε √STEPS` (module documentation).
fn round_off_bound() -> f64 {
    10.0 * f64::EPSILON * (STEPS as f64).sqrt()
}

/// `max_k |J(z_k) - J(z_0)| / |J(z_0)|` over [`STEPS`] steps of size [`H`].
fn drift<S: Copy>(method: &dyn OneStep<S>, start: S, j: impl Fn(&S) -> f64) -> f64 {
    let j0 = j(&start);
    let mut s = start;
    let mut worst = 0.0f64;
    for _ in 0..STEPS {
        method.step(&mut s, H).unwrap();
        worst = worst.max((j(&s) - j0).abs());
    }
    worst / j0.abs()
}

/// The old default of the Lie-group integrators: [`NewtonOptions::lie_group`] unpolished.
fn unpolished() -> NewtonOptions {
    NewtonOptions::lie_group().with_polish(false)
}

const INERTIA: [f64; 3] = [1.0, 5.0, 6.0];

fn kinetic<S: Scalar>(pi: &SVector<S, 3>) -> S {
    (0..3).fold(S::from(0.0), |acc, i| acc + pi[i] * pi[i] / S::from(INERTIA[i])) * S::from(0.5)
}

/// Heavy top `H(R, Π) = ½ Πᵀ I⁻¹ Π + e3 · R e3`.
#[derive(Debug, Clone, Copy)]
struct HeavyTop;
impl<S: Scalar> LieFunction<S, So3, 3> for HeavyTop {
    fn eval(&self, _: &So3, r: &Matrix3<S>, pi: &SVector<S, 3>) -> S {
        kinetic(pi) + r[(2, 2)]
    }
}
/// The same body as a Lagrangian `L(R, Ω) = ½ Ωᵀ I Ω - e3 · R e3`.
#[derive(Debug, Clone, Copy)]
struct HeavyTopLagrangian;
impl<S: Scalar> LieFunction<S, So3, 3> for HeavyTopLagrangian {
    fn eval(&self, _: &So3, r: &Matrix3<S>, w: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |acc, i| acc + w[i] * w[i] * S::from(INERTIA[i])) * S::from(0.5) - r[(2, 2)]
    }
}
/// The reduced free-body Lagrangian `ℓ(Ω) = ½ Ωᵀ I Ω` and Hamiltonian `h(Π) = ½ Πᵀ I⁻¹ Π`.
struct FreeLagrangian;
impl ScalarFunction<3> for FreeLagrangian {
    fn eval<S: Scalar>(&self, w: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |acc, i| acc + w[i] * w[i] * S::from(INERTIA[i])) * S::from(0.5)
    }
}
struct FreeHamiltonian;
impl ScalarFunction<3> for FreeHamiltonian {
    fn eval<S: Scalar>(&self, p: &SVector<S, 3>) -> S {
        kinetic(p)
    }
}
/// Heavy top reduced: `h(Π, Γ) = ½ Πᵀ I⁻¹ Π + Γ·e3`.
struct ReducedTop;
impl AdvectedFunction<3, 3> for ReducedTop {
    fn eval<S: Scalar>(&self, p: &SVector<S, 3>, gamma: &SVector<S, 3>) -> S {
        kinetic(p) + gamma[2]
    }
}

type State = LieState<Matrix3<f64>, 3>;
fn top_start() -> State {
    LieState::new(So3.exp(&Vector3::new(0.4, -0.2, 0.1)), Vector3::new(0.6, 1.5, 2.5))
}
/// `e3 · R Π`, the momentum map of the rotations about the vertical.
fn vertical_momentum(s: &State) -> f64 {
    (s.g * s.mu)[2]
}

fn report(name: &str, polished: f64, old: f64) {
    println!("{name}: momentum drift over {STEPS} steps, h = {H}: polished {polished:.2e}, unpolished {old:.2e}");
}

/// Kepler (`e = 0.6`), implicit midpoint cotangent lift with hand-written derivatives: angular
/// momentum `q_1 p_2 - q_2 p_1`.
#[test]
fn cotangent_lift_kepler_angular_momentum_stays_at_round_off() {
    let m = CotangentLiftIntegrator::new(ThetaMap::<2>::midpoint(), Kepler);
    assert_eq!((m.newton_options().jacobian, m.newton_options().polish), (JacobianUpdate::Frozen, true));
    let old = m.clone().with_newton(m.newton_options().with_polish(false));
    let (d, d_old) = (
        drift(&m, kepler_start(0.6), planar_angular_momentum),
        drift(&old, kepler_start(0.6), planar_angular_momentum),
    );
    report("Kepler midpoint", d, d_old);
    assert!(d <= round_off_bound(), "polished: {d:e}");
    assert!(d_old > round_off_bound(), "negative control, unpolished: {d_old:e}");
}

#[test]
fn lie_cotangent_lift_heavy_top_vertical_momentum_stays_at_round_off() {
    let m = LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Exp), LieAutoDiff(HeavyTop));
    let old = m.clone().with_newton(unpolished());
    let (d, d_old) = (drift(&m, top_start(), vertical_momentum), drift(&old, top_start(), vertical_momentum));
    report("heavy top, Lie midpoint cotangent lift", d, d_old);
    assert!(d <= round_off_bound(), "polished: {d:e}");
}

#[test]
fn lie_lagrangian_heavy_top_vertical_momentum_stays_at_round_off() {
    let m = LieLagrangianIntegrator::new(So3, 0.5, Chart::Cayley, LieAutoDiff(HeavyTopLagrangian)).unwrap();
    let old = m.clone().with_newton(unpolished());
    let (d, d_old) = (drift(&m, top_start(), vertical_momentum), drift(&old, top_start(), vertical_momentum));
    report("heavy top, Lie Lagrangian route", d, d_old);
    assert!(d <= round_off_bound(), "polished: {d:e}");
}

/// The discrete Euler–Poincaré flow of the free body conserves the spatial angular momentum
/// `R Π` (every component; the largest deviation is measured).
#[test]
fn discrete_euler_poincare_spatial_momentum_stays_at_round_off() {
    let m = LieGroupDiscreteEulerLagrange::<_, _, 3>::new(So3, Chart::Exp, FreeLagrangian);
    let old = LieGroupDiscreteEulerLagrange::<_, _, 3>::new(So3, Chart::Exp, FreeLagrangian).with_newton(unpolished());
    let spatial = |s: &State| {
        let j0 = top_start().g * top_start().mu;
        (s.g * s.mu - j0).amax() + j0.amax()
    };
    let (d, d_old) = (drift(&m, top_start(), spatial), drift(&old, top_start(), spatial));
    report("free body, discrete Euler–Poincaré", d, d_old);
    assert!(d <= round_off_bound(), "polished: {d:e}");
}

/// The reduced heavy top on `se(3)*` conserves `Π·Γ` (the vertical momentum, reduced).
#[test]
fn advected_lie_poisson_heavy_top_vertical_momentum_stays_at_round_off() {
    let map = LieGroupThetaMap::midpoint(So3, Chart::Exp);
    let m = AdvectedLiePoissonIntegrator::new(map, ReducedTop, SphereRotation);
    let old = AdvectedLiePoissonIntegrator::new(map, ReducedTop, SphereRotation).with_newton(unpolished());
    let s0 = top_start();
    let x0 = AdvectedState::new(s0.mu, s0.g.transpose() * Vector3::z());
    let j = |x: &AdvectedState<3, 3>| x.mu.dot(&x.gamma);
    let (d, d_old) = (drift(&m, x0, j), drift(&old, x0, j));
    report("heavy top, advected Lie–Poisson", d, d_old);
    assert!(d <= round_off_bound(), "polished: {d:e}");
}

/// The Lie–Poisson rigid body conserves the Casimir `|Π|²`.
#[test]
fn lie_poisson_rigid_body_casimir_stays_at_round_off() {
    let map = LieGroupThetaMap::midpoint(So3, Chart::Exp);
    let m = LiePoissonIntegrator::new(map, FreeHamiltonian);
    let old =
        LiePoissonIntegrator::new(map, FreeHamiltonian).with_newton(NewtonOptions::lie_poisson().with_polish(false));
    let j = |x: &SVector<f64, 3>| x.norm_squared();
    let (d, d_old) = (drift(&m, top_start().mu, j), drift(&old, top_start().mu, j));
    report("rigid body, Lie–Poisson", d, d_old);
    assert!(d <= round_off_bound(), "polished: {d:e}");
}
