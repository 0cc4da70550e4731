"""Warp scheduling policies (GPGPU-Sim ``scheduler_unit::order_warps`` and its subclasses;
checklist C078-C083, ``-gpgpu_scheduler``).

Contract of a policy: ``order(sched) -> list[int]`` returns the scheduler's supervised warp
slots in the order the scheduler examines them this cycle; the scheduler issues from the first
warp that can issue (one warp per scheduler per cycle) and then calls ``issued(sched, slot)``.
Policies only order; eligibility (I-buffer, scoreboard, barriers, unit availability) is the
scheduler's.  One class per policy, chosen by :func:`make_policy` from the option string.

* ``lrr`` (loose round robin, ``order_lrr``): start at the warp after the one that issued last.
* ``gto`` (greedy then oldest, ``order_by_priority(sort_warps_by_oldest_dynamic_id)``): the warp
  that issued last first, then the others oldest first (by dynamic warp id: launch order).
* ``two_level_active:N:...`` (``two_level_active_scheduler``): an active set of N warps served
  loose-round-robin; a warp that stalls on a long-latency dependence leaves the set and the
  oldest pending warp enters (GPGPU-Sim's default inner/outer policies, lrr inside).
* ``old`` / ``rrr``: ``rrr`` is strict round robin (the next warp after the last *examined*
  one, whether it issued or not); ``old`` is oldest first (GPGPU-Sim's ``order_by_priority``
  with the oldest-dynamic-id comparator and no greedy warp).
"""

from __future__ import annotations

from typing import Any


class Policy:
    """Base: keeps the last-issued slot."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last = -1

    def order(self, warps: list[int], age: Any) -> list[int]:
        """``age`` is the core's warp table: ``age[slot].dyn`` is a warp's dynamic id."""
        raise NotImplementedError

    def issued(self, slot: int) -> None:
        self.last = slot

    def examined(self, slot: int) -> None:  # noqa: B027 - optional hook
        """Called for every warp the scheduler looked at (strict round robin uses it)."""


class Lrr(Policy):
    __slots__ = ()

    def order(self, warps: list[int], age: Any) -> list[int]:
        if self.last < 0:
            return warps
        try:
            i = warps.index(self.last) + 1
        except ValueError:
            return warps
        return warps[i:] + warps[:i]


class Gto(Policy):
    __slots__ = ()

    def order(self, warps: list[int], age: Any) -> list[int]:
        rest = sorted(warps, key=lambda s: age[s].dyn)
        if self.last >= 0 and self.last in warps:
            rest.remove(self.last)
            rest.insert(0, self.last)
        return rest


class Oldest(Policy):
    __slots__ = ()

    def order(self, warps: list[int], age: Any) -> list[int]:
        return sorted(warps, key=lambda s: age[s].dyn)


class Rrr(Policy):
    """Strict round robin: rotate by one warp every cycle, issued or not."""

    __slots__ = ("start",)

    def __init__(self) -> None:
        super().__init__()
        self.start = 0

    def order(self, warps: list[int], age: Any) -> list[int]:
        if not warps:
            return warps
        i = self.start % len(warps)
        self.start = i + 1
        return warps[i:] + warps[:i]


class TwoLevelActive(Policy):
    """Two-level scheduler: an active set of ``n_active`` warps (lrr inside); warps that the
    scheduler found waiting on a long-latency operand are demoted to the pending set."""

    __slots__ = ("n_active", "active", "pending")

    def __init__(self, n_active: int) -> None:
        super().__init__()
        self.n_active = max(1, n_active)
        self.active: list[int] = []
        self.pending: list[int] = []

    def order(self, warps: list[int], age: Any) -> list[int]:
        known = set(self.active) | set(self.pending)
        for w in sorted((w for w in warps if w not in known), key=lambda s: age[s].dyn):
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


def make_policy(name: str) -> Policy:
    """The policy object for ``-gpgpu_scheduler`` (``lrr``, ``gto``, ``old``, ``rrr``,
    ``two_level_active:N:inner:outer``)."""
    base = name.split(":")[0].strip()
    if base == "lrr":
        return Lrr()
    if base == "gto":
        return Gto()
    if base == "old":
        return Oldest()
    if base == "rrr":
        return Rrr()
    if base == "two_level_active":
        parts = name.split(":")
        n = int(parts[1]) if len(parts) > 1 and parts[1].strip().isdigit() else 6
        return TwoLevelActive(n)
    raise ValueError(f"-gpgpu_scheduler {name!r}: unknown scheduler (lrr, gto, old, rrr, two_level_active:N)")
