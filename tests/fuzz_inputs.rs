//! The parsers of outside input never panic, whatever the bytes: TOML run configs (parsed, then
//! resolved into a problem and a run as `geomint run --config` does), N-body system files, system
//! files of formulas and of rigid bodies on SO(3) and SE(3) (parsed, made a problem and stepped,
//! as `geomint run --system` does), the
//! formula parser itself (random token soups, evaluated at `f64` and at dual numbers), and
//! checkpoints (`checkpoint.json` and the sample file `checkpoint-samples.bin` of a real run,
//! damaged, then opened as `geomint resume` does).
//!
//! Each input is a valid seed mutated by a deterministic generator (fixed seed): byte flips,
//! deletions, duplications, insertions of random bytes and of hostile tokens (`nan`, `1e309`,
//! `-0`, huge integers, unbalanced quotes and brackets), truncation. The default is a few
//! thousand cases per parser, a second or two; a longer run sets `GEOMINT_FUZZ_CASES`
//! (e.g. `GEOMINT_FUZZ_CASES=200000 cargo test --test suite fuzz_inputs -- --nocapture`).

use geom_core::formula::Formula;
use geomint::workbench::catalogue::{self, lie_system::LieSystemSpec, nbody::Bodies, system::SystemSpec};
use geomint::workbench::checkpoint::SAMPLES_FILE;
use geomint::workbench::checkpoint::Session;
use geomint::workbench::config::RunConfig;
use geomint::workbench::experiment::RunSpec;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// xorshift64*: a fixed sequence of cases on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TOKENS: &[&str] = &[
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e309",
    "-1e309",
    "-0",
    "0",
    "1e-320",
    "18446744073709551616",
    "-1",
    "99999999999999999999",
    "\"",
    "[",
    "]",
    "{",
    "}",
    "=",
    ",",
    "\n",
    "\u{0}",
    "é",
    "\u{202e}",
    "#",
    "[params]",
];

fn cases() -> usize {
    std::env::var("GEOMINT_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000)
}

/// One structured mutation of `seed`.
fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = v.len();
        let at = rng.below(len + 1);
        match rng.below(7) {
            0 if len > 0 => v[at.min(len - 1)] ^= 1 << rng.below(8),
            1 => {
                let end = (at + rng.below(16)).min(len);
                v.drain(at..end);
            }
            2 => {
                let end = (at + rng.below(32)).min(len);
                let chunk = v[at..end].to_vec();
                v.splice(at..at, chunk);
            }
            3 => {
                let bytes: Vec<u8> = (0..rng.below(8)).map(|_| rng.next() as u8).collect();
                v.splice(at..at, bytes);
            }
            4 => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes().to_vec();
                // replace a number-like run at `at` by the token
                let end =
                    v[at..].iter().position(|b| !(b.is_ascii_digit() || b"+-.e".contains(b))).map_or(len, |k| at + k);
                v.splice(at..end.max(at), token);
            }
            5 => v.truncate(at),
            _ => {}
        }
    }
    v
}

/// Runs `f` on `cases()` mutations of `seed`; a panic fails the test with the input.
fn fuzz(what: &str, seed: &str, salt: u64, mut f: impl FnMut(&[u8])) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ salt);
    for case in 0..cases() {
        let input = mutate(seed.as_bytes(), &mut rng);
        if catch_unwind(AssertUnwindSafe(|| f(&input))).is_err() {
            panic!("{what}: case {case} panicked on {:?}", String::from_utf8_lossy(&input));
        }
    }
}

const CONFIG: &str = "problem = \"kepler\"\nmethod = \"stormer-verlet\"\nh = 0.01\nsteps = 200\nevery = 10\n\
    checkpoint_every = 100\nmax_error = 0.01\nstate = [0.4, 0.0, 0.0, 2.0]\n[params]\ne = 0.6\n";

#[test]
fn run_configs_never_panic() {
    fuzz("config", CONFIG, 1, |bytes| {
        let Ok(text) = std::str::from_utf8(bytes) else { return };
        let Ok(config) = RunConfig::parse(text) else { return };
        let params: Vec<(String, f64)> = config.params.iter().map(|(k, v)| (k.clone(), *v)).collect();
        let name = config.problem.as_deref().unwrap_or("kepler");
        let Ok(problem) = catalogue::resolve(name, &params, None, config.state.as_deref()) else { return };
        let _ = RunSpec::resolve(problem.as_ref(), config.h, config.steps, config.t_end, config.every);
    });
}

const BODIES: &str = "mass, x, y, z, vx, vy, vz\n1.0, 0, 0, 0, 0, 0, 0\n1e-3, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0\n\
    2e-3, -1.5, 0.1, 0.0, 0.0, -0.8, 0.05\n";

