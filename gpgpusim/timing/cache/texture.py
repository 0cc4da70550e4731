"""The texture cache (GPGPU-Sim ``tex_cache``; checklist C110, C116)."""

from __future__ import annotations

from typing import Any, Callable

from ..mem_fetch import MemFetch
from .data import Cache
from .line import sector_parts
from .stats import select_stats_status
from .status import HIT, HIT_RESERVED, MISS, RESERVATION_FAIL

class _RobEntry:
    """``tex_cache::rob_entry``: a miss waiting for its line."""

    __slots__ = ("fetch", "ready", "time", "parts_left")

    def __init__(self, fetch: MemFetch, parts_left: int) -> None:
        self.fetch = fetch
        self.ready = False
        self.time = 0
        self.parts_left = parts_left


class TexCache:
    """GPGPU-Sim's texture cache ``tex_cache`` (gpu-cache.h/.cc; checklist C110, C116).

    A prefetching cache with decoupled tag and data arrays.  The tag array is looked up (and,
    on a miss, the line allocated *and marked valid at once*) when an access arrives; the data
    array is only read when the access reaches the head of the *fragment FIFO*, which keeps
    every accepted access in order.  A miss also takes a *reorder buffer* (ROB) entry and
    sends its request (the whole line) through the *request FIFO* to the next level; the
    fragment of a miss leaves the FIFO only once its ROB entry holds the data.  Leaving
    fragments go to the *result FIFO*, where the LD/ST unit's writeback picks them up
    (:meth:`access_ready` / :meth:`next_access`).

    Sizes from the config string ``<geometry>,L:R:m:N:<set index>,<F|T>:<fragment fifo>:
    <request fifo>,<rob>:<result fifo>`` (GPGPU-Sim reuses the MSHR/miss-queue fields):
    QV100's ``N:4:128:256,L:R:m:N:L,T:512:8,128:2`` is 4 sets x 256 ways of 128-byte lines, a
    512-entry fragment FIFO, 8-entry request FIFO, 128-entry ROB and 2-entry result FIFO.

    Behaviour reproduced:

    * :meth:`access` refuses (RESERVATION_FAIL, not counted in the statistics) when the
      fragment FIFO, the request FIFO or the ROB is full; otherwise it returns ``MISS`` or,
      for a tag hit, ``HIT_RESERVED`` (never ``HIT``: the data still has to come through the
      fragment FIFO), and counts the access as ``cache_stats`` does with
      ``select_stats_status`` -- so every L1T hit is a *pending hit* in GPGPU-Sim's report;
    * :meth:`cycle` (``tex_cache::cycle``): the head of the request FIFO goes to ``send`` when
      it takes it, then the head fragment moves to the result FIFO if that has room and the
      fragment is a hit or its ROB entry is ready;
    * :meth:`fill`: the line's reply makes its ROB entry ready.  With ``T`` (SECTOR_TEX_FIFO)
      the reply arrives as sector replies (a sectored L2 splits the 128-byte request into its
      four sectors) and the entry is ready when the last one arrived; a reply that is the
      request itself (no split, ``F`` or perfect memory) completes it at once;
    * no data/fill port limits (GPGPU-Sim's ``tex_cache`` ports are stubs that are always
      free); the L1T is not invalidated between kernels (``ldst_unit::invalidate`` only
      invalidates the L1D).

    Sector geometry (``S:``) is treated as a line cache: GPGPU-Sim's texture requests carry
    no sector mask, and no shipped config has a sectored L1T.
    """

    def __init__(self, name: str, cfg: Any) -> None:
        import dataclasses

        if cfg.write_policy != "R" or cfg.alloc_policy != "m":
            raise ValueError(f"{name}: the texture cache must be read-only and allocate on miss (L:R:m:...)")
        if cfg.mshr_type not in ("F", "T") or cfg.fifo_entries is None:
            raise ValueError(f"{name}: the texture cache needs an F or T FIFO group and a result FIFO size "
                             "(e.g. T:512:8,128:2)")
        self.name = name
        self.tags = Cache(name, dataclasses.replace(cfg, sector=False) if cfg.sector else cfg, "L1T")
        self.line_bytes = cfg.line_bytes
        self.fragment_size = max(1, cfg.mshr_entries)
        self.request_size = max(1, cfg.mshr_max_merge)
        self.rob_size = max(1, cfg.miss_queue)
        self.result_size = max(1, cfg.fifo_entries)
        self.sector_replies = cfg.mshr_type == "T"
        # FIFOs as lists: bounded by the sizes above (an empty deque is ~760 bytes, a list 56)
        self.fragment: list[tuple[MemFetch, _RobEntry | None]] = []
        self.request: list[MemFetch] = []
        self.rob: list[_RobEntry] = []
        self.result: list[MemFetch] = []
        self.by_fetch: dict[int, _RobEntry] = {}     # id(request) -> its ROB entry
        self.stats = self.tags.stats

    # ------------------------------------------------------------------ access
    def access(self, fetch: MemFetch, now: int) -> str:
        """``tex_cache::access``: ``HIT_RESERVED``, ``MISS`` or ``RESERVATION_FAIL``."""
        if (len(self.fragment) >= self.fragment_size or len(self.request) >= self.request_size
                or len(self.rob) >= self.rob_size):
            return RESERVATION_FAIL
        tags = self.tags
        block = tags.block_addr(fetch.addr)
        status, idx, _ = tags._tag_access(block, now, fetch)
        if status == MISS:
            e = _RobEntry(fetch, sector_parts(self.line_bytes, fetch.sector_mask) if self.sector_replies else 1)
            self.rob.append(e)
            self.by_fetch[id(fetch)] = e
            fetch.size = self.line_bytes
            tags.fill_line(idx, now, fetch.sector_mask, fetch.byte_mask)
            self.request.append(fetch)
            fetch.set_status("IN_L1T_MISS_QUEUE", now)
            self.fragment.append((fetch, e))
            result = MISS
        else:
            assert status == HIT, status
            self.fragment.append((fetch, None))
            result = HIT_RESERVED
        self.stats.inc(fetch.access_type, select_stats_status(status, result))
        return result

    def cycle(self, send: Callable[[MemFetch], bool] | None = None) -> None:
        """``tex_cache::cycle``."""
        if self.request and send is not None and send(self.request[0]):
            self.request.pop(0)
        if self.fragment and len(self.result) < self.result_size:
            fetch, e = self.fragment[0]
            if e is None:
                self.fragment.pop(0)
                self.result.append(fetch)
            elif e.ready:
                assert self.rob[0] is e
                self.rob.pop(0)
                self.fragment.pop(0)
                self.result.append(fetch)

    def request_top(self) -> MemFetch | None:
        return self.request[0] if self.request else None

    def pop_request(self) -> MemFetch:
        return self.request.pop(0)

    def waiting_for_fill(self, fetch: MemFetch) -> bool:
        key = fetch.original if fetch.original is not None else fetch
        return id(key) in self.by_fetch

    def fill(self, fetch: MemFetch, now: int) -> None:
        """``tex_cache::fill``: a reply for a line this cache requested."""
        orig = fetch.original if fetch.original is not None else fetch
        e = self.by_fetch[id(orig)]
        if fetch.original is not None:
            e.parts_left -= 1
            if e.parts_left > 0:
                return
        del self.by_fetch[id(orig)]
        orig.set_status("IN_SHADER_L1T_ROB", now)
        e.ready = True
        e.time = now

    def access_ready(self) -> bool:
        return bool(self.result)

    def next_access(self) -> MemFetch:
        return self.result.pop(0)

    # ------------------------------------------------------------------ state
    def live(self) -> bool:
        """Accesses accepted and not yet handed to the writeback."""
        return bool(self.fragment or self.result)

    def idle(self) -> bool:
        """:meth:`cycle` would do nothing until a reply arrives."""
        if self.request or self.result:
            return False
        if not self.fragment:
            return True
        e = self.fragment[0][1]
        return e is not None and not e.ready

    def busy(self) -> bool:
        return bool(self.fragment or self.result or self.request)

    def dump_state(self) -> str:
        out = [f"{self.name} (texture cache) state:",
               f"fragment fifo entries  = {len(self.fragment)} / {self.fragment_size}",
               f"reorder buffer entries = {len(self.rob)} / {self.rob_size}",
               f"request fifo entries   = {len(self.request)} / {self.request_size}"]
        for r in self.rob:
            out.append(f"tex rob: {'ready  ' if r.ready else 'pending'} {r.fetch!r}")
        if self.fragment:
            f, e = self.fragment[0]
            out.append(f"fragment fifo (oldest) : {'hit ' if e is None else 'miss'}: {f!r}")
        return "\n".join(out)
