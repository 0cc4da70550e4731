"""Issue statistics of the SIMT core (``timing/core/stats.py``): the ``Warp Occupancy
Distribution`` line (Stall, W0_Idle, W0_Scoreboard, W1..W32), ``single_issue_nums`` /
``dual_issue_nums``, the warp-slot issue distribution of core 0, ``ctas_completed`` and the
occupancy sums, with exact values derived from the issue cycles on a one-SM SM7_QV100.

Shared facts: the CTA is issued after the core stage of cycle 0, so the core counts from cycle
1; each of its ``-gpgpu_num_sched_per_core`` schedulers adds one bucket per cycle it issues
nothing; ``-gpgpu_inst_fetch_throughput 4`` refills an emptied 2-entry I-buffer in the cycle
it empties, so a warp never waits on fetch inside straight-line code.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1]))

from tests.timing.core.test_core import CHAIN, INDEP  # noqa: E402
from timing_helpers import ptx, run_timing  # noqa: E402


def _w(**counts: int) -> list[int]:
    """W1..W32 with the given counts (``_w(W32=9)``)."""
    out = [0] * 32
    for k, n in counts.items():
        out[int(k[1:]) - 1] = n
    return out


def test_dependent_chain_splits_into_scoreboard_and_idle_cycles():
    r = run_timing(ptx(CHAIN), "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(1, np.float32))])
    c = r.counters
    assert [cy for cy, _w, _p in r.issues()] == [2, 3, 8, 17, 26, 35, 44, 53, 54]
    assert r.cycles == 245                         # core live in cycles 1..244
    # scheduler 0 (warp 0): cycle 1 idle (I-buffer filled after the issue stage), 9 issues,
    # the first add waits 4 cycles (4..7) for mov, each next add 8 cycles for the previous:
    # 4 + 5 * 8 = 44 scoreboard cycles; 55..244 idle (done, waiting for the store's ack);
    # schedulers 1-3 have no warp: idle all 244 cycles
    assert c["warp_occupancy"] == [0, 1 + (244 - 54) + 3 * 244, 44] + _w(W32=9)
    assert c["single_issue_nums"] == [9, 0, 0, 0]
    assert c["dual_issue_nums"] == [0, 0, 0, 0]
    assert c["shader0_warp_issue_distro"] == [9]
    assert c["ctas_completed"] == 1
    # one active warp of 64 slots from cycle 1 until it exits in cycle 244
    assert (c["active_warps_sum"], c["max_warps_sum"]) == (243, 64 * 243)


DIVERGE = """
.reg .u32 %r<4>; .reg .pred %p<3>;
mov.u32 %r1, %tid.x;
setp.lt.u32 %p1, %r1, 8;
@%p1 add.u32 %r2, %r1, 1;
@%p1 bra SKIP;
add.u32 %r3, %r1, 2;
SKIP:
ret;
"""


def test_warp_distribution_counts_simt_active_threads_not_predicated_ones():
    # 48 threads: warp 0 has 32 lanes (8 branch away), warp 1 has 16 (none branch away)
    r = run_timing(ptx(DIVERGE, params=""), "k", (1, 1, 1), (48, 1, 1))
    c = r.counters
    # warp 0: mov, setp, @p add (predicated, still 32 SIMT-active), bra, ret with 32 lanes and
    # the not-taken add with 24; warp 1: six instructions with 16 lanes
    assert c["warp_occupancy"][3:] == _w(W32=5, W24=1, W16=6)
    assert c["single_issue_nums"] == [6, 6, 0, 0]
    assert c["shader0_warp_issue_distro"] == [6, 6]
    # live cycles 1..25; each warp: setp waits 4 cycles (3..6) for mov, the @p add 5 (8..12)
    # for setp, then one instruction per cycle (13..16)
    assert r.cycles == 26
    assert c["warp_occupancy"][:3] == [0, 2 * (25 - 6 - 9) + 2 * 25, 2 * 9]


SFU4 = """
.reg .f32 %f<20>;
mov.f32 %f1, 0f3F800000;
sin.approx.f32 %f2, %f1;
sin.approx.f32 %f3, %f1;
sin.approx.f32 %f4, %f1;
sin.approx.f32 %f5, %f1;
ret;
"""


def test_full_unit_register_counts_as_stall():
    # 16 warps on one scheduler, 4 independent sin each: the movs issue in cycles 2..17, the
    # first 12 sins fill the SFU's registers (18..29), then one sin enters every 8 cycles
    # (initiation interval) until the last at 445; meanwhile 15 warps issue their ret
    r = run_timing(ptx(SFU4, params=""), "k", (1, 1, 1), (512, 1, 1),
                   overrides=["-gpgpu_num_sched_per_core 1"])
    c = r.counters
    sins = [cy for cy, _w, p in r.issues() if 1 <= p <= 4]
    assert sins[11:] == list(range(29, 446, 8))
    rets_in_window = sum(1 for cy, _w, p in r.issues() if p == 5 and 29 < cy < 445)
    assert rets_in_window == 15
    stall = (445 - 29 - 1) - 51 - rets_in_window      # cycles 30..444 without an issue
    assert c["warp_occupancy"][0] == stall == 349
    assert c["warp_occupancy"][2] == 0
    assert c["warp_occupancy"][3:] == _w(W32=96)
    assert c["single_issue_nums"] == [96]
    assert c["warp_occupancy"][1] == (r.cycles - 1) - 96 - stall


def test_dual_issue_counts_and_the_warp_issue_quirk():
    r = run_timing(ptx(INDEP, params=""), "k", (1, 1, 1), (32, 1, 1),
                   overrides=["-gpgpu_max_insn_issue_per_warp 2", "-gpgpu_dual_issue_diff_exec_units 0"])
    c = r.counters
    iss = [cy for cy, _w, _p in r.issues()]
    assert iss == [2, 7, 8, 9, 10, 11, 12, 12]    # the last add and ret issue together
    assert c["single_issue_nums"] == [6, 0, 0, 0]
    assert c["dual_issue_nums"] == [1, 0, 0, 0]
    # GPGPU-Sim's event_warp_issued adds the warp's running count: 6 singles + (1 + 2)
    assert c["shader0_warp_issue_distro"] == [9]
    # the adds wait for mov in cycles 3..6; live cycles 1..26
    assert r.cycles == 27
    assert c["warp_occupancy"][:3] == [0, (26 - 7 - 4) + 3 * 26, 4]


def test_buckets_cover_every_scheduler_cycle_of_a_multi_sm_run():
    from tests.timing.core.test_core import _vecadd
    r = _vecadd(True)
    c = r.counters
    d = c["warp_occupancy"]
    assert d[3:] == _w(W32=512 * 16)
    assert sum(c["single_issue_nums"]) == c["gpgpu_n_tot_w_icount"] == 512 * 16
    assert c["ctas_completed"] == 64
    live = sum(core.istats.live_cycles for core in r.gpu.cores)
    assert d[0] + d[1] + d[2] + sum(c["single_issue_nums"]) == 4 * live
    assert d[2] > 0 and 0 < c["active_warps_sum"] < c["max_warps_sum"]


def test_busy_l1d_banks_are_bank_conflict_resource_stalls():
    # GPGPU-Sim 4.2: a busy latency-queue bank is BK_CONF, printed as [gl_mem][resource_stall]
    # and counted again in gpgpu_n_l1cache_bkconflict (equal in every reference log)
    from tests.timing.core.test_core import _vecadd
    c = _vecadd(True).counters
    n = c["gpgpu_n_l1cache_bkconflict"]
    assert n > 0
    assert c["gpgpu_stall_shd_mem[gl_mem][resource_stall]"] == n == c["gpgpu_n_stall_shd_mem"]
    assert c["gpgpu_stall_shd_mem[gl_mem][data_port_stall]"] == 0


class _Samples:
    def __init__(self) -> None:
        self.samples: list[tuple[int, dict]] = []

    def sample(self, cycle: int, values: dict) -> None:
        self.samples.append((cycle, values))


def test_samples_are_identical_with_idle_skipping_on_and_off(tmp_path):
    from tests.timing.core.test_core import _vecadd
    runs = []
    for skip in (True, False):
        rep = _Samples()
        log = tmp_path / f"av{int(skip)}.log.gz"
        r = _vecadd(skip, ("-gpgpu_runtime_stat 200", "-visualizer_enabled 1",
                           f"-visualizer_outputfile {log}"), reporter=rep)
        runs.append((r, rep.samples, log))
    (r, samples, log), (_r2, samples2, log2) = runs
    assert samples == samples2
    assert r.gpu.skipped_cycles > 0                     # the launch latency was skipped ...
    assert [c for c, _v in samples] == list(range(200, r.cycles, 200))   # ... up to each sample
    first = samples[0][1]
    assert first["globalinsncount"] == 0 and first["active_warps"] == 0    # still in the latency
    # per-interval changes add up to the kernel's totals
    c = r.counters
    assert sum(v["globalinsncount"] for _c, v in samples) <= r.rec.report_stats.thread_insn
    assert max(v["active_warps"] for _c, v in samples) > 0
    assert sum(v["issue_scoreboard"] for _c, v in samples) <= c["warp_occupancy"][2]
    assert all("shaderinsncount" not in v for _c, v in samples)    # per-core arrays: log only
    import gzip
    text = gzip.open(log).read().decode()
    assert text == gzip.open(log2).read().decode()
    assert text.count("globalcyclecount:") == len(samples)
    assert "WarpDivergenceBreakdown: " in text and "shaderinsncount:  " in text
    # core 0's warp slots: the interval issues add up to its issue distribution
    slot_rows = [[int(x) for x in ln.split(":")[1].split()] for ln in text.splitlines()
                 if ln.startswith("WarpIssueSlotBreakdown:")]
    width = max(len(row) for row in slot_rows)
    total = [sum(col) for col in zip(*[row + [0] * (width - len(row)) for row in slot_rows], strict=True)]
    distro = c["shader0_warp_issue_distro"]
    assert len(total) <= len(distro) and sum(total) > 0
    assert all(t <= d for t, d in zip(total, distro, strict=False))


RELOAD = """
.reg .u32 %r<4>; .reg .u64 %rd<8>; .reg .f32 %f<4>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd2, %r1, 4;
add.u64 %rd3, %rd1, %rd2;
ld.global.f32 %f1, [%rd3];
add.f32 %f2, %f1, %f1;
ld.global.f32 %f3, [%rd3];
add.f32 %f2, %f2, %f3;
st.global.f32 [%rd3], %f2;
ret;
"""


def test_memory_request_counters_count_packets_that_leave_the_core():
    # one warp: 128 contiguous bytes = 4 sectors loaded twice (the second load hits the L1D),
    # then stored: GPGPU-Sim counts gpgpu_n_mem_* and the traffic breakdown at
    # icnt_inject_request_packet (read requests carry an 8-byte header, writes 32 + 8 bytes)
    # and at the cluster's icnt pop (read replies 32 + 8, write acks 8)
    r = run_timing(ptx(RELOAD), "k", (1, 1, 1), (32, 1, 1), [("o", np.arange(32, dtype=np.float32))])
    c = r.counters
    np.testing.assert_array_equal(r.out["o"], 3 * np.arange(32, dtype=np.float32))
    assert (c["L1D_total_cache_accesses"], c["L1D_total_cache_misses"]) == (12, 4)
    assert (c["gpgpu_n_mem_read_global"], c["gpgpu_n_mem_write_global"]) == (4, 4)
    assert c["traffic_coretomem"] == {"GLOBAL_ACC_R": {8: 4}, "GLOBAL_ACC_W": {40: 4}}
    assert c["traffic_memtocore"] == {"GLOBAL_ACC_R": {40: 4}, "GLOBAL_ACC_W": {8: 4}}
