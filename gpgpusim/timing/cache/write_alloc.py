"""Write-allocate policies, registered by the cache configuration's fourth policy letter
(GPGPU-Sim ``write_allocate_policy_t``; checklist C128): ``N`` no write-allocate, ``W`` (naive)
write-allocate, ``F`` fetch-on-write, ``L`` lazy fetch-on-read (sector caches).

A policy handles a data cache's write miss (``data_cache::wr_miss_*``:
:meth:`WriteAlloc.write_miss`, called with the :class:`~.data.Cache`, whose tag-array, MSHR and
queue steps it drives) and declares (attributes set in ``__init__``):

* ``allocates``: the miss takes a line, so a write miss with no line to allocate is refused
  (``LINE_ALLOC_FAIL``) before the policy runs; without it the write is sent down regardless;
* ``writes_locally``: the line takes the written data here (fetch-on-write, lazy
  fetch-on-read), so the write is acknowledged here, not by the next level (the L1's store
  acknowledgement, the L2's reply);
* ``answers_on_fill``: the write waits for its allocate read, and is answered when that read
  returns (fetch-on-write, ``memory_sub_partition::cache_cycle``).

The cache picks its policy once, when it is built.  A new policy is a class here and a line in
``WRITE_ALLOC`` (and its letter in ``options.formats.WRITE_ALLOC``, which the configuration
parser reads).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .status import HIT_RESERVED, MISS, RESERVATION_FAIL, WRITE_ALLOCATE_SENT, WRITE_REQUEST_SENT

if TYPE_CHECKING:
    from ..mem_fetch import MemFetch
    from .data import Cache


def _miss_queue_refuses(cache: Cache, fetch: MemFetch) -> bool:
    """The miss queue has no room for the write: counted as a ``MISS_QUEUE_FULL`` failure."""
    if cache._miss_queue_full(0):
        cache.stats.inc_fail(fetch.access_type, "MISS_QUEUE_FULL")
        return True
    return False


def _mshr_refuses(cache: Cache, fetch: MemFetch, n: int) -> bool:
    """No room for ``n`` more miss-queue entries or no MSHR for the line: counted by reason."""
    reason = cache._mshr_fail_reason(fetch, n)
    if reason is not None:
        cache.stats.inc_fail(fetch.access_type, reason)
        return True
    return False


def _finish(cache: Cache, sent: bool, evicted: tuple[int, int, int, int] | None, fetch: MemFetch, now: int, events: list[str]) -> str:
    """The common tail of a write miss: when the line was taken (``sent``), a dirty victim of
    a write-back cache is written back and the status is ``MISS``; else ``RESERVATION_FAIL``."""
    if sent:
        if evicted is not None and not cache._write_through:
            cache._send_writeback(evicted, fetch, now, events)
        return MISS
    return RESERVATION_FAIL


class WriteAlloc:
    """Base: what the cache and its owners may assume about the policy."""

    def __init__(self) -> None:
        self.name = ""
        self.allocates = True
        self.writes_locally = False
        self.answers_on_fill = False

    def write_miss(self, cache: Cache, fetch: MemFetch, addr: int, idx: int, now: int, events: list[str]) -> str:
        """A write miss (victim or sector line ``idx``): the access status."""
        raise NotImplementedError


class NoWriteAllocate(WriteAlloc):
    """``N``: the write goes to the next level; nothing is allocated here."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "no_write_allocate"
        self.allocates = False

    def write_miss(self, cache: Cache, fetch: MemFetch, addr: int, idx: int, now: int, events: list[str]) -> str:
        if _miss_queue_refuses(cache, fetch):
            return RESERVATION_FAIL
        events.append(WRITE_REQUEST_SENT)
        cache.miss_queue.append(fetch)
        return MISS


