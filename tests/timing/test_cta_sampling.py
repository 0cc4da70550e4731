"""gpgpusim.timing.cta_sampling and its use by TimingGpu (-gpgpusim_sampling cta)."""

from __future__ import annotations

import struct

import numpy as np

from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.options import load_config
from gpgpusim.device.gpu import KernelLaunchOp
from gpgpusim.timing.cta_sampling import CtaSampling, IntervalSampling
from gpgpusim.timing.gpu import TimingGpu

from .test_kernel_sampling import ADD_LOOP
from .timing_helpers import ptx


def test_the_cut_waits_for_a_stable_line_through_the_wave_marks():
    cs = CtaSampling(wave=10, n_ctas=200, tol=0.02)
    ends = [150, 250, 352, 449, 551, 650]   # one wave every ~100 cycles after the ramp
    for k, now in enumerate(ends, 1):
        assert not cs.cta_done(10 * k - 1, now, 10 * k + 10)       # not a wave boundary
        # four steady waves: the slope's interval is 3.0 %; five: 1.3 %
        assert cs.cta_done(10 * k, now, 10 * k + 10) == (k == 6)
    assert cs.cut_at == 70 and round(cs.rate * 10, 2) == 99.9
    cycles, bound, rest = cs.project(900)
    assert rest == 130 and cycles == 900 + round(130 * cs.rate)
    assert bound >= 0.5 * cs.rate * 10                           # at least half a wave


def test_too_few_waves_are_not_sampled():
    assert not CtaSampling.eligible(5 * 64, 64) and CtaSampling.eligible(6 * 64, 64)


def test_no_cut_once_fewer_ctas_are_left_than_were_issued():
    """The same marks as above on a grid of 130 CTAs: the line is known after 70 CTAs were
    issued, but only 60 are left, so the grid is simulated whole."""
    cs = CtaSampling(wave=10, n_ctas=130, tol=0.02)
    for k, now in enumerate([150, 250, 352, 449, 551, 650, 750], 1):
        assert not cs.cta_done(10 * k, now, 10 * k + 10)
    assert cs.cut_at is None


def test_the_line_starts_after_the_waves_that_fill_the_l2():
    """An L2 of 1,000 lines that each wave's 100 misses fill by 100 lines until it is full:
    the first waves run at 100 cycles, the waves after the fill at 160.  Watching no L2 the
    cut comes after five waves at the first rate; watching it, the line starts one wave after
    the last wave that filled it, and the cut takes the second rate."""
    def marks(watch: bool) -> CtaSampling:
        state = [0, 0, 0]                       # valid lines, dirty lines, line misses
        cs = CtaSampling(wave=10, n_ctas=400, tol=0.02, l2=(lambda: (state[0], state[1], state[2])) if watch else None,
                         l2_lines=1000)
        now = 0
        for k in range(1, 40):
            state[0] = min(1000, state[0] + 100)
            state[2] += 100
            now += 100 if state[0] < 1000 or k == 10 else 160
            if cs.cta_done(10 * k, now + (k % 2), 10 * k + 10):
                break
        return cs
    blind, seen = marks(False), marks(True)
    assert blind.cut_at == 60 and round(blind.rate * 10) == 100
    # waves 1-10 filled it (the 10th to the last line); the line starts at the 11th wave's mark
    assert seen.steady_from == 10 and seen.cut_at == 150 and round(seen.rate * 10) == 160
    assert seen.info(1, 1, 0)["steady_from_wave"] == 10


def test_an_l2_that_will_not_fill_does_not_delay_the_cut():
    """The same growth of 10 lines a wave, in an L2 the grid's 20 waves cannot fill to 3/4,
    and dirty lines that stay at the L2's size as write-backs and writes interleave: the cut
    comes when it does unwatched."""
    state = [0, 1000, 0]
    cs = CtaSampling(wave=10, n_ctas=200, tol=0.02, l2=lambda: (state[0], state[1], state[2]), l2_lines=1000)
    for k, now in enumerate([150, 250, 352, 449, 551, 650], 1):
        state[0] += 10
        state[1] = 1000 - 30 * (k % 2)
        state[2] += 50
        assert cs.cta_done(10 * k, now, 10 * k + 10) == (k == 6)
    assert cs.steady_from == 1


