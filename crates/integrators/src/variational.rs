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
//! `HyperDualSVec64<N, N>`), so `L_d` is given as a generic model, a
//! [`PhaseSpaceFunction<N>`] read as `(q, p) = (q₀, q₁)`. Regularity (`det D₁₂L_d ≠ 0`) is what
//! makes the Newton matrix invertible; a singular one is [`GeomError::SingularMatrix`].
//!
//! **Step size.** A discrete Lagrangian approximates the action over one step of a *fixed* size
//! `h`, which it contains (e.g. `L_d = h L((q₀+q₁)/2, (q₁−q₀)/h)`). The integrator is built with
//! that `h` ([`VariationalIntegrator::new`]); [`OneStep::step`] accepts `h` (the forward map, to
//! 8 ulps) and `−h` (the exact inverse map: solve `p_{k+1} = D₂L_d(q_k, q_{k+1})` for `q_k`, then
//! `p_k = −D₁L_d(q_k, q_{k+1})`), and returns [`GeomError::InvalidParameter`] for any other step.
//! For a symmetric `L_d` (`L_d(q₀, q₁; h) = −L_d(q₁, q₀; −h)`) the inverse map is the step with
//! `−h`, so the method is symmetric.
//!
//! [`GeneralizedMidpoint`] builds Marsden–West's `L_d^θ = h L((1−θ)q₀ + θq₁, (q₁−q₀)/h)` from a
//! continuous Lagrangian `L(q, v)` (docs/math.md §B.1, "Lagrangian version"); for `θ = 1/2` and
//! `L = ½vᵀMv − V(q)` its integrator is the implicit midpoint rule of `H = ½pᵀM⁻¹p + V(q)`.

use discretization::hamiltonian::integrator_newton_options;
use discretization::{OneStep, PhaseState, check_step};
use geom_core::function::PhaseSpaceFunction;
use geom_core::newton::{NewtonOptions, newton_blocks};
use geom_core::{GeomError, Scalar};
use nalgebra::{SMatrix, SVector};
use num_dual::DualSVec64;

type Vector<const N: usize> = SVector<f64, N>;

/// Marsden–West's generalized midpoint discrete Lagrangian
/// `L_d^θ(q₀, q₁) = h L((1−θ)q₀ + θq₁, (q₁ − q₀)/h)` of a Lagrangian `L(q, v)` (a
/// [`PhaseSpaceFunction<N>`] read as `(q, v)`), for the fixed step `h` (docs/math.md §B.1). Order 2
/// for `θ = 1/2`, 1 otherwise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeneralizedMidpoint<L> {
    lagrangian: L,
    theta: f64,
    h: f64,
}

impl<L> GeneralizedMidpoint<L> {
    /// `L_d^θ` for step `h`; [`GeomError::InvalidParameter`] unless `θ ∈ [0, 1]`,
    /// [`GeomError::InvalidStep`] unless `h` is finite and nonzero.
    pub fn new(lagrangian: L, theta: f64, h: f64) -> Result<Self, GeomError> {
        if !(0.0..=1.0).contains(&theta) {
            return Err(GeomError::InvalidParameter {
                what: "theta",
                reason: format!("must lie in [0, 1], got {theta}"),
            });
        }
        check_step(h)?;
        Ok(Self { lagrangian, theta, h })
    }
    /// The continuous Lagrangian.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }
    /// θ.
    pub fn theta(&self) -> f64 {
        self.theta
    }
    /// The step `h` built into `L_d`.
    pub fn step_size(&self) -> f64 {
        self.h
    }
}

impl<L: PhaseSpaceFunction<N>, const N: usize> PhaseSpaceFunction<N> for GeneralizedMidpoint<L> {
    #[inline]
    fn eval<S: Scalar>(&self, q0: &SVector<S, N>, q1: &SVector<S, N>) -> S {
        let h = S::from(self.h);
        let x = q0 * S::from(1.0 - self.theta) + q1 * S::from(self.theta);
        let v = (q1 - q0) / h;
        self.lagrangian.eval(&x, &v) * h
    }
}

