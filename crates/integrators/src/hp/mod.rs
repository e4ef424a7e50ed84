//! Hamilton–Pontryagin Runge–Kutta–Munthe-Kaas integrators on Lie groups (Bou-Rabee & Marsden,
//! *Hamilton–Pontryagin integrators on Lie groups, Part I*, 2009, arXiv:0801.0996; docs/math.md
//! §D.1–D.5), for any `geom-core` Lie group `G`, any `s`-stage tableau `(A, b, c)` with all
//! `b_i != 0`, and the chart `τ = exp` or Cayley ([`Chart`]).
//!
//! # The one-step map (docs/math.md §D.5)
//!
//! The discrete HP action (docs/math.md §D.4) with the RKMK reconstruction of Bou-Rabee & Marsden
//! eq. (4.6) truncated at `q = 0` (`dτ^{-1} ≈ I` inside the constraint, so the order is at most 2
//! on a non-abelian group) gives, for the state `(g_k, Π_k)` (`Π_k ∈ g*` the body momentum):
//!
//! ```text
//!   Θ^i = Σ_j a_ij Ξ^j,   G^i = g_k τ(hΘ^i),   f^i = G^i ∂ℓ/∂g(G^i, Ξ^i),   Ξ̄ = Σ_j b_j Ξ^j
//!   b_i ∂ℓ/∂ξ(G^i, Ξ^i) = b_i M - h Σ_j b_j a_ji (dτ_{-hΘ^j})* f^j                (i = 1..s)
//!   Π_k = (dτ^{-1}_{hΞ̄})* M - h Σ_i b_i Ad*_{τ(-hΘ^i)} f^i
//!   g_{k+1} = g_k τ(hΞ̄),      Π_{k+1} = (dτ^{-1}_{-hΞ̄})* M
//! ```
//!
//! (`X*` is the transpose of the matrix `X`; `dτ` right-trivialized, docs/math.md §D.2.)
//!
//! # How it is solved
//!
//! The last equation is linear in the multiplier `M`, and `(dτ^{-1}_x)^{-1} = dτ_x`, so `M` is
//! eliminated exactly:
//!
//! ```text
//!   M(Ξ) = (dτ_{hΞ̄})* ( Π_k + h Σ_i b_i Ad*_{τ(-hΘ^i)} f^i ),
//! ```
//!
//! and Newton's method ([`geom_core::newton::newton_blocks`]) solves the `s` block equations
//! (divided by `b_i`, and by `|Π_k|_∞` so that the residual tolerance is relative)
//!
//! ```text
//!   R_i(Ξ) = ∂ℓ/∂ξ(G^i, Ξ^i) - M(Ξ) + h Σ_j (b_j a_ji / b_i) (dτ_{-hΘ^j})* f^j = 0
//! ```
//!
//! for the `S` blocks `Ξ^1..Ξ^s ∈ R^D` — so the block count of `newton_blocks` is the stage
//! count `S` itself and needs no second const parameter. The exact block Jacobian comes from
//! one evaluation of the same residual at `DualSVec64<D>` per block
//! ([`geom_core::newton::block_jacobian`]). The warm start is `Ξ^i = ξ_0`, the inverse Legendre
//! transform of `Π_k` ([`LeftLagrangian::velocity_guess`]).
//!
//! **Left-invariant Lagrangians** ([`LeftLagrangian::LEFT_INVARIANT`], e.g. the free rigid body
//! and the underwater vehicle): `f ≡ 0` and `∂ℓ/∂ξ` does not depend on `g`, so every stage
//! equation reads `∂ℓ/∂ξ(Ξ^i) = M` and, the Legendre transform being invertible,
//! `Ξ^1 = … = Ξ^s = ξ`, `Ξ̄ = ξ` (`Σ b_i = 1`). The step then reduces exactly to one block
//! (for every tableau — "for a free body the three members coincide", docs/math.md §D.5):
//!
//! ```text
//!   (dτ^{-1}_{hξ})* ∂ℓ/∂ξ(ξ) = Π_k,   g_{k+1} = g_k τ(hξ),   Π_{k+1} = Ad*_{τ(hξ)} Π_k,
//! ```
//!
//! using `(dτ^{-1}_{-x})* (dτ_x)* = Ad*_{τ(x)}` (docs/math.md §D.2). The Casimirs and the spatial
//! momentum `Ad*_{g^{-1}} Π` are then conserved by construction (docs/math.md §D.5 check (ii)).
//! Its Newton Jacobian is assembled from closed-form pieces,
//! `(dτ^{-1}_{hξ})* D(∂ℓ/∂ξ) + h D_x[(dτ^{-1}_x)* μ]|_{μ = ∂ℓ/∂ξ}`, with
//! [`LeftLagrangian::momentum_jacobian`] and [`LieGroupFamily::dtau_inv_transpose_derivative`]
//! (both fall back to AD), which
//! keeps this step within a small factor of a hand-written loop (benches/hp.rs).
//!
//! # Named members (docs/math.md §D.5)
//!
//! * [`symplectic_euler_a`]: `c = 0, a = 0, b = 1`; solve `Π_k + h f(g_k) = (dτ^{-1}_{hξ})* Iξ`;
//! * [`symplectic_euler_b`]: `c = a = b = 1`; solve `Π_k = (dτ^{-1}_{hξ})* Iξ`, then
//!   `Π_{k+1} = (dτ^{-1}_{-hξ})* Iξ + h f(g_{k+1})`;
//! * [`stormer_verlet`]: Lobatto IIIA with `s = 2`; solve `Π_k + (h/2) f(g_k) = (dτ^{-1}_{hξ})* Iξ`,
//!   `g_{k+1} = g_k τ(hξ)`, `Π_{k+1} = (dτ^{-1}_{-hξ})* Iξ + (h/2) f(g_{k+1})`.
//!
//! With `G = R^n` the map is the variational partitioned RK method
//! `P^i = p_k + h Σ_j â_ij Ṗ^j`, `â_ij = b_j - b_j a_ji / b_i` (docs/math.md §D.5 check (i)).
//!
//! # Higher order: the truncation index
//!
//! [`HpIntegrator::with_truncation`] keeps `dτ^{-1}` in the reconstruction up to degree `q`
//! ([`truncated_dtau_inv`]; docs/math.md §D.11). A tableau of order `p` then gives order
//! `min(p, q + 2)` with exp (an even `q` counts one more) and `p` with Cayley for `q ≥ 2`:
//! Gauss `s = 2` with `q = 2` is a fourth-order variational method on any group, Gauss `s = 3`
//! with `q = 4` a sixth-order one (orders measured in tests/hp_truncation.rs).
//!
//! # Huge steps
//!
//! A returned step solves its discrete equations: the Newton solve of the stage equations is
//! accepted only by the tests of [`geom_core::newton`] (residual, contraction-checked step,
//! round-off floor), none of which accepts a stall. Far outside the stability region the
//! solution of the discrete equations is still returned, and is then useless as an
//! approximation of the flow: Störmer–Verlet (Cayley) on the heavy top at `h = 1e6` returns,
//! after 20–36 Newton iterations, states that satisfy the three equations of [`stormer_verlet`]
//! to a relative `5e-13` (the rounding of `g_{k+1}` near a rotation by π explains up to
//! `7e-12`), with a relative energy error of `3e4` after 3 steps
//! (tests/hp_large_step.rs, which evaluates the equations independently of this module).
//! Such a result is the scheme's, not the solver's: the energy error, not the step's `Result`,
//! reports it (the CLI exits with its divergence status). Where the equations have no solution
//! near the warm start the step fails with [`GeomError::NotConverged`] or
//! [`GeomError::SingularMatrix`] and leaves the state untouched (the exponential chart and
//! Gauss–Legendre at the same `h`).
//!
//! # Trait objects
//!
//! The integrator is generic over the group `G` and the Lagrangian `L` (monomorphic inner loop).
//! It implements [`OneStep<LieState<E, D>>`](OneStep), so an integrator over a concrete group is
//! held as `Box<dyn OneStep<LieState<Matrix3<f64>, 3>>>` by a driver or a run-time registry.

