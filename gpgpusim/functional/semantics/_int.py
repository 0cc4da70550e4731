"""Integer arithmetic semantics (``add sub mul mad mul24 mad24 sad div rem abs neg min max popc
clz bfind brev bfe bfi dp4a dp2a`` and the carry chain).

GPGPU-Sim counterparts: ``add_impl``, ``addc_impl``, ``sub_impl``, ``subc_impl``, ``mul_impl``,
``mad_impl``, ``mul24_impl``, ``mad24_impl``, ``sad_impl``, ``div_impl``, ``rem_impl``,
``abs_impl``, ``neg_impl``, ``min_impl``, ``max_impl``, ``popc_impl``, ``clz_impl``,
``bfind_impl``, ``brev_impl``, ``bfe_impl``, ``bfi_impl``, ``dp4a_impl`` in
``src/cuda-sim/instructions.cc`` (checklist C221).

Every builder returns a closure over numpy arrays of ``dtype_of(type)``; arithmetic wraps
modulo 2**width exactly like the hardware (numpy integer array arithmetic wraps silently).
Division by zero gives what NVIDIA GPUs produce (PTX leaves it undefined): quotient all ones
(-1 for signed), remainder = dividend.
"""

from __future__ import annotations

from collections.abc import Callable

from typing import Any

import numpy as np

from ._float import quiet
from ._types import bits_of, dtype_of, is_signed, unsigned_of, wide_of

Fn = Callable[..., Any]
U32 = np.uint32
U64 = np.uint64
I64 = np.int64
_M32 = U64(0xFFFFFFFF)


def _quiet(fn: Fn) -> Fn:
    """For functions whose intermediate steps may be numpy-scalar arithmetic (an immediate
    operand): scalar integer wrap-around warns in numpy, array arithmetic does not."""
    return quiet(fn)


def _u(x: np.ndarray, t: str) -> np.ndarray:
    """Reinterpret/convert to the unsigned type of the same width (wrapping)."""
    return np.asarray(x).astype(unsigned_of(t), copy=False)


# ----------------------------------------------------------------------------- add / sub + carry
def add(t: str, *, sat: bool = False, cc_in: bool = False, cc_out: bool = False, sub: bool = False) -> Fn:
    """``add``/``sub``/``addc``/``subc`` with optional ``.sat`` (s32) and ``.cc``.

    Carry convention: CC.CF is a u32 0/1.  For subtraction it is the *borrow* (PTX:
    ``subc: d = a - (b + CC.CF)``), so ``sub.cc`` sets CF = 1 when a < b unsigned."""
    dt = dtype_of(t)
    ut = unsigned_of(t)
    if sat:
        if t != "s32":
            raise ValueError(".sat needs .s32")
        lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
        if sub:
            return lambda a, b: np.clip(a.astype(I64) - b, lo, hi).astype(np.int32)
        return lambda a, b: np.clip(a.astype(I64) + b, lo, hi).astype(np.int32)
    if not cc_in and not cc_out:
        return np.subtract if sub else np.add

    def fn(a, b, cin=None):
        ua = np.asarray(a).astype(ut, copy=False)
        ub = np.asarray(b).astype(ut, copy=False)
        if sub:
            t0 = ua - ub
            carry = ua < ub
            if cc_in:
                c = np.asarray(cin).astype(ut, copy=False)
                carry = carry | (t0 < c)
                t0 = t0 - c
        else:
            t0 = ua + ub
            carry = t0 < ua
            if cc_in:
                c = np.asarray(cin).astype(ut, copy=False)
                d = t0 + c
                carry = carry | (d < t0)
                t0 = d
        d = t0.astype(dt, copy=False)
        if cc_out:
            return d, carry.astype(U32)
        return d

    if cc_in:
        return fn
    return lambda a, b: fn(a, b)


# ----------------------------------------------------------------------------- multiply
def mulhi_u64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """High 64 bits of the 128-bit unsigned product (32-bit limbs, all in uint64)."""
    al, ah = a & _M32, a >> U64(32)
    bl, bh = b & _M32, b >> U64(32)
    ll, lh, hl, hh = al * bl, al * bh, ah * bl, ah * bh
    mid = (ll >> U64(32)) + (lh & _M32) + (hl & _M32)
    return hh + (lh >> U64(32)) + (hl >> U64(32)) + (mid >> U64(32))


