"""The trace feed (gpgpusim.timing.feed): per-warp pcs, masks and lane addresses."""

from __future__ import annotations

import gc
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "functional"))

from engine_helpers import DATA, ptx  # noqa: E402

from gpgpusim.errors import CudaError  # noqa: E402
from gpgpusim.functional import engine  # noqa: E402
from gpgpusim.functional.engine import launch  # noqa: E402
from gpgpusim.functional.loader import load_module  # noqa: E402
from gpgpusim.functional.memory import GlobalMemory  # noqa: E402
from gpgpusim.ptx import load_ptx_cached  # noqa: E402
from gpgpusim.timing.feed import MemAccess
from gpgpusim.timing.kernel_trace import record_kernel
from gpgpusim.timing.live_check import needs_live_feed  # noqa: E402

DIVERGENT = """
.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .pred %p<2>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
and.b32 %r2, %r1, 1;
setp.eq.u32 %p1, %r2, 0;
@%p1 bra EVEN;
add.u32 %r3, %r1, 100;
bra DONE;
EVEN:
add.u32 %r3, %r1, 200;
DONE:
mul.wide.u32 %rd2, %r1, 4;
add.u64 %rd3, %rd1, %rd2;
ld.global.u32 %r4, [%rd3];
add.u32 %r3, %r3, %r4;
st.global.u32 [%rd3], %r3;
ret;
"""


class Opts:
    def __init__(self, **kw):
        self.kw = kw

    def get(self, name):
        return self.kw.get(name)


def _setup(module, nbytes):
    g = GlobalMemory()
    lm = load_module(module, g)
    buf = g.allocate(nbytes)
    g.write(buf, np.zeros(nbytes, dtype=np.uint8))
    return g, lm, buf


def _check_counts(kt, traces):
    warp = sum(len(w.pcs) for _, ws in traces for w in ws)
    thread = sum(int(np.bitwise_count(w.executed).sum()) if hasattr(np, "bitwise_count")
                 else sum(int(x).bit_count() for x in w.executed) for _, ws in traces for w in ws)
    assert warp == kt.stats.warp_insn
    assert thread == kt.stats.thread_insn


def test_issue_results_share_their_objects():
    """``warp_results`` of the divergent trace: the right (executed, active, accesses) per
    position, and no object of its own where one can be shared (a window holds ~80 results a
    warp): one tuple per mask pair without accesses, across warps and calls, and one full-mask
    int in a full-mask memory result."""
    from gpgpusim.timing import feed
    m = ptx(DIVERGENT)
    g, lm, buf = _setup(m, 4 * 64)
    kt = record_kernel(lm, "k", (2, 1, 1), (64, 1, 1), 0, struct.pack("<Q", buf), gmem=g)
    traces = [wt for _c, ws in kt.ctas() for wt in ws]
    results = [feed.warp_results(wt) for wt in traces]
    F, E, O = 0xFFFFFFFF, 0x55555555, 0xAAAAAAAA
    for wt, (pcs, res) in zip(traces, results, strict=True):
        assert pcs == wt.pcs.tolist()
        assert [r[:2] for r in res] == list(zip(wt.executed.tolist(), wt.active.tolist(), strict=True))
        assert [r[2] is not None for r in res] == [p in wt.mem for p in range(len(res))]
        assert res[5][:2] == (E, E) and res[6][:2] == (O, O) and res[3][:2] == (F, F)
        for p in (10, 12):                      # the ld and st, full masks
            assert res[p][0] is res[p][1]
    for p in (5, 6, 7):                         # the divergent positions: one tuple each
        assert len({id(res[p]) for _pcs, res in results}) == 1
    assert results[0][1][5] is feed.warp_results(traces[0])[1][5]
    assert all(res[3] is results[0][1][3] for _pcs, res in results)    # full masks: one tuple