mod chart;
mod group;
mod lagrangian;
mod scalar;
mod truncation;

pub use chart::HpChart;
use chart::{
    ShippedChart, chart_dtau_inv_transpose, chart_dtau_inv_transpose_derivative, chart_dtau_inv_transpose_matrix,
};
pub use geom_core::lie::ad_dtau_inv_transpose_derivative;
pub use group::{HpGroup, HpLagrangian};
pub(crate) use lagrangian::check_inertia;
pub use lagrangian::{
    AutoDiff, KineticPotential, LeftLagrangian, LieFunction, Potential, PotentialGradient, ZeroPotential,
};
pub use scalar::AdScalar;
pub use truncation::{MAX_TRUNCATION, truncated_dtau_inv, truncated_dtau_inv_gradient};

use crate::tableau::{self, Tableau};
use geom_core::lie::{Chart, GroupChart, LieGroup, LieGroupFamily, check_chart};
use geom_core::linalg::{BlockVector, Lu};
use geom_core::newton::{NewtonOptions, NewtonReport, block_jacobian, newton_blocks, newton_split};
use geom_core::step::{OneStep, check_step};
use geom_core::{GeomError, Result, Scalar};
use nalgebra::SVector;
use num_dual::DualSVec64;

pub use geom_core::step::LieState;

/// The element type of `G` at `f64`.
pub type ElementOf<G, const D: usize> = <G as LieGroup<f64, D>>::Element;

/// Whether every scalar entry of `g` is finite (one pass over the entries of its copy at `f64`;
/// cheaper than [`LieGroup::defect`], which also measures the distance to the group).
#[inline]
pub(crate) fn element_is_finite<G: LieGroupFamily<D>, const D: usize>(
    group: &G,
    g: &<G as LieGroup<f64, D>>::Element,
) -> bool {
    // branch-free: Σ 0·v is 0 iff every entry is finite
    let zero = core::cell::Cell::new(0.0f64);
    let _ = group.map_scalar(&group.lift_at::<f64>(g), &|v: f64| {
        zero.set(zero.get() + 0.0 * v);
        v
    });
    zero.get() == 0.0
}

/// The tableau data of the stage equations (fixed size, on the stack).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Coefficients<const S: usize> {
    a: [[f64; S]; S],
    b: [f64; S],
    /// `w_ij = b_j a_ji / b_i`, the weight of `(dτ_{-hΘ^j})* f^j` in stage equation `i`.
    w: [[f64; S]; S],
    /// Row `i` of `A` vanishes (`Θ^i = 0`, `G^i = g_k`, no chart evaluation).
    zero_row: [bool; S],
}

