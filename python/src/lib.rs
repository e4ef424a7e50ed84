//! `geomint._native`: the extension module of the Python package `geomint`, a thin PyO3 layer
//! over `geomint-engine`. Arrays come in as numpy arrays and are copied once, the GIL is
//! released while integrating (`Python::detach`), and results go out as numpy arrays in a
//! dict that the Python package wraps in its result classes.
//!
//! Errors: a [`WorkbenchError::Input`] raises `ValueError` with the workbench's message (the
//! text the CLI prints after `error: `, the CLI's option names replaced by Python's parameter
//! names: [`py_names`]), a failed integration raises `geomint.IntegrationError` (a
//! `RuntimeError`), an I/O error `OSError`, samples that would not fit in memory `MemoryError`.
//!
//! Signals: every call that integrates runs the steps on a worker thread while the calling
//! thread, the GIL released, waits for it and checks Python's signals every [`POLL`]
//! ([`interruptible`], [`wait`]). A signal handler's exception (Ctrl-C's `KeyboardInterrupt`)
//! sets the run's stop flag, which the workbench's loop reads between chunks of steps; the call
//! waits for the worker to stop and raises the exception. A [`PySimulation`] keeps its state at
//! the last whole chunk.

// (the module docs above name private items: this crate is read in its source, not on docs.rs)
#![allow(rustdoc::private_intra_doc_links)]

mod callbacks;

use callbacks::{HostErrors, raise_stored};
use geomint::geom_core::GeomError;
use geomint::geom_core::step::PhaseState;
use geomint::workbench::WorkbenchError;
use geomint::workbench::catalogue::lie_system::{LieSystemSpec, declares_group};
use geomint::workbench::catalogue::nbody::Bodies;
use geomint::workbench::catalogue::system::SystemSpec;
use geomint::workbench::checkpoint::Outcome;
use geomint::workbench::experiment::RunResult;
use geomint::workbench::problem::{Kind, Problem, Quantity};
use geomint_engine::simulation::{self, Pending, RunError, Simulation, Start};
use geomint_engine::{self as engine, Ensemble, EnsembleError, Origin, System};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

pyo3::create_exception!(
    geomint,
    IntegrationError,
    PyRuntimeError,
    "A step of the integration failed (Newton did not converge, the state left the domain, ...); \
     the message is the one the CLI prints."
);

/// The workbench's message with the CLI's option names replaced by the Python parameters that
/// set the same thing (`--every` → `every`, `--t-end` → `t_end`, ...).
fn py_names(msg: &str) -> String {
    const NAMES: [(&str, &str); 7] = [
        ("--every", "every"),
        ("--steps", "steps"),
        ("--t-end", "t_end"),
        ("t-end", "t_end"),
        ("--state", "state"),
        ("--param", "params"),
        ("--threads", "threads"),
    ];
    NAMES.iter().fold(msg.to_string(), |m, (cli, py)| m.replace(cli, py))
}

fn to_py(e: WorkbenchError) -> PyErr {
    match e {
        WorkbenchError::Input(msg) => PyValueError::new_err(py_names(&msg)),
        WorkbenchError::Io { .. } | WorkbenchError::Read { .. } | WorkbenchError::Locked { .. } => {
            PyOSError::new_err(e.to_string())
        }
        WorkbenchError::Geom(_) | WorkbenchError::Step { .. } => IntegrationError::new_err(e.to_string()),
        WorkbenchError::Stopped => PyKeyboardInterrupt::new_err(e.to_string()),
    }
}

fn run_err(e: RunError) -> PyErr {
    match e {
        RunError::Workbench(e) => to_py(e),
        RunError::Memory(msg) => PyMemoryError::new_err(msg),
    }
}

/// The error of an ensemble whose rows are members `first_member, first_member + 1, ...` of a
/// larger one (a chunk of a Dask ensemble): the member named by its global index.
fn ensemble_err(mut e: EnsembleError, first_member: usize) -> PyErr {
    e.member = e.member.map(|i| i + first_member);
    let msg = py_names(&e.to_string());
    match e.source {
        WorkbenchError::Input(_) => PyValueError::new_err(msg),
        WorkbenchError::Io { .. } | WorkbenchError::Read { .. } | WorkbenchError::Locked { .. } => {
            PyOSError::new_err(msg)
        }
        WorkbenchError::Geom(_) | WorkbenchError::Step { .. } => IntegrationError::new_err(msg),
        WorkbenchError::Stopped => PyKeyboardInterrupt::new_err(msg),
    }
}

/// How often a waiting call checks Python's signals.
const POLL: Duration = Duration::from_millis(50);

/// Runs `job` on a worker thread while this thread, the GIL released, waits for it and checks
/// Python's signals every [`POLL`]. A signal handler's exception (a `KeyboardInterrupt`) sets
/// the stop flag given to `job`, waits for `job` to return (the workbench's loop reads the flag
/// between chunks of steps) and is raised.
fn interruptible<T: Send>(py: Python<'_>, job: impl FnOnce(&AtomicBool) -> T + Send) -> PyResult<T> {
    let stop = AtomicBool::new(false);
    py.detach(|| {
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel();
            let stop = &stop;
            scope.spawn(move || {
                let _ = tx.send(job(stop));
            });
            loop {
                match rx.recv_timeout(POLL) {
                    Ok(v) => return Ok(v),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if let Err(e) = Python::attach(|py| py.check_signals()) {
                            stop.store(true, Ordering::SeqCst);
                            let _ = rx.recv();
                            return Err(e);
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        return Err(PyRuntimeError::new_err("the integration's thread ended without a result"));
                    }
                }
            }
        })
    })
}

/// Waits for the answer of a job on a simulation's thread as [`interruptible`] waits: a signal
/// handler's exception stops the job at its next chunk of steps, and is raised once it has.
fn wait<T: Send>(py: Python<'_>, pending: &mut Pending<T>) -> PyResult<T> {
    loop {
        let p = &mut *pending;
        if let Some(v) = py.detach(move || p.wait(POLL)).map_err(to_py)? {
            return Ok(v);
        }
        if let Err(e) = py.check_signals() {
            pending.stop();
            let p = &mut *pending;
            py.detach(move || while let Ok(None) = p.wait(POLL) {});
            return Err(e);
        }
    }
}

/// The values (row-major) and shape of a float64 array of any layout, copied: the GIL is
/// released while they are used. (Arrays unpickled by Dask may be neither contiguous nor
/// aligned; those are read element by element.)
fn values(a: &PyReadonlyArrayDyn<'_, f64>) -> (Vec<f64>, Vec<usize>) {
    let v = match a.as_slice() {
        Ok(s) => s.to_vec(),
        Err(_) => a.as_array().iter().copied().collect(),
    };
    (v, a.shape().to_vec())
}

fn optional_steps(steps: Option<i64>) -> PyResult<Option<usize>> {
    match steps {
        Some(n) if n < 0 => Err(PyValueError::new_err(format!("steps must be a positive integer, got {n}"))),
        Some(n) => Ok(Some(n as usize)),
        None => Ok(None),
    }
}

