"""Instruction feed of the timing model: each warp's dynamic instruction stream, recorded.

The timing model decides *when* instructions run; the functional engine decides *what* they
do.  The SIMT core reads each warp's instructions through one interface, :class:`WarpStream`
(next pc; ``issue(now)`` -> executed mask and memory accesses), with two implementations,
chosen per kernel by ``-gpgpusim_timing_feed auto|trace|live``:

* the **trace** feed (this module, the default for kernels whose values cannot depend on
  timing): the fast batched functional driver records every warp's dynamic instruction stream
  (pc, SIMT active mask, executed mask, lane addresses of memory accesses) ahead of time and
  :class:`TraceStream` replays it;
* the **live** feed (:mod:`gpgpusim.timing.live`, GPGPU-Sim's own model, picked by ``auto``
  for the kernels :func:`~.live_check.needs_live_feed` names): each instruction is executed by the
  warp-step driver when the core issues it.

Both give identical statistics on kernels the scan classes race-free
(``tests/apps/test_live_feed.py``).

Use::

    kt = record_kernel(lm, "k", grid, block, 0, params, gmem=gmem)   # kernel_trace.py
    for cta_id, warps in kt.ctas():          # lazy: runs one chunk of CTAs at a time
        for wt in warps:                      # WarpTrace, warp order within the CTA
            wt.pcs, wt.active, wt.executed, wt.mem
    kt.stats                                  # KernelStats, once every CTA has been yielded

    for cta_id, streams in kt.streams():     # what the SIMT cores read (instead of ctas()):
        s = streams[0]                        # WindowStream, recorded a window at a time
        while s.pc >= 0:
            executed, active, accesses = s.issue(now)

Where the rest lives
--------------------
* ``recorder.py``: how the functional engine's run is recorded (:class:`~.recorder.TraceRecorder`);
* ``kernel_trace.py``: a launch's trace chunk by chunk (:class:`~.kernel_trace.KernelTrace`,
  :func:`~.kernel_trace.record_kernel`) and the bounded window (:class:`~.kernel_trace.WindowStream`);
* ``live_check.py``: which kernels the trace feed cannot run (:func:`~.live_check.needs_live_feed`).

This module: the stream interface (:class:`WarpStream`), the recorded accesses
(:class:`MemAccess`, :class:`SharedAccess`), a warp's recorded trace (:class:`WarpTrace`) and
its whole-trace replay (:class:`TraceStream`).

``MemAccess`` conventions (``SharedAccess`` alike): one ``MemAccess`` per memory operation of
a warp instruction and per resolved state space; **vector accesses are merged** (``ld.v4.f32`` is one access of
``size`` 16 at the address of element 0; the engine reads the elements in separate calls and
the recorder merges consecutive calls of one instruction with the same lanes whose addresses
follow on); ``cp.async`` is a global read followed by a shared write (4-byte pieces of one
copy are merged the same way).  Generic addresses are resolved (global / shared / local, the
last two space-relative, as ``Exec.record``): a generic access touching two windows gives two
``MemAccess`` objects.  An atomic (``atom``/``red``) is one access with ``is_store`` False and
``is_atomic`` True.  ``lanes`` are the lane numbers 0..31 within the warp (int64, ascending);
lanes whose guard predicate is false make no access, and a warp instruction none of whose
lanes accessed memory has no entry in ``mem``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from gpgpusim.functional.memory import WINDOW_SHIFT
from gpgpusim.functional.state import LOCAL_WINDOW, SHARED_WINDOW
from gpgpusim.timing.core import coalesce as C

__all__ = ["MemAccess", "SharedAccess", "SharedDegree", "WarpTrace", "WarpStream", "TraceStream", "cut_record", "warp_results"]

_AR32 = np.arange(32, dtype=np.int64)
#: records of fewer warps get their shared-memory degrees warp by warp (memoised), not vectorised
_VEC_MIN_WARPS = 192
_MASK_EMPTY = np.zeros(0, dtype=np.int64)


@dataclass(slots=True)
class MemAccess:
    """The lane addresses of one memory access made by one warp instruction."""

    space: str              # 'global' | 'local' | 'shared' | 'const' | 'tex'
    is_store: bool
    is_atomic: bool         # atom/red: one access, is_store False
    size: int               # bytes per lane (a whole vector: ld.v4.f32 -> 16)
    lanes: np.ndarray       # int64 lane numbers 0..31 that accessed, ascending
    addrs: np.ndarray       # uint64 addresses, same order; shared/local space-relative
    #: live feed: the functional execution of an atomic deferred until its first request leaves
    #: the memory partition (run once by ``WarpInst.do_atomic``); None otherwise
    on_exit: Callable[[], None] | None = None


class WarpStream:
    """The feed interface of the SIMT core: one warp's dynamic instructions, one at a time.

    ``pc`` is the pc of the warp's next instruction (an index into ``prog.insts``), -1 once
    the warp has no more (functionally done).  ``attach(sid, slot)`` is called once, when the
    warp is placed in hardware warp slot ``slot`` of core ``sid``.  ``issue(now)`` is called
    when the core issues the instruction at ``pc`` in core cycle ``now``; it returns the lanes
    that executed it (active and guard true, a 32-bit mask), the SIMT-active lanes (a 32-bit
    mask: the warp-distribution statistics count these) and its memory accesses (None when it
    made none), and moves ``pc`` on.  Implementations: :class:`TraceStream` (recorded ahead
    by the batched driver) and :class:`gpgpusim.timing.live.LiveWarp` (executed at issue).

    A base class rather than a protocol: the compiled model (``native/__init__.py``) then calls
    ``issue`` through the class's method table instead of a generic attribute lookup."""

    __slots__ = ()

    pc: int

    def attach(self, sid: int, slot: int) -> None:
        raise NotImplementedError

    def issue(self, now: int) -> tuple[int, int, Sequence[Any] | None]:
        raise NotImplementedError

    def active(self) -> int:
        """The SIMT-active lanes (a 32-bit mask) of the instruction at ``pc``, before it
        issues (GPGPU-Sim's ``get_active_mask``: what ``-cdp_latency`` charges per lane)."""
        raise NotImplementedError

    def issued(self) -> int:
        """The warp's instructions issued so far (CTA sampling inside a wave reads the CTAs'
        progress; only the windowed trace feed's streams count it)."""
        raise NotImplementedError(f"{type(self).__name__} does not count its instructions")

    def abandon(self) -> None:
        """No further instruction of the warp is timed: ``pc`` becomes -1 (CTA sampling's cut
        inside a wave; only the windowed trace feed's streams, whose launch is cut, support it)."""
        raise NotImplementedError(f"{type(self).__name__} cannot be cut")


