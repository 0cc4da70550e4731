"""The trace feed's bounded window (``KernelTrace.streams``, ``-gpgpusim_feed_window``): the
streams replay exactly what the whole-chunk recording holds, in any order of consumption, and
the trace held stays within the window."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "functional"))

from engine_helpers import DATA, ptx  # noqa: E402

from gpgpusim.errors import CudaError  # noqa: E402
from gpgpusim.functional import engine  # noqa: E402
from gpgpusim.functional.loader import load_module  # noqa: E402
from gpgpusim.functional.memory import GlobalMemory  # noqa: E402
from gpgpusim.ptx import load_ptx_cached  # noqa: E402
from gpgpusim.timing import kernel_trace  # noqa: E402
from gpgpusim.timing.kernel_trace import WindowStream, feed_window, record_kernel  # noqa: E402

from .timing_helpers import chunk_sizes  # noqa: E402

#: thread t loops (t / 32 + 1) * 3 times: warps of one CTA run very different lengths
UNEVEN = """
.reg .u32 %r<10>; .reg .u64 %rd<4>; .reg .pred %p<2>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
mov.u32 %r5, %ctaid.x;
mov.u32 %r6, %ntid.x;
mad.lo.u32 %r7, %r5, %r6, %r1;
shr.u32 %r2, %r1, 5;
add.u32 %r2, %r2, 1;
mul.lo.u32 %r2, %r2, 3;
mul.wide.u32 %rd2, %r7, 4;
add.u64 %rd3, %rd1, %rd2;
mov.u32 %r3, 0;
LOOP:
ld.global.u32 %r4, [%rd3];
add.u32 %r4, %r4, %r3;
st.global.u32 [%rd3], %r4;
add.u32 %r3, %r3, 1;
setp.lt.u32 %p1, %r3, %r2;
@%p1 bra LOOP;
ret;
"""


def _uneven(window: int):
    g = GlobalMemory()
    lm = load_module(ptx(UNEVEN), g)
    buf = g.allocate(4 * 3 * 160)
    g.write(buf, np.arange(3 * 160, dtype=np.uint32))
    kt = record_kernel(lm, "k", (3, 1, 1), (160, 1, 1), 0, struct.pack("<Q", buf), gmem=g, window=window)
    return kt, g, buf, 4 * 3 * 160


def _matmul(window: int, n: int = 64):
    mod = load_ptx_cached((DATA / "matmul.ptx").read_text(), "matmul.ptx")
    g = GlobalMemory()
    lm = load_module(mod, g)
    rng = np.random.default_rng(7)
    da, db, dc = (g.allocate(4 * n * n) for _ in range(3))
    g.write(da, rng.integers(-4, 4, n * n).astype(np.float32))
    g.write(db, rng.integers(-4, 4, n * n).astype(np.float32))
    kt = record_kernel(lm, "_Z11matmulTiledPKfS0_Pfi", (n // 16, n // 16, 1), (16, 16, 1), 0,
                       struct.pack("<QQQi", da, db, dc, n), gmem=g, window=window)
    return kt, g, dc, 4 * n * n


#: odd and even lanes take different paths; a partial second warp (40 threads a CTA)
SPLIT = """
.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .pred %p<2>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
and.b32 %r2, %r1, 1;
setp.ne.u32 %p1, %r2, 0;
mov.u32 %r5, %ctaid.x;
mad.lo.u32 %r1, %r5, 40, %r1;
mul.wide.u32 %rd2, %r1, 4;
add.u64 %rd3, %rd1, %rd2;
ld.global.u32 %r4, [%rd3];
@%p1 bra ODD;
mul.lo.u32 %r4, %r4, 3;
bra DONE;
ODD:
add.u32 %r4, %r4, 7;
xor.b32 %r4, %r4, 5;
DONE:
st.global.u32 [%rd3], %r4;
ret;
"""


def _divergent(window: int):
    g = GlobalMemory()
    lm = load_module(ptx(SPLIT), g)
    buf = g.allocate(4 * 80)
    g.write(buf, np.arange(80, dtype=np.uint32))
    kt = record_kernel(lm, "k", (2, 1, 1), (40, 1, 1), 0, struct.pack("<Q", buf), gmem=g, window=window)
    return kt, g, buf, 4 * 80


KERNELS = {"uneven": _uneven, "matmul": _matmul, "divergent": _divergent}


def _acc(a) -> tuple:
    return (a.space, a.is_store, a.is_atomic, a.size, a.lanes.tolist(), a.addrs.tolist())


def _whole(make) -> tuple[dict, bytes, tuple[int, int]]:
    """Per (CTA, warp): the list of (pc, executed, active, accesses) from the whole-chunk
    recording; the output memory; the kernel's counts."""
    kt, g, out, nbytes = make(0)
    got = {}
    for cid, ws in kt.ctas():
        for i, w in enumerate(ws):
            mem = w.mem
            got[cid, i] = [(int(w.pcs[k]), int(w.executed[k]), int(w.active[k]),
                            [_acc(a) for a in mem.get(k, [])]) for k in range(len(w.pcs))]
    return got, bytes(g.read(out, nbytes)), (kt.stats.warp_insn, kt.stats.thread_insn)


