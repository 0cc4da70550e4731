"""Engine-level tests of instructions and special registers the semantics tables do not cover:
hints and fences that must not change results, time registers, %gridid, shared-memory size
registers, atom.inc/dec and half/bf16 atomics with colliding lanes, and instructions that are
parsed but not modelled (they fail when executed, never at load).

Checklist C214-C231; PTX ISA "Special Registers", "atom", "prefetch", "ldu", "membar/fence".
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from engine_helpers import ptx, run_both, run_once

from gpgpusim.errors import Err, NotSupportedError
from gpgpusim.functional import engine

TID = """
    .reg .pred %p<8>;
    .reg .b32 %r<24>;
    .reg .b64 %rd<24>;
    .reg .b16 %h<8>;
    ld.param.u64 %rd1, [p0];
    mov.u32 %r1, %tid.x;
    mov.u32 %r20, %ctaid.x;
    mov.u32 %r21, %ntid.x;
    mad.lo.u32 %r22, %r20, %r21, %r1;
"""


def _addr(width: int) -> str:
    """PTX that sets %rd3 = p0 + global_thread_index * width."""
    return f"""
    mul.wide.u32 %rd2, %r22, {width};
    add.s64 %rd3, %rd1, %rd2;
"""


# ----------------------------------------------------------------------------- time registers
def test_clock_advances_by_the_warps_own_instructions():
    """%clock64 in functional mode: one cycle per warp instruction of the thread's warp, so
    the delta between two reads is the number of warp instructions issued in between (both
    paths of a divergent branch included) — the same for every driver."""
    m = ptx(TID + _addr(16) + """
    mov.u64 %rd4, %clock64;
    mov.u32 %r10, %clock;
    and.b32 %r2, %r1, 3;
    setp.ge.u32 %p2, %r1, 32;
    selp.u32 %r2, 2, %r2, %p2;
    mov.u32 %r3, 0;
LOOP:
    setp.ge.u32 %p1, %r3, %r2;
    @%p1 bra END;
    add.u32 %r3, %r3, 1;
    bra LOOP;
