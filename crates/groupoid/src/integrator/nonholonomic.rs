//! The discrete Lagrange–d'Alembert flow as a one-step map of `(x, μ)`.

use super::{FlowState, LagrangianFamily, advance_with, checked_inverse_mass};
use crate::constraints::{join, project_off_normals};
use crate::groupoid::LieGroupoid;
use crate::lagrangian::{AdGroupoid, GroupoidFamily, legendre_plus};
use crate::nonholonomic::{NonholonomicConstraints, NonholonomicFlow};
use geom_core::Result;
use geom_core::newton::NewtonOptions;
use geom_core::step::OneStep;
use nalgebra::{SMatrix, SVector};

/// The discrete Lagrange–d'Alembert flow of one-forms `μ(x)` (`D = ker μ`), a discrete constraint
/// `ψ` (`M_d = {ψ = 0}`) and a family `h ↦ L_d^h`, as a [`OneStep`] on any [`FlowState`]
/// `(x, p)` (module documentation; Cortés & Martínez, *Non-holonomic integrators*, Nonlinearity 14
/// (2001); McLachlan & Perlmutter, *Integrators for nonholonomic mechanical systems*, J. Nonlinear
/// Sci. 16 (2006)):
///
/// ```text
///   solve  F^-L_d^h(g) + μ(x_k)ᵀ λ = p_k,   ψ(g) = 0        for g = exp_{x_k}(ξ) and λ ∈ R^K,
///   then   x_{k+1} = β(g),   p_{k+1} = P(x_{k+1}) F^+L_d^h(g),   normals n(x) = μ(x)ᵀ.
/// ```
///
/// The arrows are those of [`NonholonomicFlow`] at the same `h`; `P` (identity metric unless
/// [`with_inverse_mass`](Self::with_inverse_mass)) makes the map symmetric for a symmetric family
/// and an odd `ψ` (`ψ(g^{-1}) = −ψ(g)`, e.g. [`crate::nonholonomic::MidpointConstraints`]). The
/// discrete constraint must not depend on `h` (the midpoint constraint is homogeneous in
/// `q₁ − q₀`). The flow is not symplectic (nonholonomic flows preserve no symplectic form).
///
/// `M = R + K` is a const parameter: write `NonholonomicIntegrator::<_, _, _, R, K, M>::new(…)`.
///
/// Errors of a step: an invalid `h`, a non-finite state or one-forms, Newton failures, dependent
/// one-forms at `x_{k+1}` (`GeomError::SingularMatrix`), a non-finite result; the state is then
/// untouched.
#[derive(Debug, Clone)]
pub struct NonholonomicIntegrator<Gd, F, C, const R: usize, const K: usize, const M: usize> {
    flow: NonholonomicFlow<Gd, F, C, M>,
    inverse_mass: Option<SMatrix<f64, R, R>>,
    newton: NewtonOptions,
    order: u32,
    symmetric: bool,
}

impl<Gd, F, C, const R: usize, const K: usize, const M: usize> NonholonomicIntegrator<Gd, F, C, R, K, M> {
    /// The flow of `family` with `constraints` on `groupoid`, with [`NewtonOptions::nonholonomic`],
    /// `W = I`, declared order 1 and not symmetric until
    /// [`with_properties`](Self::with_properties) says otherwise.
    pub fn new(groupoid: Gd, family: F, constraints: C) -> Self {
        Self {
            flow: NonholonomicFlow::new(groupoid, family, constraints),
            inverse_mass: None,
            newton: NewtonOptions::nonholonomic(),
            order: 1,
            symmetric: false,
        }
    }
    /// Declare the order and symmetry of the method.
    pub fn with_properties(self, order: u32, symmetric: bool) -> Self {
        Self { order, symmetric, ..self }
    }
    /// The momentum representative `μ(x) W p = 0` with the inverse mass matrix `W` (module
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
    /// The constraints `(μ, ψ)`.
    pub fn constraints(&self) -> &C {
        self.flow.constraints()
    }
    /// The Newton options.
    pub fn newton_options(&self) -> &NewtonOptions {
        &self.newton
    }

    /// `P(x) p`: the representative of `p` modulo the one-forms at `x` (`μ(x) W P(x) p = 0`).
    /// Error: dependent or non-finite one-forms.
    pub fn project_momentum(
        &self,
        x: &<Gd as GroupoidFamily<R>>::Base<f64>,
        p: &SVector<f64, R>,
    ) -> Result<SVector<f64, R>>
    where
        Gd: AdGroupoid<R>,
        C: NonholonomicConstraints<Gd, R, K>,
    {
        let normals = self.constraints().one_forms::<f64>(self.groupoid(), x).transpose();
        project_off_normals(p, &normals, self.inverse_mass.as_ref())
    }

    /// `state` with its covector replaced by [`project_momentum`](Self::project_momentum).
    pub fn project<St>(&self, state: &St) -> Result<St>
    where
        Gd: AdGroupoid<R>,
        C: NonholonomicConstraints<Gd, R, K>,
        St: FlowState<Gd, R>,
    {
        let x = state.base_point();
        let p = self.project_momentum(&x, &state.momentum())?;
        Ok(state.after(self.groupoid(), &LieGroupoid::<f64, R>::identity(self.groupoid(), &x), p))
    }

    /// One step of size `h` from `state` (struct documentation).
    pub fn advance<St>(&self, state: &St, h: f64) -> Result<St>
    where
        Gd: AdGroupoid<R>,
        F: LagrangianFamily<Gd, R>,
        C: NonholonomicConstraints<Gd, R, K>,
        St: FlowState<Gd, R>,
    {
        let gd = self.groupoid();
        advance_with(gd, self.family(), &self.newton, state, h, |ld, newton, x, p| {
            let guess = join::<R, K, M>(&SVector::zeros(), &SVector::zeros());
            let step = self.flow.solve_with::<_, R, K>(ld, newton, x, p, &guess)?;
            let plus = legendre_plus(gd, ld, &step.g);
            let p_next = self.project_momentum(&LieGroupoid::<f64, R>::target(gd, &step.g), &plus)?;
            Ok((step.g, p_next))
        })
    }
}

impl<Gd, F, C, St, const R: usize, const K: usize, const M: usize> OneStep<St>
    for NonholonomicIntegrator<Gd, F, C, R, K, M>
where
    Gd: AdGroupoid<R>,
    F: LagrangianFamily<Gd, R>,
    C: NonholonomicConstraints<Gd, R, K>,
    St: FlowState<Gd, R>,
{
    fn name(&self) -> String {
        format!("discrete Lagrange-d'Alembert flow of {}", self.family().name())
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
