//! Newton on `B` blocks of `R^N` (the stages of a Runge–Kutta method, the unknowns of a
//! cotangent-lift step), with a Jacobian carried over between solves.

use super::iteration::{Blocks, Space, newton_loop, newton_loop_from};
use super::options::{JacobianUpdate, NewtonOptions, NewtonReport, StopCriterion};
use crate::linalg::{BlockLu, BlockMatrix, BlockVector};
use crate::{Result, Scalar};
use nalgebra::{SMatrix, SVector};
use num_dual::DualSVec64;

/// A residual on `B` blocks of size `N`, `F: (R^N)^B -> (R^N)^B`, generic over the scalar so
/// that [`newton_blocks_ad`] can differentiate it. This is the form of every implicit integrator
/// whose unknowns are several vectors (the stages of a Runge–Kutta method, the
/// `(q, p, q_1, p_1)` of a cotangent-lift step): `B·N` is not a const-generic size on stable Rust.
pub trait BlockResidual<const N: usize, const B: usize> {
    /// `F(x)`.
    fn eval<S: Scalar>(&self, x: &BlockVector<S, N, B>) -> Result<BlockVector<S, N, B>>;
}

impl<R: BlockResidual<N, B> + ?Sized, const N: usize, const B: usize> BlockResidual<N, B> for &R {
    #[inline]
    fn eval<S: Scalar>(&self, x: &BlockVector<S, N, B>) -> Result<BlockVector<S, N, B>> {
        (**self).eval(x)
    }
}

/// `(F(x), DF(x))` of a block residual with the exact Jacobian by forward AD: one
/// `DualSVec64<N>` evaluation per block column (`B` evaluations), see [`block_jacobian`].
#[inline]
pub fn ad_block_jacobian<R: BlockResidual<N, B> + ?Sized, const N: usize, const B: usize>(
    res: &R,
    x: &BlockVector<f64, N, B>,
) -> Result<(BlockVector<f64, N, B>, BlockMatrix<f64, N, B>)> {
    block_jacobian(x, |xd| res.eval(xd))
}

/// `(F(x), DF(x))` for a block function given at the dual type `DualSVec64<N>`: block column
/// `J` is read off one evaluation with block `J` seeded by the identity and the others constant.
/// Use it when the residual cannot be a [`BlockResidual`] (e.g. it evaluates a Lie group that is
/// only known to implement `LieGroup<DualSVec64<N>, D>`, not every scalar).
#[allow(clippy::needless_range_loop)] // `col` seeds one block of the input and fills one block column
#[inline]
pub fn block_jacobian<const N: usize, const B: usize>(
    x: &BlockVector<f64, N, B>,
    f: impl Fn(&BlockVector<DualSVec64<N>, N, B>) -> Result<BlockVector<DualSVec64<N>, N, B>>,
) -> Result<(BlockVector<f64, N, B>, BlockMatrix<f64, N, B>)> {
    let mut jac = [[SMatrix::<f64, N, N>::zeros(); B]; B];
    let mut value = [SVector::<f64, N>::zeros(); B];
    for col in 0..B {
        let xd: BlockVector<DualSVec64<N>, N, B> = core::array::from_fn(|b| {
            if b == col {
                SVector::from_fn(|i, _| {
                    let mut d = DualSVec64::<N>::from_re(x[b][i]);
                    d.eps = num_dual::Derivative::derivative_generic(nalgebra::Const::<N>, nalgebra::U1, i);
                    d
                })
            } else {
                x[b].map(DualSVec64::from_re)
            }
        });
        let fd = f(&xd)?;
        for (row, fr) in fd.iter().enumerate() {
            if col == 0 {
                value[row] = fr.map(|v| v.re);
            }
            for i in 0..N {
                let grad = fr[i].eps.unwrap_generic(nalgebra::Const::<N>, nalgebra::U1);
                for j in 0..N {
                    jac[row][col][(i, j)] = grad[j];
                }
            }
        }
    }
    Ok((value, jac))
}

/// Solve a block system `F(x) = 0`, `x ∈ (R^N)^B`, by Newton's method with the caller's block
/// Jacobian: `eval(x, Some(J))` returns `F(x)` and fills `J[I][J] = ∂F_I/∂x_J`; `eval(x, None)`
/// returns `F(x)` only. Same iteration, convergence tests and errors as [`newton`](super::newton); the block
/// Jacobian is factored by [`BlockLu`] on the stack (no allocation).
///
/// ```
/// use geom_core::newton::{newton_blocks, NewtonOptions};
/// use nalgebra::{SMatrix, SVector};
///
/// // two scalar blocks: x^2 + y^2 = 4, x y = 1
/// let f = |x: &[SVector<f64, 1>; 2], jac: Option<&mut [[SMatrix<f64, 1, 1>; 2]; 2]>| {
///     let (a, b) = (x[0][0], x[1][0]);
///     if let Some(j) = jac {
///         *j = [[SMatrix::from([[2.0 * a]]), SMatrix::from([[2.0 * b]])], [SMatrix::from([[b]]), SMatrix::from([[a]])]];
///     }
///     Ok([SVector::from([a * a + b * b - 4.0]), SVector::from([a * b - 1.0])])
/// };
/// let (x, _) = newton_blocks(f, &[SVector::from([2.0]), SVector::from([0.5])], &NewtonOptions::default())?;
/// assert!((x[0][0] * x[1][0] - 1.0).abs() < 1e-12);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[inline]
pub fn newton_blocks<const N: usize, const B: usize>(
    eval: impl FnMut(&BlockVector<f64, N, B>, Option<&mut BlockMatrix<f64, N, B>>) -> Result<BlockVector<f64, N, B>>,
    x0: &BlockVector<f64, N, B>,
    opts: &NewtonOptions,
) -> Result<(BlockVector<f64, N, B>, NewtonReport)> {
    newton_loop::<Blocks<N, B>>(
        eval,
        None::<fn(&BlockVector<f64, N, B>, &mut BlockMatrix<f64, N, B>) -> Result<()>>,
        x0,
        opts,
    )
}

