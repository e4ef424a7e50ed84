//! Charts `τ: g → G` as a trait, so that a user's chart reaches every method built on one.
//!
//! A chart is a local diffeomorphism from the Lie algebra to the group with `τ(0) = e` and
//! `τ(−x) = τ(x)^{-1}` (Bou-Rabee & Marsden, *Hamilton–Pontryagin integrators on Lie groups*,
//! 2009, arXiv:0801.0996, §2; docs/math.md §D.2), given with its **right-trivialized** derivative
//!
//! ```text
//!   dτ_x y = (D τ(x) · y) τ(x)^{-1},        dτ^{-1}_x = (dτ_x)^{-1}
//! ```
//!
//! (the convention of [`LieGroup::dtau`], docs/math.md §0.4). The exponential map and the
//! Cayley map ([`Chart`]) are the two shipped charts; a user's chart — canonical coordinates of
//! the second kind, a diagonal Padé approximant of `exp`, … — implements [`GroupChart`] for its
//! group at every scalar (`impl<S: Scalar> GroupChart<S, So3, 3> for MyChart`) and is accepted
//! wherever a method is generic over the chart (the Hamilton–Pontryagin and RKMK integrators,
//! the Lie-group retraction). [`check_chart`] validates one numerically; methods call it once
//! at construction, so a chart that fails its own identities is a typed error, not a wrong
//! integrator.

use super::{Chart, LieGroup};
use crate::{GeomError, Result, Scalar};
use core::fmt;
use nalgebra::{SMatrix, SVector};

/// A chart `τ: g → G` of the group `G` at scalar `S` (module documentation): `τ(0) = e`,
/// `τ(−x) = τ(x)^{-1}`, and its right-trivialized derivative `dτ` and inverse `dτ^{-1}`.
pub trait GroupChart<S: Scalar, G: LieGroup<S, D> + ?Sized, const D: usize>: fmt::Debug + Copy + Send + Sync {
    /// Lower-case name used in method names, e.g. `"exp"`, `"cayley"`.
    fn name(&self) -> String;
    /// `τ(x)`.
    fn tau(&self, group: &G, x: &SVector<S, D>) -> Result<G::Element>;
    /// `τ^{-1}(g)` (an error outside the chart's domain).
    fn tau_inv(&self, group: &G, g: &G::Element) -> Result<SVector<S, D>>;
    /// Right-trivialized `dτ_x`: column `j` is `(∂τ/∂x_j) τ(x)^{-1}` in `g ≅ R^D`.
    fn dtau(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>>;
    /// `dτ^{-1}_x = (dτ_x)^{-1}` (default: the LU inverse of [`dtau`](Self::dtau); override
    /// with a closed form where one exists).
    fn dtau_inv(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        crate::linalg::invert(&self.dtau(group, x)?, "chart derivative dtau")
    }
    /// `g τ(x)`.
    fn compose_tau(&self, group: &G, g: &G::Element, x: &SVector<S, D>) -> Result<G::Element> {
        Ok(group.compose(g, &self.tau(group, x)?))
    }
    /// The shipped chart this is, if it is one (methods then use their closed forms for it).
    fn builtin(&self) -> Option<Chart> {
        None
    }
}

/// The shipped charts dispatch to the group's own formulas ([`LieGroup::tau`] and friends),
/// always inlined: a method generic over the chart compiles, for `Chart`, to the call of the
/// group's formula it made before charts were a trait (the groupoid DEL flow measured 20% slower
/// with plain `#[inline]`).
impl<S: Scalar, G: LieGroup<S, D> + ?Sized, const D: usize> GroupChart<S, G, D> for Chart {
    fn name(&self) -> String {
        Chart::name(*self).to_string()
    }
    #[inline(always)]
    fn tau(&self, group: &G, x: &SVector<S, D>) -> Result<G::Element> {
        group.tau(*self, x)
    }
    #[inline(always)]
    fn tau_inv(&self, group: &G, g: &G::Element) -> Result<SVector<S, D>> {
        group.tau_inv(*self, g)
    }
    #[inline(always)]
    fn dtau(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        group.dtau(*self, x)
    }
    #[inline(always)]
    fn dtau_inv(&self, group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        group.dtau_inv(*self, x)
    }
    #[inline(always)]
    fn compose_tau(&self, group: &G, g: &G::Element, x: &SVector<S, D>) -> Result<G::Element> {
        group.compose_tau(*self, g, x)
    }
    #[inline(always)]
    fn builtin(&self) -> Option<Chart> {
        Some(*self)
    }
}

/// What [`check_chart`] measured (largest defects over its sample points).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChartReport {
    /// `|log(τ(−x) τ(x))|`: the chart must satisfy `τ(−x) = τ(x)^{-1}`.
    pub inverse_symmetry: f64,
    /// `|τ^{-1}(τ(x)) − x|`.
    pub round_trip: f64,
    /// `|dτ_x − (central differences of τ, right-trivialized)|_∞`.
    pub derivative: f64,
    /// `|dτ_x dτ^{-1}_x − I|_∞`.
    pub inverse_derivative: f64,
}

