"""Call handlers: direct and indirect calls of PTX functions (frame setup, the callee's end),
and the builtins ``vprintf``, ``malloc``, ``free``, ``__assertfail`` and the device runtime's
launch calls (GPGPU-Sim's ``call_impl``, ``callp_impl`` and ``gpgpusim_cuda_*``).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from gpgpusim.errors import CudaError, Err, NotSupportedError, PtxError
from gpgpusim.ptx import ir

from . import decode as dec
from .cdp import CALLS, make_call
from .loader import function_handle
from .operands import Reader, _slot, _where, make_reader, sym_address
from .printf import format_device


# ----------------------------------------------------------------------------- calls
def _call(lm, prog, fi, inst, d: dec.DInst) -> None:
    ops = list(inst.operands)
    target = dec.call_target(inst)
    if target is None:
        raise PtxError(f"{_where(prog, inst)}: call without a target")
    li = ops.index(target)
    rets = list(ops[li - 1].items) if li > 0 and isinstance(ops[li - 1], ir.ParamList) else []
    args = list(ops[li + 1].items) if li + 1 < len(ops) and isinstance(ops[li + 1], ir.ParamList) else []
    if isinstance(target, ir.Reg):
        _icall(lm, prog, fi, inst, d, target, rets, args)
        return
    if not isinstance(target, ir.Label):
        raise NotSupportedError(f"not supported: call target {target!r} at {_where(prog, inst)}")
    name = target.name
    callee = prog.funcs.get(name)
    d.kind = "call"
    if callee is None:
        d.extra = None
        d.run = _builtin(lm, prog, fi, inst, name, rets, args)
        return
    cfn = callee.fn
    if len(args) != len(cfn.params) or len(rets) != len(cfn.ret_params):
        raise PtxError(f"{_where(prog, inst)}: call of {name} with {len(args)} argument(s) and "
                       f"{len(rets)} return value(s); it takes {len(cfn.params)} and {len(cfn.ret_params)}")
    d.extra = callee
    d.run = _call_setup(lm, prog, fi, inst, callee, rets, args)


def _icall(lm, prog, fi, inst, d: dec.DInst, target: ir.Reg, rets, args) -> None:
    """``call (r), %fptr, (a, b), prototype;``: lanes are grouped by the function their
    pointer names (a handle from :func:`loader.function_handle`); each group gets its own
    call entry on the SIMT stack.  A pointer to no function of the module is a fault."""
    slot = _slot(prog, fi, inst, target.name)
    setups: dict[int, tuple[dec.FuncInfo, Callable]] = {}
    for name, cfi in prog.funcs.items():
        cfn = cfi.fn
        if cfn.is_entry or len(cfn.params) != len(args) or len(cfn.ret_params) != len(rets):
            continue
        setups[function_handle(lm.module, name)] = (cfi, _call_setup(lm, prog, fi, inst, cfi, rets, args))
    d.kind = "icall"

    def run(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        ptrs = ex.R[slot][lanes].astype(np.uint64)
        out = []
        for h in np.unique(ptrs).tolist():
            hit = setups.get(int(h))
            sub = lanes[ptrs == h]
            if hit is None:
                lane = int(sub[0])
                raise CudaError(Err.InvalidPc, f"indirect call through {int(h):#x}, which is no function of "
                                f"{prog.filename} with this signature, in {prog.kernel.name} at "
                                f"{_where(prog, inst)} by {ex.describe_lane(lane)}", sticky=True)
            cfi, setup = hit
            setup(ex, sub)
            out.append((cfi.base, sub))
        return out
    d.run = run


def _call_setup(lm, prog, fi, inst, callee: dec.FuncInfo, rets, args) -> Callable:
    """Frame setup of a call of ``callee`` for lanes ``sel``: new frame after the caller's,
    saved fp and return destinations, arguments copied, registers saved if recursive."""
    cfn = callee.fn
    F = fi.frame_bytes
    copies: list[tuple[int | None, Reader | None, int, int, str]] = []   # (src off, reader, dst off, size, type)
    for a, p in zip(args, cfn.params, strict=True):
        dst_off = callee.param_off[p.name]
        if isinstance(a, ir.Sym) and (a.name in fi.local_off or a.name in fi.param_off or a.name in fi.ret_off):
            _, src = sym_address(lm, prog, fi, inst, a.name)
            copies.append((src, None, dst_off, p.size_bytes, p.type))
        else:
            copies.append((None, make_reader(lm, prog, fi, inst, a, p.type), dst_off, p.size_bytes, p.type))
    ret_dst = []
    for r in rets:
        if not isinstance(r, ir.Sym):
            raise NotSupportedError(f"not supported: call return into {r!r} at {_where(prog, inst)}")
        _, off = sym_address(lm, prog, fi, inst, r.name)
        ret_dst.append(off)
    save_slots = sorted(callee.slots.values()) if callee.recursive else []
    copy_dts = [dec.dtype_of(c[4]) if c[0] is None else None for c in copies]

    def run(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        fp = ex.fp[lanes]
        nfp = fp + F
        need = int(nfp.max()) + callee.frame_bytes
        if need > ex.L:
            ex.grow_local(need)
        L = ex.L
        base = lanes * L
        loc = ex.loc
        u64 = np.dtype(np.uint64)
        if ex.rec is None and ex.hooks.trace is None:
            # nothing records accesses: write the new frame directly (its slots are in bounds
            # and 8-byte aligned by construction: fp and L are multiples of 16)
            q = loc.view(np.uint64)
            row = base + nfp
            i8 = row >> 3
            q[i8] = fp
            for i, off in enumerate(ret_dst):
                q[i8 + (1 + i)] = fp + off
            for (src, rd, dst, size, _typ), tdt in zip(copies, copy_dts, strict=True):
                if src is not None:
                    rng = np.arange(size, dtype=np.int64)
                    loc[(row + dst)[:, None] + rng] = loc[(base + fp + src)[:, None] + rng]
                    continue
                v = np.asarray(rd(ex, sel)).astype(tdt)
                if dst % tdt.itemsize:
                    if v.ndim == 0:
                        v = np.full(lanes.size, v, dtype=tdt)
                    ex.store("local", (nfp + dst).astype(np.uint64), lanes, v)
                else:
                    loc.view(tdt)[(row + dst) // tdt.itemsize] = v
            for k, s in enumerate(save_slots):
                q[i8 + (callee.save_off // 8 + k)] = ex.R[s][lanes].astype(u64)
            ex.fp[lanes] = nfp
            return
        ex.store("local", nfp.astype(np.uint64), lanes, fp.astype(np.uint64))
        for i, off in enumerate(ret_dst):
            ex.store("local", (nfp + 8 + 8 * i).astype(np.uint64), lanes, (fp + off).astype(np.uint64))
        for src, rd, dst, size, typ in copies:
            if src is not None:
                rng = np.arange(size, dtype=np.int64)
                loc[(base + nfp + dst)[:, None] + rng] = loc[(base + fp + src)[:, None] + rng]
            else:
                tdt = dec.dtype_of(typ)
                v = np.asarray(rd(ex, sel)).astype(tdt)
                if v.ndim == 0:
                    v = np.full(lanes.size, v, dtype=tdt)
                ex.store("local", (nfp + dst).astype(np.uint64), lanes, v)
        for k, s in enumerate(save_slots):
            v = ex.R[s][lanes].astype(u64)
            ex.store("local", (nfp + callee.save_off + 8 * k).astype(np.uint64), lanes, v)
        ex.fp[lanes] = nfp
    _make_fend(prog, callee, save_slots)
    return run


def _make_fend(prog, callee: dec.FuncInfo, save_slots: list[int]) -> None:
    """The callee's exit pseudo-instruction: copy return values, restore registers and fp."""
    if callee.fend is not None:
        return
    rets = [(callee.ret_off[p.name], p.size_bytes) for p in callee.fn.ret_params]

    def fend(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        if lanes.size == 0:
            return
        fp = ex.fp[lanes]
        L = ex.L
        base = lanes * L
        u64 = np.dtype(np.uint64)
        if ex.rec is None and ex.hooks.trace is None:
            # nothing records accesses: read the frame header directly (see _call_setup)
            q = ex.loc.view(np.uint64)
            i8 = (base + fp) >> 3
            for i, (off, size) in enumerate(rets):
                dst = q[i8 + (1 + i)].astype(np.int64)
                rng = np.arange(size, dtype=np.int64)
                ex.loc[(base + dst)[:, None] + rng] = ex.loc[(base + fp + off)[:, None] + rng]
            for k, s in enumerate(save_slots):
                v = q[i8 + (callee.save_off // 8 + k)]
                ex.R[s][lanes] = v.astype(ex.R[s].dtype) if ex.R[s].dtype != np.bool_ else v != 0
            ex.fp[lanes] = q[i8].astype(np.int64)
            return
        for i, (off, size) in enumerate(rets):
            dst = ex.load("local", (fp + 8 + 8 * i).astype(np.uint64), lanes, u64).astype(np.int64)
            rng = np.arange(size, dtype=np.int64)
            ex.loc[(base + dst)[:, None] + rng] = ex.loc[(base + fp + off)[:, None] + rng]
        for k, s in enumerate(save_slots):
            v = ex.load("local", (fp + callee.save_off + 8 * k).astype(np.uint64), lanes, u64)
            ex.R[s][lanes] = v.astype(ex.R[s].dtype) if ex.R[s].dtype != np.bool_ else v != 0
        ex.fp[lanes] = ex.load("local", fp.astype(np.uint64), lanes, u64).astype(np.int64)
    callee.fend = fend


def _builtin(lm, prog, fi, inst, name, rets, args) -> Callable:
    """``vprintf``, ``malloc``, ``free``, ``__assertfail`` and the device-side launch calls of
    :mod:`.cdp` (CUDA's device runtime calls)."""
    def arg_reader(a, typ):
        if isinstance(a, ir.Sym):
            space, off = sym_address(lm, prog, fi, inst, a.name)
            if space == "local":
                tdt = dec.dtype_of(typ)
                return lambda ex, sel, lanes: ex.load("local", (ex.fp[lanes] + off).astype(np.uint64), lanes, tdt)
        r = make_reader(lm, prog, fi, inst, a, typ)
        return lambda ex, sel, lanes: np.broadcast_to(np.asarray(r(ex, sel)), (lanes.size,))

    def ret_writer(typ):
        if not rets:
            return lambda ex, lanes, v: None
        space, off = sym_address(lm, prog, fi, inst, rets[0].name)
        tdt = dec.dtype_of(typ)

        def wr(ex, lanes, v):
            ex.store("local", (ex.fp[lanes] + off).astype(np.uint64), lanes,
                     np.broadcast_to(np.asarray(v, dtype=tdt), (lanes.size,)).copy())
        return wr
    if name == "vprintf":
        if len(args) != 2:
            raise PtxError(f"{_where(prog, inst)}: vprintf takes 2 arguments")
        fmt_r = arg_reader(args[0], "u64")
        buf_r = arg_reader(args[1], "u64")
        wret = ret_writer("s32")

        def vprintf(ex, sel):
            lanes = ex.all_lanes if sel is None else sel
            fmts = fmt_r(ex, sel, lanes)
            bufs = buf_r(ex, sel, lanes)
            res = np.zeros(lanes.size, dtype=np.int32)
            cache: dict[int, str] = {}
            for i, lane in enumerate(lanes.tolist()):
                fa = int(fmts[i])
                fmt = cache.get(fa)
                if fmt is None:
                    fmt = cache[fa] = ex.read_cstring(fa, lane)
                ba = int(bufs[i])
                text, n = format_device(
                    fmt, lambda off, size, ba=ba, lane=lane: ex.read_generic_bytes(ba + off, lane, size),
                    lambda addr, lane=lane: ex.read_cstring(addr, lane))
                ex.hooks.printf(text)
                res[i] = n
            wret(ex, lanes, res)
        return vprintf
    if name == "malloc":
        size_r = arg_reader(args[0], "u64")
        wret = ret_writer("u64")

        def malloc(ex, sel):
            lanes = ex.all_lanes if sel is None else sel
            sizes = size_r(ex, sel, lanes)
            out = np.zeros(lanes.size, dtype=np.uint64)
            for i, s in enumerate(sizes.tolist()):
                try:
                    out[i] = ex.gmem.allocate(int(s), align=16) if s else 0
                except CudaError:
                    out[i] = 0
            wret(ex, lanes, out)
        return malloc
    if name == "free":
        ptr_r = arg_reader(args[0], "u64")

        def free(ex, sel):
            lanes = ex.all_lanes if sel is None else sel
            for p in ptr_r(ex, sel, lanes).tolist():
                if p:
                    ex.gmem.free(int(p))
        return free
    if name == "__assertfail":
        msg_r = arg_reader(args[0], "u64")
        file_r = arg_reader(args[1], "u64")
        line_r = arg_reader(args[2], "u32")

        def assertfail(ex, sel):
            lanes = ex.all_lanes if sel is None else sel
            lane = int(lanes[0])
            msg = ex.read_cstring(int(msg_r(ex, sel, lanes)[0]), lane)
            fname = ex.read_cstring(int(file_r(ex, sel, lanes)[0]), lane)
            line = int(line_r(ex, sel, lanes)[0])
            raise CudaError(Err.Assert, f"{fname}:{line}: {prog.kernel.name}: {ex.describe_lane(lane)} "
                            f"Assertion `{msg}` failed.", sticky=True)
        return assertfail
    if name in CALLS:            # device-side kernel launches (dynamic parallelism)
        def field_reader(a, typ, offset):
            if isinstance(a, ir.Sym):
                space, off = sym_address(lm, prog, fi, inst, a.name)
                if space == "local":
                    tdt = dec.dtype_of(typ)
                    o = off + offset
                    return lambda ex, sel, lanes: ex.load("local", (ex.fp[lanes] + o).astype(np.uint64), lanes, tdt)
            if offset:
                raise PtxError(f"{_where(prog, inst)}: {name}: a dim3 argument must be a .param")
            return arg_reader(a, typ)
        return make_call(lm, name, args, field_reader, ret_writer, _where(prog, inst))
    raise NotSupportedError(f"not supported: call of {name} at {_where(prog, inst)}")
