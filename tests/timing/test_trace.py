"""The event trace and pipeline dumps of the performance model (``gpgpusim.timing.trace``;
C200, C203): GPGPU-Sim's ``-trace_*`` options, our ``-gpgpusim_trace_*`` narrowing and
``-gpgpusim_dump_pipeline``.  Exact trace lines on a one-SM SM7_QV100 (the timelines are those
``test_core.py`` derives), the filters, the dump's content, config errors, and the two
guarantees: tracing changes no cycle or statistic, and with tracing off nothing is installed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from tests.timing.core.test_core import CHAIN, INDEP, VECADD  # noqa: E402
from timing_helpers import ptx, run_timing  # noqa: E402

from gpgpusim.options import ConfigError, load_config  # noqa: E402
from gpgpusim.timing import trace as T  # noqa: E402
from gpgpusim.timing.core.opcoll import OperandCollector  # noqa: E402
from gpgpusim.timing.core.units import PipelinedUnit  # noqa: E402

ISSUE = re.compile(r"GPGPU-Sim Cycle (\d+): WARP_SCHEDULER - Core (\d+) - Scheduler \d+ - "
                   r"Warp \(warp_id (\d+), dynamic_warp_id \d+\) issued: pc=(\d+) ")


def _chain(tmp_path: Path, *opts: str) -> tuple[Any, list[str]]:
    out = tmp_path / "trace.txt"
    r = run_timing(ptx(CHAIN), "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(1, np.float32))],
                   overrides=["-trace_enabled 1", f"-gpgpusim_trace_file {out}", *opts])
    return r, out.read_text().splitlines()


def _vecadd(tmp_path: Path | None, *opts: str) -> tuple[Any, list[str]]:
    n = 16 * 256
    mod = ptx(VECADD, params=".param .u64 a, .param .u64 b, .param .u64 c")
    out = tmp_path / "trace.txt" if tmp_path is not None else None
    extra = [f"-gpgpusim_trace_file {out}"] if out is not None else []
    r = run_timing(mod, "k", (16, 1, 1), (256, 1, 1),
                   [("a", np.arange(n, dtype=np.float32)), ("b", np.ones(n, np.float32)),
                    ("c", np.zeros(n, np.float32))],
                   overrides=["-gpgpu_n_clusters 4", *extra, *opts])
    np.testing.assert_array_equal(r.out["c"], np.arange(n, dtype=np.float32) + 1)
    return r, (out.read_text().splitlines() if out is not None else [])


def _issues(lines: list[str]) -> list[tuple[int, int, int, int]]:
    """(cycle, core, warp, pc) of the trace's issue lines."""
    return [(int(a), int(b), int(c), int(d)) for m in map(ISSUE.match, lines) if m for a, b, c, d in [m.groups()]]


