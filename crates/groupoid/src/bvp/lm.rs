//! Levenberg–Marquardt on `E(u) = 0` with a rank-aware step, shared by single shooting (dense
//! SVD step) and multiple shooting (block QR step of [`BlockBidiagonal`]).

use super::block::BlockBidiagonal;
use super::options::{BvpError, ShootingOptions};
use geom_core::error::all_finite;
use geom_core::newton::ROUNDOFF_FACTOR;
use geom_core::{GeomError, Result};
use nalgebra::{DMatrix, DVector, Dyn};

/// A Jacobian `J` at an iterate, with what Levenberg–Marquardt needs of it.
pub(super) trait Linearization {
    /// Whether every entry is finite.
    fn is_finite(&self) -> bool;
    /// Factor after acceptance (the SVD, or the `σ_max` estimate); errors reject nothing, they
    /// end the solve.
    fn prepare(&mut self, iteration: usize) -> Result<()>;
    /// `σ_max(J)` (exact or estimated), after [`Linearization::prepare`].
    fn sigma_max(&self) -> f64;
    /// The step `δ(μ)` for the residual `e` (`μ = 0`: Gauss–Newton).
    fn step(&self, e: &DVector<f64>, mu: f64, rank_rtol: f64, iteration: usize) -> Result<DVector<f64>>;
    /// `J δ`.
    fn apply(&self, delta: &DVector<f64>) -> DVector<f64>;
    /// The gauge directions and the reported singular values (descending).
    fn null_space(&self, rank_rtol: f64) -> Result<(Vec<DVector<f64>>, DVector<f64>)>;
}

/// A dense Jacobian with its SVD `J = U Σ Vᵀ`; the step is the truncated
/// `δ(μ) = −Σ_{σ_i > τ} σ_i/(σ_i² + μ) (u_iᵀE) v_i`, `τ = rank_rtol · σ_max`.
pub(super) struct DenseSvd {
    jac: DMatrix<f64>,
    svd: Option<nalgebra::SVD<f64, Dyn, Dyn>>,
}

impl DenseSvd {
    pub(super) fn new(jac: DMatrix<f64>) -> Self {
        Self { jac, svd: None }
    }
    fn svd(&self, iteration: usize) -> Result<&nalgebra::SVD<f64, Dyn, Dyn>> {
        self.svd.as_ref().ok_or(GeomError::SingularMatrix { what: "SVD of the shooting Jacobian", iteration })
    }
}

impl Linearization for DenseSvd {
    fn is_finite(&self) -> bool {
        all_finite(self.jac.iter())
    }
    fn prepare(&mut self, iteration: usize) -> Result<()> {
        let svd = self
            .jac
            .clone()
            .try_svd(true, true, f64::EPSILON, 10_000)
            .ok_or(GeomError::SingularMatrix { what: "SVD of the shooting Jacobian (no convergence)", iteration })?;
        self.svd = Some(svd);
        Ok(())
    }
    fn sigma_max(&self) -> f64 {
        self.svd.as_ref().map_or(0.0, |s| s.singular_values.max())
    }
    fn step(&self, e: &DVector<f64>, mu: f64, rank_rtol: f64, iteration: usize) -> Result<DVector<f64>> {
        let svd = self.svd(iteration)?;
        let smax = svd.singular_values.max();
        let (Some(uu), Some(v_t)) = (svd.u.as_ref(), svd.v_t.as_ref()) else {
            return Err(GeomError::SingularMatrix { what: "SVD of the shooting Jacobian", iteration });
        };
        let ur = uu.tr_mul(e);
        let mut delta = DVector::zeros(self.jac.ncols());
        for (i, &s) in svd.singular_values.iter().enumerate() {
            if s > rank_rtol * smax {
                delta -= v_t.row(i).transpose() * (s / (s * s + mu) * ur[i]);
            }
        }
        Ok(delta)
    }
    fn apply(&self, delta: &DVector<f64>) -> DVector<f64> {
        &self.jac * delta
    }
    fn null_space(&self, rank_rtol: f64) -> Result<(Vec<DVector<f64>>, DVector<f64>)> {
        let svd = self.svd(0)?;
        let sv = &svd.singular_values;
        let smax = sv.max();
        let mut order: Vec<usize> = (0..sv.len()).collect();
        order.sort_by(|&a, &b| sv[b].total_cmp(&sv[a]));
        let singular_values = DVector::from_iterator(order.len(), order.iter().map(|&i| sv[i]));
        let gauge = match svd.v_t.as_ref() {
            Some(v_t) => {
                order.iter().filter(|&&i| sv[i] <= rank_rtol * smax).map(|&i| v_t.row(i).transpose()).collect()
            }
            None => Vec::new(),
        };
        Ok((gauge, singular_values))
    }
}

