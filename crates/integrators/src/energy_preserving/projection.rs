//! Symmetric projection of a symmetric one-step method onto the level set of invariants
//! (Hairer 2000; Hairer, Lubich & Wanner, *Geometric Numerical Integration*, §IV.4).

use geom_core::function::{PhaseSpaceFunction, ad_jacobian_of};
use geom_core::newton::{NewtonOptions, newton_split};
use geom_core::step::{OneStep, PhaseState, check_step};
use geom_core::{GeomError, Scalar};
use nalgebra::{SMatrix, SVector};
use num_dual::{Dual64, DualSVec64};
use std::cell::Cell;

/// `(∂g/∂q, ∂g/∂p)`, `K × N` each.
type Jacobian<const N: usize, const K: usize> = (SMatrix<f64, K, N>, SMatrix<f64, K, N>);

/// The default residual tolerance of [`SymmetricProjection`] (its documentation says why it is
/// below [`geom_core::newton::INTEGRATOR_TOL`]).
pub const PROJECTION_RESIDUAL_TOL: f64 = 1e-17;

/// The default step tolerance of [`SymmetricProjection`] (its documentation says why).
pub const PROJECTION_STEP_TOL: f64 = 1e-16;

/// `K` invariants `g(q, p) ∈ R^K` on `T*R^N`, written once and generic over the scalar (their
/// gradients are taken by forward AD, [`ad_jacobian_of`]).
///
/// ```
/// use geom_core::Scalar;
/// use integrators::energy_preserving::Invariants;
/// use nalgebra::SVector;
///
/// /// Kepler's energy and angular momentum.
/// struct EnergyAndMomentum;
/// impl Invariants<2, 2> for EnergyAndMomentum {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> SVector<S, 2> {
///         let energy = p.norm_squared() * S::from(0.5) - q.norm().recip();
///         SVector::from([energy, q[0] * p[1] - q[1] * p[0]])
///     }
/// }
/// let g = EnergyAndMomentum.eval(&SVector::from([1.0, 0.0]), &SVector::from([0.0, 1.0]));
/// assert_eq!((g[0], g[1]), (-0.5, 1.0));
/// ```
pub trait Invariants<const N: usize, const K: usize>: Send + Sync {
    /// `g(q, p)`.
    fn eval<S: Scalar>(&self, q: &SVector<S, N>, p: &SVector<S, N>) -> SVector<S, K>;
}

/// One invariant written as a [`PhaseSpaceFunction`] (a Hamiltonian, a momentum) as
/// [`Invariants<N, 1>`](Invariants).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Invariant<F>(pub F);

impl<F: PhaseSpaceFunction<N>, const N: usize> Invariants<N, 1> for Invariant<F> {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, N>, p: &SVector<S, N>) -> SVector<S, 1> {
        SVector::from([self.0.eval(q, p)])
    }
}

