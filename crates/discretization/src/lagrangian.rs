//! The Lagrangian counterpart of the induced integrator (Remark 2 of Barbero-Liñán, Marrero,
//! Martín de Diego, *From retraction maps to symplectic-momentum numerical integrators*, 2024,
//! arXiv:2401.14800; docs/math.md §B.1 "Lagrangian version", §B.2, §C.3):
//! `D_L^h = T*R_d(h dL(TQ))` is the graph of the discrete Legendre transforms of
//!
//! ```text
//!   L_d(q_0, q_1) = h L(x, u/h),   (x, u) = R_d^{-1}(q_0, q_1),
//!   p_k = -D_1 L_d(q_k, q_{k+1}),   p_{k+1} = D_2 L_d(q_k, q_{k+1}),
//! ```
//! with the discretization acting on the displacement `u = h v` (the scaling that agrees with
//! the Hamiltonian version, where `v = h ∂H/∂p`). For a θ-map, `L_d = h L((1-θ) q_0 + θ q_1,
//! (q_1 - q_0)/h)` (Marsden–West's `L_d^α`).
//!
//! * [`DiscreteLagrangianOf<R, L>`]: `L_d` and its Legendre transforms for a map `R` on `R^N` and
//!   a Lagrangian `L(q, v)` given as a [`PhaseSpaceFunction<N>`] (its `p` argument is the velocity).
//!   θ-maps use the closed form, written over the scalar, so that one
//!   `num_dual::partial_hessian` call gives `D_1 L_d`, `D_2 L_d` and `D_12 L_d`. General maps go
//!   through the implicit inverse: `dL_d = h L_x dx + L_v du` and
//!   `(dq_0, dq_1) = DR_d (dx, du)` give
//!   `(∂_x R^1)ᵀ D_1 + (∂_x R^2)ᵀ D_2 = h L_x`, `(∂_v R^1)ᵀ D_1 + (∂_v R^2)ᵀ D_2 = L_v` at
//!   `(x, u)` — the cotangent lift of §B.1 with `(P_0, P_1) = (D_1 L_d, D_2 L_d)`.
//! * [`DiscreteEulerLagrange<R, L>`]: the position–momentum step `(q_k, p_k) ↦ (q_{k+1}, p_{k+1})`:
//!   solve `p_k = -D_1 L_d(q_k, q_{k+1})` for `q_{k+1}`, then `p_{k+1} = D_2 L_d(q_k, q_{k+1})`.
//!   θ-maps: Newton on `F(q_1) = h (p_k + D_1 L_d(q_k, q_1))` with `∂F/∂q_1 = h D_12 L_d` (AD of
//!   the closed form). General maps: block Newton on `(x, u, q_{k+1}, p_{k+1})`, which carries the
//!   implicit inverse `R_d^{-1}` inside the system (see [`DiscreteEulerLagrange`]).
//! * [`LieGroupDiscreteLagrangian`] and [`LieGroupDiscreteEulerLagrange`]: the Lie-group midpoint
//!   discrete Lagrangian `L_d(g_0, g_1) = h ℓ(τ^{-1}(g_0^{-1} g_1)/h)` of a left-invariant `ℓ(ξ)`
//!   (§B.2) and its discrete Euler–Poincaré step on `(g_k, μ_k)` (§C.3, §D.5 free body). For any
//!   `L(g, ξ)` (potentials included) and any θ the Lie-group route is
//!   [`crate::LieLagrangianIntegrator`] (§B.4); on `(S^2)^K`, [`crate::SphereDiscreteEulerLagrange`].
//!
//! **Hamiltonian and Lagrangian routes coincide [derived here, tested].** If `L` is the Legendre
//! transform of a hyperregular `H` (`p = L_v(q, v)` ⟺ `v = H_p(q, p)`, and then
//! `L_x(q, v) = -H_q(q, p)`), the Hamiltonian system of §B.1 — `x = q`, `v = h H_p(q, p)`,
//! `p_x = -h H_q`, `p_v = p` — and the Lagrangian one — `(x, u)`, `p_x = h L_x(x, u/h)`,
//! `p_v = L_v(x, u/h)` — are the same equations under `u = h H_p(q, p)`. So the two routes give the
//! same trajectory for **every** discretization map and every θ (θ = 0, 1/2, 1 included), not only
//! for separable `H`; the tests check this to Newton accuracy over 100 steps, for separable and
//! position-dependent-mass Hamiltonians and for a nonlinear map.

use crate::lie_chart::AdGroupChart;
use crate::map::EuclideanMap;
use geom_core::function::{
    AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction, ScalarDerivatives, ScalarFunction, ad_jacobian_of,
};
use geom_core::lie::{Chart, GroupChart, LieGroup};
use geom_core::linalg::{BlockLu, BlockMatrix, BlockVector, Lu};
use geom_core::newton::{NewtonOptions, newton, newton_blocks};
use geom_core::step::{LieState, LieStateOf, OneStep, PhaseState, check_step};
use geom_core::{GeomError, Scalar};
use nalgebra::{SMatrix, SVector};
use num_dual::{Dual64, DualSVec64};

/// The θ closed form `L_d = h L((1-θ) q_0 + θ q_1, (q_1 - q_0)/h)` at any scalar.
fn theta_ld<L: PhaseSpaceFunction<N> + ?Sized, S: Scalar, const N: usize>(
    lagrangian: &L,
    theta: f64,
    h: f64,
    q0: &SVector<S, N>,
    q1: &SVector<S, N>,
) -> S {
    let x = q0 * S::from(1.0 - theta) + q1 * S::from(theta);
    let v = (q1 - q0) * S::from(1.0 / h);
    lagrangian.eval(&x, &v) * S::from(h)
}

/// `(L_d, D_1 L_d, D_2 L_d, D_12 L_d)` of the θ closed form by the hyper-dual passes of
/// `geom_core::hyper_dual::partial_hessian` (`D_12[(i, j)] = ∂²L_d/∂q_{0,i}∂q_{1,j}`).
#[allow(clippy::type_complexity)]
fn theta_derivatives<L: PhaseSpaceFunction<N> + ?Sized, const N: usize>(
    lagrangian: &L,
    theta: f64,
    h: f64,
    q0: &SVector<f64, N>,
    q1: &SVector<f64, N>,
) -> (f64, SVector<f64, N>, SVector<f64, N>, SMatrix<f64, N, N>) {
    geom_core::hyper_dual::partial_hessian(|a, b| theta_ld(lagrangian, theta, h, a, b), q0, q1)
}

/// `D_2 L_d(q_0, q_1)` of the θ closed form (one `DualSVec64<N>` pass).
fn theta_d2<L: PhaseSpaceFunction<N> + ?Sized, const N: usize>(
    lagrangian: &L,
    theta: f64,
    h: f64,
    q0: &SVector<f64, N>,
    q1: &SVector<f64, N>,
) -> SVector<f64, N> {
    let a = q0.map(DualSVec64::<N>::from_re);
    num_dual::gradient(|b: SVector<DualSVec64<N>, N>| theta_ld(lagrangian, theta, h, &a, &b), q1).1
}

