"""A high-precision reference of the Kepler flow, and the random cases it is compared on.

Imported by ``test_kepler_drift.py`` and by ``python/bench/kepler_drift_accuracy.py``. Written
from the textbook (Danby, *Fundamentals of Celestial Mechanics*, 2nd ed., 1988, §6.7–6.9;
Battin, *An Introduction to the Mathematics and Methods of Astrodynamics*, revised ed., 1999,
§4.5), not from geomint's Rust code; only the arithmetic (mpmath, 170 bits ≈ 51 digits) and the
way of solving Kepler's equation matter for the comparison.

The flow of ``H = |p|²/2 − μ/|q|`` for a time ``t``: with ``r_0 = |q_0|``, ``η_0 = q_0·p_0``,
``β = 2μ/r_0 − |p_0|²`` and the Stumpff functions ``c_k(z) = Σ_j (−z)^j/(2j + k)!``, the
functions ``G_k(s) = s^k c_k(β s²)`` of the universal anomaly ``s`` (``ds/dt = 1/r``) give

    Kepler's equation   F(s) = r_0 G_1 + η_0 G_2 + μ G_3 = t,    F'(s) = r = r_0 G_0 + η_0 G_1 + μ G_2,
    q = f q_0 + g p_0,  p = ḟ q_0 + ġ p_0,
    f = 1 − μ G_2/r_0,  g = r_0 G_1 + η_0 G_2,  ḟ = −μ G_1/(r r_0),  ġ = 1 − μ G_2/r.

On an ellipse (``β > 0``) ``F(s + 2π/√β) = F(s) + P`` with the period ``P = 2πμ/β^{3/2}``, and
``G_1``, ``G_2``, ``r`` are periodic: the equation is solved for ``t − kP``, ``k`` the nearest
integer to ``t/P`` (in 51 digits: 10⁶ periods leave 45). The root is found in double precision
first (Newton's method kept inside a bracket by bisection, from the classical anomalies —
``E − e sin E = M`` on an ellipse, ``e sinh H − H = M`` on a hyperbola, Danby §6.6 — or from
``t/r_0``), then polished by Newton's method in mpmath until the step is below 2⁻⁹³ of ``s`` (the error after it is
below 2⁻¹⁷⁰ of ``s``: quadratic convergence) or ``|F|`` below its own round-off.

Conditioning (:func:`reference`): each input ``x_i`` (``μ``, ``q_0``, ``p_0``, ``t``) is
multiplied by ``1 + 10⁻²⁰ u_i`` for a few random sign vectors ``u``; ``κ`` is the largest
relative change of ``q`` (and separately of ``p``) divided by ``10⁻²⁰`` — the amplification of
componentwise relative input errors, which a backward-stable double-precision solver must be
allowed (its own inputs, ``r_0``, ``β``, the reduced time, carry such errors of a few ulps).
"""

from __future__ import annotations

import math
import random
from typing import List, Sequence, Tuple

import mpmath
from mpmath import mp, mpf

PRECISION_BITS = 170
"""mpmath's working precision (≈ 51 decimal digits)."""

PERTURBATION = mpf("1e-20")
"""The relative size of the input perturbations that measure the conditioning."""

DIRECTIONS = 3
"""Random sign vectors per case for the conditioning."""

EPS = 2.0**-52
"""Double precision's machine epsilon, 2.2e-16."""

FLOOR = 1e-13
"""The relative accuracy asked of a double-precision Kepler drift on a well-conditioned case."""

C_KAPPA = 10.0
"""The bound is ``FLOOR + C_KAPPA · κ · EPS`` (:func:`bound`): a backward error of a few ulps
per input, times the factor by which a few random sign vectors may underestimate the worst
direction."""

CLASSES = [
    "elliptic e < 0.99",
    "elliptic 0.99 <= e <= 0.999",
    "near-parabolic e < 1",
    "near-parabolic e > 1",
    "hyperbolic 1.001 <= e <= 10",
]
"""The classes of orbits :func:`draw` samples, in equal numbers."""


def bound(kappa: float) -> float:
    """The error allowed on a case of condition number ``kappa``:
    ``1e-13 + 10 · κ · 2.2e-16``."""
    return FLOOR + C_KAPPA * kappa * EPS


# -- random cases ---------------------------------------------------------------------------------


def _rotation(rng: random.Random) -> List[List[float]]:
    """A uniformly random rotation (a normalized random quaternion)."""
    w, x, y, z = (rng.gauss(0.0, 1.0) for _ in range(4))
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]


