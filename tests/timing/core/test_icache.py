"""The finite L1 instruction cache of fetch (``-gpgpu_perfect_inst_const_cache 0``; C072-C075,
``gpgpusim/timing/core/icache.py``), on one SM.

PTX instructions take 8 bytes each, so a 128-byte I-cache line holds 16 of them; fetch reads 16
bytes (two instructions) per access.  The first fetch of a line misses and the warp waits for
the fill; the fill puts the instruction in the fetch buffer in the cycle it arrives, so the
warp's first issue is two cycles later, exactly as a hitting fetch's (fetch at t, decode at
t+1, issue at t+2 with one fetch per cycle; QV100 fetches four times per cycle and issues at
t+1).  Everything after the miss is the perfect-cache schedule shifted by the wait, until the
next line.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from timing_helpers import ptx, run_timing  # noqa: E402
from tests.timing.core.test_core import CHAIN  # noqa: E402

from gpgpusim.timing.core.icache import INST_BYTES, PROGRAM_MEM_START, InstCache, instruction_addresses  # noqa: E402

#: 44 instructions: three I-cache lines (pcs 0-15, 16-31, 32-43)
LONG = "\n".join([".reg .f32 %f<100>; .reg .u64 %rd<4>;", "ld.param.u64 %rd1, [p0];",
                  "mov.f32 %f1, 0f3F800000;"]
                 + [f"add.f32 %f{i + 2}, %f1, %f1;" for i in range(40)]
                 + ["st.global.f32 [%rd1], %f41;", "ret;"])

#: warp 0 branches to LA (pc 45, third line) while warp 1 runs on through the first two lines
DIVERGE = "\n".join([".reg .u32 %r<4>; .reg .pred %p<2>; .reg .f32 %f<60>;",
                     "mov.u32 %r1, %tid.x;", "mov.f32 %f1, 0f3F800000;",
                     "setp.lt.u32 %p1, %r1, 32;", "@%p1 bra LA;"]
                    + [f"mul.f32 %f{i % 20 + 30}, %f1, %f1;" for i in range(40)]
                    + ["bra.uni LEND;", "LA:"]
                    + [f"add.f32 %f{i + 2}, %f1, %f1;" for i in range(20)]
                    + ["LEND:", "ret;"])

FINITE = ["-gpgpu_perfect_inst_const_cache 0"]


def _l1i(r: Any) -> dict[str, Any]:
    v = r.gpu.stats.values
    return {k.removeprefix("L1I_total_cache_"): v[k] for k in v if k.startswith("L1I_total_cache_")}


def _run(body: str, block: int, overrides: list[str] = (), gpu: str | None = None, **kw: Any) -> Any:
    return run_timing(ptx(body), "k", (1, 1, 1), (block, 1, 1), [("o", np.zeros(1, np.float32))],
                      overrides=list(overrides), gpu=gpu, **kw)


def _issue_cycles(r: Any) -> list[int]:
    return [c for c, _w, _pc in r.issues()]


def test_perfect_instruction_cache_is_not_modelled():
    """QV100 sets ``-gpgpu_perfect_inst_const_cache 1``: no L1I, the cycles of test_core."""
    r = _run(CHAIN, 32)
    assert all(c.icache is None for c in r.gpu.cores)
    assert _issue_cycles(r) == [2, 3, 8, 17, 26, 35, 44, 53, 54] and r.cycles == 245
    assert _l1i(r) == {"accesses": 0, "misses": 0, "pending_hits": 0, "reservation_fails": 0}
    assert "INST_ACC_R" not in r.gpu.stats.values.get("core_cache_breakdown", {})


def test_first_fetch_misses_then_hits(monkeypatch):
    fills: list[tuple[int, int, int]] = []
    orig = InstCache.fill

    def fill(self: InstCache, mf: Any, now: int) -> None:
        fills.append((now, mf.addr, mf.size))
        orig(self, mf, now)
    monkeypatch.setattr(InstCache, "fill", fill)
    r = _run(CHAIN, 32, FINITE)
    assert r.out["o"][0] == 32.0
    # the line request (fetched at cycle 1) comes back as its four 32-byte sectors (the L2 is
    # sectored; the L1I's sector MSHR counts them down); the last one completes the fill at
    # 313: the fetch buffer is filled in that cycle and the warp issues at 314
    assert fills == [(t, PROGRAM_MEM_START + 32 * i, 32) for i, t in enumerate((305, 308, 311, 313))]
    # the first seven on the perfect schedule shifted by the fill; the ld.param (the eighth)
    # misses in the L1C, finite too under -gpgpu_perfect_inst_const_cache 0, and waits for it
    assert _issue_cycles(r) == [c + 312 for c in (2, 3, 8, 17, 26, 35, 44)] + [628, 629]
    # nine instructions, fetched two at a time: pcs 0 (miss), 2, 4, 6, 8 (hits)
    assert _l1i(r) == {"accesses": 5, "misses": 1, "pending_hits": 0, "reservation_fails": 0}
    v = r.gpu.stats.values
    assert v["core_cache_breakdown"]["INST_ACC_R"] == {"MISS": 1, "HIT": 4}
    assert v["l2_cache_breakdown"]["INST_ACC_R"] == {"MISS": 1, "SECTOR_MISS": 3}


def test_each_new_line_misses_once_gtx480():
    """SM2_GTX480 (its L1I is finite: 4 sets x 4 ways of 128 bytes): three lines, three misses;
    the first line's instructions issue on the perfect schedule shifted by the first miss."""
    perfect = _issue_cycles(_run(LONG, 32, ["-gpgpu_perfect_inst_const_cache 1"], gpu="SM2_GTX480"))
    r = _run(LONG, 32, gpu="SM2_GTX480")
    cyc = _issue_cycles(r)
    assert r.gpu.cores[0].icache is not None
    assert cyc[:16] == [c + 256 for c in perfect[:16]]
    # (the second line's miss meets the first instruction's L1C miss in the memory system)
    assert cyc == [259, 260, 266, 267, 269, 270, 272, 273, 275, 277, 279, 281, 283, 285, 287, 289,
                   562, 563, 565, 566, 568, 569, 571, 573, 576, 578, 580, 582, 584, 586, 588, 590,
                   848, 849, 851, 852, 854, 855, 857, 859, 862, 864, 875, 876]
    assert r.cycles == 1043
    assert _l1i(r) == {"accesses": 22, "misses": 3, "pending_hits": 0, "reservation_fails": 0}