/// The symmetric projection method of E. Hairer, *Symmetric projection methods for
/// differential equations on manifolds*, BIT 40 (2000) 726–734 (Hairer, Lubich & Wanner,
/// *Geometric Numerical Integration*, 2nd ed., §IV.4):
/// a symmetric one-step method `Φ_h` on `T*R^N` and invariants `g: R^{2N} → R^K` with Jacobian
/// `G = ∂g/∂(q, p)` (`K × 2N`) give the step `y₀ ↦ y₁`
///
/// ```text
///     ỹ₀ = y₀ + G(y₀)ᵀ λ,      ỹ₁ = Φ_h(ỹ₀),      y₁ = ỹ₁ + G(y₁)ᵀ λ,      g(y₁) = g(y₀),
/// ```
///
/// with the same `λ ∈ R^K` at both ends. The result stays on the level set of `g` (to the
/// Newton tolerance: the invariants of a run hold to round-off) and is **symmetric**
/// (replacing `(h, λ, y₀, y₁)` by `(−h, −λ, y₁, y₀)` gives the same equations when
/// `Φ_{−h} = Φ_h^{-1}`), so it keeps the order of `Φ_h` (`O(h^{p+1})` perturbations at both ends)
/// and the long-time behaviour of a symmetric method; a standard (non-symmetric) projection
/// would lose it. It is not symplectic (module documentation).
///
/// **Solve.** `λ` solves `F(λ) = (g(y₁(λ)) − g(y₀)) / (1 + |g(y₀)|_∞) = 0` (relative to the size
/// of the invariants, so that one tolerance fits every scale) by the workspace's Newton solver
/// ([`newton_split`], `K` unknowns) from `λ = 0`, with the simplified Jacobian
///
/// ```text
///     ∂F/∂λ = G(y₁) (DΦ_h(ỹ₀) G(y₀)ᵀ + G(y₁)ᵀ) / (1 + |g(y₀)|_∞)
///           ≈ (G(y₀) G(y₀)ᵀ + G(y₁) G(y₁)ᵀ) / (1 + |g(y₀)|_∞)
/// ```
///
/// at the first iterate (`y₁ = Φ_h(y₀)`), factored once per step: when `Φ_h` conserves `g` to
/// its order, `g(Φ_h(y)) = g(y) + O(h^{p+1})`, so `G(y₁) DΦ_h(ỹ₀) = G(ỹ₀) + O(h^{p+1})` and the
/// iteration contracts by `O(|λ|) + O(h^{p+1})`. (The cruder `2 G(y₀) G(y₀)ᵀ` is off by
/// `O(h)`: 7–10 iterations per step instead of 1–3 for the pendulum at `h = 0.1`.)
///
/// Each residual takes one step of `Φ_h` and solves `y₁ = ỹ₁ + G(y₁)ᵀ λ` by fixed-point
/// iteration (a contraction by `|λ| |∇²g| = O(h^{p+1})`) from `y₁ = ỹ₁ + Gᵀλ`, `G` the Jacobian
/// of the invariants evaluated last (at the end point of the previous `λ`, or within the
/// tolerance of it; `G(ỹ₁)` when there is none), until successive iterates differ by at most
/// `4ε (1 + |y₁|_∞)` ([`GeomError::NotConverged`] after the options'
/// `max_iterations`). A singular `G Gᵀ` (an invariant with zero gradient at `y₀`, or dependent
/// invariants) is
/// [`GeomError::SingularMatrix`].
///
/// The default options are [`NewtonOptions::simplified`] with the tolerances
/// [`PROJECTION_RESIDUAL_TOL`] `= 1e-17` and [`PROJECTION_STEP_TOL`] `= 1e-16`, below the
/// integrator preset's `1e-14`, for two reasons measured on Hénon–Heiles (Gauss 2, `h = 0.1`,
/// `|H| ≈ 0.14`, maximum energy error over 10⁵ steps):
///
/// * `λ = O(h^{p+1})` is tiny, so the step test `|Δλ| <= step_tol (1 + |λ|)` is in effect
///   absolute; at `1e-14` it accepted `λ` with an error that left `|g(y₁) − g(y₀)| ≈ 1e-14` in
///   every step (`5e-12`);
/// * with `1e-16` for both, the residual test accepts the first iterate within one or two ulps
///   of `g`, which the iteration approaches from one side, a bias that accumulates (`1e-13`);
///   a residual tolerance below one ulp iterates on until the residual is zero or stalls at its
///   rounding floor, which the solver's round-off test accepts (`≤ 100 × 1e-17`), with no
///   preferred side (`3.4e-14` when measured, `4.8e-15` since the end point's warm start: the
///   round-off of the discrete gradient methods, `2.5e-15 … 1.4e-14`).
///
/// ```
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use integrators::classical::Gauss2;
/// use integrators::energy_preserving::{Invariant, SymmetricProjection};
/// use integrators::{OneStep, PhaseState};
/// use nalgebra::SVector;
///
/// /// Kepler, `H = |p|²/2 − 1/|q|`.
/// #[derive(Clone, Copy)]
/// struct Kepler;
/// impl PhaseSpaceFunction<2> for Kepler {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
///         p.norm_squared() * S::from(0.5) - q.norm().recip()
///     }
/// }
/// let method = SymmetricProjection::new(Gauss2::new(AutoDiff(Kepler))?, Invariant(Kepler))?;
/// assert_eq!((method.order(), method.is_symmetric()), (4, true));
/// let mut s = PhaseState::new(SVector::from([0.4, 0.0]), SVector::from([0.0, 2.0]));
/// let e0 = Kepler.eval(&s.q, &s.p);
/// for _ in 0..1000 {
///     method.step(&mut s, 0.02)?;
/// }
/// assert!((Kepler.eval(&s.q, &s.p) - e0).abs() < 1e-13);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct SymmetricProjection<M, G, const N: usize, const K: usize> {
    method: M,
    invariants: G,
    newton: NewtonOptions,
}

