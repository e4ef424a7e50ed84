//! Formulas as the models of the function layer ([`crate::function`]): a function of `N`
//! variables ([`ScalarFunction`]) and a Hamiltonian `H(q, p)` ([`PhaseSpaceFunction`]), so that
//! `AutoDiff`, `SeparableAutoDiff` and `Separable` give their exact derivatives as for a model
//! written in Rust.
//!
//! Each is also its own derivatives at `f64` ([`ScalarDerivatives`], [`PhaseSpaceDerivatives`]):
//! the symbolic gradient and Hessian of the formula, built and compiled once when it is parsed
//! (module `symbolic`), evaluated as flat programs — the route the integrators' hot loops take
//! (`Separable::from_derivatives(t, v)`, or the Hamiltonian itself). They equal the automatic
//! derivatives to round-off (tested); a formula whose derivatives would exceed the size bound
//! of the compiled graph keeps automatic differentiation.

use super::compiled::Compiled;
use super::{Formula, FormulaError};
use crate::Scalar;
use crate::function::{
    AutoDiff, Hessian, PhaseSpaceDerivatives, PhaseSpaceFunction, ScalarDerivatives, ScalarFunction,
};
use nalgebra::{SMatrix, SVector};

/// A [`Formula`] in `N` variables as a [`ScalarFunction<N>`]: `f(x) = formula(x_1, …, x_N)`
/// (e.g. a kinetic energy `T(p)` or a potential `V(q)` of a [`crate::function::Separable`]
/// Hamiltonian, or a monitored invariant).
#[derive(Debug, Clone, PartialEq)]
pub struct FormulaFunction<const N: usize> {
    formula: Formula,
    compiled: Box<Compiled>,
}

impl<const N: usize> FormulaFunction<N> {
    /// `text` in the variables `variables` (exactly `N`) with the parameters `params`; the
    /// errors of [`Formula::parse`], and a wrong number of variables.
    pub fn parse(text: &str, variables: &[&str], params: &[(&str, f64)]) -> Result<Self, FormulaError> {
        if variables.len() != N {
            return Err(FormulaError {
                text: text.to_string(),
                column: 1,
                message: format!("{} variables given for a function of {N}", variables.len()),
            });
        }
        let formula = Formula::parse(text, variables, params)?;
        let compiled = Box::new(Compiled::new(&formula, N, N));
        Ok(Self { formula, compiled })
    }
    /// The formula.
    pub fn formula(&self) -> &Formula {
        &self.formula
    }
    /// Whether the gradient and Hessian are the compiled symbolic ones (not the fallback to
    /// automatic differentiation).
    #[cfg(test)]
    pub(crate) fn symbolic(&self) -> bool {
        self.compiled.gradient.is_some() && self.compiled.hessian.is_some()
    }
}

impl<const N: usize> ScalarFunction<N> for FormulaFunction<N> {
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, N>) -> S {
        self.formula.eval_with(&|k: usize| x[k])
    }
}

/// The symbolic derivatives of the formula (module documentation): `∇f` and `D²f` from the
/// compiled programs, or by [`AutoDiff`] of the formula where they were too large to compile.
impl<const N: usize> ScalarDerivatives<N> for FormulaFunction<N> {
    #[inline]
    fn value(&self, x: &SVector<f64, N>) -> f64 {
        let mut v = 0.0;
        self.compiled.value.eval(|k| x[k], |_, y| v = y);
        v
    }
    #[inline]
    fn gradient(&self, x: &SVector<f64, N>) -> SVector<f64, N> {
        match &self.compiled.gradient {
            Some([g, _]) => {
                let mut out = SVector::zeros();
                g.eval(|k| x[k], |j, y| out[j] = y);
                out
            }
            None => AutoDiff(self).gradient(x),
        }
    }
    fn hessian(&self, x: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        match &self.compiled.hessian {
            Some(h) => {
                let mut out = SMatrix::zeros();
                h.eval(
                    |k| x[k],
                    |j, y| {
                        let (r, c) = upper(N, j);
                        out[(r, c)] = y;
                        out[(c, r)] = y;
                    },
                );
                out
            }
            None => AutoDiff(self).hessian(x),
        }
    }
}

/// `(i, j)`, `i <= j`, of entry `m` of an upper triangle of order `n` stored row by row.
fn upper(n: usize, mut m: usize) -> (usize, usize) {
    let mut i = 0;
    while m >= n - i {
        m -= n - i;
        i += 1;
    }
    (i, i + m)
}

/// A Hamiltonian `H(q, p)` on `T*R^N` written as a formula in the variables `q_1 … q_N`, then
/// `p_1 … p_N` (named by the caller): a [`PhaseSpaceFunction<N>`], whose derivatives come from
/// `AutoDiff(h)` (any `H`) or `SeparableAutoDiff` (an `H = T(p) + V(q)` declared separable).
#[derive(Debug, Clone, PartialEq)]
pub struct FormulaHamiltonian<const N: usize> {
    formula: Formula,
    compiled: Box<Compiled>,
}

