"""SASS semantics of the PTXPlus conversion, run on the functional engine, against values
computed here bit by bit (checklist C232-C236).

The references encode what the converter documents (``gpgpusim/ptxplus/convert/__init__.py``): NVIDIA
documents SASS opcodes only by name, so the carry, shift-clamp and ``.EX`` rules are inferred
from how nvcc 13 uses them (64-bit adds, subtractions, shifts and compares split into 32-bit
halves) and the tests pin those rules at their edges.
"""

from __future__ import annotations

import random
import struct

import numpy as np
import pytest

from gpgpusim.ptxplus.convert import UnsupportedSass, convert_kernel
from gpgpusim.ptx import parse_ptx
from tests.functional.engine_helpers import run_once
from tests.ptxplus import ptxplus_helpers as h
from tests.ptxplus.ptxplus_helpers import context, run_sass, sass_function, u32

EDGES = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFE, 0xFFFFFFFF, 0x12345678, 0xDEADBEEF]


def rows(n: int = 32, seed: int = 1) -> list[list[int]]:
    """n rows of 4 words: the edge values first, then seeded random words."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        row = [EDGES[(i + k * 3) % len(EDGES)] if i < 2 * len(EDGES) else rng.getrandbits(32) for k in range(4)]
        out.append(row)
    return out


def s32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def s64(x: int) -> int:
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >> 63 else x


def lop3_ref(a: int, b: int, c: int, lut: int) -> int:
    r = 0
    for i in range(32):
        idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1)
        r |= ((lut >> idx) & 1) << i
    return r


@pytest.mark.parametrize("group", range(64))
def test_lop3_all_256_tables(group):
    luts = [4 * group + k for k in range(4)]
    ins = rows(32, seed=group)
    out = run_sass([f"LOP3.LUT R{k}, R8, R9, R10, {lut:#x}, !PT ;" for k, lut in enumerate(luts)], ins)
    for t, (a, b, c, _) in enumerate(ins):
        assert [int(v) for v in out[t]] == [lop3_ref(a, b, c, lut) for lut in luts], (t, luts)


def test_lop3_predicate_output_and_immediates():
    ins = rows()
    out = run_sass(["LOP3.LUT P0, R0, R8, 0xff, RZ, 0xc0, !PT ;",
                    "SEL R1, 0x1, RZ, P0 ;",
                    "LOP3.LUT R2, RZ, R9, RZ, 0x33, !PT ;"], ins)
    for t, (a, b, _, _) in enumerate(ins):
        assert out[t][0] == a & 0xFF
        assert out[t][1] == int((a & 0xFF) != 0)
        assert out[t][2] == u32(~b)


def test_iadd3_64bit_add_and_subtract_carries():
    ins = rows()
    out = run_sass(["IADD3 R0, P0, R8, R10, RZ ;",
                    "IADD3.X R1, R9, R11, RZ, P0, !PT ;",
                    "IADD3 R2, P1, R8, -R10, RZ ;",
                    "IADD3.X R3, R9, ~R11, RZ, P1, !PT ;"], ins)
    for t, (a, b, c, d) in enumerate(ins):
        x, y = (b << 32) | a, (d << 32) | c
        s, diff = (x + y) & (2**64 - 1), (x - y) & (2**64 - 1)
        assert [int(v) for v in out[t]] == [s & 0xFFFFFFFF, s >> 32, diff & 0xFFFFFFFF, diff >> 32], t


def test_iadd3_three_inputs_two_carries():
    ins = rows()
    out = run_sass(["IADD3 R0, P0, P1, R8, R9, R10 ;",
                    "IADD3.X R1, RZ, RZ, RZ, P0, P1 ;",
                    "SEL R2, 0x1, RZ, P0 ;",
                    "SEL R3, 0x1, RZ, P1 ;"], ins)
    for t, (a, b, c, _) in enumerate(ins):
        s = a + b + c
        assert [int(v) for v in out[t]] == [s & 0xFFFFFFFF, s >> 32, int(s >= 2**32), int(s >= 2**33)], t


def test_iadd3_plain_wraps_and_negates():
    ins = rows()
    out = run_sass(["IADD3 R0, R8, -R9, R10 ;", "IADD3 R1, -R8, 0x10, RZ ;", "IADD3 R2, RZ, RZ, RZ ;",
                    "UIADD3 UR4, URZ, 0x7, URZ ;", "MOV R3, UR4 ;"], ins)
    for t, (a, b, c, _) in enumerate(ins):
        assert [int(v) for v in out[t]] == [u32(a - b + c), u32(16 - a), 0, 7], t


def test_imad_forms():
    ins = rows()
    out = run_sass(["IMAD R0, R8, R9, R10 ;",
                    "IMAD.HI.U32 R1, R8, R9, R10 ;",
                    "IMAD.HI R2, R8, R9, R10 ;",
                    "IMAD.MOV.U32 R3, RZ, RZ, -0x1 ;"], ins)
    for t, (a, b, c, d) in enumerate(ins):
        pair = (d << 32) | c   # IMAD.HI adds the register pair {R11:R10} to the 64-bit product
        assert int(out[t][0]) == u32(a * b + c)
        assert int(out[t][1]) == u32((a * b + pair) >> 32)
        assert int(out[t][2]) == u32(((s32(a) * s32(b)) + pair) >> 32)
        assert int(out[t][3]) == 0xFFFFFFFF


def test_imad_hi_signed_division_by_31_as_nvcc_emits_it():
    """q = t / 31 for signed t: IMAD.HI with the addend pair {t:0}, then the sign fix-up."""
    vals = [0, 1, 30, 31, 62, 1000, 0x7FFFFFFF, u32(-1), u32(-31), u32(-32), 0x80000000, 123456789]
    out = run_sass(["IMAD.MOV.U32 R4, RZ, RZ, RZ ;",
                    "MOV R5, R8 ;",
                    "IMAD.HI R6, R8, -0x7bdef7bd, R4 ;",
                    "SHF.R.U32.HI R7, RZ, 0x1f, R6 ;",
                    "LEA.HI.SX32 R0, R6, R7, 0x1c ;",
                    "IMAD R1, R0, -0x1f, R8 ;"], [[v, 0, 0, 0] for v in vals])
    for t, v in enumerate(vals):
        q = int(s32(v) / 31)   # C division truncates toward zero
        assert [int(out[t][0]), int(out[t][1])] == [u32(q), u32(s32(v) - 31 * q)], v


def test_imad_wide_signed_unsigned_and_x_carry():
    ins = rows()
    out = run_sass(["IMAD.WIDE R0, R8, R9, R10 ;",
                    "IMAD.WIDE.U32 R2, R8, R9, R10 ;"], ins)
    for t, (a, b, c, d) in enumerate(ins):
        acc = (d << 32) | c
        w = (s32(a) * s32(b) + acc) & (2**64 - 1)
        uw = (a * b + acc) & (2**64 - 1)
        assert [int(v) for v in out[t]] == [w & 0xFFFFFFFF, w >> 32, uw & 0xFFFFFFFF, uw >> 32], t
    # 64 x 64 -> 64 multiply as nvcc emits it: lo*lo wide, then the cross terms into the high word
    out = run_sass(["IMAD.WIDE.U32 R0, R8, R10, RZ ;",
                    "IMAD R4, R9, R10, RZ ;",
                    "IMAD R4, R8, R11, R4 ;",
                    "IADD3 R1, R1, R4, RZ ;",
                    "ISETP.GE.U32.AND P0, PT, R8, R10, PT ;",
                    "IMAD.X R2, RZ, RZ, RZ, P0 ;"], ins)
    for t, (a, b, c, d) in enumerate(ins):
        p = (((b << 32) | a) * ((d << 32) | c)) & (2**64 - 1)
        assert [int(v) for v in out[t][:3]] == [p & 0xFFFFFFFF, p >> 32, int(a >= c)], t


SHIFTS = [0, 1, 5, 31, 32, 33, 63, 64, 65, 100, 0xFFFFFFFF]


def shf_ref(left: bool, typ: str, hi_out: bool, wrap: bool, lo: int, n: int, hi: int) -> int:
    width = 32 if typ.endswith("32") else 64
    k = n & 31 if wrap else min(n, width)
    v = (hi << 32) | lo
    if typ[0] == "S":
        v = s64(v)
    v = (v << k) if left else (v >> k)
    v &= 2**64 - 1
    return (v >> 32) & 0xFFFFFFFF if hi_out else v & 0xFFFFFFFF


@pytest.mark.parametrize("form", ["L.U32", "L.U32.HI", "L.U64.HI", "L.W.U32.HI", "R.U32.HI", "R.S32.HI",
                                  "R.U64", "R.S64", "R.W.U32", "R.U32"])
def test_shf_shifts_past_31(form):
    parts = form.split(".")
    ins = [[r[0], r[1], SHIFTS[i % len(SHIFTS)], 0] for i, r in enumerate(rows())]
    out = run_sass([f"SHF.{form} R0, R8, R10, R9 ;", f"SHF.{form} R1, R8, 0x21, R9 ;"], ins)
    typ = next(p for p in parts if p in ("U32", "S32", "U64", "S64"))
    for t, (lo, hi, n, _) in enumerate(ins):
        ref = [shf_ref(parts[0] == "L", typ, "HI" in parts, "W" in parts, lo, m, hi) for m in (n, 0x21)]
        assert [int(v) for v in out[t][:2]] == ref, (t, lo, hi, n)


@pytest.mark.parametrize("form", ["L.U32", "L.U32.HI", "L.U64", "L.U64.HI", "L.W.U32.HI", "R.U32.HI", "R.S32.HI",
                                  "R.U64", "R.S64", "R.S64.HI", "R.W.U32", "R.U32", "R.S32"])
def test_shf_by_immediates_below_32_with_and_without_a_zero_half(form):
    """The one-shift forms (a low word of a left shift, a high word of a right shift, or a
    zero half shifted in) against the 64-bit reference, RZ as either half."""
    parts = form.split(".")
    typ = next(p for p in parts if p in ("U32", "S32", "U64", "S64"))
    ins = [[r[0], r[1], 0, 0] for r in rows()]
    for k in (0, 1, 5, 31):
        out = run_sass([f"SHF.{form} R0, R8, {k:#x}, R9 ;", f"SHF.{form} R1, RZ, {k:#x}, R9 ;",
                        f"SHF.{form} R2, R8, {k:#x}, RZ ;"], ins)
        for t, (lo, hi, _, _) in enumerate(ins):
            ref = [shf_ref(parts[0] == "L", typ, "HI" in parts, "W" in parts, a, k, b)
                   for a, b in ((lo, hi), (0, hi), (lo, 0))]
            assert [int(v) for v in out[t][:3]] == ref, (form, k, t, lo, hi)


def test_lea_forms_and_64bit_address():
    ins = rows()
    out = run_sass(["LEA R0, P0, R8, R10, 0x2 ;",
                    "LEA.HI.X R1, R8, R11, R9, 0x2, P0 ;",
                    "LEA.HI R2, R8, R10, RZ, 0x3 ;",
                    "LEA.HI.SX32 R3, R8, R9, 0x4 ;"], ins)
    for t, (a, b, c, d) in enumerate(ins):
        addr = (((d << 32) | c) + (((b << 32) | a) << 2)) & (2**64 - 1)
        assert int(out[t][0]) == addr & 0xFFFFFFFF and int(out[t][1]) == addr >> 32, t
        assert int(out[t][2]) == u32(c + (a >> 29)), t
        assert int(out[t][3]) == u32(b + ((s32(a) << 4) >> 32)), t


CMPS = {"EQ": lambda x, y: x == y, "NE": lambda x, y: x != y, "LT": lambda x, y: x < y,
        "LE": lambda x, y: x <= y, "GT": lambda x, y: x > y, "GE": lambda x, y: x >= y}


@pytest.mark.parametrize("cmp", sorted(CMPS))
def test_isetp_32_and_64bit_ex(cmp):
    base = rows()
    ins = base + [[r[0], r[1], r[0], r[1]] for r in base[:16]] + [[r[0], r[1], r[2], r[1]] for r in base[:16]]
    out = run_sass([f"ISETP.{cmp}.AND P0, P1, R8, R10, PT ;",
                    f"ISETP.{cmp}.U32.AND P2, PT, R8, R10, PT ;",
                    f"ISETP.{cmp}.U32.AND P3, PT, R8, R10, PT ;",
                    f"ISETP.{cmp}.AND.EX P3, PT, R9, R11, PT, P3 ;",
                    f"ISETP.{cmp}.U32.AND P4, PT, R8, R10, PT ;",
                    f"ISETP.{cmp}.U32.AND.EX P4, PT, R9, R11, PT, P4 ;",
                    "SEL R0, 0x1, RZ, P0 ;", "SEL R1, 0x1, RZ, P1 ;",
                    "SEL R2, 0x1, RZ, P2 ;", "SEL R3, 0x1, RZ, P3 ;",
                    "@P4 IADD3 R3, R3, 0x2, RZ ;"], ins)
    f = CMPS[cmp]
    for t, (a, b, c, d) in enumerate(ins):
        x, y = (b << 32) | a, (d << 32) | c
        ref = [int(f(s32(a), s32(c))), int(not f(s32(a), s32(c))), int(f(a, c)),
               int(f(s64(x), s64(y))) + 2 * int(f(x, y))]
        assert [int(v) for v in out[t]] == ref, (t, a, b, c, d)


def test_isetp_predicate_combination_and_guard_read_before_write():
    ins = rows()
    out = run_sass(["ISETP.GT.U32.AND P0, PT, R8, R9, PT ;",
                    "ISETP.LT.U32.OR P1, PT, R8, R10, P0 ;",
                    "ISETP.NE.XOR P2, PT, R8, RZ, !P0 ;",
                    "SEL R0, 0x1, RZ, P1 ;", "SEL R1, 0x1, RZ, P2 ;",
                    "MOV R2, R8 ;",
                    "@P0 IADD3 R2, P0, R2, 0x1, RZ ;",
                    "SEL R3, 0x1, RZ, P0 ;"], ins)
    for t, (a, b, c, _) in enumerate(ins):
        p0 = a > b
        assert int(out[t][0]) == int(a < c or p0)
        assert int(out[t][1]) == int((a != 0) != (not p0))
        assert int(out[t][2]) == (u32(a + 1) if p0 else a)
        assert int(out[t][3]) == int(p0 and a == 0xFFFFFFFF)


def test_sel_imnmx_popc_flo_brev_prmt():
    ins = rows()
    out = run_sass(["ISETP.GE.AND P0, PT, R8, R9, PT ;",
                    "SEL R0, R8, R10, P0 ;",
                    "IMNMX R1, R8, R9, PT ;",
                    "IMNMX.U32 R2, R8, R9, !PT ;",
                    "POPC R3, R8 ;"], ins)
    for t, (a, b, c, _) in enumerate(ins):
        assert [int(v) for v in out[t]] == [a if s32(a) >= s32(b) else c, u32(min(s32(a), s32(b))),
                                            max(a, b), bin(a).count("1")], t
    out = run_sass(["FLO.U32 R0, R8 ;", "FLO.U32.SH R1, R8 ;", "BREV R2, R8 ;", "PRMT R3, R8, 0x3210, R9 ;"], ins)
    for t, (a, _b, _, _) in enumerate(ins):
        flo = a.bit_length() - 1 if a else 0xFFFFFFFF
        assert int(out[t][0]) == flo
        assert int(out[t][1]) == (31 - flo if a else 0xFFFFFFFF)
        assert int(out[t][2]) == int(f"{a:032b}"[::-1], 2)
        assert int(out[t][3]) == a
    out = run_sass(["PRMT R0, R8, 0x7654, R9 ;", "PRMT R1, R8, 0x0123, R9 ;", "PRMT R2, R8, 0x8880, RZ ;"], ins)
    for t, (a, b, _, _) in enumerate(ins):
        rev = int.from_bytes(a.to_bytes(4, "little"), "big")
        sign = 0xFFFFFF00 if a & 0x80 else 0
        assert [int(v) for v in out[t][:3]] == [b, rev, sign | (a & 0xFF)], t


def f32(x: float) -> int:
    return int(struct.unpack("<I", struct.pack("<f", x))[0])


def test_fp32_arithmetic_rounding_nan_denormal():
    one_eps = f32(1 + 2**-12)
    denorm = 0x00000001
    ins = [[one_eps, one_eps, f32(-1.0), 0],
           [f32(1.0), f32(2.0**-24), f32(2.0**-24), 0],
           [0x7FC00000, f32(1.0), f32(-0.0), 0],
           [denorm, denorm, f32(0.0), 0]]
    out = run_sass(["FFMA R0, R8, R9, R10 ;",
                    "FMUL R1, R8, R9 ;",
                    "FADD R1, R1, R10 ;",
                    "FADD.FTZ R2, R8, R9 ;",
                    "FADD R3, R8, R9 ;"], ins)
    # fused: 2^-11 + 2^-24 exactly; separate multiply rounds the 2^-24 away (ties to even)
    assert int(out[0][0]) == f32(2**-11 + 2**-24) and int(out[0][1]) == f32(2**-11)
    # 1 + 2^-24 + 2^-24: round-to-nearest-even in single precision
    assert int(out[1][3]) == f32(1.0)
    assert np.isnan(np.array(out[2][3], dtype=np.uint32).view(np.float32))
    assert int(out[3][2]) == 0 and int(out[3][3]) == 2   # FTZ flushes the denormal sum
    out = run_sass(["FADD R0, -R8, |R9| ;", "FMUL R1, R8, 0.5 ;", "FMNMX R2, R8, R9, PT ;",
                    "FSETP.GT.AND P0, PT, R8, R9, PT ;", "SEL R3, 0x1, RZ, P0 ;"],
                   [[f32(3.0), f32(-5.0), 0, 0], [0x7FC00000, f32(1.0), 0, 0]])
    assert [int(v) for v in out[0]] == [f32(2.0), f32(1.5), f32(-5.0), 1]
    assert int(out[1][2]) == f32(1.0) and int(out[1][3]) == 0   # min ignores a NaN; NaN > x is false


def test_warp_vote_shfl_and_special_registers():
    ins = [[t, 0, 0, 0] for t in range(32)]
    out = run_sass(["LOP3.LUT R4, R20, 0x1, RZ, 0xc0, !PT ;",
                    "ISETP.NE.AND P0, PT, R4, RZ, PT ;",
                    "VOTE.ANY R0, P1, P0 ;",
                    "SHFL.DOWN PT, R1, R8, 0x1, 0x1f ;",
                    "SHFL.BFLY PT, R2, R8, 0x3, 0x1f ;",
                    "S2R R3, SR_LANEID ;"], ins)
    for t in range(32):
        assert [int(v) for v in out[t]] == [0xAAAAAAAA, t + 1 if t < 31 else 31, t ^ 3, t], t


def test_shared_memory_and_barrier():
    """STS / BAR / LDS with scaled register addresses reverse the CTA's words."""
    ctx_lines = ["STS [R20.X4], R8 ;", "BAR.SYNC 0x0 ;", "IADD3 R5, -R20, 0x1f, RZ ;", "LDS.U R0, [R5.X4] ;",
                 "ATOMS.ADD R1, [RZ], R8 ;", "BAR.SYNC 0x0 ;", "LDS.U R2, [0x4] ;"]
    from tests.ptxplus import ptxplus_helpers as h

    orig = h.context
    h.context = lambda name="k": _with_smem(orig(name), 128)
    try:
        out = run_sass(ctx_lines, [[t * 3, 0, 0, 0] for t in range(32)])
    finally:
        h.context = orig
    for t in range(32):
        assert int(out[t][0]) == (31 - t) * 3
        assert int(out[t][1]) == sum(3 * u for u in range(t))   # lanes' atomics apply in lane order
        assert int(out[t][2]) == 3   # word 1, written by thread 1 (ATOMS touched word 0 only)


