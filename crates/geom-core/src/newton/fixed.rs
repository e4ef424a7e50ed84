//! Newton on `R^N` with `N` fixed: the residual trait, AD Jacobians, the plain and the split
//! solvers.

use super::iteration::{Fixed, newton_loop};
use super::options::{NewtonOptions, NewtonReport};
use crate::{Result, Scalar};
use nalgebra::{SMatrix, SVector};
use num_dual::DualSVec64;

/// A residual `F: R^N -> R^N`, written once and generic over the scalar so that [`newton_ad`](super::newton_ad) can
/// differentiate it. Fallible: a residual that evaluates Lie-group maps (log, Cayley) returns
/// their errors, and [`newton_ad`](super::newton_ad) passes them on.
pub trait Residual<const N: usize> {
    /// `F(x)`.
    fn eval<S: Scalar>(&self, x: &SVector<S, N>) -> Result<SVector<S, N>>;
}

/// A reference to a residual is a residual.
impl<R: Residual<N> + ?Sized, const N: usize> Residual<N> for &R {
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, N>) -> Result<SVector<S, N>> {
        (**self).eval(x)
    }
}

/// `(F(x), DF(x))` with the Jacobian `DF[(i, j)] = ∂F_i/∂x_j` exact to round-off (one
/// `DualSVec64<N>` evaluation, `num_dual::jacobian`).
///
/// ```
/// use geom_core::newton::{ad_jacobian, Residual};
/// use geom_core::{Result, Scalar};
/// use nalgebra::SVector;
///
/// /// `F(x) = (x_0 x_1, sin x_0)`.
/// struct F;
/// impl Residual<2> for F {
///     fn eval<S: Scalar>(&self, x: &SVector<S, 2>) -> Result<SVector<S, 2>> {
///         Ok(SVector::from([x[0] * x[1], x[0].sin()]))
///     }
/// }
/// let (f, j) = ad_jacobian(&F, &SVector::from([2.0, 3.0]))?;
/// assert_eq!(f[0], 6.0);
/// assert_eq!((j[(0, 0)], j[(0, 1)], j[(1, 0)], j[(1, 1)]), (3.0, 2.0, 2.0f64.cos(), 0.0));
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[inline]
pub fn ad_jacobian<R: Residual<N> + ?Sized, const N: usize>(
    res: &R,
    x: &SVector<f64, N>,
) -> Result<(SVector<f64, N>, SMatrix<f64, N, N>)> {
    num_dual::jacobian(|xd: SVector<DualSVec64<N>, N>| res.eval(&xd), x)
}

/// Solve `F(x) = 0` by Newton's method from the warm start `x0`, with the caller's Jacobian:
/// `f(x)` returns `(F(x), J(x))`, `J[(i, j)] = ∂F_i/∂x_j`. Returns the root and a
/// [`NewtonReport`]; convergence tests and errors are stated in the [module documentation](crate::newton).
///
/// ```
/// use geom_core::newton::{newton, NewtonOptions};
/// use nalgebra::{SMatrix, SVector};
///
/// // x^2 + y^2 = 4, x y = 1
/// let f = |x: &SVector<f64, 2>| {
///     let fx = SVector::from([x[0] * x[0] + x[1] * x[1] - 4.0, x[0] * x[1] - 1.0]);
///     let j = SMatrix::<f64, 2, 2>::new(2.0 * x[0], 2.0 * x[1], x[1], x[0]);
///     Ok((fx, j))
/// };
/// let (x, report) = newton(f, &SVector::from([2.0, 0.5]), &NewtonOptions::default())?;
/// let xs = (2.0 + 3.0f64.sqrt()).sqrt();
/// assert!((x[0] - xs).abs() < 1e-14 && (x[1] - 1.0 / xs).abs() < 1e-14);
/// assert!(report.iterations <= 5);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[inline]
pub fn newton<const N: usize>(
    mut f: impl FnMut(&SVector<f64, N>) -> Result<(SVector<f64, N>, SMatrix<f64, N, N>)>,
    x0: &SVector<f64, N>,
    opts: &NewtonOptions,
) -> Result<(SVector<f64, N>, NewtonReport)> {
    newton_fixed(
        |x, jac| {
            let (fx, j) = f(x)?;
            if let Some(out) = jac {
                *out = j;
            }
            Ok(fx)
        },
        x0,
        opts,
    )
}

