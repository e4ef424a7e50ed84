//! The Lie–Poisson and rigid-body integrators that Part I of Bou-Rabee & Marsden
//! (*Hamilton–Pontryagin integrators on Lie groups, Part I*, 2009, arXiv:0801.0996) compares
//! with, as [`geom_core::step::OneStep`] methods on the states the Hamilton–Pontryagin
//! integrators use (`μ ∈ g*` and `(g, μ) ∈ T*G`), each with what it preserves:
//!
//! | method | preserves | source |
//! | --- | --- | --- |
//! | [`CoadjointEnergy`] | coadjoint orbit (Casimirs), energy, spatial momentum | Engø & Faltinsen 2001 |
//!
//! Files: `reduced_gradient.rs` (Gonzalez's discrete gradient of a function on `R^D`, from
//! [`crate::energy_preserving::Gonzalez`]), `coadjoint_energy.rs` (Engø–Faltinsen).

mod coadjoint_energy;
mod reduced_gradient;

pub use coadjoint_energy::CoadjointEnergy;
pub use reduced_gradient::{OnMomentum, Split};
