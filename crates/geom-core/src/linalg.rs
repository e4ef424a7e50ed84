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
