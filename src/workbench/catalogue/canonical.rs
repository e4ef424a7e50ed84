//! The canonical problems on `T*R^n`: every one a separable `H = T(p) + V(q)` with exact
//! derivatives, with its default data, invariants and, where one exists, its exact solution.
//! The one-body problems are written once over the scalar ([`Separable`] supplies exact AD
//! derivatives); the outer solar system is an N-body Hamiltonian of [`geom_core::pairwise`]
//! (AD of the pair function `φ(r) = −G m_i m_j / r` only, chain rule by hand).

use crate::workbench::WorkbenchError;
use crate::workbench::chaos::{self, Layout, MegnoValue, PhaseSpace, Section, SectionCrossing};
use crate::workbench::methods::{self, MethodInfo};
use crate::workbench::problem::{Family, Kind, Problem, Quantity, Simulation, check_state};
use crate::workbench::run::{CompensatedRun, Observe, Run};
use discretization::PhaseState;
use geom_core::Scalar;
use geom_core::function::Derivatives;
use geom_core::function::{PhaseSpaceDerivatives, ScalarFunction, Separable};
use geom_core::pairwise::{self, Central, Gravity, MassKinetic, NBody, RadialFunction};
use nalgebra::{SVector, Vector1, Vector2};
use std::sync::atomic::AtomicBool;

/// A canonical system: a separable Hamiltonian, its initial state and its invariants.
pub trait CanonicalSystem<const N: usize>: Clone + Send + Sync + 'static {
    /// The Hamiltonian `H = T(p) + V(q)` with its derivatives: a [`Separable`] of two models
    /// written over the scalar, or any other [`PhaseSpaceDerivatives<N>`] that declares itself
    /// separable (e.g. an N-body [`NBody`]).
    type H: PhaseSpaceDerivatives<N> + Clone + 'static;
    /// Catalogue name.
    const NAME: &'static str;
    /// One-line summary.
    fn summary(&self) -> &'static str;
    /// `H = T(p) + V(q)`.
    fn hamiltonian(&self) -> Self::H;
    /// Initial state.
    fn initial(&self) -> PhaseState<N>;
    /// Default `(h, t_end)`.
    fn defaults(&self) -> (f64, f64);
    /// The names of the state's coordinates, `q_1 … q_N` then `p_1 … p_N` (the columns of
    /// `trajectory.csv`); `q1 … qN, p1 … pN` by default.
    fn labels(&self) -> Vec<String> {
        (0..N).map(|i| format!("q{}", i + 1)).chain((0..N).map(|i| format!("p{}", i + 1))).collect()
    }
    /// The formula of the energy, the first quantity (`H = T(p) + V(q)` by default).
    fn energy_formula(&self) -> &'static str {
        "H = T(p) + V(q)"
    }
    /// Invariants beyond the energy, which is always the first quantity.
    fn invariants(&self) -> Vec<Quantity> {
        Vec::new()
    }
    /// Values of [`CanonicalSystem::invariants`] at `s`, appended to `out`.
    fn measure(&self, _s: &PhaseState<N>, _out: &mut Vec<f64>) {}
    /// Exact solution, where known.
    fn exact(&self, _t: f64) -> Option<PhaseState<N>> {
        None
    }
    /// A reference method of the registry (and step divisor) where no exact solution is known.
    /// The experiments compute the references of canonical problems with DOP853 instead
    /// (`experiment::reference`); this is the problem's answer to [`Problem::reference`].
    fn reference(&self) -> (&'static str, usize) {
        ("gauss3", 4)
    }
    /// Whether `H` is a gravitational N-body Hamiltonian whose first body is the central one, so
    /// that the planetary methods ([`methods::PLANETARY`]: Wisdom–Holman, WHFast, SABA) apply.
    const PLANETARY: bool = false;
    /// The run of a method of [`methods::PLANETARY`] for this system from `initial` with step
    /// `h`, observed by `observe` ([`super::planetary::start`]) where
    /// [`CanonicalSystem::PLANETARY`]; an input error by default.
    fn planetary(
        &self,
        info: &MethodInfo,
        _initial: PhaseState<N>,
        _h: f64,
        _observe: Canonical<Self, N>,
    ) -> Result<Box<dyn Simulation>, WorkbenchError> {
        Err(WorkbenchError::Input(format!(
            "method '{}' applies to the N-body problems only, not to '{}'",
            info.name,
            Self::NAME
        )))
    }
}