def _with_smem(ctx, n):
    ctx.static_smem = n
    return ctx


def test_unsupported_opcode_names_itself():
    fn = sass_function("k", ["SUATOM.D.BA.2D.ADD R0, [R8], R10, 0x0, 0x5c ;", "EXIT ;"])
    with pytest.raises(UnsupportedSass) as ei:
        convert_kernel(fn, context())
    assert ei.value.opcode == "SUATOM.D.BA.2D.ADD"
    fn = sass_function("k", ["HMMA.884.F32.F32 R0, R8, R10, R12 ;", "EXIT ;"])   # sm_70's shape
    with pytest.raises(UnsupportedSass) as ei:
        convert_kernel(fn, context())
    assert ei.value.opcode == "HMMA.884.F32.F32"
    fn = sass_function("k", ["LOP3.LUT R0, R8, R9, R10, 0x3, P0 ;"])
    with pytest.raises(UnsupportedSass) as ei:
        convert_kernel(fn, context())
    assert ei.value.opcode == "LOP3.LUT"
    fn = sass_function("k", ["S2R R0, SR_VIRTUALSMID ;"])
    with pytest.raises(UnsupportedSass, match="SR_VIRTUALSMID"):
        convert_kernel(fn, context())


@pytest.mark.parametrize("group", range(8))
def test_plop3_tables_over_every_predicate_combination(group):
    """Each run checks 4 tables on all 8 combinations of three predicates; 8 groups x 8 runs = 256."""
    for sub in range(8):
        luts = [32 * group + 4 * sub + k for k in range(4)]
        ins = [[(t >> 2) & 1, (t >> 1) & 1, t & 1, 0] for t in range(8)]
        body = ["ISETP.NE.AND P4, PT, R8, RZ, PT ;", "ISETP.NE.AND P5, PT, R9, RZ, PT ;",
                "ISETP.NE.AND P6, PT, R10, RZ, PT ;"]
        for k, lut in enumerate(luts):
            body += [f"PLOP3.LUT P0, PT, P4, P5, P6, {lut:#x}, 0x0 ;", f"SEL R{k}, 0x1, RZ, P0 ;"]
        out = run_sass(body, ins)
        for t in range(8):
            assert [int(v) for v in out[t]] == [(lut >> t) & 1 for lut in luts], (t, luts)