/// `ValueError` unless `path` is a regular file (after symlinks): a FIFO would block the read
/// forever and a device (`/dev/zero`) never ends. A path that cannot be examined is left to the
/// reader, which reports it.
fn regular_file(path: &std::path::Path) -> PyResult<()> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => Err(PyValueError::new_err(format!(
            "{} is not a regular file (a FIFO, device or directory)",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// `MemoryError` unless `rows × cols` floats can be allocated twice (the result and its copy
/// into numpy), so that a huge count fails before anything is allocated instead of aborting
/// the interpreter when the allocation fails.
fn fits_in_memory(what: &str, rows: usize, cols: usize) -> PyResult<()> {
    let total = rows.checked_mul(cols).and_then(|n| n.checked_mul(2));
    let ok = total.is_some_and(|n| Vec::<f64>::new().try_reserve_exact(n).is_ok());
    if ok {
        Ok(())
    } else {
        Err(PyMemoryError::new_err(format!("{what}: {rows} × {cols} values do not fit in memory")))
    }
}

fn optional_count(what: &str, n: Option<i64>) -> PyResult<Option<usize>> {
    match n {
        Some(k) if k < 1 => Err(PyValueError::new_err(format!("{what} must be at least 1, got {k}"))),
        Some(k) => Ok(Some(k as usize)),
        None => Ok(None),
    }
}

fn kind(k: Kind) -> &'static str {
    match k {
        Kind::Energy => "energy",
        Kind::Momentum => "momentum",
        Kind::Casimir => "casimir",
        Kind::Constraint => "constraint",
    }
}

/// `[(name, kind, dim, formula), ...]`.
fn quantities<'py>(py: Python<'py>, qs: &[Quantity]) -> PyResult<Bound<'py, PyList>> {
    let items: Vec<(&str, &str, usize, &str)> = qs.iter().map(|q| (q.name, kind(q.kind), q.dim, q.formula)).collect();
    PyList::new(py, items)
}

/// A float64 array of shape `(rows, cols)` from row-major values.
fn matrix<'py>(py: Python<'py>, v: Vec<f64>, rows: usize, cols: usize) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyArray1::from_vec(py, v).reshape([rows, cols])?.into_any())
}

// -----------------------------------------------------------------------------------------------

/// A system to integrate: a catalogue problem with its parameters, or a system built from data
/// (`nbody`, `rigid_body`, `heavy_top`). Immutable; picklable (for Dask).
#[pyclass(module = "geomint", name = "System", frozen)]
struct PySystem {
    system: System,
    /// The constructor and its arguments, for pickling: the same inputs rebuild the same bits.
    /// `None` for a system of callbacks, which cannot be pickled.
    reduce: Option<(&'static str, Py<PyTuple>)>,
    /// For a system of callbacks: the Python objects that must outlive it (the functions, the
    /// objects that own compiled code and user data) and the errors of its Python callbacks.
    callbacks: Option<(Py<PyAny>, Arc<HostErrors>)>,
}

impl PySystem {
    fn new(system: System, reduce: (&'static str, Py<PyTuple>)) -> PyResult<Self> {
        Ok(Self { system, reduce: Some(reduce), callbacks: None })
    }
    fn host(&self) -> Option<&Arc<HostErrors>> {
        self.callbacks.as_ref().map(|c| &c.1)
    }
    fn problem(&self) -> &dyn Problem {
        self.system.problem()
    }
}

#[pymethods]
impl PySystem {
    /// The problem's name (`kepler`, `nbody`, `rigid-body`, ...).
    #[getter]
    fn name(&self) -> &'static str {
        self.problem().name()
    }
    /// One line: the system and its data.
    #[getter]
    fn summary(&self) -> &'static str {
        self.problem().summary()
    }
    /// `canonical`, `lie-group` or `groupoid`.
    #[getter]
    fn family(&self) -> &'static str {
        engine::family_key(self.problem().family())
    }
    /// The labels of the state coordinates.
    #[getter]
    fn labels(&self) -> Vec<String> {
        self.problem().state_labels()
    }
    /// The names of the methods that apply, the default first.
    #[getter]
    fn methods(&self) -> Vec<&'static str> {
        self.problem().methods()
    }
    /// The default step size and final time.
    #[getter]
    fn defaults(&self) -> (f64, f64) {
        self.problem().defaults()
    }
    /// The monitored quantities, `[(name, kind, dim, formula), ...]`.
    #[getter]
    fn quantities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        quantities(py, &self.problem().quantities())
    }
    /// The catalogue parameters (empty for systems built from data).
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        if let Origin::Catalogue { params, .. } = self.system.origin() {
            for (k, v) in params {
                d.set_item(k, v)?;
            }
        }
        Ok(d)
    }
    /// The initial state, in the coordinates of `labels`.
    #[getter]
    fn initial_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        Ok(PyArray1::from_vec(py, self.problem().initial_state().map_err(to_py)?))
    }
    fn __repr__(&self) -> String {
        match self.system.origin() {
            Origin::Catalogue { name, params } if params.is_empty() => format!("geomint.problem('{name}')"),
            Origin::Catalogue { name, params } => {
                let p: Vec<String> = params.iter().map(|(k, v)| format!("'{k}': {v:?}")).collect();
                format!("geomint.problem('{name}', params={{{}}})", p.join(", "))
            }
            Origin::NBody(b) => {
                format!("<geomint.System nbody: {} bodies in R^{}, G = {:?}>", b.masses().len(), b.dim(), b.g())
            }
            Origin::Body => format!("<geomint.System {}: {}>", self.problem().name(), self.problem().summary()),
            Origin::Formula(_) | Origin::Callback | Origin::VectorField | Origin::Lie(_) => {
                format!("<geomint.System {}: {}>", self.problem().name(), self.problem().summary())
            }
        }
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let Some(reduce) = &self.reduce else {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "a system of callbacks cannot be pickled (its functions live in this process); write it as formulas \
                 (geomint.hamiltonian) to send it to other processes",
            ));
        };
        let module = py.import("geomint._native")?;
        Ok((module.getattr(reduce.0)?, reduce.1.bind(py).clone()))
    }
}

// -----------------------------------------------------------------------------------------------

/// The catalogue: `[(name, description), ...]`.
#[pyfunction]
fn problems() -> Vec<(&'static str, String)> {
    engine::problem_descriptions()
}

/// The methods that apply to `system`: `[(name, description), ...]`, the default first.
#[pyfunction]
fn methods(system: &Bound<'_, PySystem>) -> Vec<(&'static str, String)> {
    engine::method_descriptions(system.get().problem())
}

/// The catalogue problem `name` with `params` (others at their defaults).
#[pyfunction]
#[pyo3(signature = (name, params=None))]
fn problem(py: Python<'_>, name: &str, params: Option<Vec<(String, f64)>>) -> PyResult<PySystem> {
    let params = params.unwrap_or_default();
    let system = System::catalogue(name, &params).map_err(to_py)?;
    let dict = PyDict::new(py);
    for (k, v) in &params {
        dict.set_item(k, v)?;
    }
    let args = PyTuple::new(py, [name.into_pyobject(py)?.into_any(), dict.into_any()])?;
    PySystem::new(system, ("_problem_from_dict", args.unbind()))
}

/// Rebuilds a catalogue problem from `(name, {param: value})` (unpickling).
#[pyfunction]
fn _problem_from_dict(py: Python<'_>, name: &str, params: &Bound<'_, PyDict>) -> PyResult<PySystem> {
    let params: Vec<(String, f64)> =
        params.iter().map(|(k, v)| Ok((k.extract()?, v.extract()?))).collect::<PyResult<_>>()?;
    problem(py, name, Some(params))
}

