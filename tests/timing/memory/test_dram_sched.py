"""DRAM schedulers (``gpgpusim/timing/memory/dram_sched/``): the registry against the
configuration check, what each scheduler declares, and the exact command order each gives one
bank's requests.

Parameters are SM7_QV100's (see ``test_dram``): tRCD=12 tRAS=28 tRP=12 tRC=40 tCCDL=2."""

from __future__ import annotations

import numpy as np
import pytest

from gpgpusim.options import load_config
from gpgpusim.options.config import DRAM_SCHEDULERS, ConfigError
from gpgpusim.timing.mem_fetch import MemFetch
from gpgpusim.timing.memory.dram import Dram
from gpgpusim.timing.memory.dram_parts import DramTimingParams
from gpgpusim.timing.memory.dram_sched import REGISTRY, FifoScheduler, FrfcfsScheduler, make_scheduler

from ..timing_helpers import ptx, run_timing

_KIND = ("ACT", "PRE", "RD", "WR")


@pytest.fixture(scope="module")
def cfg():
    return load_config(None, env=False)


def test_every_dram_scheduler_the_config_accepts_is_registered(cfg):
    p = DramTimingParams(cfg)
    assert {v: REGISTRY[v](p).name for v in REGISTRY} == DRAM_SCHEDULERS


@pytest.mark.parametrize(("value", "cls", "bank_stats"), [(0, FifoScheduler, False), (1, FrfcfsScheduler, True)])
def test_schedulers_declare_what_the_channel_may_assume(cfg, value, cls, bank_stats):
    p = DramTimingParams(cfg)
    s = make_scheduler(value, p)
    assert type(s) is cls and s.bank_stats == bank_stats and not s.separate and not s.parked()
    p.scheduler = value
    assert type(Dram(0, p).sched) is cls


def test_unknown_dram_scheduler_names_the_option(cfg):
    with pytest.raises(ValueError, match=r"-gpgpu_dram_scheduler 2: unknown DRAM scheduler \(known: 0 \(FIFO\), "
                                         r"1 \(FR-FCFS\)\)"):
        make_scheduler(2, DramTimingParams(cfg))
    with pytest.raises(ConfigError, match=r"-gpgpu_dram_scheduler 7 is not supported"):
        load_config(None, overrides=["-gpgpu_dram_scheduler 7"], env=False)


def _run(cfg, scheduler, reqs, cycles):
    """Run one channel under ``-gpgpu_dram_scheduler scheduler``; ``reqs`` = [(bank, row)] reads,
    pushed in order whenever :meth:`Dram.full` allows.  Returns the channel, the cycle each
    request was pushed and the command log [(cycle, ACT|PRE|RD, bank, row)] (the row of the
    bank's request)."""
    p = DramTimingParams(cfg)
    p.scheduler = scheduler
    d = Dram(0, p)
    log = []
    now = [0]

    def traced(fn):
        def issue(j):
            req = d.banks[j].mrq
            before = (d.n_act, d.n_pre, d.n_rd, d.n_wr)
            ok = fn(j)
            if ok:
                after = (d.n_act, d.n_pre, d.n_rd, d.n_wr)
                kind = next(k for k, a, b in zip(_KIND, after, before, strict=True) if a != b)
                log.append((now[0], kind, j, req.row))
            return ok
        return issue

    d._issue_col = traced(d._issue_col)
    d._issue_row = traced(d._issue_row)
    pending = list(reqs)
    pushed = []
    for t in range(cycles):
        now[0] = t
        while pending and not d.full(False):
            bank, row = pending.pop(0)
            f = MemFetch(0, 32, False, "GLOBAL_ACC_R")
            f.bank, f.row, f.sub_partition = bank, row, 0
            d.push(f, t)
            pushed.append(t)
        d.cycle(t)
        while d.return_pop() is not None:
            pass
    return d, pushed, log