def test_plop3_second_destination_and_constants():
    out = run_sass(["ISETP.NE.AND P4, PT, R8, RZ, PT ;",
                    "PLOP3.LUT P0, P1, P4, PT, PT, 0xf0, 0xf ;",
                    "PLOP3.LUT P2, PT, PT, PT, PT, 0x8, 0x0 ;",
                    "SEL R0, 0x1, RZ, P0 ;", "SEL R1, 0x1, RZ, P1 ;", "SEL R2, 0x1, RZ, P2 ;"],
                   [[0, 0, 0, 0], [5, 0, 0, 0]])
    assert [int(v) for v in out[0][:3]] == [0, 1, 0]
    assert [int(v) for v in out[1][:3]] == [1, 0, 0]


def test_conversions_at_their_edges():
    ins = [[f32(2.5), 0xFFFFFFFF, 0, 0], [f32(-2.5), 0x80000000, 0, 0], [0x7FC00000, 7, 0, 0],
           [f32(3e9), 0x7FFFFFFF, 0, 0], [f32(-1.0), 1, 0, 0], [f32(1e-40), 0, 0, 0]]
    out = run_sass(["F2I.NTZ R0, R8 ;", "F2I.TRUNC.NTZ R1, R8 ;", "F2I.FTZ.U32.TRUNC.NTZ R2, R8 ;",
                    "I2F R3, R9 ;"], ins)
    ref = [[2, 2, 2, f32(-1.0)], [u32(-2), u32(-2), 0, f32(-2.0**31)], [0, 0, 0, f32(7.0)],
           [0x7FFFFFFF, 0x7FFFFFFF, 3000000000, f32(2.0**31)], [u32(-1), u32(-1), 0, f32(1.0)], [0, 0, 0, 0]]
    assert [[int(v) for v in r] for r in out] == ref
    out = run_sass(["I2F.U32 R0, R9 ;", "I2F.U32.RZ R1, R11 ;", "IABS R2, R9 ;", "I2F.F64.S64 R4, R8 ;",
                    "F2F.F32.F64 R3, R4 ;"],
                   [[5, 0, 0, 0xFFFFFFFF], [u32(-3), 0xFFFFFFFF, 0, 0x1000001], [0, 0x80000000, 0, 0]])
    assert [int(v) for v in out[0]] == [f32(0.0), f32(4294967040.0), 0, f32(5.0)]   # RZ: 2^32 - 256
    assert int(out[1][0]) == f32(4294967295.0) and int(out[1][1]) == f32(16777216.0)
    assert int(out[1][2]) == 1 and int(out[1][3]) == f32(-3.0)
    assert int(out[2][2]) == 0x80000000 and int(out[2][3]) == f32(-(2.0**63))


