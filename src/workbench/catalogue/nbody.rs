//! The gravitational N-body problem from data: any number `B ≥ 2` of bodies in the plane or in
//! space, with masses `m_i`, positions `q_i` and velocities `v_i`,
//!
//! ```text
//!   H(q, p) = Σ_i |p_i|²/(2 m_i) − G Σ_{i<j} m_i m_j / |q_i − q_j|,     p_i = m_i v_i,
//! ```
//!
//! the Hamiltonian of the catalogue's `outer-solar-system` ([`geom_core::pairwise`]: automatic
//! differentiation of the pair function `φ_ij(r) = −G m_i m_j / r` only, the chain rule to
//! `∇V` by hand) for any data. The state is `(q, p)`, body by body (`q_1 … q_N, p_1 … p_N`,
//! `N = B·D`); the monitored quantities are the energy, the angular momentum `Σ q_i × p_i` and
//! the linear momentum `Σ p_i`.
//!
//! The size of the state is in its type for the methods of the registry (`PhaseState<N>`), so
//! two routes share the data, the pair function and the observables:
//!
//! * up to [`FIXED_SIZE_LIMIT`] coordinates (6 bodies in space, 9 in the plane) the problem is
//!   a [`Canonical`] of the library's `NBody<Gravity<B>, N, D>`, compiled for each size, and
//!   every canonical method applies (the six bodies of the outer solar system run as the
//!   catalogue's problem, bit for bit);
//! * beyond, the state is sized at run time ([`DynPhaseState`]) and the explicit symplectic
//!   methods for a separable `H` apply ([`RUNTIME_METHODS`]: Störmer–Verlet, the symplectic
//!   Euler pair and the compositions of Störmer–Verlet, the library's [`DynSplitting`]), on the
//!   library's [`DynNBody`] with [`DynGravity`]: the same pair function
//!   ([`geom_core::pairwise::PairFunction`]) and the same loops as
//!   `geom_core::pairwise::Pairwise`, so the same bits (tested against the fixed-size route).
//!
//! # The file format
//!
//! [`Bodies::read`] reads one body per line, comma-separated: `mass, x, y, z, vx, vy, vz` in
//! space or `mass, x, y, vx, vy` in the plane (every line alike). Blank lines and everything
//! after a `#` are ignored, and a first line of exactly these column names is skipped. `G` is
//! the problem's parameter (`--param G=…`, default 1).
//!
//! ```text
//! # Sun and Jupiter, G = 1
//! mass, x, y, z, vx, vy, vz
//! 1.0,   0, 0, 0, 0, 0,    0
//! 1e-3,  5, 0, 0, 0, 0.44, 0
//! ```

use crate::workbench::WorkbenchError;
use crate::workbench::catalogue::Param;
use crate::workbench::catalogue::canonical::{Canonical, CanonicalSystem};
use crate::workbench::methods::{self, MethodInfo};
use crate::workbench::problem::{Family, Kind, Problem, Quantity, Simulation, check_state};
use crate::workbench::run::{Observe, Run};
use discretization::PhaseState;
use discretization::composition::{
    CompositionScheme, kahan_li8, kahan_li10, sofroniou_spaletta10, triple_jump, yoshida6,
};
use geom_core::GeomError;
use geom_core::pairwise::{self, DynGravity, DynNBody, Gravity, NBody};
use geom_core::step::DynPhaseState;
use integrators::separable_dyn::DynSplitting;
use nalgebra::SVector;
use std::path::Path;

/// The problem's name.
pub const NAME: &str = "nbody";

/// The parameters of an N-body problem read from a file: the gravitational constant.
pub const PARAMS: &[Param] = &[Param { name: "G", default: 1.0, about: "gravitational constant G > 0" }];

/// The largest number of coordinates `N = B·D` with a state whose size is compiled in (and so
/// with every canonical method): 18, the size of the outer solar system.
pub const FIXED_SIZE_LIMIT: usize = 18;

/// The methods of the registry that apply beyond [`FIXED_SIZE_LIMIT`]: the explicit symplectic
/// ones for a separable `H`.
pub const RUNTIME_METHODS: &[&str] = &[
    "stormer-verlet",
    "symplectic-euler-a",
    "symplectic-euler-b",
    "triple-jump",
    "yoshida6",
    "kahan-li8",
    "kahan-li10",
    "sofroniou-spaletta10",
];

