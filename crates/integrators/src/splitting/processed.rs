//! The Wisdom–Holman family advanced on its mapping variable, the corrector applied only where
//! the trajectory is read: WHFast's way (Rein & Tamayo, *WHFast: a fast and unbiased
//! implementation of a symplectic Wisdom–Holman integrator for long-term gravitational
//! simulations*, MNRAS 452, 2015, arXiv:1506.01084, §3–4), as a processed method (Butcher,
//! *The effective order of Runge–Kutta methods*, 1969; Blanes, Casas & Ros, *Symplectic
//! integration with processing: a general study*, SIAM J. Sci. Comput. 21, 1999).
//!
//! A [`WisdomHolman`] step on the split coordinates `z = T(x)` (`T` the change to Jacobi or
//! democratic heliocentric coordinates) is `Ψ_h = C ∘ ψ_h ∘ C^{−1}`, `C` the symplectic
//! corrector (the identity without one), and the kernel `ψ_h` a palindromic composition whose
//! first and last stages are drifts of the same length, `ψ_h = φ^K_{ch} ∘ M_h ∘ φ^K_{ch}` (in the
//! order applied: `φ^K_{ch}`, then the inner stages `M_h`, then `φ^K_{ch}`; `c = 1/2` for the
//! Wisdom–Holman map, `c = c_1` for SABA_n). The flows of `H_K` compose exactly,
//! `φ^K_{ch} ∘ φ^K_{ch} = φ^K_{2ch}`, so `n` steps are
//!
//! ```text
//!   x_n = T^{−1} ∘ Ψ_h^n ∘ T (x_0) = P_h ∘ κ_h^n ∘ P_h^{−1} (x_0),
//!   κ_h = M_h after φ^K_{2ch}           (the kernel: one drift fewer per step),
//!   P_h = T^{−1} ∘ C ∘ φ^K_{ch}          (the post-processor, "synchronization"),
//!   P_h^{−1} = φ^K_{−ch} ∘ C^{−1} ∘ T     (the pre-processor, once at the start).
//! ```
//!
//! [`ProcessedWisdomHolman`] is the [`OneStep`] `κ_h` on the mapping variable
//! `y = P_h^{−1}(x)` (a [`PlanetarySplit::State`], a [`geom_core::step::FlatState`], so a run
//! checkpoints and resumes it bit for bit); [`ProcessedWisdomHolman::to_mapping`] is `P_h^{−1}`
//! and [`ProcessedWisdomHolman::to_physical`] is `P_h`, which the caller applies to a copy where
//! it reads the trajectory (samples, energy), never to the running state. In exact arithmetic
//! `P_h(κ_h^n(P_h^{−1}(x_0)))` is the trajectory of [`WisdomHolman`] with the corrector every
//! step; in floating point they differ by round-off. WHFast with `safe_mode = 0` is this
//! (REBOUND merges the half drifts of consecutive steps and synchronizes a copy for output).
//!
//! On its own state `κ_h` is a composition of the sub-flows (symplectic) conjugate to `Ψ_h`:
//! its order *as a map of `y`* is 1 (it is not symmetric: `κ_h = P_h^{−1} Ψ_h P_h` with an
//! `h`-dependent `P_h = id + O(h)`), while the processed trajectory `P_h(y_n)` has the order
//! of `Ψ_h` (its effective order). The step size of `to_mapping`, the steps and `to_physical`
//! must be the same `h`.

use super::planetary::PlanetarySystem;
use super::planetary_split::PlanetarySplit;
use super::wisdom_holman::WisdomHolman;
use geom_core::GeomError;
use geom_core::step::{FlatState, OneStep, PhaseState, check_step};

/// A [`WisdomHolman`] method on its mapping variable, the corrector and the outer half drifts
/// applied at output only (module documentation).
///
/// ```
/// use geom_core::function::PhaseSpaceDerivatives;
/// use geom_core::pairwise;
/// use geom_core::step::{OneStep, PhaseState};
/// use integrators::splitting::{ProcessedWisdomHolman, WisdomHolman};
/// use nalgebra::SVector;
///
/// let model = pairwise::gravity::<6, 2, 3>(1.0, [1.0, 1e-3, 1e-3])?;
/// let x0 = PhaseState::new(
///     SVector::from([0.0, 0.0, 1.0, 0.0, -1.6, 0.0]),
///     SVector::from([0.0, 0.0, 0.0, 1e-3, 0.0, -1e-3 / 1.6f64.sqrt()]),
/// );
/// let every_step = WisdomHolman::whfast(&model)?.with_corrector(17)?;
/// let at_output = ProcessedWisdomHolman::new(every_step.clone())?;
/// let h = 0.1;
/// let mut y = at_output.to_mapping(&x0, h)?; // once, at the start
/// at_output.step_n(&mut y, h, 1000)?; // one drift and one kick per step
/// let x = at_output.to_physical(&y, h)?; // on a copy, where the trajectory is read
/// let mut reference = x0;
/// every_step.step_n(&mut reference, h, 1000)?;
/// assert!((x.q - reference.q).norm() < 1e-11);
/// let e0 = model.value(&x0.q, &x0.p);
/// assert!(((model.value(&x.q, &x.p) - e0) / e0).abs() < 1e-8);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ProcessedWisdomHolman<const N: usize, const D: usize, const B: usize, S = PlanetarySystem<D, B>> {
    method: WisdomHolman<N, D, B, S>,
    /// `c`: the first and last drift of the kernel are `φ^K_{ch}`.
    half: f64,
    /// `κ_h`: `(0, 2c)`, then the inner stages of the kernel.
    kernel: Vec<(usize, f64)>,
}

