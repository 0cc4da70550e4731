"""The component kit (gpgpusim/timing/kit.py): the queue's bounds and ready times, wake on push
with exact idle-tick accounting, and a source -> component -> sink pipeline checked cycle by
cycle."""

from __future__ import annotations

import pytest

from gpgpusim.timing.kit import NEVER, Clock, Component, Queue


# ------------------------------------------------------------------ the queue
def test_bounded_queue():
    q: Queue[str] = Queue(2)
    assert (len(q), q.empty(), q.full(), q.can_push(2), q.can_push(3)) == (0, True, False, True, False)
    assert q.head() is None and q.pop() is None
    q.push("a")
    q.push("b")
    assert (len(q), q.empty(), q.full(), q.can_push(), q.head()) == (2, False, True, False, "a")
    with pytest.raises(AssertionError, match="full"):
        q.push("c")
    assert q.pop() == "a"
    assert (len(q), q.full(), q.can_push(), q.entries()) == (1, False, True, ["b"])
    assert q.ready(0) and q.head_ready() == 0          # an untimed head is always ready
    assert q.pop() == "b" and q.pop() is None and q.head_ready() == NEVER


def test_unbounded_queue():
    q: Queue[int] = Queue(0)
    for i in range(1000):
        q.push(i)
    assert (len(q), q.full(), q.can_push(10**6), q.head()) == (1000, False, True, 0)


def test_delay_queue():
    q: Queue[str] = Queue(3, timed=True)
    assert (q.ready(0), q.head_ready()) == (False, NEVER)
    q.push_at("x", 5)
    q.push_at("y", 7)
    with pytest.raises(AssertionError, match="push_at"):
        q.push("z")
    assert q.head_ready() == 5
    assert [q.ready(t) for t in (4, 5, 6)] == [False, True, True]
    assert q.timed_entries() == [(5, "x"), (7, "y")]
    assert q.pop() == "x"
    assert (q.head_ready(), q.ready(6), q.ready(7)) == (7, False, True)
    q.push_at("w", 9)
    assert q.full() is False and len(q) == 2
    q.push_at("v", 9)
    assert q.full() and q.timed_entries() == [(7, "y"), (9, "w"), (9, "v")]
    with pytest.raises(AssertionError, match="full"):
        q.push_at("u", 10)
    assert [q.pop(), q.pop(), q.pop(), q.pop()] == ["y", "w", "v", None]
    untimed: Queue[str] = Queue(1)
    with pytest.raises(AssertionError, match="ready times"):
        untimed.push_at("x", 1)


def test_a_queue_owns_its_deques_from_its_first_push():
    a: Queue[int] = Queue(4)
    b: Queue[int] = Queue(0)
    d1: Queue[int] = Queue(4, timed=True)
    d2: Queue[int] = Queue(4, timed=True)
    unused = a.items
    assert all(x is unused for q in (a, b, d1, d2) for x in (q.items, q.times))   # one shared
    assert (b.empty(), b.head(), b.pop(), b.ready(0), d2.head_ready()) == (True, None, None, False, NEVER)
    for i in range(3):
        a.push(i)
        d1.push_at(i, 10 + i)
    assert a.items is not unused and a.times is unused       # an untimed queue keeps no times
    assert d1.items is not unused and d1.times is not unused and d1.times is not a.items
    assert [a.pop(), a.pop()] == [0, 1] and a.entries() == [2]
    assert d1.timed_entries() == [(10, 0), (11, 1), (12, 2)]
    assert all(x is unused and len(x) == 0 for q in (b, d2) for x in (q.items, q.times))


# ------------------------------------------------------------------ sleep and wake
class _Counter(Component):
    """Cycles when told to; records every cycle and every idle_for."""

    def __init__(self, clock: Clock) -> None:
        super().__init__(clock)
        self.inbox: Queue[str] = Queue(4, consumer=self)
        self.cycled: list[int] = []
        self.idle: list[int] = []

    def cycle(self, now: int) -> bool:
        self.cycled.append(now)
        self.inbox.pop()
        return True

    def idle_for(self, n: int) -> None:
        self.idle.append(n)


def _run(clock: Clock, comp: Component, ticks: range, pushes: dict[int, str] | None = None) -> None:
    """Ticks of the domain (cycle = tick number); ``pushes[t]`` is pushed after the
    component's turn in tick ``t``."""
    for t in ticks:
        clock.n = t
        comp.tick(t)
        if pushes and t in pushes:
            assert isinstance(comp, _Counter)
            comp.inbox.push(pushes[t])


def test_wake_on_push_counts_the_missed_ticks():
    clock = Clock()
    c = _Counter(clock)
    _run(clock, c, range(1, 4))
    c.sleep(NEVER)                                  # after tick 3: asleep from tick 4
    assert (c.asleep, c.sleep_from, c.due(100)) == (True, 4, False)
    _run(clock, c, range(4, 8), pushes={6: "m"})    # pushed after its turn in tick 6
    assert c.asleep is False and c.cycled == [1, 2, 3, 7]
    assert c.idle == [3]                            # ticks 4, 5 and 6
    assert c.sleep_from == -1


