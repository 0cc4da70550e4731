"""The Reporter: every line of simulator output the runtime asks for, in GPGPU-Sim 4.2's text.

GPGPU-Sim counterparts: ``gpgpu_sim::print_stats`` / ``gpu_print_stat``,
``gpgpu_context::print_simulation_time``, the functional-mode printout of
``gpgpu_cuda_ptx_sim_main_func`` (cuda-sim.cc), the banner in ``gpgpusim_entrypoint.cc`` and
the option dump of ``option_parser_print`` (checklist C193-C199, C195).  Only ``report/``
formats text; the runtime hands in plain data (:mod:`gpgpusim.report.data`).

Call order the runtime follows: ``splash()``, ``option_dump()`` and ``perf_init()`` at start-up; per kernel
``kernel_launch(info)`` then either ``functional_done(stats)`` (functional mode) or
``kernel_end(stats)`` (performance mode, with cycles); ``exit()`` at process exit;
``write_json(path)`` when ``-o stats.json`` was given.

The JSON document (``gpgpusim run -o stats.json``; read by ``gpgpusim plot``):
``simulator`` (name, version, GPGPU-Sim version reproduced), ``mode`` (functional or
performance), ``gpu`` (shipped config name or null), ``config_sources``, ``config`` (every
option as the dump prints it), ``kernels`` (one record per launch: ``kernel_name``,
``kernel_launch_uid``, ``kernel_stream_id``, ``host_fun`` (hex, when the launch line printed it),
``grid``, ``block``, ``ctas``, ``thread_insn``,
``warp_insn``, ``functional_insn``, ``opcode_counts``, ``elapsed_s`` (the engine's wall time for
the kernel), ``gpu_tot_sim_insn``, ``gpu_tot_issued_cta``, the figures of the lines printed after
the kernel exactly as printed (``functional_tot_insn`` in functional mode, ``simulation_time``,
``simulation_elapsed_s``, ``simulation_insn``, ``simulation_rate_inst_per_s``, and with cycles
``simulation_rate_cycle_per_s``, ``silicon_slowdown``), and with a timing model ``cycles``,
``gpu_ipc``, ``gpu_tot_sim_cycle`` and per-kernel ``counters``), ``totals`` (run totals, the
instruction mix, the last printed simulation time and rates, cumulative ``counters``),
``samples`` (the periodic sampler's records, each with its ``cycle`` and ``tot_cycle``) and
``run`` (what the runtime adds, e.g. argv).  Every number the text output shows for a kernel
is in its record under one of these names, with the same value.
"""

from __future__ import annotations

import copy
import json
import marshal
import os
import tempfile
import threading
import time
import zlib
from array import array
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from gpgpusim.native import model_kind

from .. import __version__ as _pkg_version
from ..options.config import ptxplus_enabled
from . import jsontext
from .data import KernelInfo, KernelStats
from .linestats import write_line_stats
from .stats import LINES, LazyDelta, Values, delta, render, rows_for


#: the version GPGPU-Sim's banner names; we reproduce 4.2.0's behaviour and statistics
GPGPUSIM_VERSION = "4.2.0"


def _default_out(text: str) -> None:
    print(text, flush=True)


def split_time(seconds: int) -> tuple[int, int, int, int]:
    """(days, hours, minutes, seconds) as GPGPU-Sim splits ``gpgpu_simulation_time``."""
    days = seconds // 86400
    hrs = seconds // 3600 - 24 * days
    mins = seconds // 60 - 60 * (hrs + 24 * days)
    secs = seconds - 60 * (mins + 60 * (hrs + 24 * days))
    return days, hrs, mins, secs


