//! The Gauss–Lobatto SPARK method with two Gauss stages: order 4, symplectic and symmetric on
//! `T*S` for holonomic constraints `c(q) = 0` on `R^N`.

use super::checked_inverse_mass;
use crate::constraints::{BaseConstraints, CONSTRAINT_TOLERANCE, project_off_normals, solve_m};
use crate::nonholonomic::ContinuousLagrangian;
use crate::pair::PairGroupoid;
use geom_core::function::{ad_gradient, ad_jacobian_of};
use geom_core::newton::{JacobianUpdate, NewtonOptions};
use geom_core::scalar::AdScalar;
use geom_core::step::{OneStep, PhaseState, check_step};
use geom_core::{GeomError, Result};
use nalgebra::{SMatrix, SVector};
use num_dual::{Dual2SVec64, Dual64, DualSVec64, HyperDualSVec64};

/// The coefficients of [`SparkGauss2`]: the two-stage Gauss–Legendre tableau `(a, b, c)`
/// (`c = ½ ∓ √3/6`, `a = [[¼, ¼ − √3/6], [¼ + √3/6, ¼]]`, `b = (½, ½)`), the inner Lobatto node
/// `c̃ = ½` of the three-point Lobatto quadrature `(0, ½, 1; 1/6, 2/3, 1/6)` with its weight
/// `b̃ = 2/3`, the positions of that node in the Gauss velocity stages
/// `ã_j = ∫_0^{c̃} ℓ_j(τ) dτ` (`ℓ_j` the Lagrange basis on the Gauss nodes:
/// `ã = (¼ + √3/8, ¼ − √3/8)`), and the momentum coefficients of its reaction
/// `α_i = b̃ (1 − ã_i / b_i)` (the symplectic conjugate of `ã`: `b_i α_i + b̃ ã_i = b_i b̃`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SparkCoefficients {
    /// Gauss `a_ij`.
    pub a: [[f64; 2]; 2],
    /// Gauss weights `b_i`.
    pub b: [f64; 2],
    /// Gauss nodes `c_i`.
    pub c: [f64; 2],
    /// The inner Lobatto node `c̃`.
    pub node: f64,
    /// Its Lobatto weight `b̃`.
    pub weight: f64,
    /// `ã_j = ∫_0^{c̃} ℓ_j`.
    pub a_node: [f64; 2],
    /// `α_i = b̃ (1 − ã_i / b_i)`.
    pub alpha: [f64; 2],
}

impl SparkCoefficients {
    /// The coefficients in closed form (struct documentation).
    pub fn gauss2() -> Self {
        let r = 3f64.sqrt();
        let c = [0.5 - r / 6.0, 0.5 + r / 6.0];
        let a = [[0.25, 0.25 - r / 6.0], [0.25 + r / 6.0, 0.25]];
        let b = [0.5, 0.5];
        let (node, weight) = (0.5, 2.0 / 3.0);
        // ℓ_1(τ) = (τ − c_2)/(c_1 − c_2): ∫_0^x ℓ_1 = (x²/2 − c_2 x)/(c_1 − c_2), ℓ_2 = 1 − ℓ_1
        let a1 = (0.5 * node * node - c[1] * node) / (c[0] - c[1]);
        let a_node = [a1, node - a1];
        let alpha = [weight * (1.0 - a_node[0] / b[0]), weight * (1.0 - a_node[1] / b[1])];
        Self { a, b, c, node, weight, a_node, alpha }
    }
}

/// Compile-time check `M = 2N + 2K` (evaluated at monomorphisation).
#[inline(always)]
const fn check_unknowns<const N: usize, const K: usize, const M: usize>() {
    const { assert!(M == 2 * N + 2 * K, "the number of step unknowns M must equal 2N + 2K") }
}

