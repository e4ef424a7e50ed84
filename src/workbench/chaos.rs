//! Poincaré sections and MEGNO chaos maps of the problems on `T*R^n` and on a Lie group's `T*G`:
//! the workbench's front door to the library's event location ([`integrators::events`]) and
//! variational equations ([`integrators::variational_equations`]).
//!
//! * [`Section`]: a hyperplane `x_i = c` of one coordinate of the state and the direction of the
//!   crossings that count, parsed from `"q1=0"`;
//! * [`Layout`]: how a state's coordinates are laid out, `(q_1 … q_n, p_1 … p_n)` on `T*R^n` or
//!   `(g row-major, μ_1 … μ_D)` on `T*G`, `G ⊂ GL(M)`;
//! * [`PhaseSpace`]: what a problem offers ([`crate::workbench::problem::Problem::phase_space`]):
//!   its layout, its energy, the crossings of a section ([`integrators::events::poincare_section`]:
//!   an estimate within the step, then refinement by re-stepping the method, so that the located
//!   state is a state of the method itself), and the MEGNO `⟨Y⟩` of a set of initial states
//!   ([`integrators::variational_equations::Megno`], Cincotta & Simó, *Simple tools to compute
//!   chaos indicators: the MEGNO*, 2000), with the method's own step Jacobian where it has one
//!   and central differences otherwise (on `T*G` in the left-trivialized chart,
//!   [`integrators::variational_equations::LieFiniteDifference`]);
//! * [`crate::workbench::catalogue::phase_space`]: a problem's [`PhaseSpace`], or an input error
//!   naming the problems that have one;
//! * a stop flag (`Option<&AtomicBool>`), read between chunks of [`CHUNK`] steps of every orbit:
//!   once set, [`PhaseSpace::section`] and [`PhaseSpace::megno`] end with
//!   [`WorkbenchError::Stopped`];
//! * [`solve_momentum`]: the momentum `p_i ≥ 0` that puts a state on the energy level `H = E`,
//!   and [`energy_grid`], the grid of initial states of a chaos map on a plane at fixed energy
//!   ([`Layout::chaos_plane`]).

use crate::workbench::WorkbenchError;
use crate::workbench::methods::{self, MethodInfo};
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::step::{OneStep, PhaseState};
use integrators::classical::{
    ExplicitRk, Gauss2, Gauss3, HamiltonianField, StepJacobian, StormerVerlet, SymplecticEulerA, SymplecticEulerB,
};
use integrators::events::{Direction, Estimate, Event, EventFunction, EventRunner, poincare_section};
use integrators::tableau;
use integrators::variational_equations::{FiniteDifference, Megno, TangentMap};
use nalgebra::SVector;
use std::sync::atomic::{AtomicBool, Ordering};

/// The steps between two reads of the stop flag of [`PhaseSpace::section`] and
/// [`PhaseSpace::megno`] (per orbit): a fraction of a second of any method on any canonical
/// problem of the catalogue.
pub const CHUNK: usize = 1024;

/// The most initial states of one chaos map or one set of Poincaré orbits (a `1000 × 1000`
/// grid): each is a state vector and its result held in memory, so a larger request is refused
/// with an input error before anything is allocated.
pub const MAX_ORBITS: usize = 1_000_000;

/// Whether `stop` is set.
#[inline]
fn stopped(stop: Option<&AtomicBool>) -> bool {
    stop.is_some_and(|s| s.load(Ordering::Relaxed))
}

/// A rectangle `([a0, a1], [b0, b1])` of a plane of two coordinates.
pub type Rect = ((f64, f64), (f64, f64));

/// A Poincaré section `Σ = {x_i = c}`: the hyperplane of coordinate `index` of the state
/// (in the problem's coordinates, [`Layout`]) at `level = c`, with the [`Direction`] of the
/// crossings that count (`Rising`: `x_i − c` from negative to non-negative).
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// The coordinate's index in the state `(q, p)`.
    pub index: usize,
    /// Its name (a label of the problem's state).
    pub label: String,
    /// The level `c` of the hyperplane `x_i = c`.
    pub level: f64,
    /// The crossings that count.
    pub direction: Direction,
}