/// `Ok(())` if the step is valid and the state finite.
fn check_input<const N: usize>(state: &PhaseState<N>, h: f64) -> Result<(), GeomError> {
    check_step(h)?;
    if state.is_finite() { Ok(()) } else { Err(GeomError::NonFinite { what: "phase state" }) }
}

/// The discrete Lagrangian `L_d(q_0, q_1) = h L(x, u/h)`, `(x, u) = R_d^{-1}(q_0, q_1)`, of a
/// discretization map `R` on `R^N` and a Lagrangian `L(q, v)` (a [`PhaseSpaceFunction<N>`] whose
/// second argument is the velocity), with its discrete Legendre transforms (module
/// documentation).
///
/// ```
/// use discretization::lagrangian::DiscreteLagrangianOf;
/// use discretization::ThetaMap;
/// use geom_core::function::PhaseSpaceFunction;
/// use geom_core::Scalar;
/// use nalgebra::SVector;
///
/// /// Free particle `L = v²/2`.
/// struct Free;
/// impl PhaseSpaceFunction<1> for Free {
///     fn eval<S: Scalar>(&self, _q: &SVector<S, 1>, v: &SVector<S, 1>) -> S {
///         v[0] * v[0] * S::from(0.5)
///     }
/// }
/// let ld = DiscreteLagrangianOf::new(ThetaMap::midpoint(), Free);
/// let (q0, q1, h) = (SVector::from([0.0]), SVector::from([0.2]), 0.1);
/// assert!((ld.value(&q0, &q1, h)? - 0.2).abs() < 1e-15); // h (Δq/h)²/2
/// let (p0, p1) = ld.legendre(&q0, &q1, h)?;
/// assert!((p0[0] - 2.0).abs() < 1e-14 && (p1[0] - 2.0).abs() < 1e-14); // p = Δq/h
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct DiscreteLagrangianOf<R, L> {
    map: R,
    lagrangian: L,
}

impl<R, L> DiscreteLagrangianOf<R, L> {
    /// `L_d` of `map` and `lagrangian`.
    pub fn new(map: R, lagrangian: L) -> Self {
        Self { map, lagrangian }
    }
    /// The discretization map.
    pub fn map(&self) -> &R {
        &self.map
    }
    /// The continuous Lagrangian `L(q, v)`.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }

    /// `L_d(q_0, q_1)` for the step `h`: the θ closed form when `R` is a θ-map, otherwise
    /// `h L(x, u/h)` at `(x, u) = R_d^{-1}(q_0, q_1)`. Errors: [`GeomError::InvalidStep`], the
    /// errors of the inverse, [`GeomError::NonFinite`].
    pub fn value<const N: usize>(&self, q0: &SVector<f64, N>, q1: &SVector<f64, N>, h: f64) -> Result<f64, GeomError>
    where
        R: EuclideanMap<N>,
        L: PhaseSpaceFunction<N>,
    {
        check_step(h)?;
        let v = match self.map.theta() {
            Some(theta) => theta_ld(&self.lagrangian, theta, h, q0, q1),
            None => {
                let (x, u) = self.map.inverse(q0, q1)?;
                self.lagrangian.eval(&x, &(u / h)) * h
            }
        };
        if v.is_finite() { Ok(v) } else { Err(GeomError::NonFinite { what: "discrete Lagrangian" }) }
    }

    /// The discrete Legendre transforms `(p_0, p_1) = (-D_1 L_d(q_0, q_1), D_2 L_d(q_0, q_1))`
    /// (docs/math.md §B.1, §C.3: `F^-L_d` and `F^+L_d`). θ-maps: AD of the closed form; general maps:
    /// the implicit inverse and the linear system of the module documentation (errors of the
    /// inverse, [`GeomError::SingularMatrix`] if `DR_d` is singular).
    pub fn legendre<const N: usize>(
        &self,
        q0: &SVector<f64, N>,
        q1: &SVector<f64, N>,
        h: f64,
    ) -> Result<(SVector<f64, N>, SVector<f64, N>), GeomError>
    where
        R: EuclideanMap<N>,
        L: PhaseSpaceFunction<N>,
    {
        check_step(h)?;
        let (d1, d2) = match self.map.theta() {
            Some(theta) => {
                let (_, d1, d2, _) = theta_derivatives(&self.lagrangian, theta, h, q0, q1);
                (d1, d2)
            }
            None => {
                let (x, u) = self.map.inverse(q0, q1)?;
                let (lx, lv) = AutoDiff(&self.lagrangian).try_gradient(&x, &(u / h))?;
                let j = self.map.jacobian(&x, &u);
                let m: BlockMatrix<f64, N, 2> =
                    [[j.dx1.transpose(), j.dx2.transpose()], [j.dv1.transpose(), j.dv2.transpose()]];
                let [d1, d2] = BlockLu::factor(&m, "R_d Jacobian")?.solve(&[lx * h, lv]);
                (d1, d2)
            }
        };
        let (p0, p1) = (-d1, d2);
        if p0.iter().chain(p1.iter()).all(|v| v.is_finite()) {
            Ok((p0, p1))
        } else {
            Err(GeomError::NonFinite { what: "discrete Legendre transform" })
        }
    }
}

