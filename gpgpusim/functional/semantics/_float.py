"""Floating-point arithmetic semantics for f32, f64, f16, bf16 and the packed x2 forms.

GPGPU-Sim counterparts: ``add_impl``, ``sub_impl``, ``mul_impl``, ``fma_impl``, ``mad_impl``,
``div_impl``, ``rcp_impl``, ``sqrt_impl``, ``rsqrt_impl``, ``sin_impl``, ``cos_impl``,
``lg2_impl``, ``ex2_impl``, ``abs_impl``, ``neg_impl``, ``min_impl``, ``max_impl``,
``copysign_impl``, ``testp_impl`` (``src/cuda-sim/instructions.cc``; checklist C221).

Exactness
---------
* ``.rn`` add/sub/mul/div/sqrt are numpy's own IEEE operations in the operand precision.
  f16 and bf16 compute in f32 and round once more; that double rounding is innocuous for
  + - * / sqrt because 24 >= 2p + 2 (p = 11 or 8).
* ``fma``/``mad`` are single-rounding.  f32/f16: the f64 product is exact, so RN(p + c) in f64
  is already right unless it lands exactly on a rounding midpoint of the narrow format (or in
  the f32 subnormal range); only those lanes take the exact TwoSum + round-to-odd path.  bf16
  uses that exact path.  f64: Dekker's TwoProduct and Boldo-Melquiond's round-to-odd emulation;
  the rare lanes outside its range (an operand beyond 2**995, a non-zero product below
  2**-969, an intermediate overflow) are recomputed one by one with rationals, so f64 fma is
  exact everywhere, signed zeros and infinities included.
* ``.rz .rm .rp`` are exact for f32 add/sub/mul/fma/div/sqrt/rcp and for f64 add/sub/mul/div/
  sqrt/rcp over the whole range (residual signs from error-free transforms, on frexp-
  normalised mantissas for f64 mul/div/sqrt; an overflowing f64 sum steps back to +-MAX
  where the mode says so), and for f64 ``fma`` as above.  An exactly-zero sum is -0 under
  ``.rm`` (IEEE 754).  ``tests/functional/semantics/test_float_specials.py`` checks all of
  this against a rational reference over NaN, +-Inf, +-0, subnormals and overflow.
* ``.approx`` transcendentals (``sin cos lg2 ex2 tanh rsqrt``, ``rcp/div/sqrt.approx``) are
  computed exactly in f64 and rounded to nearest: GPGPU-Sim also uses the host libm; real
  hardware differs by a few ulp.
* ``.ftz`` flushes subnormal f32 (or f16) inputs and results to sign-preserving zero; ``.sat``
  clamps to [0, 1] with NaN -> +0.
* NaN results are the canonical NaN (0x7FFFFFFF, 0x7FFF for halves) for min/max; arithmetic
  NaNs keep whatever the host produces (PTX does not specify payloads).
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import numpy as np

from . import _fp as fp

Fn = Callable[..., Any]
F16, F32, F64 = np.float16, np.float32, np.float64
U16, U32, U64 = np.uint16, np.uint32, np.uint64

CANON_NAN: dict[str, Any] = {"f32": U32(0x7FFFFFFF), "f64": U64(0x7FFFFFFFFFFFFFFF), "f16": U16(0x7FFF), "bf16": U16(0x7FFF)}


#: False while :func:`gpgpusim.functional.semantics.lookup` builds for a caller that runs every
#: ``fn`` under ``np.errstate(all="ignore")`` itself (``lookup(inst, quiet=False)``).
WRAP_QUIET: ContextVar[bool] = ContextVar("WRAP_QUIET", default=True)


def quiet(fn: Fn) -> Fn:
    """Wrap ``fn`` so that overflow/invalid/underflow never warn (they are results, not errors).
    Costs ~1 us per call; skipped when the caller promised its own errstate (WRAP_QUIET)."""
    if not WRAP_QUIET.get():
        return fn

    def q(*args):
        with np.errstate(all="ignore"):
            return fn(*args)
    q.__name__ = getattr(fn, "__name__", "fn")
    q.__doc__ = fn.__doc__
    return q


def _post(t: str, ftz: bool, sat: bool, relu: bool = False) -> Callable[[np.ndarray], np.ndarray]:
    """Result post-processing on the computation dtype (f16/f32/f64)."""
    steps: list[Callable[[np.ndarray], np.ndarray]] = []
    if ftz:
        steps.append(fp.ftz32 if t == "f32" else fp.ftz16 if t == "f16" else fp.ftz64 if t == "f64" else _ident)
    if sat:
        steps.append(fp.sat)
    if relu:
        steps.append(_relu)
    if not steps:
        return _ident
    if len(steps) == 1:
        return steps[0]

    def run(x):
        for s in steps:
            x = s(x)
        return x
    return run


def _ident(x):
    return x


def _relu(x):
    return np.where(np.isnan(x), x, np.maximum(x, x.dtype.type(0)))


def _pre(t: str, ftz: bool) -> Callable[[np.ndarray], np.ndarray]:
    if not ftz:
        return _ident
    return {"f32": fp.ftz32, "f16": fp.ftz16, "f64": _ident}.get(t, _ident)


# ----------------------------------------------------------------------------- core per precision
def _rm_zero(r: np.ndarray, x: np.ndarray, y: np.ndarray, exact_zero: np.ndarray) -> np.ndarray:
    """IEEE: an *exactly* zero sum ``x + y`` is -0 when rounding toward -inf, unless both
    addends are +0 (a result that merely underflowed to zero keeps its sign)."""
    plus = (x == 0) & (y == 0) & ~np.signbit(x) & ~np.signbit(y)
    return np.where(exact_zero & ~plus, -np.abs(r), r)


def _core_binary(op: str, t: str, mode: str) -> Fn:
    """RN or directed add/sub/mul/div for native f16/f32/f64 arrays."""
    native = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[op]
    if mode == "rn" or t == "f16":
        return native
    if t == "f32":
        if op in ("add", "sub"):
            def addsub(a, b):
                a64 = a.astype(F64)
                b64 = b.astype(F64) if op == "add" else -b.astype(F64)
                s, e = fp.two_sum(a64, b64)
                r = fp.f64_round(fp.odd(s, e), F32, mode)
                return _rm_zero(r, a64, b64, s == 0) if mode == "rm" else r
            return addsub
        if op == "mul":
            return lambda a, b: fp.f64_round(a.astype(F64) * b.astype(F64), F32, mode)

        def div32(a, b):
            r = np.divide(a, b)
            a64, b64 = a.astype(F64), b.astype(F64)
            return fp.adjust(r, (a64 - r.astype(F64) * b64) * np.sign(b64), mode)
        return div32
    # f64
    if op in ("add", "sub"):
        def addsub64(a, b):
            b = b if op == "add" else -b
            s, e = fp.two_sum(a, b)
            # finite operands that overflowed to +-inf: the exact sum lies inside (-inf, inf),
            # so a directed mode may have to step back to +-MAX
            e = np.where(np.isinf(s) & np.isfinite(a) & np.isfinite(b), -s, e)
            r = fp.adjust(s, e, mode)
            return _rm_zero(r, a, b, s == 0) if mode == "rm" else r
        return addsub64
    if op == "mul":
        def mul64(a, b):
            # residual on mantissas in [0.5, 1): Dekker stays exact at any magnitude, and the
            # rounded product scaled by the same power of two keeps the residual's sign
            r = a * b
            ma, ea = np.frexp(a)
            mb, eb = np.frexp(b)
            p, e = fp.two_prod(ma, mb)
            return fp.adjust(r, (p - np.ldexp(r, -(ea + eb))) + e, mode)
        return mul64

    def div64(a, b):
        q = a / b
        ma, ea = np.frexp(a)
        mb, eb = np.frexp(b)
        qs = np.ldexp(q, -(ea - eb))
        p, pe = fp.two_prod(qs, mb)
        return fp.adjust(q, ((ma - p) - pe) * np.sign(b), mode)
    return div64


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp split of f64 into two 26-bit halves (x = hi + lo exactly)."""
    t = fp.SPLIT * x
    hi = t - (t - x)
    return hi, x - hi