def mulhi(t: str) -> Fn:
    """Upper half of the double-width product."""
    w = bits_of(t)
    dt = dtype_of(t)
    if w < 64:
        wt = dtype_of(wide_of(t))
        sh = w
        return lambda a, b: (a.astype(wt) * b.astype(wt) >> sh).astype(dt)
    if is_signed(t):
        def fn(a, b):
            ua, ub = a.astype(U64), b.astype(U64)
            h = mulhi_u64(ua, ub)
            h = h - np.where(a < 0, ub, U64(0)) - np.where(b < 0, ua, U64(0))
            return h.astype(np.int64)
        return fn
    return lambda a, b: mulhi_u64(a.astype(U64, copy=False), b.astype(U64, copy=False))


def mul(t: str, mode: str) -> Fn:
    if mode == "lo":
        return np.multiply
    if mode == "hi":
        return mulhi(t)
    wt = dtype_of(wide_of(t))
    return lambda a, b: a.astype(wt) * b.astype(wt)


def mad(t: str, mode: str, *, sat: bool = False, cc_in: bool = False, cc_out: bool = False) -> Fn:
    """``mad.lo/.hi/.wide`` (+ ``.sat`` for hi.s32, ``.cc`` and ``madc``)."""
    prod = mul(t, mode)
    if sat:
        lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
        return lambda a, b, c: np.clip(prod(a, b).astype(I64) + c, lo, hi).astype(np.int32)
    if cc_in or cc_out:
        adder = add(t, cc_in=cc_in, cc_out=cc_out)
        if cc_in:
            return lambda a, b, c, cin: adder(prod(a, b), c, cin)
        return lambda a, b, c: adder(prod(a, b), c)
    return lambda a, b, c: prod(a, b) + c


def mul24(t: str, mode: str, *, addend: bool = False, sat: bool = False) -> Fn:
    """``mul24``/``mad24``: 24-bit operands (sign-extended for .s32), 48-bit product; ``.lo``
    keeps bits 31..0, ``.hi`` bits 47..16."""
    signed = is_signed(t)
    dt = dtype_of(t)

    def p48(a, b):
        if signed:
            a24 = (a.astype(I64) << 40) >> 40
            b24 = (b.astype(I64) << 40) >> 40
        else:
            a24 = a.astype(I64) & 0xFFFFFF
            b24 = b.astype(I64) & 0xFFFFFF
        p = a24 * b24
        return p if mode == "lo" else (p >> 16)

    def part(p):
        return (p & 0xFFFFFFFF).astype(U32).astype(dt)

    if not addend:
        return lambda a, b: part(p48(a, b))
    if sat:
        lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
        return lambda a, b, c: np.clip(part(p48(a, b)).astype(I64) + c, lo, hi).astype(np.int32)
    return lambda a, b, c: part(p48(a, b)) + c


def sad(t: str) -> Fn:
    """``d = c + |a - b|``."""
    ut = unsigned_of(t)
    dt = dtype_of(t)

    def fn(a, b, c):
        ua, ub = a.astype(ut), b.astype(ut)
        diff = np.where(a > b, ua - ub, ub - ua)
        return (diff + c.astype(ut)).astype(dt)
    return fn


# ----------------------------------------------------------------------------- divide
def div(t: str) -> Fn:
    """Truncating division; x/0 = all ones (-1 signed); INT_MIN/-1 = INT_MIN."""
    ut = unsigned_of(t)
    dt = dtype_of(t)
    ones = np.iinfo(ut).max
    if not is_signed(t):
        def udiv(a, b):
            zero = b == 0
            q = a // np.where(zero, ut(1), b)
            return np.where(zero, ut(ones), q)
        return udiv

    def sdiv(a, b):
        ua, ub = a.astype(ut), b.astype(ut)
        ua = np.where(a < 0, ut(0) - ua, ua)
        ub = np.where(b < 0, ut(0) - ub, ub)
        zero = ub == 0
        q = ua // np.where(zero, ut(1), ub)
        q = np.where((a < 0) != (b < 0), ut(0) - q, q)
        return np.where(zero, ut(ones), q).astype(dt)
    return _quiet(sdiv)


