"""The warp-scheduling policy interface (GPGPU-Sim ``scheduler_unit::order_warps``; checklist
C078-C083).

A policy only *orders*: ``order(warps, table)`` returns the scheduler's running warp slots in the
order the scheduler examines them this cycle; the scheduler issues from the first warp that can
(eligibility -- I-buffer, scoreboard, barriers, unit room -- is the core's,
``ShaderCore.issue_block``) and then calls ``issued(slot)``.  ``table`` is the core's warp table:
``table[slot].dyn`` is a warp's dynamic id (launch order), and the warp's state (``fdone``,
``at_bar``, ``membar``, ``n_atomic``, ``pending``) is there for policies that rank by it.

A policy states what the scheduler may assume about it instead of being recognised by type
(attributes set in ``__init__``):

* ``rotates_after_last``: the order is the running warps in slot order, rotated to start after
  the last one to issue (loose round robin).  The scheduler then walks its candidate bit mask
  itself and never calls ``order``.
* ``orders_any_subset``: ordering a subset of the running warps gives the full order restricted
  to that subset (a ranking by a per-warp key), so the scheduler orders only its candidates.
* ``pure``: ``order`` has no side effects, so the scheduler may
  skip asking for an order when it has no candidates and the operand collector may park warps
  it woke (``OperandCollector.keep_woken``).
* ``demotes``: the policy wants ``demote(slot)`` for every scoreboard stall it sees (two-level
  scheduling), so the scheduler keeps such a warp among its candidates.

A new policy is one module in this package with a :class:`Policy` subclass and a line in
``REGISTRY`` (``__init__.py``); the compiled build (``gpgpusim native build``) takes in every
module of this package.
"""

from __future__ import annotations

from typing import Any

class Policy:
    """Base: keeps the last-issued slot (-1: none yet)."""

    def __init__(self) -> None:
        self.last = -1
        self.rotates_after_last = False
        self.orders_any_subset = False
        self.pure = False
        self.demotes = False

    def order(self, warps: list[int], table: Any) -> list[int]:
        raise NotImplementedError

    def issued(self, slot: int) -> None:
        self.last = slot

    def demote(self, slot: int) -> None:  # noqa: B027 - optional hook (``demotes`` policies)
        """A warp of the active set stalled on the scoreboard (``demotes`` policies only)."""


def warp_waiting(w: Any) -> bool:
    """GPGPU-Sim's ``shd_warp_t::waiting()`` read without side effects: the warp cannot issue
    for a reason other than its next instruction (functionally done, at a barrier, behind a
    memory fence with writes pending, or with atomics outstanding)."""
    return bool(w.fdone or w.at_bar >= 0 or w.n_atomic > 0 or (w.membar and w.pending))


def int_field(args: list[str], i: int, default: int, what: str) -> int:
    """Field ``i`` of a ``name:a:b`` option value as an int (``default`` when absent)."""
    if i >= len(args) or not args[i].strip():
        return default
    try:
        return int(args[i])
    except ValueError:
        raise ValueError(f"-gpgpu_scheduler: {what} must be an integer, got {args[i]!r}") from None
