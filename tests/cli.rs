//! End-to-end tests of the `geomint` binary: every command is run as a child process in a fresh
//! temporary directory (which is also its working directory, so that a file written anywhere but
//! `--out` is caught too), and its exit status, stdout/stderr and files are checked.
//!
//! Every test passes `--quiet` and `--out`; nothing is written in the repository.

use crate::support::TempDir;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

// --- helpers ------------------------------------------------------------------------------------

/// Runs the binary with `args` in the working directory `cwd`.
fn geomint<S: AsRef<std::ffi::OsStr>>(cwd: &Path, args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_geomint")).args(args).current_dir(cwd).output().expect("run geomint")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts exit status 0, with the streams in the message otherwise.
fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        stdout(out),
        stderr(out)
    );
}

/// Asserts a failure with exit `code` and exactly one non-empty stderr line starting with
/// `error:`, and no `wrote` line on stdout; returns the stderr line.
fn assert_error(out: &Output, code: i32, what: &str) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{what}: exit status\nstdout:\n{}\nstderr:\n{err}", stdout(out));
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: stderr must be exactly one line, got {lines:?}");
    assert!(lines[0].starts_with("error:") && lines[0].len() > "error:".len() + 1, "{what}: stderr {lines:?}");
    assert!(!stdout(out).lines().any(|l| l.starts_with("wrote")), "{what}: stdout claims files:\n{}", stdout(out));
    lines[0].to_string()
}

/// Every file and directory below `dir`, relative to it, sorted.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, acc: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            acc.push(p.strip_prefix(root).unwrap_or(&p).display().to_string());
            if p.is_dir() {
                walk(root, &p, acc);
            }
        }
    }
    let mut acc = Vec::new();
    walk(dir, dir, &mut acc);
    acc.sort();
    acc
}

/// The names of the files directly in `dir`.
fn file_names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
}

/// A CSV file: the header and the rows, every row as long as the header.
struct Csv {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Csv {
    fn read(path: &Path) -> Self {
        let text = read(path);
        assert!(text.ends_with('\n'), "{}: no final newline", path.display());
        let mut lines = text.lines();
        let header: Vec<String> =
            lines.next().unwrap_or_else(|| panic!("{}: empty", path.display())).split(',').map(String::from).collect();
        let rows: Vec<Vec<String>> = lines.map(|l| l.split(',').map(String::from).collect()).collect();
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(
                r.len(),
                header.len(),
                "{}: row {} has {} fields, header {}",
                path.display(),
                i + 1,
                r.len(),
                header.len()
            );
        }
        Self { header, rows }
    }
    fn col(&self, name: &str) -> usize {
        self.header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name} in {:?}", self.header))
    }
    /// Column `name` as numbers (every field must parse).
    fn nums(&self, name: &str) -> Vec<f64> {
        let c = self.col(name);
        self.rows.iter().map(|r| num(&r[c])).collect()
    }
    /// Every field of every row as a number.
    fn all_nums(&self) -> Vec<Vec<f64>> {
        self.rows.iter().map(|r| r.iter().map(|v| num(v)).collect()).collect()
    }
}

fn num(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("'{s}' is not a number"))
}

fn f(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("'{key}' is not a number in {v}"))
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_else(|| panic!("'{key}' is not a string in {v}"))
}

/// The quantity called `name` of a `summary.json`.
fn quantity<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["quantities"]
        .as_array()
        .expect("quantities array")
        .iter()
        .find(|q| q["name"] == name)
        .unwrap_or_else(|| panic!("no quantity {name} in {summary}"))
}

fn assert_svg(path: &Path) {
    let text = read(path);
    let start = text.trim_start();
    assert!(start.starts_with("<svg") || start.starts_with("<?xml"), "{}: not an SVG", path.display());
    assert!(text.contains("</svg>"), "{}: unterminated SVG", path.display());
}

/// The catalogue, with the default method of each problem.
const PROBLEMS: &[(&str, &str)] = &[
    ("harmonic-oscillator", "stormer-verlet"),
    ("pendulum", "stormer-verlet"),
    ("kepler", "stormer-verlet"),
    ("henon-heiles", "stormer-verlet"),
    ("outer-solar-system", "stormer-verlet"),
    ("rigid-body", "hp-sv"),
    ("heavy-top", "hp-sv"),
    ("lagrange-top", "hp-sv"),
    ("underwater-vehicle", "hp-sv"),
    ("spherical-pendulum", "rattle"),
    ("plate-ball", "del"),
    ("so3-optimal-control", "del"),
    ("rolling-disk", "dla"),
    ("chaplygin-sleigh", "dla"),
];

/// The problems whose only monitored quantity is the energy.
const ENERGY_ONLY: &[&str] = &["harmonic-oscillator", "pendulum", "henon-heiles"];

// --- list ---------------------------------------------------------------------------------------

#[test]
fn list_names_every_problem_and_method() {
    let tmp = TempDir::new("list");
    let out = geomint(tmp.path(), &["--quiet", "list"]);
    assert_success(&out, "list");
    let text = stdout(&out);
    let words: BTreeSet<&str> = text.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).collect();
    for (p, _) in PROBLEMS {
        assert!(words.contains(p), "list does not name problem {p}:\n{text}");
    }
    for m in ["stormer-verlet", "gauss2", "rk4", "explicit-euler", "hp-sv", "rk4-embedded", "rattle", "del"] {
        assert!(words.contains(m), "list does not name method {m}:\n{text}");
    }
    assert!(text.contains("--param e="), "list does not show kepler's parameter:\n{text}");
    assert!(stderr(&out).is_empty(), "list wrote to stderr: {}", stderr(&out));
    assert!(tree(tmp.path()).is_empty(), "list wrote files: {:?}", tree(tmp.path()));
}

/// The counts the README and docs/workbench.md state are those `geomint list` prints.
#[test]
fn the_docs_count_the_problems_and_methods_list_prints() {
    let tmp = TempDir::new("list-docs");
    let out = geomint(tmp.path(), &["--quiet", "list"]);
    assert_success(&out, "list");
    let text = stdout(&out);
    let (problems, methods) = text.split_once("\nmethods").expect("a methods section");
    // a problem line starts with two spaces and its name; `nbody` and `system` (systems from
    // a file) are counted apart in the docs
    let problem_count = problems
        .lines()
        .filter(|l| {
            l.starts_with("  ")
                && !l.starts_with("   ")
                && !l.trim_start().starts_with("nbody")
                && !l.trim_start().starts_with("system")
        })
        .count();
    let method_count = methods.lines().filter(|l| l.contains("  order ")).count();
    let words = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let workbench = std::fs::read_to_string(root.join("docs/workbench.md")).expect("docs/workbench.md");
    let python = std::fs::read_to_string(root.join("docs/python.md")).expect("docs/python.md");
    let problems_word = words.get(problem_count).expect("a count below twenty-one");
    assert!(readme.contains(&format!("It has {problems_word} problems")), "README: not {problems_word} problems");
    assert!(python.contains(&format!("the {problems_word} problems")), "docs/python.md: not {problems_word} problems");
    assert!(readme.contains(&format!("There are {method_count} methods")), "README: not {method_count} methods");
    assert!(
        workbench.contains(&format!("{method_count} methods, in three families")),
        "docs/workbench.md: not {method_count} methods"
    );
}