const SUMMARY: &str =
    "gravitational N-body system, H = Σ|p_i|²/(2m_i) − G Σ m_i m_j/|q_i − q_j|, masses and initial state given";

fn input(msg: impl Into<String>) -> WorkbenchError {
    WorkbenchError::Input(msg.into())
}

/// A gravitational N-body system: `G`, the masses, and the initial positions and velocities.
#[derive(Debug, Clone, PartialEq)]
pub struct Bodies {
    g: f64,
    dim: usize,
    masses: Vec<f64>,
    positions: Vec<f64>,
    velocities: Vec<f64>,
}

impl Bodies {
    /// `B = masses.len()` bodies in `R^dim` at `positions` with `velocities` (each `B × dim`,
    /// row-major). Input errors for fewer than 2 bodies, `dim` other than 2 or 3, wrong
    /// lengths, values that are not finite, and a mass or `G` that is not finite and positive.
    pub fn new(
        g: f64,
        masses: Vec<f64>,
        dim: usize,
        positions: Vec<f64>,
        velocities: Vec<f64>,
    ) -> Result<Self, WorkbenchError> {
        let b = masses.len();
        if b < 2 {
            return Err(input(format!("an N-body system needs at least 2 bodies, got {b}")));
        }
        if dim != 2 && dim != 3 {
            return Err(input(format!("the bodies of an N-body system move in the plane or in space, not in R^{dim}")));
        }
        if positions.len() != b * dim || velocities.len() != b * dim {
            return Err(input(format!(
                "{b} bodies in R^{dim} need {} position and velocity values, got {} and {}",
                b * dim,
                positions.len(),
                velocities.len()
            )));
        }
        if !(g.is_finite() && g > 0.0) {
            return Err(input(format!(
                "invalid parameter G: the gravitational constant must be finite and positive, got {g}"
            )));
        }
        if let Some(i) = masses.iter().position(|m| !(m.is_finite() && *m > 0.0)) {
            return Err(input(format!(
                "invalid parameter masses: the mass of body {} must be finite and positive, got {}",
                i + 1,
                masses[i]
            )));
        }
        if !positions.iter().chain(&velocities).all(|x| x.is_finite()) {
            return Err(input("positions and velocities must be finite"));
        }
        Ok(Self { g, dim, masses, positions, velocities })
    }

    /// The bodies of the file at `path` ([module documentation](self)) with gravitational
    /// constant `g`; every error is one line naming the file, the problem and the line.
    pub fn read(path: &Path, g: f64) -> Result<Self, WorkbenchError> {
        let text = crate::workbench::output::read_bounded_text(path, crate::workbench::output::MAX_INPUT_BYTES)
            .map_err(|e| input(format!("cannot read the N-body system {} (problem '{NAME}'): {e}", path.display())))?;
        Self::parse(&text, g, &path.display().to_string())
    }

