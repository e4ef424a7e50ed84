//! The round-off of long Störmer–Verlet runs of the `geomint` command line, measured against
//! the same runs in double-double arithmetic (`geomint::workbench::roundoff`).
//!
//! ```sh
//! geomint run harmonic-oscillator --h 0.01 --steps 100000000 --every 10000 --out runs/ho-naive
//! geomint run harmonic-oscillator --h 0.01 --steps 100000000 --every 10000 --compensated --out runs/ho-comp
//! cargo run --release --example roundoff -- runs/ho-naive runs/ho-comp
//! ```
//!
//! For each run directory (harmonic oscillator or Kepler, `stormer-verlet`) it prints, at steps
//! 10^4, 10^5, … up to the run's length, the largest state error `|y_k − y_k^dd|`, the largest
//! energy round-off and (Kepler) the largest angular-momentum round-off up to that step, the
//! exponents `a` of `error ∝ steps^a` fitted to them
//! (least squares in log–log), the run's largest energy error (the method's bounded `O(h²)`
//! oscillation plus round-off) and wall time from its `summary.json`, and how long the
//! double-double reference took.

use geomint::workbench::roundoff::{self, Measurement};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let dirs: Vec<String> = std::env::args().skip(1).collect();
    if dirs.is_empty() {
        eprintln!("usage: roundoff RUN_DIR [RUN_DIR …]  (runs of stormer-verlet on harmonic-oscillator or kepler)");
        return ExitCode::from(2);
    }
    for dir in &dirs {
        let start = Instant::now();
        let m = match roundoff::measure(Path::new(dir)) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        report(dir, &m, start.elapsed().as_secs_f64());
    }
    ExitCode::SUCCESS
}

/// The summary's largest energy error and wall time.
fn summary(dir: &str) -> (f64, f64) {
    let text = std::fs::read_to_string(Path::new(dir).join("summary.json")).unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let energy = v["quantities"]
        .as_array()
        .and_then(|q| q.iter().find(|q| q["name"] == "energy"))
        .and_then(|q| q["max_error"].as_f64())
        .unwrap_or(f64::NAN);
    (energy, v["wall_seconds"].as_f64().unwrap_or(f64::NAN))
}

fn report(dir: &str, m: &Measurement, reference_seconds: f64) {
    let (energy, wall) = summary(dir);
    let last = m.steps.last().copied().unwrap_or(0);
    println!(
        "{dir}: {} stormer-verlet, h = {}, {}, {last} steps in {wall:.2} s; largest energy error {energy:.3e}; \
         double-double reference {reference_seconds:.1} s",
        m.problem,
        m.h,
        if m.compensated { "compensated" } else { "naive" },
    );
    let with_l = !m.momentum_error.is_empty();
    let l_head = if with_l { format!(" {:>16}", "L round-off") } else { String::new() };
    println!("  {:>12} {:>14} {:>16}{l_head}", "steps", "state error", "energy round-off");
    let (mut states, mut energies, mut momenta) = (Vec::new(), Vec::new(), Vec::new());
    let mut n = 10_000;
    while n <= last {
        let (s, e) = (m.max_up_to(&m.state_error, n), m.max_up_to(&m.energy_error, n));
        let l = with_l.then(|| m.max_up_to(&m.momentum_error, n));
        println!("  {n:>12} {s:>14.3e} {e:>16.3e}{}", l.map_or(String::new(), |l| format!(" {l:>16.3e}")));
        states.push((n as f64, s));
        energies.push((n as f64, e));
        momenta.extend(l.map(|l| (n as f64, l)));
        n *= 10;
    }
    let fmt = |a: Option<f64>| a.map_or("-".to_string(), |a| format!("{a:.2}"));
    println!(
        "  fitted exponent (error ∝ steps^a): state {}, energy {}{}",
        fmt(roundoff::fitted_exponent(&states)),
        fmt(roundoff::fitted_exponent(&energies)),
        if with_l { format!(", L {}", fmt(roundoff::fitted_exponent(&momenta))) } else { String::new() }
    );
}