class Reporter:
    """Formats and emits the simulator's output through ``out`` (one call per line).

    Keeps the run's cumulative view (``gpu_tot_*``), the per-kernel records for JSON, and the
    snapshot of the timing model's counters taken at the previous kernel end.  Each finished
    record is folded into the run totals the exit line and :meth:`to_json`'s ``totals`` need,
    and kept compressed in a temporary file (:class:`_Packed`, :class:`_Spool`):
    about 60 bytes of memory a launch; with ``keep_kernels=False`` (no JSON
    will be written) it is dropped instead, so a program of millions of launches does not hold
    a record for each.
    """

    def __init__(self, cfg: Any, out: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.perf_counter,
                 out_lines: Callable[[list[str]], None] | None = None, keep_kernels: bool = True) -> None:
        self.cfg = cfg
        self.out = out or _default_out
        #: writes a whole block of lines at once (the statistics block: one write instead of
        #: thousands, which dominates a run of many small launches); else ``out`` per line
        self.out_lines = out_lines
        self._clock = clock
        self.start = clock()
        self.tot_insn = 0          # gpu_tot_sim_insn
        self.tot_func_insn = 0     # g_ptx_sim_num_insn (functional mode: predicated-off lanes too)
        self.tot_warp_insn = 0
        self.tot_cycles = 0        # gpu_tot_sim_cycle
        self.tot_ctas = 0          # gpu_tot_issued_cta
        #: the kernel records: the current one (a dict, still being filled in), after the
        #: finished ones, packed (:class:`_Packed`), unless ``keep_kernels`` is False
        self.kernels: list[Any] = []
        self.keep_kernels = keep_kernels
        self._folded = _Folded()       # the finished records, summed
        self._spool = _Spool()         # where the finished records kept are
        self._samples = SampleLog()
        self.line_counts: dict[tuple[str, int], int] = {}
        self._prev_counters: dict[str, Any] = {}
        self._last_counters: dict[str, Any] = {}
        self._exited = False
        self._printed: dict[str, Any] = {}   # the latest simulation time/rate lines' figures
        self._host_fun: dict[int, int] = {}    # kernel uid -> host stub address printed at launch
        # the rows of LINES a compact projected report can print, for its counters' names
        self._compact_names: tuple[frozenset[str], frozenset[str]] | None = None
        self._compact_rows: list[Any] = []

    # ---- start-up ---------------------------------------------------------------------------

    def splash(self) -> None:
        """The start-up banner and the simulation-mode note, as GPGPU-Sim prints them."""
        mode = 1 if self.cfg.functional_only else 0
        build = f"gpgpusim-python-{_pkg_version}"
        for line in ("", "", f"        *** GPGPU-Sim Simulator Version {GPGPUSIM_VERSION}  [build {build}] ***",
                     "", "",
                     f"GPGPU-Sim PTX: simulation mode {mode} (can change with PTX_SIM_MODE_FUNC environment variable:",
                     "               1=functional simulation only, 0=detailed performance simulator)"):
            self.out(line)

    def option_dump(self) -> None:
        """``GPGPU-Sim: Configuration options:`` followed by every option and its value."""
        self.out("GPGPU-Sim: Configuration options:")
        self.out("")
        for line in self.cfg.dump_lines():
            self.out(line)

    # ---- performance-model messages (the timing model calls these) -------------------------

    def perf_init(self, n_mem_sub_partitions: int | None = None) -> None:
        """What GPGPU-Sim prints while it builds the GPU model after the option dump (in both
        simulation modes: ``gpgpu_sim`` is constructed either way): the ``DRAM Timing
        Options:`` block (keyed timing form only), the sub-partition count, the address-decoder
        masks, the clock domains in Hz and as periods, and the closing lines."""
        for line in self.cfg.dram_timing_lines():
            self.out(line)
        n = n_mem_sub_partitions if n_mem_sub_partitions is not None else self.cfg.num_mem_sub_partitions
        self.out(f"Total number of memory sub partition = {n}")
        for line in self.cfg.address_decoder_lines():
            self.out(line)
        hz = [f * 1e6 for f in self.cfg["gpgpu_clock_domains"].as_tuple()]
        self.out("GPGPU-Sim uArch: clock freqs: " + ":".join(f"{h:f}" for h in hz))
        self.out("GPGPU-Sim uArch: clock periods: " + ":".join(f"{1.0 / h:.20f}" for h in hz))
        self.out("*** Initializing Memory Statistics ***")
        self.out("GPGPU-Sim uArch: performance model initialization complete.")
        for line in self.unsupported_notes():
            self.out(line)

    def unsupported_notes(self) -> list[str]:
        """One line per option that asks for output this simulator does not produce yet, so a
        setting is never silently ignored.

        ``-gpgpu_ptx_instruction_classification``: GPGPU-Sim prints two histograms per kernel
        (instruction class and memory space; PTX opcode number), sampled per thread including
        predicated-off lanes.  The engine's per-opcode counts have neither the memory spaces nor
        the predicated-off lanes, so printing them would give different numbers under the same
        name; the JSON's ``opcode_counts`` hold each kernel's instruction mix instead.
        """
        notes = []
        if int(self.cfg.get("gpgpu_ptx_instruction_classification", 0) or 0):
            notes.append("GPGPU-Sim: NOTE: -gpgpu_ptx_instruction_classification is not supported: no "
                         "classification histograms are printed (per-kernel opcode counts are in the -o JSON)")
        return notes

    def shader_bind(self, core_id: int, kernel_uid: int, kernel_name: str) -> None:
        self.out(f"GPGPU-Sim uArch: Shader {core_id} bind to kernel {kernel_uid} '{kernel_name}'")

    def cta_limit(self, ctas_per_core: int, limited_by: str) -> None:
        """``limited_by`` is GPGPU-Sim's word: threads, regs, smem or cta_limit."""
        self.out(f"GPGPU-Sim uArch: CTA/core = {ctas_per_core}, limited by: {limited_by}")

    def l1_reconfigure(self, size_kb: int) -> None:
        self.out(f"GPGPU-Sim: Reconfigure L1 cache to {size_kb}KB")

    def kernel_finished_on_shader(self, kernel_name: str, core_id: int) -> None:
        self.out(f"GPGPU-Sim uArch: GPU detected kernel '{kernel_name}' finished on shader {core_id}.")

    def progress(self, cycle: int, insn: int, elapsed_s: float, now: float | None = None) -> None:
        """The liveness line printed at most every ``-liveness_message_freq`` seconds; it ends
        with the date as C's ``ctime`` writes it (day of month padded with a blank)."""
        rate = int(insn / elapsed_s) if elapsed_s > 0 else 0
        whole = int(elapsed_s)
        d, h, m, s = split_time(whole)
        ipc = insn / cycle if cycle else 0.0
        self.out(f"GPGPU-Sim uArch: cycles simulated: {cycle}  inst.: {insn} (ipc={ipc:4.1f}) "
                 f"sim_rate={rate} (inst/sec) elapsed = {d}:{h}:{m:02d}:{s:02d} / "
                 + time.asctime(time.localtime(now)))

    def functional_progress(self, kernel: str, insn: int, elapsed_s: float, now: float | None = None) -> None:
        """Functional mode's liveness line (no cycles are simulated there): the kernel running,
        the thread instructions of the whole run so far, then as :meth:`progress`."""
        rate = int(insn / elapsed_s) if elapsed_s > 0 else 0
        d, h, m, s = split_time(int(elapsed_s))
        self.out(f"GPGPU-Sim PTX: functional simulation: kernel '{kernel}' inst.: {insn} "
                 f"sim_rate={rate} (inst/sec) elapsed = {d}:{h}:{m:02d}:{s:02d} / "
                 + time.asctime(time.localtime(now)))

    def sync_wait(self) -> None:
        """What GPGPU-Sim prints when the host synchronizes on an idle simulator."""
        self.out("GPGPU-Sim: synchronize waiting for inactive GPU simulation")
        self.out("GPGPU-Sim API: Stream Manager State")
        self.out("GPGPU-Sim: detected inactive GPU simulation thread")

    # ---- kernels ----------------------------------------------------------------------------

    def kernel_launch(self, info: KernelInfo) -> None:
        """The launch messages: ``cudaLaunch for ...`` (when the host stub is known), ``pushing
        kernel ...`` and, in functional mode, ``Performing Functional Simulation ...``."""
        mode = "functional simulation" if info.functional else "performance simulation"
        if info.host_fun is not None:
            self._host_fun[info.uid] = info.host_fun
            # GPGPU-Sim prints "0x%p", hence the doubled "0x0x" prefix parsers expect.
            self.out(f"GPGPU-Sim PTX: cudaLaunch for 0x{info.host_fun:#x} (mode={mode}) on stream {info.stream_id}")
        for line in info.ptx_analysis:
            self.out(line)
        g, b = info.grid, info.block
        self.out(f"GPGPU-Sim PTX: pushing kernel '{info.name}' to stream {info.stream_id}, "
                 f"gridDim= ({g[0]},{g[1]},{g[2]}) blockDim = ({b[0]},{b[1]},{b[2]}) ")
        if info.functional:
            self.out(f"GPGPU-Sim: Performing Functional Simulation, executing kernel {info.name}...")

    def _account(self, stats: KernelStats) -> None:
        self.tot_insn += stats.thread_insn
        self.tot_func_insn += stats.functional_count
        self.tot_warp_insn += stats.warp_insn
        self.tot_ctas += stats.ctas
        if stats.cycles is not None:
            self.tot_cycles += stats.cycles if stats.new_cycles is None else stats.new_cycles
        if stats.line_counts:
            for key, n in stats.line_counts.items():
                self.line_counts[key] = self.line_counts.get(key, 0) + n
        if self.kernels:
            # the previous record is complete: it joins the run totals, and it is kept packed in
            # the spool file (~1.3 KB there for a projected launch, whose dicts take ~17 KB in
            # memory; a detailed one's counters, ~1 MB as Python objects, a few tens of KB) or,
            # without JSON, dropped
            prev = self.kernels.pop()
            self._folded.add(prev)
            if self.keep_kernels:
                self.kernels.append(_Packed(prev, self._spool))
        rec = stats.to_json()
        if stats.uid in self._host_fun:
            rec["host_fun"] = f"{self._host_fun.pop(stats.uid):#x}"
        rec["gpu_tot_sim_insn"] = self.tot_insn
        rec["gpu_tot_issued_cta"] = self.tot_ctas
        if stats.cycles is not None:
            rec["gpu_tot_sim_cycle"] = self.tot_cycles
            rec["gpu_ipc"] = stats.thread_insn / stats.cycles if stats.cycles else 0.0
        self.kernels.append(rec)

    def functional_done(self, stats: KernelStats) -> None:
        """What GPGPU-Sim prints after a kernel in functional mode (``-gpgpu_ptx_sim_mode 1``).

        The instruction count is cumulative over the run and counted as the C++ functional
        mode counts it (GPGPU-Sim's ``g_ptx_sim_num_insn``: predicated-off lanes included).
        The kernel's JSON record keeps the printed figures (``functional_tot_insn`` and the
        simulation time and rate, see :meth:`_simulation_time`).
        """
        self._account(stats)
        self.kernels[-1]["functional_tot_insn"] = self.tot_func_insn
        self.out(f"Destroy streams for kernel {stats.uid}: size 0")
        self.out(f"GPGPU-Sim: Done functional simulation ({self.tot_func_insn} instructions simulated).")
        self._simulation_time(with_cycles=False, insn=self.tot_func_insn)

    def kernel_end(self, stats: KernelStats) -> None:
        """The end-of-kernel statistics block (performance mode), then the simulation time.

        A projected launch reported compactly (:func:`projected_compact`) brings only its
        projected scalar counters: the block prints the lines those feed (the rest find no
        value and drop out, as any line does) and ends with :data:`COMPACT_NOTE`; the counters
        it did not bring are taken as unchanged for the next kernel's per-kernel values."""
        self._account(stats)
        now = stats.counters
        # without kept records (no JSON) only the block reads the per-kernel values: those it
        # prints are computed as it reads them
        per_kernel: Mapping[str, Any] = (delta(now, self._prev_counters) if self.keep_kernels
                                         else LazyDelta(now, self._prev_counters))
        compact = projected_compact(stats)
        if compact:
            # only the projected (scalar) counters changed: the rest stay as the last report left them
            prev = dict(self._prev_counters)
            prev.update(now)
            self._prev_counters = prev
        else:
            # kept, not copied: a kernel's counters are a snapshot of the model's
            # (``StatsRegistry.snapshot``) that nothing changes once it is reported
            self._prev_counters = now
        if now:  # the timing model's counters, per kernel (when records are kept) and cumulative, for the JSON
            if self.keep_kernels:
                self.kernels[-1]["counters"] = per_kernel
            self._last_counters = self._prev_counters
        total = dict(now)
        total.setdefault("gpgpu_n_tot_thrd_icount", self.tot_insn)
        total.setdefault("gpgpu_n_tot_w_icount", self.tot_warp_insn)
        elapsed = self._clock() - self.start
        fields: dict[str, Any] = {
            "kernel_name": stats.name, "kernel_launch_uid": stats.uid, "kernel_stream_id": stats.stream_id,
            "gpu_sim_insn": stats.thread_insn, "gpu_tot_sim_insn": self.tot_insn,
            "gpu_tot_issued_cta": self.tot_ctas, "elapsed_s": elapsed,
            "core_hz": self.cfg.core_clock_mhz * 1e6, "cfg": self.cfg,
        }
        if stats.cycles is not None:
            fields["gpu_sim_cycle"] = stats.cycles
            fields["gpu_tot_sim_cycle"] = self.tot_cycles
        values = Values(fields, per_kernel, total)
        self.kernels[-1]["gpu_total_sim_rate"] = values["gpu_total_sim_rate"]   # as the block prints it
        block = [f"Destroy streams for kernel {stats.uid}: size 0"]
        marks = sampling_lines(stats)
        rows = LINES
        if compact:
            names = (frozenset(per_kernel), frozenset(total))
            if names != self._compact_names:
                self._compact_names, self._compact_rows = names, rows_for(LINES, per_kernel, total)
            rows = self._compact_rows
        for line in render(rows, values):
            block.append(line)
            if marks and line.startswith("gpu_sim_cycle = "):
                block += marks
                marks = []
        block += marks
        if compact:
            block.append(COMPACT_NOTE)
        self._simulation_time(with_cycles=stats.cycles is not None, lead=block)

    def _emit(self, lines: list[str]) -> None:
        if self.out_lines is not None:
            self.out_lines(lines)
        else:
            for line in lines:
                self.out(line)

    def _simulation_time(self, with_cycles: bool, insn: int | None = None, lead: list[str] | None = None) -> None:
        """``gpgpu_simulation_time`` (whole seconds, at least 1, as GPGPU-Sim) and the rates,
        which use the real elapsed time (not whole seconds).

        The printed figures are stored, exactly as printed, in the current kernel's JSON record
        and as the run's latest (``totals``): ``simulation_time`` (days, hrs, min, sec and the
        whole seconds), ``simulation_elapsed_s`` (the time the rates divide by),
        ``simulation_rate_inst_per_s`` and, with cycles, ``simulation_rate_cycle_per_s`` and
        ``silicon_slowdown``.  GPGPU-Sim prints no blank line after these lines.  In PTXPlus mode
        ``gpgpu_simulation_isa`` follows them, naming the ISA simulated.  ``lead``: lines that go
        before them (the statistics block), written together with them in one piece.
        """
        elapsed = max(self._clock() - self.start, 1e-9)
        whole = max(int(elapsed), 1)
        d, h, m, s = split_time(whole)
        total = self.tot_insn if insn is None else insn
        rate = int(total / elapsed)
        printed: dict[str, Any] = {
            "simulation_time": {"days": d, "hrs": h, "min": m, "sec": s, "total_sec": whole},
            "simulation_elapsed_s": elapsed, "simulation_insn": total, "simulation_rate_inst_per_s": rate}
        lines = [] if lead is None else lead
        lines += ["", "", f"gpgpu_simulation_time = {d} days, {h} hrs, {m} min, {s} sec ({whole} sec)",
                  f"gpgpu_simulation_rate = {rate} (inst/sec)"]
        if with_cycles:
            cyc_rate = int(self.tot_cycles / elapsed)
            lines.append(f"gpgpu_simulation_rate = {cyc_rate} (cycle/sec)")
            core_hz = self.cfg.core_clock_mhz * 1e6
            slowdown = int(core_hz / cyc_rate) if cyc_rate else 0
            lines.append(f"gpgpu_silicon_slowdown = {slowdown}x")
            printed.update(simulation_rate_cycle_per_s=cyc_rate, silicon_slowdown=slowdown)
        if _ptxplus_on(self.cfg):   # GPGPU-Sim has no such line; PTX runs print none, as it
            lines.append("gpgpu_simulation_isa = PTXPlus (SASS converted, -gpgpu_ptx_convert_to_ptxplus 1)")
        self._emit(lines)
        if self.kernels:
            self.kernels[-1].update(printed)
        self._printed = printed

    # ---- periodic samples (fed by the timing model) -----------------------------------------

    def sample(self, cycle: int, values: dict[str, Any]) -> None:
        """Record one periodic sample (every ``-gpgpu_runtime_stat`` cycles) for JSON/plots."""
        rec = {"cycle": cycle}
        rec.update(values)
        self._samples.append(rec)

    @property
    def samples(self) -> list[dict[str, Any]]:
        """The periodic samples so far, in order (the JSON ``samples``)."""
        return list(self._samples)

    # ---- PTX line statistics (C199) ---------------------------------------------------------

    def write_line_stats(self, path: str | Path | None = None) -> Path | None:
        """Write the per-PTX-line execution counts accumulated over the run's kernels to
        ``path`` (default ``-ptx_line_stats_filename``) when ``-enable_ptx_file_line_stats``
        is on or a path is given; returns the path written, or None."""
        if path is None:
            if not self.cfg["enable_ptx_file_line_stats"]:
                return None
            path = self.cfg.raw("ptx_line_stats_filename")

        write_line_stats(path, self.line_counts)
        return Path(path)

    # ---- exit -------------------------------------------------------------------------------

    def exit(self) -> None:
        """Program end: the PTX line-stats file (when enabled and the engine collected line
        counts, as GPGPU-Sim writes it at exit) and the ``atexit`` banner; runs once."""
        if self._exited:
            return
        self._exited = True
        if self.line_counts:
            try:
                self.write_line_stats()
            except OSError as exc:
                self.out(f"GPGPU-Sim: cannot write PTX line statistics: {exc}")
        sampled = self._run_totals().sampling()
        if sampled is not None:
            self.out(f"GPGPU-Sim: sampling ({sampled['mode']}): {sampled['launches_detailed']} launches in detail, "
                     f"{sampled['launches_projected']} projected, {sampled['launches_cta_sampled']} CTA-sampled; "
                     f"gpu_tot_sim_cycle = {self.tot_cycles} of which {sampled['cycles_projected']} projected "
                     f"[+-{100 * sampled['cycles_bound_rel']:.2f} %, +-{sampled['cycles_bound']} cycles, "
                     f"95 % bounds summed]")
        self.out("GPGPU-Sim: *** exit detected ***")

    # ---- JSON -------------------------------------------------------------------------------

    def to_json(self, run: dict[str, Any] | None = None, kernels: Any = None) -> dict[str, Any]:
        """Per-kernel and total figures plus the config used (the ``-o stats.json`` content).
        ``kernels``: what to put in the document's place of the kernel records (default: the
        records, unpacked)."""
        run_totals = self._run_totals()
        totals: dict[str, Any] = {
            "kernels": run_totals.n, "gpu_tot_sim_insn": self.tot_insn,
            "functional_insn": self.tot_func_insn,
            "gpgpu_n_tot_w_icount": self.tot_warp_insn, "gpu_tot_issued_cta": self.tot_ctas,
        }
        # the simulation time and rates exactly as last printed (nothing printed, nothing stored)
        totals.update(copy.deepcopy(self._printed))
        if run_totals.any_cycles:
            totals["gpu_tot_sim_cycle"] = self.tot_cycles
        totals["opcode_counts"] = dict(sorted(run_totals.mix.items()))
        sampled = run_totals.sampling()
        if sampled is not None:
            totals["sampling"] = sampled
        if self._last_counters:
            totals["counters"] = self._last_counters
        doc: dict[str, Any] = {
            "simulator": {"name": "gpgpusim", "version": _pkg_version, "gpgpusim_compat": GPGPUSIM_VERSION,
                          **({} if self.cfg.functional_only else {"performance_model": model_kind()})},
            "mode": "functional" if self.cfg.functional_only else "performance",
            "gpu": _gpu_label(self.cfg),
            "isa": "ptxplus" if _ptxplus_on(self.cfg) else "ptx",
            "gpu_selected_by": getattr(self.cfg, "selected_by", None),
            "config_sources": list(getattr(self.cfg, "sources", [])),
            "config": self.cfg.to_dict(),
            "kernels": [_unpacked(k) for k in self.kernels] if kernels is None else kernels,
            "totals": totals,
            "samples": self.samples,
        }
        if run:
            doc["run"] = run
        return doc

    def _run_totals(self) -> _Folded:
        """The finished records' totals and the current record's, summed."""
        f = self._folded.copy()
        if self.kernels and not isinstance(self.kernels[-1], _Packed):
            f.add(self.kernels[-1])
        return f

    def write_json(self, path: str | Path, run: dict[str, Any] | None = None) -> None:
        """Write :meth:`to_json` as indented JSON, unpacking one kernel record at a time (the
        file is the same as ``json.dumps(self.to_json(run), indent=1)``, without ever holding
        every record unpacked; :mod:`.jsontext` formats it)."""
        text = jsontext.dumps(self.to_json(run, kernels=_KERNELS_MARK)) + "\n"
        mark = jsontext.dumps(_KERNELS_MARK)
        at = text.index(mark)
        with open(path, "w") as f:
            f.write(text[:at])
            if not self.kernels:
                f.write("[]")
            else:
                # the records are the items of a list at depth 1 of the document
                sep = "["
                for k in self.kernels:
                    f.write(sep + "\n  ")
                    f.write(jsontext.dumps(_unpacked(k), 2))
                    sep = ","
                f.write("\n ]")
            f.write(text[at + len(mark):])


