"""Cache statistics (GPGPU-Sim ``cache_stats``; checklist C124, C130) and their publication under
GPGPU-Sim's names."""

from __future__ import annotations

from typing import Any

from .status import HIT, HIT_RESERVED, MISS, RESERVATION_FAIL, SECTOR_MISS

class CacheStats:
    """``cache_stats``: counters by (access type, status) and (access type, fail reason), plus
    port utilisation."""

    __slots__ = ("counts", "fails", "port_cycles", "data_port_busy", "fill_port_busy")

    def __init__(self) -> None:
        self.counts: dict[str, dict[str, int]] = {}
        self.fails: dict[str, dict[str, int]] = {}
        self.port_cycles = 0
        self.data_port_busy = 0
        self.fill_port_busy = 0

    def inc(self, access_type: str, status: str) -> None:
        row = self.counts.get(access_type)
        if row is None:
            row = self.counts[access_type] = {}
        row[status] = row.get(status, 0) + 1

    def inc_fail(self, access_type: str, reason: str) -> None:
        row = self.fails.get(access_type)
        if row is None:
            row = self.fails[access_type] = {}
        row[reason] = row.get(reason, 0) + 1

    def totals(self) -> tuple[int, int, int, int]:
        """``get_sub_stats``: (accesses, misses, pending hits, reservation fails)."""
        acc = miss = pend = fail = 0
        for row in self.counts.values():
            acc += row.get(HIT, 0) + row.get(MISS, 0) + row.get(SECTOR_MISS, 0) + row.get(HIT_RESERVED, 0)
            miss += row.get(MISS, 0) + row.get(SECTOR_MISS, 0)
            pend += row.get(HIT_RESERVED, 0)
            fail += row.get(RESERVATION_FAIL, 0)
        return acc, miss, pend, fail


def select_stats_status(probe: str, access: str) -> str:
    """``cache_stats::select_stats_status``."""
    if probe == HIT_RESERVED and access != RESERVATION_FAIL:
        return probe
    if probe == SECTOR_MISS and access == MISS:
        return probe
    return access


def publish_cache_stats(registry: Any, caches: list[Any], name: str, per_unit: str | None = None,
                        breakdown: str | None = None, fail_breakdown: str | None = None,
                        port: str | None = None, breakdown_caches: list[Any] | None = None) -> None:
    """Write the cumulative statistics of ``caches`` into ``registry`` under GPGPU-Sim's names:
    ``<name>_total_cache_accesses/misses/pending_hits/reservation_fails``, per-unit arrays
    ``<per_unit>_access/miss/pending/resfail`` (``L1D_core``, ``L2_bank``), the
    ``{access_type: {status: n}}`` breakdown, the fail-reason breakdown and the port counters
    ``<port>_data_port_busy/fill_port_busy/port_cycles``.  Values are *set* (idempotent).
    ``breakdown_caches`` (default ``caches``) are the caches the two breakdowns sum."""
    acc = miss = pend = fail = 0
    per: list[tuple[int, int, int, int]] = []
    bd: dict[str, dict[str, int]] = {}
    fb: dict[str, dict[str, int]] = {}
    dp = fp = pc = 0
    for c in caches:
        t = c.stats.totals()
        per.append(t)
        acc += t[0]
        miss += t[1]
        pend += t[2]
        fail += t[3]
        dp += c.stats.data_port_busy
        fp += c.stats.fill_port_busy
        pc += c.stats.port_cycles
    for c in caches if breakdown_caches is None else breakdown_caches:
        for at, row in c.stats.counts.items():
            d = bd.setdefault(at, {})
            for st, n in row.items():
                d[st] = d.get(st, 0) + n
        for at, row in c.stats.fails.items():
            d = fb.setdefault(at, {})
            for st, n in row.items():
                d[st] = d.get(st, 0) + n
    registry.set(f"{name}_total_cache_accesses", acc)
    registry.set(f"{name}_total_cache_misses", miss)
    registry.set(f"{name}_total_cache_pending_hits", pend)
    registry.set(f"{name}_total_cache_reservation_fails", fail)
    if per_unit:
        for k, i in (("access", 0), ("miss", 1), ("pending", 2), ("resfail", 3)):
            registry.set(f"{per_unit}_{k}", [p[i] for p in per])
    if breakdown:
        registry.set(breakdown, bd)
    if fail_breakdown:
        registry.set(fail_breakdown, fb)
    if port:
        registry.set(f"{port}_data_port_busy", dp)
        registry.set(f"{port}_fill_port_busy", fp)
        registry.set(f"{port}_port_cycles", pc)
