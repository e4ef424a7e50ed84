//! Shared helpers of the criterion benches: every bench times a reference in the same run and
//! prints the ratio `geomint / reference` read back from criterion's own estimates.

#![allow(dead_code)] // each bench uses part of the shared helpers

pub mod kepler;
pub mod ratio;
pub mod rigid;

use std::path::PathBuf;

/// The contraction-checked step test of `geom_core::newton`, for the hand-written references:
/// after a Newton step of size `step` (max norm), with `previous` the size of the step before
/// (updated here), accept when `θ = step/previous < 1` and `max(1, θ/(1−θ)) step <= tol (1 + |x|)`.
pub fn step_accepted(previous: &mut Option<f64>, step: f64, x_amax: f64, tol: f64) -> bool {
    let accepted = previous.is_some_and(|prev| {
        let theta = step / prev;
        theta < 1.0 && (theta / (1.0 - theta)).max(1.0) * step <= tol * (1.0 + x_amax)
    });
    *previous = Some(step);
    accepted
}

/// Mean time in ns of a finished criterion benchmark `group/id`, read from
/// `target/criterion/<group>/<id>/new/estimates.json`.
pub fn mean_ns(group: &str, id: &str) -> Option<f64> {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    let sanitize = |s: &str| s.replace(['/', ' ', '(', ')', '^'], "_");
    let path = dir.join("criterion").join(sanitize(group)).join(sanitize(id)).join("new").join("estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let start = text.find("\"mean\"")?;
    let rest = &text[start..];
    let key = "\"point_estimate\":";
    let at = rest.find(key)? + key.len();
    let end = rest[at..].find([',', '}'])?;
    rest[at..at + end].trim().parse().ok()
}

/// Print a table of `(label, group, id, reference id)` rows with ns/call and the ratio.
pub fn print_ratios(title: &str, rows: &[(&str, &str, &str, &str)]) {
    println!("\n{title}");
    println!("{:<28} {:>12} {:>12} {:>8}", "operation", "geomint ns", "reference ns", "ratio");
    for (label, group, id, reference) in rows {
        match (mean_ns(group, id), mean_ns(group, reference)) {
            (Some(a), Some(b)) => println!("{label:<28} {a:>12.2} {b:>12.2} {:>8.3}", a / b),
            (Some(a), None) => println!("{label:<28} {a:>12.2} {:>12} {:>8}", "-", "-"),
            _ => println!("{label:<28} (not measured)"),
        }
    }
}

/// The criterion configuration of every bench: 2 s of measurement after 0.5 s of warm-up.
pub fn config() -> criterion::Criterion {
    criterion::Criterion::default()
        .measurement_time(std::time::Duration::from_secs(2))
        .warm_up_time(std::time::Duration::from_millis(500))
}