/// The Hamilton–Pontryagin RKMK integrator (module documentation; docs/math.md §D.5) for the
/// Lagrangian `L` on the group `G` with an `S`-stage tableau and the chart `τ`.
///
/// ```
/// use geom_core::step::OneStep;
/// use geom_core::lie::{Chart, So3};
/// use integrators::hp::{self, LieState};
/// use integrators::models::FreeRigidBody;
/// use nalgebra::{Matrix3, Vector3};
///
/// let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0)?;
/// let sv: Box<dyn OneStep<LieState<Matrix3<f64>, 3>>> = Box::new(hp::stormer_verlet(So3, Chart::Cayley, body)?);
/// let mut s = LieState::new(Matrix3::identity(), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin()));
/// let m0 = s.spatial_momentum(&So3);
/// for _ in 0..100 {
///     sv.step(&mut s, 0.1)?;
/// }
/// assert!((s.spatial_momentum(&So3) - m0).norm() < 1e-13);
/// assert!((s.mu.norm() - 1.0).abs() < 1e-13);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct HpIntegrator<G, L, const D: usize, const S: usize, C = Chart> {
    group: G,
    lagrangian: L,
    chart: C,
    coefficients: Coefficients<S>,
    c: [f64; S],
    name: String,
    tableau_order: u32,
    tableau_symmetric: bool,
    /// `(Σ_{c_i = 0} b_i, Σ_{c_i = 1} b_i)` when the tableau's stages collapse to one for a
    /// separable `ℓ` (module docs, "separable Lagrangians"), else `None`.
    kicks: Option<(f64, f64)>,
    newton: NewtonOptions,
    /// The truncation index `q` of `dτ^{-1}` in the reconstruction ([`Self::with_truncation`]).
    truncation: u32,
}

