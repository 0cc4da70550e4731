"""Parser + IR builder: fixtures from nvcc 13 and hand-written PTX, exact IR assertions."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from gpgpusim.errors import Err, PtxError
from gpgpusim.ptx import parse_ptx
from gpgpusim.ptx.ir import (
    Addr,
    Imm,
    Label,
    ParamList,
    PredPair,
    Reg,
    Special,
    Sym,
    Vec,
)
from gpgpusim.ptx.parser import parse_int

DATA = Path(__file__).parent / "data"
FIXTURES = sorted(p.name for p in DATA.glob("*.ptx"))


def load(name: str):
    return parse_ptx((DATA / name).read_text(), name)


HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"


def ptx(body: str):
    return parse_ptx(HEADER + body, "t.ptx")


# ----------------------------------------------------------------------------- fixtures
def test_fixture_set_is_complete():
    # one per reference program plus the hand-written snippets and arch/debug variants
    assert len(FIXTURES) == 20


@pytest.mark.parametrize("name", FIXTURES)
def test_every_fixture_parses(name):
    m = load(name)
    assert m.version[0] == 9
    assert m.address_size == 64
    assert m.kernels, name
    for fn in m.functions.values():
        if fn.extern:
            assert fn.instructions == []
            continue
        assert fn.instructions
        assert fn.basic_blocks
        for inst in fn.instructions:
            assert inst.line > 0 and inst.text.endswith(";")
        for pc in fn.labels.values():
            assert 0 <= pc <= len(fn.instructions)


def test_matmul_ir():
    m = load("matmul.ptx")
    assert m.version == (9, 0) and m.target == ("sm_75",)
    fn = m.functions["_Z11matmulTiledPKfS0_Pfi"]
    assert fn.is_entry and fn.visible
    assert [(p.name[-7:], p.type, p.offset) for p in fn.params] == [
        ("param_0", "u64", 0), ("param_1", "u64", 8), ("param_2", "u64", 16), ("param_3", "u32", 24),
    ]
    assert fn.param_bytes == 28
    # register ranges %p<3>, %f<57>, %r<33>, %rd<20>
    assert sum(1 for r in fn.regs if r.startswith("%p")) == 3
    assert fn.regs["%p0"] == "pred" and fn.regs["%p2"] == "pred" and "%p3" not in fn.regs
    assert fn.regs["%f56"] == "f32" and fn.regs["%rd19"] == "b64" and fn.regs["%r32"] == "b32"
    assert len(fn.regs) == 3 + 57 + 33 + 20
    smem = {v.name: v for v in fn.variables}
    a = smem["_ZZ11matmulTiledPKfS0_PfiE2As"]
    assert (a.space, a.type, a.count, a.align, a.size_bytes) == ("shared", "b8", 1024, 4, 1024)
    i0 = fn.instructions[0]
    assert i0.opcode == "ld" and i0.mods == ("param", "u64") and i0.types == ("u64",)
    assert i0.operands == (Reg("%rd8"), Addr(Sym("_Z11matmulTiledPKfS0_Pfi_param_0"), 0))
    assert i0.line == 33 and i0.text == "ld.param.u64 %rd8, [_Z11matmulTiledPKfS0_Pfi_param_0];"
    i4 = fn.instructions[4]
    assert i4.opcode == "mov" and i4.operands == (Reg("%r13"), Special("%ctaid", "y"))
    mov_f = fn.instructions[13]
    assert mov_f.operands == (Reg("%f56"), Imm(0.0, 0))
    bra = fn.instructions[14]
    assert bra.opcode == "bra" and bra.guard == (Reg("%p1"), False)
    assert bra.operands == (Label("$L__BB0_3"),)
    assert fn.labels == {"$L__BB0_2": 41, "$L__BB0_3": 100}
    ld = next(i for i in fn.instructions if i.text == "ld.shared.f32 %f11, [%r8+64];")
    assert ld.operands == (Reg("%f11"), Addr(Reg("%r8"), 64))
    bar = next(i for i in fn.instructions if i.opcode == "bar")
    assert bar.mods == ("sync",) and bar.operands == (Imm(0),)
    assert fn.instructions[-1].opcode == "ret" and fn.instructions[-1].operands == ()


def test_module_variables_and_initialisers():
    m = load("snip1.ptx")
    v = m.variables
    assert v["garr"].init == [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4]
    assert (v["garr"].space, v["garr"].type, v["garr"].count, v["garr"].align) == ("global", "b8", 16, 4)
    assert v["gptr"].init == [Addr(Sym("garr"), 8)]  # generic(garr)+8
    assert v["gptr0"].init == [Sym("garr")]
    assert v["sval"].init == [7, Sym("garr")] and v["sval"].count == 2
    assert v["ctab"].space == "const" and v["ctab"].init[:4] == [0, 0, 192, 63]
    assert v["cd"].init == [3.0] and v["cd"].type == "f64"
    dyn = v["dyn"]
    assert (dyn.space, dyn.extern, dyn.count, dyn.align, dyn.size_bytes) == ("shared", True, 0, 16, 0)
    assert v["$str"].init == [104, 101, 108, 108, 111, 32, 37, 100, 32, 37, 102, 10]
    vp = m.functions["vprintf"]
    assert vp.extern and not vp.is_entry
    assert [p.name for p in vp.params] == ["vprintf_param_0", "vprintf_param_1"]
    assert [(p.name, p.type) for p in vp.ret_params] == [("func_retval0", "b32")]


def test_function_pointer_table_and_multidim_const():
    m = load("snip2.ptx")
    assert m.variables["ops"].init == [Sym("_Z6add_opii"), Sym("_Z6mul_opii")]
    assert m.variables["cgrid"].count == 24
    fn = m.functions["_Z8indirectPii"]
    assert fn.directives == {"maxntid": (256, 1, 1), "minnctapersm": (2,)}
    call = next(i for i in fn.instructions if i.opcode == "call")
    assert call.operands == (
        ParamList((Sym("retval0"),)), Reg("%rd8"), ParamList((Sym("param0"), Sym("param1"))),
        Label("prototype_0"),
    )
    assert "prototype_0" not in fn.labels  # a call signature, not a code position
    assert m.functions["_Z9pipelinedPK6float4PS_i"].directives == {"maxntid": (128, 1, 1)}


def test_kernel_param_layout_struct_char_short():
    fn = load("snip1.ptx").functions["_Z8bigparam3BigcsPi"]
    assert [(p.type, p.count, p.align, p.offset) for p in fn.params] == [
        ("b8", 40, 8, 0), ("u8", 1, 0, 40), ("u16", 1, 0, 42), ("u64", 1, 0, 48),
    ]
    assert fn.param_bytes == 56
    ld = fn.instructions[1]
    assert ld.mods == ("param", "v2", "u32")
    assert ld.operands == (Vec((Reg("%r1"), Reg("%r2"))), Addr(Sym("_Z8bigparam3BigcsPi_param_0"), 8))


def test_call_scopes_and_renamed_params():
    fn = load("snip1.ptx").functions["_Z4miscPiPfP6__halfi"]
    params = {v.name: v.type for v in fn.variables if v.space == "param"}
    # first callseq declares param0 as .b32; the second (vprintf) as .b64 -> renamed
    assert params["param0"] == "b32" and params["retval0"] == "b32"
    b64 = sorted(n for n, t in params.items() if t == "b64")
    assert len(b64) == 2 and all(n.startswith(("param0$", "param1$")) for n in b64)
    calls = [i for i in fn.instructions if i.opcode == "call"]
    assert calls[0].operands[1] == Label("_Z6helperif")
    assert calls[1].operands[1] == Label("vprintf")
    st = [i for i in fn.instructions if i.opcode == "st" and i.has("param")]
    assert st[2].operands[0].base.name in b64  # st.param.b64 [param0+0] after renaming
    assert fn.regs["temp_param_reg"] == "b32"
    local = next(v for v in fn.variables if v.space == "local")
    assert (local.name, local.count, local.align) == ("__local_depot3", 80, 16)
    shfl = next(i for i in fn.instructions if i.opcode == "shfl")
    assert shfl.mods == ("sync", "bfly", "b32")
    assert shfl.operands[0] == PredPair(Reg("%r27"), Reg("%p1"))
    atom = next(i for i in fn.instructions if i.opcode == "atom" and i.has("f32"))
    assert atom.operands[2] == Imm(1.0, 0x3F800000)
    inline = next(i for i in fn.instructions if i.opcode == "add" and i.has("f16"))
    assert inline.operands == (Reg("%rs2"), Reg("%rs3"), Reg("%rs1"))


def test_debug_build_files_and_loc():
    m = load("snip1_G.ptx")
    assert m.files[1].endswith("snip1.cu")
    assert len(m.files) == 6
    fn = m.functions["_Z4miscPiPfP6__halfi"]
    assert fn.instructions[0].loc == (1, 14, 0)
    locs = {i.loc for i in fn.instructions}
    assert None not in locs and len(locs) > 10


def test_lineinfo_loc_applies_to_following_instructions():
    fn = load("matmul_lineinfo.ptx").kernels["_Z11matmulTiledPKfS0_Pfi"]
    with_loc = [i for i in fn.instructions if i.loc is not None]
    assert len(with_loc) == len(fn.instructions)
    assert all(i.loc[0] == 1 for i in with_loc)


# ----------------------------------------------------------------------------- hand-written
HAND = r"""
.extern .shared .align 8 .b8 dsm[];
.global .align 4 .u32 mat[2][3] = {{1, 2, 3}, {4, 5, 6}};
.const .f32 cf[3] = {0fBF800000, -1.5, 2.5e1};
.global .f64 dneg = -0d3FF0000000000000;
.global .v2 .u32 vecs[2] = {{1, 2}, {3, 4}};
.global .s32 ints[5] = {0x10, 017, 0b101, 42U, -7};
.weak .global .u8 wk;
.global .b32 fbits[2] = {0f3F800000, -0f00000000};
.global .f32 fint = 2;
.global .texref tref;