_KERNELS_MARK = "@@gpgpusim-kernel-records@@"


class SampleLog:
    """The periodic samples (``-gpgpu_runtime_stat``: one every few hundred cycles of the whole
    run, a dozen counters each), kept compactly and read back as the dicts appended.  A run of
    samples with the same keys and only ``int`` values is one ``array('q')`` of rows (8 bytes a
    value, where a dict of them took ~900 bytes a sample); other samples are kept as they are."""

    __slots__ = ("_parts", "_n")

    def __init__(self) -> None:
        #: (keys, flat rows) for int samples, or (None, the sample dict)
        self._parts: list[tuple[tuple[str, ...] | None, Any]] = []
        self._n = 0

    def append(self, rec: dict[str, Any]) -> None:
        self._n += 1
        vals = tuple(rec.values())
        if all(type(v) is int and -(1 << 63) <= v < 1 << 63 for v in vals):
            keys = tuple(rec)
            if self._parts and self._parts[-1][0] == keys:
                self._parts[-1][1].extend(vals)
            else:
                self._parts.append((keys, array("q", vals)))
        else:
            self._parts.append((None, copy.deepcopy(rec)))

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for keys, data in self._parts:
            if keys is None:
                yield copy.deepcopy(data)
                continue
            n = len(keys)
            for i in range(0, len(data), n):
                yield dict(zip(keys, data[i:i + n].tolist(), strict=True))


