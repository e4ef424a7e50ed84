//! Newton on `R^n` with `n` known at run time (heap storage, nalgebra's LU).

use super::iteration::Monitor;
use super::options::{JACOBIAN, NewtonOptions, NewtonReport};
use crate::error::check_finite;
use crate::linalg::PIVOT_RTOL;
use crate::{GeomError, Result};
use nalgebra::{DMatrix, DVector, Dyn, LU};

/// Solve `F(x) = 0` for `x ∈ R^n` with `n` known at run time: `f(x)` returns `(F(x), J(x))`,
/// with `F` of length `n` and `J` of size `n × n` (else [`GeomError::DimensionMismatch`]), where
/// `n = x0.len()`. Same iteration, tests and errors as [`newton`](super::newton); the linear systems use
/// nalgebra's LU (allocating), with the same relative pivot threshold as [`crate::linalg`].
///
/// ```
/// use geom_core::newton::{newton_dyn, NewtonOptions};
/// use nalgebra::{DMatrix, DVector};
///
/// let f = |x: &DVector<f64>| {
///     let fx = DVector::from_vec(vec![x[0] * x[0] + x[1] * x[1] - 4.0, x[0] * x[1] - 1.0]);
///     let j = DMatrix::from_row_slice(2, 2, &[2.0 * x[0], 2.0 * x[1], x[1], x[0]]);
///     Ok((fx, j))
/// };
/// let (x, _) = newton_dyn(f, &DVector::from_vec(vec![2.0, 0.5]), &NewtonOptions::default())?;
/// assert!((x[0] * x[1] - 1.0).abs() < 1e-12);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn newton_dyn(
    mut f: impl FnMut(&DVector<f64>) -> Result<(DVector<f64>, DMatrix<f64>)>,
    x0: &DVector<f64>,
    opts: &NewtonOptions,
) -> Result<(DVector<f64>, NewtonReport)> {
    opts.validate()?;
    check_finite(x0.iter(), "Newton initial guess")?;
    let n = x0.len();
    let mut x = x0.clone();
    let mut lu: Option<LU<f64, Dyn, Dyn>> = None;
    let mut monitor = Monitor::new(opts);
    let mut k = 0;
    loop {
        let (fx, j) = f(&x)?;
        check_dims(&fx, &j, n)?;
        check_finite(fx.iter(), "Newton residual")?;
        let r = fx.amax();
        if let Some(done) = monitor.residual_test(k, r) {
            return done.map(|report| (x, report));
        }
        if monitor.wants_jacobian(lu.is_none()) {
            lu = Some(factor_dyn(j, k)?);
            monitor.jacobian_updates += 1;
        }
        let dx = match lu.as_ref().and_then(|lu| lu.solve(&fx)) {
            Some(mut dx) => {
                dx.neg_mut();
                dx
            }
            None => return Err(GeomError::SingularMatrix { what: JACOBIAN, iteration: k }),
        };
        x += &dx;
        check_finite(x.iter(), "Newton iterate")?;
        k += 1;
        if let Some(report) = monitor.step_test(k, r, dx.amax(), x.amax()) {
            return Ok((x, report));
        }
    }
}

pub(super) fn check_dims(fx: &DVector<f64>, j: &DMatrix<f64>, n: usize) -> Result<()> {
    let mismatch = |what, got| Err(GeomError::DimensionMismatch { what, expected: n, got });
    if fx.len() != n {
        mismatch("Newton residual", fx.len())
    } else if j.nrows() != n {
        mismatch("Newton Jacobian rows", j.nrows())
    } else if j.ncols() != n {
        mismatch("Newton Jacobian columns", j.ncols())
    } else {
        Ok(())
    }
}

/// nalgebra's LU of `j`, with the singularity test of [`Lu::factor`]: a pivot
/// `<= PIVOT_RTOL * max |J_ij|` (or an all-zero `J`) is singular.
pub(super) fn factor_dyn(j: DMatrix<f64>, iteration: usize) -> Result<LU<f64, Dyn, Dyn>> {
    check_finite(j.iter(), JACOBIAN)?;
    let scale = j.amax();
    let lu = j.lu();
    let singular = lu.u().diagonal().iter().any(|d| d.abs() <= PIVOT_RTOL * scale);
    if singular && !lu.u().is_empty() { Err(GeomError::SingularMatrix { what: JACOBIAN, iteration }) } else { Ok(lu) }
}
