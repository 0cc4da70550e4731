"""CUDA runtime entry points of stream capture and CUDA graphs (creation, nodes and edges,
instantiation, update, launch), on the runtime's stream manager and its graph registry
(:mod:`gpgpusim.runtime.graphs`).

:class:`GraphApi` is a service of :class:`gpgpusim.runtime.api.Runtime` (:mod:`.service`).
Kernel nodes are built like launches (:meth:`GraphApi._make_kernel_op`: the module service's
registry lookup, validation, marshalling and engine options).  GPGPU-Sim has no graphs or
capture.
"""

from __future__ import annotations

import ctypes
from typing import Any

from gpgpusim.device.gpu import (
    EventRecordOp,
    HostFuncOp,
    KernelLaunchOp,
    Memcpy2DOp,
    MemcpyKind,
    MemcpyOp,
    MemsetOp,
    WaitEventOp,
)
from gpgpusim.errors import CudaError, Err
from gpgpusim.runtime import abi
from gpgpusim.runtime import graphs as g
from gpgpusim.runtime.service import Service, entry
from gpgpusim.runtime.stream_api import (
    _EDGE_DATA_BYTES,
    _HOST_FN,
    _INSTANTIATE_FLAGS,
    _GraphExecUpdateFailure,
    _need,
    _ptsz,
    _read_ptr_array,
)
from gpgpusim.runtime.stream_state import STREAM_LEGACY_NULL, STREAM_PER_THREAD


