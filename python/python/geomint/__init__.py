"""geomint: structure-preserving (geometric) numerical integrators, from Python.

The problems and methods of the geomint workbench (the ``geomint`` command line), run by the
Rust library: numpy arrays in and out, the GIL released while integrating, ensembles in
parallel on all cores, and (``geomint.dask``) on the workers of a Dask cluster.

>>> import geomint
>>> r = geomint.run("kepler", "stormer-verlet", h=0.01, steps=1000)
>>> r.states.shape, r.max_error("energy") < 1e-3
((1001, 4), True)

Bad input raises ``ValueError`` with the message the CLI prints (after ``error: ``), naming
Python's parameters; a failed integration raises :class:`IntegrationError`; samples that would
not fit in memory raise ``MemoryError`` before any step. Ctrl-C raises ``KeyboardInterrupt``
within a fraction of a second in every call (the signals are checked while the steps run).
"""

from __future__ import annotations

from dataclasses import dataclass
import os
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import math

import numpy as np

from . import _callbacks, _native
from ._native import IntegrationError, System

__all__ = [
    "EnsembleResult",
    "Hamiltonian",
    "HamiltonianSolution",
    "IntegrationError",
    "Quantity",
    "RunResult",
    "Simulation",
    "System",
    "ensemble",
    "hamiltonian",
    "heavy_top",
    "kepler_drift",
    "lagrangian",
    "lie_system",
    "megno",
    "methods",
    "nbody",
    "nbody_file",
    "ode",
    "perturbed_states",
    "poincare",
    "problem",
    "problems",
    "rigid_body",
    "run",
    "solve_hamiltonian",
    "system_file",
]

try:  # the installed distribution's version
    from importlib.metadata import version as _version

    __version__ = _version("geomint")
except Exception:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

ArrayLike = Any
ProblemLike = Union[str, System]


class Quantity(NamedTuple):
    """A monitored quantity: its name, kind (``energy``, ``momentum``, ``casimir``,
    ``constraint``), number of components and formula."""

    name: str
    kind: str
    dim: int
    formula: str


def _f64(x: ArrayLike) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64)


def _number(name: str, x: Any) -> Optional[float]:
    """``x`` as a float (``None`` stays), else ``TypeError`` naming the parameter."""
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(x).__name__}")
    return float(x)


def _integer(name: str, x: Any) -> Optional[int]:
    """``x`` as an int (``None`` stays), else ``TypeError`` naming the parameter; an integer
    beyond 64 bits is a ``ValueError``."""
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(x).__name__}")
    if not -(2**63) <= int(x) < 2**63:
        raise ValueError(f"{name} = {int(x)} is out of range")
    return int(x)


def _settings(h: Any, steps: Any, every: Any, t_end: Any = None, threads: Any = None) -> tuple:
    return (
        _number("h", h),
        _integer("steps", steps),
        _integer("every", every),
        _number("t_end", t_end),
        _integer("threads", threads),
    )


def _mapping(name: str, x: Any) -> Any:
    """``x`` if it is ``None`` or a mapping, else ``TypeError`` naming the parameter."""
    import collections.abc

    if x is not None and not isinstance(x, collections.abc.Mapping):
        raise TypeError(f"{name} must be a mapping of names to values, got {type(x).__name__}")
    return x


def _params(params: Optional[Mapping[str, float]]) -> Optional[List[tuple]]:
    if _mapping("params", params) is None:
        return None
    out = []
    for k, v in params.items():
        try:
            out.append((str(k), float(v)))
        except (TypeError, ValueError):
            raise ValueError(f"params[{k!r}]: {v!r} is not a number") from None
    return out


def _system(problem: ProblemLike, params: Optional[Mapping[str, float]] = None) -> System:
    if isinstance(problem, System):
        if params:
            raise ValueError("params apply to a problem given by name; this system is already built")
        return problem
    if isinstance(problem, str):
        return _native.problem(problem, _params(params))
    raise TypeError(f"problem must be a catalogue name (str) or a geomint.System, got {type(problem).__name__}")


def _quantities(raw: Sequence[tuple]) -> List[Quantity]:
    return [Quantity(*q) for q in raw]


def _split(matrix: np.ndarray, qs: Sequence[Quantity], by_dim: bool) -> Dict[str, np.ndarray]:
    """Columns of ``matrix`` by quantity: ``dim`` columns each (values) or one (errors)."""
    out, k = {}, 0
    for q in qs:
        w = q.dim if by_dim else 1
        out[q.name] = matrix[:, k] if w == 1 else matrix[:, k : k + w]
        k += w
    return out


def _max0(a: np.ndarray) -> float:
    # the workbench's max: fold(0.0, f64::max), which skips NaN
    return float(np.fmax.reduce(a, initial=0.0)) if a.size else 0.0


# -- the catalogue -----------------------------------------------------------------------------


def problems() -> Dict[str, str]:
    """The catalogue: ``{name: description}`` (summary, family, default step and final time,
    parameters), in the order ``geomint list`` prints it."""
    return dict(_native.problems())


def methods(problem: ProblemLike, *, params: Optional[Mapping[str, float]] = None) -> Dict[str, str]:
    """The methods that apply to ``problem``: ``{name: description}`` (order, structure,
    summary), the default first."""
    return dict(_native.methods(_system(problem, params)))


def problem(name: str, params: Optional[Mapping[str, float]] = None) -> System:
    """The catalogue problem ``name`` with ``params`` (e.g. ``{"e": 0.9}`` for kepler), the
    others at their defaults. Its ``labels``, ``quantities``, ``methods``, ``defaults`` and
    ``initial_state`` describe it."""
    return _native.problem(name, _params(params))


