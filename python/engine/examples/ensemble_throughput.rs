//! The Rust side of `python/bench/ensemble_throughput.py`: the same Kepler ensemble as the
//! script's, through the same engine function that `geomint.ensemble` calls, timed in-process
//! (no Python anywhere). Prints one JSON line.
//!
//! ```text
//! cargo run --release -p geomint-engine --example ensemble_throughput -- \
//!     [--members 10000] [--steps 1000] [--h 0.01] [--method stormer-verlet] [--repeat 5] [--threads T]
//! ```
//!
//! Member `i` of `M` is Kepler's orbit of eccentricity `e_i = 0.1 + 0.8 i / M` from
//! perihelion, `(1 − e_i, 0, 0, √((1 + e_i)/(1 − e_i)))`; the checksum is the plain
//! left-to-right sum of all final coordinates, which the script recomputes from Python's result.

use geomint_engine::{System, ensemble};
use std::time::Instant;

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let members: usize = arg(&args, "--members", 10_000);
    let steps: usize = arg(&args, "--steps", 1000);
    let h: f64 = arg(&args, "--h", 0.01);
    let repeat: usize = arg(&args, "--repeat", 5).max(1);
    let method: String = arg(&args, "--method", "stormer-verlet".to_string());
    let threads: usize = arg(&args, "--threads", 0);
    let threads = (threads > 0).then_some(threads);

    let mut states = Vec::with_capacity(4 * members);
    for i in 0..members {
        let e = 0.1 + 0.8 * i as f64 / members as f64;
        states.extend([1.0 - e, 0.0, 0.0, ((1.0 + e) / (1.0 - e)).sqrt()]);
    }
    let system = System::catalogue("kepler", &[])?;
    // one untimed call first (thread pool, page faults), as the script does for Python
    ensemble(&system, Some(&method), Some(h), Some(steps), &states, &[members, 4], None, threads, None)?;
    let mut seconds = Vec::with_capacity(repeat);
    let mut checksum = 0.0;
    for _ in 0..repeat {
        let t0 = Instant::now();
        let out = ensemble(&system, Some(&method), Some(h), Some(steps), &states, &[members, 4], None, threads, None)?;
        seconds.push(t0.elapsed().as_secs_f64());
        checksum = out.states.iter().sum::<f64>();
    }
    let mut sorted = seconds.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let list: Vec<String> = seconds.iter().map(|s| format!("{s:.6}")).collect();
    println!(
        "{{\"members\": {members}, \"steps\": {steps}, \"h\": {h}, \"method\": \"{method}\", \"threads\": {}, \
         \"rayon_threads\": {}, \"seconds\": [{}], \"median\": {median:.6}, \"best\": {:.6}, \"checksum\": {checksum:?}}}",
        threads.unwrap_or(0),
        threads.unwrap_or_else(rayon::current_num_threads),
        list.join(", "),
        sorted[0]
    );
    Ok(())
}
