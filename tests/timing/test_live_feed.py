"""The live instruction feed (gpgpusim.timing.live): values from the timing model at issue."""

from __future__ import annotations

import numpy as np
import pytest

from gpgpusim.errors import CudaError
from gpgpusim.timing.live import choose_feed

from .timing_helpers import ptx, run_timing

#: two %clock reads with a dependent chain between them (mov -> add -> add -> mov)
CLOCK = """
.reg .u32 %r<8>; .reg .u64 %rd<4>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %clock;
add.u32 %r2, %r1, 1;
add.u32 %r3, %r2, 1;
mov.u32 %r4, %clock;
mov.u32 %r5, %tid.x;
mul.wide.u32 %rd2, %r5, 8;
add.u64 %rd3, %rd1, %rd2;
st.global.v2.u32 [%rd3], {%r1, %r4};
ret;
"""


def _clock_run(feed: str):
    out = np.zeros((32, 2), dtype=np.uint32)
    return run_timing(ptx(CLOCK), "k", (1, 1, 1), (32, 1, 1), [("a", out)],
                      overrides=[f"-gpgpusim_timing_feed {feed}"])


def test_clock_reads_the_core_cycle_at_issue():
    """%clock is the core cycle at which the reading instruction issues (C063): the values
    are the issue cycles of the two movs in the core's issue trace, and their difference is
    the latency of the dependent chain between them."""
    r = _clock_run("live")
    pcs = r.rec.op.module.cache[("prog", "k")].opcode_of
    clock_pcs = [pc for pc, op in enumerate(pcs) if op == "mov"][:2]
    issued = {pc: cyc for cyc, _slot, pc in r.issues()}
    t1, t2 = issued[clock_pcs[0]], issued[clock_pcs[1]]
    a = r.out["a"]
    assert a[:, 0].tolist() == [t1] * 32 and a[:, 1].tolist() == [t2] * 32
    # the timeline of test_core.py on QV100: the first add issues when the mov's result is
    # written back (5 cycles: no register read), the dependent add 9 cycles after it (one
    # register read), the second %clock read right after (no dependence)
    assert [c for c, _w, _pc in r.issues()][:5] == [2, 3, 8, 17, 18]
    assert t2 - t1 == 15


def test_clock_in_the_trace_feed_counts_warp_instructions():
    """Forced trace feed: the functional estimate (one per warp instruction of the warp)."""
    r = _clock_run("trace")
    a = r.out["a"]
    assert (a[:, 1] - a[:, 0]).tolist() == [3] * 32


SMID = """
.reg .u32 %r<10>; .reg .u64 %rd<4>; .reg .pred %p<2>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %ctaid.x;
mov.u32 %r2, 0;
setp.ne.u32 %p1, %r1, 0;
@%p1 bra DONE;
LOOP:
add.u32 %r2, %r2, 1;
setp.lt.u32 %p1, %r2, 300;
@%p1 bra LOOP;
DONE:
mov.u32 %r3, %smid;
mov.u32 %r4, %warpid;
mov.u32 %r5, %tid.x;
mov.u32 %r6, %ntid.x;
mad.lo.u32 %r7, %r1, %r6, %r5;
mul.wide.u32 %rd2, %r7, 8;
add.u64 %rd3, %rd1, %rd2;
st.global.v2.u32 [%rd3], {%r3, %r4};
ret;
"""


def test_smid_and_warpid_are_the_core_and_the_warp_slot():
    """Two SMs, one CTA each at a time: CTA 0 loops long on core 0, so CTAs 1 and 2 both run
    on core 1 (the functional mapping would put CTA 2 on SM 2 mod 2 = 0); %warpid is the
    hardware warp slot (CTA slot 0: warps 0 and 1)."""
    out = np.zeros((3, 64, 2), dtype=np.uint32)
    r = run_timing(ptx(SMID), "k", (3, 1, 1), (64, 1, 1), [("a", out)],
                   overrides=["-gpgpu_n_clusters 2", "-gpgpu_shader_cta 1"])
    a = r.out["a"]
    assert [sorted(set(a[c, :, 0].tolist())) for c in range(3)] == [[0], [1], [1]]
    assert a[:, :, 1].tolist() == [[0] * 32 + [1] * 32] * 3