@pytest.mark.parametrize("small_w", [None, 0])
def test_divergent_pcs_masks_and_addresses(small_w):
    """Exact per-warp pcs / masks (warp 1 is partial: 8 of 40 threads), both batched paths."""
    m = ptx(DIVERGENT)
    g, lm, buf = _setup(m, 4 * 40)
    saved = engine._SMALL_W
    if small_w is not None:
        engine._SMALL_W = small_w
    try:
        kt = record_kernel(lm, "k", (2, 1, 1), (40, 1, 1), 0, struct.pack("<Q", buf), gmem=g)
        traces = [(c, ws) for c, ws in kt.ctas()]
    finally:
        engine._SMALL_W = saved
    assert kt.ncta == 2 and kt.warps_per_cta == 2
    assert [c for c, _ in traces] == [0, 1]
    # pc order: the taken side (EVEN, pc 7) runs first, then pcs 5, 6, reconverging at 8
    want_pcs = [0, 1, 2, 3, 4, 7, 5, 6, 8, 9, 10, 11, 12, 13]
    F, E, O = 0xFFFFFFFF, 0x55555555, 0xAAAAAAAA
    for _, ws in traces:
        assert len(ws) == 2
        for w, full in zip(ws, (F, 0xFF), strict=True):
            assert w.pcs.dtype == np.int32 and w.active.dtype == np.uint32
            assert w.pcs.tolist() == want_pcs
            assert w.active.tolist() == [full] * 5 + [E & full, O & full, O & full] + [full] * 6
            assert w.executed.tolist() == [full] * 4 + [E & full] * 2 + [O & full] * 2 + [full] * 6
    _check_counts(kt, traces)
    # memory: the ld (position 10) and st (position 12) of each warp
    w1 = traces[0][1][1]
    assert sorted(w1.mem) == [10, 12]
    (ld,) = w1.mem[10]
    (st,) = w1.mem[12]
    assert isinstance(ld, MemAccess)
    assert (ld.space, ld.is_store, ld.is_atomic, ld.size) == ("global", False, False, 4)
    assert (st.space, st.is_store, st.is_atomic, st.size) == ("global", True, False, 4)
    assert ld.lanes.tolist() == list(range(8))
    assert ld.addrs.dtype == np.uint64
    assert ld.addrs.tolist() == [buf + 4 * (32 + i) for i in range(8)]
    assert st.addrs.tolist() == ld.addrs.tolist()
    # values: computed by the functional engine (both CTAs of the chunk load before storing)
    out = g.read(buf, 4 * 40).view(np.uint32)
    assert out.tolist() == [(200 if t % 2 == 0 else 100) + t for t in range(40)]


def test_guard_false_lanes_make_no_access_and_vectors_merge():
    m = ptx("""
.reg .u32 %r<8>; .reg .u64 %rd<4>; .reg .pred %p<2>; .reg .f32 %f<5>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
setp.lt.u32 %p1, %r1, 5;
mul.wide.u32 %rd2, %r1, 16;
add.u64 %rd3, %rd1, %rd2;
@%p1 ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd3];
@%p1 st.global.v2.f32 [%rd3+8], {%f1, %f2};
ret;
""")
    g, lm, buf = _setup(m, 16 * 64)
    kt = record_kernel(lm, "k", (1, 1, 1), (64, 1, 1), 0, struct.pack("<Q", buf), gmem=g)
    traces = list(kt.ctas())
    _check_counts(kt, traces)
    w0, w1 = traces[0][1]
    assert w1.mem == {}                      # guard false in every lane of warp 1
    assert w1.executed.tolist()[5:7] == [0, 0]
    (ld,) = w0.mem[5]
    (st,) = w0.mem[6]
    assert (ld.size, st.size) == (16, 8)
    assert ld.lanes.tolist() == [0, 1, 2, 3, 4]
    assert ld.addrs.tolist() == [buf + 16 * i for i in range(5)]
    assert st.addrs.tolist() == [buf + 16 * i + 8 for i in range(5)]


