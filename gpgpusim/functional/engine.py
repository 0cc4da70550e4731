"""The functional engine: executes PTX kernels on numpy register files.

GPGPU-Sim counterparts: ``ptx_thread_info`` / ``functionalCoreSim`` / ``simt_stack``
(``cuda-sim/cuda-sim.cc``, ``abstract_hardware_model.cc``); checklist C089 (per-warp PDOM SIMT
stack), C162 (deferred atomics), C019/C020/C204 (debug traces), C226-C231 (memory spaces).

One implementation of instruction execution (:mod:`.simt`: ``_issue``, one PTX instruction for
a group of warps that share a pc; ``issue_warp``, its single-warp form with the same counting
and guard rule, ``_count``, and scalar SIMT-stack moves) serves two drivers:

* **batched** (``-gpgpu_ptx_sim_mode 1``, pure functional): :func:`run_batched` repeatedly
  picks the lowest pc among the runnable warps of *all* resident CTAs and issues it for every
  warp at that pc at once, so Python's per-instruction cost is paid once for thousands of
  threads.  When every warp is at the pc with a full mask, operands are whole register arrays
  (no gather/scatter at all).
* **warp step**: :meth:`CtaState.step` issues one instruction for one warp and reports the
  active mask, pcs and per-lane memory addresses (what the timing model needs at issue);
  atomics can be deferred and applied later by calling ``StepResult.atomic_callback`` (C162).

SIMT stack (C089, ``-gpgpu_simd_model 1``): per warp, entries ``(pc, reconvergence pc, mask)``
held in ``(warps, depth)`` numpy arrays so that branches of many warps update at once.  A
divergent branch turns the top entry into the reconvergence entry (pc = immediate
post-dominator) and pushes both paths in increasing pc order, as GPGPU-Sim's
``simt_stack::update`` does (so the path with the higher pc runs first: the taken side of a
forward branch); an entry whose pc reaches its reconvergence pc is popped.  ``call`` pushes an entry
for the calling lanes that is popped by the callee's exit pseudo instruction.

Instruction counting (equal to GPGPU-Sim 4.2's for all 22 kernels of the reference programs,
``bench/functional_counts.py``; e.g. vectoradd 1,376,256 / 45,056, reduce 10,747,392 / 371,200):

* ``warp_insn`` (``gpgpu_n_tot_w_icount``): one per warp per issued instruction, guarded or
  not, including ``ret``/``exit``;
* ``thread_insn`` (``gpu_sim_insn``): the lanes that are active *and* whose guard predicate is
  true (a ``@%p bra`` whose predicate is false in a lane is not counted for that lane).

Scheduling in the batched driver does not change any count (the SIMT stack alone decides
which warp instructions exist); it only decides the order in which warps' instructions run,
which matters for inter-warp communication: every ``_FAIR_PERIOD`` steps the longest-waiting
warp is served, so spin locks between warps make progress.  With few resident warps
(``_SMALL_W``) the batched driver issues warp by warp with scalar bookkeeping.

Faults: out-of-bounds / unmapped -> ``CudaError(IllegalAddress, sticky)``, misaligned ->
``MisalignedAddress``, ``trap`` -> ``LaunchFailure``, device ``assert`` -> ``Assert``, a
barrier that can never complete -> ``LaunchFailure`` (deadlock), more than
``functional_step_limit`` issue steps -> ``LaunchTimeout`` (watchdog); messages name the
kernel, block, thread, PTX file:line and instruction text.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from gpgpusim.errors import CudaError, Err
from gpgpusim.ptx import ir

from . import decode as dec
from .handlers import make_handler
from .loader import LoadedModule
from .memory import GlobalMemory
from .simt import _issue, issue_warp
from .state import Exec


@dataclass(slots=True)
class KernelStats:
    """What one launch did (per kernel, GPGPU-Sim's ``gpu_sim_insn`` etc.)."""

    kernel: str
    thread_insn: int = 0
    warp_insn: int = 0
    active_insn: int = 0      # lanes active at issue, guard true or false (functional-mode count)
    ctas: int = 0
    opcode_counts: dict[str, int] = field(default_factory=dict)   # thread-level, by opcode
    line_stats: dict[int, list[int]] | None = None    # PTX line -> [warp, thread, active lanes]
    wall_s: float = 0.0
    #: sectors of global memory the launch was first to read / to write (``sectors.SectorLog``;
    #: 0 when the memory keeps no log)
    cold_reads: int = 0
    cold_writes: int = 0
    #: global-memory transactions: the 32-byte sectors each warp's load (``tx_reads``) and
    #: store or atomic (``tx_writes``) touched, summed (``mem_insts.count_transactions``; 0
    #: when the memory keeps no sector log)
    tx_reads: int = 0
    tx_writes: int = 0
    #: thread instructions (lanes active and guard true) per pc issued, in pc order: what the
    #: timing model's per-space memory-instruction counters count (``timing/projection.py``)
    pc_thread: dict[int, int] = field(default_factory=dict)
    #: per pc of a generic-address memory instruction: its thread instructions by the space the
    #: timing model counts them under, [global, shared, local] (``mem_insts.count_generic``)
    pc_generic: dict[int, list[int]] = field(default_factory=dict)
    #: child grids launched from the device (``cdp.DeviceLaunch``, in launch order), which the
    #: runtime runs after this grid (dynamic parallelism)
    device_launches: list[Any] = field(default_factory=list)


@dataclass(slots=True)
class StepResult:
    """What one warp instruction did (for the timing model)."""

    active_mask: int
    pc: int
    next_pc: int
    opcode: str
    inst: ir.Instruction | None
    exec_mask: int = 0                                        # active and guard true
    mem: list[tuple[str, np.ndarray, int, bool]] = field(default_factory=list)
    is_atomic: bool = False
    is_barrier: bool = False
    is_exit: bool = False
    atomic_callback: Callable[[], None] | None = None


def get_program(lm: LoadedModule, kernel: str) -> dec.Program:
    """The pre-decoded program for ``kernel`` (decoded once per loaded module)."""
    key = ("prog", kernel)
    prog = lm.cache.get(key)
    if prog is None:
        fn = lm.function(kernel)
        if not fn.is_entry:
            raise CudaError(Err.InvalidDeviceFunction, f"{kernel} is a .func, not a kernel (.entry)")
        prog = dec.build_program(lm.module, fn, lambda p, fi, pc, inst: make_handler(lm, p, fi, pc, inst))
        lm.cache[key] = prog
    return prog


# ----------------------------------------------------------------------------- drivers
def run_batched(ex: Exec) -> None:
    """Pure functional mode: issue the lowest pc among runnable warps for all warps there,
    until every warp has exited (:class:`BatchedRun` is the schedule)."""
    BatchedRun(ex).run()


_FAIR_PERIOD = 64
_SMALL_W = 8


class BatchedRun:
    """The batched driver's schedule over one chunk, resumable.

    Lowest-pc-first keeps warps together (a loop's warps re-merge at its head), so most steps
    run every resident warp at once.  For fairness (a warp spinning on a lock held by a warp at
    a higher pc must not starve it), every ``_FAIR_PERIOD`` steps the pc of the warp that has
    waited longest is issued instead.  A chunk of at most ``_SMALL_W`` warps is stepped warp by
    warp (``simt.issue_warp``, scalar bookkeeping), which is cheaper than whole-array steps when
    there is little to vectorise; the schedule is the same.

    :meth:`run` issues until ``until()`` is true after a step, so the timing model's trace feed
    (``gpgpusim.timing.feed``) can run a chunk a window at a time; ``hold`` (a bool per warp,
    or None) keeps the marked warps from issuing, which is how the feed stops warps that are
    far enough ahead of the timing model (it is read at every step, so ``until`` may update
    it in place).  Pausing and resuming do not change the schedule:
    the fairness clock and each warp's last issue step live here, across calls.
    """

    __slots__ = ("ex", "last", "hold")

    def __init__(self, ex: Exec) -> None:
        self.ex = ex
        self.last: Any = [0] * ex.W if ex.W <= _SMALL_W else np.zeros(ex.W, dtype=np.int64)
        self.hold: np.ndarray | None = None

    def run(self, until: Callable[[], bool] | None = None) -> bool:
        """Issue until ``until()`` holds after a step (True), or until no warp can issue
        (False): every warp has exited, or every warp that could issue is held.  Live warps
        that can never issue again (all waiting at barriers that none of them can release)
        are a deadlock (``Exec.deadlock`` raises)."""
        if self.ex.W <= _SMALL_W:
            return self._run_small(until)
        return self._run_big(until)

    def _stuck(self, live: Any) -> bool:
        """No warp can issue: False when held warps could (the caller stops), else a deadlock
        if warps are still live."""
        ex, hold = self.ex, self.hold
        if hold is not None and bool((np.asarray(live) & (ex.at_bar < 0) & hold).any()):
            return False
        if bool(np.asarray(live).any()):
            ex.deadlock()
        return False

    def _run_big(self, until: Callable[[], bool] | None) -> bool:
        ex = self.ex
        ar = ex.warp_ids
        big = np.iinfo(np.int64).max
        limit = ex.step_limit
        issue = _issue
        last = self.last
        hold = self.hold
        rows_d, rows = 0, ar
        while True:
            depth = ex.depth
            live = depth > 0
            if ex.spc.shape[1] != rows_d:       # flat indices of the stacks' rows (a divergent branch may grow them)
                rows_d = ex.spc.shape[1]
                rows = ar * rows_d
            wpc = ex.spc.reshape(-1)[rows + np.maximum(depth - 1, 0)]
            runnable = live & (ex.at_bar < 0)
            if hold is not None:
                runnable &= ~hold
            wpc = np.where(runnable, wpc, big)
            p = int(wpc.min())
            if p == big:
                return self._stuck(live)
            step = ex.steps
            if step % _FAIR_PERIOD == _FAIR_PERIOD - 1:
                oldest = int(np.argmin(np.where(runnable, last, big)))
                p = int(wpc[oldest])
            G = np.flatnonzero(wpc == p)
            last[G] = step
            issue(ex, G, p)
            ex.steps = step + 1
            if step >= limit:
                ex.watchdog()
            if until is not None and until():
                return True

    def _run_small(self, until: Callable[[], bool] | None) -> bool:
        ex = self.ex
        W = ex.W
        big = 1 << 62
        limit = ex.step_limit
        last = self.last
        spc, depth, at_bar = ex.spc, ex.depth, ex.at_bar
        while True:
            dl = depth.tolist()
            bl = at_bar.tolist()
            hold = None if self.hold is None else self.hold.tolist()   # may change between steps
            pcs = [int(spc[w, dl[w] - 1]) if dl[w] and bl[w] < 0 and not (hold and hold[w]) else big
                   for w in range(W)]
            p = min(pcs)
            if p == big:
                return self._stuck(depth > 0)
            step = ex.steps
            if step % _FAIR_PERIOD == _FAIR_PERIOD - 1:
                p = pcs[min((w for w in range(W) if pcs[w] != big), key=lambda w: last[w])]
            for w in range(W):
                if pcs[w] == p:
                    last[w] = step
                    issue_warp(ex, w, p)
                    spc = ex.spc          # a divergent branch may have grown the stack arrays
            ex.steps = step + 1
            if step >= limit:
                ex.watchdog()
            if until is not None and until():
                return True


def run_warps(ex: Exec) -> None:
    """Warp-at-a-time driver (round robin over warps, one instruction per step)."""
    cta = CtaState(ex)
    while True:
        progressed = False
        for w in range(ex.W):
            while ex.depth[w] > 0 and ex.at_bar[w] < 0:
                r = cta.step_warp(w)
                progressed = True
                if r.is_barrier or r.opcode in ("bra", "ret", "call", "exit"):
                    break
                if ex.steps > ex.step_limit:
                    ex.watchdog()
        if not (ex.depth > 0).any():
            return
        if not progressed:
            ex.deadlock()


class WarpState:
    """One warp of a :class:`CtaState` (read-only view for the timing model)."""

    __slots__ = ("cta", "index")

    def __init__(self, cta: CtaState, index: int) -> None:
        self.cta = cta
        self.index = index

    @property
    def pc(self) -> int:
        ex = self.cta.ex
        return int(ex.spc[self.index, max(int(ex.depth[self.index]) - 1, 0)])

    @property
    def active_mask(self) -> int:
        ex = self.cta.ex
        d = int(ex.depth[self.index])
        return int(ex.smask[self.index, d - 1]) if d else 0

    @property
    def done(self) -> bool:
        return int(self.cta.ex.depth[self.index]) == 0

    @property
    def at_barrier(self) -> bool:
        return int(self.cta.ex.at_bar[self.index]) >= 0


class CtaState:
    """Warp-step driver over an :class:`Exec` (one or more CTAs): ``step(warp) -> StepResult``."""

    def __init__(self, ex: Exec) -> None:
        self.ex = ex
        self.warps = [WarpState(self, w) for w in range(ex.W)]

    @classmethod
    def create(cls, lm: LoadedModule, kernel: str, grid, block, dyn_smem_bytes: int, params: bytes,
               *, gmem: GlobalMemory, cta_ids: list[int], printf=None, options=None,
               defer_atomics: bool = False) -> CtaState:
        prog = get_program(lm, kernel)
        ex = Exec(prog, lm, gmem, tuple(grid), tuple(block), dyn_smem_bytes, params, cta_ids,
                  printf=printf, options=options)
        ex.defer_atomics = defer_atomics
        return cls(ex)

    def step(self, warp: WarpState) -> StepResult:
        return self.step_warp(warp.index)

    def step_warp(self, w: int) -> StepResult:
        ex = self.ex
        if ex.depth[w] == 0:
            raise CudaError(Err.IllegalState, f"warp {w} has already exited")
        if ex.at_bar[w] >= 0:
            raise CudaError(Err.IllegalState, f"warp {w} is waiting at barrier {int(ex.at_bar[w])}")
        t = int(ex.depth[w]) - 1
        pc = int(ex.spc[w, t])
        mask = int(ex.smask[w, t])
        ex.rec = []
        ex.deferred = []
        exec_mask = issue_warp(ex, w, pc)
        ex.steps += 1
        d = ex.prog.insts[pc]
        dd = int(ex.depth[w])
        nxt = int(ex.spc[w, dd - 1]) if dd else -1
        r = StepResult(active_mask=mask, pc=pc, next_pc=nxt, opcode=ex.prog.opcode_of[pc],
                       inst=d.inst, exec_mask=exec_mask, mem=ex.rec,
                       is_barrier=d.kind == "bar", is_exit=d.kind in ("exit", "kend"))
        if ex.deferred:
            cbs = ex.deferred
            r.is_atomic = True

            def apply(cbs=cbs):
                for cb in cbs:
                    cb()
            r.atomic_callback = apply
        elif d.inst is not None and d.inst.opcode in ("atom", "red"):
            r.is_atomic = True
        ex.rec = None
        return r


# ----------------------------------------------------------------------------- launch
_launch_counter = [0]
#: threads a chunk of a functional launch holds at most (:func:`prepare_launch`): wide steps
#: for the batched driver, with the chunk's registers bounded
CHUNK_THREADS = 65536


def launch(lm: LoadedModule, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int],
           dyn_smem_bytes: int, params: bytes, *, gmem: GlobalMemory, driver: str = "batched",
           printf: Callable[[str], None] | None = None, line_stats: dict | None = None,
           options: Any = None, cooperative: bool = False) -> KernelStats:
    """Run ``kernel`` over the whole grid functionally; returns its :class:`KernelStats`.

    The grid is processed in chunks of CTAs (at most :data:`CHUNK_THREADS` threads, 65,536,
    resident together) in CTA order.  ``line_stats`` (a dict, filled in place) maps each PTX line
    to ``[warp instructions, thread instructions, lanes active at issue]``; the last counts
    predicated-off lanes too, as GPGPU-Sim's per-line execution counts (and its functional-mode
    instruction total) do (C199).

    ``cooperative`` (``cudaLaunchCooperativeKernel``; additive to the contract): the whole grid
    is resident at once and ``%envreg1:%envreg2`` point to a zeroed grid-barrier workspace, as
    the CUDA driver provides for ``cooperative_groups::grid_group::sync()``.

    The chunk loop (:func:`run_chunks`) is shared with the timing model's trace feed
    (:func:`gpgpusim.timing.kernel_trace.record_kernel`), which runs the same chunks with a recorder
    attached to each chunk's :class:`Exec`.
    """
    lc = prepare_launch(lm, kernel, grid, block, dyn_smem_bytes, params, gmem=gmem, driver=driver,
                        printf=printf, line_stats=line_stats, options=options, cooperative=cooperative)
    for _ in run_chunks(lc):
        pass
    return finish_launch(lc)


