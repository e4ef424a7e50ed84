//! Nonholonomic mechanics on Lie groupoids: the discrete Lagrange–d'Alembert principle
//! (docs/math.md §C.7).
//!
//! Sources: Cortés & Martínez, *Non-holonomic integrators*, Nonlinearity 14 (2001); McLachlan &
//! Perlmutter, *Integrators for nonholonomic mechanical systems*, J. Nonlinear Sci. 16 (2006);
//! Iglesias, Marrero, Martín de Diego & Martínez, *Discrete nonholonomic Lagrangian systems on Lie
//! groupoids*, J. Nonlinear Sci. 18 (2008), arXiv:0704.1543 (the groupoid form used here); the
//! continuous nonholonomic momentum equation is from Bloch, Krishnaprasad, Marsden & Murray,
//! *Nonholonomic mechanical systems with symmetry*, Arch. Rational Mech. Anal. 136 (1996).
//!
//! # The data
//!
//! * a discrete Lagrangian `L: G → R` ([`DiscreteLagrangian`]);
//! * a **constraint distribution** `D ⊂ AG` given by `K` one-forms: `μ(x)` is a `K × R` matrix whose
//!   rows are covectors of `A*_x G` in the fibre basis of the groupoid, and `D_x = ker μ(x)`. On the
//!   pair groupoid of `R^N` (`AG = TQ`, identity anchor) this is the usual `μ(q) q̇ = 0`;
//! * a **discrete constraint submanifold** `M_d = {ψ = 0} ⊂ G` (`ψ: G → R^K`), consistent with `D`:
//!   it contains the identities, `ψ(ε(x)) = 0`, and its tangent space there meets the algebroid in
//!   `D_x`, i.e. the rows of `∂_ξ ψ(exp_x ξ)|_0` span the same space as those of `μ(x)`
//!   ([`consistency`]). On `R^N` the midpoint choice `ψ(q_0, q_1) = μ((q_0 + q_1)/2)(q_1 − q_0)` is
//!   [`MidpointConstraints`].
//!
//! Both are given by [`NonholonomicConstraints`], written once over the scalar like the
//! Lagrangian, so that every derivative is exact (num-dual).
//!
//! # The discrete Lagrange–d'Alembert equations
//!
//! With the indexing of docs/math.md §C.3 (`g_k` ends at the node `x_k`; on the pair groupoid
//! `g_k = (q_{k−1}, q_k)`), for composable arrows `g_k, g_{k+1}` meeting at `x_k = β(g_k) = α(g_{k+1})`:
//!
//! ```text
//! F^+L(g_k) − F^-L(g_{k+1}) = μ(x_k)ᵀ λ_k        (R equations: the force lies in D°)
//! ψ(g_{k+1}) = 0                                     (K equations: the new arrow lies in M_d)
//! ```
//!
//! with `F^+L(g)(X) = X^←(g)(L)`, `F^-L(g)(X) = X^→(g)(L)` (docs/math.md §C.3). Unknowns: the fibre
//! coordinates `ξ` of `g_{k+1} = exp_{x_k}(ξ)` and the multiplier `λ_k ∈ R^K`, `M = R + K` in
//! all. On the pair groupoid `F^+L = D_2L`, `F^-L = −D_1L`, so this is
//! `D_2L(q_{k−1}, q_k) + D_1L(q_k, q_{k+1}) = μ(q_k)ᵀλ_k`, `ψ(q_k, q_{k+1}) = 0` (Cortés & Martínez
//! 2001; McLachlan & Perlmutter 2006); on a Lie group `G ⇉ {e}` the left-trivialized gradient of `L`
//! at `W_k` minus the right-trivialized gradient at `W_{k+1}` is `μᵀλ` (a discrete
//! Euler–Poincaré–Suslov system). The multiplier belongs to the node, not to an arrow (unlike the
//! holonomic multipliers of [`crate::constraints`], which live on `Σ_L`).
//!
//! **The step** ([`NonholonomicFlow::step`]) solves these `M` equations with geom-core's fixed-size
//! Newton ([`geom_core::newton::newton_blocks`] with one block of size `M`, no allocation), whose
//! Jacobian
//!
//! ```text
//! [[ ∂_ξ F^-L(exp_x ξ),  μ(x)ᵀ ],
//!  [ ∂_ξ ψ(exp_x ξ),      0    ]]
//! ```
//!
//! is exact: one `HyperDualSVec64<R, R>` evaluation of `L` and `ψ` along
//! `(ξ, η) ↦ i(exp(−η)) · exp_x(ξ)`. Iterations without a Jacobian (the warm-start test) use
//! first-order duals only. The accepted iterate then receives one more Newton correction (the
//! solver's polishing, [`NewtonOptions::polish`]), so that the step carries no bias of the size
//! of the tolerance; the default
//! tolerances ([`NewtonOptions::nonholonomic`]) allow for the round-off floor of arrows far from the
//! origin ([`geom_core::newton::NONHOLONOMIC_RESIDUAL_TOL`]). As for [`crate::constraints::ConstrainedFlow`],
//! `M = R + K` is a const parameter checked at compile time (stable Rust cannot write `{R + K}`).
//!
//! **In momentum form** ([`NonholonomicFlow::step_from_momentum`]) the same solve starts from a
//! node and a covector `p ∈ A*_x G` in place of `F^+L(g_k)`: this builds the first arrow from
//! continuous initial data `(q_0, p_0 = ∂L/∂q̇)`.
//!
//! **Errors** (all [`GeomError`], nothing panics on user input): a non-finite arrow, momentum,
//! multiplier or one-form ([`GeomError::NonFinite`]); an arrow off `M_d` by more than
//! [`CONSTRAINT_TOLERANCE`] ([`GeomError::OffManifold`]); Newton non-convergence
//! ([`GeomError::NotConverged`], with the iterations, the last residual and step); a singular
//! step Jacobian ([`GeomError::SingularMatrix`], e.g. a degenerate Lagrangian or dependent
//! one-forms); an undefined `fibre_log`. [`NonholonomicFlow::advance`] updates a
//! [`NonholonomicState`] only when the step succeeds: a failed step leaves it untouched.
//!
//! # The nonholonomic momentum equation
//!
//! Let a Lie group act by groupoid automorphisms with sections `X_ξ` ([`InfinitesimalSymmetry`]),
//! let `L` be invariant, and let `x ↦ ξ(x)` be a **horizontal symmetry section**: `X_{ξ(x)}(x) ∈ D_x`,
//! i.e. `μ(x) X(x) ξ(x) = 0`. The discrete momentum at the node `x_k` is
//! `J_k = F^+L(g_k)(X_{ξ(x_k)})`, and along every solution
//!
//! ```text
//! J_{k+1} − J_k = F^+L(g_{k+1})( X_{ξ(x_{k+1}) − ξ(x_k)}(x_{k+1}) ),
//! ```
//!
//! the discrete counterpart of `d/dt J = ⟨∂L/∂q̇, (d/dt ξ(q(t)))_Q⟩` (Bloch et al. 1996; Cortés &
//! Martínez 2001). Proof in three lines (docs/math.md §C.7): pair the DLA equation at `x_k` with the
//! horizontal `X_{ξ(x_k)}` (the multiplier term drops out), then use invariance
//! `F^-L(g)(X_ξ(α(g))) = F^+L(g)(X_ξ(β(g)))`. [`MomentumObserver`] evaluates both sides; a section
//! that is not horizontal, or a non-invariant `L`, shows up as a nonzero
//! [`MomentumBalance::defect`].
//!
//! # Two models
//!
//! * [`RollingDisk`]: a vertical disk rolling without slipping, `q = (x, y, θ, φ)`,
//!   `ẋ = R cos φ θ̇`, `ẏ = R sin φ θ̇`, on the pair groupoid of `R^4` with the midpoint discrete
//!   Lagrangian ([`Midpoint`]) and the midpoint constraint; exact solution: `θ̇`, `φ̇` constant and the
//!   contact point on a circle ([`RollingDisk::exact`]).
//! * [`ChaplyginSleigh`]: a rigid body in the plane on a knife edge at distance `a` behind the centre
//!   of mass, `q = (x, y, θ)`, no sideways velocity at the contact point. Set on the pair groupoid of
//!   `R³` (the universal cover of `SE(2)`, see [`ChaplyginSleigh`] for why). Its reduced motion is
//!   known in closed form ([`ChaplyginSleigh::reduced`]): the angular velocity decays to zero and the
//!   sleigh ends in straight-line motion along its knife edge, centre of mass first, with a heading
//!   given by [`ChaplyginSleigh::limit_heading`].
//!
//! ```
//! use groupoid::nonholonomic::{NonholonomicState, RollingDisk};
//! use nalgebra::SVector;
//!
//! let disk = RollingDisk::new(1.0, 0.5, 0.125, 0.0625)?; // m, R, I (axle), J (vertical)
//! let h = 0.01;
//! let flow = disk.flow(h)?;
//! let q0 = SVector::from([0.0, 0.0, 0.0, 0.3]);
//! let (theta_dot, phi_dot) = (2.0, 0.7);
//! // first arrow from continuous data (q_0, p_0 = ∂L/∂q̇), then 100 DLA steps
//! let p0 = disk.momentum(&disk.velocity(&q0, theta_dot, phi_dot));
//! let first = flow.step_from_momentum(&q0, &p0, &(disk.velocity(&q0, theta_dot, phi_dot) * h))?;
//! let mut state = NonholonomicState::new(first.g, first.lambda);
//! for _ in 0..100 {
//!     flow.advance(&mut state)?;
//! }
//! let exact = disk.exact(&q0, theta_dot, phi_dot, 101.0 * h);
//! assert!((state.g.1 - exact).amax() < 1e-4); // second order in h
//! assert!(flow.constraint_residual(&state.g) < 1e-13); // M_d at round-off
//! # Ok::<(), geom_core::GeomError>(())
//! ```

