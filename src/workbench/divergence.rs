//! Divergence: a run whose monitored invariants have lost all accuracy.
//!
//! A monitored quantity has *diverged* when its error is not finite (NaN or infinite), or when
//! it is a conserved quantity measured relatively (an energy, a momentum or a Casimir with
//! `Q0 ≠ 0`, [`Quantity::error`]) and its relative error has reached [`THRESHOLD`], 1: then
//! `|Q − Q0| ≥ |Q0|`, and not one digit of `Q` is left. The errors of constraints, of the
//! distance from a group and of quantities with `Q0 = 0` are absolute and have no scale, so only
//! a non-finite one counts.
//!
//! `geomint run`, `resume` and `ensemble` exit with a status of their own for a diverged run
//! (docs/workbench.md); the threshold of their warnings, `--max-error`, is a separate setting.

use crate::workbench::experiment::RunResult;
use crate::workbench::problem::{Kind, Quantity, norm};

/// The relative error at or above which a conserved quantity has lost all its digits.
pub const THRESHOLD: f64 = 1.0;

/// A monitored quantity that diverged, with its error.
#[derive(Debug, Clone, PartialEq)]
pub struct Divergence {
    /// The quantity's name, e.g. `energy`.
    pub quantity: &'static str,
    /// Its largest error (NaN if some error was NaN).
    pub error: f64,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} error {:.3e}", self.quantity, self.error)
    }
}

/// Whether the error `error` of quantity `q`, whose initial value is `q0`, means that it
/// diverged ([module docs](self)).
pub fn diverged(q: &Quantity, q0: &[f64], error: f64) -> bool {
    !error.is_finite() || (q.kind != Kind::Constraint && norm(q0) > 0.0 && error >= THRESHOLD)
}

/// The quantities of `quantities` that diverged, in their order: `v0` holds their initial
/// values (all components, one quantity after the other, as [`RunResult::samples`]) and `errors`
/// one error per quantity (its largest, or NaN if one was NaN).
pub fn of_errors(quantities: &[Quantity], v0: &[f64], errors: &[f64]) -> Vec<Divergence> {
    let mut k = 0;
    let mut out = Vec::new();
    for (q, &e) in quantities.iter().zip(errors) {
        let q0 = v0.get(k..k + q.dim).unwrap_or(&[]);
        k += q.dim;
        if diverged(q, q0, e) {
            out.push(Divergence { quantity: q.name, error: e });
        }
    }
    out
}

/// The largest error of each quantity of `r` over its samples, NaN where one of them is NaN
/// ([`RunResult::max_error`] skips NaNs).
pub fn largest_errors(r: &RunResult) -> Vec<f64> {
    (0..r.quantities.len())
        .map(|i| if r.samples.iter().any(|s| s.errors[i].is_nan()) { f64::NAN } else { r.max_error(i) })
        .collect()
}

/// The quantities of run `r` that diverged ([module docs](self)), in the order monitored.
pub fn of_run(r: &RunResult) -> Vec<Divergence> {
    let v0 = r.samples.first().map(|s| s.values.as_slice()).unwrap_or(&[]);
    of_errors(&r.quantities, v0, &largest_errors(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENERGY: Quantity = Quantity::new("energy", Kind::Energy, 1, "H");
    const MOMENTUM: Quantity = Quantity::new("J", Kind::Momentum, 2, "J");
    const CONSTRAINT: Quantity = Quantity::new("constraint", Kind::Constraint, 1, "φ");

    #[test]
    fn relative_errors_diverge_at_one_absolute_ones_only_when_not_finite() {
        assert!(!diverged(&ENERGY, &[-0.5], 0.999));
        assert!(diverged(&ENERGY, &[-0.5], 1.0));
        assert!(diverged(&ENERGY, &[-0.5], f64::INFINITY));
        assert!(diverged(&ENERGY, &[-0.5], f64::NAN));
        // Q0 = 0: the error is absolute, with no scale
        assert!(!diverged(&MOMENTUM, &[0.0, 0.0], 1e6));
        assert!(diverged(&MOMENTUM, &[0.0, 0.0], f64::NAN));
        assert!(!diverged(&CONSTRAINT, &[0.0], 5.0));
        assert!(diverged(&CONSTRAINT, &[0.0], f64::INFINITY));
    }

    #[test]
    fn of_errors_names_each_diverged_quantity_in_order() {
        let qs = [ENERGY, MOMENTUM, CONSTRAINT];
        let v0 = [-0.5, 0.3, 0.4, 0.0];
        assert!(of_errors(&qs, &v0, &[0.5, 1e-3, 2.0]).is_empty());
        let d = of_errors(&qs, &v0, &[3e30, 2.0, f64::NAN]);
        let names: Vec<&str> = d.iter().map(|d| d.quantity).collect();
        assert_eq!(names, ["energy", "J", "constraint"]);
        assert_eq!(d[0].to_string(), "energy error 3.000e30");
        assert!(d[2].error.is_nan());
    }
}
