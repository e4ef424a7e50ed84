//! An ordinary differential equation `ẏ = f(t, y)` on `R^n` given by its vector field as a
//! callback (`geomint.ode`): a compiled function, called directly, or a function of the host
//! (a plain Python function behind a closure), with optional monitored invariants `g(y)`.
//!
//! The state is `z = (t, y) ∈ R^{n+1}` and the field `(1, f(t, y))`: autonomous, so that every
//! fixed-step method of the library on a vector space applies unchanged, a run restarted from a
//! state `(t, y)` continues at its time, and the stages see their own times `t + c_i h`. The
//! methods are the explicit Runge–Kutta ones ([`METHODS`]): nothing about `f` (a Hamiltonian, a
//! group) is known, so no geometric method applies; `ṫ = 1` is integrated exactly up to the
//! rounding of `Σ b_i = 1`.
//!
//! The compiled signature (the `scipy.LowLevelCallable` convention of a size, the arrays and a
//! `void *` of user data, with the time after the size):
//!
//! ```c
//! void f(int n, double t, const double *y, double *out, void *user_data);  /* out = f(t, y) */
//! double g(int n, const double *y, void *user_data);                       /* an invariant g(y) */
//! ```
//!
//! A non-finite `f(t, y)` makes the step fail (the state stays at the last good step). A compiled
//! callback is called from the integration's threads (several at once in an ensemble): it must
//! be thread-safe.

use crate::callback::{Compiled, Energy};
use geomint::discretization::OneStep;
use geomint::geom_core::GeomError;
use geomint::integrators::dop853::Dop853;
use geomint::integrators::explicit_rk::{ExplicitRk, VectorField};
use geomint::integrators::tableau;
use geomint::workbench::WorkbenchError;
use geomint::workbench::catalogue::system::intern;
use geomint::workbench::methods::MethodInfo;
use geomint::workbench::problem::{Family, Kind, Problem, Quantity, Simulation, check_state};
use geomint::workbench::run::{Observe, Run};
use nalgebra::SVector;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// The problem's name.
pub const NAME: &str = "vector-field";

/// The largest dimension `n` of `y` (the state's size is part of the methods' types, compiled
/// for `n = 1 …` [`MAX_DIMENSION`]).
pub const MAX_DIMENSION: usize = 8;

/// The methods that apply, the default first: DOP853 at the fixed step (order 8), RK4, explicit
/// Euler.
pub const METHODS: &[&str] = &["dop853", "rk4", "explicit-euler"];

/// `void f(int n, double t, const double *y, double *out, void *user_data)`.
pub type FieldFn = unsafe extern "C" fn(c_int, f64, *const f64, *mut f64, *mut c_void);
/// A host function writing the field: `f(t, y, out)`.
pub type HostField = Arc<dyn Fn(f64, &[f64], &mut [f64]) + Send + Sync>;

/// The vector field `out = f(t, y)`.
#[derive(Clone)]
pub enum Field {
    /// A compiled function and its user data.
    Compiled(Compiled<FieldFn>),
    /// A function of the host (it reports its own errors, e.g. by writing `NaN`).
    Host(HostField),
}

/// What an ODE given by callbacks is made of: the field, the monitored invariants `g(y)` by
/// name, the initial time and state, the default step and final time (from `t0`).
#[derive(Clone)]
pub struct FieldSpec {
    /// `f(t, y)`.
    pub field: Field,
    /// `(name, g)`: monitored as energies, error `|g(y(t)) − g(y(t0))| / |g(y(t0))|`.
    pub invariants: Vec<(String, Energy)>,
    /// The initial time.
    pub t0: f64,
    /// The initial state.
    pub y0: Vec<f64>,
    /// Default step (0.01).
    pub h: Option<f64>,
    /// Default final time, from `t0` (10).
    pub t_end: Option<f64>,
}

/// The autonomous field `(1, f(t, y))` on `z = (t, y) ∈ R^M`, `M = n + 1`.
#[derive(Clone)]
struct TimeField<const M: usize>(Field);

impl<const M: usize> VectorField<SVector<f64, M>> for TimeField<M> {
    #[inline]
    fn eval(&self, z: &SVector<f64, M>) -> Result<SVector<f64, M>, GeomError> {
        let mut out = SVector::<f64, M>::from_element(f64::NAN);
        out[0] = 1.0;
        match &self.0 {
            // SAFETY: `Compiled::new`'s contract; `y` and `out[1..]` hold M − 1 values.
            Field::Compiled(c) => unsafe {
                (c.f)((M - 1) as c_int, z[0], z.as_ptr().add(1), out.as_mut_ptr().add(1), c.user_data)
            },
            Field::Host(f) => f(z[0], &z.as_slice()[1..], &mut out.as_mut_slice()[1..]),
        }
        if out.iter().all(|v| v.is_finite()) { Ok(out) } else { Err(GeomError::NonFinite { what: "f(t, y)" }) }
    }
}

