//! Engø–Faltinsen's coadjoint-orbit and energy preserving scheme ([`CoadjointEnergy`]) for a
//! rigid body about a fixed point whose energy depends on its attitude through the vertical only,
//! `H(R, Π) = h(Π, Γ)` with `Γ = Rᵀe3` (the heavy top), stepped on `T*SO(3) ∋ (R, Π)`.
//!
//! Such a body is a Lie–Poisson system on the dual of the semidirect product
//! `se(3) = so(3) ⋉ R³` in the variables `μ = (Π, Γ)` (Marsden & Ratiu, *Introduction to
//! Mechanics and Symmetry*, 1999, §14.7 and §15.9): `ξ = ∇h = (Ω, ∂h/∂Γ)`,
//! `μ̇ = ad*_ξ μ`, i.e. `Π̇ = Π×Ω + Γ×∂h/∂Γ`, `Γ̇ = Γ×Ω`. Engø & Faltinsen's step on `se(3)*`
//! (Engø & Faltinsen, *Numerical integration of Lie–Poisson systems while preserving coadjoint
//! orbits and energy*, SIAM J. Numer. Anal. 39, 2001),
//!
//! ```text
//!   μ_{k+1} = Ad*_{τ(hξ)} μ_k,   ξ = Gonzalez's discrete gradient of h at (μ_k, μ_{k+1}),
//! ```
//!
//! keeps `h` and the Casimirs `|Γ|²`, `Π·Γ`; its rotation block `W = τ(hΩ̄)` (`Ω̄` the rotational
//! part of `ξ`) moves the attitude, `R_{k+1} = R_k W`, so that `Γ_{k+1} = Wᵀ Γ_k = R_{k+1}ᵀ e3`: the
//! step on `(R, Π)` reads `Γ_k` off `R_k` and returns `(R_k W, Π_{k+1})`. It conserves the energy
//! `H(R, Π)` and the vertical angular momentum `e3·RΠ` (a Casimir of the semidirect product in
//! the spatial frame) to round-off; it is not symplectic on `T*SO(3)`.

use super::CoadjointEnergy;
use discretization::AdvectedFunction;
use geom_core::function::ScalarFunction;
use geom_core::lie::{Chart, Se3};
use geom_core::step::{LieState, OneStep};
use geom_core::{GeomError, Scalar};
use nalgebra::{Matrix3, SVector, Vector3, Vector6};

/// `h(Π, Γ)` as a function on `se(3)* ∋ μ = (Π, Γ)`: `μ ↦ h(μ_{0..3}, μ_{3..6})`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OnSe3Dual<H>(pub H);

impl<H: AdvectedFunction<3, 3>> ScalarFunction<6> for OnSe3Dual<H> {
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, 6>) -> S {
        self.0.eval(&x.fixed_rows::<3>(0).into_owned(), &x.fixed_rows::<3>(3).into_owned())
    }
}

/// [`CoadjointEnergy`] on `se(3)*` as a step of `(R, Π) ∈ T*SO(3)` for `H(R, Π) = h(Π, Rᵀe3)`
/// (module documentation): `Γ_k = R_kᵀe3`, `(Π_{k+1}, Γ_{k+1}) = Ad*_{W} (Π_k, Γ_k)` with
/// `W = τ(hξ) ∈ SE(3)`, `R_{k+1} = R_k W_rot`.
///
/// ```
/// use geom_core::lie::{Chart, LieGroup, So3};
/// use geom_core::step::{LieState, OneStep};
/// use integrators::lie_poisson_baselines::{ReducedTop, VerticalCoadjointEnergy};
/// use integrators::models::HeavyTop;
/// use nalgebra::{Matrix3, Vector3};
///
/// let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::z())?;
/// let method = VerticalCoadjointEnergy::new(Chart::Cayley, ReducedTop::heavy(&top));
/// let mut s = LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
/// let energy = |s: &LieState<Matrix3<f64>, 3>| top.energy(s);
/// let e0 = energy(&s);
/// for _ in 0..1000 {
///     method.step(&mut s, 0.05)?;
/// }
/// assert!((energy(&s) - e0).abs() < 1e-13);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct VerticalCoadjointEnergy<H> {
    inner: CoadjointEnergy<Se3, OnSe3Dual<H>>,
}

impl<H> VerticalCoadjointEnergy<H> {
    /// The scheme with the chart `chart` of SE(3) for the reduced Hamiltonian `h(Π, Γ)`.
    pub fn new(chart: Chart, reduced: H) -> Self {
        Self { inner: CoadjointEnergy::new(Se3, chart, OnSe3Dual(reduced)) }
    }
    /// The scheme on `se(3)*` it steps with.
    pub fn on_se3(&self) -> &CoadjointEnergy<Se3, OnSe3Dual<H>> {
        &self.inner
    }
}

impl<H: AdvectedFunction<3, 3>> OneStep<LieState<Matrix3<f64>, 3>> for VerticalCoadjointEnergy<H> {
    fn name(&self) -> String {
        format!("Engø–Faltinsen on se(3)* for a potential of the vertical ({})", self.inner.chart().name())
    }
    fn order(&self) -> u32 {
        2
    }
    fn is_symmetric(&self) -> bool {
        true
    }
    /// `(R, Π) ↦ (R W_rot, Π_{k+1})`; on an error (those of [`CoadjointEnergy::advance`]) the
    /// state is untouched.
    fn step(&self, state: &mut LieState<Matrix3<f64>, 3>, h: f64) -> Result<(), GeomError> {
        let gamma = state.g.tr_mul(&Vector3::z());
        let mu = Vector6::new(state.mu[0], state.mu[1], state.mu[2], gamma[0], gamma[1], gamma[2]);
        let (mu1, w) = self.inner.advance(&mu, h)?;
        let r = state.g * w.fixed_view::<3, 3>(0, 0);
        geom_core::error::check_finite(r.iter(), "attitude after step")?;
        *state = LieState::new(r, mu1.fixed_rows::<3>(0).into_owned());
        Ok(())
    }
}
