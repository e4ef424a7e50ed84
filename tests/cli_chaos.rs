//! `geomint poincare` and `geomint chaos` end to end (child processes, each in a fresh temporary
//! directory), and the workbench's [`geomint::workbench::chaos`] tools they are built on.

use crate::support::TempDir;
use geomint::workbench::WorkbenchError;
use geomint::workbench::catalogue;
use geomint::workbench::chaos::{self, Section};
use geomint::workbench::methods;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

fn geomint(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_geomint")).args(args).current_dir(cwd).output().expect("run geomint")
}

/// `geomint args` in a child with 4 GB of address space and 60 s (the hostile cases: a bound that
/// regressed must fail the test, not exhaust the shared machine or hang it).
fn geomint_limited(cwd: &Path, args: &[&str]) -> Output {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{}'", a.replace('\'', "'\\''"))).collect();
    let script = format!("ulimit -v 4000000; exec timeout 60 '{}' {}", env!("CARGO_BIN_EXE_geomint"), quoted.join(" "));
    Command::new("sh").args(["-c", &script]).current_dir(cwd).output().expect("run geomint under limits")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
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

/// Exit status 2 and one `error:` line on stderr that contains `needle`.
fn assert_input_error(out: &Output, needle: &str, what: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: exit status; stderr:\n{err}\nstdout:\n{}", text(&out.stdout));
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: one stderr line expected, got {lines:?}");
    assert!(lines[0].starts_with("error:") && lines[0].contains(needle), "{what}: {lines:?} lacks '{needle}'");
    assert!(!err.contains("panicked"), "{what}: {err}");
}

/// The Hénon–Heiles energy `H = |p|²/2 + (x² + y²)/2 + x²y − y³/3`, written out independently of
/// the catalogue.
fn henon_heiles(x: f64, y: f64, px: f64, py: f64) -> f64 {
    0.5 * (px * px + py * py) + 0.5 * (x * x + y * y) + x * x * y - y * y * y / 3.0
}

/// A state on the section `x = 0` at energy `e`: `(0, y, p_x, 0)` with `p_x > 0` from `H = e`.
fn on_section(e: f64, y: f64) -> String {
    let px = (2.0 * (e - henon_heiles(0.0, y, 0.0, 0.0))).sqrt();
    assert!((henon_heiles(0.0, y, px, 0.0) - e).abs() < 1e-15);
    format!("0,{y},{px},0")
}

/// The rows of a CSV with a header: the header's names and the rows as strings.
fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let body = std::fs::read_to_string(path).expect("read csv");
    let mut lines = body.lines();
    let head = lines.next().expect("header").split(',').map(str::to_string).collect();
    (head, lines.map(|l| l.split(',').map(str::to_string).collect()).collect())
}

fn column(head: &[String], name: &str) -> usize {
    head.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name} in {head:?}"))
}

/// The first `count` crossings of the section of Hénon–Heiles at `x = 0`, `p_x > 0` from a state
/// at `E = 1/12` with `method` at `h = 0.01`: their `(x, p_x, H − E)` and the summary.
fn section_at_twelfth(method: &str, count: usize) -> (Vec<(f64, f64, f64)>, String) {
    let dir = TempDir::new("poincare-hh");
    let state = on_section(1.0 / 12.0, 0.1);
    let count = count.to_string();
    let out = geomint(
        dir.path(),
        &[
            "--quiet",
            "poincare",
            "henon-heiles",
            "--method",
            method,
            "--h",
            "0.01",
            "--crossings",
            &count,
            "--state",
            &state,
            "--out",
            &dir.arg("out"),
        ],
    );
    assert_success(&out, "poincare henon-heiles");
    let (head, rows) = csv(&dir.join("out/section.csv"));
    let (x, y, px, py, e, de) = (
        column(&head, "q1"),
        column(&head, "q2"),
        column(&head, "p1"),
        column(&head, "p2"),
        column(&head, "energy"),
        column(&head, "energy_error"),
    );
    let svg = std::fs::read_to_string(dir.join("out/section.svg")).expect("section.svg");
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "section.svg is not an SVG document");
    assert!(svg.matches("<circle").count() >= rows.len(), "section.svg has fewer dots than crossings");
    let f = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().expect("a number") };
    let got = rows
        .iter()
        .map(|r| {
            let h = henon_heiles(f(r, x), f(r, y), f(r, px), f(r, py));
            // the energy columns agree with the energy of the state written
            assert!((f(r, e) - h).abs() < 1e-15 && (f(r, de) - (h - 1.0 / 12.0)).abs() < 1e-15, "{r:?}");
            (f(r, x), f(r, px), h - 1.0 / 12.0)
        })
        .collect();
    (got, text(&out.stdout))
}

