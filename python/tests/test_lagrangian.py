"""Your own Lagrangian as a formula (``geomint.lagrangian``, the ``L`` form of
``geomint.system_file``): the same run as the CLI's ``--system FILE.toml`` bit for bit, the same
motion as its Legendre transform run with the cotangent lift of the midpoint map (the implicit
midpoint rule: the same discrete map), pickled, and bad arguments raising ``ValueError`` naming
them."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import geomint
from support import bits, read_csv

REPO = Path(__file__).resolve().parents[2]
KEPLER_FILE = REPO / "examples" / "systems" / "kepler_lagrangian.toml"


def kepler(**kw):
    return geomint.lagrangian(
        "0.5*(vx^2 + vy^2) + mu/sqrt(x^2 + y^2)",
        q=["x", "y"],
        v=["vx", "vy"],
        q0=[0.4, 0.0],
        v0=[0.0, 2.0],
        params={"mu": 1.0},
        invariants={"angular_momentum": "x*vy - y*vx"},
        name="Kepler problem, e = 0.6, Lagrangian",
        h=0.01,
        t_end=100.0,
        **kw,
    )


def test_the_lagrangian_is_the_cli_run_bit_for_bit(run_cli):
    r = geomint.run(geomint.system_file(KEPLER_FILE), "del-midpoint", 0.01, 300, every=10)
    cli = run_cli("--system", str(KEPLER_FILE), "--method", "del-midpoint", "--h", "0.01", "--steps", "300",
                  "--every", "10")
    assert cli.returncode == 0, cli.stderr
    header, rows = read_csv(cli.out / "trajectory.csv")
    assert header[2:] == r.labels == ["x", "y", "p_x", "p_y"]
    assert bits(rows[:, 2:]) == bits(r.states)
    # the same system built in Python runs the same bits
    same = geomint.run(kepler(), "del-midpoint", 0.01, 300, every=10)
    assert same.states.tobytes() == r.states.tobytes()


@pytest.mark.parametrize(
    "L, H, x0, u0",
    [
        ("0.5*u^2 + cos(x)", "0.5*p^2 - cos(x)", 1.3, 0.4),
        ("0.5*(1 + x^2)*u^2 - 0.5*x^2", "p^2/(2*(1 + x^2)) + 0.5*x^2", 1.5, 0.7),
    ],
)
def test_the_lagrangian_runs_as_its_legendre_transform(L, H, x0, u0):
    lag = geomint.lagrangian(L, q=["x"], v=["u"], q0=[x0], v0=[u0])
    p0 = lag.initial_state[1]
    ham = geomint.hamiltonian(H, q=["x"], p=["p"], q0=[x0], p0=[p0])
    a = geomint.run(lag, "del-midpoint", 0.05, 1000, every=10)
    b = geomint.run(ham, "midpoint", 0.05, 1000, every=10)
    assert np.max(np.abs(a.states - b.states)) <= 1e-12
    # the energy E = v·∂L/∂v − L is H at the same state
    assert np.max(np.abs(a.values["energy"] - b.values["energy"])) <= 1e-12
    # a wrong sign of the potential is far away
    wrong = geomint.hamiltonian(H.replace("- cos", "+ cos").replace("+ 0.5*x^2", "- 0.5*x^2"), q=["x"], p=["p"],
                                q0=[x0], p0=[p0])
    assert np.max(np.abs(a.states - geomint.run(wrong, "midpoint", 0.05, 1000, every=10).states)) > 1e-2


def test_a_lagrangian_pickles_to_the_same_run():
    sys = kepler()
    back = pickle.loads(pickle.dumps(sys))
    a = geomint.run(sys, "del-midpoint", steps=100)
    b = geomint.run(back, "del-midpoint", steps=100)
    assert a.h == 0.01 and a.states.tobytes() == b.states.tobytes()


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"L": "0.5*u^2 + (x"}, "column 13"),
        ({"L": "0.5*u^2 + k*x"}, "unknown name 'k'"),
        ({"v": ["u", "w"]}, "v names 2"),
        ({"v0": [0.0, 1.0]}, "v0 2"),
        ({"v": ["x"], "L": "0.5*x^2"}, "'x' names both"),
        ({"L": "x*u - x^2"}, "not regular"),
        ({"L": "0.5*u^2 - 1/x", "q0": [0.0]}, "not finite"),
        ({"invariants": {"J": "p*x"}}, "invariant J"),
        ({"L": 2.0}, "L must be a formula"),
    ],
)
def test_bad_lagrangians_raise_value_error_naming_the_argument(kw, message):
    args = {"L": "0.5*u^2 - 0.5*x^2", "q": ["x"], "v": ["u"], "q0": [1.0], "v0": [0.0], **kw}
    with pytest.raises(ValueError, match=message):
        geomint.lagrangian(args.pop("L"), **args)
