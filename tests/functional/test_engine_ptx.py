"""Engine on hand-written PTX: faults, unsupported instructions, barriers, generic addressing,
special registers, debug aids and the warp-step interface."""

import struct

import numpy as np
import pytest
from engine_helpers import ptx, run_both, run_once

from gpgpusim.errors import CudaError, Err, NotSupportedError
from gpgpusim.functional.engine import CtaState, get_program
from gpgpusim.functional.loader import load_module
from gpgpusim.functional.memory import GlobalMemory

TID = """
    .reg .pred %p<4>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<20>;
    ld.param.u64 %rd1, [p0];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
"""


def test_trap_is_sticky_launch_failure():
    m = ptx(TID + """
    setp.eq.u32 %p1, %r1, 5;
    @%p1 trap;
    st.global.u32 [%rd3], %r1;
    ret;""")
    for driver in ("batched", "warp"):
        with pytest.raises(CudaError) as e:
            run_once(m, "k", (2, 1, 1), (32, 1, 1), [("o", np.zeros(64, np.int32))], driver=driver)
        assert e.value.code == Err.LaunchFailure and e.value.sticky
        assert "trap in k at t.ptx:" in str(e.value) and "thread (5,0,0) in block (0,0,0)" in str(e.value)


def test_unsupported_instruction_fails_only_when_executed():
    m = ptx(TID + """
    setp.eq.u32 %p1, %r1, 99;
    @!%p1 bra DONE;
    tex.1d.v4.s32.s32 {%r2, %r3, %r4, %r5}, [tex0, {%r1}];
DONE:
    st.global.u32 [%rd3], %r1;
    ret;""", extra=".global .texref tex0;")
    r = run_both(m, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(32, np.int32))])
    assert r.out["o"].tolist() == list(range(32))
    with pytest.raises(NotSupportedError) as e:
        run_once(m, "k", (1, 1, 1), (128, 1, 1), [("o", np.zeros(128, np.int32))])
    assert e.value.code == Err.NotSupported
    assert str(e.value).startswith("not supported: tex.1d.v4.s32.s32") and "t.ptx:" in str(e.value)


def test_barrier_deadlock_is_reported():
    # bar.sync with a thread count the CTA can never reach
    m = ptx(TID + """
    bar.sync 0, 64;
    st.global.u32 [%rd3], %r1;
    ret;""")
    for driver in ("batched", "warp"):
        with pytest.raises(CudaError) as e:
            run_once(m, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(32, np.int32))], driver=driver)
        assert e.value.code == Err.LaunchFailure and e.value.sticky
        assert "deadlock in k" in str(e.value) and "block (0,0,0)" in str(e.value)
        assert "warp 0 waits at barrier 0" in str(e.value)


def test_misaligned_global_access():
    m = ptx(TID + """
    ld.global.u32 %r2, [%rd3+2];
    ret;""")
    with pytest.raises(CudaError) as e:
        run_once(m, "k", (1, 1, 1), (4, 1, 1), [("o", np.zeros(8, np.int32))])
    assert e.value.code == Err.MisalignedAddress and "thread (0,0,0)" in str(e.value)


def test_shared_out_of_bounds():
    m = ptx(TID + """
    .shared .align 4 .b8 buf[64];
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, buf;
    add.s32 %r4, %r3, %r2;
    st.shared.u32 [%r4], %r1;
    ret;""")
    with pytest.raises(CudaError) as e:
        run_once(m, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(8, np.int32))])
    assert e.value.code == Err.IllegalAddress
    assert "Invalid __shared__ write of size 4 bytes" in str(e.value) and "thread (16,0,0)" in str(e.value)


def test_bar_red_popc_and_or():
    m = ptx(TID + """
    and.b32 %r2, %r1, 3;
    setp.eq.u32 %p1, %r2, 0;
    bar.red.popc.u32 %r3, 0, %p1;
    bar.red.or.pred %p2, 1, %p1;
    bar.red.and.pred %p3, 2, %p1;
    selp.u32 %r4, 1000, 0, %p2;
    selp.u32 %r5, 100, 0, %p3;
    add.u32 %r6, %r3, %r4;
    add.u32 %r6, %r6, %r5;
    st.global.u32 [%rd3], %r6;
    ret;""")
    r = run_both(m, "k", (1, 1, 1), (96, 1, 1), [("o", np.zeros(96, np.int32))])
    assert r.out["o"].tolist() == [24 + 1000] * 96


