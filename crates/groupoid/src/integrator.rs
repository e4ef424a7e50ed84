//! The discrete Euler–Lagrange flow of a groupoid as a one-step integrator
//! ([`geom_core::step::OneStep`]), so that drivers, compositions, checkpoints and ensembles take
//! it as they take every other integrator of the workspace.
//!
//! **The step.** An integrator takes the step size with each step, so the discrete Lagrangian is
//! given as a family `h ↦ L_d^h` ([`LagrangianFamily`]): the Lagrangian `h L ∘ R_d^{-1}(·)/h`
//! induced by a discretization map `R_d: AG → G` and a Lagrangian `L` on the algebroid
//! ([`Induced`]), or a discrete Lagrangian `L_d(q₀, q₁; h)` on the pair groupoid `R^N × R^N`
//! written once over the scalar ([`Stepped`] of a [`StepLagrangian`]). The state is a point
//! `(x, μ)` of `A*G` (a base point and a covector of the algebroid at it), and the step is the
//! discrete Hamiltonian flow `F^+L_d^h ∘ (F^-L_d^h)^{-1}` (Marrero, Martín de Diego & Stern,
//! *Symplectic groupoids and discrete constrained Lagrangian mechanics*, 2015, arXiv:1103.6250;
//! docs/math.md §C.3):
//!
//! ```text
//!   solve  F^-L_d^h(g) = μ_k  for the arrow g with source x_k   (Newton on its fibre coordinates),
//!   then   x_{k+1} = β(g),   μ_{k+1} = F^+L_d^h(g).
//! ```
//!
//! Since `h` enters only through `L_d^h`, the flow of `−h` is the map of `L_d^{−h}`: for a
//! symmetric family (the midpoint map, `L_d^{−h}(g) = −L_d^h(g^{-1})`) it inverts the flow of `h`,
//! and the method is symmetric and composes like any other.
//!
//! **The states** ([`FlowState`]): [`CotangentPoint`] `(x, μ)` on any groupoid; on the pair
//! groupoid of `R^N` the phase-space state `PhaseState` `(q, p)` itself; on a Lie group
//! `G ⇉ {e}` the state `LieState` `(g, μ)` of every Lie-group integrator, the configuration
//! reconstructed by `g_{k+1} = g_k W_k` from the arrow `W_k` of the step.
//!
//! **Newton.** From the identity arrow (`ξ = 0`), with [`NewtonOptions::groupoid_flow`] whose
//! residual tolerance is raised to the round-off floor of a momentum difference at step `h`
//! ([`NewtonOptions::for_momentum_residual`]). A failed step leaves the state untouched.

use crate::discretization_map::{AlgebroidDiscretization, AlgebroidLagrangian, InducedLagrangian};
use crate::groupoid::LieGroupoid;
use crate::lagrangian::{AdGroupoid, Arrow, DiscreteLagrangian, GroupoidFamily, invert_legendre_minus, legendre_plus};
use crate::lie_group::GroupAsGroupoid;
use crate::pair::PairGroupoid;
use geom_core::function::StepLagrangian;
use geom_core::lie::LieGroup;
use geom_core::newton::NewtonOptions;
use geom_core::step::{FlatState, LieState, OneStep, PhaseState, check_step};
use geom_core::{GeomError, Result, Scalar};
use nalgebra::SVector;

/// A discrete Lagrangian for every step, `h ↦ L_d^h` on the groupoid `Gd`: the one way the step
/// size reaches a discrete Lagrangian of the groupoid layer's integrators.
pub trait LagrangianFamily<Gd: GroupoidFamily<R>, const R: usize>: Send + Sync {
    /// `L_d^h` (borrowing the family).
    type AtStep<'a>: DiscreteLagrangian<Gd, R>
    where
        Self: 'a;
    /// `L_d^h`; an error for a step the family does not define.
    fn at_step(&self, h: f64) -> Result<Self::AtStep<'_>>;
    /// A name, e.g. `"h L ∘ R_d^{-1} of fibre theta-map (theta = 1/2)"`.
    fn name(&self) -> String;
}

