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

impl<St: Clone, O: Observe<St>> Simulation for Run<St, O> {
    fn h(&self) -> f64 {
        self.h
    }
    fn steps(&self) -> usize {
        self.steps
    }
    fn advance(&mut self) -> Result<(), GeomError> {
        // a failed step must leave the state untouched, whatever the method does
        let mut next = self.state.clone();
        self.method.step(&mut next, self.h)?;
        self.state = next;
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
