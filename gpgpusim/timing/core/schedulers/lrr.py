"""``lrr``: loose round robin (GPGPU-Sim ``lrr_scheduler``, ``order_lrr``; C079)."""

from __future__ import annotations

from typing import Any

from .base import Policy


class Lrr(Policy):
    """Start at the running warp after the one that issued last (slot order)."""

    def __init__(self) -> None:
        super().__init__()
        self.rotates_after_last = True
        self.pure = True

    def order(self, warps: list[int], table: Any) -> list[int]:
        if self.last < 0:
            return warps
        try:
            i = warps.index(self.last) + 1
        except ValueError:
            return warps
        return warps[i:] + warps[:i]