def nbody(masses: ArrayLike, positions: ArrayLike, velocities: ArrayLike, *, G: float = 1.0) -> System:
    """A gravitational N-body system ``H = Σ|p_i|²/(2m_i) − G Σ_{i<j} m_i m_j/|q_i − q_j|``.

    ``masses`` has shape (B,), ``positions`` and ``velocities`` (B, 2) or (B, 3), any number
    B ≥ 2 of bodies. The state is ``(q, p)``, flattened body by body, with momenta
    ``p_i = m_i v_i``; the monitored quantities are the energy and the angular and linear
    momenta. Up to 18 coordinates (6 bodies in space, 9 in the plane) every canonical method
    applies; beyond, the explicit symplectic ones (Störmer–Verlet, symplectic Euler A and B,
    and the compositions of Störmer–Verlet): see ``System.methods``.
    """
    return _native.nbody(_f64(masses), _f64(positions), _f64(velocities), float(G))


def nbody_file(path: Union[str, "os.PathLike[str]"], *, G: float = 1.0) -> System:
    """The N-body system of a file of the CLI's format (``geomint run nbody --system FILE``):
    one body per line, ``mass, x, y, z, vx, vy, vz`` in space or ``mass, x, y, vx, vy`` in the
    plane; ``#`` starts a comment, and a first line of these column names is skipped. The same
    as :func:`nbody` with the file's values."""
    return _native.nbody_file(os.fspath(path), float(G))


def hamiltonian(
    H: Optional[str] = None,
    *,
    q: Sequence[str],
    p: Sequence[str],
    q0: ArrayLike,
    p0: ArrayLike,
    T: Optional[str] = None,
    V: Optional[str] = None,
    params: Optional[Mapping[str, float]] = None,
    invariants: Optional[Mapping[str, str]] = None,
    name: Optional[str] = None,
    h: Optional[float] = None,
    t_end: Optional[float] = None,
) -> System:
    """Your own Hamiltonian system on T*R^n (n = 1 to 4), written as formulas.

    ``H`` is a formula in the coordinates named by ``q`` and the momenta named by ``p``; or give
    a separable ``T`` (momenta only) and ``V`` (coordinates only), and the explicit methods
    apply. The formulas are parsed once, in Rust, and differentiated exactly by automatic
    differentiation: no Python runs while integrating. ``params`` maps names to values,
    ``invariants`` names formulas in ``q`` and ``p`` that are monitored like the energy.
    Operators ``+ - * / ^`` (or ``**``), functions ``sin cos tan asin acos atan sinh cosh tanh
    exp log sqrt abs atan2 pow``, the constant ``pi``. The format of
    ``geomint run --system FILE.toml`` (:func:`system_file`).

    >>> kepler = geomint.hamiltonian("0.5*(px^2 + py^2) - mu/sqrt(x^2 + y^2)",
    ...     q=["x", "y"], p=["px", "py"], q0=[0.4, 0.0], p0=[0.0, 2.0], params={"mu": 1.0},
    ...     invariants={"L": "x*py - y*px"})
    >>> geomint.run(kepler, "yoshida6", h=0.01, steps=1000).max_error("L") < 1e-12
    True

    A formula that does not parse raises ``ValueError`` naming the formula and the column.
    """
    return _native.hamiltonian(
        H,
        q=[str(x) for x in q],
        p=[str(x) for x in p],
        q0=[float(x) for x in np.asarray(q0, dtype=float).ravel()],
        p0=[float(x) for x in np.asarray(p0, dtype=float).ravel()],
        T=T,
        V=V,
        params=None if _mapping("params", params) is None else {str(k): float(v) for k, v in params.items()},
        invariants=None
        if _mapping("invariants", invariants) is None
        else {str(k): str(v) for k, v in invariants.items()},
        name=name,
        h=None if h is None else float(h),
        t_end=None if t_end is None else float(t_end),
    )


def lagrangian(
    L: str,
    *,
    q: Sequence[str],
    v: Sequence[str],
    q0: ArrayLike,
    v0: ArrayLike,
    params: Optional[Mapping[str, float]] = None,
    invariants: Optional[Mapping[str, str]] = None,
    name: Optional[str] = None,
    h: Optional[float] = None,
    t_end: Optional[float] = None,
) -> System:
    """Your own Lagrangian system on TR^n (n = 1 to 4, 6 or 9), written as a formula.

    ``L`` is a formula in the coordinates named by ``q`` and the velocities named by ``v``
    (names distinct from the coordinates'), parsed once, in Rust, and differentiated exactly:
    no Python runs while integrating. ``q0`` and ``v0`` are the initial coordinates and
    velocities; the momenta ``p0 = ∂L/∂v(q0, v0)`` are computed, and ``L`` must be regular there
    (``∂²L/∂v²`` invertible). ``params`` maps names to values, ``invariants`` names formulas in
    ``q`` and ``v`` that are monitored like the energy ``E = v·∂L/∂v − L``. The method is
    ``del-midpoint``: the discrete Euler–Lagrange flow of the midpoint discrete Lagrangian
    ``L_d(q0, q1) = h L((q0 + q1)/2, (q1 − q0)/h)`` on the pair groupoid, on the state
    ``(q, p)`` with ``p = ∂L/∂v`` (the implicit midpoint rule of the Legendre transform). The
    ``L`` form of ``geomint run --system FILE.toml`` (:func:`system_file`).

    >>> kepler = geomint.lagrangian("0.5*(vx^2 + vy^2) + mu/sqrt(x^2 + y^2)",
    ...     q=["x", "y"], v=["vx", "vy"], q0=[0.4, 0.0], v0=[0.0, 2.0], params={"mu": 1.0},
    ...     invariants={"L": "x*vy - y*vx"})
    >>> geomint.run(kepler, "del-midpoint", h=0.01, steps=1000).max_error("L") < 1e-11
    True

    A formula that does not parse, or a bad argument (``v`` of the wrong length, a velocity
    named like a coordinate, an ``L`` not regular at the initial state), raises ``ValueError``
    naming it.
    """
    if not isinstance(L, str):
        raise ValueError(f"L must be a formula (a string), got {type(L).__name__}")
    return _native.lagrangian(
        L,
        q=[str(x) for x in q],
        v=[str(x) for x in v],
        q0=[float(x) for x in np.asarray(q0, dtype=float).ravel()],
        v0=[float(x) for x in np.asarray(v0, dtype=float).ravel()],
        params=None if _mapping("params", params) is None else {str(k): float(x) for k, x in params.items()},
        invariants=None
        if _mapping("invariants", invariants) is None
        else {str(k): str(x) for k, x in invariants.items()},
        name=name,
        h=None if h is None else float(h),
        t_end=None if t_end is None else float(t_end),
    )


