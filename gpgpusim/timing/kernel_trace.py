"""A kernel launch's trace for the timing model, produced chunk by chunk as its CTAs are
issued (:class:`KernelTrace`, :func:`record_kernel`), and the bounded window the SIMT cores
read it through (:class:`WindowStream`, :class:`_WindowChunk`).  The streams and traces are
``feed.py``'s, the recording ``recorder.py``'s.

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
"""

from __future__ import annotations

import gc
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from gpgpusim.errors import CudaError, Err
from gpgpusim.functional import decode as dec
from gpgpusim.functional import engine
from gpgpusim.functional.state import Exec
from gpgpusim.hostmem import release_free

from .feed import TraceStream, WarpStream, WarpTrace, warp_results
from .recorder import TraceRecorder, gc_pause, gc_settle, record_chunk

__all__ = ["DEFAULT_WINDOW", "KernelTrace", "WindowStream", "feed_window", "record_kernel"]

#: ``-gpgpusim_feed_window``'s default: instructions a warp may be recorded ahead of the timing
#: model before the functional run stops issuing it (see :class:`_WindowChunk`)
DEFAULT_WINDOW = 64


class WindowStream(WarpStream):
    """The trace feed's :class:`WarpStream` with a bounded window: warp ``w`` of a
    :class:`_WindowChunk`, replayed segment by segment as the chunk's functional run records
    them.  ``pcs``/``res`` hold the current segment (:func:`~.feed.warp_results`); when its last
    instruction issues, the next recorded segment is taken, and when none is left the chunk
    runs further (:meth:`_WindowChunk.pump`) -- so ``pc`` is always the warp's next
    instruction, or -1 once it has none."""

    __slots__ = ("chunk", "w", "pcs", "res", "pos", "n", "pc", "taken")

    def __init__(self, chunk: _WindowChunk, w: int) -> None:
        self.chunk: _WindowChunk | None = chunk
        self.w = w
        self.pcs: list[int] = []
        #: the segment's issue results (``warp_results``), None at the positions issued
        self.res: list[Any] = []
        self.pos = 0
        self.n = 0
        self.pc: int = -1
        self.taken = 0          # instructions of the segments taken so far
        self._next()

    def issued(self) -> int:
        """The warp's instructions issued so far."""
        return self.taken - (self.n - self.pos)

    def attach(self, sid: int, slot: int) -> None:
        """(The recorded values do not depend on where the warp runs.)"""

    def issue(self, now: int) -> tuple[int, int, Sequence[Any] | None]:
        pos = self.pos
        res = self.res
        r = res[pos]
        res[pos] = None         # (the segment need not keep an issued instruction's accesses)
        pos += 1
        self.pos = pos
        if pos < self.n:
            self.pc = self.pcs[pos]
        else:
            self._next()
        return r

    def active(self) -> int:
        return self.res[self.pos][1]

    def abandon(self) -> None:
        """No further instruction of this warp is timed (CTA sampling's cut inside a wave,
        :meth:`KernelTrace.cut`): what is recorded and not yet issued is dropped, ``pc`` -1."""
        self.chunk = None
        self.pcs, self.res, self.n, self.pos = [], [], 0, 0
        self.pc = -1

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
        self.pcs, self.res = warp_results(t)
        self.n = len(self.res)
        self.taken += self.n
        self.pos = 0
        self.pc = self.pcs[0]


