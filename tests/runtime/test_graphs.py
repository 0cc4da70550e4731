"""Stream capture, explicit graphs, and the StreamApi entry points (C ABI with ctypes memory)."""

from __future__ import annotations

import ctypes
import struct
import threading
import time

import numpy as np
import pytest

from gpgpusim.errors import CudaError, Err
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.runtime import graphs
from gpgpusim.device.gpu import Gpu, HostFuncOp, KernelLaunchOp, MemcpyKind, MemcpyOp, MemsetOp
from gpgpusim.runtime.api import ENTRY_POINTS
from gpgpusim.runtime.graph_api import GraphApi
from gpgpusim.runtime.stream_api import StreamApi
from gpgpusim.runtime.stream_state import (
    CAPTURE_STATUS_ACTIVE,
    CAPTURE_STATUS_NONE,
    STREAM_NON_BLOCKING,
)
from gpgpusim.runtime.streams import StreamManager

from stream_helpers import TIMEOUT_S, FakeStats, _watchdog  # noqa: F401 - _watchdog: autouse fixture


class Launcher:
    def __init__(self) -> None:
        self.log: list[str] = []

    def __call__(self, module, kernel, grid, block, smem, params, *, gmem, **kw):
        self.log.append(kernel)
        return FakeStats(100)


@pytest.fixture
def env():
    launcher = Launcher()
    gpu = Gpu(None, GlobalMemory(), launch_fn=launcher)
    mgr = StreamManager(gpu)
    yield mgr, gpu, launcher
    assert mgr.shutdown(TIMEOUT_S)


def kernel(name: str) -> KernelLaunchOp:
    return KernelLaunchOp(None, name, (1, 1, 1), (32, 1, 1))


# ------------------------------------------------------------------ capture (manager level)
def test_capture_records_instead_of_running_and_replays(env):
    mgr, gpu, launcher = env
    s = mgr.create_stream()
    buf = gpu.gmem.allocate(16)
    mgr.begin_capture(s)
    assert mgr.is_capturing(s) == CAPTURE_STATUS_ACTIVE
    mgr.enqueue(s, MemsetOp(buf, 1, 16))
    mgr.enqueue(s, kernel("a"))
    mgr.enqueue(s, kernel("b"))
    status, cid, gh, deps = mgr.capture_info(s)
    assert (status, cid, len(deps)) == (CAPTURE_STATUS_ACTIVE, 1, 1)
    graph = mgr.end_capture(s)
    assert graph == gh
    assert mgr.is_capturing(s) == CAPTURE_STATUS_NONE
    assert launcher.log == []                         # nothing ran during capture
    kinds = [n.kind for n in mgr.graphs.get_graph(graph).nodes]
    assert kinds == [graphs.NODE_MEMSET, graphs.NODE_KERNEL, graphs.NODE_KERNEL]
    ex = mgr.graphs.instantiate(graph)
    for _ in range(10):
        mgr.launch_graph(ex, s)
    mgr.synchronize_stream(s)
    assert launcher.log == ["a", "b"] * 10
    assert [k.uid for k in gpu.kernels] == list(range(1, 21))   # each replay is a new launch
    assert {k.stream_id for k in gpu.kernels} == {mgr.get_stream(s).uid}
    assert gpu.gmem.read(buf, 16).tolist() == [1] * 16


def test_capture_fork_join_and_unjoined(env):
    mgr, _, launcher = env
    a = mgr.create_stream()
    b = mgr.create_stream()
    fork, join = mgr.create_event(), mgr.create_event()
    mgr.begin_capture(a)
    mgr.enqueue(a, kernel("root"))
    mgr.record_event(fork, a)
    mgr.stream_wait_event(b, fork)                    # b joins the capture
    assert mgr.is_capturing(b) == CAPTURE_STATUS_ACTIVE
    mgr.enqueue(b, kernel("side"))
    mgr.enqueue(a, kernel("main"))
    mgr.record_event(join, b)
    mgr.stream_wait_event(a, join)
    mgr.enqueue(a, kernel("tail"))
    graph = mgr.end_capture(a)
    gr = mgr.graphs.get_graph(graph)
    names = {n.op.kernel: n for n in gr.nodes}
    assert [d.op.kernel for d in names["tail"].deps] == ["main", "side"]
    assert [d.op.kernel for d in names["side"].deps] == ["root"]
    assert mgr.is_capturing(b) == CAPTURE_STATUS_NONE
    mgr.launch_graph(mgr.graphs.instantiate(graph), a)
    mgr.synchronize_stream(a)
    assert launcher.log[0] == "root" and launcher.log[-1] == "tail" and len(launcher.log) == 4

    # a forked stream that never joins back
    mgr.begin_capture(a)
    mgr.record_event(fork, a)
    mgr.stream_wait_event(b, fork)
    mgr.enqueue(b, kernel("orphan"))
    with pytest.raises(CudaError) as ei:
        mgr.end_capture(a)
    assert ei.value.code == Err.StreamCaptureUnjoined
    assert mgr.is_capturing(b) == CAPTURE_STATUS_NONE