impl Section {
    /// The section `NAME=VALUE` (e.g. `q1=0`) of a problem whose state has the coordinates
    /// `labels`, crossed in direction `direction` (`up`, `down` or `both`). An input error names
    /// the flag (`--section`, `--direction`) and the valid values.
    pub fn parse(text: &str, direction: &str, labels: &[String]) -> Result<Self, WorkbenchError> {
        let bad = |why: String| WorkbenchError::Input(format!("--section '{text}': {why}"));
        let (name, value) =
            text.split_once('=').ok_or_else(|| bad("expected COORDINATE=VALUE, e.g. --section q1=0".into()))?;
        let (name, value) = (name.trim(), value.trim());
        let index = labels.iter().position(|l| l == name).ok_or_else(|| {
            bad(format!("unknown coordinate '{name}'; the coordinates of this problem are {}", labels.join(", ")))
        })?;
        let level: f64 = value.parse().map_err(|_| bad(format!("'{value}' is not a number")))?;
        if !level.is_finite() {
            return Err(bad(format!("the level must be finite, got {value}")));
        }
        let direction = match direction {
            "up" => Direction::Rising,
            "down" => Direction::Falling,
            "both" => Direction::Both,
            other => {
                return Err(WorkbenchError::Input(format!("--direction '{other}': expected up, down or both")));
            }
        };
        Ok(Self { index, label: name.to_string(), level, direction })
    }

    /// `x_i = c, up` (or `down`, `both`), as the summary prints it.
    pub fn describe(&self) -> String {
        let d = match self.direction {
            Direction::Rising => "crossed upwards (increasing)",
            Direction::Falling => "crossed downwards (decreasing)",
            Direction::Both => "crossed either way",
        };
        format!("{} = {}, {d}", self.label, self.level)
    }
}

/// One crossing of a section: its time and the state there.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionCrossing {
    /// The time of the crossing.
    pub t: f64,
    /// The state at the crossing, in the problem's coordinates ([`Layout`]).
    pub state: Vec<f64>,
}

/// The MEGNO of one orbit after `n` steps: `⟨Y⟩_n` and the finite-time maximal Lyapunov
/// exponent `ln|δ_n| / t_n` of the same deviation vector ([`Megno`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MegnoValue {
    /// `⟨Y⟩_n = (1/n) Σ_{k≤n} Y_k` (→ 2 on a torus, ≈ λt/2 on a chaotic orbit).
    pub mean: f64,
    /// `ln|δ_n| / t_n`.
    pub lyapunov: f64,
}

/// How the coordinates of a state of a [`PhaseSpace`] are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `T*R^n`: `(q_1 … q_n, p_1 … p_n)`.
    Canonical {
        /// The degrees of freedom `n`.
        n: usize,
    },
    /// `T*G ≅ G × g*`, `G ⊂ GL(m)` of dimension `d`: the `m²` entries of `g` row-major, then the
    /// body momentum `μ = (μ_1 … μ_d)` (the labels `R11 … R33, Pi1 … Pi3` of the SO(3) problems,
    /// `g11 … g44, mu1 … mu6` of SE(3)).
    Lie {
        /// The size `m` of the matrices of `G`.
        m: usize,
        /// `d = dim G`.
        d: usize,
    },
}

