//! MEGNO, the Mean Exponential Growth factor of Nearby Orbits: P. M. Cincotta & C. Simó,
//! *Simple tools to compute chaos indicators: the MEGNO*, Astron. Astrophys. Suppl. Ser. 147
//! (2000) 205–228; its form for maps and discrete time as in P. M. Cincotta, C. M. Giordano &
//! C. Simó, *Phase space structure of multi-dimensional systems by means of the mean exponential
//! growth factor of nearby orbits*, Physica D 182 (2003) 151–178.

use super::tangent::{TangentMap, apply_jacobian, check_phase_state, dot};
use geom_core::GeomError;
use geom_core::step::{LieState, PhaseState, check_step};

/// The MEGNO `Y(t)` of a numerical trajectory and its running mean `⟨Y⟩(t)`, on `T*R^N` (states
/// `S = PhaseState<N>`, the default) or on any state space whose tangent map a
/// [`TangentMap<S, N>`] gives in `2N` coordinates (`T*G`: [`LieMegno`]).
///
/// In continuous time, for a deviation vector `δ(t)` of the variational equation,
///
/// ```text
///     Y(t) = (2/t) ∫₀ᵗ (δ̇·δ / |δ|²) s ds,          ⟨Y⟩(t) = (1/t) ∫₀ᵗ Y(s) ds.
/// ```
///
/// With `δ̇·δ/|δ|² ds = d ln|δ|`, on the step grid `t_k = k h` with `δ_k = DΦ_h(x_{k−1}) δ_{k−1}`
/// (the tangent map, [`TangentMap`]) the Stieltjes sums are
///
/// ```text
///     Y_n = (2/n) Σ_{k=1}^{n} k ln(|δ_k| / |δ_{k−1}|),      ⟨Y⟩_n = (1/n) Σ_{k=1}^{n} Y_k,
/// ```
///
/// (`h` cancels; `δ` is renormalised after each step, the ratio taken before). Limits
/// (Cincotta & Simó 2000): `⟨Y⟩ → 2` on a quasi-periodic (KAM torus) orbit, where `|δ|` grows
/// linearly; `⟨Y⟩ → 0` on a stable periodic orbit; `⟨Y⟩ ≈ λ t / 2` on a chaotic orbit of
/// maximal Lyapunov exponent `λ` (`ln|δ_k| ≈ λ t_k` gives `Y_n ≈ λ h (n + 1)` and
/// `⟨Y⟩_n ≈ λ h (n + 3)/2`).
///
/// ```
/// use integrators::classical::StormerVerlet;
/// use integrators::variational_equations::Megno;
/// use integrators::PhaseState;
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use nalgebra::{SVector, Vector1};
///
/// /// The pendulum `H = p²/2 − cos q`: every libration is quasi-periodic, ⟨Y⟩ → 2.
/// struct Pendulum;
/// impl PhaseSpaceFunction<1> for Pendulum {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
///         p[0] * p[0] * S::from(0.5) - q[0].cos()
///     }
/// }
/// let sv = StormerVerlet::new(AutoDiff::separable(Pendulum));
/// let x = PhaseState::new(Vector1::new(1.0), Vector1::new(0.0));
/// let mut m = Megno::new(x, PhaseState::new(Vector1::new(1.0), Vector1::new(0.0)), 0.05)?;
/// m.advance(&sv, 200_000)?; // t = 10⁴: ⟨Y⟩ approaches 2 as O(1/t)
/// assert!((m.mean() - 2.0).abs() < 0.05, "{}", m.mean());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Megno<const N: usize, S = PhaseState<N>> {
    state: S,
    delta: PhaseState<N>,
    h: f64,
    steps: u64,
    /// `Σ_k k ln(|δ_k|/|δ_{k−1}|)`.
    weighted: f64,
    /// `Σ_k ln(|δ_k|/|δ_{k−1}|) = ln |δ_n|` (of the unnormalised vector).
    log_growth: f64,
    /// `Σ_k Y_k`.
    y_sum: f64,
}

/// MEGNO on `T*G` (states [`LieState<E, D>`]): the deviation `(η, δμ) ∈ g × g*` of the
/// left-trivialized chart `(g exp(η), μ + δμ)`, stored as `PhaseState<D>` (`η` in `q`, `δμ` in
/// `p`), carried by [`LieFiniteDifference`](super::LieFiniteDifference); start it with
/// [`Megno::start`]. The limits are those above: along a bounded `μ` the norm of `R^{2D}` is
/// equivalent to any other, which changes `ln|δ|` by a bounded amount `f(t)`, `Y` by
/// `2 f(t) − (2/t) ∫₀ᵗ f`, and leaves the limit of `⟨Y⟩` where `f` has a time average.
pub type LieMegno<E, const D: usize> = Megno<D, LieState<E, D>>;