/// The [`Problem`] of a [`CanonicalSystem`]: the system, started from its own initial state or
/// from a given one ([`Problem::with_state`]).
#[derive(Debug, Clone)]
pub struct Canonical<P, const N: usize>(pub P, Option<PhaseState<N>>);

impl<P: CanonicalSystem<N>, const N: usize> Canonical<P, N> {
    /// The problem of `system`, from the system's own initial state.
    pub const fn new(system: P) -> Self {
        Self(system, None)
    }
    /// The state the problem starts from: the given one, else the system's.
    pub fn initial(&self) -> PhaseState<N> {
        self.1.unwrap_or_else(|| self.0.initial())
    }
}

fn flat<const N: usize>(s: &PhaseState<N>) -> Vec<f64> {
    s.q.iter().chain(s.p.iter()).copied().collect()
}

impl<P: CanonicalSystem<N>, const N: usize> Observe<PhaseState<N>> for Canonical<P, N> {
    fn coordinates(&self, s: &PhaseState<N>) -> Vec<f64> {
        flat(s)
    }
    fn quantities(&self, s: &PhaseState<N>) -> Vec<f64> {
        let mut out = vec![self.0.hamiltonian().value(&s.q, &s.p)];
        self.0.measure(s, &mut out);
        out
    }
}

impl<P: CanonicalSystem<N>, const N: usize> Problem for Canonical<P, N> {
    fn name(&self) -> &'static str {
        P::NAME
    }
    fn summary(&self) -> &'static str {
        self.0.summary()
    }
    fn family(&self) -> Family {
        Family::Canonical
    }
    fn defaults(&self) -> (f64, f64) {
        self.0.defaults()
    }
    fn state_labels(&self) -> Vec<String> {
        self.0.labels()
    }
    fn quantities(&self) -> Vec<Quantity> {
        let mut q = vec![Quantity::new("energy", Kind::Energy, 1, self.0.energy_formula())];
        q.extend(self.0.invariants());
        q
    }
    /// The system's exact solution when it starts from the system's own initial state, else
    /// none (the exact solutions of the catalogue are those of its data).
    fn exact(&self, t: f64) -> Option<Vec<f64>> {
        if self.1.is_some_and(|s| s != self.0.initial()) {
            return None;
        }
        self.0.exact(t).map(|s| flat(&s))
    }
    fn reference(&self) -> (&'static str, usize) {
        self.0.reference()
    }
    /// The family's methods, with the planetary ones where the system is an N-body one
    /// ([`CanonicalSystem::PLANETARY`]).
    fn methods(&self) -> Vec<&'static str> {
        methods::for_family(Family::Canonical)
            .iter()
            .map(|m| m.name)
            .filter(|n| P::PLANETARY || !methods::PLANETARY.contains(n))
            .collect()
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        if methods::PLANETARY.contains(&method.name) {
            return self.0.planetary(method, self.initial(), h, self.clone());
        }
        let m = methods::canonical(method, self.0.hamiltonian())?;
        Ok(Box::new(Run::new(m, self.initial(), h, self.clone())?))
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        Ok(flat(&self.initial()))
    }
    /// `(q, p)` from `[q_1 … q_N, p_1 … p_N]`: any finite values (the state space is `T*R^N`).
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        check_state(self, state)?;
        let s = PhaseState::new(SVector::from_column_slice(&state[..N]), SVector::from_column_slice(&state[N..]));
        Ok(Box::new(Self(self.0.clone(), Some(s))))
    }
    fn start_compensated(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        let m = methods::canonical_increment(method, self.0.hamiltonian())?;
        Ok(Box::new(CompensatedRun::new(m, self.initial(), h, self.clone())?))
    }
    fn phase_space(&self) -> Option<&dyn PhaseSpace> {
        Some(self)
    }
}

