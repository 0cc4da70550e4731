"""The fast pre-pass must give exactly the IR of the plain lark parse."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpgpusim.errors import PtxError
from gpgpusim.ptx.fastpath import prescan
from gpgpusim.ptx.parser import parse_module

DATA = Path(__file__).parent / "data"
FIXTURES = sorted(p.name for p in DATA.glob("*.ptx"))
HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"


def _same(a, b):
    assert a.variables == b.variables
    assert a.files == b.files
    assert list(a.functions) == list(b.functions)
    for name, fa in a.functions.items():
        fb = b.functions[name]
        assert fa.instructions == fb.instructions, name
        assert (fa.regs, fa.labels, fa.variables, fa.params, fa.ret_params, fa.directives) == \
            (fb.regs, fb.labels, fb.variables, fb.params, fb.ret_params, fb.directives)
        assert fa.branch_targets == fb.branch_targets


@pytest.mark.parametrize("name", FIXTURES)
def test_fast_and_plain_parse_agree(name):
    text = (DATA / name).read_text()
    _same(parse_module(text, name, fast=True), parse_module(text, name, fast=False))


def test_fast_path_takes_most_instruction_lines():
    text = (DATA / "matmul.ptx").read_text()
    lark_text, items, inits = prescan(text)
    assert len(items) == 107  # every instruction of the kernel
    assert len(lark_text) == len(text) and lark_text.count("\n") == text.count("\n")
    assert inits == []


EDGE = HEADER + r"""
.global .align 1 .b8 msg[70] = {118, 111, 105, 100, 32, 95, 95, 112, 105, 112, 101, 108, 105, 110, 101, 95, 109, 101, 109, 99, 0};
.global .s32 neg[12] = {-1, 0, 2, -30, 4, 5, 6, 7, 8, 9, 10, 11}; // trailing comment
.global .s32 oct[12] = {010, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
.entry k(.param .u64 p)
{
    .reg .pred %p<3>; .reg .b32 %r<6>; .reg .b64 %rd<4>; .reg .f32 %f<3>; .reg .b32 u;
    ld.param.u64 %rd1, [p];
    @%p1 add.s32 %r1, %r2, -4;   // comment
    @!%p2 bra L;
    @ %p1 sub.s32 %r1, %r1, 0x10U;
    setp.lt.s32 %p1 | %p2, %r1, 017;
    ld.global.v2.f32 {%f1, _}, [%rd1+-8];
    st.global.v2.f32 [%rd1 - 4], {%f1, %f2};
    mov.u64 %rd2, neg+8;
    ld.global.u32 %r3, [-16];
    and.pred %p0, %p1, !%p2;
    mov.u32 u, %tid.x;
    mov.f32 %f1, -0f3F800000;
    mov.f32 %f2, 1.5e3;
    mov.u32 %r4,
        %r3;
    mov.u32 %r5,
        %r4;
    st.global.u32 [ %rd1 + 4 ], u;
L:  ret;
}
"""


def test_edge_cases_agree():
    _same(parse_module(EDGE, "e.ptx", fast=True), parse_module(EDGE, "e.ptx", fast=False))


def test_edge_cases_use_fast_path_where_expected():
    _, items, inits = prescan(EDGE)
    fast_ops = [it[2] for it in items]
    # the two `mov.u32 %rN,\n %rM;` span lines: lark parses them
    assert fast_ops.count("mov.u32") == 1
    assert len(items) == 14  # all but the two multi-line movs and `L:  ret;` (label first)
    assert inits[0][:3] == [118, 111, 105] and inits[1][:4] == [-1, 0, 2, -30]
    assert len(inits) == 2  # the octal list is left to lark


def test_errors_come_from_the_plain_parser():
    bad = HEADER + ".entry k() {\n .reg .b32 %r<2>;\n add.s32 %r1, %r1, 1;\n ret; #\n}\n"
    with pytest.raises(PtxError) as ei:
        parse_module(bad, "b.ptx", fast=True)
    assert str(ei.value) == "b.ptx:7:7: syntax error: unexpected character '#'\n     ret; #"
    stray = HEADER + "add.s32 %r1, %r1, 1;\n"
    with pytest.raises(PtxError) as ei:
        parse_module(stray, "b.ptx", fast=True)
    assert "\x01" not in str(ei.value) and str(ei.value).startswith("b.ptx:4:")


def test_crlf_line_endings_give_the_same_ir():
    text = (DATA / "snip1_G.ptx").read_text()
    crlf = text.replace("\n", "\r\n")
    a, b = parse_module(text, "x.ptx"), parse_module(crlf, "x.ptx")
    _same(b, parse_module(crlf, "x.ptx", fast=False))
    assert a.files == b.files
    for name, fa in a.functions.items():
        assert [(i.opcode, i.mods, i.operands, i.guard, i.line, i.loc, i.text) for i in fa.instructions] == \
            [(i.opcode, i.mods, i.operands, i.guard, i.line, i.loc, i.text) for i in b.functions[name].instructions]