impl<G, L, const D: usize, const S: usize, C> HpIntegrator<G, L, D, S, C>
where
    G: HpGroup<D>,
    L: HpLagrangian<G, D>,
    C: HpChart<G, D>,
{
    /// The HP integrator of `tableau` (which must have `S` stages, `Σ b_i = 1` and every
    /// `b_i != 0`, else [`GeomError::DimensionMismatch`] / [`GeomError::InvalidParameter`]),
    /// with the chart `τ` (a shipped [`Chart`] or a user's [`GroupChart`], which must pass
    /// [`check_chart`], else [`GeomError::InvalidParameter`]; a shipped chart the group refuses,
    /// [`GeomError::ChartUnavailable`]) and [`geom_core::newton::INTEGRATOR_TOL`].
    ///
    /// ```
    /// use geom_core::lie::{Chart, So3};
    /// use integrators::hp::HpIntegrator;
    /// use integrators::models::FreeRigidBody;
    /// use integrators::tableau;
    /// let body = FreeRigidBody::principal(1.0, 2.0, 3.0)?;
    /// let gauss = HpIntegrator::<_, _, 3, 2>::new(So3, &tableau::gauss_legendre(2)?, Chart::Exp, body)?;
    /// assert_eq!(gauss.name(), "HP Gauss-Legendre 2 (exp)");
    /// // the explicit midpoint rule has b_1 = 0: its stage equations are singular
    /// assert!(HpIntegrator::<_, _, 3, 2>::new(So3, &tableau::explicit_midpoint(), Chart::Exp, body).is_err());
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn new(group: G, tableau: &Tableau, chart: C, lagrangian: L) -> Result<Self> {
        if GroupChart::<f64, G, D>::builtin(&chart).is_none() {
            check_chart::<G, C, D>(&group, &chart)?;
        } else {
            // a shipped chart the group does not have (Cayley on SL(3)): its typed refusal now
            GroupChart::<f64, G, D>::tau(&chart, &group, &SVector::zeros())?;
        }
        let (a, b, c) = tableau.arrays::<S>()?;
        let sum: f64 = b.iter().sum();
        if (sum - 1.0).abs() > tableau::ORDER_TOL {
            return Err(GeomError::InvalidParameter {
                what: "HP tableau",
                reason: format!("{}: sum of weights b_i is {sum}, not 1", tableau.name()),
            });
        }
        if let Some(i) = b.iter().position(|bi| bi.abs() <= tableau::ORDER_TOL) {
            return Err(GeomError::InvalidParameter {
                what: "HP tableau",
                reason: format!("{}: b_{} = 0; the HP stage equations need every b_i != 0", tableau.name(), i + 1),
            });
        }
        let w = core::array::from_fn(|i| core::array::from_fn(|j| b[j] * a[j][i] / b[i]));
        let zero_row = core::array::from_fn(|i| a[i].iter().all(|&v| v == 0.0));
        let tableau_symmetric = (0..S).all(|i| {
            (b[i] - b[S - 1 - i]).abs() <= tableau::ORDER_TOL
                && (0..S).all(|j| (a[i][j] + a[S - 1 - i][S - 1 - j] - b[j]).abs() <= tableau::ORDER_TOL)
        }) && c.iter().all(|&ci| ci == 0.0 || ci == 1.0);
        let kicks = separable_kicks(&a, &b, &w);
        Ok(Self {
            group,
            lagrangian,
            chart,
            coefficients: Coefficients { a, b, w, zero_row },
            c,
            name: format!("HP {} ({})", tableau.name(), GroupChart::<f64, G, D>::name(&chart)),
            tableau_order: tableau.order(),
            tableau_symmetric,
            kicks,
            newton: NewtonOptions::integrator(),
            truncation: 0,
        })
    }

    /// The same integrator with `dτ^{-1}` in the reconstruction truncated after degree `q`
    /// instead of `q = 0` (module [`truncated_dtau_inv`]; docs/math.md §D.11): a tableau of
    /// order `p` then gives order `min(p, q + 2)` on any group with `τ = exp` (one more for an
    /// even `q ≥ 2`, since `B_{q+1} = 0`), and order `p` with Cayley for `q ≥ 2` (there the
    /// truncation is exact; Cayley with `q = 1` stays at order 2). The stages are solved in the
    /// velocities `V^j = D_q(-hΘ^j) Ξ^j`; for `q ≥ 1` the left-invariant and separable
    /// reductions do not apply and every step solves the `S` stage blocks, by simplified Newton
    /// with final polishing (one AD block Jacobian per step,
    /// [`NewtonOptions::simplified`]: [`JacobianUpdate::Frozen`](geom_core::newton::JacobianUpdate)
    /// and [`NewtonOptions::polish`], so the stages carry no error of the size of the tolerance
    /// from step to step; [`Self::with_newton`] afterwards overrides it).
    ///
    /// Errors ([`GeomError::InvalidParameter`]): `q ≥ 1` with a user's chart (the truncated
    /// series is defined for the shipped charts), `q >` [`MAX_TRUNCATION`].
    ///
    /// ```
    /// use geom_core::lie::{Chart, So3};
    /// use integrators::hp::HpIntegrator;
    /// use integrators::models::HeavyTop;
    /// use integrators::tableau;
    /// use discretization::OneStep;
    /// use nalgebra::{Matrix3, Vector3};
    /// let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 3.0)), 1.5, Vector3::z())?;
    /// let gauss = HpIntegrator::<_, _, 3, 2>::new(So3, &tableau::gauss_legendre(2)?, Chart::Exp, top)?;
    /// assert_eq!(gauss.order(), 2); // q = 0 caps the order at 2
    /// assert_eq!(gauss.clone().with_truncation(1)?.order(), 3);
    /// assert_eq!(gauss.with_truncation(2)?.order(), 4);
    /// # Ok::<(), geom_core::GeomError>(())
    /// ```
    pub fn with_truncation(mut self, q: u32) -> Result<Self> {
        truncation::check_truncation(GroupChart::<f64, G, D>::builtin(&self.chart), q)?;
        self.truncation = q;
        if q > 0 {
            // measured (heavy top, Gauss 2, q = 2): 3 simplified-Newton iterations with one AD
            // Jacobian cost a third of 2 full ones; as with every frozen
            // Jacobian, the result is polished (one solve with the factored Jacobian)
            self.newton = self.newton.with_jacobian(geom_core::newton::JacobianUpdate::Frozen).with_polish(true);
        }
        if q > 0 && !self.name.contains(" q = ") {
            self.name = format!("{}, q = {q}", self.name);
        }
        Ok(self)
    }

    /// The truncation index `q` of `dτ^{-1}` (0 unless set by [`Self::with_truncation`]).
    pub fn truncation(&self) -> u32 {
        self.truncation
    }

    /// The same integrator with other Newton options (validated).
    pub fn with_newton(mut self, newton: NewtonOptions) -> Result<Self> {
        newton.validate()?;
        self.newton = newton;
        Ok(self)
    }

    /// The same integrator under another name (the named members use it).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The group.
    pub fn group(&self) -> &G {
        &self.group
    }
    /// The Lagrangian.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }
    /// The chart `τ`.
    pub fn chart(&self) -> C {
        self.chart
    }
    /// The stage nodes `c`.
    pub fn nodes(&self) -> &[f64; S] {
        &self.c
    }
    /// The Newton options of the stage solve.
    pub fn newton_options(&self) -> &NewtonOptions {
        &self.newton
    }
    /// Name, e.g. `"HP Störmer–Verlet (cayley)"`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// One step from `state` (left untouched) with the Newton report of the stage solve.
    /// Errors: [`GeomError::InvalidStep`] (`h` zero or not finite), [`GeomError::NonFinite`]
    /// (state or result), the Newton errors ([`GeomError::NotConverged`],
    /// [`GeomError::SingularMatrix`]) and those of the chart and the Lagrangian.
    pub fn try_step(
        &self,
        state: &LieState<ElementOf<G, D>, D>,
        h: f64,
    ) -> Result<(LieState<ElementOf<G, D>, D>, NewtonReport)> {
        check_step(h)?;
        let group = &self.group;
        // a non-finite g_k shows in g_{k+1} = g_k τ(·) (NaN and ∞ propagate through the product),
        // which is checked below: one scan of the element per step, not two
        if !geom_core::error::all_finite(state.mu.as_slice()) {
            return Err(GeomError::NonFinite { what: "HP state" });
        }
        let scale = state.mu.amax();
        let inv_scale = if scale > 0.0 { 1.0 / scale } else { 1.0 };
        let xi0 = self.velocity_guess(&state.g, &state.mu)?;
        let chart = self.chart;
        let builtin = GroupChart::<f64, G, D>::builtin(&chart);
        let (next, report) = if let (q @ 1.., Some(builtin)) = (self.truncation, builtin) {
            self.step_truncated(state, h, inv_scale, xi0, builtin, q)?
        } else if <L as LeftLagrangian<f64, G, D>>::LEFT_INVARIANT {
            // a shipped chart as a type (`ShippedChart`): each chart's step is compiled alone,
            // so that the exp chart's series and the Cayley closed forms inline into loops of
            // their own instead of one loop carrying both
            match builtin {
                Some(Chart::Cayley) => self.step_left_invariant(&ShippedChart::<false>, state, h, inv_scale, xi0)?,
                Some(Chart::Exp) => self.step_left_invariant(&ShippedChart::<true>, state, h, inv_scale, xi0)?,
                None => self.step_left_invariant(&chart, state, h, inv_scale, xi0)?,
            }
        } else if let (true, Some(kicks)) = (<L as LeftLagrangian<f64, G, D>>::SEPARABLE, self.kicks) {
            match builtin {
                Some(Chart::Cayley) => self.step_separable(&ShippedChart::<false>, state, h, inv_scale, xi0, kicks)?,
                Some(Chart::Exp) => self.step_separable(&ShippedChart::<true>, state, h, inv_scale, xi0, kicks)?,
                None => self.step_separable(&chart, state, h, inv_scale, xi0, kicks)?,
            }
        } else {
            self.step_general(state, h, inv_scale, xi0)?
        };
        if !geom_core::error::all_finite(next.mu.as_slice()) || !element_is_finite(group, &next.g) {
            return Err(GeomError::NonFinite { what: "HP state after the step" });
        }
        Ok((next, report))
    }

    /// The step of a left-invariant `ℓ`: the reduced solve, `g_{k+1} = g_k τ(hξ)`,
    /// `Π_{k+1} = Ad*_{τ(hξ)} Π_k`. Out of line, as [`Self::step_separable`].
    #[inline(never)]
    fn step_left_invariant<K: HpChart<G, D>>(
        &self,
        chart: &K,
        state: &LieState<ElementOf<G, D>, D>,
        h: f64,
        inv_scale: f64,
        xi0: SVector<f64, D>,
    ) -> Result<(LieState<ElementOf<G, D>, D>, NewtonReport)> {
        let (next, _, report) = self.solve_and_translate(chart, &state.g, &state.mu, h, inv_scale, xi0)?;
        Ok((next, report))
    }

    /// The reduced solve for `ξ` at momentum `μ`, then `g_{k+1} = g τ(hξ)` and
    /// `Ad*_{τ(hξ)} μ`: the common part of the left-invariant and the kick–solve–kick steps.
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    fn solve_and_translate<K: HpChart<G, D>>(
        &self,
        chart: &K,
        g: &ElementOf<G, D>,
        mu: &SVector<f64, D>,
        h: f64,
        inv_scale: f64,
        xi0: SVector<f64, D>,
    ) -> Result<(LieState<ElementOf<G, D>, D>, SVector<f64, D>, NewtonReport)> {
        let group = &self.group;
        let (xi, report) = self.solve_reduced(chart, g, mu, h, inv_scale, xi0)?;
        let t = GroupChart::<f64, G, D>::tau(chart, group, &(xi * h))?;
        let next =
            LieState { g: LieGroup::<f64, D>::compose(group, g, &t), mu: LieGroup::<f64, D>::coadjoint(group, &t, mu) };
        Ok((next, xi, report))
    }

    /// The kick–solve–kick step of a separable `ℓ` (module docs, "separable Lagrangians"), with
    /// the kick weights `(before, after)`. Its own function, out of line: each step path then
    /// inlines the chart, the group product and the Newton loop it uses.
    #[inline(never)]
    fn step_separable<K: HpChart<G, D>>(
        &self,
        chart: &K,
        state: &LieState<ElementOf<G, D>, D>,
        h: f64,
        inv_scale: f64,
        xi0: SVector<f64, D>,
        (before, after): (f64, f64),
    ) -> Result<(LieState<ElementOf<G, D>, D>, NewtonReport)> {
        let (group, lagrangian) = (&self.group, &self.lagrangian);
        // kick, the left-invariant solve, drift, kick (module docs, "separable Lagrangians")
        let mut mu = state.mu;
        if before != 0.0 {
            mu += LeftLagrangian::<f64, G, D>::force(lagrangian, group, &state.g, &xi0)? * (h * before);
        }
        let (mut next, xi, report) = self.solve_and_translate(chart, &state.g, &mu, h, inv_scale, xi0)?;
        if after != 0.0 {
            next.mu += LeftLagrangian::<f64, G, D>::force(lagrangian, group, &next.g, &xi)? * (h * after);
        }
        Ok((next, report))
    }

    /// The general step: Newton on the `S` stage blocks with the exact block Jacobian by AD.
    #[inline(never)]
    fn step_general(
        &self,
        state: &LieState<ElementOf<G, D>, D>,
        h: f64,
        inv_scale: f64,
        xi0: SVector<f64, D>,
    ) -> Result<(LieState<ElementOf<G, D>, D>, NewtonReport)> {
        let group = &self.group;
        let co = &self.coefficients;
        let gk_d = group.lift_at::<DualSVec64<D>>(&state.g);
        let pik_d = state.mu.map(DualSVec64::from_re);
        let (xi, report) = newton_blocks::<D, S>(
            |x, jac| match jac {
                Some(out) => {
                    let (fx, j) = block_jacobian(x, |xd| {
                        let (r, _, _) =
                            stage_equations(group, &self.lagrangian, &self.chart, co, h, &gk_d, &pik_d, xd)?;
                        Ok(r.map(|ri| ri * DualSVec64::from_re(inv_scale)))
                    })?;
                    *out = j;
                    Ok(fx)
                }
                None => {
                    let (r, _, _) =
                        stage_equations(group, &self.lagrangian, &self.chart, co, h, &state.g, &state.mu, x)?;
                    Ok(r.map(|ri| ri * inv_scale))
                }
            },
            &[xi0; S],
            &self.newton,
        )?;
        let (_, m, xbar) = stage_equations(group, &self.lagrangian, &self.chart, co, h, &state.g, &state.mu, &xi)?;
        let g = GroupChart::<f64, G, D>::compose_tau(&self.chart, group, &state.g, &(xbar * h))?;
        let pi = GroupChart::<f64, G, D>::dtau_inv(&self.chart, group, &(xbar * (-h)))?.tr_mul(&m);
        Ok((LieState { g, mu: pi }, report))
    }

    /// The step with the truncation index `q ≥ 1` (module [`truncated_dtau_inv`]): Newton on
    /// the `S` blocks `V^j`, from `V^j = ξ_0`, with the exact block Jacobian by AD.
    fn step_truncated(
        &self,
        state: &LieState<ElementOf<G, D>, D>,
        h: f64,
        inv_scale: f64,
        xi0: SVector<f64, D>,
        chart: Chart,
        q: u32,
    ) -> Result<(LieState<ElementOf<G, D>, D>, NewtonReport)> {
        let (group, lagrangian, co) = (&self.group, &self.lagrangian, &self.coefficients);
        let gk_d = group.lift_at::<DualSVec64<D>>(&state.g);
        let pik_d = state.mu.map(DualSVec64::from_re);
        let (v, report) = newton_blocks::<D, S>(
            |x, jac| match jac {
                Some(out) => {
                    let (fx, j) = block_jacobian(x, |xd| {
                        let (r, _, _) =
                            truncation::stage_equations(group, lagrangian, chart, q, co, h, &gk_d, &pik_d, xd)?;
                        Ok(r.map(|ri| ri * DualSVec64::from_re(inv_scale)))
                    })?;
                    *out = j;
                    Ok(fx)
                }
                None => {
                    let (r, _, _) =
                        truncation::stage_equations(group, lagrangian, chart, q, co, h, &state.g, &state.mu, x)?;
                    Ok(r.map(|ri| ri * inv_scale))
                }
            },
            &[xi0; S],
            &self.newton,
        )?;
        let (_, m, vbar) = truncation::stage_equations(group, lagrangian, chart, q, co, h, &state.g, &state.mu, &v)?;
        let g = LieGroup::<f64, D>::compose_tau(group, chart, &state.g, &(vbar * h))?;
        let pi = LieGroup::<f64, D>::dtau_inv(group, chart, &(vbar * (-h)))?.tr_mul(&m);
        Ok((LieState { g, mu: pi }, report))
    }

    /// Solve `(dτ^{-1}_{hξ})* ∂ℓ/∂ξ(g, ξ) = μ` for `ξ` (the step of a left-invariant `ℓ`, and
    /// the middle of the kick–solve–kick step of a separable one), the residual scaled by
    /// `inv_scale`, from `xi0`.
    #[inline(always)]
    fn solve_reduced<K: HpChart<G, D>>(
        &self,
        chart: &K,
        g: &ElementOf<G, D>,
        mu: &SVector<f64, D>,
        h: f64,
        inv_scale: f64,
        xi0: SVector<f64, D>,
    ) -> Result<(SVector<f64, D>, NewtonReport)> {
        let (group, lagrangian) = (&self.group, &self.lagrangian);
        // R(ξ) = (dτ^{-1}_{hξ})* m(ξ) - μ, DR = (dτ^{-1}_{hξ})* Dm + h D_x[(dτ^{-1}_x)* m]
        newton_split(
            |x| {
                let m = LeftLagrangian::<f64, G, D>::momentum(lagrangian, group, g, x)?;
                Ok((chart_dtau_inv_transpose(group, chart, &(x * h), &m)? - mu) * inv_scale)
            },
            |x| {
                let hx = x * h;
                let m = LeftLagrangian::<f64, G, D>::momentum(lagrangian, group, g, x)?;
                let dm = match LeftLagrangian::<f64, G, D>::momentum_jacobian(lagrangian, group, g, x) {
                    Some(dm) => dm,
                    None => self.ad_momentum_jacobian(g, x)?,
                };
                let dchart_dx = chart_dtau_inv_transpose_derivative(group, chart, &hx, &m)?;
                let adm = chart_dtau_inv_transpose_matrix(group, chart, &hx, &dm)?;
                Ok((adm + dchart_dx * h) * inv_scale)
            },
            &xi0,
            &self.newton,
        )
    }

    /// `∂/∂ξ (∂ℓ/∂ξ)(g, ξ)` by AD (one evaluation of the momentum at `DualSVec64<D>`).
    fn ad_momentum_jacobian(&self, g: &ElementOf<G, D>, xi: &SVector<f64, D>) -> Result<nalgebra::SMatrix<f64, D, D>> {
        let gd = self.group.lift_at::<DualSVec64<D>>(g);
        let xd = SVector::<DualSVec64<D>, D>::from_fn(|k, _| DualSVec64::from_re(xi[k]).derivative(k));
        let md = LeftLagrangian::<DualSVec64<D>, G, D>::momentum(&self.lagrangian, &self.group, &gd, &xd)?;
        Ok(nalgebra::SMatrix::<f64, D, D>::from_fn(|i, j| {
            md[i].eps.unwrap_generic(nalgebra::Const::<D>, nalgebra::U1)[j]
        }))
    }

    /// The Newton warm start `ξ_0`: [`LeftLagrangian::velocity_guess`], else the solution of the
    /// Legendre transform linearised at `ξ = 0` by AD, `∂ℓ/∂ξ(g, 0) + H ξ_0 = Π`.
    fn velocity_guess(&self, g: &ElementOf<G, D>, pi: &SVector<f64, D>) -> Result<SVector<f64, D>> {
        if let Some(v) = LeftLagrangian::<f64, G, D>::velocity_guess(&self.lagrangian, &self.group, g, pi) {
            return Ok(v);
        }
        let gd = self.group.lift_at::<DualSVec64<D>>(g);
        let zero = SVector::<DualSVec64<D>, D>::from_fn(|k, _| DualSVec64::from_re(0.0).derivative(k));
        let md = LeftLagrangian::<DualSVec64<D>, G, D>::momentum(&self.lagrangian, &self.group, &gd, &zero)?;
        let m0 = md.map(|v| v.re);
        let hess = nalgebra::SMatrix::<f64, D, D>::from_fn(|i, j| {
            md[i].eps.unwrap_generic(nalgebra::Const::<D>, nalgebra::U1)[j]
        });
        Ok(Lu::factor(&hess, "Legendre transform at xi = 0")?.solve(&(pi - m0)))
    }
}

