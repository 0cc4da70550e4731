"""Interconnect: GPGPU-Sim 4.x's built-in local crossbar (``-network_mode 2``).

GPGPU-Sim counterparts: ``xbar_router`` and ``LocalInterconnect`` (local_interconnect.cc),
reached through ``icnt_wrapper``.  Checklist C138–C142, C148.

Nodes ``0 .. n_shader-1`` are the SIMT core clusters, ``n_shader + i`` is memory sub-partition
``i``.  Two networks: requests (clusters -> memory) and replies (memory -> clusters) when
``-icnt_subnets 2`` (one shared network with 1).  Every packet is one unit (the local crossbar
has no flits): an input buffer takes a packet while it holds fewer than
``-icnt_in_buffer_limit``; each :meth:`advance` (one icnt cycle) moves at most one packet into
each output buffer (``-icnt_out_buffer_limit``), picked by iSLIP (``-icnt_arbiter_algo 1``,
per-output round-robin pointers; each input granted once per cycle, or, with
:attr:`XbarRouter.keep_granted`, by several outputs in one cycle as 4.2's logs point to)
or naive round-robin (0).  The ejecting side pops its output buffer.

Not modelled: the booksim network (``-network_mode 1``, fly/mesh topologies, flit-level virtual
channels, per-hop latency, the 16-flit ejection boundary buffer); with that mode selected this
crossbar is used instead.  ``-icnt_grant_cycles`` > 1 is honoured as GPGPU-Sim does.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from typing import Any

from ..kit import Component, Queue


class XbarRouter:
    """``xbar_router``: input/output packet buffers and the crossbar arbiter.

    Each node's input buffer is a :class:`~..kit.Queue` of packets bounded by
    ``-icnt_in_buffer_limit`` (the injecting side asks :meth:`has_buffer_in` first), with a
    deque of their destinations beside it (``in_dst``: no ``(packet, destination)`` tuple per
    packet, of which a memory-bound program on 80 SMs buffers ~27,000), its output
    buffer one of packets bounded by ``-icnt_out_buffer_limit`` (the arbiter checks it before a
    grant).  An output may name its consumer (:meth:`connect_output`): a packet arriving there
    wakes it when it sleeps.  The ejecting side reaches its output through :meth:`has_output`,
    :meth:`peek` and :meth:`pop`; the owner learns the outputs reached in an :meth:`advance`
    from :meth:`take_delivered`."""

    #: iSLIP keeps a granted input eligible for later wanted outputs in the same cycle
    #: (:meth:`_islip_keep`, the arbiter 4.2's logs point to) instead of a one-to-one matching
    #: (:meth:`_islip_match`).  Off by default: with it on, the replies wait ~5x longer on
    #: the reply network than in 4.2's logs (a second, reply-side difference not found yet)
    #: and the cycles MAE against 4.2 gets worse (SM7_QV100 0.90 % -> 1.02 % on
    #: ``bench/accuracy.py``).
    keep_granted = False

    def __init__(self, n_shader: int, n_mem: int, in_limit: int, out_limit: int, algo: int, grant_cycles: int,
                 n_active_in: int, n_active_out: int) -> None:
        self.n_nodes = n_shader + n_mem
        self.in_buf: list[Queue[Any]] = [Queue(in_limit) for _ in range(self.n_nodes)]
        self.in_dst: list[deque[int]] = [deque() for _ in range(self.n_nodes)]
        self.out_buf: list[Queue[Any]] = [Queue(out_limit) for _ in range(self.n_nodes)]
        self.next_node = [0] * self.n_nodes
        self.busy_in: set[int] = set()   # the inputs whose buffer holds a packet
        self.next_node_id = 0
        self.algo = algo
        self.grant_cycles = grant_cycles
        self.grant_count = grant_cycles
        self.n_active_in = n_active_in
        self.n_active_out = n_active_out
        self.n_in_flight = 0
        self.n_out = 0
        self.delivered: list[int] = []   # output nodes that received a packet (drained by the owner)
        # statistics (LocalInterconnect::DisplayStats)
        self.packets = 0
        self.cycles = 0
        self.conflicts = 0
        self.conflicts_util = 0
        self.cycles_util = 0
        self.reqs_util = 0
        self.in_buffer_full = 0
        self.out_buffer_full = 0
        self.in_buffer_util = 0
        self.out_buffer_util = 0

    def connect_output(self, node: int, consumer: Component) -> None:
        """``consumer`` pops ``node``'s output buffer: a packet arriving there wakes it."""
        self.out_buf[node].consumer = consumer

    def has_buffer_in(self, node: int, count_full: bool = True) -> bool:
        """Room for one packet in ``node``'s input buffer; a refusal counts in
        ``in_buffer_full`` (unless not ``count_full``)."""
        ok = self.in_buf[node].can_push()
        if count_full and not ok:
            self.in_buffer_full += 1
        return ok

    def push(self, src: int, dst: int, data: Any) -> None:
        """Inject packet ``data`` for node ``dst`` at input ``src`` (:meth:`has_buffer_in`
        said there is room)."""
        self.in_buf[src].push(data)
        self.in_dst[src].append(dst)
        self.busy_in.add(src)
        self.packets += 1
        self.n_in_flight += 1

    def pop(self, node: int) -> Any:
        """Eject the packet at the head of ``node``'s output buffer; None when empty."""
        data = self.out_buf[node].pop()
        if data is not None:
            self.n_out -= 1
        return data

    def peek(self, node: int) -> Any:
        return self.out_buf[node].head()

    def has_output(self, node: int) -> bool:
        """Something waits for ``node`` at its output (what ``pop`` would return)."""
        return not self.out_buf[node].empty()

    def in_flight(self) -> bool:
        """A packet waits in an input buffer (an :meth:`advance` may move it)."""
        return self.n_in_flight > 0

    def take_delivered(self) -> list[int]:
        """The output nodes that received a packet since the last call, in grant order (one
        entry a packet); the list is the caller's."""
        d = self.delivered
        if d:
            self.delivered = []
        return d

    def busy(self) -> bool:
        return self.n_in_flight > 0 or self.n_out > 0

    def dump_state(self, name: str, out: list[str]) -> None:
        """Append the packets in each input and output buffer (the network called ``name``)."""
        for node, q in enumerate(self.in_buf):
            if not q.empty():
                out.append(f"icnt {name} input {node}: "
                           + ", ".join(f"{mf!r} -> {dst}" for mf, dst in zip(q.entries(), self.in_dst[node], strict=True)))
        for node, q2 in enumerate(self.out_buf):
            if not q2.empty():
                out.append(f"icnt {name} output {node}: " + ", ".join(repr(mf) for mf in q2.entries()))

    def idle_advance(self, n: int) -> None:
        """``n`` :meth:`advance` calls with nothing in flight (the idle branch, in bulk)."""
        self.cycles += n
        self.out_buffer_util += self.n_out * n
        if self.algo != 1:
            self.next_node_id = (self.next_node_id + n) % self.n_nodes

    def advance(self) -> None:
        if self.n_in_flight == 0:
            # nothing to move: only the per-cycle counters change
            self.cycles += 1
            self.out_buffer_util += self.n_out
            if self.algo != 1:
                self.next_node_id = (self.next_node_id + 1) % self.n_nodes
            return
        if self.algo == 1:
            if self.keep_granted:
                self._islip_keep()
            else:
                self._islip_match()
        else:
            self._rr()

    def _islip_keep(self) -> None:
        """``xbar_router::iSLIP_Advance`` as accel-sim/gpgpu-sim_distribution's 2024 rewrite has it
        (commit ccc6a9b; C148): the version the reference 4.2 logs point to.

        The inputs holding a packet and the set of outputs their head packets go to are taken
        at the start of the cycle; the conflict statistic counts the heads whose output an
        earlier input's head already named.  Then each of those outputs, in ascending order and
        if its buffer has room (else it counts in ``out_buffer_full``), takes one packet: the
        first input in round-robin order *after* its pointer ``next_node[i]`` (``upper_bound``)
        whose current head goes there; the pointer moves to that input + 1.  A granted input
        is dropped from the cycle only when its buffer is empty: its next packet is its new
        head, and a later output of the start-of-cycle set can take it in the same cycle.  So a
        cluster can hand requests to several sub-partitions in one cycle (and a sub-partition
        replies to several clusters), and those replies later meet at the cluster: the
        reply-network conflicts and icnt->shader latencies above 2 cycles that 4.2's logs show
        even when every request hits the L2.  (A strict one-to-one matching, what later
        Accel-Sim versions do, returns the replies of same-latency L2 hits as a conflict-free
        matching; GPGPU-Sim 4.0's original walked every output, not only the wanted ones,
        starting at the pointer: it lets requests through faster than 4.2's logs, e.g. a mean
        icnt->L2 latency of 104 instead of 121 cycles in vectoradd, 84 instead of 99 in
        strided's first kernel, which this version reproduces: 122 and 99.)"""
        n_nodes = self.n_nodes
        in_dst = self.in_dst
        out_buf = self.out_buf
        next_node = self.next_node
        cands = self._heads_by_output()
        reqs = 0
        update = self.grant_count == 1
        for dest in sorted(cands):       # the start-of-cycle outputs only
            if out_buf[dest].full():
                self.out_buffer_full += 1
                continue
            inputs = cands[dest]
            if len(inputs) == 1:
                node = inputs[0]
                inputs.clear()
            else:
                start = next_node[dest] + 1
                node = min(inputs, key=lambda x: (x - start) % n_nodes)
                inputs.remove(node)
            out_buf[dest].push(self._pop_input(node))
            self.delivered.append(dest)
            self.n_in_flight -= 1
            self.n_out += 1
            reqs += 1
            if update:
                next_node[dest] = (node + 1) % n_nodes
            dq = in_dst[node]
            if dq:
                # its new head; only a later output of the start-of-cycle set can still take it
                d2 = dq[0]
                if d2 > dest:
                    lst = cands.get(d2)
                    if lst is not None:
                        lst.append(node)
            else:
                self.busy_in.discard(node)
        self._end_islip(reqs)

    def _islip_match(self) -> None:
        """iSLIP with each input granted at most once per cycle (a one-to-one matching), the
        outputs wanted at the start of the cycle in ascending order, each starting after its
        pointer: what later Accel-Sim versions do.  The default (see :attr:`keep_granted`).

        An input offers only its head packet and leaves the cycle once granted, so the inputs
        an output can grant are exactly those whose head goes there: each output picks among
        its own candidates (the first after its pointer, round robin), which is the walk over
        all inputs from the pointer without visiting the inputs it would skip."""
        in_dst = self.in_dst
        cands = self._heads_by_output()
        out_buf = self.out_buf
        next_node = self.next_node
        update = self.grant_count == 1
        reqs = 0
        for dest in sorted(cands):
            ob = out_buf[dest]
            if ob.full():
                self.out_buffer_full += 1
                continue
            lst = cands[dest]
            if len(lst) == 1:
                node = lst[0]
            else:
                k = bisect_right(lst, next_node[dest])
                node = lst[k] if k < len(lst) else lst[0]
            ob.push(self._pop_input(node))
            if not in_dst[node]:
                self.busy_in.discard(node)
            self.delivered.append(dest)
            if update:
                next_node[dest] = (node + 1) % self.n_nodes
            reqs += 1
        self.n_in_flight -= reqs
        self.n_out += reqs
        self._end_islip(reqs)

    def _pop_input(self, node: int) -> Any:
        """Take the head packet of ``node``'s input buffer, with its destination."""
        self.in_dst[node].popleft()
        return self.in_buf[node].pop()

    def _heads_by_output(self) -> dict[int, list[int]]:
        """The start of an iSLIP cycle (either version): the inputs holding a packet, in
        ascending order, grouped by their head packet's output; the conflict statistic counts
        the heads whose output an earlier input's head already named."""
        in_dst = self.in_dst
        cands: dict[int, list[int]] = {}
        conflicts = 0
        for i in sorted(self.busy_in):
            d = in_dst[i][0]                # busy_in holds the inputs with a packet
            lst = cands.get(d)
            if lst is None:
                cands[d] = [i]
            else:
                conflicts += 1
                lst.append(i)
        self.conflicts += conflicts
        self.conflicts_util += conflicts
        self.cycles_util += 1
        return cands

    def _end_islip(self, reqs: int) -> None:
        """The end of an iSLIP cycle (either version): ``reqs`` packets granted; the pointers
        may move again after ``-icnt_grant_cycles`` cycles; the buffer-use sample."""
        self.reqs_util += reqs
        if self.grant_count == 1:
            self.grant_count = self.grant_cycles
        else:
            self.grant_count -= 1
        self._sample()

    def _rr(self) -> None:
        issued: set[int] = set()
        conflicts = reqs = 0
        for i in range(self.n_nodes):
            node = (i + self.next_node_id) % self.n_nodes
            q = self.in_buf[node]
            data = q.head()
            if data is not None:
                d = self.in_dst[node][0]
                ob = self.out_buf[d]
                if not ob.full():
                    if d not in issued:
                        ob.push(self._pop_input(node))
                        self.delivered.append(d)
                        if q.empty():
                            self.busy_in.discard(node)
                        self.n_in_flight -= 1
                        self.n_out += 1
                        issued.add(d)
                        reqs += 1
                    else:
                        conflicts += 1
                else:
                    self.out_buffer_full += 1
                    if d in issued:
                        conflicts += 1
        self.next_node_id = (self.next_node_id + 1) % self.n_nodes
        self.conflicts += conflicts
        self.conflicts_util += conflicts
        self.cycles_util += 1
        self.reqs_util += reqs
        self._sample()

    def _sample(self) -> None:
        self.in_buffer_util += self.n_in_flight
        self.out_buffer_util += self.n_out
        self.cycles += 1

    def details(self) -> dict[str, float]:
        c = self.cycles or 1
        cu = self.cycles_util or 1
        return {"injected_packets_num": self.packets, "cycles": self.cycles,
                "injected_packets_per_cycle": self.packets / c, "conflicts_per_cycle": self.conflicts / c,
                "conflicts_per_cycle_util": self.conflicts_util / cu, "Bank_Level_Parallism": self.reqs_util / cu,
                "in_buffer_full_per_cycle": self.in_buffer_full / c,
                "in_buffer_avg_util": self.in_buffer_util / c / max(self.n_active_in, 1),
                "out_buffer_full_per_cycle": self.out_buffer_full / c,
                "out_buffer_avg_util": self.out_buffer_util / c / max(self.n_active_out, 1)}


