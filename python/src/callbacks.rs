//! Systems of callbacks: a separable `H = T(p) + V(q)` given by the gradients `∇T(p)`, `∇V(q)`
//! (and, for the energy, `T` and `V`) (`geomint.Hamiltonian`), or an ODE `ẏ = f(t, y)` given by
//! its field (and invariants `g(y)`) (`geomint.ode`), as compiled functions, called from Rust
//! with the GIL released, or as plain Python functions, called with the GIL held.
//!
//! A Python callback that raises stores its exception in the system's [`HostErrors`] and writes
//! `NaN`: the step fails on the non-finite state (the state stays at the last good step), and
//! the call that ran it raises the stored exception itself, with a note (PEP 678) of the
//! callback, the step and the time ([`raise_stored`]). Once one has raised, the callbacks of the
//! system return `NaN` without calling Python until the error is raised. A Python callback also
//! checks Python's signals at every call, so that Ctrl-C (`KeyboardInterrupt`) stops a run that
//! holds the GIL.

use geomint::workbench::WorkbenchError;
use geomint_engine::callback::{CallbackSpec, Compiled, Energy, EnergyFn, Gradient, GradientFn};
use geomint_engine::vector_field::{Field, FieldFn, FieldSpec};
use numpy::{PyArray1, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The first exception raised by a Python callback of a system since it was last raised, with
/// the callback's name.
#[derive(Default)]
pub struct HostErrors {
    failed: AtomicBool,
    first: Mutex<Option<(&'static str, PyErr)>>,
    /// Whether a callback is a Python function (then a run holds the GIL).
    pub python: bool,
}

impl HostErrors {
    fn set(&self, name: &'static str, e: PyErr) {
        let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        if first.is_none() {
            *first = Some((name, e));
        }
        self.failed.store(true, Ordering::SeqCst);
    }
    fn take(&self) -> Option<(&'static str, PyErr)> {
        let e = self.first.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.failed.store(false, Ordering::SeqCst);
        e
    }
}

/// The stored exception of a Python callback, if any, with a note naming the callback and, when
/// the run failed at a step because of it (`failure`), the step and the time before it.
pub fn raise_stored(py: Python<'_>, host: Option<&Arc<HostErrors>>, failure: Option<&WorkbenchError>) -> Option<PyErr> {
    let (name, e) = host?.take()?;
    let note = match failure {
        Some(WorkbenchError::Step { step, t, .. }) => {
            format!("raised by the callback {name} of a geomint system at step {step} (t = {t})")
        }
        _ => format!("raised by the callback {name} of a geomint system"),
    };
    let value = e.value(py);
    if value.hasattr("add_note").unwrap_or(false) {
        let _ = value.call_method1("add_note", (note,));
    } else {
        // before Python 3.11: the notes are kept where PEP 678 keeps them
        let _ = value.setattr("__notes__", vec![note]);
    }
    Some(e)
}

/// `n` floats from a callback's result (a float64 array fast, any sequence of numbers else).
fn write(name: &str, r: &Bound<'_, PyAny>, out: &mut [f64]) -> PyResult<()> {
    if let Ok(a) = r.cast::<PyArray1<f64>>()
        && a.len() == out.len()
        && let Ok(ro) = a.try_readonly()
        && let Ok(s) = ro.as_slice()
    {
        out.copy_from_slice(s);
        return Ok(());
    }
    let v: Vec<f64> = numpy_free_values(r)?;
    if v.len() != out.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{name} returned {} values; the system has {} degrees of freedom",
            v.len(),
            out.len()
        )));
    }
    out.copy_from_slice(&v);
    Ok(())
}

fn numpy_free_values(r: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    let np = r.py().import("numpy")?;
    let a = np.call_method1("asarray", (r, "float64"))?.call_method0("ravel")?;
    a.extract::<Vec<f64>>()
}

fn host_gradient(name: &'static str, f: Py<PyAny>, errors: Arc<HostErrors>) -> Gradient {
    Gradient::Host(Arc::new(move |x: &[f64], out: &mut [f64]| {
        if errors.failed.load(Ordering::Relaxed) {
            return;
        }
        Python::attach(|py| {
            let r = py.check_signals().and_then(|()| {
                let r = f.bind(py).call1((PyArray1::from_slice(py, x),))?;
                write(name, &r, out)
            });
            if let Err(e) = r {
                out.fill(f64::NAN);
                errors.set(name, e);
            }
        })
    }))
}

fn host_energy(name: &'static str, f: Py<PyAny>, errors: Arc<HostErrors>) -> Energy {
    Energy::Host(Arc::new(move |x: &[f64]| {
        if errors.failed.load(Ordering::Relaxed) {
            return f64::NAN;
        }
        Python::attach(|py| {
            let r =
                py.check_signals().and_then(|()| f.bind(py).call1((PyArray1::from_slice(py, x),))?.extract::<f64>());
            r.unwrap_or_else(|e| {
                errors.set(name, e);
                f64::NAN
            })
        })
    }))
}

