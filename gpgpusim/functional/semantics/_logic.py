"""Logic and shift semantics: ``and or xor not cnot lop3 shl shr shf prmt``.

GPGPU-Sim counterparts: ``and_impl``, ``or_impl``, ``xor_impl``, ``not_impl``, ``cnot_impl``,
``lop3_impl``, ``shl_impl``, ``shr_impl``, ``shf_impl``, ``prmt_impl``
(``src/cuda-sim/instructions.cc``; checklist C221).

Shifts: amounts are unsigned 32-bit and amounts >= the width clamp (``shl``/``shr.u`` give 0,
``shr.s`` fills with the sign).  numpy's own shift defines exactly this for counts >= width;
we clamp the count to the width first so that narrowing the count's dtype never wraps.
"""

from __future__ import annotations

from collections.abc import Callable

from typing import Any

import numpy as np

from ._types import bits_of, dtype_of

Fn = Callable[..., Any]
U32 = np.uint32
U64 = np.uint64


def bitwise(op: str, t: str) -> Fn:
    if t == "pred":
        return {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[op]
    return {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]


def bnot(t: str) -> Fn:
    return np.logical_not if t == "pred" else np.invert


def cnot(t: str) -> Fn:
    dt = dtype_of(t)
    return lambda a: (a == 0).astype(dt)


_ZERO, _ONES = "zero", "ones"  # constant leaves (sentinels: operands may be numpy scalars)


def lop3(lut: int) -> Fn:
    """``lop3.b32 d, a, b, c, immLut``: ``immLut`` = F(0xF0, 0xCC, 0xAA).  The LUT is bound at
    lookup; the function evaluates it as a multiplexer tree over a, b, c (at most ~13 numpy
    ops) with constant leaves folded.  The trailing LUT argument is accepted and ignored."""
    lut &= 0xFF

    def leaf(i: int, c):
        t0, t1 = (lut >> i) & 1, (lut >> (i + 1)) & 1
        if t0 == t1:
            return _ONES if t0 else _ZERO
        return c if t1 else ~c

    def mux(s, x, y):  # s ? x : y, bitwise
        xc, yc = isinstance(x, str), isinstance(y, str)
        if xc and yc:
            if x == y:
                return x
            return s if x == _ONES else ~s
        if xc:
            return (s | y) if x == _ONES else (~s & y)
        if yc:
            return (s & x) if y == _ZERO else (~s | x)
        return y ^ ((x ^ y) & s)

    def fn(a, b, c, _lut=None):
        a = np.asarray(a, dtype=U32)
        b = np.asarray(b, dtype=U32)
        c = np.asarray(c, dtype=U32)
        nb = [mux(b, leaf(4 * ai + 2, c), leaf(4 * ai, c)) for ai in (0, 1)]
        r = mux(a, nb[1], nb[0])
        if isinstance(r, str):
            shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
            return np.full(shape, 0xFFFFFFFF if r == _ONES else 0, dtype=U32)
        return np.asarray(r, dtype=U32)
    return fn


def shl(t: str) -> Fn:
    w = bits_of(t)
    dt = dtype_of(t)
    return lambda a, b: np.left_shift(a, np.minimum(b, w).astype(dt))


def shift_const(t: str, left: bool, k: int) -> Fn:
    """``shl``/``shr`` by an immediate (the common address-arithmetic case): the count is bound
    at decode time; the runtime count argument is ignored."""
    w = bits_of(t)
    dt = dtype_of(t)
    k = min(k & 0xFFFFFFFF, w)
    if k >= w:
        if left or dt.kind == "u":
            return lambda a, _b=None: np.zeros(np.shape(a), dtype=dt)
        return lambda a, _b=None: np.right_shift(a, dt.type(w - 1))  # sign fill
    kk = dt.type(k)
    if left:
        return lambda a, _b=None: np.left_shift(a, kk)
    return lambda a, _b=None: np.right_shift(a, kk)


def shr(t: str) -> Fn:
    w = bits_of(t)
    dt = dtype_of(t)
    return lambda a, b: np.right_shift(a, np.minimum(b, w).astype(dt))


def shf(left: bool, clamp: bool) -> Fn:
    """``shf.{l,r}.{wrap,clamp}.b32 d, a, b, c``: funnel shift of the 64-bit ``b:a``; the
    count is ``c & 31`` (wrap) or ``min(c, 32)`` (clamp)."""

    def fn(a, b, c):
        x = (np.asarray(b).astype(U64) << U64(32)) | np.asarray(a).astype(U32).astype(U64)
        cu = np.asarray(c).astype(U32)
        n = (np.minimum(cu, U32(32)) if clamp else cu & U32(31)).astype(U64)
        if left:
            return ((x << n) >> U64(32)).astype(U32)
        return ((x >> n) & U64(0xFFFFFFFF)).astype(U32)
    return fn


# d.b0..d.b3 byte selectors for the special modes, indexed by c[1:0]
_PRMT_MODES: dict[str, tuple[tuple[int, int, int, int], ...]] = {
    "f4e": ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)),
    "b4e": ((0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)),
    "rc8": ((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)),
    "ecl": ((0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)),
    "ecr": ((0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)),
    "rc16": ((0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)),
}


