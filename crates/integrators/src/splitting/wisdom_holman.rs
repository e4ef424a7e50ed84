//! The Wisdom–Holman method of a planetary system and its refinements, as a [`OneStep`] on the
//! inertial state `(q, p)` of the library's N-body Hamiltonian.
//!
//! One step from the inertial state `(q, p)` (`p_i = m_i v_i`, body `i` at rows
//! `D·i .. D·i + D`): to the coordinates of a [`PlanetarySplit`] — Jacobi coordinates
//! ([`PlanetarySystem`], the default) or democratic heliocentric ones
//! ([`DemocraticHeliocentric`], [`WisdomHolman::whfast_democratic`],
//! [`WisdomHolman::saba_democratic`]) — then
//!
//! ```text
//!   [C^{−1}],  [φ^C_{−g h³/2}],  φ^K_{c_1 h}, φ^I_{d_1 h}, …, φ^K_{c_s h},  [φ^C_{−g h³/2}],  [C],
//! ```
//!
//! and back, where `φ^K` is the Kepler drift ([`PlanetarySplit::drift`]) and `φ^I` the
//! interaction kick ([`PlanetarySplit::kick`]; in democratic heliocentric coordinates the
//! symmetric composition of the planets' interaction and the Sun's jump), in the stages of a [`SplittingScheme`] of two
//! pieces (`A` = Kepler, `B` = interaction):
//!
//! * [`WisdomHolman::whfast`]: Strang, `φ^K_{h/2} ∘ φ^I_h ∘ φ^K_{h/2}` (Wisdom & Holman,
//!   *Symplectic maps for the N-body problem*, Astron. J. 102, 1991; the drift–kick–drift form of
//!   Rein & Tamayo, *WHFast*, MNRAS 452, 2015, arXiv:1506.01084), with
//!   [`WisdomHolman::with_corrector`] the symplectic corrector `C` of order 3 to 17
//!   ([`SymplecticCorrector`]): the energy error goes from `O(ε h²)` to
//!   `O(ε² h² + ε h^{n+1})` for planet masses `O(ε)` (in Jacobi coordinates, as WHFast);
//! * [`WisdomHolman::saba`]: SABA_n of Laskar & Robutel 2001 ([`super::saba()`]), error
//!   `O(ε h^{2n} + ε² h²)`; [`WisdomHolman::sabac`]: SABAC_n, with the kicks of
//!   `C = {{H_K, H_I}, H_I}` ([`PlanetarySystem::corrector_kick`]), error
//!   `O(ε h^{2n} + ε² h⁴)`, of order 4 for `n ≥ 2` (in Jacobi coordinates: the flow of `C` is
//!   a kick there only);
//! * [`WisdomHolman::new`]: any other scheme of two pieces.
//!
//! Every piece is an exact flow, so the method is symplectic; it is symmetric without a
//! corrector of Wisdom, Holman & Touma (a symmetric scheme, and SABAC_n). A step works on a
//! copy and writes back only if every Kepler drift succeeded and the result is finite: a failed
//! step leaves the state untouched. No allocation per step (fixed-size arrays; the stages are
//! read from vectors built once).

use super::democratic::DemocraticHeliocentric;
use super::planetary::PlanetarySystem;
use super::planetary_split::PlanetarySplit;
use super::saba::{saba, sabac_corrector};
use super::schemes::{SplittingScheme, strang};
use super::symplectic_corrector::SymplecticCorrector;
use geom_core::GeomError;
use geom_core::pairwise::{Gravity, NBody};
use geom_core::step::{OneStep, PhaseState, check_step};

/// The Wisdom–Holman method (and SABA_n, SABAC_n, the correctors) of `B` bodies in `R^D`,
/// `N = B·D` coordinates, in the coordinates of the split `S` (module documentation): Jacobi
/// coordinates by default.
///
/// ```
/// use geom_core::function::PhaseSpaceDerivatives;
/// use geom_core::pairwise;
/// use geom_core::step::{OneStep, PhaseState};
/// use integrators::splitting::WisdomHolman;
/// use nalgebra::SVector;
///
/// // a star and two planets of mass 1e-3 in the plane, G = 1
/// let model = pairwise::gravity::<6, 2, 3>(1.0, [1.0, 1e-3, 1e-3])?;
/// let q = SVector::from([0.0, 0.0, 1.0, 0.0, -1.6, 0.0]);
/// let p = SVector::from([0.0, 0.0, 0.0, 1e-3, 0.0, -1e-3 / 1.6f64.sqrt()]);
/// let e0 = model.value(&q, &p);
/// let wh = WisdomHolman::whfast(&model)?.with_corrector(17)?;
/// let mut s = PhaseState::new(q, p);
/// wh.step_n(&mut s, 0.1, 1000)?;
/// assert!(((model.value(&s.q, &s.p) - e0) / e0).abs() < 1e-8);
/// // democratic heliocentric coordinates
/// let dh = WisdomHolman::whfast_democratic(&model)?;
/// let mut s = PhaseState::new(q, p);
/// dh.step_n(&mut s, 0.1, 1000)?;
/// assert!(((model.value(&s.q, &s.p) - e0) / e0).abs() < 1e-5);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct WisdomHolman<const N: usize, const D: usize, const B: usize, S = PlanetarySystem<D, B>> {
    system: S,
    scheme: SplittingScheme,
    stages: Vec<(usize, f64)>,
    corrector: Option<SymplecticCorrector>,
    /// `g_n` of SABAC_n.
    sabac: Option<f64>,
}

