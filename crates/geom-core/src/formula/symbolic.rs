//! Symbolic derivatives of a formula: its tree read into a graph with shared subexpressions, and
//! the derivative `∂f/∂x_k` built in the same graph by the chain rule, node by node.
//!
//! Each node is created once (hash-consing: a second `q1^2` is the first), and the simplifications
//! that are identities of real arithmetic are applied as it is created: constants fold,
//! `x + 0 = x`, `x − 0 = x`, `0 − x = −x`, `x·0 = 0`, `x·1 = x`, `x·(−1) = −x`, `x/1 = x`,
//! `0/x = 0`, `−(−x) = x`, `x^0 = 1`, `x^1 = x`, and constant factors gather on the left,
//! `c (d x) = (c d) x`. (`x·0 = 0` and `0/x = 0` are what the chain rule
//! means by "this term does not depend on `x_k`"; at `x = ±∞` or NaN the product would be NaN.)
//!
//! The rules, with `a' = ∂a/∂x_k`, each reusing the node itself (`f`) where the derivative
//! contains it:
//!
//! | node `f` | `f'` |
//! | --- | --- |
//! | `a ± b`, `−a` | `a' ± b'`, `−a'` |
//! | `a b` | `a' b + a b'` |
//! | `a / b` | `(a' − f b') / b` |
//! | `a^n` (integer), `a^e` (constant) | `n a^(n−1) a'`, `e a^(e−1) a'` |
//! | `a^b` (variable exponent) | `f (b' ln a + b a'/a)` |
//! | `atan2(a, b)` | `(b a' − a b') / (a² + b²)` |
//! | `sin a`, `cos a`, `tan a` | `cos a · a'`, `−sin a · a'`, `(1 + f²) a'` |
//! | `asin a`, `acos a`, `atan a` | `a'/√(1 − a²)`, `−a'/√(1 − a²)`, `a'/(1 + a²)` |
//! | `sinh a`, `cosh a`, `tanh a` | `cosh a · a'`, `sinh a · a'`, `(1 − f²) a'` |
//! | `asinh a`, `acosh a`, `atanh a` | `a'/√(a² + 1)`, `a'/√(a² − 1)`, `a'/(1 − a²)` |
//! | `exp a`, `ln a`, `√a`, `∛a` | `f a'`, `a'/a`, `a'/(2f)`, `a'/(3f²)` |
//! | `abs a` | `sign(a) a'` (`sign(0) = 1`, the convention of [`super::call`] at dual numbers) |
//!
//! The graph's size is bounded by the caller ([`Graph::within`]): a derivative of a graph of `n`
//! nodes adds at most a fixed multiple of `n`, so a gradient costs `O(N n)` nodes and a Hessian
//! `O(N² n)`; a caller that finds the graph too large keeps automatic differentiation instead.

use super::{Fn1, Node, call};
use std::collections::HashMap;

/// The identity of a node for hash-consing (`f64` fields by their bits).
fn key(n: &Node) -> (u8, u64, u64) {
    let u = |i: usize| i as u64;
    match *n {
        Node::Const(c) => (0, c.to_bits(), 0),
        Node::Var(k) => (1, u(k), 0),
        Node::Neg(a) => (2, u(a), 0),
        Node::Add(a, b) => (3, u(a), u(b)),
        Node::Sub(a, b) => (4, u(a), u(b)),
        Node::Mul(a, b) => (5, u(a), u(b)),
        Node::Div(a, b) => (6, u(a), u(b)),
        Node::PowI(a, n) => (7, u(a), n as i64 as u64),
        Node::PowF(a, e) => (8, u(a), e.to_bits()),
        Node::Pow(a, b) => (9, u(a), u(b)),
        Node::Atan2(a, b) => (10, u(a), u(b)),
        Node::Call(f, a) => (11 + f as u8, u(a), 0),
    }
}

/// A graph of formula nodes with shared subexpressions; children precede their parents.
#[derive(Debug, Default)]
pub(crate) struct Graph {
    nodes: Vec<Node>,
    index: HashMap<(u8, u64, u64), usize>,
}

impl Graph {
    /// The graph of a parsed tree (`nodes` in the order of [`super::Formula`]); returns the
    /// graph and the root.
    pub(crate) fn from_tree(tree: &[Node]) -> (Self, usize) {
        let mut g = Self::default();
        let mut map = Vec::with_capacity(tree.len());
        for node in tree {
            let m = |i: usize| map[i];
            let n = match *node {
                Node::Const(c) => Node::Const(c),
                Node::Var(k) => Node::Var(k),
                Node::Neg(a) => Node::Neg(m(a)),
                Node::Add(a, b) => Node::Add(m(a), m(b)),
                Node::Sub(a, b) => Node::Sub(m(a), m(b)),
                Node::Mul(a, b) => Node::Mul(m(a), m(b)),
                Node::Div(a, b) => Node::Div(m(a), m(b)),
                Node::PowI(a, n) => Node::PowI(m(a), n),
                Node::PowF(a, e) => Node::PowF(m(a), e),
                Node::Pow(a, b) => Node::Pow(m(a), m(b)),
                Node::Atan2(a, b) => Node::Atan2(m(a), m(b)),
                Node::Call(f, a) => Node::Call(f, m(a)),
            };
            let i = g.push(n);
            map.push(i);
        }
        let root = *map.last().expect("a parsed formula has a node");
        (g, root)
    }

