"""FP8 conversions (``cvt`` with ``.e4m3x2`` / ``.e5m2x2``, sm_89+).

GPGPU-Sim has no FP8 (it predates it); semantics follow the PTX ISA: packed pairs in a 16-bit
value, the first source in the *upper* byte; f32/f16x2 -> FP8 requires ``.rn.satfinite``
(round to nearest even, out-of-range and infinities clamp to the largest finite magnitude,
NaN -> the canonical NaN 0x7F), ``.relu`` clamps negatives to +0; FP8 -> f16x2 is exact.

E4M3: 1-4-3 bits, bias 7, no infinities, S.1111.111 is NaN, largest finite 448.  E5M2: 1-5-2
bits, bias 15, IEEE-like (the top byte of an f16), largest finite 57344.  Encoding uses a
sorted table of the 128 non-negative codes and ``searchsorted``; decoding is a 256-entry table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import _fp as fp
from ._float import quiet

Fn = Callable[..., Any]
NAN_CODE = 0x7F


def _value(code: int, fmt: str) -> float:
    sign = -1.0 if code & 0x80 else 1.0
    if fmt == "e4m3":
        e, m = (code >> 3) & 0xF, code & 7
        if e == 0xF and m == 7:
            return float("nan")
        return sign * (m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
    e, m = (code >> 2) & 0x1F, code & 3
    if e == 0x1F:
        return sign * float("inf") if m == 0 else float("nan")
    return sign * (m / 4 * 2.0 ** -14 if e == 0 else (1 + m / 4) * 2.0 ** (e - 15))


_DECODE = {f: np.array([_value(c, f) for c in range(256)], dtype=np.float64) for f in ("e4m3", "e5m2")}
_DECODE_F16 = {f: _DECODE[f].astype(np.float16).view(np.uint16) for f in _DECODE}
_MAX_CODE = {"e4m3": 0x7E, "e5m2": 0x7B}
_POS = {f: _DECODE[f][: _MAX_CODE[f] + 1] for f in _DECODE}  # finite non-negative values, increasing


def encode(x: np.ndarray, fmt: str, relu: bool) -> np.ndarray:
    """float64 values -> FP8 codes (uint16 0..255), RN-even with satfinite."""
    x = np.asarray(x, dtype=np.float64)
    pos = _POS[fmt]
    top = _MAX_CODE[fmt]
    ax = np.minimum(np.abs(x), pos[-1])  # satfinite (also for inf); NaN stays NaN
    hi = np.clip(np.searchsorted(pos, ax, side="left"), 0, top)
    lo = np.maximum(hi - 1, 0)
    dlo = ax - pos[lo]
    dhi = pos[hi] - ax
    pick_hi = (dhi < dlo) | ((dhi == dlo) & (hi % 2 == 0))
    code = np.where(pick_hi, hi, lo).astype(np.uint16)
    neg = np.signbit(x)
    code = code | np.where(neg, np.uint16(0x80), np.uint16(0))
    if relu:
        code = np.where(neg, np.uint16(0), code)
    return np.where(np.isnan(x), np.uint16(NAN_CODE), code)


def decode_f16(codes: np.ndarray, fmt: str) -> np.ndarray:
    """FP8 codes -> raw f16 bits (exact)."""
    return _DECODE_F16[fmt][np.asarray(codes).astype(np.intp) & 0xFF]


def pack_from_f32(fmt: str, relu: bool) -> Fn:
    """``cvt.rn.satfinite{.relu}.<fmt>x2.f32 d, a, b``: d = {hi: a, lo: b}."""
    def fn(a, b):
        hi = encode(np.asarray(a).astype(np.float64), fmt, relu)
        lo = encode(np.asarray(b).astype(np.float64), fmt, relu)
        return (lo | (hi << np.uint16(8))).astype(np.uint16)
    return quiet(fn)


def pack_from_f16x2(fmt: str, relu: bool) -> Fn:
    """``cvt.rn.satfinite{.relu}.<fmt>x2.f16x2 d, a``: each half to one byte, in place."""
    def fn(a):
        lo16, hi16 = fp.split_x2(a)
        lo = encode(fp.f16_from_raw(lo16).astype(np.float64), fmt, relu)
        hi = encode(fp.f16_from_raw(hi16).astype(np.float64), fmt, relu)
        return (lo | (hi << np.uint16(8))).astype(np.uint16)
    return quiet(fn)


def unpack_to_f16x2(fmt: str, relu: bool) -> Fn:
    """``cvt.rn{.relu}.f16x2.<fmt>x2 d, a``: each byte to one f16 half."""
    def fn(a):
        x = np.asarray(a).astype(np.uint16)
        lo = decode_f16(x & np.uint16(0xFF), fmt)
        hi = decode_f16(x >> np.uint16(8), fmt)
        if relu:
            lo = np.where((lo & np.uint16(0x8000)) != 0, np.uint16(0), lo)
            hi = np.where((hi & np.uint16(0x8000)) != 0, np.uint16(0), hi)
        return fp.join_x2(lo, hi)
    return fn
