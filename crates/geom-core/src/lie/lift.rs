//! Lifting group elements from `f64` to another scalar (a dual number), so that code holding an
//! `f64` element can differentiate a function of nearby elements: `lift(g)` has the same value
//! and zero derivative parts.

use super::{Gl, LieGroup, Power, Product, Rn, Se2, Se3, So2, So3, Su2};
use crate::Scalar;

/// A group usable at `f64` and at `S`, with the element conversion `f64 -> S`.
pub trait LiftElement<S: Scalar, const D: usize>: LieGroup<f64, D> + LieGroup<S, D> {
    /// The element `g` at scalar `S` (same value, zero derivative parts).
    fn lift(&self, g: &<Self as LieGroup<f64, D>>::Element) -> <Self as LieGroup<S, D>>::Element;
}

macro_rules! lift_by_map {
    ($group:ty, $d:literal) => {
        impl<S: Scalar> LiftElement<S, $d> for $group {
            fn lift(&self, g: &<Self as LieGroup<f64, $d>>::Element) -> <Self as LieGroup<S, $d>>::Element {
                g.map(S::from)
            }
        }
    };
}
lift_by_map!(So2, 1);
lift_by_map!(Se2, 3);
lift_by_map!(So3, 3);
lift_by_map!(Se3, 6);
lift_by_map!(Su2, 3);

impl<S: Scalar, const N: usize> LiftElement<S, N> for Rn<N> {
    fn lift(&self, g: &nalgebra::SVector<f64, N>) -> nalgebra::SVector<S, N> {
        g.map(S::from)
    }
}

impl<S: Scalar, const N: usize, const D: usize> LiftElement<S, D> for Gl<N, D> {
    fn lift(&self, g: &nalgebra::SMatrix<f64, N, N>) -> nalgebra::SMatrix<S, N, N> {
        g.map(S::from)
    }
}

impl<S: Scalar, A, B, const DA: usize, const DB: usize, const D: usize> LiftElement<S, D> for Product<A, B, DA, DB>
where
    A: LiftElement<S, DA>,
    B: LiftElement<S, DB>,
    Self: LieGroup<f64, D, Element = (<A as LieGroup<f64, DA>>::Element, <B as LieGroup<f64, DB>>::Element)>
        + LieGroup<S, D, Element = (<A as LieGroup<S, DA>>::Element, <B as LieGroup<S, DB>>::Element)>,
{
    fn lift(&self, g: &<Self as LieGroup<f64, D>>::Element) -> <Self as LieGroup<S, D>>::Element {
        (self.0.lift(&g.0), self.1.lift(&g.1))
    }
}

impl<S: Scalar, G, const DG: usize, const K: usize, const D: usize> LiftElement<S, D> for Power<G, DG, K>
where
    G: LiftElement<S, DG>,
    Self: LieGroup<f64, D, Element = [<G as LieGroup<f64, DG>>::Element; K]>
        + LieGroup<S, D, Element = [<G as LieGroup<S, DG>>::Element; K]>,
{
    fn lift(&self, g: &<Self as LieGroup<f64, D>>::Element) -> <Self as LieGroup<S, D>>::Element {
        core::array::from_fn(|k| self.0.lift(&g[k]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Vector3, Vector6};
    use num_dual::Dual64;

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
}
