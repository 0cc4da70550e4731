"""Live instruction feed: each warp instruction is executed functionally when the core issues it.

This is GPGPU-Sim's own model (checklist "Execution at issue": ``shader_core_ctx::issue_warp``
calls ``func_exec_inst`` right after ``warp_inst_t::issue`` and before the SIMT stack update,
the barrier and the scoreboard reservation).  The timing model decides *when* a warp's next
instruction issues; the warp-step driver of the functional engine (``simt.issue_warp``: one
instruction of one warp, scalar SIMT-stack update) then computes its values, its executed mask
and its lane addresses, so that everything that depends on the interleaving of warps follows
the simulated timing:

* loads and stores take effect at issue, and an ``atom`` on global memory when its first
  request leaves the memory partition (C162, GPGPU-Sim's ``mem_fetch::do_atomic`` at
  ``memory_sub_partition::pop``: ``MemFetch.do_atomic`` -> ``WarpInst.do_atomic`` runs the
  callback the engine queued with ``Exec.defer_atomics``), so ticket counters, queues, locks,
  spin-waits and grid sync see the timed order;
* ``%clock`` reads the core cycle at issue (``gpu_tot_sim_cycle + gpu_sim_cycle``, the low 32
  bits, as ``ptx_thread_info::get_builtin(CLOCK_REG)``; checklist C063: once per SIMT core
  clock); ``%clock64`` reads the same count in 64 bits (GPGPU-Sim 4.2 aborts on it);
* ``%smid`` is the id of the core the CTA runs on and ``%warpid`` the hardware warp slot in
  that core (``m_hw_sid`` / ``m_hw_wid``).

Which feed a kernel gets: ``-gpgpusim_timing_feed auto|trace|live`` (``auto``, the default,
picks live for the kernels :func:`gpgpusim.timing.live_check.needs_live_feed` names and the trace
feed for the rest).  Both feeds hand the core the same thing through the
:class:`~gpgpusim.timing.feed.WarpStream` interface, so for a kernel whose values do not depend
on timing they give identical statistics (``tests/apps/test_live_feed.py``).

How it runs: CTAs are grouped in the same chunks as the batched driver uses
(``engine.prepare_launch``); a chunk's :class:`~gpgpusim.functional.state.Exec` is created when
its first CTA is issued to a core and folded into the launch's counts
(``engine.fold_chunk``) when its last warp has exited, so counts, faults, printf and the
per-line statistics are the engine's own.  Barriers are the engine's too: a warp reaching
``bar.sync`` is released functionally when the last warp of its CTA arrives, which is never
later than the core's own barrier releases it.  Memory accesses are recorded by a
:class:`~gpgpusim.timing.recorder.TraceRecorder` (the same merging of vector elements, the same
resolution of generic addresses) and cut per instruction.

Limits: an atom whose lanes' requests go to several partitions is applied whole when the
first of them leaves (GPGPU-Sim applies each request's lanes as it leaves); ``red`` (no
result: the warp may retire before the reply), an ``atom`` into the sink ``_`` and shared-memory
atomics are applied at issue.
The functional step watchdog (``-functional_step_limit``) does not apply; a kernel that never
ends is stopped by the timing model's limits (``-gpgpu_max_cycle``, the deadlock detector).
Cost: about one warp-step per warp instruction (``bench/live_feed_bench.py``), against the
batched driver's vectorised steps for the trace feed.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from gpgpusim.errors import CudaError, Err
from gpgpusim.functional import engine, simt
from gpgpusim.functional.state import Exec
from gpgpusim.hostmem import release_free
from gpgpusim.ptx import ir

from .feed import MemAccess, WarpStream, cut_record
from .recorder import TraceRecorder

__all__ = ["LiveKernel", "LiveWarp", "FEEDS", "choose_feed"]

#: values of ``-gpgpusim_timing_feed``
FEEDS = ("auto", "trace", "live")


def choose_feed(option: Any, live_reason: str | None) -> str:
    """``'trace'`` or ``'live'`` for a kernel: ``option`` is the value of
    ``-gpgpusim_timing_feed``, ``live_reason`` what ``needs_live_feed`` said about it."""
    opt = str(option or "auto").strip().lower()
    if opt not in FEEDS:
        raise CudaError(Err.InvalidValue, f"-gpgpusim_timing_feed {option!r}: expected one of "
                                          f"{', '.join(FEEDS)}")
    if opt == "auto":
        return "live" if live_reason else "trace"
    return opt


class _StepRecorder(TraceRecorder):
    """Records the memory accesses of one warp instruction (``access`` is the trace feed's);
    issues leave no per-issue record."""

    __slots__ = ("last_active",)

    def __init__(self) -> None:
        super().__init__()
        self.last_active = 0

    def issue(self, ex: Exec, p: int, G: np.ndarray, masks: np.ndarray, sel, esel, mem: bool) -> None:
        # (the warp-step driver's fallback to the group issue, for one warp)
        self.seq += 1
        self.mem_on = mem
        self.last_active = int(masks[0])

    def issue1(self, w: int, p: int, mask: int, emask: int, mem: bool) -> None:
        self.seq += 1
        self.mem_on = mem
        self.last_active = mask     # the SIMT-active lanes of the instruction just stepped


class _LiveChunk:
    """One chunk of CTAs executing live: its ``Exec`` and the hardware placement of its warps
    (the ``Exec.hooks.hw`` hook that supplies ``%clock``/``%smid``/``%warpid``)."""

    __slots__ = ("kernel", "ex", "rec", "live", "now", "smid", "hwid", "last", "closed")

    def __init__(self, kernel: LiveKernel, ex: Exec, last: bool) -> None:
        self.kernel = kernel
        # released when the chunk closes (its warps' streams stay with the cores after exit)
        self.ex: Exec | None = ex
        self.rec = _StepRecorder()
        ex.hooks.trace = self.rec
        ex.hooks.hw = self
        ex.defer_atomics = True     # the handler queues each atom on ex.deferred (see issue)
        self.live = ex.W            # warps not yet exited
        self.now = 0                # core cycle of the instruction being executed
        self.smid = np.zeros(ex.N, dtype=np.uint32)
        self.hwid = np.zeros(ex.N, dtype=np.uint32)
        self.last = last            # the launch's last chunk (frees the cooperative workspace)
        self.closed = False

    def special(self, name: str) -> np.ndarray:
        """``Exec.special`` for ``state.HW_SPECIALS`` (per lane; handlers index it)."""
        ex = self.ex
        assert ex is not None           # (the hook is removed when the chunk closes)
        N = ex.N
        if name == "%clock":
            return np.broadcast_to(np.uint32(self.now & 0xFFFFFFFF), (N,))
        if name == "%clock64":
            return np.broadcast_to(np.uint64(self.now), (N,))
        if name == "%smid":
            return self.smid
        return self.hwid            # %warpid

    def warp_exited(self) -> None:
        self.live -= 1
        if self.live == 0:
            self.close()

    def close(self) -> None:
        """The chunk's last warp exited: its counts join the launch's."""
        if self.closed:
            return
        self.closed = True
        k = self.kernel
        ex: Exec | None = self.ex
        assert ex is not None
        ex.hooks.trace = None
        ex.hooks.hw = None
        ex.close()
        if self.last and k.workspace is not None:
            k.lc.gmem.free(k.workspace)
            k.workspace = None
        engine.fold_chunk(k.lc, ex)
        self.ex = None      # (an atomic still in flight keeps what it needs in its callback)
        ex = None
        k.open_chunks.discard(self)
        release_free()      # the chunk's registers and lane arrays, now free heap


class LiveWarp(WarpStream):
    """The live feed's ``feed.WarpStream``: warp ``w`` of a chunk, stepped at issue."""

    __slots__ = ("chunk", "w", "pc")

    def __init__(self, chunk: _LiveChunk, w: int) -> None:
        self.chunk = chunk
        self.w = w
        ex = chunk.ex
        assert ex is not None
        d = int(ex.depth[w])
        self.pc: int = int(ex.spc[w, d - 1]) if d else -1
        insts = ex.prog.insts
        while self.pc >= 0 and not insts[self.pc].counted and insts[self.pc].inst is not None:
            # PTXPlus helper lines before the first SASS instruction (the entry's setp of %pt,
            # the first instruction's operand lines) run before it is fetched
            simt.issue_warp(ex, w, self.pc)
            ex.steps += 1
            d = int(ex.depth[w])
            self.pc = int(ex.spc[w, d - 1]) if d else -1

    def attach(self, sid: int, slot: int) -> None:
        lo = self.w << 5
        self.chunk.smid[lo:lo + 32] = sid
        self.chunk.hwid[lo:lo + 32] = slot

    def active(self) -> int:
        ex = self.chunk.ex
        assert ex is not None           # (asked of a warp that has not exited)
        w = self.w
        return int(ex.smask[w, int(ex.depth[w]) - 1])

    def issue(self, now: int) -> tuple[int, int, Sequence[Any] | None]:
        ch = self.chunk
        ex = ch.ex
        w = self.w
        p = self.pc
        if p < 0 or ex is None or ex.at_bar[w] >= 0:
            raise CudaError(Err.LaunchFailure,
                            f"live feed: warp {w} of {ch.kernel.kernel} issued "
                            + ("after its exit" if p < 0 or ex is None else f"while waiting at barrier {int(ex.at_bar[w])}"),
                            sticky=True)
        ch.now = now
        rec = ch.rec
        emask = simt.issue_warp(ex, w, p)
        ex.steps += 1
        active = rec.last_active
        mem: list[MemAccess] | None = None
        if rec.recs:
            out: list[MemAccess] = []
            for r in rec.recs:
                cut_record(r, w, out)
            rec.recs = []
            if out:
                mem = out
        if ex.deferred:
            self._defer(ex, p, mem)
        d = int(ex.depth[w])
        insts = ex.prog.insts
        while d and ex.at_bar[w] < 0:
            # pseudo instructions (a function's or the kernel's end: return values, frame pop,
            # exit) are not PTX instructions, nor are PTXPlus helper lines: they run with the
            # instruction before them, as the trace feed, which records only counted
            # instructions, has it
            q = int(ex.spc[w, d - 1])
            if insts[q].counted:
                break
            simt.issue_warp(ex, w, q)
            ex.steps += 1
            d = int(ex.depth[w])
        if d:
            self.pc = int(ex.spc[w, d - 1])
        else:
            self.pc = -1
            ch.warp_exited()
        return emask, active, mem


    @staticmethod
    def _defer(ex: Exec, p: int, mem: list[MemAccess] | None) -> None:
        """An atomic just issued: an ``atom`` on global memory runs when its first request
        leaves the memory partition (C162, ``WarpInst.do_atomic``); the rest run now."""
        cbs = ex.deferred
        ex.deferred = []
        inst = ex.prog.insts[p].inst
        # (an atom with a destination register: the warp cannot retire, nor read the result,
        # before the reply, which comes after the partition exit)
        if inst is not None and inst.opcode == "atom" and mem and isinstance(inst.operands[0], ir.Reg):
            for acc in mem:
                if acc.is_atomic and acc.space == "global":
                    def run(cbs: list = cbs) -> None:
                        for cb in cbs:
                            cb()
                    acc.on_exit = run
                    return
        for cb in cbs:
            cb()


class LiveKernel:
    """A kernel launch fed live: the same attributes as ``kernel_trace.KernelTrace`` that the GPU
    reads (``prog``, ``ncta``, ``warps_per_cta``, ``stats``, :meth:`streams`)."""

    def __init__(self, lc: engine.LaunchChunks) -> None:
        self.lc = lc
        self.prog = lc.prog
        self.kernel: str = lc.kernel
        self.grid = lc.grid
        self.block = lc.block
        self.ncta: int = lc.total
        self.warps_per_cta: int = (lc.block[0] * lc.block[1] * lc.block[2] + 31) // 32
        self.stats: engine.KernelStats = lc.stats   # complete once streams() is exhausted
        self.workspace: int | None = None
        self.open_chunks: set[_LiveChunk] = set()
        self.done = False
        self._started = False

    def streams(self) -> Iterator[tuple[int, list[LiveWarp]]]:
        """``(CTA id, its warps' streams)`` in CTA id order; a chunk's ``Exec`` is made when
        its first CTA is taken.  Exhausting the iterator (the GPU does when the kernel has
        finished) completes ``stats``."""
        if self._started:
            raise RuntimeError(f"LiveKernel({self.kernel}).streams() can be iterated only once")
        self._started = True
        return self._gen()

    def _gen(self) -> Iterator[tuple[int, list[LiveWarp]]]:
        lc = self.lc
        if lc.cooperative:
            self.workspace = lc.gmem.allocate(64)
        per, total = lc.per, lc.total
        Wc = self.warps_per_cta
        try:
            for c0 in range(0, total, per):
                ids = list(range(c0, min(total, c0 + per)))
                ex = engine.chunk_exec(lc, ids, self.workspace)
                ch = _LiveChunk(self, ex, c0 + per >= total)
                self.open_chunks.add(ch)
                for c, cid in enumerate(ids):
                    yield cid, [LiveWarp(ch, c * Wc + i) for i in range(Wc)]
            for ch in list(self.open_chunks):
                # drained before its warps finished (the timing model stopped the kernel early):
                # they run to the end on the batched driver, as the trace feed's remaining
                # chunks do (atomics still in flight in the memory system are not applied)
                rest = ch.ex
                assert rest is not None     # (open)
                rest.hooks.trace = None
                rest.hooks.hw = None
                rest.defer_atomics = False
                rest.deferred = []
                engine.run_batched(rest)
                ch.close()
            engine.finish_launch(lc)
            self.done = True
        finally:
            if not self.done:        # closed early (the launch failed or was aborted)
                self.abandon()

    def abandon(self) -> None:
        """The launch failed: release the chunks' resources without counting them."""
        for ch in list(self.open_chunks):
            if ch.ex is not None:
                ch.ex.close()
            ch.closed = True
        self.open_chunks.clear()
        if self.workspace is not None:
            self.lc.gmem.free(self.workspace)
            self.workspace = None