@dataclass(slots=True)
class LaunchChunks:
    """A validated launch, split into chunks of CTAs (see :func:`prepare_launch`)."""

    lm: LoadedModule
    prog: dec.Program
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dyn_smem_bytes: int
    params: bytes
    gmem: GlobalMemory
    driver: str
    printf: Callable[[str], None]
    line_stats: dict | None
    options: Any
    cooperative: bool
    per: int                      # CTAs per chunk
    per_full: int                 # CTAs per chunk at the engine's own bound (>= per)
    total: int                    # CTAs in the grid
    gridid: int
    stats: KernelStats
    pc_thread: list[int] | None   # per-pc counts over the chunks (the first chunk's lists)
    pc_warp: list[int] | None
    pc_active: list[int] | None
    pc_issued: set[int]           # the pcs with counts
    t0: float
    #: generic-address instructions' counts by space over the chunks (``KernelStats.pc_generic``)
    pc_generic: dict[int, list[int]] = field(default_factory=dict)


def prepare_launch(lm: LoadedModule, kernel: str, grid, block, dyn_smem_bytes: int, params: bytes, *,
                   gmem: GlobalMemory, driver: str = "batched", printf: Callable[[str], None] | None = None,
                   line_stats: dict | None = None, options: Any = None, cooperative: bool = False,
                   chunk_threads: int | None = None) -> LaunchChunks:
    """Validate a launch and size its chunks (the first half of :func:`launch`): at most
    ``chunk_threads`` threads a chunk (default :data:`CHUNK_THREADS`; the
    ``functional_chunk_threads`` option, where set, overrides both) and ~256 MiB of state."""
    t0 = time.perf_counter()
    if len(grid) != 3 or len(block) != 3 or min(grid) < 1 or min(block) < 1:
        raise CudaError(Err.InvalidConfiguration, f"launch of {kernel}: invalid grid {grid} or block {block}")
    grid = (int(grid[0]), int(grid[1]), int(grid[2]))
    block = (int(block[0]), int(block[1]), int(block[2]))
    nthreads = block[0] * block[1] * block[2]
    if nthreads > 1024 or block[2] > 64 or grid[1] > 65535 or grid[2] > 65535 or grid[0] > 2**31 - 1:
        raise CudaError(Err.InvalidConfiguration,
                        f"launch of {kernel}: block {block} / grid {grid} exceed the device limits")
    prog = get_program(lm, kernel)
    need = prog.kernel.param_bytes
    if len(params) < need:
        raise CudaError(Err.InvalidValue,
                        f"launch of {kernel}: parameter buffer has {len(params)} bytes, kernel needs {need}")
    if printf is None:
        def printf(text: str) -> None:
            sys.stdout.write(text)
            sys.stdout.flush()
    _launch_counter[0] += 1
    forced = _opt(options, "functional_chunk_threads", None)
    full = CHUNK_THREADS if forced is None else int(forced)
    asked = full if forced is not None or chunk_threads is None else chunk_threads
    wpc = (nthreads + 31) // 32 * 32
    # bound the resident state: registers + local frames + shared memory per chunk (~256 MiB)
    per_thread = prog.thread_bytes
    per_cta = per_thread * wpc + prog.static_smem + dyn_smem_bytes
    by_state = (256 << 20) // max(per_cta, 1)
    per = max(1, min(asked // wpc, by_state))
    per_full = max(per, min(full // wpc, by_state))
    total = grid[0] * grid[1] * grid[2]
    if cooperative:
        per = per_full = total
    return LaunchChunks(lm=lm, prog=prog, kernel=kernel, grid=grid, block=block,
                        dyn_smem_bytes=dyn_smem_bytes, params=params, gmem=gmem, driver=driver,
                        printf=printf, line_stats=line_stats, options=options, cooperative=cooperative,
                        per=per, per_full=per_full, total=total, gridid=_launch_counter[0],
                        stats=KernelStats(kernel=kernel),
                        pc_thread=None, pc_warp=None, pc_active=None, pc_issued=set(), t0=t0)


def run_chunks(lc: LaunchChunks, recorder: Callable[[Exec], Any] | None = None) -> Iterator[Exec]:
    """Execute the launch chunk by chunk (CTA order), yielding each chunk's finished
    :class:`Exec` after its counts are added to ``lc``.  ``recorder(ex)``, when given, returns
    the trace recorder attached to each chunk as ``ex.hooks.trace`` before it runs."""
    workspace = None
    if lc.cooperative:
        workspace = lc.gmem.allocate(64)
    per, total = lc.per, lc.total
    for c0 in range(0, total, per):
        ex = chunk_exec(lc, list(range(c0, min(total, c0 + per))), workspace)
        if recorder is not None:
            ex.hooks.trace = recorder(ex)
        try:
            if lc.driver == "batched":
                run_batched(ex)
            elif lc.driver == "warp":
                run_warps(ex)
            else:
                raise CudaError(Err.InvalidValue, f"unknown functional driver {lc.driver!r}")
        finally:
            ex.close()
            if workspace is not None and c0 + per >= total:
                lc.gmem.free(workspace)
        fold_chunk(lc, ex)
        yield ex


def chunk_exec(lc: LaunchChunks, cta_ids: list[int], workspace: int | None) -> Exec:
    """The :class:`Exec` of one chunk of CTAs of ``lc`` (``workspace``: the cooperative
    launch's grid-barrier workspace, or None)."""
    ex = Exec(lc.prog, lc.lm, lc.gmem, lc.grid, lc.block, lc.dyn_smem_bytes, lc.params, cta_ids,
              printf=lc.printf, options=lc.options, gridid=lc.gridid)
    ex.hooks.device_launches = lc.stats.device_launches
    if workspace is not None:
        ex.envreg[1] = workspace >> 32
        ex.envreg[2] = workspace & 0xFFFFFFFF
    return ex


def fold_chunk(lc: LaunchChunks, ex: Exec) -> None:
    """Add a finished chunk's counts to ``lc`` (any order of chunks gives the same totals)."""
    stats = lc.stats
    stats.thread_insn += ex.thread_insn
    stats.warp_insn += ex.warp_insn
    stats.cold_reads += ex.cold_reads
    stats.cold_writes += ex.cold_writes
    stats.tx_reads += ex.tx_reads
    stats.tx_writes += ex.tx_writes
    # only issued pcs have counts (``ex.pc_issued``, every count goes with a warp count):
    # a chunk costs nothing per pc of a huge program that it did not execute
    issued = set(ex.pc_issued)
    ca = ex.pc_active
    stats.active_insn += sum([ca[pc] for pc in issued])
    if lc.pc_warp is None:
        lc.pc_thread, lc.pc_warp, lc.pc_active = ex.pc_thread, ex.pc_warp, ex.pc_active
    else:
        tw, tt, ta = lc.pc_warp, lc.pc_thread, lc.pc_active
        assert tt is not None and ta is not None    # the three are set together
        cw, ct = ex.pc_warp, ex.pc_thread
        for pc in issued:
            tw[pc] += cw[pc]
            tt[pc] += ct[pc]
            ta[pc] += ca[pc]
    lc.pc_issued.update(issued)
    for pc, by_space in ex.pc_generic.items():
        have = lc.pc_generic.get(pc)
        if have is None:
            lc.pc_generic[pc] = list(by_space)
        else:
            for i, n in enumerate(by_space):
                have[i] += n


def finish_launch(lc: LaunchChunks) -> KernelStats:
    """Complete ``lc.stats`` once every chunk has run (the last half of :func:`launch`)."""
    prog, stats = lc.prog, lc.stats
    stats.ctas = lc.total
    issued = sorted(lc.pc_issued)          # in pc order, as the counts are reported
    # the per-pc lists stay None only when no chunk ran, and then ``issued`` is empty
    pc_warp: list[int] = [] if lc.pc_warp is None else lc.pc_warp
    pc_thread: list[int] = [] if lc.pc_thread is None else lc.pc_thread
    pc_active: list[int] = [] if lc.pc_active is None else lc.pc_active
    opcode_of = prog.opcode_of
    per_pc = stats.pc_thread
    for pc in issued:
        n = pc_thread[pc]
        if n:
            op = opcode_of[pc]
            stats.opcode_counts[op] = stats.opcode_counts.get(op, 0) + n
            per_pc[pc] = n
    stats.pc_generic = {pc: list(v) for pc, v in lc.pc_generic.items()}
    line_stats = lc.line_stats
    if line_stats is not None:
        insts = prog.insts
        for pc in issued:
            d = insts[pc]
            if d.inst is not None:
                e = line_stats.setdefault(d.line, [0, 0, 0])
                e[0] += int(pc_warp[pc])
                e[1] += int(pc_thread[pc])
                e[2] += int(pc_active[pc])
        stats.line_stats = line_stats
    stats.wall_s = time.perf_counter() - lc.t0
    counts_file = os.environ.get("GPGPUSIM_FUNCTIONAL_COUNTS_FILE")
    if counts_file:     # debugging/benchmark aid: one line per launch
        with open(counts_file, "a") as f:
            f.write(f"{lc.kernel} grid={lc.grid} block={lc.block} thread_insn={stats.thread_insn} "
                    f"warp_insn={stats.warp_insn} wall_s={stats.wall_s:.3f}\n")
    return stats


def _opt(options: Any, name: str, default: Any) -> Any:
    try:
        v = options.get(name)
    except (AttributeError, KeyError):
        return default
    return default if v is None else v


def env_debug() -> tuple[int, int | None]:
    lvl = dec.debug_level()
    uid = os.environ.get("PTX_SIM_DEBUG_THREAD_UID")
    return lvl, (int(uid) if uid not in (None, "") else None)