#[test]
fn a_henon_heiles_section_is_located_to_round_off_on_the_energy_level() {
    // measured: max |H − 1/12| = 9.6e-7 over 60 crossings (t = 374)
    let (crossings, summary) = section_at_twelfth("stormer-verlet", 60);
    assert_eq!(crossings.len(), 60, "{summary}");
    for &(x, px, de) in &crossings {
        assert!(x.abs() <= 1e-12, "x = {x:e} at a crossing");
        assert!(px > 0.0, "p_x = {px} at an upward crossing of x = 0");
        assert!(de.abs() < 1e-4, "energy error {de:e} at a crossing (Störmer–Verlet, h = 0.01)");
    }
    for needle in ["henon-heiles", "stormer-verlet", "h = 0.01", "60 of 60", "q1 = 0", "max |H − H(x0)|", "(q2, p2)"]
    {
        assert!(summary.contains(needle), "summary lacks '{needle}':\n{summary}");
    }
}

/// The energy bound above is a real check: explicit Euler at the same step drifts off the level
/// by far more within 5 crossings (measured 3.4e-2; it escapes before 20), and still locates
/// its crossings on the section.
#[test]
fn the_section_energy_error_of_explicit_euler_exceeds_the_bound() {
    let (crossings, _) = section_at_twelfth("explicit-euler", 5);
    assert_eq!(crossings.len(), 5);
    assert!(crossings.iter().all(|c| c.0.abs() <= 1e-12 && c.1 > 0.0));
    let worst = crossings.iter().map(|c| c.2.abs()).fold(0.0, f64::max);
    assert!(worst > 1e-3, "explicit Euler's energy error at the crossings is only {worst:e}");
}

/// `--states K`: K orbits started on the section at the energy of the given state, each
/// crossing on the section and on that level.
#[test]
fn several_orbits_start_on_the_section_at_one_energy() {
    let dir = TempDir::new("poincare-states");
    let state = on_section(1.0 / 12.0, 0.1);
    let out = geomint(
        dir.path(),
        &[
            "--quiet",
            "poincare",
            "henon-heiles",
            "--h",
            "0.01",
            "--crossings",
            "20",
            "--states",
            "5",
            "--state",
            &state,
            "--out",
            &dir.arg("out"),
        ],
    );
    assert_success(&out, "poincare --states 5");
    let (head, rows) = csv(&dir.join("out/section.csv"));
    let (o, x, y, px, py) =
        (column(&head, "orbit"), column(&head, "q1"), column(&head, "q2"), column(&head, "p1"), column(&head, "p2"));
    let f = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().expect("a number") };
    let orbits: std::collections::BTreeSet<&str> = rows.iter().map(|r| r[o].as_str()).collect();
    assert_eq!(orbits.len(), 5, "{orbits:?}");
    assert_eq!(rows.len(), 100);
    for r in &rows {
        let de = henon_heiles(f(r, x), f(r, y), f(r, px), f(r, py)) - 1.0 / 12.0;
        assert!(f(r, x).abs() <= 1e-12 && f(r, px) > 0.0 && de.abs() < 1e-4, "{r:?}: H − 1/12 = {de:e}");
    }
    // the orbits differ: their first crossings are at different y
    let first_y: std::collections::BTreeSet<String> =
        rows.iter().filter(|r| r[column(&head, "crossing")] == "0").map(|r| r[y].clone()).collect();
    assert_eq!(first_y.len(), 5);
}

