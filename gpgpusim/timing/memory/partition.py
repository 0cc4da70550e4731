"""Memory partition: L2 sub-partitions (ROP delay, queues, L2 bank) around one DRAM channel.

GPGPU-Sim counterparts: ``memory_sub_partition`` and ``memory_partition_unit`` (l2cache.cc).
Checklist C149–C158, C160, C161, C164.

Request path (times in core cycles, as GPGPU-Sim stamps them with ``gpu_sim_cycle``)::

    icnt -> push (sector split for a sectored L2) -> ROP delay (-gpgpu_l2_rop_latency;
    texture skips it) -> icnt->L2 queue -> L2 (one access per L2 cycle, data port permitting)
    -> miss queue -> L2->DRAM queue -> credit arbitration between sub-partitions ->
    DRAM latency queue (-dram_latency) -> DRAM -> DRAM->L2 queue -> L2 fill -> MSHR drain
    -> L2->icnt queue -> reply network

Queue sizes are ``-gpgpu_dram_partition_queues i2$:$2d:d2$:$2i``; a ``fifo_pipeline`` is full
at ``max_len`` entries.  Atomics are timed only (the functional model already executed them).
"""

from __future__ import annotations

import sys
from collections import deque
from typing import Any

from ..cache import HIT, RESERVATION_FAIL, WRITE_ALLOCATE_SENT, WRITE_REQUEST_SENT, Cache
from ..core.units import popcount
from ..mem_fetch import SECTOR_BYTES, SECTORS_PER_LINE, WRITEBACK_TYPES, MemFetch, access_fetch, sector_fetch
from .dram import Dram
from .dram_parts import NEVER, DramTimingParams


class BoundedFifo:
    """``fifo_pipeline`` without bubbles: bounded FIFO (0 = unbounded; ``cap`` is the bound
    as a number, unbounded as ``sys.maxsize``)."""

    __slots__ = ("q", "max_len", "cap")

    def __init__(self, max_len: int) -> None:
        self.q: deque[MemFetch] = deque()
        self.max_len = max_len
        self.cap = max_len or sys.maxsize

    def full(self) -> bool:
        return len(self.q) >= self.cap

    def full_for(self, n: int) -> bool:
        """``is_avilable_size(n)``: True when ``n`` more entries would not fit."""
        return len(self.q) + n - 1 >= self.cap

    def push(self, mf: MemFetch) -> None:
        assert not self.full(), "push into a full queue"
        self.q.append(mf)

    def pop(self) -> MemFetch | None:
        return self.q.popleft() if self.q else None

    def top(self) -> MemFetch | None:
        return self.q[0] if self.q else None

    def __len__(self) -> int:
        return len(self.q)

    def __bool__(self) -> bool:
        return bool(self.q)