def test_generic_addressing_shared_local_global_and_isspacep():
    m = ptx(TID + """
    .shared .align 4 .b8 sm[128];
    .local .align 4 .b8 lc[8];
    mov.u64 %rd4, sm;
    cvta.shared.u64 %rd5, %rd4;
    add.s64 %rd6, %rd5, %rd2;
    st.u32 [%rd6], %r1;
    bar.sync 0;
    xor.b32 %r2, %r1, 1;
    mul.wide.u32 %rd7, %r2, 4;
    add.s64 %rd8, %rd5, %rd7;
    ld.u32 %r3, [%rd8];
    mov.u64 %rd9, lc;
    cvta.local.u64 %rd10, %rd9;
    st.u32 [%rd10+4], %r3;
    ld.local.u32 %r4, [lc+4];
    isspacep.shared %p1, %rd8;
    isspacep.local %p2, %rd10;
    isspacep.global %p3, %rd3;
    cvta.to.shared.u64 %rd11, %rd8;
    cvt.u32.u64 %r5, %rd11;
    selp.u32 %r6, 1, 0, %p1;
    selp.u32 %r7, 2, 0, %p2;
    selp.u32 %r8, 4, 0, %p3;
    or.b32 %r9, %r6, %r7;
    or.b32 %r9, %r9, %r8;
    shl.b32 %r10, %r4, 8;
    or.b32 %r9, %r9, %r10;
    cvta.global.u64 %rd12, %rd3;
    st.u32 [%rd12], %r9;
    st.global.u32 [%rd3+128], %r5;
    ret;""")
    r = run_both(m, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(64, np.int32))])
    o = r.out["o"]
    assert o[:32].tolist() == [((t ^ 1) << 8) | 7 for t in range(32)]
    assert o[32:].tolist() == [4 * (t ^ 1) for t in range(32)]


def test_vector_loads_stores_and_module_globals():
    m = ptx(TID + """
    .reg .f32 %f<8>;
    mov.u64 %rd4, tab;
    ld.const.v4.f32 {%f1, %f2, %f3, %f4}, [tab];
    ld.global.u32 %r2, [counter];
    add.f32 %f5, %f1, %f4;
    mov.b32 %r3, %f5;
    add.u32 %r3, %r3, %r2;
    mul.wide.u32 %rd5, %r1, 8;
    add.s64 %rd6, %rd1, %rd5;
    st.global.v2.u32 [%rd6], {%r3, %r1};
    ret;""", extra=".const .align 16 .f32 tab[4] = {1.5, 2.0, 3.0, 0.5};\n.global .align 4 .u32 counter = 7;")
    r = run_both(m, "k", (1, 1, 1), (4, 1, 1), [("o", np.zeros(8, np.uint32))])
    bits = int(np.float32(2.0).view(np.uint32)) + 7
    assert r.out["o"].tolist() == [bits, 0, bits, 1, bits, 2, bits, 3]


