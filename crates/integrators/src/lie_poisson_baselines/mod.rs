//! The Lie–Poisson and rigid-body integrators that Part I of Bou-Rabee & Marsden
//! (*Hamilton–Pontryagin integrators on Lie groups, Part I*, 2009, arXiv:0801.0996) compares
//! with, as [`geom_core::step::OneStep`] methods on the states the Hamilton–Pontryagin
//! integrators use (`μ ∈ g*` and `(g, μ) ∈ T*G`), each with what it preserves:
//!
//! | method | preserves | source |
//! | --- | --- | --- |
//! | [`CoadjointEnergy`] | coadjoint orbit (Casimirs), energy, spatial momentum | Engø & Faltinsen 2001 |
//! | [`EnergyMomentum`] | energy, vertical (free body: spatial) momentum, on `T*SO(3)` | Lewis & Simo 1994 |
//! | [`LieNewmark`] | spatial (heavy top: vertical) momentum, free body's coadjoint orbit; not energy | Simo & Wong 1991 |
//! | [`BobenkoSuris`] | the Lagrange top's axial (`Π₃`, exactly) and vertical momenta, a deformed energy; explicit, symplectic | Bobenko & Suris 1999 |
//! | [`VerticalCoadjointEnergy`] | [`CoadjointEnergy`] on `se(3)*` as a step of `(R, Π)` for `H = h(Π, Rᵀe3)`: energy, vertical momentum | Engø & Faltinsen 2001 |
//!
//! Files: `reduced_gradient.rs` (Gonzalez's discrete gradient of a function on `R^D`, from
//! [`crate::energy_preserving::Gonzalez`]), `coadjoint_energy.rs` (Engø–Faltinsen), `reduced_top.rs` (the rigid body's `h(Π, Γ)`),
//! `energy_momentum.rs` (Lewis–Simo), `lie_newmark.rs` (Simo–Wong), `vertical.rs` (Engø–Faltinsen
//! for a potential of the vertical, on `T*SO(3)`), `lagrange_top.rs` (Bobenko–Suris's discrete
//! Lagrange top).

mod coadjoint_energy;
mod energy_momentum;
mod lagrange_top;
mod lie_newmark;
mod reduced_gradient;
mod reduced_top;
mod vertical;

pub use coadjoint_energy::CoadjointEnergy;
pub use energy_momentum::EnergyMomentum;
pub use lagrange_top::BobenkoSuris;
pub use lie_newmark::LieNewmark;
pub use reduced_gradient::{OnMomentum, Split};
pub use reduced_top::ReducedTop;
pub use vertical::{OnSe3Dual, VerticalCoadjointEnergy};