def Hamiltonian(
    grad_q: Any,
    grad_p: Any,
    *,
    q0: ArrayLike,
    p0: ArrayLike,
    V: Any = None,
    T: Any = None,
    user_data: Any = None,
    h: Optional[float] = None,
    t_end: Optional[float] = None,
) -> System:
    """Your own separable Hamiltonian ``H(q, p) = T(p) + V(q)`` on T*R^n (n = 1 to 4), given by
    its gradients as callbacks: ``grad_q(q) = ∂H/∂q = ∇V(q)`` and ``grad_p(p) = ∂H/∂p = ∇T(p)``
    (so ``−grad_q`` is the force), from the initial state ``q0``, ``p0``. Give the energies ``V(q)``
    and ``T(p)`` too and the energy ``H`` is monitored; without them it is NaN.

    Each callback is either

    * **compiled**, called from Rust with the GIL released at the cost of a C function call: a
      ``scipy.LowLevelCallable``, a ``numba.cfunc``, a ctypes function pointer, or an integer
      address, with the signatures (the ``LowLevelCallable`` convention)::

          void grad(int n, const double *x, double *out, void *user_data);  // out = ∇V(x) or ∇T(x)
          double energy(int n, const double *x, void *user_data);           // V(x) or T(x)

      ``user_data`` (an int, a ctypes pointer or a PyCapsule; a ``LowLevelCallable``'s own by
      default) is passed to every call. A compiled callback must be thread-safe (an ensemble
      calls it from several threads) and must not call Python;
    * **a plain Python function**, for prototyping: ``grad_q(q) -> array of n floats`` (``q`` a
      fresh float64 array), ``V(q) -> float``; called with the GIL held, about 0.3 µs per call
      on top of the function's own time (Störmer–Verlet calls each gradient once a step). An
      exception raised by it propagates as itself from :func:`run` (and from ensembles and
      simulations), with a note (PEP 678) naming the callback, the step and the time; the run
      stops at the last good step. Ctrl-C works: the signals are checked at every call.

    The methods are those that need no more than the gradients: the splittings and their
    compositions (``stormer-verlet``, ``yoshida6``, ...), ``rk4``, ``explicit-euler``, ``dop853``.
    The implicit methods solve their stages by Newton's method, which needs the Hessian of ``H``;
    they refuse with a ``ValueError`` saying so. A system of callbacks cannot be pickled (no
    Dask) nor saved by :meth:`Simulation.save` (write it with :func:`hamiltonian` for that).

    >>> import numba
    >>> @numba.cfunc("void(intc, CPointer(float64), CPointer(float64), voidptr)")
    ... def grad_v(n, q, out, _):
    ...     r3 = (q[0] ** 2 + q[1] ** 2) ** 1.5
    ...     out[0], out[1] = q[0] / r3, q[1] / r3
    >>> kepler = geomint.Hamiltonian(grad_v, lambda p: p, q0=[0.4, 0.0], p0=[0.0, 2.0])
    """
    gv, gt, v, t, keep = _callbacks.callbacks(grad_q, grad_p, V, T, user_data)
    return _native._callback_hamiltonian(
        gt,
        gv,
        [float(x) for x in np.asarray(q0, dtype=float).ravel()],
        [float(x) for x in np.asarray(p0, dtype=float).ravel()],
        T=t,
        V=v,
        h=_number("h", h),
        t_end=_number("t_end", t_end),
        keep=keep,
    )


def ode(
    f: Any,
    y0: ArrayLike,
    *,
    t0: float = 0.0,
    invariants: Optional[Mapping[str, Any]] = None,
    user_data: Any = None,
    h: Optional[float] = None,
    t_end: Optional[float] = None,
) -> System:
    """Your own ordinary differential equation ``dy/dt = f(t, y)`` on R^n (n = 1 to 8), from
    ``y0`` at ``t0``: a vector field with no structure geomint knows of (a force with friction, a
    driven oscillator, a chemical network), integrated by the explicit Runge–Kutta methods
    (``dop853`` at the fixed step ``h``, the default; ``rk4``; ``explicit-euler``). For a
    Hamiltonian system use :func:`hamiltonian` or :func:`Hamiltonian`: the symplectic methods
    apply there.

    The state is ``(t, y)`` (labels ``t, y1, …, yn``): a run started from a state (``state=``,
    an ensemble's states) starts at its time, so the field may depend on ``t``. ``invariants``
    maps names to functions ``g(y)``, monitored like an energy (error ``|g(y(t)) − g(y0)| /
    |g(y0)|``).

    ``f`` and each invariant are, as for :func:`Hamiltonian`, either **compiled** (a
    ``scipy.LowLevelCallable``, a ``numba.cfunc``, a ctypes function pointer or an integer
    address, called with the GIL released; thread-safe) with the signatures::

        void f(int n, double t, const double *y, double *out, void *user_data);  // out = f(t, y)
        double g(int n, const double *y, void *user_data);                       // g(y)

    or **a plain Python function** ``f(t, y) -> array of n floats`` (scipy's ``fun(t, y)``;
    ``y`` a fresh float64 array) and ``g(y) -> float``, called with the GIL held; an exception
    raised by it propagates as itself with a note naming the step and the time, and Ctrl-C works.
    A system of callbacks cannot be pickled (no Dask) nor saved.

    >>> damped = geomint.ode(lambda t, y: [y[1], -y[0] - 0.1 * y[1]], [1.0, 0.0])
    >>> r = geomint.run(damped, "rk4", h=0.01, steps=1000)
    >>> r.labels
    ['t', 'y1', 'y2']
    """
    inv = _mapping("invariants", invariants) or {}
    fn, gs, keep = _callbacks.field_callbacks(f, inv, user_data)
    t0v = _number("t0", t0)
    return _native._vector_field(
        fn,
        [float(x) for x in np.asarray(y0, dtype=float).ravel()],
        t0=0.0 if t0v is None else t0v,
        invariants=gs,
        h=_number("h", h),
        t_end=_number("t_end", t_end),
        keep=keep,
    )


