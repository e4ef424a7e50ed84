"""Systems of callbacks (geomint.Hamiltonian): compiled gradients (numba.cfunc, a
scipy.LowLevelCallable, ctypes) and plain Python ones give the trajectory of the formula route;
exceptions of Python callbacks propagate as themselves with the step and time; what a callback
system cannot do is refused clearly. And solve_hamiltonian, the solve_ivp-shaped entry point."""

from __future__ import annotations

import _thread
import ctypes
import math
import pickle
import signal
import time

import numpy as np
import pytest

import geomint

numba = pytest.importorskip("numba")

GRAD_SIG = "void(intc, CPointer(float64), CPointer(float64), voidptr)"
ENERGY_SIG = "float64(intc, CPointer(float64), voidptr)"

# Hénon–Heiles: V = (x² + y²)/2 + x²y − y³/3, T = |p|²/2, at a regular (non-chaotic) energy
Q0, P0 = [0.1, -0.1], [0.2, 0.1]


@numba.cfunc(GRAD_SIG)
def hh_grad_v(n, q, out, _):
    x, y = q[0], q[1]
    out[0] = x + 2.0 * x * y
    out[1] = y + x * x - y * y


@numba.cfunc(GRAD_SIG)
def unit_grad_t(n, p, out, _):
    for i in range(n):
        out[i] = p[i]


@numba.cfunc(ENERGY_SIG)
def hh_v(n, q, _):
    x, y = q[0], q[1]
    return 0.5 * (x * x + y * y) + x * x * y - y * y * y / 3.0


@numba.cfunc(ENERGY_SIG)
def unit_t(n, p, _):
    s = 0.0
    for i in range(n):
        s += p[i] * p[i]
    return 0.5 * s


def py_grad_v(q):
    x, y = q
    return np.array([x + 2.0 * x * y, y + x * x - y * y])


def formula():
    return geomint.hamiltonian(
        T="0.5*(px^2 + py^2)", V="0.5*(x^2 + y^2) + x^2*y - y^3/3", q=["x", "y"], p=["px", "py"], q0=Q0, p0=P0
    )


def compiled():
    return geomint.Hamiltonian(hh_grad_v, unit_grad_t, q0=Q0, p0=P0, V=hh_v, T=unit_t)


@pytest.mark.parametrize("method", ["stormer-verlet", "yoshida6", "rk4"])
def test_a_numba_cfunc_gradient_equals_the_formula_route(method):
    a = geomint.run(formula(), method, h=0.01, steps=2000, every=100)
    b = geomint.run(compiled(), method, h=0.01, steps=2000, every=100)
    assert b.problem == "callback" and b.states.shape == a.states.shape
    np.testing.assert_allclose(b.states, a.states, rtol=0, atol=1e-13)
    # the energy of the callbacks is the formula's energy, and so are its errors
    np.testing.assert_allclose(b.values["energy"], a.values["energy"], rtol=1e-14, atol=0)
    assert b.max_error("energy") == pytest.approx(a.max_error("energy"), rel=1e-6)
    assert 0 < b.max_error("energy") < 1e-4
    # negative control: a wrong gradient (the cubic terms dropped) is a different trajectory
    wrong = geomint.Hamiltonian(unit_grad_t, unit_grad_t, q0=Q0, p0=P0)
    c = geomint.run(wrong, method, h=0.01, steps=2000, every=100)
    assert np.max(np.abs(c.states - a.states)) > 1e-3


def test_a_plain_python_gradient_equals_the_compiled_one():
    a = geomint.run(compiled(), "stormer-verlet", h=0.01, steps=500, every=50)
    b = geomint.run(geomint.Hamiltonian(py_grad_v, lambda p: p, q0=Q0, p0=P0), "stormer-verlet", h=0.01, steps=500, every=50)
    np.testing.assert_allclose(b.states, a.states, rtol=0, atol=1e-14)
    assert np.all(np.isnan(b.values["energy"]))  # no T, V given: no energy


