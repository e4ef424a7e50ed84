"""Every Python snippet of docs/python.md runs as a script of its own (in a fresh interpreter,
in a temporary directory where ``examples/`` is the checkout's). A snippet fenced as
```` ```python cluster ```` needs a running Dask scheduler or Slurm: it is compiled only."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "python.md"


def snippets():
    text = DOC.read_text()
    out = []
    for m in re.finditer(r"^```python([^\n]*)\n(.*?)^```", text, flags=re.S | re.M):
        line = text.count("\n", 0, m.start()) + 1
        out.append(pytest.param(m.group(1).strip(), m.group(2), id=f"line{line}"))
    return out


def test_the_page_has_snippets():
    assert len(snippets()) >= 8


@pytest.mark.parametrize("info, code", snippets())
def test_snippet_runs_as_a_script(info, code, tmp_path):
    compile(code, "snippet", "exec")
    if info == "cluster":
        return
    assert info == "", f"unknown fence ```python {info}"
    if "matplotlib" in code and importlib.util.find_spec("matplotlib") is None:
        pytest.skip("matplotlib is not installed")
    if "import numba" in code and importlib.util.find_spec("numba") is None:
        pytest.skip("numba is not installed")
    (tmp_path / "examples").symlink_to(REPO / "examples")
    script = tmp_path / "snippet.py"
    script.write_text(code)
    env = dict(os.environ, MPLBACKEND="Agg")
    proc = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env
    )
    assert proc.returncode == 0, f"{code}\n--- stderr:\n{proc.stderr}"