/// A fresh float64 array (a copy: the arrays a system was built from may change later).
fn copy<'py>(py: Python<'py>, a: &(Vec<f64>, Vec<usize>)) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyArray1::from_slice(py, &a.0).reshape(a.1.clone())?.into_any())
}

fn optional_copy<'py>(py: Python<'py>, a: &Option<(Vec<f64>, Vec<usize>)>) -> PyResult<Bound<'py, PyAny>> {
    match a {
        Some(a) => copy(py, a),
        None => Ok(py.None().into_bound(py)),
    }
}

/// A gravitational N-body system: `masses` (B,), `positions` and `velocities` (B, 2) or (B, 3),
/// gravitational constant `G`, any number of bodies. Its state is `(q, p)` with `p_i = m_i v_i`.
#[pyfunction]
#[pyo3(signature = (masses, positions, velocities, G=1.0))]
#[allow(non_snake_case)]
fn nbody(
    py: Python<'_>,
    masses: PyReadonlyArrayDyn<'_, f64>,
    positions: PyReadonlyArrayDyn<'_, f64>,
    velocities: PyReadonlyArrayDyn<'_, f64>,
    G: f64,
) -> PyResult<PySystem> {
    let m = values(&masses);
    if m.1.len() != 1 {
        return Err(PyValueError::new_err(format!("masses must be a 1-D array, got shape {}", engine::py_shape(&m.1))));
    }
    let q = values(&positions);
    let v = values(&velocities);
    let system = System::nbody(G, &m.0, (&q.0, &q.1), (&v.0, &v.1)).map_err(to_py)?;
    let args = PyTuple::new(py, [copy(py, &m)?, copy(py, &q)?, copy(py, &v)?, G.into_pyobject(py)?.into_any()])?;
    PySystem::new(system, ("nbody", args.unbind()))
}

/// The N-body system of the file `path` (lines `mass, x, y, z, vx, vy, vz` or
/// `mass, x, y, vx, vy`; the format of `geomint run nbody --system FILE`), with gravitational
/// constant `G`. Pickled as `nbody(masses, positions, velocities, G)`.
#[pyfunction]
#[pyo3(signature = (path, G=1.0))]
#[allow(non_snake_case)]
fn nbody_file(py: Python<'_>, path: std::path::PathBuf, G: f64) -> PyResult<PySystem> {
    regular_file(&path)?;
    let bodies = Bodies::read(&path, G).map_err(to_py)?;
    let (b, d) = (bodies.masses().len(), bodies.dim());
    let m = (bodies.masses().to_vec(), vec![b]);
    let q = (bodies.positions().to_vec(), vec![b, d]);
    let v = (bodies.velocities().to_vec(), vec![b, d]);
    let args = PyTuple::new(py, [copy(py, &m)?, copy(py, &q)?, copy(py, &v)?, G.into_pyobject(py)?.into_any()])?;
    PySystem::new(System::bodies(bodies).map_err(to_py)?, ("nbody", args.unbind()))
}

/// A Hamiltonian system on `T*R^n` (`n` = 1 to 4, 6 or 9) written as formulas, parsed once in
/// Rust and differentiated exactly (symbolic derivatives compiled once; no Python in the loop): `H` in the
/// coordinates named `q` and momenta named `p`, or a separable `T` (momenta only) and `V`
/// (coordinates only); `params` (name → value), `invariants` (name → formula in `q`, `p`),
/// initial state `q0`, `p0`, default step `h` and final time `t_end`. The format of
/// `geomint run --system FILE.toml`. Pickled as its TOML text.
#[pyfunction]
#[pyo3(signature = (H=None, *, q, p, q0, p0, T=None, V=None, params=None, invariants=None, name=None, h=None, t_end=None))]
#[allow(non_snake_case, clippy::too_many_arguments)]
fn hamiltonian(
    py: Python<'_>,
    H: Option<String>,
    q: Vec<String>,
    p: Vec<String>,
    q0: Vec<f64>,
    p0: Vec<f64>,
    T: Option<String>,
    V: Option<String>,
    params: Option<std::collections::BTreeMap<String, f64>>,
    invariants: Option<std::collections::BTreeMap<String, String>>,
    name: Option<String>,
    h: Option<f64>,
    t_end: Option<f64>,
) -> PyResult<PySystem> {
    let spec = SystemSpec {
        name,
        q,
        p,
        hamiltonian: H,
        kinetic: T,
        potential: V,
        q0,
        p0,
        h,
        t_end,
        params: params.unwrap_or_default(),
        invariants: invariants.unwrap_or_default(),
        ..SystemSpec::default()
    };
    formula_system(py, spec, "geomint.hamiltonian")
}

/// A Lagrangian system on `TR^n` (`n` = 1 to 4, 6 or 9) written as a formula, parsed once in
/// Rust: `L` in the coordinates named `q` and the velocities named `v` (distinct names),
/// `params` (name → value), `invariants` (name → formula in `q`, `v`), initial coordinates `q0`
/// and velocities `v0` (the momenta `p0 = ∂L/∂v(q0, v0)` are computed), default step `h` and
/// final time `t_end`. Its method is `del-midpoint`, the midpoint discrete Euler–Lagrange flow
/// `L_d(q_0, q_1) = h L((q_0 + q_1)/2, (q_1 − q_0)/h)` on the pair groupoid, on the state
/// `(q, p)`; the energy `E = v·∂L/∂v − L` is monitored. The `L` form of
/// `geomint run --system FILE.toml`. Pickled as its TOML text.
#[pyfunction]
#[pyo3(signature = (L, *, q, v, q0, v0, params=None, invariants=None, name=None, h=None, t_end=None))]
#[allow(non_snake_case, clippy::too_many_arguments)]
fn lagrangian(
    py: Python<'_>,
    L: String,
    q: Vec<String>,
    v: Vec<String>,
    q0: Vec<f64>,
    v0: Vec<f64>,
    params: Option<std::collections::BTreeMap<String, f64>>,
    invariants: Option<std::collections::BTreeMap<String, String>>,
    name: Option<String>,
    h: Option<f64>,
    t_end: Option<f64>,
) -> PyResult<PySystem> {
    let spec = SystemSpec {
        name,
        q,
        v,
        lagrangian: Some(L),
        q0,
        v0,
        h,
        t_end,
        params: params.unwrap_or_default(),
        invariants: invariants.unwrap_or_default(),
        ..SystemSpec::default()
    };
    formula_system(py, spec, "geomint.lagrangian")
}

fn formula_system(py: Python<'_>, spec: SystemSpec, origin: &str) -> PyResult<PySystem> {
    let toml = spec.to_toml();
    let system = System::formula(spec, origin).map_err(to_py)?;
    let args = PyTuple::new(py, [toml.into_pyobject(py)?.into_any()])?;
    PySystem::new(system, ("_system_from_toml", args.unbind()))
}

