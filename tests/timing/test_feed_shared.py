"""The trace feed's shared-memory accesses (feed.SharedAccess) and replay (feed.TraceStream):
the bank-conflict degree computed for all the warps of a record at once
(coalesce.shared_conflict_degrees) equals the per-warp one, field for field the lazy access
equals the MemAccess the live feed's cut builds, and a stream replays its WarpTrace."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "functional"))

from engine_helpers import ptx  # noqa: E402

from gpgpusim.functional.loader import load_module  # noqa: E402
from gpgpusim.functional.memory import GlobalMemory  # noqa: E402
from gpgpusim.timing import feed  # noqa: E402
from gpgpusim.timing.core import coalesce as C  # noqa: E402
from gpgpusim.timing.feed import MemAccess, SharedAccess, TraceStream, cut_record
from gpgpusim.timing.kernel_trace import record_kernel  # noqa: E402

CONFIGS = [(32, 1), (32, 2), (16, 1), (8, 4), (32, 3)]


def _per_warp(warp, lane, addrs, n_warps, banks, parts):
    out = []
    for w in range(n_warps):
        m = warp == w
        out.append(C._conflict_degree(lane[m], addrs[m], banks, parts) if m.any() else 0)
    return out


@pytest.mark.parametrize("banks,parts", CONFIGS)
def test_degrees_of_a_record_equal_the_per_warp_degree(banks, parts):
    rng = np.random.default_rng(banks * 10 + parts)
    for trial in range(40):
        n_warps = int(rng.integers(1, 40))
        # a few row patterns repeated (CTAs tiling the same layout) plus random rows
        pats = [rng.integers(0, int(rng.choice([8, 64, 4096])), 32) * int(rng.choice([1, 4, 8, 132]))
                for _ in range(3)]
        warp, lane, addrs = [], [], []
        for w in range(n_warps):
            row = pats[w % 3] if rng.random() < 0.6 else rng.integers(0, 1 << 14, 32)
            keep = np.ones(32, bool) if rng.random() < 0.5 else rng.random(32) < 0.5
            if trial % 7 == 0 and w % 5 == 1:
                keep[:] = False                     # a warp without lanes
            ln = np.flatnonzero(keep)
            warp += [w] * len(ln)
            lane += ln.tolist()
            addrs += np.asarray(row)[ln].tolist()
        wa, la = np.array(warp, np.int64), np.array(lane, np.int64)
        aa = np.array(addrs, np.uint64)
        got = C.shared_conflict_degrees(wa * 32 + la, aa, n_warps, banks, parts).tolist()
        assert got == _per_warp(wa, la, aa, n_warps, banks, parts)
        # the memoised per-warp entry point agrees too
        for w in range(n_warps):
            m = wa == w
            if m.any():
                assert got[w] == C.shared_conflict_degree(la[m], aa[m], banks, parts)


def test_degrees_fall_back_on_large_words_and_hash_collisions(monkeypatch):
    rng = np.random.default_rng(7)
    warp = np.repeat(np.arange(6, dtype=np.int64), 32)
    lane = np.tile(np.arange(32, dtype=np.int64), 6)
    big = (rng.integers(0, 64, 6 * 32).astype(np.uint64) * np.uint64(4)) + np.uint64(1 << 44)
    for slots in (warp * 32 + lane, None):
        assert C.shared_conflict_degrees(slots, big, 6, 32, 2).tolist() == _per_warp(warp, lane, big, 6, 32, 2)
    small = (lane * 4 * (warp + 1)).astype(np.uint64)          # strides of 1..6 words
    want = _per_warp(warp, lane, small, 6, 32, 1)
    assert want == [1, 2, 1, 4, 1, 2]
    monkeypatch.setattr(C, "_ROW_MULT", np.zeros(32, np.int64))     # every row hashes alike
    assert C.shared_conflict_degrees(None, small, 6, 32, 1).tolist() == want
    assert C.shared_conflict_degrees(warp[:0], small[:0], 6, 32, 1).tolist() == [0] * 6


SHARED = """
.reg .u32 %r<10>; .reg .pred %p<2>;
.shared .align 4 .b8 sm[4096];
mov.u32 %r1, %tid.x;
mov.u32 %r7, %ctaid.x;
add.u32 %r8, %r7, 1;
mul.lo.u32 %r2, %r1, %r8;
and.b32 %r2, %r2, 1000;
shl.b32 %r2, %r2, 2;
mov.u32 %r3, sm;
add.u32 %r4, %r3, %r2;
st.shared.u32 [%r4], %r1;
bar.sync 0;
setp.lt.u32 %p1, %r1, 40;
@%p1 ld.shared.u32 %r5, [%r4];
ld.shared.v2.u32 {%r5, %r6}, [%r3+8];
ret;
"""


@pytest.mark.parametrize("vec_min", [0, 10**9])     # degrees vectorised / memoised per warp
def test_shared_access_equals_the_live_cut_and_stream_replays_the_trace(monkeypatch, vec_min):
    monkeypatch.setattr(feed, "_VEC_MIN_WARPS", vec_min)
    m = ptx(SHARED)
    g = GlobalMemory()
    lm = load_module(m, g)
    kt = record_kernel(lm, "k", (6, 1, 1), (96, 1, 1), 0, struct.pack("<Q", 0), gmem=g)
    n_shared = n_partial = 0
    for _cid, ws in kt.ctas():
        for wt in ws:
            ch, w, seqs = wt._chunk, wt._w, wt._seqs.tolist()
            assert ch is not None
            mem = wt.mem
            for pos, accs in mem.items():
                ref: list[MemAccess] = []
                for ri in ch.by_seq[seqs[pos]]:
                    cut_record(ch.recs[ri], w, ref)
                assert len(accs) == len(ref)
                for a, r in zip(accs, ref, strict=True):
                    assert isinstance(a, SharedAccess) and r.space == "shared"
                    assert (a.space, a.is_store, a.is_atomic, a.size, a.on_exit) == \
                        (r.space, r.is_store, r.is_atomic, r.size, None)
                    assert a.lanes.tolist() == r.lanes.tolist() and a.addrs.tolist() == r.addrs.tolist()
                    assert a.addrs.dtype == r.addrs.dtype == np.uint64
                    for banks, parts in CONFIGS:
                        assert a.degree(banks, parts) == C._conflict_degree(r.lanes, r.addrs, banks, parts)
                    n_shared += 1
                    n_partial += len(r.lanes) < 32
            # the stream returns, position by position, the trace's masks and accesses
            s = TraceStream(wt)
            pcs = wt.pcs.tolist()
            for pos, pc in enumerate(pcs):
                assert s.pc == pc
                ex, act, acc = s.issue(0)
                assert (ex, act) == (int(wt.executed[pos]), int(wt.active[pos]))
                assert acc is mem.get(pos)
            assert s.pc == -1
    # 6 CTAs x 3 warps: a store and a (vector, broadcast) load each, and the guarded load of
    # warp 0 (32 lanes) and warp 1 (lanes 0..7)
    assert n_shared == 6 * (3 * 2 + 2)
    assert n_partial == 6
    assert kt.done


@pytest.mark.parametrize("banks,parts", [(32, 1), (8, 4)])
@pytest.mark.parametrize("window", [0, 4])
def test_reduced_shared_records_keep_the_degrees_and_drop_the_addresses(banks, parts, window):
    """With the cores' shared-memory configuration (``shared_cfg``, as the GPU passes it) each
    shared-memory access is an interned SharedDegree with the degree the full record gives, the
    chunk keeps no address array of a shared record, full-mask results are shared tuples (the
    same object, also in the compiled model) and a window stream keeps no issued result."""
    m = ptx(SHARED)
    g = GlobalMemory()
    lm = load_module(m, g)
    params = struct.pack("<Q", 0)
    want = []                                   # (store, size, degree) per warp access, in order
    for _cid, ws in record_kernel(lm, "k", (6, 1, 1), (96, 1, 1), 0, params, gmem=g).ctas():
        for wt in ws:
            for _pos, accs in sorted(wt.mem.items()):
                want += [(a.is_store, a.size, a.degree(banks, parts)) for a in accs]
    kt = record_kernel(lm, "k", (6, 1, 1), (96, 1, 1), 0, params, gmem=g, window=window,
                       shared_cfg=(banks, parts))
    got = []
    if window == 0:
        for _cid, ws in kt.ctas():
            for wt in ws:
                ch = wt._chunk
                assert ch is not None and all(r is None or r[1] != "shared" for r in ch.recs)
                for pos, accs in sorted(wt.mem.items()):
                    for a in accs:
                        assert isinstance(a, feed.SharedDegree)
                        with pytest.raises(RuntimeError, match="reduced"):
                            a.degree(banks + 1, parts)
                    if len(accs) == 1 and wt.executed[pos] == wt.active[pos] == 0xFFFFFFFF:
                        assert accs is accs[0].alone
                    got += [(a.is_store, a.size, a.degree(banks, parts)) for a in accs]
    else:
        for _cid, streams in kt.streams():
            for s in streams:
                while s.pc >= 0:
                    pos, res = s.pos, s.res
                    r = res[pos]
                    ex, act, accs = s.issue(0)
                    assert res[pos] is None         # (an issued position keeps nothing)
                    if accs:
                        if (ex, act) == (0xFFFFFFFF, 0xFFFFFFFF) and len(accs) == 1:
                            assert r is accs[0].full_res    # the interned tuple itself
                        got += [(a.is_store, a.size, a.degree(banks, parts)) for a in accs]
    assert got == want and len(want) == 6 * (3 * 2 + 2)
