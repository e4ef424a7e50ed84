//! The tangent map of a one-step method on `T*G ≅ G × g*` in the left-trivialized tangent space.
//!
//! A state is `x = (g, μ)` ([`LieState<E, D>`]: `g ∈ G`, `μ ∈ g* ≅ R^D`), a deviation vector
//! `δx = (η, δμ) ∈ g × g* ≅ R^D × R^D`, the velocity at `ε = 0` of the perturbed state
//!
//! ```text
//!     x(ε) = (g exp(ε η), μ + ε δμ),
//! ```
//!
//! i.e. the left-trivialized chart `ψ_x(η, δμ) = (g exp(η), μ + δμ)` at every state. The tangent
//! map of a step `Φ_h` at `x` is then the `2D × 2D` Jacobian
//! `M = ∂ψ_{x₁}^{-1}(Φ_h(ψ_x(η, δμ)))/∂(η, δμ)` at `0`, `x₁ = Φ_h(x)`, stored in the four
//! `D × D` blocks of [`PhaseJacobian<D>`] (`qq = ∂η₁/∂η`, `qp = ∂η₁/∂δμ`, `pq = ∂μ₁/∂η`,
//! `pp = ∂μ₁/∂δμ`) and a deviation as a [`PhaseState<D>`] (`η` in `q`, `δμ` in `p`), so that
//! [`LyapunovSpectrum`](super::LyapunovSpectrum) and [`Megno`](super::Megno) carry it with the
//! code of `T*R^N`. Since the chart at `x₁` in which `M` reads its output is the one in which the
//! next step reads its input, the product `M_{n−1} ⋯ M_0` is the derivative of the `n`-step map
//! (chain rule): the deviation of two nearby numerical trajectories after `n` steps,
//! [`lie_deviation`]`(x_n, x'_n) ≈ M_{n−1} ⋯ M_0 ·` [`lie_deviation`]`(x_0, x'_0)`.
//!
//! [`LieFiniteDifference`] computes `M` by central differences for any
//! [`OneStep<LieState<E, D>>`](OneStep) on any [`LieGroup`] (Hamilton–Pontryagin, LGVI, the
//! cotangent lifts, …).

use super::tangent::{TangentMap, central_difference_columns, increment_scale};
use crate::classical::PhaseJacobian;
use geom_core::GeomError;
use geom_core::lie::{LieGroup, MEMBERSHIP_TOLERANCE};
use geom_core::step::{LieState, OneStep, PhaseState, check_step};
use nalgebra::SVector;

/// The state `x(ε) = (g exp(ε η), μ + ε δμ)`: `state = (g, μ)` moved by `ε` along the
/// left-trivialized deviation `delta = (η, δμ)` (`η` in `delta.q`, `δμ` in `delta.p`).
///
/// ```
/// use geom_core::lie::{LieGroup, So3};
/// use geom_core::step::LieState;
/// use integrators::PhaseState;
/// use integrators::variational_equations::{lie_deviation, lie_perturb};
/// use nalgebra::Vector3;
///
/// let x = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(1.0, 0.0, 2.0));
/// let delta = PhaseState::new(Vector3::new(0.1, 0.2, -0.3), Vector3::new(1.0, -1.0, 0.5));
/// let y = lie_perturb(&So3, &x, &delta, 1e-3);
/// // lie_deviation inverts it: (log(g⁻¹ g exp(εη)), ε δμ) = ε (η, δμ)
/// let d = lie_deviation(&So3, &x, &y)?;
/// assert!((d.q / 1e-3 - delta.q).amax() < 1e-12 && (d.p / 1e-3 - delta.p).amax() < 1e-12);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn lie_perturb<G: LieGroup<f64, D> + ?Sized, const D: usize>(
    group: &G,
    state: &LieState<G::Element, D>,
    delta: &PhaseState<D>,
    eps: f64,
) -> LieState<G::Element, D> {
    LieState::new(group.compose(&state.g, &group.exp(&(delta.q * eps))), state.mu + delta.p * eps)
}

