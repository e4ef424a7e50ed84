//! The iteration every solver shares: the spaces it runs in, the loop and its convergence
//! monitor (module documentation of [`super`]).

use super::options::{
    FROZEN_REFRESH_THETA, JACOBIAN, JacobianUpdate, NewtonOptions, NewtonReport, POLISH_FLOOR, ROUNDOFF_FACTOR,
    StopCriterion,
};
use crate::linalg::{BlockLu, BlockMatrix, BlockVector, Lu};
use crate::{GeomError, Result};
use nalgebra::{SMatrix, SVector};

/// The linear algebra of one Newton iteration, so that the fixed-size and the block solvers run
/// one and the same loop.
pub(super) trait Space {
    type Vec: Copy;
    type Jac: Copy;
    type Factor: Copy;
    /// Storage for a factorization (contents meaningless until [`Space::refactor`]).
    fn empty_factor() -> Self::Factor;
    fn zero_jac() -> Self::Jac;
    /// `(every entry finite, max |v_i|)` in one branch-free pass.
    fn scan(v: &Self::Vec) -> (bool, f64);
    /// Factor `j` into `lu`, in place (no copy of the factorization through a `Result`).
    fn refactor(lu: &mut Self::Factor, j: &Self::Jac) -> Result<()>;
    /// `dx = -J^{-1} F`.
    fn step(lu: &Self::Factor, fx: &Self::Vec) -> Self::Vec;
    fn add(x: &mut Self::Vec, dx: &Self::Vec);
}

pub(super) struct Fixed<const N: usize>;
impl<const N: usize> Space for Fixed<N> {
    type Vec = SVector<f64, N>;
    type Jac = SMatrix<f64, N, N>;
    type Factor = Lu<f64, N>;
    #[inline]
    fn zero_jac() -> Self::Jac {
        SMatrix::zeros()
    }
    #[inline]
    fn scan(v: &Self::Vec) -> (bool, f64) {
        let (zero, max) = scan_slice(v.as_slice(), (0.0, 0.0));
        (zero == 0.0, max)
    }
    #[inline]
    fn empty_factor() -> Self::Factor {
        Lu::empty()
    }
    #[inline(always)]
    fn refactor(lu: &mut Self::Factor, j: &Self::Jac) -> Result<()> {
        lu.refactor(j, JACOBIAN)
    }
    #[inline]
    fn step(lu: &Self::Factor, fx: &Self::Vec) -> Self::Vec {
        -lu.solve(fx)
    }
    #[inline]
    fn add(x: &mut Self::Vec, dx: &Self::Vec) {
        *x += dx;
    }
}

pub(super) struct Blocks<const N: usize, const B: usize>;
impl<const N: usize, const B: usize> Space for Blocks<N, B> {
    type Vec = BlockVector<f64, N, B>;
    type Jac = BlockMatrix<f64, N, B>;
    type Factor = BlockLu<f64, N, B>;
    #[inline]
    fn zero_jac() -> Self::Jac {
        [[SMatrix::zeros(); B]; B]
    }
    #[inline]
    fn scan(v: &Self::Vec) -> (bool, f64) {
        let (zero, max) = v.iter().fold((0.0, 0.0), |acc, b| scan_slice(b.as_slice(), acc));
        (zero == 0.0, max)
    }
    #[inline]
    fn empty_factor() -> Self::Factor {
        BlockLu::empty()
    }
    #[inline(always)]
    fn refactor(lu: &mut Self::Factor, j: &Self::Jac) -> Result<()> {
        lu.refactor(j, JACOBIAN)
    }
    #[inline]
    fn step(lu: &Self::Factor, fx: &Self::Vec) -> Self::Vec {
        let mut dx = lu.solve(fx);
        for b in dx.iter_mut() {
            *b = -*b;
        }
        dx
    }
    #[inline]
    fn add(x: &mut Self::Vec, dx: &Self::Vec) {
        for (a, b) in x.iter_mut().zip(dx) {
            *a += b;
        }
    }
}

/// Accumulate `(Σ 0·v_i, max |v_i|)` over `v` (the first is `0` iff every entry is finite).
#[inline(always)]
pub(super) fn scan_slice(v: &[f64], (zero, max): (f64, f64)) -> (f64, f64) {
    v.iter().fold((zero, max), |(z, m), x| {
        let a = x.abs();
        (z + 0.0 * x, if a > m { a } else { m })
    })
}

