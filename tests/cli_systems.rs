//! End-to-end tests of "bring your own system": `geomint run` from a given initial state (on
//! the command line and in a config file), from an N-body system file, and `geomint ensemble`,
//! each checked against the library API bit for bit; and the bad inputs of these, each one line
//! on stderr with exit status 2 and no files.
//!
//! Every command runs as a child process in a fresh temporary directory, with `--quiet` and
//! `--out` inside it.

use crate::support::{TempDir, text};
use geomint::workbench::catalogue::{self, nbody::Bodies};
use geomint::workbench::experiment::{self, RunSpec};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn geomint(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_geomint"))
        .args(args)
        .arg("--quiet")
        .current_dir(cwd)
        .output()
        .expect("run geomint")
}

fn assert_success(out: &Output, what: &str) {
    assert!(out.status.success(), "{what}: exit {:?}\n{}\n{}", out.status.code(), text(&out.stdout), text(&out.stderr));
}

/// The rows of a CSV file as numbers where they parse (`NaN` elsewhere), with its header.
fn csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mut lines = text.lines();
    let header = lines.next().expect("header").split(',').map(String::from).collect();
    let rows = lines.map(|l| l.split(',').map(|v| v.parse().unwrap_or(f64::NAN)).collect()).collect();
    (header, rows)
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn summary(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).expect("summary.json")).expect("JSON")
}

/// The largest error of quantity `name` in a `summary.json`.
fn max_error(summary: &Value, name: &str) -> f64 {
    let q = summary["quantities"].as_array().and_then(|qs| qs.iter().find(|q| q["name"] == name));
    q.and_then(|q| q["max_error"].as_f64()).unwrap_or_else(|| panic!("no max_error of {name} in {summary}"))
}

/// The samples of `trajectory.csv` (without `step` and `t`) are those of the library's run of
/// `problem`, bit for bit.
fn assert_trajectory_is(dir: &Path, problem: &dyn geomint::workbench::problem::Problem, method: &str, spec: RunSpec) {
    let r = experiment::run(problem, method, spec, &mut |_| {}).expect("library run");
    let (header, rows) = csv(&dir.join("trajectory.csv"));
    assert_eq!(header[2..], r.labels[..]);
    assert_eq!(rows.len(), r.samples.len());
    for (row, s) in rows.iter().zip(&r.samples) {
        assert_eq!(bits(&row[2..]), bits(&s.state), "{} at step {}", problem.name(), s.step);
    }
}

/// A run from `state = [...]` in a config file is the library's run of
/// `catalogue::problem_with_state`, bit for bit, for a canonical, a Lie-group and a groupoid
/// problem; `--state` on the command line is the same run, and the saved `config.toml` repeats
/// it.
#[test]
fn a_run_from_a_config_state_is_the_library_run_bit_for_bit() {
    let tmp = TempDir::new("config-state");
    let r0 = [0.8, 0.6, 0.0, -0.6, 0.8, 0.0, 0.0, 0.0, 1.0];
    let cases: Vec<(&str, &str, Vec<f64>, &str)> = vec![
        ("kepler", "yoshida6", vec![0.5, 0.1, -0.2, 1.5], "e = 0.3"),
        ("rigid-body", "hp-sv", [&r0[..], &[0.3, -0.4, 0.9]].concat(), ""),
        ("spherical-pendulum", "rattle", vec![0.0, 0.6, -0.8, 1.1, 0.0, 0.0], ""),
        ("so3-optimal-control", "del-cayley", [&r0[..], &[0.2, 0.4, 0.0, -0.1]].concat(), ""),
    ];
    for (name, method, state, params) in cases {
        let list: Vec<String> = state.iter().map(|v| format!("{v:?}")).collect();
        let config = format!(
            "problem = \"{name}\"\nmethod = \"{method}\"\nh = 0.01\nsteps = 60\nevery = 6\nstate = [{}]\n[params]\n{params}\n",
            list.join(", ")
        );
        let file = tmp.join(&format!("{name}.toml"));
        std::fs::write(&file, config).unwrap();
        let out = tmp.join(&format!("{name}-config"));
        assert_success(
            &geomint(
                tmp.path(),
                &["run", "--config", &file.display().to_string(), "--out", &out.display().to_string()],
            ),
            name,
        );
        let params: Vec<(String, f64)> = if params.is_empty() { vec![] } else { vec![("e".into(), 0.3)] };
        let problem = catalogue::problem_with_state(name, &params, &state).unwrap();
        assert_trajectory_is(&out, problem.as_ref(), method, RunSpec::new(0.01, Some(60), None, 6).unwrap());

        // the same state on the command line, and the saved config, give the same bytes
        let cli = tmp.join(&format!("{name}-cli"));
        let mut args = vec!["run", name, "--method", method, "--h", "0.01", "--steps", "60", "--every", "6"];
        let joined = list.join(",");
        args.extend(["--state", &joined]);
        let param = "e=0.3";
        if !params.is_empty() {
            args.extend(["--param", param]);
        }
        let cli_out = cli.display().to_string();
        args.extend(["--out", &cli_out]);
        assert_success(&geomint(tmp.path(), &args), name);
        let again = tmp.join(&format!("{name}-again"));
        let saved = cli.join("config.toml").display().to_string();
        assert_success(&geomint(tmp.path(), &["run", "--config", &saved, "--out", &again.display().to_string()]), name);
        let bytes = |d: &Path| std::fs::read(d.join("trajectory.csv")).unwrap();
        assert_eq!(bytes(&out), bytes(&cli), "{name}: --state and state = [...] differ");
        assert_eq!(bytes(&out), bytes(&again), "{name}: the saved config does not repeat the run");
    }
}

