"""PTX fundamental type -> numpy dtype mapping (the register/operand representation contract).

Floats that numpy has natively are stored as such (``f16`` -> float16, ``f32``, ``f64``);
formats numpy lacks are stored as their raw bits (``bf16`` -> uint16, ``f16x2``/``bf16x2`` ->
uint32 with element 0 in the low half, ``tf32`` -> uint32, FP8 -> uint8/uint16).  Untyped
``.bN`` is unsigned.  ``pred`` is bool.  ``b128`` is 16 raw bytes (``V16``).
"""

from __future__ import annotations

import numpy as np

from gpgpusim.errors import NotSupportedError
from gpgpusim.ptx.ir import TYPE_SIZES

_DTYPES: dict[str, np.dtype] = {
    "s8": np.dtype(np.int8), "s16": np.dtype(np.int16), "s32": np.dtype(np.int32), "s64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8), "u16": np.dtype(np.uint16), "u32": np.dtype(np.uint32), "u64": np.dtype(np.uint64),
    "b8": np.dtype(np.uint8), "b16": np.dtype(np.uint16), "b32": np.dtype(np.uint32), "b64": np.dtype(np.uint64),
    "b128": np.dtype("V16"),
    "f16": np.dtype(np.float16), "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
    "bf16": np.dtype(np.uint16), "f16x2": np.dtype(np.uint32), "bf16x2": np.dtype(np.uint32),
    "tf32": np.dtype(np.uint32),
    "e4m3": np.dtype(np.uint8), "e5m2": np.dtype(np.uint8),
    "e4m3x2": np.dtype(np.uint16), "e5m2x2": np.dtype(np.uint16),
    "pred": np.dtype(np.bool_),
}
assert set(_DTYPES) == set(TYPE_SIZES), "dtype table out of step with ir.TYPE_SIZES"

INT_TYPES = frozenset(t for t in _DTYPES if t[0] in "sub" and t[1:].isdigit() and t != "b128")
SIGNED = frozenset(t for t in INT_TYPES if t[0] == "s")
FLOAT_TYPES = frozenset(("f16", "f32", "f64", "bf16", "f16x2", "bf16x2"))


def dtype_of(ptx_type: str) -> np.dtype:
    """The numpy dtype holding a value of PTX type ``ptx_type`` (see module docstring)."""
    try:
        return _DTYPES[ptx_type]
    except KeyError:
        raise NotSupportedError(f"unknown PTX type .{ptx_type}") from None


def bits_of(t: str) -> int:
    return TYPE_SIZES[t] * 8


def is_signed(t: str) -> bool:
    return t in SIGNED


def unsigned_of(t: str) -> type:
    return {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[TYPE_SIZES[t]]


def signed_of(t: str) -> type:
    return {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[TYPE_SIZES[t]]


def wide_of(t: str) -> str:
    """The double-width integer type of ``t`` (``s32`` -> ``s64``), keeping the kind."""
    kind = t[0]
    return f"{kind}{bits_of(t) * 2}"
