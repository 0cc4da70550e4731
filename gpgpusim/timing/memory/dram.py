"""DRAM channel: banks, timing constraints, the command loop.

GPGPU-Sim counterparts: ``dram_t`` (dram.cc), the timing derivations of ``memory_config::init``.
The request schedulers (``-gpgpu_dram_scheduler``: FIFO, FR-FCFS) are the plug-ins of
:mod:`.dram_sched`.  Checklist C166–C172, C175, C176, C178.

One :meth:`Dram.cycle` is one DRAM command-clock cycle, in GPGPU-Sim's order:

1. the read/write data pipeline ``rwq`` (a ``fifo_pipeline`` with minimum length CL, or WL after
   a switch to writes) shifts by one unless the return queue is full; a request whose last atom
   leaves it is complete: reads go to the return queue, write-backs are done;
2. the scheduler (:mod:`.dram_sched`) moves one request to an idle bank (FR-FCFS: open-row hits
   first, then oldest; FIFO: head of the 2-entry queue if its bank is free);
3. at most one column command (read/write) and one row command (activate/precharge) with the
   dual bus interface, else one command in all, scanning banks round-robin from ``prio``;
4. every constraint counter counts down to zero (``DEC2ZERO``; here each counter is the cycle it
   reaches zero, so nothing counts down, see :class:`Dram`).

A request occupies ``ceil(size / atom)`` column commands, ``atom = BL * busW * chips`` bytes
(the timing parameters, bank and request types and the peak bandwidth: ``dram_parts.py``; the
reported statistics and the state dump: ``dram_report.py``).

Statistics (``dram_t::print``): the per-cycle row-buffer / bank-parallelism / bus-waste counters
GPGPU-Sim collects in ``dram_t::cycle`` are kept from bank bit masks updated only when a bank's
request or open row changes (the parallelism samples, constant between such changes, are added
per run of cycles), a cycle in which no bank could issue a command skips the bank scan, so a
busy cycle pays a few integer operations and an idle (sleeping) cycle nothing but the bulk
additions of :meth:`Dram.idle_cycles`.  Not modelled: refresh (as
GPGPU-Sim: ``n_ref_event`` stays 0), bank-index hashing other than ``-dram_bnk_indexing_policy 1``.
"""

from __future__ import annotations

from typing import Any


from ..core.units import popcount
from ..kit import NEVER, Queue
from ..mem_fetch import MemFetch, WRITEBACK_TYPES
from .dram_parts import BANK_ACTIVE, BANK_IDLE, Bank, DramReq, DramTimingParams, FifoPipeline, logb2
from .dram_report import channel_stats, dump_dram
from .dram_sched import make_scheduler