impl<M: OneStep<PhaseState<N>>, G: Invariants<N, K>, const N: usize, const K: usize> SymmetricProjection<M, G, N, K> {
    /// The symmetric projection of `method` onto the level sets of `invariants`, with the
    /// default options (type documentation); [`GeomError::InvalidParameter`] if `method` is not
    /// symmetric ([`OneStep::is_symmetric`]: the projection would not be either) or `K = 0`.
    pub fn new(method: M, invariants: G) -> Result<Self, GeomError> {
        if !method.is_symmetric() {
            return Err(GeomError::InvalidParameter {
                what: "method",
                reason: format!("the symmetric projection needs a symmetric method, and {} is not", method.name()),
            });
        }
        if K == 0 {
            return Err(GeomError::InvalidParameter { what: "invariants", reason: "at least one is needed".into() });
        }
        let newton = NewtonOptions {
            residual_tol: PROJECTION_RESIDUAL_TOL,
            step_tol: PROJECTION_STEP_TOL,
            ..NewtonOptions::simplified()
        };
        Ok(Self { method, invariants, newton })
    }

    /// The same projection with other Newton options (for `λ` and the fixed point of `y₁`).
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }

    /// The projected method.
    pub fn method(&self) -> &M {
        &self.method
    }

    /// The invariants.
    pub fn invariants(&self) -> &G {
        &self.invariants
    }

    /// The Newton options.
    pub fn newton_options(&self) -> &NewtonOptions {
        &self.newton
    }

    /// `g(y)`.
    #[inline]
    fn values(&self, y: &PhaseState<N>) -> SVector<f64, K> {
        self.invariants.eval::<f64>(&y.q, &y.p)
    }

    /// `(∂g/∂q, ∂g/∂p)` at `y` by forward AD (`K × N` each), or [`GeomError::NonFinite`].
    /// Always inlined: the fixed-point iteration of the end point waits on it.
    #[inline(always)]
    fn jacobian(&self, y: &PhaseState<N>) -> Result<(SMatrix<f64, K, N>, SMatrix<f64, K, N>), GeomError> {
        let g = &self.invariants;
        let gq = ad_jacobian_of::<N, K>(
            &y.q,
            |q: &SVector<Dual64, N>| Ok(g.eval(q, &y.p.map(Dual64::from_re))),
            |q: &SVector<DualSVec64<N>, N>| Ok(g.eval(q, &y.p.map(DualSVec64::<N>::from_re))),
        )?;
        let gp = ad_jacobian_of::<N, K>(
            &y.p,
            |p: &SVector<Dual64, N>| Ok(g.eval(&y.q.map(Dual64::from_re), p)),
            |p: &SVector<DualSVec64<N>, N>| Ok(g.eval(&y.q.map(DualSVec64::<N>::from_re), p)),
        )?;
        geom_core::error::check_finite(gq.iter().chain(gp.iter()), "invariant gradient")?;
        Ok((gq, gp))
    }

    /// `y₁(λ)`: `ỹ₁ = Φ_h(y₀ + G(y₀)ᵀλ)`, then `y₁ = ỹ₁ + G(y₁)ᵀλ` by fixed-point iteration,
    /// whose first iterate is `ỹ₁ + G_startᵀλ` with `start` the Jacobian of the invariants at
    /// the end point of the previous `λ` (or `G(ỹ₁)` without one). Returns `y₁` and the last
    /// Jacobian evaluated (at the iterate before `y₁`, within the tolerance of it), the `start`
    /// of the next call.
    fn endpoint(
        &self,
        y0: &PhaseState<N>,
        g0: &Jacobian<N, K>,
        lambda: &SVector<f64, K>,
        h: f64,
        start: Option<&Jacobian<N, K>>,
    ) -> Result<(PhaseState<N>, Option<Jacobian<N, K>>), GeomError> {
        let mut end = PhaseState::new(y0.q + g0.0.tr_mul(lambda), y0.p + g0.1.tr_mul(lambda));
        self.method.step(&mut end, h)?;
        if lambda.iter().all(|l| *l == 0.0) {
            return Ok((end, None));
        }
        let (mut gq, mut gp) = match start {
            Some(g) => *g,
            None => self.jacobian(&end)?,
        };
        let mut y1 = PhaseState::new(end.q + gq.tr_mul(lambda), end.p + gp.tr_mul(lambda));
        let mut change = f64::INFINITY;
        for _ in 0..self.newton.max_iterations {
            (gq, gp) = self.jacobian(&y1)?;
            let next = PhaseState::new(end.q + gq.tr_mul(lambda), end.p + gp.tr_mul(lambda));
            change = (next.q - y1.q).amax().max((next.p - y1.p).amax());
            y1 = next;
            if change <= 4.0 * f64::EPSILON * (1.0 + y1.q.amax().max(y1.p.amax())) {
                return Ok((y1, Some((gq, gp))));
            }
        }
        let residual = if change.is_finite() { change } else { f64::NAN };
        Err(GeomError::NotConverged { iterations: self.newton.max_iterations, residual, step: change })
    }
}