/// Tolerances of [`check_chart`]: identities at `1e-10`, the derivative against central
/// differences (step `1e-5`) at `1e-7`.
pub const CHART_IDENTITY_TOL: f64 = 1e-10;
/// See [`CHART_IDENTITY_TOL`].
pub const CHART_DERIVATIVE_TOL: f64 = 1e-7;

/// Check a chart at `f64` at a few points of norm `0.02 .. 0.5` (module documentation):
/// `τ(0) = e`, `τ(−x) = τ(x)^{-1}`, `τ^{-1}(τ(x)) = x`, `dτ_x` against central differences of
/// `τ` (right-trivialized through `log`), and `dτ_x dτ^{-1}_x = I`. Returns the measured
/// defects, or [`GeomError::InvalidParameter`] (`what = "chart"`) naming the first identity that
/// fails.
///
/// ```
/// use geom_core::lie::{Chart, So3, check_chart};
/// let report = check_chart(&So3, &Chart::Cayley)?;
/// assert!(report.derivative < 1e-8);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn check_chart<G, C, const D: usize>(group: &G, chart: &C) -> Result<ChartReport>
where
    G: LieGroup<f64, D> + ?Sized,
    C: GroupChart<f64, G, D>,
{
    let fail = |reason: String| GeomError::InvalidParameter { what: "chart", reason };
    let name = chart.name();
    let dist = |a: &G::Element, b: &G::Element| -> f64 {
        match group.log(&group.compose(&group.inverse(a), b)) {
            Ok(v) => v.amax(),
            Err(_) => f64::INFINITY,
        }
    };
    let e = chart.tau(group, &SVector::zeros())?;
    let at_zero = dist(&e, &group.identity());
    if at_zero.is_nan() || at_zero > CHART_IDENTITY_TOL {
        return Err(fail(format!("{name}: tau(0) is not the identity (defect {at_zero:e})")));
    }
    let mut report = ChartReport { inverse_symmetry: 0.0, round_trip: 0.0, derivative: 0.0, inverse_derivative: 0.0 };
    let samples: [f64; 3] = [0.02, 0.2, 0.5];
    for (k, &size) in samples.iter().enumerate() {
        // a deterministic direction with every component nonzero
        let x = SVector::<f64, D>::from_fn(|i, _| ((i + 1) as f64 * (1.3 + k as f64)).sin() + 0.1) * size;
        let t = chart.tau(group, &x)?;
        let t_minus = chart.tau(group, &(-x))?;
        report.inverse_symmetry = report.inverse_symmetry.max(dist(&group.inverse(&t), &t_minus));
        report.round_trip = report.round_trip.max((chart.tau_inv(group, &t)? - x).amax());
        let dtau = chart.dtau(group, &x)?;
        let t_inv = group.inverse(&t);
        let eps = 1e-5;
        for j in 0..D {
            let mut step = SVector::<f64, D>::zeros();
            step[j] = eps;
            let plus = group.log(&group.compose(&chart.tau(group, &(x + step))?, &t_inv))?;
            let minus = group.log(&group.compose(&chart.tau(group, &(x - step))?, &t_inv))?;
            let column = (plus - minus) / (2.0 * eps);
            report.derivative = report.derivative.max((column - dtau.column(j)).amax());
        }
        let product = dtau * chart.dtau_inv(group, &x)?;
        report.inverse_derivative = report.inverse_derivative.max((product - SMatrix::<f64, D, D>::identity()).amax());
    }
    let checks = [
        (report.inverse_symmetry, CHART_IDENTITY_TOL, "tau(-x) is not tau(x)^-1"),
        (report.round_trip, CHART_IDENTITY_TOL, "tau_inv(tau(x)) is not x"),
        (report.derivative, CHART_DERIVATIVE_TOL, "dtau does not match the derivative of tau (right-trivialized)"),
        (report.inverse_derivative, CHART_IDENTITY_TOL, "dtau_inv is not the inverse of dtau"),
    ];
    for (value, tol, what) in checks {
        if value.is_nan() || value > tol {
            return Err(fail(format!("{name}: {what} (defect {value:e}, tolerance {tol:e})")));
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lie::{Se3, So3};

    #[test]
    fn shipped_charts_pass_and_a_wrong_derivative_fails() {
        for chart in [Chart::Exp, Chart::Cayley] {
            check_chart(&So3, &chart).unwrap();
            check_chart(&Se3, &chart).unwrap();
        }
        /// Cayley with the left-trivialized derivative in place of the right-trivialized one.
        #[derive(Debug, Clone, Copy)]
        struct LeftCayley;
        impl GroupChart<f64, So3, 3> for LeftCayley {
            fn name(&self) -> String {
                "left-cayley".into()
            }
            fn tau(&self, g: &So3, x: &SVector<f64, 3>) -> Result<nalgebra::Matrix3<f64>> {
                g.cayley(x)
            }
            fn tau_inv(&self, g: &So3, r: &nalgebra::Matrix3<f64>) -> Result<SVector<f64, 3>> {
                g.cayley_inv(r)
            }
            fn dtau(&self, g: &So3, x: &SVector<f64, 3>) -> Result<SMatrix<f64, 3, 3>> {
                g.dcay(&(-x))
            }
        }
        let err = check_chart(&So3, &LeftCayley).unwrap_err();
        assert!(err.to_string().contains("dtau does not match"), "{err}");
    }
}
