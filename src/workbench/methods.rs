//! The method registry: every integrator the workbench can run, by name, with its family,
//! order and the structure it preserves, and the constructors that turn a name into a trait
//! object over a concrete state. A method added here (one row in [`METHODS`] and one arm in
//! the constructor of its family) becomes available to every problem of that family, to
//! `geomint run`, `convergence` and `compare`, and to the config files.

use crate::workbench::WorkbenchError;
use crate::workbench::embedded::{EmbeddedRk, LieField};
use crate::workbench::family::Family;
use discretization::AdvectedFunction;
use discretization::composition::{adjoint_pair, kahan_li8, kahan_li10, sofroniou_spaletta10, triple_jump, yoshida6};
use discretization::lie_poisson::LiePoissonIntegrator;
use discretization::{
    AdLieFunction, AdLieGroup, Composition, CotangentLiftIntegrator, LieAutoDiff, LieCotangentLiftIntegrator,
    LieGroupThetaMap, LieLagrangianIntegrator, OneStep, PhaseState, ThetaMap,
};
use geom_core::function::{PhaseSpaceDerivatives, ScalarFunction};
use geom_core::lie::{Chart, LieGroup};
use geom_core::pairwise::{Gravity, NBody};
use integrators::classical::{
    ExplicitRk, Gauss2, Gauss3, HamiltonianField, LobattoIIIAIIIB3, StormerVerlet, SymplecticEulerA, SymplecticEulerB,
};
use integrators::dop853::{Dop853, Dop853Flow, Options};
use integrators::driver::Increment;
use integrators::energy_preserving::{Avf, Gonzalez, ItohAbe};
use integrators::hp::{self, HpGroup, HpIntegrator, HpLagrangian, LieState};
use integrators::lie_poisson_baselines::{BobenkoSuris, CoadjointEnergy, EnergyMomentum, LieNewmark};
use integrators::models::HeavyTop;
use integrators::splitting::{ProcessedWisdomHolman, WisdomHolman};
use integrators::tableau;
use integrators::verlet_composition::VerletComposition;
use nalgebra::SMatrix;
use num_dual::Dual64;

/// What a method preserves, as printed by `geomint list` and written to the JSON summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Structure {
    /// Symplectic on `T*R^n` (or on `T*G`, `T*S²` for the cotangent lifts of those spaces); conserves the momentum maps of symmetries it is equivariant under
    /// (Barbero-Liñán, Marrero & Martín de Diego, *From retraction maps to symplectic-momentum
    /// numerical integrators*, 2024, arXiv:2401.14800, Theorem 2) and quadratic invariants where
    /// stated.
    Symplectic,
    /// Variational on `T*G` (Bou-Rabee & Marsden, *Hamilton–Pontryagin integrators on Lie groups,
    /// Part I*, 2009, arXiv:0801.0996): symplectic, momentum-preserving, Lie–Poisson Casimirs
    /// conserved for left-invariant `ℓ`.
    Variational,
    /// A discrete Lagrangian flow on a groupoid (Marrero, Martín de Diego & Stern, *Symplectic
    /// groupoids and discrete constrained Lagrangian mechanics*, 2015, arXiv:1103.6250):
    /// symplectic and Noether-conserving.
    DiscreteLagrangian,
    /// A discrete Lagrange–d'Alembert flow (Cortés & Martínez, *Non-holonomic integrators*,
    /// Nonlinearity 14, 2001): keeps the constraints, symmetric, conserves the nonholonomic
    /// momenta of horizontal symmetries; not symplectic (nonholonomic flows preserve no
    /// symplectic form).
    Nonholonomic,
    /// Conserves the energy `H` to the solver's tolerance (a discrete gradient: `H(x₁) − H(x₀) =
    /// ∇̄H · (x₁ − x₀)`), and is not symplectic.
    EnergyPreserving,
    /// Preserves the group (the state stays on `G`) but is not symplectic.
    GroupOnly,
    /// None: the classical baseline.
    None,
}

impl Structure {
    /// The name `geomint list`, the run header and the showcase print: the serialized name
    /// (`symplectic`, `variational`, `discrete-lagrangian`, `nonholonomic`, `energy-preserving`,
    /// `group-only`, `none`).
    pub fn label(self) -> &'static str {
        match self {
            Structure::Symplectic => "symplectic",
            Structure::Variational => "variational",
            Structure::DiscreteLagrangian => "discrete-lagrangian",
            Structure::Nonholonomic => "nonholonomic",
            Structure::EnergyPreserving => "energy-preserving",
            Structure::GroupOnly => "group-only",
            Structure::None => "none",
        }
    }
}

/// One row of the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct MethodInfo {
    /// The name used on the command line.
    pub name: &'static str,
    /// The state space the method runs on.
    pub family: Family,
    /// Classical order (for the catalogue's Lagrangians in the groupoid family).
    pub order: u32,
    /// What the method preserves.
    pub structure: Structure,
    /// One line: what the method is and where it comes from.
    pub summary: &'static str,
}

