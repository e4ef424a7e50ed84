//! Lie groups behind one object-safe trait, [`LieGroup`].
//!
//! # Conventions (stated once for the whole workspace; docs/math.md §0 and §D.2)
//!
//! * Algebra elements are coordinate vectors `x ∈ R^D`; `hat(x)` is the matrix in the group's
//!   faithful representation and `vee` its inverse. The bracket is the matrix commutator,
//!   `[x, y] = vee(hat(x) hat(y) - hat(y) hat(x))`, and `ad_x y = [x, y]`.
//! * `Ad_g x = vee(g hat(x) g^{-1})`. The duals act on `g*` coordinates by the transpose:
//!   `Ad*_g = (Ad_g)^T` and `ad*_x = (ad_x)^T`, so `<Ad*_g mu, x> = <mu, Ad_g x>`.
//!   On SO(3): `Ad_R = R`, `Ad*_R Pi = R^T Pi`, `ad*_x Pi = Pi × x`, the sign of
//!   Bou-Rabee & Marsden, *Hamilton–Pontryagin integrators on Lie groups, Part I*, 2009,
//!   arXiv:0801.0996, eq. (3.5).
//! * Derivatives of a chart `tau` (`exp` or Cayley) are **right-trivialized**:
//!   `(D tau(x) · y) tau(x)^{-1} = dtau_x y`, hence `dexp_x = sum_k ad_x^k / (k+1)!` and
//!   `dexp_x^{-1} = sum_j B_j/j! ad_x^j` (Bernoulli numbers, `B_1 = -1/2`). The left-trivialized
//!   derivative is `tau(x)^{-1} (D tau(x) · y) = dtau_{-x} y`, and
//!   `dtau_{-x} = Ad_{tau(-x)} dtau_x` (docs/math.md §D.2).
//! * Every formula is generic over [`Scalar`], so the same code gives values at `f64` and exact
//!   derivatives at dual numbers. Closed forms have Taylor branches in `theta^2` near 0 that are
//!   exact at 0 and keep correct derivatives there.
//!
//! Operations that can fail for some inputs (`log`, Cayley and its inverse, `dexp^{-1}` far from
//! the identity) return [`Result`]. Element types are plain `nalgebra` values; a value built by
//! the caller is trusted by every operation (the unchecked path for hot loops), and
//! [`LieGroup::check_element`] validates user data against a stated tolerance.

mod chart;
mod chart_derivative;
mod every_scalar_chart;
mod family;
mod gl;
mod linear;
pub mod matrix_group;
mod power;
mod product;
mod product_chart;
mod rn;
pub mod se2;
pub mod se3;
mod second_kind;
mod series;
pub mod so2;
pub mod so3;
pub mod su2;
pub mod testing;

pub use chart::{CHART_DERIVATIVE_TOL, CHART_IDENTITY_TOL, ChartReport, GroupChart, check_chart};
pub use chart_derivative::ad_dtau_inv_transpose_derivative;
pub use every_scalar_chart::{ChartAt, EveryScalarChart};
pub use family::{LieGroupFamily, Side};
pub use gl::Gl;
pub use linear::{Linear, MatrixGroup};
pub use power::Power;
pub use product::{Product, So3xR3};
pub use product_chart::ProductChart;
pub use rn::Rn;
pub use se2::Se2;
pub use se3::Se3;
pub use second_kind::SecondKind;
pub use series::{bernoulli, dexp_inv_series, dexp_series, invert};
pub use so2::So2;
pub use so3::So3;
pub use su2::Su2;

use crate::{GeomError, Result, Scalar};
use core::fmt;
use nalgebra::{SMatrix, SVector};

/// Default tolerance of [`LieGroup::check_element`] and of the checked constructors.
pub const MEMBERSHIP_TOLERANCE: f64 = 1e-9;

/// The two shipped local charts `tau: g -> G` used by Cayley-type and RKMK methods (docs/math.md
/// §D.2). A user's chart implements [`GroupChart`] instead; `Chart` implements it for every group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Chart {
    /// The exponential map.
    Exp,
    /// The Cayley map `cay(X) = (I - X/2)^{-1} (I + X/2)`.
    Cayley,
}

impl Chart {
    /// Lower-case name (`"exp"`, `"cayley"`).
    pub fn name(self) -> &'static str {
        match self {
            Chart::Exp => "exp",
            Chart::Cayley => "cayley",
        }
    }
}

