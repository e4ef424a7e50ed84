"""geomint.megno and geomint.poincare: the chaos tools of ``geomint chaos`` and
``geomint poincare`` from Python, on Hénon–Heiles (Hénon & Heiles 1964).

MEGNO (Cincotta & Simó 2000): ``⟨Y⟩ → 2`` on a torus, ``⟨Y⟩ ≈ λt/2`` on a chaotic orbit. The
values asserted were measured with stormer-verlet, h = 0.05: on the torus through
``(y, p_y) = (0.1, 0)`` at E = 1/12, ``⟨Y⟩`` = 1.922, 1.968, 1.989 at t = 1000, 2000, 4000; in
the chaotic sea at ``(−0.15, 0.05)``, E = 1/6, ``⟨Y⟩`` = 132.8 at t = 2000 with λ = 0.136
(λt/2 = 135.7).
"""

from __future__ import annotations

import csv
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

import geomint
from support import bits

HH = "henon-heiles"
REPO = Path(__file__).resolve().parents[2]


def energy(x: float, y: float, px: float, py: float) -> float:
    """``H = |p|²/2 + (x² + y²)/2 + x²y − y³/3``, written out independently of the library."""
    return 0.5 * (px * px + py * py) + 0.5 * (x * x + y * y) + x * x * y - y**3 / 3.0


def on_level(e: float, y: float, py: float) -> list:
    """The state ``(0, y, p_x, p_y)`` on the section ``x = 0`` with ``p_x > 0`` and ``H = e``."""
    px = math.sqrt(2.0 * (e - energy(0.0, y, 0.0, py)))
    return [0.0, y, px, py]


TORUS = on_level(1.0 / 12.0, 0.1, 0.0)
CHAOTIC = on_level(1.0 / 6.0, -0.15, 0.05)


def test_megno_is_two_on_a_torus_and_grows_as_lambda_t_over_two_in_the_chaotic_sea():
    h, t = 0.05, 2000.0
    r = geomint.megno(HH, "stormer-verlet", h, round(t / h), [TORUS, CHAOTIC])
    assert r["mean"].shape == r["lyapunov"].shape == r["failed"].shape == (2,)
    assert r["failed"].dtype == bool and not r["failed"].any()
    assert r["steps"] == 40000 and r["method"] == "stormer-verlet" and r["labels"] == ["q1", "q2", "p1", "p2"]
    (regular, chaotic), (lam_regular, lam) = r["mean"], r["lyapunov"]
    assert abs(regular - 2.0) < 0.1, regular
    assert chaotic > 50.0, chaotic
    # ⟨Y⟩ ≈ λt/2 on the chaotic orbit (measured ratio 0.98)
    assert 0.75 < chaotic / (lam * t / 2.0) < 1.25, (chaotic, lam)
    assert lam > 0.05 and 0.0 <= lam_regular < 0.01, (lam, lam_regular)
    # the approach to 2 on the torus: closer at t = 4000 than at t = 1000
    early = geomint.megno(HH, "stormer-verlet", h, 20000, [TORUS])["mean"][0]
    late = geomint.megno(HH, "stormer-verlet", h, 80000, [TORUS])["mean"][0]
    assert abs(late - 2.0) < abs(early - 2.0), (early, late)


def test_megno_of_a_hamiltonian_of_formulas_and_of_a_system_file():
    """The user's Hénon–Heiles (formulas, its own coordinate names) gives the catalogue's ⟨Y⟩ on
    the torus to round-off (its derivatives are the formulas' own, not the catalogue's code)."""
    f = geomint.hamiltonian(
        T="0.5*(px^2 + py^2)",
        V="0.5*(x^2 + y^2) + x^2*y - y^3/3",
        q=["x", "y"],
        p=["px", "py"],
        q0=[0.0, 0.1],
        p0=[0.3, 0.0],
    )
    file = geomint.system_file(REPO / "examples" / "systems" / "henon_heiles.toml")
    ref = geomint.megno(HH, "stormer-verlet", 0.05, 40000, [TORUS, CHAOTIC])
    for system in (f, file):
        r = geomint.megno(system, "stormer-verlet", 0.05, 40000, [TORUS, CHAOTIC])
        assert r["labels"] == ["x", "y", "px", "py"]
        assert abs(r["mean"][0] - ref["mean"][0]) < 1e-10, (r["mean"], ref["mean"])
        assert r["mean"][1] > 50.0


