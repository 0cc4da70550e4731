"""The load/store unit (GPGPU-Sim ``ldst_unit``; checklist C103-C107).

``cycle()`` follows ``ldst_unit::cycle``: writeback of one finished access (round robin over
the shared-memory pipeline, the L1-bypass return and the L1D's ready accesses), the
shared-memory pipeline shift, one reply from the response FIFO (write acks release stores;
read replies fill the L1D or, for accesses that bypass it, wait as the ``next_global`` return),
the L1D's latency queues (``-gpgpu_l1_latency`` deep, one per ``-gpgpu_l1_banks`` bank: an
access reaches the tag array ``l1_latency`` cycles after it entered), then the instruction in
the dispatch register:

* shared memory: it stays ``degree`` cycles (bank conflicts, ``coalesce.shared_conflict_degree``)
  and then a load enters the ``-gpgpu_smem_latency``-deep shared pipeline; a store is done;
* constant and parameter space: the perfect constant cache (``-gpgpu_perfect_inst_const_cache``;
  with a finite L1C the accesses are also treated as hits: a documented difference) -- the
  instruction completes at once, as GPGPU-Sim's ``constant_cycle`` does in that mode;
* global/local: its accesses (``coalesce.coalesce``) enter the L1D latency queues, up to one
  per bank per cycle, in access-queue order; a busy bank stalls the rest to the next cycle;
  accesses that bypass the L1D (``ld.global.cg``, atomics, ``-gpgpu_gmem_skip_L1D``, no L1D)
  go straight to the interconnect when it has room.

A load's destination registers stay reserved until all of its accesses returned (per-register
pending counts, ``m_pending_writes``); stores count as outstanding until acknowledged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import coalesce as C
from .pipe import CompressingPipe
from .units import WarpInst

_SPACE_ACC = {("global", False): "GLOBAL_ACC_R", ("global", True): "GLOBAL_ACC_W",
              ("local", False): "LOCAL_ACC_R", ("local", True): "LOCAL_ACC_W"}


class LdstUnit:
    def __init__(self, core: Any, cfg: Any, stats: Any) -> None:
        g = cfg.get
        self.core = core
        self.stats = stats
        self.dispatch: WarpInst | None = None
        self.smem_latency = max(1, int(g("gpgpu_smem_latency")))
        self.smem_pipe = CompressingPipe(self.smem_latency)
        self.shmem_banks = int(g("gpgpu_shmem_num_banks"))
        self.warp_parts = max(1, int(g("gpgpu_shmem_warp_parts")))
        self.arch = int(g("gpgpu_coalesce_arch"))
        self.skip_l1d = bool(g("gpgpu_gmem_skip_L1D"))
        self.l1_latency = max(1, int(g("gpgpu_l1_latency")))
        self.l1_banks = max(1, int(g("gpgpu_l1_banks")))
        inter = max(1, int(g("gpgpu_l1_banks_byte_interleaving")))
        self.bank_shift = inter.bit_length() - 1
        self.lat_q = [CompressingPipe(self.l1_latency) for _ in range(self.l1_banks)]
        self.n_latq = 0
        self.now = 0
        self.response: list[Any] = []
        self.response_size = max(1, int(g("gpgpu_n_ldst_response_buffer_size")))
        self.next_global: Any = None
        self.next_wb: WarpInst | None = None
        self.next_wb_regs: tuple[int, ...] = ()
        self.wb_arb = 0
        self.pending: dict[tuple[int, int], int] = {}      # (warp slot, reg) -> accesses left
        self.part_acks: dict[int, int] = {}       # split write -> sector acknowledgements left
        self.l1d = core.cluster.gpu.make_l1d(core.sid)
        self.stall_cycles = 0

    # ------------------------------------------------------------------ interface
    def busy(self) -> bool:
        return (self.dispatch is not None or len(self.smem_pipe) > 0 or self.n_latq > 0 or bool(self.response)
                or self.next_global is not None or self.next_wb is not None or bool(self.pending)
                or (self.l1d is not None and self.l1d.busy()))

    def idle(self) -> bool:
        """Nothing this unit would do in a cycle (outstanding loads/stores may still be out in
        the memory system: their replies wake the core)."""
        l1d = self.l1d
        return (self.dispatch is None and not len(self.smem_pipe) and not self.n_latq and not self.response
                and self.next_global is None and self.next_wb is None
                and (l1d is None or (not l1d.miss_queue and not l1d.access_ready())))

    def response_full(self) -> bool:
        return len(self.response) >= self.response_size

    def accept_response(self, mf: Any, now: int) -> None:
        self.response.append(mf)

    def invalidate_l1(self) -> None:
        if self.l1d is not None:
            self.l1d.invalidate()

    def issue(self, inst: WarpInst, now: int) -> None:
        """The instruction enters the dispatch register (``ldst_unit::issue``)."""
        st = self.stats
        active = inst.executed.bit_count()
        sp = inst.space
        if sp not in ("shared", "global", "local", "const", "param", "tex"):
            # generic (or a space the static table could not tell): the accesses say where
            mem = inst.mem
            sp = inst.space = mem[0].space if mem else "global"
        inst.accessq = []
        if sp == "shared":
            st.add("gpgpu_n_shmem_insn", active)
            deg = 0
            for acc in inst.mem or ():
                deg += C.shared_conflict_degree(acc.lanes, acc.addrs, self.shmem_banks, self.warp_parts)
            if deg > 1:
                st.add("gpgpu_n_shmem_bkconflict", deg - 1)
            inst.cycles = max(deg, 1 if active else 0)
        elif sp in ("const", "param"):
            st.add("gpgpu_n_const_mem_insn" if sp == "const" else "gpgpu_n_param_mem_insn", active)
        elif sp in ("global", "local"):
            if inst.is_store:
                st.add("gpgpu_n_store_insn", active)
            else:
                st.add("gpgpu_n_load_insn", active)
            self._generate(inst)
            if inst.is_atomic and inst.executed and len(inst.accessq) > 1:
                inst.warp.n_atomic += len(inst.accessq) - 1   # one reply per access
            if inst.is_load or inst.is_atomic:
                n = len(inst.accessq)
                for r in inst.dst:
                    key = (inst.slot, r)
                    self.pending[key] = self.pending.get(key, 0) + n
        elif sp == "tex":
            st.add("gpgpu_n_tex_insn", active)
        self.dispatch = inst

    def _generate(self, inst: WarpInst) -> None:
        core = self.core
        q = inst.accessq
        kernel = inst.warp.kernel
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
                accs = C.coalesce(lanes, addrs.astype(np.uint64), size, self.arch, self.warp_parts)
                sp = "local"
            else:
                accs = C.coalesce(acc.lanes, acc.addrs, size, self.arch, self.warp_parts, atomic=acc.is_atomic)
                sp = "global"
            # coalesce() lists the accesses in the order they are served; the queue is served
            # from its end (GPGPU-Sim's accessq_back: the highest segment of the last sub-warp
            # first), so it holds them in reverse
            for a in reversed(accs):
                q.append((a, sp, acc.is_store))

    # ------------------------------------------------------------------ cycle
    def cycle(self, now: int) -> None:
        l1d = self.l1d
        if (self.dispatch is None and not self.response and not self.n_latq and self.next_wb is None
                and self.next_global is None and not self.smem_pipe.q
                and (l1d is None or (not l1d.miss_queue and not l1d.ready))):
            # nothing to do: only the L1D's port counters move (baseline_cache::cycle)
            if l1d is not None:
                l1d.idle_cycles(1)
            return
        core = self.core
        self.now = now
        self._writeback()
        if self.response:
            mf = self.response[0]
            if mf.is_write and not mf.is_atomic:
                self.response.pop(0)
                self._write_ack(mf)
            elif self.l1d is None or not self.l1d.waiting_for_fill(mf):
                if self.next_global is None:
                    self.next_global = self.response.pop(0)
            elif self.l1d.fill_port_free():
                self.response.pop(0)
                self.l1d.fill(mf, now)
        l1d = self.l1d
        if l1d is not None:
            mf = l1d.miss_queue_top()
            if mf is not None and core.cluster.can_inject(mf):
                l1d.pop_miss()
                core.cluster.inject(mf, now)
            l1d.cycle()
            if self.n_latq:
                self._latency_queue_cycle(now)
        d = self.dispatch
        if d is None:
            return
        sp = d.space
        if sp == "shared":
            if d.cycles > 1:
                d.cycles -= 1
                self.stats.add("gpgpu_stall_shd_mem[s_mem][bk_conf]")
                self.stats.add("gpgpu_n_stall_shd_mem")
                return
        elif sp in ("global", "local") and d.accessq:
            stall = self._memory_cycle(d, now)
            if d.accessq:
                self.stats.add("gpgpu_n_stall_shd_mem")
                self.stats.add(f"gpgpu_stall_shd_mem[gl_mem][{stall}]")
                return
        # the instruction leaves the dispatch register
        if sp == "shared" and (d.is_load or d.is_atomic) and d.executed:
            if not self.smem_pipe.can_enter(now):
                return
            self.smem_pipe.enter(now, d)
            self.dispatch = None
            return
        self.dispatch = None
        if (d.is_load or d.is_atomic) and sp in ("global", "local"):
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

    def _memory_cycle(self, d: WarpInst, now: int) -> str:
        """Send the instruction's accesses; returns the stall reason if some remain."""
        core = self.core
        q = d.accessq
        bypass = self.l1d is None or d.is_atomic or (self.skip_l1d and q and q[-1][1] == "global")
        if bypass:
            acc, space, is_store = q[-1]
            mf = core.cluster.gpu.new_fetch(acc, d, space, is_store, core, bypass=True)
            if not core.cluster.can_inject(mf):
                return "resource_stall"
            core.cluster.inject(mf, now)
            q.pop()
            if is_store and not d.is_atomic:
                d.warp.stores += 1
            self._count_access(space, is_store)
            return "coal_stall"
        for _ in range(self.l1_banks):
            if not q:
                return ""
            acc, space, is_store = q[-1]
            bank = (acc.addr >> self.bank_shift) % self.l1_banks
            lq = self.lat_q[bank]
            if not lq.can_enter(now):
                # a busy latency-queue slot is GPGPU-Sim's BK_CONF, printed as
                # [gl_mem][resource_stall] and counted as an L1 bank conflict
                self.stats.add("gpgpu_n_l1cache_bkconflict")
                return "resource_stall"
            mf = core.cluster.gpu.new_fetch(acc, d, space, is_store, core, bypass=False)
            lq.enter(now, mf)
            self.n_latq += 1
            q.pop()
            if is_store:
                d.warp.stores += 1
            self._count_access(space, is_store)
        return "coal_stall"

    def _count_access(self, space: str, is_store: bool) -> None:
        if space == "global":
            self.stats.add("gpgpu_n_mem_write_global" if is_store else "gpgpu_n_mem_read_global")
        else:
            self.stats.add("gpgpu_n_mem_write_local" if is_store else "gpgpu_n_mem_read_local")

    def _latency_queue_cycle(self, now: int) -> None:
        """``ldst_unit::L1_latency_queue_cycle``: the head of each bank queue accesses the L1D;
        on a reservation fail it stays (and the queue does not move)."""
        core = self.core
        l1d = self.l1d
        for lq in self.lat_q:
            mf = lq.head(now)
            if mf is None:
                continue
            status = l1d.access(mf, now)
            if status == "RESERVATION_FAIL":
                continue
            lq.pop(now)
            self.n_latq -= 1
            if mf.is_write:
                if self._ack_locally(mf, status):
                    core.store_ack(mf.warp_id)
            elif status == "HIT":
                self._read_done(mf.token)
            # a read miss comes back through the L1D's access_ready(); a write that went
            # down to L2 is acknowledged by L2

    def _write_ack(self, mf: Any) -> None:
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

    def _ack_locally(self, mf: Any, status: str) -> bool:
        """Is a store acknowledged by the L1D itself (``l1_latency_queue_cycle``)?  Write-back
        lines take a write hit, and a write miss that allocates locally (fetch-on-write or
        lazy-fetch-on-read, not write-through) is acknowledged at once; writes that the L1D
        forwards (write-through, local-wb-global-wt for global data) are acknowledged by L2."""
        l1 = self.l1d
        wp = l1.write_policy
        forwards = wp == "T" or (wp == "L" and mf.access_type == "GLOBAL_ACC_W") or wp == "E"
        if forwards:
            return False
        if status == "HIT":
            return True
        return l1.write_alloc in ("F", "L")

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
        for c in range(3):
            client = (c + self.wb_arb) % 3
            if client == 0:
                d = self.smem_pipe.head(self.now)
                if d is not None:
                    self.smem_pipe.pop(self.now)
                    if d.is_atomic:
                        core.atomic_done(d.warp)
                    self.next_wb = d
            elif client == 1:
                mf = self.next_global
                if mf is not None:
                    self.next_global = None
                    inst = mf.token
                    if mf.is_atomic:
                        core.atomic_done(inst.warp)
                    self.next_wb = inst
            else:
                l1d = self.l1d
                if l1d is not None and l1d.access_ready():
                    mf = l1d.next_access()
                    self.next_wb = mf.token
            if self.next_wb is not None:
                self.wb_arb = (client + 1) % 3
                return

    def dump(self) -> str:
        d = self.dispatch
        return (f"ldst dispatch={'-' if d is None else f'w{d.slot}@{d.pc} q={len(d.accessq)}'} smem={len(self.smem_pipe)} "
                f"latq={self.n_latq} resp={len(self.response)} pending={len(self.pending)}")


def sector_parts(size: int, sector_mask: int) -> int:
    """How many sector requests a sectored L2 makes of one request (the rule of GPGPU-Sim's
    ``breakdown_request_to_sector_requests``, as ``memory.partition`` applies it)."""
    if size == 32 and sector_mask.bit_count() == 1:
        return 1
    if size == 128:
        return sector_mask.bit_count() or 4
    if size == 64 and sector_mask in (0xF, 0):
        return 2
    return max(1, sector_mask.bit_count())
