//! Observers: what a run measures at each sample (energy, momentum maps, Casimirs, constraint
//! residuals, any function of the state).

use super::*;

/// A scalar quantity sampled along a trajectory (object-safe: `&dyn Observer<St>`): energy,
/// a component of a momentum map, a Casimir, a constraint residual, any user function.
pub trait Observer<St>: Send + Sync {
    /// Name in the [`Record`], e.g. `"energy"`.
    fn name(&self) -> String;
    /// The value at `state`.
    fn observe(&self, state: &St) -> f64;
}

/// An observer from a closure `f(&St) -> f64`.
///
/// ```
/// use integrators::driver::{FnObserver, Observer};
/// use integrators::PhaseState;
/// use nalgebra::Vector1;
///
/// let q0 = FnObserver::new("q0", |s: &PhaseState<1>| s.q[0]);
/// assert_eq!(q0.observe(&PhaseState::new(Vector1::new(2.0), Vector1::new(0.0))), 2.0);
/// assert_eq!(q0.name(), "q0");
/// ```
#[derive(Debug, Clone)]
pub struct FnObserver<F> {
    pub(super) name: String,
    pub(super) f: F,
}

impl<F> FnObserver<F> {
    /// The observer `name`: `state ↦ f(state)`.
    pub fn new(name: impl Into<String>, f: F) -> Self {
        Self { name: name.into(), f }
    }
}

impl<St, F: Fn(&St) -> f64 + Send + Sync> Observer<St> for FnObserver<F> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn observe(&self, state: &St) -> f64 {
        (self.f)(state)
    }
}

/// The energy `H(q, p)` of a Hamiltonian ([`PhaseSpaceDerivatives`]; for a separable one, e.g.
/// [`geom_core::function::Separable`], `T(p) + V(q)`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Energy<H>(pub H);

impl<H: PhaseSpaceDerivatives<N>, const N: usize> Observer<PhaseState<N>> for Energy<H> {
    fn name(&self) -> String {
        "energy".into()
    }
    fn observe(&self, s: &PhaseState<N>) -> f64 {
        self.0.value(&s.q, &s.p)
    }
}

/// One component `J_ξ(q, p) = <J(q, p), ξ> = <p, ξ_Q(q)>` of the momentum map of a group action
/// on `Q = R^N` (docs/math.md §A.6; [`GroupAction::momentum_map`]), e.g. the angular momentum for
/// [`geom_core::action::RotationAction`] and `ξ = e_3`.
#[derive(Debug, Clone)]
pub struct MomentumMap<A, const D: usize> {
    pub(super) action: A,
    pub(super) xi: SVector<f64, D>,
    pub(super) name: String,
}

impl<A, const D: usize> MomentumMap<A, D> {
    /// `J_ξ` for `action`, recorded as `name`.
    pub fn new(name: impl Into<String>, action: A, xi: SVector<f64, D>) -> Self {
        Self { action, xi, name: name.into() }
    }
}

impl<A, const D: usize, const N: usize> Observer<PhaseState<N>> for MomentumMap<A, D>
where
    A: GroupAction<f64, D, Point = SVector<f64, N>, Covector = SVector<f64, N>>,
{
    fn name(&self) -> String {
        self.name.clone()
    }
    fn observe(&self, s: &PhaseState<N>) -> f64 {
        self.action.momentum_map(&s.q, &s.p).dot(&self.xi)
    }
}

/// `J_ξ` on `T*G` in left trivialization, for the states `(g, μ)` of every Lie-group integrator
/// ([`geom_core::step::LieState`]): with [`geom_core::action::LeftMultiplication`] the spatial
/// momentum `<Ad*_{g^{-1}} μ, ξ>`, with [`geom_core::action::RightMultiplication`] `-<μ, ξ>`.
impl<A, E, const D: usize> Observer<geom_core::step::LieState<E, D>> for MomentumMap<A, D>
where
    A: GroupAction<f64, D, Point = E, Covector = SVector<f64, D>>,
    E: Send + Sync,
{
    fn name(&self) -> String {
        self.name.clone()
    }
    fn observe(&self, s: &geom_core::step::LieState<E, D>) -> f64 {
        self.action.momentum_map(&s.g, &s.mu).dot(&self.xi)
    }
}

/// The constraint residual `|φ(q)|` of a holonomic constraint `φ: R^N -> R`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConstraintResidual<C>(pub C);

impl<C: ScalarDerivatives<N>, const N: usize> Observer<PhaseState<N>> for ConstraintResidual<C> {
    fn name(&self) -> String {
        "constraint residual".into()
    }
    fn observe(&self, s: &PhaseState<N>) -> f64 {
        self.0.value(&s.q).abs()
    }
}

/// A Casimir (or any scalar function) `C(y)` of a state `y ∈ R^N`, e.g. `|Π|²` of the rigid body
/// integrated as an ODE on `R^3`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Casimir<C>(pub C);

impl<C: ScalarDerivatives<N>, const N: usize> Observer<SVector<f64, N>> for Casimir<C> {
    fn name(&self) -> String {
        "casimir".into()
    }
    fn observe(&self, y: &SVector<f64, N>) -> f64 {
        self.0.value(y)
    }
}
