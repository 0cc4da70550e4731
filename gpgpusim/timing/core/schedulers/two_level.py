"""``two_level_active:N:inner:outer`` (GPGPU-Sim ``two_level_active_scheduler``; C081)."""

from __future__ import annotations

from typing import Any

from .base import Policy, int_field


class TwoLevelActive(Policy):
    """An active set of ``n_active`` warps served loose-round-robin; a warp that the scheduler
    finds waiting on a long-latency operand leaves the set and the oldest pending warp enters
    (GPGPU-Sim's default inner and outer policies, lrr inside)."""

    def __init__(self, n_active: int) -> None:
        super().__init__()
        self.demotes = True
        self.n_active = max(1, n_active)
        self.active: list[int] = []
        self.pending: list[int] = []

    @staticmethod
    def from_args(args: list[str]) -> TwoLevelActive:
        return TwoLevelActive(int_field(args, 0, 6, "two_level_active's active-set size"))

    def order(self, warps: list[int], table: Any) -> list[int]:
        known = set(self.active) | set(self.pending)
        for w in sorted((w for w in warps if w not in known), key=lambda s: table[s].dyn):
            self.pending.append(w)
        present = set(warps)
        self.active = [w for w in self.active if w in present]
        self.pending = [w for w in self.pending if w in present]
        while len(self.active) < self.n_active and self.pending:
            self.active.append(self.pending.pop(0))
        out = self.active
        if self.last in out:
            i = out.index(self.last) + 1
            out = out[i:] + out[:i]
        return list(out)

    def demote(self, slot: int) -> None:
        if slot in self.active:
            self.active.remove(slot)
            self.pending.append(slot)
