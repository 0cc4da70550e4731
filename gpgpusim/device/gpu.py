"""The simulated GPU as the stream manager sees it: runs operations and owns the clock.

GPGPU-Sim counterpart: ``gpgpu_sim`` as driven by ``stream_operation::do_operation`` and the
simulation thread (``gpgpu_sim_thread_concurrent``): ``can_start_kernel()``, ``launch(kernel)``
into ``m_running_kernels``, ``active()``, ``cycle()`` and ``gpu_tot_sim_cycle`` (checklist C041,
C048, C050, C052, C055, C056, C134).

Interface used by :class:`gpgpusim.runtime.streams.StreamManager`:

- ``push_kernel(op, stream_id)`` (host thread, manager lock held) — number the kernel
  (``kernel_launch_uid``) when it is pushed; ``announce_kernel(op)`` — report the launch;
- ``can_start_kernel() -> bool`` — a free slot among ``-gpgpu_max_concurrent_kernel`` (C056);
- ``start_kernel(op) -> KernelRecord`` — place a pushed kernel in a running slot;
- ``busy() -> bool`` — some started kernel has not finished;
- ``advance() -> list[KernelRecord]`` — simulate until at least one running kernel finishes and
  return the finished ones (their slots are free again);
- ``abort() -> list[KernelRecord]`` — drop the started kernels (after a sticky error);
- ``memcpy(op)``, ``memcpy2d(op)``, ``memset(op)``, ``free(op)`` — the other operations, at the
  current time; ``stage_host_copy(op)`` — CUDA's pageable-memory rules at enqueue time;
  ``sync_call_waits(op)`` — whether the synchronous API call that enqueued ``op`` returns only
  once it completed;
- ``now_cycles`` / ``now_ms`` / ``cycles_to_ms()`` — simulated time (core clock cycles).

Everything but the first two, ``stage_host_copy`` and ``sync_call_waits`` runs on the
simulation thread.

Functional mode (this class): ``advance()`` runs the oldest started kernel to completion on the
functional engine.  The **time estimate** per kernel is documented in :func:`estimate_cycles`:
the configured ``-gpgpu_kernel_launch_latency`` (at least 1 cycle) plus the warp instructions
spread evenly over all SMs, each SM issuing ``gpgpu_num_sched_per_core`` warp instructions per
core cycle, so that every kernel takes a positive number of cycles and the clock is monotonic.
A timing model subclasses this and replaces ``advance()`` with real cycles through the same
interface (several kernels side by side, RR over kernels, C134), reporting ``kernel_end``
instead of ``functional_done``; tests/runtime/test_streams.py has a stand-in that does so.

Copies take no simulated time unless a PCIe model is configured (off by default, as in GPGPU-Sim
where memcpy is instantaneous): ``Gpu(..., pcie_bandwidth_gbps=, pcie_latency_us=)`` or the
environment variable ``GPGPUSIM_PCIE=<GB/s>[:<latency us>]``.  A host<->device copy of ``n``
bytes then advances the clock by ``latency + n / bandwidth`` at the core clock.
"""

from __future__ import annotations

import collections
import ctypes
import dataclasses
import enum
import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from gpgpusim.errors import CudaError, Err, report_internal_error
from gpgpusim import hostio
from gpgpusim.functional.messages import launch_report, memory_note   # (memory_note: PTX_SIM_DEBUG >= 3 lines)
from gpgpusim.report.data import KernelInfo, KernelStats

from .funcrun import FunctionalRun

#: Defaults of the embedded SM7_QV100 config, used when no config is given (unit tests).
DEFAULT_CORE_MHZ = 1132.0
DEFAULT_N_SM = 80
DEFAULT_SCHED_PER_CORE = 4
DEFAULT_MAX_CONCURRENT_KERNEL = 128
#: How many finished kernels ``Gpu.kernels`` remembers (~3.5 KB a record with its launch op and
#: statistics; nothing in the simulator reads old ones).
KEEP_KERNEL_RECORDS = 1024
#: How many of those, the most recent, keep ``report_stats.counters`` (the timing model's
#: cumulative counters at the kernel's end, ~100-150 KB for an 80-SM GPU, which the reporter has
#: printed by then); an older record's report_stats is a copy without them, so that a program
#: of many launches does not hold thousands of them.
KEEP_KERNEL_COUNTERS = 64
#: Least cost of a kernel launch in functional mode (core cycles); keeps times positive.
KERNEL_LAUNCH_CYCLES = 1


