//! A user's Lagrangian `L(q, v)` written as a formula (`geomint::workbench::catalogue::system`,
//! key `L` with velocity names `v`; `geom_core::formula::FormulaLagrangian`): the midpoint
//! discrete Euler–Lagrange flow on the pair groupoid is, to round-off, the cotangent lift of the
//! θ = ½ discretization map applied to the Legendre-transformed Hamiltonian (the implicit
//! midpoint rule; Barbero-Liñán, Marrero & Martín de Diego, *From retraction maps to
//! symplectic-momentum numerical integrators*, 2024, arXiv:2401.14800), for a quadratic and a
//! non-quadratic (position-dependent mass) kinetic energy; a wrong sign is not; the energy
//! `v·∂L/∂v − L` stays bounded and the order is 2; bad files are clear input errors.

use crate::support::TempDir;
use discretization::{CotangentLiftIntegrator, ThetaMap};
use geom_core::formula::{FormulaHamiltonian, FormulaLagrangian};
use geom_core::step::{OneStep, PhaseState};
use geomint::workbench::catalogue::{self, system::SystemSpec};
use geomint::workbench::experiment::{self, RunSpec};
use geomint::workbench::problem::Problem;
use groupoid::PairGroupoid;
use groupoid::integrator::{GroupoidIntegrator, Stepped};
use groupoid::time_dependent::Midpoint;
use nalgebra::SVector;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/systems").join(name)
}

fn run(problem: &dyn Problem, method: &str, h: f64, steps: usize, every: usize) -> experiment::RunResult {
    let spec = RunSpec::new(h, Some(steps), None, every).unwrap();
    experiment::run(problem, method, spec, &mut |_| {}).unwrap_or_else(|e| panic!("{method}: {e}"))
}

/// The largest difference of the sampled states of two runs.
fn distance(a: &experiment::RunResult, b: &experiment::RunResult) -> f64 {
    assert_eq!(a.samples.len(), b.samples.len());
    a.samples
        .iter()
        .zip(&b.samples)
        .flat_map(|(x, y)| x.state.iter().zip(&y.state).map(|(u, v)| (u - v).abs()))
        .fold(0.0, f64::max)
}

/// The problem of a system file's text.
fn problem(text: &str) -> Result<Box<dyn Problem>, String> {
    SystemSpec::from_toml(text, "test.toml").and_then(|s| s.problem(&[], "test.toml")).map_err(|e| e.to_string())
}

/// `L(q, v)` and its Legendre transform `H(q, p)` in one coordinate `x`, from `(x0, u0)`.
struct Pair {
    what: &'static str,
    l: &'static str,
    h: &'static str,
    x0: f64,
    u0: f64,
}

const PAIRS: [Pair; 2] = [
    // the pendulum: L = ½u² + cos x, H = ½p² − cos x
    Pair { what: "pendulum", l: "0.5*u^2 + cos(x)", h: "0.5*p^2 - cos(x)", x0: 1.3, u0: 0.4 },
    // a position-dependent mass: L = ½(1 + x²)u² − x²/2, H = p²/(2(1 + x²)) + x²/2
    Pair {
        what: "non-quadratic",
        l: "0.5*(1 + x^2)*u^2 - 0.5*x^2",
        h: "p^2/(2*(1 + x^2)) + 0.5*x^2",
        x0: 1.5,
        u0: 0.7,
    },
];

