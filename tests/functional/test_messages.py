"""GPGPU-Sim's load-time and first-launch PTX messages (C194, C219) against the C++ 4.2 logs
in ``../shared/reference/gpgpusim-output`` (same nvcc-generated PTX as ``tests/ptx/data``),
and the PTX_SIM_DEBUG 2 and 100 dumps."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from gpgpusim.functional import messages
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.ptx import parse_ptx

PTX_DATA = Path(__file__).resolve().parents[1] / "ptx" / "data"
SHARED = Path(os.environ.get("GPGPUSIM_SHARED") or Path(__file__).resolve().parents[3] / "shared")
LOGS = SHARED / "reference" / "gpgpusim-output"


def _ptx_name(name: str) -> str:
    """The PTX file name GPGPU-Sim's logs show for reference program ``name``."""
    return f"{name}_sm75.1.sm_75.ptx" if name in ("matmul", "reduce") else f"{name}.1.sm_75.ptx"


def _load(name: str):
    module = parse_ptx((PTX_DATA / f"{name}.ptx").read_text(), _ptx_name(name))
    return module, load_module(module, GlobalMemory())


def _log(name: str) -> list[str]:
    path = LOGS / f"{name}_qv100.log"
    if not path.exists():
        pytest.skip(f"reference log {path} not available")
    return path.read_text().splitlines()


def _block(lines: list[str], first: str, last: str) -> list[str]:
    i = next(k for k, ln in enumerate(lines) if ln.startswith(first))
    j = next(k for k in range(i, len(lines)) if lines[k].startswith(last))
    return lines[i:j + 1]


_ADDR = re.compile(r"from 0x[0-9a-f]+ to 0x[0-9a-f]+ \(global")


@pytest.mark.parametrize("name", ["sfu", "dp_local", "divergence", "matmul", "atomics"])
def test_load_messages_match_gpgpusim_up_to_ptxinfo(name):
    """Everything from ``Parsing`` to ``Loading PTXInfo`` is GPGPU-Sim's text, line for line
    (global variables live at our device addresses, not at GPGPU-Sim's 0x100)."""
    module, lm = _load(name)
    ours = messages.load_report(module, _ptx_name(name), lm, debug_level=0)
    ref = [ln for ln in _block(_log(name), "GPGPU-Sim PTX: Parsing", "GPGPU-Sim PTX: Loading PTXInfo")
           if ln.startswith("GPGPU-Sim PTX:")]
    mine = ours[:ours.index(f"GPGPU-Sim PTX: Loading PTXInfo from {_ptx_name(name)}") + 1]
    assert [_ADDR.sub("from A to B (global", ln) for ln in mine] == \
        [_ADDR.sub("from A to B (global", ln) for ln in ref]
    for v in module.variables.values():
        if v.space == "global":
            a = lm.symbols[v.name].address
            assert f'GPGPU-Sim PTX: allocating global region for "{v.name}" from {a:#x} to ' \
                   f'{a + v.size_bytes:#x} (global memory space)' in mine


def test_ptxinfo_lines_without_a_cubin_come_from_the_ptx():
    """No fatbin: kernels listed last-defined first; smem exact, cmem = parameter bytes."""
    module, lm = _load("atomics")
    lines = messages.load_report(module, "atomics.1.sm_75.ptx", lm, debug_level=0)
    kernel_lines = [ln for ln in lines if ln.startswith("GPGPU-Sim PTX: Kernel")]
    assert [ln.split("'")[1] for ln in kernel_lines] == ["_Z10histSharedPKjPji", "_Z10histGlobalPKjPji"]
    assert kernel_lines[0].endswith("lmem=0, smem=1024, cmem=20")
    assert kernel_lines[1].endswith("lmem=0, smem=0, cmem=20")


@pytest.mark.parametrize("name", ["divergence", "matmul"])
def test_first_launch_report_matches_gpgpusim(name):
    module, lm = _load(name)
    log = _log(name)
    for kernel in module.kernels:
        ref = _block(log, f"GPGPU-Sim PTX: finding reconvergence points for '{kernel}'",
                     f"GPGPU-Sim PTX: ... done pre-decoding instructions for '{kernel}'")
        assert messages.launch_report(lm, kernel, debug_level=0) == ref
        assert messages.launch_report(lm, kernel, debug_level=0) == [
            f"GPGPU-Sim PTX: PDOM analysis already done for {kernel} "]


TINY = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra L;
    add.u32 %r1, %r1, 1;