/// The family `L_d^h = h L ∘ R_d^{-1}(·)/h` of a discretization map `R_d` and a Lagrangian `L` on
/// the algebroid ([`InducedLagrangian`] at each step).
#[derive(Debug, Clone, Copy)]
pub struct Induced<Rd, L> {
    map: Rd,
    lagrangian: L,
}

impl<Rd, L> Induced<Rd, L> {
    /// The family of `map` and `lagrangian`.
    pub fn new(map: Rd, lagrangian: L) -> Self {
        Self { map, lagrangian }
    }
}

impl<Gd, Rd, L, const R: usize> LagrangianFamily<Gd, R> for Induced<Rd, L>
where
    Gd: GroupoidFamily<R>,
    Rd: AlgebroidDiscretization<Gd, R>,
    L: AlgebroidLagrangian<Gd, R>,
{
    type AtStep<'a>
        = InducedLagrangian<&'a Rd, &'a L>
    where
        Self: 'a;
    fn at_step(&self, h: f64) -> Result<Self::AtStep<'_>> {
        InducedLagrangian::new(&self.map, &self.lagrangian, h)
    }
    fn name(&self) -> String {
        format!("h L ∘ R_d^-1 of {}", self.map.name())
    }
}

/// A discrete Lagrangian `L_d(q₀, q₁; h)` on `R^N × R^N` ([`StepLagrangian`]) as a family on the
/// pair groupoid [`PairGroupoid<N>`].
#[derive(Debug, Clone, Copy)]
pub struct Stepped<L>(pub L);

/// `L_d(·, ·; h)` of a [`Stepped`] family at one step.
#[derive(Debug, Clone, Copy)]
pub struct AtStep<'a, L> {
    lagrangian: &'a L,
    h: f64,
}

impl<L: StepLagrangian<N>, const N: usize> DiscreteLagrangian<PairGroupoid<N>, N> for AtStep<'_, L> {
    #[inline]
    fn eval<S: Scalar>(&self, _: &PairGroupoid<N>, g: &(SVector<S, N>, SVector<S, N>)) -> S {
        self.lagrangian.eval(&g.0, &g.1, S::from(self.h))
    }
}

impl<L: StepLagrangian<N>, const N: usize> LagrangianFamily<PairGroupoid<N>, N> for Stepped<L> {
    type AtStep<'a>
        = AtStep<'a, L>
    where
        Self: 'a;
    fn at_step(&self, h: f64) -> Result<Self::AtStep<'_>> {
        check_step(h)?;
        Ok(AtStep { lagrangian: &self.0, h })
    }
    fn name(&self) -> String {
        "L_d(q0, q1; h)".into()
    }
}

/// A state a groupoid flow advances: a point `(x, μ)` of `A*G` and whatever the state keeps
/// besides (module documentation).
pub trait FlowState<Gd: GroupoidFamily<R>, const R: usize>: Clone + Send + Sync {
    /// The base point `x`.
    fn base_point(&self) -> Gd::Base<f64>;
    /// The covector `μ ∈ A*_x G`.
    fn momentum(&self) -> SVector<f64, R>;
    /// The state after the arrow `g` (source `x`), with covector `μ` at its target.
    fn after(&self, groupoid: &Gd, g: &Arrow<Gd, R>, mu: SVector<f64, R>) -> Self;
    /// Whether every number of the state is finite.
    fn is_finite(&self) -> bool;
}

/// A point `(x, μ)` of `A*G`: a base point and a covector of the algebroid at it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CotangentPoint<B, const R: usize> {
    /// The base point `x`.
    pub x: B,
    /// The covector `μ ∈ A*_x G` (fibre coordinates of the dual basis).
    pub mu: SVector<f64, R>,
}

impl<B, const R: usize> CotangentPoint<B, R> {
    /// The point `(x, μ)`.
    pub fn new(x: B, mu: SVector<f64, R>) -> Self {
        Self { x, mu }
    }
}