/// A factored block Jacobian carried from one Newton solve into the next
/// ([`newton_blocks_carried`]): in a sequence of nearby solves (the steps of an integrator) a
/// simplified Newton iteration can start from the previous solve's Jacobian instead of
/// evaluating a new one, which is the expensive part when the Jacobian is a second derivative
/// by AD. Empty until a solve has factored one.
#[derive(Debug, Clone, Copy)]
pub struct CarriedJacobian<const N: usize, const B: usize> {
    lu: BlockLu<f64, N, B>,
    valid: bool,
}

impl<const N: usize, const B: usize> CarriedJacobian<N, B> {
    /// No factorization yet: the next solve evaluates a Jacobian.
    pub fn new() -> Self {
        Self { lu: BlockLu::empty(), valid: false }
    }
    /// Whether a factorization is carried.
    pub fn is_valid(&self) -> bool {
        self.valid
    }
    /// Drop the carried factorization (the next solve evaluates a Jacobian).
    pub fn invalidate(&mut self) {
        self.valid = false;
    }
}

impl<const N: usize, const B: usize> Default for CarriedJacobian<N, B> {
    fn default() -> Self {
        Self::new()
    }
}

/// [`newton_blocks`] starting from the Jacobian `carried` over from an earlier solve. With
/// [`JacobianUpdate::Frozen`](super::JacobianUpdate::Frozen) and a carried factorization, no Jacobian is evaluated until the
/// iteration contracts slowly (`θ >` [`FROZEN_REFRESH_THETA`](super::FROZEN_REFRESH_THETA), as in every frozen solve); with
/// [`JacobianUpdate::EveryIteration`] the carried one is not used. On success `carried` holds
/// the last factored Jacobian (for the next solve) and the report counts the Jacobians this
/// solve evaluated (0 if the carried one sufficed); on an error it is emptied. The root is the
/// same as that of [`newton_blocks`] (the residual is unchanged; the Jacobian only steers the
/// iteration), to the tolerances.
#[inline]
pub fn newton_blocks_carried<const N: usize, const B: usize>(
    eval: impl FnMut(&BlockVector<f64, N, B>, Option<&mut BlockMatrix<f64, N, B>>) -> Result<BlockVector<f64, N, B>>,
    x0: &BlockVector<f64, N, B>,
    opts: &NewtonOptions,
    carried: &mut CarriedJacobian<N, B>,
) -> Result<(BlockVector<f64, N, B>, NewtonReport)> {
    let mut eval = eval;
    let mut factored = carried.valid && opts.jacobian == JacobianUpdate::Frozen;
    carried.valid = false;
    let (x, report) = newton_loop_from::<Blocks<N, B>>(
        &mut eval,
        None::<fn(&BlockVector<f64, N, B>, &mut BlockMatrix<f64, N, B>) -> Result<()>>,
        x0,
        opts,
        &mut carried.lu,
        &mut factored,
    )?;
    carried.valid = factored;
    // With a carried Jacobian the iteration converges linearly, and the step test accepts an
    // iterate one contraction away from the root: polish it as the residual test's (one more
    // residual).
    if opts.polish
        && factored
        && report.jacobian_updates == 0
        && report.criterion == StopCriterion::Step
        && let Ok(f) = eval(&x, None)
    {
        let mut polished = x;
        Blocks::<N, B>::add(&mut polished, &Blocks::<N, B>::step(&carried.lu, &f));
        if Blocks::<N, B>::scan(&polished).0 {
            return Ok((polished, report));
        }
    }
    Ok((x, report))
}

/// [`newton_blocks`] with the exact block Jacobian of `res` by forward AD
/// ([`ad_block_jacobian`]); with [`JacobianUpdate::Frozen`](super::JacobianUpdate::Frozen) the reusing iterations evaluate `res`
/// at `f64` only.
#[inline]
pub fn newton_blocks_ad<R: BlockResidual<N, B> + ?Sized, const N: usize, const B: usize>(
    res: &R,
    x0: &BlockVector<f64, N, B>,
    opts: &NewtonOptions,
) -> Result<(BlockVector<f64, N, B>, NewtonReport)> {
    newton_blocks(
        |x, jac| match jac {
            Some(out) => {
                let (fx, j) = ad_block_jacobian(res, x)?;
                *out = j;
                Ok(fx)
            }
            None => res.eval::<f64>(x),
        },
        x0,
        opts,
    )
}