.section .debug_str
{
  $L__info_string0:
  .b8 95
}

.func (.reg .b32 rv) helper(.reg .b32 a, .param .align 4 .b8 blob[12])
{
    .reg .b32 t;
    add.s32 t, a, 1;
    mov.b32 rv, t;
    ret;
}

.visible .entry k(.param .u64 .ptr .global .align 16 out, .param .u8 c, .param .align 16 .b8 s[32], .param .f64 d)
.reqntid 64, 2
.maxnreg 40
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .u64 %rd<3>;
    .reg .f32 %f1, %f2;
    .reg .f16x2 %h<2>;
    .pragma "nounroll";
    .loc 1 10 3, function_name $L__info_string0, inlined_at 1 20 5
    ld.param.u64 %rd1, [out];
    mov.u32 %r0, %laneid;
    mov.u32 %r1, %envreg3;
    mov.u64 %rd2, %clock64;
    setp.eq.s32 %p0|%p1, %r0, -1;
    @!%p0 bra $Lend;
    {
        .reg .b32 %r1;
        .reg .u16 x;
        mov.u32 %r1, 5;
        add.s32 %r2, %r1, %r1;
    }
    mov.f32 %f1, 0f7FC00001;
    mov.f32 %f2, -0f3F800000;
    tex.2d.v4.f32.f32 {%f1, %f2, _, %f1}, [tref, {%f1, %f2}];
    mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f1, %f2}, {%h0, %h1}, {%h0}, {%f1, %f2, %f1, %f2};
    ld.global.nc.L1::no_allocate.v2.u32 {%r0, %r1}, [%rd1+-8];
    st.global.u32 [%rd1-4], %r2;
    ld.shared.u32 %r3, [dsm+16];
    st.global.u32 [1024], %r3;
    and.pred %p0, %p0, !%p1;
    brx.idx %r0, $Ltab;
