"""The tag array, MSHR table and data/read-only cache (L1D, L1I, L1C, L2).

GPGPU-Sim counterparts (gpu-cache.h/.cc): ``tag_array``, ``line_cache_block``,
``sector_cache_block``, ``mshr_table``, ``cache_stats``, ``baseline_cache``, ``read_only_cache``,
``data_cache``, ``l1_cache``, ``l2_cache``.  One :class:`Cache` class covers them: the write
policy ``R`` gives the read-only behaviour, the others the data-cache one.  Checklist: C111–C117,
C120, C121, C124, C126–C128, C130, C160, C163.

Behaviour reproduced from GPGPU-Sim 4.2:

* tags are the full block address (so any set-index hash works); ``set_index`` is linear
  (``L``), Fermi hash (``H``, also used when a 3.x string names none), XOR (``X``) or IPOLY
  (``P``); the L2 hashes the partition address (chip and sub-partition bits removed);
* ``probe``: a tag match returns the status of the *first* sector of the access mask
  (RESERVED -> HIT_RESERVED, VALID -> HIT, MODIFIED -> HIT when readable or a write, else
  SECTOR_MISS; INVALID sector of a valid line -> SECTOR_MISS); otherwise the victim is the
  last invalid way, else the LRU (oldest ``last access``) or FIFO (oldest ``alloc``) way among
  lines without a reserved sector (dirty lines only when the dirty share reaches
  ``wr_percent``, the L1's ``-gpgpu_l1_cache_write_ratio``); none -> RESERVATION_FAIL;
* MSHR keyed by the atom address (sector for ``S:`` caches, line otherwise): merge when the
  entry exists and has room (MSHR_HIT counted), else a new entry when the table and the miss
  queue have room; fills mark the entry ready and the merged requests drain one per
  :meth:`next_access`;
* write hit: ``B`` write-back, ``T`` write-through, ``E`` write-evict, ``L`` local write-back /
  global write-evict; write miss: ``N`` no allocate, ``W`` naive allocate, ``F`` fetch-on-write,
  ``L`` lazy fetch-on-read (sector caches); allocation on miss (``m``), on fill (``f``) or
  streaming (``s``, on fill);
* statistics as ``cache_stats``: per access type the status ``select_stats_status`` picks
  (HIT_RESERVED and SECTOR_MISS from the probe win over the access outcome), MSHR_HIT extra, and
  the reservation-fail reasons;
* data / fill port bandwidth (``bandwidth_management``) with ``data_port_width``.

The texture cache (``tex_cache``, checklist C110) is :class:`.texture.TexCache`; the line
states are in :mod:`.line`, the set-index functions in :mod:`.hashing`, the statistics in
:mod:`.stats`.  The policies the configuration string names by letter are plug-ins chosen once
per cache: replacement (:mod:`.replacement`), write hit (:mod:`.write_policy`), write miss
(:mod:`.write_alloc`).

The module is long because :class:`Cache` is one class: every access runs the tag array, the
MSHR table, the miss queue and the ports in one chain of method calls on one object, the model's
hottest memory path; the parts that stand alone (line states, set-index hashes, statistics,
policies, the texture cache) are the package's other modules.

Simplified: no graphics line-utility partitioning, no cache bypass for
``-gpgpu_gmem_skip_L1D`` (the core decides).
"""

from __future__ import annotations

from heapq import heappop, heappush, heapreplace
from typing import Any, Callable

from ..mem_fetch import SECTOR_BYTES, MemFetch, access_fetch, mypyc_attr
from .hashing import hash_set_index
from .line import (_C_CLEAN, _C_DIRTY, _C_INV, _C_RESV, _SECTOR_FULL, INVALID, MODIFIED, RESERVED, VALID, Line, _holds,
                   sector_parts, sector_status, with_sector)
from .replacement import make_replacement
from .stats import CacheStats
from .status import (HIT, HIT_RESERVED, MISS, MSHR_HIT, READ_REQUEST_SENT, RESERVATION_FAIL, SECTOR_MISS, WRITE_BACK_REQUEST_SENT)
from .write_alloc import WriteAlloc, make_write_alloc
from .write_policy import WritePolicy, make_write_policy

@mypyc_attr(acyclic=True)
class _Extra:
    """``extra_mf_fields``: what a missing request looked like before ``owner`` sent it down.

    GPGPU-Sim keeps these in a map per cache, keyed by the request; here they hang off the
    request itself (``MemFetch.cache_extra``), one per cache it is outstanding in (an L1's and
    then the L2's: ``below`` links them), which saves the map's entry and boxed key for each of
    the ~25,000 requests in flight of a memory-bound program on 80 SMs.  The request's data
    size and the sector replies still to come share one field, ``reads_size`` (``reads << 16 |
    size``, the count in the high bits so that it can go below zero as a count of its own
    would).  Like its request (``MemFetch``), it is freed by reference counting alone, so
    compiled it is an acyclic class: five fields and no collector header make a 64-byte object
    (a sixth field would make it 80)."""

    __slots__ = ("owner", "below", "addr", "cache_index", "reads_size")

    def __init__(self, owner: object, below: _Extra | None, addr: int, cache_index: int, data_size: int,
                 pending_read: int) -> None:
        self.owner = owner
        self.below = below
        self.addr = addr                # the request's address and size before the cache aligned it
        self.cache_index = cache_index
        self.reads_size = pending_read << 16 | data_size


def _l1_fetch(addr: int, access_type: str, sector_mask: int, byte_mask: int, size: int,
              is_write: bool, like: MemFetch, time: int) -> MemFetch:
    """A write-back or write-allocate read an L1 makes (``mem_fetch_allocator::alloc``): it
    carries ``like``'s core, cluster and warp and takes its decoded address.  The fetch
    ``MemFetch(addr, size, is_write, access_type, sector_mask=..., byte_mask=..., core_id=...,
    cluster_id=..., warp_id=..., timestamp=time)`` plus ``copy_tlx(like)`` builds, through the
    keyword-free :func:`~.mem_fetch.access_fetch`."""
    mf = access_fetch(addr, size, is_write, access_type, sector_mask, byte_mask, like.core_id,
                      like.cluster_id, like.warp_id, False, None, time)
    mf.copy_tlx(like)
    return mf


def _l2_fetch(addr: int, access_type: str, sector_mask: int, byte_mask: int, size: int,
              is_write: bool, like: MemFetch, time: int) -> MemFetch:
    """As :func:`_l1_fetch` for an L2 (or any cache below level 1): no core, cluster or warp."""
    mf = access_fetch(addr, size, is_write, access_type, sector_mask, byte_mask, -1, -1, -1,
                      False, None, time)
    mf.copy_tlx(like)
    return mf


