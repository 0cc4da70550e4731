"""``rrr``: strict round robin (GPGPU-Sim ``rrr_scheduler``)."""

from __future__ import annotations

from typing import Any

from .base import Policy


class Rrr(Policy):
    """Rotate by one warp every cycle the scheduler orders, whether a warp issued or not."""

    def __init__(self) -> None:
        super().__init__()
        self.start = 0

    def order(self, warps: list[int], table: Any) -> list[int]:
        if not warps:
            return warps
        i = self.start % len(warps)
        self.start = i + 1
        return warps[i:] + warps[:i]
