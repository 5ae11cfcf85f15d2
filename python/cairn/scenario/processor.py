"""`Scenario`: one processor's run (docs/scenario.md), and `Processor`, the same plus the keys a
device's `[[processor]]` table adds (docs/device.md)."""

from __future__ import annotations

import dataclasses
from typing import Any

from .document import Document
from .section import key
from .tables import Adc, Energy, Io, Measure, Memory, Pin, Port, Quantity, Stack, Stimulus, UartInput


@dataclasses.dataclass
class Scenario(Document):
    firmware: str | None = None  #: the ELF, relative to the file's folder (or absolute)
    board: str | None = None  #: a board name or a board TOML file
    clock: Quantity | None = None
    memory: Memory | None = key("memory", Memory)
    energy: Energy | None = key("energy", Energy)
    categories: dict[str, str | list[str]] | None = None  #: category = pattern(s), in order
    measure: Measure | None = key("measure", Measure)
    rtos: str | dict[str, Any] | None = None
    stack: Stack | None = key("stack", Stack)
    stimuli: list[Stimulus] | None = key("stimulus", Stimulus, "list")
    pins: dict[str, Pin] | None = key("pin", Pin, "dict")
    ports: dict[str, Port] | None = key("port", Port, "dict")
    adc: Adc | None = key("adc", Adc)
    io: Io | None = key("io", Io)
    uart_inputs: list[UartInput] | None = key("uart_input", UartInput, "list")

    path_keys = ("firmware", "board")

    def is_path(self, key: str, value: str) -> bool:
        return key == "firmware" or value.endswith(".toml")


@dataclasses.dataclass
class Processor(Scenario):
    name: str | None = None
    core: str | None = None
    address: int | None = None
    power: str | None = None  #: "on" or "off"
    rtc_ppm: float | None = None
