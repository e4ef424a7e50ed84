"""geomint.Simulation: a run that continues, saved and loaded in the CLI's checkpoint format
(``geomint resume`` and Python read each other's files), bit for bit."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

import geomint
from support import bits, read_csv


def same_run(a: geomint.RunResult, b: geomint.RunResult) -> None:
    assert np.array_equal(a.step, b.step)
    assert bits(a.t) == bits(b.t) and bits(a.states) == bits(b.states)
    for q in a.quantities:
        assert bits(a.errors[q.name]) == bits(b.errors[q.name]), q.name
        assert bits(a.values[q.name]) == bits(b.values[q.name]), q.name


def test_a_simulation_stepped_in_pieces_is_the_run():
    sim = geomint.Simulation("kepler", "yoshida6", 0.01, every=7)
    assert (sim.steps, sim.t, sim.every, sim.problem, sim.method) == (0, 0.0, 7, "kepler", "yoshida6")
    assert bits(sim.state) == bits(geomint.problem("kepler").initial_state)
    sim.step(300).step(1)
    sim.integrate(10.0)  # to step 1000
    assert sim.steps == 1000 and sim.t == 1000 * 0.01
    mid = sim.result()
    assert mid.steps == 1000 and mid.step[-1] == 1000 and mid.step[-2] == 994
    sim.step(500)
    r = geomint.run("kepler", "yoshida6", 0.01, 1500, every=7)
    same_run(sim.result(), r)
    assert bits(sim.state) == bits(r.final_state)
    # the samples so far are those of the shorter run
    same_run(mid, geomint.run("kepler", "yoshida6", 0.01, 1000, every=7))
    # no way back, no negative counts
    with pytest.raises(ValueError, match="cannot go back"):
        sim.integrate(1.0)
    with pytest.raises(ValueError, match="n must be at least 0"):
        sim.step(-1)
    with pytest.raises(TypeError):
        sim.step(1.5)
    sim.step(0)
    assert sim.steps == 1500


def test_a_given_state_and_a_built_system():
    body = geomint.rigid_body([2.0, 1.0, 2.0 / 3.0], [0.45, 0.0, 0.89])
    sim = geomint.Simulation(body, "hp-sv", 0.1, every=10)
    sim.step(200)
    same_run(sim.result(), geomint.run(body, "hp-sv", 0.1, 200, every=10))
    assert sim.result().max_error("casimir") <= 1e-12
    s0 = [0.5, 0.0, 0.0, 1.6]
    k = geomint.Simulation("kepler", None, None, every=3, state=s0).step(90)
    same_run(k.result(), geomint.run("kepler", steps=90, every=3, state=s0))
    assert k.method == "stormer-verlet" and k.h == 0.01


def test_save_load_continue_bit_for_bit(tmp_path):
    sim = geomint.Simulation("kepler", "stormer-verlet", 0.01, every=10, params={"e": 0.8})
    sim.step(455)
    sim.save(tmp_path / "cp")
    cp = json.loads((tmp_path / "cp" / "checkpoint.json").read_text())
    assert cp["magic"] == "geomint-checkpoint" and cp["payload"]["run"]["step"] == 455
    back = geomint.Simulation.load(tmp_path / "cp")
    assert back.steps == 455 and bits(back.state) == bits(sim.state)
    same_run(back.result(), sim.result())
    back.step(545)
    sim.step(545)
    whole = geomint.run("kepler", "stormer-verlet", 0.01, 1000, every=10, params={"e": 0.8})
    same_run(back.result(), whole)
    same_run(sim.result(), whole)
    # saved over its own checkpoint, loaded again
    back.save(tmp_path / "cp")
    assert geomint.Simulation.load(tmp_path / "cp").steps == 1000


def test_python_checkpoints_resume_in_the_cli_and_back(cli, tmp_path):
    sim = geomint.Simulation("kepler", "stormer-verlet", 0.01, every=10)
    sim.step(400)
    d = tmp_path / "py"
    sim.save(d)
    proc = subprocess.run([str(cli), "resume", str(d), "--steps", "1000", "--quiet"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    r = geomint.run("kepler", "stormer-verlet", 0.01, 1000, every=10)
    _, traj = read_csv(d / "trajectory.csv")
    assert bits(traj[:, 2:]) == bits(r.states) and bits(traj[:, 1]) == bits(r.t)
    _, diag = read_csv(d / "diagnostics.csv")
    # and the CLI's checkpoint goes on in Python
    back = geomint.Simulation.load(d)
    assert back.steps == 1000
    back.step(200)
    same_run(back.result(), geomint.run("kepler", "stormer-verlet", 0.01, 1200, every=10))
    # a run of the CLI, continued in Python
    out = tmp_path / "cli"
    proc = subprocess.run(
        [str(cli), "run", "rigid-body", "--method", "hp-sv", "--steps", "300", "--every", "5", "--quiet", "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    rb = geomint.Simulation.load(out)
    assert (rb.steps, rb.every, rb.method) == (300, 5, "hp-sv")
    rb.step(100)
    same_run(rb.result(), geomint.run("rigid-body", "hp-sv", None, 400, every=5))


def test_built_systems_are_saved_with_their_data(cli, tmp_path):
    masses = [1.0, 1e-3, 2e-3]
    q = [[0.0, 0.0, 0.0], [1.0, 0.1, 0.0], [0.0, -1.7, 0.2]]
    v = [[0.0, 0.0, 0.0], [0.0, 1.0, 0.1], [0.77, 0.0, 0.0]]
    nb = geomint.nbody(masses, q, v, G=1.0)
    kepler = geomint.hamiltonian(
        "0.5*(px^2 + py^2) - mu/sqrt(x^2 + y^2)",
        q=["x", "y"],
        p=["px", "py"],
        q0=[0.4, 0.0],
        p0=[0.0, 2.0],
        params={"mu": 1.0},
        invariants={"L": "x*py - y*px"},
    )
    for name, system, file in [("nb", nb, "bodies.csv"), ("formula", kepler, "system.toml")]:
        sim = geomint.Simulation(system, None, 0.01, every=4)
        sim.step(100)
        d = tmp_path / name
        sim.save(d)
        assert (d / file).exists(), name
        proc = subprocess.run([str(cli), "resume", str(d), "--steps", "300", "--quiet"], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        r = geomint.run(system, None, 0.01, 300, every=4)
        _, traj = read_csv(d / "trajectory.csv")
        assert bits(traj[:, 2:]) == bits(r.states), name
        # loaded and saved elsewhere: the data go along
        back = geomint.Simulation.load(d)
        back.save(tmp_path / (name + "-copy"))
        assert (tmp_path / (name + "-copy") / file).exists()
        assert geomint.Simulation.load(tmp_path / (name + "-copy")).steps == 300
    body = geomint.Simulation(geomint.rigid_body([2.0, 1.0, 0.5], [0.1, 0.2, 0.3]), "hp-sv", 0.1).step(3)
    with pytest.raises(ValueError, match="rigid body or heavy top built from data cannot be saved"):
        body.save(tmp_path / "body")


def test_damaged_checkpoints_are_refused(tmp_path):
    sim = geomint.Simulation("pendulum", None, None, every=2).step(20)
    d = tmp_path / "cp"
    sim.save(d)
    with pytest.raises(ValueError, match="no checkpoint in"):
        geomint.Simulation.load(tmp_path / "nothing")
    text = (d / "checkpoint.json").read_text()
    (d / "checkpoint.json").write_text(text.replace('"step": 20', '"step": 21'))
    with pytest.raises(ValueError, match="refused"):
        geomint.Simulation.load(d)
    (d / "checkpoint.json").write_text(text[: len(text) // 2])
    with pytest.raises(ValueError, match="truncated"):
        geomint.Simulation.load(d)


def test_a_failed_step_keeps_the_last_good_step():
    sim = geomint.Simulation("kepler", "stormer-verlet", 0.01, state=[0.0, 0.0, 0.0, 1.0])
    with pytest.raises(geomint.IntegrationError, match="step 1"):
        sim.step(10)
    assert sim.steps == 0