/// The discrete Euler–Lagrange step in position–momentum form,
/// `(q_k, p_k) ↦ (q_{k+1}, p_{k+1})` with `p_k = -D_1 L_d(q_k, q_{k+1})` and
/// `p_{k+1} = D_2 L_d(q_k, q_{k+1})` (docs/math.md §B.1, §C.3 pair groupoid), for the `L_d` of
/// [`DiscreteLagrangianOf`].
///
/// * θ-maps: Newton on `F(q_1) = h (p_k + D_1 L_d(q_k, q_1))` with `∂F/∂q_1 = h D_12 L_d` from
///   one `num_dual::partial_hessian` of the closed form per iteration (the factor `h` puts `F` in
///   position units, so that its rounding floor `~ulp(q_1)` stays below the absolute residual
///   tolerance; unscaled it is `ulp(q_1)/h`), followed by one Newton correction on the unscaled
///   residual (the accepted `|q_1 - q_1*| ~ tol` would otherwise be amplified by `1/h` in
///   `p_{k+1} = D_2 L_d`); guess
///   `q_1 = q_k + h w`, `L_vv(q_k, 0) w = p_k - L_v(q_k, 0)` (`w = p_k` if that is singular).
/// * general maps (implicit inverse): block Newton on `z = (x, u, q_{k+1}, p_{k+1})`,
///   ```text
///     F_0 = R^1(x, u) - q_k,  F_1 = R^2(x, u) - q_{k+1},
///     F_2 = ∇_x φ - h L_x(x, u/h),  F_3 = ∇_v φ - L_v(x, u/h),   φ = <-p_k, R^1> + <p_{k+1}, R^2>,
///   ```
///   with the analytic block Jacobian
///   `[[∂_xR¹, ∂_vR¹, 0, 0], [∂_xR², ∂_vR², -I, 0], [φ_xx - h L_xx, φ_xv - L_xv, 0, (∂_xR²)ᵀ],
///   [φ_xvᵀ - L_xvᵀ, φ_vv - L_vv/h, 0, (∂_vR²)ᵀ]]`; guess `u = h w` as above,
///   `x = q_k - ∂_vR¹(q_k, 0) u`, `q_{k+1} = x + ∂_vR²(q_k, 0) u`, `p_{k+1} = p_k`.
///
/// Symplectic; order 2 if the map is symmetric, 1 otherwise. A failed step leaves the state as it
/// was.
///
/// ```
/// use discretization::lagrangian::DiscreteEulerLagrange;
/// use discretization::{OneStep, PhaseState, ThetaMap};
/// use geom_core::function::PhaseSpaceFunction;
/// use geom_core::Scalar;
/// use nalgebra::SVector;
///
/// /// Harmonic oscillator `L = (v² - q²)/2`.
/// struct Oscillator;
/// impl PhaseSpaceFunction<1> for Oscillator {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, v: &SVector<S, 1>) -> S {
///         (v[0] * v[0] - q[0] * q[0]) * S::from(0.5)
///     }
/// }
/// let del = DiscreteEulerLagrange::new(ThetaMap::midpoint(), Oscillator);
/// let mut s = PhaseState::new(SVector::from([1.0]), SVector::from([0.0]));
/// for _ in 0..100 {
///     del.step(&mut s, 0.1)?;
/// }
/// // the midpoint discrete Lagrangian gives the implicit midpoint rule: q² + p² is conserved
/// assert!((s.q[0] * s.q[0] + s.p[0] * s.p[0] - 1.0).abs() < 1e-13);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct DiscreteEulerLagrange<R, L> {
    discrete: DiscreteLagrangianOf<R, L>,
    newton: NewtonOptions,
}

impl<R, L> DiscreteEulerLagrange<R, L> {
    /// The DEL step of `L_d` built from `map` and `lagrangian`, with
    /// [`NewtonOptions::integrator`].
    pub fn new(map: R, lagrangian: L) -> Self {
        Self { discrete: DiscreteLagrangianOf::new(map, lagrangian), newton: NewtonOptions::integrator() }
    }
    /// The same step with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The discrete Lagrangian.
    pub fn discrete_lagrangian(&self) -> &DiscreteLagrangianOf<R, L> {
        &self.discrete
    }

    /// One step from `state`, returning the new state (the state itself is not touched).
    /// Errors: [`GeomError::InvalidStep`], [`GeomError::NonFinite`], the Newton errors and those
    /// of the map.
    pub fn advance<const N: usize>(&self, state: &PhaseState<N>, h: f64) -> Result<PhaseState<N>, GeomError>
    where
        R: EuclideanMap<N>,
        L: PhaseSpaceFunction<N>,
    {
        check_input(state, h)?;
        let next = match self.discrete.map.theta() {
            Some(theta) => self.theta_advance(theta, state, h)?,
            None => self.general_advance(state, h)?,
        };
        if next.is_finite() { Ok(next) } else { Err(GeomError::NonFinite { what: "state after step" }) }
    }

