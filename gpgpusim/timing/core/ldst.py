"""The load/store unit (GPGPU-Sim ``ldst_unit``; checklist C103-C107, C110).

``cycle()`` follows ``ldst_unit::cycle``: writeback of one finished access (round robin over
GPGPU-Sim's five clients: the shared-memory pipeline, the texture cache's results, the
constant cache's, the L1-bypass return and the L1D's ready accesses),
the shared-memory pipeline shift, one reply from the response FIFO (texture replies fill the
L1T, constant replies the L1C; write acks release stores; read replies fill the L1D or, for
accesses that bypass it, wait as the ``next_global`` return), the L1T's cycle (one request to
the interconnect, one fragment to its result FIFO), the L1C's (one miss to the interconnect),
the L1D's latency queues (``-gpgpu_l1_latency`` deep, one per
``-gpgpu_l1_banks`` bank: an access reaches the tag array ``l1_latency`` cycles after it
entered), then the instruction in the dispatch register:

* shared memory: it stays ``degree`` cycles (bank conflicts, ``coalesce.shared_conflict_degree``)
  and then a load enters the ``-gpgpu_smem_latency``-deep shared pipeline; a store is done;
* constant and kernel-parameter space (``constant_cycle``; C109): with
  ``-gpgpu_perfect_inst_const_cache 1`` (every shipped 4.x config) the instruction completes
  at once; otherwise its accesses -- one per ``-gpgpu_const_cache:l1`` line the warp reads
  (``ld.param`` of a kernel: one, at the parameter's offset in the parameter buffer, which is
  the address GPGPU-Sim uses) -- go to the read-only L1C one per cycle; hits complete there,
  misses (``CONST_ACC_R`` requests for the line) come back through the L1C's MSHRs and the
  writeback; a refused access (RESERVATION_FAIL) or a remaining one counts a constant-port
  conflict (``gpgpu_n_cmem_portconflict``).  A ``.func``'s ``ld.param`` (a frame variable in
  GPGPU-Sim's local memory) is treated as a perfect-cache read either way;
* texture (``tex``, ``tld4``): one access per 128-byte L1T line the warp's texels touch
  (``coalesce.texture_lines``) goes to the texture cache per cycle (``texture_cycle``); a
  refused access (L1T FIFOs full) is retried the next cycle.  Hits and misses alike come back
  in order through the L1T's fragment FIFO (``cache.TexCache``); misses are
  ``TEXTURE_ACC_R`` requests for the whole line, which skip the ROP delay at the partition;
* global/local: its accesses (``coalesce.coalesce``) enter the L1D latency queues, up to one
  per bank per cycle, in access-queue order; a busy bank stalls the rest to the next cycle;
  accesses that bypass the L1D go straight to the interconnect when it has room.  They bypass
  it (``memory_cycle``'s ``bypassL1D``) when there is no L1D, for atomics and for the cache
  operator ``.cg`` (CACHE_GLOBAL, loads and stores), and, with ``-gpgpu_gmem_skip_L1D 1``,
  for every global access except ``.nc`` ones (CACHE_L1).  The other operators (``.ca .cs
  .lu .cv .wb .wt``) are timed like the default: GPGPU-Sim 4.2 reads the cache operator
  nowhere else.  A reply goes to the L1D when the L1D sent its request, else to
  ``next_global``: GPGPU-Sim instead sends every global reply past the L1D under
  ``-gpgpu_gmem_skip_L1D``, including those of ``.nc`` loads that missed in it, which leaves
  their MSHR entry unfilled (a deadlock for the next access to the line); we fill it.

A load's (and a texture fetch's) destination registers stay reserved until all of its
accesses returned (per-register pending counts, ``m_pending_writes``); stores count as
outstanding until acknowledged.

The L1T is ``-gpgpu_tex_cache:l1``; ``gpgpu_n_mem_texture`` counts its requests as they enter
the interconnect (``icnt_inject_request_packet``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..cache import HIT, RESERVATION_FAIL, Cache, TexCache, sector_parts
from ..feed import SharedAccess, SharedDegree
from ..mem_fetch import MemFetch
from . import coalesce as C
from .pipe import CompressingPipe
from .units import WarpInst, popcount

if TYPE_CHECKING:
    from .shader import ShaderCore

#: the counter of each global/local stall reason _memory_cycle returns
_GL_STALL_KEY = {r: f"gpgpu_stall_shd_mem[gl_mem][{r}]" for r in ("resource_stall", "coal_stall", "icnt_rc_fail", "")}


def shared_geometry(cfg: Any) -> tuple[int, int]:
    """The shared memory's (banks, sub-warps) that bank-conflict degrees are computed for
    (``-gpgpu_shmem_num_banks``, ``-gpgpu_shmem_warp_parts``): the LD/ST unit's, and what the
    trace feed reduces shared-memory records to (``TimingGpu`` passes it to ``KernelTrace``)."""
    g = cfg.get
    return int(g("gpgpu_shmem_num_banks")), max(1, int(g("gpgpu_shmem_warp_parts")))


class LdstUnit:
    def __init__(self, core: ShaderCore, cfg: Any, stats: Any, l1d: Cache | None) -> None:
        g = cfg.get
        self.core = core
        self.stats = stats
        #: the statistics registry's counters, which :meth:`_add` updates as ``stats.add`` does
        #: (a compiled call instead of an interpreted one, per memory instruction and stall)
        self.counters: dict[str, Any] = stats.values
        self.dispatch: WarpInst | None = None
        self.smem_latency = max(1, int(g("gpgpu_smem_latency")))
        self.smem_pipe = CompressingPipe(self.smem_latency)
        self.shmem_banks, self.warp_parts = shared_geometry(cfg)
        self.arch = int(g("gpgpu_coalesce_arch"))
        self.skip_l1d = bool(g("gpgpu_gmem_skip_L1D"))
        self.l1_latency = max(1, int(g("gpgpu_l1_latency")))
        self.l1_banks = max(1, int(g("gpgpu_l1_banks")))
        inter = max(1, int(g("gpgpu_l1_banks_byte_interleaving")))
        self.bank_shift = inter.bit_length() - 1
        self.lat_q = [CompressingPipe(self.l1_latency) for _ in range(self.l1_banks)]
        self.n_latq = 0
        # no latency-queue head reaches slot 0 before this cycle (a lower bound: see cycle())
        self.latq_due = 0
        self.now = 0
        self.response: list[MemFetch] = []
        self.response_size = max(1, int(g("gpgpu_n_ldst_response_buffer_size")))
        self.next_global: MemFetch | None = None
        self.next_wb: WarpInst | None = None
        self.next_wb_regs: tuple[int, ...] = ()
        self.wb_arb = 0
        self.pending: dict[tuple[int, int], int] = {}      # (warp slot, reg) -> accesses left
        self.part_acks: dict[int, int] = {}       # split write -> sector acknowledgements left
        self.l1d = l1d     # built by the GPU (its associativity follows the carve-out)
        tex = g("gpgpu_tex_cache:l1")
        self.l1t: TexCache | None = None
        if tex is not None and not isinstance(tex, str):
            self.l1t = TexCache(f"L1T_{core.sid:03d}", tex)
        const = g("gpgpu_const_cache:l1")
        self.l1c: Cache | None = None
        if not g("gpgpu_perfect_inst_const_cache") and const is not None and not isinstance(const, str):
            self.l1c = Cache(f"L1C_{core.sid:03d}", const, "L1C", level=1)
        self.stall_cycles = 0

    def _add(self, name: str, n: int = 1) -> None:
        """``stats.add(name, n)`` (``report.stats.StatsRegistry.add``)."""
        c = self.counters
        c[name] = c.get(name, 0) + n

    # ------------------------------------------------------------------ interface
    def busy(self) -> bool:
        return (self.dispatch is not None or len(self.smem_pipe) > 0 or self.n_latq > 0 or bool(self.response)
                or self.next_global is not None or self.next_wb is not None or bool(self.pending)
                or (self.l1d is not None and self.l1d.busy()) or (self.l1t is not None and self.l1t.busy())
                or (self.l1c is not None and self.l1c.busy()))

    def idle(self) -> bool:
        """Nothing this unit would do in a cycle (outstanding loads/stores may still be out in
        the memory system: their replies wake the core)."""
        l1d = self.l1d
        return (self.dispatch is None and not len(self.smem_pipe) and not self.n_latq and not self.response
                and self.next_global is None and self.next_wb is None
                and (l1d is None or (not l1d.miss_queue and not l1d.ready))
                and (self.l1t is None or self.l1t.idle())
                and (self.l1c is None or not self._l1c_active()))

    def _l1c_active(self) -> bool:
        """The L1C has something to do in a cycle: a miss to send, data to hand out, or a port
        to replenish (its port state must advance every cycle: it never sleeps)."""
        c = self.l1c
        assert c is not None
        return bool(c.miss_queue or c.ready or c.fill_port_occupied or c.data_port_occupied)

    def response_full(self) -> bool:
        return len(self.response) >= self.response_size

    def accept_response(self, mf: MemFetch, now: int) -> None:
        self.response.append(mf)

    def invalidate_l1(self) -> None:
        if self.l1d is not None:
            self.l1d.invalidate()

    def issue(self, inst: WarpInst, now: int) -> None:
        """The instruction enters the dispatch register (``ldst_unit::issue``)."""
        active = popcount(inst.executed)
        sp = inst.space
        if sp not in ("shared", "global", "local", "const", "param", "tex"):
            # generic (or a space the static table could not tell): the accesses say where
            mem = inst.mem
            sp = inst.space = mem[0].space if mem else "global"
        inst.accessq = []
        if sp == "shared":
            self._add("gpgpu_n_shmem_insn", active)
            deg = 0
            if inst.mem:
                # coalesce.shared_conflict_degree (C108): the trace feed's SharedAccess has it
                # for all the warps of its record; otherwise its memo, looked up inline
                memo = C._DEGREE_MEMO
                banks = self.shmem_banks
                parts = self.warp_parts
                for acc in inst.mem:
                    if isinstance(acc, SharedDegree):     # (type tests the compiled model narrows on)
                        deg += acc.degree(banks, parts)
                        continue
                    if isinstance(acc, SharedAccess):
                        deg += acc.degree(banks, parts)
                        continue
                    lanes = acc.lanes
                    d = memo.get((acc.addrs.tobytes(), lanes.tobytes() if parts > 1 else b"", banks, parts))
                    deg += C.shared_conflict_degree(lanes, acc.addrs, banks, parts) if d is None else d
            if deg > 1:
                self._add("gpgpu_n_shmem_bkconflict", deg - 1)
            inst.cycles = max(deg, 1 if active else 0)
        elif sp in ("const", "param"):
            self._add("gpgpu_n_const_mem_insn" if sp == "const" else "gpgpu_n_param_mem_insn", active)
            if self.l1c is not None and inst.executed:
                self._generate_const(inst, sp)
                n = len(inst.accessq)
                for r in inst.dst:
                    key = (inst.slot, r)
                    self.pending[key] = self.pending.get(key, 0) + n
        elif sp in ("global", "local"):
            if inst.is_store:
                self._add("gpgpu_n_store_insn", active)
            else:
                self._add("gpgpu_n_load_insn", active)
            self._generate(inst)
            if inst.is_atomic and inst.executed and len(inst.accessq) > 1:
                inst.warp.n_atomic += len(inst.accessq) - 1   # one reply per access
            if inst.is_load or inst.is_atomic:
                n = len(inst.accessq)
                for r in inst.dst:
                    key = (inst.slot, r)
                    self.pending[key] = self.pending.get(key, 0) + n
        elif sp == "tex":
            self._add("gpgpu_n_tex_insn", active)
            if self.l1t is not None and inst.executed and inst.mem:
                for block in C.texture_lines(inst.mem, self.l1t.line_bytes):
                    inst.accessq.append((block, "tex", False))
            n = len(inst.accessq)
            for r in inst.dst:
                key = (inst.slot, r)
                self.pending[key] = self.pending.get(key, 0) + n
        if not inst.is_atomic:
            # the lane addresses are now in the access queue: an in-flight instruction need
            # not keep them (an atomic keeps them for the live feed's deferred execution,
            # ``WarpInst.do_atomic``)
            inst.mem = None
        self.dispatch = inst

    def _generate_const(self, inst: WarpInst, sp: str) -> None:
        """``generate_mem_accesses`` for const / kernel-param space: one access per L1C line
        (ascending; served from the back)."""
        assert self.l1c is not None
        mask = ~(self.l1c.line_bytes - 1)
        if sp == "param":
            off = inst.warp.kernel.table.param_offset[inst.pc]
            if off < 0:
                return          # a .func parameter: see the module docstring
            blocks = {off & mask}
        else:
            blocks = set()
            for acc in inst.mem or ():
                if acc.space == "const":
                    blocks.update(int(a) & mask for a in acc.addrs.tolist())
        inst.accessq.extend((b, "const", False) for b in sorted(blocks))

    def _generate(self, inst: WarpInst) -> None:
        """The access queue of a global/local instruction in GPGPU-Sim's push order (address
        order per coalescing call); ``_memory_cycle`` serves it from the back, so the highest
        segment goes first, as ``accessq_back`` does.  (``coalesce`` returns serve order.)"""
        core = self.core
        q = inst.accessq
        kernel = inst.warp.kernel
        sector = self.skip_l1d or kernel.table.cache_op[inst.pc] == "cg"
        vec = kernel.table.mem_vec[inst.pc]
        for acc in inst.mem or ():
            size = acc.size
            if vec > 1 and not acc.is_atomic and size % vec == 0:
                # GPGPU-Sim's functional model hands the timing model a vector ld/st as one
                # access per thread of the *element* size (ptx_exec_inst: datatype2size of the
                # instruction type) at element 0's address: the other elements make no traffic
                size //= vec
            if acc.space == "local":
                hw_tid0 = inst.slot * 32       # hardware thread id of the warp's lane 0
                groups = C.local_addresses(acc.lanes.astype(np.int64), acc.addrs, size, hw_tid0,
                                           kernel.padded_threads_per_cta, core.sid, core.cluster.gpu.n_cores,
                                           kernel.max_cta_per_core)
                lanes, addrs, size = groups[0]
                if len(groups) > 1:
                    # the 4-byte words of every thread are coalesced together (one transaction
                    # map per sub-warp, memory_coalescing_arch)
                    lanes = np.concatenate([g[0] for g in groups])
                    addrs = np.concatenate([g[1] for g in groups])
                accs = C.coalesce(lanes, addrs.astype(np.uint64), size, self.arch, self.warp_parts,
                                  sector=sector)
                sp = "local"
            else:
                accs = C.coalesce(acc.lanes, acc.addrs, size, self.arch, self.warp_parts, atomic=acc.is_atomic,
                                  sector=sector)
                sp = "global"
            # coalesce() lists the accesses in the order they are served; the queue is served
            # from its end (GPGPU-Sim's accessq_back: the highest segment of the last sub-warp
            # first), so it holds them in reverse
            for a in reversed(accs):
                q.append((a, sp, acc.is_store))

    def _send_miss(self, cache: Cache, counter: str | None, now: int) -> None:
        """A read-only or data L1's cycle: its oldest miss enters the interconnect when there
        is room (counted under ``counter``), then the cache cycles."""
        mf = cache.miss_queue_top()
        if mf is not None and self.core.cluster.can_inject(mf):
            cache.pop_miss()
            if counter is not None:
                self._add(counter)
            self.core.cluster.inject(mf, now)
        cache.cycle()

    # ------------------------------------------------------------------ cycle
    def cycle(self, now: int) -> None:
        """``ldst_unit::cycle``: writeback, the L1 caches' cycles and latency queues, the
        shared-memory pipe, the next access of the instruction in the unit.  One function
        with an idle early-out for the common cycle with nothing to do: it runs every core
        cycle of every busy SM (the early-out's tests read the caches' queues directly)."""
        l1d = self.l1d
        l1t = self.l1t
        l1c = self.l1c
        if (self.dispatch is None and not self.response and self.next_wb is None
                and self.next_global is None and not self.smem_pipe.q
                and (l1d is None or (not l1d.miss_queue and not l1d.ready))
                and (l1t is None or not (l1t.fragment or l1t.result))
                and ((not self.n_latq and (l1c is None or not self._l1c_active()))
                     or (l1c is None and now < self.latq_due))):
            # nothing to do: only the L1D's port counters move (baseline_cache::cycle).  With
            # accesses in the L1D latency queues but none at a queue head yet, the full cycle
            # would do nothing else either (no miss to send, nothing to write back, no
            # instruction in the dispatch register) -- unless an L1C's ports must move
            if l1d is not None:
                l1d.idle_cycles(1)
            return
        core = self.core
        self.now = now
        self._writeback()
        if self.response:
            self._take_response(now)
        if l1t is not None and (l1t.fragment or l1t.result):
            tmf = l1t.request_top()
            if tmf is not None and core.cluster.can_inject(tmf):
                l1t.pop_request()
                self._add("gpgpu_n_mem_texture")
                core.cluster.inject(tmf, now)
            l1t.cycle()
        if l1c is not None:
            self._send_miss(l1c, "gpgpu_n_mem_const", now)
        if l1d is not None:
            # _send_miss, inline: the oldest miss enters the interconnect when there is room
            mq = l1d.miss_queue
            if mq:
                cluster = core.cluster
                mf = mq[0]
                if cluster.can_inject(mf):
                    mq.pop(0)
                    cluster.inject(mf, now)
            l1d.cycle()
            if self.n_latq and now >= self.latq_due:
                self._latency_queue_cycle(now)
        d = self.dispatch
        if d is None:
            return
        sp = d.space
        if sp == "shared":
            if d.cycles > 1:
                d.cycles -= 1
                self._add("gpgpu_stall_shd_mem[s_mem][bk_conf]")
                self._add("gpgpu_n_stall_shd_mem")
                return
        elif sp in ("global", "local") and d.accessq:
            stall = self._memory_cycle(d, now)
            if d.accessq:
                self._add("gpgpu_n_stall_shd_mem")
                self._add(_GL_STALL_KEY[stall])
                if stall == "resource_stall":       # BK_CONF: a latency-queue bank was busy
                    self._add("gpgpu_n_l1cache_bkconflict")
                return
        elif sp in ("const", "param") and d.accessq:
            self._constant_cycle(d, now)
            if d.accessq:
                self._add("gpgpu_n_stall_shd_mem")
                return
        elif sp == "tex" and d.accessq:
            self._texture_cycle(d, now)
            if d.accessq:
                # GPGPU-Sim counts it under T_MEM, which its report does not print by reason
                self._add("gpgpu_n_stall_shd_mem")
                return
        self._leave(d, sp, now)

    def _take_response(self, now: int) -> None:
        """The memory reply at the head of the response queue goes to its cache's fill port
        (L1T, L1C, L1D), acknowledges a store, or becomes the next global writeback; it waits
        while its port is busy."""
        resp = self.response
        l1d = self.l1d
        l1t = self.l1t
        l1c = self.l1c
        mf = resp[0]
        at = mf.access_type
        if at == "TEXTURE_ACC_R" and l1t is not None:
            resp.pop(0)      # the L1T's fill port is always free
            l1t.fill(mf, now)
        elif at == "CONST_ACC_R" and l1c is not None:
            if l1c.fill_port_free():
                resp.pop(0)
                l1c.fill(mf, now)
        elif mf.is_write and not mf.is_atomic:
            resp.pop(0)
            self._write_ack(mf)
        elif l1d is None or not l1d.waiting_for_fill(mf):
            if self.next_global is None:
                self.next_global = resp.pop(0)
        elif not l1d.fill_port_occupied:    # l1d.fill_port_free()
            resp.pop(0)
            l1d.fill(mf, now)

    def _leave(self, d: WarpInst, sp: str, now: int) -> None:
        """Instruction ``d`` (memory space ``sp``) is done with its accesses and leaves the
        dispatch register: shared loads enter the shared-memory pipe (when it has room), loads
        that wait for replies complete without releasing the registers still pending, the
        others complete."""
        core = self.core
        if sp == "shared" and (d.is_load or d.is_atomic) and d.executed:
            if not self.smem_pipe.can_enter(now):
                return
            self.smem_pipe.enter(now, d)
            self.dispatch = None
            return
        self.dispatch = None
        if (d.is_load or d.is_atomic) and (sp in ("global", "local", "tex")
                                           or (self.l1c is not None and sp in ("const", "param"))):
            left = 0
            for r in d.dst:
                left += self.pending.get((d.slot, r), 0)
            if not left:
                for r in d.dst:
                    self.pending.pop((d.slot, r), None)
                    core.release_reg(d.slot, r)
            core.complete(d, release=False)
            return
        core.complete(d, release=True)

    def _constant_cycle(self, d: WarpInst, now: int) -> None:
        """``constant_cycle`` with a finite L1C: ``process_memory_access_queue``, one access per
        cycle (the read-only cache uses no data port)."""
        core = self.core
        l1c = self.l1c
        assert l1c is not None
        block = d.accessq[-1][0]
        mf = MemFetch(block, l1c.line_bytes, False, "CONST_ACC_R", core_id=core.sid,
                      cluster_id=core.cluster.cid, warp_id=d.slot, token=d, timestamp=now)
        status = l1c.access(mf, now)
        if status == RESERVATION_FAIL:
            self._add("gpgpu_stall_shd_mem[c_mem][resource_stall]")     # BK_CONF
            self._add("gpgpu_n_cmem_portconflict")
            return
        d.accessq.pop()
        if status == HIT:
            self._read_done(d)
        if d.accessq:
            self._add("gpgpu_n_cmem_portconflict")       # a coalescing stall, counted as GPGPU-Sim does

    def _texture_cycle(self, d: WarpInst, now: int) -> None:
        """``texture_cycle``: offer the next access to the L1T (``process_memory_access_queue``;
        its data port is always free)."""
        core = self.core
        l1t = self.l1t
        assert l1t is not None
        block = d.accessq[-1][0]
        mf = MemFetch(block, l1t.line_bytes, False, "TEXTURE_ACC_R", core_id=core.sid,
                      cluster_id=core.cluster.cid, warp_id=d.slot, token=d, timestamp=now)
        if l1t.access(mf, now) != RESERVATION_FAIL:
            d.accessq.pop()

    def _bypass_l1d(self, d: WarpInst, space: str) -> bool:
        """``memory_cycle``'s ``bypassL1D`` for an access of ``space`` (see the module docstring)."""
        if self.l1d is None or d.is_atomic:
            return True
        cop = d.warp.kernel.table.cache_op[d.pc]
        if cop == "cg":
            return True
        return self.skip_l1d and space == "global" and cop != "nc"

    def _memory_cycle(self, d: WarpInst, now: int) -> str:
        """Send the instruction's accesses; returns the stall reason if some remain, named as
        GPGPU-Sim 4.2 prints ``gpu_stall_shd_mem_breakdown``: a busy L1D bank is ``BK_CONF``
        (printed as ``[gl_mem][resource_stall]``, also ``gpgpu_n_l1cache_bkconflict``), accesses
        left after a cycle's sends ``coal_stall``; a full interconnect on the L1-bypass path is
        ``ICNT_RC_FAIL``, which 4.2 counts in ``gpgpu_n_stall_shd_mem`` but prints in no line
        (kept here as ``[gl_mem][icnt_rc_fail]``)."""
        core = self.core
        q = d.accessq
        cluster = core.cluster
        if self._bypass_l1d(d, q[-1][1]):
            acc, space, is_store = q[-1]
            mf = cluster.new_fetch(acc, d, space, is_store, core, now)
            if not cluster.can_inject(mf):
                return "icnt_rc_fail"
            cluster.inject(mf, now)
            q.pop()
            if is_store and not d.is_atomic:
                d.warp.stores += 1
            return "coal_stall"
        lat_q = self.lat_q
        banks = self.l1_banks
        shift = self.bank_shift
        for _ in range(banks):
            if not q:
                return ""
            acc, space, is_store = q[-1]
            lq = lat_q[(acc.addr >> shift) % banks]
            if not lq.can_enter(now):
                return "resource_stall"
            if not lq.q:
                # the bank's new head: at slot 0 from now + depth (and after the last one left)
                t = now + lq.depth
                if t <= lq.last_left:
                    t = lq.last_left + 1
                if t < self.latq_due:
                    self.latq_due = t
            lq.enter(now, cluster.new_fetch(acc, d, space, is_store, core, now))
            self.n_latq += 1
            q.pop()
            if is_store:
                d.warp.stores += 1
        return "coal_stall"

    def _latency_queue_cycle(self, now: int) -> None:
        """``ldst_unit::L1_latency_queue_cycle``: the head of each bank queue accesses the L1D;
        on a reservation fail it stays (and the queue does not move)."""
        core = self.core
        l1d = self.l1d
        assert l1d is not None
        due = 1 << 62
        for lq in self.lat_q:
            q = lq.q
            if not q:
                continue
            # CompressingPipe.head, inline (the item at slot 0 this cycle)
            t = lq.head_t
            if now < t + lq.depth or now <= lq.last_left:
                t += lq.depth
                if t <= lq.last_left:
                    t = lq.last_left + 1
                if t < due:
                    due = t
                continue
            mf: MemFetch = q[0][1]
            status = l1d.access(mf, now)
            if status == "RESERVATION_FAIL":
                due = now       # retried next cycle
                continue
            lq.pop(now)
            self.n_latq -= 1
            if q:
                t = lq.head_t + lq.depth
                if t <= now:
                    t = now + 1
                if t < due:
                    due = t
            if mf.is_write:
                if self._ack_locally(mf, status):
                    core.store_ack(mf.warp_id)
            elif status == "HIT":
                self._read_done(mf.token)  # type: ignore[arg-type]
            # a read miss comes back through the L1D's access_ready(); a write that went
            # down to L2 is acknowledged by L2
        self.latq_due = due

    def _write_ack(self, mf: MemFetch) -> None:
        """A write acknowledgement from L2.  A sectored L2 splits a write into sector requests
        (``breakdown_request_to_sector_requests``) and acknowledges each one; the store is
        acknowledged when every part was."""
        orig = mf.original
        if orig is None:
            self.core.store_ack(mf.warp_id)
            return
        key = id(orig)
        left = self.part_acks.get(key)
        if left is None:
            left = sector_parts(orig.size, orig.sector_mask)
        left -= 1
        if left <= 0:
            self.part_acks.pop(key, None)
            self.core.store_ack(orig.warp_id)
        else:
            self.part_acks[key] = left

    def _ack_locally(self, mf: MemFetch, status: str) -> bool:
        """Is a store acknowledged by the L1D itself (``l1_latency_queue_cycle``)?  Write-back
        lines take a write hit, and a write miss that allocates locally (fetch-on-write or
        lazy-fetch-on-read, not write-through) is acknowledged at once; writes that the L1D
        forwards (write-through, local-wb-global-wt for global data) are acknowledged by L2."""
        l1 = self.l1d
        assert l1 is not None
        if l1.wp.forwards(mf.access_type):
            return False
        if status == "HIT":
            return True
        return l1.wa.writes_locally

    def _read_done(self, inst: WarpInst) -> None:
        """One access of load ``inst`` returned its data (``m_pending_writes`` decrement)."""
        core = self.core
        for r in inst.dst:
            key = (inst.slot, r)
            left = self.pending.get(key, 0) - 1
            if left <= 0:
                self.pending.pop(key, None)
                core.release_reg(inst.slot, r)
            else:
                self.pending[key] = left

    def _writeback(self) -> None:
        core = self.core
        nw = self.next_wb
        if nw is not None:
            if not core.opcoll.writeback_banks(nw):
                return
            self.next_wb = None
            if nw.space == "shared":
                for r in nw.dst:
                    core.release_reg(nw.slot, r)
                core.complete(nw, release=False)
            else:
                self._read_done(nw)
        # the clients with something to write back, as bits (1 << client): the shared-memory
        # pipeline's head is due, the L1T / L1C have results, the bypass return is full, the
        # L1D has ready accesses
        sp = self.smem_pipe
        sq = sp.q
        now = self.now
        ready = 1 if sq and now >= sp.head_t + sp.depth and now > sp.last_left else 0
        if self.next_global is not None:
            ready |= 8
        l1d = self.l1d
        if l1d is not None and l1d.ready:
            ready |= 16
        l1t = self.l1t
        if l1t is not None and l1t.result:
            ready |= 2
        l1c = self.l1c
        if l1c is not None and l1c.ready:
            ready |= 4
        if not ready:
            return              # no client has anything to write back
        # round robin from wb_arb: the ready clients in the order arb, arb+1, ..., 4, 0, ...
        arb = self.wb_arb
        rot = (ready >> arb) | ((ready << (5 - arb)) & 31)
        while rot:
            low = rot & -rot
            rot ^= low
            client = low.bit_length() - 1 + arb
            if client >= 5:
                client -= 5
            if client == 0:
                d = sp.pop(now)
                if d.is_atomic:
                    core.atomic_done(d.warp)
                self.next_wb = d
            elif client == 4:
                # an L1D-made fetch (a write-allocate read) carries no instruction: no writeback
                self.next_wb = l1d.next_access().token  # type: ignore[union-attr,assignment]
            elif client == 3:
                mf = self.next_global
                assert mf is not None
                self.next_global = None
                inst: WarpInst = mf.token  # type: ignore[assignment]
                if mf.is_atomic:
                    core.atomic_done(inst.warp)
                self.next_wb = inst
            elif client == 1:
                self.next_wb = l1t.next_access().token  # type: ignore[union-attr,assignment]
            else:
                self.next_wb = l1c.next_access().token  # type: ignore[union-attr,assignment]
            if self.next_wb is not None:
                self.wb_arb = client + 1 if client < 4 else 0
                return

    def dump(self) -> str:
        """The unit's state (``ldst_unit::print``): dispatch register with its access queue, the
        shared-memory pipeline, the L1D latency queues, the response FIFO, the writeback
        candidates, pending register writes, then its caches' MSHRs and miss queues."""
        d = self.dispatch
        out = [f"ldst dispatch={'-' if d is None else f'w{d.slot}@{d.pc} {d.space} q={len(d.accessq)}'} "
               f"smem={len(self.smem_pipe)} latq={self.n_latq} resp={len(self.response)} "
               f"pending={len(self.pending)}"]
        if len(self.smem_pipe):
            out.append("shared pipeline: " + ", ".join(f"w{i.slot}@{i.pc} (in {t})" for t, i in self.smem_pipe.entries()))
        for b, lq in enumerate(self.lat_q):
            if len(lq):
                out.append(f"L1D latency queue bank {b}: " + ", ".join(f"{mf!r} (in {t})" for t, mf in lq.entries()))
        if self.response:
            out.append("response FIFO: " + ", ".join(repr(mf) for mf in self.response))
        if self.next_global is not None:
            out.append(f"next_global: {self.next_global!r}")
        nw = self.next_wb
        if nw is not None:
            out.append(f"LD/ST wb    = w{nw.slot}@{nw.pc} (register banks left to write {nw.wb_left})")
        if self.pending:
            per: dict[int, list[str]] = {}
            for (slot, r), n in sorted(self.pending.items()):
                per.setdefault(slot, []).append(f"{r}({n})")
            out.append("Pending register writes: " + "; ".join(f"w{s}: {' '.join(v)}" for s, v in per.items()))
        for c in (self.l1d, self.l1t, self.l1c):
            if c is not None and c.busy():
                out.append(c.dump_state())
        return "\n".join(out)
