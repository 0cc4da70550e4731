"""gpgpusim.timing.kernel_sampling and its use by TimingGpu (-gpgpusim_sampling kernel)."""

from __future__ import annotations

import json
import math
import statistics
import struct
from collections.abc import Callable

import numpy as np
import pytest

from gpgpusim.functional import engine
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.options import load_config
from gpgpusim.report.reporter import COMPACT_NOTE, Reporter
from gpgpusim.report.stats import high_water
from gpgpusim.device.gpu import KernelLaunchOp
from gpgpusim.timing.core.icache import PROGRAM_MEM_START
from gpgpusim.timing.gpu import TimingGpu
from gpgpusim.timing.kernel_sampling import (
    KernelSampler,
    Sample,
    Spread,
    dram_round_trip,
    mix_distance,
    parse_mode,
    t975,
    traffic_fit,
)

from .timing_helpers import ptx

# y[i] += reps, one add per loop trip: the warp instruction count grows with reps
ADD_LOOP = ptx("""
.reg .u32 %r<7>;
.reg .u64 %rd<4>;
.reg .pred %p;
ld.param.u64 %rd1, [p0];
ld.param.u32 %r1, [p1];
mov.u32 %r2, %tid.x;
mov.u32 %r5, %ctaid.x;
mov.u32 %r6, %ntid.x;
mad.lo.u32 %r2, %r5, %r6, %r2;
mul.wide.u32 %rd2, %r2, 4;
add.u64 %rd3, %rd1, %rd2;
ld.global.u32 %r3, [%rd3];
mov.u32 %r4, 0;
L:
add.u32 %r3, %r3, 1;
add.u32 %r4, %r4, 1;
setp.lt.u32 %p, %r4, %r1;
@%p bra L;
st.global.u32 [%rd3], %r3;
ret;
""", params=".param .u64 p0, .param .u32 p1")


def test_parse_mode():
    assert parse_mode("kernel") == "kernel"
    assert parse_mode(" OFF ") == "off"
    assert parse_mode("cta") == "cta" and parse_mode("all") == "all"
    with pytest.raises(ValueError, match="expected off, kernel, cta or all"):
        parse_mode("sometimes")


def test_the_sampler_takes_its_options_from_the_configuration():
    def sampler(*sets: str) -> KernelSampler:
        ks = KernelSampler.from_config(load_config(None, overrides=["-gpgpusim_sampling kernel", *sets], env=False))
        assert ks is not None
        return ks
    ks = sampler()
    assert (ks.tol, ks.min_detailed, ks.similar, ks.lines, ks.tol_of, ks.pool) == (0.02, 4, 0.1, True, "cycles", 2)
    assert ks.latency == int(load_config(None, env=False).get("gpgpu_kernel_launch_latency") or 0)
    ks = sampler("-gpgpusim_sampling_tol 0.05", "-gpgpusim_sampling_tol_of work", "-gpgpusim_sampling_line 0")
    assert (ks.tol, ks.tol_of, ks.lines) == (0.05, "work", False)
    assert sampler("-gpgpusim_sampling_pool 0").pool == 0
    assert sampler("-gpgpusim_sampling_pool 9").pool == 4      # never more than -gpgpusim_sampling_min
    assert KernelSampler.from_config(load_config(None, overrides=["-gpgpusim_sampling cta"], env=False)) is None


def test_estimate_projection_and_bound():
    ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=100)
    key = ks.key("k", (4, 1, 1), (64, 1, 1))
    mix = {"add": 10}
    # CPIs (cycles - 100) / 1000: 2.5 (warm-up, left out), 2.0, 2.02, 1.98
    for uid, cyc in enumerate((2600, 2100, 2120, 2080), 1):
        g = ks.record_detailed(key, uid, 1000, mix, cyc, {"L2_total_cache_accesses": 50 + uid, "maxmflatency": 9})
    assert len(ks.groups) == 1
    assert g.cpis(100) == [2.0, 2.02, 1.98]
    cpi, ci, pi = ks.estimate(g)
    assert cpi == pytest.approx(2.0)          # the mean and its interval leave the warm-up out
    assert ci == pytest.approx(t975(2) * 0.02 / math.sqrt(3) / 2.0)      # 0.0248: above 2 %
    # the stated bound (one new launch) takes the spread of every detailed launch
    sd = statistics.stdev([2.5, 2.0, 2.02, 1.98])
    assert pi == pytest.approx(t975(3) * sd * math.sqrt(1 + 1 / 4) / 2.0)
    assert not ks.converged(g) and not ks.candidate(key)
    g = ks.record_detailed(key, 5, 1000, mix, 2100, {"L2_total_cache_accesses": 60})
    assert ks.converged(g) and ks.candidate(key)
    # a launch with 1050 warp instructions: same group, projected from its own count
    assert ks.match(key, 1050, mix) is g
    assert ks.match(key, 1200, mix) is None                 # outside +-10 %
    assert ks.match(key, 1000, {"add": 8, "mul": 2}) is None  # mix 0.2 away
    cycles, bound, counters = ks.project(g, 1050, 1050 * 32)
    cpi, _, pi = ks.estimate(g)
    assert cycles == 100 + round(cpi * 1050)
    # the spread, plus the scaling gap of its 50 more warp instructions than the detailed ones
    # (their cycles 2000, 2020, 1980, 2000 past the latency have no significant trend)
    assert g.trend(100, 5) == 0
    assert bound == math.ceil(pi * cpi * 1050 + cpi * 50)
    # L2 accesses per warp instruction over the used launches (52+53+54+60)/4000
    assert counters["L2_total_cache_accesses"] == round(219 * 1050 / 4000)
    assert "maxmflatency" not in counters
    assert counters["gpgpu_n_tot_w_icount"] == 1050 and counters["gpgpu_n_tot_thrd_icount"] == 33600
    assert ks.projected_info(g, cycles, bound)["status"] == "projected"



def test_traffic_fit_splits_by_direction_only_when_the_launches_tell_the_two_apart():
    """``traffic_fit``: per memory-system count, ``a`` per read and ``b`` per write
    transaction (least squares without intercept), when the detailed launches' write shares
    differ; one rate per transaction when they do not or a coefficient comes out negative;
    none when a launch's transactions are unknown or it had local-memory traffic.  Only the
    counts of accesses follow transactions: stalls and port cycles are not in the fit."""
    def sample(tx: tuple[int, int], **counters: int) -> Sample:
        return Sample(0, 100, 1000, dict(counters), tx=tx)
    # L2 accesses = 0.5 per read + 1 per write; the write shares 1/3, 1/5, 1/9
    runs = [sample((64, 32), L2_total_cache_accesses=64, gpgpu_n_mem_write_global=32, gpu_stall_dramfull=7,
                   L2_port_cycles=900),
            sample((64, 16), L2_total_cache_accesses=48, gpgpu_n_mem_write_global=16, gpu_stall_dramfull=7,
                   L2_port_cycles=900),
            sample((64, 8), L2_total_cache_accesses=40, gpgpu_n_mem_write_global=8, gpu_stall_dramfull=7,
                   L2_port_cycles=900)]
    fit = traffic_fit(runs)
    assert fit is not None and sorted(fit) == ["L2_total_cache_accesses", "gpgpu_n_mem_write_global"]
    assert fit["L2_total_cache_accesses"] == pytest.approx((0.5, 1.0))
    assert fit["gpgpu_n_mem_write_global"] == pytest.approx((0.0, 1.0), abs=1e-12)
    # the same write share on every launch: one rate, the counts over the transactions
    same = [sample((64, 16), L2_total_cache_accesses=48), sample((128, 32), L2_total_cache_accesses=100)]
    assert traffic_fit(same) == {"L2_total_cache_accesses": pytest.approx((148 / 240, 148 / 240))}
    # a count that falls as the writes grow fits a negative rate per write: one rate instead
    neg = [sample((64, 32), L1D_total_cache_misses=10), sample((64, 8), L1D_total_cache_misses=40)]
    assert traffic_fit(neg) == {"L1D_total_cache_misses": pytest.approx((50 / 168, 50 / 168))}
    assert traffic_fit([sample((0, 0), L2_total_cache_accesses=5)] + runs) is None
    assert traffic_fit(runs + [sample((64, 8), L2_total_cache_accesses=40, gpgpu_n_mem_read_local=4)]) is None
    # a group projects them at a launch's transactions: none for a launch without global access
    ks = KernelSampler(min_detailed=3)
    key = ks.key("k", (4, 1, 1), (64, 1, 1))
    for r in runs:
        g = ks.record_detailed(key, 1, 100, {"ld": 1}, 1000, r.counters, tx=r.tx)
    proj = g.scaled_counters(100, 3200, tx=(64, 4))
    assert (proj["L2_total_cache_accesses"], proj["gpgpu_n_mem_write_global"]) == (36, 4)
    assert proj["gpu_stall_dramfull"] == 7                  # per warp instruction
    proj = g.scaled_counters(100, 3200, tx=(0, 0))
    assert (proj["L2_total_cache_accesses"], proj["gpgpu_n_mem_write_global"]) == (0, 0)

def test_the_cold_misses_are_left_out_of_the_rate_and_each_launch_brings_its_own():
    """DRAM reads and L2 misses scale per warp instruction without the detailed launches'
    cold misses; a projected launch adds its own (a cold read to both, a cold write to the L2
    misses only)."""
    ks = KernelSampler(tol=0.05, min_detailed=3, latency=100)
    key = ks.key("k", (4, 1, 1), (64, 1, 1))
    # (DRAM reads, L2 misses, cold reads, cold writes): the warm-up's 40 reads were all cold;
    # the used launches read 10 and 14, of them 0 and 6 cold, and wrote 2 cold sectors
    for uid, (dram, l2, cr, cw) in enumerate(((40, 40, 40, 0), (10, 12, 0, 0), (14, 22, 6, 2)), 1):
        g = ks.record_detailed(key, uid, 1000, {"add": 10}, 2100, {"total_dram_reads": dram,
                               "L2_total_cache_misses": l2, "L2_total_cache_accesses": 100}, cold=(cr, cw))
    assert ks.converged(g)
    # warm reads (10 + 8) / 2000 and warm misses (12 + 14) / 2000 per warp instruction
    _, _, counters = ks.project(g, 1000, 32000, cold=(3, 5))
    assert counters["total_dram_reads"] == 9 + 3
    assert counters["L2_total_cache_misses"] == 13 + 3 + 5
    assert counters["L2_total_cache_accesses"] == 100
    # more cold misses stated than counted (a sector the L2 held anyway) leave none, not less
    g2 = ks.record_detailed(ks.key("j", (1, 1, 1), (32, 1, 1)), 9, 500, {"add": 10}, 1100,
                            {"total_dram_reads": 1}, cold=(4, 0))
    assert g2.sums() == (500, {"total_dram_reads": 0})