def system_file(path: Union[str, "os.PathLike[str]"]) -> System:
    """The system of a TOML file of formulas (``geomint run --system FILE.toml``): a Hamiltonian
    on T*R^n (the keys of :func:`hamiltonian`), a Lagrangian on TR^n (the keys of
    :func:`lagrangian`), or a rigid body on SO(3) when the file declares ``group = "SO(3)"`` (the
    keys of :func:`lie_system`)."""
    return _native.system_file(os.fspath(path))


def _shaped(name: str, x: ArrayLike, shapes: Sequence[Tuple[int, ...]]) -> List[float]:
    a = np.asarray(x, dtype=float)
    if a.shape not in shapes:
        allowed = " or ".join(str(s) for s in shapes)
        raise ValueError(f"{name} must have shape {allowed}, got shape {a.shape}")
    return [float(v) for v in a.ravel()]


def lie_system(
    inertia: ArrayLike,
    Pi0: ArrayLike,
    *,
    V: Optional[str] = None,
    params: Optional[Mapping[str, float]] = None,
    R0: Optional[ArrayLike] = None,
    R0_axis_angle: Optional[ArrayLike] = None,
    x0: Optional[ArrayLike] = None,
    P0: Optional[ArrayLike] = None,
    group: str = "SO(3)",
    name: Optional[str] = None,
    h: Optional[float] = None,
    t_end: Optional[float] = None,
) -> System:
    """Your own rigid body on SO(3), with a potential written as a formula.

    ``inertia`` is 3 principal moments or a symmetric positive definite 3 × 3 tensor, ``V`` the
    potential ``V(R)`` as a formula in the entries ``r11, r12, …, r33`` of the attitude ``R``
    with the parameters ``params`` (no ``V``: a free body), ``Pi0`` the initial body angular
    momentum, ``R0`` the initial attitude (a rotation matrix) or ``R0_axis_angle`` the rotation
    vector ``θ`` of ``R0 = exp(θ̂)`` (identity by default). The formula is parsed once in Rust;
    the body torque is its left-trivialized gradient ``τ = vee(Aᵀ − A)``, ``A = Rᵀ ∂V/∂R``, from
    the formula's exact derivative. Every Lie-group method applies (``hp-sv``, ``lgvi``,
    ``lift-midpoint-exp``, ...). Monitored: the energy ``½ Π·I⁻¹Π + V(R)``; the vertical momentum
    ``e3·RΠ`` when ``V`` depends on ``r31, r32, r33`` only; the Casimir ``|Π|²`` of a free body.
    The state is ``R`` row-major then ``Π``. The format of ``geomint run --system FILE.toml``
    with ``group = "SO(3)"`` (:func:`system_file`).

    >>> top = geomint.lie_system([2.0, 2.5, 1.0], [0.3, -0.4, 2.0],
    ...     V="mgl*(r31*chi1 + r32*chi2 + r33*chi3)",
    ...     params={"mgl": 1.0, "chi1": 0.0, "chi2": 0.0, "chi3": 1.0})
    >>> geomint.run(top, "hp-sv", h=0.01, steps=1000).max_error("vertical_momentum") < 1e-12
    True

    With ``group="SE(3)"`` the body also translates: ``inertia`` is the 6 × 6 metric ``M`` of
    ``ℓ = ½ ξᵀMξ``, ``ξ = (Ω, v)`` (or its 6 diagonal entries), ``V`` a formula in ``r11 … r33``
    and the position ``x1, x2, x3``, ``x0`` the initial position and ``P0`` the initial body
    linear momentum (both 0 by default); the state is ``g`` (4 × 4) row-major then ``(Π, P)``.

    Bad input (a formula that does not parse, an unknown name, an inertia that is not positive
    definite, an ``R0`` that is not a rotation) raises ``ValueError`` naming the parameter.
    """
    return _native.lie_system(
        _shaped("inertia", inertia, [(6,), (6, 6)] if str(group).strip() == "SE(3)" else [(3,), (3, 3)]),
        _shaped("Pi0", Pi0, [(3,)]),
        V=None if V is None else str(V),
        params=None if params is None else {str(k): float(v) for k, v in params.items()},
        R0=None if R0 is None else _shaped("R0", R0, [(3, 3)]),
        R0_axis_angle=None if R0_axis_angle is None else _shaped("R0_axis_angle", R0_axis_angle, [(3,)]),
        x0=None if x0 is None else _shaped("x0", x0, [(3,)]),
        P0=None if P0 is None else _shaped("P0", P0, [(3,)]),
        group=str(group),
        name=name,
        h=_number("h", h),
        t_end=_number("t_end", t_end),
    )


def rigid_body(inertia: ArrayLike, Pi: ArrayLike, R: Optional[ArrayLike] = None) -> System:
    """A free rigid body on SO(3): ``inertia`` is 3 principal moments or a symmetric positive
    definite 3 × 3 tensor, ``Pi`` the body angular momentum, ``R`` the attitude (a rotation
    matrix, identity by default). The state is ``R`` row-major then ``Pi`` (12 values)."""
    return _native.rigid_body(_f64(inertia), _f64(Pi), None if R is None else _f64(R))


def heavy_top(
    inertia: ArrayLike,
    Pi: ArrayLike,
    R: Optional[ArrayLike] = None,
    *,
    mgl: float = 1.0,
    chi: ArrayLike = (0.0, 0.0, 1.0),
) -> System:
    """A heavy top on SO(3): inertia about the fixed point, weight times distance ``mgl`` and
    body direction ``chi`` of the centre of mass (normalised), body momentum ``Pi``, attitude
    ``R`` (identity by default). State as for :func:`rigid_body`."""
    return _native.heavy_top(_f64(inertia), _f64(Pi), None if R is None else _f64(R), float(mgl), _f64(chi))


