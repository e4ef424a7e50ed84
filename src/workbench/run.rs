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
/// The state is double-buffered: a step copies the current state into the other buffer, steps
/// that copy and, on success, makes it current. A failed step therefore leaves the current state
/// untouched whatever the method does, at the cost of one state copy per step (and no
/// allocation).
pub struct Run<St, O> {
    method: Box<dyn OneStep<St>>,
    /// The current state and the scratch buffer of the next step.
    states: [St; 2],
    /// Index of the current state in `states`.
    current: usize,
    h: f64,
    steps: usize,
    observe: O,
}

impl<St: Clone, O> Run<St, O> {
    /// Starts `method` at `state` with step `h`.
    pub fn new(method: Box<dyn OneStep<St>>, state: St, h: f64, observe: O) -> Self {
        Self { method, states: [state.clone(), state], current: 0, h, steps: 0, observe }
    }

    /// The current state.
    fn current(&self) -> &St {
        &self.states[self.current & 1]
    }
}

impl<St: Clone, O: Observe<St>> Simulation for Run<St, O> {
    fn h(&self) -> f64 {
        self.h
    }
    fn steps(&self) -> usize {
        self.steps
    }
    fn advance(&mut self) -> Result<(), GeomError> {
        // a failed step must leave the state untouched, whatever the method does: step a copy
        // in the other buffer and make it current only on success
        let [a, b] = &mut self.states;
        let (current, next) = if self.current & 1 == 0 { (&*a, b) } else { (&*b, a) };
        next.clone_from(current);
        self.method.step(next, self.h)?;
        self.current ^= 1;
        self.steps += 1;
        Ok(())
    }
    fn state(&self) -> Vec<f64> {
        self.observe.coordinates(self.current())
    }
    fn quantities(&self) -> Vec<f64> {
        self.observe.quantities(self.current())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adds `h` to the state, or scribbles on it and fails when the result would exceed 2.5:
    /// a method that breaks the `OneStep` contract.
    struct Scribbler;
    impl OneStep<f64> for Scribbler {
        fn name(&self) -> String {
            "scribbler".into()
        }
        fn order(&self) -> u32 {
            1
        }
        fn step(&self, state: &mut f64, h: f64) -> Result<(), GeomError> {
            *state += h;
            if *state > 2.5 {
                *state = f64::NAN;
                return Err(GeomError::InvalidStep { h });
            }
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

    /// A failed step leaves the state and the step count untouched, from either buffer, and
    /// the run goes on from there.
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