/// The one Newton loop. `eval(x, Some(jac))` returns `F(x)` and writes `J(x)`; with a separate
/// `late_jacobian`, `eval` is always called without a Jacobian and `late_jacobian(x, jac)` only
/// after `x` has failed the residual test ([`newton_split`]).
#[inline]
pub(super) fn newton_loop<Sp: Space>(
    eval: impl FnMut(&Sp::Vec, Option<&mut Sp::Jac>) -> Result<Sp::Vec>,
    late_jacobian: Option<impl FnMut(&Sp::Vec, &mut Sp::Jac) -> Result<()>>,
    x0: &Sp::Vec,
    opts: &NewtonOptions,
) -> Result<(Sp::Vec, NewtonReport)> {
    let mut factored = false;
    newton_loop_from::<Sp>(eval, late_jacobian, x0, opts, &mut Sp::empty_factor(), &mut factored)
}

/// [`newton_loop`] from the factorization `lu` when `factored` (a Jacobian carried over from an
/// earlier solve, used as a frozen one); on return `lu` and `factored` hold the last one.
/// Always inlined: every solver is this loop with its own `eval`, and the factorization and the
/// flag must live in registers and on the caller's stack, not behind the references.
#[inline(always)]
pub(super) fn newton_loop_from<Sp: Space>(
    mut eval: impl FnMut(&Sp::Vec, Option<&mut Sp::Jac>) -> Result<Sp::Vec>,
    mut late_jacobian: Option<impl FnMut(&Sp::Vec, &mut Sp::Jac) -> Result<()>>,
    x0: &Sp::Vec,
    opts: &NewtonOptions,
    lu: &mut Sp::Factor,
    factored: &mut bool,
) -> Result<(Sp::Vec, NewtonReport)> {
    opts.validate()?;
    if !Sp::scan(x0).0 {
        return Err(GeomError::NonFinite { what: "Newton initial guess" });
    }
    let mut x = *x0;
    let mut jac = Sp::zero_jac();
    let mut monitor = Monitor::new(opts);
    let mut k = 0;
    loop {
        // No Jacobian at the last allowed evaluation: no step follows it.
        let want = k < opts.max_iterations && monitor.wants_jacobian(!*factored);
        let fx = eval(&x, if want && late_jacobian.is_none() { Some(&mut jac) } else { None })?;
        let (finite, r) = Sp::scan(&fx);
        if !finite {
            return Err(GeomError::NonFinite { what: "Newton residual" });
        }
        let accepted = match monitor.residual_test(k, r) {
            Some(done) => Some(done?),
            None => None,
        };
        // Accepted at the warm start with polishing on: factor the Jacobian at x (already
        // evaluated with the residual, or now by the separate Jacobian) for the one correction,
        // as a step would. One call site for the Jacobian and the factorization, so that both
        // inline into the caller.
        let polish_here = accepted.is_some() && opts.polish && !*factored && want;
        if want && (accepted.is_none() || polish_here) {
            let ready = match late_jacobian.as_mut() {
                Some(late) => late(&x, &mut jac),
                None => Ok(()),
            }
            .and_then(|()| Sp::refactor(lu, &jac));
            match ready {
                Ok(()) => {
                    *factored = true;
                    if accepted.is_none() {
                        monitor.jacobian_updates += 1;
                    }
                }
                // no polishing without a Jacobian: the accepted iterate stands
                Err(_) if accepted.is_some() => {}
                Err(e) => return Err(at_iteration(e, k)),
            }
        }
        if let Some(report) = accepted {
            if opts.polish && *factored && !monitor.polish_negligible(r, Sp::scan(&x).1) {
                let dx = Sp::step(lu, &fx);
                let mut polished = x;
                Sp::add(&mut polished, &dx);
                if Sp::scan(&polished).0 {
                    return Ok((polished, report));
                }
            }
            return Ok((x, report));
        }
        // `want` holds whenever nothing is factored yet, so the error arm is never taken.
        if !*factored {
            return Err(GeomError::SingularMatrix { what: JACOBIAN, iteration: k });
        }
        let dx = Sp::step(lu, &fx);
        Sp::add(&mut x, &dx);
        let (finite, x_norm) = Sp::scan(&x);
        if !finite {
            return Err(GeomError::NonFinite { what: "Newton iterate" });
        }
        k += 1;
        if let Some(report) = monitor.step_test(k, r, Sp::scan(&dx).1, x_norm) {
            return Ok((x, report));
        }
    }
}