use crate::constraints::{
    CONSTRAINT_TOLERANCE, Constraints, Hd, amax, check_dims, first_derivatives, jacobian_at_zero, join,
    mixed_derivatives, saddle, solve_m, split,
};
use crate::groupoid::LieGroupoid;
use crate::lagrangian::{
    AdGroupoid, Arrow, DiscreteLagrangian, GroupoidFamily, GroupoidLift, legendre_minus, legendre_plus,
};
use crate::noether::InfinitesimalSymmetry;
use crate::pair::PairGroupoid;
use geom_core::linalg::invert;
use geom_core::newton::{NewtonOptions, NewtonReport};
use geom_core::{GeomError, Result, Scalar};
use nalgebra::{SMatrix, SVector};
use num_dual::DualSVec64;

/// Base points of `Gd` at `f64`.
pub type BaseAt<Gd, const R: usize> = <Gd as GroupoidFamily<R>>::Base<f64>;

type D1<const R: usize> = DualSVec64<R>;

// ---------------------------------------------------------------------------------------------
// Constraints

/// Nonholonomic constraints on a groupoid (module documentation): the one-forms `μ(x)` whose kernel
/// is the distribution `D_x ⊂ A_x G`, and the discrete constraint `ψ` with `M_d = {ψ = 0}`. Both are
/// written once over the scalar.
pub trait NonholonomicConstraints<Gd: GroupoidFamily<R>, const R: usize, const K: usize>: Send + Sync {
    /// `μ(x)`: row `a` is the one-form `μ^a` at `x`, in the fibre basis of `A_x G`.
    fn one_forms<S: Scalar>(&self, groupoid: &Gd, x: &Gd::Base<S>) -> SMatrix<S, K, R>;
    /// `ψ(g) ∈ R^K`; `M_d = {ψ = 0}`.
    fn discrete<S: Scalar>(&self, groupoid: &Gd, g: &Gd::Element<S>) -> SVector<S, K>;
}

