"""Callbacks of :func:`geomint.Hamiltonian`: a compiled function (a ``scipy.LowLevelCallable``,
a ``numba.cfunc``, a ctypes function pointer or an integer address) becomes its address and user
data, checked against the documented signature where its signature can be seen; a Python
callable stays as it is."""

from __future__ import annotations

import ctypes
from typing import Any, List, Optional, Tuple

GRADIENT = "void (int, double *, double *, void *)"
"""``void grad(int n, const double *x, double *out, void *user_data)``: ``out = ∇f(x)``."""

ENERGY = "double (int, double *, void *)"
"""``double f(int n, const double *x, void *user_data)``: ``f(x)``."""

FIELD = "void (int, double, double *, double *, void *)"
"""``void f(int n, double t, const double *y, double *out, void *user_data)``: ``out = f(t, y)``."""


def _normal(signature: str) -> str:
    return "".join(signature.replace("const", "").split())


def _ctype_name(t: Any) -> str:
    if t is None:
        return "void"
    if t in (ctypes.c_int, ctypes.c_int32):
        return "int"
    if t is ctypes.c_double:
        return "double"
    if t is ctypes.c_void_p:
        return "void *"
    if isinstance(t, type) and issubclass(t, ctypes._Pointer):  # type: ignore[attr-defined]
        return _ctype_name(t._type_) + " *"
    return getattr(t, "__name__", repr(t))


def _ctypes_signature(f: Any) -> Optional[str]:
    argtypes = getattr(f, "argtypes", None)
    if argtypes is None:
        return None
    return f"{_ctype_name(f.restype)} ({', '.join(_ctype_name(a) for a in argtypes)})"


def _capsule_pointer(capsule: Any, context: bool = False) -> int:
    """The pointer of a PyCapsule (or its context)."""
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_GetContext.restype = ctypes.c_void_p
    api.PyCapsule_GetContext.argtypes = [ctypes.py_object]
    if context:
        return int(api.PyCapsule_GetContext(capsule) or 0)
    return int(api.PyCapsule_GetPointer(capsule, api.PyCapsule_GetName(capsule)) or 0)


def _address(x: Any) -> int:
    """The address held by a user-data object: an int, a ctypes pointer, a PyCapsule, None."""
    if x is None:
        return 0
    if isinstance(x, int):
        return x
    if type(x).__name__ == "PyCapsule":
        return _capsule_pointer(x)
    try:
        return int(ctypes.cast(x, ctypes.c_void_p).value or 0)
    except (TypeError, ctypes.ArgumentError):
        raise TypeError(f"user_data must be an int, a ctypes pointer or a PyCapsule, got {type(x).__name__}") from None


def _check(name: str, signature: Optional[str], expected: str) -> None:
    if signature is not None and _normal(signature) != _normal(expected):
        raise ValueError(f"{name} has the signature {signature!r}; a {name} callback must be {expected!r}")


def convert(name: str, f: Any, expected: str, user_data: Any, keep: List[Any]) -> Any:
    """``f`` as ``_native`` takes it: ``(address, user_data)`` of a compiled function, or the
    Python callable itself. The objects that own the code are appended to ``keep``."""
    if f is None:
        return None
    t = type(f)
    if t.__name__ == "LowLevelCallable" and t.__module__.startswith("scipy"):
        _check(name, f.signature, expected)
        keep.append(f)
        capsule = tuple.__getitem__(f, 0)  # (capsule, function, user_data): the capsule scipy made
        data = _capsule_pointer(capsule, context=True) if user_data is None else _address(user_data)
        return (_capsule_pointer(capsule), data)
    if hasattr(f, "address") and hasattr(f, "ctypes") and hasattr(f, "native_name"):  # numba.cfunc
        _check(name, _ctypes_signature(f.ctypes), expected)
        keep.append(f)
        return (int(f.address), _address(user_data))
    if isinstance(f, ctypes._CFuncPtr):  # type: ignore[attr-defined]
        _check(name, _ctypes_signature(f), expected)
        keep.append(f)
        return (int(ctypes.cast(f, ctypes.c_void_p).value or 0), _address(user_data))
    if isinstance(f, int) and not isinstance(f, bool):
        return (f, _address(user_data))
    if callable(f):
        return f
    raise TypeError(
        f"{name} must be a Python function or a compiled function (a scipy.LowLevelCallable, a numba.cfunc, a "
        f"ctypes function or an address), got {type(f).__name__}"
    )


def callbacks(
    grad_q: Any, grad_p: Any, V: Any, T: Any, user_data: Any
) -> Tuple[Any, Any, Any, Any, Tuple[Any, ...]]:
    keep: List[Any] = [user_data]
    gv = convert("grad_q", grad_q, GRADIENT, user_data, keep)
    gt = convert("grad_p", grad_p, GRADIENT, user_data, keep)
    v = convert("V", V, ENERGY, user_data, keep)
    t = convert("T", T, ENERGY, user_data, keep)
    return gv, gt, v, t, tuple(keep)


def field_callbacks(f: Any, invariants: Any, user_data: Any) -> Tuple[Any, List[Tuple[str, Any]], Tuple[Any, ...]]:
    """The field and the invariants of :func:`geomint.ode` as ``_native`` takes them."""
    keep: List[Any] = [user_data]
    field = convert("f", f, FIELD, user_data, keep)
    if field is None:
        raise TypeError("f must be a Python function or a compiled function, got None")
    gs = [(str(name), convert("invariant", g, ENERGY, user_data, keep)) for name, g in invariants.items()]
    if any(g is None for _, g in gs):
        raise TypeError("an invariant must be a Python function or a compiled function, got None")
    return field, gs, tuple(keep)
