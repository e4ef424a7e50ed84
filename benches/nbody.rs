//! The outer solar system (Sun and Jupiter to Pluto, HLW §I.2.4 data, 6 bodies in 3D,
//! `G = 2.95912208286e-4`, h = 10 days) with Störmer–Verlet, `geomint run outer-solar-system
//! --method stormer-verlet`, each route timed interleaved with a hand-written kick–drift–kick
//! loop of the same equations on plain `f64` arrays, in the same process (`common::ratio`):
//!
//! * the CLI's route: `catalogue::problem` + `problem::start` + `Simulation::advance` (a boxed
//!   `OneStep` behind the `Simulation` seam), one step per call, target 1.5;
//! * the CLI's run loop, `Simulation::advance_by` in chunks of 256 steps (Störmer–Verlet's
//!   `OneStep::step_n` evaluates the force once per step, the force at the end of a step serving
//!   the first kick of the next), against the hand loop that does the same, target 1.5 and
//!   under 120 ns/step;
//! * `StormerVerlet::step` on the catalogue's Hamiltonian (`geom_core::pairwise::NBody`:
//!   AD of the pair function `φ(r) = −G m_i m_j / r` only, chain rule by hand), target 1.5.
//!
//! `Simulation::advance` and `StormerVerlet::step` evaluate the forces twice per step (kick,
//! drift, kick), as the two-force hand loop does.
//! Also printed, for information (`info <case> <ns/step> <hand ns/step> <ratio>`): the former
//! route, AD over all 18 coordinates (`Separable<SolarKinetic, SolarPotential>`), and the hand
//! loop with one force evaluation per step (FSAL, the force at the end of a step reused at the
//! start of the next; same trajectory).
//!
//! `NBODY_PROFILE=<route>` runs one route alone, for `perf record` (see [`profile`]).
//!
//! Run: `cargo bench --bench nbody`.

mod common;

use common::ratio::{Report, interleaved};
use criterion::{Criterion, criterion_group};
use discretization::{OneStep, PhaseState};
use geom_core::function::Separable;
use geomint::workbench::catalogue;
use geomint::workbench::catalogue::canonical::{
    CanonicalSystem, G_SOLAR, OuterSolarSystem, SOLAR_MASSES, SOLAR_POSITIONS, SOLAR_VELOCITIES, SolarKinetic,
    SolarPotential,
};
use geomint::workbench::problem::{self, Simulation};
use integrators::classical::StormerVerlet;
use std::hint::black_box;

const H: f64 = 10.0;
const STEPS: usize = 20_000;
const B: usize = 6;

/// Positions (AU) and momenta (solar masses · AU/day) of the six bodies.
#[derive(Debug, Clone, Copy)]
struct Bodies {
    q: [[f64; 3]; B],
    p: [[f64; 3]; B],
}

impl Bodies {
    /// HLW Table 2.2, `p_i = m_i v_i`.
    fn initial() -> Self {
        let mut p = SOLAR_VELOCITIES;
        for (pi, m) in p.iter_mut().zip(SOLAR_MASSES) {
            pi.iter_mut().for_each(|v| *v *= m);
        }
        Self { q: SOLAR_POSITIONS, p }
    }

    /// `(q, p)` flattened like the catalogue's state (body `i` at `3i..3i+3`).
    fn flat(&self) -> Vec<f64> {
        self.q.iter().chain(self.p.iter()).flatten().copied().collect()
    }
}

/// The hand-written N-body leapfrog: `G m_i m_j` and `1/m_i` precomputed.
struct Hand {
    gmm: [[f64; B]; B],
    inv_m: [f64; B],
}

impl Hand {
    fn new() -> Self {
        let mut gmm = [[0.0; B]; B];
        for (i, row) in gmm.iter_mut().enumerate() {
            for (j, g) in row.iter_mut().enumerate() {
                *g = G_SOLAR * SOLAR_MASSES[i] * SOLAR_MASSES[j];
            }
        }
        Self { gmm, inv_m: SOLAR_MASSES.map(|m| 1.0 / m) }
    }

    /// The forces `F_i = −∂V/∂q_i = −Σ_j G m_i m_j (q_i − q_j) / |q_i − q_j|³`.
    #[inline]
    fn forces(&self, q: &[[f64; 3]; B]) -> [[f64; 3]; B] {
        let mut f = [[0.0; 3]; B];
        for i in 0..B {
            for j in i + 1..B {
                let d = [q[i][0] - q[j][0], q[i][1] - q[j][1], q[i][2] - q[j][2]];
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                let s = self.gmm[i][j] / (r2 * r2.sqrt());
                for k in 0..3 {
                    f[i][k] -= s * d[k];
                    f[j][k] += s * d[k];
                }
            }
        }
        f
    }

