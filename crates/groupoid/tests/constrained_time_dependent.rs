//! Time-dependent mechanics on the extended space `Q × R` (docs/math.md §C.6.4): the pair groupoid
//! of `R^{n+1} = {(q, t)}`, `L̂ = (t1 − t0) L((q0 + q1)/2, (q1 − q0)/(t1 − t0))`. Fixed time step
//! by a constraint, for the pendulum `L = ½v² − (1 − cos q)` (the multiplier is the energy up to a
//! constant); adaptive time step for the Kepler problem `L = ½|v|² + 1/|q|` (the discrete energy is
//! conserved, the steps vary). (A 1-D system is unsuited to the adaptive step: at its turning
//! points `v = 0` the energy does not determine `Δt`, `∂E/∂Δt = −Δq²/Δt³ → 0`, and the step
//! Jacobian becomes singular; in the plane `|v| >= |angular momentum|/|q| > 0`.)

use geom_core::newton::NewtonOptions;
use geom_core::{GeomError, Result, Scalar};
use groupoid::constraints::{ConstrainedFlow, Constraints, NoConstraints, SigmaPoint};
use groupoid::variational::action_gradient;
use groupoid::{DiscreteFlow, DiscreteLagrangian, PairGroupoid, legendre_plus};
use nalgebra::SVector;

type P2 = (SVector<f64, 2>, SVector<f64, 2>);
type P3 = (SVector<f64, 3>, SVector<f64, 3>);

/// Newton options of the extended-space steps: the absolute time `t` grows to `10^3`, so
/// `Δt = t1 − t0` (and the residuals, ~`|∂L̂/∂Δt| / Δt` times its error) carry `~ 10^3 ε / Δt ≈ 1e-11`
/// of rounding; a residual tolerance of `1e-14` is not reachable there.
fn extended_newton() -> NewtonOptions {
    NewtonOptions::new(1e-11, 1e-14, 50).unwrap()
}

/// `L̂ = Δt L(q̄, Δq/Δt)` with the Kepler Lagrangian `L = ½|v|² + 1/|q|`, on `R² × R`.
#[derive(Clone)]
struct KeplerExtended;
impl DiscreteLagrangian<PairGroupoid<3>, 3> for KeplerExtended {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, g: &(SVector<S, 3>, SVector<S, 3>)) -> S {
        let dt = g.1[2] - g.0[2];
        let dq = SVector::<S, 2>::from([g.1[0] - g.0[0], g.1[1] - g.0[1]]);
        let q = SVector::<S, 2>::from([g.0[0] + g.1[0], g.0[1] + g.1[1]]) * S::from(0.5);
        let v = dq / dt;
        dt * (v.norm_squared() * S::from(0.5) + q.norm().recip())
    }
}

/// `E_k = −∂L̂/∂t1 (g_k)` of the Kepler system.
fn kepler_energy(g: &P3) -> f64 {
    -legendre_plus(&PairGroupoid::<3>, &KeplerExtended, g)[2]
}

/// `L̂ = Δt L(q̄, Δq/Δt)` with `L = ½v² − (1 − cos q)`.
#[derive(Clone)]
struct Extended;
impl DiscreteLagrangian<PairGroupoid<2>, 2> for Extended {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<2>, g: &(SVector<S, 2>, SVector<S, 2>)) -> S {
        let dt = g.1[1] - g.0[1];
        let v = (g.1[0] - g.0[0]) / dt;
        let q = (g.0[0] + g.1[0]) * S::from(0.5);
        dt * (v * v * S::from(0.5) - (S::from(1.0) - q.cos()))
    }
}

/// `N = {t1 − t0 − h = 0}` on the pair groupoid of `R^N`, time = last coordinate.
#[derive(Clone)]
struct FixedStep(f64);
impl<const N: usize> Constraints<PairGroupoid<N>, N, 1> for FixedStep {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<N>, g: &(SVector<S, N>, SVector<S, N>)) -> SVector<S, 1> {
        SVector::from([g.1[N - 1] - g.0[N - 1] - S::from(self.0)])
    }
}