/// The Gauss–Lobatto SPARK method with `s = 2` Gauss stages for a Lagrangian `L(q, v)` on `R^N`
/// (written once over the scalar, [`ContinuousLagrangian`]) with holonomic constraints
/// `c: R^N → R^K` (`S = {c = 0}`), as a [`OneStep`] on [`PhaseState`] `(q, p)`, the state of
/// [`RattleIntegrator`](super::RattleIntegrator) on the pair groupoid.
///
/// **The method**: the Gauss–Lobatto SPARK family of Jay, *Specialized partitioned additive
/// Runge–Kutta methods for systems of overdetermined DAEs with holonomic constraints*, SIAM J.
/// Numer. Anal. 45 (2007) (Gauss coefficients for the dynamics, Lobatto coefficients for the
/// constraints), with `s = 2`, written here in the variational form derived below
/// (coefficients [`SparkCoefficients`]). Velocity stages `V_1, V_2` at the Gauss nodes, the
/// constraint imposed at the Lobatto nodes `0, ½, 1`:
///
/// ```text
///   Q_i = q_0 + h Σ_j a_ij V_j,   Q̃ = q_0 + h Σ_j ã_j V_j,   q_1 = q_0 + h Σ_j b_j V_j,
///   ∂_v L(Q_i, V_i) = p_0 + ∇c(q_0)ᵀ ν + h Σ_j a_ij ∂_q L(Q_j, V_j) − α_i ∇c(Q̃)ᵀ ι   (i = 1, 2),
///   c(Q̃) = 0,   c(q_1) = 0,
///   p_1 = P(q_1) [ p_0 + ∇c(q_0)ᵀ ν + h Σ_j b_j ∂_q L(Q_j, V_j) − b̃ ∇c(Q̃)ᵀ ι ],
/// ```
///
/// with `P(q) p = p − ∇cᵀ (∇c W ∇cᵀ)^{-1} ∇c W p` the representative with `∇c(q) W p = 0` (the
/// hidden constraint; `W` the inverse mass matrix, [`SparkGauss2::with_inverse_mass`], `I`
/// unless set). **Unknowns** (one Newton solve on `M = 2N + 2K` numbers, Jacobian assembled
/// from the second derivatives of `L` and `c` by forward AD): the velocity stages `V_1, V_2 ∈ R^N`, the node impulse
/// `ν ∈ R^K` at `q_0` and the impulse `ι = h λ ∈ R^K` of the inner multiplier at `Q̃`.
///
/// **Why it is variational, hence symplectic and symmetric.** The stage equations are the
/// stationarity conditions of the discrete Lagrangian
/// `L_d(q_0, q_1) = ext { h Σ_i b_i L(Q_i, V_i) − h b̃ λ·c(Q̃) : h Σ_i b_i V_i = q_1 − q_0 }`
/// (Gauss quadrature of the action, Lobatto quadrature of the constraint term; Gauss is
/// symplectic, `b_i a_ij + b_j a_ji = b_i b_j`, which makes the momentum tableau of the `∂_q L`
/// terms `a` itself), and `(q_0, p_0) ↦ (q_1, p_1)` is the SHAKE/RATTLE flow of this `L_d`
/// restricted to `S × S` (the node multipliers `ν` and the projection `P`), exactly as in
/// [`RattleIntegrator`](super::RattleIntegrator): symplectic on `T*S` (Marsden & West, *Discrete
/// mechanics and variational integrators*, Acta Numerica 10 (2001), §3.5). The Gauss and Lobatto
/// nodes are symmetric about `½`, so `L_d^{−h}(q_1, q_0) = −L_d^h(q_0, q_1)` and the method is
/// symmetric. It preserves `c(q) = 0` and the hidden constraint `∇c(q) W p = 0` to the Newton
/// tolerance at every step, a quadratic momentum map of a symmetry of `L` and `c` exactly
/// (discrete Noether), and the energy without drift. **Order 4**: Jay (2007) gives order `2s`
/// for the Gauss–Lobatto SPARK methods, and by variational error analysis (Marsden & West 2001,
/// Thm 2.3.1) the flow has the order to which `L_d` approximates the exact discrete Lagrangian
/// of `L|_{TS}`; `tests/constrained_spark.rs` of the workspace measures 4.00 on the spherical
/// and the double spherical pendulum. Without the inner
/// constraint `c(Q̃) = 0`
/// ([`SparkGauss2::without_stage_constraint`]) the same equations are RATTLE of the Gauss
/// discrete Lagrangian and only of order 2: the inner node carries the order.
///
/// The Newton start is `V_i = W p_0`, `ν = ι = 0` ([`NewtonOptions::simplified`]: the Jacobian
/// assembled once per step, with the second derivatives of `L` of both stages taken at the stage
/// means `(Q̄, V̄)` — the simplified Newton iteration of implicit Runge–Kutta methods, Hairer &
/// Wanner, *Solving Ordinary Differential Equations II* (1996), §IV.8: one set of second
/// derivatives instead of two, the same root — and refreshed, exactly at the stages, only when
/// the iteration contracts slowly, with final polishing, so that the constraints hold to
/// round-off; with [`JacobianUpdate::EveryIteration`] every Jacobian is exact; residual
/// tolerance raised to the round-off floor of a momentum at step `h`,
/// [`NewtonOptions::for_momentum_residual`]; the constraint rows are `c/h`).
///
/// `M = 2N + 2K` is a const parameter (stable Rust cannot write `SVector<f64, {2N + 2K}>`), checked
/// at compile time: write `SparkGauss2::<_, _, N, K, M>::new(…)`.
///
/// Errors of a step: an invalid `h`, a non-finite state, `q_0` off `S` by more than
/// [`CONSTRAINT_TOLERANCE`] (`GeomError::OffManifold`), Newton failures, dependent normals at
/// `q_1` (`GeomError::SingularMatrix`), a non-finite result; the state is then untouched. No heap
/// allocation in a step.
#[derive(Debug, Clone)]
pub struct SparkGauss2<L, C, const N: usize, const K: usize, const M: usize> {
    lagrangian: L,
    constraints: C,
    inverse_mass: Option<SMatrix<f64, N, N>>,
    newton: NewtonOptions,
    coefficients: SparkCoefficients,
    stage_constraint: bool,
}

