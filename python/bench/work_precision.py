#!/usr/bin/env python3
"""Time to solution at equal energy error: Kepler's problem (e = 0.6, from perihelion, period 2π,
T = 1000) with geomint, scipy's ``solve_ivp(method="DOP853")`` and REBOUND, in one process.

Run by hand (not in CI), in a venv with geomint, scipy, numba and rebound installed:

    OPENBLAS_NUM_THREADS=1 python python/bench/work_precision.py [--t-end 1000] [--repeat 3]
        [--targets 1e-7,1e-10] [--quick]

Every configuration integrates ``H = ½|p|² − 1/|q|`` from ``q = (1 − e, 0)``,
``p = (0, √((1 + e)/(1 − e)))`` to ``T`` and is scored by the largest relative energy error over
1000 equally spaced samples and by its wall time (the whole call, sampling included; the best of
``--repeat`` calls after one untimed call):

* geomint, through ``geomint.run``: the catalogue's ``kepler`` (a Rust model), the same
  Hamiltonian as a formula declared separable (``geomint.hamiltonian(T=…, V=…)``), and as
  compiled ``numba.cfunc`` gradients (``geomint.Hamiltonian``); the fixed-step methods
  ``stormer-verlet``, ``yoshida6``, ``kahan-li8``, ``sofroniou-spaletta10``, with steps
  ``h = T / n`` for ``n`` on a grid of ratio 2^(1/4);
* scipy's DOP853 with the right-hand side a plain Python function (numpy arrays), ``rtol`` on a
  grid of ratio 10^(1/4), ``atol = rtol · 1e-3``, dense output at the sample times (``t_eval``);
* REBOUND (a test particle about a unit mass, ``G = 1``): IAS15 (``epsilon`` on a grid), leapfrog
  and WHFast (``dt`` on the grid above). WHFast's drift is the exact Kepler flow, so on a two-body
  problem it is exact up to round-off at any step: it is listed for the record.

For each energy-error target the table gives, per route, the fastest configuration whose error
is at most the target and its time; then the ratio of scipy's DOP853 time to the best geomint
time. Exits 1 if some route reaches no target (the grids are too coarse), never on the ratios.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Callable, Dict, List, Tuple

import numpy as np

import geomint

E = 0.6
Q0 = np.array([1.0 - E, 0.0])
P0 = np.array([0.0, ((1.0 + E) / (1.0 - E)) ** 0.5])
ENERGY0 = 0.5 * float(P0 @ P0) - 1.0 / float(np.sqrt(Q0 @ Q0))
SAMPLES = 1000

Point = Tuple[float, float, str]  # (largest relative energy error, seconds, setting)


def energy_error(q: np.ndarray, p: np.ndarray) -> float:
    """Largest relative energy error of rows of positions ``q`` and momenta ``p``."""
    e = 0.5 * np.sum(p * p, axis=1) - 1.0 / np.sqrt(np.sum(q * q, axis=1))
    return float(np.max(np.abs((e - ENERGY0) / ENERGY0)))


def timed(f: Callable[[], float], repeat: int) -> Tuple[float, float]:
    """(the error f returns, the best wall time of `repeat` calls after an untimed one)."""
    err = f()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return err, best


def geomint_systems() -> Dict[str, object]:
    """The catalogue's Kepler, the formula declared separable and the ``numba.cfunc`` gradients
    of ``callbacks.py`` (the same Kepler, e = 0.6, from perihelion)."""
    from callbacks import E as E_CALLBACKS, systems

    assert E_CALLBACKS == E
    names = {"catalogue kepler": "catalogue", "formula separable": "formula", "numba cfunc": "numba"}
    return {f"geomint {names[k]}": v for k, v in systems(False).items() if k in names}


def geomint_points(system: object, method: str, t_end: float, steps: List[int], repeat: int) -> List[Point]:
    out = []
    for n in steps:
        every = max(1, n // SAMPLES)
        n = n // every * every

        def go() -> float:
            r = geomint.run(system, method, h=t_end / n, steps=n, every=every)
            s = r.states
            return energy_error(s[:, :2], s[:, 2:])

        err, sec = timed(go, repeat)
        out.append((err, sec, f"{method} h={t_end / n:.3g}"))
        if done(out):
            break
    return out


STOP_ERROR = 1e-12
"""A sweep stops below this error (a hundredth of the smallest target) or after a configuration
of more than 5 s: the energy error is not monotone in the step or tolerance, so no earlier stop
is safe."""


def done(points: List[Point]) -> bool:
    err, sec = points[-1][0], points[-1][1]
    return err < STOP_ERROR or sec > 5.0


def scipy_points(t_end: float, rtols: List[float], repeat: int) -> List[Point]:
    from scipy.integrate import solve_ivp

    def rhs(t, y):
        q = y[:2]
        r3 = (q @ q) ** 1.5
        return np.array([y[2], y[3], -q[0] / r3, -q[1] / r3])

    t_eval = np.linspace(0.0, t_end, SAMPLES + 1)
    y0 = np.concatenate([Q0, P0])
    out = []
    for rtol in rtols:

        def go() -> float:
            sol = solve_ivp(rhs, (0.0, t_end), y0, method="DOP853", rtol=rtol, atol=rtol * 1e-3, t_eval=t_eval)
            return energy_error(sol.y[:2].T, sol.y[2:].T)

        err, sec = timed(go, repeat)
        out.append((err, sec, f"rtol={rtol:.1e}"))
        if done(out):
            break
    return out


def rebound_points(integrator: str, t_end: float, knobs: List[float], repeat: int) -> List[Point]:
    import rebound

    out = []
    for k in knobs:

        def go() -> float:
            sim = rebound.Simulation()
            sim.G = 1.0
            sim.add(m=1.0)
            sim.add(m=0.0, x=Q0[0], y=Q0[1], vx=P0[0], vy=P0[1])
            sim.integrator = integrator
            if integrator == "ias15":
                sim.integrator.epsilon = k
                sim.dt = 0.01
            else:
                sim.dt = t_end / k
            rows = np.empty((SAMPLES, 4))
            for i in range(SAMPLES):
                if integrator == "ias15":
                    sim.integrate(t_end * (i + 1) / SAMPLES)
                else:
                    sim.steps(int(k) // SAMPLES)
                a, b = sim.particles[1], sim.particles[0]
                rows[i] = (a.x - b.x, a.y - b.y, a.vx - b.vx, a.vy - b.vy)
            return energy_error(rows[:, :2], rows[:, 2:])

        err, sec = timed(go, repeat)
        out.append((err, sec, f"epsilon={k:.1e}" if integrator == "ias15" else f"h={t_end / k:.3g}"))
        if done(out):
            break
    return out


def best_at(points: List[Point], target: float) -> Point | None:
    ok = [p for p in points if p[0] <= target]
    return min(ok, key=lambda p: p[1]) if ok else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--t-end", type=float, default=1000.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--targets", default="1e-7,1e-10")
    ap.add_argument("--quick", action="store_true", help="coarser grids, one timed call")
    a = ap.parse_args()
    targets = [float(x) for x in a.targets.split(",")]
    if a.quick:
        a.repeat = 1
    ratio = 2.0 if a.quick else 2.0**0.25
    steps = sorted({SAMPLES * int(round(ratio**k)) for k in range(0, 60)})
    steps = [n for n in steps if n <= 50_000_000]
    routes: Dict[str, List[Point]] = {}
    for name, system in geomint_systems().items():
        methods = ["stormer-verlet", "yoshida6", "kahan-li8", "sofroniou-spaletta10"]
        routes[name] = [p for m in methods for p in geomint_points(system, m, a.t_end, steps, a.repeat)]
        print(f"{name}: {len(routes[name])} runs", file=sys.stderr)
    rtols = [10.0 ** (-k / (2.0 if a.quick else 4.0)) for k in range(12, 53 if not a.quick else 27)]
    routes["scipy DOP853 (Python rhs)"] = scipy_points(a.t_end, rtols, a.repeat)
    print(f"scipy: {len(routes['scipy DOP853 (Python rhs)'])} runs", file=sys.stderr)
    try:
        import rebound  # noqa: F401

        eps = [10.0 ** (-k / 2.0) for k in range(4, 21)]
        routes["REBOUND IAS15"] = rebound_points("ias15", a.t_end, eps, a.repeat)
        fixed = [n for n in steps if n % SAMPLES == 0]
        routes["REBOUND leapfrog"] = rebound_points("leapfrog", a.t_end, fixed, a.repeat)
        routes["REBOUND WHFast (exact on 2 bodies)"] = rebound_points("whfast", a.t_end, fixed[:3], a.repeat)
    except ImportError:
        print("rebound is not installed: no REBOUND routes", file=sys.stderr)

    print(f"Kepler e = {E}, T = {a.t_end:g}: time to solution (s) at a largest relative energy error <= target")
    missing = False
    for target in targets:
        print(f"\ntarget {target:.0e}")
        print(f"{'route':<36} {'seconds':>10} {'error':>10}  setting")
        best_geomint = None
        for name, pts in routes.items():
            b = best_at(pts, target)
            if b is None:
                print(f"{name:<36} {'—':>10} {'':>10}  not reached (best error {min(p[0] for p in pts):.1e})")
                missing |= not name.startswith("REBOUND")
                continue
            print(f"{name:<36} {b[1]:10.4f} {b[0]:10.1e}  {b[2]}")
            if name.startswith("geomint") and (best_geomint is None or b[1] < best_geomint[1]):
                best_geomint = (name, b[1])
        sp = best_at(routes["scipy DOP853 (Python rhs)"], target)
        if sp and best_geomint:
            print(f"ratio scipy_dop853_over_best_geomint_{target:.0e} {sp[1] / best_geomint[1]:.1f} ({best_geomint[0]})")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
