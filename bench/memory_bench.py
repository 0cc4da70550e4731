"""Micro-benchmark of the cycle-level memory side (SM7_QV100 defaults).

Replays synthetic access streams shaped like vectoradd (streaming sector reads of two arrays and
sector writes of a third) and matmul (a reused tile plus strided column reads) through

* an L1D :class:`Cache` with the adaptive carve-out geometry (4 sets x 256 ways),
* the L2 bank configuration (``-gpgpu_cache:dl2``, IPOLY set index),
* the whole :class:`MemorySystem` (icnt + L2 + DRAM, clocked like ``gpgpu_sim::cycle``),

plus the construction of 80 L1Ds and the address decoder, and prints accesses (or calls) per
second.  Usage: ``python bench/memory_bench.py [--quick]``; best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpgpusim.options import load_config  # noqa: E402
from gpgpusim.report.stats import StatsRegistry  # noqa: E402
from gpgpusim.timing.cache import Cache  # noqa: E402
from gpgpusim.timing.mem_fetch import MemFetch  # noqa: E402
from gpgpusim.timing.clock import CORE, ClockDomains  # noqa: E402
from gpgpusim.timing.memory import MemorySystem  # noqa: E402
from gpgpusim.timing.memory.addrdec import AddressDecoder  # noqa: E402

CFG = load_config(None)


def vectoradd_stream(n: int) -> list[tuple[int, bool]]:
    a, b, c = 0xC0000000, 0xC1000000, 0xC2000000
    out = []
    for i in range(n // 3):
        off = 32 * i
        out += [(a + off, False), (b + off, False), (c + off, True)]
    return out


def matmul_stream(n: int) -> list[tuple[int, bool]]:
    a, b, c = 0xC0000000, 0xC1000000, 0xC2000000
    out = []
    width = 512 * 4                      # 512 floats per row
    i = 0
    while len(out) < n:
        row, k = divmod(i, 64)
        out.append((a + (row % 16) * width + 32 * (k % 16), False))   # A tile, reused
        out.append((b + k * width + 32 * (row % 16), False))          # B column walk
        if k == 63:
            out.append((c + row * 32, True))
        i += 1
    return out[:n]


def run_cache(cache: Cache, stream: list[tuple[int, bool]], fill_delay: int = 40) -> float:
    """Access, send down, fill after ``fill_delay`` accesses and drain; returns seconds."""
    pending: deque[tuple[int, MemFetch]] = deque()
    t0 = time.perf_counter()
    for t, (addr, is_write) in enumerate(stream):
        f = MemFetch(addr, 32, is_write, "GLOBAL_ACC_W" if is_write else "GLOBAL_ACC_R")
        while cache.access(f, t) == "RESERVATION_FAIL":
            t += 1
            if pending:
                cache.fill(pending.popleft()[1], t)
            while cache.access_ready():
                cache.next_access()
            cache.cycle()
            cache.data_port_occupied = 0
        while cache.miss_queue:
            m = cache.pop_miss()
            if cache.waiting_for_fill(m):
                pending.append((t + fill_delay, m))
        while pending and pending[0][0] <= t and cache.fill_port_free():
            cache.fill(pending.popleft()[1], t)
        while cache.access_ready():
            cache.next_access()
        cache.cycle()
        cache.data_port_occupied = 0     # one access per step: the port is not the subject here
        cache.fill_port_occupied = 0
    return time.perf_counter() - t0


def l1d(assoc: int = 256) -> Cache:
    dl1 = dataclasses.replace(CFG.get("gpgpu_cache:dl1"), assoc=assoc)
    return Cache("L1D", dl1, "L1D", level=1, wr_percent=25)


def l2() -> Cache:
    dec = AddressDecoder.from_config(CFG)
    return Cache("L2", CFG.get("gpgpu_cache:dl2"), "L2", level=2, set_index_addr=dec.partition_address)


def run_memory_system(n: int) -> tuple[float, int, int]:
    """vectoradd-shaped requests from 80 clusters through the clocked memory system."""
    ms = MemorySystem(CFG, StatsRegistry(), 80)
    stream = vectoradd_stream(n)
    ms.memcpy_to_l2(0xC0000000, 32 * n // 3)
    ms.memcpy_to_l2(0xC1000000, 32 * n // 3)
    reqs = [MemFetch(a, 32, w, "GLOBAL_ACC_W" if w else "GLOBAL_ACC_R", cluster_id=i % 80, core_id=i % 80)
            for i, (a, w) in enumerate(stream)]
    clock = ClockDomains.from_config(CFG)
    cyc = got = 0
    pending = deque(reqs)
    t0 = time.perf_counter()
    while got < len(reqs):
        mask = clock.step()
        if mask & CORE:
            for cl in range(80):
                if ms.pop_reply(cl, cyc) is not None:
                    got += 1
        ms.step(mask, cyc)
        if mask & CORE:
            for _ in range(8):
                if pending and ms.can_inject(pending[0].cluster_id):
                    ms.inject(pending[0].cluster_id, pending.popleft(), cyc)
            cyc += 1
    return time.perf_counter() - t0, cyc, len(reqs)


def best(fn, repeat: int) -> float:
    return min(fn() for _ in range(repeat))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n = 20000 if args.quick else 60000
    rows = []
    va, mm = vectoradd_stream(n), matmul_stream(n)
    for name, mk, stream in (("L1D 4x256 vectoradd", l1d, va), ("L1D 4x256 matmul", l1d, mm),
                             ("L1D 4x64 matmul", lambda: l1d(64), mm),
                             ("L2 bank vectoradd", l2, va), ("L2 bank matmul", l2, mm)):
        s = best(lambda mk=mk, stream=stream: run_cache(mk(), stream), args.repeat)
        rows.append((name, len(stream) / s, "accesses/s"))

    def build() -> float:
        t0 = time.perf_counter()
        for _ in range(80):
            l1d(256)
        return time.perf_counter() - t0
    s = best(build, args.repeat)
    rows.append(("80 x L1D 4x256 construction", 80 / s, "caches/s"))

    dec = AddressDecoder.from_config(CFG)
    addrs = [0xC0000000 + 32 * i for i in range(n)]

    def decode() -> float:
        t0 = time.perf_counter()
        for a in addrs:
            dec.decode(a)
            dec.partition_address(a)
        return time.perf_counter() - t0
    s = best(decode, args.repeat)
    rows.append(("addrdec decode+partition_address", len(addrs) / s, "addresses/s"))

    nm = 6000 if args.quick else 15000
    res = [run_memory_system(nm) for _ in range(max(1, args.repeat - 1))]
    s, cyc, nreq = min(res)
    rows.append(("MemorySystem vectoradd (80 clusters)", nreq / s, f"requests/s ({cyc} cycles, {cyc / s:.0f} cycles/s)"))
    for name, rate, unit in rows:
        print(f"{name:40s} {rate:12,.0f} {unit}")


if __name__ == "__main__":
    main()
