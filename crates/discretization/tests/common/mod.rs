//! Shared test models and helpers of the `discretization` integration tests.
//!
//! * [`Kepler`]: `H = |p|²/2 - 1/|q|` in R² with hand-written derivatives (checked against AD in
//!   `theorems.rs`), [`KeplerModel`] the same Hamiltonian as a generic model for [`AutoDiff`];
//! * [`kepler_exact`]: the exact Kepler orbit from Kepler's equation (the reference of the order
//!   tests), [`kepler_start`] its initial data at perihelion;
//! * [`Anharmonic3`]: the central potential `V(r) = r²/2 + r⁴/4` in R³;
//! * [`Oscillator`]: `H = (q² + p²)/2`, with [`oscillator_exact`];
//! * [`omega_defect`]: `|Mᵀ Ω M - Ω|_max` of a `2N × 2N` matrix;
//! * [`fitted_slope`]: least-squares slope of `log err` against `log h`.

#![allow(dead_code)] // each test binary uses a different subset

pub mod maps;

use discretization::PhaseState;
use geom_core::Scalar;
use geom_core::function::{Hessian, PhaseSpaceDerivatives, PhaseSpaceFunction};
use nalgebra::{DMatrix, Matrix2, SVector, Vector1, Vector2};

/// Kepler `H(q, p) = |p|²/2 - 1/|q|` in R², as a generic model.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeplerModel;

impl PhaseSpaceFunction<2> for KeplerModel {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip()
    }
}

/// Kepler with hand-written derivatives: `H_q = q/r³`, `H_p = p`, `H_qq = I/r³ - 3 q qᵀ/r⁵`,
/// `H_qp = 0`, `H_pp = I`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Kepler;

impl PhaseSpaceDerivatives<2> for Kepler {
    fn value(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> f64 {
        0.5 * p.norm_squared() - 1.0 / q.norm()
    }
    fn gradient(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> (Vector2<f64>, Vector2<f64>) {
        let r2 = q.norm_squared();
        let r3 = r2 * r2.sqrt();
        (q / r3, *p)
    }
    fn hessian(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> Hessian<2> {
        self.gradient_and_hessian(q, p).1
    }
    fn gradient_and_hessian(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> ((Vector2<f64>, Vector2<f64>), Hessian<2>) {
        let r2 = q.norm_squared();
        let ir3 = 1.0 / (r2 * r2.sqrt());
        let ir5 = ir3 / r2;
        let qq = Matrix2::identity() * ir3 - q * q.transpose() * (3.0 * ir5);
        ((q * ir3, *p), Hessian { qq, qp: Matrix2::zeros(), pp: Matrix2::identity() })
    }
}

/// Initial data of the Kepler orbit with semi-major axis 1 and eccentricity `e` at perihelion:
/// `q = (1 - e, 0)`, `p = (0, √((1 + e)/(1 - e)))`; energy `-1/2`, angular momentum `√(1 - e²)`,
/// period `2π`.
pub fn kepler_start(e: f64) -> PhaseState<2> {
    PhaseState::new(Vector2::new(1.0 - e, 0.0), Vector2::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()))
}

/// The exact Kepler orbit through [`kepler_start`] at time `t`: solve Kepler's equation
/// `E - e sin E = t` by Newton to round-off, then `q = (cos E - e, √(1-e²) sin E)`,
/// `p = q̇ = (-sin E, √(1-e²) cos E) / (1 - e cos E)`. Accurate to a few ulps.
pub fn kepler_exact(e: f64, t: f64) -> PhaseState<2> {
    let mut big_e = t + e * t.sin();
    for _ in 0..60 {
        let d = (big_e - e * big_e.sin() - t) / (1.0 - e * big_e.cos());
        big_e -= d;
        if d.abs() < 1e-16 * (1.0 + big_e.abs()) {
            break;
        }
    }
    let (s, c) = big_e.sin_cos();
    let b = (1.0 - e * e).sqrt();
    let edot = 1.0 / (1.0 - e * c);
    PhaseState::new(Vector2::new(c - e, b * s), Vector2::new(-s * edot, b * c * edot))
}

/// `q_1 p_2 - q_2 p_1`, the angular momentum in the plane.
pub fn planar_angular_momentum(s: &PhaseState<2>) -> f64 {
    s.q[0] * s.p[1] - s.q[1] * s.p[0]
}

/// The anharmonic central potential `H = |p|²/2 + r²/2 + r⁴/4` in R³ (rotation invariant), as a
/// generic model for [`geom_core::function::AutoDiff`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Anharmonic3;

impl PhaseSpaceFunction<3> for Anharmonic3 {
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
        let r2 = q.norm_squared();
        p.norm_squared() * S::from(0.5) + r2 * S::from(0.5) + r2 * r2 * S::from(0.25)
    }
}

/// The harmonic oscillator `H = (q² + p²)/2`, as a generic model.
#[derive(Debug, Clone, Copy, Default)]
pub struct Oscillator;

impl PhaseSpaceFunction<1> for Oscillator {
    fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
        (q[0] * q[0] + p[0] * p[0]) * S::from(0.5)
    }
}

/// The exact oscillator flow from `(1, 0)`: `(cos t, -sin t)`.
pub fn oscillator_exact(t: f64) -> PhaseState<1> {
    PhaseState::new(Vector1::new(t.cos()), Vector1::new(-t.sin()))
}

/// Max-norm distance of two phase states.
pub fn state_distance<const N: usize>(a: &PhaseState<N>, b: &PhaseState<N>) -> f64 {
    (a.q - b.q).amax().max((a.p - b.p).amax())
}

/// `|Mᵀ Ω M - Ω|_max` for a `2N × 2N` matrix `M` (zero iff `M` is symplectic).
pub fn omega_defect(m: &DMatrix<f64>) -> f64 {
    let n = m.nrows() / 2;
    let w = geom_core::step::testing::canonical_poisson_tensor(n);
    (m.transpose() * &w * m - w).amax()
}

/// Least-squares slope of `log err` against `log h`.
pub fn fitted_slope(hs: &[f64], errs: &[f64]) -> f64 {
    let xs: Vec<f64> = hs.iter().map(|h| h.ln()).collect();
    let ys: Vec<f64> = errs.iter().map(|e| e.ln()).collect();
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    sxy / sxx
}
