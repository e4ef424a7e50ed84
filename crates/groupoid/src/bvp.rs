//! Boundary-value problems of discrete (constrained) Lagrangian systems: discrete optimal control
//! with fixed endpoints, solved by shooting (issue 6 item 6; docs/math.md §C.6.2, C.6.3; Marrero,
//! Martín de Diego & Stern, *Symplectic groupoids and discrete constrained Lagrangian mechanics*,
//! 2015, arXiv:1103.6250, §5–6).
//!
//! Given `n ≥ 2` and a target arrow `g` (the fixed product, e.g. `(q_0, q_n)` on a pair groupoid or
//! `g_0^{-1} g_n` on a Lie group), find a solution `(g_1, λ_1), …, (g_n, λ_n)` of
//! [`ConstrainedFlow`] with `g_1 ⋯ g_n = g`. The shooting unknowns are the initial data
//! `u = (ξ_1, λ_1) ∈ R^{R+K}`, `g_1 = exp_{α(g)}(ξ_1)` (the first step and its multipliers); the
//! shooting residual is
//!
//! ```text
//! E(u) = ( fibre_log(i(g) · g_1 ⋯ g_n),  φ(g_1) ) ∈ R^R × R^K,
//! ```
//!
//! whose zero is the solution (`i(g)·g_1⋯g_n` is then an identity, and `g_1 ∈ N`). Newton on `E`
//! (geom-core's [`newton_blocks`](geom_core::newton::newton_blocks) with one block) uses the **exact** Jacobian `DE(u)`, propagated along the
//! trajectory by the implicit function theorem (the tangent map of the discrete flow). Perturb
//! every arrow by `g_k(ζ) = i(e_{k−1}) · g_k · e_k`, `e_k = exp_{β(g_k)}(ζ_k)`, `e_0 = ε` (the
//! source `α(g_1)` is fixed); then `g_1(ζ) ⋯ g_n(ζ) = g_1 ⋯ g_n · e_n` and the step equations
//! `A_k − B_k = 0`, `φ(g_{k+1}) = 0` with `A_k = X^←(g_k(ζ))(L̂ + λ_k·φ)`,
//! `B_k = X^→(g_{k+1}(ζ))(L̂ + λ_{k+1}·φ)` linearize to
//!
//! ```text
//! [ −∂B_k/∂ζ_{k+1}   −X^→(g_{k+1})φ ] [δζ_{k+1}]     [ ∂A_k/∂ζ_{k−1} δζ_{k−1} + (∂A_k/∂ζ_k − ∂B_k/∂ζ_k) δζ_k + X^←(g_k)φ δλ_k ]
//! [  ∂φ/∂ζ_{k+1}       0            ] [δλ_{k+1}] = − [ ∂φ(g_{k+1})/∂ζ_k δζ_k                                                  ]
//! ```
//!
//! (the matrix on the left is the step Jacobian: regular systems have it nonsingular). Every block
//! is a mixed second derivative of `L̂ + λ·φ` (or a first derivative of `φ`) along two composed
//! invariant curves, read off one `HyperDualSVec64<R, R>` evaluation; the seeds are
//! `δζ_1 = ∂ζ_1/∂ξ_1 δξ_1` (with `ζ_1(ξ) = fibre_log(i(g_1) · exp_{α(g)}(ξ))`), `δλ_1`, and
//! `DE = [∂/∂ζ_n fibre_log(i(g)·g_1⋯g_n·e_n) · δζ_n ; ∂φ(g_1)/∂ξ_1 δξ_1]`. Newton therefore converges
//! quadratically ([`BvpSolution::iterates`] records the iterates to check it).
//!
//! **Limits of shooting** (measured on the examples of docs/math.md §C.6). The outer Newton is not
//! globalized: it needs a guess in the basin of the solution (continuation in the target helps,
//! see `examples/so3_optimal_control.rs`). Where the solution is not isolated, `DE` is singular:
//! every straight roll of the plate-ball system solves its BVP with the multipliers
//! `λ_k ≡ c·(rolling axis)` for every `c`, so `DE` has the null vector `(0, axis)` there
//! (a guess on such a solution is accepted with 0 iterations; a guess near one gives huge steps).
//! Short nonholonomic maneuvers are ill-conditioned for the same reason (the multipliers act on the
//! path only through the rotation of the rolling axis; `σ_min(DE) ~ 1e-7` for a plate-ball run
//! over `t = 1`, `~ 0.2` over `t = 6`).