def _debug_out(text: str) -> None:
    if text:
        hostio.out(text)


class MemcpyKind(enum.IntEnum):
    """``cudaMemcpyKind``."""

    HostToHost = 0
    HostToDevice = 1
    DeviceToHost = 2
    DeviceToDevice = 3
    Default = 4


# --------------------------------------------------------------------------------------------
# Operations (GPGPU-Sim ``stream_operation``, C048).  The runtime builds one per API call; the
# stream manager queues it; the simulation thread executes it.  ``clone()`` gives a fresh copy
# for graph replay.  Fields are validated by the runtime before enqueueing: an op that fails
# while executing records a CudaError that the next synchronising call reports.
# --------------------------------------------------------------------------------------------


class Op:
    """Base of all stream operations; completion state is managed by the stream manager."""

    kind = "op"

    def __init__(self) -> None:
        self.done = False
        self.error: CudaError | None = None
        self.deps: list[Op] = []          # ops that must complete before this one starts
        self.stream: Any = None           # the Stream it was enqueued on
        self.seq = 0                      # global enqueue order (tie-break, debugging)
        self.complete_cycles: int | None = None
        self.queued = False               # counted in its stream manager's queue depth
        self.held_bytes = 0               # staged host data it holds until it completes

    def clone(self) -> Op:
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        Op.__init__(new)
        return new

    def describe(self) -> str:
        return self.kind


class KernelLaunchOp(Op):
    """A kernel launch (``stream_operation`` with ``m_kernel``).

    ``module`` is the engine's ``LoadedModule``; ``launch_kwargs`` go unchanged to
    ``engine.launch`` (e.g. ``printf=``, ``driver=``, ``line_stats=``, ``options=``).
    ``host_fun`` / ``regs_per_thread`` / ``static_smem_bytes`` only feed the report.
    """

    kind = "kernel"

    def __init__(self, module: Any, kernel: str, grid: tuple[int, int, int],
                 block: tuple[int, int, int], dyn_smem_bytes: int = 0, params: bytes = b"",
                 launch_kwargs: dict[str, Any] | None = None, *, host_fun: int | None = None,
                 regs_per_thread: int | None = None,
                 static_smem_bytes: int | None = None) -> None:
        super().__init__()
        self.module = module
        self.host_fun = host_fun                # host stub address, for the report only
        self.regs_per_thread = regs_per_thread
        self.static_smem_bytes = static_smem_bytes
        self.kernel = kernel
        self.grid: tuple[int, int, int] = (int(grid[0]), int(grid[1]), int(grid[2]))
        self.block: tuple[int, int, int] = (int(block[0]), int(block[1]), int(block[2]))
        self.dyn_smem_bytes = dyn_smem_bytes
        self.params = bytes(params)
        self.launch_kwargs = dict(launch_kwargs or {})
        self.uid = 0          # kernel_launch_uid, given when pushed on a stream
        self.stream_id = 0    # kernel_stream_id (0 = legacy default stream)
        # dynamic parallelism while the parent runs (performance mode, runtime.streams): the
        # parent grid of a child, the children not yet complete, whether the grid itself has
        # finished and waits for them, and its device streams by ``runtime.cdp.device_stream_key``
        self.cdp_parent: KernelLaunchOp | None = None
        self.cdp_running = 0
        self.cdp_waiting = False
        self.cdp_streams: dict[Any, Any] = {}

    def clone(self) -> KernelLaunchOp:
        new = super().clone()
        assert isinstance(new, KernelLaunchOp)
        new.uid = 0
        new.cdp_parent, new.cdp_running, new.cdp_waiting, new.cdp_streams = None, 0, False, {}
        new.launch_kwargs = dict(self.launch_kwargs)
        if isinstance(new.launch_kwargs.get("line_stats"), dict):
            new.launch_kwargs["line_stats"] = {}     # the engine fills it per launch
        return new

    def describe(self) -> str:
        return f"kernel '{self.kernel}' grid={self.grid} block={self.block}"