class _Spool:
    """An anonymous temporary file the finished kernel records are written to (:class:`_Packed`),
    so that a run of millions of launches written with ``-o`` does not hold their text in memory;
    made on first use, gone when the process ends."""

    __slots__ = ("_f", "_lock")

    def __init__(self) -> None:
        self._f: Any = None
        self._lock = threading.Lock()

    def put(self, data: bytes) -> int:
        """Append ``data``; its offset."""
        with self._lock:
            if self._f is None:
                self._f = tempfile.TemporaryFile()
            at = self._f.seek(0, os.SEEK_END)
            self._f.write(data)
            return int(at)

    def get(self, at: int, n: int) -> bytes:
        with self._lock:
            self._f.seek(at)
            return bytes(self._f.read(n))

    def __del__(self) -> None:
        if self._f is not None:      # (closed here, not left to warn as an unclosed file)
            self._f.close()


class _Packed:
    """A finished kernel's record, zlib-compressed in the reporter's :class:`_Spool`; in memory,
    only where it is.  Serialised by ``marshal`` (read back only by this process): ~15 us with
    the compression for a projected launch's 3 KB record, against ~110 us as compact JSON, which
    was about a tenth of such a launch's cost in a run of small launches.  Read back, it is the
    record as it was packed, tuples included; a record marshal cannot hold (a subclass of a
    built-in type) is packed as its JSON form, as ``-o`` would write it anyway.  The indented
    text is only made if ``-o`` asks."""

    __slots__ = ("spool", "at", "n")

    def __init__(self, value: dict[str, Any], spool: _Spool) -> None:
        try:
            data = marshal.dumps(value)
        except ValueError:
            data = marshal.dumps(json.loads(json.dumps(value)))
        blob = zlib.compress(data, 1)
        self.spool = spool
        self.at = spool.put(blob)
        self.n = len(blob)

    def value(self) -> Any:
        return marshal.loads(zlib.decompress(self.spool.get(self.at, self.n)))