impl<const N: usize> Megno<N> {
    /// Start at `state` with the deviation vector `delta` (normalised here) and step `h`.
    /// [`GeomError::InvalidStep`] for a zero or non-finite `h`; [`GeomError::NonFinite`] for a
    /// non-finite state or deviation; [`GeomError::InvalidParameter`] for a zero deviation.
    pub fn new(state: PhaseState<N>, delta: PhaseState<N>, h: f64) -> Result<Self, GeomError> {
        Self::init(state, delta, h, |s| {
            check_phase_state(s).map_err(|_| GeomError::NonFinite { what: "MEGNO initial state or deviation" })
        })
    }
}

impl<const N: usize, S: Clone> Megno<N, S> {
    /// Start at `state` with the deviation `delta` (normalised here) and step `h` for the tangent
    /// map `method` (on `T*G`: a [`LieFiniteDifference`](super::LieFiniteDifference), `delta =
    /// (η, δμ)`). The errors of [`new`](Megno::new), the state checked by
    /// [`TangentMap::check_state`] (on `T*G`: [`GeomError::NonFinite`], or
    /// [`GeomError::OffManifold`] for `g` off the group).
    pub fn start<M: TangentMap<S, N> + ?Sized>(
        method: &M,
        state: S,
        delta: PhaseState<N>,
        h: f64,
    ) -> Result<Self, GeomError> {
        Self::init(state, delta, h, |s| method.check_state(s))
    }

    /// The checks of `h`, `check(state)`, then those of `delta`.
    fn init(
        state: S,
        delta: PhaseState<N>,
        h: f64,
        check: impl FnOnce(&S) -> Result<(), GeomError>,
    ) -> Result<Self, GeomError> {
        check_step(h)?;
        check(&state)?;
        if !delta.is_finite() {
            return Err(GeomError::NonFinite { what: "MEGNO initial state or deviation" });
        }
        let r = dot(&delta, &delta).sqrt();
        if r == 0.0 {
            return Err(GeomError::InvalidParameter { what: "delta", reason: "the deviation vector is zero".into() });
        }
        let delta = PhaseState::new(delta.q / r, delta.p / r);
        Ok(Self { state, delta, h, steps: 0, weighted: 0.0, log_growth: 0.0, y_sum: 0.0 })
    }

    /// Advance `n` steps of `method`. All or nothing: on an error at any step `self` is left
    /// exactly as it was.
    pub fn advance<M: TangentMap<S, N> + ?Sized>(&mut self, method: &M, n: usize) -> Result<(), GeomError> {
        let mut work = self.clone();
        for _ in 0..n {
            let (next, m) = method.tangent_step(&work.state, work.h)?;
            let d = apply_jacobian(&m, &work.delta);
            let r = dot(&d, &d).sqrt();
            if !(r.is_finite() && r > 0.0) {
                return Err(GeomError::NonFinite { what: "MEGNO deviation vector" });
            }
            let growth = r.ln();
            work.steps += 1;
            let k = work.steps as f64;
            work.weighted += k * growth;
            work.log_growth += growth;
            work.y_sum += 2.0 * work.weighted / k;
            work.delta = PhaseState::new(d.q / r, d.p / r);
            work.state = next;
        }
        *self = work;
        Ok(())
    }

    /// `Y_n = (2/n) Σ_k k ln(|δ_k|/|δ_{k−1}|)` (zero before the first step).
    pub fn value(&self) -> f64 {
        if self.steps == 0 { 0.0 } else { 2.0 * self.weighted / self.steps as f64 }
    }

    /// The running mean `⟨Y⟩_n = (1/n) Σ_{k≤n} Y_k` (zero before the first step).
    pub fn mean(&self) -> f64 {
        if self.steps == 0 { 0.0 } else { self.y_sum / self.steps as f64 }
    }

    /// The finite-time maximal Lyapunov exponent of the same deviation vector, `ln|δ_n| / t`.
    pub fn lyapunov(&self) -> f64 {
        let t = self.time();
        if t == 0.0 { 0.0 } else { self.log_growth / t }
    }

    /// The time `t = n h`.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.h
    }

    /// The current state `x_n`.
    pub fn state(&self) -> &S {
        &self.state
    }
}