/// Ten bodies in space, well separated (radii 1.5^k, masses 1e-6 k around a unit mass), with
/// `G = 1`: the inner orbit has period 2π.
fn ten_bodies() -> String {
    let mut s = String::from("# ten bodies, G = 1\nmass, x, y, z, vx, vy, vz\n1.0, 0, 0, 0, 0, 0, 0\n");
    for k in 1..10 {
        let (r, a) = (1.5f64.powi(k - 1), 2.399 * f64::from(k));
        let (sn, cs) = a.sin_cos();
        let w = (1.0 / r).sqrt();
        s += &format!(
            "{:e}, {:?}, {:?}, {:?}, {:?}, {:?}, 0\n",
            1e-6 * f64::from(k),
            r * cs,
            r * sn,
            0.01 * r * sn,
            -w * sn,
            w * cs
        );
    }
    s
}

/// A run of `geomint run nbody --system FILE` with ten bodies is the library's run of the same
/// file bit for bit; Störmer–Verlet keeps the energy error bounded over 16 inner orbits (and
/// the momenta at round-off); `resume` continues it bit for bit.
#[test]
fn an_nbody_file_of_ten_bodies_runs_with_bounded_energy_error() {
    let tmp = TempDir::new("nbody");
    let file = tmp.join("bodies.csv");
    std::fs::write(&file, ten_bodies()).unwrap();
    let out = tmp.join("run");
    let (f, o) = (file.display().to_string(), out.display().to_string());
    let args = ["run", "nbody", "--system", &f, "--h", "0.01", "--steps", "10000", "--every", "100"];
    assert_success(&geomint(tmp.path(), &[&args[..], &["--out", &o]].concat()), "nbody run");
    let bodies = Bodies::read(&file, 1.0).unwrap();
    assert_eq!(bodies.masses().len(), 10);
    let problem = bodies.problem().unwrap();
    assert_trajectory_is(
        &out,
        problem.as_ref(),
        "stormer-verlet",
        RunSpec::new(0.01, Some(10_000), None, 100).unwrap(),
    );
    let s = summary(&out);
    assert_eq!(s["problem"], "nbody");
    let energy = max_error(&s, "energy");
    assert!(energy > 0.0 && energy < 1e-8, "energy error {energy:e}");
    assert!(max_error(&s, "angular_momentum") < 1e-12 && max_error(&s, "linear_momentum") < 1e-12);
    let config = std::fs::read_to_string(out.join("config.toml")).unwrap();
    assert!(config.contains("system = ") && config.contains("bodies.csv"), "{config}");

    // resumed to 12000 steps = one run of 12000 steps
    assert_success(&geomint(tmp.path(), &["resume", &o, "--steps", "12000"]), "resume");
    let whole = tmp.join("whole");
    let args = ["run", "--system", &f, "--h", "0.01", "--steps", "12000", "--every", "100"];
    assert_success(&geomint(tmp.path(), &[&args[..], &["--out", &whole.display().to_string()]].concat()), "whole");
    let bytes = |d: &Path| std::fs::read(d.join("trajectory.csv")).unwrap();
    assert_eq!(bytes(&out), bytes(&whole));
}

