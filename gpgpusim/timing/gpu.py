"""The clocked GPU: performance simulation (``-gpgpu_ptx_sim_mode 0``; GPGPU-Sim ``gpgpu_sim``).

Checklist C058-C062 (clock domains, ``cycle()``, ``active()``), C065-C069 (clusters), C131-C137
(CTA scheduling), C134 (concurrent kernels), C202 (deadlock detection), C012 (perfect memory).  The stop
limits of C011 (``-gpgpu_max_cycle/_insn/_cta``) are parsed but not enforced yet.

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
* **Instruction feed**: the trace feed (``timing/feed.py``): each kernel's grid runs on the
  batched functional engine chunk by chunk as its CTAs are issued, recording every warp's
  dynamic instructions; the timing model replays them.  Values and control flow are therefore
  those of the functional engine; kernels whose values depend on timing (``feed.needs_live_feed``)
  run with the same feed and say so once on stderr (the live feed is not built yet).
* **Deadlock detection** (C202, ``-gpgpu_deadlock_detect``): no instruction issued for
  ``DEADLOCK_CYCLES`` core cycles while work is pending ends the run's kernels with a sticky
  ``cudaErrorLaunchFailure`` after printing every component's state.

Counters: the report's GPGPU-Sim stat names (``report/stats.py``), cumulative since program
start, handed to ``Reporter.kernel_end`` with each finished kernel.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from gpgpusim.errors import CudaError, Err, report_internal_error
from gpgpusim.report.stats import StatsRegistry
from gpgpusim.runtime.gpu import Gpu, KernelRecord

from .clock import CORE, ClockDomains
from .core.shader import ShaderCore

#: core cycles without an issued instruction before the deadlock detector fires (GPGPU-Sim
#: uses 200,000 cycles without a committed instruction)
DEADLOCK_CYCLES = 200_000


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


class KernelRun:
    """A running kernel: its trace feed, static table and CTA accounting."""

    def __init__(self, rec: KernelRecord, trace: Any, table: Any, max_cta_per_core: int,
                 latency: int) -> None:
        self.rec = rec
        self.trace = trace
        self.table = table
        self.ctas = trace.ctas()
        self.n_ctas = trace.ncta
        self.issued = 0
        self.done = 0
        self.warps_per_cta = trace.warps_per_cta
        self.padded_threads_per_cta = self.warps_per_cta * 32
        self.max_cta_per_core = max(1, max_cta_per_core)
        self.latency_left = latency
        self.start_cycle = 0
        self.finished = False
        self.error: CudaError | None = None

    def more_ctas(self) -> bool:
        return self.issued < self.n_ctas and self.latency_left == 0 and self.error is None


class Cluster:
    """A SIMT core cluster (``simt_core_cluster``): its cores share one interconnect port and
    one response FIFO of ``-gpgpu_n_cluster_ejection_buffer_size`` entries."""

    def __init__(self, cid: int, gpu: TimingGpu, n_cores: int, first_sid: int) -> None:
        self.cid = cid
        self.gpu = gpu
        self.cores: list[ShaderCore] = []
        self.cta_next_core = n_cores - 1
        self.response: list[Any] = []
        self.eject = max(1, int(gpu.config.get("gpgpu_n_cluster_ejection_buffer_size")))
        for i in range(n_cores):
            self.cores.append(ShaderCore(first_sid + i, self, gpu.config, gpu.stats))

    def can_inject(self, mf: Any) -> bool:
        if self.gpu.perfect_mem:
            return True
        return self.gpu.mem.can_inject(self.cid, mf)

    def inject(self, mf: Any, now: int) -> None:
        if self.gpu.perfect_mem:
            # -gpgpu_perfect_mem (C012): GPGPU-Sim's perfect_memory_interface turns the request
            # into its reply at once, in the cluster's response FIFO
            mf.is_reply = True
            self.response.append(mf)
            return
        self.gpu.mem.inject(self.cid, mf, now)

    def icnt_cycle(self, now: int) -> None:
        """``simt_core_cluster::icnt_cycle``: hand one reply to its core, take one from the
        interconnect."""
        if self.response:
            mf = self.response[0]
            core = self.cores[mf.core_id - self.cores[0].sid]
            if not core.response_buffer_full():
                self.response.pop(0)
                if not mf.is_write:             # memlatstat_read_done
                    self.gpu.mem.record_mf_latency(mf, now)
                core.accept_response(mf, now)
        if len(self.response) < self.eject:
            mf = self.gpu.mem.pop_reply(self.cid, now)
            if mf is not None:
                self.response.append(mf)

    def busy(self) -> bool:
        return bool(self.response) or any(c.busy() for c in self.cores)


class TimingGpu(Gpu):
    """Performance-mode GPU: replaces the functional ``advance()`` with cycles."""

    functional = False

    def __init__(self, config: Any = None, gmem: Any = None, reporter: Any = None, **kw: Any) -> None:
        super().__init__(config, gmem, reporter, **kw)
        from gpgpusim.options import load_config
        if config is None:
            config = self.config = load_config(None)
        self.stats = StatsRegistry()
        for name in ZERO_COUNTERS:       # GPGPU-Sim prints these even when nothing happened
            self.stats.set(name, 0)
        self._build()
        self.gpu_tot_sim_cycle = 0
        self.deadlock_detect = bool(config.get("gpgpu_deadlock_detect"))
        self.max_cycle = int(config.get("gpgpu_max_cycle") or 0)
        self.max_insn = int(config.get("gpgpu_max_insn") or 0)
        self.progress = os.environ.get("GPGPUSIM_PROGRESS", "1") != "0"
        self.liveness_s = float(config.get("liveness_message_freq") or 0)
        self._t_start = self._last_liveness = time.time()
        self._live_note_done: set[str] = set()
        self._last_limit_kernel = ""
        from gpgpusim.runtime import interrupt
        interrupt.on_interrupt(self._on_interrupt)

    def _on_interrupt(self, signum: int) -> None:
        """SIGINT/SIGTERM during a performance run: say how far the running kernels got (the
        shutdown then prints the statistics of the finished kernels and writes the JSON)."""
        from gpgpusim.runtime import hostio
        insn = sum(c.n_thread_insn for c in self.cores)
        for run in list(self.runs):
            hostio.out(f"GPGPU-Sim: interrupted kernel '{run.rec.name}' (uid {run.rec.uid}) at "
                       f"gpu_sim_cycle = {self.gpu_sim_cycle} (gpu_tot_sim_cycle = "
                       f"{self.gpu_tot_sim_cycle + self.gpu_sim_cycle}); {run.done} of {run.n_ctas} CTAs "
                       f"done; {insn} thread instructions issued since the start of the run\n")

    # ------------------------------------------------------------------ construction
    def _build(self) -> None:
        cfg = self.config
        from .memory import MemorySystem
        self.l1d_assoc: int | None = getattr(self, "l1d_assoc", None)
        n_clusters = int(cfg.get("gpgpu_n_clusters"))
        per = int(cfg.get("gpgpu_n_cores_per_cluster"))
        self.n_cores = n_clusters * per
        self.mem = MemorySystem(cfg, self.stats, n_clusters)
        self.clusters = [Cluster(i, self, per, i * per) for i in range(n_clusters)]
        self.cores = [c for cl in self.clusters for c in cl.cores]
        self.awake: list[ShaderCore] = list(self.cores)   # cores to cycle (the rest sleep)
        self._woken: set[ShaderCore] = set()
        self.last_cluster_issue = n_clusters - 1
        self.clock = ClockDomains.from_config(cfg)
        self.flush_l1 = bool(cfg.get("gpgpu_flush_l1_cache"))
        self.perfect_mem = bool(cfg.get("gpgpu_perfect_mem"))
        self.flush_l2 = bool(cfg.get("gpgpu_flush_l2_cache"))
        self.runs: list[KernelRun] = []
        self.gpu_sim_cycle = 0
        self.live_ctas = 0
        self.skipped_cycles = 0
        self.skip_idle = os.environ.get("GPGPUSIM_SKIP_IDLE", "1") != "0"
        self.last_issue_cycle = 0

    def make_l1d(self, sid: int) -> Any:
        """The L1 data cache of core ``sid`` (None when ``-gpgpu_cache:dl1 none``), with the
        associativity of the current adaptive carve-out (``occupancy.max_cta``)."""
        import dataclasses

        from .cache import Cache
        dl1 = self.config.get("gpgpu_cache:dl1")
        if dl1 is None or isinstance(dl1, str):
            return None
        if self.l1d_assoc is not None and self.l1d_assoc != dl1.assoc:
            dl1 = dataclasses.replace(dl1, assoc=self.l1d_assoc)
        return Cache(f"L1D_{sid}", dl1, "L1D", level=1,
                     wr_percent=int(self.config.get("gpgpu_l1_cache_write_ratio") or 0))

    def new_fetch(self, acc: Any, inst: Any, space: str, is_store: bool, core: ShaderCore,
                  bypass: bool) -> Any:
        from .mem_fetch import MemFetch
        if inst.is_atomic:
            at = "GLOBAL_ACC_R"
        else:
            at = ("LOCAL_ACC_W" if is_store else "LOCAL_ACC_R") if space == "local" else (
                "GLOBAL_ACC_W" if is_store else "GLOBAL_ACC_R")
        return MemFetch(acc.addr, acc.size, is_store and not inst.is_atomic, at,
                        sector_mask=acc.sector_mask, byte_mask=acc.byte_mask, core_id=core.sid,
                        cluster_id=core.cluster.cid, warp_id=inst.slot, is_atomic=inst.is_atomic,
                        token=inst, timestamp=self.gpu_tot_sim_cycle + self.gpu_sim_cycle)

    # ------------------------------------------------------------------ kernels
    def start_kernel(self, op: Any, stream_id: int | None = None) -> KernelRecord:
        rec = super().start_kernel(op, stream_id)
        if len(self._running) == 1 and not self._machine_busy():
            self.gpu_sim_cycle = 0
            self.clock.reset()
        try:
            run = self._make_run(rec)
        except CudaError as exc:
            rec.error = exc
            return rec
        except Exception as exc:  # noqa: BLE001 - a model bug must not take the app down
            rec.error = CudaError(Err.LaunchFailure, report_internal_error(f"kernel '{op.kernel}'", exc),
                                  sticky=True)
            return rec
        run.start_cycle = self.gpu_tot_sim_cycle + self.gpu_sim_cycle
        self.last_issue_cycle = run.start_cycle + run.latency_left
        rec.start_cycles = self.now_cycles
        self.runs.append(run)
        return rec

    def _make_run(self, rec: KernelRecord) -> KernelRun:
        from .occupancy import max_cta
        from .feed import needs_live_feed, record_kernel
        from .static import build_table
        from .core.table import CoreTable
        op = rec.op
        kw = dict(op.launch_kwargs)
        kw.pop("driver", None)
        trace = record_kernel(op.module, op.kernel, op.grid, op.block, op.dyn_smem_bytes, op.params,
                              gmem=self.gmem, **kw)
        prog = trace.prog
        key = ("timing_table", op.kernel)
        cache = getattr(op.module, "cache", None)
        table = cache.get(key) if cache is not None else None
        if table is None:
            table = CoreTable(build_table(prog, self.config), len(prog.insts), prog)
            if cache is not None:
                cache[key] = table
        why = needs_live_feed(prog)
        if why and op.kernel not in self._live_note_done:
            self._live_note_done.add(op.kernel)
            sys.stderr.write(f"GPGPU-Sim: NOTE: kernel {op.kernel} {why}; it is timed from its "
                             f"functional trace (the live feed is not built yet)\n")
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
        return KernelRun(rec, trace, table, n, int(self.config.get("gpgpu_kernel_launch_latency") or 0))

    def _machine_busy(self) -> bool:
        return bool(self.runs) or not self.mem.idle() or any(cl.busy() for cl in self.clusters)

    def advance(self) -> list[KernelRecord]:
        """Simulate cycles until at least one running kernel finishes; return those."""
        if not self._running:
            return []
        failed = [r for r in self._running if r.error is not None]
        if failed:
            for r in failed:
                self._running.remove(r)
                r.end_cycles = self.now_cycles
            return failed
        t0 = time.perf_counter()
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
        return done

    def _fail_all(self, exc: CudaError) -> list[KernelRecord]:
        done = []
        for run in self.runs:
            run.rec.error = exc
            run.rec.end_cycles = self.now_cycles
            done.append(run.rec)
            if run.rec in self._running:
                self._running.remove(run.rec)
        self.runs = []
        self._build()        # the machine state of a failed run is not reused
        return done

    # ------------------------------------------------------------------ the cycle loop
    def _simulate(self) -> list[KernelRecord]:
        finished: list[KernelRecord] = []
        step = self.clock.step
        clusters = self.clusters
        mem = self.mem
        reply_net = mem.icnt.reply       # where replies wait for their cluster (icnt_pop)
        while not finished:
            if self.live_ctas == 0 and self.skip_idle and self.runs and not any(
                    r.more_ctas() for r in self.runs) and mem.idle():
                self._fast_forward()
            mask = step()
            now = self.gpu_tot_sim_cycle + self.gpu_sim_cycle
            if mask & CORE:
                out_buf = reply_net.out_buf if reply_net.n_out else None
                for cl in clusters:
                    if cl.response or (out_buf is not None and out_buf[cl.cid]):
                        cl.icnt_cycle(now)
            if mask & ~CORE:
                mem.step(mask, now)
            if mask & CORE:
                more = any(r.more_ctas() for r in self.runs)
                if self.skip_idle:
                    aw = self.awake
                    if self._woken:
                        aw = sorted(set(aw) | self._woken, key=_core_order)
                        self._woken.clear()
                    for core in aw:
                        core.cycle(now)
                    self.awake = [c for c in aw if not c.asleep]
                else:   # the reference loop: every core that has work or threads, every cycle
                    for core in self.cores:
                        if core.n_live_ctas or not core.asleep:
                            core.cycle(now)
                self.gpu_sim_cycle += 1
                self.now_cycles += 1
                if more:
                    self._issue_block2core()
                for r in self.runs:
                    if r.latency_left > 0:
                        r.latency_left -= 1
                if self.flush_l1:
                    for core in self.cores:
                        if not core.n_live_ctas and core.ldst.l1d is not None and core.l1_dirty:
                            core.ldst.invalidate_l1()
                            core.l1_dirty = False
                for r in self.runs:
                    if r.finished:
                        finished.append(r.rec)
                if finished:
                    break
                if not self.gpu_sim_cycle & 1023:
                    self._check_limits()
                    self._liveness()
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
        need = min(waits)
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

    def _liveness(self) -> None:
        """GPGPU-Sim's periodic liveness line (``-liveness_message_freq`` seconds apart; off
        with ``GPGPUSIM_PROGRESS=0``), and a pending Ctrl-C/SIGTERM stops the loop."""
        from gpgpusim.runtime import interrupt
        while interrupt.requested:
            # Ctrl-C/SIGTERM: the shutdown thread reports and ends the process; stop here so
            # the counters it prints do not move under it
            time.sleep(0.05)
        if not self.progress:
            return
        now = time.time()
        if now - self._last_liveness < self.liveness_s:
            return
        self._last_liveness = now
        insn = sum(c.n_thread_insn for c in self.cores)
        self._notify("progress", self.gpu_tot_sim_cycle + self.gpu_sim_cycle, insn,
                          now - self._t_start, now)

    def _check_limits(self) -> None:
        issued = max((c.last_issue for c in self.cores), default=0)
        cur = self.gpu_tot_sim_cycle + self.gpu_sim_cycle
        if self.deadlock_detect and cur - max(issued, self.last_issue_cycle) > DEADLOCK_CYCLES:
            dump = "\n".join(c.dump_state() for c in self.cores if c.busy())
            sys.stderr.write("GPGPU-Sim uArch: ERROR ** deadlock detected: no instruction issued for "
                             f"{DEADLOCK_CYCLES} cycles (cycle {self.gpu_sim_cycle})\n{dump}\n{self.mem.dump_state()}\n")
            names = ", ".join(r.rec.name for r in self.runs)
            raise CudaError(Err.LaunchFailure, f"simulator deadlock in kernel(s) {names} at cycle "
                                               f"{self.gpu_sim_cycle}: no instruction issued for "
                                               f"{DEADLOCK_CYCLES} cycles", sticky=True)

    def _issue_block2core(self) -> None:
        n = len(self.clusters)
        last = self.last_cluster_issue
        for i in range(n):
            idx = (i + last + 1) % n
            cl = self.clusters[idx]
            if self._cluster_issue(cl):
                self.last_cluster_issue = idx

    def _cluster_issue(self, cl: Cluster) -> bool:
        nc = len(cl.cores)
        for i in range(nc):
            ci = (i + cl.cta_next_core + 1) % nc
            core = cl.cores[ci]
            run = self._kernel_for(core)
            if run is None or not core.can_issue_cta(run):
                continue
            cta_id, warps = next(run.ctas)
            run.issued += 1
            if core.kernel is not run:
                self._notify("shader_bind", core.sid, run.rec.uid, run.rec.name)
            core.kernel = run
            self.live_ctas += 1
            core.issue_cta(run, cta_id, warps)
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
        self.live_ctas -= 1
        run.done += 1
        if run.done >= run.n_ctas and run.issued >= run.n_ctas:
            run.finished = True

    def _finish(self, rec: KernelRecord) -> None:
        run = next(r for r in self.runs if r.rec is rec)
        self.runs.remove(run)
        self._running.remove(rec)
        cycles = self.gpu_tot_sim_cycle + self.gpu_sim_cycle - run.start_cycle
        rec.end_cycles = self.now_cycles
        rec.stats = run.trace.stats
        # drain the generator so the engine's final counts are complete
        for _ in run.ctas:
            pass
        self._fold_core_counters()
        if not self.runs:
            self.gpu_tot_sim_cycle += self.gpu_sim_cycle
            self.gpu_sim_cycle = 0
        report = self._report_stats(rec)
        report.cycles = cycles
        report.counters = self.stats.snapshot()
        rec.report_stats = report
        self._notify("kernel_end", report)

    def _fold_core_counters(self) -> None:
        from .cache import publish_cache_stats
        st = self.stats
        now = self.gpu_tot_sim_cycle + self.gpu_sim_cycle
        for c in self.cores:
            c.settle_sleep(now)
        self.mem.publish_stats()
        l1ds = [c.ldst.l1d for c in self.cores if c.ldst.l1d is not None]
        if l1ds:
            publish_cache_stats(st, l1ds, "L1D", per_unit="L1D_core", breakdown="core_cache_breakdown",
                                fail_breakdown="core_cache_fail_breakdown", port="L1D")
        for cache in ("L1I", "L1C", "L1T"):
            # perfect instruction/constant caches (every shipped 4.x config), no texture cache
            # model yet: GPGPU-Sim prints these totals as 0 in that case
            for what in ("accesses", "misses", "pending_hits", "reservation_fails"):
                st.values.setdefault(f"{cache}_total_cache_{what}", 0)
        st.set("gpgpu_n_tot_w_icount", sum(c.n_warp_insn for c in self.cores))
        st.set("gpgpu_n_tot_thrd_icount", sum(c.n_thread_insn for c in self.cores))
        st.set("gpu_reg_bank_conflict_stalls", sum(c.opcoll.stats_bank_conflicts for c in self.cores))

    def abort(self) -> list[KernelRecord]:
        dropped = super().abort()
        self.runs = []
        self._build()
        return dropped

    # ------------------------------------------------------------------ copies
    def memcpy(self, op: Any) -> None:
        """A host-to-device copy also places its data in L2 (``-gpgpu_perf_sim_memcpy``,
        ``gpgpu_sim::perf_memcpy_to_gpu``: every 32-byte sector of the destination); so does a
        device-to-host copy for its source (``gpgpu_t::memcpy_from_gpu`` calls the same
        ``perf_memcpy_to_gpu``): a dirty L2 sector it covers becomes clean (the forced fill sets
        it VALID), and a line it allocates evicts its victim without a write-back."""
        super().memcpy(op)
        from gpgpusim.runtime.gpu import MemcpyKind
        if not op.nbytes:
            return
        kind = self._resolve(op.direction, op.dst, op.src)
        if kind == MemcpyKind.HostToDevice:
            self._perf_memcpy(int(op.dst), op.nbytes)
        elif kind == MemcpyKind.DeviceToHost:
            self._perf_memcpy(int(op.src), op.nbytes)

    def memcpy2d(self, op: Any) -> None:
        super().memcpy2d(op)
        from gpgpusim.runtime.gpu import MemcpyKind
        if self._resolve(op.direction, op.dst, op.src) == MemcpyKind.HostToDevice and isinstance(op.dst, int):
            for row in range(op.height):
                self._perf_memcpy(op.dst + row * op.dpitch, op.width)

    def _perf_memcpy(self, addr: int, nbytes: int) -> None:
        if bool(self.config.get("gpgpu_perf_sim_memcpy")):
            self.mem.memcpy_to_l2(addr, nbytes, self.gpu_tot_sim_cycle + self.gpu_sim_cycle)
