//! The gravitational N-body problem from masses, positions and velocities,
//! `H = Σ|p_i|²/(2m_i) − G Σ_{i<j} m_i m_j / |q_i − q_j|` with `p_i = m_i v_i`: the catalogue's
//! outer-solar-system Hamiltonian ([`geomint::geom_core::pairwise::gravity`]) for any masses,
//! in the plane or in space, run by every canonical method of the registry.
//!
//! The state space `T*R^N` has its dimension `N = B·D` in the type, so each supported
//! `(B, D)` is compiled once: 2 to 6 bodies in space, 2 to 9 in the plane (`N ≤ 18`, the size
//! of the outer solar system, the largest the workbench's implicit methods are tested at).

use crate::canonical::phase;
use crate::{input, label_list, py_shape};
use geomint::discretization::PhaseState;
use geomint::geom_core::pairwise::{self, Gravity, NBody};
use geomint::workbench::WorkbenchError;
use geomint::workbench::catalogue::canonical::{Canonical, CanonicalSystem};
use geomint::workbench::problem::{Kind, Problem, Quantity};

/// The largest number of coordinates `N = B·D`.
pub const MAX_COORDINATES: usize = 18;

/// A gravitational N-body system and its initial state.
#[derive(Debug, Clone, PartialEq)]
pub struct NBodySpec {
    /// The gravitational constant `G`.
    pub g: f64,
    /// The masses `m_i` (`B` of them).
    pub masses: Vec<f64>,
    /// The dimension `D` of the space (2 or 3).
    pub dim: usize,
    /// Initial positions, `B × D` row-major.
    pub positions: Vec<f64>,
    /// Initial velocities, `B × D` row-major.
    pub velocities: Vec<f64>,
}

impl NBodySpec {
    /// `B` bodies of masses `masses` at `positions` with `velocities` (each `values` with its
    /// `shape`, which must be `(B, 2)` or `(B, 3)`); input errors for wrong shapes, non-finite
    /// data, `B·D > 18`, or a mass or `G` that is not finite and positive.
    pub fn new(
        g: f64,
        masses: &[f64],
        positions: (&[f64], &[usize]),
        velocities: (&[f64], &[usize]),
    ) -> Result<Self, WorkbenchError> {
        let b = masses.len();
        if b < 2 {
            return Err(input(format!("an N-body system needs at least 2 bodies, got {b}")));
        }
        let (q, qs) = positions;
        let (v, vs) = velocities;
        if !(qs.len() == 2 && qs[0] == b && (qs[1] == 2 || qs[1] == 3) && q.len() == qs[0] * qs[1]) {
            return Err(input(format!(
                "positions must have shape ({b}, 2) or ({b}, 3), one row per mass, got shape {}",
                py_shape(qs)
            )));
        }
        if vs != qs || v.len() != q.len() {
            return Err(input(format!(
                "velocities must have the shape of the positions, {}, got shape {}",
                py_shape(qs),
                py_shape(vs)
            )));
        }
        let dim = qs[1];
        if b * dim > MAX_COORDINATES {
            return Err(input(format!(
                "at most {MAX_COORDINATES} coordinates (6 bodies in space or 9 in the plane), got {b} bodies in R^{dim}"
            )));
        }
        if !q.iter().chain(v).all(|x| x.is_finite()) {
            return Err(input("positions and velocities must be finite"));
        }
        let spec = Self { g, masses: masses.to_vec(), dim, positions: q.to_vec(), velocities: v.to_vec() };
        spec.problem(None)?;
        Ok(spec)
    }

    /// The initial state `(q, p)`, `p_i = m_i v_i`.
    pub fn initial(&self) -> Vec<f64> {
        let p = self.velocities.iter().enumerate().map(|(k, v)| self.masses[k / self.dim] * v);
        self.positions.iter().copied().chain(p).collect()
    }

    /// The state labels `q1 … qN, p1 … pN`.
    pub fn labels(&self) -> Vec<String> {
        let n = self.positions.len();
        (1..=n).map(|i| format!("q{i}")).chain((1..=n).map(|i| format!("p{i}"))).collect()
    }

