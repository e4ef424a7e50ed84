"""geomint.dask.ensemble on a LocalCluster of two worker processes equals geomint.ensemble."""

from __future__ import annotations

import numpy as np
import pytest

import geomint
from support import bits
import geomint.dask

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    )
    c = distributed.Client(cluster)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


def kepler_states(m: int) -> np.ndarray:
    e = 0.05 + 0.9 * np.arange(m) / m
    return np.stack([1 - e, 0 * e, 0 * e, np.sqrt((1 + e) / (1 - e))], axis=1)


def test_dask_ensemble_equals_the_local_ensemble(client):
    states = kepler_states(1000)
    local = geomint.ensemble("kepler", "stormer-verlet", 0.01, 1000, states, every=100)
    remote = geomint.dask.ensemble(client, "kepler", "stormer-verlet", 0.01, 1000, states, chunk_size=64, every=100)
    assert remote.members == 1000
    assert bits(remote.states) == bits(local.states)
    assert bits(remote.error_array) == bits(local.error_array)
    assert bits(remote.max_error_array) == bits(local.max_error_array)
    assert remote.labels == local.labels and remote.quantities == local.quantities
    # both workers took part
    assert len(client.nthreads()) == 2


def test_dask_ensemble_of_built_systems_and_default_chunks(client):
    body = geomint.rigid_body(np.diag([2.0, 1.0, 2.0 / 3.0]), [0.45, 0.0, 0.89])
    states = np.tile(body.initial_state, (50, 1))
    states[:, 9] += np.linspace(0.0, 0.5, 50)
    local = geomint.ensemble(body, "hp-sv", 0.1, 200, states)
    remote = geomint.dask.ensemble(client, body, "hp-sv", 0.1, 200, states)
    assert bits(remote.states) == bits(local.states) and bits(remote.error_array) == bits(local.error_array)
    assert np.all(remote.errors["casimir"] <= 1e-12)


def test_dask_ensemble_checks_the_input_before_submitting(client):
    with pytest.raises(ValueError) as info:
        geomint.dask.ensemble(client, "kepler", "stormer-verlet", 0.01, 10, np.zeros((8, 3)))
    with pytest.raises(ValueError) as local:
        geomint.ensemble("kepler", "stormer-verlet", 0.01, 10, np.zeros((8, 3)))
    assert str(info.value) == str(local.value)
    with pytest.raises(ValueError, match="unknown problem 'keplr'"):
        geomint.dask.ensemble(client, "keplr", None, 0.01, 10, np.zeros((8, 4)))
    with pytest.raises(ValueError, match="chunk_size must be a positive integer"):
        geomint.dask.ensemble(client, "kepler", None, 0.01, 10, kepler_states(4), chunk_size=0)
    # a failing member fails the whole call, naming the member by its index in the whole
    # ensemble, as the local ensemble does
    bad = kepler_states(10)
    bad[7] = [0.0, 0.0, 0.0, 1.0]
    with pytest.raises(geomint.IntegrationError, match="member 7: integration failed at step 1"):
        geomint.dask.ensemble(client, "kepler", "stormer-verlet", 0.01, 10, bad, chunk_size=5)
    # an invalid state: the same message as the local call
    bad = kepler_states(10)
    bad[5, 1] = np.inf
    with pytest.raises(ValueError) as remote:
        geomint.dask.ensemble(client, "kepler", "stormer-verlet", 0.01, 10, bad, chunk_size=4)
    with pytest.raises(ValueError) as local:
        geomint.ensemble("kepler", "stormer-verlet", 0.01, 10, bad)
    assert str(remote.value) == str(local.value) and str(local.value).startswith("member 5: "), str(remote.value)


def test_dask_megno_equals_the_local_map(client):
    """The MEGNO of a Hamiltonian of formulas (pickled as its TOML text) over Hénon–Heiles states
    on x = 0 at E = 1/8, in chunks on the workers: the local call's values, bit for bit."""
    hh = geomint.hamiltonian(
        T="0.5*(px^2 + py^2)",
        V="0.5*(x^2 + y^2) + x^2*y - y^3/3",
        q=["x", "y"],
        p=["px", "py"],
        q0=[0.0, 0.1],
        p0=[0.3, 0.0],
    )
    y = np.linspace(-0.35, 0.55, 60)
    px = np.sqrt(2 * (0.125 - 0.5 * y**2 + y**3 / 3))
    states = np.stack([0 * y, y, px, 0 * y], axis=1)
    states[7, 2] = 50.0  # an escape: failed in both
    local = geomint.megno(hh, "stormer-verlet", 0.05, 4000, states)
    remote = geomint.dask.megno(client, hh, "stormer-verlet", 0.05, 4000, states, chunk_size=7)
    assert bits(remote["mean"]) == bits(local["mean"]) and bits(remote["lyapunov"]) == bits(local["lyapunov"])
    assert list(remote["failed"]) == list(local["failed"]) and remote["failed"][7] and remote["failed"].sum() == 1
    assert (remote["mean"] < 2.5).any() and (remote["mean"] > 4.0).any()
    with pytest.raises(ValueError) as info:
        geomint.dask.megno(client, hh, "stormer-verlet", 0.05, 10, states[:, :3])
    with pytest.raises(ValueError) as here:
        geomint.megno(hh, "stormer-verlet", 0.05, 10, states[:, :3])
    assert str(info.value) == str(here.value)
    with pytest.raises(ValueError, match="chunk_size must be a positive integer"):
        geomint.dask.megno(client, hh, None, 0.05, 10, states, chunk_size=0)


def test_dask_megno_on_a_lie_group_equals_the_local_map(client):
    """A heavy top built from data (pickled as its inputs), MEGNO over body momenta at one
    attitude, in chunks on the workers: the local call's values, bit for bit."""
    top = geomint.heavy_top([2.0, 2.5, 1.0], [0.3, -0.4, 2.0], mgl=1.0, chi=[0.1, 0.0, 1.0])
    x0 = np.asarray(top.initial_state)
    states = np.array([np.concatenate([x0[:9], [a, b, 2.0]]) for a in (0.3, 1.2, -0.7) for b in (-0.4, 0.9)])
    local = geomint.megno(top, "hp-sv", 0.01, 3000, states)
    remote = geomint.dask.megno(client, top, "hp-sv", 0.01, 3000, states, chunk_size=4)
    assert bits(remote["mean"]) == bits(local["mean"]) and bits(remote["lyapunov"]) == bits(local["lyapunov"])
    assert not local["failed"].any()
