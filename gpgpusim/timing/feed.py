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
  for the kernels :func:`needs_live_feed` names): each instruction is executed by the
  warp-step driver when the core issues it.

Both give identical statistics on kernels the scan classes race-free
(``tests/apps/test_live_feed.py``).

Use::

    kt = record_kernel(lm, "k", grid, block, 0, params, gmem=gmem)
    for cta_id, warps in kt.ctas():          # lazy: runs one chunk of CTAs at a time
        for wt in warps:                      # WarpTrace, warp order within the CTA
            wt.pcs, wt.active, wt.executed, wt.mem
    kt.stats                                  # KernelStats, once every CTA has been yielded

    for cta_id, streams in kt.streams():     # what the SIMT cores read (instead of ctas()):
        s = streams[0]                        # WindowStream, recorded a window at a time
        while s.pc >= 0:
            executed, active, accesses = s.issue(now)

How it is recorded
------------------
:func:`record_kernel` runs the grid through the engine's own chunk loop
(:func:`gpgpusim.functional.engine.run_chunks`, the one :func:`~gpgpusim.functional.engine.launch`
uses: same chunk sizes, validation, faults, counts, line stats and printf) with a
:class:`TraceRecorder` attached to each chunk's ``Exec`` (``ex.hooks.trace``; None otherwise, so
the plain functional path pays one ``is not None`` test per issue and per memory call).

* ``_issue`` (a group ``G`` of warps at pc ``p``) appends one tuple ``(seq, p, G, masks,
  exec_masks)`` per issue -- O(1) Python work whatever the number of warps; exec masks are the
  SIMT masks themselves unless the guard predicate is false in some lane (then one vectorised
  ``_warp_masks``).  ``issue_warp`` (single-warp path of ``_run_small``) appends one scalar tuple.
* ``Exec.load`` / ``Exec.store`` and the atomic handler append one record per call (a copy of
  the lane addresses, the lane array by reference).  Only instructions whose decode says
  ``mem`` (ld, ldu, st, atom, red, cp.async) are recorded: the frame traffic of ``call`` /
  function returns and printf's argument reads are not memory instructions (GPGPU-Sim moves
  parameters in its param space, not through the memory pipeline).  ``ld.param`` reads are not
  recorded (as ``Exec.record``), nor is a kernel-parameter read at a constant offset, which
  never reaches ``Exec.load``.
* At the end of a chunk the issue records become per-warp arrays in one vectorised pass
  (concatenate, stable sort by warp); memory records stay as recorded (one per issue, covering
  all the warps of the group) and each warp's ``mem`` dict is cut out of them lazily, on first
  access of ``WarpTrace.mem`` (so the cost of building ``MemAccess`` objects is paid by the
  consumer, per warp, and only once).  An access of a (non-generic) shared-memory record is a
  :class:`SharedAccess` instead: the same fields, its lanes and addresses sliced only when
  read, and its bank-conflict degree (all the LD/ST unit needs of it) computed once per record
  for all its warps (:meth:`_Prep.degrees`).  The live feed cuts ``MemAccess`` objects only.
* :class:`TraceStream` (what the SIMT core reads) turns a ``WarpTrace`` into one list of
  ``issue`` results, built when the CTA starts: one shared ``(full, full, None)`` tuple for
  every full-mask instruction without memory accesses.

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

Limits of the trace feed
------------------------
The recorded stream is exact only for kernels whose values and control flow do not depend on
timing: the functional driver picks one interleaving of the warps (lowest pc first), and the
timing model then replays that interleaving's results under a different one.  Kernels that read
``%clock``/``%clock64``/``%globaltimer`` (the functional clock counts warp instructions),
``%smid``/``%nsmid``/``%warpid`` (the functional mapping of CTAs to SMs is not the timing
model's), use the result of an ``atom`` (the order in which warps' atomics are applied decides
the values they get: ticket counters, queues, locks), spin on ``ld.volatile`` / ``.relaxed`` /
``.acquire`` loads (flags written by other warps), or synchronise the grid (cooperative
``grid.sync()``, which is built from such atomics and loads on the ``%envreg1:%envreg2``
workspace) may behave differently on real timing; for those the live feed (stepping the warp at
issue, :mod:`gpgpusim.timing.live`) is required, and ``auto`` picks it.  :func:`needs_live_feed`
detects them statically.  (Plain ``red`` reductions and ``bar.sync`` are fine: their outcome
does not depend on the interleaving, for integer reductions at least.)  Plain loads of
locations that other threads of the same kernel store without synchronisation (a benign race
such as ``apps/bfs.cu``'s ``if (level[u] < 0) level[u] = cur + 1;``, whose instruction counts
depend on which thread gets there first) are caught when the kernel both loads and stores
global memory at addresses computed from values it loaded (``_data_dependent_race``, register
data flow within each function).  Not detected: such races through addresses that do not
depend on loaded data, or through values passed across calls; force ``-gpgpusim_timing_feed
live`` for those.

