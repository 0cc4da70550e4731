"""Periodic samples of the performance model (GPGPU-Sim's ``gpu_stat_sample_freq`` sampling in
``gpgpu_sim::cycle`` and ``visualizer_printstat``; checklist C196, C197).

Every ``-gpgpu_runtime_stat`` core cycles of a kernel (``gpu_sim_cycle % freq == 0``; the phase
restarts when a kernel starts on an idle GPU, where GPGPU-Sim zeroes ``gpu_sim_cycle``), the GPU
hands :class:`~gpgpusim.report.sampler.Sampler` running totals read from the model:

* ``globalinsncount`` (``gpu_sim_insn``), ``globaltotinsncount``: thread instructions issued;
* ``active_warps``: warps resident on all cores now (a gauge);
* ``issue_stall``, ``issue_idle``, ``issue_scoreboard``: the scheduler-cycle buckets of the
  ``Warp Occupancy Distribution`` (``timing/core/stats.py``);
* ``L1D_total_cache_accesses``/``_misses``, ``L2_total_cache_accesses``/``_misses``,
  ``total_dram_reads``/``_writes``: memory traffic;
* the memory statistics' sampling window closes (``memlatstat_lat_pw``, see
  ``MemorySystem.lat_pw``: ``mf_lat_pw_table`` and the base of the printed averages);
* for the AerialVision log only (per core or per interval, so the JSON stays small):
  ``shaderinsncount``, ``shaderwarpinsncount`` (per core, cumulative),
  ``WarpDivergenceBreakdown`` (the interval's idle and stall scheduler-cycles, then issued
  instructions by active lanes in 8 groups of 4, each divided by the number of cores, as
  ``shader_core_stats::visualizer_print`` writes it with ``-gpgpu_warpdistro_shader -1``) and
  ``WarpIssueSlotBreakdown`` (the interval's issues per warp slot of core 0, the
  ``-gpgpu_warp_issue_shader`` default).

The Reporter's JSON ``samples`` gets each scalar's change over the interval (gauges as they
are): at most ``cycles / freq`` records of a dozen numbers.  Reading the counters changes
nothing (sleeping cores and memory partitions are not settled), and idle-cycle skipping stops
at each sample point, so samples are identical with skipping on and off.  GPGPU-Sim's memory
lines of the AerialVision log (``Ltwo*``, ``dram*``) and its per-warp-slot breakdowns are not
written: the log holds the series above.
"""

from __future__ import annotations

from typing import Any

from gpgpusim.report.sampler import AerialVisionWriter, Sampler, Sink, visualizer_path

from .core.stats import issue_totals

#: series that are levels, not running totals
GAUGES = frozenset({"active_warps"})


class GpuSampler:
    """Takes a sample when ``gpu.gpu_sim_cycle`` reaches :attr:`next` (the GPU compares)."""

    __slots__ = ("gpu", "sampler", "freq", "next", "insn_base", "_last_distro", "_last_slots")

    def __init__(self, gpu: Any) -> None:
        cfg = gpu.config
        self.gpu = gpu
        rs = cfg.get("gpgpu_runtime_stat")
        self.freq = int(getattr(rs, "freq", 0) or 0)
        raw: list[Sink] = []
        if self.freq and bool(cfg.get("visualizer_enabled")):
            zl = cfg.get("visualizer_zlevel")
            raw.append(AerialVisionWriter(visualizer_path(cfg), int(zl if zl is not None else 6)).write)
        self.sampler = Sampler(max(1, self.freq), [self._series], raw, gauges=GAUGES)
        self.next = self.freq if self.freq else 1 << 62
        self.insn_base = 0
        self._last_distro: list[int] | None = None
        self._last_slots: list[int] = []

    def kernel_start(self) -> None:
        """A kernel starts on an idle GPU: ``gpu_sim_cycle`` and ``gpu_sim_insn`` restart."""
        g = self.gpu
        self.sampler.kernel_start(g.gpu_tot_sim_cycle)
        self.insn_base = sum(c.n_thread_insn for c in g.cores)
        if self.freq:
            self.next = self.freq

    def take(self) -> None:
        g = self.gpu
        cycle = g.gpu_sim_cycle
        g.mem.lat_pw()          # gpgpu_sim::cycle closes the memlatstat window here too
        self.sampler.sample(cycle, self.read(g.gpu_tot_sim_cycle + cycle))
        self.next = cycle - cycle % self.freq + self.freq

    def read(self, cur: int) -> dict[str, Any]:
        """The running totals at ``cur`` (the first core cycle not simulated yet)."""
        g = self.gpu
        cores = g.cores
        insn = [c.n_thread_insn for c in cores]
        tot = sum(insn)
        occ = issue_totals(cores, cur)["warp_occupancy"]
        v: dict[str, Any] = {"globalinsncount": tot - self.insn_base, "globaltotinsncount": tot,
                             "active_warps": sum(len(c.active_slots) for c in cores),
                             "issue_stall": occ[0], "issue_idle": occ[1], "issue_scoreboard": occ[2]}
        acc = miss = 0
        for c in cores:
            l1d = c.ldst.l1d
            if l1d is not None:
                t = l1d.stats.totals()
                acc += t[0]
                miss += t[1]
        v["L1D_total_cache_accesses"] = acc
        v["L1D_total_cache_misses"] = miss
        acc = miss = 0
        for sub in g.mem.subs:
            if sub.l2 is not None:
                t = sub.l2.stats.totals()
                acc += t[0]
                miss += t[1]
        v["L2_total_cache_accesses"] = acc
        v["L2_total_cache_misses"] = miss
        v["total_dram_reads"] = sum(sum(p.dram.reads_per_bank) for p in g.mem.partitions)
        v["total_dram_writes"] = sum(sum(p.dram.writes_per_bank) for p in g.mem.partitions)
        if self.sampler.raw_sinks:
            v["shaderinsncount"] = insn
            v["shaderwarpinsncount"] = [c.n_warp_insn for c in cores]
            v["WarpDivergenceBreakdown"] = self._divergence(occ, len(cores))
            v["WarpIssueSlotBreakdown"] = self._slots(cores[0].istats.slot_issues)
        return v

    def _divergence(self, occ: list[int], n_cores: int) -> list[int]:
        last = self._last_distro or [0] * len(occ)
        self._last_distro = list(occ)
        d = [a - b for a, b in zip(occ, last, strict=True)]
        lanes = d[3:]
        per = max(1, len(lanes) // 8)
        groups = [sum(lanes[i:i + per]) for i in range(0, len(lanes), per)]
        return [x // n_cores for x in [d[1], d[0]] + groups]

    def _slots(self, slots: list[int]) -> list[int]:
        last = max((i for i, n in enumerate(slots) if n), default=-1)
        now = slots[:last + 1]
        prev = self._last_slots
        self._last_slots = now
        return [n - (prev[i] if i < len(prev) else 0) for i, n in enumerate(now)] or [0]

    def _series(self, cycle: int, values: dict[str, Any]) -> None:
        g = self.gpu
        g._notify("sample", cycle, {k: v for k, v in values.items() if not isinstance(v, list)})
