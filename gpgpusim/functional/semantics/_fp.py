"""Floating-point helpers: exact residuals, round-to-odd, directed rounding, FTZ, half formats.

GPGPU-Sim counterpart: the ``float``/``double`` arithmetic and the ``fesetround`` calls in
``src/cuda-sim/instructions.cc`` (checklist C221).  GPGPU-Sim changes the host rounding mode
around each operation; numpy cannot, so we compute the round-to-nearest result natively and
correct it with the *sign of the exact residual* (exact value minus rounded value), computed
exactly with error-free transformations (TwoSum, Dekker's TwoProduct).

Contracts
---------
* Every helper is elementwise over numpy arrays of any shape; no Python loops over lanes.
* ``mode`` is one of ``"rn"`` (nearest even), ``"rz"`` (toward zero), ``"rm"`` (toward -inf),
  ``"rp"`` (toward +inf).
* Round-to-odd (``odd``) is the classic trick for avoiding double rounding: a value rounded to
  odd at 53 bits rounds to any format of <= 51 bits in any mode exactly as the exact value
  would (Boldo & Melquiond).  It gives single-rounding ``fma.f32``, ``fma.f16`` and
  int64 -> f32 conversions.
* Callers run these under ``np.errstate(all="ignore")`` (overflow to inf and NaN arithmetic
  are expected here, not errors).
"""

from __future__ import annotations

import numpy as np

F16 = np.float16
F32 = np.float32
F64 = np.float64
U16 = np.uint16
U32 = np.uint32
U64 = np.uint64

F32_MIN_NORMAL = F32(np.finfo(np.float32).tiny)
F16_MIN_NORMAL = F16(np.finfo(np.float16).tiny)
F64_MIN_NORMAL = F64(np.finfo(np.float64).tiny)
SPLIT = F64(134217729.0)  # 2**27 + 1, Veltkamp splitter for f64
ROUND_MODES = ("rn", "rz", "rm", "rp")


# ----------------------------------------------------------------------------- error-free transforms
def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``s + e == a + b`` exactly with ``s = RN(a + b)`` (Knuth).  ``e`` is 0 where ``s`` is
    not finite."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, np.where(np.isfinite(s), e, 0.0)


def two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``p + e == a * b`` exactly with ``p = RN(a * b)`` (Dekker).  Exact unless |a| or |b|
    exceeds 2**995 or the product underflows below ~2**-969; ``e`` is 0 where not finite."""
    p = a * b
    ca = SPLIT * a
    ah = ca - (ca - a)
    al = a - ah
    cb = SPLIT * b
    bh = cb - (cb - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, np.where(np.isfinite(e) & np.isfinite(p), e, 0.0)


def odd(s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Round the exact double-double ``s + e`` (``s = RN(s + e)``) to odd at f64 precision."""
    inexact = e != 0
    bits = s.view(U64)
    toward_zero = (e < 0) != (s < 0)  # s lies above |exact|: truncation steps one ulp down
    bits = bits - (inexact & toward_zero).astype(U64)
    bits = bits | inexact.astype(U64)
    return bits.view(F64)


# ----------------------------------------------------------------------------- directed rounding
def adjust(r: np.ndarray, resid: np.ndarray, mode: str) -> np.ndarray:
    """Turn a round-to-nearest result ``r`` into the ``mode`` result, given ``resid`` whose
    sign is the sign of (exact - r) (NaN residual = exact, no change)."""
    if mode == "rn":
        return r
    zero = r.dtype.type(0)
    if mode == "rz":
        move = ((resid < 0) & (r > zero)) | ((resid > 0) & (r < zero))
        return np.where(move, np.nextafter(r, zero), r)
    if mode == "rm":
        return np.where(resid < 0, np.nextafter(r, r.dtype.type(-np.inf)), r)
    if mode == "rp":
        return np.where(resid > 0, np.nextafter(r, r.dtype.type(np.inf)), r)
    raise ValueError(f"unknown rounding mode {mode!r}")


def f64_round(x: np.ndarray, dtype: type, mode: str) -> np.ndarray:
    """Round f64 ``x`` (exact, or rounded to odd) to float ``dtype`` (f32/f16) in ``mode``."""
    r: np.ndarray = x.astype(dtype)
    if mode == "rn":
        return r
    return adjust(r, x - r.astype(F64), mode)


