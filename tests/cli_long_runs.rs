//! End-to-end tests of long runs of the `geomint` binary: checkpoints, `geomint resume`, Ctrl-C
//! (SIGINT, sent with the `kill` command), failed steps and unwritable outputs.
//!
//! A run stopped (by `resume`'s target or by SIGINT) and resumed must write the same trajectory,
//! diagnostics and plot, byte for byte, and end in the same state, bit for bit, as one
//! uninterrupted run of the total number of steps; a damaged checkpoint must be refused without
//! changing a file. Every test passes `--quiet` and `--out` in its own temporary directory.

use crate::support::{TempDir, text};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

// --- helpers ------------------------------------------------------------------------------------

fn geomint(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_geomint")).args(args).current_dir(cwd).output().expect("run geomint")
}

fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// Asserts exit `code` and exactly one stderr line, `error: …`; returns it.
fn assert_error(out: &Output, code: i32, what: &str) -> String {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{what}: exit status\nstdout:\n{}\nstderr:\n{err}", text(&out.stdout));
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: stderr must be one line, got {lines:?}");
    assert!(lines[0].starts_with("error: "), "{what}: {lines:?}");
    lines[0].to_string()
}

/// Every file directly in `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| {
            let e = e.expect("entry");
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).expect("read a file"))
        })
        .collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
}

/// The payload of `DIR/checkpoint.json` (plain JSON after its header fields).
fn checkpoint(dir: &Path) -> Value {
    read_json(&dir.join("checkpoint.json"))["payload"].clone()
}

/// A summary without its wall time (the only field that depends on the machine's speed).
fn summary_without_time(dir: &Path) -> Value {
    let mut v = read_json(&dir.join("summary.json"));
    v.as_object_mut().expect("summary object").remove("wall_seconds");
    v
}

/// `config.toml` without its `out` line.
fn config_without_out(dir: &Path) -> Vec<String> {
    read(&dir.join("config.toml")).lines().filter(|l| !l.starts_with("out =")).map(String::from).collect()
}

/// The step column of `trajectory.csv`.
fn sampled_steps(dir: &Path) -> Vec<usize> {
    read(&dir.join("trajectory.csv")).lines().skip(1).map(|l| l.split(',').next().unwrap().parse().unwrap()).collect()
}

/// Asserts that the outputs of two runs agree: the trajectory, the diagnostics and the plot byte
/// for byte, the summaries but for the wall time, the configs but for `out`; and, where both
/// have a checkpoint, the final state bit for bit and the sample files byte for byte.
fn assert_same_run(a: &Path, b: &Path, what: &str) {
    for file in ["trajectory.csv", "diagnostics.csv", "diagnostics.svg"] {
        let (x, y) = (std::fs::read(a.join(file)).unwrap(), std::fs::read(b.join(file)).unwrap());
        assert!(x == y, "{what}: {file} differs ({} and {} bytes)", x.len(), y.len());
    }
    assert_eq!(summary_without_time(a), summary_without_time(b), "{what}: summary.json");
    assert_eq!(config_without_out(a), config_without_out(b), "{what}: config.toml");
    if a.join("checkpoint.json").exists() && b.join("checkpoint.json").exists() {
        let (x, y) = (checkpoint(a), checkpoint(b));
        for key in ["run", "coordinates", "samples", "max_errors", "status"] {
            assert_eq!(x[key], y[key], "{what}: checkpoint {key}");
        }
        assert!(
            std::fs::read(a.join("checkpoint-samples.bin")).unwrap()
                == std::fs::read(b.join("checkpoint-samples.bin")).unwrap(),
            "{what}: checkpoint-samples.bin differs"
        );
    }
}

fn wait_with_deadline(child: &mut Child, limit: Duration, what: &str) -> std::process::ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Starts `geomint ARGS` and sends it SIGINT (with the `kill` command) once `DIR/checkpoint.json`
/// exists, i.e. once the run has written its first checkpoint; returns its output (exit status
/// 130 asserted).
fn interrupt_after_first_checkpoint(cwd: &Path, args: &[&str], dir: &Path) -> Output {
    signal_after_first_checkpoint(cwd, args, dir, "-INT")
}

