//! The Lyapunov spectrum of a one-step method by repeated QR (Gram–Schmidt) re-orthonormalisation:
//! G. Benettin, L. Galgani, A. Giorgilli & J.-M. Strelcyn, *Lyapunov characteristic exponents
//! for smooth dynamical systems and for Hamiltonian systems; a method for computing all of them*,
//! Meccanica 15 (1980), Part 1: 9–20, Part 2: 21–30.

use super::tangent::{TangentMap, apply_jacobian, check_phase_state, dot};
use geom_core::GeomError;
use geom_core::step::{LieState, PhaseState, check_step};

/// The first `K` Lyapunov exponents (`1 ≤ K ≤ 2N`) of the numerical trajectory of a method with
/// step `h` on `T*R^N` (states `S = PhaseState<N>`, the default) or, through the same code, on
/// any state space `S` whose tangent map a [`TangentMap<S, N>`] gives in `2N` coordinates:
/// `T*G` in left trivialization ([`LieLyapunovSpectrum`],
/// [`LieFiniteDifference`](super::LieFiniteDifference)).
///
/// Along the trajectory `x_{k+1} = Φ_h(x_k)` an orthonormal frame `W_k = (w_1, …, w_K)` of
/// deviation vectors is carried by the step Jacobian `M_k = DΦ_h(x_k)`
/// ([`TangentMap`]; on `T*R^N` the method's [`StepJacobian`](crate::classical::StepJacobian))
/// and re-orthonormalised after every step by the QR factorisation `M_k W_k = W_{k+1} R_k`
/// (modified Gram–Schmidt: `R_k` upper triangular with positive diagonal). After `n` steps, at `t = n h`,
///
/// ```text
///     λ_i(t) = (1/t) Σ_{k<n} ln (R_k)_ii,     i = 1..K,
/// ```
///
/// the finite-time exponents; as `t → ∞` they tend to the Lyapunov characteristic exponents
/// `λ_1 ≥ … ≥ λ_K` of the numerical map (Benettin et al. 1980, Part 2, the theorem of
/// Oseledec made computable): `Σ_{i≤k} λ_i` is the growth rate of `k`-volumes, which the
/// products of the diagonals of `R` measure. Starting frame: the first `K` unit vectors
/// `e_{q_1}, …, e_{q_N}, e_{p_1}, …, e_{p_N}`.
///
/// For `K = 2N` the sum `Σ_i λ_i(t) = (1/t) Σ_k ln |det M_k|` vanishes for a symplectic method
/// (`det M_k = 1`) up to round-off, at every `t`; the pairing `λ_i = −λ_{2N+1−i}` holds in the
/// limit (finite-time values approach it as `O(1/t)`).
///
/// ```
/// use integrators::classical::StormerVerlet;
/// use integrators::variational_equations::LyapunovSpectrum;
/// use integrators::PhaseState;
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use nalgebra::{SVector, Vector1};
///
/// /// The inverted oscillator `H = (p² − q²)/2`: exponents ±1 (a hyperbolic saddle).
/// struct Saddle;
/// impl PhaseSpaceFunction<1> for Saddle {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
///         (p[0] * p[0] - q[0] * q[0]) * S::from(0.5)
///     }
/// }
/// let sv = StormerVerlet::new(AutoDiff::separable(Saddle));
/// let mut l = LyapunovSpectrum::<1, 2>::new(PhaseState::new(Vector1::new(0.0), Vector1::new(0.0)), 0.01)?;
/// l.advance(&sv, 5_000)?;
/// let [l1, l2] = l.exponents();
/// // the sum is round-off: a few ε per step, 5000 steps, over t = 50
/// assert!((l1 - 1.0).abs() < 1e-2 && (l1 + l2).abs() < 1e-12, "{l1} {l2}");
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LyapunovSpectrum<const N: usize, const K: usize, S = PhaseState<N>> {
    state: S,
    frame: [PhaseState<N>; K],
    log_sums: [f64; K],
    steps: u64,
    h: f64,
}

/// The Lyapunov spectrum of a method on `T*G` (states [`LieState<E, D>`], `G` of dimension `D`,
/// `1 ≤ K ≤ 2D` exponents), the deviation vectors `(η, δμ) ∈ g × g* ≅ R^D × R^D` of the
/// left-trivialized chart `(g exp(η), μ + δμ)` stored as `PhaseState<D>` (`η` in `q`, `δμ` in
/// `p`), the tangent map of [`LieFiniteDifference`](super::LieFiniteDifference); start it with
/// [`LyapunovSpectrum::start`].
///
/// For a symplectic method on `T*G` the canonical form in these coordinates,
/// `ω_μ((η₁, ν₁), (η₂, ν₂)) = ⟨ν₂, η₁⟩ − ⟨ν₁, η₂⟩ + ⟨μ, [η₁, η₂]⟩` (Bou-Rabee & Marsden,
/// *Hamilton–Pontryagin integrators on Lie groups, Part I*, 2009, arXiv:0801.0996), has the
/// matrix `Ω(μ) = [[B(μ), I], [−I, 0]]`, `B(μ)_ij = ⟨μ, [e_i, e_j]⟩`, of determinant 1 at every
/// `μ`; `M_kᵀ Ω(μ_{k+1}) M_k = Ω(μ_k)` then gives `|det M_k| = 1` and the full spectrum
/// (`K = 2D`) sums to zero at every `t`, as on `T*R^N`. The pairing
/// `λ_i = −λ_{2D+1−i}` holds in the limit: the Darboux change `Ω(μ) → Ω(0)` is bounded with its
/// inverse along a bounded `μ`, which changes no exponent.
pub type LieLyapunovSpectrum<E, const D: usize, const K: usize> = LyapunovSpectrum<D, K, LieState<E, D>>;