class _Chunk:
    """Memory records of one chunk, shared by its warps (sliced lazily per warp).

    ``prep[i]`` is record ``i`` prepared (:class:`_Prep`) on the first cut from it, once
    for all the chunk's warps: a warp's part is then two slices of shared arrays
    (:func:`_cut`)."""

    __slots__ = ("recs", "by_seq", "mem_seqs", "prep")

    def __init__(self, recs: list, by_seq: dict[int, list[int]]) -> None:
        self.recs = recs
        self.by_seq = by_seq
        self.mem_seqs = np.fromiter(sorted(by_seq), dtype=np.int64, count=len(by_seq))
        self.prep: list[_Prep | None] = [None] * len(recs)

    def reduce_shared(self, n_banks: int, warp_parts: int) -> None:
        """Prepare every (non-generic) shared-memory record now, with each of its warps'
        bank-conflict degrees for this configuration, and drop its addresses and lanes: the
        LD/ST unit asks a shared access for nothing else (``LdstUnit.issue``).  A record
        covers every warp the functional run issued together (often the whole chunk), and
        its addresses would otherwise be held until the last of those warps has replayed
        it; shared accesses are most of a tiled kernel's memory records."""
        recs, prep = self.recs, self.prep
        for i, r in enumerate(recs):
            if r is not None and r[1] == "shared" and prep[i] is None:
                p = prep[i] = _Prep(r)
                p.degrees(n_banks, warp_parts)
                p.addrs = p.lanes = None
                p.bounds = None
                recs[i] = None


