"""f32/f64 ``add sub mul div fma`` in every rounding mode, with ``.ftz`` and ``.sat``, over the
whole input domain — NaN, ±Inf, ±0, subnormals, FLT_MAX/DBL_MAX, overflow, division by zero —
against an exact reference written from the IEEE 754 rules with ``fractions.Fraction``.

The reference never calls the engine's helpers or numpy arithmetic: it rounds the exact
rational result to the format's grid (subnormals included) in the requested direction, applies
IEEE's overflow and signed-zero rules, and PTX's ``.ftz`` (subnormal inputs and rounded results
become sign-preserving zeros, as GPGPU-Sim applies it after the host operation) and ``.sat``
(clamp to [+0, 1], NaN -> +0).  NaN results are compared as "some NaN" (PTX leaves payloads
open).  Checklist C221; PTX ISA "Floating-Point Instructions".
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sem_helpers import run

MODES = ("rn", "rz", "rm", "rp")
NAN = "nan"


class Fmt:
    """A binary floating-point format: precision p (with the hidden bit), exponent range."""

    def __init__(self, name: str, p: int, emax: int, dtype, udtype) -> None:
        self.name, self.p, self.emax = name, p, emax
        self.emin = 1 - emax
        self.dtype, self.udtype = dtype, udtype
        self.max = (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax
        self.min_normal = Fraction(2) ** self.emin

    def bits(self, x: float) -> int:
        return int(np.asarray(x, dtype=self.dtype).view(self.udtype))

    def from_bits(self, b: int) -> float:
        return float(np.asarray(b, dtype=self.udtype).view(self.dtype))


F32 = Fmt("f32", 24, 127, np.float32, np.uint32)
F64 = Fmt("f64", 53, 1023, np.float64, np.uint64)


def _round(q: Fraction, fmt: Fmt, mode: str) -> float:
    """The non-zero exact value ``q`` rounded to ``fmt`` in ``mode`` (overflow included)."""
    neg = q < 0
    a = -q if neg else q
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    if Fraction(2) ** (e + 1) <= a:
        e += 1
    up_inf = {"rn": True, "rz": False, "rp": not neg, "rm": neg}[mode]
    if e > fmt.emax:                                      # beyond the largest binade
        return -math.inf if neg and up_inf else math.inf if up_inf else float(-fmt.max if neg else fmt.max)
    quantum = Fraction(2) ** (max(e, fmt.emin) - fmt.p + 1)
    m = a / quantum
    n = m.numerator // m.denominator
    rest = m - n
    if rest:
        if mode == "rn":
            n += rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1)
        elif mode == "rp":
            n += not neg
        elif mode == "rm":
            n += neg
    v = n * quantum
    if v > fmt.max:                                       # rounded up past MAX
        return -math.inf if neg else math.inf
    return -float(v) if neg else float(v)                 # -0.0 for a negative underflow


def _flush(x: float, fmt: Fmt) -> float:
    if fmt is F32 and x != 0 and math.isfinite(x) and abs(Fraction(x)) < fmt.min_normal:
        return math.copysign(0.0, x)
    return x


def _zero_sum(x: float, y: float, mode: str) -> float:
    """IEEE: x + y for an exactly zero sum."""
    if x == 0 and y == 0 and math.copysign(1, x) == math.copysign(1, y):
        return x
    return -0.0 if mode == "rm" else 0.0


def reference(op: str, mode: str, args: tuple[float, ...], fmt: Fmt, ftz: bool = False,
              sat: bool = False) -> float | str:
    """The IEEE/PTX result of ``op.mode[.ftz][.sat].fmt`` on ``args`` (floats exactly
    representable in fmt); NAN for any NaN result."""
    if ftz:
        args = tuple(_flush(x, fmt) for x in args)
    r = _ieee(op, mode, args, fmt)
    if r != NAN and ftz:
        r = _flush(r, fmt)
    if sat:
        if r == NAN or r <= 0:
            return 0.0
        return min(r, 1.0)
    return r


def _sign(x: float) -> int:
    return -1 if math.copysign(1, x) < 0 else 1


def _ieee(op: str, mode: str, args: tuple[float, ...], fmt: Fmt) -> float | str:
    if any(math.isnan(x) for x in args):
        return NAN
    if op == "sub":
        return _ieee("add", mode, (args[0], -args[1]), fmt)
    if op == "add":
        a, b = args
        if math.isinf(a) or math.isinf(b):
            if math.isinf(a) and math.isinf(b) and a != b:
                return NAN
            return a if math.isinf(a) else b
        q = Fraction(a) + Fraction(b)
        return _zero_sum(a, b, mode) if q == 0 else _round(q, fmt, mode)
    if op == "mul":
        a, b = args
        s = _sign(a) * _sign(b)
        if math.isinf(a) or math.isinf(b):
            return NAN if a == 0 or b == 0 else s * math.inf
        q = Fraction(a) * Fraction(b)
        return math.copysign(0.0, s) if q == 0 else _round(q, fmt, mode)
    if op == "div":
        a, b = args
        s = _sign(a) * _sign(b)
        if math.isinf(a):
            return NAN if math.isinf(b) else s * math.inf
        if math.isinf(b):
            return math.copysign(0.0, s)
        if b == 0:
            return NAN if a == 0 else s * math.inf
        q = Fraction(a) / Fraction(b)
        return math.copysign(0.0, s) if q == 0 else _round(q, fmt, mode)
    assert op == "fma"
    a, b, c = args
    s = _sign(a) * _sign(b)
    if math.isinf(a) or math.isinf(b):
        if a == 0 or b == 0:
            return NAN
        p = s * math.inf
        return NAN if math.isinf(c) and c != p else p
    if math.isinf(c):
        return c
    prod = Fraction(a) * Fraction(b)
    q = prod + Fraction(c)
    if q == 0:
        return _zero_sum(math.copysign(0.0, s) if prod == 0 else 1.0, c if prod == 0 else -1.0, mode)
    return _round(q, fmt, mode)


def _same(got: float, want: float | str, fmt: Fmt) -> bool:
    if want == NAN:
        return math.isnan(got)
    return fmt.bits(got) == fmt.bits(want)


def _check(op: str, mode: str, fmt: Fmt, cols: list[list[float]], ftz: bool = False, sat: bool = False):
    name = f"{op}.{mode}{'.ftz' if ftz else ''}{'.sat' if sat else ''}.{fmt.name}"
    got = np.asarray(run(name, *cols), dtype=fmt.dtype).tolist()
    bad = []
    for i, g in enumerate(got):
        args = tuple(col[i] for col in cols)
        want = reference(op, mode, args, fmt, ftz, sat)
        if not _same(g, want, fmt):
            bad.append((args, g, want))
    assert not bad, f"{name}: {len(bad)} of {len(got)} differ, e.g. {bad[:3]}"


def _specials(fmt: Fmt) -> list[float]:
    tiny = fmt.from_bits(1)
    mn = float(fmt.min_normal)
    mx = float(fmt.max)
    return [0.0, -0.0, math.inf, -math.inf, math.nan, tiny, -tiny, mn, -mn, mn - tiny, mx, -mx,
            float(fmt.max / 2), 1.0, -1.0, 2.0, 0.5, 3.0, -1.5, fmt.from_bits(fmt.bits(1.0) + 1)]


BIN_OPS = ("add", "sub", "mul", "div")
FLAGS = [(False, False), (True, False), (False, True), (True, True)]


def _flags(op: str, fmt: Fmt) -> list[tuple[bool, bool]]:
    """(ftz, sat) combinations PTX allows: f32 only; div has no .sat."""
    if fmt is not F32:
        return FLAGS[:1]
    return FLAGS[:2] if op == "div" else FLAGS


# ----------------------------------------------------------------------------- exhaustive specials
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", BIN_OPS)
@pytest.mark.parametrize("fmt", [F32, F64], ids=["f32", "f64"])
def test_binary_ops_on_every_pair_of_special_values(fmt, op, mode):
    pairs = list(itertools.product(_specials(fmt), repeat=2))
    cols = [[p[0] for p in pairs], [p[1] for p in pairs]]
    for ftz, sat in _flags(op, fmt):
        _check(op, mode, fmt, cols, ftz, sat)


@pytest.mark.parametrize("mode", MODES)
def test_f32_fma_on_every_triple_of_special_values(mode):
    triples = list(itertools.product(_specials(F32), repeat=3))
    cols = [[t[k] for t in triples] for k in range(3)]
    for ftz, sat in FLAGS:
        _check("fma", mode, F32, cols, ftz, sat)


@pytest.mark.parametrize("mode", MODES)
def test_f64_fma_on_every_triple_of_special_values(mode):
    triples = list(itertools.product(_specials(F64), repeat=3))
    cols = [[t[k] for t in triples] for k in range(3)]
    _check("fma", mode, F64, cols)


# ----------------------------------------------------------------------------- properties
def _any_value(fmt: Fmt):
    """Specials, uniformly random bit patterns (every NaN, Inf, subnormal, normal) and values
    near the overflow and subnormal thresholds."""
    nbits = 8 * np.dtype(fmt.dtype).itemsize
    width = 32 if fmt is F32 else 64
    return st.one_of(
        st.sampled_from(_specials(fmt)),
        st.integers(0, (1 << nbits) - 1).map(fmt.from_bits),
        st.floats(width=width),
        st.integers(-8, 8).map(lambda k: fmt.from_bits(fmt.bits(float(fmt.max)) + min(k, 0))),
        st.integers(0, 1 << 24).map(lambda k: fmt.from_bits(k)),
    )


def _columns(fmt: Fmt, arity: int, lanes: int = 24):
    return st.lists(st.tuples(*[_any_value(fmt)] * arity), min_size=1, max_size=lanes).map(
        lambda rows: [[r[k] for r in rows] for k in range(arity)])


@settings(max_examples=40, deadline=None)
@given(st.data())
@pytest.mark.parametrize("fmt", [F32, F64], ids=["f32", "f64"])
def test_binary_ops_match_ieee_everywhere(fmt, data):
    op = data.draw(st.sampled_from(BIN_OPS))
    mode = data.draw(st.sampled_from(MODES))
    ftz, sat = data.draw(st.sampled_from(_flags(op, fmt)))
    _check(op, mode, fmt, data.draw(_columns(fmt, 2)), ftz, sat)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_f32_fma_matches_ieee_everywhere(data):
    mode = data.draw(st.sampled_from(MODES))
    ftz, sat = data.draw(st.sampled_from(FLAGS))
    _check("fma", mode, F32, data.draw(_columns(F32, 3)), ftz, sat)


@settings(max_examples=40, deadline=None)
@given(_columns(F64, 3), st.sampled_from(MODES))
def test_f64_fma_matches_ieee_everywhere(cols, mode):
    _check("fma", mode, F64, cols)


# ----------------------------------------------------------------------------- the reference itself
def test_reference_agrees_with_the_host_in_round_to_nearest():
    """Guards the reference: for rn without flags it must equal the host's IEEE arithmetic."""
    vals = _specials(F64)
    for a, b in itertools.product(vals, repeat=2):
        with np.errstate(all="ignore"):
            host = {"add": a + b if not (math.isinf(a) and math.isinf(b) and a != b) else math.nan,
                    "mul": float(np.float64(a) * np.float64(b)),
                    "div": float(np.float64(a) / np.float64(b))}
        for op, h in host.items():
            assert _same(h, reference(op, "rn", (a, b), F64), F64), (op, a, b)
    assert reference("add", "rm", (1.0, -1.0), F32) == 0.0 and math.copysign(1, reference("add", "rm", (1.0, -1.0), F32)) < 0
    assert reference("mul", "rz", (float(F32.max), 2.0), F32) == float(F32.max)
    assert reference("mul", "rn", (float(F32.max), 2.0), F32) == math.inf
    assert reference("add", "rn", (float(F32.max), float(Fraction(2) ** 103)), F32) == math.inf   # tie -> even (inf)
    assert reference("add", "rp", (float(F32.max), F32.from_bits(1)), F32) == math.inf
    assert reference("mul", "rn", (F32.from_bits(1), 0.5), F32) == 0.0                 # tie -> even (0)
    assert reference("mul", "rp", (F32.from_bits(1), 0.5), F32) == F32.from_bits(1)
    assert reference("add", "rn", (F32.from_bits(1), 0.0), F32, ftz=True) == 0.0
    assert reference("div", "rn", (-2.0, 0.0), F32, sat=True) == 0.0
