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