def _run(n_ctas: int, sampling: str, *more: str, reps: int = 10) -> tuple[object, np.ndarray]:
    """One launch of ADD_LOOP (``reps`` trips) on 2 SMs: its record and the output array."""
    cfg = load_config(None, overrides=["-gpgpu_n_clusters 2", "-gpgpu_kernel_launch_latency 50",
                                       f"-gpgpusim_sampling {sampling}", *more], env=False)
    g = GlobalMemory()
    gpu = TimingGpu(cfg, g, None)
    lm = load_module(ADD_LOOP, g)
    y = g.allocate(n_ctas * 64 * 4)
    g.write(y, np.arange(n_ctas * 64, dtype=np.uint32))
    op = KernelLaunchOp(lm, "k", (n_ctas, 1, 1), (64, 1, 1), 0, struct.pack("<QI", y, reps), {"options": cfg},
                        regs_per_thread=16, static_smem_bytes=0)
    rec = gpu.start_kernel(op, 0)
    while not gpu.advance():
        pass
    assert rec.error is None
    return rec, g.read(y, n_ctas * 64 * 4).view(np.uint32)


def test_cta_sampling_projects_the_waves_left_to_the_functional_engine():
    full, mem_full = _run(1280, "off")
    samp, mem = _run(1280, "cta")
    # every CTA ran: memory and instruction counts exact
    assert (mem == np.arange(1280 * 64) + 10).all() and (mem == mem_full).all()
    f, s = full.report_stats, samp.report_stats
    assert (s.thread_insn, s.warp_insn, s.ctas) == (f.thread_insn, f.warp_insn, f.ctas) == (4177920, 133120, 1280)
    assert s.counters["gpgpu_n_tot_w_icount"] == f.counters["gpgpu_n_tot_w_icount"] == 133120
    c = s.sampling["cta"]
    assert s.sampling["status"] == "cta_projected"
    # 2 SMs x 32 CTAs a wave; the line through 8 wave ends is known within 2 % after 572 CTAs
    assert (c["wave_ctas"], c["ctas_detailed"], c["ctas_projected"]) == (64, 572, 708)
    assert f.cycles == 34043 and s.cycles == 33641
    assert abs(s.cycles - f.cycles) <= s.sampling["cycles_bound"]
    assert samp.end_cycles - samp.start_cycles == 33641     # events see the projected time


# ADD_LOOP (10 trips) whose threads from p1 on load and store nothing: every warp issues the
# same instructions, fewer of its lanes access memory
_GUARDED = """
.reg .u32 %r<7>;
.reg .u64 %rd<4>;
.reg .pred %p, %q;
ld.param.u64 %rd1, [p0];
ld.param.u32 %r1, [p1];
mov.u32 %r2, %tid.x;
mov.u32 %r5, %ctaid.x;
mov.u32 %r6, %ntid.x;
mad.lo.u32 %r2, %r5, %r6, %r2;
setp.lt.u32 %q, %r2, %r1;
mul.wide.u32 %rd2, %r2, 4;
add.u64 %rd3, %rd1, %rd2;
mov.u32 %r3, 0;
@%q ld.global.u32 %r3, [%rd3];
mov.u32 %r4, 0;
L:
add.u32 %r3, %r3, 1;
add.u32 %r4, %r4, 1;
setp.lt.u32 %p, %r4, 10;
@%p bra L;
@%q st.global.u32 [%rd3], %r3;
ret;
"""
GUARDED_LOOP = ptx(_GUARDED, params=".param .u64 p0, .param .u32 p1")