def test_other_compiled_forms_lowlevelcallable_ctypes_address():
    scipy = pytest.importorskip("scipy")
    ref = geomint.run(compiled(), "stormer-verlet", h=0.01, steps=300)
    llc = scipy.LowLevelCallable(hh_grad_v.ctypes)
    for g in [llc, hh_grad_v.ctypes, hh_grad_v.address]:
        r = geomint.run(geomint.Hamiltonian(g, unit_grad_t, q0=Q0, p0=P0, V=hh_v, T=unit_t), "stormer-verlet", h=0.01, steps=300)
        np.testing.assert_array_equal(r.states, ref.states)


def test_user_data_reaches_the_callback():
    # V = k|q|²/2 with k read from user_data (a ctypes pointer to a double)
    k = ctypes.c_double(4.0)

    @numba.cfunc(GRAD_SIG)
    def spring(n, q, out, data):
        kk = numba.carray(data, 1, numba.float64)[0]
        for i in range(n):
            out[i] = kk * q[i]

    s = geomint.Hamiltonian(spring, unit_grad_t, q0=[1.0], p0=[0.0], user_data=ctypes.pointer(k))
    r = geomint.run(s, "yoshida6", h=0.001, steps=1000)
    # exact: q = cos(2t)
    assert r.final_state[0] == pytest.approx(math.cos(2.0), abs=1e-12)
    assert r.final_state[0] != pytest.approx(math.cos(1.0), abs=1e-3)


def test_a_wrong_signature_is_refused():
    @numba.cfunc("float64(intc, CPointer(float64), voidptr)")
    def not_a_gradient(n, q, _):
        return 0.0

    with pytest.raises(ValueError, match="grad_q has the signature"):
        geomint.Hamiltonian(not_a_gradient, unit_grad_t, q0=Q0, p0=P0)
    with pytest.raises(ValueError, match="T has the signature"):
        geomint.Hamiltonian(hh_grad_v, unit_grad_t, q0=Q0, p0=P0, V=hh_v, T=unit_grad_t)
    with pytest.raises(TypeError, match="grad_p must be"):
        geomint.Hamiltonian(hh_grad_v, "p", q0=Q0, p0=P0)
    with pytest.raises(ValueError, match="1 to 4"):
        geomint.Hamiltonian(hh_grad_v, unit_grad_t, q0=[0.0] * 5, p0=[0.0] * 5)


def test_implicit_methods_say_they_need_the_hessian():
    s = compiled()
    assert "gauss2" not in s.methods and s.methods[0] == "stormer-verlet"
    for m in ["gauss2", "midpoint", "avf"]:
        with pytest.raises(ValueError, match="needs the Hessian"):
            geomint.run(s, m, h=0.01, steps=10)


class Boom(Exception):
    pass


def test_a_python_exception_propagates_as_itself_with_step_and_time():
    calls = [0]

    def grad(q):
        calls[0] += 1
        if calls[0] == 40:
            raise Boom("no gradient here")
        return py_grad_v(q)

    s = geomint.Hamiltonian(grad, lambda p: p, q0=Q0, p0=P0)
    with pytest.raises(Boom, match="no gradient here") as info:
        geomint.run(s, "stormer-verlet", h=0.01, steps=100)
    notes = getattr(info.value, "__notes__", [])
    assert len(notes) == 1 and "grad_q" in notes[0] and "at step" in notes[0] and "t = " in notes[0]
    step = int(notes[0].split("at step ")[1].split()[0])
    t = float(notes[0].split("t = ")[1].rstrip(")"))
    # a step calls grad_q once or twice: the 40th call is in step 20 to 40, which starts at t = (step − 1) h
    assert 20 <= step <= 40 and t == pytest.approx((step - 1) * 0.01)
    # the system works again afterwards (the error was raised, not kept)
    calls[0] = 1000
    assert geomint.run(s, "stormer-verlet", h=0.01, steps=10).steps == 10
    # a result of the wrong size is a ValueError naming the callback
    bad = geomint.Hamiltonian(lambda q: [1.0, 2.0, 3.0], lambda p: p, q0=Q0, p0=P0)
    with pytest.raises(ValueError, match="grad_q returned 3 values"):
        geomint.run(bad, "stormer-verlet", h=0.01, steps=10)


