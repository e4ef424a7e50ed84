"""The type stubs name exactly what the extension module has, with the same parameters."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import geomint
from geomint import _native


def stub_tree() -> ast.Module:
    path = Path(geomint.__file__).with_name("_native.pyi")
    assert path.exists(), "the stubs are installed with the package"
    assert Path(geomint.__file__).with_name("py.typed").exists()
    return ast.parse(path.read_text())


def test_stubs_match_the_extension_module():
    tree = stub_tree()
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    constants = {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    constants.discard("_F64")
    public = {n for n in dir(_native) if not n.startswith("__")}
    assert public == set(functions) | set(classes) | constants
    for name, node in functions.items():
        params = [a.arg for a in node.args.args + node.args.kwonlyargs]
        assert params == list(inspect.signature(getattr(_native, name)).parameters), name
    members = {n.name for n in classes["System"].body if isinstance(n, ast.FunctionDef)}
    assert members == {n for n in dir(_native.System) if not n.startswith("_")} | {"__reduce__"}
    # the simulation: its members, and the parameters of its methods (self excepted)
    sim = {n.name: n for n in classes["Simulation"].body if isinstance(n, ast.FunctionDef)}
    assert set(sim) - {"__init__"} == {n for n in dir(_native.Simulation) if not n.startswith("_")}
    for name, node in sim.items():
        params = [a.arg for a in node.args.args + node.args.kwonlyargs if a.arg != "self"]
        if name == "__init__" or not inspect.isgetsetdescriptor(inspect.getattr_static(_native.Simulation, name)):
            target = _native.Simulation if name == "__init__" else getattr(_native.Simulation, name)
            actual = [p for p in inspect.signature(target).parameters if p != "self"]
            assert params == actual, name


def test_the_package_stub_of_geomint_names_the_simulation():
    """``geomint.Simulation``'s public methods and properties, each documented."""
    for name in ["load", "step", "integrate", "save", "result", "t", "steps", "state", "every", "labels"]:
        member = inspect.getattr_static(geomint.Simulation, name)
        doc = (member.__func__ if isinstance(member, classmethod) else member).__doc__
        assert doc and doc.strip(), name


def test_the_package_exports_what_it_documents():
    for name in geomint.__all__:
        assert hasattr(geomint, name), name
    assert geomint.System is _native.System and geomint.IntegrationError is _native.IntegrationError
