"""``0``: FIFO (GPGPU-Sim ``dram_t::scheduler_fifo``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import DramScheduler

if TYPE_CHECKING:
    from ..dram import Dram
    from ..dram_parts import DramTimingParams


class FifoScheduler(DramScheduler):
    """The head of the channel's 2-entry input queue takes its bank once the bank is free; the
    requests behind it wait (no row-buffer reordering, no latency or row statistics)."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "FIFO"

    @staticmethod
    def from_params(p: DramTimingParams) -> FifoScheduler:
        return FifoScheduler()

    def full(self, dram: Dram, is_write: bool) -> bool:
        return dram.mrqq.full()

    def cycle(self, dram: Dram, now: int) -> int:
        mrqq = dram.mrqq
        if mrqq.q:
            b = mrqq.q[0].bank
            if dram.banks[b].mrq is None:
                dram.place(b, mrqq.pop())
        return len(mrqq)

    def queued(self, dram: Dram) -> int:
        return len(dram.mrqq)