impl Layout {
    /// The number of coordinates of a state: `2n`, or `m² + d`.
    pub fn len(&self) -> usize {
        match *self {
            Layout::Canonical { n } => 2 * n,
            Layout::Lie { m, d } => m * m + d,
        }
    }
    /// Whether a state has no coordinates (never, for the catalogue's problems).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The number of momenta: `n`, or `d` (the degrees of freedom).
    pub fn momenta(&self) -> usize {
        match *self {
            Layout::Canonical { n } => n,
            Layout::Lie { d, .. } => d,
        }
    }
    /// The index of the first momentum, `p_1` or `μ_1`: `n`, or `m²`.
    pub fn first_momentum(&self) -> usize {
        self.len() - self.momenta()
    }
    /// The coordinate of the default section `x_i = 0`: `q_1` on `T*R^n`, `μ_1` on `T*G`.
    pub fn default_section(&self) -> usize {
        match self {
            Layout::Canonical { .. } => 0,
            Layout::Lie { .. } => self.first_momentum(),
        }
    }
    /// The two coordinates a section on coordinate `index` is plotted in: on `T*R^n` with
    /// `n ≥ 2` the conjugate pair `(q_j, p_j)` of the first degree of freedom `j` other than
    /// the section's; on `T*G` with `d ≥ 2` the next two components of `μ` after a section on
    /// `μ_i` (cyclically), else `(μ_1, μ_2)`; `None` for one degree of freedom (the crossings
    /// are plotted against time, [`Layout::against_time`]).
    pub fn plane(&self, index: usize) -> Option<(usize, usize)> {
        match *self {
            Layout::Canonical { n } => {
                let d = index % n.max(1);
                (0..n).find(|&j| j != d).map(|j| (j, n + j))
            }
            Layout::Lie { d, .. } => {
                let first = self.first_momentum();
                if d < 2 {
                    None
                } else if index < first {
                    Some((first, first + 1))
                } else {
                    let i = index - first;
                    Some((first + (i + 1) % d, first + (i + 2) % d))
                }
            }
        }
    }
    /// The coordinate plotted against time where there is no [`Layout::plane`]: `p_1` for a
    /// section on `q_1` and `q_1` otherwise; the first coordinate on `T*G`.
    pub fn against_time(&self, index: usize) -> usize {
        match *self {
            Layout::Canonical { n } if index < n => n,
            _ => 0,
        }
    }
    /// The initial states of a chaos map: `(plane, solve, zero)`, the plane `(a, b)` of the
    /// grid, the momentum solved from `H = E` (`None`: the whole plane, no energy level) and
    /// the coordinate set to `0` (the section the map lies on):
    /// * `T*R^n`, `n ≥ 2`: the plane `(q_2, p_2)` on the section `q_1 = 0`, `p_1 ≥ 0` from `H = E`;
    /// * `T*R^1`: the whole plane `(q_1, p_1)`;
    /// * `T*G`, `d ≥ 3`: the plane `(μ_2, μ_3)` at the initial `g` and the other components of
    ///   `μ` from the initial state, `μ_1 ≥ 0` from `H = E`;
    /// * `T*G`, `d = 2`: the whole plane `(μ_1, μ_2)` at the initial `g`; `d < 2`: `None`.
    pub fn chaos_plane(&self) -> Option<ChaosPlane> {
        match *self {
            Layout::Canonical { n: 0 } => None,
            Layout::Canonical { n: 1 } => Some(ChaosPlane { plane: (0, 1), solve: None, zero: None }),
            Layout::Canonical { n } => Some(ChaosPlane { plane: (1, n + 1), solve: Some(n), zero: Some(0) }),
            Layout::Lie { d, .. } => {
                let f = self.first_momentum();
                match d {
                    0 | 1 => None,
                    2 => Some(ChaosPlane { plane: (f, f + 1), solve: None, zero: None }),
                    _ => Some(ChaosPlane { plane: (f + 1, f + 2), solve: Some(f), zero: None }),
                }
            }
        }
    }
}

/// The plane of a chaos map's initial states ([`Layout::chaos_plane`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChaosPlane {
    /// The two coordinates of the grid.
    pub plane: (usize, usize),
    /// The momentum `≥ 0` solved from `H = E` ([`solve_momentum`]), if the map is on a level.
    pub solve: Option<usize>,
    /// The coordinate set to 0 (the section the map lies on), if any.
    pub zero: Option<usize>,
}

/// A problem with the tools of this module, on `T*R^n` or on a Lie group's `T*G`. Object safe:
/// states are slices of [`PhaseSpace::layout`]'s coordinates.
pub trait PhaseSpace: Send + Sync {
    /// How a state's coordinates are laid out.
    fn layout(&self) -> Layout;
    /// The number of degrees of freedom: `n` on `T*R^n`, `dim G` on `T*G`.
    fn degrees_of_freedom(&self) -> usize {
        self.layout().momenta()
    }
    /// The energy `H` of `state`; an input error for a state of the wrong length, not finite, or
    /// off the group.
    fn energy(&self, state: &[f64]) -> Result<f64, WorkbenchError>;
    /// The first `count` crossings of `section` by the numerical trajectory of `method` with
    /// step `h` from `state` at `t = 0`, within `max_steps` steps (fewer if they run out), located
    /// by [`poincare_section`] (a Hermite estimate on `T*R^n`, a linear one on `T*G`, then
    /// re-stepping the method to round-off), in chunks of [`CHUNK`] steps;
    /// [`WorkbenchError::Stopped`] once `stop` is set.
    #[allow(clippy::too_many_arguments)]
    fn section(
        &self,
        method: &MethodInfo,
        h: f64,
        state: &[f64],
        section: &Section,
        count: usize,
        max_steps: usize,
        stop: Option<&AtomicBool>,
    ) -> Result<Vec<SectionCrossing>, WorkbenchError>;
    /// The MEGNO after `steps` steps of `method` with step `h` from each of `states`, in
    /// parallel on the current rayon pool; an orbit whose step fails (e.g. an escape to
    /// infinity) is `None`. `stop` is read between chunks of [`CHUNK`] steps of every orbit:
    /// once it is set the orbits end and the result is [`WorkbenchError::Stopped`].
    fn megno(
        &self,
        method: &MethodInfo,
        h: f64,
        steps: usize,
        states: &[Vec<f64>],
        stop: Option<&AtomicBool>,
    ) -> Result<Vec<Option<MegnoValue>>, WorkbenchError>;
}

