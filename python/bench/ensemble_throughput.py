#!/usr/bin/env python3
"""Ensemble throughput: Python against Rust, and Dask on 1 and 2 local workers.

    python python/bench/ensemble_throughput.py [--members 10000] [--steps 1000] [--rounds 3]
                                               [--repeat 5] [--dask-steps 5000] [--no-dask]

1. The same Kepler ensemble (member i of M: eccentricity e_i = 0.1 + 0.8 i / M, from
   perihelion; Störmer–Verlet, h = 0.01) is timed
   * from Rust: ``engine/examples/ensemble_throughput.rs`` (built here with cargo, release)
     calls the engine function that ``geomint.ensemble`` calls, in-process, no Python;
   * from Python: ``geomint.ensemble`` on a numpy array, including the conversions in and out.
   Both use all cores (rayon's global pool), then both one thread (less sensitive to a
   core busy with other work on a shared machine). Rounds alternate Rust and Python; each round
   makes one untimed call, then takes the median of ``--repeat`` calls; the figure is the
   median over rounds. The checksum
   (the plain sum of all final coordinates) must agree exactly: the same numbers are computed.
   The target is Python within 1.2× of Rust.
2. ``geomint.dask.ensemble`` on a ``LocalCluster`` of 1 and of 2 worker processes (one thread
   each, one thread per chunk), ``--dask-steps`` steps, after a warm-up call: the speed-up of 2
   workers over 1, and the local single-threaded ``geomint.ensemble`` for reference.

This is a benchmark, not a test: it prints its figures and exits 1 only when the Python/Rust
ratio exceeds 1.2 or the checksums differ.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np

import geomint

CRATE = Path(__file__).resolve().parents[1]


def kepler_states(m: int) -> np.ndarray:
    # the same formula, in the same order of operations, as the Rust example
    rows = []
    for i in range(m):
        e = 0.1 + 0.8 * i / m
        rows.append([1.0 - e, 0.0, 0.0, math.sqrt((1.0 + e) / (1.0 - e))])
    return np.array(rows)


def rust_binary() -> Path:
    cmd = ["cargo", "build", "--release", "--quiet", "-p", "geomint-engine", "--example", "ensemble_throughput"]
    subprocess.run(cmd, cwd=CRATE, check=True)
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=CRATE, check=True, capture_output=True
    )
    target = Path(json.loads(meta.stdout)["target_directory"])
    return target / "release" / "examples" / "ensemble_throughput"


def time_rust(binary: Path, members: int, steps: int, repeat: int, threads: Optional[int] = None) -> dict:
    cmd = [str(binary), "--members", str(members), "--steps", str(steps), "--repeat", str(repeat)]
    out = subprocess.run(
        cmd + ([] if threads is None else ["--threads", str(threads)]),
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def time_python(states: np.ndarray, steps: int, repeat: int, **kw) -> tuple:
    # one untimed call first (thread pool, page faults), as the Rust example does
    geomint.ensemble("kepler", "stormer-verlet", 0.01, steps, states, **kw)
    seconds, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = geomint.ensemble("kepler", "stormer-verlet", 0.01, steps, states, **kw)
        seconds.append(time.perf_counter() - t0)
    return statistics.median(seconds), result


def dask_part(states: np.ndarray, steps: int, repeat: int) -> None:
    from distributed import Client, LocalCluster

    import geomint.dask

    local1, ref = time_python(states, steps, repeat, threads=1)
    print(f"local geomint.ensemble, 1 thread:        {local1:8.3f} s  ({states.shape[0]} members × {steps} steps)")
    times = {}
    for n in (1, 2):
        with LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
        ) as cluster, Client(cluster) as client:
            geomint.dask.ensemble(client, "kepler", "stormer-verlet", 0.01, 10, states[:64])  # warm-up
            seconds = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                r = geomint.dask.ensemble(client, "kepler", "stormer-verlet", 0.01, steps, states)
                seconds.append(time.perf_counter() - t0)
            assert r.states.tobytes() == ref.states.tobytes(), "the Dask ensemble differs from the local one"
            times[n] = statistics.median(seconds)
            print(f"geomint.dask.ensemble, {n} worker(s):      {times[n]:8.3f} s  (equal to the local ensemble, bit for bit)")
    print(f"Dask speed-up on 2 local workers: {times[1] / times[2]:.2f}x (over 1 worker; cores: {os.cpu_count()})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--members", type=int, default=10_000)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dask-steps", type=int, default=5000)
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()

    states = kepler_states(args.members)
    binary = rust_binary()
    steps_total = args.members * args.steps
    print(f"Kepler ensemble, {args.members} members × {args.steps} steps, Störmer–Verlet ({os.cpu_count()} cores):")
    ok = True
    for threads in (None, 1):
        rust, python = [], []
        for _ in range(args.rounds):
            r = time_rust(binary, args.members, args.steps, args.repeat, threads)
            rust.append(r["median"])
            kw = {} if threads is None else {"threads": threads}
            p, result = time_python(states, args.steps, args.repeat, **kw)
            python.append(p)
        rust_s, python_s = statistics.median(rust), statistics.median(python)
        checksum = sum(result.states.ravel().tolist())
        ratio = python_s / rust_s
        same = checksum == r["checksum"]
        label = "all cores" if threads is None else f"{threads} thread"
        print(f" {label}:")
        print(f"  Rust   (engine::ensemble, in-process): {rust_s:8.4f} s  {steps_total / rust_s / 1e6:7.1f} M steps/s")
        print(f"  Python (geomint.ensemble):             {python_s:8.4f} s  {steps_total / python_s / 1e6:7.1f} M steps/s")
        print(f"  Python / Rust = {ratio:.3f} (target ≤ 1.2)")
        print(f"  checksums: Python {checksum!r}, Rust {r['checksum']!r} ({'equal' if same else 'DIFFERENT'})")
        ok = ok and ratio <= 1.2 and same
    if not args.no_dask:
        print()
        dask_part(states, args.dask_steps, max(1, args.repeat // 2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
