//! A Lagrangian `L(q, v)` on `TR^N` written as a formula in named coordinates and velocities:
//! the same formula in `2N` variables as a [`FormulaHamiltonian`] (one parser, one compiled
//! derivative program), read as `(q, v)` instead of `(q, p)`.

use super::models::FormulaHamiltonian;
use super::{Formula, FormulaError};
use crate::function::{Hessian, PhaseSpaceDerivatives, PhaseSpaceFunction};
use crate::newton::{NewtonOptions, newton};
use crate::{GeomError, Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// A Lagrangian `L(q, v)` on the tangent bundle `TR^N` written as a formula in the coordinates
/// `q_1 … q_N`, then the velocities `v_1 … v_N` (named by the caller), evaluated at every scalar:
/// a [`PhaseSpaceFunction<N>`] with `(q, v)` in place of `(q, p)`, which is what
/// `groupoid::time_dependent::ContinuousLagrangian<N>` is, so that its midpoint discrete Lagrangian
///
/// ```text
///   L_d(q_0, q_1) = h L((q_0 + q_1)/2, (q_1 − q_0)/h)
/// ```
///
/// (`groupoid::time_dependent::Midpoint`) is a discrete Lagrangian on the pair groupoid
/// `R^N × R^N`, and the groupoid layer's discrete Euler–Lagrange flows integrate it (Marsden &
/// West, *Discrete mechanics and variational integrators*, Acta Numerica 10, 2001). Its
/// derivatives at `f64` ([`PhaseSpaceDerivatives`], the "`q`" and "`p`" halves being `∂/∂q` and
/// `∂/∂v`) are the compiled symbolic ones of the formula, as for a [`FormulaHamiltonian`]: the
/// type holds one, parsed by the same parser with the velocities in place of the momenta.
///
/// The fibre derivative (Legendre transform) and the energy are
///
/// ```text
///   p = FL(q, v) = ∂L/∂v (q, v)       ([`FormulaLagrangian::momentum`]),
///   E(q, v) = v·∂L/∂v − L             ([`FormulaLagrangian::energy`]),
/// ```
///
/// and a regular Lagrangian (`∂²L/∂v²` invertible) has `v` back from `p` by Newton's method on
/// `∂L/∂v(q, v) = p` ([`FormulaLagrangian::velocity`]).
///
/// ```
/// use geom_core::formula::FormulaLagrangian;
/// use nalgebra::Vector1;
/// // L = ½ (1 + q²) v² − q²/2: p = (1 + q²) v, E = ½ (1 + q²) v² + q²/2
/// let l = FormulaLagrangian::<1>::parse("0.5*(1 + q^2)*v^2 - 0.5*q^2", &["q"], &["v"], &[])?;
/// let (q, v) = (Vector1::new(2.0), Vector1::new(0.5));
/// let p = l.momentum(&q, &v);
/// assert!((p[0] - 2.5).abs() < 1e-15);
/// assert!((l.energy(&q, &v) - (0.5 * 5.0 * 0.25 + 2.0)).abs() < 1e-15);
/// assert!((l.velocity(&q, &p, &Vector1::zeros())?[0] - 0.5).abs() < 1e-15);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct FormulaLagrangian<const N: usize> {
    /// The formula in `(q, v)`, held as the `(q, p)` formula it is to the parser and compiler.
    inner: FormulaHamiltonian<N>,
}

impl<const N: usize> FormulaLagrangian<N> {
    /// `text` in the coordinates `q` and velocities `v` (`N` names each, all distinct) with the
    /// parameters `params`; the errors of [`Formula::parse`] (a name declared twice among them),
    /// and a wrong number of names.
    pub fn parse(
        text: &str,
        q: &[&str],
        v: &[&str],
        params: &[(&str, f64)],
    ) -> std::result::Result<Self, FormulaError> {
        Ok(Self { inner: FormulaHamiltonian::parse_pair(text, q, v, "velocities", params)? })
    }
    /// The formula.
    pub fn formula(&self) -> &Formula {
        self.inner.formula()
    }
    /// Whether the formula uses any velocity (after constant folding).
    pub fn uses_velocities(&self) -> bool {
        self.inner.uses_momenta()
    }
    /// The momentum `p = ∂L/∂v (q, v)` (the fibre derivative).
    pub fn momentum(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SVector<f64, N> {
        self.inner.gradient_p(q, v)
    }
    /// The mass matrix `∂²L/∂v² (q, v)`, the Jacobian of the fibre derivative in `v`.
    pub fn mass_matrix(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        self.inner.hessian(q, v).pp
    }
    /// The energy `E(q, v) = v·∂L/∂v − L` (the Legendre transform's Hamiltonian at `p = ∂L/∂v`).
    pub fn energy(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> f64 {
        v.dot(&self.momentum(q, v)) - self.inner.value(q, v)
    }
    /// The velocity `v` with `∂L/∂v (q, v) = p`, by Newton's method from `guess` with the
    /// Jacobian `∂²L/∂v²` ([`NewtonOptions::integrator`]): the inverse Legendre transform.
    /// [`GeomError::SingularMatrix`] where `∂²L/∂v²` is singular (a Lagrangian that is not
    /// regular, e.g. linear in `v`), [`GeomError::NotConverged`] or
    /// [`GeomError::NonFinite`] where Newton fails.
    pub fn velocity(
        &self,
        q: &SVector<f64, N>,
        p: &SVector<f64, N>,
        guess: &SVector<f64, N>,
    ) -> Result<SVector<f64, N>> {
        if !q.iter().chain(p.iter()).chain(guess.iter()).all(|x| x.is_finite()) {
            return Err(GeomError::NonFinite { what: "(q, p) of the inverse Legendre transform" });
        }
        let residual = |v: &SVector<f64, N>| {
            let ((_, dv), hessian) = self.inner.gradient_and_hessian(q, v);
            Ok((dv - p, hessian.pp))
        };
        Ok(newton(residual, guess, &NewtonOptions::integrator())?.0)
    }
}

impl<const N: usize> PhaseSpaceFunction<N> for FormulaLagrangian<N> {
    /// `L(q, v)` at any scalar (the second argument is the velocity).
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, N>, v: &SVector<S, N>) -> S {
        self.inner.eval(q, v)
    }
}

/// The symbolic derivatives of the formula, as for [`FormulaHamiltonian`] (or by [`AutoDiff`](crate::function::AutoDiff)
/// where they were too large to compile), with `v` in place of `p`: `gradient_p` is `∂L/∂v` and
/// the Hessian's `pp` block is `∂²L/∂v²`.
impl<const N: usize> PhaseSpaceDerivatives<N> for FormulaLagrangian<N> {
    #[inline]
    fn value(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> f64 {
        self.inner.value(q, v)
    }
    #[inline]
    fn gradient(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> (SVector<f64, N>, SVector<f64, N>) {
        self.inner.gradient(q, v)
    }
    #[inline]
    fn gradient_q(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SVector<f64, N> {
        self.inner.gradient_q(q, v)
    }
    #[inline]
    fn gradient_p(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SVector<f64, N> {
        self.inner.gradient_p(q, v)
    }
    fn hessian(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> Hessian<N> {
        self.inner.hessian(q, v)
    }
}