def f64_to_f32_odd(x: np.ndarray) -> np.ndarray:
    """Round f64 ``x`` to f32 with round-to-odd (for a later, narrower RN rounding)."""
    r = x.astype(F32)
    d = x - r.astype(F64)
    inexact = (d != 0) & np.isfinite(r)
    bits = r.view(U32)
    # the sign from the bits: a tiny negative x rounds to -0.0, which ``r < 0`` calls positive
    # (it would step -0.0 "down" to 0x7FFFFFFF, a NaN)
    toward_zero = (d < 0) != ((bits & U32(0x80000000)) != 0)
    bits = bits - (inexact & toward_zero).astype(U32)
    bits = bits | inexact.astype(U32)
    return bits.view(F32)


# ----------------------------------------------------------------------------- flush / saturate
def ftz32(x: np.ndarray) -> np.ndarray:
    """f32 subnormals -> sign-preserving zero (PTX ``.ftz``).  Integer tests on the bits; the
    select only runs when a lane is subnormal (rare)."""
    bits = x.view(U32)
    mag = bits & U32(0x7FFFFFFF)
    den = (mag < U32(0x00800000)) & (mag != U32(0))
    if not den.any():
        return x
    return np.where(den, bits & U32(0x80000000), bits).view(F32)


def ftz16(x: np.ndarray) -> np.ndarray:
    return np.where(np.abs(x) < F16_MIN_NORMAL, np.copysign(F16(0), x), x)


def ftz64(x: np.ndarray) -> np.ndarray:
    return np.where(np.abs(x) < F64_MIN_NORMAL, np.copysign(F64(0), x), x)


def sat(x: np.ndarray) -> np.ndarray:
    """PTX ``.sat`` for floats: clamp to [0.0, 1.0], NaN -> +0.0 (also -0.0 -> +0.0)."""
    one = x.dtype.type(1)
    zero = x.dtype.type(0)
    return np.where(x > zero, np.minimum(x, one), zero)


# ----------------------------------------------------------------------------- bf16 / f16 raw forms
def bf16_to_f32(u: np.ndarray) -> np.ndarray:
    """Raw bf16 bits (uint16) -> float32 (exact)."""
    return (u.astype(U32) << U32(16)).view(F32)


def f32_to_bf16(x: np.ndarray, mode: str = "rn") -> np.ndarray:
    """float32 -> raw bf16 bits (uint16), rounding ``rn`` or ``rz``; NaN -> canonical 0x7FFF."""
    bits = np.asarray(x, dtype=F32).view(U32)
    if mode == "rn":
        rounded = bits + U32(0x7FFF) + ((bits >> U32(16)) & U32(1))
    elif mode == "rz":
        rounded = bits
    else:
        # directed toward +-inf: round the magnitude up when the sign matches the direction
        up = ((bits & U32(0x80000000)) == 0) if mode == "rp" else ((bits & U32(0x80000000)) != 0)
        inexact = (bits & U32(0xFFFF)) != 0
        rounded = bits + np.where(up & inexact, U32(0x10000), U32(0))
    out = (rounded >> U32(16)).astype(U16)
    return np.where(np.isnan(x), U16(0x7FFF), out)


def f64_to_bf16(x: np.ndarray, mode: str = "rn") -> np.ndarray:
    """float64 -> raw bf16 with a single rounding (via round-to-odd f32)."""
    return f32_to_bf16(f64_to_f32_odd(x), mode)


def f16_from_raw(u: np.ndarray) -> np.ndarray:
    return np.asarray(u, dtype=U16).view(F16)


def f16_to_raw(h: np.ndarray) -> np.ndarray:
    return np.asarray(h, dtype=F16).view(U16)


def split_x2(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Packed 32-bit pair -> (lo, hi) raw uint16 halves."""
    x = x.astype(U32, copy=False)
    return (x & U32(0xFFFF)).astype(U16), (x >> U32(16)).astype(U16)


def join_x2(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return lo.astype(U32) | (hi.astype(U32) << U32(16))
