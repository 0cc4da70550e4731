"""Warp-level matrix instructions: ``wmma.load``, ``wmma.store``, ``wmma.mma`` and ``mma.sync``
(functional).

GPGPU-Sim counterpart: ``mma_ld_impl``, ``mma_st_impl`` and ``mma_impl`` (``cuda-sim/
instructions.cc``), which GPGPU-Sim times on its tensor-core unit (here ``timing/static.py``
classifies ``wmma.mma`` as TENSOR_CORE_OP and the loads and stores as TENSOR_CORE_LOAD/STORE_OP).

What is covered: every ``wmma`` form the CUDA 13 ``nvcuda::wmma`` API emits for dense
matrices, i.e. the shapes ``m16n16k16``, ``m32n8k16``, ``m8n32k16`` with ``.f16`` inputs and
``.f16`` or ``.f32`` accumulators, ``.bf16`` inputs (``.f32`` accumulators), ``.s8``/``.u8``
inputs (``.s32`` accumulators, ``.satfinite`` clamps), ``m16n16k8`` ``.tf32`` inputs and
``m8n8k4`` ``.f64``; from global, shared or generic addresses, row or column major, with or
without a stride (default: the matrix's leading dimension).  Sub-byte (``.s4``/``.u4``/``.b1``)
fragments are not (``cudaErrorNotSupported`` naming the instruction).

Fragments.  PTX leaves the distribution of a fragment's elements over the warp's lanes
unspecified: a program only moves fragments between ``wmma`` instructions, fills them and
applies the same operation to every element (``frag.x[i] *= alpha``).  So any fixed mapping
gives the same results as the hardware; the one used here is: slot ``j`` of lane ``l`` (the
fragment's registers unpacked in order, low half / low byte first) holds element
``(l * S + j) mod (rows * cols)`` of the matrix in row-major order, ``S`` being the slots per
lane.  Where a fragment has more slots than elements (``.f16`` a/b fragments hold every element
two or four times, as on the hardware) the copies are equal, and ``wmma.mma`` reads the first.

``mma.sync`` fragments, unlike ``wmma``'s, are specified by the PTX ISA (which lane holds which
element) and are used as such by hand-written code: :func:`decode_mma_sync` implements them for
``m16n8k8`` and ``m16n8k16`` with ``.f16``/``.bf16`` inputs and ``.f16``/``.f32`` accumulators;
other ``mma`` shapes and types, ``ldmatrix`` and ``stmatrix`` are not implemented.

Arithmetic: products and sums in float64 (int64 for integers), rounded once to the result type;
exact wherever the inputs are representable with few bits, which is what tests use (the tensor
cores' internal order of summation is not modelled).  ``.tf32`` inputs keep 10 mantissa bits
(the low 13 bits of the f32 ignored, as the hardware does); ``.bf16`` values are the upper half
of an f32.  Every lane of a warp that executes a ``wmma`` instruction must be active (``.sync
.aligned``); otherwise the instruction fails with ``cudaErrorLaunchFailure`` naming it.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np

from gpgpusim.errors import CudaError, Err, NotSupportedError
from gpgpusim.ptx import ir

#: element type -> (bytes in memory, elements per fragment register, register access type)
_ELEM = {
    "f16": (2, 2, "b32"), "bf16": (2, 2, "b32"), "tf32": (4, 1, "b32"),
    "s8": (1, 4, "b32"), "u8": (1, 4, "b32"),
    "f32": (4, 1, "b32"), "s32": (4, 1, "b32"), "f64": (8, 1, "b64"),
}
_RAW = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def decode(lm: Any, prog: Any, fi: Any, inst: ir.Instruction, d: Any) -> None:
    """Fill ``d`` (a ``DInst``) for a ``wmma`` instruction (``d.run``; loads and stores are
    memory instructions)."""
    from .handlers import _addr, _space_of, _where, make_reader, make_writer

    mods = inst.mods
    shape = next((m for m in mods if re.fullmatch(r"m\d+n\d+k\d+", m)), None)
    if shape is None:
        raise NotSupportedError(f"not supported: {inst} at {_where(prog, inst)} (no wmma shape)")
    m, n, k = (int(x) for x in re.findall(r"\d+", shape))
    kind = mods[0]
    where = f"{inst} at {_where(prog, inst)}"

    def regs_of(op: ir.Operand) -> list[ir.Operand]:
        if not isinstance(op, ir.Vec) or any(e is None for e in op.elems):
            raise NotSupportedError(f"not supported: {where} (fragment operand)")
        return [e for e in op.elems if e is not None]

    def elem(t: str) -> tuple[int, int, str]:
        if t not in _ELEM:
            raise NotSupportedError(f"not supported: {where} (.{t} fragments)")
        return _ELEM[t]

    if kind in ("load", "store"):
        frag = mods[1]
        t = inst.types[-1] if inst.types else ""
        size, per_reg, rtyp = elem(t)
        rows, cols = {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[frag]
        col_major = "col" in mods
        space, const, afn = _addr(lm, prog, fi, inst, inst.operands[1 if kind == "load" else 0], _space_of(inst))
        frag_op = inst.operands[0 if kind == "load" else 1]
        regs = regs_of(frag_op)
        stride_op = inst.operands[2] if len(inst.operands) > 2 else None
        stride_rd = make_reader(lm, prog, fi, inst, stride_op, "u32") if stride_op is not None else None
        lead = rows if col_major else cols            # the default stride: the leading dimension
        layout = _Layout(rows, cols, len(regs) * per_reg, col_major)
        bits = size * 8
        raw = np.dtype(_RAW[size])
        if kind == "load":
            writers = [make_writer(prog, fi, inst, r, rtyp) for r in regs]

            def wmma_load(ex: Any, sel: Any) -> None:
                lanes, base, stride = _warp_args(ex, sel, const, afn, stride_rd, lead, where)
                vals = []
                for j in range(layout.slots):
                    vals.append(ex.load(space, base + layout.offsets(lanes, j, stride, size), lanes, raw))
                _pack(ex, sel, writers, vals, per_reg, bits)
            d.run = wmma_load
        else:
            readers = [make_reader(lm, prog, fi, inst, r, rtyp) for r in regs]

            def wmma_store(ex: Any, sel: Any) -> None:
                lanes, base, stride = _warp_args(ex, sel, const, afn, stride_rd, lead, where)
                vals = _unpack(ex, sel, readers, per_reg, bits, lanes.size)
                for j in range(layout.slots):
                    ex.store(space, base + layout.offsets(lanes, j, stride, size), lanes,
                             vals[j].astype(raw))
            d.run = wmma_store
        d.mem = True
        return
    if kind != "mma":
        raise NotSupportedError(f"not supported: {where}")
    ts = inst.types
    if len(ts) == 2:                                  # .dtype.ctype: f16 inputs
        dt, at, bt, ct = ts[0], "f16", "f16", ts[1]
    elif len(ts) == 4:
        dt, at, bt, ct = ts
    else:
        raise NotSupportedError(f"not supported: {where} (types)")
    sat = "satfinite" in mods
    parts = []
    for op, t, (rows, cols) in zip(inst.operands, (dt, at, bt, ct), ((m, n), (m, k), (k, n), (m, n)), strict=True):
        size, per_reg, rtyp = elem(t)
        regs = regs_of(op)
        parts.append((t, size, per_reg, rtyp, regs, _Layout(rows, cols, len(regs) * per_reg, False)))
    (_, dsize, dper, drtyp, dregs, dlay) = parts[0]
    writers = [make_writer(prog, fi, inst, r, drtyp) for r in dregs]
    src = [(t, size, per_reg, [make_reader(lm, prog, fi, inst, r, rtyp) for r in regs], lay)
           for (t, size, per_reg, rtyp, regs, lay) in parts[1:]]

    def wmma_mma(ex: Any, sel: Any) -> None:
        lanes = _full_warps(ex, sel, where)
        nw = lanes.size // 32
        mats = []
        for t, size, per_reg, readers, lay in src:
            vals = _unpack(ex, sel, readers, per_reg, size * 8, lanes.size)
            mats.append(lay.gather(vals, nw, _decoder(t)))
        a, b, c = mats
        a = a.reshape(nw, m, k)
        b = b.reshape(nw, k, n)
        acc = np.matmul(a, b) + c.reshape(nw, m, n)
        out = _encode(dt, acc.reshape(nw, m * n), sat)
        _pack(ex, sel, writers, dlay.scatter(out, nw), dper, dsize * 8)
    d.run = wmma_mma


def _mma_sync_elems(frag: str, shape: str, slots: int) -> np.ndarray | None:
    """``(lane, slot) -> row * cols + col`` of an ``mma.sync`` fragment with 16-bit inputs, as
    the PTX ISA lays them out (``groupID = lane >> 2``, ``threadID_in_group = lane % 4``), or
    None for a fragment this module does not implement."""
    lane = np.arange(32)[:, None]
    i = np.arange(slots)[None, :]
    g, t = lane >> 2, lane & 3
    if frag == "a" and shape == "m16n8k16" and slots == 8:
        row, col, cols = g + 8 * ((i // 2) % 2), t * 2 + (i & 1) + 8 * (i // 4), 16
    elif frag == "a" and shape == "m16n8k8" and slots == 4:
        row, col, cols = g + 8 * (i // 2), t * 2 + (i & 1), 8
    elif frag == "b" and shape == "m16n8k16" and slots == 4:
        row, col, cols = t * 2 + (i & 1) + 8 * (i // 2), g, 8
    elif frag == "b" and shape == "m16n8k8" and slots == 2:
        row, col, cols = t * 2 + i, g, 8
    elif frag == "c" and slots == 4:
        row, col, cols = g + 8 * (i // 2), t * 2 + (i & 1), 8
    else:
        return None
    return np.asarray(row * cols + col, dtype=np.int64)


def decode_mma_sync(lm: Any, prog: Any, fi: Any, inst: ir.Instruction, d: Any) -> None:
    """``mma.sync.aligned.{m16n8k8,m16n8k16}.row.col`` with ``.f16``/``.bf16`` inputs and
    ``.f16``/``.f32`` accumulators (what CUDA code reaches through inline PTX and libraries
    such as CUTLASS), on the fragments the PTX ISA specifies; other shapes and types fail with
    ``cudaErrorNotSupported`` naming the instruction."""
    from .handlers import _where, make_reader, make_writer

    where = f"{inst} at {_where(prog, inst)}"
    mods = inst.mods
    shape = next((m for m in mods if re.fullmatch(r"m\d+n\d+k\d+", m)), "")
    ts = inst.types
    if shape not in ("m16n8k8", "m16n8k16") or len(ts) != 4 or ts[1] != ts[2] or ts[1] not in ("f16", "bf16") \
            or ts[0] not in ("f16", "f32") or ts[3] not in ("f16", "f32") or "row" not in mods or "col" not in mods:
        raise NotSupportedError(f"not supported: {where} (mma.sync: m16n8k8/m16n8k16 .row.col with .f16/.bf16 "
                                f"inputs only)")
    m, n, k = (int(x) for x in re.findall(r"\d+", shape))
    dt, at, _, ct = ts
    parts = []
    for op, t, frag, (rows, cols) in zip(inst.operands, (dt, at, at, ct), ("c", "a", "b", "c"),
                                         ((m, n), (m, k), (k, n), (m, n)), strict=True):
        if not isinstance(op, ir.Vec) or any(e is None for e in op.elems):
            raise NotSupportedError(f"not supported: {where} (fragment operand)")
        regs = [e for e in op.elems if e is not None]
        size, per_reg, rtyp = _ELEM[t]
        elems = _mma_sync_elems(frag, shape, len(regs) * per_reg)
        if elems is None:
            raise NotSupportedError(f"not supported: {where} ({len(regs)}-register {frag} fragment)")
        parts.append((t, size, per_reg, rtyp, regs, _Layout(rows, cols, len(regs) * per_reg, False, elems)))
    _, dsize, dper, drtyp, dregs, dlay = parts[0]
    writers = [make_writer(prog, fi, inst, r, drtyp) for r in dregs]
    src = [(t, size, per_reg, [make_reader(lm, prog, fi, inst, r, rtyp) for r in regs], lay)
           for (t, size, per_reg, rtyp, regs, lay) in parts[1:]]

    def mma_sync(ex: Any, sel: Any) -> None:
        lanes = _full_warps(ex, sel, where)
        nw = lanes.size // 32
        a, b, c = (lay.gather(_unpack(ex, sel, readers, per_reg, size * 8, lanes.size), nw, _decoder(t))
                   for t, size, per_reg, readers, lay in src)
        acc = np.matmul(a.reshape(nw, m, k), b.reshape(nw, k, n)) + c.reshape(nw, m, n)
        _pack(ex, sel, writers, dlay.scatter(_encode(dt, acc.reshape(nw, m * n), False), nw), dper, dsize * 8)
    d.run = mma_sync


class _Layout:
    """The fragment mapping of the module docstring for a ``rows x cols`` matrix, ``slots``
    slots per lane."""

    def __init__(self, rows: int, cols: int, slots: int, col_major: bool,
                 elem: np.ndarray | None = None) -> None:
        self.rows, self.cols, self.slots, self.col_major = rows, cols, slots, col_major
        self.total = rows * cols
        lane = np.arange(32)
        #: element (row-major index) of each (lane, slot); ``elem`` gives it explicitly
        #: (``mma.sync``'s documented fragments)
        self.elem = ((lane[:, None] * slots + np.arange(slots)[None, :]) % self.total
                     if elem is None else elem)
        #: the (lane, slot) holding each element first
        first = np.full(self.total, -1, dtype=np.int64)
        flat = self.elem.ravel()
        for pos in range(flat.size - 1, -1, -1):
            first[flat[pos]] = pos
        self.first = first

    def offsets(self, lanes: np.ndarray, j: int, stride: np.ndarray, size: int) -> np.ndarray:
        """Byte offsets of slot ``j``'s elements for ``lanes`` (``stride`` per lane, elements)."""
        e = self.elem[lanes & 31, j]
        r, c = e // self.cols, e % self.cols
        idx = c * stride + r if self.col_major else r * stride + c
        return (idx * size).astype(np.uint64)

    def gather(self, vals: list[np.ndarray], nw: int, decode: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``(warps, elements)`` of the matrix from its slots (``vals[j]``: one per lane)."""
        slots = np.stack([decode(v) for v in vals], axis=1).reshape(nw, 32 * self.slots)
        return slots[:, self.first]

    def scatter(self, mat: np.ndarray, nw: int) -> list[np.ndarray]:
        """The slots (one array per slot, one value per lane) holding ``(warps, elements)``."""
        per_lane = mat[:, self.elem]                  # (warps, 32, slots)
        return [per_lane[:, :, j].reshape(nw * 32) for j in range(self.slots)]


def _full_warps(ex: Any, sel: Any, where: str) -> np.ndarray:
    lanes = ex.all_lanes if sel is None else sel
    g = lanes.reshape(-1, 32) if lanes.size % 32 == 0 else None
    if g is None or not ((g & 31) == np.arange(32)).all() or not ((g >> 5) == (g[:, :1] >> 5)).all():
        raise CudaError(Err.LaunchFailure, f"{where}: a wmma instruction needs all 32 lanes of the warp "
                                           f"active (.sync.aligned)", sticky=True)
    return lanes


def _warp_args(ex: Any, sel: Any, const: Any, afn: Any, stride_rd: Any, lead: int,
               where: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lanes, each lane's warp's matrix address (lane 0's) and stride (elements)."""
    from .handlers import _lane_addrs

    lanes = _full_warps(ex, sel, where)
    addr = _lane_addrs(const, afn, ex, sel, lanes.size).astype(np.uint64)
    base = np.repeat(addr.reshape(-1, 32)[:, 0], 32)
    if stride_rd is None:
        stride = np.full(lanes.size, lead, dtype=np.int64)
    else:
        s = np.broadcast_to(np.asarray(stride_rd(ex, sel), dtype=np.int64), (lanes.size,))
        stride = np.repeat(s.reshape(-1, 32)[:, 0], 32)
    return lanes, base, stride


def _pack(ex: Any, sel: Any, writers: list[Any], vals: list[np.ndarray], per_reg: int, bits: int) -> None:
    """Write slot values (raw bits) into the fragment registers, ``per_reg`` to a register."""
    for r, w in enumerate(writers):
        v = np.zeros(vals[0].shape, dtype=np.uint64)
        for i in range(per_reg):
            v |= vals[r * per_reg + i].astype(np.uint64) << np.uint64(bits * i)
        w(ex, sel, v.astype(np.uint32 if bits * per_reg <= 32 else np.uint64))


def _unpack(ex: Any, sel: Any, readers: list[Any], per_reg: int, bits: int, n: int) -> list[np.ndarray]:
    """The slot values (raw bits, uint64) of the fragment registers."""
    mask = np.uint64((1 << bits) - 1)
    out = []
    for rd in readers:
        v = np.broadcast_to(np.asarray(rd(ex, sel)), (n,)).astype(np.uint64)
        for i in range(per_reg):
            out.append((v >> np.uint64(bits * i)) & mask)
    return out


def _decoder(t: str) -> Callable[[np.ndarray], np.ndarray]:
    """Raw bits (uint64) -> values (float64 or int64) of element type ``t``."""
    if t == "f16":
        return lambda v: v.astype(np.uint16).view(np.float16).astype(np.float64)
    if t == "bf16":
        return lambda v: (v.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    if t == "tf32":
        return lambda v: (v.astype(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    if t == "f32":
        return lambda v: v.astype(np.uint32).view(np.float32).astype(np.float64)
    if t == "f64":
        return lambda v: v.view(np.float64)
    if t == "s8":
        return lambda v: v.astype(np.uint8).view(np.int8).astype(np.int64)
    if t == "u8":
        return lambda v: v.astype(np.int64)
    if t == "s32":
        return lambda v: v.astype(np.uint32).view(np.int32).astype(np.int64)
    raise NotSupportedError(f"not supported: wmma .{t} fragments")


def _encode(t: str, acc: np.ndarray, sat: bool) -> np.ndarray:
    """Values -> raw bits (uint64) of result type ``t``."""
    if t == "f16":
        return acc.astype(np.float16).view(np.uint16).astype(np.uint64)
    if t == "f32":
        return acc.astype(np.float32).view(np.uint32).astype(np.uint64)
    if t == "f64":
        return acc.astype(np.float64).view(np.uint64)
    if t == "s32":
        a = acc.astype(np.int64)
        if sat:
            a = np.clip(a, -(1 << 31), (1 << 31) - 1)
        return (a & 0xFFFFFFFF).astype(np.uint64)
    raise NotSupportedError(f"not supported: wmma result .{t}")