class Interconnect:
    """``LocalInterconnect``: request and reply crossbars."""

    def __init__(self, cfg: Any, n_shader: int, n_mem: int) -> None:
        in_lim = int(cfg.get("icnt_in_buffer_limit"))
        out_lim = int(cfg.get("icnt_out_buffer_limit"))
        algo = int(cfg.get("icnt_arbiter_algo"))
        grant = int(cfg.get("icnt_grant_cycles"))
        self.n_shader = n_shader
        self.n_mem = n_mem
        self.n_subnets = int(cfg.get("icnt_subnets"))
        self.req = XbarRouter(n_shader, n_mem, in_lim, out_lim, algo, grant, n_shader, n_mem)
        self.reply = (XbarRouter(n_shader, n_mem, in_lim, out_lim, algo, grant, n_mem, n_shader)
                      if self.n_subnets > 1 else self.req)

    def has_buffer(self, node: int) -> bool:
        net = self.reply if (self.n_subnets > 1 and node >= self.n_shader) else self.req
        return net.has_buffer_in(node)

    def push(self, src: int, dst: int, data: Any) -> None:
        net = self.req if (self.n_subnets == 1 or src < self.n_shader) else self.reply
        net.push(src, dst, data)

    def pop(self, node: int) -> Any:
        net = self.reply if node < self.n_shader else self.req
        return net.pop(node)

    def peek(self, node: int) -> Any:
        net = self.reply if node < self.n_shader else self.req
        return net.peek(node)

    def advance(self) -> None:
        self.req.advance()
        if self.reply is not self.req:
            self.reply.advance()

    def busy(self) -> bool:
        return self.req.busy() or self.reply.busy()