    /// The bodies of the text of a file ([module documentation](self)); `source` names it in
    /// the errors.
    pub fn parse(text: &str, g: f64, source: &str) -> Result<Self, WorkbenchError> {
        let bad = |line: usize, why: String| {
            input(format!("invalid N-body system {source} (problem '{NAME}'), line {line}: {why}"))
        };
        const SPACE: [&str; 7] = ["mass", "x", "y", "z", "vx", "vy", "vz"];
        const PLANE: [&str; 5] = ["mass", "x", "y", "vx", "vy"];
        let (mut dim, mut masses, mut positions, mut velocities) = (None, Vec::new(), Vec::new(), Vec::new());
        let mut first = true;
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if std::mem::take(&mut first) && (fields == SPACE || fields == PLANE) {
                continue;
            }
            let d = match (fields.len(), dim) {
                (n, Some(d)) if n == 2 * d + 1 => d,
                (n, Some(d)) => {
                    let names = if d == 3 { SPACE.join(", ") } else { PLANE.join(", ") };
                    return Err(bad(i + 1, format!("{n} values; every body is {names} ({} values)", 2 * d + 1)));
                }
                (7, None) => 3,
                (5, None) => 2,
                (n, None) => {
                    return Err(bad(
                        i + 1,
                        format!(
                            "{n} values; a body is {} (7 values, in space) or {} (5 values, in the plane)",
                            SPACE.join(", "),
                            PLANE.join(", ")
                        ),
                    ));
                }
            };
            dim = Some(d);
            let names = if d == 3 { &SPACE[..] } else { &PLANE[..] };
            let mut values = Vec::with_capacity(fields.len());
            for (k, f) in fields.iter().enumerate() {
                let v: f64 = f.parse().map_err(|_| bad(i + 1, format!("{} = '{f}' is not a number", names[k])))?;
                if !v.is_finite() {
                    return Err(bad(i + 1, format!("{} = {v} is not finite", names[k])));
                }
                values.push(v);
            }
            if values[0] <= 0.0 {
                return Err(bad(i + 1, format!("the mass must be positive, got {}", values[0])));
            }
            masses.push(values[0]);
            positions.extend_from_slice(&values[1..=d]);
            velocities.extend_from_slice(&values[d + 1..]);
        }
        let Some(dim) = dim else {
            return Err(input(format!("invalid N-body system {source} (problem '{NAME}'): no bodies")));
        };
        Self::new(g, masses, dim, positions, velocities)
            .map_err(|e| input(format!("invalid N-body system {source} (problem '{NAME}'): {e}")))
    }

    /// The gravitational constant `G`.
    pub fn g(&self) -> f64 {
        self.g
    }
    /// The dimension `D` of the space (2 or 3).
    pub fn dim(&self) -> usize {
        self.dim
    }
    /// The masses `m_i`.
    pub fn masses(&self) -> &[f64] {
        &self.masses
    }
    /// The initial positions, `B × D` row-major.
    pub fn positions(&self) -> &[f64] {
        &self.positions
    }
    /// The initial velocities, `B × D` row-major.
    pub fn velocities(&self) -> &[f64] {
        &self.velocities
    }

    /// The initial state `(q, p)`, `p_i = m_i v_i`.
    pub fn initial_state(&self) -> Vec<f64> {
        let p = self.velocities.iter().enumerate().map(|(k, v)| self.masses[k / self.dim] * v);
        self.positions.iter().copied().chain(p).collect()
    }

    /// The problem: the compiled size up to [`FIXED_SIZE_LIMIT`] coordinates (every canonical
    /// method), the run-time size beyond ([`RUNTIME_METHODS`]).
    pub fn problem(&self) -> Result<Box<dyn Problem>, WorkbenchError> {
        let s = self.initial_state();
        macro_rules! sizes {
            ($(($b:literal, $d:literal, $n:literal)),* $(,)?) => {
                match (self.masses.len(), self.dim) {
                    $( ($b, $d) => fixed::<$b, $n, $d>(self, &s), )*
                    _ => self.runtime_problem(),
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

    /// The problem with the state sized at run time, whatever the number of bodies.
    fn runtime_problem(&self) -> Result<Box<dyn Problem>, WorkbenchError> {
        let s = self.initial_state();
        let n = s.len() / 2;
        let library = |e: GeomError| input(e.to_string());
        let s0 = DynPhaseState::from_slices(&s[..n], &s[n..]).map_err(library)?;
        let phi = DynGravity::new(self.g, &self.masses).map_err(library)?;
        Ok(match self.dim {
            2 => Box::new(RuntimeProblem::<2> { h: DynNBody::new(&self.masses, phi).map_err(library)?, s0 }),
            _ => Box::new(RuntimeProblem::<3> { h: DynNBody::new(&self.masses, phi).map_err(library)?, s0 }),
        })
    }
}

// --- what both routes share ----------------------------------------------------------------------

fn labels(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("q{i}")).chain((1..=n).map(|i| format!("p{i}"))).collect()
}

/// The momenta beyond the energy: the angular momentum (3 components in space, 1 in the plane)
/// and the linear momentum (`D` components).
fn invariants(d: usize) -> Vec<Quantity> {
    if d == 3 {
        vec![
            Quantity::new("angular_momentum", Kind::Momentum, 3, "L = Σ q_i × p_i (SO(3) momentum map)"),
            Quantity::new("linear_momentum", Kind::Momentum, 3, "P = Σ p_i (translation momentum map)"),
        ]
    } else {
        vec![
            Quantity::new("angular_momentum", Kind::Momentum, 1, "L = Σ q_i × p_i (SO(2) momentum map)"),
            Quantity::new("linear_momentum", Kind::Momentum, d, "P = Σ p_i (translation momentum map)"),
        ]
    }
}

/// `L = Σ q_i × p_i` and `P = Σ p_i` of bodies in `R^d`, appended to `out`.
fn measure(d: usize, q: &[f64], p: &[f64], out: &mut Vec<f64>) {
    let (mut l, mut total) = ([0.0; 3], [0.0; 3]);
    for (qi, pi) in q.chunks_exact(d).zip(p.chunks_exact(d)) {
        if d == 3 {
            l[0] += qi[1] * pi[2] - qi[2] * pi[1];
            l[1] += qi[2] * pi[0] - qi[0] * pi[2];
            l[2] += qi[0] * pi[1] - qi[1] * pi[0];
        } else {
            l[0] += qi[0] * pi[1] - qi[1] * pi[0];
        }
        for (t, x) in total.iter_mut().zip(pi) {
            *t += x;
        }
    }
    out.extend_from_slice(&l[..if d == 3 { 3 } else { 1 }]);
    out.extend_from_slice(&total[..d]);
}

// --- the compiled sizes ----------------------------------------------------------------------------

fn fixed<const B: usize, const N: usize, const D: usize>(
    bodies: &Bodies,
    s: &[f64],
) -> Result<Box<dyn Problem>, WorkbenchError> {
    let masses: [f64; B] = std::array::from_fn(|i| bodies.masses[i]);
    let h = pairwise::gravity::<N, D, B>(bodies.g, masses).map_err(|e| input(e.to_string()))?;
    let s0 = PhaseState::new(SVector::from_column_slice(&s[..N]), SVector::from_column_slice(&s[N..]));
    Ok(Box::new(Canonical::<_, N>::new(FixedNBody::<B, N, D> { h, s0 })))
}

/// `B` bodies in `R^D` (`N = B·D`) under gravity, from `s0`: the library's
/// `NBody<Gravity<B>, N, D>` as a [`CanonicalSystem`].
#[derive(Debug, Clone)]
pub struct FixedNBody<const B: usize, const N: usize, const D: usize> {
    h: NBody<Gravity<B>, N, D>,
    s0: PhaseState<N>,
}

impl<const B: usize, const N: usize, const D: usize> CanonicalSystem<N> for FixedNBody<B, N, D> {
    type H = NBody<Gravity<B>, N, D>;
    const NAME: &'static str = NAME;
    fn summary(&self) -> &'static str {
        SUMMARY
    }
    fn hamiltonian(&self) -> Self::H {
        self.h
    }
    /// Body 1 of the file is the central one of the planetary methods.
    const PLANETARY: bool = true;
    fn planetary(
        &self,
        info: &MethodInfo,
        initial: PhaseState<N>,
        h: f64,
        observe: Canonical<Self, N>,
    ) -> Result<Box<dyn Simulation>, WorkbenchError> {
        super::planetary::start(info, &self.h, initial, h, observe)
    }
    fn initial(&self) -> PhaseState<N> {
        self.s0
    }
    fn defaults(&self) -> (f64, f64) {
        (0.01, 100.0)
    }
    fn invariants(&self) -> Vec<Quantity> {
        invariants(D)
    }
    fn measure(&self, s: &PhaseState<N>, out: &mut Vec<f64>) {
        measure(D, s.q.as_slice(), s.p.as_slice(), out);
    }
}

// --- the run-time size -----------------------------------------------------------------------------

/// The method `info` of [`RUNTIME_METHODS`] for `h` at run-time size (the library's
/// [`DynSplitting`], whose arithmetic is that of the registry's method on `PhaseState<N>`:
/// `StormerVerlet`, `SymplecticEulerA/B`, `VerletComposition`, so both routes give the same
/// bits); an input error for another method.
fn runtime_method<const D: usize>(
    info: &MethodInfo,
    h: &DynNBody<DynGravity, D>,
) -> Result<DynSplitting<DynNBody<DynGravity, D>>, WorkbenchError> {
    let h = h.clone();
    let composition = |scheme: CompositionScheme| DynSplitting::composition(h.clone(), scheme);
    Ok(match info.name {
        "stormer-verlet" => DynSplitting::stormer_verlet(h),
        "symplectic-euler-a" => DynSplitting::symplectic_euler_a(h),
        "symplectic-euler-b" => DynSplitting::symplectic_euler_b(h),
        "triple-jump" => composition(triple_jump(2))?,
        "yoshida6" => composition(yoshida6())?,
        "kahan-li8" => composition(kahan_li8())?,
        "kahan-li10" => composition(kahan_li10())?,
        "sofroniou-spaletta10" => composition(sofroniou_spaletta10())?,
        other => {
            return Err(input(format!(
                "method '{other}' does not apply to an N-body system of more than {FIXED_SIZE_LIMIT} coordinates \
                 (valid: {})",
                RUNTIME_METHODS.join(", ")
            )));
        }
    })
}

/// The N-body [`Problem`] with the state sized at run time.
#[derive(Debug, Clone)]
struct RuntimeProblem<const D: usize> {
    h: DynNBody<DynGravity, D>,
    s0: DynPhaseState,
}

impl<const D: usize> Observe<DynPhaseState> for RuntimeProblem<D> {
    fn coordinates(&self, s: &DynPhaseState) -> Vec<f64> {
        s.q.iter().chain(&s.p).copied().collect()
    }
    fn quantities(&self, s: &DynPhaseState) -> Vec<f64> {
        let (q, p) = (s.q.as_slice(), s.p.as_slice());
        let mut out = vec![self.h.kinetic(p) + self.h.potential(q)];
        measure(D, q, p, &mut out);
        out
    }
}

impl<const D: usize> Problem for RuntimeProblem<D> {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        SUMMARY
    }
    fn family(&self) -> Family {
        Family::Canonical
    }
    fn methods(&self) -> Vec<&'static str> {
        methods::for_family(Family::Canonical).iter().map(|m| m.name).filter(|n| RUNTIME_METHODS.contains(n)).collect()
    }
    fn defaults(&self) -> (f64, f64) {
        (0.01, 100.0)
    }
    fn state_labels(&self) -> Vec<String> {
        labels(self.s0.q.len())
    }
    fn quantities(&self) -> Vec<Quantity> {
        let mut q = vec![Quantity::new("energy", Kind::Energy, 1, "H = T(p) + V(q)")];
        q.extend(invariants(D));
        q
    }
    fn reference(&self) -> (&'static str, usize) {
        ("kahan-li8", 4)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        let m = runtime_method(method, &self.h)?;
        Ok(Box::new(Run::new(Box::new(m), self.s0.clone(), h, self.clone())?))
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        Ok(self.coordinates(&self.s0))
    }
    /// `(q, p)`: any finite values.
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        check_state(self, state)?;
        let n = state.len() / 2;
        let s0 = DynPhaseState::from_slices(&state[..n], &state[n..]).map_err(|e| input(e.to_string()))?;
        Ok(Box::new(Self { h: self.h.clone(), s0 }))
    }
}

