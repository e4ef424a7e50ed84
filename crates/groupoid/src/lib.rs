//! # groupoid
//!
//! Marrero, Martín de Diego & Stern, *Symplectic groupoids and discrete constrained Lagrangian
//! mechanics* (2015, arXiv:1103.6250) made executable; its formulas are written out in
//! `docs/math.md` §C.
//!
//! * [`groupoid`]: the object-safe [`LieGroupoid`] trait (source, target, identity, inversion,
//!   multiplication with a composability check, the fibre chart of the Lie algebroid, the curves
//!   whose velocities are the left- and right-invariant vector fields);
//! * [`pair`]: the pair groupoid `Q × Q`; [`lie_group`]: a Lie group `G ⇉ {e}`;
//! * [`pair_manifold`]: the pair groupoids of a Lie group, [`PairOfGroup`] (e.g. `R² × SO(3)`),
//!   and of the sphere, [`SpherePair`]; [`action_groupoid`]: the action groupoid `M × H ⇉ M` of a
//!   right action built from a `geom-core` left action, [`ActionGroupoid`]; [`atiyah`]: the
//!   trivialized Atiyah groupoid `(M × M) × G ⇉ M`, [`TrivialAtiyah`];
//! * [`morphism`]: groupoid morphisms carrying `N` and `L` along, and the reductions they give
//!   (discrete Euler–Poincaré, Lagrange–Poincaré, advected parameters; Marrero et al. 2015, §4);
//! * [`lagrangian`]: discrete Lagrangians, Legendre transforms `F^±L`, regularity, the discrete
//!   Euler–Lagrange flow.
//! * [`constraints`]: constrained systems `(G, N, L)` with `N = {φ = 0}`: points `(g, λ)` of `Σ_L`,
//!   the Legendre transforms `F^±L(g, λ)`, the constrained step [`ConstrainedFlow`] and its
//!   regularity, and the SHAKE/RATTLE form of holonomic constraints [`HolonomicFlow`] (docs/math.md
//!   §C.4);
//! * [`noether`]: symmetries by groupoid automorphisms, the discrete momentum map
//!   `J(g, λ)(ξ) = F^+L(g, λ)(X_ξ)` and its conservation (docs/math.md §C.5);
//! * [`variational`]: the discrete action sum with fixed endpoints and its gradient over
//!   admissible variations, with and without multipliers (Marrero et al. 2015, §5);
//! * [`bvp`]: fixed-endpoint boundary-value problems (discrete optimal control) by shooting with
//!   the exact tangent-map Jacobian [`Shooting`] (docs/math.md §C.6.2–C.6.3);
//! * [`algebroid`]: the Lie algebroid `AG` of every ready-made groupoid as API ([`LieAlgebroid`]:
//!   rank, base chart, anchor `ρ^i_a`, structure functions `C^c_ab`, the bracket
//!   `[X, Y]^c = ρ(X)(Y^c) − ρ(Y)(X^c) + C^c_ab X^a Y^b`) and the public checkers
//!   [`check_algebroid`] (antisymmetry, Jacobi, Leibniz, anchor morphism) and
//!   [`check_groupoid_algebroid`] (the formulas against the derivatives of the groupoid)
//!   (docs/math.md §C.8.1–C.8.2);
//! * [`discretization_map`]: discretization maps `R_d: AG → G` with `R_d(0_x) = ε(x)` and
//!   `∂_a fibre_log(R_d(x, a))|_0 = I` ([`AlgebroidDiscretization`], [`FibreThetaMap`], the
//!   `discretization` crate's maps on `R^N × R^N`, [`check_discretization_map`]), the induced
//!   `L_d = h L ∘ R_d^{-1}` ([`InducedLagrangian`]) and its checked flow [`InducedFlow`]
//!   (docs/math.md §C.8.3–C.8.4); [`every_scalar`]: groups and groupoids at every scalar, which
//!   these generic constructions need.
//!
//! # Guided tour
//!
//! The types in the order a user meets them (`docs/groupoid.md`, `docs/tour.md`,
//! `docs/tutorials/add_a_groupoid.md`):
//!
//! 1. a groupoid $G \rightrightarrows Q$: a ready one ([`PairGroupoid`], [`GroupAsGroupoid`],
//!    [`PairOfGroup`], [`SpherePair`], [`ActionGroupoid`], [`TrivialAtiyah`]) or a new
//!    [`LieGroupoid`] with its [`lagrangian::GroupoidFamily`] and [`GroupoidLift`];
//! 2. a discrete Lagrangian $L: G \to \mathbb{R}$ written once over the scalar
//!    ([`DiscreteLagrangian`]), and optionally constraints $N = \\{ \varphi^a = 0 \\}$
//!    ([`Constraints`]);
//! 3. its Legendre transforms [`legendre_minus`], [`legendre_plus`], the regularity check
//!    [`check_regularity`], and the flows [`DiscreteFlow`] (DEL
//!    $F^+L(g\_k) = F^-L(g\_{k+1})$), [`ConstrainedFlow`], [`DiscreteHamiltonianFlow`];
//! 4. Noether momenta [`momentum_map`], [`check_conservation`] for a symmetry given by its
//!    sections ([`PairDiagonal`], [`ConstantSection`], [`FnSection`]);
//! 5. or, instead of writing $L\_d$ by hand: the algebroid $AG$ ([`LieAlgebroid`]), a
//!    discretization map $R\_d: AG \to G$ ([`FibreThetaMap`], checked by
//!    [`check_discretization_map`]), a Lagrangian on $AG$ ([`AlgebroidLagrangian`]) and the
//!    induced $L\_d = h L \circ R\_d^{-1}$ ([`InducedLagrangian`], [`InducedFlow`]).
//!
//! ```rust
//! use geom_core::Scalar;
//! use groupoid::{DiscreteFlow, DiscreteLagrangian, PairGroupoid, check_regularity, legendre_plus};
//! use nalgebra::SVector;
//!
//! /// Midpoint discrete Lagrangian of the oscillator, `h L((q0 + q1)/2, (q1 - q0)/h)`.
//! struct Oscillator(f64);
//! impl DiscreteLagrangian<PairGroupoid<1>, 1> for Oscillator {
//!     fn eval<S: Scalar>(&self, _: &PairGroupoid<1>, g: &(SVector<S, 1>, SVector<S, 1>)) -> S {
//!         let (h, v, q) = (S::from(self.0), (g.1[0] - g.0[0]) / S::from(self.0), (g.0[0] + g.1[0]) * S::from(0.5));
//!         h * (v * v - q * q) * S::from(0.5)
//!     }
//! }
//! let flow = DiscreteFlow::new(PairGroupoid::<1>, Oscillator(0.1));
//! let mut g = (SVector::from([1.0]), SVector::from([0.995])); // the arrow (q_0, q_1)
//! for _ in 0..100 {
//!     g = flow.step(&g)?.0; // D_2 L(q_{k-1}, q_k) + D_1 L(q_k, q_{k+1}) = 0
//! }
//! let p = legendre_plus(&PairGroupoid::<1>, flow.lagrangian(), &g); // p_{k+1} = D_2 L
//! assert!(((g.1[0] * g.1[0] + p[0] * p[0]) - 1.0).abs() < 0.01); // the midpoint rule: energy bounded
//! assert!(check_regularity(&PairGroupoid::<1>, flow.lagrangian(), &g).is_ok());
//! # Ok::<(), geom_core::GeomError>(())
//! ```
//!
//! # Conventions (docs/math.md §C.1–C.3)
//!
//! * The fibre chart $\exp\_x: \mathbb{R}^R \to \alpha^{-1}(x)$ fixes the basis of sections; all
//!   covectors (Legendre transforms, momenta) are components in that basis.
//! * $F^-L(g)(X) = X^{\to}(g)(L) \in A^{\ast}\_{\alpha(g)} G$ (right-invariant field, curve
//!   $i(\exp\_{\alpha(g)}(-t\xi)) \cdot g$) and $F^+L(g)(X) = X^{\leftarrow}(g)(L) \in A^{\ast}\_{\beta(g)} G$
//!   (left-invariant field, curve $g \cdot \exp\_{\beta(g)}(t\xi)$).
//! * Pair groupoid: $F^-L = -D\_1 L$, $F^+L = D\_2 L$ (so $p\_k = -D\_1 L(q\_k, q\_{k+1})$,
//!   $p\_{k+1} = D\_2 L(q\_k, q\_{k+1})$). Lie group: $F^-L$ is the right-trivialized and $F^+L$ the
//!   left-trivialized derivative, and the DEL give $\mu\_{k+1} = \mathrm{Ad}^{\ast}\_{g\_{k+1}} \mu\_k$.
//! * Action groupoids use the **right** action $x \cdot h = \Phi(h^{-1}, x)$ built from a
//!   geom-core left action; their anchor is the right-action generator $-\xi^{\Phi}$.