    /// The nodes (children before parents).
    pub(crate) fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Whether the graph has at most `limit` nodes.
    pub(crate) fn within(&self, limit: usize) -> bool {
        self.nodes.len() <= limit
    }

    fn constant(&self, i: usize) -> Option<f64> {
        match self.nodes[i] {
            Node::Const(c) => Some(c),
            _ => None,
        }
    }

    fn is(&self, i: usize, v: f64) -> bool {
        self.constant(i) == Some(v)
    }

    fn intern(&mut self, n: Node) -> usize {
        let k = key(&n);
        if let Some(&i) = self.index.get(&k) {
            return i;
        }
        self.nodes.push(n);
        self.index.insert(k, self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    /// The node `n`, simplified (module documentation) and shared.
    pub(crate) fn push(&mut self, n: Node) -> usize {
        let c = |i: usize| self.constant(i);
        let folded = match n {
            Node::Neg(a) => c(a).map(|x| -x),
            Node::PowI(a, k) => c(a).map(|x| x.powi(k)),
            Node::PowF(a, e) => c(a).map(|x| x.powf(e)),
            Node::Call(f, a) => c(a).map(|x| call(f, x)),
            Node::Add(a, b) => c(a).zip(c(b)).map(|(x, y)| x + y),
            Node::Sub(a, b) => c(a).zip(c(b)).map(|(x, y)| x - y),
            Node::Mul(a, b) => c(a).zip(c(b)).map(|(x, y)| x * y),
            Node::Div(a, b) => c(a).zip(c(b)).map(|(x, y)| x / y),
            Node::Atan2(a, b) => c(a).zip(c(b)).map(|(x, y)| x.atan2(y)),
            Node::Pow(a, b) => c(a).zip(c(b)).map(|(x, y)| x.powf(y)),
            Node::Const(_) | Node::Var(_) => None,
        };
        if let Some(v) = folded {
            return self.intern(Node::Const(v));
        }
        // constants to the left of a product, and c (d x) = (c d) x
        if let Node::Mul(a, b) = n {
            if self.constant(b).is_some() {
                return self.push(Node::Mul(b, a));
            }
            if let (Some(c), Node::Mul(d, x)) = (self.constant(a), self.nodes[b])
                && let Some(d) = self.constant(d)
            {
                let cd = self.k(c * d);
                return self.push(Node::Mul(cd, x));
            }
        }
        match n {
            Node::Add(a, b) if self.is(a, 0.0) => b,
            Node::Add(a, b) | Node::Sub(a, b) if self.is(b, 0.0) => a,
            Node::Sub(a, b) if self.is(a, 0.0) => self.push(Node::Neg(b)),
            Node::Mul(a, b) if self.is(a, 0.0) || self.is(b, 0.0) => self.intern(Node::Const(0.0)),
            Node::Mul(a, b) if self.is(a, 1.0) => b,
            Node::Mul(a, b) if self.is(b, 1.0) => a,
            Node::Mul(a, b) if self.is(a, -1.0) => self.push(Node::Neg(b)),
            Node::Mul(a, b) if self.is(b, -1.0) => self.push(Node::Neg(a)),
            Node::Div(a, b) if self.is(b, 1.0) => a,
            Node::Div(a, _) if self.is(a, 0.0) => a,
            Node::Neg(a) => match self.nodes[a] {
                Node::Neg(x) => x,
                _ => self.intern(n),
            },
            Node::PowI(_, 0) => self.intern(Node::Const(1.0)),
            Node::PowI(a, 1) => a,
            Node::PowF(a, 1.0) => a,
            _ => self.intern(n),
        }
    }

    fn k(&mut self, v: f64) -> usize {
        self.intern(Node::Const(v))
    }
    fn add(&mut self, a: usize, b: usize) -> usize {
        self.push(Node::Add(a, b))
    }
    fn sub(&mut self, a: usize, b: usize) -> usize {
        self.push(Node::Sub(a, b))
    }
    fn mul(&mut self, a: usize, b: usize) -> usize {
        self.push(Node::Mul(a, b))
    }
    fn div(&mut self, a: usize, b: usize) -> usize {
        self.push(Node::Div(a, b))
    }
    fn square(&mut self, a: usize) -> usize {
        self.push(Node::PowI(a, 2))
    }
    fn f1(&mut self, f: Fn1, a: usize) -> usize {
        self.push(Node::Call(f, a))
    }

    /// `∂(root)/∂x_k`, built in the graph by the rules of the module documentation; the node of
    /// the derivative.
    pub(crate) fn derivative(&mut self, root: usize, k: usize) -> usize {
        // the nodes the root depends on (children precede parents: one backward sweep)
        let mut needed = vec![false; root + 1];
        needed[root] = true;
        for i in (0..=root).rev() {
            if needed[i] {
                for c in children(&self.nodes[i]) {
                    needed[c] = true;
                }
            }
        }
        let zero = self.k(0.0);
        let mut d = vec![zero; root + 1];
        for i in 0..=root {
            if needed[i] {
                d[i] = self.derivative_of(i, k, &d);
            }
        }
        d[root]
    }

    /// The chain rule at node `i`, given the derivatives `d` of its children.
    fn derivative_of(&mut self, i: usize, k: usize, d: &[usize]) -> usize {
        let f = i;
        match self.nodes[i] {
            Node::Const(_) => self.k(0.0),
            Node::Var(j) => self.k(if j == k { 1.0 } else { 0.0 }),
            Node::Neg(a) => self.push(Node::Neg(d[a])),
            Node::Add(a, b) => self.add(d[a], d[b]),
            Node::Sub(a, b) => self.sub(d[a], d[b]),
            Node::Mul(a, b) => {
                let (x, y) = (self.mul(d[a], b), self.mul(a, d[b]));
                self.add(x, y)
            }
            Node::Div(a, b) => {
                let fb = self.mul(f, d[b]);
                let num = self.sub(d[a], fb);
                self.div(num, b)
            }
            Node::PowI(a, n) => {
                let lower = self.push(Node::PowI(a, n - 1));
                let n = self.k(n as f64);
                let c = self.mul(n, lower);
                self.mul(c, d[a])
            }
            Node::PowF(a, e) => {
                let lower = self.push(Node::PowF(a, e - 1.0));
                let e = self.k(e);
                let c = self.mul(e, lower);
                self.mul(c, d[a])
            }
            Node::Pow(a, b) => {
                let ln_a = self.f1(Fn1::Ln, a);
                let x = self.mul(d[b], ln_a);
                let ba = self.mul(b, d[a]);
                let y = self.div(ba, a);
                let s = self.add(x, y);
                self.mul(f, s)
            }
            Node::Atan2(a, b) => {
                let (x, y) = (self.mul(b, d[a]), self.mul(a, d[b]));
                let num = self.sub(x, y);
                let (a2, b2) = (self.square(a), self.square(b));
                let den = self.add(a2, b2);
                self.div(num, den)
            }
            Node::Call(g, a) => {
                let da = d[a];
                // sign is piecewise constant: its derivative is 0 away from 0
                if self.is(da, 0.0) || g == Fn1::Sign {
                    return self.k(0.0);
                }
                let one = self.k(1.0);
                let factor = match g {
                    Fn1::Sin => self.f1(Fn1::Cos, a),
                    Fn1::Cos => {
                        let s = self.f1(Fn1::Sin, a);
                        self.push(Node::Neg(s))
                    }
                    Fn1::Tan => {
                        let f2 = self.square(f);
                        self.add(one, f2)
                    }
                    Fn1::Asin | Fn1::Acos => {
                        let a2 = self.square(a);
                        let r = self.sub(one, a2);
                        let s = self.f1(Fn1::Sqrt, r);
                        let inv = self.div(one, s);
                        if g == Fn1::Acos { self.push(Node::Neg(inv)) } else { inv }
                    }
                    Fn1::Atan => {
                        let a2 = self.square(a);
                        let r = self.add(one, a2);
                        self.div(one, r)
                    }
                    Fn1::Sinh => self.f1(Fn1::Cosh, a),
                    Fn1::Cosh => self.f1(Fn1::Sinh, a),
                    Fn1::Tanh => {
                        let f2 = self.square(f);
                        self.sub(one, f2)
                    }
                    Fn1::Asinh | Fn1::Acosh => {
                        let a2 = self.square(a);
                        let r = if g == Fn1::Asinh { self.add(a2, one) } else { self.sub(a2, one) };
                        let s = self.f1(Fn1::Sqrt, r);
                        self.div(one, s)
                    }
                    Fn1::Atanh => {
                        let a2 = self.square(a);
                        let r = self.sub(one, a2);
                        self.div(one, r)
                    }
                    Fn1::Exp => f,
                    Fn1::Ln => self.div(one, a),
                    Fn1::Sqrt => {
                        let two = self.k(2.0);
                        let two_f = self.mul(two, f);
                        self.div(one, two_f)
                    }
                    Fn1::Cbrt => {
                        let f2 = self.square(f);
                        let three = self.k(3.0);
                        let den = self.mul(three, f2);
                        self.div(one, den)
                    }
                    Fn1::Abs | Fn1::Sign => self.f1(Fn1::Sign, a),
                };
                self.mul(factor, da)
            }
        }
    }
}

/// The children of a node.
pub(crate) fn children(n: &Node) -> impl Iterator<Item = usize> {
    let (a, b) = match *n {
        Node::Const(_) | Node::Var(_) => (None, None),
        Node::Neg(a) | Node::PowI(a, _) | Node::PowF(a, _) | Node::Call(_, a) => (Some(a), None),
        Node::Add(a, b) | Node::Sub(a, b) | Node::Mul(a, b) | Node::Div(a, b) | Node::Pow(a, b) | Node::Atan2(a, b) => {
            (Some(a), Some(b))
        }
    };
    a.into_iter().chain(b)
}
