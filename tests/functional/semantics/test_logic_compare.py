"""Logic, shift, permute, comparison and selection semantics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sem_helpers import as_list, f32, run

M32 = 0xFFFFFFFF
NAN = float("nan")


def test_bitwise_and_pred():
    assert as_list(run("and.b32", [0xF0F0], [0xFF00])) == [0xF000]
    assert as_list(run("or.b64", [1 << 40], [1])) == [(1 << 40) | 1]
    assert as_list(run("xor.b16", [0xFFFF], [0x0F0F])) == [0xF0F0]
    assert as_list(run("not.b32", [0])) == [M32]
    assert as_list(run("cnot.b32", [0, 5])) == [1, 0]
    assert as_list(run("and.pred", [True, True, False], [True, False, False])) == [True, False, False]
    assert as_list(run("or.pred", [True, False], [False, False])) == [True, False]
    assert as_list(run("xor.pred", [True, True], [True, False])) == [False, True]
    assert as_list(run("not.pred", [True, False])) == [False, True]


def _lop3_ref(a: int, b: int, c: int, lut: int) -> int:
    out = 0
    for i in range(32):
        idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1)
        out |= ((lut >> idx) & 1) << i
    return out


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 255), st.lists(st.tuples(*[st.integers(0, M32)] * 3), min_size=1, max_size=8))
def test_lop3_every_lut(lut, rows):
    a, b, c = ([r[i] for r in rows] for i in range(3))
    got = run("lop3.b32", a, b, c, 0, imm={3: lut})
    assert as_list(got) == [_lop3_ref(*r, lut) for r in rows]
    assert got.dtype == np.uint32


def test_lop3_named_luts():
    a, b, c = 0xF0F0F0F0, 0xCCCCCCCC, 0xAAAAAAAA
    assert as_list(run("lop3.b32", [a], [b], [c], 0, imm={3: 0x96})) == [a ^ b ^ c]
    assert as_list(run("lop3.b32", [0xF0], [0xCC], [0xAA], 0, imm={3: 0xE8})) == [0xE8]
    assert as_list(run("lop3.b32", [1], [2], [3], 0, imm={3: 0xFF})) == [M32]
    assert as_list(run("lop3.b32", [1], [2], [3], 0, imm={3: 0x00})) == [0]


def _prmt_ref(a: int, b: int, c: int) -> int:
    src = (b << 32) | a
    out = 0
    for i in range(4):
        sel = (c >> (4 * i)) & 0xF
        byte = (src >> (8 * (sel & 7))) & 0xFF
        if sel & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * i)
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(*[st.integers(0, M32)] * 3), min_size=1, max_size=16))
def test_prmt_generic(rows):
    a, b, c = ([r[i] for r in rows] for i in range(3))
    assert as_list(run("prmt.b32", a, b, c)) == [_prmt_ref(*r) for r in rows]


def test_prmt_immediate_and_modes():
    a, b = 0x33221100, 0x77665544
    assert as_list(run("prmt.b32", [a], [b], [0], imm={2: 0x3210})) == [a]
    assert as_list(run("prmt.b32", [a], [b], [0], imm={2: 0x7654})) == [b]
    assert as_list(run("prmt.b32", [0x80], [0], [0], imm={2: 0x8888})) == [M32]
    c = [0, 1, 2, 3]
    assert as_list(run("prmt.b32.f4e", [a] * 4, [b] * 4, c)) == [0x33221100, 0x44332211, 0x55443322, 0x66554433]
    assert as_list(run("prmt.b32.b4e", [a] * 4, [b] * 4, c)) == [0x55667700, 0x66770011, 0x77001122, 0x00112233]
    assert as_list(run("prmt.b32.rc8", [a] * 4, [b] * 4, c)) == [0x00000000, 0x11111111, 0x22222222, 0x33333333]
    assert as_list(run("prmt.b32.ecl", [a] * 4, [b] * 4, c)) == [0x33221100, 0x33221111, 0x33222222, 0x33333333]
    assert as_list(run("prmt.b32.ecr", [a] * 4, [b] * 4, c)) == [0x00000000, 0x11111100, 0x22221100, 0x33221100]
    assert as_list(run("prmt.b32.rc16", [a] * 4, [b] * 4, c)) == [0x11001100, 0x33223322, 0x11001100, 0x33223322]


@pytest.mark.parametrize("name,a,b,c,expected", [
    ("shf.l.wrap.b32", 0x80000000, 0x1, 1, 0x3),
    ("shf.l.wrap.b32", 0x80000000, 0x1, 33, 0x3),
    ("shf.l.clamp.b32", 0x12345678, 0x9ABCDEF0, 40, 0x12345678),
    ("shf.l.clamp.b32", 0x12345678, 0x9ABCDEF0, 0, 0x9ABCDEF0),
    ("shf.r.wrap.b32", 0x00000001, 0x00000003, 1, 0x80000000),
    ("shf.r.clamp.b32", 0x12345678, 0x9ABCDEF0, 32, 0x9ABCDEF0),
    ("shf.r.clamp.b32", 0x12345678, 0x9ABCDEF0, 100, 0x9ABCDEF0),
    ("shf.r.wrap.b32", 0x12345678, 0x9ABCDEF0, 36, 0x01234567),
])
def test_shf(name, a, b, c, expected):
    assert as_list(run(name, [a], [b], [c])) == [expected]


# ----------------------------------------------------------------------------- comparisons
@pytest.mark.parametrize("cmp,expected", [
    ("eq", [False, True, False, False]),
    ("ne", [True, False, True, False]),
    ("lt", [True, False, False, False]),
    ("le", [True, True, False, False]),
    ("gt", [False, False, True, False]),
    ("ge", [False, True, True, False]),
    ("equ", [False, True, False, True]),
    ("neu", [True, False, True, True]),
    ("ltu", [True, False, False, True]),
    ("leu", [True, True, False, True]),
    ("gtu", [False, False, True, True]),
    ("geu", [False, True, True, True]),
    ("num", [True, True, True, False]),
    ("nan", [False, False, False, True]),
])
@pytest.mark.parametrize("t", ["f32", "f64", "f16"])
def test_setp_float(cmp, expected, t):
    a = [1.0, 2.0, 3.0, NAN]
    b = [2.0, 2.0, -1.0, 1.0]
    assert as_list(run(f"setp.{cmp}.{t}", a, b)) == expected


def test_setp_bf16_and_ftz():
    bf = lambda x: int(np.float32(x).view(np.uint32)) >> 16  # noqa: E731
    assert as_list(run("setp.lt.bf16", [bf(1.0), 0x7FC0], [bf(2.0), bf(2.0)])) == [True, False]
    den = f32(1)
    assert as_list(run("setp.eq.f32", [den], [0.0])) == [False]
    assert as_list(run("setp.eq.ftz.f32", [den], [0.0])) == [True]
    assert as_list(run("setp.eq.f32", [-0.0], [0.0])) == [True]


@pytest.mark.parametrize("name,a,b,expected", [
    ("setp.lt.s32", -1, 0, True),
    ("setp.lt.u32", -1, 0, False),
    ("setp.lo.u32", 1, 2, True),
    ("setp.hi.u32", -1, 2, True),
    ("setp.hs.u32", 2, 2, True),
    ("setp.ls.u32", 3, 2, False),
    ("setp.lo.s32", -1, 1, False),
    ("setp.gt.s64", -(1 << 62), 5, False),
    ("setp.ge.u64", -1, 1, True),
    ("setp.eq.b32", 7, 7, True),
    ("setp.ne.b16", 7, 7, False),
    ("setp.le.s16", -3, -3, True),
])
def test_setp_int(name, a, b, expected):
    assert as_list(run(name, [a], [b])) == [expected]


def test_setp_boolop_and_pair():
    p, q = run("setp.lt.and.s32", [1, 1, 5, 5], [2, 2, 2, 2], [True, False, True, False], pair=True)
    assert as_list(p) == [True, False, False, False]
    assert as_list(q) == [False, False, True, False]
    p, q = run("setp.gt.or.f32", [NAN, 3.0], [1.0, 1.0], [False, False], pair=True)
    assert as_list(p) == [False, True]
    assert as_list(q) == [True, False]
    p, q = run("setp.eq.s32", [1, 2], [1, 3], pair=True)
    assert as_list(p) == [True, False] and as_list(q) == [False, True]
    assert as_list(run("setp.ne.xor.u32", [1, 1], [2, 1], [True, True])) == [False, True]


def test_setp_f16x2_two_results():
    h = lambda x: int(np.float16(x).view(np.uint16))  # noqa: E731
    a = h(1.0) | (h(5.0) << 16)
    b = h(2.0) | (h(2.0) << 16)
    p, q = run("setp.lt.f16x2", [a], [b], pair=True)
    assert as_list(p) == [True] and as_list(q) == [False]


def test_set():
    assert as_list(run("set.lt.u32.s32", [-1, 1], [0, 0])) == [M32, 0]
    assert as_list(run("set.lt.s32.s32", [-1, 1], [0, 0])) == [-1, 0]
    assert as_list(run("set.gtu.f32.f32", [NAN, 0.0], [1.0, 1.0])) == [1.0, 0.0]
    assert as_list(run("set.eq.and.u32.u32", [1, 1], [1, 1], [True, False])) == [M32, 0]


def test_selp_slct():
    assert as_list(run("selp.s32", [1, 1], [2, 2], [True, False])) == [1, 2]
    assert as_list(run("selp.f64", [1.5], [2.5], [False])) == [2.5]
    assert as_list(run("selp.b64", [1 << 40], [3], [True])) == [1 << 40]
    assert as_list(run("slct.u32.s32", [1, 1, 1], [2, 2, 2], [0, -1, 5])) == [1, 2, 1]
    assert as_list(run("slct.f32.f32", [1.0, 1.0, 1.0, 1.0], [2.0] * 4, [0.0, -0.0, NAN, -1.0])) == [1.0, 1.0, 2.0, 2.0]
    assert as_list(run("slct.s32.f32", [1, 1], [2, 2], [-f32(1), 1.0])) == [2, 1]
    assert as_list(run("slct.ftz.s32.f32", [1], [2], [-f32(1)])) == [1]


def test_set_half_destinations_and_packed_sources():
    h = lambda x: int(np.float16(x).view(np.uint16))  # noqa: E731
    out = run("set.nan.f16.f16", [NAN, 1.0], [1.0, 1.0])
    assert out.dtype == np.float16 and as_list(out) == [1.0, 0.0]
    a = h(1.0) | (h(NAN) << 16)
    b = h(1.0) | (h(2.0) << 16)
    assert as_list(run("set.eq.u32.f16x2", [a], [b])) == [0x0000FFFF]
    assert as_list(run("set.neu.f16x2.f16x2", [a], [b])) == [h(1.0) << 16]
    assert as_list(run("set.lt.bf16.f32", [1.0], [2.0])) == [0x3F80]


# ----------------------------------------------------------------------------- packed SIMD
def _pack16(lo: int, hi: int) -> int:
    return (lo & 0xFFFF) | ((hi & 0xFFFF) << 16)


def test_u16x2_s16x2():
    assert as_list(run("add.u16x2", [_pack16(0xFFFF, 1)], [_pack16(2, 3)])) == [_pack16(1, 4)]
    assert as_list(run("sub.u16x2", [_pack16(0, 5)], [_pack16(1, 3)])) == [_pack16(0xFFFF, 2)]
    assert as_list(run("min.s16x2", [_pack16(-1, 5)], [_pack16(1, -7)])) == [_pack16(-1, -7)]
    assert as_list(run("max.u16x2", [_pack16(0xFFFF, 5)], [_pack16(1, 7)])) == [_pack16(0xFFFF, 7)]
    assert as_list(run("max.relu.s16x2", [_pack16(-3, -5)], [_pack16(-1, 4)])) == [_pack16(0, 4)]


def test_video_simd():
    a = 0x10FF0180
    b = 0x20010280
    assert as_list(run("vabsdiff4.u32.u32.u32", [a], [b], [0])) == [0x10FE0100]
    assert as_list(run("vabsdiff4.u32.u32.u32.add", [a], [b], [5])) == [5 + 0x10 + 0xFE + 0x01]
    assert as_list(run("vadd4.u32.u32.u32", [a], [b], [0])) == [0x30000300]
    assert as_list(run("vadd4.u32.u32.u32.sat", [a], [b], [0])) == [0x30FF03FF]
    assert as_list(run("vmax4.s32.s32.s32", [a], [b], [0])) == [0x20010280]
    assert as_list(run("vsub2.s32.s32.s32.sat", [0x80000001], [0x00010002], [0])) == [0x8000FFFF]
    assert as_list(run("vavrg2.u32.u32.u32", [0x00030001], [0x00040002], [0])) == [0x00040002]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 0xFFFF), st.lists(st.tuples(st.integers(0, M32), st.integers(0, M32)), min_size=1, max_size=8))
def test_prmt_immediate_plan_matches_reference(sel, rows):
    a = [r[0] for r in rows]
    b = [r[1] for r in rows]
    assert as_list(run("prmt.b32", a, b, [0] * len(rows), imm={2: sel})) == [_prmt_ref(x, y, sel) for x, y in rows]
    for mode in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16"):
        by_reg = run(f"prmt.b32.{mode}", a, b, [sel] * len(rows))
        by_imm = run(f"prmt.b32.{mode}", a, b, [0] * len(rows), imm={2: sel})
        assert as_list(by_reg) == as_list(by_imm)


def test_lop3_with_predicate_output():
    from gpgpusim.functional.semantics import lookup
    from gpgpusim.ptx import ir
    ops = (ir.PredPair(ir.Reg("%r9"), ir.Reg("%p1")), ir.Reg("%r1"), ir.Reg("%r2"), ir.Reg("%r3"), ir.Imm(0x80),
           ir.Reg("%p2"))
    spec = lookup(ir.Instruction("lop3", ("and", "b32"), ops, line=3))
    assert spec.dst_types == ("b32", "pred")
    a = np.array([0xF0, 0xF0], np.uint32)
    b = np.array([0x30, 0x0F], np.uint32)
    d, p = spec.fn(a, b, np.array([0xFF, 0xFF], np.uint32), np.uint32(0x80), np.array([True, True]))
    assert as_list(d) == [0x30, 0x00] and as_list(p) == [True, False]