class _Prep:
    """One recorded access (``TraceRecorder.recs`` entry) made ready for cutting per warp.

    ``addrs`` are the uint64 addresses (the recorder's array, not a copy), ``lanes`` the chunk's
    lane numbers (``& 31``: the lane within its warp, taken per warp slice; None: every lane of
    the chunk, in lane order), ``bounds[k]:bounds[k + 1]`` warp ``w0 + k``'s part of both (one ``searchsorted`` per record, not one per record
    and warp; None with ``lanes`` None).  The bounds span only the warps from the first to the
    last one the record holds, so a live-feed record (one warp's access, prepared for that warp
    alone) costs the same whatever the warp's place in its chunk.  ``degrees`` caches the
    shared-memory bank-conflict degree of every warp of the record (:meth:`degrees`)."""

    __slots__ = ("space", "is_store", "is_atomic", "size", "addrs", "lanes", "w0", "bounds",
                 "deg_banks", "deg_parts", "degs")

    def __init__(self, rec: list) -> None:
        _seq, space, addrs, lanes, size, is_store, is_atomic = rec
        self.space: str = space
        self.is_store: bool = is_store
        self.is_atomic: bool = is_atomic
        self.size: int = size
        #: None once the record is reduced to its degrees (:meth:`_Chunk.reduce_shared`)
        self.addrs: np.ndarray | None = addrs.view(np.uint64) if addrs.dtype == np.int64 else addrs.astype(np.uint64, copy=False)
        self.deg_banks = self.deg_parts = 0     # the configuration of ``degs`` (none yet)
        self.degs: list[int] = []
        self.w0 = 0
        self.bounds: list[int] | None
        self.lanes: np.ndarray | None = lanes
        if lanes is None:
            self.bounds = None
            return
        if not len(lanes):
            self.bounds = [0]
            return
        w0 = int(lanes[0]) >> 5
        w1 = (int(lanes[-1]) >> 5) + 1
        if w1 == w0 + 1:                # one warp's lanes (every live-feed record)
            self.bounds = [0, len(lanes)]
        else:
            self.bounds = np.searchsorted(lanes, np.arange(w0 << 5, (w1 + 1) << 5, 32, dtype=np.int64)).tolist()
        self.w0 = w0

    def degrees(self, n_banks: int, warp_parts: int) -> list[int]:
        """The bank-conflict degree of each warp ``w0 + k`` of the record (0 for a warp that
        made no access), for all its warps at once (:func:`coalesce.shared_conflict_degrees`);
        kept for the last configuration asked."""
        if self.deg_banks != n_banks or self.deg_parts != warp_parts:
            if self.addrs is None:
                raise RuntimeError(f"shared-memory record reduced to its degrees for {self.deg_banks} banks and "
                                   f"{self.deg_parts} sub-warps, asked for {n_banks} and {warp_parts}")
            g = self.lanes
            if g is None:
                nw = (len(self.addrs) + 31) >> 5
                slots = None
            else:
                nw = ((int(g[-1]) >> 5) + 1 - self.w0) if len(g) else 0
                slots = g - (self.w0 << 5)
            if nw >= _VEC_MIN_WARPS:
                self.degs = C.shared_conflict_degrees(slots, self.addrs, nw, n_banks, warp_parts).tolist()
            else:
                # numpy's fixed costs outweigh a few lookups in shared_conflict_degree's memo
                # (same key: the warp's address and lane bytes, cut from the record's bytes)
                b: Sequence[int] | None = self.bounds
                a, ln = self.addrs, self.lanes
                if b is None or ln is None:         # every lane: warp k is a[32k:32k + 32]
                    b = range(0, (nw + 1) << 5, 32)     # (slices stop at the end)
                    ln = None
                else:
                    ln = (ln & 31).astype(np.int64, copy=False)
                ab = a.tobytes()                    # (8 bytes per address and per lane)
                lb = None
                if warp_parts > 1:
                    lb = _AR32.tobytes() * nw if ln is None else ln.tobytes()
                memo = C._DEGREE_MEMO
                degs = []
                for k in range(nw):
                    i, j = b[k], b[k + 1]
                    d = memo.get((ab[i << 3:j << 3], lb[i << 3:j << 3] if lb is not None else b"", n_banks,
                                  warp_parts))
                    if d is None:
                        ak = a[i:j]
                        d = C.shared_conflict_degree(_AR32[:len(ak)] if ln is None else ln[i:j], ak, n_banks,
                                                     warp_parts)
                    degs.append(d)
                self.degs = degs
            self.deg_banks = n_banks
            self.deg_parts = warp_parts
        return self.degs


