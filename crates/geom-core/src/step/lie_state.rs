//! The state `(g, μ)` of `T*G ≅ G × g*` in left trivialization.

use crate::lie::{LieGroup, MEMBERSHIP_TOLERANCE};
use crate::{GeomError, Result};
use nalgebra::SVector;

/// A point `(g, μ)` of `T*G ≅ G × g*` in left trivialization: the configuration `g ∈ G` and the
/// body momentum `μ = g^{-1} p ∈ g* ≅ R^D` (`μ = ∂ℓ/∂ξ` for a left-trivialized Lagrangian
/// `ℓ(g, ξ)`; `Π` of the rigid body). The one state of every integrator of the workspace on
/// `T*G`: Hamilton–Pontryagin RKMK, the LGVI, the Lie-group cotangent lift and Lagrangian
/// integrators of a discretization map, and Lie–Poisson reconstruction.
///
/// `E` is the group's element type (`Matrix3<f64>` for SO(3)); [`LieStateOf<G, D>`] names the
/// same type by the group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LieState<E, const D: usize> {
    /// Configuration `g ∈ G`.
    pub g: E,
    /// Body (left-trivialized) momentum `μ = g^{-1} p ∈ g* ≅ R^D`.
    pub mu: SVector<f64, D>,
}

/// The state [`LieState`] of the group `G`: `LieState<<G as LieGroup<f64, D>>::Element, D>`.
pub type LieStateOf<G, const D: usize> = LieState<<G as LieGroup<f64, D>>::Element, D>;

impl<E, const D: usize> LieState<E, D> {
    /// The state `(g, μ)` (trusted, unchecked).
    pub fn new(g: E, mu: SVector<f64, D>) -> Self {
        Self { g, mu }
    }

    /// A checked state: `g` within [`MEMBERSHIP_TOLERANCE`] `= 1e-9` of the group
    /// ([`LieGroup::check_element`]) and `μ` finite.
    ///
    /// ```
    /// use geom_core::lie::So3;
    /// use geom_core::step::LieState;
    /// use nalgebra::{Matrix3, Vector3};
    /// assert!(LieState::checked(&So3, Matrix3::identity(), Vector3::new(1.0, 0.0, 0.0)).is_ok());
    /// assert!(LieState::checked(&So3, Matrix3::identity() * 2.0, Vector3::zeros()).is_err());
    /// assert!(LieState::checked(&So3, Matrix3::identity(), Vector3::new(f64::NAN, 0.0, 0.0)).is_err());
    /// ```
    pub fn checked<G: LieGroup<f64, D, Element = E> + ?Sized>(group: &G, g: E, mu: SVector<f64, D>) -> Result<Self> {
        group.check_element(&g, MEMBERSHIP_TOLERANCE)?;
        if !mu.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "body momentum" });
        }
        Ok(Self { g, mu })
    }

    /// The spatial momentum `Ad*_{g^{-1}} μ`, the momentum map of left multiplication (`Rμ` on
    /// SO(3), `(Rμ_ω + x × Rμ_v, Rμ_v)` on SE(3)); conserved by a left-invariant system.
    ///
    /// ```
    /// use geom_core::lie::{LieGroup, So3};
    /// use geom_core::step::LieState;
    /// use nalgebra::Vector3;
    /// let r = So3.exp(&Vector3::new(0.2, -0.4, 0.1));
    /// let s = LieState::new(r, Vector3::new(1.0, 2.0, 3.0));
    /// assert!((s.spatial_momentum(&So3) - r * s.mu).norm() < 1e-15);
    /// ```
    pub fn spatial_momentum<G: LieGroup<f64, D, Element = E> + ?Sized>(&self, group: &G) -> SVector<f64, D> {
        group.coadjoint(&group.inverse(&self.g), &self.mu)
    }
}