#[test]
fn nbody_files_never_panic() {
    fuzz("nbody", BODIES, 2, |bytes| {
        let text = String::from_utf8_lossy(bytes);
        if let Ok(bodies) = Bodies::parse(&text, 1.0, "fuzz.csv") {
            let _ = bodies.problem();
        }
    });
}

/// A fresh directory under the system's temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A short checkpointed `geomint run` of Kepler in a fresh temporary directory (removed when the
/// returned guard drops), and the run's directory.
fn checkpointed_run(tag: &str) -> (TempDir, PathBuf) {
    let tmp = TempDir(std::env::temp_dir().join(format!("geomint-fuzz-{tag}-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&tmp.0);
    let run = tmp.0.join("run");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_geomint"))
        .args(["run", "kepler", "--steps", "60", "--every", "7", "--checkpoint-every", "20", "--quiet", "--out"])
        .arg(&run)
        .output()
        .expect("run geomint");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (tmp, run)
}

#[test]
fn damaged_checkpoints_never_panic() {
    let (_tmp, run) = checkpointed_run("checkpoint");
    let json = std::fs::read_to_string(run.join("checkpoint.json")).expect("checkpoint.json");
    let stop = AtomicBool::new(false);
    // fewer cases: each opens a directory and may replay a run
    let n = (cases() / 10).max(50);
    let mut rng = Rng(0xC0FF_EE00_D15E_A5E5);
    for case in 0..n {
        let damaged = mutate(json.as_bytes(), &mut rng);
        std::fs::write(run.join("checkpoint.json"), &damaged).expect("write the damaged checkpoint");
        let opened = catch_unwind(AssertUnwindSafe(|| Session::open(&run, &stop, &mut |_| {}).map(|_| ())));
        assert!(opened.is_ok(), "checkpoint case {case} panicked on {:?}", String::from_utf8_lossy(&damaged));
    }
}

const SYSTEM: &str = "name = \"Hénon–Heiles\"\nq = [\"x\", \"y\"]\np = [\"px\", \"py\"]\n\
    T = \"0.5*(px^2 + py^2)\"\nV = \"0.5*(x^2 + y^2) + lambda*(x^2*y - y^3/3)\"\n\
    q0 = [0.1, -0.2]\np0 = [0.3, 0.1]\nh = 0.05\nt_end = 200.0\n[invariants]\nr2 = \"x^2 + y^2\"\n\
    [params]\nlambda = 1.0\n";

#[test]
fn system_files_never_panic() {
    fuzz("system", SYSTEM, 3, |bytes| {
        let Ok(text) = std::str::from_utf8(bytes) else { return };
        let Ok(spec) = SystemSpec::from_toml(text, "fuzz.toml") else { return };
        let Ok(problem) = spec.problem(&[], "fuzz.toml") else { return };
        // a parsed system runs (or refuses) a few steps of an explicit and an implicit method
        for method in ["stormer-verlet", "gauss2"] {
            if let Ok(spec) = RunSpec::new(0.01, Some(3), None, 1) {
                let _ = geomint::workbench::experiment::run(problem.as_ref(), method, spec, &mut |_| {});
            }
        }
    });
}

/// A Lagrangian system file (`L`, `v`, `v0`): the shipped Kepler problem in that form. The
/// mutations reach the Legendre map at the start (`p0 = ∂L/∂v`, refused when `∂²L/∂v²` is
/// singular) and the velocity solve of the monitored energy.
#[test]
fn lagrangian_system_files_never_panic() {
    let seed = include_str!("../examples/systems/kepler_lagrangian.toml");
    let valid = SystemSpec::from_toml(seed, "seed").and_then(|s| s.problem(&[], "seed"));
    assert!(valid.is_ok(), "the seed is a valid system: {:?}", valid.err());
    fuzz("lagrangian system", seed, 11, |bytes| {
        let Ok(text) = std::str::from_utf8(bytes) else { return };
        let Ok(spec) = SystemSpec::from_toml(text, "fuzz.toml") else { return };
        let Ok(problem) = spec.problem(&[], "fuzz.toml") else { return };
        // a parsed system runs (or refuses) a few steps of its first method
        let method = problem.methods()[0];
        if let Ok(spec) = RunSpec::new(0.01, Some(3), None, 1) {
            let _ = geomint::workbench::experiment::run(problem.as_ref(), method, spec, &mut |_| {});
        }
    });
}

/// Rigid bodies from system files (`group = "SO(3)"` or `"SE(3)"`): the shipped heavy top and a
/// buoyant body on SE(3) with a potential in the attitude and the position.
const LIE_SYSTEMS: [&str; 2] = [
    include_str!("../examples/systems/heavy_top.toml"),
    "group = \"SE(3)\"\ninertia = [2.0, 3.0, 4.0, 10.0, 12.0, 14.0]\n\
     V = \"w*(r31*a1 + r32*a2 + r33*a3) + (w - b)*x3\"\nR0_axis_angle = [0.2, -0.1, 0.4]\n\
     x0 = [1.0, -2.0, 0.5]\nPi0 = [3.0, 5.0, -2.0]\nP0 = [5.0, 1.0, -0.5]\nh = 0.05\n\
     [params]\nw = 1.0\nb = 0.8\na1 = 0.1\na2 = 0.0\na3 = 0.2\n",
];

#[test]
fn lie_system_files_never_panic() {
    for (salt, seed) in LIE_SYSTEMS.iter().enumerate() {
        // the seeds themselves are valid bodies (else the mutations would test nothing)
        let valid = LieSystemSpec::from_toml(seed, "seed").and_then(|s| s.problem(&[], "seed"));
        assert!(valid.is_ok(), "seed {salt}: {:?}", valid.err());
        fuzz("lie system", seed, 7 + salt as u64, |bytes| {
            let Ok(text) = std::str::from_utf8(bytes) else { return };
            let Ok(spec) = LieSystemSpec::from_toml(text, "fuzz.toml") else { return };
            let Ok(problem) = spec.problem(&[], "fuzz.toml") else { return };
            // a parsed body runs (or refuses) a few steps of its first (explicit) method
            let method = problem.methods()[0];
            if let Ok(spec) = RunSpec::new(0.01, Some(3), None, 1) {
                let _ = geomint::workbench::experiment::run(problem.as_ref(), method, spec, &mut |_| {});
            }
        });
    }
}

/// Pieces of formulas: names, numbers (hostile ones too), operators, functions, parentheses.
const FORMULA_TOKENS: &[&str] = &[
    "q", "p", "mu", "pi", "x", "1", "0", "2.5", "1e308", "1e-320", "nan", "inf", "-", "+", "*", "/", "^", "**", "(",
    ")", ",", "sqrt(", "log(", "exp(", "atan2(", "pow(", "abs(", "sin(", "acosh(", " ", "..", "e", "1e",
];

#[test]
fn formulas_never_panic() {
    let mut rng = Rng(0x5EED_F0A1_0000_0003);
    let point = [0.7, -1.3];
    let dual = [num_dual::Dual64::new(0.7, 1.0), num_dual::Dual64::new(-1.3, 0.0)];
    for case in 0..cases() {
        let n = 1 + rng.below(24);
        let text: String = (0..n).map(|_| FORMULA_TOKENS[rng.below(FORMULA_TOKENS.len())]).collect();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            if let Ok(f) = Formula::parse(&text, &["q", "p"], &[("mu", 1.0)]) {
                let _ = f.eval(&point);
                let _ = f.eval(&dual);
            }
        }));
        assert!(outcome.is_ok(), "formula case {case} panicked on {text:?}");
    }
    // deep nesting and long sums are refused, not a stack overflow
    for text in ["(".repeat(100_000) + "q" + &")".repeat(100_000), "q+".repeat(50_000) + "q", "-".repeat(100_000) + "q"]
    {
        assert!(Formula::parse(&text, &["q"], &[]).is_err(), "a hostile formula of {} bytes parsed", text.len());
    }
}

