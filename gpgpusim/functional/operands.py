"""Operand access for the instruction handlers: register readers and writers, immediates,
symbol and address operands.

Shared by :mod:`.handlers`, :mod:`.mem_insts`, :mod:`.call_insts`, :mod:`.wmma` and
:mod:`.tex_insts`.  A reader ``r(ex, sel)`` returns an array aligned with ``sel`` (or a scalar
that broadcasts); a writer ``w(ex, sel, v)`` stores into the registers of ``sel``; an address
operand decodes to ``(space, const_address or None, fn(ex, sel) -> per-lane addresses)``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from gpgpusim.errors import NotSupportedError, PtxError
from gpgpusim.ptx import ir

from . import decode as dec
from .loader import LoadedModule, function_handle
from .state import LOCAL_WINDOW, SHARED_WINDOW, Exec

_RAW = dec._RAW
_SINT = dec._SINT
Reader = Callable[[Exec, Any], Any]
Writer = Callable[[Exec, Any, Any], None]


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
