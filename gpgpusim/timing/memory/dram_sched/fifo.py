"""``0``: FIFO (GPGPU-Sim ``dram_t::scheduler_fifo``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import DramScheduler

#: the entries of the channel's input queue ``mrqq`` (GPGPU-Sim's ``fifo_pipeline`` of length 2)
MRQQ_LEN = 2

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
        return len(dram.mrqq) >= MRQQ_LEN

    def cycle(self, dram: Dram, now: int) -> int:
        mrqq = dram.mrqq
        head = mrqq.head()
        if head is not None:
            b = head.bank
            if dram.banks[b].mrq is None:
                mrqq.pop()
                dram.place(b, head)
        return len(mrqq)

    def queued(self, dram: Dram) -> int:
        return len(dram.mrqq)
