"""Helpers shared by the tests (imported as ``from support import ...``; pytest puts this
directory on ``sys.path``)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import List, Tuple

import numpy as np


def read_csv(path: Path) -> Tuple[List[str], np.ndarray]:
    """The header and the rows as floats of a CSV file the CLI wrote (``trajectory.csv``, ...)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], np.array([[float(x) for x in r] for r in rows[1:]])


def bits(a: np.ndarray) -> bytes:
    """The bytes of ``a`` as a contiguous float64 array: equal bytes are equal bits."""
    return np.ascontiguousarray(a, dtype=np.float64).tobytes()