/// For a separable `ℓ = K(ξ) − V(g)` the stage equations read `∂K(Ξ^i) = M − h Σ_j w_ij p_j`:
/// when `w_ij = w_j` for every `i`, all stages coincide (`Ξ^i = ξ`, `Θ^i = c_i ξ`). If moreover
/// every `c_j ∈ {0, 1}` with `w_j = 0` where `c_j = 0` and `w_j = b_j` where `c_j = 1`, the
/// forces at `g_{k+1}` cancel from the `Π_k` equation (`(dτ^{-1}_x)*(dτ_{-x})* = Ad*_{τ(-x)}`)
/// and the step is kick–solve–kick with the weights returned here,
/// `(Σ_{c_j = 0} b_j, Σ_{c_j = 1} b_j)`: Störmer–Verlet `(½, ½)`, symplectic Euler A `(1, 0)`,
/// B `(0, 1)`.
fn separable_kicks<const S: usize>(a: &[[f64; S]; S], b: &[f64; S], w: &[[f64; S]; S]) -> Option<(f64, f64)> {
    let tol = tableau::ORDER_TOL;
    let (mut before, mut after) = (0.0, 0.0);
    for j in 0..S {
        if (0..S).any(|i| (w[i][j] - w[0][j]).abs() > tol) {
            return None;
        }
        let c: f64 = a[j].iter().sum();
        if c.abs() <= tol && w[0][j].abs() <= tol {
            before += b[j];
        } else if (c - 1.0).abs() <= tol && (w[0][j] - b[j]).abs() <= tol {
            after += b[j];
        } else {
            return None;
        }
    }
    Some((before, after))
}