/// Constraint one-forms `μ(q)` (`K × N`) on `R^N`, written once over the scalar: `D_q = ker μ(q)`.
pub trait OneForms<const N: usize, const K: usize>: Send + Sync {
    /// `μ(q)`.
    fn eval<S: Scalar>(&self, q: &SVector<S, N>) -> SMatrix<S, K, N>;
}

/// The midpoint discrete constraint on the pair groupoid of `R^N`:
/// `ψ(q_0, q_1) = μ((q_0 + q_1)/2)(q_1 − q_0)` (Cortés & Martínez 2001; McLachlan & Perlmutter
/// 2006). Consistent with `D` by construction, and odd under swapping the ends:
/// `ψ(q_1, q_0) = −ψ(q_0, q_1)`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MidpointConstraints<C>(pub C);

impl<C: OneForms<N, K>, const N: usize, const K: usize> NonholonomicConstraints<PairGroupoid<N>, N, K>
    for MidpointConstraints<C>
{
    fn one_forms<S: Scalar>(&self, _: &PairGroupoid<N>, x: &SVector<S, N>) -> SMatrix<S, K, N> {
        self.0.eval(x)
    }
    fn discrete<S: Scalar>(&self, _: &PairGroupoid<N>, g: &(SVector<S, N>, SVector<S, N>)) -> SVector<S, K> {
        self.0.eval(&((g.0 + g.1) * S::from(0.5))) * (g.1 - g.0)
    }
}

/// `ψ` seen as holonomic-style constraint functions, to reuse the AD kernels of
/// [`crate::constraints`] (with zero multipliers they return `∂L`, `ψ` and `∂ψ`).
struct DiscretePart<'a, C>(&'a C);

impl<Gd, C, const R: usize, const K: usize> Constraints<Gd, R, K> for DiscretePart<'_, C>
where
    Gd: GroupoidFamily<R>,
    C: NonholonomicConstraints<Gd, R, K>,
{
    #[inline]
    fn eval<S: Scalar>(&self, groupoid: &Gd, g: &Gd::Element<S>) -> SVector<S, K> {
        self.0.discrete::<S>(groupoid, g)
    }
}

/// How well `M_d` matches `D` at a base point (see [`consistency`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Consistency {
    /// `|ψ(ε(x))|_∞`: `M_d` must contain the identities.
    pub at_identity: f64,
    /// The larger of the two distances between the row spaces of `∂_ξ ψ(exp_x ξ)|_0` and `μ(x)`
    /// (each projected off the other's row space, max-norm): zero iff `T_{ε(x)} M_d ∩ A_x G = D_x`.
    pub tangent: f64,
}