const fn m(name: &'static str, family: Family, order: u32, structure: Structure, summary: &'static str) -> MethodInfo {
    MethodInfo { name, family, order, structure, summary }
}

use Family::{Canonical as C, Groupoid as Gd, LieGroup as L};
use Structure as St;

/// Every method of the workbench. The first row of each family is its default.
pub const METHODS: &[MethodInfo] = &[
    m("stormer-verlet", C, 2, St::Symplectic, "Störmer–Verlet (symplectic Euler A ∘ B at h/2; docs/math.md §B.3)"),
    m(
        "symplectic-euler-a",
        C,
        1,
        St::Symplectic,
        "symplectic Euler, q implicit / p explicit (cotangent lift of θ = 0)",
    ),
    m("symplectic-euler-b", C, 1, St::Symplectic, "symplectic Euler, the adjoint of A (θ = 1)"),
    m("midpoint", C, 2, St::Symplectic, "implicit midpoint: cotangent lift of the θ = ½ map (docs/math.md §A.2, §B.1)"),
    m("gauss2", C, 4, St::Symplectic, "Gauss–Legendre collocation, 2 stages (conserves quadratic invariants)"),
    m("gauss3", C, 6, St::Symplectic, "Gauss–Legendre collocation, 3 stages"),
    m("lobatto3", C, 4, St::Symplectic, "Lobatto IIIA–IIIB partitioned RK, 3 stages"),
    m("triple-jump", C, 4, St::Symplectic, "triple-jump composition of Störmer–Verlet (docs/math.md §B.3)"),
    m("yoshida6", C, 6, St::Symplectic, "Yoshida's 7-stage composition of Störmer–Verlet"),
    m("kahan-li8", C, 8, St::Symplectic, "Kahan and Li's 17-stage order-8 composition of Störmer–Verlet"),
    m("kahan-li10", C, 10, St::Symplectic, "Kahan and Li's 33-stage order-10 composition of Störmer–Verlet"),
    m(
        "sofroniou-spaletta10",
        C,
        10,
        St::Symplectic,
        "Sofroniou and Spaletta's 35-stage order-10 composition of Störmer–Verlet",
    ),
    m("rk4", C, 4, St::None, "classical explicit Runge–Kutta 4 (not symplectic)"),
    m("explicit-euler", C, 1, St::None, "explicit Euler (not symplectic)"),
    m(
        "dop853",
        C,
        8,
        St::None,
        "Dormand–Prince 8(5,3) at the fixed step h: 12 explicit stages, order 8, not symplectic",
    ),
    m(
        "avf",
        C,
        2,
        St::EnergyPreserving,
        "averaged vector field, 3-point Gauss–Legendre quadrature (Quispel & McLaren 2008): H conserved, not symplectic",
    ),
    m(
        "gonzalez",
        C,
        2,
        St::EnergyPreserving,
        "Gonzalez's midpoint discrete gradient (1996): H conserved, not symplectic",
    ),
    m(
        "itoh-abe",
        C,
        2,
        St::EnergyPreserving,
        "Itoh–Abe discrete gradient, symmetrized over both coordinate orders: H conserved, not symplectic",
    ),
    m(
        "wisdom-holman",
        C,
        2,
        St::Symplectic,
        "Wisdom–Holman map in Jacobi coordinates: Kepler drifts and interaction kicks (N-body problems, body 1 the star)",
    ),
    m(
        "wisdom-holman-dh",
        C,
        2,
        St::Symplectic,
        "Wisdom–Holman map in democratic heliocentric coordinates (Duncan, Levison & Lee 1998): drifts, kicks, jumps",
    ),
    m(
        "whfast",
        C,
        2,
        St::Symplectic,
        "Wisdom–Holman map with the order-17 symplectic corrector of Wisdom, Holman & Touma, as WHFast (Rein & Tamayo 2015)",
    ),
    m("saba4", C, 2, St::Symplectic, "SABA4 of Laskar & Robutel (2001) in Jacobi coordinates: error O(ε h⁸ + ε² h²)"),
    m(
        "sabac4",
        C,
        4,
        St::Symplectic,
        "SABAC4 of Laskar & Robutel (2001): SABA4 between corrector kicks, error O(ε h⁸ + ε² h⁴)",
    ),
    m("hp-sv", L, 2, St::Variational, "Hamilton–Pontryagin Störmer–Verlet, Cayley chart (docs/math.md §D.5)"),
    m("hp-sv-exp", L, 2, St::Variational, "Hamilton–Pontryagin Störmer–Verlet, exponential chart"),
    m(
        "hp-sv-triple-jump",
        L,
        4,
        St::Variational,
        "triple-jump composition of HP Störmer–Verlet (Cayley): order 4 on any Lie group",
    ),
    m("hp-sv-yoshida6", L, 6, St::Variational, "Yoshida's 7-stage composition of HP Störmer–Verlet (Cayley): order 6"),
    m(
        "hp-sv-kahan-li8",
        L,
        8,
        St::Variational,
        "Kahan and Li's 17-stage composition of HP Störmer–Verlet (Cayley): order 8",
    ),
    m(
        "hp-sv-kahan-li10",
        L,
        10,
        St::Variational,
        "Kahan and Li's 33-stage composition of HP Störmer–Verlet (Cayley): order 10",
    ),
    m(
        "lgvi",
        L,
        2,
        St::Variational,
        "Lee–Leok–McClamroch Lie group variational integrator (SO(3) rigid bodies; docs/math.md §D.8)",
    ),
    m("hp-euler-a", L, 1, St::Variational, "Hamilton–Pontryagin symplectic Euler A, Cayley chart"),
    m("hp-euler-b", L, 1, St::Variational, "Hamilton–Pontryagin symplectic Euler B, Cayley chart"),
    m(
        "hp-gauss2",
        L,
        2,
        St::Variational,
        "HP RKMK, 2-stage Gauss tableau, exp chart (order 2: q = 0 truncation, docs/math.md §D.2)",
    ),
    m(
        "hp-gauss2-q2",
        L,
        4,
        St::Variational,
        "HP RKMK, 2-stage Gauss tableau, exp chart, dτ⁻¹ truncated at q = 2 (order 4, docs/math.md §D.11)",
    ),
    m(
        "hp-gauss3-q4",
        L,
        6,
        St::Variational,
        "HP RKMK, 3-stage Gauss tableau, exp chart, dτ⁻¹ truncated at q = 4 (order 6, docs/math.md §D.11)",
    ),
    m(
        "lift-midpoint-exp",
        L,
        2,
        St::Symplectic,
        "cotangent lift of the midpoint discretization map of G, exp chart (Barbero-Liñán et al. 2024; docs/math.md §A)",
    ),
    m(
        "lift-midpoint-cayley",
        L,
        2,
        St::Symplectic,
        "cotangent lift of the midpoint discretization map of G, Cayley chart",
    ),
    m(
        "lift-theta0-cayley",
        L,
        1,
        St::Symplectic,
        "cotangent lift of the θ = 0 discretization map of G, Cayley chart (first order)",
    ),
    m(
        "lift-theta1-cayley",
        L,
        1,
        St::Symplectic,
        "cotangent lift of the θ = 1 discretization map of G (the adjoint of θ = 0), Cayley chart",
    ),
    m(
        "lift-adjoint-pair-cayley",
        L,
        2,
        St::Symplectic,
        "θ = 0 lift then its adjoint θ = 1, half steps each: composition raises the order to 2 (docs/math.md §B.3)",
    ),
    m(
        "lift-theta0-exp",
        L,
        1,
        St::Symplectic,
        "cotangent lift of the θ = 0 discretization map of G, exp chart (first order)",
    ),
    m(
        "lift-theta1-exp",
        L,
        1,
        St::Symplectic,
        "cotangent lift of the θ = 1 discretization map of G (the adjoint of θ = 0), exp chart",
    ),
    m(
        "lift-adjoint-pair-exp",
        L,
        2,
        St::Symplectic,
        "θ = 0 lift then its adjoint θ = 1, half steps each, exp chart (composition raises the order to 2)",
    ),
    m(
        "lagrangian-midpoint-cayley",
        L,
        2,
        St::Variational,
        "Lagrangian route: discrete Euler–Lagrange flow of L_d = h L(R_d⁻¹(g₀, g₁)/h), midpoint map of G, Cayley chart",
    ),
    m(
        "lagrangian-midpoint-exp",
        L,
        2,
        St::Variational,
        "Lagrangian route: discrete Euler–Lagrange flow of the midpoint map of G, exp chart",
    ),
    m(
        "lie-poisson-midpoint-cayley",
        L,
        2,
        St::Symplectic,
        "Lie–Poisson reduction of the midpoint lift on g* (left-invariant H), reconstruction g W (Cayley chart)",
    ),
    m(
        "lie-poisson-midpoint-exp",
        L,
        2,
        St::Symplectic,
        "Lie–Poisson reduction of the midpoint lift on g* (left-invariant H), reconstruction g W (exp chart)",
    ),
    m(
        "lie-poisson-engo-faltinsen",
        L,
        2,
        St::EnergyPreserving,
        "Engø–Faltinsen (2001): μ' = Ad*_{cay(hξ)} μ, ξ Gonzalez's discrete gradient of h(μ): energy, Casimirs, spatial momentum (heavy top: on se(3)*, (Π, Γ))",
    ),
    m(
        "lewis-simo",
        L,
        2,
        St::EnergyPreserving,
        "Lewis–Simo (1994) energy–momentum on T*SO(3), Cayley update: energy and vertical (free body: spatial) momentum exact",
    ),
    m(
        "simo-wong",
        L,
        2,
        St::GroupOnly,
        "Simo–Wong (1991) midpoint Lie (Lie–Newmark) on T*SO(3): momentum and the free body's coadjoint orbit exact, not energy",
    ),
    m(
        "bobenko-suris",
        L,
        2,
        St::Symplectic,
        "Bobenko–Suris (1999) discrete Lagrange top, explicit: axial momentum Π₃ bit for bit, vertical momentum and a deformed energy to round-off (Lagrange tops only)",
    ),
    m("rkmk4", L, 4, St::GroupOnly, "Runge–Kutta–Munthe-Kaas 4 on SO(3) × R^3 (stays on the group, not symplectic)"),
    m(
        "cg4a",
        L,
        4,
        St::GroupOnly,
        "Crouch–Grossman CG4a (Jackiewicz, Marthinsen & Owren 2000) on SO(3) × R^3: products of exponentials, no dexp⁻¹",
    ),
    m(
        "cf4",
        L,
        4,
        St::GroupOnly,
        "commutator-free CF4 (Celledoni, Marthinsen & Owren 2003) on SO(3) × R^3: two exponentials per step",
    ),
    m("rk4-embedded", L, 4, St::None, "classical RK4 on the matrix entries of g and on Π (leaves the group)"),
    m("rk2-embedded", L, 2, St::None, "classical RK2 (Heun) on the matrix entries of g and on Π (leaves the group)"),
    m("del", Gd, 2, St::DiscreteLagrangian, "discrete Euler–Lagrange flow of L_d on the groupoid (docs/math.md §C.3)"),
    m("del-cayley", Gd, 2, St::DiscreteLagrangian, "discrete Euler–Lagrange flow, fibre chart τ = cay"),
    m(
        "rattle",
        Gd,
        2,
        St::DiscreteLagrangian,
        "holonomic DEL with a node multiplier (SHAKE/RATTLE form, docs/math.md §C.4)",
    ),
    m(
        "rattle-midpoint",
        Gd,
        2,
        St::DiscreteLagrangian,
        "RATTLE as a one-step map of (q, p) ∈ T*S: midpoint L_d, node multiplier, momentum projected (groupoid layer)",
    ),
    m(
        "spark-gauss2",
        Gd,
        4,
        St::DiscreteLagrangian,
        "Gauss–Lobatto SPARK (Jay 2007), 2 Gauss stages, constraint at the Lobatto nodes: order 4 on T*S (groupoid layer)",
    ),
    m(
        "s2-midpoint",
        Gd,
        2,
        St::Symplectic,
        "cotangent lift of the midpoint discretization map of S² (symplectic on T*S², docs/math.md §A)",
    ),
    m(
        "s2-del-midpoint",
        Gd,
        2,
        St::Symplectic,
        "discrete Euler–Lagrange flow of the midpoint map of S² (its Lagrangian route)",
    ),
    m(
        "dla",
        Gd,
        2,
        St::Nonholonomic,
        "discrete Lagrange–d'Alembert flow, midpoint L_d and constraint, state (q, p = M v) (docs/math.md §C.7)",
    ),
    m(
        "del-midpoint",
        Gd,
        2,
        St::DiscreteLagrangian,
        "discrete Euler–Lagrange flow of the midpoint L_d = h L((q₀+q₁)/2, (q₁−q₀)/h) on the pair groupoid R^n × R^n, state (q, p = ∂L/∂v) (a system file's L)",
    ),
    m(
        "time-midpoint",
        Gd,
        2,
        St::DiscreteLagrangian,
        "fixed-step flow on the time groupoid (Q×Q)×R: midpoint L̂, step stored in the arrow, time momentum λ − E kept (docs/math.md §C.6.4)",
    ),
];