class KernelTrace:
    """A kernel launch whose per-warp traces are produced chunk by chunk (:meth:`ctas`: each
    chunk recorded whole) or a bounded window at a time (:meth:`streams`, what the SIMT cores
    read)."""

    def __init__(self, lc: engine.LaunchChunks, window: int = DEFAULT_WINDOW,
                 shared_cfg: tuple[int, int] | None = None) -> None:
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
        #: the cores' shared-memory (banks, sub-warps): shared-memory records are then kept as
        #: bank-conflict degrees only (``feed._Chunk.reduce_shared``); None keeps the addresses
        self.shared_cfg = shared_cfg
        self.open_chunks: list[_WindowChunk] = []
        self._workspace: int | None = None
        self._all_taken = False
        #: set by :meth:`cut`: the CTAs not taken yet run on the functional engine only
        self._unrecorded = False
        #: set by :meth:`cut` given a finished run of the launch: nothing more runs
        self._adopted = False

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
            was = gc_pause()
            try:
                out: list[WarpStream] = [TraceStream(w) for w in ws]
            finally:
                gc_settle(was)
            yield cid, out

    def _gen(self) -> Iterator[tuple[int, list[WarpTrace]]]:
        lc = self._lc
        Wc = self.warps_per_cta
        cfg = self.shared_cfg
        chunks = engine.run_chunks(lc, lambda ex: TraceRecorder(shared_cfg=cfg))
        while True:
            got = record_chunk(chunks)
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
        c0 = 0
        try:
            while c0 < total and not self._adopted:
                if self._unrecorded:
                    per = lc.per_full       # after a cut nothing is held for the timing model
                ids = list(range(c0, min(total, c0 + per)))
                c0 += per
                ex = engine.chunk_exec(lc, ids, self._workspace)
                if self._unrecorded:
                    # after a cut: the chunk runs whole, unrecorded, as in functional mode
                    try:
                        engine.run_batched(ex)
                    finally:
                        ex.close()
                    engine.fold_chunk(lc, ex)
                    continue
                ch = _WindowChunk(self, ex)
                self.open_chunks.append(ch)
                for c, cid in enumerate(ids):
                    if self._unrecorded or self._adopted:
                        break       # cut: the chunk ran to its end (its CTAs not taken included)
                    out: list[WarpStream] = [WindowStream(ch, c * Wc + i) for i in range(Wc)]
                    yield cid, out
            # every CTA was taken: the launch completes when its last chunk closes, which
            # is now already once the GPU drains the iterator at the kernel's end
            self._all_taken = True
            self._maybe_finish()
        finally:
            if not self._all_taken:      # closed early (the launch failed or was aborted)
                for ch in self.open_chunks:
                    if ch.ex is not None:
                        ch.ex.close()
                self.open_chunks.clear()
                self._free_workspace()

    def cut(self, ran: engine.LaunchChunks | None = None) -> None:
        """CTA sampling: nothing more of this launch is timed.  Every open chunk runs to its end
        on the functional engine without recording (its streams not yet ended must be
        :meth:`WindowStream.abandon`-ed or never issued again), and the CTAs not taken yet run
        chunk by chunk as in functional mode, in the engine's own chunk size (``lc.per_full``,
        not the timing model's smaller one), when the iterator is drained, so every instruction
        still executes and memory stays exact (needs a window: ``streams()`` of a windowed trace).

        ``ran``: a functional run of this whole launch that already happened, from the memory
        this launch started from, and whose writes the caller puts in place (CTA sampling's
        screening run, ``cta_screen.py``).  Then nothing more runs: the open chunks are closed
        where they are and the launch's counts are ``ran``'s."""
        if self.window == 0:
            raise RuntimeError("KernelTrace.cut needs the windowed feed")
        if self._adopted:
            return
        if ran is not None:
            self._adopted = True
            for ch in list(self.open_chunks):
                ch.drop()
            lc, st = self._lc, self.stats
            st.thread_insn, st.warp_insn, st.active_insn = ran.stats.thread_insn, ran.stats.warp_insn, \
                ran.stats.active_insn
            st.cold_reads, st.cold_writes = ran.stats.cold_reads, ran.stats.cold_writes
            st.tx_reads, st.tx_writes = ran.stats.tx_reads, ran.stats.tx_writes
            lc.pc_thread, lc.pc_warp, lc.pc_active = ran.pc_thread, ran.pc_warp, ran.pc_active
            lc.pc_issued = ran.pc_issued     # (the screen handed the run over: no copy)
            lc.pc_generic = ran.pc_generic
            return
        self._unrecorded = True
        for ch in list(self.open_chunks):
            ch.finish_unrecorded()

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
        # the functional run (its registers: ~25 MB for 65,536 threads of a matmul), released
        # when the chunk closes: its streams keep the chunk until their warps are timed
        self.ex: Exec | None = ex
        self.rec: TraceRecorder | None = TraceRecorder(ex.W, kt.shared_cfg)
        ex.hooks.trace = self.rec
        self.run: engine.BatchedRun | None = engine.BatchedRun(ex)
        # a list per warp, not a deque: a warp rarely has more than a few segments queued, and an
        # empty deque is ~600 bytes against a list's 56 (one per warp of every open chunk)
        self.pending: list[list[WarpTrace]] = [[] for _ in range(ex.W)]
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
        t = q.pop(0)
        self.ahead[w] -= len(t)
        return t

    def pump(self, w: int) -> None:
        """Run the chunk until warp ``w`` has ``refill`` new instructions or has exited."""
        ex, rec, run = self.ex, self.rec, self.run
        assert ex is not None and rec is not None and run is not None    # (not closed)
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
        was = gc_pause()
        try:
            if not enough():
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

    def finish_unrecorded(self) -> None:
        """Run every warp of the chunk to its end without recording (:meth:`KernelTrace.cut`)."""
        if self.closed:
            return
        ex, run = self.ex, self.run
        assert ex is not None and run is not None
        ex.hooks.trace = None
        self.pending = [[] for _ in range(ex.W)]
        self.ahead[:] = 0
        run.hold = None
        was = gc_pause()
        try:
            run.run()
        finally:
            if was:
                gc.enable()
        self._close()

    def drop(self) -> None:
        """Close the chunk where it is, its counts left out (:meth:`KernelTrace.cut` given a
        finished run of the launch)."""
        if self.closed:
            return
        self._detach()
        self.pending = [[] for _ in self.pending]

    def _close(self) -> None:
        """Every warp has exited: the chunk's counts join the launch's."""
        engine.fold_chunk(self.kt._lc, self._detach())
        self.kt._maybe_finish()
        release_free()      # the chunk's registers and lane arrays, now free heap

    def _detach(self) -> Exec:
        """Mark the chunk closed, close its engine state and take it off the launch's open
        chunks; returns that state (:meth:`_close` folds its counts into the launch's)."""
        self.closed = True
        ex: Exec | None = self.ex
        assert ex is not None
        ex.hooks.trace = None
        ex.close()
        self.ex = self.rec = self.run = None
        self.kt.open_chunks.remove(self)
        return ex


def record_kernel(lm: Any, kernel: str, grid, block, dyn_smem_bytes: int, params: bytes, *,
                  gmem: Any, printf: Callable[[str], None] | None = None, line_stats: dict | None = None,
                  options: Any = None, cooperative: bool = False,
                  window: int = DEFAULT_WINDOW, shared_cfg: tuple[int, int] | None = None) -> KernelTrace:
    """Validate the launch (raising as ``engine.launch`` does) and return its lazy trace
    (``window``, ``shared_cfg``: see :class:`KernelTrace`)."""
    lc = engine.prepare_launch(lm, kernel, grid, block, dyn_smem_bytes, params, gmem=gmem,
                               driver="batched", printf=printf, line_stats=line_stats,
                               options=options, cooperative=cooperative)
    return KernelTrace(lc, window, shared_cfg)