/// [`interrupt_after_first_checkpoint`] with another signal (`-TERM`, `-HUP`).
fn signal_after_first_checkpoint(cwd: &Path, args: &[&str], dir: &Path, signal: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_geomint"))
        .args(args)
        .current_dir(cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn geomint");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !dir.join("checkpoint.json").exists() {
        if let Some(status) = child.try_wait().expect("wait") {
            panic!("the run ended ({status}) before its first checkpoint");
        }
        assert!(Instant::now() < deadline, "no checkpoint after 60 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    let kill = Command::new("kill").args([signal, &child.id().to_string()]).status().expect("run kill");
    assert!(kill.success(), "kill {signal} failed");
    wait_with_deadline(&mut child, Duration::from_secs(60), "the interrupted run");
    let out = child.wait_with_output().expect("collect the output");
    assert_eq!(out.status.code(), Some(130), "exit status of an interrupted run\nstderr:\n{}", text(&out.stderr));
    out
}

// --- checkpoint and resume ----------------------------------------------------------------------

/// A run of N steps equals a run of N/2 steps resumed to N — on `T*R^n` (Kepler), on `T*G` (the
/// rigid body) and on the three groupoids (restored from the checkpoint's state, not replayed) —
/// with `every` dividing neither half nor whole.
#[test]
fn a_run_resumed_to_2000_steps_equals_a_run_of_2000_steps() {
    let tmp = TempDir::new("resume");
    for (problem, method, steps) in [
        ("kepler", "stormer-verlet", 2000),
        ("rigid-body", "hp-sv", 2000),
        ("spherical-pendulum", "rattle", 400),
        ("plate-ball", "del", 400),
        ("so3-optimal-control", "del-cayley", 400),
        ("rolling-disk", "dla", 400),
        ("kepler-time", "time-midpoint", 400),
        ("outer-solar-system", "whfast", 400),
    ] {
        let (whole, half) = (tmp.join(&format!("{problem}-whole")), tmp.join(&format!("{problem}-half")));
        let (whole_s, half_s) = (whole.display().to_string(), half.display().to_string());
        let (n, n2) = (steps.to_string(), (steps / 2).to_string());
        let common = ["--method", method, "--every", "7", "--checkpoint-every", "150", "--quiet"];
        let run = |steps: &str, out: &str| {
            geomint(tmp.path(), &[&["run", problem, "--steps", steps][..], &common, &["--out", out]].concat())
        };
        assert_success(&run(&n, &whole_s), "the whole run");
        assert_success(&run(&n2, &half_s), "the first half");
        // the half run samples its last step (not a multiple of 7); the resumed run must not keep it
        assert_eq!(sampled_steps(&half).last(), Some(&(steps / 2)), "{problem}: the half run's last sample");
        let out = geomint(tmp.path(), &["resume", &half_s, "--steps", &n, "--quiet"]);
        assert_success(&out, &format!("{problem}: resume"));
        assert!(text(&out.stdout).contains("checkpoint.json"), "{problem}: {}", text(&out.stdout));
        let steps_sampled = sampled_steps(&half);
        assert!(!steps_sampled.contains(&(steps / 2)), "{problem}: the half run's last sample was kept");
        assert_eq!(steps_sampled.last(), Some(&steps));
        assert_same_run(&whole, &half, problem);
        assert_eq!(checkpoint(&half)["run"]["step"], steps);
        assert_eq!(read_json(&half.join("summary.json"))["status"], "completed");
        // every simulation saves its state (none is replayed from its initial data)
        assert!(checkpoint(&half)["run"]["state"].as_array().is_some_and(|s| !s.is_empty()), "{problem}: no state");
    }
}

/// Ctrl-C in the middle of a long run: exit 130, the step and time on stderr, a consistent
/// directory (summary marked interrupted, trajectory up to the step, a readable checkpoint); the
/// run resumed to a total equals an uninterrupted run of that total.
#[test]
fn sigint_mid_run_then_resume_equals_an_uninterrupted_run() {
    let tmp = TempDir::new("sigint");
    let dir = tmp.join("interrupted");
    let dir_s = dir.display().to_string();
    let common = ["--every", "1000", "--checkpoint-every", "200000", "--quiet"];
    let long = [&["run", "kepler", "--steps", "1000000000"][..], &common, &["--out", &dir_s]].concat();
    let out = interrupt_after_first_checkpoint(tmp.path(), &long, &dir);

    // the directory: every output, the checkpoint, nothing partial
    let files: Vec<String> = snapshot(&dir).into_keys().collect();
    assert_eq!(
        files,
        [
            "checkpoint-samples.bin",
            "checkpoint.json",
            "config.toml",
            "diagnostics.csv",
            "diagnostics.svg",
            "summary.json",
            "trajectory.csv",
            "trajectory.svg"
        ]
    );
    let summary = read_json(&dir.join("summary.json"));
    assert_eq!(summary["status"], "interrupted");
    assert_eq!(summary["target_steps"], 1_000_000_000u64);
    let k = summary["steps"].as_u64().expect("steps") as usize;
    assert!((200_000..1_000_000_000).contains(&k), "stopped at step {k}");
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&format!("interrupted at step {k} ")), "stderr: {stderr}");
    assert!(stderr.contains(&format!("t = {}", k as f64 * 0.01)), "stderr: {stderr}");
    assert_eq!(sampled_steps(&dir).last(), Some(&k), "the trajectory does not end at the step");
    let cp = checkpoint(&dir);
    assert_eq!((cp["status"].as_str(), cp["run"]["step"].as_u64()), (Some("interrupted"), Some(k as u64)));
    assert!(read(&dir.join("config.toml")).contains("steps = 1000000000"));

    // resumed to a total past the interruption: the uninterrupted run of that total
    let total = (k + 54_321).to_string();
    let out = geomint(tmp.path(), &["resume", &dir_s, "--steps", &total, "--quiet"]);
    assert_success(&out, "resume after SIGINT");
    let whole = tmp.join("whole");
    let whole_run = [&["run", "kepler", "--steps", &total][..], &common, &["--out", &whole.display().to_string()]];
    assert_success(&geomint(tmp.path(), &whole_run.concat()), "the uninterrupted run");
    assert_same_run(&whole, &dir, "interrupted and resumed");
}

