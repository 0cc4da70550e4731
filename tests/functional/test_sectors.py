"""The first touches of 32-byte sectors (``functional/sectors.py``): cold reads and writes."""

from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np

from gpgpusim.functional.engine import launch
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory
from gpgpusim.functional.sectors import ABSENT, PARTIAL, READABLE, SectorLog
from gpgpusim.functional.state import SHARED_WINDOW

from engine_helpers import ptx


def _log(size: int = 256) -> tuple[GlobalMemory, SectorLog, int]:
    g = GlobalMemory()
    g.sectors = SectorLog(g)
    return g, g.sectors, g.allocate(size)


def _u64(*addrs: int) -> np.ndarray:
    return np.array(addrs, dtype=np.uint64)


def test_a_read_finds_each_sector_cold_once():
    _, log, a = _log()
    # 16 lanes of 4 bytes: two sectors, each cold once however many lanes read it
    assert log.read("global", a + 4 * np.arange(16, dtype=np.uint64), 4) == 2
    assert log.read("global", a + 4 * np.arange(16, dtype=np.uint64), 4) == 0
    assert log.read("global", _u64(a + 60, a + 64), 4) == 1          # sector 1 seen, 2 not
    assert log.states[a][:4].tolist() == [READABLE, READABLE, READABLE, ABSENT]


def test_a_whole_sector_written_is_readable_a_part_is_not():
    _, log, a = _log()
    # eight lanes write all 32 bytes of sector 0; one lane writes 4 bytes of sector 1
    assert log.write("global", a + 4 * np.arange(8, dtype=np.uint64), 4) == 1
    assert a not in log.masks                 # nothing left in part: no bytes kept
    assert log.write("global", _u64(a + 32), 4) == 1
    assert log.masks[a][1] == 0xF
    assert log.states[a][:2].tolist() == [READABLE, PARTIAL]
    assert log.read("global", _u64(a, a + 36), 4) == 1               # the part-written one misses
    # another write to a sector already present is no cold write
    assert log.write("global", _u64(a + 36), 4) == 0


def test_writes_that_add_up_to_a_whole_sector_make_it_readable():
    _, log, a = _log()
    # a vector store's components arrive one call each: 8 bytes of the sector per call
    for k in range(4):
        cold = log.write("global", _u64(a + 4 * k, a + 16 + 4 * k), 4)
        assert cold == (1 if k == 0 else 0)
        assert log.states[a][0] == (READABLE if k == 3 else PARTIAL)
    assert log.read("global", _u64(a + 8), 4) == 0
    # lanes writing the same bytes again do not complete a sector
    log.write("global", _u64(a + 64, a + 64, a + 64), 4)
    assert log.states[a][2] == PARTIAL


def test_a_copy_makes_its_sectors_readable():
    _, log, a = _log(1000)
    log.fill(a + 40, 100)                     # bytes 40..139: sectors 1..4
    assert log.read("global", _u64(a, a + 32, a + 128, a + 160), 4) == 2      # sectors 0 and 5
    assert log.states[a][:6].tolist() == [READABLE] * 6


def test_only_the_global_window_of_a_generic_address_counts():
    _, log, a = _log()
    assert log.read("generic", _u64(a, SHARED_WINDOW + 64), 4) == 1
    assert log.read("shared", _u64(0, 64), 4) == 0
    assert list(log.states) == [a]


def test_a_freed_allocation_is_forgotten():
    g, log, a = _log()
    log.read("global", _u64(a), 4)
    g.free(a)
    assert a not in log.states
    b = g.allocate(256)
    assert b == a and log.read("global", _u64(b), 4) == 1


def test_restoring_a_snapshot_restores_the_sectors_and_a_kept_run_brings_its_own():
    g, log, a = _log()
    log.read("global", _u64(a), 4)
    snap = g.snapshot()
    assert log.read("global", _u64(a, a + 32), 4) == 1
    log.write("global", _u64(a + 64), 4)
    kept = snap.written(1 << 20)
    assert kept is not None
    snap.restore()
    assert log.states[a][:3].tolist() == [READABLE, ABSENT, ABSENT] and log.journal is None
    assert kept.apply(g)
    assert log.states[a][:3].tolist() == [READABLE, READABLE, PARTIAL]
    # a snapshot closed without restoring keeps what the run did; what became readable under
    # it, in ranges of consecutive sectors (a part-written one is not)
    snap = g.snapshot()
    log.read("global", _u64(a + 96, a + 128), 4)
    log.write("global", a + 192 + 4 * np.arange(8, dtype=np.uint64), 4)
    log.write("global", _u64(a + 224), 4)
    assert log.readable_since() == [(a + 96, 64), (a + 192, 32)]
    snap.close()
    assert log.states[a][3:8].tolist() == [READABLE, READABLE, ABSENT, READABLE, PARTIAL]
    assert log.journal is None
    assert log.readable_since() == []