def _issue(s) -> tuple:
    pc = s.pc
    exe, act, mem = s.issue(0)
    return (pc, exe, act, [_acc(a) for a in mem or []])


def _held(kt, streams: dict) -> int:
    """Instructions recorded and not yet issued: the streams' current segments' rest and the
    segments queued in the open chunks."""
    return sum(s.n - s.pos for s in streams.values()) + sum(int(c.ahead.sum()) for c in kt.open_chunks)


def _windowed(make, window: int, order: str) -> tuple[dict, bytes, tuple[int, int], int]:
    """The same from ``streams()``, consumed in ``order``: 'round' (one instruction of every
    warp in turn) or 'serial' (each warp to its end before the next: the others run up to the
    window and are held); also the most instructions any chunk held queued at once."""
    kt, g, out, nbytes = make(window)
    got: dict = {}
    streams: dict = {}
    most = 0
    for cid, ws in kt.streams():
        for i, s in enumerate(ws):
            assert isinstance(s, WindowStream)
            streams[cid, i] = s
            got[cid, i] = []
    live = [k for k, s in streams.items() if s.pc >= 0]
    while live:
        if order == "serial":
            k = live[0]
            while streams[k].pc >= 0:
                got[k].append(_issue(streams[k]))
                most = max(most, _held(kt, streams))
        else:
            for k in live:
                got[k].append(_issue(streams[k]))
            most = max(most, _held(kt, streams))
        live = [k for k in live if streams[k].pc >= 0]
    assert not kt.open_chunks
    return got, bytes(g.read(out, nbytes)), (kt.stats.warp_insn, kt.stats.thread_insn), most


@pytest.mark.parametrize("name", sorted(KERNELS))
@pytest.mark.parametrize("window", [1, 8, 256])
@pytest.mark.parametrize("order", ["round", "serial"])
def test_windowed_streams_replay_the_whole_recording(name, window, order, monkeypatch):
    """Every warp gets the same instructions, masks and lane addresses as the whole-chunk
    recording, the memory ends the same and the counts agree; both batched paths (the
    divergent kernel's chunk has 4 warps: the scalar path)."""
    whole, mem, counts = _whole(KERNELS[name])
    got, mem2, counts2, _ = _windowed(KERNELS[name], window, order)
    assert got.keys() == whole.keys()
    for k in whole:
        assert got[k] == whole[k], k
    assert mem2 == mem
    assert counts2 == counts


def test_the_window_bounds_what_is_queued():
    """Consumed round robin, no warp runs much more than the window ahead: the instructions
    recorded and not yet issued never exceed warps x (window + refill), whatever the kernel's
    length (the uneven kernel's warps run 3 to 15 iterations of 6 instructions; warps that
    leave the loop early make the others run past them, held at the window)."""
    whole, _, _ = _whole(_uneven)
    longest = max(len(v) for v in whole.values())
    total = sum(len(v) for v in whole.values())
    _, _, _, most = _windowed(_uneven, 8, "round")
    assert longest > 80
    assert most <= 3 * 5 * (8 + 2)             # warps x (window + refill)
    _, _, _, most0 = _windowed(_uneven, 256, "round")
    assert most0 > total * 3 // 4               # the window holds almost the whole kernel


def test_a_closed_chunk_releases_its_functional_run(monkeypatch):
    """Once every warp of a chunk has exited in the functional run, the chunk drops its
    ``Exec`` (registers of every lane), recorder and driver, and gives the heap's free pages
    back (``hostmem.release_free``), though the timing model still holds its streams (and so
    the chunk) until their warps are timed: the matmul's chunk (16 CTAs, window 8) closes while
    its warps still have instructions queued to replay, and the replay finishes from the queue."""
    released: list[bool] = []
    monkeypatch.setattr(kernel_trace, "release_free",
                        lambda: released.append(chunk.ex is None and not kt.open_chunks))
    kt, g, out, nbytes = _matmul(8, n=64)
    streams = [s for _, ws in kt.streams() for s in ws]
    chunk = streams[0].chunk
    assert chunk is not None and chunk.ex is not None and len(kt.open_chunks) == 1
    # replay warp 0 alone to its end: the others run ahead to the window and are held there
    while streams[0].pc >= 0:
        streams[0].issue(0)
    assert chunk.ex is not None                 # the others have not exited yet
    while any(s.pc >= 0 for s in streams):
        for s in streams:
            if s.pc >= 0:
                s.issue(0)
        if chunk.closed:
            break
    assert chunk.closed and not kt.open_chunks and released == [True]
    assert chunk.ex is None and chunk.rec is None and chunk.run is None
    assert any(s.pc >= 0 for s in streams)      # ... while replay goes on
    for s in streams:
        while s.pc >= 0:
            s.issue(0)
    assert kt.done
    whole, mem, counts = _whole(_matmul)
    assert bytes(g.read(out, nbytes)) == mem and (kt.stats.warp_insn, kt.stats.thread_insn) == counts