#[test]
fn poincare_refuses_bad_flags_with_one_line_naming_the_flag() {
    let dir = TempDir::new("poincare-bad");
    let out = dir.arg("out");
    let cases: [(&[&str], &str); 12] = [
        (&["poincare", "henon-heiles", "--states", "0"], "--states"),
        (&["poincare", "henon-heiles", "--states", "3", "--section", "p1=0"], "--states"),
        (&["poincare", "henon-heiles", "--section", "z=0"], "--section"),
        (&["poincare", "henon-heiles", "--section", "q1"], "--section"),
        (&["poincare", "henon-heiles", "--crossings", "0"], "--crossings"),
        (&["poincare", "henon-heiles", "--direction", "sideways"], "--direction"),
        (&["poincare", "henon-heiles", "--h", "0"], "--h"),
        (&["poincare", "spherical-pendulum"], "without Poincaré sections or MEGNO maps"),
        (&["poincare", "henon-heiles", "--crossings", "1000000000000000"], "--crossings"),
        (&["poincare", "henon-heiles", "--t-max", "1e300"], "--t-max"),
        (&["poincare", "henon-heiles", "--states", "100000000000"], "--states"),
        (&["poincare", "henon-heiles", "--states", "1000", "--crossings", "100000"], "--crossings"),
    ];
    for (args, needle) in cases {
        let mut all = vec!["--quiet"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--out", &out]);
        assert_input_error(&geomint_limited(dir.path(), &all), needle, &format!("{args:?}"));
        assert!(!dir.join("out/section.csv").exists(), "{args:?} wrote files");
    }
}

/// `section` and `direction` parse, and the parse refuses what it should.
#[test]
fn a_section_parses_from_a_coordinate_of_the_state() {
    let labels: Vec<String> = ["q1", "q2", "p1", "p2"].iter().map(|s| s.to_string()).collect();
    let s = Section::parse("p2=-0.5", "down", &labels).expect("parse");
    assert_eq!((s.index, s.level, s.direction), (3, -0.5, integrators::events::Direction::Falling));
    assert!(Section::parse("q3=0", "up", &labels).is_err());
    assert!(Section::parse("q1=nan", "up", &labels).is_err());
    assert!(Section::parse("q1=x", "up", &labels).is_err());
}

/// ⟨Y⟩ of one Hénon–Heiles orbit started on `x = 0` at `(y, p_y)` with energy `e`, through the
/// workbench's tools (the map's grid solver puts it on the level).
fn megno_at(e: f64, y: f64, py: f64, t_end: f64) -> (f64, f64) {
    let problem = catalogue::problem("henon-heiles", &[]).expect("henon-heiles");
    let space = problem.phase_space().expect("canonical");
    let grid = chaos::energy_grid(space, &[0.0, 0.0, 0.0, 0.0], (1, 3), ((y, y), (py, py)), (1, 1), Some((2, e)));
    let state = grid[0].state.clone().expect("on the level");
    assert!((space.energy(&state).expect("energy") - e).abs() < 1e-14 && state[2] > 0.0 && state[0] == 0.0);
    let h = 0.05;
    let sv = methods::find("stormer-verlet").expect("registered");
    let v = space.megno(sv, h, (t_end / h) as usize, &[state], None).expect("megno")[0].expect("finite");
    (v.mean, v.lyapunov)
}

#[test]
fn megno_tells_a_regular_orbit_from_a_chaotic_one() {
    // measured at t = 1000 (h = 0.05): 1.92 on the torus through (y, p_y) = (0.1, 0) at E = 1/12
    // (smaller orbits approach 2 more slowly: 1.56 at E = 0.01), 61.6 and λ = 0.12 at
    // (−0.15, 0.05) in the chaotic sea at E = 1/6
    let (regular, _) = megno_at(1.0 / 12.0, 0.1, 0.0, 1000.0);
    assert!((regular - 2.0).abs() < 0.25, "⟨Y⟩ = {regular} on a regular orbit at E = 1/12");
    let (chaotic, lyapunov) = megno_at(1.0 / 6.0, -0.15, 0.05, 1000.0);
    assert!(chaotic > 4.0, "⟨Y⟩ = {chaotic} on an orbit of the chaotic sea at E = 1/6");
    assert!(lyapunov > 0.01, "λ = {lyapunov} on a chaotic orbit");
}

#[test]
fn solve_momentum_puts_a_state_on_the_level_or_refuses() {
    let problem = catalogue::problem("henon-heiles", &[]).expect("henon-heiles");
    let space = problem.phase_space().expect("canonical");
    let p = chaos::solve_momentum(space, &[0.0, 0.3, 0.0, 0.1], 2, 0.1).expect("reachable");
    assert!((henon_heiles(0.0, 0.3, p, 0.1) - 0.1).abs() < 1e-15 && p > 0.0);
    // H(0, 0.3, 0, 0.1) = 0.041 > 0.01: no real p_x
    assert_eq!(chaos::solve_momentum(space, &[0.0, 0.3, 0.0, 0.1], 2, 0.01), None);
}

/// At `E = 1/8` the section is about half regular, half chaotic (measured on this 8 × 6 grid at
/// t = 300: 18 of 38 points with ⟨Y⟩ < 2.5).
#[test]
fn chaos_writes_a_map_with_regular_and_chaotic_points_at_one_eighth() {
    let dir = TempDir::new("chaos-hh");
    let out = geomint(
        dir.path(),
        &[
            "--quiet",
            "chaos",
            "henon-heiles",
            "--h",
            "0.05",
            "--t-end",
            "300",
            "--grid",
            "8x6",
            "--energy",
            "0.125",
            "--threads",
            "2",
            "--out",
            &dir.arg("out"),
        ],
    );
    assert_success(&out, "chaos henon-heiles");
    let summary = text(&out.stdout);
    for needle in ["regular, ⟨Y⟩ < 2.5", "chaotic, ⟨Y⟩ ≥ 2.5", "largest Lyapunov estimate", "q1 = 0"] {
        assert!(summary.contains(needle), "summary lacks '{needle}':\n{summary}");
    }
    let (head, rows) = csv(&dir.join("out/chaos.csv"));
    assert_eq!(rows.len(), 48);
    let m = column(&head, "megno");
    let values: Vec<f64> = rows.iter().filter_map(|r| r[m].parse().ok()).collect();
    assert!(values.len() >= 24, "only {} of 48 points on the level", values.len());
    assert!(values.iter().any(|&v| v < 2.5) && values.iter().any(|&v| v > 4.0), "{values:?}");
    let svg = std::fs::read_to_string(dir.join("out/chaos.svg")).expect("chaos.svg");
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.matches("<rect").count() >= 48, "one cell per grid point");
}

