"""The clocked GPU: performance simulation (``-gpgpu_ptx_sim_mode 0``; GPGPU-Sim ``gpgpu_sim``).

Checklist C058-C062 (clock domains, ``cycle()``, ``active()``), C065-C069 (clusters), C131-C137
(CTA scheduling), C134 (concurrent kernels), C202 (deadlock detection), C012 (perfect memory), C011
and C062 (the stop limits ``-gpgpu_max_cycle/_insn/_cta/_completed_cta``).

* **Clock domains**: core, interconnect, L2 and DRAM at their ``-gpgpu_clock_domains`` MHz;
  every step advances the domains whose next edge is the earliest, in GPGPU-Sim's
  ``next_clock_domain`` order (L2, ICNT, DRAM, CORE on ties), and runs, as ``gpgpu_sim::cycle``:
  core: clusters take replies from the interconnect; icnt: memory partitions push replies into
  the interconnect; dram: DRAM channels; L2: partitions take requests from the interconnect and
  run their L2 caches; icnt: the interconnect moves packets; core: every cluster's cores cycle,
  ``gpu_sim_cycle`` increments, CTAs are issued, kernel launch latencies count down, the L1s
  of idle clusters are invalidated (``-gpgpu_flush_l1_cache``).
* **CTA scheduling** (``issue_block2core``): each core cycle, every cluster (round robin from
  the one after the last that issued) issues at most one CTA to one of its cores (round robin)
  that has room; a kernel's CTAs become issuable when its ``-gpgpu_kernel_launch_latency`` has
  counted down.  CTAs per core: the smallest of the thread, register, shared-memory, CTA-slot
  (``-gpgpu_shader_cta``) and barrier limits (``runtime.occupancy`` computes it exactly as the
  C++ prints it in ``CTA/core = N, limited by: ...``).
* **Concurrent kernels** (C134, ``-gpgpu_max_concurrent_kernel``): kernels from different
  streams share the machine; a core runs CTAs of one kernel at a time and takes another
  kernel's CTAs once it drained (``-gpgpu_concurrent_kernel_sm 0``).
* **Instruction feed** (``-gpgpusim_timing_feed auto|trace|live``): the cores read each warp's
  instructions through ``feed.WarpStream``.  The trace feed (``timing/feed.py``, the default
  for kernels whose values cannot depend on timing): each kernel's grid runs on the batched
  functional engine chunk by chunk as its CTAs are issued, recording every warp's dynamic
  instructions, which the timing model replays.  The live feed (``timing/live.py``,
  GPGPU-Sim's own model, chosen by ``auto`` for the kernels ``live_check.needs_live_feed`` names):
  each warp instruction is executed when the core issues it, so atomics, volatile loads,
  ``%clock``, ``%smid`` and ``%warpid`` follow the simulated timing.
* **Event trace and pipeline dumps** (C200, C203; ``-trace_*``, ``-gpgpusim_trace_*``,
  ``-gpgpusim_dump_pipeline``): ``timing/trace.py`` wraps the chosen components when the GPU
  is built, only if asked; the cycle loop has no trace test.

* **Deadlock detection, stop limits, liveness** (C202, C011, C062): ``limits.py``.
* **Sampling** (``-gpgpusim_sampling*``): the kernel- and CTA-sampling projections are
  ``projection.py``.
* **Interrupts** (SIGINT/SIGTERM/SIGHUP, ``runtime/interrupt.py``): the cycle loop parks at the
  end of the core cycle it is in and the running kernels end as at a stop limit
  (their statistics block and JSON entries with the figures so far, marked ``"stopped":
  "SIGINT"``); the interrupt lines report the same completed thread instructions.

Counters: the report's GPGPU-Sim stat names (``report/stats.py``), cumulative since program
start, handed to ``Reporter.kernel_end`` with each finished kernel.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
import time
from typing import Any, Callable, TypeVar

from gpgpusim import hostio
from gpgpusim.device import interrupt
from gpgpusim.device.gpu import Gpu, KernelRecord, MemcpyKind
from gpgpusim.errors import CudaError, Err, report_internal_error
from gpgpusim.functional import engine
from gpgpusim.functional.sectors import SectorLog
from gpgpusim.options import load_config
from gpgpusim.report.stats import StatsRegistry

from .cache import Cache, publish_cache_stats
from .clock import CORE, DRAM, ClockDomains
from .cluster import Cluster, cycle_cores, icnt_cycles
from .kit import Clock
from .core.icache import PROGRAM_MEM_START, instruction_addresses, publish_l1i_stats
from .core.ldst import shared_geometry
from .core.shader import ShaderCore
from .core.stats import publish_issue_stats
from .core.table import CoreTable
from .cta_sampling import INTERVAL_MIN_WAVES, INTERVAL_STEP, CtaSampling, IntervalSampling, l2_state, parse_interval
from .cta_screen import Screen, screen_launch
from .kernel_trace import KernelTrace, feed_window
from .kernel_run import KernelRun, run_functionally
from .kernel_sampling import KernelSampler, parse_mode, scalar_counters
from .limits import (announce_limit_stop, check_deadlock, insn_done, limit_reached, liveness,
                     start_liveness_thread, stop_at_limit)
from .live import LiveKernel, choose_feed
from .mem_fetch import MemFetch
from .live_check import needs_live_feed
from .memory import MemorySystem
from .occupancy import max_cta
from .projection import project_launch, sample_detailed
from .sampling import GpuSampler
from .static import build_table
from .trace import install as install_trace

#: counters GPGPU-Sim prints whether or not they ever counted
ZERO_COUNTERS = (
    "gpu_stall_dramfull", "gpu_stall_icnt2sh", "gpgpu_n_shmem_bkconflict", "gpgpu_n_stall_shd_mem",
    "gpgpu_n_mem_read_local", "gpgpu_n_mem_write_local", "gpgpu_n_mem_read_global",
    "gpgpu_n_mem_write_global", "gpgpu_n_mem_texture", "gpgpu_n_mem_const", "gpgpu_n_load_insn",
    "gpgpu_n_store_insn", "gpgpu_n_shmem_insn", "gpgpu_n_sstarr_insn", "gpgpu_n_tex_insn",
    "gpgpu_n_const_mem_insn", "gpgpu_n_param_mem_insn", "gpgpu_n_l1cache_bkconflict",
    "gpgpu_n_intrawarp_mshr_merge", "gpgpu_n_cmem_portconflict",
    "gpgpu_stall_shd_mem[c_mem][resource_stall]", "gpgpu_stall_shd_mem[s_mem][bk_conf]",
    "gpgpu_stall_shd_mem[gl_mem][resource_stall]", "gpgpu_stall_shd_mem[gl_mem][coal_stall]",
    "gpgpu_stall_shd_mem[gl_mem][data_port_stall]", "gpu_reg_bank_conflict_stalls",
    "max_total_param_size", "total_dram_reads", "total_dram_writes")


def _core_order(core: ShaderCore) -> int:
    return core.sid


#: a core cycle never reached (no interval-sampling look pending)
_NEVER = 1 << 62


#: the youngest generation's threshold while a performance model exists (CPython's default 700)
GC_YOUNG_THRESHOLD = 1_000_000

#: threads a functional chunk of a timed launch holds at most (``engine.prepare_launch``;
#: functional mode, and the untimed rest of a CTA-sampled launch, use the engine's 65,536).
#: Both feeds keep a chunk's ``Exec`` (registers, lane arrays) until its last warp has exited
#: in the functional run (a window ahead of the timing model), so besides the registers of the
#: CTAs in flight they hold the rest of the chunks those belong to; smaller chunks lowered
#: peak RSS by up to 15 MB on the reference programs at no measured cost in speed
#: (``docs/PERFORMANCE.md``, "Whole programs")
FEED_CHUNK_THREADS = 16384


_T = TypeVar("_T")


def _per_module(op: Any, what: str, make: Callable[[], _T]) -> _T:
    """``make()`` for the kernel of launch ``op``, made once per loaded module and kept in its
    ``cache`` under ``(what, kernel)`` (made each time for a module without one)."""
    cache = getattr(op.module, "cache", None)
    if cache is None:
        return make()
    key = (what, op.kernel)
    if key not in cache:
        cache[key] = make()
    return cache[key]


def _relax_gc() -> None:
    """Collect the youngest generation every ``GC_YOUNG_THRESHOLD`` net allocations instead
    of every 700.  CPython counts a generation's objects as allocations *minus* frees, so the
    short-lived objects of the cycle loop (warp instructions, memory fetches, accesses), which
    reference counting frees, hardly move the count: what triggers a collection is the growth
    of the long-lived ones, the recorded trace (per-warp results, memory records), and every
    collection walks them again for nothing (the 256² matmul on 80 SMs frees ~2,600 objects by
    collection in the whole run).  With the whole-chunk trace (``-gpgpusim_feed_window 0``)
    the collector took 6.5 s of a 183 s run at CPython's 700, 2.7 s of ~71 s at 20,000 (361
    young and 23 middle collections), ~0.6 s at 1,000,000, and 0.07 s with the feed also
    promoting what it records (``recorder.gc_settle``); the windowed feed holds a bounded trace,
    so there the threshold mostly keeps young collections rare.  A reference cycle is still
    collected after at most a million new objects while it is young; one that outlived a young
    collection waits for a collection of an older generation, which the raised threshold (and
    ``gc_settle``) make rare: long-lived objects of the simulator must not form cycles per
    launch (``device.gpu.Gpu.start_kernel``), and a discarded machine is collected at once
    (:meth:`TimingGpu._rebuild`).  Never lowers a threshold someone raised."""
    t0, t1, t2 = gc.get_threshold()
    if t0 and t0 < GC_YOUNG_THRESHOLD:
        gc.set_threshold(GC_YOUNG_THRESHOLD, max(t1, 20), max(t2, 100))


def _cut_requests() -> None:
    """Clear the references of every request (``MemFetch``) a container of the model still
    holds -- its instruction, the request it was split from or made for, its caches' extra
    fields.  For a machine being discarded with requests in flight: a request links the
    core's instruction and the caches it waits in into reference cycles, and compiled it is
    an acyclic class whose references the collector does not see, so those cycles would
    never be freed.  Requests sit in tracked containers (queues, lists, the caches) or in a
    dict or tuple the collector stopped tracking because it holds only untracked objects;
    both are searched (the list of all tracked objects keeps everything alive meanwhile)."""
    for o in gc.get_objects():
        for r in gc.get_referents(o):
            t = type(r)
            if t is MemFetch:
                _cut(r)
            elif (t is dict or t is tuple) and not gc.is_tracked(r):
                for x in (r.values() if t is dict else r):
                    if type(x) is MemFetch:
                        _cut(x)


def _cut(mf: MemFetch) -> None:
    mf.token = None
    mf.original = None
    mf.original_wr = None
    mf.cache_extra = None


class TimingGpu(Gpu):
    """Performance-mode GPU: replaces the functional ``advance()`` with cycles."""

    functional = False

    def __init__(self, config: Any = None, gmem: Any = None, reporter: Any = None, **kw: Any) -> None:
        super().__init__(config, gmem, reporter, **kw)
        if config is None:
            config = self.config = load_config(None)
        self.stats = StatsRegistry()
        for name in ZERO_COUNTERS:       # GPGPU-Sim prints these even when nothing happened
            self.stats.set(name, 0)
        self._build()
        if int(config.get("network_mode") or 0) == 1:
            # C138-C148: BookSim is not modelled; say so once instead of silently differing
            sys.stderr.write("GPGPU-Sim: NOTE: -network_mode 1 (BookSim) is not modelled: the "
                             "interconnect runs on the built-in iSLIP crossbar of -network_mode 2\n")
        _relax_gc()
        self.gpu_tot_sim_cycle = 0
        #: the cycle the last kernel ended (what an overlapping kernel adds to the run's
        #: cycles starts there: ``KernelStats.new_cycles``)
        self._last_end = 0
        self.deadlock_detect = bool(config.get("gpgpu_deadlock_detect"))
        self.max_cycle = int(config.get("gpgpu_max_cycle") or 0)
        self.max_insn = int(config.get("gpgpu_max_insn") or 0)
        self.max_cta = int(config.get("gpgpu_max_cta") or 0)
        self.max_completed_cta = int(config.get("gpgpu_max_completed_cta") or 0)
        self.limits_on = bool(self.max_cycle or self.max_insn or self.max_cta or self.max_completed_cta)
        self.tot_issued_cta = 0      # gpu_tot_issued_cta + m_total_cta_launched
        self.completed_cta = 0       # gpu_completed_cta (since the GPU last went idle)
        self.insn_done_before = 0    # completed thread instructions of the kernels already ended
        #: which limit stopped the run ("cycle", "insn", "cta", "completed_cta"), None while none
        self.limit_stop: str | None = None
        self.progress = os.environ.get("GPGPUSIM_PROGRESS", "1") != "0"
        self.liveness_s = float(config.get("liveness_message_freq") or 0)
        self._t_start = self._last_liveness = time.time()
        self._live_note_done: set[str] = set()
        self._screen_note_done: set[str] = set()
        #: instruction address space (C073): byte base of each module's code, in the order the
        #: model first runs a kernel of it
        self._code_base: dict[int, tuple[Any, int]] = {}     # id(module) -> (module, base)
        self._code_next = 0
        self._last_limit_kernel = ""
        # kernel sampling (-gpgpusim_sampling kernel, timing/kernel_sampling.py); None when off
        self.sampling_mode = "off" if self.limits_on else parse_mode(config.get("gpgpusim_sampling"))
        self.ksampler = None if self.limits_on else KernelSampler.from_config(config)
        if self.ksampler is not None and self.gmem is not None and self.gmem.sectors is None:
            # the cold misses a projected launch adds to its group's rate (functional/sectors.py)
            self.gmem.sectors = SectorLog(self.gmem)
        #: CTA/wave sampling (-gpgpusim_sampling cta|all, timing/cta_sampling.py): its tolerance
        self.cta_tol = float(config.get("gpgpusim_sampling_tol") or 0.02) \
            if self.sampling_mode in ("cta", "all") else None
        #: CTA sampling inside the first wave (-gpgpusim_sampling_cta_interval): "off", "auto"
        #: (launches that pass cta_screen.py's screening) or "on" (every eligible launch)
        self.cta_interval = parse_interval(config.get("gpgpusim_sampling_cta_interval")) \
            if self.cta_tol is not None else "off"
        #: projected launches' scalar counters, added to every report's cumulative counters
        self._proj_offset: dict[str, int] = {}
        #: the model's own scalar counters at the last detailed kernel's end
        self._real_scalars: dict[str, int] = scalar_counters(self.stats.values) \
            if self.sampling_mode != "off" else {}
        #: projected launches started and not yet returned by advance()
        self._projected: list[KernelRecord] = []
        #: cycles the report counts that the timing model did not simulate (projected launches
        #: and CTAs): the periodic samples' ``tot_cycle`` is shifted by them
        self._proj_cycles = 0
        self._parked = threading.Event()     # the cycle loop waits for the interrupt's shutdown
        self._live_thread: threading.Thread | None = None
        interrupt.on_interrupt(self._on_interrupt)

    def _on_interrupt(self, signum: int) -> dict[str, Any] | None:
        """SIGINT/SIGTERM/SIGHUP during a performance run (on the shutdown thread): once the
        cycle loop parked (at most 1.5 s), the running kernels end as at a stop limit, with
        their statistics so far; returns what the interrupt line reports for the first of them
        (its completed thread and warp instructions, the ``gpu_sim_insn`` of its block)."""
        parked = self._parked.wait(1.5)
        runs = list(self.runs)
        if not runs:
            return None
        if not any(c.count_done for c in self.cores):
            # completions are counted only under a stop limit: report the instructions issued
            # since the kernel started (with kernels running side by side, all of them for the
            # oldest, which the cores' totals cannot split)
            thread = sum(c.n_thread_insn for c in self.cores)
            warp = sum(c.n_warp_insn for c in self.cores)
            for i, run in enumerate(sorted(runs, key=lambda r: r.start_cycle)):
                run.thread_done = thread - run.issued_before[0] if i == 0 else 0
                run.warp_done = warp - run.issued_before[1] if i == 0 else 0
        first = runs[0]
        info: dict[str, Any] = {"kernel": first.rec.name, "thread_insn": first.thread_done,
                                "warp_insn": first.warp_done}
        for run in runs:
            hostio.out(f"GPGPU-Sim: interrupted kernel '{run.rec.name}' (uid {run.rec.uid}) at "
                       f"gpu_sim_cycle = {self.gpu_sim_cycle} (gpu_tot_sim_cycle = "
                       f"{self.gpu_tot_sim_cycle + self.gpu_sim_cycle}); {run.done} of {run.n_ctas} CTAs "
                       f"done; {run.thread_done} thread instructions\n")
        if parked:
            for run in runs:
                self._finish(run.rec, stopped=signal.Signals(signum).name)
        return info

    # ------------------------------------------------------------------ construction
    def _build(self) -> None:
        cfg = self.config
        self.l1d_assoc: int | None = getattr(self, "l1d_assoc", None)
        n_clusters = int(cfg.get("gpgpu_n_clusters"))
        per = int(cfg.get("gpgpu_n_cores_per_cluster"))
        self.n_cores = n_clusters * per
        self.mem = MemorySystem(cfg, self.stats, n_clusters)
        self.mem.cycle_base[0] = getattr(self, "gpu_tot_sim_cycle", 0)
        #: the core clock's tick counter, shared by the clusters (components of that clock)
        self.core_clock = Clock()
        self.clusters = [Cluster(i, self, per, i * per, self.core_clock) for i in range(n_clusters)]
        self.cores = [c for cl in self.clusters for c in cl.cores]
        self.awake: list[ShaderCore] = list(self.cores)   # cores to cycle (the rest sleep)
        self._woken: set[ShaderCore] = set()
        self.last_cluster_issue = n_clusters - 1
        self.n_cta_ends = 0          # CTAs ended on any core since the machine was built
        #: (n_cta_ends, kernels with CTAs to issue) when the last CTA-issue pass issued nothing
        self._no_issue_key: tuple[int, list[KernelRun]] | None = None
        #: CTA sampling inside the first wave (cta_sampling.IntervalSampling): the launch it
        #: watches and the core cycle of its next look (_NEVER: none)
        self._interval_run: KernelRun | None = None
        self._interval_next = _NEVER
        self._interval_base: list[int] = []      # each core's warp instructions at its start
        self.clock = ClockDomains.from_config(cfg)
        self.flush_l1 = bool(cfg.get("gpgpu_flush_l1_cache"))
        self.perfect_mem = bool(cfg.get("gpgpu_perfect_mem"))
        self.flush_l2 = bool(cfg.get("gpgpu_flush_l2_cache"))
        #: kernel sampling: whether an SM keeps a kernel's state from one launch to the next
        #: (a finite instruction and constant cache, or an L1D not flushed), and per kernel the
        #: SMs that have run one of its CTAs in detail (:meth:`fresh_sms`)
        self.sm_state = not cfg.get("gpgpu_perfect_inst_const_cache") or not self.flush_l1
        self._warm_sms: dict[str, set[int]] = {}
        self.runs: list[KernelRun] = []
        #: the machine was seen idle and has not changed since (see :meth:`_machine_busy`)
        self._seen_idle = False
        #: child grids released by device-side launches and not yet taken by the stream
        #: manager: (parent launch op, ``cdp.DeviceLaunch``) (:meth:`take_device_launches`)
        self.cdp_released: list[tuple[Any, Any]] = []
        self.gpu_sim_cycle = 0
        self.live_ctas = 0
        self.skipped_cycles = 0
        self.skip_idle = os.environ.get("GPGPUSIM_SKIP_IDLE", "1") != "0"
        self.last_issue_cycle = 0
        self.sampling = GpuSampler(self)
        install_trace(self)  # -trace_* / -gpgpusim_dump_pipeline hooks; nothing when not asked for

    def make_l1d(self, sid: int) -> Any:
        """The L1 data cache of core ``sid`` (None when ``-gpgpu_cache:dl1 none``), with the
        associativity of the current adaptive carve-out (``occupancy.max_cta``)."""
        import dataclasses

        dl1 = self.config.get("gpgpu_cache:dl1")
        if dl1 is None or isinstance(dl1, str):
            return None
        if self.l1d_assoc is not None and self.l1d_assoc != dl1.assoc:
            dl1 = dataclasses.replace(dl1, assoc=self.l1d_assoc)
        return Cache(f"L1D_{sid}", dl1, "L1D", level=1,
                     wr_percent=int(self.config.get("gpgpu_l1_cache_write_ratio") or 0))

    # ------------------------------------------------------------------ kernels
    def can_start_kernel(self) -> bool:
        # a projected launch completes alone (its cycles are not simulated alongside others')
        return not self._projected and super().can_start_kernel()

    def start_kernel(self, op: Any, stream_id: int | None = None) -> KernelRecord:
        """Place a pushed kernel (:meth:`Gpu.start_kernel`): project it (kernel sampling) or
        start its run on the machine.  A failure leaves the record with its error, which the
        next :meth:`advance` returns, so that no started kernel is left without a run."""
        rec = super().start_kernel(op, stream_id)
        try:
            self._place(rec, op)
        except CudaError as exc:
            rec.error = exc
        except Exception as exc:  # noqa: BLE001 - a model bug must not take the app down
            rec.error = CudaError(Err.LaunchFailure, report_internal_error(f"kernel '{op.kernel}'", exc),
                                  sticky=True)
        return rec

    def _place(self, rec: KernelRecord, op: Any) -> None:
        sample_key = None
        alone = len(self._running) == 1 and not self._machine_busy()
        if self.ksampler is not None and alone:
            sample_key = self.ksampler.key(op.kernel, op.grid, op.block)
            if project_launch(self, rec, sample_key):
                return
        if alone:
            self.gpu_sim_cycle = 0
            self.completed_cta = 0
            self.clock.reset()
            self.sampling.kernel_start()
            if self._proj_cycles:
                sampler = getattr(self.sampling, "sampler", None)
                if sampler is not None:
                    sampler._tot_base += self._proj_cycles
        run = self._make_run(rec)
        run.start_cycle = self.gpu_tot_sim_cycle + self.gpu_sim_cycle
        traced = isinstance(run.trace, KernelTrace)
        run.sample_key = sample_key if traced else None
        if self.cta_tol is not None and alone and traced:
            wave = self.n_cores * run.max_cta_per_core
            interval = self.cta_interval != "off" and IntervalSampling.eligible(run.n_ctas, wave) \
                and run.trace.window > 0
            screen = self._screen(run, wave) if interval and self.cta_interval == "auto" else None
            if interval and (screen is not None or self.cta_interval == "on"):
                run.cta_sampling = IntervalSampling(wave, run.n_ctas, self.cta_tol, len(self.cores), screen)
                self._interval_base = [c.n_warp_insn for c in self.cores]
                self._interval_run = run
                self._interval_next = self.gpu_sim_cycle + INTERVAL_STEP
            else:
                run.cta_sampling = self._wave_sampling(run)
        run.issued_before = (sum(c.n_thread_insn for c in self.cores), sum(c.n_warp_insn for c in self.cores))
        self.last_issue_cycle = run.start_cycle + run.latency_left
        rec.start_cycles = self.now_cycles
        run.released = self.cdp_released
        for other in self.runs:
            other.sample_key = None      # overlapped: its cycles are not its own
            if other.cta_sampling is not None and other.cta_sampling.cut_at is None:
                other.cta_sampling = None
        self.runs.append(run)

    def _screen(self, run: KernelRun, wave: int) -> Screen | None:
        """``-gpgpusim_sampling_cta_interval auto``: screen ``run`` (``cta_screen.py``); its
        :class:`Screen` when it may be sampled inside its first wave, else None, with a note
        on stderr of why not (once per kernel name)."""
        assert isinstance(run.trace, KernelTrace)
        found: Screen | str
        if wave < run.n_ctas < INTERVAL_MIN_WAVES * wave:
            found = (f"{run.n_ctas / wave:.1f} waves of {wave} CTAs, more than one and fewer than "
                     f"{INTERVAL_MIN_WAVES} (-gpgpusim_sampling_cta_interval 1 samples it anyway)")
        elif int(self.config.get("gpgpusim_memcheck") or 0):
            found = "memcheck is on (a screening run would report each fault a second time)"
        else:
            found = screen_launch(run.trace._lc, self.gmem)
        why = found if isinstance(found, str) else found.verdict(wave)
        if why is None and isinstance(found, Screen):
            return found
        self._screen_note(run.trace.kernel, str(why))
        return None

    def _screen_note(self, name: str, why: str) -> None:
        """The note on stderr of why kernel ``name`` is not sampled inside its first wave (once
        per kernel name)."""
        if name not in self._screen_note_done:
            self._screen_note_done.add(name)
            sys.stderr.write(f"GPGPU-Sim: NOTE: kernel {name} is not sampled inside its first wave: {why}\n")

    def _wave_sampling(self, run: KernelRun) -> CtaSampling | None:
        """Wave sampling (cta_sampling.CtaSampling) for ``run``, None when its grid is too small."""
        assert self.cta_tol is not None
        wave = self.n_cores * run.max_cta_per_core
        if not CtaSampling.eligible(run.n_ctas, wave):
            return None
        l2s = [s.l2 for s in self.mem.subs if s.l2 is not None]
        return CtaSampling(wave, run.n_ctas, self.cta_tol,
                           str(self.config.get("gpgpusim_sampling_cta_tail") or "drain"),
                           l2=lambda: l2_state(l2s), l2_lines=sum(c.nset * c.assoc for c in l2s))

    def _interval_look(self) -> None:
        """Interval sampling's periodic look at the watched launch; cut it when its rate is known."""
        run = self._interval_run
        cs = run.cta_sampling if run is not None else None
        if run is None or not isinstance(cs, IntervalSampling) or cs.cut_at is not None or run not in self.runs:
            self._interval_run = None
            self._interval_next = _NEVER
            return
        self._interval_next = self.gpu_sim_cycle + INTERVAL_STEP
        now = self.gpu_tot_sim_cycle + self.gpu_sim_cycle
        per_core = [c.n_warp_insn - b for c, b in zip(self.cores, self._interval_base, strict=True)]
        t = now - run.start_cycle
        cut = cs.observe(t, per_core)
        if cut or cs.want_counters():
            self._fold_core_counters()       # (idempotent: the counters as of now)
            cs.counters_at(t, sum(per_core), scalar_counters(self.stats.values))
        if cut:
            resident = []
            for i, core in enumerate(self.cores):
                for slot in core.ctas:
                    if slot.kernel is run:
                        done = sum(core.warps[ws].src.issued() for ws in slot.warps)
                        resident.append((i, slot.cta_id, done))
            cs.cut(resident)
            if cs.screen is not None and cs.one_wave() and not cs.shares_evenly():
                # a grid of one wave whose SMs' CTAs progress unevenly: timed whole
                run.cta_sampling = None
                self._screen_note(run.trace.kernel, "its CTAs do not share their SMs evenly (a grid of one "
                                  "wave ends with its slowest CTAs, which the interval does not show)")
            else:
                run.n_ctas = run.issued          # no more CTAs to the timing model
                self._cut_trace(run.trace, cs)
                for core in self.cores:
                    core.abandon(run)            # the warps in flight stop issuing and drain
            self._interval_run = None
            self._interval_next = _NEVER

    def _cut_trace(self, trace: KernelTrace, cs: IntervalSampling) -> None:
        """Nothing more of the launch is timed: the rest of its instructions run on the
        functional engine (``KernelTrace.cut``), or, when its screening run kept its result
        (``cta_screen.Screen.final``), that run's writes are put in place and its counts taken
        instead: the grid has run whole once already, from the memory this launch started
        from."""
        result = cs.screen.take_result() if cs.screen is not None else None
        if result is not None and result[1].apply(self.gmem):
            trace.cut(result[0])
        else:
            trace.cut()

    def core_table(self, op: Any, prog: Any) -> CoreTable:
        """The per-pc table the cores time kernel ``op.kernel`` (program ``prog``) with, made
        once per loaded module."""
        return _per_module(op, "timing_table",
                           lambda: CoreTable(build_table(prog, self.config), len(prog.insts), prog))

    @staticmethod
    def live_reason(op: Any, prog: Any) -> str | None:
        """:func:`needs_live_feed` of the launch's kernel, scanned once per loaded module (the
        scan reads the whole program: ~0.1 ms, which each of thousands of tiny projected
        launches paid before)."""
        return _per_module(op, "live_reason", lambda: needs_live_feed(prog))

    def _make_run(self, rec: KernelRecord) -> KernelRun:
        op = rec.op
        kw = dict(op.launch_kwargs)
        kw.pop("driver", None)
        lc = engine.prepare_launch(op.module, op.kernel, op.grid, op.block, op.dyn_smem_bytes,
                                   op.params, gmem=self.gmem, driver="batched",
                                   chunk_threads=FEED_CHUNK_THREADS, **kw)
        prog = lc.prog
        why = self.live_reason(op, prog)
        feed = choose_feed(self.config.get("gpgpusim_timing_feed"), why)
        trace: KernelTrace | LiveKernel
        if feed == "live":
            trace = LiveKernel(lc)
        else:
            # shared-memory records are kept as the LD/ST units' bank-conflict degrees only
            trace = KernelTrace(lc, feed_window(self.config.get("gpgpusim_feed_window")),
                                shared_geometry(self.config))
        table = self.core_table(op, prog)
        if (why or feed == "live") and op.kernel not in self._live_note_done:
            self._live_note_done.add(op.kernel)     # once per kernel name
            if feed == "live":
                sys.stderr.write(f"GPGPU-Sim: NOTE: kernel {op.kernel} runs on the live instruction "
                                 f"feed (each warp instruction executed at issue): "
                                 f"{why or 'forced by -gpgpusim_timing_feed live'}\n")
            else:
                sys.stderr.write(f"GPGPU-Sim: NOTE: kernel {op.kernel} {why}; it is timed from its "
                                 f"functional trace (-gpgpusim_timing_feed trace), so its values "
                                 f"follow the functional engine's order of warps, not the timed one\n")
        regs = op.regs_per_thread or 0
        smem = op.static_smem_bytes or 0
        n_blocks = op.grid[0] * op.grid[1] * op.grid[2]
        n, why, printed, l1_kb, l1_assoc = max_cta(self.config, op.block, regs, smem, n_blocks)
        if n < 1:
            raise CudaError(Err.InvalidConfiguration,
                            f"launch of {op.kernel}: a CTA needs more resources than an SM has "
                            f"({regs} registers/thread, {smem} bytes shared memory)")
        if prog.kernel.name != self._last_limit_kernel:     # printed once per kernel function
            self._last_limit_kernel = prog.kernel.name
            self._notify("cta_limit", printed, why)
        if l1_assoc is not None and l1_assoc != self.l1d_assoc:
            self.l1d_assoc = l1_assoc
            for core in self.cores:
                old = core.ldst.l1d
                core.ldst.l1d = self.make_l1d(core.sid)
                if old is not None and core.ldst.l1d is not None:
                    core.ldst.l1d.stats = old.stats      # the statistics are cumulative
            self._notify("l1_reconfigure", l1_kb)
        run = KernelRun(rec, trace, table, n, int(self.config.get("gpgpu_kernel_launch_latency") or 0))
        run.prog = prog
        if self.cores and self.cores[0].icache is not None:
            run.inst_addr = self._inst_addrs(op, prog)
        return run

    def _inst_addrs(self, op: Any, prog: Any) -> list[int]:
        """The byte address of each program pc of kernel ``op.kernel`` for the L1I
        (``icache.instruction_addresses``); a module is given its code's place the first time
        one of its kernels runs."""
        mod = getattr(op.module, "module", None)
        known = self._code_base.get(id(mod))
        base = known[1] if known is not None else self._code_next
        addrs, size = instruction_addresses(mod, prog, base)
        if known is None:
            self._code_base[id(mod)] = (mod, base)    # the module kept alive: ids stay unique
            self._code_next += size
        return addrs

    def warm_sms(self, op: Any, prog: Any, pcs: Any, table: CoreTable) -> None:
        """A launch projected by kernel sampling on a GPU whose SMs keep a kernel's state
        between launches (:attr:`sm_state`): its CTAs are placed as the issue rounds of the
        idle machine would place them (:meth:`_issue_block2core`: round robin over the
        clusters from the one after the last that issued, each SM up to its CTA limit), and
        the SMs that get one are left with what the launch would have left in their caches:
        the L1I lines of the instructions it ran (``pcs``, program pcs) and the L1C lines of
        the kernel parameters it read (``table.param_offset``), now the most recent.  The next
        detailed launch then starts where, and with the instruction and constant caches, the
        launch in full detail would have left it.  CTAs beyond the first wave go where CTAs
        end first, which is not known without timing: they continue the round robin.  What
        the fills evict, and the L1D (flushed between kernels by every shipped GPU that has
        one), are not modelled."""
        n_ctas = op.grid[0] * op.grid[1] * op.grid[2]
        per_core = max_cta(self.config, op.block, op.regs_per_thread or 0, op.static_smem_bytes or 0, n_ctas)[0]
        load = [0] * len(self.cores)
        placed: set[int] = set()
        left = n_ctas
        n = len(self.clusters)
        full = False
        while left > 0:
            last = self.last_cluster_issue
            issued = False
            for i in range(n):
                idx = (i + last + 1) % n
                cl = self.clusters[idx]
                nc = len(cl.cores)
                for j in range(nc):
                    ci = (j + cl.cta_next_core + 1) % nc
                    core = cl.cores[ci]
                    if full or load[core.sid] < per_core:
                        load[core.sid] += 1
                        placed.add(core.sid)
                        cl.cta_next_core = ci
                        self.last_cluster_issue = idx
                        left -= 1
                        issued = True
                        break
                if left <= 0:
                    break
            if not issued:
                full = True         # the first wave is placed: the rest follow the round robin
        now = self.gpu_tot_sim_cycle + self.gpu_sim_cycle
        ic0 = self.cores[0].icache
        code: list[int] = []
        if ic0 is not None:
            addrs = self._inst_addrs(op, prog)
            step = ic0.line_bytes
            code = sorted({PROGRAM_MEM_START + addrs[pc] // step * step for pc in pcs})
        params = sorted({table.param_offset[pc] for pc in pcs
                         if table.mem_space[pc] == "param" and table.param_offset[pc] >= 0})
        for sid in sorted(placed):
            core = self.cores[sid]
            if core.icache is not None:
                for a in code:
                    core.icache.cache.force_tag_access(a, now, 0xF)
            l1c = core.ldst.l1c
            if l1c is not None:
                for off in params:
                    l1c.force_tag_access(off & ~(l1c.line_bytes - 1), now, 0xF)
        self._warm_sms.setdefault(op.kernel, set()).update(placed)

    def _machine_busy(self) -> bool:
        """A kernel placed now would share the machine: a run is placed, or a request, CTA or
        unit is still busy.  Once the scan of every cluster and memory partition has found the
        machine idle, the answer holds until the machine next changes (:meth:`advance`
        simulates, a copy places data in L2), so a program of many projected launches scans
        once, not per launch (0.28 ms of CPU a launch on SM7_QV100)."""
        if self.runs:
            return True
        if not self._seen_idle:
            self._seen_idle = self.mem.idle() and not any(cl.busy() for cl in self.clusters)
        return not self._seen_idle

    def advance(self) -> list[KernelRecord]:
        """Simulate cycles until at least one running kernel finishes; return those."""
        if not self._running:
            return []
        if self._projected:
            done, self._projected = self._projected, []
            for rec in done:
                self._running.remove(rec)
                self._notify("kernel_end", rec.report_stats)
            return done
        failed = [r for r in self._running if r.error is not None]
        if failed:
            for r in failed:
                self._running.remove(r)
                r.end_cycles = self.now_cycles
            return failed
        t0 = time.perf_counter()
        self.limit_stop = None
        start_liveness_thread(self)
        self._seen_idle = False
        try:
            done = self._simulate()
        except CudaError as exc:
            done = self._fail_all(exc)
        except Exception as exc:  # noqa: BLE001 - a model bug: the kernels' timing is undefined
            done = self._fail_all(CudaError(Err.LaunchFailure,
                                            report_internal_error("performance simulation", exc), sticky=True))
        wall = time.perf_counter() - t0
        for rec in done:
            if rec.stats is not None:
                rec.stats.wall_s += wall / max(1, len(done))
        if self.limit_stop is not None:
            try:
                announce_limit_stop(self)
            except Exception as exc:  # noqa: BLE001 - the stopped kernels must still complete
                report_internal_error("stop limit", exc)
        return done

    def take_device_launches(self) -> list[tuple[Any, Any]]:
        """The child grids device-side launches released since the last call (see
        :meth:`KernelRun.device_launch`)."""
        out = self.cdp_released[:]
        self.cdp_released.clear()
        return out

    def _fail_all(self, exc: CudaError) -> list[KernelRecord]:
        """Every started kernel fails with ``exc``; the machine is built afresh.  The records
        keep ``exc`` without its traceback, whose frames (the cycle loop's) would keep the
        discarded machine alive as long as a record does (the message says what failed)."""
        exc.__traceback__ = None
        for run in self.runs:
            run.ctas.close()     # the feed releases what it holds (the live feed's chunks)
        self.runs = []
        done, self._running = self._running, []
        for rec in done:
            rec.error = exc
            rec.end_cycles = self.now_cycles
        self._rebuild()
        return done

    def _rebuild(self) -> None:
        """A new machine: the state of a failed or aborted run is not reused.  The old
        machine's objects reference each other, and a simulation seldom makes the full
        collection that frees such cycles: collect them now (this happens once per failure).
        The requests still in flight drop their references first (:func:`_cut_requests`)."""
        self._build()
        _cut_requests()
        gc.collect()

    # ------------------------------------------------------------------ the cycle loop
    def _simulate(self) -> list[KernelRecord]:
        finished: list[KernelRecord] = []
        step = self.clock.step
        clusters = self.clusters
        core_clock = self.core_clock
        mem = self.mem
        if self.limits_on:
            why = limit_reached(self)
            if why is not None:
                return stop_at_limit(self, why)
        while not finished:
            if self.live_ctas == 0 and self.skip_idle and self.runs and not any(
                    r.more_ctas() for r in self.runs) and mem.idle():
                self._fast_forward()
            mask = step()
            now = self.gpu_tot_sim_cycle + self.gpu_sim_cycle
            if mask & CORE:
                icnt_cycles(clusters, core_clock, now)
            if mask == DRAM:
                # most steps are DRAM edges alone (its clock is the fastest)
                mem.now = now
                mem.dram_cycle(now)
            elif mask & ~CORE:
                mem.step(mask, now)
            if mask & CORE:
                more = [r for r in self.runs if r.more_ctas()]
                if self.skip_idle:
                    aw = self.awake
                    if self._woken:
                        aw = sorted(set(aw) | self._woken, key=_core_order)
                        self._woken.clear()
                    self.awake = cycle_cores(aw, now)
                else:   # the reference loop: every core that has work or threads, every cycle
                    for core in self.cores:
                        if core.n_live_ctas or not core.sleeping():
                            core.cycle(now)
                self.gpu_sim_cycle += 1
                self.now_cycles += 1
                if more and (self.n_cta_ends, more) != self._no_issue_key:
                    if not self._issue_block2core():
                        # no core can take a CTA: nor can one until a CTA ends or the set of
                        # kernels with CTAs to issue changes (the only ways a core's room or
                        # kernel choice changes), so the next passes are skipped until then
                        self._no_issue_key = (self.n_cta_ends, more)
                for r in self.runs:
                    if r.latency_left > 0:
                        r.latency_left -= 1
                if self.flush_l1:
                    for core in self.cores:
                        if not core.n_live_ctas and core.ldst.l1d is not None and core.l1_dirty:
                            core.ldst.invalidate_l1()
                            core.l1_dirty = False
                if self.gpu_sim_cycle >= self.sampling.next:
                    self.sampling.take()
                if self.gpu_sim_cycle >= self._interval_next:
                    self._interval_look()
                for r in self.runs:
                    if r.finished:
                        finished.append(r.rec)
                if finished or self.cdp_released:
                    break       # (children released: the stream manager starts them)
                if self.limits_on:
                    why = limit_reached(self)
                    if why is not None:
                        return stop_at_limit(self, why)
                if not self.gpu_sim_cycle & 1023 or interrupt.requested:
                    # (a signal parks the loop within a core cycle: its shutdown then reports)
                    check_deadlock(self)
                    liveness(self)
        for rec in finished:
            self._finish(rec)
        return finished

    def _fast_forward(self) -> None:
        """Nothing can happen until the next kernel's launch latency has counted down: advance
        the clock domains exactly as the full loop would (the same float additions in the same
        order, so the DRAM clock phase is identical) without cycling any component."""
        waits = [r.latency_left for r in self.runs if r.error is None and r.issued < r.n_ctas]
        if not waits or min(waits) <= 0:
            return
        # stop short of the next sample point: the cycle after the skip takes it
        need = min(min(waits), self.sampling.next - self.gpu_sim_cycle - 1)
        if self.max_cycle:
            # stop short of the cycle limit: the loop's next core cycle may be the one reaching it
            need = min(need, self.max_cycle - (self.gpu_tot_sim_cycle + self.gpu_sim_cycle) - 1)
        if need <= 0:
            return
        if self.flush_l1:
            for core in self.cores:
                if core.l1_dirty and core.ldst.l1d is not None:
                    core.ldst.invalidate_l1()
                    core.l1_dirty = False
        ticks, n_icnt, n_l2, n_dram = self.clock.skip(need)
        self.mem.idle_ticks(n_icnt, n_l2, n_dram)
        self.gpu_sim_cycle += ticks
        self.now_cycles += ticks
        for r in self.runs:
            if r.latency_left > 0:
                r.latency_left = max(0, r.latency_left - ticks)
        self.skipped_cycles += ticks

    def core_woken(self, core: ShaderCore) -> None:
        """A sleeping core got a reply or a CTA: cycle it again from the next core loop on."""
        self._woken.add(core)

    def dump_pipeline(self, sm: int = -1, busy_only: bool = False, cycle: int | None = None) -> str:
        """The state of SM ``sm`` (-1: every SM; ``busy_only``: those with work) and of the whole
        memory system, as text (C200; GPGPU-Sim ``gpgpu_sim::dump_pipeline`` with its
        ``shader_core_ctx::display_pipeline`` and ``memory_partition_unit`` prints).  Reads
        state only.  ``cycle``: the core cycle the state is at (default: the last simulated)."""
        if cycle is None:
            cycle = self.gpu_tot_sim_cycle + self.gpu_sim_cycle - 1
        out = [f"Dumping pipeline state at cycle {cycle} (gpu_tot_sim_cycle {self.gpu_tot_sim_cycle} + "
               f"gpu_sim_cycle {self.gpu_sim_cycle})..."]
        for c in self.cores:
            if (sm < 0 or c.sid == sm) and (not busy_only or c.busy()):
                c.dump_state(out)
        out.append(self.mem.dump_state())
        return "\n".join(out)

    def _issue_block2core(self) -> bool:
        """``gpgpu_sim::issue_block2core``: each cluster, round robin from the one after the
        last that issued, may start one CTA; True when some cluster did."""
        n = len(self.clusters)
        last = self.last_cluster_issue
        issued = False
        for i in range(n):
            idx = (i + last + 1) % n
            cl = self.clusters[idx]
            if self._cluster_issue(cl):
                self.last_cluster_issue = idx
                issued = True
        return issued

    def _cluster_issue(self, cl: Cluster) -> bool:
        nc = len(cl.cores)
        for i in range(nc):
            ci = (i + cl.cta_next_core + 1) % nc
            core = cl.cores[ci]
            run = self._kernel_for(core)
            if run is None or not core.can_issue_cta(run):
                continue
            if self.max_cta and self.tot_issued_cta >= self.max_cta:
                return False          # hit_max_cta_count: no more CTAs, of any kernel
            self.tot_issued_cta += 1
            cta_id, warps = next(run.ctas)
            run.issued += 1
            cs = run.cta_sampling
            if cs is not None and cs.method == "interval":
                cs.cta_started(cta_id, self.gpu_tot_sim_cycle + self.gpu_sim_cycle - run.start_cycle)
            if core.kernel is not run:
                self._notify("shader_bind", core.sid, run.rec.uid, run.rec.name)
            core.kernel = run
            self.live_ctas += 1
            core.issue_cta(run, cta_id, warps)
            run.sms.add(core.sid)
            core.l1_dirty = True
            cl.cta_next_core = ci
            return True
        return False

    def _kernel_for(self, core: ShaderCore) -> KernelRun | None:
        k = getattr(core, "kernel", None)
        if k is not None and k.more_ctas():
            return k
        if k is not None and core.n_live_ctas:
            return None          # finish this kernel's CTAs first
        for r in self.runs:
            if r.more_ctas():
                return r
        return None

    def cta_finished(self, core: ShaderCore, run: KernelRun, cta_id: int) -> None:
        self.n_cta_ends += 1
        self.live_ctas -= 1
        self.completed_cta += 1
        run.done += 1
        cs = run.cta_sampling
        if cs is not None and cs.method == "interval":
            if cs.cut_at is None:
                # a CTA ended before the rate was known: wave sampling, if the grid allows
                run.cta_sampling = self._wave_sampling(run)
            cs = None
        if cs is not None and cs.cta_done(run.done, self.gpu_tot_sim_cycle + self.gpu_sim_cycle, run.issued):
            if cs.skip:
                # tail in detail: the middle CTAs run functionally now, the last ones are timed
                for _ in range(cs.skip):
                    _cta, streams = next(run.ctas)
                    run_functionally(streams)
                run.issued += cs.skip
                run.done += cs.skip
            else:
                run.n_ctas = run.issued      # no more CTAs to the timing model: the rest run functionally
        if run.done >= run.n_ctas and run.issued >= run.n_ctas:
            run.finished = True

    def _finish(self, rec: KernelRecord, stopped: str | None = None) -> None:
        """End kernel ``rec``: it finished, or a stop limit (``stopped``: "cycle", "insn", ...)
        or a signal (``stopped``: "SIGINT", ...) ended it early."""
        import dataclasses
        run = next(r for r in self.runs if r.rec is rec)
        end = self.gpu_tot_sim_cycle + self.gpu_sim_cycle
        cycles = end - run.start_cycle
        # the run's elapsed cycles grew from the last kernel end, or from when the running
        # kernels began (the earliest of them, this one included), to now
        new_cycles = end - max(self._last_end, min(r.start_cycle for r in self.runs))
        self._last_end = end
        self.runs.remove(run)
        self._running.remove(rec)
        rec.end_cycles = self.now_cycles
        self.insn_done_before += run.thread_done
        if stopped is None:
            rec.stats = run.trace.stats
            if run.cta_sampling is not None and run.cta_sampling.cut_at is not None:
                # CTA sampling: the CTAs not issued run on the functional engine only
                if isinstance(run.trace, KernelTrace) and run.trace.window > 0:
                    run.trace.cut()          # (chunk by chunk, unrecorded: as fast as functional mode)
                else:
                    for _cta, streams in run.ctas:
                        run_functionally(streams)
            # drain the generator so the engine's final counts are complete
            for _ in run.ctas:
                pass
        else:
            # the CTAs never issued are not run (the point of the limit)
            why = stopped if stopped.startswith("SIG") else f"-gpgpu_max_{stopped}"
            rec.error = CudaError(Err.LaunchFailure, f"kernel '{rec.name}' stopped by {why}"
                                  + ("" if stopped.startswith("SIG") else " (the simulation reached its limit)"),
                                  sticky=True)
        self._fold_core_counters()
        idle = not self.runs
        if idle:
            self.gpu_tot_sim_cycle += self.gpu_sim_cycle
            self.gpu_sim_cycle = 0
            self.completed_cta = 0
        report = self._report_stats(rec)
        if stopped is not None:
            report = dataclasses.replace(report, thread_insn=run.thread_done, warp_insn=run.warp_done,
                                         ctas=run.issued, functional_insn=None, opcode_counts={},
                                         line_counts=None, stopped=why)
        report.cycles = cycles
        report.new_cycles = new_cycles if new_cycles != cycles else None
        report.counters = self.stats.snapshot()
        if self.sampling_mode != "off":
            sample_detailed(self, run, report, stopped is None and idle)
        rec.report_stats = report
        if idle:
            # gpgpu_sim::update_stats comes after the kernel's statistics were taken
            self.mem.update_stats(self.gpu_tot_sim_cycle)
        self._notify("kernel_end", report)

    def fresh_sms(self, run: KernelRun) -> bool:
        """Whether ``run``, just simulated in detail, had CTAs on an SM that had not run its
        kernel before (in detail), on a GPU whose SMs keep a kernel's state between launches
        (:attr:`sm_state`); the SMs it used now count as having run it.  Such an SM fetched
        the kernel's code and parameters into cold caches: a kernel of fewer CTAs than SMs,
        issued round robin from the SM after the last one that issued, meets a fresh SM
        launch after launch until it has been on every SM, and those launches are slower than
        the later ones (``kernel_sampling.KernelSampler.record_detailed``)."""
        if not self.sm_state:
            return False
        warm = self._warm_sms.setdefault(run.rec.name, set())
        fresh = not run.sms <= warm
        warm |= run.sms
        return fresh

    def insn_done(self) -> int:
        """Thread instructions completed since the program started (``limits.insn_done``)."""
        return insn_done(self)

    def _fold_core_counters(self) -> None:
        st = self.stats
        now = self.gpu_tot_sim_cycle + self.gpu_sim_cycle
        for c in self.cores:
            c.settle_sleep(now)
        self.mem.publish_stats()
        l1ds = [c.ldst.l1d for c in self.cores if c.ldst.l1d is not None]
        l1ts = [c.ldst.l1t for c in self.cores if c.ldst.l1t is not None]
        l1cs = [c.ldst.l1c for c in self.cores if c.ldst.l1c is not None]
        if l1ds:
            # the core breakdown sums every L1 of the core (ldst_unit::get_cache_stats)
            publish_cache_stats(st, l1ds, "L1D", per_unit="L1D_core", breakdown="core_cache_breakdown",
                                fail_breakdown="core_cache_fail_breakdown", port="L1D",
                                breakdown_caches=l1ds + l1cs + l1ts)
        if l1ts:
            publish_cache_stats(st, l1ts, "L1T")
        if l1cs:
            publish_cache_stats(st, l1cs, "L1C")
        l1is = [c.icache.cache for c in self.cores if c.icache is not None]
        if l1is:
            publish_l1i_stats(st, l1is, add_to_l1d=bool(l1ds))
        for cache in ("L1I", "L1C", "L1T"):
            # perfect instruction/constant caches (every shipped 4.x config): GPGPU-Sim prints
            # these totals as 0 in that case
            for what in ("accesses", "misses", "pending_hits", "reservation_fails"):
                st.values.setdefault(f"{cache}_total_cache_{what}", 0)
        st.set("gpgpu_n_tot_w_icount", sum(c.n_warp_insn for c in self.cores))
        st.set("gpgpu_n_tot_thrd_icount", sum(c.n_thread_insn for c in self.cores))
        st.set("gpu_reg_bank_conflict_stalls", sum(c.opcoll.stats_bank_conflicts for c in self.cores))
        publish_issue_stats(st, self.cores, now)

    def abort(self) -> list[KernelRecord]:
        dropped = super().abort()
        for run in self.runs:
            run.ctas.close()
        self.runs = []
        self._rebuild()
        return dropped

    # ------------------------------------------------------------------ copies
    def memcpy(self, op: Any) -> None:
        """A host-to-device copy also places its data in L2 (``-gpgpu_perf_sim_memcpy``,
        ``gpgpu_sim::perf_memcpy_to_gpu``: every 32-byte sector of the destination); so does a
        device-to-host copy for its source (``gpgpu_t::memcpy_from_gpu`` calls the same
        ``perf_memcpy_to_gpu``): a dirty L2 sector it covers becomes clean (the forced fill sets
        it VALID), and a line it allocates evicts its victim without a write-back."""
        super().memcpy(op)
        if not op.nbytes:
            return
        kind = self._resolve(op.direction, op.dst, op.src)
        if kind == MemcpyKind.HostToDevice:
            self._perf_memcpy(int(op.dst), op.nbytes)
        elif kind == MemcpyKind.DeviceToHost:
            self._perf_memcpy(int(op.src), op.nbytes)

    def memcpy2d(self, op: Any) -> None:
        super().memcpy2d(op)
        if self._resolve(op.direction, op.dst, op.src) == MemcpyKind.HostToDevice and isinstance(op.dst, int):
            for row in range(op.height):
                self._perf_memcpy(op.dst + row * op.dpitch, op.width)

    def _perf_memcpy(self, addr: int, nbytes: int) -> None:
        if bool(self.config.get("gpgpu_perf_sim_memcpy")):
            self.fill_l2(addr, nbytes)
            if self.gmem.sectors is not None:
                self.gmem.sectors.fill(addr, nbytes)

    def fill_l2(self, addr: int, nbytes: int) -> None:
        """Make every 32-byte sector of ``nbytes`` at ``addr`` valid in L2, now: a copy under
        ``-gpgpu_perf_sim_memcpy``, or what a projected launch was first to read
        (``projection.project_launch``).  The machine is no longer known idle."""
        self._seen_idle = False
        self.mem.fill_l2(addr, nbytes, self.gpu_tot_sim_cycle + self.gpu_sim_cycle)