/// A separable Hamiltonian `H = T(p) + V(q)` on `T*R^n` (`n` = 1 to 4) given by callbacks
/// (see `geomint.Hamiltonian`): each of `grad_T`, `grad_V`, `T`, `V` is a Python callable or
/// a tuple `(address, user_data)` of a compiled function; `keep` holds the Python objects that
/// must live as long as the system.
#[pyfunction]
#[pyo3(signature = (grad_T, grad_V, q0, p0, T=None, V=None, h=None, t_end=None, keep=None))]
#[allow(non_snake_case, clippy::too_many_arguments)]
fn _callback_hamiltonian(
    py: Python<'_>,
    grad_T: &Bound<'_, PyAny>,
    grad_V: &Bound<'_, PyAny>,
    q0: Vec<f64>,
    p0: Vec<f64>,
    T: Option<&Bound<'_, PyAny>>,
    V: Option<&Bound<'_, PyAny>>,
    h: Option<f64>,
    t_end: Option<f64>,
    keep: Option<Py<PyAny>>,
) -> PyResult<PySystem> {
    let energy = match (T, V) {
        (Some(t), Some(v)) => Some((t, v)),
        (None, None) => None,
        _ => return Err(PyValueError::new_err("give both T and V (for the energy) or neither")),
    };
    let (spec, errors) = callbacks::spec(grad_T, grad_V, energy, q0, p0, h, t_end)?;
    let system = System::callback(&spec).map_err(to_py)?;
    Ok(PySystem { system, reduce: None, callbacks: Some((keep.unwrap_or_else(|| py.None()), errors)) })
}

/// An ODE `ẏ = f(t, y)` on `R^n` given by callbacks (see `geomint.ode`): `f` and each
/// invariant are a Python callable or a tuple `(address, user_data)` of a compiled function;
/// `keep` holds the Python objects that must live as long as the system.
#[pyfunction]
#[pyo3(signature = (f, y0, t0=0.0, invariants=Vec::new(), h=None, t_end=None, keep=None))]
#[allow(clippy::too_many_arguments)]
fn _vector_field(
    py: Python<'_>,
    f: &Bound<'_, PyAny>,
    y0: Vec<f64>,
    t0: f64,
    invariants: Vec<(String, Bound<'_, PyAny>)>,
    h: Option<f64>,
    t_end: Option<f64>,
    keep: Option<Py<PyAny>>,
) -> PyResult<PySystem> {
    let (spec, errors) = callbacks::field_spec(f, invariants, t0, y0, h, t_end)?;
    let system = System::vector_field(&spec).map_err(to_py)?;
    Ok(PySystem { system, reduce: None, callbacks: Some((keep.unwrap_or_else(|| py.None()), errors)) })
}

/// The system of the TOML file `path` (the format of `geomint run --system FILE.toml`): a
/// Hamiltonian or Lagrangian of formulas (see [`hamiltonian`], [`lagrangian`]), or a rigid body when the file declares a
/// `group` (see [`lie_system`]).
#[pyfunction]
fn system_file(py: Python<'_>, path: std::path::PathBuf) -> PyResult<PySystem> {
    regular_file(&path)?;
    let origin = format!("system file {}", path.display());
    let text = std::fs::read_to_string(&path)
        .map_err(|e| to_py(WorkbenchError::Input(format!("{origin}: cannot read it: {e}"))))?;
    if declares_group(&text) {
        return body_system(py, LieSystemSpec::from_toml(&text, &origin).map_err(to_py)?, &origin);
    }
    formula_system(py, SystemSpec::from_toml(&text, &origin).map_err(to_py)?, &origin)
}

/// A rigid body on SO(3) or SE(3) written as formulas (`group` in a system file): inertia
/// `inertia` (3 principal moments or a 3 × 3 tensor), potential `V(R)` as a formula in the
/// entries `r11 … r33` of `R` with `params` (none: a free body), initial body momentum `Pi0` and
/// attitude `R0` (a rotation) or `R0 = exp(R0_axis_angle^)` (identity by default), default step
/// `h` and final time `t_end`; on SE(3) `inertia` is the 6 × 6 metric, `V` also takes `x1, x2,
/// x3`, and `x0`, `P0` are the initial position and body linear momentum. Pickled as its TOML
/// text.
#[pyfunction]
#[pyo3(signature = (inertia, Pi0, *, V=None, params=None, R0=None, R0_axis_angle=None, x0=None, P0=None, group=None, name=None, h=None, t_end=None))]
#[allow(non_snake_case, clippy::too_many_arguments)]
fn lie_system(
    py: Python<'_>,
    inertia: Vec<f64>,
    Pi0: Vec<f64>,
    V: Option<String>,
    params: Option<std::collections::BTreeMap<String, f64>>,
    R0: Option<Vec<f64>>,
    R0_axis_angle: Option<Vec<f64>>,
    x0: Option<Vec<f64>>,
    P0: Option<Vec<f64>>,
    group: Option<String>,
    name: Option<String>,
    h: Option<f64>,
    t_end: Option<f64>,
) -> PyResult<PySystem> {
    let spec = LieSystemSpec {
        name,
        group: group.unwrap_or_else(|| "SO(3)".into()),
        inertia,
        potential: V,
        r0: R0,
        r0_axis_angle: R0_axis_angle,
        pi0: Pi0,
        x0,
        p0: P0,
        h,
        t_end,
        params: params.unwrap_or_default(),
    };
    body_system(py, spec, "geomint.lie_system")
}

fn body_system(py: Python<'_>, spec: LieSystemSpec, origin: &str) -> PyResult<PySystem> {
    let toml = spec.to_toml();
    let system = System::lie(spec, origin).map_err(to_py)?;
    let args = PyTuple::new(py, [toml.into_pyobject(py)?.into_any()])?;
    PySystem::new(system, ("_lie_system_from_toml", args.unbind()))
}

/// Rebuilds a rigid body of formulas from its TOML text (unpickling).
#[pyfunction]
fn _lie_system_from_toml(py: Python<'_>, text: &str) -> PyResult<PySystem> {
    body_system(py, LieSystemSpec::from_toml(text, "system").map_err(to_py)?, "system")
}

/// Rebuilds a system of formulas from its TOML text (unpickling).
#[pyfunction]
fn _system_from_toml(py: Python<'_>, text: &str) -> PyResult<PySystem> {
    formula_system(py, SystemSpec::from_toml(text, "system").map_err(to_py)?, "system")
}

/// A free rigid body of inertia `inertia` (3 principal moments or a 3 × 3 matrix) with body
/// momentum `Pi` and attitude `R` (3 × 3 rotation, identity by default).
#[pyfunction]
#[pyo3(signature = (inertia, Pi, R=None))]
#[allow(non_snake_case)]
fn rigid_body(
    py: Python<'_>,
    inertia: PyReadonlyArrayDyn<'_, f64>,
    Pi: PyReadonlyArrayDyn<'_, f64>,
    R: Option<PyReadonlyArrayDyn<'_, f64>>,
) -> PyResult<PySystem> {
    let i = values(&inertia);
    let pi = values(&Pi);
    let r = R.as_ref().map(values);
    let system = System::rigid_body(&i.0, &pi.0, r.as_ref().map(|r| r.0.as_slice())).map_err(to_py)?;
    let args = PyTuple::new(py, [copy(py, &i)?, copy(py, &pi)?, optional_copy(py, &r)?])?;
    PySystem::new(system, ("rigid_body", args.unbind()))
}

/// A heavy top of inertia `inertia` (about the fixed point), weight times length `mgl` and body
/// direction `chi` of the centre of mass, with body momentum `Pi` and attitude `R`.
#[pyfunction]
#[pyo3(signature = (inertia, Pi, R=None, mgl=1.0, chi=None))]
#[allow(non_snake_case)]
fn heavy_top(
    py: Python<'_>,
    inertia: PyReadonlyArrayDyn<'_, f64>,
    Pi: PyReadonlyArrayDyn<'_, f64>,
    R: Option<PyReadonlyArrayDyn<'_, f64>>,
    mgl: f64,
    chi: Option<PyReadonlyArrayDyn<'_, f64>>,
) -> PyResult<PySystem> {
    let i = values(&inertia);
    let pi = values(&Pi);
    let r = R.as_ref().map(values);
    let c = chi.as_ref().map(values);
    let chi_values = c.as_ref().map_or(vec![0.0, 0.0, 1.0], |c| c.0.clone());
    let system = System::heavy_top(&i.0, mgl, &chi_values, &pi.0, r.as_ref().map(|r| r.0.as_slice())).map_err(to_py)?;
    let args = PyTuple::new(
        py,
        [
            copy(py, &i)?,
            copy(py, &pi)?,
            optional_copy(py, &r)?,
            mgl.into_pyobject(py)?.into_any(),
            optional_copy(py, &c)?,
        ],
    )?;
    PySystem::new(system, ("heavy_top", args.unbind()))
}

fn run_dict<'py>(py: Python<'py>, r: RunResult) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let s = r.samples.len();
    let n = r.labels.len();
    let nv: usize = r.quantities.iter().map(|q| q.dim).sum();
    let k = r.quantities.len();
    d.set_item("problem", &r.problem)?;
    d.set_item("method", &r.method)?;
    d.set_item("h", r.spec.h)?;
    d.set_item("steps", r.spec.steps)?;
    d.set_item("every", r.spec.every)?;
    d.set_item("labels", &r.labels)?;
    d.set_item("quantities", quantities(py, &r.quantities)?)?;
    d.set_item("wall_seconds", r.wall_seconds)?;
    d.set_item("t", PyArray1::from_vec(py, r.samples.iter().map(|x| x.t).collect()))?;
    d.set_item("step", PyArray1::from_vec(py, r.samples.iter().map(|x| x.step as i64).collect()))?;
    let solution: Option<Vec<f64>> = r.samples.iter().map(|x| x.solution_error).collect();
    d.set_item("solution_error", solution.map(|v| PyArray1::from_vec(py, v)))?;
    let (mut states, mut vals, mut errs) =
        (Vec::with_capacity(s * n), Vec::with_capacity(s * nv), Vec::with_capacity(s * k));
    for x in r.samples {
        states.extend(x.state);
        vals.extend(x.values);
        errs.extend(x.errors);
    }
    d.set_item("states", matrix(py, states, s, n)?)?;
    d.set_item("values", matrix(py, vals, s, nv)?)?;
    d.set_item("errors", matrix(py, errs, s, k)?)?;
    Ok(d)
}