/// The relative and absolute tolerance of the DOP853 reference solutions, at the round-off of the
/// error estimate: the global error of a few orbits is some 100 tol (2e-13 for three Kepler orbits
/// at e = 0.6), and at 1e-14 the reference of `henon-heiles` was off by 7e-14, at 1e-15 by 1e-14
/// (against Gauss 3, Richardson-extrapolated).
pub const REFERENCE_TOLERANCE: f64 = 1e-15;

/// The largest number of DOP853 steps of one reference solution (a guard against a runaway
/// integration, far above what the catalogue's problems need: about 160 steps per Kepler orbit
/// at e = 0.6 and [`REFERENCE_TOLERANCE`]).
pub const REFERENCE_MAX_STEPS: usize = 100_000_000;

/// Not a row of [`METHODS`]: the adaptive DOP853 integration at [`REFERENCE_TOLERANCE`] as a one-step
/// map, `step(y, h)` = the integration from `y` over a time `h`, landing on it exactly
/// ([`Dop853Flow`]). The experiments start it with `h = t_end` to compute the reference solution of
/// a canonical problem that has no exact one ([`crate::workbench::experiment::reference`]). It is
/// not offered to `run`, `convergence` or `compare`: its error does not depend on `h`.
pub const DOP853_REFERENCE: MethodInfo = m(
    "dop853-reference",
    C,
    8,
    St::None,
    "adaptive Dormand–Prince 8(5,3) over the whole step, rtol = atol = 1e-15 (reference solutions)",
);

