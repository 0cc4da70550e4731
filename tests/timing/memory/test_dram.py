"""DRAM channel (gpgpusim.timing.memory.dram): every timing constraint, the separate write queue
and the ``dram_t::print`` statistics, with exact command cycles.

Parameters are SM7_QV100's (HBM, dual bus: one row and one column command per cycle):
tCCD=1 tRRD=3 tRCD=12 tRAS=28 tRP=12 tRC=40 CL=12 WL=2 tCDLR=3 tWR=10, 4 bank groups taken from
the low bank bits (banks 0, 4, 8, 12 share group 0), tCCDL=2 tRTPL=3; derived tRCDWR=9 tRTW=13
tWTR=6 tWTP=13, one command cycle per burst.  A counter set to ``tX`` at cycle ``c`` is counted
down at the end of every cycle, so the command it guards is blocked up to ``c + tX - 1`` and
allowed at ``c + tX``.  Each constraint test runs twice, with ``tX`` and ``tX + 1``, and checks
that the guarded command moves by exactly one cycle: that constraint (not another) binds.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpgpusim.options import load_config
from gpgpusim.report.stats import StatsRegistry
from gpgpusim.timing.clock import CORE, ClockDomains
from gpgpusim.timing.mem_fetch import MemFetch
from gpgpusim.timing.memory import MemorySystem
from gpgpusim.timing.memory.dram import Dram
from gpgpusim.timing.memory.dram_parts import DramTimingParams

from ..timing_helpers import ptx, run_timing

_KIND = ("ACT", "PRE", "RD", "WR")


@pytest.fixture(scope="module")
def cfg():
    return load_config(None, env=False)


def _fetch(bank, row, write=False):
    f = MemFetch(0, 32, write, "GLOBAL_ACC_W" if write else "GLOBAL_ACC_R")
    f.bank, f.row, f.sub_partition = bank, row, 0
    return f


def _commands(p, reqs, cycles=120, make=None):
    """Run a channel (``Dram(0, p)``, or ``make()``); ``reqs`` = [(push cycle, bank, row,
    is_write)].  Returns the channel and its command log [(cycle, ACT|PRE|RD|WR, bank)]."""
    d = Dram(0, p) if make is None else make()
    log = []
    now = [0]

    def traced(fn):
        def issue(j):
            before = (d.n_act, d.n_pre, d.n_rd, d.n_wr)
            ok = fn(j)
            if ok:
                after = (d.n_act, d.n_pre, d.n_rd, d.n_wr)
                kind = next(k for k, a, b in zip(_KIND, after, before, strict=True) if a != b)
                log.append((now[0], kind, j))
            return ok
        return issue

    d._issue_col = traced(d._issue_col)
    d._issue_row = traced(d._issue_row)
    pending = sorted(reqs, key=lambda r: r[0])
    for t in range(cycles):
        now[0] = t
        while pending and pending[0][0] == t:
            _, bank, row, w = pending.pop(0)
            d.push(_fetch(bank, row, w), t)
        d.cycle(t)
        while d.return_pop() is not None:
            pass
    return d, log


def _at(log, kind, bank, nth=0):
    return [c for c, k, b in log if k == kind and b == bank][nth]


# (name, parameter to vary, extra parameter settings, requests, guarded command, its reference)
# guarded command = (kind, bank, nth); it must come exactly ``tX`` cycles after the reference
# command.  Extra settings take other constraints out of the way.
CONSTRAINTS = [
    ("tRCD", "tRCD", {}, [(0, 0, 1, False)], ("RD", 0, 0), ("ACT", 0, 0)),
    ("tRCDWR", "tRCDWR", {}, [(0, 0, 1, True)], ("WR", 0, 0), ("ACT", 0, 0)),
    ("tRRD", "tRRD", {}, [(0, 0, 1, False), (0, 1, 1, False)], ("ACT", 1, 0), ("ACT", 0, 0)),
    # banks 0 and 4 share bank group 0; their reads would be 3 cycles apart (tRRD)
    ("tCCDL", "tCCDL", {"tCCDL": 5}, [(0, 0, 1, False), (0, 4, 1, False)], ("RD", 4, 0), ("RD", 0, 0)),
    ("tCCD", "tCCD", {"tCCD": 5, "tCCDL": 0}, [(0, 0, 1, False), (0, 1, 1, False)], ("RD", 1, 0), ("RD", 0, 0)),
    # a read to another row of the same bank: precharge after tRAS, activate after tRP / tRC
    ("tRAS", "tRAS", {}, [(0, 0, 1, False), (0, 0, 2, False)], ("PRE", 0, 0), ("ACT", 0, 0)),
    ("tRP", "tRP", {"tRC": 1}, [(0, 0, 1, False), (0, 0, 2, False)], ("ACT", 0, 1), ("PRE", 0, 0)),
    ("tRC", "tRC", {"tRC": 50}, [(0, 0, 1, False), (0, 0, 2, False)], ("ACT", 0, 1), ("ACT", 0, 0)),
    ("tWTP", "tWTP", {"tRAS": 1}, [(0, 0, 1, True), (0, 0, 2, False)], ("PRE", 0, 0), ("WR", 0, 0)),
    ("tRTPL", "tRTPL", {"tRAS": 1}, [(0, 0, 1, False), (0, 0, 2, False)], ("PRE", 0, 0), ("RD", 0, 0)),
    ("tRTP", "burst_cycles", {"tRAS": 1, "tRTPL": 0}, [(0, 0, 1, False), (0, 0, 2, False)],
     ("PRE", 0, 0), ("RD", 0, 0)),
    # write to bank 0 (WR at 9), read to bank 1 (RD allowed by tRCD at 15)
    ("tWTR", "tWTR", {"tWTR": 10}, [(0, 0, 1, True), (0, 1, 1, False)], ("RD", 1, 0), ("WR", 0, 0)),
    # read to bank 0 (RD at 12), write to bank 1 (WR allowed by tRCDWR at 12)
    ("tRTW", "tRTW", {}, [(0, 0, 1, False), (0, 1, 1, True)], ("WR", 1, 0), ("RD", 0, 0)),
]


@pytest.mark.parametrize(("name", "param", "extra", "reqs", "guarded", "ref"), CONSTRAINTS,
                         ids=[c[0] for c in CONSTRAINTS])
def test_constraint_blocks_until_t(cfg, name, param, extra, reqs, guarded, ref):
    got = []
    for bump in (0, 1):
        p = DramTimingParams(cfg)
        for k, v in extra.items():
            setattr(p, k, v)
        setattr(p, param, getattr(p, param) + bump)
        _, log = _commands(p, reqs)
        t_ref, t_cmd = _at(log, *ref), _at(log, *guarded)
        assert t_cmd - t_ref == getattr(p, param), (name, log)
        got.append(t_cmd)
    assert got[1] == got[0] + 1


def test_constraint_table_covers_every_timing_parameter():
    names = {c[0] for c in CONSTRAINTS}
    assert names == {"tRCD", "tRCDWR", "tRRD", "tCCD", "tCCDL", "tRAS", "tRP", "tRC", "tWTP", "tRTP", "tRTPL",
                     "tWTR", "tRTW"}


def test_exact_command_sequence_and_statistics(cfg):
    """Three reads to bank 0: A and B to row 1, C to row 2, pushed together.

    A opens row 1 (ACT 0, RD 12 = tRCD); B is the row hit, handed to the bank at 13 and held one
    cycle by tCCDL (RD 14); C misses: PRE at 28 (tRAS), ACT at 40 (tRP and tRC), RD at 52.
    Per cycle (60 cycles): data bus used at 12, 14, 52; a request to the open row waits at
    0-11, 13, 40-51 (Wasted_Col: tRCD 24 times, tCCDL once); a request to a closed row at 15-39
    (Wasted_Row); nothing pending at 53-59 (Idle)."""
    p = DramTimingParams(cfg)
    d, log = _commands(p, [(0, 0, 1, False), (0, 0, 1, False), (0, 0, 2, False)], cycles=60)
    assert log == [(0, "ACT", 0), (12, "RD", 0), (14, "RD", 0), (28, "PRE", 0), (40, "ACT", 0), (52, "RD", 0)]
    ch = d.channel_stats()
    third = float(np.float32(1) / np.float32(3))
    assert ch["row_buffer_locality"] == third and ch["row_buffer_locality_read"] == third
    assert ch["row_buffer_locality_write"] is None          # 0/0: printed "-nan"
    assert (ch["blp"], ch["blp_col"], ch["blp_ready"], ch["grp_level_para"]) == (1.0, 1.0, 1.0, 1.0)
    assert ch["w2r_ratio_blp_rw_average"] == 0.0
    assert (ch["util_bw"], ch["wasted_col"], ch["wasted_row"], ch["idle_bw"]) == (3, 25, 25, 7)
    assert (ch["RCDc_limit"], ch["CCDLc_limit"], ch["CCDLc_limit_alone"]) == (24, 1, 1)
    assert ch["RCDWRc_limit"] == ch["WTRc_limit"] == ch["RTWc_limit"] == ch["rwq"] == 0
    assert (ch["issued_total_row"], ch["issued_total_col"], ch["issued_two"]) == (3, 3, 0)
    assert (ch["n_cmd"], ch["n_nop"], ch["n_act"], ch["n_pre"], ch["n_rd"], ch["bwutil"]) == (60, 54, 2, 1, 3, 3)
    # B and C wait in the scheduler for 13 cycles, C alone for 2 more: 28 / 60
    assert ch["mrqq_max"] == 2 and ch["queue_avg"] == float(np.float32(28) / np.float32(60))
    # memlatstat: C's miss closes the run A, B (2 accesses to row 1); the FR-FCFS queueing
    # latency is 0 (A), 13 (B) and 15 (C) cycles, log2 bins 0, 3, 3; the row misses at 0 (A:
    # 0 cycles since the start) and 15 (C) make the longest row service 15 cycles
    s = d.sched
    assert (s.num_activates[0], s.row_access[0], s.max_conc_access[0], s.concurrent_row_access[0]) == (2, 3, 2, 1)
    assert (s.max_service_time[0], s.row_service_ts[0]) == (15, 15)
    assert (d.mrq_lat_sum, d.mrq_lat_num, d.mrq_lat_max) == (28, 3, 15)
    assert d.mrq_lat_table[:5] == [1, 0, 0, 2, 0] and sum(d.mrq_lat_table) == 3


def test_write_to_read_ratio_and_group_parallelism(cfg):
    """A write to bank 0 and a read to bank 1 (different bank groups) wait on their open rows
    together for a while: the write/read ratio averages over the cycles with such banks."""
    p = DramTimingParams(cfg)
    d, log = _commands(p, [(0, 0, 1, True), (0, 1, 1, False)], cycles=40)
    # WR at 9 (tRCDWR); RD at 15 (tRCD after ACT at 3, and tWTR = 6 after the write)
    assert log == [(0, "ACT", 0), (3, "ACT", 1), (9, "WR", 0), (15, "RD", 1)]
    ch = d.channel_stats()
    # open-row samples (taken before each cycle's commands): cycles 1-3 the write only (ratio
    # 1.0), 4-9 both (0.5), 10-15 the read only (0.0); the two banks are in different groups
    assert ch["w2r_ratio_blp_rw_average"] == (3 * 1.0 + 6 * 0.5) / 15
    assert ch["blp_col"] == float(np.float32(3 + 12 + 6) / np.float32(15))
    assert ch["grp_level_para"] == ch["blp_col"]
    # no column command at 0-8 (write held by tRCDWR, read from 3 on by tRCD) and 10-14 (read
    # held by tRCD and tWTR; tCCDL of another group does not apply, so tWTR binds "alone")
    assert (ch["util_bw"], ch["wasted_col"], ch["wasted_row"], ch["idle_bw"]) == (2, 14, 0, 24)
    assert (ch["RCDWRc_limit"], ch["RCDc_limit"], ch["WTRc_limit"], ch["WTRc_limit_alone"]) == (9, 11, 5, 5)


# ---------------------------------------------------------------------------------- write queue
def _wq_channel(size_high_low):
    cfg = load_config(None, overrides=["-dram_seperate_write_queue_enable 1",
                                       f"-dram_write_queue_size {size_high_low}"], env=False)
    p = DramTimingParams(cfg)
    assert p.separate_write_queue
    return Dram(0, p)


def _grants(d, start, cycles):
    """Cycle the channel; return [(cycle, fetch)] in the order banks were handed requests."""
    out, seen = [], {b.mrq for b in d.banks}
    for t in range(start, start + cycles):
        d.cycle(t)
        while d.return_pop() is not None:
            pass
        for b in d.banks:
            if b.mrq is not None and b.mrq not in seen:
                seen.add(b.mrq)
                out.append((t, b.mrq.fetch))
    return out


def test_write_queue_option_parsed(cfg):
    p = DramTimingParams(cfg)
    assert not p.separate_write_queue            # the shipped configs leave it off
    assert (p.write_queue_size, p.write_high_watermark, p.write_low_watermark) == (32, 28, 16)
    d = _wq_channel("64:56:32")
    assert (d.sched.write_size, d.sched.write_high, d.sched.write_low) == (64, 56, 32)


def test_write_queue_switches_at_watermarks():
    """size 4, high 3, low 2.  Three writes (banks 0-2) and a read (bank 3) arrive together:
    3 pending writes >= high -> write mode, w0 at cycle 0, w1 at 1 (2 pending, not < low);
    at 2 one write is pending (< low) -> read mode, bank 2 has no read, the read gets bank 3.
    w2 is then parked: below the high watermark no write is served, and the channel is quiet
    (not busy) with it inside.  Two more writes reach the watermark again."""
    d = _wq_channel("4:3:2")
    s = d.sched
    w = [_fetch(b, 1, True) for b in range(3)]
    r = _fetch(3, 1)
    for f in (*w, r):
        d.push(f, 0)
    got = _grants(d, 0, 120)
    assert got == [(0, w[0]), (1, w[1]), (2, r)]
    assert s.num_write_pending == 1 and not s.write_mode and s.n_mode_switches == 2
    assert d.n_wr == 2 and d.n_rd == 1
    assert d.quiet() and not d.busy() and d.n_in_flight == 1
    assert not d.full(True) and not d.full(False)

    w3, w4 = _fetch(4, 1, True), _fetch(5, 1, True)
    d.push(w3, 120)
    assert _grants(d, 120, 5) == [] and d.quiet()       # 2 pending < high
    d.push(w4, 125)
    got = _grants(d, 125, 60)
    # 3 pending -> write mode.  Banks are scanned from the round-robin pointer, which the last
    # activate (bank 1's, at cycle 6: tRRD after bank 3's at 3) left at 2: w2 first, then w3
    # (2 pending, not < low); then 1 < low: read mode again, and w4 stays parked
    assert got == [(125, w[2]), (126, w3)]
    assert s.num_write_pending == 1 and s.n_mode_switches == 4 and d.n_wr == 4
    assert d.quiet() and not d.busy()


def test_write_queue_full_counts_writes_only():
    d = _wq_channel("2:2:1")
    d.push(_fetch(0, 1, True), 0)
    d.push(_fetch(1, 1, True), 0)
    d.sched.write_high = 3                       # keep both queued for the check
    d.cycle(0)
    assert d.sched.num_write_pending == 2 and d.sched.num_pending == 0
    assert d.full(True) and not d.full(False)


def test_write_queue_off_serves_writes_with_reads(cfg):
    """Default (off): a write is scheduled like a read, in age order per bank."""
    p = DramTimingParams(cfg)
    d = Dram(0, p)
    wr, rd = _fetch(0, 1, True), _fetch(1, 1)
    d.push(wr, 0)
    d.push(rd, 0)
    assert _grants(d, 0, 40) == [(0, wr), (1, rd)]
    assert not d.sched.separate and d.sched.num_write_pending == 0


@pytest.mark.parametrize("parked", [False, True], ids=["timers", "parked_writes"])
def test_bulk_idle_accounting_is_exact(cfg, parked):
    """``drain(n)`` (the memory system's idle skip) and ``idle_cycles`` give the statistics of
    ``n`` real cycles: while constraint timers still run after the last request (they decide
    ``n_activity``) and while writes sit parked in the write queue."""
    def make():
        if parked:
            d = _wq_channel("8:4:2")
            d.push(_fetch(0, 1), 0)
            d.push(_fetch(1, 2, True), 0)
        else:
            d = Dram(0, DramTimingParams(cfg))
            d.push(_fetch(0, 1), 0)
        for t in range(30):           # the read has returned; tRAS/tRC still count down
            d.cycle(t)
            d.return_pop()
        assert not d.busy() and not d.quiet()
        return d
    a, b = make(), make()
    for t in range(30, 230):
        a.cycle(t)
    b.drain(200, 30)
    assert a.channel_stats() == b.channel_stats()
    assert a.quiet() and b.quiet() and a.n_activity > 30 and a.n_in_flight == int(parked)



def test_single_bus_row_command_moves_prio(cfg):
    """The single-bus loop (``-dram_dual_bus_interface 0``) visits banks from ``prio``; a row
    command moves ``prio`` mid-loop, so the rest of that cycle's visits start after the bank
    that issued it.  One read to bank 5 on an idle 16-bank channel: granted at cycle 0 (prio
    0 -> 1), the loop visits banks 1-4 (idle), activates bank 5 (prio -> 6), then visits the
    remaining 11 positions from bank 11: 11-15, 0-4 (idle) and 5 again.  Banks 1-4 count two
    idle visits, 0 and 11-15 one, 5-10 none; every later cycle counts one for each bank
    without the request."""
    p = DramTimingParams(cfg)
    p.dual_bus = False
    d = Dram(0, p)
    d.push(_fetch(5, 1), 0)
    d.cycle(0)
    assert (d.n_act, d.prio) == (1, 6)
    assert [d.bank_idle_cycles(j) for j in range(16)] == [1, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    for t in range(1, 10):
        d.cycle(t)
    assert [d.bank_idle_cycles(j) for j in range(16)] == [10, 11, 11, 11, 11, 0, 9, 9, 9, 9, 9, 10, 10, 10, 10, 10]


def _always_scan(d):
    """Make ``d`` try the issue functions every cycle (no readiness skip)."""
    ready = d._ready

    def no_skip():
        ready()
        d.col_at = d.row_at = 0
    d._ready = no_skip
    return d


@pytest.mark.parametrize("gpu", ["SM7_QV100", "SM86_RTX3070"])
@pytest.mark.parametrize("dual", [True, False], ids=["dual_bus", "single_bus"])
def test_issue_readiness_skip_is_exact(gpu, dual):
    """A cycle before ``col_at`` and ``row_at`` (the first cycles a column / row command could
    issue, from the constraint ends) skips the bank scan: random reads and writes over a few
    rows of every bank give the same command log and statistics as a channel that tries the
    issue functions every cycle."""
    c = load_config(None, gpu=gpu, env=False)
    p = DramTimingParams(c)
    p.dual_bus = dual
    rng = np.random.default_rng(7)
    reqs = [(int(t), int(rng.integers(p.nbk)), int(rng.integers(3)), bool(rng.random() < 0.3))
            for t in np.sort(rng.integers(0, 1500, 400))]
    fast, log_fast = _commands(p, reqs, cycles=3000)
    slow, log_slow = _commands(p, reqs, cycles=3000, make=lambda: _always_scan(Dram(0, p)))
    assert log_fast == log_slow and len(log_fast) > 600
    assert fast.channel_stats() == slow.channel_stats()
    assert fast.n_rd + fast.n_wr == 400 and fast.quiet()

# ---------------------------------------------------------------------------------- bandwidth
def peak_bytes_per_s(cfg) -> float:
    """C175/C253: ``gpgpu_n_mem * busW * n_mem_per_ctrlr * dram_data_command_freq_ratio * f_DRAM``
    (one atom per burst of BL / ratio command cycles).  QV100: 32 * 16 B * 1 * 2 * 850 MHz
    = 870.4 GB/s."""
    p = DramTimingParams(cfg)
    return int(cfg.get("gpgpu_n_mem")) * p.peak_bytes_per_cycle * cfg.get("gpgpu_clock_domains").dram_mhz * 1e6


def test_peak_formula_qv100(cfg):
    assert DramTimingParams(cfg).peak_bytes_per_cycle == 16 * 1 * 2
    assert peak_bytes_per_s(cfg) == 870.4e9


def test_streaming_reads_reach_dram_peak(cfg):
    """1 MB of sequential 128-byte reads (cold L2) from all 80 clusters through the clocked
    memory system (core/icnt/L2 1132 MHz, DRAM 850 MHz).  IPOLY spreads them evenly: each of
    the 32 channels reads 1024 sectors, 64 per bank from one row (16 activates, row-buffer
    locality 63/64).  Measured: 1729 core cycles from the first injection to the last reply,
    1298 DRAM cycles per channel of which 1024 move data: bw_util 0.789 of the peak over the
    whole run (it includes the ~200 DRAM cycles before the first request crosses the ROP and
    DRAM latency queues), dram_eff (data cycles / active cycles) 0.946."""
    n_req = 8192
    ms = MemorySystem(cfg, StatsRegistry(), 80)
    per: list[list[MemFetch]] = [[] for _ in range(80)]
    for i in reversed(range(n_req)):
        f = MemFetch(0xC0000000 + 128 * i, 128, False, "GLOBAL_ACC_R", sector_mask=0xF,
                     cluster_id=i % 80, core_id=i % 80)
        per[i % 80].append(ms.decode(f))
    clock = ClockDomains.from_config(cfg)
    cyc = 0
    for _ in range(100_000):                       # watchdog
        if not any(per) and not ms.busy():
            break
        mask = clock.step()
        if mask & CORE:
            for cl in range(80):
                while ms.pop_reply(cl, cyc) is not None:
                    pass
        ms.step(mask, cyc)
        if mask & CORE:
            for cl in range(80):
                if per[cl] and ms.can_inject(cl, per[cl][-1]):
                    ms.inject(cl, per[cl].pop(), cyc)
            cyc += 1
    else:
        raise AssertionError("stream did not drain")
    ms.publish_stats()
    v = ms.stats.values
    chans = v["dram_channels"]
    assert cyc == 1729
    assert v["total_dram_reads"] == 4 * n_req and v["total_dram_writes"] == 0
    assert [c["n_rd"] for c in chans] == [1024] * 32 and [c["bwutil"] for c in chans] == [1024] * 32
    assert all(c["n_act"] == 16 and c["row_buffer_locality"] == 63 / 64 and c["wasted_row"] == 0 for c in chans)
    assert {c["n_cmd"] for c in chans} == {1298}
    # memlatstat per bank (-gpgpu_memlatency_stat 14): one activate and 64 accesses per bank;
    # no second row miss closes a run, so GPGPU-Sim's "maximum concurrent accesses" stays 0
    assert v["dram_activates_per_bank"] == [[1] * 16] * 32 and v["dram_row_accesses_per_bank"] == [[64] * 16] * 32
    assert v["dram_max_conc_access_per_bank"] == [[0] * 16] * 32
    assert v["dram_accesses_per_bank"] == [[0] * 16] * 32 and v["dq_lat_table"] == [0] * 32
    assert v["mrq_latency_count"] == 4 * n_req and sum(v["mrq_lat_table"]) == 4 * n_req
    # bandwidth: bytes moved / (time * peak) equals the DRAM-side bw_util = bwutil / n_cmd
    t_s = cyc / (cfg.get("gpgpu_clock_domains").core_mhz * 1e6)
    frac = v["total_dram_reads"] * 32 / (t_s * peak_bytes_per_s(cfg))
    util = sum(c["bwutil"] for c in chans) / sum(c["n_cmd"] for c in chans)
    assert util == 1024 / 1298 and abs(frac - util) < 1e-3
    assert 0.75 < util <= 1.0
    eff = sum(c["bwutil"] for c in chans) / sum(c["n_activity"] for c in chans)
    assert 0.9 < eff <= 1.0


STREAM_K = 8
STREAM_PTX = """
.reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<10>;
ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [c];
mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
mad.lo.s32 %r5, %r1, %r2, %r3;
mul.wide.s32 %rd3, %r5, 4;
add.u64 %rd4, %rd1, %rd3; add.u64 %rd5, %rd2, %rd3;
mov.f32 %f0, 0f00000000;
""" + "\n".join(f"ld.global.f32 %f{k + 1}, [%rd4+{k * 4 * 160 * 256}];" for k in range(STREAM_K)) + "\n" + \
    "\n".join(f"add.f32 %f0, %f0, %f{k + 1};" for k in range(STREAM_K)) + """
st.global.f32 [%rd5], %f0;
ret;
"""


@pytest.mark.slow
def test_stream_kernel_dram_bandwidth():
    """A reduced stream.cu on the full SM7_QV100 (80 SMs, 32 channels, cold L2): 160 CTAs of
    256 threads, each thread summing 8 floats 160*256*4 bytes apart (8 independent coalesced
    loads in flight per warp) and storing the sum (1.25 MB read, 160 KB written into the
    write-back L2, which keeps it).  Measured: 2463 cycles, 40960 DRAM reads; 0.692 of the
    870.4 GB/s peak over the whole kernel (launch, warm-up and drain included), dram_eff 0.935.
    Cycle counts depend on the core model, so only the DRAM counts are exact here."""
    n = 160 * 256
    a = np.arange(n * STREAM_K, dtype=np.float32) % 7
    mod = ptx(STREAM_PTX, params=".param .u64 a, .param .u64 c")
    r = run_timing(mod, "k", (160, 1, 1), (256, 1, 1), [("a", a), ("c", np.zeros(n, np.float32))],
                   overrides=["-gpgpu_n_clusters 80"], trace=False)
    np.testing.assert_array_equal(r.out["c"], a.reshape(STREAM_K, n).sum(0))
    c = r.counters
    chans = c["dram_channels"]
    assert c["total_dram_reads"] == n * STREAM_K * 4 // 32 and c["total_dram_writes"] == 0
    assert sum(ch["n_rd"] for ch in chans) == sum(ch["bwutil"] for ch in chans) == n * STREAM_K * 4 // 32
    cfg = r.gpu.config
    t_s = r.cycles / (cfg.get("gpgpu_clock_domains").core_mhz * 1e6)
    frac = c["total_dram_reads"] * 32 / (t_s * peak_bytes_per_s(cfg))
    eff = sum(ch["bwutil"] for ch in chans) / sum(ch["n_activity"] for ch in chans)
    assert 0.5 < frac <= 1.0 and 0.85 < eff <= 1.0, (r.cycles, frac, eff)


def test_write_queue_in_the_memory_system():
    """The small-L2 scenario (dirty lines evicted to DRAM: 47 write-backs, 62 atoms) with the
    separate write queue on (size 4, high 2, low 1): every reply still arrives; a channel
    serves its reads first and drains its writes once 2 wait, so at the end at most one write
    per channel stays parked, which leaves the memory system idle (a cycle would change only
    idle counters)."""
    from . import memory_scenarios as msc

    keep: list = []
    base = msc.run_memory_scenario(12, small_l2=True)
    got = msc.run_memory_scenario(12, small_l2=True, keep=keep,
                                  overrides=("-dram_seperate_write_queue_enable 1", "-dram_write_queue_size 4:2:1"))
    ms = keep[0]
    assert got["n_replies"] == base["n_replies"] == 1798
    assert got["total_dram_writes"] == base["total_dram_writes"] == 62
    scheds = [p.dram.sched for p in ms.partitions]
    parked_atoms = sum(r.nbytes // 32 for s in scheds for q in s.wqueue for r in q)
    issued_atoms = sum(p.dram.n_wr_WB for p in ms.partitions)
    assert issued_atoms + parked_atoms == 62 and issued_atoms > 0
    assert all(s.num_write_pending <= 1 and not s.write_mode for s in scheds)
    assert sum(s.n_mode_switches for s in scheds) > 0
    assert ms.idle() and not ms.busy()


def _derived(d):
    return (d.n_pend, d.n_rw, d.w2r, d.n_grp_rw, sorted(d.col_ready), d.col_all_ready, d.col_at, d.row_at)


@pytest.mark.parametrize("gpu", ["SM7_QV100", "SM86_RTX3070"])
@pytest.mark.parametrize("dual", [True, False], ids=["dual_bus", "single_bus"])
def test_incremental_readiness_on_grant_is_exact(gpu, dual):
    """A grant while nothing else changed since the last readiness derivation updates the
    derived values for the one new bank (``Dram._ready_add``): after every such grant they
    equal the full derivation's (``Dram._ready``), and the command log and statistics equal
    those of a channel that derives everything again after every grant."""
    c = load_config(None, gpu=gpu, env=False)
    p = DramTimingParams(c)
    p.dual_bus = dual
    rng = np.random.default_rng(11)
    reqs = [(int(t), int(rng.integers(p.nbk)), int(rng.integers(3)), bool(rng.random() < 0.3))
            for t in np.sort(rng.integers(0, 1500, 400))]
    n_add = [0]

    def checked():
        d = Dram(0, p)
        add = d._ready_add

        def add_and_compare(b):
            add(b)
            n_add[0] += 1
            inc = _derived(d)
            d._ready()
            assert inc == _derived(d)
        d._ready_add = add_and_compare
        return d

    def plain():
        d = Dram(0, p)
        d._ready_add = lambda b: d._ready()
        return d
    fast, log_fast = _commands(p, reqs, cycles=3000, make=checked)
    slow, log_slow = _commands(p, reqs, cycles=3000, make=plain)
    assert n_add[0] > 20
    assert log_fast == log_slow and len(log_fast) > 600
    assert fast.channel_stats() == slow.channel_stats()