/// The stage equations `R_i(Ξ)` of the module documentation (not yet scaled), with the
/// eliminated multiplier `M(Ξ)` and `Ξ̄`.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
#[inline]
fn stage_equations<T, G, L, C, const D: usize, const S: usize>(
    group: &G,
    lagrangian: &L,
    chart: &C,
    co: &Coefficients<S>,
    h: f64,
    gk: &<G as LieGroup<T, D>>::Element,
    pik: &SVector<T, D>,
    xi: &BlockVector<T, D, S>,
) -> Result<(BlockVector<T, D, S>, SVector<T, D>, SVector<T, D>)>
where
    T: Scalar,
    G: LieGroup<T, D>,
    L: LeftLagrangian<T, G, D>,
    C: GroupChart<T, G, D>,
{
    let hs = T::from(h);
    let mut momenta = [SVector::<T, D>::zeros(); S];
    // (dτ_{-hΘ^j})* f^j
    let mut pulled = [SVector::<T, D>::zeros(); S];
    // Π_k + h Σ_i b_i Ad*_{τ(-hΘ^i)} f^i
    let mut mu = *pik;
    for i in 0..S {
        let (m, f, f_back) = if co.zero_row[i] {
            let m = lagrangian.momentum(group, gk, &xi[i])?;
            let f = lagrangian.force(group, gk, &xi[i])?;
            (m, f, f)
        } else {
            let mut theta = SVector::<T, D>::zeros();
            for (j, x) in xi.iter().enumerate() {
                if co.a[i][j] != 0.0 {
                    theta += x * T::from(co.a[i][j]);
                }
            }
            let htheta = theta * hs;
            let t = chart.tau(group, &htheta)?;
            let gi = group.compose(gk, &t);
            let m = lagrangian.momentum(group, &gi, &xi[i])?;
            let f = lagrangian.force(group, &gi, &xi[i])?;
            pulled[i] = chart.dtau(group, &(-htheta))?.tr_mul(&f);
            let f_back = group.coadjoint(&group.inverse(&t), &f);
            (m, f, f_back)
        };
        if co.zero_row[i] {
            pulled[i] = f;
        }
        momenta[i] = m;
        mu += f_back * T::from(h * co.b[i]);
    }
    let mut xbar = SVector::<T, D>::zeros();
    for (j, x) in xi.iter().enumerate() {
        xbar += x * T::from(co.b[j]);
    }
    let big_m = chart.dtau(group, &(xbar * hs))?.tr_mul(&mu);
    let mut r = [SVector::<T, D>::zeros(); S];
    for ((ri, mi), wi) in r.iter_mut().zip(&momenta).zip(&co.w) {
        *ri = mi - big_m;
        for (pj, &wij) in pulled.iter().zip(wi) {
            if wij != 0.0 {
                *ri += pj * T::from(h * wij);
            }
        }
    }
    Ok((r, big_m, xbar))
}