/// The midpoint discrete Lagrangian on `Q × Q` at fixed `h`, for the cross-check.
struct Midpoint(f64);
impl DiscreteLagrangian<PairGroupoid<1>, 1> for Midpoint {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<1>, g: &(SVector<S, 1>, SVector<S, 1>)) -> S {
        let h = S::from(self.0);
        let v = (g.1[0] - g.0[0]) / h;
        let q = (g.0[0] + g.1[0]) * S::from(0.5);
        h * (v * v * S::from(0.5) - (S::from(1.0) - q.cos()))
    }
}

/// The discrete energy `E_k = −∂L̂/∂t1 (g_k)` = minus the time component of `F^+L(g_k)`.
fn energy(g: &P2) -> f64 {
    -legendre_plus(&PairGroupoid::<2>, &Extended, g)[1]
}

fn first_arrow(h: f64) -> P2 {
    let (q0, v0) = (0.3, 1.5);
    (SVector::from([q0, 0.0]), SVector::from([q0 + v0 * h, h]))
}

#[test]
fn fixed_step_multiplier_is_the_energy_up_to_a_constant() {
    let h = 0.05;
    let n = 20_000; // t = 1000
    let flow =
        ConstrainedFlow::<_, _, _, 3>::new(PairGroupoid::<2>, Extended, FixedStep(h)).with_newton(extended_newton());
    let reference = DiscreteFlow::new(PairGroupoid::<1>, Midpoint(h));
    let mut p = SigmaPoint::new(first_arrow(h), SVector::from([0.3]));
    let mut r = (SVector::from([p.g.0[0]]), SVector::from([p.g.1[0]]));
    let offset0 = p.lambda[0] - energy(&p.g);
    let mut offset = offset0;
    let (mut max_jump, mut max_offset, mut max_q, mut max_dt): (f64, f64, f64, f64) = (0.0, 0.0, 0.0, 0.0);
    let (mut e_min, mut e_max) = (f64::INFINITY, f64::NEG_INFINITY);
    for k in 0..n {
        let (next, _) = flow.step(&p).unwrap();
        p = next;
        let e = energy(&p.g);
        (e_min, e_max) = (e_min.min(e), e_max.max(e));
        // the t-equation of one step: (λ_{k+1} − E_{k+1}) − (λ_k − E_k) = 0
        let o = p.lambda[0] - e;
        max_jump = max_jump.max((o - offset).abs());
        offset = o;
        max_offset = max_offset.max((o - offset0).abs());
        max_dt = max_dt.max((p.g.1[1] - p.g.0[1] - h).abs());
        if k < 2000 {
            // the q-equation is the ordinary midpoint DEL (compared while t <= 100)
            r = reference.step(&r).unwrap().0;
            max_q = max_q.max((p.g.1[0] - r.1[0]).abs());
        }
    }
    println!(
        "time-dependent, fixed step h = {h}, {n} steps (t = 1000): E_k in [{e_min:.6}, {e_max:.6}] (varies by {:.1e}); \
         λ_k − E_k: max change per step {max_jump:.1e}, max drift {max_offset:.1e}; max|t1 − t0 − h| = {max_dt:.1e}; \
         max|q_k − q_k^midpoint| (t <= 100) = {max_q:.1e}",
        e_max - e_min
    );
    // the energy genuinely varies (O(h²)), so λ_k = E_k + const is not trivial ...
    assert!(e_max - e_min > 1e-5);
    // ... and holds per step to the solver tolerance 1e-11 (the rounding of |t| <= 1000 in Δt); the
    // accumulated drift is bounded by n · 1e-11 = 2e-7 (measured ~1e-8: a random walk)
    assert!(max_jump < 1e-11, "{max_jump:e}");
    assert!(max_offset < 2e-7, "{max_offset:e}");
    assert!(max_dt < 1e-12, "{max_dt:e}");
    // the same trajectory as the midpoint DEL on Q × Q while t <= 100: each step is solved to the
    // residual 1e-11 (and Δt = h up to 1e-14 rounding), and such errors grow linearly along the
    // (amplitude-dependent) pendulum flow: 2000 steps × ~5e-13 ≈ 1e-9, measured 8.8e-10, bound 1e-8
    // (an O(h²) change of the scheme gives ~1e-4)
    assert!(max_q < 1e-8, "{max_q:e}");
}

