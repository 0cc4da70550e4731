"""The functional engine: executes PTX kernels on numpy register files.

GPGPU-Sim counterparts: ``ptx_thread_info`` / ``functionalCoreSim`` / ``simt_stack``
(``cuda-sim/cuda-sim.cc``, ``abstract_hardware_model.cc``); checklist C089 (per-warp PDOM SIMT
stack), C162 (deferred atomics), C019/C020/C204 (debug traces), C226-C231 (memory spaces).

One implementation of instruction execution (:func:`_issue`: one PTX instruction for a group
of warps that share a pc) serves two drivers:

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

from gpgpusim.errors import CudaError, Err, NotSupportedError
from gpgpusim.ptx import ir

from . import decode as dec
from .handlers import make_handler
from .loader import LoadedModule
from .memory import GlobalMemory, MemoryFault
from .state import FULL, Exec

_AR32 = np.arange(32, dtype=np.int64)


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


# ----------------------------------------------------------------------------- issue
def _lanes_of(G: np.ndarray, masks: np.ndarray) -> np.ndarray:
    bits = np.unpackbits(masks.astype("<u4").view(np.uint8).reshape(-1, 4), axis=1,
                         bitorder="little").view(np.bool_)
    return ((G[:, None] << 5) + _AR32)[bits]


def _warp_masks(ex: Exec, lanes: np.ndarray | None, G: np.ndarray) -> np.ndarray:
    """Per-warp uint32 masks (for warps G) of the given lane set (None = all lanes)."""
    if lanes is None:
        return np.full(G.size, FULL, dtype=np.int64)
    out = np.zeros(G.size, dtype=np.int64)
    if lanes.size == 0:
        return out
    if lanes.size * 4 < ex.N:
        # O(lanes): lanes are sorted, so each warp's lanes are contiguous; bits are distinct
        # within a warp, so a segmented sum is the OR
        w = lanes >> 5
        starts = np.flatnonzero(np.concatenate(([True], w[1:] != w[:-1])))
        sums = np.add.reduceat(_BIT[lanes & 31], starts)
        out[np.searchsorted(G, w[starts])] = sums
        return out
    tk = ex.scratch_bool()
    tk[lanes] = True
    m = np.packbits(tk.reshape(-1, 32), axis=1, bitorder="little").view("<u4").ravel()
    tk[lanes] = False
    return m[G].astype(np.int64)


def _reconverge(ex: Exec, G: np.ndarray) -> None:
    spc, srpc, depth = ex.spc, ex.srpc, ex.depth
    while G.size:
        t = depth[G] - 1
        hit = spc[G, t] == srpc[G, t]
        if not hit.any():
            return
        G = G[hit]
        depth[G] -= 1


def _advance(ex: Exec, G: np.ndarray) -> None:
    ex.spc[G, ex.depth[G] - 1] += 1
    _reconverge(ex, G)


def _push(ex: Exec, G: np.ndarray, pc: np.ndarray | int, rpc: np.ndarray | int, mask: np.ndarray) -> None:
    if G.size == 0:
        return
    d = ex.depth[G]
    if int(d.max()) >= ex.spc.shape[1]:
        ex.grow_stack()
    ex.spc[G, d] = pc
    ex.srpc[G, d] = rpc
    ex.smask[G, d] = mask
    ex.depth[G] = d + 1


def _fault(ex: Exec, d: dec.DInst, f: MemoryFault, lanes: np.ndarray | None, space: str) -> CudaError:
    lane = int(lanes[f.lane]) if lanes is not None else f.lane
    where = ex.describe_lane(lane)
    inst = d.inst
    text = str(inst) if inst is not None else d.text
    store = inst is not None and inst.opcode in ("st", "red")
    kind = "write" if store else "read"
    if f.kind == "misaligned":
        return CudaError(Err.MisalignedAddress,
                         f"Misaligned {space} {kind} of size {f.size} bytes in {ex.prog.kernel.name} "
                         f"at {ex.prog.filename}:{d.line} `{text}` by {where}: address {f.address:#x}",
                         sticky=True)
    return CudaError(Err.IllegalAddress,
                     f"Invalid __{space}__ {kind} of size {f.size} bytes in {ex.prog.kernel.name} "
                     f"at {ex.prog.filename}:{d.line} `{text}` by {where}: address {f.address:#x} "
                     f"is out of bounds", sticky=True)


def _issue(ex: Exec, G: np.ndarray, p: int) -> None:
    """Execute instruction ``p`` for warps ``G`` (all at pc ``p``, not waiting at a barrier)."""
    d = ex.prog.insts[p]
    t = ex.depth[G] - 1
    masks = ex.smask[G, t]
    sel: np.ndarray | None
    if G.size == ex.W and bool((masks == ex.init_masks).all()):
        sel = None if ex.dense else ex.valid_lanes    # every thread of every resident CTA
    else:
        sel = _lanes_of(G, masks)
    counted = d.counted       # not exit pseudo-instructions, nor PTXPlus helper lines
    if counted:
        ex.warp_insn += G.size
        pw = ex.pc_warp
        c = pw[p]
        if not c:
            ex.pc_issued.append(p)
        pw[p] = c + G.size
        if ex.wclock is not None:
            ex.wclock[G] += 1
    # guard predicate
    esel = sel
    if d.guard >= 0:
        g = ex.R[d.guard] if sel is None else ex.R[d.guard][sel]
        if d.guard_neg:
            g = ~g
        if not g.all():
            esel = np.flatnonzero(g) if sel is None else sel[g]
    n = ex.N if esel is None else esel.size
    if counted:
        ex.pc_active[p] += ex.N if sel is None else sel.size
    if G.size == 1:
        ex.last_exec_mask = int(np.bitwise_or.reduce(_BIT[esel & 31])) if esel is not None and n else (
            0 if esel is not None else FULL)
    if counted:
        ex.thread_insn += n
        ex.pc_thread[p] += n
    tr = ex.hooks.trace
    if tr is not None:      # timing-model trace feed (gpgpusim.timing.feed): O(1) appends
        if counted:
            tr.issue(ex, p, G, masks, sel, esel, d.mem)
        else:
            tr.mem_on = False
    kind = d.kind
    try:
        if kind == "alu":
            if n:
                d.run(ex, esel)
            _advance(ex, G)
        elif kind == "bra":
            _branch(ex, G, t, masks, esel, d.target, d.rpc, p)
        elif kind == "warp":
            if n:
                d.run(ex, esel)
            _advance(ex, G)
        elif kind == "bar":
            _barrier(ex, d, G, esel, sel)
        elif kind in ("exit", "kend"):
            _exit(ex, G, esel if kind == "exit" else sel)
        elif kind == "ret":
            _branch(ex, G, t, masks, esel, d.target, d.rpc, p)
        elif kind == "call":
            _call(ex, d, G, t, esel)
        elif kind == "icall":
            ex.spc[G, t] += 1
            called = np.zeros(G.size, dtype=bool)
            if esel is None or esel.size:
                for base, lanes in d.run(ex, esel):
                    cm = _warp_masks(ex, lanes, G)
                    has = cm != 0
                    called |= has
                    _push(ex, G[has], base, -2, cm[has])
            _reconverge(ex, G[~called])
        elif kind == "fend":
            d.run(ex, sel)
            ex.depth[G] -= 1
            _reconverge(ex, G)
        elif kind == "trap":
            if n:
                lane = int(esel[0]) if esel is not None else 0
                raise CudaError(Err.LaunchFailure,
                                f"trap in {ex.prog.kernel.name} at {ex.prog.filename}:{d.line} "
                                f"`{d.text}` by {ex.describe_lane(lane)}", sticky=True)
            _advance(ex, G)
        elif kind == "unsup":
            if n:
                raise NotSupportedError(d.extra, sticky=True)
            _advance(ex, G)
        else:  # pragma: no cover - decode produces only the kinds above
            raise AssertionError(kind)
    except MemoryFault as f:
        raise _fault(ex, d, f, ex.fault_lanes if ex.fault_lanes is not None else esel,
                     ex.fault_space) from None
    if ex.debug:
        ex.trace(d, esel)


_BIT = np.left_shift(np.int64(1), np.arange(32, dtype=np.int64))
_SEL_CACHE: dict[int, np.ndarray] = {}     # (warp << 32 | mask) -> the warp's lanes (read-only)
_WARP_ISSUE_KINDS = frozenset(("alu", "warp", "bra", "ret", "exit", "kend", "call", "fend"))
_LANE_CACHE: dict[int, np.ndarray] = {}


def _mask_lanes(mask: int) -> np.ndarray:
    v = _LANE_CACHE.get(mask)
    if v is None:
        v = np.array([i for i in range(32) if mask >> i & 1], dtype=np.int64)
        if len(_LANE_CACHE) < 65536:
            _LANE_CACHE[mask] = v
    return v


def issue_warp(ex: Exec, w: int, p: int) -> int:
    """Issue the instruction at pc ``p`` for warp ``w`` alone: the warp-step driver's entry
    (the live feed of the timing model calls it when a core issues an instruction), with
    scalar SIMT-stack updates for the common kinds.  It exists beside :func:`_issue` because
    one warp's bookkeeping in Python ints costs a fraction of the whole-array steps.

    Same semantics as :func:`_issue` (which it falls back to for indirect calls, barriers,
    traps and unsupported instructions); returns the mask of lanes that executed (active and
    guard true).  Direct calls, returns and function ends are handled here too, so few-thread
    code with calls costs about what straight code does."""
    d = ex.prog.insts[p]
    kind = d.kind
    t = int(ex.depth[w]) - 1
    mask = int(ex.smask[w, t])
    if kind not in _WARP_ISSUE_KINDS:
        _issue(ex, np.array([w], dtype=np.int64), p)
        return ex.last_exec_mask
    key = (w << 32) | mask
    sel = _SEL_CACHE.get(key)
    if sel is None:
        sel = _mask_lanes(mask) + (w << 5)
        sel.flags.writeable = False       # shared between issues: handlers only read lane sets
        if len(_SEL_CACHE) < 65536:
            _SEL_CACHE[key] = sel
    counted = d.counted       # not exit pseudo-instructions, nor PTXPlus helper lines
    if counted:
        ex.warp_insn += 1
        pw = ex.pc_warp
        c = pw[p]
        if not c:
            ex.pc_issued.append(p)
        pw[p] = c + 1
        if ex.wclock is not None:
            ex.wclock[w] += 1
    esel = sel
    emask = mask
    if d.guard >= 0:
        g = ex.R[d.guard][sel]
        if d.guard_neg:
            g = ~g
        if not g.all():
            esel = sel[g]
            emask = int(np.bitwise_or.reduce(_BIT[esel & 31])) if esel.size else 0
    n = esel.size
    if counted:
        ex.thread_insn += n
        ex.pc_active[p] += sel.size
        ex.pc_thread[p] += n
    tr = ex.hooks.trace
    if tr is not None:      # timing-model trace feed (gpgpusim.timing.feed)
        if counted:
            tr.issue1(w, p, mask, emask, d.mem)
        else:
            tr.mem_on = False
    if kind == "exit" or kind == "kend":
        if kind == "kend":
            esel, emask = sel, mask
        ex.exited[esel] = True
        ex.spc[w, t] = p + 1
        keep = ~emask
        for lvl in range(t + 1):
            ex.smask[w, lvl] &= keep
        while t >= 0 and ex.smask[w, t] == 0:
            t -= 1
        spc, srpc = ex.spc, ex.srpc
        while t >= 0 and spc[w, t] == srpc[w, t]:
            t -= 1
        ex.depth[w] = t + 1
        if t < 0:
            ex.warp_done(np.array([w], dtype=np.int64))
        if ex.debug:
            ex.trace(d, esel)
        return emask
    try:
        if kind == "alu" or kind == "warp":
            if n:
                d.run(ex, esel)
            ex.spc[w, t] = p + 1
        elif kind == "call":       # as _call: the caller's entry moves on; a callee entry is pushed
            ex.spc[w, t] = p + 1
            if n:
                d.run(ex, esel)        # copies arguments, sets up the callee frame (or a builtin)
            callee = d.extra
            if callee is not None and emask:
                if t + 1 >= ex.spc.shape[1]:
                    ex.grow_stack()
                t += 1
                ex.spc[w, t] = callee.base
                ex.srpc[w, t] = -2
                ex.smask[w, t] = emask
        elif kind == "fend":       # the callee's end: return values, frame pop, then the caller
            d.run(ex, sel)
            t -= 1
        else:                      # bra, ret (a branch to the function's end)
            if emask == mask:
                ex.spc[w, t] = d.target
            elif emask == 0:
                ex.spc[w, t] = p + 1
            else:
                rpc = d.rpc
                ex.spc[w, t] = rpc
                if t + 2 >= ex.spc.shape[1]:
                    ex.grow_stack()
                lo, hi = ((p + 1, mask & ~emask), (d.target, emask)) if d.target > p + 1 else \
                    ((d.target, emask), (p + 1, mask & ~emask))
                ex.spc[w, t + 1] = lo[0]
                ex.srpc[w, t + 1] = rpc
                ex.smask[w, t + 1] = lo[1]
                ex.spc[w, t + 2] = hi[0]
                ex.srpc[w, t + 2] = rpc
                ex.smask[w, t + 2] = hi[1]
                t += 2
                ex.depth[w] = t + 1
    except MemoryFault as f:
        raise _fault(ex, d, f, ex.fault_lanes if ex.fault_lanes is not None else esel,
                     ex.fault_space) from None
    spc, srpc = ex.spc, ex.srpc
    while t >= 0 and spc[w, t] == srpc[w, t]:
        t -= 1
    ex.depth[w] = t + 1
    if ex.debug:
        ex.trace(d, esel)
    return emask


def _branch(ex: Exec, G, t, masks, esel, target: int, rpc: int, p: int) -> None:
    tm = _warp_masks(ex, esel, G) & masks
    taken_all = tm == masks
    none = tm == 0
    spc = ex.spc
    if bool(taken_all.all()):
        spc[G, t] = target
        _reconverge(ex, G)
        return
    if bool(none.all()):
        spc[G, t] = p + 1
        _reconverge(ex, G)
        return
    div = ~(taken_all | none)
    if taken_all.any():
        spc[G[taken_all], t[taken_all]] = target
    if none.any():
        spc[G[none], t[none]] = p + 1
    D = G[div]
    td = t[div]
    spc[D, td] = rpc
    # GPGPU-Sim pushes the divergent paths in increasing pc order, so the higher pc runs first
    if target > p + 1:
        _push(ex, D, p + 1, rpc, masks[div] & ~tm[div])
        _push(ex, D, target, rpc, tm[div])
    else:
        _push(ex, D, target, rpc, tm[div])
        _push(ex, D, p + 1, rpc, masks[div] & ~tm[div])
    _reconverge(ex, G)


def _exit(ex: Exec, G: np.ndarray, esel) -> None:
    em = _warp_masks(ex, esel, G)
    ex.spc[G, ex.depth[G] - 1] += 1
    ex.smask[G, :] &= ~em[:, None]
    if esel is None:
        ex.exited[:] = True
    else:
        ex.exited[esel] = True
    H = G
    while H.size:
        t = ex.depth[H] - 1
        e = (ex.smask[H, np.maximum(t, 0)] == 0) & (t >= 0)
        if not e.any():
            break
        H = H[e]
        ex.depth[H] -= 1
    _reconverge(ex, G[ex.depth[G] > 0])
    done = G[ex.depth[G] == 0]
    if done.size:
        ex.warp_done(done)


def _call(ex: Exec, d: dec.DInst, G, t, esel) -> None:
    callee = d.extra
    ex.spc[G, t] += 1
    if callee is None:           # builtin (vprintf, malloc, free): runs in place
        if esel is None or esel.size:
            d.run(ex, esel)
        _reconverge(ex, G)
        return
    cm = _warp_masks(ex, esel, G) & ex.smask[G, t]
    has = cm != 0
    if esel is None or esel.size:
        d.run(ex, esel)          # copies arguments, sets up the callee frame
    _push(ex, G[has], callee.base, -2, cm[has])
    _reconverge(ex, G[~has])


def _barrier(ex: Exec, d: dec.DInst, G, esel, sel) -> None:
    op, bar_id, count = d.extra[0], d.extra[1](ex, sel), d.extra[2]
    expected = None if count is None else count(ex, sel)
    ex.spc[G, ex.depth[G] - 1] += 1
    if op == "red":
        d.run(ex, esel, sel)
    if op in ("sync", "red"):
        ex.at_bar[G] = bar_id
    ex.arrive(bar_id, G, expected, d)


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
    warp (:func:`issue_warp`, scalar bookkeeping), which is cheaper than whole-array steps when
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
        while True:
            depth = ex.depth
            live = depth > 0
            wpc = ex.spc[ar, np.maximum(depth - 1, 0)]
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


def launch(lm: LoadedModule, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int],
           dyn_smem_bytes: int, params: bytes, *, gmem: GlobalMemory, driver: str = "batched",
           printf: Callable[[str], None] | None = None, line_stats: dict | None = None,
           options: Any = None, cooperative: bool = False) -> KernelStats:
    """Run ``kernel`` over the whole grid functionally; returns its :class:`KernelStats`.

    The grid is processed in chunks of CTAs (at most ``chunk_threads`` threads, default 65,536,
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
    total: int                    # CTAs in the grid
    gridid: int
    stats: KernelStats
    pc_thread: list[int] | None   # per-pc counts over the chunks (the first chunk's lists)
    pc_warp: list[int] | None
    pc_active: list[int] | None
    pc_issued: set[int]           # the pcs with counts
    t0: float


def prepare_launch(lm: LoadedModule, kernel: str, grid, block, dyn_smem_bytes: int, params: bytes, *,
                   gmem: GlobalMemory, driver: str = "batched", printf: Callable[[str], None] | None = None,
                   line_stats: dict | None = None, options: Any = None,
                   cooperative: bool = False) -> LaunchChunks:
    """Validate a launch and size its chunks (the first half of :func:`launch`)."""
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
    chunk_threads = 65536
    if options is not None:
        chunk_threads = int(_opt(options, "functional_chunk_threads", chunk_threads))
    wpc = (nthreads + 31) // 32 * 32
    # bound the resident state: registers + local frames + shared memory per chunk (~256 MiB)
    per_thread = prog.thread_bytes
    per_cta = per_thread * wpc + prog.static_smem + dyn_smem_bytes
    per = max(1, min(chunk_threads // wpc, (256 << 20) // max(per_cta, 1)))
    total = grid[0] * grid[1] * grid[2]
    if cooperative:
        per = total
    return LaunchChunks(lm=lm, prog=prog, kernel=kernel, grid=grid, block=block,
                        dyn_smem_bytes=dyn_smem_bytes, params=params, gmem=gmem, driver=driver,
                        printf=printf, line_stats=line_stats, options=options, cooperative=cooperative,
                        per=per, total=total, gridid=_launch_counter[0], stats=KernelStats(kernel=kernel),
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
    for pc in issued:
        n = pc_thread[pc]
        if n:
            op = opcode_of[pc]
            stats.opcode_counts[op] = stats.opcode_counts.get(op, 0) + n
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