/// `geomint ensemble` is K single runs, member by member: the final state in `ensemble.csv` is
/// the last row of `geomint run --state INIT` bit for bit, and the largest errors those of its
/// `diagnostics.csv`; the same seed gives the same file on one thread.
#[test]
fn an_ensemble_is_k_single_runs() {
    let tmp = TempDir::new("ensemble");
    for (name, method, eps) in [("kepler", "stormer-verlet", "1e-3"), ("heavy-top", "hp-sv", "1e-2")] {
        let out = tmp.join(&format!("{name}-ens"));
        let o = out.display().to_string();
        let args = ["ensemble", name, "--method", method, "--steps", "400", "--every", "40", "--members", "4"];
        let run = geomint(tmp.path(), &[&args[..], &["--perturb", eps, "--seed", "9", "--out", &o]].concat());
        assert_success(&run, name);
        let table = text(&run.stdout);
        assert_eq!(table.lines().filter(|l| l.contains("completed")).count(), 4, "{table}");
        let (header, rows) = csv(&out.join("ensemble.csv"));
        let labels: Vec<String> =
            header.iter().filter(|h| h.starts_with("init_")).map(|h| h[5..].to_string()).collect();
        let n = labels.len();
        let first_state = header.iter().position(|h| *h == labels[0]).unwrap();
        let quantities: Vec<String> =
            header.iter().filter(|h| h.starts_with("max_err_")).map(|h| h[8..].to_string()).collect();
        assert_eq!(rows.len(), 4);
        for (i, row) in rows.iter().enumerate() {
            let init: Vec<String> = row[row.len() - n..].iter().map(|v| format!("{v:?}")).collect();
            let single = tmp.join(&format!("{name}-{i}"));
            let state = init.join(",");
            let args = ["run", name, "--method", method, "--steps", "400", "--every", "40", "--state", &state];
            assert_success(
                &geomint(tmp.path(), &[&args[..], &["--out", &single.display().to_string()]].concat()),
                name,
            );
            let (_, traj) = csv(&single.join("trajectory.csv"));
            let last = traj.last().unwrap();
            assert_eq!(bits(&row[first_state..first_state + n]), bits(&last[2..]), "{name} member {i}");
            // the largest error over the samples of diagnostics.csv (summary.json's, read from
            // CSV: serde_json's float parser is not correctly rounded)
            let (diag_header, diag) = csv(&single.join("diagnostics.csv"));
            for (k, q) in quantities.iter().enumerate() {
                let c = diag_header.iter().position(|h| *h == format!("err_{q}")).unwrap();
                let max = diag.iter().map(|r| r[c]).fold(0.0, f64::max);
                assert_eq!(row[4 + k].to_bits(), max.to_bits(), "{name} member {i}: {q}");
                assert!((max - max_error(&summary(&single), q)).abs() <= 1e-15 * max, "{name} member {i}: {q}");
            }
        }
        let again = tmp.join(&format!("{name}-again"));
        let args = ["ensemble", name, "--method", method, "--steps", "400", "--every", "40", "--members", "4"];
        let rest = ["--perturb", eps, "--seed", "9", "--threads", "1", "--out", &again.display().to_string()];
        assert_success(&geomint(tmp.path(), &[&args[..], &rest[..]].concat()), name);
        let csv_bytes = |d: &Path| std::fs::read(d.join("ensemble.csv")).unwrap();
        assert_eq!(csv_bytes(&out), csv_bytes(&again), "{name}: the threads change the ensemble");
    }
}

