//! A canonical system of the catalogue started from a given state: [`WithInitial`] replaces
//! the initial state of any [`CanonicalSystem`] and keeps everything else (Hamiltonian,
//! invariants, methods), so a run from the default state is the catalogue's run, bit for bit.

use geomint::discretization::PhaseState;
use geomint::workbench::catalogue::canonical::{Canonical, CanonicalSystem};
use geomint::workbench::problem::{Problem, Quantity};
use nalgebra::SVector;

/// `system` started from `initial`.
#[derive(Debug, Clone)]
pub struct WithInitial<P, const N: usize> {
    /// The catalogue's system.
    pub system: P,
    /// The initial state.
    pub initial: PhaseState<N>,
}

impl<P: CanonicalSystem<N>, const N: usize> CanonicalSystem<N> for WithInitial<P, N> {
    type H = P::H;
    const NAME: &'static str = P::NAME;
    fn summary(&self) -> &'static str {
        self.system.summary()
    }
    fn hamiltonian(&self) -> P::H {
        self.system.hamiltonian()
    }
    fn initial(&self) -> PhaseState<N> {
        self.initial
    }
    fn defaults(&self) -> (f64, f64) {
        self.system.defaults()
    }
    fn invariants(&self) -> Vec<Quantity> {
        self.system.invariants()
    }
    fn measure(&self, s: &PhaseState<N>, out: &mut Vec<f64>) {
        self.system.measure(s, out);
    }
    /// The system's exact solution when started from its own initial state, else none.
    fn exact(&self, t: f64) -> Option<PhaseState<N>> {
        if self.initial == self.system.initial() { self.system.exact(t) } else { None }
    }
    fn reference(&self) -> (&'static str, usize) {
        self.system.reference()
    }
}

/// `(q, p)` from `[q_1 … q_N, p_1 … p_N]` (`2N` values, checked by the caller).
pub fn phase<const N: usize>(s: &[f64]) -> PhaseState<N> {
    PhaseState::new(SVector::from_column_slice(&s[..N]), SVector::from_column_slice(&s[N..2 * N]))
}

/// The problem of `system` from the state `s` (`2N` values).
pub fn with_state<P: CanonicalSystem<N>, const N: usize>(system: P, s: &[f64]) -> Box<dyn Problem> {
    Box::new(Canonical::<_, N>(WithInitial { system, initial: phase(s) }))
}
