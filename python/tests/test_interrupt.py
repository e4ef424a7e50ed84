"""Ctrl-C in Python: SIGINT during a long ``run``, ``ensemble``, ``Simulation.integrate``,
``solve_hamiltonian(t_eval=...)``, ``megno`` or ``poincare``
raises ``KeyboardInterrupt`` within a second (measured: well under 0.5 s), also when the call is
the first geomint call of the process; an interrupted simulation goes on, bit for bit."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")

SCRIPT = textwrap.dedent(
    """
    import signal, sys, numpy as np, geomint
    # Python raises KeyboardInterrupt only where SIGINT was not ignored at start-up; a background
    # job of a non-interactive shell (a CI runner's `cmd &`) inherits it ignored
    signal.signal(signal.SIGINT, signal.default_int_handler)
    kind = sys.argv[1]
    print("ready", flush=True)
    try:
        if kind == "run":
            geomint.run("kepler", "stormer-verlet", 0.01, 3_000_000_000, every=1_000_000)
        elif kind == "t_eval":
            geomint.solve_hamiltonian("kepler", (0.0, 3.0e7), method="stormer-verlet", h=0.01, t_eval=[1.0, 2.9e7])
        elif kind == "megno":
            states = np.tile(geomint.problem("henon-heiles").initial_state, (8, 1))
            geomint.megno("henon-heiles", "stormer-verlet", 0.01, 3_000_000_000, states)
        elif kind == "poincare":
            geomint.poincare("henon-heiles", "stormer-verlet", 0.01, section="q1=100", count=10, max_steps=3_000_000_000)
        elif kind == "ensemble":
            states = np.tile(geomint.problem("kepler").initial_state, (8, 1))
            geomint.ensemble("kepler", "stormer-verlet", 0.01, 3_000_000_000, states)
        else:
            sim = geomint.Simulation("kepler", "stormer-verlet", 0.01, every=1_000_000)
            try:
                sim.integrate(3.0e7)
            except KeyboardInterrupt:
                print("interrupted", flush=True)
                n = sim.steps
                assert 0 < n < 3_000_000_000, n
                sim.step(1000)
                r = geomint.run("kepler", "stormer-verlet", 0.01, n + 1000, every=1_000_000)
                same = sim.result().states.tobytes() == r.states.tobytes() and sim.state.tobytes() == r.final_state.tobytes()
                print("continued", n, same, flush=True)
                sys.exit(0)
        print("not interrupted", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    """
)


def interrupt(kind: str, after: float = 1.0):
    """Starts the script, sends SIGINT `after` seconds into the call; returns the latency to
    the `interrupted` line and the rest of the output."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, kind], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(after)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        # a child that does not answer fails the test instead of hanging it
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        line = proc.stdout.readline().strip() if ready else "no answer within 60 s"
        latency = time.monotonic() - t0
        rest, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert line == "interrupted", (line, err)
    assert proc.returncode == 0, err
    assert "PanicException" not in err and "panicked" not in err, err
    return latency, rest


@pytest.mark.parametrize("kind", ["run", "ensemble", "simulation", "t_eval", "megno", "poincare"])
def test_ctrl_c_raises_keyboard_interrupt_within_a_second(kind):
    latency, rest = interrupt(kind)
    print(f"{kind}: KeyboardInterrupt {latency * 1000:.0f} ms after SIGINT")
    assert latency < 1.0, latency
    if kind == "simulation":
        word, n, same = rest.split()
        assert word == "continued" and int(n) > 0 and same == "True", rest


def test_ctrl_c_at_once_in_the_first_call():
    """SIGINT 50 ms into the process's first geomint call (while numpy's API and the worker
    start): still a clean KeyboardInterrupt."""
    latency, _ = interrupt("run", after=0.05)
    assert latency < 1.0, latency
