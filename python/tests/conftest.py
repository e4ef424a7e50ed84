"""Shared fixtures: the workbench CLI binary (for the bit-for-bit and message comparisons).

The binary is ``$GEOMINT_CLI`` if set, else ``target/release/geomint`` of the checkout (or of
``$CARGO_TARGET_DIR``), built with ``cargo build --release --bin geomint`` when missing
(``.ci/run`` builds it before the Python step, so CI never builds it here).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _cli_path() -> Path:
    if os.environ.get("GEOMINT_CLI"):
        return Path(os.environ["GEOMINT_CLI"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    if not target.is_absolute():
        target = REPO / target
    return target / "release" / "geomint"


@pytest.fixture(scope="session")
def cli() -> Path:
    path = _cli_path()
    if not path.exists():
        cargo = shutil.which("cargo")
        if cargo is None:
            pytest.fail(f"the CLI binary {path} is missing and cargo is not on PATH to build it")
        subprocess.run([cargo, "build", "--release", "--quiet", "--bin", "geomint"], cwd=REPO, check=True)
    assert path.exists(), path
    return path


class CliRun:
    def __init__(self, proc: subprocess.CompletedProcess, out: Path):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.out = out

    @property
    def error(self) -> str:
        """The message of a failed run: stderr without the leading ``error: ``."""
        line = self.stderr.strip()
        assert line.startswith("error: "), self.stderr
        return line[len("error: ") :]


@pytest.fixture
def run_cli(cli, tmp_path):
    def go(*args: str) -> CliRun:
        out = tmp_path / "out"
        proc = subprocess.run(
            [str(cli), "run", *args, "--quiet", "--out", str(out)], capture_output=True, text=True, timeout=300
        )
        return CliRun(proc, out)

    return go
