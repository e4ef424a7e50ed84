//! The reduced Hamiltonian of a rigid body about a fixed point in a uniform gravity field, on
//! `so(3)* × R^3`, for the schemes that take `h(Π, Γ)`.

use crate::models::{FreeRigidBody, HeavyTop, half_quadratic};
use discretization::AdvectedFunction;
use geom_core::Scalar;
use nalgebra::{Matrix3, SVector, Vector3};

/// `h(Π, Γ) = ½ Π·I⁻¹Π + mgl Γ·χ` with `Γ = Rᵀ e3` the vertical in the body frame (the heavy top
/// of [`HeavyTop`], Marsden–Ratiu convention; `mgl = 0` for the free body of [`FreeRigidBody`]),
/// written once over the scalar ([`AdvectedFunction`]): `H(R, Π) = h(Π, Rᵀe3)` is the model's
/// energy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReducedTop {
    inertia_inv: Matrix3<f64>,
    mgl: f64,
    chi: Vector3<f64>,
}

impl ReducedTop {
    /// The free body: `h(Π, Γ) = ½ Π·I⁻¹Π`.
    pub fn free(body: &FreeRigidBody) -> Self {
        Self { inertia_inv: inverse(|x| body.velocity(x)), mgl: 0.0, chi: Vector3::z() }
    }
    /// The heavy top: `h(Π, Γ) = ½ Π·I⁻¹Π + mgl Γ·χ`.
    pub fn heavy(top: &HeavyTop) -> Self {
        Self { inertia_inv: inverse(|x| top.velocity(x)), mgl: top.mgl(), chi: *top.chi() }
    }
}

/// The model's own `I⁻¹`, column by column from its `Ω = I⁻¹Π` (`I⁻¹ e_k` is column `k` bit for
/// bit), so that `h` rounds as the model's energy does.
fn inverse(velocity: impl Fn(&Vector3<f64>) -> Vector3<f64>) -> Matrix3<f64> {
    Matrix3::from_columns(&[velocity(&Vector3::x()), velocity(&Vector3::y()), velocity(&Vector3::z())])
}

impl AdvectedFunction<3, 3> for ReducedTop {
    #[inline]
    fn eval<S: Scalar>(&self, mu: &SVector<S, 3>, gamma: &SVector<S, 3>) -> S {
        // the constants stay f64: `I⁻¹` and `mgl χ` scale the scalars `S`
        let height = (0..3).fold(S::zero(), |acc, j| acc + gamma[j] * self.chi[j]);
        half_quadratic(&self.inertia_inv, mu) + height * self.mgl
    }
    /// `h = T(Π) + V(Γ)`.
    fn is_separable(&self) -> bool {
        true
    }
}