/// Check that `M_d = {ψ = 0}` is a discretization of `D = ker μ` at `x` (Iglesias et al. 2008):
/// `ε(x) ∈ M_d` and the linearization of `ψ` along the `α`-fibre has the same kernel as `μ(x)`.
/// Errors: [`GeomError::SingularMatrix`] if the rows of `μ(x)` or of `∂ψ` are dependent;
/// [`GeomError::NonFinite`].
pub fn consistency<Gd, C, const R: usize, const K: usize>(
    groupoid: &Gd,
    constraints: &C,
    x: &BaseAt<Gd, R>,
) -> Result<Consistency>
where
    Gd: AdGroupoid<R>,
    C: NonholonomicConstraints<Gd, R, K>,
{
    let at_identity = amax(constraints.discrete::<f64>(groupoid, &LieGroupoid::<f64, R>::identity(groupoid, x)).iter());
    let x1 = GroupoidLift::<D1<R>, R>::lift_base(groupoid, x);
    let dpsi: SMatrix<f64, K, R> = jacobian_at_zero(|xi: SVector<D1<R>, R>| {
        constraints.discrete::<D1<R>>(groupoid, &LieGroupoid::<D1<R>, R>::fibre_exp(groupoid, &x1, &xi))
    });
    let mu = constraints.one_forms::<f64>(groupoid, x);
    if !(at_identity.is_finite() && dpsi.iter().chain(mu.iter()).all(|v| v.is_finite())) {
        return Err(GeomError::NonFinite { what: "nonholonomic constraints at the base point" });
    }
    // the part of the rows of `a` outside the row space of `b`
    let off = |a: &SMatrix<f64, K, R>, b: &SMatrix<f64, K, R>, what| -> Result<f64> {
        let gram = invert(&(b * b.transpose()), what)?;
        Ok(amax((a - a * b.transpose() * gram * b).iter()))
    };
    let tangent = off(&dpsi, &mu, "Gram matrix of the one-forms μ(x)")?.max(off(
        &mu,
        &dpsi,
        "Gram matrix of the linearized discrete constraint ∂ψ",
    )?);
    Ok(Consistency { at_identity, tangent })
}

// ---------------------------------------------------------------------------------------------
// Midpoint discrete Lagrangians on R^N

/// A continuous Lagrangian `L(q, q̇)` on `R^N`, written once over the scalar: geom-core's
/// [`PhaseSpaceFunction`](geom_core::function::PhaseSpaceFunction) `f(q, v)`, the one trait of a
/// function on `R^N × R^N` that the Hamiltonians of the discretization layer also implement.
pub use geom_core::function::PhaseSpaceFunction as ContinuousLagrangian;

/// The midpoint discrete Lagrangian `L_d(q_0, q_1) = h L((q_0 + q_1)/2, (q_1 − q_0)/h)` on the pair
/// groupoid of `R^N` (a symmetric, second-order discretization).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Midpoint<L> {
    lagrangian: L,
    h: f64,
}

impl<L> Midpoint<L> {
    /// `L_d` of `lagrangian` with step `h`; [`GeomError::InvalidStep`] unless `h` is finite and
    /// positive.
    pub fn new(lagrangian: L, h: f64) -> Result<Self> {
        if !(h.is_finite() && h > 0.0) {
            return Err(GeomError::InvalidStep { h });
        }
        Ok(Self { lagrangian, h })
    }
    /// The step `h`.
    pub fn h(&self) -> f64 {
        self.h
    }
    /// The continuous Lagrangian.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }
    /// The midpoint and the mean velocity `((q_0 + q_1)/2, (q_1 − q_0)/h)` of an arrow.
    pub fn midpoint_velocity<const N: usize>(
        &self,
        g: &(SVector<f64, N>, SVector<f64, N>),
    ) -> (SVector<f64, N>, SVector<f64, N>) {
        ((g.0 + g.1) * 0.5, (g.1 - g.0) / self.h)
    }
    /// The energy `E(q̄, v̄)` of the arrow's midpoint and mean velocity ([`lagrangian_energy`]).
    pub fn energy<const N: usize>(&self, g: &(SVector<f64, N>, SVector<f64, N>)) -> f64
    where
        L: ContinuousLagrangian<N>,
    {
        let (q, v) = self.midpoint_velocity(g);
        lagrangian_energy(&self.lagrangian, &q, &v)
    }
}

impl<L: ContinuousLagrangian<N>, const N: usize> DiscreteLagrangian<PairGroupoid<N>, N> for Midpoint<L> {
    #[inline]
    fn eval<S: Scalar>(&self, _: &PairGroupoid<N>, g: &(SVector<S, N>, SVector<S, N>)) -> S {
        let h = S::from(self.h);
        self.lagrangian.eval(&((g.0 + g.1) * S::from(0.5)), &((g.1 - g.0) / h)) * h
    }
}

