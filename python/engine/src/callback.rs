//! A separable Hamiltonian `H(q, p) = T(p) + V(q)` on `T*R^n` given by its gradients as
//! callbacks: compiled functions (C function pointers, called directly) or functions of the host
//! (the Python package's plain Python functions, behind a closure).
//!
//! The equations are Hamilton's, `q̇ = ∇T(p)`, `ṗ = −∇V(q)`; the methods that need no more than
//! these gradients apply (the splittings and their compositions, the explicit Runge–Kutta
//! methods, DOP853). The implicit methods solve their stages by Newton's method, which needs the
//! Hessian of `H`: a system of callbacks does not give it, and [`check_method`] refuses them with
//! a message that says so.
//!
//! The compiled signatures (the `scipy.LowLevelCallable` convention of an `int` size, a `double`
//! array and a `void *` of user data):
//!
//! ```c
//! void grad(int n, const double *x, double *out, void *user_data);  /* out = ∇T(x) or ∇V(x) */
//! double energy(int n, const double *x, void *user_data);           /* T(x) or V(x) */
//! ```
//!
//! `x` and `out` hold `n` values. A non-finite gradient makes the step fail (the state is left
//! at the last good step). A compiled callback is called from the integration's threads (several
//! at once in an ensemble): it must be thread-safe.

use geomint::discretization::PhaseState;
use geomint::geom_core::function::{Hessian, PhaseSpaceDerivatives};
use geomint::workbench::WorkbenchError;
use geomint::workbench::catalogue::canonical::{Canonical, CanonicalSystem};
use geomint::workbench::methods::MethodInfo;
use geomint::workbench::problem::{Family, Problem, Quantity, Simulation, check_state};
use nalgebra::SVector;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// The problem's name.
pub const NAME: &str = "callback";

/// The largest number of degrees of freedom (the state's size is part of the methods' types,
/// compiled for `n = 1 … MAX_DEGREES`, as for the systems of formulas).
pub const MAX_DEGREES: usize = 4;

/// The methods that apply: those that use the gradients only.
pub const METHODS: &[&str] = &[
    "stormer-verlet",
    "symplectic-euler-a",
    "symplectic-euler-b",
    "triple-jump",
    "yoshida6",
    "kahan-li8",
    "kahan-li10",
    "sofroniou-spaletta10",
    "rk4",
    "explicit-euler",
    "dop853",
];

/// `void grad(int n, const double *x, double *out, void *user_data)`.
pub type GradientFn = unsafe extern "C" fn(c_int, *const f64, *mut f64, *mut c_void);
/// `double energy(int n, const double *x, void *user_data)`.
pub type EnergyFn = unsafe extern "C" fn(c_int, *const f64, *mut c_void) -> f64;

/// A host function writing a gradient: `f(x, out)`.
pub type HostGradient = Arc<dyn Fn(&[f64], &mut [f64]) + Send + Sync>;
/// A host function giving a value: `f(x)`.
pub type HostEnergy = Arc<dyn Fn(&[f64]) -> f64 + Send + Sync>;

/// A gradient callback: `out = ∇f(x)`.
#[derive(Clone)]
pub enum Gradient {
    /// A compiled function and its user data.
    Compiled(Compiled<GradientFn>),
    /// A function of the host (it reports its own errors, e.g. by writing `NaN`).
    Host(HostGradient),
}

/// An energy callback: `f(x)`.
#[derive(Clone)]
pub enum Energy {
    /// A compiled function and its user data.
    Compiled(Compiled<EnergyFn>),
    /// A function of the host.
    Host(HostEnergy),
}

/// A compiled function `f` with the `user_data` pointer passed to it.
#[derive(Clone, Copy)]
pub struct Compiled<F> {
    pub(crate) f: F,
    pub(crate) user_data: *mut c_void,
}

// SAFETY: the caller of `Compiled::new` promises that the function is thread-safe with its
// user data (documented for the users of the Python package).
unsafe impl<F: Send> Send for Compiled<F> {}
unsafe impl<F: Sync> Sync for Compiled<F> {}

impl<F> Compiled<F> {
    /// The function `f` with `user_data`.
    ///
    /// # Safety
    /// `f` must have the documented signature, be valid (and its user data) for as long as the
    /// callback is used, and be safe to call from several threads at once.
    pub unsafe fn new(f: F, user_data: *mut c_void) -> Self {
        Self { f, user_data }
    }
}

