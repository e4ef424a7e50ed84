//! A formula's value, gradient and Hessian as compiled programs at `f64` ([`super::tape::Tape`]),
//! from its symbolic derivatives ([`super::symbolic`]): the derivatives of a formula model in the
//! integrators' hot loop without a dual number or a recursive walk of the tree.

use super::Formula;
use super::symbolic::Graph;
use super::tape::Tape;

/// The most nodes the graph of a formula and its derivatives may reach; beyond it the derivatives
/// are left to automatic differentiation of the tree ([`Compiled::gradient`] or
/// [`Compiled::hessian`] is `None`).
pub(crate) const GRAPH_LIMIT: usize = 50_000;

/// The compiled value and derivatives of a formula in `n` variables (module documentation).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Compiled {
    /// `f`.
    pub(crate) value: Tape,
    /// `∂f/∂x_k` for `k < split`, then for `split <= k < n` (two programs, so that a caller
    /// needing one half, e.g. `∂H/∂q`, does not compute the other).
    pub(crate) gradient: Option<[Tape; 2]>,
    /// `∂²f/∂x_i∂x_j` for `i <= j`, row by row.
    pub(crate) hessian: Option<Tape>,
}

impl Compiled {
    /// The programs of `formula` in its first `n` variables, the gradient split at `split`.
    pub(crate) fn new(formula: &Formula, n: usize, split: usize) -> Self {
        let (mut graph, root) = Graph::from_tree(&formula.nodes);
        let value = Tape::compile(&graph, &[root]);
        let mut grad = Vec::with_capacity(n);
        for k in 0..n {
            grad.push(graph.derivative(root, k));
            if !graph.within(GRAPH_LIMIT) {
                return Self { value, gradient: None, hessian: None };
            }
        }
        let gradient = Some([Tape::compile(&graph, &grad[..split]), Tape::compile(&graph, &grad[split..])]);
        let mut hess = Vec::with_capacity(n * (n + 1) / 2);
        for (i, &gi) in grad.iter().enumerate() {
            for j in i..n {
                hess.push(graph.derivative(gi, j));
                if !graph.within(GRAPH_LIMIT) {
                    return Self { value, gradient, hessian: None };
                }
            }
        }
        Self { value, gradient, hessian: Some(Tape::compile(&graph, &hess)) }
    }
}
