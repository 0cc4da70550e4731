"""SIMT issue: one PTX instruction for a group of warps at one pc (:func:`_issue`), or for one
warp (:func:`issue_warp`), with the per-warp SIMT stack moves.

GPGPU-Sim counterparts: ``simt_stack::update`` and ``ptx_thread_info``'s per-instruction
bookkeeping (checklist C089).  :mod:`gpgpusim.functional.engine` has the drivers that call it
and describes the stack, the counting rules and the faults.
"""

from __future__ import annotations

import numpy as np

from gpgpusim.errors import CudaError, Err, NotSupportedError

from . import decode as dec
from .memory import MemoryFault
from .state import FULL, Exec

_AR32 = np.arange(32, dtype=np.int64)


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
    """Pop the stack entries of warps ``G`` whose pc has reached their reconvergence pc."""
    D = ex.spc.shape[1]
    spc, srpc, depth = ex.spc.reshape(-1), ex.srpc.reshape(-1), ex.depth
    while G.size:
        f = G * D + depth[G] - 1        # flat indices of the top entries (2-D fancy indexing costs twice as much)
        hit = spc[f] == srpc[f]
        if not hit.any():
            return
        G = G[hit]
        depth[G] -= 1


def _advance(ex: Exec, G: np.ndarray, t: np.ndarray | None = None) -> None:
    """Move warps ``G`` (top entries at depth index ``t``, computed when None) to the next
    instruction, then reconverge."""
    D = ex.spc.shape[1]
    spc = ex.spc.reshape(-1)
    f = G * D + (ex.depth[G] - 1 if t is None else t)
    v = spc[f] + 1
    spc[f] = v
    hit = v == ex.srpc.reshape(-1)[f]     # _reconverge's first round, on the values in hand
    if hit.any():
        H = G[hit]
        ex.depth[H] -= 1
        _reconverge(ex, H)


def _group_lanes(ex: Exec, G: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``_lanes_of(G, masks)``, kept for the last group of warps: inside a divergent region
    instruction after instruction issues for the same warps with the same masks (the lanes are
    read-only; a big group's comparison costs a few percent of building them again)."""
    if G.size < 64:
        return _lanes_of(G, masks)
    last = ex.last_group
    if last is not None and last[0].size == G.size and np.array_equal(last[0], G) \
            and np.array_equal(last[1], masks):
        return last[2]
    sel = _lanes_of(G, masks)
    sel.flags.writeable = False
    ex.last_group = (G, masks, sel)
    return sel


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


def _count(ex: Exec, d: dec.DInst, p: int, G: np.ndarray | int, nw: int, sel: np.ndarray | None) -> np.ndarray | None:
    """The issue rule both paths share, before the SIMT stack moves: count instruction ``d`` at
    pc ``p`` issued for ``nw`` warps ``G`` (an array, or one warp's index) whose active lanes
    are ``sel`` (None = every lane of ``ex``), evaluate its guard predicate, count the lanes it
    executes for (a PTXPlus branch: the lanes of its SASS instruction's guard,
    ``DInst.count_guard``); returns those lanes (``sel`` itself when the guard is true in every
    one)."""
    counted = d.counted       # not exit pseudo-instructions, nor PTXPlus helper lines
    if counted:
        ex.warp_insn += nw
        pw = ex.pc_warp
        c = pw[p]
        if not c:
            ex.pc_issued.append(p)
        pw[p] = c + nw
        if ex.wclock is not None:
            ex.wclock[G] += 1
    esel = sel
    if d.guard >= 0:
        g = ex.R[d.guard] if sel is None else ex.R[d.guard][sel]
        if d.guard_neg:
            g = ~g
        if not g.all():
            esel = np.flatnonzero(g) if sel is None else sel[g]
    if counted:
        cg = d.count_guard
        if cg == -2:
            n = ex.N if esel is None else esel.size
        elif cg == -1:              # a PTXPlus branch without a SASS guard: every active lane
            n = ex.N if sel is None else sel.size
        else:                       # a PTXPlus branch whose SASS guard is not its PTX guard
            cgv = ex.R[cg] if sel is None else ex.R[cg][sel]
            n = int(np.count_nonzero(~cgv if d.count_guard_neg else cgv))
        ex.thread_insn += n
        ex.pc_active[p] += ex.N if sel is None else sel.size
        ex.pc_thread[p] += n
    return esel


def _issue(ex: Exec, G: np.ndarray, p: int) -> None:
    """Execute instruction ``p`` for warps ``G`` (all at pc ``p``, not waiting at a barrier)."""
    d = ex.prog.insts[p]
    t = ex.depth[G] - 1
    masks = ex.smask[G, t]
    sel: np.ndarray | None
    if G.size == ex.W and bool((masks == ex.init_masks).all()):
        sel = None if ex.dense else ex.valid_lanes    # every thread of every resident CTA
    else:
        sel = _group_lanes(ex, G, masks)
    esel = _count(ex, d, p, G, G.size, sel)
    n = ex.N if esel is None else esel.size
    if G.size == 1:
        ex.last_exec_mask = int(np.bitwise_or.reduce(_BIT[esel & 31])) if esel is not None and n else (
            0 if esel is not None else FULL)
    tr = ex.hooks.trace
    if tr is not None:      # timing-model trace feed (gpgpusim.timing.feed): O(1) appends
        if d.counted:
            tr.issue(ex, p, G, masks, sel, esel, d.mem)
        else:
            tr.mem_on = False
    kind = d.kind
    try:
        if kind == "alu":
            if n:
                d.run(ex, esel)
            _advance(ex, G, t)
        elif kind == "bra":
            _branch(ex, G, t, masks, esel, d.target, d.rpc, p)
        elif kind == "warp":
            if n:
                d.run(ex, esel)
            _advance(ex, G, t)
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
            _advance(ex, G, t)
        elif kind == "unsup":
            if n:
                raise NotSupportedError(d.extra, sticky=True)
            _advance(ex, G, t)
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
    (the live feed of the timing model calls it when a core issues an instruction, and the
    batched driver for chunks of few warps); returns the mask of lanes that executed (active
    and guard true).

    The rule is :func:`_issue`'s: counting, the guard and the lanes counted are the same
    :func:`_count`; indirect calls, barriers, traps and unsupported instructions go through
    :func:`_issue` itself (a one-warp group).  Only the SIMT-stack moves of the common kinds
    (straight code, branches and returns, direct calls, function ends, exits) are written
    here a second time, in Python ints, as the scalar form of :func:`_advance`,
    :func:`_branch`, :func:`_call` and :func:`_exit`: issuing those through :func:`_issue`
    with a one-warp group costs about three times as much per instruction (whole-array steps
    on one warp; ``bench/functional_bench.py --driver warp``: vectoradd 0.5 s -> 1.7 s)."""
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
    esel = _count(ex, d, p, w, 1, sel)
    assert esel is not None            # the lanes of a lane array are one
    emask = mask if esel is sel else (int(np.bitwise_or.reduce(_BIT[esel & 31])) if esel.size else 0)
    n = esel.size
    tr = ex.hooks.trace
    if tr is not None:      # timing-model trace feed (gpgpusim.timing.feed)
        if d.counted:
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