def test_auto_picks_live_for_timing_dependent_kernels():
    """``auto`` runs a kernel reading %clock live (timing-model values), trace otherwise."""
    live = _clock_run("auto").out["a"]
    assert (live[:, 1] - live[:, 0]).tolist() == [15] * 32


def test_choose_feed():
    assert choose_feed(None, None) == "trace"
    assert choose_feed("auto", "reads %clock") == "live"
    assert choose_feed("trace", "reads %clock") == "trace"
    assert choose_feed("LIVE", None) == "live"
    with pytest.raises(CudaError, match="expected one of auto, trace, live"):
        choose_feed("fast", None)


#: warp 0 (lane 0) reads %clock and adds 1 to a[0] atomically; warp 1 (lane 32) reads %clock,
#: loads a[0] shortly after, and again after a 100-iteration loop
ATOM_THEN_LOAD = """
.reg .u32 %r<12>; .reg .u64 %rd<6>; .reg .pred %p<4>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
setp.ne.u32 %p1, %r1, 0;
@%p1 bra OTHERS;
mov.u32 %r9, %clock;
atom.global.add.u32 %r2, [%rd1], 1;
st.global.u32 [%rd1+4], %r2;
st.global.u32 [%rd1+20], %r9;
bra.uni DONE;
OTHERS:
setp.ne.u32 %p2, %r1, 32;
@%p2 bra DONE;
mov.u32 %r3, 0;
WAIT1:
add.u32 %r3, %r3, 1;
setp.lt.u32 %p3, %r3, 2;
@%p3 bra WAIT1;
mov.u32 %r10, %clock;
ld.volatile.global.u32 %r4, [%rd1];
mov.u32 %r5, 0;
WAIT2:
add.u32 %r5, %r5, 1;
setp.lt.u32 %p3, %r5, 100;
@%p3 bra WAIT2;
ld.volatile.global.u32 %r6, [%rd1];
st.global.u32 [%rd1+8], %r4;
st.global.u32 [%rd1+12], %r6;
st.global.u32 [%rd1+16], %r10;
DONE:
ret;
"""


def test_atom_executes_when_its_request_leaves_the_partition():
    """C162: the live feed applies an ``atom`` when its request leaves the memory partition,
    not at issue: warp 1's load issued at cycle 61, after warp 0's atom (issued just after
    cycle 24) but before that request's round trip, still reads 0; its load after the loop
    reads 1.  (The trace feed's functional order has the atom applied before either load.)"""
    def run(feed: str) -> list[int]:
        out = np.zeros(6, dtype=np.uint32)
        r = run_timing(ptx(ATOM_THEN_LOAD), "k", (1, 1, 1), (64, 1, 1), [("a", out)],
                       overrides=[f"-gpgpusim_timing_feed {feed}"])
        return r.out["a"].tolist()
    # a[0], atom's old value, early load, late load, warp 1's %clock, warp 0's %clock
    assert run("live") == [1, 0, 0, 1, 61, 24]
    assert run("trace")[:4] == [1, 0, 1, 1]


LOOP = """
.reg .u32 %r<10>; .reg .u64 %rd<6>; .reg .pred %p<2>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
mov.u32 %r9, %ctaid.x;
mad.lo.u32 %r1, %r9, 64, %r1;
mul.wide.u32 %rd2, %r1, 4;
add.u64 %rd3, %rd1, %rd2;
and.b32 %r8, %r1, 7;
mov.u32 %r2, 0;
mov.u32 %r3, 0;
LOOP:
ld.global.u32 %r4, [%rd3];
add.u32 %r3, %r3, %r4;
add.u32 %r2, %r2, 1;
setp.le.u32 %p1, %r2, %r8;
@%p1 bra LOOP;
st.global.u32 [%rd3], %r3;
ret;
"""


def _loop_launch():
    import struct

    from gpgpusim.functional.loader import load_module
    from gpgpusim.functional.memory import GlobalMemory
    g = GlobalMemory()
    lm = load_module(ptx(LOOP), g)
    buf = g.allocate(4 * 256)
    g.write(buf, np.arange(256, dtype=np.uint32))
    return g, lm, buf, struct.pack("<Q", buf)


