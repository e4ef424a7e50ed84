//! Second-order variational equations of a one-step method on `T*R^N`: the second derivatives
//! `∂²x_n/∂s∂r` of the numerical trajectory with respect to two parameters of its initial
//! condition (as REBOUND's second-order variational particles give them: H. Rein & D. S. Tamayo,
//! *Second-order variational equations for N-body simulations*, MNRAS 459 (2016) 2275–2285,
//! arXiv:1603.03424).

use super::tangent::{apply_jacobian, increment_scale};
use crate::classical::StepJacobian;
use geom_core::GeomError;
use geom_core::step::{PhaseState, check_step};

/// The second derivative `D²Φ_h(x)[a, b]` of one step of `method`, by a central difference of
/// its step Jacobian along `a`:
///
/// ```text
///     D²Φ_h(x)[a, b] ≈ (DΦ_h(x + δ a) − DΦ_h(x − δ a)) b / (2δ),
///     δ = r (1 + |x|_∞) / |a|_∞,
/// ```
///
/// with the relative increment `r` (`r = ε^{1/3} ≈ 6·10⁻⁶` by [`SecondOrderVariation`] for a
/// method with an exact Jacobian: the truncation `δ²|D⁴Φ_h| |a|² |b| / 6` and the rounding
/// `ε |DΦ_h| |b| / δ` balance, a relative error of order `ε^{2/3} ≈ 4·10⁻¹¹`). `D²Φ_h(x)` is a
/// symmetric bilinear map; the difference along `a` is symmetric in `(a, b)` to that accuracy.
/// `a = 0` gives `0` exactly. The errors of the step (an invalid `h`, a non-finite state) are
/// returned unchanged; a non-finite result is [`GeomError::NonFinite`].
///
/// ```
/// use integrators::classical::SymplecticEulerA;
/// use integrators::variational_equations::second_derivative;
/// use integrators::PhaseState;
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use nalgebra::{SVector, Vector1};
///
/// /// `H = p²/2 + q³/3`: symplectic Euler (kick first) is `p₁ = p − h q²`, `q₁ = q + h p₁`,
/// /// so `∂²p₁/∂q² = −2h` and `∂²q₁/∂q² = −2h²`.
/// struct Cubic;
/// impl PhaseSpaceFunction<1> for Cubic {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
///         p[0] * p[0] * S::from(0.5) + q[0] * q[0] * q[0] / S::from(3.0)
///     }
/// }
/// let euler = SymplecticEulerA::new(AutoDiff::separable(Cubic));
/// let (x, e_q) = (PhaseState::new(Vector1::new(0.7), Vector1::new(0.2)), PhaseState::new(Vector1::new(1.0), Vector1::new(0.0)));
/// let d2 = second_derivative(&euler, &x, 0.1, &e_q, &e_q, 6e-6)?;
/// assert!((d2.p[0] + 0.2).abs() < 1e-9 && (d2.q[0] + 0.02).abs() < 1e-9, "{d2:?}");
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn second_derivative<M: StepJacobian<N> + ?Sized, const N: usize>(
    method: &M,
    x: &PhaseState<N>,
    h: f64,
    a: &PhaseState<N>,
    b: &PhaseState<N>,
    relative_step: f64,
) -> Result<PhaseState<N>, GeomError> {
    check_step(h)?;
    check_relative_step(relative_step)?;
    if !x.is_finite() || !a.is_finite() || !b.is_finite() {
        return Err(GeomError::NonFinite { what: "point or directions of a second derivative" });
    }
    let size = a.q.amax().max(a.p.amax());
    if size == 0.0 {
        return Ok(PhaseState::new(a.q * 0.0, a.p * 0.0));
    }
    let scale = 1.0 + x.q.amax().max(x.p.amax());
    let delta = relative_step * scale / size;
    let shifted = |s: f64| PhaseState::new(x.q + a.q * (s * delta), x.p + a.p * (s * delta));
    let (_, plus) = method.step_jacobian(&shifted(1.0), h)?;
    let (_, minus) = method.step_jacobian(&shifted(-1.0), h)?;
    let (up, down) = (apply_jacobian(&plus, b), apply_jacobian(&minus, b));
    let d2 = PhaseState::new((up.q - down.q) / (2.0 * delta), (up.p - down.p) / (2.0 * delta));
    if d2.is_finite() { Ok(d2) } else { Err(GeomError::NonFinite { what: "second derivative of the step" }) }
}

fn check_relative_step(r: f64) -> Result<(), GeomError> {
    if r.is_finite() && r > 0.0 && r < 1.0 {
        Ok(())
    } else {
        Err(GeomError::InvalidParameter { what: "relative difference step", reason: format!("{r} is not in (0, 1)") })
    }
}

