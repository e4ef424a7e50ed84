//! Tests of the block solvers.

use super::*;
use crate::linalg::BlockVector;
use crate::linalg::{BlockLu, Lu};
use crate::{GeomError, Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// Two 2-vectors: the 4×4 system of the flattened problem.
struct Coupled;
impl BlockResidual<2, 2> for Coupled {
    #[inline]
    fn eval<S: Scalar>(&self, x: &BlockVector<S, 2, 2>) -> Result<BlockVector<S, 2, 2>> {
        let (a, b) = (x[0], x[1]);
        Ok([
            SVector::from([a[0] * a[0] + b[1] - S::from(3.0), a[1].sin() + b[0] * a[0] - S::from(0.5)]),
            SVector::from([b[0] * b[1] - a[0] + S::from(0.25), b[1].exp() - a[1] - S::from(1.5)]),
        ])
    }
}
/// The same system flattened to R^4.
struct Flat;
impl Residual<4> for Flat {
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, 4>) -> Result<SVector<S, 4>> {
        let f = Coupled.eval(&[SVector::from([x[0], x[1]]), SVector::from([x[2], x[3]])])?;
        Ok(SVector::from([f[0][0], f[0][1], f[1][0], f[1][1]]))
    }
}

#[test]
fn block_lu_matches_flat_lu() {
    let m = SMatrix::<f64, 4, 4>::from_fn(|i, j| ((i * 7 + j * 3) % 5) as f64 - 1.5 + if i == j { 0.1 } else { 0.0 });
    let mut blocks = [[SMatrix::<f64, 2, 2>::zeros(); 2]; 2];
    for i in 0..4 {
        for j in 0..4 {
            blocks[i / 2][j / 2][(i % 2, j % 2)] = m[(i, j)];
        }
    }
    let b = SVector::<f64, 4>::from([1.0, -2.0, 0.5, 3.0]);
    let flat = Lu::factor(&m, "m").unwrap().solve(&b);
    let blk = BlockLu::factor(&blocks, "m").unwrap().solve(&[SVector::from([b[0], b[1]]), SVector::from([b[2], b[3]])]);
    for i in 0..4 {
        assert!((flat[i] - blk[i / 2][i % 2]).abs() < 1e-13);
    }
    let singular = [[SMatrix::<f64, 2, 2>::identity(); 2]; 2];
    assert!(matches!(BlockLu::factor(&singular, "s"), Err(GeomError::SingularMatrix { .. })));
}

#[test]
fn block_newton_follows_flat_newton() {
    let opts = NewtonOptions::default();
    let x0 = [SVector::from([1.5, 0.2]), SVector::from([0.3, 0.4])];
    let (xb, rb) = newton_blocks_ad(&Coupled, &x0, &opts).unwrap();
    let (xf, rf) = newton_ad(&Flat, &SVector::from([1.5, 0.2, 0.3, 0.4]), &opts).unwrap();
    assert_eq!(rb.iterations, rf.iterations);
    for i in 0..4 {
        assert!((xf[i] - xb[i / 2][i % 2]).abs() < 1e-13);
    }
    let (fx, jb) = ad_block_jacobian(&Coupled, &x0).unwrap();
    let (ff, jf) = ad_jacobian(&Flat, &SVector::from([1.5, 0.2, 0.3, 0.4])).unwrap();
    for i in 0..4 {
        assert!((fx[i / 2][i % 2] - ff[i]).abs() < 1e-15);
        for j in 0..4 {
            assert!((jb[i / 2][j / 2][(i % 2, j % 2)] - jf[(i, j)]).abs() < 1e-15);
        }
    }
}

#[test]
fn block_newton_reports_non_convergence() {
    let opts = NewtonOptions::new(1e-14, 1e-16, 1).unwrap();
    let x0 = [SVector::from([1.5, 0.2]), SVector::from([0.3, 0.4])];
    assert!(matches!(newton_blocks_ad(&Coupled, &x0, &opts), Err(GeomError::NotConverged { iterations: 1, .. })));
}