def _merged(e: MemFetch | list[MemFetch]) -> int:
    """The requests an MSHR entry holds (``Cache.mshr``'s value: one request, or a list)."""
    return 1 if isinstance(e, MemFetch) else len(e)


def _match_status(line: Line, sidx: int, is_write: bool) -> str | None:
    """``tag_array::probe`` for the line whose tag matched, by the state of sector ``sidx``;
    None when that sector is invalid (the caller decides between a sector and a line miss)."""
    st = sector_status(line.status, sidx)
    if st == RESERVED:
        return HIT_RESERVED
    if st == VALID:
        return HIT
    if st == MODIFIED:
        return HIT if is_write or line.readable(sidx) else SECTOR_MISS
    return None


#: bound of a set-index memo (:meth:`Cache.set_index`): its entries are a hash of the line
#: address, so an unbounded memo grows with the footprint (~70 bytes an entry)
_SET_MEMO_MAX = 1 << 12

#: caches of at most this many ways choose a victim by scanning the set (``Cache._scan``);
#: more associative ones keep victim heaps (read at construction: tests may change it)
SCAN_MAX_ASSOC = 32


class Cache:
    """A GPGPU-Sim data or read-only cache.

    Contract: the owner calls :meth:`access` (status string), pops requests for the next level
    with :meth:`pop_miss` when it can send them (``miss_queue_empty`` / ``miss_queue_top``),
    calls :meth:`fill` when a reply for a fetch this cache sent arrives (``waiting_for_fill``),
    drains :meth:`next_access` while :meth:`access_ready`, and calls :meth:`cycle` once per
    clock of its domain (port bandwidth replenish; GPGPU-Sim's ``baseline_cache::cycle`` also
    moves one miss-queue entry to the memory port: use :meth:`cycle` with ``send``).

    ``wrbk_type`` / ``wr_alloc_type`` name the access types of the write-backs and write-allocate
    reads it creates (L1: ``L1_WRBK_ACC``/``L1_WR_ALLOC_R``; L2: ``L2_...``).  ``set_index_addr``
    maps an address before set hashing (the L2 passes the partition address).
    ``fetch_factory(addr, access_type, sector_mask, byte_mask, size, is_write, like)`` makes
    those new fetches (defaults to a plain :class:`MemFetch` copying ``like``'s ids and
    decoded address).
    """

    def __init__(self, name: str, cfg: Any, stats_prefix: str = "", *, level: int = 1,
                 wr_percent: int = 0, set_index_addr: Callable[[int], int] | None = None,
                 set_index_granule: int = 0, set_memo: dict[int, int] | None = None,
                 fetch_factory: Callable[..., MemFetch] | None = None, now_fn: Callable[[], int] | None = None,
                 l1_wrbk_type: str | None = None) -> None:
        self.name = name
        self.cfg = cfg
        self.stats_prefix = stats_prefix
        # (typed: the compiled model keeps them as machine integers and strings)
        self.nset: int = cfg.nsets
        self.assoc: int = cfg.assoc
        self.line_bytes: int = cfg.line_bytes
        self.line_log2: int = cfg.line_bytes.bit_length() - 1
        self.sectored = bool(cfg.sector)
        self.atom_bytes: int = SECTOR_BYTES if self.sectored else cfg.line_bytes
        self.replacement: str = cfg.replacement
        self.write_policy: str = cfg.write_policy
        # the policies, chosen once by their letters (replacement.py, write_policy.py,
        # write_alloc.py); the hot paths read the flags they declare
        self.wp: WritePolicy = make_write_policy(cfg.write_policy)
        self.wa: WriteAlloc = make_write_alloc(cfg.write_alloc)
        self._read_only = self.wp.read_only
        self._write_through = self.wp.write_through
        self._wa_allocates = self.wa.allocates
        alloc = cfg.alloc_policy
        self.streaming = alloc == "s"
        self.alloc_on_miss = alloc == "m"
        self.write_alloc: str = cfg.write_alloc
        self.set_function: str = cfg.set_index if cfg.set_index is not None else "H"
        self.mshr_type: str = cfg.mshr_type
        self.mshr_entries: int = cfg.mshr_entries
        self.mshr_max_merge: int = cfg.mshr_max_merge
        self.miss_queue_size: int = cfg.miss_queue
        self.port_width: int = cfg.data_port_width or cfg.line_bytes
        self.wr_percent = wr_percent
        self.set_index_addr = set_index_addr
        # the set index is a function of ``addr >> _set_shift``: of the line address, or, when
        # the L2 hashes the partition address, of the address above ``set_index_granule``
        # (AddressDecoder.partition_granule) if that is lower; the memo is keyed by it
        self._set_shift = self.line_log2 if set_index_addr is None else min(self.line_log2, set_index_granule)
        self.level = level
        self.wrbk_type = l1_wrbk_type or ("L1_WRBK_ACC" if level == 1 else "L2_WRBK_ACC")
        self.wr_alloc_type = "L1_WR_ALLOC_R" if level == 1 else "L2_WR_ALLOC_R"
        # a module function, not a bound method: a cache then forms no reference cycle with
        # itself, and one the model replaces (a new L1D carve-out) is freed at once
        self.fetch_factory = fetch_factory or (_l1_fetch if level == 1 else _l2_fetch)
        self.now_fn = now_fn
        self.n_dirty = 0
        self._nlines = self.nset * self.assoc
        self._lru = make_replacement(cfg.replacement).by_last_access
        self._heap_cap = 2 * self.assoc + 16    # victim-heap size that triggers a rebuild (_push)
        self._reset_tag_array()
        # ``addr >> _set_shift`` -> set (set_index); caches of one geometry and hashing (the
        # L2 banks) may share one (``set_memo``), cleared at _SET_MEMO_MAX entries
        self._set_memo: dict[int, int] = {} if set_memo is None else set_memo
        # a linear set index of the address itself (every L1): computed inline by access()
        self._linear_set = self.set_function == "L" and set_index_addr is None
        self._set_mask = self.nset - 1
        # MSHR address -> its request, or the list of its merged requests (oldest first): most
        # entries never merge, and a one-element list would cost 80 bytes each
        self.mshr: dict[int, MemFetch | list[MemFetch]] = {}
        self.mshr_atomic: set[int] = set()
        # lists, not deques: both are short (the MSHR's and the miss queue's sizes), and an empty
        # deque is ~760 bytes against a list's 56 (a GPU of 80 SMs has ~300 caches)
        self.ready: list[int] = []
        self.miss_queue: list[MemFetch] = []
        self.stats = CacheStats()
        self.data_port_occupied = 0
        self.fill_port_occupied = 0
        self.last_writeback_size = 0
        # A refused access is retried every cycle (the head of an LD/ST latency queue or of
        # an L2 bank's queue) while its MSHR or miss queue stays full.  Its probe answer is
        # kept and reused while its set is unchanged: ``_sver[set]`` counts every change of a
        # set's lines (each :meth:`_sync`, each accepted access to the set, invalidation), and
        # the answer is reused only for the same fetch object, set version and dirty-victim
        # eligibility (``wr_percent``).  ``_tag_ver`` counts every change of the whole array:
        # a refusal is remembered only when the refused access itself changed nothing.  The
        # entry (fetch -> set version, dirty eligibility, probe status, index, set, refusal
        # kind, MSHR address) also says how the refusal came about, so that a retry whose
        # probe answer still holds re-checks only the miss queue and MSHR conditions (see
        # :meth:`_refusal_kind`).  The tag arrays a :class:`TexCache` drives never see
        # :meth:`access`, so they never hold an entry.
        self._tag_ver = 0
        self._sver = [0] * self.nset
        self._retry: dict[MemFetch, tuple[int, bool, str, int, int, int, int]] = {}
        # GPGPU-Sim's access probes the tag array, and its tag_array::access probes again with
        # the same fetch before anything changed: :meth:`access` leaves its fresh probe answer
        # here (fetch, status, index) and :meth:`_tag_access` takes it for that fetch once
        self._probed: tuple[MemFetch, str, int] | None = None

    # ------------------------------------------------------------------ geometry
    def block_addr(self, addr: int) -> int:
        return addr & ~(self.line_bytes - 1)

    def mshr_addr(self, addr: int) -> int:
        return addr & ~(self.atom_bytes - 1)

    def set_index(self, addr: int) -> int:
        if self.set_function == "L" and self.set_index_addr is None:
            return (addr >> self.line_log2) & (self.nset - 1)
        # hashing (and the L2's partition-address mapping) is pure: memoise it (bounded)
        memo = self._set_memo
        key = addr >> self._set_shift
        s = memo.get(key)
        if s is None:
            a = addr if self.set_index_addr is None else self.set_index_addr(addr)
            s = hash_set_index(a, self.nset, self.line_log2, self.set_function)
            if len(memo) >= _SET_MEMO_MAX:
                memo.clear()
            memo[key] = s
        return s

    def _sidx(self, sector_mask: int) -> int:
        """``get_sector_index``: the first sector of the mask (always 0 for a line cache)."""
        if not self.sectored or not sector_mask:
            return 0
        return (sector_mask & -sector_mask).bit_length() - 1

    # ------------------------------------------------------------------ tag array
    # The tag array answers exactly what GPGPU-Sim's linear way scan answers, with per-set
    # indices instead of the scan:
    #
    # * ``_tab``: the index, (block address, set) -> the lowest way of the set holding that
    #   address in a line that is not fully invalid (the scan returns at the first such tag
    #   match; invalid tag matches fall through and are ordinary invalid victims).  Two such
    #   lines with one tag can only arise from fills into invalidated lines; ``_dup`` then makes
    #   removals rescan the set.  Each line records the tag it is held under (``Line.regtag``).
    #   The index is one open-addressing hash table of the whole array, a list of the lines
    #   themselves (linear probing from :meth:`_home`, backward-shift deletion, at most half
    #   full): 16 bytes a line, where a dict per set cost ~90 (its entry and the boxed key).
    # * lines are created on first use: a way never handed out (``lines[i] is None``) is an
    #   invalid line.
    # * ``_invm[set]``: bit ``w`` set while way ``w`` of the set is invalid (never handed out,
    #   or of class ``_C_INV``): the scan's victim among invalid ways is the *last* one, the
    #   mask's highest bit (one int a set, where a heap of ways held an int for each);
    #   ``_clean[set]`` / ``_dirty[set]``: min-heaps of (LRU/FIFO stamp, index) of lines with no
    #   reserved sector, without / with a modified sector, each pair kept as the one int
    #   ``stamp << _ib | index`` (``_ib`` bits hold any index), which orders exactly as the
    #   pair does and compares as a machine word instead of a tuple.  Entries are validated lazily
    #   against ``_cls`` (the class as last synchronised) and the line's stamp: an entry's
    #   stamp is a lower bound (LRU stamps only grow on a hit; a smaller one is pushed), so an
    #   outdated top is re-keyed, and the valid top is the first oldest way, as in the scan.
    #   Only caches of more than ``SCAN_MAX_ASSOC`` ways keep them (``_scan`` False): in a
    #   less associative set, scanning the ways' classes and stamps on a miss costs about as
    #   much as the heaps' upkeep, which holds ~40 bytes an entry (a boxed key and its slot),
    #   ~1.5 entries a line.
    # Every change of a line's sector status or tag goes through :meth:`_sync`.

    def _reset_tag_array(self) -> None:
        n = self.nset * self.assoc
        self.lines: list[Any] = [None] * n
        self._cls = bytearray(n)          # _C_INV for pristine / invalid
        self._tab: list[Line | None] = [None] * 16
        self._tmask = 15
        self._tshift = 28               # 32 - log2(len(_tab)): _home takes a product's top bits
        self._tn = 0                    # lines in _tab
        self._invm: list[int] = [(1 << self.assoc) - 1] * self.nset
        self._scan: bool = self.assoc <= SCAN_MAX_ASSOC
        nh = 0 if self._scan else self.nset
        self._clean: list[list[int]] = [[] for _ in range(nh)]
        self._dirty: list[list[int]] = [[] for _ in range(nh)]
        self._ib: int = n.bit_length()      # victim-heap keys: stamp << _ib | index
        self._dup = False
        # GPGPU-Sim indexes line -1 (the last line) after a failed allocation: keep it real
        self.lines[n - 1] = Line(n - 1)

    def _line(self, idx: int) -> Line:
        line = self.lines[idx]
        if line is None:
            line = self.lines[idx] = Line(idx)
        return line

    def _home(self, tag: int) -> int:
        """The slot of ``_tab`` where the probe for ``tag`` starts: Fibonacci hashing of the
        block number (folded to 30 bits, so that the product stays a machine integer)."""
        t = tag >> self.line_log2
        t = (t ^ (t >> 30)) & 0x3FFFFFFF
        return ((t * 0x9E3779B1) & 0xFFFFFFFF) >> self._tshift

    def _slot(self, tag: int, base: int) -> int:
        """The slot of ``_tab`` holding the line registered under ``tag`` in the set whose first
        line is ``base``, else the empty slot where it would go."""
        tab, mask = self._tab, self._tmask
        end = base + self.assoc
        h = self._home(tag)
        while True:
            li = tab[h]
            if li is None or (li.regtag == tag and base <= li.idx < end):
                return h
            h = (h + 1) & mask

    def _register(self, line: Line, base: int) -> None:
        """Enter ``line`` into the index under ``line.regtag`` unless a lower way of its set
        holds that tag."""
        tab = self._tab
        h = self._slot(line.regtag, base)
        cur = tab[h]
        if cur is None:
            tab[h] = line
            self._tn += 1
            if 2 * self._tn > len(tab):
                self._resize(2 * len(tab))
        else:
            self._dup = True
            if line.idx < cur.idx:
                tab[h] = line

    def _resize(self, size: int) -> None:
        """Rebuild ``_tab`` with ``size`` (a power of two) slots."""
        old = self._tab
        tab: list[Line | None] = [None] * size
        self._tab = tab
        self._tmask = mask = size - 1
        self._tshift = 32 - (size.bit_length() - 1)
        for li in old:
            if li is not None:
                h = self._home(li.regtag)
                while tab[h] is not None:
                    h = (h + 1) & mask
                tab[h] = li

    def _delete_slot(self, i: int) -> None:
        """Empty slot ``i`` of ``_tab``, moving back the lines after it whose probe passes it."""
        tab, mask = self._tab, self._tmask
        j = i
        while True:
            j = (j + 1) & mask
            li = tab[j]
            if li is None:
                break
            k = self._home(li.regtag)
            # li may move to i unless its home lies cyclically in (i, j]
            if (k <= i or k > j) if i < j else (k <= i and k > j):
                tab[i] = li
                i = j
        tab[i] = None
        self._tn -= 1

    def _clear_index(self) -> None:
        tab: list[Line | None] = [None] * len(self._tab)
        self._tab = tab
        self._tn = 0

    def _sync(self, idx: int) -> None:
        """Bring the per-set indices up to date with line ``idx``'s status and tag."""
        self._tag_ver += 1
        s = idx // self.assoc
        self._sver[s] = self._sver[s] + 1
        line: Line = self.lines[idx]
        st = line.status
        if _holds(st, RESERVED):
            c = _C_RESV
        elif _holds(st, MODIFIED):
            c = _C_DIRTY
        elif _holds(st, VALID):
            c = _C_CLEAN
        else:
            c = _C_INV
        want = -1 if c == _C_INV else line.tag
        reg = line.regtag
        if reg != want:
            base = s * self.assoc
            if reg >= 0:
                self._unregister(line, base)
            line.regtag = want
            if want >= 0:
                self._register(line, base)
        cls = self._cls
        old = cls[idx]
        if c != old:
            cls[idx] = c
            if old == _C_INV:
                self._invm[s] &= ~(1 << (idx - s * self.assoc))
            if c == _C_INV:
                self._invm[s] |= 1 << (idx - s * self.assoc)
            elif c >= _C_CLEAN and not self._scan:
                self._push(self._clean[s] if c == _C_CLEAN else self._dirty[s], (line.stamp << self._ib) | idx, c)

    def _push(self, heap: list[int], key: int, c: int) -> None:
        """Push victim-heap ``key`` (``stamp << _ib | index``) onto ``heap``, the heap of
        class ``c`` (``_C_CLEAN`` / ``_C_DIRTY``) of the line's set."""
        heappush(heap, key)
        if len(heap) > self._heap_cap:        # drop stale / duplicate entries
            ib = self._ib
            s = (key & ((1 << ib) - 1)) // self.assoc
            base = s * self.assoc
            lines, cls = self.lines, self._cls
            heap[:] = sorted((lines[i].stamp << ib) | i for i in range(base, base + self.assoc) if cls[i] == c)

    def _unregister(self, line: Line, base: int) -> None:
        """Take ``line`` (of the set whose first line is ``base``) out of the index under
        ``line.regtag``; another line of the set with that tag takes its place."""
        tag = line.regtag
        h = self._slot(tag, base)
        if self._tab[h] is not line:
            return
        self._delete_slot(h)
        if self._dup:
            lines = self.lines
            for i in range(base, base + self.assoc):
                li = lines[i]
                if li is not None and li is not line and li.regtag == tag:
                    self._register(li, base)
                    break

    def _top(self, heap: list[int], c: int) -> int:
        """The valid minimum key (``stamp << _ib | index``) of a victim heap, or -1."""
        cls, lines = self._cls, self.lines
        ib = self._ib
        mask = (1 << ib) - 1
        while heap:
            key = heap[0]
            idx = key & mask
            if cls[idx] != c:
                heappop(heap)
                continue
            line: Line = lines[idx]
            ts = line.stamp
            k = key >> ib
            if k == ts:
                return key
            if k < ts:
                heapreplace(heap, (ts << ib) | idx)
            else:               # a later, smaller entry of the same line exists
                heappop(heap)
        return -1

    def probe(self, addr: int, sector_mask: int, is_write: bool) -> tuple[str, int]:
        """``tag_array::probe`` -> (status, line index)."""
        return self._probe_set(self.set_index(addr), addr, sector_mask, is_write)

    def _probe_set(self, set_idx: int, addr: int, sector_mask: int, is_write: bool) -> tuple[str, int]:
        """:meth:`probe` of ``addr`` in its set ``set_idx``."""
        tag = addr & ~(self.line_bytes - 1)
        base = set_idx * self.assoc
        line = self._tab[self._slot(tag, base)]
        if line is not None:
            idx = line.idx
            sidx = (sector_mask & -sector_mask).bit_length() - 1 if (self.sectored and sector_mask) else 0
            # _match_status, inline
            st = (line.status >> (sidx << 1)) & 3      # sector_status, inline
            if st == RESERVED:
                return HIT_RESERVED, idx
            if st == VALID:
                return HIT, idx
            if st == MODIFIED:
                return (HIT if is_write or line.flags >> sidx & 1 else SECTOR_MISS), idx   # readable(sidx)
            if self.sectored:
                return SECTOR_MISS, idx
            return self._probe_scan(addr, sector_mask, is_write)   # not reachable in practice
        # miss: the last invalid way, else the oldest way without a reserved sector
        m = self._invm[set_idx]
        if m:
            victim = base + m.bit_length() - 1
            if self.lines[victim] is None:
                self.lines[victim] = Line(victim)
            return MISS, victim
        if self._scan:
            return self._scan_victim(base)
        best = self._top(self._clean[set_idx], _C_CLEAN)
        if (100.0 * self.n_dirty / self._nlines) >= self.wr_percent:
            d = self._top(self._dirty[set_idx], _C_DIRTY)
            if d >= 0 and (best < 0 or d < best):
                best = d
        if best < 0:
            return RESERVATION_FAIL, -1
        return MISS, best & ((1 << self._ib) - 1)

    def _scan_victim(self, base: int) -> tuple[str, int]:
        """The miss answer of the set whose first line is ``base`` when no way is invalid: the
        first way of the oldest stamp among those without a reserved sector (with a modified
        one only while the dirty share is at least ``wr_percent``), as GPGPU-Sim's scan."""
        cls, lines = self._cls, self.lines
        dirty_ok = (100.0 * self.n_dirty / self._nlines) >= self.wr_percent
        best = -1
        best_ts = 0
        for i in range(base, base + self.assoc):
            c = cls[i]
            if c == _C_CLEAN or (c == _C_DIRTY and dirty_ok):
                line: Line = lines[i]
                ts = line.stamp
                if best < 0 or ts < best_ts:
                    best = i
                    best_ts = ts
        if best < 0:
            return RESERVATION_FAIL, -1
        return MISS, best

    def _probe_scan(self, addr: int, sector_mask: int, is_write: bool) -> tuple[str, int]:
        """GPGPU-Sim's linear scan (reference; used only for a line cache whose matching line
        has an invalid sector 0 but is not invalid)."""
        set_idx = self.set_index(addr)
        tag = self.block_addr(addr)
        sidx = self._sidx(sector_mask)
        base = set_idx * self.assoc
        invalid_line = -1
        valid_line = -1
        valid_ts = 1 << 64
        all_reserved = True
        for idx in range(base, base + self.assoc):
            line = self._line(idx)
            if line.tag == tag:
                status = _match_status(line, sidx, is_write)
                if status is not None:
                    return status, idx
                if self.sectored and not line.is_invalid():
                    return SECTOR_MISS, idx
            if not line.is_reserved():
                if not line.is_modified() or (100.0 * self.n_dirty / (self.nset * self.assoc)) >= self.wr_percent:
                    all_reserved = False
                    if line.is_invalid():
                        invalid_line = idx
                    else:
                        ts = line.stamp
                        if ts < valid_ts:
                            valid_ts = ts
                            valid_line = idx
        self._rebuild()
        if all_reserved:
            return RESERVATION_FAIL, -1
        return MISS, (invalid_line if invalid_line >= 0 else valid_line)

    def _rebuild(self) -> None:
        """Recompute every per-set index from the lines (after bulk status changes)."""
        lines = self.lines
        self._clear_index()
        self._invm = [(1 << self.assoc) - 1] * self.nset
        for h in self._clean:
            h.clear()
        for h in self._dirty:
            h.clear()
        self._dup = False
        for i, line in enumerate(lines):
            self._cls[i] = _C_INV
            if line is not None:
                line.regtag = -1
                self._sync(i)

    def _tag_access(self, addr: int, time: int, fetch: MemFetch) -> tuple[str, int, tuple[int, int, int, int] | None]:
        """``tag_array::access`` -> (status, index, evicted (block, size, byte mask, sector mask) or None)."""
        probed = self._probed
        if probed is not None and probed[0] is fetch:
            self._probed = None
            status, idx = probed[1], probed[2]
        else:
            status, idx = self.probe(addr, fetch.sector_mask, fetch.is_write)
        evicted = None
        m = fetch.sector_mask
        sidx = (m & -m).bit_length() - 1 if (m and self.sectored) else 0    # _sidx
        if status is HIT or status is HIT_RESERVED:
            line: Line = self.lines[idx]
            if self._lru:
                old = line.stamp
                line.stamp = time
                if time < old and not self._scan:
                    c = self._cls[idx]
                    if c >= _C_CLEAN:
                        s = idx // self.assoc
                        self._push(self._clean[s] if c == _C_CLEAN else self._dirty[s], (time << self._ib) | idx, c)
        elif status == MISS:
            if self.alloc_on_miss:
                line = self.lines[idx]
                if line.is_modified():
                    evicted = (line.tag, line.modified_size(self.sectored, self.line_bytes),
                               line.dirty_byte_mask, line.dirty_sector_mask())
                    self.n_dirty -= 1
                block = addr & ~(self.line_bytes - 1)
                line.allocate(block, time, sidx)
                self._sync(idx)
        elif status == SECTOR_MISS:
            if self.alloc_on_miss:
                line = self.lines[idx]
                before = line.is_modified()
                line.allocate_sector(time, sidx, self._lru)
                if before and not line.is_modified():
                    self.n_dirty -= 1
                self._sync(idx)
        return status, idx, evicted

    def _tag_fill_addr(self, addr: int, time: int, sector_mask: int, byte_mask: int, is_write: bool) -> None:
        """``tag_array::fill(addr, ...)``: allocate-on-fill and forced (memcpy) fills."""
        status, idx = self._probe_set(self.set_index(addr), addr, sector_mask, is_write)
        if status == RESERVATION_FAIL:
            return
        sidx = (sector_mask & -sector_mask).bit_length() - 1 if (self.sectored and sector_mask) else 0   # _sidx
        line: Line = self.lines[idx]
        if status == MISS:
            if line.is_modified():
                self.n_dirty -= 1       # allocate() leaves no sector modified
            block = addr & ~(self.line_bytes - 1)
            line.allocate(block, time, sidx)
        elif status == SECTOR_MISS:
            line.allocate_sector(time, sidx, self._lru)
        before = line.is_modified()
        line.fill(sidx, byte_mask)
        if not before and line.is_modified():
            self.n_dirty += 1
        self._sync(idx)

    def _mark_modified(self, idx: int, fetch: MemFetch) -> None:
        line: Line = self.lines[idx]
        if not line.is_modified():
            self.n_dirty += 1
        m = fetch.sector_mask
        line.status = with_sector(line.status, (m & -m).bit_length() - 1 if (m and self.sectored) else 0, MODIFIED)  # _sidx
        line.dirty_byte_mask |= fetch.byte_mask
        self._sync(idx)

    def _update_readable(self, line: Line, fetch: MemFetch) -> None:
        """``data_cache::update_m_readable``: a sector of the access whose bytes are all dirty
        becomes readable (sector ``i`` is slot ``i`` of a sector cache, slot 0 of a line
        cache: ``_sidx(1 << i)``)."""
        m = fetch.sector_mask & 0xF
        dirty = line.dirty_byte_mask
        sectored = self.sectored
        while m:
            low = m & -m
            m ^= low
            i = low.bit_length() - 1
            full = _SECTOR_FULL << (i * SECTOR_BYTES)
            if dirty & full == full:
                line.set_readable(i if sectored else 0, True)

    # ------------------------------------------------------------------ MSHR / miss queue
    def _mshr_full(self, maddr: int) -> bool:
        e = self.mshr.get(maddr)
        if e is not None:
            return _merged(e) >= self.mshr_max_merge
        return len(self.mshr) >= self.mshr_entries

    def _miss_queue_full(self, extra: int) -> bool:
        return len(self.miss_queue) + extra >= self.miss_queue_size

    def _send_read(self, addr: int, idx: int, fetch: MemFetch, time: int, read_only: bool, wa: bool,
                   events: list[str]) -> tuple[bool, int, tuple[int, int, int, int] | None]:
        """``baseline_cache::send_read_request`` -> (do_miss, index, evicted)."""
        maddr = fetch.addr & ~(self.atom_bytes - 1)
        mshr = self.mshr
        e = mshr.get(maddr)
        if e is not None:               # an MSHR hit: merge when the entry has room
            if _merged(e) >= self.mshr_max_merge:
                self.stats.inc_fail(fetch.access_type, "MSHR_MERGE_ENRTY_FAIL")
                return False, idx, None
            _, idx, evicted = self._tag_access(addr & ~(self.line_bytes - 1), time, fetch)
            if isinstance(e, MemFetch):
                mshr[maddr] = [e, fetch]
            else:
                e.append(fetch)
            if fetch.is_atomic:
                self.mshr_atomic.add(maddr)
            self.stats.inc(fetch.access_type, MSHR_HIT)
            return True, idx, evicted
        if len(mshr) < self.mshr_entries and len(self.miss_queue) < self.miss_queue_size:
            _, idx, evicted = self._tag_access(addr & ~(self.line_bytes - 1), time, fetch)
            mshr[maddr] = fetch
            if fetch.is_atomic:
                self.mshr_atomic.add(maddr)
            # the sector replies a sectored L2 will send back for this request (GPGPU-Sim
            # expects line / 32 of them, as its L2 splits every 128-byte request into four;
            # ours splits by the sector mask: memory.partition)
            pending = sector_parts(self.atom_bytes, fetch.sector_mask) if self.mshr_type == "S" else 0
            fetch.cache_extra = _Extra(self, fetch.cache_extra, fetch.addr, idx, fetch.size, pending)
            fetch.size = self.atom_bytes
            fetch.addr = maddr
            self.miss_queue.append(fetch)
            if not wa:
                events.append(READ_REQUEST_SENT)
            return True, idx, evicted
        self.stats.inc_fail(fetch.access_type, "MSHR_ENRTY_FAIL")
        return False, idx, None

    def _send_writeback(self, evicted: tuple[int, int, int, int], fetch: MemFetch, time: int,
                        events: list[str]) -> None:
        """Write back a dirty victim; GPGPU-Sim sends it to the chip/sub-partition of the
        request that evicted it."""
        block, size, bmask, smask = evicted
        wb = self.fetch_factory(block, self.wrbk_type, smask, bmask, size, True, fetch, self._now(time))
        wb.chip, wb.sub_partition = fetch.chip, fetch.sub_partition
        events.append(WRITE_BACK_REQUEST_SENT)
        self.last_writeback_size = size
        self.miss_queue.append(wb)

    def _now(self, time: int) -> int:
        return self.now_fn() if self.now_fn is not None else time

    # ------------------------------------------------------------------ access
    def access(self, fetch: MemFetch, now: int, events: list[str] | None = None) -> str:
        """Access the cache with ``fetch`` at cache time ``now``; returns the access status
        (``HIT``, ``HIT_RESERVED``, ``MISS``, ``SECTOR_MISS`` is only a *statistics* status:
        an accepted sector miss returns ``MISS`` as in GPGPU-Sim, ``RESERVATION_FAIL``)."""
        if events is None:
            events = []
        addr = fetch.addr
        retry = self._retry.get(fetch) if self._retry else None
        if (retry is not None and retry[0] == self._sver[retry[4]]
                and retry[1] == (100.0 * self.n_dirty / self._nlines >= self.wr_percent)):
            # the same refused fetch again on an unchanged set: the same probe answer, and
            # unless the miss queue or the MSHRs changed in its favour, the same refusal: the
            # reason it gets now, or None when the full path must decide (it may be taken).
            # A read miss repeats rd_miss / read_only_cache::access's miss-queue test and
            # send_read_request's MSHR test, in their order
            probe, idx, set_idx, kind = retry[2], retry[3], retry[4], retry[5]
            if kind >= self._K_MISS0:
                mq = len(self.miss_queue)
                if mq + (kind == self._K_MISS1) >= self.miss_queue_size:
                    reason: str | None = "MISS_QUEUE_FULL"
                else:
                    e = self.mshr.get(retry[6])
                    if e is not None:
                        reason = None if _merged(e) < self.mshr_max_merge else "MSHR_MERGE_ENRTY_FAIL"
                    elif len(self.mshr) < self.mshr_entries and mq < self.miss_queue_size:
                        reason = None
                    else:
                        reason = "MSHR_ENRTY_FAIL"
            else:
                reason = "LINE_ALLOC_FAIL" if kind == self._K_LINE else None
            if reason is not None:
                # what the full path counts for it: cache_stats::inc_stats with
                # select_stats_status(probe, RESERVATION_FAIL) = RESERVATION_FAIL, and
                # inc_fail_stats with the reason
                at = fetch.access_type
                row = self.stats.counts[at]     # the first refusal created the row and entry
                row[RESERVATION_FAIL] = row[RESERVATION_FAIL] + 1
                frow = self.stats.fails[at]
                frow[reason] = frow.get(reason, 0) + 1
                return RESERVATION_FAIL
            self._probed = (fetch, probe, idx)
        else:
            block = addr & ~(self.line_bytes - 1)
            set_idx = (block >> self.line_log2) & self._set_mask if self._linear_set else self.set_index(block)
            probe, idx = self._probe_set(set_idx, block, fetch.sector_mask, fetch.is_write)
            self._probed = (fetch, probe, idx)
        ver = self._tag_ver
        if self._read_only:
            status = self._access_read_only(fetch, addr, probe, idx, now, events)
        else:
            # data_cache::process_tag_probe
            if fetch.is_write:
                if probe == HIT:
                    status = self.wp.write_hit(self, fetch, addr, idx, now, events)
                elif probe != RESERVATION_FAIL or not self._wa_allocates:
                    status = self.wa.write_miss(self, fetch, addr, idx, now, events)
                else:
                    self.stats.inc_fail(fetch.access_type, "LINE_ALLOC_FAIL")
                    status = RESERVATION_FAIL
            elif probe == HIT:
                status = self._rd_hit(fetch, addr, idx, now)
            elif probe != RESERVATION_FAIL:
                status = self._rd_miss(fetch, addr, idx, now, events)
            else:
                self.stats.inc_fail(fetch.access_type, "LINE_ALLOC_FAIL")
                status = RESERVATION_FAIL
            # bandwidth_management::use_data_port: a hit reads the data, a miss that evicts
            # a dirty line reads the victim out
            if status == HIT:
                self.data_port_occupied += -(-fetch.size // self.port_width)
            elif (status == MISS or status == HIT_RESERVED) and events and WRITE_BACK_REQUEST_SENT in events:
                self.data_port_occupied += self.last_writeback_size // self.port_width
        self._probed = None
        # select_stats_status and CacheStats.inc, inline
        at = fetch.access_type
        if (probe == HIT_RESERVED and status != RESERVATION_FAIL) or (probe == SECTOR_MISS and status == MISS):
            key = probe
        else:
            key = status
        counts = self.stats.counts.get(at)
        if counts is None:
            counts = self.stats.counts[at] = {}
        counts[key] = counts.get(key, 0) + 1
        if status == RESERVATION_FAIL:
            if self._tag_ver == ver:
                if len(self._retry) >= 64:
                    self._retry.clear()
                self._retry[fetch] = (self._sver[set_idx],
                                      100.0 * self.n_dirty / self._nlines >= self.wr_percent,
                                      probe, idx, set_idx, self._refusal_kind(fetch, probe),
                                      addr & ~(self.atom_bytes - 1))
        else:
            self._tag_ver += 1
            self._sver[set_idx] = self._sver[set_idx] + 1
            if retry is not None:
                del self._retry[fetch]
        return status

    # refusal kinds (see _refusal_kind)
    _K_OTHER = 0
    _K_LINE = 1
    _K_MISS0 = 2
    _K_MISS1 = 3

    def _refusal_kind(self, fetch: MemFetch, probe: str) -> int:
        """How a refused access with this probe answer is decided when :meth:`access` sees it
        again: ``_K_LINE`` -- no line to allocate (LINE_ALLOC_FAIL whatever the queues hold: any
        access of a read-only cache, a read or an allocating write of a data cache);
        ``_K_MISS0`` / ``_K_MISS1`` -- a read miss of a read-only / data cache
        (``read_only_cache::access`` / ``data_cache::rd_miss_base``): the miss queue with 0 / 1
        more entry, then ``send_read_request``'s MSHR test; ``_K_OTHER`` -- anything else (hits,
        data-cache writes), which always takes the full path."""
        if probe == HIT:
            return self._K_OTHER
        if self._read_only:
            return self._K_LINE if probe == RESERVATION_FAIL else self._K_MISS0
        if fetch.is_write:
            return self._K_LINE if probe == RESERVATION_FAIL and self._wa_allocates else self._K_OTHER
        return self._K_LINE if probe == RESERVATION_FAIL else self._K_MISS1

    def _access_read_only(self, fetch: MemFetch, addr: int, probe: str, idx: int, now: int,
                          events: list[str]) -> str:
        if probe == HIT:
            self._tag_access(self.block_addr(addr), now, fetch)
            return HIT
        if probe != RESERVATION_FAIL:
            if not self._miss_queue_full(0):
                do_miss, _, _ = self._send_read(addr, idx, fetch, now, True, False, events)
                return MISS if do_miss else RESERVATION_FAIL
            self.stats.inc_fail(fetch.access_type, "MISS_QUEUE_FULL")
            return RESERVATION_FAIL
        self.stats.inc_fail(fetch.access_type, "LINE_ALLOC_FAIL")
        return RESERVATION_FAIL

    def _rd_hit(self, fetch: MemFetch, addr: int, idx: int, now: int) -> str:
        _, idx, _ = self._tag_access(self.block_addr(addr), now, fetch)
        if fetch.is_atomic:
            self._mark_modified(idx, fetch)
        return HIT

    def _rd_miss(self, fetch: MemFetch, addr: int, idx: int, now: int, events: list[str]) -> str:
        if len(self.miss_queue) + 1 >= self.miss_queue_size:      # _miss_queue_full(1)
            self.stats.inc_fail(fetch.access_type, "MISS_QUEUE_FULL")
            return RESERVATION_FAIL
        do_miss, _, evicted = self._send_read(addr, idx, fetch, now, False, False, events)
        if do_miss:
            if evicted is not None and not self._write_through:
                self._send_writeback(evicted, fetch, now, events)
            return MISS
        return RESERVATION_FAIL

    def _wr_alloc_fetch(self, fetch: MemFetch, now: int, link: bool) -> MemFetch:
        n = self.fetch_factory(fetch.addr, self.wr_alloc_type, fetch.sector_mask, fetch.byte_mask,
                               self.atom_bytes, False, fetch, self._now(now))
        if link:
            n.original_wr = fetch
        return n

    def _mshr_fail_reason(self, fetch: MemFetch, extra_q: int) -> str | None:
        maddr = self.mshr_addr(fetch.addr)
        hit = maddr in self.mshr
        avail = not self._mshr_full(maddr)
        if self._miss_queue_full(extra_q):
            return "MISS_QUEUE_FULL"
        if hit and avail:
            return None
        if not hit and avail and len(self.miss_queue) < self.miss_queue_size:
            return None
        return "MSHR_MERGE_ENRTY_FAIL" if hit else "MSHR_ENRTY_FAIL"

    def _read_after_write_pending(self, maddr: int) -> bool:
        e = self.mshr[maddr]
        if isinstance(e, MemFetch):
            return False
        write_found = False
        for f in e:
            if f.is_write:
                write_found = True
            elif write_found:
                return True
        return False

    # ------------------------------------------------------------------ ports
    def waits_for_fills(self) -> bool:
        """Nothing to do until a fill or a new access arrives: no access ready to return, an
        empty miss queue and both ports free (its owner may sleep)."""
        return not self.ready and not self.miss_queue and not self.data_port_occupied \
            and not self.fill_port_occupied

    def has_pending_misses(self) -> bool:
        """Some miss has not been filled yet (an MSHR entry is taken)."""
        return bool(self.mshr)

    def data_port_free(self) -> bool:
        return self.data_port_occupied == 0

    def fill_port_free(self) -> bool:
        return self.fill_port_occupied == 0

    def cycle(self, send: Callable[[MemFetch], bool] | None = None) -> None:
        """``baseline_cache::cycle``: offer the head of the miss queue to ``send`` (which returns
        whether the next level took it), sample and replenish port bandwidth."""
        if send is not None and self.miss_queue:
            if send(self.miss_queue[0]):
                self.miss_queue.pop(0)
        st = self.stats
        st.port_cycles += 1
        if self.data_port_occupied:
            st.data_port_busy += 1
            self.data_port_occupied -= 1
        if self.fill_port_occupied:
            st.fill_port_busy += 1
            self.fill_port_occupied -= 1

    def idle_cycles(self, n: int) -> None:
        """``n`` :meth:`cycle` calls with nothing to send (port counters in bulk)."""
        st = self.stats
        st.port_cycles += n
        d = min(n, self.data_port_occupied)
        st.data_port_busy += d
        self.data_port_occupied -= d
        f = min(n, self.fill_port_occupied)
        st.fill_port_busy += f
        self.fill_port_occupied -= f

    # ------------------------------------------------------------------ miss queue
    def miss_queue_empty(self) -> bool:
        return not self.miss_queue

    def miss_queue_top(self) -> MemFetch | None:
        return self.miss_queue[0] if self.miss_queue else None

    def pop_miss(self) -> MemFetch | None:
        return self.miss_queue.pop(0) if self.miss_queue else None

    # ------------------------------------------------------------------ fill / responses
    def _extra(self, fetch: MemFetch) -> _Extra | None:
        """This cache's :class:`_Extra` of ``fetch``, None when it did not send it down."""
        e = fetch.cache_extra
        while e is not None and e.owner is not self:
            e = e.below
        return e

    def _take_extra(self, fetch: MemFetch) -> _Extra:
        """Unlink and return this cache's :class:`_Extra` of ``fetch``."""
        e = fetch.cache_extra
        if e.owner is self:
            fetch.cache_extra = e.below
            return e
        prev = e
        e = e.below
        while e.owner is not self:
            prev = e
            e = e.below
        prev.below = e.below
        return e

    def waiting_for_fill(self, fetch: MemFetch) -> bool:
        key = fetch.original if (self.mshr_type == "S" and fetch.original is not None) else fetch
        return self._extra(key) is not None

    def fill(self, fetch: MemFetch, now: int) -> None:
        """``baseline_cache::fill``: a reply for a fetch this cache sent down arrived."""
        if self.mshr_type == "S" and fetch.original is not None:
            e0 = self._extra(fetch.original)
            if e0 is not None:
                fetch = fetch.original
                e0.reads_size -= 1 << 16   # (one sector reply fewer to wait for)
                if e0.reads_size >> 16 > 0:
                    return
        e = self._take_extra(fetch)
        block_addr = e.addr & ~(self.atom_bytes - 1)
        self._tag_ver += 1
        fetch.size = e.reads_size & 0xFFFF
        fetch.addr = e.addr
        if self.alloc_on_miss:
            line = self.lines[e.cache_index]
            before = line.is_modified()
            m = fetch.sector_mask
            line.fill((m & -m).bit_length() - 1 if (m and self.sectored) else 0, fetch.byte_mask)  # _sidx
            if not before and line.is_modified():
                self.n_dirty += 1
            self._sync(e.cache_index)
        else:
            self._tag_fill_addr(block_addr, now, fetch.sector_mask, fetch.byte_mask, fetch.is_write)
        self.ready.append(block_addr)
        if block_addr in self.mshr_atomic:
            self._mark_modified(e.cache_index, fetch)
        self.fill_port_occupied += self.atom_bytes // self.port_width

    def access_ready(self) -> bool:
        return bool(self.ready)

    def next_access(self) -> MemFetch:
        """``mshr_table::next_access``: one merged request whose data arrived."""
        block = self.ready[0]
        e = self.mshr[block]
        if isinstance(e, MemFetch):
            f = e
            last = True
        else:
            f = e.pop(0)
            last = not e
        if last:
            del self.mshr[block]
            self.mshr_atomic.discard(block)
            self.ready.pop(0)
        return f

    def fill_line(self, idx: int, time: int, sector_mask: int, byte_mask: int) -> None:
        """``tag_array::fill(index, time, mf)``: mark line ``idx`` (allocated by a miss) valid."""
        self._tag_ver += 1
        line: Line = self.lines[idx]
        before = line.is_modified()
        line.fill(self._sidx(sector_mask), byte_mask)
        if line.is_modified() and not before:
            self.n_dirty += 1
        self._sync(idx)

    def force_tag_access(self, addr: int, time: int, sector_mask: int) -> None:
        """``baseline_cache::force_tag_access`` (``-gpgpu_perf_sim_memcpy``): make the sector valid."""
        self._tag_ver += 1
        self._tag_fill_addr(addr, time, sector_mask, 0, True)

    def occupancy(self) -> tuple[int, int]:
        """(lines holding a valid or reserved sector, lines with a modified sector): how full
        the cache is, which wave sampling watches (``cta_sampling.py``)."""
        free = 0
        for m in self._invm:
            free += m.bit_count()
        return self._nlines - free, self.n_dirty

    # ------------------------------------------------------------------ maintenance
    def flush(self) -> None:
        """``tag_array::flush``: invalidate modified lines (no write-back traffic, as GPGPU-Sim)."""
        self._tag_ver += 1
        for idx, line in enumerate(self.lines):
            if line is not None and line.is_modified():
                line.status = INVALID
                self._sync(idx)
        self.n_dirty = 0

    def invalidate(self) -> None:
        self._tag_ver += 1
        self._sver = [v + 1 for v in self._sver]
        for line in self.lines:
            if line is not None:
                line.status = INVALID
                line.regtag = -1
        self.n_dirty = 0
        n = self.nset * self.assoc
        self._cls = bytearray(n)
        self._dup = False
        self._clear_index()
        self._invm = [(1 << self.assoc) - 1] * self.nset
        for h in self._clean:
            h.clear()
        for h in self._dirty:
            h.clear()

    def busy(self) -> bool:
        return bool(self.miss_queue or self.mshr or self.ready)

    def dump_state(self) -> str:
        out = [f"Cache {self.name}:", "MSHR contents"]
        for block, e in self.mshr.items():
            lst = [e] if isinstance(e, MemFetch) else e
            out.append(f"MSHR: tag={block:#08x}, atomic={int(block in self.mshr_atomic)} {len(lst)} entries : "
                       + (repr(lst[0]) if lst else ""))
        out.append(f"miss queue: {len(self.miss_queue)}/{self.miss_queue_size}")
        return "\n".join(out)