#[test]
fn chaos_refuses_bad_flags_with_one_line_naming_the_flag() {
    let dir = TempDir::new("chaos-bad");
    let out = dir.arg("out");
    let cases: [(&[&str], &str); 9] = [
        (&["chaos", "henon-heiles", "--grid", "0x4"], "--grid"),
        (&["chaos", "henon-heiles", "--grid", "4by4"], "--grid"),
        (&["chaos", "henon-heiles", "--range", "1:0,0:1"], "--range"),
        (&["chaos", "henon-heiles", "--threads", "0"], "--threads"),
        (&["chaos", "henon-heiles", "--t-end", "-1"], "--t-end"),
        (&["chaos", "harmonic-oscillator", "--energy", "1"], "--energy"),
        (&["chaos", "henon-heiles", "--grid", "100000x100000"], "--grid"),
        (&["chaos", "heavy-top", "--grid", "18446744073709551615x2"], "--grid"),
        (&["chaos", "heavy-top", "--t-end", "1e300"], "--t-end"),
    ];
    for (args, needle) in cases {
        let mut all = vec!["--quiet"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--out", &out]);
        assert_input_error(&geomint_limited(dir.path(), &all), needle, &format!("{args:?}"));
    }
}

/// A user's Hamiltonian in a system file reaches `poincare` and `chaos`: the shipped
/// `examples/systems/henon_heiles.toml` (formulas, its own coordinate names) gives the catalogue's
/// crossings to round-off, and a chaos map; a Lie-group system file gives the catalogue's map of
/// the same top; a Lagrangian system file is refused with one line naming what the commands take.
#[test]
fn a_system_file_reaches_the_poincare_and_chaos_commands() {
    let dir = TempDir::new("poincare-system");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/systems/henon_heiles.toml");
    let file = file.to_str().expect("a UTF-8 path");
    let state = on_section(1.0 / 12.0, 0.1);
    let common = ["--h", "0.01", "--crossings", "20", "--state", &state];
    let user = geomint(
        dir.path(),
        &[
            &["--quiet", "poincare", "--system", file, "--section", "x=0"][..],
            &common[..],
            &["--out", &dir.arg("user")],
        ]
        .concat(),
    );
    assert_success(&user, "poincare --system");
    let builtin = geomint(
        dir.path(),
        &[&["--quiet", "poincare", "henon-heiles"][..], &common[..], &["--out", &dir.arg("builtin")]].concat(),
    );
    assert_success(&builtin, "poincare henon-heiles");
    let (uh, ur) = csv(&dir.join("user/section.csv"));
    let (bh, br) = csv(&dir.join("builtin/section.csv"));
    assert_eq!(ur.len(), 20);
    assert_eq!(ur.len(), br.len());
    let f = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().expect("a number") };
    for (u, b) in ur.iter().zip(&br) {
        for (a, c) in [("t", "t"), ("y", "q2"), ("py", "p2")] {
            let (x, z) = (f(u, column(&uh, a)), f(b, column(&bh, c)));
            assert!((x - z).abs() <= 1e-10, "{a}: {x} against the catalogue's {z}");
        }
    }
    let chaos = geomint(
        dir.path(),
        &["--quiet", "chaos", "--system", file, "--grid", "3x3", "--t-end", "20", "--out", &dir.arg("chaos")],
    );
    assert_success(&chaos, "chaos --system");
    let (head, rows) = csv(&dir.join("chaos/chaos.csv"));
    assert!(head.contains(&"megno".to_string()) && !rows.is_empty(), "{head:?}");
    // a system on a Lie group gives the catalogue's map of the same top
    let lie = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/systems/heavy_top.toml");
    let args = ["--grid", "3x3", "--t-end", "20", "--out"];
    let file_map = geomint(
        dir.path(),
        &[&["--quiet", "chaos", "--system", lie.to_str().unwrap()][..], &args[..], &[&dir.arg("lie")]].concat(),
    );
    assert_success(&file_map, "chaos --system heavy_top.toml");
    let builtin =
        geomint(dir.path(), &[&["--quiet", "chaos", "heavy-top"][..], &args[..], &[&dir.arg("top")]].concat());
    assert_success(&builtin, "chaos heavy-top");
    let ((_, fr), (_, br)) = (csv(&dir.join("lie/chaos.csv")), csv(&dir.join("top/chaos.csv")));
    assert_eq!(fr.len(), 9);
    let mut compared = 0;
    for (a, b) in fr.iter().zip(&br) {
        if let (Ok(x), Ok(y)) = (a[2].parse::<f64>(), b[2].parse::<f64>()) {
            assert!((x - y).abs() <= 1e-6 * x.abs(), "⟨Y⟩ {x} of the file against the catalogue's {y}");
            compared += 1;
        }
    }
    assert!(compared >= 3, "{fr:?}");
    // a Lagrangian system file has no phase space
    let lagrangian = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/systems/kepler_lagrangian.toml");
    let out = geomint(dir.path(), &["chaos", "--system", lagrangian.to_str().unwrap(), "--out", &dir.arg("lag")]);
    assert_input_error(&out, "--system FILE.toml", "a Lagrangian system file");
}

