//! Time-dependent mechanics on the extended configuration space `Q × R` (docs/math.md §C.6.4;
//! Marrero, Martín de Diego & Stern, *Symplectic groupoids and discrete constrained Lagrangian
//! mechanics*, 2015, arXiv:1103.6250, §6): the pair groupoid of `R^{n+1}` (last coordinate = time)
//! with `L̂ = (t1 − t0) L((q0 + q1)/2, (q1 − q0)/(t1 − t0))` and the discrete energy
//! `E_k = −∂L̂/∂t1(g_k)`.
//!
//! * Fixed step, `N = {t1 − t0 − h = 0}` (pendulum `L = ½v² − (1 − cos q)`): the multiplier of the
//!   time constraint is the energy up to a constant, `λ_k − E_k = const`, while `E_k` itself varies.
//! * Adaptive step, `N = G` (Kepler `L = ½|v|² + 1/|q|`, eccentricity 0.44): the t-equation is
//!   `E_{k+1} = E_k`, so the energy is conserved and the steps vary. The step Jacobian has a
//!   singular value `≈ Δt/4` (`L̂` is homogeneous of degree one in `(Δq, Δt)` up to the potential),
//!   so each step is predicted by the fixed-step system and corrected; the spurious root
//!   `g_{k+1} = g_k^{-1}` (time running backwards) is refused.
//!
//! Run: `cargo run --release --example time_dependent`.

use geom_core::newton::NewtonOptions;
use geom_core::{GeomError, Scalar};
use groupoid::constraints::{ConstrainedFlow, Constraints, NoConstraints, SigmaPoint};
use groupoid::{DiscreteLagrangian, PairGroupoid, legendre_plus};
use nalgebra::SVector;

/// `L̂ = Δt (½|Δq/Δt|² − V(q̄))` on the pair groupoid of `R^N`, `V` the pendulum (`N = 2`) or
/// Kepler (`N = 3`) potential.
#[derive(Clone)]
struct Extended<const N: usize>;
impl<const N: usize> DiscreteLagrangian<PairGroupoid<N>, N> for Extended<N> {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<N>, g: &(SVector<S, N>, SVector<S, N>)) -> S {
        let dt = g.1[N - 1] - g.0[N - 1];
        let mut kinetic = S::from(0.0);
        let mut r2 = S::from(0.0);
        for i in 0..N - 1 {
            let v = (g.1[i] - g.0[i]) / dt;
            kinetic += v * v * S::from(0.5);
            let q = (g.0[i] + g.1[i]) * S::from(0.5);
            r2 += q * q;
        }
        let potential =
            if N == 2 { S::from(1.0) - ((g.0[0] + g.1[0]) * S::from(0.5)).cos() } else { -r2.sqrt().recip() };
        dt * (kinetic - potential)
    }
}

/// `φ = t1 − t0 − h`.
#[derive(Clone)]
struct FixedStep(f64);
impl<const N: usize> Constraints<PairGroupoid<N>, N, 1> for FixedStep {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<N>, g: &(SVector<S, N>, SVector<S, N>)) -> SVector<S, 1> {
        SVector::from([g.1[N - 1] - g.0[N - 1] - S::from(self.0)])
    }
}

/// `E_k = −∂L̂/∂t1`.
fn energy<const N: usize>(g: &(SVector<f64, N>, SVector<f64, N>)) -> f64 {
    -legendre_plus(&PairGroupoid::<N>, &Extended::<N>, g)[N - 1]
}

/// Absolute time up to 10^3 limits `Δt = t1 − t0` to ~1e-13 absolute: residual tolerance 1e-11.
fn options() -> Result<NewtonOptions, GeomError> {
    NewtonOptions::new(1e-11, 1e-14, 50)
}

fn main() -> Result<(), GeomError> {
    println!("time-dependent mechanics on the pair groupoid of Q x R");

    // fixed step
    let h = 0.05;
    let n = 20_000;
    let fixed =
        ConstrainedFlow::<_, _, _, 3>::new(PairGroupoid::<2>, Extended::<2>, FixedStep(h)).with_newton(options()?);
    let mut p = SigmaPoint::new((SVector::from([0.3, 0.0]), SVector::from([0.3 + 1.5 * h, h])), SVector::from([0.3]));
    let c0 = p.lambda[0] - energy(&p.g);
    let (mut max_c, mut e_min, mut e_max) = (0.0f64, f64::INFINITY, f64::NEG_INFINITY);
    for _ in 0..n {
        p = fixed.step(&p)?.0;
        let e = energy(&p.g);
        (e_min, e_max) = (e_min.min(e), e_max.max(e));
        max_c = max_c.max((p.lambda[0] - e - c0).abs());
    }
    println!(
        "  fixed step h = {h}, pendulum, {n} steps: E_k varies by {:.1e}; λ_k − E_k = {c0:.6} + drift <= {max_c:.1e}",
        e_max - e_min
    );

    // adaptive step (predictor: the fixed-step system at the previous Δt)
    let adaptive =
        ConstrainedFlow::<_, _, _, 3>::new(PairGroupoid::<3>, Extended::<3>, NoConstraints).with_newton(options()?);
    let h0 = 0.02;
    let mut g = (SVector::from([1.0, 0.0, 0.0]), SVector::from([1.0, 1.2 * h0, h0]));
    let e0 = energy(&g);
    let (mut max_de, mut dt_min, mut dt_max) = (0.0f64, f64::INFINITY, 0.0f64);
    for _ in 0..n {
        let dt = g.1[2] - g.0[2];
        let predictor =
            ConstrainedFlow::<_, _, _, 4>::new(PairGroupoid::<3>, Extended::<3>, FixedStep(dt)).with_newton(options()?);
        let predicted = predictor.step(&SigmaPoint::new(g, SVector::from([0.0])))?.0;
        let guess = predicted.g.1 - predicted.g.0;
        let next =
            adaptive.step_with_guess(&SigmaPoint::new(g, SVector::<f64, 0>::zeros()), &guess, &SVector::zeros())?.0.g;
        let dt_next = next.1[2] - next.0[2];
        if dt_next.is_nan() || dt_next <= 1e-3 * dt {
            return Err(GeomError::InvalidStep { h: dt_next }); // the spurious backward root
        }
        g = next;
        (dt_min, dt_max) = (dt_min.min(dt_next), dt_max.max(dt_next));
        max_de = max_de.max((energy(&g) - e0).abs());
    }
    println!(
        "  adaptive step, Kepler e = 0.44, {n} steps to t = {:.1}: E = {e0:.6}, max|E_k − E_1| = {max_de:.1e}; \
         Δt in [{dt_min:.4}, {dt_max:.4}]",
        g.1[2]
    );
    Ok(())
}