def test_special_registers():
    m = ptx("""
    .reg .b32 %r<20>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [p0];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r4, %r2, %r3, %r1;
    mov.u32 %r5, %ctaid.x;
    mov.u32 %r6, %ctaid.y;
    mov.u32 %r7, %nctaid.x;
    mov.u32 %r8, %laneid;
    mov.u32 %r9, %warpid;
    mov.u32 %r10, %lanemask_lt;
    mov.u32 %r11, %dynamic_smem_size;
    mov.u32 %r12, %total_smem_size;
    mad.lo.u32 %r13, %r6, %r7, %r5;
    mul.lo.u32 %r14, %r13, 48;
    add.u32 %r14, %r14, %r4;
    mul.wide.u32 %rd2, %r14, 24;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {%r4, %r13, %r8, %r9};
    st.global.v2.u32 [%rd3+16], {%r10, %r11};
    ret;""")
    n = 2 * 3 * 48
    r = run_both(m, "k", (2, 3, 1), (16, 3, 1), [("o", np.zeros((n, 6), np.uint32))], dyn_smem=100)
    o = r.out["o"]
    for c in range(6):
        for t in range(48):
            row = o[c * 48 + t]
            assert row.tolist() == [t, c, t % 32, t // 32, (1 << (t % 32)) - 1, 100]


def test_line_stats_and_opcode_counts():
    m = ptx(TID + """
    setp.lt.u32 %p1, %r1, 8;
    @%p1 st.global.u32 [%rd3], %r1;
    ret;""")
    ls = {}
    r = run_once(m, "k", (1, 1, 1), (64, 1, 1), [("o", np.zeros(64, np.int32))], line_stats=ls)
    st = r.stats
    assert st.opcode_counts == {"ld": 64, "mov": 64, "mul": 64, "add": 64, "setp": 64, "st": 8, "ret": 64}
    assert (st.thread_insn, st.warp_insn) == (6 * 64 + 8, 7 * 2)
    lines = sorted(ls)
    # [warp insn, thread insn (guard true), lanes active at issue (predicated-off lanes too)]
    assert [ls[k] for k in lines] == [[2, 64, 64]] * 5 + [[2, 8, 64], [2, 64, 64]]


def test_debug_trace_single_thread(monkeypatch, capsys):
    m = ptx(TID + """
    add.u32 %r2, %r1, 100;
    st.global.u32 [%rd3], %r2;
    ret;""")
    monkeypatch.setenv("PTX_SIM_DEBUG", "6")
    monkeypatch.setenv("PTX_SIM_DEBUG_THREAD_UID", "37")
    run_once(m, "k", (2, 1, 1), (32, 1, 1), [("o", np.zeros(64, np.int32))])
    out = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("GPGPU-Sim PTX: allocating CTA") for line in out) == 2   # level >= 1
    out = [line for line in out if not line.startswith("GPGPU-Sim PTX")]
    assert out[0].startswith("thread 37 pc 0 line ") and "ld.param.u64" in out[0]
    i = next(k for k, line in enumerate(out) if "add.u32 %r2, %r1, 100;" in line)
    assert out[i].startswith("thread 37 pc 4 line ")
    assert out[i + 1:i + 3] == ["Output Registers:", "       %r2   .b32 0x00000069"]
    assert sum(line.startswith("thread 37 ") for line in out) == 7


def test_debug_trace_to_file(tmp_path):
    m = ptx(TID + """
    st.global.u32 [%rd3], %r1;
    ret;""")
    path = tmp_path / "trace.txt"
    opts = {"gpgpu_ptx_inst_debug_to_file": 1, "gpgpu_ptx_inst_debug_file": str(path),
            "gpgpu_ptx_inst_debug_thread_uid": 3}
    run_once(m, "k", (1, 1, 1), (8, 1, 1), [("o", np.zeros(8, np.int32))], options=opts)
    text = path.read_text()
    assert text.count("thread 3 pc ") == 6 and "Output Registers:\n       %r1   .b32 0x00000003\n" in text


def test_watchdog_stops_infinite_loop():
    m = ptx(TID + """
LOOP:
    bra LOOP;
    ret;""")
    with pytest.raises(CudaError) as e:
        run_once(m, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(32, np.int32))],
                 options={"functional_step_limit": 1000})
    assert e.value.code == Err.LaunchTimeout and "watchdog" in str(e.value)
    assert "1 warps still running, at line " in str(e.value) and "(pc 4)" in str(e.value)


def test_invalid_launch_configuration():
    m = ptx(TID + "    ret;")
    with pytest.raises(CudaError) as e:
        run_once(m, "k", (1, 1, 1), (2048, 1, 1), [("o", np.zeros(4, np.int32))])
    assert e.value.code == Err.InvalidConfiguration
    with pytest.raises(CudaError) as e:
        run_once(m, "missing", (1, 1, 1), (32, 1, 1), [("o", np.zeros(4, np.int32))])
    assert e.value.code == Err.InvalidDeviceFunction


