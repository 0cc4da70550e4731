"""Atomic read-modify-write semantics (``atom``/``red``) and a vectorised, lane-ordered applier.

GPGPU-Sim counterpart: ``atom_callback``/``atom_impl`` in ``src/cuda-sim/instructions.cc``
(checklist C162: the functional effect is applied lane by lane when the request leaves the
memory partition).  :func:`apply_atomic` gives the same result as applying the lanes one
after another in lane order, with numpy:

* lanes with distinct addresses are applied in one gather/compute/scatter;
* colliding lanes are sorted by address (stable, so lane order is kept inside a group) and then
  either (a) a segmented prefix for integer ``add`` (wrapping sums are associative) and ``exch``,
  (b) one ``ufunc.accumulate`` per address for the other associative/ordered ops when there
  are fewer distinct addresses than colliding lanes (e.g. a global counter), or (c) one
  vectorised round per collision depth (the k-th lane of every address), whichever loops less.

``atom.add.f32`` flushes subnormal inputs and results to sign-preserving zero and rounds to
nearest even, as PTX specifies (and as ``RED.E.ADD.F32.FTZ.RN`` does); f64/f16/bf16 adds keep
subnormals.
"""

from __future__ import annotations

from collections.abc import Callable

from typing import Any

import numpy as np

from gpgpusim.errors import CudaError, Err, NotSupportedError

from . import _float
from . import _fp as fp
from ._types import dtype_of, unsigned_of

Fn = Callable[..., Any]

_INT32_64 = {"u32", "s32", "u64", "s64", "b32", "b64"}
_INTS_MINMAX = {"u32", "s32", "u64", "s64"}