class SubPartition:
    """``memory_sub_partition``: one L2 bank with its queues."""

    wake_dram: Any = None     # set by the owning MemoryPartition

    def __init__(self, sp_id: int, cfg: Any, l2cfg: Any, set_index_addr: Any, stats: Any,
                 set_index_granule: int = 0, decode: Any = None) -> None:
        self.id = sp_id
        # ``AddressDecoder.apply``: fills a fetch's chip / bank / row / column from its address
        self.decode = decode
        q = cfg.get("gpgpu_dram_partition_queues")
        self.icnt_l2 = BoundedFifo(q.icnt_to_l2)
        self.l2_dram = BoundedFifo(q.l2_to_dram)
        self.dram_l2 = BoundedFifo(q.dram_to_l2)
        self.l2_icnt = BoundedFifo(q.l2_to_icnt)
        self.rop: deque[tuple[int, MemFetch]] = deque()
        self.rop_latency = int(cfg.get("gpgpu_l2_rop_latency"))
        self.texture_only = bool(cfg.get("gpgpu_cache:dl2_texture_only"))
        self.now = 0
        self.l2: Cache | None = None
        if l2cfg is not None:
            self.l2 = Cache(f"L2_bank_{sp_id:03d}", l2cfg, "L2", level=2, set_index_addr=set_index_addr,
                            set_index_granule=set_index_granule,
                            fetch_factory=self._make_fetch, now_fn=lambda: self.now)
        self.tracker: set[MemFetch] = set()
        self.memcpy_offset = 0
        self.stats = stats
        # asleep (not cycled by the memory system's L2 phase) while ``wake_at`` (a core
        # cycle: the ROP head's ready time, or NEVER) is in the future, and no request
        # arrives from the interconnect or the DRAM; ``sleep_from`` is the first L2 tick not
        # cycled (-1 while awake).  See MemorySystem.l2_cycle.
        self.wake_at = 0
        self.sleep_from = -1

    def _make_fetch(self, addr: int, access_type: str, sector_mask: int, byte_mask: int, size: int,
                    is_write: bool, like: MemFetch, time: int) -> MemFetch:
        """``partition_mf_allocator::alloc``: a fetch the L2 makes (a write-back of a dirty victim,
        a write-allocate read).  Its DRAM bank, row and column are those of its own address, as
        GPGPU-Sim's ``mem_fetch`` constructor decodes them (``addrdec_tlx``): a write-back goes
        to the victim's row, not to the row of the request that evicted it.  Built as
        ``MemFetch(addr, size, is_write, access_type, sector_mask=..., byte_mask=...,
        timestamp=time)`` builds it, through the keyword-free :func:`~..mem_fetch.access_fetch`."""
        mf = access_fetch(addr, size, is_write, access_type, sector_mask, byte_mask, -1, -1, -1, False, None, time)
        if self.decode is not None:
            self.decode(mf)
        else:
            mf.copy_tlx(like)
        return mf

    # ------------------------------------------------------------------ icnt side
    def full_for(self, n: int) -> bool:
        return self.icnt_l2.full_for(n)

    def push(self, mf: MemFetch, now: int) -> None:
        """``memory_sub_partition::push``: split into sectors for a sectored L2, start the ROP delay."""
        reqs = self._breakdown(mf, now) if (self.l2 is not None and self.l2.sectored) else [mf]
        for r in reqs:
            self.tracker.add(r)
            if r.access_type == "TEXTURE_ACC_R":
                self.icnt_l2.push(r)
                r.set_status("IN_PARTITION_ICNT_TO_L2_QUEUE", now)
            else:
                self.rop.append((now + self.rop_latency, r))
                r.set_status("IN_PARTITION_ROP_DELAY", now)

    def _breakdown(self, mf: MemFetch, now: int) -> list[MemFetch]:
        """``breakdown_request_to_sector_requests``."""
        smask = mf.sector_mask
        if mf.size == SECTOR_BYTES and popcount(smask) == 1:
            return [mf]
        if mf.size == 128:
            # one request per sector the access touches (its sector mask); a mask-less
            # request stands for the whole line.  Knowing difference: GPGPU-Sim splits every
            # 128-byte request into all four sectors.  The two agree whenever all four sectors
            # are used, which is every 128-byte request from arch 40 on (global accesses and
            # atomics coalesce into 32-byte sectors there); they differ only for a 128-byte
            # transaction with an unused sector under the 32/64/128-byte coalescing of
            # Fermi/Kepler configs.
            idxs = [i for i in range(SECTORS_PER_LINE) if smask >> i & 1] or list(range(SECTORS_PER_LINE))
            base = mf.addr
            addrs = [base + SECTOR_BYTES * i for i in idxs]
        elif mf.size == 64 and (smask == 0xF or smask == 0):
            start = 0 if mf.addr % 128 == 0 else 2
            idxs = [start, start + 1]
            addrs = [mf.addr, mf.addr]
        else:
            idxs = [i for i in range(SECTORS_PER_LINE) if smask >> i & 1]
            addrs = [mf.addr + SECTOR_BYTES * i for i in idxs]
        return [sector_fetch(mf, a, i, now) for i, a in zip(idxs, addrs, strict=True)]

    def top(self) -> MemFetch | None:
        """``memory_sub_partition::top``: write-backs at the head are consumed silently."""
        mf = self.l2_icnt.top()
        if mf is not None and mf.access_type in WRITEBACK_TYPES:
            self.l2_icnt.pop()
            self.tracker.discard(mf)
            return None
        return mf

    def pop(self) -> MemFetch | None:
        mf = self.l2_icnt.pop()
        if mf is None:
            return None
        self.tracker.discard(mf)
        if mf.access_type in WRITEBACK_TYPES:
            return None
        return mf

    def set_done(self, mf: MemFetch) -> None:
        self.tracker.discard(mf)

    # ------------------------------------------------------------------ L2 cycle
    def cache_cycle(self, now: int) -> bool:
        """``memory_sub_partition::cache_cycle``; returns whether anything could have moved."""
        self.now = now
        l2 = self.l2
        t = now + self.memcpy_offset
        mf: MemFetch | None
        l2_icnt = self.l2_icnt
        # 1. L2 MSHR responses
        if l2 is not None and l2.access_ready() and len(l2_icnt.q) < l2_icnt.cap:
            mf = l2.next_access()
            if mf.access_type != "L2_WR_ALLOC_R":
                mf.is_reply = True
                mf.status = "IN_PARTITION_L2_TO_ICNT_QUEUE"
                mf.status_cycle = now
                self.l2_icnt.push(mf)
            else:
                if l2.wa.answers_on_fill and mf.original_wr is not None:
                    o = mf.original_wr
                    o.is_reply = True
                    o.status = "IN_PARTITION_L2_TO_ICNT_QUEUE"
                    o.status_cycle = now
                    self.l2_icnt.push(o)
                self.tracker.discard(mf)
        # 2. DRAM -> L2 (fill) or -> icnt
        dq = self.dram_l2.q
        if dq:
            mf = dq[0]
            # a reply to a request this L2 sent down fills it (when its fill port is free)
            if l2 is not None and l2.waiting_for_fill(mf):
                if l2.fill_port_free():
                    mf.status = "IN_PARTITION_L2_FILL_QUEUE"
                    mf.status_cycle = now
                    l2.fill(mf, t)
                    dq.popleft()
            elif len(l2_icnt.q) < l2_icnt.cap:
                l2_icnt.push(mf)
                dq.popleft()
        # 3. L2 misses to the L2->DRAM queue (baseline_cache::cycle with L2interface::full/push:
        # the head of the miss queue moves when the queue has room)
        if l2 is not None:
            if not l2.miss_queue_empty() and len(self.l2_dram.q) < self.l2_dram.cap:
                mf = l2.pop_miss()
                assert mf is not None
                mf.status = "IN_PARTITION_L2_TO_DRAM_QUEUE"
                mf.status_cycle = now
                self.l2_dram.push(mf)
                if self.wake_dram is not None:
                    self.wake_dram()
            l2.cycle()          # (its miss queue served above): port bandwidth sample and replenish
        # 4. a new access
        if len(self.l2_dram.q) < self.l2_dram.cap:
            q = self.icnt_l2.q
            if q:
                mf = q[0]
                if l2 is not None and (not self.texture_only or mf.access_type == "TEXTURE_ACC_R"):
                    if len(l2_icnt.q) < l2_icnt.cap and l2.data_port_free():
                        events: list[str] = []
                        status = l2.access(mf, t, events)
                        write_sent = WRITE_REQUEST_SENT in events
                        accepted = False
                        if status == HIT:
                            if not write_sent:
                                if mf.access_type == "L1_WRBK_ACC":
                                    self.tracker.discard(mf)
                                else:
                                    mf.is_reply = True
                                    mf.set_status("IN_PARTITION_L2_TO_ICNT_QUEUE", now)
                                    self.l2_icnt.push(mf)
                            accepted = True
                        elif status != RESERVATION_FAIL:
                            if (mf.is_write and l2.wa.writes_locally
                                    and WRITE_ALLOCATE_SENT not in events):
                                if mf.access_type == "L1_WRBK_ACC":
                                    self.tracker.discard(mf)
                                elif l2.wp.write_back:
                                    mf.is_reply = True
                                    mf.set_status("IN_PARTITION_L2_TO_ICNT_QUEUE", now)
                                    self.l2_icnt.push(mf)
                            accepted = True
                        if accepted:
                            self.icnt_l2.pop()
                else:
                    mf.status = "IN_PARTITION_L2_TO_DRAM_QUEUE"
                    mf.status_cycle = now
                    self.l2_dram.push(mf)
                    self.icnt_l2.pop()
                    if self.wake_dram is not None:
                        self.wake_dram()
        else:
            self.stats.add("L2_dram_queue_full")
        # 5. ROP delay -> icnt->L2
        rop = self.rop
        if rop and now >= rop[0][0] and len(self.icnt_l2.q) < self.icnt_l2.cap:
            mf = rop.popleft()[1]
            self.icnt_l2.push(mf)
            mf.status = "IN_PARTITION_ICNT_TO_L2_QUEUE"
            mf.status_cycle = now
        return True

    def busy(self) -> bool:
        """``memory_sub_partition::busy``: the request tracker (requests that came from the
        interconnect and have not left) is not empty."""
        return bool(self.tracker)

    def idle(self) -> bool:
        """Nothing at all inside (stricter than :meth:`busy`: also L2-made write-backs)."""
        l2 = self.l2
        return not (self.tracker or self.rop or self.icnt_l2 or self.l2_dram or self.dram_l2 or self.l2_icnt
                    or (l2 is not None and l2.busy()))

    def force_l2_tag_update(self, addr: int, now: int, sector_mask: int) -> None:
        if self.l2 is not None:
            self.l2.force_tag_access(addr, now + self.memcpy_offset, sector_mask)
        self.memcpy_offset += 1

    def dump_state(self) -> str:
        out = [f"Memory Sub Partition {self.id}: tracker={len(self.tracker)} rop={len(self.rop)} "
               f"icnt_L2={len(self.icnt_l2)} L2_dram={len(self.l2_dram)} dram_L2={len(self.dram_l2)} "
               f"L2_icnt={len(self.l2_icnt)}"]
        if self.rop:
            out.append("  ROP delay: " + ", ".join(f"{mf!r} (ready {t})" for t, mf in self.rop))
        for name, q in (("icnt->L2", self.icnt_l2), ("L2->DRAM", self.l2_dram), ("DRAM->L2", self.dram_l2),
                        ("L2->icnt", self.l2_icnt)):
            if q:
                out.append(f"  {name}: " + ", ".join(repr(mf) for mf in q.q))
        if self.l2 is not None:
            out.append(self.l2.dump_state())
        return "\n".join(out)