def draw(n: int, seed: int, classes: Sequence[int] = range(5)) -> List[Tuple[int, float, float, list, list, float]]:
    """``n`` random cases ``(class, τ, μ, q_0, p_0, t)``, cycling through ``classes`` (indices of
    :data:`CLASSES`): ``μ`` and the pericentre distance ``r_p`` log-uniform in ``[10⁻³, 10³]``;
    the eccentricity uniform in ``[0, 0.99)`` and ``[0.99, 0.999]`` on the two elliptic classes,
    ``1 ∓ 10^u`` with ``u`` uniform in ``[−15, −3]`` on the near-parabolic ones, ``1 + 10^u``,
    ``u`` uniform in ``[−3, log10 9]`` on the hyperbolic one; a random orientation; the true
    anomaly uniform in ``[−π, π]`` on an ellipse (``|1 − e| ≥ 10⁻³``), else in ``|ν| ≤ 0.9 ν_max``
    (``ν_max = min(π, arccos(−1/e))``); the time ``t = ±τ T`` with ``τ`` log-uniform in
    ``[10⁻¹², 10⁶]`` and ``T`` the period on an ellipse, ``2π √(|a|³/μ)`` on a hyperbola and
    ``2π √(r_p³/μ)`` on a near-parabolic orbit."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        cls = classes[i % len(classes)]
        mu = 10.0 ** rng.uniform(-3.0, 3.0)
        rp = 10.0 ** rng.uniform(-3.0, 3.0)
        if cls == 0:
            e = rng.uniform(0.0, 0.99)
        elif cls == 1:
            e = rng.uniform(0.99, 0.999)
        elif cls == 2:
            e = 1.0 - 10.0 ** rng.uniform(-15.0, -3.0)
        elif cls == 3:
            e = 1.0 + 10.0 ** rng.uniform(-15.0, -3.0)
        else:
            e = 1.0 + 10.0 ** rng.uniform(-3.0, math.log10(9.0))
        semilatus = rp * (1.0 + e)
        if cls <= 1:
            nu = rng.uniform(-math.pi, math.pi)
            scale = 2.0 * math.pi * math.sqrt((rp / (1.0 - e)) ** 3 / mu)
        else:
            nu_max = math.pi if e < 1.0 else math.acos(-1.0 / e)
            nu = rng.uniform(-0.9, 0.9) * nu_max
            if cls == 4:
                scale = 2.0 * math.pi * math.sqrt((rp / (e - 1.0)) ** 3 / mu)
            else:
                scale = 2.0 * math.pi * math.sqrt(rp**3 / mu)
        r = semilatus / (1.0 + e * math.cos(nu))
        h = math.sqrt(mu * semilatus)
        # in the orbital plane: position along (cos ν, sin ν), velocity (μ/h)(−sin ν, e + cos ν)
        x = [r * math.cos(nu), r * math.sin(nu), 0.0]
        v = [-mu / h * math.sin(nu), mu / h * (e + math.cos(nu)), 0.0]
        rot = _rotation(rng)
        q = [sum(rot[a][b] * x[b] for b in range(3)) for a in range(3)]
        p = [sum(rot[a][b] * v[b] for b in range(3)) for a in range(3)]
        tau = 10.0 ** rng.uniform(-12.0, 6.0)
        t = tau * scale * (1.0 if rng.random() < 0.5 else -1.0)
        out.append((cls, tau, mu, q, p, t))
    return out


# -- double precision: the starting value --------------------------------------------------------


def _stumpff_f(z: float) -> Tuple[float, float, float, float]:
    if abs(z) < 0.5:
        c2, c3, t2, t3 = 0.5, 1.0 / 6.0, 0.5, 1.0 / 6.0
        for j in range(1, 12):
            t2 *= -z / ((2 * j + 1) * (2 * j + 2))
            t3 *= -z / ((2 * j + 2) * (2 * j + 3))
            c2 += t2
            c3 += t3
        return 1.0 - z * c2, 1.0 - z * c3, c2, c3
    if z > 0.0:
        x = math.sqrt(z)
        return math.cos(x), math.sin(x) / x, (1.0 - math.cos(x)) / z, (x - math.sin(x)) / (z * x)
    x = math.sqrt(-z)
    return math.cosh(x), math.sinh(x) / x, (math.cosh(x) - 1.0) / -z, (math.sinh(x) - x) / (-z * x)


def _start(mu: float, r0: float, eta: float, beta: float, ecc: float, rp: float, t: float) -> float:
    """The root of Kepler's equation in double precision (safeguarded Newton)."""
    # the bracket: |ds/dt| = 1/r ≤ 1/r_p, and |ΔE| ≤ |ΔM| + 2e < 2π on an ellipse after reduction
    reach = abs(t) / rp * 1.01
    if beta > 0.0:
        reach = min(reach, 2.0 * math.pi / math.sqrt(beta))
    lo, hi = (0.0, reach) if t > 0 else (-reach, 0.0)
    s = t / r0
    try:
        root = math.sqrt(abs(beta))
        ec, es = 1.0 - r0 * beta / mu, eta * root / mu
        n = abs(beta) * root / mu
        if beta > 0.0 and ecc < 0.999999:
            e0 = math.atan2(es, ec)
            m = e0 - es + n * t
            e1 = m + 0.85 * ecc * math.copysign(1.0, math.sin(m))
            for _ in range(30):
                e1 -= (e1 - ecc * math.sin(e1) - m) / (1.0 - ecc * math.cos(e1))
            s = (e1 - e0) / root
        elif beta < 0.0 and ecc > 1.000001:
            h0 = math.asinh(es / ecc)
            m = es - h0 + n * t
            h1 = math.asinh(m / ecc)
            for _ in range(50):
                h1 -= (ecc * math.sinh(h1) - h1 - m) / (ecc * math.cosh(h1) - 1.0)
            s = (h1 - h0) / root
    except (OverflowError, ValueError, ZeroDivisionError):
        pass
    if not (lo < s < hi) or s != s:
        s = 0.5 * (lo + hi)
    return _solve(_stumpff_f, mu, r0, eta, beta, t, s, lo, hi, 2.0**-50, 2.0**-52)


