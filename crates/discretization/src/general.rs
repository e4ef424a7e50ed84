//! The induced integrator for a general (nonlinear) discretization map on `R^N`: the 4-block
//! system of MATH.md b.1 (see [`crate::hamiltonian`]).

use crate::map::EuclideanMap;
use crate::one_step::PhaseState;
use geom_core::GeomError;
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::newton::NewtonOptions;

/// One step of the general cotangent-lift integrator (in progress).
pub fn general_step<R: EuclideanMap<N> + ?Sized, H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    _map: &R,
    _hamiltonian: &H,
    _state: &PhaseState<N>,
    _h: f64,
    _newton: &NewtonOptions,
) -> Result<PhaseState<N>, GeomError> {
    Err(GeomError::InvalidParameter { what: "discretization map", reason: "general maps: not yet".into() })
}
