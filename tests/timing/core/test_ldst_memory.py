"""The LD/ST unit's L1 paths (gpgpusim.timing.core.ldst): cache operators and the L1D bypass
(C105, C111), and the texture cache L1T (C110) -- exact issue cycles and event counts on a
one-SM SM7_QV100 (timing_helpers.SMALL)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from timing_helpers import ptx, run_timing  # noqa: E402

from gpgpusim.functional import texture as T  # noqa: E402

# ----------------------------------------------------------------------------- cache operators
LOADS = """
.reg .b32 %r<8>; .reg .b64 %rd<8>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd4, %r1, 4; add.s64 %rd6, %rd1, %rd4;
ld.global{ld}.u32 %r2, [%rd6];
ld.global{ld}.u32 %r3, [%rd6+4];
add.s32 %r4, %r2, %r3;
st.global{st}.u32 [%rd6+256], %r4;
ret;
"""

# The two loads read 4 + 5 sectors (the second one is shifted by a word), the store writes 4.
# Through the L1D: 9 read accesses -- 5 misses (2 line + 3 sector misses) and the second
# load's 4 pending hits on sectors the first one requested (MSHR merges) -- and 5 L2 read
# sectors; bypassing it: 9 L2 read sectors and no L1D read access.
CASES = {
    # (ld op, st op, overrides): (cycles, issue cycles of the add and the store,
    #                             L1D accesses, L1D misses, L2 accesses)
    "default": ("", "", [], (573, [369, 378], 13, 9, 9)),
    "ld.cg": (".cg", "", [], (551, [347, 356], 4, 4, 13)),
    "st.cg": (".ca", ".cg", [], (552, [369, 378], 9, 5, 9)),
    "cs/wt as default": (".cs", ".wt", [], (573, [369, 378], 13, 9, 9)),
    "lu as default": (".lu", "", [], (573, [369, 378], 13, 9, 9)),
    "skip_L1D": ("", "", ["-gpgpu_gmem_skip_L1D 1"], (530, [347, 356], 0, 0, 13)),
    "skip_L1D but nc": (".nc", "", ["-gpgpu_gmem_skip_L1D 1"], (552, [369, 378], 9, 5, 9)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_cache_operator_decides_the_l1d_bypass(case):
    """``memory_cycle``'s bypassL1D: ``.cg`` (CACHE_GLOBAL) loads and stores go straight to the
    interconnect; ``-gpgpu_gmem_skip_L1D 1`` sends every global access past the L1D except
    ``.nc`` (CACHE_L1) ones; the other operators are timed as the defaults."""
    ld, st, ov, expect = CASES[case]
    body = LOADS.replace("{ld}", ld).replace("{st}", st)
    a = np.arange(128, dtype=np.uint32)
    r = run_timing(ptx(body), "k", (1, 1, 1), (32, 1, 1), [("a", a)], overrides=ov)
    np.testing.assert_array_equal(r.out["a"][64:96], a[:32] + a[1:33])
    c = r.counters
    cyc = [t for t, _w, _pc in r.issues()]
    assert (r.cycles, cyc[-3:-1], c["L1D_total_cache_accesses"], c["L1D_total_cache_misses"],
            c["L2_total_cache_accesses"]) == expect
    if ld == ".cg" or (ov and ld != ".nc"):
        assert "GLOBAL_ACC_R" not in c["core_cache_breakdown"]
    else:
        assert c["core_cache_breakdown"]["GLOBAL_ACC_R"] == {"MISS": 2, "SECTOR_MISS": 3, "MSHR_HIT": 4,
                                                             "HIT_RESERVED": 4}


# ----------------------------------------------------------------------------- texture cache
TEX = """
.reg .b32 %r<12>; .reg .b64 %rd<8>;
ld.param.u64 %rd1, [p0]; ld.param.u64 %rd2, [p2];
mov.u32 %r1, %tid.x;
mul.lo.u32 %r2, %r1, {stride};
mul.wide.u32 %rd4, %r1, 4; add.s64 %rd6, %rd1, %rd4;
tex.1d.v4.s32.s32 {%r3, %r4, %r5, %r6}, [%rd2, {%r2}];
st.global.s32 [%rd6], %r3;
tex.1d.v4.s32.s32 {%r7, %r8, %r9, %r10}, [%rd2, {%r2}];
st.global.s32 [%rd6+128], %r7;
ret;
"""


def _tex_run(stride: int, overrides: list[str] = (), skip: bool = True):
    mod = ptx(TEX.replace("{stride}", str(stride)), params=".param .u64 p0, .param .u64 p1, .param .u64 p2")
    handles = []

    def handle(addrs):
        obj = T.TexObject("tex", T.RES_LINEAR, addrs["data"], T.ChannelFormat((32, 0, 0, 0), T.KIND_SIGNED),
                          width=256, pitch=1024)
        handles.append(T.register(obj))
        return handles

    data = np.arange(256, dtype=np.int32) * 3
    try:
        r = run_timing(mod, "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(64, np.int32)), ("data", data)],
                       overrides=list(overrides), extra_params=handle, env_skip=skip)
    finally:
        for h in handles:
            T.unregister(h, "tex")
    want = data[np.arange(32) * stride]
    np.testing.assert_array_equal(r.out["o"], np.concatenate([want, want]))
    return r


def test_texture_miss_then_hit_exact_cycles():
    """The first fetch misses in the L1T (one 128-byte TEXTURE_ACC_R request: 4 L2 sector
    accesses, no ROP delay) and its dependent store issues 159 cycles later; the second fetch
    of the same texels is a tag hit that still comes through the fragment FIFO: 7 cycles from
    the fetch's issue to the dependent store's."""
    r = _tex_run(1)
    cyc = [t for t, _w, _pc in r.issues()]
    assert cyc == [2, 3, 4, 9, 10, 20, 21, 180, 181, 188, 189]
    tex1, st1, tex2, st2 = cyc[6], cyc[7], cyc[8], cyc[9]
    assert (st1 - tex1, st2 - tex2) == (159, 7)
    c = r.counters
    assert r.cycles == 383
    assert (c["L1T_total_cache_accesses"], c["L1T_total_cache_misses"], c["L1T_total_cache_pending_hits"],
            c["L1T_total_cache_reservation_fails"]) == (2, 1, 1, 0)
    assert c["gpgpu_n_mem_texture"] == 1 and c["gpgpu_n_tex_insn"] == 64
    assert c["L2_total_cache_accesses"] == 4 + 8            # texture line + two 128-byte stores
    assert c["core_cache_breakdown"]["TEXTURE_ACC_R"] == {"MISS": 1, "HIT_RESERVED": 1}
    assert c["gpgpu_n_stall_shd_mem"] == 0


def test_texture_fetch_over_four_lines():
    """Lanes 16 bytes apart touch four L1T lines: four accesses per fetch, one per cycle (three
    coalescing stalls each), four misses then four hits."""
    r = _tex_run(4)
    cyc = [t for t, _w, _pc in r.issues()]
    assert cyc[6:] == [21, 193, 194, 204, 205]
    c = r.counters
    assert (c["L1T_total_cache_accesses"], c["L1T_total_cache_misses"],
            c["L1T_total_cache_pending_hits"]) == (8, 4, 4)
    assert c["gpgpu_n_mem_texture"] == 4 and c["gpgpu_n_stall_shd_mem"] == 6
    assert c["L2_total_cache_accesses"] == 16 + 8


def test_texture_miss_with_perfect_memory():
    """``-gpgpu_perfect_mem``: the miss's request is its own reply (no sector split)."""
    r = _tex_run(1, ["-gpgpu_perfect_mem 1"])
    cyc = [t for t, _w, _pc in r.issues()]
    assert cyc[6:] == [21, 30, 31, 38, 39]
    assert r.counters["L1T_total_cache_misses"] == 1 and r.counters["L2_total_cache_accesses"] == 0