$Ltab: .branchtargets $Lend, $L1;
$L1:
    exit;
$Lend:
    ret;
}
"""


@pytest.fixture(scope="module")
def hand():
    return ptx(HAND)


def test_hand_module_variables(hand):
    v = hand.variables
    assert (v["mat"].count, v["mat"].init) == (6, [1, 2, 3, 4, 5, 6])
    assert v["cf"].init == [-1.0, -1.5, 25.0]
    assert v["dneg"].init == [1.0 * -1]
    assert (v["vecs"].vector, v["vecs"].count, v["vecs"].size_bytes, v["vecs"].init) == (2, 2, 16, [1, 2, 3, 4])
    assert v["ints"].init == [16, 15, 5, 42, -7]
    assert v["wk"].weak and v["wk"].init is None
    assert v["fbits"].init == [0x3F800000, 0x80000000]  # hex float literal -> raw bits for .b32
    assert v["fint"].init == [2.0] and isinstance(v["fint"].init[0], float)
    assert v["dsm"].extern and v["dsm"].count == 0
    assert "tref" in v and v["tref"].space == "global"
    assert "$L__info_string0" not in v  # debug section skipped


def test_hand_function_with_reg_params(hand):
    f = hand.functions["helper"]
    assert not f.is_entry and not f.extern
    assert [(p.name, p.type) for p in f.ret_params] == [("rv", "b32")]
    assert [(p.name, p.type, p.count, p.align) for p in f.params] == [("a", "b32", 1, 0), ("blob", "b8", 12, 4)]
    assert f.instructions[0].operands == (Reg("t"), Reg("a"), Imm(1))
    assert f.instructions[1].operands == (Reg("rv"), Reg("t"))


def test_hand_kernel(hand):
    k = hand.functions["k"]
    assert k.directives == {"reqntid": (64, 2), "maxnreg": (40,)}
    out, c, s, d = k.params
    assert (out.ptr_space, out.ptr_align, out.offset) == ("global", 16, 0)
    assert (c.offset, s.offset, s.size_bytes, d.offset) == (8, 16, 32, 48)
    assert k.param_bytes == 56
    assert k.regs["%f1"] == "f32" and k.regs["%f2"] == "f32" and k.regs["%h1"] == "f16x2"
    ins = {i.text: i for i in k.instructions}
    assert ins["ld.param.u64 %rd1, [out];"].loc == (1, 10, 3)
    assert ins["mov.u32 %r0, %laneid;"].operands[1] == Special("%laneid")
    assert ins["mov.u32 %r1, %envreg3;"].operands[1] == Special("%envreg3")
    assert ins["setp.eq.s32 %p0|%p1, %r0, -1;"].operands == (
        PredPair(Reg("%p0"), Reg("%p1")), Reg("%r0"), Imm(-1))
    assert ins["@!%p0 bra $Lend;"].guard == (Reg("%p0"), True)
    nan = ins["mov.f32 %f1, 0f7FC00001;"].operands[1]
    assert nan.bits == 0x7FC00001 and nan.value != nan.value
    assert ins["mov.f32 %f2, -0f3F800000;"].operands[1] == Imm(-1.0, 0xBF800000)
    tex = ins["tex.2d.v4.f32.f32 {%f1, %f2, _, %f1}, [tref, {%f1, %f2}];"]
    assert tex.operands[0] == Vec((Reg("%f1"), Reg("%f2"), None, Reg("%f1")))
    assert tex.operands[1] == Vec((Sym("tref"), Vec((Reg("%f1"), Reg("%f2")))))
    mma = next(i for i in k.instructions if i.opcode == "mma")
    assert mma.mods[:4] == ("sync", "aligned", "m16n8k8", "row") and len(mma.operands) == 4
    ldnc = next(i for i in k.instructions if i.has("nc"))
    assert ldnc.mods == ("global", "nc", "L1::no_allocate", "v2", "u32")
    assert ldnc.operands[1] == Addr(Reg("%rd1"), -8)
    assert ins["st.global.u32 [%rd1-4], %r2;"].operands[0] == Addr(Reg("%rd1"), -4)
    assert ins["ld.shared.u32 %r3, [dsm+16];"].operands[1] == Addr(Sym("dsm"), 16)
    assert ins["st.global.u32 [1024], %r3;"].operands[0] == Addr(None, 1024)
    assert ins["and.pred %p0, %p0, !%p1;"].operands[2] == Reg("%p1", neg=True)
    brx = ins["brx.idx %r0, $Ltab;"]
    assert brx.operands == (Reg("%r0"), Label("$Ltab"))
    assert k.branch_targets == {"$Ltab": ("$Lend", "$L1")}
    assert k.labels == {"$Lend": len(k.instructions) - 1, "$L1": len(k.instructions) - 2}


def test_hand_nested_scope_shadowing(hand):
    k = hand.functions["k"]
    inner = [r for r in k.regs if r.startswith("%r1$")]
    assert len(inner) == 1 and k.regs[inner[0]] == "b32"
    assert k.regs["x"] == "u16"
    mov5 = next(i for i in k.instructions if i.text == "mov.u32 %r1, 5;")
    assert mov5.operands == (Reg(inner[0]), Imm(5))
    add = next(i for i in k.instructions if i.text == "add.s32 %r2, %r1, %r1;")
    assert add.operands == (Reg("%r2"), Reg(inner[0]), Reg(inner[0]))
    # outside the block %r1 is the outer register again
    ld = next(i for i in k.instructions if i.has("nc"))
    assert ld.operands[0] == Vec((Reg("%r0"), Reg("%r1")))


def test_sibling_scopes_with_same_type_share_a_name():
    m = ptx(""".entry e() {
        .reg .b32 %r<2>;
        { .reg .b32 t; mov.b32 t, 1; }
        { .reg .b32 t; mov.b32 t, 2; }
        ret;
    }""")
    fn = m.functions["e"]
    assert fn.regs == {"%r0": "b32", "%r1": "b32", "t": "b32"}
    assert [i.operands[0] for i in fn.instructions[:2]] == [Reg("t"), Reg("t")]


def test_declaration_after_forward_declaration():
    m = ptx(""".func (.param .b32 r) f(.param .b32 a);
    .entry e() { ret; }
    .func (.param .b32 r) f(.param .b32 a) { st.param.b32 [r], 1; ret; }""")
    assert not m.functions["f"].extern and len(m.functions["f"].instructions) == 2
    assert list(m.functions) == ["f", "e"]


@pytest.mark.parametrize(("text", "value"), [
    ("0", 0), ("17", 17), ("017", 15), ("0x1F", 31), ("0XffU", 255), ("0b1010", 10), ("123U", 123),
])
def test_parse_int(text, value):
    assert parse_int(text) == value


def test_immediates_in_instructions():
    m = ptx(""".entry e() {
        .reg .b64 %rd<2>; .reg .f64 %fd<3>; .reg .f32 %f<2>;
        mov.b64 %rd0, 0xFFFFFFFFFFFFFFFF;
        mov.f64 %fd0, 0d8000000000000000;
        mov.f64 %fd1, 1.5;
        mov.f64 %fd2, -0d3FF8000000000000;
        mov.f32 %f0, 0f00000001;
        ret;
    }""")
    ops = [i.operands[1] for i in m.functions["e"].instructions[:5]]
    assert ops[0] == Imm(2**64 - 1)
    assert ops[1].bits == 1 << 63 and str(ops[1].value) == "-0.0"
    assert ops[2] == Imm(1.5)
    assert ops[3] == Imm(-1.5, 0xBFF8000000000000)
    assert ops[4].bits == 1 and ops[4].value == struct.unpack("<f", struct.pack("<I", 1))[0]


# ----------------------------------------------------------------------------- errors
def _err(text: str) -> str:
    with pytest.raises(PtxError) as ei:
        parse_ptx(text, "bad.ptx")
    assert ei.value.code == Err.InvalidPtx
    return str(ei.value)


def test_syntax_error_names_file_line_column_and_text():
    msg = _err(HEADER + ".entry e()\n{\n    add.s32 %r1, %r2 %r3;\n}\n")
    assert msg == "bad.ptx:6:22: syntax error: unexpected '%r3'\n        add.s32 %r1, %r2 %r3;"


def test_bad_character():
    msg = _err(HEADER + ".entry e() {\n  ret; #\n}\n")
    assert msg == "bad.ptx:5:8: syntax error: unexpected character '#'\n      ret; #"


def test_unexpected_end_of_input():
    msg = _err(HEADER + ".entry e() {\n  ret;\n")
    assert msg.startswith("bad.ptx:5:7: syntax error: unexpected end of input")


def test_duplicate_label():
    msg = _err(HEADER + ".entry e() {\nL1:\n ret;\nL1:\n ret;\n}\n")
    assert msg == "bad.ptx:7:1: duplicate label L1\n    L1:"


def test_undefined_branch_target():
    msg = _err(HEADER + ".entry e() {\n bra NOWHERE;\n}\n")
    assert msg == "bad.ptx:5:2: branch target NOWHERE is not a label of function e\n     bra NOWHERE;"


def test_bad_branchtargets_entry():
    msg = _err(HEADER + ".entry e() {\n .reg .b32 %r1;\n brx.idx %r1, T;\nT: .branchtargets A, B;\nA: ret;\n}\n")
    assert msg == "bad.ptx:7:22: .branchtargets T: B is not a label of function e\n    T: .branchtargets A, B;"


def test_undeclared_guard():
    msg = _err(HEADER + ".entry e() {\n @%p9 ret;\n}\n")
    assert msg == "bad.ptx:5:3: guard %p9 is not a declared register\n     @%p9 ret;"


def test_duplicate_register_in_scope():
    msg = _err(HEADER + ".entry e() {\n .reg .b32 %r1;\n .reg .b32 %r1;\n ret;\n}\n")
    assert msg == "bad.ptx:6:12: duplicate declaration of %r1 in the same scope\n     .reg .b32 %r1;"


def test_module_scope_decl_without_space():
    msg = _err(HEADER + ".u32 x;\n")
    assert msg == "bad.ptx:4:6: module-scope declaration of x needs a state space (.global, .const, .shared, .local)\n    .u32 x;"


def test_too_many_initialisers():
    msg = _err(HEADER + ".global .u32 x[2] = {1, 2, 3};\n")
    assert msg.startswith("bad.ptx:4:14: 3 initialisers for x with 2 elements")


def test_huge_register_range_rejected():
    msg = _err(HEADER + ".entry e() {\n .reg .b32 %r<99999999>;\n ret;\n}\n")
    assert "too large" in msg


def test_guard_must_be_predicate():
    msg = _err(HEADER + ".entry e() {\n .reg .b32 %r1;\n @%r1 ret;\n}\n")
    assert msg == "bad.ptx:6:3: guard %r1 is a .b32 register, not a .pred\n     @%r1 ret;"


def test_undeclared_register_operand():
    msg = _err(HEADER + ".entry e() {\n .reg .b32 %r<2>;\n st.global.u32 [%rd1], %r1;\n}\n")
    assert msg == "bad.ptx:6:2: register %rd1 is not declared in function e\n     st.global.u32 [%rd1], %r1;"


def test_call_to_unknown_function():
    msg = _err(HEADER + ".entry e() {\n call.uni foo, ();\n ret;\n}\n")
    assert msg == "bad.ptx:5:2: call to foo, which is not a function of the module\n     call.uni foo, ();"


def test_managed_attribute():
    v = load("snip3.ptx").variables
    assert (v["mcount"].managed, v["mcount"].init, v["mcount"].type) == (True, [5], "u32")
    assert (v["mbuf"].managed, v["mbuf"].size_bytes) == (True, 16)
    assert v["dflag"].managed is False
    m = ptx(".global .attribute(.unified(19, 95)) .align 8 .u64 u;\n")
    assert (m.variables["u"].managed, m.variables["u"].align) == (False, 8)


def test_block_scoped_labels_from_repeated_inline_asm():
    body = """{ .reg .pred P1;
    WAIT:
        setp.eq.u32 P1, %r1, 0;
        @P1 bra DONE;
        bra.uni WAIT;
    DONE:
    }"""
    m = ptx(f""".entry e() {{
        .reg .b32 %r<2>;
        {body}
        {body}
        bra.uni OUT;
    OUT:
        ret;
    }}""")
    fn = m.functions["e"]
    assert len(fn.labels) == 5
    first, second = fn.instructions[1], fn.instructions[4]
    assert first.opcode == second.opcode == "bra"
    done1, done2 = first.operands[0].name, second.operands[0].name
    assert done1 == "DONE" and done2.startswith("DONE$")
    assert (fn.labels[done1], fn.labels[done2]) == (3, 6)
    assert fn.instructions[2].operands[0] == Label("WAIT")
    assert fn.labels[fn.instructions[5].operands[0].name] == 3
    assert fn.instructions[6].operands[0] == Label("OUT") and fn.labels["OUT"] == 7
    assert fn.reconvergence_pc[1] == 3 and fn.reconvergence_pc[4] == 6


def test_older_isa_constructs():
    m = parse_ptx(""".version 7.0