/// The left-trivialized difference `(log(g_a^{-1} g_b), μ_b − μ_a)` of the states
/// `from = (g_a, μ_a)` and `to = (g_b, μ_b)` (`η` in `q`, `δμ` in `p`): the coordinates of `to` in
/// the chart `ψ_from(η, δμ) = (g_a exp(η), μ_a + δμ)`, the inverse of [`lie_perturb`] at `ε = 1`.
/// An error where the principal logarithm is not defined (`g_a^{-1} g_b` a rotation by `π`).
pub fn lie_deviation<G: LieGroup<f64, D> + ?Sized, const D: usize>(
    group: &G,
    from: &LieState<G::Element, D>,
    to: &LieState<G::Element, D>,
) -> Result<PhaseState<D>, GeomError> {
    let eta = group.log(&group.compose(&group.inverse(&from.g), &to.g))?;
    Ok(PhaseState::new(eta, to.mu - from.mu))
}

/// Any one-step method on `T*G` with its tangent map in the left-trivialized chart
/// (module documentation) by central differences: the [`TangentMap`] of
/// [`LieLyapunovSpectrum`](super::LieLyapunovSpectrum) and [`LieMegno`](super::LieMegno).
///
/// With `x₁(s) = Φ_h(ψ_x(s e_j))` (`e_j` the `j`-th unit vector of `(η, δμ)`), column `j` of `M` is
///
/// ```text
///     M e_j ≈ ( (log(g₁(0)^{-1} g₁(δ_j)) − log(g₁(0)^{-1} g₁(−δ_j))) / (2 δ_j),
///               (μ₁(δ_j) − μ₁(−δ_j)) / (2 δ_j) ),
///     δ_j = ε^{1/3}  (η-columns, where the chart coordinate is 0),
///     δ_j = ε^{1/3} (1 + |μ_j|)  (δμ-columns),
/// ```
///
/// `ε` the machine epsilon (`ε^{1/3} ≈ 6·10⁻⁶`), as [`FiniteDifference`](super::FiniteDifference)
/// chooses it. This is the central difference of the smooth map
/// `F(s) = ψ_{x₁(0)}^{-1}(x₁(s))` in one fixed chart, the one at `x₁(0)` in which the next step
/// reads its deviation: `(F(δ) − F(−δ))/(2δ) = F'(0) + δ² F'''(0)/6 + …`, and the error analysis
/// of `T*R^N` carries over — truncation `δ² |F'''| / 6` against rounding `ε |g| / δ` (the
/// products `g₁(0)^{-1} g₁(±δ)` are `I + O(δ)`, their logarithms well conditioned), a relative
/// error of order `ε^{2/3} ≈ 4·10⁻¹¹` in the entries of `M` (an implicit step solved to a Newton
/// tolerance `τ` adds `τ / δ`). The alternative `log(g₁(−δ)^{-1} g₁(δ)) / (2δ)` is also
/// `O(δ²)` accurate (by Baker–Campbell–Hausdorff, `log(exp(−F(−δ)) exp(F(δ))) = F(δ) − F(−δ) +
/// O(δ³)`), but its `δ²` term adds a bracket `[F'(0), F''(0)]/4` to the chart's `F'''(0)/6`:
/// it is not the difference quotient of one function in one chart, so its error is not the one
/// stated above; the form used costs one logarithm more per column and nothing else.
///
/// Cost: `4D + 1` steps and `4D` logarithms per Jacobian, no heap allocation (elements and
/// blocks are fixed-size values). A symplectic method's `M` is symplectic for `ω_μ`
/// ([`LieLyapunovSpectrum`](super::LieLyapunovSpectrum)) to this accuracy only.
///
/// It is also the method itself: [`OneStep`] is forwarded unchanged.
///
/// ```
/// use geom_core::lie::{Chart, So3, LieGroup};
/// use geom_core::step::LieState;
/// use integrators::hp;
/// use integrators::models::FreeRigidBody;
/// use integrators::variational_equations::{LieFiniteDifference, LieLyapunovSpectrum};
/// use nalgebra::Vector3;
///
/// // the free rigid body, integrable: every exponent vanishes as t → ∞, and the full spectrum
/// // of the symplectic HP Störmer–Verlet sums to zero at every t (to the accuracy of M)
/// let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0)?;
/// let fd = LieFiniteDifference::new(So3, hp::stormer_verlet(So3, Chart::Cayley, body)?);
/// let x = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin()));
/// let mut l = LieLyapunovSpectrum::<_, 3, 6>::start(&fd, x, 0.05)?;
/// l.advance(&fd, 400)?;
/// let e = l.exponents();
/// assert!(e.iter().sum::<f64>().abs() < 1e-7 && e[0] < 0.2, "{e:?}");
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LieFiniteDifference<G, M> {
    group: G,
    method: M,
}

