//! The states a groupoid flow advances: points `(x, μ)` of `A*G`, and the phase-space and
//! Lie-group states of the step layer seen as such.

use crate::groupoid::LieGroupoid;
use crate::lagrangian::{Arrow, GroupoidFamily};
use crate::lie_group::GroupAsGroupoid;
use crate::pair::PairGroupoid;
use geom_core::lie::LieGroup;
use geom_core::step::{FlatState, LieState, PhaseState};
use nalgebra::SVector;

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
impl<G, C, const D: usize> FlowState<GroupAsGroupoid<G, C>, D> for LieState<<G as LieGroup<f64, D>>::Element, D>
where
    GroupAsGroupoid<G, C>: GroupoidFamily<D, Base<f64> = ()> + GroupoidFamily<D, Element<f64> = G::Element>,
    G: LieGroup<f64, D>,
    G::Element: FlatState + Send + Sync,
{
    fn base_point(&self) {}
    fn momentum(&self) -> SVector<f64, D> {
        self.mu
    }
    fn after(&self, groupoid: &GroupAsGroupoid<G, C>, w: &G::Element, mu: SVector<f64, D>) -> Self {
        LieState::new(groupoid.group().compose(&self.g, w), mu)
    }
    fn is_finite(&self) -> bool {
        self.words_finite()
    }
}