/// A thread storm, run in a child process with a 4 GB address-space limit and a 60 s timeout:
/// `--threads 100000` runs on at most the machine's cores (the ensemble does not depend on the
/// thread count, so the file equals the one-thread run) instead of starting 100 000 threads.
#[test]
fn a_thread_storm_is_capped_at_the_cores() {
    let tmp = TempDir::new("thread-storm");
    let (many, one) = (tmp.join("many"), tmp.join("one"));
    let args = "ensemble kepler --steps 200 --every 50 --members 4 --perturb 1e-3 --seed 3";
    let script = format!(
        "ulimit -v 4000000; exec timeout 60 '{}' {args} --threads 100000 --out '{}'",
        env!("CARGO_BIN_EXE_geomint"),
        many.display()
    );
    let out = std::process::Command::new("sh").args(["-c", &script]).current_dir(tmp.path()).output().expect("sh");
    assert_success(&out, "--threads 100000");
    let stdout = text(&out.stdout);
    let used: usize = stdout
        .split(" threads")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no thread count in: {stdout}"));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(used <= cores, "{used} threads on {cores} cores");
    let rest: Vec<&str> = args.split(' ').collect();
    let o = one.display().to_string();
    assert_success(&geomint(tmp.path(), &[&rest[..], &["--threads", "1", "--out", &o]].concat()), "one thread");
    let bytes = |d: &Path| std::fs::read(d.join("ensemble.csv")).unwrap();
    assert_eq!(bytes(&many), bytes(&one));
}

/// Bad states, systems and ensembles: one `error:` line on stderr naming the problem (or the
/// file), exit status 2, nothing written.
#[test]
fn bad_inputs_are_one_line_and_exit_2() {
    let tmp = TempDir::new("bad");
    let write = |name: &str, body: &str| {
        let p = tmp.join(name);
        std::fs::write(&p, body).unwrap();
        p.display().to_string()
    };
    let short = write("short.csv", "1, 0, 0, 0, 0, 0, 0\n1, 1, 0, 0, 0, 1\n");
    let word = write("word.csv", "1, 0, 0, 0, 0, 0, 0\n1, 1, 0, zero, 0, 1, 0\n");
    let inf = write("inf.csv", "1, 0, 0, 0, 0, 0, 0\n1, 1, 0, 0, 0, inf, 0\n");
    let cfg = write("state.toml", "problem = \"kepler\"\nsteps = 10\nstate = [0.5, 0.0, 1.5]\n");
    let not_rotation = "1.1,0,0,0,1,0,0,0,1,0.3,-0.4,2";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["run", "kepler", "--state", "0.5,0,1.5"], "a state of 'kepler' has 4 coordinates"),
        (vec!["run", "--config", &cfg], "a state of 'kepler' has 4 coordinates"),
        (vec!["run", "kepler", "--state", "0.5,0,inf,1.5"], "of 'kepler' must be finite, got inf"),
        (vec!["run", "heavy-top", "--state", not_rotation], "'heavy-top' is not admissible: R is not a rotation"),
        (vec!["run", "spherical-pendulum", "--state", "0,0.6,-0.7,1,0,0"], "'spherical-pendulum' is not admissible"),
        (vec!["run", "spherical-pendulum", "--state", "0,0.6,-0.8,0,1,0"], "p is not tangent to the sphere"),
        (
            vec!["run", "so3-optimal-control", "--state", "1,0,0,0,1,0,0,0,1,0.2,0.4,0.1,0"],
            "'so3-optimal-control' is not admissible: xi3",
        ),
        (vec!["run", "nbody", "--system", &short], "problem 'nbody'), line 2: 6 values"),
        (vec!["run", "nbody", "--system", &word], "line 2: z = 'zero' is not a number"),
        (vec!["run", "nbody", "--system", &inf], "line 2: vy = inf is not finite"),
        (vec!["run", "nbody"], "problem 'nbody' needs its bodies"),
        (vec!["run", "kepler", "--system", &short], "applies to problems 'system'"),
        (
            vec!["ensemble", "rigid-body", "--members", "3", "--perturb", "1e-3", "--state", "1,0"],
            "'rigid-body' has 12",
        ),
        (vec!["ensemble", "kepler", "--members", "3", "--perturb", "nan"], "perturbation must be finite"),
    ];
    for (args, expect) in cases {
        let out_dir = tmp.join("out");
        let out = geomint(tmp.path(), &[&args[..], &["--out", &out_dir.display().to_string()]].concat());
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.contains(expect), "{args:?}: {err}");
        assert!(!out_dir.exists(), "{args:?} wrote {}", out_dir.display());
    }
}

