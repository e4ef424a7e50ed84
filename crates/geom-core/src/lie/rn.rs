//! The additive group `R^N`: `compose = +`, `exp = log = cay = id`, `Ad = I`, `ad = 0`.
//!
//! Its matrix representation `[[I, x], [0, 1]]` is nilpotent in the algebra, so
//! `cay(x) = (I - X/2)^{-1}(I + X/2) = I + X`, i.e. `cay = id` and `dcay = dexp = I`.
//! `hat` is represented by the coordinate vector itself (the group is abelian).

use super::LieGroup;
use crate::{Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// The vector group `(R^N, +)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rn<const N: usize>;

impl<S: Scalar, const N: usize> LieGroup<S, N> for Rn<N> {
    type Element = SVector<S, N>;
    type Matrix = SVector<S, N>;

    fn name(&self) -> String {
        format!("R^{N}")
    }
    #[inline]
    fn identity(&self) -> SVector<S, N> {
        SVector::zeros()
    }
    #[inline]
    fn compose(&self, a: &SVector<S, N>, b: &SVector<S, N>) -> SVector<S, N> {
        a + b
    }
    #[inline]
    fn inverse(&self, a: &SVector<S, N>) -> SVector<S, N> {
        -a
    }
    #[inline]
    fn exp(&self, x: &SVector<S, N>) -> SVector<S, N> {
        *x
    }
    #[inline]
    fn log(&self, g: &SVector<S, N>) -> Result<SVector<S, N>> {
        Ok(*g)
    }
    #[inline]
    fn hat(&self, x: &SVector<S, N>) -> SVector<S, N> {
        *x
    }
    #[inline]
    fn vee(&self, m: &SVector<S, N>) -> SVector<S, N> {
        *m
    }
    #[inline]
    fn to_matrix(&self, g: &SVector<S, N>) -> SVector<S, N> {
        *g
    }
    #[inline]
    fn adjoint(&self, _g: &SVector<S, N>) -> SMatrix<S, N, N> {
        SMatrix::identity()
    }
    #[inline]
    fn ad(&self, _x: &SVector<S, N>) -> SMatrix<S, N, N> {
        SMatrix::zeros()
    }
    #[inline]
    fn dexp(&self, _x: &SVector<S, N>) -> SMatrix<S, N, N> {
        SMatrix::identity()
    }
    #[inline]
    fn dexp_inv(&self, _x: &SVector<S, N>) -> Result<SMatrix<S, N, N>> {
        Ok(SMatrix::identity())
    }
    #[inline]
    fn cayley(&self, x: &SVector<S, N>) -> Result<SVector<S, N>> {
        Ok(*x)
    }
    #[inline]
    fn cayley_inv(&self, g: &SVector<S, N>) -> Result<SVector<S, N>> {
        Ok(*g)
    }
    #[inline]
    fn dcay(&self, _x: &SVector<S, N>) -> Result<SMatrix<S, N, N>> {
        Ok(SMatrix::identity())
    }
    #[inline]
    fn dcay_inv(&self, _x: &SVector<S, N>) -> SMatrix<S, N, N> {
        SMatrix::identity()
    }
    fn defect(&self, g: &SVector<S, N>) -> f64 {
        if self.is_finite(g) { 0.0 } else { f64::INFINITY }
    }
    #[inline]
    fn is_finite(&self, g: &SVector<S, N>) -> bool {
        g.iter().all(|v| v.re().is_finite())
    }
}
