"""The tables of a single-processor scenario (docs/scenario.md) and of its I/O section
(docs/stimuli.md). Field names are the TOML keys; None means "absent: cairn-sim's default".
Numbers that cairn-sim parses with units (clock, sizes, durations) may be given as strings
("16MHz", "256K", "1ms") or numbers, as in the files."""

from __future__ import annotations

import dataclasses
from typing import Any

from .section import Section, key

Number = int | float
Quantity = str | int | float  #: a value with a unit ("1ms", "16MHz", "256K") or a plain number


@dataclasses.dataclass
class Memory(Section):
    flash: Quantity | None = None
    sram: Quantity | None = None
    flash_wait_states: int | None = None


@dataclasses.dataclass
class Energy(Section):
    profile: str | None = None  #: a built-in profile name or a profile TOML file
    voltage_v: float | None = None
    voltage_range: int | None = None

    path_keys = ("profile",)

    def is_path(self, key: str, value: str) -> bool:
        return "/" in value or value.endswith(".toml")


@dataclasses.dataclass
class Measure(Section):
    energy: bool | None = None
    profile_top: int | None = None


@dataclasses.dataclass
class Stack(Section):
    """`[stack]`: the main stack's limit and what its overflow does (docs/scenario.md)."""

    limit: int | str | None = None  #: an address, "0x…", or a symbol of the ELF
    check: str | None = None  #: warn, fault or off


@dataclasses.dataclass
class Stimulus(Section):
    kind: str | None = None  #: periodic, poisson or geometric
    name: str | None = None
    line: int | None = None
    start: Quantity | None = None
    count: int | None = None
    period: Quantity | None = None
    rate_hz: Number | None = None
    interval: Quantity | None = None
    probability: Number | None = None


@dataclasses.dataclass
class Pin(Section):
    index: int | None = None
    edge: str | None = None
    expected_period: Quantity | None = None


@dataclasses.dataclass
class Port(Section):
    index: int | None = None
    dir: str | None = None
    expected_period: Quantity | None = None
    deliver: list[dict[str, Any]] | None = None  #: [{at = duration, value = integer}]
    csv: str | None = None

    path_keys = ("csv",)


@dataclasses.dataclass
class AdcChannel(Section):
    source: str | None = None  #: sine, noise, step, ramp, wav or csv; its keys in `extra`
    delay: Quantity | None = None
    file: str | None = None

    path_keys = ("file",)


@dataclasses.dataclass
class UartInput(Section):
    """Bytes fed to a UART's receive line (docs/stimuli.md, "UART input")."""

    uart: str | None = None
    at: Quantity | None = None
    baud: int | None = None
    bytes: str | None = None
    text: str | None = None
    file: str | None = None

    path_keys = ("file",)


@dataclasses.dataclass
class Adc(Section):
    rate_hz: Number | None = None
    bits: int | None = None
    range: list[Number] | None = None
    channels: list[AdcChannel] | None = key("channel", AdcChannel, "list")


@dataclasses.dataclass
class IoDelay(Section):
    stimulus: str | None = None
    response: str | None = None
    edge: str | None = None
    match: str | None = None
    deadline: Quantity | None = None
    name: str | None = None


@dataclasses.dataclass
class Io(Section):
    bin: Quantity | None = None
    delays: list[IoDelay] | None = key("delay", IoDelay, "list")
