//! The discrete Euler–Lagrange flow of a groupoid as a one-step integrator
//! ([`geom_core::step::OneStep`]), so that drivers, compositions, checkpoints and ensembles take
//! it as they take every other integrator of the workspace.
//!
//! **The step.** An integrator takes the step size with each step, so the discrete Lagrangian is
//! given as a family `h ↦ L_d^h` ([`LagrangianFamily`]): the Lagrangian `h L ∘ R_d^{-1}(·)/h`
//! induced by a discretization map `R_d: AG → G` and a Lagrangian `L` on the algebroid
//! ([`Induced`]), or a discrete Lagrangian `L_d(q₀, q₁; h)` on the pair groupoid `R^N × R^N`
//! written once over the scalar ([`Stepped`] of a
//! [`StepLagrangian`](geom_core::function::StepLagrangian)). The state is a point
//! `(x, μ)` of `A*G` (a base point and a covector of the algebroid at it), and the step is the
//! discrete Hamiltonian flow `F^+L_d^h ∘ (F^-L_d^h)^{-1}` (Marrero, Martín de Diego & Stern,
//! *Symplectic groupoids and discrete constrained Lagrangian mechanics*, 2015, arXiv:1103.6250;
//! docs/math.md §C.3):
//!
//! ```text
//!   solve  F^-L_d^h(g) = μ_k  for the arrow g with source x_k   (Newton on its fibre coordinates),
//!   then   x_{k+1} = β(g),   μ_{k+1} = F^+L_d^h(g).
//! ```
//!
//! Since `h` enters only through `L_d^h`, the flow of `−h` is the map of `L_d^{−h}`: for a
//! symmetric family (the midpoint map, `L_d^{−h}(g) = −L_d^h(g^{-1})`) it inverts the flow of `h`,
//! and the method is symmetric and composes like any other.
//!
//! **The states** ([`FlowState`]): [`CotangentPoint`] `(x, μ)` on any groupoid; on the pair
//! groupoid of `R^N` the phase-space state `PhaseState` `(q, p)` itself; on a Lie group
//! `G ⇉ {e}` the state `LieState` `(g, μ)` of every Lie-group integrator, the configuration
//! reconstructed by `g_{k+1} = g_k W_k` from the arrow `W_k` of the step.
//!
//! **With constraints.** Two more integrators take the same family and states and add a reaction
//! at the node, a covector `n(x) Λ` in the span of `K` normals solved for together with the
//! arrow:
//!
//! * [`RattleIntegrator`]: holonomic constraints `c: Q → R^K` (SHAKE/RATTLE), normals
//!   `n(x) = X^←(c ∘ β)` (on `R^N`, the columns of `∇c(q)`), the new arrow ending on `S = {c = 0}`;
//! * [`NonholonomicIntegrator`]: the discrete Lagrange–d'Alembert flow of one-forms `μ(x)`
//!   (`D = ker μ`) and a discrete constraint `ψ` (`M_d = {ψ = 0}`), normals `n(x) = μ(x)ᵀ`, the
//!   new arrow in `M_d`.
//!
//! ```text
//!   solve  F^-L_d^h(g) = μ_k + n(x_k) Λ,   (constraint on g)      for g with source x_k and Λ,
//!   then   x_{k+1} = β(g),   μ_{k+1} = P(x_{k+1}) F^+L_d^h(g),
//! ```
//!
//! where `P(x) μ = μ − n (nᵀ W n)^{-1} nᵀ W μ` picks the representative of `μ` modulo the normals
//! with `nᵀ W μ = 0` (a tangent velocity when `W` is the inverse mass matrix; `W = I` unless set
//! with `with_inverse_mass`). Since the next step absorbs any normal covector into its `Λ`, the
//! arrows are those of [`crate::constraints::HolonomicFlow`] and
//! [`crate::nonholonomic::NonholonomicFlow`] (same `h`), and for a symmetric family the state map
//! is symmetric: the reverse step puts the reaction on the other node, which `P` removes.
//!
//! **Newton.** From the identity arrow (`ξ = 0`, `Λ = 0`), with
//! [`NewtonOptions::groupoid_flow`] (nonholonomic: [`NewtonOptions::nonholonomic`]) whose
//! residual tolerance is raised to the round-off floor of a momentum difference at step `h`
//! ([`NewtonOptions::for_momentum_residual`]) and at the base point `x`
//! ([`GroupoidFamily::roundoff_scale`]: on the pair groupoid of a group, the conditioning
//! `κ(x) = ‖x‖ ‖x^{-1}‖`, without which the flow of a non-compact group such as SL(3) stalls
//! once `|x|` has grown to a few hundred: a residual floor `ε κ(x) |μ| / h` above `1e-14 / h`).
//! A failed step leaves the state untouched.

use crate::lagrangian::{Arrow, GroupoidFamily};
use geom_core::newton::NewtonOptions;
use geom_core::step::check_step;
use geom_core::{GeomError, Result};
use nalgebra::{SMatrix, SVector};

mod del;
mod family;
mod nonholonomic;
mod rattle;
mod spark;
mod state;

pub use del::GroupoidIntegrator;
pub use family::{AtStep, Induced, LagrangianFamily, Stepped};
pub use nonholonomic::NonholonomicIntegrator;
pub use rattle::RattleIntegrator;
pub use spark::{SparkCoefficients, SparkGauss2};
pub use state::{CotangentPoint, FlowState};

/// The shell of every step of this module: check `h` and the state, take `L_d^h` and the Newton
/// options at `h`, `solve` for the arrow `g` and the covector at its target, and return the state
/// after `g` if it is finite.
fn advance_with<Gd, F, St, const R: usize>(
    groupoid: &Gd,
    family: &F,
    newton: &NewtonOptions,
    state: &St,
    h: f64,
    solve: impl FnOnce(
        &F::AtStep<'_>,
        &NewtonOptions,
        &<Gd as GroupoidFamily<R>>::Base<f64>,
        &SVector<f64, R>,
    ) -> Result<(Arrow<Gd, R>, SVector<f64, R>)>,
) -> Result<St>
where
    Gd: GroupoidFamily<R>,
    F: LagrangianFamily<Gd, R>,
    St: FlowState<Gd, R>,
{
    check_step(h)?;
    if !state.is_finite() {
        return Err(GeomError::NonFinite { what: "state before step" });
    }
    let ld = family.at_step(h)?;
    let x = state.base_point();
    let newton = newton.for_momentum_residual(h).with_residual_scale(groupoid.roundoff_scale(&x));
    let (g, mu) = solve(&ld, &newton, &x, &state.momentum())?;
    let next = state.after(groupoid, &g, mu);
    if next.is_finite() { Ok(next) } else { Err(GeomError::NonFinite { what: "state after step" }) }
}

/// `Ok(W)` if `W` is finite, symmetric (to `1e-12` relative) and positive definite (Cholesky):
/// the inverse mass matrix of the momentum representative of the constrained integrators.
fn checked_inverse_mass<const R: usize>(w: SMatrix<f64, R, R>) -> Result<SMatrix<f64, R, R>> {
    let what = "inverse mass matrix W";
    if !w.iter().all(|v| v.is_finite()) {
        return Err(GeomError::NonFinite { what });
    }
    let asymmetry = (w - w.transpose()).amax();
    if asymmetry > 1e-12 * w.amax() {
        return Err(GeomError::InvalidParameter {
            what, reason: format!("not symmetric (|W − Wᵀ| = {asymmetry:e})")
        });
    }
    if w.cholesky().is_none() {
        return Err(GeomError::InvalidParameter { what, reason: "not positive definite".into() });
    }
    Ok(w)
}