    /// Kick h/2, drift h, kick h/2.
    #[inline]
    fn step(&self, b: &mut Bodies, h: f64) {
        let f = self.forces(&b.q);
        self.kick_drift(b, &f, h);
        let f = self.forces(&b.q);
        Self::kick(b, &f, h);
    }

    /// The same step reusing the forces at the end of the previous step ("first same as last"):
    /// one force evaluation per step instead of two, same trajectory.
    #[inline]
    fn step_fsal(&self, b: &mut Bodies, f: &mut [[f64; 3]; B], h: f64) {
        self.kick_drift(b, f, h);
        *f = self.forces(&b.q);
        Self::kick(b, f, h);
    }

    #[inline]
    fn kick_drift(&self, b: &mut Bodies, f: &[[f64; 3]; B], h: f64) {
        Self::kick(b, f, h);
        for ((q, p), w) in b.q.iter_mut().zip(&b.p).zip(&self.inv_m) {
            (0..3).for_each(|k| q[k] += p[k] * w * h);
        }
    }

    #[inline]
    fn kick(b: &mut Bodies, f: &[[f64; 3]; B], h: f64) {
        for (p, f) in b.p.iter_mut().zip(f) {
            (0..3).for_each(|k| p[k] += 0.5 * h * f[k]);
        }
    }
}

/// The CLI's route: `geomint run outer-solar-system --method stormer-verlet`.
fn cli_simulation() -> Box<dyn Simulation> {
    let problem = catalogue::problem("outer-solar-system", &[]).unwrap();
    problem::start(problem.as_ref(), "stormer-verlet", H).unwrap()
}

fn flat(s: &PhaseState<18>) -> Vec<f64> {
    s.q.iter().chain(s.p.iter()).copied().collect()
}

/// `max(|Δq|_∞ / |q|_∞, |Δp|_∞ / |p|_∞)` of two flattened states.
fn relative_difference(a: &[f64], b: &[f64]) -> f64 {
    let half = |v: &[f64], r: std::ops::Range<usize>| v[r].iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let diff: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    (half(&diff, 0..18) / half(b, 0..18)).max(half(&diff, 18..36) / half(b, 18..36))
}

