"""Bad input from Python: every case raises a Python exception whose message speaks Python's
parameter names (no CLI option such as ``--every``); none crashes the interpreter. Samples
that cannot fit raise before integrating; thread counts are capped at the machine's."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import geomint
from geomint import _native

K = "kepler"
SV = "stormer-verlet"
GOOD = [[0.4, 0.0, 0.0, 2.0]]

CASES = [
    ("unknown problem", lambda: geomint.run("keplr", steps=10), ValueError, "unknown problem 'keplr'"),
    ("problem not a str", lambda: geomint.run(42, steps=10), TypeError, "problem must be"),
    ("unknown method", lambda: geomint.run(K, "verlet", 0.01, 10), ValueError, "verlet"),
    ("method of another family", lambda: geomint.run(K, "hp-sv", 0.01, 10), ValueError, "hp-sv"),
    ("nan step", lambda: geomint.run(K, SV, float("nan"), 10), ValueError, "h must be finite"),
    ("negative step", lambda: geomint.run(K, SV, -0.1, 10), ValueError, "h must be finite and positive"),
    ("zero step", lambda: geomint.run(K, SV, 0.0, 10), ValueError, "h must be finite and positive"),
    ("step as text", lambda: geomint.run(K, SV, "0.1", 10), TypeError, "h must be a number"),
    ("negative steps", lambda: geomint.run(K, SV, 0.01, -5), ValueError, "steps must be"),
    ("zero steps", lambda: geomint.run(K, SV, 0.01, 0), ValueError, "no steps"),
    ("fractional steps", lambda: geomint.run(K, SV, 0.01, 2.5), TypeError, "steps must be an integer"),
    ("huge steps", lambda: geomint.run(K, SV, 0.01, 10**11), ValueError, "at most"),
    ("steps beyond int64", lambda: geomint.run(K, SV, 0.01, 10**30), ValueError, "steps = "),
    ("method not a str", lambda: geomint.run(K, 3, 0.01, 10), TypeError, "method must be"),
    ("every as text", lambda: geomint.ensemble(K, SV, 0.01, 10, GOOD, every="2"), TypeError, "every must be an integer"),
    ("threads fractional", lambda: geomint.ensemble(K, SV, 0.01, 10, GOOD, threads=1.5), TypeError, "threads must be"),
    ("negative seed", lambda: geomint.perturbed_states(K, 4, 1e-3, seed=-1), ValueError, "seed must be"),
    ("steps and t_end", lambda: geomint.run(K, SV, 0.01, 10, t_end=1.0), ValueError, "give steps or t_end, not both"),
    ("negative t_end", lambda: geomint.run(K, SV, 0.01, t_end=-1.0), ValueError, "t_end must be finite"),
    ("t_end below h/2", lambda: geomint.run(K, SV, 0.01, t_end=0.001), ValueError, "t_end < h/2"),
    ("zero every", lambda: geomint.run(K, SV, 0.01, 10, every=0), ValueError, "every must be at least 1"),
    ("negative every", lambda: geomint.run(K, SV, 0.01, 10, every=-3), ValueError, "every must be at least 1"),
    ("too many samples", lambda: geomint.run(K, SV, 0.01, 10**8, every=1), ValueError, "sample every 51 steps"),
    ("unknown param", lambda: geomint.run(K, SV, 0.01, 10, params={"ecc": 0.5}), ValueError, "unknown parameter 'ecc'"),
    ("param not a number", lambda: geomint.run(K, SV, 0.01, 10, params={"e": "x"}), ValueError, "params['e']"),
    ("param out of range", lambda: geomint.run(K, SV, 0.01, 10, params={"e": 1.5}), ValueError, "e"),
    ("params of a built system", lambda: geomint.run(geomint.problem(K), steps=3, params={"e": 0.1}), ValueError, "params"),
    ("state too short", lambda: geomint.run(K, SV, 0.01, 10, state=[1.0, 0.0]), ValueError, "state"),
    ("state 2-D", lambda: geomint.run(K, SV, 0.01, 10, state=np.zeros((2, 4))), ValueError, "1-D array"),
    ("state not finite", lambda: geomint.run(K, SV, 0.01, 10, state=[np.inf, 0, 0, 1]), ValueError, "finite"),
    ("state as text", lambda: geomint.run(K, SV, 0.01, 10, state=["a", "b", "c", "d"]), ValueError, ""),
    ("state off the sphere", lambda: geomint.run("spherical-pendulum", steps=3, state=[0, 0.6, -0.7, 1, 0, 0]), ValueError, "unit sphere"),
    ("a failing step", lambda: geomint.run(K, SV, 0.01, 10, state=[0.0, 0.0, 0.0, 1.0]), geomint.IntegrationError, "step 1"),
    ("ensemble shape", lambda: geomint.ensemble(K, SV, 0.01, 10, np.zeros((8, 3))), ValueError, "shape (M, 4)"),
    ("ensemble 1-D", lambda: geomint.ensemble(K, SV, 0.01, 10, np.zeros(4)), ValueError, "shape (M, 4)"),
    ("ensemble zero threads", lambda: geomint.ensemble(K, SV, 0.01, 10, GOOD, threads=0), ValueError, "threads must be at least 1"),
    ("ensemble negative threads", lambda: geomint.ensemble(K, SV, 0.01, 10, GOOD, threads=-2), ValueError, "threads must be at least 1"),
    ("ensemble bad member", lambda: geomint.ensemble(K, SV, 0.01, 10, GOOD * 3 + [[np.nan, 0, 0, 1]]), ValueError, "member 3"),
    ("ensemble failing member", lambda: geomint.ensemble(K, SV, 0.01, 10, GOOD + [[0.0, 0, 0, 1]]), geomint.IntegrationError, "member 1"),
    ("ensemble every zero", lambda: geomint.ensemble(K, SV, 0.01, 10, GOOD, every=0), ValueError, "every must be at least 1"),
    ("ensemble nan h", lambda: geomint.ensemble(K, SV, float("nan"), 10, GOOD), ValueError, "h must be finite"),
    ("perturbed zero members", lambda: geomint.perturbed_states(K, 0, 1e-3), ValueError, "members"),
    ("perturbed nan eps", lambda: geomint.perturbed_states(K, 4, float("nan")), ValueError, ""),
    ("nbody shapes", lambda: geomint.nbody([1.0, 1.0], [[0, 0, 0]], [[0, 0, 0]]), ValueError, "positions must have shape"),
    ("nbody masses 2-D", lambda: geomint.nbody([[1.0, 1.0]], [[0, 0], [1, 0]], [[0, 0], [0, 1]]), ValueError, "1-D"),
    ("nbody negative mass", lambda: geomint.nbody([1.0, -1.0], [[0, 0], [1, 0]], [[0, 0], [0, 1]]), ValueError, "mass"),
    ("nbody missing file", lambda: geomint.nbody_file("/nonexistent/bodies.csv"), ValueError, "cannot read"),
    ("rigid body inertia", lambda: geomint.rigid_body([1.0, 2.0], [0, 0, 1]), ValueError, "inertia"),
    ("rigid body R not a rotation", lambda: geomint.rigid_body([1, 2, 3], [0, 0, 1], R=2 * np.eye(3)), ValueError, ""),
    ("heavy top chi", lambda: geomint.heavy_top([1, 2, 3], [0, 0, 1], chi=[0, 0]), ValueError, "chi"),
    ("formula that does not parse", lambda: geomint.hamiltonian("0.5*px^2 + (x", q=["x"], p=["px"], q0=[0], p0=[1]), ValueError, "column 14"),
    ("formula unknown name", lambda: geomint.hamiltonian("0.5*px^2 + y", q=["x"], p=["px"], q0=[0], p0=[1]), ValueError, "y"),
    ("simulation bad method", lambda: geomint.Simulation(K, "nope", 0.01), ValueError, "nope"),
    ("simulation zero every", lambda: geomint.Simulation(K, SV, 0.01, every=0), ValueError, "every must be at least 1"),
    ("simulation bad h", lambda: geomint.Simulation(K, SV, -1.0), ValueError, "h must be finite"),
    ("simulation nan t", lambda: geomint.Simulation(K, SV, 0.01).integrate(float("nan")), ValueError, "t must be finite"),
    ("simulation too many samples", lambda: geomint.Simulation(K, SV, 0.01).step(10**8), ValueError, "every="),
    ("simulation load missing", lambda: geomint.Simulation.load("/nonexistent/dir"), ValueError, "no checkpoint"),
    ("dask chunk size", lambda: __import__("geomint.dask").dask.ensemble(None, K, SV, 0.01, 10, GOOD, chunk_size=0), ValueError, "chunk_size"),
]

CLI_FLAG = re.compile(r"--(every|steps|t-end|param|state|threads|h\b|method)")


@pytest.mark.parametrize("name, call, exc, text", CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_a_python_exception_with_python_names(name, call, exc, text):
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    assert text in msg, msg
    assert not CLI_FLAG.search(msg), f"a CLI option in {msg!r}"
    assert "t-end" not in msg, msg


def test_there_are_forty_cases_and_more():
    assert len(CASES) >= 40


def test_thread_counts_are_capped_at_the_machine():
    states = np.tile(geomint.problem(K).initial_state, (4, 1))
    many = geomint.ensemble(K, SV, 0.01, 50, states, threads=10**6)
    one = geomint.ensemble(K, SV, 0.01, 50, states, threads=1)
    assert many.threads == _native.MAX_THREADS and one.threads == 1
    assert many.states.tobytes() == one.states.tobytes()


def test_every_defaults_to_about_a_thousand_samples():
    r = geomint.run(K, SV, 0.01, 10**7)
    assert (r.every, len(r.t)) == (10**4, 1001)


def test_samples_that_cannot_fit_raise_before_integrating():
    """Under a 6 GB address-space limit: the issue's run of 10^8 steps takes the default
    sampling and succeeds; sampled at every step it is refused (ValueError, naming every); a
    large N-body system whose 2e6 samples need 50 GB raises MemoryError at once, and the
    interpreter lives on."""
    script = textwrap.dedent(
        """
        import resource, time, numpy as np, geomint
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
        r = geomint.run("kepler", "stormer-verlet", 0.01, 10**8)
        assert len(r.t) == 1001, len(r.t)
        try:
            geomint.run("kepler", "stormer-verlet", 0.01, 10**8, every=1)
        except ValueError as e:
            assert "every" in str(e)
        rng = np.random.default_rng(0)
        b = 300
        big = geomint.nbody(np.ones(b), rng.standard_normal((b, 3)), np.zeros((b, 3)))
        t0 = time.monotonic()
        try:
            geomint.run(big, "stormer-verlet", 1e-3, 1_999_999, every=1)
            print("ran")
        except MemoryError as e:
            print("MemoryError", round(time.monotonic() - t0, 3), e)
        print("alive")
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "alive" and lines[0].startswith("MemoryError"), proc.stdout
    assert float(lines[0].split()[1]) < 1.0, "refused only after integrating"