END:
    mov.u64 %rd5, %clock64;
    mov.u32 %r11, %clock;
    sub.s64 %rd6, %rd5, %rd4;
    sub.u32 %r12, %r11, %r10;
    cvt.u64.u32 %rd7, %r12;
    st.global.v2.u64 [%rd3], {%rd6, %rd7};
    ret;""")
    r = run_both(m, "k", (2, 1, 1), (64, 1, 1), [("o", np.zeros((128, 2), np.int64))])
    o = r.out["o"]
    # warp 0 (trip counts 0..3): mov %clock, and, setp, selp, mov (5) + loop rounds of
    # setp,bra[,add,bra]: 4+4+4+2 = 14, + the second 64-bit read = 20; the 32-bit reads are
    # one instruction later at both ends, so their delta is the same.  Warp 1 (trip 2): 5+10+1.
    for cta in range(2):
        assert o[cta * 64:cta * 64 + 32].tolist() == [[20, 20]] * 32
        assert o[cta * 64 + 32:cta * 64 + 64].tolist() == [[16, 16]] * 32


def test_globaltimer_is_monotonic_nanoseconds_since_the_epoch():
    m = ptx(TID + _addr(32) + """
    mov.u64 %rd4, %globaltimer;
    mov.u32 %r5, %globaltimer_lo;
    mov.u32 %r6, %globaltimer_hi;
    mov.u64 %rd5, %globaltimer;
    cvt.u64.u32 %rd6, %r5;
    cvt.u64.u32 %rd7, %r6;
    st.global.v2.u64 [%rd3], {%rd4, %rd5};
    st.global.v2.u64 [%rd3+16], {%rd6, %rd7};
    ret;""")
    # the timer runs on a monotonic clock anchored to the wall clock when the engine loaded, so
    # a later step of the host's wall clock (NTP, a VM's clock sync) does not move it: bracket
    # it on its own clock, and against the wall clock only loosely
    from gpgpusim.functional import state

    before = state._GLOBALTIMER_BASE_NS + time.perf_counter_ns()
    r = run_once(m, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros((32, 4), np.uint64))])
    after = state._GLOBALTIMER_BASE_NS + time.perf_counter_ns()
    o = r.out["o"].astype(object)
    for t0, t1, lo, hi in o.tolist():
        assert before <= t0 <= t1 <= after
        assert abs(t0 - time.time_ns()) < 3600 * 10**9           # nanoseconds since the epoch
        assert hi in (t0 >> 32, t1 >> 32)
        assert t0 & 0xFFFFFFFF <= lo or hi == t1 >> 32          # lo read between t0 and t1


def test_gridid_numbers_launches():
    m = ptx(TID + _addr(8) + """
    mov.u64 %rd4, %gridid;
    st.global.u64 [%rd3], %rd4;
    ret;""")
    first = run_once(m, "k", (2, 1, 1), (32, 1, 1), [("o", np.zeros(64, np.uint64))])
    n1 = engine._launch_counter[0]
    second = run_once(m, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(32, np.uint64))])
    assert first.out["o"].tolist() == [n1] * 64
    assert second.out["o"].tolist() == [n1 + 1] * 32


@pytest.mark.parametrize(("dyn", "total"), [(0, 40), (100, 148)])
def test_shared_memory_size_registers(dyn, total):
    """%dynamic_smem_size = the launch's dynamic bytes; %total_smem_size = static (40 bytes,
    rounded up to 16 where the dynamic array starts) + dynamic."""
    m = ptx(TID + _addr(8) + """
    .shared .align 4 .b8 sm[40];
    mov.u32 %r2, %dynamic_smem_size;
    mov.u32 %r3, %total_smem_size;
    mov.u32 %r4, sm;
    mov.u32 %r5, dyn;
    st.shared.u32 [%r4+36], %r2;
    st.global.v2.u32 [%rd3], {%r2, %r3};
    ret;""", extra=".extern .shared .align 16 .b8 dyn[];")
    r = run_both(m, "k", (2, 1, 1), (32, 1, 1), [("o", np.zeros((64, 2), np.uint32))], dyn_smem=dyn)
    assert r.out["o"].tolist() == [[dyn, total]] * 64


# ----------------------------------------------------------------------------- hints and fences
def test_prefetch_ldu_fences_and_nanosleep():
    """Cache hints, fences and sleeps change no value; ldu loads like ld (incl. vectors)."""
    m = ptx(TID + _addr(16) + """
    prefetch.global.L1 [%rd3];
    prefetch.global.L2 [%rd3];
    prefetch.global.L2::evict_last [%rd3];
    prefetch.local.L1 [%rd3];
    prefetchu.L1 [%rd3];
    prefetch.L1 [%rd1+4096];
    ldu.global.u32 %r2, [%rd1+1024];
    ldu.global.v2.u32 {%r3, %r4}, [%rd1+1032];
    ld.global.u32 %r5, [%rd3];
    membar.cta;
    membar.gl;
    membar.sys;
    fence.sc.cta;
    fence.acq_rel.gpu;
    fence.sc.sys;
    fence.proxy.alias;
    nanosleep.u32 100;
    nanosleep.u32 %r1;
    add.u32 %r5, %r5, %r2;
    st.global.v4.u32 [%rd3], {%r5, %r3, %r4, %r1};
    ret;""")
    o = np.zeros(64 * 4 + 4, np.uint32)
    o[0:256:4] = np.arange(64) * 7
    o[256:260] = (11, 0, 12, 13)
    r = run_both(m, "k", (1, 1, 1), (64, 1, 1), [("o", o)])
    assert r.out["o"][:256].reshape(64, 4).tolist() == [[t * 7 + 11, 12, 13, t] for t in range(64)]
    assert r.out["o"][256:].tolist() == [11, 0, 12, 13]


# ----------------------------------------------------------------------------- atomics
def _inc_dec_reference(op: str, start: int, b: int, n: int) -> tuple[list[int], int]:
    """Sequential atom.inc/dec.u32 (PTX: inc: old >= b ? 0 : old + 1; dec: old == 0 or
    old > b ? b : old - 1): each application's old value, and the final value."""
    old, v = [], start
    for _ in range(n):
        old.append(v)
        if op == "inc":
            v = 0 if v >= b else v + 1
        else:
            v = b if v == 0 or v > b else v - 1
    return old, v


