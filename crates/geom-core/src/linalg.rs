//! Fixed-size dense linear algebra on the stack: LU with partial pivoting for any `N`
//! (nalgebra's own LU needs typenum bounds that generic const sizes cannot state).
//!
//! Singularity is judged on the real part: a pivot below `PIVOT_RTOL · max|A_ij|` is reported as
//! [`GeomError::SingularMatrix`].
//!
//! Matrices of size `n ≤ 3` (the Newton matrices of SO(3) and SE(2) steps, 2-D problems) are
//! inverted in closed form instead: `A⁻¹ = adj(A)/det A`, with the scale-invariant singularity
//! test `|det A| ≤ PIVOT_RTOL · Π_i max_j |A_ij|` (Hadamard's bound `|det A| ≤ Π_i |row_i|`
//! makes the left side a relative measure; a zero row or a rank-deficient matrix gives 0). The
//! cofactors are independent of each other, so the inverse has a much shorter dependency chain
//! than pivoted elimination, which matters inside a Newton iteration that waits for each solve.

use crate::{GeomError, Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// Relative pivot threshold of [`Lu::factor`].
pub const PIVOT_RTOL: f64 = 1e-14;

/// Rows of an `n × n` matrix, `n = B·N`, stored row-major on the stack: `rows[r]` is row `r`
/// as `B` chunks of `N` entries (flattened, `n` contiguous entries). One LU routine
/// ([`factor_rows`], [`solve_rows`]) serves [`Lu`] (`B = 1`) and [`BlockLu`].
type Row<S, const N: usize, const B: usize> = [[S; N]; B];

/// Factor `P A = L U` in place on the rows of `A` (partial pivoting, unit lower `L` below the
/// diagonal, `U` above it, and `1/u_kk` on the diagonal). `perm[r]` is the original index of row
/// `r`.
#[inline(always)]
fn factor_rows<S: Scalar, const N: usize, const B: usize>(
    rows: &mut [Row<S, N, B>],
    perm: &mut [usize],
    what: &'static str,
) -> Result<()> {
    let n = rows.len();
    if n <= 3 {
        return invert_small(rows, what);
    }
    // one pass: finiteness and the scale of the pivot test, in four independent lanes (a single
    // running max is a chain of n² dependent instructions)
    let mut scale = [0.0f64; 4];
    let mut finite = [0.0f64; 4];
    let entries = rows.as_flattened().as_flattened();
    let mut chunks = entries.chunks_exact(4);
    for c in &mut chunks {
        for l in 0..4 {
            let r = c[l].re();
            finite[l] += 0.0 * r;
            let a = r.abs();
            scale[l] = if a > scale[l] { a } else { scale[l] };
        }
    }
    for (l, v) in chunks.remainder().iter().enumerate() {
        let r = v.re();
        finite[l] += 0.0 * r;
        let a = r.abs();
        scale[l] = if a > scale[l] { a } else { scale[l] };
    }
    if finite.iter().sum::<f64>() != 0.0 {
        return Err(GeomError::NonFinite { what });
    }
    let scale = scale[0].max(scale[1]).max(scale[2].max(scale[3]));
    let singular = GeomError::SingularMatrix { what, iteration: 0 };
    if n > 0 && scale == 0.0 {
        return Err(singular);
    }
    let threshold = PIVOT_RTOL * scale;
    for k in 0..n {
        let mut p = k;
        let mut best = rows[k].as_flattened()[k].re().abs();
        for (i, row) in rows.iter().enumerate().skip(k + 1) {
            let v = row.as_flattened()[k].re().abs();
            if v > best {
                best = v;
                p = i;
            }
        }
        if best <= threshold {
            return Err(singular);
        }
        if p != k {
            rows.swap(k, p);
            perm.swap(k, p);
        }
        // the pivot row's U part, zero in columns <= k, so that every row update runs over the
        // whole (constant) row length: `x - f·0 = x` leaves the stored multipliers unchanged
        let (top, bottom) = rows.split_at_mut(k + 1);
        let mut u: Row<S, N, B> = [[S::from(0.0); N]; B];
        let inv_pivot = {
            let pivot_row = top[k].as_flattened_mut();
            u.as_flattened_mut()[k + 1..].copy_from_slice(&pivot_row[k + 1..]);
            // the diagonal holds 1/u_kk: the solve multiplies instead of dividing (a division
            // is the longest latency on the Newton iteration's critical path)
            let inv = S::from(1.0) / pivot_row[k];
            pivot_row[k] = inv;
            inv
        };
        let u = u.as_flattened();
        for row in bottom.iter_mut() {
            let r = row.as_flattened_mut();
            let f = r[k] * inv_pivot;
            for (x, uj) in r.iter_mut().zip(u) {
                *x -= f * *uj;
            }
            r[k] = f;
        }
    }
    Ok(())
}

/// Closed-form inverse of an `n × n` matrix, `n ≤ 3`, in place: `rows` holds `A⁻¹` on return
/// (module documentation for the singularity test).
#[inline(always)]
fn invert_small<S: Scalar, const N: usize, const B: usize>(
    rows: &mut [Row<S, N, B>],
    what: &'static str,
) -> Result<()> {
    let n = rows.len();
    let a = |i: usize, j: usize| rows[i].as_flattened()[j];
    // Hadamard's bound from the row maxima (rows independent: short dependency chains). No
    // separate finiteness scan: every entry enters `det` through a product with its cofactor,
    // so a non-finite entry makes `det` (or the bound) non-finite and the one comparison
    // `|det| > PIVOT_RTOL·bound` false; the cold path then tells the two errors apart.
    let mut hadamard = 1.0f64;
    for row in rows.iter() {
        let mut m = 0.0f64;
        for v in row.as_flattened() {
            let ar = v.re().abs();
            m = if ar > m { ar } else { m };
        }
        hadamard *= m;
    }
    let fail = |rows: &[Row<S, N, B>]| {
        if rows.iter().all(|r| r.as_flattened().iter().all(|v| v.re().is_finite())) {
            GeomError::SingularMatrix { what, iteration: 0 }
        } else {
            GeomError::NonFinite { what }
        }
    };
    // `NaN` compares as singular: `partial_cmp` is `None`
    let singular = |det: S| det.re().abs().partial_cmp(&(PIVOT_RTOL * hadamard)) != Some(std::cmp::Ordering::Greater);
    match n {
        0 => Ok(()),
        1 => {
            let d = a(0, 0);
            if singular(d) {
                return Err(fail(rows));
            }
            rows[0].as_flattened_mut()[0] = S::from(1.0) / d;
            Ok(())
        }
        2 => {
            let (a00, a01, a10, a11) = (a(0, 0), a(0, 1), a(1, 0), a(1, 1));
            let det = a00 * a11 - a01 * a10;
            if singular(det) {
                return Err(fail(rows));
            }
            let inv = S::from(1.0) / det;
            let r0 = rows[0].as_flattened_mut();
            r0[0] = a11 * inv;
            r0[1] = -a01 * inv;
            let r1 = rows[1].as_flattened_mut();
            r1[0] = -a10 * inv;
            r1[1] = a00 * inv;
            Ok(())
        }
        _ => {
            let m: [[S; 3]; 3] = core::array::from_fn(|i| core::array::from_fn(|j| a(i, j)));
            // cofactors C_ij; A⁻¹ = Cᵀ / det
            let c = |i0: usize, i1: usize, j0: usize, j1: usize| m[i0][j0] * m[i1][j1] - m[i0][j1] * m[i1][j0];
            let c00 = c(1, 2, 1, 2);
            let c01 = -c(1, 2, 0, 2);
            let c02 = c(1, 2, 0, 1);
            let det = m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02;
            if singular(det) {
                return Err(fail(rows));
            }
            let inv = S::from(1.0) / det;
            let adj = [
                [c00, -c(0, 2, 1, 2), c(0, 1, 1, 2)],
                [c01, c(0, 2, 0, 2), -c(0, 1, 0, 2)],
                [c02, -c(0, 2, 0, 1), c(0, 1, 0, 1)],
            ];
            for (i, row) in rows.iter_mut().enumerate() {
                for (j, v) in row.as_flattened_mut().iter_mut().enumerate() {
                    *v = adj[i][j] * inv;
                }
            }
            Ok(())
        }
    }
}

/// Solve `L U x = P b` in place: `x` holds `b` permuted on entry (for `n ≤ 3`, `rows` holds
/// `A⁻¹` and the permutation is the identity).
#[inline(always)]
fn solve_rows<S: Scalar, const N: usize, const B: usize>(rows: &[Row<S, N, B>], x: &mut [S]) {
    let n = rows.len();
    if n <= 3 {
        let b: [S; 3] = core::array::from_fn(|j| if j < n { x[j] } else { S::from(0.0) });
        for (xi, row) in x.iter_mut().zip(rows) {
            let r = row.as_flattened();
            let mut v = S::from(0.0);
            for (aij, bj) in r.iter().zip(&b) {
                v += *aij * *bj;
            }
            *xi = v;
        }
        return;
    }
    for i in 0..n {
        let r = rows[i].as_flattened();
        let mut v = x[i];
        for (l, xj) in r[..i].iter().zip(&x[..i]) {
            v -= *l * *xj;
        }
        x[i] = v;
    }
    for i in (0..n).rev() {
        let r = rows[i].as_flattened();
        let mut v = x[i];
        for (u, xj) in r[i + 1..].iter().zip(&x[i + 1..]) {
            v -= *u * *xj;
        }
        x[i] = v * r[i];
    }
}

/// `P A = L U` of an `N × N` matrix, stored in place row-major on the stack (unit lower `L`
/// below the diagonal).
#[derive(Debug, Clone, Copy)]
pub struct Lu<S: Scalar, const N: usize> {
    rows: [Row<S, N, 1>; N],
    perm: [usize; N],
}

impl<S: Scalar, const N: usize> Lu<S, N> {
    /// Factor `a`; [`GeomError::SingularMatrix`] (labelled `what`) if a pivot falls below
    /// [`PIVOT_RTOL`] times the largest entry, [`GeomError::NonFinite`] if an entry is not finite.
    #[inline]
    pub fn factor(a: &SMatrix<S, N, N>, what: &'static str) -> Result<Self> {
        let mut lu = Self::empty();
        lu.refactor(a, what)?;
        Ok(lu)
    }

    /// Storage for a factorization: the zero matrix, not factored (a solve with it is
    /// meaningless); fill it with [`refactor`](Self::refactor).
    pub fn empty() -> Self {
        Self { rows: [[[S::from(0.0); N]; 1]; N], perm: core::array::from_fn(|i| i) }
    }

    /// Factor `a` into `self`, in place (errors as [`factor`](Self::factor); on error `self` holds
    /// no valid factorization).
    #[inline(always)]
    pub fn refactor(&mut self, a: &SMatrix<S, N, N>, what: &'static str) -> Result<()> {
        for (i, row) in self.rows.iter_mut().enumerate() {
            for (j, v) in row[0].iter_mut().enumerate() {
                *v = a[(i, j)];
            }
        }
        for (i, p) in self.perm.iter_mut().enumerate() {
            *p = i;
        }
        if N <= 3 {
            // resolved at compile time: the closed-form inverse inlines into the caller
            return invert_small(&mut self.rows, what);
        }
        factor_rows(&mut self.rows, &mut self.perm, what)
    }

    /// Solve `A x = b`.
    #[inline]
    pub fn solve(&self, b: &SVector<S, N>) -> SVector<S, N> {
        let mut x: [S; N] = core::array::from_fn(|i| b[self.perm[i]]);
        solve_rows(&self.rows, &mut x);
        SVector::from(x)
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

/// `P A = L U` of a [`BlockMatrix`] as one dense `(B·N) × (B·N)` matrix, copied row-major on
/// the stack and factored with partial pivoting over all rows (the same routine and pivot rule
/// as [`Lu`]).
#[derive(Debug, Clone, Copy)]
pub struct BlockLu<S: Scalar, const N: usize, const B: usize> {
    rows: [[Row<S, N, B>; N]; B],
    perm: [[usize; N]; B],
}

impl<S: Scalar, const N: usize, const B: usize> BlockLu<S, N, B> {
    /// Factor `a`; [`GeomError::SingularMatrix`] (labelled `what`) if a pivot falls below
    /// [`PIVOT_RTOL`] times the largest entry, [`GeomError::NonFinite`] for non-finite entries.
    #[inline]
    pub fn factor(a: &BlockMatrix<S, N, B>, what: &'static str) -> Result<Self> {
        let mut lu = Self::empty();
        lu.refactor(a, what)?;
        Ok(lu)
    }

    /// Storage for a factorization: the zero matrix, not factored; fill it with
    /// [`refactor`](Self::refactor).
    pub fn empty() -> Self {
        Self {
            rows: [[[[S::from(0.0); N]; B]; N]; B],
            perm: core::array::from_fn(|bi| core::array::from_fn(|i| bi * N + i)),
        }
    }

    /// Factor `a` into `self`, in place (errors as [`factor`](Self::factor); on error `self` holds
    /// no valid factorization).
    #[inline(always)]
    pub fn refactor(&mut self, a: &BlockMatrix<S, N, B>, what: &'static str) -> Result<()> {
        // rows[I][i][J][j] = a[I][J][(i, j)]
        for (bi, block_rows) in self.rows.iter_mut().enumerate() {
            for (i, row) in block_rows.iter_mut().enumerate() {
                for (bj, chunk) in row.iter_mut().enumerate() {
                    for (j, v) in chunk.iter_mut().enumerate() {
                        *v = a[bi][bj][(i, j)];
                    }
                }
            }
        }
        for (k, p) in self.perm.as_flattened_mut().iter_mut().enumerate() {
            *p = k;
        }
        if N * B <= 3 {
            return invert_small(self.rows.as_flattened_mut(), what);
        }
        factor_rows(self.rows.as_flattened_mut(), self.perm.as_flattened_mut(), what)
    }

    /// Solve `A x = b`.
    #[inline]
    pub fn solve(&self, b: &BlockVector<S, N, B>) -> BlockVector<S, N, B> {
        let mut x: [[S; N]; B] = [[S::from(0.0); N]; B];
        for (xi, &src) in x.as_flattened_mut().iter_mut().zip(self.perm.as_flattened()) {
            *xi = b[src / N][src % N];
        }
        solve_rows(self.rows.as_flattened(), x.as_flattened_mut());
        x.map(SVector::from)
    }
}
