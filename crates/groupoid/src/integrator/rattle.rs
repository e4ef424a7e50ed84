//! RATTLE: the SHAKE/RATTLE flow of holonomic constraints as a one-step map of `T*S`.

use super::{FlowState, LagrangianFamily, advance_with, checked_inverse_mass};
use crate::constraints::{BaseConstraints, HolonomicFlow, project_off_normals};
use crate::groupoid::LieGroupoid;
use crate::lagrangian::{AdGroupoid, legendre_plus};
use geom_core::Result;
use geom_core::newton::NewtonOptions;
use geom_core::step::OneStep;
use nalgebra::{SMatrix, SVector};

/// RATTLE for holonomic constraints `c: Q → R^K` (`S = {c = 0}`) and a family `h ↦ L_d^h`, as a
/// [`OneStep`] on any [`FlowState`] `(x, μ)` with `x ∈ S` (module documentation):
///
/// ```text
///   solve  F^-L_d^h(g) = μ_k + n(x_k) Λ,   c(β(g)) = 0      for g = exp_{x_k}(ξ) and Λ ∈ R^K,
///   then   x_{k+1} = β(g),   μ_{k+1} = P(x_{k+1}) F^+L_d^h(g),   n(x) = X^←(c ∘ β)(ε(x)).
/// ```
///
/// On the pair groupoid of `R^N` with `L_d^h(q₀, q₁) = h L((q₀ + q₁)/2, (q₁ − q₀)/h)` and
/// `L = ½ vᵀ M v − V(q)`, `n = ∇c` and `P` the projection with `∇cᵀ M^{-1} p = 0`
/// ([`RattleIntegrator::with_inverse_mass`]), this is the RATTLE method of Andersen (1983) in the
/// variational form of Marsden & West, *Discrete mechanics and variational integrators*, Acta
/// Numerica 10 (2001), §3.5: symplectic on `T*S`, symmetric for a symmetric family, of the
/// family's order. The arrows equal those of [`HolonomicFlow`] at the same `h`.
///
/// `M = R + K` (unknowns of the Newton solve) is a const parameter, as for [`HolonomicFlow`]:
/// write `RattleIntegrator::<_, _, _, R, K, M>::new(…)`.
///
/// Errors of a step: an invalid `h`, a non-finite state, `x_k` off `S` by more than
/// [`crate::constraints::CONSTRAINT_TOLERANCE`] (`GeomError::OffManifold`), Newton failures,
/// dependent normals at `x_{k+1}` (`GeomError::SingularMatrix`), a non-finite result; the state
/// is then untouched.
#[derive(Debug, Clone)]
pub struct RattleIntegrator<Gd, F, C, const R: usize, const K: usize, const M: usize> {
    flow: HolonomicFlow<Gd, F, C, M>,
    inverse_mass: Option<SMatrix<f64, R, R>>,
    newton: NewtonOptions,
    order: u32,
    symmetric: bool,
}

impl<Gd, F, C, const R: usize, const K: usize, const M: usize> RattleIntegrator<Gd, F, C, R, K, M> {
    /// RATTLE for `family` with the constraints `constraints` on `groupoid`, with
    /// [`NewtonOptions::groupoid_flow`], `W = I`, declared order 1 and not symmetric until
    /// [`with_properties`](Self::with_properties) says otherwise.
    pub fn new(groupoid: Gd, family: F, constraints: C) -> Self {
        Self {
            flow: HolonomicFlow::new(groupoid, family, constraints),
            inverse_mass: None,
            newton: NewtonOptions::groupoid_flow(),
            order: 1,
            symmetric: false,
        }
    }
    /// Declare the order and symmetry of the family (RATTLE inherits both).
    pub fn with_properties(self, order: u32, symmetric: bool) -> Self {
        Self { order, symmetric, ..self }
    }
    /// The momentum representative `nᵀ W μ = 0` with the inverse mass matrix `W` (module
    /// documentation). Error: `W` not finite, symmetric and positive definite.
    pub fn with_inverse_mass(self, w: SMatrix<f64, R, R>) -> Result<Self> {
        Ok(Self { inverse_mass: Some(checked_inverse_mass(w)?), ..self })
    }
    /// The same integrator with other Newton options (raised at each step to the round-off floor
    /// of the step, [`NewtonOptions::for_momentum_residual`]).
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The groupoid.
    pub fn groupoid(&self) -> &Gd {
        self.flow.groupoid()
    }
    /// The family of discrete Lagrangians.
    pub fn family(&self) -> &F {
        self.flow.lagrangian()
    }
    /// The constraints `c`.
    pub fn constraints(&self) -> &C {
        self.flow.constraints()
    }
    /// The Newton options.
    pub fn newton_options(&self) -> &NewtonOptions {
        &self.newton
    }

    /// `state` with its covector replaced by the representative `P(x) μ` (the start of a run
    /// from a momentum not tangent to `S`). Errors: `x` off `S`, dependent normals.
    pub fn project<St>(&self, state: &St) -> Result<St>
    where
        Gd: AdGroupoid<R>,
        C: BaseConstraints<Gd, R, K>,
        St: FlowState<Gd, R>,
    {
        let unit = LieGroupoid::<f64, R>::identity(self.groupoid(), &state.base_point());
        self.flow.check(&unit)?;
        let mu =
            project_off_normals(&state.momentum(), &self.flow.constraint_normals(&unit), self.inverse_mass.as_ref())?;
        Ok(state.after(self.groupoid(), &unit, mu))
    }

    /// One step of size `h` from `state` (struct documentation).
    pub fn advance<St>(&self, state: &St, h: f64) -> Result<St>
    where
        Gd: AdGroupoid<R>,
        F: LagrangianFamily<Gd, R>,
        C: BaseConstraints<Gd, R, K>,
        St: FlowState<Gd, R>,
    {
        let gd = self.groupoid();
        advance_with(gd, self.family(), &self.newton, state, h, |ld, newton, x, mu| {
            let (g, _) = self.flow.start_with(ld, newton, x, mu, &SVector::zeros())?;
            let plus = legendre_plus(gd, ld, &g);
            let mu = project_off_normals(&plus, &self.flow.constraint_normals(&g), self.inverse_mass.as_ref())?;
            Ok((g, mu))
        })
    }
}

impl<Gd, F, C, St, const R: usize, const K: usize, const M: usize> OneStep<St> for RattleIntegrator<Gd, F, C, R, K, M>
where
    Gd: AdGroupoid<R>,
    F: LagrangianFamily<Gd, R>,
    C: BaseConstraints<Gd, R, K>,
    St: FlowState<Gd, R>,
{
    fn name(&self) -> String {
        format!("RATTLE of {}", self.family().name())
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