/// The three routes integrate the same trajectory: 1000 steps agree to 1e-12 (relative).
fn check_agreement() {
    let mut sim = cli_simulation();
    let sv = StormerVerlet::new(OuterSolarSystem.hamiltonian());
    let hand = Hand::new();
    let mut s = OuterSolarSystem.initial();
    let mut b = Bodies::initial();
    assert_eq!(flat(&s), b.flat(), "the hand loop starts elsewhere");
    for _ in 0..1000 {
        sim.advance_by(1).unwrap();
        sv.step(&mut s, H).unwrap();
        hand.step(&mut b, H);
    }
    let (cli, direct, reference) = (sim.state(), flat(&s), b.flat());
    assert_eq!(cli, direct, "the Simulation seam changes the arithmetic");
    let mut run = cli_simulation();
    run.advance_by(1000).unwrap();
    assert_eq!(run.state(), cli, "advance_by (the force shared between steps) is another trajectory");
    let mut fsal = Bodies::initial();
    let mut f = hand.forces(&fsal.q);
    for _ in 0..1000 {
        hand.step_fsal(&mut fsal, &mut f, H);
    }
    assert_eq!(fsal.flat(), reference, "the FSAL hand loop is another trajectory");
    let d = relative_difference(&direct, &reference);
    println!("agreement after 1000 steps: relative difference to the hand loop {d:.2e}");
    assert!(d <= 1e-12, "the routes disagree with the hand loop: {d:e}");
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("nbody_outer_solar_system_sv");
    g.bench_function("cli_advance", |bch| {
        let mut sim = cli_simulation();
        bch.iter(|| black_box(sim.as_mut()).advance_by(1).unwrap())
    });
    g.bench_function("stormer_verlet_step", |bch| {
        let sv = StormerVerlet::new(OuterSolarSystem.hamiltonian());
        let mut s = OuterSolarSystem.initial();
        bch.iter(|| sv.step(black_box(&mut s), black_box(H)).unwrap())
    });
    g.bench_function("hand_loop", |bch| {
        let hand = Hand::new();
        let mut b = Bodies::initial();
        bch.iter(|| hand.step(black_box(&mut b), black_box(H)))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench
}

/// `NBODY_PROFILE=<route>`: run one route alone for a while (for `perf record`), print its
/// ns/step and exit. Routes: `cli`, `sv`, `hand`, and the force evaluations alone, `gradient`
/// (the catalogue's `∇V`) and `forces` (the hand loop's).
fn profile(route: &str) {
    use geom_core::function::ScalarDerivatives;
    const N: usize = 2_000_000;
    let t = std::time::Instant::now();
    match route {
        "cli" => {
            let mut sim = cli_simulation();
            (0..N).for_each(|_| black_box(sim.as_mut()).advance_by(1).unwrap());
        }
        "sv" => {
            let sv = StormerVerlet::new(OuterSolarSystem.hamiltonian());
            let mut s = OuterSolarSystem.initial();
            (0..N).for_each(|_| sv.step(black_box(&mut s), black_box(H)).unwrap());
        }
        "hand" => {
            let (hand, mut b) = (Hand::new(), Bodies::initial());
            (0..N).for_each(|_| hand.step(black_box(&mut b), black_box(H)));
        }
        "gradient" => {
            let v = OuterSolarSystem.hamiltonian().potential.0;
            let q = OuterSolarSystem.initial().q;
            (0..N).for_each(|_| {
                black_box(v.gradient(black_box(&q)));
            });
        }
        "forces" => {
            let (hand, b) = (Hand::new(), Bodies::initial());
            (0..N).for_each(|_| {
                black_box(hand.forces(black_box(&b.q)));
            });
        }
        other => panic!("unknown NBODY_PROFILE route {other}"),
    }
    println!("{route}: {:.1} ns per call", t.elapsed().as_nanos() as f64 / N as f64);
}

fn main() {
    if let Ok(route) = std::env::var("NBODY_PROFILE") {
        return profile(&route);
    }
    check_agreement();
    benches();
    Criterion::default().final_summary();

    let hand = Hand::new();
    let hand_run = |b: &mut Bodies, n: usize| {
        for _ in 0..n {
            hand.step(black_box(b), black_box(H));
        }
    };
    let mut report = Report::new();

    let mut sim = cli_simulation();
    let mut b = Bodies::initial();
    let cli = report.case(
        "outer_solar_system_cli_advance",
        1.5,
        STEPS,
        |n| {
            for _ in 0..n {
                black_box(sim.as_mut()).advance_by(1).unwrap();
            }
        },
        |n| hand_run(&mut b, n),
    );

    // the CLI's run loop: `Simulation::advance_by` in chunks of 256 steps (Störmer–Verlet's
    // `step_n`: the force at the end of a step serves the first kick of the next), against the
    // hand loop that does the same (one force evaluation per step)
    let mut sim = cli_simulation();
    let mut b = Bodies::initial();
    let mut f = hand.forces(&b.q);
    let run = report.case(
        "outer_solar_system_cli_run_advance_by_vs_hand_fsal",
        1.5,
        STEPS,
        |n| {
            let mut left = n;
            while left > 0 {
                let chunk = left.min(256);
                black_box(sim.as_mut()).advance_by(chunk).unwrap();
                left -= chunk;
            }
        },
        |n| {
            for _ in 0..n {
                hand.step_fsal(black_box(&mut b), &mut f, black_box(H));
            }
        },
    );

    let sv = StormerVerlet::new(OuterSolarSystem.hamiltonian());
    let (mut s, mut b) = (OuterSolarSystem.initial(), Bodies::initial());
    report.case(
        "outer_solar_system_sv_step",
        1.5,
        STEPS,
        |n| {
            for _ in 0..n {
                sv.step(black_box(&mut s), black_box(H)).unwrap();
            }
        },
        |n| hand_run(&mut b, n),
    );

    // the former route, AD over all 18 coordinates, for information (fewer steps: it is slow)
    let ad = StormerVerlet::new(Separable::new(SolarKinetic, SolarPotential));
    let (mut s, mut b) = (OuterSolarSystem.initial(), Bodies::initial());
    let (ad_ns, hand_ns) = interleaved(
        500,
        |n| {
            for _ in 0..n {
                ad.step(black_box(&mut s), black_box(H)).unwrap();
            }
        },
        |n| hand_run(&mut b, n),
    );
    println!("info full_AD_18_coordinates_sv_step {ad_ns:.1} {hand_ns:.1} {:.1}", ad_ns / hand_ns);

    // for information: the hand loop with one force evaluation per step (FSAL), which a stateless
    // `OneStep::step` cannot do
    let (mut b1, mut b2) = (Bodies::initial(), Bodies::initial());
    let mut f = hand.forces(&b1.q);
    let (fsal_ns, hand_ns) = interleaved(
        STEPS,
        |n| {
            for _ in 0..n {
                hand.step_fsal(black_box(&mut b1), &mut f, black_box(H));
            }
        },
        |n| hand_run(&mut b2, n),
    );
    println!("info hand_loop_fsal_one_force_per_step {fsal_ns:.1} {hand_ns:.1} {:.2}", fsal_ns / hand_ns);

    report.print("outer solar system, Störmer–Verlet, h = 10 days: ratio case project_ns reference_ns ratio target");
    for (case, r) in [("outer_solar_system_cli_advance", &cli), ("outer_solar_system_cli_run_advance_by", &run)] {
        let mark = if r.project < 120.0 { "" } else { "   <-- above target" };
        println!("absolute {case} {:.1} ns/step (target < 120){mark}", r.project);
    }
}
