"""PTX ALU instruction semantics as pure, vectorised numpy functions.

GPGPU-Sim counterpart: the ``OP_DEF`` dispatch table (``opcodes.def``) and the ``*_impl``
functions of ``src/cuda-sim/instructions.cc`` (checklist C221; atomics C162).  Where
GPGPU-Sim interprets one thread at a time, we resolve each instruction once, at pre-decode,
into an :class:`OpSpec` whose ``fn`` runs over all threads of a warp (or of many CTAs) at once.

Contract with the engine
------------------------
``lookup(inst, *, quiet=True) -> OpSpec | None``.  ``None`` means "not an ALU instruction"
(memory, control, warp-level, special registers, ``mov`` of a special register or of a
symbol's address: the engine's).  A known ALU opcode with a type or modifier combination we do
not model raises :class:`~gpgpusim.errors.NotSupportedError` naming the instruction and its PTX
line; a wrong operand count raises :class:`~gpgpusim.errors.PtxError`.

Operands, in order:

* **Destinations** are ``operands[0]``; a ``PredPair`` ``p|q`` is always two destinations
  (``q`` may be the sink ``None``: the engine drops it); a ``Vec`` ``{a, b}`` destination
  (``mov`` unpack) is its elements.  ``fn`` returns one array, or a tuple with one array per
  ``dst_types`` entry.
* **Sources** are ``operands[1:]`` in order, a ``Vec`` source (``mov`` pack) flattened into its
  elements.  The engine reads source ``i`` as ``dtype_of(src_types[i])`` (arrays, or numpy
  scalars for immediates) and calls ``fn(*srcs)``.  Immediates that the semantics can exploit
  at decode time (``lop3``'s LUT, an immediate ``prmt`` selector or shift count) are bound into
  ``fn``; ``fn`` still takes them as arguments and ignores them, so the engine never
  special-cases them.
* **Predicate sources** (``selp``'s ``c``, the BoolOp operand of ``setp``/``set``) are bool
  arrays; the engine applies ``!%p`` negation when it fetches them.
* **Carry (CC.CF)**: when ``spec.cc_in`` the engine appends the per-thread carry flag (a
  ``u32`` array holding 0/1) as the *last* source; when ``spec.cc_out`` ``fn`` returns the new
  flag as the *last* destination (``dst_types[-1] == "u32"``), kept by the engine in its
  per-thread CC register.  Subtraction carries a *borrow* (``subc``: ``d = a - (b + CF)``).
* Results have ``dtype_of(dst_types[i])``; the engine sign/zero-extends narrower results into
  wider registers.  ``fn`` is elementwise and shape-agnostic (32 lanes or 65,536), never loops
  over lanes in Python, and is silent: floating-point ``fn`` run under
  ``np.errstate(all="ignore")`` themselves unless built with ``quiet=False`` (for a caller that
  owns the errstate; saves ~1 us per call).
* ``fn`` keeps no array it returns: a result is a new array, or one of its inputs (or a view
  of one) as is.  The engine relies on it: a new result becomes the destination register
  without a copy (``handlers._alu``), an input or a view is copied.

Representation of values: see :func:`dtype_of` (``bf16`` and the packed ``x2`` types are raw
bits; ``f16x2`` element 0 is the low half; ``.u16x2/.s16x2`` are read as ``u32``).

Coverage: integer ``add sub mul mad mul24 mad24 sad div rem abs neg min max popc clz bfind brev
bfe bfi bmsk szext dp4a dp2a`` (``.hi .lo .wide .sat .relu``, ``.cc addc subc madc``), packed
``.u16x2/.s16x2`` and SIMD video ``vadd vsub vabsdiff vmin vmax vavrg`` (2/4, plain operands);
logic ``and or xor not cnot lop3 shl shr shf prmt`` (all modes); float ``add sub mul fma mad div
rcp sqrt rsqrt sin cos lg2 ex2 tanh abs neg min max copysign testp`` for f32/f64/f16/bf16 and
x2 forms with ``.rn .rz .rm .rp .ftz .sat .relu .approx .full .NaN .xorsign.abs``; ``setp set selp slct``
with every comparison and BoolOp; ``cvt`` between all integer and float types (and
``.f16x2/.bf16x2`` packing, ``.tf32``, FP8 ``.e4m3x2/.e5m2x2`` from f32/f16x2 and back to
f16x2); ``mov`` (copy, pack/unpack).  Not modelled (raise NotSupportedError): single-byte FP8
and FP4/FP6 ``cvt``, video byte selectors/masks.

Exactness notes (rounding modes, approximations, division by zero) are in the submodules:
:mod:`._int`, :mod:`._logic`, :mod:`._float`, :mod:`._cmp`, :mod:`._cvt`, :mod:`._fp8`, :mod:`._simd`,
:mod:`._atomic`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from gpgpusim.errors import NotSupportedError, PtxError
from gpgpusim.ptx import ir

from . import _cmp, _cvt, _float, _fp8, _int, _logic, _simd
from . import _fp as fp
from ._atomic import apply_atomic, atomic_fn
from ._types import FLOAT_TYPES, INT_TYPES, dtype_of, is_signed, wide_of

__all__ = ["OpSpec", "lookup", "dtype_of", "atomic_fn", "apply_atomic", "ALU_OPCODES"]


class OpSpec(NamedTuple):
    """A pre-decoded ALU instruction: ``fn(*srcs) -> dst | tuple[dst, ...]``.

    ``cc_in``/``cc_out`` (additive to the contract, default False) mark the carry chain; see
    the module docstring."""

    fn: Callable[..., object]
    dst_types: tuple[str, ...]
    src_types: tuple[str, ...]
    cc_in: bool = False
    cc_out: bool = False


class _Bad(Exception):
    """Raised inside a builder for an unsupported combination; turned into NotSupportedError."""


# ----------------------------------------------------------------------------- helpers
def _n_srcs(inst: ir.Instruction) -> int:
    n = 0
    for op in inst.operands[1:]:
        n += len(op.elems) if isinstance(op, ir.Vec) else 1
    return n


def _one_type(inst: ir.Instruction, allowed: frozenset[str] | set[str] | None = None) -> str:
    types = inst.types
    if len(types) != 1:
        raise _Bad(f"expected one type, got {'.'.join(types) or 'none'}")
    t = types[0]
    if allowed is not None and t not in allowed:
        raise _Bad(f"type .{t}")
    return t


def _rnd(inst: ir.Instruction) -> str:
    m = [x for x in inst.mods if x in fp.ROUND_MODES]
    return m[0] if m else "rn"


def _uniform(fn, t: str, nsrc: int, ndst: int = 1, **kw) -> OpSpec:
    return OpSpec(fn, (t,) * ndst, (t,) * nsrc, **kw)


def _imm(op: ir.Operand) -> int | None:
    if isinstance(op, ir.Imm) and isinstance(op.value, int):
        return op.value
    return None


_INT = INT_TYPES - {"b8", "s8", "u8"}
_ARITH_INT = frozenset(t for t in _INT if t[0] in "su")
_FLOATS = FLOAT_TYPES
_BITS = frozenset({"b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "pred"})


# ----------------------------------------------------------------------------- builders
def _packed16(inst: ir.Instruction) -> OpSpec | None:
    """``add/sub/min/max`` on ``.u16x2``/``.s16x2`` (not PTX fundamental types: raw u32)."""
    kind = next((m for m in inst.mods if m in ("u16x2", "s16x2")), None)
    if kind is None:
        return None
    op = inst.opcode
    if op not in ("add", "sub", "min", "max") or inst.has("cc") or inst.has("sat"):
        raise _Bad(f"{op} on .{kind}")
    fn = _simd.packed(op, 16, kind == "s16x2", relu=inst.has("relu"))
    return OpSpec(fn, ("u32",), ("u32", "u32"))


def _b_add(inst: ir.Instruction) -> OpSpec:
    op = inst.opcode
    sub = op in ("sub", "subc")
    spec16 = _packed16(inst)
    if spec16 is not None:
        return spec16
    t = _one_type(inst)
    if t in _FLOATS:
        if op in ("addc", "subc") or inst.has("cc"):
            raise _Bad("carry on a float type")
        fn = _float.arith("sub" if sub else "add", t, _rnd(inst), inst.has("ftz"), inst.has("sat"),
                          inst.has("relu"))
        return _uniform(fn, t, 2)
    if t not in _ARITH_INT and t not in ("b32", "b64", "b16"):
        raise _Bad(f"type .{t}")
    cc_in = op in ("addc", "subc")
    cc_out = inst.has("cc")
    if (cc_in or cc_out) and t not in ("u32", "s32", "u64", "s64", "b32", "b64"):
        raise _Bad(f"carry on .{t}")
    fn = _int.add(t, sat=inst.has("sat"), cc_in=cc_in, cc_out=cc_out, sub=sub)
    src = (t, t, "u32") if cc_in else (t, t)
    dst = (t, "u32") if cc_out else (t,)
    return OpSpec(fn, dst, src, cc_in, cc_out)


def _int_mode(inst: ir.Instruction) -> str:
    for m in ("lo", "hi", "wide"):
        if inst.has(m):
            return m
    return "lo"


def _b_mul(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst)
    if t in _FLOATS:
        fn = _float.arith("mul", t, _rnd(inst), inst.has("ftz"), inst.has("sat"), inst.has("relu"))
        return _uniform(fn, t, 2)
    if t not in _ARITH_INT:
        raise _Bad(f"type .{t}")
    mode = _int_mode(inst)
    if mode == "wide":
        if t.endswith("64"):
            raise _Bad(".wide on a 64-bit type")
        return OpSpec(_int.mul(t, mode), (wide_of(t),), (t, t))
    return _uniform(_int.mul(t, mode), t, 2)


def _b_mad(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst)
    op = inst.opcode
    if t in _FLOATS:
        if op in ("madc",) or inst.has("cc"):
            raise _Bad("carry on a float type")
        fn = _float.fma(t, _rnd(inst), inst.has("ftz"), inst.has("sat"), inst.has("relu"))
        return _uniform(fn, t, 3)
    if op == "fma":
        raise _Bad(f"fma on .{t}")
    if t not in _ARITH_INT:
        raise _Bad(f"type .{t}")
    mode = _int_mode(inst)
    cc_in = op == "madc"
    cc_out = inst.has("cc")
    sat = inst.has("sat")
    if sat and not (t == "s32" and mode == "hi"):
        raise _Bad(".sat needs .hi.s32")
    if mode == "wide":
        if t.endswith("64") or cc_in or cc_out:
            raise _Bad(".wide here")
        w = wide_of(t)
        return OpSpec(_int.mad(t, mode), (w,), (t, t, w))
    fn = _int.mad(t, mode, sat=sat, cc_in=cc_in, cc_out=cc_out)
    src = (t, t, t, "u32") if cc_in else (t, t, t)
    dst = (t, "u32") if cc_out else (t,)
    return OpSpec(fn, dst, src, cc_in, cc_out)


def _b_mul24(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst, {"u32", "s32"})
    mode = "hi" if inst.has("hi") else "lo"
    if inst.opcode == "mul24":
        return _uniform(_int.mul24(t, mode), t, 2)
    sat = inst.has("sat")
    return _uniform(_int.mul24(t, mode, addend=True, sat=sat), t, 3)


def _b_sad(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst, _ARITH_INT)
    return _uniform(_int.sad(t), t, 3)


def _b_div(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst)
    if t in _FLOATS:
        if t not in ("f32", "f64"):
            raise _Bad(f"div on .{t}")
        if inst.has("approx") or inst.has("full"):
            return _uniform(_float.div_approx(t, inst.has("ftz")), t, 2)
        return _uniform(_float.arith("div", t, _rnd(inst), inst.has("ftz")), t, 2)
    if t not in _ARITH_INT:
        raise _Bad(f"type .{t}")
    return _uniform(_int.div(t), t, 2)


def _b_rem(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst, _ARITH_INT)
    return _uniform(_int.rem(t), t, 2)


def _b_absneg(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst)
    if t in _FLOATS:
        return _uniform(_float.absneg(inst.opcode, t, inst.has("ftz")), t, 1)
    if not is_signed(t):
        raise _Bad(f"{inst.opcode} on .{t}")
    return _uniform(_int.iabs(t) if inst.opcode == "abs" else _int.ineg(t), t, 1)


def _b_minmax(inst: ir.Instruction) -> OpSpec:
    spec16 = _packed16(inst)
    if spec16 is not None:
        return spec16
    t = _one_type(inst)
    nsrc = _n_srcs(inst)
    if t in _FLOATS:
        xs = inst.has("xorsign")
        if nsrc == 3:      # PTX 8.8: min/max{.ftz}{.NaN}{.abs}.f32 d, a, b, c
            if t != "f32" or xs:
                raise _Bad(f"three-input {inst.opcode} needs .f32 and no .xorsign")
            return _uniform(_float.minmax(inst.opcode, t, inst.has("ftz"), inst.has("NaN"),
                                          abs_inputs=inst.has("abs"), nargs=3), t, 3)
        if inst.has("abs") and not xs:
            raise _Bad(".abs with two inputs needs .xorsign")
        if xs and (not inst.has("abs") or t not in ("f32", "f16", "f16x2", "bf16", "bf16x2")):
            raise _Bad(".xorsign needs .abs and an f32 or half type")
        return _uniform(_float.minmax(inst.opcode, t, inst.has("ftz"), inst.has("NaN"), xs), t, 2)
    if t not in _ARITH_INT:
        raise _Bad(f"type .{t}")
    return _uniform(_int.minmax(t, inst.opcode == "max", inst.has("relu")), t, 2)


def _b_bitcount(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst, {"b32", "b64", "u32", "u64", "s32", "s64"})
    op = inst.opcode
    if op == "popc":
        fn = _int.popc(t)
    elif op == "clz":
        fn = _int.clz(t)
    elif op == "bfind":
        fn = _int.bfind(t, inst.has("shiftamt"))
    else:  # brev
        return _uniform(_int.brev(t), t, 1)
    return OpSpec(fn, ("u32",), (t,))


def _b_bfe(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst, {"u32", "u64", "s32", "s64"})
    return OpSpec(_int.bfe(t), (t,), (t, "u32", "u32"))


def _b_bfi(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst, {"b32", "b64"})
    return OpSpec(_int.bfi(t), (t,), (t, t, "u32", "u32"))


def _b_bmsk(inst: ir.Instruction) -> OpSpec:
    if inst.has("clamp") == inst.has("wrap"):
        raise _Bad("needs .clamp or .wrap")
    if inst.opcode == "bmsk":
        _one_type(inst, {"b32"})
        return OpSpec(_int.bmsk(inst.has("clamp")), ("b32",), ("u32", "u32"))
    t = _one_type(inst, {"u32", "s32"})
    return OpSpec(_int.szext(t, inst.has("clamp")), (t,), (t, "u32"))


def _b_dp(inst: ir.Instruction) -> OpSpec:
    types = inst.types
    if len(types) != 2 or not set(types) <= {"u32", "s32"}:
        raise _Bad("dp4a/dp2a need .atype.btype in {u32, s32}")
    at, bt = types
    dt = "s32" if "s32" in types else "u32"
    if inst.opcode == "dp4a":
        fn = _int.dp4a(at, bt)
    else:
        fn = _int.dp2a(at, bt, inst.has("hi"))
    return OpSpec(fn, (dt,), (at, bt, dt))


def _b_logic(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst, _BITS)
    op = inst.opcode
    if op in ("and", "or", "xor"):
        return _uniform(_logic.bitwise(op, t), t, 2)
    if op == "not":
        return _uniform(_logic.bnot(t), t, 1)
    if t == "pred":
        raise _Bad("cnot on .pred")
    return _uniform(_logic.cnot(t), t, 1)


def _b_lop3(inst: ir.Instruction) -> OpSpec:
    """``lop3.b32 d, a, b, c, immLut`` and (PTX 8.2) ``lop3.BoolOp.b32 d|p, a, b, c, immLut, q``
    with ``p = (d != 0) BoolOp q``."""
    _one_type(inst, {"b32"})
    lut = _imm(inst.operands[4]) if len(inst.operands) > 4 else None
    if lut is None:
        raise _Bad("lop3 needs an immediate LUT as its fifth operand")
    fn = _logic.lop3(lut)
    boolop = next((m for m in inst.mods if m in ("and", "or")), None)
    if boolop is None:
        if len(inst.operands) != 5:
            raise _Bad("lop3 without .and/.or takes d, a, b, c, immLut")
        return OpSpec(fn, ("b32",), ("b32",) * 4)
    if not isinstance(inst.operands[0], ir.PredPair) or len(inst.operands) != 6:
        raise _Bad(f"lop3.{boolop} takes d|p, a, b, c, immLut, q")
    combine = _cmp._BOOL[boolop]

    def with_pred(a, b, c, _lut, q):
        d = fn(a, b, c)
        return d, combine(d != 0, q)
    return OpSpec(with_pred, ("b32", "pred"), ("b32",) * 4 + ("pred",))


def _b_shift(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst, _BITS - {"pred"})
    k = _imm(inst.operands[2]) if len(inst.operands) == 3 else None
    if k is not None:
        return OpSpec(_logic.shift_const(t, inst.opcode == "shl", k), (t,), (t, "u32"))
    if inst.opcode == "shl":
        return OpSpec(_logic.shl(t), (t,), (t, "u32"))
    return OpSpec(_logic.shr(t), (t,), (t, "u32"))


def _b_shf(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst, {"b32", "u32", "s32"})
    if inst.has("l") == inst.has("r"):
        raise _Bad("shf needs .l or .r")
    fn = _logic.shf(inst.has("l"), inst.has("clamp"))
    return OpSpec(fn, (t,), (t, t, "u32"))


def _b_prmt(inst: ir.Instruction) -> OpSpec:
    _one_type(inst, {"b32"})
    mode = next((m for m in inst.mods if m in _logic._PRMT_MODES), None)
    sel = _imm(inst.operands[3]) if len(inst.operands) > 3 else None
    return OpSpec(_logic.prmt(mode, sel), ("b32",), ("b32",) * 3)


def _b_float_unary(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst, _FLOATS)
    op = inst.opcode
    ftz = inst.has("ftz")
    if op in ("sqrt", "rcp") and not inst.has("approx"):
        if t not in ("f32", "f64"):
            raise _Bad(f"{op} on .{t}")
        fn = _float.sqrt(t, _rnd(inst), ftz) if op == "sqrt" else _float.rcp(t, _rnd(inst), ftz)
        return _uniform(fn, t, 1)
    return _uniform(_float.approx(op, t, ftz), t, 1)


def _b_copysign(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst, {"f32", "f64"})
    return _uniform(_float.copysign(t), t, 2)


def _b_testp(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst, {"f32", "f64"})
    op = next((m for m in inst.mods if m in _float._TESTP), None)
    if op is None:
        raise _Bad("testp needs a test (.finite .infinite .number .notanumber .normal .subnormal)")
    return OpSpec(_float.testp(op, t), ("pred",), (t,))


def _cmp_parts(inst: ir.Instruction) -> tuple[str, str | None]:
    cmp = next((m for m in inst.mods if m in _cmp.CMP_OPS), None)
    if cmp is None:
        raise _Bad("missing comparison operator")
    boolop = next((m for m in inst.mods if m in ("and", "or", "xor")), None)
    return cmp, boolop


def _b_setp(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst)
    cmp, boolop = _cmp_parts(inst)
    dst = inst.operands[0]
    two = isinstance(dst, ir.PredPair) or t.endswith("x2")  # p|_ still has two slots
    fn = _cmp.setp(cmp, t, boolop, two, inst.has("ftz"))
    src = (t, t, "pred") if boolop else (t, t)
    return OpSpec(fn, ("pred", "pred") if two else ("pred",), src)


def _b_set(inst: ir.Instruction) -> OpSpec:
    types = inst.types
    if len(types) != 2:
        raise _Bad("set needs .dtype.stype")
    dt, st = types
    cmp, boolop = _cmp_parts(inst)
    fn = _cmp.set_(cmp, dt, st, boolop, inst.has("ftz"))
    return OpSpec(fn, (dt,), (st, st, "pred") if boolop else (st, st))


def _b_video(inst: ir.Instruction) -> OpSpec:
    """SIMD video ``vadd4 vsub4 vabsdiff4 vmin4 vmax4 vavrg4`` (+ ``2`` forms), plain operands."""
    op, width = inst.opcode[1:-1], 8 if inst.opcode.endswith("4") else 16
    types = inst.types
    if len(types) != 3 or not set(types) <= {"u32", "s32"}:
        raise _Bad("video instruction needs .dtype.atype.btype in {u32, s32}")
    if any(not isinstance(o, (ir.Reg, ir.Imm)) for o in inst.operands):
        raise _Bad("byte/halfword selectors and masks")
    second = next((m for m in inst.mods if m in ("add", "min", "max")), None)
    if second not in (None, "add"):
        raise _Bad(f"secondary .{second}")
    dt, at, bt = types
    fn = _simd.packed(op, width, dt == "s32", sat=inst.has("sat"), accumulate=second == "add",
                      a_signed=at == "s32", b_signed=bt == "s32")
    return OpSpec(fn, (dt,), (at, bt, dt))


def _b_selp(inst: ir.Instruction) -> OpSpec:
    t = _one_type(inst)
    return OpSpec(_cmp.selp(t), (t,), (t, t, "pred"))


def _b_slct(inst: ir.Instruction) -> OpSpec:
    types = inst.types
    if len(types) != 2 or types[1] not in ("s32", "f32"):
        raise _Bad("slct needs .dtype.{s32,f32}")
    dt, ct = types
    return OpSpec(_cmp.slct(ct, inst.has("ftz")), (dt,), (dt, dt, ct))


def _b_cvt(inst: ir.Instruction) -> OpSpec:
    types = inst.types
    if len(types) != 2:
        raise _Bad("cvt needs .dtype.atype")
    dt, at = types
    fp8 = ("e4m3x2", "e5m2x2")
    if dt in fp8 or (dt == "f16x2" and at in fp8):
        relu = inst.has("relu")
        if dt == "f16x2":
            return OpSpec(_fp8.unpack_to_f16x2(at[:4], relu), (dt,), (at,))
        if at == "f32":
            return OpSpec(_fp8.pack_from_f32(dt[:4], relu), (dt,), ("f32", "f32"))
        if at == "f16x2":
            return OpSpec(_fp8.pack_from_f16x2(dt[:4], relu), (dt,), (at,))
        raise _Bad(f"cvt .{dt}.{at}")
    if dt in ("f16x2", "bf16x2"):
        if at != "f32":
            raise _Bad(f"cvt .{dt}.{at}")
        mode = next((m for m in inst.mods if m in fp.ROUND_MODES), None)
        return OpSpec(_cvt.pack_x2(dt, mode, inst.has("relu"), inst.has("satfinite")), (dt,), ("f32", "f32"))
    return OpSpec(_cvt.cvt(dt, at, inst.mods), (dt,), (at,))


def _b_mov(inst: ir.Instruction) -> OpSpec | None:
    t = _one_type(inst)
    dst, src = inst.operands[0], inst.operands[1]
    if isinstance(src, (ir.Special, ir.Sym, ir.Addr)):
        return None
    if isinstance(src, ir.Vec):
        n = len(src.elems)
        et = _elem_type(t, n)
        return OpSpec(_cvt.pack(t, n), (t,), (et,) * n)
    if isinstance(dst, ir.Vec):
        n = len(dst.elems)
        et = _elem_type(t, n)
        return OpSpec(_cvt.unpack(t, n), (et,) * n, (t,))
    return OpSpec(_cvt.mov_copy, (t,), (t,))


def _elem_type(t: str, n: int) -> str:
    bits = ir.TYPE_SIZES[t] * 8
    if t == "b128" or bits % n or bits // n not in (8, 16, 32):
        raise _Bad(f"mov.{t} with {n} vector elements")
    return f"b{bits // n}"


_BUILDERS: dict[str, Callable[[ir.Instruction], OpSpec | None]] = {
    "add": _b_add, "sub": _b_add, "addc": _b_add, "subc": _b_add,
    "mul": _b_mul, "mad": _b_mad, "madc": _b_mad, "fma": _b_mad,
    "mul24": _b_mul24, "mad24": _b_mul24, "sad": _b_sad,
    "div": _b_div, "rem": _b_rem, "abs": _b_absneg, "neg": _b_absneg,
    "min": _b_minmax, "max": _b_minmax,
    "popc": _b_bitcount, "clz": _b_bitcount, "bfind": _b_bitcount, "brev": _b_bitcount,
    "bfe": _b_bfe, "bfi": _b_bfi, "dp4a": _b_dp, "dp2a": _b_dp, "bmsk": _b_bmsk, "szext": _b_bmsk,
    "and": _b_logic, "or": _b_logic, "xor": _b_logic, "not": _b_logic, "cnot": _b_logic,
    "lop3": _b_lop3, "shl": _b_shift, "shr": _b_shift, "shf": _b_shf, "prmt": _b_prmt,
    "rcp": _b_float_unary, "sqrt": _b_float_unary, "rsqrt": _b_float_unary, "sin": _b_float_unary,
    "cos": _b_float_unary, "lg2": _b_float_unary, "ex2": _b_float_unary, "tanh": _b_float_unary,
    "copysign": _b_copysign, "testp": _b_testp,
    "setp": _b_setp, "set": _b_set, "selp": _b_selp, "slct": _b_slct,
    "cvt": _b_cvt, "mov": _b_mov,
    **{f"v{op}{n}": _b_video for op in ("add", "sub", "absdiff", "min", "max", "avrg") for n in (2, 4)},
}

#: Opcodes this module implements (everything else is the engine's).
ALU_OPCODES = frozenset(_BUILDERS)


def lookup(inst: ir.Instruction, *, quiet: bool = True) -> OpSpec | None:
    """Resolve ``inst`` into an :class:`OpSpec`; None when it is not an ALU instruction.

    ``quiet=False`` (additive) is for a caller that runs every ``fn`` inside
    ``np.errstate(all="ignore")`` itself: the per-call errstate wrappers (~1 us each, which
    matter at 32 lanes) are then left out.

    Raises NotSupportedError for an ALU opcode with a type or modifier combination that
    PTX does not allow or that we do not model, PtxError for a wrong operand count."""
    builder = _BUILDERS.get(inst.opcode)
    if builder is None:
        return None
    token = _float.WRAP_QUIET.set(quiet)
    try:
        spec = builder(inst)
    except (_Bad, ValueError, KeyError, NotSupportedError) as exc:
        why = exc.message if isinstance(exc, NotSupportedError) else str(exc)
        raise NotSupportedError(
            f"unsupported instruction '{inst}' at PTX line {inst.line}: {why}") from None
    finally:
        _float.WRAP_QUIET.reset(token)
    if spec is not None and spec.src_types and len(spec.src_types) != _n_srcs(inst) + spec.cc_in:
        raise PtxError(
            f"'{inst}' at PTX line {inst.line}: expected {len(spec.src_types) - spec.cc_in} source "
            f"operands, found {_n_srcs(inst)}")
    return spec