/// The variational integrator of the discrete Lagrangian `L` (module documentation), built for
/// the step `h` that `L` contains.
///
/// ```
/// use geom_core::function::PhaseSpaceFunction;
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
/// let vi = VariationalIntegrator::generalized_midpoint(Pendulum, 0.5, 0.1)?;
/// assert_eq!((vi.order(), vi.is_symmetric()), (2, true));
/// let mut s = PhaseState::new(SVector::from([1.0]), SVector::from([0.0]));
/// vi.step(&mut s, 0.1)?;
/// assert!(vi.step(&mut s, 0.05).is_err()); // L_d was built for h = 0.1
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct VariationalIntegrator<L> {
    discrete_lagrangian: L,
    h: f64,
    order: u32,
    symmetric: bool,
    newton: NewtonOptions,
}

impl<L> VariationalIntegrator<L> {
    /// The integrator of `discrete_lagrangian`, which approximates the action over one step of
    /// size `h`; declared order 1 and not symmetric until [`with_properties`](Self::with_properties)
    /// says otherwise. [`GeomError::InvalidStep`] unless `h` is finite and nonzero.
    pub fn new(discrete_lagrangian: L, h: f64) -> Result<Self, GeomError> {
        check_step(h)?;
        Ok(Self { discrete_lagrangian, h, order: 1, symmetric: false, newton: integrator_newton_options() })
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
    /// The step `h` the discrete Lagrangian is built for.
    pub fn step_size(&self) -> f64 {
        self.h
    }
}

impl<L> VariationalIntegrator<GeneralizedMidpoint<L>> {
    /// The integrator of [`GeneralizedMidpoint`] `L_d^θ` of `lagrangian` for step `h`: order 2
    /// and symmetric for `θ = 1/2`, order 1 otherwise.
    pub fn generalized_midpoint(lagrangian: L, theta: f64, h: f64) -> Result<Self, GeomError> {
        let ld = GeneralizedMidpoint::new(lagrangian, theta, h)?;
        let midpoint = theta == 0.5;
        Ok(Self::new(ld, h)?.with_properties(if midpoint { 2 } else { 1 }, midpoint))
    }
}

/// `(D₁L_d, D₂L_d, D₁₂L_d)` at `(q₀, q₁)` (hyper-dual passes).
pub type Derivatives<const N: usize> = (Vector<N>, Vector<N>, SMatrix<f64, N, N>);

impl<L> VariationalIntegrator<L> {
    /// `(D₁L_d, D₂L_d, D₁₂L_d)(q₀, q₁)` (`D₁₂[(i, j)] = ∂²L_d/∂q₀_i∂q₁_j`), by the `N²`
    /// one-direction hyper-dual passes of `geom_core::hyper_dual::partial_hessian`.
    pub fn derivatives<const N: usize>(&self, q0: &Vector<N>, q1: &Vector<N>) -> Derivatives<N>
    where
        L: PhaseSpaceFunction<N>,
    {
        let (_, d1, d2, d12) =
            geom_core::hyper_dual::partial_hessian(|x, y| self.discrete_lagrangian.eval(x, y), q0, q1);
        (d1, d2, d12)
    }

    /// The discrete Legendre transforms `(F⁻L_d, F⁺L_d)(q₀, q₁) = (−D₁L_d, D₂L_d)`: the momenta at
    /// both ends of the step `(q₀, q₁)` (docs/math.md §C.3, pair groupoid).
    pub fn legendre_transforms<const N: usize>(&self, q0: &Vector<N>, q1: &Vector<N>) -> (Vector<N>, Vector<N>)
    where
        L: PhaseSpaceFunction<N>,
    {
        (-self.d1(q0, q1), self.d2(q0, q1))
    }

    /// `D₁L_d(q₀, q₁)` by one `DualSVec64<N>` gradient pass.
    fn d1<const N: usize>(&self, q0: &Vector<N>, q1: &Vector<N>) -> Vector<N>
    where
        L: PhaseSpaceFunction<N>,
    {
        let y = q1.map(DualSVec64::<N>::from_re);
        num_dual::gradient(|x: SVector<DualSVec64<N>, N>| self.discrete_lagrangian.eval(&x, &y), q0).1
    }

