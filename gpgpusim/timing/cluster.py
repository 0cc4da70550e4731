"""A SIMT core cluster (GPGPU-Sim ``simt_core_cluster``; checklist C065-C069): its cores share
one interconnect port, on which their requests enter (``icnt_inject_request_packet``), and one
response FIFO of ``-gpgpu_n_cluster_ejection_buffer_size`` entries, from which one reply a core
cycle goes to its core (``icnt_cycle``).

A module of its own, apart from ``gpu.py``, so that it is compiled with the rest of the
performance model (``native/__init__.py``): the LD/ST unit reaches the interconnect through it for
every memory access it sends.

The cluster is a :class:`~.kit.Component` of the core clock: its :meth:`Cluster.cycle` is
``icnt_cycle``, and it sleeps while its response FIFO is empty and nothing waits for it on the
reply network; it consumes both, so a reply arriving at its network output or pushed into the
FIFO wakes it.  Its cores are components of the same clock: a reply the cluster hands to a core wakes it
(:meth:`~.core.shader.ShaderCore.wake`, which also puts it back into the GPU's list of cores to
cycle, :func:`cycle_cores`); the core keeps its own idle accounting (see
:class:`~.core.shader.ShaderCore`).
"""

from __future__ import annotations

from typing import Any

from .core.shader import ShaderCore
from .kit import NEVER, Clock, Component, Queue
from .mem_fetch import MemFetch, access_fetch
from .memory import MemorySystem
from .memory.icnt import XbarRouter

_ACCESS_TYPE = {("global", False): "GLOBAL_ACC_R", ("global", True): "GLOBAL_ACC_W",
                ("local", False): "LOCAL_ACC_R", ("local", True): "LOCAL_ACC_W"}


class Cluster(Component):
    """The cluster ``cid`` of ``gpu`` (a ``TimingGpu``) with cores ``first_sid`` ..
    ``first_sid + n_cores - 1``; ``clock`` counts the core clock's ticks (shared by the
    clusters, advanced by :func:`icnt_cycles`).

    Ports: its input on the request network (:meth:`can_inject` / :meth:`inject`), its output
    on the reply network and the response FIFO ``response``, both consumed here."""

    def __init__(self, cid: int, gpu: Any, n_cores: int, first_sid: int, clock: Clock | None = None) -> None:
        super().__init__(clock if clock is not None else Clock())
        self.cid = cid
        self.gpu = gpu
        self.cores: list[ShaderCore] = []
        self.cta_next_core = n_cores - 1
        mem: MemorySystem = gpu.mem
        self.mem = mem
        self.memlat = mem.memlat
        #: -gpgpu_perfect_mem (C012): every request is its own reply at once
        self.perfect_mem = bool(gpu.config.get("gpgpu_perfect_mem"))
        eject = max(1, int(gpu.config.get("gpgpu_n_cluster_ejection_buffer_size")))
        #: the response FIFO; with -gpgpu_perfect_mem it takes every reply unbounded (as
        #: GPGPU-Sim's perfect_memory_interface pushes without a check)
        self.response: Queue[MemFetch] = Queue(0 if self.perfect_mem else eject, consumer=self)
        # the cluster's ports: its input on the request network, its output on the reply one
        self._req_net: XbarRouter = mem.icnt.req
        self._reply_net: XbarRouter = mem.icnt.reply
        self._reply_net.connect_output(cid, self)
        for i in range(n_cores):
            sid = first_sid + i
            self.cores.append(ShaderCore(sid, self, gpu.config, gpu.stats, gpu.make_l1d(sid)))

    def can_inject(self, mf: MemFetch) -> bool:
        """``icnt_has_buffer`` for one packet on the cluster's request input (C067, C142); a
        refusal counts in the network's ``in_buffer_full``.  Always True with
        ``-gpgpu_perfect_mem`` (nothing is ever queued there)."""
        return self.perfect_mem or self._req_net.has_buffer_in(self.cid)

    def inject(self, mf: MemFetch, now: int) -> None:
        if self.perfect_mem:
            # -gpgpu_perfect_mem (C012): GPGPU-Sim's perfect_memory_interface turns the request
            # into its reply at once, in the cluster's response FIFO
            mf.is_reply = True
            if mf.is_atomic:
                mf.do_atomic()
            self.response.push(mf)
            return
        self.mem.inject(self.cid, mf, now)

    def new_fetch(self, acc: Any, inst: Any, space: str, is_store: bool, core: ShaderCore,
                  now: int) -> MemFetch:
        """The request of one access ``acc`` (``coalesce.Access``) of warp instruction ``inst``
        made by ``core`` in core cycle ``now`` (C105): an atomic is a ``GLOBAL_ACC_R``, other
        accesses are typed by space and direction."""
        atomic = inst.is_atomic
        return access_fetch(acc.addr, acc.size, is_store and not atomic,
                            "GLOBAL_ACC_R" if atomic else _ACCESS_TYPE[space, is_store],
                            acc.sector_mask, acc.byte_mask, core.sid, self.cid, inst.slot, atomic, inst, now)

    def cycle(self, now: int) -> bool:
        """``simt_core_cluster::icnt_cycle``: hand one reply to its core, take one from the
        interconnect; True when a reply moved.  Then it sleeps when nothing is left for it (a
        cycle would do nothing until a reply arrives, which wakes it)."""
        response = self.response
        moved = False
        mf = response.head()
        if mf is not None:
            core = self.cores[mf.core_id - self.cores[0].sid]
            if mf.access_type == "INST_ACC_R":
                # instruction fetch: the fetch unit always takes it, no read-latency statistics
                response.pop()
                core.accept_fetch_response(mf, now)
                moved = True
            elif not core.response_buffer_full():
                response.pop()
                if self.memlat:                 # memlatstat_read_done: reads and write acks
                    self.mem.read_done(mf, now)
                core.accept_response(mf, now)
                moved = True
        if not response.full() and self._reply_net.has_output(self.cid):
            mf2 = self.mem.pop_reply(self.cid, now)
            if mf2 is not None:
                response.push(mf2)
                moved = True
        if response.empty() and not self._reply_net.has_output(self.cid):
            self.sleep(NEVER)
        return moved

    def has_icnt_work(self) -> bool:
        """A reply in the response FIFO or waiting on the reply network."""
        return not self.response.empty() or self._reply_net.has_output(self.cid)

    def busy(self) -> bool:
        return not self.response.empty() or any(c.busy() for c in self.cores)

    def dump_state(self, out: list[str]) -> None:
        """The response FIFO's replies (the cores dump their own state)."""
        if not self.response.empty():
            out.append(f"cluster {self.cid} response FIFO: " + ", ".join(repr(mf) for mf in self.response.entries()))


def icnt_cycles(clusters: list[Cluster], clock: Clock, now: int) -> None:
    """The core clock's first step of ``gpgpu_sim::cycle`` for every cluster (one tick of
    ``clock``, the clusters' clock): the awake ones run :meth:`Cluster.cycle` (a sleeping one
    would do nothing).  Compiled with the model, so the loop over the clusters costs no
    interpreted call per cluster and cycle."""
    clock.n += 1
    for cl in clusters:
        cl.tick(now)


def cycle_cores(cores: list[ShaderCore], now: int) -> list[ShaderCore]:
    """Cycle each of ``cores`` (the awake ones, in core order) at core cycle ``now``; return
    those still awake afterwards (a core that found itself quiescent sleeps until a reply or a
    CTA wakes it: ``TimingGpu.core_woken``)."""
    for core in cores:
        core.cycle(now)
    return [c for c in cores if not c.sleeping()]
