//! The one-step integrator trait of the workspace, [`OneStep`], and the phase-space state it
//! advances on `T*R^N`.
//!
//! A one-step method is a map `Φ_h: (q_k, p_k) ↦ (q_{k+1}, p_{k+1})`. Every integrator of
//! `discretization` and `integrators` implements [`OneStep`] for its state type, so drivers,
//! compositions and the command-line tool hold any of them as `Box<dyn OneStep<St>>`.

use geom_core::GeomError;
use nalgebra::SVector;

/// A point `(q, p)` of `T*R^N`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhaseState<const N: usize> {
    /// Position `q`.
    pub q: SVector<f64, N>,
    /// Momentum `p`.
    pub p: SVector<f64, N>,
}

impl<const N: usize> PhaseState<N> {
    /// The state `(q, p)`.
    pub fn new(q: SVector<f64, N>, p: SVector<f64, N>) -> Self {
        Self { q, p }
    }
    /// A state from slices; [`GeomError::DimensionMismatch`] unless both have length `N`,
    /// [`GeomError::NonFinite`] for non-finite entries.
    ///
    /// ```
    /// use discretization::PhaseState;
    /// let s = PhaseState::<2>::from_slices(&[1.0, 0.0], &[0.0, 1.0])?;
    /// assert_eq!(s.q[0], 1.0);
    /// assert!(PhaseState::<2>::from_slices(&[1.0], &[0.0, 1.0]).is_err());
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn from_slices(q: &[f64], p: &[f64]) -> Result<Self, GeomError> {
        for (what, v) in [("q", q), ("p", p)] {
            if v.len() != N {
                return Err(GeomError::DimensionMismatch { what, expected: N, got: v.len() });
            }
        }
        let s = Self { q: SVector::from_column_slice(q), p: SVector::from_column_slice(p) };
        if s.is_finite() { Ok(s) } else { Err(GeomError::NonFinite { what: "phase state" }) }
    }
    /// Whether every entry is finite.
    #[inline]
    pub fn is_finite(&self) -> bool {
        // branch-free, on the two contiguous slices (a `Chain` iterator's fold is not always
        // inlined, and this runs once per step)
        let zero = |v: &[f64]| v.iter().fold(0.0, |acc, x| acc + 0.0 * x);
        zero(self.q.as_slice()) + zero(self.p.as_slice()) == 0.0
    }
}

/// A one-step method `Φ_h` on states `St` (object-safe: `Box<dyn OneStep<St>>`).
///
/// Contract of [`OneStep::step`]:
/// * `h` may be negative (compositions use negative sub-steps; `Φ_{-h}` is the backward step) but
///   must be finite and nonzero, else [`GeomError::InvalidStep`];
/// * on any error the state is left exactly as it was;
/// * a state that becomes non-finite is an error ([`GeomError::NonFinite`]), not a result.
pub trait OneStep<St>: Send + Sync {
    /// Name of the method, e.g. `"theta(0.5) [midpoint]"`.
    fn name(&self) -> String;
    /// Classical order `p`: the local error is `O(h^{p+1})`.
    fn order(&self) -> u32;
    /// Whether the method is symmetric (`Φ_h^{-1} = Φ_{-h}`), which makes its order even and
    /// lets symmetric compositions raise it by two.
    fn is_symmetric(&self) -> bool {
        false
    }
    /// Advance `state` by one step of size `h`.
    fn step(&self, state: &mut St, h: f64) -> Result<(), GeomError>;
    /// Advance `state` by `n` steps of size `h`: bit for bit the state of `n` calls of
    /// [`OneStep::step`], which is what this default does. A method overrides it to share work
    /// between consecutive steps: Störmer–Verlet of a separable `H` evaluates the force
    /// `∇V(q_{k+1})` once for the last kick of step `k` and the first kick of step `k + 1`
    /// ("first same as last"), one force evaluation per step instead of two.
    ///
    /// All or nothing: on an error at any of the `n` steps, `state` is left exactly as it was
    /// before the call (step again one by one to find the failing step). `n = 0` leaves the
    /// state as it is (and still checks `h`).
    fn step_n(&self, state: &mut St, h: f64, n: usize) -> Result<(), GeomError>
    where
        St: Clone,
    {
        step_repeatedly(self, state, h, n)
    }
}

/// `n` calls of [`OneStep::step`] on a working copy of `state`, written back when all have
/// succeeded: the default [`OneStep::step_n`], and the fallback of the methods that override it
/// (for the cases where they share no work between steps).
pub fn step_repeatedly<St: Clone, M: OneStep<St> + ?Sized>(
    method: &M,
    state: &mut St,
    h: f64,
    n: usize,
) -> Result<(), GeomError> {
    check_step(h)?;
    let mut work = state.clone();
    for _ in 0..n {
        method.step(&mut work, h)?;
    }
    *state = work;
    Ok(())
}

impl<St, M: OneStep<St> + ?Sized> OneStep<St> for Box<M> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn order(&self) -> u32 {
        (**self).order()
    }
    fn is_symmetric(&self) -> bool {
        (**self).is_symmetric()
    }
    fn step(&self, state: &mut St, h: f64) -> Result<(), GeomError> {
        (**self).step(state, h)
    }
    fn step_n(&self, state: &mut St, h: f64, n: usize) -> Result<(), GeomError>
    where
        St: Clone,
    {
        (**self).step_n(state, h, n)
    }
}

impl<St, M: OneStep<St> + ?Sized> OneStep<St> for &M {
    fn name(&self) -> String {
        (**self).name()
    }
    fn order(&self) -> u32 {
        (**self).order()
    }
    fn is_symmetric(&self) -> bool {
        (**self).is_symmetric()
    }
    fn step(&self, state: &mut St, h: f64) -> Result<(), GeomError> {
        (**self).step(state, h)
    }
    fn step_n(&self, state: &mut St, h: f64, n: usize) -> Result<(), GeomError>
    where
        St: Clone,
    {
        (**self).step_n(state, h, n)
    }
}

impl<St, M: OneStep<St> + ?Sized> OneStep<St> for std::sync::Arc<M> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn order(&self) -> u32 {
        (**self).order()
    }
    fn is_symmetric(&self) -> bool {
        (**self).is_symmetric()
    }
    fn step(&self, state: &mut St, h: f64) -> Result<(), GeomError> {
        (**self).step(state, h)
    }
    fn step_n(&self, state: &mut St, h: f64, n: usize) -> Result<(), GeomError>
    where
        St: Clone,
    {
        (**self).step_n(state, h, n)
    }
}

/// `Ok(())` if `h` is finite and nonzero, else [`GeomError::InvalidStep`].
#[inline]
pub fn check_step(h: f64) -> Result<(), GeomError> {
    if h.is_finite() && h != 0.0 { Ok(()) } else { Err(GeomError::InvalidStep { h }) }
}