/// `[q, p]` of a slice of length `2N` (an input error otherwise).
pub fn phase_state<const N: usize>(state: &[f64]) -> Result<PhaseState<N>, WorkbenchError> {
    if state.len() != 2 * N || state.iter().any(|v| !v.is_finite()) {
        return Err(WorkbenchError::Input(format!(
            "a state of {} finite coordinates expected, got {:?}",
            2 * N,
            state
        )));
    }
    Ok(PhaseState::new(SVector::from_column_slice(&state[..N]), SVector::from_column_slice(&state[N..])))
}

/// `[q_1 … q_N, p_1 … p_N]`.
pub fn flat<const N: usize>(s: &PhaseState<N>) -> Vec<f64> {
    s.q.iter().chain(s.p.iter()).copied().collect()
}

/// Coordinate `i` of `(q, p)`.
#[inline]
fn coordinate<const N: usize>(x: &PhaseState<N>, i: usize) -> f64 {
    if i < N { x.q[i] } else { x.p[i - N] }
}

/// [`PhaseSpace::section`] for the Hamiltonian `ham` ([`methods::canonical`] builds the method;
/// the Hermite estimate uses the Hamiltonian field `X_H = (H_p, −H_q)`). The steps run in chunks
/// of [`CHUNK`], each a call of [`poincare_section`] from where the last ended (the crossings are
/// those of one call; the time of a crossing in chunk `j` is `t_j + k h + τ` with `t_j` the end of
/// the chunk before, equal to one call's `k h + τ` up to round-off).
#[allow(clippy::too_many_arguments)]
pub fn section_of<H, const N: usize>(
    ham: H,
    method: &MethodInfo,
    h: f64,
    state: &[f64],
    section: &Section,
    count: usize,
    max_steps: usize,
    stop: Option<&AtomicBool>,
) -> Result<Vec<SectionCrossing>, WorkbenchError>
where
    H: PhaseSpaceDerivatives<N> + Clone + Send + Sync + 'static,
{
    if section.index >= 2 * N {
        return Err(WorkbenchError::Input(format!("--section: coordinate index {} out of range", section.index)));
    }
    let x = phase_state::<N>(state)?;
    let step = methods::canonical(method, ham.clone())?;
    let runner = EventRunner::new(step, HamiltonianField(ham));
    let (i, c) = (section.index, section.level);
    let event = Event::new(move |x: &PhaseState<N>| coordinate(x, i) - c, section.direction);
    chunked_section(&runner, x, h, event, (count, max_steps), stop, flat)
}

/// The first `count` crossings of `event` by `runner`'s method from `x` at `t = 0` within
/// `max_steps` steps of size `h` ([`poincare_section`]), in chunks of [`CHUNK`] steps, each from
/// where the last ended, `stop` read between them ([`WorkbenchError::Stopped`]); each crossing's
/// state written by `coordinates`.
pub fn chunked_section<M, E, G, St>(
    runner: &EventRunner<M, E>,
    mut x: St,
    h: f64,
    event: Event<G>,
    (count, max_steps): (usize, usize),
    stop: Option<&AtomicBool>,
    coordinates: impl Fn(&St) -> Vec<f64>,
) -> Result<Vec<SectionCrossing>, WorkbenchError>
where
    M: OneStep<St>,
    E: Estimate<St>,
    G: EventFunction<St> + Copy,
    St: Clone,
{
    let mut t = 0.0;
    let mut out: Vec<SectionCrossing> = Vec::new();
    let mut left = max_steps;
    while out.len() < count && left > 0 {
        if stopped(stop) {
            return Err(WorkbenchError::Stopped);
        }
        let steps = left.min(CHUNK);
        let found = poincare_section(runner, &mut x, &mut t, h, event, count - out.len(), steps)
            .map_err(WorkbenchError::Geom)?;
        out.extend(found.iter().map(|c| SectionCrossing { t: c.t, state: coordinates(&c.state) }));
        left -= steps;
    }
    Ok(out)
}