@pytest.mark.parametrize("chunk_threads", [65536, 64])
def test_live_kernel_counts_and_early_drain(chunk_threads, monkeypatch):
    """Stepping CTA 0's warps to the end and draining the rest (a kernel stopped early) gives
    the engine's own counts and memory; with one CTA per chunk, chunks fold (and drop their
    ``Exec``, then give the heap's free pages back) as they finish."""
    from gpgpusim.functional import engine
    from gpgpusim.timing import live
    from gpgpusim.timing.live import LiveKernel

    released: list[int] = []
    monkeypatch.setattr(live, "release_free", lambda: released.append(1))

    class Opts:
        def get(self, name):
            return chunk_threads if name == "functional_chunk_threads" else None

    g, lm, buf, params = _loop_launch()
    ref = engine.launch(lm, "k", (4, 1, 1), (64, 1, 1), 0, params, gmem=g)
    want = g.read(buf, 1024).view(np.uint32).copy()
    g, lm, buf, params = _loop_launch()
    lk = LiveKernel(engine.prepare_launch(lm, "k", (4, 1, 1), (64, 1, 1), 0, params, gmem=g,
                                          options=Opts()))
    it = lk.streams()
    cid, ws = next(it)
    assert cid == 0 and len(ws) == 2
    n = 0
    for slot, w in enumerate(ws):
        w.attach(3, slot)
        while w.pc >= 0:
            w.issue(n)
            n += 1
    # each warp: 9 instructions before the loop, 8 iterations of 5 (lanes loop 1..8 times,
    # tid & 7), st and ret
    assert n == 2 * (9 + 5 * 8 + 2)
    assert lk.stats.warp_insn == (n if chunk_threads == 64 else 0)   # CTA 0's chunk folded
    # ... and released its functional run, though its streams are still held
    assert (ws[0].chunk.ex is None) == (chunk_threads == 64)
    assert len(released) == (1 if chunk_threads == 64 else 0)
    for _ in it:
        pass
    assert lk.done
    assert len(released) == (4 if chunk_threads == 64 else 1)     # once a chunk, after it closed
    assert (lk.stats.thread_insn, lk.stats.warp_insn) == (ref.thread_insn, ref.warp_insn)
    assert g.read(buf, 1024).view(np.uint32).tolist() == want.tolist()


CALL_PTX = """.version 8.0
.target sm_80
.address_size 64
.func (.param .b32 ret) twice(.param .b32 x)
{
.reg .u32 %r<3>;
ld.param.u32 %r1, [x];
add.u32 %r2, %r1, %r1;
st.param.u32 [ret], %r2;
ret;
}
.visible .entry k(.param .u64 p0)
{
.reg .u32 %r<4>; .reg .u64 %rd<4>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
{
.param .b32 a;
.param .b32 r;
st.param.u32 [a], %r1;
call.uni (r), twice, (a);
ld.param.u32 %r2, [r];
}
mul.wide.u32 %rd2, %r1, 4;
add.u64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r2;
ret;
}
"""


def test_calls_issue_the_same_instructions_in_both_feeds():
    """A function's end (and the kernel's) is a pseudo instruction of the engine, not a PTX
    instruction: the live feed runs it with the instruction before it, so both feeds issue the
    same instructions in the same cycles."""
    from gpgpusim.ptx import parse_ptx
    runs = {}
    for feed in ("trace", "live"):
        out = np.zeros(64, dtype=np.uint32)
        r = run_timing(parse_ptx(CALL_PTX, "t.ptx"), "k", (1, 1, 1), (64, 1, 1), [("a", out)],
                       overrides=[f"-gpgpusim_timing_feed {feed}"])
        assert r.out["a"].tolist() == [2 * t for t in range(64)]
        runs[feed] = (r.issues(), r.cycles, r.counters)
    assert runs["live"] == runs["trace"]
    assert len(runs["live"][0]) == 2 * 13       # 9 PTX instructions of k and 4 of twice, per warp