def test_warp_step_results_and_deferred_atomics():
    m = ptx(TID + """
    setp.lt.u32 %p1, %r1, 4;
    @%p1 bra SKIP;
    atom.global.add.u32 %r2, [%rd1], 1;
    st.global.u32 [%rd3+64], %r2;
SKIP:
    ret;""")
    g = GlobalMemory()
    lm = load_module(m, g)
    buf = g.allocate(256)
    cta = CtaState.create(lm, "k", (1, 1, 1), (8, 1, 1), 0, struct.pack("<Q", buf), gmem=g,
                          cta_ids=[0], defer_atomics=True)
    w = cta.warps[0]
    assert (w.pc, w.active_mask, w.done) == (0, 0xFF, False)
    steps = []
    while not w.done:
        steps.append(cta.step(w))
        if steps[-1].atomic_callback is not None:
            assert g.read(buf, 4).view(np.uint32)[0] == 0     # not applied yet
            steps[-1].atomic_callback()
    ops = [s.opcode for s in steps]
    assert ops == ["ld", "mov", "mul", "add", "setp", "bra", "atom", "st", "ret"]   # reconverged ret
    bra = steps[5]
    assert (bra.pc, bra.next_pc, bra.active_mask) == (5, 6, 0xFF)
    atom = steps[6]
    assert atom.is_atomic and atom.active_mask == 0xF0
    space, addrs, size, is_store = atom.mem[0]
    assert (space, size, addrs.tolist()) == ("global", 4, [buf] * 4)
    st = steps[7]
    assert st.mem[0][1].tolist() == [buf + 64 + 4 * t for t in range(4, 8)]
    assert g.read(buf, 4).view(np.uint32)[0] == 4
    assert g.read(buf + 64, 32).view(np.uint32).tolist() == [0, 0, 0, 0, 0, 1, 2, 3]
    assert steps[-1].pc == 8 and steps[-1].active_mask == 0xFF and steps[-1].is_exit
    assert get_program(lm, "k") is get_program(lm, "k")


def test_vote_uni_match_all_redux_minmax():
    m = ptx(TID + """
    and.b32 %r2, %r1, 31;
    setp.lt.u32 %p1, %r2, 16;
    vote.sync.uni.pred %p2, %p1, 0xffffffff;
    shr.u32 %r3, %r1, 5;
    match.all.sync.b32 %r4|%p3, %r3, 0xffffffff;
    redux.sync.min.s32 %r5, %r2, 0xffffffff;
    redux.sync.max.u32 %r6, %r2, 0xffffffff;
    redux.sync.xor.b32 %r7, %r2, 0xffffffff;
    selp.u32 %r8, 1, 0, %p2;
    selp.u32 %r9, 2, 0, %p3;
    add.u32 %r8, %r8, %r9;
    mul.wide.u32 %rd4, %r1, 20;
    add.s64 %rd5, %rd1, %rd4;
    st.global.v4.u32 [%rd5], {%r4, %r5, %r6, %r7};
    st.global.u32 [%rd5+16], %r8;
    ret;""")
    r = run_both(m, "k", (1, 1, 1), (64, 1, 1), [("o", np.zeros((64, 5), np.uint32))])
    x = 0
    for i in range(32):
        x ^= i
    assert r.out["o"].tolist() == [[0xFFFFFFFF, 0, 31, x, 2]] * 64


def test_atomic_cas_exch_min_shared_collisions():
    m = ptx(TID + """
    .shared .align 4 .b32 s[2];
    setp.eq.u32 %p1, %r1, 0;
    @!%p1 bra GO;
    st.shared.u32 [s], 1000;
    st.shared.u32 [s+4], 0;
GO:
    bar.sync 0;
    and.b32 %r2, %r1, 7;
    atom.shared.min.s32 %r3, [s], %r2;
    atom.shared.cas.b32 %r4, [s+4], %r1, %r1;
    add.u32 %r5, %r1, 1;
    atom.global.exch.b32 %r6, [%rd3], %r5;
    bar.sync 0;
    ld.shared.u32 %r7, [s];
    ld.shared.u32 %r8, [s+4];
    add.s64 %rd4, %rd3, 256;
    st.global.v4.u32 [%rd4], {%r3, %r4, %r7, %r8};
    st.global.u32 [%rd3+512], %r6;
    ret;""")
    n = 32
    r = run_both(m, "k", (1, 1, 1), (n, 1, 1), [("o", np.zeros(n * 2 * 4 + 64, np.int32))])
    o = r.out["o"]
    mins = []
    cur = 1000
    for t in range(n):          # lane order: each lane sees the running minimum
        mins.append(cur)
        cur = min(cur, t & 7)
    casv = []
    cur = 0
    for t in range(n):          # cas(0 -> t): only lane 0 matches (compare 0 == 0), then value stays 0
        casv.append(cur)
        cur = t if cur == t else cur
    got = o[64:64 + 4 * n].reshape(n, 4)
    assert got[:, 0].tolist() == mins
    assert got[:, 1].tolist() == casv
    assert got[:, 2].tolist() == [0] * n and got[:, 3].tolist() == [0] * n
    assert o[:n].tolist() == [t + 1 for t in range(n)]            # exch wrote each own slot
    assert o[128:128 + n].tolist() == [0] * n                     # old values