def test_capture_errors(env):
    mgr, _, _ = env
    s = mgr.create_stream()
    with pytest.raises(CudaError) as ei:
        mgr.end_capture(s)
    assert ei.value.code == Err.IllegalState
    with pytest.raises(CudaError) as ei:
        mgr.begin_capture(0)
    assert ei.value.code == Err.StreamCaptureUnsupported
    mgr.begin_capture(s)
    with pytest.raises(CudaError) as ei:
        mgr.begin_capture(s)
    assert ei.value.code == Err.IllegalState
    with pytest.raises(CudaError) as ei:
        mgr.query_stream(s)
    assert ei.value.code == Err.StreamCaptureUnsupported
    # legacy-stream work during a global capture is an implicit sync: capture invalidated
    with pytest.raises(CudaError) as ei:
        mgr.enqueue(0, kernel("legacy"))
    assert ei.value.code == Err.StreamCaptureImplicit
    with pytest.raises(CudaError) as ei:
        mgr.enqueue(s, kernel("after"))
    assert ei.value.code == Err.StreamCaptureInvalidated
    with pytest.raises(CudaError) as ei:
        mgr.end_capture(s)
    assert ei.value.code == Err.StreamCaptureInvalidated
    # the stream works normally afterwards
    mgr.enqueue(s, kernel("ok"))
    mgr.synchronize_stream(s)


def test_capture_sync_is_unsupported_and_invalidates(env):
    mgr, _, _ = env
    s = mgr.create_stream(STREAM_NON_BLOCKING)
    mgr.begin_capture(s)
    with pytest.raises(CudaError) as ei:
        mgr.synchronize_stream(s)
    assert ei.value.code == Err.StreamCaptureUnsupported
    with pytest.raises(CudaError) as ei:
        mgr.end_capture(s)
    assert ei.value.code == Err.StreamCaptureInvalidated


def test_explicit_graph_topological_replay(env):
    mgr, gpu, launcher = env
    reg = mgr.graphs
    gr = reg.new_graph()
    a = gr.add_node(graphs.NODE_KERNEL, kernel("a"))
    b = gr.add_node(graphs.NODE_KERNEL, kernel("b"), [a])
    c = gr.add_node(graphs.NODE_KERNEL, kernel("c"), [a])
    e = gr.add_node(graphs.NODE_EMPTY, None, [b, c])
    gr.add_node(graphs.NODE_KERNEL, kernel("d"), [e])
    assert gr.root_nodes() == [a]
    assert len(gr.edges()) == 5
    ex = reg.instantiate(gr.handle)
    reg.destroy_graph(gr.handle)                      # the exec stays valid
    mgr.launch_graph(ex, 0)
    mgr.synchronize_device()
    assert launcher.log == ["a", "b", "c", "d"]
    reg.destroy_exec(ex)
    with pytest.raises(CudaError) as ei:
        mgr.launch_graph(ex, 0)
    assert ei.value.code == Err.InvalidResourceHandle
    other = reg.new_graph()
    with pytest.raises(CudaError) as ei:
        other.add_node(graphs.NODE_EMPTY, None, [a])
    assert ei.value.code == Err.InvalidValue


# ------------------------------------------------------------------ StreamApi (C ABI level)
class _Memory:
    """The memory service's device-allocation accounting, minus the capacity check."""

    def __init__(self, gmem: GlobalMemory) -> None:
        self.gmem = gmem
        self.device_allocs: dict[int, int] = {}
        self.managed: dict[int, object] = {}

    def device_alloc(self, size: int, what: str) -> int:
        addr = self.gmem.allocate(size)
        self.device_allocs[addr] = size
        return addr


class _Graphs(GraphApi):
    """Kernel nodes from a fake kernel-op factory (no registry)."""

    def _make_kernel_op(self, what, func, grid, block, shmem, args):
        return KernelLaunchOp(None, f"k{func:x}", grid, block, shmem, b"")


class Rt:
    """A runtime context with only the stream and graph services (the entry points bound as
    on the real Runtime) and a recorder for the errors they report."""

    def __init__(self) -> None:
        self.rt = self
        self.launcher = Launcher()
        self.gmem = GlobalMemory()
        self.gpu = Gpu(None, self.gmem, launch_fn=self.launcher)
        self.streams = StreamManager(self.gpu)
        self.recorded: list[tuple[str, int]] = []
        self.memory_api = _Memory(self.gmem)
        self.stream_api = StreamApi(self)
        self.graph_api = _Graphs(self)
        for name, (where, method) in ENTRY_POINTS.items():
            if where in ("stream_api", "graph_api"):
                setattr(self, name, getattr(getattr(self, where), method))

    def _blocked_by(self) -> None:
        return None

    def _record(self, name: str, exc: CudaError) -> int:
        self.recorded.append((name, int(exc.code)))
        return int(exc.code)

    def fail(self, name: str, exc: BaseException) -> int:
        raise exc


@pytest.fixture
def rt():
    r = Rt()
    yield r
    assert r.streams.shutdown(TIMEOUT_S)


