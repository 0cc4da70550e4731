"""cvt (all type pairs and rounding modes) and mov (copy, pack/unpack) semantics."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sem_helpers import as_list, bits32, f32, inst, ref_round, run

from gpgpusim.errors import NotSupportedError
from gpgpusim.functional.semantics import lookup
from gpgpusim.ptx import ir

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1
I64_MAX = (1 << 63) - 1
I64_MIN = -(1 << 63)
NAN = float("nan")


@pytest.mark.parametrize("name,a,expected", [
    ("cvt.u32.u64", 0x123456789, 0x23456789),
    ("cvt.s64.s32", -1, -1),
    ("cvt.u64.u32", M32, M32),
    ("cvt.u64.s32", -1, M64),
    ("cvt.s32.s8", 0xFF, -1),
    ("cvt.u32.u8", 0x1FF, 0xFF),
    ("cvt.u16.u32", 0x12345, 0x2345),
    ("cvt.s16.s32", 0x18000, -0x8000),
    ("cvt.sat.u8.s32", -5, 0),
    ("cvt.sat.u8.s32", 300, 255),
    ("cvt.sat.s32.u32", M32, (1 << 31) - 1),
    ("cvt.sat.s8.s32", -200, -128),
    ("cvt.sat.u32.s64", -1, 0),
    ("cvt.sat.s64.u64", M64, I64_MAX),
    ("cvt.sat.u64.s64", -7, 0),
    ("cvt.sat.s16.s16", -7, -7),
])
def test_cvt_int_int(name, a, expected):
    assert as_list(run(name, [a])) == [expected]


@pytest.mark.parametrize("name,a,expected", [
    ("cvt.rni.s32.f32", [2.5, 3.5, -2.5, -0.5], [2, 4, -2, 0]),
    ("cvt.rzi.s32.f32", [-2.7, 2.7], [-2, 2]),
    ("cvt.rmi.s32.f32", [-2.1, 2.9], [-3, 2]),
    ("cvt.rpi.s32.f32", [2.1, -2.9], [3, -2]),
    ("cvt.rzi.s32.f32", [NAN, 1e10, -1e10, float("inf")], [0, (1 << 31) - 1, -(1 << 31), (1 << 31) - 1]),
    ("cvt.rzi.u32.f32", [-1.0, 5e9, 4294967040.0], [0, M32, 4294967040]),
    ("cvt.rni.u64.f64", [1.8446744073709552e19, -0.4], [M64, 0]),
    ("cvt.rzi.s64.f64", [9.3e18, -9.223372036854775808e18, -1e30], [I64_MAX, I64_MIN, I64_MIN]),
    ("cvt.rpi.s32.f32", [f32(1)], [1]),
    ("cvt.rpi.ftz.s32.f32", [f32(1)], [0]),
    ("cvt.rzi.s16.f32", [40000.0, -40000.0], [32767, -32768]),
    ("cvt.rni.u8.f32", [255.6, -3.0], [255, 0]),
    ("cvt.rzi.s32.f64", [-2147483648.9], [-2147483648]),
    ("cvt.rni.s32.f16", [2.5], [2]),
])
def test_cvt_float_int(name, a, expected):
    assert as_list(run(name, a)) == expected


def test_cvt_float_int_bf16_source():
    assert as_list(run("cvt.rzi.s32.bf16", [0x4040])) == [3]  # bf16 3.0


@pytest.mark.parametrize("name,a,expected", [
    ("cvt.rn.f32.s32", [16777217, 16777219], [16777216.0, 16777220.0]),
    ("cvt.rp.f32.s32", [16777217], [16777218.0]),
    ("cvt.rm.f32.s32", [-16777217], [-16777218.0]),
    ("cvt.rz.f32.u32", [M32], [4294967040.0]),
    ("cvt.rn.f32.u32", [M32], [4294967296.0]),
    ("cvt.rn.f64.s64", [(1 << 53) + 1], [float(1 << 53)]),
    ("cvt.rp.f64.s64", [(1 << 53) + 1], [float((1 << 53) + 2)]),
    ("cvt.rz.f64.s64", [-((1 << 53) + 1)], [-float(1 << 53)]),
    ("cvt.rn.f64.u64", [M64], [2.0 ** 64]),
    ("cvt.rz.f64.u64", [M64], [2.0 ** 64 - 2048]),
    ("cvt.rn.f32.u64", [M64], [2.0 ** 64]),
    ("cvt.rz.f32.u64", [M64], [2.0 ** 64 - 2.0 ** 40]),
    ("cvt.rn.f32.s64", [(1 << 54) + (1 << 30) + 1], [float((1 << 54) + (1 << 31))]),
    ("cvt.rn.f32.s64", [I64_MIN], [-(2.0 ** 63)]),
    ("cvt.rn.f64.s32", [-7], [-7.0]),
    ("cvt.rn.f16.u32", [2049, 2051], [2048.0, 2052.0]),
    ("cvt.rz.f16.s32", [-2051], [-2050.0]),
])
def test_cvt_int_float(name, a, expected):
    assert as_list(run(name, a)) == expected


def test_cvt_int_bf16():
    bf = lambda x: int(np.float32(x).view(np.uint32)) >> 16  # noqa: E731
    assert as_list(run("cvt.rn.bf16.s32", [257, 259, -259])) == [bf(256), bf(260), bf(-260)]
    assert as_list(run("cvt.rz.bf16.s32", [259])) == [bf(258)]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(I64_MIN, I64_MAX), min_size=1, max_size=20), st.sampled_from(["rn", "rz", "rm", "rp"]))
def test_cvt_s64_to_f32_matches_exact(xs, mode):
    got = run(f"cvt.{mode}.f32.s64", xs)
    for x, g in zip(xs, got, strict=True):
        if x == 0:
            assert float(g) == 0.0
            continue
        assert bits32(g) == bits32(ref_round(Fraction(x), np.float32, mode))


@pytest.mark.parametrize("name,a,expected_bits", [
    ("cvt.rn.f32.f64", 0.1, 0x3DCCCCCD),
    ("cvt.rz.f32.f64", 0.1, 0x3DCCCCCC),
    ("cvt.rm.f32.f64", -0.1, 0xBDCCCCCD),
    ("cvt.rp.f32.f64", -0.1, 0xBDCCCCCC),
    ("cvt.rn.f32.f64", 1e300, 0x7F800000),
    ("cvt.rz.f32.f64", 1e300, 0x7F7FFFFF),
    ("cvt.rn.f32.f64", 1e-40, 0x000116C2),
    ("cvt.rn.ftz.f32.f64", 1e-40, 0x00000000),
    ("cvt.rn.f32.f64", 1e-50, 0x00000000),
    ("cvt.rp.f32.f64", 1e-50, 0x00000001),
    ("cvt.rni.f32.f32", 2.5, 0x40000000),
    ("cvt.rni.f32.f32", -0.5, 0x80000000),
    ("cvt.rzi.f32.f32", -2.7, 0xC0000000),
    ("cvt.rmi.f32.f32", 2.7, 0x40000000),
    ("cvt.rpi.f32.f32", 2.1, 0x40400000),
    ("cvt.rpi.ftz.f32.f32", f32(1), 0x00000000),
    ("cvt.sat.f32.f32", 2.0, 0x3F800000),
    ("cvt.sat.f32.f32", NAN, 0x00000000),
    ("cvt.sat.f32.f32", -3.0, 0x00000000),
    ("cvt.ftz.f32.f32", f32(5), 0x00000000),
    ("cvt.f32.f32", f32(5), 0x00000005),
    ("cvt.f32.f16", 1.5, 0x3FC00000),
])
def test_cvt_float_float_f32(name, a, expected_bits):
    out = run(name, [a])
    assert out.dtype == np.float32
    assert bits32(out[0]) == expected_bits, hex(bits32(out[0]))


def test_cvt_other_float_pairs():
    assert as_list(run("cvt.f64.f32", [0.1])) == [float(np.float32(0.1))]
    assert as_list(run("cvt.rni.f64.f64", [2.5, 3.5])) == [2.0, 4.0]
    assert as_list(run("cvt.rn.f16.f32", [1.0 + 2.0 ** -11, 65520.0, 1e-8])) == [1.0, float("inf"), 0.0]
    assert as_list(run("cvt.rz.f16.f32", [65520.0])) == [65504.0]
    assert as_list(run("cvt.rn.f16.f64", [1.0 + 2.0 ** -11 + 2.0 ** -40])) == [1.0 + 2.0 ** -10]
    assert as_list(run("cvt.f64.f16", [0.333251953125])) == [0.333251953125]
    assert as_list(run("cvt.rn.relu.f16.f32", [-1.0, 2.0])) == [0.0, 2.0]
    assert as_list(run("cvt.rn.satfinite.f16.f32", [1e6, -1e6])) == [65504.0, -65504.0]
    bfraw = run("cvt.rn.bf16.f32", [1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, NAN])
    assert as_list(bfraw) == [0x3F80, 0x3F82, 0x7FFF]
    assert as_list(run("cvt.rz.bf16.f32", [1.0 + 3 * 2.0 ** -8])) == [0x3F81]
    assert as_list(run("cvt.f32.bf16", [0x3FC0])) == [1.5]
    assert as_list(run("cvt.rn.bf16.f64", [1.0 + 2.0 ** -8 + 2.0 ** -40])) == [0x3F81]


def test_cvt_pack_x2_and_tf32():
    h = lambda x: int(np.float16(x).view(np.uint16))  # noqa: E731
    assert as_list(run("cvt.rn.f16x2.f32", [1.0], [2.0])) == [h(2.0) | (h(1.0) << 16)]
    assert as_list(run("cvt.rn.relu.f16x2.f32", [-1.0], [3.0])) == [h(3.0)]
    assert as_list(run("cvt.rn.bf16x2.f32", [1.0], [-2.0])) == [0xC000 | (0x3F80 << 16)]
    assert as_list(run("cvt.rna.tf32.f32", [1.0 + 2.0 ** -11, 1.0 + 2.0 ** -12, NAN])) == [
        bits32(1.0 + 2.0 ** -10), bits32(1.0), 0x7FFFFFFF]


def test_cvt_unsupported_types_raise():
    with pytest.raises(NotSupportedError, match="line 7"):
        lookup(inst("cvt.rn.satfinite.e4m3x2.bf16x2", 1))


# ----------------------------------------------------------------------------- mov
def test_mov_copies():
    spec = lookup(inst("mov.u32", 1))
    a = np.array([1, 2], dtype=np.uint32)
    out = spec.fn(a)
    assert as_list(out) == [1, 2] and out is not a and not np.shares_memory(out, a)
    assert as_list(run("mov.pred", [True])) == [True]
    assert as_list(run("mov.f64", [1.5])) == [1.5]


def test_mov_pack_unpack():
    assert as_list(run("mov.b64", [0x11111111], [0x22222222], vec_src=2)) == [0x2222222211111111]
    lo, hi = run("mov.b64", [0x2222222211111111], vec_dst=2)
    assert as_list(lo) == [0x11111111] and as_list(hi) == [0x22222222]
    assert lo.dtype == np.uint32
    assert as_list(run("mov.b32", [0x1234], [0xABCD], vec_src=2)) == [0xABCD1234]
    parts = run("mov.b32", [0x44332211], vec_dst=4)
    assert [as_list(p) for p in parts] == [[0x11], [0x22], [0x33], [0x44]]
    spec = lookup(inst("mov.b64", 0, vec_src=2))
    assert spec.src_types == ("b32", "b32") and spec.dst_types == ("b64",)


def test_mov_special_and_symbol_are_the_engines():
    tid = ir.Instruction("mov", ("u32",), (ir.Reg("%r1"), ir.Special("%tid", "x")))
    sym = ir.Instruction("mov", ("u64",), (ir.Reg("%rd1"), ir.Sym("smem")))
    assert lookup(tid) is None and lookup(sym) is None


def test_non_alu_opcodes_are_none():
    for op in ("ld", "st", "bra", "bar", "atom", "shfl", "vote", "ret", "exit", "call"):
        assert lookup(ir.Instruction(op, ("u32",), (ir.Reg("%r1"),))) is None


def test_bad_combinations_raise_not_supported():
    for name, n in (("add.f32.s32", 2), ("rem.f32", 2), ("abs.u32", 1), ("mul.wide.s64", 2),
                    ("bfe.b16", 3), ("popc.f32", 1), ("mad.sat.u32", 3), ("setp.s32", 2)):
        with pytest.raises(NotSupportedError, match=name.split(".")[0]):
            lookup(inst(name, n))


def test_wrong_operand_count_is_ptx_error():
    from gpgpusim.errors import PtxError
    with pytest.raises(PtxError, match="expected 2 source operands, found 3"):
        lookup(inst("add.s32", 3))


# ----------------------------------------------------------------------------- FP8
E4M3_CASES = [(1.0, 0x38), (1.0625, 0x38), (1.1875, 0x3A), (448.0, 0x7E), (500.0, 0x7E), (float("inf"), 0x7E),
              (float("-inf"), 0xFE), (0.0, 0x00), (-0.0, 0x80), (2.0 ** -9, 0x01), (2.0 ** -10, 0x00),
              (1.5 * 2.0 ** -10, 0x01), (-3.0, 0xC4), (NAN, 0x7F)]
E5M2_CASES = [(1.0, 0x3C), (57344.0, 0x7B), (60000.0, 0x7B), (float("inf"), 0x7B), (2.0 ** -16, 0x01),
              (1.125, 0x3C), (1.375, 0x3E), (-2.0, 0xC0), (NAN, 0x7F)]


@pytest.mark.parametrize("fmt,cases", [("e4m3", E4M3_CASES), ("e5m2", E5M2_CASES)])
def test_fp8_encode_from_f32(fmt, cases):
    a = [c[0] for c in cases]
    got = run(f"cvt.rn.satfinite.{fmt}x2.f32", a, [1.0] * len(a))
    one = 0x38 if fmt == "e4m3" else 0x3C
    assert as_list(got) == [(code << 8) | one for _, code in cases]
    assert got.dtype == np.uint16


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_fp8_roundtrip_every_code(fmt):
    codes = [c for c in range(256) if not (fmt == "e4m3" and c & 0x7F == 0x7F)
             and not (fmt == "e5m2" and (c & 0x7C) == 0x7C)]
    packed = [c | (c << 8) for c in codes]
    halves = run(f"cvt.rn.f16x2.{fmt}x2", packed)
    back = run(f"cvt.rn.satfinite.{fmt}x2.f16x2", as_list(halves))
    assert as_list(back) == packed


def test_fp8_relu_and_decode():
    h = lambda x: int(np.float16(x).view(np.uint16))  # noqa: E731
    assert as_list(run("cvt.rn.satfinite.relu.e4m3x2.f32", [-3.0], [2.0])) == [0x40]
    assert as_list(run("cvt.rn.f16x2.e4m3x2", [0x3C38])) == [h(1.0) | (h(1.5) << 16)]
    assert as_list(run("cvt.rn.relu.f16x2.e5m2x2", [0xC03C])) == [h(1.0)]


def _ref_f2i(x: float, irnd: str, lo: int, hi: int) -> int:
    import math
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return hi if x > 0 else lo
    q = Fraction(x)
    if irnd == "rzi":
        v = math.trunc(q)
    elif irnd == "rmi":
        v = math.floor(q)
    elif irnd == "rpi":
        v = math.ceil(q)
    else:
        v = round(q)  # Fraction rounds half to even
    return min(max(v, lo), hi)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(width=32) | st.sampled_from([2.5, -2.5, 0.5, -0.5, 2147483647.0, -2147483648.0, 4294967296.0]),
                min_size=1, max_size=20),
       st.sampled_from(["rni", "rzi", "rmi", "rpi"]),
       st.sampled_from([("s32", -(1 << 31), (1 << 31) - 1), ("u32", 0, M32), ("s64", I64_MIN, I64_MAX),
                        ("u64", 0, M64), ("s16", -(1 << 15), (1 << 15) - 1), ("u8", 0, 255)]))
def test_cvt_f32_to_int_matches_reference(xs, irnd, target):
    t, lo, hi = target
    got = as_list(run(f"cvt.{irnd}.{t}.f32", xs))
    assert got == [_ref_f2i(float(np.float32(x)), irnd, lo, hi) for x in xs]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-(1 << 63), M64), min_size=1, max_size=20),
       st.sampled_from(["s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"]),
       st.sampled_from(["s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"]),
       st.booleans())
def test_cvt_int_to_int_matches_reference(xs, dt, at, sat):
    abits, dbits = int(at[1:]), int(dt[1:])

    def as_type(v: int, signed: bool, bits: int) -> int:
        v &= (1 << bits) - 1
        return v - (1 << bits) if signed and v >> (bits - 1) else v

    vals = [as_type(x, at[0] == "s", abits) for x in xs]
    lo, hi = (-(1 << (dbits - 1)), (1 << (dbits - 1)) - 1) if dt[0] == "s" else (0, (1 << dbits) - 1)
    want = [min(max(v, lo), hi) if sat else as_type(v, dt[0] == "s", dbits) for v in vals]
    got = as_list(run(f"cvt{'.sat' if sat else ''}.{dt}.{at}", vals))
    assert got == want


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-3e38, max_value=3e38), min_size=1, max_size=10),
       st.sampled_from(["rn", "rz", "rm", "rp"]))
def test_cvt_f64_to_f32_matches_exact(xs, mode):
    got = run(f"cvt.{mode}.f32.f64", xs)
    for x, g in zip(xs, got, strict=True):
        if x == 0:
            assert bits32(g) == bits32(np.float32(x))
            continue
        assert bits32(g) == bits32(ref_round(Fraction(x), np.float32, mode)), (x, mode)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, M64), min_size=1, max_size=10), st.sampled_from(["rn", "rz", "rm", "rp"]))
def test_cvt_u64_to_f64_matches_exact(xs, mode):
    got = run(f"cvt.{mode}.f64.u64", xs)
    for x, g in zip(xs, got, strict=True):
        want = 0.0 if x == 0 else ref_round(Fraction(x), np.float64, mode)
        assert float(g) == float(want), (x, mode)
