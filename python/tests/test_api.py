"""The API: the catalogue, runs from given states and systems, ensembles, pickling, the GIL."""

from __future__ import annotations

import math
import pickle
import threading
import time

import numpy as np
import pytest

import geomint
from support import bits


def kepler_states(m: int) -> np.ndarray:
    """Orbits of eccentricity 0.1 .. 0.9 from perihelion, slightly rotated."""
    e = 0.1 + 0.8 * np.arange(m) / m
    s = np.stack([1 - e, 0 * e, 0 * e, np.sqrt((1 + e) / (1 - e))], axis=1)
    a = 0.01 * np.arange(m)
    c, si = np.cos(a), np.sin(a)
    return np.stack([c * s[:, 0], si * s[:, 0], -si * s[:, 3], c * s[:, 3]], axis=1)


def test_catalogue():
    probs = geomint.problems()
    assert list(probs)[:3] == ["harmonic-oscillator", "pendulum", "kepler"]
    assert len(probs) == 15 and "param e = 0.6" in probs["kepler"] and "kepler-time" in probs
    ms = geomint.methods("rigid-body")
    assert list(ms)[0] == "hp-sv" and "rkmk4" in ms and ms["hp-sv"].startswith("order 2, variational")
    assert "rkmk4" not in geomint.methods("underwater-vehicle")
    p = geomint.problem("kepler", {"e": 0.3})
    assert p.name == "kepler" and p.family == "canonical" and p.labels == ["q1", "q2", "p1", "p2"]
    assert p.params == {"e": 0.3} and p.defaults == (0.01, 100.0) and p.methods[0] == "stormer-verlet"
    assert [q[0] for q in p.quantities] == ["energy", "angular_momentum"]
    assert np.array_equal(p.initial_state, [0.7, 0.0, 0.0, math.sqrt(1.3 / 0.7)])
    assert repr(p) == "geomint.problem('kepler', params={'e': 0.3})"


def test_run_result_shapes_and_defaults():
    r = geomint.run("rigid-body", "hp-sv", 0.1, 50, every=10)
    assert r.states.shape == (6, 12) and r.t.shape == (6,) and list(r.step) == [0, 10, 20, 30, 40, 50]
    assert r.values["spatial_momentum"].shape == (6, 3) and r.values["casimir"].shape == (6,)
    assert set(r.errors) == {"energy", "casimir", "spatial_momentum", "group_defect"}
    assert r.solution_error is None and r.wall_seconds >= 0.0
    # the CLI's defaults: first method, the problem's h and t-end, about 1000 samples
    d = geomint.run("harmonic-oscillator", every=None)
    assert (d.method, d.h, d.steps, d.every) == ("stormer-verlet", 0.1, 1000, 1)


def test_rigid_body_casimir_error_from_python():
    inertia = [2.0, 1.0, 2.0 / 3.0]
    pi = [math.cos(1.1), 0.0, math.sin(1.1)]
    body = geomint.rigid_body(inertia, pi)
    r = geomint.run(body, "hp-sv", 0.1, 2000, every=20)
    assert r.max_error("casimir") <= 1e-12
    assert r.max_error("spatial_momentum") <= 1e-12 and r.max_error("group_defect") <= 1e-12
    assert r.max_error("energy") < 1e-2
    # a full (non-diagonal) inertia tensor and an attitude
    a = 0.4
    rot = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    tensor = np.array([[2.0, 0.1, 0.0], [0.1, 1.0, 0.05], [0.0, 0.05, 0.7]])
    r2 = geomint.run(geomint.rigid_body(tensor, [0.3, -0.2, 0.9], R=rot), "hp-sv", 0.05, 2000, every=50)
    assert r2.max_error("casimir") <= 1e-12
    # classical RK2 drifts
    assert geomint.run(body, "rk2-embedded", 0.1, 2000, every=20).max_error("casimir") > 1e-6


def test_heavy_top_from_python():
    top = geomint.heavy_top(np.diag([2.0, 2.5, 1.0]), [0.3, -0.4, 2.0], mgl=1.0, chi=[0.1, 0.0, 1.0])
    r = geomint.run(top, "hp-sv", 0.01, 1000, every=10)
    assert r.max_error("vertical_momentum") <= 1e-12 and r.max_error("energy") < 1e-3


