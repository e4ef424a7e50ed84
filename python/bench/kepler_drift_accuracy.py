"""The Kepler drift (``geomint.kepler_drift``, ``integrators::splitting::KeplerDrift``) and
REBOUND's Kepler solver against a 51-digit mpmath reference on random orbits (issue 34).

Run by hand (not in CI), in a venv with the package and ``pip install mpmath gmpy2 rebound``:

    python python/bench/kepler_drift_accuracy.py [--n 1000000] [--seed 1] [--processes 2]
        [--budget-minutes M] [--json out.json] [--no-rebound]
        [--save-reference cases.npz | --load-reference cases.npz]

The cases (``python/tests/kepler_reference.py``, :func:`draw`): five classes in equal numbers —
elliptic ``e < 0.99``, elliptic ``0.99 ≤ e ≤ 0.999``, near-parabolic ``1 − e ∈ [10⁻¹⁵, 10⁻³]``
and ``e − 1 ∈ [10⁻¹⁵, 10⁻³]``, hyperbolic ``1.001 ≤ e ≤ 10`` — with random ``μ``, pericentre
distance, orientation and anomaly, forward and backward times ``τ T`` with ``τ`` log-uniform in
``[10⁻¹², 10⁶]`` (``T`` the period, or the time scale of an open orbit).

Per case: the reference flow (Danby's universal variables in mpmath at 170 bits), the condition
numbers ``κ_q``, ``κ_p`` (the largest relative change of ``q``, ``p`` over three random sign
vectors of componentwise relative input perturbations of ``10⁻²⁰``, divided by ``10⁻²⁰``), the
relative errors ``|q − q_ref|/|q_ref|`` and ``|p − p_ref|/|p_ref|`` of geomint and of REBOUND's
``reb_integrator_whfast_kepler_solver`` (called directly through ctypes: with one test particle
WHFast's kicks vanish, and a WHFast step of ``dt`` is two of these drifts of ``dt/2`` — checked
at the start, bit for bit). The bound: ``error ≤ 1e-13 + 10 κ ε`` with ``ε = 2.2e-16``, for
``q`` and ``p`` each (a case is outside if either is). The tables: per class and per band of
``τ`` (tiny ``< 10⁻⁴``, moderate, huge ``> 10²``), the count, ``κ`` (median, max), and for
each solver the median and largest error, the largest ``error / bound`` and the count outside,
and the cases where geomint's error is more than twice REBOUND's (and above ``1e-16``), with the
largest ratio of the two (REBOUND's error taken as at least ``1e-16``).

The reference costs ~5 ms a case per process (mpmath with gmpy2, on a shared 2-core machine):
10⁶ cases take about 41 min on 2 processes (727,000 in 30 min, docs/performance.md).
``--budget-minutes`` stops after the chunks finished by then (the report says how many cases it
covers). Known limit: three random sign vectors can underestimate ``κ`` by two orders of magnitude
(the 13 of 727,000 cases outside the bound were all inside with 200 vectors).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import math
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import kepler_reference as kr  # noqa: E402

CHUNK = 1000
BANDS = [("tiny τ < 1e-4", 0.0, 1e-4), ("moderate", 1e-4, 1e2), ("huge τ > 1e2", 1e2, math.inf)]


def chunk(args):
    """The cases of chunk ``index`` and their references (a worker's job)."""
    index, count, seed = args
    cases = kr.draw(count, seed * 1_000_003 + index)
    out = []
    for k, (cls, tau, mu, q, p, t) in enumerate(cases):
        qr, pr, kq, kp = kr.reference(mu, q, p, t, seed=index * CHUNK + k)
        out.append((cls, tau, mu, q, p, t, qr, pr, kq, kp))
    return out


def rebound_solver():
    """REBOUND's Kepler solver ``reb_integrator_whfast_kepler_solver(p, mu, dt, r)``, or None."""
    try:
        import rebound
    except ImportError:
        return None, None
    f = rebound.clibrebound.reb_integrator_whfast_kepler_solver
    f.restype = None  # (its return value is not meaningful in every version)
    f.argtypes = [ctypes.POINTER(rebound.Particle), ctypes.c_double, ctypes.c_double, ctypes.c_void_p]

    def drift(mu, q, p, t):
        part = rebound.Particle(x=q[0], y=q[1], z=q[2], vx=p[0], vy=p[1], vz=p[2])
        f(ctypes.byref(part), mu, t, None)
        return (part.x, part.y, part.z), (part.vx, part.vy, part.vz)

    return rebound, drift


def check_whfast(rebound, drift, cases):
    """WHFast's step of a test particle around a mass ``μ`` (``G = 1``) equals two of the
    solver's drifts of ``dt/2`` bit for bit (the kicks vanish): the number of cases that differ."""
    differ = 0
    for _, _, mu, q, p, t in cases:
        sim = rebound.Simulation()
        sim.add(m=mu)
        sim.add(m=0.0, x=q[0], y=q[1], z=q[2], vx=p[0], vy=p[1], vz=p[2])
        sim.integrator = "whfast"
        sim.dt = t
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim.steps(1)
        a = sim.particles[1]
        q1, p1 = drift(mu, q, p, 0.5 * t)
        q2, p2 = drift(mu, q1, p1, 0.5 * t)
        differ += tuple(a.xyz) + tuple(a.vxyz) != tuple(q2) + tuple(p2)
    return differ


def summarize(rows, label):
    """One table row: count, κ, and per solver median/max error, max error/bound, outside."""
    n = len(rows)
    if n == 0:
        return None
    kappa = [max(r["kq"], r["kp"]) for r in rows]
    row = {"label": label, "n": n, "kappa_median": statistics.median(kappa), "kappa_max": max(kappa)}
    for solver in ("geomint", "rebound"):
        if rows[0].get(solver) is None:
            continue
        errs, ratios, outside = [], [], 0
        for r in rows:
            eq, ep = r[solver]
            e = max(eq, ep)
            ratio = max(eq / kr.bound(r["kq"]), ep / kr.bound(r["kp"]))
            if not math.isfinite(e):
                e = ratio = math.inf
            errs.append(e)
            ratios.append(ratio)
            outside += not ratio <= 1.0
        row[solver] = {
            "median": statistics.median(errs),
            "max": max(errs),
            "max_ratio": max(ratios),
            "outside": outside,
        }
    if "rebound" in row:
        # case by case: geomint's error more than twice REBOUND's (and above 1e-16)
        row["geomint_worse"] = sum(
            max(r["geomint"]) > max(2.0 * max(r["rebound"]), 1e-16) or not math.isfinite(max(r["geomint"]))
            for r in rows
        )
        row["geomint_factor"] = max(max(r["geomint"]) / max(max(r["rebound"]), 1e-16) for r in rows)
    return row


def table(rows, first="class"):
    head = f"| {first} | cases | κ median / max | geomint median / max error | max error/bound | outside |"
    rebound = any("rebound" in r for r in rows)
    if rebound:
        head += " REBOUND median / max error | max error/bound | outside | geomint > 2× REBOUND (largest factor) |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        g = r["geomint"]
        line = (
            f"| {r['label']} | {r['n']} | {r['kappa_median']:.2g} / {r['kappa_max']:.2g} "
            f"| {g['median']:.1e} / {g['max']:.1e} | {g['max_ratio']:.2g} | {g['outside']} |"
        )
        if rebound:
            b = r["rebound"]
            line += f" {b['median']:.1e} / {b['max']:.1e} | {b['max_ratio']:.2g} | {b['outside']} | {r['geomint_worse']} ({r['geomint_factor']:.2g}×) |"
        lines.append(line)
    return "\n".join(lines)


def references(args, processes):
    """The cases and their references, chunk by chunk on ``processes`` workers, until done or
    the time budget is spent: ``(results, seconds, stopped)``."""
    jobs = [(i, min(CHUNK, args.n - i * CHUNK), args.seed) for i in range((args.n + CHUNK - 1) // CHUNK)]
    start = time.time()
    results, stopped = [], False
    with multiprocessing.Pool(processes) as pool:
        for part in pool.imap(chunk, jobs):
            results.extend(part)
            elapsed = time.time() - start
            if len(results) % (20 * CHUNK) == 0:
                print(f"  {len(results)} cases, {elapsed:.0f} s", file=sys.stderr, flush=True)
            if args.budget_minutes is not None and elapsed > 60 * args.budget_minutes:
                stopped = True
                pool.terminate()
                break
    return results, time.time() - start, stopped


def save(path, results, seconds, stopped):
    cols = list(zip(*results))
    np.savez(
        path,
        cls=np.array(cols[0]),
        tau=np.array(cols[1]),
        mu=np.array(cols[2]),
        q=np.array(cols[3]),
        p=np.array(cols[4]),
        t=np.array(cols[5]),
        qref=np.array(cols[6]),
        pref=np.array(cols[7]),
        kq=np.array(cols[8]),
        kp=np.array(cols[9]),
        seconds=seconds,
        stopped=stopped,
    )


def load(path):
    d = np.load(path)
    results = [
        (int(c), float(tau), float(m), list(q), list(p), float(t), [tuple(x) for x in qr], [tuple(x) for x in pr], kq, kp)
        for c, tau, m, q, p, t, qr, pr, kq, kp in zip(
            d["cls"], d["tau"], d["mu"], d["q"], d["p"], d["t"], d["qref"], d["pref"], d["kq"], d["kp"]
        )
    ]
    return results, float(d["seconds"]), bool(d["stopped"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="cases (default 10^6)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--processes", type=int, default=2, help="worker processes (at most 2)")
    ap.add_argument("--budget-minutes", type=float, default=None, help="stop after the chunks done by then")
    ap.add_argument("--json", type=Path, default=None, help="write the tables here")
    ap.add_argument("--no-rebound", action="store_true")
    ap.add_argument("--save-reference", type=Path, default=None, help="save the cases and references (.npz)")
    ap.add_argument("--load-reference", type=Path, default=None, help="compare on saved cases and references")
    args = ap.parse_args()

    processes = max(1, min(2, args.processes))
    if args.load_reference:
        results, ref_seconds, stopped = load(args.load_reference)
    else:
        results, ref_seconds, stopped = references(args, processes)
        if args.save_reference:
            save(args.save_reference, results, ref_seconds, stopped)
    n = len(results)
    import geomint  # (after the references: they can be computed before the package is built)

    mu = np.array([r[2] for r in results])
    q0 = np.array([r[3] for r in results])
    p0 = np.array([r[4] for r in results])
    t = np.array([r[5] for r in results])
    t0 = time.time()
    q1, p1 = np.empty_like(q0), np.empty_like(p0)
    for i in range(n):  # (μ differs from case to case: one call each)
        try:
            q1[i], p1[i] = geomint.kepler_drift(mu[i], q0[i], p0[i], t[i])
        except Exception as e:
            print(f"geomint fails on case {i}: {e}", file=sys.stderr)
            q1[i] = p1[i] = np.nan
    geomint_seconds = time.time() - t0

    rebound, drift = (None, None) if args.no_rebound else rebound_solver()
    rows = []
    for i, (cls, tau, m, q, p, tt, qr, pr, kq, kp) in enumerate(results):
        row = {"cls": cls, "tau": tau, "kq": kq, "kp": kp}
        row["geomint"] = (kr.relative_error(q1[i], qr), kr.relative_error(p1[i], pr))
        if drift is not None:
            qb, pb = drift(m, q, p, tt)
            row["rebound"] = (kr.relative_error(qb, qr), kr.relative_error(pb, pr))
        rows.append(row)

    by_class = [summarize([r for r in rows if r["cls"] == c], name) for c, name in enumerate(kr.CLASSES)]
    by_band = [summarize([r for r in rows if lo <= r["tau"] < hi], name) for name, lo, hi in BANDS]
    by_class = [r for r in by_class if r]
    by_band = [r for r in by_band if r]
    whfast = None
    if rebound is not None:
        whfast = check_whfast(rebound, drift, kr.draw(100, args.seed + 7))
    print(
        f"{n} cases{' (stopped by the time budget)' if stopped else ''}; reference {ref_seconds:.0f} s "
        f"({processes} worker processes), geomint {geomint_seconds:.2f} s"
    )
    print(f"bound: error <= {kr.FLOOR:g} + {kr.C_KAPPA:g} κ ε, ε = {kr.EPS:.3g} (q and p each)")
    if whfast is not None:
        print(f"REBOUND {rebound.__version__}: WHFast's step == two solver drifts of dt/2 in {100 - whfast}/100 cases")
    print()
    print(table(by_class))
    print()
    print(table(by_band, "time τ = t/T"))
    if args.json:
        args.json.write_text(
            json.dumps({"cases": n, "stopped": stopped, "by_class": by_class, "by_band": by_band}, indent=1)
        )


if __name__ == "__main__":
    main()