def f64(x: float) -> tuple[int, int]:
    b = struct.unpack("<Q", struct.pack("<d", x))[0]
    return b & 0xFFFFFFFF, b >> 32


def test_fp64_pairs():
    a, b, c = f64(1.5), f64(-0.25), f64(2.0)
    out = run_sass(["DFMA R0, R8, R10, R8 ;", "DADD R2, R8, -R10 ;", "DSETP.GT.AND P0, PT, R8, R10, PT ;",
                    "@P0 DMUL R2, R2, 0.5 ;"], [[*a, *b], [*b, *c], [*c, *c]])
    def d(lo, hi):
        return struct.unpack("<d", struct.pack("<Q", (int(hi) << 32) | int(lo)))[0]
    assert d(*out[0][:2]) == 1.5 * -0.25 + 1.5 and d(*out[0][2:]) == 1.75 / 2
    assert d(*out[1][:2]) == -0.25 * 2.0 - 0.25 and d(*out[1][2:]) == -2.25
    assert d(*out[2][:2]) == 6.0 and d(*out[2][2:]) == 0.0


def test_bank2_literals_and_uniform_64bit_constants():
    from gpgpusim.ptx import parse_ptx
    from gpgpusim.ptxplus.convert import convert_kernel as conv
    from tests.functional.engine_helpers import run_once
    from tests.ptxplus.ptxplus_helpers import POST, PRE

    ctx = context()
    ctx.const2 = struct.pack("<QI", 0x1122334455667788, 0xCAFEF00D)
    lines = PRE + ["IMAD.WIDE.U32 R0, R8, 0x2, c[0x2][0x0] ;", "IADD3 R2, R8, c[0x2][0x8], RZ ;",
                   "ULDC.64 UR4, c[0x0][0x168] ;", "IADD3 R3, P0, R24, -UR4, RZ ;"] + POST + ["BRA 0x0 ;"]
    text = ".version 8.0\n.target sm_75\n.address_size 64\n\n" + conv(sass_function("k", lines), ctx)
    ins = np.array([[3, 0, 0, 0], [7, 0, 0, 0]], dtype=np.uint32)
    r = run_once(parse_ptx(text, "t"), "k", (1, 1, 1), (2, 1, 1), [("in", ins), ("out", np.zeros_like(ins))])
    for t, x in enumerate((3, 7)):
        v = 0x1122334455667788 + 2 * x
        assert [int(q) for q in r.out["out"][t]] == [v & 0xFFFFFFFF, v >> 32, u32(x + 0xCAFEF00D), 16 * t]
    ctx.const2 = b""
    with pytest.raises(UnsupportedSass, match=r"c\[0x2\]\[0x0\]"):
        conv(sass_function("k", ["IADD3 R2, R8, c[0x2][0x0], RZ ;"]), ctx)