/// One run (see `geomint.run`).
#[pyfunction]
#[pyo3(signature = (system, method=None, h=None, steps=None, t_end=None, every=None, state=None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    system: &Bound<'py, PySystem>,
    method: Option<&str>,
    h: Option<f64>,
    steps: Option<i64>,
    t_end: Option<f64>,
    every: Option<i64>,
    state: Option<PyReadonlyArrayDyn<'py, f64>>,
) -> PyResult<Bound<'py, PyDict>> {
    let steps = optional_steps(steps)?;
    let every = optional_count("every", every)?;
    let state = state.as_ref().map(values);
    if let Some((_, shape)) = &state
        && shape.len() != 1
    {
        let labels = system.get().problem().state_labels();
        return Err(PyValueError::new_err(format!(
            "state of '{}' must be a 1-D array of {} coordinates ({}), got shape {}",
            system.get().problem().name(),
            labels.len(),
            engine::label_list(&labels),
            engine::py_shape(shape)
        )));
    }
    let sys = system.get();
    let spec = &sys.system;
    let state = state.as_ref().map(|s| s.0.as_slice());
    let job = |stop: &AtomicBool| simulation::run(spec, method, h, steps, t_end, every, state, stop);
    run_dict(py, integrate(py, sys, job)?)
}

/// Runs `job` (steps of `sys`, stopped by its flag) as every integrating call does: on a
/// worker thread, interruptible ([`interruptible`]), or here with the GIL held when `sys` has
/// Python callbacks (they check the signals themselves). A callback's stored exception is
/// raised as itself ([`raise_stored`]); a stopped job raises `KeyboardInterrupt`.
fn integrate<T: Send>(
    py: Python<'_>,
    sys: &PySystem,
    job: impl FnOnce(&AtomicBool) -> Result<Option<T>, RunError> + Send,
) -> PyResult<T> {
    let outcome = match sys.host() {
        Some(host) if host.python => job(&AtomicBool::new(false)),
        _ => interruptible(py, job)?,
    };
    let failure = match &outcome {
        Err(RunError::Workbench(e)) => Some(e),
        _ => None,
    };
    if let Some(e) = raise_stored(py, sys.host(), failure) {
        return Err(e);
    }
    match outcome {
        Ok(Some(result)) => Ok(result),
        Ok(None) => Err(PyKeyboardInterrupt::new_err("the run was interrupted")),
        Err(e) => Err(run_err(e)),
    }
}

/// The solution of a fixed-step run at the offsets `taus` from its start (see
/// `geomint.solve_hamiltonian` and [`engine::at_times::at_times`]): a dict of `states` and
/// `values` (one row per time) and `first` (the quantities at the start).
#[pyfunction]
#[pyo3(signature = (system, method, h, steps, taus, state=None))]
fn _at_times<'py>(
    py: Python<'py>,
    system: &Bound<'py, PySystem>,
    method: &str,
    h: f64,
    steps: i64,
    taus: PyReadonlyArrayDyn<'py, f64>,
    state: Option<PyReadonlyArrayDyn<'py, f64>>,
) -> PyResult<Bound<'py, PyDict>> {
    let steps = optional_steps(Some(steps))?.unwrap_or(1);
    let taus = values(&taus).0;
    let state = state.as_ref().map(values);
    let sys = system.get();
    let spec = &sys.system;
    let state = state.as_ref().map(|s| s.0.as_slice());
    let job = |stop: &AtomicBool| engine::at_times::at_times(spec, method, h, steps, state, &taus, stop);
    let r = integrate(py, sys, job)?;
    let rows = taus.len();
    let d = PyDict::new(py);
    d.set_item("states", matrix(py, r.states, rows, r.coordinates)?)?;
    d.set_item("values", matrix(py, r.values, rows, r.width)?)?;
    d.set_item("first", PyArray1::from_vec(py, r.first))?;
    Ok(d)
}

fn ensemble_dict<'py>(py: Python<'py>, e: Ensemble) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let (m, n, k) = (e.members, e.labels.len(), e.quantities.len());
    d.set_item("problem", &e.problem)?;
    d.set_item("method", &e.method)?;
    d.set_item("h", e.h)?;
    d.set_item("steps", e.steps)?;
    d.set_item("every", e.every)?;
    d.set_item("labels", &e.labels)?;
    d.set_item("quantities", quantities(py, &e.quantities)?)?;
    d.set_item("wall_seconds", e.wall_seconds)?;
    d.set_item("threads", e.threads)?;
    d.set_item("states", matrix(py, e.states, m, n)?)?;
    d.set_item("errors", matrix(py, e.errors, m, k)?)?;
    d.set_item("max_errors", e.max_errors.map(|v| matrix(py, v, m, k)).transpose()?)?;
    Ok(d)
}

