"""gpgpusim.timing.gpu: the performance-mode GPU's process settings."""

import gc

import numpy as np

from gpgpusim.functional import engine
from gpgpusim.timing import gpu

from .timing_helpers import chunk_sizes, ptx, run_timing


def test_relax_gc_raises_only_a_lower_young_threshold():
    saved = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)           # CPython's default young threshold
        gpu._relax_gc()
        assert gc.get_threshold() == (1_000_000, 20, 100)
        gc.set_threshold(2_000_000, 30, 200)    # raised by someone else: left alone
        gpu._relax_gc()
        assert gc.get_threshold() == (2_000_000, 30, 200)
        gc.set_threshold(0, 10, 10)             # collection switched off: left off
        gpu._relax_gc()
        assert gc.get_threshold() == (0, 10, 10)
    finally:
        gc.set_threshold(*saved)


def test_a_timed_launch_is_split_into_chunks_of_feed_chunk_threads(monkeypatch):
    """The timing model asks the engine for chunks of at most ``FEED_CHUNK_THREADS`` threads
    (functional mode keeps the engine's 65,536): 3 CTAs of 32 threads are one chunk by default
    and three when the bound is one CTA; the stored values are the same either way."""
    mod = ptx("""
.reg .u32 %r<4>; .reg .u64 %rd<4>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
mov.u32 %r2, %ctaid.x;
mad.lo.u32 %r3, %r2, 32, %r1;
mul.wide.u32 %rd2, %r3, 4;
add.u64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r3;
""")
    sizes = chunk_sizes(monkeypatch)
    assert gpu.FEED_CHUNK_THREADS == 16384 < engine.CHUNK_THREADS
    outs = []
    for bound, want in ((gpu.FEED_CHUNK_THREADS, [3]), (32, [1, 1, 1])):
        monkeypatch.setattr(gpu, "FEED_CHUNK_THREADS", bound)
        sizes.clear()
        r = run_timing(mod, "k", (3, 1, 1), (32, 1, 1), [("o", np.zeros(96, np.uint32))])
        assert sizes == want
        outs.append(r.out["o"].tolist())
    assert outs[0] == outs[1] == list(range(96))


#: each thread adds its index to a scattered word of p0 (a read and a write that miss) and
#: counts itself in p1 with an atomic
_SCATTER = ptx("""
.reg .u32 %r<8>; .reg .u64 %rd<8>;
ld.param.u64 %rd1, [p0];
ld.param.u64 %rd4, [p1];
mov.u32 %r1, %tid.x;
mov.u32 %r2, %ctaid.x;
mad.lo.u32 %r3, %r2, 128, %r1;
mul.lo.u32 %r4, %r3, 9;
and.b32 %r4, %r4, 16383;
mul.wide.u32 %rd2, %r4, 4;
add.u64 %rd3, %rd1, %rd2;
ld.global.u32 %r5, [%rd3];
add.u32 %r5, %r5, %r3;
st.global.u32 [%rd3], %r5;
atom.global.add.u32 %r6, [%rd4], 1;
""", params=".param .u64 p0, .param .u64 p1")


def _scatter_buffers():
    return [("a", np.zeros(16384, np.uint32)), ("n", np.zeros(1, np.uint32))]


def test_requests_and_replaced_caches_are_freed_by_reference_counting():
    """A simulation frees its requests (``MemFetch``, a cache's ``_Extra``) and the L1Ds a new
    carve-out replaces (the first launch on SM7_QV100 replaces every core's) by reference
    counting alone: the collector, told to keep what it frees, finds none of them while the
    GPU lives.  The compiled model relies on this for requests: ``MemFetch`` and ``_Extra``
    are acyclic classes there, which the collector does not see, so a cycle through one
    would never be freed."""
    gc.collect()
    saved = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        r = run_timing(_SCATTER, "k", (64, 1, 1), (128, 1, 1), _scatter_buffers(),
                       overrides=["-gpgpu_n_clusters 2"])
        gc.collect()
        found = {type(o).__name__ for o in gc.garbage}
    finally:
        gc.set_debug(saved)
        gc.garbage.clear()
    assert r.out["n"][0] == 64 * 128 and r.gpu.l1d_assoc is not None
    assert r.counters["gpgpu_n_mem_read_global"] > 0 and r.counters["gpgpu_n_mem_write_global"] > 0
    assert not found & {"MemFetch", "_Extra", "Cache", "Line"}, found


def test_a_failed_run_cuts_its_requests_in_flight(monkeypatch):
    """A run that fails mid-kernel leaves requests in flight in the machine it discards; before
    collecting that machine (``_rebuild``) each drops its references (its instruction, its
    caches' extra fields), since compiled a request is an acyclic class and the cycles it
    closes (L1D MSHR -> request -> instruction -> warp ... -> L1D) would never be freed.  Then
    the old machine is freed."""
    from gpgpusim.errors import CudaError, Err

    machine = []
    held = []
    real = gpu.cycle_cores

    def failing(cores, now):
        if now >= 400:
            for c in machine[0].cores:
                for e in c.ldst.l1d.mshr.values():
                    held.extend(e if isinstance(e, list) else [e])
            raise CudaError(Err.LaunchFailure, "injected failure")
        return real(cores, now)

    monkeypatch.setattr(gpu, "cycle_cores", failing)
    r = run_timing(_SCATTER, "k", (64, 1, 1), (128, 1, 1), _scatter_buffers(), overrides=["-gpgpu_n_clusters 2"],
                   before_launch=lambda g, addrs: machine.append(g), check=False)
    tg = r.gpu
    assert "injected failure" in str(r.rec.error)
    assert held and all(mf.token is None and mf.cache_extra is None for mf in held)
    assert all(not c.ldst.l1d.mshr for c in tg.cores)        # the new machine
    held.clear()
    machine.clear()
    gc.collect()
    # the discarded machine is gone (the failed record's error keeps no traceback into it)
    assert sum(type(o) is type(tg.cores[0]) for o in gc.get_objects()) == len(tg.cores)