def out_u64() -> ctypes.c_uint64:
    return ctypes.c_uint64(0)


def addr(obj) -> int:
    return ctypes.addressof(obj)


def test_api_host_func_and_callback(rt):
    calls: list[tuple] = []
    HOST = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
    hf = HOST(lambda ud: calls.append(("host", ud)))
    cb = CB(lambda s, st, ud: calls.append(("cb", s, st, ud)))
    hf_addr = ctypes.cast(hf, ctypes.c_void_p).value
    cb_addr = ctypes.cast(cb, ctypes.c_void_p).value
    s = rt.streams.create_stream()
    assert rt.cudaLaunchHostFunc(s, hf_addr, 0x1234) == 0
    assert rt.cudaStreamAddCallback(s, cb_addr, 0x99, 0) == 0
    assert rt.cudaStreamAddCallback(s, cb_addr, 0x99, 1) == Err.InvalidValue
    assert rt.cudaLaunchHostFunc(s, 0, 0) == Err.InvalidValue
    rt.streams.synchronize_stream(s)
    assert calls == [("host", 0x1234), ("cb", s, 0, 0x99)]
    assert [c for _, c in rt.recorded] == [Err.InvalidValue, Err.InvalidValue]


def test_api_stream_getters_and_ptsz(rt):
    s = rt.streams.create_stream(STREAM_NON_BLOCKING, -3)
    flags, prio, sid = ctypes.c_uint32(7), ctypes.c_int32(7), ctypes.c_uint64(7)
    assert rt.cudaStreamGetFlags(s, addr(flags)) == 0 and flags.value == 1
    assert rt.cudaStreamGetPriority(s, addr(prio)) == 0 and prio.value == -3
    assert rt.cudaStreamGetId(0, addr(sid)) == 0 and sid.value == 0
    assert rt.cudaStreamGetId(s, addr(sid)) == 0 and sid.value > 0
    assert rt.cudaStreamGetFlags(0xDEAD0, addr(flags)) == Err.InvalidResourceHandle
    assert rt.cudaStreamGetFlags(s, 0) == Err.InvalidValue
    # _ptsz: the NULL stream is this thread's default stream, distinct per thread
    ids = []

    def worker() -> None:
        v = ctypes.c_uint64(0)
        assert rt.cudaStreamGetId_ptsz(0, addr(v)) == 0
        ids.append(v.value)
    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT_S)
    assert len(set(ids)) == 2 and 0 not in ids


def test_api_malloc_free_async_and_memcpy2d(rt):
    p = out_u64()
    s = rt.streams.create_stream()
    assert rt.cudaMallocAsync(addr(p), 64, s) == 0
    dev = p.value
    host = np.arange(16, dtype=np.uint8)
    back = np.zeros(16, np.uint8)
    # 4 rows of 3 bytes: host pitch 4 -> device pitch 16
    assert rt.cudaMemcpy2DAsync(dev, 16, host.ctypes.data, 4, 3, 4, int(MemcpyKind.HostToDevice), s) == 0
    assert rt.cudaMemcpy2DAsync(back.ctypes.data, 4, dev, 16, 3, 4, int(MemcpyKind.DeviceToHost), s) == 0
    assert rt.cudaMemcpy2DAsync(dev, 2, host.ctypes.data, 4, 3, 4, 1, s) == Err.InvalidPitchValue
    assert rt.cudaMemcpy2DAsync(dev, 16, host.ctypes.data, 4, 3, 4, 7, s) == Err.InvalidMemcpyDirection
    assert rt.cudaMemcpy2DAsync(dev, 32, host.ctypes.data, 4, 3, 4, 1, s) == Err.InvalidValue  # past end
    assert rt.cudaFreeAsync(dev + 4, s) == Err.InvalidValue
    assert rt.cudaFreeAsync(dev, s) == 0
    rt.streams.synchronize_stream(s)
    assert back.tolist() == [0, 1, 2, 0, 4, 5, 6, 0, 8, 9, 10, 0, 12, 13, 14, 0]
    assert rt.gmem.find(dev) is None


def test_api_capture_and_graph_launch(rt):
    s = rt.streams.create_stream()
    status, pg, pe = ctypes.c_int32(9), out_u64(), out_u64()
    assert rt.cudaStreamBeginCapture(s, 0) == 0
    assert rt.cudaStreamIsCapturing(s, addr(status)) == 0 and status.value == 1
    rt.streams.enqueue(s, kernel("cap"))
    cid, graph, deps, ndeps = out_u64(), out_u64(), out_u64(), out_u64()
    assert rt.cudaStreamGetCaptureInfo(s, addr(status), addr(cid), addr(graph), addr(deps), 0,
                                       addr(ndeps)) == 0
    assert (status.value, cid.value, ndeps.value) == (1, 1, 1)
    node = ctypes.c_uint64.from_address(deps.value).value
    assert rt.streams.graphs.get_node(node).op.kernel == "cap"
    assert rt.cudaStreamEndCapture(s, addr(pg)) == 0 and pg.value == graph.value
    assert rt.cudaStreamEndCapture(s, addr(pg)) == Err.IllegalState and pg.value == 0
    assert rt.cudaGraphInstantiate(addr(pe), graph.value, 0) == 0
    for _ in range(10):
        assert rt.cudaGraphLaunch(pe.value, s) == 0
    rt.streams.synchronize_stream(s)
    assert rt.launcher.log == ["cap"] * 10
    assert rt.cudaGraphExecDestroy(pe.value) == 0
    assert rt.cudaGraphExecDestroy(pe.value) == Err.InvalidResourceHandle
    assert rt.cudaGraphDestroy(graph.value) == 0
    assert rt.cudaGraphDestroy(graph.value) == Err.InvalidValue