    /// The problem, from the initial state or from `state` (`2N` values).
    pub fn problem(&self, state: Option<&[f64]>) -> Result<Box<dyn Problem>, WorkbenchError> {
        let initial;
        let s = match state {
            Some(s) => {
                let labels = self.labels();
                if s.len() != labels.len() {
                    return Err(input(format!(
                        "a state of 'nbody' has {} coordinates ({}), got {}",
                        labels.len(),
                        label_list(&labels),
                        s.len()
                    )));
                }
                if let Some(i) = s.iter().position(|v| !v.is_finite()) {
                    return Err(input(format!(
                        "state coordinate {} of 'nbody' must be finite, got {}",
                        labels[i], s[i]
                    )));
                }
                s
            }
            None => {
                initial = self.initial();
                &initial
            }
        };
        macro_rules! sizes {
            ($(($b:literal, $d:literal, $n:literal)),* $(,)?) => {
                match (self.masses.len(), self.dim) {
                    $( ($b, $d) => build::<$b, $n, $d>(self, s), )*
                    (b, d) => Err(input(format!("no N-body system of {b} bodies in R^{d}"))),
                }
            };
        }
        sizes!(
            (2, 3, 6),
            (3, 3, 9),
            (4, 3, 12),
            (5, 3, 15),
            (6, 3, 18),
            (2, 2, 4),
            (3, 2, 6),
            (4, 2, 8),
            (5, 2, 10),
            (6, 2, 12),
            (7, 2, 14),
            (8, 2, 16),
            (9, 2, 18),
        )
    }
}

fn build<const B: usize, const N: usize, const D: usize>(
    spec: &NBodySpec,
    s: &[f64],
) -> Result<Box<dyn Problem>, WorkbenchError> {
    let masses: [f64; B] = std::array::from_fn(|i| spec.masses[i]);
    let h = pairwise::gravity::<N, D, B>(spec.g, masses).map_err(|e| input(e.to_string()))?;
    Ok(Box::new(Canonical::<_, N>(NBodySystem::<B, N, D> { h, s0: phase(s) })))
}

/// `B` bodies in `R^D` (`N = B·D`) under gravity, from `s0`.
#[derive(Debug, Clone)]
pub struct NBodySystem<const B: usize, const N: usize, const D: usize> {
    h: NBody<Gravity<B>, N, D>,
    s0: PhaseState<N>,
}

impl<const B: usize, const N: usize, const D: usize> CanonicalSystem<N> for NBodySystem<B, N, D> {
    type H = NBody<Gravity<B>, N, D>;
    const NAME: &'static str = "nbody";
    fn summary(&self) -> &'static str {
        "gravitational N-body system, H = Σ|p_i|²/(2m_i) − G Σ m_i m_j/|q_i − q_j|, masses and initial state given"
    }
    fn hamiltonian(&self) -> Self::H {
        self.h
    }
    fn initial(&self) -> PhaseState<N> {
        self.s0
    }
    fn defaults(&self) -> (f64, f64) {
        (0.01, 100.0)
    }
    fn invariants(&self) -> Vec<Quantity> {
        if D == 3 {
            vec![
                Quantity::new("angular_momentum", Kind::Momentum, 3, "L = Σ q_i × p_i (SO(3) momentum map)"),
                Quantity::new("linear_momentum", Kind::Momentum, 3, "P = Σ p_i (translation momentum map)"),
            ]
        } else {
            vec![
                Quantity::new("angular_momentum", Kind::Momentum, 1, "L = Σ q_i × p_i (SO(2) momentum map)"),
                Quantity::new("linear_momentum", Kind::Momentum, D, "P = Σ p_i (translation momentum map)"),
            ]
        }
    }
    fn measure(&self, s: &PhaseState<N>, out: &mut Vec<f64>) {
        let (mut l, mut p) = ([0.0; 3], [0.0; 3]);
        for i in 0..B {
            let (q, m) = (&s.q.as_slice()[D * i..D * i + D], &s.p.as_slice()[D * i..D * i + D]);
            if D == 3 {
                l[0] += q[1] * m[2] - q[2] * m[1];
                l[1] += q[2] * m[0] - q[0] * m[2];
                l[2] += q[0] * m[1] - q[1] * m[0];
            } else {
                l[0] += q[0] * m[1] - q[1] * m[0];
            }
            for k in 0..D {
                p[k] += m[k];
            }
        }
        out.extend_from_slice(&l[..if D == 3 { 3 } else { 1 }]);
        out.extend_from_slice(&p[..D]);
    }
}