# -- runs ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunResult:
    """One run, sampled every ``every`` steps (and at the last step), the initial state first.

    ``states`` is (S, n); ``values[name]`` is (S,) or (S, dim); ``errors[name]`` is (S,): the
    relative error of a conserved quantity against its initial value (absolute when that is 0),
    ``|φ|`` for a constraint. ``solution_error`` where an exact solution is known.
    ``wall_seconds`` is the time of the steps (sampling excluded), as the CLI reports it.
    """

    problem: str
    method: str
    h: float
    steps: int
    every: int
    labels: List[str]
    quantities: List[Quantity]
    t: np.ndarray
    step: np.ndarray
    states: np.ndarray
    values: Dict[str, np.ndarray]
    errors: Dict[str, np.ndarray]
    solution_error: Optional[np.ndarray]
    wall_seconds: float

    @property
    def final_state(self) -> np.ndarray:
        """The state after the last step."""
        return self.states[-1]

    def max_error(self, name: str) -> float:
        """The largest error of quantity ``name`` over the samples."""
        return _max0(self.errors[name])

    def final_error(self, name: str) -> float:
        """The error of quantity ``name`` at the last sample."""
        return float(self.errors[name][-1])


def run(
    problem: ProblemLike,
    method: Optional[str] = None,
    h: Optional[float] = None,
    steps: Optional[int] = None,
    *,
    t_end: Optional[float] = None,
    params: Optional[Mapping[str, float]] = None,
    state: Optional[ArrayLike] = None,
    every: Optional[int] = None,
) -> RunResult:
    """Integrates ``problem`` (a catalogue name or a :class:`System`) with ``method`` for
    ``steps`` steps of ``h`` (or to ``t_end``), sampling every ``every`` steps.

    ``None`` takes what ``geomint run`` takes: the problem's first method, its step, its final
    time, about 1000 samples. From the problem's own initial state this is the CLI's run, bit for
    bit; ``state`` starts it elsewhere (coordinates as in ``System.labels``), as
    ``geomint run --state`` does: any problem of the catalogue, the groupoid problems included
    (their state is the initial data their first arrow is built from). A state off the problem's
    manifold or constraints (a matrix that is not a rotation, a pendulum bob off the unit
    sphere, ...) raises ``ValueError``.
    """
    h, steps, every, t_end, _ = _settings(h, steps, every, t_end)
    system = _system(problem, params)
    st = None if state is None else _f64(state)
    return _run_result(_native.run(system, _method(method), h, steps, t_end, every, st))


def _method(method: Any) -> Optional[str]:
    if method is not None and not isinstance(method, str):
        raise TypeError(f"method must be a method's name (str) or None, got {type(method).__name__}")
    return method


def _run_result(d: Dict[str, Any]) -> RunResult:
    qs = _quantities(d["quantities"])
    return RunResult(
        problem=d["problem"],
        method=d["method"],
        h=d["h"],
        steps=d["steps"],
        every=d["every"],
        labels=list(d["labels"]),
        quantities=qs,
        t=d["t"],
        step=d["step"],
        states=d["states"],
        values=_split(d["values"], qs, by_dim=True),
        errors=_split(d["errors"], qs, by_dim=False),
        solution_error=d["solution_error"],
        wall_seconds=d["wall_seconds"],
    )


# -- a solve_ivp-shaped entry point ---------------------------------------------------------------


@dataclass(frozen=True)
class HamiltonianSolution:
    """The solution of :func:`solve_hamiltonian`, shaped as scipy's ``solve_ivp`` result: times
    ``t`` (S,), states ``y`` (n, S) (one column per time, scipy's orientation), and the errors of
    the monitored quantities at those times, ``errors[name]`` (S,) (relative to the value at
    ``t_span[0]``, absolute where that is 0). ``h`` is the step used, ``steps`` their number."""

    t: np.ndarray
    y: np.ndarray
    errors: Dict[str, np.ndarray]
    method: str
    h: float
    steps: int
    labels: List[str]
    success: bool = True
    status: int = 0
    message: str = "The solver successfully reached the end of the integration interval."


def _errors(values: Dict[str, np.ndarray], qs: Sequence[Quantity]) -> Dict[str, np.ndarray]:
    """The workbench's errors of the rows of ``values`` against the first row."""
    out = {}
    for q in qs:
        v = np.asarray(values[q.name], dtype=float).reshape(len(values[q.name]), -1)
        if q.kind == "constraint":
            out[q.name] = np.linalg.norm(v, axis=1)
            continue
        d = np.linalg.norm(v - v[0], axis=1)
        s = np.linalg.norm(v[0])
        out[q.name] = d / s if s > 0 else d
    return out


