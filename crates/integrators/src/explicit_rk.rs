//! Explicit Runge–Kutta methods of any explicit tableau on a linear state space (RK4, ...): the
//! non-symplectic baseline the workbench and the benches compare the geometric methods with
//! (HLW = Hairer, Lubich, Wanner, *Geometric Numerical Integration*, 2nd ed., II.1).
//!
//! For a field `ẏ = f(y)` and a tableau `(a, b, c)` with `a_ij = 0` for `j >= i`:
//!
//! ```text
//!   k_i = f(y + h Σ_{j<i} a_ij k_j),     y_1 = y + h Σ_i b_i k_i.
//! ```

use crate::classical::jacobian::{PhaseJacobian, StepJacobian};
use crate::classical::kernels::{Delta, Matrix, Vector, apply, check_input, checked};
use crate::driver::Increment;
use crate::tableau::Tableau;
use geom_core::GeomError;
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::step::{OneStep, PhaseState, check_step};
use nalgebra::SVector;

/// A state on which explicit Runge–Kutta stages can be combined linearly (a vector space):
/// [`PhaseState<N>`] and `SVector<f64, M>`.
pub trait LinearState: Copy + Send + Sync {
    /// The zero vector.
    fn zero() -> Self;
    /// `self + a x`.
    fn add_scaled(&self, a: f64, x: &Self) -> Self;
    /// Whether every entry is finite.
    fn all_finite(&self) -> bool;
}

impl<const N: usize> LinearState for PhaseState<N> {
    fn zero() -> Self {
        PhaseState::new(Vector::zeros(), Vector::zeros())
    }
    fn add_scaled(&self, a: f64, x: &Self) -> Self {
        PhaseState::new(self.q + x.q * a, self.p + x.p * a)
    }
    fn all_finite(&self) -> bool {
        self.is_finite()
    }
}

impl<const M: usize> LinearState for SVector<f64, M> {
    fn zero() -> Self {
        Self::zeros()
    }
    fn add_scaled(&self, a: f64, x: &Self) -> Self {
        self + x * a
    }
    fn all_finite(&self) -> bool {
        self.iter().all(|v| v.is_finite())
    }
}

/// An autonomous vector field `ẏ = f(y)` on a [`LinearState`] (object-safe). For a
/// [`PhaseState`] the value is the tangent vector `(q̇, ṗ)` stored as a `PhaseState`.
pub trait VectorField<St>: Send + Sync {
    /// `f(y)`; errors (e.g. [`GeomError::NonFinite`]) pass through the step.
    fn eval(&self, y: &St) -> Result<St, GeomError>;
}

/// The Hamiltonian vector field `X_H = (H_p, −H_q)` of `H` on `T*R^N`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HamiltonianField<H>(pub H);

impl<H: PhaseSpaceDerivatives<N>, const N: usize> VectorField<PhaseState<N>> for HamiltonianField<H> {
    fn eval(&self, y: &PhaseState<N>) -> Result<PhaseState<N>, GeomError> {
        let (gq, gp) = self.0.try_gradient(&y.q, &y.p)?;
        Ok(PhaseState::new(gp, -gq))
    }
}

/// An explicit Runge–Kutta method with `S` stages from any explicit [`Tableau`] (HLW II.1):
/// `K_i = f(y + h Σ_{j<i} a_ij K_j)`, `y₁ = y + h Σ_i b_i K_i`. Not symplectic (RK4's
/// `b_i a_ij + b_j a_ji − b_i b_j` does not vanish, HLW Thm VI.4.3): the classical baseline and
/// the negative control of the structure tests. Implements [`OneStep<St>`](OneStep) for every
/// [`VectorField<St>`] on a [`LinearState`], and [`Increment`] / [`StepJacobian`] on phase space.
///
/// ```
/// use integrators::classical::{ExplicitRk, VectorField};
/// use integrators::{tableau, OneStep};
/// use nalgebra::Vector1;
///
/// /// `y' = -y`.
/// struct Decay;
/// impl VectorField<Vector1<f64>> for Decay {
///     fn eval(&self, y: &Vector1<f64>) -> Result<Vector1<f64>, geom_core::GeomError> { Ok(-y) }
/// }
/// let rk4 = ExplicitRk::<_, 4>::new(&tableau::rk4(), Decay)?;
/// let mut y = Vector1::new(1.0);
/// for _ in 0..10 {
///     rk4.step(&mut y, 0.1)?;
/// }
/// assert!((y[0] - (-1f64).exp()).abs() < 1e-6);
/// assert!(ExplicitRk::<_, 1>::new(&tableau::implicit_euler(), Decay).is_err());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ExplicitRk<F, const S: usize> {
    field: F,
    a: [[f64; S]; S],
    b: [f64; S],
    name: String,
    order: u32,
}