def _guarded(module: object, sampling: str) -> tuple[object, np.ndarray]:
    """One launch of ``module``'s ``k`` (1,280 CTAs of 64 threads, p1 = 640 x 64) on 2 SMs
    under ``-gpgpusim_sampling sampling``: its report and the output array."""
    cfg = load_config(None, overrides=["-gpgpu_n_clusters 2", "-gpgpu_kernel_launch_latency 50",
                                       f"-gpgpusim_sampling {sampling}"], env=False)
    g = GlobalMemory()
    gpu = TimingGpu(cfg, g, None)
    lm = load_module(module, g)
    y = g.allocate(1280 * 64 * 4)
    g.write(y, np.zeros(1280 * 64, np.uint32))
    op = KernelLaunchOp(lm, "k", (1280, 1, 1), (64, 1, 1), 0, struct.pack("<QI", y, 640 * 64),
                        {"options": cfg}, regs_per_thread=16, static_smem_bytes=0)
    rec = gpu.start_kernel(op, 0)
    while not gpu.advance():
        pass
    assert rec.error is None
    return rec.report_stats, g.read(y, 1280 * 256).view(np.uint32)


def test_the_projected_ctas_count_their_memory_instructions_exactly():
    """The functionally run CTAs' memory-instruction counts come from their counts per pc,
    not per warp instruction from the timed ones: only the first 640 CTAs' threads load and
    store, and the CTAs timed in detail are among them."""
    (f, mem_f), (s, mem) = _guarded(GUARDED_LOOP, "off"), _guarded(GUARDED_LOOP, "cta")
    assert mem.tolist() == mem_f.tolist() == [10] * 640 * 64 + [0] * 640 * 64
    assert s.sampling["status"] == "cta_projected" and s.sampling["cta"]["ctas_detailed"] < 640, s.sampling
    for name, n in (("gpgpu_n_param_mem_insn", 2 * 1280 * 64), ("gpgpu_n_load_insn", 640 * 64),
                    ("gpgpu_n_store_insn", 640 * 64)):
        assert s.counters[name] == f.counters[name] == n, name



def test_a_grid_converging_past_its_middle_is_simulated_whole():
    """16 waves: the line is known after 572 CTAs were issued, when 452 are left (under
    half the grid): no cut, and the launch is the full simulation's, cycle for cycle."""
    full, mem_full = _run(1024, "off")
    samp, mem = _run(1024, "cta")
    assert (mem == mem_full).all()
    assert samp.report_stats.sampling["status"] == "detailed"
    assert samp.report_stats.cycles == full.report_stats.cycles == 27194


def test_wave_sampling_waits_until_the_grid_has_filled_the_l2():
    """60 waves on 2 SMs, one load and one store a thread, and an L2 of 3,072 lines (two
    memory channels) that the grid's data fills after 24 waves: from then on every miss evicts
    a dirty line, and a wave takes ~745 cycles instead of ~625.  Watching no L2, the cut after
    6 waves projected the first rate: -10.81 %, outside its +-764 bound.  The line now starts
    after the fill, at the 25th wave's mark."""
    more = ("-gpgpu_n_mem 2", "-gpgpu_memory_partition_indexing 0")
    full, mem_full = _run(3840, "off", *more, reps=1)
    samp, mem = _run(3840, "cta", *more, reps=1)
    assert (mem == mem_full).all() and (mem == np.arange(3840 * 64) + 1).all()
    f, s = full.report_stats, samp.report_stats
    c = s.sampling["cta"]
    assert (c["steady_from_wave"], c["ctas_detailed"], c["ctas_projected"]) == (25, 1918, 1922)
    assert f.cycles == 42939 and s.cycles == 42639                 # -0.70 %
    assert abs(s.cycles - f.cycles) <= s.sampling["cycles_bound"] == 480


