//! The variational integrator of a discrete Lagrangian `L_d(q₀, q₁)` on the pair groupoid
//! `Q × Q`, `Q = R^N`, in position–momentum form (Marsden & West, *Discrete mechanics and
//! variational integrators*, Acta Numerica 2001, §1.5 and §2; docs/math.md §C.3):
//!
//! ```text
//!   given (q_k, p_k):   solve  p_k = −D₁L_d(q_k, q_{k+1})   for q_{k+1},
//!                       then   p_{k+1} = D₂L_d(q_k, q_{k+1}).
//! ```
//!
//! The map `(q_k, p_k) ↦ (q_{k+1}, p_{k+1})` is `F⁺L_d ∘ (F⁻L_d)⁻¹` with the discrete Legendre
//! transforms `F⁻L_d(q₀, q₁) = (q₀, −D₁L_d)`, `F⁺L_d(q₀, q₁) = (q₁, D₂L_d)`; it is symplectic and
//! conserves the discrete Noether momenta of the symmetries of `L_d` (Marsden–West Thm 1.3.3).
//!
//! **Solve.** Newton ([`newton_blocks`], one block of size `N`) on the displacement
//! `δ = q_{k+1} − q_k` from `δ = 0`, residual `F(δ) = p_k + D₁L_d(q_k, q_k + δ)` and Newton matrix
//! `D₂D₁L_d` (`[(i, j)] = ∂²L_d/∂q₀_i∂q₁_j`). Residual, gradient and mixed second derivative come
//! from **one** `num_dual::partial_hessian` call (hyper-dual numbers
//! `HyperDualSVec64<N, N>`), so `L_d` is given as a generic model written once over the scalar
//! ([`StepLagrangian<N>`]). Regularity (`det D₁₂L_d ≠ 0`) is what
//! makes the Newton matrix invertible; a singular one is [`GeomError::SingularMatrix`].
//!
//! **Step size.** A discrete Lagrangian approximates the action over one step of size `h`, which
//! it contains (e.g. `L_d = h L((q₀+q₁)/2, (q₁−q₀)/h)`). It is therefore given as the family
//! `h ↦ L_d(·, ·; h)` ([`StepLagrangian`]), and [`OneStep::step`] takes the step size
//! like every other integrator: any finite nonzero `h`, negative ones included. `Φ_{−h}` is the
//! map of `L_d(·, ·; −h)`; for a symmetric family (`L_d(q₀, q₁; h) = −L_d(q₁, q₀; −h)`, the
//! midpoint rule) it is the inverse of `Φ_h`, so the method is symmetric and composes like any
//! other.
//!
//! [`GeneralizedMidpoint`] builds Marsden–West's `L_d^θ = h L((1−θ)q₀ + θq₁, (q₁−q₀)/h)` from a
//! continuous Lagrangian `L(q, v)` (docs/math.md §B.1, "Lagrangian version"); for `θ = 1/2` and
//! `L = ½vᵀMv − V(q)` its integrator is the implicit midpoint rule of `H = ½pᵀM⁻¹p + V(q)`.

use geom_core::function::{PhaseSpaceFunction, StepLagrangian};
use geom_core::newton::{NewtonOptions, newton_blocks};
use geom_core::step::{OneStep, PhaseState, check_step};
use geom_core::{GeomError, Scalar};
use nalgebra::{SMatrix, SVector};
use num_dual::{DualSVec64, HyperDual64};

type Vector<const N: usize> = SVector<f64, N>;

/// Marsden–West's generalized midpoint discrete Lagrangian
/// `L_d^θ(q₀, q₁; h) = h L((1−θ)q₀ + θq₁, (q₁ − q₀)/h)` of a Lagrangian `L(q, v)` (a
/// [`PhaseSpaceFunction<N>`] read as `(q, v)`; docs/math.md §B.1). Order 2 for `θ = 1/2`, 1
/// otherwise; `L_d^θ(q₀, q₁; −h) = −L_d^{1−θ}(q₁, q₀; h)`, so the method of `θ` and `−h` is the
/// inverse of the method of `1 − θ` and `h` (its adjoint).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeneralizedMidpoint<L> {
    lagrangian: L,
    theta: f64,
}