class SharedAccess:
    """The trace feed's access of one warp to shared memory (a non-generic ``ld/st/atom
    .shared`` record): :class:`MemAccess`'s fields, its lanes and addresses sliced only when
    read, and the bank-conflict degree (:meth:`degree`) computed for every warp of the record
    at once, so the LD/ST unit neither builds nor hashes per-warp arrays (C108)."""

    __slots__ = ("p", "k")

    space = "shared"
    on_exit: Callable[[], None] | None = None      # (the trace feed defers nothing)

    def __init__(self, p: _Prep, k: int) -> None:
        self.p = p
        self.k = k                      # warp p.w0 + k of the record

    @property
    def is_store(self) -> bool:
        return self.p.is_store

    @property
    def is_atomic(self) -> bool:
        return self.p.is_atomic

    @property
    def size(self) -> int:
        return self.p.size

    @property
    def lanes(self) -> np.ndarray:
        p = self.p
        if p.addrs is None:
            raise RuntimeError("a reduced shared-memory record keeps only its bank-conflict degrees")
        if p.bounds is None or p.lanes is None:
            return _AR32
        return p.lanes[p.bounds[self.k]:p.bounds[self.k + 1]] & 31

    @property
    def addrs(self) -> np.ndarray:
        p = self.p
        if p.addrs is None:
            raise RuntimeError("a reduced shared-memory record keeps only its bank-conflict degrees")
        if p.bounds is None:
            lo = self.k << 5
            return p.addrs[lo:lo + 32]
        return p.addrs[p.bounds[self.k]:p.bounds[self.k + 1]]

    def degree(self, n_banks: int, warp_parts: int) -> int:
        """``coalesce.shared_conflict_degree(self.lanes, self.addrs, n_banks, warp_parts)``
        (what ``LdstUnit.issue`` asks of a shared-memory access of the trace feed)."""
        p = self.p
        if p.deg_banks != n_banks or p.deg_parts != warp_parts:
            p.degrees(n_banks, warp_parts)
        return p.degs[self.k]

    def __repr__(self) -> str:
        if self.p.addrs is None:
            return (f"SharedAccess(store={self.is_store}, atomic={self.is_atomic}, size={self.size}, "
                    f"degree={self.p.degs[self.k]})")
        return (f"SharedAccess(store={self.is_store}, atomic={self.is_atomic}, size={self.size}, "
                f"lanes={self.lanes.tolist()}, addrs={self.addrs.tolist()})")


class SharedDegree:
    """A warp's access to shared memory reduced to what the LD/ST unit asks of it: the
    bank-conflict degree for the cores' configuration (``_Chunk.reduce_shared``).  Interned:
    one object per (store, atomic, size, degree, configuration), shared by every warp and
    instruction with those values (:func:`shared_degree`), with the one-access list and the
    full-mask issue result built once (``alone``, ``full_res``), so a replayed shared-memory
    instruction holds no object of its own."""

    __slots__ = ("is_store", "is_atomic", "size", "deg", "banks", "parts", "alone", "full_res")

    space = "shared"
    on_exit: Callable[[], None] | None = None

    def __init__(self, is_store: bool, is_atomic: bool, size: int, deg: int, banks: int, parts: int) -> None:
        self.is_store = is_store
        self.is_atomic = is_atomic
        self.size = size
        self.deg = deg
        self.banks = banks
        self.parts = parts
        self.alone: list[Access] = [self]
        # typed Any: the compiled class then keeps the tuple object itself, where a tuple-typed
        # field is stored unboxed and would be boxed into a new tuple on every read
        self.full_res: Any = (_FULL_MASK, _FULL_MASK, self.alone)

    def degree(self, n_banks: int, warp_parts: int) -> int:
        if n_banks != self.banks or warp_parts != self.parts:
            raise RuntimeError(f"shared-memory access reduced for {self.banks} banks and {self.parts} "
                               f"sub-warps, asked for {n_banks} and {warp_parts}")
        return self.deg

    def __repr__(self) -> str:
        return (f"SharedDegree(store={self.is_store}, atomic={self.is_atomic}, size={self.size}, "
                f"degree={self.deg})")


_FULL_MASK = 0xFFFFFFFF
_SHARED_DEGREES: dict[tuple[bool, bool, int, int, int, int], SharedDegree] = {}


def shared_degree(is_store: bool, is_atomic: bool, size: int, deg: int, banks: int, parts: int) -> SharedDegree:
    """The interned :class:`SharedDegree` of these values."""
    key = (is_store, is_atomic, size, deg, banks, parts)
    d = _SHARED_DEGREES.get(key)
    if d is None:
        d = _SHARED_DEGREES[key] = SharedDegree(is_store, is_atomic, size, deg, banks, parts)
    return d


