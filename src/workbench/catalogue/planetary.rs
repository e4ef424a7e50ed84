//! The runs of the planetary methods ([`methods::PLANETARY`]) on an N-body problem whose first
//! body is the central one: a method on the inertial state runs as any canonical method; a
//! processed one (`whfast`, [`methods::Planetary::Processed`]) runs on its mapping variable
//! `y = P_h^{−1}(x)` (`integrators::splitting::ProcessedWisdomHolman`), and its observer reads
//! the coordinates and the quantities off `P_h(y)`, computed on a copy at each sample: the
//! corrector is applied where the run is read, never to the running state, whose words are what
//! a checkpoint saves and a resumed run restores (bit for bit).

use crate::workbench::WorkbenchError;
use crate::workbench::methods::{self, MethodInfo, Planetary};
use crate::workbench::problem::Simulation;
use crate::workbench::run::{Observe, Run};
use discretization::PhaseState;
use geom_core::pairwise::{Gravity, NBody};
use integrators::splitting::{JacobiState, ProcessedWisdomHolman};
use nalgebra::SVector;

/// The run of the planetary method `info` for `model` from the inertial state `initial` with
/// step `h`, observed by `observe` (the problem's observer of inertial states).
pub fn start<const N: usize, const D: usize, const B: usize, O>(
    info: &MethodInfo,
    model: &NBody<Gravity<B>, N, D>,
    initial: PhaseState<N>,
    h: f64,
    observe: O,
) -> Result<Box<dyn Simulation>, WorkbenchError>
where
    O: Observe<PhaseState<N>> + 'static,
{
    Ok(match methods::planetary(info, model)? {
        Planetary::Inertial(m) => Box::new(Run::new(m, initial, h, observe)?),
        Planetary::Processed(m) => {
            let y = m.to_mapping(&initial, h)?;
            Box::new(Run::new(Box::new(m.clone()), y, h, Synchronized { method: m, h, observe })?)
        }
    })
}

/// An observer of inertial states reading a processed run: `P_h(y)` on a copy (module
/// documentation). Should `P_h` fail (a Kepler drift of the corrector), the coordinates and
/// quantities are `NaN`.
struct Synchronized<const N: usize, const D: usize, const B: usize, O> {
    method: ProcessedWisdomHolman<N, D, B>,
    h: f64,
    observe: O,
}

impl<const N: usize, const D: usize, const B: usize, O> Synchronized<N, D, B, O> {
    fn physical(&self, y: &JacobiState<D, B>) -> PhaseState<N> {
        self.method
            .to_physical(y, self.h)
            .unwrap_or_else(|_| PhaseState::new(SVector::repeat(f64::NAN), SVector::repeat(f64::NAN)))
    }
}

impl<const N: usize, const D: usize, const B: usize, O: Observe<PhaseState<N>>> Observe<JacobiState<D, B>>
    for Synchronized<N, D, B, O>
{
    fn coordinates(&self, y: &JacobiState<D, B>) -> Vec<f64> {
        self.observe.coordinates(&self.physical(y))
    }
    fn quantities(&self, y: &JacobiState<D, B>) -> Vec<f64> {
        self.observe.quantities(&self.physical(y))
    }
}