def test_a_launch_with_more_cold_reads_than_its_group_states_a_dram_round_trip():
    """A launch that reads more sectors for the first time than its group's detailed launches
    did on average waits for DRAM where they did not: its bound adds one DRAM round trip from
    the configuration (ROP latency + DRAM latency in core cycles); cold writes add nothing."""
    cfg = load_config(None, overrides=["-gpgpusim_sampling kernel"], env=False)
    assert dram_round_trip(cfg) == pytest.approx(160 + 100 * 1132 / 850)      # SM7_QV100
    ks = KernelSampler(tol=0.05, min_detailed=3, latency=100, cold_cycles=293.0)
    key = ks.key("k", (4, 1, 1), (64, 1, 1))
    for uid, (cyc, cr) in enumerate(((2300, 40), (2100, 0), (2104, 2)), 1):
        g = ks.record_detailed(key, uid, 1000, {"add": 10}, cyc, {}, cold=(cr, 0))
    # the used launches read 1 cold sector on average: 1 is no gap, 2 is
    plain = ks.project(g, 1000, 32000, cold=(1, 9))[1]
    assert g.bound_parts["cold"] == 0
    assert ks.project(g, 1000, 32000, cold=(2, 0))[1] == plain + 293
    assert ks.projected_info(g, 2102, plain + 293)["cycles_bound_parts"]["cold"] == 293
    assert dram_round_trip(object()) == 0.0


def test_bound_states_the_scaling_gap_and_a_steady_trend():
    """A projected launch's bound adds the gap between scaling by its own warp instructions and
    not scaling (a launch of fewer instructions than the detailed ones), and a steady trend of
    the detailed launches' cycles times the distance; a group of equal launches without a trend
    states the prediction interval alone."""
    mix = {"ld": 5, "add": 5}
    # equal counts, cycles falling one a launch (warm-up 5696, then 5695, 5694, 5693)
    ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000)
    key = ks.key("col", (1, 1, 1), (128, 1, 1))
    for uid, cyc in enumerate((5696, 5695, 5694, 5693), 1):
        g = ks.record_detailed(key, uid, 112, mix, cyc, {})
    assert [s.seq for s in g.samples] == [0, 1, 2, 3] and ks.converged(g)
    cpi, _, pi = ks.estimate(g)
    assert g.scaling_gap(cpi, 112) == 0
    assert g.trend(5000, 4) == pytest.approx(2.5)       # slope -1 a launch, 2.5 places past their mean
    bounds = [ks.project(g, 112, 112 * 32)[1] for _ in range(30)]
    assert bounds[0] == math.ceil(pi * cpi * 112 + 2.5)
    assert bounds[29] == math.ceil(pi * cpi * 112 + 31.5)
    assert g.launches == 34 and g.projected == 30
    parts = ks.projected_info(g, 5694, bounds[29])["cycles_bound_parts"]
    assert parts == {"interval": math.ceil(pi * cpi * 112), "scaling": 0, "trend": 32, "cold": 0}
    # a shrinking kernel bound by latency: the detailed launches had ~15,000 warp instructions
    ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000)
    key = ks.key("step", (8, 8, 1), (16, 16, 1))
    for uid, (w, cyc) in enumerate(((15002, 6308), (15002, 6316), (14877, 6309), (14877, 6317)), 1):
        g = ks.record_detailed(key, uid, w, mix, cyc, {})
    cpi, _, pi = ks.estimate(g)
    assert g.trend(5000, 4) == 0                       # 6308, 6316, 6309, 6317: no steady trend
    wbar = (15002 + 14877 + 14877) / 3
    cycles, bound, _ = ks.project(g, 13506, 13506 * 32)
    assert cycles == 5000 + round(cpi * 13506)
    assert bound == math.ceil(pi * cpi * 13506 + cpi * (wbar - 13506))
    assert bound >= 6300 - cycles          # covers the same time a latency-bound launch takes
    # three launches on a line after a different first one do not make a trend (a stencil's
    # 7271, 7279, 7265, 7253 cycles: its later launches vary around 7,270)
    ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000)
    key = ks.key("stencil", (16, 16, 1), (16, 16, 1))
    for uid, cyc in enumerate((7271, 7279, 7265, 7253), 1):
        g = ks.record_detailed(key, uid, 179200, mix, cyc, {})
    assert ks.converged(g) and g.trend(5000, 199) == 0
    # equal launches without a trend: the prediction interval alone
    ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=100)
    key = ks.key("k", (4, 1, 1), (64, 1, 1))
    for uid, cyc in enumerate((2600, 2100, 2120, 2080), 1):
        g = ks.record_detailed(key, uid, 1000, mix, cyc, {})
    g = ks.record_detailed(key, 5, 1000, mix, 2100, {})
    cpi, _, pi = ks.estimate(g)
    cycles, bound, _ = ks.project(g, 1000, 32000)
    assert bound == math.ceil(pi * cpi * 1000)
    assert "cycles_bound_parts" not in ks.projected_info(g, cycles, bound)
    # identical detailed launches: no spread, but a bound of one cycle, not an exact claim
    ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000)
    key = ks.key("col", (1, 1, 1), (128, 1, 1))
    for uid in range(1, 5):
        g = ks.record_detailed(key, uid, 179, mix, 5697, {})
    assert ks.estimate(g)[2] == 0 and ks.project(g, 179, 179 * 32)[:2] == (5697, 1)


def test_the_scaling_gap_takes_the_largest_distance_in_instructions_or_transactions():
    """A loop unrolled by four runs as many warp instructions for 11 trips as for 12, but one
    load more a thread for 12 (a launch bound by its loads then takes ~3.5 % longer): the gap
    takes the largest relative distance of warp instructions, thread instructions and global
    transactions from the detailed launches' means, times the work at their mean."""
    mix = {"ld": 5, "add": 5}
    ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000)
    key = ks.key("window", (32, 1, 1), (256, 1, 1))
    for uid, cyc in enumerate((9740, 9736, 9736, 9736), 1):
        g = ks.record_detailed(key, uid, 30720, mix, cyc, {}, thread_insn=933888, tx=(90112, 8192))
    cpi, _, _ = ks.estimate(g)
    work = cpi * 30720
    assert work == pytest.approx(4736)
    assert g.scaling_gap(cpi, 30720, 933888, (90112, 8192)) == 0
    assert g.scaling_gap(cpi, 30720, 950272, (90112, 8192)) == pytest.approx(work * 16384 / 933888)
    assert g.scaling_gap(cpi, 30720, 950272, (98304, 8192)) == pytest.approx(work * 8192 / 98304)
    assert g.scaling_gap(cpi, 30720) == 0                       # measures not given are left out
    cycles, bound, _ = ks.project(g, 30720, 950272, tx=(98304, 8192))
    assert cycles == 9736 and g.bound_parts["scaling"] == math.ceil(4736 * 8192 / 98304) == 395
    assert bound >= 10081 - 9736             # the twelve-trip launch's time in full detail
    # launches whose transactions were not counted: warp and thread instructions only
    ks2 = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000)
    for uid, cyc in enumerate((9740, 9736, 9736, 9736), 1):
        h = ks2.record_detailed(key, uid, 30720, mix, cyc, {}, thread_insn=933888)
    assert h.scaling_gap(cpi, 30720, 933888, (98304, 8192)) == 0


def test_a_later_group_of_a_kernel_pools_its_spread_with_the_earlier_ones():
    """A kernel whose work drifts starts a group every 10 % of drift.  A group started after
    others of its kernel have two or more detailed launches takes their pooled spread
    (relative to the mean CPI, their degrees of freedom with it) and trend, so it is projected
    after two detailed launches, its first a warm-up, not four; with
    ``-gpgpusim_sampling_pool 0`` it takes four and its own spread alone."""
    mix = {"ld": 5, "add": 5}
    ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000)
    key = ks.key("step", (8, 8, 1), (16, 16, 1))
    for uid, cyc in enumerate((6445, 6328, 6343, 6332), 1):
        g1 = ks.record_detailed(key, uid, 22000, mix, cyc, {})
    assert ks.converged(g1) and g1.prior is None
    sp = g1.spread(5000)
    c1 = [1328 / 22000, 1343 / 22000, 1332 / 22000]
    m1 = sum(c1) / 3
    assert (sp.dof, sp.dof_every) == (2, 3) and sp.ss == pytest.approx(sum((x / m1 - 1) ** 2 for x in c1))
    # 20 % fewer warp instructions: a group of its own, started from the first one's spread
    g2 = ks.record_detailed(key, 5, 17600, mix, 6429, {})
    assert g2 is not g1 and g2.prior == sp and not ks.converged(g2)
    g2 = ks.record_detailed(key, 6, 17600, mix, 6307, {})
    assert g2.used() == g2.samples[1:] and ks.converged(g2) and ks.match(key, 17600, mix) is g2
    cpi, ci, pi = ks.estimate(g2)
    assert cpi == 1307 / 17600                     # the warm-up left out
    # its one used launch adds no degree of freedom to the interval of the mean; both add to
    # the prediction interval's spread
    assert ci == pytest.approx(t975(2) * math.sqrt(sp.ss / 2))
    every = [1429 / 17600, 1307 / 17600]
    own = sum((x - sum(every) / 2) ** 2 for x in every) / cpi ** 2
    assert pi == pytest.approx(t975(4) * math.sqrt((sp.ss_every + own) / 4) * math.sqrt(1 + 1 / 2))
    # a third group pools both (the second's one used launch adds to the spread of every
    # detailed launch only)
    g3 = ks.record_detailed(key, 7, 14000, mix, 6300, {})
    assert g3.prior == sp + g2.spread(5000) and (g3.prior.dof, g3.prior.dof_every) == (2, 4)
    # earlier groups need not have converged, only have a launch after their first; a group of
    # one launch brings nothing
    early = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000)
    first = early.record_detailed(key, 1, 22000, mix, 6445, {})
    assert early.record_detailed(key, 2, 17600, mix, 6429, {}).prior is None
    for uid, cyc in ((3, 6328), (4, 6343)):
        first = early.record_detailed(key, uid, 22000, mix, cyc, {})
    assert not early.converged(first) and first.spread(5000).dof == 1
    assert early.record_detailed(key, 5, 14000, mix, 6300, {}).prior == first.spread(5000)
    # off: the second group takes four launches and its own spread
    off = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000, pool=0)
    for uid, cyc in enumerate((6445, 6328, 6343, 6332), 1):
        off.record_detailed(key, uid, 22000, mix, cyc, {})
    for uid, cyc in enumerate((6429, 6307, 6321), 5):
        h = off.record_detailed(key, uid, 17600, mix, cyc, {})
    assert h.prior is None and not off.converged(h)
    h = off.record_detailed(key, 8, 17600, mix, 6312, {})
    assert off.converged(h)


