"""``old``: oldest first (GPGPU-Sim ``oldest_scheduler``: ``order_by_priority`` with the
oldest-dynamic-id comparator and no greedy warp)."""

from __future__ import annotations

from typing import Any

from .base import Policy


class Oldest(Policy):
    def __init__(self) -> None:
        super().__init__()
        self.orders_any_subset = True
        self.pure = True

    def order(self, warps: list[int], table: Any) -> list[int]:
        return sorted(warps, key=lambda s: table[s].dyn)