@pytest.mark.parametrize("space", ["global", "shared"])
def test_atom_inc_dec_colliding_lanes(space):
    """All 64 threads of the CTA update one counter each: the lanes apply one after another
    in lane order (warp 0 first), so every old value is exact."""
    if space == "global":
        body = """
    atom.global.inc.u32 %r5, [%rd1+1024], 10;
    atom.global.dec.u32 %r6, [%rd1+1028], 7;
    bar.sync 0;
    ld.global.u32 %r7, [%rd1+1024];
    ld.global.u32 %r8, [%rd1+1028];"""
    else:
        body = """
    setp.eq.u32 %p1, %r1, 0;
    @%p1 st.shared.v2.u32 [cnt], {%r9, %r10};
    bar.sync 0;
    atom.shared.inc.u32 %r5, [cnt], 10;
    atom.shared.dec.u32 %r6, [cnt+4], 7;
    bar.sync 0;
    ld.shared.u32 %r7, [cnt];
    ld.shared.u32 %r8, [cnt+4];"""
    m = ptx(TID + _addr(16) + """
    .shared .align 8 .b32 cnt[2];
    ld.global.u32 %r9, [%rd1+1024];
    ld.global.u32 %r10, [%rd1+1028];
    bar.sync 0;""" + body + """
    st.global.v4.u32 [%rd3], {%r5, %r6, %r7, %r8};
    ret;""")
    o = np.zeros(64 * 4 + 2, np.uint32)
    o[256:258] = (3, 5)     # inc starts at 3, dec at 5
    r = run_both(m, "k", (1, 1, 1), (64, 1, 1), [("o", o)])
    rows = r.out["o"][:256].reshape(64, 4)
    inc_old, inc_final = _inc_dec_reference("inc", 3, 10, 64)
    dec_old, dec_final = _inc_dec_reference("dec", 5, 7, 64)
    assert rows[:, 0].tolist() == inc_old
    assert rows[:, 1].tolist() == dec_old
    assert (inc_final, dec_final) == (1, 5)
    assert rows[:, 2].tolist() == [inc_final] * 64
    assert rows[:, 3].tolist() == [dec_final] * 64


def _f16x2(lo: float, hi: float) -> int:
    return int(np.float16(lo).view(np.uint16)) | int(np.float16(hi).view(np.uint16)) << 16


def _bf16(x: float) -> int:
    return int(np.float32(x).view(np.uint32)) >> 16       # exact for the values used here


def test_half_and_bf16_atomic_adds_colliding_lanes():
    """64 lanes add into one word each: atom.add.noftz.f16x2 (+1.0, +0.5 per lane),
    atom.add.noftz.f16 (+0.25), atom.add.noftz.bf16 (+2.0), atom.add.noftz.bf16x2 (+1.0, -1.0)
    and red.add.noftz.bf16x2; every partial sum is exact, so every old value is too."""
    m = ptx(TID + _addr(16) + """
    mov.b32 %r2, 0x38003c00;
    atom.global.add.noftz.f16x2 %r5, [%rd1+1024], %r2;
    mov.b16 %h1, 0x3400;
    atom.global.add.noftz.f16 %h2, [%rd1+1028], %h1;
    mov.b16 %h3, 0x4000;
    atom.global.add.noftz.bf16 %h4, [%rd1+1030], %h3;
    mov.b32 %r3, 0xbf803f80;
    atom.global.add.noftz.bf16x2 %r6, [%rd1+1032], %r3;
    red.global.add.noftz.bf16x2 [%rd1+1036], %r3;
    cvt.u32.u16 %r7, %h2;
    cvt.u32.u16 %r8, %h4;
    st.global.v4.u32 [%rd3], {%r5, %r7, %r8, %r6};
    ret;""")
    o = np.zeros(64 * 4 + 4, np.uint32)
    r = run_both(m, "k", (1, 1, 1), (64, 1, 1), [("o", o)])
    rows = r.out["o"][:256].reshape(64, 4).tolist()
    for t, row in enumerate(rows):
        assert row == [_f16x2(t * 1.0, t * 0.5), int(np.float16(t * 0.25).view(np.uint16)),
                       _bf16(2.0 * t), _bf16(t) | _bf16(-t) << 16], t
    tail = r.out["o"][256:].tolist()
    assert tail[0] == _f16x2(64.0, 32.0)
    assert tail[1] == int(np.float16(16.0).view(np.uint16)) | _bf16(128.0) << 16
    assert tail[2] == tail[3] == _bf16(64.0) | _bf16(-64.0) << 16


# ----------------------------------------------------------------------------- not modelled
@pytest.mark.parametrize("text", [
    "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%r10, %r11}, {%r12}, {%r13}, {%r10, %r11};",
    "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r10, %r11}, [%r14];",
    "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r10, %r11, %r12, %r13}, "
    "{%r14, %r15, %r16, %r17}, {%f1, %f2, %f3, %f4}, %r18, 0x0;",
    "suld.b.1d.b32.trap {%r10}, [surf0, {%r14}];",
])
def test_unmodelled_instructions_fail_only_when_executed(text):
    """mma and ldmatrix (forms not implemented) and suld are parsed and loaded; a kernel that never
    executes them runs; executing one raises NotSupported naming the instruction and its
    file:line."""
    body = TID + _addr(4) + f"""
    .reg .f32 %f<10>;
    mov.u32 %r14, 0;
    setp.eq.u32 %p1, %r1, 99;
    @!%p1 bra DONE;
    {text}
DONE:
    st.global.u32 [%rd3], %r1;
    ret;"""
    m = ptx(body, extra=".global .surfref surf0;")
    # ptx() puts 6 lines (.version .target .address_size, extra, .entry, "{") before the body
    line = 6 + 1 + next(i for i, ln in enumerate(body.splitlines()) if ln.strip() == text)
    r = run_both(m, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(32, np.uint32))])
    assert r.out["o"].tolist() == list(range(32))
    for driver in ("batched", "warp"):
        with pytest.raises(NotSupportedError) as e:
            run_once(m, "k", (1, 1, 1), (128, 1, 1), [("o", np.zeros(128, np.uint32))], driver=driver)
        assert e.value.code == Err.NotSupported and e.value.sticky
        assert str(e.value).startswith(f"not supported: {text.split()[0]}")
        assert f"at t.ptx:{line}" in str(e.value)


