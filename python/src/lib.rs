//! `geomint._native`: the extension module of the Python package `geomint`, a thin PyO3 layer
//! over `geomint-engine`. Arrays come in as numpy arrays and are copied once, the GIL is
//! released while integrating (`Python::detach`), and results go out as numpy arrays in a
//! dict that the Python package wraps in its result classes.
//!
//! Errors: a [`WorkbenchError::Input`] raises `ValueError` with the workbench's message (the
//! text the CLI prints after `error: `), a failed integration raises
//! `geomint.IntegrationError` (a `RuntimeError`), an I/O error `OSError`.

use geomint::workbench::WorkbenchError;
use geomint::workbench::catalogue::nbody::Bodies;
use geomint::workbench::catalogue::system::SystemSpec;
use geomint::workbench::experiment::RunResult;
use geomint::workbench::problem::{Kind, Problem, Quantity};
use geomint_engine::{self as engine, Ensemble, EnsembleError, Origin, System};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

pyo3::create_exception!(
    geomint,
    IntegrationError,
    PyRuntimeError,
    "A step of the integration failed (Newton did not converge, the state left the domain, ...); \
     the message is the one the CLI prints."
);

fn to_py(e: WorkbenchError) -> PyErr {
    match e {
        WorkbenchError::Input(msg) => PyValueError::new_err(msg),
        WorkbenchError::Io { .. } | WorkbenchError::Read { .. } | WorkbenchError::Locked { .. } => {
            PyOSError::new_err(e.to_string())
        }
        WorkbenchError::Geom(_) | WorkbenchError::Step { .. } => IntegrationError::new_err(e.to_string()),
    }
}

fn ensemble_err(e: EnsembleError) -> PyErr {
    let msg = e.to_string();
    match e.source {
        WorkbenchError::Input(_) => PyValueError::new_err(msg),
        WorkbenchError::Io { .. } | WorkbenchError::Read { .. } | WorkbenchError::Locked { .. } => {
            PyOSError::new_err(msg)
        }
        WorkbenchError::Geom(_) | WorkbenchError::Step { .. } => IntegrationError::new_err(msg),
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

fn optional_count(what: &str, n: Option<i64>) -> PyResult<Option<usize>> {
    match n {
        Some(k) if k < 0 => Err(PyValueError::new_err(format!("{what} must be at least 1, got {k}"))),
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
    reduce: (&'static str, Py<PyTuple>),
}

impl PySystem {
    fn new(system: System, reduce: (&'static str, Py<PyTuple>)) -> PyResult<Self> {
        Ok(Self { system, reduce })
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
            Origin::Formula(_) => format!("<geomint.System {}: {}>", self.problem().name(), self.problem().summary()),
        }
    }
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let module = py.import("geomint._native")?;
        Ok((module.getattr(self.reduce.0)?, self.reduce.1.bind(py).clone()))
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
    let bodies = Bodies::read(&path, G).map_err(to_py)?;
    let (b, d) = (bodies.masses().len(), bodies.dim());
    let m = (bodies.masses().to_vec(), vec![b]);
    let q = (bodies.positions().to_vec(), vec![b, d]);
    let v = (bodies.velocities().to_vec(), vec![b, d]);
    let args = PyTuple::new(py, [copy(py, &m)?, copy(py, &q)?, copy(py, &v)?, G.into_pyobject(py)?.into_any()])?;
    PySystem::new(System::bodies(bodies).map_err(to_py)?, ("nbody", args.unbind()))
}

/// A Hamiltonian system on `T*R^n` (`n` = 1 to 4) written as formulas, parsed once in Rust and
/// differentiated exactly by automatic differentiation (no Python in the loop): `H` in the
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
    };
    formula_system(py, spec, "geomint.hamiltonian")
}

fn formula_system(py: Python<'_>, spec: SystemSpec, origin: &str) -> PyResult<PySystem> {
    let toml = spec.to_toml();
    let system = System::formula(spec, origin).map_err(to_py)?;
    let args = PyTuple::new(py, [toml.into_pyobject(py)?.into_any()])?;
    PySystem::new(system, ("_system_from_toml", args.unbind()))
}

/// The Hamiltonian system of the TOML file `path` (the format of `geomint run --system
/// FILE.toml`; see [`hamiltonian`]).
#[pyfunction]
fn system_file(py: Python<'_>, path: std::path::PathBuf) -> PyResult<PySystem> {
    let origin = format!("system file {}", path.display());
    formula_system(py, SystemSpec::read(&path).map_err(to_py)?, &origin)
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
    let spec = &system.get().system;
    let result = py
        .detach(|| engine::run(spec, method, h, steps, t_end, every, state.as_ref().map(|s| s.0.as_slice())))
        .map_err(to_py)?;
    run_dict(py, result)
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
    d.set_item("states", matrix(py, e.states, m, n)?)?;
    d.set_item("errors", matrix(py, e.errors, m, k)?)?;
    d.set_item("max_errors", e.max_errors.map(|v| matrix(py, v, m, k)).transpose()?)?;
    Ok(d)
}

/// An ensemble over the rows of `states` (see `geomint.ensemble`).
#[pyfunction]
#[pyo3(signature = (system, method, h, steps, states, every=None, threads=None))]
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
) -> PyResult<Bound<'py, PyDict>> {
    let steps = optional_steps(steps)?;
    let every = optional_count("every", every)?;
    let threads = optional_count("threads", threads)?;
    let (values, shape) = values(&states);
    let spec = &system.get().system;
    let result = py
        .detach(|| engine::ensemble(spec, method, h, steps, &values, &shape, every, threads))
        .map_err(ensemble_err)?;
    ensemble_dict(py, result)
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
    engine::check_ensemble(&system.get().system, method, h, steps, &shape, every, threads).map_err(ensemble_err)?;
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
    let states = engine::perturbed_states(&sys.system, members, eps, seed, state.as_ref().map(|s| s.0.as_slice()))
        .map_err(to_py)?;
    matrix(py, states, members, sys.problem().state_labels().len())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySystem>()?;
    m.add("IntegrationError", m.py().get_type::<IntegrationError>())?;
    m.add_function(wrap_pyfunction!(problems, m)?)?;
    m.add_function(wrap_pyfunction!(methods, m)?)?;
    m.add_function(wrap_pyfunction!(problem, m)?)?;
    m.add_function(wrap_pyfunction!(_problem_from_dict, m)?)?;
    m.add_function(wrap_pyfunction!(nbody, m)?)?;
    m.add_function(wrap_pyfunction!(nbody_file, m)?)?;
    m.add_function(wrap_pyfunction!(hamiltonian, m)?)?;
    m.add_function(wrap_pyfunction!(system_file, m)?)?;
    m.add_function(wrap_pyfunction!(_system_from_toml, m)?)?;
    m.add_function(wrap_pyfunction!(perturbed_states, m)?)?;
    m.add_function(wrap_pyfunction!(rigid_body, m)?)?;
    m.add_function(wrap_pyfunction!(heavy_top, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(ensemble, m)?)?;
    m.add_function(wrap_pyfunction!(check_ensemble, m)?)?;
    Ok(())
}