def test_warps_missing_one_line_share_the_mshr_entry():
    """Two warps fetch the same lines: the second warp's miss merges into the first's MSHR
    entry (MSHR_HIT).  QV100's L1I allocates on fill, so the line is not reserved at the miss
    and the merged access counts as a miss, not a pending hit (as in GPGPU-Sim)."""
    r = _run(LONG, 64, FINITE)
    bd = r.gpu.stats.values["core_cache_breakdown"]["INST_ACC_R"]
    assert bd == {"MISS": 6, "MSHR_HIT": 3, "HIT": 38}
    assert _l1i(r) == {"accesses": 44, "misses": 6, "pending_hits": 0, "reservation_fails": 0}
    assert r.issues()[:4] == [(314, 0, 0), (314, 1, 0), (315, 0, 1), (315, 1, 1)]


@pytest.mark.parametrize("mshrs, fails, cycles", [(2, 0, 877), (1, 659, 1296)])
def test_full_mshr_table_makes_fetch_retry(mshrs, fails, cycles):
    """Warp 0 waits for the third line while warp 1 needs the second: with one MSHR entry the
    second miss fails (MSHR_ENRTY_FAIL) at every fetch until the first fill."""
    r = _run(DIVERGE, 64, [f"-gpgpu_cache:il1 N:4:128:4,L:R:f:N:L,S:{mshrs}:32,4"], gpu="SM2_GTX480")
    assert r.cycles == cycles
    assert _l1i(r) == {"accesses": 38, "misses": 7, "pending_hits": 0, "reservation_fails": fails}
    v = r.gpu.stats.values
    assert v["core_cache_fail_breakdown"].get("INST_ACC_R", {}) == ({"MSHR_ENRTY_FAIL": fails} if fails else {})


