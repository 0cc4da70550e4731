"""The component kit of the timing model: one queue type and a small component protocol.

:class:`Queue` is the model's bounded FIFO (GPGPU-Sim's ``fifo_pipeline`` without bubbles) and,
with ``timed=True``, its delay queue: every entry carries the cycle it becomes ready at (the ROP
delay, the DRAM latency queue), entries are pushed in ready order and only a ready head leaves.

:class:`Component` is what a clocked unit of the memory side is: ``cycle(now) -> progressed``,
``dump_state(out)``, and the idle/wake protocol.  A component whose next cycles would move
nothing sleeps (:meth:`Component.sleep`): its owner does not cycle it until a push into one of
the queues it consumes wakes it (:meth:`Queue.push` calls :meth:`Component.wake` on the queue's
``consumer``) or its own ``wake_at`` cycle comes (the ready time of the delay-queue head it waits
for).  The ticks it was not cycled are handed to :meth:`Component.idle_for` -- the counters a
cycle of an idle unit would bump (L2 port cycles, DRAM idle cycles) -- when it is next cycled
(:meth:`Component.tick`) or when its statistics are read (:meth:`Component.settle`), so every
statistic is that of cycling it every tick.

Ticks are counted by a :class:`Clock` per clock domain, shared by the domain's components: its
``n`` is the number of ticks started, so during tick ``n`` a sleeping component has missed ticks
``sleep_from`` .. ``n - 1`` if it runs in tick ``n``.

Everything is typed plainly (no dynamic attributes) so mypyc compiles it with the model.
"""

from __future__ import annotations

import sys
from collections import deque
from typing import Any, Final, Generic, TypeVar

#: a ready time no cycle reaches (a component with nothing timed to wait for)
NEVER = 1 << 62

T = TypeVar("T")


class Clock:
    """The tick counter of one clock domain: ``n`` ticks started so far."""

    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0


class Component:
    """A clocked unit.  Subclasses define :meth:`cycle` (one tick; True when something moved)
    and, when they sleep, :meth:`idle_for` (the counters of ``n`` idle ticks).

    ``asleep``: not cycled by its owner (see :meth:`due`); ``sleep_from``: the first tick not
    cycled, -1 when no idle ticks are pending; ``wake_at``: the cycle (in the ``now`` of
    :meth:`cycle`) at which a sleeping component runs again by itself, :data:`NEVER` for none."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.asleep = False
        self.sleep_from = -1
        self.wake_at = NEVER

    def cycle(self, now: int) -> bool:
        raise NotImplementedError

    def idle_for(self, n: int) -> None:
        """Account ``n`` ticks in which the component was not cycled (it would have moved
        nothing).  Nothing by default."""

    def dump_state(self, out: list[str]) -> None:
        """Append the component's state to ``out`` (one entry a line)."""

    def sleep(self, wake_at: int) -> None:
        """After this tick's cycle: not cycled from the next tick on until woken or until
        cycle ``wake_at``."""
        self.asleep = True
        self.sleep_from = self.clock.n + 1
        self.wake_at = wake_at

    def wake(self) -> None:
        """Cycled again from its next tick (a push into a queue it consumes)."""
        self.asleep = False

    def sleeping(self) -> bool:
        """Asleep: its owner does not cycle it (until :meth:`due`)."""
        return self.asleep

    def due(self, now: int) -> bool:
        """Whether the component runs in the tick of cycle ``now``."""
        return not self.asleep or self.wake_at <= now

    def resume(self) -> None:
        """Before the component's first cycle after sleeping, in the current tick: the ticks
        it missed go to :meth:`idle_for`."""
        self.asleep = False
        if self.sleep_from >= 0:
            missed = self.clock.n - self.sleep_from
            if missed > 0:
                self.idle_for(missed)
            self.sleep_from = -1

    def tick(self, now: int) -> bool:
        """The owner's call for every tick of the component's domain: cycle it when
        :meth:`due` (after :meth:`resume`); False when it sleeps on."""
        if self.asleep and self.wake_at > now:
            return False
        if self.sleep_from >= 0:
            self.resume()
        return self.cycle(now)

    def settle(self) -> None:
        """Account the ticks missed so far, up to and including the current one (whose cycle
        has passed): for statistics read while the component sleeps or before it next runs."""
        if self.sleep_from >= 0:
            n = self.clock.n
            missed = n + 1 - self.sleep_from
            if missed > 0:
                self.idle_for(missed)
            self.sleep_from = n + 1


#: the entries (and ready times) of every queue nothing was pushed into yet: one shared empty
#: deque, never written (an empty deque is ~760 bytes, and a GPU of 80 SMs has ~1,000 queues,
#: many of them on paths a program never takes); a queue's first push gives it its own
_UNUSED: Final[deque[Any]] = deque()


class Queue(Generic[T]):
    """A bounded FIFO (``cap`` entries; 0 = unbounded) between two components.

    With ``timed``, a delay queue: :meth:`push_at` gives each entry its ready cycle (in ready
    order), :meth:`head_ready` / :meth:`ready` read the head's.  ``consumer``, when set, is the
    component that pops the queue: a push wakes it when it sleeps."""

    __slots__ = ("items", "times", "cap", "timed", "consumer")

    def __init__(self, cap: int = 0, timed: bool = False, consumer: Component | None = None) -> None:
        self.items: deque[T] = _UNUSED
        self.times: deque[int] = _UNUSED      # a delay queue's, from its first push_at
        self.cap = cap if cap > 0 else sys.maxsize
        self.timed = timed
        self.consumer = consumer

    def __len__(self) -> int:
        return len(self.items)

    def empty(self) -> bool:
        return not self.items

    def full(self) -> bool:
        return len(self.items) >= self.cap

    def can_push(self, n: int = 1) -> bool:
        """Room for ``n`` more entries (``fifo_pipeline::is_avilable_size``)."""
        return len(self.items) + n <= self.cap

    def push(self, item: T) -> None:
        assert len(self.items) < self.cap, "push into a full queue"
        assert not self.timed, "a delay queue takes push_at"
        items = self.items
        if items is _UNUSED:
            items = self.items = deque()
        items.append(item)
        c = self.consumer
        if c is not None and c.asleep:
            c.wake()

    def push_at(self, item: T, ready: int) -> None:
        """Push an entry that leaves no earlier than cycle ``ready`` (not before the last
        entry's ready cycle)."""
        assert len(self.items) < self.cap, "push into a full queue"
        assert self.timed, "push_at into a queue without ready times"
        items = self.items
        if items is _UNUSED:
            items = self.items = deque()
            self.times = deque()
        items.append(item)
        self.times.append(ready)
        c = self.consumer
        if c is not None and c.asleep:
            c.wake()

    def head(self) -> T | None:
        return self.items[0] if self.items else None

    def head_ready(self) -> int:
        """The head's ready cycle; :data:`NEVER` when empty (0 for an untimed head)."""
        if not self.items:
            return NEVER
        return self.times[0] if self.timed else 0

    def ready(self, now: int) -> bool:
        """A head that may leave at cycle ``now``."""
        if not self.items:
            return False
        return not self.timed or self.times[0] <= now

    def pop(self) -> T | None:
        if not self.items:
            return None
        if self.timed:
            self.times.popleft()
        return self.items.popleft()

    def entries(self) -> list[T]:
        return list(self.items)

    def timed_entries(self) -> list[tuple[int, T]]:
        """``(ready, entry)`` for every entry, head first (a delay queue)."""
        return list(zip(self.times, self.items, strict=True))
