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
//! (a guess on such a solution is accepted with 0 iterations; a guess near one gives huge steps:
//! [`Shooting::solve`] then restarts with the minimum-norm steps of robust shooting, below, and
//! returns a member of the family with its gauge directions, [`BvpSolution::gauge`]).
//! Short nonholonomic maneuvers are ill-conditioned for the same reason (the multipliers act on the
//! path only through the rotation of the rolling axis; `σ_min(DE) ~ 1e-7` for a plate-ball run
//! over `t = 1`, `~ 0.2` over `t = 6`).
//!
//! **Robust shooting** addresses both limits. [`Shooting::solve_robust`] replaces Newton by
//! Levenberg–Marquardt with a rank-revealing (SVD) step: the minimum-norm correction
//! `δ = −Σ_{σ_i > τ} σ_i/(σ_i² + μ) (u_iᵀE) v_i`, `τ = rank_rtol · σ_max`, which solves
//! `(JᵀJ + μI)δ = −JᵀE` on the numerical range of `J = DE` (Levenberg, 1944; Marquardt, 1963;
//! the truncated-SVD pseudo-inverse for rank-deficient least squares: Golub & Van Loan,
//! *Matrix Computations*, 4th ed., 2013, §5.5). It converges where `DE` is singular at the
//! solution and reports the null directions it found ([`RobustSolution::gauge`]; the free
//! multiplier of a straight roll, the vertical-rotation symmetry of a reorientation in place),
//! with the residual history on success and failure ([`BvpError::NotConverged`]).
//! [`Shooting::solve_continuation`] walks the target from a reachable one to the requested one
//! in `k` warm-started stages. [`MultipleShooting`] takes unknowns at interior nodes with
//! continuity defects as residuals (Bock & Plitt, *A multiple shooting algorithm for direct
//! solution of optimal control problems*, 1984): each segment's sensitivity is a product of
//! fewer step tangents, so it converges from node-wise guesses where single shooting fails; its
//! Jacobian is block bidiagonal and its Levenberg–Marquardt step is a block QR sweep (memory and
//! work linear in the number of segments), with the gauge found by condensing.

use crate::constraints::{
    ConstrainedFlow, Constraints, ElementAt, Hd, SigmaPoint, check_dims, jacobian_at_zero, join, mixed_derivatives,
    saddle, solve_m, split,
};
use crate::groupoid::LieGroupoid;
use crate::lagrangian::{AdGroupoid, Arrow, DiscreteLagrangian, GroupoidLift};
use geom_core::linalg::Lu;
use geom_core::newton::{NewtonOptions, NewtonReport};
use geom_core::{GeomError, Result};
use nalgebra::{Const, DMatrix, DVector, Dyn, OMatrix, SMatrix, SVector};

mod block;
mod lm;
mod options;