def test_a_given_state_equal_to_the_default_reproduces_the_catalogue_run():
    for name in [
        "harmonic-oscillator",
        "pendulum",
        "kepler",
        "henon-heiles",
        "outer-solar-system",
        "rigid-body",
        "heavy-top",
        "lagrange-top",
        "underwater-vehicle",
    ]:
        p = geomint.problem(name)
        h = p.defaults[0]
        for method in p.methods[:2]:
            a = geomint.run(name, method, h, 40, every=4)
            b = geomint.run(name, method, h, 40, every=4, state=p.initial_state)
            assert bits(a.states) == bits(b.states), (name, method)
            for q in a.quantities:
                assert bits(a.errors[q.name]) == bits(b.errors[q.name]), (name, method, q.name)
            assert (a.solution_error is None) == (b.solution_error is None)


# the outer solar system of the catalogue (Hairer, Lubich and Wanner, Geometric Numerical
# Integration, 2nd ed., 2006, Section I.2.4), through geomint.nbody
G_SOLAR = 2.95912208286e-4
MASSES = [1.00000597682, 0.000954786104043, 0.000285583733151, 0.0000437273164546, 0.0000517759138449, 1.0 / 1.3e8]
POSITIONS = [
    [0.0, 0.0, 0.0],
    [-3.5023653, -3.8169847, -1.5507963],
    [9.0755314, -3.0458353, -1.6483708],
    [8.3101420, -16.2901086, -7.2521278],
    [11.4707666, -25.7294829, -10.8169456],
    [-15.5387357, -25.2225594, -3.1902382],
]
VELOCITIES = [
    [0.0, 0.0, 0.0],
    [0.00565429, -0.00412490, -0.00190589],
    [0.00168318, 0.00483525, 0.00192462],
    [0.00354178, 0.00137102, 0.00055029],
    [0.00288930, 0.00114527, 0.00039677],
    [0.00276725, -0.00170702, -0.00136504],
]


def test_nbody_from_masses_positions_velocities_is_the_catalogue_solar_system():
    sys = geomint.nbody(MASSES, POSITIONS, VELOCITIES, G=G_SOLAR)
    assert sys.name == "nbody" and len(sys.labels) == 36
    assert [q[0] for q in sys.quantities] == ["energy", "angular_momentum", "linear_momentum"]
    for method in ["stormer-verlet", "gauss2"]:
        a = geomint.run(sys, method, 10.0, 200, every=20)
        b = geomint.run("outer-solar-system", method, 10.0, 200, every=20)
        assert bits(a.states) == bits(b.states), method
        for q in a.quantities:
            assert bits(a.errors[q.name]) == bits(b.errors[q.name]), (method, q.name)


def test_nbody_in_the_plane():
    # a Sun–planet pair on a circular orbit about the centre of mass, G = 1
    m = np.array([1.0, 1e-3])
    r = 1.0
    w = math.sqrt((m[0] + m[1]) / r**3)
    x = np.array([[-m[1] / m.sum() * r, 0.0], [m[0] / m.sum() * r, 0.0]])
    v = np.array([[0.0, x[0, 0] * w], [0.0, x[1, 0] * w]])
    sys = geomint.nbody(m, x, v)
    assert sys.labels == ["q1", "q2", "q3", "q4", "p1", "p2", "p3", "p4"]
    res = geomint.run(sys, "stormer-verlet", 0.01, 2000, every=100)
    assert res.values["linear_momentum"].shape == (21, 2)
    assert res.max_error("angular_momentum") < 1e-12 and res.max_error("energy") < 1e-6
    # no cap on the number of bodies: beyond 18 coordinates the explicit symplectic methods apply
    seven = geomint.nbody(np.ones(7), np.arange(21.0).reshape(7, 3), np.zeros((7, 3)))
    assert len(seven.labels) == 42 and seven.methods[0] == "stormer-verlet" and "gauss2" not in seven.methods
    with pytest.raises(ValueError, match="does not apply to problem 'nbody'"):
        geomint.run(seven, "gauss2", 0.01, 10)
    with pytest.raises(ValueError, match=r"positions must have shape \(2, 2\) or \(2, 3\)"):
        geomint.nbody(m, np.zeros((3, 2)), np.zeros((3, 2)))


