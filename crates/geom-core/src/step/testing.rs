//! The contract every integrator must keep, as public API: a user who writes an integrator
//! (outside the workspace's crates) validates it with the same checks the integrators of the
//! workspace pass, as [`crate::lie::testing`] does for groups.
//!
//! [`check_integrator`] runs, on any [`OneStep<St>`] whose state is a [`FlatState`]:
//!
//! 1. **a failed step leaves the state untouched**: `step` and `step_n` with `h = 0`, `NaN` and
//!    `±∞` return an error, and the state's words are bit for bit what they were;
//! 2. **`step_n` is `n` steps**: `step_n(x, h, n)` equals `n` calls of `step(x, h)` bit for bit;
//! 3. **the order**: with `x_h = Φ_h^{T/h}(x_0)`, the differences of successive halvings
//!    `e(h) = |x_h − x_{h/2}|_∞ ≈ C h^p (1 − 2^{−p})` give the measured order
//!    `p = log₂(e(h) / e(h/2))`, which must be within [`Contract::order_slack`] of
//!    [`OneStep::order`] (the exact flow is not needed);
//! 4. **reversibility** of a method that says it is symmetric ([`OneStep::is_symmetric`]):
//!    `Φ_{−h}(Φ_h(x_0)) = x_0` to [`Contract::reversibility_tol`].
//!
//! [`check_poisson_map`] checks that the step map `Φ_h` preserves a Poisson tensor `Π`,
//! `M Π(x₀) Mᵀ = Π(Φ_h(x₀))` with `M = DΦ_h(x₀)` by central differences of the flat words, and
//! [`check_symplectic`] is its case `Π = J = [[0, I], [−I, 0]]` on `T*R^N` (`MᵀJM = J`, which
//! for a square `M` is the same identity); a Lie–Poisson integrator on `g*` passes
//! [`lie_poisson_tensor`] of its structure constants.
//!
//! The checks return a [`ContractReport`] with what they measured, or the first
//! [`ContractViolation`].
//!
//! ```
//! use geom_core::step::testing::{Contract, check_integrator, check_symplectic};
//! use geom_core::step::{OneStep, PhaseState, check_step};
//! use geom_core::GeomError;
//! use nalgebra::Vector1;
//!
//! /// Störmer–Verlet for the pendulum H = p²/2 − cos q, written by a user.
//! struct Leapfrog;
//! impl OneStep<PhaseState<1>> for Leapfrog {
//!     fn name(&self) -> String { "leapfrog".into() }
//!     fn order(&self) -> u32 { 2 }
//!     fn is_symmetric(&self) -> bool { true }
//!     fn step(&self, s: &mut PhaseState<1>, h: f64) -> Result<(), GeomError> {
//!         check_step(h)?;
//!         let p = s.p[0] - 0.5 * h * s.q[0].sin();
//!         let q = s.q[0] + h * p;
//!         *s = PhaseState::new(Vector1::new(q), Vector1::new(p - 0.5 * h * q.sin()));
//!         Ok(())
//!     }
//! }
//! let x0 = PhaseState::new(Vector1::new(1.0), Vector1::new(0.2));
//! let report = check_integrator(&Leapfrog, &x0, &Contract::default())?;
//! assert!((report.measured_order - 2.0).abs() < 0.1);
//! assert!(check_symplectic(&Leapfrog, &x0, 0.1)? < 1e-8);
//! # Ok::<(), geom_core::step::testing::ContractViolation>(())
//! ```

use super::{FlatState, OneStep, PhaseState};
use crate::GeomError;
use nalgebra::{DMatrix, DVector, SVector};

/// What the checks of [`check_integrator`] use.
#[derive(Debug, Clone, PartialEq)]
pub struct Contract {
    /// The step of the bitwise checks (`step_n` against `step`, reversibility).
    pub h: f64,
    /// The number of steps of the `step_n` check.
    pub steps: usize,
    /// The largest step of the order measurement (then `h/2` and `h/4`).
    pub order_h: f64,
    /// The time `T` of the order measurement (a multiple of `order_h`).
    pub order_time: f64,
    /// How far the measured order may be from [`OneStep::order`].
    pub order_slack: f64,
    /// Whether to measure the order: `false` only for a method whose error is not a power of
    /// `h` from one `x₀` (an adaptive integration over `[0, h]` at fixed tolerances, whose error
    /// is set by the tolerances; a method whose state carries its first step, such as an arrow
    /// `(q_0, q_1, Δt)` of a discrete Lagrangian flow, whose order is measured from a start
    /// built for each `h`); [`ContractReport::measured_order`] is then `NaN`.
    pub measure_order: bool,
    /// `|Φ_{−h}(Φ_h(x₀)) − x₀|_∞ / (1 + |x₀|_∞)` allowed for a symmetric method.
    pub reversibility_tol: f64,
}

impl Default for Contract {
    /// `h = 0.05`, 20 steps; order from `h = 0.1, 0.05, 0.025` up to `T = 1` within `±0.3`;
    /// reversibility to `1e-10`.
    fn default() -> Self {
        Self {
            h: 0.05,
            steps: 20,
            order_h: 0.1,
            order_time: 1.0,
            order_slack: 0.3,
            measure_order: true,
            reversibility_tol: 1e-10,
        }
    }
}

