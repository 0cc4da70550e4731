"""Plain data the runtime hands to the :class:`~gpgpusim.report.Reporter`.

The runtime (host/streams) fills these; only ``report/`` turns them into text or JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class KernelInfo:
    """A kernel launch as the stream manager pushes it (``Reporter.kernel_launch``).

    ``uid`` is GPGPU-Sim's ``kernel_launch_uid`` (1, 2, ... in launch order); ``grid``/``block``
    are (x, y, z); ``host_fun`` the host stub address when known (printed in the
    ``cudaLaunch for 0x...`` line); ``functional`` selects the functional-mode messages.
    """

    name: str
    uid: int
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    stream_id: int = 0
    functional: bool = True
    host_fun: int | None = None
    dyn_smem_bytes: int = 0
    regs_per_thread: int | None = None
    static_smem_bytes: int | None = None
    #: GPGPU-Sim's first-launch PTX analysis lines (printed after ``cudaLaunch for``)
    ptx_analysis: tuple[str, ...] = ()


@dataclass(slots=True)
class KernelStats:
    """What one finished kernel produced (``Reporter.kernel_end`` / ``functional_done``).

    ``thread_insn`` is GPGPU-Sim's ``gpu_sim_insn`` (thread-level instructions, i.e. the sum of
    active lanes over executed warp instructions); ``warp_insn`` is ``gpgpu_n_tot_w_icount``'s
    per-kernel part; ``opcode_counts`` maps a PTX opcode (``"ld"``, ``"fma"``, ...) to its
    thread-level count; ``elapsed_s`` is the kernel's wall-clock simulation time; ``cycles`` the
    simulated core cycles (``gpu_sim_cycle``; None in functional mode).  ``counters`` holds the
    timing model's counters *cumulative since program start* by GPGPU-Sim stat name (the
    Reporter subtracts its previous snapshot to get per-kernel values).  ``line_counts`` maps
    ``(ptx_file, line)`` to the executions of the instruction on that line counted as GPGPU-Sim
    counts them for the line-stats file: per SIMT-active lane, guard predicate true or false
    (so they sum to ``functional_insn``).
    ``functional_insn`` is what C++ GPGPU-Sim's functional mode counts (``g_ptx_sim_num_insn``):
    the active lanes of every executed instruction whether its guard predicate holds or not, so
    it exceeds ``thread_insn`` by the predicated-off lanes (vectoradd 1,441,792 vs 1,376,256);
    None means "same as thread_insn".
    """

    name: str
    uid: int
    grid: tuple[int, int, int] = (1, 1, 1)
    block: tuple[int, int, int] = (1, 1, 1)
    stream_id: int = 0
    thread_insn: int = 0
    warp_insn: int = 0
    ctas: int = 0
    opcode_counts: dict[str, int] = field(default_factory=dict)
    elapsed_s: float = 0.0
    cycles: int | None = None
    #: the part of ``cycles`` after the previous kernel's end, when the kernel overlapped
    #: kernels that ended before it (concurrent streams, child grids): what it adds to
    #: ``gpu_tot_sim_cycle``, which counts elapsed cycles; None when that is all of ``cycles``
    new_cycles: int | None = None
    counters: dict[str, Any] = field(default_factory=dict)
    line_counts: dict[tuple[str, int], int] | None = None
    functional_insn: int | None = None
    #: why the kernel ended before completing: the stop limit's option (``-gpgpu_max_insn``)
    #: or the signal (``SIGINT``); None when it completed
    stopped: str | None = None
    #: kernel sampling (``-gpgpusim_sampling``): how this launch was timed -- ``status``
    #: "detailed" or "projected", its group and, when projected, the error bound
    #: (``timing/kernel_sampling.py``); None when sampling is off
    sampling: dict[str, Any] | None = None

    @property
    def functional_count(self) -> int:
        return self.thread_insn if self.functional_insn is None else self.functional_insn

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "kernel_name": self.name, "kernel_launch_uid": self.uid, "kernel_stream_id": self.stream_id,
            "grid": list(self.grid), "block": list(self.block), "ctas": self.ctas,
            "thread_insn": self.thread_insn, "functional_insn": self.functional_count,
            "warp_insn": self.warp_insn,
            "opcode_counts": dict(sorted(self.opcode_counts.items())), "elapsed_s": self.elapsed_s,
        }
        if self.cycles is not None:
            d["cycles"] = self.cycles
        if self.stopped is not None:
            d["stopped"] = self.stopped
        if self.sampling is not None:
            d["sampling"] = dict(self.sampling)
        return d
