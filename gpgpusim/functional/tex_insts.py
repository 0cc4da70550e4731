"""Decoding of the texture and surface instructions: ``tex``, ``tld4``, ``txq``, ``suld.b``,
``sust.b``, ``suq`` on texture/surface *objects* (64-bit handles in registers).

GPGPU-Sim counterpart: ``tex_impl``, ``txq_impl``, ``suld_impl``, ``sust_impl``, ``suq_impl`` of
``cuda-sim/instructions.cc``.  The arithmetic is :mod:`gpgpusim.functional.texture`; this module
only wires operands (handle, coordinate vector, destination vector) to it.

A ``.b32`` destination type (PTXPlus: SASS ``TEX``/``TLD``/``TLD4`` write raw register bits)
returns each component's own bits: float bits for float and normalised reads, integers otherwise.

Handles may differ per lane (they are register values): lanes are grouped by handle.  Texel
fetches are reported to the trace recorder / warp-step driver as ``tex``-space accesses (one per
texel the sampler reads, element-sized), surface accesses as ``global`` ones.

Not modelled (decode to ``NotSupportedError``): texture references (``.texref`` symbols), layered
and cube geometries (``a1d``, ``a2d``, ``cube``, ``acube``, ``2dms``, ``a2dms``), ``sust.p``
(formatted stores) and ``sured``.  ``tex.level``/``tex.grad`` sample level 0 (no mipmaps).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from gpgpusim.errors import NotSupportedError, PtxError
from gpgpusim.ptx import ir

from . import decode as dec
from . import texture as T
from .operands import _where, make_reader, make_writer

_GEOM = {"1d": 1, "2d": 2, "3d": 3}
_UNSUP_GEOM = ("a1d", "a2d", "cube", "acube", "2dms", "a2dms")
_COMP = {"r": 0, "g": 1, "b": 2, "a": 3}


def _geom(prog, inst) -> int:
    for m in inst.mods:
        if m in _UNSUP_GEOM:
            raise NotSupportedError(f"not supported: .{m} texture/surface geometry in {inst} at {_where(prog, inst)}")
        if m in _GEOM:
            return _GEOM[m]
    raise PtxError(f"{_where(prog, inst)}: {inst} has no geometry (.1d/.2d/.3d)")


def _split_ref(prog, inst, op: ir.Operand) -> tuple[ir.Operand, list[ir.Operand]]:
    """``[handle, {c0, c1, ...}]`` -> (handle operand, coordinate operands)."""
    if isinstance(op, ir.Vec) and op.elems:
        h = op.elems[0]
        coords: list[ir.Operand] = []
        for e in op.elems[1:]:
            if isinstance(e, ir.Vec):
                coords.extend(x for x in e.elems if x is not None)
            elif e is not None:
                coords.append(e)
        if h is None or isinstance(h, ir.Sym):
            raise NotSupportedError(f"not supported: {inst} at {_where(prog, inst)} (texture/surface "
                                    f"references are gone from CUDA 12+; objects are simulated)")
        return h, coords
    if isinstance(op, ir.Addr) and isinstance(op.base, ir.Reg) and op.offset == 0:
        return op.base, []
    raise NotSupportedError(f"not supported: texture/surface operand {op!r} in {inst} at {_where(prog, inst)}")


def _note(ex: Any, space: str, addrs: np.ndarray, lanes: np.ndarray, size: int, is_store: bool) -> None:
    if ex.rec is not None:
        ex.record(space, addrs, size, is_store)
    if ex.hooks.trace is not None:
        ex.hooks.trace.access(ex, space, addrs.astype(np.uint64), lanes, size, is_store, False)
    if is_store and ex.gmem.cow is not None:
        ex.gmem.cow.before_write(space, addrs)


def _per_handle(ex, sel, hread, kind: str, where: str):
    """Yield ``(object, positions or None, lanes)`` for each distinct handle among the lanes."""
    lanes = ex.all_lanes if sel is None else sel
    n = lanes.size
    h = np.broadcast_to(np.asarray(hread(ex, sel), dtype=np.uint64), (n,))
    if n == 0:
        return
    h0 = int(h[0])
    if (h == h[0]).all():
        yield T.lookup(h0, kind, where), None, lanes
        return
    for hv in np.unique(h):
        pos = np.flatnonzero(h == hv)
        yield T.lookup(int(hv), kind, where), pos, lanes[pos]


def _vals(reader, ex, sel, n, pos):
    v = np.broadcast_to(np.asarray(reader(ex, sel)), (n,))
    return v if pos is None else v[pos]


def decode(lm, prog, fi, inst: ir.Instruction, d: dec.DInst) -> None:
    """Fill ``d.run`` for a texture/surface instruction (``d.mem`` set when it touches memory)."""
    op = inst.opcode
    if op in ("tex", "tld4"):
        d.run = _tex(lm, prog, fi, inst)
        d.mem = True
    elif op in ("txq", "suq"):
        d.run = _query(lm, prog, fi, inst)
    elif op == "suld":
        d.run = _suld(lm, prog, fi, inst)
        d.mem = True
    elif op == "sust":
        d.run = _sust(lm, prog, fi, inst)
        d.mem = True
    else:
        raise NotSupportedError(f"not supported: {inst} at {_where(prog, inst)}")


def _dest_regs(prog, inst, op) -> list[ir.Operand | None]:
    if isinstance(op, ir.Vec):
        return list(op.elems)
    if isinstance(op, ir.PredPair):
        raise NotSupportedError(f"not supported: predicate destination of {inst} at {_where(prog, inst)}")
    return [op]


def _tex(lm, prog, fi, inst) -> Callable:

    where = _where(prog, inst)
    ndim = _geom(prog, inst)
    types = inst.types
    if len(types) < 2:
        raise PtxError(f"{where}: {inst} needs a destination and a coordinate type")
    dtyp, ctyp = types[0], types[-1]
    if dtyp not in ("f32", "s32", "u32", "b32") or ctyp not in ("f32", "s32"):
        raise NotSupportedError(f"not supported: {inst} at {where} (types .{dtyp}.{ctyp})")
    dsts = _dest_regs(prog, inst, inst.operands[0])
    hop, cops = _split_ref(prog, inst, inst.operands[1])
    if len(cops) < ndim:
        raise PtxError(f"{where}: {inst} needs {ndim} coordinates")
    hread = make_reader(lm, prog, fi, inst, hop, "u64")
    creads = [make_reader(lm, prog, fi, inst, c, ctyp) for c in cops[:ndim]]
    int_coords = ctyp == "s32"
    is_float = dtyp == "f32"
    raw = dtyp == "b32"
    wtyp = "f32" if is_float else "b32"
    writers = [make_writer(prog, fi, inst, o, wtyp) if o is not None else None for o in dsts]
    gather_comp = -1
    if inst.opcode == "tld4":
        if ndim != 2 or int_coords:
            raise NotSupportedError(f"not supported: {inst} at {where} (tld4 is .2d with .f32 coordinates)")
        gather_comp = next((_COMP[m] for m in inst.mods if m in _COMP), 0)

    def conv(v: np.ndarray) -> np.ndarray:
        if is_float:
            return v.astype(np.float32)
        if raw:   # the component's own bits: float for float/normalised reads, else integer
            if v.dtype.kind == "f":
                return np.ascontiguousarray(v.astype(np.float32)).view(np.uint32)
            return (v.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)
        if v.dtype.kind == "f":
            v = v.astype(np.int64) if dtyp == "s32" else np.clip(v, 0, None).astype(np.int64)
        return (v.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)

    def run(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        n = lanes.size
        outs = [np.zeros(n, dtype=np.float32 if is_float else np.uint32) for _ in range(4)]
        for obj, pos, sub in _per_handle(ex, sel, hread, "tex", where):
            coords = [_vals(r, ex, sel, n, pos) for r in creads]
            if gather_comp >= 0:
                f = T.gather4(ex.gmem, obj, coords, gather_comp)
            else:
                f = T.fetch(ex.gmem, obj, coords, int_coords)
            for a in f.addrs:
                _note(ex, "tex", a, sub, obj.fmt.elem_bytes, False)
            for c in range(4):
                if pos is None:
                    outs[c] = conv(f.comps[c])
                else:
                    outs[c][pos] = conv(f.comps[c])
        for c, w in enumerate(writers):
            if w is not None and c < 4:
                w(ex, sel, outs[c])
    return run


def _query(lm, prog, fi, inst) -> Callable:

    where = _where(prog, inst)
    # PTXPlus's txq (SASS TXQ) queries a texture or a surface header alike
    kind = "any" if inst.sass is not None else "tex" if inst.opcode == "txq" else "surf"
    field = next((m for m in inst.mods if m in T.TXQ_FIELDS), None)
    if field is None:
        raise NotSupportedError(f"not supported: {inst} at {where}")
    hop, _ = _split_ref(prog, inst, inst.operands[1])
    hread = make_reader(lm, prog, fi, inst, hop, "u64")
    w = make_writer(prog, fi, inst, inst.operands[0], "b32")

    def run(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        out = np.zeros(lanes.size, dtype=np.uint32)
        for obj, pos, _sub in _per_handle(ex, sel, hread, kind, where):
            v = T.query(obj, field) & 0xFFFFFFFF
            if pos is None:
                out[:] = v
            else:
                out[pos] = v
        w(ex, sel, out)
    return run


def _surf_common(prog, inst):
    where = _where(prog, inst)
    if not inst.has("b"):
        raise NotSupportedError(f"not supported: {inst} at {where} (only .b surface accesses)")
    ndim = _geom(prog, inst)
    types = inst.types
    if not types:
        raise PtxError(f"{where}: {inst} has no type")
    typ = types[-1]
    ts = ir.TYPE_SIZES[typ]
    vec = 1
    for m in inst.mods:
        if m in ("v2", "v4"):
            vec = int(m[1])
    mode = "zero" if inst.has("zero") else "clamp" if inst.has("clamp") else "trap"
    return where, ndim, typ, ts, vec, mode


def _suld(lm, prog, fi, inst) -> Callable:

    where, ndim, typ, ts, vec, mode = _surf_common(prog, inst)
    dsts = _dest_regs(prog, inst, inst.operands[0])
    if len(dsts) != vec:
        raise PtxError(f"{where}: {inst} needs {vec} destination registers")
    hop, cops = _split_ref(prog, inst, inst.operands[1])
    if len(cops) < ndim:
        raise PtxError(f"{where}: {inst} needs {ndim} coordinates")
    hread = make_reader(lm, prog, fi, inst, hop, "u64")
    creads = [make_reader(lm, prog, fi, inst, c, "s32") for c in cops[:ndim]]
    rtyp = {1: "b8", 2: "b16", 4: "b32", 8: "b64"}[ts]
    raw = dec._RAW[ts]
    writers = [make_writer(prog, fi, inst, o, rtyp) if o is not None else None for o in dsts]
    size = ts * vec
    span = np.arange(size, dtype=np.int64)

    def run(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        n = lanes.size
        data = np.zeros((n, size), dtype=np.uint8)
        for obj, pos, sub in _per_handle(ex, sel, hread, "surf", where):
            c = [_vals(r, ex, sel, n, pos) for r in creads]
            off, bad = T.surface_offsets(obj, c[0], c[1:], size, mode)
            mem = T.surface_bytes(ex.gmem, obj)
            got = mem[off[:, None] + span]
            if bad is not None:
                got[bad] = 0
            _note(ex, "global", (off + obj.base).astype(np.uint64), sub, size, False)
            if pos is None:
                data = got
            else:
                data[pos] = got
        vals = np.ascontiguousarray(data).view(raw)          # (n, vec)
        for i, w in enumerate(writers):
            if w is not None:
                w(ex, sel, vals[:, i].copy())
    return run


def _sust(lm, prog, fi, inst) -> Callable:

    where, ndim, typ, ts, vec, mode = _surf_common(prog, inst)
    hop, cops = _split_ref(prog, inst, inst.operands[0])
    if len(cops) < ndim:
        raise PtxError(f"{where}: {inst} needs {ndim} coordinates")
    src = inst.operands[1]
    srcs = [e for e in src.elems if e is not None] if isinstance(src, ir.Vec) else [src]
    if len(srcs) != vec:
        raise PtxError(f"{where}: {inst} needs {vec} source values")
    rtyp = {1: "b8", 2: "b16", 4: "b32", 8: "b64"}[ts]
    raw = dec._RAW[ts]
    hread = make_reader(lm, prog, fi, inst, hop, "u64")
    creads = [make_reader(lm, prog, fi, inst, c, "s32") for c in cops[:ndim]]
    vreads = [make_reader(lm, prog, fi, inst, s, rtyp) for s in srcs]
    size = ts * vec
    span = np.arange(size, dtype=np.int64)

    def run(ex, sel):
        lanes = ex.all_lanes if sel is None else sel
        n = lanes.size
        vals = np.empty((n, vec), dtype=raw)
        for i, r in enumerate(vreads):
            vals[:, i] = np.broadcast_to(np.asarray(r(ex, sel)).astype(raw, copy=False), (n,))
        data = vals.view(np.uint8).reshape(n, size)
        for obj, pos, sub in _per_handle(ex, sel, hread, "surf", where):
            c = [_vals(r, ex, sel, n, pos) for r in creads]
            off, bad = T.surface_offsets(obj, c[0], c[1:], size, mode)
            d = data if pos is None else data[pos]
            if bad is not None:
                keep = ~bad
                off, d, sub = off[keep], d[keep], sub[keep]
            _note(ex, "global", (off + obj.base).astype(np.uint64), sub, size, True)
            mem = T.surface_bytes(ex.gmem, obj)
            mem[off[:, None] + span] = d
    return run
