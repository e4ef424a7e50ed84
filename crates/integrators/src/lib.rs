//! # integrators
//!
//! Bou-Rabee & Marsden, *Hamilton–Pontryagin integrators on Lie groups, Part I* (2009,
//! arXiv:0801.0996) made executable, beside the classical symplectic families a user expects to
//! find next to it. Its formulas are written out in `docs/math.md` §D.
//!
//! * [`tableau`]: validated Butcher tableaux (Gauss–Legendre, Lobatto IIIA/IIIB, explicit RK);
//! * [`classical`]: symplectic Euler, Störmer–Verlet, Gauss–Legendre collocation, Lobatto
//!   IIIA–IIIB on `T*R^n`; [`verlet_composition`]: compositions of Störmer–Verlet with merged
//!   kicks; [`separable_dyn`]: the explicit splitting methods at run-time size (an N-body system
//!   read from a file); [`variational`]: the integrator of a discrete Lagrangian;
//! * [`splitting`]: splitting methods `H = A + B` composed of exact sub-flows (harmonic
//!   oscillator, Kepler drift by universal variables, kicks), with validated coefficient sets;
//!   the Wisdom–Holman method of planetary systems in Jacobi coordinates, its symplectic
//!   correctors, SABA_n and SABAC_n ([`splitting::WisdomHolman`]);
//! * [`energy_preserving`]: the averaged vector field, Gonzalez's and Itoh–Abe's discrete
//!   gradients and the symmetric projection onto invariants on `T*R^n` (not symplectic);
//! * [`hp`]: Hamilton–Pontryagin RKMK integrators on any Lie group; [`rkmk`]: plain RKMK;
//!   [`crouch_grossman`], [`commutator_free`]: Lie group methods by products of exponentials;
//!   [`magnus`]: Magnus integrators of orders 4 and 6 for linear equations;
//! * [`lgvi`]: the Lee–Leok–McClamroch Lie group variational integrator of a rigid body;
//! * [`lie_poisson_baselines`]: the conserving Lie–Poisson and rigid-body schemes Part I compares
//!   with (Engø–Faltinsen, Lewis–Simo, Simo–Wong, Bobenko–Suris);
//! * [`models`]: free rigid body, heavy top, underwater vehicle;
//! * [`variational_equations`]: the tangent map of a method, Lyapunov spectrum (Benettin et al.)
//!   and MEGNO; [`events`]: event location (Hermite estimate, refinement by re-stepping) and
//!   Poincaré sections for any fixed-step method;
//! * [`driver`]: runs any [`discretization::OneStep`] with observers and compensated summation.
//!
//! Every method implements the workspace's one-step trait [`discretization::OneStep`] and reports
//! [`geom_core::GeomError`] (invalid step, Newton failure, non-finite state); a failed step leaves
//! the state untouched.
//!
//! # Guided tour
//!
//! The types in the order a user meets them (`docs/integrators.md`, `docs/tour.md`):
//!
//! 1. on $T^{\ast}\mathbb{R}^n$, a Hamiltonian in [`geom_core::function::AutoDiff`] and a classical
//!    symplectic scheme of [`classical`] ([`classical::StormerVerlet`], [`classical::Gauss2`],
//!    [`classical::LobattoIIIAIIIB`], ...), or any validated [`Tableau`];
//! 2. on a Lie group, a left-trivialized Lagrangian $\ell(g, \xi)$ ([`hp::LeftLagrangian`]:
//!    [`hp::KineticPotential`], [`hp::AutoDiff`] of a value-only model, or a ready model of
//!    [`models`]) and a Hamilton–Pontryagin member of [`hp`] ([`hp::stormer_verlet`],
//!    [`hp::symplectic_euler_a`], [`hp::HpIntegrator::new`] with any tableau), stepping a
//!    [`hp::LieState`] $(g, \Pi)$;
//! 3. [`driver::Driver`] with observers (energy, momentum map, Casimir) to run any of them.
//!
//! ```rust
//! use geom_core::step::OneStep;
//! use geom_core::lie::{Chart, So3};
//! use integrators::hp::{self, LieState};
//! use integrators::models::FreeRigidBody;
//! use nalgebra::{Matrix3, Vector3};
//!
//! let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0)?;
//! let sv = hp::stormer_verlet(So3, Chart::Cayley, body)?; // Lobatto IIIA, s = 2 (docs/math.md §D.5)
//! let mut s = LieState::new(Matrix3::identity(), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin()));
//! let (spatial, casimir) = (s.spatial_momentum(&So3), body.casimirs(&s)[0]);
//! for _ in 0..1000 {
//!     sv.step(&mut s, 0.05)?;
//! }
//! assert!((s.spatial_momentum(&So3) - spatial).norm() < 1e-13); // R Π, Noether
//! assert!((body.casimirs(&s)[0] - casimir).abs() < 1e-13); // |Π|², coadjoint orbit
//! # Ok::<(), geom_core::GeomError>(())
//! ```
//!
//! # Conventions
//!
//! * The state of a Lie-group method is $(g, \Pi)$ with the **body** (left-trivialized) momentum
//!   $\Pi = \partial \ell / \partial \xi \in \mathfrak{g}^{\ast}$; the spatial momentum is
//!   $\mathrm{Ad}^{\ast}\_{g^{-1}} \Pi$ ([`hp::LieState::spatial_momentum`], $R \Pi$ on SO(3)).
//! * The force is left-trivialized: $\langle f, \eta \rangle = \frac{d}{d\varepsilon}
//!   \ell(g \exp(\varepsilon \eta), \xi)|\_{\varepsilon = 0}$, minus the body torque of a potential.
//! * Chart derivatives $d\tau$ are right-trivialized (geom-core); for a left-invariant $\ell$
//!   one step is $(d\tau^{-1}\_{h\xi})^{\ast} \partial\ell/\partial\xi(\xi) = \Pi\_k$,
//!   $g\_{k+1} = g\_k \tau(h \xi)$, $\Pi\_{k+1} = \mathrm{Ad}^{\ast}\_{\tau(h\xi)} \Pi\_k$, with
//!   $\mathrm{ad}^{\ast}\_\xi \mu = (\mathrm{ad}\_\xi)^{\top} \mu$ ($\Pi \times \xi$ on SO(3)).
//! * Step Jacobians ([`classical::StepJacobian`]) are $M = \partial(q\_1, p\_1) / \partial(q, p)$,
//!   ordered $(q, p)$; symplecticity is $M^{\top} \Omega M = \Omega$.

