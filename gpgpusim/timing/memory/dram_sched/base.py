"""The DRAM scheduler interface (GPGPU-Sim ``dram_t::scheduler_fifo`` / ``scheduler_frfcfs``;
checklist C165).

Requests reach a channel through its 2-entry input queue ``mrqq`` (:meth:`.Dram.push`).  Once
per DRAM cycle, after the data pipeline has moved, :meth:`.Dram.cycle` calls the scheduler's
:meth:`DramScheduler.cycle`, which takes requests from ``mrqq`` into its own queues (or leaves
them there), hands at most one to an idle bank -- :meth:`.Dram.grant` (the bank-arbitration
priority moves on and the queueing latency is recorded, as ``scheduler_frfcfs`` does) or
:meth:`.Dram.place` (the request only takes the bank, as ``scheduler_fifo`` does) -- and returns
how many requests wait (the ``mrqq: max= avg=`` samples).  :meth:`DramScheduler.full` is
``dram_t::full``: whether the partition may push another request.

What a scheduler declares (attributes set in ``__init__``), and the counters every scheduler
has (zero where it keeps none, as GPGPU-Sim's ``dram_t`` members stay zero under FIFO):

* ``name``: the name ``-gpgpu_dram_scheduler``'s value stands for (``options.config``'s
  ``DRAM_SCHEDULERS`` lists the same);
* ``bank_stats``: it keeps ``memory_stats_t``'s per-bank row statistics (``row_access``,
  ``num_activates``, ``max_conc_access``, ``max_service_time``), which the statistics report
  only when every channel keeps them;
* ``separate``, ``write_mode``, ``num_write_pending``: a separate write queue
  (``-dram_seperate_write_queue_enable``); :meth:`DramScheduler.parked` says the writes in it
  wait for the high watermark, so the channel may sleep (:meth:`.Dram.quiet`);
* ``access_num`` ... ``hits_write_num``: the row-buffer locality counters ``dram_t::print``
  reports.

A new scheduler is one module in this package with a :class:`DramScheduler` subclass and a line
in ``REGISTRY`` (``__init__.py``, keyed by the option's value); the compiled build
(``gpgpusim native build``) takes in every module of this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..dram import Dram


class DramScheduler:
    """Base: no queue of its own, no statistics."""

    def __init__(self) -> None:
        self.name = ""
        self.bank_stats = False
        self.separate = False
        self.write_mode = False
        #: requests waiting in the scheduler (reads only, with a separate write queue)
        self.num_pending = 0
        self.num_write_pending = 0
        # dram_t::access_num, hits_num, read_num, write_num, hits_read_num, hits_write_num
        self.access_num = self.hits_num = 0
        self.read_num = self.write_num = self.hits_read_num = self.hits_write_num = 0
        # memory_stats_t per bank (``bank_stats`` schedulers only)
        self.row_access: list[int] = []
        self.num_activates: list[int] = []
        self.max_conc_access: list[int] = []
        self.max_service_time: list[int] = []
        #: gpu_tot_sim_cycle, shared by the memory system (``now`` minus it is gpu_sim_cycle)
        self.cycle_base = [0]

    def full(self, dram: Dram, is_write: bool) -> bool:
        """``dram_t::full``: no room for another request (a write, when ``is_write``)."""
        raise NotImplementedError

    def cycle(self, dram: Dram, now: int) -> int:
        """Take the requests of ``dram.mrqq``, give at most one to an idle bank (``now``: the core
        cycle); returns the number of requests waiting."""
        raise NotImplementedError

    def queued(self, dram: Dram) -> int:
        """Requests waiting for a bank (the channel's state dump)."""
        raise NotImplementedError

    def parked(self) -> bool:
        """Only writes wait, and no call of :meth:`cycle` hands one out before a new request
        arrives (the channel may sleep)."""
        return False
