"""geomint's Wisdom–Holman family against REBOUND's WHFast and SABA on the outer solar system.

Run by hand (not in CI): ``pip install rebound`` into the venv, then

    python python/bench/rebound_compare.py [--years 100000] [--h 10] [--every 1000] [--methods whfast,saba4] [--no-safe]

(``OPENBLAS_NUM_THREADS=1``: numpy's OpenBLAS threads otherwise spin on the cores the timed loops
use; measured 19% of the samples of a profile of a geomint run.)

Both integrate the same data — the Sun and Jupiter..Pluto of Hairer, Lubich & Wanner,
*Geometric Numerical Integration*, §I.2.4 (AU, days, G = 2.95912208286e-4), the catalogue's
``outer-solar-system`` — with the same step and print, per method, the largest relative energy
error over the samples and the wall time per step (sampling excluded on both sides):

* geomint ``whfast`` (Jacobi coordinates, corrector of order 17 applied at output only: the run
  advances the mapping variable ``y = φ^K_{−h/2}(C⁻¹(x))`` by one drift and one kick per step and
  applies ``C ∘ φ^K_{h/2}`` to a copy at each sample, ``integrators::splitting::ProcessedWisdomHolman``)
  against REBOUND ``whfast`` with ``corrector = 17`` and ``safe_mode = 0`` (the same work: REBOUND
  merges the half drifts and synchronizes a copy when the energy is read) and, for the record,
  ``safe_mode = 1`` (it synchronizes, i.e. applies the corrector, every step);
* geomint ``wisdom-holman`` / ``wisdom-holman-dh`` against REBOUND ``whfast`` without corrector
  in Jacobi / democratic heliocentric coordinates;
* geomint ``saba4`` / ``sabac4`` against REBOUND ``saba`` of type ``4`` / ``CM_4`` (SABAC4 with
  the corrector kicks of Laskar & Robutel).

geomint runs through its Python package when that has the planetary methods, else through the
CLI (``$GEOMINT_CLI``, else ``target/release/geomint``: ``cargo build --release --bin geomint``),
whose ``summary.json`` gives the same numbers (``wall_seconds`` excludes the sampling).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

G = 2.95912208286e-4
MASSES = [1.00000597682, 0.000954786104043, 0.000285583733151, 0.0000437273164546, 0.0000517759138449, 1.0 / 1.3e8]
POSITIONS = [
    [0.0, 0.0, 0.0],
    [-3.5023653, -3.8169847, -1.5507963],
    [9.0755314, -3.0458353, -1.6483708],
    [8.3101420, -16.2901086, -7.2521278],
    [11.4707666, -25.7294829, -10.8169456],
    [-15.5387357, -25.2225594, -3.1902382],
]
VELOCITIES = [
    [0.0, 0.0, 0.0],
    [0.00565429, -0.00412490, -0.00190589],
    [0.00168318, 0.00483525, 0.00192462],
    [0.00354178, 0.00137102, 0.00055029],
    [0.00288930, 0.00114527, 0.00039677],
    [0.00276725, -0.00170702, -0.00136504],
]
REPO = Path(__file__).resolve().parents[2]


def rebound_run(setup: dict, h: float, steps: int, every: int) -> tuple[float, float]:
    """(largest relative energy error, seconds per step) of REBOUND with `setup`."""
    import rebound

    sim = rebound.Simulation()
    sim.G = G
    for m, x, v in zip(MASSES, POSITIONS, VELOCITIES):
        sim.add(m=m, x=x[0], y=x[1], z=x[2], vx=v[0], vy=v[1], vz=v[2])
    sim.dt = h
    sim.integrator = setup["integrator"]
    # REBOUND 5 sets the integrator's fields on sim.integrator (4.x: sim.ri_whfast, sim.ri_saba)
    config = sim.integrator if hasattr(sim.integrator, "safe_mode") else getattr(sim, "ri_" + setup["integrator"])
    for key, value in setup.items():
        if key != "integrator":
            setattr(config, key, value)
    e0 = sim.energy()
    worst, seconds = 0.0, 0.0
    for k in range(every, steps + 1, every):
        start = time.perf_counter()
        sim.steps(every)
        seconds += time.perf_counter() - start
        worst = max(worst, abs((sim.energy() - e0) / e0))
    return worst, seconds / steps


def geomint_run(method: str, h: float, steps: int, every: int) -> tuple[float, float]:
    """(largest relative energy error, seconds per step) of geomint's `method`."""
    try:
        import geomint

        if method in geomint.methods("outer-solar-system"):
            r = geomint.run("outer-solar-system", method, h, steps, every=every)
            return r.max_error("energy"), r.wall_seconds / steps
    except ImportError:
        pass
    cli = Path(os.environ.get("GEOMINT_CLI", REPO / "target" / "release" / "geomint"))
    with tempfile.TemporaryDirectory() as out:
        args = [str(cli), "run", "outer-solar-system", "-m", method, "--h", str(h), "--steps", str(steps)]
        args += ["--every", str(every), "--out", out, "--force", "--quiet"]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        summary = json.loads((Path(out) / "summary.json").read_text())
    energy = next(q for q in summary["quantities"] if q["name"] == "energy")
    return energy["max_error"], summary["wall_seconds"] / steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--years", type=float, default=1e5)
    ap.add_argument("--h", type=float, default=10.0, help="step in days")
    ap.add_argument("--every", type=int, default=1000, help="steps between energy samples")
    ap.add_argument("--methods", default="", help="comma-separated geomint methods (default: all)")
    ap.add_argument("--no-safe", action="store_true", help="skip REBOUND WHFast with safe_mode = 1")
    a = ap.parse_args()
    steps = int(a.years * 365.25 / a.h) // a.every * a.every
    pairs = [
        ("whfast", {"integrator": "whfast", "corrector": 17, "safe_mode": 0}),
        ("wisdom-holman", {"integrator": "whfast", "corrector": 0, "safe_mode": 1}),
        ("wisdom-holman-dh", {"integrator": "whfast", "coordinates": "democraticheliocentric", "safe_mode": 1}),
        ("saba4", {"integrator": "saba", "type": "4", "safe_mode": 1}),
        # SABAC4 with the corrector kicks of {{A, B}, B} (REBOUND's "modified kick" corrector)
        ("sabac4", {"integrator": "saba", "type": "CM_4", "safe_mode": 1}),
    ]
    print(f"outer solar system, h = {a.h} days, {steps} steps ({a.years:g} years), energy sampled every {a.every}")
    print(f"{'method':<18} {'geomint err':>12} {'ns/step':>9}   {'REBOUND err':>12} {'ns/step':>9}  REBOUND setup")
    chosen = set(a.methods.split(",")) if a.methods else None
    for method, setup in pairs:
        if chosen is not None and method not in chosen:
            continue
        ge, gt = geomint_run(method, a.h, steps, a.every)
        re, rt = rebound_run(setup, a.h, steps, a.every)
        print(f"{method:<18} {ge:12.3e} {gt * 1e9:9.1f}   {re:12.3e} {rt * 1e9:9.1f}  {setup}")
    if a.no_safe:
        return
    re, rt = rebound_run({"integrator": "whfast", "corrector": 17, "safe_mode": 1}, a.h, steps, a.every)
    print(f"{'(whfast safe)':<18} {'':>12} {'':>9}   {re:12.3e} {rt * 1e9:9.1f}  corrector 17, safe_mode = 1")


if __name__ == "__main__":
    main()