impl<L> GeneralizedMidpoint<L> {
    /// `L_d^θ`; [`GeomError::InvalidParameter`] unless `θ ∈ [0, 1]`.
    pub fn new(lagrangian: L, theta: f64) -> Result<Self, GeomError> {
        if !(0.0..=1.0).contains(&theta) {
            return Err(GeomError::InvalidParameter {
                what: "theta",
                reason: format!("must lie in [0, 1], got {theta}"),
            });
        }
        Ok(Self { lagrangian, theta })
    }
    /// The continuous Lagrangian.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }
    /// θ.
    pub fn theta(&self) -> f64 {
        self.theta
    }
}

impl<L: PhaseSpaceFunction<N>, const N: usize> StepLagrangian<N> for GeneralizedMidpoint<L> {
    #[inline]
    fn eval<S: Scalar>(&self, q0: &SVector<S, N>, q1: &SVector<S, N>, h: S) -> S {
        let x = q0 * S::from(1.0 - self.theta) + q1 * S::from(self.theta);
        let v = (q1 - q0) / h;
        self.lagrangian.eval(&x, &v) * h
    }
}

/// The variational integrator of the discrete Lagrangian family `L` (module documentation).
///
/// ```
/// use geom_core::function::{PhaseSpaceFunction, StepLagrangian};
/// use geom_core::Scalar;
/// use integrators::variational::VariationalIntegrator;
/// use integrators::{OneStep, PhaseState};
/// use nalgebra::SVector;
///
/// /// Pendulum `L(q, v) = v²/2 + cos q`.
/// struct Pendulum;
/// impl PhaseSpaceFunction<1> for Pendulum {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, v: &SVector<S, 1>) -> S {
///         v[0] * v[0] * S::from(0.5) + q[0].cos()
///     }
/// }
/// let vi = VariationalIntegrator::generalized_midpoint(Pendulum, 0.5)?;
/// assert_eq!((vi.order(), vi.is_symmetric()), (2, true));
/// let s0 = PhaseState::new(SVector::from([1.0]), SVector::from([0.0]));
/// let mut s = s0;
/// vi.step(&mut s, 0.1)?;
/// vi.step(&mut s, -0.1)?; // symmetric: Φ_{−h} inverts Φ_h
/// assert!((s.q - s0.q).norm() + (s.p - s0.p).norm() < 1e-14);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct VariationalIntegrator<L> {
    discrete_lagrangian: L,
    order: u32,
    symmetric: bool,
    newton: NewtonOptions,
}

impl<L> VariationalIntegrator<L> {
    /// The integrator of `discrete_lagrangian`; declared order 1 and not symmetric until
    /// [`with_properties`](Self::with_properties) says otherwise.
    pub fn new(discrete_lagrangian: L) -> Self {
        Self { discrete_lagrangian, order: 1, symmetric: false, newton: NewtonOptions::integrator() }
    }
    /// Declare the order and symmetry of `L_d` (they are properties of the user's `L_d`, which the
    /// integrator cannot know; measure them, see the tests).
    pub fn with_properties(self, order: u32, symmetric: bool) -> Self {
        Self { order, symmetric, ..self }
    }
    /// The same integrator with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The discrete Lagrangian.
    pub fn discrete_lagrangian(&self) -> &L {
        &self.discrete_lagrangian
    }
}

impl<L> VariationalIntegrator<GeneralizedMidpoint<L>> {
    /// The integrator of [`GeneralizedMidpoint`] `L_d^θ` of `lagrangian`: order 2 and symmetric
    /// for `θ = 1/2`, order 1 otherwise; [`GeomError::InvalidParameter`] unless `θ ∈ [0, 1]`.
    pub fn generalized_midpoint(lagrangian: L, theta: f64) -> Result<Self, GeomError> {
        let ld = GeneralizedMidpoint::new(lagrangian, theta)?;
        let midpoint = theta == 0.5;
        Ok(Self::new(ld).with_properties(if midpoint { 2 } else { 1 }, midpoint))
    }
}

/// `(D₁L_d, D₂L_d, D₁₂L_d)` at `(q₀, q₁)` (hyper-dual passes).
pub type Derivatives<const N: usize> = (Vector<N>, Vector<N>, SMatrix<f64, N, N>);

