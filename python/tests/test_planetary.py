"""The planetary methods of the registry by name (Wisdom–Holman, WHFast, SABA): offered for
the N-body problems only, and on the outer solar system at h = 10 days their energy errors are
ordered as the theory says (whfast ≪ wisdom-holman ≪ Störmer–Verlet)."""

from __future__ import annotations

import geomint

PLANETARY = {"wisdom-holman", "wisdom-holman-dh", "whfast", "saba4", "sabac4"}


def test_planetary_methods_are_offered_to_nbody_problems_only():
    assert PLANETARY <= set(geomint.methods("outer-solar-system"))
    assert not PLANETARY & set(geomint.methods("kepler"))
    assert geomint.methods("outer-solar-system")["whfast"].startswith("order 2, symplectic")


def test_whfast_runs_and_beats_the_plain_map_and_stormer_verlet():
    steps = 3652  # 100 years
    err = {
        m: geomint.run("outer-solar-system", m, 10.0, steps, every=100).max_error("energy")
        for m in ("whfast", "wisdom-holman", "stormer-verlet")
    }
    assert err["whfast"] * 10 < err["wisdom-holman"] < err["stormer-verlet"] / 10, err