def _prmt_plan(selectors: list[tuple[int, bool]]) -> list[tuple[int, int, int, bool]]:
    """Group output bytes that come from the same source word with the same shift into one
    (source 0=a/1=b, shift in bits (+ = left), byte mask, sign-replicate) term."""
    groups: dict[tuple[int, int], int] = {}
    terms: list[tuple[int, int, int, bool]] = []
    for i, (k, sign) in enumerate(selectors):
        src, pos = k // 4, k % 4
        if sign:
            terms.append((src, 8 * pos, 0xFF << (8 * i), True))
            continue
        key = (src, 8 * (i - pos))
        groups[key] = groups.get(key, 0) | (0xFF << (8 * i))
    terms.extend((src, sh, mask, False) for (src, sh), mask in groups.items())
    return terms


def _prmt_const(selectors: list[tuple[int, bool]]) -> Fn:
    """prmt with a selector known at decode time: a few shifts and masks on 32-bit words."""
    plan = _prmt_plan(selectors)

    def fn(a, b, _c=None):
        words = (np.asarray(a).astype(U32, copy=False), np.asarray(b).astype(U32, copy=False))
        out = None
        for src, sh, mask, sign in plan:
            w = words[src]
            if sign:
                # replicate bit 7 of byte (sh // 8) into the target byte
                bit = (w >> U32(sh + 7)) & U32(1)
                term = (bit * U32(0xFF)) << U32((mask.bit_length() - 8))
            elif sh >= 0:
                term = (w << U32(sh)) & U32(mask)
            else:
                term = (w >> U32(-sh)) & U32(mask)
            out = term if out is None else out | term
        return np.asarray(out, dtype=U32)
    return fn


def prmt(mode: str | None, imm_sel: int | None = None) -> Fn:
    """``prmt.b32{.mode} d, a, b, c``: pick bytes of the 8-byte ``{b, a}``.  Generic form: four
    4-bit selectors in c (bit 3 = replicate the chosen byte's sign).  ``imm_sel`` pre-binds an
    immediate ``c`` (the runtime argument is then ignored) into a shift/mask plan."""
    if imm_sel is not None:
        if mode is None:
            sels = [((imm_sel >> (4 * i)) & 7, bool((imm_sel >> (4 * i)) & 8)) for i in range(4)]
        else:
            sels = [(k, False) for k in _PRMT_MODES[mode][imm_sel & 3]]
        return _prmt_const(sels)
    table = None
    if mode is not None:
        table = np.array(_PRMT_MODES[mode], dtype=U64)  # [c&3][byte]

    def fn(a, b, c):
        x = (np.asarray(b).astype(U64) << U64(32)) | np.asarray(a).astype(U32).astype(U64)
        cc = np.asarray(c).astype(U64)
        out = U64(0)
        if table is not None:
            rows = table[(cc & U64(3)).astype(np.intp)]
            for i in range(4):
                out = out | (((x >> (rows[..., i] * U64(8))) & U64(0xFF)) << U64(8 * i))
        else:
            any_sign = bool(np.any(cc & U64(0x8888)))
            for i in range(4):
                nib = (cc >> U64(4 * i)) & U64(0xF)
                byte = (x >> ((nib & U64(7)) * U64(8))) & U64(0xFF)
                if any_sign:
                    rep = ((nib & U64(8)) != 0) & ((byte & U64(0x80)) != 0)
                    byte = np.where((nib & U64(8)) != 0, np.where(rep, U64(0xFF), U64(0)), byte)
                out = out | (byte << U64(8 * i))
        return np.broadcast_to(out, np.broadcast_shapes(np.shape(x), np.shape(cc))).astype(U32)
    return fn
