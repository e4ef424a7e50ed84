//! The generic [`Simulation`]: a boxed one-step method, its state and an observer that reads
//! coordinates and invariants off the state. Every problem whose state type has a
//! [`OneStep`] method uses it.

use crate::workbench::problem::Simulation;
use discretization::{OneStep, PhaseState};
use geom_core::GeomError;
use integrators::driver::{FlatState, Increment};
use nalgebra::SVector;

/// Reads output coordinates and monitored quantities off a state.
pub trait Observe<St>: Send + Sync {
    /// The state in the problem's coordinates.
    fn coordinates(&self, state: &St) -> Vec<f64>;
    /// The problem's quantities at `state`, concatenated.
    fn quantities(&self, state: &St) -> Vec<f64>;
}

/// A method, a state and an observer.
///
/// The state is advanced in place: the [`OneStep`] contract (every method of the workspace
/// obeys it, and a user's method must) is that a failed step leaves the state exactly as it
/// was, so the seam neither copies the state nor checks it again — one dynamic call per step.
pub struct Run<St, O> {
    method: Box<dyn OneStep<St>>,
    state: St,
    h: f64,
    steps: usize,
    observe: O,
}

impl<St, O> Run<St, O> {
    /// Starts `method` at `state` with step `h`.
    pub fn new(method: Box<dyn OneStep<St>>, state: St, h: f64, observe: O) -> Self {
        Self { method, state, h, steps: 0, observe }
    }
}

/// A state that a checkpoint saves as `f64` words and restores bit for bit: every
/// [`FlatState`] (a fixed number of words), and states sized at run time (the N-body state of
/// `catalogue::nbody`), which are read back in the shape of the current state.
pub trait Words: Sized {
    /// The number of words of `self`.
    fn word_count(&self) -> usize;
    /// Appends the words of `self` to `out`.
    fn append_words(&self, out: &mut Vec<f64>);
    /// The state written as `words`, shaped like `self`; `None` if they do not fit.
    fn read_words_like(&self, words: &[f64]) -> Option<Self>;
}

impl<St: FlatState> Words for St {
    fn word_count(&self) -> usize {
        St::WORDS
    }
    fn append_words(&self, out: &mut Vec<f64>) {
        FlatState::write_words(self, out);
    }
    fn read_words_like(&self, words: &[f64]) -> Option<Self> {
        St::read_words(words)
    }
}