/// The most DOP853 steps of the reference solution of `geomint run` at its final time (a few
/// seconds for the outer solar system, well under one for the one-body problems): beyond it,
/// `run` reports the solution error as not available instead of spending far longer on the
/// reference than on the run.
pub const RUN_REFERENCE_MAX_STEPS: usize = 1_000_000;

/// The most steps of the problem's reference method, both Richardson runs together (`1.5 d`
/// times the run's steps for the divisor `d`), of the reference solution of `geomint run` for a
/// Lie-group or groupoid problem: about 0.5 s of RK4 on the matrix entries of the rigid body,
/// 0.7 s of RATTLE on the spherical pendulum, 30 s of the plate-ball's constrained flow. Runs of
/// up to 16 666 steps (divisor 8) get a reference.
pub const RUN_RICHARDSON_MAX_STEPS: usize = 200_000;

/// [`DOP853_REFERENCE`] limited to [`RUN_REFERENCE_MAX_STEPS`] steps: the reference of
/// `geomint run` at its final time (it fails, and `run` says so, where it would need more).
pub const DOP853_RUN_REFERENCE: MethodInfo = m(
    "dop853-run-reference",
    C,
    8,
    St::None,
    "adaptive Dormand–Prince 8(5,3) over the whole step, rtol = atol = 1e-15, at most 10^6 steps",
);