def test_shared_generic_and_atomics():
    m = ptx("""
.reg .u32 %r<8>; .reg .u64 %rd<6>; .reg .pred %p<2>;
.shared .align 4 .b8 sm[256];
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
shl.b32 %r2, %r1, 2;
mov.u32 %r3, sm;
add.u32 %r4, %r3, %r2;
st.shared.u32 [%r4], %r1;
bar.sync 0;
mov.u64 %rd2, sm;
cvta.shared.u64 %rd3, %rd2;
cvt.u64.u32 %rd4, %r2;
add.u64 %rd5, %rd3, %rd4;
ld.u32 %r5, [%rd5];
atom.global.add.u32 %r6, [%rd1], %r5;
red.global.add.u32 [%rd1+4], 1;
ret;
""")
    g, lm, buf = _setup(m, 64)
    kt = record_kernel(lm, "k", (1, 1, 1), (32, 1, 1), 0, struct.pack("<Q", buf), gmem=g)
    assert needs_live_feed(kt.prog) is None         # the atom's result is never read
    ((cid, (w,)),) = list(kt.ctas())
    ops = kt.prog.opcode_of
    pos = {ops[int(pc)] + str(i): i for i, pc in enumerate(w.pcs)}
    (sst,) = w.mem[pos["st5"]]
    assert (sst.space, sst.is_store) == ("shared", True)
    assert sst.addrs.tolist() == [4 * i for i in range(32)]
    (gld,) = w.mem[pos["ld11"]]                 # generic load resolved to shared, space-relative
    assert (gld.space, gld.is_store, gld.size) == ("shared", False, 4)
    assert gld.addrs.tolist() == [4 * i for i in range(32)]
    (at,) = w.mem[pos["atom12"]]
    assert (at.space, at.is_store, at.is_atomic, at.size) == ("global", False, True, 4)
    assert at.addrs.tolist() == [buf] * 32 and at.lanes.tolist() == list(range(32))
    (rd,) = w.mem[pos["red13"]]
    assert (rd.is_atomic, rd.addrs.tolist()) == (True, [buf + 4] * 32)
    assert 0 not in w.mem                          # ld.param is not memory traffic
    assert g.read(buf, 8).view(np.uint32).tolist() == [sum(range(32)), 32]


def test_several_chunks_in_cta_order_and_same_counts_as_launch():
    m = ptx(DIVERGENT)
    opts = Opts(functional_chunk_threads=64)         # 1 CTA of 40 threads (64 lanes) per chunk
    g, lm, buf = _setup(m, 4 * 40)
    params = struct.pack("<Q", buf)
    ls: dict = {}
    kt = record_kernel(lm, "k", (3, 2, 1), (40, 1, 1), 0, params, gmem=g, options=opts, line_stats=ls)
    seen = []
    for cid, ws in kt.ctas():
        seen.append(cid)
        assert len(ws) == 2
        if cid < 5:
            assert kt.stats.warp_insn < 6 * 2 * 14      # lazily: not all chunks have run yet
        assert ws[0].mem[10][0].addrs.tolist() == [buf + 4 * i for i in range(32)]
    assert seen == list(range(6))
    assert kt.done
    g2, lm2, buf2 = _setup(m, 4 * 40)
    ls2: dict = {}
    st = launch(lm2, "k", (3, 2, 1), (40, 1, 1), 0, struct.pack("<Q", buf2), gmem=g2, options=opts,
                line_stats=ls2)
    assert (kt.stats.warp_insn, kt.stats.thread_insn, kt.stats.active_insn, kt.stats.ctas) == \
        (st.warp_insn, st.thread_insn, st.active_insn, st.ctas) == (168, 6 * 40 * 12, 3000, 6)
    assert kt.stats.opcode_counts == st.opcode_counts
    assert ls == ls2
    with pytest.raises(RuntimeError):
        kt.ctas()