/// The library route: `GroupoidIntegrator` of `Midpoint(FormulaLagrangian)` on the pair
/// groupoid against `CotangentLiftIntegrator` of the θ = ½ map and the formula `H`, 1000 steps
/// from the same `(q0, p0 = ∂L/∂v(q0, v0))`: equal to 1e-12 (the same map), while `H` with the
/// sign of the potential flipped is far away (the comparison can fail).
#[test]
fn the_variational_midpoint_flow_is_the_cotangent_lift_of_the_midpoint_map() {
    let h = 0.05;
    for pair in PAIRS {
        let l = FormulaLagrangian::<1>::parse(pair.l, &["x"], &["u"], &[]).unwrap();
        let (q0, v0) = (SVector::from([pair.x0]), SVector::from([pair.u0]));
        let start = PhaseState::new(q0, l.momentum(&q0, &v0));
        let del = GroupoidIntegrator::new(PairGroupoid::<1>, Stepped(Midpoint(l.clone()))).with_properties(2, true);
        let lift = |text: &str| {
            CotangentLiftIntegrator::new(
                ThetaMap::midpoint(),
                FormulaHamiltonian::<1>::parse(text, &["x"], &["p"], &[]).unwrap(),
            )
        };
        let (right, wrong) = (lift(pair.h), lift(&pair.h.replace("- cos", "+ cos").replace("+ 0.5*x^2", "- 0.5*x^2")));
        let (mut a, mut b, mut c) = (start, start, start);
        let (mut d_right, mut d_wrong) = (0.0f64, 0.0f64);
        for _ in 0..1000 {
            del.step(&mut a, h).unwrap();
            right.step(&mut b, h).unwrap();
            wrong.step(&mut c, h).unwrap();
            d_right = d_right.max((a.q - b.q).amax().max((a.p - b.p).amax()));
            d_wrong = d_wrong.max((a.q - c.q).amax().max((a.p - c.p).amax()));
        }
        assert!(d_right <= 1e-12, "{}: the two routes differ by {d_right:e}", pair.what);
        assert!(d_wrong > 1e-2, "{}: the wrong sign is only {d_wrong:e} away", pair.what);
    }
}

/// The same through the workbench: the system file's `L` form with `del-midpoint` against its
/// Legendre transform as an `H` system file with the cotangent lift of the midpoint map
/// (`midpoint`), 1000 steps; the files state the same initial data (`v0` and `p0 = ∂L/∂v`).
/// The Kepler example against `kepler.toml` too (`p = v`, the same `q0`, and `v0 = p0`), to the
/// rounding of the pair groupoid's momenta.
#[test]
fn a_lagrangian_file_runs_as_its_legendre_transform() {
    for pair in PAIRS {
        let l = FormulaLagrangian::<1>::parse(pair.l, &["x"], &["u"], &[]).unwrap();
        let p0 = l.momentum(&SVector::from([pair.x0]), &SVector::from([pair.u0]))[0];
        let lagrangian = problem(&format!(
            "q = [\"x\"]\nv = [\"u\"]\nL = \"{}\"\nq0 = [{:?}]\nv0 = [{:?}]\n",
            pair.l, pair.x0, pair.u0
        ))
        .unwrap();
        let hamiltonian =
            problem(&format!("q = [\"x\"]\np = [\"p\"]\nH = \"{}\"\nq0 = [{:?}]\np0 = [{p0:?}]\n", pair.h, pair.x0))
                .unwrap();
        assert_eq!(lagrangian.initial_state().unwrap(), hamiltonian.initial_state().unwrap());
        assert_eq!(lagrangian.state_labels(), ["x", "p_x"]);
        assert_eq!(lagrangian.methods(), ["del-midpoint"]);
        let (a, b) = (
            run(lagrangian.as_ref(), "del-midpoint", 0.05, 1000, 10),
            run(hamiltonian.as_ref(), "midpoint", 0.05, 1000, 10),
        );
        let d = distance(&a, &b);
        assert!(d <= 1e-12, "{}: {d:e}", pair.what);
        // the monitored energy E = v·∂L/∂v − L is the Hamiltonian at the same state
        for (x, y) in a.samples.iter().zip(&b.samples) {
            assert!(
                (x.values[0] - y.values[0]).abs() <= 1e-12,
                "{}: E {} vs H {}",
                pair.what,
                x.values[0],
                y.values[0]
            );
        }
    }
    let file = catalogue::resolve("system", &[], Some(&example("kepler_lagrangian.toml")), None).unwrap();
    let kepler = catalogue::resolve("system", &[], Some(&example("kepler.toml")), None).unwrap();
    assert_eq!(file.initial_state().unwrap(), kepler.initial_state().unwrap());
    assert_eq!(file.state_labels(), ["x", "y", "p_x", "p_y"]);
    let names: Vec<&str> = file.quantities().iter().map(|q| q.name).collect();
    assert_eq!(names, ["energy", "angular_momentum"]);
    let (a, b) = (run(file.as_ref(), "del-midpoint", 0.01, 1000, 10), run(kepler.as_ref(), "midpoint", 0.01, 1000, 10));
    // The pair groupoid's momentum p_{k+1} = D_2 L_d(q_k, q_{k+1}) reads Δq/h off two absolute
    // positions: each step carries a rounding of ε|q|/h in p that the lift's p_k + h F does not
    // (measured 1.8e-12 after these 1000 steps); the bound is that rounding summed over the run.
    let d = distance(&a, &b);
    let q_max = a.samples.iter().map(|s| s.state[0].hypot(s.state[1])).fold(0.0, f64::max);
    let rounding = 1000.0 * f64::EPSILON * q_max / 0.01;
    assert!(d <= rounding, "Kepler: {d:e} (rounding bound {rounding:e})");
    // and a wrong sign of the potential is far away
    let repelled =
        catalogue::resolve("system", &[("mu".into(), -1.0)], Some(&example("kepler_lagrangian.toml")), None).unwrap();
    assert!(distance(&run(repelled.as_ref(), "del-midpoint", 0.01, 1000, 10), &b) > 1e-2);
    assert!(a.max_error(1) < 1e-12, "angular momentum x vy − y vx: {:e}", a.max_error(1));
}

