"""Your own Hamiltonian as formulas (``geomint.hamiltonian``, ``geomint.system_file``): parsed
once in Rust, differentiated by AD, the same motion as the catalogue's model of the same
equations, the same run as the CLI's ``--system FILE.toml`` bit for bit, pickled, and bad
formulas raising ``ValueError`` with the column."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import geomint
from support import bits, read_csv

REPO = Path(__file__).resolve().parents[2]
KEPLER_FILE = REPO / "examples" / "systems" / "kepler.toml"


def kepler(**kw):
    return geomint.hamiltonian(
        "0.5*(px^2 + py^2) - mu/sqrt(x^2 + y^2)",
        q=["x", "y"],
        p=["px", "py"],
        q0=[0.4, 0.0],
        p0=[0.0, 2.0],
        params={"mu": 1.0},
        invariants={"angular_momentum": "x*py - y*px"},
        **kw,
    )


def test_a_formula_is_the_catalogues_kepler():
    sys = kepler()
    assert sys.labels == ["x", "y", "px", "py"]
    for method in ["yoshida6", "midpoint"]:
        mine = geomint.run(sys, method, 0.01, 500, every=50)
        theirs = geomint.run("kepler", method, 0.01, 500, every=50)
        assert np.max(np.abs(mine.states - theirs.states)) < 1e-10, method
        assert mine.max_error("angular_momentum") < 1e-12
    # separable T + V: the explicit Störmer–Verlet, order 2
    sep = geomint.hamiltonian(
        None, T="0.5*(px^2 + py^2)", V="-1/sqrt(x^2 + y^2)", q=["x", "y"], p=["px", "py"], q0=[0.4, 0], p0=[0, 2]
    )
    ref = geomint.run(sep, "gauss3", 0.01, 100).final_state
    e1 = np.max(np.abs(geomint.run(sep, "stormer-verlet", 0.02, 50).final_state - ref))
    e2 = np.max(np.abs(geomint.run(sep, "stormer-verlet", 0.01, 100).final_state - ref))
    assert abs(np.log2(e1 / e2) - 2.0) < 0.2


def test_the_file_is_the_cli_run_bit_for_bit(run_cli):
    r = geomint.run(geomint.system_file(KEPLER_FILE), "stormer-verlet", 0.01, 300, every=10)
    cli = run_cli("--system", str(KEPLER_FILE), "--method", "stormer-verlet", "--h", "0.01", "--steps", "300",
                  "--every", "10")
    assert cli.returncode == 0, cli.stderr
    header, rows = read_csv(cli.out / "trajectory.csv")
    assert header[2:] == r.labels
    assert bits(rows[:, 2:]) == bits(r.states)
    # the same system built in Python runs the same bits
    same = geomint.run(kepler(), "stormer-verlet", 0.01, 300, every=10)
    assert same.states.tobytes() == r.states.tobytes()


def test_a_system_pickles_to_the_same_run():
    sys = kepler(name="my Kepler", h=0.02)
    back = pickle.loads(pickle.dumps(sys))
    a = geomint.run(sys, "yoshida6", steps=100)
    b = geomint.run(back, "yoshida6", steps=100)
    assert a.h == 0.02 and a.states.tobytes() == b.states.tobytes()


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"H": "0.5*px^2 + (x"}, "column 14"),
        ({"H": "0.5*px^2 + k*x"}, "unknown name 'k'"),
        ({"H": "sin(x, px)"}, "takes 1 argument"),
        ({"H": "px^2 - 1/x", "q0": [0.0]}, "not finite"),
        ({"H": None, "T": "px^2*x", "V": "x"}, "momenta only"),
    ],
)
def test_bad_formulas_raise_value_error_naming_the_column(kw, message):
    args = {"H": None, "q": ["x"], "p": ["px"], "q0": [1.0], "p0": [0.0], **kw}
    with pytest.raises(ValueError, match=message):
        geomint.hamiltonian(**args)