# ----------------------------------------------------------------------------- constant cache
CONST = """.version 8.0
.target sm_80
.address_size 64
.const .align 4 .b32 cv[64] = {3, 5, 7, 9};
.visible .entry k(.param .u64 p0)
{
.reg .b32 %r<8>; .reg .b64 %rd<8>;
ld.param.u64 %rd1, [p0];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd2, %r1, 4;
mov.u64 %rd3, cv;
add.s64 %rd4, %rd3, %rd2;
ld.const.u32 %r2, [%rd4];
ld.const.u32 %r3, [cv+4];
add.s32 %r4, %r2, %r3;
add.s64 %rd5, %rd1, %rd2;
st.global.u32 [%rd5], %r4;
ret;
}
"""


def _const_run(overrides: list[str], skip: bool = True):
    from gpgpusim.ptx import parse_ptx
    r = run_timing(parse_ptx(CONST, "t.ptx"), "k", (1, 1, 1), (32, 1, 1), [("o", np.zeros(32, np.uint32))],
                   overrides=overrides, gpu="SM2_GTX480", env_skip=skip)
    cv = np.zeros(64, np.uint32)
    cv[:4] = (3, 5, 7, 9)
    np.testing.assert_array_equal(r.out["o"], cv[:32] + 5)
    return r