#![deny(missing_docs)]

pub mod action_groupoid;
pub mod algebroid;
pub mod atiyah;
pub mod bvp;
pub mod constraints;
pub mod control;
pub mod discretization_map;
pub mod every_scalar;
pub mod groupoid;
pub mod integrator;
pub mod lagrangian;
pub mod lie_group;
pub mod models;
pub mod morphism;
pub mod noether;
pub mod nonholonomic;
pub mod pair;
pub mod pair_manifold;
pub mod time_dependent;
pub mod time_integrator;
pub mod variational;

pub use action_groupoid::{ActionFamily, ActionGroupoid};
pub use algebroid::{LieAlgebroid, check_algebroid, check_groupoid_algebroid};
pub use atiyah::TrivialAtiyah;
pub use bvp::{BvpError, BvpSolution, MultipleShooting, RobustSolution, Shooting, ShootingOptions};
pub use constraints::{
    Augmented, BaseConstraints, ConstrainedFlow, Constraints, HolonomicFlow, NoConstraints, SigmaPoint,
    legendre_minus_constrained, legendre_plus_constrained,
};
pub use discretization_map::{
    AlgebroidDiscretization, AlgebroidLagrangian, FibreThetaMap, InducedFlow, InducedLagrangian,
    check_discretization_map,
};
pub use every_scalar::EveryScalarGroupoid;
pub use geom_core;
pub use groupoid::LieGroupoid;
pub use lagrangian::{
    AdGroupoid, DiscreteFlow, DiscreteHamiltonianFlow, DiscreteLagrangian, FlowStats, GroupoidLift,
    check_fibre_differential, check_regularity, invert_legendre_minus, invert_legendre_minus_carried, legendre_minus,
    legendre_minus_derivative, legendre_plus, pairing_matrix,
};
pub use lie_group::GroupAsGroupoid;
pub use morphism::{AdvectedReduction, AtiyahQuotient, GroupoidMorphism, LeftTrivialization, Pullback};
pub use noether::{
    ConstantSection, FnSection, InfinitesimalSymmetry, PairDiagonal, check_conservation, constrained_momentum_map,
    momentum_map,
};
pub use pair::PairGroupoid;
pub use pair_manifold::{PairOfGroup, SpherePair};
pub use variational::{action_gradient, action_sum, tangent_gradient};

