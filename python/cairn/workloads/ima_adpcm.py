"""IMA ADPCM encoding, the reference for SimBed's ADPCM task (kernel/models/rtos/ima_adpcm.c):
each sample's difference to the prediction quantised to a sign and three bits of an
adaptive step."""

from __future__ import annotations

from collections.abc import Iterable

STEPS = (
    7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66, 73, 80, 88, 97,
    107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408, 449, 494, 544, 598, 658, 724, 796,
    876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066, 2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428,
    4871, 5358, 5894, 6484, 7132, 7845, 8630, 9493, 10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350,
    22385, 24623, 27086, 29794, 32767,
)  # fmt: skip
INDEX_STEP = (-1, -1, -1, -1, 2, 4, 6, 8)


def encode(samples: Iterable[int]) -> list[int]:
    """The 4-bit codes (bit 3 the sign) of 16-bit samples, from the encoder's initial state."""
    predicted, index, codes = 0, 0, []
    for sample in samples:
        step = STEPS[index]
        diff = sample - predicted
        sign = 8 if diff < 0 else 0
        diff = abs(diff)
        code, moved = 0, step >> 3
        for bit in (4, 2, 1):
            if diff >= step:
                code |= bit
                diff -= step
                moved += step
            step >>= 1
        predicted = max(-32768, min(32767, predicted - moved if sign else predicted + moved))
        index = max(0, min(len(STEPS) - 1, index + INDEX_STEP[code]))
        codes.append(code | sign)
    return codes