def test_a_pooled_group_keeps_its_first_launch_when_its_kernels_warm_ups_were_like_the_rest():
    """A kernel whose groups' first launches ran like their others (each within the 95 %
    prediction interval of the group's used launches) starts its later pooled groups without a
    warm-up: the first detailed launch is a sample, and one suffices when the pooled spread
    leaves the mean known within the tolerance.  A warm-up 8 % off (an elimination step after
    projected launches) keeps them; so does a kernel whose only warm-up was its first touch of
    the data (more cold reads than the group's other launches: not tested), one whose launches
    all took the same cycles (no spread to state a bound from), and one with pooling off; and
    a group whose own first launch read new sectors leaves it out whatever the kernel showed."""
    mix = {"ld": 5, "add": 5}
    key = KernelSampler.key("step", (8, 8, 1), (16, 16, 1))

    def first_group(warm: int, cold: tuple[int, int] = (0, 0), pool: int = 2) -> KernelSampler:
        ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000, pool=pool)
        for uid, cyc in enumerate((warm, 6328, 6343, 6332), 1):
            g = ks.record_detailed(key, uid, 22000, mix, cyc, {}, cold=cold if uid == 1 else (0, 0))
        assert ks.converged(g) and g.warm_up and g.used() == g.samples[1:]
        return ks

    ks = first_group(6330)       # 0.3 % below the others' mean, within their +-2.9 %
    assert not ks.warm_up_effect(key)
    g2 = ks.record_detailed(key, 5, 17600, mix, 6307, {})
    assert g2.prior is not None and not g2.warm_up and g2.used() == g2.samples
    assert ks.converged(g2) and ks.estimate(g2)[0] == 1307 / 17600
    assert ks.projected_info(g2, 6307, 40)["group_warm_up"] is False
    # a later group tests nothing of the second (it left no warm-up out), the first still
    assert not ks.warm_up_effect(key)
    # ... but one whose first launch read new sectors leaves it out all the same
    g3 = ks.record_detailed(key, 6, 14000, mix, 6420, {}, cold=(111, 0))
    assert g3.prior is not None and g3.warm_up and not ks.converged(g3)
    for warm, cold, pool in ((6445, (0, 0), 2), (6445, (1024, 0), 2), (6330, (0, 0), 0)):
        other = first_group(warm, cold, pool)
        g2 = other.record_detailed(key, 5, 17600, mix, 6429, {})
        assert g2.warm_up and not other.converged(g2)
        assert "group_warm_up" not in other.projected_info(g2, 6429, 40)
    # launches that all took the same cycles show no spread yet: a group of one launch would
    # state no bound, so the warm-up stays (and the group's two launches add a spread)
    same = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000)
    for uid in range(1, 5):
        same.record_detailed(key, uid, 22000, mix, 6330, {})
    assert same.warm_up_effect(key)
    assert same.record_detailed(key, 5, 17600, mix, 6307, {}).warm_up


def test_a_group_that_varies_more_than_the_pool_admits_is_estimated_on_its_own():
    """The pool's spread is taken only while the new group's own spread is consistent with it
    (its variance at most t^2 times the pool's, at 95 %): a group whose two launches differ
    by 900 cycles, against earlier launches within 120, drops the pool and needs
    ``-gpgpusim_sampling_min`` launches and its own spread."""
    mix = {"ld": 5, "add": 5}
    ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000)
    key = ks.key("step", (8, 8, 1), (16, 16, 1))
    for uid, cyc in enumerate((6445, 6328, 6343, 6332), 1):
        g1 = ks.record_detailed(key, uid, 22000, mix, cyc, {})
    pool = g1.spread(5000)
    g2 = ks.record_detailed(key, 5, 17600, mix, 6400, {})
    assert g2.prior == pool
    g2 = ks.record_detailed(key, 6, 17600, mix, 7300, {})
    own = g2.spread(5000)
    assert own.ss_every / own.dof_every > t975(pool.dof_every) ** 2 * pool.ss_every / pool.dof_every
    assert g2.prior is None and not ks.converged(g2) and g2.used() == g2.samples
    # its spread still joins the pool of later groups (a kernel that varied so once may
    # again): the next group, as steady as the first, keeps that wider pool and takes more
    g3 = ks.record_detailed(key, 7, 14000, mix, 6429, {})
    g3 = ks.record_detailed(key, 8, 14000, mix, 6307, {})
    assert g3.prior == pool + own and not ks.converged(g3)
    assert pool.admits(Spread(0.0, 0, 0.0, 0))                   # one launch: nothing to test


def test_a_group_that_pools_its_spread_takes_the_kernels_trend():
    """A kernel whose cycles fall a cycle a launch (a latency-bound step with fewer rows each
    time): its first group's least slope, relative to its work, applies to a later group too
    few to show one of its own, from the mean place of that group's detailed launches."""
    mix = {"ld": 5, "add": 5}
    ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000)
    key = ks.key("col", (1, 1, 1), (128, 1, 1))
    for uid, cyc in enumerate((5696, 5695, 5694, 5693), 1):
        g1 = ks.record_detailed(key, uid, 112, mix, cyc, {})
    assert g1.spread(5000).trend_rel == pytest.approx(1 / 694)     # slope 1, exact: least 1
    for uid, cyc in enumerate((5668, 5667), 5):
        g2 = ks.record_detailed(key, uid, 90, mix, cyc, {})
    # (the first group's warm-up was on its line, within its spread: the second keeps its first)
    assert g2 is not g1 and ks.converged(g2) and not g2.warm_up
    # from the mean place 0.5 of its two detailed launches, at 667.5 cycles of work
    assert g2.trend(5000, 10) == pytest.approx(667.5 / 694 * 9.5)
    # the next launch is the group's third (place 2)
    assert ks.project(g2, 90, 90 * 32)[0] == 5668
    assert g2.bound_parts["trend"] == math.ceil(667.5 / 694 * 1.5) == 2
    # with pooling off the second group shows no trend of its own in two launches
    off = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000, pool=0)
    for uid, cyc in enumerate((5696, 5695, 5694, 5693, 5668, 5667), 1):
        h = off.record_detailed(key, uid, 112 if uid <= 4 else 90, mix, cyc, {})
    assert h.trend(5000, 10) == 0


def test_the_tolerance_is_a_fraction_of_the_projected_cycles_or_of_the_work():
    """-gpgpusim_sampling_tol_of: a kernel bound by its launch latency (5,000 cycles) whose work
    varies by a few per cent converges once its interval is within the tolerance of the cycles
    it projects (``cycles``, the default), not only of the cycles past the latency (``work``)."""
    mix = {"ld": 5, "add": 5}
    # work 1400 (warm-up), then 1300, 1400, 1300, 1350: mean 1337.5, sd 47.87
    half = t975(3) * statistics.stdev([1300, 1400, 1300, 1350]) / 2
    for tol_of, converged in (("cycles", True), ("work", False)):
        ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000, tol_of=tol_of)
        key = ks.key("step", (8, 8, 1), (16, 16, 1))
        for uid, cyc in enumerate((6400, 6300, 6400, 6300, 6350), 1):
            g = ks.record_detailed(key, uid, 1000, mix, cyc, {})
        base = 6337.5 if tol_of == "cycles" else 1337.5
        assert ks.ci(g) == pytest.approx(half / base)          # 1.20 % of the cycles, 5.69 % of the work
        assert ks.converged(g) is converged
        assert ks.estimate(g)[1] == pytest.approx(half / 1337.5)   # the reported CPI interval either way
    # latency 0: the two are the same
    ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=0)
    key = ks.key("k", (1, 1, 1), (32, 1, 1))
    for uid, cyc in enumerate((1400, 1300, 1400, 1300, 1350), 1):
        g = ks.record_detailed(key, uid, 1000, mix, cyc, {})
    assert ks.ci(g) == ks.estimate(g)[1]
    with pytest.raises(ValueError, match="expected cycles or work"):
        KernelSampler(tol_of="time")


