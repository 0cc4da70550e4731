"""Cache model (gpgpusim.timing.cache): statuses, MSHR merging, write policies, set hashing."""

from __future__ import annotations

import dataclasses

import pytest

from gpgpusim.options import load_config
from gpgpusim.options.formats import CacheConfig
from gpgpusim.report.stats import StatsRegistry
from gpgpusim.timing.cache import (HIT, MISS, RESERVATION_FAIL, Cache, hash_set_index, ipoly_hash,
                                   publish_cache_stats)
from gpgpusim.timing.mem_fetch import MemFetch


@pytest.fixture(scope="module")
def cfg():
    return load_config(None)


def rd(addr, at="GLOBAL_ACC_R", size=32):
    return MemFetch(addr, size, False, at)


def wr(addr, at="GLOBAL_ACC_W", byte_mask=0):
    return MemFetch(addr, 32, True, at, byte_mask=byte_mask)


def l1d(cfg, **kw):
    c = cfg.get("gpgpu_cache:dl1")
    return Cache("L1D", dataclasses.replace(c, **kw) if kw else c, "L1D", level=1)


def test_l1_hit_after_fill(cfg):
    c = l1d(cfg)
    f = rd(0x1000)
    assert c.access(f, 10) == MISS
    assert c.pop_miss() is f and f.size == 32
    c.fill(f, 20)
    assert c.access_ready() and c.next_access() is f and not c.access_ready()
    assert c.access(rd(0x1000), 30) == HIT
    assert c.stats.counts["GLOBAL_ACC_R"] == {"MISS": 1, "HIT": 1}


def test_mshr_merge_counts_hit_reserved_and_mshr_hit(cfg):
    c = l1d(cfg)
    a, b = rd(0x2000), rd(0x2000)
    assert c.access(a, 1) == MISS
    assert c.access(b, 2) == MISS            # merged: the access outcome is a miss ...
    row = c.stats.counts["GLOBAL_ACC_R"]
    assert row == {"MISS": 1, "HIT_RESERVED": 1, "MSHR_HIT": 1}   # ... counted as a pending hit
    assert len(c.miss_queue) == 1            # only one request goes down
    c.fill(c.pop_miss(), 50)
    assert [c.next_access(), c.next_access()] == [a, b]
    assert not c.mshr


def test_full_mshr_gives_reservation_fail(cfg):
    c = l1d(cfg, mshr_entries=2, mshr_max_merge=2)
    assert c.access(rd(0x0), 1) == MISS
    assert c.access(rd(0x80), 1) == MISS
    assert c.access(rd(0x100), 1) == RESERVATION_FAIL          # no free entry
    assert c.access(rd(0x0), 1) == MISS                        # merge 2/2
    assert c.access(rd(0x0), 1) == RESERVATION_FAIL            # merge limit
    assert c.stats.fails["GLOBAL_ACC_R"] == {"MSHR_ENRTY_FAIL": 1, "MSHR_MERGE_ENRTY_FAIL": 1}
    assert c.stats.totals() == (3, 2, 1, 2)


def test_miss_queue_full(cfg):
    c = l1d(cfg, miss_queue=2)
    assert c.access(rd(0x0), 1) == MISS
    # rd_miss_base needs room for two requests (miss + possible write-back)
    assert c.access(rd(0x80), 1) == RESERVATION_FAIL
    assert c.stats.fails["GLOBAL_ACC_R"] == {"MISS_QUEUE_FULL": 1}


def test_sector_miss_vs_line_miss(cfg):
    c = l1d(cfg)
    f = rd(0x4000)
    c.access(f, 1)
    c.fill(c.pop_miss(), 5)
    c.next_access()
    g = rd(0x4020)                      # next sector of the same line
    assert c.access(g, 6) == MISS
    assert c.stats.counts["GLOBAL_ACC_R"]["SECTOR_MISS"] == 1
    # a line (non-sectored) cache fetches whole lines: the second sector then hits
    lc = Cache("L1I", cfg.get("gpgpu_cache:il1"), "L1I")
    h = rd(0x4000, "INST_ACC_R", 128)
    assert lc.access(h, 1) == MISS and h.size == 128
    lc.fill(lc.pop_miss(), 5)
    lc.next_access()
    assert lc.access(rd(0x4020, "INST_ACC_R"), 6) == HIT