def test_api_explicit_graph_nodes(rt):
    dev = rt.gmem.allocate(64)
    host = np.zeros(64, np.uint8)
    pg, pe = out_u64(), out_u64()
    assert rt.cudaGraphCreate(addr(pg), 0) == 0
    gh = pg.value
    seen: list[int] = []
    HOST = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    hf = HOST(lambda ud: seen.append(int(host[4])))   # runs after the copy back
    n_memset, n_kernel, n_copy, n_host, n_empty = (out_u64() for _ in range(5))
    memset_params = struct.pack("<QQIIQQ", dev, 0, 0x01020304, 4, 4, 1)  # 4 elements
    mp = ctypes.create_string_buffer(memset_params)
    assert rt.cudaGraphAddMemsetNode(addr(n_memset), gh, 0, 0, addr(mp)) == 0
    kparams = ctypes.create_string_buffer(struct.pack("<Q3I3IIxxxxQQ", 0xABC, 2, 1, 1, 64, 1, 1, 0, 0, 0))
    deps = (ctypes.c_uint64 * 1)(n_memset.value)
    assert rt.cudaGraphAddKernelNode(addr(n_kernel), gh, addr(deps), 1, addr(kparams)) == 0
    deps2 = (ctypes.c_uint64 * 1)(n_kernel.value)
    assert rt.cudaGraphAddMemcpyNode1D(addr(n_copy), gh, addr(deps2), 1, host.ctypes.data, dev, 64,
                                       int(MemcpyKind.DeviceToHost)) == 0
    hp = ctypes.create_string_buffer(struct.pack("<QQ", ctypes.cast(hf, ctypes.c_void_p).value, 0))
    deps3 = (ctypes.c_uint64 * 1)(n_copy.value)
    assert rt.cudaGraphAddHostNode(addr(n_host), gh, addr(deps3), 1, addr(hp)) == 0
    assert rt.cudaGraphAddEmptyNode(addr(n_empty), gh, addr(deps3), 1) == 0
    bad = (ctypes.c_uint64 * 1)(0x1234)
    assert rt.cudaGraphAddEmptyNode(addr(n_empty), gh, addr(bad), 1) == Err.InvalidValue
    count = out_u64()
    assert rt.cudaGraphGetNodes(gh, 0, addr(count)) == 0 and count.value == 5
    nodes = (ctypes.c_uint64 * 5)()
    assert rt.cudaGraphGetNodes(gh, addr(nodes), addr(count)) == 0
    assert list(nodes) == [n_memset.value, n_kernel.value, n_copy.value, n_host.value, n_empty.value]
    assert rt.cudaGraphGetRootNodes(gh, 0, addr(count)) == 0 and count.value == 1
    t = ctypes.c_int32(-1)
    assert rt.cudaGraphNodeGetType(n_host.value, addr(t)) == 0 and t.value == graphs.NODE_HOST
    assert rt.cudaGraphInstantiate(addr(pe), gh, 0) == 0
    assert rt.cudaGraphLaunch(pe.value, 0) == 0
    rt.streams.synchronize_device()
    assert host[:16].view(np.uint32).tolist() == [0x01020304] * 4
    assert host[16:].tolist() == [0] * 48
    assert seen == [0x04]                             # little-endian low byte
    assert rt.launcher.log == ["kabc"]
    assert rt.gpu.kernels[0].grid == (2, 1, 1) and rt.gpu.kernels[0].block == (64, 1, 1)


def test_graph_launch_copies_are_fresh_each_time(env):
    mgr, gpu, _ = env
    dev = gpu.gmem.allocate(4)
    out = np.zeros(4, np.uint8)
    gr = mgr.graphs.new_graph()
    gr.add_node(graphs.NODE_MEMCPY, MemcpyOp(out, dev, 4, MemcpyKind.DeviceToHost))
    ex = mgr.graphs.instantiate(gr.handle)
    for v in (3, 9):
        mgr.enqueue(0, MemsetOp(dev, v, 4))
        mgr.launch_graph(ex, 0)
        mgr.synchronize_device()
        assert out.tolist() == [v] * 4


def _ptrs(*handles: int):
    return (ctypes.c_uint64 * max(len(handles), 1))(*handles)