impl<L> VariationalIntegrator<L> {
    /// `(D₁L_d, D₂L_d, D₁₂L_d)(q₀, q₁; h)` (`D₁₂[(i, j)] = ∂²L_d/∂q₀_i∂q₁_j`), by the `N²`
    /// one-direction hyper-dual passes of `geom_core::hyper_dual::partial_hessian`.
    pub fn derivatives<const N: usize>(&self, q0: &Vector<N>, q1: &Vector<N>, h: f64) -> Derivatives<N>
    where
        L: StepLagrangian<N>,
    {
        let (_, d1, d2, d12) = geom_core::hyper_dual::partial_hessian(
            |x, y| self.discrete_lagrangian.eval(x, y, HyperDual64::from(h)),
            q0,
            q1,
        );
        (d1, d2, d12)
    }

    /// The discrete Legendre transforms `(F⁻L_d, F⁺L_d)(q₀, q₁) = (−D₁L_d, D₂L_d)` for the step
    /// `h`: the momenta at both ends of the step `(q₀, q₁)` (docs/math.md §C.3, pair groupoid).
    pub fn legendre_transforms<const N: usize>(&self, q0: &Vector<N>, q1: &Vector<N>, h: f64) -> (Vector<N>, Vector<N>)
    where
        L: StepLagrangian<N>,
    {
        (-self.d1(q0, q1, h), self.d2(q0, q1, h))
    }

    /// `D₁L_d(q₀, q₁; h)` by one `DualSVec64<N>` gradient pass.
    fn d1<const N: usize>(&self, q0: &Vector<N>, q1: &Vector<N>, h: f64) -> Vector<N>
    where
        L: StepLagrangian<N>,
    {
        let y = q1.map(DualSVec64::<N>::from_re);
        num_dual::gradient(
            |x: SVector<DualSVec64<N>, N>| self.discrete_lagrangian.eval(&x, &y, DualSVec64::<N>::from(h)),
            q0,
        )
        .1
    }

    /// `D₂L_d(q₀, q₁; h)` by one `DualSVec64<N>` gradient pass.
    fn d2<const N: usize>(&self, q0: &Vector<N>, q1: &Vector<N>, h: f64) -> Vector<N>
    where
        L: StepLagrangian<N>,
    {
        let x = q0.map(DualSVec64::<N>::from_re);
        num_dual::gradient(
            |y: SVector<DualSVec64<N>, N>| self.discrete_lagrangian.eval(&x, &y, DualSVec64::<N>::from(h)),
            q1,
        )
        .1
    }

    /// Solve `p₀ + D₁L_d(q₀, q₀ + δ; h) = 0`, return `(q₁, D₂L_d(q₀, q₁; h))`.
    fn forward<const N: usize>(&self, s: &PhaseState<N>, h: f64) -> Result<PhaseState<N>, GeomError>
    where
        L: StepLagrangian<N>,
    {
        let ([delta], _) = newton_blocks(
            |x: &[Vector<N>; 1], jac: Option<&mut [[SMatrix<f64, N, N>; 1]; 1]>| {
                let q1 = s.q + x[0];
                let d1 = match jac {
                    Some(j) => {
                        let (d1, _, d12) = self.derivatives(&s.q, &q1, h);
                        j[0][0] = d12;
                        d1
                    }
                    None => self.d1(&s.q, &q1, h),
                };
                Ok([s.p + d1])
            },
            &[Vector::zeros()],
            &self.newton,
        )?;
        let q1 = s.q + delta;
        Ok(PhaseState::new(q1, self.d2(&s.q, &q1, h)))
    }
}

impl<L: StepLagrangian<N>, const N: usize> OneStep<PhaseState<N>> for VariationalIntegrator<L> {
    fn name(&self) -> String {
        "variational integrator".into()
    }
    fn order(&self) -> u32 {
        self.order
    }
    fn is_symmetric(&self) -> bool {
        self.symmetric
    }
    fn step(&self, state: &mut PhaseState<N>, h: f64) -> Result<(), GeomError> {
        check_step(h)?;
        if !state.is_finite() {
            return Err(GeomError::NonFinite { what: "state before step" });
        }
        let next = self.forward(state, h)?;
        if !next.is_finite() {
            return Err(GeomError::NonFinite { what: "state after step" });
        }
        *state = next;
        Ok(())
    }
}
