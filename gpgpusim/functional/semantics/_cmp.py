"""Comparison and selection semantics: ``setp set selp slct`` and ``testp`` helpers.

GPGPU-Sim counterparts: ``setp_impl``, ``set_impl``, ``selp_impl``, ``slct_impl`` and the
``CmpOp`` evaluation in ``src/cuda-sim/instructions.cc`` (checklist C221).

* Integer types compare signed or unsigned per the type; ``lo ls hi hs`` are always unsigned.
* Float ``eq ne lt le gt ge`` are ordered (false when either operand is NaN), ``equ neu ltu
  leu gtu geu`` unordered (true when either is NaN); ``num``/``nan`` test orderedness.
* ``setp.CmpOp.BoolOp p|q, a, b, c``: ``p = t BoolOp c``, ``q = (not t) BoolOp c``.  A
  negated predicate source (``!%p``) is negated by the engine when it fetches the operand.
* Packed ``f16x2``/``bf16x2`` ``setp`` writes ``p`` from the low halves and ``q`` from the
  high halves.
"""

from __future__ import annotations

from collections.abc import Callable

from typing import Any

import numpy as np

from . import _fp as fp
from ._float import quiet
from ._types import FLOAT_TYPES, is_signed, unsigned_of

Fn = Callable[..., Any]

_ORDERED = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
            "gt": np.greater, "ge": np.greater_equal}
_UNSIGNED = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}
CMP_OPS = frozenset([*_ORDERED, *_UNSIGNED, "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"])
_BOOL = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


def compare(op: str, t: str, ftz: bool = False) -> Fn:
    """``fn(a, b) -> bool array`` for one comparison on operands of PTX type ``t``."""
    if op not in CMP_OPS:
        raise ValueError(f"unknown comparison .{op}")
    if t in FLOAT_TYPES:
        if op in _UNSIGNED:
            raise ValueError(f"comparison .{op} is for integers")
        base = t[:-2] if t.endswith("x2") else t
        conv = _float_view(base, ftz)
        if op == "num":
            core = lambda a, b: ~(np.isnan(a) | np.isnan(b))  # noqa: E731
        elif op == "nan":
            core = lambda a, b: np.isnan(a) | np.isnan(b)  # noqa: E731
        elif op.endswith("u"):
            f = _ORDERED[op[:-1]]
            core = lambda a, b: f(a, b) | np.isnan(a) | np.isnan(b)  # noqa: E731
        elif op == "ne":
            core = lambda a, b: (a != b) & ~(np.isnan(a) | np.isnan(b))  # noqa: E731
        else:
            core = _ORDERED[op]
        if conv is None:
            return core  # numpy comparisons never raise FP warnings
        return lambda a, b: core(conv(a), conv(b))
    if op in ("num", "nan") or op.endswith("u"):
        raise ValueError(f"comparison .{op} is for floats")
    if op in _UNSIGNED:
        ut = unsigned_of(t)
        f = _ORDERED[_UNSIGNED[op]]
        if is_signed(t):
            return lambda a, b: f(a.astype(ut), b.astype(ut))
        return f
    return _ORDERED[op]


def _float_view(base: str, ftz: bool):
    if base == "bf16":
        return fp.bf16_to_f32
    if base == "f16":
        return fp.ftz16 if ftz else None
    if base == "f32":
        return fp.ftz32 if ftz else None
    return None


def _x2_split(t: str, cmp: Fn) -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    """Per-half comparison of packed operands: returns (low result, high result)."""
    is_f16 = t == "f16x2"

    def halves(a, b):
        (al, ah), (bl, bh) = fp.split_x2(a), fp.split_x2(b)
        if is_f16:
            al, ah, bl, bh = (fp.f16_from_raw(x) for x in (al, ah, bl, bh))
        return cmp(al, bl), cmp(ah, bh)
    return halves


def setp(op: str, t: str, boolop: str | None, two_dst: bool, ftz: bool = False) -> Fn:
    base = t[:-2] if t.endswith("x2") else t
    cmp = compare(op, base, ftz)
    if t.endswith("x2"):
        halves = _x2_split(t, cmp)
        if boolop is None:
            return lambda a, b: halves(a, b)
        bf = _BOOL[boolop]

        def x2b(a, b, c):
            lo, hi = halves(a, b)
            return bf(lo, c), bf(hi, c)
        return x2b
    if boolop is None:
        if two_dst:
            def pq(a, b):
                r = cmp(a, b)
                return r, ~r
            return pq
        return cmp
    bf = _BOOL[boolop]
    if two_dst:
        def pqc(a, b, c):
            r = cmp(a, b)
            return bf(r, c), bf(~r, c)
        return pqc
    return lambda a, b, c: bf(cmp(a, b), c)


_SET_TRUE: dict[str, Any] = {
    "f32": np.float32(1.0), "s32": np.int32(-1), "u32": np.uint32(0xFFFFFFFF),
    "f16": np.float16(1.0), "bf16": np.uint16(0x3F80),
}
_SET_TRUE_HALF = {"u32": 0xFFFF, "s32": 0xFFFF, "f16x2": 0x3C00, "bf16x2": 0x3F80}


def set_(op: str, dtype: str, stype: str, boolop: str | None, ftz: bool = False) -> Fn:
    """``set``: true -> 0xFFFFFFFF (-1 for .s32), 1.0f, or 1.0 in f16/bf16; false -> 0.
    With a packed ``f16x2``/``bf16x2`` source each half of ``d`` gets its own result
    (0xFFFF or 1.0 per half)."""
    bf = _BOOL[boolop] if boolop else None
    if stype.endswith("x2"):
        if dtype not in _SET_TRUE_HALF:
            raise ValueError(f"set destination .{dtype} for .{stype}")
        halves = _x2_split(stype, compare(op, stype[:-2], ftz))
        one = np.uint32(_SET_TRUE_HALF[dtype])

        def x2(a, b, c=None):
            lo, hi = halves(a, b)
            if bf is not None:
                lo, hi = bf(lo, c), bf(hi, c)
            return np.where(lo, one, np.uint32(0)) | (np.where(hi, one, np.uint32(0)) << np.uint32(16))
        return x2
    if dtype not in _SET_TRUE:
        raise ValueError(f"set destination .{dtype}")
    cmp = compare(op, stype, ftz)
    true = _SET_TRUE[dtype]
    false = true.dtype.type(0)
    if bf is None:
        return lambda a, b: np.where(cmp(a, b), true, false)
    return lambda a, b, c: np.where(bf(cmp(a, b), c), true, false)


def selp(t: str) -> Fn:
    """``selp d, a, b, c``: ``c ? a : b``."""
    return lambda a, b, c: np.where(c, a, b)


def slct(ctype: str, ftz: bool = False) -> Fn:
    """``slct d, a, b, c``: ``c >= 0 ? a : b`` (a NaN ``c`` selects ``b``)."""
    if ctype == "f32" and ftz:
        return quiet(lambda a, b, c: np.where(fp.ftz32(c) >= 0, a, b))
    return quiet(lambda a, b, c: np.where(c >= 0, a, b))