def rem(t: str) -> Fn:
    """Remainder with the sign of the dividend; x % 0 = x."""
    ut = unsigned_of(t)
    dt = dtype_of(t)
    if not is_signed(t):
        def urem(a, b):
            zero = b == 0
            return np.where(zero, a, a % np.where(zero, ut(1), b))
        return urem

    def srem(a, b):
        ua, ub = a.astype(ut), b.astype(ut)
        ua = np.where(a < 0, ut(0) - ua, ua)
        ub = np.where(b < 0, ut(0) - ub, ub)
        zero = ub == 0
        r = ua % np.where(zero, ut(1), ub)
        r = np.where(a < 0, ut(0) - r, r).astype(dt)
        return np.where(zero, a, r)
    return _quiet(srem)


# ----------------------------------------------------------------------------- unary / min / max
def iabs(t: str) -> Fn:
    return np.abs  # wraps: abs(INT_MIN) == INT_MIN


def ineg(t: str) -> Fn:
    return np.negative


def minmax(t: str, is_max: bool, relu: bool = False) -> Fn:
    f = np.maximum if is_max else np.minimum
    if relu:
        zero = dtype_of(t).type(0)
        return lambda a, b: np.maximum(f(a, b), zero)
    return f


def popc(t: str) -> Fn:
    return lambda a: np.bitwise_count(a).astype(U32)


def _bitlen32(x: np.ndarray) -> np.ndarray:
    """Bit length of uint32 values as int64 (exact via frexp on float64)."""
    return np.frexp(x.astype(np.float64))[1].astype(I64)


def bitlen(x: np.ndarray, w: int) -> np.ndarray:
    if w <= 32:
        return _bitlen32(x)
    x = x.astype(U64)
    hi = (x >> U64(32)).astype(U32)
    lo = (x & _M32).astype(U32)
    return np.where(hi != 0, 32 + _bitlen32(hi), _bitlen32(lo))


def clz(t: str) -> Fn:
    w = bits_of(t)
    ut = unsigned_of(t)
    return lambda a: (w - bitlen(a.astype(ut, copy=False), w)).astype(U32)


def bfind(t: str, shiftamt: bool) -> Fn:
    """Index of the most significant non-sign bit; 0xFFFFFFFF when none."""
    w = bits_of(t)
    ut = unsigned_of(t)
    signed = is_signed(t)

    def fn(a):
        x = np.where(a < 0, ~a, a) if signed else a
        idx = bitlen(x.astype(ut, copy=False), w) - 1
        if shiftamt:
            idx = np.where(idx < 0, -1, (w - 1) - idx)
        return idx.astype(U32)
    return fn


def brev(t: str) -> Fn:
    w = bits_of(t)
    ut = unsigned_of(t)
    masks = [(1, 0x5555555555555555), (2, 0x3333333333333333), (4, 0x0F0F0F0F0F0F0F0F),
             (8, 0x00FF00FF00FF00FF), (16, 0x0000FFFF0000FFFF), (32, 0x00000000FFFFFFFF)]
    steps = [(ut(s), ut(m & ((1 << w) - 1))) for s, m in masks if s < w]

    def fn(a):
        x = a.astype(ut)
        for s, m in steps:
            x = ((x >> s) & m) | ((x & m) << s)
        return x
    return fn


# ----------------------------------------------------------------------------- bit fields
def bfe(t: str) -> Fn:
    """PTX ``bfe``: pos = b & 0xff, len = c & 0xff; bits past the msb (and for signed types
    the bits above the field) take the sign bit a[min(pos+len-1, msb)] (0 for unsigned or
    len == 0)."""
    w = bits_of(t)
    ut = unsigned_of(t)
    dt = dtype_of(t)
    signed = is_signed(t)
    allones = ut(np.iinfo(ut).max)

    def fn(a, b, c):
        ua = np.asarray(a).astype(ut, copy=False)
        pos = np.asarray(b).astype(I64) & 0xFF
        ln = np.asarray(c).astype(I64) & 0xFF
        field = ua >> np.minimum(pos, w).astype(ut)  # numpy: shift >= width gives 0
        nvalid = np.clip(np.minimum(ln, w - pos), 0, w)
        keep = np.where(nvalid >= w, allones, (ut(1) << np.minimum(nvalid, w - 1).astype(ut)) - ut(1))
        out = field & keep
        if signed:
            spos = np.minimum(pos + ln - 1, w - 1)
            sbit = ((ua >> np.maximum(spos, 0).astype(ut)) & ut(1)).astype(bool) & (ln != 0)
            out = out | np.where(sbit, ~keep, ut(0))
        return out.astype(dt, copy=False)
    return fn