def _line_sampler(points: list[tuple[int, list[int]]], lines: bool = True,
                  tol_of: str = "cycles", tx: list[int] | None = None) -> tuple[KernelSampler, tuple]:
    """A sampler with one converged group per ``(thread instructions, cycles of its detailed
    launches)`` (32 threads a warp, latency 5000); ``tx``: each group's global read
    transactions (none counted without)."""
    ks = KernelSampler(tol=0.02, min_detailed=4, similar=0.1, latency=5000, lines=lines, tol_of=tol_of)
    key = ks.key("step", (8, 8, 1), (16, 16, 1))
    uid = 0
    for i, (t, cycles) in enumerate(points):
        for cyc in cycles:
            uid += 1
            ks.record_detailed(key, uid, t // 32, {"ld": 1, "add": 1}, cyc,
                               {"L2_total_cache_accesses": t // 100, "L1D_total_cache_accesses": 3000 + t // 50,
                                "gpu_stall_dramfull": t // 100},
                               thread_insn=t, tx=(tx[i], 0) if tx else (0, 0))
    assert all(ks.converged(g) for g in ks.groups) and len(ks.groups) == len(points)
    return ks, key


def test_a_line_through_three_groups_projects_a_drifting_launch():
    """A launch in no group, near three converged groups of its kernel, is projected from the
    least-squares line of cycles (less the latency) against thread instructions through their
    used launches; its bound is the line's prediction interval (every launch's residual, the
    warm-ups' too) plus the largest leave-one-out error, grown beyond the groups' span."""
    mix = {"ld": 1, "add": 1}
    # work 1000 + t / 1000 cycles, warm-ups 20 cycles slower, +-1 cycle of noise
    pts = [(700000, [6720, 6701, 6699, 6700]), (600000, [6620, 6601, 6599, 6600]),
           (500000, [6520, 6501, 6499, 6500])]
    ks, key = _line_sampler(pts)
    assert ks.match(key, 400000 // 32, mix) is None
    ln = ks.line(key, 400000, mix)
    assert ln is not None and ln.nearest is ks.groups[2] and ln.groups == ks.groups
    assert ln.work == pytest.approx(1400)
    used = [(t, c - 5000) for t, cs in pts for c in cs[1:]]
    every = [(t, c - 5000) for t, cs in pts for c in cs]
    lev = 1 / 9 + (400000 - 600000) ** 2 / sum((t - 600000) ** 2 for t, _ in used)
    s_used = math.sqrt(sum((y - 1000 - t / 1000) ** 2 for t, y in used) / 7)
    s_every = math.sqrt(sum((y - 1000 - t / 1000) ** 2 for t, y in every) / 10)
    # the stopping rule's base: the cycles projected, the launch latency included
    assert ln.ci_rel == pytest.approx(t975(7) * s_used * math.sqrt(lev) / 6400)
    assert ln.pi == pytest.approx(t975(10) * s_every * math.sqrt(1 + lev))
    assert ln.model == pytest.approx(0)        # each group's mean on the line through the others
    # 100,000 below the last group: the line falls 100 cycles there, in proportion from its
    # 1500 at the edge it would fall 300; the larger gap, 200, is stated
    assert ln.beyond == pytest.approx(200)
    cycles, bound, counters = ks.project_line(ln, 400000 // 32, 400000)
    assert cycles == 6400 and bound == math.ceil(ln.pi + 200)
    # each counter on its line through the groups' used launches against thread instructions:
    # L1D accesses 3000 + t / 50 (the nearest group's per warp instruction would give
    # 13000 x 12500 / 15625 = 10400), L2 accesses t / 100
    assert counters["L1D_total_cache_accesses"] == 11000
    assert counters["L2_total_cache_accesses"] == 4000
    assert counters["gpgpu_n_tot_thrd_icount"] == 400000 and ks.line_projected == 1
    info = ks.line_info(ln, cycles, bound)
    assert info["status"] == "projected" and info["line_groups"] == [1, 2, 3] and info["group"] == 3
    assert info["line_measure"] == "thread"
    assert info["cycles_bound_parts"] == {"interval": math.ceil(ln.pi), "model": 0, "beyond": 200, "cold": 0}
    # among the groups nothing is beyond
    inside = ks.line(key, 550000, mix)
    assert inside is not None and inside.beyond == 0
    # between the groups too; not beyond their span (200,000) past the edge, nor for another mix,
    # nor with the option off, nor from two groups
    assert ks.line(key, 550000, mix) is not None
    assert ks.line(key, 290000, mix) is None and ks.line(key, 310000, mix) is not None
    assert ks.line(key, 400000, {"ld": 1, "add": 1, "mul": 2}) is None
    assert _line_sampler(pts, lines=False)[0].line(_line_sampler(pts)[1], 400000, mix) is None
    two, key2 = _line_sampler(pts[:2])
    assert two.line(key2, 500000, mix) is None
    # a bend: the middle group 30 cycles above the others' line.  The model error is the
    # largest leave-one-out error (the line through the middle and last groups misses the first
    # by 60 cycles).  Further out the bend's residuals widen the confidence interval: 0.64 % of
    # the 6,360 cycles projected there, within the 2 % tolerance, but 3.0 % of the 1,360 past the
    # launch latency, so with -gpgpusim_sampling_tol_of work the launch is not projected
    bent, key3 = _line_sampler([pts[0], (600000, [6650, 6631, 6629, 6630]), pts[2]])
    near = bent.line(key3, 450000, mix)
    assert near is not None and near.model == pytest.approx(60)
    far = bent.line(key3, 350000, mix)
    assert far is not None and far.work == pytest.approx(1360) and far.ci_rel == pytest.approx(0.006413, abs=1e-6)
    bent_work, key5 = _line_sampler([pts[0], (600000, [6650, 6631, 6629, 6630]), pts[2]], tol_of="work")
    assert bent_work.line(key5, 450000, mix) is not None and bent_work.line(key5, 350000, mix) is None
    # a kernel flat over its groups (the same cycles at every thread count) states, past them,
    # the gap to scaling in proportion: its line has no residual to widen the interval
    flat, key4 = _line_sampler([(t, [6000, 6000, 6000, 6000]) for t, _ in pts])
    far = flat.line(key4, 400000, mix)
    assert far is not None and far.pi == 0 and far.model == 0
    assert far.beyond == pytest.approx(1000 * 100000 / 500000)


def test_a_line_fits_cycles_against_transactions_when_they_leave_the_smaller_residuals():
    """A loop whose trips each load once but unroll into uneven instruction counts: cycles
    follow the loads, not the thread instructions.  With transactions counted for every
    detailed launch the line is fitted against whichever of the two leaves the smaller
    residuals; its reach, place and counters are in that measure."""
    mix = {"ld": 1, "add": 1}
    # work tx / 10 cycles past the latency (tx 10,000, 20,000, 30,000), thread instructions 500,000,
    # 560,000, 700,000: against those the three groups bend by hundreds of cycles
    pts = [(500000, [6020, 6001, 5999, 6000]), (560000, [7020, 7001, 6999, 7000]),
           (700000, [8020, 8001, 7999, 8000])]
    ks, key = _line_sampler(pts, tx=[10000, 20000, 30000])
    ln = ks.line(key, 740000, mix, (40000, 0))
    assert ln is not None and ln.fit.measure == "tx" and ln.groups == ks.groups
    assert ln.work == pytest.approx(4000) and ln.nearest is ks.groups[2]
    assert ln.model == pytest.approx(0)
    # 10,000 transactions past the last group: the slope there is not measured, and not
    # scaling at all would be 1,000 cycles below the line's continuation
    assert ln.beyond == pytest.approx(1000)
    cycles, _, counters = ks.project_line(ln, 740000 // 32, 740000, tx=(40000, 0))
    assert cycles == 9000
    # the counters' lines are against transactions too (stalls t / 100 were 5,000, 5,600 and
    # 7,000 at 10,000, 20,000 and 30,000 transactions: 0.1 a transaction, 7,867 at 40,000)
    assert counters["gpu_stall_dramfull"] == 7867
    # past the span in transactions (20,000 beyond the last group), or without its
    # transactions: no line
    assert ks.line(key, 740000, mix, (51000, 0)) is None
    assert ks.line(key, 740000, mix) is None
    # the same groups without transactions counted: against thread instructions, whose
    # residuals leave its interval too wide to project
    thread_only, key2 = _line_sampler(pts)
    assert thread_only.line(key2, 740000, mix, (40000, 0)) is None
    assert [f.measure for f in thread_only._line_fits(key2)] == ["thread"]
    # a launch without its transactions takes its counters from the thread line, which reaches it
    assert ks.counter_line(key, 600000, mix).measure == "thread"
    assert ks.counter_line(key, 600000, mix, (20000, 0)).measure == "tx"
    # where thread instructions fit better they stay the measure, transactions counted or not
    linear = [(700000, [6720, 6701, 6699, 6700]), (600000, [6620, 6601, 6599, 6600]),
              (500000, [6520, 6501, 6499, 6500])]
    lin, key3 = _line_sampler(linear, tx=[30000, 10000, 20000])
    assert lin.counter_line(key3, 600000, mix, (20000, 0)).measure == "thread"
    assert lin.line(key3, 400000, mix, (5000, 0)).work == pytest.approx(1400)
    # both lines fit alike (transactions t / 50 + 5,000: the same residuals); past the groups
    # the one that states the smaller bound is taken.  At 400,000 thread instructions (13,000
    # transactions) the thread line states a beyond-gap of 200 cycles (scaling in proportion
    # from 1,500 at 500,000), the transaction line 100 (from 1,500 at 15,000)
    both, key4 = _line_sampler(linear, tx=[19000, 17000, 15000])
    assert sorted(f.measure for f in both._line_fits(key4)) == ["thread", "tx"]
    ln = both.line(key4, 400000, mix, (13000, 0))
    assert ln.fit.measure == "tx" and ln.work == pytest.approx(1400) and ln.beyond == pytest.approx(100)
    thread_ln = both._line_at(next(f for f in both._line_fits(key4) if f.measure == "thread"), 400000, mix, (13000, 0))
    assert thread_ln.beyond == pytest.approx(200) and thread_ln.pi == pytest.approx(ln.pi)


def test_a_launch_whose_transactions_left_its_group_is_projected_from_the_line():
    """A launch that matches a converged group on warp instructions and mix, but whose global
    transactions lie more than ``similar`` (10 %) from the mean of the group's detailed
    launches', is projected from the kernel's line when one takes it (a loop unrolled by four:
    as many warp instructions for 11 trips as for 12, not as many loads), else from the group."""
    mix = {"ld": 1, "add": 1}
    # work tx / 10 cycles past the latency at 10,000, 20,000 and 30,000 transactions
    pts = [(500000, [6020, 6001, 5999, 6000]), (560000, [7020, 7001, 6999, 7000]),
           (700000, [8020, 8001, 7999, 8000])]
    ks, key = _line_sampler(pts, tx=[10000, 20000, 30000])
    warps = 700000 // 32
    # at the group's transactions, or within 10 % of them (32,000 of 30,000), or not counted
    assert ks.source(key, warps, 700000, mix, (30000, 0)) == (ks.groups[2], None)
    assert ks.source(key, warps, 700000, mix, (32000, 0)) == (ks.groups[2], None)
    assert ks.source(key, warps, 700000, mix) == (ks.groups[2], None)
    assert not ks.off_centre(ks.groups[2], (0, 0))
    # 34,000: from the line against transactions, at its 3,400 cycles of work
    group, ln = ks.source(key, warps, 700000, mix, (34000, 0))
    assert group is None and ln is not None and ln.fit.measure == "tx"
    assert ln.work == pytest.approx(3400) and ln.nearest is ks.groups[2]
    # 20 % below: the line again (27,000 is within 10 % of 30,000, 24,000 is not)
    assert ks.source(key, warps, 700000, mix, (27000, 0)) == (ks.groups[2], None)
    assert ks.source(key, warps, 700000, mix, (24000, 0))[1] is not None
    # no line (lines off, or past its reach: 20,000 beyond the last group): the group
    off, key_off = _line_sampler(pts, tx=[10000, 20000, 30000], lines=False)
    assert off.source(key_off, warps, 700000, mix, (34000, 0)) == (off.groups[2], None)
    assert ks.source(key, warps, 700000, mix, (51000, 0)) == (ks.groups[2], None)
    # in no group: the line or nothing, as before
    assert ks.source(key, 740000 // 32 + 5000, 740000, mix, (40000, 0))[1] is not None
    assert ks.source(key, 740000 // 32 + 5000, 740000, mix, (60000, 0)) == (None, None)


def test_a_launch_off_its_groups_transactions_states_its_kernels_scatter_when_no_line_takes_it():
    """Three groups whose cycles zigzag against their work (1,000, 3,000 and 2,000 cycles past
    the latency at 10,000, 20,000 and 30,000 transactions: an unrolled loop with a remainder
    loop): no line is known within the tolerance, so a launch off its group's transactions is
    projected from the group, and its bound adds the scatter of the kernel's launches about its
    lines -- the smallest 95 % prediction interval of one launch at its work on them."""
    mix = {"ld": 1, "add": 1}
    pts = [(500000, [6020, 6001, 5999, 6000]), (560000, [8020, 8001, 7999, 8000]),
           (700000, [7020, 7001, 6999, 7000])]
    tx = [10000, 20000, 30000]
    ks, key = _line_sampler(pts, tx=tx)
    warps = 700000 // 32
    g = ks.groups[2]
    assert ks.source(key, warps, 700000, mix, (34000, 0)) == (g, None)

    def pi(xs: list[int], x: float) -> float:
        used = [(xi, c - 5000) for xi, (_, cs) in zip(xs, pts, strict=True) for c in cs[1:]]
        every = [(xi, c - 5000) for xi, (_, cs) in zip(xs, pts, strict=True) for c in cs]
        mx = sum(u[0] for u in used) / len(used)
        my = sum(u[1] for u in used) / len(used)
        sxx = sum((u[0] - mx) ** 2 for u in used)
        b = sum((u[0] - mx) * (u[1] - my) for u in used) / sxx
        s_every = math.sqrt(sum((y - my - b * (xi - mx)) ** 2 for xi, y in every) / (len(every) - 2))
        return t975(len(every) - 2) * s_every * math.sqrt(1 + 1 / len(used) + (x - mx) ** 2 / sxx)

    want = min(pi([t for t, _ in pts], 700000), pi(tx, 34000))
    assert ks.scatter(key, 700000, (34000, 0)) == pytest.approx(want)
    assert want > 1000           # the middle group lies 1,000 cycles off the others' trend
    cycles, bound, _ = ks.project(g, warps, 700000, tx=(34000, 0))
    plain = _line_sampler(pts, tx=tx, lines=False)[0]      # the same groups, no line fitted
    cycles0, bound0, _ = plain.project(plain.groups[2], warps, 700000, tx=(34000, 0))
    # the same projection; the bound is the same sum (rounded up once) plus the scatter
    assert cycles == cycles0 == 7000 and abs(bound - want - bound0) < 1
    assert g.bound_parts["scatter"] == math.ceil(want)
    info = ks.projected_info(g, cycles, bound)
    assert info["cycles_bound_parts"]["scatter"] == math.ceil(want)
    # without a fitted line (two groups), nothing to state
    two, key2 = _line_sampler(pts[:2], tx=tx[:2])
    assert two.scatter(key2, 560000, (24000, 0)) == 0.0


def test_a_launch_projected_from_a_group_takes_its_counters_from_the_kernels_line():
    """Once three groups of a kernel have converged, a launch that matches one of them keeps
    its cycles from the group but takes its counters from each counter's line against thread
    instructions (within the line's reach and mix), not per warp instruction from the group."""
    mix = {"ld": 1, "add": 1}
    pts = [(700000, [6720, 6701, 6699, 6700]), (600000, [6620, 6601, 6599, 6600]),
           (500000, [6520, 6501, 6499, 6500])]
    ks, key = _line_sampler(pts)
    g = ks.match(key, 15000, mix)
    assert g is ks.groups[2]
    fit = ks.counter_line(key, 480000, mix)
    assert fit is not None and fit.groups == ks.groups
    cycles, bound, counters = ks.project(g, 15000, 480000, counters_from=fit)
    alone = _line_sampler(pts)[0]
    _, _, scaled = alone.project(alone.groups[2], 15000, 480000)
    assert cycles == 5000 + round(1500 * 15000 / 15625)
    # on the line: 3000 + 480000 / 50; the group per warp instruction: 13000 x 15000 / 15625
    assert counters["L1D_total_cache_accesses"] == 12600 and scaled["L1D_total_cache_accesses"] == 12480
    assert counters["gpgpu_n_tot_thrd_icount"] == 480000 and counters["gpgpu_n_tot_w_icount"] == 15000
    # out of the line's reach, of another mix, or with lines off: none
    assert ks.counter_line(key, 290000, mix) is None
    assert ks.counter_line(key, 480000, {"ld": 1, "add": 1, "mul": 2}) is None
    off, key_off = _line_sampler(pts, lines=False)
    assert off.counter_line(key_off, 480000, mix) is None


def test_a_kernel_whose_work_grows_is_projected_from_a_line_of_its_groups():
    """ADD_LOOP at 10, 20 and 30 trips (three groups of three detailed launches), then at 25,
    40 and 45 trips (in no group): projected from the line through the three, at the cycles the
    full simulation gives (the kernel's time is linear in its trips); memory is exact."""
    reps = [10] * 3 + [20] * 3 + [30] * 3 + [25, 40, 45]
    _, full, mem_full = _launches(reps, [])
    # (groups that pool their spread would take two detailed launches each: the line's
    # residuals are those of three)
    gpu, samp, mem = _launches(reps, SAMPLE + ["-gpgpusim_sampling_pool 0"])
    assert (mem == sum(reps)).all() and (mem_full == mem).all()
    assert [r.report_stats.sampling["status"] for r in samp[9:]] == ["projected"] * 3
    assert [r.report_stats.sampling["line_groups"] for r in samp[9:]] == [[1, 2, 3]] * 3
    assert [r.report_stats.sampling["group"] for r in samp[9:]] == [2, 3, 3]
    assert [r.report_stats.cycles for r in samp] == [r.report_stats.cycles for r in full]
    assert [r.report_stats.cycles for r in samp[9:]] == [966, 1251, 1346]
    # the warm-ups' spread, and past 30 trips the gap to not scaling (the line rises 190 cycles
    # from 30 trips to 40)
    assert [r.report_stats.sampling["cycles_bound"] for r in samp[9:]] == [149, 388, 507]
    assert [r.report_stats.sampling["cycles_bound_parts"]["beyond"] for r in samp[9:]] == [0, 190, 285]
    assert gpu.ksampler is not None and gpu.ksampler.line_projected == 3
    # off: the three form groups of their own, simulated in detail
    _, off, _ = _launches(reps, SAMPLE + ["-gpgpusim_sampling_pool 0", "-gpgpusim_sampling_line 0"])
    assert [r.report_stats.sampling["status"] for r in off[9:]] == ["detailed"] * 3


def test_mix_distance():
    assert mix_distance({"a": 0.5, "b": 0.5}, {"a": 0.5, "b": 0.5}) == 0
    assert mix_distance({"a": 1.0}, {"b": 1.0}) == 1


class _Gpu:
    """A 2-cluster GPU (launch latency 50 cycles, ``overrides`` on top) with the PTX module
    ``src`` loaded; :meth:`run` launches its kernel ``k`` and runs it to its end."""

    def __init__(self, src: str, overrides: list[str]) -> None:
        self.cfg = load_config(None, overrides=["-gpgpu_n_clusters 2", "-gpgpu_kernel_launch_latency 50"]
                               + overrides, env=False)
        self.mem = GlobalMemory()
        self.gpu = TimingGpu(self.cfg, self.mem, None)
        self.lm = load_module(src, self.mem)

    def zeros(self, words: int) -> int:
        """A new allocation of ``words`` 32-bit words, zeroed."""
        a = self.mem.allocate(words * 4)
        self.mem.write(a, np.zeros(words, np.uint32))
        return a

    def run(self, params: bytes, ctas: int = 4, smem: int = 0):
        """Launch ``k`` (``ctas`` CTAs of 64 threads) and simulate it to its end; its record."""
        op = KernelLaunchOp(self.lm, "k", (ctas, 1, 1), (64, 1, 1), 0, params, {"options": self.cfg},
                            regs_per_thread=16, static_smem_bytes=smem)
        rec = self.gpu.start_kernel(op, 0)
        done: list = []
        while not done:
            done = self.gpu.advance()
        assert done == [rec] and rec.error is None
        return rec


def _launches(reps: list[int], overrides: list[str],
              before: Callable[[int, TimingGpu], None] | None = None) -> tuple[TimingGpu, list, np.ndarray]:
    """Launch ``k`` once per entry of ``reps`` on a 2-cluster GPU, each run to its end;
    ``before(i, gpu)`` is called before launch ``i`` is started."""
    m = _Gpu(ADD_LOOP, overrides)
    y = m.zeros(256)
    recs = []
    for r in reps:
        if before is not None:
            before(len(recs), m.gpu)
        recs.append(m.run(struct.pack("<QI", y, r)))
    return m.gpu, recs, m.mem.read(y, 256 * 4).view(np.uint32)


SAMPLE = ["-gpgpusim_sampling kernel", "-gpgpusim_sampling_min 3", "-gpgpusim_sampling_tol 0.05"]


def test_the_live_feed_scan_runs_once_per_kernel(monkeypatch):
    """Which feed a kernel needs is a static scan of its program: detailed and projected
    launches alike take it from the loaded module's cache after the first."""
    import gpgpusim.timing.gpu as tgpu

    scans: list[str] = []
    real = tgpu.needs_live_feed

    def counting(prog):
        scans.append(prog.kernel.name)
        return real(prog)

    monkeypatch.setattr(tgpu, "needs_live_feed", counting)
    _, recs, mem = _launches([20] * 6, SAMPLE)
    assert [r.report_stats.sampling["status"] for r in recs] == ["detailed"] * 3 + ["projected"] * 3
    assert scans == ["k"] and (mem == 120).all()


def test_an_idle_machine_is_scanned_once_not_per_projected_launch():
    """A launch is projected only on an idle machine.  After the detailed launches the scan of
    every cluster runs once; the projected launches change nothing, so none scans again."""
    scans: list[int] = []

    class Counting:
        def __init__(self, cluster):
            self.cluster = cluster

        def busy(self):
            scans.append(self.cluster.cid)
            return self.cluster.busy()

    def watch(i: int, gpu: TimingGpu) -> None:
        if i == 3:               # the detailed launches are over: count the scans from here
            gpu.clusters = [Counting(c) for c in gpu.clusters]

    _, recs, mem = _launches([20] * 6, SAMPLE, watch)
    assert [r.report_stats.sampling["status"] for r in recs] == ["detailed"] * 3 + ["projected"] * 3
    assert scans == [0, 1] and (mem == 120).all()


def test_sampling_off_reports_no_marks_and_the_same_cycles():
    reps = [20] * 6
    _, full, mem = _launches(reps, [])
    assert all(r.report_stats.sampling is None for r in full)
    assert (mem == 120).all()
    _, samp, mem2 = _launches(reps, SAMPLE)
    assert (mem2 == 120).all()
    status = [r.report_stats.sampling["status"] for r in samp]
    assert status == ["detailed"] * 3 + ["projected"] * 3
    # the detailed launches are the same simulation as in the full run
    assert [r.report_stats.cycles for r in samp[:3]] == [r.report_stats.cycles for r in full[:3]]
    # the projection: launch latency + the mean CPI of launches 2 and 3 x own warp instructions
    w = samp[3].report_stats.warp_insn
    assert w == full[3].report_stats.warp_insn
    cpi = sum((r.report_stats.cycles - 50) / r.report_stats.warp_insn for r in samp[1:3]) / 2
    assert samp[3].report_stats.cycles == 50 + round(cpi * w)
    # exact instruction counts; counters cumulative with the projected launches included
    for a, b in zip(samp, full, strict=True):
        assert (a.report_stats.thread_insn, a.report_stats.warp_insn) == (b.report_stats.thread_insn,
                                                                          b.report_stats.warp_insn)
    last = samp[-1].report_stats.counters
    assert last["gpgpu_n_tot_w_icount"] == full[-1].report_stats.counters["gpgpu_n_tot_w_icount"]
    assert last["gpgpu_n_load_insn"] == full[-1].report_stats.counters["gpgpu_n_load_insn"] == 6 * 256


def test_launches_on_sms_new_to_the_kernel_are_left_out_of_its_group():
    """Without perfect instruction and constant caches an SM keeps a kernel's code between
    launches.  A one-CTA kernel issued round robin over two SMs meets a fresh SM on its first
    two launches, which take longer; its group takes its samples from the launches on SMs
    that ran it (the first a warm-up) and projects the later launches at their cycles in
    full detail, not at the mean of the fresh ones.  With perfect caches (the shipped 4.x
    GPUs) no launch is fresh."""
    def run(overrides: list[str]) -> list:
        m = _Gpu(ADD_LOOP, ["-gpgpu_perfect_inst_const_cache 0", *overrides])
        y = m.zeros(256)
        recs = [m.run(struct.pack("<QI", y, 20), ctas=1) for _ in range(8)]
        assert (m.mem.read(y, 64 * 4).view(np.uint32) == 160).all()
        return recs

    full = [r.report_stats.cycles for r in run([])]
    assert full[0] > full[1] > full[2] and len(set(full[2:])) == 1       # cold, a fresh SM, then warm
    samp = run(SAMPLE)
    info = [r.report_stats.sampling for r in samp]
    assert [i["status"] for i in info] == ["detailed"] * 5 + ["projected"] * 3
    assert [i.get("fresh_sm", False) for i in info] == [True, True] + [False] * 6
    assert info[4]["group_detailed"] == 5 and info[4]["group_fresh_sm"] == 2 and info[4]["converged"]
    assert [r.report_stats.cycles for r in samp] == full
    _, perfect, _ = _launches([20] * 4, SAMPLE)        # 4 CTAs a launch on perfect caches
    assert [r.report_stats.sampling.get("fresh_sm", False) for r in perfect] == [False] * 4


def test_a_projected_launch_leaves_its_sms_as_the_launch_in_detail_would():
    """A projected launch does not run on the timing model, but on a GPU whose SMs keep a
    kernel's code it places its CTAs as the issue rounds would (the round robin goes on from
    where the full run's would be) and leaves the L1I of those SMs holding the lines of the
    instructions it ran (``TimingGpu.warm_sms``)."""
    over = ["-gpgpu_perfect_inst_const_cache 0", "-gpgpu_n_clusters 3"]

    def run(overrides: list[str], n: int = 9):
        m = _Gpu(ADD_LOOP, over + overrides)
        y = m.zeros(256)
        recs = [m.run(struct.pack("<QI", y, 20), ctas=1) for _ in range(n)]
        return m, recs

    full, _ = run([])
    samp, recs = run(SAMPLE)
    assert [r.report_stats.sampling["status"] for r in recs] == ["detailed"] * 6 + ["projected"] * 3
    assert samp.gpu.last_cluster_issue == full.gpu.last_cluster_issue == 8 % 3
    # a cold GPU: one projected launch's placement, on the SM after the last that issued
    cold, _ = run([], 1)
    gpu = cold.gpu
    rec = recs[-1]
    sid = (gpu.last_cluster_issue + 1) % 3
    prog = engine.get_program(rec.op.module, rec.op.kernel)
    addrs = gpu._inst_addrs(rec.op, prog)
    lines = {addrs[pc] // 128 * 128 for pc in range(len(prog.insts))}
    probe = gpu.cores[sid].icache.cache.probe
    assert all(probe(PROGRAM_MEM_START + a, 0xF, False)[0] == "MISS" for a in lines)
    gpu.warm_sms(rec.op, prog, dict.fromkeys(range(len(prog.insts)), 64), gpu.core_table(rec.op, prog))
    assert gpu.last_cluster_issue == sid
    assert all(probe(PROGRAM_MEM_START + a, 0xF, False)[0] == "HIT" for a in lines)
    assert gpu._warm_sms["k"] == {sid}      # (the detailed launch ran without sampling: not tracked)


NEW_SECTOR = ptx("""
.reg .u32 %r<6>;
.reg .u64 %rd<6>;
.reg .pred %p;
ld.param.u64 %rd1, [p0];
ld.param.u32 %r1, [p1];
mov.u32 %r2, %tid.x;
mov.u32 %r5, %ctaid.x;
mov.u32 %r4, %ntid.x;
mad.lo.u32 %r2, %r5, %r4, %r2;
mul.wide.u32 %rd2, %r2, 4;
add.u64 %rd3, %rd1, %rd2;
ld.global.u32 %r3, [%rd3];
add.u32 %r3, %r3, 1;
st.global.u32 [%rd3], %r3;
setp.ne.u32 %p, %r2, 0;
@%p bra DONE;
ld.param.u64 %rd4, [p2];
mul.wide.u32 %rd5, %r1, 4;
add.u64 %rd4, %rd4, %rd5;
red.global.add.u32 [%rd4], 1;
DONE:
ret;
""", params=".param .u64 p0, .param .u32 p1, .param .u64 p2")


def test_a_projected_launch_adds_its_own_cold_misses():
    """Launch ``i`` adds to word ``i`` of a result array: every eighth launch reaches a new
    32-byte sector, which misses in L2 and reads DRAM on that launch only.  The detailed
    launches (0-2) cannot show it at a rate per instruction; the functional run of each
    projected launch counts its cold reads (``functional/sectors.py``), so launch 8's miss is
    projected where it happens and the run's DRAM reads and L2 misses equal the full run's."""
    def run(overrides: list[str]) -> list:
        m = _Gpu(NEW_SECTOR, overrides)
        g = m.mem
        y, sums = g.allocate(256 * 4), g.allocate(16 * 4)
        # twelve launches of 4 CTAs, then one of 2 (another group: simulated in detail) that
        # adds to word 9, in the sector launch 8 was first to read
        recs = [m.run(struct.pack("<QIxxxxQ", y, i, sums), ctas)
                for i, ctas in [(i, 4) for i in range(12)] + [(9, 2)]]
        assert (g.read(y, 512).view(np.uint32) == 13).all() and (g.read(y + 512, 512).view(np.uint32) == 12).all()
        assert g.read(sums, 48).view(np.uint32).tolist() == [1] * 9 + [2] + [1] * 2
        return recs
    full, samp = run([]), run(SAMPLE)
    assert [r.report_stats.sampling["status"] for r in samp] == ["detailed"] * 3 + ["projected"] * 9 + ["detailed"]
    # launch 0 reads y's 32 sectors and the array's first; launch 8 the array's second
    assert [r.report_stats.sampling["cold_reads"] for r in samp] == [33] + [0] * 7 + [1] + [0] * 4
    assert all(r.report_stats.sampling["cold_writes"] == 0 for r in samp)
    for name in ("total_dram_reads", "L2_total_cache_misses"):
        got = [r.report_stats.counters[name] for r in samp]
        assert got == [r.report_stats.counters[name] for r in full], name
        # launch 8 projected with its miss; the last launch finds the sector in L2, where the
        # projected launch 8 placed it (without that: one more miss than the full run's)
        assert got[8] == got[7] + 1 and got[12] == got[8]
    assert samp[12].report_stats.cycles == full[12].report_stats.cycles
    # launch 8's bound adds one DRAM round trip (160 + 100 x 1132 / 850 cycles), the others' not
    parts = [r.report_stats.sampling.get("cycles_bound_parts", {}).get("cold", 0) for r in samp[3:12]]
    assert parts == [0] * 5 + [294] + [0] * 3


# threads below n (p1) add 1 to y[i]; every thread stores its index to its word of shared
# memory: the warps issue the same instructions whatever n is, fewer of their lanes load
MEM_SPACES = ptx("""
.reg .u32 %r<6>;
.reg .u64 %rd<4>;
.reg .pred %p;
.shared .u32 sh[64];
ld.param.u64 %rd1, [p0];
ld.param.u32 %r1, [p1];
mov.u32 %r2, %tid.x;
mov.u32 %r5, %ctaid.x;
mov.u32 %r4, %ntid.x;
mad.lo.u32 %r2, %r5, %r4, %r2;
setp.lt.u32 %p, %r2, %r1;
mul.wide.u32 %rd2, %r2, 4;
add.u64 %rd3, %rd1, %rd2;
@%p ld.global.u32 %r3, [%rd3];
@%p add.u32 %r3, %r3, 1;
@%p st.global.u32 [%rd3], %r3;
mov.u32 %r4, %tid.x;
mul.wide.u32 %rd0, %r4, 4;
mov.u64 %rd2, sh;
add.u64 %rd2, %rd2, %rd0;
st.shared.u32 [%rd2], %r2;
ret;
""", params=".param .u64 p0, .param .u32 p1")


def test_a_projected_launch_counts_its_memory_instructions_exactly():
    """``gpgpu_n_load_insn``, ``..._store_insn``, ``..._shmem_insn``, ``..._param_mem_insn``
    count the lanes that executed each memory instruction, by its space: a projected launch
    takes them from its functional run's thread instructions per pc
    (``projection.memory_insn_counts``), not per warp instruction from its group, whose
    detailed launches had every lane loading.  The run's counters equal the full run's."""
    ns = [256, 256, 256, 256, 240, 224, 248, 232]

    def run(overrides: list[str]) -> list:
        m = _Gpu(MEM_SPACES, overrides)
        y = m.zeros(256)
        recs = [m.run(struct.pack("<QI", y, n), smem=256) for n in ns]
        assert m.mem.read(y, 1024).view(np.uint32).tolist() == [sum(n > i for n in ns) for i in range(256)]
        return recs
    full, samp = run([]), run(SAMPLE)
    assert [r.report_stats.sampling["status"] for r in samp] == ["detailed"] * 3 + ["projected"] * 5
    names = ("gpgpu_n_load_insn", "gpgpu_n_store_insn", "gpgpu_n_shmem_insn", "gpgpu_n_param_mem_insn")
    for name in names:
        assert [r.report_stats.counters[name] for r in samp] == [r.report_stats.counters[name] for r in full], name
    # cumulative: 2 parameter loads a thread, n global loads and stores, 256 shared stores
    last = samp[-1].report_stats.counters
    assert [last[name] for name in names] == [sum(ns), sum(ns), 256 * len(ns), 512 * len(ns)]


# every thread loads y[i]; threads below n (p2) store y[i] + 1 to z[i]: the warps issue the
# same instructions whatever n is, fewer of them store
THINNING_STORES = ptx("""
.reg .u32 %r<6>;
.reg .u64 %rd<6>;
.reg .pred %p;
ld.param.u64 %rd1, [p0];
ld.param.u64 %rd4, [p1];
ld.param.u32 %r1, [p2];
mov.u32 %r2, %tid.x;
mov.u32 %r5, %ctaid.x;
mov.u32 %r4, %ntid.x;
mad.lo.u32 %r2, %r5, %r4, %r2;
mul.wide.u32 %rd2, %r2, 4;
add.u64 %rd3, %rd1, %rd2;
ld.global.u32 %r3, [%rd3];
add.u32 %r3, %r3, 1;
setp.lt.u32 %p, %r2, %r1;
add.u64 %rd5, %rd4, %rd2;
@%p st.global.u32 [%rd5], %r3;
ret;
""", params=".param .u64 p0, .param .u64 p1, .param .u32 p2")


def test_a_projected_launch_scales_its_memory_traffic_by_its_own_transactions():
    """A launch's memory-system counters follow its global transactions, by direction: the
    detailed launches (0-3; 0, which meets cold caches, is the warm-up) store from 256 to 64
    threads, the projected ones from fewer or none, with the same warp instructions and loads.  Scaled per warp instruction,
    they would carry the detailed launches' stores; from the functional run's transactions
    (``KernelStats.tx_reads``/``tx_writes``) and the group's counts per read and per write
    transaction (``traffic_fit``) each equals the full run's; so do the CTAs completed (exact)
    and the DRAM requests, and a latency sum is the group's mean latency times the launch's own
    count of fetches."""
    ns = [256, 192, 128, 64, 0, 32, 96, 16]
    sampler = []

    def run(overrides: list[str]) -> list:
        m = _Gpu(THINNING_STORES, overrides)
        y, z = m.zeros(256), m.zeros(256)
        recs = [m.run(struct.pack("<QQI", y, z, n)) for n in ns]
        assert (m.mem.read(z, 1024).view(np.uint32) == 1).all()
        sampler.append(m.gpu.ksampler)
        return recs
    full, samp = run([]), run(SAMPLE + ["-gpgpusim_sampling_similar 0.4"])
    sampler.pop(0)
    assert [r.report_stats.sampling["status"] for r in samp] == ["detailed"] * 4 + ["projected"] * 4
    assert [r.stats.tx_reads for r in samp] == [32] * 8                  # 4 sectors a warp
    assert [r.stats.tx_writes for r in samp] == [n // 8 for n in ns]
    names = ("L1D_total_cache_accesses", "L2_total_cache_accesses", "gpgpu_n_mem_write_global",
             "gpgpu_n_mem_read_global", "icnt_total_pkts_simt_to_mem", "l2_bytes")
    for name in names:
        assert [r.report_stats.counters[name] for r in samp] == [r.report_stats.counters[name] for r in full], name
    writes = [r.report_stats.counters["gpgpu_n_mem_write_global"] for r in samp]
    assert [b - a for a, b in zip([0] + writes[:-1], writes, strict=True)] == [n // 8 for n in ns]
    # the CTAs completed are exact (each launch's 4), and the DRAM requests follow the reads
    for name in ("ctas_completed", "mrq_latency_count"):
        assert [r.report_stats.counters[name] for r in samp] == [r.report_stats.counters[name] for r in full], name
    # a latency sum is the group's mean latency times the launch's own count of fetches (per
    # warp instruction, as the group had them, it would be off by the fetches the stores made)
    used = sampler[0].groups[0].used()
    mean = sum(u.counters["mf_latency_sum"] for u in used) / sum(u.counters["mf_latency_count"] for u in used)
    c = [r.report_stats.counters for r in samp]
    fetched = {}
    for i in range(4, 8):
        own = {k: c[i][k] - c[i - 1][k] for k in ("mf_latency_sum", "mf_latency_count")}
        fetched[ns[i]] = own["mf_latency_count"]
        # (to within the rounding of the count, which the record holds rounded)
        assert abs(own["mf_latency_sum"] - mean * own["mf_latency_count"]) <= mean / 2 + 1
    # the fetches follow the stores (the same warp instructions: per warp instruction, all equal)
    assert fetched[0] < fetched[16] < fetched[32] < fetched[96]


def test_a_projected_launch_completes_exactly_its_ctas():
    """A launch projected from a group whose launches loop more or fewer times (warp
    instructions +-20 %) completes its 64 CTAs, not its group's CTAs per warp instruction."""
    reps = [10, 10, 10, 10, 12, 8]

    def run(overrides: list[str]) -> list:
        m = _Gpu(ADD_LOOP, overrides)
        y = m.zeros(64 * 64)
        return [m.run(struct.pack("<QI", y, r), ctas=64) for r in reps]
    full, samp = run([]), run(SAMPLE + ["-gpgpusim_sampling_similar 0.4"])
    assert [r.report_stats.sampling["status"] for r in samp][4:] == ["projected"] * 2
    done = [r.report_stats.counters["ctas_completed"] for r in samp]
    assert done == [r.report_stats.counters["ctas_completed"] for r in full] == [64 * (i + 1) for i in range(6)]


# MEM_SPACES through generic addresses: threads below n (p1) add 1 to y[i] (generic load and
# store of a global address); then each thread stores its index through a generic pointer to
# its word of shared memory when its tid.x is below m (p3), else to z[i] (p2): a warp whose
# lanes go to both counts as a global store in the timing model (its first access's space)
GENERIC = ptx("""
.reg .u32 %r<7>;
.reg .u64 %rd<8>;
.reg .pred %p, %q;
.shared .u32 sh[64];
ld.param.u64 %rd1, [p0];
ld.param.u32 %r1, [p1];
ld.param.u64 %rd5, [p2];
ld.param.u32 %r6, [p3];
mov.u32 %r2, %tid.x;
mov.u32 %r5, %ctaid.x;
mov.u32 %r4, %ntid.x;
mad.lo.u32 %r2, %r5, %r4, %r2;
setp.lt.u32 %p, %r2, %r1;
mul.wide.u32 %rd2, %r2, 4;
add.u64 %rd3, %rd1, %rd2;
@%p ld.u32 %r3, [%rd3];
@%p add.u32 %r3, %r3, 1;
@%p st.u32 [%rd3], %r3;
mov.u32 %r4, %tid.x;
mul.wide.u32 %rd0, %r4, 4;
mov.u64 %rd4, sh;
add.u64 %rd4, %rd4, %rd0;
cvta.shared.u64 %rd4, %rd4;
add.u64 %rd6, %rd5, %rd2;
setp.lt.u32 %q, %r4, %r6;
selp.b64 %rd7, %rd4, %rd6, %q;
st.u32 [%rd7], %r2;
ret;
""", params=".param .u64 p0, .param .u32 p1, .param .u64 p2, .param .u32 p3")


def test_a_projected_launch_counts_its_generic_memory_instructions_exactly():
    """A generic-address instruction counts, warp by warp, under the space of its first access
    (global before shared before local, as the timing model splits it): the functional run
    counts its lanes so (``mem_insts.count_generic``, ``KernelStats.pc_generic``), and a
    projected launch's per-space memory-instruction counters equal the full run's."""
    # (n, m): m = 64 sends both warps' second store to shared, 16 and 40 a mixed warp to global
    shapes = [(256, 64)] * 3 + [(240, 16), (256, 40), (200, 0), (256, 64), (130, 33)]

    def run(overrides: list[str]) -> list:
        gm = _Gpu(GENERIC, overrides)
        y, z = gm.zeros(256), gm.zeros(256)
        recs = [gm.run(struct.pack("<QI4xQI", y, n, z, m), smem=256) for n, m in shapes]
        g = gm.mem
        assert g.read(y, 1024).view(np.uint32).tolist() == [sum(n > i for n, _ in shapes) for i in range(256)]
        # z[i] is written by every launch whose m leaves thread i's tid.x out of shared memory
        assert g.read(z, 1024).view(np.uint32).tolist() == [i if any(i % 64 >= m for _, m in shapes) else 0
                                                            for i in range(256)]
        return recs
    full, samp = run([]), run(SAMPLE)
    assert [r.report_stats.sampling["status"] for r in samp] == ["detailed"] * 3 + ["projected"] * 5
    names = ("gpgpu_n_load_insn", "gpgpu_n_store_insn", "gpgpu_n_shmem_insn", "gpgpu_n_param_mem_insn")
    for name in names:
        assert [r.report_stats.counters[name] for r in samp] == [r.report_stats.counters[name] for r in full], name
    # per launch: n generic loads and stores of y; the second store of a warp whose 32 lanes
    # all have tid.x < m is a shared one (m = 64: both warps of a CTA; 40 and 33: the first)
    shared = {64: 256, 40: 128, 33: 128, 16: 0, 0: 0}
    last = samp[-1].report_stats.counters
    assert [last[name] for name in names[:3]] == [
        sum(n for n, _ in shapes), sum(n + 256 - shared[m] for n, m in shapes), sum(shared[m] for _, m in shapes)]


def test_older_records_drop_their_counters_and_sampling_is_unchanged(monkeypatch):
    """``Gpu.kernels`` keeps the cumulative counters of the last ``KEEP_KERNEL_COUNTERS``
    records only (older ones hold a copy without them); kernel sampling keeps its own, so the
    projected launches come out the same."""
    import gpgpusim.device.gpu as device_gpu
    reps = [20] * 6
    _, whole, _ = _launches(reps, SAMPLE)
    monkeypatch.setattr(device_gpu, "KEEP_KERNEL_COUNTERS", 2)
    gpu, recs, mem = _launches(reps, SAMPLE)
    assert (mem == 120).all()
    assert [bool(r.report_stats.counters) for r in recs] == [False] * 4 + [True] * 2
    assert [(r.cycles, r.report_stats.cycles, r.report_stats.sampling["status"]) for r in recs] == \
        [(r.cycles, r.report_stats.cycles, r.report_stats.sampling["status"]) for r in whole]
    assert recs[-1].report_stats.counters == whole[-1].report_stats.counters
    assert [r.uid for r in gpu.kernels] == [r.uid for r in recs]


def test_a_launch_outside_its_group_is_restored_and_simulated_in_detail():
    # launch 5 loops 3x longer: its functional run is undone (memory restored) and it is timed
    # in detail; the later launches of the first group are projected again
    reps = [10, 10, 10, 10, 30, 10]
    _, full, mem_full = _launches(reps, [])
    gpu, samp, mem = _launches(reps, SAMPLE)
    assert (mem == sum(reps)).all() and (mem_full == mem).all()
    assert [r.report_stats.sampling["status"] for r in samp] == \
        ["detailed", "detailed", "detailed", "projected", "detailed", "projected"]
    assert [r.report_stats.sampling["group"] for r in samp] == [1, 1, 1, 1, 2, 1]
    assert samp[4].report_stats.cycles == full[4].report_stats.cycles
    assert gpu.ksampler is not None and [len(g.samples) for g in gpu.ksampler.groups] == [3, 1]
    # the periodic samples' time axis (tot_cycle) counts the projected launch's cycles too
    assert gpu.sampling.sampler._tot_base == sum(r.report_stats.cycles for r in samp[:4])
    assert samp[4].start_cycles == samp[3].end_cycles == samp[3].start_cycles + samp[3].report_stats.cycles


def test_a_host_allocation_during_a_trial_run_leaves_it_restorable(monkeypatch):
    """The trial functional run of a launch that turns out to leave its group is undone even
    when another thread allocates device memory meanwhile (cudaMalloc on a host thread while
    the simulation thread runs the trial); the snapshot takes the allocation table under its
    lock, so the two cannot race."""
    import threading

    import gpgpusim.timing.projection as projection
    from gpgpusim.functional import engine
    real_launch = engine.launch
    other: list[int] = []

    def launch_while_a_host_thread_allocates(*a, **kw):
        gmem = kw["gmem"]
        t = threading.Thread(target=lambda: other.append(gmem.allocate(4096)))
        t.start()
        t.join()
        return real_launch(*a, **kw)
    monkeypatch.setattr(projection.engine, "launch", launch_while_a_host_thread_allocates)
    reps = [10, 10, 10, 10, 30, 10]
    _, full, mem_full = _launches(reps, [])
    gpu, samp, mem = _launches(reps, SAMPLE)
    assert (mem == mem_full).all()
    assert [r.report_stats.sampling["status"] for r in samp] == \
        ["detailed", "detailed", "detailed", "projected", "detailed", "projected"]
    assert samp[4].report_stats.cycles == full[4].report_stats.cycles
    assert len(other) == 3 and gpu.gmem.cow is None       # three trials, each snapshot closed


def test_a_failure_while_placing_a_kernel_fails_its_record(monkeypatch):
    """A simulator bug while a kernel is placed (here in the projection) fails that launch with
    a sticky cudaErrorLaunchFailure, which the next advance() reports; the kernel is not left
    running without a run (the simulation thread would advance it forever)."""
    import gpgpusim.timing.gpu as timing_gpu
    from gpgpusim.errors import Err

    def broken(*_a):
        raise RuntimeError("broken projection")
    gpu, _recs, _ = _launches([10] * 4, SAMPLE)
    monkeypatch.setattr(timing_gpu, "project_launch", broken)
    op = _recs[0].op.clone()
    rec = gpu.start_kernel(op, 0)
    assert rec.error is not None and rec.error.code == Err.LaunchFailure and rec.error.sticky
    assert "broken projection" in rec.error.message
    assert gpu.advance() == [rec] and not gpu._running and not gpu.runs


def _reported(recs: list, cfg, path=None) -> tuple[list[list[str]], dict]:
    """Each launch's statistics block as the Reporter prints it, and its JSON document (as
    written to ``path`` when given)."""
    blocks: list[list[str]] = []
    rep = Reporter(cfg, out=lambda line: blocks[-1].append(line), clock=lambda: 0.0)
    for r in recs:
        blocks.append([])
        rep.kernel_end(r.report_stats)
    if path is None:
        return blocks, rep.to_json()
    rep.write_json(path)
    return blocks, json.loads(path.read_text())


def test_a_reporter_without_kernel_records_prints_and_totals_the_same():
    """``keep_kernels=False`` (a run without ``-o``) holds the current kernel's record only;
    every block, the exit lines and the JSON totals (kernel count, cycles, instruction mix,
    sampling totals) are the same as with every record kept."""
    reps = [10, 10, 10, 10, 30, 10, 10]
    gpu, samp, _ = _launches(reps, SAMPLE)
    runs = []
    for keep in (True, False):
        lines: list[str] = []
        rep = Reporter(gpu.config, out=lines.append, clock=lambda: 0.0, keep_kernels=keep)
        for r in samp:
            rep.kernel_end(r.report_stats)
        kept = len(rep.kernels)
        rep.exit()
        runs.append((lines, rep.to_json()["totals"], kept))
    (lines, totals, kept), (lines2, totals2, kept2) = runs
    assert (kept, kept2) == (len(reps), 1)
    assert lines2 == lines
    assert totals2 == totals
    assert totals["kernels"] == len(reps) and totals["sampling"]["launches_projected"] >= 2
    assert any(ln.startswith("GPGPU-Sim: sampling (kernel)") for ln in lines)


def test_a_projected_launch_prints_a_compact_block_of_the_projected_counters(tmp_path):
    reps = [10, 10, 10, 10, 30, 10]
    gpu, samp, _ = _launches(reps, SAMPLE)
    blocks, doc = _reported(samp, gpu.config, tmp_path / "s.json")   # packed and compact records
    k = doc["kernels"]
    assert [r["sampling"]["status"] for r in k][3:5] == ["projected", "detailed"]
    proj, rs = blocks[3], samp[3].report_stats
    assert rs.sampling["report"] == "compact" and COMPACT_NOTE in proj
    # the projected counters, exact: the group's count per warp instruction x the launch's own
    g = gpu.ksampler.groups[0]
    used = g.used()
    w = sum(s.warp_insn for s in used)
    def projected(name: str) -> int:
        return round(sum(s.counters.get(name, 0) for s in used) * rs.warp_insn / w)
    counters = k[3]["counters"]
    for name in ("L1D_total_cache_accesses", "L2_total_cache_accesses", "gpgpu_n_load_insn",
                 "active_warps_sum", "max_warps_sum"):
        assert counters[name] == projected(name) > 0
    assert counters["gpgpu_n_tot_w_icount"] == rs.warp_insn
    assert not any(high_water(n) or isinstance(v, (list, dict)) for n, v in counters.items())
    # the block: kernel lines, the markers, the cumulative projected counters
    before = samp[2].report_stats.counters
    assert f"gpu_sim_cycle = {rs.cycles}" in proj and f"gpu_sim_insn = {rs.thread_insn}" in proj
    assert f"gpu_tot_sim_cycle = {sum(r.report_stats.cycles for r in samp[:4])}" in proj
    assert proj[proj.index(f"gpu_sim_cycle = {rs.cycles}") + 1].startswith("gpgpusim_sampling = projected")
    assert any(line.startswith(f"gpu_sim_cycle_projected = {rs.cycles} [projected +-") for line in proj)
    # the occupancy: the launch's projected warp-slot sums (a sum, not a high-water mark)
    occ = 100.0 * counters["active_warps_sum"] / counters["max_warps_sum"]
    assert f"gpu_occupancy = {occ:.4f}% " in proj
    for name in ("L1D_total_cache_accesses", "L1D_total_cache_misses", "L2_total_cache_accesses",
                 "L2_total_cache_misses"):
        assert f"\t{name} = {before[name] + counters[name]}" in proj \
            or f"{name} = {before[name] + counters[name]}" in proj
    # the per-unit sections are left out
    assert not any(line.startswith(("\tL1D_cache_core[", "L2_cache_bank[", "number of total read accesses:",
                                    "maxmflatency", "Req_Network_injected_packets"))
                   for line in proj)
    assert any(line.startswith("\tL1D_cache_core[") for line in blocks[2])
    assert COMPACT_NOTE not in blocks[4] and COMPACT_NOTE not in blocks[2]

    # -gpgpusim_sampling_full_stats 1: the full block, the compact one a part of it in order
    gpu2, full, _ = _launches(reps, SAMPLE + ["-gpgpusim_sampling_full_stats 1"])
    fblocks, fdoc = _reported(full, gpu2.config, tmp_path / "f.json")
    assert full[3].report_stats.sampling["report"] == "full"
    assert any(line.startswith("\tL1D_cache_core[") for line in fblocks[3]) and COMPACT_NOTE not in fblocks[3]
    it = iter(fblocks[3])
    assert all(line in it for line in proj if line != COMPACT_NOTE)
    fc = fdoc["kernels"][3]["counters"]
    assert isinstance(fc["L1D_core_access"], list)
    assert all(fc[n] == v for n, v in counters.items())
    # the detailed launches, before and after the projected one, are reported the same either way
    for i in (0, 1, 2, 4, 5):
        if k[i]["sampling"]["status"] == "detailed":
            assert blocks[i] == fblocks[i]
            assert k[i]["counters"] == fdoc["kernels"][i]["counters"]
    assert doc["totals"]["counters"] == fdoc["totals"]["counters"]


def test_sampling_off_blocks_have_no_sampling_lines():
    gpu, recs, _ = _launches([10] * 4, [])
    blocks, doc = _reported(recs, gpu.config)
    assert not any(line.startswith("gpgpusim_sampling") for b in blocks for line in b)
    assert all(isinstance(k["counters"]["L1D_core_access"], list) for k in doc["kernels"])


def test_a_group_of_cta_sampled_launches_passes_on_their_bound():
    """Samples whose cycles CTA sampling partly projected (relative bounds 1 % and 3 %, the
    warm-up's 5 % left out with it) add their mean bound, 2 %, to the group's prediction
    interval; exact samples add nothing."""
    exact, cta = (KernelSampler(tol=0.02, min_detailed=3, similar=0.1, latency=0) for _ in range(2))
    key = exact.key("k", (4, 1, 1), (64, 1, 1))
    for uid, (cyc, rel) in enumerate(((2500, 0.05), (2000, 0.01), (2000, 0.03)), 1):
        ge = exact.record_detailed(key, uid, 1000, {"add": 10}, cyc, {})
        gc = cta.record_detailed(key, uid, 1000, {"add": 10}, cyc, {}, rel)
    cycles_e, bound_e, _ = exact.project(ge, 1000, 32000)
    cycles_c, bound_c, _ = cta.project(gc, 1000, 32000)
    assert cycles_e == cycles_c == 2000
    assert bound_c == bound_e + 40


def test_memory_insn_counts_by_space():
    """``memory_insn_counts`` counts what ``LdstUnit.issue`` counts: LD/ST-unit instructions by
    their space, global and local ones (and a fence, which has none) as loads or stores;
    another unit's instructions not at all; a generic-address one by its counts by space, and
    without them (or with counts short of its thread instructions) makes the counts unknown."""
    from types import SimpleNamespace

    from gpgpusim.timing.projection import memory_insn_counts
    from gpgpusim.timing.static import Unit

    mem, alu = int(Unit.MEM), int(Unit.SP)
    table = SimpleNamespace(unit=[mem] * 8 + [alu],
                            mem_space=["global", "global", "local", "shared", "param", "const", "tex", "", ""],
                            is_store=[False, True, True, False, False, False, False, False, False])
    got = memory_insn_counts(table, {0: 10, 1: 20, 2: 3, 3: 4, 4: 5, 5: 6, 6: 7, 7: 8, 8: 99})
    assert got == {"gpgpu_n_load_insn": 18, "gpgpu_n_store_insn": 23, "gpgpu_n_shmem_insn": 4,
                   "gpgpu_n_const_mem_insn": 6, "gpgpu_n_param_mem_insn": 5, "gpgpu_n_tex_insn": 7}
    table.mem_space[0] = "generic"
    assert memory_insn_counts(table, {0: 10, 1: 20}) is None
    assert memory_insn_counts(table, {0: 10, 1: 20}, {0: [3, 4, 2]}) is None
    got = memory_insn_counts(table, {0: 10, 1: 20}, {0: [3, 4, 3]})
    assert (got["gpgpu_n_load_insn"], got["gpgpu_n_shmem_insn"], got["gpgpu_n_store_insn"]) == (6, 4, 20)
    table.is_store[0] = True
    assert memory_insn_counts(table, {0: 10}, {0: [3, 4, 3]})["gpgpu_n_store_insn"] == 6
    assert memory_insn_counts(table, {1: 20})["gpgpu_n_store_insn"] == 20