# bank 0: A to row 1, B to row 2, C to row 1
_ABC = [(0, 1), (0, 2), (0, 1)]


def test_frfcfs_serves_the_open_row_first(cfg):
    """A opens row 1 (ACT 0, RD 12 = tRCD).  C, behind B, hits the open row: it takes the bank
    at 13 (RD 14, tCCDL); B's row 2 needs PRE at 28 (tRAS) and ACT at 40 (tRC), RD 52."""
    d, pushed, log = _run(cfg, 1, _ABC, 100)
    assert pushed == [0, 0, 0]                  # the FR-FCFS queue takes all three at once
    assert log == [(0, "ACT", 0, 1), (12, "RD", 0, 1), (14, "RD", 0, 1), (28, "PRE", 0, 2), (40, "ACT", 0, 2),
                   (52, "RD", 0, 2)]
    ch = d.channel_stats()
    assert (ch["n_act"], ch["n_pre"], ch["n_rd"]) == (2, 1, 3)
    assert ch["mrqq_max"] == 2
    # queueing latency: A 0, C 13, B 15 cycles
    assert (d.mrq_lat_sum, d.mrq_lat_num, d.mrq_lat_max) == (28, 3, 15)


def test_fifo_serves_in_arrival_order(cfg):
    """The same requests in arrival order: B (row 2) after A costs PRE 28, ACT 40, RD 52; C
    (row 1 again) PRE 68 (tRAS after ACT 40), ACT 80 (tRP, tRC), RD 92.  The 2-entry input queue
    takes C only once A has left it for the bank (cycle 1); FIFO records no queueing latency
    and no row-buffer statistics."""
    d, pushed, log = _run(cfg, 0, _ABC, 100)
    assert pushed == [0, 0, 1]
    assert log == [(0, "ACT", 0, 1), (12, "RD", 0, 1), (28, "PRE", 0, 2), (40, "ACT", 0, 2), (52, "RD", 0, 2),
                   (68, "PRE", 0, 1), (80, "ACT", 0, 1), (92, "RD", 0, 1)]
    ch = d.channel_stats()
    assert (ch["n_act"], ch["n_pre"], ch["n_rd"]) == (3, 2, 3)
    assert ch["row_buffer_locality"] is None
    assert ch["mrqq_max"] == 2
    assert (d.mrq_lat_sum, d.mrq_lat_num, d.mrq_lat_max) == (0, 0, 0)


# c[i] = a[i] + a[i + n], n = 2048 threads
_SUM2 = """
.reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<4>;
ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [c];
mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
mad.lo.s32 %r5, %r1, %r2, %r3;
mul.wide.s32 %rd3, %r5, 4;
add.u64 %rd4, %rd1, %rd3; add.u64 %rd5, %rd2, %rd3;
ld.global.f32 %f1, [%rd4]; ld.global.f32 %f2, [%rd4+8192];
add.f32 %f0, %f1, %f2;
st.global.f32 [%rd5], %f0;
ret;
"""


@pytest.mark.parametrize("scheduler", [0, 1])
def test_each_scheduler_runs_a_kernel(scheduler):
    """2048 threads on 4 SMs, each adding two floats 8 KB apart, under each scheduler: the same
    result and DRAM reads; the per-bank row statistics are reported only under FR-FCFS."""
    n = 2048
    a = np.arange(2 * n, dtype=np.float32) % 7
    mod = ptx(_SUM2, params=".param .u64 a, .param .u64 c")
    r = run_timing(mod, "k", (8, 1, 1), (256, 1, 1), [("a", a), ("c", np.zeros(n, np.float32))],
                   overrides=["-gpgpu_n_clusters 4", f"-gpgpu_dram_scheduler {scheduler}"], trace=False)
    np.testing.assert_array_equal(r.out["c"], a[:n] + a[n:])
    c = r.counters
    assert c["total_dram_reads"] == 2 * n * 4 // 32
    assert ("dram_row_accesses_per_bank" in c) == (scheduler == 1)
