"""Stream capture (``cudaStreamBeginCapture`` ... ``cudaStreamEndCapture``) and the capture
interaction modes of ``cudaThreadExchangeStreamCaptureMode``: the capture half of
:class:`~gpgpusim.runtime.streams.StreamManager`, which mixes :class:`CaptureMixin` in.

Captured operations become nodes of a :class:`~gpgpusim.runtime.graphs.Graph` instead of
running; streams join a capture by waiting on an event recorded in it; "potentially unsafe"
calls are refused per the calling thread's mode (:meth:`CaptureMixin.check_unsafe_call`).
"""

from __future__ import annotations

import itertools
import threading
from typing import Callable

from gpgpusim.device.gpu import FreeOp, Op
from gpgpusim.errors import CudaError, Err
from gpgpusim.runtime.graphs import GraphNode, GraphRegistry, ancestors, node_kind
from gpgpusim.runtime.stream_state import (
    CAPTURE_MODE_GLOBAL,
    CAPTURE_MODE_RELAXED,
    CAPTURE_MODE_THREAD_LOCAL,
    CAPTURE_STATUS_ACTIVE,
    CAPTURE_STATUS_INVALIDATED,
    CAPTURE_STATUS_NONE,
    Capture,
    Event,
    Stream,
)


class CaptureMixin:
    """Capture methods of the stream manager (every one takes the manager's lock or runs with
    it held); the attributes below are the manager's."""

    _lock: threading.RLock
    _tls: threading.local
    _captures: list[Capture]
    _capture_ids: itertools.count[int]
    _active: list[Stream]
    graphs: GraphRegistry
    legacy: Stream
    _resolve: Callable[..., Stream]

    def begin_capture(self, handle: int | None, mode: int = CAPTURE_MODE_GLOBAL,
                      per_thread: bool = False, graph: int | None = None,
                      deps: list[GraphNode] | None = None) -> None:
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

    def update_capture_dependencies(self, handle: int | None, nodes: list[GraphNode],
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
                     ) -> tuple[int, int, int | None, list[GraphNode]]:
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
        node = cap.graph.add_node(node_kind(op), op, stream.capture_frontier)
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
        joined = ancestors(cap.origin.capture_frontier)
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