def test_write_through_lazy_fetch(cfg):
    """QV100 L1D: write-through, lazy fetch on read: a full-sector write allocates a readable
    modified sector and goes down; a read then hits."""
    c = l1d(cfg)
    w = wr(0x8000)
    assert c.access(w, 1) == MISS
    assert c.pop_miss() is w
    assert c.access(rd(0x8000), 2) == HIT
    # a partial write leaves the sector unreadable: the read is a sector miss
    p = wr(0x9000, byte_mask=0xF)
    assert c.access(p, 3) == MISS
    assert c.access(rd(0x9000), 4) == MISS
    assert c.stats.counts["GLOBAL_ACC_R"]["SECTOR_MISS"] == 1


def test_write_back_evicts_dirty_victim(cfg):
    """A 1-set, 1-way write-back cache: the dirty line is written back on the next miss."""
    cc = CacheConfig.parse("S:1:128:1,L:B:m:L:L,A:4:4,8:0,32")
    c = Cache("L2", cc, "L2", level=2)
    assert c.access(wr(0x0), 1) == MISS
    assert not c.miss_queue                         # write-back + lazy fetch: nothing sent
    f = rd(0x80)
    assert c.access(f, 2) == MISS
    assert [m.access_type for m in c.miss_queue] == ["GLOBAL_ACC_R", "L2_WRBK_ACC"]
    wb = c.miss_queue[1]
    assert wb.addr == 0 and wb.is_write and wb.size == 32


def test_write_evict_and_no_allocate(cfg):
    cc = CacheConfig.parse("N:4:128:2,L:E:m:N:L,A:4:4,8")
    c = Cache("c", cc, "c")
    f = rd(0x0)
    c.access(f, 1)
    c.fill(c.pop_miss(), 2)
    c.next_access()
    w = wr(0x0)
    assert c.access(w, 3) == HIT and c.pop_miss() is w          # write-evict: sent down ...
    assert c.access(rd(0x0), 4) == MISS                         # ... and the line is gone
    c2 = Cache("c2", cc, "c2")
    w2 = wr(0x100)
    assert c2.access(w2, 1) == MISS and c2.pop_miss() is w2     # no write-allocate
    assert c2.access(rd(0x100), 2) == MISS


def test_lru_victim(cfg):
    cc = CacheConfig.parse("N:1:128:2,L:R:m:N:L,A:4:4,8")
    c = Cache("c", cc, "c")
    for t, a in enumerate((0x0, 0x80)):
        f = rd(a)
        c.access(f, t)
        c.fill(c.pop_miss(), t)
        c.next_access()
    c.access(rd(0x0), 10)           # 0x0 most recent
    f = rd(0x100)
    c.access(f, 11)
    c.fill(c.pop_miss(), 12)
    c.next_access()
    assert c.access(rd(0x0), 13) == HIT
    assert c.access(rd(0x80), 14) == MISS


def test_set_index_functions():
    assert hash_set_index(0x1234 << 7, 64, 7, "L") == 0x1234 & 63
    # IPOLY keeps distinct indices for a power-of-two stride sweep
    assert len({hash_set_index(i << 12, 32, 7, "P") for i in range(32)}) == 32
    assert ipoly_hash(0, 5, 32) == 5
    assert hash_set_index(0x2000 | (3 << 7), 32, 7, "H") == 3 ^ 1


def test_publish_stats(cfg):
    c = l1d(cfg)
    c.access(rd(0x0), 1)
    reg = StatsRegistry()
    publish_cache_stats(reg, [c, l1d(cfg)], "L1D", per_unit="L1D_core", breakdown="core_cache_breakdown")
    v = reg.values
    assert v["L1D_total_cache_accesses"] == 1 and v["L1D_total_cache_misses"] == 1
    assert v["L1D_core_access"] == [1, 0]
    assert v["core_cache_breakdown"] == {"GLOBAL_ACC_R": {"MISS": 1}}


# ----------------------------------------------------------------------------- texture cache (C110)
def tex(addr):
    return MemFetch(addr, 128, False, "TEXTURE_ACC_R")


