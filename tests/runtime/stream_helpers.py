"""Shared by the stream and graph tests: the watchdog that turns a deadlock between host and
simulation threads into a failure, the host-side wait limit, and a fake launch's statistics.

(A uniquely named module, imported by name: ``from conftest import ...`` would pick up whichever
tests/*/conftest.py was imported first in a whole-suite run.)"""

from __future__ import annotations

import faulthandler
from collections.abc import Iterator

import pytest

#: how long a host thread waits for the simulation thread (or a gate) before the test fails
TIMEOUT_S = 10.0


@pytest.fixture(autouse=True)
def _watchdog() -> Iterator[None]:
    """A deadlock between host and simulation threads must fail the run, not hang it (autouse
    in every test module that imports it)."""
    faulthandler.dump_traceback_later(60, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


class FakeStats:
    """What a fake kernel launcher returns in place of the engine's ``KernelStats``."""

    def __init__(self, warp_insn: int) -> None:
        self.warp_insn = warp_insn