class Dram:
    """One DRAM channel (``dram_t``).  ``push`` requests (after the partition's latency queue),
    ``cycle`` once per DRAM clock, take replies from ``return_top``/``return_pop``; completed
    write-backs are handed to ``on_write_done``.

    Bank bit masks kept for the statistics (bit ``j`` = bank ``j``): ``pend_mask`` banks
    holding a request (``bk[j]->mrq``); ``rd_open`` / ``wr_open`` those whose request is a
    read / write to the bank's open row (GPGPU-Sim's "rw" banks: a column command may follow).
    They change only when a bank takes or finishes a request or activates a row (:meth:`_track`).

    Constraint counters.  GPGPU-Sim sets a counter (``CCDc = tCCD`` ...) when a command issues
    and counts every counter down to zero at the end of every cycle (``DEC2ZERO``); a counter
    set to ``v`` in cycle ``c`` is non-zero exactly in cycles ``c`` .. ``c + v - 1``.  Here each
    is kept as that end, ``*_until = c + v`` in channel cycles (``n_cmd``, which every cycle and
    every bulk idle cycle advances), so "``XXc`` is non-zero" reads ``XX_until > n_cmd`` and no
    cycle counts anything down.  The values are taken as 32-bit unsigned, as GPGPU-Sim's
    ``unsigned`` counters hold them (a negative ``tRCDWR`` blocks for 2^32 cycles there too).
    Each counter is only ever set to its own constant, so a new end is never earlier than the
    one it replaces and ``active_until`` / ``quiet_until`` (the latest end of the counters that
    keep a cycle active, and of all) and a bank's ``PRE_until`` / ``ACT_until`` are running
    maxima.

    Issue readiness.  Between two commands or grants nothing an issue check reads changes but
    the cycle number and the data pipeline's fill, so :meth:`_ready` (run after each) finds the
    first cycle a column command (``col_at``, also needing a ``rwq`` slot) or a row command
    (``row_at``) could issue at any bank; a cycle before both skips the bank scan.
    """

    def __init__(self, channel: int, p: DramTimingParams, on_write_done: Any = None) -> None:
        self.id = channel
        self.p = p
        self.banks = [Bank() for _ in range(p.nbk)]
        self.nbk = p.nbk
        self.dual_bus = p.dual_bus
        # the constraint values (32-bit unsigned, see the class docstring), read when a
        # command issues
        u32 = 0xFFFFFFFF
        self.tCCD, self.tCCDL, self.tRRD, self.tRCD = p.tCCD & u32, p.tCCDL & u32, p.tRRD & u32, p.tRCD & u32
        self.tRCDWR, self.tRAS, self.tRC, self.tRP = p.tRCDWR & u32, p.tRAS & u32, p.tRC & u32, p.tRP & u32
        self.tRTW, self.tWTR, self.tWTP, self.tRTPL = p.tRTW & u32, p.tWTR & u32, p.tWTP & u32, p.tRTPL & u32
        self.tRTP = p.burst_cycles & u32
        self.grp_CCDL_until = [0] * p.nbkgrp
        self.grp_RTPL_until = [0] * p.nbkgrp
        self.RRD_until = self.CCD_until = self.RTW_until = self.WTR_until = 0
        self.active_until = self.quiet_until = 0
        self.rw_is_write = False
        self.prio = 0
        self.rwq = FifoPipeline(p.CL, p.CL + 1)
        # ``mrqq``: GPGPU-Sim's 2-entry ``fifo_pipeline``, whose push does not check the bound
        # (:meth:`push` is guarded by :meth:`full`; the FIFO scheduler's ``full`` is this
        # queue holding MRQQ_LEN requests), so it is kept unbounded here
        self.mrqq: Queue[DramReq] = Queue(0)
        self.returnq: Queue[MemFetch] = Queue(p.return_queue or 1024)
        self.sched = make_scheduler(p.scheduler, p)
        self.on_write_done = on_write_done
        self.grp_of = [self._bankgrp(j) for j in range(p.nbk)]
        self.grp_masks = [sum(1 << j for j in range(p.nbk) if self.grp_of[j] == g) for g in range(p.nbkgrp)]
        self.pend_mask = self.rd_open = self.wr_open = 0
        self.full_mask = (1 << p.nbk) - 1
        # what _ready derives from the masks and the constraint ends (valid while not dirty):
        # the open banks' count, write share and bank groups, each open bank's first cycle a
        # column command would pass its own and the shared checks but tCCD, and the first
        # cycle a column / row command could issue
        self.dirty = False
        self.n_pend = self.n_rw = self.n_grp_rw = 0
        self.w2r = 0.0
        # cycles sampled (a bank holding a request) since those values last changed: their
        # parallelism samples are added when they change (_flush_samples)
        self.n_samples = 0
        self.col_ready: list[int] = []
        self.col_all_ready = 0        # the latest of col_ready (every entry is <= it)
        self.col_at = self.row_at = NEVER
        self._grp_count: dict[int, int] = {}
        # counters (dram_t::print)
        self.n_cmd = self.n_act = self.n_pre = self.n_req = 0
        self.n_rd = self.n_rd_L2_A = self.n_wr = self.n_wr_WB = 0
        self.n_activity = 0
        self.bwutil = 0
        self.reads_per_bank = [0] * p.nbk
        self.writes_per_bank = [0] * p.nbk
        self.n_in_flight = 0
        # bank-level parallelism (before the commands of a cycle)
        self.banks_1time = self.banks_access_total = 0
        self.banks_time_rw = self.banks_access_rw_total = self.bkgrp_parallsim_rw = 0
        self.w2r_ratio_sum = 0.0
        self.banks_time_ready = self.banks_access_ready_total = 0
        # where the data bus went (after the commands of a cycle): util + wasted_col + wasted_row + idle = n_cmd
        self.util_bw = self.wasted_bw_col = self.wasted_bw_row = self.idle_bw = 0
        self.RCDc_limit = self.RCDWRc_limit = self.WTRc_limit = self.RTWc_limit = self.CCDLc_limit = 0
        self.rwq_limit = 0
        self.CCDLc_limit_alone = self.WTRc_limit_alone = self.RTWc_limit_alone = 0
        # dual bus interface use
        self.issued_total = self.issued_two = self.issued_total_row = self.issued_total_col = 0
        # scheduler queue occupancy (``mrqq: max= avg=``, ``queue_avg``)
        self.max_mrqs = self.ave_mrqs = 0
        # FR-FCFS queueing latency, push to bank (core cycles; ``maxmrqlatency``,
        # ``avg_mrq_latency``, ``mrq_lat_table`` with log2 bins)
        self.mrq_lat_sum = self.mrq_lat_num = self.mrq_lat_max = 0
        self.mrq_lat_table = [0] * 32

    # ------------------------------------------------------------------ interface
    def full(self, is_write: bool) -> bool:
        """``dram_t::full``: the scheduler has no room for another request (a write, when
        ``is_write``)."""
        return self.sched.full(self, is_write)

    def push(self, fetch: MemFetch, now: int) -> None:
        bank = fetch.bank % self.p.nbk
        if self.p.bnk_indexing == 1:
            bank = (bank ^ (fetch.row & (self.p.nbk - 1))) % self.p.nbk
        req = DramReq(fetch, bank, now)
        fetch.set_status("IN_PARTITION_MC_INTERFACE_QUEUE", now)
        self.mrqq.push(req)
        self.n_req += 1
        self.n_in_flight += 1
        # memlatstat_dram_access: ceil(size / atom) with an integer division, by the bank
        # field of the decoded address (before bank-index hashing)
        atoms = fetch.size // self.p.atom_bytes
        tlx_bank = fetch.bank % self.p.nbk
        if fetch.is_write:
            self.writes_per_bank[tlx_bank] += atoms
        else:
            self.reads_per_bank[tlx_bank] += atoms

    def return_top(self) -> MemFetch | None:
        return self.returnq.head()

    def return_pop(self) -> MemFetch | None:
        return self.returnq.pop()

    def busy(self) -> bool:
        """A request is inside the channel (queued, at a bank, in the data pipeline or the
        return queue), other than writes :meth:`quiet` counts as parked.  Constraint timers
        may still be counting down when it is False (see :meth:`drain`)."""
        if not self.returnq.empty():
            return True
        n = self.n_in_flight
        if not n:
            return False
        s = self.sched
        return n != s.num_write_pending or not s.parked()

    def drain(self, n: int, now: int = 0) -> None:
        """Account ``n`` cycles of a channel that is not :meth:`busy`: cycle it while its
        timers run down (at most ``tRC``-ish cycles), then the rest as :meth:`idle_cycles`."""
        while n and not self.quiet():
            self.cycle(now)
            n -= 1
        if n:
            self.idle_cycles(n)

    # ------------------------------------------------------------------ cycle
    def _bankgrp(self, j: int) -> int:
        if self.p.bnkgrp_indexing == 0:
            return j >> self.p.bk_tag_length
        return j & (self.p.nbkgrp - 1)

    def quiet(self) -> bool:
        """Nothing queued, in flight or counting down: a cycle only bumps the idle counters.
        Writes parked in the separate write queue (read mode, below the high watermark, no
        read waiting) count as quiet: each cycle's scheduler pass returns nothing for them."""
        if not self.returnq.empty() or self.n_cmd < self.quiet_until:
            return False
        if self.n_in_flight:
            s = self.sched
            if self.n_in_flight != s.num_write_pending or not s.parked():
                return False
        return True

    def idle_cycles(self, n: int) -> None:
        """Account ``n`` cycles of a :meth:`quiet` channel exactly as :meth:`cycle` would (no
        bank holds a request, so each bank's idle count follows ``n_cmd``)."""
        self.n_cmd += n
        self.idle_bw += n
        self.rwq.drop_idle(n)

    def _track(self, j: int) -> None:
        """Update bank ``j``'s bits in the statistics masks after its request or row changed."""
        bit = 1 << j
        keep = ~bit
        bk = self.banks[j]
        req = bk.mrq
        self.dirty = True
        self.rd_open &= keep
        self.wr_open &= keep
        if req is None:
            self.pend_mask &= keep
            return
        self.pend_mask |= bit
        if bk.state == BANK_ACTIVE and bk.curr_row == req.row:
            if req.is_write:
                self.wr_open |= bit
            else:
                self.rd_open |= bit

    def _ready(self) -> None:
        """Derive, from the bank masks and the constraint ends, what stays fixed until the next
        command or grant: the open ("rw") banks' count, write share and bank-group count (the
        parallelism samples), each open bank's first cycle its column command passes every
        check but tCCD and a free ``rwq`` slot (``col_ready``), and the first cycle a column
        command (``col_at``) or a row command (``row_at``: precharge of a bank open on another
        row, activation of a closed one) could issue."""
        self.dirty = False
        if self.n_samples:
            self._flush_samples()
        banks, grp_of = self.banks, self.grp_of
        rd = self.rd_open
        rw = rd | self.wr_open
        self.n_pend = popcount(self.pend_mask)
        ready: list[int] = []
        col_at = NEVER
        last = 0
        if rw:
            self._rw_counts(rw, rd)
            ccdl, wtr, rtw = self.grp_CCDL_until, self.WTR_until, self.RTW_until
            m = rw
            while m:
                low = m & -m
                m ^= low
                j = low.bit_length() - 1
                c = ccdl[grp_of[j]]
                if low & rd:
                    r = banks[j].RCD_until
                    if wtr > c:
                        c = wtr
                else:
                    r = banks[j].RCDWR_until
                    if rtw > c:
                        c = rtw
                if c > r:
                    r = c
                ready.append(r)
                if r < col_at:
                    col_at = r
                if r > last:
                    last = r
            if col_at < self.CCD_until:
                col_at = self.CCD_until
        else:
            self.n_rw = 0
        self.col_ready = ready
        self.col_all_ready = last
        self.col_at = col_at
        row_at = act_at = NEVER
        m = self.pend_mask & ~rw
        if m:
            rtpl = self.grp_RTPL_until
            while m:
                low = m & -m
                m ^= low
                j = low.bit_length() - 1
                bk = banks[j]
                if bk.state == BANK_ACTIVE:
                    r = bk.PRE_until
                    c = rtpl[grp_of[j]]
                    if c > r:
                        r = c
                    if r < row_at:
                        row_at = r
                elif bk.ACT_until < act_at:
                    act_at = bk.ACT_until
            if act_at < NEVER:
                if act_at < self.RRD_until:
                    act_at = self.RRD_until
                if act_at < row_at:
                    row_at = act_at
        self.row_at = row_at

    def _rw_counts(self, rw: int, rd: int) -> None:
        """The bank-level-parallelism sample values of the open banks with a request
        (``rw``, non-empty; ``rd`` those open for a read): their number, write share and
        bank groups (memoised per mask)."""
        n_rw = popcount(rw)
        self.n_rw = n_rw
        self.w2r = popcount(rw & ~rd) / n_rw
        g = self._grp_count.get(rw)
        if g is None:
            g = self._grp_count[rw] = sum(1 for m in self.grp_masks if rw & m)
        self.n_grp_rw = g

    def _ready_add(self, b: int) -> None:
        """:meth:`_ready` after bank ``b`` (which held no request) took one, while nothing
        else changed since the last :meth:`_ready` (not ``dirty``): the derived values
        are updated for that one bank instead of derived again from every bank.  The
        minima and maxima only take the new bank's term in (``min(max(a, c), max(r, c)) ==
        max(min(a, r), c)`` for the tCCD / tRRD floors), and the counts and the write share
        are computed as :meth:`_ready` computes them."""
        self.dirty = False
        if self.n_samples:
            self._flush_samples()
        self.n_pend += 1
        bit = 1 << b
        rd = self.rd_open
        rw = rd | self.wr_open
        bk = self.banks[b]
        grp = self.grp_of[b]
        if rw & bit:
            self._rw_counts(rw, rd)
            c = self.grp_CCDL_until[grp]
            if rd & bit:
                r = bk.RCD_until
                if self.WTR_until > c:
                    c = self.WTR_until
            else:
                r = bk.RCDWR_until
                if self.RTW_until > c:
                    c = self.RTW_until
            if c > r:
                r = c
            self.col_ready.append(r)
            if r > self.col_all_ready:
                self.col_all_ready = r
            if r < self.CCD_until:
                r = self.CCD_until
            if r < self.col_at:
                self.col_at = r
        else:
            if bk.state == BANK_ACTIVE:
                r = bk.PRE_until
                c = self.grp_RTPL_until[grp]
            else:
                r = bk.ACT_until
                c = self.RRD_until
            if c > r:
                r = c
            if r < self.row_at:
                self.row_at = r

    def _flush_samples(self) -> None:
        """Add the bank-level-parallelism samples of the ``n_samples`` cycles taken with the
        current masks: per cycle the banks with a request, and with open ("rw") banks their
        count, bank groups and write share (added cycle by cycle, as the float sum is)."""
        k = self.n_samples
        self.n_samples = 0
        self.banks_1time += k * self.n_pend
        self.banks_access_total += k
        if self.n_rw:
            self.banks_time_rw += k * self.n_rw
            self.banks_access_rw_total += k
            self.bkgrp_parallsim_rw += k * self.n_grp_rw
            w = self.w2r
            if w:
                total = self.w2r_ratio_sum
                for _ in range(k):
                    total += w
                self.w2r_ratio_sum = total

    def cycle(self, now: int = 0) -> None:
        """``dram_t::cycle``: return queue, read/write data pipe, the scheduler's pick for idle
        banks, one row and one column command.  Kept as one function: it runs every DRAM cycle
        of every awake channel and its steps share the bank state read at the top."""
        t = self.n_cmd
        rwq = self.rwq
        returnq = self.returnq
        if not returnq.full():
            cmd = rwq.pop()
            if cmd is not None:
                cmd.dqbytes += self.p.atom_bytes
                if cmd.dqbytes >= cmd.nbytes:
                    mf = cmd.fetch
                    self.n_in_flight -= 1
                    mf.set_status("IN_PARTITION_MC_RETURNQ", now)
                    if mf.access_type not in WRITEBACK_TYPES:
                        mf.is_reply = True
                        returnq.push(mf)
                    elif self.on_write_done is not None:
                        self.on_write_done(mf)
        nreqs = self.sched.cycle(self, now)
        if nreqs > self.max_mrqs:
            self.max_mrqs = nreqs
        self.ave_mrqs += nreqs
        if self.dirty:
            self._ready()

        # the bank-level-parallelism samples dram_t::cycle takes before issuing commands
        pend = self.pend_mask
        rwq_free = len(rwq) < rwq.max_len
        if pend:
            self.n_samples += 1
            # open banks whose column command every constraint would allow now
            if rwq_free and self.CCD_until <= t and self.col_ready:
                if t >= self.col_all_ready:         # every open bank's constraints have run out
                    ready = self.n_rw
                else:
                    ready = 0
                    for r in self.col_ready:
                        if r <= t:
                            ready += 1
                if ready:
                    self.banks_time_ready += ready
                    self.banks_access_ready_total += 1

            col = row = False
            col_ok = rwq_free and t >= self.col_at
            if col_ok or t >= self.row_at:
                if self.dual_bus:
                    # a column command needs a bank whose request is to its open row, a row
                    # command a bank with a request to another row or a closed bank: scan only
                    # those, from prio (a column command cannot enable a row command)
                    if col_ok:
                        col = self._scan(self._issue_col, self.rd_open | self.wr_open)
                    if t >= self.row_at:
                        closed = self.pend_mask & ~(self.rd_open | self.wr_open)
                        if closed:
                            row = self._scan(self._issue_row, closed)
                else:
                    col, row = self._bank_loop(t)
            if col or row:
                self.issued_total += 1
                if col:
                    self.issued_total_col += 1
                    if row:
                        self.issued_two += 1
                if row:
                    self.issued_total_row += 1
        else:
            col = False
        # k > 0 (an active cycle) unless no bank holds a request and every counter of the
        # activity check (tCCD, tRRD, tRTW, tWTR; the banks' tRCD, tRAS, tRC, tRP, tRCDWR) is 0
        if self.pend_mask or t < self.active_until:
            self.n_activity += 1
        self.n_cmd = t + 1
        # where the data bus went this cycle
        if col or t < self.CCD_until:
            self.util_bw += 1
        elif self.rd_open or self.wr_open:
            self._count_wasted_col(t)
        elif self.pend_mask:
            self.wasted_bw_row += 1
        else:
            self.idle_bw += 1

    def _bank_loop(self, t: int) -> tuple[bool, bool]:
        """The single-bus command loop of ``dram_t::cycle`` over the banks from ``prio``: per
        bank a column command if none issued yet, else a row command if neither issued yet; the
        issue functions are called only when the bank's state allows the command (the rest of
        their checks are theirs).  A bank without a request issues nothing and counts idle,
        which the busy spans account (:meth:`bank_idle_cycles`), so only banks with a request
        are visited, unless a row command moves ``prio``: the rest of the loop then visits banks
        from the new ``prio`` (some twice, some not at all, as GPGPU-Sim's), and the idle visits
        of that cycle are counted one by one against the spans' one per bank."""
        banks = self.banks
        prio = self.prio
        pend = self.pend_mask
        hi = pend >> prio << prio
        for part in (hi, pend ^ hi):
            while part:
                low = part & -part
                part ^= low
                j = low.bit_length() - 1
                bk = banks[j]
                req = bk.mrq
                assert req is not None
                active = bk.state == BANK_ACTIVE
                if active and bk.curr_row == req.row:
                    if self.CCD_until <= t and self._issue_col(j):
                        return True, False
                elif active or self.RRD_until <= t:
                    if self._issue_row(j):
                        return self._after_row(j, prio, pend, t), True
        return False, False

    def _after_row(self, j: int, prio: int, pend: int, t: int) -> bool:
        """The rest of the single-bus loop after a row command at bank ``j``, visited at position
        ``pos = (j - prio) % nbk`` (``pend``: the banks with a request before it): the remaining
        ``nbk - 1 - pos`` visits start after ``j`` (the new ``prio``) and can only issue a column
        command.  Returns whether one issued.

        Idle visits: the banks at positions before ``pos`` without a request (``F``), and the
        banks of the remaining visits (``W``) without a request when visited, which are those
        without one at the end of the cycle (no bank gets a request mid-loop; one losing its
        last atom does so at its own visit).  Against the busy spans' one per bank without a
        request at the end (``E``): +1 for ``F & W`` (visited idle twice), -1 for ``E`` banks
        in neither (not visited idle at all)."""
        banks, nbk, full = self.banks, self.nbk, self.full_mask
        pos = (j - prio) % nbk
        f = ((1 << pos) - 1) << prio
        f = (f | f >> nbk) & full & ~pend
        start = (j + pos + 2) % nbk
        w = ((1 << (nbk - 1 - pos)) - 1) << start
        w = (w | w >> nbk) & full
        col = False
        if self.CCD_until <= t:
            cand = w & (self.rd_open | self.wr_open)
            hi = cand >> start << start
            for part in (hi, cand ^ hi):
                while part and not col:
                    low = part & -part
                    part ^= low
                    col = self._issue_col(low.bit_length() - 1)
        e = full & ~self.pend_mask
        m = f & w
        while m:
            low = m & -m
            m ^= low
            banks[low.bit_length() - 1].n_idle += 1
        m = e & ~w & ~f
        while m:
            low = m & -m
            m ^= low
            banks[low.bit_length() - 1].n_idle -= 1
        return col

    def place(self, b: int, req: DramReq) -> None:
        """The scheduler puts ``req`` at idle bank ``b`` and nothing else (``scheduler_fifo``)."""
        bank = self.banks[b]
        bank.mrq = req
        bank.busy_from = self.n_cmd
        self._track(b)

    def grant(self, b: int, req: DramReq, now: int) -> None:
        """The scheduler hands ``req`` to idle bank ``b``: the bank-arbitration priority moves
        on, the queueing latency (``now``, core cycles, minus the push) is recorded
        (``scheduler_frfcfs``)."""
        self.prio = (self.prio + 1) % self.nbk
        bank = self.banks[b]
        bank.mrq = req
        bank.busy_from = self.n_cmd
        derived = not self.dirty       # (_track marks the derived values stale)
        self._track(b)
        if derived:
            self._ready_add(b)
        lat = now - req.timestamp
        self.mrq_lat_sum += lat
        self.mrq_lat_num += 1
        if lat > self.mrq_lat_max:
            self.mrq_lat_max = lat
        self.mrq_lat_table[logb2(lat)] += 1
        req.timestamp = now

    def _scan(self, issue: Any, mask: int) -> bool:
        """Try ``issue`` on the banks of ``mask`` in round-robin order from ``prio`` (the order
        of GPGPU-Sim's ``(i + prio) % nbk`` loop); stop at the first that issues."""
        prio = self.prio
        hi = mask >> prio << prio
        for part in (hi, mask ^ hi):
            while part:
                low = part & -part
                part ^= low
                if issue(low.bit_length() - 1):
                    return True
        return False

    @property
    def n_nop(self) -> int:
        """Cycles without a command (every cycle issues one or more, or counts a nop)."""
        return self.n_cmd - self.issued_total

    def bank_idle_cycles(self, j: int) -> int:
        """``bk[j]->n_idle``: cycles that ended without a request at bank ``j`` (plus, with the
        single bus, the extra or missing visits of cycles whose row command moved ``prio``)."""
        bk = self.banks[j]
        busy = bk.n_busy + (self.n_cmd - bk.busy_from if bk.mrq is not None else 0)
        return self.n_cmd - busy + bk.n_idle

    def _count_wasted_col(self, t: int) -> None:
        """A cycle without a column command (and ``CCDc`` zero) while a bank had a request to
        its open row: count, per such bank, the constraints that held it back (``BW Util
        Bottlenecks``: ``CCDLc`` of its group, ``rwq`` full, a read's ``RCDc`` and ``WTRc``, a
        write's ``RCDWRc`` and ``RTWc``; "alone" where ``WTRc`` / ``RTWc`` and ``CCDLc`` do not
        both hold)."""
        self.wasted_bw_col += 1
        rd, wr = self.rd_open, self.wr_open
        banks = self.banks
        if self.rwq.full():
            self.rwq_limit += popcount(rd | wr)
        held = 0                      # banks of the groups whose CCDLc is running
        for g, end in enumerate(self.grp_CCDL_until):
            if end > t:
                held |= self.grp_masks[g]
        if held:
            n_rd, n_wr = popcount(rd & held), popcount(wr & held)
            self.CCDLc_limit += n_rd + n_wr
        else:
            n_rd = n_wr = 0
        if rd:
            if self.WTR_until > t:
                n = popcount(rd)
                self.WTRc_limit += n
                self.WTRc_limit_alone += n - n_rd
            else:
                self.CCDLc_limit_alone += n_rd
            m = rd
            while m:
                low = m & -m
                m ^= low
                if banks[low.bit_length() - 1].RCD_until > t:
                    self.RCDc_limit += 1
        if wr:
            if self.RTW_until > t:
                n = popcount(wr)
                self.RTWc_limit += n
                self.RTWc_limit_alone += n - n_wr
            else:
                self.CCDLc_limit_alone += n_wr
            m = wr
            while m:
                low = m & -m
                m ^= low
                if banks[low.bit_length() - 1].RCDWR_until > t:
                    self.RCDWRc_limit += 1

    def _issue_col(self, j: int) -> bool:
        bk = self.banks[j]
        req = bk.mrq
        if req is None:
            return False
        t = self.n_cmd
        grp = self.grp_of[j]
        if (self.CCD_until <= t and self.grp_CCDL_until[grp] <= t and bk.curr_row == req.row
                and bk.state == BANK_ACTIVE and not self.rwq.full()):
            if not req.is_write and bk.RCD_until <= t and self.WTR_until <= t:
                if self.rw_is_write:
                    self.rw_is_write = False
                    self.rwq.min_len = self.p.CL
                self.rwq.push(req)
                req.txbytes += self.p.atom_bytes
                self.CCD_until = e = t + self.tCCD
                self.grp_CCDL_until[grp] = e2 = t + self.tCCDL
                self.RTW_until = e3 = t + self.tRTW
                e4 = t + self.tRTP
                if e4 > bk.PRE_until:
                    bk.PRE_until = e4
                self.grp_RTPL_until[grp] = e5 = t + self.tRTPL
                self.active_until = max(self.active_until, e, e3)
                self.quiet_until = max(self.quiet_until, e, e2, e3, e4, e5)
                self.dirty = True
                if req.fetch.access_type == "L2_WR_ALLOC_R":
                    self.n_rd_L2_A += 1
                else:
                    self.n_rd += 1
                self.bwutil += self.p.burst_cycles
                bk.n_access += 1
                if req.txbytes >= req.nbytes:
                    bk.mrq = None
                    bk.n_busy += t - bk.busy_from
                    self._track(j)
                return True
            if req.is_write and bk.RCDWR_until <= t and self.RTW_until <= t:
                if not self.rw_is_write:
                    self.rw_is_write = True
                    self.rwq.min_len = self.p.WL
                self.rwq.push(req)
                req.txbytes += self.p.atom_bytes
                self.CCD_until = e = t + self.tCCD
                self.grp_CCDL_until[grp] = e2 = t + self.tCCDL
                self.WTR_until = e3 = t + self.tWTR
                e4 = t + self.tWTP
                if e4 > bk.PRE_until:
                    bk.PRE_until = e4
                self.active_until = max(self.active_until, e, e3)
                self.quiet_until = max(self.quiet_until, e, e2, e3, e4)
                self.dirty = True
                if req.fetch.access_type == "L2_WRBK_ACC":
                    self.n_wr_WB += 1
                else:
                    self.n_wr += 1
                self.bwutil += self.p.burst_cycles
                if req.txbytes >= req.nbytes:
                    bk.mrq = None
                    bk.n_busy += t - bk.busy_from
                    self._track(j)
                return True
        return False

    def _issue_row(self, j: int) -> bool:
        bk = self.banks[j]
        req = bk.mrq
        if req is None:
            return False
        t = self.n_cmd
        if self.RRD_until <= t and bk.state == BANK_IDLE and bk.ACT_until <= t:
            bk.curr_row = req.row
            bk.state = BANK_ACTIVE
            self.RRD_until = e = t + self.tRRD
            bk.RCD_until = e2 = t + self.tRCD
            bk.RCDWR_until = e3 = t + self.tRCDWR
            e4 = t + self.tRAS
            if e4 > bk.PRE_until:
                bk.PRE_until = e4
            e5 = t + self.tRC
            if e5 > bk.ACT_until:
                bk.ACT_until = e5
            e = max(self.active_until, e, e2, e3, e4, e5)
            self.active_until = e
            if e > self.quiet_until:
                self.quiet_until = e
            self.prio = (j + 1) % self.nbk
            self.n_act += 1
            self._track(j)
            return True
        if (bk.curr_row != req.row and bk.state == BANK_ACTIVE and bk.PRE_until <= t
                and self.grp_RTPL_until[self.grp_of[j]] <= t):
            bk.state = BANK_IDLE
            e = t + self.tRP
            if e > bk.ACT_until:
                bk.ACT_until = e
            if e > self.active_until:
                self.active_until = e
            if e > self.quiet_until:
                self.quiet_until = e
            self.dirty = True
            self.prio = (j + 1) % self.nbk
            self.n_pre += 1
            return True
        return False

    def channel_stats(self) -> dict[str, Any]:
        """The counters ``report.sections.dram_partitions`` prints for this channel
        (``dram_report.channel_stats``)."""
        return channel_stats(self)

    def dump_state(self) -> str:
        """This channel's queues and banks, as text (``dram_report.dump_dram``)."""
        return dump_dram(self)
