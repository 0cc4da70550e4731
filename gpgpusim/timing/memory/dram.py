"""DRAM channel: banks, timing constraints, FIFO and FR-FCFS schedulers.

GPGPU-Sim counterparts: ``dram_t`` (dram.cc), ``frfcfs_scheduler`` (dram_sched.cc), the timing
derivations of ``memory_config::init``.  Checklist C165–C172, C175, C176, C178.

One :meth:`Dram.cycle` is one DRAM command-clock cycle, in GPGPU-Sim's order:

1. the read/write data pipeline ``rwq`` (a ``fifo_pipeline`` with minimum length CL, or WL after
   a switch to writes) shifts by one unless the return queue is full; a request whose last atom
   leaves it is complete: reads go to the return queue, write-backs are done;
2. the scheduler moves one request to an idle bank (FR-FCFS: open-row hits first, then oldest;
   FIFO: head of the 2-entry queue if its bank is free);
3. at most one column command (read/write) and one row command (activate/precharge) with the
   dual bus interface, else one command in all, scanning banks round-robin from ``prio``;
4. every constraint counter counts down to zero (``DEC2ZERO``).

A request occupies ``ceil(size / atom)`` column commands, ``atom = BL * busW * chips`` bytes.
Not modelled: refresh (as GPGPU-Sim), the separate write queue (``-dram_seperate_write_queue_enable``),
bank-index XOR hashing other than ``-dram_bnk_indexing_policy 1``, power/row-locality statistics
other than the counters listed in :meth:`Dram.channel_stats`.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ..mem_fetch import MemFetch, WRITEBACK_TYPES

BANK_IDLE, BANK_ACTIVE = 0, 1


class DramTimingParams:
    """Timing values in DRAM command cycles, derived as ``memory_config::init`` does."""

    def __init__(self, cfg: Any) -> None:
        t = cfg.get("gpgpu_dram_timing_opt").values
        self.nbk = t["nbk"]
        self.tCCD, self.tRRD, self.tRCD, self.tRAS = t["CCD"], t["RRD"], t["RCD"], t["RAS"]
        self.tRP, self.tRC, self.CL, self.WL = t["RP"], t["RC"], t["CL"], t["WL"]
        self.tCDLR, self.tWR = t["CDLR"], t["WR"]
        self.nbkgrp = t.get("nbkgrp", 1) or 1
        self.tCCDL, self.tRTPL = t.get("CCDL", 0), t.get("RTPL", 0)
        self.BL = int(cfg.get("gpgpu_dram_burst_length"))
        self.busW = int(cfg.get("gpgpu_dram_buswidth"))
        self.ratio = int(cfg.get("dram_data_command_freq_ratio"))
        self.n_chips = int(cfg.get("gpgpu_n_mem_per_ctrlr"))
        self.dual_bus = bool(cfg.get("dram_dual_bus_interface"))
        self.bnk_indexing = int(cfg.get("dram_bnk_indexing_policy") or 0)
        self.bnkgrp_indexing = int(cfg.get("dram_bnkgrp_indexing_policy") or 0)
        self.scheduler = int(cfg.get("gpgpu_dram_scheduler"))
        self.sched_queue = int(cfg.get("gpgpu_frfcfs_dram_sched_queue_size"))
        self.return_queue = int(cfg.get("gpgpu_dram_return_queue_size"))
        burst_cycles = self.BL // self.ratio
        self.burst_cycles = burst_cycles
        if cfg.get("dram_elimnate_rw_turnaround"):
            self.tRTW = self.tWTR = 0
        else:
            self.tRTW = self.CL + burst_cycles + 2 - self.WL
            self.tWTR = self.WL + burst_cycles + self.tCDLR
        self.tWTP = self.WL + burst_cycles + self.tWR
        self.tRCDWR = self.tRCD - (self.WL + 1)
        self.atom_bytes = self.BL * self.busW * self.n_chips
        self.bk_tag_length = (self.nbk // self.nbkgrp).bit_length() - 1


class FifoPipeline:
    """``fifo_pipeline<T>``: a FIFO padded with bubbles (None) to a minimum length, so an item
    pushed behind ``min_len`` entries pops ``min_len`` pops later; ``max_len`` 0 = unbounded."""

    __slots__ = ("q", "min_len", "max_len", "n_items")

    def __init__(self, min_len: int, max_len: int) -> None:
        self.q: deque[Any] = deque([None] * min_len)
        self.min_len = min_len
        self.max_len = max_len
        self.n_items = 0

    def full(self) -> bool:
        return bool(self.max_len) and len(self.q) >= self.max_len

    def push(self, item: Any) -> None:
        self.q.append(item)
        if item is not None:
            self.n_items += 1

    def pop(self) -> Any:
        if not self.q:
            return None
        item = self.q.popleft()
        if item is not None:
            self.n_items -= 1
        if self.min_len and len(self.q) < self.min_len:
            self.q.append(None)
        return item

    def top(self) -> Any:
        return self.q[0] if self.q else None

    def empty(self) -> bool:
        return not self.q

    def __len__(self) -> int:
        return len(self.q)


class DramReq:
    """``dram_req_t``."""

    __slots__ = ("fetch", "bank", "row", "col", "nbytes", "txbytes", "dqbytes", "is_write", "timestamp")

    def __init__(self, fetch: MemFetch, bank: int, now: int) -> None:
        self.fetch = fetch
        self.bank = bank
        self.row = fetch.row
        self.col = fetch.col
        self.nbytes = fetch.size
        self.txbytes = 0
        self.dqbytes = 0
        self.is_write = fetch.is_write
        self.timestamp = now


class Bank:
    __slots__ = ("state", "curr_row", "mrq", "RCDc", "RCDWRc", "RASc", "RPc", "RCc", "WTPc", "RTPc",
                 "n_access", "n_idle")

    def __init__(self) -> None:
        self.state = BANK_IDLE
        self.curr_row = 0
        self.mrq: DramReq | None = None
        self.RCDc = self.RCDWRc = self.RASc = self.RPc = self.RCc = self.WTPc = self.RTPc = 0
        self.n_access = 0
        self.n_idle = 0


class FrfcfsScheduler:
    """``frfcfs_scheduler``: per bank, requests binned by row; a bank keeps serving the row it
    chose until that row's bin is empty; a new row is the open row when it has requests, else
    the row of the oldest request (checklist C165)."""

    def __init__(self, nbk: int) -> None:
        self.queue: list[deque[DramReq]] = [deque() for _ in range(nbk)]   # oldest first
        self.bins: list[dict[int, deque[DramReq]]] = [{} for _ in range(nbk)]
        self.last_row: list[int | None] = [None] * nbk
        self.num_pending = 0
        self.row_hits = 0

    def add(self, req: DramReq) -> None:
        self.num_pending += 1
        self.queue[req.bank].append(req)
        b = self.bins[req.bank].get(req.row)
        if b is None:
            b = self.bins[req.bank][req.row] = deque()
        b.append(req)

    def schedule(self, bank: int, curr_row: int) -> DramReq | None:
        row = self.last_row[bank]
        bins = self.bins[bank]
        if row is None:
            if not self.queue[bank]:
                return None
            if curr_row in bins:
                row = curr_row
                self.row_hits += 1
            else:
                row = self.queue[bank][0].row
            self.last_row[bank] = row
        else:
            self.row_hits += 1
        b = bins[row]
        req = b.popleft()
        self.queue[bank].remove(req)
        if not b:
            del bins[row]
            self.last_row[bank] = None
        self.num_pending -= 1
        return req


class Dram:
    """One DRAM channel (``dram_t``).  ``push`` requests (after the partition's latency queue),
    ``cycle`` once per DRAM clock, take replies from ``return_top``/``return_pop``; completed
    write-backs are handed to ``on_write_done``."""

    def __init__(self, channel: int, p: DramTimingParams, on_write_done: Any = None) -> None:
        self.id = channel
        self.p = p
        self.banks = [Bank() for _ in range(p.nbk)]
        self.grp_CCDLc = [0] * p.nbkgrp
        self.grp_RTPLc = [0] * p.nbkgrp
        self.RRDc = self.CCDc = self.RTWc = self.WTRc = 0
        self.rw_is_write = False
        self.prio = 0
        self.rwq = FifoPipeline(p.CL, p.CL + 1)
        self.mrqq = FifoPipeline(0, 2)
        self.returnq = FifoPipeline(0, p.return_queue or 1024)
        self.sched = FrfcfsScheduler(p.nbk) if p.scheduler == 1 else None
        self.on_write_done = on_write_done
        # counters (dram_t::print)
        self.n_cmd = self.n_nop = self.n_act = self.n_pre = self.n_req = 0
        self.n_rd = self.n_rd_L2_A = self.n_wr = self.n_wr_WB = 0
        self.n_activity = 0
        self.bwutil = 0
        self.reads_per_bank = [0] * p.nbk
        self.writes_per_bank = [0] * p.nbk
        self.n_in_flight = 0

    # ------------------------------------------------------------------ interface
    def full(self, is_write: bool) -> bool:
        if self.sched is not None:
            if self.p.sched_queue == 0:
                return False
            return self.sched.num_pending >= self.p.sched_queue
        return self.mrqq.full()

    def push(self, fetch: MemFetch, now: int) -> None:
        bank = fetch.bank % self.p.nbk
        if self.p.bnk_indexing == 1:
            bank = (bank ^ (fetch.row & (self.p.nbk - 1))) % self.p.nbk
        req = DramReq(fetch, bank, now)
        fetch.set_status("IN_PARTITION_MC_INTERFACE_QUEUE", now)
        self.mrqq.push(req)
        self.n_req += 1
        self.n_in_flight += 1
        atoms = max(1, fetch.size // self.p.atom_bytes)
        if fetch.is_write:
            self.writes_per_bank[bank] += atoms
        else:
            self.reads_per_bank[bank] += atoms

    def return_top(self) -> MemFetch | None:
        return self.returnq.top()

    def return_pop(self) -> MemFetch | None:
        return self.returnq.pop()

    def busy(self) -> bool:
        return self.n_in_flight > 0 or not self.returnq.empty()

    # ------------------------------------------------------------------ cycle
    def _bankgrp(self, j: int) -> int:
        if self.p.bnkgrp_indexing == 0:
            return j >> self.p.bk_tag_length
        return j & (self.p.nbkgrp - 1)

    def quiet(self) -> bool:
        """Nothing queued, in flight or counting down: a cycle only bumps the idle counters."""
        if self.n_in_flight or self.returnq.n_items or self.RRDc or self.CCDc or self.RTWc or self.WTRc:
            return False
        for bk in self.banks:
            if bk.RCDc or bk.RASc or bk.RCc or bk.RPc or bk.RCDWRc or bk.WTPc or bk.RTPc:
                return False
        return not (any(self.grp_CCDLc) or any(self.grp_RTPLc))

    def idle_cycles(self, n: int) -> None:
        """Account ``n`` cycles of a :meth:`quiet` channel exactly as :meth:`cycle` would."""
        self.n_cmd += n
        self.n_nop += n
        for bk in self.banks:
            bk.n_idle += n
        q = self.rwq.q
        drop = min(n, max(0, len(q) - self.rwq.min_len))
        for _ in range(drop):
            q.popleft()

    def cycle(self, now: int = 0) -> None:
        p = self.p
        if not self.returnq.full():
            cmd = self.rwq.pop()
            if cmd is not None:
                cmd.dqbytes += p.atom_bytes
                if cmd.dqbytes >= cmd.nbytes:
                    mf = cmd.fetch
                    self.n_in_flight -= 1
                    mf.set_status("IN_PARTITION_MC_RETURNQ", now)
                    if mf.access_type not in WRITEBACK_TYPES:
                        mf.is_reply = True
                        self.returnq.push(mf)
                    elif self.on_write_done is not None:
                        self.on_write_done(mf)
        if self.sched is not None:
            while not self.mrqq.empty():
                self.sched.add(self.mrqq.pop())
            for i in range(p.nbk):
                b = (i + self.prio) % p.nbk
                bank = self.banks[b]
                if bank.mrq is None:
                    req = self.sched.schedule(b, bank.curr_row)
                    if req is not None:
                        self.prio = (self.prio + 1) % p.nbk
                        bank.mrq = req
                        break
        elif not self.mrqq.empty():
            head = self.mrqq.top()
            if self.banks[head.bank].mrq is None:
                self.banks[head.bank].mrq = self.mrqq.pop()

        k = p.nbk
        col = row = False
        banks = self.banks
        if p.dual_bus:
            for i in range(p.nbk):
                if self._issue_col((i + self.prio) % p.nbk):
                    col = True
                    break
            for i in range(p.nbk):
                if self._issue_row((i + self.prio) % p.nbk):
                    row = True
                    break
            for i in range(p.nbk):
                bk = banks[(i + self.prio) % p.nbk]
                if bk.mrq is None:
                    if self._bank_quiet(bk):
                        k -= 1
                    bk.n_idle += 1
        else:
            for i in range(p.nbk):
                j = (i + self.prio) % p.nbk
                if not col:
                    col = self._issue_col(j)
                if not col and not row:
                    row = self._issue_row(j)
                bk = banks[j]
                if bk.mrq is None:
                    if self._bank_quiet(bk):
                        k -= 1
                    bk.n_idle += 1
        if not (col or row):
            self.n_nop += 1
        if k:
            self.n_activity += 1
        self.n_cmd += 1
        # DEC2ZERO
        if self.RRDc:
            self.RRDc -= 1
        if self.CCDc:
            self.CCDc -= 1
        if self.RTWc:
            self.RTWc -= 1
        if self.WTRc:
            self.WTRc -= 1
        for bk in banks:
            if bk.RCDc:
                bk.RCDc -= 1
            if bk.RASc:
                bk.RASc -= 1
            if bk.RCc:
                bk.RCc -= 1
            if bk.RPc:
                bk.RPc -= 1
            if bk.RCDWRc:
                bk.RCDWRc -= 1
            if bk.WTPc:
                bk.WTPc -= 1
            if bk.RTPc:
                bk.RTPc -= 1
        for g in range(p.nbkgrp):
            if self.grp_CCDLc[g]:
                self.grp_CCDLc[g] -= 1
            if self.grp_RTPLc[g]:
                self.grp_RTPLc[g] -= 1

    def _bank_quiet(self, bk: Bank) -> bool:
        return not (self.CCDc or self.RRDc or self.RTWc or self.WTRc or bk.RCDc or bk.RASc or bk.RCc
                    or bk.RPc or bk.RCDWRc)

    def _issue_col(self, j: int) -> bool:
        bk = self.banks[j]
        req = bk.mrq
        if req is None:
            return False
        p = self.p
        grp = self._bankgrp(j)
        if (not self.CCDc and not self.grp_CCDLc[grp] and bk.curr_row == req.row and bk.state == BANK_ACTIVE
                and not self.rwq.full()):
            if not req.is_write and not bk.RCDc and self.WTRc == 0:
                if self.rw_is_write:
                    self.rw_is_write = False
                    self.rwq.min_len = p.CL
                self.rwq.push(req)
                req.txbytes += p.atom_bytes
                self.CCDc = p.tCCD
                self.grp_CCDLc[grp] = p.tCCDL
                self.RTWc = p.tRTW
                bk.RTPc = p.burst_cycles
                self.grp_RTPLc[grp] = p.tRTPL
                if req.fetch.access_type == "L2_WR_ALLOC_R":
                    self.n_rd_L2_A += 1
                else:
                    self.n_rd += 1
                self.bwutil += p.burst_cycles
                bk.n_access += 1
                if req.txbytes >= req.nbytes:
                    bk.mrq = None
                return True
            if req.is_write and not bk.RCDWRc and self.RTWc == 0:
                if not self.rw_is_write:
                    self.rw_is_write = True
                    self.rwq.min_len = p.WL
                self.rwq.push(req)
                req.txbytes += p.atom_bytes
                self.CCDc = p.tCCD
                self.grp_CCDLc[grp] = p.tCCDL
                self.WTRc = p.tWTR
                bk.WTPc = p.tWTP
                if req.fetch.access_type == "L2_WRBK_ACC":
                    self.n_wr_WB += 1
                else:
                    self.n_wr += 1
                self.bwutil += p.burst_cycles
                bk.n_access += 1
                if req.txbytes >= req.nbytes:
                    bk.mrq = None
                return True
        return False

    def _issue_row(self, j: int) -> bool:
        bk = self.banks[j]
        req = bk.mrq
        if req is None:
            return False
        p = self.p
        if not self.RRDc and bk.state == BANK_IDLE and not bk.RPc and not bk.RCc:
            bk.curr_row = req.row
            bk.state = BANK_ACTIVE
            self.RRDc = p.tRRD
            bk.RCDc = p.tRCD
            bk.RCDWRc = p.tRCDWR
            bk.RASc = p.tRAS
            bk.RCc = p.tRC
            self.prio = (j + 1) % p.nbk
            self.n_act += 1
            return True
        grp = self._bankgrp(j)
        if (bk.curr_row != req.row and bk.state == BANK_ACTIVE and not bk.RASc and not bk.WTPc and not bk.RTPc
                and not self.grp_RTPLc[grp]):
            bk.state = BANK_IDLE
            bk.RPc = p.tRP
            self.prio = (j + 1) % p.nbk
            self.n_pre += 1
            return True
        return False

    def channel_stats(self) -> dict[str, Any]:
        """The counters ``report.sections.dram_partitions`` prints for this channel."""
        return {"n_cmd": self.n_cmd, "n_nop": self.n_nop, "n_act": self.n_act, "n_pre": self.n_pre,
                "n_req": self.n_req, "n_rd": self.n_rd, "n_rd_L2_A": self.n_rd_L2_A, "n_write": self.n_wr,
                "n_wr_bk": self.n_wr_WB, "bwutil": self.bwutil, "n_activity": self.n_activity,
                "bk_access": [b.n_access for b in self.banks], "bk_idle": [b.n_idle for b in self.banks]}

    def dump_state(self) -> str:
        pend = self.sched.num_pending if self.sched is not None else len(self.mrqq)
        busy = [j for j, b in enumerate(self.banks) if b.mrq is not None]
        return (f"DRAM[{self.id}]: pending={pend} banks_busy={busy} rwq={self.rwq.n_items} "
                f"returnq={self.returnq.n_items}")
