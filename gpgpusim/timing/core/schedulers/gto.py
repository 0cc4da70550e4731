"""``gto``: greedy then oldest (GPGPU-Sim ``gto_scheduler``: ``order_by_priority`` with
``sort_warps_by_oldest_dynamic_id``; C080)."""

from __future__ import annotations

from typing import Any

from .base import Policy


class Gto(Policy):
    """The warp that issued last first, then the others oldest first (dynamic warp id).

    GPGPU-Sim's comparator also moves waiting warps (done, at a barrier or fence, atomics
    outstanding) to the back; they cannot issue, so leaving them in age order changes nothing
    the scheduler does."""

    def __init__(self) -> None:
        super().__init__()
        self.orders_any_subset = True
        self.pure = True

    def order(self, warps: list[int], table: Any) -> list[int]:
        rest = sorted(warps, key=lambda s: table[s].dyn)
        if self.last >= 0 and self.last in warps:
            rest.remove(self.last)
            rest.insert(0, self.last)
        return rest
