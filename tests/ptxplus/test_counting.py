"""One SASS instruction is one warp instruction (issue 27): the dynamic counts of PTXPlus
kernels are counted by hand from their SASS (hand-written SASS, and ``data/count_kernels.cu``
compiled by nvcc, its listing pinned), in functional and in performance mode, and the timing
model issues each SASS instruction once, with its opcode's op class and latency
(``gpgpusim/timing/sass_ops.py``) and its real registers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpgpusim.functional import engine
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.ptx import parse_ptx
from gpgpusim.ptxplus import mark_sass
from gpgpusim.ptxplus.convert import convert_kernel
from gpgpusim.timing.static import OpClass, Unit, build_table
from tests.functional.engine_helpers import run_once
from tests.ptxplus.ptxplus_helpers import context, sass_function
from tests.timing.timing_helpers import run_timing

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[2]

#: a loop of 5 trips between straight-line code; per warp 3 + 3 x 5 + 3 = 21 SASS instructions
#: run (the final BRA after EXIT never), though the PTXPlus text has 2 lines for the IMAD (the
#: c[0x0][0x0] read), 3 for the IMAD.WIDE (parameter read, 64-bit result scattered) and 2 for
#: the STG (address pair gathered)
LOOP = [
    "S2R R0, SR_TID.X ;",                            # 0x00
    "IMAD R2, R0, c[0x0][0x0], RZ ;",                # 0x10
    "MOV R3, RZ ;",                                  # 0x20
    "IADD3 R3, R3, 0x1, RZ ;",                       # 0x30  <- loop: 5 trips
    "ISETP.GE.AND P0, PT, R3, 0x5, PT ;",            # 0x40
    "@!P0 BRA 0x30 ;",                               # 0x50
    "IMAD.WIDE.U32 R4, R0, 0x4, c[0x0][0x168] ;",    # 0x60
    "STG.E.SYS [R4], R3 ;",                          # 0x70
    "EXIT ;",                                        # 0x80
    "BRA 0x90 ;",                                    # 0x90
]
PER_WARP = 3 + 3 * 5 + 3


def module(lines: list[str]):
    text = ".version 8.0\n.target sm_75\n.address_size 64\n\n" + convert_kernel(sass_function("k", lines), context())
    m = parse_ptx(text, "k.ptxplus")
    mark_sass(m.functions.values(), text)
    return m


def test_converted_text_marks_one_main_line_per_sass_instruction():
    m = module(LOOP)
    insts = m.functions["k"].instructions
    mains = [i for i in insts if i.sass is not None and i.sass[2]]
    assert [i.sass[1] for i in mains] == ["S2R", "IMAD", "MOV", "IADD3", "ISETP", "BRA", "IMAD", "STG", "EXIT", "BRA"]
    assert [i.sass[0] for i in mains] == list(range(len(LOOP)))
    assert len(insts) > len(mains)                       # helper lines exist and are not main
    assert [i.opcode for i in mains if i.sass[1] in ("STG", "BRA", "EXIT")] == ["bra", "st", "exit", "bra"]


@pytest.mark.parametrize("warps", [1, 2])
@pytest.mark.parametrize("driver", ["batched", "warp"])
def test_functional_counts_are_sass_instructions(warps, driver):
    out = np.zeros(32 * warps, dtype=np.uint32)
    r = run_once(module(LOOP), "k", (1, 1, 1), (32 * warps, 1, 1), [("in", np.zeros(1, np.uint32)), ("out", out)],
                 driver=driver)
    assert (r.out["out"] == 5).all()
    assert r.stats.warp_insn == PER_WARP * warps
    # every lane runs every instruction but the last trip's BRA, whose guard is false
    assert r.stats.thread_insn == (PER_WARP - 1) * 32 * warps


@pytest.mark.parametrize("feed", ["trace", "live"])
def test_performance_mode_issues_one_instruction_per_sass_instruction(feed):
    out = np.zeros(64, dtype=np.uint32)
    run = run_timing(module(LOOP), "k", (1, 1, 1), (64, 1, 1), [("in", np.zeros(1, np.uint32)), ("out", out)],
                     overrides=[f"-gpgpusim_timing_feed {feed}"])
    assert (run.out["out"] == 5).all()
    assert run.rec.report_stats.warp_insn == PER_WARP * 2
    issued = run.issues()
    assert len(issued) == PER_WARP * 2


def _table(lines: list[str]):
    prog = engine.get_program(load_module(module(lines), GlobalMemory()), "k")
    return prog, build_table(prog)


def test_main_line_takes_the_sass_opcodes_class_latency_and_registers():
    prog, t = _table(LOOP)
    by_op = {}
    for pc, d in enumerate(prog.insts):
        if d.inst is not None and d.inst.sass is not None and d.inst.sass[2]:
            by_op.setdefault(d.inst.sass[1], pc)
        elif d.inst is not None:
            assert not t.counted[pc]
    names = [nm.rsplit(":", 1)[-1] for nm in prog.slot_names]

    def regs(pc, which):
        return sorted(names[r] for r in (t.dst_regs if which == "d" else t.src_regs)[pc])
    # SM7_QV100 (compute capability 7.0): Accel-Sim's int and sp pairs are (2, 2)
    pc = by_op["IMAD"]
    assert (OpClass(t.op_class[pc]), int(t.latency[pc]), int(t.initiation[pc])) == (OpClass.INTP_OP, 2, 2)
    assert Unit(t.unit[pc]) == Unit.INT
    assert regs(pc, "d") == ["%r2"] and regs(pc, "s") == ["%r0"]      # not the work register of c[0x0][0x0]
    pc = by_op["STG"]
    assert OpClass(t.op_class[pc]) == OpClass.STORE_OP and Unit(t.unit[pc]) == Unit.MEM
    assert int(t.width_bytes[pc]) == 4 and regs(pc, "s") == ["%r3", "%r4", "%r5"] and regs(pc, "d") == []
    pc = by_op["BRA"]
    assert OpClass(t.op_class[pc]) == OpClass.BRANCH_OP and regs(pc, "s") == ["%p0"]
    pc = by_op["ISETP"]
    assert regs(pc, "d") == ["%p0"] and regs(pc, "s") == ["%r3"]


def chain(op: str, n: int) -> list[str]:
    """``n`` copies of ``op`` (each reads and writes R1 or R2:R3: a dependent chain) after
    ``S2R``/``MOV``, then ``EXIT`` and the final ``BRA`` to itself."""
    lines = ["S2R R0, SR_TID.X ;", "MOV R1, RZ ;", *[op] * n, "EXIT ;"]
    return [*lines, f"BRA {16 * len(lines):#x} ;"]


@pytest.mark.parametrize("gpu,op,latency", [
    ("SM7_QV100", "FADD R1, R1, R1 ;", 2),              # Accel-Sim SM7 sp pair (2, 2)
    ("SM7_QV100", "IADD3 R1, R1, R1, RZ ;", 2),         # int (2, 2)
    ("SM7_QV100", "MUFU.RCP R1, R1 ;", 20),             # sfu (20, 8)
    ("SM7_QV100", "DADD R2, R2, R2 ;", 8),              # dp (8, 4)
    ("SM86_RTX3070", "FADD R1, R1, R1 ;", 4),           # SM86 sp (4, 2)
    ("SM86_RTX3070", "MUFU.RCP R1, R1 ;", 20),          # sfu (20, 8)
])
def test_dependent_chain_issues_at_the_sass_opcodes_latency(gpu, op, latency):
    """One warp, a chain of 4 dependent instructions: each issues ``latency + 5`` cycles after
    the one it depends on (5: the core's fixed issue-to-issue cost of a dependence, whatever
    the class -- issue, operand collection, dispatch, writeback, scoreboard release); the
    instructions of the chain are issued once each, helper lines (the DADD's register-pair
    gathers and scatter) never."""
    run = run_timing(module(chain(op, 4)), "k", (1, 1, 1), (32, 1, 1),
                     [("in", np.zeros(1, np.uint32)), ("out", np.zeros(1, np.uint32))], gpu=gpu)
    cycles = [c for c, _, _ in run.issues()]
    assert len(cycles) == 7                      # S2R, MOV, 4 x op, EXIT
    # each op after the one before it
    assert [b - a for a, b in zip(cycles[2:5], cycles[3:6], strict=True)] == [latency + 5] * 3
    assert cycles[6] == cycles[5] + 1            # EXIT depends on nothing


# ----------------------------------------------------------------------------- a compiled binary
#: the SASS nvcc 13 makes of data/count_kernels.cu for sm_75 (``python3 -m cuobjdump_tools -sass``),
#: opcodes in program order, and the warp instructions one warp runs, counted by hand
COMPILED = {
    # 0x00-0xb0 once each (the BRA to itself and the NOPs after EXIT never run): 12
    "_Z8straightPKiPi": (["MOV", "S2R", "MOV", "S2R", "IMAD", "IMAD", "LDG", "MOV", "IMAD", "IMAD", "STG",
                          "EXIT", "BRA", "NOP", "NOP", "NOP"], 12),
    # 0x00-0x60 (7), the loop 0x70-0xa0 (IADD3, FFMA, ISETP, @P0 BRA) 10 trips (40), 0xb0-0xe0 (4): 51
    "_Z4loopPfff": (["MOV", "S2R", "MOV", "MOV", "S2R", "IMAD", "I2F", "IADD3", "FFMA", "ISETP", "BRA", "MOV",
                     "IMAD", "STG", "EXIT", "BRA"], 51),
}
WARPS = 8        # <<<2, 128>>>


@pytest.fixture(scope="module")
def count_binary(tmp_path_factory):
    from cuobjdump_tools.sass import INSTALL_HINT, find_nvdisasm
    from tests.apps.app_helpers import find_nvcc
    nvcc = find_nvcc()
    if nvcc is None or find_nvdisasm() is None:
        pytest.skip("nvcc not found" if nvcc is None else INSTALL_HINT)
    out = tmp_path_factory.mktemp("count") / "count_kernels"
    r = subprocess.run([nvcc, "-cudart", "shared", "-O2", str(DATA / "count_kernels.cu"), "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return out


def test_compiled_kernels_sass_is_what_was_counted(count_binary):
    p = subprocess.run([sys.executable, "-m", "cuobjdump_tools", "-sass", str(count_binary)],
                       capture_output=True, text=True, timeout=300, cwd=REPO)
    assert p.returncode == 0, p.stderr
    ops: dict[str, list[str]] = {}
    fn = ""
    for line in p.stdout.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            fn = m[1]
            ops[fn] = []
        m = re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(?:@!?P\S+\s+)?([A-Z0-9_]+)", line)
        if m and fn:
            ops[fn].append(m[1])
    assert {k: v for k, v in ops.items() if k in COMPILED} == {k: v[0] for k, v in COMPILED.items()}


@pytest.mark.parametrize("functional", [True, False])
def test_compiled_kernels_count_by_hand(count_binary, functional, tmp_path):
    from tests.ptxplus.test_ptxplus_runs import run
    js = tmp_path / "stats.json"
    p = run(count_binary, functional=functional, json_out=js, cwd=tmp_path)
    assert p.returncode == 0 and "count_kernels: PASS" in p.stdout, p.stderr[-2000:]
    kernels = {k["kernel_name"]: k for k in json.loads(js.read_text())["kernels"]}
    assert {n: k["warp_insn"] for n, k in kernels.items()} == {n: c * WARPS for n, (_, c) in COMPILED.items()}
    # every lane runs every instruction, but the loop's last BRA has a false guard in all 256 lanes
    assert kernels["_Z8straightPKiPi"]["thread_insn"] == 12 * 256
    assert kernels["_Z4loopPfff"]["thread_insn"] == 51 * 256 - 256


def test_instruction_cache_addresses_are_the_sass_offsets(monkeypatch):
    """The L1I (``-gpgpu_perfect_inst_const_cache 0``) sees a PTXPlus kernel's SASS addresses:
    16 bytes per SASS instruction, every line of an expansion (helper lines included) at its
    instruction's offset, so the kernel's 10 SASS instructions take 160 bytes, not the
    8 bytes x 15 lines of its PTXPlus text."""
    from gpgpusim.timing.core.icache import InstCache, instruction_addresses

    m = module(LOOP)
    prog = engine.get_program(load_module(m, GlobalMemory()), "k")
    addrs, size = instruction_addresses(m, prog, 0)
    assert size == 160
    # the two entry lines (the %pt set-up and the c[0x0][0x0] read) at 0 with the S2R; the
    # IMAD.WIDE and the STG (two lines each) at 0x60 and 0x70; the end of the kernel at 0xa0
    assert addrs == [0, 0, 0, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x60, 0x70, 0x70, 0x80, 0x90, 0xA0, 0xA0]
    seen: list[int] = []
    orig = InstCache.access

    def access(self, slot, pc_bytes, now):
        seen.append(pc_bytes)
        return orig(self, slot, pc_bytes, now)
    monkeypatch.setattr(InstCache, "access", access)
    out = np.zeros(32, dtype=np.uint32)
    run = run_timing(module(LOOP), "k", (1, 1, 1), (32, 1, 1), [("in", np.zeros(1, np.uint32)), ("out", out)],
                     overrides=["-gpgpu_perfect_inst_const_cache 0"])
    assert (run.out["out"] == 5).all()
    # fetch takes two instructions at a time (GPGPU-Sim's and Accel-Sim's 16-byte access at the
    # first one's address): S2R+IMAD, MOV+IADD3, ISETP+BRA, then the IMAD.WIDE fetched ahead;
    # the loop body (0x30-0x50) four more times; the IMAD.WIDE again, STG+EXIT
    assert seen == [0x00, 0x20, 0x40, 0x60] + [0x30, 0x50] * 4 + [0x60, 0x70]
    v = run.gpu.stats.values
    assert {k: v[f"L1I_total_cache_{k}"] for k in ("accesses", "misses")} == {"accesses": 14, "misses": 1}


#: branches whose PTX guard combines the SASS guard with another predicate; one warp
BRANCHES = [
    "S2R R0, SR_TID.X ;",                            # 0x00  32 lanes
    "ISETP.GE.U32.AND P0, PT, R0, 0x10, PT ;",       # 0x10  32          P0: lanes 16-31
    "@P0 BRA.DIV ~URZ, 0x90 ;",                      # 0x20  16 (guard; not taken: converged)
    "LOP3.LUT R1, R0, 0x1, RZ, 0xc0, !PT ;",         # 0x30  32
    "ISETP.NE.AND P1, PT, R1, RZ, PT ;",             # 0x40  32          P1: odd lanes
    "@P0 BRA P1, 0x80 ;",                            # 0x50  16 (guard; 8 odd lanes >= 16 go)
    "BRA P1, 0x80 ;",                                # 0x60  24 (unguarded: all active; 8 go)
    "IADD3 R0, R0, 0x100, RZ ;",                     # 0x70  16 (the even lanes)
    "EXIT ;",                                        # 0x80  32 (reconverged)
    "BRA 0x90 ;",                                    # 0x90  never
]


@pytest.mark.parametrize("driver", ["batched", "warp"])
def test_branch_thread_count_follows_the_sass_guard(driver):
    """The thread count of ``@P BRA Pc`` and ``BRA.DIV`` is the lanes of the SASS guard (every
    active lane when unguarded), not those of the combined predicate the PTX branch tests."""
    text = module(BRANCHES)
    marks = [i for i in text.functions["k"].instructions if i.sass is not None and i.sass[2]]
    assert [i.count_guard for i in marks if i.opcode == "bra"] == [("%p0", False), ("%p0", False), ("", False), None]
    r = run_once(module(BRANCHES), "k", (1, 1, 1), (32, 1, 1), [("in", np.zeros(1, np.uint32)),
                                                                 ("out", np.zeros(1, np.uint32))], driver=driver)
    assert r.stats.warp_insn == 9
    # by hand: 32 + 32 + 16 + 32 + 32 + 16 + 24 + 16 + 32 (the combined predicates would give
    # 0, 8 and 8 for the three branches: 192)
    assert r.stats.thread_insn == 232


@pytest.mark.parametrize("feed", ["trace", "live"])
def test_branch_thread_count_follows_the_sass_guard_in_performance_mode(feed):
    run = run_timing(module(BRANCHES), "k", (1, 1, 1), (32, 1, 1), [("in", np.zeros(1, np.uint32)),
                                                                     ("out", np.zeros(1, np.uint32))],
                     overrides=[f"-gpgpusim_timing_feed {feed}"])
    assert (run.rec.report_stats.warp_insn, run.rec.report_stats.thread_insn) == (9, 232)