L:
    ret;
}
"""


def test_debug_level_2_prints_dominators():
    module = parse_ptx(TINY, "t.ptx")
    lm = load_module(module, GlobalMemory())
    lines = messages.launch_report(lm, "k", debug_level=2)
    i = lines.index("Printing dominators for function 'k':")
    # blocks: 0 = mov setp bra, 1 = add, 2 = L: ret, 3 = exit
    assert lines[i - 1] == "GPGPU-Sim PTX: Finding immediate dominators for 'k'..."
    assert lines[i + 1:i + 5] == ["ID: 0\t: 0", "ID: 1\t: 0 1", "ID: 2\t: 0 2", "ID: 3\t: 0 2 3"]
    assert lines[i + 5] == "GPGPU-Sim PTX: Finding postdominators for 'k'..."


def test_debug_level_100_lists_the_ptx_with_pcs():
    module = parse_ptx(TINY, "t.ptx")
    lines = messages.load_report(module, "t.ptx", load_module(module, GlobalMemory()),
                                 source_num=3, debug_level=100)
    i = lines.index("GPGPU-Sim PTX: file _3.ptx contents:")
    listing = lines[i + 2:lines.index("GPGPU-Sim PTX: finished parsing EMBEDDED .ptx file t.ptx")]
    assert listing[0] == "    _3.ptx     1 (pc=    ):  .version 8.0"
    # mov is at pc 0, which GPGPU-Sim prints blank; then 8 bytes per instruction
    assert listing[7] == "    _3.ptx     8 (pc=    ):      mov.u32 %r1, %tid.x;"
    assert listing[8] == "    _3.ptx     9 (pc=   8):      setp.eq.u32 %p1, %r1, 0;"
    assert listing[10] == "    _3.ptx    11 (pc=  24):      add.u32 %r1, %r1, 1;"
    assert listing[11] == "    _3.ptx    12 (pc=    ):  L:"
    assert listing[12] == "    _3.ptx    13 (pc=  32):      ret;"
    assert lines[i - 1] == "" and lines[i + 1] == ""


@pytest.mark.parametrize(("name", "typ", "bits", "text"), [
    ("%r2", "u32", 101, "       %r2   .u32 101 [0x00000065]"),
    ("%r3", "s32", 0xFFFFFFFF, "       %r3   .s32 -1"),
    ("%rs1", "s16", 0x8000, "      %rs1   .s16 -32768"),
    ("%rd1", "u64", 1 << 40, "      %rd1   .u64 1099511627776 [0x10000000000]"),
    ("%rd2", "b64", 255, "      %rd2   .b64 0xff"),
    ("%r4", "b32", 5, "       %r4   .b32 0x00000005"),
    ("%p1", "pred", True, "       %p1   .pred 1"),
    ("%f1", "f32", 0x3FC00000, "       %f1   .f32 1.500000000000000 [0x3fc00000]"),
    ("%f2", "f32", 0xFFC00000, "       %f2   .f32 -nan [0xffc00000]"),
    ("%f3", "f32", 0x7F800000, "       %f3   .f32 inf [0x7f800000]"),
    ("%fd1", "f64", 0xC002000000000000, "      %fd1   .f64 -2.250000000000000e+00 [0xc002000000000000]"),
    ("%h1", "f16", 0x3800, "       %h1   .f16 0.500000 [0x3800]"),
])
def test_trace_register_format_is_gpgpusims(name, typ, bits, text):
    """PTX_SIM_DEBUG >= 6 single-thread trace: registers as GPGPU-Sim's print_reg shows them
    (floats by value, with their bits)."""
    from gpgpusim.functional.state import format_reg
    assert format_reg(name, typ, bits) == text


def test_trace_prints_float_registers_by_value(monkeypatch, capsys):
    import numpy as np
    from engine_helpers import ptx, run_once

    m = ptx("""
    .reg .b32 %r<4>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p0];
    mov.u32 %r1, %tid.x;
    cvt.rn.f32.u32 %f1, %r1;
    mul.f32 %f2, %f1, 0f3FC00000;
    st.global.f32 [%rd1], %f2;
    ret;""")
    monkeypatch.setenv("PTX_SIM_DEBUG", "6")
    monkeypatch.setenv("PTX_SIM_DEBUG_THREAD_UID", "3")
    run_once(m, "k", (1, 1, 1), (4, 1, 1), [("o", np.zeros(4, np.float32))])
    out = capsys.readouterr().out.splitlines()
    assert "       %f2   .f32 4.500000000000000 [0x40900000]" in out


def test_debug_level_3_memory_lines(monkeypatch):
    """GPGPU-Sim's gpu_malloc / memcpy_* / gpu_memset lines, only at PTX_SIM_DEBUG >= 3."""
    monkeypatch.setenv("PTX_SIM_DEBUG", "2")
    assert messages.memory_note("malloc", 20000, 0xC0000000) == ""
    monkeypatch.setenv("PTX_SIM_DEBUG", "3")
    assert messages.memory_note("malloc", 20000, 0xC0004F00) == \
        "GPGPU-Sim PTX: allocating 20000 bytes on GPU starting at address 0xc0004f00\n"
    assert messages.memory_note("HostToDevice", 16, 0xC0000000, 0x5584C3023F10) == \
        "GPGPU-Sim PTX: copying 16 bytes from CPU[0x5584c3023f10] to GPU[0xc0000000] ...  done.\n"
    assert messages.memory_note("DeviceToHost", 8, 0x7FFD0000, 0xC0000100) == \
        "GPGPU-Sim PTX: copying 8 bytes from GPU[0xc0000100] to CPU[0x7ffd0000] ... done.\n"
    assert messages.memory_note("DeviceToDevice", 4, 0xC0000200, 0xC0000100) == \
        "GPGPU-Sim PTX: copying 4 bytes from GPU[0xc0000100] to GPU[0xc0000200] ... done.\n"
    assert messages.memory_note("HostToDevice", 4, 0xC0000000, b"staged") == \
        "GPGPU-Sim PTX: copying 4 bytes from CPU[0x0] to GPU[0xc0000000] ...  done.\n"
    assert messages.memory_note("memset", 100, 0xC0000900, value=0x107) == \
        "GPGPU-Sim PTX: setting 100 bytes of memory to 0x7 starting at 0xc0000900...  done.\n"
