//! The exact flow of the harmonic oscillator `H = |p|²/2 + ω²|q|²/2` on `T*R^N`.

use super::exact_flow::{ExactFlow, FlowCache};
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

impl Harmonic {
    /// The state-independent part of the rotation by `ωt`: `[cos ωt, sin(ωt)/ω, ω sin ωt, 0]`
    /// (`ω > 0`), the words [`ExactFlow::flow_cached`] keeps.
    #[inline(always)]
    fn rotation_words(&self, t: f64) -> [f64; FlowCache::WORDS] {
        let w = self.omega;
        let (sin, cos) = (w * t).sin_cos();
        [cos, sin / w, w * sin, 0.0]
    }
    /// `q ← cos·q + (sin/ω)·p`, `p ← cos·p − (ω sin)·q` with the words of
    /// [`Harmonic::rotation_words`]: the one formula of the cached and uncached flows.
    #[inline(always)]
    fn rotate<const N: usize>(state: &mut PhaseState<N>, [cos, sin_over_w, w_sin, _]: [f64; FlowCache::WORDS]) {
        let q = state.q * cos + state.p * sin_over_w;
        state.p = state.p * cos - state.q * w_sin;
        state.q = q;
    }
}

impl<const N: usize> ExactFlow<PhaseState<N>> for Harmonic {
    fn name(&self) -> String {
        format!("harmonic oscillator (omega = {})", self.omega)
    }
    #[inline(always)]
    fn flow(&self, state: &mut PhaseState<N>, t: f64) -> Result<(), GeomError> {
        if self.omega == 0.0 {
            state.q += state.p * t;
            return Ok(());
        }
        // no branch between `sin` and `cos`: they compile to one `sincos` call
        Self::rotate(state, self.rotation_words(t));
        Ok(())
    }
    /// The flow with `cos ωt`, `sin(ωt)/ω` and `ω sin ωt` kept in `cache` for `t`: the
    /// stages of a splitting at the same time (Strang's two half rotations, every step of a
    /// `step_n` run) call `sincos` once.
    #[inline(always)]
    fn flow_cached(&self, state: &mut PhaseState<N>, t: f64, cache: &mut FlowCache) -> Result<(), GeomError> {
        if self.omega == 0.0 {
            state.q += state.p * t;
            return Ok(());
        }
        Self::rotate(state, cache.get_or_insert_with(t, || self.rotation_words(t)));
        Ok(())
    }
}