def test_tex_cache_miss_then_hit_in_order(cfg):
    """QV100's L1T (N:4:128:256,L:R:m:N:L,T:512:8,128:2): a miss allocates and validates its line
    at once, so a second access to the line is a tag hit (HIT_RESERVED), but it leaves the
    fragment FIFO only after the miss, whose ROB entry waits for the four sector replies."""
    from gpgpusim.timing.cache import HIT_RESERVED, TexCache
    t = TexCache("L1T_000", cfg.get("gpgpu_tex_cache:l1"))
    a, b = tex(0x2000), tex(0x2000)
    assert t.access(a, 5) == MISS and t.access(b, 6) == HIT_RESERVED
    assert t.request_top() is a and a.size == 128
    sent = []
    t.cycle(lambda mf: sent.append(mf) or True)            # request goes; the miss blocks the FIFO
    assert sent == [a] and not t.access_ready() and t.idle()
    parts = [MemFetch(0x2000 + 32 * i, 32, False, "TEXTURE_ACC_R", original=a) for i in range(4)]
    for p in parts[:3]:
        t.fill(p, 100)
        t.cycle()
        assert not t.access_ready()
    t.fill(parts[3], 103)
    t.cycle()                                               # one fragment per cycle
    assert [t.next_access() for _ in range(1)] == [a] and not t.access_ready()
    t.cycle()
    assert t.next_access() is b and not t.busy()
    assert t.stats.totals() == (2, 1, 1, 0)                 # the hit counts as a pending hit
    assert t.stats.counts == {"TEXTURE_ACC_R": {"MISS": 1, "HIT_RESERVED": 1}}


def test_tex_cache_fifo_limits(cfg):
    """The request FIFO (8) refuses the ninth miss; refusals are not counted; the result FIFO
    (2 entries) holds back further fragments until the writeback drains it."""
    from gpgpusim.timing.cache import HIT_RESERVED, TexCache
    t = TexCache("L1T_000", cfg.get("gpgpu_tex_cache:l1"))
    for i in range(8):
        assert t.access(tex(0x10000 + 128 * i), 0) == MISS
    assert t.access(tex(0x20000), 0) == RESERVATION_FAIL
    assert t.stats.totals() == (8, 8, 0, 0)
    u = TexCache("L1T_001", cfg.get("gpgpu_tex_cache:l1"))
    first = tex(0x40000)
    assert u.access(first, 0) == MISS
    u.pop_request()
    u.fill(first, 1)                                        # a whole-line reply (no split)
    hits = [tex(0x40000) for _ in range(3)]
    assert [u.access(h, 2) for h in hits] == [HIT_RESERVED] * 3
    for _ in range(4):
        u.cycle()
    assert len(u.result) == 2 and len(u.fragment) == 2
    assert u.next_access() is first
    u.cycle()
    assert [u.next_access(), u.next_access()] == hits[:2]


class _NoMemoCache(Cache):
    """The full access path every time: no remembered refusal or probe answer."""

    def access(self, fetch, now, events=None):
        self._retry.clear()
        return super().access(fetch, now, events)


def _memory_side(c, rng, now, inflight, p_out, delay, trace=None):
    """One cycle of a cache's memory side in a random test: with probability ``p_out`` its
    oldest miss leaves (its fill comes back ``delay`` cycles later, a random range), the
    fills due now arrive, and the merged requests ready drain (recorded in ``trace`` when
    given)."""
    if c.miss_queue and rng.random() < p_out:
        m = c.pop_miss()
        if trace is not None:
            trace.append((now, "out", m.access_type, m.addr, m.sector_mask))
        if c.waiting_for_fill(m):
            inflight.append((now + rng.randrange(*delay), m))
    for due, m in [x for x in inflight if x[0] <= now]:
        inflight.remove((due, m))
        c.fill(m, now)
    while c.access_ready():
        a = c.next_access()
        if trace is not None:
            trace.append((now, "ready", a.addr))


def _retry_traffic(make, seed, cycles=600):
    """Three queue heads retry their access every cycle until it is taken (as the LD/ST
    latency queues and the L2 bank queue do), over 10 lines of 2 sets; misses leave the miss
    queue at random and their fills come back 5-20 cycles later; merged requests drain.
    Returns every access outcome, the miss queue traffic, the statistics and how many
    refusals were retries of a remembered refusal."""
    import random

    rng = random.Random(seed)
    c = make()
    heads = [None, None, None]
    inflight: list = []
    trace: list = []
    remembered = 0
    for now in range(cycles):
        for i, h in enumerate(heads):
            if h is None:
                addr = rng.randrange(10) * 128 + rng.randrange(4) * 32
                if rng.random() < 0.3:
                    h = heads[i] = MemFetch(addr, 32, True, "GLOBAL_ACC_W",
                                            byte_mask=rng.choice((0, 0xF << (addr % 128))))
                else:
                    h = heads[i] = MemFetch(addr, 32, False, "GLOBAL_ACC_R")
            seen = h in c._retry
            st = c.access(h, now)
            trace.append((now, i, st))
            if st == RESERVATION_FAIL:
                remembered += seen
            else:
                heads[i] = None
        _memory_side(c, rng, now, inflight, 0.4, (5, 20), trace)
        c.cycle()
    return trace, c.stats.counts, c.stats.fails, remembered