def test_api_dependencies_edges_topology_and_cycles(rt):
    pg = out_u64()
    assert rt.cudaGraphCreate(addr(pg), 0) == 0
    gh = pg.value
    kp = ctypes.create_string_buffer(struct.pack("<Q3I3IIxxxxQQ", 0xA, 1, 1, 1, 32, 1, 1, 0, 0, 0))
    nodes = []
    for func in (0xA, 0xB, 0xC):
        struct.pack_into("<Q", kp, 0, func)
        n = out_u64()
        assert rt.cudaGraphAddKernelNode(addr(n), gh, 0, 0, addr(kp)) == 0
        nodes.append(n.value)
    a, b, c = nodes
    # c -> a, c -> b: c (added last) must run first
    assert rt.cudaGraphAddDependencies(gh, addr(_ptrs(c, c)), addr(_ptrs(a, b)), 0, 2) == 0
    assert rt.cudaGraphAddDependencies(gh, addr(_ptrs(a)), addr(_ptrs(c)), 0, 1) == Err.InvalidValue
    assert rt.cudaGraphAddDependencies(gh, addr(_ptrs(c)), addr(_ptrs(a)), 0, 1) == Err.InvalidValue
    num = out_u64()
    assert rt.cudaGraphGetEdges(gh, 0, 0, 0, addr(num)) == 0 and num.value == 2
    frm, to = (ctypes.c_uint64 * 3)(), (ctypes.c_uint64 * 3)()
    num.value = 3
    assert rt.cudaGraphGetEdges(gh, addr(frm), addr(to), 0, addr(num)) == 0
    assert num.value == 2 and list(frm) == [c, c, 0] and list(to) == [a, b, 0]
    assert rt.cudaGraphGetRootNodes(gh, 0, addr(num)) == 0 and num.value == 1
    pe = out_u64()
    assert rt.cudaGraphInstantiate(addr(pe), gh, 0) == 0
    assert rt.cudaGraphLaunch(pe.value, 0) == 0
    rt.streams.synchronize_device()
    assert rt.launcher.log == ["kc", "ka", "kb"]
    assert rt.cudaGraphRemoveDependencies(gh, addr(_ptrs(c)), addr(_ptrs(a)), 0, 1) == 0
    assert rt.cudaGraphRemoveDependencies(gh, addr(_ptrs(c)), addr(_ptrs(a)), 0, 1) == Err.InvalidValue
    assert rt.cudaGraphDestroyNode(b) == 0
    assert rt.cudaGraphGetEdges(gh, 0, 0, 0, addr(num)) == 0 and num.value == 0
    assert rt.cudaGraphGetNodes(gh, 0, addr(num)) == 0 and num.value == 2


def test_api_child_graph_clone_and_exec_set_params(rt):
    kp = ctypes.create_string_buffer(struct.pack("<Q3I3IIxxxxQQ", 0x1, 1, 1, 1, 32, 1, 1, 0, 0, 0))
    child, parent = out_u64(), out_u64()
    assert rt.cudaGraphCreate(addr(child), 0) == 0 and rt.cudaGraphCreate(addr(parent), 0) == 0
    ck = out_u64()
    assert rt.cudaGraphAddKernelNode(addr(ck), child.value, 0, 0, addr(kp)) == 0
    first, sub, last = out_u64(), out_u64(), out_u64()
    struct.pack_into("<Q", kp, 0, 0x10)
    assert rt.cudaGraphAddKernelNode(addr(first), parent.value, 0, 0, addr(kp)) == 0
    assert rt.cudaGraphAddChildGraphNode(addr(sub), parent.value, addr(_ptrs(first.value)), 1,
                                         child.value) == 0
    struct.pack_into("<Q", kp, 0, 0x20)
    assert rt.cudaGraphAddKernelNode(addr(last), parent.value, addr(_ptrs(sub.value)), 1, addr(kp)) == 0
    t = ctypes.c_int32()
    assert rt.cudaGraphNodeGetType(sub.value, addr(t)) == 0 and t.value == graphs.NODE_GRAPH
    # the child was copied: destroying the original does not affect the parent
    assert rt.cudaGraphDestroy(child.value) == 0
    clone, found = out_u64(), out_u64()
    assert rt.cudaGraphClone(addr(clone), parent.value) == 0
    assert rt.cudaGraphNodeFindInClone(addr(found), last.value, clone.value) == 0
    assert found.value not in (0, last.value)
    assert rt.cudaGraphNodeFindInClone(addr(found), last.value, parent.value) == Err.InvalidValue
    pe, pe2 = out_u64(), out_u64()
    assert rt.cudaGraphInstantiate(addr(pe), parent.value, 0) == 0
    assert rt.cudaGraphInstantiate(addr(pe2), clone.value, 0) == 0
    struct.pack_into("<Q", kp, 0, 0x30)
    assert rt.cudaGraphExecKernelNodeSetParams(pe.value, last.value, addr(kp)) == 0
    assert rt.cudaGraphExecKernelNodeSetParams(pe.value, found.value, addr(kp)) == Err.InvalidValue
    assert rt.cudaGraphExecMemsetNodeSetParams(pe.value, last.value, addr(kp)) == Err.InvalidValue
    assert rt.cudaGraphUpload(pe.value, 0) == 0
    assert rt.cudaGraphUpload(pe.value, 0x77770) == Err.InvalidResourceHandle
    assert rt.cudaGraphLaunch(pe.value, 0) == 0
    assert rt.cudaGraphLaunch(pe2.value, 0) == 0
    rt.streams.synchronize_device()
    assert rt.launcher.log == ["k10", "k1", "k30", "k10", "k1", "k20"]


