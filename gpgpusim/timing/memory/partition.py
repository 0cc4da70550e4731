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

from typing import Any

from ..cache import HIT, RESERVATION_FAIL, WRITE_ALLOCATE_SENT, WRITE_REQUEST_SENT, Cache
from ..core.units import popcount
from ..kit import NEVER, Clock, Component, Queue
from ..mem_fetch import SECTOR_BYTES, SECTORS_PER_LINE, WRITEBACK_TYPES, MemFetch, access_fetch, sector_fetch
from .dram import Dram
from .dram_parts import DramTimingParams


class SubPartition(Component):
    """``memory_sub_partition``: one L2 bank with its queues, a component of the L2 clock.

    Ports: ``icnt_l2`` (requests, consumed here: a push wakes it), ``dram_l2`` (DRAM replies,
    consumed here), ``l2_dram`` (consumed by the DRAM channel, :meth:`connect_dram`) and
    ``l2_icnt`` (replies, consumed by the memory system's reply phase through :meth:`top` /
    :meth:`pop`).  ``rop`` is the ROP delay (a delay queue of its own).

    It sleeps (:meth:`try_sleep`) while it only waits for the ROP head's ready cycle
    (``wake_at``) or for DRAM; the L2 port cycles of the ticks it sleeps through are added by
    :meth:`idle_for` (its ports were free)."""

    def __init__(self, sp_id: int, cfg: Any, l2cfg: Any, set_index_addr: Any, stats: Any,
                 set_index_granule: int = 0, decode: Any = None, clock: Clock | None = None,
                 set_memo: dict[int, int] | None = None) -> None:
        super().__init__(clock if clock is not None else Clock())
        self.id = sp_id
        # ``AddressDecoder.apply``: fills a fetch's chip / bank / row / column from its address
        self.decode = decode
        q = cfg.get("gpgpu_dram_partition_queues")
        self.icnt_l2: Queue[MemFetch] = Queue(q.icnt_to_l2, consumer=self)
        self.l2_dram: Queue[MemFetch] = Queue(q.l2_to_dram)
        self.dram_l2: Queue[MemFetch] = Queue(q.dram_to_l2, consumer=self)
        self.l2_icnt: Queue[MemFetch] = Queue(q.l2_to_icnt)
        self.rop: Queue[MemFetch] = Queue(0, timed=True)
        self.rop_latency = int(cfg.get("gpgpu_l2_rop_latency"))
        self.texture_only = bool(cfg.get("gpgpu_cache:dl2_texture_only"))
        self.now = 0
        self.l2: Cache | None = None
        if l2cfg is not None:
            self.l2 = Cache(f"L2_bank_{sp_id:03d}", l2cfg, "L2", level=2, set_index_addr=set_index_addr,
                            set_index_granule=set_index_granule, set_memo=set_memo,
                            fetch_factory=self._make_fetch, now_fn=lambda: self.now)
        #: ``m_request_tracker``'s size: requests from the interconnect that have not left
        #: (each marks itself ``tracked``; a count instead of a set of up to hundreds of
        #: requests per sub-partition)
        self.n_tracked = 0
        self.memcpy_offset = 0
        self.stats = stats

    def connect_dram(self, channel: Component) -> None:
        """``channel`` consumes the L2->DRAM queue (a push wakes it)."""
        self.l2_dram.consumer = channel

    def idle_for(self, n: int) -> None:
        """``n`` L2 ticks slept through: L2 port cycles with both ports free."""
        if self.l2 is not None:
            self.l2.stats.port_cycles += n

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
    def can_take(self, n: int) -> bool:
        """Room for ``n`` requests in the icnt->L2 queue (a request splits into up to 4)."""
        return self.icnt_l2.can_push(n)

    def push(self, mf: MemFetch, now: int) -> None:
        """``memory_sub_partition::push``: split into sectors for a sectored L2, start the ROP delay."""
        reqs = self._breakdown(mf, now) if (self.l2 is not None and self.l2.sectored) else [mf]
        for r in reqs:
            if not r.tracked:
                r.tracked = True
                self.n_tracked += 1
            if r.access_type == "TEXTURE_ACC_R":
                self.icnt_l2.push(r)
                r.set_status("IN_PARTITION_ICNT_TO_L2_QUEUE", now)
            else:
                self.rop.push_at(r, now + self.rop_latency)
                r.set_status("IN_PARTITION_ROP_DELAY", now)
        if self.asleep:
            # only ROP entries arrived: it waits on, for the ROP head
            self.wake_at = self.rop.head_ready()

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
        mf = self.l2_icnt.head()
        if mf is not None and mf.access_type in WRITEBACK_TYPES:
            self.l2_icnt.pop()
            self._untrack(mf)
            return None
        return mf

    def pop(self) -> MemFetch | None:
        mf = self.l2_icnt.pop()
        if mf is None:
            return None
        self._untrack(mf)
        if mf.access_type in WRITEBACK_TYPES:
            return None
        return mf

    def set_done(self, mf: MemFetch) -> None:
        self._untrack(mf)

    def _untrack(self, mf: MemFetch) -> None:
        """The request leaves the tracker (nothing when it is not in it)."""
        if mf.tracked:
            mf.tracked = False
            self.n_tracked -= 1

    # ------------------------------------------------------------------ L2 cycle
    def cycle(self, now: int) -> bool:
        """``memory_sub_partition::cache_cycle``; returns whether anything could have moved."""
        self.now = now
        l2 = self.l2
        t = now + self.memcpy_offset
        mf: MemFetch | None
        l2_icnt = self.l2_icnt
        # 1. L2 MSHR responses
        if l2 is not None and l2.access_ready() and not l2_icnt.full():
            mf = l2.next_access()
            if mf.access_type != "L2_WR_ALLOC_R":
                mf.is_reply = True
                mf.status = "IN_PARTITION_L2_TO_ICNT_QUEUE"
                mf.status_cycle = now
                l2_icnt.push(mf)
            else:
                if l2.wa.answers_on_fill and mf.original_wr is not None:
                    o = mf.original_wr
                    o.is_reply = True
                    o.status = "IN_PARTITION_L2_TO_ICNT_QUEUE"
                    o.status_cycle = now
                    l2_icnt.push(o)
                self._untrack(mf)
        # 2. DRAM -> L2 (fill) or -> icnt
        dram_l2 = self.dram_l2
        mf = dram_l2.head()
        if mf is not None:
            # a reply to a request this L2 sent down fills it (when its fill port is free)
            if l2 is not None and l2.waiting_for_fill(mf):
                if l2.fill_port_free():
                    mf.status = "IN_PARTITION_L2_FILL_QUEUE"
                    mf.status_cycle = now
                    l2.fill(mf, t)
                    dram_l2.pop()
            elif not l2_icnt.full():
                l2_icnt.push(mf)
                dram_l2.pop()
        # 3. L2 misses to the L2->DRAM queue (baseline_cache::cycle with L2interface::full/push:
        # the head of the miss queue moves when the queue has room)
        l2_dram = self.l2_dram
        if l2 is not None:
            if not l2.miss_queue_empty() and not l2_dram.full():
                mf = l2.pop_miss()
                assert mf is not None
                mf.status = "IN_PARTITION_L2_TO_DRAM_QUEUE"
                mf.status_cycle = now
                l2_dram.push(mf)
            l2.cycle()          # (its miss queue served above): port bandwidth sample and replenish
        # 4. a new access
        if not l2_dram.full():
            mf = self.icnt_l2.head()
            if mf is not None:
                if l2 is not None and (not self.texture_only or mf.access_type == "TEXTURE_ACC_R"):
                    if not l2_icnt.full() and l2.data_port_free():
                        events: list[str] = []
                        status = l2.access(mf, t, events)
                        write_sent = WRITE_REQUEST_SENT in events
                        accepted = False
                        if status == HIT:
                            if not write_sent:
                                if mf.access_type == "L1_WRBK_ACC":
                                    self._untrack(mf)
                                else:
                                    mf.is_reply = True
                                    mf.set_status("IN_PARTITION_L2_TO_ICNT_QUEUE", now)
                                    l2_icnt.push(mf)
                            accepted = True
                        elif status != RESERVATION_FAIL:
                            if (mf.is_write and l2.wa.writes_locally
                                    and WRITE_ALLOCATE_SENT not in events):
                                if mf.access_type == "L1_WRBK_ACC":
                                    self._untrack(mf)
                                elif l2.wp.write_back:
                                    mf.is_reply = True
                                    mf.set_status("IN_PARTITION_L2_TO_ICNT_QUEUE", now)
                                    l2_icnt.push(mf)
                            accepted = True
                        if accepted:
                            self.icnt_l2.pop()
                else:
                    mf.status = "IN_PARTITION_L2_TO_DRAM_QUEUE"
                    mf.status_cycle = now
                    l2_dram.push(mf)
                    self.icnt_l2.pop()
        else:
            self.stats.add("L2_dram_queue_full")
        # 5. ROP delay -> icnt->L2
        rop = self.rop
        if rop.ready(now) and not self.icnt_l2.full():
            mf = rop.pop()
            assert mf is not None
            self.icnt_l2.push(mf)
            mf.status = "IN_PARTITION_ICNT_TO_L2_QUEUE"
            mf.status_cycle = now
        return True

    def busy(self) -> bool:
        """``memory_sub_partition::busy``: the request tracker (requests that came from the
        interconnect and have not left) is not empty."""
        return self.n_tracked > 0

    def idle(self) -> bool:
        """Nothing at all inside (stricter than :meth:`busy`: also L2-made write-backs)."""
        l2 = self.l2
        return not (self.n_tracked or not self.rop.empty() or not self.icnt_l2.empty() or not self.l2_dram.empty()
                    or not self.dram_l2.empty() or not self.l2_icnt.empty() or (l2 is not None and l2.busy()))

    def drained(self) -> bool:
        """Nothing inside and both L2 ports free: off the L2 phase's list until a request
        arrives (see MemorySystem.l2_cycle)."""
        l2 = self.l2
        return (not self.n_tracked and l2 is not None and self.idle() and l2.data_port_free()
                and l2.fill_port_free())

    def has_reply(self) -> bool:
        return not self.l2_icnt.empty()

    def has_dram_request(self) -> bool:
        return not self.l2_dram.empty()

    def try_sleep(self) -> bool:
        """After this tick's cycle, with no request for it on the network: sleep when the
        icnt->L2, DRAM->L2 and L2->icnt queues and the L2's miss queue and MSHR-ready list are
        empty, both L2 ports free and the L2->DRAM queue not full, with a request in the ROP
        delay or an L2 MSHR waiting for DRAM.  Its cycle would then move nothing and count only
        the L2 port cycle until the ROP head's ready cycle (``wake_at``), a request (a push into
        ``icnt_l2``) or a DRAM reply (a push into ``dram_l2``); nothing else changes those
        queues."""
        l2 = self.l2
        if (l2 is not None and l2.waits_for_fills() and self.icnt_l2.empty() and self.dram_l2.empty()
                and self.l2_icnt.empty() and (not self.rop.empty() or l2.has_pending_misses())
                and not self.l2_dram.full()):
            self.sleep(self.rop.head_ready())
            return True
        return False

    def next_event(self, now: int) -> int:
        """The earliest core cycle it may move something: ``now`` with anything queued or in
        the L2, the ROP head's ready cycle when only that waits, else NEVER."""
        l2 = self.l2
        if (not self.icnt_l2.empty() or not self.l2_dram.empty() or not self.dram_l2.empty()
                or not self.l2_icnt.empty() or (l2 is not None and l2.busy())):
            return now
        return self.rop.head_ready()

    def force_l2_tag_update(self, addr: int, now: int, sector_mask: int) -> None:
        if self.l2 is not None:
            self.l2.force_tag_access(addr, now + self.memcpy_offset, sector_mask)
        self.memcpy_offset += 1

    def dump_state(self, out: list[str]) -> None:
        out.append(f"Memory Sub Partition {self.id}: tracker={self.n_tracked} rop={len(self.rop)} "
                   f"icnt_L2={len(self.icnt_l2)} L2_dram={len(self.l2_dram)} dram_L2={len(self.dram_l2)} "
                   f"L2_icnt={len(self.l2_icnt)}")
        if self.asleep:
            out.append("  asleep until a request or DRAM reply arrives" +
                       (f" or cycle {self.wake_at}" if self.wake_at < NEVER else ""))
        if not self.rop.empty():
            out.append("  ROP delay: " + ", ".join(f"{mf!r} (ready {t})" for t, mf in self.rop.timed_entries()))
        for name, q in (("icnt->L2", self.icnt_l2), ("L2->DRAM", self.l2_dram), ("DRAM->L2", self.dram_l2),
                        ("L2->icnt", self.l2_icnt)):
            if not q.empty():
                out.append(f"  {name}: " + ", ".join(repr(mf) for mf in q.entries()))
        if self.l2 is not None:
            out.append(self.l2.dump_state())