class MemoryPartition:
    """``memory_partition_unit``: sub-partitions sharing one DRAM channel, with the DRAM latency
    queue and credit-based arbitration (``arbitration_metadata``)."""

    def __init__(self, pid: int, cfg: Any, subs: list[SubPartition], params: DramTimingParams) -> None:
        self.id = pid
        self.subs = subs
        self.n_sub = len(subs)
        self.dram = Dram(pid, params, on_write_done=self._write_done)
        self.dram_latency = int(cfg.get("dram_latency"))
        self.latency_q: deque[tuple[int, MemFetch]] = deque()
        sq = params.sched_queue
        rq = params.return_queue
        self.private_limit = 1
        self.shared_limit = 0 if (sq == 0 or rq == 0) else sq + rq - (self.n_sub - 1)
        self.private = [0] * self.n_sub
        self.shared = 0
        self.last_borrower = self.n_sub - 1
        #: the sub-partitions in round-robin order after each possible last borrower
        self._rr = [[(p + last + 1) % self.n_sub for p in range(self.n_sub)] for last in range(self.n_sub)]
        self.base_sp = pid * self.n_sub
        # a DRAM channel with nothing to do is not cycled: it sleeps from DRAM tick
        # ``sleep_from`` on and its idle cycles are added in bulk when work arrives (exact:
        # an idle cycle only bumps counters, see Dram.idle_cycles).  Work arrives from a
        # sub-partition's L2->DRAM queue (:meth:`wake`) or, when the channel went to sleep
        # with requests in its latency queue, at core cycle ``wake_at`` when the head's
        # ``-dram_latency`` has passed (:meth:`resume`, called by the memory system's DRAM
        # phase); ``NEVER`` when nothing is timed
        self.asleep = False
        self.sleep_from = 0
        self.wake_at = NEVER
        self.ticks: list[int] = [0]        # the memory system's DRAM tick counter (shared)
        for sp in subs:
            sp.wake_dram = self.wake

    def wake(self) -> None:
        """A sub-partition pushed into its L2->DRAM queue (in the L2 phase, after this DRAM
        tick): the channel cycles again from the next DRAM tick."""
        if self.asleep:
            self.settle()
            self.asleep = False

    def resume(self) -> None:
        """The DRAM tick the latency queue's head becomes ready (``wake_at``), before that
        tick's :meth:`dram_cycle`: the ticks slept so far are idle cycles, this one is not."""
        missed = self.ticks[0] - self.sleep_from
        if missed > 0:
            self.dram.idle_cycles(missed)
        self.asleep = False

    def settle(self) -> None:
        """Add the idle cycles slept through so far."""
        if self.asleep:
            missed = self.ticks[0] - self.sleep_from + 1
            if missed > 0:
                self.dram.idle_cycles(missed)
            self.sleep_from = self.ticks[0] + 1

    def _has_credit(self, s: int) -> bool:
        return self.private[s] < self.private_limit or self.shared_limit == 0 or self.shared < self.shared_limit

    def _borrow(self, s: int) -> None:
        if self.private[s] < self.private_limit:
            self.private[s] += 1
        else:
            self.shared += 1
        self.last_borrower = s

    def _return(self, s: int) -> None:
        if self.private[s] > 0:
            self.private[s] -= 1
        else:
            self.shared -= 1

    def _write_done(self, mf: MemFetch) -> None:
        """``memory_partition_unit::set_done`` for a completed write-back."""
        s = mf.sub_partition - self.base_sp
        self._return(s)
        self.subs[s].set_done(mf)

    def dram_cycle(self, now: int) -> None:
        """``memory_partition_unit::dram_cycle``: the return queue's head to its sub-partition's
        DRAM->L2 queue, the channel's cycle, one request from the sub-partitions (round-robin
        after the last borrower, with a credit) into the latency queue, the latency queue's
        ready head into the channel.

        A cycle in which the return queue is empty, the channel :meth:`~.dram.Dram.quiet`, no
        sub-partition offers a request and the latency queue is empty or its head not ready
        (core cycle ``now`` before the head's ready time: the queue is in ready order, every
        entry waiting the same ``-dram_latency``) moves nothing and only counts an idle
        channel cycle; the channel then sleeps (see ``asleep``) until a sub-partition offers a
        request or, with a waiting latency queue, until its head's ready cycle (C152, C156)."""
        dram = self.dram
        lq = self.latency_q
        rq = dram.returnq.q
        subs = self.subs
        if not rq and (not lq or now < lq[0][0]) and dram.n_cmd >= dram.quiet_until and dram.quiet():
            for sub in subs:
                if sub.l2_dram.q:
                    break
            else:
                dram.idle_cycles(1)
                self.asleep = True
                self.sleep_from = self.ticks[0] + 1
                self.wake_at = lq[0][0] if lq else NEVER
                return
        if rq:
            mf = rq[0]
            s = mf.sub_partition - self.base_sp
            sub = subs[s]
            if len(sub.dram_l2.q) < sub.dram_l2.cap:
                if mf.access_type == "L1_WRBK_ACC":
                    sub.set_done(mf)
                else:
                    sub.dram_l2.push(mf)
                    mf.status = "IN_PARTITION_DRAM_TO_L2_QUEUE"
                    mf.status_cycle = now
                    self._return(s)
                dram.return_pop()
        dram.cycle(now)
        # one request from the sub-partitions: the first in round-robin order with one
        # waiting, room in its DRAM->L2 queue and a credit (_has_credit, inline) goes into
        # the latency queue unless the channel is full for it
        for s in self._rr[self.last_borrower]:
            sub = subs[s]
            q = sub.l2_dram.q
            if q and len(sub.dram_l2.q) < sub.dram_l2.cap and (
                    self.private[s] < self.private_limit or self.shared_limit == 0
                    or self.shared < self.shared_limit):
                top = q[0]
                if dram.full(top.is_write):
                    break
                q.popleft()
                lq.append((now + self.dram_latency, top))
                top.status = "IN_PARTITION_DRAM_LATENCY_QUEUE"
                top.status_cycle = now
                self._borrow(s)
                break
        if lq:
            ready, mf = lq[0]
            if now >= ready and not dram.full(mf.is_write):
                lq.popleft()
                dram.push(mf, now)

    def busy(self) -> bool:
        return any(s.busy() for s in self.subs)

    def idle(self) -> bool:
        """Nothing in the latency queue, the sub-partitions or the DRAM channel that a cycle
        would move (a sleeping channel is quiet by construction)."""
        if self.latency_q or not all(s.idle() for s in self.subs):
            return False
        return self.asleep or not self.dram.busy()

    def dump_state(self) -> str:
        out = [f"Memory Partition {self.id}:"] + [s.dump_state() for s in self.subs]
        out.append(f"In Dram Latency Queue (total = {len(self.latency_q)})")
        out += [f"Ready @ {r} - {mf!r}" for r, mf in self.latency_q]
        out.append(self.dram.dump_state())
        return "\n".join(out)