def _solve(stumpff, mu, r0, eta, beta, t, s, lo, hi, stop, unit):
    """The root of Kepler's equation in ``[lo, hi]`` from ``s``: Newton's method, replaced by
    bisection when its step leaves the bracket, ``|F|`` or the step has not halved (Press et al.,
    *Numerical Recipes*, ``rtsafe``); stops when the step is below ``stop·|s|`` or ``|F|`` below
    ``unit`` times the sum of the magnitudes of its terms (its own round-off)."""
    previous, last_step = None, None
    for _ in range(800):
        try:
            c0, c1, c2, c3 = stumpff(beta * s * s)
            a, b, c = r0 * s * c1, eta * s * s * c2, mu * s**3 * c3
        except OverflowError:
            hi, lo = (s, lo) if s > 0 else (hi, s)
            s = 0.5 * (lo + hi)
            continue
        f = a + b + c - t
        fp = r0 * c0 + eta * s * c1 + mu * s * s * c2
        if not (math.isfinite(f) and math.isfinite(fp)):
            # the terms overflowed (inf − inf): |s| is far beyond the root, on the side of s
            hi, lo = (s, lo) if s > 0 else (hi, s)
            s = 0.5 * (lo + hi)
            continue
        if abs(f) <= unit * (abs(a) + abs(b) + abs(c) + abs(t)):
            return s
        if f < 0:
            lo = s
        else:
            hi = s
        step = f / fp
        if abs(step) <= stop * abs(s):
            return s - step
        nxt = s - step
        # bisection also when the step has not halved (Newton creeping down an exponential
        # from far away takes steps of about the same length)
        slow = last_step is not None and abs(step) > 0.5 * last_step
        if not (lo < nxt < hi) or (previous is not None and abs(f) > 0.5 * previous) or slow:
            nxt, last_step = 0.5 * (lo + hi), None
        else:
            last_step = abs(step)
        previous = abs(f)
        if nxt == s:
            return s
        s = nxt
    raise RuntimeError(f"Kepler's equation not solved: mu={mu}, r0={r0}, eta={eta}, beta={beta}, t={t}")


# -- mpmath: the reference -----------------------------------------------------------------------


def _stumpff(z):
    """``c_0 .. c_3`` at ``z`` in mpmath: the series for ``|z| < 1/8``, else the closed forms
    (their cancellation costs at most 2 of the 51 digits there)."""
    if abs(z) < mpf(1) / 8:
        tiny = mpf(2) ** -(PRECISION_BITS + 4)
        c2 = t2 = mpf(1) / 2
        c3 = t3 = mpf(1) / 6
        j = 0
        while abs(t2) > tiny or abs(t3) > tiny:
            j += 1
            t2 = -t2 * z / ((2 * j + 1) * (2 * j + 2))
            t3 = -t3 * z / ((2 * j + 2) * (2 * j + 3))
            c2 += t2
            c3 += t3
        return 1 - z * c2, 1 - z * c3, c2, c3
    if z > 0:
        x = mpmath.sqrt(z)
        c, s = mpmath.cos(x), mpmath.sin(x)
        return c, s / x, (1 - c) / z, (x - s) / (z * x)
    x = mpmath.sqrt(-z)
    c, s = mpmath.cosh(x), mpmath.sinh(x)
    return c, s / x, (c - 1) / -z, (s - x) / (-z * x)


