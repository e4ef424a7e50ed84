"""The Python runs are the CLI's runs: same numbers bit for bit, same error messages."""

from __future__ import annotations


import numpy as np
import pytest

import geomint
from support import bits, read_csv


@pytest.mark.parametrize(
    "args, kwargs",
    [
        (["kepler", "--method", "stormer-verlet", "--steps", "1000"], dict(h=None, steps=1000)),
        (
            ["kepler", "--method", "yoshida6", "--param", "e=0.9", "--h", "0.005", "--steps", "700", "--every", "7"],
            dict(h=0.005, steps=700, every=7, params={"e": 0.9}),
        ),
    ],
)
def test_kepler_run_equals_the_cli_bit_for_bit(run_cli, args, kwargs):
    cli = run_cli(*args)
    assert cli.returncode == 0, cli.stderr
    method = args[args.index("--method") + 1]
    every = kwargs.pop("every", 1)
    r = geomint.run("kepler", method, kwargs.pop("h"), kwargs.pop("steps"), every=every, **kwargs)

    header, traj = read_csv(cli.out / "trajectory.csv")
    assert header == ["step", "t", *r.labels]
    assert traj.shape == (r.states.shape[0], 2 + r.states.shape[1])
    # the final state, then every sample, bit for bit
    assert bits(traj[-1, 2:]) == bits(r.final_state)
    assert [float.hex(x) for x in traj[-1, 2:]] == [float.hex(float(x)) for x in r.final_state]
    assert bits(traj[:, 2:]) == bits(r.states)
    assert bits(traj[:, 1]) == bits(r.t)
    assert np.array_equal(traj[:, 0].astype(np.int64), r.step)

    header, diag = read_csv(cli.out / "diagnostics.csv")
    for q in r.quantities:
        col = header.index(f"err_{q.name}")
        assert bits(diag[:, col]) == bits(r.errors[q.name]), q.name
        assert bits(diag[:, header.index(q.name)]) == bits(r.values[q.name]), q.name
    assert bits(diag[:, header.index("err_solution")]) == bits(r.solution_error)


@pytest.mark.parametrize(
    "args, call",
    [
        (["keplr", "--steps", "10"], lambda: geomint.run("keplr", None, None, 10)),
        (
            ["kepler", "--method", "stormer-verlet", "--h", "NaN", "--steps", "10"],
            lambda: geomint.run("kepler", "stormer-verlet", float("nan"), 10),
        ),
        (
            ["kepler", "--method", "stormer-verlet", "--h", "NaN", "--steps", "10"],
            lambda: geomint.ensemble("kepler", "stormer-verlet", float("nan"), 10, np.zeros((3, 4))),
        ),
        (["kepler", "--method", "hp-sv", "--steps", "10"], lambda: geomint.run("kepler", "hp-sv", 0.01, 10)),
        (["kepler", "--method", "verlet", "--steps", "10"], lambda: geomint.run("kepler", "verlet", 0.01, 10)),
        (["kepler", "--steps", "0"], lambda: geomint.run("kepler", None, None, 0)),
        (["kepler", "--param", "e=1.5", "--steps", "10"], lambda: geomint.run("kepler", params={"e": 1.5}, steps=10)),
        (["kepler", "--param", "x=1", "--steps", "10"], lambda: geomint.problem("kepler", {"x": 1})),
        (["rigid-bdy", "--steps", "10"], lambda: geomint.methods("rigid-bdy")),
    ],
)
def test_bad_input_raises_value_error_with_the_cli_message(run_cli, args, call):
    """The CLI's message, in Python's parameter names (``t_end`` for ``t-end``)."""
    cli = run_cli(*args)
    assert cli.returncode == 2, cli.stdout
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == cli.error.replace("t-end", "t_end")


def test_wrong_state_shape_raises_value_error():
    # the state's length and values are checked by the workbench (the CLI's `--state` gives the
    # same messages); the shapes of arrays by the Python package
    with pytest.raises(ValueError) as info:
        geomint.run("kepler", "stormer-verlet", 0.01, 10, state=[0.4, 0.0, 0.0])
    assert str(info.value) == "a state of 'kepler' has 4 coordinates (q1, q2, p1, p2), got 3"
    with pytest.raises(ValueError) as info:
        geomint.run("kepler", "stormer-verlet", 0.01, 10, state=np.zeros((2, 2)))
    assert str(info.value) == "state of 'kepler' must be a 1-D array of 4 coordinates (q1, q2, p1, p2), got shape (2, 2)"
    with pytest.raises(ValueError) as info:
        geomint.ensemble("kepler", "stormer-verlet", 0.01, 10, np.zeros((64, 3)))
    assert str(info.value) == (
        "states of 'kepler' must be an array of shape (M, 4), one row (q1, q2, p1, p2) per member, got shape (64, 3)"
    )
    with pytest.raises(ValueError, match=r"got shape \(4,\)"):
        geomint.ensemble("kepler", "stormer-verlet", 0.01, 10, np.zeros(4))
    with pytest.raises(ValueError, match="must be finite, got NaN"):
        geomint.run("kepler", "stormer-verlet", 0.01, 10, state=[0.4, np.nan, 0.0, 2.0])
    with pytest.raises(ValueError, match="^member 2: state coordinate p2 of 'kepler' must be finite, got inf$"):
        s = np.tile([0.4, 0.0, 0.0, 2.0], (5, 1))
        s[2, 3] = np.inf
        geomint.ensemble("kepler", "stormer-verlet", 0.01, 10, s)


def test_other_bad_inputs_raise_python_exceptions_not_crashes():
    with pytest.raises(ValueError, match="steps must be a positive integer, got -3"):
        geomint.run("kepler", "stormer-verlet", 0.01, -3)
    with pytest.raises(TypeError):
        geomint.run(42)
    with pytest.raises(ValueError, match="params apply to a problem given by name"):
        geomint.run(geomint.problem("kepler"), params={"e": 0.5}, steps=3)
    # a groupoid problem takes a state, but not one off its constraint |q| = 1
    with pytest.raises(ValueError, match=r"^a state of 'spherical-pendulum' is not admissible: q is not on"):
        geomint.run("spherical-pendulum", steps=3, state=np.zeros(6))
    with pytest.raises(ValueError, match="R is not a rotation"):
        geomint.rigid_body([2.0, 1.0, 0.5], [1.0, 0.0, 0.0], R=np.eye(3) * 1.1)
    with pytest.raises(ValueError, match="invalid parameter"):
        geomint.nbody([1.0, -1.0], np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="threads must be at least 1, got 0"):
        geomint.ensemble("kepler", "stormer-verlet", 0.01, 3, np.zeros((1, 4)) + [0.4, 0, 0, 2], threads=0)
    # a step that fails is an IntegrationError naming the step, as the CLI reports it
    with pytest.raises(geomint.IntegrationError, match=r"^integration failed at step 1 \(t = 0\.000000\)"):
        geomint.run("kepler", "stormer-verlet", 0.01, 10, state=[0.0, 0.0, 0.0, 1.0])
    assert issubclass(geomint.IntegrationError, RuntimeError)
