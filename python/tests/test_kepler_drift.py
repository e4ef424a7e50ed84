"""``geomint.kepler_drift`` against the 51-digit mpmath reference of ``kepler_reference.py`` on
random orbits of every class (elliptic to e = 0.999, near-parabolic on both sides, hyperbolic to
e = 10, times from 1e-12 to 1e6 periods), within the bound ``1e-13 + 10 κ ε``; its shapes, and
its errors on bad input. (The full study, with REBOUND's solver: python/bench/kepler_drift_accuracy.py.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

import geomint
import kepler_reference as kr

PER_CLASS = 300


def worst(cls: int, n: int, seed: int):
    """The cases of class ``cls`` and, for geomint, the largest ``error / bound`` and its case."""
    cases = kr.draw(n, seed, classes=[cls])
    worst_ratio, worst_case, taus = 0.0, None, []
    for k, (_, tau, mu, q, p, t) in enumerate(cases):
        qr, pr, kq, kp = kr.reference(mu, q, p, t, seed=k)
        q1, p1 = geomint.kepler_drift(mu, q, p, t)
        ratio = max(kr.relative_error(q1, qr) / kr.bound(kq), kr.relative_error(p1, pr) / kr.bound(kp))
        if not ratio <= worst_ratio:
            worst_ratio, worst_case = ratio, (mu, q, p, t, kq, kp)
        taus.append(tau)
    return worst_ratio, worst_case, taus


@pytest.mark.parametrize("cls", range(len(kr.CLASSES)), ids=kr.CLASSES)
def test_the_drift_agrees_with_the_reference_within_the_bound(cls):
    ratio, case, taus = worst(cls, PER_CLASS, seed=34 + cls)
    # the sample spans tiny and huge times
    assert min(taus) < 1e-9 and max(taus) > 1e3
    assert ratio <= 1.0, f"{kr.CLASSES[cls]}: error {ratio:.3g} × the bound at (mu, q, p, t, κq, κp) = {case}"


def test_eccentric_orbits_keep_their_phase_over_many_periods():
    """On ellipses with 0.99 ≤ e ≤ 0.999 over more than 100 periods the error is a phase error,
    set by the rounding of ``β = 2μ/r₀ − |p₀|²``: its two terms cancel by up to ``(3 + e)/(1 − e)``
    (2000 at e = 0.999). Formed in double-double, ``β`` is correctly rounded, and the median error
    is ``≈ 6e-4 κε`` (the plain difference, as REBOUND's solver forms it, gives ``≈ 0.4 κε`` on
    these cases: python/bench/kepler_drift_accuracy.py)."""
    ratios = []
    for k, (_, tau, mu, q, p, t) in enumerate(kr.draw(400, 71, classes=[1])):
        if tau < 1e2:
            continue
        qr, _, kq, _ = kr.reference(mu, q, p, t, seed=k)
        q1, _ = geomint.kepler_drift(mu, q, p, t)
        ratios.append(kr.relative_error(q1, qr) / (kq * kr.EPS))
    assert len(ratios) >= 50
    assert np.median(ratios) <= 0.05, f"median error {np.median(ratios):.3g} κε over {len(ratios)} orbits"


def test_the_reference_is_a_kepler_flow():
    """The reference conserves energy and angular momentum to ~30 digits, turns the circular
    orbit by a quarter in a quarter period, and its condition number is that of a rotation."""
    from mpmath import mp, mpf

    for _, _, mu, q, p, t in kr.draw(40, 3):
        with mp.workprec(kr.PRECISION_BITS):
            q0, p0 = [mpf(x) for x in q], [mpf(x) for x in p]
            q1, p1, _ = kr._flow(mpf(mu), q0, p0, mpf(t))

            def norm(v):
                return mp.sqrt(sum(x * x for x in v))

            def energy(a, b):
                return sum(x * x for x in b) / 2 - mu / norm(a)

            def momentum(a, b):
                return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]

            # relative to the size of the terms (|p|²/2 + μ/|q|, |q||p|) at either end
            scale = max(sum(x * x for x in b) / 2 + mu / norm(a) for a, b in [(q0, p0), (q1, p1)])
            assert abs(energy(q1, p1) - energy(q0, p0)) <= 1e-30 * scale
            scale = max(norm(q0) * norm(p0), norm(q1) * norm(p1))
            l0, l1 = momentum(q0, p0), momentum(q1, p1)
            assert max(abs(a - b) for a, b in zip(l0, l1)) <= 1e-30 * scale
    qr, pr, kq, kp = kr.reference(1.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], math.pi / 2)
    assert kr.relative_error([0.0, 1.0, 0.0], qr) < 1e-16 and kr.relative_error([-1.0, 0.0, 0.0], pr) < 1e-16
    assert 1.0 <= kq < 30 and 1.0 <= kp < 30


def test_shapes_and_times():
    cases = kr.draw(12, 5)
    mu = 2.5
    q = np.array([c[3] for c in cases])
    p = np.array([c[4] for c in cases])
    t = np.array([c[5] for c in cases]) / np.array([c[2] for c in cases])  # any times
    q1, p1 = geomint.kepler_drift(mu, q, p, t)
    assert q1.shape == q.shape == p1.shape
    for i in range(len(q)):
        qi, pi = geomint.kepler_drift(mu, q[i], p[i], t[i])
        assert qi.shape == (3,) and np.array_equal(qi, q1[i]) and np.array_equal(pi, p1[i])
    # one time for every row; zero time is the identity, bit for bit
    qs, _ = geomint.kepler_drift(mu, q, p, 0.7)
    assert np.array_equal(qs[3], geomint.kepler_drift(mu, q[3], p[3], 0.7)[0])
    q0, p0 = geomint.kepler_drift(mu, q, p, 0.0)
    assert np.array_equal(q0, q) and np.array_equal(p0, p)
    # backward undoes forward (orbits that keep away from the centre, times of a few periods)
    rng = np.random.default_rng(7)
    qr = rng.normal(size=(20, 3))
    pr = np.cross(qr, rng.normal(size=(20, 3))) + 0.3 * qr
    pr *= rng.uniform(0.5, 1.2, size=(20, 1)) / np.linalg.norm(pr, axis=1, keepdims=True)
    qr *= rng.uniform(0.5, 1.5, size=(20, 1)) / np.linalg.norm(qr, axis=1, keepdims=True)
    times = rng.uniform(-20.0, 20.0, size=20)
    qf, pf = geomint.kepler_drift(1.0, qr, pr, times)
    assert np.max(np.abs(qf - qr)) > 0.1
    qb, pb = geomint.kepler_drift(1.0, qf, pf, -times)
    assert np.max(np.abs(qb - qr)) < 1e-11 and np.max(np.abs(pb - pr)) < 1e-11
    q2, p2 = geomint.kepler_drift(1.0, [[1.0, 0.0]], [[0.0, 1.0]], [math.pi])
    assert q2.shape == (1, 2) and np.allclose(q2, [[-1.0, 0.0]], rtol=0, atol=kr.FLOOR)
    assert np.allclose(p2, [[0.0, -1.0]], rtol=0, atol=kr.FLOOR)


@pytest.mark.parametrize(
    "mu, q, p, t, words",
    [
        (0.0, [1.0, 0, 0], [0, 1.0, 0], 1.0, "mu"),
        (-1.0, [1.0, 0, 0], [0, 1.0, 0], 1.0, "mu"),
        (math.nan, [1.0, 0, 0], [0, 1.0, 0], 1.0, "mu"),
        (math.inf, [1.0, 0, 0], [0, 1.0, 0], 1.0, "mu"),
        (1.0, [1.0, 0, 0, 0], [0, 1.0, 0, 0], 1.0, "q must have shape"),
        (1.0, [[[1.0, 0, 0]]], [[[0, 1.0, 0]]], 1.0, "q must have shape"),
        (1.0, 1.0, 1.0, 1.0, "q must have shape"),
        (1.0, [[1.0, 0, 0]], [0, 1.0, 0], 1.0, "p must have the shape of q"),
        (1.0, [[1.0, 0, 0]], [[0, 1.0]], 1.0, "p must have the shape of q"),
        (1.0, [[1.0, 0, 0]] * 2, [[0, 1.0, 0]] * 2, [1.0, 2.0, 3.0], "t must have shape"),
        (1.0, [[1.0, 0, 0]] * 2, [[0, 1.0, 0]] * 2, [[1.0, 2.0]], "t must have shape"),
        (1.0, [1.0, 0, 0], [0, 1.0, 0], [1.0], "t must have shape"),
        (1.0, [[1.0, 0, 0], [1.0, math.nan, 0]], [[0, 1.0, 0]] * 2, 1.0, "row 1"),
        (1.0, [[1.0, 0, 0]] * 2, [[0, 1.0, 0], [0, math.inf, 0]], 1.0, "row 1"),
        (1.0, [[1.0, 0, 0]] * 2, [[0, 1.0, 0]] * 2, [1.0, math.nan], "row 1"),
        (1.0, [[1.0, 0, 0], [0.0, 0, 0]], [[0, 1.0, 0]] * 2, 1.0, "row 1"),
        (1.0, [1e300, 0, 0], [0, 1e300, 0], 1e300, "row 0"),
    ],
)
def test_bad_input_is_a_value_error(mu, q, p, t, words):
    with pytest.raises(ValueError, match=words):
        geomint.kepler_drift(mu, q, p, t)


def test_a_non_number_mu_is_a_type_error():
    with pytest.raises(TypeError, match="mu"):
        geomint.kepler_drift("1", [1.0, 0, 0], [0, 1.0, 0], 1.0)


def test_hostile_arguments_raise_value_or_type_errors():
    """Every argument replaced in turn by a hostile value: a ``ValueError`` or ``TypeError`` or a
    result, never a panic (pyo3's ``PanicException`` is not an ``Exception``)."""
    hostile = [
        None, True, 0, -1, 2**64, 5e-324, 1e300, math.nan, math.inf, -math.inf, complex(1, 1), "", "x", b"x",
        [], [[]], [[1.0, 2.0], [3.0]], [[[1.0]]], np.zeros((0, 3)), np.zeros((2, 3, 4)), np.full(3, np.nan),
        np.ones(3, dtype=np.int8), np.array(["a"]), np.zeros(1_000_000), np.zeros((1_000_000, 3)), object(),
    ]
    base = [1.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], 0.5]
    outcomes = {"ok": 0, "error": 0}
    for slot in range(4):
        for value in hostile:
            args = list(base)
            args[slot] = value
            try:
                q1, p1 = geomint.kepler_drift(*args)
                assert np.all(np.isfinite(q1)) and np.all(np.isfinite(p1))
                outcomes["ok"] += 1
            except (ValueError, TypeError):
                outcomes["error"] += 1
    assert outcomes["ok"] >= 4 and outcomes["error"] >= 60, outcomes
