"""DRAM request schedulers, registered by ``-gpgpu_dram_scheduler`` value (checklist C165).

The interface and what a scheduler declares about itself: ``base.py``.  One module per
scheduler; ``REGISTRY`` maps the option's value (GPGPU-Sim's numbering: 0 FIFO, 1 FR-FCFS) to a
factory taking the channel's :class:`~..dram_parts.DramTimingParams`.  Adding a scheduler: a module
here and a line in ``REGISTRY`` (and its value in ``options.config.DRAM_SCHEDULERS``, which the
configuration check reads).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .base import DramScheduler
from .fifo import FifoScheduler
from .frfcfs import FrfcfsScheduler

if TYPE_CHECKING:
    from ..dram_parts import DramTimingParams

__all__ = ["REGISTRY", "DramScheduler", "FifoScheduler", "FrfcfsScheduler", "make_scheduler"]

#: ``-gpgpu_dram_scheduler`` value -> factory of the scheduler for one channel
REGISTRY: dict[int, Callable[[DramTimingParams], DramScheduler]] = {
    0: FifoScheduler.from_params,
    1: FrfcfsScheduler.from_params,
}


def make_scheduler(value: int, p: DramTimingParams) -> DramScheduler:
    """The scheduler for one channel under ``-gpgpu_dram_scheduler value``."""
    factory = REGISTRY.get(value)
    if factory is None:
        known = ", ".join(f"{k} ({f(p).name})" for k, f in REGISTRY.items())
        raise ValueError(f"-gpgpu_dram_scheduler {value}: unknown DRAM scheduler (known: {known})")
    return factory(p)