impl<const N: usize, const K: usize> LyapunovSpectrum<N, K> {
    /// Start at `state` with step `h`. [`GeomError::InvalidStep`] for a zero or non-finite `h`,
    /// [`GeomError::InvalidParameter`] unless `1 ≤ K ≤ 2N`, [`GeomError::NonFinite`] for a
    /// non-finite state.
    pub fn new(state: PhaseState<N>, h: f64) -> Result<Self, GeomError> {
        Self::init(state, h, check_phase_state)
    }
}

impl<const N: usize, const K: usize, S: Clone> LyapunovSpectrum<N, K, S> {
    /// Start at `state` with step `h` for the tangent map `method` (any state space: on `T*G`
    /// with a [`LieFiniteDifference`](super::LieFiniteDifference)). The errors of
    /// [`new`](LyapunovSpectrum::new), the state checked by [`TangentMap::check_state`]
    /// (on `T*G`: [`GeomError::NonFinite`], or [`GeomError::OffManifold`] for `g` off the group).
    pub fn start<M: TangentMap<S, N> + ?Sized>(method: &M, state: S, h: f64) -> Result<Self, GeomError> {
        Self::init(state, h, |s| method.check_state(s))
    }

    /// The checks of `h` and `K`, then `check(state)`; the frame `e_1, …, e_K`.
    fn init(state: S, h: f64, check: impl FnOnce(&S) -> Result<(), GeomError>) -> Result<Self, GeomError> {
        check_step(h)?;
        if K == 0 || K > 2 * N {
            return Err(GeomError::InvalidParameter {
                what: "K (number of exponents)",
                reason: format!("must be in 1..={} for N = {N}", 2 * N),
            });
        }
        check(&state)?;
        let frame = std::array::from_fn(|i| {
            let mut e = PhaseState::new(nalgebra::SVector::zeros(), nalgebra::SVector::zeros());
            if i < N {
                e.q[i] = 1.0;
            } else {
                e.p[i - N] = 1.0;
            }
            e
        });
        Ok(Self { state, frame, log_sums: [0.0; K], steps: 0, h })
    }

    /// Advance `n` steps of `method`, re-orthonormalising the frame after each. All or nothing:
    /// on an error at any step (the method's, or a frame that collapsed to a non-finite or zero
    /// vector) `self` is left exactly as it was.
    pub fn advance<M: TangentMap<S, N> + ?Sized>(&mut self, method: &M, n: usize) -> Result<(), GeomError> {
        let mut work = self.clone();
        for _ in 0..n {
            work.step(method)?;
        }
        *self = work;
        Ok(())
    }

    /// One step: `x ← Φ_h(x)`, `W ← M W`, then modified Gram–Schmidt
    /// `w_i ← w_i − Σ_{j<i} ⟨w_i, w_j⟩ w_j`, `R_ii = |w_i|`, `w_i ← w_i / R_ii`.
    #[inline]
    fn step<M: TangentMap<S, N> + ?Sized>(&mut self, method: &M) -> Result<(), GeomError> {
        let (next, m) = method.tangent_step(&self.state, self.h)?;
        for w in self.frame.iter_mut() {
            *w = apply_jacobian(&m, w);
        }
        for i in 0..K {
            let mut w = self.frame[i];
            for j in 0..i {
                let c = dot(&w, &self.frame[j]);
                w.q -= self.frame[j].q * c;
                w.p -= self.frame[j].p * c;
            }
            let r = dot(&w, &w).sqrt();
            if !(r.is_finite() && r > 0.0) {
                return Err(GeomError::NonFinite { what: "Lyapunov frame (collapsed deviation vector)" });
            }
            self.frame[i] = PhaseState::new(w.q / r, w.p / r);
            self.log_sums[i] += r.ln();
        }
        self.state = next;
        self.steps += 1;
        Ok(())
    }

    /// The finite-time exponents `λ_i(t) = (1/t) Σ_k ln (R_k)_ii` (zeros before the first step).
    pub fn exponents(&self) -> [f64; K] {
        let t = self.time();
        if t == 0.0 { [0.0; K] } else { self.log_sums.map(|s| s / t) }
    }

    /// `Σ_k ln (R_k)_ii`: the logarithmic growth of each direction, before division by `t`.
    pub fn log_growth(&self) -> [f64; K] {
        self.log_sums
    }

    /// The time `t = n h` of the `n` steps taken.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.h
    }

    /// The current state `x_n`.
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The current orthonormal frame `W_n`.
    pub fn frame(&self) -> &[PhaseState<N>; K] {
        &self.frame
    }
}
