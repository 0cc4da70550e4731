"""``cvt`` semantics between all integer and float types, and ``mov``.

GPGPU-Sim counterparts: ``cvt_impl`` (with its ``ptx_round``/``saturate`` helpers) and
``mov_impl`` in ``src/cuda-sim/instructions.cc`` (checklist C221).

* int -> int: truncation / sign or zero extension per the source type (numpy ``astype``
  wraps); ``.sat`` clamps the source value to the destination range.
* float -> int: ``.rni .rzi .rmi .rpi`` (``.rzi`` when absent, as in C), NaN -> 0, always
  clamped to the destination range (PTX: saturation is implicit).
* int -> float and float -> narrower float: ``.rn .rz .rm .rp`` exact (double-double residual
  or round-to-odd for 64-bit sources); ``.relu`` (NaN -> canonical NaN, negative -> 0) and
  ``.satfinite`` (clamp to the largest finite, NaN kept) for half targets.
* float -> same float with ``.rni .rzi .rmi .rpi``: round to an integral value in that type.
* ``.ftz`` flushes f32 subnormal sources and results; ``.sat`` on a float result clamps to
  [0, 1] with NaN -> 0.
* ``cvt.rn.f16x2.f32 d, a, b`` / ``bf16x2``: ``a`` goes to the high half, ``b`` to the low.
* ``cvt.rna.tf32.f32``: keep 10 mantissa bits, round to nearest with ties away from zero.
"""

from __future__ import annotations

from collections.abc import Callable

from typing import Any

import numpy as np

from gpgpusim.errors import NotSupportedError

from . import _fp as fp
from ._float import quiet
from ._types import INT_TYPES, bits_of, dtype_of, is_signed

Fn = Callable[..., Any]
F16, F32, F64 = np.float16, np.float32, np.float64
U16, U32, U64 = np.uint16, np.uint32, np.uint64

_IRND = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}


def _int_range(t: str) -> tuple[int, int]:
    info = np.iinfo(dtype_of(t))
    return int(info.min), int(info.max)


# ----------------------------------------------------------------------------- int <-> int
def int_to_int(dt_: str, at: str, sat: bool) -> Fn:
    ddt = dtype_of(dt_)
    if not sat:
        return lambda a: a.astype(ddt)
    dlo, dhi = _int_range(dt_)
    alo, ahi = _int_range(at)
    adt = dtype_of(at)
    low = adt.type(dlo) if dlo > alo else None
    high = adt.type(dhi) if dhi < ahi else None

    def fn(a):
        x = a
        if low is not None:
            x = np.where(x < low, low, x)
        if high is not None:
            x = np.where(x > high, high, x)
        return x.astype(ddt)
    return fn


# ----------------------------------------------------------------------------- float views
def _to_f64(at: str, ftz: bool) -> Callable[[np.ndarray], np.ndarray]:
    """Source float (any format) -> exact float64 (after ``.ftz`` for f32)."""
    if at == "bf16":
        return lambda a: fp.bf16_to_f32(a).astype(F64)
    if at == "f32" and ftz:
        return lambda a: fp.ftz32(a).astype(F64)
    return lambda a: a.astype(F64)


def float_to_int(dt_: str, at: str, irnd: str | None, ftz: bool) -> Fn:
    rnd = _IRND[irnd or "rzi"]
    if bits_of(dt_) <= 32:
        # every 32-bit bound is exact in f64: clip (NaN passes through), NaN -> 0, cast
        lo32, hi32 = (float(x) for x in _int_range(dt_))
        ddt32 = dtype_of(dt_)
        def finish(x):
            nan = np.isnan(x)
            if nan.any():
                x = np.where(nan, 0.0, x)
            return x.astype(ddt32)

        if at == "bf16":
            return lambda a: finish(np.clip(rnd(fp.bf16_to_f32(a)).astype(F64), lo32, hi32))
        pre = fp.ftz32 if (ftz and at == "f32") else None

        def conv(a):
            x = rnd(a if pre is None else pre(a))
            return finish(np.clip(x if at == "f64" else x.astype(F64), lo32, hi32))
        return conv
    ddt = dtype_of(dt_)
    lo, hi = _int_range(dt_)
    top = float(2 ** (bits_of(dt_) - 1 if is_signed(dt_) else bits_of(dt_)))  # first value too big
    src = _to_f64(at, ftz)

    def fn(a):
        x = rnd(src(a))
        over = x >= top
        under = x < float(lo)
        bad = over | under | np.isnan(x)
        safe = np.where(bad, 0.0, x).astype(ddt)
        return np.where(over, ddt.type(hi), np.where(under, ddt.type(lo), safe))
    return quiet(fn)