impl<const N: usize, const D: usize, const B: usize> WisdomHolman<N, D, B> {
    /// The splitting `scheme` of `H = H_K + H_I` in Jacobi coordinates (its `A` the Kepler
    /// drift, its `B` the interaction kick) for the gravitational N-body Hamiltonian `model`
    /// ([`geom_core::pairwise::gravity`]), body 0 the central one. The errors of
    /// [`PlanetarySystem::from_model`].
    pub fn new(model: &NBody<Gravity<B>, N, D>, scheme: SplittingScheme) -> Result<Self, GeomError> {
        Self::from_split(PlanetarySystem::from_model(model)?, scheme)
    }

    /// The Wisdom–Holman map `φ^K_{h/2} ∘ φ^I_h ∘ φ^K_{h/2}` (drift–kick–drift, as WHFast).
    pub fn whfast(model: &NBody<Gravity<B>, N, D>) -> Result<Self, GeomError> {
        Self::new(model, strang())
    }

    /// SABA_n, `n = 1, …, 5` (Laskar & Robutel 2001).
    pub fn saba(model: &NBody<Gravity<B>, N, D>, n: usize) -> Result<Self, GeomError> {
        Self::new(model, saba(n)?)
    }

    /// SABAC_n, `n = 1, …, 5`: SABA_n between two kicks `φ^C_{−g_n h³/2}`.
    pub fn sabac(model: &NBody<Gravity<B>, N, D>, n: usize) -> Result<Self, GeomError> {
        Self::new(model, saba(n)?)?.with_sabac_corrector()
    }
}

impl<const N: usize, const D: usize, const B: usize> WisdomHolman<N, D, B, DemocraticHeliocentric<D, B>> {
    /// The splitting `scheme` of `H = H_K + (H_I + H_J)` in democratic heliocentric
    /// coordinates ([`DemocraticHeliocentric`]) for the gravitational N-body Hamiltonian
    /// `model`, body 0 the central one. The errors of [`DemocraticHeliocentric::from_model`].
    pub fn new_democratic(model: &NBody<Gravity<B>, N, D>, scheme: SplittingScheme) -> Result<Self, GeomError> {
        Self::from_split(DemocraticHeliocentric::from_model(model)?, scheme)
    }

    /// The Wisdom–Holman map in democratic heliocentric coordinates,
    /// `φ^K_{h/2} ∘ φ^J_{h/2} ∘ φ^I_h ∘ φ^J_{h/2} ∘ φ^K_{h/2}` (as WHFast's option).
    pub fn whfast_democratic(model: &NBody<Gravity<B>, N, D>) -> Result<Self, GeomError> {
        Self::new_democratic(model, strang())
    }

    /// SABA_n, `n = 1, …, 5`, in democratic heliocentric coordinates.
    pub fn saba_democratic(model: &NBody<Gravity<B>, N, D>, n: usize) -> Result<Self, GeomError> {
        Self::new_democratic(model, saba(n)?)
    }
}

impl<const N: usize, const D: usize, const B: usize, S: PlanetarySplit<D, B>> WisdomHolman<N, D, B, S> {
    /// The splitting `scheme` of the split `system` (its `A` the drift, its `B` the kick).
    /// [`GeomError::DimensionMismatch`] unless `N = B·D`.
    pub fn from_split(system: S, scheme: SplittingScheme) -> Result<Self, GeomError> {
        if N != B * D {
            return Err(GeomError::DimensionMismatch { what: "coordinates N = B·D", expected: B * D, got: N });
        }
        Ok(Self { system, stages: scheme.stages(2), scheme, corrector: None, sabac: None })
    }

    /// SABAC_n of the SABA_n this is: the kernel between two kicks `φ^C_{−g_n h³/2}` of
    /// `C = {{H_K, H_I}, H_I}`, `g_n` = [`sabac_corrector`]. [`GeomError::InvalidParameter`]
    /// unless the kernel is a SABA_n, or where the flow of `C` is not a kick
    /// ([`PlanetarySplit::CORRECTOR_KICK`]: democratic heliocentric coordinates).
    pub fn with_sabac_corrector(self) -> Result<Self, GeomError> {
        let is_saba = (1..=super::saba::SABA_MAX).any(|n| saba(n).is_ok_and(|s| s.stages(2) == self.stages));
        if !S::CORRECTOR_KICK || !is_saba || self.corrector.is_some() || self.sabac.is_some() {
            return Err(GeomError::InvalidParameter {
                what: "SABAC corrector",
                reason: format!("applies to SABA_n in Jacobi coordinates, not to {}", self.describe()),
            });
        }
        let g = sabac_corrector(&self.scheme);
        Ok(Self { sabac: Some(g), ..self })
    }