HostRef = int | bytes | bytearray | memoryview | np.ndarray


class MemcpyOp(Op):
    """A linear copy; host sides are an address (int) or a buffer, device sides an address."""

    kind = "memcpy"

    def __init__(self, dst: HostRef, src: HostRef, nbytes: int,
                 direction: MemcpyKind | int = MemcpyKind.Default) -> None:
        super().__init__()
        self.dst = dst
        self.src = src
        self.nbytes = int(nbytes)
        self.direction = MemcpyKind(direction)

    def describe(self) -> str:
        return f"memcpy {self.direction.name} {self.nbytes} bytes"


class Memcpy2DOp(Op):
    """``cudaMemcpy2D(Async)``: ``height`` rows of ``width`` bytes with separate pitches."""

    kind = "memcpy2d"

    def __init__(self, dst: HostRef, dpitch: int, src: HostRef, spitch: int, width: int,
                 height: int, direction: MemcpyKind | int = MemcpyKind.Default) -> None:
        super().__init__()
        self.dst, self.dpitch, self.src, self.spitch = dst, int(dpitch), src, int(spitch)
        self.width, self.height = int(width), int(height)
        self.direction = MemcpyKind(direction)

    def describe(self) -> str:
        return f"memcpy2d {self.direction.name} {self.width}x{self.height}"


class MemsetOp(Op):
    """``cudaMemset(Async)``: ``nbytes`` bytes at device address ``dst`` set to ``value & 0xff``.

    Graph memset nodes generalise it: ``element_size`` 1, 2 or 4 (``value`` is stored as that
    many little-endian bytes) and ``height`` rows of ``nbytes`` bytes, ``pitch`` bytes apart.
    """

    kind = "memset"

    def __init__(self, dst: int, value: int, nbytes: int, element_size: int = 1,
                 pitch: int = 0, height: int = 1) -> None:
        super().__init__()
        if element_size not in (1, 2, 4):
            raise CudaError(Err.InvalidValue, f"memset: element size {element_size} is not 1, 2 or 4")
        self.dst, self.nbytes = int(dst), int(nbytes)
        self.element_size = element_size
        self.value = int(value) & ((1 << (8 * element_size)) - 1)
        self.pitch, self.height = int(pitch), int(height)


class FreeOp(Op):
    """``cudaFreeAsync``: the allocation is released when the stream reaches this point."""

    kind = "free"

    def __init__(self, addr: int) -> None:
        super().__init__()
        self.addr = int(addr)


class EventRecordOp(Op):
    """``cudaEventRecord``: stamps the event with the GPU time the stream reached it (C041)."""

    kind = "event_record"

    def __init__(self, event: Any) -> None:
        super().__init__()
        self.event = event


class WaitEventOp(Op):
    """``cudaStreamWaitEvent``: completes once the awaited record (its dependency) completes."""

    kind = "wait_event"

    def __init__(self, event: Any) -> None:
        super().__init__()
        self.event = event


class HostFuncOp(Op):
    """``cudaLaunchHostFunc`` / ``cudaStreamAddCallback``: ``fn`` runs on a host helper thread
    when the stream reaches it.

    A host function (``callback=False``) is ``fn()``, and is skipped once the context has a
    sticky error (CUDA: "the function will not be called in the event of an error").  A stream
    callback (``callback=True``) is ``fn(status)`` and always runs exactly once, ``status`` being
    ``cudaSuccess`` or the context's sticky error.  The runtime binds the user's function and
    data.  Like CUDA, ``fn`` must not call the CUDA API (the stream manager refuses with
    ``cudaErrorNotPermitted``).
    """

    kind = "host_func"

    def __init__(self, fn: Callable[..., Any], *, callback: bool = False) -> None:
        super().__init__()
        self.fn = fn
        self.callback = callback
        self.status = 0       # the cudaError_t handed to a callback, set when it starts