/// What [`check_integrator`] measured.
#[derive(Debug, Clone, PartialEq)]
pub struct ContractReport {
    /// The method's name.
    pub name: String,
    /// `log₂(e(h) / e(h/2))` (module documentation); `NaN` when not measured
    /// ([`Contract::measure_order`]).
    pub measured_order: f64,
    /// `|Φ_{−h}(Φ_h(x₀)) − x₀|_∞ / (1 + |x₀|_∞)`, for a symmetric method.
    pub reversibility_defect: Option<f64>,
}

/// A broken contract: which check, and what it saw.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{method}: {check} failed: {detail}")]
pub struct ContractViolation {
    /// The method's name.
    pub method: String,
    /// The check that failed.
    pub check: &'static str,
    /// What it saw.
    pub detail: String,
}

fn words<St: FlatState>(s: &St) -> Vec<f64> {
    let mut out = Vec::with_capacity(St::WORDS);
    s.write_words(&mut out);
    out
}

fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn max_dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

fn max_abs(a: &[f64]) -> f64 {
    a.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// Runs the checks 1–4 of the [module documentation](self) on `method` from `x0`.
///
/// An error of a step the contract expects to succeed is a violation (`check: "step"`): pick
/// `x0` and the steps of `contract` where the method is defined.
pub fn check_integrator<St, M>(method: &M, x0: &St, contract: &Contract) -> Result<ContractReport, ContractViolation>
where
    St: FlatState + Clone,
    M: OneStep<St> + ?Sized,
{
    let name = method.name();
    let violation = |check: &'static str, detail: String| ContractViolation { method: name.clone(), check, detail };
    let run = |x: &St, h: f64, n: usize| -> Result<St, ContractViolation> {
        let mut s = x.clone();
        for k in 0..n {
            method.step(&mut s, h).map_err(|e| violation("step", format!("step {k} of h = {h}: {e}")))?;
        }
        Ok(s)
    };
    let w0 = words(x0);

    // 1. a failed step leaves the state untouched
    for bad in [0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut s = x0.clone();
        if method.step(&mut s, bad).is_ok() {
            return Err(violation("invalid step", format!("step accepted h = {bad}")));
        }
        if !same_bits(&words(&s), &w0) {
            return Err(violation("failed step leaves the state untouched", format!("step with h = {bad}")));
        }
        let mut s = x0.clone();
        if method.step_n(&mut s, bad, 3).is_ok() {
            return Err(violation("invalid step", format!("step_n accepted h = {bad}")));
        }
        if !same_bits(&words(&s), &w0) {
            return Err(violation("failed step leaves the state untouched", format!("step_n with h = {bad}")));
        }
    }

    // 2. step_n = n steps, bit for bit
    let stepped = run(x0, contract.h, contract.steps)?;
    let mut s = x0.clone();
    method
        .step_n(&mut s, contract.h, contract.steps)
        .map_err(|e| violation("step_n", format!("{} steps of h = {}: {e}", contract.steps, contract.h)))?;
    if !same_bits(&words(&s), &words(&stepped)) {
        let d = max_dist(&words(&s), &words(&stepped));
        return Err(violation("step_n equals n steps bit for bit", format!("they differ by {d:.3e}")));
    }

    // 3. the order, by successive halvings
    let measured_order = if contract.measure_order {
        let n = (contract.order_time / contract.order_h).round().max(1.0) as usize;
        let ends: Vec<Vec<f64>> = [1, 2, 4]
            .iter()
            .map(|&k| run(x0, contract.order_h / k as f64, n * k).map(|s| words(&s)))
            .collect::<Result<_, _>>()?;
        let (e1, e2) = (max_dist(&ends[0], &ends[1]), max_dist(&ends[1], &ends[2]));
        let floor = 1e3 * f64::EPSILON * (1.0 + max_abs(&w0)) * (n * 4) as f64;
        if e2 <= floor {
            return Err(violation(
                "order",
                format!(
                    "the differences {e1:.3e}, {e2:.3e} are at the round-off level ({floor:.1e}): \
                     measure with a larger order_h or order_time"
                ),
            ));
        }
        let measured = (e1 / e2).log2();
        if !measured.is_finite() || (measured - f64::from(method.order())).abs() > contract.order_slack {
            return Err(violation(
                "order",
                format!("measured {measured:.3} (differences {e1:.3e}, {e2:.3e}), declared {}", method.order()),
            ));
        }
        measured
    } else {
        f64::NAN
    };

    // 4. reversibility of a symmetric method
    let reversibility_defect = if method.is_symmetric() {
        let back = run(&run(x0, contract.h, 1)?, -contract.h, 1)?;
        let defect = max_dist(&words(&back), &w0) / (1.0 + max_abs(&w0));
        if defect.is_nan() || defect > contract.reversibility_tol {
            return Err(violation(
                "reversibility of a symmetric method",
                format!("|Φ_(-h)(Φ_h(x)) - x| = {defect:.3e} > {:.1e}", contract.reversibility_tol),
            ));
        }
        Some(defect)
    } else {
        None
    };
    Ok(ContractReport { name, measured_order, reversibility_defect })
}

/// The step Jacobian `M = DΦ_h(x₀)` on the flat words, by central differences with the
/// relative increment `δ = 1e-5 (1 + |x_i|)` (truncation `O(δ²)`, and a Newton tolerance `τ`
/// of an implicit step enters as `τ/δ`).
pub fn step_jacobian<St, M>(method: &M, x0: &St, h: f64) -> Result<DMatrix<f64>, ContractViolation>
where
    St: FlatState + Clone,
    M: OneStep<St> + ?Sized,
{
    let name = method.name();
    let w0 = words(x0);
    let n = w0.len();
    let eval = |w: &[f64]| -> Result<Vec<f64>, ContractViolation> {
        let mut s = St::read_words(w).ok_or_else(|| ContractViolation {
            method: name.clone(),
            check: "step Jacobian",
            detail: "the state's words do not read back".into(),
        })?;
        method.step(&mut s, h).map_err(|e| ContractViolation {
            method: name.clone(),
            check: "step Jacobian",
            detail: format!("a perturbed step failed: {e}"),
        })?;
        Ok(words(&s))
    };
    let mut m = DMatrix::zeros(n, n);
    for j in 0..n {
        let d = 1e-5 * (1.0 + w0[j].abs());
        let (mut plus, mut minus) = (w0.clone(), w0.clone());
        plus[j] += d;
        minus[j] -= d;
        let (fp, fm) = (eval(&plus)?, eval(&minus)?);
        for i in 0..n {
            m[(i, j)] = (fp[i] - fm[i]) / (2.0 * d);
        }
    }
    Ok(m)
}

/// `|M Π(x₀) Mᵀ − Π(Φ_h(x₀))|_∞` with `M = DΦ_h(x₀)` ([`step_jacobian`]): zero for a Poisson
/// map of the Poisson tensor `Π` (a function of the flat words).
pub fn check_poisson_map<St, M>(
    method: &M,
    x0: &St,
    h: f64,
    tensor: impl Fn(&[f64]) -> DMatrix<f64>,
) -> Result<f64, ContractViolation>
where
    St: FlatState + Clone,
    M: OneStep<St> + ?Sized,
{
    let m = step_jacobian(method, x0, h)?;
    let mut x1 = x0.clone();
    method.step(&mut x1, h).map_err(|e| ContractViolation {
        method: method.name(),
        check: "Poisson map",
        detail: format!("the step failed: {e}"),
    })?;
    let defect = &m * tensor(&words(x0)) * m.transpose() - tensor(&words(&x1));
    Ok(defect.amax())
}

/// `|MᵀJM − J|_∞` for the step Jacobian `M` of a method on `T*R^N` in the coordinates `(q, p)`,
/// `J = [[0, I], [−I, 0]]`: zero for a symplectic method.
pub fn check_symplectic<M, const N: usize>(method: &M, x0: &PhaseState<N>, h: f64) -> Result<f64, ContractViolation>
where
    M: OneStep<PhaseState<N>> + ?Sized,
{
    let m = step_jacobian(method, x0, h)?;
    let j = canonical_poisson_tensor(N);
    Ok((m.transpose() * &j * &m - j).amax())
}

/// `J = [[0, I], [−I, 0]]` on `R^{2N}`.
pub fn canonical_poisson_tensor(n: usize) -> DMatrix<f64> {
    DMatrix::from_fn(2 * n, 2 * n, |i, j| {
        if j == i + n {
            1.0
        } else if i == j + n {
            -1.0
        } else {
            0.0
        }
    })
}

/// The Lie–Poisson tensor `Π(μ)_{ij} = ⟨μ, [e_i, e_j]⟩` on `g*` (the `−` Lie–Poisson bracket
/// of a left-invariant system, `μ̇ = ad*_{∂h/∂μ} μ`, up to the sign, which does not change
/// whether a map preserves it) for the bracket `bracket(e_i, e_j)` of the algebra.
pub fn lie_poisson_tensor<const D: usize>(
    bracket: impl Fn(&SVector<f64, D>, &SVector<f64, D>) -> SVector<f64, D>,
) -> impl Fn(&[f64]) -> DMatrix<f64> {
    move |mu: &[f64]| {
        let mu = DVector::from_column_slice(mu);
        DMatrix::from_fn(D, D, |i, j| {
            let e = |k: usize| SVector::<f64, D>::from_fn(|r, _| if r == k { 1.0 } else { 0.0 });
            let c = bracket(&e(i), &e(j));
            mu.iter().zip(c.iter()).map(|(a, b)| a * b).sum()
        })
    }
}

impl From<ContractViolation> for GeomError {
    /// A violation as [`GeomError::InvalidParameter`] (`what = "integrator"`), for callers that
    /// return `GeomError`.
    fn from(v: ContractViolation) -> Self {
        GeomError::InvalidParameter { what: "integrator", reason: v.to_string() }
    }
}