    /// `w` with `L_vv(q, 0) w = p - L_v(q, 0)` (`p` if `L_vv` is singular or the result not finite).
    fn velocity_guess<const N: usize>(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N>
    where
        L: PhaseSpaceFunction<N>,
    {
        let ((_, lv), hess) = AutoDiff(&self.discrete.lagrangian).gradient_and_hessian(q, &SVector::zeros());
        match Lu::factor(&hess.pp, "L_vv") {
            Ok(lu) => {
                let w = lu.solve(&(p - lv));
                if w.iter().all(|v| v.is_finite()) { w } else { *p }
            }
            Err(_) => *p,
        }
    }

    fn theta_advance<const N: usize>(
        &self,
        theta: f64,
        state: &PhaseState<N>,
        h: f64,
    ) -> Result<PhaseState<N>, GeomError>
    where
        L: PhaseSpaceFunction<N>,
    {
        let l = &self.discrete.lagrangian;
        let (qk, pk) = (state.q, state.p);
        let guess = qk + self.velocity_guess(&qk, &pk) * h;
        let (q1, _) = newton(
            |q1| {
                // scaled by h: `p_k + D_1 L_d` contains `(q_1 - q_k)/h`, whose rounding floor
                // `ulp(q_1)/h` would exceed the absolute residual tolerance for small h
                let (_, d1, _, d12) = theta_derivatives(l, theta, h, &qk, q1);
                Ok(((pk + d1) * h, d12 * h))
            },
            &guess,
            &self.newton,
        )?;
        // one more Newton correction on the unscaled residual: the scaled test leaves
        // |q_1 - q_1*| ~ tol, which `p_1 = D_2 L_d` would amplify by 1/h; after it the error is at
        // the rounding floor
        let (_, d1, _, d12) = theta_derivatives(l, theta, h, &qk, &q1);
        let polished = match Lu::factor(&d12, "D_12 L_d") {
            Ok(lu) => {
                let q = q1 - lu.solve(&(pk + d1));
                if q.iter().all(|v| v.is_finite()) { q } else { q1 }
            }
            Err(_) => q1,
        };
        Ok(PhaseState::new(polished, theta_d2(l, theta, h, &qk, &polished)))
    }

    fn general_advance<const N: usize>(&self, state: &PhaseState<N>, h: f64) -> Result<PhaseState<N>, GeomError>
    where
        R: EuclideanMap<N>,
        L: PhaseSpaceFunction<N>,
    {
        let (map, lag) = (&self.discrete.map, AutoDiff(&self.discrete.lagrangian));
        let (qk, pk) = (state.q, state.p);
        let u = self.velocity_guess(&qk, &pk) * h;
        let j0 = map.jacobian(&qk, &SVector::zeros());
        let x = qk - j0.dv1 * u;
        let guess: BlockVector<f64, N, 4> = [x, u, x + j0.dv2 * u, pk];
        let id = SMatrix::<f64, N, N>::identity();
        let zero = SMatrix::<f64, N, N>::zeros();
        let p0 = -pk;
        let (z, _) = newton_blocks(
            |z, jac| {
                let [x, u, q1, p1] = *z;
                let v = u / h;
                let (r1, r2) = map.apply(&x, &u)?;
                let jm = map.jacobian(&x, &u);
                let ((lx, lv), hess) = match jac {
                    Some(_) => {
                        let (g, hs) = lag.gradient_and_hessian(&x, &v);
                        (g, Some(hs))
                    }
                    None => (lag.gradient(&x, &v), None),
                };
                let grad_x = jm.dx1.tr_mul(&p0) + jm.dx2.tr_mul(&p1);
                let grad_v = jm.dv1.tr_mul(&p0) + jm.dv2.tr_mul(&p1);
                if let (Some(j), Some(hs)) = (jac, hess) {
                    let c = map.covector_hessian(&x, &u, &p0, &p1);
                    *j = [
                        [jm.dx1, jm.dv1, zero, zero],
                        [jm.dx2, jm.dv2, -id, zero],
                        [c.xx - hs.qq * h, c.xv - hs.qp, zero, jm.dx2.transpose()],
                        [c.xv.transpose() - hs.qp.transpose(), c.vv - hs.pp / h, zero, jm.dv2.transpose()],
                    ];
                }
                Ok([r1 - qk, r2 - q1, grad_x - lx * h, grad_v - lv])
            },
            &guess,
            &self.newton,
        )?;
        Ok(PhaseState::new(z[2], z[3]))
    }
}

impl<R: EuclideanMap<N>, L: PhaseSpaceFunction<N>, const N: usize> OneStep<PhaseState<N>>
    for DiscreteEulerLagrange<R, L>
{
    fn name(&self) -> String {
        format!("discrete Euler-Lagrange of {}", self.discrete.map.name())
    }
    fn order(&self) -> u32 {
        if self.discrete.map.is_symmetric() { 2 } else { 1 }
    }
    fn is_symmetric(&self) -> bool {
        self.discrete.map.is_symmetric()
    }
    fn step(&self, state: &mut PhaseState<N>, h: f64) -> Result<(), GeomError> {
        *state = self.advance(state, h)?;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------

/// The Lie-group midpoint discrete Lagrangian of a left-invariant `ℓ(ξ)` (docs/math.md §B.2, §C.3):
/// `L_d(g_0, g_1) = h ℓ(τ^{-1}(g_0^{-1} g_1)/h)`, with `W = g_0^{-1} g_1 = τ(hξ)`, for any chart
/// `τ` of `G` (`C`: any [`GroupChart`], the shipped [`Chart`] by default). Its discrete
/// Legendre transforms, left-trivialized at `g_0` and `g_1` (§C.3: `F^-L(W) = r*_W dL`,
/// `F^+L(W) = l*_W dL`; right-trivialized `dτ`, §D.2):
///
/// ```text
///   μ_0 = -g_0^{-1} D_1 L_d = (dτ^{-1}_{hξ})ᵀ ∇ℓ(ξ),     μ_1 = g_1^{-1} D_2 L_d = (dτ^{-1}_{-hξ})ᵀ ∇ℓ(ξ).
/// ```
/// (From `δW W^{-1} = η` ⇒ `δ(hξ) = dτ^{-1}_{hξ} η`, and `W^{-1} δW = η` ⇒
/// `δ(hξ) = dτ^{-1}_{hξ} Ad_W η = dτ^{-1}_{-hξ} η`.) For `τ = exp` this is the Lie-group
/// midpoint discretization of §B.2; its DEL are the free-body member of the HP family (§D.5).
#[derive(Debug, Clone, Copy)]
pub struct LieGroupDiscreteLagrangian<G, L, const D: usize, C = Chart> {
    group: G,
    chart: C,
    lagrangian: L,
}

impl<G, L, const D: usize, C: Copy> LieGroupDiscreteLagrangian<G, L, D, C> {
    /// `L_d` of the left-invariant `lagrangian` `ℓ(ξ)` on `group` with the chart `chart` (any
    /// [`GroupChart`]; not validated here, [`geom_core::lie::check_chart`] checks a user's chart).
    pub fn new(group: G, chart: C, lagrangian: L) -> Self {
        Self { group, chart, lagrangian }
    }
    /// The group.
    pub fn group(&self) -> &G {
        &self.group
    }
    /// The chart `τ`.
    pub fn chart(&self) -> C {
        self.chart
    }
    /// The reduced Lagrangian `ℓ(ξ)`.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }
}

impl<G: LieGroup<f64, D>, L: ScalarFunction<D>, const D: usize, C: GroupChart<f64, G, D>>
    LieGroupDiscreteLagrangian<G, L, D, C>
{
    /// `ξ = τ^{-1}(g_0^{-1} g_1)/h`.
    fn velocity(&self, g0: &G::Element, g1: &G::Element, h: f64) -> Result<SVector<f64, D>, GeomError> {
        check_step(h)?;
        Ok(self.chart.tau_inv(&self.group, &self.group.compose(&self.group.inverse(g0), g1))? / h)
    }
    /// `L_d(g_0, g_1) = h ℓ(τ^{-1}(g_0^{-1} g_1)/h)`.
    pub fn value(&self, g0: &G::Element, g1: &G::Element, h: f64) -> Result<f64, GeomError> {
        let xi = self.velocity(g0, g1, h)?;
        let v = self.lagrangian.eval(&xi) * h;
        if v.is_finite() { Ok(v) } else { Err(GeomError::NonFinite { what: "discrete Lagrangian" }) }
    }
    /// `(μ_0, μ_1) = ((dτ^{-1}_{hξ})ᵀ ∇ℓ(ξ), (dτ^{-1}_{-hξ})ᵀ ∇ℓ(ξ))` (type documentation).
    pub fn legendre(
        &self,
        g0: &G::Element,
        g1: &G::Element,
        h: f64,
    ) -> Result<(SVector<f64, D>, SVector<f64, D>), GeomError> {
        let xi = self.velocity(g0, g1, h)?;
        let grad = AutoDiff(&self.lagrangian).try_gradient(&xi)?;
        let y = xi * h;
        Ok((
            self.chart.dtau_inv(&self.group, &y)?.tr_mul(&grad),
            self.chart.dtau_inv(&self.group, &(-y))?.tr_mul(&grad),
        ))
    }
}

/// The discrete Euler–Poincaré step of [`LieGroupDiscreteLagrangian`] on `(g_k, μ_k)`, for any
/// chart `τ` (`C`: a [`GroupChart`] at `f64`, `Dual64` and `DualSVec64<D>`, i.e. an
/// [`AdGroupChart`] — the shipped [`Chart`] by default, or a user's chart written once over the
/// scalar) (docs/math.md §C.3, §D.5 free body; "Lie group symplectic Euler B" with `f = 0`):
///
/// ```text
///   solve  μ_k = (dτ^{-1}_{hξ})ᵀ ∇ℓ(ξ)  for ξ;     g_{k+1} = g_k τ(hξ),    μ_{k+1} = (dτ^{-1}_{-hξ})ᵀ ∇ℓ(ξ).
/// ```
/// Newton from `ξ = 0` with the Jacobian `∂/∂ξ[(dτ^{-1}_{hξ})ᵀ g]|_{g = ∇ℓ(ξ)}` (the group's
/// closed form for a shipped chart that has one, else one `Dual64`/`DualSVec64<D>` evaluation of
/// the chart's `dτ^{-1}`, hence the bound `G: LieGroup<DualSVec64<D>, D>`, which every group of
/// `geom_core::lie` satisfies) plus `(dτ^{-1}_{hξ})ᵀ D²ℓ(ξ)` (`num_dual::hessian`).
///
/// Since `(dτ^{-1}_{-x})ᵀ = Ad*_{τ(x)} (dτ^{-1}_x)ᵀ` (§D.2; every chart, from `τ(-x) = τ(x)^{-1}`),
/// `μ_{k+1} = Ad*_{W_k} μ_k`: the coadjoint
/// orbit (`|μ|` on SO(3)) and the spatial momentum `Ad*_{g_k^{-1}} μ_k` (`g μ` on SO(3)) are
/// conserved up to the Newton residual. `L_d(g_1, g_0; -h) = L_d(g_0, g_1; h)` because
/// `τ^{-1}(W^{-1}) = -τ^{-1}(W)`, so the method is symmetric, order 2.
///
/// ```
/// use discretization::LieState;
/// use discretization::lagrangian::{LieGroupDiscreteEulerLagrange};
/// use discretization::OneStep;
/// use geom_core::function::ScalarFunction;
/// use geom_core::lie::{Chart, So3};
/// use geom_core::Scalar;
/// use nalgebra::{Matrix3, SVector, Vector3};
///
/// /// Free rigid body `ℓ(ξ) = ½ ξᵀ diag(1, 2, 3) ξ`.
/// struct Body;
/// impl ScalarFunction<3> for Body {
///     fn eval<S: Scalar>(&self, w: &SVector<S, 3>) -> S {
///         (w[0] * w[0] + w[1] * w[1] * S::from(2.0) + w[2] * w[2] * S::from(3.0)) * S::from(0.5)
///     }
/// }
/// let step = LieGroupDiscreteEulerLagrange::<_, _, 3>::new(So3, Chart::Cayley, Body);
/// let mut s = LieState::new(Matrix3::identity(), Vector3::new(1.0, 0.5, -0.2));
/// let spatial = s.g * s.mu;
/// for _ in 0..100 {
///     step.step(&mut s, 0.1)?;
/// }
/// assert!((s.g * s.mu - spatial).norm() < 1e-12);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct LieGroupDiscreteEulerLagrange<G, L, const D: usize, C = Chart> {
    discrete: LieGroupDiscreteLagrangian<G, L, D, C>,
    newton: NewtonOptions,
    /// `∇ℓ(0)`, `D²ℓ(0)` and its factorization (`None` if singular or not finite): the data of
    /// the warm start and of the first Newton Jacobian, the same at every step.
    at_zero: (SVector<f64, D>, SMatrix<f64, D, D>, Option<Lu<f64, D>>),
}

impl<G, L: ScalarFunction<D>, const D: usize, C: Copy> LieGroupDiscreteEulerLagrange<G, L, D, C> {
    /// The DEP step of `L_d = h ℓ(τ^{-1}(g_0^{-1} g_1)/h)` with the chart `chart` (any
    /// [`GroupChart`]; not validated here, [`geom_core::lie::check_chart`] checks a user's
    /// chart), with [`NewtonOptions::lie_group`]: simplified Newton whose
    /// first Jacobian uses `D²ℓ(0)` (computed here, once), then gradient-only iterations to the
    /// same round-off tests.
    pub fn new(group: G, chart: C, lagrangian: L) -> Self {
        let (g0, h0) = AutoDiff(&lagrangian).gradient_and_hessian(&SVector::zeros());
        let lu = Lu::factor(&h0, "Hessian of the reduced Lagrangian at 0").ok();
        Self {
            discrete: LieGroupDiscreteLagrangian::new(group, chart, lagrangian),
            newton: NewtonOptions::lie_group(),
            at_zero: (g0, h0, lu),
        }
    }
}

impl<G, L, const D: usize, C> LieGroupDiscreteEulerLagrange<G, L, D, C> {
    /// The same step with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The discrete Lagrangian.
    pub fn discrete_lagrangian(&self) -> &LieGroupDiscreteLagrangian<G, L, D, C> {
        &self.discrete
    }
}

impl<G, L, const D: usize, C> LieGroupDiscreteEulerLagrange<G, L, D, C>
where
    G: LieGroup<f64, D> + LieGroup<DualSVec64<D>, D> + LieGroup<Dual64, D>,
    L: ScalarFunction<D>,
    C: AdGroupChart<G, D>,
{
    /// One step from `state`, returning the new state (the state is not touched). Errors:
    /// [`GeomError::InvalidStep`], [`GeomError::NonFinite`], the Newton errors and those of the
    /// chart (`dexp^{-1}` far from the identity, Cayley singularities).
    pub fn advance(&self, state: &LieStateOf<G, D>, h: f64) -> Result<LieStateOf<G, D>, GeomError> {
        check_step(h)?;
        geom_core::error::check_finite(state.mu.iter(), "body momentum")?;
        let (group, chart) = (&self.discrete.group, &self.discrete.chart);
        let ell = AutoDiff(&self.discrete.lagrangian);
        let mu = state.mu;
        // warm start: the velocity of the Legendre transform linearized at ξ = 0,
        // ξ_0 = D²ℓ(0)^{-1} (μ − ∇ℓ(0)) (exact for a quadratic ℓ and h → 0), else ξ_0 = 0
        let zero = SVector::<f64, D>::zeros();
        let (g0, h0, lu0) = &self.at_zero;
        let h0 = *h0;
        let xi0 = match lu0 {
            Some(lu) => lu.solve(&(mu - g0)),
            None => zero,
        };
        let (xi0, hd) = (if xi0.iter().all(|v| v.is_finite()) { xi0 } else { zero }, DualSVec64::<D>::from_re(h));
        // F(ξ) = (dτ⁻¹_{hξ})ᵀ ∇ℓ(ξ) − μ,
        // DF(ξ) = (dτ⁻¹_{hξ})ᵀ D²ℓ(ξ) + D_ξ[(dτ⁻¹_{hξ})ᵀ g]|_{g = ∇ℓ(ξ)}.
        // The first Jacobian (at the warm start) takes D²ℓ(0), already computed for the warm
        // start: exact for a quadratic ℓ, otherwise off by O(|ξ_0|), which the simplified
        // Newton's contraction test absorbs (a slow contraction re-evaluates the Jacobian with
        // the Hessian at the iterate).
        let first = core::cell::Cell::new(true);
        let ([xi], _) = newton_blocks::<D, 1>(
            |x, jac| {
                let xi = &x[0];
                let a = GroupChart::<f64, G, D>::dtau_inv(chart, group, &(xi * h))?;
                let grad = match jac {
                    None => ell.gradient(xi),
                    Some(out) => {
                        let (grad, hess) =
                            if first.replace(false) { (ell.gradient(xi), h0) } else { ell.gradient_and_hessian(xi) };
                        // the group's closed form `D_x[(dτ_x⁻¹)ᵀ g]` at `x = hξ` (times `h`) for a
                        // shipped chart, else AD through the chart's `dτ⁻¹`
                        let closed = GroupChart::<f64, G, D>::builtin(chart).and_then(|shipped| {
                            LieGroup::<f64, D>::dtau_inv_transpose_closed_form(group, shipped, &(xi * h), &grad)
                        });
                        let chart_term = match closed {
                            Some(m) => m * h,
                            None => ad_jacobian_of(
                                xi,
                                |xd: &SVector<Dual64, D>| {
                                    Ok(GroupChart::<Dual64, G, D>::dtau_inv(chart, group, &(xd * Dual64::from_re(h)))?
                                        .tr_mul(&grad.map(Dual64::from_re)))
                                },
                                |xd: &SVector<DualSVec64<D>, D>| {
                                    Ok(GroupChart::<DualSVec64<D>, G, D>::dtau_inv(chart, group, &(xd * hd))?
                                        .tr_mul(&grad.map(DualSVec64::<D>::from_re)))
                                },
                            )?,
                        };
                        out[0][0] = chart_term + a.tr_mul(&hess);
                        grad
                    }
                };
                Ok([a.tr_mul(&grad) - mu])
            },
            &[xi0],
            &self.newton,
        )?;
        let y = xi * h;
        let grad = ell.try_gradient(&xi)?;
        let mu1 = GroupChart::<f64, G, D>::dtau_inv(chart, group, &(-y))?.tr_mul(&grad);
        let g1 = GroupChart::<f64, G, D>::compose_tau(chart, group, &state.g, &y)?;
        geom_core::error::check_finite(mu1.iter(), "body momentum after step")?;
        Ok(LieState::new(g1, mu1))
    }
}

impl<G, L, const D: usize, C> OneStep<LieStateOf<G, D>> for LieGroupDiscreteEulerLagrange<G, L, D, C>
where
    G: LieGroup<f64, D> + LieGroup<DualSVec64<D>, D> + LieGroup<Dual64, D>,
    L: ScalarFunction<D>,
    C: AdGroupChart<G, D>,
{
    fn name(&self) -> String {
        format!(
            "discrete Euler-Poincare on {} ({})",
            LieGroup::<f64, D>::name(&self.discrete.group),
            GroupChart::<f64, G, D>::name(&self.discrete.chart)
        )
    }
    fn order(&self) -> u32 {
        2
    }
    fn is_symmetric(&self) -> bool {
        true
    }
    fn step(&self, state: &mut LieStateOf<G, D>, h: f64) -> Result<(), GeomError> {
        *state = self.advance(state, h)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autodiff_map::tests::{Quadratic, ThetaModel};
    use crate::autodiff_map::{AdjointMap, AutoDiffMap};
    use crate::general::tests::Hidden;
    use crate::theta::ThetaMap;
    use crate::{CotangentLiftIntegrator, DiscretizationMap};
    use geom_core::lie::{Se3, So3};
    use nalgebra::{Matrix3, Vector2, Vector3, Vector6};

    /// `V(q) = -cos q_0 + q_1²/2 + q_0 q_1/4`.
    fn potential<S: Scalar>(q: &SVector<S, 2>) -> S {
        -q[0].cos() + q[1] * q[1] * S::from(0.5) + q[0] * q[1] * S::from(0.25)
    }
    /// Separable `H = |p|²/2 + V(q)`.
    struct SepH;
    impl PhaseSpaceFunction<2> for SepH {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
            p.norm_squared() * S::from(0.5) + potential(q)
        }
    }
    /// Its Legendre transform `L = |v|²/2 - V(q)`.
    struct SepL;
    impl PhaseSpaceFunction<2> for SepL {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>, v: &SVector<S, 2>) -> S {
            v.norm_squared() * S::from(0.5) - potential(q)
        }
    }
    /// Position-dependent masses `m_0 = 1 + q_0²`, `m_1 = 2 + sin q_1`.
    fn masses<S: Scalar>(q: &SVector<S, 2>) -> (S, S) {
        (S::from(1.0) + q[0] * q[0], S::from(2.0) + q[1].sin())
    }
    /// Non-separable `H = p_0²/(2 m_0) + p_1²/(2 m_1) + V`.
    struct MassH;
    impl PhaseSpaceFunction<2> for MassH {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
            let (m0, m1) = masses(q);
            (p[0] * p[0] / m0 + p[1] * p[1] / m1) * S::from(0.5) + potential(q)
        }
    }
    /// Its Legendre transform `L = (m_0 v_0² + m_1 v_1²)/2 - V`.
    struct MassL;
    impl PhaseSpaceFunction<2> for MassL {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 2>, v: &SVector<S, 2>) -> S {
            let (m0, m1) = masses(q);
            (m0 * v[0] * v[0] + m1 * v[1] * v[1]) * S::from(0.5) - potential(q)
        }
    }

    fn compare_routes<R, H, L>(label: &str, map: R, ham: H, lag: L, tol: f64)
    where
        R: EuclideanMap<2> + Clone,
        H: PhaseSpaceFunction<2>,
        L: PhaseSpaceFunction<2>,
    {
        let hamiltonian = CotangentLiftIntegrator::new(map.clone(), AutoDiff(ham));
        let lagrangian = DiscreteEulerLagrange::new(map, lag);
        let s0 = PhaseState::new(Vector2::new(0.7, -0.4), Vector2::new(0.3, 0.8));
        let (mut a, mut b) = (s0, s0);
        let mut worst = 0.0f64;
        for _ in 0..100 {
            hamiltonian.step(&mut a, 0.1).unwrap();
            lagrangian.step(&mut b, 0.1).unwrap();
            worst = worst.max((a.q - b.q).amax()).max((a.p - b.p).amax());
        }
        assert!(worst < tol, "{label}: Hamiltonian and Lagrangian routes differ by {worst:e}");
        assert!((a.q - s0.q).amax() > 0.1, "{label}: the trajectory moved");
    }

    #[test]
    fn lagrangian_route_equals_hamiltonian_route() {
        for theta in [0.0, 0.5, 1.0, 0.3] {
            let map = ThetaMap::<2>::new(theta).unwrap();
            compare_routes(&format!("separable, theta = {theta}"), map, SepH, SepL, 1e-13);
            compare_routes(&format!("position-dependent mass, theta = {theta}"), map, MassH, MassL, 1e-13);
            // the general paths of both routes (θ hidden from both)
            compare_routes(&format!("general paths, theta = {theta}"), Hidden(map), MassH, MassL, 1e-13);
        }
        // a genuinely nonlinear map, through both general paths
        compare_routes("quadratic map", AutoDiffMap::<_, 2>(Quadratic(0.2)), MassH, MassL, 1e-13);
        compare_routes("adjoint of quadratic map", AdjointMap(AutoDiffMap::<_, 2>(Quadratic(-0.1))), SepH, SepL, 1e-13);
    }

    #[test]
    fn small_steps_and_large_coordinates_do_not_stall() {
        // unscaled, the residual p_k + D_1 L_d has the rounding floor ulp(q)/h ≈ 5e-12 here, far
        // above the absolute tolerance 1e-14: Newton would stagnate (regression test)
        let s0 = PhaseState::new(Vector2::new(40.0, -25.0), Vector2::new(0.3, 0.8));
        let h = 1e-3;
        for theta in [0.0, 0.5, 1.0] {
            let map = ThetaMap::<2>::new(theta).unwrap();
            let del = DiscreteEulerLagrange::new(map, SepL);
            let ham = CotangentLiftIntegrator::new(map, AutoDiff(SepH));
            let (mut a, mut b) = (s0, s0);
            for k in 0..300 {
                del.step(&mut a, h).unwrap_or_else(|e| panic!("theta = {theta}, step {k}: {e}"));
                ham.step(&mut b, h).unwrap();
            }
            // the momentum p_{k+1} = D_2 L_d carries the rounding error ulp(q)/h ≈ 1e-11 per step
            let d = (a.q - b.q).amax().max((a.p - b.p).amax());
            assert!(d < 1e-9, "theta = {theta}: {d:e}");
        }
    }

    #[test]
    fn theta_closed_form_equals_implicit_inverse_route() {
        let (q0, q1, h) = (Vector2::new(0.3, -0.2), Vector2::new(0.45, -0.1), 0.13);
        for theta in [0.0, 0.3, 0.5, 1.0] {
            let closed = DiscreteLagrangianOf::new(ThetaMap::<2>::new(theta).unwrap(), MassL);
            let implicit = DiscreteLagrangianOf::new(AutoDiffMap::<_, 2>(ThetaModel(theta)), MassL);
            let (vc, vi) = (closed.value(&q0, &q1, h).unwrap(), implicit.value(&q0, &q1, h).unwrap());
            assert!((vc - vi).abs() < 1e-15, "theta = {theta}");
            let ((a0, a1), (b0, b1)) = (closed.legendre(&q0, &q1, h).unwrap(), implicit.legendre(&q0, &q1, h).unwrap());
            assert!((a0 - b0).amax() < 1e-13 && (a1 - b1).amax() < 1e-13, "theta = {theta}");
        }
    }

    #[test]
    fn legendre_transforms_are_the_derivatives_of_the_value() {
        let (q0, q1, h) = (Vector2::new(0.3, -0.2), Vector2::new(0.45, -0.1), 0.13);
        let eps = 1e-6;
        let check =
            |label: &str, value: &dyn Fn(&Vector2<f64>, &Vector2<f64>) -> f64, p0: Vector2<f64>, p1: Vector2<f64>| {
                for k in 0..2 {
                    let mut e = Vector2::zeros();
                    e[k] = eps;
                    let d1 = (value(&(q0 + e), &q1) - value(&(q0 - e), &q1)) / (2.0 * eps);
                    let d2 = (value(&q0, &(q1 + e)) - value(&q0, &(q1 - e))) / (2.0 * eps);
                    assert!((p0[k] + d1).abs() < 1e-7, "{label}: p0[{k}] = {} vs -D1 = {}", p0[k], -d1);
                    assert!((p1[k] - d2).abs() < 1e-7, "{label}: p1[{k}] = {} vs D2 = {}", p1[k], d2);
                }
            };
        let theta = DiscreteLagrangianOf::new(ThetaMap::<2>::new(0.3).unwrap(), MassL);
        let (p0, p1) = theta.legendre(&q0, &q1, h).unwrap();
        check("theta 0.3", &|a, b| theta.value(a, b, h).unwrap(), p0, p1);
        let quad = DiscreteLagrangianOf::new(AutoDiffMap::<_, 2>(Quadratic(0.3)), MassL);
        let (p0, p1) = quad.legendre(&q0, &q1, h).unwrap();
        check("quadratic", &|a, b| quad.value(a, b, h).unwrap(), p0, p1);
        assert!(theta.value(&q0, &q1, 0.0).is_err());
    }

    #[test]
    fn del_step_reproduces_the_legendre_transforms() {
        let s = PhaseState::new(Vector2::new(0.7, -0.4), Vector2::new(0.3, 0.8));
        for map in [ThetaMap::<2>::new(0.3).unwrap(), ThetaMap::<2>::midpoint()] {
            let del = DiscreteEulerLagrange::new(map, MassL);
            let next = del.advance(&s, 0.1).unwrap();
            let (p0, p1) = del.discrete_lagrangian().legendre(&s.q, &next.q, 0.1).unwrap();
            assert!((p0 - s.p).amax() < 1e-13 && (p1 - next.p).amax() < 1e-15);
            assert_eq!(del.order(), if map.is_symmetric() { 2 } else { 1 });
        }
        // failures leave the state untouched
        let del = DiscreteEulerLagrange::new(ThetaMap::<2>::midpoint(), MassL)
            .with_newton(NewtonOptions { max_iterations: 1, ..NewtonOptions::integrator() });
        let mut t = s;
        assert!(del.step(&mut t, 0.5).is_err());
        assert_eq!(t, s);
        assert!(matches!(del.step(&mut t, 0.0), Err(GeomError::InvalidStep { .. })));
        let mut bad = PhaseState::new(Vector2::new(f64::NAN, 0.0), Vector2::zeros());
        assert!(matches!(del.step(&mut bad, 0.1), Err(GeomError::NonFinite { .. })));
    }

    /// Free rigid body `ℓ(ξ) = ½ ξᵀ diag(1, 2, 3) ξ`.
    struct Body;
    impl ScalarFunction<3> for Body {
        #[inline]
        fn eval<S: Scalar>(&self, w: &SVector<S, 3>) -> S {
            (w[0] * w[0] + w[1] * w[1] * S::from(2.0) + w[2] * w[2] * S::from(3.0)) * S::from(0.5)
        }
    }
    const INERTIA: [f64; 3] = [1.0, 2.0, 3.0];

    #[test]
    fn free_rigid_body_conserves_casimir_and_spatial_momentum() {
        for chart in [Chart::Exp, Chart::Cayley] {
            let step = LieGroupDiscreteEulerLagrange::<_, _, 3>::new(So3, chart, Body);
            let mut s = LieState::new(So3.exp(&Vector3::new(0.3, -0.5, 0.2)), Vector3::new(1.0, 0.6, -0.4));
            let (casimir, spatial) = (s.mu.norm(), s.g * s.mu);
            let energy = |mu: &Vector3<f64>| (0..3).map(|i| mu[i] * mu[i] / INERTIA[i]).sum::<f64>() * 0.5;
            let e0 = energy(&s.mu);
            let (mut dc, mut ds, mut de) = (0.0f64, 0.0f64, 0.0f64);
            for _ in 0..1000 {
                step.step(&mut s, 0.05).unwrap();
                dc = dc.max((s.mu.norm() - casimir).abs());
                ds = ds.max((s.g * s.mu - spatial).amax());
                de = de.max((energy(&s.mu) - e0).abs());
            }
            assert!(dc < 1e-12, "{chart:?}: |μ| drift {dc:e}");
            assert!(ds < 1e-12, "{chart:?}: spatial momentum drift {ds:e}");
            assert!(So3.defect(&s.g) < 1e-12);
            // energy is not conserved exactly but stays bounded, O(h²)
            assert!(de > 1e-10 && de < 1e-2, "{chart:?}: energy error {de:e}");
        }
    }

    #[test]
    fn cayley_step_matches_the_explicit_so3_formula() {
        // docs/math.md §D.5: with P = Iξ, Π_k = P + (h/2) ξ×P + (h²/4)(ξ·P) ξ and
        // Π_{k+1} = P - (h/2) ξ×P + (h²/4)(ξ·P) ξ, R_{k+1} = R_k cay(hξ)
        let h = 0.1;
        let step = LieGroupDiscreteEulerLagrange::<_, _, 3>::new(So3, Chart::Cayley, Body);
        let s = LieState::new(Matrix3::identity(), Vector3::new(1.0, 0.6, -0.4));
        let next = step.advance(&s, h).unwrap();
        let xi = So3.cayley_inv(&next.g).unwrap() / h;
        let p = Vector3::new(xi[0], 2.0 * xi[1], 3.0 * xi[2]);
        let pk = p + xi.cross(&p) * (h / 2.0) + xi * (h * h / 4.0 * xi.dot(&p));
        let pk1 = p - xi.cross(&p) * (h / 2.0) + xi * (h * h / 4.0 * xi.dot(&p));
        assert!((pk - s.mu).amax() < 1e-13, "{pk} vs {}", s.mu);
        assert!((pk1 - next.mu).amax() < 1e-13);
        // the Legendre transforms of L_d reproduce both momenta
        let (m0, m1) = step.discrete_lagrangian().legendre(&s.g, &next.g, h).unwrap();
        assert!((m0 - s.mu).amax() < 1e-13 && (m1 - next.mu).amax() < 1e-13);
    }

    #[test]
    fn lie_legendre_transforms_are_trivialized_derivatives() {
        // μ_0(η) = -d/dε L_d(g_0 exp(εη), g_1), μ_1(η) = d/dε L_d(g_0, g_1 exp(εη))
        let h = 0.2;
        for chart in [Chart::Exp, Chart::Cayley] {
            let ld = LieGroupDiscreteLagrangian::<_, _, 3>::new(So3, chart, Body);
            let g0 = So3.exp(&Vector3::new(0.3, -0.5, 0.2));
            let g1 = g0 * So3.exp(&Vector3::new(0.1, 0.25, -0.15));
            let (m0, m1) = ld.legendre(&g0, &g1, h).unwrap();
            let eps = 1e-6;
            for k in 0..3 {
                let mut e = Vector3::zeros();
                e[k] = eps;
                let d0 = (ld.value(&(g0 * So3.exp(&e)), &g1, h).unwrap()
                    - ld.value(&(g0 * So3.exp(&-e)), &g1, h).unwrap())
                    / (2.0 * eps);
                let d1 = (ld.value(&g0, &(g1 * So3.exp(&e)), h).unwrap()
                    - ld.value(&g0, &(g1 * So3.exp(&-e)), h).unwrap())
                    / (2.0 * eps);
                assert!((m0[k] + d0).abs() < 1e-7, "{chart:?}: μ_0[{k}]");
                assert!((m1[k] - d1).abs() < 1e-7, "{chart:?}: μ_1[{k}]");
            }
        }
    }

    /// Kirchhoff-type `ℓ = ½ Ωᵀ diag(1, 2, 3) Ω + ½ vᵀ diag(4, 5, 6) v` on SE(3).
    struct Vehicle;
    impl ScalarFunction<6> for Vehicle {
        #[inline]
        fn eval<S: Scalar>(&self, x: &SVector<S, 6>) -> S {
            let mut e = S::from(0.0);
            for i in 0..6 {
                e += x[i] * x[i] * S::from(i as f64 + 1.0);
            }
            e * S::from(0.5)
        }
    }

    #[test]
    fn se3_step_is_symmetric_and_conserves_spatial_momentum() {
        for chart in [Chart::Exp, Chart::Cayley] {
            let step = LieGroupDiscreteEulerLagrange::<_, _, 6>::new(Se3, chart, Vehicle);
            let s0 = LieState::new(
                Se3.exp(&Vector6::new(0.1, 0.2, -0.3, 1.0, 0.0, 0.5)),
                Vector6::new(0.5, -0.3, 0.8, 1.0, 0.4, -0.6),
            );
            let spatial = |s: &LieState<nalgebra::Matrix4<f64>, 6>| Se3.coadjoint(&Se3.inverse(&s.g), &s.mu);
            let j0 = spatial(&s0);
            let mut s = s0;
            for _ in 0..200 {
                step.step(&mut s, 0.05).unwrap();
            }
            assert!((spatial(&s) - j0).amax() < 1e-11, "{chart:?}: {:e}", (spatial(&s) - j0).amax());
            // symmetric: Φ_{-h} ∘ Φ_h = id
            let mut t = s0;
            step.step(&mut t, 0.05).unwrap();
            step.step(&mut t, -0.05).unwrap();
            assert!((t.g - s0.g).amax() < 1e-13 && (t.mu - s0.mu).amax() < 1e-13, "{chart:?}");
        }
    }

    #[test]
    fn lie_step_errors() {
        let step = LieGroupDiscreteEulerLagrange::<_, _, 3>::new(So3, Chart::Exp, Body);
        let s = LieState::new(Matrix3::identity(), Vector3::new(f64::NAN, 0.0, 0.0));
        assert!(matches!(step.advance(&s, 0.1), Err(GeomError::NonFinite { .. })));
        let s = LieState::new(Matrix3::identity(), Vector3::new(1.0, 0.6, -0.4));
        assert!(matches!(step.advance(&s, f64::INFINITY), Err(GeomError::InvalidStep { .. })));
        let few = step.with_newton(NewtonOptions { max_iterations: 1, ..NewtonOptions::integrator() });
        let mut t = s;
        assert!(few.step(&mut t, 0.5).is_err());
        assert_eq!(t, s);
    }
}