def test_named_barrier_arrive_sync_producer_consumer():
    # warp 0 produces into shared memory and arrives on barrier 1; warp 1 waits on it and reads
    m = ptx(TID + """
    .shared .align 4 .b32 s[32];
    shr.u32 %r2, %r1, 5;
    and.b32 %r3, %r1, 31;
    shl.b32 %r4, %r3, 2;
    mov.u32 %r5, s;
    add.u32 %r6, %r5, %r4;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra CONSUMER;
    mul.lo.u32 %r7, %r3, 3;
    st.shared.u32 [%r6], %r7;
    bar.arrive 1, 64;
    bra DONE;
CONSUMER:
    bar.sync 1, 64;
    ld.shared.u32 %r8, [%r6];
    mov.u32 %r9, %ctaid.x;
    mul.wide.u32 %rd6, %r9, 256;
    add.s64 %rd7, %rd3, %rd6;
    st.global.u32 [%rd7], %r8;
DONE:
    ret;""")
    r = run_both(m, "k", (2, 1, 1), (64, 1, 1), [("o", np.full(128, -1, np.int32))])
    o = r.out["o"].reshape(2, 64)
    assert o[:, 32:].tolist() == [[3 * i for i in range(32)]] * 2
    assert o[:, :32].tolist() == [[-1] * 32] * 2


def test_brkpt_is_noted_and_ignored(capsys):
    m = ptx(TID + """
    brkpt;
    st.global.u32 [%rd3], %r1;
    ret;""")
    r = run_both(m, "k", (1, 1, 1), (64, 1, 1), [("o", np.zeros(64, np.int32))])
    assert r.out["o"].tolist() == list(range(64))
    err = capsys.readouterr().err
    assert err.count("brkpt at t.ptx:") == 3 and "ignored" in err     # once per run (3 runs)


def test_spin_lock_between_warps_makes_progress():
    # lane 0 of every warp takes a global spin lock (atom.cas loop), bumps a counter, releases it
    m = ptx(TID + """
    and.b32 %r2, %r1, 31;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra DONE;
SPIN:
    atom.global.cas.b32 %r3, [%rd1], 0, 1;
    setp.ne.u32 %p2, %r3, 0;
    @%p2 bra SPIN;
    ld.volatile.global.u32 %r4, [%rd1+4];
    add.u32 %r4, %r4, 1;
    st.volatile.global.u32 [%rd1+4], %r4;
    membar.gl;
    atom.global.exch.b32 %r5, [%rd1], 0;
DONE:
    ret;""")
    for driver in ("batched", "warp"):      # spin counts depend on the schedule: results only
        r = run_once(m, "k", (2, 1, 1), (128, 1, 1), [("o", np.zeros(2, np.int32))], driver=driver)
        assert r.out["o"].tolist() == [0, 8]


def test_partial_warps_every_cta():
    # 40 threads per CTA: the second warp of each CTA has 8 lanes
    m = ptx(TID + """
    mov.u32 %r2, %ctaid.x;
    mad.lo.u32 %r3, %r2, 40, %r1;
    mul.wide.u32 %rd4, %r3, 4;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r3;
    ret;""")
    r = run_both(m, "k", (3, 1, 1), (40, 1, 1), [("o", np.full(128, -1, np.int32))])
    assert r.out["o"].tolist() == list(range(120)) + [-1] * 8
    assert (r.stats.thread_insn, r.stats.warp_insn) == (120 * 10, 6 * 10)