/// The registry row called `name`.
pub fn find(name: &str) -> Option<&'static MethodInfo> {
    METHODS.iter().find(|m| m.name == name)
}

/// The rows of one family, default first.
pub fn for_family(family: Family) -> Vec<&'static MethodInfo> {
    METHODS.iter().filter(|m| m.family == family).collect()
}

fn geom(e: geom_core::GeomError) -> WorkbenchError {
    WorkbenchError::Geom(e)
}

fn not_here(info: &MethodInfo) -> WorkbenchError {
    WorkbenchError::Input(format!("method '{}' has no constructor for this problem", info.name))
}

/// A canonical method over `T*R^N` for the Hamiltonian `ham`, as a trait object.
pub fn canonical<H, const N: usize>(
    info: &MethodInfo,
    ham: H,
) -> Result<Box<dyn OneStep<PhaseState<N>>>, WorkbenchError>
where
    H: PhaseSpaceDerivatives<N> + Clone + Send + Sync + 'static,
{
    Ok(match info.name {
        "stormer-verlet" => Box::new(StormerVerlet::new(ham)),
        "symplectic-euler-a" => Box::new(SymplecticEulerA::new(ham)),
        "symplectic-euler-b" => Box::new(SymplecticEulerB::new(ham)),
        "midpoint" => Box::new(CotangentLiftIntegrator::new(ThetaMap::new(0.5).map_err(geom)?, ham)),
        "gauss2" => Box::new(Gauss2::new(ham).map_err(geom)?),
        "gauss3" => Box::new(Gauss3::new(ham).map_err(geom)?),
        "lobatto3" => Box::new(LobattoIIIAIIIB3::new(ham).map_err(geom)?),
        "triple-jump" => Box::new(VerletComposition::new(ham, triple_jump(2)).map_err(geom)?),
        "yoshida6" => Box::new(VerletComposition::new(ham, yoshida6()).map_err(geom)?),
        "kahan-li8" => Box::new(VerletComposition::new(ham, kahan_li8()).map_err(geom)?),
        "kahan-li10" => Box::new(VerletComposition::new(ham, kahan_li10()).map_err(geom)?),
        "sofroniou-spaletta10" => Box::new(VerletComposition::new(ham, sofroniou_spaletta10()).map_err(geom)?),
        "rk4" => Box::new(ExplicitRk::<_, 4>::new(&tableau::rk4(), HamiltonianField(ham)).map_err(geom)?),
        "explicit-euler" => {
            Box::new(ExplicitRk::<_, 1>::new(&tableau::explicit_euler(), HamiltonianField(ham)).map_err(geom)?)
        }
        "dop853" => Box::new(Dop853::hamiltonian(ham)),
        "avf" => Box::new(Avf::<_, 3>::new(ham).map_err(geom)?),
        "gonzalez" => Box::new(Gonzalez::new(ham)),
        "itoh-abe" => Box::new(ItohAbe::symmetrized(ham)),
        "dop853-reference" | "dop853-run-reference" => {
            let max_steps = if info.name == "dop853-reference" { REFERENCE_MAX_STEPS } else { RUN_REFERENCE_MAX_STEPS };
            let options = Options { max_steps, ..Options::default() };
            let method = Dop853::hamiltonian(ham).with_options(options).map_err(|e| geom(e.into()))?;
            Box::new(Dop853Flow::new(method, REFERENCE_TOLERANCE, REFERENCE_TOLERANCE).map_err(geom)?)
        }
        _ => return Err(not_here(info)),
    })
}

/// The methods of the registry for a planetary system (the Wisdom–Holman family of
/// `integrators::splitting`): they split a gravitational N-body Hamiltonian about its first body,
/// so they apply to the N-body problems only (the problem offers them, [`planetary`] builds them).
pub const PLANETARY: &[&str] = &["wisdom-holman", "wisdom-holman-dh", "whfast", "saba4", "sabac4"];

/// The order of the symplectic corrector of `whfast` (Wisdom, Holman & Touma 1996; the highest
/// of `integrators::splitting::CORRECTOR_ORDERS`, as WHFast's recommended setting).
pub const WHFAST_CORRECTOR: u32 = 17;