    /// With the symplectic corrector of Wisdom, Holman & Touma of `order` ∈ {3, 5, 7, 11, 17}
    /// ([`SymplecticCorrector`]): each step is `C ∘ ψ_h ∘ C^{−1}`.
    /// [`GeomError::InvalidParameter`] for another order, unless the method is the
    /// Wisdom–Holman map (the correctors are those of its kernel), or outside Jacobi
    /// coordinates (as in WHFast: in democratic heliocentric coordinates the `ε²` terms the
    /// corrector leaves are those of the jump, and it buys nothing).
    pub fn with_corrector(self, order: u32) -> Result<Self, GeomError> {
        if self.sabac.is_some() || self.stages != strang().stages(2) || !S::CORRECTOR_KICK {
            return Err(GeomError::InvalidParameter {
                what: "symplectic corrector",
                reason: format!(
                    "the correctors are those of the Wisdom-Holman map in Jacobi coordinates, not of {}",
                    self.describe()
                ),
            });
        }
        Ok(Self { corrector: Some(SymplecticCorrector::new(order)?), ..self })
    }

    fn describe(&self) -> String {
        format!("{} in {}", self.scheme.name(), S::COORDINATES)
    }

    /// The split Hamiltonian.
    pub fn system(&self) -> &S {
        &self.system
    }
    /// The scheme of the kernel.
    pub fn scheme(&self) -> &SplittingScheme {
        &self.scheme
    }
    /// The corrector of Wisdom, Holman & Touma, if any.
    pub fn corrector(&self) -> Option<&SymplecticCorrector> {
        self.corrector.as_ref()
    }
    /// `g_n` of SABAC_n, if this is SABAC_n.
    pub fn sabac_coefficient(&self) -> Option<f64> {
        self.sabac
    }
    /// The kernel's stages `(k, c)` (`k = 0` the drift, `1` the kick, for `c h`).
    pub fn stages(&self) -> &[(usize, f64)] {
        &self.stages
    }

    /// The stages `(k, c)` on the split's coordinates: `k = 0` the drift, `1` the kick, both
    /// for `c h`.
    #[inline(always)]
    pub(crate) fn run(&self, s: &mut S::State, stages: &[(usize, f64)], h: f64) -> Result<(), GeomError> {
        for &(part, c) in stages {
            if part == 0 {
                self.system.drift(s, c * h)?;
            } else {
                self.system.kick(s, c * h);
            }
        }
        Ok(())
    }

    /// One step on the split's coordinates (module documentation); the state may be partly
    /// advanced on an error.
    #[inline]
    pub fn step_split(&self, s: &mut S::State, h: f64) -> Result<(), GeomError> {
        if let Some(c) = &self.corrector {
            self.run(s, c.inverse_stages(), h)?;
        }
        if let Some(g) = self.sabac {
            self.system.corrector_kick(s, -0.5 * g * h * h * h)?;
        }
        self.run(s, &self.stages, h)?;
        if let Some(g) = self.sabac {
            self.system.corrector_kick(s, -0.5 * g * h * h * h)?;
        }
        if let Some(c) = &self.corrector {
            self.run(s, c.stages(), h)?;
        }
        Ok(())
    }
}

impl<const N: usize, const D: usize, const B: usize, S: PlanetarySplit<D, B>> OneStep<PhaseState<N>>
    for WisdomHolman<N, D, B, S>
{
    fn name(&self) -> String {
        let mut name = match self.sabac {
            Some(_) => format!("{}C", self.scheme.name()),
            None if self.scheme.name() == "Strang" => "Wisdom-Holman".to_string(),
            None => self.scheme.name().to_string(),
        };
        if let Some(c) = &self.corrector {
            name += &format!(" + corrector {}", c.order());
        }
        format!("{name} in {}", S::COORDINATES)
    }
    /// The scheme's order; 4 for SABAC_n, `n ≥ 2` (the terms of degree 3 of the modified
    /// Hamiltonian, `ε h² [A, [A, B]]` and `ε² h² [B, [B, A]]`, are the only ones of order 2, and
    /// both are gone), 2 for SABAC_1.
    fn order(&self) -> u32 {
        match self.sabac {
            Some(_) if self.stages.len() > 3 => 4,
            _ => self.scheme.order(),
        }
    }
    fn is_symmetric(&self) -> bool {
        self.scheme.is_symmetric() && self.corrector.is_none()
    }
    #[inline]
    fn step(&self, state: &mut PhaseState<N>, h: f64) -> Result<(), GeomError> {
        check_step(h)?;
        if !state.is_finite() {
            return Err(GeomError::NonFinite { what: "Wisdom-Holman state" });
        }
        let mut s = self.system.to_split(state);
        self.step_split(&mut s, h)?;
        let next: PhaseState<N> = self.system.to_inertial(&s);
        if !next.is_finite() {
            return Err(GeomError::NonFinite { what: "state after a Wisdom-Holman step" });
        }
        *state = next;
        Ok(())
    }
}