def _unpacked(rec: Any) -> dict[str, Any]:
    return rec.value() if isinstance(rec, _Packed) else rec


#: the last line of a projected launch's compact statistics block
COMPACT_NOTE = ("gpgpusim_sampling_stats = compact (projected launch: the per-unit sections -- per-core "
                "L1, per-bank L2, per-channel DRAM, interconnect -- and the high-water marks were not "
                "simulated and are omitted; -gpgpusim_sampling_full_stats 1 prints the full block)")


def projected_compact(stats: KernelStats) -> bool:
    """Whether ``stats`` is a projected launch reported compactly: its ``counters`` hold the
    projected scalar counters only (``-gpgpusim_sampling_full_stats 0``)."""
    s = stats.sampling
    return s is not None and s.get("status") == "projected" and s.get("report") == "compact"


def sampling_lines(stats: KernelStats) -> list[str]:
    """The labelled lines that mark a kernel timed under ``-gpgpusim_sampling`` (printed after
    its ``gpu_sim_cycle`` line): how it was timed, and for a projected launch the projected
    cycles with their 95 % error bound."""
    s = stats.sampling
    if not s:
        return []
    if s.get("status") == "projected":
        parts = s.get("cycles_bound_parts")
        if s.get("line_groups"):
            parts = s["cycles_bound_parts"]
            groups = ", ".join(str(g) for g in s["line_groups"])
            against = "global transactions" if s.get("line_measure") == "tx" else "thread instructions"
            how = (f"from a line through groups {groups}, {s['line_detailed']} launches simulated in "
                   f"detail, against {against}")
            what = (f"the line's 95 % interval +-{parts['interval']}, its model error +-{parts['model']}, "
                    f"beyond its groups +-{parts['beyond']}")
            source = f"group {s['group']}"
        else:
            how = f"group {s['group']}, {s['group_detailed']} launches of the group simulated in detail"
            what = "95 % interval" if not parts else (
                f"95 % interval +-{parts['interval']}, instruction scaling +-{parts['scaling']}, "
                f"trend +-{parts['trend']}")
            source = "the group"
        if parts and parts.get("scatter"):    # its kernel's launches scatter about its lines
            what += f", its kernel's scatter about its work +-{parts['scatter']}"
        if parts and parts.get("cold"):       # a launch reading DRAM where its group did not
            what += f", cold reads +-{parts['cold']}"
        return [f"gpgpusim_sampling = projected (kernel sampling: {how}; this launch ran functionally)",
                f"gpu_sim_cycle_projected = {stats.cycles} [projected +-{100 * s['cycles_bound_rel']:.2f} %, "
                f"+-{s['cycles_bound']} cycles, {what}]",
                f"gpgpusim_sampling_counters = projected (instructions exact; scalar counters scaled "
                f"from {source} per warp instruction; per-unit lists and histograms not included)"]
    if s.get("status") == "cta_projected" and s["cta"].get("method") == "interval":
        c = s["cta"]
        return [f"gpgpusim_sampling = cta_projected (CTA sampling inside the first wave: the {c['ctas_cut']} CTAs "
                f"issued were timed for {c['cut_cycle']} cycles and drained, then every CTA ran functionally; "
                f"{c['ctas_projected']} CTAs never timed; waves of {c['wave_ctas']} CTAs)",
                f"gpu_sim_cycle_projected = {stats.cycles} [projected +-{100 * s['cycles_bound_rel']:.2f} %, "
                f"+-{s['cycles_bound']} cycles, 95 % interval of the rate, start-up, drain and tail]",
                "gpgpusim_sampling_counters = projected (instructions exact; scalar counters grown per warp "
                "instruction as over the measured interval; per-unit lists and histograms not included)"]
    if s.get("status") == "cta_projected":
        c = s["cta"]
        return [f"gpgpusim_sampling = cta_projected (CTA sampling: {c['ctas_detailed']} CTAs simulated in detail, "
                f"{c['ctas_projected']} ran functionally; waves of {c['wave_ctas']} CTAs, "
                f"{c['cycles_detailed']} cycles in detail)",
                f"gpu_sim_cycle_projected = {stats.cycles} [projected +-{100 * s['cycles_bound_rel']:.2f} %, "
                f"+-{s['cycles_bound']} cycles, 95 % interval]",
                "gpgpusim_sampling_counters = projected (instructions exact; scalar counters of the detailed "
                "CTAs scaled to the grid; per-unit lists and histograms not included)"]
    if s.get("group") is None:
        return ["gpgpusim_sampling = detailed (not a kernel-sampling sample: it overlapped other kernels, "
                "or kernel sampling is off)"]
    return [f"gpgpusim_sampling = detailed (kernel sampling: group {s['group']}, detailed launch "
            f"{s['group_detailed']} of the group)"]


