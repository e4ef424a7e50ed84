//! # discretization
//!
//! The construction of Barbero-Liñán, Marrero, Martín de Diego, *From retraction maps to
//! symplectic-momentum numerical integrators*, 2024, arXiv:2401.14800, made executable;
//! docs/math.md §A–B is the specification. A user picks or writes a discretization map
//! `R_d: TQ -> Q × Q` and gets, with no further code, a symplectic integrator for their Hamiltonian
//! or Lagrangian; if `R_d` is symmetry-preserving the integrator conserves the momentum map, and
//! [`checks`] verifies that. `Q` may be `R^N`, a Lie group or a product of spheres `(S^2)^K`.
//!
//! * [`map`]: the traits [`DiscretizationMap`] and [`EuclideanMap`]; [`theta`]: the θ/α-family;
//! * [`autodiff_map`]: maps written once over the scalar ([`MapModel`], [`AutoDiffMap`]) and
//!   adjoints ([`Adjoint`], [`AdjointMap`], docs/math.md §A.5);
//! * [`retraction`]: retractions `R: TM -> M`, the discretization map of any retraction
//!   ([`RetractionMap`]), retractions on `R^N` written once over the scalar
//!   ([`EuclideanRetractionModel`]) and the order of agreement of two retractions
//!   ([`check_retraction_order`], §A.7);
//! * [`lie_group`]: the Lie-group θ-map / midpoint (§A.3), with any chart `τ` ([`lie_chart`]:
//!   the shipped `exp`/Cayley or a user's [`geom_core::lie::GroupChart`]); [`sphere`]: the S²
//!   θ-map (§A.4);
//! * [`checks`]: numerical checks of the defining properties and of symmetry preservation (§A.1, §A.6);
//! * [`hamiltonian`]: the induced integrator `Ψ_h` on `T*R^N` (eq. (4) of Barbero-Liñán et al.
//!   2024), with [`general`] the 4-block system of a nonlinear map (§B.1);
//! * [`lagrangian`]: discrete Lagrangians `L_d = h L(R_d^{-1}(q_0, q_1))`, their discrete
//!   Euler–Lagrange step, and the Lie-group discrete Euler–Poincaré step (§B.1, §B.2, §C.3);
//! * [`lie_function`], [`lie_map`], [`lie_hamiltonian`]: on a Lie group `G`, functions `H(g, μ)`
//!   and `L(g, ξ)` written once over the scalar ([`LieFunction`], with left-trivialized derivatives
//!   by [`LieAutoDiff`]), maps with their left-trivialized derivatives ([`LieGroupMap`]; a user's
//!   [`LieMapModel`] through [`LieAutoDiffMap`]) and the integrators they induce on `T*G = G × g*`
//!   ([`LieCotangentLiftIntegrator`], [`LieLagrangianIntegrator`]; §B.4);
//! * [`sphere_lift`]: the integrators a map on `(S^2)^K` induces on `T*(S^2)^K`
//!   ([`SphereCotangentLiftIntegrator`], [`SphereDiscreteEulerLagrange`]; §B.5);
//! * [`composition`]: composition methods (triple jump, Suzuki, Yoshida, Kahan–Li, McLachlan);
//! * [`OneStep`], [`PhaseState`] and [`LieState`] (re-exported from [`geom_core::step`]): the
//!   step trait and the states every integrator of the workspace shares.
//!
//! # Guided tour
//!
//! The types in the order a user meets them (`docs/discretization.md`, `docs/tour.md`):
//!
//! 1. a Hamiltonian `H(q, p)` written once over the scalar
//!    ([`geom_core::function::PhaseSpaceFunction`]) and wrapped in
//!    [`geom_core::function::AutoDiff`] (on a Lie group, `H(g, μ)` as a [`LieFunction`] wrapped in
//!    [`LieAutoDiff`]);
//! 2. a discretization map $R\_d(x, v) = (R^1(x, v), R^2(x, v))$ with $R\_d(0\_x) = (x, x)$ and
//!    $T\_{0\_x} R^2 - T\_{0\_x} R^1 = \mathrm{Id}$ (docs/math.md §A.1): the θ-family [`ThetaMap`]
//!    $(x - \theta v, x + (1 - \theta) v)$, a map written over the scalar ([`MapModel`] in
//!    [`AutoDiffMap`]), its adjoint ([`AdjointMap`]), or a map on a Lie group
//!    ([`LieGroupThetaMap`], or a [`LieMapModel`] in [`LieAutoDiffMap`]) or on $S^2$
//!    ([`SphereThetaMap`]);
//! 3. the checks of its defining properties and of symmetry preservation
//!    $R\_d(T\Phi\_g v) = (\Phi\_g \times \Phi\_g) R\_d(v)$ ([`checks`]);
//! 4. the integrator it induces, [`CotangentLiftIntegrator`] on `R^N` (a
//!    [`OneStep<PhaseState<N>>`](OneStep)), [`LieCotangentLiftIntegrator`] on a Lie group (a
//!    `OneStep` on [`LieState`]) or [`SphereCotangentLiftIntegrator`] on `(S^2)^K`,
//!    symplectic for every map and momentum-preserving when the map is symmetry-preserving
//!    (Barbero-Liñán et al. 2024, Thm 2);
//! 5. [`Composition`] with a [`composition`] scheme for higher order.
//!
//! ```rust
//! use discretization::composition::triple_jump;
//! use discretization::{Composition, CotangentLiftIntegrator, OneStep, PhaseState, ThetaMap};
//! use geom_core::function::{AutoDiff, PhaseSpaceFunction};
//! use geom_core::Scalar;
//! use nalgebra::{SVector, Vector2};
//!
//! /// Kepler's Hamiltonian in the plane, written once over the scalar.
//! struct Kepler;
//! impl PhaseSpaceFunction<2> for Kepler {
//!     fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
//!         p.norm_squared() * S::from(0.5) - q.norm().recip()
//!     }
//! }
//! let midpoint = CotangentLiftIntegrator::new(ThetaMap::midpoint(), AutoDiff(Kepler));
//! let order4 = Composition::new(midpoint, triple_jump(2))?; // Yoshida/Suzuki triple jump
//! let mut s = PhaseState::new(Vector2::new(0.4, 0.0), Vector2::new(0.0, 2.0)); // e = 0.6
//! let l0 = s.q[0] * s.p[1] - s.q[1] * s.p[0];
//! for _ in 0..1000 {
//!     order4.step(&mut s, 0.01)?;
//! }
//! // the θ-maps are rotation-equivariant: the angular momentum is conserved to round-off
//! assert!((s.q[0] * s.p[1] - s.q[1] * s.p[0] - l0).abs() < 1e-13);
//! assert_eq!(order4.order(), 4);
//! # Ok::<(), geom_core::GeomError>(())
//! ```
//!
//! # Conventions
//!
//! * On $\mathbb{R}^N$ tangent vectors are ambient; on a Lie group they are left-trivialized,
//!   $\xi = g^{-1} v\_g$; on $S^2$ they are ambient vectors orthogonal to $x$.
//! * Jacobian blocks ([`MapJacobian`]): `dx1[(i, j)] = ∂R¹_i/∂x_j`, likewise `dv1`, `dx2`, `dv2`.
//! * The induced integrator (docs/math.md §B.1) applies $T^{\ast} R\_d$ to $h \\, dH$ through $I\_{TQ}$
//!   with $(P\_0, P\_1) = (-p\_k, p\_{k+1})$ and $v = h \partial H / \partial p$; the θ-map
//!   therefore gives the *crossed* weights
//!   $\bar q = (1-\theta) q\_k + \theta q\_{k+1}$, $\bar p = \theta p\_k + (1-\theta) p\_{k+1}$
//!   (not the classical θ-method).
//! * The adjoint is $R\_d^{\ast} = I\_Q \circ R\_d \circ (-1)$ (docs/math.md §A.5): the adjoint of the
//!   θ-map is the $(1-\theta)$-map, the midpoint map is self-adjoint, and a non-self-adjoint map
//!   gives an order-1 method (order 2 with its adjoint, [`composition::adjoint_pair`]).
//! * Step Jacobians are ordered $(q, p)$, and symplecticity is $M^{\top} \Omega M = \Omega$ with
//!   $\Omega = \begin{pmatrix} 0 & I \\\\ -I & 0 \end{pmatrix}$.