@pytest.mark.parametrize("text", [
    "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r10}, [%r14];",
    "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%r10, %r11}, {%r12, %r13}, {%r15}, {%r10, %r11};",
])
def test_warp_matrix_instruction_needs_the_whole_warp(text):
    """ldmatrix and mma.sync are .sync.aligned: executed by half a warp they stop the kernel
    with cudaErrorLaunchFailure naming the instruction (both drivers)."""
    from gpgpusim.errors import CudaError
    m = ptx(TID + _addr(4) + f"""
    .shared .align 16 .b8 sm[256];
    mov.u32 %r14, sm;
    setp.ge.u32 %p1, %r1, 16;
    @%p1 bra DONE;
    {text}
DONE:
    st.global.u32 [%rd3], %r1;
    ret;""")
    for driver in ("batched", "warp"):
        with pytest.raises(CudaError) as e:
            run_once(m, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(32, np.uint32))], driver=driver)
        assert e.value.code == Err.LaunchFailure
        assert str(e.value).startswith(text.split()[0]) and "needs all 32 lanes of the warp active" in str(e.value)


def test_min_max_xorsign_and_three_input_forms_run_in_kernels():
    """PTX 7.2 min.xorsign.abs.f32 and PTX 8.8 three-input max.f32 / min.abs.f32."""
    m = ptx(TID + _addr(16) + """
    .reg .f32 %f<8>;
    cvt.rn.f32.u32 %f1, %r1;
    sub.f32 %f2, 3.0, %f1;
    neg.f32 %f3, %f1;
    min.xorsign.abs.f32 %f4, %f2, %f3;
    max.f32 %f5, %f2, %f3, 1.5;
    min.abs.f32 %f6, %f2, %f3, 2.5;
    max.NaN.f32 %f7, %f2, 0f7FC00000, %f3;
    st.global.v4.f32 [%rd3], {%f4, %f5, %f6, %f7};
    ret;""")
    r = run_both(m, "k", (1, 1, 1), (8, 1, 1), [("o", np.zeros((8, 4), np.float32))])
    for t, row in enumerate(r.out["o"].tolist()):
        a, b = 3.0 - t, -float(t)                 # b is -0.0 for t = 0
        negative = (math.copysign(1, a) < 0) != (math.copysign(1, b) < 0)
        want = math.copysign(min(abs(a), abs(b)), -1.0 if negative else 1.0)
        assert np.float32(row[0]).view(np.uint32) == np.float32(want).view(np.uint32), t
        assert row[1] == max(a, b, 1.5) and row[2] == min(abs(a), abs(b), 2.5), t
        assert np.isnan(row[3]), t


# ----------------------------------------------------------------------------- immediates
def test_hex_float_literals_keep_their_bits_in_bit_size_operands():
    """``0fXXXXXXXX``/``0dXXXXXXXXXXXXXXXX`` name IEEE bits: a ``.b32``/``.b64`` operand takes
    those bits (``mov.b32 %r, 0f3F800000`` is 0x3F800000), not the value converted to an integer."""
    m = ptx("""
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [p0];
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    mov.b32 %r2, 0f3F800000;
    selp.b32 %r3, 0fC0490FDB, 0f7FC00001, %p1;
    mov.b64 %rd2, 0d400921FB54442D18;
    add.s32 %r4, %r2, 0f00000001;
    mul.wide.u32 %rd3, %r1, 24;
    add.s64 %rd4, %rd1, %rd3;
    st.global.v2.u32 [%rd4], {%r2, %r3};
    st.global.u64 [%rd4+8], %rd2;
    st.global.u32 [%rd4+16], %r4;
    ret;
""")
    out = np.zeros((2, 6), np.uint32)
    r = run_both(m, "k", (1, 1, 1), (2, 1, 1), [("o", out)]).out["o"]
    assert r[0].tolist() == [0x3F800000, 0xC0490FDB, 0x54442D18, 0x400921FB, 0x3F800001, 0]
    assert r[1].tolist() == [0x3F800000, 0x7FC00001, 0x54442D18, 0x400921FB, 0x3F800001, 0]