/// The convergence bookkeeping shared by the fixed-size and the dynamic loops, so that both apply
/// exactly the tests of the module documentation.
pub(super) struct Monitor<'a> {
    pub(super) opts: &'a NewtonOptions,
    /// `|dx_{k-1}|`, `None` before the first step.
    pub(super) previous_step: Option<f64>,
    /// `|dx|` of the last step (0 before the first).
    pub(super) step: f64,
    /// `|F(x_{k-1})|` at the previous step, `None` before the first.
    pub(super) previous_residual: Option<f64>,
    /// Re-evaluate a frozen Jacobian (the last step contracted too slowly).
    pub(super) refresh: bool,
    pub(super) jacobian_updates: usize,
}

impl<'a> Monitor<'a> {
    pub(super) fn new(opts: &'a NewtonOptions) -> Self {
        Self { opts, previous_step: None, step: 0.0, previous_residual: None, refresh: false, jacobian_updates: 0 }
    }

    /// Whether iterate `k` needs a new Jacobian (`none_yet`: nothing factored so far).
    #[inline]
    pub(super) fn wants_jacobian(&self, none_yet: bool) -> bool {
        none_yet || self.refresh || self.opts.jacobian == JacobianUpdate::EveryIteration
    }

    /// At iterate `k` with `r = |F(x_k)|`: `Some(Ok)` if converged, `Some(Err(NotConverged))`
    /// if `k` is the last allowed iterate, `None` to take a step.
    #[inline]
    pub(super) fn residual_test(&self, k: usize, r: f64) -> Option<Result<NewtonReport>> {
        if r <= self.opts.residual_tol {
            Some(Ok(self.report(k, r, StopCriterion::Residual)))
        } else if k >= self.opts.max_iterations {
            Some(Err(GeomError::NotConverged { iterations: k, residual: r, step: self.step }))
        } else {
            None
        }
    }

    /// After step `dx_{k-1}` (`k` steps done, `r = |F(x_{k-1})|`, `s = |dx_{k-1}|`,
    /// `x_norm = |x_k|`): `Some(report)` if the step test accepts `x_k`.
    #[inline]
    pub(super) fn step_test(&mut self, k: usize, r: f64, s: f64, x_norm: f64) -> Option<NewtonReport> {
        self.step = s;
        // the round-off floor: F has stopped decreasing, near its tolerance
        let stalled = self.previous_residual.replace(r).is_some_and(|prev| r > 0.5 * prev);
        if stalled && r <= ROUNDOFF_FACTOR * self.opts.residual_tol {
            self.previous_step = Some(s);
            return Some(self.report(k, r, StopCriterion::RoundoffFloor));
        }
        let previous = self.previous_step.replace(s);
        let theta = match previous {
            None => return None,
            Some(_) if s == 0.0 => 0.0,
            Some(0.0) => f64::INFINITY,
            Some(prev) => s / prev,
        };
        self.refresh = theta > FROZEN_REFRESH_THETA;
        let estimate = s * (theta / (1.0 - theta)).max(1.0);
        (theta < 1.0 && estimate <= self.opts.step_tol * (1.0 + x_norm)).then(|| self.report(k, r, StopCriterion::Step))
    }

    /// Whether the polishing correction at an accepted iterate with `r = |F(x_k)|` and
    /// `x_norm = |x_k|` would be below the rounding of `x_k`: its size is predicted from the last
    /// step, `|J^{-1} F(x_k)| ≈ r |dx_{k-1}| / |F(x_{k-1})|` (the last step's ratio estimates
    /// `|J^{-1}|` along `F`), and it is negligible when that is `<= POLISH_FLOOR · x_norm`. At the
    /// warm start (no step yet) it is never negligible.
    #[inline]
    pub(super) fn polish_negligible(&self, r: f64, x_norm: f64) -> bool {
        self.previous_residual.is_some_and(|prev| r * self.step <= POLISH_FLOOR * x_norm * prev)
    }

    pub(super) fn report(&self, iterations: usize, residual: f64, criterion: StopCriterion) -> NewtonReport {
        NewtonReport { iterations, residual, step: self.step, jacobian_updates: self.jacobian_updates, criterion }
    }
}

/// Put the Newton iteration into a [`GeomError::SingularMatrix`] from the LU.
pub(super) fn at_iteration(e: GeomError, iteration: usize) -> GeomError {
    match e {
        GeomError::SingularMatrix { what, .. } => GeomError::SingularMatrix { what, iteration },
        other => other,
    }
}