class EmptyOp(Op):
    """A no-op (``stream_no_op``, graph empty node)."""

    kind = "empty"


# --------------------------------------------------------------------------------------------


@dataclasses.dataclass
class KernelRecord:
    """One kernel's run: GPGPU-Sim's per-kernel figures plus where and when it ran.

    ``stream_id`` is what GPGPU-Sim prints as ``kernel_stream_id`` (0 = the default stream).
    """

    uid: int
    name: str
    stream_id: int
    grid: tuple[int, ...]
    block: tuple[int, ...]
    op: KernelLaunchOp
    start_cycles: int = 0
    end_cycles: int = 0
    stats: Any = None                 # what engine.launch returned
    report_stats: Any = None          # gpgpusim.report.data.KernelStats handed to the reporter
    error: CudaError | None = None

    @property
    def kernel_stream_id(self) -> int:
        return self.stream_id

    @property
    def cycles(self) -> int:
        return self.end_cycles - self.start_cycles


def _parse_core_mhz(value: Any) -> float:
    """Core clock from ``-gpgpu_clock_domains`` (``core:icnt:l2:dram`` MHz), whatever its type."""
    if value is None:
        return DEFAULT_CORE_MHZ
    if isinstance(value, (int, float)):
        return float(value)
    for attr in ("core_mhz", "core"):
        if hasattr(value, attr):
            return float(getattr(value, attr))
    if isinstance(value, str):
        return float(value.split(":")[0])
    return float(value[0])


def _cfg(config: Any, name: str, default: Any) -> Any:
    if config is None:
        return default
    try:
        value = config.get(name)
    except (KeyError, AttributeError):
        return default
    return default if value is None else value


def estimate_cycles(warp_insn: int, n_sm: int, issue_per_sm: int, launch_latency: int = 0) -> int:
    """Functional-mode kernel duration in core cycles (coarse, documented estimate).

    ``max(1, launch_latency) + ceil(warp_insn / (n_sm * issue_per_sm))``: GPGPU-Sim 4.x's
    ``-gpgpu_kernel_launch_latency`` (5000 cycles in SM7_QV100) plus the warp instructions
    spread evenly over every SM, each SM issuing ``gpgpu_num_sched_per_core`` warp instructions
    per cycle.  It ignores memory latency and occupancy, so it is a lower bound; it exists so that
    event times are positive and monotonic until the timing model supplies real cycles.
    """
    return max(KERNEL_LAUNCH_CYCLES, launch_latency) + \
        math.ceil(max(0, warp_insn) / max(1, n_sm * issue_per_sm))


def parse_pcie(text: str) -> tuple[float, float]:
    """``"<GB/s>[:<latency us>]"`` -> (bandwidth GB/s, latency us); bad text -> InvalidValue."""
    parts = text.split(":")
    try:
        bw = float(parts[0])
        lat = float(parts[1]) if len(parts) > 1 else 0.0
    except ValueError:
        bw = lat = -1.0
    if len(parts) > 2 or bw <= 0 or lat < 0:
        raise CudaError(Err.InvalidValue,
                        f"GPGPUSIM_PCIE={text!r}: expected <GB/s>[:<latency us>], e.g. 12:5")
    return bw, lat


def _host_array(ref: HostRef, nbytes: int, writable: bool) -> np.ndarray:
    """A uint8 numpy view of host memory given as an address or a buffer."""
    if isinstance(ref, int):
        if ref == 0 and nbytes:
            raise CudaError(Err.InvalidValue, "memcpy: NULL host pointer")
        return np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(ref)) if nbytes \
            else np.zeros(0, np.uint8)
    if isinstance(ref, np.ndarray):
        arr = ref.reshape(-1).view(np.uint8)
    else:
        if writable and isinstance(ref, bytes):
            raise CudaError(Err.InvalidValue, "memcpy: destination host buffer is read-only")
        arr = np.frombuffer(ref, dtype=np.uint8)
    if arr.size < nbytes:
        raise CudaError(Err.InvalidValue,
                        f"memcpy: host buffer of {arr.size} bytes is smaller than {nbytes}")
    return arr[:nbytes]


