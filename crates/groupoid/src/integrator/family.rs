//! The one way the step size reaches a discrete Lagrangian of the groupoid layer's integrators:
//! a family `h ↦ L_d^h`.

use crate::discretization_map::{AlgebroidDiscretization, AlgebroidLagrangian, InducedLagrangian};
use crate::lagrangian::{DiscreteLagrangian, GroupoidFamily};
use crate::pair::PairGroupoid;
use geom_core::function::StepLagrangian;
use geom_core::step::check_step;
use geom_core::{Result, Scalar};
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