/// The momentum `∂L/∂q̇ (q, v)` (exact, forward AD).
pub fn lagrangian_momentum<L: ContinuousLagrangian<N>, const N: usize>(
    lagrangian: &L,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> SVector<f64, N> {
    let qd = q.map(D1::<N>::from);
    num_dual::gradient(|vd: SVector<D1<N>, N>| lagrangian.eval(&qd, &vd), v).1
}

/// The energy `E = ⟨∂L/∂q̇, q̇⟩ − L` at `(q, v)`.
pub fn lagrangian_energy<L: ContinuousLagrangian<N>, const N: usize>(
    lagrangian: &L,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> f64 {
    lagrangian_momentum(lagrangian, q, v).dot(v) - lagrangian.eval(q, v)
}

// ---------------------------------------------------------------------------------------------
// The flow

/// One solved step: the new arrow `g_{k+1}`, the multiplier `λ` of the node `α(g_{k+1})` and the
/// Newton report.
#[derive(Debug, Clone, PartialEq)]
pub struct NonholonomicStep<E, const K: usize> {
    /// `g_{k+1} ∈ M_d`.
    pub g: E,
    /// The multiplier `λ_k` of the shared node `x_k`: `F^+L(g_k) − F^-L(g_{k+1}) = μ(x_k)ᵀλ_k`.
    pub lambda: SVector<f64, K>,
    /// What Newton did.
    pub report: NewtonReport,
}

/// The state of a nonholonomic integration: the current arrow, the last multiplier (the warm
/// start of the next one) and the number of steps taken. [`NonholonomicFlow::advance`] changes it
/// only when a step succeeds.
#[derive(Debug, Clone, PartialEq)]
pub struct NonholonomicState<E, const K: usize> {
    /// The current arrow `g_k ∈ M_d`.
    pub g: E,
    /// The multiplier of the node `α(g_k)` (zero if unknown).
    pub lambda: SVector<f64, K>,
    /// Steps taken since the state was created.
    pub steps: usize,
}

impl<E, const K: usize> NonholonomicState<E, K> {
    /// A state at the arrow `g` with multiplier `lambda` and no steps taken.
    pub fn new(g: E, lambda: SVector<f64, K>) -> Self {
        Self { g, lambda, steps: 0 }
    }
}

/// The discrete Lagrange–d'Alembert flow `g_k ↦ g_{k+1}` of `(L, D, M_d)` on a Lie groupoid (module
/// documentation). `M = R + K` is checked at compile time.
#[derive(Debug, Clone)]
pub struct NonholonomicFlow<Gd, L, C, const M: usize> {
    groupoid: Gd,
    lagrangian: L,
    constraints: C,
    newton: NewtonOptions,
}

impl<Gd, L, C, const M: usize> NonholonomicFlow<Gd, L, C, M> {
    /// The flow of `lagrangian` with `constraints` on `groupoid`, with the Newton options
    /// [`NewtonOptions::nonholonomic`] (residual `<= 1e-12`, step `<= 1e-14`, at most 50
    /// iterations, then one final correction).
    pub fn new(groupoid: Gd, lagrangian: L, constraints: C) -> Self {
        Self { groupoid, lagrangian, constraints, newton: NewtonOptions::nonholonomic() }
    }
    /// The same flow with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The groupoid.
    pub fn groupoid(&self) -> &Gd {
        &self.groupoid
    }
    /// The discrete Lagrangian.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }
    /// The constraints `(μ, ψ)`.
    pub fn constraints(&self) -> &C {
        &self.constraints
    }
    /// The Newton options of a step.
    pub fn newton_options(&self) -> &NewtonOptions {
        &self.newton
    }

    /// `|ψ(g)|_∞`: the distance of `g` from `M_d` as measured by the discrete constraint.
    pub fn constraint_residual<const R: usize, const K: usize>(&self, g: &Arrow<Gd, R>) -> f64
    where
        Gd: GroupoidFamily<R>,
        C: NonholonomicConstraints<Gd, R, K>,
    {
        amax(self.constraints.discrete::<f64>(&self.groupoid, g).iter())
    }

    /// `Ok(())` if `|ψ(g)|_∞ <= CONSTRAINT_TOLERANCE`; [`GeomError::NonFinite`] or
    /// [`GeomError::OffManifold`] otherwise.
    pub fn check<const R: usize, const K: usize>(&self, g: &Arrow<Gd, R>) -> Result<()>
    where
        Gd: GroupoidFamily<R>,
        C: NonholonomicConstraints<Gd, R, K>,
    {
        let defect = self.constraint_residual(g);
        if !defect.is_finite() {
            return Err(GeomError::NonFinite { what: "discrete constraint ψ at the arrow" });
        }
        if defect > CONSTRAINT_TOLERANCE {
            return Err(GeomError::OffManifold {
                what: "arrow off the discrete constraint submanifold M_d",
                defect,
                tolerance: CONSTRAINT_TOLERANCE,
            });
        }
        Ok(())
    }

    /// The residual of the discrete Lagrange–d'Alembert equation at the node `x = β(g_k) = α(g_{k+1})`,
    /// `F^+L(g_k) − F^-L(g_{k+1}) − μ(x)ᵀλ`, recomputed from the Legendre transforms (an independent
    /// check of a solved step).
    pub fn dla_residual<const R: usize, const K: usize>(
        &self,
        g_k: &Arrow<Gd, R>,
        g_next: &Arrow<Gd, R>,
        lambda: &SVector<f64, K>,
    ) -> SVector<f64, R>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: NonholonomicConstraints<Gd, R, K>,
    {
        let x = LieGroupoid::<f64, R>::target(&self.groupoid, g_k);
        let mu = self.constraints.one_forms::<f64>(&self.groupoid, &x);
        legendre_plus(&self.groupoid, &self.lagrangian, g_k)
            - legendre_minus(&self.groupoid, &self.lagrangian, g_next)
            - mu.tr_mul(lambda)
    }

    /// One step from `g_k ∈ M_d`: `g_{k+1}` and the node multiplier (module documentation; warm
    /// start `ξ = fibre_log(g_k)`, `λ = 0`). Errors: module documentation.
    pub fn step<const R: usize, const K: usize>(&self, g: &Arrow<Gd, R>) -> Result<NonholonomicStep<Arrow<Gd, R>, K>>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: NonholonomicConstraints<Gd, R, K>,
    {
        let xi = LieGroupoid::<f64, R>::fibre_log(&self.groupoid, g)?;
        self.step_with_guess(g, &xi, &SVector::zeros())
    }

    /// [`NonholonomicFlow::step`] from an explicit warm start: fibre coordinates `xi_guess` of
    /// `g_{k+1}` at `β(g_k)` and the multiplier `lambda_guess`.
    pub fn step_with_guess<const R: usize, const K: usize>(
        &self,
        g: &Arrow<Gd, R>,
        xi_guess: &SVector<f64, R>,
        lambda_guess: &SVector<f64, K>,
    ) -> Result<NonholonomicStep<Arrow<Gd, R>, K>>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: NonholonomicConstraints<Gd, R, K>,
    {
        self.check(g)?;
        let p = legendre_plus(&self.groupoid, &self.lagrangian, g);
        if !p.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "momentum F^+L(g_k)" });
        }
        let x = LieGroupoid::<f64, R>::target(&self.groupoid, g);
        self.solve(&x, &p, &join::<R, K, M>(xi_guess, lambda_guess))
    }

    /// The step in momentum form: from a node `x` and a covector `p ∈ A*_x G` (in place of
    /// `F^+L(g_k)`), the arrow `g = exp_x(ξ) ∈ M_d` and `λ` with `F^-L(g) + μ(x)ᵀλ = p`; `xi_guess`
    /// warm-starts `ξ` (e.g. `h q̇_0` on the pair groupoid). With `p = ∂L/∂q̇(q_0, q̇_0)` this is the
    /// first arrow of a trajectory from continuous initial data. Errors: module documentation.
    pub fn step_from_momentum<const R: usize, const K: usize>(
        &self,
        x: &BaseAt<Gd, R>,
        p: &SVector<f64, R>,
        xi_guess: &SVector<f64, R>,
    ) -> Result<NonholonomicStep<Arrow<Gd, R>, K>>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: NonholonomicConstraints<Gd, R, K>,
    {
        if !p.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "momentum at the node" });
        }
        self.solve(x, p, &join::<R, K, M>(xi_guess, &SVector::zeros()))
    }

    /// Advance `state` by one step (warm start: the previous arrow's fibre coordinates and the
    /// previous multiplier). On error `state` is left exactly as it was.
    pub fn advance<const R: usize, const K: usize>(
        &self,
        state: &mut NonholonomicState<Arrow<Gd, R>, K>,
    ) -> Result<NewtonReport>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: NonholonomicConstraints<Gd, R, K>,
    {
        let xi = LieGroupoid::<f64, R>::fibre_log(&self.groupoid, &state.g)?;
        let next = self.step_with_guess(&state.g, &xi, &state.lambda)?;
        state.g = next.g;
        state.lambda = next.lambda;
        state.steps += 1;
        Ok(next.report)
    }

    /// `n` steps from `start`: the `n + 1` states `start, …` (allocates the vector once). Errors as
    /// [`NonholonomicFlow::step`].
    pub fn trajectory<const R: usize, const K: usize>(
        &self,
        start: &NonholonomicState<Arrow<Gd, R>, K>,
        n: usize,
    ) -> Result<Vec<NonholonomicState<Arrow<Gd, R>, K>>>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: NonholonomicConstraints<Gd, R, K>,
    {
        let mut out = Vec::with_capacity(n + 1);
        let mut state = start.clone();
        out.push(state.clone());
        for _ in 0..n {
            self.advance(&mut state)?;
            out.push(state.clone());
        }
        Ok(out)
    }

    /// Newton on `(ξ, λ)`: `F^-L(exp_x ξ) + μ(x)ᵀλ − p = 0`, `ψ(exp_x ξ) = 0`, with the final
    /// polishing correction of [`NewtonOptions::polish`] (module documentation).
    fn solve<const R: usize, const K: usize>(
        &self,
        x: &BaseAt<Gd, R>,
        p: &SVector<f64, R>,
        guess: &SVector<f64, M>,
    ) -> Result<NonholonomicStep<Arrow<Gd, R>, K>>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: NonholonomicConstraints<Gd, R, K>,
    {
        self.solve_with(&self.lagrangian, &self.newton, x, p, guess)
    }

    /// [`NonholonomicFlow::solve`] with the discrete Lagrangian `lagrangian` and the Newton options
    /// `newton` in place of the flow's own (the integrator of [`crate::integrator`] passes `L_d^h`
    /// of its step).
    pub(crate) fn solve_with<Ld, const R: usize, const K: usize>(
        &self,
        lagrangian: &Ld,
        newton: &NewtonOptions,
        x: &BaseAt<Gd, R>,
        p: &SVector<f64, R>,
        guess: &SVector<f64, M>,
    ) -> Result<NonholonomicStep<Arrow<Gd, R>, K>>
    where
        Gd: AdGroupoid<R>,
        Ld: DiscreteLagrangian<Gd, R>,
        C: NonholonomicConstraints<Gd, R, K>,
    {
        check_dims::<R, K, M>();
        let gd = &self.groupoid;
        let mu_t = self.constraints.one_forms::<f64>(gd, x).transpose();
        if !mu_t.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "constraint one-forms μ(x) at the node" });
        }
        let psi = DiscretePart(&self.constraints);
        let no_lambda = SVector::<f64, K>::zeros();
        let xh = GroupoidLift::<Hd<R>, R>::lift_base(gd, x);
        let x1 = GroupoidLift::<D1<R>, R>::lift_base(gd, x);
        // residual and exact Jacobian at u (one hyper-dual evaluation)
        let full = |u: &SVector<f64, M>| -> (SVector<f64, M>, SMatrix<f64, M, M>) {
            let (xi, lambda) = split::<R, K, M>(u);
            let d = mixed_derivatives(gd, lagrangian, &psi, &no_lambda, &xi, |a, b| {
                let next = LieGroupoid::<Hd<R>, R>::fibre_exp(gd, &xh, a);
                LieGroupoid::<Hd<R>, R>::right_curve(gd, &next, b)
            });
            let jac = saddle::<R, K, M>(&d.mixed.transpose(), &mu_t, &d.phi_a);
            (join::<R, K, M>(&(d.grad_b + mu_t * lambda - p), &d.phi), jac)
        };
        let (u, report) = solve_m(
            |u: &SVector<f64, M>, jac: Option<&mut SMatrix<f64, M, M>>| {
                let Some(jac) = jac else {
                    // residual only (the warm-start test): first-order duals
                    let (xi, lambda) = split::<R, K, M>(u);
                    let next = LieGroupoid::<D1<R>, R>::fibre_exp(gd, &x1, &xi.map(D1::<R>::from));
                    let (minus, phi) = first_derivatives(gd, lagrangian, &psi, &no_lambda, |b| {
                        LieGroupoid::<D1<R>, R>::right_curve(gd, &next, b)
                    });
                    return Ok(join::<R, K, M>(&(minus + mu_t * lambda - p), &phi));
                };
                let (f, j) = full(u);
                *jac = j;
                Ok(f)
            },
            guess,
            newton,
        )?;
        let (xi, lambda) = split::<R, K, M>(&u);
        Ok(NonholonomicStep { g: LieGroupoid::<f64, R>::fibre_exp(gd, x, &xi), lambda, report })
    }
}