def test_warp_step_generic_accesses_are_resolved():
    m = ptx(TID + """
    .shared .align 4 .b8 sm[128];
    mov.u64 %rd4, sm;
    cvta.shared.u64 %rd5, %rd4;
    add.s64 %rd6, %rd5, %rd2;
    st.u32 [%rd6], %r1;
    st.u32 [%rd3], %r1;
    ret;""")
    g = GlobalMemory()
    lm = load_module(m, g)
    buf = g.allocate(256)
    cta = CtaState.create(lm, "k", (1, 1, 1), (4, 1, 1), 0, struct.pack("<Q", buf), gmem=g, cta_ids=[0])
    res = []
    while not cta.warps[0].done:
        res.append(cta.step(cta.warps[0]))
    sts = [r.mem for r in res if r.opcode == "st"]
    assert [(s[0][0], s[0][1].tolist(), s[0][2], s[0][3]) for s in sts] == [
        ("shared", [0, 4, 8, 12], 4, True), ("global", [buf, buf + 4, buf + 8, buf + 12], 4, True)]
    assert [r.mem for r in res if r.opcode == "ld"] == [[]]      # ld.param: no memory traffic


def test_grid_constant_param_generic_address():
    from engine_helpers import DATA

    from gpgpusim.ptx import parse_ptx
    m = parse_ptx((DATA / "grid_constant.ptx").read_text(), "grid_constant.ptx")
    for driver in ("batched", "warp"):
        g = GlobalMemory()
        lm = load_module(m, g)
        out = g.allocate(4 * 32)
        p = struct.pack("<8iQ", *[10 * i for i in range(8)], out)
        from gpgpusim.functional.engine import launch
        launch(lm, "k", (1, 1, 1), (32, 1, 1), 0, p, gmem=g, driver=driver)
        assert g.read(out, 128).view(np.int32).tolist() == [10 * (t & 7) for t in range(32)]
        assert g.used_bytes == 128          # the parameter copy is freed after the launch


def test_red_and_float_atomics_global_shared_generic():
    m = ptx(TID + """
    .reg .f64 %fd<4>;
    .reg .f32 %f<4>;
    .shared .align 8 .f64 sd[1];
    setp.eq.u32 %p1, %r1, 0;
    @!%p1 bra GO;
    st.shared.f64 [sd], 0d0000000000000000;
GO:
    barrier.sync.aligned 0;
    cvt.rn.f64.u32 %fd1, %r1;
    mul.f64 %fd1, %fd1, 0d3FE0000000000000;
    red.global.add.f64 [%rd1], %fd1;
    atom.shared.add.f64 %fd2, [sd], %fd1;
    mov.u64 %rd4, sd;
    cvta.shared.u64 %rd5, %rd4;
    red.add.f64 [%rd5], %fd1;
    cvt.rn.f32.u32 %f1, %r1;
    red.global.add.f32 [%rd1+8], %f1;
    red.global.add.u64 [%rd1+16], 3;
    red.global.max.s32 [%rd1+24], %r1;
    cvta.global.u64 %rd6, %rd1;
    atom.add.u32 %r5, [%rd6+28], 2;
    bar.sync 0;
    @!%p1 bra DONE;
    ld.shared.f64 %fd3, [sd];
    st.global.f64 [%rd1+32], %fd3;
DONE:
    ret;""")
    buf = np.zeros(40, np.uint8)
    r = run_both(m, "k", (1, 1, 1), (64, 1, 1), [("o", buf)])
    o = r.out["o"]
    s = sum(t * 0.5 for t in range(64))
    assert o[0:8].view(np.float64)[0] == s
    assert o[8:12].view(np.float32)[0] == sum(range(64))
    assert o[16:24].view(np.uint64)[0] == 3 * 64
    assert o[24:28].view(np.int32)[0] == 63
    assert o[28:32].view(np.uint32)[0] == 128
    assert o[32:40].view(np.float64)[0] == 2 * s


def test_smid_gridid_clock_envreg_lanemasks():
    m = ptx(TID + """
    .reg .b32 %q<12>;
    mov.u32 %q1, %smid;
    mov.u32 %q2, %nsmid;
    mov.u32 %q3, %envreg3;
    mov.u32 %q4, %lanemask_eq;
    mov.u32 %q5, %lanemask_le;
    mov.u32 %q6, %lanemask_ge;
    mov.u32 %q7, %lanemask_gt;
    mov.u64 %rd4, %clock64;
    mov.u32 %q8, %clock;
    mov.u32 %q9, %nwarpid;
    mul.wide.u32 %rd5, %r1, 32;
    add.s64 %rd6, %rd1, %rd5;
    st.global.v4.u32 [%rd6], {%q1, %q2, %q3, %q4};
    st.global.v4.u32 [%rd6+16], {%q5, %q6, %q7, %q9};
    ret;""")
    r = run_both(m, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros((32, 8), np.uint32))])
    for t, row in enumerate(r.out["o"].tolist()):
        le = (2 << t) - 1
        assert row == [0, 80, 0, 1 << t, le & 0xFFFFFFFF, (~((1 << t) - 1)) & 0xFFFFFFFF, (~le) & 0xFFFFFFFF, 64]


