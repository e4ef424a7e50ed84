//! The exact flows of a potential `V(q)` (a kick) and of a kinetic energy `T(p)` (a drift).

use super::exact_flow::ExactFlow;
use geom_core::GeomError;
use geom_core::function::ScalarDerivatives;
use geom_core::step::PhaseState;

/// The flow of `H = V(q)`: `q` is constant, so `q(t) = q`, `p(t) = p − t ∇V(q)` exactly. `V` is
/// any [`ScalarDerivatives`] (`AutoDiff` of a model written once over the scalar, or
/// hand-written derivatives).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Kick<V>(pub V);

impl<V: ScalarDerivatives<N>, const N: usize> ExactFlow<PhaseState<N>> for Kick<V> {
    fn name(&self) -> String {
        "kick".into()
    }
    #[inline]
    fn flow(&self, state: &mut PhaseState<N>, t: f64) -> Result<(), GeomError> {
        state.p -= self.0.gradient(&state.q) * t;
        Ok(())
    }
}

/// The flow of `H = T(p)`: `p` is constant, so `p(t) = p`, `q(t) = q + t ∇T(p)` exactly.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Drift<T>(pub T);

impl<T: ScalarDerivatives<N>, const N: usize> ExactFlow<PhaseState<N>> for Drift<T> {
    fn name(&self) -> String {
        "drift".into()
    }
    #[inline]
    fn flow(&self, state: &mut PhaseState<N>, t: f64) -> Result<(), GeomError> {
        state.q += self.0.gradient(&state.p) * t;
        Ok(())
    }
}