/// The heavy top's energy `E = ½ Π·I⁻¹Π + mgl (Rχ)·e3` (`I = diag(2, 2.5, 1)`, `mgl = 1`,
/// `χ ∝ (0.1, 0, 1)`), written out independently of the catalogue, from a row of section.csv.
fn heavy_top_energy(head: &[String], row: &[String]) -> f64 {
    let f = |name: &str| -> f64 { row[column(head, name)].parse().expect("a number") };
    let chi = [0.1, 0.0, 1.0].map(|c: f64| c / 1.01f64.sqrt());
    let kinetic = 0.5 * (f("Pi1").powi(2) / 2.0 + f("Pi2").powi(2) / 2.5 + f("Pi3").powi(2));
    kinetic + f("R31") * chi[0] + f("R32") * chi[1] + f("R33") * chi[2]
}

/// `geomint poincare` on `T*SO(3)`: the heavy top's section `Π₁ = 0` under HP Störmer–Verlet is
/// met to round-off by states on the group, with the energy of the method's own orbit (the
/// energy column agrees with the energy written out here); the system file of the same top gives
/// the same crossings; the vehicle on `T*SE(3)` too; `--states` is refused on a group.
#[test]
fn poincare_sections_on_a_lie_group() {
    let dir = TempDir::new("poincare-lie");
    let run = |args: &[&str], out: &str| {
        let target = dir.arg(out);
        let all = [&["--quiet", "poincare"][..], args, &["--crossings", "40", "--out", &target]].concat();
        let o = geomint(dir.path(), &all);
        assert_success(&o, &format!("{args:?}"));
        (csv(&dir.join(&format!("{out}/section.csv"))), text(&o.stdout))
    };
    let ((head, rows), summary) = run(&["heavy-top", "--section", "Pi1=0", "--method", "hp-sv"], "top");
    assert_eq!(rows.len(), 40, "{summary}");
    let f = |r: &Vec<String>, name: &str| -> f64 { r[column(&head, name)].parse().expect("a number") };
    let e0 = heavy_top_energy(&head, &rows[0]) - f(&rows[0], "energy_error");
    let mut worst: f64 = 0.0;
    for r in &rows {
        assert!(f(r, "Pi1").abs() <= 1e-14, "Pi1 = {} at a crossing", f(r, "Pi1"));
        let rot = nalgebra::Matrix3::from_fn(|i, j| f(r, &format!("R{}{}", i + 1, j + 1)));
        assert!((rot.transpose() * rot - nalgebra::Matrix3::identity()).amax() < 1e-13, "R off SO(3): {rot}");
        let e = heavy_top_energy(&head, r);
        assert!((e - f(r, "energy")).abs() < 1e-13, "energy column {} against {e}", f(r, "energy"));
        worst = worst.max((e - e0).abs());
    }
    // measured 1.5e-4 (h = 0.01); an orbit off the method's, or the wrong sign of the potential, is not
    assert!(worst < 1e-3, "energy error {worst:e} at the crossings");
    for needle in ["heavy-top", "hp-sv", "40 of 40", "Pi1 = 0", "(Pi2, Pi3)"] {
        assert!(summary.contains(needle), "summary lacks '{needle}':\n{summary}");
    }

    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/systems/heavy_top.toml");
    let ((fh, fr), _) = run(&["--system", file.to_str().unwrap(), "--section", "Pi1=0", "--method", "hp-sv"], "file");
    for (a, b) in rows.iter().zip(&fr) {
        for name in ["t", "Pi2", "Pi3", "R33"] {
            let (x, y) = (f(a, name), b[column(&fh, name)].parse::<f64>().unwrap());
            assert!((x - y).abs() <= 1e-9 * (1.0 + x.abs()), "{name}: system file {y} against the catalogue's {x}");
        }
    }

    let ((vh, vr), summary) = run(&["underwater-vehicle", "--section", "mu1=0"], "vehicle");
    assert_eq!(vr.len(), 40, "{summary}");
    let scale = vr.iter().map(|r| r[column(&vh, "mu5")].parse::<f64>().unwrap().abs()).fold(1.0, f64::max);
    for r in &vr {
        let mu1: f64 = r[column(&vh, "mu1")].parse().unwrap();
        assert!(mu1.abs() <= 1e-13 * scale, "mu1 = {mu1} at a crossing");
    }
    assert!(summary.contains("(mu2, mu3)"), "{summary}");

    let out = geomint(dir.path(), &["poincare", "heavy-top", "--states", "3", "--out", &dir.arg("states")]);
    assert_input_error(&out, "--states", "--states on a Lie group");
}