def test_api_memcpy3d_node_and_event_nodes(rt):
    dev = rt.gmem.allocate(64)
    host = np.arange(32, dtype=np.uint8)
    pg, n1, n2, n3 = out_u64(), out_u64(), out_u64(), out_u64()
    assert rt.cudaGraphCreate(addr(pg), 0) == 0
    # copy 2 rows x 3 bytes from host (pitch 8, starting at x=1, y=1) to device (pitch 16)
    params = struct.pack("<Q3Q4QQ3Q4Q3Qi4x",
                         0, 1, 1, 0, host.ctypes.data, 8, 8, 4,
                         0, 0, 0, 0, dev, 16, 16, 4,
                         3, 2, 1, int(MemcpyKind.HostToDevice))
    assert len(params) == 160
    pp = ctypes.create_string_buffer(params)
    assert rt.cudaGraphAddMemcpyNode(addr(n1), pg.value, 0, 0, addr(pp)) == 0
    ev = rt.streams.create_event()
    assert rt.cudaGraphAddEventRecordNode(addr(n2), pg.value, addr(_ptrs(n1.value)), 1, ev) == 0
    assert rt.cudaGraphAddEventWaitNode(addr(n3), pg.value, addr(_ptrs(n2.value)), 1, ev) == 0
    assert rt.cudaGraphAddEventWaitNode(addr(n3), pg.value, 0, 0, 0x4321) == Err.InvalidResourceHandle
    bad = bytearray(params)
    struct.pack_into("<Q", bad, 144, 2)                       # depth 2
    pb = ctypes.create_string_buffer(bytes(bad))
    assert rt.cudaGraphAddMemcpyNode(addr(n3), pg.value, 0, 0, addr(pb)) == Err.NotSupported
    pe = out_u64()
    assert rt.cudaGraphInstantiate(addr(pe), pg.value, 0) == 0
    s = rt.streams.create_stream()
    assert rt.cudaGraphLaunch(pe.value, s) == 0
    rt.streams.synchronize_event(ev)
    assert rt.streams.event_time_cycles(ev) is not None
    rt.streams.synchronize_device()
    got = rt.gmem.read(dev, 32)
    assert got[:3].tolist() == [9, 10, 11] and got[16:19].tolist() == [17, 18, 19]
    assert got[3:16].tolist() == [0] * 13


def test_api_capture_to_graph_and_update_dependencies(rt):
    pg = out_u64()
    assert rt.cudaGraphCreate(addr(pg), 0) == 0
    gh = pg.value
    root, side = out_u64(), out_u64()
    assert rt.cudaGraphAddEmptyNode(addr(root), gh, 0, 0) == 0
    assert rt.cudaGraphAddEmptyNode(addr(side), gh, 0, 0) == 0
    s = rt.streams.create_stream()
    assert rt.cudaStreamUpdateCaptureDependencies(s, 0, 0, 0, 0) == Err.IllegalState
    assert rt.cudaStreamBeginCaptureToGraph(s, gh, addr(_ptrs(root.value)), 0, 1, 0) == 0
    rt.streams.enqueue(s, kernel("first"))
    assert rt.cudaStreamUpdateCaptureDependencies(s, addr(_ptrs(side.value)), 0, 1, 0) == 0   # add
    rt.streams.enqueue(s, kernel("second"))
    assert rt.cudaStreamUpdateCaptureDependencies(s, addr(_ptrs(root.value)), 0, 1, 1) == 0   # set
    rt.streams.enqueue(s, kernel("third"))
    assert rt.cudaStreamUpdateCaptureDependencies(s, addr(_ptrs(root.value)), 0, 1, 2) == Err.InvalidValue
    out = out_u64()
    assert rt.cudaStreamEndCapture(s, addr(out)) == 0 and out.value == gh
    nodes = {n.op.kernel: n for n in rt.streams.graphs.get_graph(gh).nodes if n.kind == graphs.NODE_KERNEL}
    assert [d.handle for d in nodes["first"].deps] == [root.value]
    assert [d.handle for d in nodes["second"].deps] == [nodes["first"].handle, side.value]
    assert [d.handle for d in nodes["third"].deps] == [root.value]


def test_api_stream_device(rt):
    s = rt.streams.create_stream()
    dev = ctypes.c_int32(-1)
    assert rt.cudaStreamGetDevice(s, addr(dev)) == 0 and dev.value == 0
    assert rt.cudaStreamGetDevice(0x55550, addr(dev)) == Err.InvalidResourceHandle