impl<F, const S: usize> ExplicitRk<F, S> {
    /// The method of `tableau` for `field`; [`GeomError::InvalidParameter`] unless the tableau is
    /// explicit (`a_ij = 0` for `j >= i`), [`GeomError::DimensionMismatch`] unless it has `S`
    /// stages.
    pub fn new(tableau: &Tableau, field: F) -> Result<Self, GeomError> {
        if !tableau.is_explicit() {
            return Err(GeomError::InvalidParameter {
                what: "explicit Runge-Kutta tableau",
                reason: format!("{} is implicit", tableau.name()),
            });
        }
        let (a, b, _) = tableau.arrays::<S>()?;
        Ok(Self { field, a, b, name: tableau.name().to_string(), order: tableau.order() })
    }
    /// The vector field.
    pub fn field(&self) -> &F {
        &self.field
    }

    fn stages<St: LinearState>(&self, y: &St, h: f64) -> Result<St, GeomError>
    where
        F: VectorField<St>,
    {
        let mut k = [St::zero(); S];
        let mut delta = St::zero();
        for i in 0..S {
            let mut yi = *y;
            for (j, kj) in k.iter().enumerate().take(i) {
                if self.a[i][j] != 0.0 {
                    yi = yi.add_scaled(h * self.a[i][j], kj);
                }
            }
            k[i] = self.field.eval(&yi)?;
            delta = delta.add_scaled(h * self.b[i], &k[i]);
        }
        Ok(delta)
    }
}

impl<F: VectorField<St>, St: LinearState, const S: usize> OneStep<St> for ExplicitRk<F, S> {
    fn name(&self) -> String {
        format!("{} (explicit, not symplectic)", self.name)
    }
    fn order(&self) -> u32 {
        self.order
    }
    fn step(&self, state: &mut St, h: f64) -> Result<(), GeomError> {
        check_step(h)?;
        if !state.all_finite() {
            return Err(GeomError::NonFinite { what: "state before step" });
        }
        let delta = self.stages(state, h)?;
        let next = state.add_scaled(1.0, &delta);
        if !next.all_finite() || !delta.all_finite() {
            return Err(GeomError::NonFinite { what: "state after step" });
        }
        *state = next;
        Ok(())
    }
}

impl<F: VectorField<PhaseState<N>>, const N: usize, const S: usize> Increment<N> for ExplicitRk<F, S> {
    fn increment(&self, state: &PhaseState<N>, h: f64) -> Result<Delta<N>, GeomError> {
        check_step(h)?;
        check_input(state)?;
        let d = self.stages(state, h)?;
        checked(state, (d.q, d.p))
    }
}

/// By the chain rule through the stages: `dY_i = I + h Σ_{j<i} a_ij dK_j`,
/// `dK_i = Df(Y_i) dY_i` with `Df = [[H_pq, H_pp], [−H_qq, −H_qp]]`, `M = I + h Σ b_i dK_i`.
impl<H: PhaseSpaceDerivatives<N>, const N: usize, const S: usize> StepJacobian<N>
    for ExplicitRk<HamiltonianField<H>, S>
{
    fn step_jacobian(&self, state: &PhaseState<N>, h: f64) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError> {
        check_step(h)?;
        check_input(state)?;
        let ham = &self.field.0;
        let zero = PhaseJacobian { qq: Matrix::zeros(), qp: Matrix::zeros(), pq: Matrix::zeros(), pp: Matrix::zeros() };
        let mut k = [PhaseState::<N>::zero(); S];
        let mut dk = [zero; S];
        let mut delta = PhaseState::<N>::zero();
        let mut m = PhaseJacobian::identity();
        for i in 0..S {
            let mut yi = *state;
            let mut dyi = PhaseJacobian::identity();
            for j in 0..i {
                let c = h * self.a[i][j];
                yi = yi.add_scaled(c, &k[j]);
                dyi = add_scaled(&dyi, c, &dk[j]);
            }
            let ((gq, gp), hs) = ham.gradient_and_hessian(&yi.q, &yi.p);
            k[i] = PhaseState::new(gp, -gq);
            let df = PhaseJacobian { qq: hs.qp.transpose(), qp: hs.pp, pq: -hs.qq, pp: -hs.qp };
            dk[i] = df.after(&dyi);
            delta = delta.add_scaled(h * self.b[i], &k[i]);
            m = add_scaled(&m, h * self.b[i], &dk[i]);
        }
        Ok((apply(state, &(delta.q, delta.p))?, m))
    }
}

fn add_scaled<const N: usize>(m: &PhaseJacobian<N>, c: f64, x: &PhaseJacobian<N>) -> PhaseJacobian<N> {
    PhaseJacobian { qq: m.qq + x.qq * c, qp: m.qp + x.qp * c, pq: m.pq + x.pq * c, pp: m.pp + x.pp * c }
}
