//! # discretization
//!
//! Seed 000 (Barbero-Liñán, Marrero, Martín de Diego, *From retraction maps to
//! symplectic-momentum numerical integrators*) made executable; MATH.md sections (a) and (b) are
//! the specification. A user picks or writes a discretization map `R_d: TQ -> Q × Q` and gets, with
//! no further code, a symplectic integrator for their Hamiltonian or Lagrangian; if `R_d` is
//! symmetry-preserving the integrator conserves the momentum map, and [`checks`] verifies that.
//!
//! * [`map`]: the traits [`DiscretizationMap`] and [`EuclideanMap`]; [`theta`]: the θ/α-family;
//! * [`autodiff_map`]: maps written once over the scalar ([`MapModel`], [`AutoDiffMap`]) and
//!   adjoints ([`Adjoint`], [`AdjointMap`], MATH.md a.5);
//! * [`retraction`]: retractions `R: TM -> M` and the discretization map of any retraction
//!   ([`RetractionMap`]);
//! * [`lie_group`]: the Lie-group θ-map / midpoint (a.3); [`sphere`]: the S² θ-map (a.4);
//! * [`checks`]: numerical checks of the defining properties and of symmetry preservation (a.1, a.6);
//! * [`hamiltonian`]: the induced integrator `Ψ_h` (eq. (4) of seed 000), with [`general`] the
//!   4-block system of a nonlinear map (b.1);
//! * [`lagrangian`]: discrete Lagrangians `L_d = h L(R_d^{-1}(q_0, q_1))`, their discrete
//!   Euler–Lagrange step, and the Lie-group discrete Euler–Poincaré step (b.1, b.2, c.3);
//! * [`composition`]: composition methods (triple jump, Suzuki, Yoshida, Kahan–Li, McLachlan);
//! * [`one_step`]: the [`OneStep`] trait every integrator of the workspace implements.

#![deny(missing_docs)]

pub mod autodiff_map;
pub mod checks;
pub mod composition;
pub mod error;
pub mod general;
pub mod hamiltonian;
pub mod lagrangian;
pub mod lie_group;
pub mod map;
pub mod one_step;
pub mod retraction;
pub mod sphere;
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
pub use hamiltonian::CotangentLiftIntegrator;
pub use lagrangian::{
    DiscreteEulerLagrange, DiscreteLagrangianOf, LieGroupDiscreteEulerLagrange, LieGroupDiscreteLagrangian,
    LieGroupState,
};
pub use lie_group::LieGroupThetaMap;
pub use map::{CovectorHessian, DiscretizationMap, EuclideanMap, MapJacobian};
pub use one_step::{OneStep, PhaseState, check_step};
pub use retraction::{
    EuclideanRetraction, LieGroupRetraction, Retraction, RetractionMap, RetractionReport, SphereExponential,
    SphereNormalization, check_retraction,
};
pub use sphere::SphereThetaMap;
pub use theta::ThetaMap;
