//! The unconstrained discrete Euler–Lagrange flow of a [`LagrangianFamily`] as a [`OneStep`].

use super::{FlowState, LagrangianFamily, advance_with};
use crate::lagrangian::{AdGroupoid, GroupoidFamily, invert_legendre_minus, legendre_plus};
use geom_core::Result;
use geom_core::newton::NewtonOptions;
use geom_core::step::OneStep;
use nalgebra::SVector;

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
    pub fn newton_options(&self) -> &NewtonOptions {
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
        advance_with(&self.groupoid, &self.family, &self.newton, state, h, |ld, newton, x, mu| {
            let (g, _) = invert_legendre_minus(&self.groupoid, ld, x, mu, &SVector::zeros(), newton)?;
            let mu = legendre_plus(&self.groupoid, ld, &g);
            Ok((g, mu))
        })
    }
}