def test_global_address_forms():
    """[Rn] (.E), [Rn.64+imm], [URn+imm] and [Rn.64+URm] (a 64-bit offset plus a uniform base)."""
    out = run_sass(["ULDC.64 UR6, c[0x0][0x160] ;",
                    "IMAD.WIDE.U32 R4, R20, 0x10, RZ ;",      # this thread's row offset, 64-bit
                    "LDG.E.SYS R0, [R4.64+UR6] ;",
                    "LDG.E.SYS R1, [R22.64+0x4] ;",
                    "LDG.E.SYS R2, [UR6+0x10] ;",
                    "IADD3 R3, R0, 0x64, RZ ;",
                    "STG.E.SYS [R4.64+UR6+0x8], R3 ;",
                    "LDG.E.SYS R3, [R22+0x8] ;"], [[t, 10 * t, 0, 0] for t in range(4)])
    assert [[int(v) for v in r] for r in out] == [[t, 10 * t, 1, t + 100] for t in range(4)]


def test_call_ret_subroutine_from_two_sites_and_predicated_branch():
    """CALL.REL.NOINC to a label, RET.REL.NODEC through the return register (as nvcc sets it)."""
    from cuobjdump_tools.sass import SassInstruction

    body = ["MOV R16, R8 ;",                       # 0x90 (after the 9-line frame)
            "MOV R20, 0xd0 ;", "MOV R21, 0x0 ;",
            "CALL.REL.NOINC $k$twice ;",            # returns to 0xd0
            "MOV R0, R16 ;",
            "MOV R20, 0x110 ;", "MOV R21, 0x0 ;",
            "CALL.REL.NOINC $k$twice ;",            # returns to 0x110
            "MOV R1, R16 ;",
            "ISETP.GT.U32.AND P0, PT, R8, 0x2, PT ;",
            "ISETP.LT.U32.AND P1, PT, R8, 0x5, PT ;",
            "MOV R2, RZ ;",
            "@P0 BRA P1, 0x170 ;",
            "BRA 0x180 ;",
            "MOV R2, 0x1 ;",                       # 0x170: only when 2 < x < 5
            "BRA 0x1b0 ;",                         # 0x180 -> past the subroutine
            # the subroutine "twice": R16 *= 2
            "IMAD.SHL.U32 R16, R16, 0x2, RZ ;",    # 0x190
            "RET.REL.NODEC R20, k ;"]
    from tests.ptxplus import ptxplus_helpers as h

    lines = h.PRE + body + h.POST
    lines.append(f"BRA {16 * len(lines):#x} ;")
    fn = sass_function("k", lines)
    # PRE has 9 lines: body offsets start at 0x90; fix up the label table as nvdisasm gives it
    assert fn.instructions[9 + 16] == SassInstruction(0x190, "", "IMAD", ("SHL", "U32"),
                                                      ("R16", "R16", "0x2", "RZ"))
    fn.labels = {"$k$twice": 0x190}
    text = ".version 8.0\n.target sm_75\n.address_size 64\n\n" + convert_kernel(fn, context())
    assert "__sass_frame[1024]" in text   # a kernel with calls gets CUDA's default stack
    from gpgpusim.ptx import parse_ptx
    from tests.functional.engine_helpers import run_once

    ins = np.array([[x, 0, 0, 0] for x in range(8)], dtype=np.uint32)
    r = run_once(parse_ptx(text, "t"), "k", (1, 1, 1), (8, 1, 1), [("in", ins), ("out", np.zeros_like(ins))])
    for x in range(8):
        assert [int(v) for v in r.out["out"][x][:3]] == [2 * x, 4 * x, int(2 < x < 5)], x