impl<G, L, const D: usize, const S: usize, C> OneStep<LieState<ElementOf<G, D>, D>> for HpIntegrator<G, L, D, S, C>
where
    G: HpGroup<D>,
    L: HpLagrangian<G, D>,
    C: HpChart<G, D>,
{
    fn name(&self) -> String {
        self.name.clone()
    }
    /// With `q = 0`: 2 for a left-invariant `ℓ` (every tableau gives the same symmetric
    /// scheme), else `min(p, 2)` — the `q = 0` truncation of Bou-Rabee & Marsden caps the order
    /// at 2 on a non-abelian group. With `q ≥ 1` ([`HpIntegrator::with_truncation`]):
    /// `min(p, q_eff + 2)` with the exp chart (`q_eff = q`, or `q + 1` for an even `q` since
    /// the odd Bernoulli numbers vanish), `p` with Cayley and `q ≥ 2`, 2 with Cayley and
    /// `q = 1` (docs/math.md §D.11, measured in tests/hp_truncation.rs).
    fn order(&self) -> u32 {
        if let (q @ 1.., Some(chart)) = (self.truncation, GroupChart::<f64, G, D>::builtin(&self.chart)) {
            self.tableau_order.min(truncation::order_cap(chart, q))
        } else if <L as LeftLagrangian<f64, G, D>>::LEFT_INVARIANT {
            2
        } else {
            self.tableau_order.min(2)
        }
    }
    /// With `q = 0`: symmetric for a left-invariant `ℓ`, and for a symmetric tableau whose
    /// stages all sit at the endpoints (`c_i ∈ {0, 1}`, e.g. Lobatto IIIA `s = 2`): then the
    /// stage points are `g_k`, `g_{k+1}` and the discrete Lagrangian is self-adjoint. With
    /// `q ≥ 1`, not claimed (the RKMK stages are centred at `g_k`).
    fn is_symmetric(&self) -> bool {
        self.truncation == 0 && (<L as LeftLagrangian<f64, G, D>>::LEFT_INVARIANT || self.tableau_symmetric)
    }
    fn step(&self, state: &mut LieState<ElementOf<G, D>, D>, h: f64) -> Result<()> {
        let (next, _) = self.try_step(state, h)?;
        *state = next;
        Ok(())
    }
}

