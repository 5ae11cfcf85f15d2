"""`Device`: several processors on a bus, with injected faults (docs/device.md)."""

from __future__ import annotations

import dataclasses

from .processor import Processor
from .document import Document
from .section import Section, key
from .tables import Number, Quantity


@dataclasses.dataclass
class Bus(Section):
    throughput: str | None = None  #: "64MB/s"
    slot: Quantity | None = None
    slot_order: list[str] | None = None
    latency: Quantity | None = None
    header_bytes: int | None = None
    max_frame: int | None = None
    tx_fifo: int | None = None
    rx_fifo: int | None = None
    byte_energy_nj: Number | None = None
    idle_power_uw: Number | None = None


@dataclasses.dataclass
class Fault(Section):
    action: str | None = None  #: drop, corrupt, delay (frames); power_off, reset (modules)
    src: str | None = None
    dst: str | None = None
    first_bytes: list[int] | None = None
    every: int | None = None
    probability: Number | None = None
    delay: Quantity | None = None
    processor: str | None = None
    at: Quantity | None = None
    on_trace: int | None = None
    count: int | None = None
    trace_mask: int | None = None


@dataclasses.dataclass
class Device(Document):
    name: str | None = None
    bus: Bus | None = key("bus", Bus)
    processors: list[Processor] | None = key("processor", Processor, "list")
    faults: list[Fault] | None = key("fault", Fault, "list")

    def processor(self, name: str) -> Processor:
        for p in self.processors or []:
            if p.name == name:
                return p
        raise KeyError(f"no processor named {name!r} (have: {', '.join(str(p.name) for p in self.processors or [])})")
