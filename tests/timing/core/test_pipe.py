"""CompressingPipe behaves exactly like GPGPU-Sim's shifting slot array."""

from __future__ import annotations

import random

from gpgpusim.timing.core.pipe import CompressingPipe


class SlotArray:
    """The reference: ``depth`` slots, shifted one step per cycle where the slot ahead is free."""

    def __init__(self, depth: int) -> None:
        self.s: list[object] = [None] * depth

    def head(self) -> object:
        return self.s[0]

    def pop(self) -> object:
        x, self.s[0] = self.s[0], None
        return x

    def shift(self) -> None:
        s = self.s
        for i in range(len(s) - 1):
            if s[i] is None and s[i + 1] is not None:
                s[i], s[i + 1] = s[i + 1], None

    def can_enter(self) -> bool:
        return self.s[-1] is None

    def enter(self, x: object) -> None:
        self.s[-1] = x


def test_matches_the_slot_array_on_random_traffic():
    rng = random.Random(7)
    for depth in (1, 2, 3, 5, 20):
        ref, fast = SlotArray(depth), CompressingPipe(depth)
        n = 0
        for now in range(3000):
            # the consumer takes the head with some probability (a stalled head stays)
            h_ref, h_fast = ref.head(), fast.head(now)
            assert h_ref == h_fast, (depth, now)
            if h_ref is not None and rng.random() < 0.6:
                assert ref.pop() == fast.pop(now)
            ref.shift()
            for _ in range(rng.choice((0, 1, 1, 2))):       # up to two offers per cycle
                assert ref.can_enter() == fast.can_enter(now), (depth, now)
                if ref.can_enter():
                    n += 1
                    ref.enter(n)
                    fast.enter(now, n)
