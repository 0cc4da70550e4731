"""Helpers for the semantics tests: build an ``ir.Instruction`` from its dotted name and run
its OpSpec on Python values (one lane per list element)."""

from __future__ import annotations

import struct
from fractions import Fraction

import numpy as np

from gpgpusim.functional.semantics import dtype_of, lookup
from gpgpusim.ptx import ir


def inst(name: str, n_src: int, *, pair: bool = False, imm: dict[int, int] | None = None,
         vec_src: int = 0, vec_dst: int = 0) -> ir.Instruction:
    """``name`` like ``add.sat.s32``; ``n_src`` register sources; ``imm`` maps a source index
    to an immediate value; ``vec_src``/``vec_dst`` make a mov pack/unpack."""
    opcode, *mods = name.split(".")
    dst: ir.Operand = ir.Reg("%d")
    if pair:
        dst = ir.PredPair(ir.Reg("%p"), ir.Reg("%q"))
    if vec_dst:
        dst = ir.Vec(tuple(ir.Reg(f"%e{i}") for i in range(vec_dst)))
    srcs: list[ir.Operand] = []
    if vec_src:
        srcs.append(ir.Vec(tuple(ir.Reg(f"%s{i}") for i in range(vec_src))))
    else:
        for i in range(n_src):
            if imm and i in imm:
                srcs.append(ir.Imm(imm[i]))
            else:
                srcs.append(ir.Reg(f"%s{i}"))
    return ir.Instruction(opcode, tuple(mods), (dst, *srcs), line=7, text=name)


def run(name: str, *args, pair: bool = False, imm: dict[int, int] | None = None, cc: int | None = None,
        vec_src: int = 0, vec_dst: int = 0):
    """Execute ``name`` on lanes: each arg is a scalar or a list (broadcast to a common length).
    ``cc`` appends a carry-in.  Returns numpy arrays (tuple for several destinations)."""
    n_src = len(args)
    spec = lookup(inst(name, n_src, pair=pair, imm=imm, vec_src=vec_src, vec_dst=vec_dst))
    assert spec is not None, name
    vals = list(args)
    if cc is not None:
        vals.append(cc)
    n = max((len(v) for v in vals if isinstance(v, (list, tuple, np.ndarray))), default=1)
    arrays = []
    for v, t in zip(vals, spec.src_types, strict=True):
        arrays.append(to_array(v, t, n))
    return spec.fn(*arrays)


def to_array(v, t: str, n: int) -> np.ndarray:
    dt = dtype_of(t)
    seq = list(v) if isinstance(v, (list, tuple, np.ndarray)) else [v] * n
    if dt.kind in "ui":
        # accept negative literals for unsigned types (two's complement) and vice versa
        bits = dt.itemsize * 8
        return np.array([int(x) & ((1 << bits) - 1) for x in seq], dtype=f"u{dt.itemsize}").view(dt)
    return np.array(seq, dtype=dt)


def f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def bits32(x) -> int:
    return int(np.asarray(x, dtype=np.float32).view(np.uint32))


def bits64(x) -> int:
    return int(np.asarray(x, dtype=np.float64).view(np.uint64))


def as_list(x) -> list:
    return np.asarray(x).tolist()


def ref_round(q: Fraction, dtype, mode: str):
    """Exact rational -> nearest representable of ``dtype`` in ``mode`` (finite results)."""
    dt = np.dtype(dtype).type
    c = dt(float(q))
    while np.isinf(c) or Fraction(float(c)) > q:
        c = np.nextafter(c, dt(-np.inf))
    while Fraction(float(np.nextafter(c, dt(np.inf)))) <= q:
        c = np.nextafter(c, dt(np.inf))
    lo = c
    if Fraction(float(lo)) == q:
        return lo
    hi = np.nextafter(lo, dt(np.inf))
    if mode == "rm":
        return lo
    if mode == "rp":
        return hi
    if mode == "rz":
        return lo if q > 0 else hi
    dlo, dhi = q - Fraction(float(lo)), Fraction(float(hi)) - q
    if dlo != dhi:
        return lo if dlo < dhi else hi
    ubits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]
    return lo if int(np.asarray(lo).view(ubits)) % 2 == 0 else hi


def check_fresh(fn, srcs, key) -> None:
    """The contract the engine relies on to adopt a result as a register without copying it:
    ``fn`` keeps no array it returns -- each result that owns its memory and is not an input
    is new at every call (two calls share no memory)."""
    import numpy as np

    first, second = fn(*srcs), fn(*srcs)
    firsts = first if isinstance(first, tuple) else (first,)
    seconds = second if isinstance(second, tuple) else (second,)
    for a, b in zip(firsts, seconds, strict=True):
        if not isinstance(a, np.ndarray) or any(a is x for x in srcs) or not a.flags.owndata:
            continue
        assert a is not b and not np.shares_memory(a, b), key
        assert not any(isinstance(x, np.ndarray) and np.shares_memory(a, x) for x in srcs), key