def solve_hamiltonian(
    H: ProblemLike,
    t_span: Sequence[float],
    y0: Optional[ArrayLike] = None,
    method: Optional[str] = "yoshida6",
    h: Optional[float] = None,
    t_eval: Optional[ArrayLike] = None,
    *,
    params: Optional[Mapping[str, float]] = None,
) -> HamiltonianSolution:
    """Integrates the Hamiltonian system ``H`` (a :class:`System` of :func:`hamiltonian`,
    :func:`Hamiltonian`, :func:`nbody`, or a catalogue name) from ``y0`` (the state, as in
    ``H.labels``; default its initial state) over ``t_span = (t0, t1)``, for people coming from
    ``scipy.integrate.solve_ivp``. ``method`` is any geomint method that applies to the system
    (``H.methods``). The step is fixed: the largest ``h' ≤ h`` (default: the system's step) that
    divides ``t1 − t0``, so that the last step ends at ``t1``.

    Without ``t_eval`` the solution is given at every step. With ``t_eval`` (sorted, within
    ``t_span``), at those times: the steps run up to the last grid time ``t_k ≤ t``, and one step
    of the method of size ``t − t_k`` reaches ``t`` (no interpolation; the run itself goes on from
    the grid).

    >>> kepler = geomint.problem("kepler")
    >>> sol = geomint.solve_hamiltonian(kepler, (0.0, 10.0), kepler.initial_state, h=0.01)
    >>> sol.y.shape, sol.errors["energy"].max() < 1e-9
    ((4, 1001), True)
    """
    system = _system(H, params)
    if len(t_span) != 2:
        raise ValueError(f"t_span must be (t0, t1), got {len(t_span)} values")
    t0, t1 = _number("t_span[0]", t_span[0]), _number("t_span[1]", t_span[1])
    if not (math.isfinite(t0) and math.isfinite(t1) and t1 > t0):
        raise ValueError(f"t_span must be finite with t1 > t0, got ({t0}, {t1})")
    h0 = system.defaults[0] if h is None else _number("h", h)
    if not (math.isfinite(h0) and h0 > 0):
        raise ValueError(f"h must be finite and positive, got {h0}")
    steps = max(1, math.ceil((t1 - t0) / h0 * (1 - 1e-12)))
    step = (t1 - t0) / steps
    state = system.initial_state if y0 is None else _f64(y0)
    method = _method(method)
    if t_eval is None:
        r = run(system, method, step, steps, state=state, every=1)
        return HamiltonianSolution(
            t=t0 + r.t, y=r.states.T.copy(), errors=r.errors, method=r.method, h=step, steps=steps, labels=r.labels
        )
    te = np.asarray(t_eval, dtype=float).ravel()
    if te.size and (np.any(np.diff(te) < 0) or te[0] < t0 or te[-1] > t1 or not np.all(np.isfinite(te))):
        raise ValueError(f"t_eval must be sorted and within t_span = ({t0}, {t1})")
    method = system.methods[0] if method is None else method
    d = _native._at_times(system, method, step, steps, te - t0, state=state)
    qs = _quantities(system.quantities)
    first = _split(np.asarray(d["first"]).reshape(1, -1), qs, by_dim=True)
    rows = _split(np.asarray(d["values"]), qs, by_dim=True)
    table = {name: np.concatenate([first[name], rows[name]]) for name in rows}
    errors = {name: e[1:] for name, e in _errors(table, qs).items()}
    y = np.asarray(d["states"], dtype=float).reshape(len(te), -1).T
    return HamiltonianSolution(
        t=te, y=y, errors=errors, method=method, h=step, steps=steps, labels=list(system.labels)
    )


# -- ensembles -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EnsembleResult:
    """An ensemble: the final state of every member, (M, n), and the errors of the quantities
    at the final state, ``errors[name]`` of shape (M,) (``max_errors`` over the samples every
    ``every`` steps, when ``every`` was given). ``wall_seconds``: the whole ensemble's time
    (for a Dask ensemble, from submitting to gathering); ``threads``: the threads it ran on
    (each chunk's, for a Dask ensemble), at most the machine's parallelism."""

    problem: str
    method: str
    h: float
    steps: int
    every: Optional[int]
    labels: List[str]
    quantities: List[Quantity]
    states: np.ndarray
    error_array: np.ndarray
    max_error_array: Optional[np.ndarray]
    wall_seconds: float
    threads: int = 1

    @property
    def members(self) -> int:
        """The number of members M."""
        return int(self.states.shape[0])

    @property
    def errors(self) -> Dict[str, np.ndarray]:
        """``{name: (M,) final errors}``."""
        return _split(self.error_array, self.quantities, by_dim=False)

    @property
    def max_errors(self) -> Optional[Dict[str, np.ndarray]]:
        """``{name: (M,) largest sampled errors}``, if ``every`` was given."""
        if self.max_error_array is None:
            return None
        return _split(self.max_error_array, self.quantities, by_dim=False)


def _ensemble_result(parts: Sequence[Dict[str, Any]], wall_seconds: Optional[float] = None) -> EnsembleResult:
    d = parts[0]
    if len(parts) == 1:
        states, errors, max_errors = d["states"], d["errors"], d["max_errors"]
    else:
        states = np.concatenate([p["states"] for p in parts])
        errors = np.concatenate([p["errors"] for p in parts])
        max_errors = None if d["max_errors"] is None else np.concatenate([p["max_errors"] for p in parts])
    return EnsembleResult(
        problem=d["problem"],
        method=d["method"],
        h=d["h"],
        steps=d["steps"],
        every=d["every"],
        labels=list(d["labels"]),
        quantities=_quantities(d["quantities"]),
        states=states,
        error_array=errors,
        max_error_array=max_errors,
        wall_seconds=d["wall_seconds"] if wall_seconds is None else wall_seconds,
        threads=int(d["threads"]),
    )


def ensemble(
    problem: ProblemLike,
    method: Optional[str],
    h: Optional[float],
    steps: Optional[int],
    states: ArrayLike,
    *,
    params: Optional[Mapping[str, float]] = None,
    every: Optional[int] = None,
    threads: Optional[int] = None,
) -> EnsembleResult:
    """Integrates ``problem`` from every row of ``states`` (an (M, n) array) for ``steps`` steps
    of ``h``, in parallel on all cores (or ``threads`` threads, at most the machine's
    parallelism: more are capped), with the GIL released.

    Member ``i`` equals ``run(problem, method, h, steps, state=states[i])``'s final state and
    final errors, bit for bit. A failing member raises with its index in the message.
    """
    h, steps, every, _, threads = _settings(h, steps, every, None, threads)
    system = _system(problem, params)
    d = _native.ensemble(system, _method(method), h, steps, _f64(states), every, threads)
    return _ensemble_result([d])


def perturbed_states(
    problem: ProblemLike,
    members: int,
    eps: float,
    *,
    seed: int = 0,
    state: Optional[ArrayLike] = None,
    params: Optional[Mapping[str, float]] = None,
) -> np.ndarray:
    """The initial states of ``geomint ensemble PROBLEM --members M --perturb EPS --seed S``:
    an (M, n) array of perturbations of size ``eps`` of ``state`` (default: the problem's initial
    state). A canonical state moves by ``eps`` times standard normal samples; a state on a Lie
    group moves along the group (``g exp(eps ξ)``), and a constrained one is projected back onto
    its constraints, so every row is a valid ``state``. The same seed gives the same rows."""
    system = _system(problem, params)
    st = None if state is None else _f64(state)
    members, seed, eps = _integer("members", members), _integer("seed", seed), _number("eps", eps)
    if seed < 0:
        raise ValueError(f"seed must be at least 0, got {seed}")
    return _native.perturbed_states(system, members, eps, seed, st)


