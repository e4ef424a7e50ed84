//! A compiled program of several outputs of a formula graph ([`super::symbolic::Graph`]) at
//! `f64`: the nodes the outputs need, in order (children first), each writing one register, the
//! registers reused once their value is no longer read. Evaluation is one loop over the
//! instructions with no recursion and no allocation (registers on the stack up to
//! [`STACK_REGISTERS`]; a formula that needs more live values at once takes one heap buffer per
//! evaluation).

use super::symbolic::{Graph, children};
use super::{Node, call};

/// Registers kept on the stack during an evaluation.
pub(crate) const STACK_REGISTERS: usize = 64;
/// The register file of a small program (cleared at each evaluation, so kept short).
const SMALL_REGISTERS: usize = 16;

/// One instruction: `registers[dst] = op(registers[…])` (the children of `op` are registers).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Instruction {
    dst: usize,
    op: Node,
}

/// A compiled multi-output program at `f64` (module documentation). Constants and variables
/// have registers of their own, filled before the instructions run (no instruction loads them).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tape {
    constants: Vec<(usize, f64)>,
    variables: Vec<(usize, usize)>,
    code: Vec<Instruction>,
    outputs: Vec<usize>,
    registers: usize,
}

impl Tape {
    /// The program computing the nodes `outputs` of `graph`.
    pub(crate) fn compile(graph: &Graph, outputs: &[usize]) -> Self {
        let nodes = graph.nodes();
        let top = outputs.iter().copied().max().map_or(0, |m| m + 1);
        // which nodes are needed, and the last instruction that reads each
        let mut needed = vec![false; top];
        for &o in outputs {
            needed[o] = true;
        }
        let mut last_use = vec![0usize; top];
        for i in (0..top).rev() {
            if needed[i] {
                for c in children(&nodes[i]) {
                    needed[c] = true;
                    last_use[c] = last_use[c].max(i);
                }
            }
        }
        for &o in outputs {
            last_use[o] = usize::MAX;
        }
        let mut register = vec![usize::MAX; top];
        let (mut constants, mut variables) = (Vec::new(), Vec::new());
        let mut registers = 0;
        for i in 0..top {
            match nodes[i] {
                Node::Const(c) if needed[i] => constants.push((registers, c)),
                Node::Var(k) if needed[i] => variables.push((registers, k)),
                _ => continue,
            }
            register[i] = registers;
            registers += 1;
        }
        let mut free: Vec<usize> = Vec::new();
        let mut code = Vec::new();
        for i in 0..top {
            if !needed[i] || matches!(nodes[i], Node::Const(_) | Node::Var(_)) {
                continue;
            }
            let r = |c: usize| register[c];
            let op = match nodes[i] {
                n @ (Node::Const(_) | Node::Var(_)) => n,
                Node::Neg(a) => Node::Neg(r(a)),
                Node::Add(a, b) => Node::Add(r(a), r(b)),
                Node::Sub(a, b) => Node::Sub(r(a), r(b)),
                Node::Mul(a, b) => Node::Mul(r(a), r(b)),
                Node::Div(a, b) => Node::Div(r(a), r(b)),
                Node::PowI(a, n) => Node::PowI(r(a), n),
                Node::PowF(a, e) => Node::PowF(r(a), e),
                Node::Pow(a, b) => Node::Pow(r(a), r(b)),
                Node::Atan2(a, b) => Node::Atan2(r(a), r(b)),
                Node::Call(f, a) => Node::Call(f, r(a)),
            };
            // operands read for the last time free their registers (the result may take one);
            // the registers of constants and variables stay theirs
            let mut last: [Option<usize>; 2] = [None, None];
            for (slot, c) in children(&nodes[i]).enumerate() {
                let own = matches!(nodes[c], Node::Const(_) | Node::Var(_));
                if !own && last_use[c] == i && !last[..slot].contains(&Some(c)) {
                    last[slot] = Some(c);
                    free.push(register[c]);
                }
            }
            let dst = free.pop().unwrap_or_else(|| {
                registers += 1;
                registers - 1
            });
            register[i] = dst;
            code.push(Instruction { dst, op });
        }
        Self { constants, variables, code, outputs: outputs.iter().map(|&o| register[o]).collect(), registers }
    }

    /// Evaluates the program with variable `k` read by `var(k)`, and writes output `j` to
    /// `out(j, value)`.
    #[inline]
    pub(crate) fn eval<V: Fn(usize) -> f64, O: FnMut(usize, f64)>(&self, var: V, out: O) {
        if self.registers <= SMALL_REGISTERS {
            self.run(&mut [0.0; SMALL_REGISTERS], var, out)
        } else if self.registers <= STACK_REGISTERS {
            self.run(&mut [0.0; STACK_REGISTERS], var, out)
        } else {
            self.run(&mut vec![0.0; self.registers], var, out)
        }
    }

    #[inline]
    fn run<V: Fn(usize) -> f64, O: FnMut(usize, f64)>(&self, regs: &mut [f64], var: V, mut out: O) {
        for &(r, c) in &self.constants {
            regs[r] = c;
        }
        for &(r, k) in &self.variables {
            regs[r] = var(k);
        }
        for ins in &self.code {
            let v = match ins.op {
                // loaded above
                Node::Const(_) | Node::Var(_) => continue,
                Node::Neg(a) => -regs[a],
                Node::Add(a, b) => regs[a] + regs[b],
                Node::Sub(a, b) => regs[a] - regs[b],
                Node::Mul(a, b) => regs[a] * regs[b],
                Node::Div(a, b) => regs[a] / regs[b],
                Node::PowI(a, 2) => regs[a] * regs[a],
                Node::PowI(a, n) => regs[a].powi(n),
                Node::PowF(a, e) => regs[a].powf(e),
                Node::Pow(a, b) => regs[a].powf(regs[b]),
                Node::Atan2(a, b) => regs[a].atan2(regs[b]),
                Node::Call(f, a) => call(f, regs[a]),
            };
            regs[ins.dst] = v;
        }
        for (j, &r) in self.outputs.iter().enumerate() {
            out(j, regs[r]);
        }
    }
}