def bfi(t: str) -> Fn:
    """PTX ``bfi f, a, b, c, d``: insert the low ``len = d & 0xff`` bits of ``a`` into ``b`` at
    ``pos = c & 0xff`` (bits past the msb are dropped)."""
    w = bits_of(t)
    ut = unsigned_of(t)
    dt = dtype_of(t)
    allones = ut(np.iinfo(ut).max)

    def fn(a, b, c, d):
        ua = np.asarray(a).astype(ut, copy=False)
        ub = np.asarray(b).astype(ut, copy=False)
        pos = np.asarray(c).astype(I64) & 0xFF
        ln = np.asarray(d).astype(I64) & 0xFF
        nbits = np.clip(np.minimum(ln, w - pos), 0, w)
        low = np.where(nbits >= w, allones, (ut(1) << np.minimum(nbits, w - 1).astype(ut)) - ut(1))
        sh = np.minimum(pos, w).astype(ut)
        mask = low << sh
        return ((ub & ~mask) | ((ua << sh) & mask)).astype(dt, copy=False)
    return fn


# ----------------------------------------------------------------------------- dot products
def _bytes(x: np.ndarray, signed: bool, n: int, width: int) -> list[np.ndarray]:
    ux = np.asarray(x).astype(U32, copy=False).astype(I64)
    out = []
    top = 1 << (width - 1)
    mask = (1 << width) - 1
    for i in range(n):
        v = (ux >> (width * i)) & mask
        out.append((v ^ top) - top if signed else v)
    return out


def dp4a(atype: str, btype: str) -> Fn:
    """``d = c + sum(a.byte[i] * b.byte[i])`` (bytes signed per type), wrapped to 32 bits."""
    sa, sb = atype == "s32", btype == "s32"
    dt = np.int32 if (sa or sb) else U32

    def fn(a, b, c):
        acc = np.asarray(c).astype(I64)
        for x, y in zip(_bytes(a, sa, 4, 8), _bytes(b, sb, 4, 8), strict=True):
            acc = acc + x * y
        return (acc & 0xFFFFFFFF).astype(U32).astype(dt)
    return fn


def dp2a(atype: str, btype: str, hi: bool) -> Fn:
    """``d = c + a.h0*b.byte[k] + a.h1*b.byte[k+1]`` with k = 2 for ``.hi``, 0 for ``.lo``."""
    sa, sb = atype == "s32", btype == "s32"
    dt = np.int32 if (sa or sb) else U32
    k = 2 if hi else 0

    def fn(a, b, c):
        h = _bytes(a, sa, 2, 16)
        by = _bytes(b, sb, 4, 8)
        acc = np.asarray(c).astype(I64) + h[0] * by[k] + h[1] * by[k + 1]
        return (acc & 0xFFFFFFFF).astype(U32).astype(dt)
    return fn


# ----------------------------------------------------------------------------- bmsk / szext
def bmsk(clamp: bool) -> Fn:
    """``bmsk.{clamp,wrap}.b32 d, a, b``: ``b`` one-bits starting at bit ``a``; with ``.wrap``
    both counts are taken mod 32, with ``.clamp`` limited to 32 (bits past 31 are dropped)."""
    def fn(a, b):
        pos = np.asarray(a).astype(U32)
        width = np.asarray(b).astype(U32)
        if clamp:
            pos, width = np.minimum(pos, U32(32)), np.minimum(width, U32(32))
        else:
            pos, width = pos & U32(31), width & U32(31)
        ones = (U64(1) << width.astype(U64)) - U64(1)
        return ((ones << pos.astype(U64)) & _M32).astype(U32)
    return fn


def szext(t: str, clamp: bool) -> Fn:
    """``szext.{clamp,wrap}.{u32,s32} d, a, b``: keep the low ``b`` bits of ``a`` and zero- or
    sign-extend them (``b`` mod 32 with ``.wrap``, min(b, 32) with ``.clamp``; b == 0 -> 0)."""
    signed = t == "s32"
    dt = dtype_of(t)

    def fn(a, b):
        x = np.asarray(a).astype(U32).astype(I64)
        n = np.asarray(b).astype(U32).astype(I64)
        n = np.minimum(n, 32) if clamp else n & 31
        field = x & ((np.int64(1) << n) - 1)
        if signed:
            top = np.where(n > 0, np.int64(1) << np.maximum(n - 1, 0), 0)
            field = (field ^ top) - top
        return (field & 0xFFFFFFFF).astype(U32).astype(dt)
    return fn