impl<M: OneStep<PhaseState<N>>, G: Invariants<N, K>, const N: usize, const K: usize> OneStep<PhaseState<N>>
    for SymmetricProjection<M, G, N, K>
{
    fn name(&self) -> String {
        format!("symmetric projection of {}", self.method.name())
    }
    fn order(&self) -> u32 {
        self.method.order()
    }
    fn is_symmetric(&self) -> bool {
        true
    }
    fn step(&self, state: &mut PhaseState<N>, h: f64) -> Result<(), GeomError> {
        check_step(h)?;
        let y0 = *state;
        if !y0.is_finite() {
            return Err(GeomError::NonFinite { what: "state before step" });
        }
        let target = self.values(&y0);
        let scale = 1.0 / (1.0 + target.amax());
        let g0 = self.jacobian(&y0)?;
        let gram0 = g0.0 * g0.0.transpose() + g0.1 * g0.1.transpose();
        // the last residual's λ and endpoint: for the Jacobian at that λ, and reused when Newton
        // returns the λ it was computed at; the last Jacobian of the invariants evaluated (at
        // that endpoint or within the tolerance of it), the first iterate of the next endpoint
        let last: Cell<Option<(SVector<f64, K>, PhaseState<N>)>> = Cell::new(None);
        let start: Cell<Option<Jacobian<N, K>>> = Cell::new(None);
        let endpoint = |lambda: &SVector<f64, K>| {
            let (y1, g) = self.endpoint(&y0, &g0, lambda, h, start.get().as_ref())?;
            if g.is_some() {
                start.set(g);
            }
            Ok::<_, GeomError>(y1)
        };
        let (lambda, _) = newton_split(
            |lambda: &SVector<f64, K>| {
                let y1 = endpoint(lambda)?;
                last.set(Some((*lambda, y1)));
                Ok((self.values(&y1) - target) * scale)
            },
            |_: &SVector<f64, K>| {
                // called after the residual at the same λ
                let (gq, gp) = match last.get() {
                    Some((_, y1)) => {
                        let g = self.jacobian(&y1)?;
                        start.set(Some(g));
                        g
                    }
                    None => g0,
                };
                Ok((gram0 + gq * gq.transpose() + gp * gp.transpose()) * scale)
            },
            &SVector::zeros(),
            &self.newton,
        )?;
        let y1 = match last.get() {
            Some((l, y1)) if l.iter().zip(lambda.iter()).all(|(a, b)| a.to_bits() == b.to_bits()) => y1,
            _ => endpoint(&lambda)?,
        };
        if !y1.is_finite() {
            return Err(GeomError::NonFinite { what: "state after step" });
        }
        *state = y1;
        Ok(())
    }
}