use crate::constraints::{
    ConstrainedFlow, Constraints, ElementAt, Hd, SigmaPoint, check_dims, jacobian_at_zero, join, mixed_derivatives,
    saddle, solve_m, split,
};
use crate::groupoid::LieGroupoid;
use crate::lagrangian::{AdGroupoid, Arrow, DiscreteLagrangian, GroupoidLift};
use geom_core::linalg::Lu;
use geom_core::newton::{NewtonOptions, NewtonReport};
use geom_core::{GeomError, Result};
use nalgebra::{SMatrix, SVector};
use num_dual::DualSVec64;

/// A solved boundary-value problem.
#[derive(Debug, Clone, PartialEq)]
pub struct BvpSolution<E, const K: usize, const M: usize> {
    /// The solution `(g_1, λ_1), …, (g_n, λ_n)`.
    pub trajectory: Vec<SigmaPoint<E, K>>,
    /// The shooting unknowns `u_j = (ξ_1, λ_1)` at every Newton iterate where the residual was
    /// evaluated, the last one being the returned solution.
    pub iterates: Vec<SVector<f64, M>>,
    /// `|E(u_j)|_∞` at those iterates.
    pub residuals: Vec<f64>,
    /// The outer Newton report.
    pub report: NewtonReport,
}

/// Shooting for the fixed-endpoint problem of a [`ConstrainedFlow`] over `n` steps (module
/// documentation). `M = R + K` as in the flow.
#[derive(Debug, Clone)]
pub struct Shooting<Gd, L, C, const M: usize> {
    flow: ConstrainedFlow<Gd, L, C, M>,
    steps: usize,
    newton: NewtonOptions,
}