def test_imad_carry_out_chain_128bit_product_high_word():
    """nvcc's 64x64 -> high 64 bits: IMAD.WIDE.U32 / IMAD.HI.U32 with carry-out predicates and
    IMAD.X carry-ins (the same pattern as its 64-bit division)."""
    ins = rows()
    out = run_sass(["IMAD.WIDE.U32 R4, R8, R10, RZ ;",          # a_lo*b_lo
                    "IMAD.WIDE.U32 R6, P0, R9, R10, R4 ;",       # a_hi*b_lo + {0:hi(lo*lo)}... as a pair
                    "IMAD.X R12, RZ, RZ, RZ, P0 ;",
                    "MOV R0, R6 ;", "MOV R1, R7 ;", "MOV R2, R12 ;",
                    "IMAD.HI.U32 R3, P1, R8, R11, R6 ;",
                    "@P1 IADD3 R3, R3, 0x80000000, RZ ;"], ins)
    for t, (a, b, c, d) in enumerate(ins):
        s = b * c + a * c   # a_hi*b_lo + the pair {R5:R4} = a_lo*b_lo, 65 bits
        assert [int(out[t][0]), int(out[t][1]), int(out[t][2])] == [s & 0xFFFFFFFF, (s >> 32) & 0xFFFFFFFF,
                                                                     s >> 64], t
        pair = ((s >> 32) & 0xFFFFFFFF) << 32 | (s & 0xFFFFFFFF)
        h = a * d + pair
        assert int(out[t][3]) == u32((h >> 32) + (0x80000000 if h >> 64 else 0)), t


def test_warp_match_redux_and_divergence_branches():
    ins = [[t % 3, t, 0, 0] for t in range(32)]
    out = run_sass(["MATCH.ANY R0, R8 ;",
                    "REDUX.SUM UR4, R9 ;", "REDUX UR5, R8 ;", "REDUX.MAX.S32 UR6, R9 ;",
                    "IADD3 R1, UR4, UR5, RZ ;",
                    "MOV R2, UR6 ;",
                    "MOV R3, RZ ;",
                    "BRA.CONV ~URZ, 0x120 ;",                    # converged: skip the next line
                    "MOV R3, 0x7 ;",
                    "ISETP.GE.U32.AND P0, PT, R9, 0x10, PT ;",   # 0x120
                    "@P0 BRA 0x170 ;",
                    "BRA.DIV ~URZ, 0x160 ;",                     # the low half is diverged
                    "BRA 0x170 ;",
                    "IADD3 R3, R3, 0x10, RZ ;"], ins)            # 0x160
    masks = {k: sum(1 << t for t in range(32) if t % 3 == k) for k in range(3)}
    for t in range(32):
        assert int(out[t][0]) == masks[t % 3]
        assert int(out[t][1]) == sum(range(32))   # + the AND of 0, 1, 2: 0
        assert int(out[t][2]) == 31
        assert int(out[t][3]) == (0x10 if t < 16 else 0), t