/// A method of [`PLANETARY`], as [`planetary`] builds it: on the inertial state, or processed
/// (on its mapping variable, the corrector applied only at output).
pub enum Planetary<const N: usize, const D: usize, const B: usize> {
    /// A method on the inertial state `(q, p)`.
    Inertial(Box<dyn OneStep<PhaseState<N>>>),
    /// A method on its mapping variable in Jacobi coordinates, with the map to the inertial state
    /// (`integrators::splitting::ProcessedWisdomHolman`).
    Processed(ProcessedWisdomHolman<N, D, B>),
}

/// A method of [`PLANETARY`] for the gravitational N-body Hamiltonian `model` of `B` bodies in
/// `R^D` (`N = B·D`), body 0 the central one: `wisdom-holman` (`WisdomHolman::whfast`),
/// `wisdom-holman-dh` (`WisdomHolman::whfast_democratic`), `saba4`, `sabac4` on the inertial
/// state, and `whfast`, the Wisdom–Holman map with the corrector of order [`WHFAST_CORRECTOR`]
/// processed as WHFast does it (Rein & Tamayo 2015): one drift and one kick per step on the
/// mapping variable `y = φ^K_{−h/2}(C^{−1}(T(x)))`, the corrector applied only where the run is
/// read (`ProcessedWisdomHolman::to_physical`); an input error for any other method.
pub fn planetary<const N: usize, const D: usize, const B: usize>(
    info: &MethodInfo,
    model: &NBody<Gravity<B>, N, D>,
) -> Result<Planetary<N, D, B>, WorkbenchError> {
    let inertial = |m: Box<dyn OneStep<PhaseState<N>>>| Ok(Planetary::Inertial(m));
    match info.name {
        "wisdom-holman" => inertial(Box::new(WisdomHolman::whfast(model).map_err(geom)?)),
        "wisdom-holman-dh" => inertial(Box::new(WisdomHolman::whfast_democratic(model).map_err(geom)?)),
        "whfast" => {
            let corrected = WisdomHolman::whfast(model).and_then(|m| m.with_corrector(WHFAST_CORRECTOR));
            Ok(Planetary::Processed(corrected.and_then(ProcessedWisdomHolman::new).map_err(geom)?))
        }
        "saba4" => inertial(Box::new(WisdomHolman::saba(model, 4).map_err(geom)?)),
        "sabac4" => inertial(Box::new(WisdomHolman::sabac(model, 4).map_err(geom)?)),
        _ => Err(not_here(info)),
    }
}

/// The canonical methods that compute their increment `Φ_h(y) − y` directly
/// ([`Increment`]), and so run with compensated summation (`geomint run --compensated`): the
/// one-stage splittings, the implicit midpoint, the collocation methods and the explicit
/// Runge–Kutta methods. The compositions and DOP853 only give the new state.
pub const COMPENSATED: &[&str] = &[
    "stormer-verlet",
    "symplectic-euler-a",
    "symplectic-euler-b",
    "midpoint",
    "gauss2",
    "gauss3",
    "lobatto3",
    "rk4",
    "explicit-euler",
];

/// A canonical method over `T*R^N` for the Hamiltonian `ham` as an [`Increment`] trait object,
/// for compensated summation; an input error naming the methods that have one
/// ([`COMPENSATED`]) for any other.
pub fn canonical_increment<H, const N: usize>(
    info: &MethodInfo,
    ham: H,
) -> Result<Box<dyn Increment<N>>, WorkbenchError>
where
    H: PhaseSpaceDerivatives<N> + Clone + Send + Sync + 'static,
{
    Ok(match info.name {
        "stormer-verlet" => Box::new(StormerVerlet::new(ham)),
        "symplectic-euler-a" => Box::new(SymplecticEulerA::new(ham)),
        "symplectic-euler-b" => Box::new(SymplecticEulerB::new(ham)),
        "midpoint" => Box::new(CotangentLiftIntegrator::new(ThetaMap::new(0.5).map_err(geom)?, ham)),
        "gauss2" => Box::new(Gauss2::new(ham).map_err(geom)?),
        "gauss3" => Box::new(Gauss3::new(ham).map_err(geom)?),
        "lobatto3" => Box::new(LobattoIIIAIIIB3::new(ham).map_err(geom)?),
        "rk4" => Box::new(ExplicitRk::<_, 4>::new(&tableau::rk4(), HamiltonianField(ham)).map_err(geom)?),
        "explicit-euler" => {
            Box::new(ExplicitRk::<_, 1>::new(&tableau::explicit_euler(), HamiltonianField(ham)).map_err(geom)?)
        }
        name => {
            return Err(WorkbenchError::Input(format!(
                "method '{name}' has no compensated form (it gives the new state, not its increment); \
                 --compensated applies to {}",
                COMPENSATED.join(", ")
            )));
        }
    })
}

/// The state of a Lie-group problem whose elements are `M × M` matrices.
pub type MatrixState<const M: usize, const D: usize> = LieState<SMatrix<f64, M, M>, D>;

