"""The test signal SimBed's UP, DOWN, ADPCM and G721 tasks read (kernel/models/rtos/rtos.h,
rtos_signal) and what UP and DOWN make of it: the references the firmware's outputs are
checked against."""

from __future__ import annotations


def _int16(v: int) -> int:
    v &= 0xFFFF
    return v - 0x10000 if v & 0x8000 else v


def signal(n: int, base: int = 0) -> int:
    """The input job's n-th sample: white noise under a triangular envelope that goes from
    silence to full scale and back every 256 samples, offset by the input port's value."""
    noise = _int16(((n * 2654435761) & 0xFFFFFFFF) >> 16)
    envelope = n & 0x7F
    if n & 0x80:
        envelope = 127 - envelope
    return _int16(base + ((noise * envelope) >> 7))


def up(outputs: int, ratio: int, base: int = 0) -> list[int]:
    """UP's outputs: a new sample every `ratio` outputs, the ones between interpolated on a
    line from the sample before it (integer arithmetic as the firmware's)."""
    shift = ratio.bit_length() - 1
    out, prev, cur = [], 0, 0
    for n in range(outputs):
        phase = n % ratio
        if phase == 0:
            prev, cur = cur, signal(n >> shift, base)
        out.append(prev + (((cur - prev) * phase) >> shift))
    return out


def down(outputs: int, ratio: int, base: int = 0) -> list[int]:
    """DOWN's outputs: the mean (rounded down) of each `ratio` samples."""
    shift = ratio.bit_length() - 1
    return [sum(signal(i, base) for i in range(o * ratio, (o + 1) * ratio)) >> shift for o in range(outputs)]


def g721_code(n: int, base: int = 0) -> int:
    """The G721 task's n-th code: the top four bits of the n-th sample."""
    return (signal(n, base) >> 12) & 0xF