# ------------------------------------------------------------------ event content
def test_first_events_of_a_dependent_chain(tmp_path):
    """The scheduler, scoreboard and execution events of the CHAIN timeline (issue at 2, 3, 8,
    ...; add.f32: collector at t+1, SP at t+3, EX_WB at t+8, writeback and release at t+9)."""
    r, lines = _chain(tmp_path, "-trace_components WARP_SCHEDULER,SCOREBOARD,EXECUTION_UNIT")
    assert lines[:12] == [
        "GPGPU-Sim Cycle 1: WARP_SCHEDULER - Core 0 - Scheduler 0 - no issue: w0 ibuffer_empty",
        "GPGPU-Sim Cycle 2: WARP_SCHEDULER - Core 0 - Scheduler 0 - Warp (warp_id 0, dynamic_warp_id 0) "
        "issued: pc=0 [0x0000] ld.param.u64 %rd1, [p0]; | unit=MEM active=32",
        "GPGPU-Sim Cycle 2: SCOREBOARD - Core 0 - Reserved Register - warp:0, reg: %rd1",
        "GPGPU-Sim Cycle 3: WARP_SCHEDULER - Core 0 - Scheduler 0 - Warp (warp_id 0, dynamic_warp_id 0) "
        "issued: pc=1 [0x0008] mov.f32 %f1, 0f3F800000; | unit=INT active=32",
        "GPGPU-Sim Cycle 3: SCOREBOARD - Core 0 - Reserved Register - warp:0, reg: %f1",
        "GPGPU-Sim Cycle 4: EXECUTION_UNIT - Core 0 - w0@0 enters LD/ST (param, 0 accesses)",
        "GPGPU-Sim Cycle 4: WARP_SCHEDULER - Core 0 - Scheduler 0 - no issue: w0 scoreboard(%f1)",
        "GPGPU-Sim Cycle 5: EXECUTION_UNIT - Core 0 - w0@0 writeback",
        "GPGPU-Sim Cycle 5: SCOREBOARD - Core 0 - Release register - warp:0, reg: %rd1",
        "GPGPU-Sim Cycle 5: EXECUTION_UNIT - Core 0 - w0@1 enters INT[0] (latency 1, initiation 1)",
        "GPGPU-Sim Cycle 7: EXECUTION_UNIT - Core 0 - w0@1 leaves INT[0] to EX_WB",
        "GPGPU-Sim Cycle 8: EXECUTION_UNIT - Core 0 - w0@1 writeback",
    ]
    # the first add.f32 (pc 2), issued at 8, after the mov's release in the same cycle
    i = lines.index("GPGPU-Sim Cycle 8: SCOREBOARD - Core 0 - Release register - warp:0, reg: %f1")
    assert lines[i + 1].startswith("GPGPU-Sim Cycle 8: WARP_SCHEDULER - Core 0 - Scheduler 0 - Warp (warp_id 0, "
                                   "dynamic_warp_id 0) issued: pc=2 [0x0010] add.f32 %f2, %f1, %f1;")
    assert "GPGPU-Sim Cycle 11: EXECUTION_UNIT - Core 0 - w0@2 enters SP[0] (latency 4, initiation 2)" in lines
    assert "GPGPU-Sim Cycle 16: EXECUTION_UNIT - Core 0 - w0@2 leaves SP[0] to EX_WB" in lines
    assert "GPGPU-Sim Cycle 17: SCOREBOARD - Core 0 - Release register - warp:0, reg: %f2" in lines
    # every issue equals the core's own issue hook
    assert [(c, w, p) for c, _s, w, p in _issues(lines)] == r.issues()


def test_other_stages_of_one_store(tmp_path):
    """Fetch, operand collector, LD/ST, interconnect and L2 events of CHAIN's store (pc 7)."""
    _r, lines = _chain(tmp_path, "-trace_components ALL")
    assert "GPGPU-Sim Cycle 1: FETCH - Core 0 - w0 ibuffer filled: pc=0,1" in lines
    assert "GPGPU-Sim Cycle 1: LIVENESS - Core 0 - CTA 0 of kernel 1 'k' issued (warps 0..0)" in lines
    assert "GPGPU-Sim Cycle 9: OPERAND_COLLECTOR - Core 0 - cu0 allocated to w0@2 (1 operands to read)" in lines
    assert "GPGPU-Sim Cycle 10: OPERAND_COLLECTOR - Core 0 - cu0 dispatched w0@2 to OC_EX_SP" in lines
    uid = re.search(r"L1D_0 access mf (\d+) ", "\n".join(lines)).group(1)    # (uids count per process)
    store = [ln for ln in lines if f"mf {uid} " in ln]
    mf = f"mf {uid} GLOBAL_ACC_W 0xc0000000 core0 w0"
    assert [re.sub(r"^GPGPU-Sim Cycle \d+: ", "", ln) for ln in store] == [
        f"LDST_UNIT - Core 0 - L1D_0 access {mf} -> MISS",
        f"LDST_UNIT - Core 0 - sent to icnt {mf}",
        f"INTERCONNECT - Cluster 0 - push request {mf} cluster 0 -> sub partition 28",
        f"INTERCONNECT - Sub Partition 28 - pop request {mf} at sub partition 28",
        f"MEMORY_SUBPARTITION_UNIT - Sub Partition 28 - arrived {mf}",
        f"MEMORY_SUBPARTITION_UNIT - Sub Partition 28 - {mf} -> icnt->L2 queue",
        f"MEMORY_SUBPARTITION_UNIT - Sub Partition 28 - Probing L2 cache Address=0xc0000000, status=MISS {mf}",
        f"MEMORY_SUBPARTITION_UNIT - Sub Partition 28 - {mf} -> L2->icnt queue",
        f"INTERCONNECT - Sub Partition 28 - push reply {mf} sub partition 28 -> cluster 0",
        f"INTERCONNECT - Cluster 0 - pop reply {mf} at cluster 0",
        f"LDST_UNIT - Core 0 - reply {mf}",
    ]
    # the ROP delay between arrival and the icnt->L2 queue (-gpgpu_l2_rop_latency)
    cyc = [int(ln.split()[2].rstrip(":")) for ln in store]
    assert cyc[5] - cyc[4] == int(_r.gpu.config.get("gpgpu_l2_rop_latency"))
    assert lines[-3:] == ["GPGPU-Sim Cycle 244: LIVENESS - Core 0 - CTA 0 of kernel 1 'k' finished",
                          "GPGPU-Sim Cycle 244: LIVENESS - Core 0 - GPU detected kernel 1 'k' finished on shader 0.",
                          "GPGPU-Sim Cycle 244: FETCH - Core 0 - w0 exits"]