/// A Lie-group method for the left-trivialized Lagrangian `lagrangian` (and its Hamiltonian
/// `hamiltonian`, for the cotangent lifts of the discretization layer) on `group`, as a trait
/// object (every method of the family but `rkmk4`, which needs the model as a vector field on
/// `SO(3) × R^3` and is built by the SO(3) problems).
pub fn lie_group<G, La, H, const M: usize, const D: usize>(
    info: &MethodInfo,
    group: G,
    lagrangian: La,
    hamiltonian: H,
) -> Result<Box<dyn OneStep<MatrixState<M, D>>>, WorkbenchError>
where
    G: HpGroup<D>
        + AdLieGroup<D>
        + LieGroup<f64, D, Element = SMatrix<f64, M, M>, Matrix = SMatrix<f64, M, M>>
        + Clone
        + 'static,
    La: HpLagrangian<G, D> + LieField<G, D> + AdLieFunction<G, D> + Clone + 'static,
    H: AdLieFunction<G, D> + Clone + 'static,
{
    let hp = |t: &tableau::Tableau, chart: Chart, name: &str| -> Result<HpIntegrator<G, La, D, 2>, WorkbenchError> {
        Ok(HpIntegrator::new(group.clone(), t, chart, lagrangian.clone()).map_err(geom)?.with_name(name))
    };
    Ok(match info.name {
        "hp-sv" => Box::new(hp::stormer_verlet(group, Chart::Cayley, lagrangian).map_err(geom)?),
        "hp-sv-exp" => Box::new(hp::stormer_verlet(group, Chart::Exp, lagrangian).map_err(geom)?),
        "hp-sv-triple-jump" | "hp-sv-yoshida6" | "hp-sv-kahan-li8" | "hp-sv-kahan-li10" => {
            let scheme = match info.name {
                "hp-sv-triple-jump" => triple_jump(2),
                "hp-sv-yoshida6" => yoshida6(),
                "hp-sv-kahan-li8" => kahan_li8(),
                _ => kahan_li10(),
            };
            let base = hp::stormer_verlet(group, Chart::Cayley, lagrangian).map_err(geom)?;
            Box::new(Composition::new(base, scheme).map_err(geom)?)
        }
        "hp-euler-a" => Box::new(hp::symplectic_euler_a(group, Chart::Cayley, lagrangian).map_err(geom)?),
        "hp-euler-b" => Box::new(hp::symplectic_euler_b(group, Chart::Cayley, lagrangian).map_err(geom)?),
        "hp-gauss2" => Box::new(hp(&tableau::gauss_legendre(2).map_err(geom)?, Chart::Exp, "HP Gauss 2 (exp)")?),
        "hp-gauss2-q2" => Box::new(
            hp(&tableau::gauss_legendre(2).map_err(geom)?, Chart::Exp, "HP Gauss 2 (exp)")?
                .with_truncation(2)
                .map_err(geom)?,
        ),
        "hp-gauss3-q4" => Box::new(
            HpIntegrator::<G, La, D, 3>::new(group, &tableau::gauss_legendre(3).map_err(geom)?, Chart::Exp, lagrangian)
                .map_err(geom)?
                .with_name("HP Gauss 3 (exp)")
                .with_truncation(4)
                .map_err(geom)?,
        ),
        "lift-midpoint-exp" => Box::new(LieCotangentLiftIntegrator::new(
            LieGroupThetaMap::midpoint(group, Chart::Exp),
            LieAutoDiff(hamiltonian),
        )),
        "lift-midpoint-cayley" => Box::new(LieCotangentLiftIntegrator::new(
            LieGroupThetaMap::midpoint(group, Chart::Cayley),
            LieAutoDiff(hamiltonian),
        )),
        "lift-theta0-cayley"
        | "lift-theta1-cayley"
        | "lift-adjoint-pair-cayley"
        | "lift-theta0-exp"
        | "lift-theta1-exp"
        | "lift-adjoint-pair-exp" => {
            let chart = if info.name.ends_with("-exp") { Chart::Exp } else { Chart::Cayley };
            let theta0 = LieGroupThetaMap::new(group, 0.0, chart).map_err(geom)?;
            let lift =
                |map: LieGroupThetaMap<G, D>| LieCotangentLiftIntegrator::new(map, LieAutoDiff(hamiltonian.clone()));
            match info.name.trim_end_matches("-exp").trim_end_matches("-cayley") {
                "lift-theta0" => Box::new(lift(theta0)),
                "lift-theta1" => Box::new(lift(theta0.adjoint())),
                _ => Box::new(Composition::with_adjoint(lift(theta0.clone()), lift(theta0.adjoint()), adjoint_pair())),
            }
        }
        "lagrangian-midpoint-cayley" | "lagrangian-midpoint-exp" => {
            let chart = if info.name.ends_with("-exp") { Chart::Exp } else { Chart::Cayley };
            Box::new(LieLagrangianIntegrator::new(group, 0.5, chart, LieAutoDiff(lagrangian)).map_err(geom)?)
        }
        "rk4-embedded" => Box::new(EmbeddedRk::<_, _, 4>::new(&tableau::rk4(), group, lagrangian).map_err(geom)?),
        "rk2-embedded" => Box::new(EmbeddedRk::<_, _, 2>::new(&tableau::heun(), group, lagrangian).map_err(geom)?),
        _ => return Err(not_here(info)),
    })
}