impl<const N: usize, const D: usize, const B: usize, S: PlanetarySplit<D, B>> ProcessedWisdomHolman<N, D, B, S> {
    /// `method` on its mapping variable. [`GeomError::InvalidParameter`] for SABAC_n (its outer
    /// stages are corrector kicks) and for a kernel that does not start and end with the same
    /// drift (module documentation).
    pub fn new(method: WisdomHolman<N, D, B, S>) -> Result<Self, GeomError> {
        let stages = method.stages();
        let ends = match (stages.first(), stages.last()) {
            (Some(&(0, a)), Some(&(0, b))) if stages.len() >= 3 && a == b => Some(a),
            _ => None,
        };
        let half = match ends {
            Some(c) if method.sabac_coefficient().is_none() => c,
            _ => {
                return Err(GeomError::InvalidParameter {
                    what: "processed Wisdom-Holman method",
                    reason: format!(
                        "needs a kernel that starts and ends with the same drift, not {}",
                        OneStep::<PhaseState<N>>::name(&method)
                    ),
                });
            }
        };
        let kernel = std::iter::once((0, 2.0 * half)).chain(stages[1..stages.len() - 1].iter().copied()).collect();
        Ok(Self { method, half, kernel })
    }

    /// The method whose trajectory this computes (with the corrector every step).
    pub fn method(&self) -> &WisdomHolman<N, D, B, S> {
        &self.method
    }

    /// The stages `(k, c)` of `κ_h` (`k = 0` the drift, `1` the kick, for `c h`).
    pub fn kernel(&self) -> &[(usize, f64)] {
        &self.kernel
    }

    /// `y = P_h^{−1}(x) = φ^K_{−ch}(C^{−1}(T(x)))`: the mapping variable of the inertial state
    /// `x`, for steps of `h`. [`GeomError::InvalidStep`] for a zero or non-finite `h`,
    /// [`GeomError::NonFinite`] for a non-finite state or result, the errors of the Kepler
    /// drift.
    pub fn to_mapping(&self, x: &PhaseState<N>, h: f64) -> Result<S::State, GeomError> {
        check_step(h)?;
        if !x.is_finite() {
            return Err(GeomError::NonFinite { what: "state before the Wisdom-Holman pre-processor" });
        }
        let system = self.method.system();
        let mut z = system.to_split(x);
        if let Some(c) = self.method.corrector() {
            self.method.run(&mut z, c.inverse_stages(), h)?;
        }
        system.drift(&mut z, -self.half * h)?;
        if !z.words_finite() {
            return Err(GeomError::NonFinite { what: "mapping variable" });
        }
        Ok(z)
    }

    /// `x = P_h(y) = T^{−1}(C(φ^K_{ch}(y)))`: the inertial state of the mapping variable `y`
    /// (a new state; `y` is not changed). The errors of [`Self::to_mapping`].
    pub fn to_physical(&self, y: &S::State, h: f64) -> Result<PhaseState<N>, GeomError> {
        check_step(h)?;
        if !y.words_finite() {
            return Err(GeomError::NonFinite { what: "mapping variable" });
        }
        let system = self.method.system();
        let mut z = *y;
        system.drift(&mut z, self.half * h)?;
        if let Some(c) = self.method.corrector() {
            self.method.run(&mut z, c.stages(), h)?;
        }
        let x: PhaseState<N> = system.to_inertial(&z);
        if !x.is_finite() {
            return Err(GeomError::NonFinite { what: "state after the Wisdom-Holman post-processor" });
        }
        Ok(x)
    }
}

impl<const N: usize, const D: usize, const B: usize, S: PlanetarySplit<D, B>> OneStep<S::State>
    for ProcessedWisdomHolman<N, D, B, S>
{
    fn name(&self) -> String {
        format!("{} (processed: corrector at output)", OneStep::<PhaseState<N>>::name(&self.method))
    }
    /// 1: the order of `κ_h` as a map of its own state (module documentation); the processed
    /// trajectory has the order of the method.
    fn order(&self) -> u32 {
        1
    }
    /// `κ_h = φ^K_{2ch}` then `M_h`, on a copy of the state, written back when every drift
    /// succeeded and the result is finite.
    #[inline]
    fn step(&self, state: &mut S::State, h: f64) -> Result<(), GeomError> {
        check_step(h)?;
        if !state.words_finite() {
            return Err(GeomError::NonFinite { what: "Wisdom-Holman mapping variable" });
        }
        let mut s = *state;
        self.method.run(&mut s, &self.kernel, h)?;
        if !s.words_finite() {
            return Err(GeomError::NonFinite { what: "mapping variable after a Wisdom-Holman step" });
        }
        *state = s;
        Ok(())
    }
}