/// A `D`-dimensional Lie group, with scalar `S` (f64 or a dual number).
///
/// Object-safe: `Box<dyn LieGroup<f64, 3, Element = Matrix3<f64>, Matrix = Matrix3<f64>>>` holds
/// SO(3). Generic code is written over `G: LieGroup<S, D>` and monomorphised. See the module
/// documentation for the conventions, which every implementation satisfies (the workspace test
/// suite checks each group against them).
pub trait LieGroup<S: Scalar, const D: usize>: fmt::Debug + Send + Sync {
    /// A group element (a plain nalgebra value or a tuple/array of them).
    type Element: Clone + fmt::Debug + Send + Sync;
    /// The faithful matrix representation in which `hat` lives (a tuple for products).
    type Matrix: Clone + fmt::Debug + Send + Sync;

    /// Human-readable name, e.g. `"SO(3)"`.
    fn name(&self) -> String;
    /// The identity `e`.
    fn identity(&self) -> Self::Element;
    /// The product `a b`.
    fn compose(&self, a: &Self::Element, b: &Self::Element) -> Self::Element;
    /// The inverse `a^{-1}`.
    fn inverse(&self, a: &Self::Element) -> Self::Element;
    /// The exponential map `exp(hat(x))`.
    fn exp(&self, x: &SVector<S, D>) -> Self::Element;
    /// The principal logarithm, `exp(log g) = g`; an error where it is not defined.
    fn log(&self, g: &Self::Element) -> Result<SVector<S, D>>;
    /// `hat: R^D -> g`, the algebra element as a matrix of the representation.
    fn hat(&self, x: &SVector<S, D>) -> Self::Matrix;
    /// `vee: g -> R^D`, the inverse of `hat` (on the image of `hat`).
    fn vee(&self, m: &Self::Matrix) -> SVector<S, D>;
    /// The element in the faithful matrix representation.
    fn to_matrix(&self, g: &Self::Element) -> Self::Matrix;
    /// The adjoint representation `Ad_g x = vee(g hat(x) g^{-1})`, as a `D × D` matrix.
    fn adjoint(&self, g: &Self::Element) -> SMatrix<S, D, D>;
    /// The adjoint of the algebra, `ad_x y = [x, y]`, as a `D × D` matrix.
    fn ad(&self, x: &SVector<S, D>) -> SMatrix<S, D, D>;
    /// Right-trivialized derivative of the Cayley map, inverted: `dcay_x^{-1}`, the coordinate
    /// matrix of `Y ↦ Y - [X, Y]/2 - X Y X / 4` (docs/math.md §D.2).
    fn dcay_inv(&self, x: &SVector<S, D>) -> SMatrix<S, D, D>;
    /// The Cayley map `cay(x) = (I - hat(x)/2)^{-1} (I + hat(x)/2)` (docs/math.md §D.2).
    fn cayley(&self, x: &SVector<S, D>) -> Result<Self::Element>;
    /// The inverse Cayley map, `cay(cay^{-1}(g)) = g`.
    fn cayley_inv(&self, g: &Self::Element) -> Result<SVector<S, D>>;
    /// How far `g` is from the group (e.g. `|R^T R - I|_F + |det R - 1|` for SO(3)), measured on
    /// the real part; `+inf` for non-finite entries.
    fn defect(&self, g: &Self::Element) -> f64;
    /// Whether `g` can be stepped from: the check of a state before and after a step of the
    /// group integrators. Default: [`defect`](Self::defect) is finite (which also refuses an
    /// element too large for its defect to be measured); the shipped matrix groups and `R^n`
    /// check that every entry is finite, without the defect's products.
    #[inline]
    fn is_finite(&self, g: &Self::Element) -> bool {
        self.defect(g).is_finite()
    }