/// The system's Hamiltonian `H = T(p) + V(q)` with the library's event location and MEGNO.
impl<P: CanonicalSystem<N>, const N: usize> PhaseSpace for Canonical<P, N> {
    fn layout(&self) -> Layout {
        Layout::Canonical { n: N }
    }
    fn energy(&self, state: &[f64]) -> Result<f64, WorkbenchError> {
        let x = chaos::phase_state::<N>(state)?;
        Ok(self.0.hamiltonian().value(&x.q, &x.p))
    }
    fn section(
        &self,
        method: &MethodInfo,
        h: f64,
        state: &[f64],
        section: &Section,
        count: usize,
        max_steps: usize,
        stop: Option<&AtomicBool>,
    ) -> Result<Vec<SectionCrossing>, WorkbenchError> {
        chaos::section_of::<_, N>(self.0.hamiltonian(), method, h, state, section, count, max_steps, stop)
    }
    fn megno(
        &self,
        method: &MethodInfo,
        h: f64,
        steps: usize,
        states: &[Vec<f64>],
        stop: Option<&AtomicBool>,
    ) -> Result<Vec<Option<MegnoValue>>, WorkbenchError> {
        chaos::megno_of::<_, N>(self.0.hamiltonian(), method, h, steps, states, stop)
    }
}

/// `T(p) = |p|²/2` (unit masses).
#[derive(Debug, Clone, Copy)]
pub struct UnitKinetic;
impl<const N: usize> ScalarFunction<N> for UnitKinetic {
    #[inline]
    fn eval<S: Scalar>(&self, p: &SVector<S, N>) -> S {
        p.norm_squared() * S::from(0.5)
    }
}

// ---------------------------------------------------------------------------------------------

/// The harmonic oscillator `H = (p² + ω²q²)/2`, `q(0) = 1`, `p(0) = 0`; exact
/// `q = cos ωt`, `p = −ω sin ωt`.
#[derive(Debug, Clone, Copy)]
pub struct HarmonicOscillator {
    /// Frequency `ω > 0`.
    pub omega: f64,
}

/// `V(q) = ω²q²/2`.
#[derive(Debug, Clone, Copy)]
pub struct Quadratic(f64);
impl ScalarFunction<1> for Quadratic {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 1>) -> S {
        q[0] * q[0] * S::from(0.5 * self.0 * self.0)
    }
}

impl CanonicalSystem<1> for HarmonicOscillator {
    type H = Separable<UnitKinetic, Quadratic>;
    const NAME: &'static str = "harmonic-oscillator";
    fn summary(&self) -> &'static str {
        "H = (p² + ω²q²)/2, ω (param omega, default 1), q0 = 1, p0 = 0; exact solution"
    }
    fn hamiltonian(&self) -> Separable<UnitKinetic, Quadratic> {
        Separable::new(UnitKinetic, Quadratic(self.omega))
    }
    fn initial(&self) -> PhaseState<1> {
        PhaseState::new(Vector1::new(1.0), Vector1::new(0.0))
    }
    fn defaults(&self) -> (f64, f64) {
        (0.1, 100.0)
    }
    fn exact(&self, t: f64) -> Option<PhaseState<1>> {
        let (s, c) = (self.omega * t).sin_cos();
        Some(PhaseState::new(Vector1::new(c), Vector1::new(-self.omega * s)))
    }
}

// ---------------------------------------------------------------------------------------------

/// The mathematical pendulum `H = p²/2 − cos q`, `q(0) = 1.5`, `p(0) = 0` (amplitude 86°).
#[derive(Debug, Clone, Copy)]
pub struct Pendulum;

/// `V(q) = −cos q`.
#[derive(Debug, Clone, Copy)]
pub struct Cosine;
impl ScalarFunction<1> for Cosine {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 1>) -> S {
        -q[0].cos()
    }
}

impl CanonicalSystem<1> for Pendulum {
    type H = Separable<UnitKinetic, Cosine>;
    const NAME: &'static str = "pendulum";
    fn summary(&self) -> &'static str {
        "H = p²/2 − cos q, q0 = 1.5, p0 = 0; reference by adaptive DOP853"
    }
    fn hamiltonian(&self) -> Separable<UnitKinetic, Cosine> {
        Separable::new(UnitKinetic, Cosine)
    }
    fn initial(&self) -> PhaseState<1> {
        PhaseState::new(Vector1::new(1.5), Vector1::new(0.0))
    }
    fn defaults(&self) -> (f64, f64) {
        (0.1, 100.0)
    }
}