def _int_exact(at: str) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Integer source -> exact double-double (s, e) with s = RN(value)."""
    if bits_of(at) <= 32:
        return lambda a: (a.astype(F64), np.zeros(np.shape(a), F64))
    signed = is_signed(at)

    def dd(a):
        if signed:
            hi = (a >> np.int64(32)).astype(F64) * 4294967296.0
        else:
            hi = (a >> U64(32)).astype(F64) * 4294967296.0
        lo = (a & a.dtype.type(0xFFFFFFFF)).astype(F64)
        return fp.two_sum(hi, lo)
    return dd


def _round_f64_to(dt_: str, x: np.ndarray, mode: str) -> np.ndarray:
    """f64 (exact or rounded-to-odd) -> target float format (f32/f16 native, bf16 raw)."""
    if dt_ == "f32":
        return fp.f64_round(x, F32, mode)
    if dt_ == "f16":
        return fp.f64_round(x, F16, mode)
    if dt_ == "bf16":
        return fp.f64_to_bf16(x, mode)
    raise NotSupportedError(f"cvt to .{dt_}")


def int_to_float(dt_: str, at: str, mode: str, ftz: bool, sat: bool) -> Fn:
    dd = _int_exact(at)
    post = _float_post(dt_, ftz, sat)
    if mode == "rn" and dt_ in ("f32", "f64") and not (ftz or sat):
        # the C conversion numpy uses is one correctly rounded step (also for 64-bit ints)
        ddt = dtype_of(dt_)
        return lambda a: np.asarray(a).astype(ddt)
    if dt_ == "f64":
        def to64(a):
            s, e = dd(a)
            return post(fp.adjust(s, e, mode))
        return quiet(to64)

    def narrow(a):
        s, e = dd(a)
        return post(_round_f64_to(dt_, fp.odd(s, e), mode))
    return quiet(narrow)


def _float_post(dt_: str, ftz: bool, sat: bool, relu: bool = False, satfinite: bool = False):
    steps = []
    if dt_ == "bf16":
        if sat or relu or satfinite:
            def bfpost(x):
                f = fp.bf16_to_f32(x)
                if sat:
                    f = fp.sat(f)
                if relu:
                    f = np.where(np.isnan(f), f, np.maximum(f, F32(0)))
                if satfinite:
                    f = np.where(np.isinf(f), np.copysign(F32(3.3895313892515355e38), f), f)
                return fp.f32_to_bf16(f)
            return bfpost
        return lambda x: x
    if ftz and dt_ == "f32":
        steps.append(fp.ftz32)
    if ftz and dt_ == "f16":
        steps.append(fp.ftz16)
    if sat:
        steps.append(fp.sat)
    if relu:
        steps.append(lambda x: np.where(np.isnan(x), x, np.maximum(x, x.dtype.type(0))))
    if satfinite:
        steps.append(lambda x: np.where(np.isinf(x), np.copysign(np.finfo(x.dtype).max, x), x))

    def run(x):
        for s in steps:
            x = s(x)
        return x
    return run


def float_to_float(dt_: str, at: str, mode: str | None, irnd: str | None, ftz: bool, sat: bool,
                   relu: bool = False, satfinite: bool = False) -> Fn:
    post = _float_post(dt_, ftz, sat, relu, satfinite)
    src = _to_f64(at, ftz)
    if irnd is not None:
        if dt_ != at:
            raise NotSupportedError(f"cvt.{irnd} between different float types .{dt_}.{at}")
        rnd = _IRND[irnd]
        if at == "bf16":
            return quiet(lambda a: post(fp.f32_to_bf16(rnd(fp.bf16_to_f32(a)))))
        pre = fp.ftz32 if (ftz and at == "f32") else (lambda x: x)
        return quiet(lambda a: post(rnd(pre(a))))
    if dt_ == "f64":
        return quiet(lambda a: post(src(a)))
    if bits_of(dt_) > bits_of(at) or dt_ == at:
        # widening (exact) or same type (ftz/sat only)
        if dt_ == "f32" and at == "bf16":
            return quiet(lambda a: post(fp.bf16_to_f32(a)))
        ddt = dtype_of(dt_)
        pre = fp.ftz32 if (ftz and at == "f32") else (lambda x: x)
        return quiet(lambda a: post(pre(a).astype(ddt)))
    m = mode or "rn"
    if m == "rn" and at == "f32" and dt_ == "f16" and not (ftz or sat or relu or satfinite):
        return quiet(lambda a: np.asarray(a).astype(F16))  # numpy's float->half rounds once, RN
    if at == "f32" and dt_ == "bf16":
        return quiet(lambda a: post(fp.f32_to_bf16(fp.ftz32(a) if ftz else a, m)))
    return quiet(lambda a: post(_round_f64_to(dt_, src(a), m)))


def pack_x2(dt_: str, mode: str | None, relu: bool, satfinite: bool) -> Fn:
    """``cvt.rn{.relu}{.satfinite}.f16x2.f32 d, a, b`` -> {hi: a, lo: b}."""
    half = dt_[:-2]
    one = float_to_float(half, "f32", mode or "rn", None, False, False, relu, satfinite)
    if half == "f16":
        return quiet(lambda a, b: fp.join_x2(fp.f16_to_raw(one(b)), fp.f16_to_raw(one(a))))
    return quiet(lambda a, b: fp.join_x2(one(b), one(a)))


def tf32(mode: str) -> Fn:
    """``cvt.{rna,rn,rz}{.satfinite}.tf32.f32``: f32 bits with the low 13 mantissa bits cleared
    after rounding (NaN -> canonical 0x7FFFFFFF)."""
    def fn(a):
        bits = np.asarray(a, dtype=F32).view(U32)
        if mode == "rna":
            r = bits + U32(0x1000)
        elif mode == "rn":
            r = bits + U32(0xFFF) + ((bits >> U32(13)) & U32(1))
        else:
            r = bits
        r = r & U32(0xFFFFE000)
        return np.where(np.isnan(a), U32(0x7FFFFFFF), r)
    return fn


def cvt(dt_: str, at: str, mods: tuple[str, ...]) -> Fn:
    """Dispatch one ``cvt`` by its destination and source types and modifiers."""
    ftz = "ftz" in mods
    sat = "sat" in mods
    relu = "relu" in mods
    satfinite = "satfinite" in mods
    irnd = next((m for m in mods if m in _IRND), None)
    mode = next((m for m in mods if m in fp.ROUND_MODES), None)
    if dt_ == "tf32":
        return tf32("rna" if "rna" in mods else (mode or "rn"))
    unsupported = {"e4m3", "e5m2", "e4m3x2", "e5m2x2", "b128", "pred", "f16x2", "bf16x2", "tf32"}
    if dt_ in unsupported or at in unsupported:
        raise NotSupportedError(f"cvt .{dt_}.{at} is not supported")
    d_int, a_int = dt_ in INT_TYPES, at in INT_TYPES
    if d_int and a_int:
        return int_to_int(dt_, at, sat)
    if d_int:
        return float_to_int(dt_, at, irnd, ftz)
    if a_int:
        return int_to_float(dt_, at, mode or "rn", ftz, sat)
    return float_to_float(dt_, at, mode, irnd, ftz, sat, relu, satfinite)


# ----------------------------------------------------------------------------- mov
def mov_copy(a):
    """``mov`` between registers/immediates: a fresh array (never alias the source)."""
    return np.array(a, copy=True)


def pack(t: str, n: int) -> Fn:
    """``mov.bN d, {e0, e1, ...}``: element 0 in the least significant bits."""
    w = bits_of(t)
    ew = w // n
    dt = dtype_of(t)
    wide = U64 if w == 64 else U32

    def fn(*elems):
        out = wide(0)
        for i, e in enumerate(elems):
            out = out | (np.asarray(e).astype(wide) << wide(ew * i))
        return np.asarray(out).astype(dt)
    return fn


def unpack(t: str, n: int) -> Fn:
    """``mov.bN {e0, e1, ...}, s``: returns the n elements, element 0 from the low bits."""
    w = bits_of(t)
    ew = w // n
    et = {8: np.uint8, 16: np.uint16, 32: np.uint32}[ew]
    wide = U64 if w == 64 else U32
    mask = wide((1 << ew) - 1)

    def fn(a):
        x = np.asarray(a).astype(wide)
        return tuple(((x >> wide(ew * i)) & mask).astype(et) for i in range(n))
    return fn