def test_dram_events_of_loads(tmp_path):
    """A load that misses in L2 goes to DRAM: L2->DRAM queue, the partition's latency queue,
    the channel (request in, read command, reply out), back to the sub-partition, L2 fill,
    reply queued for the interconnect."""
    _r, lines = _vecadd(tmp_path, "-trace_enabled 1", "-trace_sampling_core -1",
                        "-trace_components MEMORY_PARTITION_UNIT,DRAM,MEMORY_SUBPARTITION_UNIT")
    first = next(ln for ln in lines if "Issue mem_fetch request" in ln)
    uid = re.search(r"mf (\d+) ", first).group(1)
    ev = [ln.split(": ", 1)[1] for ln in lines if f"mf {uid} " in ln]
    norm = [re.sub(r"\b\d+\b", "N", re.sub(r"0x[0-9a-f]+", "A", re.sub(
        r"mf \d+ GLOBAL_ACC_R 0x[0-9a-f]+ core\d+ w\d+", "MF", e))) for e in ev]
    assert norm == [
        "MEMORY_SUBPARTITION_UNIT - Sub Partition N - arrived MF",
        "MEMORY_SUBPARTITION_UNIT - Sub Partition N - MF -> icnt->L2 queue",
        "MEMORY_SUBPARTITION_UNIT - Sub Partition N - Probing L2 cache Address=A, status=MISS MF",
        "MEMORY_SUBPARTITION_UNIT - Sub Partition N - MF -> L2->DRAM queue",
        "MEMORY_PARTITION_UNIT - Partition N - Issue mem_fetch request MF from sub partition N to dram (ready at N)",
        "DRAM - DRAM N - request in MF bank N row N",
        "DRAM - DRAM N - RD bank N row N col N MF",
        "DRAM - DRAM N - reply out MF",
        "MEMORY_PARTITION_UNIT - Partition N - mem_fetch request MF return from dram to sub partition N",
        "MEMORY_SUBPARTITION_UNIT - Sub Partition N - L2 fill MF",
        "MEMORY_SUBPARTITION_UNIT - Sub Partition N - MF -> L2->icnt queue",
    ]
    # one channel, one sub-partition of it, throughout
    part = {re.search(r"(?:Partition|DRAM) (\d+)", e).group(1) for e in ev if not e.startswith("MEMORY_SUB")}
    subs = {re.search(r"Sub Partition (\d+)", e).group(1) for e in ev if e.startswith("MEMORY_SUB")}
    assert len(part) == 1 and len(subs) == 1 and int(subs.pop()) // 2 == int(part.pop())
    assert any(re.fullmatch(r"DRAM - DRAM \d+ - ACT bank \d+ row \d+", ln.split(": ", 1)[1]) for ln in lines)


# ------------------------------------------------------------------ filters
def test_sampling_core_limits_core_events_to_one_sm(tmp_path):
    r, lines = _vecadd(tmp_path, "-trace_enabled 1", "-trace_sampling_core 2",
                       "-trace_components WARP_SCHEDULER,SCOREBOARD,LDST_UNIT,INTERCONNECT")
    assert lines and all(" - Core 2 - " in ln or "INTERCONNECT" in ln for ln in lines)
    assert all(" core2 " in ln for ln in lines if "INTERCONNECT" in ln)
    assert [(c, w, p) for c, s, w, p in _issues(lines)] == r.issues(2)
    _r2, every = _vecadd(tmp_path, "-trace_enabled 1", "-trace_sampling_core -1",
                         "-trace_components WARP_SCHEDULER")
    assert {s for _c, s, _w, _p in _issues(every)} == {0, 1, 2, 3}
    # GPGPU-Sim's default: core 0 only
    _r3, default = _vecadd(tmp_path, "-trace_enabled 1", "-trace_components WARP_SCHEDULER")
    assert {s for _c, s, _w, _p in _issues(default)} == {0}