/// The block-bidiagonal Jacobian of multiple shooting with its `σ_max` estimate; the step is
/// the Levenberg step `argmin |E + Jδ|² + μ̃|δ|²` by the block QR sweep, with
/// `μ̃ = max(μ, (rank_rtol σ_max)²)`: the Gauss–Newton step (`μ = 0`) is regularized at the
/// rank threshold, which leaves the components with `σ_i ≫ τ` at `1/σ_i` and damps those with
/// `σ_i ≲ τ` to `σ_i/τ²` (a smooth version of the dense step's truncation; `τ = rank_rtol σ_max`).
pub(super) struct Blocks {
    jac: BlockBidiagonal,
    sigma_max: f64,
}

impl Blocks {
    pub(super) fn new(jac: BlockBidiagonal) -> Self {
        Self { jac, sigma_max: 0.0 }
    }
}

impl Linearization for Blocks {
    fn is_finite(&self) -> bool {
        self.jac.is_finite()
    }
    fn prepare(&mut self, _iteration: usize) -> Result<()> {
        self.sigma_max = self.jac.sigma_max();
        Ok(())
    }
    fn sigma_max(&self) -> f64 {
        self.sigma_max
    }
    fn step(&self, e: &DVector<f64>, mu: f64, rank_rtol: f64, iteration: usize) -> Result<DVector<f64>> {
        let floor = (rank_rtol * self.sigma_max).powi(2);
        if floor.is_nan() || floor <= 0.0 {
            return Err(GeomError::SingularMatrix { what: "multiple-shooting Jacobian (zero)", iteration });
        }
        self.jac.damped_step(e, mu.max(floor), iteration)
    }
    fn apply(&self, delta: &DVector<f64>) -> DVector<f64> {
        self.jac.apply(delta)
    }
    fn null_space(&self, rank_rtol: f64) -> Result<(Vec<DVector<f64>>, DVector<f64>)> {
        self.jac.null_space(rank_rtol)
    }
}

/// The outcome of [`levenberg_marquardt`].
pub(super) struct LmOutcome {
    pub(super) u: DVector<f64>,
    pub(super) residual: f64,
    pub(super) history: Vec<f64>,
    pub(super) iterations: usize,
    pub(super) rejected: usize,
    pub(super) gauge: Vec<DVector<f64>>,
    pub(super) singular_values: DVector<f64>,
}