/// The names most code of this layer needs, with geom-core's: `use groupoid::prelude::*;`.
pub mod prelude {
    pub use crate::constraints::{BaseConstraints, ConstrainedFlow, Constraints, HolonomicFlow};
    pub use crate::integrator::{
        CotangentPoint, FlowState, GroupoidIntegrator, Induced, LagrangianFamily, NonholonomicIntegrator,
        RattleIntegrator, Stepped,
    };
    pub use crate::nonholonomic::{MidpointConstraints, NonholonomicConstraints, NonholonomicFlow, OneForms};
    pub use crate::time_dependent::{ContinuousLagrangian, Midpoint, StepLagrangian};
    pub use crate::{DiscreteFlow, DiscreteLagrangian, GroupAsGroupoid, LieGroupoid, PairGroupoid};
    pub use geom_core::prelude::*;
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom_core::lie::{Chart, LieGroup, So3};
    use geom_core::{Scalar, lie::so3};
    use nalgebra::{Matrix3, SVector, Vector3};

    /// Midpoint discrete Lagrangian of the harmonic oscillator, `h L((q0+q1)/2, (q1-q0)/h)`.
    struct MidpointOscillator {
        h: f64,
    }
    impl DiscreteLagrangian<PairGroupoid<1>, 1> for MidpointOscillator {
        #[inline]
        fn eval<S: Scalar>(&self, _g: &PairGroupoid<1>, g: &(SVector<S, 1>, SVector<S, 1>)) -> S {
            let h = S::from(self.h);
            let v = (g.1[0] - g.0[0]) / h;
            let q = (g.0[0] + g.1[0]) * S::from(0.5);
            h * (v * v - q * q) * S::from(0.5)
        }
    }

    #[test]
    fn pair_groupoid_del_is_the_midpoint_variational_integrator() {
        let h = 0.1;
        let flow = DiscreteFlow::new(PairGroupoid::<1>, MidpointOscillator { h });
        // midpoint rule for q'' = -q in (q, p): exact linear map
        let a = (1.0 - h * h / 4.0) / (1.0 + h * h / 4.0);
        let b = h / (1.0 + h * h / 4.0);
        let (mut q, mut p) = (1.0f64, 0.0f64);
        let q1 = a * q + b * p;
        let mut g = (SVector::from([q]), SVector::from([q1]));
        (q, p) = (q1, -b * q + a * p);
        for _ in 0..200 {
            let (next, _) = flow.step(&g).unwrap();
            let qn = a * q + b * p;
            let pn = -b * q + a * p;
            assert!((next.1[0] - qn).abs() < 1e-13, "{} vs {}", next.1[0], qn);
            // F^+L(g_k) is the momentum p_k at the shared node
            let pk = legendre_plus(&PairGroupoid::<1>, flow.lagrangian(), &next);
            assert!((pk[0] - pn).abs() < 1e-12);
            (q, p, g) = (qn, pn, next);
        }
        assert!(check_regularity(&PairGroupoid::<1>, flow.lagrangian(), &g).is_ok());
    }