    /// The bracket `[x, y] = ad_x y`.
    fn bracket(&self, x: &SVector<S, D>, y: &SVector<S, D>) -> SVector<S, D> {
        self.ad(x) * y
    }
    /// The coadjoint action `Ad*_g mu = (Ad_g)^T mu` on `g*` coordinates.
    fn coadjoint(&self, g: &Self::Element, mu: &SVector<S, D>) -> SVector<S, D> {
        self.adjoint(g).tr_mul(mu)
    }
    /// `ad*_x mu = (ad_x)^T mu`, so that `<ad*_x mu, y> = <mu, [x, y]>`.
    fn ad_star(&self, x: &SVector<S, D>, mu: &SVector<S, D>) -> SVector<S, D> {
        self.ad(x).tr_mul(mu)
    }
    /// Right-trivialized `dexp_x = sum_{k>=0} ad_x^k/(k+1)!` (series; groups override it with
    /// closed forms).
    fn dexp(&self, x: &SVector<S, D>) -> SMatrix<S, D, D> {
        dexp_series(&self.ad(x))
    }
    /// `dexp_x^{-1} = sum_j B_j/j! ad_x^j` (Bernoulli series where it converges fast, otherwise
    /// the inverse of `dexp_x`); an error where `dexp_x` is singular.
    fn dexp_inv(&self, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        series::dexp_inv_default(&self.ad(x))
    }
    /// Right-trivialized derivative of the Cayley map, `dcay_x = (dcay_x^{-1})^{-1}`.
    fn dcay(&self, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        invert(&self.dcay_inv(x), "dcay")
    }
    /// `Ok(())` if `g` is finite and within `tolerance` of the group, else
    /// [`GeomError::NonFinite`] or [`GeomError::OffManifold`].
    fn check_element(&self, g: &Self::Element, tolerance: f64) -> Result<()> {
        let defect = self.defect(g);
        if !defect.is_finite() {
            Err(GeomError::NonFinite { what: "group element" })
        } else if defect > tolerance {
            Err(GeomError::OffManifold { what: "group element", defect, tolerance })
        } else {
            Ok(())
        }
    }
    /// The chart `tau(x)`: `exp` or `cay`.
    #[inline(always)]
    fn tau(&self, chart: Chart, x: &SVector<S, D>) -> Result<Self::Element> {
        match chart {
            Chart::Exp => Ok(self.exp(x)),
            Chart::Cayley => self.cayley(x),
        }
    }
    /// The inverse chart `tau^{-1}(g)`: `log` or `cay^{-1}`.
    #[inline]
    fn tau_inv(&self, chart: Chart, g: &Self::Element) -> Result<SVector<S, D>> {
        match chart {
            Chart::Exp => self.log(g),
            Chart::Cayley => self.cayley_inv(g),
        }
    }
    /// Right-trivialized `dtau_x`.
    #[inline]
    fn dtau(&self, chart: Chart, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        match chart {
            Chart::Exp => Ok(self.dexp(x)),
            Chart::Cayley => self.dcay(x),
        }
    }
    /// Right-trivialized `dtau_x^{-1}`.
    fn dtau_inv(&self, chart: Chart, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        match chart {
            Chart::Exp => self.dexp_inv(x),
            Chart::Cayley => Ok(self.dcay_inv(x)),
        }
    }
    /// `D_x[(dtau_x^{-1})ᵀ mu]`, `[(i, j)] = ∂/∂x_j [(dtau_x^{-1})ᵀ mu]_i` for fixed `mu ∈ g*`,
    /// in closed form where the group has one for `chart`; `None` (the default) tells the caller
    /// to differentiate [`dtau_inv`](Self::dtau_inv) by forward AD instead. Newton matrices of
    /// the Lie-group integrators need it (the derivative of a chart tangent `dtau_x^T n` follows
    /// from it by differentiating `dtau_xᵀ (dtau_x^{-1})ᵀ = I`). SO(3) and SE(3) give the Cayley
    /// chart's polynomial (SO(3): `-½ hat(mu) + ¼ (x muᵀ + (x·mu) I)`), SO(3) also the exp chart's; [`testing::check_group`]
    /// checks any closed form against AD.
    #[inline]
    fn dtau_inv_transpose_closed_form(
        &self,
        _chart: Chart,
        _x: &SVector<S, D>,
        _mu: &SVector<S, D>,
    ) -> Option<SMatrix<S, D, D>> {
        None
    }
    /// Left-trivialized `tau(x)^{-1} (D tau(x) · y) = dtau_{-x} y`.
    fn dtau_left(&self, chart: Chart, x: &SVector<S, D>) -> Result<SMatrix<S, D, D>> {
        self.dtau(chart, &(-x))
    }
    /// `g tau(x)`, the left-translated chart (used by retractions and RKMK stages). Always
    /// inlined: it sits in the stage loops of the group integrators, whose `x` would otherwise
    /// make a round trip through memory at each call.
    #[inline(always)]
    fn compose_tau(&self, chart: Chart, g: &Self::Element, x: &SVector<S, D>) -> Result<Self::Element> {
        Ok(self.compose(g, &self.tau(chart, x)?))
    }
}
