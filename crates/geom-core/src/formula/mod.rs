//! Models written as text: a formula such as `0.5*(p1^2 + p2^2) - mu/sqrt(q1^2 + q2^2)` is
//! parsed once into an expression tree ([`Formula`]) and evaluated at any [`Scalar`] — `f64` or
//! a dual number — so a formula is a model like one written in Rust, with exact derivatives by
//! the same automatic differentiation, and every method of the library applies to it.
//!
//! # The language
//!
//! ```text
//!   expr    = term { ("+" | "-") term }
//!   term    = unary { ("*" | "/") unary }
//!   unary   = "-" unary | "+" unary | power
//!   power   = atom [ ("^" | "**") unary ]          (right-associative: a^b^c = a^(b^c))
//!   atom    = number | name | name "(" expr { "," expr } ")" | "(" expr ")"
//! ```
//!
//! `-x^2` is `-(x^2)`. Names are the formula's variables (given by the caller, e.g. `q1`,
//! `p1`), its parameters (replaced by their values when the formula is parsed), and the
//! constant `pi`. Functions: `sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh exp
//! log` (natural, also `ln`) `sqrt cbrt abs` and the two-argument `atan2(y, x)`, `pow(x, y)`.
//!
//! Constant subexpressions are evaluated when the formula is parsed. A power whose exponent is
//! a constant integer is `powi` (exact, and defined for negative bases), a constant non-integer
//! exponent is `powf`, and a variable exponent is `x^y = exp(y ln x)` (`DualNum::powd`).
//!
//! # Derivatives
//!
//! A formula is a model at every scalar, so `AutoDiff(model)` differentiates it as it does a
//! model written in Rust. The models of this module ([`FormulaFunction`], [`FormulaHamiltonian`],
//! [`FormulaLagrangian`]) are also their own derivatives at `f64`: when they are parsed, the
//! gradient `∂f/∂x_k` and the Hessian `∂²f/∂x_i∂x_j` are derived symbolically (the chain rule
//! node by node, with shared subexpressions and the simplifications of real arithmetic; the rules
//! are in the source's `symbolic` module) and compiled into flat register programs, so the
//! integrators' hot loop
//! evaluates no dual number and walks no tree. The two agree to round-off (tested on every
//! function of the language). A formula whose derivatives would need more than 50 000 nodes
//! keeps automatic differentiation.
//!
//! # Errors
//!
//! A formula that cannot be parsed gives one [`FormulaError`] naming the column (1-based, in
//! characters) and what was expected or found: a syntax error, an unknown name (with the names
//! that are known), a function with the wrong number of arguments, a nesting deeper than
//! [`MAX_DEPTH`]. Nothing panics, whatever the text; the tree has at most [`MAX_NODES`] nodes
//! and evaluation recurses at most [`MAX_DEPTH`] deep.
//!
//! ```
//! use geom_core::formula::Formula;
//! let f = Formula::parse("0.5*p^2 - mu/abs(q)", &["q", "p"], &[("mu", 2.0)])?;
//! assert_eq!(f.eval(&[2.0, 3.0]), 0.5 * 9.0 - 1.0);
//! let err = Formula::parse("0.5*p^2 - nu/q", &["q", "p"], &[("mu", 2.0)]).unwrap_err();
//! assert_eq!(err.column, 11);
//! # Ok::<(), geom_core::formula::FormulaError>(())
//! ```

mod compiled;
mod lagrangian;
mod models;
mod parse;
mod symbolic;
mod tape;

pub use lagrangian::FormulaLagrangian;
pub use models::{FormulaFunction, FormulaHamiltonian};

use crate::Scalar;
use num_dual::DualNum;

/// The deepest nesting a formula may have (parentheses, function calls, operators): evaluation
/// recurses at most this deep.
pub const MAX_DEPTH: usize = 256;
/// The most nodes (numbers, names, operations) a formula may have.
pub const MAX_NODES: usize = 10_000;

/// A formula that cannot be parsed: where, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at column {column} of '{text}'")]
pub struct FormulaError {
    /// The formula.
    pub text: String,
    /// The 1-based column (in characters) of the offending token.
    pub column: usize,
    /// What was wrong.
    pub message: String,
}

/// A function of one argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fn1 {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Exp,
    Ln,
    Sqrt,
    Cbrt,
    Abs,
    /// `sign(v) = −1` for `v < 0`, else `1`: the derivative of `abs` (not in the language; made by
    /// the symbolic derivative).
    Sign,
}