#[test]
fn damaged_sample_files_never_panic() {
    let (_tmp, run) = checkpointed_run("samples");
    let samples = std::fs::read(run.join(SAMPLES_FILE)).expect("the sample file");
    let stop = AtomicBool::new(false);
    let n = (cases() / 10).max(50);
    let mut rng = Rng(0x5A3B_1E5F_11E0_0001);
    let (mut must_refuse, mut refused) = (0, 0);
    for case in 0..n {
        // binary damage: a flipped bit or a cut inside the recorded samples (must be refused), or
        // random words appended (ignored: samples past the checkpoint's record are those of an
        // interrupted stretch, which a resume recomputes)
        let mut damaged = samples.clone();
        let kind = rng.below(3);
        match kind {
            0 => {
                let i = rng.below(damaged.len());
                damaged[i] ^= 1 << rng.below(8);
            }
            1 => damaged.truncate(rng.below(damaged.len())),
            _ => damaged.extend((0..8 * (1 + rng.below(20))).map(|_| rng.next() as u8)),
        }
        std::fs::write(run.join(SAMPLES_FILE), &damaged).expect("write the damaged sample file");
        let opened = catch_unwind(AssertUnwindSafe(|| Session::open(&run, &stop, &mut |_| {}).map(|_| ())));
        let Ok(opened) = opened else { panic!("sample file case {case} panicked ({} bytes)", damaged.len()) };
        if kind < 2 {
            must_refuse += 1;
            refused += usize::from(opened.is_err());
        } else {
            assert!(opened.is_ok(), "sample file case {case}: appended words refused: {:?}", opened.err());
        }
    }
    // the sample record (count and hash in checkpoint.json) catches every damage to the samples
    assert_eq!(refused, must_refuse, "{} of {must_refuse} damaged sample files were accepted", must_refuse - refused);
}
