"""When the performance model stops or speaks up on its own: the deadlock detector, the stop
limits and the liveness line (functions of the GPU, ``gpu.py``, called from its cycle loop).

* **Deadlock detection** (C202, ``-gpgpu_deadlock_detect``): no instruction issued for
  ``DEADLOCK_CYCLES`` core cycles while work is pending ends the run's kernels with a sticky
  ``cudaErrorLaunchFailure`` after printing every component's state (``TimingGpu.dump_pipeline``).
* **Stop limits** (C011, C062; GPGPU-Sim ``gpgpu_sim::active``, ``cycle_insn_cta_max_hit``,
  ``hit_max_cta_count`` and the ``break_limit`` exit of ``gpgpu_sim_thread_concurrent``).  After
  every core cycle (and when a kernel starts simulating) the model compares, as GPGPU-Sim:
  ``-gpgpu_max_cycle``: ``gpu_tot_sim_cycle + gpu_sim_cycle`` (core cycles since the program
  started) ``>=`` the limit; ``-gpgpu_max_insn``: thread instructions *completed* since the
  program started (``gpu_tot_sim_insn + gpu_sim_insn``, counted at writeback as
  ``warp_inst_complete`` counts them) ``>=`` the limit; ``-gpgpu_max_completed_cta``: CTAs
  completed since the GPU last went idle (``gpu_completed_cta``, reset with ``gpu_sim_cycle``)
  ``>=`` the limit.  ``-gpgpu_max_cta``: no CTA is issued once the CTAs issued since the program
  started reach the limit (``hit_max_cta_count``: exactly that many are issued); the issued ones
  run to completion and the run stops when the machine has drained.  A kernel that finishes in
  the cycle that reaches a limit finishes normally; the stop then happens when the next kernel
  starts simulating, as in GPGPU-Sim.  What the stop does: the running kernels end (their
  statistics block is printed with the partial figures: ``gpu_sim_cycle`` up to the stop,
  ``gpu_sim_insn`` the completed thread instructions, the counters so far; the functional
  engine has run only the CTAs issued so far), then ``GPGPU-Sim: *** simulation thread exiting
  ***`` and ``GPGPU-Sim: ** break due to reaching the maximum cycles (or instructions) **`` and,
  inside an application, the process ends with exit status 1 after the end-of-run report and the
  ``-o`` JSON (``"limit"`` in its ``"run"`` section) -- GPGPU-Sim's ``exit(1)``: the application
  never returns from the CUDA call it was blocked in, so none of its later CUDA calls run.  Used
  as a library (no application process to end, e.g. the tests) the stopped kernels complete with
  a sticky ``cudaErrorLaunchFailure``, so every later CUDA call reports it.  Known differences:
  GPGPU-Sim prints nothing different for the four limits (one message for all); with
  ``-gpgpu_max_cta`` reached inside a kernel GPGPU-Sim 4.2 never stops (its
  ``cycle_insn_cta_max_hit`` reads ``gpu_tot_issued_cta``, which only ``update_stats`` advances,
  so its thread loop spins with the machine idle) -- we stop once the machine drained, which is
  what the option is documented to do.  Functional mode (``-gpgpu_ptx_sim_mode 1``) applies
  ``-gpgpu_max_insn`` and ``-gpgpu_max_cta`` itself (``runtime/funcrun.py``; GPGPU-Sim's
  functional mode ignores them).
* **Liveness** (``-liveness_message_freq``, ``GPGPUSIM_PROGRESS=0`` for none): inside an
  application a thread prints GPGPU-Sim's line every that many seconds while kernels run;
  elsewhere the cycle loop prints it, checking every 1024 core cycles.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TYPE_CHECKING

from gpgpusim import hostio
from gpgpusim.device import interrupt
from gpgpusim.device.gpu import KernelRecord
from gpgpusim.errors import CudaError, Err

if TYPE_CHECKING:
    from .gpu import TimingGpu

#: core cycles without an issued instruction before the deadlock detector fires (GPGPU-Sim
#: uses 200,000 cycles without a committed instruction)
DEADLOCK_CYCLES = 200_000



def insn_done(gpu: TimingGpu) -> int:
    """Thread instructions completed since the program started (``gpu_tot_sim_insn +
    gpu_sim_insn``)."""
    return gpu.insn_done_before + sum(r.thread_done for r in gpu.runs)


def limit_reached(gpu: TimingGpu) -> str | None:
    """The stop limit reached now, if any (``gpgpu_sim::active``'s limit tests)."""
    if gpu.max_cycle and gpu.gpu_tot_sim_cycle + gpu.gpu_sim_cycle >= gpu.max_cycle:
        return "cycle"
    if gpu.max_insn and insn_done(gpu) >= gpu.max_insn:
        return "insn"
    if gpu.max_cta and gpu.tot_issued_cta >= gpu.max_cta and gpu.live_ctas == 0 \
            and gpu.mem.idle() and not any(cl.busy() for cl in gpu.clusters):
        return "cta"
    if gpu.max_completed_cta and gpu.completed_cta >= gpu.max_completed_cta:
        return "completed_cta"
    return None


def stop_at_limit(gpu: TimingGpu, why: str) -> list[KernelRecord]:
    """``stop_all_running_kernels``: every running kernel ends now, with its statistics."""
    gpu.limit_stop = why
    stopped = [r.rec for r in gpu.runs]
    for rec in stopped:
        gpu._finish(rec, stopped=why)
    return stopped


def announce_limit_stop(gpu: TimingGpu) -> None:
    """GPGPU-Sim's last two lines after a limit stop; inside an application the process
    then ends with status 1 (``exit(1)``), after the end-of-run report and the JSON."""
    # one write: the host thread may be printing its next launch at the same moment
    hostio.out("GPGPU-Sim: *** simulation thread exiting ***\n"
               "GPGPU-Sim: ** break due to reaching the maximum cycles (or instructions) **\n")
    interrupt.stop_program(1, "limit", {
        "option": f"-gpgpu_max_{gpu.limit_stop}",
        "gpu_tot_sim_cycle": gpu.gpu_tot_sim_cycle + gpu.gpu_sim_cycle,
        "gpu_tot_sim_insn": insn_done(gpu), "gpu_tot_issued_cta": gpu.tot_issued_cta})


def liveness(gpu: TimingGpu) -> None:
    """GPGPU-Sim's periodic liveness line (``-liveness_message_freq`` seconds apart; off
    with ``GPGPUSIM_PROGRESS=0``), and a pending Ctrl-C/SIGTERM stops the loop."""
    while interrupt.requested:
        # Ctrl-C/SIGTERM/SIGHUP: the shutdown thread reports and ends the process; stop
        # here so the counters it prints do not move under it
        gpu._parked.set()
        time.sleep(0.05)
    if not gpu.progress or gpu._live_thread is not None:
        return
    now = time.time()
    if now - gpu._last_liveness < gpu.liveness_s:
        return
    gpu._last_liveness = now
    insn = sum(c.n_thread_insn for c in gpu.cores)
    gpu._notify("progress", gpu.gpu_tot_sim_cycle + gpu.gpu_sim_cycle, insn, now - gpu._t_start, now)


def start_liveness_thread(gpu: TimingGpu) -> None:
    """Inside an application, the liveness line comes from a thread of its own, every
    ``-liveness_message_freq`` seconds while kernels run, however long a stretch of 1024
    cycles (the cycle loop's check) or a kernel's first trace recording takes."""
    if gpu._live_thread is not None or not gpu.progress or gpu.liveness_s <= 0 \
            or "_gpgpusim_cudart" not in sys.modules:
        return
    gpu._live_thread = threading.Thread(target=liveness_watch, args=(gpu,), name="gpgpusim-liveness", daemon=True)
    gpu._live_thread.start()


def liveness_watch(gpu: TimingGpu) -> None:
    """The liveness thread's loop (:func:`start_liveness_thread`)."""
    while not interrupt.requested:
        time.sleep(max(0.05, gpu._last_liveness + gpu.liveness_s - time.time()))
        now = time.time()
        if not gpu.runs or interrupt.requested or now - gpu._last_liveness < gpu.liveness_s:
            continue
        gpu._last_liveness = now
        insn = sum(c.n_thread_insn for c in gpu.cores)
        gpu._notify("progress", gpu.gpu_tot_sim_cycle + gpu.gpu_sim_cycle, insn, now - gpu._t_start, now)


def check_deadlock(gpu: TimingGpu) -> None:
    """The deadlock detector: no instruction issued for ``DEADLOCK_CYCLES`` core cycles."""
    issued = max((c.last_issue for c in gpu.cores), default=0)
    cur = gpu.gpu_tot_sim_cycle + gpu.gpu_sim_cycle
    if gpu.deadlock_detect and cur - max(issued, gpu.last_issue_cycle) > DEADLOCK_CYCLES:
        sys.stderr.write("GPGPU-Sim uArch: ERROR ** deadlock detected: no instruction issued for "
                         f"{DEADLOCK_CYCLES} cycles (cycle {gpu.gpu_sim_cycle})\n"
                         f"{gpu.dump_pipeline(busy_only=True)}\n")
        names = ", ".join(r.rec.name for r in gpu.runs)
        raise CudaError(Err.LaunchFailure, f"simulator deadlock in kernel(s) {names} at cycle "
                                           f"{gpu.gpu_sim_cycle}: no instruction issued for "
                                           f"{DEADLOCK_CYCLES} cycles", sticky=True)