/// `x`, then `μ`.
impl<B: FlatState, const R: usize> FlatState for CotangentPoint<B, R> {
    const WORDS: usize = B::WORDS + R;
    fn write_words(&self, out: &mut Vec<f64>) {
        self.x.write_words(out);
        out.extend_from_slice(self.mu.as_slice());
    }
    fn read_words(words: &[f64]) -> Option<Self> {
        if words.len() != Self::WORDS {
            return None;
        }
        Some(Self::new(B::read_words(&words[..B::WORDS])?, SVector::from_column_slice(&words[B::WORDS..])))
    }
    fn words_finite(&self) -> bool {
        self.x.words_finite() && self.mu.iter().all(|w| w.is_finite())
    }
}

impl<Gd, B, const R: usize> FlowState<Gd, R> for CotangentPoint<B, R>
where
    Gd: GroupoidFamily<R, Base<f64> = B> + LieGroupoid<f64, R, Element = Arrow<Gd, R>, Base = B>,
    B: Clone + Send + Sync + FlatState,
{
    fn base_point(&self) -> B {
        self.x.clone()
    }
    fn momentum(&self) -> SVector<f64, R> {
        self.mu
    }
    fn after(&self, groupoid: &Gd, g: &Arrow<Gd, R>, mu: SVector<f64, R>) -> Self {
        Self::new(groupoid.target(g), mu)
    }
    fn is_finite(&self) -> bool {
        self.words_finite()
    }
}

/// On `R^N × R^N ⇉ R^N`, `(x, μ) = (q, p)`.
impl<const N: usize> FlowState<PairGroupoid<N>, N> for PhaseState<N> {
    fn base_point(&self) -> SVector<f64, N> {
        self.q
    }
    fn momentum(&self) -> SVector<f64, N> {
        self.p
    }
    fn after(&self, _: &PairGroupoid<N>, g: &(SVector<f64, N>, SVector<f64, N>), p: SVector<f64, N>) -> Self {
        PhaseState::new(g.1, p)
    }
    fn is_finite(&self) -> bool {
        PhaseState::is_finite(self)
    }
}

/// On `G ⇉ {e}`, `μ` with the configuration `g` reconstructed by `g_{k+1} = g_k W_k`.
impl<G, const D: usize> FlowState<GroupAsGroupoid<G>, D> for LieState<<G as LieGroup<f64, D>>::Element, D>
where
    GroupAsGroupoid<G>: GroupoidFamily<D, Base<f64> = ()> + GroupoidFamily<D, Element<f64> = G::Element>,
    G: LieGroup<f64, D>,
    G::Element: FlatState + Send + Sync,
{
    fn base_point(&self) {}
    fn momentum(&self) -> SVector<f64, D> {
        self.mu
    }
    fn after(&self, groupoid: &GroupAsGroupoid<G>, w: &G::Element, mu: SVector<f64, D>) -> Self {
        LieState::new(groupoid.group().compose(&self.g, w), mu)
    }
    fn is_finite(&self) -> bool {
        self.words_finite()
    }
}

/// The discrete Euler–Lagrange flow of a [`LagrangianFamily`] on a groupoid, as a [`OneStep`] on
/// any [`FlowState`] (module documentation).
///
/// ```
/// use geom_core::function::StepLagrangian;
/// use geom_core::step::{OneStep, PhaseState};
/// use geom_core::Scalar;
/// use groupoid::integrator::{GroupoidIntegrator, Stepped};
/// use groupoid::PairGroupoid;
/// use nalgebra::{SVector, Vector1};
///
/// /// The midpoint `L_d` of the oscillator `L = v²/2 − q²/2`.
/// struct Midpoint;
/// impl StepLagrangian<1> for Midpoint {
///     fn eval<S: Scalar>(&self, q0: &SVector<S, 1>, q1: &SVector<S, 1>, h: S) -> S {
///         let (v, x) = ((q1[0] - q0[0]) / h, (q0[0] + q1[0]) * S::from(0.5));
///         (v * v - x * x) * S::from(0.5) * h
///     }
/// }
/// let flow = GroupoidIntegrator::new(PairGroupoid::<1>, Stepped(Midpoint)).with_properties(2, true);
/// let mut s = PhaseState::new(Vector1::new(1.0), Vector1::new(0.0));
/// flow.step_n(&mut s, 0.01, 100)?;
/// // the midpoint rule keeps the quadratic energy exactly
/// assert!(((s.q[0].powi(2) + s.p[0].powi(2)) - 1.0).abs() < 1e-13);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
///
/// `R` is the rank of the algebroid (the dimension of the fibres of `A G`), inferred from the
/// family.
#[derive(Debug, Clone)]
pub struct GroupoidIntegrator<Gd, F, const R: usize> {
    groupoid: Gd,
    family: F,
    newton: NewtonOptions,
    order: u32,
    symmetric: bool,
}

