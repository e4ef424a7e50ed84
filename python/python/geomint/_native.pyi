"""Type stubs of ``geomint._native``, the extension module (Rust, PyO3). Use the functions of
``geomint`` itself; these are their building blocks."""

from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

_F64 = npt.NDArray[np.float64]

MAX_THREADS: int
"""The most threads an ensemble runs on (the machine's parallelism); more are capped."""

class IntegrationError(RuntimeError):
    """A step of the integration failed; the message is the one the CLI prints."""

class System:
    """A system to integrate (a catalogue problem or one built from data); immutable, picklable."""

    @property
    def name(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def family(self) -> str: ...
    @property
    def labels(self) -> List[str]: ...
    @property
    def methods(self) -> List[str]: ...
    @property
    def defaults(self) -> Tuple[float, float]: ...
    @property
    def quantities(self) -> List[Tuple[str, str, int, str]]: ...
    @property
    def params(self) -> Dict[str, float]: ...
    @property
    def initial_state(self) -> _F64: ...
    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]: ...

def problems() -> List[Tuple[str, str]]: ...
def methods(system: System) -> List[Tuple[str, str]]: ...
def problem(name: str, params: Optional[List[Tuple[str, float]]] = None) -> System: ...
def _problem_from_dict(name: str, params: Dict[str, float]) -> System: ...
def nbody(masses: _F64, positions: _F64, velocities: _F64, G: float = 1.0) -> System: ...
def nbody_file(path: str, G: float = 1.0) -> System: ...
def hamiltonian(
    H: Optional[str] = None,
    *,
    q: List[str],
    p: List[str],
    q0: List[float],
    p0: List[float],
    T: Optional[str] = None,
    V: Optional[str] = None,
    params: Optional[Dict[str, float]] = None,
    invariants: Optional[Dict[str, str]] = None,
    name: Optional[str] = None,
    h: Optional[float] = None,
    t_end: Optional[float] = None,
) -> System: ...
def lagrangian(
    L: str,
    *,
    q: List[str],
    v: List[str],
    q0: List[float],
    v0: List[float],
    params: Optional[Dict[str, float]] = None,
    invariants: Optional[Dict[str, str]] = None,
    name: Optional[str] = None,
    h: Optional[float] = None,
    t_end: Optional[float] = None,
) -> System: ...
def system_file(path: str) -> System: ...
def _system_from_toml(text: str) -> System: ...
def lie_system(
    inertia: List[float],
    Pi0: List[float],
    *,
    V: Optional[str] = None,
    params: Optional[Dict[str, float]] = None,
    R0: Optional[List[float]] = None,
    R0_axis_angle: Optional[List[float]] = None,
    x0: Optional[List[float]] = None,
    P0: Optional[List[float]] = None,
    group: Optional[str] = None,
    name: Optional[str] = None,
    h: Optional[float] = None,
    t_end: Optional[float] = None,
) -> System: ...
def _lie_system_from_toml(text: str) -> System: ...
def _callback_hamiltonian(
    grad_T: Any,
    grad_V: Any,
    q0: List[float],
    p0: List[float],
    T: Any = None,
    V: Any = None,
    h: Optional[float] = None,
    t_end: Optional[float] = None,
    keep: Any = None,
) -> System: ...
def _vector_field(
    f: Any,
    y0: List[float],
    t0: float = 0.0,
    invariants: List[Tuple[str, Any]] = ...,
    h: Optional[float] = None,
    t_end: Optional[float] = None,
    keep: Any = None,
) -> System: ...
def perturbed_states(
    system: System, members: int, eps: float, seed: int = 0, state: Optional[_F64] = None
) -> _F64: ...
def kepler_drift(mu: float, q: _F64, p: _F64, t: _F64) -> Tuple[_F64, _F64]: ...
def rigid_body(inertia: _F64, Pi: _F64, R: Optional[_F64] = None) -> System: ...
def heavy_top(
    inertia: _F64, Pi: _F64, R: Optional[_F64] = None, mgl: float = 1.0, chi: Optional[_F64] = None
) -> System: ...
def run(
    system: System,
    method: Optional[str] = None,
    h: Optional[float] = None,
    steps: Optional[int] = None,
    t_end: Optional[float] = None,
    every: Optional[int] = None,
    state: Optional[_F64] = None,
) -> Dict[str, Any]: ...
def _at_times(
    system: System, method: str, h: float, steps: int, taus: _F64, state: Optional[_F64] = None
) -> Dict[str, Any]: ...
def ensemble(
    system: System,
    method: Optional[str],
    h: Optional[float],
    steps: Optional[int],
    states: _F64,
    every: Optional[int] = None,
    threads: Optional[int] = None,
    first_member: int = 0,
) -> Dict[str, Any]: ...
def check_ensemble(
    system: System,
    method: Optional[str],
    h: Optional[float],
    steps: Optional[int],
    shape: List[int],
    every: Optional[int] = None,
    threads: Optional[int] = None,
) -> None: ...
def megno(
    system: System,
    method: Optional[str],
    h: Optional[float],
    steps: Optional[int],
    states: _F64,
    threads: Optional[int] = None,
) -> Dict[str, Any]: ...
def check_megno(
    system: System,
    method: Optional[str],
    h: Optional[float],
    steps: Optional[int],
    shape: List[int],
    threads: Optional[int] = None,
) -> None: ...
def poincare(
    system: System,
    method: Optional[str] = None,
    h: Optional[float] = None,
    state: Optional[_F64] = None,
    section: Optional[str] = None,
    direction: str = "up",
    count: int = 200,
    max_steps: Optional[int] = None,
) -> Dict[str, Any]: ...

class Simulation:
    """A run that continues, on the workbench's checkpointed run loop (see ``geomint.Simulation``)."""

    def __init__(
        self,
        system: System,
        method: Optional[str] = None,
        h: Optional[float] = None,
        every: int = 1,
        state: Optional[_F64] = None,
    ) -> None: ...
    @staticmethod
    def load(path: str) -> "Simulation": ...
    def step(self, n: int) -> None: ...
    def integrate(self, t: float) -> None: ...
    def save(self, path: str) -> None: ...
    def result(self) -> Dict[str, Any]: ...
    @property
    def steps(self) -> int: ...
    @property
    def t(self) -> float: ...
    @property
    def state(self) -> _F64: ...
    @property
    def problem(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def h(self) -> float: ...
    @property
    def every(self) -> int: ...
    @property
    def labels(self) -> List[str]: ...
    @property
    def quantities(self) -> List[Tuple[str, str, int, str]]: ...