/// docs/comparison.md (generated by docs/tools/comparison.py from `geomint list` and one
/// `geomint compare` run) has a row for every method `geomint list` offers on the heavy top, and
/// none for a method it does not: a method added or removed asks for the page to be regenerated.
#[test]
fn the_comparison_page_has_every_heavy_top_method() {
    let tmp = TempDir::new("list-comparison");
    let out = geomint(tmp.path(), &["--quiet", "list"]);
    assert_success(&out, "list");
    let text = stdout(&out);
    let mut lines = text.lines().skip_while(|l| !l.starts_with("  heavy-top "));
    lines.next().expect("a heavy-top line");
    let methods: BTreeSet<String> = lines
        .find_map(|l| l.trim().strip_prefix("methods:").map(str::to_string))
        .expect("the heavy top's methods")
        .split(',')
        .map(|m| m.trim().split(" (").next().unwrap_or_default().to_string())
        .collect();
    assert!(methods.len() > 20 && methods.contains("hp-sv"), "{methods:?}");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/comparison.md")).expect("docs/comparison.md");
    let rows: BTreeSet<String> = page
        .lines()
        .filter_map(|l| l.strip_prefix("| `").and_then(|r| r.split_once('`')).map(|(m, _)| m.to_string()))
        .collect();
    assert_eq!(rows, methods, "docs/comparison.md is stale: run python3 docs/tools/comparison.py");
}

// --- showcase -----------------------------------------------------------------------------------

