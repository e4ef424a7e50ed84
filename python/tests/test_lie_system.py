"""Your own rigid body on SO(3) (``geomint.lie_system``, ``geomint.system_file`` of a file with
``group = "SO(3)"``): the heavy top written as a formula in the entries of ``R`` is the
catalogue's heavy top step for step, a body without potential is the catalogue's rigid body, the
same run as the CLI's bit for bit, pickled, saved and resumed, and bad input raising
``ValueError`` naming the parameter."""

from __future__ import annotations

import math
import pickle
import subprocess
from pathlib import Path

import numpy as np
import pytest

import geomint
from support import bits, read_csv

REPO = Path(__file__).resolve().parents[2]
TOP_FILE = REPO / "examples" / "systems" / "heavy_top.toml"
NORM = math.sqrt(0.1 * 0.1 + 0.0 * 0.0 + 1.0 * 1.0)
TOP_PARAMS = {"m": 1.0, "g": 1.0, "l": 1.0, "chi1": 0.1 / NORM, "chi2": 0.0, "chi3": 1.0 / NORM}


def heavy_top(**kw):
    """The catalogue's heavy top: I = diag(2, 2.5, 1), mgl = 1, χ ∝ (0.1, 0, 1)."""
    args = dict(
        V="m*g*l*(r31*chi1 + r32*chi2 + r33*chi3)",
        params=TOP_PARAMS,
        R0_axis_angle=[0.5, 0.2, 0.0],
        h=0.01,
    )
    args.update(kw)
    return geomint.lie_system([2.0, 2.5, 1.0], [0.3, -0.4, 2.0], **args)


def test_the_formula_heavy_top_is_the_catalogues_step_for_step():
    top = heavy_top()
    assert top.family == "lie-group" and top.name == "system"
    assert [q.name for q in map(geomint.Quantity._make, top.quantities)] == [
        "energy",
        "vertical_momentum",
        "group_defect",
    ]
    assert "lie-poisson-midpoint-cayley" not in top.methods and "lgvi" in top.methods
    for method in ["hp-sv", "lift-midpoint-exp"]:
        mine = geomint.run(top, method, 0.01, 1000, every=1)
        theirs = geomint.run("heavy-top", method, 0.01, 1000, every=1)
        assert np.max(np.abs(mine.states - theirs.states)) <= 1e-13, method
        assert np.max(np.abs(mine.states[-1] - mine.states[0])) > 0.1, method
        assert mine.max_error("vertical_momentum") < 1e-13, method
    # the example file is the same system, bit for bit
    a = geomint.run(geomint.system_file(TOP_FILE), "lgvi", 0.01, 300, every=10)
    b = geomint.run(top, "lgvi", 0.01, 300, every=10)
    assert a.states.tobytes() == b.states.tobytes()


def test_a_free_body_is_the_catalogues_rigid_body():
    body = geomint.lie_system(
        [2.0, 1.0, 2.0 / 3.0], [math.cos(1.1), 0.0, math.sin(1.1)], R0_axis_angle=[0.3, -0.2, 0.5], h=0.05
    )
    assert "casimir" in [q[0] for q in body.quantities]
    for method in ["hp-sv", "lie-poisson-midpoint-exp", "lgvi"]:
        mine = geomint.run(body, method, 0.05, 500, every=5)
        theirs = geomint.run("rigid-body", method, 0.05, 500, every=5)
        assert mine.states.tobytes() == theirs.states.tobytes(), method
        assert mine.max_error("casimir") < 1e-13, method
    # a full inertia tensor and a rotation matrix for R0
    r0 = geomint.problem("rigid-body").initial_state[:9].reshape(3, 3)
    full = geomint.lie_system(np.diag([2.0, 1.0, 2.0 / 3.0]), [math.cos(1.1), 0.0, math.sin(1.1)], R0=r0, h=0.05)
    assert np.array_equal(full.initial_state, body.initial_state)


def test_the_python_system_is_the_cli_run_bit_for_bit(run_cli):
    r = geomint.run(heavy_top(), "hp-sv", 0.01, 300, every=10)
    cli = run_cli("--system", str(TOP_FILE), "--method", "hp-sv", "--h", "0.01", "--steps", "300", "--every", "10")
    assert cli.returncode == 0, cli.stderr
    header, rows = read_csv(cli.out / "trajectory.csv")
    assert header[2:] == r.labels
    assert bits(rows[:, 2:]) == bits(r.states)