impl<L, C, const N: usize, const K: usize, const M: usize> SparkGauss2<L, C, N, K, M> {
    /// The method for `lagrangian` and `constraints`, with [`NewtonOptions::simplified`] and
    /// `W = I`.
    pub fn new(lagrangian: L, constraints: C) -> Self {
        check_unknowns::<N, K, M>();
        Self {
            lagrangian,
            constraints,
            inverse_mass: None,
            newton: NewtonOptions::simplified(),
            coefficients: SparkCoefficients::gauss2(),
            stage_constraint: true,
        }
    }
    /// The momentum representative `∇c W p = 0` and the Newton start `V_i = W p_0` with the
    /// inverse mass matrix `W`. Error: `W` not finite, symmetric and positive definite.
    pub fn with_inverse_mass(self, w: SMatrix<f64, N, N>) -> Result<Self> {
        Ok(Self { inverse_mass: Some(checked_inverse_mass(w)?), ..self })
    }
    /// The same method with other Newton options (raised at each step to the round-off floor of
    /// the step, [`NewtonOptions::for_momentum_residual`]).
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The control method: the same equations without the inner constraint `c(Q̃) = 0` (and
    /// `ι = 0`), i.e. RATTLE of the two-stage Gauss discrete Lagrangian, constraints imposed at
    /// the nodes only. Symplectic and symmetric, but of order 2 (declared so).
    pub fn without_stage_constraint(self) -> Self {
        Self { stage_constraint: false, ..self }
    }
    /// The Lagrangian.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }
    /// The constraints `c`.
    pub fn constraints(&self) -> &C {
        &self.constraints
    }
    /// The coefficients.
    pub fn coefficients(&self) -> &SparkCoefficients {
        &self.coefficients
    }
    /// The Newton options.
    pub fn newton_options(&self) -> &NewtonOptions {
        &self.newton
    }
}

/// The second derivatives `(∂²L/∂q², ∂²L/∂q∂v, ∂²L/∂v²)` of `L` at one point.
#[derive(Debug, Clone, Copy)]
struct SecondDerivatives<const N: usize> {
    lqq: SMatrix<f64, N, N>,
    lqv: SMatrix<f64, N, N>,
    lvv: SMatrix<f64, N, N>,
}

/// The scalars the residual of [`SparkGauss2`] is evaluated at: `f64` in the Newton iteration,
/// a vector dual in the test of the assembled Jacobian. Both give the same first derivatives
/// (forward AD of the model written once over the scalar); at `f64` they are taken by `N`
/// one-direction `Dual64` passes ([`ad_gradient`], [`ad_jacobian_of`]; no optional storage of a
/// vector dual's derivative part), otherwise by one pass in `N` further directions.
trait StageScalar<const N: usize>: AdScalar<N> {
    /// `(∂_q L, ∂_v L)` at `(q, v)`.
    fn lagrangian_gradients<L: ContinuousLagrangian<N>>(
        l: &L,
        q: &SVector<Self, N>,
        v: &SVector<Self, N>,
    ) -> (SVector<Self, N>, SVector<Self, N>);
    /// `∇c(q)ᵀ λ = ∇(λ·c)(q)`.
    fn reaction<C: BaseConstraints<PairGroupoid<N>, N, K>, const K: usize>(
        c: &C,
        q: &SVector<Self, N>,
        lambda: &SVector<Self, K>,
    ) -> SVector<Self, N>;
}

impl<const N: usize> StageScalar<N> for f64 {
    #[inline]
    fn lagrangian_gradients<L: ContinuousLagrangian<N>>(
        l: &L,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SVector<f64, N>) {
        (position_gradient(l, q, v), velocity_gradient(l, q, v))
    }
    #[inline]
    fn reaction<C: BaseConstraints<PairGroupoid<N>, N, K>, const K: usize>(
        c: &C,
        q: &SVector<f64, N>,
        lambda: &SVector<f64, K>,
    ) -> SVector<f64, N> {
        normals(c, q) * lambda
    }
}

impl<const M: usize, const N: usize> StageScalar<N> for DualSVec64<M> {
    fn lagrangian_gradients<L: ContinuousLagrangian<N>>(
        l: &L,
        q: &SVector<Self, N>,
        v: &SVector<Self, N>,
    ) -> (SVector<Self, N>, SVector<Self, N>) {
        let (qu, vu) = (q.map(|x| x.up()), v.map(|x| x.up()));
        let qs = SVector::<<Self as AdScalar<N>>::Up, N>::from_fn(|i, _| q[i].up_seeded(i));
        let vs = SVector::<<Self as AdScalar<N>>::Up, N>::from_fn(|i, _| v[i].up_seeded(i));
        (Self::gradient(&l.eval(&qs, &vu)), Self::gradient(&l.eval(&qu, &vs)))
    }
    fn reaction<C: BaseConstraints<PairGroupoid<N>, N, K>, const K: usize>(
        c: &C,
        q: &SVector<Self, N>,
        lambda: &SVector<Self, K>,
    ) -> SVector<Self, N> {
        let qs = SVector::<<Self as AdScalar<N>>::Up, N>::from_fn(|i, _| q[i].up_seeded(i));
        let cq = c.eval(&PairGroupoid::<N>, &qs);
        Self::gradient(&lambda.map(|x| x.up()).dot(&cq))
    }
}

/// `∂_q L` at `(q, v)` ([`ad_gradient`]).
#[inline]
fn position_gradient<L: ContinuousLagrangian<N>, const N: usize>(
    l: &L,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> SVector<f64, N> {
    let v1 = v.map(Dual64::from);
    ad_gradient(q, |x| l.eval(x, &v1), |x| l.eval(x, &v.map(DualSVec64::<N>::from_re)))
}

/// `∂_v L` at `(q, v)` ([`ad_gradient`]).
#[inline]
fn velocity_gradient<L: ContinuousLagrangian<N>, const N: usize>(
    l: &L,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
) -> SVector<f64, N> {
    let q1 = q.map(Dual64::from);
    ad_gradient(v, |y| l.eval(&q1, y), |y| l.eval(&q.map(DualSVec64::<N>::from_re), y))
}

/// `∇c(q)ᵀ` (`N × K`: the normals as columns; [`ad_jacobian_of`]).
#[inline]
fn normals<C: BaseConstraints<PairGroupoid<N>, N, K>, const N: usize, const K: usize>(
    c: &C,
    q: &SVector<f64, N>,
) -> SMatrix<f64, N, K> {
    let dc = ad_jacobian_of(q, |x| Ok(c.eval(&PairGroupoid::<N>, x)), |x| Ok(c.eval(&PairGroupoid::<N>, x)));
    // the closures cannot fail
    dc.map_or_else(|_| SMatrix::from_element(f64::NAN), |j| j.transpose())
}

impl<L, C, const N: usize, const K: usize, const M: usize> SparkGauss2<L, C, N, K, M>
where
    L: ContinuousLagrangian<N>,
    C: BaseConstraints<PairGroupoid<N>, N, K>,
{
    /// `∇c(q)ᵀ` (`N × K`: the normals as columns).
    pub fn normals(&self, q: &SVector<f64, N>) -> SMatrix<f64, N, K> {
        normals(&self.constraints, q)
    }

    /// `∇c(q)ᵀ λ` at the scalar `S`.
    #[inline]
    fn reaction<S: StageScalar<N>>(&self, q: &SVector<S, N>, lambda: &SVector<S, K>) -> SVector<S, N> {
        S::reaction(&self.constraints, q, lambda)
    }

    /// The residual of the step (struct documentation) and the unprojected `p_1`, at the
    /// unknowns `u = (V_1, V_2, ν, ι)`.
    #[inline]
    fn residual<S: StageScalar<N>>(
        &self,
        q0: &SVector<f64, N>,
        p0: &SVector<f64, N>,
        n0: &SMatrix<f64, N, K>,
        h: f64,
        u: &SVector<S, M>,
    ) -> (SVector<S, M>, SVector<S, N>) {
        check_unknowns::<N, K, M>();
        let co = &self.coefficients;
        let hs = S::from(h);
        let v1: SVector<S, N> = u.fixed_rows::<N>(0).into_owned();
        let v2: SVector<S, N> = u.fixed_rows::<N>(N).into_owned();
        let nu: SVector<S, K> = u.fixed_rows::<K>(2 * N).into_owned();
        let iota: SVector<S, K> = u.fixed_rows::<K>(2 * N + K).into_owned();
        let q0s = q0.map(S::from);
        let at = |w1: f64, w2: f64| q0s + (v1 * S::from(w1) + v2 * S::from(w2)) * hs;
        let stage1 = at(co.a[0][0], co.a[0][1]);
        let stage2 = at(co.a[1][0], co.a[1][1]);
        let inner = at(co.a_node[0], co.a_node[1]);
        let q1 = at(co.b[0], co.b[1]);
        let (f1, m1) = S::lagrangian_gradients(&self.lagrangian, &stage1, &v1);
        let (f2, m2) = S::lagrangian_gradients(&self.lagrangian, &stage2, &v2);
        let start = p0.map(S::from) + n0.map(S::from) * nu;
        let inner_reaction = if self.stage_constraint { self.reaction(&inner, &iota) } else { SVector::zeros() };
        let mut r = SVector::<S, M>::zeros();
        let row1 = m1 - start - (f1 * S::from(co.a[0][0]) + f2 * S::from(co.a[0][1])) * hs
            + inner_reaction * S::from(co.alpha[0]);
        let row2 = m2 - start - (f1 * S::from(co.a[1][0]) + f2 * S::from(co.a[1][1])) * hs
            + inner_reaction * S::from(co.alpha[1]);
        r.fixed_rows_mut::<N>(0).copy_from(&row1);
        r.fixed_rows_mut::<N>(N).copy_from(&row2);
        let inv_h = S::from(1.0 / h);
        r.fixed_rows_mut::<K>(2 * N).copy_from(&(self.constraints.eval(&PairGroupoid::<N>, &q1) * inv_h));
        let inner_rows =
            if self.stage_constraint { self.constraints.eval(&PairGroupoid::<N>, &inner) * inv_h } else { iota };
        r.fixed_rows_mut::<K>(2 * N + K).copy_from(&inner_rows);
        let p1 = start + (f1 * S::from(co.b[0]) + f2 * S::from(co.b[1])) * hs - inner_reaction * S::from(co.weight);
        (r, p1)
    }

    /// The unprojected `p_1 = p_0 + ∇c(q_0)ᵀ ν + h Σ_j b_j ∂_q L(Q_j, V_j) − b̃ ∇c(Q̃)ᵀ ι` of
    /// [`Self::residual`] at `u` (the same arithmetic, without the stage equations: the `∂_q L`
    /// passes and the reaction only).
    fn unprojected_momentum(
        &self,
        q0: &SVector<f64, N>,
        p0: &SVector<f64, N>,
        n0: &SMatrix<f64, N, K>,
        h: f64,
        u: &SVector<f64, M>,
    ) -> SVector<f64, N> {
        check_unknowns::<N, K, M>();
        let co = &self.coefficients;
        let v1: SVector<f64, N> = u.fixed_rows::<N>(0).into_owned();
        let v2: SVector<f64, N> = u.fixed_rows::<N>(N).into_owned();
        let nu: SVector<f64, K> = u.fixed_rows::<K>(2 * N).into_owned();
        let iota: SVector<f64, K> = u.fixed_rows::<K>(2 * N + K).into_owned();
        let at = |w1: f64, w2: f64| q0 + (v1 * w1 + v2 * w2) * h;
        let f1 = position_gradient(&self.lagrangian, &at(co.a[0][0], co.a[0][1]), &v1);
        let f2 = position_gradient(&self.lagrangian, &at(co.a[1][0], co.a[1][1]), &v2);
        let start = p0 + n0 * nu;
        let inner_reaction = if self.stage_constraint {
            self.reaction(&at(co.a_node[0], co.a_node[1]), &iota)
        } else {
            SVector::zeros()
        };
        start + (f1 * co.b[0] + f2 * co.b[1]) * h - inner_reaction * co.weight
    }

    /// `(L_qq, L_qv, L_vv)` at `(q, v)` (forward AD at `f64`: one hyper-dual pass for
    /// `∂²L/∂q∂v` and two second-order passes for `∂²L/∂q²`, `∂²L/∂v²`).
    fn second_derivatives(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SecondDerivatives<N> {
        type Hd<const N: usize> = HyperDualSVec64<N, N>;
        let l = &self.lagrangian;
        let (_, _, _, lqv) =
            num_dual::partial_hessian(|(x, y): (SVector<Hd<N>, N>, SVector<Hd<N>, N>)| l.eval(&x, &y), (q, v));
        let vd = v.map(Dual2SVec64::<N>::from);
        let (_, _, lqq) = num_dual::hessian(|x: SVector<Dual2SVec64<N>, N>| l.eval(&x, &vd), q);
        let qd = q.map(Dual2SVec64::<N>::from);
        let (_, _, lvv) = num_dual::hessian(|y: SVector<Dual2SVec64<N>, N>| l.eval(&qd, &y), v);
        SecondDerivatives { lqq, lqv, lvv }
    }

    /// The Jacobian of [`Self::residual`] in `u = (V_1, V_2, ν, ι)`, assembled from the second
    /// derivatives of `L` and of `ι·c` at `Q̃` (forward AD at `f64`, [`Self::assemble_jacobian`]):
    ///
    /// * exact (`simplified = false`): the second derivatives of `L` at each stage `(Q_i, V_i)`;
    /// * simplified (`simplified = true`; Hairer & Wanner, *Solving Ordinary Differential
    ///   Equations II*, 2nd ed. (1996), §IV.8): those of both stages taken at one point, the stage
    ///   means `Q̄ = q_0 + h Σ_j (a_1j + a_2j)/2 V_j`, `V̄ = (V_1 + V_2)/2` (one set of second
    ///   derivatives instead of two). It differs from the exact Jacobian by
    ///   `O(h |V_1 − V_2| + h |V|)` times the third derivatives of `L` (zero when `L_vv`, `L_qv`,
    ///   `L_qq` are constant), which changes only the contraction of the simplified iteration, not
    ///   its root.
    fn jacobian(
        &self,
        q0: &SVector<f64, N>,
        n0: &SMatrix<f64, N, K>,
        h: f64,
        u: &SVector<f64, M>,
        simplified: bool,
    ) -> SMatrix<f64, M, M> {
        let co = &self.coefficients;
        let v = [u.fixed_rows::<N>(0).into_owned(), u.fixed_rows::<N>(N).into_owned()];
        let d = if simplified {
            let w = [0.5 * (co.a[0][0] + co.a[1][0]), 0.5 * (co.a[0][1] + co.a[1][1])];
            let d = self.second_derivatives(&stage_position(q0, &v, w, h), &((v[0] + v[1]) * 0.5));
            [d, d]
        } else {
            [0, 1].map(|i| self.second_derivatives(&stage_position(q0, &v, co.a[i], h), &v[i]))
        };
        self.assemble_jacobian(q0, n0, h, u, &d)
    }

    /// The Jacobian of [`Self::residual`] from the second derivatives `d[i]` of `L` standing for
    /// stage `i` and those of `ι·c` at `Q̃` (a second-order pass, skipped when `ι = 0`, where
    /// they vanish). With `Q_i = q_0 + h Σ_k a_ik V_k`:
    ///
    /// ```text
    ///   ∂r_i/∂V_k = δ_ik L_vv(i) + h a_ik L_vq(i) − h a_ik L_qv(k) − h² Σ_j a_ij a_jk L_qq(j)
    ///               + α_i h ã_k ∇²(ι·c)(Q̃),
    ///   ∂r_i/∂ν = −∇c(q_0)ᵀ,   ∂r_i/∂ι = α_i ∇c(Q̃)ᵀ,
    ///   ∂(c(q_1)/h)/∂V_k = b_k ∇c(q_1),   ∂(c(Q̃)/h)/∂V_k = ã_k ∇c(Q̃).
    /// ```
    fn assemble_jacobian(
        &self,
        q0: &SVector<f64, N>,
        n0: &SMatrix<f64, N, K>,
        h: f64,
        u: &SVector<f64, M>,
        d: &[SecondDerivatives<N>; 2],
    ) -> SMatrix<f64, M, M> {
        check_unknowns::<N, K, M>();
        let co = &self.coefficients;
        let v = [u.fixed_rows::<N>(0).into_owned(), u.fixed_rows::<N>(N).into_owned()];
        let iota: SVector<f64, K> = u.fixed_rows::<K>(2 * N + K).into_owned();
        let at = |w: [f64; 2]| q0 + (v[0] * w[0] + v[1] * w[1]) * h;
        let inner = at(co.a_node);
        let n1 = self.normals(&at(co.b));
        let (n_t, h_t) = if self.stage_constraint {
            let h_t = if iota.iter().all(|&x| x == 0.0) {
                SMatrix::zeros()
            } else {
                let id = iota.map(Dual2SVec64::<N>::from);
                num_dual::hessian(
                    |x: SVector<Dual2SVec64<N>, N>| id.dot(&self.constraints.eval(&PairGroupoid::<N>, &x)),
                    &inner,
                )
                .2
            };
            (self.normals(&inner), h_t)
        } else {
            (SMatrix::zeros(), SMatrix::zeros())
        };
        let mut j = SMatrix::<f64, M, M>::zeros();
        for i in 0..2 {
            for k in 0..2 {
                let mut block = d[i].lqv.transpose() * (h * co.a[i][k])
                    - d[k].lqv * (h * co.a[i][k])
                    - (d[0].lqq * (co.a[i][0] * co.a[0][k]) + d[1].lqq * (co.a[i][1] * co.a[1][k])) * (h * h)
                    + h_t * (co.alpha[i] * h * co.a_node[k]);
                if i == k {
                    block += d[i].lvv;
                }
                j.fixed_view_mut::<N, N>(N * i, N * k).copy_from(&block);
            }
            j.fixed_view_mut::<N, K>(N * i, 2 * N).copy_from(&(-n0));
            j.fixed_view_mut::<N, K>(N * i, 2 * N + K).copy_from(&(n_t * co.alpha[i]));
            j.fixed_view_mut::<K, N>(2 * N, N * i).copy_from(&(n1.transpose() * co.b[i]));
            j.fixed_view_mut::<K, N>(2 * N + K, N * i).copy_from(&(n_t.transpose() * co.a_node[i]));
        }
        if !self.stage_constraint {
            j.fixed_view_mut::<K, K>(2 * N + K, 2 * N + K).fill_diagonal(1.0);
        }
        j
    }

    /// `state` with its momentum replaced by the representative `P(q) p` (the start of a run from
    /// a momentum not tangent to `S`). Errors: `q` off `S`, dependent normals.
    pub fn project(&self, state: &PhaseState<N>) -> Result<PhaseState<N>> {
        self.check_on_s(&state.q)?;
        let p = project_off_normals(&state.p, &self.normals(&state.q), self.inverse_mass.as_ref())?;
        Ok(PhaseState::new(state.q, p))
    }

    /// `Ok(())` if `|c(q)|_∞ <= CONSTRAINT_TOLERANCE`.
    fn check_on_s(&self, q: &SVector<f64, N>) -> Result<()> {
        let defect = self.constraints.eval(&PairGroupoid::<N>, q).amax();
        if !defect.is_finite() {
            return Err(GeomError::NonFinite { what: "constraint functions at q" });
        }
        if defect > CONSTRAINT_TOLERANCE {
            return Err(GeomError::OffManifold {
                what: "position off the constraint manifold S",
                defect,
                tolerance: CONSTRAINT_TOLERANCE,
            });
        }
        Ok(())
    }

    /// One step of size `h` from `state` (struct documentation).
    pub fn advance(&self, state: &PhaseState<N>, h: f64) -> Result<PhaseState<N>> {
        check_unknowns::<N, K, M>();
        check_step(h)?;
        if !state.is_finite() {
            return Err(GeomError::NonFinite { what: "state before step" });
        }
        let (q0, p0) = (state.q, state.p);
        self.check_on_s(&q0)?;
        let n0 = self.normals(&q0);
        let v0 = match &self.inverse_mass {
            Some(w) => w * p0,
            None => p0,
        };
        let mut u0 = SVector::<f64, M>::zeros();
        u0.fixed_rows_mut::<N>(0).copy_from(&v0);
        u0.fixed_rows_mut::<N>(N).copy_from(&v0);
        let newton = self.newton.for_momentum_residual(h);
        // simplified Newton: the first Jacobian of the solve with the second derivatives of `L`
        // at the stage means, a refresh (slow contraction) with those at the stages
        let mut simplified = newton.jacobian == JacobianUpdate::Frozen;
        let (u, _) = solve_m::<M>(
            |u, jac| {
                if let Some(j) = jac {
                    *j = self.jacobian(&q0, &n0, h, u, simplified);
                    simplified = false;
                }
                Ok(self.residual(&q0, &p0, &n0, h, u).0)
            },
            &u0,
            &newton,
        )?;
        let p1 = self.unprojected_momentum(&q0, &p0, &n0, h, &u);
        let co = &self.coefficients;
        let q1 = q0 + (u.fixed_rows::<N>(0) * co.b[0] + u.fixed_rows::<N>(N) * co.b[1]) * h;
        let p1 = project_off_normals(&p1, &self.normals(&q1), self.inverse_mass.as_ref())?;
        let next = PhaseState::new(q1, p1);
        if next.is_finite() { Ok(next) } else { Err(GeomError::NonFinite { what: "state after step" }) }
    }
}

impl<L, C, const N: usize, const K: usize, const M: usize> OneStep<PhaseState<N>> for SparkGauss2<L, C, N, K, M>
where
    L: ContinuousLagrangian<N>,
    C: BaseConstraints<PairGroupoid<N>, N, K>,
{
    fn name(&self) -> String {
        if self.stage_constraint {
            "SPARK Gauss–Lobatto, 2 Gauss stages".into()
        } else {
            "RATTLE of the 2-stage Gauss discrete Lagrangian (no stage constraint)".into()
        }
    }
    fn order(&self) -> u32 {
        if self.stage_constraint { 4 } else { 2 }
    }
    fn is_symmetric(&self) -> bool {
        true
    }
    fn step(&self, state: &mut PhaseState<N>, h: f64) -> Result<()> {
        *state = self.advance(state, h)?;
        Ok(())
    }
}

/// A position along the step, `q_0 + h (w_1 V_1 + w_2 V_2)` (a stage `Q_i` for `w = a_i`).
#[inline]
fn stage_position<const N: usize>(
    q0: &SVector<f64, N>,
    v: &[SVector<f64, N>; 2],
    w: [f64; 2],
    h: f64,
) -> SVector<f64, N> {
    q0 + (v[0] * w[0] + v[1] * w[1]) * h
}

#[cfg(test)]
mod tests {
    use super::*;
    use geom_core::Scalar;

    /// A Lagrangian with a position-dependent mass, a gyroscopic term and a nonlinear potential.
    struct Coupled;
    impl ContinuousLagrangian<3> for Coupled {
        fn eval<S: Scalar>(&self, q: &SVector<S, 3>, v: &SVector<S, 3>) -> S {
            v.norm_squared() * (S::from(1.0) + q[0] * q[0] * S::from(0.3)) * S::from(0.5) + v[0] * q[1] * S::from(0.7)
                - q[2].cos()
                + v[1] * v[2] * q[2] * S::from(0.2)
        }
    }
    /// Two nonlinear constraints.
    struct Two;
    impl BaseConstraints<PairGroupoid<3>, 3, 2> for Two {
        fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, x: &SVector<S, 3>) -> SVector<S, 2> {
            SVector::from([x.norm_squared() - S::from(1.0), x[0] * x[1] + x[2].sin() * S::from(0.5)])
        }
    }

    #[test]
    fn the_assembled_jacobian_is_the_ad_jacobian_of_the_residual() {
        let q0 = SVector::from([0.6, 0.1, -0.7]);
        let p0 = SVector::from([0.2, 0.9, -0.4]);
        let u = SVector::<f64, 10>::from([0.3, 0.8, -0.2, 0.25, 0.7, -0.35, 0.1, -0.2, 0.05, 0.15]);
        for control in [false, true] {
            let mut spark = SparkGauss2::<_, _, 3, 2, 10>::new(Coupled, Two);
            if control {
                spark = spark.without_stage_constraint();
            }
            let n0 = spark.normals(&q0);
            for h in [0.1, -0.07] {
                let ud = SVector::<DualSVec64<10>, 10>::from_fn(|i, _| <f64 as AdScalar<10>>::up_seeded(u[i], i));
                let (r, _) = spark.residual(&q0, &p0, &n0, h, &ud);
                let ad = SMatrix::<f64, 10, 10>::from_fn(|i, k| <f64 as AdScalar<10>>::gradient(&r[i])[k]);
                let assembled = spark.jacobian(&q0, &n0, h, &u, false);
                let d = (ad - assembled).amax();
                assert!(d < 1e-13 * ad.amax(), "control {control}, h = {h}: |J − J_AD| = {d:e}");
                let r0 = spark.residual::<f64>(&q0, &p0, &n0, h, &u).0;
                assert!((r0 - r.map(|x| x.re)).amax() < 1e-15);
                // the lean momentum is the residual's, bit for bit
                let (_, p1) = spark.residual::<f64>(&q0, &p0, &n0, h, &u);
                assert_eq!(spark.unprojected_momentum(&q0, &p0, &n0, h, &u), p1);
            }
        }
    }

    /// The simplified Jacobian (second derivatives of `L` at the stage means) differs from the
    /// exact one for a Lagrangian with non-constant second derivatives, and a run with it reaches
    /// the root of full Newton (exact Jacobian at every iterate) to the solver tolerance.
    #[test]
    fn the_simplified_jacobian_converges_to_the_full_newton_root() {
        let q0 = SVector::from([0.6, 0.1, -0.7]);
        let u = SVector::<f64, 10>::from([0.3, 0.8, -0.2, 0.25, 0.7, -0.35, 0.1, -0.2, 0.05, 0.15]);
        let spark = SparkGauss2::<_, _, 3, 2, 10>::new(Coupled, Two);
        let n0 = spark.normals(&q0);
        let (exact, simplified) = (spark.jacobian(&q0, &n0, 0.1, &u, false), spark.jacobian(&q0, &n0, 0.1, &u, true));
        let gap = (exact - simplified).amax();
        assert!(gap > 1e-6 && gap < 0.1 * exact.amax(), "|J − J_simplified| = {gap:e}");
        // a state on S (both constraints) with a tangent momentum
        let full = SparkGauss2::<_, _, 3, 2, 10>::new(Coupled, Two).with_newton(NewtonOptions::integrator());
        // q = (1, 0, 0) satisfies both constraints; the momentum made tangent
        let start = spark.project(&PhaseState::new(SVector::from([1.0, 0.0, 0.0]), SVector::from([0.1, 0.7, -0.4])));
        let start = start.unwrap();
        let (mut a, mut b) = (start, start);
        for _ in 0..50 {
            spark.step(&mut a, 0.05).unwrap();
            full.step(&mut b, 0.05).unwrap();
        }
        let d = (a.q - b.q).amax().max((a.p - b.p).amax());
        assert!(d < 1e-12, "simplified vs full Newton after 50 steps: {d:e}");
        assert!((a.q - start.q).amax() > 0.1, "the run moved");
    }
}
