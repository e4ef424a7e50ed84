//! Time-dependent mechanics on the time groupoid `(Q × Q) × R ⇉ Q`: arrows
//! `(q_k, q_{k+1}, Δt_k)` that store the step, the absolute time `t_k` accumulated by compensated
//! summation (docs/math.md §C.6.4; `groupoid::time_dependent`; Marrero, Martín de Diego & Stern,
//! *Symplectic groupoids and discrete constrained Lagrangian mechanics*, 2015, arXiv:1103.6250,
//! §6), with the midpoint `L̂ = Δt L((q_0 + q_1)/2, (q_1 − q_0)/Δt)` and the discrete energy
//! `E_k = −∂L̂/∂Δt(g_k)`.
//!
//! * Fixed step, `N = {Δt = h}` (pendulum `L = ½v² − (1 − cos q)`): the multiplier of the step
//!   constraint is the energy up to a constant, `λ_k − E_k = const`, while `E_k` itself varies;
//!   the positions are those of the time-free midpoint flow on `Q × Q`.
//! * Adaptive step, `N = G` (Kepler `L = ½|v|² + 1/|q|`, eccentricity 0.44): the t-equation is
//!   `E_{k+1} = E_k` (Kane, Marsden & Ortiz, *Symplectic-energy-momentum preserving variational
//!   integrators*, J. Math. Phys. 40, 1999), so the energy is conserved and the steps vary. Each
//!   step is predicted by the fixed-step system and corrected; the time-reversed root
//!   `g_{k+1} = g_k^{-1}` is refused (`examples/adaptive_time_step.rs` has more on this step).
//!
//! Run: `cargo run --release --example time_dependent`.

use geom_core::Scalar;
use groupoid::time_dependent::{
    AdaptiveStepFlow, ContinuousLagrangian, FixedStepFlow, Midpoint, TimeArrow, discrete_energy,
};
use groupoid::{DiscreteFlow, DiscreteLagrangian, PairGroupoid};
use nalgebra::SVector;

/// The pendulum `L = ½v² − (1 − cos q)`.
struct Pendulum;
impl ContinuousLagrangian<1> for Pendulum {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 1>, v: &SVector<S, 1>) -> S {
        v[0] * v[0] * S::from(0.5) - (S::from(1.0) - q[0].cos())
    }
}

/// Kepler `L = ½|v|² + 1/|q|`.
struct Kepler;
impl ContinuousLagrangian<2> for Kepler {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, v: &SVector<S, 2>) -> S {
        v.norm_squared() * S::from(0.5) + q.norm().recip()
    }
}

/// The time-free midpoint discrete Lagrangian of the pendulum on `Q × Q`, for the comparison.
struct PendulumMidpoint(f64);
impl DiscreteLagrangian<PairGroupoid<1>, 1> for PendulumMidpoint {
    #[inline]
    fn eval<S: Scalar>(&self, _: &PairGroupoid<1>, g: &(SVector<S, 1>, SVector<S, 1>)) -> S {
        let h = S::from(self.0);
        let v = (g.1[0] - g.0[0]) / h;
        h * (v * v * S::from(0.5) - (S::from(1.0) - ((g.0[0] + g.1[0]) * S::from(0.5)).cos()))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("time-dependent mechanics on the time groupoid (Q x Q) x R (arrows store the step Δt_k)");

    // fixed step
    let (h, n) = (0.05, 20_000);
    let fixed = FixedStepFlow::new(Midpoint(Pendulum), h)?;
    let reference = DiscreteFlow::new(PairGroupoid::<1>, PendulumMidpoint(h));
    let (q0, q1) = (SVector::from([0.3]), SVector::from([0.3 + 1.5 * h]));
    let mut point = fixed.start(q0, q1, 0.0, 0.3);
    let mut r = (q0, q1);
    let c0 = fixed.time_momentum(&point);
    let (mut max_c, mut max_q, mut max_q100, mut max_t) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let (mut e_min, mut e_max) = (f64::INFINITY, f64::NEG_INFINITY);
    for k in 1..=n {
        fixed.advance(&mut point)?;
        r = reference.step(&r)?.0;
        let e = discrete_energy(fixed.lagrangian(), &point.g);
        (e_min, e_max) = (e_min.min(e), e_max.max(e));
        max_c = max_c.max((fixed.time_momentum(&point) - c0).abs());
        max_q = max_q.max((point.g.q1 - r.1).amax());
        if k == 2000 {
            max_q100 = max_q; // t <= 100
        }
        max_t = max_t.max((point.g.source_time() - k as f64 * h).abs());
    }
    println!("  pendulum L = ½v² − (1 − cos q), fixed step (midpoint L̂, constraint Δt = h), h = {h}, {n} steps:");
    println!("    time:        t_n = {:.12}, max|t_k − k h| = {max_t:.1e}", point.g.source_time());
    println!(
        "    energy:      E_k varies by {:.1e} (midpoint: bounded, not conserved); \
         λ_k − E_k = {c0:.6} + drift <= {max_c:.1e}",
        e_max - e_min
    );
    println!(
        "    positions:   max|q_k − q_k(time-free midpoint flow on Q x Q)| = \
         {max_q100:.1e} (t <= 100), {max_q:.1e} (t <= 1000)"
    );

    // adaptive step
    let adaptive = AdaptiveStepFlow::new(Midpoint(Kepler));
    let h0 = 0.02;
    let mut g = TimeArrow::new(SVector::from([1.0, 0.0]), SVector::from([1.0, 1.2 * h0]), 0.0, h0);
    let e0 = discrete_energy(adaptive.lagrangian(), &g);
    let (mut max_de, mut dt_min, mut dt_max, mut redirected) = (0.0f64, f64::INFINITY, 0.0f64, 0);
    for _ in 0..n {
        redirected += usize::from(adaptive.advance(&mut g)?.redirected);
        (dt_min, dt_max) = (dt_min.min(g.dt), dt_max.max(g.dt));
        max_de = max_de.max((discrete_energy(adaptive.lagrangian(), &g) - e0).abs());
    }
    println!(
        "  Kepler L = ½|v|² + 1/|q| (e = 0.44), adaptive step (Kane–Marsden–Ortiz, E_(k+1) = E_k), \
         Δt_0 = {h0}, {n} steps:"
    );
    println!("    time:        t_n = {:.3} (~{:.0} periods)", g.source_time(), g.source_time() / 15.0);
    println!("    energy:      E_0 = {e0:.6}, max|E_k − E_0| = {max_de:.1e}");
    println!(
        "    steps:       Δt in [{dt_min:.4}, {dt_max:.4}] (max/min {:.2}), all positive; \
         redirected steps: {redirected}",
        dt_max / dt_min
    );
    Ok(())
}
