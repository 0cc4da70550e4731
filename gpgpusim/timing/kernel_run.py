"""A kernel running on the performance model (:class:`KernelRun`): its instruction feed,
static table, CTA accounting, completed-instruction counts and the child grids of its
device-side launches.  The GPU (``gpu.py``) creates one per launch and the cores read it
through ``Warp.kernel``."""

from __future__ import annotations

from typing import Any

from gpgpusim.device.gpu import KernelRecord
from gpgpusim.errors import CudaError
from gpgpusim.functional.cdp import STREAM_TAIL_LAUNCH


def run_functionally(streams: Any) -> None:
    """CTA sampling: a CTA's warps run to their end on the functional engine only (their
    instructions are fed, not timed)."""
    for st in streams:
        while st.pc >= 0:
            st.issue(0)


class KernelRun:
    """A running kernel: its instruction feed (``kernel_trace.KernelTrace`` or ``live.LiveKernel``),
    static table and CTA accounting."""

    def __init__(self, rec: KernelRecord, trace: Any, table: Any, max_cta_per_core: int,
                 latency: int) -> None:
        self.rec = rec
        self.trace = trace
        self.table = table
        self.ctas = trace.streams()
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
        #: thread and warp instructions completed (written back) so far (``warp_inst_complete``;
        #: counted only when a stop limit is set, the only user)
        self.thread_done = 0
        self.warp_done = 0
        #: the cores' issued thread and warp instructions when the kernel started (an
        #: interrupt reports the kernel's issued instructions when completions are not counted)
        self.issued_before = (0, 0)
        #: byte pc of each program pc, for instruction fetches through a finite L1I (icache.py)
        self.inst_addr: list[int] = []
        #: the decoded program (``functional.decode.Program``): register and instruction names
        #: for dumps and traces
        self.prog: Any = None
        #: kernel sampling: the launch's group key when it started alone on an idle machine
        #: (its cycles are then its own, a sample of its group); None otherwise
        self.sample_key: Any = None
        #: CTA/wave sampling state (``cta_sampling.CtaSampling``) when the launch is sampled
        self.cta_sampling: Any = None
        #: the SMs (core ids) it was given CTAs on (kernel sampling: ``TimingGpu.fresh_sms``)
        self.sms: set[int] = set()
        #: dynamic parallelism (:meth:`device_launch`): launch calls issued per (CTA, warp),
        #: the queued child grids by (CTA, warp, issue) and how many of them are indexed, and
        #: the list released children go to (the GPU's, set by it)
        self.cdp_issued: dict[tuple[int, int], int] = {}
        self.cdp_index: dict[tuple[int, int, int], list[Any]] = {}
        self.cdp_seen = 0
        self.released: list[tuple[Any, Any]] = []

    def more_ctas(self) -> bool:
        return self.issued < self.n_ctas and self.latency_left == 0 and self.error is None

    def device_launch(self, cta: int, warp: int) -> None:
        """Warp ``warp`` of CTA ``cta`` issued a device-side launch call (dynamic parallelism):
        release the child grids its matching functional execution queued (``cdp.DeviceLaunch``:
        the n-th issue of a launch call by a warp is its n-th execution) to ``released``, for
        the stream manager to start while this kernel runs, as GPGPU-Sim launches a child at
        the cycle its launch call issues.  Tail launches stay queued: they run after the
        parent grid."""
        key = (cta, warp)
        n = self.cdp_issued.get(key, 0)
        self.cdp_issued[key] = n + 1
        queued = self.trace.stats.device_launches
        index = self.cdp_index
        while self.cdp_seen < len(queued):
            dl = queued[self.cdp_seen]
            index.setdefault((dl.cta, dl.warp, dl.issue), []).append(dl)
            self.cdp_seen += 1
        for dl in index.pop((cta, warp, n), ()):
            if dl.stream != STREAM_TAIL_LAUNCH:
                dl.released = True
                self.released.append((self.rec.op, dl))