/// SIGTERM and SIGHUP (a scheduler's stop, a closed terminal) stop a run as SIGINT does: exit
/// 130, the run marked interrupted with its checkpoint, and the resumed run equal to an
/// uninterrupted one.
#[test]
fn sigterm_and_sighup_stop_the_run_with_a_checkpoint() {
    let tmp = TempDir::new("sigterm");
    for signal in ["-TERM", "-HUP"] {
        let dir = tmp.join(&format!("run{signal}"));
        let dir_s = dir.display().to_string();
        let common = ["--every", "1000", "--checkpoint-every", "200000", "--quiet"];
        let long = [&["run", "kepler", "--steps", "1000000000"][..], &common, &["--out", &dir_s]].concat();
        signal_after_first_checkpoint(tmp.path(), &long, &dir, signal);
        let summary = read_json(&dir.join("summary.json"));
        assert_eq!(summary["status"], "interrupted", "{signal}");
        let k = summary["steps"].as_u64().expect("steps") as usize;
        assert_eq!(checkpoint(&dir)["run"]["step"].as_u64(), Some(k as u64), "{signal}");
        let total = (k + 1234).to_string();
        assert_success(&geomint(tmp.path(), &["resume", &dir_s, "--steps", &total, "--quiet"]), "resume");
        let whole = tmp.join(&format!("whole{signal}"));
        let whole_run = [&["run", "kepler", "--steps", &total][..], &common, &["--out", &whole.display().to_string()]];
        assert_success(&geomint(tmp.path(), &whole_run.concat()), "the uninterrupted run");
        assert_same_run(&whole, &dir, signal);
    }
}