# -- chaos: MEGNO and Poincaré sections ------------------------------------------------------------


def megno(
    system: ProblemLike,
    method: Optional[str],
    h: Optional[float],
    steps: Optional[int],
    states: ArrayLike,
    *,
    params: Optional[Mapping[str, float]] = None,
    threads: Optional[int] = None,
) -> Dict[str, Any]:
    """The MEGNO chaos indicator of every orbit started from a row of ``states`` (an (M, k)
    array in the ``k`` coordinates of ``System.labels``: ``2n`` on ``T*R^n``; ``g`` row-major,
    then ``μ`` on a Lie group's ``T*G``), after ``steps`` steps of ``h`` of ``method``
    (``None``: the problem's first method, its step, its final time), in parallel on all cores
    (or ``threads``), the GIL released: the numbers of ``geomint chaos`` for the same states, bit
    for bit.

    The deviation vector ``δ`` starts along ``(1, …, 1)/√(2n)`` and is carried by the method's
    tangent map (its own step Jacobian for ``stormer-verlet``, ``symplectic-euler-a/b``,
    ``gauss2``, ``gauss3``, ``rk4``, ``explicit-euler``; central differences otherwise; on
    ``T*G`` central differences of the step in the left-trivialized chart
    ``(g exp(η), μ + δμ)``, ``4 dim G + 1`` steps per step). After
    ``n`` steps (Cincotta & Simó, *Simple tools to compute chaos indicators: the MEGNO*, 2000)::

        Y_k = (2/k) Σ_{j≤k} j ln(|δ_j| / |δ_{j−1}|),     ⟨Y⟩_n = (1/n) Σ_{k≤n} Y_k

    ``⟨Y⟩ → 2`` on a torus (quasi-periodic orbit), ``⟨Y⟩ ≈ λt/2`` grows on a chaotic orbit of
    maximal Lyapunov exponent ``λ``; ``lyapunov`` is the finite-time estimate ``ln|δ_n| / t_n``.

    Returns a dict: ``mean`` (M,) ``⟨Y⟩``, ``lyapunov`` (M,), ``failed`` (M,) bool — ``True``
    where the orbit's step failed (an escape to infinity, a Newton failure), and then ``mean``
    and ``lyapunov`` are NaN — and ``problem``, ``method``, ``h``, ``steps``, ``labels``,
    ``threads``, ``wall_seconds``. The system must be on ``T*R^n`` (a canonical problem of the
    catalogue or a Hamiltonian of formulas: :func:`hamiltonian`, :func:`system_file`) or on a
    Lie group (``"rigid-body"``, ``"heavy-top"``, ``"lagrange-top"``, ``"underwater-vehicle"``,
    :func:`rigid_body`, :func:`heavy_top`, :func:`lie_system`); others raise ``ValueError``
    saying why. Ctrl-C raises ``KeyboardInterrupt`` within a fraction of a
    second.
    """
    h, steps, _, _, threads = _settings(h, steps, None, None, threads)
    sys_ = _system(system, params)
    return _native.megno(sys_, _method(method), h, steps, _f64(states), threads)


def poincare(
    system: ProblemLike,
    method: Optional[str] = None,
    h: Optional[float] = None,
    state: Optional[ArrayLike] = None,
    *,
    section: Optional[str] = None,
    direction: str = "up",
    count: int = 200,
    max_steps: Optional[int] = None,
    params: Optional[Mapping[str, float]] = None,
) -> Dict[str, Any]:
    """The first ``count`` crossings of the Poincaré section ``section`` (``"NAME=VALUE"``, a
    coordinate of ``System.labels``, e.g. ``"q1=0"``; default: the first coordinate at 0) in
    ``direction`` (``"up"``: the coordinate increasing, ``"down"``, ``"both"``) by the orbit of
    ``method`` with step ``h`` from ``state`` (default: the system's own), within ``max_steps``
    steps (default ``⌈50·count/h⌉``; fewer crossings are returned if they run out): the crossings
    of ``geomint poincare`` for the same inputs.

    Each crossing is located by a cubic Hermite estimate between the two states of the step
    that crosses, then refined by re-stepping the method from the step's start, so the state at
    a crossing is a state of the method itself (its section coordinate equals the level to
    round-off, and a symplectic method keeps its energy there as along the orbit).

    Returns a dict: ``t`` (k,) the times, ``states`` (k, 2n) one crossing per row, ``energy``
    (k,) ``H`` at each, ``energy0`` ``H`` of the initial ``state``, and ``labels``, ``section``
    (the coordinate's label), ``index``, ``level``, ``direction``, ``problem``, ``method``,
    ``h``, ``max_steps``. Systems as :func:`megno`; on a Lie group the state is ``g``
    row-major, then ``μ``, the default section the first momentum at 0 (``Pi1=0``), and a
    crossing is estimated by the linear interpolation of the coordinate, then refined by
    re-stepping.
    """
    h, _, _, _, _ = _settings(h, None, None)
    count, max_steps = _integer("count", count), _integer("max_steps", max_steps)
    if section is not None and not isinstance(section, str):
        raise TypeError(f"section must be a string NAME=VALUE, got {type(section).__name__}")
    if not isinstance(direction, str):
        raise TypeError(f"direction must be 'up', 'down' or 'both', got {type(direction).__name__}")
    sys_ = _system(system, params)
    st = None if state is None else _f64(state)
    return _native.poincare(sys_, _method(method), h, st, section, direction, count, max_steps)


# -- exact flows ----------------------------------------------------------------------------------


