"""Functional mode's stop limits and liveness line (``-gpgpu_ptx_sim_mode 1``).

GPGPU-Sim counterpart: the limits of ``gpgpu_sim::active`` (``-gpgpu_max_insn``,
``-gpgpu_max_cta``, checklist C011) and the liveness line of ``gpgpu_sim_thread_concurrent``
(``-liveness_message_freq``).  GPGPU-Sim's functional mode consults neither; here a long
functional run can be bounded and shows that it is alive, as a performance run does.

:class:`FunctionalRun` runs each kernel through ``engine.launch`` with a
:class:`gpgpusim.functional.state.Progress` active, which the engine's execution state
consults (see its docstring for the exact rules):

* ``-gpgpu_max_cta N``: CTAs run in CTA order (the order GPGPU-Sim issues them); once N CTAs
  have run since the program started, no more run.  A kernel with more CTAs than are left runs
  the first ones and is stopped; a kernel launched after the limit was reached is stopped
  before it runs.  A kernel whose last CTA is the N-th completes normally (the stop then comes
  with the next kernel, as in performance mode).
* ``-gpgpu_max_insn N``: thread instructions (``gpu_sim_insn``, guard-true active lanes) since
  the program started.  The issue step that reaches N ends the kernel right after it executed,
  so the count at the stop is exact and deterministic: N plus at most one step's
  instructions.  When that step was the kernel's last, the kernel completes normally and the
  stop comes with the next kernel.
* A stopped kernel ends as in performance mode: its statistics block with the partial counts
  (thread and warp instructions, CTAs run; no opcode or per-line counts), then
  ``GPGPU-Sim: ** break due to reaching the maximum cycles (or instructions) **`` and, inside an
  application, exit status 1 after the end-of-run report and the JSON (``"limit"`` in its
  ``"run"`` section; :func:`gpgpusim.device.interrupt.stop_program`).  As a library the kernel
  completes with a sticky ``cudaErrorLaunchFailure``.
* Liveness (inside an application, every ``-liveness_message_freq`` seconds while a kernel
  runs, from the first; off with ``GPGPUSIM_PROGRESS=0`` or a frequency of 0): a background
  thread prints ``GPGPU-Sim PTX: functional simulation: kernel '<name>' inst.: <n> sim_rate=<r>
  (inst/sec) elapsed = d:h:mm:ss / <date>`` (:meth:`Reporter.functional_progress`), ``inst.``
  counting the thread instructions of the whole run so far.  Outside an application (tests
  driving a GPU object) no thread is started, so their output stays deterministic.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

from gpgpusim.errors import CudaError, Err
from gpgpusim import hostio
from . import interrupt
from gpgpusim.functional import engine, state
from gpgpusim.functional.engine import KernelStats
from gpgpusim.functional.state import Progress


def _opt(config: Any, name: str) -> int:
    try:
        return int(config.get(name) or 0)
    except (AttributeError, KeyError, TypeError, ValueError):
        return 0


class FunctionalRun:
    """The limits and the liveness state of one functional GPU (see the module docstring)."""

    def __init__(self, gpu: Any) -> None:

        config = gpu.config
        self.gpu = gpu
        self.max_insn = _opt(config, "gpgpu_max_insn")
        self.max_cta = _opt(config, "gpgpu_max_cta")
        self.progress = Progress(self.max_insn, self.max_cta)
        #: the limit that ended the run ("insn" or "cta"), None while none did
        self.stopped: str | None = None
        self.kernel: str | None = None      # the kernel running now (the liveness line names it)
        self._t_start = time.time()
        self._liveness_s = float(_opt(config, "liveness_message_freq"))
        self._monitor: threading.Thread | None = None

    # ------------------------------------------------------------------ limits
    def limit_reached(self) -> str | None:
        """The limit that stops a kernel before it runs (reached by the earlier ones), or None."""
        p = self.progress
        if self.max_insn and p.base >= self.max_insn:
            return "insn"
        if self.max_cta and p.ctas_started >= self.max_cta:
            return "cta"
        return None

    def run(self, rec: Any) -> tuple[Any, str | None]:
        """Execute kernel ``rec`` (a ``KernelRecord``) with ``engine.launch``; returns the
        engine's ``KernelStats`` and the limit that stopped it (None: it completed)."""

        op = rec.op
        why = self.limit_reached()
        if why is not None:
            return KernelStats(kernel=op.kernel), why
        p = self.progress
        insn0, warp0, cta0 = p.base, p.warp_base, p.ctas_started
        self.kernel = op.kernel
        self._start_monitor()
        state.active = p
        stopped: str | None = None
        try:
            stats = engine.launch(op.module, op.kernel, op.grid, op.block, op.dyn_smem_bytes,
                                  op.params, gmem=self.gpu.gmem, **op.launch_kwargs)
            ran = p.ctas_started - cta0
            if self.max_cta and ran < stats.ctas:       # the limit left the last CTAs out
                stats.ctas = ran
                stopped = "cta"
        except state.InstructionLimitReached:
            stats = KernelStats(kernel=op.kernel, thread_insn=p.base - insn0, warp_insn=p.warp_base - warp0,
                                ctas=p.ctas_started - cta0)
            stopped = "insn"
        finally:
            state.active = None
            p.current = None
            self.kernel = None
        return stats, stopped

    def stop(self, rec: Any, why: str) -> None:
        """Kernel ``rec`` was stopped by limit ``why``: mark it, as performance mode does."""
        self.stopped = why
        rec.error = CudaError(Err.LaunchFailure, f"kernel '{rec.name}' stopped by -gpgpu_max_{why} "
                              f"(the simulation reached its limit)", sticky=True)

    def announce(self) -> None:
        """GPGPU-Sim's closing lines after a limit stop; inside an application the process then
        ends with status 1 after the end-of-run report and the JSON."""

        hostio.out("GPGPU-Sim: *** simulation thread exiting ***\n"
                   "GPGPU-Sim: ** break due to reaching the maximum cycles (or instructions) **\n")
        interrupt.stop_program(1, "limit", {
            "option": f"-gpgpu_max_{self.stopped}", "gpu_tot_sim_insn": self.progress.base,
            "gpu_tot_issued_cta": self.progress.ctas_started})

    # ------------------------------------------------------------------ liveness
    def _start_monitor(self) -> None:
        if self._monitor is not None or self._liveness_s <= 0 \
                or os.environ.get("GPGPUSIM_PROGRESS", "1") == "0" \
                or "_gpgpusim_cudart" not in sys.modules:       # inside an application only
            return
        self._monitor = threading.Thread(target=self._watch, name="gpgpusim-liveness", daemon=True)
        self._monitor.start()

    def _watch(self) -> None:

        period = self._liveness_s
        while True:
            time.sleep(period)
            if interrupt.requested:
                return
            name = self.kernel
            if name is None:
                continue
            now = time.time()
            fn = getattr(self.gpu.reporter, "functional_progress", None)
            if fn is not None:
                fn(name, self.progress.thread_insn(), now - self._t_start, now)