def test_sampling_memory_partition(tmp_path):
    """Sub-partition events match by sub-partition id (GPGPU-Sim's MEM_SUBPART_DTRACE),
    partition and DRAM events by channel."""
    _r, lines = _vecadd(tmp_path, "-trace_enabled 1", "-trace_sampling_core -1", "-trace_sampling_memory_partition 3",
                        "-trace_components MEMORY_SUBPARTITION_UNIT,MEMORY_PARTITION_UNIT,DRAM")
    where = {ln.split(" - ")[1] for ln in lines}
    assert where == {"Sub Partition 3", "Partition 3", "DRAM 3"}
    _r, every = _vecadd(tmp_path, "-trace_enabled 1", "-trace_sampling_core -1",
                        "-trace_components MEMORY_SUBPARTITION_UNIT")
    assert len({ln.split(" - ")[1] for ln in every}) == 64      # 32 channels x 2 sub-partitions


def test_warp_and_cycle_window(tmp_path):
    opts = ("-trace_components WARP_SCHEDULER,SCOREBOARD", "-gpgpusim_trace_warp 1",
            "-gpgpusim_trace_cycles 8:12")
    out = tmp_path / "t.txt"
    r = run_timing(ptx(INDEP, params=""), "k", (1, 1, 1), (64, 1, 1),
                   overrides=["-gpgpu_num_sched_per_core 1", "-gpgpu_scheduler lrr", "-trace_enabled 1",
                              f"-gpgpusim_trace_file {out}", *opts])
    lines = out.read_text().splitlines()
    want = [(c, w, p) for c, w, p in r.issues() if w == 1 and 8 <= c <= 12]
    assert want and [(c, w, p) for c, _s, w, p in _issues(lines)] == want
    assert all("warp:1," in ln for ln in lines if "SCOREBOARD" in ln)
    assert all(8 <= int(ln.split()[2].rstrip(":")) <= 12 for ln in lines)


def test_kernel_filter(tmp_path):
    _r, lines = _chain(tmp_path, "-trace_components ALL", "-gpgpusim_trace_kernel 2")
    assert lines == []                      # the only launch is number 1
    for sel in ("1", "k", "7,k"):
        _r, lines = _chain(tmp_path, "-trace_components WARP_SCHEDULER", f"-gpgpusim_trace_kernel {sel}")
        assert len(_issues(lines)) == 9
    assert T.bare_name("_Z6vecAddPKfS0_Pfi") == "vecAdd" and T.bare_name("k") == "k"


# ------------------------------------------------------------------ pipeline dumps
def test_pipeline_dump_at_a_cycle(tmp_path):
    """After cycle 20 of CHAIN: pc 3 (add %f3) was issued at 17 and waits its initiation
    interval in SP[0]'s dispatch register; %f3 is reserved; the I-buffer holds pcs 4 and 5."""
    _r, lines = _chain(tmp_path, "-trace_enabled 0", "-gpgpusim_dump_pipeline 20")
    text = "\n".join(lines)
    assert text.startswith("Dumping pipeline state at cycle 20 ")
    assert "shader 0 after core cycle 20 (1 warps running)" in lines
    assert "  w00 cta0 dyn 0 sched 0 feed pc 4 next_pc 4 ibuf [4, 5] in_pipe 3 bar -1 membar False stores 0 " \
           "atomics 0 pending [3]" in lines
    sb = lines.index("-------------------------- Scoreboard")
    assert lines[sb + 1] == "  w00: %f3"
    assert "  SP[0] dispatch=w0@3 (2 cycles left) pipeline=[] writeback slots taken in [4] cycles" in lines
    assert "  EX/WB result buses reserved (cycle: buses) {24: 1}" in lines
    assert "  ID_OC_SP[-, -, -, -]" in lines and "  EX_WB[-, -, -, -, -, -, -, -]" in lines
    assert any(ln.startswith("idle memory partitions") for ln in lines)
    assert text.count("Dumping pipeline state") == 1