impl<Gd, L, C, const M: usize> Shooting<Gd, L, C, M> {
    /// Shooting over `steps = n` arrows (`n >= 2`, else [`GeomError::InvalidParameter`]); outer
    /// Newton: residual `<= 1e-12`, step `<= 1e-13`, at most 50 iterations.
    pub fn new(flow: ConstrainedFlow<Gd, L, C, M>, steps: usize) -> Result<Self> {
        if steps < 2 {
            return Err(GeomError::InvalidParameter { what: "steps", reason: format!("need at least 2, got {steps}") });
        }
        let newton = NewtonOptions { residual_tol: 1e-12, step_tol: 1e-13, ..NewtonOptions::default() };
        Ok(Self { flow, steps, newton })
    }
    /// The same problem with other outer Newton options (the steps keep the flow's own options).
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The underlying flow.
    pub fn flow(&self) -> &ConstrainedFlow<Gd, L, C, M> {
        &self.flow
    }
    /// The number of arrows `n`.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The shooting residual `E(u)` and its exact Jacobian `DE(u)` for the target `g` (module
    /// documentation), `u = (ξ_1, λ_1)`. Errors: any error of a step (non-convergence, singular step
    /// Jacobian), of `fibre_log`, or a singular linearized step.
    pub fn residual<const R: usize, const K: usize>(
        &self,
        target: &Arrow<Gd, R>,
        u: &SVector<f64, M>,
    ) -> Result<(SVector<f64, M>, SMatrix<f64, M, M>)>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        let mut trajectory = Vec::with_capacity(self.steps);
        let mut jacobian = SMatrix::zeros();
        let residual = self.evaluate(target, u, &mut trajectory, Some(&mut jacobian))?;
        Ok((residual, jacobian))
    }

    /// Solve the boundary-value problem from the guess `(ξ_1, λ_1)`. Errors: outer Newton failures
    /// ([`GeomError::NotConverged`], [`GeomError::SingularMatrix`]) and any error of
    /// [`Shooting::residual`].
    pub fn solve<const R: usize, const K: usize>(
        &self,
        target: &Arrow<Gd, R>,
        xi_guess: &SVector<f64, R>,
        lambda_guess: &SVector<f64, K>,
    ) -> Result<BvpSolution<Arrow<Gd, R>, K, M>>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        check_dims::<R, K, M>();
        let mut trajectory = Vec::with_capacity(self.steps);
        let mut iterates = Vec::new();
        let mut residuals = Vec::new();
        let u0 = join::<R, K, M>(xi_guess, lambda_guess);
        let mut record = |u: &SVector<f64, M>, e: &SVector<f64, M>| {
            if iterates.last() != Some(u) {
                iterates.push(*u);
                residuals.push(e.amax());
            }
        };
        let (u, report) = solve_m(
            |u: &SVector<f64, M>, jac: Option<&mut SMatrix<f64, M, M>>| {
                let e = self.evaluate(target, u, &mut trajectory, jac)?;
                record(u, &e);
                Ok(e)
            },
            &u0,
            &self.newton,
        )?;
        // the step test returns x_{k+1} without evaluating it: evaluate the final trajectory
        let e = self.evaluate(target, &u, &mut trajectory, None)?;
        record(&u, &e);
        Ok(BvpSolution { trajectory, iterates, residuals, report })
    }

    /// Run the trajectory from `u` into `trajectory`, return `E(u)` and write `DE(u)` into `jacobian`
    /// if asked (the tangent propagation is skipped otherwise).
    fn evaluate<const R: usize, const K: usize>(
        &self,
        target: &Arrow<Gd, R>,
        u: &SVector<f64, M>,
        trajectory: &mut Vec<SigmaPoint<Arrow<Gd, R>, K>>,
        jacobian: Option<&mut SMatrix<f64, M, M>>,
    ) -> Result<SVector<f64, M>>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        check_dims::<R, K, M>();
        type D1<const R: usize> = DualSVec64<R>;
        let gd = self.flow.groupoid();
        let (lag, con) = (self.flow.lagrangian(), self.flow.constraints());
        let (xi1, lambda1) = split::<R, K, M>(u);
        let x0 = LieGroupoid::<f64, R>::source(gd, target);
        let g1 = LieGroupoid::<f64, R>::fibre_exp(gd, &x0, &xi1);

        // forward run
        trajectory.clear();
        trajectory.push(SigmaPoint::new(g1.clone(), lambda1));
        for k in 1..self.steps {
            let (next, _) = self.flow.step_unchecked(&trajectory[k - 1], None)?;
            trajectory.push(next);
        }
        let product = trajectory[1..].iter().fold(g1.clone(), |acc, p| LieGroupoid::<f64, R>::multiply(gd, &acc, &p.g));
        let defect = LieGroupoid::<f64, R>::multiply(gd, &LieGroupoid::<f64, R>::inverse(gd, target), &product);
        let top = LieGroupoid::<f64, R>::fibre_log(gd, &defect)?;
        let phi1 = con.eval::<f64>(gd, &g1);
        let residual = join::<R, K, M>(&top, &phi1);
        let Some(jacobian) = jacobian else {
            return Ok(residual);
        };

        // seeds: ζ_1 = Z δξ_1 and ∂φ(g_1)/∂ξ_1
        let x0d = GroupoidLift::<D1<R>, R>::lift_base(gd, &x0);
        let g1_inv = GroupoidLift::<D1<R>, R>::lift(gd, &LieGroupoid::<f64, R>::inverse(gd, &g1));
        let xi1d = xi1.map(D1::<R>::from);
        let chart = |d: &SVector<D1<R>, R>| LieGroupoid::<D1<R>, R>::fibre_exp(gd, &x0d, &(xi1d + d));
        let (_, z) = num_dual::jacobian(
            |d: SVector<D1<R>, R>| {
                LieGroupoid::<D1<R>, R>::fibre_log(gd, &LieGroupoid::<D1<R>, R>::multiply(gd, &g1_inv, &chart(&d)))
            },
            &SVector::zeros(),
        )?;
        let dphi1 = jacobian_at_zero(|d: SVector<D1<R>, R>| con.eval::<D1<R>>(gd, &chart(&d)));

        // tangent propagation: T_k = ∂ζ_k/∂u (R × M), Λ_k = ∂λ_k/∂u (K × M)
        let mut t_prev = SMatrix::<f64, R, M>::zeros();
        let mut t = SMatrix::<f64, R, M>::zeros();
        t.fixed_view_mut::<R, R>(0, 0).copy_from(&z);
        let mut lam = SMatrix::<f64, K, M>::zeros();
        lam.fixed_view_mut::<K, K>(0, R).copy_from(&SMatrix::<f64, K, K>::identity());
        let zero = SVector::<f64, R>::zeros();
        for k in 0..self.steps - 1 {
            let (here, next) = (&trajectory[k], &trajectory[k + 1]);
            let gh = GroupoidLift::<Hd<R>, R>::lift(gd, &here.g);
            let nh = GroupoidLift::<Hd<R>, R>::lift(gd, &next.g);
            type E<Gd, const R: usize> = ElementAt<Gd, R, Hd<R>>;
            let lc = |g: &E<Gd, R>, a: &SVector<Hd<R>, R>| LieGroupoid::<Hd<R>, R>::left_curve(gd, g, a);
            let rc = |g: &E<Gd, R>, a: &SVector<Hd<R>, R>| LieGroupoid::<Hd<R>, R>::right_curve(gd, g, a);
            // A_k = X^←(g_k(ζ))(L̂ + λ_k φ): along ζ_{k−1} (right) and ζ_k (left)
            let a_prev = mixed_derivatives(gd, lag, con, &here.lambda, &zero, |a, b| lc(&rc(&gh, &(-a)), b));
            let a_cur = mixed_derivatives(gd, lag, con, &here.lambda, &zero, |a, b| lc(&lc(&gh, a), b));
            // B_k = X^→(g_{k+1}(ζ))(L̂ + λ_{k+1} φ): along ζ_k (right) and ζ_{k+1} (left)
            let b_cur = mixed_derivatives(gd, lag, con, &next.lambda, &zero, |a, b| rc(&rc(&nh, &(-a)), b));
            let b_next = mixed_derivatives(gd, lag, con, &next.lambda, &zero, |a, b| rc(&lc(&nh, a), b));
            let jac = saddle::<R, K, M>(&(-b_next.mixed.transpose()), &(-b_next.phi_b), &b_next.phi_a);
            let rhs_top = a_prev.mixed.transpose() * t_prev
                + (a_cur.mixed.transpose() - b_cur.mixed.transpose()) * t
                + a_cur.phi_b * lam;
            let rhs_bottom = b_cur.phi_a * t;
            let lu = Lu::factor(&jac, "linearized step (tangent propagation of the shooting)")?;
            let mut t_next = SMatrix::<f64, R, M>::zeros();
            let mut lam_next = SMatrix::<f64, K, M>::zeros();
            for c in 0..M {
                let col =
                    -lu.solve(&join::<R, K, M>(&rhs_top.column(c).into_owned(), &rhs_bottom.column(c).into_owned()));
                let (dz, dl) = split::<R, K, M>(&col);
                t_next.set_column(c, &dz);
                lam_next.set_column(c, &dl);
            }
            t_prev = t;
            t = t_next;
            lam = lam_next;
        }

        // DE = [∂/∂ζ_n fibre_log(i(g) · P · e_n) T_n ; ∂φ(g_1)/∂ξ_1 δξ_1]
        let defect_d = GroupoidLift::<D1<R>, R>::lift(gd, &defect);
        let (_, d_end) = num_dual::jacobian(
            |a: SVector<D1<R>, R>| {
                LieGroupoid::<D1<R>, R>::fibre_log(gd, &LieGroupoid::<D1<R>, R>::left_curve(gd, &defect_d, &a))
            },
            &SVector::zeros(),
        )?;
        *jacobian = SMatrix::zeros();
        jacobian.fixed_view_mut::<R, M>(0, 0).copy_from(&(d_end * t));
        jacobian.fixed_view_mut::<K, R>(R, 0).copy_from(&dphi1);
        Ok(residual)
    }
}