def kepler_drift(mu: float, q: ArrayLike, p: ArrayLike, t: ArrayLike) -> Tuple[np.ndarray, np.ndarray]:
    """The exact flow of the Kepler problem ``H = |p|²/2 − μ/|q|`` (the drift of the
    Wisdom–Holman methods, ``integrators::splitting::KeplerDrift``): ``(q1, p1)``, each row of
    ``q``, ``p`` (shape ``(n, 3)``, or ``(3,)`` for one state; 2-D states work too) advanced by
    ``t`` (a float, or shape ``(n,)``: one time per row; negative runs backward).

    Danby's universal variables (*Fundamentals of Celestial Mechanics*, 2nd ed., 1988, §6.9),
    valid on every conic: with ``r0 = |q|``, ``η = q·p``, ``β = 2μ/r0 − |p|²`` and the Stumpff
    functions ``c_k(z) = Σ_j (−z)^j/(2j + k)!``, ``G_k(s) = s^k c_k(β s²)``, the root ``s`` of
    Kepler's equation ``r0 G1 + η G2 + μ G3 = t`` (after reducing ``t`` modulo the period on an
    ellipse) gives ``r = r0 G0 + η G1 + μ G2`` and

        q1 = f q + g p,   p1 = ḟ q + ġ p,
        f = 1 − μ G2/r0,  g = r0 G1 + η G2,  ḟ = −μ G1/(r r0),  ġ = 1 − μ G2/r.

    Accuracy (``python/bench/kepler_drift_accuracy.py``, docs/performance.md): relative error
    ``≤ 1e-13 + 10 κ ε`` against a 51-digit reference, ``κ`` the problem's condition number.
    ``ValueError`` for a shape, a non-finite value, ``mu ≤ 0`` or ``q = 0`` (naming the row);
    :class:`IntegrationError` if Kepler's equation is not solved.

    >>> import numpy as np, geomint
    >>> q1, p1 = geomint.kepler_drift(1.0, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], np.pi / 2)
    >>> np.allclose(q1, [0.0, 1.0, 0.0]) and np.allclose(p1, [-1.0, 0.0, 0.0])
    True
    """
    mu = _number("mu", mu)
    times = np.asarray(t, dtype=np.float64)
    return _native.kepler_drift(mu, _f64(q), _f64(p), times)


# -- a simulation that continues ------------------------------------------------------------------


class Simulation:
    """A run that continues: ``Simulation(problem, method, h)``, then :meth:`step` and
    :meth:`integrate` as often as you like, each going on from where the last stopped.

    The steps are those of ``geomint run`` and ``geomint resume`` (the workbench's checkpointed
    run loop), so a simulation stepped to ``n`` steps in any number of calls is
    ``run(problem, method, h, n, every=every)``, bit for bit. It samples every ``every`` steps
    (default 1; a simulation keeps at most 2 000 000 samples); :meth:`result` gives the samples
    and their diagnostics so far as a :class:`RunResult`. :meth:`save` writes the CLI's
    checkpoint in a directory: ``Simulation.load(path)`` and ``geomint resume PATH`` continue it
    bit for bit, and ``Simulation.load`` reads what ``geomint run --out PATH`` wrote.

    Ctrl-C during :meth:`step` or :meth:`integrate` raises ``KeyboardInterrupt`` within a
    fraction of a second; the simulation then stands at the last whole chunk of steps (a few
    hundred at most), ready to go on. A failed step raises :class:`IntegrationError` and leaves
    the simulation at the last good step.
    """

    def __init__(
        self,
        problem: ProblemLike,
        method: Optional[str] = None,
        h: Optional[float] = None,
        *,
        every: int = 1,
        state: Optional[ArrayLike] = None,
        params: Optional[Mapping[str, float]] = None,
        _native_sim: Any = None,
    ) -> None:
        if _native_sim is not None:
            self._sim = _native_sim
            return
        h, _, every, _, _ = _settings(h, None, every)
        system = _system(problem, params)
        st = None if state is None else _f64(state)
        self._sim = _native.Simulation(system, _method(method), h, every, st)

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "Simulation":
        """The simulation of the checkpoint in the directory ``path`` (written by :meth:`save`,
        ``geomint run --out PATH`` or ``geomint resume``), with every check of
        ``geomint resume``: a damaged or foreign checkpoint raises ``ValueError``."""
        return cls(None, _native_sim=_native.Simulation.load(os.fspath(path)))

    def step(self, n: int = 1) -> "Simulation":
        """Takes ``n`` more steps; returns the simulation."""
        self._sim.step(_integer("n", n))
        return self

    def integrate(self, t: float) -> "Simulation":
        """Steps on to the time ``t`` (to ``round(t / h)`` steps in all, as ``t_end`` of
        :func:`run`); returns the simulation."""
        self._sim.integrate(_number("t", t))
        return self

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the CLI's checkpoint (``checkpoint.json`` and its samples) in the directory
        ``path``, created if missing. An N-body system or a system of formulas is written there
        too (``bodies.csv``, ``system.toml``), and the checkpoint names it. A rigid body or heavy
        top built from data cannot be saved (``ValueError``): the checkpoint names catalogue
        problems, N-body systems and systems of formulas only."""
        self._sim.save(os.fspath(path))

    def result(self) -> RunResult:
        """The samples so far (every ``every`` steps, and the current step) with their errors,
        as :func:`run` returns them."""
        return _run_result(self._sim.result())

    @property
    def t(self) -> float:
        """The time, ``steps * h``."""
        return self._sim.t

    @property
    def steps(self) -> int:
        """The steps taken."""
        return self._sim.steps

    @property
    def state(self) -> np.ndarray:
        """The current state, in the coordinates of :attr:`labels`."""
        return self._sim.state

    @property
    def problem(self) -> str:
        """The problem's name."""
        return self._sim.problem

    @property
    def method(self) -> str:
        """The method."""
        return self._sim.method

    @property
    def h(self) -> float:
        """The step size."""
        return self._sim.h

    @property
    def every(self) -> int:
        """The sampling interval."""
        return self._sim.every

    @property
    def labels(self) -> List[str]:
        """The labels of the state coordinates."""
        return self._sim.labels

    @property
    def quantities(self) -> List[Quantity]:
        """The monitored quantities."""
        return _quantities(self._sim.quantities)

    def __repr__(self) -> str:
        return f"<geomint.Simulation {self.problem} / {self.method}, h = {self.h!r}, every {self.every}, t = {self.t!r}>"