impl<const N: usize> FormulaHamiltonian<N> {
    /// `text` in the coordinates `q` and momenta `p` (`N` names each) with the parameters
    /// `params`; the errors of [`Formula::parse`], and a wrong number of names.
    pub fn parse(text: &str, q: &[&str], p: &[&str], params: &[(&str, f64)]) -> Result<Self, FormulaError> {
        Self::parse_pair(text, q, p, "momenta", params)
    }
    /// The one parser of a formula in `2N` variables, `q_1 … q_N` then `second` (named `what` in
    /// the error of a wrong count): the Hamiltonian's `p`, or a Lagrangian's velocities
    /// ([`super::FormulaLagrangian`]).
    pub(super) fn parse_pair(
        text: &str,
        q: &[&str],
        second: &[&str],
        what: &str,
        params: &[(&str, f64)],
    ) -> Result<Self, FormulaError> {
        if q.len() != N || second.len() != N {
            return Err(FormulaError {
                text: text.to_string(),
                column: 1,
                message: format!("{} coordinates and {} {what} given for N = {N}", q.len(), second.len()),
            });
        }
        let names: Vec<&str> = q.iter().chain(second).copied().collect();
        let formula = Formula::parse(text, &names, params)?;
        let compiled = Box::new(Compiled::new(&formula, 2 * N, N));
        Ok(Self { formula, compiled })
    }
    /// The formula.
    pub fn formula(&self) -> &Formula {
        &self.formula
    }
    /// Whether the gradient and Hessian are the compiled symbolic ones (not the fallback to
    /// automatic differentiation).
    #[cfg(test)]
    pub(crate) fn symbolic(&self) -> bool {
        self.compiled.gradient.is_some() && self.compiled.hessian.is_some()
    }
    /// Whether the formula uses any momentum (after constant folding). Separability is not
    /// inferred: a Hamiltonian given as one formula is general unless the caller declares it
    /// separable.
    pub fn uses_momenta(&self) -> bool {
        (N..2 * N).any(|k| self.formula.uses(k))
    }
}

impl<const N: usize> PhaseSpaceFunction<N> for FormulaHamiltonian<N> {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, N>, p: &SVector<S, N>) -> S {
        // variable k < N is q_k, then p_{k-N}; no buffer is made
        self.formula.eval_with(&|k: usize| if k < N { q[k] } else { p[k - N] })
    }
}

/// Variable `k` of `H(q, p)`: `q_k`, then `p_{k−N}`.
#[inline]
fn phase<const N: usize>(q: &SVector<f64, N>, p: &SVector<f64, N>) -> impl Fn(usize) -> f64 {
    move |k| if k < N { q[k] } else { p[k - N] }
}

/// The symbolic derivatives of the formula (module documentation): the gradient's halves
/// `∂H/∂q`, `∂H/∂p` and the Hessian's blocks from the compiled programs, or by [`AutoDiff`] of
/// the formula where they were too large to compile. A formula Hamiltonian is general (not
/// separable) unless given as `Separable` parts.
impl<const N: usize> PhaseSpaceDerivatives<N> for FormulaHamiltonian<N> {
    #[inline]
    fn value(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> f64 {
        let mut v = 0.0;
        self.compiled.value.eval(phase(q, p), |_, y| v = y);
        v
    }
    #[inline]
    fn gradient(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> (SVector<f64, N>, SVector<f64, N>) {
        (self.gradient_q(q, p), self.gradient_p(q, p))
    }
    #[inline]
    fn gradient_q(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        match &self.compiled.gradient {
            Some([g, _]) => {
                let mut out = SVector::zeros();
                g.eval(phase(q, p), |j, y| out[j] = y);
                out
            }
            None => AutoDiff(self).gradient_q(q, p),
        }
    }
    #[inline]
    fn gradient_p(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        match &self.compiled.gradient {
            Some([_, g]) => {
                let mut out = SVector::zeros();
                g.eval(phase(q, p), |j, y| out[j] = y);
                out
            }
            None => AutoDiff(self).gradient_p(q, p),
        }
    }
    fn hessian(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> Hessian<N> {
        match &self.compiled.hessian {
            Some(h) => {
                let mut out = Hessian { qq: SMatrix::zeros(), qp: SMatrix::zeros(), pp: SMatrix::zeros() };
                h.eval(phase(q, p), |m, y| {
                    let (i, j) = upper(2 * N, m);
                    match (i < N, j < N) {
                        (true, true) => {
                            out.qq[(i, j)] = y;
                            out.qq[(j, i)] = y;
                        }
                        (true, false) => out.qp[(i, j - N)] = y,
                        (false, false) => {
                            out.pp[(i - N, j - N)] = y;
                            out.pp[(j - N, i - N)] = y;
                        }
                        // i <= j: a q index never follows a p index
                        (false, true) => {}
                    }
                });
                out
            }
            None => AutoDiff(self).hessian(q, p),
        }
    }
}
