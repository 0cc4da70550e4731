"""Basic blocks, post-dominators and reconvergence points (C215-C219)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpgpusim.ptx import cfg, parse_ptx
import os

# ../shared beside the checkout (the reference data); GPGPUSIM_SHARED overrides.
SHARED_DIR = os.environ.get("GPGPUSIM_SHARED") or str(Path(__file__).resolve().parents[3] / "shared")

DATA = Path(__file__).parent / "data"
REF_LOGS = Path(SHARED_DIR, "reference/gpgpusim-output")
HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"


def kernel(body: str, regs: str = ".reg .pred %p<8>; .reg .b32 %r<8>;"):
    m = parse_ptx(HEADER + ".entry k()\n{\n" + regs + "\n" + body + "\n}\n", "cfg.ptx")
    return m.functions["k"]


def blocks(fn):
    return [(b.start, b.end, b.succs) for b in fn.basic_blocks]


def test_straight_line_single_block():
    fn = kernel("add.s32 %r1, %r2, %r3;\nret;")
    assert blocks(fn) == [(0, 2, [1])]  # 1 = virtual exit
    assert fn.reconvergence_pc == {}


def test_if_else():
    fn = kernel("""
        @%p1 bra ELSE;         // 0
        add.s32 %r1, 1, 2;     // 1
        bra.uni JOIN;          // 2
    ELSE:
        add.s32 %r1, 3, 4;     // 3
    JOIN:
        st.global.u32 [%r1], %r1; // 4
        ret;                   // 5
    """)
    assert blocks(fn) == [(0, 1, [2, 1]), (1, 3, [3]), (3, 4, [3]), (4, 6, [4])]
    assert [b.preds for b in fn.basic_blocks] == [[], [0], [0], [1, 2]]
    assert fn.reconvergence_pc == {0: 4, 2: 4}


def test_nested_divergence():
    fn = kernel("""
        @%p1 bra OUTER_END;    // 0
        @%p2 bra INNER_ELSE;   // 1
        add.s32 %r1, 1, 2;     // 2
        bra.uni INNER_END;     // 3
    INNER_ELSE:
        add.s32 %r1, 3, 4;     // 4
    INNER_END:
        add.s32 %r2, %r1, 1;   // 5
    OUTER_END:
        ret;                   // 6
    """)
    assert fn.reconvergence_pc == {0: 6, 1: 5, 3: 5}


def test_loop_with_break():
    fn = kernel("""
        mov.u32 %r1, 0;             // 0
    LOOP:
        setp.eq.s32 %p1, %r1, 7;    // 1
        @%p1 bra DONE;              // 2  break
        add.s32 %r1, %r1, 1;        // 3
        setp.lt.s32 %p2, %r1, 100;  // 4
        @%p2 bra LOOP;              // 5  back edge
    DONE:
        st.global.u32 [%r1], %r1;   // 6
        ret;                        // 7
    """)
    assert blocks(fn) == [(0, 1, [1]), (1, 3, [3, 2]), (3, 6, [1, 3]), (6, 8, [4])]
    assert fn.reconvergence_pc == {2: 6, 5: 6}


def test_early_exit_reconverges_at_function_exit():
    fn = kernel("""
        setp.eq.s32 %p1, %r1, 0;    // 0
        @%p1 bra SKIP;              // 1
        @%p2 exit;                  // 2  early exit in the middle
        add.s32 %r2, %r2, 1;        // 3
    SKIP:
        st.global.u32 [%r1], %r2;   // 4
        ret;                        // 5
    """)
    assert blocks(fn) == [(0, 2, [3, 1]), (2, 3, [4, 2]), (3, 4, [3]), (4, 6, [4])]
    # threads leaving through the guarded exit never reach SKIP, so only the function exit
    # post-dominates both branches (GPGPU-Sim treats exit as a path to the exit node too)
    assert fn.reconvergence_pc == {1: 6, 2: 6}


def test_unguarded_ret_in_the_middle():
    fn = kernel("""
        @%p1 bra A;     // 0
        ret;            // 1
    A:
        add.s32 %r1, %r1, 1; // 2
        ret;            // 3
    """)
    assert blocks(fn) == [(0, 1, [2, 1]), (1, 2, [3]), (2, 4, [3])]
    assert fn.reconvergence_pc == {0: 4}  # only the virtual exit post-dominates both


def test_infinite_loop_reconverges_at_exit():
    fn = kernel("""
        @%p1 bra SPIN;  // 0
        ret;            // 1
    SPIN:
        bra.uni SPIN;   // 2
    """)
    assert fn.reconvergence_pc == {0: 3, 2: 3}


def test_brx_idx_targets():
    fn = kernel("""
        brx.idx %r1, TBL;        // 0
    TBL: .branchtargets A, B, C;
    A:  add.s32 %r2, 1, 1;       // 1
        bra.uni END;             // 2
    B:  add.s32 %r2, 2, 2;       // 3
        bra.uni END;             // 4
    C:  add.s32 %r2, 3, 3;       // 5
    END:
        ret;                     // 6
    """)
    assert fn.basic_blocks[0].succs == [1, 2, 3]
    assert fn.reconvergence_pc == {0: 6, 2: 6, 4: 6}


def test_debug_printing(monkeypatch):
    fn = kernel("@%p1 bra X;\nadd.s32 %r1, 1, 2;\nX:\nret;")
    lines: list[str] = []
    cfg.print_basic_blocks(fn, lines.append)
    assert lines[0] == "Printing basic blocks for function 'k':"
    assert lines[1] == "bb_00\t: pc [0, 1)  preds: []  succs: [2, 1]"
    assert lines[2] == "\t0x0000  @%p1 bra X;"
    lines.clear()
    cfg.print_postdominators(fn, write=lines.append)
    assert lines == [
        "Printing postdominators for function 'k':",
        "ID: 0  :0 2 exit", "ID: 1  :1 2 exit", "ID: 2  :2 exit",
        "Printing immediate postdominators for function 'k':",
        "ID: 0  :2", "ID: 1  :2", "ID: 2  :exit",
    ]


def test_debug_level_50_prints_during_analysis(monkeypatch, capsys):
    monkeypatch.setenv("PTX_SIM_DEBUG", "50")
    kernel("ret;")
    out = capsys.readouterr().out
    assert "Printing basic blocks for function 'k':" in out
    assert "Printing immediate postdominators for function 'k':" in out


# ----------------------------------------------------------------------------- vs C++ GPGPU-Sim
_REF_RE = re.compile(r"PC=(0x[0-9a-f]+) \([^:]+:(\d+)\) (.*)$")
PROGRAMS = ["atomics", "bank_conflict", "divergence", "dp_local", "fma_loop", "matmul",
            "reduce", "sfu", "stream", "strided", "vectoradd"]


def _pairs(lines):
    out = []
    for line in lines:
        if "branch divergence @" in line or "immediate post dominator" in line:
            mt = _REF_RE.search(line)
            assert mt, line
            out.append((int(mt.group(1), 16), int(mt.group(2)), mt.group(3).strip()))
    return out


@pytest.mark.skipif(not REF_LOGS.is_dir(), reason="reference logs not available")
@pytest.mark.parametrize("prog", PROGRAMS)
def test_reconvergence_points_match_gpgpusim(prog):
    """Our ipdoms, PCs (8 bytes per instruction, numbered across the file) and texts equal
    the "reconvergence points" blocks the C++ GPGPU-Sim 4.2 printed for the same PTX."""
    text = (DATA / f"{prog}.ptx").read_text()
    m = parse_ptx(text, f"{prog}.ptx")
    mine = []
    bases = cfg.pc_bases(m)
    for name, fn in m.functions.items():
        mine += cfg.reconvergence_report(fn, f"{prog}.ptx", bases[name])
    log = (REF_LOGS / f"{prog}_qv100.log").read_text().splitlines()
    ref = _pairs(log)
    # the log repeats the block if a kernel is launched again: compare as ordered unique lists
    dedup = list(dict.fromkeys(zip(ref[::2], ref[1::2], strict=True)))
    got = list(zip(_pairs(mine)[::2], _pairs(mine)[1::2], strict=True))
    assert got == dedup
    assert len(got) > 0


def test_report_text_for_stream():
    m = parse_ptx((DATA / "stream.ptx").read_text(), "stream.1.sm_75.ptx")
    name = "_Z11streamTriadPfPKfS1_fi"
    lines = cfg.reconvergence_report(m.functions[name], "stream.1.sm_75.ptx", cfg.pc_bases(m)[name])
    assert lines == [
        "GPGPU-Sim PTX: reconvergence points for _Z11streamTriadPfPKfS1_fi...",
        "GPGPU-Sim PTX:  1 (potential) branch divergence @  PC=0x0d8 (stream.1.sm_75.ptx:74) @%p1 bra $L__BB1_2;",
        "GPGPU-Sim PTX:    immediate post dominator      @  PC=0x138 (stream.1.sm_75.ptx:89) ret;",
        "GPGPU-Sim PTX: ... end of reconvergence points for _Z11streamTriadPfPKfS1_fi",
    ]


def test_dominators_and_immediate_dominators():
    fn = kernel("""
        @%p1 bra ELSE;         // bb0
        add.s32 %r1, 1, 2;     // bb1
        bra.uni JOIN;
    ELSE:
        add.s32 %r1, 3, 4;     // bb2
    JOIN:
        ret;                   // bb3
    DEAD:
        ret;                   // bb4 (unreachable)
    """)
    dom = cfg.dominators(fn.basic_blocks)
    assert dom == [0b00001, 0b00011, 0b00101, 0b01001, 0b10000]
    assert cfg.idominators(dom) == [None, 0, 0, 0, None]