def test_finite_constant_cache_on_gtx480():
    """GTX480 (``-gpgpu_perfect_inst_const_cache 0``, L1C N:64:64:2,L:R:f:N:L,S:2:32,4): the
    ld.param misses (offset 0 of the parameter buffer); the 32-lane ld.const reads two 64-byte
    lines -- the first one misses, the second finds both MSHR entries taken (the param line
    and the first) and is refused 234 times until the param line returns (each refusal a
    port conflict and a c_mem resource stall), then misses; ``ld.const [cv+4]`` misses on the
    line the first access is fetching and merges into its MSHR (allocate-on-fill: a MISS plus
    an MSHR hit).  The L1I is finite too: the first fetch misses (everything starts 256 cycles
    later than with a perfect L1I, and its line adds 4 L2 sector accesses)."""
    r = _const_run([])
    c = r.counters
    assert r.cycles == 956
    assert [t for t, _w, _pc in r.issues()] == [259, 260, 266, 267, 276, 286, 288, 773, 775, 785, 787]
    assert (c["L1C_total_cache_accesses"], c["L1C_total_cache_misses"], c["L1C_total_cache_pending_hits"],
            c["L1C_total_cache_reservation_fails"]) == (4, 4, 0, 234)
    assert c["core_cache_breakdown"]["CONST_ACC_R"] == {"MISS": 4, "RESERVATION_FAIL": 234, "MSHR_HIT": 1}
    assert (c["gpgpu_n_mem_const"], c["gpgpu_n_cmem_portconflict"],
            c["gpgpu_stall_shd_mem[c_mem][resource_stall]"]) == (3, 235, 234)
    # the store + three 64-byte lines + the instruction line's four sectors
    assert c["L2_total_cache_accesses"] == 4 + 3 * 2 + 4


def test_perfect_constant_cache_keeps_reads_at_once():
    """``-gpgpu_perfect_inst_const_cache 1`` (all 4.x configs): no L1C, reads complete in the
    LD/ST unit."""
    r = _const_run(["-gpgpu_perfect_inst_const_cache 1"])
    c = r.counters
    assert r.cycles == 219
    assert [t for t, _w, _pc in r.issues()] == [3, 4, 10, 11, 20, 30, 32, 36, 38, 48, 50]
    assert c["L1C_total_cache_accesses"] == 0 and c["gpgpu_n_mem_const"] == 0
    assert c["L2_total_cache_accesses"] == 4


def test_idle_skipping_is_exact_with_l1t_and_l1c():
    """Sleeping cores and fast-forwarding see the L1T's and L1C's pending work: statistics and
    issue cycles are identical with idle skipping off."""
    for run in (lambda skip: _tex_run(4, skip=skip), lambda skip: _const_run([], skip=skip)):
        a, b = run(True), run(False)
        assert (a.cycles, a.issues(), a.counters) == (b.cycles, b.issues(), b.counters)


CG_LOAD = """
.reg .b32 %r<12>; .reg .b64 %rd<8>;
ld.param.u64 %rd1, [p0]; ld.param.u64 %rd2, [p1];
mov.u32 %r1, %tid.x;
mul.lo.u32 %r2, %r1, 1;
mul.wide.u32 %rd4, %r1, 4; add.s64 %rd6, %rd1, %rd4; add.s64 %rd7, %rd2, %rd4;
ld.global.cg.s32 %r3, [%rd7];
st.global.s32 [%rd6], %r3;
ret;
"""