/// The two worked models, now in [`crate::models`] (re-exported here).
pub use crate::models::{
    ChaplyginSleigh, DiskSymmetry, KnifeEdge, PlanarMotions, RollingConstraint, RollingDisk, RollingDiskFlow,
    RollingDiskIntegrator, SleighFlow, SleighIntegrator, SleighMotion,
};

// ---------------------------------------------------------------------------------------------
// The nonholonomic momentum equation

/// Both sides of the discrete nonholonomic momentum equation over one node (module documentation):
/// `after − before = predicted_change` along solutions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MomentumBalance {
    /// `J_k = F^+L(g_k)(X_{ξ(x_k)})` at the node `x_k = β(g_k)`.
    pub before: f64,
    /// `J_{k+1} = F^+L(g_{k+1})(X_{ξ(x_{k+1})})`.
    pub after: f64,
    /// `F^+L(g_{k+1})(X_{ξ(x_{k+1}) − ξ(x_k)}(x_{k+1}))`.
    pub predicted_change: f64,
    /// `after − before − predicted_change` (round-off on a solution with an invariant `L` and a
    /// horizontal section).
    pub defect: f64,
    /// `|μ(x_k) X(x_k) ξ(x_k)|_∞` at the shared node: zero for a horizontal section.
    pub horizontality: f64,
}