use block::BlockBidiagonal;
use lm::{Blocks, DenseSvd, Linearization, levenberg_marquardt};
use num_dual::DualSVec64;
pub use options::{BvpError, MAX_DENSE_UNKNOWNS, ShootingOptions};

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
    /// The outer Newton report (after the minimum-norm fallback of [`Shooting::solve`]: its
    /// accepted steps, final residual and `criterion = Residual`).
    pub report: NewtonReport,
    /// Orthonormal null directions of `DE` at the solution (right singular vectors with
    /// `σ_i <= 1e-9 σ_max`, the default [`ShootingOptions::rank_rtol`]) in the coordinates
    /// `u = (ξ_1, λ_1)`: the gauge freedom of a solution that is a member of a continuous family
    /// (as [`RobustSolution::gauge`]). Empty for an isolated solution.
    pub gauge: Vec<DVector<f64>>,
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

    /// An empty trajectory with room for `n` arrows; [`GeomError::InvalidParameter`] (`what =
    /// "steps"`) if that cannot be allocated (e.g. `n = usize::MAX / 2`), instead of an abort.
    fn trajectory_buffer<E, const K: usize>(&self) -> Result<Vec<SigmaPoint<E, K>>> {
        try_vec(self.steps, "shooting steps n").map_err(|_| GeomError::InvalidParameter {
            what: "steps",
            reason: format!("cannot allocate a trajectory of {} arrows", self.steps),
        })
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
        let mut trajectory = self.trajectory_buffer()?;
        let mut jacobian = SMatrix::zeros();
        let residual = self.evaluate(target, u, &mut trajectory, Some(&mut jacobian))?;
        Ok((residual, jacobian))
    }

    /// Solve the boundary-value problem from the guess `(ξ_1, λ_1)` by Newton, with a
    /// minimum-norm fallback for degenerate problems. Newton (exact `DE`, LU) runs first; where
    /// it stops with [`GeomError::NotConverged`] or [`GeomError::SingularMatrix`] — as it does
    /// where the solutions form a continuous family (a gauge symmetry: `DE` is singular on the
    /// family and nearly so near it, so Newton's steps along the null direction blow up) — the
    /// solve restarts from the guess with the minimum-norm steps of [`Shooting::solve_robust`]
    /// (Levenberg–Marquardt with the truncated-SVD pseudo-inverse, [`ShootingOptions::default`]
    /// with this solver's residual tolerance): they have no component along the numerical null
    /// space, so the gauge is fixed at the guess's value as in [`MultipleShooting`], and the
    /// result is a member of the family. [`BvpSolution::gauge`] reports the null directions of
    /// `DE` at the returned solution either way (one more evaluation of `DE`).
    ///
    /// Errors: the Newton error when the fallback does not converge either (a guess outside
    /// both basins: [`MultipleShooting`] or [`Shooting::solve_continuation`] may reach it), a
    /// trajectory of `n` arrows that cannot be allocated ([`GeomError::InvalidParameter`]) and
    /// any other error of [`Shooting::residual`].
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
        let mut trajectory = self.trajectory_buffer()?;
        let mut iterates = Vec::new();
        let mut residuals = Vec::new();
        let u0 = join::<R, K, M>(xi_guess, lambda_guess);
        let mut record = |u: &SVector<f64, M>, e: &SVector<f64, M>| {
            if iterates.last() != Some(u) {
                iterates.push(*u);
                residuals.push(e.amax());
            }
        };
        let newton = solve_m(
            |u: &SVector<f64, M>, jac: Option<&mut SMatrix<f64, M, M>>| {
                let e = self.evaluate(target, u, &mut trajectory, jac)?;
                record(u, &e);
                Ok(e)
            },
            &u0,
            &self.newton,
        );
        let (u, report) = match newton {
            Ok(done) => done,
            Err(e @ (GeomError::NotConverged { .. } | GeomError::SingularMatrix { .. })) => {
                let opts = ShootingOptions { residual_tol: self.newton.residual_tol, ..ShootingOptions::default() };
                let lm = levenberg_marquardt(
                    |u| {
                        let us = SVector::<f64, M>::from_column_slice(u.as_slice());
                        let mut jac = SMatrix::<f64, M, M>::zeros();
                        let e = self.evaluate(target, &us, &mut trajectory, Some(&mut jac))?;
                        record(&us, &e);
                        Ok((DVector::from_column_slice(e.as_slice()), DenseSvd::new(dense(&jac))))
                    },
                    DVector::from_column_slice(u0.as_slice()),
                    &opts,
                );
                // the fallback's own failure says less than Newton's: report Newton's
                let Ok(out) = lm else { return Err(e) };
                let report = NewtonReport {
                    iterations: out.iterations,
                    residual: out.residual,
                    step: 0.0,
                    jacobian_updates: out.iterations + out.rejected + 1,
                    criterion: geom_core::newton::StopCriterion::Residual,
                };
                (SVector::<f64, M>::from_column_slice(out.u.as_slice()), report)
            }
            Err(e) => return Err(e),
        };
        // the step test returns x_{k+1} without evaluating it: evaluate the final trajectory,
        // with DE for the gauge directions
        let mut jac = SMatrix::<f64, M, M>::zeros();
        let e = self.evaluate(target, &u, &mut trajectory, Some(&mut jac))?;
        record(&u, &e);
        let mut svd = DenseSvd::new(dense(&jac));
        svd.prepare(report.iterations)?;
        let (gauge, _) = svd.null_space(ShootingOptions::default().rank_rtol)?;
        Ok(BvpSolution { trajectory, iterates, residuals, report, gauge })
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

// ---------------------------------------------------------------------------------------------
// Robust shooting: Levenberg–Marquardt with a rank-revealing (SVD) step, gauge directions,
// continuation in the boundary data, and multiple shooting.

/// A boundary-value problem solved by a robust shooting solver.
#[derive(Debug, Clone, PartialEq)]
pub struct RobustSolution<E, const K: usize> {
    /// The solution `(g_1, λ_1), …, (g_n, λ_n)`.
    pub trajectory: Vec<SigmaPoint<E, K>>,
    /// The shooting unknowns at the solution: `(ξ_1, λ_1)` for single shooting; for multiple
    /// shooting `(ξ_1, λ_1)` followed by `(p_j, ξ_j, λ_j)` for every interior node (see
    /// [`MultipleShooting`]).
    pub unknowns: DVector<f64>,
    /// Orthonormal null directions of the Jacobian at the solution (right singular vectors with
    /// `σ_i <= rank_rtol · σ_max`; for multiple shooting, of the condensed Jacobian, expanded to
    /// every unknown), in the coordinates of [`RobustSolution::unknowns`]: the
    /// gauge freedom of a non-isolated solution (e.g. the multiplier along the rolling axis of
    /// a straight plate-ball roll). Empty for an isolated solution.
    pub gauge: Vec<DVector<f64>>,
    /// The singular values at the solution (descending): of the Jacobian for single shooting;
    /// for [`MultipleShooting`], of the condensed `M × M` Jacobian `A_c` (the Jacobian of the
    /// first and last residual rows once the continuity rows are solved for the interior
    /// unknowns; it has the null space of the full Jacobian, see [`MultipleShooting`]).
    pub singular_values: DVector<f64>,
    /// `|E|_2` at the guess and at every accepted iterate (non-increasing: the damping rejects
    /// any trial that does not decrease it). For [`Shooting::solve_continuation`]: of the last
    /// stage.
    pub residual_history: Vec<f64>,
    /// `|E|_∞` at the solution.
    pub residual: f64,
    /// Accepted steps (for [`Shooting::solve_continuation`]: summed over the stages).
    pub iterations: usize,
    /// Rejected trial steps (damping increased).
    pub rejected: usize,
    /// Accepted steps of every continuation stage (empty unless [`Shooting::solve_continuation`]).
    pub stage_iterations: Vec<usize>,
}

/// A `Vec` with room for `n` entries, or [`BvpError::TooLarge`] (no abort on a huge `n`).
fn try_vec<T>(n: usize, what: &'static str) -> std::result::Result<Vec<T>, BvpError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| BvpError::TooLarge { what, requested: n, limit: n.saturating_sub(1) })?;
    Ok(v)
}

