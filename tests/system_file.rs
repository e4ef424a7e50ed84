//! A user's system written as formulas in a TOML file (`geomint run --system FILE.toml`,
//! problem `system`, `geomint::workbench::catalogue::system`): the same motion as the
//! catalogue's model of the same equations (to round-off: the formula and the Rust model differ
//! in their operations' order), every canonical method applies (explicit ones when `H` is
//! declared separable), the user's invariants are monitored, a run resumes bit for bit, and
//! bad files are one error line naming the file, the formula and the column.

use crate::support::TempDir;
use geomint::workbench::catalogue;
use geomint::workbench::experiment::{self, RunSpec};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn geomint(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_geomint")).args(args).arg("--quiet").current_dir(cwd).output().expect("run")
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/systems").join(name)
}

fn run(problem: &dyn geomint::workbench::problem::Problem, method: &str, steps: usize) -> experiment::RunResult {
    let spec = RunSpec::new(problem.defaults().0, Some(steps), None, 10).unwrap();
    experiment::run(problem, method, spec, &mut |_| {}).unwrap_or_else(|e| panic!("{method}: {e}"))
}

/// The Kepler file is the catalogue's `kepler` (e = 0.6, same initial state) written as one
/// formula: the same trajectories to round-off with an implicit and an explicit-capable
/// method, the energy and the angular momentum (the file's invariant) as conserved.
#[test]
fn the_kepler_file_is_the_catalogues_kepler() {
    let file = catalogue::resolve("system", &[], Some(&example("kepler.toml")), None).unwrap();
    let kepler = catalogue::problem("kepler", &[]).unwrap();
    assert_eq!(file.initial_state().unwrap(), kepler.initial_state().unwrap());
    assert_eq!(file.state_labels(), ["x", "y", "px", "py"]);
    let names: Vec<&str> = file.quantities().iter().map(|q| q.name).collect();
    assert_eq!(names, ["energy", "angular_momentum"]);
    for method in ["gauss2", "stormer-verlet", "yoshida6"] {
        let (a, b) = (run(file.as_ref(), method, 500), run(kepler.as_ref(), method, 500));
        let d = a
            .samples
            .iter()
            .zip(&b.samples)
            .flat_map(|(x, y)| x.state.iter().zip(&y.state).map(|(u, v)| (u - v).abs()))
            .fold(0.0, f64::max);
        assert!(d < 1e-10, "{method}: the formula system is {d:e} from the catalogue's");
        assert!(d > 0.0 || method != "gauss2", "{method}: bit-identical is unexpected for a formula");
        assert!(a.max_error(1) < 1e-12, "{method}: angular momentum error {:e}", a.max_error(1));
        assert!((a.max_error(0) - b.max_error(0)).abs() < 1e-9, "{method}: energy errors differ");
    }
    // a general H takes the implicit forms; the parameter is overridable
    let heavier = catalogue::resolve("system", &[("mu".into(), 2.0)], Some(&example("kepler.toml")), None).unwrap();
    let e = run(heavier.as_ref(), "midpoint", 10).samples[0].values[0];
    assert!((e - (0.5 * 4.0 - 2.0 / 0.4)).abs() < 1e-15, "H(q0, p0) with mu = 2: {e}");
}

/// A separable file (`T` and `V`) runs the explicit compositions at their orders: Hénon–Heiles
/// with Störmer–Verlet and Yoshida 6 against a Gauss 3 reference, errors at h and h/2.
#[test]
fn a_separable_file_runs_explicit_methods_at_their_order() {
    let file = catalogue::resolve("system", &[], Some(&example("henon_heiles.toml")), None).unwrap();
    let t = 2.0;
    let at = |method: &str, steps: usize| -> Vec<f64> {
        let spec = RunSpec::new(t / steps as f64, Some(steps), None, steps).unwrap();
        experiment::run(file.as_ref(), method, spec, &mut |_| {}).unwrap().samples.last().unwrap().state.clone()
    };
    let reference = at("gauss3", 400);
    for (method, order) in [("stormer-verlet", 2.0), ("yoshida6", 6.0)] {
        let err = |n| at(method, n).iter().zip(&reference).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        let (e1, e2) = (err(10), err(20));
        let slope = (e1 / e2).log2();
        assert!((slope - order).abs() < 0.3, "{method}: slope {slope} ({e1:e}, {e2:e})");
    }
}

/// The CLI: a run from the file, a resume that equals the uninterrupted run bit for bit, and
/// bad files refused with one line naming the file and what is wrong.
#[test]
fn the_command_line_runs_resumes_and_refuses() {
    let tmp = TempDir::new("cli");
    let kepler = example("kepler.toml").display().to_string();
    let (whole, half) = (tmp.path().join("whole"), tmp.path().join("half"));
    let common = ["--system", kepler.as_str(), "--method", "yoshida6", "--every", "7", "--checkpoint-every", "100"];
    let go = |steps: &str, out: &Path| {
        let out = out.display().to_string();
        geomint(tmp.path(), &[&["run", "--steps", steps][..], &common, &["--out", &out]].concat())
    };
    let ok = |o: &Output| assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    ok(&go("600", &whole));
    ok(&go("300", &half));
    ok(&geomint(tmp.path(), &["resume", &half.display().to_string(), "--steps", "600"]));
    let last =
        |d: &Path| std::fs::read_to_string(d.join("trajectory.csv")).unwrap().lines().last().unwrap().to_string();
    assert_eq!(last(&whole), last(&half));
    let header = std::fs::read_to_string(whole.join("trajectory.csv")).unwrap();
    assert!(header.starts_with("step,t,x,y,px,py"), "{}", header.lines().next().unwrap());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(whole.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["problem"], "system");

    let bad = [
        ("syntax.toml", "q=[\"x\"]\np=[\"p\"]\nH=\"0.5*p^2 + (x\"\nq0=[1.0]\np0=[0.0]\n", "column 13"),
        ("unknown.toml", "q=[\"x\"]\np=[\"p\"]\nH=\"0.5*p^2 + k*x^2\"\nq0=[1.0]\np0=[0.0]\n", "unknown name 'k'"),
        ("mixed.toml", "q=[\"x\"]\np=[\"p\"]\nT=\"0.5*p^2*x\"\nV=\"x^2\"\nq0=[1.0]\np0=[0.0]\n", "momenta only"),
        ("sizes.toml", "q=[\"x\",\"y\"]\np=[\"p\"]\nH=\"p^2\"\nq0=[1.0,0.0]\np0=[0.0]\n", "but p names 1"),
        ("key.toml", "q=[\"x\"]\np=[\"p\"]\nH=\"p^2\"\nq0=[1.0]\np0=[0.0]\nmass=2\n", "unknown field"),
        ("both.toml", "q=[\"x\"]\np=[\"p\"]\nH=\"p^2\"\nV=\"x\"\nq0=[1.0]\np0=[0.0]\n", "either H"),
        ("singular.toml", "q=[\"x\"]\np=[\"p\"]\nH=\"p^2 - 1/x\"\nq0=[0.0]\np0=[0.0]\n", "not finite"),
    ];
    for (name, text, expected) in bad {
        let path = tmp.write(name, text).display().to_string();
        let out = geomint(tmp.path(), &["run", "--system", &path, "--steps", "10", "--out", "never"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{name}: {err}");
        assert!(err.contains(name) && err.contains(expected), "{name}: {err}");
        assert!(!tmp.path().join("never").exists(), "{name}: files written");
    }
    let out = geomint(tmp.path(), &["run", "--system", &kepler, "--param", "nu=1", "--steps", "10", "--out", "never"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("parameters: mu"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