def test_debug_levels_1_and_10(monkeypatch, capsys):
    m = ptx(TID + """
    add.u32 %r2, %r1, 100;
    st.global.u32 [%rd3], %r2;
    ret;""")
    monkeypatch.setenv("PTX_SIM_DEBUG", "10")
    monkeypatch.setenv("PTX_SIM_DEBUG_THREAD_UID", "33")
    run_once(m, "k", (2, 1, 1), (32, 1, 1), [("o", np.zeros(64, np.int32))])
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [f"GPGPU-Sim PTX: allocating CTA ({c},0,0) of k: 32 threads, 1 warps, 0 bytes shared, "
                       f"16 bytes local per thread" for c in range(2)]
    i = out.index("Register File Contents:")
    assert out[i + 1:i + 3] == ["       %p0   .pred 0", "       %p1   .pred 0"]
    assert "       %r2   .b32 0x00000065" in out and "       %r1   .b32 0x00000001" in out


def test_divergent_paths_run_higher_pc_first_like_gpgpusim():
    # if/else: the else block (branch target, higher pc) runs before the then block; every lane
    # takes a ticket from a counter in its path, so tickets reveal the order
    m = ptx(TID + """
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 1;
    @%p1 bra ELSE;
    atom.global.add.u32 %r3, [%rd1+256], 1;
    bra END;
ELSE:
    atom.global.add.u32 %r3, [%rd1+256], 1;
END:
    st.global.u32 [%rd3], %r3;
    ret;""")
    r = run_both(m, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(65, np.int32))])
    o = r.out["o"][:32].tolist()
    assert [o[t] for t in range(1, 32, 2)] == list(range(16))        # odd lanes (else) first
    assert [o[t] for t in range(0, 32, 2)] == list(range(16, 32))


def test_call_of_unknown_extern_function_fails_only_when_executed():
    m = ptx(TID + """
    setp.eq.u32 %p1, %r1, 100;
    @!%p1 bra DONE;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    call.uni cudaGetParameterBufferV2, (param0);
    }
DONE:
    st.global.u32 [%rd3], %r1;
    ret;""", extra=".extern .func cudaGetParameterBufferV2(.param .b64 p);")
    r = run_both(m, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(32, np.int32))])
    assert r.out["o"].tolist() == list(range(32))
    with pytest.raises(NotSupportedError) as e:
        run_once(m, "k", (1, 1, 1), (128, 1, 1), [("o", np.zeros(128, np.int32))])
    assert "not supported: call of cudaGetParameterBufferV2 at t.ptx:" in str(e.value)


def test_call_counts_no_extra_instruction_for_return():
    text = """.version 8.0
.target sm_80
.address_size 64
.func (.param .b32 r) twice(.param .b32 a)
{
    .reg .b32 %t<3>;
    ld.param.b32 %t1, [a];
    add.u32 %t2, %t1, %t1;
    st.param.b32 [r], %t2;
    ret;
}
.visible .entry k(.param .u64 p0)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p0];
    mov.u32 %r1, %tid.x;
    {
    .param .b32 pa;
    .param .b32 pr;
    st.param.b32 [pa], %r1;
    call.uni (pr), twice, (pa);
    ld.param.b32 %r2, [pr];
    }
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"""
    from gpgpusim.ptx import parse_ptx
    m = parse_ptx(text, "t.ptx")
    ls: dict = {}
    r = run_both(m, "k", (1, 1, 1), (64, 1, 1), [("o", np.zeros(64, np.int32))])
    r2 = run_once(m, "k", (1, 1, 1), (64, 1, 1), [("o", np.zeros(64, np.int32))], line_stats=ls)
    assert r.out["o"].tolist() == [2 * t for t in range(64)]
    # kernel: ld mov st call ld mul add st ret = 9; twice: ld add st ret = 4
    assert (r.stats.thread_insn, r.stats.warp_insn) == (13 * 64, 13 * 2)
    assert 0 not in ls and sum(v[1] for v in ls.values()) == r2.stats.thread_insn