def test_pipeline_dump_repeats_and_picks_an_sm(tmp_path):
    """``+EVERY`` repeats (idle skipping stops at each point); ``:SM`` picks the SM; the
    memory dump shows the store waiting in the ROP delay of its sub-partition."""
    _r, lines = _chain(tmp_path, "-gpgpusim_dump_pipeline 50+100:0")
    heads = [ln for ln in lines if ln.startswith("Dumping pipeline state")]
    assert [h.split()[5] for h in heads] == ["50", "150"]        # the kernel ends at 244
    assert "Memory Sub Partition 28: tracker=1 rop=1 icnt_L2=0 L2_dram=0 dram_L2=0 L2_icnt=0" in lines
    r, lines = _vecadd(tmp_path, "-gpgpusim_dump_pipeline 300:2,400")
    heads = [i for i, ln in enumerate(lines) if ln.startswith("Dumping pipeline state")]
    shaders = [ln.split()[1] for ln in lines if ln.startswith("shader ")]
    assert len(heads) == 2 and shaders == ["2", "0", "1", "2", "3"]
    assert r.cycles > 400


def test_dump_pipeline_reads_only(tmp_path):
    a, _ = _vecadd(None)
    b, lines = _vecadd(tmp_path, "-gpgpusim_dump_pipeline 1+37")
    assert sum(ln.startswith("Dumping pipeline") for ln in lines) == (b.cycles - 1 - 1) // 37 + 1
    assert (a.cycles, a.counters) == (b.cycles, b.counters)


# ------------------------------------------------------------------ the guarantees
def test_tracing_changes_no_cycle_or_statistic(tmp_path):
    base, _ = _vecadd(None)
    traced, lines = _vecadd(tmp_path, "-trace_enabled 1", "-trace_components ALL", "-trace_sampling_core -1",
                            "-gpgpusim_dump_pipeline 100+211")
    assert len(lines) > 10_000
    assert base.cycles == traced.cycles
    assert base.counters == traced.counters
    assert [c.trace for c in base.gpu.cores] == [c.trace for c in traced.gpu.cores]


def test_nothing_is_installed_when_off():
    r, _ = _vecadd(None, "-trace_components ALL")         # listed, but -trace_enabled 0
    g = r.gpu
    assert getattr(g, "tracer", None) is None and type(g.sampling).__name__ == "GpuSampler"
    for core in g.cores:
        assert not {"_issue_warp", "_issue", "complete", "release_reg", "_decode"} & vars(core).keys()
        assert type(core.opcoll) is OperandCollector
        assert all(type(u) is PipelinedUnit for u in core.units)
        assert "access" not in vars(core.ldst.l1d) and "issue" not in vars(core.ldst)
    assert "push" not in vars(g.mem.icnt)
    assert all("dram_cycle" not in vars(p) and "push" not in vars(p.dram) for p in g.mem.partitions)


@pytest.mark.parametrize(("opt", "message"), [
    ("-trace_components WARP_SCHEDULER,WARP_SCHEDULR",
     "-trace_components: unknown trace component 'WARP_SCHEDULR'; valid: ALL, WARP_SCHEDULER, SCOREBOARD,"),
    ("-gpgpusim_dump_pipeline 100:x", "-gpgpusim_dump_pipeline: bad pipeline dump '100:x'; expected CYCLE[+EVERY][:SM]"),
    ("-gpgpusim_dump_pipeline 100+0", "-gpgpusim_dump_pipeline: bad pipeline dump '100+0': EVERY must be at least 1"),
    ("-gpgpusim_trace_cycles 20:10", "-gpgpusim_trace_cycles: bad cycle window '20:10': END before START"),
])
def test_bad_options_are_one_line_config_errors(opt, message):
    with pytest.raises(ConfigError) as e:
        load_config(None, overrides=["-trace_enabled 1", opt], env=False)
    assert message in str(e.value) and "\n" not in str(e.value)
    # an unknown component is accepted while tracing is off (GPGPU-Sim never reads the list then)
    if "components" in opt:
        load_config(None, overrides=[opt], env=False)