def _flow(mu, q0, p0, t, s_start=None):
    """``(q, p, s)`` of the flow in mpmath (module docs), Newton from ``s_start`` (else from the
    double-precision root)."""
    r0 = mpmath.sqrt(sum(x * x for x in q0))
    eta = sum(a * b for a, b in zip(q0, p0))
    v2 = sum(x * x for x in p0)
    beta = 2 * mu / r0 - v2
    if beta > 0:
        period = 2 * mpmath.pi * mu / beta ** mpf(1.5)
        t = t - mpmath.nint(t / period) * period
    l2 = r0 * r0 * v2 - eta * eta
    ecc = mpmath.sqrt(max(mpf(0), 1 - beta * l2 / (mu * mu)))
    rp = l2 / (mu * (1 + ecc))
    if s_start is not None:
        # a perturbed problem (inputs changed by 1e-20): one Newton step from the unperturbed
        # root leaves an error of order (1e-20)² (quadratic convergence)
        c0, c1, c2, c3 = _stumpff(beta * s_start * s_start)
        f = r0 * s_start * c1 + eta * s_start**2 * c2 + mu * s_start**3 * c3 - t
        s = s_start - f / (r0 * c0 + eta * s_start * c1 + mu * s_start**2 * c2)
    else:
        s = mpf(_start(float(mu), float(r0), float(eta), float(beta), float(ecc), float(rp), float(t)))
        # the a priori bracket: |ds/dt| = 1/r ≤ 1/r_p; |ΔE| < 2π on an ellipse after the reduction
        reach = abs(t) / rp * (1 + mpf(2) ** -20)
        if beta > 0:
            reach = min(reach, 2 * mpmath.pi / mpmath.sqrt(beta))
        lo, hi = (mpf(0), reach) if t > 0 else (-reach, mpf(0))
        if not lo < s < hi:
            s = (lo + hi) / 2
        # a Newton step below 2^-93 |s| leaves an error below 2^-170 |s| (quadratic convergence)
        stop = mpf(2) ** -(PRECISION_BITS // 2 + 8)
        s = _solve(_stumpff, mu, r0, eta, beta, t, s, lo, hi, stop, mpf(2) ** -(PRECISION_BITS - 4))
    c0, c1, c2, c3 = _stumpff(beta * s * s)
    g1, g2 = s * c1, s * s * c2
    r = r0 * c0 + eta * g1 + mu * g2
    f, g = 1 - mu * g2 / r0, r0 * g1 + eta * g2
    fd, gd = -mu * g1 / (r * r0), 1 - mu * g2 / r
    return [f * a + g * b for a, b in zip(q0, p0)], [fd * a + gd * b for a, b in zip(q0, p0)], s


def _norm(v):
    return mpmath.sqrt(sum(x * x for x in v))


def reference(mu: float, q0: Sequence[float], p0: Sequence[float], t: float, seed: int = 0):
    """``(q, p, κ_q, κ_p)``: the flow at 51 digits, each component as a pair ``(hi, lo)`` of
    doubles (``hi + lo`` carries ~32 digits), and the condition numbers (module docs) of ``q``
    and ``p`` from :data:`DIRECTIONS` random sign vectors (seeded by ``seed``)."""
    with mp.workprec(PRECISION_BITS):
        args = [mpf(mu), [mpf(x) for x in q0], [mpf(x) for x in p0], mpf(t)]
        q, p, s = _flow(*args)
        nq, np_ = _norm(q), _norm(p)
        rng = random.Random(seed)
        kq = kp = 0.0
        for _ in range(DIRECTIONS):
            u = [1 if rng.random() < 0.5 else -1 for _ in range(8)]
            m = args[0] * (1 + PERTURBATION * u[0])
            qq = [x * (1 + PERTURBATION * w) for x, w in zip(args[1], u[1:4])]
            pp = [x * (1 + PERTURBATION * w) for x, w in zip(args[2], u[4:7])]
            tt = args[3] * (1 + PERTURBATION * u[7])
            q2, p2, _ = _flow(m, qq, pp, tt, s_start=s)
            kq = max(kq, float(_norm([a - b for a, b in zip(q2, q)]) / nq / PERTURBATION))
            kp = max(kp, float(_norm([a - b for a, b in zip(p2, p)]) / np_ / PERTURBATION))

        def split(v):
            hi = [float(x) for x in v]
            return [(h, float(x - h)) for h, x in zip(hi, v)]

        return split(q), split(p), kq, kp


def relative_error(x: Sequence[float], ref: Sequence[Tuple[float, float]]) -> float:
    """``|x − x_ref| / |x_ref|`` with ``x_ref = hi + lo`` (:func:`reference`): ``x − hi`` is
    exact where it matters (Sterbenz), so the error is resolved far below an ulp of ``x``."""
    num = math.sqrt(sum(((a - h) - lo) ** 2 for a, (h, lo) in zip(x, ref)))
    den = math.sqrt(sum(h * h for h, _ in ref))
    return num / den