/// `geomint chaos` on `T*SO(3)`: the map over `(Π₂, Π₃)` at the initial attitude with `Π₁ ≥ 0`
/// from the energy puts every orbit on the level; the free rigid body is integrable, so every
/// orbit is regular (`⟨Y⟩ → 2`), while the heavy top's map at the same settings has chaotic
/// orbits (the negative control: a map that called everything regular would fail it).
#[test]
fn chaos_maps_on_a_lie_group() {
    let dir = TempDir::new("chaos-lie");
    let map = |problem: &str| {
        let target = dir.arg(problem);
        let args = ["--quiet", "chaos", problem, "--grid", "4x4", "--t-end", "200", "--out", &target];
        let o = geomint(dir.path(), &args);
        assert_success(&o, problem);
        let (head, rows) = csv(&dir.join(&format!("{problem}/chaos.csv")));
        assert_eq!(&head[..4], &["Pi2", "Pi3", "megno", "lyapunov"], "{head:?}");
        (head, rows, text(&o.stdout))
    };
    let values = |rows: &[Vec<String>]| -> Vec<f64> {
        rows.iter().filter_map(|r| r[2].parse::<f64>().ok()).collect::<Vec<f64>>()
    };

    let (head, rows, summary) = map("rigid-body");
    let body = catalogue::problem("rigid-body", &[]).expect("rigid-body");
    let space = body.phase_space().expect("a phase space on T*SO(3)");
    let e0 = space.energy(&body.initial_state().unwrap()).unwrap();
    let x0 = body.initial_state().unwrap();
    let mut on_level = 0;
    for r in rows.iter().filter(|r| !r[2].is_empty()) {
        let x: Vec<f64> = r[4..].iter().map(|v| v.parse().expect("a number")).collect();
        assert!(x[..9] == x0[..9], "the attitude must be the initial one: {x:?}");
        assert!(x[column(&head, "Pi1") - 4] >= 0.0, "Pi1 < 0: {x:?}");
        let e = space.energy(&x).unwrap();
        assert!((e - e0).abs() <= 1e-12 * e0.abs(), "H = {e} off the level {e0}");
        on_level += 1;
    }
    let body_values = values(&rows);
    assert!(on_level >= 8 && body_values.len() == on_level, "{summary}");
    // measured: 2.06 at most
    assert!(body_values.iter().all(|&y| y > 1.5 && y < 2.5), "free rigid body: {body_values:?}");
    assert!(summary.contains("MEGNO map over (Pi2, Pi3)") && summary.contains("Pi1 ≥ 0 from H"), "{summary}");

    let (_, rows, summary) = map("heavy-top");
    let top_values = values(&rows);
    // measured: ⟨Y⟩ up to 20 at t = 200 on a 6 × 6 grid
    assert!(top_values.iter().any(|&y| y > 5.0), "heavy top: no chaotic orbit in {top_values:?}\n{summary}");

    let out = geomint(dir.path(), &["chaos", "rigid-body", "--energy", "-1", "--out", &dir.arg("low")]);
    assert_input_error(&out, "energy", "an energy below the map's plane");
}