/// Reads `(t, y)` and the invariants `g(y)`.
#[derive(Clone)]
struct Observer(Vec<Energy>);

impl<const M: usize> Observe<SVector<f64, M>> for Observer {
    fn coordinates(&self, z: &SVector<f64, M>) -> Vec<f64> {
        z.as_slice().to_vec()
    }
    fn quantities(&self, z: &SVector<f64, M>) -> Vec<f64> {
        self.0.iter().map(|g| g.eval_slice(&z.as_slice()[1..])).collect()
    }
}

#[derive(Clone)]
struct FieldProblem<const M: usize> {
    field: TimeField<M>,
    observer: Observer,
    quantities: Vec<Quantity>,
    start: SVector<f64, M>,
    defaults: (f64, f64),
}

impl<const M: usize> Problem for FieldProblem<M> {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "dy/dt = f(t, y) given by a callback; the state is (t, y)"
    }
    fn family(&self) -> Family {
        Family::Ode
    }
    fn methods(&self) -> Vec<&'static str> {
        METHODS.to_vec()
    }
    fn defaults(&self) -> (f64, f64) {
        self.defaults
    }
    fn state_labels(&self) -> Vec<String> {
        std::iter::once("t".to_string()).chain((1..M).map(|i| format!("y{i}"))).collect()
    }
    fn quantities(&self) -> Vec<Quantity> {
        self.quantities.clone()
    }
    fn reference(&self) -> (&'static str, usize) {
        ("dop853", 4)
    }
    fn start_method(&self, method: &MethodInfo, h: f64) -> Result<Box<dyn Simulation>, WorkbenchError> {
        let geom = WorkbenchError::Geom;
        let f = self.field.clone();
        let step: Box<dyn OneStep<SVector<f64, M>>> = match method.name {
            "dop853" => Box::new(Dop853::new(f)),
            "rk4" => Box::new(ExplicitRk::<_, 4>::new(&tableau::rk4(), f).map_err(geom)?),
            "explicit-euler" => Box::new(ExplicitRk::<_, 1>::new(&tableau::explicit_euler(), f).map_err(geom)?),
            name => return Err(WorkbenchError::Input(format!("method '{name}' does not apply to '{NAME}'"))),
        };
        Ok(Box::new(Run::new(step, self.start, h, self.observer.clone())?))
    }
    fn initial_state(&self) -> Result<Vec<f64>, WorkbenchError> {
        Ok(self.start.as_slice().to_vec())
    }
    fn with_state(&self, state: &[f64]) -> Result<Box<dyn Problem>, WorkbenchError> {
        check_state(self, state)?;
        Ok(Box::new(Self { start: SVector::from_column_slice(state), ..self.clone() }))
    }
}

fn input(msg: impl Into<String>) -> WorkbenchError {
    WorkbenchError::Input(msg.into())
}

impl FieldSpec {
    /// The problem: `1 ≤ n ≤` [`MAX_DIMENSION`] finite values in `y0`, a finite `t0`, `h` and
    /// `t_end` finite and positive, distinct non-empty invariant names. (The callbacks are first
    /// called by the first step.)
    pub fn problem(&self) -> Result<Box<dyn Problem>, WorkbenchError> {
        match self.y0.len() {
            1 => self.build::<2>(),
            2 => self.build::<3>(),
            3 => self.build::<4>(),
            4 => self.build::<5>(),
            5 => self.build::<6>(),
            6 => self.build::<7>(),
            7 => self.build::<8>(),
            8 => self.build::<9>(),
            n => Err(input(format!("y0 has {n} values; a vector field has 1 to {MAX_DIMENSION}"))),
        }
    }

    fn build<const M: usize>(&self) -> Result<Box<dyn Problem>, WorkbenchError> {
        if !(self.t0.is_finite() && self.y0.iter().all(|v| v.is_finite())) {
            return Err(input("t0 and y0 must be finite"));
        }
        let (h, t_end) = (self.h.unwrap_or(0.01), self.t_end.unwrap_or(10.0));
        if !(h.is_finite() && h > 0.0 && t_end.is_finite() && t_end > 0.0) {
            return Err(input(format!("h and t_end must be finite and positive, got {h} and {t_end}")));
        }
        let mut quantities = Vec::with_capacity(self.invariants.len());
        for (name, _) in &self.invariants {
            if name.is_empty() || quantities.iter().any(|q: &Quantity| q.name == name) {
                return Err(input(format!("invariant names must be distinct and non-empty, got '{name}'")));
            }
            quantities.push(Quantity::new(intern(name), Kind::Energy, 1, "g(y) by the callback"));
        }
        let start = SVector::from_iterator(std::iter::once(self.t0).chain(self.y0.iter().copied()));
        Ok(Box::new(FieldProblem::<M> {
            field: TimeField(self.field.clone()),
            observer: Observer(self.invariants.iter().map(|(_, g)| g.clone()).collect()),
            quantities,
            start,
            defaults: (h, t_end),
        }))
    }
}
