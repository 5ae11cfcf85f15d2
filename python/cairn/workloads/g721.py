"""The core of a G.721 decoder (32 kbit/s ADPCM), the reference for SimBed's G721 task
(kernel/models/rtos/g721.c, which says which blocks of the standard each step is): 4-bit
codes in, linear samples (14 bits, times 4) out; no A-/u-law output stage."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

SIGN, ZERO = 0x400, 0x20
DQLN = (-2048, 4, 135, 213, 273, 323, 373, 425, 425, 373, 323, 273, 213, 135, 4, -2048)
W = (-12, 18, 41, 64, 112, 198, 355, 1122, 1122, 355, 198, 112, 64, 41, 18, -12)
F = (0, 0, 0, 1, 1, 1, 3, 7, 7, 3, 1, 1, 1, 0, 0, 0)


def _int16(v: int) -> int:
    """The standard's 16-bit two's complement arithmetic: sums wrap."""
    v &= 0xFFFF
    return v - 0x10000 if v & 0x8000 else v


def _bits(v: int) -> int:
    return min(v.bit_length(), 15)


def _to_float(negative: bool, mag: int) -> int:
    """Sign, 4-bit exponent, 6-bit mantissa, packed as the firmware packs them."""
    f = ZERO
    if mag:
        e = _bits(mag)
        f = (e << 6) + ((mag << 6) >> e)
    return (f | SIGN if negative else f) & 0xFFFF


def _fmult(coef: int, v: int) -> int:
    an = coef >> 2
    mag = an if an > 0 else (-an) & 0x1FFF
    e = _bits(mag) - 6
    mant = 32 if mag == 0 else (mag >> e if e >= 0 else mag << -e)
    we = e + ((v >> 6) & 0xF) - 13
    wm = (mant * (v & 0x3F) + 0x30) >> 4
    r = (wm << we) & 0x7FFF if we >= 0 else wm >> -we
    return -r if (an < 0) != bool(v & SIGN) else r


@dataclass
class Decoder:
    yl: int = 34816
    yu: int = 544
    dms: int = 0
    dml: int = 0
    ap: int = 0
    a: list[int] = field(default_factory=lambda: [0, 0])
    b: list[int] = field(default_factory=lambda: [0] * 6)
    pk: list[int] = field(default_factory=lambda: [0, 0])
    dq: list[int] = field(default_factory=lambda: [ZERO] * 6)
    sr: list[int] = field(default_factory=lambda: [ZERO] * 2)
    td: bool = False

    def _scale(self) -> int:
        if self.ap >= 256:
            return self.yu
        y = self.yl >> 6
        dif, al = self.yu - y, self.ap >> 2
        if dif > 0:
            y += (dif * al) >> 6
        elif dif < 0:
            y += (dif * al + 0x3F) >> 6
        return y

    def _adapt_pole(self, pk0: int, p: int) -> None:
        flip1 = pk0 ^ self.pk[0]
        a2 = self.a[1] - (self.a[1] >> 7)
        if p != 0:
            fa1 = self.a[0] if flip1 else -self.a[0]
            a2 += -0x100 if fa1 < -8191 else 0xFF if fa1 > 8191 else fa1 >> 5
            if pk0 ^ self.pk[1]:
                a2 = -12288 if a2 <= -12160 else 12288 if a2 >= 12416 else a2 - 0x80
            else:
                a2 = -12288 if a2 <= -12416 else 12288 if a2 >= 12160 else a2 + 0x80
        self.a[1] = a2
        self.a[0] -= self.a[0] >> 8
        if p != 0:
            self.a[0] += -192 if flip1 else 192
        bound = 15360 - a2
        self.a[0] = max(-bound, min(bound, self.a[0]))

    def decode(self, code: int) -> int:
        code &= 0xF
        sezi = _int16(sum(_fmult(b, dq) for b, dq in zip(self.b, self.dq)))
        sei = _int16(sezi + _fmult(self.a[1], self.sr[1]) + _fmult(self.a[0], self.sr[0]))
        sez, se = sezi >> 1, sei >> 1
        y = self._scale()

        dq_neg, dq_mag = bool(code & 8), 0
        dql = DQLN[code] + (y >> 2)
        if dql >= 0:
            dq_mag = ((128 + (dql & 127)) << 7) >> (14 - ((dql >> 7) & 15))
        sr = _int16(se - (dq_mag & 0x3FFF) if dq_neg else se + dq_mag)
        p = _int16(sr - se + sez)

        ylint, ylfrac = self.yl >> 15, (self.yl >> 10) & 0x1F
        thr = 31 << 10 if ylint > 9 else (32 + ylfrac) << ylint
        tr = self.td and (dq_mag & 0x7FFF) > (thr + (thr >> 1)) >> 1

        self.yu = max(544, min(5120, y + ((W[code] * 32 - y) >> 5)))
        self.yl += self.yu + ((-self.yl) >> 6)

        pk0 = 1 if p < 0 else 0
        if tr:
            self.a, self.b = [0, 0], [0] * 6
        else:
            self._adapt_pole(pk0, p)
            for i in range(6):
                b = self.b[i] - (self.b[i] >> 8)
                if dq_mag & 0x7FFF:
                    b += 128 if dq_neg == bool(self.dq[i] & SIGN) else -128
                self.b[i] = _int16(b)
        self.dq = [_to_float(dq_neg, dq_mag & 0x7FFF)] + self.dq[:5]
        self.sr = [SIGN | ZERO if sr <= -32768 else _to_float(sr < 0, abs(sr)), self.sr[0]]
        self.pk = [pk0, self.pk[0]]
        self.td = not tr and self.a[1] < -11776

        fi = F[code] << 9
        self.dms += (fi - self.dms) >> 5
        self.dml += ((fi << 2) - self.dml) >> 7
        if tr:
            self.ap = 256
        elif y < 1536 or self.td or abs((self.dms << 2) - self.dml) >= (self.dml >> 3):
            self.ap += (0x200 - self.ap) >> 4
        else:
            self.ap += (-self.ap) >> 4
        return sr * 4


def decode(codes: Iterable[int]) -> list[int]:
    """The linear samples of 4-bit codes, from the decoder's initial state."""
    d = Decoder()
    return [d.decode(c) for c in codes]
