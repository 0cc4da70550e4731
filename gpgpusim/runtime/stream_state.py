"""The stream manager's records: ``Stream``, ``Event``, ``Capture``, and CUDA's stream, event,
priority and capture constants (handles, flags, modes, statuses).

GPGPU-Sim counterpart: ``CUstream_st``, ``CUevent_st``.  :mod:`gpgpusim.runtime.streams` keeps
the rules that use them.
"""

from __future__ import annotations

import collections
import threading

from gpgpusim.device.gpu import EventRecordOp, Op
from gpgpusim.errors import CudaError
from gpgpusim.runtime import graphs

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