/// The chunks of [`chaos::CHUNK`] steps change nothing: the workbench's MEGNO of an orbit of
/// `2.5 · CHUNK + 7` steps equals one [`Megno::advance`] over all of them, bit for bit; its
/// Poincaré crossings over several chunks are those of one call of `poincare_section`, the states
/// bit for bit and the times to round-off.
///
/// [`Megno::advance`]: geomint::integrators::variational_equations::Megno::advance
#[test]
fn the_chunks_of_the_chaos_tools_give_the_one_call_values() {
    use geomint::geom_core::step::PhaseState;
    use geomint::integrators::classical::{HamiltonianField, StormerVerlet};
    use geomint::integrators::events::{Direction, Event, EventRunner, poincare_section};
    use geomint::integrators::variational_equations::Megno;
    use geomint::workbench::catalogue::canonical::CanonicalSystem;
    use nalgebra::Vector2;
    let problem = catalogue::problem("henon-heiles", &[]).expect("henon-heiles");
    let space = problem.phase_space().expect("canonical");
    let sv = methods::find("stormer-verlet").expect("registered");
    let (h, steps) = (0.05, 5 * chaos::CHUNK / 2 + 7);
    let state = [0.0, -0.15, (2.0 * (1.0 / 6.0 - henon_heiles(0.0, -0.15, 0.0, 0.05))).sqrt(), 0.05];
    let v = space.megno(sv, h, steps, &[state.to_vec()], None).expect("megno")[0].expect("finite");
    let x = PhaseState::new(Vector2::new(state[0], state[1]), Vector2::new(state[2], state[3]));
    let ham = catalogue::canonical::HenonHeiles.hamiltonian();
    let delta = PhaseState::new(Vector2::repeat(1.0), Vector2::repeat(1.0));
    let mut m = Megno::new(x, delta, h).expect("megno");
    m.advance(&StormerVerlet::new(ham), steps).expect("advance");
    assert_eq!((v.mean.to_bits(), v.lyapunov.to_bits()), (m.mean().to_bits(), m.lyapunov().to_bits()));

    let labels = problem.state_labels();
    let section = Section::parse("q1=0", "up", &labels).expect("section");
    let found = space.section(sv, 0.01, &state, &section, 40, 10 * chaos::CHUNK, None).expect("section");
    let runner = EventRunner::new(StormerVerlet::new(ham), HamiltonianField(ham));
    let (mut y, mut t) = (x, 0.0);
    let event = Event::new(|s: &PhaseState<2>| s.q[0], Direction::Rising);
    let one = poincare_section(&runner, &mut y, &mut t, 0.01, event, 40, 10 * chaos::CHUNK).expect("one call");
    assert!(found.len() == one.len() && found.len() > 5, "{} and {} crossings", found.len(), one.len());
    assert!(found.last().expect("crossings").t > 0.01 * chaos::CHUNK as f64, "the crossings span one chunk only");
    for (a, b) in found.iter().zip(&one) {
        let bits = |s: &[f64]| s.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a.state), bits(&chaos::flat(&b.state)));
        assert!((a.t - b.t).abs() <= 1e-12 * b.t, "t = {} against {}", a.t, b.t);
    }
}