def test_idle_skipping_does_not_change_the_l1i_run():
    runs = [run_timing(ptx(LONG), "k", (3, 1, 1), (96, 1, 1), [("o", np.zeros(1, np.float32))],
                       gpu="SM2_GTX480", env_skip=skip) for skip in (True, False)]
    a, b = (r.gpu.stats.values for r in runs)
    assert runs[0].cycles == runs[1].cycles == 1243
    assert _l1i(runs[0]) == _l1i(runs[1]) == {"accesses": 198, "misses": 27, "pending_hits": 0,
                                              "reservation_fails": 0}
    assert a["core_cache_breakdown"] == b["core_cache_breakdown"]
    assert runs[0].issues() == runs[1].issues()


def test_instruction_addresses_follow_the_ptx_layout():
    """GPGPU-Sim's ``ptx_assemble``: 8 bytes per instruction, the module's functions back to
    back in file order (a ``.func`` before the kernel shifts the kernel's addresses)."""
    from gpgpusim.functional.loader import load_module
    from gpgpusim.functional.memory import GlobalMemory
    from gpgpusim.ptx import parse_ptx
    from gpgpusim.timing.kernel_trace import record_kernel
    text = (".version 8.0\n.target sm_80\n.address_size 64\n"
            ".func (.reg .u32 r) f(.reg .u32 a)\n{\nadd.u32 r, a, 1;\nret;\n}\n"
            ".visible .entry k(.param .u64 p0)\n{\n.reg .u32 %r<4>; .reg .u64 %rd<2>;\n"
            "ld.param.u64 %rd1, [p0];\nmov.u32 %r1, 5;\ncall (%r2), f, (%r1);\n"
            "st.global.u32 [%rd1], %r2;\nret;\n}\n")
    g = GlobalMemory()
    lm = load_module(parse_ptx(text, "t.ptx"), g)
    out = g.allocate(4)
    trace = record_kernel(lm, "k", (1, 1, 1), (32, 1, 1), 0, out.to_bytes(8, "little"), gmem=g)
    prog = trace.prog
    addrs, size = instruction_addresses(lm.module, prog, 0x400)
    assert size == INST_BYTES * (2 + 5)
    fi_k, fi_f = prog.funcs["k"], prog.funcs["f"]
    # the kernel's five instructions follow f's two; f's own pcs map to f's slots
    assert [addrs[p] for p in range(fi_k.base, fi_k.base + 5)] == [0x400 + 8 * (2 + i) for i in range(5)]
    assert [addrs[p] for p in range(fi_f.base, fi_f.base + 2)] == [0x400, 0x408]


def test_report_prints_the_l1i_miss_rate_only_once_accessed():
    from gpgpusim.report.stats import LINES, Values, render
    printed = []
    for acc, miss in ((0, 0), (22, 3)):
        total = {"L1I_total_cache_accesses": acc, "L1I_total_cache_misses": miss,
                 "L1I_total_cache_pending_hits": 0, "L1I_total_cache_reservation_fails": 0}
        printed.append([ln for ln in render(LINES, Values({}, {}, total)) if "L1I_total" in ln])
    assert printed[0] == ["\tL1I_total_cache_accesses = 0", "\tL1I_total_cache_misses = 0",
                          "\tL1I_total_cache_pending_hits = 0", "\tL1I_total_cache_reservation_fails = 0"]
    assert printed[1] == ["\tL1I_total_cache_accesses = 22", "\tL1I_total_cache_misses = 3",
                          "\tL1I_total_cache_miss_rate = 0.1364",
                          "\tL1I_total_cache_pending_hits = 0", "\tL1I_total_cache_reservation_fails = 0"]