/// The Lie–Poisson methods (`lie-poisson-*`) of a left-invariant problem on `group` with the
/// reduced Hamiltonian `h(μ)`: the reduced midpoint step on `g*` and the reconstruction
/// `g_{k+1} = g_k W_k` (`discretization::lie_poisson`), and Engø–Faltinsen's coadjoint-orbit and
/// energy preserving step (`integrators::lie_poisson_baselines::CoadjointEnergy`, Cayley chart),
/// as one-step methods of `(g, μ)`.
pub fn lie_poisson<G, H, const M: usize, const D: usize>(
    info: &MethodInfo,
    group: G,
    hamiltonian: H,
) -> Result<Box<dyn OneStep<MatrixState<M, D>>>, WorkbenchError>
where
    G: AdLieGroup<D> + LieGroup<Dual64, D> + LieGroup<f64, D, Element = SMatrix<f64, M, M>> + Clone + 'static,
    H: ScalarFunction<D> + Clone + 'static,
{
    let chart = match info.name {
        "lie-poisson-midpoint-cayley" => Chart::Cayley,
        "lie-poisson-midpoint-exp" => Chart::Exp,
        "lie-poisson-engo-faltinsen" => return Ok(Box::new(CoadjointEnergy::new(group, Chart::Cayley, hamiltonian))),
        _ => return Err(not_here(info)),
    };
    Ok(Box::new(LiePoissonIntegrator::new(LieGroupThetaMap::midpoint(group, chart), hamiltonian)))
}

/// The methods of the registry on `T*SO(3)` for a rigid body about a fixed point whose potential
/// depends on the vertical `Γ = Rᵀe3` only (the free body, the heavy top): Lewis–Simo's
/// energy–momentum scheme and Simo–Wong's midpoint Lie scheme
/// (`integrators::lie_poisson_baselines`). Other Lie-group problems do not offer them.
pub const SO3_VERTICAL: &[&str] = &["lewis-simo", "simo-wong"];

/// A method of [`SO3_VERTICAL`] for the reduced Hamiltonian `h(Π, Γ)` (separable, `T(Π) + V(Γ)`),
/// as a trait object; an input error for any other method.
pub fn so3_vertical<H>(info: &MethodInfo, reduced: H) -> Result<Box<dyn OneStep<MatrixState<3, 3>>>, WorkbenchError>
where
    H: AdvectedFunction<3, 3> + Clone + 'static,
{
    Ok(match info.name {
        "lewis-simo" => Box::new(EnergyMomentum::new(reduced)),
        "simo-wong" => Box::new(LieNewmark::new(reduced)),
        _ => return Err(not_here(info)),
    })
}

/// The methods of the registry written for the Lagrange top only (a symmetric heavy top,
/// `I = diag(I₁, I₁, I₃)`, `χ = ±e3`): Bobenko–Suris's discrete Lagrange top
/// (`integrators::lie_poisson_baselines::BobenkoSuris`). The catalogue's `lagrange-top` offers
/// them; no other problem does.
pub const LAGRANGE_TOP: &[&str] = &["bobenko-suris"];

/// A method of [`LAGRANGE_TOP`] for the Lagrange top `top`, as a trait object; an input error
/// for any other method, and the integrator's typed error for a top that is not a Lagrange top.
pub fn lagrange_top(info: &MethodInfo, top: &HeavyTop) -> Result<Box<dyn OneStep<MatrixState<3, 3>>>, WorkbenchError> {
    Ok(match info.name {
        "bobenko-suris" => Box::new(BobenkoSuris::new(top).map_err(geom)?),
        _ => return Err(not_here(info)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::catalogue::canonical::{CanonicalSystem, Kepler};

    /// The printed name of a structure is its name in `summary.json`.
    #[test]
    fn structure_labels_are_the_serialized_names() {
        for m in METHODS {
            assert_eq!(serde_json::to_value(m.structure).unwrap(), m.structure.label(), "{}", m.name);
        }
    }

    /// Every method of [`COMPENSATED`] is a canonical method of the registry with an increment,
    /// and every other canonical method is refused with an error naming the list.
    #[test]
    fn compensated_methods_are_exactly_those_with_an_increment() {
        let ham = Kepler { e: 0.6 }.hamiltonian();
        for info in for_family(Family::Canonical) {
            let made = canonical_increment::<_, 2>(info, ham);
            if COMPENSATED.contains(&info.name) {
                assert!(made.is_ok(), "{}: no increment", info.name);
            } else {
                let Err(WorkbenchError::Input(msg)) = made else { panic!("{}: not refused", info.name) };
                assert!(msg.contains(info.name) && msg.contains("stormer-verlet, "), "{msg}");
            }
        }
        for name in COMPENSATED {
            assert_eq!(find(name).map(|m| m.family), Some(Family::Canonical), "{name}");
        }
    }
}
