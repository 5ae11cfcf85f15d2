"""Firmware a study needs, built through the Makefile (`make build/fw/NAME.elf`), so a
sweep runs exactly what `make build` and the tests run; never an ad-hoc compiler call."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..paths import firmware_dir, repo_root


class FirmwareBuildError(RuntimeError):
    """make could not build the firmware; the message is make's last lines."""


def build_firmware(*names: str) -> list[Path]:
    """Make build/fw/NAME.elf for each name (up to date: make does nothing) and return the
    paths. Runs make with CARGO=true: building firmware never rebuilds the simulator."""
    root = repo_root()
    paths = [firmware_dir() / f"{n}.elf" for n in names]
    targets = [str(p.relative_to(root)) for p in paths]
    p = subprocess.run(["make", "-s", "CARGO=true", *targets], cwd=root, capture_output=True, text=True, check=False)
    if p.returncode != 0:
        tail = "\n".join((p.stdout + p.stderr).strip().splitlines()[-5:])
        raise FirmwareBuildError(f"make {' '.join(targets)} failed (status {p.returncode}):\n{tail}")
    return paths
