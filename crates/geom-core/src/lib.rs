//! # geom-core
//!
//! The bottom layer of geomint: manifolds, Lie groups, group actions, momentum maps, functions on
//! phase space with exact derivatives, and the one Newton solver every layer above reuses.
//!
//! Conventions are stated once, in [`lie`] (trivializations, `Ad*`, `ad*`), and hold in every
//! crate of the workspace. See `docs/geom-core.md` for the formulas with their sources, and
//! `docs/tour.md` for the whole workspace in one page.
//!
//! # Guided tour
//!
//! The types in the order a user meets them:
//!
//! 1. [`Scalar`]: `f64` or a first-level dual number of `num-dual`. Every formula below is
//!    written once over `S: Scalar`, so that exact derivatives come from evaluating it at dual
//!    numbers.
//! 2. [`lie::LieGroup<S, D>`](lie::LieGroup) (object-safe) and its instances [`lie::So3`],
//!    [`lie::Se3`], [`lie::Se2`], [`lie::So2`], [`lie::Su2`], [`lie::Gl`], [`lie::Rn`],
//!    [`lie::Product`], [`lie::Power`]: `exp`/`log`, the Cayley map, `Ad`, `ad` and their duals,
//!    `dexp`/`dexp^{-1}`, `dcay^{-1}`; [`lie::Chart`] picks $\tau = \exp$ or Cayley.
//! 3. [`action::GroupAction<S, D>`](action::GroupAction) (a **left** action): generators,
//!    tangent and cotangent lifts and the momentum map
//!    $J(q, p)(\xi) = \langle p, \xi\_Q(q) \rangle$ (docs/math.md §A.6) of
//!    [`action::RotationAction`], [`action::LinearAction`], [`action::LeftMultiplication`], ...
//! 4. [`function::PhaseSpaceFunction<N>`](function::PhaseSpaceFunction) (a Hamiltonian
//!    $H(q, p)$, a Lagrangian, a discrete Lagrangian) and [`function::ScalarFunction<N>`](function::ScalarFunction),
//!    written over the scalar; [`function::AutoDiff`] turns them into the object-safe
//!    [`function::PhaseSpaceDerivatives<N>`](function::PhaseSpaceDerivatives) that the
//!    integrators consume (value, gradient, Hessian by num-dual).
//! 5. [`newton`]: the one Newton solver of the workspace (fixed size, blocks, AD Jacobians),
//!    with [`newton::NewtonOptions::integrator`] as the default of every implicit method.
//! 6. [`step`]: the step layer every integrator of every crate shares: the states
//!    [`step::PhaseState`] `(q, p)` and [`step::LieState`] `(g, μ)`, and the one-step trait
//!    [`step::OneStep`].
//!
//! ```rust
//! use geom_core::action::{GroupAction, RotationAction};
//! use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction};
//! use geom_core::lie::{LieGroup, So3};
//! use geom_core::Scalar;
//! use nalgebra::{SVector, Vector3};
//!
//! /// Kepler's Hamiltonian, written once over the scalar.
//! struct Kepler;
//! impl PhaseSpaceFunction<3> for Kepler {
//!     fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
//!         p.norm_squared() * S::from(0.5) - q.norm().recip()
//!     }
//! }
//! let x = Vector3::new(0.3, -0.2, 0.5);
//! assert!((So3.log(&So3.exp(&x))? - x).norm() < 1e-15);
//! let (q, p) = (Vector3::new(1.0, 0.0, 0.0), Vector3::new(0.0, 1.0, 0.0));
//! assert_eq!(RotationAction.momentum_map(&q, &p), Vector3::z()); // J = q × p
//! let (dq, dp) = AutoDiff(Kepler).gradient(&q, &p); // exact: (q/|q|³, p)
//! assert!((dq - q).norm() < 1e-15 && (dp - p).norm() < 1e-15);
//! # Ok::<(), geom_core::GeomError>(())
//! ```
//!
//! # Conventions (docs/math.md §0; they hold in every crate)
//!
//! * Algebra elements are coordinate vectors in $\mathbb{R}^D$, `hat`/`vee` map them to and
//!   from the matrix representation, and $\mathrm{ad}\_x y = [x, y]$ is the matrix commutator.
//! * The duals are transposes: $\mathrm{Ad}^{\ast}\_g = (\mathrm{Ad}\_g)^{\top}$ and
//!   $\langle \mathrm{ad}^{\ast}\_\xi \mu, \eta \rangle = \langle \mu, [\xi, \eta] \rangle$; on
//!   SO(3), $\mathrm{Ad}\_R = R$ and $\mathrm{ad}^{\ast}\_\xi \Pi = \Pi \times \xi$, so
//!   $\dot\mu = \mathrm{ad}^{\ast}\_\xi \mu$ is Euler's $\dot\Pi = \Pi \times \Omega$.
//! * Chart derivatives are **right-trivialized**:
//!   $(D\tau(x) \cdot y) \tau(x)^{-1} = d\tau\_x y$, hence
//!   $d\exp\_x = \sum\_{k \ge 0} \mathrm{ad}\_x^k / (k+1)!$; the left-trivialized derivative is
//!   $d\tau\_{-x} = \mathrm{Ad}\_{\tau(-x)} d\tau\_x$ (docs/math.md §D.2).
//! * Phase space is **left-trivialized**: $v\_g = g \xi$ and $\mu = g^{-1} p \in \mathfrak{g}^{\ast}$
//!   (body momentum); the momentum map of left multiplication is the spatial momentum
//!   $\mathrm{Ad}^{\ast}\_{g^{-1}} \mu$ ($R \Pi$ on SO(3)).
//! * Jacobians are stored row = output, column = input: `J[(i, j)] = ∂f_i/∂x_j`.

#![deny(missing_docs)]

pub mod action;
pub mod error;
pub mod error_free;
pub mod formula;
pub mod function;
pub mod hyper_dual;
pub mod lie;
pub mod linalg;
pub mod manifold;
pub mod newton;
pub mod pairwise;
pub mod scalar;
pub mod step;

pub use error::{GeomError, Result};
pub use scalar::Scalar;

/// The names most code needs: `use geom_core::prelude::*;`.
pub mod prelude {
    pub use crate::action::{
        Diagonal, GroupAction, LeftMultiplication, LinearAction, RigidMotion, RotationAction, SphereRotation,
        Translation,
    };
    pub use crate::function::{
        AutoDiff, Hessian, PhaseSpaceDerivatives, PhaseSpaceFunction, ScalarDerivatives, ScalarFunction,
    };
    pub use crate::lie::{Chart, Gl, LieGroup, Power, Product, Rn, Se2, Se3, So2, So3, Su2};
    pub use crate::manifold::{Euclidean, Manifold, ProductManifold, Sphere2};
    pub use crate::newton::{NewtonOptions, NewtonReport, Residual, newton, newton_ad};
    pub use crate::step::{LieState, LieStateOf, OneStep, PhaseState};
    pub use crate::{GeomError, Result, Scalar};
}
