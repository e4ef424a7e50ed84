//! A matrix Lie group from three functions: [`MatrixGroup`] (`hat`, `vee` and membership), and
//! [`Linear`], the group with every [`LieGroup`] operation derived from them.
//!
//! A matrix Lie group `G ⊂ GL(N)` of dimension `D` is determined by its algebra `g ⊂ gl(N)`,
//! given by a basis (`hat: R^D → g`, `vee` its inverse on `g`), and by a test of membership.
//! Everything else follows from matrix algebra, written once over the scalar so that dual and
//! hyper-dual numbers give exact derivatives:
//!
//! ```text
//!   e, g h, g^{-1}   = I, the matrix product, the LU inverse
//!   exp(x)           = expm(hat x)      scaling and squaring of a degree-18 Taylor polynomial
//!   log(g)           = vee(logm g)      Denman–Beavers square roots, then 2 atanh((A-I)(A+I)^{-1})
//!   Ad_g x           = vee(g hat(x) g^{-1})
//!   ad_x y = [x, y]  = vee(hat x hat y - hat y hat x)
//!   dexp_x           = Σ_k ad_x^k/(k+1)!,     dexp_x^{-1} = Σ_j B_j/j! ad_x^j
//!   cay(x)           = (I - X/2)^{-1}(I + X/2)     only where `has_cayley()`
//! ```
//!
//! (the matrix exponential and logarithm are those of [`super::Gl`]; the scaling of `expm` and
//! every branch of `logm` are decided on real parts, so derivatives at dual numbers are exact,
//! including at `x = 0`). The Cayley map of a quadratic group (SO(n), SL(2) = Sp(2), Sp(2n)) lands
//! in the group; that of SL(n ≥ 3) does not (`det cay(x) ≠ 1`), so a group that does not say it
//! has one ([`MatrixGroup::has_cayley`], `false` by default) refuses every Cayley operation with
//! [`GeomError::ChartUnavailable`]: a Cayley method built on it fails with that error, and the
//! public test suites ([`super::testing`]) skip the Cayley identities and say so in their report.
//!
//! `Linear<G, N>` is a distinct type that implements [`LieGroup<S, D>`](super::LieGroup) at every
//! scalar and [`LieGroupFamily`](super::LieGroupFamily) (with the closed-form translation jets of
//! a matrix group and the chart derivative by AD) once, for every `G`, so it reaches every layer
//! (the Hamilton–Pontryagin and RKMK integrators, the discretization layer's Lie-group methods,
//! the groupoids over a group). A user's group writes the three functions and uses
//! `Linear(MyGroup)`.
//!
//! ```
//! use geom_core::lie::{Linear, LieGroup, MatrixGroup};
//! use geom_core::Scalar;
//! use nalgebra::{Matrix2, SVector, Vector3};
//!
//! /// SL(2, R): `hat(a, b, c) = [[a, b], [c, -a]]`.
//! #[derive(Debug, Clone, Copy)]
//! struct Sl2;
//! impl MatrixGroup<3, 2> for Sl2 {
//!     fn name(&self) -> String {
//!         "SL(2,R)".into()
//!     }
//!     fn hat<S: Scalar>(&self, x: &SVector<S, 3>) -> Matrix2<S> {
//!         Matrix2::new(x[0], x[1], x[2], -x[0])
//!     }
//!     fn vee<S: Scalar>(&self, m: &Matrix2<S>) -> SVector<S, 3> {
//!         Vector3::new((m[(0, 0)] - m[(1, 1)]) * S::from(0.5), m[(0, 1)], m[(1, 0)])
//!     }
//!     fn defect(&self, g: &Matrix2<f64>) -> f64 {
//!         (g.determinant() - 1.0).abs()
//!     }
//!     fn has_cayley(&self) -> bool {
//!         true // SL(2) = Sp(2): the Cayley map lands in the group
//!     }
//! }
//! let g = Linear::<Sl2, 2>(Sl2);
//! let x = Vector3::new(0.3, -0.2, 0.5);
//! let e: Matrix2<f64> = g.exp(&x);
//! assert!((g.log(&e)? - x).amax() < 1e-14);
//! assert!(LieGroup::<f64, 3>::defect(&g, &e) < 1e-15);
//! # Ok::<(), geom_core::GeomError>(())
//! ```