impl<Gd: GroupoidFamily<R>, F: LagrangianFamily<Gd, R>, const R: usize> GroupoidIntegrator<Gd, F, R> {
    /// The flow of `family` on `groupoid`, with [`NewtonOptions::groupoid_flow`]; declared order 1
    /// and not symmetric until [`with_properties`](Self::with_properties) says otherwise (they are
    /// properties of the family, which the integrator cannot know: the contract suite
    /// `geom_core::step::testing` measures them).
    pub fn new(groupoid: Gd, family: F) -> Self {
        Self { groupoid, family, newton: NewtonOptions::groupoid_flow(), order: 1, symmetric: false }
    }
    /// Declare the order and symmetry of the family.
    pub fn with_properties(self, order: u32, symmetric: bool) -> Self {
        Self { order, symmetric, ..self }
    }
    /// The same integrator with other Newton options (raised at each step to the round-off floor
    /// of the step, [`NewtonOptions::for_momentum_residual`]).
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The groupoid.
    pub fn groupoid(&self) -> &Gd {
        &self.groupoid
    }
    /// The family of discrete Lagrangians.
    pub fn family(&self) -> &F {
        &self.family
    }
    /// The Newton options.
    pub fn newton(&self) -> &NewtonOptions {
        &self.newton
    }
}

impl<Gd, F, St, const R: usize> OneStep<St> for GroupoidIntegrator<Gd, F, R>
where
    Gd: AdGroupoid<R>,
    F: LagrangianFamily<Gd, R>,
    St: FlowState<Gd, R>,
{
    fn name(&self) -> String {
        format!("discrete Euler-Lagrange flow of {}", self.family.name())
    }
    fn order(&self) -> u32 {
        self.order
    }
    fn is_symmetric(&self) -> bool {
        self.symmetric
    }
    fn step(&self, state: &mut St, h: f64) -> Result<()> {
        *state = self.advance(state, h)?;
        Ok(())
    }
}

impl<Gd, F, const R: usize> GroupoidIntegrator<Gd, F, R> {
    /// One step of size `h` from `state` (module documentation). Errors: an invalid `h`, a
    /// non-finite state, Newton non-convergence or a singular Jacobian (`L_d^h` not regular
    /// there), a non-finite result.
    pub fn advance<St>(&self, state: &St, h: f64) -> Result<St>
    where
        Gd: AdGroupoid<R>,
        F: LagrangianFamily<Gd, R>,
        St: FlowState<Gd, R>,
    {
        check_step(h)?;
        if !state.is_finite() {
            return Err(GeomError::NonFinite { what: "state before step" });
        }
        let ld = self.family.at_step(h)?;
        let newton = self.newton.for_momentum_residual(h);
        let (g, _) = invert_legendre_minus(
            &self.groupoid,
            &ld,
            &state.base_point(),
            &state.momentum(),
            &SVector::zeros(),
            &newton,
        )?;
        let next = state.after(&self.groupoid, &g, legendre_plus(&self.groupoid, &ld, &g));
        if next.is_finite() { Ok(next) } else { Err(GeomError::NonFinite { what: "state after step" }) }
    }
}
