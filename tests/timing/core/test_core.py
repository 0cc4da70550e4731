"""The SIMT core of the timing model: exact issue cycles on a one-SM SM7_QV100.

Timeline of one instruction (derived from the model's stages, which follow GPGPU-Sim's
``shader_core_ctx::cycle`` order writeback, execute, read_operands x2, issue, fetch/decode):
issued at t; a collector unit is allocated at t+1 (first operand-collector step), its register
reads are granted one per step (two steps per cycle: ``-gpgpu_reg_file_port_throughput 2``);
the unit takes it from OC_EX the cycle after, waits its initiation interval in the dispatch
register, enters the pipeline at stage ``latency - initiation``, reaches EX_WB and is written
back one cycle later, when the scoreboard releases its destination and a dependent
instruction can issue in that same cycle.  For ``add.f32`` (latency 4, initiation 2, two reads
of one register) that is a 9-cycle interval between dependent instructions.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from timing_helpers import ptx, run_timing  # noqa: E402
from gpgpusim.timing.core.fetch import fetch  # noqa: E402

CHAIN = """
.reg .f32 %f<12>; .reg .u64 %rd<4>;
ld.param.u64 %rd1, [p0];
mov.f32 %f1, 0f3F800000;
add.f32 %f2, %f1, %f1;
add.f32 %f3, %f2, %f2;
add.f32 %f4, %f3, %f3;
add.f32 %f5, %f4, %f4;
add.f32 %f6, %f5, %f5;
st.global.f32 [%rd1], %f6;
ret;
"""


def test_dependent_alu_chain_issues_every_latency():
    r = run_timing(ptx(CHAIN), "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(1, np.float32))])
    assert r.out["o"][0] == 32.0
    cyc = [c for c, _w, _pc in r.issues()]
    # ld.param, mov, then five dependent adds 9 cycles apart, the store right after the last
    assert cyc == [2, 3, 8, 17, 26, 35, 44, 53, 54]
    assert r.gpu.stats.values["gpgpu_n_tot_w_icount"] == 9


INDEP = """
.reg .f32 %f<20>;
mov.f32 %f1, 0f3F800000;
add.f32 %f2, %f1, %f1;
add.f32 %f3, %f1, %f1;
add.f32 %f4, %f1, %f1;
add.f32 %f5, %f1, %f1;
add.f32 %f6, %f1, %f1;
add.f32 %f7, %f1, %f1;
ret;
"""


def _order(policy: str) -> list[tuple[int, int, int]]:
    r = run_timing(ptx(INDEP, params=""), "k", (1, 1, 1), (64, 1, 1),
                   overrides=["-gpgpu_num_sched_per_core 1", f"-gpgpu_scheduler {policy}"])
    return r.issues()[:16]


def test_lrr_alternates_and_gto_stays_greedy():
    lrr = _order("lrr")
    gto = _order("gto")
    # both warps issue their mov; the adds wait for it (5 cycles), then:
    assert [w for _c, w, _p in lrr] == [0, 1] * 8                  # loose round robin
    assert [w for _c, w, _p in gto] == [0, 1] + [0] * 7 + [1] * 7   # greedy: warp 0 until done
    assert [c for c, _w, _p in gto] == [2, 3] + list(range(7, 21))


BARRIER = """
.reg .f32 %f<20>; .reg .u32 %r<4>; .reg .pred %p<2>;
mov.u32 %r1, %tid.x;
setp.lt.u32 %p1, %r1, 32;
@%p1 bra SKIP;
sin.approx.f32 %f2, %f1;
add.f32 %f3, %f2, %f2;
SKIP:
bar.sync 0;
add.f32 %f4, %f1, %f1;
ret;
"""


def test_barrier_releases_when_the_last_warp_arrives():
    r = run_timing(ptx(BARRIER, params=""), "k", (1, 1, 1), (64, 1, 1))
    iss = r.issues()
    bar_w0 = next(c for c, w, p in iss if w == 0 and p == 5)
    bar_w1 = next(c for c, w, p in iss if w == 1 and p == 5)
    after_w0 = next(c for c, w, p in iss if w == 0 and p == 6)
    # warp 1 computes sin (SFU, 100 cycles) before it reaches the barrier
    assert (bar_w0, bar_w1) == (15, 120)
    # warp 0 (scheduler 0, examined before scheduler 1 in that cycle) goes on the next cycle
    assert after_w0 == bar_w1 + 1


SFU = """
.reg .f32 %f<20>;
mov.f32 %f1, 0f3F800000;
sin.approx.f32 %f2, %f1;
add.f32 %f3, %f1, %f1;
add.f32 %f4, %f2, %f2;
ret;
"""


def test_scoreboard_blocks_only_the_dependent_instruction():
    r = run_timing(ptx(SFU, params=""), "k", (1, 1, 1), (32, 1, 1))
    cyc = [c for c, _w, _p in r.issues()]
    # sin issues at 7 (after mov), the independent add right after it, the add that reads
    # sin's result when sin (latency 100, initiation 8) is written back
    assert cyc == [2, 7, 8, 112, 113]


SMEM = """
.reg .u32 %r<8>; .reg .u64 %rd<4>; .shared .align 4 .b8 buf[4096];
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
mul.lo.u32 %r2, %r1, STRIDE;
shl.b32 %r3, %r2, 2;
mov.u32 %r4, buf;
add.u32 %r5, %r4, %r3;
ld.shared.u32 %r6, [%r5];
ld.shared.u32 %r7, [%r5];
st.global.u32 [%rd1], %r6;
ret;
"""


def _smem(stride: int):
    return run_timing(ptx(SMEM.replace("STRIDE", str(stride))), "k", (1, 1, 1), (32, 1, 1),
                      [("o", np.zeros(1, np.uint32))], smem=4096)


def test_shared_memory_bank_conflicts_cost_cycles():
    base, two, full = _smem(1), _smem(2), _smem(32)
    conf = [x.gpu.stats.values.get("gpgpu_n_shmem_bkconflict", 0) for x in (base, two, full)]
    # two loads per warp: (degree - 1) extra accesses each
    assert conf == [0, 2, 62]
    # the store that uses the first load's value issues 25 cycles after it without conflicts
    # (-gpgpu_smem_latency 20 plus the pipeline), 1 cycle later with 2-way and 31 cycles later
    # with 32-way conflicts (the load holds the shared-memory stage once per conflicting access)
    store = [x.issues()[8][0] for x in (base, two, full)]
    assert store == [58, 59, 89]
    assert [x.cycles for x in (base, two, full)] == [250, 251, 289]


VECADD = """
.reg .u32 %r<8>; .reg .u64 %rd<12>; .reg .f32 %f<4>;
ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; ld.param.u64 %rd3, [c];
mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
mad.lo.u32 %r4, %r1, %r2, %r3;
mul.wide.u32 %rd4, %r4, 4;
add.u64 %rd5, %rd1, %rd4; add.u64 %rd6, %rd2, %rd4; add.u64 %rd7, %rd3, %rd4;
ld.global.f32 %f1, [%rd5]; ld.global.f32 %f2, [%rd6];
add.f32 %f3, %f1, %f2;
st.global.f32 [%rd7], %f3;
ret;
"""


def _vecadd(skip: bool, overrides: tuple[str, ...] = (), reporter: Any = None):
    n = 64 * 256
    a = np.arange(n, dtype=np.float32)
    b = np.ones(n, dtype=np.float32)
    mod = ptx(VECADD, params=".param .u64 a, .param .u64 b, .param .u64 c")
    return run_timing(mod, "k", (64, 1, 1), (256, 1, 1),
                      [("a", a), ("b", b), ("c", np.zeros(n, np.float32))],
                      overrides=["-gpgpu_n_clusters 4", "-gpgpu_kernel_launch_latency 300", *overrides],
                      trace=False, env_skip=skip, reporter=reporter)


def test_same_run_twice_and_idle_skipping_give_identical_statistics():
    first, again, noskip = _vecadd(True), _vecadd(True), _vecadd(False)
    np.testing.assert_array_equal(first.out["c"], np.arange(64 * 256, dtype=np.float32) + 1)
    assert first.cycles == again.cycles == noskip.cycles
    assert first.counters == again.counters == noskip.counters
    # ... including the issue/stall buckets (sleeping cores add theirs in bulk), occupancy
    # sums and the request/traffic counters
    assert {"warp_occupancy", "single_issue_nums", "shader0_warp_issue_distro", "active_warps_sum",
            "max_warps_sum", "traffic_coretomem", "gpgpu_n_mem_read_global"} <= first.counters.keys()
    assert first.counters["warp_occupancy"][2] > 0      # scoreboard cycles waiting on loads
    assert first.gpu.skipped_cycles == 300 and noskip.gpu.skipped_cycles == 0
    c = first.counters
    # 512 warps x 3 fully coalesced 128-byte accesses = 4 sectors each
    assert c["L1D_total_cache_accesses"] == 512 * 3 * 4
    assert c["gpgpu_n_tot_w_icount"] == 512 * 16


def test_slots_no_warp_or_cta_ever_filled_share_one_empty_container():
    """A warp slot gets its own register-bank tables at its first warp, a CTA slot its own lists
    at its first CTA; the slots never filled (most of a GPU's for a small grid) share one each
    (and have an empty scoreboard mask)."""
    n = 64
    mod = ptx(VECADD, params=".param .u64 a, .param .u64 b, .param .u64 c")
    r = run_timing(mod, "k", (1, 1, 1), (n, 1, 1),
                   [("a", np.arange(n, dtype=np.float32)), ("b", np.ones(n, np.float32)),
                    ("c", np.zeros(n, np.float32))], overrides=["-gpgpu_n_clusters 4"], trace=False)
    np.testing.assert_array_equal(r.out["c"], np.arange(n, dtype=np.float32) + 1)
    cores = r.gpu.cores
    used = [(c.sid, w.slot) for c in cores for w in c.warps if w.src_banks is not cores[0].warps[-1].src_banks]
    assert len(used) == 2 and used[0][1] == 0 and used[1] == (used[0][0], 1)    # the CTA's 2 warps
    spare = [w for c in cores for w in c.warps if (c.sid, w.slot) not in used]
    assert len(spare) == sum(len(c.warps) for c in cores) - 2
    assert all(w.src_banks is spare[0].src_banks and w.pending == 0 and not w.src_banks for w in spare)
    assert all(w.src_banks is not spare[0].src_banks for c in cores for w in c.warps
               if (c.sid, w.slot) in used)
    slots = [s for c in cores for s in c.ctas]
    filled = [s for s in slots if s.cta_id >= 0]
    assert len(filled) == 1 and filled[0].warps == [0, 1]
    empty = [s for s in slots if s.cta_id < 0]
    assert all(s.warps is empty[0].warps and s.bar_waiting is empty[0].warps and not s.warps
               for s in empty)


CONFIG_CYCLES = {  # 64 CTAs of vecadd on 4 SMs of every shipped config (regression figures)
    # QuadroFX5800, SM2_GTX480 and TeslaC2050 have finite instruction and constant caches (no
    # -gpgpu_perfect_inst_const_cache): each SM's first fetch misses in its L1I and its first
    # ld.param in its L1C; the GTX480/C2050 L2 sees those lines as sector accesses
    "QuadroFX5800": (4309, None, 0),       # no L1D; the L2 caches textures only
    "SM2_GTX480": (4607, 1536, 6168),       # 128-byte L1D transactions (coalescing arch 20)
    "SM6_TITANX": (2345, 0, 6144),          # global accesses skip the L1D
    "SM75_RTX2060": (3799, 6144, 6144),
    "SM7_QV100": (2689, 6144, 6144),
    "SM86_RTX3070": (3859, 6144, 6144),
    "TeslaC2050": (4475, 1536, 6168),
}


@pytest.mark.parametrize("gpu", sorted(CONFIG_CYCLES))
def test_every_shipped_config_times_a_kernel(gpu):
    n = 64 * 256
    a = np.arange(n, dtype=np.float32)
    mod = ptx(VECADD, params=".param .u64 a, .param .u64 b, .param .u64 c")
    r = run_timing(mod, "k", (64, 1, 1), (256, 1, 1),
                   [("a", a), ("b", np.ones(n, np.float32)), ("c", np.zeros(n, np.float32))],
                   overrides=["-gpgpu_n_clusters 4"], trace=False, gpu=gpu)
    np.testing.assert_array_equal(r.out["c"], a + 1)
    c = r.counters
    assert (r.cycles, c.get("L1D_total_cache_accesses"), c.get("L2_total_cache_accesses")) == CONFIG_CYCLES[gpu]


@pytest.mark.parametrize("gpu, announced", [("SM2_GTX480", True), ("SM7_QV100", False)])
def test_booksim_network_mode_is_announced(gpu, announced, capsys):
    """``-network_mode 1`` (BookSim) runs on the crossbar model and says so once."""
    from gpgpusim.functional.memory import GlobalMemory
    from gpgpusim.options import load_config
    from gpgpusim.timing.gpu import TimingGpu
    TimingGpu(load_config(None, env=False, gpu=gpu), GlobalMemory(), None)
    err = capsys.readouterr().err
    assert ("-network_mode 1 (BookSim) is not modelled" in err) is announced


FMA3 = """
.reg .f32 %f<12>; .reg .u64 %rd<4>;
ld.param.u64 %rd1, [p0];
mov.f32 %f1, 0f3F800000;
mov.f32 %f2, 0f3F000000;
mov.f32 %f3, 0f3E800000;
fma.rn.f32 %f1, %f1, %f2, %f3;
fma.rn.f32 %f1, %f1, %f2, %f3;
fma.rn.f32 %f1, %f1, %f2, %f3;
st.global.f32 [%rd1], %f1;
ret;
"""


def _stage_cycles(body: str, tmp_path: Path) -> tuple[Any, dict[int, dict[str, int]]]:
    """Run one warp with the OPERAND_COLLECTOR / EXECUTION_UNIT / WARP_SCHEDULER trace; per pc:
    the cycle of each stage of its (single) dynamic instance."""
    out = tmp_path / "trace.txt"
    r = run_timing(ptx(body), "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(1, np.float32))],
                   overrides=["-trace_enabled 1",
                              "-trace_components WARP_SCHEDULER,OPERAND_COLLECTOR,EXECUTION_UNIT",
                              f"-gpgpusim_trace_file {out}"])
    stages: dict[int, dict[str, int]] = {}
    pat = {"issue": r"issued: pc=(\d+) ", "cu": r"cu\d+ allocated to w0@(\d+) ",
           "oc_ex": r"cu\d+ dispatched w0@(\d+) ", "unit": r"w0@(\d+) enters SP",
           "ex_wb": r"w0@(\d+) leaves SP\[\d+\] to EX_WB", "wb": r"w0@(\d+) writeback"}
    for line in out.read_text().splitlines():
        cyc = int(line.split("Cycle ", 1)[1].split(":", 1)[0])
        for name, p in pat.items():
            m = re.search(p, line)
            if m:
                stages.setdefault(int(m.group(1)), {})[name] = cyc
    return r, stages


def test_fma_operands_in_distinct_banks_are_read_in_one_step(tmp_path):
    # GPGPU-Sim's read arbiter grants the front of every bank's queue each step, several to one
    # collector unit (arbiter_t::allocate_reads: the one-operand-per-CU test is commented out).
    # fma %f1, %f1, %f2, %f3 reads banks 1, 2, 3 (arch numbers 1..3, 4 banks per scheduler):
    # issued t, CU at t+1 (step 1), all three reads in step 2, OC_EX at t+2, SP unit at t+3
    # (initiation 2: pipeline stage 5-2=3 at t+5), EX_WB at t+9, writeback and the dependent
    # issue at t+10
    r, st = _stage_cycles(FMA3, tmp_path)
    assert r.out["o"][0] == pytest.approx(((1.0 * 0.5 + 0.25) * 0.5 + 0.25) * 0.5 + 0.25)
    got = [(st[pc]["issue"], st[pc]["cu"], st[pc]["oc_ex"], st[pc]["unit"], st[pc]["ex_wb"], st[pc]["wb"])
           for pc in (4, 5, 6)]
    assert got == [(10, 11, 12, 13, 19, 20), (20, 21, 22, 23, 29, 30), (30, 31, 32, 33, 39, 40)]
    assert st[7]["issue"] == 40


def test_fma_operands_in_one_bank_are_read_one_per_step(tmp_path):
    # %f1, %f5, %f9 all map to bank 1: three steps of reads (t+1 step 2, t+2 steps 1 and 2), OC_EX
    # at t+3, a dependent issue every 11 cycles
    body = FMA3.replace("%f2", "%f5").replace("%f3", "%f9")
    _r, st = _stage_cycles(body, tmp_path)
    got = [(st[pc]["issue"], st[pc]["cu"], st[pc]["oc_ex"], st[pc]["unit"], st[pc]["wb"]) for pc in (4, 5, 6)]
    assert got == [(10, 11, 13, 14, 21), (21, 22, 24, 25, 32), (32, 33, 35, 36, 43)]


def _fetch_core() -> Any:
    from gpgpusim.options import load_config
    from gpgpusim.timing.gpu import TimingGpu
    from gpgpusim.functional.memory import GlobalMemory
    cfg = load_config(None, overrides=["-gpgpu_n_clusters 1", "-gpgpu_kernel_launch_latency 0"],
                      env=False, gpu="SM7_QV100")
    return TimingGpu(cfg, GlobalMemory(), None).cores[0]


@pytest.mark.parametrize("last, fetched, retired", [
    (-1, 3, [1]),          # from warp 0: retires 1, fetches for 3 (5 is not reached)
    (3, 60, [5, 40]),      # from warp 4: retires 5 and 40 on the way to 60
    (60, 3, [63, 1]),      # wraps around: 63, then 1, then 3
    (63, 3, [1]),          # from the last slot: the scan starts again at warp 0
])
def test_fetch_scans_round_robin_retiring_done_warps_on_the_way(last, fetched, retired):
    """``shader_core_ctx::fetch``: from the warp after the last one fetched, in slot order and
    round robin, every warp that finished and has nothing in flight retires, and the first
    warp with an empty I-buffer is fetched for; the scan stops there."""
    core = _fetch_core()
    core.ctas[0].live = 100                 # (no CTA completes)
    done = [1, 5, 40, 63, 7]                # 7 finished, but a store is still in flight
    for ws in done:
        w = core.warps[ws]
        w.fdone, w.done_exit, w.in_pipe, w.pending, w.cta, w.active = True, False, 0, 0, 0, True
        w.stores = 1 if ws == 7 else 0
        core.retire_mask |= 1 << ws
    for ws in (3, 60):
        w = core.warps[ws]
        w.fdone, w.ibuf, w.next_pc = False, [], 12
        core.fetch_mask |= 1 << ws
    core.last_fetched = last
    core.fetch_dirty = True
    assert fetch(core, 0) is True
    assert core.fetch_buf == (fetched, 12) and core.last_fetched == fetched
    assert [ws for ws in done if core.warps[ws].done_exit] == sorted(retired, key=done.index)
    assert core.retire_mask == sum(1 << ws for ws in done if ws not in retired)
    assert core.ctas[0].live == 100 - len(retired)


@pytest.mark.parametrize("m", [0, 1, 0xFF, 0x100, 0x8000_0001, 0xFFFF_FFFE, 0xFFFF_FFFF, 0x1_0000_0000,
                               0x7FFF_FFFF, 0xDEAD_BEEF, 1 << 47, (1 << 64) - 1,
                               0x5555_5555_5555_5555, (1 << 128) - 3])
def test_popcount_counts_set_bits_of_any_mask(m):
    from gpgpusim.timing.core.units import popcount
    assert popcount(m) == m.bit_count() == bin(m).count("1")