def test_pickled_saved_and_resumed(cli, tmp_path):
    top = heavy_top(name="my top", t_end=3.0)
    back = pickle.loads(pickle.dumps(top))
    assert back.defaults == (0.01, 3.0) and "my top" in back.summary
    a = geomint.run(top, "lift-midpoint-exp", steps=100)
    b = geomint.run(back, "lift-midpoint-exp", steps=100)
    assert a.states.tobytes() == b.states.tobytes()
    # a simulation saved in Python resumes in the CLI and back, bit for bit
    sim = geomint.Simulation(top, "hp-sv", 0.01, every=4)
    sim.step(100)
    d = tmp_path / "top"
    sim.save(d)
    assert (d / "system.toml").exists()
    proc = subprocess.run([str(cli), "resume", str(d), "--steps", "300", "--quiet"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    whole = geomint.run(top, "hp-sv", 0.01, 300, every=4)
    _, rows = read_csv(d / "trajectory.csv")
    assert bits(rows[:, 2:]) == bits(whole.states)
    again = geomint.Simulation.load(d)
    again.step(50)
    assert again.state.tobytes() == geomint.run(top, "hp-sv", 0.01, 350, every=350).final_state.tobytes()


@pytest.mark.parametrize(
    "kw, error, message",
    [
        ({"inertia": [1.0, -2.0, 3.0]}, ValueError, "principal moments must be finite and positive"),
        ({"inertia": [1.0, 2.0]}, ValueError, r"inertia must have shape \(3,\) or \(3, 3\)"),
        ({"inertia": [[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]}, ValueError, "not symmetric"),
        ({"inertia": np.diag([1.0, -1.0, 1.0])}, ValueError, "positive definite"),
        ({"Pi0": [0.1, 0.2]}, ValueError, r"Pi0 must have shape \(3,\)"),
        ({"Pi0": [0.1, float("nan"), 0.2]}, ValueError, "Pi0 must be finite"),
        ({"R0": np.diag([1.0, 1.0, 1.1])}, ValueError, "R0 is not a rotation"),
        ({"R0": np.eye(2)}, ValueError, r"R0 must have shape \(3, 3\)"),
        ({"R0": np.eye(3), "R0_axis_angle": [0.0, 0.0, 1.0]}, ValueError, "not both"),
        ({"V": "k*r31 + x", "params": {"k": 1.0}}, ValueError, "unknown name 'x'"),
        ({"V": "r31 + (r32"}, ValueError, "V: "),
        ({"V": "1/(r33 - 1)"}, ValueError, "not finite at R0"),
        ({"group": "SU(2)"}, ValueError, "group 'SU\\(2\\)' is not supported; the groups are SO\\(3\\) and SE\\(3\\)"),
        ({"group": "SE(3)"}, ValueError, r"inertia must have shape \(6,\) or \(6, 6\)"),
        ({"x0": [0.0, 0.0, 1.0]}, ValueError, "x0 and P0 apply to group"),
        ({"h": -0.1}, ValueError, "h and t_end must be finite and positive"),
        ({"h": "small"}, TypeError, "h must be a number"),
        ({"inertia": "heavy"}, ValueError, "could not convert|inertia must have shape"),
    ],
)
def test_bad_input_raises_naming_the_parameter(kw, error, message):
    args = {"inertia": [1.0, 2.0, 3.0], "Pi0": [0.1, 0.2, 0.3], **kw}
    with pytest.raises(error, match=message):
        geomint.lie_system(**args)


def test_an_se3_body_runs_pickles_and_keeps_its_order():
    sinker = geomint.lie_system(
        [2.0, 1.5, 1.0, 5.0, 5.0, 5.0],
        [0.1, 0.2, 0.0],
        group="SE(3)",
        V="w*x3 + k*(r31^2 + r32^2)",
        params={"w": 1.0, "k": 0.5},
        x0=[0.0, 0.0, 10.0],
        P0=[1.0, 0.0, 0.5],
    )
    assert len(sinker.labels) == 22 and "lgvi" not in sinker.methods
    assert sinker.initial_state[3] == 0.0 and sinker.initial_state[11] == 10.0
    back = pickle.loads(pickle.dumps(sinker))
    a = geomint.run(sinker, "hp-sv", 0.02, 500, every=500)
    b = geomint.run(back, "hp-sv", 0.02, 500, every=500)
    assert a.states.tobytes() == b.states.tobytes()
    e1 = geomint.run(sinker, "hp-sv", 0.02, 500).max_error("energy")
    e2 = geomint.run(sinker, "hp-sv", 0.01, 1000).max_error("energy")
    assert abs(math.log2(e1 / e2) - 2.0) < 0.3, (e1, e2)
    # it sinks: the weight w pulls x3 down, with P3 = M33 v3 and M33 = 5
    assert a.final_state[11] < 10.0


def test_a_bad_file_names_the_file_and_the_field(tmp_path):
    f = tmp_path / "top.toml"
    f.write_text('group = "SO(3)"\ninertia = [1.0, 2.0, 3.0]\nPi0 = [0.1, 0.2, 0.3]\nmass = 1.0\n')
    with pytest.raises(ValueError, match="top.toml.*unknown field `mass`"):
        geomint.system_file(f)
