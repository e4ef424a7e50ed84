//! Fixed-size dense linear algebra on the stack: LU with partial pivoting for any `N`
//! (nalgebra's own LU needs typenum bounds that generic const sizes cannot state).
//!
//! Singularity is judged on the real part: a pivot below `PIVOT_RTOL · max|A_ij|` is reported as
//! [`GeomError::SingularMatrix`].

use crate::{GeomError, Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// Relative pivot threshold of [`Lu::factor`].
pub const PIVOT_RTOL: f64 = 1e-14;

/// `P A = L U` of an `N × N` matrix, stored in place (unit lower `L` below the diagonal).
#[derive(Debug, Clone, Copy)]
pub struct Lu<S: Scalar, const N: usize> {
    lu: SMatrix<S, N, N>,
    perm: [usize; N],
}

impl<S: Scalar, const N: usize> Lu<S, N> {
    /// Factor `a`; [`GeomError::SingularMatrix`] (labelled `what`) if a pivot vanishes or an entry
    /// is not finite.
    #[inline]
    pub fn factor(a: &SMatrix<S, N, N>, what: &'static str) -> Result<Self> {
        let singular = GeomError::SingularMatrix { what, iteration: 0 };
        let mut lu = *a;
        let mut perm: [usize; N] = core::array::from_fn(|i| i);
        let mut scale = 0.0f64;
        for v in lu.iter() {
            let r = v.re();
            if !r.is_finite() {
                return Err(GeomError::NonFinite { what });
            }
            scale = scale.max(r.abs());
        }
        if scale == 0.0 && N > 0 {
            return Err(singular);
        }
        for k in 0..N {
            let mut p = k;
            let mut best = lu[(k, k)].re().abs();
            for i in k + 1..N {
                let v = lu[(i, k)].re().abs();
                if v > best {
                    best = v;
                    p = i;
                }
            }
            if best <= PIVOT_RTOL * scale {
                return Err(singular);
            }
            if p != k {
                lu.swap_rows(k, p);
                perm.swap(k, p);
            }
            let pivot = lu[(k, k)];
            for i in k + 1..N {
                let f = lu[(i, k)] / pivot;
                lu[(i, k)] = f;
                for j in k + 1..N {
                    let u = lu[(k, j)];
                    lu[(i, j)] -= f * u;
                }
            }
        }
        Ok(Self { lu, perm })
    }

    /// Solve `A x = b`.
    #[inline]
    pub fn solve(&self, b: &SVector<S, N>) -> SVector<S, N> {
        let mut x = SVector::<S, N>::from_fn(|i, _| b[self.perm[i]]);
        for i in 0..N {
            for j in 0..i {
                let l = self.lu[(i, j)];
                let xj = x[j];
                x[i] -= l * xj;
            }
        }
        for i in (0..N).rev() {
            for j in i + 1..N {
                let u = self.lu[(i, j)];
                let xj = x[j];
                x[i] -= u * xj;
            }
            x[i] /= self.lu[(i, i)];
        }
        x
    }

    /// `A^{-1}`, column by column.
    pub fn inverse(&self) -> SMatrix<S, N, N> {
        let mut inv = SMatrix::<S, N, N>::zeros();
        for j in 0..N {
            let e = SVector::<S, N>::from_fn(|i, _| if i == j { S::from(1.0) } else { S::from(0.0) });
            inv.set_column(j, &self.solve(&e));
        }
        inv
    }
}

/// Solve `A x = b` by LU with partial pivoting.
pub fn solve<S: Scalar, const N: usize>(
    a: &SMatrix<S, N, N>,
    b: &SVector<S, N>,
    what: &'static str,
) -> Result<SVector<S, N>> {
    Ok(Lu::factor(a, what)?.solve(b))
}

/// `A^{-1}` by LU with partial pivoting.
pub fn invert<S: Scalar, const N: usize>(a: &SMatrix<S, N, N>, what: &'static str) -> Result<SMatrix<S, N, N>> {
    Ok(Lu::factor(a, what)?.inverse())
}

/// A vector of `B` blocks of size `N` (total size `B·N`): the unknowns of block systems such as
/// the stages of an `s`-stage Runge–Kutta method or the `(q, p, q_1, p_1)` of a cotangent-lift
/// step. `B·N` is not expressible as a const-generic size on stable Rust; blocks are.
pub type BlockVector<S, const N: usize, const B: usize> = [SVector<S, N>; B];

/// A `B × B` matrix of `N × N` blocks; `m[I][J][(i, j)]` is the entry at row `I·N + i`, column
/// `J·N + j`.
pub type BlockMatrix<S, const N: usize, const B: usize> = [[SMatrix<S, N, N>; B]; B];

/// A zero block vector.
pub fn block_zeros<S: Scalar, const N: usize, const B: usize>() -> BlockVector<S, N, B> {
    [SVector::zeros(); B]
}

/// A zero block matrix.
pub fn block_matrix_zeros<S: Scalar, const N: usize, const B: usize>() -> BlockMatrix<S, N, B> {
    [[SMatrix::zeros(); B]; B]
}

/// `P A = L U` of a [`BlockMatrix`] as one `(B·N) × (B·N)` matrix, partial pivoting over all
/// rows, on the stack (same pivot rule as [`Lu`]).
#[derive(Debug, Clone, Copy)]
pub struct BlockLu<S: Scalar, const N: usize, const B: usize> {
    lu: BlockMatrix<S, N, B>,
    perm: [[usize; N]; B],
}

#[inline(always)]
fn at<S: nalgebra::Scalar + Copy, const N: usize, const B: usize>(m: &BlockMatrix<S, N, B>, i: usize, j: usize) -> S {
    m[i / N][j / N][(i % N, j % N)]
}

#[inline(always)]
fn at_mut<S, const N: usize, const B: usize>(m: &mut BlockMatrix<S, N, B>, i: usize, j: usize) -> &mut S
where
    S: nalgebra::Scalar,
{
    &mut m[i / N][j / N][(i % N, j % N)]
}

impl<S: Scalar, const N: usize, const B: usize> BlockLu<S, N, B> {
    /// Factor `a`; [`GeomError::SingularMatrix`] (labelled `what`) if a pivot falls below
    /// [`PIVOT_RTOL`] times the largest entry, [`GeomError::NonFinite`] for non-finite entries.
    #[inline]
    pub fn factor(a: &BlockMatrix<S, N, B>, what: &'static str) -> Result<Self> {
        let n = N * B;
        let mut lu = *a;
        let mut perm = [[0usize; N]; B];
        for (i, slot) in perm.iter_mut().flatten().enumerate() {
            *slot = i;
        }
        let mut scale = 0.0f64;
        for block_row in lu.iter() {
            for block in block_row.iter() {
                for v in block.iter() {
                    let r = v.re();
                    if !r.is_finite() {
                        return Err(GeomError::NonFinite { what });
                    }
                    scale = scale.max(r.abs());
                }
            }
        }
        let singular = GeomError::SingularMatrix { what, iteration: 0 };
        if n > 0 && scale == 0.0 {
            return Err(singular);
        }
        for k in 0..n {
            let mut p = k;
            let mut best = at(&lu, k, k).re().abs();
            for i in k + 1..n {
                let v = at(&lu, i, k).re().abs();
                if v > best {
                    best = v;
                    p = i;
                }
            }
            if best <= PIVOT_RTOL * scale {
                return Err(singular);
            }
            if p != k {
                for j in 0..n {
                    let t = at(&lu, k, j);
                    *at_mut(&mut lu, k, j) = at(&lu, p, j);
                    *at_mut(&mut lu, p, j) = t;
                }
                let (a, b) = (perm[k / N][k % N], perm[p / N][p % N]);
                perm[k / N][k % N] = b;
                perm[p / N][p % N] = a;
            }
            let pivot = at(&lu, k, k);
            for i in k + 1..n {
                let f = at(&lu, i, k) / pivot;
                *at_mut(&mut lu, i, k) = f;
                for j in k + 1..n {
                    let u = at(&lu, k, j);
                    *at_mut(&mut lu, i, j) -= f * u;
                }
            }
        }
        Ok(Self { lu, perm })
    }

    /// Solve `A x = b`.
    #[inline]
    pub fn solve(&self, b: &BlockVector<S, N, B>) -> BlockVector<S, N, B> {
        let n = N * B;
        let mut x: BlockVector<S, N, B> = [SVector::zeros(); B];
        for i in 0..n {
            let src = self.perm[i / N][i % N];
            x[i / N][i % N] = b[src / N][src % N];
        }
        for i in 0..n {
            for j in 0..i {
                let l = at(&self.lu, i, j);
                let xj = x[j / N][j % N];
                x[i / N][i % N] -= l * xj;
            }
        }
        for i in (0..n).rev() {
            for j in i + 1..n {
                let u = at(&self.lu, i, j);
                let xj = x[j / N][j % N];
                x[i / N][i % N] -= u * xj;
            }
            x[i / N][i % N] /= at(&self.lu, i, i);
        }
        x
    }
}