/// One adaptive step (`N = G`) of the extended pair groupoid of `R^N`, time = last coordinate.
///
/// * Predictor: the fixed-step system at the previous step size `Δt_k` (well conditioned); the
///   adaptive step Jacobian has a singular value `≈ Δt/4` (`L̂` is homogeneous of degree one in
///   `(Δq, Δt)` up to the potential), so Newton from the plain warm start `fibre_log(g_k)` diverges.
/// * Corrector: the adaptive DEL from the predicted arrow ([`ConstrainedFlow::step_with_guess`]).
/// * The spurious root `g_{k+1} = g_k^{-1}` (time runs back to `t_{k−1}`; see
///   `the_inverse_arrow_is_a_spurious_root`) and any step not advancing time by `10^{-3} Δt_k` are
///   refused ([`GeomError::InvalidStep`]).
fn adaptive_step<L, const N: usize, const M: usize, const MP: usize>(
    flow: &ConstrainedFlow<PairGroupoid<N>, L, NoConstraints, M>,
    g: &(SVector<f64, N>, SVector<f64, N>),
) -> Result<(SVector<f64, N>, SVector<f64, N>)>
where
    L: DiscreteLagrangian<PairGroupoid<N>, N> + Clone,
{
    let dt = g.1[N - 1] - g.0[N - 1];
    let predictor = ConstrainedFlow::<_, _, _, MP>::new(PairGroupoid::<N>, flow.lagrangian().clone(), FixedStep(dt))
        .with_newton(*flow.newton_options());
    let (predicted, _) = predictor.step(&SigmaPoint::new(*g, SVector::from([0.0])))?;
    let guess = predicted.g.1 - predicted.g.0;
    let (next, _) =
        flow.step_with_guess(&SigmaPoint::new(*g, SVector::<f64, 0>::zeros()), &guess, &SVector::zeros())?;
    let dt_next = next.g.1[N - 1] - next.g.0[N - 1];
    if dt_next.is_nan() || dt_next <= 1e-3 * dt {
        return Err(GeomError::InvalidStep { h: dt_next });
    }
    Ok(next.g)
}

