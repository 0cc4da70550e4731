"""CUDA graphs: nodes with dependencies, instantiation, and replay on a stream.

No GPGPU-Sim counterpart (GPGPU-Sim has no graphs; anchors.md §1a).  A :class:`Graph` holds
:class:`GraphNode` objects (kernel, memcpy, memset, host, empty) whose payload is a template
operation from :mod:`gpgpusim.runtime.gpu`; graphs come from stream capture (the stream manager
adds one node per captured operation) or from explicit construction (``cudaGraphAdd*Node``).

``instantiate`` freezes a topological order of the nodes into a :class:`GraphExec`; launching it
enqueues a fresh clone of every template, in that order, on one stream.  Running the nodes one
after another on one stream honours every dependency edge (a legal schedule of the graph); the
timing model may later run independent branches side by side.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable

from gpgpusim.errors import CudaError, Err
from gpgpusim.runtime.gpu import (
    EmptyOp,
    EventRecordOp,
    HostFuncOp,
    KernelLaunchOp,
    Memcpy2DOp,
    MemcpyOp,
    MemsetOp,
    Op,
    WaitEventOp,
)

# cudaGraphNodeType
NODE_KERNEL = 0
NODE_MEMCPY = 1
NODE_MEMSET = 2
NODE_HOST = 3
NODE_GRAPH = 4
NODE_EMPTY = 5
NODE_WAIT_EVENT = 6
NODE_EVENT_RECORD = 7


def node_kind(op: Op) -> int:
    """The ``cudaGraphNodeType`` of a captured operation."""
    if isinstance(op, KernelLaunchOp):
        return NODE_KERNEL
    if isinstance(op, (MemcpyOp, Memcpy2DOp)):
        return NODE_MEMCPY
    if isinstance(op, MemsetOp):
        return NODE_MEMSET
    if isinstance(op, HostFuncOp):
        return NODE_HOST
    if isinstance(op, EventRecordOp):
        return NODE_EVENT_RECORD
    if isinstance(op, WaitEventOp):
        return NODE_WAIT_EVENT
    if isinstance(op, EmptyOp):
        return NODE_EMPTY
    raise CudaError(Err.StreamCaptureUnsupported,
                    f"{op.describe()}: this operation cannot be a graph node")


class GraphNode:
    """``cudaGraphNode_t``: one operation template plus the nodes it depends on."""

    __slots__ = ("handle", "kind", "op", "deps", "graph")

    def __init__(self, handle: int, kind: int, op: Op, deps: list[GraphNode],
                 graph: Graph) -> None:
        self.handle = handle
        self.kind = kind
        self.op = op
        self.deps = deps
        self.graph = graph

    def __repr__(self) -> str:
        return f"GraphNode({self.handle:#x}, kind={self.kind}, {self.op.describe()})"


class Graph:
    """``cudaGraph_t``: nodes in insertion order (which is always a topological order)."""

    def __init__(self, handle: int, registry: GraphRegistry) -> None:
        self.handle = handle
        self.nodes: list[GraphNode] = []
        self._registry = registry

    def add_node(self, kind: int, op: Op | None, deps: Iterable[GraphNode] = ()) -> GraphNode:
        deps = list(deps)
        for d in deps:
            if d.graph is not self:
                raise CudaError(Err.InvalidValue,
                                f"graph node {d.handle:#x} belongs to another graph")
        if len(set(id(d) for d in deps)) != len(deps):
            raise CudaError(Err.InvalidValue, "duplicate dependency in graph node")
        node = GraphNode(self._registry.next_handle(), kind, op or EmptyOp(), deps, self)
        self.nodes.append(node)
        self._registry.nodes[node.handle] = node
        return node

    def root_nodes(self) -> list[GraphNode]:
        return [n for n in self.nodes if not n.deps]

    def edges(self) -> list[tuple[GraphNode, GraphNode]]:
        return [(d, n) for n in self.nodes for d in n.deps]


class GraphExec:
    """``cudaGraphExec_t``: the frozen operation templates, in a topological order."""

    def __init__(self, handle: int, graph: Graph) -> None:
        self.handle = handle
        self.ops: list[Op] = [n.op.clone() for n in graph.nodes if n.kind != NODE_EMPTY]


def ancestors(nodes: Iterable[GraphNode]) -> set[GraphNode]:
    """``nodes`` and everything they (transitively) depend on."""
    seen: set[GraphNode] = set()
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            stack.extend(n.deps)
    return seen


class GraphRegistry:
    """Handles of graphs, nodes and executable graphs (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._handles = itertools.count(0x6A000010, 0x10)
        self.graph_map: dict[int, Graph] = {}
        self.exec_map: dict[int, GraphExec] = {}
        self.nodes: dict[int, GraphNode] = {}

    def next_handle(self) -> int:
        with self._lock:
            return next(self._handles)

    def new_graph(self) -> Graph:
        g = Graph(self.next_handle(), self)
        self.graph_map[g.handle] = g
        return g

    def get_graph(self, handle: int) -> Graph:
        g = self.graph_map.get(handle)
        if g is None:
            raise CudaError(Err.InvalidValue, f"graph handle {handle:#x} is not a live graph")
        return g

    def get_node(self, handle: int) -> GraphNode:
        n = self.nodes.get(handle)
        if n is None:
            raise CudaError(Err.InvalidValue, f"graph node handle {handle:#x} is not a live node")
        return n

    def get_exec(self, handle: int) -> GraphExec:
        e = self.exec_map.get(handle)
        if e is None:
            raise CudaError(Err.InvalidResourceHandle,
                            f"graph exec handle {handle:#x} is not a live executable graph")
        return e

    def destroy_graph(self, handle: int) -> None:
        g = self.get_graph(handle)
        del self.graph_map[handle]
        for n in g.nodes:
            self.nodes.pop(n.handle, None)

    def instantiate(self, graph_handle: int) -> int:
        g = self.get_graph(graph_handle)
        e = GraphExec(self.next_handle(), g)
        self.exec_map[e.handle] = e
        return e.handle

    def destroy_exec(self, handle: int) -> None:
        self.get_exec(handle)
        del self.exec_map[handle]
