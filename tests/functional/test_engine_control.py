"""Hand-written PTX: early exit (inside loops, inside a ``.func``, around barriers) and warp
shuffles with partial member masks, clamp values and sub-warp segments.

Every kernel runs on both drivers (and the batched driver's vectorised path) through
``run_both``, which also insists they agree; expected values come from plain Python models of
the PTX ISA rules, never from the engine.  Checklist C089 (SIMT stack), C215-C219
(reconvergence), GPGPU-Sim ``barrier_set_t::warp_exit`` (an exited warp no longer holds a
barrier back).
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import ptx, run_both

from gpgpusim.ptx import parse_ptx

REGS = """
    .reg .pred %p<8>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<8>;
"""
TID = REGS + """
    ld.param.u64 %rd1, [p0];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
"""


# ----------------------------------------------------------------------------- exit
def test_predicated_exit_inside_a_loop():
    """Even threads leave the kernel in iteration tid % 5 (before adding it); the others add
    0..7.  A thread that exits keeps the value it stored before the loop (tid + 1000)."""
    m = ptx(TID + """
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
    rem.u32 %r4, %r1, 5;
    and.b32 %r5, %r1, 1;
    add.u32 %r6, %r1, 1000;
    st.global.u32 [%rd3], %r6;
LOOP:
    setp.eq.u32 %p1, %r2, %r4;
    setp.eq.u32 %p2, %r5, 0;
    and.pred %p3, %p1, %p2;
    @%p3 exit;
    add.u32 %r3, %r3, %r2;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p4, %r2, 8;
    @%p4 bra LOOP;
    st.global.u32 [%rd3], %r3;
    ret;""")
    r = run_both(m, "k", (1, 1, 1), (48, 1, 1), [("o", np.zeros(48, np.uint32))])
    assert r.out["o"].tolist() == [t + 1000 if t % 2 == 0 else 28 for t in range(48)]
    # per thread: 10 before the loop; a full iteration counts 7 (a guard-false @exit is not
    # counted), the last one 6 (nor a guard-false @bra), the exiting one 4; then st + ret
    per_thread = [10 + (7 * (t % 5) + 4 if t % 2 == 0 else 7 * 7 + 6 + 2) for t in range(48)]
    assert r.stats.thread_insn == sum(per_thread)


def test_exit_inside_a_function():
    """Threads with tid > 20 exit inside the callee: they never return, so their caller's
    code after the call does not run; the others return and add 10."""
    text = """.version 8.0
