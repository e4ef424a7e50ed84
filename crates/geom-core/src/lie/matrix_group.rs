//! The formulas every matrix group shares, written once from `hat`, `vee` and the matrix
//! elements, so that a new matrix group (elements and `Matrix` both `N × N` matrices) writes only
//! what is specific to it (`hat`, `vee`, `exp`, `log`, membership) and delegates the rest:
//!
//! ```text
//!   Ad_g x        = vee(g hat(x) g^{-1})
//!   ad_x y        = vee(hat(x) hat(y) - hat(y) hat(x))
//!   cay(x)        = (I - X/2)^{-1} (I + X/2),          X = hat(x)
//!   cay^{-1}(g)   = vee(2 (g - I)(g + I)^{-1})
//!   dcay^{-1}_x y = vee(Y - ½[X, Y] - ¼ X Y X)         (right-trivialized)
//! ```
//! Matrices are built column by column from the unit vectors `e_j`. The public test suite
//! ([`super::testing`]) checks a group that uses them like any other.
//!
//! ```
//! use geom_core::lie::{matrix_group, LieGroup, So3};
//! use nalgebra::Vector3;
//! let (x, y) = (Vector3::new(0.3, -0.2, 0.5), Vector3::new(1.0, 0.4, -0.7));
//! let g = So3.exp(&x);
//! assert!((matrix_group::adjoint::<f64, _, 3, 3>(&So3, &g) - So3.adjoint(&g)).amax() < 1e-15);
//! assert!((matrix_group::ad::<f64, _, 3, 3>(&So3, &x) * y - So3.bracket(&x, &y)).amax() < 1e-15);
//! let c = matrix_group::cayley::<f64, _, 3, 3>(&So3, &x)?;
//! assert!((matrix_group::cayley_inv::<f64, _, 3, 3>(&So3, &c)? - x).amax() < 1e-15);
//! # Ok::<(), geom_core::GeomError>(())
//! ```

use super::LieGroup;
use crate::linalg::Lu;
use crate::{Result, Scalar};
use nalgebra::{SMatrix, SVector};

fn unit<S: Scalar, const D: usize>(j: usize) -> SVector<S, D> {
    SVector::from_fn(|i, _| S::from(if i == j { 1.0 } else { 0.0 }))
}

/// The `D × D` matrix whose column `j` is `vee(f(hat(e_j)))`.
fn columns<S, G, const D: usize, const N: usize>(
    group: &G,
    f: impl Fn(SMatrix<S, N, N>) -> SMatrix<S, N, N>,
) -> SMatrix<S, D, D>
where
    S: Scalar,
    G: LieGroup<S, D, Element = SMatrix<S, N, N>, Matrix = SMatrix<S, N, N>> + ?Sized,
{
    let mut out = SMatrix::<S, D, D>::zeros();
    for j in 0..D {
        out.set_column(j, &group.vee(&f(group.hat(&unit::<S, D>(j)))));
    }
    out
}

/// `κ_∞(g) = ‖g‖_∞ ‖g^{-1}‖_∞` (max row sums) of the real part, `+inf` if `g` is singular or not
/// finite: [`LieGroupFamily::condition`](super::LieGroupFamily::condition) of a matrix group.
pub fn condition<S: Scalar, const N: usize>(g: &SMatrix<S, N, N>) -> f64 {
    let re = g.map(|v| v.re());
    let norm =
        |m: &SMatrix<f64, N, N>| (0..N).map(|i| m.row(i).iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max);
    match crate::linalg::invert(&re, "condition number") {
        Ok(inv) if re.iter().all(|v| v.is_finite()) => norm(&re) * norm(&inv),
        _ => f64::INFINITY,
    }
}

/// `Ad_g`, column `j` = `vee(g hat(e_j) g^{-1})`.
pub fn adjoint<S, G, const D: usize, const N: usize>(group: &G, g: &SMatrix<S, N, N>) -> SMatrix<S, D, D>
where
    S: Scalar,
    G: LieGroup<S, D, Element = SMatrix<S, N, N>, Matrix = SMatrix<S, N, N>> + ?Sized,
{
    let gi = group.inverse(g);
    columns(group, |e| g * e * gi)
}

/// `ad_x`, column `j` = `vee([hat(x), hat(e_j)])`.
pub fn ad<S, G, const D: usize, const N: usize>(group: &G, x: &SVector<S, D>) -> SMatrix<S, D, D>
where
    S: Scalar,
    G: LieGroup<S, D, Element = SMatrix<S, N, N>, Matrix = SMatrix<S, N, N>> + ?Sized,
{
    let hx = group.hat(x);
    columns(group, |e| hx * e - e * hx)
}

/// `cay(x) = (I - X/2)^{-1}(I + X/2)`; [`crate::GeomError::SingularMatrix`] if `I - X/2` is
/// singular.
pub fn cayley<S, G, const D: usize, const N: usize>(group: &G, x: &SVector<S, D>) -> Result<SMatrix<S, N, N>>
where
    S: Scalar,
    G: LieGroup<S, D, Element = SMatrix<S, N, N>, Matrix = SMatrix<S, N, N>> + ?Sized,
{
    let half = group.hat(x) * S::from(0.5);
    let id = SMatrix::<S, N, N>::identity();
    let lu = Lu::factor(&(id - half), "Cayley of a matrix group")?;
    let rhs = id + half;
    let mut out = SMatrix::<S, N, N>::zeros();
    for j in 0..N {
        out.set_column(j, &lu.solve(&rhs.column(j).into_owned()));
    }
    Ok(out)
}

/// `cay^{-1}(g) = vee(2 (g - I)(g + I)^{-1})`; [`crate::GeomError::SingularMatrix`] if `g + I` is
/// singular (e.g. a rotation by π).
pub fn cayley_inv<S, G, const D: usize, const N: usize>(group: &G, g: &SMatrix<S, N, N>) -> Result<SVector<S, D>>
where
    S: Scalar,
    G: LieGroup<S, D, Element = SMatrix<S, N, N>, Matrix = SMatrix<S, N, N>> + ?Sized,
{
    let id = SMatrix::<S, N, N>::identity();
    let inv = super::invert(&(g + id), "inverse Cayley of a matrix group")?;
    Ok(group.vee(&((g - id) * inv * S::from(2.0))))
}

/// Right-trivialized `dcay_x^{-1}`, column `j` = `vee(E_j - ½[X, E_j] - ¼ X E_j X)`.
pub fn dcay_inv<S, G, const D: usize, const N: usize>(group: &G, x: &SVector<S, D>) -> SMatrix<S, D, D>
where
    S: Scalar,
    G: LieGroup<S, D, Element = SMatrix<S, N, N>, Matrix = SMatrix<S, N, N>> + ?Sized,
{
    let hx = group.hat(x);
    columns(group, |e| e - (hx * e - e * hx) * S::from(0.5) - hx * e * hx * S::from(0.25))
}
