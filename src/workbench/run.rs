//! The generic [`Simulation`]: a boxed one-step method, its state and an observer that reads
//! coordinates and invariants off the state. Every problem whose state type has a
//! [`OneStep`] method uses it.

use crate::workbench::problem::Simulation;
use discretization::OneStep;
use geom_core::GeomError;

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

impl<St, O: Observe<St>> Simulation for Run<St, O> {
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
}