def test_ctrl_c_stops_a_run_of_python_callbacks():
    calls = [0]

    def grad(q):
        calls[0] += 1
        if calls[0] == 1000:
            _thread.interrupt_main()
        return py_grad_v(q)

    s = geomint.Hamiltonian(grad, lambda p: p, q0=Q0, p0=P0)
    # `interrupt_main` does nothing where SIGINT was ignored at start-up (a background job of a
    # non-interactive shell): install Python's handler for the test
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            geomint.run(s, "stormer-verlet", h=0.01, steps=10**7, every=10**6)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert calls[0] < 2000


def test_ensembles_and_simulations_of_python_callbacks():
    s = geomint.Hamiltonian(py_grad_v, lambda p: p, q0=Q0, p0=P0)
    states = np.array([Q0 + P0, [0.0, 0.1, 0.2, 0.0], [0.05, 0.0, 0.0, 0.3]])
    e = geomint.ensemble(s, "stormer-verlet", 0.01, 200, states, threads=2)
    for i, st in enumerate(states):
        r = geomint.run(s, "stormer-verlet", h=0.01, steps=200, state=st)
        np.testing.assert_array_equal(e.states[i], r.final_state)
    sim = geomint.Simulation(s, "stormer-verlet", 0.01)
    sim.step(100).step(100)
    np.testing.assert_array_equal(sim.state, geomint.run(s, "stormer-verlet", h=0.01, steps=200).final_state)


def test_a_callback_system_is_neither_pickled_nor_saved(tmp_path):
    s = compiled()
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(s)
    sim = geomint.Simulation(s, "stormer-verlet", 0.01)
    sim.step(10)
    with pytest.raises(ValueError, match="cannot be saved"):
        sim.save(tmp_path / "c")


# -- solve_hamiltonian -----------------------------------------------------------------------------


