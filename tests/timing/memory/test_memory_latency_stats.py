"""GPGPU-Sim's memory latency statistics (``memory_stats_t``, C182, C190) from the timing model:
``mf_lat_table``, ``icnt2mem_lat_table``, ``icnt2sh_lat_table``, ``mf_lat_pw_table``, the
averages printed with them and the DRAM ``maximum service time to same row``
(gpgpusim.timing.memory.MemorySystem.read_done / lat_pw / update_stats, dram_sched.FrfcfsScheduler).

The kernel: 2 CTAs of 64 threads on one SM7_QV100 SM (timing_helpers.SMALL), each thread
loading a word of a cold buffer and storing it 512 bytes further on: 8 read sectors (the
second CTA's loads merge in the L1 MSHRs) and 16 written sectors, so 24 data replies.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1]))

from timing_helpers import ptx, run_timing  # noqa: E402

from gpgpusim.report import Reporter  # noqa: E402
from gpgpusim.report.data import KernelStats  # noqa: E402
from gpgpusim.timing.mem_fetch import MemFetch  # noqa: E402
from gpgpusim.timing.memory import MemorySystem  # noqa: E402
from gpgpusim.timing.memory.dram_parts import DramReq  # noqa: E402
from gpgpusim.timing.memory.dram_sched import FrfcfsScheduler  # noqa: E402

BODY = """
.reg .b32 %r<8>; .reg .b64 %rd<8>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd4, %r1, 4; add.s64 %rd6, %rd1, %rd4;
ld.global.u32 %r2, [%rd6];
add.s32 %r4, %r2, 1;
st.global.u32 [%rd6+512], %r4;
ret;
"""

TABLES = ("mf_lat_table", "icnt2mem_lat_table", "icnt2sh_lat_table", "mf_lat_pw_table")


def _bin(v: int) -> int:
    return v.bit_length() - 1 if v > 0 else 0


def _run(overrides=(), monkeypatch=None):
    """Run the kernel; with ``monkeypatch``, also return every ``read_done`` call as
    (is_write, creation cycle, reply network push cycle, accept cycle)."""
    done: list[tuple[bool, int, int, int]] = []
    if monkeypatch is not None:
        orig = MemorySystem.read_done

        def spy(self, fetch, now):
            done.append((fetch.is_write, fetch.timestamp, fetch.return_timestamp, now))
            orig(self, fetch, now)
        monkeypatch.setattr(MemorySystem, "read_done", spy)
    a = np.arange(256, dtype=np.uint32)
    r = run_timing(ptx(BODY), "k", (2, 1, 1), (64, 1, 1), [("a", a)], overrides=list(overrides))
    np.testing.assert_array_equal(r.out["a"][128:192], a[:64] + 1)
    return r, done


def test_every_data_reply_counts_once_with_gpgpusim_bins(monkeypatch):
    """``memlatstat_read_done`` runs for every data reply the cluster hands its core (write
    acknowledgements too, as in GPGPU-Sim 4.2's ``simt_core_cluster::icnt_cycle``) and
    ``memlatstat_icnt2mem_pop`` for every request leaving the request network; each table sums
    to the 24 requests.  Exact bins: reads take 326-344 cycles (a DRAM access: bin 8,
    256-511), writes 187-193 (the write-back L2 acknowledges them: bin 7); requests reach
    their sub-partition 26 cycles after injection on average, at most 29 (bin 4, 16-31)."""
    r, done = _run(monkeypatch=monkeypatch)
    c = r.counters
    n = c["gpgpu_n_mem_read_global"] + c["gpgpu_n_mem_write_global"]
    assert (c["gpgpu_n_mem_read_global"], n, len(done)) == (8, 24, 24)
    assert sum(1 for w, *_ in done if w) == 16
    for t in TABLES[:3]:
        assert sum(c[t]) == n, t
    assert c["mf_lat_table"][7:9] == [16, 8] and sum(c["mf_lat_table"][7:9]) == n
    assert c["icnt2mem_lat_table"][4] == n
    # the tables are the log2 histograms of the spied latencies
    mf = [now - ts for _w, ts, _rt, now in done]
    sh = [now - rt for _w, _ts, rt, now in done]
    assert c["mf_lat_table"] == [sum(1 for x in mf if _bin(x) == b) for b in range(32)]
    assert c["icnt2sh_lat_table"] == [sum(1 for x in sh if _bin(x) == b) for b in range(24)]
    assert (c["maxmflatency"], c["max_icnt2sh_latency"]) == (max(mf), max(sh)) == (344, 2)
    assert c["icnt2sh_latency_sum"] == sum(sh)
    assert c["max_icnt2mem_latency"] == 29 and c["icnt2mem_latency_sum"] == 624


def test_icnt2sh_latency_runs_from_reply_push_to_core_accept(monkeypatch):
    """``icnt2sh`` starts when the sub-partition pushes the reply into the reply network
    (``set_return_timestamp``, every reply) and ends when the core takes it from the cluster's
    response FIFO (``memlatstat_read_done``): pushed in cycle t, ejected into the FIFO at t+1,
    accepted at t+2.  Nothing contends here, so every reply takes exactly 2 cycles (bin 1)."""
    r, done = _run(monkeypatch=monkeypatch)
    assert {now - rt for _w, _ts, rt, now in done} == {2}
    assert r.counters["icnt2sh_lat_table"] == [0, 24] + [0] * 22


def test_sampling_windows_and_the_averages_they_feed(monkeypatch):
    """``memlatstat_lat_pw`` closes a window every ``-gpgpu_runtime_stat`` cycles of the kernel
    (``gpu_sim_cycle % freq == 0``) and at ``update_stats``, after the kernel's statistics were
    taken.  A window with completed fetches adds one to the bin of its mean latency (integer
    division) and its fetches to ``num_mfs``, the divisor of all three printed averages; an
    empty window adds nothing.  A fetch accepted in cycle c is in window c // freq."""
    freq = 10
    r, done = _run([f"-gpgpu_runtime_stat {freq}"], monkeypatch)
    c = r.counters
    end = r.gpu.gpu_tot_sim_cycle          # one kernel from cycle 0: its gpu_sim_cycle at the end
    assert end == r.cycles == 585
    windows: dict[int, list[int]] = {}
    for _w, ts, _rt, now in done:
        windows.setdefault(now // freq, []).append(now - ts)
    closed = {k: v for k, v in windows.items() if (k + 1) * freq <= end}
    assert sorted(windows) == [35, 36, 37, 56, 57, 58] and sorted(closed) == [35, 36, 37, 56, 57]
    expect = [0] * 32
    for lats in closed.values():
        expect[_bin(sum(lats) // len(lats))] += 1
    assert c["mf_lat_pw_table"] == expect and sum(expect) == 5
    n = sum(len(v) for v in closed.values())
    assert c["mf_latency_count"] == n == 19
    assert c["mf_latency_sum"] == sum(sum(v) for v in closed.values())
    # printed averages: integer division by the closed windows' fetches
    lines = _report_lines(r)
    assert f"averagemflatency = {c['mf_latency_sum'] // n} " in lines
    assert f"avg_icnt2mem_latency = {c['icnt2mem_latency_sum'] // n} " in lines
    assert f"avg_icnt2sh_latency = {c['icnt2sh_latency_sum'] // n} " in lines
    # update_stats closed the last, partial window after the statistics were taken, and the
    # DRAM schedulers now measure gpu_sim_cycle from the new gpu_tot_sim_cycle
    mem = r.gpu.mem
    last = windows[58]
    assert mem.num_mfs == 24 and mem.mf_total_lat == c["mf_latency_sum"] + sum(last)
    assert sum(mem.mf_lat_pw_table) == 6 and mem.mf_num_lat_pw == 0
    assert mem.cycle_base == [end]


def test_default_window_and_the_report_lines(monkeypatch):
    """With SM7_QV100's ``-gpgpu_runtime_stat 500`` the kernel's only closed window holds the
    8 reads (mean 334: bin 8); the report prints the tables after ``dq_lat_table`` in
    ``memlatstat_print``'s format (``name:`` then ``"%d \\t"`` per bin), then the per-bank
    ``maximum service time to same row`` rows after the concurrent-accesses ones."""
    r, _ = _run(monkeypatch=monkeypatch)
    c = r.counters
    assert c["mf_lat_pw_table"] == [0] * 8 + [1] + [0] * 23
    assert (c["mf_latency_count"], c["mf_latency_sum"]) == (8, 2679)
    lines = _report_lines(r)
    i = lines.index("dq_lat_table:" + "0 \t" * 32)
    assert lines[i + 1:i + 5] == [
        "mf_lat_table:" + "0 \t" * 7 + "16 \t8 \t" + "0 \t" * 23,
        "icnt2mem_lat_table:" + "0 \t" * 4 + "24 \t" + "0 \t" * 19,
        "icnt2sh_lat_table:0 \t24 \t" + "0 \t" * 22,
        "mf_lat_pw_table:" + "0 \t" * 8 + "1 \t" + "0 \t" * 23]
    assert lines[i + 5] == "maximum concurrent accesses to same row:"
    j = lines.index("maximum service time to same row:")
    n_mem = len(r.gpu.mem.partitions)
    assert j == i + 6 + n_mem
    assert all(ln.startswith(f"dram[{k}]:") for k, ln in enumerate(lines[j + 1:j + 1 + n_mem]))
    assert lines[j + 1 + n_mem] == "average row accesses per activate:"
    svc = c["dram_max_service_time_per_bank"]
    assert lines[j + 1] == "dram[0]:" + "".join(f"{x:10d}" for x in svc[0]) + " "
    # the cold loads opened rows: the first row miss of a bank in the kernel counts from
    # cycle 0 (GPGPU-Sim's row_service_timestamp starts at 0)
    assert max(map(max, svc)) > 0


def test_without_memlatency_stat_nothing_is_recorded(monkeypatch):
    """``-gpgpu_memlatency_stat 0``: GPGPU-Sim records none of it and ``memlatstat_print``
    prints none of it."""
    r, done = _run(["-gpgpu_memlatency_stat 0"], monkeypatch)
    assert done == []
    c = r.counters
    for name in TABLES + ("maxmflatency", "max_icnt2mem_latency", "max_icnt2sh_latency", "mf_latency_count",
                          "dram_max_service_time_per_bank"):
        assert name not in c, name
    lines = _report_lines(r)
    assert not [ln for ln in lines if "lat_table" in ln or "latency =" in ln or "same row" in ln]


def _report_lines(r) -> list[str]:
    lines: list[str] = []
    rep = Reporter(r.gpu.config, lines.append, clock=lambda: 1.0)
    rep.kernel_end(KernelStats("k", 1, (2, 1, 1), (64, 1, 1), 0, thread_insn=1, warp_insn=1, ctas=2,
                               cycles=r.cycles, counters=r.counters))
    return lines


# ----------------------------------------------------------------------------- DRAM row service time
def _req(bank: int, row: int, now: int) -> DramReq:
    f = MemFetch(0, 32, False, "GLOBAL_ACC_R")
    f.bank, f.row = bank, row
    return DramReq(f, bank, now)


def test_row_service_time_is_kernel_relative():
    """``frfcfs_scheduler::data_collection`` at each row miss: the time since the bank's
    previous row miss, in ``gpu_sim_cycle`` (``now`` minus ``cycle_base``, the
    gpu_tot_sim_cycle the memory system shares); the timestamps start at 0 and survive a
    kernel boundary, where a mark at a later ``gpu_sim_cycle`` than now counts nothing."""
    s = FrfcfsScheduler(2)
    base = s.cycle_base = [0]
    for now, row in ((40, 1), (100, 2), (130, 3)):
        s.add(_req(0, row, now))
        assert s.schedule(0, -1, now).row == row
    assert s.max_service_time == [60, 0] and s.row_service_ts == [130, 0]
    base[0] = 1000                       # a new kernel on an idle GPU: gpu_sim_cycle restarts
    s.add(_req(0, 4, 1050))
    s.schedule(0, -1, 1050)             # gpu_sim_cycle 50 < mark 130: nothing
    assert s.max_service_time[0] == 60 and s.row_service_ts[0] == 50
    s.add(_req(0, 5, 1200))
    s.schedule(0, -1, 1200)             # 200 - 50
    assert s.max_service_time[0] == 150
    # a row hit (the open row has requests) is no row miss: nothing changes
    s.add(_req(0, 5, 1300))
    s.schedule(0, 5, 1300)
    assert s.row_service_ts[0] == 200 and s.num_activates[0] == 5


def test_memory_system_shares_the_cycle_base():
    """Every channel's scheduler reads the memory system's gpu_tot_sim_cycle, which
    ``update_stats`` sets."""
    from gpgpusim.options import load_config
    from gpgpusim.report.stats import StatsRegistry
    ms = MemorySystem(load_config(None, env=False), StatsRegistry(), 80)
    ms.update_stats(1234)
    assert {id(p.dram.sched.cycle_base) for p in ms.partitions} == {id(ms.cycle_base)}
    assert ms.cycle_base == [1234]