// ---------------------------------------------------------------------------------------------

/// Kepler's problem `H = |p|²/2 − 1/|q|` with eccentricity `e ∈ [0, 1)`, started at perihelion of
/// the orbit of semi-major axis 1 (period 2π); exact solution from Kepler's equation.
#[derive(Debug, Clone, Copy)]
pub struct Kepler {
    /// Eccentricity.
    pub e: f64,
}

/// `V(q) = −1/|q|` written over the scalar (the full-AD reference of the catalogue's Kepler
/// potential, [`Central`] of [`NewtonRadial`]).
#[derive(Debug, Clone, Copy)]
pub struct Newton2;
impl ScalarFunction<2> for Newton2 {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>) -> S {
        -q.norm().recip()
    }
}

impl Kepler {
    /// The eccentric anomaly `E` with `E − e sin E = t`, by Newton's method.
    pub fn eccentric_anomaly(&self, t: f64) -> f64 {
        let e = self.e;
        let m = t.rem_euclid(std::f64::consts::TAU);
        let mut x = if e > 0.8 { std::f64::consts::PI } else { m + e * m.sin() };
        for _ in 0..100 {
            let d = (x - e * x.sin() - m) / (1.0 - e * x.cos());
            x -= d;
            if d.abs() <= 1e-16 * (1.0 + x.abs()) {
                break;
            }
        }
        x + (t - m)
    }
}

/// Kepler's radial profile `φ(r) = −1/r`, written once over the scalar: `V(q) = φ(|q|)` is
/// differentiated through [`Central`] (AD of `φ` only), the catalogue's Kepler Hamiltonian.
#[derive(Debug, Clone, Copy)]
pub struct NewtonRadial;
impl RadialFunction for NewtonRadial {
    #[inline]
    fn eval<S: Scalar>(&self, r: S) -> S {
        -r.recip()
    }
}

/// `T(p) = |p|²/2` (unit mass) with exact derivatives.
const UNIT_MASS: MassKinetic<2, 2> = match MassKinetic::checked([1.0]) {
    Ok(t) => t,
    Err(reason) => panic!("{}", reason),
};

/// The catalogue's Kepler Hamiltonian: `|p|²/2` plus the central potential `−1/|q|`.
pub type KeplerHamiltonian = Separable<Derivatives<MassKinetic<2, 2>>, Derivatives<Central<NewtonRadial, 2>>>;

impl CanonicalSystem<2> for Kepler {
    type H = KeplerHamiltonian;
    const NAME: &'static str = "kepler";
    fn summary(&self) -> &'static str {
        "H = |p|²/2 − 1/|q|, eccentricity e (param e, default 0.6), from perihelion; exact via Kepler's equation"
    }
    /// `H = T(p) + V(q)` with `T` a [`MassKinetic`] of unit mass and `V` the [`Central`]
    /// potential of [`NewtonRadial`]: the same `H` as `Separable<UnitKinetic, Newton2>`, with the
    /// force at the cost of a hand-written `q/r³`.
    fn hamiltonian(&self) -> KeplerHamiltonian {
        Separable::from_derivatives(UNIT_MASS, Central::new(NewtonRadial))
    }
    fn initial(&self) -> PhaseState<2> {
        let e = self.e;
        PhaseState::new(Vector2::new(1.0 - e, 0.0), Vector2::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()))
    }
    fn defaults(&self) -> (f64, f64) {
        (0.01, 100.0)
    }
    fn invariants(&self) -> Vec<Quantity> {
        vec![Quantity::new("angular_momentum", Kind::Momentum, 1, "L = q1 p2 − q2 p1 (SO(2) momentum map)")]
    }
    fn measure(&self, s: &PhaseState<2>, out: &mut Vec<f64>) {
        out.push(s.q[0] * s.p[1] - s.q[1] * s.p[0]);
    }
    fn exact(&self, t: f64) -> Option<PhaseState<2>> {
        let e = self.e;
        let x = self.eccentric_anomaly(t);
        let (s, c) = x.sin_cos();
        let b = (1.0 - e * e).sqrt();
        let rate = 1.0 / (1.0 - e * c);
        Some(PhaseState::new(Vector2::new(c - e, b * s), Vector2::new(-s * rate, b * c * rate)))
    }
}

