"""CUDA graphs: nodes with dependencies, instantiation, and replay on a stream.

No GPGPU-Sim counterpart (GPGPU-Sim has no graphs).  A :class:`Graph` holds
:class:`GraphNode` objects (kernel, memcpy, memset, host, empty, event record/wait, child graph)
whose payload is a template operation from :mod:`gpgpusim.device.gpu`; graphs come from stream capture (the stream manager
adds one node per captured operation) or from explicit construction (``cudaGraphAdd*Node``).

``instantiate`` freezes a topological order of the nodes (child graphs flattened) into a
:class:`GraphExec`; launching it
enqueues a fresh clone of every template, in that order, on one stream.  Running the nodes one
after another on one stream honours every dependency edge (a legal schedule of the graph); the
timing model may later run independent branches side by side.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable

from gpgpusim.device.gpu import (
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
from gpgpusim.errors import CudaError, Err

# cudaGraphNodeType
NODE_KERNEL = 0
NODE_MEMCPY = 1
NODE_MEMSET = 2
NODE_HOST = 3
NODE_GRAPH = 4
NODE_EMPTY = 5
NODE_WAIT_EVENT = 6
NODE_EVENT_RECORD = 7


#: printable names of the node types (cudaGraphDebugDotPrint)
NODE_NAMES = {NODE_KERNEL: "kernel", NODE_MEMCPY: "memcpy", NODE_MEMSET: "memset",
              NODE_HOST: "host", NODE_GRAPH: "graph", NODE_EMPTY: "empty",
              NODE_WAIT_EVENT: "wait_event", NODE_EVENT_RECORD: "event_record"}


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


class ChildGraphOp(Op):
    """Payload of a child-graph node: a private copy of the embedded graph."""

    kind = "child_graph"

    def __init__(self, graph: Graph) -> None:
        super().__init__()
        self.graph = graph

    def describe(self) -> str:
        return f"child graph {self.graph.handle:#x}"


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
    """``cudaGraph_t``: nodes (insertion order) and their dependency edges."""

    def __init__(self, handle: int, registry: GraphRegistry) -> None:
        self.handle = handle
        self.nodes: list[GraphNode] = []
        self._registry = registry
        #: for a clone: original node handle -> its copy here (``cudaGraphNodeFindInClone``)
        self.clone_of: dict[int, GraphNode] = {}

    def _check_deps(self, deps: list[GraphNode]) -> None:
        for d in deps:
            if d.graph is not self:
                raise CudaError(Err.InvalidValue,
                                f"graph node {d.handle:#x} belongs to another graph")
        if len(set(id(d) for d in deps)) != len(deps):
            raise CudaError(Err.InvalidValue, "duplicate dependency in graph node")

    def add_node(self, kind: int, op: Op | None, deps: Iterable[GraphNode] = ()) -> GraphNode:
        deps = list(deps)
        self._check_deps(deps)
        node = GraphNode(self._registry.next_handle(), kind, op or EmptyOp(), deps, self)
        self.nodes.append(node)
        self._registry.nodes[node.handle] = node
        return node

    def add_edge(self, src: GraphNode, dst: GraphNode) -> None:
        """``cudaGraphAddDependencies``: ``dst`` runs after ``src``; no duplicates, no cycles."""
        self._check_deps([src, dst])
        if src is dst or src in dst.deps:
            raise CudaError(Err.InvalidValue,
                            f"graph edge {src.handle:#x} -> {dst.handle:#x} is a self-loop or "
                            "already exists")
        if dst in ancestors([src]):
            raise CudaError(Err.InvalidValue,
                            f"graph edge {src.handle:#x} -> {dst.handle:#x} would make a cycle")
        dst.deps.append(src)

    def remove_node(self, node: GraphNode) -> None:
        """``cudaGraphDestroyNode``: the node and every edge touching it go."""
        self._check_deps([node])
        self.nodes.remove(node)
        for n in self.nodes:
            if node in n.deps:
                n.deps.remove(node)
        self._registry.nodes.pop(node.handle, None)

    def root_nodes(self) -> list[GraphNode]:
        return [n for n in self.nodes if not n.deps]

    def edges(self) -> list[tuple[GraphNode, GraphNode]]:
        return [(d, n) for n in self.nodes for d in n.deps]

    def topological(self) -> list[GraphNode]:
        """The nodes in a dependency order (Kahn's algorithm, ties in insertion order)."""
        index = {id(n): i for i, n in enumerate(self.nodes)}
        waiting = {id(n): len(n.deps) for n in self.nodes}
        users: dict[int, list[GraphNode]] = {id(n): [] for n in self.nodes}
        for n in self.nodes:
            for d in n.deps:
                users[id(d)].append(n)
        ready = [n for n in self.nodes if not n.deps]
        order: list[GraphNode] = []
        while ready:
            ready.sort(key=lambda n: index[id(n)])
            n = ready.pop(0)
            order.append(n)
            for u in users[id(n)]:
                waiting[id(u)] -= 1
                if waiting[id(u)] == 0:
                    ready.append(u)
        if len(order) != len(self.nodes):
            raise CudaError(Err.InvalidValue, f"graph {self.handle:#x} has a dependency cycle")
        return order

    def clone_into(self, target: Graph) -> dict[GraphNode, GraphNode]:
        """Copy every node and edge into the empty graph ``target``; returns old -> new."""
        mapping: dict[GraphNode, GraphNode] = {}
        for n in self.topological():
            op = n.op
            if isinstance(op, ChildGraphOp):
                child = self._registry.new_graph(register=False)
                op.graph.clone_into(child)
                op = ChildGraphOp(child)
            else:
                op = op.clone()
            mapping[n] = target.add_node(n.kind, op, [mapping[d] for d in n.deps])
        return mapping


class GraphExec:
    """``cudaGraphExec_t``: the frozen operation templates, in a topological order.

    Child graphs are flattened in place (their nodes run where the child node stands);
    ``by_node`` maps each top-level node handle to its template's index in ``ops``, for the
    ``cudaGraphExec*NodeSetParams`` calls.
    """

    def __init__(self, handle: int, graph: Graph) -> None:
        self.handle = handle
        self.ops: list[Op] = []
        self.by_node: dict[int, int] = {}
        self.kinds: dict[int, int] = {}
        #: the last operation of the latest launch (the next launch waits for it)
        self.last_op: Op | None = None
        #: cudaGraphInstantiateFlags it was created with
        self.flags = 0
        self._flatten(graph, top=True)
        self.signature = _signature(graph)

    def set_op(self, node: GraphNode, op: Op) -> None:
        """Replace the template of ``node`` (same kind) in this executable graph only."""
        index = self.by_node.get(node.handle)
        if index is None or self.kinds[node.handle] != node.kind:
            raise CudaError(Err.InvalidValue,
                            f"graph node {node.handle:#x} is not part of executable graph "
                            f"{self.handle:#x}")
        self.ops[index] = op

    def _flatten(self, graph: Graph, top: bool) -> None:
        for n in graph.topological():
            if isinstance(n.op, ChildGraphOp):
                self._flatten(n.op.graph, top=False)
            elif n.kind != NODE_EMPTY:
                if top:
                    self.by_node[n.handle] = len(self.ops)
                    self.kinds[n.handle] = n.kind
                self.ops.append(n.op.clone())


def _signature(graph: Graph) -> list[tuple[int, tuple[int, ...], int]]:
    """Per node in topological order: (type, positions of its dependencies, flattened ops)."""
    order = graph.topological()
    pos = {id(n): i for i, n in enumerate(order)}
    sig = []
    for n in order:
        width = len(GraphExec(0, n.op.graph).ops) if isinstance(n.op, ChildGraphOp) else 1
        sig.append((n.kind, tuple(sorted(pos[id(d)] for d in n.deps)), width))
    return sig


def exec_update(gexec: GraphExec, graph: Graph) -> tuple[int, GraphNode | None]:
    """``cudaGraphExecUpdate``: take ``graph``'s parameters if its topology matches.

    Returns (cudaGraphExecUpdateResult, the first offending node): 0 success, 2 topology
    changed, 3 node type changed.  On success the executable graph runs ``graph``'s operations.
    """
    sig = _signature(graph)
    order = graph.topological()
    if len(sig) != len(gexec.signature):
        return 2, None
    for node, new, old in zip(order, sig, gexec.signature, strict=True):
        if new[0] != old[0]:
            return 3, node
        if new[1:] != old[1:]:
            return 2, node
    fresh = GraphExec(0, graph)
    gexec.ops = fresh.ops
    return 0, None


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

    def new_graph(self, register: bool = True) -> Graph:
        g = Graph(self.next_handle(), self)
        if register:
            self.graph_map[g.handle] = g
        return g

    def clone_graph(self, handle: int) -> Graph:
        """``cudaGraphClone``."""
        g = self.new_graph()
        mapping = self.get_graph(handle).clone_into(g)
        g.clone_of = {old.handle: new for old, new in mapping.items()}
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