/// `SMatrix` → `DMatrix`.
fn dense<const A: usize, const B: usize>(m: &SMatrix<f64, A, B>) -> DMatrix<f64> {
    DMatrix::from_column_slice(A, B, m.as_slice())
}

impl<Gd, L, C, const M: usize> Shooting<Gd, L, C, M> {
    /// Solve the boundary-value problem from the guess `(ξ_1, λ_1)` by Levenberg–Marquardt with
    /// the SVD step (see [`ShootingOptions`]; the step is the minimum-norm correction
    /// `δ = −Σ_{σ_i > τ} σ_i/(σ_i² + μ) (u_iᵀE) v_i`, the solution of
    /// `(JᵀJ + μI)δ = −JᵀE` on the numerical range, `τ = rank_rtol · σ_max`). Unlike
    /// [`Shooting::solve`] it converges where `DE` is singular at the solution (a non-isolated
    /// solution: the gauge directions are reported in [`RobustSolution::gauge`]) and from guesses
    /// where bare Newton overshoots.
    ///
    /// Errors: [`BvpError::NotConverged`] with the residual history; [`BvpError::TooLarge`] when
    /// the trajectory of `n` arrows cannot be allocated (e.g. `n = usize::MAX / 2`);
    /// [`BvpError::Geom`] for invalid options, a non-finite guess, or an error at the guess
    /// (errors at trial points only reject the trial).
    pub fn solve_robust<const R: usize, const K: usize>(
        &self,
        target: &Arrow<Gd, R>,
        xi_guess: &SVector<f64, R>,
        lambda_guess: &SVector<f64, K>,
        opts: &ShootingOptions,
    ) -> std::result::Result<RobustSolution<Arrow<Gd, R>, K>, BvpError>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        check_dims::<R, K, M>();
        opts.validate()?;
        let mut trajectory = try_vec(self.steps, "shooting steps n")?;
        let u0 = join::<R, K, M>(xi_guess, lambda_guess);
        let out = levenberg_marquardt(
            |u| {
                let us = SVector::<f64, M>::from_column_slice(u.as_slice());
                let mut jac = SMatrix::<f64, M, M>::zeros();
                let e = self.evaluate(target, &us, &mut trajectory, Some(&mut jac))?;
                Ok((DVector::from_column_slice(e.as_slice()), DenseSvd::new(dense(&jac))))
            },
            DVector::from_column_slice(u0.as_slice()),
            opts,
        )?;
        let us = SVector::<f64, M>::from_column_slice(out.u.as_slice());
        let e = self.evaluate(target, &us, &mut trajectory, None)?;
        Ok(RobustSolution {
            trajectory,
            unknowns: out.u,
            gauge: out.gauge,
            singular_values: out.singular_values,
            residual_history: out.history,
            residual: e.amax().max(out.residual),
            iterations: out.iterations,
            rejected: out.rejected,
            stage_iterations: Vec::new(),
        })
    }

    /// Continuation in the boundary data: solve for the target `from` (a reachable one, e.g. the
    /// end of a trajectory run from the guess) from the guess `(ξ_1, λ_1)`, then for the targets
    ///
    /// ```text
    /// g(s_i) = from · exp_{β(from)}(s_i · fibre_log(i(from) · to)),   s_i = i / stages,  i = 1..stages,
    /// ```
    ///
    /// (a curve of arrows with the fixed source `α(from) = α(to)`, `g(1) = to`), each stage
    /// [`Shooting::solve_robust`] warm-started by the unknowns of the previous one. Returns the
    /// solution for `to`, with the accepted steps of every stage (stage 0 = `from`) in
    /// [`RobustSolution::stage_iterations`] and their sum in `iterations`. Errors: those of
    /// [`Shooting::solve_robust`] at the first failing stage; [`GeomError::InvalidParameter`] for
    /// `stages = 0`; an undefined `fibre_log(i(from) · to)`.
    pub fn solve_continuation<const R: usize, const K: usize>(
        &self,
        from: &Arrow<Gd, R>,
        to: &Arrow<Gd, R>,
        xi_guess: &SVector<f64, R>,
        lambda_guess: &SVector<f64, K>,
        stages: usize,
        opts: &ShootingOptions,
    ) -> std::result::Result<RobustSolution<Arrow<Gd, R>, K>, BvpError>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        if stages == 0 {
            return Err(GeomError::InvalidParameter { what: "stages", reason: "need at least 1".into() }.into());
        }
        let gd = self.flow.groupoid();
        let step = LieGroupoid::<f64, R>::fibre_log(
            gd,
            &LieGroupoid::<f64, R>::multiply(gd, &LieGroupoid::<f64, R>::inverse(gd, from), to),
        )?;
        let mut sol = self.solve_robust(from, xi_guess, lambda_guess, opts)?;
        let mut counts = vec![sol.iterations];
        let mut total = sol.iterations;
        let mut rejected = sol.rejected;
        for i in 1..=stages {
            let s = i as f64 / stages as f64;
            let target = LieGroupoid::<f64, R>::left_curve(gd, from, &(step * s));
            let (xi, lambda) = split::<R, K, M>(&SVector::<f64, M>::from_column_slice(sol.unknowns.as_slice()));
            sol = self.solve_robust(&target, &xi, &lambda, opts)?;
            counts.push(sol.iterations);
            total += sol.iterations;
            rejected += sol.rejected;
        }
        sol.iterations = total;
        sol.rejected = rejected;
        sol.stage_iterations = counts;
        Ok(sol)
    }
}