// ---------------------------------------------------------------------------------------------

/// The Hénon–Heiles system `H = |p|²/2 + (q1² + q2²)/2 + q1² q2 − q2³/3`, started at
/// `q = (0, 0.3)`, `p = (0.4, 0)` (energy 0.116, below the escape energy 1/6).
#[derive(Debug, Clone, Copy)]
pub struct HenonHeiles;

/// The Hénon–Heiles potential.
#[derive(Debug, Clone, Copy)]
pub struct HenonHeilesPotential;
impl ScalarFunction<2> for HenonHeilesPotential {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>) -> S {
        let (x, y) = (q[0], q[1]);
        (x * x + y * y) * S::from(0.5) + x * x * y - y * y * y * S::from(1.0 / 3.0)
    }
}

impl CanonicalSystem<2> for HenonHeiles {
    type H = Separable<UnitKinetic, HenonHeilesPotential>;
    const NAME: &'static str = "henon-heiles";
    fn summary(&self) -> &'static str {
        "H = |p|²/2 + |q|²/2 + q1²q2 − q2³/3, q0 = (0, 0.3), p0 = (0.4, 0); reference by adaptive DOP853"
    }
    fn hamiltonian(&self) -> Separable<UnitKinetic, HenonHeilesPotential> {
        Separable::new(UnitKinetic, HenonHeilesPotential)
    }
    fn initial(&self) -> PhaseState<2> {
        PhaseState::new(Vector2::new(0.0, 0.3), Vector2::new(0.4, 0.0))
    }
    fn defaults(&self) -> (f64, f64) {
        (0.1, 200.0)
    }
}

// ---------------------------------------------------------------------------------------------

/// Gravitational constant in AU³ / (solar mass · day²) (Hairer–Lubich–Wanner §I.2.4).
pub const G_SOLAR: f64 = 2.95912208286e-4;

/// The outer solar system: the Sun (with the inner planets' mass added) and Jupiter, Saturn,
/// Uranus, Neptune, Pluto, `H = Σ|p_i|²/(2m_i) − G Σ_{i<j} m_i m_j / |q_i − q_j|`, with the
/// masses, positions (AU) and velocities (AU/day) of 5 September 1994 from Hairer–Lubich–Wanner,
/// *Geometric Numerical Integration*, §I.2.4 (Table 2.2). Time in days.
#[derive(Debug, Clone, Copy)]
pub struct OuterSolarSystem;

/// Masses relative to the Sun: Sun (+ inner planets), Jupiter, Saturn, Uranus, Neptune, Pluto.
pub const SOLAR_MASSES: [f64; 6] =
    [1.00000597682, 0.000954786104043, 0.000285583733151, 0.0000437273164546, 0.0000517759138449, 1.0 / 1.3e8];

/// Initial positions (AU), HLW Table 2.2.
pub const SOLAR_POSITIONS: [[f64; 3]; 6] = [
    [0.0, 0.0, 0.0],
    [-3.5023653, -3.8169847, -1.5507963],
    [9.0755314, -3.0458353, -1.6483708],
    [8.3101420, -16.2901086, -7.2521278],
    [11.4707666, -25.7294829, -10.8169456],
    [-15.5387357, -25.2225594, -3.1902382],
];

/// Initial velocities (AU/day), HLW Table 2.2.
pub const SOLAR_VELOCITIES: [[f64; 3]; 6] = [
    [0.0, 0.0, 0.0],
    [0.00565429, -0.00412490, -0.00190589],
    [0.00168318, 0.00483525, 0.00192462],
    [0.00354178, 0.00137102, 0.00055029],
    [0.00288930, 0.00114527, 0.00039677],
    [0.00276725, -0.00170702, -0.00136504],
];