class _Folded:
    """What the run totals take from kernel records (the kernel count, the instruction mix,
    :meth:`sampling`), summed over records folded in with :meth:`add`."""

    __slots__ = ("n", "any_cycles", "mix", "cycles", "marked", "mode", "projected", "cta_sampled",
                 "cycles_projected", "bound")

    def __init__(self) -> None:
        self.n = 0
        self.any_cycles = False
        self.mix: dict[str, int] = {}
        self.cycles = 0                 # every kernel's
        self.marked = 0                 # kernels timed under sampling
        self.mode: str | None = None    # the first marked kernel's sampling mode
        self.projected = 0
        self.cta_sampled = 0
        self.cycles_projected = 0
        self.bound = 0

    def copy(self) -> _Folded:
        c = _Folded()
        for name in self.__slots__:
            setattr(c, name, getattr(self, name))
        c.mix = dict(self.mix)
        return c

    def add(self, k: dict[str, Any]) -> None:
        self.n += 1
        self.any_cycles = self.any_cycles or "cycles" in k
        for op, n in k.get("opcode_counts", {}).items():
            self.mix[op] = self.mix.get(op, 0) + n
        self.cycles += int(k.get("cycles", 0))
        s = k.get("sampling")
        if s is None:
            return
        self.marked += 1
        if self.mode is None:
            self.mode = s.get("mode", "kernel")
        status = s.get("status")
        if status == "projected":
            self.projected += 1
            self.cycles_projected += int(k.get("cycles", 0))
        elif status == "cta_projected":
            self.cta_sampled += 1
            self.cycles_projected += int(k["cycles"]) - int(s["cta"]["cycles_detailed"])
        else:
            return
        self.bound += int(s.get("cycles_bound", 0))

    def sampling(self) -> dict[str, Any] | None:
        """The JSON ``totals.sampling``: launches timed in detail and projected, the projected
        part of ``gpu_tot_sim_cycle`` and its error bound (the sum of the launches' bounds: they
        share their group's estimate, so the errors are not assumed to cancel); None when no
        kernel was timed under sampling."""
        if not self.marked:
            return None
        return {"mode": self.mode, "launches_detailed": self.marked - self.projected - self.cta_sampled,
                "launches_projected": self.projected, "launches_cta_sampled": self.cta_sampled,
                "cycles_projected": self.cycles_projected,
                "cycles_bound": self.bound, "cycles_bound_rel": self.bound / self.cycles if self.cycles else 0.0}


def _gpu_label(cfg: Any) -> str | None:
    """The JSON's ``gpu``: the shipped GPU's name, else the config file's path."""
    return getattr(cfg, "gpu_name", None) or getattr(cfg, "config_file", None)


def _ptxplus_on(cfg: Any) -> bool:
    return ptxplus_enabled(cfg)
