"""Recording the functional run for the trace feed (``feed.py``).

How it is recorded
------------------
:func:`~.kernel_trace.record_kernel` runs the grid through the engine's own chunk loop
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
  for all its warps (:meth:`_Prep.degrees`).  Given the cores' shared-memory configuration
  (``shared_cfg``, as the timing model records), a shared record is reduced to those degrees
  when its segment is cut and its addresses dropped; its accesses are then interned
  :class:`SharedDegree` objects.  The live feed cuts ``MemAccess`` objects only.
* :class:`TraceStream` (what the SIMT core reads) turns a ``WarpTrace`` into one list of
  ``issue`` results, built when the CTA starts: one shared ``(full, full, None)`` tuple for
  every full-mask instruction without memory accesses.

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
from typing import Iterator

import numpy as np

from gpgpusim.functional import simt
from gpgpusim.functional.state import Exec

from .feed import _MASK_EMPTY, WarpTrace, _Chunk


_MASK64 = (1 << 64) - 1


class TraceRecorder:
    """Attached to an :class:`Exec` as ``ex.hooks.trace``; the engine calls :meth:`issue`,
    :meth:`issue1` and :meth:`access` (see the module docstring)."""

    __slots__ = ("seq", "batch", "single", "recs", "mem_on", "cnt", "_ln_src", "_ln32", "shared_cfg")

    def __init__(self, n_warps: int = 0, shared_cfg: tuple[int, int] | None = None) -> None:
        self.seq = 0
        self.batch: list[tuple] = []        # (seq, pc, G, masks, exec masks) per group issue
        self.single: list[tuple] = []       # (seq, warp, pc, mask, exec mask) per warp issue
        self.recs: list[list] = []          # [seq, space, addrs, lanes|None, size, store, atomic]
        self.mem_on = False
        #: instructions recorded so far per warp (``n_warps`` > 0: the windowed feed's counts)
        self.cnt: np.ndarray | None = np.zeros(n_warps, dtype=np.int64) if n_warps else None
        # the lanes of the last partial-lane access and their int32 copy, which the records
        # keep (half the bytes of the engine's int64 lane numbers; every element of a vector
        # access shares one copy, which the merge below tests by identity)
        self._ln_src: np.ndarray | None = None
        self._ln32: np.ndarray | None = None
        #: (banks, sub-warps) of the cores' shared memory: given, each shared-memory record is
        #: reduced to its warps' bank-conflict degrees when its chunk is cut (:meth:`segments`)
        self.shared_cfg = shared_cfg

    def issue(self, ex: Exec, p: int, G: np.ndarray, masks: np.ndarray, sel, esel, mem: bool) -> None:
        self.seq += 1
        if esel is sel:
            em = masks
        else:
            em = simt._warp_masks(ex, esel, G) & masks
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
        ln: np.ndarray | None = None
        if lanes is not ex.all_lanes:
            if lanes is not self._ln_src:
                self._ln_src = lanes
                self._ln32 = lanes.astype(np.int32)
            ln = self._ln32
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
                        and (int(addrs[0]) - int(r[2][0]) - r[4]) & _MASK64 == 0:   # (r[2] is uint64)
                    r[4] += size
                    return
        # uint64, the dtype the feed cuts (a 32-bit address array would be copied again there)
        recs.append([seq, space, addrs.astype(np.uint64), ln, size, is_store, is_atomic])

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
            if self.shared_cfg is not None:
                chunk.reduce_shared(*self.shared_cfg)
        out = []
        for w in (range(W) if keep_empty else np.flatnonzero(counts).tolist()):
            a, b_ = bounds[w], bounds[w + 1]
            out.append((w, WarpTrace(pv[a:b_], av[a:b_], ev[a:b_], seq[a:b_], chunk, w)))
        self.batch = []
        self.single = []
        self.recs = []
        return out


def record_chunk(chunks: Iterator[Exec]) -> tuple[list[WarpTrace], list[int]] | None:
    """The functional run of the next chunk of CTAs, recorded: its warps' traces (CTA by
    CTA, warp order within each) and its CTA ids; None after the last chunk."""
    was = gc_pause()
    try:
        ex = next(chunks, None)
        if ex is None:
            return None
        rec: TraceRecorder = ex.hooks.trace
        ex.hooks.trace = None
        return rec.warps(ex), ex.cta_ids.tolist()
    finally:
        gc_settle(was)


def gc_pause() -> bool:
    """Switch the cyclic garbage collector off while a trace chunk is recorded or its
    streams are built; returns whether it was on (for :func:`gc_settle`).

    Recording allocates millions of objects that live as long as their warps (per-warp
    arrays, memory records, the streams' result lists) and form no reference cycles.  Each
    young collection the allocation would trigger walks all of them and frees nothing: with
    the collector on, recording the 256² matmul's whole trace took ~5.0 s of CPU instead of
    ~3.8 s."""
    was = gc.isenabled()
    gc.disable()
    return was


def gc_settle(was: bool) -> None:
    """After :func:`gc_pause`: move every object the collector tracks into its oldest
    generation without walking them (``gc.freeze`` then ``gc.unfreeze``), so that the new
    trace objects are not walked by the next young collections either; then switch the
    collector back on if it was.  Nothing is freed or kept alive by this; reference cycles
    that were young at that moment are collected by the next full collection instead."""
    gc.freeze()
    gc.unfreeze()
    if was:
        gc.enable()