#: an access of the feed: MemAccess, or the trace feed's shared-memory ones (lazily sliced, or
#: reduced to a degree)
Access = MemAccess | SharedAccess | SharedDegree


def _cut(p: _Prep, w: int, out: list, lazy: bool = True) -> None:
    """Append warp ``w``'s part of prepared record ``p`` to ``out`` (nothing if it has none):
    a :class:`SharedAccess` for a shared-space record when ``lazy``, else ``MemAccess``
    objects, resolving generic addresses."""
    if p.addrs is None:             # reduced to degrees: a warp made an access iff its degree > 0
        k = w - p.w0
        degs = p.degs
        if 0 <= k < len(degs) and degs[k]:
            out.append(shared_degree(p.is_store, p.is_atomic, p.size, degs[k], p.deg_banks, p.deg_parts))
        return
    bounds = p.bounds
    if bounds is None:              # every lane of the chunk, in lane order
        if lazy and p.space == "shared":
            out.append(SharedAccess(p, w))        # (w0 is 0)
            return
        assert p.addrs is not None                # (only shared records are reduced)
        lo = w << 5
        a = p.addrs[lo:lo + 32].copy()     # (a copy: see below)
        ln = _AR32
    else:
        k = w - p.w0
        if k < 0 or k + 1 >= len(bounds):
            return
        i = bounds[k]
        j = bounds[k + 1]
        if i == j:
            return
        if lazy and p.space == "shared":
            out.append(SharedAccess(p, k))
            return
        # copies, not views: a MemAccess can outlive its instruction's issue by thousands of
        # cycles (an in-flight request), and a view would keep the whole record (every warp's
        # addresses, 512 KB for 2,048 warps) alive that long
        assert p.addrs is not None and p.lanes is not None
        a = p.addrs[i:j].copy()
        ln = p.lanes[i:j] & 31
    if p.space == "generic":
        _split_generic(a, ln, p.is_store, p.is_atomic, p.size, out)
        return
    out.append(MemAccess(p.space, p.is_store, p.is_atomic, p.size, ln, a))


def _split_generic(a: np.ndarray, ln: np.ndarray, is_store: bool, is_atomic: bool, size: int,
                   out: list) -> None:
    """A generic access: one ``MemAccess`` per window it touches (space-relative addresses)."""
    win = a >> WINDOW_SHIFT
    if win.any():
        for wn, sp, base in ((0, "global", 0), (1, "shared", SHARED_WINDOW), (2, "local", LOCAL_WINDOW)):
            m = win == wn
            if m.any():
                out.append(MemAccess(sp, is_store, is_atomic, size, ln[m], a[m] - np.uint64(base)))
        return
    out.append(MemAccess("global", is_store, is_atomic, size, ln, a))


def cut_record(rec: list, w: int, out: list[MemAccess]) -> None:
    """Append warp ``w``'s part of one recorded access (``TraceRecorder.recs`` entry) to
    ``out`` as ``MemAccess`` objects, resolving generic addresses (nothing if it has none):
    the live feed's cut, once per record and step (the trace feed prepares a record once for
    all the warps of its chunk, :class:`_Chunk`)."""
    _cut(_Prep(rec), w, out, lazy=False)


class WarpTrace:
    """One warp's dynamic instruction stream (counted PTX instructions, in issue order)."""

    __slots__ = ("pcs", "active", "executed", "_seqs", "_chunk", "_w", "_mem")

    def __init__(self, pcs: np.ndarray, active: np.ndarray, executed: np.ndarray,
                 seqs: np.ndarray, chunk: _Chunk | None, w: int) -> None:
        self.pcs = pcs                  # int32 global pcs (indices into prog.insts)
        self.active = active            # uint32 SIMT active mask at issue
        self.executed = executed        # uint32 active and guard true
        self._seqs = seqs
        self._chunk = chunk
        self._w = w
        self._mem: dict[int, list[Access]] | None = None

    @property
    def mem(self) -> dict[int, list[Access]]:
        """Position in ``pcs`` -> the accesses of that instruction (only for instructions
        that touched memory).  Built on first access."""
        m = self._mem
        if m is None:
            m = {}
            ch = self._chunk
            if ch is not None and ch.by_seq:
                seqs = self._seqs
                by_seq, w = ch.by_seq, self._w
                prep, recs = ch.prep, ch.recs
                # the positions whose issue made memory records (mem_seqs is sorted: one
                # searchsorted, cheaper than isin's sort of both arrays)
                ms = ch.mem_seqs
                k = np.searchsorted(ms, seqs)
                k[k == len(ms)] = 0
                at = np.flatnonzero(ms[k] == seqs)
                for pos, sq in zip(at.tolist(), seqs[at].tolist(), strict=True):
                    out: list[Access] = []
                    for ri in by_seq[sq]:
                        p = prep[ri]
                        if p is None:
                            p = prep[ri] = _Prep(recs[ri])
                        _cut(p, w, out)
                    if len(out) == 1:
                        a0 = out[0]
                        m[pos] = a0.alone if isinstance(a0, SharedDegree) else out
                    elif out:
                        m[pos] = out
            self._mem = m
            self._chunk = None
        return m

    def __len__(self) -> int:
        return len(self.pcs)

    def __repr__(self) -> str:
        return f"WarpTrace({len(self.pcs)} instructions)"