/// The nonholonomic momentum of a horizontal symmetry section, as an observer: `symmetry` gives the
/// sections `X_ξ` of the acting group (fibre coordinates, [`InfinitesimalSymmetry`]) and
/// `section: x ↦ ξ(x)` the Lie-algebra element at each base point (module documentation).
#[derive(Clone, Copy)]
pub struct MomentumObserver<Y, F> {
    symmetry: Y,
    section: F,
}

impl<Y: std::fmt::Debug, F> std::fmt::Debug for MomentumObserver<Y, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MomentumObserver").field("symmetry", &self.symmetry).finish_non_exhaustive()
    }
}

impl<Y, F> MomentumObserver<Y, F> {
    /// The observer of `ξ(x) = section(x)` for the action with sections `symmetry`.
    pub fn new(symmetry: Y, section: F) -> Self {
        Self { symmetry, section }
    }

    /// `J = F^+L(g)(X_{ξ(β(g))}(β(g)))`: the momentum at the node `β(g)`.
    pub fn momentum<Gd, L, const R: usize, const D: usize>(
        &self,
        groupoid: &Gd,
        lagrangian: &L,
        g: &Arrow<Gd, R>,
    ) -> f64
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        Y: InfinitesimalSymmetry<Gd, R, D>,
        F: Fn(&BaseAt<Gd, R>) -> SVector<f64, D>,
    {
        let x = LieGroupoid::<f64, R>::target(groupoid, g);
        let field = self.symmetry.section(groupoid, &x) * (self.section)(&x);
        legendre_plus(groupoid, lagrangian, g).dot(&field)
    }

