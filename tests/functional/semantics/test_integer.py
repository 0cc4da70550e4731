"""Integer ALU semantics: exact table tests and hypothesis properties against Python ints."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sem_helpers import as_list, run

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1
INT_MIN = -(1 << 31)
INT_MAX = (1 << 31) - 1


def s32(x: int) -> int:
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def s64(x: int) -> int:
    x &= M64
    return x - (1 << 64) if x >> 63 else x


@pytest.mark.parametrize("name,args,expected", [
    ("add.s32", (INT_MAX, 1), INT_MIN),
    ("add.u32", (M32, 2), 1),
    ("add.sat.s32", (INT_MAX, 1), INT_MAX),
    ("add.sat.s32", (INT_MIN, -1), INT_MIN),
    ("add.sat.s32", (-5, 3), -2),
    ("sub.s32", (INT_MIN, 1), INT_MAX),
    ("sub.sat.s32", (INT_MIN, 1), INT_MIN),
    ("sub.u64", (0, 1), M64),
    ("add.s16", (0x7FFF, 1), -0x8000),
    ("mul.lo.s32", (0x10000, 0x10000), 0),
    ("mul.hi.s32", (-2, 3), -1),
    ("mul.hi.u32", (M32, M32), 0xFFFFFFFE),
    ("mul.hi.u64", (M64, M64), M64 - 1),
    ("mul.hi.s64", (-1, -1), 0),
    ("mul.hi.s64", (-(1 << 63), 2), -1),
    ("mul.hi.s64", (-(1 << 63), -(1 << 63)), 1 << 62),
    ("mul.wide.s32", (INT_MIN, INT_MIN), 1 << 62),
    ("mul.wide.u32", (M32, M32), (M32 * M32)),
    ("mul.wide.s16", (-3, 7), -21),
    ("mul.wide.u16", (0xFFFF, 0xFFFF), 0xFFFE0001),
    ("mad.lo.s32", (3, 4, -20), -8),
    ("mad.hi.u32", (M32, M32, 3), 0x1),
    ("mad.wide.s32", (INT_MIN, 2, 5), 2 * INT_MIN + 5),
    ("mad.hi.sat.s32", (INT_MAX, INT_MAX, INT_MAX), INT_MAX),
    ("mul24.lo.u32", (0x1FFFFFF, 2), 0x1FFFFFE),
    ("mul24.lo.s32", (0xFFFFFF, 5), -5),
    ("mul24.hi.u32", (0xFFFFFF, 0xFFFFFF), (0xFFFFFF * 0xFFFFFF) >> 16),
    ("mul24.hi.s32", (-1, 0x800000), 0x80),
    ("mad24.lo.s32", (3, 5, 1), 16),
    ("sad.u32", (3, 10, 100), 107),
    ("sad.s32", (-3, 10, 1), 14),
    ("div.s32", (7, -2), -3),
    ("div.s32", (-7, 2), -3),
    ("div.s32", (INT_MIN, -1), INT_MIN),
    ("div.s32", (5, 0), -1),
    ("div.s32", (-5, 0), -1),
    ("div.u32", (5, 0), M32),
    ("div.u64", (5, 0), M64),
    ("div.s64", (-(1 << 63), -1), -(1 << 63)),
    ("rem.s32", (-7, 2), -1),
    ("rem.s32", (7, -2), 1),
    ("rem.s32", (INT_MIN, -1), 0),
    ("rem.u32", (17, 0), 17),
    ("rem.s32", (-17, 0), -17),
    ("abs.s32", (INT_MIN,), INT_MIN),
    ("abs.s32", (-4,), 4),
    ("neg.s32", (INT_MIN,), INT_MIN),
    ("neg.s64", (5,), -5),
    ("min.s32", (-1, 1), -1),
    ("min.u32", (M32, 1), 1),
    ("max.s64", (-1, -2), -1),
    ("max.u16", (0xFFFF, 1), 0xFFFF),
    ("min.relu.s32", (-5, -3), 0),
    ("max.relu.s32", (-5, 3), 3),
    ("popc.b32", (M32,), 32),
    ("popc.b64", (M64,), 64),
    ("popc.b32", (0x0F0F,), 8),
    ("clz.b32", (0,), 32),
    ("clz.b32", (1,), 31),
    ("clz.b32", (M32,), 0),
    ("clz.b64", (1,), 63),
    ("clz.b64", (1 << 40,), 23),
    ("clz.b64", ((1 << 53) + 1,), 10),
    ("clz.b64", (M64,), 0),
    ("bfind.u32", (0,), M32),
    ("bfind.u32", (0x80000000,), 31),
    ("bfind.s32", (-1,), M32),
    ("bfind.s32", (-2,), 0),
    ("bfind.s32", (0x40000000,), 30),
    ("bfind.shiftamt.u32", (1,), 31),
    ("bfind.shiftamt.u32", (0,), M32),
    ("bfind.u64", (M64,), 63),
    ("brev.b32", (1,), 0x80000000),
    ("brev.b32", (0x12345678,), 0x1E6A2C48),
    ("brev.b64", (1,), 1 << 63),
    ("bfe.u32", (0xABCD1234, 8, 8), 0x12),
    ("bfe.s32", (0xABCD1234, 24, 8), -0x55),
    ("bfe.s32", (0x00000080, 4, 4), -8),
    ("bfe.u32", (M32, 0, 0), 0),
    ("bfe.s32", (M32, 0, 0), 0),
    ("bfe.u32", (0xF0000000, 28, 8), 0xF),
    ("bfe.s32", (0xF0000000, 28, 8), -1),
    ("bfe.s32", (0x80000000, 40, 4), -1),
    ("bfe.u32", (0x80000000, 40, 4), 0),
    ("bfe.u32", (0x12345678, 0x104, 0x208), 0x67),
    ("bfe.u64", (0xFEDCBA9876543210, 60, 4), 0xF),
    ("bfe.s64", (0x8000000000000000, 63, 1), -1),
    ("bfi.b32", (0xF, 0x12345678, 8, 4), 0x12345F78),
    ("bfi.b32", (0xFF, 0, 28, 8), 0xF0000000),
    ("bfi.b32", (0xFF, 0x11, 32, 8), 0x11),
    ("bfi.b32", (0xFF, 0x11, 0, 0), 0x11),
    ("bfi.b64", (1, 0, 63, 1), 1 << 63),
    ("dp4a.u32.u32", (0x01020304, 0x01010101, 10), 20),
    ("dp4a.s32.s32", (0xFF02FF01, 0x01010101, 0), -1 + 2 - 1 + 1),
    ("dp4a.s32.u32", (0x000000FF, 0x000000FF, 0), -255),
    ("dp2a.lo.s32.s32", (0xFFFF0002, 0x00000301, 5), 5 + 2 * 1 + (-1) * 3),
    ("dp2a.hi.u32.u32", (0x00020003, 0x05040000, 0), 3 * 4 + 2 * 5),
])
def test_int_table(name, args, expected):
    out = run(name, *args)
    assert as_list(out) == [expected] if np.asarray(out).ndim else int(out) == expected


@pytest.mark.parametrize("name,a,b,cin,d,cout", [
    ("add.cc.u32", M32, 1, None, 0, 1),
    ("add.cc.u32", 5, 6, None, 11, 0),
    ("addc.cc.u32", M32, 0, 1, 0, 1),
    ("addc.cc.u32", M32, M32, 1, M32, 1),
    ("addc.u32", 1, 2, 1, 4, None),
    ("sub.cc.u32", 0, 1, None, M32, 1),
    ("sub.cc.u32", 5, 5, None, 0, 0),
    ("subc.cc.u32", 0, 0, 1, M32, 1),
    ("subc.cc.u32", 5, 2, 1, 2, 0),
    ("add.cc.u64", M64, 1, None, 0, 1),
    ("addc.cc.s32", -1, 0, 1, 0, 1),
])
def test_carry_chain(name, a, b, cin, d, cout):
    out = run(name, a, b, cc=cin)
    if cout is None:
        assert as_list(out) == [d]
    else:
        assert as_list(out[0]) == [s32(d) if ".s32" in name else d]
        assert as_list(out[1]) == [cout]
        assert out[1].dtype == np.uint32


def test_mad_cc_chain_gives_64bit_product_sum():
    # (a * b).lo + c with carry into (a * b).hi + c2 + CF: the 64-bit sum of a*b + c
    a, b, c = 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF
    lo, cf = run("mad.lo.cc.u32", a, b, c)
    hi = run("madc.hi.u32", a, b, 0, cc=int(cf[0]))
    assert (int(hi[0]) << 32) | int(lo[0]) == a * b + c


def test_128bit_add_chain():
    x, y = (1 << 96) - 1, 1
    limbs = []
    cf = None
    for i in range(4):
        xa, ya = (x >> (32 * i)) & M32, (y >> (32 * i)) & M32
        if i == 0:
            d, cf = run("add.cc.u32", xa, ya)
        else:
            d, cf = run("addc.cc.u32", xa, ya, cc=int(cf[0]))
        limbs.append(int(d[0]))
    assert sum(v << (32 * i) for i, v in enumerate(limbs)) == x + y


# ----------------------------------------------------------------------------- properties
u32s = st.integers(0, M32)
u64s = st.integers(0, M64)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(u32s, u32s), min_size=1, max_size=40))
def test_u32_ops_match_python(pairs):
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    assert as_list(run("add.u32", a, b)) == [(x + y) & M32 for x, y in pairs]
    assert as_list(run("mul.lo.u32", a, b)) == [(x * y) & M32 for x, y in pairs]
    assert as_list(run("mul.hi.u32", a, b)) == [(x * y) >> 32 for x, y in pairs]
    assert as_list(run("div.u32", a, b)) == [x // y if y else M32 for x, y in pairs]
    assert as_list(run("rem.u32", a, b)) == [x % y if y else x for x, y in pairs]
    assert as_list(run("shl.b32", a, b)) == [(x << y) & M32 if y < 32 else 0 for x, y in pairs]
    assert as_list(run("shr.u32", a, b)) == [x >> y if y < 32 else 0 for x, y in pairs]
    assert as_list(run("shr.s32", a, b)) == [s32(x) >> min(y, 31) for x, y in pairs]
    assert as_list(run("clz.b32", a)) == [32 - x.bit_length() for x in a]
    assert as_list(run("popc.b32", a)) == [bin(x).count("1") for x in a]
    assert as_list(run("brev.b32", a)) == [int(f"{x:032b}"[::-1], 2) for x in a]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(u64s, u64s), min_size=1, max_size=40))
def test_64bit_ops_match_python(pairs):
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    assert as_list(run("mul.hi.u64", a, b)) == [(x * y) >> 64 for x, y in pairs]
    assert as_list(run("mul.hi.s64", a, b)) == [(s64(x) * s64(y)) >> 64 for x, y in pairs]
    assert as_list(run("clz.b64", a)) == [64 - x.bit_length() for x in a]
    q = as_list(run("div.s64", a, b))
    for (x, y), got in zip(pairs, q, strict=True):
        sx, sy = s64(x), s64(y)
        want = -1 if sy == 0 else s64(abs(sx) // abs(sy) * (1 if (sx < 0) == (sy < 0) else -1))
        assert got == want
    r = as_list(run("rem.s64", a, b))
    for (x, y), got in zip(pairs, r, strict=True):
        sx, sy = s64(x), s64(y)
        want = sx if sy == 0 else s64((abs(sx) % abs(sy)) * (1 if sx >= 0 else -1))
        assert got == want


def _bfe_ref(a: int, pos: int, ln: int, w: int, signed: bool) -> int:
    pos &= 0xFF
    ln &= 0xFF
    msb = w - 1
    sbit = 0 if (not signed or ln == 0) else (a >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(w):
        bit = (a >> (pos + i)) & 1 if (i < ln and pos + i <= msb) else sbit
        d |= bit << i
    return s32(d) if signed and w == 32 else d


def _bfi_ref(a: int, b: int, pos: int, ln: int, w: int) -> int:
    pos &= 0xFF
    ln &= 0xFF
    f = b
    for i in range(ln):
        if pos + i > w - 1:
            break
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
    return f


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(u32s, u32s, st.integers(0, 300), st.integers(0, 300)), min_size=1, max_size=30))
def test_bfe_bfi_match_reference(rows):
    a = [r[0] for r in rows]
    b = [r[1] for r in rows]
    pos = [r[2] for r in rows]
    ln = [r[3] for r in rows]
    assert as_list(run("bfe.u32", a, pos, ln)) == [_bfe_ref(*r[0:1], r[2], r[3], 32, False) for r in rows]
    assert as_list(run("bfe.s32", a, pos, ln)) == [_bfe_ref(r[0], r[2], r[3], 32, True) for r in rows]
    assert as_list(run("bfi.b32", a, b, pos, ln)) == [_bfi_ref(r[0], r[1], r[2], r[3], 32) for r in rows]


def test_shift_counts_at_and_beyond_width():
    assert as_list(run("shl.b16", [1, 1, 1], [15, 16, 70000])) == [0x8000, 0, 0]
    assert as_list(run("shr.s16", [-8, -8], [16, 1 << 31])) == [-1, -1]
    assert as_list(run("shl.b64", [1, 1], [63, 64])) == [1 << 63, 0]
    assert as_list(run("shr.u64", [M64, M64], [63, 64])) == [1, 0]


def test_shape_agnostic_batched():
    a = np.arange(65536, dtype=np.int32)
    from gpgpusim.functional.semantics import lookup
    from sem_helpers import inst
    spec = lookup(inst("mad.lo.s32", 3))
    out = spec.fn(a, a, a)
    assert out.shape == (65536,) and out.dtype == np.int32
    assert int(out[65535]) == s32(65535 * 65535 + 65535)


@pytest.mark.parametrize("name,a,k,expected", [
    ("shl.b64", 3, 2, 12),
    ("shl.b32", 0x80000001, 1, 2),
    ("shl.b32", 1, 32, 0),
    ("shl.b16", 1, 100, 0),
    ("shr.u32", 0x80000000, 31, 1),
    ("shr.s32", -8, 1, -4),
    ("shr.s32", -8, 40, -1),
    ("shr.s64", 8, 64, 0),
    ("shr.b64", M64, 63, 1),
])
def test_shift_by_immediate(name, a, k, expected):
    assert as_list(run(name, [a, a], 0, imm={1: k})) == [expected, expected]


@pytest.mark.parametrize("name,a,b,expected", [
    ("bmsk.clamp.b32", 4, 8, 0xFF0),
    ("bmsk.clamp.b32", 28, 8, 0xF0000000),
    ("bmsk.clamp.b32", 0, 40, M32),
    ("bmsk.clamp.b32", 33, 3, 0),
    ("bmsk.wrap.b32", 36, 33, 0x10),
    ("bmsk.wrap.b32", 0, 32, 0),
    ("szext.clamp.s32", 0xFF, 8, -1),
    ("szext.clamp.s32", 0x7F, 8, 0x7F),
    ("szext.clamp.u32", 0x1FF, 8, 0xFF),
    ("szext.clamp.s32", 0x80000000, 40, INT_MIN),
    ("szext.wrap.s32", 0x1F, 36, -1),
    ("szext.clamp.s32", 0x1F, 0, 0),
])
def test_bmsk_szext(name, a, b, expected):
    assert as_list(run(name, [a], [b])) == [expected]