/// The chaos tools read their stop flag: set beforehand, nothing runs; set from another thread
/// 50 ms into a MEGNO map of hours, the map ends within a second with [`WorkbenchError::Stopped`].
#[test]
fn the_chaos_tools_stop_when_asked() {
    let problem = catalogue::problem("henon-heiles", &[]).expect("henon-heiles");
    let space = problem.phase_space().expect("canonical");
    let sv = methods::find("stormer-verlet").expect("registered");
    let state = vec![0.0, 0.1, 0.39, 0.0];
    let set = AtomicBool::new(true);
    let section = Section::parse("q1=0", "up", &problem.state_labels()).expect("section");
    assert!(matches!(space.section(sv, 0.01, &state, &section, 10, 100_000, Some(&set)), Err(WorkbenchError::Stopped)));
    assert!(matches!(
        space.megno(sv, 0.01, 100, std::slice::from_ref(&state), Some(&set)),
        Err(WorkbenchError::Stopped)
    ));
    let stop = AtomicBool::new(false);
    let t0 = Instant::now();
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(50));
            stop.store(true, Ordering::Relaxed);
        });
        space.megno(sv, 0.01, usize::MAX / 2, &vec![state.clone(); 4], Some(&stop))
    });
    assert!(matches!(result, Err(WorkbenchError::Stopped)), "{result:?}");
    assert!(t0.elapsed() < Duration::from_secs(1), "stopped after {:?}", t0.elapsed());
}

/// The canonical problems and those on a Lie group have a phase space, with their layouts; a
/// problem on a groupoid has none: the error names it, its family and the problems that have one.
#[test]
fn the_canonical_and_lie_group_problems_have_a_phase_space() {
    let pendulum = catalogue::problem("spherical-pendulum", &[]).expect("spherical-pendulum");
    let err =
        catalogue::phase_space(pendulum.as_ref(), "spherical-pendulum", "the tool", "a file").err().expect("refused");
    let msg = err.to_string();
    assert!(
        msg.contains("'spherical-pendulum' is a")
            && msg.contains("henon-heiles, ")
            && msg.contains("heavy-top")
            && msg.ends_with("or a file"),
        "{msg}"
    );
    assert!(!msg.contains("spherical-pendulum,"), "{msg}");
    let layout = |name: &str| {
        let p = catalogue::problem(name, &[]).expect(name);
        let space = catalogue::phase_space(p.as_ref(), name, "t", "o").expect("a phase space");
        (space.layout(), space.degrees_of_freedom(), space.layout().len() == p.state_labels().len())
    };
    assert_eq!(layout("henon-heiles"), (chaos::Layout::Canonical { n: 2 }, 2, true));
    assert_eq!(layout("heavy-top"), (chaos::Layout::Lie { m: 3, d: 3 }, 3, true));
    assert_eq!(layout("underwater-vehicle"), (chaos::Layout::Lie { m: 4, d: 6 }, 6, true));
}
