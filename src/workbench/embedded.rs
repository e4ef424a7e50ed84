//! Baselines for the Lie-group problems that are not variational: classical explicit RK on the matrix
//! entries of `g` (the state leaves the group) and RKMK4 on `SO(3) × R^3` (the state stays on
//! the group but the method is not symplectic). Both integrate the left-trivialized equations
//!
//! ```text
//!   ġ = g ξ̂,   μ̇ = ad*_ξ μ + f(g),   ξ = ∂h/∂μ,
//! ```
//!
//! with `ad*_ξ = (ad_ξ)ᵀ` (geom-core's convention), i.e. Euler's `Π̇ = Π × Ω + τ` on SO(3) and
//! Kirchhoff's `Π̇ = Π × Ω + P × v`, `Ṗ = P × Ω` on SE(3) (docs/math.md §D.1, D.6).

use discretization::OneStep;
use geom_core::GeomError;
use geom_core::lie::{LieGroup, Se3, So3, So3xR3};
use integrators::hp::LieState;
use integrators::models::{FreeRigidBody, HeavyTop, UnderwaterVehicle};
use integrators::rkmk::{GroupState, LieVectorField, Rkmk, rkmk4};
use integrators::tableau::Tableau;
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

/// The left-trivialized vector field of a Lie-group model: `(ξ, μ̇)` at `(g, μ)`.
pub trait LieField<G: LieGroup<f64, D>, const D: usize>: Send + Sync {
    /// `ξ = ∂h/∂μ` and `μ̇ = ad*_ξ μ + f(g)`.
    fn field(&self, group: &G, g: &G::Element, mu: &SVector<f64, D>) -> (SVector<f64, D>, SVector<f64, D>);
}

impl LieField<So3, 3> for FreeRigidBody {
    fn field(&self, group: &So3, _: &Matrix3<f64>, mu: &SVector<f64, 3>) -> (SVector<f64, 3>, SVector<f64, 3>) {
        let xi = self.velocity(mu);
        (xi, group.ad_star(&xi, mu))
    }
}

impl LieField<So3, 3> for HeavyTop {
    fn field(&self, group: &So3, r: &Matrix3<f64>, mu: &SVector<f64, 3>) -> (SVector<f64, 3>, SVector<f64, 3>) {
        let xi = self.velocity(mu);
        (xi, group.ad_star(&xi, mu) + self.torque(r))
    }
}

impl LieField<Se3, 6> for UnderwaterVehicle {
    fn field(
        &self,
        group: &Se3,
        _: &nalgebra::Matrix4<f64>,
        mu: &SVector<f64, 6>,
    ) -> (SVector<f64, 6>, SVector<f64, 6>) {
        let xi = self.velocity(mu);
        (xi, group.ad_star(&xi, mu))
    }
}

/// A classical explicit Runge–Kutta method (any explicit tableau with `S` stages) on `(g, μ)`,
/// with `g` an `M × M` matrix in the embedding space: neither on the group nor symplectic — the
/// baseline the variational methods are measured against.
#[derive(Debug, Clone)]
pub struct EmbeddedRk<G, F, const S: usize> {
    group: G,
    field: F,
    a: [[f64; S]; S],
    b: [f64; S],
    order: u32,
    name: String,
}

impl<G, F, const S: usize> EmbeddedRk<G, F, S> {
    /// The method of the explicit `tableau` for `field` on `group`;
    /// [`GeomError::InvalidParameter`] for an implicit tableau, a dimension mismatch if it does
    /// not have `S` stages.
    pub fn new(tableau: &Tableau, group: G, field: F) -> Result<Self, GeomError> {
        if !tableau.is_explicit() {
            return Err(GeomError::InvalidParameter {
                what: "embedded RK tableau",
                reason: format!("{} is implicit", tableau.name()),
            });
        }
        let (a, b, _) = tableau.arrays::<S>()?;
        Ok(Self {
            group,
            field,
            a,
            b,
            order: tableau.order(),
            name: format!("classical {} (embedded)", tableau.name()),
        })
    }
}

impl<G, F, const M: usize, const D: usize, const S: usize> OneStep<LieState<SMatrix<f64, M, M>, D>>
    for EmbeddedRk<G, F, S>