def test_tail_in_detail_skips_the_middle_and_times_the_last_waves():
    samp, mem = _run(1280, "cta")
    tail, mem2 = _run(1280, "cta", "-gpgpusim_sampling_cta_tail detail")
    assert (mem2 == mem).all() and (mem2 == np.arange(1280 * 64) + 10).all()
    c = tail.report_stats.sampling["cta"]
    # cut after 572 CTAs issued as above; the middle 640 CTAs run functionally and the last
    # 68 (4 of a partial wave + a full wave of 64) are timed after them
    assert (c["tail"], c["ctas_detailed"], c["ctas_projected"]) == ("detail", 640, 640)
    assert tail.report_stats.cycles == 33702 and samp.report_stats.cycles == 33641   # full: 34,043
    assert tail.report_stats.warp_insn == samp.report_stats.warp_insn == 133120


def _interval_at_cut() -> IntervalSampling:
    """Two SMs of two CTA slots, four CTAs started at cycle 0, each issuing one warp
    instruction a cycle from the start (no lag), so an SM issues two a cycle."""
    cs = IntervalSampling(wave=4, n_ctas=6, tol=0.02, n_cores=2)
    for cid in range(4):
        cs.cta_started(cid, 0)
    t = 0
    while not cs.observe(t, [2 * t, 2 * t]):
        t += 16
    assert (cs.cut_at, cs.rate, cs.lag, cs.ci_rel) == (4, 1.0, 0.0, 0.0)
    cs.cut([(0, 0, t), (0, 1, t), (1, 2, t), (1, 3, t)])
    assert cs.core_rate == [2.0, 2.0] and cs.cta_cap == [1.0, 1.0] and cs.weights == [1.0, 1.0]
    return cs


def test_interval_sampling_cuts_once_the_rate_is_steady():
    cs = _interval_at_cut()
    # 8 batches of two looks need 17 looks in the last three quarters: at cycle 352, those
    # from cycle 96 on (looks every 16 cycles here)
    assert cs.cut_cycle == 352 and len(cs.points) == 23


def test_interval_projection_shares_each_sm_among_its_ctas():
    """1,000 instructions a CTA: the first wave ends at cycle 1,000; the last two CTAs, one per
    SM, each run at the rate a CTA had (the cap), so the half wave costs a whole CTA time (2,000
    cycles, plus the 10-cycle drain); at an SM's full rate they would end at 1,500: the bound
    holds the difference, and the rate's interval, stated as at least the tolerance (2 % of the
    2,010 cycles: 40.2, the bound rounded up)."""
    cs = _interval_at_cut()
    cycles, bound, projected = cs.project(cs.cut_cycle + 10, 6000, 4 * cs.cut_cycle)
    assert (cycles, projected, cs.drain, cs.tail_gap) == (2010, 2, 10, 500.0)
    assert bound == 551
    # no counter snapshot inside the interval: the detailed part's counters, scaled by warp
    # instructions (1,408 timed of 6,000)
    assert cs.project_counters({"x": 1408}, 6000) == {"x": 6000 - 1408}


def test_interval_counters_grow_as_they_did_in_the_interval():
    """Snapshots at cycle 64 (the cold start, before the interval) and 112 (inside it, which
    begins at 96) and at the cut: the counters of the 4,592 warp instructions not timed grow
    as from 112 to the cut, per warp instruction (20 over 960), not as from the start."""
    cs = _interval_at_cut()
    cs.counters_at(64, 256, {"x": 100})
    cs.counters_at(112, 448, {"x": 110})
    cs.counters_at(352, 1408, {"x": 130})
    cs.project(cs.cut_cycle + 10, 6000, 1408)
    assert cs.interval_start == 96
    assert cs.project_counters({"x": 130}, 6000) == {"x": round(20 * 4592 / 960)}