#![deny(missing_docs)]

pub mod classical;
pub mod commutator_free;
pub mod crouch_grossman;
pub mod dop853;
pub mod driver;
pub mod energy_preserving;
pub mod events;
pub mod explicit_rk;
pub mod hp;
pub mod lgvi;
pub mod lie_poisson_baselines;
pub mod magnus;
pub mod models;
pub mod rkmk;
pub mod separable_dyn;
pub mod splitting;
pub mod tableau;
pub mod variational;
pub mod variational_equations;
pub mod verlet_composition;

pub use discretization;
pub use geom_core;
pub use geom_core::step::{LieState, OneStep, PhaseState};
pub use tableau::Tableau;

/// The names most code of this layer needs, with geom-core's: `use integrators::prelude::*;`.
pub mod prelude {
    pub use crate::classical::{Gauss2, Gauss3, LobattoIIIAIIIB3, StormerVerlet, SymplecticEulerA, SymplecticEulerB};
    pub use crate::driver::Driver;
    pub use crate::explicit_rk::ExplicitRk;
    pub use crate::hp::{self, HpIntegrator};
    pub use crate::lgvi::Lgvi;
    pub use crate::models::{BuoyantVehicle, FreeRigidBody, HeavyTop, UnderwaterVehicle};
    pub use crate::rkmk::Rkmk;
    pub use crate::separable_dyn::{DynSeparable, DynSplitting};
    pub use crate::variational::VariationalIntegrator;
    pub use crate::verlet_composition::VerletComposition;
    pub use crate::{Tableau, tableau};
    pub use geom_core::prelude::*;
}
