"""Systems brought by the user: groupoid problems from a given state, N-body systems of any
size (from arrays and from the CLI's file format), and the perturbed ensembles of
``geomint ensemble`` -- each against the CLI, bit for bit."""

from __future__ import annotations

import csv
import math
import pickle
import subprocess

import numpy as np
import pytest

import geomint
from support import bits

GROUPOID = ["spherical-pendulum", "plate-ball", "so3-optimal-control", "rolling-disk", "chaplygin-sleigh"]


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def floats(row):
    return np.array([float(x) for x in row])


def test_groupoid_problems_take_their_own_initial_data_back():
    for name in GROUPOID:
        p = geomint.problem(name)
        assert p.family == "groupoid"
        h = p.defaults[0]
        a = geomint.run(name, None, h, 30, every=3)
        b = geomint.run(name, None, h, 30, every=3, state=p.initial_state)
        assert bits(a.states) == bits(b.states), name
        for q in a.quantities:
            assert bits(a.errors[q.name]) == bits(b.errors[q.name]), (name, q.name)


def test_a_groupoid_problem_from_a_given_state(run_cli):
    # the spherical pendulum released from the equator with a tilted velocity
    state = [1.0, 0.0, 0.0, 0.0, 0.5, 0.3]
    r = geomint.run("spherical-pendulum", "rattle", 0.01, 400, every=10, state=state)
    assert r.states[0, 0] == 1.0 and r.states[0, 2] == 0.0  # starts at the given node
    # the constraint to Newton's tolerance max(1e-14/h, ...) = 1e-12 per step; Noether's momentum
    assert r.max_error("constraint") <= 2e-12 and r.max_error("vertical_momentum") <= 1e-12
    default = geomint.run("spherical-pendulum", "rattle", 0.01, 1)
    assert abs(r.values["energy"][0] - default.values["energy"][0]) > 1.0  # another orbit

    # the CLI's --state is the same run, bit for bit
    cli = run_cli("spherical-pendulum", "--method", "rattle", "--h", "0.01", "--steps", "400", "--every", "10",
                  "--state", ",".join(repr(x) for x in state))
    assert cli.returncode == 0, cli.stderr
    header, rows = read_csv(cli.out / "trajectory.csv")
    assert header[2:] == r.labels
    assert bits(np.array([floats(row[2:]) for row in rows])) == bits(r.states)

    # the control problem from another attitude and velocity: the constraint xi3 = 0 holds
    rot = geomint.problem("rigid-body").initial_state[:9]
    c = geomint.run("so3-optimal-control", "del", 0.1, 50, state=[*rot, 0.2, -0.3, 0.0, 0.1])
    assert np.array_equal(c.states[0, :9], rot) and c.max_error("constraint") <= 1e-12
    assert c.max_error("group_defect") <= 1e-12


@pytest.mark.parametrize(
    "name, state",
    [
        ("spherical-pendulum", [0.0, 0.6, -0.7, 1.0, 0.0, 0.0]),
        ("spherical-pendulum", [0.0, 0.6, -0.8, 0.0, 1.0, 0.0]),
        ("so3-optimal-control", [1, 0, 0, 0, 1, 0, 0, 0, 1, 0.2, 0.4, 0.1, 0.0]),
        ("plate-ball", [0, 0, 1.1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0]),
        ("rolling-disk", [0, 0, 0, 0.3, 1.0, 0, 0, 0]),
    ],
)
def test_a_state_off_the_constraints_raises_the_cli_message(run_cli, name, state):
    with pytest.raises(ValueError) as info:
        geomint.run(name, steps=3, state=state)
    cli = run_cli(name, "--steps", "3", "--state", ",".join(repr(float(x)) for x in state))
    assert cli.returncode == 2
    assert str(info.value) == cli.error and "is not admissible" in cli.error


def ten_bodies():
    """A unit mass and nine bodies of masses 1e-6 k on near-circular orbits of radii 1.5^(k-1)
    (G = 1), inclined and phased apart: well separated, no close encounters."""
    m, q, v = [1.0], [[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]]
    for k in range(1, 10):
        r, a = 1.5 ** (k - 1), 2.399 * k
        w = math.sqrt(1.0 / r)
        m.append(1e-6 * k)
        q.append([r * math.cos(a), r * math.sin(a), 0.01 * r * math.sin(a)])
        v.append([-w * math.sin(a), w * math.cos(a), 0.0])
    return np.array(m), np.array(q), np.array(v)