#![deny(missing_docs)]

pub mod autodiff_map;
pub mod checks;
pub mod composition;
pub mod error;
pub mod general;
pub mod hamiltonian;
pub mod lagrangian;
pub mod lie_chart;
pub mod lie_function;
pub mod lie_group;
pub mod lie_hamiltonian;
pub mod lie_map;
pub mod lie_poisson;
mod lie_poisson_reconstruction;
pub mod map;
pub mod retraction;
pub mod sphere;
pub mod sphere_lift;
pub mod theta;

pub use autodiff_map::{Adjoint, AdjointMap, AutoDiffMap, MapModel};
pub use checks::{
    AmbientChart, LieChart, MapReport, SymmetryReport, TangentChart, check_discretization_map,
    check_euclidean_derivatives, check_euclidean_map, check_symmetry_preservation,
};
pub use composition::{Composition, CompositionScheme, Stage};
pub use error::DiscretizationError;
pub use general::general_step;
pub use geom_core;
pub use geom_core::step::{LieState, LieStateOf, OneStep, PhaseState, check_step, step_repeatedly};
pub use hamiltonian::CotangentLiftIntegrator;
pub use lagrangian::{
    DiscreteEulerLagrange, DiscreteLagrangianOf, LieGroupDiscreteEulerLagrange, LieGroupDiscreteLagrangian,
};
pub use lie_chart::{AdGroupChart, ThetaChart};
pub use lie_function::{AdLieFunction, AdLieGroup, LieAutoDiff, LieFunction, LieFunctionDerivatives};
pub use lie_group::LieGroupThetaMap;
pub use lie_hamiltonian::{LieCotangentLiftIntegrator, LieLagrangianIntegrator};
pub use lie_map::{LieAutoDiffMap, LieGroupMap, LieMapModel, LieRetractionModel};
pub use lie_poisson::{AdvectedFunction, AdvectedLiePoissonIntegrator, AdvectedState, LiePoissonIntegrator};
pub use map::{CovectorHessian, DiscretizationMap, EuclideanMap, MapJacobian};
pub use retraction::{
    EuclideanRetraction, EuclideanRetractionModel, LieGroupRetraction, ModelRetraction, Retraction, RetractionMap,
    RetractionOrderReport, RetractionReport, SphereExponential, SphereNormalization, check_retraction,
    check_retraction_order,
};
pub use sphere::SphereThetaMap;
pub use sphere_lift::{SphereCotangentLiftIntegrator, SphereDiscreteEulerLagrange};
pub use theta::ThetaMap;

/// The names most code of this layer needs, with geom-core's: `use discretization::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Composition, CotangentLiftIntegrator, DiscretizationMap, LieAutoDiff, LieCotangentLiftIntegrator, LieFunction,
        LieGroupThetaMap, LieLagrangianIntegrator, LiePoissonIntegrator, SphereCotangentLiftIntegrator,
        SphereDiscreteEulerLagrange, SphereThetaMap, ThetaMap,
    };
    pub use geom_core::prelude::*;
}