def test_launches_of_one_exec_do_not_overlap_across_streams(env):
    mgr, _, launcher = env
    a = mgr.create_stream(STREAM_NON_BLOCKING)
    b = mgr.create_stream(STREAM_NON_BLOCKING)
    gate_ev = threading.Event()
    gr = mgr.graphs.new_graph()
    n = gr.add_node(graphs.NODE_HOST, HostFuncOp(lambda: gate_ev.wait(TIMEOUT_S)))
    gr.add_node(graphs.NODE_KERNEL, kernel("g"), [n])
    ex = mgr.graphs.instantiate(gr.handle)
    mgr.launch_graph(ex, a)
    mgr.launch_graph(ex, b)              # must wait for the launch on a
    mgr.enqueue(b, kernel("b_after"))
    time.sleep(0.05)
    assert launcher.log == []
    gate_ev.set()
    mgr.synchronize_device()
    assert launcher.log == ["g", "g", "b_after"]


def test_external_event_record_and_wait_become_graph_nodes(env):
    mgr, _, launcher = env
    s = mgr.create_stream()
    other = mgr.create_stream(STREAM_NON_BLOCKING)
    done_ev, go_ev = mgr.create_event(), mgr.create_event()
    mgr.begin_capture(s)
    mgr.stream_wait_event(s, go_ev, 1)            # cudaEventWaitExternal
    mgr.enqueue(s, kernel("inside"))
    mgr.record_event(done_ev, s, 1)              # cudaEventRecordExternal
    graph = mgr.end_capture(s)
    kinds = [n.kind for n in mgr.graphs.get_graph(graph).nodes]
    assert kinds == [graphs.NODE_WAIT_EVENT, graphs.NODE_KERNEL, graphs.NODE_EVENT_RECORD]
    with pytest.raises(CudaError) as ei:
        mgr.stream_wait_event(s, go_ev, 1)        # external waits only inside a capture
    assert ei.value.code == Err.InvalidValue
    gate_ev = threading.Event()
    mgr.enqueue(other, HostFuncOp(lambda: gate_ev.wait(TIMEOUT_S)))
    mgr.record_event(go_ev, other)
    ex = mgr.graphs.instantiate(graph)
    mgr.launch_graph(ex, s)
    mgr.stream_wait_event(other, done_ev)          # waits for the graph's record
    mgr.enqueue(other, kernel("outside"))
    time.sleep(0.05)
    assert launcher.log == []                      # the graph waits for go_ev
    gate_ev.set()
    mgr.synchronize_device()
    assert launcher.log == ["inside", "outside"]


def test_api_node_queries_params_dot_and_instantiate_with_params(rt, tmp_path):
    pg = out_u64()
    assert rt.cudaGraphCreate(addr(pg), 0) == 0
    gh = pg.value
    dev = rt.gmem.allocate(16)
    HOST = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    seen: list[int] = []
    hf = HOST(lambda ud: seen.append(ud))
    hf_addr = ctypes.cast(hf, ctypes.c_void_p).value
    hp = ctypes.create_string_buffer(struct.pack("<QQ", hf_addr, 1))
    a, b, c = out_u64(), out_u64(), out_u64()
    assert rt.cudaGraphAddHostNode(addr(a), gh, 0, 0, addr(hp)) == 0
    mp = ctypes.create_string_buffer(struct.pack("<QQIIQQ", dev, 0, 0xAB, 1, 16, 1))
    assert rt.cudaGraphAddMemsetNode(addr(b), gh, addr(_ptrs(a.value)), 1, addr(mp)) == 0
    assert rt.cudaGraphAddEmptyNode(addr(c), gh, addr(_ptrs(a.value, b.value)), 2) == 0
    num = out_u64()
    assert rt.cudaGraphNodeGetDependencies(c.value, 0, 0, addr(num)) == 0 and num.value == 2
    deps = (ctypes.c_uint64 * 2)()
    assert rt.cudaGraphNodeGetDependencies(c.value, addr(deps), 0, addr(num)) == 0
    assert list(deps) == [a.value, b.value]
    assert rt.cudaGraphNodeGetDependentNodes(a.value, addr(deps), 0, addr(num)) == 0
    assert num.value == 2 and list(deps) == [b.value, c.value]
    # update host and memset params on the graph, read the host params back
    struct.pack_into("<Q", hp, 8, 2)
    assert rt.cudaGraphHostNodeSetParams(a.value, addr(hp)) == 0
    got = ctypes.create_string_buffer(16)
    assert rt.cudaGraphHostNodeGetParams(a.value, addr(got)) == 0
    assert struct.unpack("<QQ", got.raw) == (hf_addr, 2)
    struct.pack_into("<I", mp, 16, 0xCD)
    assert rt.cudaGraphMemsetNodeSetParams(b.value, addr(mp)) == 0
    assert rt.cudaGraphMemsetNodeSetParams(a.value, addr(mp)) == Err.InvalidValue   # wrong type
    dot = tmp_path / "g.dot"
    assert rt.cudaGraphDebugDotPrint(gh, addr(ctypes.create_string_buffer(str(dot).encode())), 0) == 0
    text = dot.read_text()
    assert text.startswith('digraph "graph_') and text.count("->") == 3 and "memset" in text
    # cudaGraphInstantiateParams {flags; uploadStream; errNode_out; result_out}
    params = ctypes.create_string_buffer(struct.pack("<QQQi4x", 0, 0, 0xFF, 7))
    pe, fl = out_u64(), out_u64()
    assert rt.cudaGraphInstantiateWithParams(addr(pe), gh, addr(params)) == 0
    assert struct.unpack("<QQQi4x", params.raw[:32])[2:] == (0, 0)
    assert rt.cudaGraphExecGetFlags(pe.value, addr(fl)) == 0 and fl.value == 0
    struct.pack_into("<Q", params, 0, 1 << 20)
    assert rt.cudaGraphInstantiateWithParams(addr(pe), gh, addr(params)) == Err.InvalidValue
    assert struct.unpack_from("<i", params, 24)[0] == 1
    assert rt.cudaGraphInstantiate(addr(fl), gh, 1) == 0
    flags = out_u64()
    assert rt.cudaGraphExecGetFlags(fl.value, addr(flags)) == 0 and flags.value == 1
    assert rt.cudaGraphLaunch(pe.value, 0) == 0
    rt.streams.synchronize_device()
    assert seen == [2] and rt.gmem.read(dev, 16).tolist() == [0xCD] * 16


