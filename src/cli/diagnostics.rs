//! `diagnostics.svg` of a run: the error of each monitored quantity against time.

use crate::cli::format::short;
use geomint::workbench::experiment::RunResult;
use geomint::workbench::plot::{self, Axes, Marker, Series};

/// The axes of a run's `diagnostics.svg`: its problem, method and step in the title, time (with
/// the problem's unit, where it has one) against error.
pub(crate) fn diagnostics_axes(r: &RunResult) -> Axes {
    let unit = plot::time_unit(&r.problem);
    let h = unit.map_or(short(r.spec.h), |u| format!("{} {u}", short(r.spec.h)));
    Axes::new(format!("{} with {} (h = {h})", r.problem, r.method), "t", "error").x_unit(unit)
}

/// One series per quantity (and the solution error), labelled `PREFIX name`: in the panel
/// "relative error" for the conserved quantities with `Q0 ≠ 0`, else (constraints, `Q0 = 0`, the
/// solution) in the panel "absolute error"; one marker shape per quantity.
pub(crate) fn error_series(r: &RunResult, prefix: &str) -> Vec<Series> {
    const MARKERS: [Marker; 5] = [Marker::Circle, Marker::Square, Marker::Triangle, Marker::Diamond, Marker::Cross];
    let v0 = r.samples.first().map(|s| s.values.clone()).unwrap_or_default();
    let mut k = 0;
    let mut v: Vec<Series> = r
        .quantities
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let q0 = v0.get(k..k + q.dim).unwrap_or(&[]);
            k += q.dim;
            let relative =
                q.kind != geomint::workbench::problem::Kind::Constraint && geomint::workbench::problem::norm(q0) > 0.0;
            Series::new(format!("{prefix}{}", q.name), r.samples.iter().map(|s| (s.t, s.errors[i])).collect())
                .panel(if relative { "relative error" } else { "absolute error" })
                .marker(MARKERS[i % MARKERS.len()])
        })
        .collect();
    if r.max_solution_error().is_some() {
        let points = r.samples.iter().map(|s| (s.t, s.solution_error.unwrap_or(f64::NAN))).collect();
        let marker = MARKERS[r.quantities.len() % MARKERS.len()];
        v.push(Series::new(format!("{prefix}solution"), points).panel("absolute error").marker(marker));
    }
    v
}