def test_a_fault_surfaces_at_the_issue_that_reaches_it():
    """A fault is raised when the stream that needs the faulting instruction's record runs the
    chunk: from ``issue``, as the live feed raises it, not when the CTA is taken."""
    m = ptx("""
.reg .u64 %rd<4>; .reg .u32 %r<4>;
mov.u32 %r1, 1;
mov.u32 %r2, 2;
mov.u32 %r3, 3;
mov.u64 %rd1, 16;
ld.global.u32 %r1, [%rd1];
ret;
""")
    g = GlobalMemory()
    lm = load_module(m, g)
    kt = record_kernel(lm, "k", (1, 1, 1), (32, 1, 1), 0, b"\0" * 8, gmem=g, window=4)
    (cid, (s,)), = [(c, ws) for c, ws in [next(kt.streams())]]
    assert s.pc >= 0
    with pytest.raises(CudaError, match="out of bounds"):
        for _ in range(8):
            s.issue(0)


def test_feed_window_option():
    assert feed_window(None) == 64
    assert feed_window("0") == 0
    assert feed_window(64) == 64
    with pytest.raises(CudaError, match="feed_window"):
        feed_window(-1)


def test_pausing_the_batched_driver_keeps_its_schedule():
    """``BatchedRun.run`` stopped after every step and resumed issues the same sequence as one
    uninterrupted run (the fairness clock and last-issue steps persist across calls)."""
    def trace(step_by_step: bool) -> list:
        kt, g, out, nbytes = _uneven(0)
        lc = kt._lc
        ex = engine.chunk_exec(lc, list(range(lc.total)), None)
        seen: list = []
        orig = engine._issue

        def spy(ex_, G, p):
            seen.append((p, G.tolist()))
            orig(ex_, G, p)
        engine._issue = spy
        try:
            run = engine.BatchedRun(ex)
            if step_by_step:
                while run.run(lambda: True):
                    pass
            else:
                assert run.run() is False
        finally:
            engine._issue = orig
        return seen
    assert trace(True) == trace(False)


@pytest.mark.parametrize("enabled", [True, False])
def test_pumping_leaves_the_collector_as_it_was(enabled):
    """The collector is paused while a chunk runs for a stream and comes back as it was."""
    import gc
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        kt, _, _, _ = _matmul(8)
        streams = [s for _, ws in kt.streams() for s in ws]
        while any(s.pc >= 0 for s in streams):
            for s in streams:
                if s.pc >= 0:
                    s.issue(0)
                    assert gc.isenabled() is enabled
        assert kt.done
    finally:
        (gc.enable if was else gc.disable)()


def test_a_timed_launch_runs_in_small_chunks_and_its_cut_rest_in_the_engines(monkeypatch):
    """``prepare_launch``'s ``chunk_threads`` bounds the chunks the timing model holds (its
    ``FEED_CHUNK_THREADS``); the ``functional_chunk_threads`` option overrides it, and without
    either a chunk is the engine's :data:`~gpgpusim.functional.engine.CHUNK_THREADS`.  Once a
    launch is cut, the CTAs not taken yet run in chunks of that engine bound (``per_full``):
    6 CTAs of 160 threads, timed one a chunk, cut after two, the last four run as one chunk,
    and memory and counts are those of the whole functional run."""
    sizes = chunk_sizes(monkeypatch)
    n = 6 * 160

    def launch(g: GlobalMemory, **kw):
        lm = load_module(ptx(UNEVEN), g)
        buf = g.allocate(4 * n)
        g.write(buf, np.arange(n, dtype=np.uint32))
        return lm, buf, engine.prepare_launch(lm, "k", (6, 1, 1), (160, 1, 1), 0, struct.pack("<Q", buf),
                                              gmem=g, **kw)

    full = 65536 // 160
    default = launch(GlobalMemory())[2]
    assert (default.per, default.per_full) == (full, full)
    forced = launch(GlobalMemory(), chunk_threads=160, options={"functional_chunk_threads": 320})[2]
    assert (forced.per, forced.per_full) == (2, 2)
    g = GlobalMemory()
    _, buf, lc = launch(g, chunk_threads=160)
    assert (lc.per, lc.per_full) == (1, full)
    kt = kernel_trace.KernelTrace(lc, 8, None)
    it = iter(kt.streams())
    next(it)
    next(it)
    assert sizes == [1, 1]
    kt.cut()
    assert list(it) == [] and sizes == [1, 1, 4] and kt.done
    t = np.arange(n) % 160
    k = (t // 32 + 1) * 3
    assert np.frombuffer(bytes(g.read(buf, 4 * n)), np.uint32).tolist() == (np.arange(n) + k * (k - 1) // 2).tolist()
    g2 = GlobalMemory()
    lm2, buf2, _ = launch(g2)
    st = engine.launch(lm2, "k", (6, 1, 1), (160, 1, 1), 0, struct.pack("<Q", buf2), gmem=g2)
    assert (kt.stats.warp_insn, kt.stats.thread_insn) == (st.warp_insn, st.thread_insn)
