//! Functions on phase space (and on a vector space) with exact first and second derivatives.
//!
//! A model is written **once**, generic over the [`Scalar`] (docs/architecture.md,
//! "Derivatives: one model function, many number types"):
//!
//! * [`PhaseSpaceFunction<N>`]: `f(q, p)` with `q, p ∈ R^N` — a Hamiltonian `H(q, p)`, a Lagrangian
//!   `L(q, v)` (read `p` as the velocity `v`), or a discrete Lagrangian `L_d(q_0, q_1)` (read `q, p`
//!   as `q_0, q_1`);
//! * [`ScalarFunction<N>`]: `f(x)` with `x ∈ R^N` — a potential `V(q)`, a constraint `phi^a(q)`.
//!
//! The integrators consume the object-safe traits [`PhaseSpaceDerivatives<N>`] and
//! [`ScalarDerivatives<N>`] (`value`, `gradient`, `hessian` at `f64`). [`AutoDiff`] implements them
//! for any model through `num-dual`:
//!
//! * gradient: `∂f/∂q` seeded in `q` (with `p` lifted as a constant) and `∂f/∂p` seeded in `p`,
//!   each by `N` one-direction `Dual64` passes for `N <= 4` ([`DIRECTIONAL_GRADIENT_MAX`]: no
//!   optional derivative storage, the independent passes overlap) or one `DualSVec64<N>` pass;
//! * Hessian: one-direction hyper-dual passes ([`crate::hyper_dual`]): `N(N + 1)/2` in `q` and
//!   as many in `p` for the diagonal blocks `∂²f/∂q²`, `∂²f/∂p²` (with the gradient), `N²` for the
//!   mixed block `∂²f/∂q∂p` (see [`Hessian`]).
//!
//! Hand-written derivatives implement the object-safe traits directly (for speed) and are checked
//! against the AD ones with [`check_against_ad`] / [`check_scalar_against_ad`].
//!
//! The plain methods (`value`, `gradient`, `hessian`) are the unchecked hot-loop path; the `try_*`
//! default methods validate that the input and the output are finite and report
//! [`GeomError::NonFinite`] otherwise.

use crate::error::check_finite;
use crate::hyper_dual;
use crate::{GeomError, Result, Scalar};
use nalgebra::{DMatrix, SMatrix, SVector};
use num_dual::{Dual64, DualSVec64};

/// A real function `f(q, p)` on phase space `T*Q ≅ R^N × R^N` (or on `TQ`, or on `Q × Q`), written
/// once and generic over the scalar.
///
/// Evaluating at `S = f64` gives the value; evaluating at dual numbers gives exact derivatives
/// (used by [`AutoDiff`]). Not object-safe (the method is generic); wrap it in [`AutoDiff`] to get
/// a [`PhaseSpaceDerivatives<N>`] trait object.
///
/// ```
/// use geom_core::function::PhaseSpaceFunction;
/// use geom_core::Scalar;
/// use nalgebra::SVector;
///
/// /// Pendulum `H(q, p) = p²/2 - cos q`.
/// struct Pendulum;
/// impl PhaseSpaceFunction<1> for Pendulum {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
///         p[0] * p[0] * S::from(0.5) - q[0].cos()
///     }
/// }
/// let h = Pendulum.eval(&SVector::from([0.0]), &SVector::from([2.0]));
/// assert_eq!(h, 1.0);
/// ```
pub trait PhaseSpaceFunction<const N: usize>: Send + Sync {
    /// `f(q, p)`.
    fn eval<S: Scalar>(&self, q: &SVector<S, N>, p: &SVector<S, N>) -> S;
}

/// A discrete Lagrangian on `Q × Q`, `Q = R^N`, for every step: `L_d(q₀, q₁; h)`, written once
/// and generic over the scalar (exact derivatives by num-dual, also in the step `h`). The one way
/// the step size reaches a discrete Lagrangian on `R^N`: the variational integrator
/// (`integrators::variational`) evaluates it at the step it is asked to take, the time-adaptive
/// flows of the groupoid layer (`groupoid::time_dependent`) differentiate it in `h`.
///
/// ```
/// use geom_core::function::StepLagrangian;
/// use geom_core::Scalar;
/// use nalgebra::SVector;
///
/// /// The midpoint `L_d = h (|q₁ − q₀|²/2h² − V((q₀ + q₁)/2))` of `V(q) = q²/2`.
/// struct Midpoint;
/// impl StepLagrangian<1> for Midpoint {
///     fn eval<S: Scalar>(&self, q0: &SVector<S, 1>, q1: &SVector<S, 1>, h: S) -> S {
///         let (v, x) = ((q1[0] - q0[0]) / h, (q0[0] + q1[0]) * S::from(0.5));
///         (v * v - x * x) * S::from(0.5) * h
///     }
/// }
/// let ld: f64 = Midpoint.eval(&SVector::from([0.0]), &SVector::from([0.2]), 0.1);
/// assert!((ld - 0.5 * (4.0 - 0.01) * 0.1).abs() < 1e-15);
/// ```
pub trait StepLagrangian<const N: usize>: Send + Sync {
    /// `L_d(q₀, q₁; h)`.
    fn eval<S: Scalar>(&self, q0: &SVector<S, N>, q1: &SVector<S, N>, h: S) -> S;
}

/// A real function `f(x)` of one vector `x ∈ R^N` (a potential `V(q)`, a constraint `phi(q)`),
/// written once and generic over the scalar. Wrap it in [`AutoDiff`] to get a
/// [`ScalarDerivatives<N>`] trait object.
///
/// ```
/// use geom_core::function::ScalarFunction;
/// use geom_core::Scalar;
/// use nalgebra::SVector;
///
/// /// Kepler potential `V(q) = -1/|q|`.
/// struct Kepler;
/// impl ScalarFunction<2> for Kepler {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 2>) -> S {
///         -q.norm().recip()
///     }
/// }
/// assert_eq!(Kepler.eval(&SVector::from([0.0, 2.0])), -0.5);
/// ```
pub trait ScalarFunction<const N: usize>: Send + Sync {
    /// `f(x)`.
    fn eval<S: Scalar>(&self, x: &SVector<S, N>) -> S;
}

/// The Hessian of `f(q, p)` as three `N × N` blocks of the symmetric `2N × 2N` matrix
///
/// ```text
///     D²f = [ qq    qp ]      qq[(i, j)] = ∂²f/∂q_i∂q_j
///           [ qp^T  pp ]      qp[(i, j)] = ∂²f/∂q_i∂p_j
///                             pp[(i, j)] = ∂²f/∂p_i∂p_j
/// ```
///
/// `qq` and `pp` are symmetric; the lower-left block `∂²f/∂p_i∂q_j` is `qp^T` ([`Hessian::pq`]).
/// For a discrete Lagrangian `L_d(q_0, q_1)`, `qp = D_1 D_2 L_d`, the Newton matrix of a discrete
/// Euler–Lagrange step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hessian<const N: usize> {
    /// `qq[(i, j)] = ∂²f/∂q_i∂q_j`.
    pub qq: SMatrix<f64, N, N>,
    /// `qp[(i, j)] = ∂²f/∂q_i∂p_j` (row index on `q`, column index on `p`).
    pub qp: SMatrix<f64, N, N>,
    /// `pp[(i, j)] = ∂²f/∂p_i∂p_j`.
    pub pp: SMatrix<f64, N, N>,
}

impl<const N: usize> Hessian<N> {
    /// The zero Hessian (all three blocks zero).
    ///
    /// ```
    /// let h = geom_core::function::Hessian::<2>::zeros();
    /// assert_eq!(h.qp[(0, 1)], 0.0);
    /// ```
    pub fn zeros() -> Self {
        Self { qq: SMatrix::zeros(), qp: SMatrix::zeros(), pp: SMatrix::zeros() }
    }

    /// The lower-left block `pq[(i, j)] = ∂²f/∂p_i∂q_j = qp[(j, i)]`, i.e. `qp^T`.
    pub fn pq(&self) -> SMatrix<f64, N, N> {
        self.qp.transpose()
    }

    /// The Hessian–vector product `D²f · (dq, dp) = (qq dq + qp dp, qp^T dq + pp dp)`.
    pub fn apply(&self, dq: &SVector<f64, N>, dp: &SVector<f64, N>) -> (SVector<f64, N>, SVector<f64, N>) {
        (self.qq * dq + self.qp * dp, self.qp.tr_mul(dq) + self.pp * dp)
    }

    /// The full symmetric `2N × 2N` matrix `[[qq, qp], [qp^T, pp]]` (ordering `(q, p)`); allocates.
    pub fn to_dmatrix(&self) -> DMatrix<f64> {
        DMatrix::from_fn(2 * N, 2 * N, |i, j| match (i < N, j < N) {
            (true, true) => self.qq[(i, j)],
            (true, false) => self.qp[(i, j - N)],
            (false, true) => self.qp[(j, i - N)],
            (false, false) => self.pp[(i - N, j - N)],
        })
    }

    /// `max_{block, i, j} |self - other|`, the entrywise max-norm of the difference.
    pub fn max_abs_diff(&self, other: &Self) -> f64 {
        max_abs_diff(&self.qq, &other.qq).max(max_abs_diff(&self.qp, &other.qp)).max(max_abs_diff(&self.pp, &other.pp))
    }