.target sm_80
.address_size 64
.func g(.param .b64 p, .param .b32 x)
{
    .reg .b32 %a<4>;
    .reg .b64 %b<2>;
    .reg .pred %q<2>;
    ld.param.b64 %b1, [p];
    ld.param.b32 %a1, [x];
    setp.gt.u32 %q1, %a1, 20;
    @%q1 exit;
    st.global.u32 [%b1], 5;
    ret;
}
.visible .entry k(.param .u64 p0)
{""" + TID + """
    st.global.u32 [%rd3], 1;
    {
    .param .b64 pp;
    .param .b32 px;
    st.param.b64 [pp], %rd3;
    st.param.b32 [px], %r1;
    call g, (pp, px);
    }
    ld.global.u32 %r2, [%rd3];
    add.u32 %r2, %r2, 10;
    st.global.u32 [%rd3], %r2;
    ret;
}
"""
    m = parse_ptx(text, "t.ptx")
    r = run_both(m, "k", (1, 1, 1), (64, 1, 1), [("o", np.zeros(64, np.uint32))])
    assert r.out["o"].tolist() == [15] * 21 + [1] * 43


def test_threads_exiting_before_a_barrier_do_not_hold_it():
    """Block of 96: warp 2 exits entirely and threads 40..63 of warp 1 exit before bar.sync;
    the 40 remaining threads must pass it (an exited thread is not waited for, as with
    GPGPU-Sim's warp_exit), then read a neighbour's shared value written before it."""
    m = ptx(TID + """
    .shared .align 4 .b32 sm[96];
    setp.ge.u32 %p1, %r1, 40;
    @%p1 exit;
    shl.b32 %r5, %r1, 2;
    mov.u32 %r6, sm;
    add.u32 %r6, %r6, %r5;
    add.u32 %r7, %r1, 500;
    st.shared.u32 [%r6], %r7;
    bar.sync 0;
    xor.b32 %r8, %r1, 1;
    shl.b32 %r8, %r8, 2;
    mov.u32 %r9, sm;
    add.u32 %r9, %r9, %r8;
    ld.shared.u32 %r10, [%r9];
    st.global.u32 [%rd3], %r10;
    ret;""")
    r = run_both(m, "k", (2, 1, 1), (96, 1, 1), [("o", np.zeros(96, np.uint32))])
    assert r.out["o"].tolist() == [(t ^ 1) + 500 if t < 40 else 0 for t in range(96)]


def test_a_warp_exiting_late_releases_a_barrier_others_wait_at():
    """Warps 0 and 1 wait at bar.sync while warp 2 first runs a loop and then exits without
    reaching the barrier: its exit must release the others (no deadlock)."""
    m = ptx(TID + """
    .shared .align 4 .b32 sm[64];
    setp.ge.u32 %p1, %r1, 64;
    @%p1 bra LATE;
    shl.b32 %r5, %r1, 2;
    mov.u32 %r6, sm;
    add.u32 %r6, %r6, %r5;
    st.shared.u32 [%r6], %r1;
    bar.sync 0;
    sub.u32 %r8, 63, %r1;
    shl.b32 %r8, %r8, 2;
    mov.u32 %r9, sm;
    add.u32 %r9, %r9, %r8;
    ld.shared.u32 %r10, [%r9];
    st.global.u32 [%rd3], %r10;
    ret;
LATE:
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
SPIN:
    add.u32 %r3, %r3, %r2;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p2, %r2, 50;
    @%p2 bra SPIN;
    st.global.u32 [%rd3], %r3;
    exit;""")
    r = run_both(m, "k", (1, 1, 1), (96, 1, 1), [("o", np.zeros(96, np.uint32))])
    assert r.out["o"].tolist() == [63 - t for t in range(64)] + [sum(range(50))] * 32


# ----------------------------------------------------------------------------- shuffles
def _shfl_model(mode: str, lane: int, b: int, width: int) -> tuple[int, bool]:
    """Source lane and validity for CUDA's __shfl*_sync(mask, v, b, width) as the PTX ISA
    defines shfl.sync with c = ((32 - width) << 8) | clamp: a lane may read within its own
    width-segment or from earlier segments; otherwise it gets its own value, predicate false."""
    start = lane // width * width
    if mode == "up":
        src = lane - b
        return (src, True) if src >= start else (lane, False)
    if mode == "down":
        src = lane + b
    elif mode == "bfly":
        src = lane ^ b
    else:
        return start + b % width, True
    return (src, True) if src < start + width else (lane, False)


@pytest.mark.parametrize("width", [32, 16, 8, 4])
@pytest.mark.parametrize(("mode", "b"), [("up", 3), ("down", 3), ("bfly", 1), ("bfly", 8),
                                          ("idx", 5), ("idx", 13)])
def test_shfl_segments_clamp_and_predicate(mode, b, width):
    """Every mode with sub-warp widths (c = 0x1800 for up, 0x181f for the others at width 8)
    and the |p output; values are lane * 10 + 7."""
    c = ((32 - width) << 8) | (0 if mode == "up" else 0x1F)
    m = ptx(TID + f"""
    mad.lo.u32 %r2, %r1, 10, 7;
    shfl.sync.{mode}.b32 %r4|%p2, %r2, {b}, {c:#x}, 0xffffffff;
    selp.u32 %r5, 1, 0, %p2;
    shl.b32 %r5, %r5, 16;
    or.b32 %r4, %r4, %r5;
    st.global.u32 [%rd3], %r4;
    ret;""")
    r = run_both(m, "k", (1, 1, 1), (64, 1, 1), [("o", np.zeros(64, np.uint32))])
    expected = []
    for t in range(64):
        src, ok = _shfl_model(mode, t % 32, b, width)
        expected.append(((t & ~31) + src) * 10 + 7 | (ok << 16))
    assert r.out["o"].tolist() == expected


def test_shfl_partial_member_masks_in_divergent_paths():
    """Lanes 0..15 shuffle among themselves (idx, membermask 0x0000ffff, source (lane+5)%16,
    with |p); lanes 16..31 run bfly 1 with membermask 0xffff0000 and add 1000."""
    m = ptx(TID + """
    mul.lo.u32 %r2, %r1, 10;
    setp.lt.u32 %p1, %r1, 16;
    @!%p1 bra HI;
    add.u32 %r3, %r1, 5;
    and.b32 %r3, %r3, 15;
    shfl.sync.idx.b32 %r4|%p2, %r2, %r3, 0x1f, 0x0000ffff;
    selp.u32 %r5, 1, 0, %p2;
    shl.b32 %r5, %r5, 20;
    or.b32 %r4, %r4, %r5;
    bra END;
HI:
    shfl.sync.bfly.b32 %r4, %r2, 1, 0x1f, 0xffff0000;
    add.u32 %r4, %r4, 1000;
END:
    st.global.u32 [%rd3], %r4;
    ret;""")
    r = run_both(m, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(32, np.uint32))])
    assert r.out["o"].tolist() == [((t + 5) % 16) * 10 | 1 << 20 for t in range(16)] + \
        [(t ^ 1) * 10 + 1000 for t in range(16, 32)]


def test_shfl_with_per_lane_operands_and_partial_warp():
    """A 20-thread block (lanes 20..31 never exist): shfl.down by a per-lane amount (lane % 4)
    and a clamp in a register (0x1f: width 32) with membermask 0x000fffff.  Lanes 18 and 19
    read lanes 20 and 22: inside the clamp, so the predicate is true, but outside the member
    set, so PTX leaves the value undefined and only the predicate is checked."""
    m = ptx(TID + """
    mad.lo.u32 %r2, %r1, 3, 1;
    and.b32 %r3, %r1, 3;
    mov.u32 %r6, 0x1f;
    shfl.sync.down.b32 %r4|%p2, %r2, %r3, %r6, 0x000fffff;
    selp.u32 %r5, 1, 0, %p2;
    shl.b32 %r5, %r5, 16;
    or.b32 %r4, %r4, %r5;
    st.global.u32 [%rd3], %r4;
    ret;""")
    r = run_both(m, "k", (1, 1, 1), (20, 1, 1), [("o", np.zeros(20, np.uint32))])
    got = r.out["o"].tolist()
    for t in range(20):
        src = t + t % 4
        if src < 20:
            assert got[t] == (src * 3 + 1) | 1 << 16, t
        else:
            assert got[t] >> 16 == 1, t       # valid per the clamp; the value is undefined