#: TraceStream's result for an instruction with full masks and no memory access (shared)
_FULL: Any = (_FULL_MASK, _FULL_MASK, None)      # (typed Any: see warp_results)


def warp_results(trace: WarpTrace) -> tuple[list[int], list[Any]]:
    """What a stream returns for each position of ``trace``: its pcs (a list) and one
    ``issue`` result per position -- one shared tuple for every full-mask instruction without
    memory accesses (most of them), its own tuple for the others.  (A list of ``Any``: the
    compiled code moves the tuple objects as they are, where reading one into a tuple-typed
    variable unboxes it and storing it boxes a new one.)"""
    pcs: list[int] = trace.pcs.tolist()
    n = len(pcs)
    res: list[Any] = [_FULL] * n
    odd = np.flatnonzero((trace.executed & trace.active) != _FULL_MASK)   # not both full
    mem = trace.mem
    if len(odd) or mem:
        exe = trace.executed.tolist()
        act = trace.active.tolist()
        for pos in odd.tolist():
            res[pos] = _masks_result(exe[pos], act[pos])
        full: Any = _FULL_INT
        for pos, accs in mem.items():
            e = exe[pos]
            a = act[pos]
            if e == _FULL_MASK and a == _FULL_MASK:
                if len(accs) == 1:
                    a0 = accs[0]
                    if isinstance(a0, SharedDegree):
                        res[pos] = a0.full_res      # (interned: no tuple of its own)
                        continue
                e = a = full                        # (one int object, not two per result)
            res[pos] = (e, a, accs)
    return pcs, res


#: the full mask as one int object (typed Any: the compiled code stores this object, where an
#: int-typed value is boxed into a new one)
_FULL_INT: Any = _FULL_MASK
#: (executed, active) -> the shared issue result of an instruction with those masks and no
#: memory access (bounded: cleared when full)
_MASKS_RESULTS: dict[Any, Any] = {}
_MASKS_RESULTS_MAX = 4096


def _masks_result(e: Any, a: Any) -> Any:
    """The shared ``(e, a, None)`` issue result (:data:`_MASKS_RESULTS`)."""
    key = (e, a)
    r: Any = _MASKS_RESULTS.get(key)
    if r is None:
        if len(_MASKS_RESULTS) >= _MASKS_RESULTS_MAX:
            _MASKS_RESULTS.clear()
        # boxed once into r, then stored (a chained assignment of the tuple would box it twice)
        r = (e, a, None)
        _MASKS_RESULTS[key] = r
    return r


class TraceStream(WarpStream):
    """The trace feed's :class:`WarpStream` over one whole recorded :class:`WarpTrace`
    (``-gpgpusim_feed_window 0``; :class:`WindowStream` is the default)."""

    __slots__ = ("pcs", "res", "pos", "n", "pc")

    def __init__(self, trace: WarpTrace) -> None:
        self.pcs, self.res = warp_results(trace)
        self.n = len(self.res)
        self.pcs.append(-1)             # sentinel: the pc after the last instruction
        self.pos = 0
        self.pc: int = self.pcs[0]

    def attach(self, sid: int, slot: int) -> None:
        """(The recorded values do not depend on where the warp runs.)"""

    def issue(self, now: int) -> tuple[int, int, Sequence[Any] | None]:
        pos = self.pos
        self.pos = pos + 1
        self.pc = self.pcs[pos + 1]
        return self.res[pos]

    def active(self) -> int:
        return self.res[self.pos][1]