def test_megno_marks_an_escaping_orbit_failed_and_runs_the_others():
    # far above the escape energy 1/6: the orbit leaves to infinity and its step fails
    escape = on_level(50.0, -0.15, 0.05)
    r = geomint.megno(HH, "stormer-verlet", 0.05, 20000, [TORUS, escape, CHAOTIC])
    assert list(r["failed"]) == [False, True, False]
    assert math.isnan(r["mean"][1]) and math.isnan(r["lyapunov"][1])
    assert abs(r["mean"][0] - 1.922) < 0.01 and r["mean"][2] > 20.0


def test_megno_threads_change_nothing():
    states = [on_level(0.125, y, 0.0) for y in np.linspace(-0.3, 0.3, 9)]
    one = geomint.megno(HH, "gauss2", 0.05, 2000, states, threads=1)
    two = geomint.megno(HH, "gauss2", 0.05, 2000, states, threads=2)
    assert one["threads"] == 1
    assert bits(one["mean"]) == bits(two["mean"]) and bits(one["lyapunov"]) == bits(two["lyapunov"])


def chaos_csv(path: Path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def test_megno_equals_the_cli_chaos_map_bit_for_bit(cli, tmp_path):
    out = tmp_path / "chaos"
    proc = subprocess.run(
        [str(cli), "--quiet", "chaos", HH, "--method", "stormer-verlet", "--h", "0.05", "--t-end", "100",
         "--grid", "5x4", "--energy", "0.125", "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    head, rows = chaos_csv(out / "chaos.csv")
    assert head[2:4] == ["megno", "lyapunov"] and head[4:] == ["q1", "q2", "p1", "p2"]
    done = [r for r in rows if r[2] not in ("", "failed")]
    assert len(done) >= 10, rows
    states = np.array([[float(v) for v in r[4:]] for r in done])
    r = geomint.megno(HH, "stormer-verlet", 0.05, 2000, states)
    assert bits(r["mean"]) == bits(np.array([float(x[2]) for x in done]))
    assert bits(r["lyapunov"]) == bits(np.array([float(x[3]) for x in done]))


def test_megno_on_a_lie_group_equals_the_cli_chaos_map_bit_for_bit(cli, tmp_path):
    out = tmp_path / "chaos"
    proc = subprocess.run(
        [str(cli), "--quiet", "chaos", "heavy-top", "--method", "hp-sv", "--h", "0.01", "--t-end", "20",
         "--grid", "3x3", "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    head, rows = chaos_csv(out / "chaos.csv")
    assert head[:4] == ["Pi2", "Pi3", "megno", "lyapunov"] and head[4:] == [
        f"R{i}{j}" for i in (1, 2, 3) for j in (1, 2, 3)] + ["Pi1", "Pi2", "Pi3"]
    done = [r for r in rows if r[2] not in ("", "failed")]
    assert len(done) >= 3, rows
    states = np.array([[float(v) for v in r[4:]] for r in done])
    r = geomint.megno("heavy-top", "hp-sv", 0.01, 2000, states)
    assert bits(r["mean"]) == bits(np.array([float(x[2]) for x in done]))
    assert bits(r["lyapunov"]) == bits(np.array([float(x[3]) for x in done]))


def test_megno_of_a_free_rigid_body_is_regular_and_of_the_heavy_top_is_not():
    # the free rigid body is integrable: every orbit is on a torus, <Y> -> 2 (measured 1.9-2.1 at
    # t = 200); the heavy top from the same body momenta has chaotic orbits (the negative control)
    body = geomint.rigid_body([2.0, 1.0, 2.0 / 3.0], [0.45, 0.0, 0.89])
    x0 = np.asarray(body.initial_state)
    states = np.array([np.concatenate([x0[:9], [0.45 * c, 0.89 * s, 0.3 * c]])
                       for c, s in [(1.0, 0.2), (0.5, 1.0), (0.2, 0.7), (1.0, 1.0)]])
    r = geomint.megno(body, "hp-sv", 0.05, 4000, states)
    assert not r["failed"].any()
    assert np.all((r["mean"] > 1.5) & (r["mean"] < 2.5)), r["mean"]
    top = geomint.problem("heavy-top")
    t0 = np.asarray(top.initial_state)
    grid = np.array([np.concatenate([t0[:9], [p1, p2, p3]])
                     for p1 in (0.3, 1.5) for p2 in (-0.8, 0.8) for p3 in (-0.5, 0.5)])
    m = geomint.megno(top, "hp-sv", 0.01, 20000, grid)["mean"]
    assert np.nanmax(m) > 5.0, m


def test_poincare_crossings_lie_on_the_section_and_the_energy_level():
    p = geomint.poincare(HH, "gauss3", 0.01, TORUS, section="q1=0", count=50)
    assert p["states"].shape == (50, 4) and p["t"].shape == (50,) and p["energy"].shape == (50,)
    assert (p["section"], p["index"], p["level"], p["direction"]) == ("q1", 0, 0.0, "up")
    assert np.all(np.diff(p["t"]) > 0) and p["t"][0] > 0
    assert np.abs(p["states"][:, 0]).max() <= 1e-10
    assert np.all(p["states"][:, 2] > 0), "crossed upwards: x increasing, p_x > 0"
    e = np.array([energy(*x) for x in p["states"]])
    assert np.abs(e - p["energy"]).max() < 1e-15
    assert abs(p["energy0"] - 1.0 / 12.0) < 1e-15
    # Gauss–Legendre (order 6) at h = 0.01 keeps H to round-off (measured 1e-15)
    assert np.abs(e - 1.0 / 12.0).max() < 1e-12
    # another coordinate and direction: y = 0.1 crossed downwards
    d = geomint.poincare(HH, "gauss3", 0.01, TORUS, section="q2=0.1", direction="down", count=20)
    assert len(d["t"]) == 20 and np.abs(d["states"][:, 1] - 0.1).max() <= 1e-10
    assert np.all(d["states"][:, 3] < 0)


def test_poincare_on_a_lie_group_equals_the_cli_section(cli, tmp_path):
    """The heavy top on T*SO(3): the crossings of ``Π₁ = 0`` (the default section on a group) lie
    on the section and on SO(3) to round-off, and are the CLI's, bit for bit."""
    p = geomint.poincare("heavy-top", "hp-sv", 0.01, count=30)
    assert p["section"] == "Pi1" and p["states"].shape == (30, 12)
    assert np.abs(p["states"][:, 9]).max() <= 1e-14
    rot = p["states"][:, :9].reshape(-1, 3, 3)
    assert np.abs(np.einsum("kji,kjl->kil", rot, rot) - np.eye(3)).max() < 1e-13
    # HP Störmer–Verlet at h = 0.01: the energy error at the crossings is the orbit's (measured 1.5e-4)
    assert 0 < np.abs(p["energy"] - p["energy0"]).max() < 1e-3
    out = tmp_path / "top"
    proc = subprocess.run(
        [str(cli), "--quiet", "poincare", "heavy-top", "--method", "hp-sv", "--h", "0.01", "--crossings", "30",
         "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    head, rows = chaos_csv(out / "section.csv")
    assert bits(np.array([float(r[head.index("t")]) for r in rows])) == bits(p["t"])
    cols = [head.index(c) for c in p["labels"]]
    assert bits(np.array([[float(r[c]) for c in cols] for r in rows])) == bits(p["states"])


def test_poincare_stops_at_max_steps_and_takes_the_systems_defaults():
    # about one crossing per 6 time units: 10 steps of 0.01 find none, 1000 steps (t = 10) a few
    assert geomint.poincare(HH, "stormer-verlet", 0.01, TORUS, count=5, max_steps=10)["t"].shape == (0,)
    few = geomint.poincare(HH, "stormer-verlet", 0.01, TORUS, count=100, max_steps=1000)
    assert 0 < len(few["t"]) < 5 and few["t"][-1] <= 10.0
    own = geomint.poincare(HH, count=3)
    s = geomint.problem(HH)
    assert own["h"] == s.defaults[0] and own["method"] == s.methods[0] and own["section"] == "q1"
    assert bits(own["state"]) == bits(s.initial_state) and len(own["t"]) == 3


def test_poincare_equals_the_cli_section(cli, tmp_path):
    out = tmp_path / "section"
    state = ",".join(repr(v) for v in TORUS)
    proc = subprocess.run(
        [str(cli), "--quiet", "poincare", HH, "--method", "yoshida6", "--h", "0.01", "--crossings", "25",
         f"--state={state}", "--section", "q2=0", "--direction", "both", "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    head, rows = chaos_csv(out / "section.csv")
    cols = [head.index(c) for c in ("q1", "q2", "p1", "p2")]
    p = geomint.poincare(HH, "yoshida6", 0.01, TORUS, section="q2=0", direction="both", count=25)
    assert len(rows) == len(p["t"]) == 25
    assert bits(np.array([float(r[head.index("t")]) for r in rows])) == bits(p["t"])
    assert bits(np.array([[float(r[c]) for c in cols] for r in rows])) == bits(p["states"])


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda: geomint.megno(HH, None, 0.05, 10, np.zeros((2, 3))), "shape (M, 4)"),
        (lambda: geomint.megno(HH, None, 0.05, 10, np.zeros(4)), "shape (M, 4)"),
        (lambda: geomint.megno(HH, None, 0.05, 10, [TORUS, [0.0, np.nan, 0.0, 0.0]]), "states row 1"),
        (lambda: geomint.megno(HH, None, 0.05, -5, [TORUS]), "steps must be a positive integer"),
        (lambda: geomint.megno(HH, None, 0.05, 0, [TORUS]), "no steps"),
        (lambda: geomint.megno(HH, None, 0.05, 10**12, [TORUS]), "at most"),
        (lambda: geomint.megno(HH, None, -0.05, 10, [TORUS]), "h must be finite and positive"),
        (lambda: geomint.megno(HH, "no-such-method", 0.05, 10, [TORUS]), "unknown method 'no-such-method'"),
        (lambda: geomint.megno(HH, None, 0.05, 10, [TORUS], threads=0), "threads must be at least 1"),
        (lambda: geomint.megno("rigid-body", None, 0.05, 10, np.zeros((1, 12))), "R is not a rotation"),
        (lambda: geomint.poincare(HH, state=[0.0, 0.1, 0.3]), "must be 4 finite coordinates"),
        (lambda: geomint.poincare(HH, state=[0.0, 0.1, np.inf, 0.0]), "must be 4 finite coordinates"),
        (lambda: geomint.poincare(HH, section="z=0"), "unknown coordinate 'z'"),
        (lambda: geomint.poincare(HH, section="q1=nan"), "the level must be finite"),
        (lambda: geomint.poincare(HH, direction="sideways"), "direction 'sideways'"),
        (lambda: geomint.poincare(HH, count=0), "count must be at least 1"),
        (lambda: geomint.poincare(HH, count=10**15), "count = 1000000000000000 is more than"),
        (lambda: geomint.poincare(HH, count=5, max_steps=10**15), "max_steps = 1000000000000000 is more than"),
        (lambda: geomint.poincare(HH, h=1e-12, count=10**6), "give max_steps"),
        (lambda: geomint.poincare("pendulum", h=0.0), "h must be finite and positive"),
        (lambda: geomint.poincare("spherical-pendulum"), "without Poincaré sections or MEGNO maps"),
    ],
)
def test_bad_input_raises_value_error_naming_it(call, needle):
    with pytest.raises(ValueError) as info:
        call()
    assert needle in str(info.value), str(info.value)


def test_systems_without_a_phase_space_are_refused_saying_why():
    pendulum = geomint.problem("spherical-pendulum")
    with pytest.raises(ValueError, match="without Poincaré sections or MEGNO maps; geomint.megno takes one of .*henon-heiles.*heavy-top"):
        geomint.megno(pendulum, None, 0.1, 10, np.tile(pendulum.initial_state, (2, 1)))
    cb = geomint.Hamiltonian(lambda p: p, lambda q: q, q0=[1.0], p0=[0.0])
    with pytest.raises(ValueError, match="a system of callbacks"):
        geomint.poincare(cb, "stormer-verlet", 0.1, count=3)
    with pytest.raises(ValueError, match="a system of callbacks"):
        geomint.megno(cb, "stormer-verlet", 0.1, 10, [[1.0, 0.0]])
    ode = geomint.ode(lambda t, y: -y, [1.0, 0.0])
    with pytest.raises(ValueError, match="ODE of callbacks"):
        geomint.megno(ode, "rk4", 0.1, 10, [[1.0, 0.0]])
    lag = geomint.lagrangian("0.5*v^2 - 0.5*x^2", q=["x"], v=["v"], q0=[1.0], v0=[0.0])
    with pytest.raises(ValueError, match="is a Lie groupoid problem, without Poincaré sections or MEGNO maps; geomint.poincare"):
        geomint.poincare(lag, count=3)
    # an N-body system built from data is on T*R^n: its crossings are found
    sun_planet = geomint.nbody([1.0, 1e-3], [[0.0, 0.0], [1.0, 0.0]], [[0.0, 0.0], [0.0, 1.0]])
    p = geomint.poincare(sun_planet, "stormer-verlet", 0.01, section="q4=0", count=3)
    assert len(p["t"]) == 3 and np.abs(p["states"][:, 3]).max() < 1e-10
    with pytest.raises(TypeError, match="section must be a string"):
        geomint.poincare(HH, section=0.5)
