"""``1``: FR-FCFS (GPGPU-Sim ``frfcfs_scheduler``, dram_sched.cc, and ``dram_t::scheduler_frfcfs``;
checklist C165, C177).

Separate write queue (C177, ``-dram_seperate_write_queue_enable``, ``-dram_write_queue_size
size:high:low``): writes wait in their own per-bank queues; the scheduler serves reads until
``high`` writes are pending, then only writes until fewer than ``low`` are, checked each time it
looks for work for an idle bank (``frfcfs_scheduler::schedule``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import DramScheduler

if TYPE_CHECKING:
    from ..dram import Dram
    from ..dram_parts import DramReq, DramTimingParams


class FrfcfsScheduler(DramScheduler):
    """``frfcfs_scheduler``: per bank, requests binned by row; a bank keeps serving the row it
    chose until that row's bin is empty; a new row is the open row when it has requests, else
    the row of the oldest request (checklist C165).

    With ``write_queue`` = ``(size, high, low)`` (``-dram_seperate_write_queue_enable``, C177)
    writes go to a second set of per-bank queues and bins, counted by ``num_write_pending``
    (``num_pending`` then counts reads only, as GPGPU-Sim's).  Each :meth:`schedule` call first
    switches to write mode when ``num_write_pending >= high`` and back to read mode when it is
    ``< low``, then serves only the current mode's queues: a bank with only reads waiting gets
    nothing in write mode and vice versa.

    Row-buffer statistics (``dram_t::access_num``/``hits_num``... for ``Row_Buffer_Locality``):
    every scheduled request counts an access; it is a hit unless it opened a new row choice
    (no request for the bank's open row while the bank had no current row).
    """

    def __init__(self, nbk: int, write_queue: tuple[int, int, int] | None = None, queue_size: int = 0) -> None:
        super().__init__()
        self.name = "FR-FCFS"
        self.bank_stats = True
        #: ``-gpgpu_frfcfs_dram_sched_queue_size`` (0: unlimited)
        self.queue_size = queue_size
        # per bank, oldest first; lists (a request leaves from anywhere: ``remove``), and an
        # empty deque is ~760 bytes against a list's 56 (SM7_QV100: 512 banks)
        self.queue: list[list[DramReq]] = [[] for _ in range(nbk)]
        self.bins: list[dict[int, list[DramReq]]] = [{} for _ in range(nbk)]
        self.last_row: list[int | None] = [None] * nbk
        self.nonempty = 0             # bit b: queue[b] (reads, or all with one queue) is not empty
        self.separate = write_queue is not None
        self.write_size, self.write_high, self.write_low = write_queue or (0, 0, 0)
        self.wqueue: list[list[DramReq]] = [[] for _ in range(nbk)] if self.separate else []
        self.wbins: list[dict[int, list[DramReq]]] = [{} for _ in range(nbk)] if self.separate else []
        self.last_wrow: list[int | None] = [None] * nbk if self.separate else []
        self.n_mode_switches = 0
        # memory_stats_t per bank: row_access, num_activates (row accesses per activate) and
        # the longest run of accesses to one row (closed by the next row miss)
        self.row_access = [0] * nbk
        self.num_activates = [0] * nbk
        self.concurrent_row_access = [0] * nbk
        self.max_conc_access = [0] * nbk
        # max_servicetime2samerow: the longest time between two row misses of a bank, in
        # gpu_sim_cycle (core cycles since the kernel started on an idle GPU: the ``now`` of
        # schedule() minus ``cycle_base[0]``, gpu_tot_sim_cycle, which MemorySystem shares)
        self.row_service_ts = [0] * nbk
        self.max_service_time = [0] * nbk

    @staticmethod
    def from_params(p: DramTimingParams) -> FrfcfsScheduler:
        wq = ((p.write_queue_size, p.write_high_watermark, p.write_low_watermark)
              if p.separate_write_queue else None)
        return FrfcfsScheduler(p.nbk, wq, p.sched_queue)

    @property
    def row_hits(self) -> int:
        return self.hits_num

    def full(self, dram: Dram, is_write: bool) -> bool:
        """The queue (or, for a write with the separate write queue, the write queue) holds
        its configured number of requests; queue size 0 = unlimited."""
        if self.queue_size == 0:
            return False
        if is_write and self.separate:
            return self.num_write_pending >= self.write_size
        return self.num_pending >= self.queue_size

    def cycle(self, dram: Dram, now: int) -> int:
        """``dram_t::scheduler_frfcfs``: every request of ``mrqq`` joins the queues, then the
        first idle bank from the channel's ``prio`` with work gets its next request."""
        mrqq = dram.mrqq
        req = mrqq.pop()
        while req is not None:
            self.add(req)
            req = mrqq.pop()
        if not self.separate:
            # the first bank from ``prio`` with no request and a non-empty queue: the banks
            # before it would each return nothing from schedule()
            cand = self.nonempty & ~dram.pend_mask
            if cand:
                b = _first_bit_from(cand, dram.prio)
                req = self.schedule(b, dram.banks[b].curr_row, now)
                assert req is not None
                dram.grant(b, req, now)
        else:
            # the write-mode check runs once per schedule() call: keep every call
            banks = dram.banks
            nbk = len(banks)
            prio = dram.prio
            for i in range(nbk):
                b = (i + prio) % nbk
                bank = banks[b]
                if bank.mrq is None:
                    req = self.schedule(b, bank.curr_row, now)
                    if req is not None:
                        dram.grant(b, req, now)
                        break
        return self.num_pending

    def queued(self, dram: Dram) -> int:
        return self.num_pending + self.num_write_pending

    def add(self, req: DramReq) -> None:
        if self.separate and req.is_write:
            self.num_write_pending += 1
            queue, bins = self.wqueue, self.wbins
        else:
            self.num_pending += 1
            queue, bins = self.queue, self.bins
            self.nonempty |= 1 << req.bank
        queue[req.bank].append(req)
        b = bins[req.bank].get(req.row)
        if b is None:
            b = bins[req.bank][req.row] = []
        b.append(req)

    def parked(self) -> bool:
        """Only writes wait, in read mode, below the high watermark: :meth:`schedule` returns
        None for every bank and changes nothing until a new request arrives."""
        return (self.separate and not self.write_mode and not self.num_pending
                and self.num_write_pending < self.write_high)

    def schedule(self, bank: int, curr_row: int, now: int = 0) -> DramReq | None:
        """The next request for idle ``bank`` (open row ``curr_row``), None if none; ``now`` is
        the core cycle (``gpu_tot_sim_cycle + gpu_sim_cycle``)."""
        if self.separate:
            if not self.write_mode and self.num_write_pending >= self.write_high:
                self.write_mode = True
                self.n_mode_switches += 1
            elif self.write_mode and self.num_write_pending < self.write_low:
                self.write_mode = False
                self.n_mode_switches += 1
        if self.write_mode:
            queue, bins, last_row = self.wqueue[bank], self.wbins[bank], self.last_wrow
        else:
            queue, bins, last_row = self.queue[bank], self.bins[bank], self.last_row
        row = last_row[bank]
        hit = True
        if row is None:
            if not queue:
                return None
            if curr_row in bins:
                row = curr_row
            else:
                row = queue[0].row
                hit = False
                # frfcfs_scheduler::data_collection.  The service time counts from the bank's
                # previous row miss, or from cycle 0 of the kernel for its first; a mark left
                # by an earlier kernel at a later gpu_sim_cycle counts nothing
                k = now - self.cycle_base[0]
                since = self.row_service_ts[bank]
                if k > since and k - since > self.max_service_time[bank]:
                    self.max_service_time[bank] = k - since
                self.row_service_ts[bank] = k
                if self.concurrent_row_access[bank] > self.max_conc_access[bank]:
                    self.max_conc_access[bank] = self.concurrent_row_access[bank]
                self.concurrent_row_access[bank] = 0
                self.num_activates[bank] += 1
            last_row[bank] = row
        b = bins[row]
        req = b.pop(0)
        queue.remove(req)
        if not queue and not self.write_mode:
            self.nonempty &= ~(1 << bank)
        if not b:
            del bins[row]
            last_row[bank] = None
        self.access_num += 1
        self.row_access[bank] += 1
        self.concurrent_row_access[bank] += 1
        if req.is_write:
            self.write_num += 1
            self.hits_write_num += hit
        else:
            self.read_num += 1
            self.hits_read_num += hit
        self.hits_num += hit
        if self.separate and req.is_write:
            self.num_write_pending -= 1
        else:
            self.num_pending -= 1
        return req


def _first_bit_from(mask: int, start: int) -> int:
    """The lowest set bit of ``mask`` at or above ``start``, else the lowest set bit."""
    hi = mask >> start << start
    m = hi or mask
    return (m & -m).bit_length() - 1

