"""The parts of a DRAM channel (``dram.py``): its timing parameters, derived as
``memory_config::init`` does (:class:`DramTimingParams`), the ``fifo_pipeline`` queue, a
request (``dram_req_t``) and a bank (``bank_t``).

Peak bandwidth (C175, C253).  A column command moves one atom and holds the data bus for
``BL / dram_data_command_freq_ratio`` command cycles, so one channel moves at most
``busW * n_mem_per_ctrlr * dram_data_command_freq_ratio`` bytes per DRAM command cycle and the GPU

    peak = gpgpu_n_mem * gpgpu_n_mem_per_ctrlr * gpgpu_dram_buswidth
           * dram_data_command_freq_ratio * f_DRAM        (bytes/s)

(QV100: 32 * 1 * 16 B * 2 * 850 MHz = 870.4 GB/s).  ``bw_util = bwutil / n_cmd`` is the fraction
of that peak a channel used: ``bwutil`` adds the burst's bus cycles per column command.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ..mem_fetch import MemFetch

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
        self.separate_write_queue = bool(cfg.get("dram_seperate_write_queue_enable"))
        # ``sscanf("%d:%d:%d")`` in memory_config::init; a missing field reads as 0 here
        wq = tuple(cfg.get("dram_write_queue_size").values) + (0, 0, 0)
        self.write_queue_size, self.write_high_watermark, self.write_low_watermark = wq[:3]
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
        #: the most one channel moves per DRAM command cycle (C175): one atom per burst
        self.peak_bytes_per_cycle = self.atom_bytes // max(1, burst_cycles)
        self.bk_tag_length = (self.nbk // self.nbkgrp).bit_length() - 1


class FifoPipeline:
    """``fifo_pipeline<T>`` with bubbles: a FIFO padded with None to a minimum length, so an
    item pushed behind ``min_len`` entries pops ``min_len`` pops later; ``max_len`` 0 =
    unbounded.  The channel's read/write data pipeline ``rwq`` only: its delay is counted in
    pops (one a channel cycle while the return queue has room) and its minimum length switches
    between CL and WL with the bus direction, which a ready cycle fixed at the push (the
    kit's :class:`~..kit.Queue`, the channel's other queues) cannot express."""

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

    def drop_idle(self, n: int) -> None:
        """``n`` pops of an idle channel in bulk: entries beyond the minimum length leave (they
        are all bubbles when nothing is in flight); the bubbles that pad it stay."""
        q = self.q
        for _ in range(min(n, max(0, len(q) - self.min_len))):
            q.popleft()

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
    """``bank_t``.  ``n_access`` counts read column commands only (``dram_t::issue_col_command``
    counts none for a write, so the printed ``bkN: <n>a`` excludes writes, as GPGPU-Sim's does).

    GPGPU-Sim's per-bank constraint counters (``RCDc``, ``RCDWRc``, ``RASc``, ``RPc``, ``RCc``,
    ``WTPc``, ``RTPc``, counted down to zero at the end of every cycle) are kept as the channel
    cycle from which they read zero (see :class:`Dram`): ``RCD_until`` and ``RCDWR_until`` (a
    read / write column command), ``PRE_until`` (all of ``RASc``, ``WTPc``, ``RTPc``: a
    precharge) and ``ACT_until`` (both ``RPc`` and ``RCc``: an activate), the only ways the
    issue checks and the statistics read them.

    ``bk[j]->n_idle`` (cycles whose bank loop found no request at the bank) is kept as
    ``n_busy`` (cycles with one, closed when the request leaves) plus ``busy_from`` (the channel
    cycle the current request arrived), and ``n_idle`` holds only the difference the single-bus
    loop makes in a cycle whose row command moves ``prio`` (some banks visited twice, some not)."""

    __slots__ = ("state", "curr_row", "mrq", "RCD_until", "RCDWR_until", "PRE_until", "ACT_until",
                 "n_access", "n_idle", "n_busy", "busy_from")

    def __init__(self) -> None:
        self.state = BANK_IDLE
        self.curr_row = 0
        self.mrq: DramReq | None = None
        self.RCD_until = self.RCDWR_until = self.PRE_until = self.ACT_until = 0
        self.n_access = 0
        self.n_idle = 0
        self.n_busy = 0
        self.busy_from = 0


def logb2(v: int) -> int:
    """GPGPU-Sim's ``LOGB2``: floor(log2(v)), 0 for 0 (the latency histograms' bin)."""
    return v.bit_length() - 1 if v > 0 else 0
