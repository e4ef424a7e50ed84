//! The tangent map `δx ↦ DΦ_h(x) δx` of a one-step method on `T*R^N`.
//!
//! The Jacobian `M = DΦ_h(x) = ∂(q₁, p₁)/∂(q, p)` comes from the trait
//! [`StepJacobian`]: exact for the classical methods (their own linearisation), by central
//! differences for any other [`OneStep<PhaseState<N>>`] wrapped in [`FiniteDifference`].
//! A deviation vector `δx = (δq, δp)` is stored as a [`PhaseState<N>`] (as the crate stores the
//! values of vector fields) and mapped by [`apply_jacobian`].

use crate::classical::{PhaseJacobian, StepJacobian};
use geom_core::GeomError;
use geom_core::step::{OneStep, PhaseState, check_step};
use nalgebra::SVector;

/// `M δx = (M_qq δq + M_qp δp, M_pq δq + M_pp δp)`: the image of the deviation vector
/// `δx = (δq, δp)` under the step Jacobian `M`.
///
/// ```
/// use integrators::classical::PhaseJacobian;
/// use integrators::variational_equations::apply_jacobian;
/// use integrators::PhaseState;
/// use nalgebra::Vector1;
///
/// // the drift of a free particle, q₁ = q + h p with h = 2
/// let mut m = PhaseJacobian::<1>::identity();
/// m.qp[(0, 0)] = 2.0;
/// let v = apply_jacobian(&m, &PhaseState::new(Vector1::new(0.0), Vector1::new(1.0)));
/// assert_eq!((v.q[0], v.p[0]), (2.0, 1.0));
/// ```
#[inline]
pub fn apply_jacobian<const N: usize>(m: &PhaseJacobian<N>, v: &PhaseState<N>) -> PhaseState<N> {
    PhaseState::new(m.qq * v.q + m.qp * v.p, m.pq * v.q + m.pp * v.p)
}

/// A one-step method `Φ_h` on the states `S` together with its tangent map in coordinates
/// `δx = (a, b) ∈ R^N × R^N` (stored as a [`PhaseState<N>`], `a` in `q` and `b` in `p`): the
/// interface of [`LyapunovSpectrum`](super::LyapunovSpectrum) and [`Megno`](super::Megno).
///
/// `tangent_step(x, h) = (Φ_h(x), M)` with `M = [[∂a₁/∂a, ∂a₁/∂b], [∂b₁/∂a, ∂b₁/∂b]]` the
/// Jacobian of the step read in a chart `ψ_x(a, b)` at the state `x` (`ψ_x(0, 0) = x`) and in the
/// chart `ψ_{Φ_h(x)}` at its image, the same family of charts at every state, so that the
/// deviation carried by `M_{n−1} ⋯ M_0` is the derivative of the `n`-step map in the charts at
/// `x_0` and `x_n` (chain rule):
///
/// * on `T*R^N` the identity chart, `δx = (δq, δp)`: every [`StepJacobian<N>`] (the classical
///   methods' exact Jacobian, or [`FiniteDifference`]) is a `TangentMap<PhaseState<N>, N>`;
/// * on `T*G` (`S = LieState<E, D>`, `N = D`) the left-trivialized chart
///   `ψ_{(g, μ)}(η, δμ) = (g exp(η), μ + δμ)`:
///   [`LieFiniteDifference`](super::LieFiniteDifference).
///
/// [`check_state`](Self::check_state) validates a starting state (the spectra call it in their
/// constructors).
pub trait TangentMap<S, const N: usize>: Send + Sync {
    /// `(Φ_h(x), DΦ_h(x))` in the charts at `x` and `Φ_h(x)`; the same errors as the step.
    fn tangent_step(&self, state: &S, h: f64) -> Result<(S, PhaseJacobian<N>), GeomError>;
    /// `Ok(())` if `state` can be stepped from (finite, on its manifold), else a typed error
    /// ([`GeomError::NonFinite`], [`GeomError::OffManifold`]).
    fn check_state(&self, state: &S) -> Result<(), GeomError>;
}

/// `Ok(())` for a finite state of `T*R^N`, else [`GeomError::NonFinite`].
pub(crate) fn check_phase_state<const N: usize>(state: &PhaseState<N>) -> Result<(), GeomError> {
    if state.is_finite() { Ok(()) } else { Err(GeomError::NonFinite { what: "initial state" }) }
}

/// A method with its step Jacobian on `T*R^N` is a tangent map in the identity chart.
impl<M: StepJacobian<N> + ?Sized, const N: usize> TangentMap<PhaseState<N>, N> for M {
    #[inline]
    fn tangent_step(&self, state: &PhaseState<N>, h: f64) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError> {
        self.step_jacobian(state, h)
    }
    fn check_state(&self, state: &PhaseState<N>) -> Result<(), GeomError> {
        check_phase_state(state)
    }
}

/// The Euclidean inner product `⟨a, b⟩ = a_q·b_q + a_p·b_p` of two deviation vectors.
#[inline]
pub(crate) fn dot<const N: usize>(a: &PhaseState<N>, b: &PhaseState<N>) -> f64 {
    a.q.dot(&b.q) + a.p.dot(&b.p)
}

