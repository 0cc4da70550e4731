"""Device-side launches in PTXPlus (dynamic parallelism, C078-C091; issue 27): the relocated
address of a kernel (``UMOV UR4, 32@lo(child)``) and the device runtime's launch calls through
``CALL.ABS`` convert to the kernel's handle and to the PTX calls that the engine runs as in PTX
mode (``gpgpusim/functional/cdp.py``).  ``apps/cdp_tree.cu`` runs end to end in
tests/ptxplus/test_ptxplus_apps.py and test_ptxplus_perf.py."""

from __future__ import annotations

import pytest

from gpgpusim.ptx import parse_ptx
from gpgpusim.ptxplus import mark_sass
from gpgpusim.ptxplus.convert import UnsupportedSass, convert_kernel
from tests.ptxplus.ptxplus_helpers import context, sass_function

#: what nvcc 13 emits for ``child<<<1, 4>>>(p)`` (sm_75), shortened: the kernel's address in
#: R4:R5, grid (R6-R8), block (R9-R11), shared memory (R12), the return address in R20:R21
LAUNCH = [
    "UMOV UR4, 32@lo(child) ;",                          # 0x00
    "UMOV UR5, 32@hi(child) ;",                          # 0x10
    "MOV R6, 0x1 ;", "MOV R7, 0x1 ;", "MOV R8, 0x1 ;",   # 0x20-0x40
    "MOV R9, 0x4 ;", "MOV R10, 0x1 ;", "MOV R11, 0x1 ;",  # 0x50-0x70
    "MOV R12, RZ ;",                                     # 0x80
    "MOV R4, UR4 ;",                                     # 0x90
    "MOV R5, UR5 ;",                                     # 0xa0
    "MOV R20, 32@lo((k + 0xd0)) ;",                      # 0xb0
    "CALL.ABS.NOINC __cudaCDP2GetParameterBufferV2 ;",   # 0xc0
    "CS2R R6, SRZ ;",                                    # 0xd0
    "CALL.ABS.NOINC __cudaCDP2LaunchDeviceV2 ;",         # 0xe0
    "EXIT ;",                                            # 0xf0
]
CHILD = 0x7F0000000020          # a handle above 4 GiB: both halves matter


def _text(lines: list[str], symbols: dict[str, int]) -> str:
    ctx = context("k")
    ctx.symbols = symbols
    return convert_kernel(sass_function("k", lines), ctx)


def test_relocated_kernel_address_is_its_handle():
    text = _text(LAUNCH, {"child": CHILD, "k": 0x7F0000000000})
    assert "mov.b32 %ur4, 32; //@main" in text and "mov.b32 %ur5, 32512; //@main" in text
    assert "mov.b32 %r20, 208; //@main" in text          # k + 0xd0: the call's return address


def test_launch_calls_pass_the_abi_registers_and_the_call_is_the_main_line():
    text = _text(LAUNCH, {"child": CHILD, "k": 0x7F0000000000})
    get = text.split("// CALL.ABS.NOINC __cudaCDP2GetParameterBufferV2 ;")[1].split("// CS2R")[0]
    assert [ln.strip() for ln in get.strip().splitlines()] == [
        "{", ".param .b64 param0;", "mov.b64 %d0, {%r4, %r5};", "st.param.b64 [param0], %d0;",
        ".param .align 4 .b8 param1[12];", "st.param.b32 [param1+0], %r6;", "st.param.b32 [param1+4], %r7;",
        "st.param.b32 [param1+8], %r8;", ".param .align 4 .b8 param2[12];", "st.param.b32 [param2+0], %r9;",
        "st.param.b32 [param2+4], %r10;", "st.param.b32 [param2+8], %r11;", ".param .b32 param3;",
        "st.param.b32 [param3], %r12;", ".param .b64 retval0;",
        "call.uni (retval0), __cudaCDP2GetParameterBufferV2, (param0, param1, param2, param3); //@main",
        "ld.param.b64 %d1, [retval0];", "mov.b64 {%r4, %r5}, %d1;", "}"]
    launch = text.split("// CALL.ABS.NOINC __cudaCDP2LaunchDeviceV2 ;")[1].split("// EXIT")[0]
    assert "call.uni (retval0), __cudaCDP2LaunchDeviceV2, (param0, param1); //@main" in launch
    assert "mov.b64 %d1, {%r6, %r7};" in launch and "ld.param.b32 %r4, [retval0];" in launch
    # the text parses with the declarations apply() puts in the header; one main line each
    from gpgpusim.ptxplus.convert import CDP_CALLS
    full = (".version 8.0\n.target sm_75\n.address_size 64\n\n" + "".join(d + "\n" for _a, _r, d in CDP_CALLS.values())
            + text)
    m = parse_ptx(full, "k.ptxplus")
    mark_sass(m.functions.values(), full)
    mains = [i for i in m.functions["k"].instructions if i.sass is not None and i.sass[2]]
    assert [i.opcode for i in mains if i.sass[1] == "CALL"] == ["call", "call"]
    assert len(mains) == len(LAUNCH)


def test_unknown_relocation_and_other_runtime_calls_are_refused():
    with pytest.raises(UnsupportedSass, match=r"UMOV \(operand 32@lo\(child\)\)"):
        _text(LAUNCH, {"k": 0})
    with pytest.raises(UnsupportedSass, match="call of __cudaCDP2StreamCreateWithFlags"):
        _text(["CALL.ABS.NOINC __cudaCDP2StreamCreateWithFlags ;", "EXIT ;"], {})