/// The same on the rigid body (a state on SO(3) × so(3)*), interrupted twice: a checkpoint
/// written by a resumed run is resumed in turn.
#[test]
fn sigint_twice_on_the_rigid_body() {
    let tmp = TempDir::new("sigint-twice");
    let dir = tmp.join("body");
    let dir_s = dir.display().to_string();
    let common = ["--method", "hp-sv", "--every", "100", "--checkpoint-every", "20000", "--quiet"];
    let long = [&["run", "rigid-body", "--steps", "100000000"][..], &common, &["--out", &dir_s]].concat();
    interrupt_after_first_checkpoint(tmp.path(), &long, &dir);
    let k1 = read_json(&dir.join("summary.json"))["steps"].as_u64().unwrap();
    // resume (to the run's own target) and interrupt again once it has written a checkpoint
    let mut child = Command::new(env!("CARGO_BIN_EXE_geomint"))
        .args(["resume", &dir_s, "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn resume");
    let deadline = Instant::now() + Duration::from_secs(60);
    while checkpoint(&dir)["run"]["step"].as_u64().unwrap() == k1 {
        assert!(child.try_wait().unwrap().is_none(), "the resumed run ended early");
        assert!(Instant::now() < deadline, "no new checkpoint after 60 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    let status = wait_with_deadline(&mut child, Duration::from_secs(60), "the resumed run");
    assert_eq!(status.code(), Some(130));
    let k2 = read_json(&dir.join("summary.json"))["steps"].as_u64().unwrap();
    assert!(k2 > k1, "the resumed run did not advance: {k1} -> {k2}");
    assert_eq!(read_json(&dir.join("summary.json"))["status"], "interrupted");

    let total = (k2 + 777).to_string();
    assert_success(&geomint(tmp.path(), &["resume", &dir_s, "--steps", &total, "--quiet"]), "second resume");
    let whole = tmp.join("whole");
    let whole_run = [&["run", "rigid-body", "--steps", &total][..], &common, &["--out", &whole.display().to_string()]];
    assert_success(&geomint(tmp.path(), &whole_run.concat()), "the uninterrupted run");
    assert_same_run(&whole, &dir, "rigid body interrupted twice");
}

// --- refused checkpoints ------------------------------------------------------------------------

/// A checkpoint that is missing, truncated, bit-flipped (in the header, the payload or the
/// sample file), of another geomint version or not a checkpoint at all is refused with one error
/// line, exit status 2, and no file of the directory changes.
#[test]
fn damaged_checkpoints_are_refused_and_change_nothing() {
    let tmp = TempDir::new("damaged");
    let good = tmp.join("good");
    let out = geomint(
        tmp.path(),
        &["run", "kepler", "--steps", "1000", "--every", "10", "--checkpoint-every", "300", "--quiet", "--out"]
            .iter()
            .copied()
            .chain([good.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    assert_success(&out, "the run");
    let pristine = snapshot(&good);
    let cp = pristine["checkpoint.json"].clone();
    let samples = pristine["checkpoint-samples.bin"].clone();
    let version = env!("CARGO_PKG_VERSION");
    let flip = |bytes: &[u8], at: usize, bit: u8| {
        let mut b = bytes.to_vec();
        b[at] ^= 1 << bit;
        b
    };
    let foreign = String::from_utf8(cp.clone()).unwrap().replacen(version, "99.0.0", 1).into_bytes();
    // (name, checkpoint.json, checkpoint-samples.bin (None: absent), a text of the error line)
    type Case = (&'static str, Option<Vec<u8>>, Option<Vec<u8>>, &'static str);
    let cases: Vec<Case> = vec![
        ("missing", None, Some(samples.clone()), "no checkpoint"),
        ("empty", Some(Vec::new()), Some(samples.clone()), "truncated"),
        ("truncated", Some(cp[..cp.len() / 2].to_vec()), Some(samples.clone()), "truncated"),
        ("no-final-newline", Some(cp[..cp.len() - 1].to_vec()), Some(samples.clone()), "truncated"),
        ("flip-in-magic", Some(flip(&cp, 12, 0)), Some(samples.clone()), "refused"),
        ("flip-in-checksum", Some(flip(&cp, 80, 2)), Some(samples.clone()), "refused"),
        ("flip-in-payload", Some(flip(&cp, cp.len() / 2, 0)), Some(samples.clone()), "corrupted"),
        ("flip-near-end", Some(flip(&cp, cp.len() - 5, 1)), Some(samples.clone()), "refused"),
        ("foreign-version", Some(foreign), Some(samples.clone()), "99.0.0"),
        ("not-a-checkpoint", Some(b"{\"hello\": \"world\"}\n".to_vec()), Some(samples.clone()), "corrupted"),
        ("samples-flipped", Some(cp.clone()), Some(flip(&samples, samples.len() / 3, 5)), "corrupted"),
        ("samples-truncated", Some(cp.clone()), Some(samples[..samples.len() - 8].to_vec()), "truncated"),
        ("samples-missing", Some(cp.clone()), None, "truncated"),
    ];
    for (name, checkpoint_bytes, sample_bytes, needle) in cases {
        let dir = tmp.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for (file, bytes) in &pristine {
            if file != "checkpoint.json" && file != "checkpoint-samples.bin" {
                std::fs::write(dir.join(file), bytes).unwrap();
            }
        }
        if let Some(b) = checkpoint_bytes {
            std::fs::write(dir.join("checkpoint.json"), b).unwrap();
        }
        if let Some(b) = sample_bytes {
            std::fs::write(dir.join("checkpoint-samples.bin"), b).unwrap();
        }
        let before = snapshot(&dir);
        let out = geomint(tmp.path(), &["resume", dir.to_str().unwrap(), "--steps", "2000", "--quiet"]);
        let line = assert_error(&out, 2, name);
        assert!(line.contains(needle), "{name}: '{line}' does not mention '{needle}'");
        assert!(text(&out.stdout).is_empty(), "{name}: stdout:\n{}", text(&out.stdout));
        assert!(snapshot(&dir) == before, "{name}: the directory changed");
    }
    // the intact copy resumes
    assert_success(&geomint(tmp.path(), &["resume", good.to_str().unwrap(), "--steps", "1200", "--quiet"]), "good");
}

/// `resume` below the steps taken, and bad options, are one-line input errors that change nothing.
#[test]
fn resume_input_errors_change_nothing() {
    let tmp = TempDir::new("resume-input");
    let dir = tmp.join("run");
    let d = dir.to_str().unwrap();
    let out =
        geomint(tmp.path(), &["run", "kepler", "--steps", "500", "--checkpoint-every", "100", "--quiet", "--out", d]);
    assert_success(&out, "the run");
    let before = snapshot(&dir);
    for (args, needle) in [
        (vec!["resume", d, "--steps", "499"], "at least 500"),
        (vec!["resume", d, "--checkpoint-every", "0"], "checkpoint-every"),
        (vec!["resume", d, "--max-error", "-1"], "max-error"),
        (vec!["resume", d, "--steps", "ten"], "ten"),
    ] {
        let line = assert_error(&geomint(tmp.path(), &[&args[..], &["--quiet"]].concat()), 2, &args.join(" "));
        assert!(line.contains(needle), "{line}");
        assert!(snapshot(&dir) == before, "{}: the directory changed", args.join(" "));
    }
    // every run keeps a checkpoint: a plain run of 100 steps resumes to 200
    let plain = tmp.join("plain");
    assert_success(
        &geomint(tmp.path(), &["run", "kepler", "--steps", "100", "--quiet", "--out", plain.to_str().unwrap()]),
        "plain run",
    );
    assert!(plain.join("checkpoint.json").exists() && plain.join("checkpoint-samples.bin").exists());
    assert_success(
        &geomint(tmp.path(), &["resume", plain.to_str().unwrap(), "--steps", "200", "--quiet"]),
        "resume of a plain run",
    );
    // a directory without a checkpoint
    let empty = tmp.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let line = assert_error(&geomint(tmp.path(), &["resume", empty.to_str().unwrap(), "--quiet"]), 2, "no checkpoint");
    assert!(line.contains("no checkpoint"), "{line}");
    // a new run in a directory replaces the old run's checkpoint with its own
    assert_success(
        &geomint(tmp.path(), &["run", "pendulum", "--steps", "100", "--quiet", "--force", "--out", d]),
        "a new run in the same directory",
    );
    let checkpoint = std::fs::read_to_string(dir.join("checkpoint.json")).unwrap();
    assert!(checkpoint.contains("pendulum") && !checkpoint.contains("kepler"), "the old run's checkpoint survived");
}

// --- failures, unwritable outputs, warnings -----------------------------------------------------

/// A failed step writes the outputs up to the last good step with a summary "failed at step K",
/// and exits 1 with the step's error.
#[test]
fn a_failed_step_writes_the_outputs_so_far() {
    let tmp = TempDir::new("failed");
    let dir = tmp.join("out");
    // RATTLE at h = 0.5 on the spherical pendulum: Newton fails at step 2
    let out = geomint(
        tmp.path(),
        &["run", "spherical-pendulum", "--h", "0.5", "--steps", "200", "--every", "3", "--quiet", "--out"]
            .iter()
            .copied()
            .chain([dir.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    assert_eq!(out.status.code(), Some(1), "stderr: {}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.lines().any(|l| l.starts_with("error: integration failed at step 2")), "stderr: {err}");
    let summary = read_json(&dir.join("summary.json"));
    assert_eq!(summary["status"], "failed at step 2");
    assert_eq!(summary["steps"], 1);
    assert_eq!(sampled_steps(&dir), [0, 1]);
    assert_eq!(checkpoint(&dir)["status"], "failed at step 2");
    assert!(!snapshot(&dir).keys().any(|f| f.ends_with(".partial")));
}

/// `--out` that cannot be written fails before any integration: within a second for a run of
/// 10^9 steps (which would take half a minute), with nothing left behind.
#[test]
fn unwritable_out_fails_at_once() {
    let tmp = TempDir::new("unwritable");
    std::fs::write(tmp.join("file"), "keep\n").unwrap();
    let through_file = tmp.join("file/sub");
    for out_dir in ["/proc/geomint-long-runs-test", through_file.to_str().unwrap()] {
        let start = Instant::now();
        let out = geomint(tmp.path(), &["run", "kepler", "--steps", "1000000000", "--quiet", "--out", out_dir]);
        let elapsed = start.elapsed();
        let line = assert_error(&out, 1, out_dir);
        assert!(line.contains(out_dir), "{line}");
        assert!(elapsed < Duration::from_secs(1), "{out_dir}: failed after {elapsed:?}");
    }
    assert_eq!(snapshot(tmp.path()).into_keys().collect::<Vec<_>>(), ["file"]);
    assert_eq!(read(&tmp.join("file")), "keep\n");
}

/// Errors above 1 (or `--max-error`) are a warning on stderr; a run within them is silent.
#[test]
fn large_errors_warn() {
    let tmp = TempDir::new("warn");
    let run = |method: &str, extra: &[&str], out: &str| {
        let args = [&["run", "kepler", "--method", method, "--steps", "2000", "--quiet"][..], extra, &["--out", out]];
        geomint(tmp.path(), &args.concat())
    };
    let quiet = run("stormer-verlet", &[], tmp.join("sv").to_str().unwrap());
    assert_success(&quiet, "stormer-verlet");
    assert!(text(&quiet.stderr).is_empty(), "stderr: {}", text(&quiet.stderr));
    let strict = run("stormer-verlet", &["--max-error", "1e-6"], tmp.join("sv2").to_str().unwrap());
    assert_success(&strict, "stormer-verlet, --max-error 1e-6");
    let err = text(&strict.stderr);
    assert!(err.contains("warning: the energy error") && !err.contains("angular_momentum"), "stderr: {err}");
    // this run diverges (energy error 2.5e7): --accept-divergent keeps its exit status 0
    let euler = run(
        "explicit-euler",
        &["--h", "0.5", "--param", "e=0.99", "--accept-divergent"],
        tmp.join("ee").to_str().unwrap(),
    );
    assert_success(&euler, "explicit Euler");
    assert!(text(&euler.stderr).contains("warning: the energy error"), "stderr: {}", text(&euler.stderr));
}

/// The last line of stderr.
fn last_line(out: &Output) -> String {
    text(&out.stderr).lines().last().unwrap_or_default().to_string()
}

/// A run whose monitored invariants lose every digit (a relative error of 1 or more, or a
/// non-finite one) exits with status 3 after writing its outputs, its last stderr line naming
/// the quantities and their errors; `--accept-divergent` exits 0 (with a warning), and so does
/// a run that keeps its invariants. The same holds for `resume` and `ensemble`; a heavy top
/// with a huge step diverges in its energy only.
#[test]
fn divergent_runs_exit_3_unless_accepted() {
    let tmp = TempDir::new("divergent");
    let dir = |name: &str| tmp.join(name).display().to_string();
    let kepler = |out: &str, extra: &[&str]| {
        let args = [&["run", "kepler", "--h", "1e15", "--steps", "10", "--quiet", "--out", out][..], extra];
        geomint(tmp.path(), &args.concat())
    };

    let diverged = kepler(&dir("kepler"), &[]);
    assert_eq!(diverged.status.code(), Some(3), "stderr: {}", text(&diverged.stderr));
    let line = last_line(&diverged);
    assert!(line.starts_with("error: the run diverged: energy error "), "{line}");
    assert!(line.contains("angular_momentum error ") && line.contains("--accept-divergent"), "{line}");
    // the error is the one in summary.json, printed to four digits
    let summary: Value = serde_json::from_str(&read(&tmp.join("kepler/summary.json"))).expect("summary.json");
    let energy = summary["quantities"][0]["max_error"].as_f64().expect("energy max_error");
    assert!(energy > 1e20, "energy error {energy}");
    assert!(line.contains(&format!("energy error {energy:.3e}")), "{line} vs {energy:e}");
    assert!(text(&diverged.stdout).contains("wrote trajectory.csv"), "outputs are written");
    assert!(tmp.join("kepler/checkpoint.json").is_file());

    let accepted = kepler(&dir("kepler-accepted"), &["--accept-divergent"]);
    assert_success(&accepted, "--accept-divergent");
    assert!(last_line(&accepted).starts_with("warning: the run diverged: energy error "), "{}", last_line(&accepted));

    let normal = geomint(tmp.path(), &["run", "kepler", "--steps", "200", "--quiet", "--out", &dir("normal")]);
    assert_success(&normal, "a normal run");
    assert!(!text(&normal.stderr).contains("diverged"), "stderr: {}", text(&normal.stderr));

    // resume continues the diverged run: still diverged, unless accepted
    let resumed = geomint(tmp.path(), &["resume", &dir("kepler"), "--steps", "12", "--quiet"]);
    assert_eq!(resumed.status.code(), Some(3), "resume: {}", text(&resumed.stderr));
    assert!(last_line(&resumed).starts_with("error: the run diverged: energy error "), "{}", last_line(&resumed));
    let resumed = geomint(tmp.path(), &["resume", &dir("kepler"), "--steps", "14", "--quiet", "--accept-divergent"]);
    assert_success(&resumed, "resume --accept-divergent");

    let top = geomint(tmp.path(), &["run", "heavy-top", "--h", "1e6", "--steps", "3", "--quiet", "--out", &dir("top")]);
    assert_eq!(top.status.code(), Some(3), "heavy-top: {}", text(&top.stderr));
    let line = last_line(&top);
    assert!(line.starts_with("error: the run diverged: energy error ") && !line.contains("group_defect"), "{line}");

    let ensemble = |extra: &[&str]| {
        let args = [&["ensemble", "kepler", "--members", "3", "--perturb", "1e-3", "--quiet"][..], extra];
        geomint(tmp.path(), &args.concat())
    };
    let e = ensemble(&["--h", "1e15", "--steps", "10"]);
    assert_eq!(e.status.code(), Some(3), "ensemble: {}", text(&e.stderr));
    assert!(last_line(&e).starts_with("error: 3 of 3 members diverged; member 0: energy error "), "{}", last_line(&e));
    assert_success(&ensemble(&["--h", "1e15", "--steps", "10", "--accept-divergent"]), "ensemble --accept-divergent");
    let calm = ensemble(&["--steps", "100"]);
    assert_success(&calm, "a calm ensemble");
    assert!(text(&calm.stderr).is_empty(), "stderr: {}", text(&calm.stderr));
}

// --- compensated summation ----------------------------------------------------------------------

/// `run --compensated` on 10^6 steps of Störmer–Verlet: its round-off, measured against the same
/// run in double-double arithmetic (`geomint::workbench::roundoff`), is at least ten times below
/// the plain run's — in the state and in the energy (the oscillator's exact modified energy,
/// Kepler's to `O(h⁴)`) — while the energy error itself, the method's bounded `O(h²)`
/// oscillation, is the same; and a compensated run stopped at 400 000 steps and resumed to
/// 10^6 (its checkpoint carries the Kahan carries) equals the uninterrupted one bit for bit, as
/// does its replay from config.toml.
#[test]
fn compensated_round_off_is_far_below_plain_and_resumes_bit_for_bit() {
    use geomint::workbench::roundoff;
    let tmp = TempDir::new("compensated");
    for problem in ["harmonic-oscillator", "kepler"] {
        let dir = |name: &str| tmp.join(&format!("{problem}-{name}"));
        let run = |name: &str, steps: &str, extra: &[&str]| {
            let out = dir(name).display().to_string();
            let args = [&["run", problem, "--h", "0.01", "--steps", steps, "--every", "10000", "--quiet"][..], extra];
            geomint(tmp.path(), &[&args.concat()[..], &["--out", &out]].concat())
        };
        assert_success(&run("plain", "1000000", &[]), "plain");
        assert_success(&run("comp", "1000000", &["--compensated", "--checkpoint-every", "150000"]), "compensated");
        let (plain, comp) = (roundoff::measure(&dir("plain")).unwrap(), roundoff::measure(&dir("comp")).unwrap());
        assert!(comp.compensated && !plain.compensated);
        let last = |m: &roundoff::Measurement, e: &[f64]| m.max_up_to(e, 1_000_000);
        let (ps, cs) = (last(&plain, &plain.state_error), last(&comp, &comp.state_error));
        let (pe, ce) = (last(&plain, &plain.energy_error), last(&comp, &comp.energy_error));
        println!("{problem}: state round-off {ps:.3e} plain, {cs:.3e} compensated; energy {pe:.3e}, {ce:.3e}");
        assert!(ps > 1e-14 && pe > 1e-14, "{problem}: the plain run shows no round-off ({ps:e}, {pe:e})");
        assert!(cs < ps / 10.0, "{problem}: state round-off {cs:e} compensated, {ps:e} plain");
        assert!(ce < pe / 10.0, "{problem}: energy round-off {ce:e} compensated, {pe:e} plain");
        // Kepler's angular momentum, which the method conserves exactly: its change is round-off
        assert_eq!(plain.momentum_error.is_empty(), problem != "kepler");
        if problem == "kepler" {
            let (pl, cl) = (last(&plain, &plain.momentum_error), last(&comp, &comp.momentum_error));
            assert!(pl > 1e-14 && cl < pl / 10.0, "angular momentum round-off {cl:e} compensated, {pl:e} plain");
        }
        // the energy error of the method (bounded O(h²) oscillation) dwarfs both, and is the
        // same in both runs up to their round-off
        let energy = |d: &Path| read_json(&d.join("summary.json"))["quantities"][0]["max_error"].as_f64().unwrap();
        let (ep, ec) = (energy(&dir("plain")), energy(&dir("comp")));
        assert!(ep > 1e3 * pe && (ep - ec).abs() < 10.0 * (ps + pe), "{problem}: energy errors {ep:e}, {ec:e}");

        // recorded, and resumed bit for bit with its carries
        let summary = read_json(&dir("comp").join("summary.json"));
        assert_eq!(
            (summary["compensated"].as_bool(), summary["method"].as_str()),
            (Some(true), Some("stormer-verlet"))
        );
        assert!(read(&dir("comp").join("config.toml")).lines().any(|l| l == "compensated = true"));
        let cp = checkpoint(&dir("comp"));
        assert_eq!(cp["run"]["compensated"], true);
        let n = if problem == "kepler" { 2 } else { 1 };
        let state = cp["run"]["state"].as_array().expect("state");
        assert_eq!(state.len(), 4 * n, "{problem}: q, p and their carries");
        assert!(state[2 * n..].iter().any(|w| w != "0000000000000000"), "{problem}: the carries are zero");
        assert_success(&run("half", "400000", &["--compensated", "--checkpoint-every", "150000"]), "first part");
        let half = dir("half").display().to_string();
        assert_success(&geomint(tmp.path(), &["resume", &half, "--steps", "1000000", "--quiet"]), "resume");
        assert_same_run(&dir("comp"), &dir("half"), &format!("{problem}: compensated, resumed"));
        assert!(read(&dir("plain").join("trajectory.csv")) != read(&dir("comp").join("trajectory.csv")));
        let config = dir("comp").join("config.toml").display().to_string();
        let replay = dir("replay").display().to_string();
        assert_success(&geomint(tmp.path(), &["run", "--config", &config, "--quiet", "--out", &replay]), "replay");
        assert_same_run(&dir("comp"), &dir("replay"), &format!("{problem}: compensated, replayed"));
    }
    // only where an increment exists: one error line each, nothing written
    for (args, needle) in [
        (vec!["run", "kepler", "--method", "yoshida6", "--compensated"], "stormer-verlet, "),
        (vec!["run", "rigid-body", "--compensated"], "canonical"),
    ] {
        let out = tmp.join("refused").display().to_string();
        let line = assert_error(
            &geomint(tmp.path(), &[&args[..], &["--steps", "10", "--quiet", "--out", &out]].concat()),
            2,
            needle,
        );
        assert!(line.contains(needle), "{line}");
        assert!(!tmp.join("refused").exists());
    }
}

/// A checkpoint of format 1 (before compensated runs and the run section), whose groupoid state was not saved
/// (`"state": null`), is still read: the run is replayed from its initial data and resumed to
/// the uninterrupted run's bits.
#[test]
fn a_format_1_checkpoint_without_a_state_is_replayed() {
    let tmp = TempDir::new("format-1");
    let (whole, part) = (tmp.join("whole"), tmp.join("part"));
    let common = ["--every", "7", "--checkpoint-every", "100", "--quiet"];
    let run = |steps: &str, out: &Path| {
        geomint(
            tmp.path(),
            &[&["run", "spherical-pendulum", "--steps", steps][..], &common, &["--out", out.to_str().unwrap()]]
                .concat(),
        )
    };
    assert_success(&run("400", &whole), "whole");
    assert_success(&run("200", &part), "part");
    // rewrite the checkpoint as format 1 wrote it: the run's fields at the top level, no
    // `compensated`, no state, its own checksum
    let mut payload = checkpoint(&part);
    let map = payload.as_object_mut().unwrap();
    let run = map.remove("run").expect("a run section");
    for key in ["h", "every", "step", "t"] {
        map.insert(key.into(), run[key].clone());
    }
    map.insert("state".into(), Value::Null);
    let body = serde_json::to_string_pretty(&payload).unwrap();
    let mut hash = geomint::workbench::checkpoint::Fnv1a::new();
    hash.write(body.as_bytes());
    let text = format!(
        "{{\"magic\": \"geomint-checkpoint\", \"format\": 1, \"geomint\": \"{}\", \"fnv1a64\": \"{:016x}\",\n\"payload\": {body}}}\n",
        env!("CARGO_PKG_VERSION"),
        hash.finish()
    );
    std::fs::write(part.join("checkpoint.json"), text).unwrap();
    let p = part.display().to_string();
    assert_success(&geomint(tmp.path(), &["resume", &p, "--steps", "400", "--quiet"]), "resume of format 1");
    assert_same_run(&whole, &part, "format 1, replayed");
    let cp = read(&part.join("checkpoint.json"));
    assert!(cp.contains("\"format\": 3") && !checkpoint(&part)["run"]["state"].is_null(), "not rewritten as format 3");
}

/// A `checkpoint.json` that is a FIFO (a read would block forever) or a link to `/dev/zero` (a
/// read would never end) is refused at once with a "cannot read" error, exit 1, and the run
/// directory is left as it was.
#[test]
fn resume_refuses_a_fifo_or_an_endless_file_as_checkpoint() {
    let tmp = TempDir::new("hostile-checkpoint");
    for (kind, make) in [
        (
            "fifo",
            &(|p: &Path| Command::new("mkfifo").arg(p).status().expect("mkfifo").success()) as &dyn Fn(&Path) -> bool,
        ),
        ("dev-zero", &|p: &Path| std::os::unix::fs::symlink("/dev/zero", p).is_ok()),
    ] {
        let dir = tmp.join(kind);
        let dir_s = dir.display().to_string();
        assert_success(&geomint(tmp.path(), &["run", "kepler", "--steps", "100", "--quiet", "--out", &dir_s]), "run");
        let cp = dir.join("checkpoint.json");
        std::fs::remove_file(&cp).unwrap();
        assert!(make(&cp), "{kind}: cannot make the file");
        let mut child = Command::new(env!("CARGO_BIN_EXE_geomint"))
            .args(["resume", &dir_s, "--steps", "200", "--quiet"])
            .current_dir(tmp.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn resume");
        let status = wait_with_deadline(&mut child, Duration::from_secs(20), kind);
        let out = child.wait_with_output().unwrap();
        assert_eq!(status.code(), Some(1), "{kind}: {}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains("cannot read") && stderr.contains("not a regular file"), "{kind}: {stderr}");
    }
}