impl<G, M> LieFiniteDifference<G, M> {
    /// The method `method` on `T*group`, with its tangent map by central differences.
    pub fn new(group: G, method: M) -> Self {
        Self { group, method }
    }

    /// The group `G`.
    pub fn group(&self) -> &G {
        &self.group
    }

    /// The wrapped method.
    pub fn method(&self) -> &M {
        &self.method
    }
}

impl<G, M, const D: usize> TangentMap<LieState<G::Element, D>, D> for LieFiniteDifference<G, M>
where
    G: LieGroup<f64, D>,
    M: OneStep<LieState<G::Element, D>>,
{
    fn tangent_step(
        &self,
        state: &LieState<G::Element, D>,
        h: f64,
    ) -> Result<(LieState<G::Element, D>, PhaseJacobian<D>), GeomError> {
        check_step(h)?;
        let group = &self.group;
        let mut next = state.clone();
        self.method.step(&mut next, h)?;
        let inv = group.inverse(&next.g);
        let scale = increment_scale();
        let m = central_difference_columns(
            |j| {
                let (mut plus, mut minus, d) = if j < D {
                    let mut e = SVector::<f64, D>::zeros();
                    e[j] = scale;
                    let shifted = |v: &SVector<f64, D>| LieState::new(group.compose(&state.g, &group.exp(v)), state.mu);
                    (shifted(&e), shifted(&-e), scale)
                } else {
                    let d = scale * (1.0 + state.mu[j - D].abs());
                    let (mut plus, mut minus) = (state.clone(), state.clone());
                    plus.mu[j - D] += d;
                    minus.mu[j - D] -= d;
                    (plus, minus, d)
                };
                self.method.step(&mut plus, h)?;
                self.method.step(&mut minus, h)?;
                let eta_plus = group.log(&group.compose(&inv, &plus.g))?;
                let eta_minus = group.log(&group.compose(&inv, &minus.g))?;
                Ok(((eta_plus - eta_minus) / (2.0 * d), (plus.mu - minus.mu) / (2.0 * d)))
            },
            "finite-difference tangent map on T*G",
        )?;
        Ok((next, m))
    }

    /// `g` finite and within [`MEMBERSHIP_TOLERANCE`] of the group
    /// ([`LieGroup::check_element`]), `μ` finite.
    fn check_state(&self, state: &LieState<G::Element, D>) -> Result<(), GeomError> {
        self.group.check_element(&state.g, MEMBERSHIP_TOLERANCE)?;
        if state.mu.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(GeomError::NonFinite { what: "body momentum" })
        }
    }
}

impl<G, M, const D: usize> OneStep<LieState<G::Element, D>> for LieFiniteDifference<G, M>
where
    G: LieGroup<f64, D>,
    M: OneStep<LieState<G::Element, D>>,
{
    fn name(&self) -> String {
        self.method.name()
    }
    fn order(&self) -> u32 {
        self.method.order()
    }
    fn is_symmetric(&self) -> bool {
        self.method.is_symmetric()
    }
    fn step(&self, state: &mut LieState<G::Element, D>, h: f64) -> Result<(), GeomError> {
        self.method.step(state, h)
    }
    fn step_n(&self, state: &mut LieState<G::Element, D>, h: f64, n: usize) -> Result<(), GeomError> {
        self.method.step_n(state, h, n)
    }
}