/// The first- and second-order variational equations along a numerical trajectory.
///
/// For initial conditions `x₀(s, r) = x₀ + s a₀ + r b₀` the trajectory `x_n(s, r) = Φ_h^n(x₀(s, r))`
/// has the first derivatives `a_n = ∂x_n/∂s`, `b_n = ∂x_n/∂r` and the mixed second derivative
/// `c_n = ∂²x_n/∂s∂r` at `s = r = 0`, which obey (chain rule through one step, `c₀ = 0`)
///
/// ```text
///     x_{k+1} = Φ_h(x_k),
///     a_{k+1} = DΦ_h(x_k) a_k,          b_{k+1} = DΦ_h(x_k) b_k,
///     c_{k+1} = DΦ_h(x_k) c_k + D²Φ_h(x_k)[a_k, b_k].
/// ```
///
/// `a₀ = b₀` gives the second derivative `∂²x_n/∂s²` along one direction. These are the
/// variational equations of the map actually stepped (the method's own, as for
/// [`LyapunovSpectrum`](super::LyapunovSpectrum)), not a discretisation of the continuous
/// second-order variational equation. `DΦ_h` is the method's [`StepJacobian`] and `D²Φ_h` its
/// central difference ([`second_derivative`]): with an exact Jacobian (the classical methods)
/// `c_n` carries a relative error of order `ε^{2/3}` per step; with the finite-difference
/// Jacobian of [`FiniteDifference`](super::FiniteDifference) (itself `ε^{2/3}`-accurate) take a
/// larger increment, [`SecondOrderVariation::with_relative_step`]`(ε^{2/9} ≈ 3·10⁻⁴)`, for an
/// error of order `ε^{4/9} ≈ 10⁻⁷`. Cost: three step Jacobians a step.
///
/// ```
/// use integrators::classical::StormerVerlet;
/// use integrators::variational_equations::SecondOrderVariation;
/// use integrators::PhaseState;
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use nalgebra::{SVector, Vector1};
///
/// /// The harmonic oscillator: the step is linear, its second derivative is zero.
/// struct Oscillator;
/// impl PhaseSpaceFunction<1> for Oscillator {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
///         (p[0] * p[0] + q[0] * q[0]) * S::from(0.5)
///     }
/// }
/// let sv = StormerVerlet::new(AutoDiff::separable(Oscillator));
/// let x = PhaseState::new(Vector1::new(1.0), Vector1::new(0.0));
/// let e = PhaseState::new(Vector1::new(1.0), Vector1::new(0.0));
/// let mut v = SecondOrderVariation::new(x, e, e, 0.1)?;
/// v.advance(&sv, 100)?;
/// assert_eq!((v.second().q[0], v.second().p[0]), (0.0, 0.0));
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SecondOrderVariation<const N: usize> {
    state: PhaseState<N>,
    a: PhaseState<N>,
    b: PhaseState<N>,
    c: PhaseState<N>,
    h: f64,
    relative_step: f64,
    steps: u64,
}

impl<const N: usize> SecondOrderVariation<N> {
    /// Start at `state` with the first-order deviations `a`, `b`, the second-order one `c = 0`,
    /// and the step `h`. [`GeomError::InvalidStep`] for a zero or non-finite `h`;
    /// [`GeomError::NonFinite`] for a non-finite state or deviation.
    pub fn new(state: PhaseState<N>, a: PhaseState<N>, b: PhaseState<N>, h: f64) -> Result<Self, GeomError> {
        check_step(h)?;
        if !state.is_finite() || !a.is_finite() || !b.is_finite() {
            return Err(GeomError::NonFinite { what: "second-order variation initial state or deviations" });
        }
        let zero = PhaseState::new(a.q * 0.0, a.p * 0.0);
        Ok(Self { state, a, b, c: zero, h, relative_step: increment_scale(), steps: 0 })
    }

    /// The relative increment `r` of the central difference of the Jacobian
    /// ([`second_derivative`]); `ε^{1/3}` unless set. [`GeomError::InvalidParameter`] unless
    /// `0 < r < 1`.
    pub fn with_relative_step(mut self, r: f64) -> Result<Self, GeomError> {
        check_relative_step(r)?;
        self.relative_step = r;
        Ok(self)
    }

    /// Advance `n` steps of `method`. All or nothing: on an error at any step `self` is left
    /// exactly as it was.
    pub fn advance<M: StepJacobian<N> + ?Sized>(&mut self, method: &M, n: usize) -> Result<(), GeomError> {
        let mut work = *self;
        for _ in 0..n {
            let (next, m) = method.step_jacobian(&work.state, work.h)?;
            let d2 = second_derivative(method, &work.state, work.h, &work.a, &work.b, work.relative_step)?;
            let c = apply_jacobian(&m, &work.c);
            work.c = PhaseState::new(c.q + d2.q, c.p + d2.p);
            work.a = apply_jacobian(&m, &work.a);
            work.b = apply_jacobian(&m, &work.b);
            if !(work.a.is_finite() && work.b.is_finite() && work.c.is_finite()) {
                return Err(GeomError::NonFinite { what: "variational vectors" });
            }
            work.state = next;
            work.steps += 1;
        }
        *self = work;
        Ok(())
    }

    /// The current state `x_n`.
    pub fn state(&self) -> &PhaseState<N> {
        &self.state
    }
    /// The first-order deviations `(a_n, b_n) = (∂x_n/∂s, ∂x_n/∂r)`.
    pub fn first(&self) -> (&PhaseState<N>, &PhaseState<N>) {
        (&self.a, &self.b)
    }
    /// The second-order deviation `c_n = ∂²x_n/∂s∂r`.
    pub fn second(&self) -> &PhaseState<N> {
        &self.c
    }
    /// The time `t = n h`.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.h
    }
}