/// The fixed-size route's Hamiltonian, for the tests: `H` as the registry's methods see it.
#[cfg(test)]
fn fixed_hamiltonian<const B: usize, const N: usize, const D: usize>(
    bodies: &Bodies,
) -> impl geom_core::function::PhaseSpaceDerivatives<N> + Clone {
    pairwise::gravity::<N, D, B>(bodies.g, std::array::from_fn(|i| bodies.masses[i])).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::catalogue::canonical::{G_SOLAR, SOLAR_MASSES, SOLAR_POSITIONS, SOLAR_VELOCITIES};
    use crate::workbench::experiment::{self, RunSpec};
    use discretization::OneStep;
    use geom_core::function::PhaseSpaceDerivatives;
    use integrators::driver::Propagator;

    fn solar() -> Bodies {
        Bodies::new(
            G_SOLAR,
            SOLAR_MASSES.to_vec(),
            3,
            SOLAR_POSITIONS.iter().flatten().copied().collect(),
            SOLAR_VELOCITIES.iter().flatten().copied().collect(),
        )
        .unwrap()
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// `b` bodies in space: a unit mass at the centre and `b − 1` of masses `1e-6 k` on
    /// near-circular orbits of radii `1.5^(k−1)`, inclined and phased apart (well separated:
    /// no close encounters), `G = 1`.
    fn ring(b: usize) -> Bodies {
        let mut masses = vec![1.0];
        let (mut q, mut v) = (vec![0.0; 3], vec![0.0; 3]);
        for k in 1..b {
            let (r, a) = (1.5f64.powi(k as i32 - 1), 2.399 * k as f64);
            let (s, c) = a.sin_cos();
            let w = (1.0 / r).sqrt();
            masses.push(1e-6 * k as f64);
            q.extend([r * c, r * s, 0.01 * r * s]);
            v.extend([-w * s, w * c, 0.0]);
        }
        Bodies::new(1.0, masses, 3, q, v).unwrap()
    }

    /// The run-time route on the six bodies of the outer solar system is the catalogue's
    /// `outer-solar-system` (the compiled `NBody<Gravity<6>, 18, 3>`), bit for bit, for every
    /// method it has; the energy agrees to round-off.
    #[test]
    fn runtime_route_is_the_fixed_route_bit_for_bit() {
        let runtime = solar().runtime_problem().unwrap();
        let fixed = crate::workbench::catalogue::problem("outer-solar-system", &[]).unwrap();
        assert_eq!(runtime.methods(), RUNTIME_METHODS.to_vec());
        let spec = RunSpec::new(10.0, Some(60), None, 20).unwrap();
        for m in RUNTIME_METHODS {
            let a = experiment::run(runtime.as_ref(), m, spec, &mut |_| {}).unwrap();
            let b = experiment::run(fixed.as_ref(), m, spec, &mut |_| {}).unwrap();
            for (x, y) in a.samples.iter().zip(&b.samples) {
                assert_eq!(bits(&x.state), bits(&y.state), "{m} at step {}", x.step);
                assert_eq!(bits(&x.values[1..]), bits(&y.values[1..]), "{m}: momenta");
                let e = (x.values[0] - y.values[0]).abs();
                assert!(e <= 1e-15 * y.values[0].abs(), "{m}: energy {} vs {}", x.values[0], y.values[0]);
            }
        }
    }

    /// Ten bodies (30 coordinates, beyond the compiled sizes): the run-time forces are the
    /// library's `Pairwise<Gravity<10>, 30, 3>` gradient bit for bit, and Störmer–Verlet on the
    /// run-time state is the library's `StormerVerlet` on `PhaseState<30>`, bit for bit.
    #[test]
    fn ten_bodies_match_the_library_at_a_compiled_size() {
        let bodies = ring(10);
        let problem = bodies.problem().unwrap();
        assert_eq!(problem.state_labels().len(), 60);
        assert_eq!(problem.methods(), RUNTIME_METHODS.to_vec());
        let h = fixed_hamiltonian::<10, 30, 3>(&bodies);
        let s = bodies.initial_state();
        let q = SVector::<f64, 30>::from_column_slice(&s[..30]);
        let mut g = vec![0.0; 30];
        DynNBody::<_, 3>::new(bodies.masses(), DynGravity::new(1.0, bodies.masses()).unwrap())
            .unwrap()
            .force_gradient(&s[..30], &mut g);
        assert_eq!(bits(&g), bits(h.gradient_q(&q, &q).as_slice()));
        let method = integrators::classical::StormerVerlet::new(h);
        let mut state = PhaseState::new(q, SVector::from_column_slice(&s[30..]));
        for _ in 0..200 {
            method.step(&mut state, 0.01).unwrap();
        }
        let run = experiment::run(
            problem.as_ref(),
            "stormer-verlet",
            RunSpec::new(0.01, Some(200), None, 200).unwrap(),
            &mut |_| {},
        )
        .unwrap();
        let last = &run.samples.last().unwrap().state;
        assert_eq!(bits(&last[..30]), bits(state.q.as_slice()));
        assert_eq!(bits(&last[30..]), bits(state.p.as_slice()));
    }

    /// A method outside the run-time set is refused with a message that names the valid ones;
    /// the energy error of Störmer–Verlet stays bounded over 50 orbits of the inner body.
    #[test]
    fn runtime_methods_and_energy() {
        let problem = ring(12).problem().unwrap();
        let err = crate::workbench::problem::start(problem.as_ref(), "gauss2", 0.01)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("does not apply") && err.contains("stormer-verlet"), "{err}");
        let r = experiment::run(
            problem.as_ref(),
            "stormer-verlet",
            RunSpec::new(0.01, Some(31_416), None, 100).unwrap(),
            &mut |_| {},
        )
        .unwrap();
        assert!(r.max_error(0) < 1e-8, "energy error {:e}", r.max_error(0));
        assert!(r.max_error(1) < 1e-12 && r.max_error(2) < 1e-12, "{:e} {:e}", r.max_error(1), r.max_error(2));
    }

    /// The planetary methods (`methods::PLANETARY`): offered to the N-body problems of compiled
    /// size only and refused elsewhere; `whfast` is the library's Wisdom–Holman map with the
    /// corrector of order 17 processed (on its mapping variable, the corrector at output), bit
    /// for bit, and its energy error that of the map corrected every step; on the outer solar
    /// system the Jacobi and democratic heliocentric trajectories agree to `O(h²)`, and the
    /// energy errors are ordered as the theory says (`whfast`, `saba4` ≪ `wisdom-holman` ≪
    /// Störmer–Verlet at the same step).
    #[test]
    fn planetary_methods_on_the_outer_solar_system_and_files() {
        use crate::workbench::catalogue::canonical::{CanonicalSystem, OuterSolarSystem};
        use integrators::splitting::{ProcessedWisdomHolman, WisdomHolman};
        let oss = crate::workbench::catalogue::problem("outer-solar-system", &[]).unwrap();
        assert!(methods::PLANETARY.iter().all(|m| oss.methods().contains(m)));
        let kepler = crate::workbench::catalogue::problem("kepler", &[]).unwrap();
        assert!(!kepler.methods().contains(&"whfast"));
        let e = crate::workbench::problem::start(kepler.as_ref(), "whfast", 0.01).err().map(|e| e.to_string());
        assert!(e.unwrap_or_default().contains("does not apply to problem 'kepler'"));
        assert!(!ring(10).problem().unwrap().methods().contains(&"whfast"));
        // a file of three bodies in the plane offers and runs them
        let plane = Bodies::parse("1, 0, 0, 0, 0\n1e-3, 1, 0, 0, 1\n1e-3, 0, 2, -0.7, 0\n", 1.0, "p.csv").unwrap();
        let plane = plane.problem().unwrap();
        for m in methods::PLANETARY {
            let r = experiment::run(plane.as_ref(), m, RunSpec::new(0.05, Some(400), None, 100).unwrap(), &mut |_| {})
                .unwrap();
            assert!(r.max_error(0) < 1e-6 && r.max_error(2) < 1e-13, "{m}: {:e} {:e}", r.max_error(0), r.max_error(2));
        }
        // whfast is the library's processed method, bit for bit
        let run = |m: &str, h: f64, steps: usize| {
            experiment::run(oss.as_ref(), m, RunSpec::new(h, Some(steps), None, steps).unwrap(), &mut |_| {}).unwrap()
        };
        let ham = OuterSolarSystem.hamiltonian();
        let every_step = WisdomHolman::whfast(&ham).unwrap().with_corrector(17).unwrap();
        let library = ProcessedWisdomHolman::new(every_step.clone()).unwrap();
        let mut y = library.to_mapping(&OuterSolarSystem.initial(), 10.0).unwrap();
        library.step_n(&mut y, 10.0, 100).unwrap();
        let s = library.to_physical(&y, 10.0).unwrap();
        let r = run("whfast", 10.0, 100);
        let last = &r.samples.last().unwrap().state;
        assert_eq!(bits(&last[..18]), bits(s.q.as_slice()));
        assert_eq!(bits(&last[18..]), bits(s.p.as_slice()));
        // its energy error over 100 years (sampled every 10 steps) is that of the map corrected
        // every step: both at the round-off of E (about 100 ulp), where the plain map's is 1e-9
        let e0 = ham.value(&OuterSolarSystem.initial().q, &OuterSolarSystem.initial().p);
        let (mut x, mut every) = (OuterSolarSystem.initial(), 0.0f64);
        for _ in 0..3650 / 10 {
            every_step.step_n(&mut x, 10.0, 10).unwrap();
            every = every.max(((ham.value(&x.q, &x.p) - e0) / e0).abs());
        }
        let spec = RunSpec::new(10.0, Some(3650), None, 10).unwrap();
        let processed = experiment::run(oss.as_ref(), "whfast", spec, &mut |_| {}).unwrap().max_error(0);
        println!("whfast energy error over 100 years: corrector every step {every:.4e}, at output {processed:.4e}");
        assert!((processed / every - 1.0).abs() < 0.1, "{processed:e} vs {every:e}");
        // energy errors over 100 years at h = 10 days
        let e: Vec<f64> = ["whfast", "wisdom-holman", "wisdom-holman-dh", "saba4", "sabac4", "stormer-verlet"]
            .iter()
            .map(|m| run(m, 10.0, 3652).max_error(0))
            .collect();
        println!("energy errors over 100 years, h = 10 days: whfast, wisdom-holman, -dh, saba4, sabac4, SV {e:?}");
        assert!(e[0] * 10.0 < e[1] && e[1] * 10.0 < e[5] && e[2] * 10.0 < e[5], "{e:?}");
        // at this step SABA4's ε h⁸ is far below the map's ε h², and SABAC4 no worse than SABA4
        assert!(e[3] * 100.0 < e[1] && e[4] < 2.0 * e[3], "{e:?}");
        // the democratic heliocentric trajectory agrees with the Jacobi one to O(h²) (1000 years)
        let (mut hs, mut gaps) = (Vec::new(), Vec::new());
        for h in [40.0, 20.0, 10.0] {
            let steps = (365_250.0 / h) as usize;
            let (a, b) = (run("wisdom-holman", h, steps), run("wisdom-holman-dh", h, steps));
            let (x, y) = (&a.samples.last().unwrap().state, &b.samples.last().unwrap().state);
            let gap = (0..18).map(|k| (x[k] - y[k]).abs()).fold(0.0, f64::max);
            println!("h = {h} days: positions after 1000 years differ by {gap:.3e} AU");
            hs.push(h);
            gaps.push(gap);
        }
        let slope = (gaps[0] / gaps[2]).ln() / (hs[0] / hs[2]).ln();
        println!("slope of the gap in h: {slope:.3}");
        assert!((slope - 2.0).abs() < 0.3, "{slope}");
    }

    /// `whfast` saves its mapping variable (the Jacobi state, not the inertial one) and a run
    /// restored from it continues bit for bit: 300 + 300 steps equal 600.
    #[test]
    fn whfast_resumes_bit_for_bit() {
        let oss = crate::workbench::catalogue::problem("outer-solar-system", &[]).unwrap();
        let start = || crate::workbench::problem::start(oss.as_ref(), "whfast", 10.0).unwrap();
        let mut whole = start();
        whole.advance_by(300).unwrap();
        let saved = whole.save().unwrap();
        assert_eq!(saved.len(), 36);
        assert_ne!(bits(&saved), bits(&whole.state()), "the saved words are the inertial state");
        let mut resumed = start();
        resumed.restore(&saved, 300).unwrap();
        assert_eq!(bits(&resumed.state()), bits(&whole.state()));
        whole.advance_by(300).unwrap();
        resumed.advance_by(300).unwrap();
        assert_eq!((bits(&resumed.save().unwrap()), resumed.steps()), (bits(&whole.save().unwrap()), 600));
        assert_eq!(
            (bits(&resumed.state()), bits(&resumed.quantities())),
            (bits(&whole.state()), bits(&whole.quantities()))
        );
        // a state of the inertial run's size is refused
        assert!(start().restore(&whole.state()[..35], 0).is_err());
    }

    #[test]
    fn file_format_and_errors() {
        let text = "# two bodies\nmass, x, y, vx, vy\n1.0, 0, 0, 0, 0  # the Sun\n\n1e-3, 1, 0, 0, 1\n";
        let b = Bodies::parse(text, 1.0, "f.csv").unwrap();
        assert_eq!((b.dim(), b.masses(), b.positions()), (2, &[1.0, 1e-3][..], &[0.0, 0.0, 1.0, 0.0][..]));
        assert_eq!(b.initial_state(), vec![0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1e-3]);
        for (text, expect) in [
            ("1, 0, 0, 0, 0\n1, 1, 0, 0\n", "line 2: 4 values; every body is mass, x, y, vx, vy (5 values)"),
            ("1, 0, 0, 0, 0, 0\n", "line 1: 6 values; a body is"),
            ("1, 0, 0, 0, 0\n1, 1, abc, 0, 1\n", "line 2: y = 'abc' is not a number"),
            ("1, 0, 0, 0, 0\n1, 1, inf, 0, 1\n", "line 2: y = inf is not finite"),
            ("1, 0, 0, 0, 0\n-1, 1, 0, 0, 1\n", "line 2: the mass must be positive, got -1"),
            ("# nothing\n", "no bodies"),
            ("1, 0, 0, 0, 0\n", "at least 2 bodies, got 1"),
        ] {
            let e = Bodies::parse(text, 1.0, "f.csv").unwrap_err().to_string();
            assert!(e.contains(expect) && e.contains("f.csv") && e.contains("'nbody'"), "{e}");
            assert!(!e.contains('\n'));
        }
        assert!(Bodies::parse("1,0,0,0,0\n1,1,0,0,1\n", 0.0, "f").unwrap_err().to_string().contains("G"));
    }
}
