"""Ensembles and MEGNO maps on a Dask cluster.

:func:`ensemble` splits the members of an ensemble into chunks, runs each chunk with
:func:`geomint.ensemble` on a worker of a ``dask.distributed`` cluster and gathers the results
in order. Every member is integrated by the same Rust code as locally, so the result equals
``geomint.ensemble`` on the same states bit for bit, whatever the chunking or the cluster.
:func:`megno` does the same for :func:`geomint.megno` (the orbits of a chaos map).

The code path does not depend on where the cluster is: a ``LocalCluster``, a scheduler started
by hand (``Client("tcp://scheduler:8786")``) or ``dask_jobqueue.SLURMCluster`` all give a
``Client``. The workers need ``geomint`` installed (the same wheel).

``dask.distributed`` is imported only by the caller (who makes the client); this module needs
nothing beyond numpy.
"""

from __future__ import annotations

import math
import time
from typing import Any, Dict, Mapping, Optional

import numpy as np

import geomint
from geomint import _native

__all__ = ["ensemble", "megno"]


def _run_chunk(
    states: np.ndarray,
    first_member: int,
    system: geomint.System,
    method: Optional[str],
    h: Optional[float],
    steps: Optional[int],
    every: Optional[int],
    threads: Optional[int],
) -> Dict[str, Any]:
    """One chunk, on a worker: the native ensemble's arrays (errors name the member by its
    index in the whole ensemble)."""
    arr = np.ascontiguousarray(states, dtype=np.float64)
    return _native.ensemble(system, method, h, steps, arr, every, threads, first_member)


def _megno_chunk(
    states: np.ndarray,
    system: geomint.System,
    method: Optional[str],
    h: Optional[float],
    steps: Optional[int],
    threads: Optional[int],
) -> Dict[str, Any]:
    """One chunk of a MEGNO map, on a worker: the native map's dict."""
    arr = np.ascontiguousarray(states, dtype=np.float64)
    return _native.megno(system, method, h, steps, arr, threads)


def _total_threads(client: Any) -> int:
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:  # pragma: no cover - a client without workers yet
        return 1


def ensemble(
    client: Any,
    problem: geomint.ProblemLike,
    method: Optional[str],
    h: Optional[float],
    steps: Optional[int],
    states: Any,
    *,
    chunk_size: Optional[int] = None,
    params: Optional[Mapping[str, float]] = None,
    every: Optional[int] = None,
    threads: Optional[int] = 1,
) -> geomint.EnsembleResult:
    """:func:`geomint.ensemble` on the workers of ``client`` (a ``dask.distributed.Client``).

    The (M, n) ``states`` are cut into chunks of ``chunk_size`` rows (default: about four
    chunks per worker thread), scattered to the workers, integrated there with ``threads``
    threads per chunk (default 1: Dask's worker threads are the parallelism; ``None`` lets each
    chunk use all cores of its worker, for workers started with one thread each) and gathered
    in order. The settings are checked here first, with the messages of
    :func:`geomint.ensemble`, before anything is sent; a failing member raises with its index
    in the whole ensemble, as locally. ``wall_seconds`` of the result is the time from
    scattering to gathering.
    """
    h, steps, every, _, threads = geomint._settings(h, steps, every, None, threads)
    method = geomint._method(method)
    system = geomint._system(problem, params)
    arr = np.ascontiguousarray(states, dtype=np.float64)
    _native.check_ensemble(system, method, h, steps, list(arr.shape), every, threads)
    m = arr.shape[0]
    if chunk_size is None:
        chunk_size = max(1, math.ceil(m / (4 * _total_threads(client))))
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if m == 0:
        return geomint.ensemble(system, method, h, steps, arr, every=every, threads=threads)
    starts = list(range(0, m, chunk_size))
    chunks = [arr[i : i + chunk_size] for i in starts]
    t0 = time.perf_counter()
    # unique keys per call: re-scattering equal chunks under their hash races with the release of
    # the previous call's (a "lost dependencies" cancellation)
    data = client.scatter(chunks, hash=False)
    futures = client.map(
        _run_chunk,
        data,
        starts,
        system=system,
        method=method,
        h=h,
        steps=steps,
        every=every,
        threads=threads,
        pure=False,
    )
    parts = client.gather(futures)
    wall = time.perf_counter() - t0
    return geomint._ensemble_result(parts, wall_seconds=wall)


def megno(
    client: Any,
    system: geomint.ProblemLike,
    method: Optional[str],
    h: Optional[float],
    steps: Optional[int],
    states: Any,
    *,
    chunk_size: Optional[int] = None,
    params: Optional[Mapping[str, float]] = None,
    threads: Optional[int] = 1,
) -> Dict[str, Any]:
    """:func:`geomint.megno` on the workers of ``client`` (a ``dask.distributed.Client``).

    The (M, 2n) ``states`` are cut into chunks of ``chunk_size`` rows (default: about four
    chunks per worker thread), scattered to the workers (the system travels pickled: a
    catalogue problem as its name and parameters, a Hamiltonian of formulas as its TOML text),
    integrated there with ``threads`` threads per chunk (default 1) and gathered in order. Every
    orbit is the local call's, so ``mean``, ``lyapunov`` and ``failed`` equal
    :func:`geomint.megno` on the same states bit for bit. The settings are checked here first,
    with the messages of :func:`geomint.megno`, before anything is sent. ``wall_seconds`` is
    the time from scattering to gathering.
    """
    h, steps, _, _, threads = geomint._settings(h, steps, None, None, threads)
    method = geomint._method(method)
    sys_ = geomint._system(system, params)
    arr = np.ascontiguousarray(states, dtype=np.float64)
    _native.check_megno(sys_, method, h, steps, list(arr.shape), threads)
    m = arr.shape[0]
    if chunk_size is None:
        chunk_size = max(1, math.ceil(m / (4 * _total_threads(client))))
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if m == 0:
        return geomint.megno(sys_, method, h, steps, arr, threads=threads)
    chunks = [arr[i : i + chunk_size] for i in range(0, m, chunk_size)]
    t0 = time.perf_counter()
    data = client.scatter(chunks, hash=False)
    futures = client.map(
        _megno_chunk, data, system=sys_, method=method, h=h, steps=steps, threads=threads, pure=False
    )
    parts = client.gather(futures)
    wall = time.perf_counter() - t0
    out = dict(parts[0])
    for key in ("mean", "lyapunov", "failed"):
        out[key] = np.concatenate([p[key] for p in parts])
    out["wall_seconds"] = wall
    return out