/// The tangent map of `method` for `ham`: the method's own [`StepJacobian`] for
/// `stormer-verlet`, `symplectic-euler-a/b`, `gauss2`, `gauss3`, `rk4` and `explicit-euler`
/// (exact to round-off), central differences ([`FiniteDifference`], relative error `≈ ε^{2/3}`)
/// of the registry's method otherwise.
pub fn tangent_map<H, const N: usize>(ham: H, method: &MethodInfo) -> Result<Box<dyn StepJacobian<N>>, WorkbenchError>
where
    H: PhaseSpaceDerivatives<N> + Clone + Send + Sync + 'static,
{
    let geom = WorkbenchError::Geom;
    Ok(match method.name {
        "stormer-verlet" => Box::new(StormerVerlet::new(ham)),
        "symplectic-euler-a" => Box::new(SymplecticEulerA::new(ham)),
        "symplectic-euler-b" => Box::new(SymplecticEulerB::new(ham)),
        "gauss2" => Box::new(Gauss2::new(ham).map_err(geom)?),
        "gauss3" => Box::new(Gauss3::new(ham).map_err(geom)?),
        "rk4" => Box::new(ExplicitRk::<_, 4>::new(&tableau::rk4(), HamiltonianField(ham)).map_err(geom)?),
        "explicit-euler" => {
            Box::new(ExplicitRk::<_, 1>::new(&tableau::explicit_euler(), HamiltonianField(ham)).map_err(geom)?)
        }
        _ => {
            let m: Box<dyn OneStep<PhaseState<N>>> = methods::canonical(method, ham)?;
            Box::new(FiniteDifference::new(m))
        }
    })
}

/// [`PhaseSpace::megno`] for the Hamiltonian `ham` ([`tangent_map`], [`megno_orbits`]).
pub fn megno_of<H, const N: usize>(
    ham: H,
    method: &MethodInfo,
    h: f64,
    steps: usize,
    states: &[Vec<f64>],
    stop: Option<&AtomicBool>,
) -> Result<Vec<Option<MegnoValue>>, WorkbenchError>
where
    H: PhaseSpaceDerivatives<N> + Clone + Send + Sync + 'static,
{
    let tangent = tangent_map::<H, N>(ham, method)?;
    let starts = states.iter().map(|s| phase_state::<N>(s)).collect::<Result<Vec<_>, _>>()?;
    megno_orbits(tangent.as_ref(), &starts, h, steps, stop)
}

/// The MEGNO after `steps` steps of the tangent map `tangent` with step `h` from each of
/// `starts`, in parallel on the current rayon pool: each orbit's deviation vector starts along
/// `(1, …, 1)/√(2N)`; its steps run in chunks of [`CHUNK`] ([`Megno::advance`] from where the
/// last chunk ended: the same values as one call, bit for bit), `stop` read between them
/// ([`WorkbenchError::Stopped`]). An orbit whose start is refused ([`TangentMap::check_state`])
/// or whose step fails, or whose values are not finite, is `None`; a bad `h` is an error.
pub fn megno_orbits<S, T, const N: usize>(
    tangent: &T,
    starts: &[S],
    h: f64,
    steps: usize,
    stop: Option<&AtomicBool>,
) -> Result<Vec<Option<MegnoValue>>, WorkbenchError>
where
    S: Clone + Send + Sync,
    T: TangentMap<S, N> + ?Sized,
{
    use rayon::prelude::*;
    let delta = PhaseState::<N>::new(SVector::repeat(1.0), SVector::repeat(1.0));
    // checks h once, so that a bad step is an error, not a map of failed orbits
    Megno::new(PhaseState::<N>::new(SVector::zeros(), SVector::zeros()), delta, h).map_err(WorkbenchError::Geom)?;
    let values: Vec<Option<MegnoValue>> = starts
        .par_iter()
        .map(|x| {
            let mut m = Megno::start(tangent, x.clone(), delta, h).ok()?;
            let mut left = steps;
            while left > 0 {
                if stopped(stop) {
                    return None;
                }
                let k = left.min(CHUNK);
                m.advance(tangent, k).ok()?;
                left -= k;
            }
            let v = MegnoValue { mean: m.mean(), lyapunov: m.lyapunov() };
            (v.mean.is_finite() && v.lyapunov.is_finite()).then_some(v)
        })
        .collect();
    if stopped(stop) {
        return Err(WorkbenchError::Stopped);
    }
    Ok(values)
}

