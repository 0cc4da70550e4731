"""Instruction handlers: decode one PTX instruction into ``DInst`` with a ``run(ex, sel)``.

GPGPU-Sim counterpart: the ``*_impl`` functions of ``cuda-sim/instructions.cc`` for memory,
control, warp-level and special-register instructions; ALU semantics come from
:mod:`gpgpusim.functional.semantics` (``lookup(inst) -> OpSpec``), resolved here once.

:func:`make_handler` is the decode entry: it dispatches on the opcode and builds ALU, barrier
and warp-level (``vote``, ``shfl``, ``match``, ``redux``) handlers here; memory instructions
are :mod:`.mem_insts`, calls and builtins :mod:`.call_insts`, textures and surfaces
:mod:`.tex_insts`, matrix instructions :mod:`.wmma`; all of them read and write operands
through :mod:`.operands`.

``run(ex, sel)`` executes for the lanes ``sel`` (an index array, or None = every lane of the
``Exec``): those lanes are active in their warp and their guard predicate is true.  Readers
return an array aligned with ``sel`` (or a scalar that broadcasts); writers store into the
registers of ``sel``.  Anything we do not model decodes to kind ``unsup`` and raises
``NotSupportedError("not supported: <instruction> at <file>:<line>")`` when executed by at
least one lane.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np

from gpgpusim.errors import NotSupportedError, PtxError
from gpgpusim.functional import semantics
from gpgpusim.ptx import ir

from . import decode as dec
from .call_insts import _call
from .loader import LoadedModule
from .mem_insts import _atom, _cp_async, _cvta, _isspacep, _ld, _st
from .operands import _dests, _slot, _srcs, _where, make_reader, make_writer, slot_writer
from .tex_insts import decode as _decode_tex
from .wmma import decode as _decode_wmma
from .wmma import decode_ldmatrix, decode_mma_sync

_NOPS = {"membar", "fence", "nanosleep", "prefetch", "prefetchu", "pmevent", "griddepcontrol",
         "discard", "applypriority", "createpolicy", "setmaxnreg"}
_UNSUPPORTED = {"mma", "ldmatrix", "stmatrix", "cp", "tex", "tld4", "txq", "suld", "sust",
                "sured", "suq", "mbarrier", "brx", "istypep", "alloca", "elect", "tensormap",
                "wgmma", "tcgen05", "multimem", "clusterlaunchcontrol", "getctarank", "stackrestore",
                "stacksave"}


def _noop(ex: Any, sel: Any) -> None:
    return None


# ----------------------------------------------------------------------------- decode entry
def make_handler(lm: LoadedModule, prog: dec.Program, fi: dec.FuncInfo, pc: int,
                 inst: ir.Instruction) -> dec.DInst:
    d = dec.DInst(pc=pc, inst=inst, func=fi, kind="alu", line=inst.line, text=inst.text or str(inst))
    if inst.guard is not None:
        reg, negated = inst.guard
        d.guard = _slot(prog, fi, inst, reg.name)
        d.guard_neg = bool(negated) ^ bool(reg.neg)
        if prog.slot_dtypes[d.guard] != np.bool_:
            raise PtxError(f"{_where(prog, inst)}: guard {reg.name} is not a predicate")
    try:
        _decode(lm, prog, fi, pc, inst, d)
    except NotSupportedError as e:
        d.kind = "unsup"
        msg = str(e)
        if _where(prog, inst) not in msg:
            msg = f"not supported: {d.text} at {_where(prog, inst)} ({msg})"
        d.extra = msg
        d.run = _noop
    return d


def _decode(lm, prog, fi, pc, inst, d: dec.DInst) -> None:
    op = inst.opcode
    local_pc = pc - fi.base
    if op in ("ld", "ldu"):
        d.run = _ld(lm, prog, fi, inst, pc)
        d.mem = True
    elif op == "st":
        d.run = _st(lm, prog, fi, inst, pc)
        d.mem = True
    elif op in ("atom", "red"):
        d.run = _atom(lm, prog, fi, inst, pc)
        d.mem = True
    elif op == "bra":
        tgt = inst.operands[-1]
        if not isinstance(tgt, ir.Label) or tgt.name not in fi.fn.labels:
            raise PtxError(f"{_where(prog, inst)}: branch target {tgt!r} is not a label of {fi.fn.name}")
        d.kind = "bra"
        d.target = fi.base + fi.fn.labels[tgt.name]
        d.rpc = fi.base + fi.fn.reconvergence_pc.get(local_pc, len(fi.fn.instructions))
    elif op == "ret":
        if fi.fn.is_entry:
            d.kind = "exit"
        else:
            d.kind = "ret"
            d.target = fi.end
            d.rpc = fi.base + fi.fn.reconvergence_pc.get(local_pc, len(fi.fn.instructions))
    elif op == "exit":
        d.kind = "exit"
    elif op == "trap":
        d.kind = "trap"
    elif op in ("bar", "barrier") and not inst.has("warp"):
        _bar(lm, prog, fi, inst, d)
    elif op == "bar" and inst.has("warp"):
        d.run = lambda ex, sel: None
    elif op in _NOPS:
        d.run = lambda ex, sel: None
    elif op == "brkpt":
        # no debugger to stop in: note it once per instruction and go on (as GPGPU-Sim does)
        where = _where(prog, inst)
        noted: list[int] = []

        def brkpt(ex, sel):
            if not noted:
                noted.append(1)
                sys.stderr.write(f"GPGPU-Sim PTX: brkpt at {where} ignored (no debugger attached)\n")
        d.run = brkpt
    elif op == "call":
        _call(lm, prog, fi, inst, d)
    elif op == "cvta":
        d.run = _cvta(lm, prog, fi, inst)
    elif op == "isspacep":
        d.run = _isspacep(lm, prog, fi, inst)
    elif op in ("vote", "shfl", "match", "redux", "activemask"):
        d.kind = "warp"
        d.run = _warp_op(lm, prog, fi, inst)
    elif op == "cp" and inst.has("async") and not inst.has("bulk") and not inst.has("mbarrier"):
        if inst.has("commit_group") or inst.has("wait_group") or inst.has("wait_all"):
            d.run = _noop        # copies complete at issue, so every group is already done
        else:
            d.run = _cp_async(lm, prog, fi, inst)
            d.mem = True
    elif op in ("tex", "tld4", "txq", "suld", "sust", "suq"):
        _decode_tex(lm, prog, fi, inst, d)         # texture/surface objects
    elif op == "wmma":
        _decode_wmma(lm, prog, fi, inst, d)        # warp-level matrix load/store/mma
    elif op == "mma" and "sync" in inst.mods:
        decode_mma_sync(lm, prog, fi, inst, d)
    elif op in ("ldmatrix", "stmatrix"):
        decode_ldmatrix(lm, prog, fi, inst, d)
    elif op in _UNSUPPORTED:
        raise NotSupportedError(f"not supported: {inst} at {_where(prog, inst)}")
    else:
        spec = semantics.lookup(inst)
        if spec is None:
            if op == "mov":
                d.run = _mov_special(lm, prog, fi, inst)
                return
            raise NotSupportedError(f"not supported: {inst} at {_where(prog, inst)}")
        d.run = _alu(lm, prog, fi, inst, spec)


# ----------------------------------------------------------------------------- ALU
def _alu(lm, prog, fi, inst, spec) -> Callable:
    dsts = _dests(inst.operands[0])
    srcs = _srcs(inst.operands[1:])
    dtypes = list(spec.dst_types)
    stypes = list(spec.src_types)
    cc_out = getattr(spec, "cc_out", False)
    cc_in = getattr(spec, "cc_in", False)
    nd = len(dtypes) - (1 if cc_out else 0)
    ns = len(stypes) - (1 if cc_in else 0)
    if len(dsts) != nd or len(srcs) != ns:
        raise PtxError(f"{_where(prog, inst)}: {inst.opcode} expects {nd} destination(s) and {ns} "
                       f"source(s), got {len(dsts)} and {len(srcs)}")
    readers = [make_reader(lm, prog, fi, inst, o, t) for o, t in zip(srcs, stypes, strict=False)]
    writers = [make_writer(prog, fi, inst, o, t) for o, t in zip(dsts, dtypes, strict=False)]
    if cc_in:
        cs = prog.cc_slot
        readers.append(lambda ex, sel: ex.R[cs] if sel is None else ex.R[cs][sel])
    if cc_out:
        writers.append(slot_writer(np.dtype(np.uint32), prog.cc_slot, "u32"))
    fn = spec.fn
    if len(writers) == 1:
        w0 = writers[0]
        d0 = dsts[0]
        rebind = None
        if isinstance(d0, ir.Reg) and dtypes[0] != "pred":
            slot0 = fi.slots[d0.name]
            rdt0 = prog.slot_dtypes[slot0]
            tdt0 = dec.dtype_of(dtypes[0])
            if tdt0.itemsize == rdt0.itemsize:
                rebind = (slot0, tdt0, rdt0)
        if rebind is not None and 1 <= len(readers) <= 3:
            # whole-array mode: a fresh result array becomes the register (no copy); a result
            # that is (a view of) an input is copied, so registers never alias
            slot0, tdt0, rdt0 = rebind
            rs = list(readers)

            def run_rebind(ex, sel):
                srcs = [r(ex, sel) for r in rs]
                res = fn(*srcs)
                # a result that owns its memory and is none of the inputs is a new array (an
                # OpSpec's fn keeps no array it returns: the semantics contract, tested in
                # tests/functional/semantics), so it can become the register without a copy
                if (sel is None and type(res) is np.ndarray and res.dtype == tdt0 and res.flags.owndata
                        and res.shape == (ex.N,) and all(res is not x for x in srcs)):
                    ex.R[slot0] = res.view(rdt0)
                else:
                    w0(ex, sel, res)
            return run_rebind
        if len(readers) == 1:
            r0 = readers[0]
            return lambda ex, sel: w0(ex, sel, fn(r0(ex, sel)))
        if len(readers) == 2:
            r0, r1 = readers
            return lambda ex, sel: w0(ex, sel, fn(r0(ex, sel), r1(ex, sel)))
        if len(readers) == 3:
            r0, r1, r2 = readers
            return lambda ex, sel: w0(ex, sel, fn(r0(ex, sel), r1(ex, sel), r2(ex, sel)))
        return lambda ex, sel: w0(ex, sel, fn(*[r(ex, sel) for r in readers]))

    def run(ex, sel):
        res = fn(*[r(ex, sel) for r in readers])
        for w, v in zip(writers, res, strict=True):
            w(ex, sel, v)
    return run


def _mov_special(lm, prog, fi, inst) -> Callable:
    """``mov`` of a special register or a symbol address (semantics leaves these to us)."""
    typ = inst.types[0] if inst.types else "u64"
    r = make_reader(lm, prog, fi, inst, inst.operands[1], typ)
    w = make_writer(prog, fi, inst, inst.operands[0], typ)
    return lambda ex, sel: w(ex, sel, r(ex, sel))


# ----------------------------------------------------------------------------- barriers
def _bar(lm, prog, fi, inst, d: dec.DInst) -> None:
    mods = inst.mods
    if "cluster" in mods:
        raise NotSupportedError(f"not supported: {inst} at {_where(prog, inst)} (thread-block clusters)")
    if "arrive" in mods:
        op = "arrive"
    elif "red" in mods:
        op = "red"
    else:
        op = "sync"
    ops = list(inst.operands)
    dst = None
    if op == "red":
        dst = ops.pop(0)
        pred = ops.pop()
    rid = make_reader(lm, prog, fi, inst, ops[0], "u32") if ops else (lambda ex, sel: np.uint32(0))
    rcount = make_reader(lm, prog, fi, inst, ops[1], "u32") if len(ops) > 1 else None

    def first(r):
        def f(ex, sel):
            v = r(ex, sel)
            return int(v) if np.ndim(v) == 0 else int(v[0]) if np.size(v) else 0
        return f
    if op == "arrive" and rcount is None:
        raise PtxError(f"{_where(prog, inst)}: bar.arrive needs a thread count")
    d.kind = "bar"
    d.extra = (op, first(rid), first(rcount) if rcount is not None else None)
    if op == "red":
        redop = [m for m in mods if m in ("popc", "and", "or")]
        if not redop:
            raise PtxError(f"{_where(prog, inst)}: bar.red needs .popc, .and or .or")
        rop = redop[0]
        rp = make_reader(lm, prog, fi, inst, pred, "pred")
        typ = "u32" if rop == "popc" else "pred"
        w = make_writer(prog, fi, inst, dst, typ)
        bid = first(rid)

        def run(ex, esel, sel):
            lanes = ex.all_lanes if sel is None else sel
            v = np.broadcast_to(np.asarray(rp(ex, sel)), (lanes.size,))
            if esel is not None and (sel is None or esel.size != lanes.size):
                g = np.zeros(ex.N, dtype=np.bool_)
                g[esel] = True
                v = v & g[lanes]
            ex.bar_pred[lanes] = v
            ex.bar_part[lanes] = True
            ex.bar_red[bid(ex, sel)] = (rop, w)
        d.run = run


# ----------------------------------------------------------------------------- warp-level
def _warp_op(lm, prog, fi, inst) -> Callable:
    op = inst.opcode
    ops = inst.operands
    if op == "activemask":
        w = make_writer(prog, fi, inst, ops[0], "b32")

        def am(ex, sel):
            lanes = ex.all_lanes if sel is None else sel
            v = ex.scratch_bool()
            v[lanes] = True
            bal = np.packbits(v.reshape(-1, 32), axis=1, bitorder="little").view("<u4").ravel()
            v[lanes] = False
            w(ex, sel, bal[lanes >> 5])
        return am
    if op == "vote":
        mode = next((m for m in inst.mods if m in ("all", "any", "uni", "ballot")), None)
        if mode is None:
            raise PtxError(f"{_where(prog, inst)}: vote needs .all/.any/.uni/.ballot")
        ra = make_reader(lm, prog, fi, inst, ops[1], "pred")
        w = make_writer(prog, fi, inst, ops[0], "b32" if mode == "ballot" else "pred")
        rm = make_reader(lm, prog, fi, inst, ops[2], "b32") if len(ops) > 2 else None

        def vote(ex, sel):
            lanes = ex.all_lanes if sel is None else sel
            a = np.broadcast_to(np.asarray(ra(ex, sel)), (lanes.size,))
            part = np.ones(lanes.size, dtype=np.bool_)
            if rm is not None:
                mm = np.broadcast_to(np.asarray(rm(ex, sel), dtype=np.uint32), (lanes.size,))
                part = ((mm >> (lanes & 31).astype(np.uint32)) & 1).astype(np.bool_)
            act = np.zeros(ex.N, dtype=np.bool_)
            val = np.zeros(ex.N, dtype=np.bool_)
            act[lanes] = part
            val[lanes] = a & part
            A = act.reshape(-1, 32)
            V = val.reshape(-1, 32)
            wi = lanes >> 5
            if mode == "ballot":
                r = np.packbits(V, axis=1, bitorder="little").view("<u4").ravel()
            elif mode == "all":
                r = ~(A & ~V).any(1)
            elif mode == "any":
                r = V.any(1)
            else:
                r = ~(A & ~V).any(1) | ~V.any(1)
            w(ex, sel, r[wi])
        return vote
    if op == "shfl":
        mode = next((m for m in inst.mods if m in ("up", "down", "bfly", "idx")), None)
        if mode is None:
            raise PtxError(f"{_where(prog, inst)}: shfl needs .up/.down/.bfly/.idx")
        d0: ir.Operand = ops[0]
        pdst: ir.Reg | None = None
        if isinstance(d0, ir.PredPair):
            pdst = d0.q
            d0 = d0.p
        wd = make_writer(prog, fi, inst, d0, "b32")
        wp = make_writer(prog, fi, inst, pdst, "pred")
        a_op = ops[1]
        ra_full = make_reader(lm, prog, fi, inst, a_op, "b32")
        rb = make_reader(lm, prog, fi, inst, ops[2], "u32")
        rc = make_reader(lm, prog, fi, inst, ops[3], "u32")

        def shfl(ex, sel):
            lanes = ex.all_lanes if sel is None else sel
            n = lanes.size
            lid = (lanes & 31)
            b = np.broadcast_to(np.asarray(rb(ex, sel)).astype(np.int64), (n,)) & 31
            c = np.broadcast_to(np.asarray(rc(ex, sel)).astype(np.int64), (n,))
            cval = c & 31
            seg = (c >> 8) & 31
            maxl = (lid & seg) | (cval & ~seg)
            minl = lid & seg
            if mode == "up":
                j = lid - b
                ok = j >= maxl
            elif mode == "down":
                j = lid + b
                ok = j <= maxl
            elif mode == "bfly":
                j = lid ^ b
                ok = j <= maxl
            else:
                j = minl | (b & ~seg)
                ok = j <= maxl
            j = np.where(ok, j, lid)
            av = ra_full(ex, None)
            if np.ndim(av) == 0:
                res = np.full(n, av)
            else:
                res = av[(lanes & ~31) + j]
            wd(ex, sel, res)
            wp(ex, sel, ok)
        return shfl
    if op == "match":
        mode = "all" if inst.has("all") else "any"
        typ = inst.types[-1]
        d0 = ops[0]
        pdst = None
        if isinstance(d0, ir.PredPair):
            pdst = d0.q
            d0 = d0.p
        wd = make_writer(prog, fi, inst, d0, "b32")
        wp = make_writer(prog, fi, inst, pdst, "pred")
        ra = make_reader(lm, prog, fi, inst, ops[1], typ)
        tdt = dec.dtype_of(typ)

        def match(ex, sel):
            lanes = ex.all_lanes if sel is None else sel
            n = lanes.size
            a = np.broadcast_to(np.asarray(ra(ex, sel)).astype(tdt), (n,))
            act = np.zeros(ex.N, dtype=np.bool_)
            act[lanes] = True
            val = np.zeros(ex.N, dtype=tdt)
            val[lanes] = a
            wi = lanes >> 5
            ws = np.unique(wi)
            A = act.reshape(-1, 32)[ws]
            V = val.reshape(-1, 32)[ws]
            eq = (V[:, :, None] == V[:, None, :]) & A[:, None, :]
            pos = np.searchsorted(ws, wi)
            lid = lanes & 31
            rowm = eq[pos, lid]                       # (n, 32): lanes with my value
            masks = np.packbits(rowm, axis=1, bitorder="little").view("<u4").ravel()
            allm = np.packbits(A, axis=1, bitorder="little").view("<u4").ravel()[pos]
            if mode == "any":
                wd(ex, sel, masks)
                wp(ex, sel, masks == allm)
            else:
                same = masks == allm
                wd(ex, sel, np.where(same, allm, np.uint32(0)))
                wp(ex, sel, same)
        return match
    if op == "redux":
        rop = next((m for m in inst.mods if m in ("add", "min", "max", "and", "or", "xor")), None)
        typ = inst.types[-1]
        if rop is None or typ not in ("u32", "s32", "b32"):
            raise NotSupportedError(f"not supported: {inst} at {_where(prog, inst)}")
        tdt = dec.dtype_of(typ)
        ra = make_reader(lm, prog, fi, inst, ops[1], typ)
        w = make_writer(prog, fi, inst, ops[0], typ)

        def redux(ex, sel):
            lanes = ex.all_lanes if sel is None else sel
            n = lanes.size
            a = np.broadcast_to(np.asarray(ra(ex, sel)).astype(tdt), (n,))
            wi = lanes >> 5
            ws, pos = np.unique(wi, return_inverse=True)
            if rop == "add":
                s = np.zeros(ws.size, dtype=np.uint64)
                np.add.at(s, pos, a.astype(np.int64).astype(np.uint64))
                r = s.astype(np.uint32).view(tdt)
            else:
                ufn = {"min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
                       "or": np.bitwise_or, "xor": np.bitwise_xor}[rop]
                init = {"min": np.iinfo(tdt).max, "max": np.iinfo(tdt).min, "and": np.iinfo(tdt).max,
                        "or": 0, "xor": 0}[rop]
                r = np.full(ws.size, init, dtype=tdt)
                ufn.at(r, pos, a)
            w(ex, sel, r[pos])
        return redux
    raise NotSupportedError(f"not supported: {inst} at {_where(prog, inst)}")