/// Tangent matrices `∂ζ_k/∂U` (`A = R`) and `∂λ_k/∂U` (`A = K`) of a segment with `D` unknowns.
type Tan<const A: usize> = OMatrix<f64, Const<A>, Dyn>;
/// First-order duals of the chart derivatives.
type D1<const R: usize> = DualSVec64<R>;

/// `∂/∂a fibre_log(f(a))` at `a = 0` (forward AD).
fn log_jacobian<Gd: AdGroupoid<R>, const R: usize>(
    gd: &Gd,
    f: impl Fn(&SVector<D1<R>, R>) -> ElementAt<Gd, R, D1<R>>,
) -> Result<SMatrix<f64, R, R>> {
    let (_, j) = num_dual::jacobian(
        |a: SVector<D1<R>, R>| LieGroupoid::<D1<R>, R>::fibre_log(gd, &f(&a)),
        &SVector::<f64, R>::zeros(),
    )?;
    Ok(j)
}

/// One step of the tangent propagation of the module documentation: from `T_{k−1}`, `T_k`,
/// `Λ_k` at the pair `(g_k, λ_k)`, `(g_{k+1}, λ_{k+1})` to `T_{k+1}`, `Λ_{k+1}` (any number of
/// columns).
fn tangent_step<Gd, L, C, const R: usize, const K: usize, const M: usize>(
    flow: &ConstrainedFlow<Gd, L, C, M>,
    here: &SigmaPoint<Arrow<Gd, R>, K>,
    next: &SigmaPoint<Arrow<Gd, R>, K>,
    t_prev: &Tan<R>,
    t: &Tan<R>,
    lam: &Tan<K>,
) -> Result<(Tan<R>, Tan<K>)>
where
    Gd: AdGroupoid<R>,
    L: DiscreteLagrangian<Gd, R>,
    C: Constraints<Gd, R, K>,
{
    let gd = flow.groupoid();
    let (lag, con) = (flow.lagrangian(), flow.constraints());
    let zero = SVector::<f64, R>::zeros();
    let gh = GroupoidLift::<Hd<R>, R>::lift(gd, &here.g);
    let nh = GroupoidLift::<Hd<R>, R>::lift(gd, &next.g);
    type E<Gd, const R: usize> = ElementAt<Gd, R, Hd<R>>;
    let lc = |g: &E<Gd, R>, a: &SVector<Hd<R>, R>| LieGroupoid::<Hd<R>, R>::left_curve(gd, g, a);
    let rc = |g: &E<Gd, R>, a: &SVector<Hd<R>, R>| LieGroupoid::<Hd<R>, R>::right_curve(gd, g, a);
    let a_prev = mixed_derivatives(gd, lag, con, &here.lambda, &zero, |a, b| lc(&rc(&gh, &(-a)), b));
    let a_cur = mixed_derivatives(gd, lag, con, &here.lambda, &zero, |a, b| lc(&lc(&gh, a), b));
    let b_cur = mixed_derivatives(gd, lag, con, &next.lambda, &zero, |a, b| rc(&rc(&nh, &(-a)), b));
    let b_next = mixed_derivatives(gd, lag, con, &next.lambda, &zero, |a, b| rc(&lc(&nh, a), b));
    let jac = saddle::<R, K, M>(&(-b_next.mixed.transpose()), &(-b_next.phi_b), &b_next.phi_a);
    let rhs_top =
        a_prev.mixed.transpose() * t_prev + (a_cur.mixed.transpose() - b_cur.mixed.transpose()) * t + a_cur.phi_b * lam;
    let rhs_bottom = b_cur.phi_a * t;
    let lu = Lu::factor(&jac, "linearized step (tangent propagation of the shooting)")?;
    let width = t.ncols();
    let mut t_next = Tan::<R>::zeros(width);
    let mut lam_next = Tan::<K>::zeros(width);
    for c in 0..width {
        let col = -lu.solve(&join::<R, K, M>(&rhs_top.column(c).into_owned(), &rhs_bottom.column(c).into_owned()));
        let (dz, dl) = split::<R, K, M>(&col);
        t_next.set_column(c, &dz);
        lam_next.set_column(c, &dl);
    }
    Ok((t_next, lam_next))
}