/// An ensemble over the rows of `states` (see `geomint.ensemble`); the rows are members
/// `first_member, first_member + 1, ...` in the errors (a chunk of a Dask ensemble).
#[pyfunction]
#[pyo3(signature = (system, method, h, steps, states, every=None, threads=None, first_member=0))]
#[allow(clippy::too_many_arguments)]
fn ensemble<'py>(
    py: Python<'py>,
    system: &Bound<'py, PySystem>,
    method: Option<&str>,
    h: Option<f64>,
    steps: Option<i64>,
    states: PyReadonlyArrayDyn<'py, f64>,
    every: Option<i64>,
    threads: Option<i64>,
    first_member: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let steps = optional_steps(steps)?;
    let every = optional_count("every", every)?;
    let threads = optional_count("threads", threads)?;
    let (values, shape) = values(&states);
    let sys = system.get();
    let spec = &sys.system;
    let result = interruptible(py, |stop| {
        engine::ensemble(spec, method, h, steps, &values, &shape, every, threads, Some(stop))
    })?;
    if let Some(e) = raise_stored(py, sys.host(), result.as_ref().err().map(|e| &e.source)) {
        return Err(e);
    }
    ensemble_dict(py, result.map_err(|e| ensemble_err(e, first_member))?)
}

/// Checks the settings of an ensemble over states of shape `shape` without running it
/// (the same checks and messages as `ensemble`).
#[pyfunction]
#[pyo3(signature = (system, method, h, steps, shape, every=None, threads=None))]
fn check_ensemble(
    system: &Bound<'_, PySystem>,
    method: Option<&str>,
    h: Option<f64>,
    steps: Option<i64>,
    shape: Vec<usize>,
    every: Option<i64>,
    threads: Option<i64>,
) -> PyResult<()> {
    let steps = optional_steps(steps)?;
    let every = optional_count("every", every)?;
    let threads = optional_count("threads", threads)?;
    engine::check_ensemble(&system.get().system, method, h, steps, &shape, every, threads)
        .map_err(|e| ensemble_err(e, 0))?;
    Ok(())
}

/// The initial states of `geomint ensemble`: `members` perturbations of size `eps` of `state`
/// (default: the system's initial state) with the generator seeded by `seed`, shape (M, n).
#[pyfunction]
#[pyo3(signature = (system, members, eps, seed=0, state=None))]
fn perturbed_states<'py>(
    py: Python<'py>,
    system: &Bound<'py, PySystem>,
    members: i64,
    eps: f64,
    seed: u64,
    state: Option<PyReadonlyArrayDyn<'py, f64>>,
) -> PyResult<Bound<'py, PyAny>> {
    let members = optional_count("members", Some(members))?.unwrap_or(0);
    let state = state.as_ref().map(values);
    let sys = system.get();
    fits_in_memory("perturbed_states", members, sys.problem().state_labels().len())?;
    let states = engine::perturbed_states(&sys.system, members, eps, seed, state.as_ref().map(|s| s.0.as_slice()))
        .map_err(to_py)?;
    matrix(py, states, members, sys.problem().state_labels().len())
}

/// The exact Kepler flow of many states at once (`geomint.kepler_drift`): row `i` of `q`, `p`
/// (shape `(n, d)`, or `(d,)` for one state, `d` = 2 or 3) advanced by `t[i]` (`t` of shape
/// `(n,)`, or `()` for the same time for every row) under `H = |p|²/2 − μ/|q|` by
/// `integrators::splitting::KeplerDrift` (universal variables: with `r_0 = |q_0|`,
/// `η_0 = q_0·p_0`, `β = 2μ/r_0 − |p_0|²`, `G_k(s) = s^k c_k(βs²)`, the root `s` of
/// `r_0 G_1 + η_0 G_2 + μ G_3 = t` gives `q = f q_0 + g p_0`, `p = ḟ q_0 + ġ p_0` with
/// `f = 1 − μG_2/r_0`, `g = r_0 G_1 + η_0 G_2`, `ḟ = −μG_1/(r r_0)`, `ġ = 1 − μG_2/r`; Danby,
/// *Fundamentals of Celestial Mechanics*, 1988, §6.9). Returns `(q1, p1)` of the shape of `q`.
/// `ValueError` for a shape, a non-finite value, `mu ≤ 0` or `q = 0` (naming the row);
/// `IntegrationError` if Kepler's equation is not solved (it is in every case tested).
#[pyfunction]
fn kepler_drift<'py>(
    py: Python<'py>,
    mu: f64,
    q: PyReadonlyArrayDyn<'py, f64>,
    p: PyReadonlyArrayDyn<'py, f64>,
    t: PyReadonlyArrayDyn<'py, f64>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    use geomint::integrators::splitting::KeplerDrift;
    let kepler = KeplerDrift::new(mu).map_err(|e| PyValueError::new_err(format!("mu: {e}")))?;
    let (q, p, t) = (values(&q), values(&p), values(&t));
    let (rows, dim) = match q.1[..] {
        [d] => (None, d),
        [n, d] => (Some(n), d),
        _ => (None, 0),
    };
    if !(dim == 2 || dim == 3) {
        return Err(PyValueError::new_err(format!(
            "q must have shape (n, 3), (n, 2), (3,) or (2,), got {}",
            engine::py_shape(&q.1)
        )));
    }
    if p.1 != q.1 {
        return Err(PyValueError::new_err(format!(
            "p must have the shape of q, {}, got {}",
            engine::py_shape(&q.1),
            engine::py_shape(&p.1)
        )));
    }
    let n = rows.unwrap_or(1);
    let times_ok = t.1.is_empty() || rows.is_some() && t.1 == [n];
    if !times_ok {
        let expected = if rows.is_some() { format!("() or ({n},)") } else { "()".to_string() };
        return Err(PyValueError::new_err(format!("t must have shape {expected}, got {}", engine::py_shape(&t.1))));
    }
    fits_in_memory("kepler_drift", n, 2 * dim)?;
    let result = py.detach(|| {
        let (mut q1, mut p1) = (q.0.clone(), p.0.clone());
        for i in 0..n {
            let ti = if t.1.is_empty() { t.0[0] } else { t.0[i] };
            let row = i * dim..(i + 1) * dim;
            let done = match dim {
                2 => drift_row::<2>(&kepler, &mut q1[row.clone()], &mut p1[row], ti),
                _ => drift_row::<3>(&kepler, &mut q1[row.clone()], &mut p1[row], ti),
            };
            done.map_err(|e| (i, e))?;
        }
        Ok((q1, p1))
    });
    let (q1, p1) = result.map_err(|(i, e): (usize, GeomError)| {
        let msg = format!("kepler_drift, row {i}: {e}");
        match e {
            GeomError::NotConverged { .. } => IntegrationError::new_err(msg),
            _ => PyValueError::new_err(msg),
        }
    })?;
    let shape = q.1;
    Ok((copy(py, &(q1, shape.clone()))?, copy(py, &(p1, shape))?))
}

