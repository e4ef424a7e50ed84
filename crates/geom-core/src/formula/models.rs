//! Formulas as the models of the function layer ([`crate::function`]): a function of `N`
//! variables ([`ScalarFunction`]) and a Hamiltonian `H(q, p)` ([`PhaseSpaceFunction`]), so that
//! `AutoDiff`, `SeparableAutoDiff` and `Separable` give their exact derivatives as for a model
//! written in Rust.

use super::{Formula, FormulaError};
use crate::Scalar;
use crate::function::{PhaseSpaceFunction, ScalarFunction};
use nalgebra::SVector;

/// A [`Formula`] in `N` variables as a [`ScalarFunction<N>`]: `f(x) = formula(x_1, …, x_N)`
/// (e.g. a kinetic energy `T(p)` or a potential `V(q)` of a [`crate::function::Separable`]
/// Hamiltonian, or a monitored invariant).
#[derive(Debug, Clone, PartialEq)]
pub struct FormulaFunction<const N: usize>(Formula);

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
        Formula::parse(text, variables, params).map(Self)
    }
    /// The formula.
    pub fn formula(&self) -> &Formula {
        &self.0
    }
}

impl<const N: usize> ScalarFunction<N> for FormulaFunction<N> {
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, N>) -> S {
        self.0.eval_with(&|k: usize| x[k])
    }
}

/// A Hamiltonian `H(q, p)` on `T*R^N` written as a formula in the variables `q_1 … q_N`, then
/// `p_1 … p_N` (named by the caller): a [`PhaseSpaceFunction<N>`], whose derivatives come from
/// `AutoDiff(h)` (any `H`) or `SeparableAutoDiff` (an `H = T(p) + V(q)` declared separable).
#[derive(Debug, Clone, PartialEq)]
pub struct FormulaHamiltonian<const N: usize>(Formula);

impl<const N: usize> FormulaHamiltonian<N> {
    /// `text` in the coordinates `q` and momenta `p` (`N` names each) with the parameters
    /// `params`; the errors of [`Formula::parse`], and a wrong number of names.
    pub fn parse(text: &str, q: &[&str], p: &[&str], params: &[(&str, f64)]) -> Result<Self, FormulaError> {
        if q.len() != N || p.len() != N {
            return Err(FormulaError {
                text: text.to_string(),
                column: 1,
                message: format!("{} coordinates and {} momenta given for N = {N}", q.len(), p.len()),
            });
        }
        let names: Vec<&str> = q.iter().chain(p).copied().collect();
        Formula::parse(text, &names, params).map(Self)
    }
    /// The formula.
    pub fn formula(&self) -> &Formula {
        &self.0
    }
    /// Whether the formula uses any momentum (after constant folding). Separability is not
    /// inferred: a Hamiltonian given as one formula is general unless the caller declares it
    /// separable.
    pub fn uses_momenta(&self) -> bool {
        (N..2 * N).any(|k| self.0.uses(k))
    }
}

impl<const N: usize> PhaseSpaceFunction<N> for FormulaHamiltonian<N> {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, N>, p: &SVector<S, N>) -> S {
        // variable k < N is q_k, then p_{k-N}; no buffer is made
        self.0.eval_with(&|k: usize| if k < N { q[k] } else { p[k - N] })
    }
}