/// Levenberg–Marquardt on `E(u) = 0`, `E: R^n → R^n`, with the step `δ(μ)` of the
/// [`Linearization`] (the solution of `(JᵀJ + μ I) δ = −Jᵀ E`, restricted to or regularized at
/// the numerical range of `J`):
///
/// ```text
/// δ(μ) = − Σ_{σ_i > τ} σ_i / (σ_i² + μ) · (u_iᵀ E) v_i ,     τ = rank_rtol · σ_max .
/// ```
///
/// With `μ = 0` this is the Gauss–Newton step with the truncated pseudo-inverse, `δ = −J⁺E`: the
/// minimum-norm least-squares correction, with no component along the numerical null space
/// (so a gauge freedom is not moved). The damping is Levenberg's (`D = I`), for which every
/// step lies in `range(Jᵀ)`, orthogonal to the null directions, also for `μ > 0`. A trial
/// `u + δ` is accepted iff `|E(u + δ)|_2 < |E(u)|_2` (so the history is strictly decreasing);
/// then `μ ← μ/10` if the gain ratio `ρ = (|E|² − |E(u+δ)|²)/(|E|² − |E + Jδ|²) > 0.75`,
/// `μ ← 2μ` if `ρ < 0.25`, and `μ ← 0` once `μ < 1e-15 σ_max²` (Gauss–Newton: quadratic
/// convergence on a zero-residual problem). A rejected trial (or one whose evaluation fails)
/// sets `μ ← max(10μ, 1e-8 σ_max²)` and retries with the same factorization (every trial is
/// evaluated with its Jacobian, so an accepted one needs no second run of the flow). Stops when
/// `|E|_∞ <= residual_tol`, or at the round-off floor (geom-core's Newton convention: with
/// `|E|_∞ <= 100 residual_tol`, a rejected Gauss–Newton trial or an accepted step that does not
/// halve `|E|_2`); fails with [`BvpError::NotConverged`] (carrying the history)
/// when `max_trials` is spent or `μ > 1e20 σ_max²`.
pub(super) fn levenberg_marquardt<J: Linearization>(
    mut eval: impl FnMut(&DVector<f64>) -> Result<(DVector<f64>, J)>,
    u0: DVector<f64>,
    opts: &ShootingOptions,
) -> std::result::Result<LmOutcome, BvpError> {
    opts.validate()?;
    if !u0.iter().all(|v| v.is_finite()) {
        return Err(GeomError::NonFinite { what: "shooting guess" }.into());
    }
    let mut u = u0;
    let (mut r, mut jac) = eval(&u)?;
    if !(all_finite(r.iter()) && jac.is_finite()) {
        return Err(GeomError::NonFinite { what: "shooting residual or Jacobian at the guess" }.into());
    }
    let mut history = vec![r.norm()];
    let (mut iterations, mut rejected) = (0usize, 0usize);
    jac.prepare(0)?;
    let mut mu = opts.initial_damping * jac.sigma_max().powi(2);
    let mut trials = 0;
    let converged = loop {
        if r.amax() <= opts.residual_tol {
            break true;
        }
        if trials >= opts.max_trials {
            break false;
        }
        trials += 1;
        let smax = jac.sigma_max();
        let delta = jac.step(&r, mu, opts.rank_rtol, iterations)?;
        let trial_u = &u + &delta;
        let accepted = match eval(&trial_u) {
            Ok((tr, tj)) if all_finite(tr.iter()) && tj.is_finite() && tr.norm() < r.norm() => {
                let predicted = r.norm_squared() - (&r + jac.apply(&delta)).norm_squared();
                let rho = (r.norm_squared() - tr.norm_squared()) / predicted;
                let stagnated = tr.norm() > 0.5 * r.norm() && tr.amax() <= ROUNDOFF_FACTOR * opts.residual_tol;
                (u, r, jac) = (trial_u, tr, tj);
                jac.prepare(iterations)?;
                history.push(r.norm());
                iterations += 1;
                let smax = jac.sigma_max();
                if rho > 0.75 {
                    mu /= 10.0;
                } else if rho < 0.25 {
                    mu *= 2.0;
                }
                if mu < 1e-15 * smax * smax {
                    mu = 0.0;
                }
                if stagnated {
                    break true;
                }
                true
            }
            _ => false,
        };
        if !accepted {
            rejected += 1;
            if mu == 0.0 && r.amax() <= ROUNDOFF_FACTOR * opts.residual_tol {
                break true;
            }
            mu = (10.0 * mu).max(1e-8 * smax * smax);
            if mu > 1e20 * smax * smax {
                break false;
            }
        }
    };
    if !converged {
        return Err(BvpError::NotConverged { iterations, rejected, residual: r.amax(), history });
    }
    let (gauge, singular_values) = jac.null_space(opts.rank_rtol)?;
    Ok(LmOutcome { residual: r.amax(), u, history, iterations, rejected, gauge, singular_values })
}
