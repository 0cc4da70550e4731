"""SASS floating-point handlers: FP32, conversions, FP64 and FP16 pairs (``FADD``, ``FFMA``,
``MUFU``, ``I2F``, ``F2F``, ``DADD``, ``HFMA2``, ``FCHK``, ...; see :mod:`gpgpusim.ptxplus.convert`)."""

from __future__ import annotations

import math
from typing import Callable

from cuobjdump_tools.sass import SassInstruction

from .base import (
    Converter,
    Opnd,
    UnsupportedSass,
    _Exp,
    _h,
    _mods,
    _nops,
    f32_bits,
    f64_bits,
)
from .integer import _BOP, _setp_out


# --- floating point (FP32)
_FRND = {"RN": "rn", "RZ": "rz", "RM": "rm", "RP": "rp"}


def _fmods(ins: SassInstruction, extra: set[str] = frozenset()) -> tuple[str, str]:  # type: ignore[assignment]
    _mods(ins, {"FTZ", "SAT", *_FRND, *extra})
    rnd = next((_FRND[m] for m in ins.modifiers if m in _FRND), "rn")
    tail = (".ftz" if "FTZ" in ins.modifiers else "") + (".sat" if "SAT" in ins.modifiers else "")
    return rnd, tail


@_h("FADD", "FMUL")
def _fbin(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    rnd, tail = _fmods(ins)
    _nops(ins, 3)
    a, b = c.src(e, ops[1], "f32"), c.src(e, ops[2], "f32")
    op = "add" if ins.opcode == "FADD" else "mul"
    e.a(f"{op}.{rnd}{tail}.f32 {c.dst(ops[0])}, {a}, {b};")


@_h("FFMA")
def _ffma(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    rnd, tail = _fmods(ins)
    _nops(ins, 4)
    a, b, cc = (c.src(e, o, "f32") for o in ops[1:4])
    e.a(f"fma.{rnd}{tail}.f32 {c.dst(ops[0])}, {a}, {b}, {cc};")


@_h("FMNMX")
def _fmnmx(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, {"FTZ"})
    _nops(ins, 4)
    ftz = ".ftz" if "FTZ" in ins.modifiers else ""
    a, b = c.src(e, ops[1], "f32"), c.src(e, ops[2], "f32")
    k = c.pconst(ops[3])
    if k is not None:
        e.a(f"{'min' if k else 'max'}{ftz}.f32 {c.dst(ops[0])}, {a}, {b};")
        return
    t1, t2 = e.t(), e.t()
    e.w(f"min{ftz}.f32 {t1}, {a}, {b};")
    e.w(f"max{ftz}.f32 {t2}, {a}, {b};")
    e.a(f"selp.b32 {c.dst(ops[0])}, {t1}, {t2}, {c.psrc(e, ops[3])};")


_FCMP = {"EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt", "GE": "ge",
         "EQU": "equ", "NEU": "neu", "LTU": "ltu", "LEU": "leu", "GTU": "gtu", "GEU": "geu",
         "NUM": "num", "NAN": "nan"}


@_h("FSETP")
def _fsetp(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    mods = list(ins.modifiers)
    _mods(ins, set(_FCMP) | set(_BOP) | {"FTZ"})
    cmps = [m for m in mods if m in _FCMP]
    bops = [m for m in mods if m in _BOP]
    if len(cmps) != 1 or len(bops) != 1:
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 5)
    a, b = c.src_reg(e, ops[2], "f32"), c.src(e, ops[3], "f32")
    ftz = ".ftz" if "FTZ" in mods else ""
    _setp_out(c, e, _FCMP[cmps[0]] + ftz, "f32", a, b, _BOP[bops[0]], ops[4], ops[0], ops[1])


@_h("FSEL")
def _fsel(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, set())
    _nops(ins, 4)
    a, b = c.src(e, ops[1], "f32"), c.src(e, ops[2], "f32")
    # .f32, not .b32: a float literal operand keeps its bits (a .b32 selp would read 0f3F800000 as 1)
    e.a(f"selp.f32 {c.dst(ops[0])}, {a}, {b}, {c.psrc(e, ops[3])};")


_MUFU = {"RCP": "rcp.approx.ftz.f32", "RSQ": "rsqrt.approx.ftz.f32", "EX2": "ex2.approx.ftz.f32",
         "LG2": "lg2.approx.ftz.f32", "SIN": "sin.approx.ftz.f32", "COS": "cos.approx.ftz.f32",
         "SQRT": "sqrt.approx.ftz.f32"}


@_h("MUFU")
def _mufu(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``MUFU.{RCP,RSQ,EX2,LG2,SQRT,SIN,COS}``: the approximate unit.  SIN and COS take their
    argument in revolutions (nvcc multiplies by 1/(2 pi) first), so it is scaled back to radians."""
    if ins.modifiers in (("RSQ64H",), ("RCP64H",)):
        # the high word of the f64 approximation for the double {Ra:0}: the seed of nvcc's
        # Newton iterations for double sqrt/rsqrt/division
        _nops(ins, 2)
        d = e.d()
        e.w(f"mov.b64 {d}, {{{_zero(c, e)}, {c.src_reg(e, ops[1])}}};")
        op = "rsqrt.approx.f64" if ins.modifiers[0] == "RSQ64H" else "rcp.approx.ftz.f64"
        e.w(f"{op} {d}, {d};")
        lo, hi = e.t(), e.t()
        e.w(f"mov.b64 {{{lo}, {hi}}}, {d};")
        e.a(f"mov.b32 {c.dst(ops[0])}, {hi};")
        return
    if len(ins.modifiers) != 1 or ins.modifiers[0] not in _MUFU:
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 2)
    v = c.src(e, ops[1], "f32")
    if ins.modifiers[0] in ("SIN", "COS"):
        t = e.t()
        e.w(f"mul.rn.f32 {t}, {v}, 0f{f32_bits(repr(2 * math.pi)):08X};")
        v = t
    e.a(f"{_MUFU[ins.modifiers[0]]} {c.dst(ops[0])}, {v};")


# --- conversions
_INT_TYPES = {"S8": "s8", "U8": "u8", "S16": "s16", "U16": "u16", "S32": "s32", "U32": "u32",
              "S64": "s64", "U64": "u64"}
_F2I_RND = {"TRUNC": "rzi", "FLOOR": "rmi", "CEIL": "rpi"}


def _fsrc(c: Converter, e: _Exp, o: Opnd, typ: str) -> str:
    """A float source of ``typ`` (f32 in a register, f64 in a pair) with '-' and '|x|' applied."""
    if typ == "f32":
        return c.src(e, o, "f32")
    if o.inv:
        raise UnsupportedSass("operand", o.text)
    if o.kind == "fimm":
        return f"0d{f64_bits(o.text):016X}"
    if o.kind == "imm":
        return f"0d{f64_bits(str(o.num)):016X}"
    plain = Opnd(o.kind, o.num, suffix=o.suffix, bank=o.bank, text=o.text)
    v = c.src64(e, plain)
    if v == "0":
        return "0d0000000000000000"
    if o.abs:
        d = e.d()
        e.w(f"abs.f64 {d}, {v};")
        v = d
    if o.neg:
        d = e.d()
        e.w(f"neg.f64 {d}, {v};")
        v = d
    return v


def _fdst(c: Converter, o: Opnd, typ: str) -> str:
    return c.dst(o) if typ == "f32" else c.dst_pair(o)


def _write(c: Converter, e: _Exp, o: Opnd, typ: str, line: Callable[[str], str]) -> None:
    """Emit ``line(dest)`` into the destination: a 32-bit register, or a pair through a work register."""
    if typ.endswith("64"):
        d = e.d()
        e.w(line(d))
        e.a(f"mov.b64 {c.dst_pair(o)}, {d};")
    elif typ in ("f32", "s32", "u32", "b32"):
        e.a(line(c.dst(o)))
    else:
        raise UnsupportedSass("destination type", typ)


@_h("I2F", "I2FP")
def _i2f(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``I2F[.F64][.src][.RN|RZ|RM|RP] Rd, Ra``: integer (default S32) to float (default F32)."""
    _mods(ins, set(_INT_TYPES) | set(_FRND) | {"F64", "F32"})
    _nops(ins, 2)
    srcs = [_INT_TYPES[m] for m in ins.modifiers if m in _INT_TYPES]
    src = srcs[0] if srcs else "s32"
    dst = "f64" if "F64" in ins.modifiers else "f32"
    rnd = next((_FRND[m] for m in ins.modifiers if m in _FRND), "rn")
    if src.endswith("64"):
        v = c.src64(e, ops[1])
    elif src in ("s32", "u32"):
        v = c.src(e, ops[1])
    else:
        t = e.t()
        e.w(f"cvt.{'s' if src[0] == 's' else 'u'}32.{src} {t}, {c.src(e, ops[1])};")
        v = t
        src = "s32" if src[0] == "s" else "u32"
    _write(c, e, ops[0], dst, lambda d: f"cvt.{rnd}.{dst}.{src} {d}, {v};")


@_h("F2I")
def _f2i(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``F2I[.FTZ][.dst][.F64][.TRUNC|FLOOR|CEIL][.NTZ] Rd, Ra``: float to integer (default S32,
    round to nearest even), saturating, NaN to 0 (PTX ``cvt.rni/rzi``)."""
    _mods(ins, set(_INT_TYPES) | set(_F2I_RND) | {"FTZ", "NTZ", "F64", "F32"})
    _nops(ins, 2)
    dsts = [_INT_TYPES[m] for m in ins.modifiers if m in _INT_TYPES]
    dst = dsts[0] if dsts else "s32"
    if dst not in ("s32", "u32", "s64", "u64"):
        raise UnsupportedSass(ins.full_opcode)
    src = "f64" if "F64" in ins.modifiers else "f32"
    rnd = next((_F2I_RND[m] for m in ins.modifiers if m in _F2I_RND), "rni")
    ftz = ".ftz" if "FTZ" in ins.modifiers and src == "f32" else ""
    v = _fsrc(c, e, ops[1], src)
    _write(c, e, ops[0], dst, lambda d: f"cvt.{rnd}{ftz}.{dst}.{src} {d}, {v};")


def _f2f_half(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``F2F.F16.F32 Rd, Ra``: the half in Rd's low 16 bits (zeros above); ``F2F.F32.F16``."""
    if ins.modifiers[:2] == ("F16", "F32") and set(ins.modifiers[2:]) <= {"FTZ", *_FRND}:
        rnd = next((_FRND[m] for m in ins.modifiers if m in _FRND), "rn")
        hh = e.h()
        e.w(f"cvt.{rnd}{'.ftz' if 'FTZ' in ins.modifiers else ''}.f16.f32 {hh}, {c.src(e, ops[1], 'f32')};")
        e.a(f"cvt.u32.u16 {c.dst(ops[0])}, {hh};")   # the half in the low 16 bits, zeros above
        return
    if ins.modifiers[:2] == ("F32", "F16") and len(ins.modifiers) == 2:
        hh = e.h()
        e.w(f"cvt.u16.u32 {hh}, {c.src(e, ops[1])};")
        e.a(f"cvt.f32.f16 {c.dst(ops[0])}, {hh};")
        return
    raise UnsupportedSass(ins.full_opcode)


@_h("F2F")
def _f2f(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``F2F.F32.F64`` / ``F2F.F64.F32`` / ``F2F.F16.F32`` / ``F2F.F32.F16`` (destination first)."""
    _mods(ins, {"F32", "F64", "F16", "FTZ", *_FRND})
    _nops(ins, 2)
    if ins.modifiers[:2] in (("F16", "F32"), ("F32", "F16")):
        _f2f_half(c, e, ins, ops)
        return
    types = [m.lower() for m in ins.modifiers if m in ("F32", "F64")]
    if len(types) != 2 or types[0] == types[1]:
        raise UnsupportedSass(ins.full_opcode)
    dst, src = types
    rnd = next((_FRND[m] for m in ins.modifiers if m in _FRND), "rn")
    ftz = ".ftz" if "FTZ" in ins.modifiers else ""
    v = _fsrc(c, e, ops[1], src)
    r = f".{rnd}" if dst == "f32" else ""
    _write(c, e, ops[0], dst, lambda d: f"cvt{r}{ftz}.{dst}.{src} {d}, {v};")


@_h("FRND")
def _frnd(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``FRND[.F64][.FLOOR|CEIL|TRUNC][.FTZ] Rd, Ra``: round to an integral float (default nearest even)."""
    modes = {"FLOOR": "rmi", "CEIL": "rpi", "TRUNC": "rzi"}
    _mods(ins, set(modes) | {"FTZ", "F64", "F32"})
    _nops(ins, 2)
    rnd = next((modes[m] for m in ins.modifiers if m in modes), "rni")
    typ = "f64" if "F64" in ins.modifiers else "f32"
    ftz = ".ftz" if "FTZ" in ins.modifiers and typ == "f32" else ""
    v = _fsrc(c, e, ops[1], typ)
    _write(c, e, ops[0], typ, lambda d: f"cvt.{rnd}{ftz}.{typ}.{typ} {d}, {v};")


@_h("DADD", "DMUL")
def _dbin(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, set(_FRND))
    _nops(ins, 3)
    rnd = next((_FRND[m] for m in ins.modifiers if m in _FRND), "rn")
    a, b = _fsrc(c, e, ops[1], "f64"), _fsrc(c, e, ops[2], "f64")
    op = "add" if ins.opcode == "DADD" else "mul"
    _write(c, e, ops[0], "f64", lambda d: f"{op}.{rnd}.f64 {d}, {a}, {b};")


@_h("DFMA")
def _dfma(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    _mods(ins, set(_FRND))
    _nops(ins, 4)
    rnd = next((_FRND[m] for m in ins.modifiers if m in _FRND), "rn")
    a, b, cc = (_fsrc(c, e, o, "f64") for o in ops[1:4])
    _write(c, e, ops[0], "f64", lambda d: f"fma.{rnd}.f64 {d}, {a}, {b}, {cc};")


@_h("DSETP")
def _dsetp(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    mods = list(ins.modifiers)
    _mods(ins, set(_FCMP) | set(_BOP))
    cmps = [m for m in mods if m in _FCMP]
    bops = [m for m in mods if m in _BOP]
    if len(cmps) != 1 or len(bops) != 1:
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 5)
    a, b = _fsrc(c, e, ops[2], "f64"), _fsrc(c, e, ops[3], "f64")
    if a[0] != "%":
        d = e.d()
        e.w(f"mov.b64 {d}, {a};")
        a = d
    _setp_out(c, e, _FCMP[cmps[0]], "f64", a, b, _BOP[bops[0]], ops[4], ops[0], ops[1])


def _zero(c: Converter, e: _Exp) -> str:
    t = e.t()
    e.w(f"mov.b32 {t}, 0;")
    return t


# --- FP16 pairs (f16x2 in a 32-bit register, element 0 in the low half)
_SWZ = {"H0_H0": "0x1010", "H1_H1": "0x3232", "H1_H0": None, "F32": None}


def _hsrc(c: Converter, e: _Exp, o: Opnd) -> str:
    """An f16x2 operand with its swizzle (``.H0_H0`` / ``.H1_H1`` broadcast a half) and sign
    (``-x`` flips both halves' signs, ``|x|`` clears them) applied; ``RZ`` is +0 in both."""
    sw = [s for s in o.suffix if s in _SWZ]
    if len(sw) != len(o.suffix) or len(sw) > 1 or o.inv:
        raise UnsupportedSass("operand", o.text)
    if o.kind == "rz":
        v = "0"
    elif o.kind in ("r", "ur", "c"):
        v = c.src(e, Opnd(o.kind, o.num, bank=o.bank, text=o.text))
    else:
        raise UnsupportedSass("operand", o.text)
    if sw and _SWZ[sw[0]] and v != "0":
        t = e.t()
        e.w(f"prmt.b32 {t}, {v}, 0, {_SWZ[sw[0]]};")
        v = t
    if o.abs:
        t = e.t()
        e.w(f"and.b32 {t}, {v}, 0x7FFF7FFF;")
        v = t
    if o.neg:
        t = e.t()
        e.w(f"xor.b32 {t}, {v}, 0x80008000;")
        v = t
    return v


def _half_imm_pair(c: Converter, e: _Exp, hi: Opnd, lo: Opnd) -> str:
    """Two float immediates (as nvdisasm prints an f16x2 literal) packed into a work register."""
    import numpy as np

    bits = []
    for o in (lo, hi):
        if o.kind not in ("imm", "fimm"):
            raise UnsupportedSass("operand", o.text)
        f = float(o.text.lstrip("+").replace("INF", "inf")) if o.kind == "fimm" else float(o.num)
        bits.append(int(np.array(f, dtype=np.float16).view(np.uint16)))
    t = e.t()
    e.w(f"mov.b32 {t}, {bits[0] | bits[1] << 16};")
    return t


@_h("HADD2", "HMUL2", "HFMA2")
def _h2(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``HADD2``/``HMUL2``/``HFMA2`` on f16x2 pairs (round to nearest even); ``.F32`` (HADD2):
    the low halves widened to f32 and added (nvcc's half-to-float conversion adds -0)."""
    _mods(ins, {"F32", "FTZ", "SAT"})
    n = 4 if ins.opcode == "HFMA2" else 3
    if len(ops) == n + 1 and ops[-1].kind in ("imm", "fimm") and ops[-2].kind in ("imm", "fimm"):
        srcs = [_hsrc(c, e, o) for o in ops[1:n - 1]] + [_half_imm_pair(c, e, ops[-2], ops[-1])]
    elif len(ops) == n:
        srcs = [_hsrc(c, e, o) for o in ops[1:]]
    else:
        raise UnsupportedSass(ins.full_opcode, f"{len(ops)} operands")
    sat = ".sat" if "SAT" in ins.modifiers else ""
    if "F32" in ins.modifiers:
        if ins.opcode != "HADD2" or sat:
            raise UnsupportedSass(ins.full_opcode)
        fs = []
        for s in srcs:
            hh, f = e.h(), e.t()
            e.w(f"cvt.u16.u32 {hh}, {s};")
            e.w(f"cvt.f32.f16 {f}, {hh};")
            fs.append(f)
        e.a(f"add.rn{'.ftz' if 'FTZ' in ins.modifiers else ''}.f32 {c.dst(ops[0])}, {fs[0]}, {fs[1]};")
        return
    op = {"HADD2": "add", "HMUL2": "mul", "HFMA2": "fma"}[ins.opcode]
    e.a(f"{op}.rn{sat}.f16x2 {c.dst(ops[0])}, {', '.join(srcs)};")


@_h("F2FP")
def _f2fp(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``F2FP.PACK_AB Rd, a, b`` (sm_80+): a and b (f32) rounded to halves, a in the high half
    and b in the low one (PTX ``cvt.rn.f16x2.f32 d, a, b``)."""
    if ins.modifiers not in (("PACK_AB",), ("F16", "F32", "PACK_AB")):
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 3)
    a, b = c.src(e, ops[1], "f32"), c.src(e, ops[2], "f32")
    e.a(f"cvt.rn.f16x2.f32 {c.dst(ops[0])}, {a}, {b};")


@_h("HMNMX2")
def _hmnmx2(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``HMNMX2 Rd, a, b, Pmin`` (sm_80+): per half, min when Pmin else max."""
    _mods(ins, set())
    _nops(ins, 4)
    a, b = _hsrc(c, e, ops[1]), _hsrc(c, e, ops[2])
    k = c.pconst(ops[3])
    if k is None:
        raise UnsupportedSass(ins.full_opcode, "predicate-selected")
    e.a(f"{'min' if k else 'max'}.f16x2 {c.dst(ops[0])}, {a}, {b};")


@_h("HSETP2")
def _hsetp2(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``HSETP2.cmp.bop Pd, Pq, a, b, Pc``: Pd compares the low halves, Pq the high halves
    (each combined with Pc), as PTX ``setp.f16x2 p|q``."""
    mods = list(ins.modifiers)
    _mods(ins, set(_FCMP) | set(_BOP) | {"FTZ", "H_AND"})
    cmps = [m for m in mods if m in _FCMP]
    bops = [m for m in mods if m in _BOP]
    if len(cmps) != 1 or len(bops) != 1 or "H_AND" in mods:
        raise UnsupportedSass(ins.full_opcode)
    _nops(ins, 5)
    a, b = _hsrc(c, e, ops[2]), _hsrc(c, e, ops[3])
    pcs = c.psrc(e, ops[4])
    q1, q2 = e.q(), e.q()
    e.w(f"setp.{_FCMP[cmps[0]]}.{_BOP[bops[0]]}.f16x2 {q1}|{q2}, {a}, {b}, {pcs};")
    for dst, q in ((ops[0], q1), (ops[1], q2)):
        if not (dst.kind == "pt" and not dst.inv):
            e.a(f"mov.pred {c.pdst(dst)}, {q};")



@_h("FCHK")
def _fchk(c: Converter, e: _Exp, ins: SassInstruction, ops: list[Opnd]) -> None:
    """``FCHK Pd, a, b``: whether a / b needs the IEEE slow path (denormal, huge or special
    operands).  Pd = true always: the slow path (a CALL.REL subroutine) is correct for every
    operand, so results stay exact; only the instruction count differs from the hardware."""
    _mods(ins, set())
    _nops(ins, 3)
    e.a(f"setp.eq.u32 {c.pdst(ops[0])}, 0, 0;")