    /// `true` if every entry of the three blocks is finite.
    pub fn is_finite(&self) -> bool {
        self.qq.iter().chain(self.qp.iter()).chain(self.pp.iter()).all(|v| v.is_finite())
    }
}

/// Value and derivatives of a function `f(q, p)` on phase space at `f64`: the object-safe trait
/// the integrators consume (`&dyn PhaseSpaceDerivatives<N>`).
///
/// Implemented by [`AutoDiff<F>`] for every [`PhaseSpaceFunction<N>`], or by hand (check a
/// hand-written implementation with [`check_against_ad`]). The required methods are the unchecked
/// hot-loop path; the `try_*` methods add finiteness checks of input and output.
pub trait PhaseSpaceDerivatives<const N: usize>: Send + Sync {
    /// `f(q, p)`.
    fn value(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> f64;

    /// `(∂f/∂q, ∂f/∂p)`, the two halves of the gradient.
    fn gradient(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> (SVector<f64, N>, SVector<f64, N>);

    /// The second derivative `D²f(q, p)` in blocks (see [`Hessian`] for the index conventions).
    fn hessian(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> Hessian<N>;

    /// `∂f/∂q` alone (default: the first half of [`gradient`](Self::gradient)).
    fn gradient_q(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        self.gradient(q, p).0
    }

    /// `∂f/∂p` alone (default: the second half of [`gradient`](Self::gradient)).
    fn gradient_p(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        self.gradient(q, p).1
    }

    /// Whether `f(q, p) = T(p) + V(q)` (separable): then `∂f/∂q` does not depend on `p` and
    /// `∂f/∂p` not on `q`, which makes symplectic Euler and Störmer–Verlet explicit. Default
    /// `false`; a model declares it (e.g. [`Separable`]).
    fn is_separable(&self) -> bool {
        false
    }

    /// `((∂f/∂q, ∂f/∂p), D²f)` at one point. The default calls [`gradient`](Self::gradient) and
    /// [`hessian`](Self::hessian); [`AutoDiff`] overrides it to reuse the gradient that its
    /// Hessian passes produce anyway.
    fn gradient_and_hessian(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> ((SVector<f64, N>, SVector<f64, N>), Hessian<N>) {
        (self.gradient(q, p), self.hessian(q, p))
    }

    /// The block `∂²f/∂q²(q, p)` alone (`qq` of [`hessian`](Self::hessian); the default takes it
    /// from the full Hessian). For a separable `f = T(p) + V(q)` it is `∇²V(q)`: with
    /// [`hessian_pp`](Self::hessian_pp) all that the step Jacobian of an explicit splitting
    /// method needs. [`AutoDiff`] computes it by the `N(N + 1)/2` hyper-dual passes seeded in `q`
    /// alone (`p` a constant) instead of the `N(2N + 1)` of the full Hessian.
    fn hessian_qq(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        self.hessian(q, p).qq
    }

    /// The block `∂²f/∂p²(q, p)` alone (`pp` of [`hessian`](Self::hessian); default: from the full
    /// Hessian); `∇²T(p)` for a separable `f = T(p) + V(q)`. [`AutoDiff`]: `N(N + 1)/2` passes
    /// seeded in `p` alone.
    fn hessian_pp(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        self.hessian(q, p).pp
    }

    /// `(∂f/∂q, ∂²f/∂q²)` at one point: [`gradient_q`](Self::gradient_q) and
    /// [`hessian_qq`](Self::hessian_qq) (the default calls both; [`AutoDiff`] and the separable
    /// AD forms take the gradient from the `ε₁` parts of the Hessian's diagonal passes, so the
    /// step Jacobian of a kick costs no gradient pass of its own).
    fn gradient_and_hessian_q(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        (self.gradient_q(q, p), self.hessian_qq(q, p))
    }

    /// `(∂f/∂p, ∂²f/∂p²)` at one point ([`gradient_and_hessian_q`](Self::gradient_and_hessian_q)
    /// with the roles of `q` and `p` exchanged).
    fn gradient_and_hessian_p(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        (self.gradient_p(q, p), self.hessian_pp(q, p))
    }

    /// The mixed block `∂²f/∂q∂p(q, p)` alone (`qp` of [`hessian`](Self::hessian),
    /// `[(i, j)] = ∂²f/∂q_i∂p_j`; default: from the full Hessian). The Newton matrices of
    /// implicit symplectic Euler and Störmer–Verlet, `I + h H_qp` and `I − h H_pq = I − h H_qpᵀ`,
    /// need nothing else. [`AutoDiff`] computes it by the `N²` hyper-dual passes
    /// `(q + e_i ε₁, p + e_j ε₂)` ([`hyper_dual::partial_hessian`]) instead of the `N(2N + 1)` of
    /// the full Hessian; it is zero for the separable forms ([`Separable`],
    /// [`AutoDiff::separable`]).
    fn hessian_qp(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        self.hessian(q, p).qp
    }

    /// [`value`](Self::value), or [`GeomError::NonFinite`] if `q`, `p` or the value is not finite.
    fn try_value(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> Result<f64> {
        check_point(q, p)?;
        let v = self.value(q, p);
        if v.is_finite() { Ok(v) } else { Err(GeomError::NonFinite { what: "function value" }) }
    }

    /// [`gradient`](Self::gradient), or [`GeomError::NonFinite`] if `q`, `p` or an entry of the
    /// gradient is not finite.
    fn try_gradient(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> Result<(SVector<f64, N>, SVector<f64, N>)> {
        check_point(q, p)?;
        let (gq, gp) = self.gradient(q, p);
        check_finite(gq.iter().chain(gp.iter()), "gradient")?;
        Ok((gq, gp))
    }

    /// [`hessian`](Self::hessian), or [`GeomError::NonFinite`] if `q`, `p` or an entry of the
    /// Hessian is not finite.
    fn try_hessian(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> Result<Hessian<N>> {
        check_point(q, p)?;
        let h = self.hessian(q, p);
        if h.is_finite() { Ok(h) } else { Err(GeomError::NonFinite { what: "Hessian" }) }
    }
}

/// Value and derivatives of a function `f(x)`, `x ∈ R^N`, at `f64`: the object-safe counterpart
/// of [`ScalarFunction<N>`] (`&dyn ScalarDerivatives<N>`).
///
/// Implemented by [`AutoDiff<F>`] for every [`ScalarFunction<N>`], or by hand (check it with
/// [`check_scalar_against_ad`]).
pub trait ScalarDerivatives<const N: usize>: Send + Sync {
    /// `f(x)`.
    fn value(&self, x: &SVector<f64, N>) -> f64;

    /// `∇f(x)`, `[i] = ∂f/∂x_i`.
    fn gradient(&self, x: &SVector<f64, N>) -> SVector<f64, N>;

    /// `D²f(x)`, `[(i, j)] = ∂²f/∂x_i∂x_j` (symmetric).
    fn hessian(&self, x: &SVector<f64, N>) -> SMatrix<f64, N, N>;

    /// `(∇f, D²f)` at one point. The default calls both methods; [`AutoDiff`] computes both in
    /// the same hyper-dual passes ([`crate::hyper_dual::hessian`]).
    fn gradient_and_hessian(&self, x: &SVector<f64, N>) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        (self.gradient(x), self.hessian(x))
    }

    /// [`value`](Self::value), or [`GeomError::NonFinite`] if `x` or the value is not finite.
    fn try_value(&self, x: &SVector<f64, N>) -> Result<f64> {
        check_finite(x.iter(), "function argument")?;
        let v = self.value(x);
        if v.is_finite() { Ok(v) } else { Err(GeomError::NonFinite { what: "function value" }) }
    }

    /// [`gradient`](Self::gradient), or [`GeomError::NonFinite`] if `x` or an entry of the
    /// gradient is not finite.
    fn try_gradient(&self, x: &SVector<f64, N>) -> Result<SVector<f64, N>> {
        check_finite(x.iter(), "function argument")?;
        let g = self.gradient(x);
        check_finite(g.iter(), "gradient")?;
        Ok(g)
    }

    /// [`hessian`](Self::hessian), or [`GeomError::NonFinite`] if `x` or an entry of the Hessian
    /// is not finite.
    fn try_hessian(&self, x: &SVector<f64, N>) -> Result<SMatrix<f64, N, N>> {
        check_finite(x.iter(), "function argument")?;
        let h = self.hessian(x);
        check_finite(h.iter(), "Hessian")?;
        Ok(h)
    }
}

/// Automatic differentiation of a model: `AutoDiff(f)` implements [`PhaseSpaceDerivatives<N>`]
/// when `f: PhaseSpaceFunction<N>` and [`ScalarDerivatives<N>`] when `f: ScalarFunction<N>`, with
/// derivatives exact to round-off (forward-mode dual numbers, see the module documentation).
///
/// Cost, relative to one `f64` evaluation `c`: value `c`; gradient `2N` one-direction `Dual64`
/// passes for `N <= DIRECTIONAL_GRADIENT_MAX`, two `DualSVec64<N>` passes above; gradient and
/// Hessian together `2N² + N` one-direction `HyperDual64` passes ([`crate::hyper_dual`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AutoDiff<F>(pub F);

impl<F> AutoDiff<F> {
    /// Wrap the model `f`.
    ///
    /// ```
    /// use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction};
    /// use geom_core::Scalar;
    /// use nalgebra::SVector;
    ///
    /// /// Harmonic oscillator `H = (q² + p²)/2`.
    /// struct Oscillator;
    /// impl PhaseSpaceFunction<1> for Oscillator {
    ///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
    ///         (q[0] * q[0] + p[0] * p[0]) * S::from(0.5)
    ///     }
    /// }
    /// let h: Box<dyn PhaseSpaceDerivatives<1>> = Box::new(AutoDiff::new(Oscillator));
    /// let (q, p) = (SVector::from([3.0]), SVector::from([4.0]));
    /// assert_eq!(h.value(&q, &p), 12.5);
    /// let (dq, dp) = h.gradient(&q, &p);
    /// assert_eq!((dq[0], dp[0]), (3.0, 4.0));
    /// let d2 = h.hessian(&q, &p);
    /// assert_eq!((d2.qq[(0, 0)], d2.qp[(0, 0)], d2.pp[(0, 0)]), (1.0, 0.0, 1.0));
    /// ```
    pub fn new(f: F) -> Self {
        Self(f)
    }

    /// Wrap a model `H(q, p)` that the user declares **separable**, `H = T(p) + V(q)`: the
    /// result reports [`PhaseSpaceDerivatives::is_separable`] `= true`, so symplectic Euler and
    /// Störmer–Verlet take their explicit path (one gradient per force evaluation, no Newton),
    /// and its Hessian has `∂²H/∂q∂p = 0` by declaration. The model is written once, as for
    /// [`AutoDiff::new`]; check the declaration with [`separability_defect`].
    ///
    /// ```
    /// use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction, separability_defect};
    /// use geom_core::Scalar;
    /// use nalgebra::SVector;
    ///
    /// /// Pendulum `H = p²/2 − cos q`.
    /// struct Pendulum;
    /// impl PhaseSpaceFunction<1> for Pendulum {
    ///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
    ///         p[0] * p[0] * S::from(0.5) - q[0].cos()
    ///     }
    /// }
    /// let h = AutoDiff::separable(Pendulum);
    /// assert!(h.is_separable());
    /// let (q, p) = (SVector::from([0.5]), SVector::from([2.0]));
    /// assert!((h.gradient_q(&q, &p)[0] - 0.5f64.sin()).abs() < 1e-16);
    /// assert_eq!(separability_defect(&Pendulum, &q, &p), 0.0);
    /// ```
    pub fn separable<const N: usize>(f: F) -> SeparableAutoDiff<F, N>
    where
        F: PhaseSpaceFunction<N>,
    {
        let regular = regular_at_rest::<F, N>(&f);
        SeparableAutoDiff(f, regular)
    }

    /// The wrapped model.
    pub fn model(&self) -> &F {
        &self.0
    }
}

impl<F: PhaseSpaceFunction<N>, const N: usize> PhaseSpaceDerivatives<N> for AutoDiff<F> {
    #[inline]
    fn value(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> f64 {
        self.0.eval::<f64>(q, p)
    }

    #[inline]
    fn gradient(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> (SVector<f64, N>, SVector<f64, N>) {
        (self.gradient_q(q, p), self.gradient_p(q, p))
    }

    #[inline]
    fn gradient_q(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        ad_gradient(
            q,
            |qd: &SVector<Dual64, N>| self.0.eval(qd, &p.map(Dual64::from_re)),
            |qd: &SVector<DualSVec64<N>, N>| self.0.eval(qd, &p.map(DualSVec64::<N>::from_re)),
        )
    }

    #[inline]
    fn gradient_p(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        ad_gradient(
            p,
            |pd: &SVector<Dual64, N>| self.0.eval(&q.map(Dual64::from_re), pd),
            |pd: &SVector<DualSVec64<N>, N>| self.0.eval(&q.map(DualSVec64::<N>::from_re), pd),
        )
    }

    fn hessian(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> Hessian<N> {
        self.gradient_and_hessian(q, p).1
    }

    fn gradient_and_hessian(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> ((SVector<f64, N>, SVector<f64, N>), Hessian<N>) {
        let (_, gradient, (qq, qp, pp)) = hyper_dual::phase_hessian(|qh, ph| self.0.eval(qh, ph), q, p, true);
        (gradient, Hessian { qq, qp, pp })
    }

    /// `∂²f/∂q²` by [`hyper_dual::hessian`] in `q` with `p` lifted as a constant (the same passes,
    /// and the same numbers, as the `q`–`q` passes of [`hessian`](Self::hessian)).
    #[inline]
    fn hessian_qq(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        self.gradient_and_hessian_q(q, p).1
    }

    /// `∂²f/∂p²` by [`hyper_dual::hessian`] in `p` with `q` lifted as a constant.
    #[inline]
    fn hessian_pp(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        self.gradient_and_hessian_p(q, p).1
    }

    /// `(∂f/∂q, ∂²f/∂q²)` from the passes of [`hessian_qq`](Self::hessian_qq).
    #[inline]
    fn gradient_and_hessian_q(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        let p = p.map(|x| hyper_dual::seed(x, 0.0, 0.0));
        let (_, g, h) = hyper_dual::hessian(|qh| self.0.eval(qh, &p), q);
        (g, h)
    }

    /// `(∂f/∂p, ∂²f/∂p²)` from the passes of [`hessian_pp`](Self::hessian_pp).
    #[inline]
    fn gradient_and_hessian_p(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        let q = q.map(|x| hyper_dual::seed(x, 0.0, 0.0));
        let (_, g, h) = hyper_dual::hessian(|ph| self.0.eval(&q, ph), p);
        (g, h)
    }

    /// `∂²f/∂q∂p` by [`hyper_dual::partial_hessian`]: the `N²` passes `(q + e_i ε₁, p + e_j ε₂)`
    /// (the same numbers as the mixed passes of [`hessian`](Self::hessian)).
    #[inline]
    fn hessian_qp(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        hyper_dual::partial_hessian(|qh, ph| self.0.eval(qh, ph), q, p).3
    }
}

/// The coordinates of the point `q* = (φ⁻¹, …, φ⁻¹)` at which [`SeparableAutoDiff`] evaluates
/// `V`'s constant terms (`φ⁻¹ = 0.618…`, chosen to be unlikely a singular point of a model).
const PROBE: f64 = 0.618_033_988_749_894_8;

/// A model `H(q, p)` declared separable, `H = T(p) + V(q)`, with AD derivatives; built by
/// [`AutoDiff::separable`]. Derivatives as [`AutoDiff`], except that
/// `∂H/∂q` (seeded in `q`, `p` held constant) and `∂H/∂p` (seeded in `p`) are taken
/// separately (as [`AutoDiff`]'s, see [`DIRECTIONAL_GRADIENT_MAX`]), the mixed block
/// `∂²H/∂q∂p` is zero, and
/// [`PhaseSpaceDerivatives::is_separable`] is `true`.
///
/// Because `∂H/∂q = ∇V(q)` does not depend on `p`, nor `∂H/∂p = ∇T(p)` on `q`, the passes hold
/// the other half at a constant point, `p = 0` and `q = q*`
/// ([`regular_at_rest`](SeparableAutoDiff::regular_at_rest)): its terms then fold to constants,
/// with exactly zero derivative parts, instead of products `x · 0` that IEEE arithmetic must
/// keep (they were half the cost of an AD Störmer–Verlet step). The declaration is the user's:
/// for a model that is not separable these are the derivatives at `(q, 0)` and `(q*, p)`.
///
/// The dimension `N` is part of the type (inferred from the integrator's state), so that
/// [`regular_at_rest`](SeparableAutoDiff::regular_at_rest) is decided once, when it is built.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeparableAutoDiff<F, const N: usize>(pub F, bool);

impl<F: PhaseSpaceFunction<N>, const N: usize> SeparableAutoDiff<F, N> {
    /// The wrapped model.
    pub fn model(&self) -> &F {
        &self.0
    }

    /// Whether the model's derivative parts are finite at `(q*, p = 0)`, `q* = (φ⁻¹, …, φ⁻¹)`
    /// (`φ⁻¹ = 0.618…`, a point unlikely to be singular), with every seed zero: then each is
    /// exactly `0`, and `T`'s terms contribute exactly zero to `∂H/∂q` at `p = 0`; a `T` with an
    /// infinite derivative at rest (`T = |p|`) gives NaN there. `V` singular at `q*` also gives
    /// `false`, which only costs the faster path. Decided when the model is wrapped.
    pub fn regular_at_rest(&self) -> bool {
        self.1
    }

    /// The gradients at `(q, p)` itself (a model not regular at rest), out of line.
    #[cold]
    #[inline(never)]
    fn gradient_q_at(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        PhaseSpaceDerivatives::gradient_q(&AutoDiff(&self.0), q, p)
    }
    #[cold]
    #[inline(never)]
    fn gradient_p_at(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        PhaseSpaceDerivatives::gradient_p(&AutoDiff(&self.0), q, p)
    }
    #[cold]
    #[inline(never)]
    fn hessian_qq_at(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        AutoDiff(&self.0).hessian_qq(q, p)
    }
    #[cold]
    #[inline(never)]
    fn hessian_pp_at(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        AutoDiff(&self.0).hessian_pp(q, p)
    }
    /// The gradient and the diagonal Hessian blocks at `(q, p)` itself (`N(N + 1)` passes).
    #[cold]
    #[inline(never)]
    fn gradient_and_hessian_at(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> ((SVector<f64, N>, SVector<f64, N>), Hessian<N>) {
        let (_, gradient, (qq, _, pp)) = hyper_dual::phase_hessian(|qh, ph| self.0.eval(qh, ph), q, p, false);
        (gradient, Hessian { qq, qp: SMatrix::zeros(), pp })
    }
}

/// [`SeparableAutoDiff::regular_at_rest`]: `H` at `(q*, 0)` with every seed zero.
fn regular_at_rest<F: PhaseSpaceFunction<N>, const N: usize>(f: &F) -> bool {
    let q = SVector::<Dual64, N>::from_element(Dual64::from_re(PROBE));
    f.eval(&q, &SVector::from_element(Dual64::from_re(0.0))).eps == 0.0
}

impl<F: PhaseSpaceFunction<N>, const N: usize> PhaseSpaceDerivatives<N> for SeparableAutoDiff<F, N> {
    #[inline]
    fn value(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> f64 {
        self.0.eval::<f64>(q, p)
    }

    #[inline]
    fn gradient(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> (SVector<f64, N>, SVector<f64, N>) {
        (self.gradient_q(q, p), self.gradient_p(q, p))
    }

    /// `∂H/∂q(q, p) = ∇V(q) = ∂H/∂q(q, 0)` for the declared `H = T(p) + V(q)`: when `T` is
    /// regular at rest ([`SeparableAutoDiff::regular_at_rest`]) the passes hold `p = 0`, so that
    /// `T`'s terms are constants the compiler folds (their derivative parts are exactly zero)
    /// instead of products `p_j · 0` on the kick's chain; otherwise (e.g. `T = |p|`) they are
    /// taken at `p`.
    #[inline]
    fn gradient_q(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        if self.1 {
            PhaseSpaceDerivatives::gradient_q(&AutoDiff(&self.0), q, &SVector::zeros())
        } else {
            self.gradient_q_at(q, p)
        }
    }

    /// `∂H/∂p(q, p) = ∇T(p) = ∂H/∂p(q*, p)`: when the model is regular at the probe point
    /// ([`SeparableAutoDiff::regular_at_rest`]) the passes hold `q = q*`, whose `V` terms are
    /// constants (exactly zero derivative parts); otherwise they are taken at `q`.
    #[inline]
    fn gradient_p(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        if self.1 {
            PhaseSpaceDerivatives::gradient_p(&AutoDiff(&self.0), &SVector::from_element(PROBE), p)
        } else {
            self.gradient_p_at(q, p)
        }
    }

    fn is_separable(&self) -> bool {
        true
    }

    fn hessian(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> Hessian<N> {
        self.gradient_and_hessian(q, p).1
    }

    /// The diagonal blocks only (`N(N + 1)` hyper-dual passes), each held at the constant point
    /// of [`gradient_q`](Self::gradient_q) and [`gradient_p`](Self::gradient_p) when the model is
    /// regular at rest: `(∇V, ∇²V)` from the passes in `q` at `(q, 0)`, `(∇T, ∇²T)` from those in
    /// `p` at `(q*, p)`, where the other half's terms fold to constants (the same numbers as the
    /// passes at `(q, p)`, whose other-half terms have exactly zero derivative parts). A
    /// non-finite entry there (a `T` or `V` singular at the constant point) is recomputed at
    /// `(q, p)`.
    fn gradient_and_hessian(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> ((SVector<f64, N>, SVector<f64, N>), Hessian<N>) {
        if self.1 {
            let rest = SVector::<f64, N>::zeros().map(|x| hyper_dual::seed(x, 0.0, 0.0));
            let probe = SVector::<f64, N>::from_element(PROBE).map(|x| hyper_dual::seed(x, 0.0, 0.0));
            let (_, gq, qq) = hyper_dual::hessian(|qh| self.0.eval(qh, &rest), q);
            let (_, gp, pp) = hyper_dual::hessian(|ph| self.0.eval(&probe, ph), p);
            let finite = |v: &f64| v.is_finite();
            if gq.iter().chain(gp.iter()).all(finite) && qq.iter().chain(pp.iter()).all(finite) {
                return ((gq, gp), Hessian { qq, qp: SMatrix::zeros(), pp });
            }
        }
        self.gradient_and_hessian_at(q, p)
    }

    /// `(∇V(q), ∇²V(q))` from the passes of [`hessian_qq`](Self::hessian_qq) (held at `p = 0`
    /// when the model is regular at rest; a non-finite entry is recomputed at `(q, p)`).
    #[inline]
    fn gradient_and_hessian_q(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        if self.1 {
            let (g, h) = AutoDiff(&self.0).gradient_and_hessian_q(q, &SVector::zeros());
            if g.iter().chain(h.iter()).all(|v| v.is_finite()) {
                return (g, h);
            }
        }
        (self.gradient_q_at(q, p), self.hessian_qq_at(q, p))
    }

    /// `(∇T(p), ∇²T(p))` from the passes of [`hessian_pp`](Self::hessian_pp) (held at `q = q*`).
    #[inline]
    fn gradient_and_hessian_p(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        if self.1 {
            let (g, h) = AutoDiff(&self.0).gradient_and_hessian_p(&SVector::from_element(PROBE), p);
            if g.iter().chain(h.iter()).all(|v| v.is_finite()) {
                return (g, h);
            }
        }
        (self.gradient_p_at(q, p), self.hessian_pp_at(q, p))
    }

    /// `∇²V(q) = ∂²H/∂q²(q, 0)` for the declared `H = T(p) + V(q)`, held at `p = 0` like
    /// [`gradient_q`](Self::gradient_q) when the model is regular at rest (`T`'s terms fold to
    /// constants). With every seed on `q`, `T`'s derivative parts there are exactly zero or,
    /// for a `T` whose second derivative is infinite at rest, NaN: a non-finite block is
    /// recomputed at `(q, p)` itself.
    #[inline]
    fn hessian_qq(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        if self.1 {
            let block = AutoDiff(&self.0).hessian_qq(q, &SVector::zeros());
            if block.iter().all(|v| v.is_finite()) {
                return block;
            }
        }
        self.hessian_qq_at(q, p)
    }

    /// `∇²T(p) = ∂²H/∂p²(q*, p)`, held at the probe point `q*` like
    /// [`gradient_p`](Self::gradient_p) (a non-finite block is recomputed at `(q, p)`).
    #[inline]
    fn hessian_pp(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        if self.1 {
            let block = AutoDiff(&self.0).hessian_pp(&SVector::from_element(PROBE), p);
            if block.iter().all(|v| v.is_finite()) {
                return block;
            }
        }
        self.hessian_pp_at(q, p)
    }

    /// `∂²H/∂q∂p = 0` for the declared `H = T(p) + V(q)`.
    #[inline]
    fn hessian_qp(&self, _q: &SVector<f64, N>, _p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        SMatrix::zeros()
    }
}

/// `max_ij |∂²H/∂q_i∂p_j|` at `(q, p)` by AD: zero (to round-off) for a separable
/// `H = T(p) + V(q)`. Use it to check a model before declaring it with [`AutoDiff::separable`].
pub fn separability_defect<F: PhaseSpaceFunction<N>, const N: usize>(
    model: &F,
    q: &SVector<f64, N>,
    p: &SVector<f64, N>,
) -> f64 {
    let (_, _, _, qp) = hyper_dual::partial_hessian(|qh, ph| model.eval(qh, ph), q, p);
    qp.iter().fold(0.0, |m, v| nan_max(m, v.abs()))
}

impl<F: ScalarFunction<N>, const N: usize> ScalarDerivatives<N> for AutoDiff<F> {
    #[inline]
    fn value(&self, x: &SVector<f64, N>) -> f64 {
        self.0.eval::<f64>(x)
    }

    fn gradient(&self, x: &SVector<f64, N>) -> SVector<f64, N> {
        ad_gradient(x, |xd: &SVector<Dual64, N>| self.0.eval(xd), |xd: &SVector<DualSVec64<N>, N>| self.0.eval(xd))
    }

    fn hessian(&self, x: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        self.gradient_and_hessian(x).1
    }

    fn gradient_and_hessian(&self, x: &SVector<f64, N>) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        let (_, g, h) = hyper_dual::hessian(|xd| self.0.eval(xd), x);
        (g, h)
    }
}

/// Compare hand-written derivatives of `f(q, p)` with the AD derivatives of the same model at
/// `(q, p)`: returns the largest absolute difference over the value, both gradient halves and the
/// three Hessian blocks,
/// `max(|f - f_AD|, |∂_q f - ∂_q f_AD|_∞, |∂_p f - ∂_p f_AD|_∞, max_blocks |D²f - D²f_AD|_max)`.
///
/// A correct implementation gives a few ulps of the entries' magnitude; compare against a
/// tolerance scaled accordingly.
///
/// ```
/// use geom_core::function::{check_against_ad, Hessian, PhaseSpaceDerivatives, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use nalgebra::{SMatrix, SVector};
///
/// /// Pendulum `H = p²/2 - cos q`, as a generic model ...
/// struct Pendulum;
/// impl PhaseSpaceFunction<1> for Pendulum {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
///         p[0] * p[0] * S::from(0.5) - q[0].cos()
///     }
/// }
/// /// ... and with hand-written derivatives.
/// struct PendulumExact;
/// impl PhaseSpaceDerivatives<1> for PendulumExact {
///     fn value(&self, q: &SVector<f64, 1>, p: &SVector<f64, 1>) -> f64 {
///         0.5 * p[0] * p[0] - q[0].cos()
///     }
///     fn gradient(&self, q: &SVector<f64, 1>, p: &SVector<f64, 1>) -> (SVector<f64, 1>, SVector<f64, 1>) {
///         (SVector::from([q[0].sin()]), *p)
///     }
///     fn hessian(&self, q: &SVector<f64, 1>, _p: &SVector<f64, 1>) -> Hessian<1> {
///         Hessian { qq: SMatrix::from([[q[0].cos()]]), qp: SMatrix::zeros(), pp: SMatrix::identity() }
///     }
/// }
/// let d = check_against_ad(&PendulumExact, &Pendulum, &SVector::from([0.7]), &SVector::from([-1.3]));
/// assert!(d < 1e-15);
/// ```
pub fn check_against_ad<H, F, const N: usize>(hand: &H, model: &F, q: &SVector<f64, N>, p: &SVector<f64, N>) -> f64
where
    H: PhaseSpaceDerivatives<N> + ?Sized,
    F: PhaseSpaceFunction<N>,
{
    let ad = AutoDiff(model);
    let dv = (hand.value(q, p) - PhaseSpaceDerivatives::value(&ad, q, p)).abs();
    let (gq, gp) = hand.gradient(q, p);
    let ((aq, ap), ah) = PhaseSpaceDerivatives::gradient_and_hessian(&ad, q, p);
    let dg = (gq - aq).amax().max((gp - ap).amax());
    let dh = hand.hessian(q, p).max_abs_diff(&ah);
    nan_max(nan_max(dv, dg), dh)
}

/// Compare hand-written derivatives of `f(x)` with the AD ones at `x`: the largest absolute
/// difference `max(|f - f_AD|, |∇f - ∇f_AD|_∞, |D²f - D²f_AD|_max)`.
///
/// ```
/// use geom_core::function::{check_scalar_against_ad, ScalarDerivatives, ScalarFunction};
/// use geom_core::Scalar;
/// use nalgebra::{SMatrix, SVector};
///
/// /// `V(x) = x_0² x_1`.
/// struct Cubic;
/// impl ScalarFunction<2> for Cubic {
///     fn eval<S: Scalar>(&self, x: &SVector<S, 2>) -> S {
///         x[0] * x[0] * x[1]
///     }
/// }
/// struct CubicExact;
/// impl ScalarDerivatives<2> for CubicExact {
///     fn value(&self, x: &SVector<f64, 2>) -> f64 { x[0] * x[0] * x[1] }
///     fn gradient(&self, x: &SVector<f64, 2>) -> SVector<f64, 2> {
///         SVector::from([2.0 * x[0] * x[1], x[0] * x[0]])
///     }
///     fn hessian(&self, x: &SVector<f64, 2>) -> SMatrix<f64, 2, 2> {
///         SMatrix::from([[2.0 * x[1], 2.0 * x[0]], [2.0 * x[0], 0.0]])
///     }
/// }
/// assert!(check_scalar_against_ad(&CubicExact, &Cubic, &SVector::from([1.5, -2.0])) < 1e-14);
/// ```
pub fn check_scalar_against_ad<H, F, const N: usize>(hand: &H, model: &F, x: &SVector<f64, N>) -> f64
where
    H: ScalarDerivatives<N> + ?Sized,
    F: ScalarFunction<N>,
{
    let ad = AutoDiff(model);
    let dv = (hand.value(x) - ScalarDerivatives::value(&ad, x)).abs();
    let (ag, ah) = ScalarDerivatives::gradient_and_hessian(&ad, x);
    let dg = (hand.gradient(x) - ag).amax();
    let dh = max_abs_diff(&hand.hessian(x), &ah);
    nan_max(nan_max(dv, dg), dh)
}

/// Dimensions up to which [`AutoDiff`] takes a gradient by `N` one-direction passes (`Dual64`:
/// a value and one derivative, no optional storage); above it, by one `N`-direction pass
/// (`DualSVec64<N>`). Both are exact; for small `N` the independent scalar passes are faster
/// (measured on Kepler, `N = 2`: 1.15× against 1.4–2× a hand-written gradient).
pub const DIRECTIONAL_GRADIENT_MAX: usize = 4;

/// `∇f(x)` by forward AD, `f` given at the two dual types (the same model function):
/// `∂f/∂x_i` is the derivative part of `f(x + ε e_i)` (`Dual64`, `N` passes) when
/// `N <= DIRECTIONAL_GRADIENT_MAX`, else the `N` derivative parts of one `DualSVec64<N>` pass
/// seeded with `e_1..e_N`.
#[inline]
pub fn ad_gradient<const N: usize>(
    x: &SVector<f64, N>,
    one: impl Fn(&SVector<Dual64, N>) -> Dual64,
    all: impl Fn(&SVector<DualSVec64<N>, N>) -> DualSVec64<N>,
) -> SVector<f64, N> {
    if N <= DIRECTIONAL_GRADIENT_MAX {
        SVector::from_fn(|i, _| {
            let xd = SVector::<Dual64, N>::from_fn(|k, _| Dual64::new(x[k], if k == i { 1.0 } else { 0.0 }));
            one(&xd).eps
        })
    } else {
        num_dual::gradient(|xd: SVector<DualSVec64<N>, N>| all(&xd), x).1
    }
}

/// The Jacobian `DF(x)` (`[(i, j)] = ∂F_i/∂x_j`) of `F: R^N → R^M` by forward AD, `F` given at
/// the two dual types (the same function, written once over the scalar): `N` one-direction
/// `Dual64` passes when `N <= DIRECTIONAL_GRADIENT_MAX`, else one `DualSVec64<N>` pass (as
/// [`AutoDiff`]'s gradients). Errors of `F` pass through.
#[inline]
pub fn ad_jacobian_of<const N: usize, const M: usize>(
    x: &SVector<f64, N>,
    one: impl Fn(&SVector<Dual64, N>) -> Result<SVector<Dual64, M>>,
    all: impl Fn(&SVector<DualSVec64<N>, N>) -> Result<SVector<DualSVec64<N>, M>>,
) -> Result<SMatrix<f64, M, N>> {
    if N <= DIRECTIONAL_GRADIENT_MAX {
        let mut j = SMatrix::<f64, M, N>::zeros();
        for c in 0..N {
            let xd = SVector::<Dual64, N>::from_fn(|k, _| Dual64::new(x[k], if k == c { 1.0 } else { 0.0 }));
            let f = one(&xd)?;
            for r in 0..M {
                j[(r, c)] = f[r].eps;
            }
        }
        Ok(j)
    } else {
        Ok(num_dual::jacobian(|xd: SVector<DualSVec64<N>, N>| all(&xd), x)?.1)
    }
}

/// A reference to a model is a model (so that [`AutoDiff`] can borrow it).
impl<F: PhaseSpaceFunction<N> + ?Sized, const N: usize> PhaseSpaceFunction<N> for &F {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, N>, p: &SVector<S, N>) -> S {
        (**self).eval(q, p)
    }
}

/// A reference to a model is a model (so that [`AutoDiff`] can borrow it).
impl<F: ScalarFunction<N> + ?Sized, const N: usize> ScalarFunction<N> for &F {
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, N>) -> S {
        (**self).eval(x)
    }
}

fn check_point<const N: usize>(q: &SVector<f64, N>, p: &SVector<f64, N>) -> Result<()> {
    check_finite(q.iter().chain(p.iter()), "phase-space point")
}

/// Entrywise max-norm of `a - b`; NaN if any difference is NaN.
fn max_abs_diff<const R: usize, const C: usize>(a: &SMatrix<f64, R, C>, b: &SMatrix<f64, R, C>) -> f64 {
    a.iter().zip(b.iter()).fold(0.0, |m, (x, y)| nan_max(m, (x - y).abs()))
}

/// `max` that propagates NaN (so that a NaN derivative never passes a check).
fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix2, Vector1, Vector2};

    /// Kepler `H(q, p) = |p|²/2 - 1/|q|`.
    struct Kepler;
    impl PhaseSpaceFunction<2> for Kepler {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
            p.norm_squared() * S::from(0.5) - q.norm().recip()
        }
    }

    /// Kepler with hand-written derivatives: `∂H/∂q = q/r³`, `∂H/∂p = p`,
    /// `∂²H/∂q² = I/r³ - 3 q q^T/r⁵`, `∂²H/∂q∂p = 0`, `∂²H/∂p² = I`.
    struct KeplerExact;
    impl PhaseSpaceDerivatives<2> for KeplerExact {
        fn value(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> f64 {
            0.5 * p.norm_squared() - 1.0 / q.norm()
        }
        fn gradient(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> (Vector2<f64>, Vector2<f64>) {
            let r = q.norm();
            (q / (r * r * r), *p)
        }
        fn hessian(&self, q: &Vector2<f64>, _p: &Vector2<f64>) -> Hessian<2> {
            let r = q.norm();
            let qq = Matrix2::identity() / r.powi(3) - q * q.transpose() * (3.0 / r.powi(5));
            Hessian { qq, qp: Matrix2::zeros(), pp: Matrix2::identity() }
        }
    }

    /// `f(q, p) = q_0² p_1 + sin(q_1) p_0 + p_0² p_1`: a non-zero, non-symmetric mixed block with
    /// `∂²f/∂q_0∂p_1 = 2 q_0`, `∂²f/∂q_1∂p_0 = cos q_1`, `∂²f/∂q_0∂p_0 = ∂²f/∂q_1∂p_1 = 0`.
    struct Mixed;
    impl PhaseSpaceFunction<2> for Mixed {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
            q[0] * q[0] * p[1] + q[1].sin() * p[0] + p[0] * p[0] * p[1]
        }
    }

    #[test]
    fn kepler_hand_written_matches_ad() {
        let points = [
            (Vector2::new(1.0, 0.0), Vector2::new(0.0, 1.0)),
            (Vector2::new(0.3, -1.7), Vector2::new(0.4, 0.2)),
            (Vector2::new(-2.5, 0.9), Vector2::new(-0.1, 0.6)),
        ];
        for (q, p) in points {
            let d = check_against_ad(&KeplerExact, &Kepler, &q, &p);
            assert!(d < 1e-13, "hand-written Kepler derivatives differ from AD by {d:e}");
        }
    }

    #[test]
    fn check_against_ad_detects_a_wrong_derivative() {
        /// Kepler with a wrong sign in the `qq` block: the check must see it.
        struct KeplerWrong;
        impl PhaseSpaceDerivatives<2> for KeplerWrong {
            fn value(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> f64 {
                KeplerExact.value(q, p)
            }
            fn gradient(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> (Vector2<f64>, Vector2<f64>) {
                KeplerExact.gradient(q, p)
            }
            fn hessian(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> Hessian<2> {
                let mut h = KeplerExact.hessian(q, p);
                h.qq = -h.qq;
                h
            }
        }
        let d = check_against_ad(&KeplerWrong, &Kepler, &Vector2::new(1.0, 0.5), &Vector2::new(0.0, 1.0));
        assert!(d > 0.1, "{d}");
    }

    #[test]
    fn mixed_block_index_convention() {
        let ad = AutoDiff(Mixed);
        let (q, p) = (Vector2::new(0.8, -0.4), Vector2::new(1.3, 0.7));
        let h = PhaseSpaceDerivatives::hessian(&ad, &q, &p);
        // qp[(i, j)] = ∂²f/∂q_i∂p_j
        assert!((h.qp[(0, 1)] - 2.0 * q[0]).abs() < 1e-15);
        assert!((h.qp[(1, 0)] - q[1].cos()).abs() < 1e-15);
        assert_eq!(h.qp[(0, 0)], 0.0);
        assert_eq!(h.qp[(1, 1)], 0.0);
        assert_eq!(h.pq()[(1, 0)], h.qp[(0, 1)]);
        // qq = [[2 p_1, 0], [0, -sin(q_1) p_0]], pp = [[2 p_1, 2 p_0], [2 p_0, 0]]
        let qq = Matrix2::new(2.0 * p[1], 0.0, 0.0, -q[1].sin() * p[0]);
        let pp = Matrix2::new(2.0 * p[1], 2.0 * p[0], 2.0 * p[0], 0.0);
        assert!(max_abs_diff(&h.qq, &qq) < 1e-15);
        assert!(max_abs_diff(&h.pp, &pp) < 1e-15);
        // gradient: ∂f/∂q = (2 q_0 p_1, cos(q_1) p_0), ∂f/∂p = (sin q_1 + 2 p_0 p_1, q_0² + p_0²)
        let (gq, gp) = PhaseSpaceDerivatives::gradient(&ad, &q, &p);
        assert!((gq - Vector2::new(2.0 * q[0] * p[1], q[1].cos() * p[0])).amax() < 1e-15);
        assert!((gp - Vector2::new(q[1].sin() + 2.0 * p[0] * p[1], q[0] * q[0] + p[0] * p[0])).amax() < 1e-15);
        // the fused path agrees with the separate ones
        let (g2, h2) = PhaseSpaceDerivatives::gradient_and_hessian(&ad, &q, &p);
        assert_eq!(g2, (gq, gp));
        assert_eq!(h2, h);
        // the diagonal blocks alone: the same passes, the same bits
        assert_eq!(ad.hessian_qq(&q, &p), h.qq);
        assert_eq!(ad.hessian_pp(&q, &p), h.pp);
        // the mixed block alone: the N² mixed passes, the same bits
        assert_eq!(ad.hessian_qp(&q, &p), h.qp);
    }

    #[test]
    fn hessian_against_finite_differences_of_gradient() {
        let ad = AutoDiff(Mixed);
        let (q, p) = (Vector2::new(-0.3, 1.1), Vector2::new(0.5, -0.9));
        let h = PhaseSpaceDerivatives::hessian(&ad, &q, &p);
        let full = h.to_dmatrix();
        let eps = 1e-6;
        for k in 0..4 {
            let (mut qh, mut ph) = (q, p);
            let (mut ql, mut pl) = (q, p);
            if k < 2 {
                qh[k] += eps;
                ql[k] -= eps;
            } else {
                ph[k - 2] += eps;
                pl[k - 2] -= eps;
            }
            let (gqh, gph) = PhaseSpaceDerivatives::gradient(&ad, &qh, &ph);
            let (gql, gpl) = PhaseSpaceDerivatives::gradient(&ad, &ql, &pl);
            for i in 0..2 {
                // column k of D²f = d(grad)/d(z_k), z = (q, p)
                let dq = (gqh[i] - gql[i]) / (2.0 * eps);
                let dp = (gph[i] - gpl[i]) / (2.0 * eps);
                assert!((full[(i, k)] - dq).abs() < 1e-8, "({i},{k})");
                assert!((full[(i + 2, k)] - dp).abs() < 1e-8, "({},{k})", i + 2);
            }
        }
        // symmetric, and apply = full * z
        assert!((&full - full.transpose()).amax() == 0.0);
        let (dq, dp) = (Vector2::new(0.2, -1.0), Vector2::new(3.0, 0.5));
        let (hq, hp) = h.apply(&dq, &dp);
        let z = nalgebra::DVector::from_column_slice(&[dq[0], dq[1], dp[0], dp[1]]);
        let hz = &full * z;
        assert!((hz[0] - hq[0]).abs() + (hz[1] - hq[1]).abs() + (hz[2] - hp[0]).abs() + (hz[3] - hp[1]).abs() < 1e-14);
    }

    #[test]
    fn scalar_function_ad() {
        /// `V(q) = -1/|q|` with `∇V = q/r³`, `D²V = I/r³ - 3 q q^T/r⁵`.
        struct Potential;
        impl ScalarFunction<2> for Potential {
            #[inline]
            fn eval<S: Scalar>(&self, q: &SVector<S, 2>) -> S {
                -q.norm().recip()
            }
        }
        struct PotentialExact;
        impl ScalarDerivatives<2> for PotentialExact {
            fn value(&self, q: &Vector2<f64>) -> f64 {
                -1.0 / q.norm()
            }
            fn gradient(&self, q: &Vector2<f64>) -> Vector2<f64> {
                KeplerExact.gradient(q, &Vector2::zeros()).0
            }
            fn hessian(&self, q: &Vector2<f64>) -> Matrix2<f64> {
                KeplerExact.hessian(q, &Vector2::zeros()).qq
            }
        }
        let x = Vector2::new(0.6, -1.2);
        assert!(check_scalar_against_ad(&PotentialExact, &Potential, &x) < 1e-14);
        let ad: &dyn ScalarDerivatives<2> = &AutoDiff(Potential);
        let (g, h) = ad.gradient_and_hessian(&x);
        assert_eq!(g, ad.gradient(&x));
        assert_eq!(h, ad.hessian(&x));
        assert!(h == h.transpose());
    }

    #[test]
    fn try_methods_report_non_finite() {
        let ad: &dyn PhaseSpaceDerivatives<2> = &AutoDiff(Kepler);
        let (q, p) = (Vector2::new(1.0, 0.0), Vector2::new(0.0, 1.0));
        assert!(ad.try_value(&q, &p).is_ok());
        assert!(ad.try_gradient(&q, &p).is_ok());
        assert!(ad.try_hessian(&q, &p).is_ok());
        let bad = Vector2::new(f64::NAN, 0.0);
        assert_eq!(ad.try_value(&bad, &p), Err(GeomError::NonFinite { what: "phase-space point" }));
        assert_eq!(
            ad.try_gradient(&q, &Vector2::new(0.0, f64::INFINITY)).unwrap_err(),
            GeomError::NonFinite { what: "phase-space point" }
        );
        // the collision q = 0: value -inf, gradient NaN
        let zero = Vector2::zeros();
        assert_eq!(ad.try_value(&zero, &p), Err(GeomError::NonFinite { what: "function value" }));
        assert_eq!(ad.try_gradient(&zero, &p).unwrap_err(), GeomError::NonFinite { what: "gradient" });
        assert_eq!(ad.try_hessian(&zero, &p).unwrap_err(), GeomError::NonFinite { what: "Hessian" });
        // a NaN derivative never passes the consistency check
        assert!(check_against_ad(&KeplerExact, &Kepler, &zero, &p).is_nan());

        struct Log;
        impl ScalarFunction<1> for Log {
            #[inline]
            fn eval<S: Scalar>(&self, x: &SVector<S, 1>) -> S {
                x[0].ln()
            }
        }
        let ad: &dyn ScalarDerivatives<1> = &AutoDiff(Log);
        assert!(ad.try_hessian(&Vector1::new(2.0)).is_ok());
        assert_eq!(ad.try_value(&Vector1::new(0.0)), Err(GeomError::NonFinite { what: "function value" }));
        assert_eq!(ad.try_gradient(&Vector1::new(0.0)), Err(GeomError::NonFinite { what: "gradient" }));
        assert_eq!(ad.try_hessian(&Vector1::new(0.0)), Err(GeomError::NonFinite { what: "Hessian" }));
        assert_eq!(ad.try_value(&Vector1::new(f64::NAN)), Err(GeomError::NonFinite { what: "function argument" }));
    }
}

/// A separable Hamiltonian `H(q, p) = T(p) + V(q)` from two one-vector models, with exact AD
/// derivatives: `∂H/∂q = ∇V(q)`, `∂H/∂p = ∇T(p)`, Hessian blocks `qq = ∇²V`, `pp = ∇²T`, `qp = 0`,
/// and [`PhaseSpaceDerivatives::is_separable`] `= true` (explicit symplectic Euler and
/// Störmer–Verlet).
///
/// ```
/// use geom_core::function::{PhaseSpaceDerivatives, ScalarFunction, Separable};
/// use geom_core::Scalar;
/// use nalgebra::SVector;
///
/// struct Kinetic;
/// impl ScalarFunction<1> for Kinetic {
///     fn eval<S: Scalar>(&self, p: &SVector<S, 1>) -> S { p[0] * p[0] * S::from(0.5) }
/// }
/// struct Pendulum;
/// impl ScalarFunction<1> for Pendulum {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>) -> S { -q[0].cos() }
/// }
/// let h = Separable::new(Kinetic, Pendulum);
/// assert!(h.is_separable());
/// let (hq, hp) = h.gradient(&SVector::from([0.5]), &SVector::from([2.0]));
/// assert!((hq[0] - 0.5f64.sin()).abs() < 1e-15 && hp[0] == 2.0);
/// ```
///
/// For hand-written derivatives of `T` and `V` ([`ScalarDerivatives<N>`] implementations, or any
/// mix with [`AutoDiff`] of a model), build it with [`Separable::from_derivatives`], which wraps
/// both parts in [`Derivatives`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Separable<T, V> {
    /// Kinetic energy `T(p)`.
    pub kinetic: T,
    /// Potential energy `V(q)`.
    pub potential: V,
}

impl<T, V> Separable<T, V> {
    /// `H = T(p) + V(q)`.
    pub fn new(kinetic: T, potential: V) -> Self {
        Self { kinetic, potential }
    }
}

/// A part `T(p)` or `V(q)` of a [`Separable`] Hamiltonian given by its derivatives (a
/// [`ScalarDerivatives<N>`], e.g. hand-written) instead of by a model; built by
/// [`Separable::from_derivatives`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Derivatives<D>(pub D);

impl<T, V> Separable<Derivatives<T>, Derivatives<V>> {
    /// `H = T(p) + V(q)` from the derivatives of `T` and `V` (each a [`ScalarDerivatives<N>`]):
    /// `∂H/∂q = ∇V(q)`, `∂H/∂p = ∇T(p)`, `qq = ∇²V`, `pp = ∇²T`, `qp = 0`, separable.
    ///
    /// ```
    /// use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, ScalarDerivatives, ScalarFunction, Separable};
    /// use geom_core::Scalar;
    /// use nalgebra::{SMatrix, SVector};
    ///
    /// /// `T = p²/2`, by hand.
    /// struct Kinetic;
    /// impl ScalarDerivatives<1> for Kinetic {
    ///     fn value(&self, p: &SVector<f64, 1>) -> f64 { 0.5 * p[0] * p[0] }
    ///     fn gradient(&self, p: &SVector<f64, 1>) -> SVector<f64, 1> { *p }
    ///     fn hessian(&self, _p: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> { SMatrix::identity() }
    /// }
    /// /// `V = −cos q`, as a model (through `AutoDiff`).
    /// struct Pendulum;
    /// impl ScalarFunction<1> for Pendulum {
    ///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>) -> S { -q[0].cos() }
    /// }
    /// let h = Separable::from_derivatives(Kinetic, AutoDiff(Pendulum));
    /// assert!(h.is_separable());
    /// assert_eq!(h.value(&SVector::from([0.0]), &SVector::from([2.0])), 1.0);
    /// assert_eq!(h.hessian(&SVector::from([0.0]), &SVector::from([2.0])).qq[(0, 0)], 1.0);
    /// ```
    pub fn from_derivatives(kinetic: T, potential: V) -> Self {
        Self { kinetic: Derivatives(kinetic), potential: Derivatives(potential) }
    }
}

impl<T: ScalarDerivatives<N>, V: ScalarDerivatives<N>, const N: usize> PhaseSpaceDerivatives<N>
    for Separable<Derivatives<T>, Derivatives<V>>
{
    #[inline]
    fn value(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> f64 {
        self.kinetic.0.value(p) + self.potential.0.value(q)
    }
    #[inline]
    fn gradient(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> (SVector<f64, N>, SVector<f64, N>) {
        (self.potential.0.gradient(q), self.kinetic.0.gradient(p))
    }
    #[inline]
    fn gradient_q(&self, q: &SVector<f64, N>, _p: &SVector<f64, N>) -> SVector<f64, N> {
        self.potential.0.gradient(q)
    }
    #[inline]
    fn gradient_p(&self, _q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        self.kinetic.0.gradient(p)
    }
    fn is_separable(&self) -> bool {
        true
    }
    fn hessian(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> Hessian<N> {
        Hessian { qq: self.potential.0.hessian(q), qp: SMatrix::zeros(), pp: self.kinetic.0.hessian(p) }
    }
    /// `∇²V(q)`.
    fn hessian_qq(&self, q: &SVector<f64, N>, _p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        self.potential.0.hessian(q)
    }
    /// `∇²T(p)`.
    fn hessian_pp(&self, _q: &SVector<f64, N>, p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        self.kinetic.0.hessian(p)
    }
    /// `0`.
    fn hessian_qp(&self, _q: &SVector<f64, N>, _p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        SMatrix::zeros()
    }
    fn gradient_and_hessian(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> ((SVector<f64, N>, SVector<f64, N>), Hessian<N>) {
        let (gq, qq) = self.potential.0.gradient_and_hessian(q);
        let (gp, pp) = self.kinetic.0.gradient_and_hessian(p);
        ((gq, gp), Hessian { qq, qp: SMatrix::zeros(), pp })
    }
}

impl<T: ScalarFunction<N>, V: ScalarFunction<N>, const N: usize> PhaseSpaceDerivatives<N> for Separable<T, V> {
    #[inline]
    fn value(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> f64 {
        self.kinetic.eval::<f64>(p) + self.potential.eval::<f64>(q)
    }
    #[inline]
    fn gradient(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> (SVector<f64, N>, SVector<f64, N>) {
        (self.gradient_q(q, p), self.gradient_p(q, p))
    }
    #[inline]
    fn gradient_q(&self, q: &SVector<f64, N>, _p: &SVector<f64, N>) -> SVector<f64, N> {
        ad_gradient(
            q,
            |qd: &SVector<Dual64, N>| self.potential.eval(qd),
            |qd: &SVector<DualSVec64<N>, N>| self.potential.eval(qd),
        )
    }
    #[inline]
    fn gradient_p(&self, _q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        ad_gradient(
            p,
            |pd: &SVector<Dual64, N>| self.kinetic.eval(pd),
            |pd: &SVector<DualSVec64<N>, N>| self.kinetic.eval(pd),
        )
    }
    fn is_separable(&self) -> bool {
        true
    }
    fn hessian(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> Hessian<N> {
        Hessian { qq: self.hessian_qq(q, p), qp: SMatrix::zeros(), pp: self.hessian_pp(q, p) }
    }
    /// `∇²V(q)`, `N(N + 1)/2` hyper-dual passes of `V`.
    fn hessian_qq(&self, q: &SVector<f64, N>, _p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        hyper_dual::hessian(|qd| self.potential.eval(qd), q).2
    }
    /// `∇²T(p)`, `N(N + 1)/2` hyper-dual passes of `T`.
    fn hessian_pp(&self, _q: &SVector<f64, N>, p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        hyper_dual::hessian(|pd| self.kinetic.eval(pd), p).2
    }
    /// `(∇V(q), ∇²V(q))` from the passes of [`hessian_qq`](Self::hessian_qq).
    fn gradient_and_hessian_q(
        &self,
        q: &SVector<f64, N>,
        _p: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        let (_, g, h) = hyper_dual::hessian(|qd| self.potential.eval(qd), q);
        (g, h)
    }
    /// `(∇T(p), ∇²T(p))` from the passes of [`hessian_pp`](Self::hessian_pp).
    fn gradient_and_hessian_p(
        &self,
        _q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        let (_, g, h) = hyper_dual::hessian(|pd| self.kinetic.eval(pd), p);
        (g, h)
    }
    /// `0`.
    fn hessian_qp(&self, _q: &SVector<f64, N>, _p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        SMatrix::zeros()
    }
    fn gradient_and_hessian(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
    ) -> ((SVector<f64, N>, SVector<f64, N>), Hessian<N>) {
        let (_, gq, qq) = hyper_dual::hessian(|qd| self.potential.eval(qd), q);
        let (_, gp, pp) = hyper_dual::hessian(|pd| self.kinetic.eval(pd), p);
        ((gq, gp), Hessian { qq, qp: SMatrix::zeros(), pp })
    }
}

#[cfg(test)]
mod separable_tests {
    use super::*;

    struct T2;
    impl ScalarFunction<2> for T2 {
        #[inline]
        fn eval<S: Scalar>(&self, p: &SVector<S, 2>) -> S {
            (p[0] * p[0] + p[1] * p[1] * S::from(2.0)) * S::from(0.5)
        }
    }
    struct V2;
    impl ScalarFunction<2> for V2 {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>) -> S {
            -(S::from(1.0) / (q[0] * q[0] + q[1] * q[1]).sqrt()) + q[0] * q[1] * q[1]
        }
    }
    struct Sum;
    impl PhaseSpaceFunction<2> for Sum {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
            T2.eval(p) + V2.eval(q)
        }
    }

    #[test]
    fn separable_matches_autodiff_of_the_sum() {
        let h = Separable::new(T2, V2);
        let (q, p) = (SVector::from([0.7, -0.4]), SVector::from([0.3, 1.1]));
        assert!(check_against_ad(&h, &Sum, &q, &p) < 1e-13);
        assert!(h.is_separable() && !AutoDiff(Sum).is_separable());
        let ad = AutoDiff(Sum);
        assert!((ad.gradient_q(&q, &p) - h.gradient_q(&q, &p)).norm() < 1e-14);
        assert!((ad.gradient_p(&q, &p) - h.gradient_p(&q, &p)).norm() < 1e-14);
        let ((gq, gp), hs) = h.gradient_and_hessian(&q, &p);
        assert!((gq - h.gradient_q(&q, &p)).norm() < 1e-14 && (gp - h.gradient_p(&q, &p)).norm() < 1e-14);
        assert_eq!(hs, h.hessian(&q, &p));
    }

    /// `H = |p| + V(q)`: `T` has an infinite derivative at rest.
    struct Optical;
    impl PhaseSpaceFunction<2> for Optical {
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
            p.norm() + V2.eval(q)
        }
    }
    /// `H = T(p) + 1/(q₀ − φ⁻¹)`: `V` singular at the probe point.
    struct SingularAtProbe;
    impl PhaseSpaceFunction<2> for SingularAtProbe {
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
            T2.eval(p) + (q[0] - S::from(PROBE)).recip() + q[1].sin()
        }
    }

    #[test]
    fn separable_autodiff_gradients_equal_the_full_passes_on_and_off_the_fast_path() {
        let (q, p) = (SVector::from([0.7, -0.4]), SVector::from([0.3, 1.1]));
        // regular model: the passes at p = 0 and q = q* give the derivatives at (q, p)
        assert!(AutoDiff::separable(Sum).regular_at_rest());
        // a model regular at rest whose every term in the probe is irrelevant: the same bits
        for (q, p) in [(q, p), (SVector::from([-1.3, 0.2]), SVector::from([0.0, -2.5]))] {
            assert_eq!(AutoDiff::separable(Sum).gradient_q(&q, &p), AutoDiff(Sum).gradient_q(&q, &p));
            assert_eq!(AutoDiff::separable(Sum).gradient_p(&q, &p), AutoDiff(Sum).gradient_p(&q, &p));
        }
        // T = |p| has no derivative at p = 0: the passes are taken at (q, p) (the rest point
        // would give NaN)
        let optical = AutoDiff::separable(Optical);
        assert!(!optical.regular_at_rest());
        assert!(AutoDiff(Optical).gradient_q(&q, &SVector::zeros()).iter().any(|g| g.is_nan()));
        assert_eq!(optical.gradient_q(&q, &p), AutoDiff(Optical).gradient_q(&q, &p));
        assert_eq!(optical.gradient_p(&q, &p), AutoDiff(Optical).gradient_p(&q, &p));
        assert!((optical.gradient_p(&q, &p) - p / p.norm()).amax() < 1e-15);
        // V singular at q*: likewise
        let singular = AutoDiff::separable(SingularAtProbe);
        assert!(!singular.regular_at_rest());
        let gp = singular.gradient_p(&q, &p);
        assert!(gp.iter().all(|g| g.is_finite()) && gp == AutoDiff(SingularAtProbe).gradient_p(&q, &p));
        assert_eq!(singular.gradient_q(&q, &p), AutoDiff(SingularAtProbe).gradient_q(&q, &p));
    }

    #[test]
    fn block_hessians_are_the_diagonal_blocks() {
        let (q, p) = (SVector::from([0.7, -0.4]), SVector::from([0.3, 1.1]));
        let full = AutoDiff(Sum).hessian(&q, &p);
        let close = |a: SMatrix<f64, 2, 2>, b: SMatrix<f64, 2, 2>| (a - b).amax() <= 1e-14 * b.amax();
        let models: [&dyn PhaseSpaceDerivatives<2>; 4] = [
            &AutoDiff(Sum),
            &AutoDiff::separable(Sum),
            &Separable::new(T2, V2),
            &Separable::from_derivatives(AutoDiff(T2), AutoDiff(V2)),
        ];
        for h in models {
            // the separable forms evaluate ∇²V at (q, 0) and ∇²T at (q*, p): any (q, p) will do
            assert!(close(h.hessian_qq(&q, &p), full.qq) && close(h.hessian_pp(&q, &p), full.pp));
            // a force with its block: the block itself, and the gradient of the same model
            let ((gq, hq), (gp, hp)) = (h.gradient_and_hessian_q(&q, &p), h.gradient_and_hessian_p(&q, &p));
            assert_eq!((hq, hp), (h.hessian_qq(&q, &p), h.hessian_pp(&q, &p)));
            assert!((gq - h.gradient_q(&q, &p)).amax() <= 1e-15 && (gp - h.gradient_p(&q, &p)).amax() <= 1e-15);
            // (q and p are not exchanged)
            assert!((gq - h.gradient_p(&q, &p)).amax() > 1e-3);
            assert_eq!(h.hessian_qp(&q, &p), h.hessian(&q, &p).qp);
            assert!(close(h.hessian_qq(&q, &(p * 3.0)), full.qq) || !h.is_separable());
        }
        // the fused gradient and blocks: the same numbers as the passes at (q, p)
        let ((gq, gp), hs) = AutoDiff::separable(Sum).gradient_and_hessian(&q, &p);
        let ((aq, ap), ah) = AutoDiff(Sum).gradient_and_hessian(&q, &p);
        assert!((gq - aq).amax() <= 1e-15 && (gp - ap).amax() <= 1e-15);
        assert!(close(hs.qq, ah.qq) && close(hs.pp, ah.pp) && hs.qp == SMatrix::<f64, 2, 2>::zeros());
        for singular in
            [&AutoDiff::separable(Optical) as &dyn PhaseSpaceDerivatives<2>, &AutoDiff::separable(SingularAtProbe)]
        {
            let (g, hs) = singular.gradient_and_hessian(&q, &p);
            assert!(g.0.iter().chain(g.1.iter()).all(|v| v.is_finite()) && hs.is_finite());
        }
        // T = |p| is singular at rest: the blocks are taken at (q, p), where they are finite
        let optical = AutoDiff::separable(Optical);
        assert!(AutoDiff(Optical).hessian_qq(&q, &SVector::zeros()).iter().any(|v| v.is_nan()));
        let (g, block) = optical.gradient_and_hessian_q(&q, &p);
        assert!(g.iter().all(|v| v.is_finite()) && block == AutoDiff(Optical).hessian(&q, &p).qq);
        assert_eq!(optical.hessian_qq(&q, &p), AutoDiff(Optical).hessian(&q, &p).qq);
        assert_eq!(optical.hessian_pp(&q, &p), AutoDiff(Optical).hessian(&q, &p).pp);
    }

    #[test]
    fn separable_from_derivatives_matches_the_model_form() {
        /// `V2` with hand-written derivatives.
        struct V2Exact;
        impl ScalarDerivatives<2> for V2Exact {
            fn value(&self, q: &SVector<f64, 2>) -> f64 {
                -1.0 / q.norm() + q[0] * q[1] * q[1]
            }
            fn gradient(&self, q: &SVector<f64, 2>) -> SVector<f64, 2> {
                let r3 = q.norm().powi(3);
                SVector::from([q[0] / r3 + q[1] * q[1], q[1] / r3 + 2.0 * q[0] * q[1]])
            }
            fn hessian(&self, q: &SVector<f64, 2>) -> SMatrix<f64, 2, 2> {
                let r = q.norm();
                let kepler = SMatrix::<f64, 2, 2>::identity() / r.powi(3) - q * q.transpose() * (3.0 / r.powi(5));
                kepler + SMatrix::from([[0.0, 2.0 * q[1]], [2.0 * q[1], 2.0 * q[0]]])
            }
        }
        let (q, p) = (SVector::from([0.7, -0.4]), SVector::from([0.3, 1.1]));
        assert!(check_scalar_against_ad(&V2Exact, &V2, &q) < 1e-13);
        let hand = Separable::from_derivatives(AutoDiff(T2), V2Exact);
        assert!(hand.is_separable());
        assert!(check_against_ad(&hand, &Sum, &q, &p) < 1e-13);
        // AD parts through `Derivatives` are the model form, bit for bit
        let ad = Separable::from_derivatives(AutoDiff(T2), AutoDiff(V2));
        let model = Separable::new(T2, V2);
        assert_eq!(ad.value(&q, &p), model.value(&q, &p));
        assert_eq!(ad.gradient(&q, &p), model.gradient(&q, &p));
        assert_eq!(ad.gradient_and_hessian(&q, &p), model.gradient_and_hessian(&q, &p));
        assert_eq!(
            (ad.gradient_q(&q, &p), ad.gradient_p(&q, &p)),
            (model.gradient_q(&q, &p), model.gradient_p(&q, &p))
        );
    }
}