def test_matmul_counts_match():
    mod = load_ptx_cached((DATA / "matmul.ptx").read_text(), "matmul.ptx")
    n = 64
    g = GlobalMemory()
    lm = load_module(mod, g)
    rng = np.random.default_rng(0)
    A = rng.integers(-3, 4, (n, n)).astype(np.float32)
    B = rng.integers(-3, 4, (n, n)).astype(np.float32)
    da, db, dc = (g.allocate(4 * n * n) for _ in range(3))
    g.write(da, A)
    g.write(db, B)
    kname = "_Z11matmulTiledPKfS0_Pfi"
    kt = record_kernel(lm, kname, (n // 16, n // 16, 1), (16, 16, 1), 0,
                       struct.pack("<QQQi", da, db, dc, n), gmem=g)
    traces = list(kt.ctas())
    assert [c for c, _ in traces] == list(range(16))
    _check_counts(kt, traces)
    C = g.read(dc, 4 * n * n).view(np.float32).reshape(n, n)
    np.testing.assert_array_equal(C, A @ B)
    # every warp: one global load of A per tile at row-contiguous addresses
    w = traces[5][1][3]
    ld_pos = [p for p, accs in w.mem.items() if accs[0].space == "global" and not accs[0].is_store]
    assert len(ld_pos) == 2 * (n // 16)
    assert all(len(a.lanes) == 32 for accs in w.mem.values() for a in accs)


def _matmul_trace(n=64, window=0):
    mod = load_ptx_cached((DATA / "matmul.ptx").read_text(), "matmul.ptx")
    g = GlobalMemory()
    lm = load_module(mod, g)
    da, db, dc = (g.allocate(4 * n * n) for _ in range(3))
    return record_kernel(lm, "_Z11matmulTiledPKfS0_Pfi", (n // 16, n // 16, 1), (16, 16, 1), 0,
                         struct.pack("<QQQi", da, db, dc, n), gmem=g, window=window)


@pytest.mark.parametrize("enabled", [True, False])
def test_recording_pauses_the_collector_and_promotes_the_trace(enabled):
    """Whole-chunk recording (``-gpgpusim_feed_window 0``): the collector is off while a chunk
    is recorded and its streams built, and comes back as it was; the new trace objects go
    straight to the oldest generation, so no young collection walks them (the young count
    restarts near zero after each CTA's streams)."""
    saved = gc.get_threshold(), gc.isenabled()
    gc.set_threshold(10**9)         # no collection of its own during the test
    (gc.enable if enabled else gc.disable)()
    try:
        kt = _matmul_trace()
        for cid, streams in kt.streams():
            assert gc.isenabled() is enabled
            assert gc.get_count()[0] < 50           # thousands of new objects per CTA
            if cid == 3:
                old = {id(o) for o in gc.get_objects(generation=2)}
                assert id(streams[0].res) in old and id(streams[-1].pcs) in old
        assert kt.done and gc.isenabled() is enabled
    finally:
        gc.set_threshold(*saved[0])
        (gc.enable if saved[1] else gc.disable)()


def _faulting_trace():
    """A one-warp kernel whose load at address 16 faults while it is recorded."""
    m = ptx("""
.reg .u64 %rd<4>; .reg .u32 %r<4>;
mov.u64 %rd1, 16;
ld.global.u32 %r1, [%rd1];
ret;
""")
    g, lm, buf = _setup(m, 16)
    return record_kernel(lm, "k", (1, 1, 1), (32, 1, 1), 0, struct.pack("<Q", buf), gmem=g)


def test_a_fault_while_recording_leaves_the_collector_on():
    kt = _faulting_trace()
    assert gc.isenabled()
    with pytest.raises(CudaError):
        list(kt.streams())
    assert gc.isenabled()


def test_faults_propagate_like_launch():
    kt = _faulting_trace()
    with pytest.raises(CudaError):
        list(kt.ctas())


def test_needs_live_feed():
    assert needs_live_feed(_prog(DIVERGENT)) is None
    assert "%clock" in needs_live_feed(_prog("""
.reg .u32 %r<4>;
mov.u32 %r1, %clock;
ret;
"""))
    assert "atomic" in needs_live_feed(_prog("""
.reg .u32 %r<4>; .reg .u64 %rd<3>;
ld.param.u64 %rd1, [p0];
atom.global.add.u32 %r1, [%rd1], 1;
st.global.u32 [%rd1+4], %r1;
ret;
"""))
    assert needs_live_feed(_prog("""
.reg .u32 %r<4>; .reg .u64 %rd<3>;
ld.param.u64 %rd1, [p0];
atom.global.add.u32 %r1, [%rd1], 1;
ret;
""")) is None                                     # result never read
    assert "volatile" in needs_live_feed(_prog("""
.reg .u32 %r<4>; .reg .u64 %rd<3>;
ld.param.u64 %rd1, [p0];
ld.volatile.global.u32 %r1, [%rd1];
ret;
"""))
    gs = load_ptx_cached((DATA / "grid_sync.ptx").read_text(), "grid_sync.ptx")
    g = GlobalMemory()
    lm = load_module(gs, g)
    name = next(iter(gs.kernels))
    assert needs_live_feed(engine.get_program(lm, name)) is not None


def test_needs_live_feed_for_a_gather_and_scatter_on_loaded_indices():
    """bfs's ``u = cols[e]; if (level[u] < 0) level[u] = ...``: a store and a load at addresses
    computed from loaded values (through arithmetic and a loop-carried register) -> live; a
    gather alone (or a scatter alone) stays on the trace feed."""
    head = """.reg .u32 %r<8>; .reg .u64 %rd<8>; .reg .pred %p<2>;
ld.param.u64 %rd1, [p0];
ld.global.u32 %r1, [%rd1];
mul.wide.u32 %rd2, %r1, 4;
add.u64 %rd3, %rd1, %rd2;
"""
    why = needs_live_feed(_prog(head + """ld.global.u32 %r2, [%rd3+4];
setp.lt.s32 %p1, %r2, 0;
@%p1 st.global.u32 [%rd3+4], %r1;
ret;
"""))
    assert why is not None and "data-dependent address" in why and "st.global.u32 [%rd3+4]" in why
    assert needs_live_feed(_prog(head + """ld.global.u32 %r2, [%rd3+4];
st.global.u32 [%rd1+8], %r2;
ret;
""")) is None                                     # gather only: the store's address is fixed
    assert needs_live_feed(_prog(head + """st.global.u32 [%rd3+4], %r1;
ret;
""")) is None                                     # scatter only
    # a guard computed from a loaded value does not make a constant address data-dependent
    assert needs_live_feed(_prog(head + """ld.global.u32 %r2, [%rd3+4];
setp.lt.s32 %p1, %r2, 0;
@%p1 mov.u64 %rd4, %rd1;
@%p1 st.global.u32 [%rd4], %r1;
ret;
""")) is None



def test_race_check_follows_program_order():
    """A register loaded into and then written again with a clean value is clean again (SASS
    reuses registers; PTXPlus builds every address in one temporary): the data flow follows the
    program order, through branches and loops, and a guarded write does not clean its register."""
    head = """.reg .u32 %r<8>; .reg .u64 %rd<8>; .reg .pred %p<2>;
ld.param.u64 %rd1, [p0];
ld.global.u32 %r1, [%rd1];
"""
    # %rd2 holds a loaded value only until it is recomputed from the parameter
    assert needs_live_feed(_prog(head + """mul.wide.u32 %rd2, %r1, 4;
add.u64 %rd2, %rd1, %rd2;
ld.global.u32 %r2, [%rd2];
add.u64 %rd2, %rd1, 8;
st.global.u32 [%rd2], %r2;
ret;
""")) is None
    # the same store, reached again by a loop whose back edge carries the loaded address
    why = needs_live_feed(_prog(head + """add.u64 %rd2, %rd1, 8;
LOOP:
st.global.u32 [%rd2], %r1;
mul.wide.u32 %rd3, %r1, 4;
add.u64 %rd2, %rd1, %rd3;
ld.global.u32 %r1, [%rd2];
setp.ne.u32 %p1, %r1, 0;
@%p1 bra LOOP;
ret;
"""))
    assert why is not None and "st.global.u32 [%rd2]" in why
    # a guarded clean write leaves the loaded address in the lanes that skip it
    why = needs_live_feed(_prog(head + """mul.wide.u32 %rd2, %r1, 4;
add.u64 %rd2, %rd1, %rd2;
ld.global.u32 %r2, [%rd2];
setp.eq.u32 %p1, %r2, 0;
@%p1 add.u64 %rd2, %rd1, 8;
st.global.u32 [%rd2], %r2;
ret;
"""))
    assert why is not None


def _prog(body):
    g, lm, _ = _setup(ptx(body), 64)
    return engine.get_program(lm, "k")


def test_recorder_detached_after_recording():
    m = ptx(DIVERGENT)
    g, lm, buf = _setup(m, 4 * 40)
    kt = record_kernel(lm, "k", (1, 1, 1), (40, 1, 1), 0, struct.pack("<Q", buf), gmem=g)
    (_, ws), = list(kt.ctas())
    # the same kernel launched plainly records nothing and gives the same counts
    st = launch(lm, "k", (1, 1, 1), (40, 1, 1), 0, struct.pack("<Q", buf), gmem=g)
    assert st.warp_insn == kt.stats.warp_insn == sum(len(w.pcs) for w in ws)
