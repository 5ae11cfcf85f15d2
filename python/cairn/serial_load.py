"""An application description sent over a module's UART as one serial frame.

The frame is the kernel's (kernel/include/cairn/serial_frame.h): 0x7E, the payload's length
(two bytes, little-endian), the payload, and CRC-16/CCITT-FALSE over length and payload
(two bytes, big-endian). The payload is a relative description in the application manager's
wire format (kernel/include/cairn/app_wire.h), computed here; build/fw/pipeline-uart.elf's
module 0 decodes it and hands it to its manager (docs/distributed.md, "Applications"):

    python -m cairn.serial_load                    # writes build/serial/pipeline.frame
    python -m cairn.serial_load --out FILE

A file that cannot be written is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from cairn.app_load import define
from cairn.paths import repo_root

FRAME_FILE = repo_root() / "build" / "serial" / "pipeline.frame"



def hex_define(path: str, name: str) -> int:
    """A hexadecimal ``#define`` of a kernel header (``0xNNu``)."""
    m = re.search(rf"#define {name} 0x([0-9A-Fa-f]+)u?\b", (repo_root() / path).read_text())
    if not m:
        raise ValueError(f"{name} is not a hexadecimal define in {path}")
    return int(m.group(1), 16)


START = hex_define("kernel/include/cairn/serial_frame.h", "CAIRN_SERIAL_START")
RELATIVE = hex_define("kernel/include/cairn/app_wire.h", "CAIRN_APP_WIRE_RELATIVE")
PORT_APP_BASE = define("kernel/include/cairn/msg.h", "CAIRN_PORT_APP_BASE")
DST_TASK = 1  # cairn_dst_kind_t's CAIRN_DST_TASK


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (polynomial 0x1021), continuing from crc, as cairn_crc16."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def frame(payload: bytes) -> bytes:
    """payload (1..65535 bytes) as a serial frame, as cairn_serial_frame_write writes it."""
    if not 1 <= len(payload) <= 0xFFFF:
        raise ValueError(f"a frame holds 1..65535 bytes, not {len(payload)}")
    body = len(payload).to_bytes(2, "little") + payload
    return bytes([START]) + body + crc16(body).to_bytes(2, "big")


@dataclass(frozen=True)
class Task:
    """One task of a description: its image, priority, module and routes (task, port n)."""

    image: int
    prio: int
    module: int
    routes: list[tuple[int, int]] = field(default_factory=list)
    flags: int = 0


def description(tasks: list[Task]) -> bytes:
    """A relative description (no groups), as cairn_app_wire_write writes it."""
    out = bytearray([RELATIVE, len(tasks), 0, 0]) + bytes(len(tasks))
    for t in tasks:
        out += bytes([t.image, t.prio, t.flags, t.module, len(t.routes), 0])
        for task, port in t.routes:
            out += bytes([DST_TASK, task, PORT_APP_BASE + port])
    return bytes(out)


#: kernel/apps/pipeline's spread pipeline: sensor on 0 -> filter on 1 -> logger on 2.
PIPELINE = [Task(0, 1, 0, [(1, 0)]), Task(1, 2, 1, [(2, 0)]), Task(2, 3, 2)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=FRAME_FILE)
    args = ap.parse_args(argv)
    data = frame(description(PIPELINE))
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(data)
    except OSError as e:
        print(f"serial_load: {args.out}: {e.strerror}", file=sys.stderr)
        return 2
    print(f"{args.out}: {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