def test_api_graph_exec_update(rt):
    def build(funcs, chain=True):
        pg = out_u64()
        assert rt.cudaGraphCreate(addr(pg), 0) == 0
        kp = ctypes.create_string_buffer(struct.pack("<Q3I3IIxxxxQQ", 0, 1, 1, 1, 32, 1, 1, 0, 0, 0))
        prev = None
        for f in funcs:
            struct.pack_into("<Q", kp, 0, f)
            n = out_u64()
            deps = _ptrs(prev) if (prev and chain) else _ptrs()
            assert rt.cudaGraphAddKernelNode(addr(n), pg.value, addr(deps), 1 if (prev and chain) else 0,
                                             addr(kp)) == 0
            prev = n.value
        return pg.value
    g1 = build([0x1, 0x2])
    pe = out_u64()
    assert rt.cudaGraphInstantiate(addr(pe), g1, 0) == 0
    info = ctypes.create_string_buffer(24)
    assert rt.cudaGraphExecUpdate(pe.value, build([0x3, 0x4]), addr(info)) == 0
    assert struct.unpack_from("<i", info, 0)[0] == 0
    assert rt.cudaGraphExecUpdate(pe.value, build([0x5, 0x6], chain=False), addr(info)) == 910
    assert struct.unpack_from("<i", info, 0)[0] == 2                    # topology changed
    assert rt.cudaGraphExecUpdate(pe.value, build([0x5]), addr(info)) == 910
    assert rt.cudaGraphLaunch(pe.value, 0) == 0
    rt.streams.synchronize_device()
    assert rt.launcher.log == ["k3", "k4"]


def test_kernel_op_clone_is_independent():
    op = KernelLaunchOp(None, "k", (1, 1, 1), (32, 1, 1), 0, b"\x01",
                        launch_kwargs={"printf": print, "line_stats": {3: [1, 2]}})
    op.uid = 7
    c = op.clone()
    assert (c.uid, c.done, c.deps, c.params) == (0, False, [], b"\x01")
    assert c.launch_kwargs["printf"] is print
    assert c.launch_kwargs["line_stats"] == {} and op.launch_kwargs["line_stats"] == {3: [1, 2]}


def test_api_stream_attributes(rt):
    s, t = rt.streams.create_stream(), rt.streams.create_stream()
    val = ctypes.create_string_buffer(64)
    assert rt.cudaStreamGetAttribute(s, 3, addr(val)) == 0
    assert struct.unpack_from("<i", val)[0] == 1                 # cudaSyncPolicyAuto
    struct.pack_into("<i", val, 0, -2)
    assert rt.cudaStreamSetAttribute(s, 8, addr(val)) == 0       # priority
    assert rt.streams.get_stream(s).priority == -2
    window = ctypes.create_string_buffer(struct.pack("<QQfii", 0x1000, 4096, 0.5, 2, 1).ljust(64, b"\0"))
    assert rt.cudaStreamSetAttribute(s, 1, addr(window)) == 0    # access policy window: stored
    assert rt.cudaStreamCopyAttributes(t, s) == 0
    out = ctypes.create_string_buffer(64)
    assert rt.cudaStreamGetAttribute(t, 1, addr(out)) == 0 and out.raw == window.raw[:64]
    assert rt.cudaStreamGetAttribute(t, 8, addr(out)) == 0 and struct.unpack_from("<i", out)[0] == -2
    assert rt.cudaStreamSetAttribute(s, 2, addr(val)) == Err.InvalidValue   # cooperative: launches only
    assert rt.cudaStreamGetAttribute(0x4440, 8, addr(out)) == Err.InvalidResourceHandle