impl Gradient {
    #[inline]
    fn eval<const N: usize>(&self, x: &SVector<f64, N>) -> SVector<f64, N> {
        let mut out = SVector::<f64, N>::from_element(f64::NAN);
        match self {
            // SAFETY: `Compiled::new`'s contract; `x` and `out` hold N values.
            Self::Compiled(c) => unsafe { (c.f)(N as c_int, x.as_ptr(), out.as_mut_ptr(), c.user_data) },
            Self::Host(f) => f(x.as_slice(), out.as_mut_slice()),
        }
        out
    }
}

impl Energy {
    #[inline]
    fn eval<const N: usize>(&self, x: &SVector<f64, N>) -> f64 {
        self.eval_slice(x.as_slice())
    }

    /// `f(x)` at the values `x`.
    #[inline]
    pub(crate) fn eval_slice(&self, x: &[f64]) -> f64 {
        match self {
            // SAFETY: `Compiled::new`'s contract; `x` holds `x.len()` values.
            Self::Compiled(c) => unsafe { (c.f)(x.len() as c_int, x.as_ptr(), c.user_data) },
            Self::Host(f) => f(x),
        }
    }
}

/// `H = T(p) + V(q)` from the callbacks `∇T`, `∇V` and, for the monitored energy, `T` and `V`
/// (without them the energy is `NaN`, and so is its error).
#[derive(Clone)]
pub struct CallbackHamiltonian<const N: usize> {
    grad_t: Gradient,
    grad_v: Gradient,
    energy: Option<(Energy, Energy)>,
}

impl<const N: usize> PhaseSpaceDerivatives<N> for CallbackHamiltonian<N> {
    fn value(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> f64 {
        self.energy.as_ref().map_or(f64::NAN, |(t, v)| t.eval(p) + v.eval(q))
    }
    #[inline]
    fn gradient(&self, q: &SVector<f64, N>, p: &SVector<f64, N>) -> (SVector<f64, N>, SVector<f64, N>) {
        (self.grad_v.eval(q), self.grad_t.eval(p))
    }
    /// Not given by callbacks: `NaN` (the methods that need it are refused, [`check_method`]).
    fn hessian(&self, _q: &SVector<f64, N>, _p: &SVector<f64, N>) -> Hessian<N> {
        let nan = nalgebra::SMatrix::<f64, N, N>::from_element(f64::NAN);
        Hessian { qq: nan, qp: nan, pp: nan }
    }
    #[inline]
    fn gradient_q(&self, q: &SVector<f64, N>, _p: &SVector<f64, N>) -> SVector<f64, N> {
        self.grad_v.eval(q)
    }
    #[inline]
    fn gradient_p(&self, _q: &SVector<f64, N>, p: &SVector<f64, N>) -> SVector<f64, N> {
        self.grad_t.eval(p)
    }
    fn is_separable(&self) -> bool {
        true
    }
}

/// What a system of callbacks is made of, before its size is known: the callbacks, the initial
/// state `(q0, p0)`, the default step and final time, a name for the summary.
#[derive(Clone)]
pub struct CallbackSpec {
    /// `∇T(p)`.
    pub grad_t: Gradient,
    /// `∇V(q)`.
    pub grad_v: Gradient,
    /// `T(p)` and `V(q)`, for the energy.
    pub energy: Option<(Energy, Energy)>,
    /// Initial coordinates.
    pub q0: Vec<f64>,
    /// Initial momenta.
    pub p0: Vec<f64>,
    /// Default step (0.01).
    pub h: Option<f64>,
    /// Default final time (10).
    pub t_end: Option<f64>,
}

#[derive(Clone)]
struct CallbackSystem<const N: usize> {
    hamiltonian: CallbackHamiltonian<N>,
    initial: PhaseState<N>,
    defaults: (f64, f64),
}

impl<const N: usize> CanonicalSystem<N> for CallbackSystem<N> {
    type H = CallbackHamiltonian<N>;
    const NAME: &'static str = NAME;
    fn summary(&self) -> &'static str {
        "H = T(p) + V(q) given by callbacks: grad_q = ∇V(q), grad_p = ∇T(p)"
    }
    fn hamiltonian(&self) -> CallbackHamiltonian<N> {
        self.hamiltonian.clone()
    }
    fn initial(&self) -> PhaseState<N> {
        self.initial
    }
    fn defaults(&self) -> (f64, f64) {
        self.defaults
    }
    fn energy_formula(&self) -> &'static str {
        if self.hamiltonian.energy.is_some() { "H = T(p) + V(q) by the callbacks" } else { "not given (NaN)" }
    }
}

