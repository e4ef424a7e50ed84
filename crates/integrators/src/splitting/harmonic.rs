//! The exact flow of the harmonic oscillator `H = |p|²/2 + ω²|q|²/2` on `T*R^N`.

use super::exact_flow::ExactFlow;
use geom_core::GeomError;
use geom_core::step::PhaseState;

/// The harmonic oscillator `H = |p|²/2 + ω²|q|²/2` (unit mass, frequency `ω ≥ 0`), whose flow
/// is the rotation
///
/// ```text
///   q(t) = cos(ωt) q + (sin(ωt)/ω) p,      p(t) = −ω sin(ωt) q + cos(ωt) p
/// ```
///
/// (`ω = 0`: the free drift `q(t) = q + t p`), in place on `(q, p)` of any dimension.
///
/// ```
/// use geom_core::step::PhaseState;
/// use integrators::splitting::{ExactFlow, Harmonic};
/// use nalgebra::Vector1;
/// let osc = Harmonic::new(2.0)?;
/// let mut s = PhaseState::new(Vector1::new(1.0), Vector1::new(0.0));
/// osc.flow(&mut s, 0.3)?;
/// assert!((s.q[0] - 0.6f64.cos()).abs() < 1e-15 && (s.p[0] + 2.0 * 0.6f64.sin()).abs() < 1e-15);
/// assert!(Harmonic::new(-1.0).is_err());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Harmonic {
    omega: f64,
}

impl Harmonic {
    /// The oscillator of frequency `omega`; [`GeomError::InvalidParameter`] unless it is finite
    /// and `≥ 0`.
    pub fn new(omega: f64) -> Result<Self, GeomError> {
        if omega.is_finite() && omega >= 0.0 {
            Ok(Self { omega })
        } else {
            Err(GeomError::InvalidParameter {
                what: "oscillator frequency",
                reason: format!("{omega} is not finite and >= 0"),
            })
        }
    }
    /// `ω`.
    pub fn omega(&self) -> f64 {
        self.omega
    }
    /// `H(q, p) = |p|²/2 + ω²|q|²/2`.
    pub fn energy<const N: usize>(&self, s: &PhaseState<N>) -> f64 {
        0.5 * (s.p.norm_squared() + self.omega * self.omega * s.q.norm_squared())
    }
}

impl<const N: usize> ExactFlow<PhaseState<N>> for Harmonic {
    fn name(&self) -> String {
        format!("harmonic oscillator (omega = {})", self.omega)
    }
    #[inline]
    fn flow(&self, state: &mut PhaseState<N>, t: f64) -> Result<(), GeomError> {
        let w = self.omega;
        if w == 0.0 {
            state.q += state.p * t;
            return Ok(());
        }
        // no branch between the two: they compile to one `sincos` call
        let (sin, cos) = (w * t).sin_cos();
        let q = state.q * cos + state.p * (sin / w);
        state.p = state.p * cos - state.q * (w * sin);
        state.q = q;
        Ok(())
    }
}
