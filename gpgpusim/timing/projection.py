"""Sampling on the GPU (``-gpgpusim_sampling*``): a launch whose group has converged is run on
the functional engine and its timing projected (:func:`project_launch`); a launch simulated
in detail feeds its group, and CTA sampling projects the CTAs it left to the functional
engine (:func:`sample_detailed`).  The models themselves are ``kernel_sampling.py`` and
``cta_sampling.py``; these functions are the GPU's glue (``gpu.py`` calls them)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from gpgpusim.device.gpu import KernelRecord
from gpgpusim.functional import engine

from .core.table import CoreTable
from .kernel_run import KernelRun
from .kernel_sampling import COLD, EXACT_COUNTERS, scalar_counters
from .live import choose_feed
from .static import Unit

#: the LD/ST unit's memory-instruction counters, by the space of the instruction
#: (``LdstUnit.issue``): each adds the lanes that executed it (active, guard true)
MEMORY_INSN_COUNTERS = ("gpgpu_n_load_insn", "gpgpu_n_store_insn", "gpgpu_n_shmem_insn",
                        "gpgpu_n_const_mem_insn", "gpgpu_n_param_mem_insn", "gpgpu_n_tex_insn")

_BY_SPACE = {"shared": "gpgpu_n_shmem_insn", "const": "gpgpu_n_const_mem_insn",
             "param": "gpgpu_n_param_mem_insn", "tex": "gpgpu_n_tex_insn"}


def memory_insn_counts(table: CoreTable, pc_thread: dict[int, int],
                       pc_generic: dict[int, list[int]] | None = None) -> dict[str, int] | None:
    """:data:`MEMORY_INSN_COUNTERS` of a launch from its functional run's thread
    instructions per pc (``KernelStats.pc_thread``), as ``LdstUnit.issue`` counts them for
    every instruction of the LD/ST unit: a shared, constant, parameter or texture access by
    its space, a global or local one (and one without memory: a fence) as a store or a load.
    A generic-address instruction's warps count under the space of their first access
    (``KernelStats.pc_generic``, by global, shared and local: ``mem_insts.count_generic``).
    None when an instruction's space is not known from these (a generic one without such
    counts, or with counts that do not add up to its thread instructions)."""
    counts = dict.fromkeys(MEMORY_INSN_COUNTERS, 0)
    mem = int(Unit.MEM)
    unit, space, store = table.unit, table.mem_space, table.is_store
    for pc, n in pc_thread.items():
        if unit[pc] != mem:
            continue
        sp = space[pc]
        name = _BY_SPACE.get(sp)
        if name is None:
            if sp not in ("global", "local", ""):
                by_space = None if pc_generic is None else pc_generic.get(pc)
                if by_space is None or sum(by_space) != n:
                    return None
                g, s, loc = by_space
                counts["gpgpu_n_shmem_insn"] += s
                counts["gpgpu_n_store_insn" if store[pc] else "gpgpu_n_load_insn"] += g + loc
                continue
            name = "gpgpu_n_store_insn" if store[pc] else "gpgpu_n_load_insn"
        counts[name] += n
    return counts

if TYPE_CHECKING:
    from .gpu import TimingGpu


def project_launch(gpu: TimingGpu, rec: KernelRecord, key: Any) -> bool:
    """Kernel sampling: when a group of ``key`` has converged, run the launch on the
    functional engine and, if it falls in a converged group, project its timing (True).
    Otherwise memory is restored to what it was before and the launch is simulated in
    detail (False).  Kernels that need the live feed (results that depend on timing) and
    cooperative launches are always simulated in detail.  The projected launch's report
    carries the cumulative scalar counters only, or every counter under
    ``-gpgpusim_sampling_full_stats 1`` (:func:`full_stats`; ``sampling["report"]`` says which)."""
    ks = gpu.ksampler
    assert ks is not None
    if not ks.candidate(key):
        return False
    op = rec.op
    kw = dict(op.launch_kwargs)
    kw.pop("driver", None)
    if kw.get("cooperative"):
        return False
    prog = engine.get_program(op.module, op.kernel)
    if choose_feed(gpu.config.get("gpgpusim_timing_feed"), gpu.live_reason(op, prog)) != "trace":
        return False
    saved = gpu.gmem.snapshot()
    printed: list[str] = []
    out = kw.pop("printf", None)
    line_stats = kw.get("line_stats")
    if isinstance(line_stats, dict):
        kw["line_stats"] = {}
    try:
        try:
            stats = engine.launch(op.module, op.kernel, op.grid, op.block, op.dyn_smem_bytes, op.params,
                                  gmem=gpu.gmem, driver="batched", printf=printed.append, **kw)
        except Exception:  # noqa: BLE001 - the detailed run reports the fault as it always does
            if saved.restorable():
                saved.restore()
                return False
            raise
        group, line = ks.source(key, int(stats.warp_insn), int(stats.thread_insn), stats.opcode_counts,
                                (stats.tx_reads, stats.tx_writes))
        if group is None and line is None and saved.restorable():
            saved.restore()
            return False
        fills = gpu.gmem.sectors.readable_since() if gpu.gmem.sectors is not None else []
    finally:
        saved.close()
    del saved
    if fills:
        # what the launch was first to read (or wrote whole) stays in L2 for the next detailed
        # launch, as after the launch in full detail (functional/sectors.py); nothing else of
        # the timing model's state changes
        for addr, nbytes in fills:
            gpu.fill_l2(addr, nbytes)
    if isinstance(line_stats, dict):
        for ln, v in kw["line_stats"].items():
            have = line_stats.setdefault(ln, [0] * len(v))
            for i, x in enumerate(v):
                have[i] += x
    if printed:
        text = "".join(printed)
        if out is not None:
            out(text)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    rec.stats = stats
    if gpu.sm_state:
        gpu.warm_sms(op, prog, stats.pc_thread, gpu.core_table(op, prog))
    cold = (stats.cold_reads, stats.cold_writes)
    tx = (stats.tx_reads, stats.tx_writes)
    if line is not None:
        cycles, bound, proj = ks.project_line(line, int(stats.warp_insn), int(stats.thread_insn), cold, tx)
        info = ks.line_info(line, cycles, bound)
    else:
        if group is None:
            # memory could not be put back (the kernel allocated device memory): keep the run
            # and project from the nearest converged group of the launch's shape
            group = next(g for g in ks.groups if ks.key(g.name, g.grid, g.block) == key and ks.converged(g))
        fit = ks.counter_line(key, int(stats.thread_insn), dict(stats.opcode_counts), tx)
        cycles, bound, proj = ks.project(group, int(stats.warp_insn), int(stats.thread_insn), cold, fit, tx)
        info = ks.projected_info(group, cycles, bound)
        if fit is not None:
            info["counter_line_groups"] = [g.gid for g in fit.groups]
    exact = memory_insn_counts(gpu.core_table(op, prog), stats.pc_thread, stats.pc_generic)
    if exact is not None:
        proj.update(exact)
    if "ctas_completed" in proj:
        proj["ctas_completed"] = int(stats.ctas)     # every CTA of the launch ran, functionally
    report = gpu._report_stats(rec)
    report.cycles = cycles
    for name, v in proj.items():
        gpu._proj_offset[name] = gpu._proj_offset.get(name, 0) + v
    full = full_stats(gpu)
    # the timing model did not run: its per-unit counters are those the last detailed launch
    # left, so the compact report carries only the scalar counters the projection changed
    report.counters = with_offset(gpu, gpu.stats.snapshot() if full else scalar_counters(gpu.stats.values))
    report.sampling = info
    report.sampling["mode"] = gpu.sampling_mode
    report.sampling["cold_reads"], report.sampling["cold_writes"] = cold
    report.sampling["report"] = "full" if full else "compact"
    rec.report_stats = report
    rec.start_cycles = gpu.now_cycles
    gpu.now_cycles += cycles
    rec.end_cycles = gpu.now_cycles
    gpu._proj_cycles += cycles
    gpu._projected.append(rec)
    return True


def full_stats(gpu: TimingGpu) -> bool:
    """``-gpgpusim_sampling_full_stats``: a projected launch reports every counter (1), not
    only the projected ones (0, the default)."""
    try:
        return bool(int(gpu.config.get("gpgpusim_sampling_full_stats") or 0))
    except (KeyError, TypeError, ValueError):
        return False


def with_offset(gpu: TimingGpu, counters: dict[str, Any]) -> dict[str, Any]:
    """The model's cumulative counters plus the projected launches' (scalar counters)."""
    for name, v in gpu._proj_offset.items():
        counters[name] = counters.get(name, 0) + v
    return counters


def sample_detailed(gpu: TimingGpu, run: KernelRun, report: Any, alone: bool) -> None:
    """A kernel simulated by the timing model under sampling: CTA sampling projects the
    CTAs it left to the functional engine; its counters carry the projected launches' and
    CTAs' too; under kernel sampling, when it ran alone, it becomes a sample of its group."""
    real = scalar_counters(gpu.stats.values)
    delta = {k: v - gpu._real_scalars.get(k, 0) for k, v in real.items()}
    gpu._real_scalars = real
    cta: dict[str, Any] | None = None
    cs = run.cta_sampling
    if cs is not None and cs.cut_at is not None and report.stopped is None and report.cycles is not None:
        detailed = report.cycles
        cycles, bound, rest = cs.project(detailed, report.warp_insn, delta.get("gpgpu_n_tot_w_icount", 0))
        extra = cs.project_counters({k: v for k, v in delta.items() if k not in EXACT_COUNTERS}, report.warp_insn)
        extra["gpgpu_n_tot_thrd_icount"] = report.thread_insn - delta.get("gpgpu_n_tot_thrd_icount", 0)
        extra["gpgpu_n_tot_w_icount"] = report.warp_insn - delta.get("gpgpu_n_tot_w_icount", 0)
        fst = run.rec.stats
        exact = memory_insn_counts(run.table, fst.pc_thread, fst.pc_generic) if fst is not None else None
        if exact is not None:
            for k, v in exact.items():
                extra[k] = v - delta.get(k, 0)
        if fst is not None:
            if "ctas_completed" in delta:
                extra["ctas_completed"] = int(fst.ctas) - delta["ctas_completed"]
            # compulsory misses are a floor: each sector the launch was first to read or write
            # misses in L2 once, whichever of its CTAs were timed (a grid whose CTAs write their
            # results last, after the interval the rest is projected from)
            for k, (per_read, per_write) in COLD.items():
                short = per_read * fst.cold_reads + per_write * fst.cold_writes - delta.get(k, 0) - extra.get(k, 0)
                if short > 0 and k in delta:
                    extra[k] = extra.get(k, 0) + short
        for k, v in extra.items():
            gpu._proj_offset[k] = gpu._proj_offset.get(k, 0) + v
            delta[k] = delta.get(k, 0) + v
        report.cycles = cycles
        gpu._proj_cycles += cycles - detailed
        gpu.now_cycles += cycles - detailed
        run.rec.end_cycles = gpu.now_cycles
        cta = cs.info(cycles, detailed, bound)
    report.counters = with_offset(gpu, report.counters)
    ks = gpu.ksampler
    fresh = gpu.fresh_sms(run)
    if ks is not None and alone and run.sample_key is not None and report.cycles is not None:
        fst = run.rec.stats
        cold = (fst.cold_reads, fst.cold_writes) if fst is not None else (0, 0)
        g = ks.record_detailed(run.sample_key, run.rec.uid, report.warp_insn, dict(report.opcode_counts),
                               report.cycles, delta, cta["cycles_bound_rel"] if cta is not None else 0.0,
                               report.thread_insn, cold,
                               (fst.tx_reads, fst.tx_writes) if fst is not None else (0, 0), fresh)
        report.sampling = ks.detailed_info(g)
        if fresh:
            report.sampling["fresh_sm"] = True
        report.sampling["cold_reads"], report.sampling["cold_writes"] = cold
    else:
        report.sampling = {"mode": gpu.sampling_mode, "status": "detailed", "group": None}
    report.sampling["mode"] = gpu.sampling_mode
    if cta is not None:
        report.sampling.update(status="cta_projected", cta=cta, cycles_bound=cta["cycles_bound"],
                               cycles_bound_rel=cta["cycles_bound_rel"])