#[test]
fn adaptive_step_conserves_the_energy_while_the_steps_vary() {
    // eccentric orbit: q0 = (1, 0), v0 = (0, 1.2): e = 0.44, E = −0.28, period ≈ 15
    let h = 0.02;
    let n = 20_000;
    let flow = ConstrainedFlow::<_, _, _, 3>::new(PairGroupoid::<3>, KeplerExtended, NoConstraints)
        .with_newton(extended_newton());
    let unconstrained = DiscreteFlow::new(PairGroupoid::<3>, KeplerExtended);
    let mut g: P3 = (SVector::from([1.0, 0.0, 0.0]), SVector::from([1.0, 1.2 * h, h]));
    let e0 = kepler_energy(&g);
    let (mut max_de, mut max_jump, mut dt_min, mut dt_max, mut max_del) =
        (0.0f64, 0.0f64, f64::INFINITY, 0.0f64, 0.0f64);
    let mut plain_failures = 0;
    let mut ang = Vec::with_capacity(n);
    for k in 0..n {
        let next = adaptive_step::<_, 3, 3, 4>(&flow, &g).unwrap();
        // independent check: the accepted arrows make the DEL residual (the gradient of the action
        // sum at the shared node, N = G) vanish
        let pair = [SigmaPoint::new(g, SVector::<f64, 0>::zeros()), SigmaPoint::new(next, SVector::zeros())];
        max_del = max_del.max(action_gradient(&PairGroupoid::<3>, &KeplerExtended, &NoConstraints, &pair)[0].amax());
        if k < 100 {
            // the plain warm start fibre_log(g_k) (DiscreteFlow) fails or finds another root
            match unconstrained.step(&g) {
                Ok((other, _)) if (other.1 - next.1).amax() < 1e-10 => {}
                _ => plain_failures += 1,
            }
        }
        let e_prev = kepler_energy(&g);
        g = next;
        max_jump = max_jump.max((kepler_energy(&g) - e_prev).abs());
        max_de = max_de.max((kepler_energy(&g) - e0).abs());
        let dt = g.1[2] - g.0[2];
        (dt_min, dt_max) = (dt_min.min(dt), dt_max.max(dt));
        // angular momentum q × p at the node (p = spatial part of F^+L), conserved by rotation symmetry
        let p = legendre_plus(&PairGroupoid::<3>, &KeplerExtended, &g);
        ang.push(g.1[0] * p[1] - g.1[1] * p[0]);
    }
    let max_dl = ang.iter().map(|l| (l - ang[0]).abs()).fold(0.0, f64::max);
    println!(
        "time-dependent, adaptive step (Kepler, e = 0.44), {n} steps to t = {:.1} (~{:.0} periods): max|E_(k+1) − E_k| = {max_jump:.1e}, \
         max|E_k − E_1| = {max_de:.1e} (E = {e0:.6}); Δt in [{dt_min:.5}, {dt_max:.5}]; max|ΔL_z| = {max_dl:.1e}; DEL residual {max_del:.1e}; \
         plain warm start failed or found another root in {plain_failures}/100 steps",
        g.1[2],
        g.1[2] / 15.0
    );
    // E_{k+1} = E_k is the t-equation, solved to the residual tolerance 1e-11 per step; the
    // accumulated drift is bounded by n · 1e-11 = 2e-7
    assert!(max_jump < 1e-11, "{max_jump:e}");
    assert!(max_de < 2e-7, "{max_de:e}");
    // the steps vary by more than a factor 2 along the eccentric orbit (set by the energy equation)
    assert!(dt_max > 2.0 * dt_min, "{dt_min} {dt_max}");
    // Noether for rotations about the vertical: per step the DEL residual (<= 1e-11) times |q| ~ 3;
    // random walk over 2e4 steps ≈ 4e-9, bound 1e-7 (a non-symmetric scheme drifts by O(h²) ~ 1e-3)
    assert!(max_dl < 1e-7, "{max_dl:e}");
    assert!(max_del < 1e-10, "{max_del:e}");
}

#[test]
fn the_inverse_arrow_is_a_spurious_root() {
    // L̂(g^{-1}) = −L̂(g) (L is even in v), so the DEL residual D_2L̂(g_k) + D_1L̂(g_k^{-1})
    // vanishes identically: (q_{k+1}, t_{k+1}) = (q_{k−1}, t_{k−1}) solves the adaptive DEL, with
    // t_{k+1} < t_k. (docs/math.md §C.6.4 names the spurious root "t_{k+1} = t_k"; measured, it is
    // this one.) Newton from the warm start fibre_log(g_k) does not find it; the step check refuses
    // it.
    let g = first_arrow(0.05);
    let back = (g.1, g.0);
    let none = NoConstraints;
    let traj = [SigmaPoint::new(g, SVector::<f64, 0>::zeros()), SigmaPoint::new(back, SVector::zeros())];
    let residual = action_gradient(&PairGroupoid::<2>, &Extended, &none, &traj)[0].amax();
    let physical = [traj[0].clone(), SigmaPoint::new((g.1, g.1 + (g.1 - g.0)), SVector::zeros())];
    let not_a_root = action_gradient(&PairGroupoid::<2>, &Extended, &none, &physical)[0].amax();
    println!("DEL residual at g_(k+1) = g_k^-1: {residual:.1e} (at the linear extrapolation: {not_a_root:.1e})");
    assert!(residual < 1e-14 && not_a_root > 1e-4);
    // a step that does not advance time is refused with a typed error
    let flow = ConstrainedFlow::<_, _, _, 2>::new(PairGroupoid::<2>, Extended, NoConstraints);
    let frozen = (g.1, SVector::from([g.1[0] + 0.1, g.1[1] - 0.05]));
    match adaptive_step::<_, 2, 2, 3>(&flow, &frozen) {
        Err(GeomError::InvalidStep { h }) => assert!(h <= 0.0),
        other => panic!("a backward step must be refused: {other:?}"),
    }
}