.target sm_52, debug
.address_size 64
.tex .u64 oldtex;
.global .texref t2;
.extern .func __assertfail
(
    .param .b64 p0
)
.noreturn;
.weak .func (.param .b32 r) wf() { st.param.b32 [r], 0; ret; }
.entry k(.param .u64 k_param_0) .maxntid 32, 1, 1 {
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [k_param_0];
    tex.1d.v4.s32.s32 {%r0, %r1, %r2, %r0}, [oldtex, {%r1}];
    ret;
}
""", "old.ptx")
    assert m.version == (7, 0) and m.target == ("sm_52", "debug")
    assert m.variables["oldtex"].space == "tex"
    assert m.functions["__assertfail"].directives == {"noreturn": ()}
    assert m.functions["wf"].weak
    assert m.kernels["k"].directives == {"maxntid": (32, 1, 1)}


def test_modern_operand_forms():
    m = parse_ptx(HEADER.replace("sm_75", "sm_90") + """.entry k(.param .u64 t) {
 .reg .b64 %rd<3>; .reg .f32 %f<6>; .reg .b32 %r<6>; .reg .pred p;
 ld.param.u64 %rd1, [t];
 tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f5}];
 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];
 elect.sync %r1|p, -1;
 setmaxnreg.inc.sync.aligned.u32 240;
 ret;
}""", "m.ptx")
    ins = m.functions["k"].instructions
    # bindless texture object / TMA descriptor in a register: Vec((handle, coordinates))
    assert ins[1].operands[1] == Vec((Reg("%rd1"), Vec((Reg("%f5"), Reg("%f5")))))
    assert ins[2].mods[-1] == "mbarrier::complete_tx::bytes"
    assert ins[2].operands[1] == Vec((Reg("%rd1"), Vec((Reg("%r2"), Reg("%r3")))))
    assert ins[3].operands == (PredPair(Reg("%r1"), Reg("p")), Imm(-1))
    assert ins[4].operands == (Imm(240),)


def test_struct_initialisers_with_pointers():
    from gpgpusim.ptx.ir import SymMask

    v = load("snip5.ptx").variables
    assert v["tval"].init == [8589934593, Addr(Sym("garr"), 4), 516465623040]
    pval = v["pval"].init
    assert pval[0] == 122 and len(pval) == 9
    assert pval[1] == SymMask("garr", 0, 0xFF) and pval[8] == SymMask("garr", 0, 0xFF << 56)
    # byte i of the address of garr (placed at 0xC0001234), little-endian
    assert [m.value(0xC0001234) for m in pval[1:]] == [0x34, 0x12, 0x00, 0xC0, 0, 0, 0, 0]
    m = ptx(".global .b8 a[4];\n.global .u8 q[2] = {0xFF(a+3), 0xFF00(generic(a)+3)};\n")
    assert m.variables["q"].init == [SymMask("a", 3, 0xFF), SymMask("a", 3, 0xFF00)]


OLD_PTX = """
	.version 1.4
	.target sm_10, map_f64_to_f32
	// compiled with /usr/local/cuda/open64/lib//be
	.file	1 "<command-line>"
	.file	2 "/tmp/tmpxft_00001234_00000000-6_vec.cudafe2.gpu"
	.tex .u64 texA;

	.entry _Z6vecAddPfS_S_i (
		.param .u64 __cudaparm__Z6vecAddPfS_S_i_a,
		.param .u64 __cudaparm__Z6vecAddPfS_S_i_b,
		.param .u64 __cudaparm__Z6vecAddPfS_S_i_c,
		.param .s32 __cudaparm__Z6vecAddPfS_S_i_n)
	{
	.reg .u16 %rh<4>;
	.reg .u32 %r<6>;
	.reg .u64 %rd<10>;
	.reg .f32 %f<5>;
	.reg .pred %p<3>;
	.loc	2	3	0
$LDWbegin__Z6vecAddPfS_S_i:
	mov.u16 	%rh1, %ctaid.x;
	mov.u16 	%rh2, %ntid.x;
	mul.wide.u16 	%r1, %rh1, %rh2;
	cvt.u32.u16 	%r2, %tid.x;
	add.u32 	%r3, %r2, %r1;
	ld.param.s32 	%r4, [__cudaparm__Z6vecAddPfS_S_i_n];
	setp.le.s32 	%p1, %r4, %r3;
	@%p1 bra 	$Lt_0_1026;
	.loc	2	5	0
	cvt.s64.s32 	%rd1, %r3;
	mul.wide.s32 	%rd2, %r3, 4;
	ld.param.u64 	%rd3, [__cudaparm__Z6vecAddPfS_S_i_a];
	add.u64 	%rd4, %rd3, %rd2;
	ld.global.f32 	%f1, [%rd4+0];
	tex.1d.v4.f32.s32 {%f2,%f3,%f4,%f1},[texA,{%r3,%r3,%r3,%r3}];
	add.f32 	%f3, %f1, %f2;
	ld.param.u64 	%rd5, [__cudaparm__Z6vecAddPfS_S_i_c];
	add.u64 	%rd6, %rd5, %rd2;
	st.global.f32 	[%rd6+0], %f3;
$Lt_0_1026:
	.loc	2	7	0
	exit;
$LDWend__Z6vecAddPfS_S_i:
	} // _Z6vecAddPfS_S_i
"""


def test_old_isa_1_4_ptx_from_cuda_sdk_era():
    m = parse_ptx(OLD_PTX, "old.ptx")
    assert m.version == (1, 4) and m.target == ("sm_10", "map_f64_to_f32")
    k = m.kernels["_Z6vecAddPfS_S_i"]
    assert [p.offset for p in k.params] == [0, 8, 16, 24] and k.param_bytes == 28
    assert k.instructions[0].operands == (Reg("%rh1"), Special("%ctaid", "x"))
    assert k.instructions[0].loc == (2, 3, 0)
    assert k.labels == {"$LDWbegin__Z6vecAddPfS_S_i": 0, "$Lt_0_1026": 18, "$LDWend__Z6vecAddPfS_S_i": 19}
    assert k.instructions[18].opcode == "exit" and k.instructions[18].loc == (2, 7, 0)
    assert k.reconvergence_pc == {7: 18}
    assert m.files[2].endswith("vec.cudafe2.gpu")


def test_deep_nesting_is_a_clean_error():
    msg = _err(".version 9.0\n.entry k()\n" + "{\n" * 70 + "ret;\n" + "}\n" * 70)
    assert msg == "bad.ptx:73:1: blocks nested more than 64 deep\n    ret;"