@pytest.mark.parametrize("geometry,kw", [
    ("S:2:128:2,L:T:m:L:L,A:4:2,3:0,32", {}),                     # RTX3070/QV100-like L1D
    ("S:2:128:2,L:B:m:L:X,A:4:2,4:0,32", {"level": 2}),           # L2: write-back, dirty victims
    ("S:2:128:2,L:B:m:F:L,A:4:2,4:0,32", {"wr_percent": 25}),     # fetch-on-write, dirty share
    ("N:2:128:2,L:R:m:N:L,A:4:2,3", {}),                          # read-only
])
def test_remembered_refusals_match_the_full_path(geometry, kw):
    """A retried refusal answered from the remembered one (per-set version, queue re-check)
    gives the same outcomes, traffic and statistics (reservation fails per reason included) as
    the full access path."""
    cc = CacheConfig.parse(geometry)
    for seed in range(3):
        fast = _retry_traffic(lambda: Cache("c", cc, "c", **kw), seed)
        full = _retry_traffic(lambda: _NoMemoCache("c", cc, "c", **kw), seed)
        assert fast[:3] == full[:3]
        assert sum(fast[1]["GLOBAL_ACC_R"].values()) > 300
        assert fast[3] > 50 and full[3] == 0


def _scan_probe(c, addr, sector_mask, is_write):
    """GPGPU-Sim's ``tag_array::probe``, its linear scan of the set written out (a line never
    handed out is an invalid line)."""
    from gpgpusim.timing.cache.data import _match_status
    from gpgpusim.timing.cache.status import SECTOR_MISS
    s = c.set_index(addr)
    tag = addr & ~(c.line_bytes - 1)
    sidx = c._sidx(sector_mask)
    invalid = valid = -1
    valid_ts = None
    all_reserved = True
    for idx in range(s * c.assoc, (s + 1) * c.assoc):
        line = c.lines[idx]
        if line is not None and line.tag == tag:
            st = _match_status(line, sidx, is_write)
            if st is not None:
                return st, idx
            if c.sectored and not line.is_invalid():
                return SECTOR_MISS, idx
        if line is None or not line.is_reserved():
            if line is None or not line.is_modified() or 100.0 * c.n_dirty / (c.nset * c.assoc) >= c.wr_percent:
                all_reserved = False
                if line is None or line.is_invalid():
                    invalid = idx
                elif valid_ts is None or line.stamp < valid_ts:
                    valid_ts, valid = line.stamp, idx
    if all_reserved:
        return RESERVATION_FAIL, -1
    return MISS, (invalid if invalid >= 0 else valid)