class Gpu:
    """Functional-mode GPU: executes stream operations and keeps the simulated clock.

    ``launch_fn`` defaults to ``gpgpusim.functional.engine.launch``; unit tests pass a fake with
    the same signature.  ``reporter`` (``gpgpusim.report.Reporter``) gets
    ``kernel_launch(KernelInfo)`` when a kernel enters a slot and, in functional mode,
    ``functional_done(KernelStats)`` when it finishes (C050, C055); both on the simulation thread.
    """

    #: this GPU runs kernels on the functional engine only (no cycle-level timing model)
    functional = True

    def __init__(self, config: Any = None, gmem: Any = None, reporter: Any = None, *,
                 launch_fn: Callable[..., Any] | None = None,
                 pcie_bandwidth_gbps: float | None = None,
                 pcie_latency_us: float = 0.0) -> None:
        self.config = config
        self.gmem = gmem
        self.reporter = reporter
        self._launch_fn = launch_fn
        self.core_mhz = _parse_core_mhz(_cfg(config, "gpgpu_clock_domains", None))
        n_clusters = int(_cfg(config, "gpgpu_n_clusters", DEFAULT_N_SM))
        per_cluster = int(_cfg(config, "gpgpu_n_cores_per_cluster", 1))
        self.n_sm = n_clusters * per_cluster
        self.issue_per_sm = int(_cfg(config, "gpgpu_num_sched_per_core", DEFAULT_SCHED_PER_CORE))
        self.launch_latency_cycles = int(_cfg(config, "gpgpu_kernel_launch_latency", 0))
        self.max_concurrent_kernel = int(_cfg(config, "gpgpu_max_concurrent_kernel",
                                              DEFAULT_MAX_CONCURRENT_KERNEL))
        if pcie_bandwidth_gbps is None and os.environ.get("GPGPUSIM_PCIE"):
            pcie_bandwidth_gbps, pcie_latency_us = parse_pcie(os.environ["GPGPUSIM_PCIE"])
        self.pcie_bandwidth_gbps = pcie_bandwidth_gbps
        self.pcie_latency_us = pcie_latency_us
        self.now_cycles = 0
        #: the most recent kernels, in start order (bounded: a long run launches millions)
        self.kernels: collections.deque[KernelRecord] = collections.deque(maxlen=KEEP_KERNEL_RECORDS)
        self._running: list[KernelRecord] = []     # m_running_kernels (started, not finished)
        self._next_uid = 1
        self._frun: Any = None      # funcrun.FunctionalRun, made with the first kernel

    # ---- clock -------------------------------------------------------------------------------
    @property
    def now_ms(self) -> float:
        """Simulated time in milliseconds at the core clock."""
        return self.now_cycles / (self.core_mhz * 1e3)

    def cycles_to_ms(self, cycles: int) -> float:
        return cycles / (self.core_mhz * 1e3)

    # ---- kernels (C050, C056, C134) ----------------------------------------------------------
    def can_start_kernel(self) -> bool:
        return len(self._running) < self.max_concurrent_kernel

    def busy(self) -> bool:
        return bool(self._running)

    def push_kernel(self, op: KernelLaunchOp, stream_id: int) -> None:
        """A kernel was pushed on a stream (host thread, manager lock held): give it its
        ``kernel_launch_uid`` (GPGPU-Sim numbers kernels at launch, 1, 2, ...)."""
        op.uid = self._next_uid
        op.stream_id = stream_id
        self._next_uid += 1

    def announce_kernel(self, op: KernelLaunchOp) -> None:
        """Report the launch (``cudaLaunch for`` / ``pushing kernel`` lines, C050); called on
        the launching host thread right after the push, as GPGPU-Sim prints them."""
        if self.reporter is None:
            return
        self._notify("kernel_launch", KernelInfo(
            name=op.kernel, uid=op.uid, grid=op.grid, block=op.block, stream_id=op.stream_id,
            functional=self.functional, host_fun=op.host_fun, dyn_smem_bytes=op.dyn_smem_bytes,
            regs_per_thread=op.regs_per_thread, static_smem_bytes=op.static_smem_bytes,
            ptx_analysis=tuple(launch_report(op.module, op.kernel)) if hasattr(op.module, "cache") else ()))

    def start_kernel(self, op: KernelLaunchOp, stream_id: int | None = None) -> KernelRecord:
        """Place a pushed kernel in a free running slot (C056)."""
        if not self.can_start_kernel():
            raise RuntimeError("start_kernel without a free slot (check can_start_kernel)")
        if op.uid == 0:  # not pushed through a stream manager (direct use)
            self.push_kernel(op, stream_id or 0)
            self.announce_kernel(op)
        rec = KernelRecord(op.uid, op.kernel, op.stream_id if stream_id is None else stream_id,
                           op.grid, op.block, op, start_cycles=self.now_cycles)
        # (the op does not point back at its record: such a cycle per launch would outlive this
        # deque until a full collection, which long simulations seldom make)
        self._running.append(rec)
        self.kernels.append(rec)
        if len(self.kernels) > KEEP_KERNEL_COUNTERS:
            old = self.kernels[-KEEP_KERNEL_COUNTERS - 1]
            rs = old.report_stats
            if rs is not None and rs.counters:
                # a copy: the reporter or the sampler may still hold the object itself
                old.report_stats = dataclasses.replace(rs, counters={})
        return rec

    def advance(self) -> list[KernelRecord]:
        """Simulate until a running kernel finishes; return the finished ones.

        Functional mode runs the oldest started kernel to completion and returns just it, so
        that the stream manager can run what its stream does next (an event record, a copy)
        at that kernel's end time before the next kernel advances the clock.
        """
        if not self._running:
            return []
        rec = self._running.pop(0)
        self._run_functional(rec)
        return [rec]

    def take_device_launches(self) -> list[tuple[KernelLaunchOp, Any]]:
        """Child grids that device-side launches released while their parent runs: (parent
        op, ``functional.cdp.DeviceLaunch``).  None here: the functional device runs a
        parent to completion first, and the stream manager then queues its children."""
        return []

    def abort(self) -> list[KernelRecord]:
        """Drop every started kernel unexecuted (the context took a sticky error)."""
        dropped, self._running = self._running, []
        for rec in dropped:
            rec.end_cycles = rec.start_cycles = self.now_cycles
        return dropped

    def _run_functional(self, rec: KernelRecord) -> None:
        """Execute ``rec`` on the functional engine (``launch_fn`` when given, else through
        :class:`~gpgpusim.device.funcrun.FunctionalRun`: stop limits and liveness line)."""
        op = rec.op
        launch = self._launch_fn
        rec.start_cycles = self.now_cycles
        stopped = None
        try:
            if launch is None:
                if self._frun is None:
                    self._frun = FunctionalRun(self)
                rec.stats, stopped = self._frun.run(rec)
            else:
                rec.stats = launch(op.module, op.kernel, op.grid, op.block, op.dyn_smem_bytes,
                                   op.params, gmem=self.gmem, **op.launch_kwargs)
        except CudaError as exc:
            rec.error = exc
        except Exception as exc:  # noqa: BLE001 - an engine bug: the kernel's results are undefined
            rec.error = CudaError(Err.LaunchFailure,
                                  report_internal_error(f"kernel '{op.kernel}'", exc), sticky=True)
        warp_insn = int(getattr(rec.stats, "warp_insn", 0) or 0)
        self.now_cycles += estimate_cycles(warp_insn, self.n_sm, self.issue_per_sm,
                                           self.launch_latency_cycles)
        rec.end_cycles = self.now_cycles
        if rec.stats is not None:
            rec.report_stats = self._report_stats(rec)
            if stopped is not None and self._frun is not None:
                self._frun.stop(rec, stopped)
                rec.report_stats = dataclasses.replace(rec.report_stats, functional_insn=None,
                                                       opcode_counts={}, line_counts=None,
                                                       stopped=f"-gpgpu_max_{stopped}")
            self._notify("functional_done", rec.report_stats)
            if stopped is not None and self._frun is not None:
                self._frun.announce()

    def _notify(self, what: str, *args: Any) -> None:
        """Call the reporter's ``what`` if it has one; a reporter fault must not stop the GPU."""
        fn = getattr(self.reporter, what, None) if self.reporter is not None else None
        if fn is None:
            return
        try:
            fn(*args)
        except Exception as exc:  # noqa: BLE001 - the report is not worth the run
            report_internal_error(f"report {what}", exc)

    @staticmethod
    def _report_stats(rec: KernelRecord) -> Any:
        """Engine stats -> ``report.data.KernelStats`` (per kernel, with its stream id)."""
        st = rec.stats
        line_counts = None
        line_stats = getattr(st, "line_stats", None)
        if line_stats:
            module = getattr(rec.op.module, "module", None)
            fname = getattr(module, "filename", "<ptx>")
            # GPGPU-Sim's per-line execution counts include predicated-off lanes (C199)
            line_counts = {(fname, int(line)): int(v[2]) for line, v in line_stats.items()}
        return KernelStats(
            name=rec.name, uid=rec.uid, grid=rec.grid, block=rec.block,  # type: ignore[arg-type]
            stream_id=rec.stream_id, thread_insn=int(getattr(st, "thread_insn", 0)),
            functional_insn=(int(st.active_insn) if getattr(st, "active_insn", None) is not None else None),
            warp_insn=int(getattr(st, "warp_insn", 0)), ctas=int(getattr(st, "ctas", 0)),
            opcode_counts=dict(getattr(st, "opcode_counts", {}) or {}),
            elapsed_s=float(getattr(st, "wall_s", 0.0)), cycles=None, line_counts=line_counts)

    # ---- copies ------------------------------------------------------------------------------
    def _is_device(self, ref: HostRef) -> bool:
        return isinstance(ref, int) and self.gmem is not None and self.gmem.find(ref) is not None

    def _copy_time(self, nbytes: int, direction: MemcpyKind) -> None:
        if self.pcie_bandwidth_gbps and direction in (MemcpyKind.HostToDevice,
                                                      MemcpyKind.DeviceToHost):
            seconds = self.pcie_latency_us * 1e-6 + nbytes / (self.pcie_bandwidth_gbps * 1e9)
            self.now_cycles += math.ceil(seconds * self.core_mhz * 1e6)

    def _resolve(self, direction: MemcpyKind, dst: HostRef, src: HostRef) -> MemcpyKind:
        if direction != MemcpyKind.Default:
            return direction
        d, s = self._is_device(dst), self._is_device(src)
        if s and d:
            return MemcpyKind.DeviceToDevice
        if s:
            return MemcpyKind.DeviceToHost
        return MemcpyKind.HostToDevice if d else MemcpyKind.HostToHost

    def _read(self, ref: HostRef, nbytes: int, device: bool) -> np.ndarray:
        if device:
            return self.gmem.view(int(ref), nbytes)  # type: ignore[arg-type]
        return _host_array(ref, nbytes, writable=False)

    def _write(self, ref: HostRef, data: np.ndarray, device: bool) -> None:
        if device:
            self.gmem.write(int(ref), data)  # type: ignore[arg-type]
        else:
            _host_array(ref, data.size, writable=True)[:] = data

    def stage_host_copy(self, op: Op) -> bool:
        """CUDA's pageable-memory rules for an async copy, applied when it is enqueued.

        Host memory that the device memory map does not know (not pinned, not managed) is
        pageable.  A host-to-device copy from it is staged at call time: the source bytes are
        snapshotted now, so the application may reuse its buffer as soon as the call returns.
        Returns True for a device-to-host copy into pageable memory, and for any host-to-host
        copy ("fully synchronous with respect to the host"), which CUDA completes before the
        call returns (the caller must wait for the operation).
        """
        if not isinstance(op, (MemcpyOp, Memcpy2DOp)):
            return False
        kind = self._resolve(op.direction, op.dst, op.src)
        if kind == MemcpyKind.HostToHost:
            return True
        if kind == MemcpyKind.HostToDevice and isinstance(op.src, int) and not self._is_device(op.src):
            if isinstance(op, MemcpyOp):
                n = op.nbytes
            else:
                n = op.spitch * (op.height - 1) + op.width if op.height else 0
            if n:
                op.src = _host_array(op.src, n, writable=False).tobytes()
            return False
        return kind == MemcpyKind.DeviceToHost and isinstance(op.dst, int) \
            and not self._is_device(op.dst)

    def _host_visible(self, ref: HostRef) -> bool:
        """Host memory the application can read directly: pageable, pinned or managed."""
        return not isinstance(ref, int) or self.gmem is None or self.gmem.find(ref) is None \
            or bool(self.gmem.is_host_mapped(ref))

    def sync_call_waits(self, op: Op) -> bool:
        """Whether the *synchronous* API call that enqueued ``op`` returns only once ``op`` has
        completed (CUDA's "API synchronization behavior").

        - ``cudaMemcpy`` device to device (neither side host memory): no host-side
          synchronisation, it returns once enqueued;
        - every other ``cudaMemcpy`` (to or from host memory, pageable or pinned, or host to
          host): returns once the copy is done (for a pageable source CUDA may return once the
          bytes are staged; completing the copy is the same observable result);
        - ``cudaMemset``: asynchronous with respect to the host unless the target is pinned host
          or managed memory;
        - anything else: waits.
        """
        if isinstance(op, (MemcpyOp, Memcpy2DOp)):
            kind = self._resolve(op.direction, op.dst, op.src)
            if kind != MemcpyKind.DeviceToDevice:
                return True
            return self._host_visible(op.dst) or self._host_visible(op.src)
        if isinstance(op, MemsetOp):
            return self._host_visible(op.dst)
        return True

    def memcpy(self, op: MemcpyOp) -> None:
        kind = self._resolve(op.direction, op.dst, op.src)
        _debug_out(memory_note(kind.name, op.nbytes, op.dst, op.src) if op.nbytes else "")
        src_dev = kind in (MemcpyKind.DeviceToHost, MemcpyKind.DeviceToDevice)
        dst_dev = kind in (MemcpyKind.HostToDevice, MemcpyKind.DeviceToDevice)
        if op.nbytes:
            src = self._read(op.src, op.nbytes, src_dev)
            if dst_dev:
                dst = self.gmem.view(int(op.dst), op.nbytes)  # type: ignore[arg-type]
            else:
                dst = _host_array(op.dst, op.nbytes, writable=True)
            np.copyto(dst, src)   # one copy; numpy buffers overlapping ranges itself
        self._copy_time(op.nbytes, kind)

    def memcpy2d(self, op: Memcpy2DOp) -> None:
        kind = self._resolve(op.direction, op.dst, op.src)
        src_dev = kind in (MemcpyKind.DeviceToHost, MemcpyKind.DeviceToDevice)
        dst_dev = kind in (MemcpyKind.HostToDevice, MemcpyKind.DeviceToDevice)
        for row in range(op.height):
            s = op.src + row * op.spitch if isinstance(op.src, int) else None
            d = op.dst + row * op.dpitch if isinstance(op.dst, int) else None
            if s is None:
                data = _host_array(op.src, op.spitch * (op.height - 1) + op.width, False)[
                    row * op.spitch: row * op.spitch + op.width].copy()
            else:
                data = self._read(s, op.width, src_dev).copy()
            if d is None:
                _host_array(op.dst, op.dpitch * (op.height - 1) + op.width, True)[
                    row * op.dpitch: row * op.dpitch + op.width] = data
            else:
                self._write(d, data, dst_dev)
        self._copy_time(op.width * op.height, kind)

    def memset(self, op: MemsetOp) -> None:
        if not op.nbytes:
            return
        _debug_out(memory_note("memset", op.nbytes * op.height, op.dst, value=op.value))
        dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32}[op.element_size]
        for row in range(op.height):
            self.gmem.view(op.dst + row * op.pitch, op.nbytes).view(dtype)[:] = op.value

    def free(self, op: FreeOp) -> None:
        self.gmem.free(op.addr)