def test_a_ten_body_system_from_python(run_cli, tmp_path):
    m, q, v = ten_bodies()
    sys = geomint.nbody(m, q, v)
    assert sys.name == "nbody" and len(sys.labels) == 60
    assert sys.methods == [
        "stormer-verlet",
        "symplectic-euler-a",
        "symplectic-euler-b",
        "triple-jump",
        "yoshida6",
        "kahan-li8",
        "kahan-li10",
        "sofroniou-spaletta10",
    ]
    assert np.array_equal(sys.initial_state, np.concatenate([q.ravel(), (m[:, None] * v).ravel()]))
    r = geomint.run(sys, "stormer-verlet", 0.01, 10_000, every=100)
    assert 0.0 < r.max_error("energy") < 1e-8
    assert r.max_error("angular_momentum") < 1e-12 and r.max_error("linear_momentum") < 1e-12
    y = geomint.run(sys, "yoshida6", 0.05, 2000, every=100)
    assert y.max_error("energy") < 1e-13

    # the same bodies from a file, through Python and through the CLI: the same run, bit for bit
    path = tmp_path / "bodies.csv"
    lines = ["mass, x, y, z, vx, vy, vz"] + [", ".join(repr(float(x)) for x in [mi, *qi, *vi]) for mi, qi, vi in zip(m, q, v)]
    path.write_text("\n".join(lines) + "\n")
    from_file = geomint.nbody_file(path)
    assert bits(geomint.run(from_file, "stormer-verlet", 0.01, 10_000, every=100).states) == bits(r.states)
    cli = run_cli("nbody", "--system", str(path), "--h", "0.01", "--steps", "10000", "--every", "100")
    assert cli.returncode == 0, cli.stderr
    _, rows = read_csv(cli.out / "trajectory.csv")
    assert bits(np.array([floats(row[2:]) for row in rows])) == bits(r.states)

    # pickling rebuilds the same system; an ensemble of perturbed members runs in parallel
    back = pickle.loads(pickle.dumps(from_file))
    assert bits(geomint.run(back, None, 0.01, 50).states) == bits(geomint.run(sys, None, 0.01, 50).states)
    states = geomint.perturbed_states(sys, 4, 1e-6, seed=2)
    ens = geomint.ensemble(sys, "stormer-verlet", 0.01, 200, states)
    for i in range(4):
        assert bits(ens.states[i]) == bits(geomint.run(sys, "stormer-verlet", 0.01, 200, state=states[i]).final_state)


def test_nbody_file_errors_are_the_clis(run_cli, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("1, 0, 0, 0, 0, 0, 0\n1, 1, 0, 0, 0, 1\n")
    with pytest.raises(ValueError) as info:
        geomint.nbody_file(path)
    cli = run_cli("nbody", "--system", str(path), "--steps", "3")
    assert cli.returncode == 2 and str(info.value) == cli.error and "line 2" in cli.error


def test_perturbed_states_and_ensembles_are_the_clis(cli, tmp_path):
    out = tmp_path / "ens"
    args = ["ensemble", "heavy-top", "--method", "hp-sv", "--steps", "300", "--every", "30", "--members", "5"]
    proc = subprocess.run(
        [str(cli), *args, "--perturb", "0.01", "--seed", "4", "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    header, rows = read_csv(out / "ensemble.csv")
    n = len(geomint.problem("heavy-top").labels)
    init = np.array([floats(row[-n:]) for row in rows])
    states = geomint.perturbed_states("heavy-top", 5, 0.01, seed=4)
    assert bits(states) == bits(init)
    # on the group: R stays a rotation to round-off
    for s in states:
        rot = s[:9].reshape(3, 3)
        assert np.abs(rot.T @ rot - np.eye(3)).max() < 1e-14
    ens = geomint.ensemble("heavy-top", "hp-sv", 0.01, 300, states, every=30)
    first = header.index(geomint.problem("heavy-top").labels[0])
    assert bits(ens.states) == bits(np.array([floats(row[first : first + n]) for row in rows]))
    for q in ens.quantities:
        col = header.index(f"max_err_{q.name}")
        assert bits(ens.max_errors[q.name]) == bits(np.array([float(row[col]) for row in rows])), q.name
    assert geomint.perturbed_states("heavy-top", 5, 0.01, seed=5).tobytes() != states.tobytes()
