"""Instruction handlers: decode one PTX instruction into ``DInst`` with a ``run(ex, sel)``.

GPGPU-Sim counterpart: the ``*_impl`` functions of ``cuda-sim/instructions.cc`` for memory,
control, warp-level and special-register instructions; ALU semantics come from
:mod:`gpgpusim.functional.semantics` (``lookup(inst) -> OpSpec``), resolved here once.

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

from gpgpusim.errors import CudaError, Err, NotSupportedError, PtxError
from gpgpusim.functional import semantics
from gpgpusim.ptx import ir

from . import decode as dec
from .loader import LoadedModule
from .printf import format_device
from .state import LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE, Exec

_RAW = dec._RAW
_SINT = dec._SINT
Reader = Callable[[Exec, Any], Any]
Writer = Callable[[Exec, Any, Any], None]

_NOPS = {"membar", "fence", "nanosleep", "prefetch", "prefetchu", "pmevent", "griddepcontrol",
         "discard", "applypriority", "createpolicy", "setmaxnreg"}
_UNSUPPORTED = {"mma", "ldmatrix", "stmatrix", "cp", "tex", "tld4", "txq", "suld", "sust",
                "sured", "suq", "mbarrier", "brx", "istypep", "alloca", "elect", "tensormap",
                "wgmma", "tcgen05", "multimem", "clusterlaunchcontrol", "getctarank", "stackrestore",
                "stacksave"}


def _noop(ex: Any, sel: Any) -> None:
    return None


def _where(prog: dec.Program, inst: ir.Instruction) -> str:
    return f"{prog.filename}:{inst.line}"


# ----------------------------------------------------------------------------- readers
def _from_raw(rdt: np.dtype, typ: str) -> Callable[[np.ndarray], np.ndarray] | None:
    """Conversion of raw register bits (dtype ``rdt``) to a value of ``typ``."""
    if typ == "pred":
        return None if rdt == np.bool_ else (lambda x: x != 0)
    tdt = dec.dtype_of(typ)
    if rdt == np.bool_:
        return lambda x: x.astype(tdt)
    tw = ir.TYPE_SIZES[typ]
    rw = rdt.itemsize
    if tw == rw:
        return None if tdt == rdt else (lambda x: x.view(tdt))
    if rw > tw:
        raw = _RAW[tw]
        return lambda x: x.astype(raw).view(tdt)
    if typ[0] == "s":
        s1, s2 = _SINT[rw], _SINT[tw]
        return lambda x: x.view(s1).astype(s2).view(tdt)
    raw = _RAW[tw]
    return lambda x: x.astype(raw).view(tdt)


def imm_value(op: ir.Imm, typ: str) -> Any:
    """A PTX immediate as a numpy scalar of ``typ`` (raw bits of 0f/0d literals preserved)."""
    if typ == "pred":
        return np.bool_(bool(op.value))
    tdt = dec.dtype_of(typ)
    size = ir.TYPE_SIZES[typ]
    if tdt.kind == "f":
        if op.bits is not None and isinstance(op.value, float):
            bits_size = 4 if op.bits <= 0xFFFFFFFF and not _is_double_literal(op) else 8
            if bits_size == size:
                return np.array(op.bits, dtype=_RAW[size]).view(tdt)[()]
        return tdt.type(op.value)
    v = op.value
    if isinstance(v, float):
        if typ in ("f16x2", "bf16x2", "bf16"):
            raise NotSupportedError(f"not supported: float immediate for .{typ}")
        # a 0f/0d literal names its IEEE bits, which a bit-size (or integer) operand takes as
        # they are (``mov.b32 %r1, 0f3F800000`` is 0x3F800000, not 1)
        v = op.bits if op.bits is not None else int(v)
    return np.array(int(v) & ((1 << (8 * size)) - 1), dtype=_RAW[size]).view(tdt)[()]


def _is_double_literal(op: ir.Imm) -> bool:
    return op.bits is not None and op.bits > 0xFFFFFFFF


def _slot(prog: dec.Program, fi: dec.FuncInfo, inst: ir.Instruction, name: str) -> int:
    s = fi.slots.get(name)
    if s is None:
        raise PtxError(f"{_where(prog, inst)}: register {name} is not declared in {fi.fn.name}")
    return s


def sym_address(lm: LoadedModule, prog: dec.Program, fi: dec.FuncInfo, inst: ir.Instruction,
                name: str) -> tuple[str, int]:
    """``(space, address)`` of a symbol; space 'local' addresses are relative to the frame."""
    if name in fi.local_off:
        return "local", fi.local_off[name]
    if name in fi.param_off:
        return "local", fi.param_off[name]
    if name in fi.ret_off:
        return "local", fi.ret_off[name]
    if fi.fn.is_entry and name in prog.kernel_params:
        return "param", prog.kernel_params[name][0]
    if name in prog.smem_off:
        return "shared", prog.smem_off[name]
    if name in lm.symbols:
        s = lm.symbols[name]
        return s.space, s.address
    if name in lm.module.functions:
        from .loader import function_handle
        return "global", function_handle(lm.module, name)
    raise PtxError(f"{_where(prog, inst)}: unknown symbol {name!r}")


def make_reader(lm, prog, fi, inst, op: ir.Operand, typ: str) -> Reader:
    if isinstance(op, ir.Reg):
        slot = _slot(prog, fi, inst, op.name)
        conv = _from_raw(prog.slot_dtypes[slot], typ)
        neg = op.neg
        if neg:
            if conv is None:
                return lambda ex, sel: ~(ex.R[slot] if sel is None else ex.R[slot][sel])
            return lambda ex, sel: ~conv(ex.R[slot] if sel is None else ex.R[slot][sel])
        if conv is None:
            return lambda ex, sel: ex.R[slot] if sel is None else ex.R[slot][sel]
        return lambda ex, sel: conv(ex.R[slot] if sel is None else ex.R[slot][sel])
    if isinstance(op, ir.Imm):
        c = imm_value(op, typ)
        return lambda ex, sel: c
    if isinstance(op, ir.Special):
        name, comp = op.name, op.comp
        tdt = dec.dtype_of(typ) if typ != "pred" else np.dtype(np.bool_)

        def rd(ex, sel):
            v = ex.special(name, comp)
            v = v if sel is None else v[sel]
            return v.astype(tdt, copy=False) if tdt.kind != "f" else v.astype(_RAW[tdt.itemsize]).view(tdt)
        return rd
    if isinstance(op, ir.Sym):
        space, addr = sym_address(lm, prog, fi, inst, op.name)
        tdt = dec.dtype_of(typ)
        if space == "local":
            def rl(ex, sel):
                fp = ex.fp if sel is None else ex.fp[sel]
                return (fp + addr).astype(tdt)
            return rl
        c = tdt.type(addr)
        return lambda ex, sel: c
    raise PtxError(f"{_where(prog, inst)}: unexpected operand {op!r} in {inst}")


def make_writer(prog, fi, inst, op: ir.Operand | None, typ: str) -> Writer:
    if op is None:
        return lambda ex, sel, v: None
    if not isinstance(op, ir.Reg):
        raise PtxError(f"{_where(prog, inst)}: destination must be a register in {inst}")
    slot = _slot(prog, fi, inst, op.name)
    return slot_writer(prog.slot_dtypes[slot], slot, typ)


def slot_writer(rdt: np.dtype, slot: int, typ: str) -> Writer:
    if typ == "pred" or rdt == np.bool_:
        is_bool = rdt == np.bool_

        def wp(ex, sel, v):
            v = np.asarray(v)
            if v.dtype != np.bool_:
                v = v != 0
            if not is_bool:
                v = v.astype(rdt)
            if sel is None:
                ex.R[slot][...] = v
            else:
                ex.R[slot][sel] = v
        return wp
    tdt = dec.dtype_of(typ)
    tw = ir.TYPE_SIZES[typ]
    traw = _RAW[tw]
    rw = rdt.itemsize
    if rw > tw and typ[0] == "s":
        s1, s2 = _SINT[tw], _SINT[rw]

        def ext(v):
            return v.view(s1).astype(s2).view(rdt)
    elif rw != tw:
        def ext(v):
            return v.astype(rdt)
    else:
        ext = None  # type: ignore[assignment]
    view = tdt != traw

    def w(ex, sel, v):
        v = np.asarray(v)
        if v.dtype != tdt:
            v = v.astype(tdt)
        if view:
            v = v.view(traw)
        if ext is not None:
            v = ext(v)
        if sel is None:
            ex.R[slot][...] = v
        else:
            ex.R[slot][sel] = v
    return w


def _dests(op: ir.Operand) -> list[ir.Operand | None]:
    if isinstance(op, ir.PredPair):
        return [op.p, op.q]
    if isinstance(op, ir.Vec):
        return list(op.elems)
    return [op]


def _srcs(ops: tuple[ir.Operand, ...]) -> list[ir.Operand]:
    out: list[ir.Operand] = []
    for op in ops:
        if isinstance(op, ir.Vec):
            out.extend(e for e in op.elems if e is not None)
        else:
            out.append(op)
    return out


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
        d.run = _ld(lm, prog, fi, inst)
        d.mem = True
    elif op == "st":
        d.run = _st(lm, prog, fi, inst)
        d.mem = True
    elif op in ("atom", "red"):
        d.run = _atom(lm, prog, fi, inst)
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
        from .tex_insts import decode as _decode_tex     # texture/surface objects
        _decode_tex(lm, prog, fi, inst, d)
    elif op == "wmma":
        from .wmma import decode as _decode_wmma     # warp-level matrix load/store/mma
        _decode_wmma(lm, prog, fi, inst, d)
    elif op == "mma" and "sync" in inst.mods:
        from .wmma import decode_mma_sync
        decode_mma_sync(lm, prog, fi, inst, d)
    elif op in ("ldmatrix", "stmatrix"):
        from .wmma import decode_ldmatrix
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


# ----------------------------------------------------------------------------- memory
def _space_of(inst: ir.Instruction) -> str:
    for m in inst.mods:
        if m in ("global", "shared", "local", "const", "param"):
            return m
        if m.startswith("shared::"):
            if m != "shared::cta":
                raise NotSupportedError(f"not supported: .{m} (clusters)")
            return "shared"
        if m.startswith("param::"):
            return "param"
    return "generic"


def _vec_of(inst: ir.Instruction) -> int:
    for m in inst.mods:
        if m in ("v2", "v4", "v8"):
            return int(m[1])
    return 1


def _mem_type(prog, inst) -> str:
    ts = inst.types
    if not ts:
        raise PtxError(f"{_where(prog, inst)}: {inst} has no type")
    t = ts[-1]
    if t == "b128":
        raise NotSupportedError(f"not supported: .b128 access {inst} at {_where(prog, inst)}")
    return t


def _addr(lm, prog, fi, inst, aop: ir.Operand, space: str):
    """``(space, const_address or None, fn(ex, sel) -> per-lane uint64 addresses or None)``."""
    if not isinstance(aop, ir.Addr):
        raise PtxError(f"{_where(prog, inst)}: expected an address operand in {inst}")
    off = aop.offset
    base = aop.base
    if base is None:
        return space, off, None
    if isinstance(base, ir.Sym):
        sspace, a = sym_address(lm, prog, fi, inst, base.name)
        if sspace == "local":
            if space in ("param", "local"):
                o = a + off
                return "local", None, lambda ex, sel: (ex.fp if sel is None else ex.fp[sel]) + o
            if space == "generic":
                o = a + off
                return "generic", None, lambda ex, sel: ((ex.fp if sel is None else ex.fp[sel]) + o
                                                         ).astype(np.uint64) + np.uint64(LOCAL_WINDOW)
        if space == "generic":
            if sspace == "shared":
                return "generic", SHARED_WINDOW + a + off, None
            if sspace == "param":
                o = a + off

                def gp(ex, sel):
                    n = ex.N if sel is None else sel.size
                    return np.full(n, ex.param_generic_base() + o, dtype=np.uint64)
                return "generic", None, gp
            return "generic", a + off, None
        if space == "param" and sspace == "param":
            return "param", a + off, None
        if space in ("global", "const") and sspace in ("global", "const"):
            return space, a + off, None
        if space == sspace:
            return space, a + off, None
        raise PtxError(f"{_where(prog, inst)}: symbol {base.name} is in .{sspace}, not .{space}")
    if isinstance(base, ir.Reg):
        slot = _slot(prog, fi, inst, base.name)
        rdt = prog.slot_dtypes[slot]
        o64 = np.uint64(off & 0xFFFFFFFFFFFFFFFF)
        if space == "param" and not fi.fn.is_entry:
            space = "local"
        if rdt == np.uint64:
            if off == 0:
                return space, None, lambda ex, sel: ex.R[slot] if sel is None else ex.R[slot][sel]
            return space, None, lambda ex, sel: (ex.R[slot] if sel is None else ex.R[slot][sel]) + o64
        if rdt == np.uint32 and space in ("shared", "local", "param"):
            # 32-bit window addresses stay 32-bit (wrap like the hardware); parts() bounds-checks
            o32 = np.uint32(off & 0xFFFFFFFF)
            if off == 0:
                return space, None, lambda ex, sel: ex.R[slot] if sel is None else ex.R[slot][sel]
            return space, None, lambda ex, sel: (ex.R[slot] if sel is None else ex.R[slot][sel]) + o32
        return space, None, lambda ex, sel: (ex.R[slot] if sel is None else ex.R[slot][sel]).astype(np.uint64) + o64
    raise PtxError(f"{_where(prog, inst)}: bad address base {base!r}")


def _lane_addrs(const, fn, ex, sel, n):
    if fn is not None:
        a = fn(ex, sel)
        return a if a.dtype == np.uint32 else a.astype(np.uint64, copy=False)
    return np.full(n, const & 0xFFFFFFFFFFFFFFFF, dtype=np.uint64)


def _ld(lm, prog, fi, inst) -> Callable:
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

    def ld(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        a = _lane_addrs(const, afn, ex, sel, lanes.size)
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


def _st(lm, prog, fi, inst) -> Callable:
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

    def st(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        n = lanes.size
        a = _lane_addrs(const, afn, ex, sel, n)
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


def _atom(lm, prog, fi, inst) -> Callable:
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

    def at(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        n = lanes.size
        a = _lane_addrs(const, afn, ex, sel, n)
        b = np.broadcast_to(np.asarray(rb(ex, sel)).astype(tdt, copy=False), (n,))
        c = None if rc is None else np.broadcast_to(np.asarray(rc(ex, sel)).astype(tdt, copy=False), (n,))
        if ex.rec is not None:      # the timing model sees the addresses at issue (C162)
            ex.record(space, a, tdt.itemsize, True)
        if ex.hooks.trace is not None:    # trace feed: one atomic access
            ex.hooks.trace.access(ex, space, a, lanes, tdt.itemsize, False, True)

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
        win = a >> np.uint64(48)
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
    from .loader import function_handle
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
    from .cdp import CALLS, make_call
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