where
    G: LieGroup<f64, D, Element = SMatrix<f64, M, M>, Matrix = SMatrix<f64, M, M>>,
    F: LieField<G, D>,
{
    fn name(&self) -> String {
        self.name.clone()
    }
    fn order(&self) -> u32 {
        self.order
    }
    fn step(&self, state: &mut LieState<SMatrix<f64, M, M>, D>, h: f64) -> Result<(), GeomError> {
        if !(h.is_finite() && h != 0.0) {
            return Err(GeomError::InvalidStep { h });
        }
        let (g0, m0) = (state.g, state.mu);
        let mut kg = [SMatrix::<f64, M, M>::zeros(); S];
        let mut km = [SVector::<f64, D>::zeros(); S];
        for i in 0..S {
            let (mut g, mut mu) = (g0, m0);
            for j in 0..i {
                g += kg[j] * (h * self.a[i][j]);
                mu += km[j] * (h * self.a[i][j]);
            }
            let (xi, dmu) = self.field.field(&self.group, &g, &mu);
            kg[i] = g * self.group.hat(&xi);
            km[i] = dmu;
        }
        let (mut g, mut mu) = (g0, m0);
        for i in 0..S {
            g += kg[i] * (h * self.b[i]);
            mu += km[i] * (h * self.b[i]);
        }
        if !(g.iter().all(|v| v.is_finite()) && mu.iter().all(|v| v.is_finite())) {
            return Err(GeomError::NonFinite { what: "embedded RK step" });
        }
        *state = LieState::new(g, mu);
        Ok(())
    }
}

/// A method for the ODE `ġ = g f(t, g)` on `SO(3) × R^3` (the state `GroupState` `(t, (R, Π))` of
/// `integrators::rkmk`, `integrators::crouch_grossman`, `integrators::commutator_free`) seen as a
/// method on the HP state `(R, Π)`: RKMK4, Crouch–Grossman CG4a and commutator-free CF4 of a
/// model's field ([`LieVectorField`] of `So3xR3`). They keep `R ∈ SO(3)` and are not symplectic.
#[derive(Debug, Clone)]
pub struct GroupOde<M> {
    inner: M,
}

/// RKMK4 on `SO(3) × R^3` as a method on `(R, Π)`.
pub type Rkmk4So3<F> = GroupOde<Rkmk<So3xR3, F, 6, 4>>;

impl<F: LieVectorField<So3xR3, 6>> GroupOde<Rkmk<So3xR3, F, 6, 4>> {
    /// RKMK4 for the model `field`.
    pub fn new(field: F) -> Result<Self, GeomError> {
        Ok(Self { inner: rkmk4(So3xR3::default(), field)? })
    }
}

impl<M> GroupOde<M> {
    /// The method `inner` of the group ODE (e.g. `integrators::crouch_grossman::cg4a(So3xR3, field)`).
    pub fn of(inner: M) -> Self {
        Self { inner }
    }
}

impl<M: OneStep<GroupState<(Matrix3<f64>, Vector3<f64>)>>> OneStep<LieState<Matrix3<f64>, 3>> for GroupOde<M> {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn order(&self) -> u32 {
        self.inner.order()
    }
    fn step(&self, state: &mut LieState<Matrix3<f64>, 3>, h: f64) -> Result<(), GeomError> {
        let mut s = GroupState::new(0.0, (state.g, state.mu));
        self.inner.step(&mut s, h)?;
        *state = LieState::new(s.g.0, s.g.1);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;

    /// Classical RK4 on the embedding and RKMK4 integrate the same equations: at a small step they
    /// agree to the order-4 error, which catches a wrong sign of `ad*` in [`LieField`].
    #[test]
    fn embedded_rk4_agrees_with_rkmk4() {
        let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0).unwrap();
        let s0 = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(0.4, -0.7, 0.9));
        let rk = EmbeddedRk::<_, _, 4>::new(&integrators::tableau::rk4(), So3, body).unwrap();
        let mk = Rkmk4So3::new(body).unwrap();
        let (mut a, mut b) = (s0, s0);
        for _ in 0..1000 {
            rk.step(&mut a, 0.005).unwrap();
            mk.step(&mut b, 0.005).unwrap();
        }
        let (dpi, dg) = ((a.mu - b.mu).norm(), (a.g - b.g).norm());
        // both are order 4: they differ by O(h⁴) in g (RK4 in the embedding against RKMK4 on
        // SO(3)) and agree to round-off in Π (RKMK4 is RK4 on the additive factor)
        assert!(dpi < 1e-12 && dg < 1e-8, "|ΔΠ| = {dpi:e}, |Δg| = {dg:e}");
        // the motion is not trivial: Π moved by O(1)
        assert!((a.mu - s0.mu).norm() > 0.1);
        // an implicit tableau is refused
        assert!(EmbeddedRk::<_, _, 2>::new(&integrators::tableau::gauss_legendre(2).unwrap(), So3, body).is_err());
    }
}
