"""Stream manager and background simulation thread (CUDA streams, events, capture).

GPGPU-Sim counterpart: ``stream_manager`` / ``CUstream_st`` / ``CUevent_st`` and
``gpgpu_sim_thread_concurrent`` (checklist C040, C041, C047–C056).  Every kernel launch, copy,
memset, event record, wait and host function is an operation (:mod:`gpgpusim.device.gpu`)
pushed onto a stream; one background simulation thread, started on first use, executes them on
the :class:`~gpgpusim.device.gpu.Gpu`.  Host threads block only where CUDA blocks:
synchronising calls, and enqueueing into a full queue.

:class:`StreamManager` is this module with two mixins: stream capture
(:mod:`gpgpusim.runtime.stream_capture`) and the simulation thread
(:mod:`gpgpusim.runtime.sim_thread`); the stream, event and capture records and CUDA's constants
are :mod:`gpgpusim.runtime.stream_state`.

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
- The queue is bounded: a host thread that enqueues while ``QUEUE_DEPTH`` operations, or
  ``QUEUE_STAGED_BYTES`` of staged host data, wait in the streams blocks until the simulation
  thread has completed enough of them (CUDA's full launch queue).  The results and statistics
  do not depend on it; only how far ahead of the simulation the host program may run.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator
from typing import Any

from gpgpusim.device.gpu import (
    EmptyOp,
    EventRecordOp,
    HostFuncOp,
    KernelLaunchOp,
    Op,
    WaitEventOp,
)
from gpgpusim.errors import CudaError, Err
from gpgpusim.runtime import graphs
from gpgpusim.runtime.sim_thread import SimThreadMixin
from gpgpusim.runtime.stream_capture import CaptureMixin
from gpgpusim.runtime.stream_mempool import MemPools
from gpgpusim.runtime.stream_state import (
    CAPTURE_STATUS_ACTIVE,
    CAPTURE_STATUS_NONE,
    EVENT_BLOCKING_SYNC,
    EVENT_DEFAULT,
    EVENT_DISABLE_TIMING,
    EVENT_INTERPROCESS,
    EVENT_RECORD_EXTERNAL,
    EVENT_WAIT_EXTERNAL,
    PRIORITY_GREATEST,
    PRIORITY_LEAST,
    STREAM_DEFAULT,
    STREAM_LEGACY,
    STREAM_LEGACY_NULL,
    STREAM_NON_BLOCKING,
    STREAM_PER_THREAD,
    Capture,
    Event,
    Stream,
)

#: How often a blocked host thread checks that the simulation thread is still alive (s).
_WATCHDOG_S = 0.5
#: How many operations may wait in the streams before a host thread that enqueues another
#: blocks until one completes.  CUDA blocks a launching thread once its launch queue is full
#: (about a thousand pending launches); here it bounds the memory of a program that runs far
#: ahead of the simulation (each queued launch holds its op, parameters and later its record).
QUEUE_DEPTH = 1024
#: How many bytes of staged pageable host data (asynchronous host-to-device copies, snapshotted
#: when enqueued) may wait in the streams before a host thread that enqueues more blocks.
QUEUE_STAGED_BYTES = 64 << 20


class StreamManager(CaptureMixin, SimThreadMixin):
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
        self._queued = 0            # operations _push queued, not yet completed (QUEUE_DEPTH)
        self._staged = 0            # bytes of their staged host data (QUEUE_STAGED_BYTES)

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

    def _throttle(self) -> None:
        """Block (lock held) while the streams hold ``QUEUE_DEPTH`` operations or
        ``QUEUE_STAGED_BYTES`` of staged data (see the module docstring)."""
        self._wait(lambda: self._closed or (self._queued < QUEUE_DEPTH
                                            and self._staged < QUEUE_STAGED_BYTES))

    def enqueue(self, handle: int | None, op: Op, per_thread: bool = False, *,
                stage: bool = True, sync: bool = False, what: str | None = None,
                throttle: bool = True) -> Op:
        """Push ``op`` on a stream (or into its capture graph); returns ``op``.

        First, with ``throttle``, wait while the queue is full (:meth:`_throttle`; a graph
        launch waits once, before its first operation, so that its operations go in together).

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
            if throttle:
                self._throttle()
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
                src = getattr(op, "src", None)
                wait = self.gpu.stage_host_copy(op)
                staged = getattr(op, "src", None)
                if staged is not None and staged is not src:    # snapshotted: held while queued
                    op.held_bytes = len(staged)
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
        op.queued = True
        self._queued += 1
        self._staged += op.held_bytes
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

    # ================================================================ graphs
    def launch_graph(self, exec_handle: int, handle: int | None, per_thread: bool = False) -> None:
        """``cudaGraphLaunch``: replay the graph's operations, in dependency order, on a stream.

        Launches of one executable graph never overlap (CUDA orders each after the previous
        launch, whatever the streams): a barrier op waits for the previous launch's last op.
        """
        self._check_caller("cudaGraphLaunch")    # (before waiting on the queue)
        with self._lock:
            self._throttle()
            gexec = self.graphs.get_exec(exec_handle)
            stream = self._resolve(handle, per_thread)
            prev = gexec.last_op
            if prev is not None and not prev.done and stream.capture is None \
                    and prev.stream is not stream:
                barrier = EmptyOp()
                barrier.deps.append(prev)
                self.enqueue(handle, barrier, per_thread, throttle=False)
            for template in gexec.ops:
                op = template.clone()
                if isinstance(op, EventRecordOp) and op.event.handle in self._events:
                    self.record_event(op.event.handle, handle, per_thread=per_thread)
                    continue
                if isinstance(op, WaitEventOp) and op.event.handle in self._events:
                    self.stream_wait_event(handle, op.event.handle, per_thread=per_thread)
                    continue
                self.enqueue(handle, op, per_thread, stage=False, throttle=False)
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
