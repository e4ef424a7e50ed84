"""``geomint.ode``: a user's vector field ``dy/dt = f(t, y)`` as a plain Python function or a
compiled callback, through run, Simulation and ensemble (issue 30, item 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import geomint

numba = pytest.importorskip("numba")

FIELD_SIG = "void(intc, float64, CPointer(float64), CPointer(float64), voidptr)"


def oscillator(t, y):
    return [y[1], -y[0]]


def test_dop853_meets_the_exact_solution_and_rk4_has_order_four():
    s = geomint.ode(oscillator, [1.0, 0.0], invariants={"energy": lambda y: 0.5 * (y @ y)})
    assert s.labels == ["t", "y1", "y2"] and s.methods[0] == "dop853" and s.family == "ode"
    r = geomint.run(s, "dop853", h=0.05, steps=200)
    t = r.states[:, 0]
    np.testing.assert_allclose(t, r.t, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.states[:, 1], np.cos(t), rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.states[:, 2], -np.sin(t), rtol=0, atol=1e-12)
    errs = []
    for h in (0.1, 0.05):
        r = geomint.run(s, "rk4", h=h, steps=int(round(10 / h)))
        errs.append(abs(r.final_state[1] - math.cos(10.0)))
    assert abs(math.log2(errs[0] / errs[1]) - 4.0) < 0.3, errs
    # the invariant is monitored; explicit Euler gains energy (the check can fail)
    assert geomint.run(s, "rk4", h=0.01, steps=1000).max_error("energy") < 1e-9
    assert geomint.run(s, "explicit-euler", h=0.01, steps=1000).max_error("energy") > 1e-2


def test_a_time_dependent_field_sees_its_stage_times_and_its_start_time():
    # y' = cos(t) from t0 = 5: y(t) = y0 + sin(t) - sin(t0); RK4 on a quadrature is Simpson's rule
    s = geomint.ode(lambda t, y: [math.cos(t)], [2.0], t0=5.0)
    r = geomint.run(s, "rk4", h=0.01, steps=1000)
    assert r.final_state[0] == pytest.approx(15.0, abs=1e-12)
    assert abs(r.final_state[1] - (2.0 + math.sin(15.0) - math.sin(5.0))) < 1e-10
    # the same from t0 = 0 ends elsewhere: t0 is not ignored
    r0 = geomint.run(geomint.ode(lambda t, y: [math.cos(t)], [2.0]), "rk4", h=0.01, steps=1000)
    assert abs(r0.final_state[1] - r.final_state[1]) > 0.1


def test_a_run_restarted_from_its_state_continues_it_bit_for_bit():
    s = geomint.ode(lambda t, y: [y[1], -math.sin(y[0]) + 0.3 * math.cos(t)], [0.5, 0.0])
    whole = geomint.run(s, "dop853", h=0.02, steps=400)
    half = geomint.run(s, "dop853", h=0.02, steps=200)
    rest = geomint.run(s, "dop853", h=0.02, steps=200, state=half.final_state)
    np.testing.assert_array_equal(rest.final_state, whole.final_state)
    sim = geomint.Simulation(s, "dop853", 0.02)
    sim.step(150)
    sim.step(250)
    np.testing.assert_array_equal(sim.state, whole.final_state)
    with pytest.raises(ValueError, match="cannot be saved"):
        sim.save("unused")


def test_a_numba_field_equals_the_python_field_and_runs_an_ensemble():
    @numba.cfunc(FIELD_SIG)
    def f(n, t, y, out, _):
        out[0] = y[1]
        out[1] = -y[0] - 0.1 * y[1]

    py = geomint.ode(lambda t, y: [y[1], -y[0] - 0.1 * y[1]], [1.0, 0.0])
    compiled = geomint.ode(f, [1.0, 0.0])
    a = geomint.run(py, "rk4", h=0.01, steps=500)
    b = geomint.run(compiled, "rk4", h=0.01, steps=500)
    np.testing.assert_array_equal(a.states, b.states)
    states = np.array([[0.0, 1.0 + 0.1 * i, 0.0] for i in range(8)])
    e = geomint.ensemble(compiled, "rk4", 0.01, 500, states, threads=2)
    np.testing.assert_array_equal(e.states[0], b.final_state)
    assert e.states.shape == (8, 3)


def test_an_exception_of_the_field_propagates_with_the_step():
    def f(t, y):
        if t > 0.5:
            raise ZeroDivisionError("the user's bug")
        return [y[0]]

    s = geomint.ode(f, [1.0])
    with pytest.raises(ZeroDivisionError, match="the user's bug") as info:
        geomint.run(s, "rk4", h=0.1, steps=10)
    assert any("step" in n for n in getattr(info.value, "__notes__", []))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"f": oscillator, "y0": []}, ValueError, "1 to 8"),
        ({"f": oscillator, "y0": [0.0] * 9}, ValueError, "1 to 8"),
        ({"f": oscillator, "y0": [float("nan"), 0.0]}, ValueError, "finite"),
        ({"f": oscillator, "y0": [1.0, 0.0], "t0": float("inf")}, ValueError, "finite"),
        ({"f": oscillator, "y0": [1.0, 0.0], "h": -1.0}, ValueError, "positive"),
        ({"f": 3.5, "y0": [1.0, 0.0]}, TypeError, "f must be"),
        ({"f": None, "y0": [1.0, 0.0]}, TypeError, "f must be"),
        ({"f": oscillator, "y0": [1.0, 0.0], "invariants": [1]}, TypeError, "invariants must be a mapping"),
        ({"f": oscillator, "y0": [1.0, 0.0], "invariants": {"": lambda y: 0.0}}, ValueError, "invariant names"),
    ],
)
def test_bad_input_is_a_python_error(kwargs, error, match):
    f = kwargs.pop("f")
    y0 = kwargs.pop("y0")
    with pytest.raises(error, match=match):
        geomint.ode(f, y0, **kwargs)


def test_a_field_of_the_wrong_size_or_signature_or_method_is_refused():
    s = geomint.ode(lambda t, y: [1.0, 2.0, 3.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="returned 3 values"):
        geomint.run(s, "rk4", h=0.1, steps=3)
    with pytest.raises(ValueError, match="does not apply"):
        geomint.run(geomint.ode(oscillator, [1.0, 0.0]), "stormer-verlet", h=0.1, steps=3)

    @numba.cfunc("void(intc, CPointer(float64), CPointer(float64), voidptr)")
    def gradient_shaped(n, y, out, _):
        out[0] = 0.0

    with pytest.raises(ValueError, match="signature"):
        geomint.ode(gradient_shaped, [1.0])