/// The energy `E = v·∂L/∂v − L` of the non-quadratic system over 10⁴ steps: bounded, of size
/// `O(h²)`, and no larger over the last half than over the first (no drift); the global error
/// at `t = 2` is of order 2 (slope within 0.2, against the same flow at `h/32`).
#[test]
fn the_energy_is_bounded_and_the_order_is_two() {
    let pair = &PAIRS[1];
    let text = format!("q = [\"x\"]\nv = [\"u\"]\nL = \"{}\"\nq0 = [{:?}]\nv0 = [{:?}]\n", pair.l, pair.x0, pair.u0);
    let system = problem(&text).unwrap();
    let r = run(system.as_ref(), "del-midpoint", 0.1, 10_000, 10);
    let errors: Vec<f64> = r.samples.iter().map(|s| s.errors[0]).collect();
    let (first, last) = errors.split_at(errors.len() / 2);
    let max = |e: &[f64]| e.iter().copied().fold(0.0, f64::max);
    assert!(max(&errors) < 1e-2 && max(&errors) > 1e-6, "energy error {:e}", max(&errors));
    assert!(max(last) < 1.5 * max(first), "drift: {:e} then {:e}", max(first), max(last));
    let at = |steps: usize| -> Vec<f64> {
        let r = run(system.as_ref(), "del-midpoint", 2.0 / steps as f64, steps, steps);
        r.samples.last().unwrap().state.clone()
    };
    let reference = at(640);
    let err = |steps| at(steps).iter().zip(&reference).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    let (e1, e2) = (err(20), err(40));
    let slope = (e1 / e2).log2();
    assert!((slope - 2.0).abs() <= 0.2, "order {slope} ({e1:e}, {e2:e})");
}