    /// `D₂L_d(q₀, q₁)` by one `DualSVec64<N>` gradient pass.
    fn d2<const N: usize>(&self, q0: &Vector<N>, q1: &Vector<N>) -> Vector<N>
    where
        L: PhaseSpaceFunction<N>,
    {
        let x = q0.map(DualSVec64::<N>::from_re);
        num_dual::gradient(|y: SVector<DualSVec64<N>, N>| self.discrete_lagrangian.eval(&x, &y), q1).1
    }

    /// Forward map: solve `p₀ + D₁L_d(q₀, q₀ + δ) = 0`, return `(q₁, D₂L_d(q₀, q₁))`.
    fn forward<const N: usize>(&self, s: &PhaseState<N>) -> Result<PhaseState<N>, GeomError>
    where
        L: PhaseSpaceFunction<N>,
    {
        let ([delta], _) = newton_blocks(
            |x: &[Vector<N>; 1], jac: Option<&mut [[SMatrix<f64, N, N>; 1]; 1]>| {
                let q1 = s.q + x[0];
                let d1 = match jac {
                    Some(j) => {
                        let (d1, _, d12) = self.derivatives(&s.q, &q1);
                        j[0][0] = d12;
                        d1
                    }
                    None => self.d1(&s.q, &q1),
                };
                Ok([s.p + d1])
            },
            &[Vector::zeros()],
            &self.newton,
        )?;
        let q1 = s.q + delta;
        Ok(PhaseState::new(q1, self.d2(&s.q, &q1)))
    }

    /// Inverse map: solve `D₂L_d(q₁ + δ, q₁) − p₁ = 0` for `q₀ = q₁ + δ`, return
    /// `(q₀, −D₁L_d(q₀, q₁))`; Newton matrix `∂D₂L_d/∂q₀ = D₁₂ᵀ`.
    fn backward<const N: usize>(&self, s: &PhaseState<N>) -> Result<PhaseState<N>, GeomError>
    where
        L: PhaseSpaceFunction<N>,
    {
        let ([delta], _) = newton_blocks(
            |x: &[Vector<N>; 1], jac: Option<&mut [[SMatrix<f64, N, N>; 1]; 1]>| {
                let q0 = s.q + x[0];
                let d2 = match jac {
                    Some(j) => {
                        let (_, d2, d12) = self.derivatives(&q0, &s.q);
                        j[0][0] = d12.transpose();
                        d2
                    }
                    None => self.d2(&q0, &s.q),
                };
                Ok([d2 - s.p])
            },
            &[Vector::zeros()],
            &self.newton,
        )?;
        let q0 = s.q + delta;
        Ok(PhaseState::new(q0, -self.d1(&q0, &s.q)))
    }
}

impl<L: PhaseSpaceFunction<N>, const N: usize> OneStep<PhaseState<N>> for VariationalIntegrator<L> {
    fn name(&self) -> String {
        format!("variational integrator (discrete Lagrangian for h = {})", self.h)
    }
    fn order(&self) -> u32 {
        self.order
    }
    fn is_symmetric(&self) -> bool {
        self.symmetric
    }
    /// `h` must be the step of the discrete Lagrangian (forward map) or its negative (inverse
    /// map), to 8 ulps; else [`GeomError::InvalidParameter`].
    fn step(&self, state: &mut PhaseState<N>, h: f64) -> Result<(), GeomError> {
        check_step(h)?;
        if !state.is_finite() {
            return Err(GeomError::NonFinite { what: "state before step" });
        }
        let tol = 8.0 * f64::EPSILON * self.h.abs();
        let next = if (h - self.h).abs() <= tol {
            self.forward(state)?
        } else if (h + self.h).abs() <= tol {
            self.backward(state)?
        } else {
            return Err(GeomError::InvalidParameter {
                what: "h",
                reason: format!("the discrete Lagrangian is built for h = {}, got {h}", self.h),
            });
        };
        if !next.is_finite() {
            return Err(GeomError::NonFinite { what: "state after step" });
        }
        *state = next;
        Ok(())
    }
}