/// A node of the expression tree; children are indices into [`Formula::nodes`], always smaller
/// than the node's own index (the root is the last node).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Node {
    Const(f64),
    Var(usize),
    Neg(usize),
    Add(usize, usize),
    Sub(usize, usize),
    Mul(usize, usize),
    Div(usize, usize),
    PowI(usize, i32),
    PowF(usize, f64),
    Pow(usize, usize),
    Atan2(usize, usize),
    Call(Fn1, usize),
}

/// A parsed formula in the variables `x_0 … x_{n−1}` ([`Formula::parse`]), evaluated at any
/// scalar by [`Formula::eval`].
#[derive(Debug, Clone, PartialEq)]
pub struct Formula {
    text: String,
    variables: Vec<String>,
    nodes: Vec<Node>,
}

impl Formula {
    /// Parses `text` in the variables `variables` (their order is the order of the values
    /// [`eval`](Self::eval) takes) with the parameters `params` (`(name, value)`, replaced by
    /// their values). A variable or parameter named like a function or `pi` shadows it; two
    /// variables or parameters of the same name are an error.
    pub fn parse(text: &str, variables: &[&str], params: &[(&str, f64)]) -> Result<Self, FormulaError> {
        let nodes = parse::parse(text, variables, params)?;
        Ok(Self { text: text.to_string(), variables: variables.iter().map(|s| s.to_string()).collect(), nodes })
    }
    /// The formula as written.
    pub fn text(&self) -> &str {
        &self.text
    }
    /// The variables, in the order [`eval`](Self::eval) takes their values.
    pub fn variables(&self) -> &[String] {
        &self.variables
    }
    /// Whether the value depends on variable `k` syntactically (it appears in the formula after
    /// constant folding).
    pub fn uses(&self, k: usize) -> bool {
        self.nodes.contains(&Node::Var(k))
    }
    /// The value at `x` (`x[k]` is the value of variable `k`); a variable beyond `x` reads as
    /// NaN.
    pub fn eval<S: Scalar>(&self, x: &[S]) -> S {
        self.eval_with(&|k: usize| x.get(k).copied().unwrap_or_else(|| S::from(f64::NAN)))
    }
    /// The value with variable `k` read by `var(k)` (no buffer of the variables is made).
    pub fn eval_with<S: Scalar, F: Fn(usize) -> S>(&self, var: &F) -> S {
        self.node(self.nodes.len() - 1, var)
    }

    fn node<S: Scalar, F: Fn(usize) -> S>(&self, i: usize, x: &F) -> S {
        match self.nodes[i] {
            Node::Const(c) => S::from(c),
            Node::Var(k) => x(k),
            Node::Neg(a) => -self.node(a, x),
            Node::Add(a, b) => self.node(a, x) + self.node(b, x),
            Node::Sub(a, b) => self.node(a, x) - self.node(b, x),
            Node::Mul(a, b) => self.node(a, x) * self.node(b, x),
            Node::Div(a, b) => self.node(a, x) / self.node(b, x),
            Node::PowI(a, n) => DualNum::powi(&self.node(a, x), n),
            Node::PowF(a, e) => DualNum::powf(&self.node(a, x), e),
            Node::Pow(a, b) => DualNum::powd(&self.node(a, x), self.node(b, x)),
            Node::Atan2(y, z) => DualNum::atan2(&self.node(y, x), self.node(z, x)),
            Node::Call(f, a) => call(f, self.node(a, x)),
        }
    }
}

/// `f(v)` at any scalar.
#[inline]
pub(crate) fn call<S: Scalar>(f: Fn1, v: S) -> S {
    match f {
        Fn1::Sin => DualNum::sin(&v),
        Fn1::Cos => DualNum::cos(&v),
        Fn1::Tan => DualNum::tan(&v),
        Fn1::Asin => DualNum::asin(&v),
        Fn1::Acos => DualNum::acos(&v),
        Fn1::Atan => DualNum::atan(&v),
        Fn1::Sinh => DualNum::sinh(&v),
        Fn1::Cosh => DualNum::cosh(&v),
        Fn1::Tanh => DualNum::tanh(&v),
        Fn1::Asinh => DualNum::asinh(&v),
        Fn1::Acosh => DualNum::acosh(&v),
        Fn1::Atanh => DualNum::atanh(&v),
        Fn1::Exp => DualNum::exp(&v),
        Fn1::Ln => DualNum::ln(&v),
        Fn1::Sqrt => DualNum::sqrt(&v),
        Fn1::Cbrt => DualNum::cbrt(&v),
        // |v| = v sign(re v): the derivative of |v| is sign(v) away from 0
        Fn1::Abs => {
            if v.re() < 0.0 {
                -v
            } else {
                v
            }
        }
        Fn1::Sign => S::from(if v.re() < 0.0 { -1.0 } else { 1.0 }),
    }
}

#[cfg(test)]
mod tests;
