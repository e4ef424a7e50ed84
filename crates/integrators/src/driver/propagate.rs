//! A method with its state, step size and step count, advanced `n` steps at a time: what the
//! driver's one loop ([`drive`](super::drive)) runs, whoever calls it (the driver's own runs,
//! the workbench's sessions and experiments).

use super::*;

/// A state that a checkpoint saves as `f64` words and restores bit for bit (every
/// [`FlatState`], and [`geom_core::step::DynPhaseState`] at run-time size): the step layer's
/// trait, re-exported here where the checkpoints use it.
pub use geom_core::step::Words;

/// A run in progress, object-safe: a method, its state, the step `h` and the steps taken. The
/// driver's loop ([`drive`](super::drive)) advances it between samples and checkpoints, one
/// call of [`advance_by`](Self::advance_by) per chunk (one dynamic call for many steps).
pub trait Propagator {
    /// The step size.
    fn h(&self) -> f64;
    /// Steps taken so far.
    fn steps(&self) -> usize;
    /// The time `steps · h` (a product, not an accumulated sum).
    fn time(&self) -> f64 {
        self.steps() as f64 * self.h()
    }
    /// `n` steps: the same state, bit for bit, as `n` single steps, and the same place on an
    /// error: the state after the last step that succeeded, [`steps`](Self::steps) counting it,
    /// and the error of the step that failed.
    fn advance_by(&mut self, n: usize) -> Result<(), GeomError>;
    /// The exact state — every number the next step depends on — as words, or `None` if it
    /// cannot be saved (a resumed run then replays its steps from the start).
    fn save(&self) -> Option<Vec<f64>> {
        None
    }
    /// Sets the state to `words` (as written by [`save`](Self::save)) after `steps` steps; an
    /// error, with nothing changed, if the words do not fit or the run cannot be restored.
    fn restore(&mut self, words: &[f64], steps: usize) -> Result<(), GeomError> {
        let _ = (words, steps);
        Err(GeomError::InvalidParameter { what: "state", reason: "this run cannot be restored".into() })
    }
}

impl<P: Propagator + ?Sized> Propagator for Box<P> {
    fn h(&self) -> f64 {
        (**self).h()
    }
    fn steps(&self) -> usize {
        (**self).steps()
    }
    fn advance_by(&mut self, n: usize) -> Result<(), GeomError> {
        (**self).advance_by(n)
    }
    fn save(&self) -> Option<Vec<f64>> {
        (**self).save()
    }
    fn restore(&mut self, words: &[f64], steps: usize) -> Result<(), GeomError> {
        (**self).restore(words, steps)
    }
}

/// `n` steps of `method` on `state` in place, counted in `steps`: one call of
/// [`OneStep::step_n`] (of [`OneStep::step`] for `n = 1`: a method's `step_n` may prepare what its
/// steps share, e.g. the first force of Störmer–Verlet, which one step does not repay); on its
/// error (which leaves the state untouched) the steps are taken again one by one up to the
/// failing one, so that the state, the count and the error are those of `n` single steps.
#[inline]
pub(super) fn advance_in_place<M: OneStep<St> + ?Sized, St: Clone>(
    method: &M,
    state: &mut St,
    h: f64,
    n: usize,
    steps: &mut usize,
) -> Result<(), GeomError> {
    if n == 1 {
        method.step(state, h)?;
        *steps += 1;
        return Ok(());
    }
    if method.step_n(state, h, n).is_ok() {
        *steps += n;
        return Ok(());
    }
    for _ in 0..n {
        method.step(state, h)?;
        *steps += 1;
    }
    Ok(())
}

/// `n` compensated steps ([`compensated_step`]) of `method` on `state` with the carries
/// `(e_q, e_p)`, counted in `steps`; at a failing step neither the state nor the carries change.
#[inline]
pub(super) fn compensated_in_place<M: Increment<N> + ?Sized, const N: usize>(
    method: &M,
    state: &mut PhaseState<N>,
    (eq, ep): (&mut SVector<f64, N>, &mut SVector<f64, N>),
    h: f64,
    n: usize,
    steps: &mut usize,
) -> Result<(), GeomError> {
    for _ in 0..n {
        compensated_step(method, state, h, eq, ep)?;
        *steps += 1;
    }
    Ok(())
}

/// A [`OneStep`] method `M` on its state `St` with a fixed step `h`: the [`Propagator`] of every
/// plain run. The state is advanced in place: the [`OneStep`] contract (a failed step leaves the
/// state exactly as it was) is what lets it neither copy nor re-check the state.
#[derive(Debug, Clone)]
pub struct Propagation<M, St> {
    method: M,
    state: St,
    h: f64,
    steps: usize,
}