use super::{Chart, LieGroup, matrix_group};
use crate::linalg::invert;
use crate::{GeomError, Result, Scalar};
use core::fmt;
use nalgebra::{SMatrix, SVector};

/// A `D`-dimensional Lie group of `N × N` matrices, given by its algebra and a membership test
/// (module documentation). Written once over the scalar: `hat` and `vee` are evaluated at `f64`
/// and at dual numbers.
pub trait MatrixGroup<const D: usize, const N: usize>: fmt::Debug + Clone + Send + Sync {
    /// Human-readable name, e.g. `"SL(3,R)"`.
    fn name(&self) -> String;
    /// `hat: R^D → g ⊂ gl(N)`, a basis of the algebra: `hat(x) = Σ_i x_i E_i`. Linear.
    fn hat<S: Scalar>(&self, x: &SVector<S, D>) -> SMatrix<S, N, N>;
    /// `vee: g → R^D`, the inverse of `hat` on the algebra (`vee(hat x) = x`); linear, and defined
    /// on every matrix (what it does off the algebra is not used).
    fn vee<S: Scalar>(&self, m: &SMatrix<S, N, N>) -> SVector<S, D>;
    /// How far `g` is from the group, `0` on it (e.g. `|det g - 1|` for SL(n)); `+inf` or NaN for
    /// non-finite entries.
    fn defect(&self, g: &SMatrix<f64, N, N>) -> f64;
    /// Whether the Cayley map `cay(x) = (I - X/2)^{-1}(I + X/2)` lands in the group (true for
    /// quadratic groups `{gᵀ J g = J}`: SO(n), Sp(2n), SL(2)). `false` by default: the Cayley
    /// operations then return [`GeomError::ChartUnavailable`].
    fn has_cayley(&self) -> bool {
        false
    }
}

/// The Lie group of the [`MatrixGroup`] `G`, with elements `N × N` matrices and every
/// [`LieGroup`] operation derived from `hat`, `vee` and membership (module documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Linear<G, const N: usize>(pub G);

/// A matrix filled with NaN (the documented value of operations that cannot fail by signature).
#[inline]
fn nan<S: Scalar, const R: usize, const C: usize>() -> SMatrix<S, R, C> {
    SMatrix::from_element(S::from(f64::NAN))
}

/// `Ok(())` if the group has the Cayley map, else [`GeomError::ChartUnavailable`].
fn require_cayley<G: MatrixGroup<D, N>, const D: usize, const N: usize>(group: &G) -> Result<()> {
    if group.has_cayley() {
        Ok(())
    } else {
        Err(GeomError::ChartUnavailable { chart: Chart::Cayley.name(), group: group.name().into() })
    }
}

impl<S: Scalar, G: MatrixGroup<D, N>, const D: usize, const N: usize> LieGroup<S, D> for Linear<G, N> {
    type Element = SMatrix<S, N, N>;
    type Matrix = SMatrix<S, N, N>;