/// `T(p) = Σ |p_i|² / (2 m_i)`, written over the scalar: the full-AD reference of the kinetic
/// energy of [`OuterSolarSystem::hamiltonian`].
#[derive(Debug, Clone, Copy)]
pub struct SolarKinetic;
impl ScalarFunction<18> for SolarKinetic {
    #[inline]
    fn eval<S: Scalar>(&self, p: &SVector<S, 18>) -> S {
        (0..6)
            .fold(S::from(0.0), |acc, i| acc + p.fixed_rows::<3>(3 * i).norm_squared() * S::from(0.5 / SOLAR_MASSES[i]))
    }
}

/// `V(q) = −G Σ_{i<j} m_i m_j / |q_i − q_j|`, written over the scalar: the full-AD reference of
/// the potential of [`OuterSolarSystem::hamiltonian`].
#[derive(Debug, Clone, Copy)]
pub struct SolarPotential;
impl ScalarFunction<18> for SolarPotential {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 18>) -> S {
        let mut v = S::from(0.0);
        for (i, mi) in SOLAR_MASSES.iter().enumerate().skip(1) {
            for (j, mj) in SOLAR_MASSES.iter().enumerate().take(i) {
                let d = q.fixed_rows::<3>(3 * i) - q.fixed_rows::<3>(3 * j);
                v -= S::from(G_SOLAR * mi * mj) / d.norm();
            }
        }
        v
    }
}

/// The outer solar system's `H = Σ|p_i|²/(2m_i) − G Σ_{i<j} m_i m_j / |q_i − q_j|` as an N-body
/// Hamiltonian (6 bodies in `R^3`), checked when compiled (`18 = 6 × 3`, `G` and the masses
/// finite and positive): invalid data would not build.
const SOLAR_HAMILTONIAN: NBody<Gravity<6>, 18, 3> = match pairwise::gravity_checked(G_SOLAR, SOLAR_MASSES) {
    Ok(h) => h,
    Err(reason) => panic!("{}", reason),
};