/// The [`Problem`] of a system of callbacks: the canonical problem of the system, with the
/// methods restricted to [`METHODS`].
#[derive(Clone)]
struct CallbackProblem<const N: usize>(Canonical<CallbackSystem<N>, N>);

impl<const N: usize> Problem for CallbackProblem<N> {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        self.0.summary()
    }
    fn family(&self) -> Family {
        Family::Canonical
    }
    fn methods(&self) -> Vec<&'static str> {
        METHODS.to_vec()
    }
    fn defaults(&self) -> (f64, f64) {
        self.0.defaults()
    }
    fn state_labels(&self) -> Vec<String> {
        self.0.state_labels()
    }
    fn quantities(&self) -> Vec<Quantity> {
        self.0.quantities()
    }
    fn reference(&self) -> (&'static str, usize) {
        ("dop853", 1)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        self.0.start_method(method, h)
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        self.0.initial_state()
    }
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        check_state(self, state)?;
        let mut system = self.0.0.clone();
        system.initial =
            PhaseState::new(SVector::from_column_slice(&state[..N]), SVector::from_column_slice(&state[N..]));
        Ok(Box::new(Self(Canonical::new(system))))
    }
}

fn input(msg: impl Into<String>) -> WorkbenchError {
    WorkbenchError::Input(msg.into())
}

/// Checks `method` for a system of callbacks: an implicit method is refused saying that it needs
/// the Hessian (other names are left to the workbench's check and its message).
pub fn check_method(method: &str) -> Result<(), WorkbenchError> {
    const IMPLICIT: &[&str] = &["midpoint", "gauss2", "gauss3", "lobatto3", "avf", "gonzalez", "itoh-abe"];
    if IMPLICIT.contains(&method) {
        return Err(input(format!(
            "method '{method}' is implicit: it solves its stages by Newton's method, which needs the Hessian of H, \
             and a system of callbacks gives the gradients only; use an explicit method: {}",
            METHODS.join(", ")
        )));
    }
    Ok(())
}

impl CallbackSpec {
    /// The problem: `1 ≤ n ≤` [`MAX_DEGREES`] coordinates, as many momenta, finite; `h` and
    /// `t_end` finite and positive. (The callbacks are first called by the first step.)
    pub fn problem(&self) -> Result<Box<dyn Problem>, WorkbenchError> {
        let n = self.q0.len();
        if n == 0 || n > MAX_DEGREES {
            return Err(input(format!("q0 has {n} coordinates; a system of callbacks has 1 to {MAX_DEGREES}")));
        }
        if self.p0.len() != n {
            return Err(input(format!("q0 has {n} coordinates but p0 has {} momenta", self.p0.len())));
        }
        match n {
            1 => self.build::<1>(),
            2 => self.build::<2>(),
            3 => self.build::<3>(),
            _ => self.build::<4>(),
        }
    }

    fn build<const N: usize>(&self) -> Result<Box<dyn Problem>, WorkbenchError> {
        if !self.q0.iter().chain(&self.p0).all(|v| v.is_finite()) {
            return Err(input("q0 and p0 must be finite"));
        }
        let (h, t_end) = (self.h.unwrap_or(0.01), self.t_end.unwrap_or(10.0));
        if !(h.is_finite() && h > 0.0 && t_end.is_finite() && t_end > 0.0) {
            return Err(input(format!("h and t_end must be finite and positive, got {h} and {t_end}")));
        }
        let hamiltonian = CallbackHamiltonian::<N> {
            grad_t: self.grad_t.clone(),
            grad_v: self.grad_v.clone(),
            energy: self.energy.clone(),
        };
        let initial = PhaseState::new(SVector::from_column_slice(&self.q0), SVector::from_column_slice(&self.p0));
        let system = CallbackSystem { hamiltonian, initial, defaults: (h, t_end) };
        Ok(Box::new(CallbackProblem(Canonical::new(system))))
    }
}