class MemoryPartition(Component):
    """``memory_partition_unit``: sub-partitions sharing one DRAM channel, with the DRAM latency
    queue and credit-based arbitration (``arbitration_metadata``); a component of the DRAM
    clock.

    A channel with nothing to do sleeps (:meth:`cycle`): the ticks it is not cycled are idle
    DRAM cycles, added by :meth:`idle_for` (exact: an idle cycle only bumps counters, see
    Dram.idle_cycles).  It runs again from the tick after a sub-partition pushes into its
    L2->DRAM queue (the channel consumes those queues, so the push wakes it) or, when it went
    to sleep with requests in its latency queue, in the tick of core cycle ``wake_at`` when
    the head's ``-dram_latency`` has passed."""

    def __init__(self, pid: int, cfg: Any, subs: list[SubPartition], params: DramTimingParams,
                 clock: Clock | None = None) -> None:
        super().__init__(clock if clock is not None else Clock())
        self.id = pid
        self.subs = subs
        self.n_sub = len(subs)
        self.dram = Dram(pid, params, on_write_done=self._write_done)
        self.dram_latency = int(cfg.get("dram_latency"))
        self.latency_q: Queue[MemFetch] = Queue(0, timed=True)
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
        for sp in subs:
            sp.connect_dram(self)

    def idle_for(self, n: int) -> None:
        self.dram.idle_cycles(n)

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

    def cycle(self, now: int) -> bool:
        """``memory_partition_unit::dram_cycle``: the return queue's head to its sub-partition's
        DRAM->L2 queue, the channel's cycle, one request from the sub-partitions (round-robin
        after the last borrower, with a credit) into the latency queue, the latency queue's
        ready head into the channel.

        A cycle in which the channel :meth:`~.dram.Dram.quiet` (its return queue empty), no
        sub-partition offers a request and the latency queue is empty or its head not ready
        (core cycle ``now`` before the head's ready time: the queue is in ready order, every
        entry waiting the same ``-dram_latency``) moves nothing and only counts an idle
        channel cycle; the channel then sleeps until a sub-partition offers a request or, with
        a waiting latency queue, until its head's ready cycle (C152, C156).  Returns False
        then."""
        dram = self.dram
        lq = self.latency_q
        subs = self.subs
        if not lq.ready(now) and dram.quiet():
            for sub in subs:
                if sub.has_dram_request():
                    break
            else:
                dram.idle_cycles(1)
                self.sleep(lq.head_ready())
                return False
        mf = dram.return_top()
        if mf is not None:
            s = mf.sub_partition - self.base_sp
            sub = subs[s]
            if not sub.dram_l2.full():
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
            q = sub.l2_dram
            top = q.head()
            if top is not None and not sub.dram_l2.full() and (
                    self.private[s] < self.private_limit or self.shared_limit == 0
                    or self.shared < self.shared_limit):
                if dram.full(top.is_write):
                    break
                q.pop()
                lq.push_at(top, now + self.dram_latency)
                top.status = "IN_PARTITION_DRAM_LATENCY_QUEUE"
                top.status_cycle = now
                self._borrow(s)
                break
        if lq.ready(now):
            mf = lq.head()
            assert mf is not None
            if not dram.full(mf.is_write):
                lq.pop()
                dram.push(mf, now)
        return True

    def busy(self) -> bool:
        return any(s.busy() for s in self.subs)

    def idle(self) -> bool:
        """Nothing in the latency queue, the sub-partitions or the DRAM channel that a cycle
        would move (a sleeping channel is quiet by construction)."""
        if not self.latency_q.empty() or not all(s.idle() for s in self.subs):
            return False
        return self.asleep or not self.dram.busy()

    def latency_empty(self) -> bool:
        return self.latency_q.empty()

    def latency_entries(self) -> list[tuple[int, MemFetch]]:
        """``(ready cycle, fetch)`` for each request in the DRAM latency queue, head first."""
        return self.latency_q.timed_entries()

    def next_event(self, now: int) -> int:
        """The earliest core cycle its channel or sub-partitions may move something (``now``
        when that is not known to be later; NEVER when nothing waits)."""
        if not self.dram.quiet():
            return now
        t = self.latency_q.head_ready()
        for s in self.subs:
            e = s.next_event(now)
            if e == now:
                return now
            t = min(t, e)
        return t

    def dump_state(self, out: list[str]) -> None:
        out.append(f"Memory Partition {self.id}:")
        for s in self.subs:
            s.dump_state(out)
        if self.asleep:
            out.append("DRAM channel asleep until an L2->DRAM request arrives" +
                       (f" or cycle {self.wake_at}" if self.wake_at < NEVER else ""))
        out.append(f"In Dram Latency Queue (total = {len(self.latency_q)})")
        out += [f"Ready @ {r} - {mf!r}" for r, mf in self.latency_q.timed_entries()]
        out.append(self.dram.dump_state())