/// Solve `F(x) = 0` by Newton's method from `x0` with the exact Jacobian of `res` computed by
/// forward AD ([`ad_jacobian`]). With [`JacobianUpdate::Frozen`](super::JacobianUpdate::Frozen) the iterations that reuse the
/// Jacobian evaluate `res` at `f64` only. Convergence tests and errors as in [`newton`](super::newton); an error
/// of `res` is returned unchanged.
///
/// ```
/// use geom_core::newton::{newton_ad, NewtonOptions, Residual};
/// use geom_core::{Result, Scalar};
/// use nalgebra::SVector;
///
/// /// Kepler's equation `E - e sin E - M = 0` for `e = 0.5`, `M = 1`.
/// struct KeplerEquation;
/// impl Residual<1> for KeplerEquation {
///     fn eval<S: Scalar>(&self, x: &SVector<S, 1>) -> Result<SVector<S, 1>> {
///         Ok(SVector::from([x[0] - x[0].sin() * S::from(0.5) - S::from(1.0)]))
///     }
/// }
/// let (e, report) = newton_ad(&KeplerEquation, &SVector::from([1.0]), &NewtonOptions::default())?;
/// assert!((e[0] - 0.5 * e[0].sin() - 1.0).abs() <= 1e-12);
/// assert!(report.iterations <= 5);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[inline]
pub fn newton_ad<R: Residual<N> + ?Sized, const N: usize>(
    res: &R,
    x0: &SVector<f64, N>,
    opts: &NewtonOptions,
) -> Result<(SVector<f64, N>, NewtonReport)> {
    newton_fixed(
        |x, jac| match jac {
            Some(out) => {
                let (fx, j) = ad_jacobian(res, x)?;
                *out = j;
                Ok(fx)
            }
            None => res.eval::<f64>(x),
        },
        x0,
        opts,
    )
}

/// The fixed-size loop shared by [`newton`](super::newton) and [`newton_ad`](super::newton_ad). `eval(x, Some(jac))` returns
/// `F(x)` and writes `J(x)` into `jac`; `eval(x, None)` returns `F(x)` only.
#[inline]
pub(super) fn newton_fixed<const N: usize>(
    eval: impl FnMut(&SVector<f64, N>, Option<&mut SMatrix<f64, N, N>>) -> Result<SVector<f64, N>>,
    x0: &SVector<f64, N>,
    opts: &NewtonOptions,
) -> Result<(SVector<f64, N>, NewtonReport)> {
    newton_loop::<Fixed<N>>(eval, None::<fn(&SVector<f64, N>, &mut SMatrix<f64, N, N>) -> Result<()>>, x0, opts)
}

/// Solve `F(x) = 0` by Newton's method from `x0` with the residual and the caller's Jacobian as
/// two functions: `residual(x) = F(x)`, `jacobian(x) = J(x)`, `J[(i, j)] = ∂F_i/∂x_j`. The same
/// iteration, tests and errors as [`newton`](super::newton), but the Jacobian is evaluated only where a step
/// follows (not at the iterate that passes the residual test), which saves one Jacobian per
/// solve when it is not a by-product of the residual (closed forms; use [`newton`](super::newton) or
/// [`newton_ad`](super::newton_ad) when both come from one pass).
///
/// ```
/// use geom_core::newton::{newton_split, NewtonOptions};
/// use nalgebra::{SMatrix, SVector};
///
/// // x^2 + y^2 = 4, x y = 1
/// let f = |x: &SVector<f64, 2>| Ok(SVector::from([x[0] * x[0] + x[1] * x[1] - 4.0, x[0] * x[1] - 1.0]));
/// let j = |x: &SVector<f64, 2>| Ok(SMatrix::<f64, 2, 2>::new(2.0 * x[0], 2.0 * x[1], x[1], x[0]));
/// let (x, report) = newton_split(f, j, &SVector::from([2.0, 0.5]), &NewtonOptions::default())?;
/// let xs = (2.0 + 3.0f64.sqrt()).sqrt();
/// assert!((x[0] - xs).abs() < 1e-14 && (x[1] - 1.0 / xs).abs() < 1e-14);
/// assert_eq!(report.jacobian_updates, report.iterations);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[inline]
pub fn newton_split<const N: usize>(
    mut residual: impl FnMut(&SVector<f64, N>) -> Result<SVector<f64, N>>,
    mut jacobian: impl FnMut(&SVector<f64, N>) -> Result<SMatrix<f64, N, N>>,
    x0: &SVector<f64, N>,
    opts: &NewtonOptions,
) -> Result<(SVector<f64, N>, NewtonReport)> {
    newton_loop::<Fixed<N>>(
        |x, _| residual(x),
        Some(|x: &SVector<f64, N>, out: &mut SMatrix<f64, N, N>| {
            *out = jacobian(x)?;
            Ok(())
        }),
        x0,
        opts,
    )
}