#[test]
fn showcase_casimir_round_off_versus_drift() {
    let tmp = TempDir::new("showcase");
    let dir = tmp.join("show");
    let out = geomint(tmp.path(), &["--quiet", "--out", &tmp.arg("show")]);
    assert_success(&out, "showcase");
    assert!(stdout(&out).lines().any(|l| l.starts_with("wrote")), "no 'wrote' line:\n{}", stdout(&out));
    // the header (title, the body's data, the step) is printed once
    let text = stdout(&out);
    for needle in ["geomint showcase", "free rigid body on SO(3)", "20000 steps"] {
        assert_eq!(text.matches(needle).count(), 1, "'{needle}' is not printed exactly once:\n{text}");
    }
    // nothing outside --out
    assert_eq!(file_names(tmp.path()), BTreeSet::from(["show".to_string()]));
    let expected: BTreeSet<String> = [
        "report.md",
        "showcase.svg",
        "hp-sv-diagnostics.csv",
        "hp-sv-summary.json",
        "rk2-embedded-diagnostics.csv",
        "rk2-embedded-summary.json",
        "rk4-embedded-diagnostics.csv",
        "rk4-embedded-summary.json",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(file_names(&dir), expected);
    assert_svg(&dir.join("showcase.svg"));

    let sp = read_json(&dir.join("hp-sv-summary.json"));
    assert_eq!(s(&sp, "problem"), "rigid-body");
    assert_eq!(s(&sp, "method"), "hp-sv");
    let c = quantity(&sp, "casimir");
    assert_eq!(s(c, "kind"), "casimir");
    assert!(f(c, "max_error") < 1e-12, "hp-sv casimir error {}", f(c, "max_error"));

    for rk in ["rk2-embedded", "rk4-embedded"] {
        let summary = read_json(&dir.join(format!("{rk}-summary.json")));
        assert_eq!(s(&summary, "method"), rk);
        let e = f(quantity(&summary, "casimir"), "max_error");
        assert!(e > 1e-8, "{rk}: casimir error {e} is not a drift");
        let csv = Csv::read(&dir.join(format!("{rk}-diagnostics.csv")));
        assert_eq!(&csv.header[..2], ["step", "t"]);
        let err = csv.nums("err_casimir");
        let n = err.len();
        assert!(n >= 8, "{rk}: {n} samples");
        let first = err[1..n / 4].iter().copied().fold(0.0, f64::max);
        let last = err[3 * n / 4..].iter().copied().fold(0.0, f64::max);
        assert!(last > first, "{rk}: casimir error does not drift (first quarter {first:e}, last {last:e})");
        let reported = err.iter().copied().fold(0.0, f64::max);
        assert!((reported - e).abs() <= 1e-12 * e.max(1.0), "{rk}: CSV max {reported:e} vs summary {e:e}");
    }
    let sp_csv = Csv::read(&dir.join("hp-sv-diagnostics.csv"));
    assert!(sp_csv.nums("err_casimir").iter().all(|e| *e < 1e-12));

    let report = read(&dir.join("report.md"));
    for needle in ["round-off", "drifts", "hp-sv", "rk2-embedded", "rk4-embedded", "casimir"] {
        assert!(report.contains(needle), "report.md does not mention '{needle}':\n{report}");
    }
}

// --- run ----------------------------------------------------------------------------------------

/// Checks the files of `geomint run ... --steps STEPS --every EVERY` in `dir`; returns the summary.
fn check_run_outputs(dir: &Path, problem: &str, method: &str, steps: usize, every: usize) -> Value {
    let names = file_names(dir);
    let expected: BTreeSet<String> = [
        "trajectory.csv",
        "diagnostics.csv",
        "summary.json",
        "diagnostics.svg",
        "trajectory.svg",
        "config.toml",
        "checkpoint.json",
        "checkpoint-samples.bin",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(names, expected, "{problem}: files");

    let summary = read_json(&dir.join("summary.json"));
    assert_eq!(s(&summary, "problem"), problem);
    assert_eq!(s(&summary, "method"), method);
    let h = f(&summary, "h");
    assert!(h > 0.0);
    assert_eq!(summary["steps"].as_u64(), Some(steps as u64), "{problem}: steps");
    assert_eq!(summary["every"].as_u64(), Some(every as u64), "{problem}: every");
    assert!((f(&summary, "t_end") - steps as f64 * h).abs() < 1e-9 * steps as f64 * h, "{problem}: t_end");
    let quantities = summary["quantities"].as_array().expect("quantities");
    assert!(!quantities.is_empty(), "{problem}: no quantities");

    // the sampled steps: 0, every, 2 every, ..., and always the last step
    let mut expected_steps: Vec<f64> = (0..=steps).step_by(every).map(|k| k as f64).collect();
    if !steps.is_multiple_of(every) {
        expected_steps.push(steps as f64);
    }
    assert_eq!(summary["samples"].as_u64(), Some(expected_steps.len() as u64), "{problem}: samples");

    for file in ["trajectory.csv", "diagnostics.csv"] {
        let csv = Csv::read(&dir.join(file));
        assert_eq!(&csv.header[..2], ["step", "t"], "{problem}/{file}: header {:?}", csv.header);
        assert!(csv.header.len() > 2, "{problem}/{file}: no data columns");
        let rows = csv.all_nums();
        assert!(rows.iter().flatten().all(|v| v.is_finite()), "{problem}/{file}: non-finite value");
        let step = csv.nums("step");
        assert_eq!(step, expected_steps, "{problem}/{file}: step column");
        assert!(step.windows(2).all(|w| w[0] < w[1]));
        for (k, t) in step.iter().zip(csv.nums("t")) {
            assert!((t - k * h).abs() <= 1e-9 * (1.0 + k * h), "{problem}/{file}: t = {t} at step {k}");
        }
    }

    // diagnostics columns: the components of each quantity, its err_ column, err_solution
    let diag = Csv::read(&dir.join("diagnostics.csv"));
    let mut columns = vec!["step".to_string(), "t".to_string()];
    for q in quantities {
        let dim = q["initial"].as_array().expect("initial").len();
        assert!(dim >= 1);
        let name = s(q, "name");
        if dim == 1 {
            columns.push(name.to_string());
        } else {
            columns.extend((1..=dim).map(|i| format!("{name}_{i}")));
        }
    }
    columns.extend(quantities.iter().map(|q| format!("err_{}", s(q, "name"))));
    let exact = !summary["max_solution_error"].is_null();
    if exact {
        columns.push("err_solution".into());
    }
    assert_eq!(diag.header, columns, "{problem}: diagnostics columns");
    for q in quantities {
        let name = s(q, "name");
        let err = diag.nums(&format!("err_{name}"));
        let max = err.iter().copied().fold(0.0, f64::max);
        assert!((max - f(q, "max_error")).abs() <= 1e-12 * max.max(1e-300), "{problem}: max_error of {name}");
        // (serde_json's default float parser may be one ulp off: compare to a few ulps)
        let last = *err.last().expect("samples");
        assert!((last - f(q, "final_error")).abs() <= 1e-15 * last.abs(), "{problem}: final_error of {name}");
        assert!(["energy", "momentum", "casimir", "constraint"].contains(&s(q, "kind")), "{problem}: kind of {name}");
    }

    assert_svg(&dir.join("diagnostics.svg"));
    let config = read(&dir.join("config.toml"));
    assert!(config.contains(&format!("problem = \"{problem}\"")), "{problem}: config.toml\n{config}");
    assert!(config.contains(&format!("method = \"{method}\"")), "{problem}: config.toml\n{config}");
    assert!(config.contains(&format!("steps = {steps}")), "{problem}: config.toml\n{config}");
    summary
}

#[test]
fn run_every_problem_with_its_default_method() {
    let tmp = TempDir::new("run-all");
    let (steps, every) = (200, 7);
    for (problem, method) in PROBLEMS {
        let dir = tmp.join(problem);
        let out = geomint(
            tmp.path(),
            &[
                "run",
                problem,
                "--steps",
                &steps.to_string(),
                "--every",
                &every.to_string(),
                "--quiet",
                "--out",
                &tmp.arg(problem),
            ],
        );
        assert_success(&out, problem);
        assert!(stdout(&out).lines().any(|l| l.starts_with("wrote")), "{problem}: no 'wrote' line");
        let summary = check_run_outputs(&dir, problem, method, steps, every);

        assert_ne!(summary["method_structure"], "none", "{problem}: default method {method} preserves nothing");
        let preserved: Vec<(String, f64)> = summary["quantities"]
            .as_array()
            .expect("quantities")
            .iter()
            .filter(|q| ["momentum", "casimir", "constraint"].contains(&s(q, "kind")))
            .map(|q| (s(q, "name").to_string(), f(q, "max_error")))
            .collect();
        if ENERGY_ONLY.contains(problem) {
            assert!(preserved.is_empty(), "{problem}: expected energy only, got {preserved:?}");
        } else {
            assert!(!preserved.is_empty(), "{problem}: no momentum, casimir or constraint monitored");
            assert!(
                preserved.iter().any(|(_, e)| *e < 1e-10),
                "{problem} with {method}: no invariant conserved to 1e-10: {preserved:?}"
            );
        }
    }
    // nothing outside the --out directories
    let top: BTreeSet<String> = PROBLEMS.iter().map(|(p, _)| p.to_string()).collect();
    assert_eq!(file_names(tmp.path()), top);
    assert!(!tree(tmp.path()).iter().any(|p| p.ends_with(".partial")));
}

#[test]
fn run_kepler_symplectic_versus_explicit_euler() {
    let tmp = TempDir::new("kepler");
    let base = ["run", "kepler", "--h", "0.01", "--steps", "1000", "--param", "e=0.9", "--quiet", "--method"];
    let sv_dir = tmp.arg("sv");
    let sv = [&base[..], &["stormer-verlet", "--out", &sv_dir]].concat();
    let out = geomint(tmp.path(), &sv);
    assert_success(&out, "kepler stormer-verlet");
    let summary = check_run_outputs(&tmp.join("sv"), "kepler", "stormer-verlet", 1000, 1);
    let diag = Csv::read(&tmp.join("sv/diagnostics.csv"));
    let sol = diag.nums("err_solution");
    assert!(sol[0] < 1e-12, "the solution error starts at {}", sol[0]);
    assert!(sol.iter().all(|e| e.is_finite()));
    assert!(f(&summary, "max_solution_error") > 0.0);
    assert!(f(quantity(&summary, "angular_momentum"), "max_error") < 1e-12);
    assert_eq!(s(quantity(&summary, "angular_momentum"), "kind"), "momentum");
    assert!(read(&tmp.join("sv/config.toml")).contains("e = 0.9"), "the parameter is not in config.toml");

    let ee_dir = tmp.arg("ee");
    let ee = [&base[..], &["explicit-euler", "--out", &ee_dir]].concat();
    let out = geomint(tmp.path(), &ee);
    // explicit Euler loses the orbit (an energy error of 5): the run diverged, exit status 3,
    // with every output written
    assert_eq!(out.status.code(), Some(3), "kepler explicit-euler\nstderr:\n{}", stderr(&out));
    let last = stderr(&out).lines().last().unwrap_or_default().to_string();
    assert!(last.starts_with("error: the run diverged: energy error 5."), "{last}");
    assert!(!last.contains("angular_momentum"), "{last}");
    let euler = check_run_outputs(&tmp.join("ee"), "kepler", "explicit-euler", 1000, 1);
    assert_eq!(euler["method_structure"], "none");
    let energy = f(quantity(&euler, "energy"), "max_error");
    assert!(energy > 1e-3, "explicit Euler energy error {energy}");
    assert!(energy > f(quantity(&summary, "energy"), "max_error"), "explicit Euler beats Störmer–Verlet on energy");
    assert!(f(quantity(&euler, "angular_momentum"), "max_error") > 1e-6);
    // the eccentricity changes the orbit
    let e6 =
        geomint(tmp.path(), &["run", "kepler", "--h", "0.01", "--steps", "1000", "--quiet", "--out", &tmp.arg("e6")]);
    assert_success(&e6, "kepler e = 0.6");
    assert_ne!(read(&tmp.join("e6/trajectory.csv")), read(&tmp.join("sv/trajectory.csv")));
}

// --- config -------------------------------------------------------------------------------------

#[test]
fn config_round_trip_and_rejection() {
    let tmp = TempDir::new("config");
    let args = [
        "run", "kepler", "--method", "gauss2", "--h", "0.02", "--steps", "300", "--every", "3", "--param", "e=0.7",
        "--quiet", "--out",
    ];
    let out = geomint(tmp.path(), &[&args[..], &[&tmp.arg("one")]].concat());
    assert_success(&out, "first run");
    check_run_outputs(&tmp.join("one"), "kepler", "gauss2", 300, 3);

    let config = tmp.arg("one/config.toml");
    let out = geomint(tmp.path(), &["run", "--config", &config, "--quiet", "--out", &tmp.arg("two")]);
    assert_success(&out, "run from config.toml");
    check_run_outputs(&tmp.join("two"), "kepler", "gauss2", 300, 3);
    for file in ["trajectory.csv", "diagnostics.csv"] {
        let (a, b) =
            (std::fs::read(tmp.join("one").join(file)).unwrap(), std::fs::read(tmp.join("two").join(file)).unwrap());
        assert!(a == b, "{file} differs between the run and its replay");
    }
    // the replay's config differs only in `out`
    let strip = |t: String| t.lines().filter(|l| !l.starts_with("out =")).map(String::from).collect::<Vec<_>>();
    assert_eq!(strip(read(&tmp.join("one/config.toml"))), strip(read(&tmp.join("two/config.toml"))));

    // the command line overrides the file
    let out =
        geomint(tmp.path(), &["run", "--config", &config, "--steps", "30", "--quiet", "--out", &tmp.arg("three")]);
    assert_success(&out, "config with --steps");
    check_run_outputs(&tmp.join("three"), "kepler", "gauss2", 30, 3);
    let short = Csv::read(&tmp.join("three/trajectory.csv"));
    let long = Csv::read(&tmp.join("one/trajectory.csv"));
    assert_eq!(short.rows[..], long.rows[..short.rows.len()], "a shorter replay is a prefix of the run");

    // invalid files: one-line input errors, nothing written
    let cases = [
        ("unknown-key.toml", "problem = \"kepler\"\nsteps = 10\nstepz = 3\n", "stepz"),
        ("string-h.toml", "problem = \"kepler\"\nsteps = 10\nh = \"big\"\n", "big"),
        ("bad-toml.toml", "problem = kepler\n", "config"),
        ("bad-param.toml", "problem = \"kepler\"\nsteps = 10\n[params]\nfoo = 1.0\n", "foo"),
    ];
    for (name, text, needle) in cases {
        std::fs::write(tmp.join(name), text).unwrap();
        let out = geomint(tmp.path(), &["run", "--config", &tmp.arg(name), "--quiet", "--out", &tmp.arg("bad")]);
        let line = assert_error(&out, 2, name);
        assert!(line.contains(needle), "{name}: '{line}' does not mention '{needle}'");
        assert!(!tmp.join("bad").exists(), "{name}: the output directory was created");
    }
    assert!(!tmp.join("runs").exists());
}

// --- convergence and compare --------------------------------------------------------------------

/// Runs `convergence` and returns the rows `(h, steps, error, slope)` of convergence.csv.
fn convergence(tmp: &TempDir, problem: &str, method: &str, levels: usize) -> Vec<(f64, usize, f64, Option<f64>)> {
    let name = format!("{problem}-{method}");
    let out = geomint(
        tmp.path(),
        &[
            "convergence",
            problem,
            "--method",
            method,
            "--levels",
            &levels.to_string(),
            "--quiet",
            "--out",
            &tmp.arg(&name),
        ],
    );
    assert_success(&out, &name);
    let dir = tmp.join(&name);
    let expected: BTreeSet<String> = ["config.toml", "convergence.csv", "convergence.json", "convergence.svg"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(file_names(&dir), expected, "{name}: files");
    assert_svg(&dir.join("convergence.svg"));
    let json = read_json(&dir.join("convergence.json"));
    assert_eq!(s(&json, "problem"), problem);
    assert_eq!(s(&json, "method"), method);

    let csv = Csv::read(&dir.join("convergence.csv"));
    assert_eq!(csv.header, ["h", "steps", "error", "slope"]);
    assert_eq!(csv.rows.len(), levels, "{name}: rows");
    let rows: Vec<_> = csv
        .rows
        .iter()
        .map(|r| {
            let steps = r[1].parse::<usize>().unwrap_or_else(|_| panic!("steps '{}'", r[1]));
            (num(&r[0]), steps, num(&r[2]), if r[3].is_empty() { None } else { Some(num(&r[3])) })
        })
        .collect();
    assert!(rows[0].3.is_none(), "{name}: the first row has a slope");
    for w in rows.windows(2) {
        let ((h0, n0, e0, _), (h1, n1, e1, slope)) = (w[0], w[1]);
        assert_eq!(n1, 2 * n0, "{name}: steps do not double");
        assert!((h0 / h1 - 2.0).abs() < 1e-12, "{name}: h does not halve");
        assert!(e1 < e0 && e1 > 0.0, "{name}: error does not decrease ({e0:e} -> {e1:e})");
        let slope = slope.unwrap_or_else(|| panic!("{name}: missing slope"));
        let fitted = (e0 / e1).ln() / (h0 / h1).ln();
        assert!((slope - fitted).abs() < 1e-6, "{name}: slope {slope} vs {fitted}");
    }
    rows
}

#[test]
fn convergence_measures_the_order() {
    let tmp = TempDir::new("convergence");
    for (problem, method, levels, order, tol) in [
        ("kepler", "gauss2", 4, 4.0, 0.3),
        ("rigid-body", "hp-sv", 3, 2.0, 0.2),
        ("spherical-pendulum", "rattle", 3, 2.0, 0.2),
        ("rolling-disk", "dla", 3, 2.0, 0.2),
        // a first-order θ-map lift of G, and its composition with its adjoint: order 2; on the
        // rigid body (H independent of g) the θ-lifts are order 2 themselves
        ("heavy-top", "lift-theta0-cayley", 3, 1.0, 0.2),
        ("heavy-top", "lift-adjoint-pair-cayley", 3, 2.0, 0.2),
        ("rigid-body", "lift-theta1-cayley", 3, 2.0, 0.2),
        ("heavy-top", "lift-adjoint-pair-exp", 3, 2.0, 0.2),
        // the Lagrangian route on a g-dependent Lagrangian, and the Lie–Poisson reduction with
        // its reconstruction on SE(3)
        ("heavy-top", "lagrangian-midpoint-cayley", 3, 2.0, 0.2),
        ("underwater-vehicle", "lie-poisson-midpoint-exp", 3, 2.0, 0.2),
        // the fixed-step flow on the time groupoid, against the exact Kepler orbit
        ("kepler-time", "time-midpoint", 3, 2.0, 0.2),
        // Crouch–Grossman and commutator-free methods of the group ODE on SO(3) × R³
        ("heavy-top", "cf4", 3, 4.0, 0.3),
        ("rigid-body", "cg4a", 3, 4.0, 0.3),
        // an energy-preserving discrete gradient
        ("kepler", "gonzalez", 3, 2.0, 0.2),
        // Bobenko–Suris's discrete Lagrange top (the paper's map conjugated by half a kick)
        ("lagrange-top", "bobenko-suris", 3, 2.0, 0.2),
    ] {
        let rows = convergence(&tmp, problem, method, levels);
        let slope = rows.last().and_then(|r| r.3).expect("last slope");
        assert!((slope - order).abs() < tol, "{problem} / {method}: measured order {slope}, expected {order}");
    }
    assert!(!tmp.join("runs").exists());
}

#[test]
fn compare_work_precision() {
    let tmp = TempDir::new("compare");
    let out = geomint(
        tmp.path(),
        &["compare", "kepler", "--methods", "stormer-verlet,rk4", "--levels", "3", "--quiet", "--out", &tmp.arg("cmp")],
    );
    assert_success(&out, "compare");
    let dir = tmp.join("cmp");
    let expected: BTreeSet<String> =
        ["compare.csv", "compare.json", "compare.svg", "config.toml"].into_iter().map(String::from).collect();
    assert_eq!(file_names(&dir), expected);
    // config.toml holds the command that repeats the sweep: the same errors, bit for bit
    let config = read(&dir.join("config.toml"));
    let command = config.lines().find_map(|l| l.strip_prefix("command = \"")).expect("command").trim_end_matches('"');
    let argv: Vec<&str> = command.split_whitespace().skip(1).collect();
    let again = geomint(tmp.path(), &[&argv[..], &["--quiet", "--out", &tmp.arg("again")]].concat());
    assert_success(&again, "the recorded command");
    let errors = |d: &Path| -> Vec<Vec<String>> {
        Csv::read(&d.join("compare.csv")).rows.iter().map(|r| [&r[..3], &r[4..6]].concat()).collect()
    };
    assert_eq!(errors(&dir), errors(&tmp.join("again")));
    assert_svg(&dir.join("compare.svg"));
    let json = read_json(&dir.join("compare.json"));
    assert_eq!(json["curves"].as_array().map(Vec::len), Some(2));

    let csv = Csv::read(&dir.join("compare.csv"));
    assert_eq!(
        csv.header,
        ["method", "h", "steps", "seconds", "solution_error", "energy_error", "seconds_spread", "runs"]
    );
    assert_eq!(csv.rows.len(), 6);
    let methods: BTreeSet<&str> = csv.rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(methods, BTreeSet::from(["stormer-verlet", "rk4"]));
    let mut final_errors = Vec::new();
    for m in ["stormer-verlet", "rk4"] {
        let rows: Vec<Vec<f64>> =
            csv.rows.iter().filter(|r| r[0] == m).map(|r| r[1..].iter().map(|v| num(v)).collect()).collect();
        assert_eq!(rows.len(), 3, "{m}: rows");
        for r in &rows {
            assert!(r[2] > 0.0, "{m}: seconds {}", r[2]);
            assert!(r[3] > 0.0 && r[3].is_finite() && r[4].is_finite(), "{m}: errors {r:?}");
            // a run of microseconds is repeated within each timing until the timing lasts about
            // MIN_TIMING_SECONDS (20 ms; the later runs of a timing are warmer than the first)
            assert!(r[5].is_finite() && r[5] >= 0.0, "{m}: spread {}", r[5]);
            assert!(r[6] >= 1.0 && r[6] * r[2] >= 0.005, "{m}: {} runs of {} s", r[6], r[2]);
        }
        assert!(rows[0][6] > 1.0, "{m}: the shortest run is timed once: {rows:?}");
        for w in rows.windows(2) {
            assert!(w[1][0] < w[0][0], "{m}: h does not decrease");
            assert_eq!(w[1][1], 2.0 * w[0][1], "{m}: steps do not double");
            assert!(w[1][3] < w[0][3], "{m}: solution error does not decrease with h: {rows:?}");
        }
        final_errors.push(rows[2][3]);
    }
    // a fourth-order method beats a second-order one at the same step
    assert!(final_errors[1] < final_errors[0], "rk4 {:e} vs stormer-verlet {:e}", final_errors[1], final_errors[0]);
    assert!(!tmp.join("runs").exists());
}

// --- bad input ----------------------------------------------------------------------------------

#[test]
fn bad_input_is_one_error_line_and_no_files() {
    let tmp = TempDir::new("bad-input");
    let steps = ["--steps", "10"];
    // (name, args before --quiet --out DIR, exit code, a text the error line must contain)
    let cases: Vec<(&str, Vec<&str>, i32, &str)> = vec![
        ("unknown-problem", vec!["run", "keppler"], 2, "'kepler'"),
        ("unknown-method", vec!["run", "kepler", "--method", "stormer-verlett"], 2, "'stormer-verlet'"),
        ("lie-method-on-canonical", vec!["run", "kepler", "--method", "hp-sv"], 2, "hp-sv"),
        ("canonical-method-on-lie", vec!["run", "rigid-body", "--method", "stormer-verlet"], 2, "rigid-body"),
        ("h-zero", [&["run", "kepler", "--h", "0"][..], &steps].concat(), 2, "h"),
        ("h-negative", [&["run", "kepler", "--h", "-1"][..], &steps].concat(), 2, "-1"),
        ("h-nan", [&["run", "kepler", "--h", "nan"][..], &steps].concat(), 2, "NaN"),
        ("h-inf", [&["run", "kepler", "--h", "inf"][..], &steps].concat(), 2, "inf"),
        ("h-not-a-number", [&["run", "kepler", "--h", "big"][..], &steps].concat(), 2, "big"),
        ("steps-zero", vec!["run", "kepler", "--steps", "0"], 2, "steps"),
        ("t-end-negative", vec!["run", "kepler", "--t-end", "-1"], 2, "-1"),
        ("steps-and-t-end", vec!["run", "kepler", "--steps", "10", "--t-end", "1"], 2, "--t-end"),
        ("every-zero", [&["run", "kepler", "--every", "0"][..], &steps].concat(), 2, "every"),
        ("eccentricity", [&["run", "kepler", "--param", "e=1.5"][..], &steps].concat(), 2, "1.5"),
        ("unknown-param", [&["run", "kepler", "--param", "ecc=0.5"][..], &steps].concat(), 2, "ecc"),
        ("param-without-value", [&["run", "kepler", "--param", "e"][..], &steps].concat(), 2, "NAME=VALUE"),
        ("param-not-a-number", [&["run", "kepler", "--param", "e=abc"][..], &steps].concat(), 2, "abc"),
        ("param-of-parameterless", [&["run", "pendulum", "--param", "e=0.5"][..], &steps].concat(), 2, "pendulum"),
        ("no-problem", vec!["run"], 2, "no problem"),
        ("missing-config", vec!["run", "--config", "/nonexistent/x.toml"], 2, "/nonexistent/x.toml"),
        ("unknown-subcommand", vec!["frobnicate"], 2, "frobnicate"),
        ("unknown-flag", vec!["run", "kepler", "--frobnicate"], 2, "--frobnicate"),
        ("convergence-levels", vec!["convergence", "kepler", "--method", "gauss2", "--levels", "1"], 2, "levels"),
        ("convergence-unknown-method", vec!["convergence", "kepler", "--method", "gaus2"], 2, "'gauss2'"),
        ("convergence-h-zero", vec!["convergence", "kepler", "--method", "gauss2", "--h", "0"], 2, "h"),
        ("compare-lie-method", vec!["compare", "kepler", "--methods", "stormer-verlet,hp-sv"], 2, "hp-sv"),
        ("compare-unknown-problem", vec!["compare", "keppler", "--methods", "rk4"], 2, "'kepler'"),
        ("param-twice", [&["run", "kepler", "--param", "e=0.5", "--param", "e=0.7"][..], &steps].concat(), 2, "twice"),
        ("compare-method-twice", vec!["compare", "kepler", "--methods", "rk4,stormer-verlet,rk4"], 2, "twice"),
    ];
    for (name, args, code, needle) in cases {
        let case = tmp.join(name);
        std::fs::create_dir_all(&case).unwrap();
        let out_dir = case.join("out").display().to_string();
        let argv = [&args[..], &["--quiet", "--out", &out_dir]].concat();
        let out = geomint(&case, &argv);
        let line = assert_error(&out, code, name);
        assert!(line.contains(needle), "{name}: '{line}' does not mention '{needle}'");
        assert!(stdout(&out).is_empty(), "{name}: stdout is not empty:\n{}", stdout(&out));
        assert!(tree(&case).is_empty(), "{name}: files were written: {:?}", tree(&case));
    }
}

/// A subnormal step runs, prints `h = 1e-320` (not 320 digits) and draws its plots without a
/// panic (the tick generator once overflowed a vector's capacity there).
#[test]
fn subnormal_step_prints_short_numbers_and_plots() {
    let tmp = TempDir::new("subnormal");
    let out_dir = tmp.join("out").display().to_string();
    let out = geomint(tmp.path(), &["run", "kepler", "--h", "1e-320", "--steps", "2", "--quiet", "--out", &out_dir]);
    assert_success(&out, "h = 1e-320");
    let text = stdout(&out);
    assert!(text.contains("h = 1e-320") && text.contains("t = 2e-320"), "{text}");
    assert_svg(&tmp.join("out").join("diagnostics.svg"));
}

#[test]
fn unwritable_output_fails_without_leftovers() {
    let tmp = TempDir::new("unwritable");
    // a directory that cannot be created
    let out = geomint(tmp.path(), &["run", "kepler", "--steps", "10", "--quiet", "--out", "/proc/geomint-test"]);
    let line = assert_error(&out, 1, "/proc");
    assert!(line.contains("/proc/geomint-test"), "{line}");
    assert!(!Path::new("/proc/geomint-test").exists());
    assert!(tree(tmp.path()).is_empty(), "files were written: {:?}", tree(tmp.path()));

    // --out names an existing file: it stays as it was, and nothing is written next to it
    let file = tmp.join("occupied");
    std::fs::write(&file, "keep me\n").unwrap();
    let occupied = tmp.arg("occupied");
    for args in [
        vec!["run", "kepler", "--steps", "10"],
        vec!["convergence", "kepler", "--method", "stormer-verlet", "--levels", "2"],
        vec!["compare", "kepler", "--methods", "rk4", "--levels", "2"],
        vec!["showcase"],
    ] {
        let argv = [&args[..], &["--quiet", "--out", &occupied]].concat();
        let out = geomint(tmp.path(), &argv);
        let line = assert_error(&out, 1, &args.join(" "));
        assert!(line.contains("occupied"), "{line}");
        assert_eq!(read(&file), "keep me\n");
        assert_eq!(tree(tmp.path()), ["occupied"], "{}: leftovers", args.join(" "));
    }
}

// --- known bugs: ignored so the suite stays green; `cargo test --test cli -- --ignored` shows them

/// `OutputSet::commit` renames the files one by one; when a later rename fails, the files renamed
/// before it stay, so a failed run leaves a set of files that looks complete in part.
#[test]
fn failed_commit_leaves_no_final_files() {
    let tmp = TempDir::new("bug-commit");
    std::fs::create_dir_all(tmp.join("out/summary.json")).unwrap();
    let out = geomint(tmp.path(), &["run", "kepler", "--steps", "10", "--quiet", "--force", "--out", &tmp.arg("out")]);
    assert_error(&out, 1, "summary.json: Is a directory");
    assert_eq!(tree(&tmp.join("out")), ["summary.json"]);
}

/// `geomint --out DIR showcase` ignores the top-level `--out` and writes ./geomint-showcase.
#[test]
fn top_level_out_with_showcase_subcommand() {
    let tmp = TempDir::new("bug-out");
    let out = geomint(tmp.path(), &["--quiet", "--out", &tmp.arg("show"), "showcase"]);
    assert_success(&out, "showcase");
    assert_eq!(file_names(tmp.path()), BTreeSet::from(["show".to_string()]));
}

/// A config file with both `steps` and `t_end` is accepted and `t_end` silently dropped, while the
/// command line rejects `--steps` with `--t-end`.
#[test]
fn config_with_steps_and_t_end_is_rejected() {
    let tmp = TempDir::new("bug-both");
    std::fs::write(tmp.join("both.toml"), "problem = \"kepler\"\nsteps = 10\nt_end = 5.0\n").unwrap();
    let out = geomint(tmp.path(), &["run", "--config", &tmp.arg("both.toml"), "--quiet", "--out", &tmp.arg("out")]);
    assert_error(&out, 2, "steps and t_end");
}

/// `--h 1e-300 --t-end 1` asks for ~1e300 steps (saturated to usize::MAX) and runs forever instead
/// of being rejected.
#[test]
fn absurd_step_count_is_rejected() {
    let tmp = TempDir::new("bug-steps");
    let mut child = Command::new(env!("CARGO_BIN_EXE_geomint"))
        .args(["run", "kepler", "--h", "1e-300", "--t-end", "1", "--quiet", "--out", &tmp.arg("out")])
        .current_dir(tmp.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn geomint");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(status.and_then(|s| s.code()), Some(2), "the run was not rejected within 10 s");
}

// --- orders, output directories, solution errors ------------------------------------------------

/// The order of `del` on the plate-ball is reported alike by `list` (the problem's methods and
/// the registry), by `convergence` (nominal) and by `run` (stdout and summary.json), and it is
/// the order `convergence` measures; on the optimal control `del` keeps the registry's order.
#[test]
fn the_order_of_del_on_the_plate_ball_is_reported_alike_and_measured() {
    let tmp = TempDir::new("del-order");
    let list = stdout(&geomint(tmp.path(), &["--quiet", "list"]));
    let line_after = |marker: &str| {
        let i = list.lines().position(|l| l.trim_start().starts_with(marker)).expect(marker);
        list.lines().nth(i + 1).expect("the methods line").to_string()
    };
    let number_after = |text: &str, key: &str| -> u32 {
        let rest = &text[text.find(key).unwrap_or_else(|| panic!("no '{key}' in '{text}'")) + key.len()..];
        rest.trim_start().split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
    };
    let plate = line_after("plate-ball ");
    let listed = number_after(&plate, "del (order");
    let registry = list.lines().find(|l| l.trim_start().starts_with("del ")).expect("the registry row of del");
    assert_eq!(number_after(registry, "("), listed, "registry row: {registry}");
    assert!(registry.contains(&format!("({listed} on plate-ball)")), "{registry}");
    let registry_order = number_after(registry, "order");
    assert_ne!(registry_order, listed, "the plate-ball's order is the registry's: nothing to report");
    assert!(!line_after("so3-optimal-control ").contains("here"), "the optimal control lowers del's order");

    let out = geomint(
        tmp.path(),
        &["convergence", "plate-ball", "-m", "del", "--levels", "4", "--quiet", "--out", &tmp.arg("conv")],
    );
    assert_success(&out, "convergence");
    let text = stdout(&out);
    assert_eq!(number_after(&text, "(nominal"), listed, "{text}");
    let measured: f64 = text[text.find("measured order").expect("measured order") + 14..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((measured - f64::from(listed)).abs() < 0.1, "measured {measured}, reported {listed}");

    let out = geomint(tmp.path(), &["run", "plate-ball", "--steps", "20", "--quiet", "--out", &tmp.arg("run")]);
    assert_success(&out, "run");
    assert!(stdout(&out).contains(&format!("with del (order {listed},")), "{}", stdout(&out));
    assert_eq!(read_json(&tmp.join("run/summary.json"))["method_order"], listed);
    let out = geomint(tmp.path(), &["run", "so3-optimal-control", "--steps", "20", "--quiet", "--out", &tmp.arg("oc")]);
    assert_success(&out, "run");
    assert_eq!(read_json(&tmp.join("oc/summary.json"))["method_order"], registry_order);
}

/// A relative `out` in a config file is relative to the file's directory, not to the working
/// directory; the `config.toml` a run writes has `out = "."` and so names its own directory.
#[test]
fn config_out_is_relative_to_the_config_file() {
    let tmp = TempDir::new("config-out");
    std::fs::create_dir_all(tmp.join("experiments")).unwrap();
    std::fs::write(
        tmp.join("experiments/k.toml"),
        "problem = \"kepler\"\nsteps = 50\nevery = 5\nout = \"results/k\"\n",
    )
    .unwrap();
    let out = geomint(tmp.path(), &["run", "--config", "experiments/k.toml", "--quiet"]);
    assert_success(&out, "run --config");
    assert!(tmp.join("experiments/results/k/trajectory.csv").exists(), "{:?}", tree(tmp.path()));
    assert!(!tmp.join("results").exists(), "out was taken relative to the working directory");
    let saved = read(&tmp.join("experiments/results/k/config.toml"));
    assert!(saved.lines().any(|l| l == "out = \".\""), "{saved}");
    // replayed from another working directory, the saved config names its own directory
    std::fs::create_dir_all(tmp.join("elsewhere")).unwrap();
    let before = read(&tmp.join("experiments/results/k/trajectory.csv"));
    let out = geomint(
        &tmp.join("elsewhere"),
        &["run", "--config", "../experiments/results/k/config.toml", "--force", "--quiet"],
    );
    assert_success(&out, "replay of the saved config");
    assert_eq!(read(&tmp.join("experiments/results/k/trajectory.csv")), before);
    assert_eq!(tree(&tmp.join("elsewhere")), Vec::<String>::new(), "the replay wrote into the working directory");
    // the command line's --out stays relative to the working directory
    let out = geomint(tmp.path(), &["run", "--config", "experiments/k.toml", "--out", "cli-out", "--quiet"]);
    assert_success(&out, "--out over the file's out");
    assert!(tmp.join("cli-out/trajectory.csv").exists());
}

/// `run` into a directory that is not empty is refused with one error line (exit 2) and changes
/// nothing — with `--out`, with a config's `out`, and with the default — unless `--force`,
/// which replaces the run; an existing empty directory is used as it is.
#[test]
fn run_refuses_a_non_empty_directory_unless_forced() {
    let tmp = TempDir::new("force");
    let dir = tmp.arg("k");
    assert_success(&geomint(tmp.path(), &["run", "kepler", "--steps", "40", "--quiet", "--out", &dir]), "first run");
    let snapshot = |d: &Path| -> Vec<(String, Vec<u8>)> {
        tree(d).into_iter().map(|f| (f.clone(), std::fs::read(d.join(&f)).unwrap_or_default())).collect()
    };
    let before = snapshot(&tmp.join("k"));
    let config = tmp.arg("k/config.toml");
    for (what, args) in [
        ("--out", vec!["run", "kepler", "--steps", "60", "--quiet", "--out", &dir]),
        ("--config", vec!["run", "--config", &config, "--quiet"]),
        ("--config --steps", vec!["run", "--config", &config, "--steps", "60", "--quiet"]),
    ] {
        let out = geomint(tmp.path(), &args);
        let line = assert_error(&out, 2, what);
        assert!(line.contains("not empty") && line.contains("--force") && line.contains(&dir), "{what}: {line}");
        assert!(snapshot(&tmp.join("k")) == before, "{what}: the directory changed");
    }
    // the default directory runs/PROBLEM-METHOD is refused alike
    assert_success(&geomint(tmp.path(), &["run", "pendulum", "--steps", "10", "--quiet"]), "default out");
    let line = assert_error(&geomint(tmp.path(), &["run", "pendulum", "--steps", "10", "--quiet"]), 2, "default");
    assert!(line.contains("runs/pendulum-stormer-verlet"), "{line}");
    // --force replaces the run; an empty directory needs no --force
    let out = geomint(tmp.path(), &["run", "--config", &config, "--steps", "60", "--force", "--quiet"]);
    assert_success(&out, "--force");
    assert_eq!(read_json(&tmp.join("k/summary.json"))["steps"], 60);
    std::fs::create_dir_all(tmp.join("empty")).unwrap();
    let out = geomint(tmp.path(), &["run", "kepler", "--steps", "10", "--quiet", "--out", &tmp.arg("empty")]);
    assert_success(&out, "an empty directory");
}

/// The solution row of `run`: against the exact solution, the largest and the final error; for a
/// problem without one, "n/a" saying how to ask for a reference (it costs more than the run),
/// and with `--reference` the error at the final time against the computed reference, named, and
/// equal to the error `convergence` measures against the same reference; where that reference
/// would cost too much, an explicit "n/a" with the reason, and null in summary.json.
#[test]
fn run_reports_the_solution_error_against_exact_or_reference() {
    let tmp = TempDir::new("solution");
    let solution_row = |text: &str| -> Vec<String> {
        let line = text.lines().find(|l| l.trim_start().starts_with("solution ")).expect("a solution row");
        line.split_whitespace().map(String::from).collect()
    };
    let out = geomint(tmp.path(), &["run", "kepler", "--steps", "300", "--quiet", "--out", &tmp.arg("k")]);
    assert_success(&out, "kepler");
    let row = solution_row(&stdout(&out));
    let summary = read_json(&tmp.join("k/summary.json"));
    let (max, last) = (num(&row[row.len() - 2]), num(&row[row.len() - 1]));
    assert!(last > 0.0 && max >= last, "{row:?}");
    assert!((f(&summary, "final_solution_error") - last).abs() <= 1e-3 * last, "{row:?}");
    assert_eq!(s(&summary, "solution_reference"), "exact solution");

    // pendulum without --reference: n/a, and how to ask for one
    let (h, steps) = ("0.05", "400");
    let out = geomint(tmp.path(), &["run", "pendulum", "--h", h, "--steps", steps, "--quiet", "--out", &tmp.arg("p0")]);
    assert_success(&out, "pendulum without a reference");
    let text = stdout(&out);
    let row = solution_row(&text);
    assert_eq!(&row[row.len() - 2..], ["n/a", "n/a"], "{text}");
    let summary = read_json(&tmp.join("p0/summary.json"));
    assert!(summary["final_solution_error"].is_null(), "{summary}");
    assert!(s(&summary, "solution_reference").contains("`--reference`"), "{summary}");

    // pendulum: DOP853 at the final time, the same error as convergence's first row
    let out = geomint(
        tmp.path(),
        &["run", "pendulum", "--h", h, "--steps", steps, "--reference", "--quiet", "--out", &tmp.arg("p")],
    );
    assert_success(&out, "pendulum");
    let text = stdout(&out);
    assert!(text.contains("against a computed reference: DOP853"), "{text}");
    let summary = read_json(&tmp.join("p/summary.json"));
    assert!(s(&summary, "solution_reference").starts_with("reference: DOP853"), "{summary}");
    assert!(summary["max_solution_error"].is_null());
    let error = f(&summary, "final_solution_error");
    let conv =
        convergence_rows(&tmp, &["pendulum", "-m", "stormer-verlet", "--h", h, "--t-end", "20", "--levels", "2"]);
    assert_eq!(conv[0].1, 400);
    assert!((conv[0].2 - error).abs() <= 1e-12 * error, "run {error:e}, convergence {:e}", conv[0].2);
    assert!(error > 1e-6, "{error:e}");
    let row = solution_row(&text);
    assert!((num(row.last().unwrap()) - error).abs() <= 1e-3 * error, "{row:?}");

    // the rigid body: Richardson-extrapolated RK4, and n/a beyond the budget
    let out = geomint(
        tmp.path(),
        &["run", "rigid-body", "--steps", "200", "--reference", "--quiet", "--out", &tmp.arg("rb")],
    );
    assert_success(&out, "rigid body");
    let summary = read_json(&tmp.join("rb/summary.json"));
    assert!(s(&summary, "solution_reference").contains("Richardson"), "{summary}");
    assert!(f(&summary, "final_solution_error") > 0.0);
    let out = geomint(
        tmp.path(),
        &[
            "run",
            "rigid-body",
            "--steps",
            "100000",
            "--every",
            "1000",
            "--reference",
            "--quiet",
            "--out",
            &tmp.arg("rb-long"),
        ],
    );
    assert_success(&out, "long rigid body");
    let text = stdout(&out);
    let row = solution_row(&text);
    assert_eq!(&row[row.len() - 2..], ["n/a", "n/a"], "{text}");
    assert!(text.contains("n/a: no reference;"), "{text}");
    let summary = read_json(&tmp.join("rb-long/summary.json"));
    assert!(summary["final_solution_error"].is_null(), "{summary}");
    assert!(s(&summary, "solution_reference").starts_with("n/a (no reference: "), "{summary}");
}

/// Runs `geomint convergence ARGS` and returns the rows `(h, steps, error)` of its CSV.
fn convergence_rows(tmp: &TempDir, args: &[&str]) -> Vec<(f64, usize, f64)> {
    let dir = tmp.arg("convergence-rows");
    let out = geomint(tmp.path(), &[&["convergence"][..], args, &["--quiet", "--out", &dir]].concat());
    assert_success(&out, "convergence");
    let csv = Csv::read(&tmp.join("convergence-rows/convergence.csv"));
    let (h, n, e) = (csv.nums("h"), csv.nums("steps"), csv.nums("error"));
    (0..h.len()).map(|i| (h[i], n[i] as usize, e[i])).collect()
}