/// Any one-step method on `T*R^N` with its step Jacobian by central differences: the fallback
/// tangent map of a method that does not differentiate itself (a composition, a splitting of
/// exact flows, a user's integrator).
///
/// Column `j` of `M = DΦ_h(x)` is
///
/// ```text
///     M e_j ≈ (Φ_h(x + δ_j e_j) − Φ_h(x − δ_j e_j)) / (2 δ_j),    δ_j = ε^{1/3} (1 + |x_j|),
/// ```
///
/// with `ε` the machine epsilon (`ε^{1/3} ≈ 6·10⁻⁶`): the truncation error
/// `δ² |D³Φ_h| / 6` and the rounding error `ε |Φ_h| / δ` are balanced, and the entries of `M`
/// carry a relative error of order `ε^{2/3} ≈ 4·10⁻¹¹` (an implicit step solved to a Newton
/// tolerance `τ` adds `τ / δ`). Cost: `4N` steps per Jacobian. A symplectic method's `M` is
/// then symplectic only to that accuracy, not to round-off.
///
/// It is also the method itself: [`OneStep`] is forwarded unchanged.
///
/// ```
/// use integrators::classical::{StepJacobian, StormerVerlet};
/// use integrators::variational_equations::FiniteDifference;
/// use integrators::PhaseState;
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use nalgebra::{SVector, Vector1};
///
/// /// Pendulum `H = p²/2 − cos q`.
/// struct Pendulum;
/// impl PhaseSpaceFunction<1> for Pendulum {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
///         p[0] * p[0] * S::from(0.5) - q[0].cos()
///     }
/// }
/// let exact = StormerVerlet::new(AutoDiff::separable(Pendulum));
/// let fd = FiniteDifference::new(StormerVerlet::new(AutoDiff::separable(Pendulum)));
/// let x = PhaseState::new(Vector1::new(0.4), Vector1::new(1.0));
/// let ((_, a), (_, b)) = (exact.step_jacobian(&x, 0.1)?, fd.step_jacobian(&x, 0.1)?);
/// assert!((a.to_dmatrix() - b.to_dmatrix()).amax() < 1e-9);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FiniteDifference<M>(pub M);

impl<M> FiniteDifference<M> {
    /// The method `method`, with its Jacobian by central differences.
    pub fn new(method: M) -> Self {
        Self(method)
    }

    /// The wrapped method.
    pub fn method(&self) -> &M {
        &self.0
    }
}

/// The relative increment `ε^{1/3}` of the central differences.
pub(crate) fn increment_scale() -> f64 {
    f64::EPSILON.cbrt()
}

impl<M: OneStep<PhaseState<N>>, const N: usize> StepJacobian<N> for FiniteDifference<M> {
    fn step_jacobian(&self, state: &PhaseState<N>, h: f64) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError> {
        check_step(h)?;
        let mut next = *state;
        self.0.step(&mut next, h)?;
        let scale = increment_scale();
        let m = central_difference_columns(
            |j| {
                // word j of (q, p)
                let x = if j < N { state.q[j] } else { state.p[j - N] };
                let d = scale * (1.0 + x.abs());
                let shifted = |s: f64| {
                    let mut y = *state;
                    if j < N {
                        y.q[j] += s * d;
                    } else {
                        y.p[j - N] += s * d;
                    }
                    y
                };
                let (mut plus, mut minus) = (shifted(1.0), shifted(-1.0));
                self.0.step(&mut plus, h)?;
                self.0.step(&mut minus, h)?;
                Ok(((plus.q - minus.q) / (2.0 * d), (plus.p - minus.p) / (2.0 * d)))
            },
            "finite-difference step Jacobian",
        )?;
        Ok((next, m))
    }
}

/// The Jacobian `M` assembled column by column, `M e_j = column(j)` for `j = 0..2N` (the first
/// `N` columns the `q`-columns `(qq, pq)`, the last `N` the `p`-columns `(qp, pp)`), each column a
/// pair `(upper half, lower half)`: the common loop of the central differences on `T*R^N`
/// ([`FiniteDifference`]) and on `T*G` ([`LieFiniteDifference`](super::LieFiniteDifference)).
/// The first error of `column` is returned; a non-finite entry is [`GeomError::NonFinite`] with
/// `what`.
pub(crate) fn central_difference_columns<const N: usize>(
    mut column: impl FnMut(usize) -> Result<(SVector<f64, N>, SVector<f64, N>), GeomError>,
    what: &'static str,
) -> Result<PhaseJacobian<N>, GeomError> {
    let mut m = PhaseJacobian::<N>::identity();
    for j in 0..2 * N {
        let (upper, lower) = column(j)?;
        if j < N {
            m.qq.set_column(j, &upper);
            m.pq.set_column(j, &lower);
        } else {
            m.qp.set_column(j - N, &upper);
            m.pp.set_column(j - N, &lower);
        }
    }
    if m.qq.iter().chain(m.qp.iter()).chain(m.pq.iter()).chain(m.pp.iter()).all(|v| v.is_finite()) {
        Ok(m)
    } else {
        Err(GeomError::NonFinite { what })
    }
}

impl<M: OneStep<PhaseState<N>>, const N: usize> OneStep<PhaseState<N>> for FiniteDifference<M> {
    fn name(&self) -> String {
        self.0.name()
    }
    fn order(&self) -> u32 {
        self.0.order()
    }
    fn is_symmetric(&self) -> bool {
        self.0.is_symmetric()
    }
    fn step(&self, state: &mut PhaseState<N>, h: f64) -> Result<(), GeomError> {
        self.0.step(state, h)
    }
    fn step_n(&self, state: &mut PhaseState<N>, h: f64, n: usize) -> Result<(), GeomError> {
        self.0.step_n(state, h, n)
    }
}
