"""The cairn package type-checks (mypy, strict, config in python/pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[1]


def test_mypy_clean() -> None:
    p = subprocess.run(
        [sys.executable, "-m", "mypy", "cairn", "tests"],
        cwd=PYTHON_DIR,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stdout + p.stderr