class GraphApi(Service):
    """See the module docstring."""

    @entry
    def cudaStreamBeginCapture(self, stream: int, mode: int) -> None:
        self.rt.streams.begin_capture(stream, mode)

    @entry
    def cudaStreamEndCapture(self, stream: int, p_graph: int) -> None:
        _need(p_graph, "cudaStreamEndCapture: pGraph")
        try:
            abi.write_u64(p_graph, self.rt.streams.end_capture(stream))
        except CudaError:
            abi.write_u64(p_graph, 0)
            raise

    @entry
    def cudaStreamBeginCaptureToGraph(self, stream: int, graph: int, p_deps: int, p_edge_data: int,
                                      n_deps: int, mode: int) -> None:
        reg = self.rt.streams.graphs
        deps = [reg.get_node(h) for h in _read_ptr_array(p_deps, n_deps,
                                                         "cudaStreamBeginCaptureToGraph: dependencies")]
        self.rt.streams.begin_capture(stream, mode, graph=graph, deps=deps)

    @entry
    def cudaStreamUpdateCaptureDependencies(self, stream: int, p_deps: int, p_edge_data: int,
                                            n_deps: int, flags: int) -> None:
        """flags: 0 = cudaStreamAddCaptureDependencies, 1 = cudaStreamSetCaptureDependencies."""
        what = "cudaStreamUpdateCaptureDependencies"
        if flags not in (0, 1):
            raise CudaError(Err.InvalidValue, f"{what}: unknown flags {flags:#x}")
        reg = self.rt.streams.graphs
        nodes = [reg.get_node(h) for h in _read_ptr_array(p_deps, n_deps, f"{what}: dependencies")]
        self.rt.streams.update_capture_dependencies(stream, nodes, replace=flags == 1)

    @entry
    def cudaStreamIsCapturing(self, stream: int, p_status: int) -> None:
        _need(p_status, "cudaStreamIsCapturing: pCaptureStatus")
        abi.write_i32(p_status, self.rt.streams.is_capturing(stream))

    @entry
    def cudaStreamGetCaptureInfo(self, stream: int, p_status: int, p_id: int, p_graph: int,
                                 p_deps: int, p_edge_data: int, p_num_deps: int) -> None:
        """``cudaStreamGetCaptureInfo`` (CUDA 13 signature, with edge data)."""
        _need(p_status, "cudaStreamGetCaptureInfo: captureStatus_out")
        status, cid, graph, deps = self.rt.streams.capture_info(stream)
        abi.write_i32(p_status, status)
        if p_id:
            abi.write_u64(p_id, cid)
        if p_graph:
            abi.write_u64(p_graph, graph or 0)
        arr = (ctypes.c_uint64 * max(len(deps), 1))(*[n.handle for n in deps])
        edges = (ctypes.c_uint8 * (_EDGE_DATA_BYTES * max(len(deps), 1)))()
        keep = self.__dict__.setdefault("_capture_info_buffers", {})
        keep[stream] = (arr, edges)            # valid until the next call for this stream
        if p_deps:
            abi.write_u64(p_deps, ctypes.addressof(arr) if deps else 0)
        if p_edge_data:
            abi.write_u64(p_edge_data, ctypes.addressof(edges) if deps else 0)
        if p_num_deps:
            abi.write_u64(p_num_deps, len(deps))

    @entry
    def cudaThreadExchangeStreamCaptureMode(self, p_mode: int) -> None:
        """Swap the calling thread's capture interaction mode, which decides which "potentially
        unsafe" calls fail during capture (:meth:`StreamManager.check_unsafe_call`)."""
        _need(p_mode, "cudaThreadExchangeStreamCaptureMode: mode")
        old = self.rt.streams.exchange_capture_mode(ctypes.c_int.from_address(p_mode).value)
        abi.write_i32(p_mode, old)

    @entry
    def cudaGraphCreate(self, p_graph: int, flags: int) -> None:
        _need(p_graph, "cudaGraphCreate: pGraph")
        if flags:
            raise CudaError(Err.InvalidValue, f"cudaGraphCreate: flags must be 0, not {flags}")
        abi.write_u64(p_graph, self.rt.streams.graphs.new_graph().handle)

    def _add_node(self, p_node: int, graph: int, p_deps: int, n_deps: int, kind: int,
                  op: Any, what: str) -> None:
        _need(p_node, f"{what}: pGraphNode")
        reg = self.rt.streams.graphs
        gr = reg.get_graph(graph)
        deps = [reg.get_node(h) for h in _read_ptr_array(p_deps, n_deps, f"{what}: pDependencies")]
        abi.write_u64(p_node, gr.add_node(kind, op, deps).handle)

    def _make_kernel_op(self, what: str, func: int, grid: tuple[int, int, int],
                        block: tuple[int, int, int], shmem: int, args: int) -> KernelLaunchOp:
        """A kernel node's launch op, built as a launch is (:meth:`ModuleApi.kernel_op`)."""
        return self.rt.module_api.kernel_op(what, func, grid, block, shmem, args)  # type: ignore[no-any-return]

    def _kernel_node_op(self, what: str, p_params: int) -> KernelLaunchOp:
        """``struct cudaKernelNodeParams {func; dim3 grid; dim3 block; unsigned smem;
        void **kernelParams; void **extra}`` (offsets 0, 8, 20, 32, 40, 48)."""
        _need(p_params, f"{what}: pNodeParams")
        func = abi.read_u64(p_params)
        grid, block = abi.read_dim3(p_params + 8), abi.read_dim3(p_params + 20)
        shmem = ctypes.c_uint32.from_address(p_params + 32).value
        args, extra = abi.read_u64(p_params + 40), abi.read_u64(p_params + 48)
        if extra:
            raise CudaError(Err.NotSupported, f"{what}: the 'extra' argument format is not supported")
        return self._make_kernel_op(what, func, grid, block, shmem, args)

    def _memset_node_op(self, what: str, p_params: int) -> MemsetOp:
        """``struct cudaMemsetParams {dst; pitch; unsigned value; unsigned elementSize; width;
        height}`` (offsets 0, 8, 16, 20, 24, 32); width counts elements."""
        _need(p_params, f"{what}: pMemsetParams")
        dst, pitch = abi.read_u64(p_params), abi.read_u64(p_params + 8)
        value = ctypes.c_uint32.from_address(p_params + 16).value
        esize = ctypes.c_uint32.from_address(p_params + 20).value
        width, height = abi.read_u64(p_params + 24), abi.read_u64(p_params + 32)
        if esize not in (1, 2, 4):
            raise CudaError(Err.InvalidValue, f"{what}: elementSize {esize} is not 1, 2 or 4")
        nbytes = width * esize
        if height > 1 and pitch < nbytes:
            raise CudaError(Err.InvalidValue, f"{what}: pitch {pitch} is less than the row width {nbytes}")
        found = self.rt.gmem.find(dst) if dst else None
        if found is None or dst + (pitch * (height - 1) if height > 1 else 0) + nbytes > sum(found):
            raise CudaError(Err.InvalidValue, f"{what}: {dst:#x} is not (enough) device memory")
        return MemsetOp(dst, value, nbytes, esize, pitch, max(height, 1))

    @staticmethod
    def _host_node_op(what: str, p_params: int) -> HostFuncOp:
        """``struct cudaHostNodeParams {fn; userData}``."""
        _need(p_params, f"{what}: pNodeParams")
        fn, user_data = abi.read_u64(p_params), abi.read_u64(p_params + 8)
        _need(fn, f"{what}: fn")
        cfn = _HOST_FN(fn)
        op = HostFuncOp(lambda: cfn(user_data or None))
        op.c_params = (fn, user_data)   # type: ignore[attr-defined]  # for *GetParams
        return op

    @staticmethod
    def _memcpy1d_op(what: str, dst: int, src: int, count: int, kind: int) -> MemcpyOp:
        if kind not in tuple(MemcpyKind):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: {kind} is not a cudaMemcpyKind")
        if count:
            _need(dst, f"{what}: dst")
            _need(src, f"{what}: src")
        return MemcpyOp(dst, src, count, kind)

    def _memcpy3d_op(self, what: str, p_params: int) -> Memcpy2DOp:
        """``struct cudaMemcpy3DParms`` (srcArray 0, srcPos 8, srcPtr 32, dstArray 64, dstPos 72,
        dstPtr 96, extent 128, kind 152): pitched pointers with depth 1 only."""
        _need(p_params, f"{what}: pCopyParams")
        q = [abi.read_u64(p_params + 8 * i) for i in range(19)]
        kind = ctypes.c_int.from_address(p_params + 152).value
        src_array, (sx, sy, sz), (sptr, spitch, _sxs, _sys) = q[0], q[1:4], q[4:8]
        dst_array, (dx, dy, dz), (dptr, dpitch, _dxs, _dys) = q[8], q[9:12], q[12:16]
        width, height, depth = q[16:19]
        if src_array or dst_array:
            raise CudaError(Err.NotSupported, f"{what}: CUDA arrays are not supported")
        if depth != 1 or sz or dz:
            raise CudaError(Err.NotSupported, f"{what}: only depth-1 copies are supported "
                            f"(extent depth {depth})")
        if kind not in tuple(MemcpyKind):
            raise CudaError(Err.InvalidMemcpyDirection, f"{what}: {kind} is not a cudaMemcpyKind")
        _need(sptr, f"{what}: srcPtr.ptr")
        _need(dptr, f"{what}: dstPtr.ptr")
        spitch = spitch or width
        dpitch = dpitch or width
        if width > spitch or width > dpitch:
            raise CudaError(Err.InvalidPitchValue,
                            f"{what}: width {width} exceeds a pitch ({spitch}, {dpitch})")
        return Memcpy2DOp(dptr + dy * dpitch + dx, dpitch, sptr + sy * spitch + sx, spitch,
                          width, height, kind)

    @entry
    def cudaGraphAddKernelNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                               p_params: int) -> None:
        what = "cudaGraphAddKernelNode"
        op = self._kernel_node_op(what, p_params)
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_KERNEL, op, what)

    @entry
    def cudaGraphAddMemcpyNode1D(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                                 dst: int, src: int, count: int, kind: int) -> None:
        what = "cudaGraphAddMemcpyNode1D"
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_MEMCPY,
                       self._memcpy1d_op(what, dst, src, count, kind), what)

    @entry
    def cudaGraphAddMemcpyNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                               p_params: int) -> None:
        what = "cudaGraphAddMemcpyNode"
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_MEMCPY,
                       self._memcpy3d_op(what, p_params), what)

    @entry
    def cudaGraphAddMemsetNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                               p_params: int) -> None:
        what = "cudaGraphAddMemsetNode"
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_MEMSET,
                       self._memset_node_op(what, p_params), what)

    @entry
    def cudaGraphAddHostNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                             p_params: int) -> None:
        what = "cudaGraphAddHostNode"
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_HOST,
                       self._host_node_op(what, p_params), what)

    @entry
    def cudaGraphAddChildGraphNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                                   child: int) -> None:
        """The child graph is copied: later changes to it do not affect this node."""
        what = "cudaGraphAddChildGraphNode"
        reg = self.rt.streams.graphs
        copy = reg.new_graph(register=False)
        reg.get_graph(child).clone_into(copy)
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_GRAPH, g.ChildGraphOp(copy), what)

    @entry
    def cudaGraphAddEventRecordNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                                    event: int) -> None:
        what = "cudaGraphAddEventRecordNode"
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_EVENT_RECORD,
                       EventRecordOp(self.rt.streams.get_event(event)), what)

    @entry
    def cudaGraphAddEventWaitNode(self, p_node: int, graph: int, p_deps: int, n_deps: int,
                                  event: int) -> None:
        what = "cudaGraphAddEventWaitNode"
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_WAIT_EVENT,
                       WaitEventOp(self.rt.streams.get_event(event)), what)

    @entry
    def cudaGraphAddEmptyNode(self, p_node: int, graph: int, p_deps: int, n_deps: int) -> None:
        self._add_node(p_node, graph, p_deps, n_deps, g.NODE_EMPTY, None, "cudaGraphAddEmptyNode")

    @entry
    def cudaGraphGetNodes(self, graph: int, p_nodes: int, p_num: int) -> None:
        """Without ``nodes``: the count; with it: up to ``*numNodes`` handles."""
        _need(p_num, "cudaGraphGetNodes: numNodes")
        self._write_nodes(self.rt.streams.graphs.get_graph(graph).nodes, p_nodes, p_num)

    @entry
    def cudaGraphGetRootNodes(self, graph: int, p_nodes: int, p_num: int) -> None:
        _need(p_num, "cudaGraphGetRootNodes: pNumRootNodes")
        self._write_nodes(self.rt.streams.graphs.get_graph(graph).root_nodes(), p_nodes, p_num)

    @staticmethod
    def _write_nodes(nodes: list[g.GraphNode], p_nodes: int, p_num: int) -> None:
        if not p_nodes:
            abi.write_u64(p_num, len(nodes))
            return
        cap = abi.read_u64(p_num)
        for i, n in enumerate(nodes[:cap]):
            abi.write_u64(p_nodes + 8 * i, n.handle)
        for i in range(len(nodes), cap):
            abi.write_u64(p_nodes + 8 * i, 0)
        abi.write_u64(p_num, min(cap, len(nodes)))

    @entry
    def cudaGraphNodeGetType(self, node: int, p_type: int) -> None:
        _need(p_type, "cudaGraphNodeGetType: pType")
        abi.write_i32(p_type, self.rt.streams.graphs.get_node(node).kind)

    @entry
    def cudaGraphInstantiate(self, p_exec: int, graph: int, flags: int) -> None:
        _need(p_exec, "cudaGraphInstantiate: pGraphExec")
        if flags & ~_INSTANTIATE_FLAGS:
            raise CudaError(Err.InvalidValue, f"cudaGraphInstantiate: unsupported flags {flags:#x}")
        handle = self.rt.streams.graphs.instantiate(graph)
        self.rt.streams.graphs.get_exec(handle).flags = flags
        abi.write_u64(p_exec, handle)

    @entry
    def cudaGraphInstantiateWithFlags(self, p_exec: int, graph: int, flags: int) -> None:
        return self.cudaGraphInstantiate.__wrapped__(self, p_exec, graph, flags)  # type: ignore[attr-defined]

    @entry
    def cudaGraphLaunch(self, graph_exec: int, stream: int) -> None:
        self.rt.streams.launch_graph(graph_exec, stream)

    @entry
    def cudaGraphExecDestroy(self, graph_exec: int) -> None:
        self.rt.streams.graphs.destroy_exec(graph_exec)

    @entry
    def cudaGraphDestroy(self, graph: int) -> None:
        self.rt.streams.graphs.destroy_graph(graph)

    def _edge_lists(self, graph: int, p_from: int, p_to: int, n: int, what: str
                    ) -> tuple[g.Graph, list[tuple[g.GraphNode, g.GraphNode]]]:
        reg = self.rt.streams.graphs
        gr = reg.get_graph(graph)
        src = [reg.get_node(h) for h in _read_ptr_array(p_from, n, f"{what}: from")]
        dst = [reg.get_node(h) for h in _read_ptr_array(p_to, n, f"{what}: to")]
        return gr, list(zip(src, dst, strict=True))

    @entry
    def cudaGraphAddDependencies(self, graph: int, p_from: int, p_to: int, p_edge_data: int,
                                 n: int) -> None:
        gr, edges = self._edge_lists(graph, p_from, p_to, n, "cudaGraphAddDependencies")
        for a, b in edges:
            gr.add_edge(a, b)

    @entry
    def cudaGraphRemoveDependencies(self, graph: int, p_from: int, p_to: int, p_edge_data: int,
                                    n: int) -> None:
        gr, edges = self._edge_lists(graph, p_from, p_to, n, "cudaGraphRemoveDependencies")
        for a, b in edges:
            if a.graph is not gr or a not in b.deps:
                raise CudaError(Err.InvalidValue, f"cudaGraphRemoveDependencies: no edge "
                                f"{a.handle:#x} -> {b.handle:#x}")
        for a, b in edges:
            b.deps.remove(a)

    @entry
    def cudaGraphGetEdges(self, graph: int, p_from: int, p_to: int, p_edge_data: int,
                          p_num: int) -> None:
        """Without ``from``/``to``: the count; with them: up to ``*numEdges`` edges."""
        _need(p_num, "cudaGraphGetEdges: numEdges")
        edges = self.rt.streams.graphs.get_graph(graph).edges()
        if not p_from and not p_to:
            abi.write_u64(p_num, len(edges))
            return
        _need(p_from, "cudaGraphGetEdges: from")
        _need(p_to, "cudaGraphGetEdges: to")
        cap = abi.read_u64(p_num)
        for i in range(cap):
            a, b = edges[i] if i < len(edges) else (None, None)
            abi.write_u64(p_from + 8 * i, a.handle if a else 0)
            abi.write_u64(p_to + 8 * i, b.handle if b else 0)
            if p_edge_data:
                abi.write_u64(p_edge_data + _EDGE_DATA_BYTES * i, 0)
        abi.write_u64(p_num, min(cap, len(edges)))

    @entry
    def cudaGraphClone(self, p_clone: int, graph: int) -> None:
        _need(p_clone, "cudaGraphClone: pGraphClone")
        abi.write_u64(p_clone, self.rt.streams.graphs.clone_graph(graph).handle)

    @entry
    def cudaGraphNodeFindInClone(self, p_node: int, original: int, clone: int) -> None:
        _need(p_node, "cudaGraphNodeFindInClone: pNode")
        gr = self.rt.streams.graphs.get_graph(clone)
        node = gr.clone_of.get(original)
        if node is None:
            raise CudaError(Err.InvalidValue, f"cudaGraphNodeFindInClone: node {original:#x} has "
                            f"no copy in graph {clone:#x}")
        abi.write_u64(p_node, node.handle)

    @entry
    def cudaGraphDestroyNode(self, node: int) -> None:
        n = self.rt.streams.graphs.get_node(node)
        n.graph.remove_node(n)

    def _node_of_kind(self, node: int, kind: int, what: str) -> g.GraphNode:
        n = self.rt.streams.graphs.get_node(node)
        if n.kind != kind:
            raise CudaError(Err.InvalidValue, f"{what}: node {node:#x} is of type {n.kind}, not {kind}")
        return n

    @entry
    def cudaGraphKernelNodeSetParams(self, node: int, p_params: int) -> None:
        what = "cudaGraphKernelNodeSetParams"
        n = self._node_of_kind(node, g.NODE_KERNEL, what)
        n.op = self._kernel_node_op(what, p_params)

    @entry
    def cudaGraphExecKernelNodeSetParams(self, graph_exec: int, node: int, p_params: int) -> None:
        what = "cudaGraphExecKernelNodeSetParams"
        n = self._node_of_kind(node, g.NODE_KERNEL, what)
        self.rt.streams.graphs.get_exec(graph_exec).set_op(n, self._kernel_node_op(what, p_params))

    @entry
    def cudaGraphExecMemsetNodeSetParams(self, graph_exec: int, node: int, p_params: int) -> None:
        what = "cudaGraphExecMemsetNodeSetParams"
        n = self._node_of_kind(node, g.NODE_MEMSET, what)
        self.rt.streams.graphs.get_exec(graph_exec).set_op(n, self._memset_node_op(what, p_params))

    @entry
    def cudaGraphExecHostNodeSetParams(self, graph_exec: int, node: int, p_params: int) -> None:
        what = "cudaGraphExecHostNodeSetParams"
        n = self._node_of_kind(node, g.NODE_HOST, what)
        self.rt.streams.graphs.get_exec(graph_exec).set_op(n, self._host_node_op(what, p_params))

    @entry
    def cudaGraphExecMemcpyNodeSetParams1D(self, graph_exec: int, node: int, dst: int, src: int,
                                           count: int, kind: int) -> None:
        what = "cudaGraphExecMemcpyNodeSetParams1D"
        n = self._node_of_kind(node, g.NODE_MEMCPY, what)
        self.rt.streams.graphs.get_exec(graph_exec).set_op(
            n, self._memcpy1d_op(what, dst, src, count, kind))

    @entry
    def cudaGraphUpload(self, graph_exec: int, stream: int) -> None:
        """Nothing to upload in a simulator: validates the handles only."""
        self.rt.streams.graphs.get_exec(graph_exec)
        self.rt.streams.get_stream(stream)

    @entry
    def cudaGraphHostNodeSetParams(self, node: int, p_params: int) -> None:
        what = "cudaGraphHostNodeSetParams"
        self._node_of_kind(node, g.NODE_HOST, what).op = self._host_node_op(what, p_params)

    @entry
    def cudaGraphHostNodeGetParams(self, node: int, p_params: int) -> None:
        what = "cudaGraphHostNodeGetParams"
        _need(p_params, f"{what}: pNodeParams")
        fn, user_data = getattr(self._node_of_kind(node, g.NODE_HOST, what).op, "c_params", (0, 0))
        abi.write_u64(p_params, fn)
        abi.write_u64(p_params + 8, user_data)

    @entry
    def cudaGraphMemsetNodeSetParams(self, node: int, p_params: int) -> None:
        what = "cudaGraphMemsetNodeSetParams"
        self._node_of_kind(node, g.NODE_MEMSET, what).op = self._memset_node_op(what, p_params)

    @entry
    def cudaGraphMemcpyNodeSetParams1D(self, node: int, dst: int, src: int, count: int,
                                       kind: int) -> None:
        what = "cudaGraphMemcpyNodeSetParams1D"
        self._node_of_kind(node, g.NODE_MEMCPY, what).op = self._memcpy1d_op(what, dst, src, count, kind)

    def _write_node_list(self, nodes: list[g.GraphNode], p_nodes: int, p_edge_data: int,
                         p_num: int, what: str) -> None:
        _need(p_num, f"{what}: count")
        if p_edge_data and p_nodes:
            cap = abi.read_u64(p_num)
            for i in range(min(cap, len(nodes))):
                abi.write_u64(p_edge_data + _EDGE_DATA_BYTES * i, 0)
        self._write_nodes(nodes, p_nodes, p_num)

    @entry
    def cudaGraphNodeGetDependencies(self, node: int, p_deps: int, p_edge_data: int,
                                     p_num: int) -> None:
        n = self.rt.streams.graphs.get_node(node)
        self._write_node_list(list(n.deps), p_deps, p_edge_data, p_num,
                              "cudaGraphNodeGetDependencies")

    @entry
    def cudaGraphNodeGetDependentNodes(self, node: int, p_nodes: int, p_edge_data: int,
                                       p_num: int) -> None:
        n = self.rt.streams.graphs.get_node(node)
        users = [m for m in n.graph.nodes if n in m.deps]
        self._write_node_list(users, p_nodes, p_edge_data, p_num,
                              "cudaGraphNodeGetDependentNodes")

    @entry
    def cudaGraphInstantiateWithParams(self, p_exec: int, graph: int, p_params: int) -> None:
        """``cudaGraphInstantiateParams {flags; uploadStream; errNode_out; result_out}``."""
        what = "cudaGraphInstantiateWithParams"
        _need(p_exec, f"{what}: pGraphExec")
        _need(p_params, f"{what}: instantiateParams")
        flags = abi.read_u64(p_params)
        if flags & ~_INSTANTIATE_FLAGS:
            abi.write_i32(p_params + 24, 1)            # cudaGraphInstantiateError
            raise CudaError(Err.InvalidValue, f"{what}: unsupported flags {flags:#x}")
        upload = abi.read_u64(p_params + 8)
        if flags & 2:                                  # cudaGraphInstantiateFlagUpload
            self.rt.streams.get_stream(upload)
        handle = self.rt.streams.graphs.instantiate(graph)
        self.rt.streams.graphs.get_exec(handle).flags = flags
        abi.write_u64(p_exec, handle)
        abi.write_u64(p_params + 16, 0)
        abi.write_i32(p_params + 24, 0)                # cudaGraphInstantiateSuccess

    @entry
    def cudaGraphExecUpdate(self, graph_exec: int, graph: int, p_result: int) -> None:
        """``cudaGraphExecUpdateResultInfo {result; errorNode; errorFromNode}`` (0, 8, 16)."""
        what = "cudaGraphExecUpdate"
        reg = self.rt.streams.graphs
        result, node = g.exec_update(reg.get_exec(graph_exec), reg.get_graph(graph))
        if p_result:
            abi.write_i32(p_result, result)
            abi.write_u64(p_result + 8, node.handle if node is not None else 0)
            abi.write_u64(p_result + 16, 0)
        if result:
            why = "the topology changed" if result == 2 else "a node's type changed"
            raise _GraphExecUpdateFailure(f"{what}: {why}")

    @entry
    def cudaGraphExecGetFlags(self, graph_exec: int, p_flags: int) -> None:
        _need(p_flags, "cudaGraphExecGetFlags: flags")
        abi.write_u64(p_flags, self.rt.streams.graphs.get_exec(graph_exec).flags)

    @entry
    def cudaGraphDebugDotPrint(self, graph: int, p_path: int, flags: int) -> None:
        """A Graphviz file of the nodes (type and operation) and dependency edges."""
        _need(p_path, "cudaGraphDebugDotPrint: path")
        gr = self.rt.streams.graphs.get_graph(graph)
        lines = [f'digraph "graph_{gr.handle:#x}" {{']
        for n in gr.nodes:
            label = f"{g.NODE_NAMES.get(n.kind, n.kind)}\\n{n.op.describe()}".replace('"', "'")
            lines.append(f'  n{n.handle:x} [label="{label}"];')
        lines += [f"  n{a.handle:x} -> n{b.handle:x};" for a, b in gr.edges()]
        lines.append("}")
        path = abi.read_cstr(p_path)
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
        except OSError as exc:
            raise CudaError(Err.InvalidValue, f"cudaGraphDebugDotPrint: cannot write {path!r}: "
                            f"{exc.strerror}") from None

    @entry
    def cudaStreamBeginCapture_ptsz(self, stream: int, mode: int) -> int:
        return self.cudaStreamBeginCapture.__wrapped__(self, _ptsz(stream), mode)  # type: ignore[attr-defined]

    @entry
    def cudaStreamEndCapture_ptsz(self, stream: int, p_graph: int) -> int:
        return self.cudaStreamEndCapture.__wrapped__(self, _ptsz(stream), p_graph)  # type: ignore[attr-defined]

    @entry
    def cudaStreamIsCapturing_ptsz(self, stream: int, p_status: int) -> int:
        return self.cudaStreamIsCapturing.__wrapped__(self, _ptsz(stream), p_status)  # type: ignore[attr-defined]

    @entry
    def cudaStreamGetCaptureInfo_ptsz(self, stream: int, p_status: int, p_id: int, p_graph: int,
                                      p_deps: int, p_edge_data: int, p_num_deps: int) -> int:
        return self.cudaStreamGetCaptureInfo.__wrapped__(  # type: ignore[attr-defined]
            self, _ptsz(stream), p_status, p_id, p_graph, p_deps, p_edge_data, p_num_deps)

    @entry
    def cudaStreamBeginCaptureToGraph_ptsz(self, stream: int, graph: int, p_deps: int,
                                           p_edge_data: int, n_deps: int, mode: int) -> int:
        return self.cudaStreamBeginCaptureToGraph.__wrapped__(  # type: ignore[attr-defined]
            self, _ptsz(stream), graph, p_deps, p_edge_data, n_deps, mode)

    @entry
    def cudaStreamUpdateCaptureDependencies_ptsz(self, stream: int, p_deps: int, p_edge_data: int,
                                                 n_deps: int, flags: int) -> int:
        return self.cudaStreamUpdateCaptureDependencies.__wrapped__(  # type: ignore[attr-defined]
            self, _ptsz(stream), p_deps, p_edge_data, n_deps, flags)

    @entry
    def cudaGraphInstantiateWithParams_ptsz(self, p_exec: int, graph: int, p_params: int) -> int:
        if p_params and abi.read_u64(p_params + 8) == STREAM_LEGACY_NULL:
            abi.write_u64(p_params + 8, STREAM_PER_THREAD)
        return self.cudaGraphInstantiateWithParams.__wrapped__(self, p_exec, graph, p_params)  # type: ignore[attr-defined]

    @entry
    def cudaGraphUpload_ptsz(self, graph_exec: int, stream: int) -> int:
        return self.cudaGraphUpload.__wrapped__(self, graph_exec, _ptsz(stream))  # type: ignore[attr-defined]

    @entry
    def cudaGraphLaunch_ptsz(self, graph_exec: int, stream: int) -> int:
        return self.cudaGraphLaunch.__wrapped__(self, graph_exec, _ptsz(stream))  # type: ignore[attr-defined]