/// Two commands on one output directory: while a long run holds it (in a child process with a
/// 4 GB address-space limit and a 120 s timeout; its lock file `.geomint.lock` names its pid and
/// command), a second run (even with `--force`), a resume and an ensemble there fail at once with
/// exit status 1 and one line naming the holder, and change nothing; the first run completes all
/// its steps and removes its lock file. A stale lock file, whose holder is gone, is taken over.
#[test]
fn a_locked_output_directory_refuses_a_second_command() {
    let tmp = TempDir::new("lock");
    let dir = tmp.join("d");
    let d = dir.display().to_string();
    let lock = dir.join(".geomint.lock");
    let steps = "200000000";
    let script = format!(
        "ulimit -v 4000000; exec timeout 120 '{}' run kepler --steps {steps} --every 1000000 --quiet --out '{d}'",
        env!("CARGO_BIN_EXE_geomint")
    );
    let mut first = Command::new("sh")
        .args(["-c", &script])
        .current_dir(tmp.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the first run");
    let deadline = Instant::now() + Duration::from_secs(60);
    let holder = loop {
        let text = std::fs::read_to_string(&lock).unwrap_or_default();
        if text.ends_with('\n') {
            break text.trim().to_string();
        }
        assert!(
            first.try_wait().expect("try_wait").is_none(),
            "the first run ended before it was seen holding the lock"
        );
        assert!(Instant::now() < deadline, "no lock file after 60 s");
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(holder.starts_with("pid ") && holder.contains(&format!("geomint run kepler --steps {steps}")), "{holder}");
    let pid: u32 = holder["pid ".len()..].split(':').next().and_then(|p| p.parse().ok()).expect("the holder's pid");
    assert!(
        Path::new(&format!("/proc/{pid}")).exists() || !Path::new("/proc/self").exists(),
        "pid {pid} is not running"
    );

    let second: [&[&str]; 3] = [
        &["run", "kepler", "--steps", "100", "--force", "--out", &d],
        &["resume", &d, "--steps", "300000000"],
        &["ensemble", "kepler", "--members", "2", "--perturb", "1e-3", "--steps", "10", "--out", &d],
    ];
    for args in second {
        let out = geomint(tmp.path(), args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out.stderr));
        let err = text(&out.stderr);
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {lines:?}");
        assert_eq!(
            lines[0],
            format!(
                "error: output directory {d} is in use by another geomint ({holder}); wait for it to end or choose another --out"
            ),
            "{args:?}"
        );
        assert!(!text(&out.stdout).contains("wrote"), "{args:?}: {}", text(&out.stdout));
    }
    assert!(!dir.join("ensemble.csv").exists());

    let status = first.wait().expect("wait for the first run");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut first.stderr.take().expect("stderr"), &mut stderr).expect("read stderr");
    assert!(status.success(), "the first run: {status:?}, stderr: {stderr}");
    assert!(!lock.exists(), "the lock file outlived its run");
    let s = summary(&dir);
    assert_eq!(s["steps"].to_string(), steps, "{s}");
    assert_eq!(s["status"], "completed");

    // a lock file left by a process that is gone (killed: its system lock went with it)
    std::fs::write(&lock, "pid 4000000000: geomint run gone\n").expect("write a stale lock file");
    assert_success(&geomint(tmp.path(), &["run", "kepler", "--steps", "100", "--force", "--out", &d]), "stale lock");
    assert!(!lock.exists());
}

/// Output that cannot be written is an error (status 1, one line naming stdout), not a silent
/// success; a reader that closes the pipe early is not an error.
#[test]
fn a_full_stdout_fails_and_a_closed_pipe_does_not() {
    if !Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full on this system");
        return;
    }
    let tmp = TempDir::new("dev-full");
    let out_dir = tmp.join("k");
    let out_dir = out_dir.to_str().expect("utf-8 path");
    for args in [&["list"][..], &["run", "kepler", "--steps", "50", "--out", out_dir]] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("open /dev/full");
        let out = Command::new(env!("CARGO_BIN_EXE_geomint"))
            .args(args)
            .current_dir(tmp.path())
            .stdout(full)
            .output()
            .expect("run geomint");
        assert_eq!(out.status.code(), Some(1), "{args:?} into /dev/full: {:?}", out.status);
        let err = text(&out.stderr);
        assert!(err.contains("cannot write to standard output"), "{args:?}: stderr {err}");
    }
    // `geomint list | head -c 10`: the reader goes away, the command still succeeds
    let mut child = Command::new(env!("CARGO_BIN_EXE_geomint"))
        .arg("list")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn geomint");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "list into a closed pipe: {}", text(&out.stderr));
}
