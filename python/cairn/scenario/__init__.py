"""Typed scenario and device files for cairn-sim (docs/scenario.md, docs/device.md,
docs/stimuli.md): build or load them, change them, write exactly the TOML cairn-sim reads,
and check them with cairn-sim itself (docs/experiments.md)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from .device import Bus, Device, Fault
from .document import Document, ScenarioError
from .processor import Processor, Scenario
from .tables import Adc, AdcChannel, Energy, Io, IoDelay, Measure, Memory, Pin, Port, Stack, Stimulus, UartInput


def load(path: str | os.PathLike[str]) -> Scenario | Device:
    """A device when the file has `[[processor]]` tables (as cairn-sim tells them apart),
    else a single-processor scenario."""
    p = Path(path)
    if "processor" in tomllib.loads(p.read_text()):
        return Device.load(p)
    return Scenario.load(p)


__all__ = [
    "Adc", "AdcChannel", "Bus", "Device", "Document", "Energy", "Fault", "Io", "IoDelay",
    "Measure", "Memory", "Pin", "Port", "Processor", "Scenario", "ScenarioError", "Stack", "Stimulus", "UartInput",
    "load",
]  # fmt: skip
