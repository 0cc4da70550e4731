"""GlobalMemory under concurrent host threads (cudaMalloc/cudaFree from several application
threads while the simulation thread reads): writers serialise, readers see one snapshot."""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

from gpgpusim.functional.memory import GLOBAL_HEAP_START, GlobalMemory

WRITERS = 8
ROUNDS = 600


@pytest.fixture
def fast_switching():
    """Switch threads after (nearly) every bytecode, so races show up in a short test."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _span(size: int) -> int:
    return (max(1, size) + 255) & ~255


def test_concurrent_allocate_free_and_lookups(fast_switching):
    g = GlobalMemory()
    pinned = np.zeros(64, np.uint8)            # a host mapping registered alongside
    reader_base = g.allocate(4096)
    live: list[dict[int, int]] = [{} for _ in range(WRITERS)]
    errors: list[BaseException] = []
    stop = threading.Event()

    def writer(t: int) -> None:
        try:
            order: list[int] = []
            for i in range(ROUNDS):
                size = 1 + (t * 131 + i * 17) % 1000
                a = g.allocate(size)
                assert g.find(a) == (a, size)
                live[t][a] = size
                order.append(a)
                if i % 3 == 2:
                    old = order.pop(0)
                    g.free(old)
                    del live[t][old]
                if t == 0 and i % 100 == 0:     # map and unmap host memory concurrently
                    h = g.map_host(pinned)
                    g.free(h)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    def reader() -> None:
        addrs = np.arange(reader_base, reader_base + 4096, 4, dtype=np.uint64)
        try:
            while not stop.is_set():
                assert g.find(reader_base + 100) == (reader_base, 4096)
                parts = g.translate(addrs, 4)
                assert len(parts) == 1 and parts[0][0] == reader_base
                g.store(addrs, np.full(addrs.size, 7, np.uint32))
                assert int(g.load(addrs, np.uint32).sum()) == 7 * addrs.size
                for t in range(WRITERS):         # lookups of allocations being freed
                    for a in list(live[t])[:4]:  # (and of their ranges being reused)
                        hit = g.find(a)
                        assert hit is None or hit[0] <= a < hit[0] + max(hit[1], 1)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(WRITERS)]
    rd = threading.Thread(target=reader)
    rd.start()
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
        assert not th.is_alive(), "allocator deadlock"
    stop.set()
    rd.join(120)
    assert errors == []

    allocs = {a: n for per in live for a, n in per.items()}
    per_thread = ROUNDS - ROUNDS // 3
    assert len(allocs) == WRITERS * per_thread                        # no duplicates
    spans = sorted((a, a + _span(n)) for a, n in allocs.items())
    assert all(e <= s for (_, e), (s, _) in zip(spans, spans[1:], strict=False))   # no overlap
    assert all(g.find(a) == (a, n) and g.find(a + n - 1) == (a, n) for a, n in allocs.items())
    assert g.used_bytes == 4096 + sum(allocs.values())
    assert g._idx[0] == sorted([reader_base, *allocs])

    for a in allocs:
        g.free(a)
    g.free(reader_base)
    assert g.used_bytes == 0
    assert g._idx[0] == [] and g._bufs == {} and g._sizes == {}
    assert g._free == [] and g._top == GLOBAL_HEAP_START       # every range merged back
    assert g.allocate(16) == GLOBAL_HEAP_START


def test_lookup_snapshot_survives_a_concurrent_free():
    """A reader holding the snapshot taken before a free still gets the size and buffer of the
    allocation it found (no KeyError in the simulation thread during a host cudaFree)."""
    g = GlobalMemory()
    a = g.allocate(64)
    g.write(a, np.arange(64, dtype=np.uint8))
    snapshot = g._idx
    g.free(a)
    assert g.find(a) is None
    g._idx = snapshot                      # what a reader that started before the free sees
    assert g.find(a + 10) == (a, 64)
    assert g.read(a + 10, 2).tolist() == [10, 11]
    parts = g.translate(np.array([a + 8], np.uint64), 8)
    assert parts[0][0] == a
