//! A compiled program of several outputs of a formula graph ([`super::symbolic::Graph`]) at
//! `f64`: the nodes the outputs need, in order (children first), each writing one register, the
//! registers reused once their value is no longer read. Evaluation is one loop over the
//! instructions with no recursion and no allocation (registers on the stack up to
//! [`STACK_REGISTERS`]; a formula that needs more live values at once takes one heap buffer per
//! evaluation).

use super::symbolic::{Graph, children};
use super::{Fn1, Node, call};

/// Registers kept on the stack during an evaluation.
pub(crate) const STACK_REGISTERS: usize = 64;
/// The register file of a small program (cleared at each evaluation, so kept short).
const SMALL_REGISTERS: usize = 16;

/// The operation of an instruction (its operands are registers, see [`Instruction`]).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    /// `a²` (`PowI(a, 2)`, the commonest power).
    Square,
    PowI(i32),
    /// `a^b`, also for a constant exponent (held in a constant register).
    Pow,
    Atan2,
    Call(Fn1),
}

/// One instruction: `registers[dst] = op(registers[a], registers[b])` (`b` unused by the unary
/// operations). Indices are `u32` so that an instruction is 20 bytes and a short program stays
/// in a few cache lines.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Instruction {
    op: Op,
    dst: u32,
    a: u32,
    b: u32,
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
            let r = |c: usize| register[c] as u32;
            let (op, a, b) = match nodes[i] {
                Node::Const(_) | Node::Var(_) => unreachable!("constants and variables have registers"),
                Node::Neg(a) => (Op::Neg, r(a), 0),
                Node::Add(a, b) => (Op::Add, r(a), r(b)),
                Node::Sub(a, b) => (Op::Sub, r(a), r(b)),
                Node::Mul(a, b) => (Op::Mul, r(a), r(b)),
                Node::Div(a, b) => (Op::Div, r(a), r(b)),
                Node::PowI(a, 2) => (Op::Square, r(a), 0),
                Node::PowI(a, n) => (Op::PowI(n), r(a), 0),
                Node::PowF(a, e) => {
                    constants.push((registers, e));
                    registers += 1;
                    (Op::Pow, r(a), (registers - 1) as u32)
                }
                Node::Pow(a, b) => (Op::Pow, r(a), r(b)),
                Node::Atan2(a, b) => (Op::Atan2, r(a), r(b)),
                Node::Call(f, a) => (Op::Call(f), r(a), 0),
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
            code.push(Instruction { op, dst: dst as u32, a, b });
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
            self.run_heap(&mut vec![0.0; self.registers], var, out)
        }
    }

    /// The program on a register file of `P` registers (a power of two, at least
    /// [`Tape::registers`]): every index is taken modulo `P`, which changes none (all are below
    /// `registers`) and lets the compiler drop the bounds checks.
    #[inline]
    fn run<const P: usize, V: Fn(usize) -> f64, O: FnMut(usize, f64)>(&self, regs: &mut [f64; P], var: V, mut out: O) {
        const { assert!(P.is_power_of_two()) };
        let at = |i: u32| i as usize & (P - 1);
        for &(r, c) in &self.constants {
            regs[r & (P - 1)] = c;
        }
        for &(r, k) in &self.variables {
            regs[r & (P - 1)] = var(k);
        }
        for ins in &self.code {
            let x = regs[at(ins.a)];
            let y = regs[at(ins.b)];
            regs[at(ins.dst)] = apply(ins.op, x, y);
        }
        for (j, &r) in self.outputs.iter().enumerate() {
            out(j, regs[r & (P - 1)]);
        }
    }

    /// [`Tape::run`] for a program of more than [`STACK_REGISTERS`] registers.
    fn run_heap<V: Fn(usize) -> f64, O: FnMut(usize, f64)>(&self, regs: &mut [f64], var: V, mut out: O) {
        for &(r, c) in &self.constants {
            regs[r] = c;
        }
        for &(r, k) in &self.variables {
            regs[r] = var(k);
        }
        for ins in &self.code {
            regs[ins.dst as usize] = apply(ins.op, regs[ins.a as usize], regs[ins.b as usize]);
        }
        for (j, &r) in self.outputs.iter().enumerate() {
            out(j, regs[r]);
        }
    }
}

/// `op(x, y)` (`y` ignored by the unary operations).
#[inline(always)]
fn apply(op: Op, x: f64, y: f64) -> f64 {
    match op {
        Op::Neg => -x,
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div => x / y,
        Op::Square => x * x,
        Op::PowI(n) => x.powi(n),
        Op::Pow => x.powf(y),
        Op::Atan2 => x.atan2(y),
        Op::Call(f) => call(f, x),
    }
}