def test_ensemble_of_64_members_equals_64_single_runs():
    states = kepler_states(64)
    ens = geomint.ensemble("kepler", "stormer-verlet", 0.01, 500, states, every=25)
    assert ens.members == 64 and ens.states.shape == (64, 4) and ens.error_array.shape == (64, 2)
    for i in range(64):
        r = geomint.run("kepler", "stormer-verlet", 0.01, 500, state=states[i], every=25)
        assert bits(ens.states[i]) == bits(r.final_state), i
        for q in r.quantities:
            assert bits(ens.errors[q.name][i]) == bits(r.final_error(q.name)), (i, q.name)
            assert ens.max_errors[q.name][i] == r.max_error(q.name), (i, q.name)
    # the number of threads changes nothing
    one = geomint.ensemble("kepler", "stormer-verlet", 0.01, 500, states, threads=1)
    assert bits(one.states) == bits(ens.states) and bits(one.error_array) == bits(ens.error_array)
    assert one.max_errors is None


def test_ensemble_of_rigid_bodies_and_nbody_systems():
    body = geomint.problem("rigid-body")
    rng = np.random.default_rng(7)
    states = np.tile(body.initial_state, (8, 1))
    states[:, 9:] += 0.1 * rng.standard_normal((8, 3))
    ens = geomint.ensemble(body, "hp-sv", 0.1, 300, states)
    assert np.all(ens.errors["casimir"] <= 1e-12)
    for i in [0, 5]:
        r = geomint.run(body, "hp-sv", 0.1, 300, state=states[i])
        assert bits(ens.states[i]) == bits(r.final_state)
    sys = geomint.nbody(MASSES[:3], POSITIONS[:3], VELOCITIES[:3], G=G_SOLAR)
    s = np.tile(sys.initial_state, (4, 1))
    s[:, 3] *= 1.0 + 1e-3 * np.arange(4)
    ens = geomint.ensemble(sys, "yoshida6", 10.0, 100, s)
    for i in range(4):
        assert bits(ens.states[i]) == bits(geomint.run(sys, "yoshida6", 10.0, 100, state=s[i]).final_state)


def test_systems_pickle_to_the_same_bits():
    systems = [
        geomint.problem("kepler", {"e": 0.3}),
        geomint.nbody(MASSES, POSITIONS, VELOCITIES, G=G_SOLAR),
        geomint.rigid_body(np.diag([2.0, 1.0, 0.5]), [0.1, 0.2, 0.3]),
        geomint.heavy_top([2.0, 2.5, 1.0], [0.3, -0.4, 2.0], mgl=0.7, chi=[0.1, 0.0, 1.0]),
    ]
    for sys in systems:
        back = pickle.loads(pickle.dumps(sys))
        assert repr(back) == repr(sys) and back.labels == sys.labels
        h = sys.defaults[0]
        a, b = geomint.run(sys, None, h, 30), geomint.run(back, None, h, 30)
        assert bits(a.states) == bits(b.states), sys


def test_the_gil_is_released_while_integrating():
    states = kepler_states(2000)
    t0 = time.perf_counter()
    geomint.ensemble("kepler", "stormer-verlet", 0.01, 500, states, threads=1)
    once = time.perf_counter() - t0
    steps = int(500 * max(1.0, 1.0 / max(once, 1e-3)))  # about a second or more of work
    worker = threading.Thread(
        target=geomint.ensemble, args=("kepler", "stormer-verlet", 0.01, steps, states), kwargs={"threads": 1}
    )
    worker.start()
    time.sleep(0.05)
    count, t1 = 0, time.perf_counter()
    while time.perf_counter() - t1 < 0.2:  # pure Python work while Rust integrates
        count += 1
    alive = worker.is_alive()
    worker.join()
    assert count > 1000 and alive, "the main thread could not run while the ensemble was integrating"


def test_every_defaults_to_about_1000_samples_and_too_many_samples_are_refused():
    r = geomint.run("kepler", "stormer-verlet", 0.01, 20_000)
    assert r.every == 20 and len(r.t) == 1001
    # 10^8 steps sampled at every step would not fit in memory: refused before any step
    with pytest.raises(ValueError, match="sample every 51 steps or more"):
        geomint.run("kepler", "stormer-verlet", 0.01, 10**8, every=1)
