//! The generic [`Simulation`]: a boxed one-step method, its state and an observer that reads
//! coordinates and invariants off the state. Every problem whose state type has a
//! [`OneStep`] method uses it.

use crate::workbench::problem::Simulation;
use discretization::OneStep;
use geom_core::GeomError;
use integrators::driver::FlatState;

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

/// The state is saved as its [`FlatState`] words, so a checkpoint restores it bit for bit.
impl<St: FlatState, O: Observe<St>> Simulation for Run<St, O> {
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
    fn state(&self) -> Vec<f64> {
        self.observe.coordinates(&self.state)
    }
    fn quantities(&self) -> Vec<f64> {
        self.observe.quantities(&self.state)
    }
    fn save(&self) -> Option<Vec<f64>> {
        let mut words = Vec::with_capacity(St::WORDS);
        self.state.write_words(&mut words);
        Some(words)
    }
    fn restore(&mut self, words: &[f64], steps: usize) -> Result<(), GeomError> {
        self.state = St::read_words(words).ok_or_else(|| GeomError::InvalidParameter {
            what: "state",
            reason: format!("{} words for a state of {}", words.len(), St::WORDS),
        })?;
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