def test_solve_hamiltonian_is_run_in_scipy_shape():
    kepler = geomint.problem("kepler")
    sol = geomint.solve_hamiltonian(kepler, (2.0, 12.0), kepler.initial_state, h=0.01)
    r = geomint.run(kepler, "yoshida6", h=0.01, steps=1000, every=1)
    assert sol.y.shape == (4, 1001) and sol.t.shape == (1001,) and sol.success
    np.testing.assert_array_equal(sol.y, r.states.T)
    np.testing.assert_allclose(sol.t, 2.0 + r.t, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(sol.errors["energy"], r.errors["energy"])
    # the step divides the span: h = 0.03 over 10 gives 334 steps of 10/334
    sol = geomint.solve_hamiltonian(kepler, (0.0, 10.0), method="stormer-verlet", h=0.03)
    assert sol.steps == 334 and sol.h == pytest.approx(10 / 334) and sol.t[-1] == pytest.approx(10.0)


def test_solve_hamiltonian_at_t_eval_meets_the_exact_solution():
    osc = geomint.problem("harmonic-oscillator")
    te = [0.0, 0.5, 1.234, 7.77, 10.0]
    sol = geomint.solve_hamiltonian(osc, (0.0, 10.0), [1.0, 0.0], method="yoshida6", h=0.01, t_eval=te)
    assert sol.y.shape == (2, 5)
    np.testing.assert_allclose(sol.y[0], np.cos(te), rtol=0, atol=1e-11)
    np.testing.assert_allclose(sol.y[1], -np.sin(te), rtol=0, atol=1e-11)
    assert sol.errors["energy"][0] == 0 and np.max(sol.errors["energy"]) < 1e-11
    # a first-order method misses by O(h): the check can fail
    bad = geomint.solve_hamiltonian(osc, (0.0, 10.0), [1.0, 0.0], method="explicit-euler", h=0.01, t_eval=te)
    assert np.max(np.abs(bad.y[0] - np.cos(te))) > 1e-3
    with pytest.raises(ValueError, match="t_eval"):
        geomint.solve_hamiltonian(osc, (0.0, 10.0), t_eval=[11.0])


def test_solve_hamiltonian_at_t_eval_is_one_run_read_at_the_times():
    """On the grid the solution is the run's own state; between grid times it is one step of the
    method of the remainder from the grid state before it (checked against separate runs); a
    grid of 10^5 times is one run, not 10^5 (it once took 26 s)."""
    kepler = geomint.problem("kepler")
    full = geomint.solve_hamiltonian(kepler, (0.0, 2.0), method="yoshida6", h=0.01)
    on_grid = geomint.solve_hamiltonian(kepler, (0.0, 2.0), method="yoshida6", h=0.01, t_eval=full.t[::7])
    np.testing.assert_array_equal(on_grid.y, full.y[:, ::7])
    np.testing.assert_array_equal(on_grid.errors["energy"], full.errors["energy"][::7])
    te = [0.0, 0.005, 0.733, 1.999]
    sol = geomint.solve_hamiltonian(kepler, (0.0, 2.0), method="yoshida6", h=0.01, t_eval=te)
    for j, t in enumerate(te):
        k = int(math.floor(t / 0.01 + 1e-9))
        rest = t - k * 0.01
        y = full.y[:, k] if rest <= 1e-12 else geomint.run(kepler, "yoshida6", rest, 1, state=full.y[:, k]).final_state
        np.testing.assert_array_equal(sol.y[:, j], y)
    start = time.perf_counter()
    many = geomint.solve_hamiltonian(kepler, (0.0, 10.0), method="stormer-verlet", h=0.01, t_eval=np.linspace(0, 10, 100_000))
    assert many.y.shape == (4, 100_000) and time.perf_counter() - start < 5.0
    assert np.max(many.errors["energy"]) < 1e-3


def test_solve_hamiltonian_takes_any_method_of_the_system():
    s = compiled()
    sol = geomint.solve_hamiltonian(s, (0.0, 1.0), Q0 + P0, method="kahan-li8", h=0.05)
    assert sol.method == "kahan-li8" and sol.y.shape == (4, 21)
    with pytest.raises(ValueError, match="needs the Hessian"):
        geomint.solve_hamiltonian(s, (0.0, 1.0), method="gauss3")


def test_compiled_callbacks_in_a_parallel_ensemble_and_a_failing_simulation():
    s = compiled()
    states = geomint.perturbed_states(s, 16, 1e-3, seed=3)
    e = geomint.ensemble(s, "yoshida6", 0.01, 300, states, threads=2)
    for i in [0, 7, 15]:
        r = geomint.run(s, "yoshida6", h=0.01, steps=300, state=states[i])
        np.testing.assert_array_equal(e.states[i], r.final_state)
    # a Python callback failing inside a simulation: raised as itself, the simulation stays at
    # the last good step and goes on once the function works again
    broken = [False]

    def grad(q):
        if broken[0]:
            raise Boom("broken")
        return py_grad_v(q)

    sim = geomint.Simulation(geomint.Hamiltonian(grad, lambda p: p, q0=Q0, p0=P0), "stormer-verlet", 0.01)
    sim.step(50)
    before = sim.state.copy()
    broken[0] = True
    with pytest.raises(Boom) as info:
        sim.step(10)
    assert "at step 51" in info.value.__notes__[0]
    assert sim.steps == 50
    np.testing.assert_array_equal(sim.state, before)
    broken[0] = False
    sim.step(10)
    assert sim.steps == 60