    fn name(&self) -> String {
        self.0.name()
    }
    /// `I`.
    fn identity(&self) -> SMatrix<S, N, N> {
        SMatrix::identity()
    }
    /// The matrix product `a b`.
    fn compose(&self, a: &SMatrix<S, N, N>, b: &SMatrix<S, N, N>) -> SMatrix<S, N, N> {
        a * b
    }
    /// `g^{-1}` by LU with partial pivoting; NaN-filled if `g` is singular (never an element).
    fn inverse(&self, g: &SMatrix<S, N, N>) -> SMatrix<S, N, N> {
        invert(g, "matrix group inverse").unwrap_or_else(|_| nan())
    }
    /// `expm(hat x)`: scaling and squaring `(T_18(X/2^s))^{2^s}`, `|X/2^s|_F <= 1/2`, `s` from the
    /// real part ([`super::Gl::expm`]).
    fn exp(&self, x: &SVector<S, D>) -> SMatrix<S, N, N> {
        super::gl::expm(&self.0.hat(x))
    }
    /// `vee(logm g)`, the principal logarithm by inverse scaling and squaring
    /// ([`super::Gl::logm`]); [`GeomError::OutsideDomain`] where `g` has no principal real
    /// logarithm (an eigenvalue on the closed negative real axis), [`GeomError::NonFinite`] for
    /// non-finite entries.
    fn log(&self, g: &SMatrix<S, N, N>) -> Result<SVector<S, D>> {
        Ok(self.0.vee(&super::gl::logm(g)?))
    }
    /// The user's `hat`.
    fn hat(&self, x: &SVector<S, D>) -> SMatrix<S, N, N> {
        self.0.hat(x)
    }
    /// The user's `vee`.
    fn vee(&self, m: &SMatrix<S, N, N>) -> SVector<S, D> {
        self.0.vee(m)
    }
    /// The element itself.
    fn to_matrix(&self, g: &SMatrix<S, N, N>) -> SMatrix<S, N, N> {
        *g
    }
    /// `Ad_g`, column `j` = `vee(g hat(e_j) g^{-1})`; NaN-filled if `g` is singular.
    fn adjoint(&self, g: &SMatrix<S, N, N>) -> SMatrix<S, D, D> {
        matrix_group::adjoint(self, g)
    }
    /// `ad_x`, column `j` = `vee([hat x, hat e_j])`.
    fn ad(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        matrix_group::ad(self, x)
    }
    /// `vee(hat x hat y - hat y hat x)`.
    fn bracket(&self, x: &SVector<S, D>, y: &SVector<S, D>) -> SVector<S, D> {
        let (a, b) = (self.0.hat(x), self.0.hat(y));
        self.0.vee(&(a * b - b * a))
    }
    /// `dcay_x^{-1}`, column `j` = `vee(E_j - ½[X, E_j] - ¼ X E_j X)` where the group has the
    /// Cayley map; NaN-filled otherwise (the fallible [`LieGroup::dtau_inv`] and
    /// [`LieGroup::dcay`] return [`GeomError::ChartUnavailable`] there).
    fn dcay_inv(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        if self.0.has_cayley() { matrix_group::dcay_inv(self, x) } else { nan() }
    }
    /// `(I - X/2)^{-1}(I + X/2)`, or [`GeomError::ChartUnavailable`].
    fn cayley(&self, x: &SVector<S, D>) -> Result<SMatrix<S, N, N>> {
        require_cayley(&self.0)?;
        matrix_group::cayley(self, x)
    }
    /// `vee(2 (g - I)(g + I)^{-1})`, or [`GeomError::ChartUnavailable`].
    fn cayley_inv(&self, g: &SMatrix<S, N, N>) -> Result<SVector<S, D>> {
        require_cayley(&self.0)?;
        matrix_group::cayley_inv(self, g)
    }
    /// `(dcay_x^{-1})^{-1}`, or [`GeomError::ChartUnavailable`].
    fn dcay(&self, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        require_cayley(&self.0)?;
        invert(&matrix_group::dcay_inv(self, x), "dcay")
    }
    /// `dexp_x^{-1}` (series) or `dcay_x^{-1}`; [`GeomError::ChartUnavailable`] for Cayley on a
    /// group without it.
    fn dtau_inv(&self, chart: Chart, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        match chart {
            Chart::Exp => self.dexp_inv(x),
            Chart::Cayley => {
                require_cayley(&self.0)?;
                Ok(matrix_group::dcay_inv(self, x))
            }
        }
    }
    /// The user's membership defect, of the real part.
    fn defect(&self, g: &SMatrix<S, N, N>) -> f64 {
        let re = g.map(|v| v.re());
        if re.iter().all(|v| v.is_finite()) { self.0.defect(&re) } else { f64::INFINITY }
    }
}