/// Multiple shooting for the fixed-endpoint problem of a [`ConstrainedFlow`] over `n` steps,
/// with `S` segments starting at the arrows `m_j = ⌊j n / S⌋`, `j = 0..S` (`m_S = n`).
///
/// **Unknowns.** Segment 0 starts as single shooting, `U_0 = (ξ_1, λ_1) ∈ R^M`,
/// `g_1 = exp_{α(g)}(ξ_1)`. Segment `j ≥ 1` has `U_j = (p_j, ξ_j, λ_j) ∈ R^{R+M}`: the product
/// of the arrows before it, `P_j = P̄_j · exp_{β(P̄_j)}(p_j)` (an arrow from `α(g)`, in the chart
/// at the reference `P̄_j` = the product of the guess arrows `g_1 ⋯ g_{m_j}`: on a pair groupoid
/// it carries the node position, on a Lie group the accumulated group element), its first
/// arrow `g_{m_j+1} = exp_{β(P_j)}(ξ_j)` and multipliers `λ_{m_j+1} = λ_j`. Each segment is run by
/// the flow independently, giving `P̂_{j+1} = P_j · g_{m_j+1} ⋯ g_{m_{j+1}}` and one more step
/// `(ĝ, λ̂)`.
///
/// **Residual** (`n_u = M + (S−1)(R+M)` equations in as many unknowns):
///
/// ```text
/// φ(g_1) = 0                                                     (K)
/// fibre_log(i(P̂_j) · P_j) = 0,  ξ_j − fibre_log(ĝ_j) = 0,  λ_j − λ̂_j = 0    (R + R + K, j = 1..S−1)
/// fibre_log(i(g) · P̂_S) = 0                                      (R)
/// ```
///
/// (continuity of the accumulated product, of the next arrow and of the multipliers; the
/// constraints `φ = 0` of the other arrows hold by the flow and by continuity). The Jacobian is
/// exact (the tangent propagation of the module documentation run per segment, seeded at
/// `ζ_0 = ∂/∂p fibre_log(i(P_j) P̄_j exp(p_j + ·))`) and block bidiagonal: the continuity rows of
/// node `j` touch `U_{j−1}` and `U_j` only. Each segment's sensitivity is a product of at most
/// `⌈n/S⌉` step tangents instead of `n`, which is what lets multiple shooting converge where
/// single shooting from the same guess overshoots.
///
/// **Linear algebra** (no dense `n_u × n_u` matrix). The Levenberg step
/// `δ = argmin |E + Jδ|² + μ̃|δ|²`, `μ̃ = max(μ, (rank_rtol σ_max)²)` (`σ_max` by power
/// iteration), is taken by a block Householder QR sweep of `[J; √μ̃ I]` along the segments
/// (Björck, *Numerical Methods for Least Squares Problems*, 1996, §6.3): `O(S (R+M)³)` work and
/// `O(S (R+M)²)` memory, stable (the normal equations are never formed). With `μ = 0` the floor
/// `μ̃ = τ²`, `τ = rank_rtol σ_max`, regularizes the Gauss–Newton step where `J` is rank
/// deficient: components along singular values `σ_i ≫ τ` are the Gauss–Newton ones, those with
/// `σ_i ≲ τ` are damped to `σ_i/τ²` (single shooting truncates them with a dense SVD instead).
/// At the solution the null space is found by **condensing** (Bock & Plitt, 1984): the
/// continuity blocks `D_j = diag(∂_p fibre_log(…), I, I)` are invertible, so `Jδ = 0` forces
/// `δ_j = Φ_j δ_0`, `Φ_j = −D_j^{-1} C_j Φ_{j−1}`, and the gauge directions are the null vectors
/// `v` of the `M × M` condensed matrix `A_c = [Dφ(g_1); J_B Φ_{S−1}]`, expanded to
/// `(v, Φ_1 v, …)` and orthonormalized ([`RobustSolution::singular_values`] are those of `A_c`).
/// Allocations proportional to `n`: the trajectory (`n` arrows) and the `S − 1` Jacobian
/// blocks, both reserved fallibly ([`BvpError::TooLarge`] instead of an abort).
#[derive(Debug, Clone)]
pub struct MultipleShooting<Gd, L, C, const M: usize> {
    flow: ConstrainedFlow<Gd, L, C, M>,
    steps: usize,
    segments: usize,
}

impl<Gd, L, C, const M: usize> MultipleShooting<Gd, L, C, M> {
    /// Multiple shooting over `steps = n >= 2` arrows in `1 <= segments <= n` segments
    /// (else [`GeomError::InvalidParameter`]); [`BvpError::TooLarge`] when the block Jacobian
    /// (`S` blocks of at least `2M²` entries) could not even be addressed (`16 S M²` bytes above
    /// `isize::MAX`). `segments = 1` is single shooting.
    pub fn new(
        flow: ConstrainedFlow<Gd, L, C, M>,
        steps: usize,
        segments: usize,
    ) -> std::result::Result<Self, BvpError> {
        if steps < 2 {
            return Err(
                GeomError::InvalidParameter { what: "steps", reason: format!("need at least 2, got {steps}") }.into()
            );
        }
        if segments == 0 || segments > steps {
            return Err(GeomError::InvalidParameter {
                what: "segments",
                reason: format!("need 1 <= segments <= steps = {steps}, got {segments}"),
            }
            .into());
        }
        let per_segment = 16 * M.max(1) * M.max(1);
        let limit = isize::MAX as usize / per_segment;
        if segments > limit {
            return Err(BvpError::TooLarge { what: "multiple-shooting segments", requested: segments, limit });
        }
        Ok(Self { flow, steps, segments })
    }
    /// The underlying flow.
    pub fn flow(&self) -> &ConstrainedFlow<Gd, L, C, M> {
        &self.flow
    }
    /// The number of arrows `n`.
    pub fn steps(&self) -> usize {
        self.steps
    }
    /// The number of segments `S`.
    pub fn segments(&self) -> usize {
        self.segments
    }
    /// `m_j = ⌊j n / S⌋`: segment `j` holds the arrows `g_{m_j+1}, …, g_{m_{j+1}}` (0-based
    /// indices `m_j..m_{j+1}` of the trajectory).
    pub fn node(&self, j: usize) -> usize {
        (j as u128 * self.steps as u128 / self.segments as u128) as usize
    }
    /// The number of unknowns `M + (S−1)(R+M)`, or [`BvpError::TooLarge`] if it overflows.
    pub fn unknowns<const R: usize>(&self) -> std::result::Result<usize, BvpError> {
        (self.segments - 1).checked_mul(R + M).and_then(|v| v.checked_add(M)).ok_or(BvpError::TooLarge {
            what: "multiple-shooting unknowns",
            requested: usize::MAX,
            limit: usize::MAX - 1,
        })
    }