def test_ldc_indexed_parameters_generic_stack_and_bmov():
    """LDC.64 / LDC.U8 of kernel parameters at a register offset, a generic ST/LD through
    R1 + c[0x0][0x20] (the stack's generic address), and BMOV save/restore."""
    ctx = context()
    ctx.frame_bytes = 16
    lines = h.PRE + ["MOV R1, c[0x0][0x28] ;", "IADD3 R1, R1, -0x10, RZ ;",
                     "LOP3.LUT R4, R20, 0x1, RZ, 0xc0, !PT ;",
                     "IMAD.SHL.U32 R4, R4, 0x8, RZ ;",
                     "LDC.64 R6, c[0x0][R4+0x160] ;",          # k_in (even lanes) / k_out (odd)
                     "LDC.U8 R0, c[0x0][0x161] ;",             # byte 1 of k_in
                     "IADD3 R2, P0, R1, c[0x0][0x20], RZ ;",
                     "IMAD.X R3, RZ, RZ, c[0x0][0x24], P0 ;",
                     "ST.E.SYS [R2+0x4], R8 ;",
                     "LDL R5, [R1+0x4] ;",
                     "BMOV.32.CLEAR R9, B0 ;",
                     "BMOV.32 B0, R9 ;",
                     "IADD3 R1, R5, R9, RZ ;",
                     "LD.E.SYS R2, [R2+0x4] ;",
                     "IADD3 R3, R6, -R22, RZ ;"] + h.POST + ["BRA 0x0 ;"]
    text = ".version 8.0\n.target sm_75\n.address_size 64\n\n" + convert_kernel(sass_function("k", lines), ctx)
    ins = np.array([[40 + t, 0, 0, 0] for t in range(4)], dtype=np.uint32)
    r = run_once(parse_ptx(text, "t"), "k", (1, 1, 1), (4, 1, 1), [("in", ins), ("out", np.zeros_like(ins))])
    out, addrs = r.out["out"], r.addrs
    for t in range(4):
        ptr = addrs["in"] if t % 2 == 0 else addrs["out"]
        assert int(out[t][0]) == (addrs["in"] >> 8) & 0xFF
        assert [int(out[t][1]), int(out[t][2])] == [40 + t, 40 + t]
        assert int(out[t][3]) == u32((ptr & 0xFFFFFFFF) - ((addrs["in"] + 16 * t) & 0xFFFFFFFF)), t


def test_fsel_float_literals_and_mufu_sin_cos_in_revolutions():
    ins = [[f32(0.25), f32(0.125), 0, 0], [f32(-0.5), f32(1.0), 1, 0]]
    out = run_sass(["ISETP.NE.AND P1, PT, R10, RZ, PT ;",
                    "FSEL R0, R8, 1, !P1 ;",                    # a float literal keeps its value
                    "FSEL R1, -R9, -0.4999999701976776123, P1 ;",
                    "MUFU.SIN R2, R8 ;",                        # sin(2 pi x)
                    "MUFU.COS R3, R9 ;"], ins)
    assert [int(v) for v in out[0][:2]] == [f32(0.25), f32(-0.4999999701976776123)]
    assert [int(v) for v in out[1][:2]] == [f32(1.0), f32(-1.0)]
    got = np.asarray(out[:, 2:], dtype=np.uint32).view(np.float32)
    np.testing.assert_allclose(got, [[1.0, np.cos(2 * np.pi * 0.125)], [0.0, 1.0]], atol=2e-6)


def test_sad_vabsdiff4_dp4a():
    ins = [[u32(-3), 5, 1, 0], [0x01FF7F80, 0x02008081, 7, 0], [0x7F80FF01, 0x81017F02, u32(-9), 0]]
    out = run_sass(["VABSDIFF R0, R8, R9, R10 ;", "VABSDIFF.U32 R1, R8, R9, R10 ;",
                    "VABSDIFF4.U8 R2, R8, R9, RZ ;", "IDP.4A.S8.S8 R3, R8, R9, R10 ;"], ins)

    def sbytes(x):
        return [((x >> (8 * i)) & 0xFF) - (256 if (x >> (8 * i)) & 0x80 else 0) for i in range(4)]
    for t, (a, b, c, _) in enumerate(ins):
        sad_s = u32(abs(s32(a) - s32(b)) + c)
        sad_u = u32(abs(a - b) + c)
        v4 = sum(abs(((a >> (8 * i)) & 0xFF) - ((b >> (8 * i)) & 0xFF)) << (8 * i) for i in range(4))
        dp = u32(sum(x * y for x, y in zip(sbytes(a), sbytes(b), strict=True)) + s32(c))
        assert [int(v) for v in out[t]] == [sad_s, sad_u, v4, dp], t


def test_p2r_r2p_spill_and_restore_predicates():
    ins = [[5, 0, 0, 0], [0x7A, 0, 0, 0]]
    out = run_sass(["R2P PR, R8, 0x7f ;",
                    "P2R R0, PR, RZ, 0x7f ;",
                    "P2R R1, PR, R8, 0x3 ;",
                    "ISETP.NE.AND P0, PT, RZ, RZ, PT ;",
                    "P2R R2, PR, RZ, 0x1 ;",
                    "R2P PR, R0, 0x1 ;",
                    "SEL R3, 0x1, RZ, P0 ;"], ins)
    for t, (a, _, _, _) in enumerate(ins):
        assert [int(v) for v in out[t]] == [a & 0x7F, (a & ~3) | (a & 3), 0, a & 1], t