    /// `L(W) = (1/h) ½ ξᵀ I ξ` with `ξ = τ^{-1}(W)`: the rigid body on SO(3) as a groupoid.
    struct RigidBody {
        h: f64,
        inertia: Vector3<f64>,
    }
    impl DiscreteLagrangian<GroupAsGroupoid<So3>, 3> for RigidBody {
        #[inline]
        fn eval<S: Scalar>(&self, gd: &GroupAsGroupoid<So3>, w: &Matrix3<S>) -> S {
            let xi = gd.group().tau_inv(gd.chart(), w).unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
            let i = self.inertia.map(S::from);
            (xi[0] * xi[0] * i[0] + xi[1] * xi[1] * i[1] + xi[2] * xi[2] * i[2]) * S::from(0.5 / self.h)
        }
    }

    #[test]
    fn lie_group_del_is_discrete_lie_poisson() {
        for chart in [Chart::Exp, Chart::Cayley] {
            let gd = GroupAsGroupoid::new(So3, chart);
            let flow = DiscreteFlow::new(gd, RigidBody { h: 0.05, inertia: Vector3::new(1.0, 2.0, 3.5) });
            let mut w = so3::exp(&Vector3::new(0.05, -0.02, 0.04));
            let mut r = Matrix3::<f64>::identity();
            let mu0 = legendre_minus(&gd, flow.lagrangian(), &w);
            // node k: R_k = W_1 ... W_k, body momentum Π_k = F^+L(W_k); spatial R_k Π_k (§C.5)
            let spatial0 = r * w * legendre_plus(&gd, flow.lagrangian(), &w);
            for _ in 0..500 {
                let mu_k = legendre_minus(&gd, flow.lagrangian(), &w);
                let (next, _) = flow.step(&w).unwrap();
                r *= w;
                let mu_next = legendre_minus(&gd, flow.lagrangian(), &next);
                // DEL F^+L(W_k) = F^-L(W_{k+1}) with F^+L = Ad*_W F^-L: the discrete Lie-Poisson
                // map mu_{k+1} = Ad*_{W_k} mu_k = W_kᵀ mu_k (docs/math.md §C.3, indices shifted by
                // one)
                assert!((mu_next - LieGroup::<f64, 3>::coadjoint(&So3, &w, &mu_k)).norm() < 1e-12);
                w = next;
                // Casimir |mu| and spatial momentum R_k F^+L(W_k) are exact
                assert!((mu_next.norm() - mu0.norm()).abs() < 1e-12);
                let spatial = r * w * legendre_plus(&gd, flow.lagrangian(), &w);
                assert!((spatial - spatial0).norm() < 1e-11, "{chart:?}: {}", (spatial - spatial0).norm());
            }
        }
    }

    #[test]
    fn discrete_hamiltonian_flow_is_the_midpoint_rule_on_momenta() {
        // F^+L ∘ (F^-L)^{-1} on A*(R × R) = T*R: (q_k, p_k) ↦ (q_{k+1}, p_{k+1}) of the midpoint rule
        let h = 0.1;
        let flow = DiscreteHamiltonianFlow::new(PairGroupoid::<1>, MidpointOscillator { h });
        let a = (1.0 - h * h / 4.0) / (1.0 + h * h / 4.0);
        let b = h / (1.0 + h * h / 4.0);
        let (mut q, mut p) = (SVector::from([1.0]), SVector::from([0.3]));
        let mut guess = SVector::from([0.0]);
        for _ in 0..100 {
            let (q1, p1, g) = flow.step(&q, &p, &guess).unwrap();
            let (qe, pe) = (a * q[0] + b * p[0], -b * q[0] + a * p[0]);
            assert!((q1[0] - qe).abs() < 1e-13 && (p1[0] - pe).abs() < 1e-13);
            // the arrow found is (q_k, q_{k+1}) and F^-L of it is the momentum we started from
            assert!((legendre_minus(&PairGroupoid::<1>, flow.lagrangian_flow().lagrangian(), &g) - p).norm() < 1e-13);
            guess = q1 - q;
            (q, p) = (q1, p1);
        }
    }

    #[test]
    fn composability_is_checked() {
        let pg = PairGroupoid::<2>;
        let g = (SVector::from([0.0, 0.0]), SVector::from([1.0, 0.0]));
        let h = (SVector::from([1.0, 0.0]), SVector::from([2.0, 1.0]));
        assert!(LieGroupoid::<f64, 2>::compose(&pg, &g, &h).is_ok());
        assert!(LieGroupoid::<f64, 2>::compose(&pg, &h, &g).is_err());
    }
}
