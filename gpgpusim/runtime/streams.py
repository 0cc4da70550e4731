"""Stream manager and background simulation thread (CUDA streams, events, capture).

GPGPU-Sim counterpart: ``stream_manager`` / ``CUstream_st`` / ``CUevent_st`` and
``gpgpu_sim_thread_concurrent`` (checklist C040, C041, C047–C056).  Every kernel launch, copy,
memset, event record, wait and host function is an operation (:mod:`gpgpusim.device.gpu`)
pushed onto a stream; one background simulation thread, started on first use, executes them on
the :class:`~gpgpusim.device.gpu.Gpu`.  Host threads block only where CUDA blocks
(synchronise calls), never while enqueueing.

Semantics (CUDA's, where GPGPU-Sim differs it is noted):

- Operations of one stream run in order; an operation starts when its stream's previous
  operation has completed and its explicit dependencies (``Op.deps``) have completed.
- Legacy default stream (handle 0 or 1 = ``cudaStreamLegacy``): an operation on it waits for all
  earlier work of every *blocking* stream, and work later enqueued on a blocking stream waits
  for it.  Streams created with ``cudaStreamNonBlocking`` are exempt both ways (C049).
- Per-thread default stream (handle 2 = ``cudaStreamPerThread``, and handle 0 when the call
  comes from a ``_ptsz``/``_ptds`` entry point, see :meth:`StreamManager.per_thread_default`):
  one ordinary blocking stream per host thread.
- Synchronous API calls (``cudaMemcpy``, ``cudaMemset``, ...) enqueue with ``sync=True`` and
  block exactly as CUDA's "API synchronization behavior" says (:meth:`Gpu.sync_call_waits`):
  until *their own* operation completed, or not at all (device-to-device copies, memsets of
  device memory) -- never for work other threads enqueue meanwhile.
- Events carry the simulated GPU time (core cycles) at which their stream reached them, so
  ``elapsed_ms`` is simulated milliseconds (GPGPU-Sim returns host wall-clock seconds, C041).
- Kernels from different streams may be in the GPU's running slots at the same time, up to
  ``-gpgpu_max_concurrent_kernel`` (C056); the GPU decides how they interleave.
- A sticky error (kernel fault) poisons the context: queued and later operations are dropped
  and every synchronising call (synchronize, query, elapsed time) raises it; enqueueing calls
  never report it, so when it first shows does not depend on the simulation thread's speed.
  Other failures of an asynchronous operation are reported once, by the next synchronising
  call (or query) of any stream.
- Host functions run on their own helper thread, so a blocked host function stalls only its
  stream; like CUDA, they may not call the stream API (``cudaErrorNotPermitted``).  After a
  sticky error ``cudaLaunchHostFunc`` functions are skipped while ``cudaStreamAddCallback``
  callbacks still run, once, with the error as their status.
- Stream capture records operations into a :class:`~gpgpusim.runtime.graphs.Graph` instead of
  running them; streams join a capture by waiting on an event recorded in it.  "Potentially
  unsafe" calls (allocation, device-wide or synchronous calls) are refused during capture per
  the calling thread's capture interaction mode (:meth:`StreamManager.check_unsafe_call`).
- Process exit (:meth:`StreamManager.shutdown`) drains every queued operation, host functions
  included, then stops and joins the simulation thread.
- Copies follow CUDA's pageable-memory rules: a host-to-device copy from pageable memory is
  staged when enqueued; a device-to-host copy into pageable memory returns once done.
- Launches of one executable graph are ordered after each other, whatever their streams.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator
from typing import Any

from gpgpusim.device.gpu import (
    EmptyOp,
    EventRecordOp,
    FreeOp,
    HostFuncOp,
    KernelLaunchOp,
    Memcpy2DOp,
    MemcpyOp,
    MemsetOp,
    Op,
    WaitEventOp,
)
from gpgpusim.errors import CudaError, Err, report_internal_error
from gpgpusim.runtime import graphs
from gpgpusim.runtime.stream_mempool import MemPools

# cudaStream_t special handles
STREAM_LEGACY_NULL = 0
STREAM_LEGACY = 1          # cudaStreamLegacy
STREAM_PER_THREAD = 2      # cudaStreamPerThread

# flags
STREAM_DEFAULT = 0
STREAM_NON_BLOCKING = 1    # cudaStreamNonBlocking
EVENT_DEFAULT = 0
EVENT_BLOCKING_SYNC = 1    # cudaEventBlockingSync
EVENT_DISABLE_TIMING = 2   # cudaEventDisableTiming
EVENT_INTERPROCESS = 4     # cudaEventInterprocess
EVENT_RECORD_EXTERNAL = 1  # cudaEventRecordExternal
EVENT_WAIT_EXTERNAL = 1    # cudaEventWaitExternal

#: cudaDeviceGetStreamPriorityRange on Volta and later: (least, greatest); lower is more urgent.
PRIORITY_LEAST = 0
PRIORITY_GREATEST = -5

# cudaStreamCaptureMode / cudaStreamCaptureStatus
CAPTURE_MODE_GLOBAL = 0
CAPTURE_MODE_THREAD_LOCAL = 1
CAPTURE_MODE_RELAXED = 2
CAPTURE_STATUS_NONE = 0
CAPTURE_STATUS_ACTIVE = 1
CAPTURE_STATUS_INVALIDATED = 2

#: How often a blocked host thread checks that the simulation thread is still alive (s).
_WATCHDOG_S = 0.5


class Stream:
    """``CUstream_st``: a FIFO of operations; ``ops[0]`` is the next (or running) one."""

    __slots__ = ("handle", "flags", "priority", "ops", "last_op", "in_flight", "destroyed",
                 "capture", "capture_frontier", "owner_thread", "uid", "attrs")

    def __init__(self, handle: int, flags: int = 0, priority: int = 0,
                 owner_thread: int | None = None, uid: int = 0) -> None:
        self.handle = handle
        self.flags = flags
        self.priority = priority
        self.ops: collections.deque[Op] = collections.deque()
        self.last_op: Op | None = None
        self.in_flight = False
        self.destroyed = False
        self.capture: Capture | None = None
        self.capture_frontier: list[graphs.GraphNode] = []
        self.owner_thread = owner_thread
        self.uid = uid
        self.attrs: dict[int, bytes] = {}   # cudaStreamSetAttribute values (64-byte unions)

    @property
    def blocking(self) -> bool:
        return not self.flags & STREAM_NON_BLOCKING

    def __repr__(self) -> str:
        return f"Stream({self.handle:#x}, flags={self.flags}, priority={self.priority})"


class Event:
    """``CUevent_st``: the latest record operation and, once reached, its simulated time."""

    __slots__ = ("handle", "flags", "record_op", "capture", "capture_nodes", "destroyed")

    def __init__(self, handle: int, flags: int) -> None:
        self.handle = handle
        self.flags = flags
        self.record_op: EventRecordOp | None = None
        self.capture: Capture | None = None
        self.capture_nodes: list[graphs.GraphNode] = []
        self.destroyed = False

    @property
    def time_cycles(self) -> int | None:
        op = self.record_op
        return op.complete_cycles if op is not None and op.done else None


class Capture:
    """One stream capture in progress (``cudaStreamBeginCapture`` … ``EndCapture``)."""

    __slots__ = ("id", "graph", "origin", "mode", "status", "streams", "thread", "error",
                 "owns_graph")

    def __init__(self, cid: int, graph: graphs.Graph, origin: Stream, mode: int) -> None:
        self.id = cid
        self.graph = graph
        self.origin = origin
        self.mode = mode
        self.status = CAPTURE_STATUS_ACTIVE
        self.streams: list[Stream] = [origin]
        self.thread = threading.get_ident()
        self.error: CudaError | None = None
        self.owns_graph = True       # False for cudaStreamBeginCaptureToGraph


class StreamManager:
    """Queues operations per stream and drains them on the simulation thread.

    All state is guarded by one lock; ``_cv`` (on that lock) is notified whenever an operation
    is enqueued or completes.  The GPU object is touched only by the simulation thread.
    """

    def __init__(self, gpu: Any) -> None:
        self.gpu = gpu
        self.graphs = graphs.GraphRegistry()
        self.mem_pools = MemPools()      # cudaMallocAsync's pools (stream_api)
        self._lock = threading.RLock()
        self._cv = threading.Condition(self._lock)
        self._handles = itertools.count(0x5F000010, 0x10)
        self._capture_ids = itertools.count(1)
        self._stream_uids = itertools.count(1)
        self.legacy = Stream(STREAM_LEGACY_NULL)
        self._streams: dict[int, Stream] = {}          # user-created, by handle
        self._active: list[Stream] = [self.legacy]     # every stream that may hold work
        self._events: dict[int, Event] = {}
        self._seq = itertools.count(1)
        self._host_funcs_running = 0
        self.sticky_error: CudaError | None = None
        self._async_error: CudaError | None = None
        self._thread: threading.Thread | None = None
        self._thread_crash: BaseException | None = None
        self._stop = False
        self._closed = False
        self._tls = threading.local()
        self._captures: list[Capture] = []             # begun and not yet ended

    # ================================================================ helpers
    def _check_caller(self, what: str) -> None:
        if getattr(self._tls, "in_host_func", False):
            raise CudaError(Err.NotPermitted,
                            f"{what}: CUDA calls are not permitted inside a stream host function")
        if self._thread is not None and threading.current_thread() is self._thread:
            raise CudaError(Err.NotPermitted, f"{what}: called from the simulation thread")

    def _check_sticky(self) -> None:
        err = self.sticky_error
        if err is not None:
            # a fresh exception each time: re-raising one instance grows its traceback forever
            raise CudaError(err.code, err.message, sticky=True)

    def _resolve(self, handle: int | None, per_thread: bool = False) -> Stream:
        if handle is None:
            handle = STREAM_LEGACY_NULL
        if handle == STREAM_LEGACY_NULL and not per_thread:
            per_thread = getattr(self._tls, "per_thread_default", False)
        if handle == STREAM_PER_THREAD or (handle == STREAM_LEGACY_NULL and per_thread):
            # thread-local, not keyed by thread id: ids are reused after a thread exits
            stream = getattr(self._tls, "per_thread_stream", None)
            if stream is None:
                stream = Stream(next(self._handles), owner_thread=threading.get_ident(),
                                uid=next(self._stream_uids))
                self._tls.per_thread_stream = stream
                self._active.append(stream)
            return stream
        if handle in (STREAM_LEGACY_NULL, STREAM_LEGACY):
            return self.legacy
        stream = self._streams.get(handle)
        if stream is None:
            raise CudaError(Err.InvalidResourceHandle,
                            f"stream handle {handle:#x} is not a live stream")
        return stream

    @contextlib.contextmanager
    def per_thread_default(self) -> Iterator[None]:
        """Within this block the calling thread's stream 0 (NULL) means its per-thread default
        stream: the ``_ptds``/``_ptsz`` entry points of ``nvcc --default-stream per-thread``
        binaries run the plain call inside it."""
        old = getattr(self._tls, "per_thread_default", False)
        self._tls.per_thread_default = True
        try:
            yield
        finally:
            self._tls.per_thread_default = old

    def _event(self, handle: int) -> Event:
        event = self._events.get(handle)
        if event is None:
            raise CudaError(Err.InvalidResourceHandle,
                            f"event handle {handle:#x} is not a live event")
        return event

    def _ensure_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._sim_loop, name="gpgpusim-sim",
                                            daemon=True)
            self._thread.start()

    def _wait(self, pred: Callable[[], bool]) -> None:
        """Block (lock held) until ``pred()``; fail instead of hanging if the sim thread died."""
        while not pred():
            if self._thread_crash is not None:
                raise CudaError(Err.Unknown,
                                f"simulation thread failed: {self._thread_crash!r}")
            self._cv.wait(_WATCHDOG_S)

    def _report_errors(self) -> None:
        """Raise the sticky error, or the pending asynchronous error once."""
        self._check_sticky()
        if self._async_error is not None:
            err, self._async_error = self._async_error, None
            raise err

    @staticmethod
    def _tails(streams: list[Stream]) -> list[Op]:
        """The last operation of each stream that has one not yet completed."""
        return [s.last_op for s in streams if s.last_op is not None and not s.last_op.done]

    # ================================================================ streams
    def create_stream(self, flags: int = STREAM_DEFAULT, priority: int = 0) -> int:
        """``cudaStreamCreateWithPriority``: priorities are clamped into the device range."""
        if flags & ~STREAM_NON_BLOCKING:
            raise CudaError(Err.InvalidValue, f"cudaStreamCreate: unknown flags {flags:#x}")
        priority = min(PRIORITY_LEAST, max(PRIORITY_GREATEST, int(priority)))
        with self._lock:
            handle = next(self._handles)
            stream = Stream(handle, flags, priority, uid=next(self._stream_uids))
            self._streams[handle] = stream
            self._active.append(stream)
            return handle

    def get_stream(self, handle: int | None, per_thread: bool = False) -> Stream:
        """The :class:`Stream` behind a handle (flags, priority); bad handle -> InvalidResourceHandle."""
        with self._lock:
            return self._resolve(handle, per_thread)

    def destroy_stream(self, handle: int) -> None:
        """``cudaStreamDestroy``: returns at once; queued work still completes (CUDA semantics)."""
        with self._lock:
            if handle in (STREAM_LEGACY_NULL, STREAM_LEGACY, STREAM_PER_THREAD):
                raise CudaError(Err.InvalidResourceHandle,
                                f"cudaStreamDestroy: the default stream {handle} cannot be destroyed")
            stream = self._resolve(handle)
            cap = stream.capture
            if cap is not None:
                self._invalidate(cap, "stream destroyed during capture")
                if cap.origin is stream:
                    # nothing can end this capture any more: it ends here, as a failed one
                    self._end_capture(cap)
                    if cap.owns_graph:
                        self.graphs.destroy_graph(cap.graph.handle)
                else:
                    cap.streams.remove(stream)
                    stream.capture = None
            del self._streams[handle]
            stream.destroyed = True
            if not stream.ops:
                self._active.remove(stream)

    def enqueue(self, handle: int | None, op: Op, per_thread: bool = False, *,
                stage: bool = True, sync: bool = False, what: str | None = None) -> Op:
        """Push ``op`` on a stream (or into its capture graph); returns ``op``.

        With ``stage`` (API calls; graph replays pass False), an asynchronous copy follows
        CUDA's pageable-memory rules (:meth:`Gpu.stage_host_copy`): a pageable source is
        snapshotted now, and a copy into pageable memory is waited for before returning.

        ``sync`` marks a synchronous API call (``what`` names it, e.g. ``"cudaMemcpy"``): it is
        a potentially unsafe call during capture (:meth:`check_unsafe_call`), it cannot go to a
        capturing stream, and it waits for ``op`` itself when :meth:`Gpu.sync_call_waits` says
        CUDA does -- then it reports ``op``'s own failure, else a pending asynchronous one.
        """
        name = what or op.describe()
        self._check_caller(name)
        wait = False
        with self._lock:
            if self._closed:
                raise CudaError(Err.CudartUnloading, "the CUDA runtime is shutting down")
            # no sticky check here: an asynchronous call never reports a fault (which may or may
            # not have happened yet); the simulation thread drops the op, the next
            # synchronising call reports the fault (deterministic output)
            stream = self._resolve(handle, per_thread)
            if sync:
                self.check_unsafe_call(name)
                if stream.capture is not None:
                    self._invalidate(stream.capture, f"{name} on a capturing stream")
                    raise CudaError(Err.StreamCaptureUnsupported,
                                    f"{name}: a synchronous call is not allowed on a capturing "
                                    "stream")
            if stream.capture is not None:
                self._capture_op(stream, op)
                return op
            if stream is self.legacy:
                self._check_implicit_capture(f"{name} on the legacy default stream" if what
                                             else "an operation on the legacy default stream")
            if isinstance(op, KernelLaunchOp):
                self.gpu.push_kernel(op, self._stream_id(stream))
            elif sync:
                wait = self.gpu.sync_call_waits(op)
            elif stage:
                wait = self.gpu.stage_host_copy(op)
            self._push(stream, op)
            if wait:
                self._wait(lambda: op.done or self.sticky_error is not None)
                self._check_sticky()
                err = op.error
                if err is not None:
                    if self._async_error is err:
                        self._async_error = None
                    raise CudaError(err.code, err.message)
                self._report_errors()
        if isinstance(op, KernelLaunchOp):
            self.gpu.announce_kernel(op)   # outside the lock: it prints
        return op

    def _stream_id(self, stream: Stream) -> int:
        """``kernel_stream_id``: the stream's id (``cudaStreamGetId``: 0 for the legacy stream,
        then 1, 2, ... in creation order).  GPGPU-Sim prints the ``CUstream_st`` pointer, which
        users report as garbage (a common complaint about GPGPU-Sim); a small stable id is
        comparable across runs."""
        return stream.uid

    def _push(self, stream: Stream, op: Op) -> None:
        if stream is self.legacy:
            op.deps.extend(self._tails([s for s in self._active
                                        if s is not self.legacy and s.blocking]))
        elif stream.blocking:
            op.deps.extend(self._tails([self.legacy]))
        op.stream = stream
        op.seq = next(self._seq)
        stream.ops.append(op)
        stream.last_op = op
        self._ensure_thread()
        self._cv.notify_all()

    def synchronize_stream(self, handle: int | None, per_thread: bool = False) -> None:
        """``cudaStreamSynchronize``: wait for all work enqueued so far (legacy: all blocking)."""
        self._check_caller("cudaStreamSynchronize")
        with self._lock:
            stream = self._resolve(handle, per_thread)
            if stream.capture is not None:
                self._invalidate(stream.capture, "cudaStreamSynchronize on a capturing stream")
                raise CudaError(Err.StreamCaptureUnsupported,
                                "cudaStreamSynchronize: not allowed on a capturing stream")
            targets = self._sync_targets(stream)
            self._wait(lambda: all(op.done for op in targets) or self.sticky_error is not None)
            self._report_errors()

    def _sync_targets(self, stream: Stream) -> list[Op]:
        if stream is self.legacy:
            return self._tails([s for s in self._active if s is self.legacy or s.blocking])
        return self._tails([stream])

    def query_stream(self, handle: int | None, per_thread: bool = False) -> bool:
        """``cudaStreamQuery``: True when all work so far has completed (False = NotReady)."""
        self._check_caller("cudaStreamQuery")
        with self._lock:
            stream = self._resolve(handle, per_thread)
            if stream.capture is not None:
                self._invalidate(stream.capture, "cudaStreamQuery on a capturing stream")
                raise CudaError(Err.StreamCaptureUnsupported,
                                "cudaStreamQuery: not allowed on a capturing stream")
            self._report_errors()
            return all(op.done for op in self._sync_targets(stream))

    def synchronize_device(self) -> None:
        """``cudaDeviceSynchronize``: wait for every operation of every stream."""
        self._check_caller("cudaDeviceSynchronize")
        with self._lock:
            self.check_unsafe_call("cudaDeviceSynchronize")
            self._check_implicit_capture("cudaDeviceSynchronize")
            targets = self._tails(self._active)
            self._wait(lambda: all(op.done for op in targets) or self.sticky_error is not None)
            self._report_errors()

    def dump_state(self) -> list[str]:
        """One line per stream with work (``stream_manager::print``, C047), for hang reports."""
        with self._lock:
            lines = [f"GPU at cycle {self.gpu.now_cycles}; host functions running: "
                     f"{self._host_funcs_running}; sticky error: "
                     f"{self.sticky_error.code.name if self.sticky_error else 'none'}"]
            for s in self._active:
                if not s.ops:
                    continue
                name = "legacy" if s is self.legacy else f"{s.handle:#x}"
                head = s.ops[0]
                waiting = sum(1 for d in head.deps if not d.done)
                state = "running" if s.in_flight else f"waiting on {waiting} op(s)" if waiting \
                    else "ready"
                lines.append(f"stream {name}: {len(s.ops)} op(s); head {head.describe()} {state}")
            return lines

    def idle(self) -> bool:
        """No queued or running operation anywhere."""
        with self._lock:
            return all(not s.ops for s in self._active) and self._host_funcs_running == 0

    # ================================================================ events
    def create_event(self, flags: int = EVENT_DEFAULT) -> int:
        """``cudaEventCreateWithFlags``."""
        if flags & ~(EVENT_BLOCKING_SYNC | EVENT_DISABLE_TIMING | EVENT_INTERPROCESS):
            raise CudaError(Err.InvalidValue, f"cudaEventCreate: unknown flags {flags:#x}")
        if flags & EVENT_INTERPROCESS and not flags & EVENT_DISABLE_TIMING:
            raise CudaError(Err.InvalidValue,
                            "cudaEventCreate: cudaEventInterprocess needs cudaEventDisableTiming")
        with self._lock:
            handle = next(self._handles)
            self._events[handle] = Event(handle, flags)
            return handle

    def get_event(self, handle: int) -> Event:
        """The :class:`Event` behind a handle; bad handle -> InvalidResourceHandle."""
        with self._lock:
            return self._event(handle)

    def destroy_event(self, handle: int) -> None:
        """``cudaEventDestroy``: a pending record still completes; the handle dies now."""
        with self._lock:
            self._event(handle).destroyed = True
            del self._events[handle]

    def record_event(self, event_handle: int, stream_handle: int | None = None,
                     flags: int = 0, per_thread: bool = False) -> None:
        """``cudaEventRecord(WithFlags)``: the event completes when the stream reaches it."""
        self._check_caller("cudaEventRecord")
        if flags & ~EVENT_RECORD_EXTERNAL:
            raise CudaError(Err.InvalidValue, f"cudaEventRecordWithFlags: unknown flags {flags:#x}")
        with self._lock:
            event = self._event(event_handle)
            stream = self._resolve(stream_handle, per_thread)
            if stream.capture is not None:
                if stream.capture.status != CAPTURE_STATUS_ACTIVE:
                    raise CudaError(Err.StreamCaptureInvalidated,
                                    "cudaEventRecord: the stream's capture was invalidated")
                if flags & EVENT_RECORD_EXTERNAL:
                    # an event record node: the graph records the event each time it runs
                    self._capture_op(stream, EventRecordOp(event))
                    return
                event.capture = stream.capture
                event.capture_nodes = list(stream.capture_frontier)
                event.record_op = None
                return
            if flags & EVENT_RECORD_EXTERNAL:
                raise CudaError(Err.InvalidValue,
                                "cudaEventRecordWithFlags: cudaEventRecordExternal needs capture")
            if stream is self.legacy:
                self._check_implicit_capture("cudaEventRecord on the legacy default stream")
            op = EventRecordOp(event)
            event.record_op = op
            event.capture = None
            event.capture_nodes = []
            self._push(stream, op)

    def _captured_event_check(self, event: Event, what: str) -> None:
        if event.capture is not None and event.capture.status == CAPTURE_STATUS_ACTIVE:
            raise CudaError(Err.CapturedEvent, f"{what}: the event was recorded in a capture")

    def query_event(self, handle: int) -> bool:
        """``cudaEventQuery``: True when the last record completed (or it was never recorded)."""
        self._check_caller("cudaEventQuery")
        with self._lock:
            event = self._event(handle)
            self._captured_event_check(event, "cudaEventQuery")
            self._check_sticky()
            return event.record_op is None or event.record_op.done

    def synchronize_event(self, handle: int) -> None:
        """``cudaEventSynchronize``: wait until the last record completed."""
        self._check_caller("cudaEventSynchronize")
        with self._lock:
            event = self._event(handle)
            self._captured_event_check(event, "cudaEventSynchronize")
            op = event.record_op
            if op is not None:
                self._wait(lambda: op.done or self.sticky_error is not None)
            self._check_sticky()

    def event_time_cycles(self, handle: int) -> int | None:
        """Simulated core cycle at which the event completed (None if pending/never recorded)."""
        with self._lock:
            return self._event(handle).time_cycles

    def elapsed_ms(self, start: int, end: int) -> float:
        """``cudaEventElapsedTime`` in simulated milliseconds (core clock)."""
        with self._lock:
            ev = (self._event(start), self._event(end))
            for e in ev:
                self._captured_event_check(e, "cudaEventElapsedTime")
            for e in ev:
                if e.flags & EVENT_DISABLE_TIMING:
                    raise CudaError(Err.InvalidResourceHandle,
                                    f"cudaEventElapsedTime: event {e.handle:#x} was created "
                                    "with cudaEventDisableTiming")
                if e.record_op is None:
                    raise CudaError(Err.InvalidResourceHandle,
                                    f"cudaEventElapsedTime: event {e.handle:#x} was never recorded")
            self._check_sticky()
            t0, t1 = ev[0].time_cycles, ev[1].time_cycles
            if t0 is None or t1 is None:
                raise CudaError(Err.NotReady, "cudaEventElapsedTime: an event has not completed")
            return self.gpu.cycles_to_ms(t1 - t0)

    def stream_wait_event(self, stream_handle: int | None, event_handle: int, flags: int = 0,
                          per_thread: bool = False) -> None:
        """``cudaStreamWaitEvent``: later work of the stream waits for the event's last record."""
        self._check_caller("cudaStreamWaitEvent")
        if flags & ~EVENT_WAIT_EXTERNAL:
            raise CudaError(Err.InvalidValue, f"cudaStreamWaitEvent: unknown flags {flags:#x}")
        with self._lock:
            event = self._event(event_handle)
            stream = self._resolve(stream_handle, per_thread)
            cap = event.capture
            if stream.capture is not None and flags & EVENT_WAIT_EXTERNAL:
                # an event wait node: each run of the graph waits for the event's record then
                self._capture_op(stream, WaitEventOp(event))
                return
            if flags & EVENT_WAIT_EXTERNAL:
                raise CudaError(Err.InvalidValue,
                                "cudaStreamWaitEvent: cudaEventWaitExternal needs capture")
            if cap is not None and cap.status != CAPTURE_STATUS_NONE:
                self._join_capture(stream, event)
                return
            if stream.capture is not None:
                if event.record_op is None or event.record_op.done:
                    return  # nothing outstanding to depend on
                self._invalidate(stream.capture, "wait on uncaptured work")
                raise CudaError(Err.StreamCaptureIsolation,
                                "cudaStreamWaitEvent: a capturing stream cannot wait on an event "
                                "recorded outside the capture")
            if event.record_op is None:
                return  # never recorded: no-op, as in CUDA
            op = WaitEventOp(event)
            if not event.record_op.done:
                op.deps.append(event.record_op)
            self._push(stream, op)

    def add_host_func(self, handle: int | None, fn: Callable[..., Any],
                      per_thread: bool = False, *, callback: bool = False) -> Op:
        """``cudaLaunchHostFunc``: ``fn()`` runs when the stream reaches it (helper thread).

        ``callback=True`` is ``cudaStreamAddCallback``: ``fn(status)`` runs even after a sticky
        error (see :class:`HostFuncOp`); it is not supported in stream capture (CUDA: use
        ``cudaLaunchHostFunc``), so it fails with ``cudaErrorStreamCaptureUnsupported`` and
        invalidates the capture.
        """
        if callback:
            with self._lock:
                stream = self._resolve(handle, per_thread)
                if stream.capture is not None:
                    self._invalidate(stream.capture, "cudaStreamAddCallback during capture")
                    raise CudaError(Err.StreamCaptureUnsupported,
                                    "cudaStreamAddCallback: not supported in stream capture "
                                    "(use cudaLaunchHostFunc)")
        return self.enqueue(handle, HostFuncOp(fn, callback=callback), per_thread)

    # ================================================================ capture
    def begin_capture(self, handle: int | None, mode: int = CAPTURE_MODE_GLOBAL,
                      per_thread: bool = False, graph: int | None = None,
                      deps: list[graphs.GraphNode] | None = None) -> None:
        """``cudaStreamBeginCapture``; with ``graph`` (and ``deps``), ``cudaStreamBeginCaptureToGraph``:
        capture appends to that existing graph, the first captured node depending on ``deps``."""
        if mode not in (CAPTURE_MODE_GLOBAL, CAPTURE_MODE_THREAD_LOCAL, CAPTURE_MODE_RELAXED):
            raise CudaError(Err.InvalidValue, f"cudaStreamBeginCapture: unknown mode {mode}")
        with self._lock:
            stream = self._resolve(handle, per_thread)
            if stream is self.legacy:
                raise CudaError(Err.StreamCaptureUnsupported,
                                "cudaStreamBeginCapture: the legacy default stream cannot be captured")
            if stream.capture is not None:
                raise CudaError(Err.IllegalState,
                                "cudaStreamBeginCapture: the stream is already capturing")
            if graph is None:
                target = self.graphs.new_graph()
            else:
                target = self.graphs.get_graph(graph)
                for d in deps or []:
                    if d.graph is not target:
                        raise CudaError(Err.InvalidValue, f"cudaStreamBeginCaptureToGraph: node "
                                        f"{d.handle:#x} is not in graph {graph:#x}")
            cap = Capture(next(self._capture_ids), target, stream, mode)
            cap.owns_graph = graph is None
            stream.capture = cap
            stream.capture_frontier = list(deps or [])
            self._captures.append(cap)

    def update_capture_dependencies(self, handle: int | None, nodes: list[graphs.GraphNode],
                                    replace: bool, per_thread: bool = False) -> None:
        """``cudaStreamUpdateCaptureDependencies``: add to (or replace) the nodes the next
        captured operation depends on."""
        with self._lock:
            stream = self._resolve(handle, per_thread)
            cap = stream.capture
            if cap is None or cap.status != CAPTURE_STATUS_ACTIVE:
                raise CudaError(Err.IllegalState, "cudaStreamUpdateCaptureDependencies: the "
                                "stream is not capturing")
            for n in nodes:
                if n.graph is not cap.graph:
                    raise CudaError(Err.InvalidValue, f"cudaStreamUpdateCaptureDependencies: "
                                    f"node {n.handle:#x} is not in the capture graph")
            merged = [] if replace else list(stream.capture_frontier)
            merged += [n for n in nodes if n not in merged]
            stream.capture_frontier = merged

    def end_capture(self, handle: int | None, per_thread: bool = False) -> int:
        """``cudaStreamEndCapture`` -> graph handle; the capture ends whatever the outcome."""
        with self._lock:
            stream = self._resolve(handle, per_thread)
            cap = stream.capture
            if cap is None:
                raise CudaError(Err.IllegalState,
                                "cudaStreamEndCapture: the stream is not capturing")
            if cap.origin is not stream:
                self._invalidate(cap, "cudaStreamEndCapture on a forked stream")
                raise CudaError(Err.StreamCaptureUnmatched,
                                "cudaStreamEndCapture: this stream did not begin the capture")
            if cap.mode != CAPTURE_MODE_RELAXED and cap.thread != threading.get_ident():
                raise CudaError(Err.StreamCaptureWrongThread,
                                "cudaStreamEndCapture: called from a different thread than "
                                "cudaStreamBeginCapture")
            unjoined = self._unjoined(cap)
            self._end_capture(cap)
            if cap.status == CAPTURE_STATUS_INVALIDATED:
                if cap.owns_graph:
                    self.graphs.destroy_graph(cap.graph.handle)
                raise CudaError(Err.StreamCaptureInvalidated,
                                f"cudaStreamEndCapture: the capture was invalidated ({cap.error})")
            if unjoined:
                if cap.owns_graph:
                    self.graphs.destroy_graph(cap.graph.handle)
                raise CudaError(Err.StreamCaptureUnjoined,
                                "cudaStreamEndCapture: a forked stream was not joined back "
                                "into the origin stream")
            cap.status = CAPTURE_STATUS_NONE
            return cap.graph.handle

    def _end_capture(self, cap: Capture) -> None:
        """Detach every stream from ``cap`` and forget it as an ongoing capture (lock held)."""
        for s in cap.streams:
            s.capture = None
            s.capture_frontier = []
        if cap in self._captures:
            self._captures.remove(cap)

    def capture_info(self, handle: int | None, per_thread: bool = False
                     ) -> tuple[int, int, int | None, list[graphs.GraphNode]]:
        """``cudaStreamGetCaptureInfo``: (status, capture id, graph handle, dependency nodes)."""
        with self._lock:
            stream = self._resolve(handle, per_thread)
            cap = stream.capture
            if cap is None:
                return CAPTURE_STATUS_NONE, 0, None, []
            return cap.status, cap.id, cap.graph.handle, list(stream.capture_frontier)

    def is_capturing(self, handle: int | None, per_thread: bool = False) -> int:
        """``cudaStreamIsCapturing`` -> cudaStreamCaptureStatus."""
        return self.capture_info(handle, per_thread)[0]

    def _capture_op(self, stream: Stream, op: Op) -> None:
        cap = stream.capture
        assert cap is not None
        if cap.status != CAPTURE_STATUS_ACTIVE:
            raise CudaError(Err.StreamCaptureInvalidated,
                            f"{op.describe()}: the stream's capture was invalidated")
        if isinstance(op, FreeOp):
            raise CudaError(Err.StreamCaptureUnsupported,
                            "cudaFreeAsync is not supported in stream capture by this simulator")
        node = cap.graph.add_node(graphs.node_kind(op), op, stream.capture_frontier)
        stream.capture_frontier = [node]

    def _join_capture(self, stream: Stream, event: Event) -> None:
        cap = event.capture
        assert cap is not None
        if cap.status != CAPTURE_STATUS_ACTIVE:
            raise CudaError(Err.StreamCaptureInvalidated,
                            "cudaStreamWaitEvent: the event's capture was invalidated")
        if stream.capture is None:
            if stream is self.legacy:
                self._invalidate(cap, "legacy stream joined a capture")
                raise CudaError(Err.StreamCaptureImplicit,
                                "cudaStreamWaitEvent: the legacy stream cannot join a capture")
            stream.capture = cap
            stream.capture_frontier = list(event.capture_nodes)
            cap.streams.append(stream)
        elif stream.capture is cap:
            merged = list(stream.capture_frontier)
            merged += [n for n in event.capture_nodes if n not in merged]
            stream.capture_frontier = merged
        else:
            self._invalidate(cap, "captures merged")
            raise CudaError(Err.StreamCaptureMerge,
                            "cudaStreamWaitEvent: would merge two separate captures")

    def _unjoined(self, cap: Capture) -> bool:
        joined = graphs.ancestors(cap.origin.capture_frontier)
        return any(n not in joined for s in cap.streams if s is not cap.origin
                   for n in s.capture_frontier)

    def _invalidate(self, cap: Capture, why: str) -> None:
        cap.status = CAPTURE_STATUS_INVALIDATED
        cap.error = cap.error or CudaError(Err.StreamCaptureInvalidated, why)

    # ---- capture interaction modes (cudaThreadExchangeStreamCaptureMode)
    def exchange_capture_mode(self, mode: int) -> int:
        """``cudaThreadExchangeStreamCaptureMode``: set the calling thread's interaction mode,
        return the previous one (a new thread starts in ``cudaStreamCaptureModeGlobal``)."""
        if mode not in (CAPTURE_MODE_GLOBAL, CAPTURE_MODE_THREAD_LOCAL, CAPTURE_MODE_RELAXED):
            raise CudaError(Err.InvalidValue, f"cudaThreadExchangeStreamCaptureMode: mode {mode} "
                            "is not a cudaStreamCaptureMode")
        old: int = getattr(self._tls, "capture_mode", CAPTURE_MODE_GLOBAL)
        self._tls.capture_mode = mode
        return old

    def check_unsafe_call(self, what: str) -> None:
        """Refuse a "potentially unsafe API call" (``cudaMalloc``, ``cudaFree``,
        ``cudaDeviceSynchronize``, synchronous copies and memsets, ...) made during capture.

        CUDA's rule (``cudaThreadExchangeStreamCaptureMode``), by the calling thread's mode:
        *global* -- prohibited while this thread has an ongoing capture not begun in relaxed
        mode, or any other thread has one begun in global mode; *thread-local* -- only this
        thread's own non-relaxed captures count; *relaxed* -- never prohibited.  A refused
        call returns ``cudaErrorStreamCaptureUnsupported`` and invalidates those captures.
        """
        with self._lock:
            if not self._captures:
                return
            mode = getattr(self._tls, "capture_mode", CAPTURE_MODE_GLOBAL)
            if mode == CAPTURE_MODE_RELAXED:
                return
            me = threading.get_ident()
            culprits = [c for c in self._captures
                        if (c.thread == me and c.mode != CAPTURE_MODE_RELAXED)
                        or (mode == CAPTURE_MODE_GLOBAL and c.thread != me
                            and c.mode == CAPTURE_MODE_GLOBAL)]
            if not culprits:
                return
            for cap in culprits:
                self._invalidate(cap, f"{what} during capture")
            whose = "this thread's" if all(c.thread == me for c in culprits) else "a global-mode"
            raise CudaError(Err.StreamCaptureUnsupported,
                            f"{what}: not permitted while {whose} stream capture is in progress "
                            "(the capture is invalidated; see cudaThreadExchangeStreamCaptureMode)")

    def _check_implicit_capture(self, what: str) -> None:
        """Legacy-stream work would synchronise with a capturing blocking stream (its capture
        active or already invalidated, until ``cudaStreamEndCapture``): refuse."""
        for s in self._active:
            cap = s.capture
            if (cap is not None and cap.status != CAPTURE_STATUS_NONE and s.blocking
                    and cap.mode != CAPTURE_MODE_RELAXED):
                self._invalidate(cap, f"{what} during capture")
                raise CudaError(Err.StreamCaptureImplicit,
                                f"{what}: not allowed while a blocking stream is capturing")

    # ================================================================ graphs
    def launch_graph(self, exec_handle: int, handle: int | None, per_thread: bool = False) -> None:
        """``cudaGraphLaunch``: replay the graph's operations, in dependency order, on a stream.

        Launches of one executable graph never overlap (CUDA orders each after the previous
        launch, whatever the streams): a barrier op waits for the previous launch's last op.
        """
        with self._lock:
            gexec = self.graphs.get_exec(exec_handle)
            stream = self._resolve(handle, per_thread)
            prev = gexec.last_op
            if prev is not None and not prev.done and stream.capture is None \
                    and prev.stream is not stream:
                barrier = EmptyOp()
                barrier.deps.append(prev)
                self.enqueue(handle, barrier, per_thread)
            for template in gexec.ops:
                op = template.clone()
                if isinstance(op, EventRecordOp) and op.event.handle in self._events:
                    self.record_event(op.event.handle, handle, per_thread=per_thread)
                    continue
                if isinstance(op, WaitEventOp) and op.event.handle in self._events:
                    self.stream_wait_event(handle, op.event.handle, per_thread=per_thread)
                    continue
                self.enqueue(handle, op, per_thread, stage=False)
            if stream.capture is None:
                gexec.last_op = stream.last_op

    # ================================================================ shutdown
    def shutdown(self, timeout_s: float | None = None) -> bool:
        """Drain all outstanding work, then stop and join the simulation thread (process exit,
        ``cudaDeviceReset``).

        Every queued operation still runs (kernels, copies, host functions; after a sticky
        error they are dropped as usual), so the program's last results and the final
        statistics are complete.  Returns True when everything drained; False when
        ``timeout_s`` ran out first (the thread is a daemon, so the process can still exit).
        Later enqueues fail with ``cudaErrorCudartUnloading``.
        """
        with self._lock:
            self._closed = True
            self._stop = True
            self._cv.notify_all()
            thread = self._thread
        if thread is None:
            return True
        if thread is threading.current_thread() or getattr(self._tls, "in_host_func", False):
            return False   # exit from inside the simulator's own threads: nothing to wait for
        thread.join(timeout_s)
        with self._lock:
            drained = not thread.is_alive()
            return drained and all(not s.ops for s in self._active) \
                and self._host_funcs_running == 0

    # ================================================================ simulation thread
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
        from .cdp import child_launch, device_stream_key

        child = child_launch(parent, dl, self.gpu.gmem)
        key = device_stream_key(dl)
        s = parent.cdp_streams.get(key) if key is not None else None
        if s is None:
            s = Stream(next(self._handles), flags=STREAM_NON_BLOCKING, uid=next(self._stream_uids))
            s.destroyed = True          # (leaves the active list once empty)
            self._active.append(s)
            if key is not None:
                parent.cdp_streams[key] = s
        self.gpu.push_kernel(child, self._stream_id(s))
        child.cdp_parent = parent
        parent.cdp_running += 1
        child.stream = s
        child.seq = next(self._seq)
        s.ops.append(child)
        s.last_op = child
        return child

    def _queue_children(self, op: KernelLaunchOp, stats: Any) -> list[KernelLaunchOp]:
        """Put the child grids ``op`` launched from the device on its stream right after it
        (lock held; :mod:`gpgpusim.runtime.cdp`); returns them."""
        from .cdp import child_launches

        s = op.stream
        kids = child_launches(op, stats, self.gpu.gmem)
        at = 1 if s.ops and s.ops[0] is op else 0
        for i, child in enumerate(kids):
            self.gpu.push_kernel(child, self._stream_id(s))
            child.stream = s
            child.seq = next(self._seq)
            s.ops.insert(at + i, child)
        if kids and s.last_op is op:
            s.last_op = kids[-1]
        return kids

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