/// Bad files: each an input error naming what is wrong, never a panic.
#[test]
fn bad_lagrangian_files_are_refused() {
    let base = "q = [\"x\"]\nq0 = [1.0]\n";
    let cases = [
        ("v = [\"u\"]\nL = \"0.5*u^2\"\nv0 = [0.0]\np = [\"p\"]\n", "not p or p0"),
        ("v = [\"u\"]\nL = \"0.5*u^2\"\nv0 = [0.0]\np0 = [0.0]\n", "not p or p0"),
        ("v = [\"u\"]\nL = \"0.5*u^2\"\nv0 = [0.0]\nH = \"0.5*p^2\"\n", "not both"),
        ("v = [\"u\"]\nL = \"0.5*u^2\"\nv0 = [0.0]\nV = \"x^2\"\n", "not both"),
        ("L = \"0.5*u^2\"\nv0 = [0.0]\n", "velocity names v"),
        ("v = [\"u\"]\nL = \"0.5*u^2\"\n", "initial velocities v0"),
        ("v = [\"u\", \"w\"]\nL = \"0.5*u^2\"\nv0 = [0.0, 0.0]\n", "but v names 2"),
        ("v = [\"u\"]\nL = \"0.5*u^2\"\nv0 = [0.0, 1.0]\n", "v0 2"),
        ("v = [\"x\"]\nL = \"0.5*x^2\"\nv0 = [0.0]\n", "'x' names both"),
        ("v = [\"u\"]\nL = \"x*u - x^2\"\nv0 = [0.0]\n", "not regular"),
        ("v = [\"u\"]\nL = \"x^2\"\nv0 = [0.0]\n", "not regular"),
        ("v = [\"u\"]\nL = \"0.5*u^2 + k*x\"\nv0 = [0.0]\n", "unknown name 'k'"),
        ("v = [\"u\"]\nL = \"0.5*u^2 - 1/(x - 1)\"\nv0 = [0.0]\n", "not finite"),
        ("v = [\"u\"]\nL = \"0.5*u^2\"\nv0 = [0.0]\n[invariants]\nJ = \"p*x\"\n", "invariant J"),
        ("p = [\"p\"]\nH = \"0.5*p^2\"\np0 = [0.0]\nv = [\"u\"]\n", "go with a Lagrangian"),
        ("H = \"0.5*x^2\"\np0 = [0.0]\n", "momentum names p"),
    ];
    for (rest, expected) in cases {
        let text = format!("{base}{rest}");
        let err = problem(&text).err().unwrap_or_else(|| panic!("accepted:\n{text}"));
        assert!(err.contains(expected) && err.contains("test.toml"), "{text}\n→ {err}");
    }
    // a state whose p has no velocity (here: none needed, L is regular everywhere) and a
    // non-finite one
    let ok = problem(&format!("{base}v = [\"u\"]\nL = \"0.5*u^2\"\nv0 = [0.0]\n")).unwrap();
    assert!(ok.with_state(&[1.0, 2.0]).is_ok());
    assert!(ok.with_state(&[1.0, f64::NAN]).is_err());
    assert!(ok.with_state(&[1.0]).is_err());
}

fn geomint(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_geomint")).args(args).arg("--quiet").current_dir(cwd).output().expect("run")
}

/// The command line: the example runs (header `x, y, p_x, p_y`, problem `system`, method
/// `del-midpoint`), a run resumed from its checkpoint ends where the uninterrupted run does, bit
/// for bit, and a bad file is one error line naming the file.
#[test]
fn the_command_line_runs_a_lagrangian_file() {
    let tmp = TempDir::new("lagrangian");
    let file = example("kepler_lagrangian.toml").display().to_string();
    let (whole, half) = (tmp.join("whole"), tmp.join("half"));
    let common = ["--system", file.as_str(), "--every", "7", "--checkpoint-every", "100"];
    let go = |steps: &str, out: &Path| {
        let out = out.display().to_string();
        geomint(tmp.path(), &[&["run", "--steps", steps][..], &common, &["--out", &out]].concat())
    };
    let ok = |o: &Output| assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    ok(&go("600", &whole));
    ok(&go("300", &half));
    ok(&geomint(tmp.path(), &["resume", &half.display().to_string(), "--steps", "600"]));
    let read = |d: &Path| std::fs::read_to_string(d.join("trajectory.csv")).unwrap();
    assert_eq!(read(&whole).lines().last(), read(&half).lines().last());
    assert!(read(&whole).starts_with("step,t,x,y,p_x,p_y"), "{}", read(&whole).lines().next().unwrap());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(whole.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["problem"], "system");
    assert_eq!(summary["method"], "del-midpoint");
    let bad = tmp.write("mixed.toml", "q=[\"x\"]\nv=[\"u\"]\nL=\"0.5*u^2\"\nH=\"p^2\"\nq0=[1.0]\nv0=[0.0]\n");
    let out = geomint(tmp.path(), &["run", "--system", &bad.display().to_string(), "--steps", "10", "--out", "never"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("mixed.toml") && err.contains("not both"), "{err}");
}