class WriteAllocate(WriteAlloc):
    """``W``: the write goes to the next level and a read fetches the line (``wr_miss_wa_naive``)."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "write_allocate"

    def write_miss(self, cache: Cache, fetch: MemFetch, addr: int, idx: int, now: int, events: list[str]) -> str:
        if _mshr_refuses(cache, fetch, 2):
            return RESERVATION_FAIL
        events.append(WRITE_REQUEST_SENT)
        cache.miss_queue.append(fetch)
        n = cache._wr_alloc_fetch(fetch, now, False)
        do_miss, _, evicted = cache._send_read(addr, idx, n, now, False, True, events)
        events.append(WRITE_ALLOCATE_SENT)
        return _finish(cache, do_miss, evicted, fetch, now, events)


class FetchOnWrite(WriteAlloc):
    """``F``: a write of the whole atom fills it at once; a partial one fetches the line first
    and is merged when it arrives (``wr_miss_wa_fetch_on_write``)."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "fetch_on_write"
        self.writes_locally = True
        self.answers_on_fill = True

    def write_miss(self, cache: Cache, fetch: MemFetch, addr: int, idx: int, now: int, events: list[str]) -> str:
        if fetch.byte_mask.bit_count() == cache.atom_bytes:
            if _miss_queue_refuses(cache, fetch):
                return RESERVATION_FAIL
            st, idx, evicted = cache._tag_access(cache.block_addr(addr), now, fetch)
            cache._mark_modified(idx, fetch)
            return _finish(cache, st != RESERVATION_FAIL, evicted, fetch, now, events)
        if _mshr_refuses(cache, fetch, 1):
            return RESERVATION_FAIL
        maddr = cache.mshr_addr(fetch.addr)
        if maddr in cache.mshr and cache._read_after_write_pending(maddr):
            cache.stats.inc_fail(fetch.access_type, "MSHR_RW_PENDING")
            return RESERVATION_FAIL
        n = cache._wr_alloc_fetch(fetch, now, True)
        do_miss, idx, evicted = cache._send_read(addr, idx, n, now, False, True, events)
        line = cache.lines[idx]
        line.set_modified_on_fill(cache._sidx(fetch.sector_mask))
        events.append(WRITE_ALLOCATE_SENT)
        return _finish(cache, do_miss, evicted, fetch, now, events)


class LazyFetchOnRead(WriteAlloc):
    """``L``: the line takes the write without fetching; a sector not wholly written becomes
    readable only once a read fetches it (``wr_miss_wa_lazy_fetch_on_read``)."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "lazy_fetch_on_read"
        self.writes_locally = True

    def write_miss(self, cache: Cache, fetch: MemFetch, addr: int, idx: int, now: int, events: list[str]) -> str:
        if _miss_queue_refuses(cache, fetch):
            return RESERVATION_FAIL
        if cache._write_through:
            events.append(WRITE_REQUEST_SENT)
            cache.miss_queue.append(fetch)
        st, idx, evicted = cache._tag_access(cache.block_addr(addr), now, fetch)
        line = cache.lines[idx]
        sidx = cache._sidx(fetch.sector_mask)
        cache._mark_modified(idx, fetch)
        if st == HIT_RESERVED:
            line.set_modified_on_fill(sidx)
        full = fetch.byte_mask.bit_count() == cache.atom_bytes
        line.set_readable(sidx, full)
        if not full and st == HIT_RESERVED:
            line.set_readable_on_fill(sidx)
        cache._update_readable(line, fetch)
        return _finish(cache, st != RESERVATION_FAIL, evicted, fetch, now, events)


#: write-allocate letter -> policy
WRITE_ALLOC: dict[str, Callable[[], WriteAlloc]] = {
    "N": NoWriteAllocate, "W": WriteAllocate, "F": FetchOnWrite, "L": LazyFetchOnRead,
}


def make_write_alloc(letter: str) -> WriteAlloc:
    factory = WRITE_ALLOC.get(letter)
    if factory is None:
        raise ValueError(f"cache write-allocate policy {letter!r} is not supported (known: {', '.join(WRITE_ALLOC)})")
    return factory()
