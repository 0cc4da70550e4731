"""A fixed-depth compressing pipeline without per-cycle work.

GPGPU-Sim models the L1D latency queues (``l1_latency_queue``) and the shared-memory pipeline
(``m_pipeline_reg`` of the LD/ST unit) as arrays of ``depth`` slots: an item enters the last
slot (only when it is free), moves one slot towards slot 0 per cycle when the slot ahead is free
(so items pile up behind a head that cannot leave), and is taken from slot 0.  Shifting such an
array every cycle costs ``depth`` steps in Python; this class gives the same observable
behaviour in O(1) per cycle by storing each item's entry cycle:

* an item that entered at cycle ``t`` is at slot 0 from cycle ``t + depth`` on (it entered
  after that cycle's shift, and moves once in each of the next ``depth - 1`` shifts), and no
  earlier than the cycle after its predecessor left slot 0 (the predecessor left at ``T``, the
  shift of ``T`` moves it from slot 1 to slot 0);
* an item can enter at cycle ``now`` (after the shift) iff the last slot is free: the last item
  did not enter this cycle and fewer than ``depth`` items are queued (a full, piled-up queue
  occupies every slot).

``tests/timing/core/test_pipe.py`` checks it against the slot-array model on random traffic.
"""

from __future__ import annotations

from typing import Any


class CompressingPipe:
    """``q`` holds ``[entry cycle, item]`` pairs, oldest first; ``head_t`` / ``tail_t`` repeat
    the entry cycles of the first and last pair as typed ints (valid while ``q`` is not empty),
    so the per-cycle tests of the LD/ST unit, which reads them in place, index nothing."""

    __slots__ = ("depth", "q", "last_left", "head_t", "tail_t")

    def __init__(self, depth: int) -> None:
        self.depth = max(1, depth)
        self.q: list[list[Any]] = []             # [entry cycle, item]; at most ``depth`` of them
        self.last_left = -1                      # cycle the previous head left slot 0
        self.head_t = 0
        self.tail_t = 0

    def __len__(self) -> int:
        return len(self.q)

    def can_enter(self, now: int) -> bool:
        q = self.q
        return not q or (self.tail_t < now and len(q) < self.depth)

    def enter(self, now: int, item: Any) -> None:
        q = self.q
        if not q:
            self.head_t = now
        q.append([now, item])
        self.tail_t = now

    def head(self, now: int) -> Any:
        """The item at slot 0 in cycle ``now`` (before that cycle's shift), or None."""
        q = self.q
        if not q:
            return None
        if now >= self.head_t + self.depth and now > self.last_left:
            return q[0][1]
        return None

    def pop(self, now: int) -> Any:
        self.last_left = now
        q = self.q
        item = q.pop(0)[1]
        if q:
            self.head_t = q[0][0]
        return item

    def items(self) -> list[Any]:
        return [x[1] for x in self.q]

    def entries(self) -> list[tuple[int, Any]]:
        """``(entry cycle, item)`` for every item, oldest first."""
        return [(x[0], x[1]) for x in self.q]