/// The momentum `p_i ≥ 0` (`i` a momentum index, `n ≤ i < 2n`) with `H(state) = energy`, the
/// other coordinates of `state` fixed; `None` where no `p_i ≥ 0` reaches the level (`H` at
/// `p_i = 0` already above it) or `H` does not grow to it by `|p_i| = 2^40`. Bisection on
/// `s ↦ H(…, p_i = s, …) − E` over a bracket found by doubling (a separable `H = T(p) + V(q)`
/// with a convex `T` minimal at `p = 0` is increasing in `s ≥ 0`); the result is exact to
/// round-off of `s`.
pub fn solve_momentum(space: &dyn PhaseSpace, state: &[f64], i: usize, energy: f64) -> Option<f64> {
    let mut x = state.to_vec();
    let mut f = |s: f64| -> Option<f64> {
        x[i] = s;
        space.energy(&x).ok().map(|e| e - energy)
    };
    let f0 = f(0.0)?;
    if f0 > 0.0 {
        return None;
    }
    if f0 == 0.0 {
        return Some(0.0);
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    while f(hi)? < 0.0 {
        lo = hi;
        hi *= 2.0;
        if hi > 2f64.powi(40) {
            return None;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid)? < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(hi)
}

/// One point of a chaos map: the plane coordinates, the initial state (`None` where the energy
/// level cannot be reached there) and its MEGNO (`None` also where the orbit failed).
#[derive(Debug, Clone, PartialEq)]
pub struct GridPoint {
    /// The two plane coordinates `(a, b)`.
    pub at: (f64, f64),
    /// The initial state, where the point lies on the energy level.
    pub state: Option<Vec<f64>>,
}

/// The `nx × ny` grid of initial states of a chaos map over the rectangle `[a0, a1] × [b0, b1]`
/// of the plane of coordinates `(plane.0, plane.1)` (cell centres), the other coordinates from
/// `base`; with `energy = Some((i, E))` the momentum `p_i ≥ 0` is solved for `H = E`
/// ([`solve_momentum`]) and points off the level are left without a state.
pub fn energy_grid(
    space: &dyn PhaseSpace,
    base: &[f64],
    plane: (usize, usize),
    range: Rect,
    (nx, ny): (usize, usize),
    energy: Option<(usize, f64)>,
) -> Vec<GridPoint> {
    let ((a0, a1), (b0, b1)) = range;
    let mut out = Vec::with_capacity(nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            let a = a0 + (a1 - a0) * (i as f64 + 0.5) / nx as f64;
            let b = b0 + (b1 - b0) * (j as f64 + 0.5) / ny as f64;
            let mut x = base.to_vec();
            x[plane.0] = a;
            x[plane.1] = b;
            let state = match energy {
                None => Some(x),
                Some((k, e)) => solve_momentum(space, &x, k, e).map(|p| {
                    x[k] = p;
                    x
                }),
            };
            out.push(GridPoint { at: (a, b), state });
        }
    }
    out
}

/// The bounding box of the points of the plane `(plane.0, plane.1)` (other coordinates from
/// `base`, momentum `k` set to 0) with `H ≤ E`: the region where [`solve_momentum`] succeeds,
/// found on a 101 × 101 scan of `[−R, R]²`, `R` doubled from 1 while the region touches the
/// scan's border (up to `R = 2^10`), widened by one scan cell. `None` if no point qualifies.
pub fn energy_box(space: &dyn PhaseSpace, base: &[f64], plane: (usize, usize), k: usize, energy: f64) -> Option<Rect> {
    let n = 101;
    let mut r = 1.0;
    loop {
        let cell = 2.0 * r / (n - 1) as f64;
        let (mut lo, mut hi) = ((f64::INFINITY, f64::INFINITY), (f64::NEG_INFINITY, f64::NEG_INFINITY));
        let mut border = false;
        for i in 0..n {
            for j in 0..n {
                let (a, b) = (-r + i as f64 * cell, -r + j as f64 * cell);
                let mut x = base.to_vec();
                x[plane.0] = a;
                x[plane.1] = b;
                x[k] = 0.0;
                if space.energy(&x).is_ok_and(|e| e <= energy) {
                    lo = (lo.0.min(a), lo.1.min(b));
                    hi = (hi.0.max(a), hi.1.max(b));
                    border |= i == 0 || j == 0 || i == n - 1 || j == n - 1;
                }
            }
        }
        if !lo.0.is_finite() {
            return None;
        }
        if !border || r >= 1024.0 {
            return Some(((lo.0 - cell, hi.0 + cell), (lo.1 - cell, hi.1 + cell)));
        }
        r *= 2.0;
    }
}
