"""Warp-level matrix instructions: ``wmma.load``, ``wmma.store``, ``wmma.mma``, ``mma.sync``,
``ldmatrix`` and ``stmatrix`` (functional).

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
element) and are used as such by hand-written code: :func:`decode_mma_sync` implements them
(:func:`mma_sync_elems`) for the dense forms: ``m8n8k4`` (four products per warp, one per
quad-pair, any ``.row``/``.col`` layouts), ``m16n8k8`` and ``m16n8k16`` with ``.f16`` inputs;
``m16n8k8``/``m16n8k16`` ``.bf16``; ``m16n8k4``/``m16n8k8`` ``.tf32``; ``m8n8k4``, ``m16n8k4``,
``m16n8k8``, ``m16n8k16`` ``.f64``; ``m8n8k16``, ``m16n8k16``, ``m16n8k32`` ``.s8``/``.u8`` and
``m8n8k32``, ``m16n8k32``, ``m16n8k64`` ``.s4``/``.u4`` (signedness of A and B independent,
``.s32`` accumulators, ``.satfinite`` clamps, otherwise they wrap).  ``.b1``, fp8/fp6/fp4,
block-scaled and sparse (``mma.sp``) forms are not implemented.  :func:`decode_ldmatrix`
implements ``ldmatrix`` and ``stmatrix`` (sm_90) ``.m8n8`` ``.x1/.x2/.x4`` ``{.trans}`` ``.b16``
as the PTX ISA lays their registers out; ``.m16n16``/``.m8n16`` (``.b8``, sm_100) are not.

Timing: ``mma`` is a TENSOR_CORE_OP (``timing/static.py``); ``ldmatrix`` and ``stmatrix`` are
shared-memory loads and stores on the LD/ST unit, one 16-bit access per element a lane moves
(``timing/static.build_table``).

Arithmetic: products and sums in float64 (int64 for integers), rounded once to the result type;
exact wherever the inputs are representable with few bits, which is what tests use (the tensor
cores' internal order of summation is not modelled).  ``.tf32`` inputs keep 10 mantissa bits
(the low 13 bits of the f32 ignored, as the hardware does); ``.bf16`` values are the upper half
of an f32.  Every lane of a warp that executes one of these instructions must be active
(``.sync.aligned``); otherwise the instruction fails with ``cudaErrorLaunchFailure`` naming it.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np

from gpgpusim.errors import CudaError, Err, NotSupportedError
from gpgpusim.ptx import ir

from .operands import _addr, _lane_addrs, _space_of, _where, make_reader, make_writer

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
    frags = []
    for op, t, (rows, cols) in zip(inst.operands, (dt, at, bt, ct), ((m, n), (m, k), (k, n), (m, n)), strict=True):
        size, per_reg, rtyp = elem(t)
        regs = regs_of(op)
        frags.append((t, size * 8, per_reg, rtyp, regs, _Layout(rows, cols, len(regs) * per_reg, False)))
    d.run = _mma_run(lm, prog, fi, inst, frags, (m, n, k), 1, sat, where)


def _mma_run(lm: Any, prog: Any, fi: Any, inst: ir.Instruction, frags: list[tuple[Any, ...]],
             mnk: tuple[int, int, int], groups: int, sat: bool, where: str) -> Callable[[Any, Any], None]:
    """The ``run`` of a warp-level ``D = A B + C``: ``frags`` are D, A, B, C as ``(type, bits,
    elements per register, register access type, registers, layout)``; each warp computes
    ``groups`` independent products (4 for ``mma.m8n8k4`` with ``.f16``, else 1)."""

    m, n, k = mnk
    dt, dbits, dper, drtyp, dregs, dlay = frags[0]
    writers = [make_writer(prog, fi, inst, r, drtyp) for r in dregs]
    src = [(_decoder(t), bits, per_reg, [make_reader(lm, prog, fi, inst, r, rtyp) for r in regs], lay)
           for (t, bits, per_reg, rtyp, regs, lay) in frags[1:]]

    def mma(ex: Any, sel: Any) -> None:
        lanes = _full_warps(ex, sel, where)
        nw = lanes.size // 32
        a, b, c = (lay.gather(_unpack(ex, sel, readers, per_reg, bits, lanes.size), nw, dec)
                   for dec, bits, per_reg, readers, lay in src)
        g = nw * groups
        acc = np.matmul(a.reshape(g, m, k), b.reshape(g, k, n)) + c.reshape(g, m, n)
        _pack(ex, sel, writers, dlay.scatter(_encode(dt, acc.reshape(nw, groups * m * n), sat), nw), dper, dbits)
    return mma


#: ``mma.sync`` element type -> (bits, elements per fragment register, register access type)
_MMA_REG = {
    "f16": (16, 2, "b32"), "bf16": (16, 2, "b32"), "tf32": (32, 1, "b32"), "f32": (32, 1, "b32"),
    "f64": (64, 1, "b64"), "s8": (8, 4, "b32"), "u8": (8, 4, "b32"), "s4": (4, 8, "b32"),
    "u4": (4, 8, "b32"), "s32": (32, 1, "b32"),
}
#: input type -> (its class, the accumulator types allowed)
_MMA_IN = {"f16": ("f16", ("f16", "f32")), "bf16": ("bf16", ("f32",)), "tf32": ("tf32", ("f32",)),
           "f64": ("f64", ("f64",)), "s8": ("i8", ("s32",)), "u8": ("i8", ("s32",)),
           "s4": ("i4", ("s32",)), "u4": ("i4", ("s32",))}
#: the ``mma.sync`` shapes implemented for each input class (PTX ISA, "Matrix shape")
_MMA_SHAPES = {
    "f16": ("m8n8k4", "m16n8k8", "m16n8k16"), "bf16": ("m16n8k8", "m16n8k16"),
    "tf32": ("m16n8k4", "m16n8k8"), "f64": ("m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"),
    "i8": ("m8n8k16", "m16n8k16", "m16n8k32"), "i4": ("m8n8k32", "m16n8k32", "m16n8k64"),
}
_MMA_TYPES = set(_MMA_REG) | {"b1", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "ue8m0", "ue4m3"}


def mma_sync_elems(frag: str, shape: str, t: str, slots: int, layout: str = "row") -> tuple[np.ndarray, int] | None:
    """``((lane, slot) -> element, groups)`` of an ``mma.sync`` fragment as the PTX ISA lays it
    out ("Matrix fragments for mma.m*n*k*"), or None when ``slots`` is not the fragment's size.

    ``frag`` is ``a`` (M x K), ``b`` (K x N) or ``c`` (M x N, also D); ``t`` the element type;
    ``layout`` the ``.row``/``.col`` qualifier of A or B (only ``m8n8k4`` with ``.f16`` has a
    choice).  The element index is ``group * rows * cols + row * cols + col`` with ``groups``
    independent matrices per warp: 4 for ``m8n8k4`` ``.f16`` (one per quad-pair: lanes 4q..4q+3
    and 4q+16..4q+19), else 1.  Every other shape uses ``groupID = lane >> 2``,
    ``threadID_in_group = lane % 4`` and ``E`` elements per 32-bit register (1 for ``.f64``):
    slot ``i`` of register ``r = i // E``, ``j = i % E``; A: row ``g + 8 (r % 2)``, column
    ``t E + j + 4 E (r // 2)``; B: row ``t E + j + 4 E r``, column ``g``; C/D: row
    ``g + 8 (i // 2)``, column ``2 t + i % 2``."""
    m, n, k = (int(x) for x in re.findall(r"\d+", shape))
    rows, cols = {"a": (m, k), "b": (k, n), "c": (m, n)}[frag]
    lane = np.arange(32)[:, None]
    i = np.arange(slots)[None, :]
    if shape == "m8n8k4" and t in ("f16", "f32") and (frag == "c" or t == "f16"):
        if slots != {"a": 4, "b": 4, "c": 8}[frag]:
            return None
        q, hi, quad = (lane >> 2) & 3, 4 * (lane >> 4), lane & 3
        if frag == "a":
            row, col = (quad + hi, i + 0 * lane) if layout == "row" else (i + hi, quad + 0 * i)
        elif frag == "b":
            row, col = (quad + 0 * i, i + hi) if layout == "row" else (i + 0 * lane, quad + hi)
        elif t == "f16":
            row, col = quad + hi + 0 * i, i + 0 * lane
        else:
            row, col = (lane & 1) + (i & 2) + hi, (i & 4) + (lane & 2) + (i & 1)
        return np.asarray(q * rows * cols + row * cols + col, dtype=np.int64), 4
    if slots * 32 != rows * cols:
        return None
    g, tg = lane >> 2, lane & 3
    e = _MMA_REG[t][1]
    r, j = i // e, i % e
    if frag == "a":
        row, col = g + 8 * (r % 2), tg * e + j + 4 * e * (r // 2)
    elif frag == "b":
        row, col = tg * e + j + 4 * e * r, g + 0 * i
    else:
        row, col = g + 8 * (i // 2), 2 * tg + i % 2
    return np.asarray(row * cols + col, dtype=np.int64), 1


def decode_mma_sync(lm: Any, prog: Any, fi: Any, inst: ir.Instruction, d: Any) -> None:
    """``mma.sync.aligned``: the dense shapes and types of :data:`_MMA_SHAPES` (f16 with f16 or
    f32 accumulators, bf16, tf32, f64, s8/u8 and s4/u4 with s32 accumulators and optional
    ``.satfinite``), on the fragments the PTX ISA specifies (:func:`mma_sync_elems`); other
    forms (``.b1``, fp8, block scaling, sparse ``mma.sp``) fail with ``cudaErrorNotSupported``
    naming the instruction."""

    where = f"{inst} at {_where(prog, inst)}"
    mods = inst.mods
    shape = next((x for x in mods if re.fullmatch(r"m\d+n\d+k\d+", x)), "")
    ts = [x for x in mods if x in _MMA_TYPES]
    layouts = [x for x in mods if x in ("row", "col")]
    ok = len(ts) == 4 and len(layouts) == 2 and ts[1] in _MMA_IN and ts[2] in _MMA_IN \
        and len(inst.operands) == 4 and not any(x == "sp" or x.startswith("sp::") for x in mods)
    if ok:
        cls, accs = _MMA_IN[ts[1]]
        ok = (_MMA_IN[ts[2]][0] == cls and (ts[1] == ts[2] or cls in ("i8", "i4")) and ts[0] in accs
              and ts[3] in accs and shape in _MMA_SHAPES[cls] and not any(x.startswith("kind") for x in mods)
              and (layouts == ["row", "col"] or (shape == "m8n8k4" and cls == "f16"))
              and ("satfinite" not in mods or cls in ("i8", "i4"))
              # f16: D and C of one type, except m8n8k4's f32 D from f16 C
              and (ts[0] == ts[3] or (shape == "m8n8k4" and ts[0] == "f32")))
    if not ok:
        raise NotSupportedError(f"not supported: {where} (mma.sync: the dense f16, bf16, tf32, f64, s8/u8 "
                                f"and s4/u4 shapes of the PTX ISA only)")
    m, n, k = (int(x) for x in re.findall(r"\d+", shape))
    frags = []
    groups = 1
    for op, t, frag, lay in zip(inst.operands, ts, ("c", "a", "b", "c"), ("", layouts[0], layouts[1], ""),
                                strict=True):
        if not isinstance(op, ir.Vec) or any(e is None for e in op.elems):
            raise NotSupportedError(f"not supported: {where} (fragment operand)")
        regs = [e for e in op.elems if e is not None]
        bits, per_reg, rtyp = _MMA_REG[t]
        got = mma_sync_elems(frag, shape, t, len(regs) * per_reg, lay)
        if got is None:
            raise NotSupportedError(f"not supported: {where} ({len(regs)}-register {frag} fragment)")
        elems, groups = got
        rows, cols = {"a": (m, k), "b": (k, n), "c": (m, n)}[frag]
        frags.append((t, bits, per_reg, rtyp, regs, _Layout(rows * groups, cols, len(regs) * per_reg, False, elems)))
    d.run = _mma_run(lm, prog, fi, inst, frags, (m, n, k), groups, "satfinite" in mods, where)


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
        raise CudaError(Err.LaunchFailure, f"{where}: a warp-level matrix instruction needs all 32 lanes "
                                           f"of the warp active (.sync.aligned)", sticky=True)
    return lanes


def _warp_args(ex: Any, sel: Any, const: Any, afn: Any, stride_rd: Any, lead: int,
               where: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lanes, each lane's warp's matrix address (lane 0's) and stride (elements)."""

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
    if t == "s4":
        return lambda v: ((v.astype(np.int64) & 0xF) ^ 8) - 8
    if t == "u4":
        return lambda v: v.astype(np.int64) & 0xF
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


def decode_ldmatrix(lm: Any, prog: Any, fi: Any, inst: ir.Instruction, d: Any) -> None:
    """``ldmatrix``/``stmatrix`` ``.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16``:
    the warp loads (stores) 1, 2 or 4 8x8 matrices of 16-bit elements between shared memory and
    one 32-bit register per matrix, as the PTX ISA specifies: lanes ``8q..8q+7`` give the
    addresses of rows 0-7 of matrix ``q``; lane ``l``'s register ``q`` holds elements
    ``(l >> 2, 2 (l % 4))`` and ``(l >> 2, 2 (l % 4) + 1)`` of matrix ``q`` (low half first), or
    with ``.trans`` elements ``(2 (l % 4), l >> 2)`` and ``(2 (l % 4) + 1, l >> 2)``.  The other
    shapes (``.m16n16``, ``.m8n16``, ``.b8``; sm_100) fail with ``cudaErrorNotSupported`` naming
    the instruction."""

    where = f"{inst} at {_where(prog, inst)}"
    mods = inst.mods
    store = inst.opcode == "stmatrix"
    num = next((int(x[1]) for x in mods if x in ("x1", "x2", "x4")), 0)
    frag_op, aop = (inst.operands[1], inst.operands[0]) if store else inst.operands[:2]
    elems = list(frag_op.elems) if isinstance(frag_op, ir.Vec) else []
    regs = [e for e in elems if e is not None]
    space = _space_of(inst)
    if "m8n8" not in mods or inst.types != ("b16",) or num == 0 or len(regs) != num or len(elems) != num \
            or space not in ("shared", "generic"):
        raise NotSupportedError(f"not supported: {where} ({inst.opcode}: .m8n8 .x1/.x2/.x4 .b16 from "
                                f"shared memory only)")
    space, const, afn = _addr(lm, prog, fi, inst, aop, space)
    lane = np.arange(32)
    # (matrix q, half h) -> the lane giving the row's address, the byte offset in the row
    if "trans" in mods:
        rows = [[q * 8 + 2 * (lane & 3) + h for h in (0, 1)] for q in range(num)]
        offs = [[(lane >> 2).astype(np.uint64) * np.uint64(2)] * 2 for _ in range(num)]
    else:
        rows = [[q * 8 + (lane >> 2)] * 2 for q in range(num)]
        offs = [[(2 * (lane & 3) + h).astype(np.uint64) * np.uint64(2) for h in (0, 1)] for _ in range(num)]
    u16 = np.dtype(np.uint16)

    def addrs(ex: Any, sel: Any) -> tuple[np.ndarray, np.ndarray]:
        lanes = _full_warps(ex, sel, where)
        return lanes, _lane_addrs(const, afn, ex, sel, lanes.size).astype(np.uint64).reshape(-1, 32)

    if store:
        readers = [make_reader(lm, prog, fi, inst, r, "b32") for r in regs]

        def stmatrix(ex: Any, sel: Any) -> None:
            lanes, a = addrs(ex, sel)
            for q, rd in enumerate(readers):
                v = np.broadcast_to(np.asarray(rd(ex, sel)), (lanes.size,)).astype(np.uint32)
                for h in (0, 1):
                    ex.store(space, (a[:, rows[q][h]] + offs[q][h]).reshape(-1), lanes,
                             ((v >> np.uint32(16 * h)) & np.uint32(0xFFFF)).astype(np.uint16))
        d.run = stmatrix
    else:
        writers = [make_writer(prog, fi, inst, r, "b32") for r in regs]

        def ldmatrix(ex: Any, sel: Any) -> None:
            lanes, a = addrs(ex, sel)
            for q, w in enumerate(writers):
                lo, hi = (ex.load(space, (a[:, rows[q][h]] + offs[q][h]).reshape(-1), lanes, u16).astype(np.uint32)
                          for h in (0, 1))
                w(ex, sel, lo | (hi << np.uint32(16)))
        d.run = ldmatrix
    d.mem = True
