"""Memory side (gpgpusim.timing.memory): address decoding, DRAM timing/scheduling, round trips."""

from __future__ import annotations

import pytest

from gpgpusim.options import load_config
from gpgpusim.options.formats import address_decoder_lines
from gpgpusim.report.stats import StatsRegistry
from gpgpusim.timing.mem_fetch import MemFetch
from gpgpusim.timing.clock import CORE, DRAM, ICNT, L2, ClockDomains
from gpgpusim.timing.memory import MemorySystem
from gpgpusim.timing.memory.addrdec import AddressDecoder
from gpgpusim.timing.memory.dram import Dram
from gpgpusim.timing.memory.dram_parts import DramTimingParams


@pytest.fixture(scope="module")
def cfg():
    return load_config(None)


def test_address_masks_match_printed_decoder(cfg):
    dec = AddressDecoder.from_config(cfg)
    lines = address_decoder_lines(cfg.get("gpgpu_mem_addr_mapping"), 0, 32, 2)
    for f in ("CHIP", "BK", "ROW", "COL"):
        assert f"= {dec.masks[f]:016x}" in next(x for x in lines if f"[{f}]" in x)
    assert lines[-1].endswith(f"{dec.sub_partition_id_mask:016x}")
    # IPOLY spreads consecutive 256-byte chunks over all 64 sub-partitions
    sps = {dec.decode(a)[1] for a in range(0, 64 * 256, 256)}
    assert sps == set(range(64))
    for a in (0, 0x12345600, 0xFFFFFF00):
        chip, sp, *_ = dec.decode(a)
        assert chip == sp // 2


@pytest.mark.parametrize("gpu", ["SM86_RTX3070", "SM7_QV100", "xor"])
def test_split_decoding_equals_the_plain_decoding(gpu):
    """The split decoding combines the decodings of the address's high and middle bits (linear
    fields): every field equals the plain decoding's, on 40-bit and 32-bit random addresses."""
    import random
    if gpu == "xor":
        dec = AddressDecoder(None, 8, 2, 1, 1)
    else:
        dec = AddressDecoder.from_config(load_config(None, env=False, gpu=gpu))
    assert dec._split
    rng = random.Random(5)
    for i in range(20000):
        a = rng.getrandbits(40 if i % 2 else 32)
        base = a >> dec._low << dec._low
        assert dec._decoded(a) == dec._decode(base)
        chip, sp, bk, row, col = dec.decode(a)
        assert col == dec._decode(base)[4] | (a & dec._low_mask)


def _fetch(row, bank=0, write=False, at=None):
    f = MemFetch(0, 32, write, at or ("GLOBAL_ACC_W" if write else "GLOBAL_ACC_R"))
    f.bank, f.row, f.sub_partition = bank, row, 0
    return f


def _run(dram, cycles, watch):
    """Cycle the DRAM, returning {name: cycle} of the first cycle each watched counter rose."""
    seen = {}
    before = {k: getattr(dram, k) for k in watch}
    for t in range(cycles):
        dram.cycle(t)
        for k in watch:
            if k not in seen and getattr(dram, k) != before[k]:
                seen[k] = t
    return seen


def test_dram_trcd_blocks_read_until_t(cfg):
    p = DramTimingParams(cfg)
    d = Dram(0, p)
    d.push(_fetch(7), 0)
    seen = _run(d, 40, ("n_act", "n_rd"))
    # activate in the first cycle the scheduler hands the request to the bank; the column
    # read waits for RCDc (set to tRCD, counted down at the end of each cycle) to reach 0
    assert seen["n_act"] == 0
    assert seen["n_rd"] == seen["n_act"] + p.tRCD


def test_dram_read_latency_and_return(cfg):
    p = DramTimingParams(cfg)
    d = Dram(0, p)
    f = _fetch(3)
    d.push(f, 0)
    t_ret = None
    for t in range(60):
        d.cycle(t)
        if d.return_top() is f:
            t_ret = t
            break
    # read issued at tRCD, leaves the CL-deep data pipeline CL+1 cycles later
    assert t_ret == p.tRCD + p.CL + 1
    assert d.reads_per_bank[0] == 1


