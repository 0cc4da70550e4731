"""Memory instruction handlers: ``ld``/``ldu``, ``st``, ``cp.async``, ``atom``/``red``, ``cvta``,
``isspacep`` (GPGPU-Sim's ``ld_impl``, ``st_impl``, ``atom_impl``, ``cvta_impl``, ...).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from gpgpusim.errors import CudaError, Err, NotSupportedError, PtxError
from gpgpusim.functional import semantics
from gpgpusim.ptx import ir

from . import decode as dec
from .operands import (
    _addr,
    _dests,
    _lane_addrs,
    _mem_type,
    _space_of,
    _vec_of,
    _where,
    make_reader,
    make_writer,
    sym_address,
)
from .memory import WINDOW_SHIFT
from .state import LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE, Exec


def count_generic(ex: Exec, pc: int, a: np.ndarray, lanes: np.ndarray) -> None:
    """Count a generic-address memory instruction's lanes (``a``: their addresses) into
    ``ex.pc_generic[pc]`` by the space the timing model counts each warp's lanes under: a
    warp's instruction is of the first window its lanes touch, global before shared before
    local (``timing/feed.py`` splits a generic access into one per window, in that order, and
    ``LdstUnit.issue`` takes the first), so its per-space memory-instruction counters of a
    launch not simulated in detail are exact too (``timing/projection.memory_insn_counts``)."""
    acc = ex.pc_generic.get(pc)
    if acc is None:
        acc = ex.pc_generic[pc] = [0, 0, 0]
    win = np.asarray(a, dtype=np.uint64) >> WINDOW_SHIFT
    if not win.any():                       # every lane global (the usual case)
        acc[0] += int(lanes.size)
        return
    w = lanes >> 5
    n = ex.W
    cnt = np.bincount(w, minlength=n)
    glob = np.bincount(w, weights=win == 0, minlength=n) > 0
    shared = ~glob & (np.bincount(w, weights=win == 1, minlength=n) > 0)
    local = ~glob & ~shared & (np.bincount(w, weights=win == 2, minlength=n) > 0)
    s, l_ = int(cnt[shared].sum()), int(cnt[local].sum())
    acc[0] += int(lanes.size) - s - l_     # (a warp in no window: global, as the timing model)
    acc[1] += s
    acc[2] += l_


#: a transaction's sector: its address above the sector's 32 bytes; in a key of
#: :func:`count_transactions`, the lane's warp above that
_TX_SECTOR = np.uint64(5)
_TX_WARP = 43


def count_transactions(ex: Exec, space: str, a: np.ndarray, lanes: np.ndarray, write: bool) -> None:
    """Count a global load's (``write`` False) or store's or atomic's (True) transactions into
    ``ex.tx_reads`` / ``ex.tx_writes``: the 32-byte sectors of global memory each warp's lanes
    touched, summed over the warps, as the coalescer of the shipped sector-cache configurations
    makes them (``timing/core/coalesce.py``: one access per touched sector and warp; a vector
    access is aligned, so each lane's bytes lie in one sector).  Generic-address lanes count
    when they address the global window.  Kernel sampling scales a projected launch's
    memory-system counts by these (``timing/kernel_sampling.py``, ``traffic_fit``); the
    engine counts only while the memory keeps a sector log (sampling on)."""
    a = np.asarray(a, dtype=np.uint64)
    if a.shape != lanes.shape:           # (one address for every lane)
        a = np.broadcast_to(a, lanes.shape)
    if space == "generic":
        g = (a >> WINDOW_SHIFT) == 0
        if not g.all():
            a, lanes = a[g], lanes[g]
    elif space != "global":
        return
    if not lanes.size:
        return
    sec = (a >> _TX_SECTOR).view(np.int64)
    # lanes in order and each warp's sectors in order (a coalesced access): count the runs
    if lanes is ex.all_lanes:
        # every lane of the chunk: its warps are the rows of 32
        rows = sec.reshape(-1, 32)
        d = rows[:, 1:] - rows[:, :-1]
        n = ex.W + int(np.count_nonzero(d)) if d.min() >= 0 else -1
    elif lanes.size == 1:
        n = 1
    else:
        key = (lanes.astype(np.int64, copy=False) >> 5 << _TX_WARP) | sec
        d = key[1:] - key[:-1]
        n = 1 + int(np.count_nonzero(d)) if d.min() >= 0 else -1
    if n < 0:
        n = _distinct_per_warp(ex, sec, lanes)
    if write:
        ex.tx_writes += n
    else:
        ex.tx_reads += n


def _distinct_per_warp(ex: Exec, sec: np.ndarray, lanes: np.ndarray) -> int:
    """The distinct sectors ``sec`` of lanes ``lanes`` within each warp, summed over the warps:
    each warp's 32 lanes as a row, sorted along it (rows of 32 sort about ten times faster
    than a hash of the whole chunk's keys).  A lane not in ``lanes`` takes a sector its warp
    touched, so it adds none; warps without any lane are left out."""
    if lanes is ex.all_lanes:
        rows = sec.reshape(-1, 32)
    else:
        warps = lanes >> 5
        dense = np.zeros(ex.W, dtype=np.int64)
        dense[warps] = sec
        dense = np.repeat(dense, 32)
        dense[lanes] = sec
        present = np.zeros(ex.W, dtype=bool)
        present[warps] = True
        rows = dense.reshape(-1, 32)[present]
    rows = np.sort(rows, axis=1)
    return rows.shape[0] + int(np.count_nonzero(rows[:, 1:] != rows[:, :-1]))


def _ld(lm, prog, fi, inst, pc: int = -1) -> Callable:
    space = _space_of(inst)
    typ = _mem_type(prog, inst)
    vec = _vec_of(inst)
    dst = inst.operands[0]
    dsts = _dests(dst) if isinstance(dst, ir.Vec) else [dst]
    if len(dsts) != vec:
        raise PtxError(f"{_where(prog, inst)}: {inst} needs {vec} destination registers")
    space, const, afn = _addr(lm, prog, fi, inst, inst.operands[1], space)
    tdt = dec.dtype_of(typ)
    size = tdt.itemsize
    writers = [make_writer(prog, fi, inst, o, typ) for o in dsts]
    if space == "param" and afn is None:
        # kernel parameter at a constant offset: one value for every lane
        def ldp(ex, sel):
            for i, w in enumerate(writers):
                a = const + i * size
                if a < 0 or a + size > ex.param_len:
                    raise CudaError(Err.IllegalAddress,
                                    f"{_where(prog, inst)}: ld.param at offset {a} past the "
                                    f"{ex.param_len}-byte parameter buffer of {prog.kernel.name}", sticky=True)
                w(ex, sel, ex.param_buf[a:a + size].view(tdt)[0])
        return ldp

    rebind = []
    for o in dsts:
        rb = None
        if isinstance(o, ir.Reg) and typ != "pred":
            sl = fi.slots[o.name]
            if prog.slot_dtypes[sl].itemsize == size:
                rb = (sl, prog.slot_dtypes[sl])
        rebind.append(rb)

    gen = space == "generic" and pc >= 0

    def ld(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        a = _lane_addrs(const, afn, ex, sel, lanes.size)
        if gen:
            count_generic(ex, pc, a, lanes)
        if ex.gmem.sectors is not None:
            count_transactions(ex, space, a, lanes, False)
        for i, w in enumerate(writers):
            ai = a if i == 0 else a + a.dtype.type(i * size)
            v = ex.load(space, ai, lanes, tdt)
            rb = rebind[i]
            if sel is None and rb is not None and v.flags.owndata and v.shape == (ex.N,):
                ex.R[rb[0]] = v.view(rb[1])      # a gathered array is fresh: it becomes the register
            else:
                w(ex, sel, v)
    fo = _frame_offset(lm, prog, fi, inst, inst.operands[1], space, size * vec)
    if fo is None:
        return ld
    sh = size.bit_length() - 1

    def ld_frame(ex, sel):
        # a variable of the thread's own frame (.local, .func .param): in bounds and aligned by
        # construction, so index local memory directly unless accesses are being recorded
        if ex.rec is not None or ex.hooks.trace is not None:
            return ld(ex, sel)
        idx = _frame_index(ex, sel, fo, sh)
        view = ex.loc.view(tdt)
        for i, w in enumerate(writers):
            w(ex, sel, view[idx + i if i else idx])
    return ld_frame


def _st(lm, prog, fi, inst, pc: int = -1) -> Callable:
    space = _space_of(inst)
    typ = _mem_type(prog, inst)
    vec = _vec_of(inst)
    src = inst.operands[1]
    srcs = list(src.elems) if isinstance(src, ir.Vec) else [src]
    if len(srcs) != vec:
        raise PtxError(f"{_where(prog, inst)}: {inst} needs {vec} source values")
    space, const, afn = _addr(lm, prog, fi, inst, inst.operands[0], space)
    if space == "param" and fi.fn.is_entry:
        raise PtxError(f"{_where(prog, inst)}: kernel parameters are read-only")
    tdt = dec.dtype_of(typ)
    size = tdt.itemsize
    readers = [make_reader(lm, prog, fi, inst, o, typ) if o is not None else None for o in srcs]

    gen = space == "generic" and pc >= 0

    def st(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        n = lanes.size
        a = _lane_addrs(const, afn, ex, sel, n)
        if gen:
            count_generic(ex, pc, a, lanes)
        if ex.gmem.sectors is not None:
            count_transactions(ex, space, a, lanes, True)
        for i, r in enumerate(readers):
            if r is None:
                continue
            v = np.asarray(r(ex, sel))
            if v.dtype != tdt:
                v = v.astype(tdt)
            if v.ndim == 0:
                v = np.full(n, v, dtype=tdt)
            ai = a if i == 0 else a + a.dtype.type(i * size)
            ex.store(space, ai, lanes, v)
    fo = _frame_offset(lm, prog, fi, inst, inst.operands[0], space, size * vec)
    if fo is None:
        return st
    sh = size.bit_length() - 1

    def st_frame(ex, sel):
        # see ld_frame: a variable of the thread's own frame, written directly
        if ex.rec is not None or ex.hooks.trace is not None:
            return st(ex, sel)
        idx = _frame_index(ex, sel, fo, sh)
        view = ex.loc.view(tdt)
        for i, r in enumerate(readers):
            if r is None:
                continue
            v = np.asarray(r(ex, sel))
            if v.dtype != tdt:
                v = v.astype(tdt)
            view[idx + i if i else idx] = v
    return st_frame


def _frame_index(ex, sel, fo: int, sh: int):
    """Element index (in units of ``1 << sh`` bytes) of frame offset ``fo`` in each selected
    thread's local memory (all threads when ``sel`` is None)."""
    if sel is None:
        return (ex.all_lanes * ex.L + ex.fp + fo) >> sh
    return (sel * ex.L + ex.fp[sel] + fo) >> sh


def _frame_offset(lm, prog, fi, inst, aop, space: str, nbytes: int) -> int | None:
    """Frame offset of an ``ld``/``st`` of a variable of the function's own local frame
    (``[sym+off]`` with ``sym`` a ``.local`` variable, a ``.func`` parameter or a call-site
    ``.param``) when the access is aligned and inside the frame, else None.  Frames start at
    16-byte aligned ``fp`` in rows of ``L`` (a multiple of 16) bytes, and ``grow_local`` keeps
    every active frame inside ``L``, so such an access can neither fault nor be misaligned."""
    if space not in ("local", "param") or not isinstance(aop, ir.Addr) or not isinstance(aop.base, ir.Sym):
        return None
    try:
        sspace, a = sym_address(lm, prog, fi, inst, aop.base.name)
    except PtxError:
        return None
    size = nbytes if nbytes in (1, 2, 4, 8, 16) else 16
    o = a + aop.offset
    if sspace != "local" or o < 0 or o + nbytes > fi.frame_bytes or o % min(size, 16):
        return None
    return o


def _cp_async(lm, prog, fi, inst) -> Callable:
    """``cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}``: functionally a
    synchronous copy (bytes past ``src-size`` are zero-filled), so commit/wait are no-ops."""
    ops = inst.operands
    if len(ops) < 3 or not isinstance(ops[2], ir.Imm) or ops[2].value not in (4, 8, 16):
        raise PtxError(f"{_where(prog, inst)}: cp.async needs a copy size of 4, 8 or 16 bytes")
    cp_size = int(ops[2].value)
    dspace, dconst, dfn = _addr(lm, prog, fi, inst, ops[0], "shared")
    sspace, sconst, sfn = _addr(lm, prog, fi, inst, ops[1], "global")
    rsrc = None
    if len(ops) > 3 and not (isinstance(ops[3], ir.Imm) and ops[3].value == cp_size):
        rsrc = make_reader(lm, prog, fi, inst, ops[3], "u32")
    u32 = np.dtype(np.uint32)
    u8 = np.dtype(np.uint8)

    def cp(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        n = lanes.size
        da = _lane_addrs(dconst, dfn, ex, sel, n)
        sa = _lane_addrs(sconst, sfn, ex, sel, n)
        if rsrc is None:
            for i in range(0, cp_size, 4):
                v = ex.load(sspace, sa + sa.dtype.type(i), lanes, u32)
                ex.store(dspace, da + da.dtype.type(i), lanes, v)
            return
        src_size = np.broadcast_to(np.asarray(rsrc(ex, sel)).astype(np.int64), (n,))
        for i in range(cp_size):
            v = np.zeros(n, dtype=u8)
            m = src_size > i
            if m.any():
                v[m] = ex.load(sspace, (sa + sa.dtype.type(i))[m], lanes[m], u8)
            ex.store(dspace, da + da.dtype.type(i), lanes, v)
    return cp


def _atomic_apply(ex: Exec, space: str, a: np.ndarray, lanes: np.ndarray, op: str, typ: str,
                  b: np.ndarray, c: np.ndarray | None) -> np.ndarray:
    """Apply an atomic per lane in lane order (colliding lanes serialised); returns old values."""
    tdt = dec.dtype_of(typ)
    parts = ex.parts(space, a, lanes, tdt)
    if ex.gmem.sectors is not None:      # an atomic reads its sector in L2 first
        ex.cold_reads += ex.gmem.sectors.read(space, a, tdt.itemsize)
    out = np.empty(lanes.size, dtype=tdt)
    sh = {1: 0, 2: 1, 4: 2, 8: 3}[tdt.itemsize]
    for arr, idx, pos in parts:
        mem = arr.view(np.uint8)
        bb = b if pos is None else b[pos]
        cc = None if c is None else (c if pos is None else c[pos])
        old = semantics.apply_atomic(mem, idx << sh, bb, op, typ, cc)
        if pos is None:
            out = old
        else:
            out[pos] = old
    return out


def _atom(lm, prog, fi, inst, pc: int = -1) -> Callable:
    is_red = inst.opcode == "red"
    space = _space_of(inst)
    typ = _mem_type(prog, inst)
    ops = [m for m in inst.mods if m in ("add", "min", "max", "inc", "dec", "and", "or", "xor",
                                         "exch", "cas")]
    if len(ops) != 1:
        raise NotSupportedError(f"not supported: {inst} at {_where(prog, inst)}")
    aop = ops[0]
    if _vec_of(inst) != 1:
        raise NotSupportedError(f"not supported: vector atomic {inst} at {_where(prog, inst)}")
    semantics.atomic_fn(aop, typ)   # validates the combination at decode time
    k = 0 if is_red else 1
    space, const, afn = _addr(lm, prog, fi, inst, inst.operands[k], space)
    if space not in ("global", "shared", "generic"):
        raise NotSupportedError(f"not supported: atomic on .{space} at {_where(prog, inst)}")
    tdt = dec.dtype_of(typ)
    rb = make_reader(lm, prog, fi, inst, inst.operands[k + 1], typ)
    rc = make_reader(lm, prog, fi, inst, inst.operands[k + 2], typ) if aop == "cas" else None
    w = None if is_red else make_writer(prog, fi, inst, inst.operands[0], typ)

    gen = space == "generic" and pc >= 0

    def at(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        n = lanes.size
        a = _lane_addrs(const, afn, ex, sel, n)
        if gen:
            count_generic(ex, pc, a, lanes)
        if ex.gmem.sectors is not None:
            count_transactions(ex, space, a, lanes, True)
        b = np.broadcast_to(np.asarray(rb(ex, sel)).astype(tdt, copy=False), (n,))
        c = None if rc is None else np.broadcast_to(np.asarray(rc(ex, sel)).astype(tdt, copy=False), (n,))
        if ex.rec is not None:      # the timing model sees the addresses at issue (C162)
            ex.record(space, a, tdt.itemsize, True)
        if ex.hooks.trace is not None:    # trace feed: one atomic access
            ex.hooks.trace.access(ex, space, a, lanes, tdt.itemsize, False, True)
        if ex.gmem.cow is not None:       # at issue, before a deferred apply too
            ex.gmem.cow.before_write(space, a)

        def apply():
            old = _atomic_apply(ex, space, a, lanes, aop, typ, b, c)
            if w is not None:
                w(ex, sel, old)
        if ex.defer_atomics:
            ex.deferred.append(apply)
        else:
            apply()
    return at


def _cvta(lm, prog, fi, inst) -> Callable:
    to = inst.has("to")
    sp = [m for m in inst.mods if m in ("global", "shared", "local", "const", "param")]
    if not sp:
        raise PtxError(f"{_where(prog, inst)}: cvta needs a state space")
    space = sp[0]
    typ = inst.types[-1] if inst.types else "u64"
    src = inst.operands[1]
    if isinstance(src, ir.Sym):
        sspace, a = sym_address(lm, prog, fi, inst, src.name)
        if sspace == "local":
            r = make_reader(lm, prog, fi, inst, src, "u64")
            if space == "param":          # a .func parameter lives in the local frame
                space = "local"
        else:
            c = np.uint64(a)
            r = lambda ex, sel: c  # noqa: E731
    else:
        r = make_reader(lm, prog, fi, inst, src, "u64")
    w = make_writer(prog, fi, inst, inst.operands[0], typ)
    if space == "param":
        # kernel parameters get a read-only copy in global memory when their generic address is
        # taken (``__grid_constant__``); param-space address x <-> generic base + x
        if to:
            return lambda ex, sel: w(ex, sel, np.asarray(r(ex, sel), dtype=np.uint64)
                                     - np.uint64(ex.param_generic_base()))
        return lambda ex, sel: w(ex, sel, np.asarray(r(ex, sel), dtype=np.uint64)
                                 + np.uint64(ex.param_generic_base()))
    win = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(space, 0)
    uw = np.uint64(win)
    if win == 0:
        return lambda ex, sel: w(ex, sel, r(ex, sel))
    if to:
        mask = np.uint64(WINDOW_SIZE - 1)
        return lambda ex, sel: w(ex, sel, np.asarray(r(ex, sel), dtype=np.uint64) & mask)
    return lambda ex, sel: w(ex, sel, np.asarray(r(ex, sel), dtype=np.uint64) + uw)


def _isspacep(lm, prog, fi, inst) -> Callable:
    space = [m for m in inst.mods if m in ("global", "shared", "local", "const", "param")]
    if not space:
        raise PtxError(f"{_where(prog, inst)}: isspacep needs a state space")
    sp = space[0]
    r = make_reader(lm, prog, fi, inst, inst.operands[1], "u64")
    w = make_writer(prog, fi, inst, inst.operands[0], "pred")
    const_ranges = [(s.address, s.address + s.size) for s in lm.symbols.values() if s.space == "const"]

    def run(ex, sel):
        a = np.asarray(r(ex, sel), dtype=np.uint64)
        win = a >> WINDOW_SHIFT
        if sp == "global":
            res = win == 0
        elif sp == "shared":
            res = win == 1
        elif sp == "local":
            res = win == 2
        elif sp == "const":
            res = np.zeros(a.shape, dtype=np.bool_)
            for lo, hi in const_ranges:
                res |= (a >= np.uint64(lo)) & (a < np.uint64(hi))
        else:
            lo = ex.param_gbase
            res = np.zeros(a.shape, dtype=np.bool_)
            if lo is not None:
                res = (a >= np.uint64(lo)) & (a < np.uint64(lo + max(ex.param_len, 1)))
        w(ex, sel, res)
    return run