def test_timed_wake_and_settle():
    clock = Clock()
    c = _Counter(clock)
    _run(clock, c, range(1, 3))
    c.sleep(6)                                      # asleep from tick 3, due at cycle 6
    _run(clock, c, range(3, 9))
    assert c.cycled == [1, 2, 6, 7, 8] and c.idle == [3]      # ticks 3, 4, 5
    c.sleep(NEVER)                                  # from tick 9
    _run(clock, c, range(9, 12))
    c.settle()                                      # statistics read after tick 11
    assert c.idle == [3, 3] and c.sleep_from == 12 and c.asleep
    c.settle()
    assert c.idle == [3, 3]                         # nothing new to count
    _run(clock, c, range(12, 15), pushes={12: "m"})
    assert c.cycled == [1, 2, 6, 7, 8, 13, 14] and c.idle == [3, 3, 1]    # tick 12
    assert sum(c.idle) + len(c.cycled) == 14        # every tick either cycled or idle


def test_push_into_an_awake_consumer_changes_nothing():
    clock = Clock()
    c = _Counter(clock)
    c.inbox.push("a")
    assert (c.asleep, c.sleep_from) == (False, -1)
    c.sleep(NEVER)
    c.wake()
    c.wake()                                        # a second wake is the same
    _run(clock, c, range(1, 2))
    assert c.cycled == [1] and c.idle == []         # slept no tick


# ------------------------------------------------------------------ source -> pipe -> sink
class _Source(Component):
    def __init__(self, clock: Clock, schedule: dict[int, str], out: Queue[str]) -> None:
        super().__init__(clock)
        self.schedule = schedule
        self.out = out

    def cycle(self, now: int) -> bool:
        msg = self.schedule.get(now)
        if msg is not None and self.out.can_push():
            self.out.push(msg)
            return True
        return False


class _Pipe(Component):
    """Moves each message from ``inq`` through a ``latency``-cycle delay queue into ``outq``
    (one each way a cycle); sleeps while it has nothing ready to move."""

    def __init__(self, clock: Clock, outq: Queue[str], latency: int) -> None:
        super().__init__(clock)
        self.inq: Queue[str] = Queue(2, consumer=self)
        self.delay: Queue[str] = Queue(0, timed=True)
        self.outq = outq
        self.latency = latency
        self.n_cycles = 0
        self.idle: list[int] = []

    def cycle(self, now: int) -> bool:
        self.n_cycles += 1
        moved = False
        if self.delay.ready(now) and self.outq.can_push():
            msg = self.delay.pop()
            assert msg is not None
            self.outq.push(msg)
            moved = True
        msg = self.inq.pop()
        if msg is not None:
            self.delay.push_at(msg, now + self.latency)
            moved = True
        if self.inq.empty():
            self.sleep(self.delay.head_ready())
        return moved

    def idle_for(self, n: int) -> None:
        self.idle.append(n)


class _Sink(Component):
    """Takes one message every other cycle (back-pressure on the pipe)."""

    def __init__(self, clock: Clock, inq: Queue[str]) -> None:
        super().__init__(clock)
        self.inq = inq
        self.got: list[tuple[int, str]] = []

    def cycle(self, now: int) -> bool:
        if now % 2 == 0:
            msg = self.inq.pop()
            if msg is not None:
                self.got.append((now, msg))
                return True
        return False


def test_source_pipe_sink_cycle_exact():
    """a, b, c enter at cycles 1-3 and leave the 2-cycle delay at 3, 5, 7 (the one-entry
    output queue is drained every other cycle, so b and c wait a cycle each); d enters at 15
    into a pipe asleep since tick 8 and leaves at 17."""
    clock = Clock()
    outq: Queue[str] = Queue(1)
    pipe = _Pipe(clock, outq, latency=2)
    source = _Source(clock, {1: "a", 2: "b", 3: "c", 15: "d"}, pipe.inq)
    sink = _Sink(clock, outq)
    moved = []
    for t in range(1, 21):
        clock.n = t
        source.tick(t)
        if pipe.tick(t):
            moved.append(t)
        sink.tick(t)
    pipe.settle()
    assert sink.got == [(4, "a"), (6, "b"), (8, "c"), (18, "d")]
    assert moved == [1, 2, 3, 5, 7, 15, 17]
    assert pipe.n_cycles == 9                       # cycles 1-7, 15, 17
    assert pipe.idle == [7, 1, 3]                   # ticks 8-14, 16, 18-20
    assert pipe.n_cycles + sum(pipe.idle) == 20
    assert (pipe.asleep, pipe.wake_at, pipe.sleep_from) == (True, NEVER, 21)