    /// Zero blocks of the Jacobian, allocated fallibly.
    fn blocks<const R: usize, const K: usize>(&self) -> std::result::Result<BlockBidiagonal, BvpError> {
        BlockBidiagonal::zeros(R, K, self.segments).ok_or(BvpError::TooLarge {
            what: "multiple-shooting Jacobian blocks",
            requested: self.segments,
            limit: self.segments.saturating_sub(1),
        })
    }

    /// The reference products `P̄_j` (`j = 1..S−1`) and the initial unknowns from a guess
    /// trajectory of `n` arrows (composable, else [`GeomError::OffManifold`]).
    fn initial<const R: usize, const K: usize>(
        &self,
        guess: &[SigmaPoint<Arrow<Gd, R>, K>],
    ) -> std::result::Result<(Vec<Arrow<Gd, R>>, DVector<f64>), BvpError>
    where
        Gd: AdGroupoid<R>,
    {
        check_dims::<R, K, M>();
        let n = self.unknowns::<R>()?;
        if guess.len() != self.steps {
            return Err(GeomError::DimensionMismatch {
                what: "multiple-shooting guess trajectory",
                expected: self.steps,
                got: guess.len(),
            }
            .into());
        }
        let gd = self.flow.groupoid();
        let mut refs = Vec::with_capacity(self.segments - 1);
        let mut u = DVector::zeros(n);
        let xi0 = LieGroupoid::<f64, R>::fibre_log(gd, &guess[0].g)?;
        u.rows_mut(0, R).copy_from(&xi0);
        u.rows_mut(R, K).copy_from(&guess[0].lambda);
        let mut product = guess[0].g.clone();
        let mut k = 1;
        for j in 1..self.segments {
            let m = self.node(j);
            while k < m {
                product = LieGroupoid::<f64, R>::compose(gd, &product, &guess[k].g)?;
                k += 1;
            }
            let col = M + (j - 1) * (R + M);
            u.rows_mut(col + R, R).copy_from(&LieGroupoid::<f64, R>::fibre_log(gd, &guess[m].g)?);
            u.rows_mut(col + 2 * R, K).copy_from(&guess[m].lambda);
            refs.push(product.clone());
        }
        Ok((refs, u))
    }