/// One row of [`kepler_drift`]: `(q, p) ← φ_t(q, p)` in place (untouched on an error).
fn drift_row<const N: usize>(
    kepler: &geomint::integrators::splitting::KeplerDrift,
    q: &mut [f64],
    p: &mut [f64],
    t: f64,
) -> Result<(), GeomError> {
    let mut state = PhaseState::<N>::new(std::array::from_fn(|k| q[k]).into(), std::array::from_fn(|k| p[k]).into());
    kepler.advance(&mut state, t)?;
    q.copy_from_slice(state.q.as_slice());
    p.copy_from_slice(state.p.as_slice());
    Ok(())
}

// -----------------------------------------------------------------------------------------------

/// The MEGNO of every row of `states` (see `geomint.megno` and [`engine::chaos::megno`]): a dict
/// of `mean` (`⟨Y⟩ = (1/n) Σ_{k≤n} Y_k`, → 2 on a torus, ≈ λt/2 on a chaotic orbit),
/// `lyapunov` (`ln|δ_n| / t_n`), both NaN where the orbit failed, and `failed` (bool), one entry
/// per row, with the settings. Interruptible: Ctrl-C ends the orbits at their next chunk of steps.
#[pyfunction]
#[pyo3(signature = (system, method, h, steps, states, threads=None))]
fn megno<'py>(
    py: Python<'py>,
    system: &Bound<'py, PySystem>,
    method: Option<&str>,
    h: Option<f64>,
    steps: Option<i64>,
    states: PyReadonlyArrayDyn<'py, f64>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let steps = optional_steps(steps)?;
    let threads = optional_count("threads", threads)?;
    let (values, shape) = values(&states);
    let sys = &system.get().system;
    engine::chaos::check_megno(sys, method, h, steps, &shape, threads).map_err(to_py)?;
    fits_in_memory("megno", shape[0], 3)?;
    let m =
        interruptible(py, |stop| engine::chaos::megno(sys, method, h, steps, &values, &shape, threads, Some(stop)))?
            .map_err(to_py)?;
    let d = PyDict::new(py);
    d.set_item("problem", &m.problem)?;
    d.set_item("method", &m.method)?;
    d.set_item("h", m.h)?;
    d.set_item("steps", m.steps)?;
    d.set_item("labels", &m.labels)?;
    d.set_item("mean", PyArray1::from_vec(py, m.mean))?;
    d.set_item("lyapunov", PyArray1::from_vec(py, m.lyapunov))?;
    d.set_item("failed", PyArray1::from_vec(py, m.failed))?;
    d.set_item("threads", m.threads)?;
    d.set_item("wall_seconds", m.wall_seconds)?;
    Ok(d)
}

/// Checks the settings of a MEGNO map over states of shape `shape` without running it (the
/// checks and messages of `megno`).
#[pyfunction]
#[pyo3(signature = (system, method, h, steps, shape, threads=None))]
fn check_megno(
    system: &Bound<'_, PySystem>,
    method: Option<&str>,
    h: Option<f64>,
    steps: Option<i64>,
    shape: Vec<usize>,
    threads: Option<i64>,
) -> PyResult<()> {
    let steps = optional_steps(steps)?;
    let threads = optional_count("threads", threads)?;
    engine::chaos::check_megno(&system.get().system, method, h, steps, &shape, threads).map_err(to_py)?;
    Ok(())
}

/// The crossings of a Poincaré section by one orbit (see `geomint.poincare` and
/// [`engine::chaos::poincare`]): a dict of `t` (k,), `states` (k, 2n), `energy` (k,) and the
/// settings. Interruptible between chunks of steps.
#[pyfunction]
#[pyo3(signature = (system, method=None, h=None, state=None, section=None, direction="up", count=200, max_steps=None))]
#[allow(clippy::too_many_arguments)]
fn poincare<'py>(
    py: Python<'py>,
    system: &Bound<'py, PySystem>,
    method: Option<&str>,
    h: Option<f64>,
    state: Option<PyReadonlyArrayDyn<'py, f64>>,
    section: Option<&str>,
    direction: &str,
    count: i64,
    max_steps: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let count = optional_count("count", Some(count))?.unwrap_or(1);
    let max_steps = optional_count("max_steps", max_steps)?;
    let state = state.as_ref().map(values);
    let sys = &system.get().system;
    let labels = sys.problem().state_labels();
    if let Some((_, shape)) = &state
        && shape.len() != 1
    {
        return Err(PyValueError::new_err(format!(
            "state of '{}' must be a 1-D array of {} coordinates ({}), got shape {}",
            sys.problem().name(),
            labels.len(),
            engine::label_list(&labels),
            engine::py_shape(shape)
        )));
    }
    engine::chaos::phase_space(sys, "geomint.poincare").map_err(to_py)?;
    engine::chaos::check_counts(count, max_steps).map_err(to_py)?;
    // at most one crossing per step: the rows of the result are bounded by both
    fits_in_memory("poincare", count.min(max_steps.unwrap_or(usize::MAX)), labels.len() + 2)?;
    let state = state.as_ref().map(|s| s.0.as_slice());
    let c = interruptible(py, |stop| {
        engine::chaos::poincare(sys, method, h, state, section, direction, count, max_steps, Some(stop))
    })?
    .map_err(to_py)?;
    let (k, n) = (c.t.len(), c.labels.len());
    let d = PyDict::new(py);
    d.set_item("problem", &c.problem)?;
    d.set_item("method", &c.method)?;
    d.set_item("h", c.h)?;
    d.set_item("labels", &c.labels)?;
    d.set_item("section", &c.section.label)?;
    d.set_item("index", c.section.index)?;
    d.set_item("level", c.section.level)?;
    d.set_item("direction", direction)?;
    d.set_item("state", PyArray1::from_vec(py, c.state))?;
    d.set_item("energy0", c.energy0)?;
    d.set_item("max_steps", c.max_steps)?;
    d.set_item("t", PyArray1::from_vec(py, c.t))?;
    d.set_item("states", matrix(py, c.states, k, n)?)?;
    d.set_item("energy", PyArray1::from_vec(py, c.energy))?;
    Ok(d)
}

// -----------------------------------------------------------------------------------------------

/// A run that continues (see `geomint.Simulation`): the workbench's checkpointed run loop held
/// in memory on a thread of its own.
#[pyclass(module = "geomint", name = "Simulation", frozen)]
struct PySimulation {
    sim: Simulation,
    /// The errors of the system's Python callbacks, if any.
    host: Option<Arc<HostErrors>>,
}

fn outcome(py: Python<'_>, host: Option<&Arc<HostErrors>>, o: Result<Outcome, RunError>) -> PyResult<()> {
    let failure = match &o {
        Ok(Outcome::Failed(e)) | Err(RunError::Workbench(e)) => Some(e),
        _ => None,
    };
    if let Some(e) = raise_stored(py, host, failure) {
        return Err(e);
    }
    match o {
        Ok(Outcome::Completed) => Ok(()),
        Ok(Outcome::Interrupted) => Err(PyKeyboardInterrupt::new_err("the simulation was interrupted")),
        Ok(Outcome::Failed(e)) => Err(to_py(e)),
        Err(e) => Err(run_err(e)),
    }
}