def test_bar_red_b2r_membar_fchk_and_double_seeds():
    ins = [[t, 0, 0, 0] for t in range(64)]
    out = run_sass(["LOP3.LUT R4, R8, 0x3, RZ, 0xc0, !PT ;",
                    "ISETP.EQ.AND P1, PT, R4, RZ, PT ;",         # every 4th thread of the CTA
                    "BAR.RED.POPC 0x0, P1 ;",
                    "B2R.RESULT R0 ;",
                    "ISETP.LT.U32.AND P2, PT, R8, 0x40, PT ;",
                    "BAR.RED.AND.DEFER_BLOCKING 0x0, P2 ;",
                    "B2R.RESULT RZ, P3 ;",
                    "BAR.RED.OR 0x0, P1 ;",
                    "B2R.RESULT RZ, P4 ;",
                    "MEMBAR.SC.GPU ;",
                    "SEL R1, 0x1, RZ, P3 ;",
                    "SEL R2, 0x2, RZ, P4 ;",
                    "FCHK P0, R8, R9 ;",                          # always the IEEE slow path
                    "SEL R3, 0x1, RZ, P0 ;"], ins)
    assert [[int(v) for v in r] for r in out] == [[16, 1, 2, 1]] * 64
    x = struct.unpack("<Q", struct.pack("<d", 2.0))[0] >> 32
    out = run_sass(["MUFU.RSQ64H R0, R8 ;", "MUFU.RCP64H R1, R8 ;"], [[x, 0, 0, 0]])
    rs = struct.unpack("<d", struct.pack("<Q", int(out[0][0]) << 32))[0]
    rc = struct.unpack("<d", struct.pack("<Q", int(out[0][1]) << 32))[0]
    assert abs(rs - 2 ** -0.5) < 2e-6 and abs(rc - 0.5) < 1e-9   # high words: ~20-bit seeds


def h16(x: float) -> int:
    return int(np.array(x, dtype=np.float16).view(np.uint16))


def test_fp16_pairs_swizzles_and_conversions():
    a, b = 1.5, -0.3333
    ins = [[f32(a), f32(b), h16(2.0) | h16(-4.0) << 16, 0]]
    out = run_sass(["F2F.F16.F32 R4, R8 ;",                     # a -> half, low 16 bits
                    "F2F.F16.F32 R5, R9 ;",
                    "HADD2 R0, R4.H0_H0, -R5.H0_H0 ;",
                    "HFMA2 R1, R4.H0_H0, R5.H0_H0, 0.5, 0.5 ;",
                    "HMUL2 R2, R10, R10.H1_H1 ;",                # (2, -4) * (-4, -4)
                    "HADD2.F32 R3, R5.H0_H0, -RZ.H0_H0 ;"], ins)
    ha, hb = np.float16(a), np.float16(b)
    lo_hi = [int(out[0][0]) & 0xFFFF, int(out[0][0]) >> 16]
    assert lo_hi == [h16(float(ha - hb))] * 2
    assert int(out[0][1]) & 0xFFFF == h16(float(np.float16(np.float32(ha) * np.float32(hb) + np.float32(0.5))))
    assert [int(out[0][2]) & 0xFFFF, int(out[0][2]) >> 16] == [h16(-8.0), h16(16.0)]
    assert int(out[0][3]) == f32(float(hb))
    out = run_sass(["HSETP2.GEU.AND P0, P1, R8, R9, PT ;", "SEL R0, 0x1, RZ, P0 ;", "SEL R1, 0x1, RZ, P1 ;",
                    "STG.E.U16.SYS [R24+0x8], R8 ;", "LDG.E.SYS R2, [R24+0x8] ;"],
                   [[h16(1.0) | h16(5.0) << 16, h16(1.0) | h16(6.0) << 16, 0, 0],
                    [0x7E00 | h16(-1.0) << 16, h16(2.0) | h16(-2.0) << 16, 0, 0]])
    assert [int(v) for v in out[0][:3]] == [1, 0, h16(1.0)]
    assert [int(v) for v in out[1][:3]] == [1, 1, 0x7E00]   # GEU: a NaN compares true


def test_f2fp_pack_and_hmnmx2():
    out = run_sass(["F2FP.PACK_AB R0, R8, R9 ;",
                    "HMNMX2 R1, R10, R11, PT ;",
                    "HMNMX2 R2, R10, R11, !PT ;"],
                   [[f32(1.0), f32(-2.5), h16(3.0) | h16(-1.0) << 16, h16(2.0) | h16(4.0) << 16]])
    assert int(out[0][0]) == h16(-2.5) | h16(1.0) << 16       # a in the high half, b in the low
    assert int(out[0][1]) == h16(2.0) | h16(-1.0) << 16
    assert int(out[0][2]) == h16(3.0) | h16(4.0) << 16


def test_indirect_call_through_a_function_pointer():
    """CALL.REL.NOINC Rn: the pair holds the loader's handle of a device function whose code
    sits in the kernel (label $k$f); an unknown value traps."""
    body = ["MOV R6, R8 ;", "MOV R7, R9 ;",                   # 0x90, 0xa0: the pointer
            "MOV R20, 0xd0 ;",
            "CALL.REL.NOINC R6, k ;",                          # 0xc0, returns to 0xd0
            "MOV R0, R16 ;",                                   # 0xd0
            "BRA 0x110 ;",
            "MOV R16, 0x11 ;",                                 # 0xf0: $k$f
            "RET.REL.NODEC R20, k ;",
            ]
    lines = h.PRE + body + h.POST
    lines.append(f"BRA {16 * len(lines):#x} ;")
    fn = sass_function("k", lines)
    fn.labels = {"$k$f": 0xF0}
    ctx = context()
    ctx.func_handles = {"f": 0x7000_0010, "g": 0x7000_0020}   # g has no code here: never a target
    text = ".version 8.0\n.target sm_75\n.address_size 64\n\n" + convert_kernel(fn, ctx)
    ins = np.array([[0x7000_0010, 0, 0, 0]] * 2, dtype=np.uint32)
    r = run_once(parse_ptx(text, "t"), "k", (1, 1, 1), (2, 1, 1), [("in", ins), ("out", np.zeros_like(ins))])
    assert [int(v) for v in r.out["out"][0][:1]] == [0x11]
    from gpgpusim.errors import CudaError

    bad = np.array([[0x7000_0020, 0, 0, 0]], dtype=np.uint32)
    with pytest.raises(CudaError, match="trap"):
        run_once(parse_ptx(text, "t"), "k", (1, 1, 1), (1, 1, 1), [("in", bad), ("out", np.zeros_like(bad))])
