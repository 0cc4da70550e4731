"""Write policies, registered by the cache configuration's second policy letter (GPGPU-Sim
``write_policy_t``; checklist C126, C127): ``R`` read-only, ``B`` write-back, ``T`` write-through,
``E`` write-evict, ``L`` local write-back / global write-evict.

A policy handles a data cache's write hit (``data_cache::wr_hit_*``: :meth:`WritePolicy.write_hit`,
called with the :class:`~.data.Cache`, whose tag-array and queue steps it drives) and declares
what the rest of the cache and its owners may assume (attributes set in ``__init__``):

* ``read_only``: the cache is a ``read_only_cache`` (every access takes the read path; no
  write hit or miss handling);
* ``write_through``: a write also goes to the next level at once, so a dirty victim is never
  written back (the miss paths test it);
* ``write_back``: plain write-back (the L2 answers a write it allocated locally itself,
  ``memory_sub_partition::cache_cycle``);
* :meth:`WritePolicy.forwards`: a write hit of this access type is sent to the next level, which
  acknowledges it (the L1's store acknowledgement, ``ldst_unit``).

The cache picks its policy once, when it is built.  A new policy is a class here and a line in
``WRITE_POLICY`` (and its letter in ``options.formats.WRITE_POLICY``, which the configuration
parser reads).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .line import INVALID, with_sector
from .status import HIT, RESERVATION_FAIL, WRITE_REQUEST_SENT

if TYPE_CHECKING:
    from ..mem_fetch import MemFetch
    from .data import Cache


class WritePolicy:
    """Base: a data cache's write-back behaviour with nothing forwarded."""

    def __init__(self) -> None:
        self.name = ""
        self.read_only = False
        self.write_through = False
        self.write_back = False

    def forwards(self, access_type: str) -> bool:
        return False

    def write_hit(self, cache: Cache, fetch: MemFetch, addr: int, idx: int, now: int, events: list[str]) -> str:
        """A write hit at line ``idx``: the access status."""
        raise NotImplementedError


def _hit_write_back(cache: Cache, fetch: MemFetch, addr: int, now: int) -> str:
    """``wr_hit_wb``: the line takes the write."""
    _, idx, _ = cache._tag_access(cache.block_addr(addr), now, fetch)
    line = cache.lines[idx]
    cache._mark_modified(idx, fetch)
    cache._update_readable(line, fetch)
    return HIT


def _hit_write_evict(cache: Cache, fetch: MemFetch, idx: int, events: list[str]) -> str:
    """``wr_hit_we``: the write goes down and the sector is invalidated."""
    if cache._miss_queue_full(0):
        cache.stats.inc_fail(fetch.access_type, "MISS_QUEUE_FULL")
        return RESERVATION_FAIL
    events.append(WRITE_REQUEST_SENT)
    cache.miss_queue.append(fetch)
    line = cache.lines[idx]
    line.status = with_sector(line.status, cache._sidx(fetch.sector_mask), INVALID)
    cache._sync(idx)
    return HIT


class ReadOnly(WritePolicy):
    """``R``: a read-only cache (L1I, L1C, texture)."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "read_only"
        self.read_only = True


class WriteBack(WritePolicy):
    """``B``: a write hit only marks the line modified; the victim is written back later."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "write_back"
        self.write_back = True

    def write_hit(self, cache: Cache, fetch: MemFetch, addr: int, idx: int, now: int, events: list[str]) -> str:
        return _hit_write_back(cache, fetch, addr, now)


class WriteThrough(WritePolicy):
    """``T``: a write hit updates the line and goes to the next level too."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "write_through"
        self.write_through = True

    def forwards(self, access_type: str) -> bool:
        return True

    def write_hit(self, cache: Cache, fetch: MemFetch, addr: int, idx: int, now: int, events: list[str]) -> str:
        if cache._miss_queue_full(0):
            cache.stats.inc_fail(fetch.access_type, "MISS_QUEUE_FULL")
            return RESERVATION_FAIL
        _, idx, _ = cache._tag_access(cache.block_addr(addr), now, fetch)
        line = cache.lines[idx]
        cache._mark_modified(idx, fetch)
        cache._update_readable(line, fetch)
        events.append(WRITE_REQUEST_SENT)
        cache.miss_queue.append(fetch)
        return HIT


class WriteEvict(WritePolicy):
    """``E``: a write hit goes to the next level and invalidates the sector here."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "write_evict"

    def forwards(self, access_type: str) -> bool:
        return True

    def write_hit(self, cache: Cache, fetch: MemFetch, addr: int, idx: int, now: int, events: list[str]) -> str:
        return _hit_write_evict(cache, fetch, idx, events)


class LocalWbGlobalWe(WritePolicy):
    """``L``: global writes as write-evict, the others (local memory) as write-back
    (``wr_hit_global_we_local_wb``)."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "local_wb_global_we"

    def forwards(self, access_type: str) -> bool:
        return access_type == "GLOBAL_ACC_W"

    def write_hit(self, cache: Cache, fetch: MemFetch, addr: int, idx: int, now: int, events: list[str]) -> str:
        if fetch.access_type == "GLOBAL_ACC_W":
            return _hit_write_evict(cache, fetch, idx, events)
        return _hit_write_back(cache, fetch, addr, now)


#: write-policy letter -> policy
WRITE_POLICY: dict[str, Callable[[], WritePolicy]] = {
    "R": ReadOnly, "B": WriteBack, "T": WriteThrough, "E": WriteEvict, "L": LocalWbGlobalWe,
}


def make_write_policy(letter: str) -> WritePolicy:
    factory = WRITE_POLICY.get(letter)
    if factory is None:
        raise ValueError(f"cache write policy {letter!r} is not supported (known: {', '.join(WRITE_POLICY)})")
    return factory()