def test_frfcfs_row_hit_before_older_row_miss(cfg):
    p = DramTimingParams(cfg)
    d = Dram(0, p)
    d.push(_fetch(5), 0)
    for t in range(30):              # open row 5 and finish the first read
        d.cycle(t)
    older, newer = _fetch(9), _fetch(5)
    d.push(older, 30)
    d.push(newer, 30)
    done = []
    for t in range(30, 200):
        d.cycle(t)
        mf = d.return_top()
        if mf is not None:
            done.append(mf)
            d.return_pop()
    assert done[1:] == [newer, older]


def test_fifo_scheduler_keeps_order(cfg):
    p = DramTimingParams(cfg)
    p.scheduler = 0
    d = Dram(0, p)
    d.push(_fetch(5), 0)
    for t in range(30):
        d.cycle(t)
    d.return_pop()
    older, newer = _fetch(9), _fetch(5)
    d.push(older, 30)
    d.push(newer, 30)
    done = []
    for t in range(30, 300):
        d.cycle(t)
        mf = d.return_top()
        if mf is not None:
            done.append(mf)
            d.return_pop()
    assert done == [older, newer]


def _round_trip(cfg, addr, *, memcpy, write=False):
    """Run GPGPU-Sim's clock-domain loop (core/icnt/L2 at 1132 MHz, DRAM at 850 MHz) with one
    request injected at core cycle 0; return the core cycle its reply is ejected."""
    ms = MemorySystem(cfg, StatsRegistry(), 80)
    if memcpy:
        ms.memcpy_to_l2(addr, 128)
    mf = MemFetch(addr, 32, write, "GLOBAL_ACC_W" if write else "GLOBAL_ACC_R", cluster_id=3, core_id=3)
    ms.decode(mf)
    clock = ClockDomains.from_config(cfg)
    cyc = 0
    for _ in range(10000):          # watchdog
        mask = clock.step()
        if mask & CORE:
            r = ms.pop_reply(3, cyc)
            if r is not None:
                assert r is mf and not ms.busy()
                return cyc, ms
        ms.step(mask, cyc)
        if mask & CORE:
            if cyc == 0:
                assert ms.can_inject(3, mf)
                ms.inject(3, mf, cyc)
            cyc += 1
    raise AssertionError("no reply")


def test_l2_hit_round_trip(cfg):
    rop = int(cfg.get("gpgpu_l2_rop_latency"))
    cyc, ms = _round_trip(cfg, 0x10000, memcpy=True)
    # injected after core cycle 0; crossbar at 1, L2 pops it at 2 -> ROP until 2+rop, enters the
    # icnt->L2 queue at the end of that L2 cycle, hits the next, reply network the next, ejected
    # one cycle later
    assert cyc == rop + 5
    ms.publish_stats()
    v = ms.stats.values
    assert v["L2_total_cache_accesses"] == 1 and v["L2_total_cache_misses"] == 0
    assert v["total_dram_reads"] == 0


def test_dram_round_trip(cfg):
    cyc, ms = _round_trip(cfg, 0x10000, memcpy=False)
    assert cyc == 304
    ms.publish_stats()
    v = ms.stats.values
    assert v["L2_total_cache_misses"] == 1 and v["total_dram_reads"] == 1
    assert v["l2_cache_breakdown"] == {"GLOBAL_ACC_R": {"MISS": 1}}


def test_store_is_acknowledged_by_write_back_l2(cfg):
    cyc, ms = _round_trip(cfg, 0x20000, memcpy=False, write=True)
    assert cyc == int(cfg.get("gpgpu_l2_rop_latency")) + 5
    ms.publish_stats()
    assert ms.stats.values["total_dram_writes"] == 0
    assert ms.idle()