# 64 threads (2 warps) each load their word of p0 (8 sectors, 4 a warp), load a word at a
# scattered index of it (out of order within each warp), add 1 and store their word back;
# thread 0 then adds to a word of p1 and stores the old value to shared memory through a
# generic address
COUNTED = ptx("""
.reg .u32 %r<6>;
.reg .u64 %rd<8>;
.reg .pred %p;
.shared .u32 sh[4];
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd2, %r1, 4;
add.u64 %rd3, %rd1, %rd2;
ld.global.u32 %r2, [%rd3];
mul.lo.u32 %r4, %r1, 37;
rem.u32 %r4, %r4, 64;
mul.wide.u32 %rd4, %r4, 4;
add.u64 %rd4, %rd1, %rd4;
ld.global.u32 %r5, [%rd4];
add.u32 %r2, %r2, 1;
st.global.u32 [%rd3], %r2;
setp.ne.u32 %p, %r1, 0;
@%p bra DONE;
ld.param.u64 %rd1, [p1];
atom.global.add.u32 %r3, [%rd1], 1;
mov.u64 %rd5, sh;
cvta.shared.u64 %rd5, %rd5;
st.u32 [%rd5], %r3;
DONE:
ret;
""", params=".param .u64 p0, .param .u64 p1")


def _counted() -> tuple[GlobalMemory, Callable[[], object], int, int]:
    """A memory with a sector log, :data:`COUNTED` loaded, its two allocations (256 and 64
    bytes): (memory, a function launching it once, p0, p1)."""
    g = GlobalMemory()
    g.sectors = SectorLog(g)
    lm = load_module(COUNTED, g)
    x, s = g.allocate(256), g.allocate(64)
    params = struct.pack("<QQ", x, s)
    return g, lambda: launch(lm, "k", (1, 1, 1), (64, 1, 1), 0, params, gmem=g), x, s


def test_a_launch_counts_its_cold_reads_and_writes():
    """The engine tells the log of each global load, store and atomic (:data:`COUNTED`): the
    64 words read first (8 sectors) and the scattered reads of them after, written back (no
    cold write: the sectors are readable by then), and thread 0's atomic on a word of a second
    allocation (1 cold read); the next launch finds nothing cold."""
    g, run, x, s = _counted()
    first = run()
    again = run()
    assert (first.cold_reads, first.cold_writes) == (9, 0)
    assert (again.cold_reads, again.cold_writes) == (0, 0)
    assert g.read(s, 4).view(np.uint32)[0] == 2 and (g.read(x, 256).view(np.uint32) == 2).all()
    # without a log nothing is counted
    g.sectors = None
    assert run().cold_reads == 0


def test_a_launch_counts_its_global_transactions_per_warp_and_direction():
    """While the memory keeps a log the engine counts each warp's global transactions, the
    32-byte sectors its lanes touched (``mem_insts.count_transactions``), in :data:`COUNTED`:
    the consecutive words (4 sectors a warp), the scattered ones (out of order within the
    warp: each sector counted once), the stores, thread 0's atomic; not its generic store to
    shared memory."""
    g, run, _x, _s = _counted()
    st = run()
    scattered = sum(len({(t * 37 % 64) * 4 // 32 for t in range(w, w + 32)}) for w in (0, 32))
    assert scattered == 16
    assert (st.tx_reads, st.tx_writes) == (8 + scattered, 8 + 1)
    g.sectors = None
    st = run()
    assert (st.tx_reads, st.tx_writes) == (0, 0)


def test_distinct_sectors_per_warp_match_a_count_by_sets():
    """The count of sectors out of order within warps (``mem_insts._distinct_per_warp``) is,
    for every lane or some lanes of a chunk, the number of distinct sectors per warp, summed:
    a lane left out adds none, a warp without lanes is not counted."""
    from types import SimpleNamespace

    from gpgpusim.functional.mem_insts import _distinct_per_warp

    rng = np.random.default_rng(7)
    W = 6
    ex = SimpleNamespace(W=W, all_lanes=np.arange(W * 32, dtype=np.int64))
    sec = rng.integers(0, 9, W * 32).astype(np.int64)

    def by_sets(lanes: np.ndarray) -> int:
        return sum(len({int(sec[i]) for i in lanes if i >> 5 == w}) for w in range(W)
                   if any(i >> 5 == w for i in lanes))

    assert _distinct_per_warp(ex, sec, ex.all_lanes) == by_sets(ex.all_lanes)
    for keep in (0.1, 0.5, 0.9):
        lanes = np.flatnonzero(rng.random(W * 32) < keep).astype(np.int64)
        lanes = lanes[lanes >> 5 != 2]          # warp 2 has no lane at all
        assert _distinct_per_warp(ex, sec[lanes], lanes) == by_sets(lanes)