@pytest.mark.parametrize("rop, latency", [(160, 319), (0, 159)])
def test_texture_requests_skip_the_rop_delay(rop, latency):
    """The same 128 bytes read by an ``ld.global.cg`` (past the L1D) take the ROP delay
    (``-gpgpu_l2_rop_latency``, 160 on QV100) at the partition; the L1T's miss above took 159
    cycles from fetch to dependent store, which is the load's latency without it."""
    r = run_timing(ptx(CG_LOAD, params=".param .u64 p0, .param .u64 p1"), "k", (1, 1, 1), (32, 1, 1),
                   [("o", np.zeros(32, np.int32)), ("data", np.arange(256, dtype=np.int32))],
                   overrides=[f"-gpgpu_l2_rop_latency {rop}"])
    cyc = [t for t, _w, _pc in r.issues()]
    assert cyc[-2] - cyc[-3] == latency



@pytest.mark.parametrize("ld, reads", [("", 1), (".cg", 4)])
def test_fermi_bypassing_loads_use_sector_transactions(ld, reads):
    """GTX480 (coalescing arch 20): a 128-byte warp load is one 128-byte L1D transaction, but a
    ``.cg`` load (past the L1D) makes 32-byte sector transactions (``memory_coalescing_arch``:
    ``sector_segment_size`` under CACHE_GLOBAL or ``-gpgpu_gmem_skip_L1D``).  Through the L1D,
    the line cache with sector MSHRs: a miss whose request touches one sector gets one sector
    reply from the (sectored) L2, and that completes it (it used to wait for four and
    deadlock)."""
    body = LOADS.replace("{ld}", ld).replace("{st}", "")
    a = np.arange(128, dtype=np.uint32)
    r = run_timing(ptx(body), "k", (1, 1, 1), (32, 1, 1), [("a", a)], gpu="SM2_GTX480")
    np.testing.assert_array_equal(r.out["a"][64:96], a[:32] + a[1:33])
    c = r.counters
    # two loads (the second one spans two 128-byte lines: 2 transactions, or 5 sectors); the
    # counter counts requests entering the interconnect, so through the L1D the second load's
    # line 0 (pending there) sends nothing
    assert c["gpgpu_n_mem_read_global"] == {1: 1 + 1, 4: 4 + 5}[reads]
    # through the L1D: line 0 misses, the second load finds it pending and misses line 1
    assert c["core_cache_breakdown"].get("GLOBAL_ACC_R") == (
        {"MISS": 2, "HIT_RESERVED": 1, "MSHR_HIT": 1} if reads == 1 else None)
    assert r.cycles == {1: 1010, 4: 975}[reads]     # finite L1I and L1C (their first misses)


def test_atomics_coalesce_into_sectors_from_arch_40():
    """``memory_coalescing_arch_atomic`` uses the segment size of other global accesses: 32-byte
    sectors from ``-gpgpu_coalesce_arch`` 40 on, 128 bytes (reduced to the used half) on
    Fermi/Kepler.  16 atomics on distinct words of a line's upper half."""
    from gpgpusim.timing.core.coalesce import coalesce
    lanes = np.arange(16)
    addrs = 0x1000 + 64 + 4 * lanes
    volta = [(a.addr, a.size, a.sector_mask) for a in coalesce(lanes, addrs, 4, 70, 1, atomic=True)]
    assert volta == [(0x1060, 32, 0b1000), (0x1040, 32, 0b0100)]     # served highest first
    fermi = [(a.addr, a.size, a.sector_mask) for a in coalesce(lanes, addrs, 4, 20, 1, atomic=True)]
    assert fermi == [(0x1040, 64, 0b1100)]


