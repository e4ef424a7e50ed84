#!/usr/bin/env python3
"""Your own system at every front door: Kepler (e = 0.6, from perihelion) with Störmer–Verlet,
h = 0.01, the cost of a step through ``geomint.run`` in one process, for

* the catalogue's ``kepler`` (hand-written force ``q/r³``): the reference;
* a formula system ``geomint.hamiltonian`` declared separable (``T`` and ``V``) and one with a
  general ``H`` (the same Hamiltonian; automatic differentiation of the formulas);
* ``geomint.Hamiltonian`` with ``numba.cfunc`` gradients (compiled callbacks, the GIL released);
* ``geomint.Hamiltonian`` with plain Python gradients (the GIL held, numpy arrays in and out).

    python python/bench/callbacks.py [--steps 1000000] [--python-steps 100000] [--repeat 3]

Each figure is the best of ``--repeat`` calls (after one untimed call) of the wall time of
``geomint.run(..., every=steps)`` divided by the steps, in ns; the ratios are against the
catalogue. Targets: formula (separable) ≤ 3×, compiled callback ≤ 2×. Exits 1 when a target is
missed or the final states disagree (all routes integrate the same equations: the final states
agree to 1e-7 after 10^6 steps, 1e-8 after 10^5: the round-off of different but equal
formulas for the force, carried along the orbit).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import geomint

E = 0.6
Q0, P0 = [1.0 - E, 0.0], [0.0, ((1.0 + E) / (1.0 - E)) ** 0.5]


def systems(with_python: bool):
    out = {
        "catalogue kepler": geomint.problem("kepler", {"e": E}),
        "formula separable": geomint.hamiltonian(
            T="0.5*(px^2 + py^2)", V="-1/sqrt(x^2 + y^2)", q=["x", "y"], p=["px", "py"], q0=Q0, p0=P0
        ),
        "formula general H": geomint.hamiltonian(
            "0.5*(px^2 + py^2) - 1/sqrt(x^2 + y^2)", q=["x", "y"], p=["px", "py"], q0=Q0, p0=P0
        ),
    }
    try:
        import numba

        sig = "void(intc, CPointer(float64), CPointer(float64), voidptr)"

        @numba.cfunc(sig)
        def grad_v(n, q, out, _):
            r2 = q[0] * q[0] + q[1] * q[1]
            r3 = r2 * np.sqrt(r2)
            out[0] = q[0] / r3
            out[1] = q[1] / r3

        @numba.cfunc(sig)
        def grad_t(n, p, out, _):
            out[0] = p[0]
            out[1] = p[1]

        out["numba cfunc"] = geomint.Hamiltonian(grad_v, grad_t, q0=Q0, p0=P0)
    except ImportError:
        print("numba is not installed: no compiled callback", file=sys.stderr)
    if with_python:

        def py_grad_v(q):
            return q / (q @ q) ** 1.5

        def py_grad_t(p):
            return p

        out["plain Python"] = geomint.Hamiltonian(py_grad_v, py_grad_t, q0=Q0, p0=P0)
    return out


def per_step(system, steps: int, repeat: int):
    geomint.run(system, "stormer-verlet", h=0.01, steps=max(1, steps // 10), every=steps)
    best, final = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        r = geomint.run(system, "stormer-verlet", h=0.01, steps=steps, every=steps)
        best = min(best, time.perf_counter() - t)
        final = r.final_state
    return best / steps * 1e9, final


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--python-steps", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    ok = True
    results = {}
    for name, s in systems(True).items():
        steps = a.python_steps if name == "plain Python" else a.steps
        ns, final = per_step(s, steps, a.repeat)
        results[name] = (ns, final, steps)
    base, ref_final, _ = results["catalogue kepler"]
    ref_short = geomint.run(geomint.problem("kepler", {"e": E}), "stormer-verlet", h=0.01, steps=a.python_steps).final_state
    print(f"Kepler, Störmer–Verlet, h = 0.01; ns per step through geomint.run (best of {a.repeat})")
    for name, (ns, final, steps) in results.items():
        ref, tol = (ref_final, 1e-7) if steps == a.steps else (ref_short, 1e-8)
        diff = float(np.max(np.abs(final - ref)))
        print(f"{name:20s} {ns:10.1f} ns/step  ratio {ns / base:7.2f}   ({steps} steps, |Δ final| = {diff:.1e})")
        if diff > tol:
            print(f"  FAIL: {name} ends {diff:.1e} from the catalogue's state")
            ok = False
    for name, target in [("formula separable", 3.0), ("numba cfunc", 2.0)]:
        if name in results:
            r = results[name][0] / base
            print(f"ratio {name.replace(' ', '_')} {r:.3f} (target <= {target})")
            ok &= r <= target
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
