//! The models the splitting tests share: Hénon–Heiles split as (harmonic oscillator | cubic
//! kick), a perturbed Kepler problem split as (Kepler drift | perturbation kick), written the
//! way the documentation writes models (once over the scalar, derivatives by `AutoDiff`).

#![allow(dead_code)]

use geom_core::function::{PhaseSpaceFunction, ScalarFunction};
use geom_core::step::{OneStep, PhaseState};
use geom_core::{GeomError, Scalar};
use integrators::splitting::ExactFlow;
use nalgebra::{SVector, Vector2};

/// The cubic part of Hénon–Heiles, `V₃(q) = x²y − y³/3`.
#[derive(Debug, Clone, Copy)]
pub struct Cubic;
impl ScalarFunction<2> for Cubic {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>) -> S {
        q[0] * q[0] * q[1] - q[1] * q[1] * q[1] / S::from(3.0)
    }
}

/// Hénon–Heiles, `H = (|p|² + |q|²)/2 + x²y − y³/3`.
#[derive(Debug, Clone, Copy)]
pub struct HenonHeiles;
impl PhaseSpaceFunction<2> for HenonHeiles {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        (p.norm_squared() + q.norm_squared()) * S::from(0.5) + Cubic.eval(q)
    }
}

/// A Hénon–Heiles state at energy ≈ 0.126 (below the escape energy 1/6).
pub fn hh0() -> PhaseState<2> {
    PhaseState::new(Vector2::new(0.3, -0.2), Vector2::new(0.25, 0.3))
}

/// The strength of the perturbations.
pub const EPS: f64 = 0.01;

/// The perturbation `V_ε(q) = −ε/|q|²` (a precessing force).
#[derive(Debug, Clone, Copy)]
pub struct Precession;
impl ScalarFunction<2> for Precession {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>) -> S {
        -q.norm_squared().recip() * S::from(EPS)
    }
}

/// A kinetic perturbation `T_ε(p) = ε p_x p_y` (its flow is a drift).
#[derive(Debug, Clone, Copy)]
pub struct Shear;
impl ScalarFunction<2> for Shear {
    fn eval<S: Scalar>(&self, p: &SVector<S, 2>) -> S {
        p[0] * p[1] * S::from(EPS)
    }
}

/// The perturbed Kepler problem `H = |p|²/2 − 1/|q| − ε/|q|²`.
#[derive(Debug, Clone, Copy)]
pub struct PerturbedKepler;
impl PhaseSpaceFunction<2> for PerturbedKepler {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip() + Precession.eval(q)
    }
}

/// Kepler `H = |p|²/2 − 1/|q|`.
#[derive(Debug, Clone, Copy)]
pub struct Kepler;
impl PhaseSpaceFunction<2> for Kepler {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip()
    }
}

/// The pericentre of the orbit of eccentricity `e` with `a = 1`, `μ = 1`.
pub fn kepler0(e: f64) -> PhaseState<2> {
    PhaseState::new(Vector2::new(1.0 - e, 0.0), Vector2::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()))
}

/// `|x − y|_∞` over `(q, p)`.
pub fn dist<const N: usize>(x: &PhaseState<N>, y: &PhaseState<N>) -> f64 {
    (x.q - y.q).amax().max((x.p - y.p).amax())
}

/// The state after `n` steps of `T/n`.
pub fn run<const N: usize, M: OneStep<PhaseState<N>>>(m: &M, x0: &PhaseState<N>, t: f64, n: usize) -> PhaseState<N> {
    let mut s = *x0;
    m.step_n(&mut s, t / n as f64, n).unwrap_or_else(|e| panic!("{}: {e}", m.name()));
    s
}

/// The slopes `log₂(e(h)/e(h/2))` of the differences `e(h) = |x_h − x_{h/2}|` of successive
/// halvings from `n` steps up to `n·2^k` (the exact flow is not needed).
pub fn halving_slopes<const N: usize, M: OneStep<PhaseState<N>>>(
    m: &M,
    x0: &PhaseState<N>,
    t: f64,
    n: usize,
    k: u32,
) -> (Vec<f64>, Vec<f64>) {
    let ends: Vec<PhaseState<N>> = (0..=k + 1).map(|j| run(m, x0, t, n << j)).collect();
    let diffs: Vec<f64> = ends.windows(2).map(|w| dist(&w[0], &w[1])).collect();
    let slopes = diffs.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    (diffs, slopes)
}

/// A kick that fails on states with `q_x > limit` (a user's flow with a domain); its force
/// moves `p_y` only.
pub struct Fussy {
    /// The largest `q_x` the kick accepts.
    pub limit: f64,
}
impl ExactFlow<PhaseState<2>> for Fussy {
    fn name(&self) -> String {
        "fussy kick".into()
    }
    fn flow(&self, s: &mut PhaseState<2>, t: f64) -> Result<(), GeomError> {
        if s.q[0] > self.limit {
            return Err(GeomError::OutsideDomain { map: "fussy kick", reason: "q_x too large" });
        }
        s.p[1] -= t;
        Ok(())
    }
}