def test_latency_queue_wait_shortcut_is_exact(monkeypatch):
    """``LdstUnit.latq_due`` (the first cycle an L1D latency-queue head can reach the tag
    array) lets a cycle with nothing else to do skip the unit's full cycle: every statistic and
    issue cycle equals a run that never uses it (the bound pinned at 0).  Two loads and a store
    per thread of two warps, through the L1D (the default case above) and its 4 banks."""
    from gpgpusim.timing.core.ldst import LdstUnit

    scans = [0]
    scan = LdstUnit._latency_queue_cycle

    def counted(self, now):
        scans[0] += 1
        scan(self, now)

    monkeypatch.setattr(LdstUnit, "_latency_queue_cycle", counted)

    def run():
        scans[0] = 0
        body = LOADS.replace("{ld}", "").replace("{st}", "")
        r = run_timing(ptx(body), "k", (1, 1, 1), (64, 1, 1), [("a", np.arange(128, dtype=np.uint32))])
        return r, scans[0]

    a, scans_a = run()
    monkeypatch.setattr(LdstUnit, "latq_due", property(lambda self: 0, lambda self, v: None), raising=False)
    b, scans_b = run()
    assert (a.cycles, a.issues(), a.counters) == (b.cycles, b.issues(), b.counters)
    assert a.counters["L1D_total_cache_accesses"] > 0
    assert scans_a < scans_b, (scans_a, scans_b)       # the bound did skip queue scans


def test_access_fetch_is_the_keyword_fetch():
    """``mem_fetch.access_fetch`` (the core's request) builds the fetch ``MemFetch(...)`` builds
    from the same values: every field but the uid, which is the next one."""
    from gpgpusim.timing.mem_fetch import MemFetch, access_fetch
    for args in ((0x1040, 32, False, "GLOBAL_ACC_R", 0b0100, 0xFF << 64, 3, 1, 5, False, "tok", 77),
                 (0x2000, 128, True, "LOCAL_ACC_W", 0b1111, 0, 0, 0, 63, False, None, 0),
                 (0x3020, 32, False, "GLOBAL_ACC_R", 0b0010, 0, 7, 7, 2, True, "atom", 12345)):
        addr, size, w, at, sm, bm, core, cluster, warp, atomic, tok, ts = args
        ref = MemFetch(addr, size, w, at, sector_mask=sm, byte_mask=bm, core_id=core, cluster_id=cluster,
                       warp_id=warp, is_atomic=atomic, token=tok, timestamp=ts)
        mf = access_fetch(*args)
        assert mf.uid == ref.uid + 1
        for f in MemFetch.__slots__:
            if f != "uid":
                assert getattr(mf, f) == getattr(ref, f), f


def test_coalesce_memo_is_bounded_by_transactions():
    """Scattered accesses (each warp's 32 lanes on 32 lines, the pattern never repeated) fill
    the coalescing memo with 32 transactions a pattern: the table is cleared before it holds
    more than ``_COALESCE_MAX_TX`` transactions, and a repeated pattern is served from it
    (the same transactions as worked out fresh)."""
    from gpgpusim.timing.core import coalesce as C
    rng = np.random.default_rng(3)
    lanes = np.arange(32)
    most = 0
    for _ in range(3 * C._COALESCE_MAX_TX // 32):
        addrs = (rng.integers(0, 1 << 20, 32) * 128 + 4).astype(np.uint64)
        accs = C.coalesce(lanes, addrs, 4, 70, 1)
        assert len(accs) == len({int(a) >> 7 for a in addrs})
        most = max(most, sum(len(p) for p in C._COALESCE_MEMO.values()))
    assert C._COALESCE_MAX_TX - 32 < most <= C._COALESCE_MAX_TX
    assert C._coalesce_tx == sum(len(p) for p in C._COALESCE_MEMO.values())
    stride = (0x40000 + 128 * lanes).astype(np.uint64)
    first = [(a.addr, a.size, a.sector_mask, a.lanes) for a in C.coalesce(lanes, stride, 4, 70, 1)]
    n = len(C._COALESCE_MEMO)
    again = [(a.addr, a.size, a.sector_mask, a.lanes) for a in C.coalesce(lanes, stride + 0x1000, 4, 70, 1)]
    assert len(C._COALESCE_MEMO) == n           # a hit: the pattern shifted by whole lines
    assert again == [(a + 0x1000, s, m, lm) for a, s, m, lm in first]
    assert sorted(a for a, *_ in first) == [0x40000 + 128 * i for i in range(32)]