def test_interval_sampling_eligible_grids():
    assert not IntervalSampling.eligible(0, 64)
    assert IntervalSampling.eligible(1, 64) and IntervalSampling.eligible(63, 64) and IntervalSampling.eligible(64, 64)
    assert IntervalSampling.eligible(15 * 64 + 63, 64) and not IntervalSampling.eligible(16 * 64, 64)


def test_interval_sampling_cuts_the_first_wave_and_projects_the_rest():
    """100 CTAs of 2 warps on 2 SMs (64 a wave, 1.6 waves), 100 trips each: the rate is known
    in the first wave, the 64 CTAs in flight stop issuing and drain, every instruction still
    runs (memory and counts exact), and the projection's error is inside its bound."""
    full, mem_full = _run(100, "cta", "-gpgpusim_sampling_cta_interval 0", reps=100)
    samp, mem = _run(100, "cta", "-gpgpusim_sampling_cta_interval 1", reps=100)
    assert (mem == np.arange(100 * 64) + 100).all() and (mem == mem_full).all()
    f, s = full.report_stats, samp.report_stats
    assert f.sampling["status"] == "detailed"          # 1.6 waves: no wave sampling
    assert (s.thread_insn, s.warp_insn, s.ctas) == (f.thread_insn, f.warp_insn, f.ctas) == (2630400, 82400, 100)
    c = s.sampling["cta"]
    assert s.sampling["status"] == "cta_projected" and c["method"] == "interval"
    assert (c["ctas_cut"], c["ctas_projected"], c["cut_cycle"], c["cycles_detailed"]) == (64, 36, 5632, 5645)
    assert c["insn_detailed"] < 82400 / 2
    assert f.cycles == 21782 and s.cycles == 20085 and s.sampling["cycles_bound"] == 3704
    assert abs(s.cycles - f.cycles) <= s.sampling["cycles_bound"]
    assert s.counters["gpgpu_n_tot_w_icount"] == 82400
    # every CTA completed (64 timed in part, 36 never), exact
    assert s.counters["ctas_completed"] == f.counters["ctas_completed"] == 100



def test_an_interval_sampled_launch_counts_at_least_its_compulsory_misses():
    """Each thread reads its word first (a sector of its CTA's never read before) and stores
    it after its loop: the interval the rest of the grid is projected from, inside the first
    wave's loops, reads nothing new, so per warp instruction the rest would miss nowhere.  The
    launch's cold reads, counted by its functional run, are a floor of its L2 misses and DRAM
    reads: equal to the full run's."""
    full, _ = _run(100, "off", reps=100)
    samp, _ = _run(100, "all", "-gpgpusim_sampling_cta_interval 1", reps=100)
    f, s = full.report_stats, samp.report_stats
    assert s.sampling["status"] == "cta_projected" and s.sampling["cta"]["method"] == "interval"
    assert s.sampling["cold_reads"] == 100 * 64 * 4 // 32
    for name in ("total_dram_reads", "L2_total_cache_misses", "L2_fill_port_busy"):
        assert s.counters[name] == f.counters[name] == 800, name


def test_interval_sampled_kernel_is_marked_in_the_statistics_block():
    from gpgpusim.report.reporter import sampling_lines
    samp, _ = _run(100, "cta", "-gpgpusim_sampling_cta_interval 1", reps=100)
    s = samp.report_stats
    assert sampling_lines(s) == [
        "gpgpusim_sampling = cta_projected (CTA sampling inside the first wave: the 64 CTAs issued were "
        "timed for 5632 cycles and drained, then every CTA ran functionally; 36 CTAs never timed; "
        "waves of 64 CTAs)",
        "gpu_sim_cycle_projected = 20085 [projected +-18.44 %, +-3704 cycles, 95 % interval of the rate, "
        "start-up, drain and tail]",
        "gpgpusim_sampling_counters = projected (instructions exact; scalar counters grown per warp "
        "instruction as over the measured interval; per-unit lists and histograms not included)"]