impl PySimulation {
    /// Runs `job` on the session and waits for it ([`wait`]).
    fn call<T: Send + 'static>(
        &self,
        py: Python<'_>,
        job: impl FnOnce(&mut geomint::workbench::checkpoint::Session, &AtomicBool) -> T + Send + 'static,
    ) -> PyResult<T> {
        wait(py, &mut self.sim.submit(job))?.ok_or_else(|| PyRuntimeError::new_err("the simulation's thread has ended"))
    }
}

#[pymethods]
impl PySimulation {
    #[new]
    #[pyo3(signature = (system, method=None, h=None, every=1, state=None))]
    fn new(
        py: Python<'_>,
        system: &Bound<'_, PySystem>,
        method: Option<&str>,
        h: Option<f64>,
        every: i64,
        state: Option<PyReadonlyArrayDyn<'_, f64>>,
    ) -> PyResult<Self> {
        let every = optional_count("every", Some(every))?.unwrap_or(1);
        let state = state.as_ref().map(values);
        if let Some((_, shape)) = &state
            && shape.len() != 1
        {
            return Err(PyValueError::new_err(format!(
                "state must be a 1-D array, got shape {}",
                engine::py_shape(shape)
            )));
        }
        let sys = &system.get().system;
        let start = Start::new(sys, method, h, every, state.as_ref().map(|s| s.0.as_slice())).map_err(to_py)?;
        let starting = Simulation::start(start, sys.origin().clone()).map_err(to_py)?;
        Self::started(py, starting, system.get().host().cloned())
    }

    /// The simulation of the checkpoint in the directory `path`, as `geomint resume` reads it.
    #[staticmethod]
    fn load(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Self> {
        Self::started(py, Simulation::load(&path).map_err(to_py)?, None)
    }

    /// Steps `n` more steps.
    fn step(&self, py: Python<'_>, n: i64) -> PyResult<()> {
        let n = usize::try_from(n).map_err(|_| PyValueError::new_err(format!("n must be at least 0, got {n}")))?;
        let o = self.call(py, move |s, stop| {
            let target = s.step().saturating_add(n);
            simulation::advance(s, target, stop)
        })?;
        outcome(py, self.host.as_ref(), o)
    }

    /// Steps to the step nearest `t` (`round(t / h)` steps in all).
    fn integrate(&self, py: Python<'_>, t: f64) -> PyResult<()> {
        let h = self.sim.about().h;
        if !(t.is_finite() && t >= 0.0) {
            return Err(PyValueError::new_err(format!("t must be finite and at least 0, got {t}")));
        }
        let target = (t / h).round();
        if target >= usize::MAX as f64 {
            return Err(PyValueError::new_err(format!("t = {t} is {target:e} steps of h = {h}; too many")));
        }
        let target = target as usize;
        let o = self.call(py, move |s, stop| simulation::advance(s, target, stop))?;
        outcome(py, self.host.as_ref(), o)
    }

    /// Writes the simulation as a checkpoint of the CLI in the directory `path` (created if
    /// missing): `geomint resume PATH` and `Simulation.load(PATH)` continue it bit for bit.
    fn save(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        let origin = self.sim.origin().cloned();
        self.call(py, move |s, _| simulation::save(s, origin.as_ref(), &path))?.map_err(to_py)
    }

    /// The samples so far and the current step, as `run` returns them.
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = self.call(py, |s, _| s.result())?;
        run_dict(py, r)
    }

    /// Steps taken.
    #[getter]
    fn steps(&self, py: Python<'_>) -> PyResult<usize> {
        self.call(py, |s, _| s.step())
    }
    /// The time `steps · h`.
    #[getter]
    fn t(&self, py: Python<'_>) -> PyResult<f64> {
        self.call(py, |s, _| s.time())
    }
    /// The current state, in the coordinates of `labels`.
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        Ok(PyArray1::from_vec(py, self.call(py, |s, _| s.state().1)?))
    }
    /// The problem's name.
    #[getter]
    fn problem(&self) -> String {
        self.sim.about().problem.clone()
    }
    /// The method.
    #[getter]
    fn method(&self) -> String {
        self.sim.about().method.clone()
    }
    /// The step size.
    #[getter]
    fn h(&self) -> f64 {
        self.sim.about().h
    }
    /// The sampling interval.
    #[getter]
    fn every(&self) -> usize {
        self.sim.about().every
    }
    /// The labels of the state coordinates.
    #[getter]
    fn labels(&self) -> Vec<String> {
        self.sim.about().labels.clone()
    }
    /// The monitored quantities, `[(name, kind, dim, formula), ...]`.
    #[getter]
    fn quantities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        quantities(py, &self.sim.about().quantities)
    }
    fn __repr__(&self) -> String {
        let a = self.sim.about();
        format!("<geomint.Simulation {} / {}, h = {:?}, every {}>", a.problem, a.method, a.h, a.every)
    }
}

impl PySimulation {
    fn started(py: Python<'_>, mut starting: simulation::Starting, host: Option<Arc<HostErrors>>) -> PyResult<Self> {
        let about = wait(py, &mut starting.ready)?;
        if let Some(e) = raise_stored(py, host.as_ref(), about.as_ref().err()) {
            return Err(e);
        }
        Ok(Self { sim: starting.finish(about.map_err(to_py)?), host })
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // the numpy API is loaded now, not at the first call (where a pending Ctrl-C would make
    // loading it fail inside the numpy crate)
    let _ = PyArray1::<f64>::from_vec(m.py(), Vec::new());
    m.add_class::<PySystem>()?;
    m.add_class::<PySimulation>()?;
    m.add("IntegrationError", m.py().get_type::<IntegrationError>())?;
    m.add_function(wrap_pyfunction!(problems, m)?)?;
    m.add_function(wrap_pyfunction!(methods, m)?)?;
    m.add_function(wrap_pyfunction!(problem, m)?)?;
    m.add_function(wrap_pyfunction!(_problem_from_dict, m)?)?;
    m.add_function(wrap_pyfunction!(nbody, m)?)?;
    m.add_function(wrap_pyfunction!(nbody_file, m)?)?;
    m.add_function(wrap_pyfunction!(hamiltonian, m)?)?;
    m.add_function(wrap_pyfunction!(lagrangian, m)?)?;
    m.add_function(wrap_pyfunction!(system_file, m)?)?;
    m.add_function(wrap_pyfunction!(_callback_hamiltonian, m)?)?;
    m.add_function(wrap_pyfunction!(_vector_field, m)?)?;
    m.add_function(wrap_pyfunction!(_system_from_toml, m)?)?;
    m.add_function(wrap_pyfunction!(lie_system, m)?)?;
    m.add_function(wrap_pyfunction!(_lie_system_from_toml, m)?)?;
    m.add_function(wrap_pyfunction!(perturbed_states, m)?)?;
    m.add_function(wrap_pyfunction!(kepler_drift, m)?)?;
    m.add_function(wrap_pyfunction!(rigid_body, m)?)?;
    m.add_function(wrap_pyfunction!(heavy_top, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(_at_times, m)?)?;
    m.add_function(wrap_pyfunction!(ensemble, m)?)?;
    m.add_function(wrap_pyfunction!(check_ensemble, m)?)?;
    m.add_function(wrap_pyfunction!(megno, m)?)?;
    m.add_function(wrap_pyfunction!(check_megno, m)?)?;
    m.add_function(wrap_pyfunction!(poincare, m)?)?;
    m.add("MAX_THREADS", geomint_engine::max_threads())?;
    Ok(())
}