def test_vectoradd_l2_counts(cfg):
    """Loads of memcpy'd data hit, 4 sector stores per line miss once then sector-miss
    (the reference run: 16384 read hits, 2048 MISS + 6144 SECTOR_MISS stores, scaled down)."""
    ms = MemorySystem(cfg, StatsRegistry(), 80)
    n = 4096
    a, b, c = 0xC0000000, 0xC0004000, 0xC0008000
    ms.memcpy_to_l2(a, n)
    ms.memcpy_to_l2(b, n)
    reqs = [MemFetch(x + off, 32, False, "GLOBAL_ACC_R", cluster_id=0) for off in range(0, n, 32) for x in (a, b)]
    reqs += [MemFetch(c + off, 32, True, "GLOBAL_ACC_W", cluster_id=0) for off in range(0, n, 32)]
    got = 0
    cyc = 0
    pending = list(reqs)
    while got < len(reqs) and cyc < 20000:
        while ms.pop_reply(0, cyc) is not None:
            got += 1
        ms.step(L2 | ICNT | DRAM, cyc)
        if pending and ms.can_inject(0):
            ms.inject(0, pending.pop(0), cyc)
        cyc += 1
    assert got == len(reqs)
    ms.publish_stats()
    v = ms.stats.values
    bd = v["l2_cache_breakdown"]
    assert bd["GLOBAL_ACC_R"] == {"HIT": 2 * n // 32}
    assert bd["GLOBAL_ACC_W"] == {"MISS": n // 128, "SECTOR_MISS": 3 * n // 128}
    assert v["L2_total_cache_misses"] == n // 32


@pytest.mark.parametrize("gpu,extra", [("SM7_QV100", []), ("SM7_QV100", ["-gpgpu_n_mem 11"]),
                                       ("QuadroFX5800", []), ("SM86_RTX3070", ["-gpgpu_n_mem 12"])])
def test_l2_set_index_memo_keyed_by_partition_granule(gpu, extra):
    """The L2's set-index memo is keyed by ``addr >> min(line, partition granule)``: every
    address still gets the set its partition address hashes to (power-of-two and gap channel
    counts, chip bits above and below the line size)."""
    import random

    from gpgpusim.timing.cache import hash_set_index
    c = load_config(None, overrides=extra, env=False, gpu=gpu)
    ms = MemorySystem(c, StatsRegistry(), 80)
    rnd = random.Random(7)
    for sp in ms.subs[:3]:
        l2 = sp.l2
        assert l2 is not None and l2.set_index_addr is not None
        for _ in range(3000):
            a = rnd.randrange(0, 1 << 34)
            assert l2.set_index(a) == hash_set_index(l2.set_index_addr(a), l2.nset, l2.line_log2,
                                                     l2.set_function), hex(a)


@pytest.mark.parametrize("extra", [[], ["-gpgpu_n_mem 11"], ["-gpgpu_memory_partition_indexing 2"]])
def test_memcpy_to_l2_fills_the_decoded_sub_partition(extra):
    """``memcpy_to_l2`` decodes once per partition granule; every sector still lands in the
    L2 bank its address decodes to (checked against a per-sector decode)."""
    c = load_config(None, overrides=extra, env=False, gpu="SM7_QV100")
    ms = MemorySystem(c, StatsRegistry(), 80)
    base, n = 0x12345E0, 64 * 1024
    ms.memcpy_to_l2(base, n, 10)
    for off in range(0, n, 32):
        a = base + off
        sp = ms.addrdec.decode(a)[1]
        l2 = ms.subs[sp].l2
        assert l2 is not None
        status, _idx = l2.probe(a, 1 << (a % 128 // 32), False)
        assert status == "HIT", (hex(a), sp, status)


def test_l2_write_back_goes_to_the_victims_dram_row(cfg):
    """A fetch the L2 makes decodes its own address (``partition_mf_allocator::alloc`` ->
    ``mem_fetch``'s ``addrdec_tlx``): a dirty victim's write-back carries the victim's DRAM
    bank and row, not those of the request whose miss evicted it."""
    ms = MemorySystem(cfg, StatsRegistry(), 80)
    dec = ms.addrdec
    victim = 0xC0000000
    _, sp, bk, row, col = dec.decode(victim)
    # a line of the same sub-partition (so the same L2 bank) in another bank or row
    evictor = next(a for a in range(victim + 256, victim + (64 << 20), 256)
                   if dec.decode(a)[1] == sp and dec.decode(a)[2:4] != (bk, row))
    like = ms.decode(MemFetch(evictor, 32, False, "GLOBAL_ACC_R"))
    wb = ms.subs[sp]._make_fetch(victim, "L2_WRBK_ACC", 0xF, (1 << 128) - 1, 128, True, like, 0)
    assert (wb.chip, wb.sub_partition, wb.bank, wb.row, wb.col) == (sp // 2, sp, bk, row, col)
    assert (wb.bank, wb.row) != (like.bank, like.row)


def test_sector_fetch_is_the_keyword_split():
    """``mem_fetch.sector_fetch`` (a sectored L2's split, ``SubPartition._breakdown``) builds the
    fetch ``MemFetch(...)`` with the parent's fields plus ``copy_tlx`` builds: every field but
    the uid, which is the next one; a sector none of whose bytes the parent writes gets the
    whole sector's byte mask."""
    from gpgpusim.timing.mem_fetch import MemFetch, sector_byte_mask, sector_fetch
    parent = MemFetch(0x4000, 128, True, "GLOBAL_ACC_W", sector_mask=0b1011, byte_mask=0xF << 40,
                      core_id=5, cluster_id=2, warp_id=9, token="tok", timestamp=40)
    parent.chip, parent.sub_partition, parent.bank, parent.row, parent.col = 3, 7, 2, 0x55, 0x12
    for i in (0, 1, 3):
        a = parent.addr + 32 * i
        ref = MemFetch(a, 32, parent.is_write, parent.access_type, sector_mask=1 << i,
                       byte_mask=(parent.byte_mask & sector_byte_mask(1 << i)) or sector_byte_mask(1 << i),
                       core_id=5, cluster_id=2, warp_id=9, is_atomic=False, token="tok",
                       timestamp=77, original=parent)
        ref.copy_tlx(parent)
        mf = sector_fetch(parent, a, i, 77)
        assert mf.uid == ref.uid + 1
        for f in MemFetch.__slots__:
            if f != "uid":
                assert getattr(mf, f) == getattr(ref, f), f
    assert sector_fetch(parent, parent.addr + 32, 1, 0).byte_mask == 0xF << 40
    assert sector_fetch(parent, parent.addr, 0, 0).byte_mask == sector_byte_mask(1)


@pytest.mark.parametrize("gpu", ["SM7_QV100", "SM86_RTX3070"])
def test_cache_made_fetches_are_the_keyword_construction(gpu):
    """The fetches a cache makes (a write-back of a dirty victim, a write-allocate read) --
    an L2 sub-partition's ``_make_fetch`` and a cache's default ``fetch_factory`` (L1 and L2
    levels), both through ``mem_fetch.access_fetch`` -- equal field by field (but the uid,
    the next one) the keyword ``MemFetch(...)`` construction with the same fields, the
    decoded address of the fetch's own address (sub-partition) or of ``like``."""
    from gpgpusim.timing.cache import Cache
    from gpgpusim.timing.mem_fetch import sector_byte_mask
    cfg = load_config(None, gpu=gpu, env=False)
    mem = MemorySystem(cfg, StatsRegistry(), 4)
    like = MemFetch(0x8040, 32, True, "GLOBAL_ACC_W", sector_mask=0b0010, core_id=3, cluster_id=1,
                    warp_id=6, token="tok", timestamp=9)
    mem.decode(like)
    l1 = Cache("L1D_t", cfg.get("gpgpu_cache:dl1"), "L1D", level=1)
    l2 = Cache("L2_t", cfg.get("gpgpu_cache:dl2"), "L2", level=2)
    cases = [(0x123480, "L2_WRBK_ACC", 0b0101, 0, 64, True), (0x8040, "L2_WR_ALLOC_R", 0b0010, 0xF << 36, 32, False),
             (0x77700, "L1_WRBK_ACC", 0b1111, 0, 128, True)]
    for addr, at, smask, bmask, size, wr in cases:
        for maker, level, own in ((mem.subs[2]._make_fetch, 2, True), (l1.fetch_factory, 1, False),
                                  (l2.fetch_factory, 2, False)):
            ids = (like.core_id, like.cluster_id, like.warp_id) if level == 1 else (-1, -1, -1)
            ref = MemFetch(addr, size, wr, at, sector_mask=smask, byte_mask=bmask, core_id=ids[0],
                           cluster_id=ids[1], warp_id=ids[2], timestamp=55)
            if own:
                mem.decode(ref)
            else:
                ref.copy_tlx(like)
            mf = maker(addr, at, smask, bmask, size, wr, like, 55)
            assert mf.uid == ref.uid + 1
            for f in MemFetch.__slots__:
                if f != "uid":
                    assert getattr(mf, f) == getattr(ref, f), (f, maker)
            assert mf.byte_mask == (bmask or sector_byte_mask(smask)) and mf.chip >= 0


@pytest.mark.parametrize("small_l2", [False, True], ids=["l2", "small_l2"])
def test_sleeping_sub_partitions_are_exact(monkeypatch, small_l2):
    """Sleeping sub-partitions (not cycled while they only wait for a ROP head or DRAM, and
    taking in a request that enters the ROP delay without waking) give every statistic,
    every reply at its cycle and every L2 bank's port counters of the plain path, in which
    every sub-partition with work is cycled every L2 cycle (each sleeper is woken before
    each L2 phase)."""
    from tests.timing.memory import memory_scenarios as scen
    keep: list = []
    fast = scen.run_memory_scenario(21, n=1200, small_l2=small_l2, keep=keep)
    slept = sum(s.l2.stats.port_cycles for s in keep[0].subs)
    orig = MemorySystem.l2_cycle
    woken = [0]

    def plain(self, now=None):
        for sub in self.subs:
            if sub.asleep:
                sub.wake()
                woken[0] += 1
        orig(self, now)
    monkeypatch.setattr(MemorySystem, "l2_cycle", plain)
    keep2: list = []
    ref = scen.run_memory_scenario(21, n=1200, small_l2=small_l2, keep=keep2)
    assert woken[0] > 100
    assert fast == ref
    ports = [(s.l2.stats.port_cycles, s.l2.stats.data_port_busy, s.l2.stats.fill_port_busy) for s in keep[0].subs]
    assert ports == [(s.l2.stats.port_cycles, s.l2.stats.data_port_busy, s.l2.stats.fill_port_busy)
                     for s in keep2[0].subs]
    assert slept == sum(p[0] for p in ports) > 0


@pytest.mark.parametrize("gpu", ["SM2_GTX480", "SM7_QV100"])
def test_decoder_memos_are_bounded(gpu):
    """The unsplit decoding (GTX480: a channel count that is not a power of two) memoises
    per block, at most ``_MEMO_MAX`` blocks however large the footprint (cleared when full);
    the split decoding (QV100) keeps no memo and one high half per 1 << ``_split`` bytes.
    Every address decodes as the plain decoding does, before and after a clear."""
    dec = AddressDecoder.from_config(load_config(None, env=False, gpu=gpu))
    step = 1 << dec._low
    most = 0
    for i in range(3 * dec._MEMO_MAX):
        a = 0x100000000 + i * step + (i % step)
        assert dec.decode(a) == dec._decode(a)[:5]
        most = max(most, len(dec._memo))
    if dec._split:
        assert most == 0
        assert len(dec._hi) == (3 * dec._MEMO_MAX * step - 1 >> dec._split) + 1
    else:
        assert most == dec._MEMO_MAX


def test_l2_banks_share_one_bounded_set_memo(cfg):
    """The L2 banks hash their sets the same way: one set-index memo for all of them, cleared
    at ``_SET_MEMO_MAX`` entries, with the sets of the plain hash."""
    from gpgpusim.report.stats import StatsRegistry
    from gpgpusim.timing.cache import data as D
    from gpgpusim.timing.cache import hash_set_index
    from gpgpusim.timing.memory.system import MemorySystem
    mem = MemorySystem(cfg, StatsRegistry(), 1)
    l2s = [sp.l2 for sp in mem.subs]
    assert len(l2s) > 1 and all(c._set_memo is l2s[0]._set_memo for c in l2s)
    memo = l2s[0]._set_memo
    most = 0
    for i in range(D._SET_MEMO_MAX + 5000):
        a = (0x10000000 + i * 128 * 7) & ~127
        c = l2s[i % len(l2s)]
        assert c.set_index(a) == hash_set_index(mem.addrdec.partition_address(a), c.nset, c.line_log2,
                                                c.set_function)
        most = max(most, len(memo))
    assert most == D._SET_MEMO_MAX
