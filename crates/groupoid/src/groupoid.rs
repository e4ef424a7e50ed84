//! Lie groupoids `G ⇉ Q` behind one object-safe trait, [`LieGroupoid`] (docs/math.md §C.1–C.2).
//!
//! A groupoid has source `α`, target `β`, identities `ε(x)`, inversion `i` and a partial
//! multiplication `g h` defined when `β(g) = α(h)`. Its Lie algebroid `A_x G = ker T_{ε(x)} α` is
//! described in coordinates by a **fibre chart** `exp_x: R^R ≅ A_x G -> α^{-1}(x)` with
//! `exp_x(0) = ε(x)` and `T_0 exp_x = Id`, which fixes the basis of sections `e_a` (`a = 1..R`).
//! The invariant vector fields of a section `X = ξ^a e_a` act on a function `L: G -> R` by
//!
//! * left-invariant:  `X^←(g)(L) = d/dt L(g · exp_{β(g)}(t ξ))|_0`  (`X^←(g) = T l_g X(β(g))`);
//! * right-invariant: `X^→(g)(L) = d/dt L(i(exp_{α(g)}(-t ξ)) · g)|_0`
//!   (`X^→(g) = -T(r_g ∘ i) X(α(g))`),
//!
//! so that on the pair groupoid `X^←(x, y) = (0, X(y))`, `X^→(x, y) = (-X(x), 0)`, and on a Lie
//! group `X^← = gξ`, `X^→ = ξg` (docs/math.md §C.2 table). Every method is generic over the scalar,
//! so these derivatives are exact (num-dual).

use geom_core::{GeomError, Result, Scalar};
use nalgebra::SVector;
use std::fmt::Debug;

/// Default tolerance of the composability check `|β(g) - α(h)| <= tol` in [`LieGroupoid::compose`].
pub const COMPOSABILITY_TOLERANCE: f64 = 1e-9;

/// A Lie groupoid with algebroid rank `R`, at scalar `S` (object-safe).
pub trait LieGroupoid<S: Scalar, const R: usize>: Debug + Send + Sync {
    /// An arrow `g ∈ G`.
    type Element: Clone + Debug + Send + Sync;
    /// A point `x ∈ Q` of the base.
    type Base: Clone + Debug + Send + Sync;

    /// Name, e.g. `"pair groupoid R^3 x R^3"`.
    fn name(&self) -> String;
    /// Source `α(g)`.
    fn source(&self, g: &Self::Element) -> Self::Base;
    /// Target `β(g)`.
    fn target(&self, g: &Self::Element) -> Self::Base;
    /// Identity `ε(x)`.
    fn identity(&self, x: &Self::Base) -> Self::Element;
    /// Inversion `i(g) = g^{-1}`: `α(g^{-1}) = β(g)`, `β(g^{-1}) = α(g)`.
    fn inverse(&self, g: &Self::Element) -> Self::Element;
    /// The product `g h` for a composable pair, unchecked (see [`LieGroupoid::compose`]).
    fn multiply(&self, g: &Self::Element, h: &Self::Element) -> Self::Element;
    /// Distance of two base points (on the real part), used for the composability check.
    fn base_distance(&self, a: &Self::Base, b: &Self::Base) -> f64;
    /// The fibre chart `exp_x: R^R -> α^{-1}(x)`, `exp_x(0) = ε(x)`, `T_0 exp_x = Id`.
    fn fibre_exp(&self, x: &Self::Base, xi: &SVector<S, R>) -> Self::Element;
    /// Its inverse: the fibre coordinates of `g` at `α(g)`, `fibre_exp(α(g), fibre_log(g)) = g`.
    fn fibre_log(&self, g: &Self::Element) -> Result<SVector<S, R>>;

    /// `g h` after checking `β(g) = α(h)` within [`COMPOSABILITY_TOLERANCE`];
    /// [`GeomError::OffManifold`] (`what = "composable pair"`) otherwise.
    fn compose(&self, g: &Self::Element, h: &Self::Element) -> Result<Self::Element> {
        let defect = self.base_distance(&self.target(g), &self.source(h));
        if !defect.is_finite() {
            return Err(GeomError::NonFinite { what: "groupoid element" });
        }
        if defect > COMPOSABILITY_TOLERANCE {
            return Err(GeomError::OffManifold {
                what: "composable pair (target of g != source of h)",
                defect,
                tolerance: COMPOSABILITY_TOLERANCE,
            });
        }
        Ok(self.multiply(g, h))
    }
    /// The left-translated curve `g · exp_{β(g)}(ξ)`, whose velocity at `ξ = 0` along `ξ` is
    /// `X^←(g)`.
    fn left_curve(&self, g: &Self::Element, xi: &SVector<S, R>) -> Self::Element {
        self.multiply(g, &self.fibre_exp(&self.target(g), xi))
    }
    /// The right-translated curve `i(exp_{α(g)}(-ξ)) · g`, whose velocity at `ξ = 0` along `ξ`
    /// is `X^→(g)`.
    fn right_curve(&self, g: &Self::Element, xi: &SVector<S, R>) -> Self::Element {
        let e = self.fibre_exp(&self.source(g), &(-xi));
        self.multiply(&self.inverse(&e), g)
    }
}
