"""Argument fuzzing of every public function of the Python package (issue 31, item 9).

Each public entry point -- of ``geomint`` and of its native module ``geomint._native`` (where
pyo3 converts the arguments) -- is called with a fixed-seed stream of hostile arguments: wrong
types, NaN and infinities, integers beyond 64 bits, negative counts, empty and huge strings,
bytes, nested lists of the wrong shape, arrays of the wrong shape or dtype, paths that are not
regular files (``/dev/zero``, a FIFO, a directory). Each call must return or raise an exception
of an ordinary class (``TypeError``, ``ValueError``, ``OverflowError``, ``MemoryError``,
``OSError`` for a path, ``geomint.IntegrationError``); never crash the interpreter, hang, or raise
``pyo3_runtime.PanicException``.

The calls run in a child interpreter with its address space capped (``RLIMIT_AS`` 2 GB, so an
unbounded allocation fails instead of swapping the machine) that reports each case before and
after the call; the parent restarts it after a crash or a case that takes longer than
``CASE_TIMEOUT`` seconds, and reports every such case. A valid request that merely runs long
(``steps=2**31``) is interrupted after ``SLOW`` seconds by a signal whose handler raises, as
Ctrl-C would: it must stop there (the library checks signals while it integrates); a call that
ignores the signal (a read blocked on a FIFO) is a hang. The test suite (CI) runs the whole
one-argument-at-a-time sweep over every hostile value and ``RANDOM_CASES`` seeded random
mutations (about 30 s); ``GEOMINT_FUZZ_CASES`` sets the number of random mutations for a longer
run (``GEOMINT_FUZZ_CASES=20000``, some minutes).

Not fuzzed, by design: an integer (or ctypes pointer) given as a compiled callback of
``geomint.Hamiltonian`` or ``geomint.ode`` is an address the library calls, as ctypes would
(the systems are built, not run, with hostile callbacks); an exception raised by a Python
callback propagates as itself.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import textwrap
import threading


CASE_TIMEOUT = 30.0
SLOW = 2.0
RANDOM_CASES = 1000
MEMORY_LIMIT = 2 * 1024**3

WORKER = textwrap.dedent(
    r'''
    import json, math, os, random, resource, signal, sys, tempfile
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    import numpy as np
    import geomint
    from geomint import _native

    class Slow(Exception):
        """Raised by the interval timer in a call that runs longer than SLOW seconds."""

    def on_alarm(*_):
        raise Slow()

    signal.signal(signal.SIGALRM, on_alarm)
    tmp = tempfile.mkdtemp(prefix="geomint-fuzz-")
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)

    HOSTILE = [
        None, True, False, 0, -1, 1, 7, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30, 10**400,
        0.0, -0.0, 5e-324, 1e-300, 1e300, -1e308, float("nan"), float("inf"), float("-inf"),
        complex(1, 1), "", "x" * 1_000_000, "kepler", "stormer-verlet", "\x00", "é\u2028", "0.5*p^2",
        b"kepler", bytearray(b"\xff"), [], [[]], [1, [2]], [[1.0, 2.0], [3.0]], [[[1.0]]], [float("nan")] * 4,
        [1e300] * 12, ["a", "b"], {}, {"a": float("nan")}, {"": "q"}, {1: 2}, set(), (), object(),
        np.array([]), np.zeros((0, 4)), np.full(4, np.nan), np.zeros((2, 3, 4)), np.ones(12, dtype=np.int8),
        np.array(["a"]), np.float32("nan"), np.int64(-1), np.uint64(2**64 - 1), np.zeros(1_000_000),
        "/dev/zero", "/dev/null", "/", "/nonexistent/x", fifo, tmp, os.path.join(tmp, "\x00"),
        lambda *a: None, lambda *a: "x", lambda *a: [float("nan")], lambda *a: 1 / 0,
    ]

    def system():
        return geomint.problem("kepler")

    init = system().initial_state
    k0 = list(init() if callable(init) else init)

    def sim():
        return geomint.Simulation("kepler", "stormer-verlet", 0.01)

    def call_attr(obj, attr, args):
        v = getattr(obj, attr)
        return v(*args) if callable(v) else v

    # name -> (function, positional base, keyword base): every argument is mutated in turn
    F = {
        "problems": (geomint.problems, [], {}),
        "methods": (geomint.methods, ["kepler"], {"params": None}),
        "problem": (geomint.problem, ["kepler"], {"params": {"e": 0.5}}),
        "run": (geomint.run, ["kepler", "stormer-verlet", 0.01, 100], {"t_end": None, "params": None, "state": None, "every": None}),
        "ensemble": (geomint.ensemble, ["kepler", "stormer-verlet", 0.01, 10, [k0, k0]], {"params": None, "every": None, "threads": None}),
        "perturbed_states": (geomint.perturbed_states, ["kepler", 3, 1e-3], {"seed": 0, "state": None, "params": None}),
        "Simulation": (geomint.Simulation, ["kepler", "stormer-verlet", 0.01], {"every": 1, "state": None, "params": None}),
        "Simulation.load": (geomint.Simulation.load, [tmp], {}),
        "Simulation.step": (lambda n: sim().step(n), [5], {}),
        "Simulation.integrate": (lambda t: sim().integrate(t), [0.1], {}),
        "Simulation.save": (lambda p: sim().save(p), [os.path.join(tmp, "saved")], {}),
        "hamiltonian": (geomint.hamiltonian, ["0.5*p^2 + 0.5*q^2"], {"q": ["q"], "p": ["p"], "q0": [1.0], "p0": [0.0], "T": None, "V": None, "params": None, "invariants": None, "name": None, "h": None, "t_end": None}),
        "Hamiltonian": (geomint.Hamiltonian, [lambda q: q, lambda p: p], {"q0": [1.0], "p0": [0.0], "V": None, "T": None, "user_data": None, "h": None, "t_end": None}),
        "solve_hamiltonian": (geomint.solve_hamiltonian, ["kepler", (0.0, 1.0)], {"y0": None, "method": "yoshida6", "h": None, "t_eval": None, "params": None}),
        "nbody": (geomint.nbody, [[1.0, 1e-3], [[0.0, 0.0], [1.0, 0.0]], [[0.0, 0.0], [0.0, 1.0]]], {"G": 1.0}),
        "nbody_file": (geomint.nbody_file, ["/dev/null"], {"G": 1.0}),
        "system_file": (geomint.system_file, ["/dev/null"], {}),
        "rigid_body": (geomint.rigid_body, [[1.0, 2.0, 3.0], [0.1, 0.2, 0.3]], {"R": None}),
        "heavy_top": (geomint.heavy_top, [[1.0, 2.0, 3.0], [0.1, 0.2, 0.3]], {"R": None, "mgl": 1.0, "chi": (0.0, 0.0, 1.0)}),
        "kepler_drift": (geomint.kepler_drift, [1.0, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]], 0.5], {}),
        "native.kepler_drift": (_native.kepler_drift, [1.0, np.array([[1.0, 0.0, 0.0]]), np.array([[0.0, 1.0, 0.0]]), np.array(0.5)], {}),
        "native.problem": (_native.problem, ["kepler", None], {}),
        "native.methods": (_native.methods, [system()], {}),
        "native.run": (_native.run, [system(), "stormer-verlet", 0.01, 100, None, None, None], {}),
        "native.ensemble": (_native.ensemble, [system(), "stormer-verlet", 0.01, 10, np.array([k0, k0])], {"every": None, "threads": None, "first_member": 0}),
        "native._at_times": (_native._at_times, [system(), "stormer-verlet", 0.01, 100, np.linspace(0.0, 1.0, 5)], {"state": None}),
        "solve_hamiltonian t_eval": (geomint.solve_hamiltonian, ["kepler", (0.0, 1.0)], {"t_eval": np.linspace(0.0, 1.0, 7), "method": "stormer-verlet", "h": 0.01}),
        "ode": (geomint.ode, [lambda t, y: y, [1.0]], {"t0": 0.0, "invariants": None, "user_data": None, "h": None, "t_end": None}),
        "ode run": (lambda y0: geomint.run(geomint.ode(lambda t, y: -y, y0), "rk4", 0.01, 10), [[1.0]], {}),
        "native._vector_field": (_native._vector_field, [lambda t, y: y, [1.0]], {"t0": 0.0, "invariants": [], "h": None, "t_end": None}),
        "native.check_ensemble": (_native.check_ensemble, [system(), "stormer-verlet", 0.01, 10, [2, 4]], {"every": None, "threads": None}),
        "native.perturbed_states": (_native.perturbed_states, [system(), 3, 1e-3], {"seed": 0, "state": None}),
        "native.Simulation": (_native.Simulation, [system(), "stormer-verlet", 0.01, 1, None], {}),
        "native.hamiltonian": (_native.hamiltonian, ["0.5*p^2 + 0.5*q^2"], {"q": ["q"], "p": ["p"], "q0": [1.0], "p0": [0.0]}),
        "native.nbody": (_native.nbody, [np.array([1.0, 1e-3]), np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([[0.0, 0.0], [0.0, 1.0]])], {"G": 1.0}),
        "native.rigid_body": (_native.rigid_body, [np.array([1.0, 2.0, 3.0]), np.array([0.1, 0.2, 0.3]), None], {}),
        "native.heavy_top": (_native.heavy_top, [np.array([1.0, 2.0, 3.0]), np.array([0.1, 0.2, 0.3]), None, 1.0, np.array([0.0, 0.0, 1.0])], {}),
        "megno": (geomint.megno, ["kepler", "stormer-verlet", 0.01, 10, [k0, k0]], {"params": None, "threads": None}),
        "poincare": (geomint.poincare, ["kepler", "stormer-verlet", 0.01, None], {"section": "q2=0", "direction": "up", "count": 3, "max_steps": None, "params": None}),
        "native.megno": (_native.megno, [system(), "stormer-verlet", 0.01, 10, np.array([k0, k0])], {"threads": None}),
        "native.check_megno": (_native.check_megno, [system(), "stormer-verlet", 0.01, 10, [2, 4]], {"threads": None}),
        "native.poincare": (_native.poincare, [system(), "stormer-verlet", 0.01, None], {"section": "q2=0", "direction": "up", "count": 3, "max_steps": None}),
        "native._problem_from_dict": (_native._problem_from_dict, ["kepler", {"e": 0.5}], {}),
        "native._system_from_toml": (_native._system_from_toml, ["H = '0.5*p^2'\nq = ['q']\np = ['p']\nq0 = [1.0]\np0 = [0.0]\n"], {}),
    }
    for attr in ("name", "summary", "family", "labels", "methods", "defaults", "quantities", "params", "initial_state", "__reduce__"):
        F["System." + attr] = ((lambda a: lambda *args: call_attr(system(), a, args))(attr), [], {})

    def cases(seed, count):
        """(name, args, kwargs) with one argument replaced by every hostile value, then `count`
        random cases mutating 1 to 3 arguments (or adding one)."""
        for name, (f, args, kw) in F.items():
            slots = list(range(len(args))) + list(kw)
            for slot in slots:
                for v in range(len(HOSTILE)):
                    yield name, slot, [v]
        rng = random.Random(seed)
        names = list(F)
        for _ in range(count):
            name = rng.choice(names)
            f, args, kw = F[name]
            slots = list(range(len(args))) + list(kw) + ["extra"]
            picks = [rng.choice(slots) for _ in range(rng.randint(1, 3))]
            yield name, picks, [rng.randrange(len(HOSTILE)) for _ in picks]

    def build(name, slot, values):
        f, args, kw = F[name]
        args, kw = list(args), dict(kw)
        slots = slot if isinstance(slot, list) else [slot]
        for s, v in zip(slots, values):
            if s == "extra":
                args.append(HOSTILE[v])
            elif isinstance(s, int):
                args[s] = HOSTILE[v]
            else:
                kw[s] = HOSTILE[v]
        return f, args, kw

    ORDINARY = (TypeError, ValueError, OverflowError, MemoryError, OSError, geomint.IntegrationError)
    start, count, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    out = sys.stdout
    for i, (name, slot, values) in enumerate(cases(seed, count)):
        if i < start:
            continue
        label = f"{name} {slot} {[repr(HOSTILE[v])[:60] for v in values]}"
        out.write(json.dumps({"start": i, "case": label}) + "\n")
        out.flush()
        f, args, kw = build(name, slot, values)
        signal.setitimer(signal.ITIMER_REAL, SLOW)
        try:
            try:
                f(*args, **kw)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            outcome = "ok"
        except BaseException as e:
            cls = type(e)
            if cls is Slow:
                outcome = "interrupted"
            elif cls.__name__ == "PanicException":
                outcome = "panic: " + str(e)[:200]
            elif isinstance(e, ORDINARY) and not isinstance(e, (KeyboardInterrupt, SystemExit)):
                outcome = "raised " + cls.__name__
            else:
                outcome = f"unexpected {cls.__module__}.{cls.__name__}: {str(e)[:200]}"
        out.write(json.dumps({"end": i, "outcome": outcome}) + "\n")
        out.flush()
    out.write(json.dumps({"done": True}) + "\n")
    '''
).replace("MEMORY_LIMIT", str(MEMORY_LIMIT)).replace("SLOW)", f"{SLOW})")


def run_fuzz(count: int, seed: int = 31) -> tuple[dict, list]:
    """Run every case, restarting the worker after a crash or a hang; returns the outcome counts
    and the failures (case, what happened)."""
    counts: dict = {}
    failures: list = []
    start = 0
    env = dict(os.environ, RUST_BACKTRACE="0")
    while True:
        proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(start), str(count), str(seed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=tempfile.gettempdir(),
        )
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout] + [lines.put("")], daemon=True).start()
        current = None
        last = start - 1
        done = False
        while True:
            try:
                line = lines.get(timeout=CASE_TIMEOUT)
            except queue.Empty:
                proc.kill()
                proc.wait()
                failures.append((current, f"hang: no progress in {CASE_TIMEOUT} s"))
                break
            if not line:
                rc = proc.wait()
                failures.append((current, f"crashed the interpreter (exit status {rc})"))
                break
            msg = json.loads(line)
            if "start" in msg:
                current = (msg["start"], msg["case"])
                last = msg["start"]
            elif "end" in msg:
                outcome = msg["outcome"]
                key = outcome if outcome == "ok" else outcome.split(":")[0]
                counts[key] = counts.get(key, 0) + 1
                if not (outcome in ("ok", "interrupted") or outcome.startswith("raised ")):
                    failures.append((current, outcome))
                current = None
            elif msg.get("done"):
                done = True
                proc.wait()
                break
        if done:
            return counts, failures
        start = last + 1


def test_every_public_function_survives_hostile_arguments() -> None:
    """The whole one-argument sweep (about 11 000 cases) and ``RANDOM_CASES`` random mutations
    (``GEOMINT_FUZZ_CASES`` to set their number); about 30 s."""
    counts, failures = run_fuzz(int(os.environ.get("GEOMINT_FUZZ_CASES", RANDOM_CASES)))
    print("outcomes:", counts)
    for case, what in failures:
        print(f"  {case}: {what}")
    assert sum(counts.values()) > 10_000, counts
    assert counts.get("ok", 0) > 500 and counts.get("raised ValueError", 0) > 1000, counts
    assert not failures, f"{len(failures)} failing cases, first: {failures[:5]}"
