//! Moving group elements between scalar types: [`MapScalar`] applies a scalar map entrywise
//! (e.g. `f64 -> DualSVec64<D>`, `DualSVec64<M> -> HyperDualSVec64<M, D>`), [`LiftElement`] is
//! the common case `f64 -> S` with zero derivative parts, so that code holding `f64` elements
//! can differentiate functions of nearby ones.

use super::{Gl, LieGroup, Linear, MatrixGroup, Power, Product, Rn, Se2, Se3, So2, So3, Su2};
use crate::Scalar;
use nalgebra::{SMatrix, SVector};

/// A group whose elements at scalar `A` can be mapped entrywise to elements at scalar `B`.
///
/// Implemented for every group of `geom-core` (SO(2), SO(3), SU(2), SE(2), SE(3), `R^n`,
/// GL(n), and products and powers of these). A user-defined group implements it with the same
/// one line (`g.map(f)` for a matrix element).
///
/// ```
/// use geom_core::lie::So3;
/// use geom_core::lie::MapScalar;
/// use nalgebra::Matrix3;
/// use num_dual::DualSVec64;
/// let g = Matrix3::<f64>::identity();
/// let gd: Matrix3<DualSVec64<3>> = So3.map_scalar(&g, &DualSVec64::from_re);
/// assert_eq!(gd[(0, 0)].re, 1.0);
/// ```
pub trait MapScalar<A: Scalar, B: Scalar, const D: usize>: LieGroup<A, D> + LieGroup<B, D> {
    /// The element `g` with every scalar entry `v` replaced by `f(v)`.
    fn map_scalar<F: Fn(A) -> B>(
        &self,
        g: &<Self as LieGroup<A, D>>::Element,
        f: &F,
    ) -> <Self as LieGroup<B, D>>::Element;
}

macro_rules! map_matrix_group {
    ($($group:ty => $d:literal),*) => {$(
        impl<A: Scalar, B: Scalar> MapScalar<A, B, $d> for $group {
            #[inline]
            fn map_scalar<F: Fn(A) -> B>(
                &self,
                g: &<Self as LieGroup<A, $d>>::Element,
                f: &F,
            ) -> <Self as LieGroup<B, $d>>::Element {
                g.map(f)
            }
        }
    )*};
}
map_matrix_group!(So2 => 1, So3 => 3, Su2 => 3, Se2 => 3, Se3 => 6);

impl<A: Scalar, B: Scalar, const N: usize> MapScalar<A, B, N> for Rn<N> {
    #[inline]
    fn map_scalar<F: Fn(A) -> B>(&self, g: &SVector<A, N>, f: &F) -> SVector<B, N> {
        g.map(f)
    }
}

impl<A: Scalar, B: Scalar, const N: usize, const D: usize> MapScalar<A, B, D> for Gl<N, D> {
    #[inline]
    fn map_scalar<F: Fn(A) -> B>(
        &self,
        g: &<Self as LieGroup<A, D>>::Element,
        f: &F,
    ) -> <Self as LieGroup<B, D>>::Element {
        g.map(f)
    }
}

/// Entrywise, `g.map(f)`, for every [`MatrixGroup`].
impl<A: Scalar, B: Scalar, G: MatrixGroup<D, N>, const D: usize, const N: usize> MapScalar<A, B, D> for Linear<G, N> {
    #[inline]
    fn map_scalar<F: Fn(A) -> B>(&self, g: &SMatrix<A, N, N>, f: &F) -> SMatrix<B, N, N> {
        g.map(f)
    }
}

impl<A, B, GA, GB, const DA: usize, const DB: usize, const D: usize> MapScalar<A, B, D> for Product<GA, GB, DA, DB>
where
    A: Scalar,
    B: Scalar,
    GA: MapScalar<A, B, DA>,
    GB: MapScalar<A, B, DB>,
{
    #[inline]
    fn map_scalar<F: Fn(A) -> B>(
        &self,
        g: &<Self as LieGroup<A, D>>::Element,
        f: &F,
    ) -> <Self as LieGroup<B, D>>::Element {
        (self.0.map_scalar(&g.0, f), self.1.map_scalar(&g.1, f))
    }
}

impl<A, B, G, const DG: usize, const K: usize, const D: usize> MapScalar<A, B, D> for Power<G, DG, K>
where
    A: Scalar,
    B: Scalar,
    G: MapScalar<A, B, DG>,
{
    #[inline]
    fn map_scalar<F: Fn(A) -> B>(
        &self,
        g: &<Self as LieGroup<A, D>>::Element,
        f: &F,
    ) -> <Self as LieGroup<B, D>>::Element {
        core::array::from_fn(|i| self.0.map_scalar(&g[i], f))
    }
}

/// A group usable at `f64` and at `S`, with the element conversion `f64 -> S` (same value, zero
/// derivative parts); every [`MapScalar`] group is one.
pub trait LiftElement<S: Scalar, const D: usize>: LieGroup<f64, D> + LieGroup<S, D> {
    /// The element `g` at scalar `S`.
    fn lift(&self, g: &<Self as LieGroup<f64, D>>::Element) -> <Self as LieGroup<S, D>>::Element;
}

impl<S: Scalar, const D: usize, G: MapScalar<f64, S, D>> LiftElement<S, D> for G {
    #[inline]
    fn lift(&self, g: &<Self as LieGroup<f64, D>>::Element) -> <Self as LieGroup<S, D>>::Element {
        self.map_scalar(g, &S::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Vector3, Vector6};
    use num_dual::{Dual64, DualSVec64};

    #[test]
    fn lift_keeps_values_and_has_zero_derivative() {
        let x = Vector3::new(0.3, -0.2, 0.9);
        let r = LieGroup::<f64, 3>::exp(&So3, &x);
        let rd: nalgebra::Matrix3<Dual64> = So3.lift(&r);
        assert!(rd.iter().zip(r.iter()).all(|(a, b)| a.re == *b && a.eps == 0.0));
        let p = Product::<So3, Rn<3>, 3, 3>(So3, Rn::<3>);
        let g = LieGroup::<f64, 6>::exp(&p, &Vector6::new(0.3, -0.2, 0.9, 1.0, 2.0, 3.0));
        let gd = LiftElement::<Dual64, 6>::lift(&p, &g);
        assert_eq!(gd.1[2].re, 3.0);
        let pw = Power::<So3, 3, 2>(So3);
        let h = LieGroup::<f64, 6>::exp(&pw, &Vector6::new(0.3, -0.2, 0.9, 1.0, 2.0, 3.0));
        let hd = LiftElement::<Dual64, 6>::lift(&pw, &h);
        assert_eq!(hd[1][(0, 1)].re, h[1][(0, 1)]);
    }

    #[test]
    fn products_map_componentwise() {
        let g = crate::lie::So3xR3::new(So3, Rn::<3>);
        let x = Vector6::new(0.1, 0.2, 0.3, 1.0, 2.0, 3.0);
        let e = LieGroup::<f64, 6>::exp(&g, &x);
        let ed = MapScalar::<f64, DualSVec64<6>, 6>::map_scalar(&g, &e, &DualSVec64::from_re);
        assert_eq!(ed.1[2].re, 3.0);
        assert_eq!(ed.0[(1, 0)].re, e.0[(1, 0)]);
    }
}