/// Lie-group symplectic Euler A (docs/math.md §D.5; tableau `c = 0, a = 0, b = 1`):
/// solve `Π_k + h f(g_k) = (dτ^{-1}_{hξ})* Iξ`; `g_{k+1} = g_k τ(hξ)`,
/// `Π_{k+1} = (dτ^{-1}_{-hξ})* Iξ`. Order 1 (2 for a left-invariant `ℓ`).
pub fn symplectic_euler_a<G, L, C, const D: usize>(
    group: G,
    chart: C,
    lagrangian: L,
) -> Result<HpIntegrator<G, L, D, 1, C>>
where
    G: HpGroup<D>,
    L: HpLagrangian<G, D>,
    C: HpChart<G, D>,
{
    Ok(HpIntegrator::new(group, &tableau::explicit_euler(), chart, lagrangian)?
        .with_name(format!("HP symplectic Euler A ({})", GroupChart::<f64, G, D>::name(&chart))))
}

/// Lie-group symplectic Euler B (docs/math.md §D.5; tableau `c = a = b = 1`):
/// solve `Π_k = (dτ^{-1}_{hξ})* Iξ`; `g_{k+1} = g_k τ(hξ)`,
/// `Π_{k+1} = (dτ^{-1}_{-hξ})* Iξ + h f(g_{k+1})`. The adjoint of symplectic Euler A.
pub fn symplectic_euler_b<G, L, C, const D: usize>(
    group: G,
    chart: C,
    lagrangian: L,
) -> Result<HpIntegrator<G, L, D, 1, C>>
where
    G: HpGroup<D>,
    L: HpLagrangian<G, D>,
    C: HpChart<G, D>,
{
    Ok(HpIntegrator::new(group, &tableau::implicit_euler(), chart, lagrangian)?
        .with_name(format!("HP symplectic Euler B ({})", GroupChart::<f64, G, D>::name(&chart))))
}

/// Lie-group Störmer–Verlet (docs/math.md §D.5; Lobatto IIIA `s = 2`, `c = (0, 1)`,
/// `a = [[0, 0], [½, ½]]`, `b = (½, ½)`, whence `Ξ^1 = Ξ^2 = ξ_k` for `∂ℓ/∂ξ = Iξ`):
///
/// ```text
///   solve  Π_k + (h/2) f(g_k) = (dτ^{-1}_{hξ})* I ξ
///   g_{k+1} = g_k τ(hξ),   Π_{k+1} = (dτ^{-1}_{-hξ})* I ξ + (h/2) f(g_{k+1})
/// ```
///
/// Order 2, symmetric; on SO(3) with `τ = cay` it is the componentwise scheme of docs/math.md §D.5.
pub fn stormer_verlet<G, L, C, const D: usize>(group: G, chart: C, lagrangian: L) -> Result<HpIntegrator<G, L, D, 2, C>>
where
    G: HpGroup<D>,
    L: HpLagrangian<G, D>,
    C: HpChart<G, D>,
{
    Ok(HpIntegrator::new(group, &tableau::lobatto_iiia(2)?, chart, lagrangian)?
        .with_name(format!("HP Störmer–Verlet ({})", GroupChart::<f64, G, D>::name(&chart))))
}