def _prod_err(a: np.ndarray, b: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Dekker: the exact error a*b - p for p = RN(a*b)."""
    ah, al = _split(a)
    bh, bl = _split(b)
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fast_two_sum_raw(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's TwoSum without the finiteness guard (s, e with s + e == x + y)."""
    s = x + y
    bb = s - x
    return s, (x - (s - bb)) + (y - bb)


def _core_fma(t: str, mode: str) -> Fn:
    if t in ("f32", "f16"):
        dt = F32 if t == "f32" else F16

        def fma_narrow(a, b, c):
            p, c64 = a.astype(F64) * b.astype(F64), c.astype(F64)
            s, e = fp.two_sum(p, c64)
            r = fp.f64_round(fp.odd(s, e), dt, mode)
            return _rm_zero(r, p, c64, s == 0) if mode == "rm" else r
        if mode == "rn":
            return _fma_rn_fast(fma_narrow, dt, 23 if t == "f32" else 10,
                                fp.F32_MIN_NORMAL if t == "f32" else fp.F16_MIN_NORMAL)
        return fma_narrow

    def fma64(a, b, c):
        # Boldo-Melquiond with unguarded error-free transforms; any non-finite intermediate
        # reaches r, and those lanes take the plain formula (already the IEEE answer there).
        # Small helpers keep few 65,536-lane temporaries alive at once (cache-friendly).
        a = np.asarray(a, dtype=F64)
        b = np.asarray(b, dtype=F64)
        p = a * b
        ul = _prod_err(a, b, p)
        th, tl = _fast_two_sum_raw(c, p)
        s2, e2 = _fast_two_sum_raw(tl, ul)
        del tl, ul
        r = th + fp.odd(s2, e2)
        ok = np.isfinite(r)
        if not ok.all():
            # IEEE there: an infinite c wins over a finite product, even one whose rounding
            # overflowed (finite overflowing lanes are redone exactly below)
            r = np.where(ok, r, np.where(np.isinf(c) & np.isfinite(a) & np.isfinite(b), c, p + c))
        zero = r == 0
        if zero.any():
            # an exactly zero result (a*b == -c, or zero product and zero c): p + c has IEEE's
            # sign (-0 + -0 = -0, +0 otherwise), which the two-sum chain loses
            r = np.where(zero, p + c, r)
        if mode != "rn":
            resid = np.where(np.isfinite(r), ((th - r) + s2) + e2, 0.0)
            r = fp.adjust(r, resid, mode)
            if mode == "rm":     # (a zero operand makes the product exact even where resid is NaN)
                r = _rm_zero(r, p, c, (r == 0) & ((resid == 0) | (a == 0) | (b == 0)))
        # lanes outside the error-free transforms' range (a huge operand, a product that
        # underflows, an intermediate overflow) are rare: round them exactly, one by one
        hard = _fma64_hard(a, b, c, p, r)
        if hard is not None:
            r = np.array(r, dtype=F64)
            for i in hard:
                r.flat[i] = _fma64_exact(float(np.broadcast_to(a, r.shape).flat[i]),
                                         float(np.broadcast_to(b, r.shape).flat[i]),
                                         float(np.broadcast_to(c, r.shape).flat[i]), mode)
        return r
    return fma64


_BIG = 2.0 ** 995
_TINY = 2.0 ** -969


def _fma64_hard(a, b, c, p, r) -> np.ndarray | None:
    """Flat indices of the lanes where the f64 fma transforms are not exact: finite operands,
    a non-zero product, and |a| or |b| above 2**995, |RN(a*b)| below 2**-969, or a
    non-finite intermediate.  None when there are none (the common case, two reductions)."""
    big = (np.abs(a) > _BIG) | (np.abs(b) > _BIG) | (np.abs(p) < _TINY) | ~np.isfinite(r)
    if not big.any():
        return None
    big &= np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & (a != 0) & (b != 0)
    big = np.broadcast_to(big, np.shape(r))
    return np.flatnonzero(big) if big.any() else None


def _fma64_exact(a: float, b: float, c: float, mode: str) -> float:
    """a*b + c rounded once to f64 in ``mode``, with rationals (finite operands, a*b != 0)."""
    import math
    from fractions import Fraction

    q = Fraction(a) * Fraction(b) + Fraction(c)
    if q == 0:                                   # exact cancellation of a non-zero product
        return -0.0 if mode == "rm" else 0.0
    try:
        r = q.numerator / q.denominator          # correctly rounded to nearest (CPython)
    except OverflowError:
        up = mode == "rn" or (mode == "rp" and q > 0) or (mode == "rm" and q < 0)
        return (math.inf if up else _F64_MAX) * (1.0 if q > 0 else -1.0)
    fr = Fraction(r) if math.isfinite(r) else None
    if mode == "rz" and (fr is None or abs(fr) > abs(q)):
        r = math.nextafter(r, 0.0)
    elif mode == "rm" and (fr is None or fr > q):
        r = math.nextafter(r, -math.inf)
    elif mode == "rp" and (fr is None or fr < q):
        r = math.nextafter(r, math.inf)
    return r


_F64_MAX = float(np.finfo(np.float64).max)


def _fma_rn_fast(exact: Fn, dt: type, frac_bits: int, min_normal) -> Fn:
    """``fma.rn`` for f32/f16 fast path: the f64 product is exact, so RN(p + c) in f64 followed
    by the narrow rounding is correct unless the f64 sum landed exactly on a rounding midpoint
    of the narrow format (the only case where the discarded f64 error can flip the narrow
    rounding), tested on the bits for normal-range results; subnormal/zero-range results
    (midpoints at other bit positions) are also rechecked.  Those rare lanes are recomputed
    with the exact round-to-odd algorithm."""
    drop = 52 - frac_bits
    mask = U64((1 << drop) - 1)
    tie = U64(1 << (drop - 1))

    def fma_fast(a, b, c):
        s = np.multiply(a, b, dtype=F64) + c  # operands widen inside the ufunc loops (exact)
        r = s.astype(dt)
        bad = ((s.view(U64) & mask) == tie) | (np.abs(r) < min_normal)
        if bad.any():
            if r.ndim == 0:
                return exact(a, b, c)
            idx = np.flatnonzero(bad)
            sub = [np.broadcast_to(x, r.shape).ravel()[idx] for x in (a, b, c)]
            r.ravel()[idx] = exact(*sub)
        return r
    return fma_fast


def _core_sqrt(t: str, mode: str) -> Fn:
    if mode == "rn" or t == "f16":
        return np.sqrt
    if t == "f32":
        def sqrt32(a):
            r = np.sqrt(a)
            r64 = r.astype(F64)
            return fp.adjust(r, a.astype(F64) - r64 * r64, mode)
        return sqrt32

    def sqrt64(a):
        r = np.sqrt(a)
        ma, ea = np.frexp(a)
        odd_e = ea % 2
        ma, ea = np.ldexp(ma, odd_e), ea - odd_e  # even exponent: sqrt(a) = sqrt(ma) * 2**(ea/2)
        rs = np.ldexp(r, -(ea // 2))
        p, pe = fp.two_prod(rs, rs)
        return fp.adjust(r, (ma - p) - pe, mode)
    return sqrt64


_UNARY_APPROX: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "sin": np.sin, "cos": np.cos, "lg2": np.log2, "ex2": np.exp2, "tanh": np.tanh,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "rcp": lambda x: 1.0 / x, "sqrt": np.sqrt,
}


# ----------------------------------------------------------------------------- type adapters
def _adapt(t: str, core: Fn, nargs: int, pre, post) -> Fn:
    """Build the operand-level function for type ``t`` around a core working on the
    computation dtype: f16/f32/f64 natively, bf16 through f32, x2 types per half."""
    if t in ("f32", "f64", "f16"):
        if pre is _ident and post is _ident:
            return quiet(core)
        if nargs == 1:
            return quiet(lambda a: post(core(pre(a))))
        if nargs == 2:
            return quiet(lambda a, b: post(core(pre(a), pre(b))))
        return quiet(lambda a, b, c: post(core(pre(a), pre(b), pre(c))))
    if t == "bf16":
        def bf(*args):
            r = post(core(*(fp.bf16_to_f32(x) for x in args)))
            return fp.f32_to_bf16(r) if r.dtype == F32 else fp.f64_to_bf16(r)
        return quiet(bf)
    if t in ("f16x2", "bf16x2"):
        half = _adapt(t[:-2], core, nargs, pre, post)
        is_f16 = t == "f16x2"

        def x2(*args):
            parts = [fp.split_x2(x) for x in args]
            if is_f16:
                lo = fp.f16_to_raw(half(*(fp.f16_from_raw(p[0]) for p in parts)))
                hi = fp.f16_to_raw(half(*(fp.f16_from_raw(p[1]) for p in parts)))
            else:
                lo = half(*(p[0] for p in parts))
                hi = half(*(p[1] for p in parts))
            return fp.join_x2(lo, hi)
        return x2
    raise ValueError(f"not a float type: {t}")


def _bf16_fma_core(mode: str) -> Fn:
    def core(a, b, c):  # a, b, c are f32 (exact bf16 values); returns f64 rounded to odd
        s, e = fp.two_sum(a.astype(F64) * b.astype(F64), c.astype(F64))
        return fp.odd(s, e)
    return core


# ----------------------------------------------------------------------------- public builders
def arith(op: str, t: str, mode: str = "rn", ftz: bool = False, sat: bool = False, relu: bool = False) -> Fn:
    """``add sub mul div`` (binary) for every float type."""
    comp = "f32" if t in ("bf16", "bf16x2") else t[:3]
    core = _core_binary(op, comp, mode)
    return _adapt(t, core, 2, _pre(comp, ftz), _post(comp, ftz, sat, relu))


def fma(t: str, mode: str = "rn", ftz: bool = False, sat: bool = False, relu: bool = False) -> Fn:
    if t in ("bf16", "bf16x2"):
        core = _bf16_fma_core(mode)
        return _adapt(t, core, 3, _ident, _post("f64", False, sat, relu))
    comp = t[:3]
    return _adapt(t, _core_fma(comp, mode), 3, _pre(comp, ftz), _post(comp, ftz, sat, relu))


def sqrt(t: str, mode: str = "rn", ftz: bool = False) -> Fn:
    return _adapt(t, _core_sqrt(t, mode), 1, _pre(t, ftz), _post(t, ftz, False))


def rcp(t: str, mode: str = "rn", ftz: bool = False) -> Fn:
    div = _core_binary("div", t, mode)
    one = {"f32": F32(1), "f64": F64(1), "f16": F16(1)}[t]
    return _adapt(t, lambda a: div(np.full_like(a, one), a), 1, _pre(t, ftz), _post(t, ftz, False))


def approx(op: str, t: str, ftz: bool = False) -> Fn:
    """``.approx`` unary functions: exact f64 math rounded to nearest in the operand type."""
    f = _UNARY_APPROX[op]
    if t in ("bf16", "bf16x2"):
        return _adapt(t, lambda a: f(a.astype(F64)).astype(F32), 1, _ident, _ident)
    comp = t[:3]
    dt = {"f32": F32, "f16": F16, "f64": F64}[comp]
    return _adapt(t, lambda a: f(a.astype(F64)).astype(dt), 1, _pre(comp, ftz), _post(comp, ftz, False))


def div_approx(t: str, ftz: bool = False) -> Fn:
    """``div.approx``/``div.full``: the correctly rounded quotient (documented deviation)."""
    return arith("div", t, "rn", ftz)


def absneg(op: str, t: str, ftz: bool = False) -> Fn:
    """Sign-bit operations (NaN payloads kept)."""
    if t in ("bf16", "bf16x2", "f16x2"):
        mask = U32(0x7FFF7FFF) if t.endswith("x2") else U16(0x7FFF)
        flip = U32(0x80008000) if t.endswith("x2") else U16(0x8000)
        if op == "abs":
            return lambda a: a & mask
        return lambda a: a ^ flip
    pre = _pre(t, ftz)
    f = np.abs if op == "abs" else np.negative
    if pre is _ident:
        return f
    return quiet(lambda a: f(pre(a)))


_UINT_OF = {2: U16, 4: U32, 8: U64}


def minmax(op: str, t: str, ftz: bool = False, nan: bool = False, xorsign: bool = False,
           abs_inputs: bool = False, nargs: int = 2) -> Fn:
    """PTX min/max: one NaN operand -> the other; both (or, with ``.NaN``, either) NaN ->
    canonical NaN; -0.0 is less than +0.0 (for equal operands the sign bits are combined:
    AND for max, OR for min).  ``.xorsign.abs``: compare magnitudes, the result's sign is
    sign(a) XOR sign(b) (unless NaN).  ``nargs=3`` is PTX 8.8's ``min/max{.abs}.f32 d, a, b, c``:
    the same rules applied as op(op(a, b), c) (they are associative), on |a|, |b|, |c| with
    ``.abs``."""
    comp = "f32" if t in ("bf16", "bf16x2") else t[:3]
    canon = CANON_NAN[comp].view({"f32": F32, "f64": F64, "f16": F16}[comp])
    is_max = op == "max"
    pick = np.fmax if is_max else np.fmin
    combine = np.bitwise_and if is_max else np.bitwise_or

    def core(a, b):
        if xorsign:
            # .xorsign.abs: compare magnitudes; the result's sign is sign(a) XOR sign(b)
            neg = np.signbit(a) != np.signbit(b)
            r = core_plain(np.abs(a), np.abs(b))
            return np.where(np.isnan(r), r, np.where(neg, -r, r))
        return core_plain(a, b)

    def core_plain(a, b):
        r = pick(a, b)
        eq = a == b
        if eq.any():
            ut = _UINT_OF[r.dtype.itemsize]
            r = np.where(eq, combine(a.view(ut), b.view(ut)).view(r.dtype), r)
        bad = (np.isnan(a) | np.isnan(b)) if nan else np.isnan(r)
        if bad.any():
            r = np.where(bad, canon, r)
        return r

    if nargs == 3:
        def core3(a, b, c):
            if abs_inputs:
                a, b, c = np.abs(a), np.abs(b), np.abs(c)
            return core_plain(core_plain(a, b), c)
        return _adapt(t, core3, 3, _pre(comp, ftz), _post(comp, ftz, False))
    # bf16 computes in f32; f32_to_bf16 maps any NaN to the canonical bf16 NaN 0x7FFF
    return _adapt(t, core, 2, _pre(comp, ftz), _post(comp, ftz, False))


def copysign(t: str) -> Fn:
    """``copysign d, a, b``: |b| with the sign of a."""
    return lambda a, b: np.copysign(b, a)


_TESTP = {
    "finite": lambda x: np.isfinite(x),
    "infinite": lambda x: np.isinf(x),
    "number": lambda x: ~np.isnan(x),
    "notanumber": lambda x: np.isnan(x),
    "normal": lambda x: np.isfinite(x) & (np.abs(x) >= np.finfo(x.dtype).tiny),
    "subnormal": lambda x: (np.abs(x) < np.finfo(x.dtype).tiny) & (x != 0),
}


def testp(op: str, t: str) -> Fn:
    return _TESTP[op]