Memory: a bounded window
------------------------
The SIMT cores read :meth:`KernelTrace.streams`, which does not record a chunk whole: each
chunk's ``Exec`` is made when its first CTA is issued and runs on the batched driver
(:class:`~gpgpusim.functional.engine.BatchedRun`, paused and resumed) only when a warp's
:class:`WindowStream` has replayed everything recorded for it.  Each run stops once that warp
has a quarter of the window more, and warps already ``-gpgpusim_feed_window`` instructions
(default 64) ahead of the timing model are held meanwhile (:class:`_WindowChunk`).  The trace
held is then about ``window`` instructions per warp of the open chunks -- set by the window and
by the CTAs in flight, not by the kernel's length (``bench/feed_memory.py`` and
``docs/PERFORMANCE.md`` give the figures and what else grows).  The recorded instructions, masks and lane addresses are
those of the whole-chunk recording (``tests/timing/test_feed_window.py``): the driver's schedule
changes only where warps are held, and the kernels this feed runs do not depend on it.
``-gpgpusim_feed_window 0`` records each chunk whole before its first CTA is timed (about 8
bytes per lane per memory access and ~20 bytes per warp instruction for the whole chunk:
~250 MB for the 256x256 tiled matmul's chunk of 65,536 threads).

Measured overhead (``/tmp``-style bench on this machine, 2 cores shared with other jobs, so
noisy; 256x256 tiled matmul from ``../shared/reference/programs/matmul.cu`` compiled with
``nvcc -ptx -O2`` as ``bench/functional_bench.py`` does: one chunk of 256 CTAs, 2,031,616 warp
instructions, 64.9 M thread instructions, 577 memory records holding 160 MB of addresses)::

    engine.launch (no recording), warm runs             : 0.35 - 0.57 s
    record_kernel + iterate ctas() (pcs/masks), warm    : 0.46 - 0.91 s   (+0.1 - 0.5 s)
      first run in a process (page faults of the trace) : 1.3 - 1.4 s
      of which end-of-chunk per-warp arrays (warps())   : 0.37 s (sort + gathers of 2 M entries)
    materialise every WarpTrace.mem (1,181,696 MemAccess): +4 - 6 s (3.4 - 5 us each, lazy)

So recording stays under the 1 s / 2 M warp-instruction budget; building ``MemAccess``
objects is the consumer's cost, paid lazily per warp.
"""

from __future__ import annotations

import gc
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from gpgpusim.errors import CudaError, Err
from gpgpusim.functional import decode as dec
from gpgpusim.functional import engine
from gpgpusim.functional.state import LOCAL_WINDOW, SHARED_WINDOW, Exec
from gpgpusim.ptx import ir
from gpgpusim.timing.core import coalesce as C

__all__ = ["MemAccess", "WarpTrace", "WarpStream", "TraceStream", "WindowStream", "KernelTrace",
           "TraceRecorder", "record_kernel", "needs_live_feed", "cut_record", "DEFAULT_WINDOW"]

_AR32 = np.arange(32, dtype=np.int64)
#: records of fewer warps get their shared-memory degrees warp by warp (memoised), not vectorised
_VEC_MIN_WARPS = 192
_MASK_EMPTY = np.zeros(0, dtype=np.int64)
#: ``-gpgpusim_feed_window``'s default: instructions a warp may be recorded ahead of the timing
#: model before the functional run stops issuing it (see :class:`_WindowChunk`)
DEFAULT_WINDOW = 64


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


class _Prep:
    """One recorded access (``TraceRecorder.recs`` entry) made ready for cutting per warp.

    ``addrs`` are the uint64 addresses, ``lanes`` the lanes within the warp (None: every lane
    of the chunk, in lane order; ``glanes`` the chunk's lane numbers then), ``bounds[k]:bounds[k
    + 1]`` warp ``w0 + k``'s part of both (one ``searchsorted`` per record, not one per record
    and warp; None with ``lanes`` None).  The bounds span only the warps from the first to the
    last one the record holds, so a live-feed record (one warp's access, prepared for that warp
    alone) costs the same whatever the warp's place in its chunk.  ``degrees`` caches the
    shared-memory bank-conflict degree of every warp of the record (:meth:`degrees`)."""

    __slots__ = ("space", "is_store", "is_atomic", "size", "addrs", "lanes", "glanes", "w0", "bounds",
                 "deg_banks", "deg_parts", "degs")

    def __init__(self, rec: list) -> None:
        _seq, space, addrs, lanes, size, is_store, is_atomic = rec
        self.space: str = space
        self.is_store: bool = is_store
        self.is_atomic: bool = is_atomic
        self.size: int = size
        self.addrs: np.ndarray = addrs.view(np.uint64) if addrs.dtype == np.int64 else addrs.astype(np.uint64)
        self.glanes: np.ndarray | None = lanes
        self.deg_banks = self.deg_parts = 0     # the configuration of ``degs`` (none yet)
        self.degs: list[int] = []
        self.w0 = 0
        self.bounds: list[int] | None
        if lanes is None:
            self.lanes: np.ndarray | None = None
            self.bounds = None
            return
        if not len(lanes):
            self.lanes = lanes
            self.bounds = [0]
            return
        w0 = int(lanes[0]) >> 5
        w1 = (int(lanes[-1]) >> 5) + 1
        if w1 == w0 + 1:                # one warp's lanes (every live-feed record)
            self.bounds = [0, len(lanes)]
        else:
            self.bounds = np.searchsorted(lanes, np.arange(w0 << 5, (w1 + 1) << 5, 32, dtype=np.int64)).tolist()
        self.lanes = lanes & 31
        self.w0 = w0

    def degrees(self, n_banks: int, warp_parts: int) -> list[int]:
        """The bank-conflict degree of each warp ``w0 + k`` of the record (0 for a warp that
        made no access), for all its warps at once (:func:`coalesce.shared_conflict_degrees`);
        kept for the last configuration asked."""
        if self.deg_banks != n_banks or self.deg_parts != warp_parts:
            g = self.glanes
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
                    ln = ln.astype(np.int64, copy=False)
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
        if p.bounds is None or p.lanes is None:
            return _AR32
        return p.lanes[p.bounds[self.k]:p.bounds[self.k + 1]]

    @property
    def addrs(self) -> np.ndarray:
        p = self.p
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
        return (f"SharedAccess(store={self.is_store}, atomic={self.is_atomic}, size={self.size}, "
                f"lanes={self.lanes.tolist()}, addrs={self.addrs.tolist()})")


#: an access of the feed: MemAccess, or the trace feed's lazily sliced shared-memory one
Access = MemAccess | SharedAccess


def _cut(p: _Prep, w: int, out: list, lazy: bool = True) -> None:
    """Append warp ``w``'s part of prepared record ``p`` to ``out`` (nothing if it has none):
    a :class:`SharedAccess` for a shared-space record when ``lazy``, else ``MemAccess``
    objects, resolving generic addresses."""
    bounds = p.bounds
    if bounds is None:              # every lane of the chunk, in lane order
        if lazy and p.space == "shared":
            out.append(SharedAccess(p, w))        # (w0 is 0)
            return
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
        a = p.addrs[i:j].copy()
        assert p.lanes is not None
        ln = p.lanes[i:j].copy()
    if p.space == "generic":
        _split_generic(a, ln, p.is_store, p.is_atomic, p.size, out)
        return
    out.append(MemAccess(p.space, p.is_store, p.is_atomic, p.size, ln, a))


def _split_generic(a: np.ndarray, ln: np.ndarray, is_store: bool, is_atomic: bool, size: int,
                   out: list) -> None:
    """A generic access: one ``MemAccess`` per window it touches (space-relative addresses)."""
    win = a >> np.uint64(48)
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
                    if out:
                        m[pos] = out
            self._mem = m
            self._chunk = None
        return m

    def __len__(self) -> int:
        return len(self.pcs)

    def __repr__(self) -> str:
        return f"WarpTrace({len(self.pcs)} instructions)"


#: TraceStream's result for an instruction with full masks and no memory access (shared)
_FULL = (0xFFFFFFFF, 0xFFFFFFFF, None)


def _results(trace: WarpTrace) -> tuple[list[int], list[tuple[int, int, Sequence[Any] | None]]]:
    """What a stream returns for each position of ``trace``: its pcs (a list) and one
    ``issue`` result per position -- one shared tuple for every full-mask instruction without
    memory accesses (most of them), its own tuple for the others."""
    pcs: list[int] = trace.pcs.tolist()
    n = len(pcs)
    res: list[tuple[int, int, Sequence[Any] | None]] = [_FULL] * n
    odd = np.flatnonzero((trace.executed & trace.active) != 0xFFFFFFFF)   # not both full
    mem = trace.mem
    if len(odd) or mem:
        exe = trace.executed.tolist()
        act = trace.active.tolist()
        for pos in odd.tolist():
            res[pos] = (exe[pos], act[pos], None)
        for pos, accs in mem.items():
            res[pos] = (exe[pos], act[pos], accs)
    return pcs, res


class TraceStream(WarpStream):
    """The trace feed's :class:`WarpStream` over one whole recorded :class:`WarpTrace`
    (``-gpgpusim_feed_window 0``; :class:`WindowStream` is the default)."""

    __slots__ = ("pcs", "res", "pos", "n", "pc")

    def __init__(self, trace: WarpTrace) -> None:
        self.pcs, self.res = _results(trace)
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


class WindowStream(WarpStream):
    """The trace feed's :class:`WarpStream` with a bounded window: warp ``w`` of a
    :class:`_WindowChunk`, replayed segment by segment as the chunk's functional run records
    them.  ``pcs``/``res`` hold the current segment (:func:`_results`); when its last
    instruction issues, the next recorded segment is taken, and when none is left the chunk
    runs further (:meth:`_WindowChunk.pump`) -- so ``pc`` is always the warp's next
    instruction, or -1 once it has none."""

    __slots__ = ("chunk", "w", "pcs", "res", "pos", "n", "pc")

    def __init__(self, chunk: _WindowChunk, w: int) -> None:
        self.chunk: _WindowChunk | None = chunk
        self.w = w
        self.pcs: list[int] = []
        self.res: list[tuple[int, int, Sequence[Any] | None]] = []
        self.pos = 0
        self.n = 0
        self.pc: int = -1
        self._next()

    def attach(self, sid: int, slot: int) -> None:
        """(The recorded values do not depend on where the warp runs.)"""

    def issue(self, now: int) -> tuple[int, int, Sequence[Any] | None]:
        pos = self.pos
        r = self.res[pos]
        pos += 1
        self.pos = pos
        if pos < self.n:
            self.pc = self.pcs[pos]
        else:
            self._next()
        return r

    def active(self) -> int:
        return self.res[self.pos][1]

    def _next(self) -> None:
        """Move to the next recorded segment (running the chunk for it when none is
        recorded yet); ``pc`` -1 when the warp has no instruction left."""
        ch = self.chunk
        if ch is None:
            self.pc = -1
            return
        t = ch.take(self.w)
        if t is None:
            self.chunk = None
            self.pcs, self.res, self.n, self.pos = [], [], 0, 0
            self.pc = -1
            return
        self.pcs, self.res = _results(t)
        self.n = len(self.res)
        self.pos = 0
        self.pc = self.pcs[0]


class TraceRecorder:
    """Attached to an :class:`Exec` as ``ex.hooks.trace``; the engine calls :meth:`issue`,
    :meth:`issue1` and :meth:`access` (see the module docstring)."""

    __slots__ = ("seq", "batch", "single", "recs", "mem_on", "cnt")

    def __init__(self, n_warps: int = 0) -> None:
        self.seq = 0
        self.batch: list[tuple] = []        # (seq, pc, G, masks, exec masks) per group issue
        self.single: list[tuple] = []       # (seq, warp, pc, mask, exec mask) per warp issue
        self.recs: list[list] = []          # [seq, space, addrs, lanes|None, size, store, atomic]
        self.mem_on = False
        #: instructions recorded so far per warp (``n_warps`` > 0: the windowed feed's counts)
        self.cnt: np.ndarray | None = np.zeros(n_warps, dtype=np.int64) if n_warps else None

    def issue(self, ex: Exec, p: int, G: np.ndarray, masks: np.ndarray, sel, esel, mem: bool) -> None:
        self.seq += 1
        if esel is sel:
            em = masks
        else:
            em = engine._warp_masks(ex, esel, G) & masks
        self.batch.append((self.seq, p, G, masks, em))
        self.mem_on = mem
        if self.cnt is not None:
            self.cnt[G] += 1

    def issue1(self, w: int, p: int, mask: int, emask: int, mem: bool) -> None:
        self.seq += 1
        self.single.append((self.seq, w, p, mask, emask))
        self.mem_on = mem
        if self.cnt is not None:
            self.cnt[w] += 1

    def access(self, ex: Exec, space: str, addrs: np.ndarray, lanes: np.ndarray, size: int,
               is_store: bool, is_atomic: bool) -> None:
        if not self.mem_on or space == "param" or addrs.size == 0:
            return
        ln = None if lanes is ex.all_lanes else lanes
        recs = self.recs
        seq = self.seq
        if not is_atomic:
            # merge the elements of a vector access (and cp.async pieces): same instruction,
            # same lanes, same kind, address right after the previous element
            for k in (-1, -2):
                if len(recs) < -k:
                    break
                r = recs[k]
                if r[0] != seq:
                    break
                if r[1] == space and r[5] == is_store and not r[6] and r[3] is ln \
                        and int(addrs[0]) == int(r[2][0]) + r[4]:
                    r[4] += size
                    return
        recs.append([seq, space, np.array(addrs), ln, size, is_store, is_atomic])

    # ------------------------------------------------------------------ end of chunk
    def warps(self, ex: Exec) -> list[WarpTrace]:
        """Per-warp traces of what was recorded since the last call (chunk warp order; all of
        the chunk's run at its end), built vectorised; the records are then dropped."""
        return [t for _, t in self.segments(ex, keep_empty=True)]

    def segments(self, ex: Exec, keep_empty: bool = False) -> list[tuple[int, WarpTrace]]:
        """``(warp, its trace)`` of what was recorded since the last call, in warp order;
        warps that issued nothing are left out unless ``keep_empty``."""
        W = ex.W
        parts_seq, parts_w, parts_p, parts_a, parts_e = [], [], [], [], []
        if self.batch:
            b = self.batch
            sizes = np.fromiter((len(t[2]) for t in b), dtype=np.int64, count=len(b))
            parts_seq.append(np.repeat(np.fromiter((t[0] for t in b), dtype=np.int64, count=len(b)), sizes))
            parts_p.append(np.repeat(np.fromiter((t[1] for t in b), dtype=np.int64, count=len(b)), sizes))
            parts_w.append(np.concatenate([t[2] for t in b]))
            parts_a.append(np.concatenate([t[3] for t in b]))
            parts_e.append(np.concatenate([t[4] for t in b]))
        if self.single:
            s = np.array(self.single, dtype=np.int64).reshape(-1, 5)
            parts_seq.append(s[:, 0])
            parts_w.append(s[:, 1])
            parts_p.append(s[:, 2])
            parts_a.append(s[:, 3])
            parts_e.append(s[:, 4])
        if parts_seq:
            seq = np.concatenate(parts_seq)
            wv = np.concatenate(parts_w)
            pv: np.ndarray = np.concatenate(parts_p)   # int64 here, gathered as int32 below
            av = np.concatenate(parts_a)
            ev = np.concatenate(parts_e)
            if len(parts_seq) > 1:          # both paths ran: put the records in issue order
                o = np.argsort(seq, kind="stable")
                seq, wv, pv, av, ev = seq[o], wv[o], pv[o], av[o], ev[o]
            # stable sort by warp (radix sort for 16-bit keys), gathering narrow dtypes
            key = wv.astype(np.int16) if W < 32768 else wv
            o = np.argsort(key, kind="stable")
            seq = seq[o]
            pv = pv.astype(np.int32)[o]
            av = av.astype(np.uint32)[o]
            ev = ev.astype(np.uint32)[o]
            counts = np.bincount(wv, minlength=W)
        else:
            seq = _MASK_EMPTY
            pv = np.zeros(0, dtype=np.int32)
            av = ev = np.zeros(0, dtype=np.uint32)
            counts = np.zeros(W, dtype=np.int64)
        bounds = np.concatenate(([0], np.cumsum(counts))).tolist()
        chunk = None
        if self.recs:
            by_seq: dict[int, list[int]] = {}
            for i, r in enumerate(self.recs):
                by_seq.setdefault(r[0], []).append(i)
            chunk = _Chunk(self.recs, by_seq)
        out = []
        for w in (range(W) if keep_empty else np.flatnonzero(counts).tolist()):
            a, b_ = bounds[w], bounds[w + 1]
            out.append((w, WarpTrace(pv[a:b_], av[a:b_], ev[a:b_], seq[a:b_], chunk, w)))
        self.batch = []
        self.single = []
        self.recs = []
        return out


class KernelTrace:
    """A kernel launch whose per-warp traces are produced chunk by chunk (:meth:`ctas`: each
    chunk recorded whole) or a bounded window at a time (:meth:`streams`, what the SIMT cores
    read)."""

    def __init__(self, lc: engine.LaunchChunks, window: int = DEFAULT_WINDOW) -> None:
        self._lc = lc
        self._started = False
        self.prog: dec.Program = lc.prog
        self.kernel: str = lc.kernel
        self.grid: tuple[int, int, int] = lc.grid
        self.block: tuple[int, int, int] = lc.block
        self.ncta: int = lc.total
        self.warps_per_cta: int = (lc.block[0] * lc.block[1] * lc.block[2] + 31) // 32
        self.stats: engine.KernelStats = lc.stats   # complete once ctas() is exhausted
        self.done = False
        #: instructions each warp may be recorded ahead of the timing model (0: whole chunks)
        self.window = max(0, int(window))
        self.open_chunks: list[_WindowChunk] = []
        self._workspace: int | None = None
        self._all_taken = False

    def ctas(self) -> Iterator[tuple[int, list[WarpTrace]]]:
        """``(linear CTA id, its warps)`` in CTA id order, lazily: each chunk of CTAs is
        executed (exactly as ``engine.launch`` would) when the previous one has been consumed.
        Can be iterated once (executing the kernel has side effects)."""
        self._start()
        return self._gen()

    def streams(self) -> Iterator[tuple[int, list[WarpStream]]]:
        """``(CTA id, its warps' streams)`` in CTA id order, as the SIMT core reads them.

        With a window (the default) each chunk's :class:`~gpgpusim.functional.state.Exec` is
        made when its first CTA is taken and runs on the batched driver only as far as the
        streams need (:class:`_WindowChunk`), so the trace held is bounded by the window and
        the warps in flight, not by the kernel's length.  With ``window`` 0 each chunk is
        recorded whole (:meth:`ctas`) before its first CTA runs.  ``stats`` is complete once the
        iterator is exhausted and (with a window) every stream has issued its last
        instruction, as both are when the GPU drains the iterator at the kernel's end.  A
        windowed chunk that is dropped before its warps finish (a stop limit ended the kernel)
        is not run further."""
        self._start()
        if self.window == 0:
            return self._whole_streams()
        return self._window_gen()

    def _start(self) -> None:
        if self._started:
            raise RuntimeError(f"KernelTrace({self.kernel}) can be iterated only once")
        self._started = True

    def _whole_streams(self) -> Iterator[tuple[int, list[WarpStream]]]:
        for cid, ws in self._gen():
            was = _gc_pause()
            try:
                out: list[WarpStream] = [TraceStream(w) for w in ws]
            finally:
                _gc_settle(was)
            yield cid, out

    def _gen(self) -> Iterator[tuple[int, list[WarpTrace]]]:
        lc = self._lc
        Wc = self.warps_per_cta
        chunks = engine.run_chunks(lc, lambda ex: TraceRecorder())
        while True:
            got = _record_chunk(chunks)
            if got is None:
                break
            ws, ids = got
            for c, cid in enumerate(ids):
                yield cid, ws[c * Wc:(c + 1) * Wc]
            del ws, got
        engine.finish_launch(lc)
        self.done = True

    def _window_gen(self) -> Iterator[tuple[int, list[WarpStream]]]:
        lc = self._lc
        Wc = self.warps_per_cta
        if lc.cooperative:
            self._workspace = lc.gmem.allocate(64)
        per, total = lc.per, lc.total
        try:
            for c0 in range(0, total, per):
                ids = list(range(c0, min(total, c0 + per)))
                ch = _WindowChunk(self, engine.chunk_exec(lc, ids, self._workspace))
                self.open_chunks.append(ch)
                for c, cid in enumerate(ids):
                    out: list[WarpStream] = [WindowStream(ch, c * Wc + i) for i in range(Wc)]
                    yield cid, out
            # every CTA was taken: the launch completes when its last chunk closes, which
            # is now already once the GPU drains the iterator at the kernel's end
            self._all_taken = True
            self._maybe_finish()
        finally:
            if not self._all_taken:      # closed early (the launch failed or was aborted)
                for ch in self.open_chunks:
                    ch.ex.close()
                self.open_chunks.clear()
                self._free_workspace()

    def _maybe_finish(self) -> None:
        """Complete the launch's counts once every CTA was taken and every chunk has closed."""
        if self._all_taken and not self.open_chunks and not self.done:
            self._free_workspace()
            engine.finish_launch(self._lc)
            self.done = True

    def _free_workspace(self) -> None:
        if self._workspace is not None:
            self._lc.gmem.free(self._workspace)
            self._workspace = None


def feed_window(option: Any) -> int:
    """The value of ``-gpgpusim_feed_window`` (None: :data:`DEFAULT_WINDOW`)."""
    if option is None:
        return DEFAULT_WINDOW
    n = int(option)
    if n < 0:
        raise CudaError(Err.InvalidValue, f"-gpgpusim_feed_window {option}: expected 0 (whole "
                                          f"chunks) or a number of instructions per warp")
    return n


class _WindowChunk:
    """One chunk of CTAs run on the batched driver a bounded window ahead of the timing model.

    The chunk's warps are run only when a :class:`WindowStream` has issued every instruction
    recorded for its warp (:meth:`pump`): the driver then issues, lowest pc first as always,
    until that warp has ``refill`` (a quarter of the window) new instructions or has exited,
    skipping the warps that already have ``window`` or more instructions recorded and not yet
    replayed (``BatchedRun.hold``).  What was recorded becomes one segment per warp
    (``TraceRecorder.segments``), queued for its stream (``pending``).  So a warp holds at most
    about ``window + refill`` recorded instructions, whatever the kernel's length; held warps
    are still run when the warp being refilled cannot go on without them (a barrier), which a
    barrier interval bounds.

    The functional results are those of ``engine.launch`` for every kernel the trace feed is
    used for (values that do not depend on the order of warps): the driver's schedule only
    interleaves the warps differently when some are held.  The chunk's counts join the
    launch's (``engine.fold_chunk``) when its last warp has exited."""

    __slots__ = ("kt", "ex", "rec", "run", "pending", "ahead", "window", "refill", "closed")

    def __init__(self, kt: KernelTrace, ex: Exec) -> None:
        self.kt = kt
        self.ex = ex
        self.rec = TraceRecorder(ex.W)
        ex.hooks.trace = self.rec
        self.run = engine.BatchedRun(ex)
        self.pending: list[deque[WarpTrace]] = [deque() for _ in range(ex.W)]
        self.ahead = np.zeros(ex.W, dtype=np.int64)     # instructions queued, per warp
        self.window = kt.window
        self.refill = max(1, kt.window // 4)
        self.closed = False

    def take(self, w: int) -> WarpTrace | None:
        """Warp ``w``'s next recorded segment (recording it first if none is queued); None
        once the warp has exited and everything recorded for it was taken."""
        q = self.pending[w]
        if not q and not self.closed:
            self.pump(w)
        if not q:
            return None
        t = q.popleft()
        self.ahead[w] -= len(t)
        return t

    def pump(self, w: int) -> None:
        """Run the chunk until warp ``w`` has ``refill`` new instructions or has exited."""
        ex, rec = self.ex, self.rec
        cnt = rec.cnt
        assert cnt is not None
        target = int(cnt[w]) + self.refill
        lim = self.window - self.ahead + cnt      # a warp is held once its count reaches this
        hold = cnt >= lim
        hold[w] = False
        over = np.empty_like(hold)

        def enough() -> bool:
            if cnt[w] >= target or ex.depth[w] == 0:
                return True
            np.greater_equal(cnt, lim, out=over)      # the warps that reached the window now
            hold[:] |= over
            hold[w] = False
            return False

        # the collector is off while the chunk runs (as for a whole chunk), but nothing is
        # promoted: what a run records lives for a window, not for the kernel
        was = gc.isenabled()
        gc.disable()
        try:
            if not enough():
                run = self.run
                run.hold = hold
                if not run.run(enough) and not enough():
                    # the warps still free wait for held ones (a barrier of w's CTA): free the
                    # CTA's warps, then, if that is not enough, every warp
                    wc = ex.Wc
                    c0 = w // wc * wc
                    hold[c0:c0 + wc] = False
                    lim[c0:c0 + wc] = 1 << 62
                    if not run.run(enough) and not enough():
                        run.hold = None
                        run.run(enough)
                run.hold = None
            for v, t in rec.segments(ex):
                self.pending[v].append(t)
                self.ahead[v] += len(t)
            if not bool((ex.depth > 0).any()):
                self._close()
        finally:
            if was:
                gc.enable()

    def _close(self) -> None:
        """Every warp has exited: the chunk's counts join the launch's."""
        self.closed = True
        kt = self.kt
        ex = self.ex
        ex.hooks.trace = None
        ex.close()
        engine.fold_chunk(kt._lc, ex)
        kt.open_chunks.remove(self)
        kt._maybe_finish()


def _record_chunk(chunks: Iterator[Exec]) -> tuple[list[WarpTrace], list[int]] | None:
    """The functional run of the next chunk of CTAs, recorded: its warps' traces (CTA by
    CTA, warp order within each) and its CTA ids; None after the last chunk."""
    was = _gc_pause()
    try:
        ex = next(chunks, None)
        if ex is None:
            return None
        rec: TraceRecorder = ex.hooks.trace
        ex.hooks.trace = None
        return rec.warps(ex), ex.cta_ids.tolist()
    finally:
        _gc_settle(was)


def _gc_pause() -> bool:
    """Switch the cyclic garbage collector off while a trace chunk is recorded or its
    streams are built; returns whether it was on (for :func:`_gc_settle`).

    Recording allocates millions of objects that live as long as their warps (per-warp
    arrays, memory records, the streams' result lists) and form no reference cycles.  Each
    young collection the allocation would trigger walks all of them and frees nothing: with
    the collector on, recording the 256² matmul's whole trace took ~5.0 s of CPU instead of
    ~3.8 s."""
    was = gc.isenabled()
    gc.disable()
    return was


def _gc_settle(was: bool) -> None:
    """After :func:`_gc_pause`: move every object the collector tracks into its oldest
    generation without walking them (``gc.freeze`` then ``gc.unfreeze``), so that the new
    trace objects are not walked by the next young collections either; then switch the
    collector back on if it was.  Nothing is freed or kept alive by this; reference cycles
    that were young at that moment are collected by the next full collection instead."""
    gc.freeze()
    gc.unfreeze()
    if was:
        gc.enable()


def record_kernel(lm: Any, kernel: str, grid, block, dyn_smem_bytes: int, params: bytes, *,
                  gmem: Any, printf: Callable[[str], None] | None = None, line_stats: dict | None = None,
                  options: Any = None, cooperative: bool = False,
                  window: int = DEFAULT_WINDOW) -> KernelTrace:
    """Validate the launch (raising as ``engine.launch`` does) and return its lazy trace
    (``window``: see :class:`KernelTrace`)."""
    lc = engine.prepare_launch(lm, kernel, grid, block, dyn_smem_bytes, params, gmem=gmem,
                               driver="batched", printf=printf, line_stats=line_stats,
                               options=options, cooperative=cooperative)
    return KernelTrace(lc, window)


# ----------------------------------------------------------------------------- static scan
_TIMING_SPECIALS = ("%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
                    "%smid", "%nsmid", "%warpid")
_ORDERED_LOADS = ("volatile", "acquire", "relaxed")


def _regs_read(inst: ir.Instruction, skip_dst: bool) -> list[str]:
    out: list[str] = []
    for op in (inst.operands[1:] if skip_dst else inst.operands):
        _see_reg_names(op, out)
    if inst.guard is not None:
        out.append(inst.guard[0].name)
    return out


def _see_reg_names(op: Any, out: list[str]) -> None:
    """Append the names of the registers operand ``op`` reads to ``out`` (a module function,
    not a recursive closure: that would be a reference cycle per call, left to the collector)."""
    if isinstance(op, ir.Reg):
        out.append(op.name)
    elif isinstance(op, ir.Vec):
        for e in op.elems:
            if e is not None:
                _see_reg_names(e, out)
    elif isinstance(op, ir.Addr) and isinstance(op.base, ir.Reg):
        out.append(op.base.name)
    elif isinstance(op, ir.ParamList):
        for e in op.items:
            _see_reg_names(e, out)


_NOT_GLOBAL = ("param", "shared", "local", "const")
_NO_DST = ("st", "red", "bra", "bar", "barrier", "membar", "fence", "exit", "ret", "trap", "call",
           "prefetch", "prefetchu")


def _global_access(inst: ir.Instruction) -> bool:
    """A global (or generic, which may be global) ld/ldu/st."""
    return inst.opcode in ("ld", "ldu", "st") and not any(m in inst.mods for m in _NOT_GLOBAL)


def _data_dependent_race(prog: dec.Program) -> str | None:
    """A store to global memory at an address computed from a value the kernel loaded from
    global memory, in a kernel that also loads at such addresses (a gather and a scatter, as
    ``bfs``'s ``if (level[u] < 0) level[u] = ...`` with ``u = cols[e]``): threads of different
    CTAs may then read what others wrote, so the order of plain loads and stores between CTAs
    -- timing -- can change values and control flow.  Register data flow only (control
    dependences through guards, values passed to or returned from calls are not followed);
    conservative: such a kernel may be race-free and only runs slower on the live feed."""
    # registers are named per function: (function, register)
    insts = [(d, d.inst, d.func.fn.name) for d in prog.insts if d.inst is not None]
    tainted: set[tuple[str, str]] = set()
    changed = True
    while changed:                         # to a fixpoint: loop-carried registers
        changed = False
        for _d, inst, fn in insts:
            if inst.opcode in _NO_DST or not inst.operands:
                continue
            dst = inst.operands[0]
            if isinstance(dst, ir.Reg):
                dsts = [(fn, dst.name)]
            elif isinstance(dst, ir.Vec):
                dsts = [(fn, e.name) for e in dst.elems if isinstance(e, ir.Reg)]
            else:
                continue
            if not dsts or all(r in tainted for r in dsts):
                continue
            if inst.opcode in ("ld", "ldu") and _global_access(inst):
                taint = True
            else:
                srcs = _regs_read(inst, True)
                if inst.guard is not None:
                    srcs = srcs[:-1]             # (the guard is a control dependence)
                taint = any((fn, r) in tainted for r in srcs)
            if taint:
                tainted.update(dsts)
                changed = True
    gather = scatter = None
    for d, inst, fn in insts:
        if not _global_access(inst):
            continue
        addr = inst.operands[0] if inst.opcode == "st" else (inst.operands[1] if len(inst.operands) > 1 else None)
        if isinstance(addr, ir.Addr) and isinstance(addr.base, ir.Reg) and (fn, addr.base.name) in tainted:
            if inst.opcode == "st":
                scatter = scatter or d
            else:
                gather = gather or d
    if gather is not None and scatter is not None:
        return (f"stores at a data-dependent address ({prog.filename}:{scatter.line} `{scatter.text}`) "
                f"and loads at one ({prog.filename}:{gather.line} `{gather.text}`): CTAs may race "
                f"through plain memory")
    return None


def needs_live_feed(prog: dec.Program) -> str | None:
    """Why the trace feed would not be exact for ``prog`` (None when it is): the kernel reads
    a timing-dependent special register, uses the result of an ``atom``, makes volatile /
    relaxed / acquire loads, or synchronises the grid (reads ``%envreg``, the cooperative
    launch workspace)."""
    # registers read anywhere in each function (to decide whether an atom's result is used)
    reads: dict[str, set[str]] = {}
    for d in prog.insts:
        inst = d.inst
        if inst is None:
            continue
        fn = d.func.fn.name
        st = reads.setdefault(fn, set())
        has_dst = inst.opcode not in ("st", "red", "bra", "bar", "barrier", "membar", "fence",
                                      "exit", "ret", "trap", "call", "prefetch", "prefetchu")
        st.update(_regs_read(inst, has_dst))
    for d in prog.insts:
        inst = d.inst
        if inst is None:
            continue
        where = f"{prog.filename}:{d.line} `{d.text}`"
        for op in inst.operands:
            if isinstance(op, ir.Special):
                if op.name in _TIMING_SPECIALS:
                    return f"reads {op.name} at {where}"
                if op.name.startswith("%envreg"):
                    return f"grid synchronisation (reads {op.name}) at {where}"
        opc = inst.opcode
        if opc == "atom" and inst.operands:
            dst = inst.operands[0]
            if isinstance(dst, ir.Reg) and dst.name in reads.get(d.func.fn.name, ()):
                return f"uses the result of an atomic at {where}"
        if opc in ("ld", "ldu") and any(m in inst.mods for m in _ORDERED_LOADS):
            m = next(m for m in inst.mods if m in _ORDERED_LOADS)
            return f"ld.{m} (a load ordered with other threads' writes) at {where}"
    return _data_dependent_race(prog)