impl CanonicalSystem<18> for OuterSolarSystem {
    type H = NBody<Gravity<6>, 18, 3>;
    const NAME: &'static str = "outer-solar-system";
    fn summary(&self) -> &'static str {
        "Sun + Jupiter..Pluto, HLW §I.2.4 data (AU, days), h = 10 days; reference by adaptive DOP853"
    }
    /// `H = T(p) + V(q)` with `T` a [`pairwise::MassKinetic`] and `V` a [`pairwise::Pairwise`]
    /// of [`Gravity`]: the same `H` as `Separable<SolarKinetic, SolarPotential>`, with the
    /// gradient of `V` at the cost of a hand-written N-body loop instead of AD over 18
    /// coordinates.
    fn hamiltonian(&self) -> NBody<Gravity<6>, 18, 3> {
        SOLAR_HAMILTONIAN
    }
    /// The Sun first: the planetary methods apply.
    const PLANETARY: bool = true;
    fn planetary(
        &self,
        info: &MethodInfo,
        initial: PhaseState<18>,
        h: f64,
        observe: Canonical<Self, 18>,
    ) -> Result<Box<dyn Simulation>, WorkbenchError> {
        super::planetary::start(info, &SOLAR_HAMILTONIAN, initial, h, observe)
    }
    fn initial(&self) -> PhaseState<18> {
        let q = SVector::<f64, 18>::from_fn(|k, _| SOLAR_POSITIONS[k / 3][k % 3]);
        let p = SVector::<f64, 18>::from_fn(|k, _| SOLAR_MASSES[k / 3] * SOLAR_VELOCITIES[k / 3][k % 3]);
        PhaseState::new(q, p)
    }
    fn defaults(&self) -> (f64, f64) {
        (10.0, 100_000.0)
    }
    fn invariants(&self) -> Vec<Quantity> {
        vec![
            Quantity::new("angular_momentum", Kind::Momentum, 3, "L = Σ q_i × p_i (SO(3) momentum map)"),
            Quantity::new("linear_momentum", Kind::Momentum, 3, "P = Σ p_i (translation momentum map)"),
        ]
    }
    fn measure(&self, s: &PhaseState<18>, out: &mut Vec<f64>) {
        let mut l = nalgebra::Vector3::zeros();
        let mut p = nalgebra::Vector3::zeros();
        for i in 0..6 {
            let (qi, pi) = (s.q.fixed_rows::<3>(3 * i).into_owned(), s.p.fixed_rows::<3>(3 * i).into_owned());
            l += qi.cross(&pi);
            p += pi;
        }
        out.extend(l.iter().chain(p.iter()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact Kepler orbit solves Hamilton's equations (central differences) and keeps
    /// `H = −1/2` and `L = √(1 − e²)`, also at high eccentricity and over many periods.
    #[test]
    fn kepler_exact_solution_solves_the_equations() {
        for e in [0.0, 0.6, 0.95] {
            let k = Kepler { e };
            let h = k.hamiltonian();
            for t in [0.0, 0.3, 2.0, 17.7, 123.4] {
                let s = k.exact(t).unwrap();
                assert!((h.value(&s.q, &s.p) + 0.5).abs() < 1e-13, "e = {e}, t = {t}");
                assert!((s.q[0] * s.p[1] - s.q[1] * s.p[0] - (1.0 - e * e).sqrt()).abs() < 1e-13);
                // five-point central differences, error O(d⁴), on the local time scale r^{3/2}
                let d = 1e-3 * s.q.norm().powf(1.5);
                let f = |k2: f64| k.exact(t + k2 * d).unwrap();
                let (m2, m1, p1, p2) = (f(-2.0), f(-1.0), f(1.0), f(2.0));
                let dq = (m2.q - p2.q + (p1.q - m1.q) * 8.0) / (12.0 * d);
                let dp = (m2.p - p2.p + (p1.p - m1.p) * 8.0) / (12.0 * d);
                let (hq, hp) = h.gradient(&s.q, &s.p);
                assert!((dq - hp).norm() < 1e-8 * (1.0 + hp.norm()), "e = {e}, t = {t}: {}", (dq - hp).norm());
                assert!((dp + hq).norm() < 1e-8 * (1.0 + hq.norm()), "e = {e}, t = {t}: {}", (dp + hq).norm());
            }
            assert!((k.exact(0.0).unwrap().q - k.initial().q).norm() < 1e-15);
        }
    }

    /// The solar-system data: the total energy and angular momentum of HLW Table 2.2's state.
    #[test]
    fn outer_solar_system_data() {
        let s = OuterSolarSystem.initial();
        let h = OuterSolarSystem.hamiltonian().value(&s.q, &s.p);
        // bound system: negative energy dominated by Jupiter and Saturn, about −3.2e-8
        assert!(h < 0.0 && h > -1e-7, "H = {h}");
        let mut out = Vec::new();
        OuterSolarSystem.measure(&s, &mut out);
        assert_eq!(out.len(), 6);
        assert!(out[2] > 0.0, "the planets orbit counter-clockwise about e3");
    }

    /// The N-body Hamiltonian of the solar system is the full-AD `Separable<SolarKinetic,
    /// SolarPotential>`: value, gradient and Hessian agree to round-off along a trajectory.
    #[test]
    fn outer_solar_system_matches_the_full_ad_model() {
        use discretization::OneStep;
        let fast = OuterSolarSystem.hamiltonian();
        let ad = Separable::new(SolarKinetic, SolarPotential);
        assert!(fast.is_separable());
        let method = integrators::classical::StormerVerlet::new(fast);
        let mut s = OuterSolarSystem.initial();
        for step in 0..=300 {
            if step % 100 == 0 {
                let (v, va) = (fast.value(&s.q, &s.p), ad.value(&s.q, &s.p));
                assert!((v - va).abs() <= 1e-14 * va.abs(), "{v} {va}");
                let ((gq, gp), hf) = fast.gradient_and_hessian(&s.q, &s.p);
                let ((aq, ap), ha) = ad.gradient_and_hessian(&s.q, &s.p);
                assert!((gq - aq).amax() <= 1e-13 * aq.amax() && (gp - ap).amax() <= 1e-15 * ap.amax());
                assert!((hf.qq - ha.qq).amax() <= 1e-13 * ha.qq.amax());
                assert!((hf.pp - ha.pp).amax() <= 1e-15 * ha.pp.amax() && hf.qp == ha.qp);
            }
            method.step(&mut s, 10.0).unwrap();
        }
    }
}
