"""SimBed's P-IPC and FIR tasks' outputs (kernel/models/rtos/rtos.c): the references the
firmware's outputs are checked against. The input job reads the input port's value plus its
own count; P-IPC's output job writes that value, FIR's a 128-tap filter over the last 128."""

from __future__ import annotations

TAPS = tuple((i * 37 % 255) - 127 for i in range(128))


def _int16(v: int) -> int:
    v &= 0xFFFF
    return v - 0x10000 if v & 0x8000 else v


def _int32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def pipc(outputs: int, base: int = 0) -> list[int]:
    """P-IPC's outputs, read as signed 32-bit words: the n-th is the input plus n."""
    return [_int32(base + n) for n in range(outputs)]


def fir(outputs: int, base: int = 0) -> list[int]:
    """FIR's outputs: the filter's sum over samples n - 127 .. n (zero before the first), each
    sample the input plus its count cut to 16 bits, oldest against the first tap."""
    xs = [_int16(base + n) for n in range(outputs)]
    return [_int32(sum(t * xs[j] for t, j in zip(TAPS, range(n - 127, n + 1)) if j >= 0)) for n in range(outputs)]