impl<M, St> Propagation<M, St> {
    /// `method` started at `state` with step `h` (no step taken); [`GeomError::InvalidStep`]
    /// unless `h` is finite and nonzero ([`check_step`](geom_core::step::check_step)).
    pub fn new(method: M, state: St, h: f64) -> Result<Self, GeomError> {
        Self::at(method, state, h, 0)
    }
    /// A run of `method` that is at `state` after `steps` steps of `h`; the same check of `h`.
    pub fn at(method: M, state: St, h: f64, steps: usize) -> Result<Self, GeomError> {
        geom_core::step::check_step(h)?;
        Ok(Self { method, state, h, steps })
    }
    /// The current state.
    pub fn state(&self) -> &St {
        &self.state
    }
    /// The method.
    pub fn method(&self) -> &M {
        &self.method
    }
    /// The state, giving the method back.
    pub fn into_state(self) -> St {
        self.state
    }
}

impl<M: OneStep<St>, St: Words + Clone> Propagator for Propagation<M, St> {
    fn h(&self) -> f64 {
        self.h
    }
    fn steps(&self) -> usize {
        self.steps
    }
    /// The `n` steps in one call of [`OneStep::step_n`]. On an error `step_n` has left the state
    /// untouched; the steps are then taken again one by one up to the failing one, so that the
    /// state, the count and the error are those of `n` single steps.
    fn advance_by(&mut self, n: usize) -> Result<(), GeomError> {
        advance_in_place(&self.method, &mut self.state, self.h, n, &mut self.steps)
    }
    fn save(&self) -> Option<Vec<f64>> {
        let mut words = Vec::with_capacity(self.state.word_count());
        self.state.append_words(&mut words);
        Some(words)
    }
    fn restore(&mut self, words: &[f64], steps: usize) -> Result<(), GeomError> {
        self.state = self.state.read_words_like(words).ok_or_else(|| GeomError::InvalidParameter {
            what: "state",
            reason: format!("{} words for a state of {}", words.len(), self.state.word_count()),
        })?;
        self.steps = steps;
        Ok(())
    }
}

/// A method on `T*R^N` with compensated (Kahan) summation of its increments (module
/// documentation of [`super`]; Hairer, Lubich & Wanner, *Geometric Numerical Integration*, 2006,
/// Algorithm VIII.5.1): each step computes `δ = Φ_h(y) − y` directly ([`Increment`]) and adds
/// it with the running carry `e` of `y_k = y_0 + Σ δ_j`, componentwise
/// `e ← e + δ; y' = y + e; e ← e + (y − y')`. The exact state is `q, p` and then the carries
/// `e_q, e_p` (`4N` words), which [`Propagator::save`] writes and [`Propagator::restore`] reads.
#[derive(Debug, Clone)]
pub struct CompensatedPropagation<M, const N: usize> {
    method: M,
    state: PhaseState<N>,
    carry_q: SVector<f64, N>,
    carry_p: SVector<f64, N>,
    h: f64,
    steps: usize,
}

impl<M, const N: usize> CompensatedPropagation<M, N> {
    /// `method` started at `state` with step `h` and zero carries; [`GeomError::InvalidStep`]
    /// unless `h` is finite and nonzero.
    pub fn new(method: M, state: PhaseState<N>, h: f64) -> Result<Self, GeomError> {
        geom_core::step::check_step(h)?;
        Ok(Self { method, state, carry_q: SVector::zeros(), carry_p: SVector::zeros(), h, steps: 0 })
    }
    /// The current state.
    pub fn state(&self) -> &PhaseState<N> {
        &self.state
    }
    /// The carries `(e_q, e_p)`: what the state lacks of the exact sum of the increments.
    pub fn carries(&self) -> (SVector<f64, N>, SVector<f64, N>) {
        (self.carry_q, self.carry_p)
    }
}

impl<M: Increment<N>, const N: usize> Propagator for CompensatedPropagation<M, N> {
    fn h(&self) -> f64 {
        self.h
    }
    fn steps(&self) -> usize {
        self.steps
    }
    /// `n` compensated steps; on an error neither the state nor the carries change at the
    /// failing step.
    fn advance_by(&mut self, n: usize) -> Result<(), GeomError> {
        let carry = (&mut self.carry_q, &mut self.carry_p);
        compensated_in_place(&self.method, &mut self.state, carry, self.h, n, &mut self.steps)
    }
    fn save(&self) -> Option<Vec<f64>> {
        let mut words = Vec::with_capacity(4 * N);
        self.state.write_words(&mut words);
        words.extend(self.carry_q.iter().chain(self.carry_p.iter()));
        Some(words)
    }
    fn restore(&mut self, words: &[f64], steps: usize) -> Result<(), GeomError> {
        let bad = || GeomError::InvalidParameter {
            what: "state",
            reason: format!("{} words for a compensated state of {} (q, p and their carries)", words.len(), 4 * N),
        };
        if words.len() != 4 * N {
            return Err(bad());
        }
        self.state = PhaseState::<N>::read_words(&words[..2 * N]).ok_or_else(bad)?;
        self.carry_q = SVector::from_column_slice(&words[2 * N..3 * N]);
        self.carry_p = SVector::from_column_slice(&words[3 * N..]);
        self.steps = steps;
        Ok(())
    }
}
