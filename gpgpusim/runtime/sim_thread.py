"""The stream manager's simulation thread (GPGPU-Sim's ``gpgpu_sim_thread_concurrent``): it
starts ready operations on the device, advances the device while kernels run, places the child
grids of device-side launches, completes operations and runs host functions on helper threads.
:class:`~gpgpusim.runtime.streams.StreamManager` mixes :class:`SimThreadMixin` in.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Callable

from gpgpusim.device.gpu import (
    FreeOp,
    HostFuncOp,
    KernelLaunchOp,
    Memcpy2DOp,
    MemcpyOp,
    MemsetOp,
    Op,
)
from gpgpusim.errors import CudaError, Err, report_internal_error
from gpgpusim.runtime.cdp import child_launch, child_launches, device_stream_key
from gpgpusim.runtime.stream_state import STREAM_NON_BLOCKING, Stream


class SimThreadMixin:
    """Simulation-thread methods of the stream manager; the attributes below are the manager's."""

    gpu: Any
    _lock: threading.RLock
    _cv: threading.Condition
    _tls: threading.local
    _active: list[Stream]
    _handles: itertools.count[int]
    _stream_uids: itertools.count[int]
    _seq: itertools.count[int]
    _host_funcs_running: int
    _queued: int
    _staged: int
    _stop: bool
    sticky_error: CudaError | None
    _async_error: CudaError | None
    _thread_crash: BaseException | None
    _stream_id: Callable[[Stream], int]

    def _runnable(self) -> Op | None:
        """Highest-priority stream head whose stream is idle and whose deps are done."""
        best: Op | None = None
        for s in self._active:
            if s.in_flight or not s.ops:
                continue
            op = s.ops[0]
            if any(not d.done for d in op.deps):
                continue
            if isinstance(op, KernelLaunchOp) and self.sticky_error is None \
                    and not self.gpu.can_start_kernel():
                continue
            if best is None or (s.priority, op.seq) < (best.stream.priority, best.seq):
                best = op
        return best

    def _complete(self, op: Op, error: CudaError | None = None) -> None:
        """Mark ``op`` done (lock held) and pop it off its stream; the last running child of a
        parent grid that waits for its children completes the parent too."""
        op.done = True
        op.complete_cycles = self.gpu.now_cycles
        op.deps = []      # done ops must not keep their predecessors alive (long runs)
        if error is not None:
            op.error = error
            if error.sticky:
                if self.sticky_error is None:
                    self.sticky_error = error
            elif self._async_error is None:
                self._async_error = error
        if op.queued:
            op.queued = False
            self._queued -= 1
            self._staged -= op.held_bytes
        s = op.stream
        if s.ops and s.ops[0] is op:
            s.ops.popleft()
        s.in_flight = False
        if s.destroyed and not s.ops and s in self._active:
            self._active.remove(s)
        if isinstance(op, KernelLaunchOp) and op.cdp_parent is not None:
            parent = op.cdp_parent
            op.cdp_parent = None
            parent.cdp_running -= 1
            if parent.cdp_waiting and not parent.cdp_running:
                parent.cdp_waiting = False
                self._complete(parent, None)
        self._cv.notify_all()

    def _start_child(self, parent: KernelLaunchOp, dl: Any) -> KernelLaunchOp:
        """A child grid the performance model released while ``parent`` runs (lock held;
        :mod:`gpgpusim.runtime.cdp`): queue it on a device stream of its own -- the launching
        CTA's stream (one per parent CTA, GPGPU-Sim's ``get_default_stream_cta``: that CTA's
        children run in launch order) or, for ``cudaStreamFireAndForget``, a new one -- so it
        runs beside its parent; ``parent`` completes only once its children have."""
        child = child_launch(parent, dl, self.gpu.gmem)
        key = device_stream_key(dl)
        s = parent.cdp_streams.get(key) if key is not None else None
        if s is None:
            s = Stream(next(self._handles), flags=STREAM_NON_BLOCKING, uid=next(self._stream_uids))
            s.destroyed = True          # (leaves the active list once empty)
            self._active.append(s)
            if key is not None:
                parent.cdp_streams[key] = s
        self._place(child, s, len(s.ops), s.last_op)
        child.cdp_parent = parent
        parent.cdp_running += 1
        return child

    def _queue_children(self, op: KernelLaunchOp, stats: Any) -> list[KernelLaunchOp]:
        """Put the child grids ``op`` launched from the device on its stream right after it
        (lock held; :mod:`gpgpusim.runtime.cdp`); returns them."""
        s = op.stream
        kids = child_launches(op, stats, self.gpu.gmem)
        at = 1 if s.ops and s.ops[0] is op else 0
        prev: Op = op
        for i, child in enumerate(kids):
            self._place(child, s, at + i, prev)
            prev = child
        return kids

    def _place(self, child: KernelLaunchOp, s: Stream, at: int, after: Op | None) -> None:
        """Push child grid ``child`` to the device as a kernel of stream ``s`` and insert it at
        position ``at`` of the stream's queue, right after operation ``after`` (lock held); when
        ``after`` is the stream's last operation, ``child`` becomes it."""
        self.gpu.push_kernel(child, self._stream_id(s))
        child.stream = s
        child.seq = next(self._seq)
        s.ops.insert(at, child)
        if s.last_op is after:
            s.last_op = child

    def _sim_loop(self) -> None:
        """``gpgpu_sim_thread_concurrent``: start ready operations; advance the GPU when busy."""
        try:
            while True:
                with self._lock:
                    while True:
                        op = self._runnable()
                        if op is not None or self.gpu.busy():
                            break
                        if self._stop and all(not s.ops for s in self._active) \
                                and self._host_funcs_running == 0:
                            return
                        self._cv.wait()
                    if op is not None:
                        op.stream.in_flight = True
                        if self.sticky_error is not None:
                            if isinstance(op, HostFuncOp) and op.callback:
                                # a stream callback runs once, with the error as its status
                                op.status = int(self.sticky_error.code)
                            else:
                                # the context is poisoned: drop the operation unexecuted
                                self._complete(op, None)
                                continue
                if op is None:
                    # after a sticky fault the context is dead: kernels still in GPU slots are
                    # dropped, not simulated
                    finished = self.gpu.abort() if self.sticky_error is not None \
                        else self.gpu.advance()
                    released = self.gpu.take_device_launches()
                    children: list[KernelLaunchOp] = []
                    with self._lock:
                        for parent, dl in released:
                            children.append(self._start_child(parent, dl))
                        for rec in finished:
                            if rec.error is None and getattr(rec.stats, "device_launches", None):
                                children += self._queue_children(rec.op, rec.stats)
                            if rec.error is None and rec.op.cdp_running:
                                rec.op.cdp_waiting = True    # complete once its children are
                            else:
                                self._complete(rec.op, rec.error)
                    for child in children:
                        self.gpu.announce_kernel(child)      # outside the lock: it prints
                    continue
                self._execute(op)
        except BaseException as exc:  # noqa: BLE001 - a simulator bug: blocked host threads fail loudly
            report_internal_error("simulation thread", exc)
            with self._lock:
                self._thread_crash = exc
                self._cv.notify_all()

    def _execute(self, op: Op) -> None:
        """Run one non-kernel operation (or place a kernel) on the GPU; lock not held."""
        error: CudaError | None = None
        try:
            if isinstance(op, KernelLaunchOp):
                self.gpu.start_kernel(op)
                return  # completes when gpu.advance() reports it finished
            if isinstance(op, HostFuncOp):
                self._start_host_func(op)
                return
            if isinstance(op, MemcpyOp):
                self.gpu.memcpy(op)
            elif isinstance(op, Memcpy2DOp):
                self.gpu.memcpy2d(op)
            elif isinstance(op, MemsetOp):
                self.gpu.memset(op)
            elif isinstance(op, FreeOp):
                self.gpu.free(op)
            # EventRecordOp, WaitEventOp, EmptyOp: completing them is the whole effect
        except CudaError as exc:
            error = exc
        except Exception as exc:  # noqa: BLE001 - surface simulator bugs as a CUDA error
            error = CudaError(Err.Unknown, report_internal_error(op.describe(), exc))
        with self._lock:
            self._complete(op, error)

    def _start_host_func(self, op: HostFuncOp) -> None:
        def run() -> None:
            self._tls.in_host_func = True
            error = None
            try:
                if op.callback:
                    op.fn(op.status)
                else:
                    op.fn()
            except Exception as exc:  # noqa: BLE001 - calling into the app failed
                error = CudaError(Err.Unknown, report_internal_error("stream host function", exc))
            with self._lock:
                self._host_funcs_running -= 1
                self._complete(op, error)

        with self._lock:
            self._host_funcs_running += 1
        threading.Thread(target=run, name="gpgpusim-hostfn", daemon=True).start()