def atomic_fn(op: str, ptx_type: str) -> Fn:
    """``new = f(old, b[, c])`` elementwise for ``atom.op.type`` (``c`` only for ``cas``)."""
    t = ptx_type
    if op == "add":
        if t in ("u32", "s32", "u64", "s64"):
            return np.add
        if t == "f32":
            return _float.quiet(lambda old, b: fp.ftz32(fp.ftz32(old) + fp.ftz32(b)))
        if t in ("f64", "f16", "bf16", "f16x2", "bf16x2"):
            return _float.arith("add", t)
    elif op in ("min", "max"):
        if t in _INTS_MINMAX:
            return np.minimum if op == "min" else np.maximum
    elif op in ("and", "or", "xor"):
        if t in ("b32", "b64"):
            return {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    elif op == "exch":
        if t in ("b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64", "b16"):
            return lambda old, b: np.array(b, copy=True)
    elif op == "cas":
        if t in ("b32", "b64", "b16", "u32", "s32", "u64", "s64"):
            return lambda old, b, c: np.where(old == b, c, old)
    elif op == "inc":
        if t == "u32":
            return lambda old, b: np.where(old >= b, np.uint32(0), old + np.uint32(1))
    elif op == "dec":
        if t == "u32":
            return lambda old, b: np.where((old == 0) | (old > b), b, old - np.uint32(1))
    raise NotSupportedError(f"atom.{op}.{t} is not supported")


def _accumulator(op: str, t: str):
    """The ufunc whose ``accumulate`` equals sequential application, or None."""
    if op == "add" and t in ("u32", "s32", "u64", "s64", "f64"):
        return np.add
    if op == "add" and t == "f32":
        return np.add  # inputs pre-flushed; see _apply_groups for the subnormal check
    if op in ("min", "max") and t in _INTS_MINMAX:
        return np.minimum if op == "min" else np.maximum
    if op in ("and", "or", "xor") and t in ("b32", "b64"):
        return {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    return None


def apply_atomic(memory: np.ndarray, offsets: np.ndarray, values: np.ndarray, op: str,
                 ptx_type: str, values2: np.ndarray | None = None) -> np.ndarray:
    """Apply ``atom.op.type`` for every lane, in lane order, to the byte buffer ``memory``
    (a writable uint8 view) at byte ``offsets``; return each lane's old value.

    ``values``/``values2`` are the ``b``/``c`` operands (``values2`` for ``cas`` only), one per
    lane.  Misaligned offsets raise ``CudaError(MisalignedAddress)``."""
    dt = dtype_of(ptx_type)
    size = dt.itemsize
    offsets = np.asarray(offsets, dtype=np.int64)
    n = offsets.shape[0]
    fn = atomic_fn(op, ptx_type)
    if n == 0:
        return np.empty(0, dtype=dt)
    if np.any(offsets % size):
        bad = int(offsets[np.argmax(offsets % size != 0)])
        raise CudaError(Err.MisalignedAddress,
                        f"misaligned atom.{op}.{ptx_type} at byte offset {bad}", sticky=True)
    usable = memory.shape[0] - memory.shape[0] % size
    typed = memory[:usable].view(dt)
    idx = offsets // size
    if int(offsets.min()) < 0 or int(idx.max()) >= typed.shape[0]:
        bad = int(offsets[np.argmax((offsets < 0) | (idx >= typed.shape[0]))])
        raise CudaError(Err.IllegalAddress,
                        f"atom.{op}.{ptx_type} at byte offset {bad} is outside the {memory.shape[0]}-byte buffer",
                        sticky=True)
    vals = np.asarray(values).astype(dt, copy=False)
    vals2 = None if values2 is None else np.asarray(values2).astype(dt, copy=False)
    if vals.shape != idx.shape:
        vals = np.broadcast_to(vals, idx.shape)
    if vals2 is not None and vals2.shape != idx.shape:
        vals2 = np.broadcast_to(vals2, idx.shape)

    order = np.argsort(idx, kind="stable")
    sidx = idx[order]
    new_group = np.empty(n, dtype=bool)
    new_group[0] = True
    np.not_equal(sidx[1:], sidx[:-1], out=new_group[1:])
    starts = np.flatnonzero(new_group)
    n_groups = starts.shape[0]

    if n_groups == n:  # no collisions
        old = typed[idx].copy()
        typed[idx] = fn(old, vals) if vals2 is None else fn(old, vals, vals2)
        return old

    sv = vals[order]
    sv2 = None if vals2 is None else vals2[order]
    group_of = np.cumsum(new_group) - 1
    ends = np.append(starts[1:], n)
    gaddr = sidx[starts]
    base = typed[gaddr].copy()
    old_sorted = np.empty(n, dtype=dt)

    if op == "add" and ptx_type in ("u32", "s32", "u64", "s64"):
        ut = unsigned_of(ptx_type)
        u: np.ndarray = sv.astype(ut)
        cs = np.add.accumulate(u, dtype=ut)
        excl = cs - u
        gbase = excl[starts]
        old_sorted[:] = (base.astype(ut)[group_of] + (excl - gbase[group_of])).astype(dt)
        typed[gaddr] = (base.astype(ut) + (cs[ends - 1] - gbase)).astype(dt)
    elif op == "exch":
        old_sorted[1:] = sv[:-1]
        old_sorted[starts] = base
        typed[gaddr] = sv[ends - 1]
    else:
        acc = _accumulator(op, ptx_type)
        depth = int((ends - starts).max())
        done = False
        if acc is not None and n_groups < depth:
            done = _apply_groups(acc, op, ptx_type, typed, gaddr, base, starts, ends, sv, old_sorted)
        if not done:
            # round r = the r-th lane (in lane order) of every address; sorting by rank makes
            # each round a contiguous slice, so the whole loop is O(n) plus per-round overhead
            rank = np.arange(n) - starts[group_of]
            by_rank = np.argsort(rank, kind="stable")
            bounds = np.searchsorted(rank[by_rank], np.arange(depth + 1))
            for r in range(depth):
                sel = by_rank[bounds[r]:bounds[r + 1]]
                a = sidx[sel]
                o = typed[a]  # fancy indexing copies
                old_sorted[sel] = o
                typed[a] = fn(o, sv[sel]) if sv2 is None else fn(o, sv[sel], sv2[sel])

    old = np.empty(n, dtype=dt)
    old[order] = old_sorted
    return old


def _apply_groups(acc, op, t, typed, gaddr, base, starts, ends, sv, old_sorted) -> bool:
    """One ``accumulate`` per address.  Returns False (nothing written) when an f32 running
    sum would pass through a subnormal (FTZ must then be applied step by step)."""
    f32 = t == "f32"
    results = []
    with np.errstate(all="ignore"):
        for g in range(starts.shape[0]):
            seg = sv[starts[g]:ends[g]]
            first = base[g:g + 1]
            if f32:
                seg = fp.ftz32(seg)
                first = fp.ftz32(first)
            run = acc.accumulate(np.concatenate((first, seg)), dtype=typed.dtype)
            if f32 and np.any((np.abs(run) < fp.F32_MIN_NORMAL) & (run != 0)):
                return False
            results.append(run)
    for g, run in enumerate(results):
        old_sorted[starts[g]:ends[g]] = run[:-1]
        old_sorted[starts[g]] = base[g]  # the raw (unflushed) memory value
        typed[gaddr[g]] = run[-1]
    return True