fn host_field(f: Py<PyAny>, errors: Arc<HostErrors>) -> Field {
    Field::Host(Arc::new(move |t: f64, y: &[f64], out: &mut [f64]| {
        if errors.failed.load(Ordering::Relaxed) {
            return;
        }
        Python::attach(|py| {
            let r = py.check_signals().and_then(|()| {
                let r = f.bind(py).call1((t, PyArray1::from_slice(py, y)))?;
                write("f", &r, out)
            });
            if let Err(e) = r {
                out.fill(f64::NAN);
                errors.set("f", e);
            }
        })
    }))
}

/// A callback from Python: `(address, user_data)` of a compiled function (integers), or a
/// Python callable.
enum Given {
    Compiled(usize, usize),
    Python(Py<PyAny>),
}

fn given(name: &str, x: &Bound<'_, PyAny>) -> PyResult<Given> {
    if let Ok(t) = x.cast::<PyTuple>() {
        let (addr, data): (usize, usize) = t.extract()?;
        if addr == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(format!("{name} is a null function pointer")));
        }
        return Ok(Given::Compiled(addr, data));
    }
    if x.is_callable() {
        return Ok(Given::Python(x.clone().unbind()));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "{name} must be a Python function or a compiled function (a scipy.LowLevelCallable, a numba.cfunc, a \
         ctypes function or an address), got {}",
        x.get_type().name()?
    )))
}

/// The callbacks of a separable Hamiltonian as the engine takes them, and the system's error
/// slot. The addresses are the Python layer's, which checked the signatures it could see.
#[allow(clippy::too_many_arguments)]
pub fn spec(
    grad_t: &Bound<'_, PyAny>,
    grad_v: &Bound<'_, PyAny>,
    energy: Option<(&Bound<'_, PyAny>, &Bound<'_, PyAny>)>,
    q0: Vec<f64>,
    p0: Vec<f64>,
    h: Option<f64>,
    t_end: Option<f64>,
) -> PyResult<(CallbackSpec, Arc<HostErrors>)> {
    let gt = given("grad_p", grad_t)?;
    let gv = given("grad_q", grad_v)?;
    let en = energy.map(|(t, v)| Ok::<_, PyErr>((given("T", t)?, given("V", v)?))).transpose()?;
    let python = [Some(&gt), Some(&gv), en.as_ref().map(|e| &e.0), en.as_ref().map(|e| &e.1)]
        .into_iter()
        .flatten()
        .any(|g| matches!(g, Given::Python(_)));
    let errors = Arc::new(HostErrors { python, ..HostErrors::default() });
    let gradient = |name: &'static str, g: Given| match g {
        // SAFETY: the Python layer keeps the objects owning the code alive with the system and
        // documents the signature and the thread-safety the callback must have.
        Given::Compiled(a, d) => {
            Gradient::Compiled(unsafe { Compiled::new(std::mem::transmute::<usize, GradientFn>(a), d as *mut c_void) })
        }
        Given::Python(f) => host_gradient(name, f, Arc::clone(&errors)),
    };
    let energy_of = |name: &'static str, g: Given| match g {
        // SAFETY: as for the gradients.
        Given::Compiled(a, d) => {
            Energy::Compiled(unsafe { Compiled::new(std::mem::transmute::<usize, EnergyFn>(a), d as *mut c_void) })
        }
        Given::Python(f) => host_energy(name, f, Arc::clone(&errors)),
    };
    let spec = CallbackSpec {
        grad_t: gradient("grad_p", gt),
        grad_v: gradient("grad_q", gv),
        energy: en.map(|(t, v)| (energy_of("T", t), energy_of("V", v))),
        q0,
        p0,
        h,
        t_end,
    };
    Ok((spec, errors))
}

/// The field `f(t, y)` and the invariants `g(y)` of an ODE as the engine takes them, and the
/// system's error slot (see [`spec`]).
pub fn field_spec(
    f: &Bound<'_, PyAny>,
    invariants: Vec<(String, Bound<'_, PyAny>)>,
    t0: f64,
    y0: Vec<f64>,
    h: Option<f64>,
    t_end: Option<f64>,
) -> PyResult<(FieldSpec, Arc<HostErrors>)> {
    let field = given("f", f)?;
    let invariants = invariants
        .into_iter()
        .map(|(name, g)| Ok::<_, PyErr>((given("invariant", &g)?, name)))
        .collect::<Result<Vec<_>, _>>()?;
    let python = matches!(field, Given::Python(_)) || invariants.iter().any(|(g, _)| matches!(g, Given::Python(_)));
    let errors = Arc::new(HostErrors { python, ..HostErrors::default() });
    let field = match field {
        // SAFETY: as for the gradients of [`spec`].
        Given::Compiled(a, d) => {
            Field::Compiled(unsafe { Compiled::new(std::mem::transmute::<usize, FieldFn>(a), d as *mut c_void) })
        }
        Given::Python(f) => host_field(f, Arc::clone(&errors)),
    };
    let invariants = invariants
        .into_iter()
        .map(|(g, name)| {
            let g = match g {
                // SAFETY: as for the gradients of [`spec`].
                Given::Compiled(a, d) => Energy::Compiled(unsafe {
                    Compiled::new(std::mem::transmute::<usize, EnergyFn>(a), d as *mut c_void)
                }),
                Given::Python(f) => host_energy("invariant", f, Arc::clone(&errors)),
            };
            (name, g)
        })
        .collect();
    Ok((FieldSpec { field, invariants, t0, y0, h, t_end }, errors))
}