    /// The residual and its exact Jacobian, as a dense matrix, at the unknowns of the guess
    /// trajectory (struct documentation; rows and columns in the order stated there): a checking
    /// aid, [`BvpError::TooLarge`] above [`MAX_DENSE_UNKNOWNS`] unknowns. Other errors as
    /// [`MultipleShooting::solve`].
    pub fn residual<const R: usize, const K: usize>(
        &self,
        target: &Arrow<Gd, R>,
        guess: &[SigmaPoint<Arrow<Gd, R>, K>],
    ) -> std::result::Result<(DVector<f64>, DMatrix<f64>), BvpError>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        let (refs, u) = self.initial(guess)?;
        if u.len() > MAX_DENSE_UNKNOWNS {
            return Err(BvpError::TooLarge {
                what: "dense multiple-shooting Jacobian",
                requested: u.len(),
                limit: MAX_DENSE_UNKNOWNS,
            });
        }
        let mut trajectory = try_vec(self.steps, "shooting steps n")?;
        let mut jac = self.blocks::<R, K>()?;
        let e = self.evaluate(target, &refs, &u, &mut trajectory, Some(&mut jac))?;
        Ok((e, jac.to_dense()))
    }

    /// The residual of `u` perturbed by `du`, at the reference products of `guess` (for
    /// checking the Jacobian of [`MultipleShooting::residual`] by differences).
    pub fn residual_at<const R: usize, const K: usize>(
        &self,
        target: &Arrow<Gd, R>,
        guess: &[SigmaPoint<Arrow<Gd, R>, K>],
        du: &DVector<f64>,
    ) -> std::result::Result<DVector<f64>, BvpError>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        let (refs, u) = self.initial(guess)?;
        if du.len() != u.len() {
            return Err(GeomError::DimensionMismatch { what: "perturbation", expected: u.len(), got: du.len() }.into());
        }
        let mut trajectory = try_vec(self.steps, "shooting steps n")?;
        Ok(self.evaluate(target, &refs, &(u + du), &mut trajectory, None)?)
    }

    /// Solve the boundary-value problem from a guess trajectory `(g_1, λ_1), …, (g_n, λ_n)`
    /// (composable arrows; it need not satisfy the dynamics or the constraints): the unknowns
    /// start at the guess values at the segment starts. Levenberg–Marquardt as
    /// [`Shooting::solve_robust`] with the block step of the struct documentation; the gauge
    /// directions are in the coordinates `U` (struct documentation).
    ///
    /// Errors: [`BvpError::TooLarge`] (the `n` arrows or the `S − 1` Jacobian blocks cannot be
    /// allocated); [`GeomError::DimensionMismatch`] if `guess.len() != n`; the errors of
    /// [`Shooting::solve_robust`].
    pub fn solve<const R: usize, const K: usize>(
        &self,
        target: &Arrow<Gd, R>,
        guess: &[SigmaPoint<Arrow<Gd, R>, K>],
        opts: &ShootingOptions,
    ) -> std::result::Result<RobustSolution<Arrow<Gd, R>, K>, BvpError>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        opts.validate()?;
        let (refs, u0) = self.initial(guess)?;
        let mut trajectory = try_vec(self.steps, "shooting steps n")?;
        let template = self.blocks::<R, K>()?;
        let out = levenberg_marquardt(
            |u| {
                let mut jac = template.clone();
                let e = self.evaluate(target, &refs, u, &mut trajectory, Some(&mut jac))?;
                Ok((e, Blocks::new(jac)))
            },
            u0,
            opts,
        )?;
        let e = self.evaluate(target, &refs, &out.u, &mut trajectory, None)?;
        Ok(RobustSolution {
            trajectory,
            unknowns: out.u,
            gauge: out.gauge,
            singular_values: out.singular_values,
            residual_history: out.history,
            residual: e.amax().max(out.residual),
            iterations: out.iterations,
            rejected: out.rejected,
            stage_iterations: Vec::new(),
        })
    }

    /// Run every segment from `u` into `trajectory`, return the residual and write the Jacobian
    /// into `jacobian` if asked (struct documentation).
    fn evaluate<const R: usize, const K: usize>(
        &self,
        target: &Arrow<Gd, R>,
        refs: &[Arrow<Gd, R>],
        u: &DVector<f64>,
        trajectory: &mut Vec<SigmaPoint<Arrow<Gd, R>, K>>,
        mut jacobian: Option<&mut BlockBidiagonal>,
    ) -> Result<DVector<f64>>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
        C: Constraints<Gd, R, K>,
    {
        check_dims::<R, K, M>();
        let gd = self.flow.groupoid();
        let con = self.flow.constraints();
        let nu = u.len();
        if let Some(j) = jacobian.as_deref_mut() {
            j.clear();
        }
        let x0 = LieGroupoid::<f64, R>::source(gd, target);
        let mut res = DVector::zeros(nu);
        let vec_r = |off: usize| SVector::<f64, R>::from_fn(|i, _| u[off + i]);
        let vec_k = |off: usize| SVector::<f64, K>::from_fn(|i, _| u[off + i]);
        // the product P_j of node j (j >= 1) at the unknowns
        let node_product = |j: usize| {
            let col = M + (j - 1) * (R + M);
            LieGroupoid::<f64, R>::left_curve(gd, &refs[j - 1], &vec_r(col))
        };
        trajectory.clear();
        // P̂_j from the previous segment
        let mut prev_hat: Option<Arrow<Gd, R>> = None;
        for j in 0..self.segments {
            let (start, end) = (self.node(j), self.node(j + 1));
            let (col, width) = if j == 0 { (0, M) } else { (M + (j - 1) * (R + M), R + M) };
            let (pj, xi, lambda) = if j == 0 {
                (LieGroupoid::<f64, R>::identity(gd, &x0), vec_r(0), vec_k(R))
            } else {
                (node_product(j), vec_r(col + R), vec_k(col + 2 * R))
            };
            let x = LieGroupoid::<f64, R>::target(gd, &pj);
            let g = LieGroupoid::<f64, R>::fibre_exp(gd, &x, &xi);
            trajectory.push(SigmaPoint::new(g.clone(), lambda));
            for k in start + 1..end {
                let (next, _) = self.flow.step_unchecked(&trajectory[k - 1], None)?;
                trajectory.push(next);
            }
            let hat = if j + 1 < self.segments {
                Some(self.flow.step_unchecked(&trajectory[end - 1], None)?.0)
            } else {
                None
            };
            let phat = trajectory[start..end]
                .iter()
                .fold(pj.clone(), |acc, p| LieGroupoid::<f64, R>::multiply(gd, &acc, &p.g));
            if j == 0 {
                res.rows_mut(0, K).copy_from(&con.eval::<f64>(gd, &g));
            }
            // the rows of node j+1 (continuity) or the end rows
            let row = K + j * (R + M);
            let next_p = hat.as_ref().map(|_| node_product(j + 1));
            let link = match (&hat, &next_p) {
                (Some(h), Some(p_next)) => {
                    let ncol = M + j * (R + M);
                    let d = LieGroupoid::<f64, R>::multiply(gd, &LieGroupoid::<f64, R>::inverse(gd, &phat), p_next);
                    res.rows_mut(row, R).copy_from(&LieGroupoid::<f64, R>::fibre_log(gd, &d)?);
                    res.rows_mut(row + R, R)
                        .copy_from(&(vec_r(ncol + R) - LieGroupoid::<f64, R>::fibre_log(gd, &h.g)?));
                    res.rows_mut(row + 2 * R, K).copy_from(&(vec_k(ncol + 2 * R) - h.lambda));
                    Some(d)
                }
                _ => {
                    let defect =
                        LieGroupoid::<f64, R>::multiply(gd, &LieGroupoid::<f64, R>::inverse(gd, target), &phat);
                    res.rows_mut(row, R).copy_from(&LieGroupoid::<f64, R>::fibre_log(gd, &defect)?);
                    None
                }
            };
            let Some(jac) = jacobian.as_deref_mut() else {
                prev_hat = Some(phat);
                continue;
            };

            // seeds
            let xd = GroupoidLift::<D1<R>, R>::lift_base(gd, &x);
            let g_inv = GroupoidLift::<D1<R>, R>::lift(gd, &LieGroupoid::<f64, R>::inverse(gd, &g));
            let xid = xi.map(D1::<R>::from);
            let z = log_jacobian(gd, |d| {
                LieGroupoid::<D1<R>, R>::multiply(gd, &g_inv, &LieGroupoid::<D1<R>, R>::fibre_exp(gd, &xd, &(xid + d)))
            })?;
            let mut t_prev = Tan::<R>::zeros(width);
            let mut t = Tan::<R>::zeros(width);
            let mut lam = Tan::<K>::zeros(width);
            if j == 0 {
                t.fixed_view_mut::<R, R>(0, 0).copy_from(&z);
                lam.fixed_view_mut::<K, K>(0, R).copy_from(&SMatrix::<f64, K, K>::identity());
                let x0d = xd.clone();
                let dphi1 = jacobian_at_zero(|d: SVector<D1<R>, R>| {
                    con.eval::<D1<R>>(gd, &LieGroupoid::<D1<R>, R>::fibre_exp(gd, &x0d, &(xid + d)))
                });
                jac.top.view_mut((0, 0), (K, R)).copy_from(&dphi1);
            } else {
                // ζ_0 = Zp δp, with P_j(p + δp) = P_j · exp(ζ_0)
                let pbar = GroupoidLift::<D1<R>, R>::lift(gd, &refs[j - 1]);
                let pj_inv = GroupoidLift::<D1<R>, R>::lift(gd, &LieGroupoid::<f64, R>::inverse(gd, &pj));
                let pd = vec_r(col).map(D1::<R>::from);
                let zp = log_jacobian(gd, |d| {
                    LieGroupoid::<D1<R>, R>::multiply(
                        gd,
                        &pj_inv,
                        &LieGroupoid::<D1<R>, R>::left_curve(gd, &pbar, &(pd + d)),
                    )
                })?;
                // ζ_1 along ζ_0 (δξ = 0): e_1 = i(g) · e_0 · exp_{β(e_0)}(ξ)
                let a0 = log_jacobian(gd, |a| {
                    let e0 = LieGroupoid::<D1<R>, R>::fibre_exp(gd, &xd, a);
                    let moved = LieGroupoid::<D1<R>, R>::fibre_exp(gd, &LieGroupoid::<D1<R>, R>::target(gd, &e0), &xid);
                    LieGroupoid::<D1<R>, R>::multiply(gd, &g_inv, &LieGroupoid::<D1<R>, R>::multiply(gd, &e0, &moved))
                })?;
                t_prev.fixed_view_mut::<R, R>(0, 0).copy_from(&zp);
                t.fixed_view_mut::<R, R>(0, 0).copy_from(&(a0 * zp));
                t.fixed_view_mut::<R, R>(0, R).copy_from(&z);
                lam.fixed_view_mut::<K, K>(0, 2 * R).copy_from(&SMatrix::<f64, K, K>::identity());
                // node j rows: columns of U_j
                // set by segment j − 1 (segments run in order)
                let prev = prev_hat.as_ref().ok_or(GeomError::NonFinite { what: "product of the previous segment" })?;
                let d = GroupoidLift::<D1<R>, R>::lift(
                    gd,
                    &LieGroupoid::<f64, R>::multiply(gd, &LieGroupoid::<f64, R>::inverse(gd, prev), &pj),
                );
                let pb = log_jacobian(gd, |b| LieGroupoid::<D1<R>, R>::left_curve(gd, &d, b))?;
                let dj = &mut jac.nodes[j - 1].1;
                dj.view_mut((0, 0), (R, R)).copy_from(&(pb * zp));
                dj.view_mut((R, R), (R, R)).copy_from(&SMatrix::<f64, R, R>::identity());
                dj.view_mut((2 * R, 2 * R), (K, K)).copy_from(&SMatrix::<f64, K, K>::identity());
            }
            // propagate to the last arrow of the segment
            for k in start..end - 1 {
                let (tn, ln) = tangent_step(&self.flow, &trajectory[k], &trajectory[k + 1], &t_prev, &t, &lam)?;
                t_prev = std::mem::replace(&mut t, tn);
                lam = ln;
            }
            match (&hat, &link) {
                (Some(h), Some(d)) => {
                    let (t_hat, lam_hat) = tangent_step(&self.flow, &trajectory[end - 1], h, &t_prev, &t, &lam)?;
                    let dd = GroupoidLift::<D1<R>, R>::lift(gd, d);
                    let pa = log_jacobian(gd, |a| LieGroupoid::<D1<R>, R>::right_curve(gd, &dd, &(-a)))?;
                    let hd = GroupoidLift::<D1<R>, R>::lift(gd, &h.g);
                    let ga = log_jacobian(gd, |a| LieGroupoid::<D1<R>, R>::right_curve(gd, &hd, &(-a)))?;
                    let gb = log_jacobian(gd, |b| LieGroupoid::<D1<R>, R>::left_curve(gd, &hd, b))?;
                    let cj = &mut jac.nodes[j].0;
                    cj.view_mut((0, 0), (R, width)).copy_from(&(pa * &t));
                    cj.view_mut((R, 0), (R, width)).copy_from(&(-(ga * &t + gb * &t_hat)));
                    cj.view_mut((2 * R, 0), (K, width)).copy_from(&(-lam_hat));
                }
                _ => {
                    let defect =
                        LieGroupoid::<f64, R>::multiply(gd, &LieGroupoid::<f64, R>::inverse(gd, target), &phat);
                    let dd = GroupoidLift::<D1<R>, R>::lift(gd, &defect);
                    let d_end = log_jacobian(gd, |a| LieGroupoid::<D1<R>, R>::left_curve(gd, &dd, a))?;
                    jac.end.view_mut((0, 0), (R, width)).copy_from(&(d_end * &t));
                }
            }
            prev_hat = Some(phat);
        }
        Ok(res)
    }
}