    /// `|μ(x) X(x) ξ(x)|_∞`: whether the section is horizontal at `x`.
    pub fn horizontality<Gd, C, const R: usize, const K: usize, const D: usize>(
        &self,
        groupoid: &Gd,
        constraints: &C,
        x: &BaseAt<Gd, R>,
    ) -> f64
    where
        Gd: GroupoidFamily<R>,
        C: NonholonomicConstraints<Gd, R, K>,
        Y: InfinitesimalSymmetry<Gd, R, D>,
        F: Fn(&BaseAt<Gd, R>) -> SVector<f64, D>,
    {
        let field = self.symmetry.section(groupoid, x) * (self.section)(x);
        amax((constraints.one_forms::<f64>(groupoid, x) * field).iter())
    }

    /// Both sides of the momentum equation over the node `β(g_prev) = α(g_next)` of a solution.
    pub fn balance<Gd, L, C, const R: usize, const K: usize, const D: usize, const M: usize>(
        &self,
        flow: &NonholonomicFlow<Gd, L, C, M>,
        g_prev: &Arrow<Gd, R>,
        g_next: &Arrow<Gd, R>,
    ) -> MomentumBalance
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: NonholonomicConstraints<Gd, R, K>,
        Y: InfinitesimalSymmetry<Gd, R, D>,
        F: Fn(&BaseAt<Gd, R>) -> SVector<f64, D>,
    {
        let gd = flow.groupoid();
        let before = self.momentum(gd, flow.lagrangian(), g_prev);
        let after = self.momentum(gd, flow.lagrangian(), g_next);
        let xk = LieGroupoid::<f64, R>::target(gd, g_prev);
        let x1 = LieGroupoid::<f64, R>::target(gd, g_next);
        let dxi = (self.section)(&x1) - (self.section)(&xk);
        let predicted_change =
            legendre_plus(gd, flow.lagrangian(), g_next).dot(&(self.symmetry.section(gd, &x1) * dxi));
        let horizontality = self.horizontality(gd, flow.constraints(), &xk);
        MomentumBalance { before, after, predicted_change, defect: after - before - predicted_change, horizontality }
    }
}

/// `(sin x)/x`, exact to round-off near 0.
pub(crate) fn sinc(x: f64) -> f64 {
    if x.abs() < 1e-4 { 1.0 - x * x / 6.0 } else { x.sin() / x }
}

pub(crate) fn check_parameter(what: &'static str, value: f64, positive: bool) -> Result<()> {
    if value.is_finite() && (!positive || value > 0.0) {
        Ok(())
    } else {
        let reason = format!("must be finite{}, got {value}", if positive { " and positive" } else { "" });
        Err(GeomError::InvalidParameter { what, reason })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midpoint_constraint_is_consistent_and_a_flipped_one_is_not() {
        let disk = RollingDisk::new(1.0, 0.5, 0.1, 0.05).unwrap();
        let q = SVector::from([0.3, -0.2, 1.0, 0.7]);
        let c = consistency(&PairGroupoid::<4>, &MidpointConstraints(disk.constraint()), &q).unwrap();
        assert!(c.at_identity == 0.0 && c.tangent < 1e-15, "{c:?}");
        /// μ of the right disk, ψ of the disk rolling the other way.
        struct Mixed;
        impl NonholonomicConstraints<PairGroupoid<4>, 4, 2> for Mixed {
            fn one_forms<S: Scalar>(&self, _: &PairGroupoid<4>, x: &SVector<S, 4>) -> SMatrix<S, 2, 4> {
                RollingConstraint { radius: 0.5 }.eval(x)
            }
            fn discrete<S: Scalar>(&self, gd: &PairGroupoid<4>, g: &(SVector<S, 4>, SVector<S, 4>)) -> SVector<S, 2> {
                MidpointConstraints(RollingConstraint { radius: -0.5 }).discrete(gd, g)
            }
        }
        let c = consistency(&PairGroupoid::<4>, &Mixed, &q).unwrap();
        assert!(c.tangent > 0.1, "{c:?}");
    }

    #[test]
    fn midpoint_lagrangian_and_energy() {
        let sleigh = ChaplyginSleigh::new(2.0, 0.3, 0.4).unwrap();
        let ld = Midpoint::new(sleigh, 0.1).unwrap();
        let g = (SVector::from([0.0, 0.0, 0.0]), SVector::from([0.1, 0.05, 0.02]));
        let v = (g.1 - g.0) / 0.1;
        let e = 0.5 * (2.0 * (v[0] * v[0] + v[1] * v[1]) + 0.3 * v[2] * v[2]);
        assert!((ld.energy(&g) - e).abs() < 1e-15);
        assert!(
            (DiscreteLagrangian::<PairGroupoid<3>, 3>::eval::<f64>(&ld, &PairGroupoid::<3>, &g) - 0.1 * e).abs()
                < 1e-15
        );
        assert!(Midpoint::new(sleigh, 0.0).is_err() && Midpoint::new(sleigh, f64::NAN).is_err());
        assert!(ChaplyginSleigh::new(-1.0, 0.3, 0.4).is_err() && RollingDisk::new(1.0, 0.0, 1.0, 1.0).is_err());
    }
}