/// The state is saved as its [`Words`], so a checkpoint restores it bit for bit.
impl<St: Words + Clone, O: Observe<St>> Simulation for Run<St, O> {
    fn h(&self) -> f64 {
        self.h
    }
    fn steps(&self) -> usize {
        self.steps
    }
    #[inline]
    fn advance(&mut self) -> Result<(), GeomError> {
        self.method.step(&mut self.state, self.h)?;
        self.steps += 1;
        Ok(())
    }
    /// The `n` steps in one call of [`OneStep::step_n`] (one dynamic call for all of them). On
    /// an error `step_n` has left the state untouched; the steps are then taken again one by one
    /// up to the failing one, so that the state, `steps()` and the error are those of
    /// [`Simulation::advance`] called `n` times.
    fn advance_by(&mut self, n: usize) -> Result<(), GeomError> {
        if self.method.step_n(&mut self.state, self.h, n).is_ok() {
            self.steps += n;
            return Ok(());
        }
        for _ in 0..n {
            self.advance()?;
        }
        Ok(())
    }
    fn state(&self) -> Vec<f64> {
        self.observe.coordinates(&self.state)
    }
    fn quantities(&self) -> Vec<f64> {
        self.observe.quantities(&self.state)
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

/// A method on `T*R^N` with compensated (Kahan) summation of its increments: the
/// [`Simulation`] of `geomint run --compensated`.
///
/// Each step computes the increment `δ = Φ_h(y) − y` directly ([`Increment`]) and adds it with
/// the running carry `e` of the sum `y_k = y_0 + Σ δ_j` (Hairer, Lubich & Wanner, *Geometric
/// Numerical Integration*, 2006, Algorithm VIII.5.1), componentwise:
/// `e ← e + δ; y' = y + e; e ← e + (y − y')`. The rounding of each update (`~ε|y|`) is carried in
/// `e` and re-added, so that only the round-off of the increments (`~ε|δ|`) accumulates. The
/// arithmetic is that of `integrators::driver::Driver::run_compensated`, bit for bit.
///
/// The exact state is `q, p` and then the carries `e_q, e_p` (`4N` words): [`Simulation::save`]
/// writes them and [`Simulation::restore`] reads them back, so a resumed compensated run
/// continues with the carries it stopped with.
pub struct CompensatedRun<const N: usize, O> {
    method: Box<dyn Increment<N>>,
    state: PhaseState<N>,
    carry_q: SVector<f64, N>,
    carry_p: SVector<f64, N>,
    h: f64,
    steps: usize,
    observe: O,
}

impl<const N: usize, O> CompensatedRun<N, O> {
    /// Starts `method` at `state` with step `h` and zero carries.
    pub fn new(method: Box<dyn Increment<N>>, state: PhaseState<N>, h: f64, observe: O) -> Self {
        Self { method, state, carry_q: SVector::zeros(), carry_p: SVector::zeros(), h, steps: 0, observe }
    }
    /// The carries `(e_q, e_p)`: what the state lacks of the exact sum of the increments.
    pub fn carries(&self) -> (SVector<f64, N>, SVector<f64, N>) {
        (self.carry_q, self.carry_p)
    }
}

/// One compensated addition per component: `(y + e + δ, e')`, with `e'` what the sum lost.
#[inline]
fn kahan<const N: usize>(y: &SVector<f64, N>, e: &SVector<f64, N>, d: &SVector<f64, N>) -> [SVector<f64, N>; 2] {
    let (mut sum, mut carry) = (*y, *e);
    for i in 0..N {
        let a = y[i];
        let ei = e[i] + d[i];
        let yi = a + ei;
        carry[i] = ei + (a - yi);
        sum[i] = yi;
    }
    [sum, carry]
}

impl<const N: usize, O: Observe<PhaseState<N>>> Simulation for CompensatedRun<N, O> {
    fn h(&self) -> f64 {
        self.h
    }
    fn steps(&self) -> usize {
        self.steps
    }
    /// One step; on error (a failed increment, a non-finite state or carry) neither the state
    /// nor the carries change.
    #[inline]
    fn advance(&mut self) -> Result<(), GeomError> {
        let (dq, dp) = self.method.increment(&self.state, self.h)?;
        let [q, eq] = kahan(&self.state.q, &self.carry_q, &dq);
        let [p, ep] = kahan(&self.state.p, &self.carry_p, &dp);
        let next = PhaseState::new(q, p);
        if !next.is_finite() || !eq.iter().chain(ep.iter()).all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "state after compensated step" });
        }
        (self.state, self.carry_q, self.carry_p) = (next, eq, ep);
        self.steps += 1;
        Ok(())
    }
    fn state(&self) -> Vec<f64> {
        self.observe.coordinates(&self.state)
    }
    fn quantities(&self) -> Vec<f64> {
        self.observe.quantities(&self.state)
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
        let state = PhaseState::<N>::read_words(&words[..2 * N]).ok_or_else(bad)?;
        self.state = state;
        self.carry_q = SVector::from_column_slice(&words[2 * N..3 * N]);
        self.carry_p = SVector::from_column_slice(&words[3 * N..]);
        self.steps = steps;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adds `h` to the state, or fails (leaving it untouched, as the `OneStep` contract asks)
    /// when the result would exceed 2.5.
    struct Scribbler;
    impl OneStep<f64> for Scribbler {
        fn name(&self) -> String {
            "scribbler".into()
        }
        fn order(&self) -> u32 {
            1
        }
        fn step(&self, state: &mut f64, h: f64) -> Result<(), GeomError> {
            if *state + h > 2.5 {
                return Err(GeomError::InvalidStep { h });
            }
            *state += h;
            Ok(())
        }
    }

    struct Identity;
    impl Observe<f64> for Identity {
        fn coordinates(&self, s: &f64) -> Vec<f64> {
            vec![*s]
        }
        fn quantities(&self, s: &f64) -> Vec<f64> {
            vec![2.0 * s]
        }
    }

    /// `advance_by(n)` is `n` calls of `advance`: the same state and count, and on a failure
    /// at step `k` of the `n` the state after step `k − 1`, its count and the step's error.
    #[test]
    fn advance_by_is_n_advances() {
        let mut run = Run::new(Box::new(Scribbler), 0.0, 0.5, Identity);
        run.advance_by(3).unwrap();
        assert_eq!((run.state(), run.steps()), (vec![1.5], 3));
        run.advance_by(0).unwrap();
        assert_eq!(run.steps(), 3);
        assert_eq!(run.advance_by(4), Err(GeomError::InvalidStep { h: 0.5 }));
        assert_eq!((run.state(), run.steps()), (vec![2.5], 5));
        // the outer solar system: one call of Störmer–Verlet's step_n (the force shared between
        // steps) against single steps, bit for bit
        let problem = crate::workbench::catalogue::problem("outer-solar-system", &[]).unwrap();
        let start = || crate::workbench::problem::start(problem.as_ref(), "stormer-verlet", 10.0).unwrap();
        let (mut one, mut all) = (start(), start());
        for _ in 0..1000 {
            one.advance().unwrap();
        }
        all.advance_by(1000).unwrap();
        assert_eq!((all.state(), all.steps()), (one.state(), one.steps()));
        assert_eq!(all.save(), one.save());
    }

    /// A failed step leaves the state and the step count untouched, and the run can be asked
    /// again.
    #[test]
    fn a_failed_step_leaves_the_state_untouched() {
        for start in [0.0, 1.0] {
            let mut run = Run::new(Box::new(Scribbler), start, 1.0, Identity);
            let mut expected = start;
            while expected + 1.0 <= 2.5 {
                run.advance().unwrap();
                expected += 1.0;
                assert_eq!(run.state(), vec![expected]);
            }
            let steps = run.steps();
            for _ in 0..2 {
                assert_eq!(run.advance(), Err(GeomError::InvalidStep { h: 1.0 }));
                assert_eq!((run.state(), run.quantities(), run.steps()), (vec![expected], vec![2.0 * expected], steps));
            }
        }
    }

    /// The compensated run is the driver's compensated summation bit for bit (state and
    /// carries), differs from the plain run, and `save`/`restore` continue it exactly, carries
    /// included; words of a plain state are refused.
    #[test]
    fn compensated_run_is_the_drivers_and_resumes_exactly() {
        use crate::workbench::catalogue::canonical::{Canonical, CanonicalSystem, Kepler};
        use integrators::classical::StormerVerlet;
        use integrators::driver::Driver;
        let kepler = Kepler { e: 0.6 };
        let h = 0.01;
        let start = |k: &Kepler| {
            CompensatedRun::new(
                Box::new(StormerVerlet::new(k.hamiltonian())),
                k.initial(),
                h,
                Canonical::<_, 2>::new(*k),
            )
        };
        let mut sim = start(&kepler);
        for _ in 0..3000 {
            sim.advance().unwrap();
        }
        let driver = Driver::new(h).unwrap();
        let mut reference = driver.start_compensated(kepler.initial(), &[]);
        reference.advance_compensated(&StormerVerlet::new(kepler.hamiltonian()), 3000, &[], None).unwrap();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let s = reference.state();
        assert_eq!(bits(&sim.state()), bits(&[s.q[0], s.q[1], s.p[0], s.p[1]]));
        let (eq, ep) = sim.carries();
        assert_eq!(bits(&[eq[0], eq[1], ep[0], ep[1]]), bits(reference.carries().unwrap()));
        assert!(eq.iter().chain(ep.iter()).any(|c| *c != 0.0), "the carries are all zero");
        let mut plain =
            Run::new(Box::new(StormerVerlet::new(kepler.hamiltonian())), kepler.initial(), h, Canonical::new(kepler));
        for _ in 0..3000 {
            plain.advance().unwrap();
        }
        assert_ne!(bits(&plain.state()), bits(&sim.state()), "compensated and plain runs agree bit for bit");

        let saved = sim.save().unwrap();
        assert_eq!(saved.len(), 8);
        let mut resumed = start(&kepler);
        assert!(resumed.restore(&saved[..4], 3000).is_err(), "a plain state restores a compensated run");
        assert_eq!(resumed.steps(), 0);
        resumed.restore(&saved, 3000).unwrap();
        for _ in 0..1000 {
            sim.advance().unwrap();
            resumed.advance().unwrap();
        }
        assert_eq!((bits(&resumed.save().unwrap()), resumed.steps()), (bits(&sim.save().unwrap()), 4000));
        // a restore without the carries (zeros) continues differently: the carries matter
        let mut no_carry = start(&kepler);
        no_carry.restore(&[&saved[..4], &[0.0; 4][..]].concat(), 3000).unwrap();
        for _ in 0..1000 {
            no_carry.advance().unwrap();
        }
        assert_ne!(bits(&no_carry.state()), bits(&sim.state()));
    }

    /// `save` and `restore` carry the exact state and the step count; words that do not fit
    /// change nothing.
    #[test]
    fn save_and_restore_are_exact() {
        let mut run = Run::new(Box::new(Scribbler), 0.1, 0.3, Identity);
        run.advance().unwrap();
        let saved = run.save().unwrap();
        assert_eq!(saved.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), vec![(0.1f64 + 0.3).to_bits()]);
        let mut other = Run::new(Box::new(Scribbler), 0.0, 0.3, Identity);
        assert!(other.restore(&[1.0, 2.0], 5).is_err());
        assert_eq!((other.state(), other.steps()), (vec![0.0], 0));
        other.restore(&saved, run.steps()).unwrap();
        assert_eq!((other.state(), other.steps(), other.time()), (run.state(), run.steps(), run.time()));
        run.advance().unwrap();
        other.advance().unwrap();
        assert_eq!(other.save(), run.save());
    }
}