@pytest.mark.parametrize("geometry,kw", [
    ("S:2:128:4,L:T:m:L:L,A:8:4,8:0,32", {}),                     # sector L1D
    ("S:8:128:8,L:B:m:L:X,A:16:4,8:0,32", {"level": 2}),          # 64 lines: the index grows to 128 slots
    ("S:4:128:4,L:B:m:F:L,A:8:4,8:0,32", {"wr_percent": 25}),     # fetch-on-write, dirty share
    ("N:4:128:4,L:R:f:N:L,A:8:4,8", {}),                          # read-only line cache, FIFO, fill-allocated
])
@pytest.mark.parametrize("heaps", [False, True], ids=["scan", "heaps"])
def test_indexed_probe_matches_the_scan(geometry, kw, heaps, monkeypatch):
    """The tag array's hash index and its victim choice (a scan of the set's classes and
    stamps, or, in a cache of more than ``SCAN_MAX_ASSOC`` ways, the victim heaps: both kinds
    tested on each geometry) answer every probe as GPGPU-Sim's linear scan of the set does,
    through random traffic with fills, write-backs, invalidations (which leave stale tags that
    later fills duplicate) and flushes."""
    import random

    from gpgpusim.timing.cache import data as D

    monkeypatch.setattr(D, "SCAN_MAX_ASSOC", 0 if heaps else 1 << 20)
    cc = CacheConfig.parse(geometry)
    checked = dups = 0
    for seed in range(4):
        rng = random.Random(seed)
        c = Cache("c", cc, "c", **kw)
        assert c._scan is not heaps
        inflight: list = []
        for now in range(700):
            addr = rng.randrange(3 * c.nset * c.assoc) * 128 + rng.randrange(4) * 32
            f = (MemFetch(addr, 32, True, "GLOBAL_ACC_W", byte_mask=0xFFFFFFFF << (addr % 128))
                 if rng.random() < 0.3 else MemFetch(addr, 32, False, "GLOBAL_ACC_R"))
            c.access(f, now)
            _memory_side(c, rng, now, inflight, 0.6, (2, 12))
            r = rng.random()
            if r < 0.01:
                c.invalidate()
            elif r < 0.015:
                c.flush()
            dups += c._dup
            for _ in range(4):
                a = rng.randrange(3 * c.nset * c.assoc) * 128 + rng.randrange(4) * 32
                mask = 1 << (a % 128 // 32)
                w = rng.random() < 0.3
                assert c._probe_set(c.set_index(a), a, mask, w) == _scan_probe(c, a, mask, w), (seed, now, hex(a))
                checked += 1
            c.cycle()
    assert checked == 4 * 700 * 4
    assert dups > 0 or not c.alloc_on_miss        # (fills into invalidated lines: on-miss allocation only)


def test_packed_line_status():
    """A line's sector statuses packed 2 bits a sector: set, read back, tested for a status,
    and the dirty-sector views, on every combination of the four sectors' statuses."""
    import itertools

    from gpgpusim.timing.cache.line import (INVALID, MODIFIED, RESERVED, VALID, Line, _holds, sector_status,
                                            with_sector)
    line = Line()
    assert line.is_invalid() and not line.is_modified() and not line.is_reserved()
    for sts in itertools.product((INVALID, RESERVED, VALID, MODIFIED), repeat=4):
        st = INVALID
        for i, v in enumerate(sts):
            st = with_sector(st, i, v)
        assert [sector_status(st, i) for i in range(4)] == list(sts)
        for v in (RESERVED, VALID, MODIFIED):
            assert _holds(st, v) == (v in sts)
        line.status = st
        assert line.is_invalid() == (set(sts) == {INVALID})
        assert line.dirty_sector_mask() == sum(1 << i for i, v in enumerate(sts) if v == MODIFIED)
        assert line.modified_size(True, 128) == 32 * sts.count(MODIFIED)
        assert line.modified_size(False, 128) == (128 if sts[0] == MODIFIED else 0)
    line.allocate(0x1000, 5, 2)
    assert [sector_status(line.status, i) for i in range(4)] == [INVALID, INVALID, RESERVED, INVALID]
    line.set_modified_on_fill(2)
    line.fill(2, 0)
    assert sector_status(line.status, 2) == MODIFIED and line.is_modified()


def test_packed_line_flags():
    """A line's per-sector flags (readable, modified on fill, readable on fill) and its
    byte-mask-on-fill bool share one int: each sector's flags are set and cleared without
    touching another sector's or another field's, and a fill applies exactly its sector's."""
    from gpgpusim.timing.cache.line import (BYTE_MASK_ON_FILL, MOD_ON_FILL_SHIFT, MODIFIED, READ_ON_FILL_SHIFT,
                                            READABLE, RESERVED, VALID, Line, sector_status)
    assert (READABLE, MOD_ON_FILL_SHIFT, READ_ON_FILL_SHIFT, BYTE_MASK_ON_FILL) == (0xF, 4, 8, 1 << 12)
    line = Line()
    line.allocate(0x2000, 7, 1)
    assert line.flags == READABLE and [line.readable(i) for i in range(4)] == [True] * 4
    line.set_readable(1, False)
    line.set_readable_on_fill(1)
    line.allocate_sector(8, 3, True)                # sector 3: reserved, readable, nothing on fill
    line.set_modified_on_fill(3)
    assert line.flags == 0b1101 | (0b1000 << 4) | (0b0010 << 8) | BYTE_MASK_ON_FILL
    assert [sector_status(line.status, i) for i in range(4)] == [0, RESERVED, 0, RESERVED]
    line.fill(1, 0xF0)                              # readable again; VALID; bytes ORed (the bool is set)
    assert line.readable(1) and sector_status(line.status, 1) == VALID and line.dirty_byte_mask == 0xF0
    assert line.flags == 0b1111 | (0b1000 << 4) | BYTE_MASK_ON_FILL
    line.fill(3, 0x0F00)
    assert sector_status(line.status, 3) == MODIFIED and line.dirty_byte_mask == 0x0FF0
    line.allocate_sector(9, 3, True)                # a modified sector re-reserved: modified on fill again
    assert line.flags >> (MOD_ON_FILL_SHIFT + 3) & 1 and sector_status(line.status, 3) == RESERVED
    line.allocate(0x3000, 10, 0)                    # a new tag clears every flag and the dirty bytes
    assert line.flags == READABLE and line.dirty_byte_mask == 0 and line.tag == 0x3000
