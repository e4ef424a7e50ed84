//! The Lie–Poisson integrator on `T*G` by reconstruction: for a left-invariant `H(g, μ) = h(μ)`
//! and a left-equivariant map, the cotangent-lift step from `(g_k, μ_k)` is the reduced step
//! translated by `g_k` (Lie–Poisson reduction, [`crate::lie_poisson`]):
//!
//! ```text
//!   (μ_{k+1}, W_k) = reduced step of μ_k,      g_{k+1} = g_k W_k,
//! ```
//!
//! so [`LiePoissonIntegrator`] is also a [`OneStep`] on the unreduced state `(g, μ)`
//! ([`LieState`]): the same flow as [`crate::LieCotangentLiftIntegrator`] of the same map and
//! Hamiltonian, computed by one reduced solve (the θ-maps' single block) and one group product.
//! It preserves the Casimirs of `μ`, the spatial momentum `Ad*_{g^{-1}} μ` and `g ∈ G` to
//! round-off, as the lift does.

use crate::lie_map::LieGroupMap;
use crate::lie_poisson::{Grp, HasGroup, LiePoissonIntegrator};
use crate::map::DiscretizationMap;
use geom_core::GeomError;
use geom_core::function::ScalarFunction;
use geom_core::lie::LieGroup;
use geom_core::step::{LieState, LieStateOf, OneStep};

/// The order and symmetry of the integrator on either state (inherent, so that `lp.order()`
/// needs no state type: the two [`OneStep`] impls answer the same).
impl<R: DiscretizationMap, H> LiePoissonIntegrator<R, H> {
    /// 2 for a symmetric map (the θ = ½ maps), else 1.
    pub fn order(&self) -> u32 {
        if self.map().is_symmetric() { 2 } else { 1 }
    }
    /// Whether the map is symmetric, and with it the integrator.
    pub fn is_symmetric(&self) -> bool {
        self.map().is_symmetric()
    }
}

impl<R, H, const D: usize> OneStep<LieStateOf<Grp<R, D>, D>> for LiePoissonIntegrator<R, H>
where
    R: LieGroupMap<Grp<R, D>, D> + Clone + HasGroup<D>,
    H: ScalarFunction<D>,
{
    fn name(&self) -> String {
        format!("{} with reconstruction g_(k+1) = g_k W_k", OneStep::<nalgebra::SVector<f64, D>>::name(self))
    }
    fn order(&self) -> u32 {
        LiePoissonIntegrator::order(self)
    }
    fn is_symmetric(&self) -> bool {
        LiePoissonIntegrator::is_symmetric(self)
    }
    /// `(g, μ) ↦ (g W, μ')` with `(μ', W)` from [`LiePoissonIntegrator::advance`]; the state is
    /// untouched on error.
    fn step(&self, state: &mut LieStateOf<Grp<R, D>, D>, h: f64) -> Result<(), GeomError> {
        let (mu, w) = self.advance::<Grp<R, D>, D>(&state.mu, h)?;
        let g = LieGroup::<f64, D>::compose(self.map().group(), &state.g, &w);
        *state = LieState::new(g, mu);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::lie_poisson::LiePoissonIntegrator;
    use crate::{LieAutoDiff, LieCotangentLiftIntegrator, LieFunction, LieGroupThetaMap, OneStep};
    use geom_core::Scalar;
    use geom_core::function::ScalarFunction;
    use geom_core::lie::{Chart, LieGroup, So3};
    use geom_core::step::LieState;
    use nalgebra::{Matrix3, SVector, Vector3};

    /// `h(μ) = ½ μ·I⁻¹μ`, `I = diag(2, 1, 2/3)`, as a reduced and as a full Hamiltonian.
    #[derive(Debug, Clone, Copy)]
    struct Body;
    impl ScalarFunction<3> for Body {
        fn eval<S: Scalar>(&self, p: &SVector<S, 3>) -> S {
            (p[0] * p[0] * S::from(0.5) + p[1] * p[1] + p[2] * p[2] * S::from(1.5)) * S::from(0.5)
        }
    }
    impl<S: Scalar> LieFunction<S, So3, 3> for Body {
        fn eval(&self, _: &So3, _: &Matrix3<S>, mu: &SVector<S, 3>) -> S {
            ScalarFunction::<3>::eval(self, mu)
        }
    }

    /// Reduction then reconstruction is the unreduced cotangent lift of the same map (both
    /// charts, θ = ½ and θ = 0), to round-off over 200 steps; the spatial momentum `R Π` and
    /// the Casimir are kept.
    #[test]
    fn reconstruction_equals_the_unreduced_lift() {
        for chart in [Chart::Cayley, Chart::Exp] {
            for theta in [0.5, 0.0] {
                let map = LieGroupThetaMap::<So3, 3>::new(So3, theta, chart).unwrap();
                let lp = LiePoissonIntegrator::new(map, Body);
                let lift = LieCotangentLiftIntegrator::new(map, LieAutoDiff(Body));
                let s0 = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(0.4, 1.0, -0.7));
                let (mut a, mut b) = (s0, s0);
                for _ in 0..200 {
                    lp.step(&mut a, 0.1).unwrap();
                    lift.step(&mut b, 0.1).unwrap();
                }
                let (dg, dm) = ((a.g - b.g).amax(), (a.mu - b.mu).amax());
                assert!(dg < 1e-11 && dm < 1e-11, "{chart:?} θ = {theta}: |Δg| {dg:e}, |Δμ| {dm:e}");
                let spatial = (a.g * a.mu - s0.g * s0.mu).amax();
                assert!(spatial < 1e-12, "spatial momentum drift {spatial:e}");
                assert!((a.mu.norm_squared() - s0.mu.norm_squared()).abs() < 1e-12);
                // the state moved (a step that did nothing would pass the checks above)
                assert!((a.g - s0.g).amax() > 0.1);
            }
        }
    }

    /// A failed step leaves `(g, μ)` untouched.
    #[test]
    fn a_failed_step_leaves_the_state() {
        let lp = LiePoissonIntegrator::new(LieGroupThetaMap::<So3, 3>::midpoint(So3, Chart::Cayley), Body);
        let mut s = LieState::new(Matrix3::identity(), Vector3::new(f64::NAN, 0.0, 1.0));
        let before = format!("{s:?}");
        assert!(lp.step(&mut s, 0.1).is_err());
        assert_eq!(format!("{s:?}"), before);
    }
}
