"""Where things are in a Cairn checkout."""

from __future__ import annotations

import os
from pathlib import Path


def repo_root() -> Path:
    """The repository root: $CAIRN_ROOT if set, else the nearest ancestor of this package (or
    of the working directory) that holds both `python/cairn` and `kernel` or `sim`."""
    env = os.environ.get("CAIRN_ROOT")
    if env:
        return Path(env).resolve()
    for start in (Path(__file__).resolve().parent, Path.cwd().resolve()):
        for d in (start, *start.parents):
            if (d / "python" / "cairn").is_dir() and ((d / "kernel").is_dir() or (d / "sim").is_dir()):
                return d
    raise FileNotFoundError("cannot find the Cairn repository root (set CAIRN_ROOT)")


def build_dir() -> Path:
    return repo_root() / "build"


def sim_binary() -> Path:
    """build/bin/cairn-sim (override with $CAIRN_SIM)."""
    env = os.environ.get("CAIRN_SIM")
    return Path(env) if env else build_dir() / "bin" / "cairn-sim"


def firmware_dir() -> Path:
    return build_dir() / "fw"


def firmware(name: str) -> Path:
    """build/fw/test-<name>.elf for a firmware test name."""
    return firmware_dir() / f"test-{name}.elf"


def expected_toml() -> Path:
    return repo_root() / "kernel" / "tests" / "sim" / "expected.toml"
